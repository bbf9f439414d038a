//! Linking SPIR-V modules (clLinkProgram): the ids of each module are moved into one id
//! space, the logical sections are merged, identical non-aggregate types and extended
//! instruction imports are shared, and every function or variable imported by name
//! (LinkageAttributes ... Import) is replaced by the one exported under that name.
//!
//! A kernel is an ordinary exported function as well as an entry point (llvm-spirv makes the
//! entry point a wrapper that calls it), so a kernel that another module declares `extern
//! kernel` and calls resolves like any other function, and both stay entry points.
//!
//! C99 inline definitions (OpenCL C 6.1: `inline` follows C99): a plain `inline` function
//! provides no external definition, so clang gives it `available_externally` linkage, which
//! llvm-spirv writes as a function *with a body* decorated Import. Such a body is the
//! module's own inline definition: when some module exports the name, calls go to that
//! external definition (C99 6.7.4 lets either be used; they must be equivalent), and
//! otherwise the inline definition becomes a module-local function. Each module keeps its
//! own copy, so a header of inline functions included by several compiled programs links.

use super::binary::{Header, Instruction};
use super::module::Module;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, LinkageType, Op};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError(pub String);

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The logical layout of a module (SPIR-V 2.4), in order.
fn section(op: Op) -> usize {
    match op {
        Op::Capability => 0,
        Op::Extension => 1,
        Op::ExtInstImport => 2,
        Op::MemoryModel => 3,
        Op::EntryPoint => 4,
        Op::ExecutionMode | Op::ExecutionModeId => 5,
        Op::String
        | Op::SourceExtension
        | Op::Source
        | Op::SourceContinued
        | Op::Name
        | Op::MemberName
        | Op::ModuleProcessed => 6,
        Op::Decorate
        | Op::MemberDecorate
        | Op::DecorationGroup
        | Op::GroupDecorate
        | Op::GroupMemberDecorate
        | Op::DecorateId
        | Op::DecorateString
        | Op::MemberDecorateString => 7,
        _ => 8,
    }
}

/// Types that SPIR-V requires to be unique, so two modules' copies must become one.
fn shareable_type(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypeSampler
            | Op::TypeEvent
            | Op::TypeDeviceEvent
            | Op::TypeReserveId
            | Op::TypeQueue
            | Op::TypePointer
            | Op::TypeFunction
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeImage
            | Op::TypeSampledImage
    )
}

fn map_ids(inst: &mut Instruction, f: &impl Fn(u32) -> u32) {
    inst.result_type = inst.result_type.map(f);
    inst.result_id = inst.result_id.map(f);
    for op in &mut inst.operands {
        match op {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => *id = f(*id),
            _ => {}
        }
    }
}

fn linkage(inst: &Instruction) -> Option<(u32, String, LinkageType)> {
    if inst.opcode != Op::Decorate {
        return None;
    }
    match inst.operands.as_slice() {
        [Operand::IdRef(target), Operand::Decoration(Decoration::LinkageAttributes), Operand::LiteralString(name), Operand::LinkageType(ty)] => {
            Some((*target, name.clone(), *ty))
        }
        _ => None,
    }
}

/// The instructions of all modules in one id space, split into the logical sections
/// (0..=7) and the functions (8 holds the types, constants and global variables).
struct Merged {
    sections: [Vec<Instruction>; 9],
    functions: Vec<Instruction>,
    version: (u8, u8),
    generator: u32,
    bound: u32,
}

fn merge(modules: &[&Module]) -> Result<Merged, LinkError> {
    let mut sections: [Vec<Instruction>; 9] = Default::default();
    let mut functions: Vec<Instruction> = Vec::new();
    let mut capabilities = HashSet::new();
    let mut extensions = HashSet::new();
    let mut imports_by_name: HashMap<String, u32> = HashMap::new();
    let mut types: HashMap<(Op, Vec<Operand>), u32> = HashMap::new();
    let mut memory_model = false;
    let mut base = 0u32;
    let mut version = (1u8, 0u8);
    let mut generator = 0;
    for module in modules {
        let header = module
            .header
            .ok_or_else(|| LinkError("a module has no header".into()))?;
        version = version.max(header.version);
        generator = header.generator;
        // Ids that this module shares with an earlier one (types, ext-inst imports).
        let mut shared: HashMap<u32, u32> = HashMap::new();
        let mut in_function = false;
        for inst in &module.instructions {
            let mut inst = inst.clone();
            map_ids(&mut inst, &|id| shared.get(&(id + base)).copied().unwrap_or(id + base));
            if inst.opcode == Op::Function {
                in_function = true;
            }
            if in_function {
                if inst.opcode == Op::FunctionEnd {
                    in_function = false;
                }
                functions.push(inst);
                continue;
            }
            match inst.opcode {
                Op::Capability if !capabilities.insert(format!("{:?}", inst.operands)) => continue,
                Op::Extension if !extensions.insert(format!("{:?}", inst.operands)) => continue,
                Op::ExtInstImport => {
                    let name = format!("{:?}", inst.operands);
                    let id = inst.result_id.unwrap_or(0);
                    if let Some(&first) = imports_by_name.get(&name) {
                        shared.insert(id, first);
                        continue;
                    }
                    imports_by_name.insert(name, id);
                }
                // The first module's memory model stands for all.
                Op::MemoryModel if std::mem::replace(&mut memory_model, true) => continue,
                op if shareable_type(op) => {
                    let id = inst.result_id.unwrap_or(0);
                    let key = (op, inst.operands.clone());
                    if let Some(&first) = types.get(&key) {
                        shared.insert(id, first);
                        continue;
                    }
                    types.insert(key, id);
                }
                _ => {}
            }
            sections[section(inst.opcode)].push(inst);
        }
        base += header.bound;
    }
    Ok(Merged {
        sections,
        functions,
        version,
        generator,
        bound: base.max(1),
    })
}

/// A function of the merged stream: whether it has a body, and every id it defines (the
/// function, its parameters, labels and results).
struct FunctionIds {
    has_body: bool,
    defined: Vec<u32>,
}

fn function_ids(functions: &[Instruction]) -> HashMap<u32, FunctionIds> {
    let mut out = HashMap::new();
    let mut current: Option<(u32, FunctionIds)> = None;
    for inst in functions {
        if inst.opcode == Op::Function {
            let id = inst.result_id.unwrap_or(0);
            current = Some((
                id,
                FunctionIds {
                    has_body: false,
                    defined: Vec::new(),
                },
            ));
        }
        if let Some((_, f)) = current.as_mut() {
            f.has_body |= inst.opcode == Op::Label;
            f.defined.extend(inst.result_id);
        }
        if inst.opcode == Op::FunctionEnd {
            if let Some((id, f)) = current.take() {
                out.insert(id, f);
            }
        }
    }
    out
}

/// Ids that instructions use (names and decorations aside): what entry points, execution
/// modes, global declarations and function bodies refer to.
fn used_ids(merged: &Merged) -> HashSet<u32> {
    let sections = merged.sections[4..=5].iter().chain(&merged.sections[8..]);
    sections
        .flatten()
        .chain(&merged.functions)
        .flat_map(|inst| &inst.operands)
        .filter_map(|op| match op {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => Some(*id),
            _ => None,
        })
        .collect()
}

/// A symbol as the OpenCL C programmer wrote it: the linkage name, demangled when clang
/// mangled it (overloadable functions, `_Z<length><name>...`), and the OpName when that
/// differs.
fn describe(linkage_name: &str, op_name: Option<&str>) -> String {
    let demangled = linkage_name.strip_prefix("_Z").and_then(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest[..digits].parse().ok()?;
        rest.get(digits..digits + len)
    });
    let mut text = match demangled {
        Some(name) => format!("{name:?} (mangled {linkage_name:?})"),
        None => format!("{linkage_name:?}"),
    };
    if let Some(op_name) = op_name.filter(|n| *n != linkage_name && Some(*n) != demangled) {
        text.push_str(&format!(" (OpName {op_name:?})"));
    }
    text
}

/// What becomes of each imported id.
#[derive(Default)]
struct Resolution {
    /// Imports replaced by the export of the same name.
    resolved: HashMap<u32, u32>,
    /// Inline definitions kept as module-local functions: their Import decoration goes.
    localized: HashSet<u32>,
    /// Ids whose declarations, names and decorations go: resolved imports and everything
    /// defined inside a dropped function (its parameters above all).
    dropped: HashSet<u32>,
}

fn resolve(merged: &Merged, allow_unresolved: bool) -> Result<Resolution, LinkError> {
    let names: HashMap<u32, &str> = merged.sections[6]
        .iter()
        .filter(|inst| inst.opcode == Op::Name)
        .filter_map(|inst| match inst.operands.as_slice() {
            [Operand::IdRef(id), Operand::LiteralString(name)] => Some((*id, name.as_str())),
            _ => None,
        })
        .collect();
    let describe_id = |id: u32, name: &str| describe(name, names.get(&id).copied());
    // Two kernels of one name, even unexported (IL written by hand): clCreateKernel could
    // not tell them apart.
    let mut kernels = HashSet::new();
    for inst in &merged.sections[4] {
        if let (Some(Operand::IdRef(f)), Some(Operand::LiteralString(name))) =
            (inst.operands.get(1), inst.operands.get(2))
        {
            if !kernels.insert(name.clone()) {
                return Err(LinkError(format!(
                    "kernel {} is defined by more than one linked module",
                    describe_id(*f, name)
                )));
            }
        }
    }
    let mut exports: HashMap<String, u32> = HashMap::new();
    let mut imports: Vec<(u32, String)> = Vec::new();
    // SPV_KHR_linkonce_odr: every LinkOnceODR definition of a name is the same function, so
    // the first one (or an Export of that name) stands for all; the others resolve to it
    // like imports and their bodies go.
    let mut once_odr: HashMap<String, u32> = HashMap::new();
    for inst in &merged.sections[7] {
        match linkage(inst) {
            Some((target, name, LinkageType::Export)) => {
                if let Some(odr) = once_odr.remove(&name) {
                    imports.push((odr, name.clone()));
                } else if exports.contains_key(&name) {
                    return Err(LinkError(format!(
                        "symbol {} is defined by more than one linked module",
                        describe_id(target, &name)
                    )));
                }
                exports.insert(name, target);
            }
            Some((target, name, LinkageType::LinkOnceODR)) => match exports.entry(name) {
                std::collections::hash_map::Entry::Occupied(e) => imports.push((target, e.key().clone())),
                std::collections::hash_map::Entry::Vacant(e) => {
                    once_odr.insert(e.key().clone(), target);
                    e.insert(target);
                }
            },
            Some((target, name, LinkageType::Import)) => imports.push((target, name)),
            _ => {}
        }
    }
    // Work-item builtins are imported by llvm-spirv; the environment provides them.
    let builtins: HashSet<u32> = merged.sections[7]
        .iter()
        .filter_map(|inst| match inst.operands.as_slice() {
            [Operand::IdRef(target), Operand::Decoration(Decoration::BuiltIn), ..] if inst.opcode == Op::Decorate => {
                Some(*target)
            }
            _ => None,
        })
        .collect();
    let functions = function_ids(&merged.functions);
    let used = used_ids(merged);
    let mut r = Resolution::default();
    let mut undefined = Vec::new();
    for (id, name) in imports.iter().filter(|(id, _)| !builtins.contains(id)) {
        let function = functions.get(id);
        match exports.get(name) {
            Some(&export) => {
                r.resolved.insert(*id, export);
                r.dropped.insert(*id);
                r.dropped
                    .extend(function.iter().flat_map(|f| f.defined.iter().copied()));
            }
            // An inline definition with no external definition anywhere.
            None if function.is_some_and(|f| f.has_body) => {
                r.localized.insert(*id);
            }
            None if allow_unresolved => {}
            // Declared, but nothing calls or uses it (the call was optimized away): drop it.
            None if !used.contains(id) => {
                r.dropped.insert(*id);
                r.dropped
                    .extend(function.iter().flat_map(|f| f.defined.iter().copied()));
            }
            None => undefined.push(describe_id(*id, name)),
        }
    }
    if !undefined.is_empty() {
        undefined.sort();
        undefined.dedup();
        return Err(LinkError(format!(
            "undefined symbol{} {}: declared, but defined in none of the linked modules",
            if undefined.len() > 1 { "s" } else { "" },
            undefined.join(", ")
        )));
    }
    Ok(r)
}

/// Links `modules` into one. With `allow_unresolved` (a library), imports without an export
/// stay imports; otherwise they are an error naming the symbol.
pub fn link(modules: &[&Module], allow_unresolved: bool) -> Result<Module, LinkError> {
    let mut merged = merge(modules)?;
    define_clock_builtins(&mut merged);
    define_packed_dot_builtins(&mut merged);
    let r = resolve(&merged, allow_unresolved)?;
    let Merged {
        sections,
        functions,
        version,
        generator,
        bound,
    } = merged;
    let mut insts: Vec<Instruction> = Vec::new();
    for (i, section) in sections.into_iter().enumerate() {
        for mut inst in section {
            // Drop the resolved declarations' names, decorations and variables, and the
            // Import decoration of inline definitions that stay local.
            let target = match inst.operands.first() {
                Some(Operand::IdRef(t)) if i == 6 || i == 7 => Some(*t),
                _ => None,
            };
            let dropped = |id: Option<u32>| id.is_some_and(|id| r.dropped.contains(&id));
            let localized_linkage = linkage(&inst).is_some_and(|(t, _, _)| r.localized.contains(&t));
            if dropped(target) || (i == 8 && dropped(inst.result_id)) || localized_linkage {
                continue;
            }
            map_ids(&mut inst, &|id| r.resolved.get(&id).copied().unwrap_or(id));
            insts.push(inst);
        }
    }
    let mut skipping = false;
    for mut inst in functions {
        if inst.opcode == Op::Function && inst.result_id.is_some_and(|id| r.dropped.contains(&id)) {
            skipping = true;
        }
        if skipping {
            skipping = inst.opcode != Op::FunctionEnd;
            continue;
        }
        map_ids(&mut inst, &|id| r.resolved.get(&id).copied().unwrap_or(id));
        insts.push(inst);
    }
    // Offsets order instructions for the validator's define-before-use checks; the inputs'
    // own offsets overlap, so number the merged stream afresh (20 bytes: the header).
    let mut offset = 20;
    for inst in &mut insts {
        inst.offset = offset;
        let words =
            1 + inst.operands.len() + usize::from(inst.result_id.is_some()) + usize::from(inst.result_type.is_some());
        offset += 4 * words;
    }
    let header = Header {
        version,
        generator,
        bound,
        schema: 0,
    };
    Module::from_instructions(Some(header), insts).map_err(|e| LinkError(e.to_string()))
}

/// True when `module` imports a function (a declaration or an inline definition), so that
/// even alone it must go through `link` to be resolved or refused by name.
pub fn imports_functions(module: &Module) -> bool {
    module
        .decorations
        .iter()
        .any(|d| matches!(d.linkage(), Some((_, LinkageType::Import))) && module.function(d.target).is_some())
}

/// The scope (SPIR-V Scope number) of a cl_khr_kernel_clock built-in, by its linkage name:
/// `clock_read_device`, `clock_read_work_group`, `clock_read_sub_group` and their `hilo_`
/// forms, plain or mangled as overloadable functions without parameters (`_Z17clock_read_devicev`).
fn clock_builtin_scope(linkage_name: &str) -> Option<u32> {
    let name = match linkage_name.strip_prefix("_Z") {
        Some(rest) => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let len: usize = rest[..digits].parse().ok()?;
            let name = rest.get(digits..digits + len)?;
            (rest.get(digits + len..)? == "v").then_some(name)?
        }
        None => linkage_name,
    };
    let scope = name.strip_prefix("clock_read_")?;
    let scope = scope.strip_prefix("hilo_").unwrap_or(scope);
    match scope {
        "device" => Some(1),
        "work_group" => Some(2),
        "sub_group" => Some(3),
        _ => None,
    }
}

/// cl_khr_kernel_clock: the OpenCL C front end declares the clock built-ins, and llvm-spirv
/// leaves their calls as calls of imported functions. Each such import without a body gets
/// one here: OpReadClockKHR of its scope (SPV_KHR_shader_clock), returning the ulong or
/// uint2 the declaration returns.
fn define_clock_builtins(merged: &mut Merged) {
    let clocks: HashMap<u32, u32> = merged.sections[7]
        .iter()
        .filter_map(|inst| match linkage(inst) {
            Some((target, name, LinkageType::Import)) => clock_builtin_scope(&name).map(|s| (target, s)),
            _ => None,
        })
        .collect();
    let declared: HashSet<u32> = function_ids(&merged.functions)
        .into_iter()
        .filter(|(id, f)| clocks.contains_key(id) && !f.has_body)
        .map(|(id, _)| id)
        .collect();
    if declared.is_empty() {
        return;
    }
    let inst = |opcode: Op, result_type: Option<u32>, result_id: Option<u32>, operands: Vec<Operand>| Instruction {
        opcode,
        result_type,
        result_id,
        operands,
        offset: 0,
    };
    let mut next = merged.bound;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    // The 32-bit integer type of the scope constants, and one constant per scope.
    let uint = merged.sections[8]
        .iter()
        .find(|i| i.opcode == Op::TypeInt && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)])
        .and_then(|i| i.result_id);
    let uint = match uint {
        Some(t) => t,
        None => {
            let t = fresh();
            let ty = inst(
                Op::TypeInt,
                None,
                Some(t),
                vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
            );
            // Types come before the constants and variables that may use them.
            merged.sections[8].insert(0, ty);
            t
        }
    };
    let mut scope_consts: HashMap<u32, u32> = HashMap::new();
    let mut out = Vec::with_capacity(merged.functions.len());
    let mut skipping = false;
    for f in std::mem::take(&mut merged.functions) {
        if skipping {
            skipping = f.opcode != Op::FunctionEnd;
            if !skipping {
                out.push(f);
            }
            continue;
        }
        let id = f
            .result_id
            .filter(|id| f.opcode == Op::Function && declared.contains(id));
        let (Some(id), Some(ret)) = (id, f.result_type) else {
            out.push(f);
            continue;
        };
        let scope = clocks[&id];
        let c = *scope_consts.entry(scope).or_insert_with(|| {
            let c = fresh();
            merged.sections[8].push(inst(
                Op::Constant,
                Some(uint),
                Some(c),
                vec![Operand::LiteralBit32(scope)],
            ));
            c
        });
        let (label, value) = (fresh(), fresh());
        out.push(f);
        out.push(inst(Op::Label, None, Some(label), vec![]));
        out.push(inst(
            Op::ReadClockKHR,
            Some(ret),
            Some(value),
            vec![Operand::IdScope(c)],
        ));
        out.push(inst(Op::ReturnValue, None, None, vec![Operand::IdRef(value)]));
        skipping = true;
    }
    merged.functions = out;
    merged.bound = next;
    // The definitions are the module's own now.
    merged.sections[7].retain(|i| !linkage(i).is_some_and(|(t, _, _)| declared.contains(&t)));
    let cap = Operand::Capability(rspirv::spirv::Capability::ShaderClockKHR);
    if !merged.sections[0].iter().any(|i| i.operands.first() == Some(&cap)) {
        merged.sections[0].push(inst(Op::Capability, None, None, vec![cap]));
    }
    let ext = Operand::LiteralString("SPV_KHR_shader_clock".into());
    if !merged.sections[1].iter().any(|i| i.operands.first() == Some(&ext)) {
        merged.sections[1].push(inst(Op::Extension, None, None, vec![ext]));
    }
}

/// A cl_khr_integer_dot_product built-in on 4x8-bit packed operands, by its linkage name
/// (`_Z21dot_4x8packed_uu_uintjj`, `_Z28dot_acc_sat_4x8packed_su_intjji`, ...): the opcode
/// and whether the operands are swapped (`us`: unsigned first, signed second, is OpSUDot with
/// the operands exchanged).
fn packed_dot_builtin(linkage_name: &str) -> Option<(Op, bool)> {
    let rest = linkage_name.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let name = rest.get(digits..digits + len)?;
    let params = rest.get(digits + len..)?;
    let (acc, kind) = match name.strip_prefix("dot_acc_sat_4x8packed_") {
        Some(k) => (true, k),
        None => (false, name.strip_prefix("dot_4x8packed_")?),
    };
    let (op, swap, want) = match (kind, acc) {
        ("uu_uint", false) => (Op::UDot, false, "jj"),
        ("ss_int", false) => (Op::SDot, false, "jj"),
        ("su_int", false) => (Op::SUDot, false, "jj"),
        ("us_int", false) => (Op::SUDot, true, "jj"),
        ("uu_uint", true) => (Op::UDotAccSat, false, "jjj"),
        ("ss_int", true) => (Op::SDotAccSat, false, "jji"),
        ("su_int", true) => (Op::SUDotAccSat, false, "jji"),
        ("us_int", true) => (Op::SUDotAccSat, true, "jji"),
        _ => return None,
    };
    (params == want).then_some((op, swap))
}

/// cl_khr_integer_dot_product: llvm-spirv 15 translates `dot` and `dot_acc_sat` on vectors
/// to OpUDot/OpSDot/OpSUDot (and their AccSat forms) but leaves the `_4x8packed_` built-ins
/// as calls of imported functions. Each such import without a body gets one here: the dot
/// product of its operands with PackedVectorFormat4x8Bit.
fn define_packed_dot_builtins(merged: &mut Merged) {
    let dots: HashMap<u32, (Op, bool)> = merged.sections[7]
        .iter()
        .filter_map(|inst| match linkage(inst) {
            Some((target, name, LinkageType::Import)) => packed_dot_builtin(&name).map(|d| (target, d)),
            _ => None,
        })
        .collect();
    let declared: HashSet<u32> = function_ids(&merged.functions)
        .into_iter()
        .filter(|(id, f)| dots.contains_key(id) && !f.has_body)
        .map(|(id, _)| id)
        .collect();
    if declared.is_empty() {
        return;
    }
    let inst = |opcode: Op, result_type: Option<u32>, result_id: Option<u32>, operands: Vec<Operand>| Instruction {
        opcode,
        result_type,
        result_id,
        operands,
        offset: 0,
    };
    let mut next = merged.bound;
    let mut out = Vec::with_capacity(merged.functions.len());
    // The declaration being defined: its id, result type and parameters so far.
    let mut current: Option<(u32, u32, Vec<u32>)> = None;
    for f in std::mem::take(&mut merged.functions) {
        if let Some((id, ret, params)) = current.as_mut() {
            match f.opcode {
                Op::FunctionParameter => {
                    params.extend(f.result_id);
                    out.push(f);
                }
                Op::FunctionEnd => {
                    let (op, swap) = dots[id];
                    let mut args: Vec<Operand> = params.iter().map(|p| Operand::IdRef(*p)).collect();
                    if swap && args.len() >= 2 {
                        args.swap(0, 1);
                    }
                    args.push(Operand::PackedVectorFormat(
                        rspirv::spirv::PackedVectorFormat::PackedVectorFormat4x8Bit,
                    ));
                    let (label, value) = (next, next + 1);
                    next += 2;
                    out.push(inst(Op::Label, None, Some(label), vec![]));
                    out.push(inst(op, Some(*ret), Some(value), args));
                    out.push(inst(Op::ReturnValue, None, None, vec![Operand::IdRef(value)]));
                    out.push(f);
                    current = None;
                }
                _ => out.push(f),
            }
            continue;
        }
        if f.opcode == Op::Function {
            if let (Some(id), Some(ret)) = (f.result_id, f.result_type) {
                if declared.contains(&id) {
                    current = Some((id, ret, Vec::new()));
                }
            }
        }
        out.push(f);
    }
    merged.functions = out;
    merged.bound = next;
    // The definitions are the module's own now.
    merged.sections[7].retain(|i| !linkage(i).is_some_and(|(t, _, _)| declared.contains(&t)));
    for cap in [
        rspirv::spirv::Capability::DotProduct,
        rspirv::spirv::Capability::DotProductInput4x8BitPacked,
    ] {
        let cap = Operand::Capability(cap);
        if !merged.sections[0].iter().any(|i| i.operands.first() == Some(&cap)) {
            merged.sections[0].push(inst(Op::Capability, None, None, vec![cap]));
        }
    }
    let ext = Operand::LiteralString("SPV_KHR_integer_dot_product".into());
    if !merged.sections[1].iter().any(|i| i.operands.first() == Some(&ext)) {
        merged.sections[1].push(inst(Op::Extension, None, None, vec![ext]));
    }
}

#[cfg(test)]
mod packed_dot_tests {
    use super::*;

    #[test]
    fn packed_dot_names() {
        assert_eq!(
            packed_dot_builtin("_Z21dot_4x8packed_uu_uintjj"),
            Some((Op::UDot, false))
        );
        assert_eq!(
            packed_dot_builtin("_Z20dot_4x8packed_us_intjj"),
            Some((Op::SUDot, true))
        );
        assert_eq!(
            packed_dot_builtin("_Z28dot_acc_sat_4x8packed_ss_intjji"),
            Some((Op::SDotAccSat, false))
        );
        assert_eq!(
            packed_dot_builtin("_Z29dot_acc_sat_4x8packed_uu_uintjjj"),
            Some((Op::UDotAccSat, false))
        );
        // Wrong parameter lists and other names are not built-ins.
        assert_eq!(packed_dot_builtin("_Z21dot_4x8packed_uu_uintjjj"), None);
        assert_eq!(packed_dot_builtin("_Z3dotDv4_hS_"), None);
        assert_eq!(packed_dot_builtin("dot_4x8packed_uu_uint"), None);
    }
}
