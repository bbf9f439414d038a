//! Name tables derived from rspirv's grammar: opcode names, enumerant and mask
//! names, and the extra operands an enumerant carries (e.g. `Aligned 4`).
//! Nothing here is hand-written per opcode; it all comes from rspirv/spirv.

use rspirv::binary::Disassemble;
use rspirv::dr::Operand;
use rspirv::grammar::{self, ExtInstOp, InstructionTable, LogicalOperand, OperandKind};
use rspirv::spirv;
use std::collections::HashMap;
use std::sync::OnceLock;

pub type InstGrammar = &'static grammar::Instruction<'static>;
pub type ExtInstGrammar = &'static grammar::ExtendedInstruction<'static>;

fn opcode_map() -> &'static HashMap<&'static str, InstGrammar> {
    static MAP: OnceLock<HashMap<&'static str, InstGrammar>> = OnceLock::new();
    MAP.get_or_init(|| grammar::INSTRUCTION_TABLE.iter().map(|g| (g.opname, g)).collect())
}

fn opcode_num_map() -> &'static HashMap<u32, InstGrammar> {
    static MAP: OnceLock<HashMap<u32, InstGrammar>> = OnceLock::new();
    MAP.get_or_init(|| {
        grammar::INSTRUCTION_TABLE
            .iter()
            .map(|g| (g.opcode as u32, g))
            .collect()
    })
}

/// Grammar of an instruction by its name without the `Op` prefix.
pub fn inst_by_name(name: &str) -> Option<InstGrammar> {
    opcode_map().get(name).copied()
}

/// Grammar of an instruction by its opcode number.
pub fn inst_by_opcode(op: u32) -> Option<InstGrammar> {
    opcode_num_map().get(&op).copied()
}

/// `OpFoo` name of an opcode.
pub fn op_name(op: spirv::Op) -> String {
    match inst_by_opcode(op as u32) {
        Some(g) => format!("Op{}", g.opname),
        None => format!("Op{:?}", op),
    }
}

/// Extended instruction set table for an `OpExtInstImport` name.
pub fn ext_table(set: &str) -> Option<&'static InstructionTable<ExtInstOp>> {
    match set {
        "OpenCL.std" | "GLSL.std.450" | "OpenCL.DebugInfo.100" => grammar::ext_inst_table(set),
        _ => None,
    }
}

pub fn ext_inst_by_name(set: &str, name: &str) -> Option<ExtInstGrammar> {
    ext_table(set)?.iter().find(|g| g.opname == name)
}

pub fn ext_inst_by_number(set: &str, n: u32) -> Option<ExtInstGrammar> {
    ext_table(set)?.lookup_opcode(n)
}

macro_rules! value_enums {
    ($($k:ident),* $(,)?) => {
        fn core_enum_name(kind: OperandKind, v: u32) -> Option<String> {
            match kind {
                OperandKind::Dim => spirv::Dim::from_u32(v).map(|e| {
                    let s = format!("{:?}", e);
                    s.strip_prefix("Dim").map(str::to_string).unwrap_or(s)
                }),
                $(OperandKind::$k => spirv::$k::from_u32(v).map(|e| format!("{:?}", e)),)*
                _ => None,
            }
        }
        fn core_enum_value(kind: OperandKind, name: &str) -> Option<u32> {
            match kind {
                OperandKind::Dim => format!("Dim{}", name).parse::<spirv::Dim>().ok().map(|e| e as u32),
                $(OperandKind::$k => name.parse::<spirv::$k>().ok().map(|e| e as u32),)*
                _ => None,
            }
        }
        fn value_operand(kind: OperandKind, v: u32) -> Option<Operand> {
            match kind {
                OperandKind::Dim => spirv::Dim::from_u32(v).map(Operand::Dim),
                $(OperandKind::$k => spirv::$k::from_u32(v).map(Operand::$k),)*
                _ => None,
            }
        }
        fn is_value_enum(kind: OperandKind) -> bool {
            matches!(kind, OperandKind::Dim $(| OperandKind::$k)*)
        }
    };
}

value_enums!(
    SourceLanguage,
    ExecutionModel,
    AddressingModel,
    MemoryModel,
    ExecutionMode,
    StorageClass,
    SamplerAddressingMode,
    SamplerFilterMode,
    ImageFormat,
    ImageChannelOrder,
    ImageChannelDataType,
    FPRoundingMode,
    FPDenormMode,
    QuantizationModes,
    FPOperationMode,
    OverflowModes,
    LinkageType,
    AccessQualifier,
    HostAccessQualifier,
    FunctionParameterAttribute,
    Decoration,
    BuiltIn,
    Scope,
    GroupOperation,
    KernelEnqueueFlags,
    Capability,
    RayQueryIntersection,
    RayQueryCommittedIntersectionType,
    RayQueryCandidateIntersectionType,
    PackedVectorFormat,
    CooperativeMatrixLayout,
    CooperativeMatrixUse,
    InitializationModeQualifier,
    LoadCacheControl,
    StoreCacheControl,
    NamedMaximumNumberOfRegisters,
    FPEncoding,
);

/// Name of a value enumerant, as the assembly syntax spells it.
pub fn enum_name(kind: OperandKind, v: u32) -> Option<String> {
    match debug_value_table(kind) {
        Some(t) => t.iter().find(|(n, _)| *n == v).map(|(_, s)| s.to_string()),
        None => core_enum_name(kind, v),
    }
}

/// Value of a named enumerant.
pub fn enum_value(kind: OperandKind, name: &str) -> Option<u32> {
    match debug_value_table(kind) {
        Some(t) => t.iter().find(|(_, s)| *s == name).map(|(n, _)| *n),
        None => core_enum_value(kind, name),
    }
}

macro_rules! mask_enums {
    ($($k:ident),* $(,)?) => {
        fn mask_operand(kind: OperandKind, v: u32) -> Option<Operand> {
            match kind {
                $(OperandKind::$k => Some(Operand::$k(spirv::$k::from_bits_retain(v))),)*
                _ => None,
            }
        }
        fn single_bit_name(kind: OperandKind, v: u32) -> Option<String> {
            let s = match kind {
                $(OperandKind::$k => spirv::$k::from_bits_retain(v).disassemble(),)*
                _ => return None,
            };
            if s.is_empty() { None } else { Some(s) }
        }
        /// Whether `kind` is a bit mask (written `A|B`).
        pub fn is_mask(kind: OperandKind) -> bool {
            matches!(kind, $(OperandKind::$k)|*) || is_debug_flags(kind)
        }
    };
}

mask_enums!(
    ImageOperands,
    FPFastMathMode,
    SelectionControl,
    LoopControl,
    FunctionControl,
    MemorySemantics,
    MemoryAccess,
    KernelProfilingInfo,
    RayFlags,
    FragmentShadingRate,
    RawAccessChainOperands,
    CooperativeMatrixOperands,
    CooperativeMatrixReduce,
    TensorAddressingOperands,
    MatrixMultiplyAccumulateOperands,
);

/// Whether `kind` is an enumerant written by name.
pub fn is_enum(kind: OperandKind) -> bool {
    is_value_enum(kind) || debug_value_table(kind).is_some()
}

/// The value enumerants of the OpenCL.DebugInfo.100 extended grammar
/// (`extinst.opencl.debuginfo.100.grammar.json`); rspirv carries the operand
/// kinds of that set but not their enumerant names.
fn debug_value_table(kind: OperandKind) -> Option<&'static [(u32, &'static str)]> {
    use grammar::opencl_debuginfo_100::ExtOperandKind as D;
    match kind {
        OperandKind::OpenclDebuginfo100(D::DebugBaseTypeAttributeEncoding) => Some(&[
            (0, "Unspecified"),
            (1, "Address"),
            (2, "Boolean"),
            (3, "Float"),
            (4, "Signed"),
            (5, "SignedChar"),
            (6, "Unsigned"),
            (7, "UnsignedChar"),
        ]),
        OperandKind::OpenclDebuginfo100(D::DebugCompositeType) => Some(&[(0, "Class"), (1, "Structure"), (2, "Union")]),
        OperandKind::OpenclDebuginfo100(D::DebugTypeQualifier) => Some(&[
            (0, "ConstType"),
            (1, "VolatileType"),
            (2, "RestrictType"),
            (3, "AtomicType"),
        ]),
        OperandKind::OpenclDebuginfo100(D::DebugOperation) => Some(&[
            (0, "Deref"),
            (1, "Plus"),
            (2, "Minus"),
            (3, "PlusUconst"),
            (4, "BitPiece"),
            (5, "Swap"),
            (6, "Xderef"),
            (7, "StackValue"),
            (8, "Constu"),
            (9, "Fragment"),
        ]),
        OperandKind::OpenclDebuginfo100(D::DebugImportedEntity) => {
            Some(&[(0, "ImportedModule"), (1, "ImportedDeclaration")])
        }
        _ => None,
    }
}

/// DebugInfoFlags of OpenCL.DebugInfo.100 (a mask; `FlagIsPublic` is the
/// two access bits together and is only accepted, never printed).
const DEBUG_INFO_FLAGS: &[(u32, &str)] = &[
    (0x1, "FlagIsProtected"),
    (0x2, "FlagIsPrivate"),
    (0x4, "FlagIsLocal"),
    (0x8, "FlagIsDefinition"),
    (0x10, "FlagFwdDecl"),
    (0x20, "FlagArtificial"),
    (0x40, "FlagExplicit"),
    (0x80, "FlagPrototyped"),
    (0x100, "FlagObjectPointer"),
    (0x200, "FlagStaticMember"),
    (0x400, "FlagIndirectVariable"),
    (0x800, "FlagLValueReference"),
    (0x1000, "FlagRValueReference"),
    (0x2000, "FlagIsOptimized"),
    (0x4000, "FlagIsEnumClass"),
    (0x8000, "FlagTypePassByValue"),
    (0x10000, "FlagTypePassByReference"),
];

fn is_debug_flags(kind: OperandKind) -> bool {
    kind == OperandKind::OpenclDebuginfo100(grammar::opencl_debuginfo_100::ExtOperandKind::DebugInfoFlags)
}

/// (bit, name) pairs of a mask kind, lowest bit first; bit 0 means "None".
fn mask_table(kind: OperandKind) -> &'static [(u32, String)] {
    static TABLES: OnceLock<HashMap<String, Vec<(u32, String)>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let kinds = [
            OperandKind::ImageOperands,
            OperandKind::FPFastMathMode,
            OperandKind::SelectionControl,
            OperandKind::LoopControl,
            OperandKind::FunctionControl,
            OperandKind::MemorySemantics,
            OperandKind::MemoryAccess,
            OperandKind::KernelProfilingInfo,
            OperandKind::RayFlags,
            OperandKind::FragmentShadingRate,
            OperandKind::RawAccessChainOperands,
            OperandKind::CooperativeMatrixOperands,
            OperandKind::CooperativeMatrixReduce,
            OperandKind::TensorAddressingOperands,
            OperandKind::MatrixMultiplyAccumulateOperands,
        ];
        let mut m = HashMap::new();
        for k in kinds {
            let mut v = vec![];
            for bit in 0..32 {
                if let Some(n) = single_bit_name(k, 1u32 << bit) {
                    v.push((1u32 << bit, n));
                }
            }
            m.insert(format!("{:?}", k), v);
        }
        m
    });
    tables.get(&format!("{:?}", kind)).map(|v| v.as_slice()).unwrap_or(&[])
}

/// Value of a single mask name (`None` is 0).
pub fn mask_bit_value(kind: OperandKind, name: &str) -> Option<u32> {
    if name == "None" {
        return Some(0);
    }
    if is_debug_flags(kind) {
        if name == "FlagIsPublic" {
            return Some(0x3);
        }
        return DEBUG_INFO_FLAGS.iter().find(|(_, n)| *n == name).map(|(b, _)| *b);
    }
    mask_table(kind).iter().find(|(_, n)| n == name).map(|(b, _)| *b)
}

/// Text of a mask value: names joined by `|`, `None` for 0, or the number
/// when some bit has no name.
pub fn mask_text(kind: OperandKind, v: u32) -> String {
    if v == 0 {
        return "None".to_string();
    }
    let mut names = vec![];
    let mut covered = 0u32;
    if is_debug_flags(kind) {
        for (b, n) in DEBUG_INFO_FLAGS {
            if v & b != 0 {
                names.push(*n);
                covered |= b;
            }
        }
    }
    for (b, n) in mask_table(kind) {
        if v & b != 0 {
            names.push(n.as_str());
            covered |= b;
        }
    }
    if covered != v {
        return format!("0x{:x}", v);
    }
    names.join("|")
}

/// The operands that follow an enumerant or mask value, in the order the
/// binary carries them (mask parameters in increasing bit order).
pub fn enum_params(kind: OperandKind, v: u32) -> Vec<LogicalOperand> {
    if is_mask(kind) {
        let mut out = vec![];
        for bit in 0..32 {
            let b = 1u32 << bit;
            if v & b != 0 {
                if let Some(op) = mask_operand(kind, b) {
                    out.extend(op.additional_operands());
                }
            }
        }
        out
    } else {
        value_operand(kind, v)
            .map(|op| op.additional_operands())
            .unwrap_or_default()
    }
}

/// Name of a vendor/tool in the generator word (SPIR-V registry `spir-v.xml`).
pub fn generator_name(vendor: u32) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "Khronos",
        "LunarG",
        "Valve",
        "Codeplay",
        "NVIDIA",
        "ARM",
        "Khronos LLVM/SPIR-V Translator",
        "Khronos SPIR-V Tools Assembler",
        "Khronos Glslang Reference Front End",
        "Qualcomm",
        "AMD",
        "Intel",
        "Imagination",
        "Google Shaderc over Glslang",
        "Google spiregg",
        "Google rspirv",
        "X-LEGEND Mesa-IR/SPIR-V Translator",
        "Khronos SPIR-V Tools Linker",
        "Wine VKD3D Shader Compiler",
        "Tellusim Clay Shader Compiler",
        "W3C WebGPU Group WHLSL Shader Translator",
        "Google Clspv",
        "Google MLIR SPIR-V Serializer",
        "Google Tint Compiler",
        "Google ANGLE Shader Compiler",
        "Netease Games Messiah Shader Compiler",
        "Xenia Xenia Emulator Microcode Translator",
        "Embark Studios Rust GPU Compiler Backend",
        "gfx-rs community Naga",
        "Mikkosoft Productions MSP Shader Compiler",
        "SpvGenTwo community SpvGenTwo SPIR-V IR Tools",
        "Google Skia SkSL",
        "TornadoVM Beehive SPIRV Toolkit",
        "DragonJoker ShaderWriter",
        "Rayan Hatout SPIRVSmith",
        "Saarland University Shady",
        "Taichi Graphics Taichi",
        "heroseh Hero C Compiler",
        "Meta SparkSL",
    ];
    NAMES.get(vendor as usize).copied()
}
