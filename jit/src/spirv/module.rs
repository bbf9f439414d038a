//! Clift's owned representation of a SPIR-V module, split into the logical
//! layout sections of SPIR-V spec 2.4.

use super::binary::{self, Header, Instruction, ParseError};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op};
use std::collections::HashMap;

pub type Id = u32;

#[derive(Debug, Clone, PartialEq)]
pub struct EntryPoint {
    pub model: spirv::ExecutionModel,
    pub function: Id,
    pub name: String,
    pub interface: Vec<Id>,
    pub offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionModeDecl {
    pub entry: Id,
    pub mode: spirv::ExecutionMode,
    pub operands: Vec<Operand>,
    /// True for OpExecutionModeId.
    pub id_operands: bool,
    pub offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DecorationDecl {
    pub target: Id,
    /// Member index for OpMemberDecorate.
    pub member: Option<u32>,
    pub decoration: spirv::Decoration,
    /// Extra operands (e.g. the name and linkage type of LinkageAttributes).
    pub operands: Vec<Operand>,
    pub offset: usize,
}

impl DecorationDecl {
    /// `(name, Export/Import)` when this is LinkageAttributes.
    pub fn linkage(&self) -> Option<(&str, spirv::LinkageType)> {
        match (self.decoration, self.operands.as_slice()) {
            (spirv::Decoration::LinkageAttributes, [Operand::LiteralString(n), Operand::LinkageType(t)]) => {
                Some((n.as_str(), *t))
            }
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Void,
    Bool,
    Int {
        width: u32,
        signedness: u32,
    },
    Float {
        width: u32,
    },
    Vector {
        component: Id,
        count: u32,
    },
    Matrix {
        column: Id,
        count: u32,
    },
    Array {
        element: Id,
        length: Id,
    },
    RuntimeArray {
        element: Id,
    },
    Struct {
        members: Vec<Id>,
    },
    Pointer {
        storage: spirv::StorageClass,
        pointee: Id,
    },
    Function {
        ret: Id,
        params: Vec<Id>,
    },
    Image {
        sampled_type: Id,
        dim: spirv::Dim,
        depth: u32,
        arrayed: u32,
        ms: u32,
        sampled: u32,
        format: spirv::ImageFormat,
        access: Option<spirv::AccessQualifier>,
    },
    Sampler,
    SampledImage {
        image: Id,
    },
    Opaque {
        name: String,
    },
    Event,
    DeviceEvent,
    ReserveId,
    Queue,
    Pipe {
        access: spirv::AccessQualifier,
    },
    /// Any other type instruction, kept whole.
    Other(Instruction),
}

#[derive(Debug, Clone, PartialEq)]
pub struct TypeDecl {
    pub id: Id,
    pub ty: Type,
    pub offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConstantValue {
    Bool(bool),
    /// Bit pattern of an integer or float scalar (low bits used for < 64).
    Scalar(u64),
    Composite(Vec<Id>),
    Null,
    Sampler {
        addressing: spirv::SamplerAddressingMode,
        normalized: bool,
        filter: spirv::SamplerFilterMode,
    },
    /// OpSpecConstantOp: the opcode and its operands.
    SpecOp {
        opcode: Op,
        operands: Vec<Operand>,
    },
    Undef,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConstantDecl {
    pub id: Id,
    pub ty: Id,
    pub value: ConstantValue,
    /// Specialization constant (OpSpecConstant*).
    pub spec: bool,
    pub offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GlobalVariable {
    pub id: Id,
    /// Pointer type of the variable.
    pub ty: Id,
    pub storage: spirv::StorageClass,
    pub initializer: Option<Id>,
    pub offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub label: Id,
    pub offset: usize,
    /// The block's instructions, including OpPhi and the terminator.
    pub instructions: Vec<Instruction>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub id: Id,
    pub result_type: Id,
    pub control: spirv::FunctionControl,
    pub fn_type: Id,
    /// (result id, type id) of each OpFunctionParameter.
    pub params: Vec<(Id, Id)>,
    pub blocks: Vec<Block>,
    pub offset: usize,
}

impl Function {
    /// A function without blocks is a declaration (an import).
    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// A parsed SPIR-V module. Every section keeps its instructions in binary
/// order; `instructions` keeps the whole stream for checks that need it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    pub header: Option<Header>,
    pub capabilities: Vec<spirv::Capability>,
    pub extensions: Vec<String>,
    pub ext_inst_imports: Vec<(Id, String)>,
    pub memory_model: Option<(spirv::AddressingModel, spirv::MemoryModel)>,
    pub entry_points: Vec<EntryPoint>,
    pub execution_modes: Vec<ExecutionModeDecl>,
    pub names: Vec<(Id, String)>,
    pub member_names: Vec<(Id, u32, String)>,
    pub strings: Vec<(Id, String)>,
    pub decorations: Vec<DecorationDecl>,
    pub types: Vec<TypeDecl>,
    pub constants: Vec<ConstantDecl>,
    pub variables: Vec<GlobalVariable>,
    pub functions: Vec<Function>,
    pub instructions: Vec<Instruction>,
    type_index: HashMap<Id, usize>,
    const_index: HashMap<Id, usize>,
}

fn lit(ops: &[Operand], i: usize) -> Option<u32> {
    match ops.get(i) {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

fn id(ops: &[Operand], i: usize) -> Option<Id> {
    match ops.get(i) {
        Some(Operand::IdRef(v)) | Some(Operand::IdScope(v)) | Some(Operand::IdMemorySemantics(v)) => Some(*v),
        _ => None,
    }
}

fn string(ops: &[Operand], i: usize) -> Option<String> {
    match ops.get(i) {
        Some(Operand::LiteralString(s)) => Some(s.clone()),
        _ => None,
    }
}

fn bad(inst: &Instruction, what: &str) -> ParseError {
    ParseError::new(format!("{}: {}", inst.describe(), what), Some(inst.offset))
}

impl Module {
    pub fn type_of(&self, id: Id) -> Option<&Type> {
        self.type_index.get(&id).map(|i| &self.types[*i].ty)
    }

    pub fn constant(&self, id: Id) -> Option<&ConstantDecl> {
        self.const_index.get(&id).map(|i| &self.constants[*i])
    }

    pub fn name_of(&self, id: Id) -> Option<&str> {
        self.names.iter().find(|(i, _)| *i == id).map(|(_, n)| n.as_str())
    }

    pub fn function(&self, id: Id) -> Option<&Function> {
        self.functions.iter().find(|f| f.id == id)
    }

    /// Decorations applied to `id` (not member decorations).
    pub fn decorations_of(&self, id: Id) -> impl Iterator<Item = &DecorationDecl> {
        self.decorations
            .iter()
            .filter(move |d| d.target == id && d.member.is_none())
    }

    /// Builds the module from decoded instructions.
    pub fn from_instructions(header: Option<Header>, insts: Vec<Instruction>) -> Result<Module, ParseError> {
        let mut m = Module {
            header,
            ..Module::default()
        };
        let mut cur_fn: Option<Function> = None;
        let mut cur_block: Option<Block> = None;
        for inst in &insts {
            let ops = &inst.operands;
            let rid = inst.result_id.unwrap_or(0);
            // Inside a function everything goes to the function/blocks.
            if let Some(f) = cur_fn.as_mut() {
                match inst.opcode {
                    Op::FunctionParameter => {
                        if !f.blocks.is_empty() || cur_block.is_some() {
                            return Err(bad(inst, "OpFunctionParameter after the first block"));
                        }
                        f.params.push((rid, inst.result_type.unwrap_or(0)));
                    }
                    Op::Label => {
                        if let Some(b) = cur_block.take() {
                            f.blocks.push(b);
                        }
                        cur_block = Some(Block {
                            label: rid,
                            offset: inst.offset,
                            instructions: vec![],
                        });
                    }
                    Op::FunctionEnd => {
                        if let Some(b) = cur_block.take() {
                            f.blocks.push(b);
                        }
                        if let Some(f) = cur_fn.take() {
                            m.functions.push(f);
                        }
                    }
                    Op::Function => return Err(bad(inst, "OpFunction inside a function (missing OpFunctionEnd)")),
                    _ => match cur_block.as_mut() {
                        Some(b) => b.instructions.push(inst.clone()),
                        None => {
                            if matches!(inst.opcode, Op::Line | Op::NoLine) {
                                continue;
                            }
                            return Err(bad(inst, "instruction in a function before its first OpLabel"));
                        }
                    },
                }
                continue;
            }
            match inst.opcode {
                Op::Capability => {
                    if let Some(Operand::Capability(c)) = ops.first() {
                        m.capabilities.push(*c);
                    }
                }
                Op::Extension => m.extensions.push(string(ops, 0).unwrap_or_default()),
                Op::ExtInstImport => m.ext_inst_imports.push((rid, string(ops, 0).unwrap_or_default())),
                Op::MemoryModel => {
                    if let (Some(Operand::AddressingModel(a)), Some(Operand::MemoryModel(mm))) =
                        (ops.first(), ops.get(1))
                    {
                        m.memory_model = Some((*a, *mm));
                    }
                }
                Op::EntryPoint => {
                    if let Some(Operand::ExecutionModel(model)) = ops.first() {
                        m.entry_points.push(EntryPoint {
                            model: *model,
                            function: id(ops, 1).unwrap_or(0),
                            name: string(ops, 2).unwrap_or_default(),
                            interface: (3..ops.len()).filter_map(|i| id(ops, i)).collect(),
                            offset: inst.offset,
                        });
                    }
                }
                Op::ExecutionMode | Op::ExecutionModeId => {
                    if let Some(Operand::ExecutionMode(mode)) = ops.get(1) {
                        m.execution_modes.push(ExecutionModeDecl {
                            entry: id(ops, 0).unwrap_or(0),
                            mode: *mode,
                            operands: ops[2..].to_vec(),
                            id_operands: inst.opcode == Op::ExecutionModeId,
                            offset: inst.offset,
                        });
                    }
                }
                Op::Name => m
                    .names
                    .push((id(ops, 0).unwrap_or(0), string(ops, 1).unwrap_or_default())),
                Op::MemberName => m.member_names.push((
                    id(ops, 0).unwrap_or(0),
                    lit(ops, 1).unwrap_or(0),
                    string(ops, 2).unwrap_or_default(),
                )),
                Op::String => m.strings.push((rid, string(ops, 0).unwrap_or_default())),
                Op::Decorate | Op::DecorateId | Op::DecorateString => {
                    if let Some(Operand::Decoration(d)) = ops.get(1) {
                        m.decorations.push(DecorationDecl {
                            target: id(ops, 0).unwrap_or(0),
                            member: None,
                            decoration: *d,
                            operands: ops[2..].to_vec(),
                            offset: inst.offset,
                        });
                    }
                }
                Op::MemberDecorate | Op::MemberDecorateString => {
                    if let Some(Operand::Decoration(d)) = ops.get(2) {
                        m.decorations.push(DecorationDecl {
                            target: id(ops, 0).unwrap_or(0),
                            member: lit(ops, 1),
                            decoration: *d,
                            operands: ops[3..].to_vec(),
                            offset: inst.offset,
                        });
                    }
                }
                Op::GroupDecorate => {
                    // Copy the group's decorations to each target.
                    let group = id(ops, 0).unwrap_or(0);
                    let decs: Vec<DecorationDecl> =
                        m.decorations.iter().filter(|d| d.target == group).cloned().collect();
                    for t in (1..ops.len()).filter_map(|i| id(ops, i)) {
                        for d in &decs {
                            m.decorations.push(DecorationDecl { target: t, ..d.clone() });
                        }
                    }
                }
                Op::Function => {
                    let control = match ops.first() {
                        Some(Operand::FunctionControl(c)) => *c,
                        _ => spirv::FunctionControl::NONE,
                    };
                    cur_fn = Some(Function {
                        id: rid,
                        result_type: inst.result_type.unwrap_or(0),
                        control,
                        fn_type: id(ops, 1).unwrap_or(0),
                        params: vec![],
                        blocks: vec![],
                        offset: inst.offset,
                    });
                }
                Op::FunctionEnd | Op::FunctionParameter | Op::Label => {
                    return Err(bad(inst, "outside of a function"));
                }
                Op::Variable => m.variables.push(GlobalVariable {
                    id: rid,
                    ty: inst.result_type.unwrap_or(0),
                    storage: match ops.first() {
                        Some(Operand::StorageClass(s)) => *s,
                        _ => spirv::StorageClass::Function,
                    },
                    initializer: id(ops, 1),
                    offset: inst.offset,
                }),
                op if is_type(op) => {
                    let ty = make_type(inst);
                    m.type_index.insert(rid, m.types.len());
                    m.types.push(TypeDecl {
                        id: rid,
                        ty,
                        offset: inst.offset,
                    });
                }
                op if is_constant(op) => {
                    let value = match op {
                        Op::ConstantTrue | Op::SpecConstantTrue => ConstantValue::Bool(true),
                        Op::ConstantFalse | Op::SpecConstantFalse => ConstantValue::Bool(false),
                        Op::Constant | Op::SpecConstant => match ops.first() {
                            Some(Operand::LiteralBit32(v)) => ConstantValue::Scalar(*v as u64),
                            Some(Operand::LiteralBit64(v)) => ConstantValue::Scalar(*v),
                            _ => ConstantValue::Scalar(0),
                        },
                        Op::ConstantComposite | Op::SpecConstantComposite => {
                            ConstantValue::Composite((0..ops.len()).filter_map(|i| id(ops, i)).collect())
                        }
                        Op::ConstantNull => ConstantValue::Null,
                        Op::ConstantSampler => match (ops.first(), ops.get(1), ops.get(2)) {
                            (
                                Some(Operand::SamplerAddressingMode(a)),
                                Some(Operand::LiteralBit32(n)),
                                Some(Operand::SamplerFilterMode(f)),
                            ) => ConstantValue::Sampler {
                                addressing: *a,
                                normalized: *n != 0,
                                filter: *f,
                            },
                            _ => return Err(bad(inst, "malformed OpConstantSampler")),
                        },
                        Op::SpecConstantOp => match ops.first() {
                            Some(Operand::LiteralSpecConstantOpInteger(o)) => ConstantValue::SpecOp {
                                opcode: *o,
                                operands: ops[1..].to_vec(),
                            },
                            _ => return Err(bad(inst, "malformed OpSpecConstantOp")),
                        },
                        _ => ConstantValue::Undef,
                    };
                    m.const_index.insert(rid, m.constants.len());
                    m.constants.push(ConstantDecl {
                        id: rid,
                        ty: inst.result_type.unwrap_or(0),
                        value,
                        spec: matches!(
                            op,
                            Op::SpecConstant
                                | Op::SpecConstantTrue
                                | Op::SpecConstantFalse
                                | Op::SpecConstantComposite
                                | Op::SpecConstantOp
                        ),
                        offset: inst.offset,
                    });
                }
                _ => {}
            }
        }
        if cur_fn.is_some() {
            return Err(ParseError::new("function without OpFunctionEnd at end of module", None));
        }
        m.instructions = insts;
        Ok(m)
    }
}

pub(crate) fn is_type(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        TypeVoid
            | TypeBool
            | TypeInt
            | TypeFloat
            | TypeVector
            | TypeMatrix
            | TypeImage
            | TypeSampler
            | TypeSampledImage
            | TypeArray
            | TypeRuntimeArray
            | TypeStruct
            | TypeOpaque
            | TypePointer
            | TypeFunction
            | TypeEvent
            | TypeDeviceEvent
            | TypeReserveId
            | TypeQueue
            | TypePipe
            | TypeForwardPointer
            | TypePipeStorage
            | TypeNamedBarrier
    ) || op.is_type()
}

pub(crate) fn is_constant(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        ConstantTrue
            | ConstantFalse
            | Constant
            | ConstantComposite
            | ConstantSampler
            | ConstantNull
            | SpecConstantTrue
            | SpecConstantFalse
            | SpecConstant
            | SpecConstantComposite
            | SpecConstantOp
            | Undef
    )
}

fn make_type(inst: &Instruction) -> Type {
    let ops = &inst.operands;
    let l = |i| lit(ops, i).unwrap_or(0);
    let d = |i| id(ops, i).unwrap_or(0);
    match inst.opcode {
        Op::TypeVoid => Type::Void,
        Op::TypeBool => Type::Bool,
        Op::TypeInt => Type::Int {
            width: l(0),
            signedness: l(1),
        },
        Op::TypeFloat => Type::Float { width: l(0) },
        Op::TypeVector => Type::Vector {
            component: d(0),
            count: l(1),
        },
        Op::TypeMatrix => Type::Matrix {
            column: d(0),
            count: l(1),
        },
        Op::TypeArray => Type::Array {
            element: d(0),
            length: d(1),
        },
        Op::TypeRuntimeArray => Type::RuntimeArray { element: d(0) },
        Op::TypeStruct => Type::Struct {
            members: (0..ops.len()).filter_map(|i| id(ops, i)).collect(),
        },
        Op::TypePointer => match ops.first() {
            Some(Operand::StorageClass(s)) => Type::Pointer {
                storage: *s,
                pointee: d(1),
            },
            _ => Type::Other(inst.clone()),
        },
        Op::TypeFunction => Type::Function {
            ret: d(0),
            params: (1..ops.len()).filter_map(|i| id(ops, i)).collect(),
        },
        Op::TypeImage => match (ops.get(1), ops.get(6)) {
            (Some(Operand::Dim(dim)), Some(Operand::ImageFormat(f))) => Type::Image {
                sampled_type: d(0),
                dim: *dim,
                depth: l(2),
                arrayed: l(3),
                ms: l(4),
                sampled: l(5),
                format: *f,
                access: match ops.get(7) {
                    Some(Operand::AccessQualifier(a)) => Some(*a),
                    _ => None,
                },
            },
            _ => Type::Other(inst.clone()),
        },
        Op::TypeSampler => Type::Sampler,
        Op::TypeSampledImage => Type::SampledImage { image: d(0) },
        Op::TypeOpaque => Type::Opaque {
            name: string(ops, 0).unwrap_or_default(),
        },
        Op::TypeEvent => Type::Event,
        Op::TypeDeviceEvent => Type::DeviceEvent,
        Op::TypeReserveId => Type::ReserveId,
        Op::TypeQueue => Type::Queue,
        Op::TypePipe => match ops.first() {
            Some(Operand::AccessQualifier(a)) => Type::Pipe { access: *a },
            _ => Type::Other(inst.clone()),
        },
        _ => Type::Other(inst.clone()),
    }
}

/// Parses a SPIR-V 1.0-1.5 binary (either endianness).
pub fn parse(bytes: &[u8]) -> Result<Module, ParseError> {
    let (header, insts) = binary::decode(bytes, 6)?;
    Module::from_instructions(Some(header), insts).map(merge_repeated_phi_parents)
}

/// Parses host-order words.
pub fn parse_words(words: &[u32]) -> Result<Module, ParseError> {
    let (header, insts) = binary::decode_words(words, 6)?;
    Module::from_instructions(Some(header), insts).map(merge_repeated_phi_parents)
}

/// llvm-spirv writes an OpPhi with one (value, parent) pair per CFG edge, as LLVM's phis
/// have: when several cases of an OpSwitch branch to the same block, the parent repeats with
/// the same value. SPIR-V wants one pair per parent block, so identical repeats are merged
/// here; a parent repeated with different values is left for the validator to reject.
fn merge_repeated_phi_parents(mut m: Module) -> Module {
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for i in b.instructions.iter_mut().filter(|i| i.opcode == spirv::Op::Phi) {
                if i.operands.len() % 2 != 0 {
                    continue;
                }
                let mut kept: Vec<Operand> = Vec::with_capacity(i.operands.len());
                let mut conflict = false;
                for pair in i.operands.chunks(2) {
                    match kept.chunks(2).find(|k| k[1] == pair[1]) {
                        Some(k) if k[0] == pair[0] => {}
                        Some(_) => conflict = true,
                        None => kept.extend_from_slice(pair),
                    }
                }
                if !conflict {
                    i.operands = kept;
                }
            }
        }
    }
    m
}
