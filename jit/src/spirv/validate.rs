//! Validation of a parsed module against the OpenCL SPIR-V environment
//! (seeds/004: "OpenCL SPIR-V Environment Specification", sections 2-4) and
//! the structural rules of the SPIR-V specification that the JIT relies on.
//! Every error names the rule and the offending instruction.

use super::binary::Instruction;
use super::module::{Id, Module, Type};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability as Cap, Op};
use std::collections::{HashMap, HashSet};
use std::fmt;

mod pipe;

const ENV: &str = "OpenCL SPIR-V environment";

/// What the device supports; the runtime fills this in and uses the same
/// values for its device queries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFeatures {
    /// CL_DEVICE_ADDRESS_BITS: 64 requires Physical64, 32 Physical32.
    pub address_bits: u32,
    /// Highest SPIR-V 1.x minor version accepted.
    pub max_spirv_minor: u8,
    pub float16: bool,
    pub float64: bool,
    pub int64_atomics: bool,
    pub generic_pointer: bool,
    /// ImageBasic and the image capabilities that come with it.
    pub images: bool,
    pub read_write_images: bool,
    pub subgroups: bool,
    /// The cl_khr_subgroup_* extensions the device reports (with `subgroups`): each allows
    /// its GroupNonUniform* capability.
    pub subgroup_extensions: Vec<String>,
    pub work_group_collectives: bool,
    pub device_enqueue: bool,
    pub pipes: bool,
    /// Memory scopes allowed for atomics and fences (section 4).
    pub scope_invocation: bool,
    pub scope_workgroup: bool,
    pub scope_device: bool,
    pub scope_cross_device: bool,
    /// Memory orders allowed (section 4).
    pub order_relaxed: bool,
    pub order_acq_rel: bool,
    pub order_seq_cst: bool,
    /// SPIR-V extensions (OpExtension) the device accepts.
    pub extensions: Vec<String>,
}

impl Default for DeviceFeatures {
    fn default() -> Self {
        DeviceFeatures {
            address_bits: 64,
            max_spirv_minor: 6,
            float16: true,
            float64: true,
            int64_atomics: true,
            generic_pointer: true,
            images: true,
            read_write_images: true,
            subgroups: false,
            subgroup_extensions: Vec::new(),
            work_group_collectives: false,
            device_enqueue: false,
            pipes: false,
            scope_invocation: true,
            scope_workgroup: true,
            scope_device: true,
            scope_cross_device: true,
            order_relaxed: true,
            order_acq_rel: true,
            order_seq_cst: true,
            extensions: vec![
                "SPV_KHR_no_integer_wrap_decoration".into(),
                "SPV_KHR_float_controls".into(),
                "SPV_KHR_expect_assume".into(),
                "SPV_KHR_non_semantic_info".into(),
                "SPV_KHR_linkonce_odr".into(),
                "SPV_EXT_shader_atomic_float_add".into(),
                "SPV_EXT_shader_atomic_float_min_max".into(),
                "SPV_KHR_integer_dot_product".into(),
                "SPV_KHR_bit_instructions".into(),
                "SPV_KHR_shader_clock".into(),
            ],
        }
    }
}

impl DeviceFeatures {
    /// The capabilities a module may declare on this device (section 3).
    pub fn supported_capabilities(&self) -> Vec<Cap> {
        let mut v = vec![
            Cap::Addresses,
            Cap::Float16Buffer,
            Cap::Int64,
            Cap::Int16,
            Cap::Int8,
            Cap::Kernel,
            Cap::Linkage,
            Cap::Vector16,
            // SPIR-V 1.6: the Uniform and UniformId decorations on kernels (hints only).
            Cap::UniformDecoration,
            // SPV_KHR_expect_assume, SPV_KHR_integer_dot_product (core in 1.6),
            // SPV_KHR_bit_instructions, SPV_KHR_shader_clock.
            Cap::ExpectAssumeKHR,
            Cap::DotProduct,
            Cap::DotProductInputAll,
            Cap::DotProductInput4x8Bit,
            Cap::DotProductInput4x8BitPacked,
            Cap::BitInstructions,
            Cap::ShaderClockKHR,
            // SPV_EXT_shader_atomic_float_add, SPV_EXT_shader_atomic_float_min_max (32 bits).
            Cap::AtomicFloat32AddEXT,
            Cap::AtomicFloat32MinMaxEXT,
        ];
        let opt = [
            (self.float16, Cap::Float16),
            (self.float64, Cap::Float64),
            (self.float64, Cap::AtomicFloat64AddEXT),
            (self.float64, Cap::AtomicFloat64MinMaxEXT),
            (self.int64_atomics, Cap::Int64Atomics),
            (self.generic_pointer, Cap::GenericPointer),
            (self.device_enqueue, Cap::DeviceEnqueue),
            (self.pipes, Cap::Pipes),
            (self.subgroups || self.work_group_collectives, Cap::Groups),
            (self.subgroups, Cap::SubgroupDispatch),
            (self.images, Cap::ImageBasic),
            (self.images, Cap::LiteralSampler),
            (self.images, Cap::Sampled1D),
            (self.images, Cap::Image1D),
            (self.images, Cap::SampledBuffer),
            (self.images, Cap::ImageBuffer),
            (self.images && self.read_write_images, Cap::ImageReadWrite),
        ];
        v.extend(opt.iter().filter(|(on, _)| *on).map(|(_, c)| *c));
        // The OpenCL extensions' SPIR-V capabilities (OpenCL SPIR-V environment, section 3).
        // GroupNonUniformQuad and GroupNonUniformPartitionedEXT have no OpenCL extension and
        // are never supported.
        let sg = [
            ("cl_khr_subgroup_non_uniform_vote", Cap::GroupNonUniformVote),
            ("cl_khr_subgroup_ballot", Cap::GroupNonUniformBallot),
            ("cl_khr_subgroup_non_uniform_arithmetic", Cap::GroupNonUniformArithmetic),
            ("cl_khr_subgroup_shuffle", Cap::GroupNonUniformShuffle),
            ("cl_khr_subgroup_shuffle_relative", Cap::GroupNonUniformShuffleRelative),
            ("cl_khr_subgroup_clustered_reduce", Cap::GroupNonUniformClustered),
            ("cl_khr_subgroup_rotate", Cap::GroupNonUniformRotateKHR),
        ];
        let has = |e: &str| self.subgroups && self.subgroup_extensions.iter().any(|x| x == e);
        if sg.iter().any(|(e, _)| has(e)) {
            v.push(Cap::GroupNonUniform);
        }
        v.extend(sg.iter().filter(|(e, _)| has(e)).map(|(_, c)| *c));
        v
    }
}

/// A module that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// The rule, e.g. "OpenCL SPIR-V environment section 4".
    pub rule: String,
    pub message: String,
    /// "OpTypeInt %5" or "OpStore at byte offset 812".
    pub instruction: Option<String>,
    pub offset: Option<usize>,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.message, self.rule)?;
        if let Some(i) = &self.instruction {
            write!(f, " at {}", i)?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationError {}

fn err(rule: impl Into<String>, message: impl Into<String>, inst: Option<&Instruction>) -> ValidationError {
    ValidationError {
        rule: rule.into(),
        message: message.into(),
        instruction: inst.map(|i| i.describe()),
        offset: inst.map(|i| i.offset),
    }
}

type R = Result<(), ValidationError>;

fn ids_of(ops: &[Operand]) -> impl Iterator<Item = Id> + '_ {
    ops.iter().filter_map(|o| match o {
        Operand::IdRef(v) | Operand::IdScope(v) | Operand::IdMemorySemantics(v) => Some(*v),
        _ => None,
    })
}

fn op_id(ops: &[Operand], i: usize) -> Option<Id> {
    match ops.get(i) {
        Some(Operand::IdRef(v)) | Some(Operand::IdScope(v)) | Some(Operand::IdMemorySemantics(v)) => Some(*v),
        _ => None,
    }
}

struct Ctx<'m> {
    m: &'m Module,
    f: &'m DeviceFeatures,
    /// Defining instruction of each id.
    defs: HashMap<Id, &'m Instruction>,
    caps: HashSet<Cap>,
}

impl<'m> Ctx<'m> {
    fn ty(&self, id: Id) -> Option<&'m Type> {
        self.m.type_of(id)
    }

    /// Type id of a value id.
    fn value_type(&self, id: Id) -> Option<Id> {
        if let Some(f) = self.m.function(id) {
            return Some(f.fn_type);
        }
        self.defs.get(&id).and_then(|i| i.result_type)
    }

    fn int_const(&self, id: Id) -> Option<u64> {
        let d = self.defs.get(&id)?;
        match (d.opcode, d.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(v))) => Some(*v as u64),
            (Op::Constant, Some(Operand::LiteralBit64(v))) => Some(*v),
            _ => None,
        }
    }

    /// Whether type `id` (a scalar, or a vector's components) is integer, float or bool.
    fn component_kind(&self, id: Id) -> Option<Kind> {
        let t = match self.m.type_of(id)? {
            Type::Vector { component, .. } => self.m.type_of(*component)?,
            t => t,
        };
        match t {
            Type::Int { .. } => Some(Kind::Int),
            Type::Float { .. } => Some(Kind::Float),
            Type::Bool => Some(Kind::Bool),
            _ => None,
        }
    }

    fn type_text(&self, id: Id) -> String {
        match self.defs.get(&id) {
            Some(i) => i.describe(),
            None => format!("%{}", id),
        }
    }
}

/// Says what environment a non-OpenCL module was written for.
fn foreign_environment(m: &Module) -> Option<(String, Option<&Instruction>)> {
    let mut why = vec![];
    let mut first: Option<&Instruction> = None;
    fn note<'a>(why: &mut Vec<String>, s: String, i: Option<&'a Instruction>, first: &mut Option<&'a Instruction>) {
        why.push(s);
        if first.is_none() {
            *first = i;
        }
    }
    for i in &m.instructions {
        match (i.opcode, i.operands.first(), i.operands.get(1)) {
            (Op::Capability, Some(Operand::Capability(Cap::Shader)), _) => {
                note(&mut why, "Shader capability".into(), Some(i), &mut first)
            }
            (Op::EntryPoint, Some(Operand::ExecutionModel(em)), _) if *em != spirv::ExecutionModel::Kernel => {
                note(&mut why, format!("{:?} entry point", em), Some(i), &mut first)
            }
            (Op::MemoryModel, Some(Operand::AddressingModel(a)), Some(Operand::MemoryModel(mm))) => {
                if !matches!(
                    a,
                    spirv::AddressingModel::Physical32 | spirv::AddressingModel::Physical64
                ) {
                    note(&mut why, format!("{:?} addressing model", a), Some(i), &mut first);
                }
                if *mm != spirv::MemoryModel::OpenCL {
                    note(&mut why, format!("{:?} memory model", mm), Some(i), &mut first);
                }
            }
            (Op::ExtInstImport, Some(Operand::LiteralString(s)), _) if s == "GLSL.std.450" => {
                note(&mut why, "GLSL.std.450 instruction set".into(), Some(i), &mut first)
            }
            _ => {}
        }
    }
    if why.is_empty() {
        return None;
    }
    let vulkan_mm = m
        .memory_model
        .map(|(_, mm)| mm == spirv::MemoryModel::Vulkan)
        .unwrap_or(false);
    let kind = if vulkan_mm {
        "a Vulkan/WebGPU shader module"
    } else if why
        .iter()
        .any(|w| w.contains("GLSL") || w.contains("Shader") || w.contains("entry point"))
    {
        "a Vulkan/GLSL shader module"
    } else {
        "not an OpenCL kernel module"
    };
    Some((
        format!(
            "this is {} ({}) and cannot run on an OpenCL device",
            kind,
            why.join(", ")
        ),
        first,
    ))
}

/// Validates `m` for a device with features `f`.
pub fn validate(m: &Module, f: &DeviceFeatures) -> R {
    if let Some((msg, inst)) = foreign_environment(m) {
        return Err(err(
            format!(
                "{} section 4 (execution model Kernel, Physical addressing, OpenCL memory model)",
                ENV
            ),
            msg,
            inst,
        ));
    }
    if let Some(h) = m.header {
        if h.version.1 > f.max_spirv_minor {
            return Err(err(
                format!("{} section 2.1", ENV),
                format!(
                    "SPIR-V {}.{} is newer than the device's IL version 1.{}",
                    h.version.0, h.version.1, f.max_spirv_minor
                ),
                None,
            ));
        }
    }
    let mut ctx = Ctx {
        m,
        f,
        defs: HashMap::new(),
        caps: HashSet::new(),
    };
    check_ids(&mut ctx)?;
    check_types(&ctx)?;
    check_capabilities(&mut ctx)?;
    check_layout(&ctx)?;
    check_functions(&ctx)?;
    check_dominance(&ctx)?;
    check_entry_points(&ctx)?;
    check_instructions(&ctx)?;
    check_recursion(&ctx)?;
    Ok(())
}

/// The ids an instruction's operands refer to. Trailing operands of
/// OpExtInst are ids only where the extended grammar says so (OpenCL.std and
/// OpenCL.DebugInfo.100); operands of other sets are not looked at.
fn used_ids(m: &Module, i: &Instruction) -> Vec<Id> {
    if i.opcode != Op::ExtInst {
        return ids_of(&i.operands).collect();
    }
    let set = op_id(&i.operands, 0)
        .and_then(|s| m.ext_inst_imports.iter().find(|(id, _)| *id == s))
        .map(|(_, n)| n.as_str())
        .unwrap_or("");
    let g = match i.operands.get(1) {
        Some(Operand::LiteralExtInstInteger(n)) if set == "OpenCL.std" || set == "OpenCL.DebugInfo.100" => {
            super::grammar::ext_inst_by_number(set, *n)
        }
        _ => None,
    };
    let ext_ids: Vec<Id> = match g {
        Some(g) => i
            .operands
            .iter()
            .skip(2)
            .enumerate()
            .filter(|(k, _)| {
                g.operands
                    .get(*k)
                    .or(g.operands.last())
                    .map(|o| o.kind == rspirv::grammar::OperandKind::IdRef)
                    .unwrap_or(false)
            })
            .filter_map(|(_, o)| match o {
                Operand::IdRef(v) => Some(*v),
                _ => None,
            })
            .collect(),
        None => vec![],
    };
    op_id(&i.operands, 0).into_iter().chain(ext_ids).collect()
}

/// SPIR-V 2.2.1/2.4: every result id is defined once and is below the bound;
/// every id used is defined; types and constants are defined before use in
/// the global section.
fn check_ids(ctx: &mut Ctx) -> R {
    let m = ctx.m;
    let bound = m.header.map(|h| h.bound).unwrap_or(u32::MAX);
    for i in &m.instructions {
        if let Some(r) = i.result_id {
            if r == 0 || r >= bound {
                return Err(err(
                    "SPIR-V 2.3 (ids must be less than the bound)",
                    format!("result id {} is not below the module's id bound {}", r, bound),
                    Some(i),
                ));
            }
            if let Some(prev) = ctx.defs.insert(r, i) {
                return Err(err(
                    "SPIR-V 2.2.1 (an id is defined once)",
                    format!("id %{} is defined again (first by {})", r, prev.describe()),
                    Some(i),
                ));
            }
        }
    }
    let mut forward: HashSet<Id> = HashSet::new();
    for i in &m.instructions {
        if i.opcode == Op::TypeForwardPointer {
            if let Some(p) = op_id(&i.operands, 0) {
                forward.insert(p);
            }
        }
    }
    let mut in_function = false;
    for i in &m.instructions {
        match i.opcode {
            Op::Function => in_function = true,
            Op::FunctionEnd => in_function = false,
            _ => {}
        }
        let operand_ids = used_ids(m, i);
        let uses = i.result_type.into_iter().chain(operand_ids);
        for u in uses {
            let d = match ctx.defs.get(&u) {
                Some(d) => *d,
                None => {
                    return Err(err(
                        "SPIR-V 2.2.1 (every id used must be defined)",
                        format!("uses %{}, which no instruction defines", u),
                        Some(i),
                    ))
                }
            };
            // Outside functions, declarations must come before their uses
            // (SPIR-V 2.4, logical layout item 9), except forward pointers
            // and the debug/annotation instructions that precede them.
            let annotation = matches!(
                i.opcode,
                Op::Name
                    | Op::MemberName
                    | Op::Decorate
                    | Op::MemberDecorate
                    | Op::DecorateId
                    | Op::DecorateString
                    | Op::MemberDecorateString
                    | Op::GroupDecorate
                    | Op::GroupMemberDecorate
                    | Op::EntryPoint
                    | Op::ExecutionMode
                    | Op::ExecutionModeId
                    | Op::TypeForwardPointer
                    | Op::ExtInst
                    | Op::Line
            );
            if !in_function && !annotation && d.offset > i.offset && !forward.contains(&u) {
                return Err(err(
                    "SPIR-V 2.4 (types and constants are declared before use)",
                    format!("uses %{} before its definition {}", u, d.describe()),
                    Some(i),
                ));
            }
        }
        if let Some(t) = i.result_type {
            let is_type = ctx.defs.get(&t).map(|d| d.opcode.is_type()).unwrap_or(false);
            if !is_type {
                return Err(err(
                    "SPIR-V 2.2.1 (Result Type must be a type)",
                    format!("result type %{} is not a type ({})", t, ctx.type_text(t)),
                    Some(i),
                ));
            }
        }
    }
    Ok(())
}

/// Section 3 (capabilities the device supports) and SPIR-V 2.16 (every
/// instruction and enumerant used has its capability declared).
fn check_capabilities(ctx: &mut Ctx) -> R {
    let m = ctx.m;
    let supported = ctx.f.supported_capabilities();
    for i in &m.instructions {
        if let (Op::Capability, Some(Operand::Capability(c))) = (i.opcode, i.operands.first()) {
            if *c == Cap::Shader {
                continue; // reported as a foreign module already
            }
            if !supported.contains(c) {
                return Err(err(
                    format!("{} section 3 (required and optional capabilities)", ENV),
                    format!("capability {:?} is not supported by this OpenCL device", c),
                    Some(i),
                ));
            }
            // Declaring a capability implicitly declares the ones it depends on.
            let mut stack = vec![*c];
            while let Some(c) = stack.pop() {
                if ctx.caps.insert(c) {
                    stack.extend(Operand::Capability(c).required_capabilities());
                }
            }
        }
    }
    for i in &m.instructions {
        if i.opcode == Op::Extension {
            if let Some(Operand::LiteralString(s)) = i.operands.first() {
                if !ctx.f.extensions.iter().any(|e| e == s) {
                    return Err(err(
                        format!("{} section 5.1 (declaring SPIR-V extensions)", ENV),
                        format!("SPIR-V extension {} is not supported by this device", s),
                        Some(i),
                    ));
                }
            }
        }
        if i.opcode == Op::ExtInstImport {
            if let Some(Operand::LiteralString(s)) = i.operands.first() {
                let ok = s == "OpenCL.std" || s == "OpenCL.DebugInfo.100" || s.starts_with("NonSemantic.");
                if !ok {
                    return Err(err(
                        format!("{} section 2.2 (extended instruction sets)", ENV),
                        format!("extended instruction set \"{}\" is not supported (only OpenCL.std)", s),
                        Some(i),
                    ));
                }
            }
        }
        let g = match super::grammar::inst_by_opcode(i.opcode as u32) {
            Some(g) => g,
            None => continue,
        };
        if !g.capabilities.is_empty() && !g.capabilities.iter().any(|c| ctx.caps.contains(c)) {
            return Err(err(
                "SPIR-V 2.16.1 (capabilities must be declared)",
                format!(
                    "{} requires capability {} which the module does not declare",
                    i.name(),
                    g.capabilities
                        .iter()
                        .map(|c| format!("{:?}", c))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
                Some(i),
            ));
        }
        for o in &i.operands {
            if matches!(o, Operand::Capability(_)) {
                continue;
            }
            let need = o.required_capabilities();
            if !need.is_empty() && !need.iter().any(|c| ctx.caps.contains(c)) {
                return Err(err(
                    "SPIR-V 2.16.1 (capabilities must be declared)",
                    format!(
                        "operand {} requires capability {} which the module does not declare",
                        o,
                        need.iter().map(|c| format!("{:?}", c)).collect::<Vec<_>>().join(" or ")
                    ),
                    Some(i),
                ));
            }
        }
        // Width-dependent capabilities (SPIR-V 2.16.1 / OpTypeInt, OpTypeFloat).
        let need = match (i.opcode, i.operands.first()) {
            (Op::TypeInt, Some(Operand::LiteralBit32(8))) => Some(vec![Cap::Int8]),
            (Op::TypeInt, Some(Operand::LiteralBit32(16))) => Some(vec![Cap::Int16]),
            (Op::TypeInt, Some(Operand::LiteralBit32(64))) => Some(vec![Cap::Int64]),
            (Op::TypeFloat, Some(Operand::LiteralBit32(16))) => Some(vec![Cap::Float16, Cap::Float16Buffer]),
            (Op::TypeFloat, Some(Operand::LiteralBit32(64))) => Some(vec![Cap::Float64]),
            (Op::TypeVector, _) => match i.operands.get(1) {
                Some(Operand::LiteralBit32(8)) | Some(Operand::LiteralBit32(16)) => Some(vec![Cap::Vector16]),
                _ => None,
            },
            _ => None,
        };
        if let Some(need) = need {
            if !need.iter().any(|c| ctx.caps.contains(c)) {
                return Err(err(
                    "SPIR-V 2.16.1 (capabilities must be declared)",
                    format!(
                        "{} requires capability {} which the module does not declare",
                        i.name(),
                        need.iter().map(|c| format!("{:?}", c)).collect::<Vec<_>>().join(" or ")
                    ),
                    Some(i),
                ));
            }
        }
    }
    Ok(())
}

/// Section 4: memory model and addressing model; SPIR-V 2.4: exactly one
/// OpMemoryModel.
fn check_layout(ctx: &Ctx) -> R {
    let mms: Vec<&Instruction> = ctx
        .m
        .instructions
        .iter()
        .filter(|i| i.opcode == Op::MemoryModel)
        .collect();
    if mms.len() != 1 {
        return Err(err(
            "SPIR-V 2.4 (exactly one OpMemoryModel)",
            format!("module has {} OpMemoryModel instructions", mms.len()),
            mms.get(1).copied(),
        ));
    }
    let (am, mm) = match ctx.m.memory_model {
        Some(x) => x,
        None => return Err(err("SPIR-V 2.4", "malformed OpMemoryModel", mms.first().copied())),
    };
    let want = if ctx.f.address_bits == 32 {
        spirv::AddressingModel::Physical32
    } else {
        spirv::AddressingModel::Physical64
    };
    if am != want {
        return Err(err(
            format!("{} section 4 (addressing model)", ENV),
            format!(
                "addressing model {:?} does not match this {}-bit device, which needs {:?}",
                am, ctx.f.address_bits, want
            ),
            mms.first().copied(),
        ));
    }
    if mm != spirv::MemoryModel::OpenCL {
        return Err(err(
            format!("{} section 4 (memory model)", ENV),
            format!("memory model {:?} is not OpenCL", mm),
            mms.first().copied(),
        ));
    }
    if ctx.m.entry_points.is_empty() && !ctx.caps.contains(&Cap::Linkage) {
        return Err(err(
            "SPIR-V 2.4 (a module without Linkage needs an entry point)",
            "module declares no OpEntryPoint and no Linkage capability",
            None,
        ));
    }
    Ok(())
}

/// Sections 2.5 and 4: the types an OpenCL environment supports.
fn check_types(ctx: &Ctx) -> R {
    for td in &ctx.m.types {
        let i = match ctx.defs.get(&td.id) {
            Some(i) => *i,
            None => continue,
        };
        match &td.ty {
            Type::Int { width, signedness } => {
                if *signedness != 0 {
                    return Err(err(
                        format!("{} section 4 (OpTypeInt Signedness must be 0)", ENV),
                        format!("integer type has Signedness {}", signedness),
                        Some(i),
                    ));
                }
                if ![8, 16, 32, 64].contains(width) {
                    return Err(err(
                        format!("{} section 2.5.1 (integer widths 8, 16, 32, 64)", ENV),
                        format!("integer width {} is not supported", width),
                        Some(i),
                    ));
                }
            }
            Type::Float { width } if ![16, 32, 64].contains(width) => {
                return Err(err(
                    format!("{} section 2.5.1 (float widths 16, 32, 64)", ENV),
                    format!("float width {} is not supported", width),
                    Some(i),
                ));
            }
            Type::Vector { component, count } => {
                if ![2, 3, 4, 8, 16].contains(count) {
                    return Err(err(
                        format!("{} section 2.5.1 (vector component counts 2, 3, 4, 8, 16)", ENV),
                        format!("vector of {} components is not supported", count),
                        Some(i),
                    ));
                }
                if !matches!(
                    ctx.ty(*component),
                    Some(Type::Int { .. } | Type::Float { .. } | Type::Bool)
                ) {
                    return Err(err(
                        format!("{} section 2.5.1 (vector components are scalars)", ENV),
                        format!("vector component {} is not a scalar type", ctx.type_text(*component)),
                        Some(i),
                    ));
                }
            }
            Type::Matrix { .. } => {
                return Err(err(
                    format!("{} section 2.5 (supported types)", ENV),
                    "matrix types are a shader feature, not supported in OpenCL",
                    Some(i),
                ))
            }
            Type::Image {
                sampled_type,
                dim,
                depth,
                arrayed,
                ms,
                sampled,
                format,
                access,
            } => {
                let rule = format!("{} section 4 (OpTypeImage rules)", ENV);
                if !matches!(ctx.ty(*sampled_type), Some(Type::Void)) {
                    return Err(err(rule, "image Sampled Type must be OpTypeVoid", Some(i)));
                }
                if *sampled != 0 {
                    return Err(err(rule, format!("image Sampled must be 0, not {}", sampled), Some(i)));
                }
                if *ms != 0 {
                    return Err(err(rule, "image MS must be 0 (single-sampled)", Some(i)));
                }
                if *arrayed != 0 && !matches!(dim, spirv::Dim::Dim1D | spirv::Dim::Dim2D) {
                    return Err(err(
                        rule,
                        format!("Arrayed images must be 1D or 2D, not {:?}", dim),
                        Some(i),
                    ));
                }
                if *format != spirv::ImageFormat::Unknown {
                    return Err(err(
                        rule,
                        format!("Image Format must be Unknown, not {:?}", format),
                        Some(i),
                    ));
                }
                if access.is_none() {
                    return Err(err(rule, "the image Access Qualifier must be present", Some(i)));
                }
                let ok = matches!(
                    (dim, depth, arrayed),
                    (spirv::Dim::Dim1D, 0, _)
                        | (spirv::Dim::Dim2D, 0 | 1, _)
                        | (spirv::Dim::Dim3D, 0, 0)
                        | (spirv::Dim::DimBuffer, 0, 0)
                );
                if !ok {
                    return Err(err(
                        format!("{} section 2.5.2 (image types)", ENV),
                        format!(
                            "image Dim {:?} Depth {} Arrayed {} is not an OpenCL image type",
                            dim, depth, arrayed
                        ),
                        Some(i),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn is_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Kill
            | Op::Unreachable
            | Op::TerminateInvocation
    )
}

/// SPIR-V 2.4 and 2.2.5: function types match, blocks end in a terminator.
fn check_functions(ctx: &Ctx) -> R {
    for f in &ctx.m.functions {
        let fi = ctx.defs.get(&f.id).copied();
        let (ret, params) = match ctx.ty(f.fn_type) {
            Some(Type::Function { ret, params }) => (*ret, params.clone()),
            _ => {
                return Err(err(
                    "SPIR-V OpFunction (Function Type must be OpTypeFunction)",
                    format!("function type %{} is not an OpTypeFunction", f.fn_type),
                    fi,
                ))
            }
        };
        if ret != f.result_type {
            return Err(err(
                "SPIR-V OpFunction (Result Type must match the function type's return type)",
                format!(
                    "result type %{} differs from the function type's return %{}",
                    f.result_type, ret
                ),
                fi,
            ));
        }
        if params.len() != f.params.len() || params.iter().zip(&f.params).any(|(a, (_, b))| a != b) {
            return Err(err(
                "SPIR-V OpFunctionParameter (parameters must match the function type)",
                "parameter list does not match the function type",
                fi,
            ));
        }
        for b in &f.blocks {
            let label = ctx.defs.get(&b.label).copied();
            match b.instructions.last() {
                Some(t) if is_terminator(t.opcode) => {}
                _ => {
                    return Err(err(
                        "SPIR-V 2.2.5 (a block ends with a termination instruction)",
                        format!("block %{} does not end with a branch or return", b.label),
                        label,
                    ))
                }
            }
            if let Some(t) = b.instructions[..b.instructions.len() - 1]
                .iter()
                .find(|i| is_terminator(i.opcode))
            {
                return Err(err(
                    "SPIR-V 2.2.5 (a termination instruction ends its block)",
                    format!("terminator in the middle of block %{}", b.label),
                    Some(t),
                ));
            }
            for i in &b.instructions {
                if i.opcode == Op::Variable
                    && !matches!(
                        i.operands.first(),
                        Some(Operand::StorageClass(spirv::StorageClass::Function))
                    )
                {
                    return Err(err(
                        "SPIR-V OpVariable (variables in functions use storage class Function)",
                        "OpVariable inside a function must have storage class Function",
                        Some(i),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Sections 4 and 2.8: entry points are Kernel functions returning void
/// with parameters the host API can set.
fn check_entry_points(ctx: &Ctx) -> R {
    for ep in &ctx.m.entry_points {
        let ei = ctx.m.instructions.iter().find(|i| i.offset == ep.offset);
        if ep.model != spirv::ExecutionModel::Kernel {
            return Err(err(
                format!("{} section 4 (execution model must be Kernel)", ENV),
                format!("entry point \"{}\" has execution model {:?}", ep.name, ep.model),
                ei,
            ));
        }
        let f = match ctx.m.function(ep.function) {
            Some(f) if !f.is_declaration() => f,
            _ => {
                return Err(err(
                    "SPIR-V OpEntryPoint (Entry Point must be an OpFunction with a body)",
                    format!(
                        "entry point \"{}\" names %{}, which is not a defined function",
                        ep.name, ep.function
                    ),
                    ei,
                ))
            }
        };
        if !matches!(ctx.ty(f.result_type), Some(Type::Void)) {
            return Err(err(
                format!("{} section 2.8.1 (kernel return type is void)", ENV),
                format!("kernel \"{}\" does not return OpTypeVoid", ep.name),
                ei,
            ));
        }
        for (pid, pty) in &f.params {
            // A struct passed by value arrives as a Function pointer marked ByVal
            // (llvm-spirv's form); the pointee is the argument's type.
            let byval = ctx.m.decorations_of(*pid).any(|d| {
                d.decoration == spirv::Decoration::FuncParamAttr
                    && matches!(
                        d.operands.first(),
                        Some(Operand::FunctionParameterAttribute(
                            spirv::FunctionParameterAttribute::ByVal
                        ))
                    )
            });
            let checked = match ctx.ty(*pty) {
                Some(Type::Pointer {
                    storage: spirv::StorageClass::Function,
                    pointee,
                }) if byval => kernel_arg_ok(ctx, *pointee, 1),
                _ => kernel_arg_ok(ctx, *pty, 0),
            };
            if let Err(why) = checked {
                return Err(err(
                    format!("{} section 2.8.2 (kernel argument types)", ENV),
                    format!("kernel \"{}\" argument %{}: {}", ep.name, pid, why),
                    ctx.defs.get(pid).copied(),
                ));
            }
        }
    }
    Ok(())
}

fn kernel_arg_ok(ctx: &Ctx, ty: Id, depth: u32) -> Result<(), String> {
    if depth > 64 {
        return Err("type nesting too deep".into());
    }
    match ctx.ty(ty) {
        Some(Type::Int { width, .. }) if [8, 16, 32, 64].contains(width) => Ok(()),
        Some(Type::Float { width: 32 }) => Ok(()),
        Some(Type::Float { width: 64 }) if ctx.f.float64 => Ok(()),
        // Half: by value (OpenCL C with cl_khr_fp16 takes half scalars and vectors as kernel
        // arguments) once the module declares Float16; storage-only modules pass pointers.
        Some(Type::Float { width }) if depth > 0 || *width == 16 => {
            // (llvm-spirv declares only Float16Buffer when a kernel just moves halves.)
            let half = ctx.caps.contains(&Cap::Float16) || ctx.caps.contains(&Cap::Float16Buffer);
            if *width == 16 && half {
                Ok(())
            } else {
                Err(format!("{}-bit float members are not supported", width))
            }
        }
        Some(Type::Float { width }) => Err(format!("{}-bit float arguments are not supported", width)),
        Some(Type::Vector { component, .. }) => kernel_arg_ok(ctx, *component, depth + 1),
        Some(Type::Struct { members }) => {
            for mty in members {
                kernel_arg_ok(ctx, *mty, depth + 1)?;
            }
            Ok(())
        }
        Some(Type::Array { element, .. }) if depth > 0 => kernel_arg_ok(ctx, *element, depth + 1),
        Some(Type::Pointer { storage, .. }) => {
            use spirv::StorageClass as S;
            if depth == 0 && !matches!(storage, S::CrossWorkgroup | S::Workgroup | S::UniformConstant) {
                Err(format!(
                    "pointer to {:?} is not a kernel argument address space",
                    storage
                ))
            } else {
                Ok(())
            }
        }
        Some(Type::Sampler | Type::Image { .. } | Type::Pipe { .. } | Type::Queue) if depth == 0 => Ok(()),
        Some(other) => Err(format!("type {} is not allowed", type_kind(other))),
        None => Err(format!("%{} is not a type", ty)),
    }
}

fn type_kind(t: &Type) -> &'static str {
    match t {
        Type::Void => "void",
        Type::Bool => "bool",
        Type::Int { .. } => "integer",
        Type::Float { .. } => "float",
        Type::Vector { .. } => "vector",
        Type::Matrix { .. } => "matrix",
        Type::Array { .. } => "array",
        Type::RuntimeArray { .. } => "runtime array",
        Type::Struct { .. } => "struct",
        Type::Pointer { .. } => "pointer",
        Type::Function { .. } => "function",
        Type::Image { .. } => "image",
        Type::Sampler => "sampler",
        Type::SampledImage { .. } => "sampled image",
        Type::Opaque { .. } => "opaque",
        Type::Event => "event",
        Type::DeviceEvent => "device event",
        Type::ReserveId => "reserve id",
        Type::Queue => "queue",
        Type::Pipe { .. } => "pipe",
        Type::Other(_) => "other",
    }
}

/// Whether `op` is one of the atomic instructions (their pointer is operand 0).
pub(crate) fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFlagTestAndSet
            | Op::AtomicFlagClear
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}

fn check_memory_scope(ctx: &Ctx, i: &Instruction, id: Id, atomic: bool) -> R {
    let rule = format!(
        "{} section 4 (Scope for Memory of {})",
        ENV,
        if atomic { "atomic instructions" } else { "barriers" }
    );
    let v = match ctx.int_const(id) {
        Some(v) => v as u32,
        None => {
            return Err(err(
                rule,
                format!("memory scope %{} is not an integer OpConstant", id),
                Some(i),
            ))
        }
    };
    let f = ctx.f;
    let ok = match spirv::Scope::from_u32(v) {
        Some(spirv::Scope::CrossDevice) => f.scope_cross_device,
        Some(spirv::Scope::Device) => f.scope_device,
        Some(spirv::Scope::Workgroup) => f.scope_workgroup,
        Some(spirv::Scope::Subgroup) => f.subgroups,
        Some(spirv::Scope::Invocation) => f.scope_invocation,
        _ => false,
    };
    if !ok {
        return Err(err(
            rule,
            format!(
                "memory scope {} is not allowed on this device",
                spirv::Scope::from_u32(v)
                    .map(|s| format!("{:?}", s))
                    .unwrap_or_else(|| v.to_string())
            ),
            Some(i),
        ));
    }
    Ok(())
}

fn check_semantics(ctx: &Ctx, i: &Instruction, id: Id, atomic: bool) -> R {
    let rule = format!(
        "{} section 4 (memory-order constraint of Memory Semantics of {})",
        ENV,
        if atomic { "atomic instructions" } else { "barriers" }
    );
    let v = match ctx.int_const(id) {
        Some(v) => v as u32,
        None => {
            return Err(err(
                rule,
                format!("memory semantics %{} is not an integer OpConstant", id),
                Some(i),
            ))
        }
    };
    let order = v & 0x1e;
    let f = ctx.f;
    let ok = match order {
        0 => f.order_relaxed,
        0x2 | 0x4 | 0x8 => f.order_acq_rel,
        0x10 => f.order_seq_cst,
        _ => {
            return Err(err(
                rule,
                format!(
                    "memory semantics 0x{:x} sets more than one memory order (SPIR-V 3.25 allows at most one)",
                    v
                ),
                Some(i),
            ))
        }
    };
    if !ok {
        return Err(err(
            rule,
            format!("memory order 0x{:x} is not supported by this device", order),
            Some(i),
        ));
    }
    Ok(())
}

fn check_exec_scope(ctx: &Ctx, i: &Instruction, id: Id, group_op: bool) -> R {
    let rule = format!("{} section 4 (Scope for Execution)", ENV);
    let v = match ctx.int_const(id) {
        Some(v) => v as u32,
        None => {
            return Err(err(
                rule,
                format!("execution scope %{} is not an integer OpConstant", id),
                Some(i),
            ))
        }
    };
    let f = ctx.f;
    let ok = match spirv::Scope::from_u32(v) {
        Some(spirv::Scope::Workgroup) => {
            !group_op || f.work_group_collectives || matches!(i.opcode, Op::GroupAsyncCopy | Op::GroupWaitEvents)
        }
        Some(spirv::Scope::Subgroup) => f.subgroups && !matches!(i.opcode, Op::GroupAsyncCopy | Op::GroupWaitEvents),
        _ => false,
    };
    if !ok {
        return Err(err(
            rule,
            format!(
                "execution scope {} is not allowed for {}",
                spirv::Scope::from_u32(v)
                    .map(|s| format!("{:?}", s))
                    .unwrap_or_else(|| v.to_string()),
                i.name()
            ),
            Some(i),
        ));
    }
    Ok(())
}

fn same_type_ops(op: Op) -> bool {
    matches!(
        op,
        Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::UDiv
            | Op::SDiv
            | Op::UMod
            | Op::SRem
            | Op::SMod
            | Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FRem
            | Op::FMod
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::FNegate
            | Op::SNegate
            | Op::Not
            | Op::LogicalAnd
            | Op::LogicalOr
            | Op::LogicalNot
            | Op::LogicalEqual
            | Op::LogicalNotEqual
    )
}

/// The component kinds of arithmetic operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    Float,
    Bool,
}

/// What the operands of `op` must be made of, for the opcodes that fix it.
fn operand_kind(op: Op) -> Option<Kind> {
    Some(match op {
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::UDiv
        | Op::SDiv
        | Op::UMod
        | Op::SRem
        | Op::SMod
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::SNegate
        | Op::Not
        | Op::ShiftLeftLogical
        | Op::ShiftRightLogical
        | Op::ShiftRightArithmetic
        | Op::IEqual
        | Op::INotEqual
        | Op::UGreaterThan
        | Op::SGreaterThan
        | Op::UGreaterThanEqual
        | Op::SGreaterThanEqual
        | Op::ULessThan
        | Op::SLessThan
        | Op::ULessThanEqual
        | Op::SLessThanEqual => Kind::Int,
        Op::FAdd
        | Op::FSub
        | Op::FMul
        | Op::FDiv
        | Op::FRem
        | Op::FMod
        | Op::FNegate
        | Op::FOrdEqual
        | Op::FUnordEqual
        | Op::FOrdNotEqual
        | Op::FUnordNotEqual
        | Op::FOrdLessThan
        | Op::FUnordLessThan
        | Op::FOrdGreaterThan
        | Op::FUnordGreaterThan
        | Op::FOrdLessThanEqual
        | Op::FUnordLessThanEqual
        | Op::FOrdGreaterThanEqual
        | Op::FUnordGreaterThanEqual => Kind::Float,
        Op::LogicalAnd | Op::LogicalOr | Op::LogicalNot | Op::LogicalEqual | Op::LogicalNotEqual => Kind::Bool,
        _ => return None,
    })
}

fn compare_ops(op: Op) -> bool {
    matches!(
        op,
        Op::IEqual
            | Op::INotEqual
            | Op::UGreaterThan
            | Op::SGreaterThan
            | Op::UGreaterThanEqual
            | Op::SGreaterThanEqual
            | Op::ULessThan
            | Op::SLessThan
            | Op::ULessThanEqual
            | Op::SLessThanEqual
            | Op::FOrdEqual
            | Op::FUnordEqual
            | Op::FOrdNotEqual
            | Op::FUnordNotEqual
            | Op::FOrdLessThan
            | Op::FUnordLessThan
            | Op::FOrdGreaterThan
            | Op::FUnordGreaterThan
            | Op::FOrdLessThanEqual
            | Op::FUnordLessThanEqual
            | Op::FOrdGreaterThanEqual
            | Op::FUnordGreaterThanEqual
    )
}

/// Per-instruction rules: operand types (SPIR-V 3.x instruction rules),
/// atomics, scopes and memory semantics, images (section 4).
fn check_instructions(ctx: &Ctx) -> R {
    for f in &ctx.m.functions {
        let ret = f.result_type;
        for b in &f.blocks {
            for i in &b.instructions {
                check_instruction(ctx, i, ret)?;
            }
        }
    }
    Ok(())
}

fn check_instruction(ctx: &Ctx, i: &Instruction, fn_ret: Id) -> R {
    let ops = &i.operands;
    let vt = |k: usize| op_id(ops, k).and_then(|v| ctx.value_type(v));
    let mismatch = |what: String| -> R { Err(err(format!("SPIR-V {} (operand types)", i.name()), what, Some(i))) };
    check_operand_types(ctx, i)?;
    check_khr_ext(ctx, i)?;
    pipe::check(ctx, i)?;
    if same_type_ops(i.opcode) {
        let rt = i.result_type;
        for k in 0..ops.len() {
            if vt(k) != rt {
                return mismatch(format!(
                    "operand {} has type {} but the result type is {}",
                    k + 1,
                    vt(k).map(|t| ctx.type_text(t)).unwrap_or_else(|| "?".into()),
                    rt.map(|t| ctx.type_text(t)).unwrap_or_else(|| "?".into())
                ));
            }
        }
    }
    if compare_ops(i.opcode) && vt(0) != vt(1) {
        return mismatch("the two operands have different types".into());
    }
    // The component kind each arithmetic, bitwise, logical and comparison instruction
    // operates on (SPIR-V 3.49.13 and 3.49.15): an integer opcode on floats (or the converse)
    // would otherwise reach the code generator.
    if let Some(kind) = operand_kind(i.opcode) {
        for k in 0..ops.len() {
            let Some(t) = vt(k) else { continue };
            if ctx.component_kind(t) != Some(kind) {
                return mismatch(format!(
                    "operand {} has type {}, but {} operates on {}",
                    k + 1,
                    ctx.type_text(t),
                    i.name(),
                    match kind {
                        Kind::Int => "integers",
                        Kind::Float => "floating-point values",
                        Kind::Bool => "booleans",
                    }
                ));
            }
        }
    }
    // OpenCL.std instructions take the operands their grammar lists.
    if i.opcode == Op::ExtInst {
        let set = op_id(ops, 0)
            .and_then(|s| ctx.m.ext_inst_imports.iter().find(|(id, _)| *id == s))
            .map(|(_, n)| n.as_str());
        if let (Some("OpenCL.std"), Some(Operand::LiteralExtInstInteger(n))) = (set, ops.get(1)) {
            if let Some(g) = super::grammar::ext_inst_by_number("OpenCL.std", *n) {
                use rspirv::grammar::OperandQuantifier as Q;
                let min = g.operands.iter().filter(|o| o.quantifier == Q::One).count();
                let unbounded = g.operands.iter().any(|o| o.quantifier == Q::ZeroOrMore);
                let max = min + g.operands.iter().filter(|o| o.quantifier == Q::ZeroOrOne).count();
                let have = ops.len().saturating_sub(2);
                if have < min || (!unbounded && have > max) {
                    return Err(err(
                        format!("OpenCL.std {} (operand count)", g.opname),
                        format!("{} takes {min} operand(s), not {have}", g.opname),
                        Some(i),
                    ));
                }
            }
        }
    }
    // SPIR-V OpSwitch: "It is invalid for any two Literal to be equal to each other."
    if i.opcode == Op::Switch {
        let mut seen = std::collections::HashSet::new();
        for op in ops.iter().skip(2).step_by(2) {
            let v = match op {
                Operand::LiteralBit32(v) => *v as u64,
                Operand::LiteralBit64(v) => *v,
                _ => continue,
            };
            if !seen.insert(v) {
                return Err(err(
                    "SPIR-V OpSwitch (case literals are unique)",
                    format!("the case literal {v} appears twice"),
                    Some(i),
                ));
            }
        }
    }
    match i.opcode {
        Op::Select => {
            if vt(1) != i.result_type || vt(2) != i.result_type {
                return mismatch("the selected objects must have the result type".into());
            }
        }
        Op::Load => {
            let pointee = vt(0).and_then(|t| match ctx.ty(t) {
                Some(Type::Pointer { pointee, .. }) => Some(*pointee),
                _ => None,
            });
            match pointee {
                None => return mismatch("Pointer operand is not a pointer".into()),
                Some(p) if Some(p) != i.result_type => {
                    return mismatch(format!(
                        "loads {} through a pointer to {}",
                        i.result_type.map(|t| ctx.type_text(t)).unwrap_or_default(),
                        ctx.type_text(p)
                    ))
                }
                _ => {}
            }
        }
        Op::Store => {
            let pointee = vt(0).and_then(|t| match ctx.ty(t) {
                Some(Type::Pointer { pointee, .. }) => Some(*pointee),
                _ => None,
            });
            match pointee {
                None => return mismatch("Pointer operand is not a pointer".into()),
                Some(p) if Some(p) != vt(1) => {
                    return mismatch(format!(
                        "stores {} through a pointer to {}",
                        vt(1).map(|t| ctx.type_text(t)).unwrap_or_default(),
                        ctx.type_text(p)
                    ))
                }
                _ => {}
            }
        }
        Op::ReturnValue => {
            if vt(0) != Some(fn_ret) {
                return mismatch("returned value does not have the function's return type".into());
            }
        }
        Op::Return => {
            if !matches!(ctx.ty(fn_ret), Some(Type::Void)) {
                return mismatch("OpReturn in a function that returns a value".into());
            }
        }
        Op::FunctionCall => {
            let callee = op_id(ops, 0).and_then(|c| ctx.m.function(c));
            match callee {
                None => return mismatch("Function operand is not an OpFunction".into()),
                Some(c) => {
                    if Some(c.result_type) != i.result_type {
                        return mismatch("result type differs from the callee's return type".into());
                    }
                    if c.params.len() != ops.len() - 1 {
                        return mismatch(format!(
                            "passes {} arguments to a function of {}",
                            ops.len() - 1,
                            c.params.len()
                        ));
                    }
                    for (k, (_, pty)) in c.params.iter().enumerate() {
                        if vt(k + 1) != Some(*pty) {
                            return mismatch(format!("argument {} does not have the parameter's type", k + 1));
                        }
                    }
                }
            }
        }
        Op::ImageWrite => {
            // SignExtend/ZeroExtend (SPIR-V 1.4) only describe the texel's
            // signedness; llvm-spirv emits them for write_imagei/ui, so they
            // are accepted (a documented difference from the letter of
            // section 4).
            let extra = ops.get(3).map(|o| match o {
                Operand::ImageOperands(m) => !(spirv::ImageOperands::SIGN_EXTEND
                    | spirv::ImageOperands::ZERO_EXTEND
                    | spirv::ImageOperands::NONTEMPORAL)
                    .contains(*m),
                _ => true,
            });
            if extra.unwrap_or(false) {
                return Err(err(
                    format!("{} section 4 (OpImageWrite has no Image Operands)", ENV),
                    "OpImageWrite must not include optional Image Operands",
                    Some(i),
                ));
            }
        }
        Op::ImageRead | Op::ImageSampleExplicitLod => {
            if ops
                .iter()
                .any(|o| matches!(o, Operand::ImageOperands(m) if m.contains(spirv::ImageOperands::CONST_OFFSET)))
            {
                return Err(err(
                    format!("{} section 4 (no ConstOffset image operand)", ENV),
                    format!("{} must not use the ConstOffset Image Operand", i.name()),
                    Some(i),
                ));
            }
        }
        Op::ControlBarrier => {
            if let Some(s) = op_id(ops, 0) {
                check_exec_scope(ctx, i, s, false)?;
            }
            if let Some(s) = op_id(ops, 1) {
                check_memory_scope(ctx, i, s, false)?;
            }
            if let Some(s) = op_id(ops, 2) {
                check_semantics(ctx, i, s, false)?;
            }
        }
        Op::MemoryBarrier => {
            if let Some(s) = op_id(ops, 0) {
                check_memory_scope(ctx, i, s, false)?;
            }
            if let Some(s) = op_id(ops, 1) {
                check_semantics(ctx, i, s, false)?;
            }
        }
        Op::GroupAsyncCopy | Op::GroupWaitEvents => {
            if let Some(s) = op_id(ops, 0) {
                check_exec_scope(ctx, i, s, true)?;
            }
        }
        op if is_atomic(op) => check_atomic(ctx, i)?,
        op => {
            let name = format!("{:?}", op);
            if (name.starts_with("Group") && !name.starts_with("GroupDecorate") && !name.starts_with("GroupMember"))
                || name.starts_with("GroupNonUniform")
                || name.starts_with("SubgroupAll")
            {
                if let Some(s) = op_id(ops, 0) {
                    if matches!(ops.first(), Some(Operand::IdScope(_))) {
                        check_exec_scope(ctx, i, s, true)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The atomics that only read, write or swap a value (no arithmetic on it).
fn moves_value_only(op: Op) -> bool {
    matches!(op, Op::AtomicLoad | Op::AtomicStore | Op::AtomicExchange)
}

/// The atomics of SPV_EXT_shader_atomic_float_add / _min_max: arithmetic on floats only.
fn is_float_atomic(op: Op) -> bool {
    matches!(op, Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT)
}

/// Section 4, atomic instructions.
fn check_atomic(ctx: &Ctx, i: &Instruction) -> R {
    let ops = &i.operands;
    let rule = format!("{} section 4 (atomic instructions)", ENV);
    let ptr_ty = op_id(ops, 0).and_then(|p| ctx.value_type(p));
    let (storage, pointee) = match ptr_ty.and_then(|t| ctx.ty(t)) {
        Some(Type::Pointer { storage, pointee }) => (*storage, *pointee),
        _ => return Err(err(rule, "the Pointer operand is not a pointer", Some(i))),
    };
    use spirv::StorageClass as S;
    let storage_ok = matches!(storage, S::Function | S::Workgroup | S::CrossWorkgroup)
        || (storage == S::Generic && ctx.caps.contains(&Cap::GenericPointer));
    if !storage_ok {
        return Err(err(
            rule,
            format!(
                "atomic Pointer points to storage class {:?}; it must be Function, Workgroup or CrossWorkgroup",
                storage
            ),
            Some(i),
        ));
    }
    // The value type: the result type, or the stored value for OpAtomicStore.
    let value_ty = if i.opcode == Op::AtomicStore {
        op_id(ops, 3).and_then(|v| ctx.value_type(v))
    } else if i.opcode == Op::AtomicFlagClear || i.opcode == Op::AtomicFlagTestAndSet {
        None
    } else {
        i.result_type
    };
    if let Some(t) = value_ty {
        let (width, what) = match ctx.ty(t) {
            Some(Type::Int { width, .. }) => (*width, "integer"),
            // Later revisions of the environment specification (and OpenCL C's atomic_xchg on
            // float, atomic_float and atomic_double) allow floating-point values in the atomics
            // that only move a value: OpAtomicLoad, OpAtomicStore and OpAtomicExchange.
            Some(Type::Float { width }) if moves_value_only(i.opcode) || is_float_atomic(i.opcode) => (*width, "float"),
            Some(Type::Float { width }) => {
                return Err(err(
                    rule,
                    format!(
                        "{} on a {}-bit float; only OpAtomicLoad, OpAtomicStore and OpAtomicExchange take floating-point values",
                        i.name(),
                        width
                    ),
                    Some(i),
                ))
            }
            _ => {
                return Err(err(
                    rule,
                    format!("{}: the atomic value is not an integer or a float", i.name()),
                    Some(i),
                ))
            }
        };
        // 64-bit integers need Int64Atomics; a 64-bit float already needs Float64, and
        // llvm-spirv (like spirv-val) asks for nothing more to move an atomic_double.
        let problem = match (width, what) {
            (32, _) | (64, "float") => None,
            (64, _) if ctx.caps.contains(&Cap::Int64Atomics) => None,
            (64, _) => Some("64-bit integers need the Int64Atomics capability"),
            (_, "float") => Some("only 32- and 64-bit floats are supported"),
            _ => Some("only 32- and 64-bit integers are supported"),
        };
        if let Some(problem) = problem {
            return Err(err(
                rule,
                format!("{} on a {}-bit {}; {}", i.name(), width, what, problem),
                Some(i),
            ));
        }
        if Some(t) != Some(pointee) {
            return Err(err(
                format!("SPIR-V {} (operand types)", i.name()),
                "the atomic's value type differs from the type the Pointer points to",
                Some(i),
            ));
        }
    }
    if let Some(s) = op_id(ops, 1) {
        check_memory_scope(ctx, i, s, true)?;
    }
    if let Some(s) = op_id(ops, 2) {
        check_semantics(ctx, i, s, true)?;
    }
    if matches!(i.opcode, Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak) {
        if let Some(s) = op_id(ops, 3) {
            check_semantics(ctx, i, s, true)?;
        }
    }
    Ok(())
}

/// Section 4: recursion is not supported; the static call graph from an
/// entry point must be acyclic.
fn check_recursion(ctx: &Ctx) -> R {
    let mut calls: HashMap<Id, Vec<(Id, &Instruction)>> = HashMap::new();
    for f in &ctx.m.functions {
        let v = calls.entry(f.id).or_default();
        for b in &f.blocks {
            for i in &b.instructions {
                if i.opcode == Op::FunctionCall {
                    if let Some(c) = op_id(&i.operands, 0) {
                        v.push((c, i));
                    }
                }
            }
        }
    }
    // Iterative DFS with colours: 1 = on stack, 2 = done.
    let mut colour: HashMap<Id, u8> = HashMap::new();
    let roots: Vec<Id> = ctx.m.functions.iter().map(|f| f.id).collect();
    for r in roots {
        if colour.contains_key(&r) {
            continue;
        }
        let mut stack: Vec<(Id, usize)> = vec![(r, 0)];
        colour.insert(r, 1);
        while let Some((node, idx)) = stack.pop() {
            let edges = calls.get(&node).map(|v| v.as_slice()).unwrap_or(&[]);
            if idx < edges.len() {
                stack.push((node, idx + 1));
                let (callee, inst) = edges[idx];
                match colour.get(&callee) {
                    Some(1) => {
                        let name = ctx.m.name_of(callee).map(|n| format!(" \"{}\"", n)).unwrap_or_default();
                        return Err(err(
                            format!("{} section 4 (recursion is not supported)", ENV),
                            format!("the call graph has a cycle through function %{}{}", callee, name),
                            Some(inst),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        colour.insert(callee, 1);
                        stack.push((callee, 0));
                    }
                }
            } else {
                colour.insert(node, 2);
            }
        }
    }
    Ok(())
}

const DOMINANCE: &str = "SPIR-V 2.16.1 (the definition of an id dominates its uses)";

/// SPIR-V 2.16.1: inside a function, every use of an id defined in that
/// function is dominated by its definition (an OpPhi operand by the end of
/// the corresponding parent block); uses in unreachable blocks are not
/// checked. Branch targets are blocks of the same function and OpPhi parents
/// are the block's predecessors. Dominance comes from the CFG, never from the
/// order blocks appear in (llvm-spirv writes loop exits before loop bodies).
fn check_dominance(ctx: &Ctx) -> R {
    // Function (index) that defines each function-local id.
    let mut owner: HashMap<Id, usize> = HashMap::new();
    for (fi, f) in ctx.m.functions.iter().enumerate() {
        for (p, _) in &f.params {
            owner.insert(*p, fi);
        }
        for b in &f.blocks {
            owner.insert(b.label, fi);
            for i in &b.instructions {
                if let Some(r) = i.result_id {
                    owner.insert(r, fi);
                }
            }
        }
    }
    let fname = |f: &super::module::Function| match ctx.m.name_of(f.id) {
        Some(n) => format!("%{} \"{}\"", f.id, n),
        None => format!("%{}", f.id),
    };
    for (fi, f) in ctx.m.functions.iter().enumerate() {
        if f.blocks.is_empty() {
            continue;
        }
        let cfg = match super::cfg::Cfg::new(f) {
            Ok(c) => c,
            Err(bt) => {
                return Err(err(
                    "SPIR-V 2.16.1 (branch targets are blocks of the same function)",
                    format!(
                        "branches to %{}, which is not a block of function {}",
                        bt.target,
                        fname(f)
                    ),
                    f.blocks[bt.block].instructions.last(),
                ))
            }
        };
        let labels: HashSet<Id> = cfg.labels.iter().copied().collect();
        // (block, position) of each id defined in a block of this function.
        let mut def_at: HashMap<Id, (usize, usize)> = HashMap::new();
        for (bi, b) in f.blocks.iter().enumerate() {
            for (k, i) in b.instructions.iter().enumerate() {
                if let Some(r) = i.result_id {
                    def_at.insert(r, (bi, k));
                }
            }
        }
        let not_dominated = |i: &Instruction, u: Id, def_block: usize, what: String| -> ValidationError {
            let d = ctx
                .defs
                .get(&u)
                .map(|d| d.describe())
                .unwrap_or_else(|| format!("%{}", u));
            err(
                DOMINANCE,
                format!(
                    "uses %{}, defined by {} in block %{}, which does not dominate {}",
                    u, d, cfg.labels[def_block], what
                ),
                Some(i),
            )
        };
        for (bi, b) in f.blocks.iter().enumerate() {
            let reachable = cfg.reachable(bi);
            let mut in_phis = true;
            for (k, i) in b.instructions.iter().enumerate() {
                // Ids of other functions are never visible here.
                for u in used_ids(ctx.m, i) {
                    if let Some(o) = owner.get(&u) {
                        if *o != fi {
                            return Err(err(
                                "SPIR-V 2.16.1 (an id defined in a function is used only in that function)",
                                format!(
                                    "uses %{}, which belongs to function {}, inside function {}",
                                    u,
                                    fname(&ctx.m.functions[*o]),
                                    fname(f)
                                ),
                                Some(i),
                            ));
                        }
                    }
                }
                if i.opcode == Op::Phi {
                    if !in_phis {
                        return Err(err(
                            "SPIR-V OpPhi (OpPhi instructions come first in their block)",
                            format!("OpPhi follows other instructions in block %{}", b.label),
                            Some(i),
                        ));
                    }
                    if i.operands.len() % 2 != 0 {
                        return Err(err(
                            "SPIR-V OpPhi (operands are (variable, parent) pairs)",
                            "OpPhi has an odd number of operands",
                            Some(i),
                        ));
                    }
                    if !reachable {
                        continue;
                    }
                    let pairs = i.operands.len() / 2;
                    if pairs != cfg.preds[bi].len() {
                        return Err(err(
                            "SPIR-V OpPhi (one (variable, parent) pair per predecessor)",
                            format!(
                                "OpPhi has {} incoming blocks but block %{} has {} predecessors",
                                pairs,
                                b.label,
                                cfg.preds[bi].len()
                            ),
                            Some(i),
                        ));
                    }
                    for pair in i.operands.chunks(2) {
                        let (v, parent) = match (pair.first(), pair.get(1)) {
                            (Some(Operand::IdRef(v)), Some(Operand::IdRef(p))) => (*v, *p),
                            _ => continue,
                        };
                        let pb = match cfg.index.get(&parent) {
                            Some(pb) if cfg.preds[bi].contains(pb) => *pb,
                            _ => {
                                return Err(err(
                                    "SPIR-V OpPhi (each parent is a predecessor of the block)",
                                    format!("parent %{} is not a predecessor of block %{}", parent, b.label),
                                    Some(i),
                                ))
                            }
                        };
                        if let Some((db, _)) = def_at.get(&v) {
                            if cfg.reachable(pb) && !cfg.dominates(*db, pb) {
                                return Err(not_dominated(
                                    i,
                                    v,
                                    *db,
                                    format!("the end of its parent block %{}", parent),
                                ));
                            }
                        }
                    }
                    continue;
                }
                if !matches!(i.opcode, Op::Line | Op::NoLine) {
                    in_phis = false;
                }
                if !reachable {
                    continue;
                }
                for u in i.result_type.into_iter().chain(used_ids(ctx.m, i)) {
                    if labels.contains(&u) {
                        continue;
                    }
                    let (db, dk) = match def_at.get(&u) {
                        Some(d) => *d,
                        None => continue,
                    };
                    let ok = if db == bi { dk < k } else { cfg.dominates(db, bi) };
                    if !ok {
                        let what = if db == bi {
                            format!("this use (it comes later in block %{})", b.label)
                        } else {
                            format!("block %{} where it is used", b.label)
                        };
                        return Err(not_dominated(i, u, db, what));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Numeric shape of a scalar or vector type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Int,
    Float,
    Bool,
}

#[derive(Clone, Copy)]
struct Shape {
    kind: Scalar,
    width: u32,
    count: u32,
    component: Id,
}

fn shape(ctx: &Ctx, ty: Id) -> Option<Shape> {
    let scalar = |t: Id| match ctx.ty(t) {
        Some(Type::Int { width, .. }) => Some((Scalar::Int, *width)),
        Some(Type::Float { width }) => Some((Scalar::Float, *width)),
        Some(Type::Bool) => Some((Scalar::Bool, 1)),
        _ => None,
    };
    match ctx.ty(ty) {
        Some(Type::Vector { component, count }) => scalar(*component).map(|(kind, width)| Shape {
            kind,
            width,
            count: *count,
            component: *component,
        }),
        _ => scalar(ty).map(|(kind, width)| Shape {
            kind,
            width,
            count: 1,
            component: ty,
        }),
    }
}

fn kind_text(k: Scalar) -> &'static str {
    match k {
        Scalar::Int => "integer",
        Scalar::Float => "float",
        Scalar::Bool => "boolean",
    }
}

fn shape_text(s: &Shape) -> String {
    let w = if s.kind == Scalar::Bool {
        String::new()
    } else {
        format!("{}-bit ", s.width)
    };
    if s.count == 1 {
        format!("a {}{} scalar", w, kind_text(s.kind))
    } else {
        format!("a {}-component {}{} vector", s.count, w, kind_text(s.kind))
    }
}

/// Value of an integer OpConstant (not a spec constant).
fn const_index(ctx: &Ctx, id: Id) -> Option<u64> {
    ctx.int_const(id)
}

/// Array length when it is a known constant.
fn array_length(ctx: &Ctx, length: Id) -> Option<u64> {
    match ctx.m.constant(length) {
        Some(c) if !c.spec => match c.value {
            super::module::ConstantValue::Scalar(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// Operand types of conversions, access chains, composites, shuffles,
/// OpSelect, OpPhi and conditional branches (SPIR-V 3.x instruction rules).
fn check_operand_types(ctx: &Ctx, i: &Instruction) -> R {
    let ops = &i.operands;
    let rule = format!("SPIR-V {} (operand types)", i.name());
    let fail = |what: String| -> R { Err(err(rule.clone(), what, Some(i))) };
    let vt = |k: usize| op_id(ops, k).and_then(|v| ctx.value_type(v));
    let tt = |t: Option<Id>| t.map(|t| ctx.type_text(t)).unwrap_or_else(|| "no type".into());
    let rt = i.result_type;
    let rshape = rt.and_then(|t| shape(ctx, t));
    let oshape = vt(0).and_then(|t| shape(ctx, t));
    use Scalar::*;
    let conv = |from: &[Scalar], to: &[Scalar], widths: Option<bool>| -> R {
        let (r, o) = match (rshape, oshape) {
            (Some(r), Some(o)) => (r, o),
            (None, _) => return fail(format!("Result Type {} is not a numerical scalar or vector", tt(rt))),
            (_, None) => {
                return fail(format!(
                    "the operand's type {} is not a numerical scalar or vector",
                    tt(vt(0))
                ))
            }
        };
        if !to.contains(&r.kind) {
            return fail(format!("Result Type is {}, not {}", shape_text(&r), kind_text(to[0])));
        }
        if !from.contains(&o.kind) {
            return fail(format!("the operand is {}, not {}", shape_text(&o), kind_text(from[0])));
        }
        if r.count != o.count {
            return fail(format!(
                "the operand has {} components but Result Type has {}",
                o.count, r.count
            ));
        }
        if widths == Some(false) && r.width == o.width {
            return fail(format!(
                "the operand and Result Type have the same component width ({} bits)",
                r.width
            ));
        }
        Ok(())
    };
    match i.opcode {
        Op::ConvertFToU | Op::ConvertFToS => conv(&[Float], &[Int], None)?,
        Op::ConvertSToF | Op::ConvertUToF => conv(&[Int], &[Float], None)?,
        Op::UConvert | Op::SConvert => conv(&[Int], &[Int], Some(false))?,
        Op::FConvert => conv(&[Float], &[Float], Some(false))?,
        Op::SatConvertSToU | Op::SatConvertUToS => conv(&[Int], &[Int], None)?,
        Op::ConvertPtrToU => {
            if !matches!(ctx.ty(vt(0).unwrap_or(0)), Some(Type::Pointer { .. })) {
                return fail(format!("the operand's type {} is not a pointer", tt(vt(0))));
            }
            if !matches!(
                rshape,
                Some(Shape {
                    kind: Int,
                    count: 1,
                    ..
                })
            ) {
                return fail(format!("Result Type {} is not an integer scalar", tt(rt)));
            }
        }
        Op::ConvertUToPtr => {
            if !matches!(ctx.ty(rt.unwrap_or(0)), Some(Type::Pointer { .. })) {
                return fail(format!("Result Type {} is not a pointer", tt(rt)));
            }
            if !matches!(
                oshape,
                Some(Shape {
                    kind: Int,
                    count: 1,
                    ..
                })
            ) {
                return fail(format!("the operand's type {} is not an integer scalar", tt(vt(0))));
            }
        }
        Op::PtrCastToGeneric | Op::GenericCastToPtr => {
            let (rp, op) = match (ctx.ty(rt.unwrap_or(0)), vt(0).and_then(|t| ctx.ty(t))) {
                (
                    Some(Type::Pointer {
                        storage: rs,
                        pointee: rp,
                    }),
                    Some(Type::Pointer {
                        storage: os,
                        pointee: op,
                    }),
                ) => ((*rs, *rp), (*os, *op)),
                _ => return fail("the operand and Result Type must both be pointers".into()),
            };
            let generic_side = if i.opcode == Op::PtrCastToGeneric { rp.0 } else { op.0 };
            if generic_side != spirv::StorageClass::Generic {
                return fail(format!(
                    "the {} must point to the Generic storage class, not {:?}",
                    if i.opcode == Op::PtrCastToGeneric {
                        "Result Type"
                    } else {
                        "operand"
                    },
                    generic_side
                ));
            }
            if rp.1 != op.1 {
                return fail("the operand and Result Type must point to the same type".into());
            }
        }
        Op::Bitcast => {
            let rty = rt.and_then(|t| ctx.ty(t));
            let oty = vt(0).and_then(|t| ctx.ty(t));
            let rptr = matches!(rty, Some(Type::Pointer { .. }));
            let optr = matches!(oty, Some(Type::Pointer { .. }));
            match (rptr, optr) {
                (true, true) => {}
                (true, false) | (false, true) => {
                    let other = if rptr { oshape } else { rshape };
                    if !matches!(other, Some(Shape { kind: Int, .. })) {
                        return fail(
                            "a pointer can be bitcast only to or from a pointer or an integer scalar or vector".into(),
                        );
                    }
                }
                (false, false) => {
                    let (r, o) = match (rshape, oshape) {
                        (Some(r), Some(o)) if r.kind != Bool && o.kind != Bool => (r, o),
                        _ => {
                            return fail(format!(
                                "OpBitcast needs numerical scalars, vectors or pointers, not {} from {}",
                                tt(rt),
                                tt(vt(0))
                            ))
                        }
                    };
                    if r.width * r.count != o.width * o.count {
                        return fail(format!(
                            "Result Type has {} bits but the operand has {} (the total widths must match)",
                            r.width * r.count,
                            o.width * o.count
                        ));
                    }
                }
            }
        }
        Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
            check_access_chain(ctx, i, &fail)?
        }
        Op::CompositeExtract | Op::CompositeInsert => {
            let (ck, first_lit) = if i.opcode == Op::CompositeExtract {
                (0, 1)
            } else {
                (1, 2)
            };
            let mut cur = match vt(ck) {
                Some(t) => t,
                None => return fail("the Composite operand has no type".into()),
            };
            if ops.len() <= first_lit {
                return fail("at least one index is required".into());
            }
            for (n, o) in ops.iter().enumerate().skip(first_lit) {
                let idx = match o {
                    Operand::LiteralBit32(v) => *v,
                    _ => return fail("indexes must be literal integers".into()),
                };
                cur = match step_into(ctx, cur, Some(idx as u64)) {
                    Ok(t) => t,
                    Err(why) => return fail(format!("index {} ({}): {}", n - first_lit, idx, why)),
                };
            }
            if i.opcode == Op::CompositeExtract {
                if rt != Some(cur) {
                    return fail(format!(
                        "Result Type {} differs from the extracted member's type {}",
                        tt(rt),
                        ctx.type_text(cur)
                    ));
                }
            } else {
                if vt(0) != Some(cur) {
                    return fail(format!(
                        "the Object's type {} differs from the type of the member it replaces, {}",
                        tt(vt(0)),
                        ctx.type_text(cur)
                    ));
                }
                if rt != vt(1) {
                    return fail("Result Type must be the Composite's type".into());
                }
            }
        }
        Op::CompositeConstruct => {
            let t = rt.unwrap_or(0);
            match ctx.ty(t) {
                Some(Type::Vector { component, count }) => {
                    let mut total = 0u32;
                    for k in 0..ops.len() {
                        match vt(k).and_then(|t| shape(ctx, t)) {
                            Some(s) if s.component == *component => total += s.count,
                            _ => {
                                return fail(format!(
                                    "constituent {} has type {}, not {} or a vector of it",
                                    k,
                                    tt(vt(k)),
                                    ctx.type_text(*component)
                                ))
                            }
                        }
                    }
                    if total != *count {
                        return fail(format!(
                            "the constituents have {} components but Result Type has {}",
                            total, count
                        ));
                    }
                }
                Some(Type::Array { element, length }) => {
                    if let Some(n) = array_length(ctx, *length) {
                        if n != ops.len() as u64 {
                            return fail(format!("{} constituents for an array of {}", ops.len(), n));
                        }
                    }
                    for k in 0..ops.len() {
                        if vt(k) != Some(*element) {
                            return fail(format!(
                                "constituent {} has type {}, not the array element type {}",
                                k,
                                tt(vt(k)),
                                ctx.type_text(*element)
                            ));
                        }
                    }
                }
                Some(Type::Struct { members }) => {
                    if members.len() != ops.len() {
                        return fail(format!(
                            "{} constituents for a struct of {} members",
                            ops.len(),
                            members.len()
                        ));
                    }
                    for (k, m) in members.iter().enumerate() {
                        if vt(k) != Some(*m) {
                            return fail(format!(
                                "constituent {} has type {}, not the member type {}",
                                k,
                                tt(vt(k)),
                                ctx.type_text(*m)
                            ));
                        }
                    }
                }
                _ => return fail(format!("Result Type {} is not a composite type", tt(rt))),
            }
        }
        Op::VectorShuffle => {
            let (r, a, b) = match (rshape, oshape, vt(1).and_then(|t| shape(ctx, t))) {
                (Some(r), Some(a), Some(b)) if r.count > 1 && a.count > 1 && b.count > 1 => (r, a, b),
                _ => return fail("Result Type and both Vector operands must be vectors".into()),
            };
            if a.component != r.component || b.component != r.component {
                return fail("the Vector operands' component type differs from Result Type's".into());
            }
            let comps: Vec<u32> = ops
                .iter()
                .skip(2)
                .filter_map(|o| match o {
                    Operand::LiteralBit32(v) => Some(*v),
                    _ => None,
                })
                .collect();
            if comps.len() as u32 != r.count {
                return fail(format!(
                    "{} Components selected for a {}-component Result Type",
                    comps.len(),
                    r.count
                ));
            }
            for (k, c) in comps.iter().enumerate() {
                if *c != 0xFFFF_FFFF && *c >= a.count + b.count {
                    return fail(format!(
                        "Component {} is {}, beyond the {} components of the two vectors (or 0xFFFFFFFF)",
                        k,
                        c,
                        a.count + b.count
                    ));
                }
            }
        }
        Op::VectorExtractDynamic | Op::VectorInsertDynamic => {
            let v = match vt(0).and_then(|t| shape(ctx, t)) {
                Some(v) if v.count > 1 => v,
                _ => return fail("the Vector operand is not a vector".into()),
            };
            let (comp_ty, idx_k) = if i.opcode == Op::VectorExtractDynamic {
                (rt, 1)
            } else {
                if rt != vt(0) {
                    return fail("Result Type must be the Vector's type".into());
                }
                (vt(1), 2)
            };
            if comp_ty != Some(v.component) {
                return fail(format!(
                    "the component type {} differs from the vector's component type {}",
                    tt(comp_ty),
                    ctx.type_text(v.component)
                ));
            }
            if !matches!(
                vt(idx_k).and_then(|t| shape(ctx, t)),
                Some(Shape {
                    kind: Int,
                    count: 1,
                    ..
                })
            ) {
                return fail("Index must be an integer scalar".into());
            }
        }
        Op::Select => {
            let cond = vt(0).and_then(|t| shape(ctx, t));
            match cond {
                Some(Shape { kind: Bool, count, .. }) => {
                    let n = rshape.map(|s| s.count).unwrap_or(1);
                    if count != 1 && count != n {
                        return fail(format!("Condition has {} components but the objects have {}", count, n));
                    }
                }
                _ => {
                    return fail(format!(
                        "Condition has type {}, not a boolean scalar or vector",
                        tt(vt(0))
                    ))
                }
            }
        }
        Op::Phi => {
            for (k, pair) in ops.chunks(2).enumerate() {
                if let Some(Operand::IdRef(v)) = pair.first() {
                    let t = ctx.value_type(*v);
                    if t != rt {
                        return fail(format!(
                            "incoming value {} (%{}) has type {}, not the Result Type {}",
                            k,
                            v,
                            tt(t),
                            tt(rt)
                        ));
                    }
                }
            }
        }
        Op::BranchConditional
            if !matches!(
                oshape,
                Some(Shape {
                    kind: Bool,
                    count: 1,
                    ..
                })
            ) =>
        {
            return fail(format!("Condition has type {}, not a boolean scalar", tt(vt(0))));
        }
        _ => {}
    }
    Ok(())
}

/// The type of member `idx` of composite type `ty` (`None`: a run-time
/// index, allowed for arrays and vectors only).
fn step_into(ctx: &Ctx, ty: Id, idx: Option<u64>) -> Result<Id, String> {
    match ctx.ty(ty) {
        Some(Type::Struct { members }) => {
            let n = idx.ok_or_else(|| "a struct index must be an integer OpConstant".to_string())?;
            members.get(n as usize).copied().ok_or_else(|| {
                format!(
                    "struct {} has {} members; index {} is out of range",
                    ctx.type_text(ty),
                    members.len(),
                    n
                )
            })
        }
        Some(Type::Array { element, length }) => {
            if let (Some(n), Some(len)) = (idx, array_length(ctx, *length)) {
                if n >= len {
                    return Err(format!("index {} is beyond the array's {} elements", n, len));
                }
            }
            Ok(*element)
        }
        Some(Type::RuntimeArray { element }) => Ok(*element),
        Some(Type::Vector { component, count }) => {
            if let Some(n) = idx {
                if n >= *count as u64 {
                    return Err(format!("index {} is beyond the vector's {} components", n, count));
                }
            }
            Ok(*component)
        }
        Some(Type::Matrix { column, count }) => {
            if let Some(n) = idx {
                if n >= *count as u64 {
                    return Err(format!("index {} is beyond the matrix's {} columns", n, count));
                }
            }
            Ok(*column)
        }
        _ => Err(format!("{} is not a composite type", ctx.type_text(ty))),
    }
}

fn check_access_chain(ctx: &Ctx, i: &Instruction, fail: &dyn Fn(String) -> R) -> R {
    let ops = &i.operands;
    let base_ty = op_id(ops, 0).and_then(|b| ctx.value_type(b));
    let (storage, mut cur) = match base_ty.and_then(|t| ctx.ty(t)) {
        Some(Type::Pointer { storage, pointee }) => (*storage, *pointee),
        _ => {
            return fail(format!(
                "Base has type {}, not a pointer",
                base_ty.map(|t| ctx.type_text(t)).unwrap_or_else(|| "no type".into())
            ))
        }
    };
    let (r_storage, r_pointee) = match i.result_type.and_then(|t| ctx.ty(t)) {
        Some(Type::Pointer { storage, pointee }) => (*storage, *pointee),
        _ => return fail("Result Type is not a pointer".into()),
    };
    if r_storage != storage {
        return fail(format!(
            "Result Type points to storage class {:?} but Base to {:?}",
            r_storage, storage
        ));
    }
    let ptr_chain = matches!(i.opcode, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
    for (k, o) in ops.iter().enumerate().skip(1) {
        let idx = match o {
            Operand::IdRef(v) => *v,
            _ => return fail("indexes must be ids".into()),
        };
        let it = ctx.value_type(idx);
        if !matches!(
            it.and_then(|t| shape(ctx, t)),
            Some(Shape {
                kind: Scalar::Int,
                count: 1,
                ..
            })
        ) {
            return fail(format!(
                "index {} (%{}) has type {}, not an integer scalar",
                k - 1,
                idx,
                it.map(|t| ctx.type_text(t)).unwrap_or_else(|| "no type".into())
            ));
        }
        if ptr_chain && k == 1 {
            continue; // Element: steps over the base pointer itself
        }
        let is_struct = matches!(ctx.ty(cur), Some(Type::Struct { .. }));
        let c = if is_struct { const_index(ctx, idx) } else { None };
        if is_struct && c.is_none() {
            return fail(format!(
                "index {} (%{}) selects a struct member and must be an integer OpConstant",
                k - 1,
                idx
            ));
        }
        cur = match step_into(ctx, cur, c) {
            Ok(t) => t,
            Err(why) => return fail(format!("index {} (%{}): {}", k - 1, idx, why)),
        };
    }
    if cur != r_pointee {
        return fail(format!(
            "Result Type points to {} but the chain reaches {}",
            ctx.type_text(r_pointee),
            ctx.type_text(cur)
        ));
    }
    Ok(())
}

/// Operand types of the instructions of SPV_KHR_bit_instructions, SPV_KHR_integer_dot_product,
/// SPV_KHR_shader_clock and SPV_EXT_shader_atomic_float_add / _min_max (the rules of their
/// specifications that the code generator relies on).
fn check_khr_ext(ctx: &Ctx, i: &Instruction) -> R {
    let ops = &i.operands;
    let fail = |what: String| -> R { Err(err(format!("SPIR-V {} (operand types)", i.name()), what, Some(i))) };
    let vt = |k: usize| op_id(ops, k).and_then(|v| ctx.value_type(v));
    let int_shape = |t: Option<Id>| t.and_then(|t| shape(ctx, t)).filter(|s| s.kind == Scalar::Int);
    let rt = i.result_type;
    match i.opcode {
        Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
            let n = if i.opcode == Op::BitFieldInsert { 2 } else { 1 };
            if int_shape(rt).is_none() {
                return fail("the result type must be an integer scalar or vector".into());
            }
            for k in 0..n {
                if vt(k) != rt {
                    return fail(format!("operand {} must have the result type", k + 1));
                }
            }
            for k in n..n + 2 {
                if int_shape(vt(k)).is_none_or(|s| s.count != 1) {
                    return fail(format!("operand {} (Offset or Count) must be an integer scalar", k + 1));
                }
            }
        }
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat => {
            let Some(r) = int_shape(rt).filter(|s| s.count == 1) else {
                return fail("the result type must be an integer scalar".into());
            };
            let packed = ops.iter().any(|o| matches!(o, Operand::PackedVectorFormat(_)));
            let (a, b) = (int_shape(vt(0)), int_shape(vt(1)));
            let (Some(a), Some(b)) = (a, b) else {
                return fail("the two vectors must be integer scalars or vectors".into());
            };
            if packed {
                if a.count != 1 || a.width != 32 || b.count != 1 || b.width != 32 {
                    return fail("packed 4x8-bit operands must be 32-bit integer scalars".into());
                }
            } else if a.count < 2 || a.count != b.count || a.width != b.width || r.width < a.width {
                return fail(
                    "the two vectors must have the same component count and width, no wider than the result".into(),
                );
            }
            let acc = matches!(i.opcode, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat);
            if acc && vt(2) != rt {
                return fail("the accumulator must have the result type".into());
            }
        }
        Op::ReadClockKHR => {
            let ok = int_shape(rt).is_some_and(|s| (s.count == 1 && s.width == 64) || (s.count == 2 && s.width == 32));
            if !ok {
                return fail("the result type must be a 64-bit integer or a vector of two 32-bit integers".into());
            }
        }
        Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
            let ok = rt
                .and_then(|t| ctx.ty(t))
                .is_some_and(|t| matches!(t, Type::Float { width: 32 | 64 }));
            if !ok {
                return fail("the result type must be a 32- or 64-bit float".into());
            }
            if vt(3) != rt {
                return fail("the value must have the result type".into());
            }
        }
        _ => {}
    }
    Ok(())
}
