//! Validator: accepts llvm-spirv output and the reference kernel, rejects
//! one broken rule at a time with a message naming the rule and instruction.

use jit::spirv::{self, AsmOptions, DeviceFeatures, ValidationError};
use std::path::Path;

fn data(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)).unwrap()
}

fn check_text(text: &str, f: &DeviceFeatures) -> Result<(), ValidationError> {
    let w = spirv::assemble(
        text,
        AsmOptions {
            version: (1, 4),
            preserve_numeric_ids: false,
        },
    )
    .unwrap();
    let m = spirv::parse(&spirv::words_to_bytes(&w)).unwrap();
    spirv::validate(&m, f)
}

/// The reference kernel with `from` replaced by `to`.
fn variant(from: &str, to: &str) -> String {
    let base = data("valid_kernel.spvasm");
    assert!(base.contains(from), "template lacks {:?}", from);
    base.replacen(from, to, 1)
}

fn rejects(text: &str, fragments: &[&str]) -> ValidationError {
    rejects_with(text, &DeviceFeatures::default(), fragments)
}

fn rejects_with(text: &str, f: &DeviceFeatures, fragments: &[&str]) -> ValidationError {
    let e = check_text(text, f).expect_err("module should be rejected");
    let s = e.to_string();
    for frag in fragments {
        assert!(s.contains(frag), "message {:?} lacks {:?}", s, frag);
    }
    e
}

#[test]
fn accepts_llvm_spirv_modules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().map(|x| x == "spv").unwrap_or(false) {
            let m = spirv::parse(&std::fs::read(&p).unwrap()).unwrap();
            spirv::validate(&m, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{}: {}", p.display(), e));
            n += 1;
        }
    }
    assert!(n >= 3);
}

#[test]
fn accepts_reference_kernel_with_blocks_out_of_dominance_order() {
    // %exit comes before the loop %header that dominates it.
    check_text(&data("valid_kernel.spvasm"), &DeviceFeatures::default()).unwrap();
}

#[test]
fn rejects_foreign_environments() {
    let e = rejects(
        &data("vulkan_compute.spvasm"),
        &[
            "Vulkan/GLSL shader module",
            "Shader capability",
            "GLCompute entry point",
            "cannot run on an OpenCL device",
        ],
    );
    assert_eq!(e.instruction.as_deref(), Some("OpCapability at byte offset 20"));
    rejects(
        &data("webgpu_compute.spvasm"),
        &["Vulkan/WebGPU shader module", "Vulkan memory model"],
    );
    rejects(
        &variant("Physical64 OpenCL", "Physical64 GLSL450"),
        &["GLSL450 memory model", "section 4"],
    );
    rejects(
        &variant("Physical64 OpenCL", "Logical OpenCL"),
        &["Logical addressing model"],
    );
    rejects(
        &variant("OpEntryPoint Kernel", "OpEntryPoint GLCompute"),
        &["GLCompute entry point", "OpEntryPoint"],
    );
    rejects(
        &variant("\"OpenCL.std\"", "\"GLSL.std.450\""),
        &["GLSL.std.450 instruction set"],
    );
}

#[test]
fn section4_addressing_and_memory_model() {
    rejects(
        &variant("Physical64 OpenCL", "Physical32 OpenCL"),
        &["section 4 (addressing model)", "Physical32", "OpMemoryModel"],
    );
    let f32bit = DeviceFeatures {
        address_bits: 32,
        ..DeviceFeatures::default()
    };
    rejects_with(&data("valid_kernel.spvasm"), &f32bit, &["needs Physical32"]);
}

#[test]
fn section4_integer_signedness() {
    rejects(
        &variant("%uint = OpTypeInt 32 0", "%uint = OpTypeInt 32 1"),
        &["Signedness must be 0", "OpTypeInt %"],
    );
}

#[test]
fn section4_image_rules() {
    let img = |t: &str| {
        variant(
            "      %float = OpTypeFloat 32",
            &format!("      %float = OpTypeFloat 32\n%img = {}", t),
        )
        .replacen("OpCapability Int64", "OpCapability Int64\nOpCapability ImageBasic", 1)
    };
    check_text(
        &img("OpTypeImage %void 2D 0 0 0 0 Unknown ReadOnly"),
        &DeviceFeatures::default(),
    )
    .unwrap();
    rejects(
        &img("OpTypeImage %uint 2D 0 0 0 0 Unknown ReadOnly"),
        &["Sampled Type must be OpTypeVoid", "OpTypeImage %"],
    );
    rejects(
        &img("OpTypeImage %void 2D 0 0 0 1 Unknown ReadOnly"),
        &["Sampled must be 0"],
    );
    rejects(&img("OpTypeImage %void 2D 0 0 1 0 Unknown ReadOnly"), &["MS must be 0"]);
    rejects(
        &img("OpTypeImage %void 3D 0 1 0 0 Unknown ReadOnly"),
        &["Arrayed images must be 1D or 2D"],
    );
    rejects(
        &img("OpTypeImage %void 2D 0 0 0 0 Rgba8 ReadOnly"),
        &["Image Format must be Unknown"],
    );
    rejects(
        &img("OpTypeImage %void 2D 0 0 0 0 Unknown"),
        &["Access Qualifier must be present"],
    );
}

#[test]
fn section4_atomics() {
    let atomic = "%a = OpAtomicIAdd %uint %p %c1 %c0 %c1";
    rejects(
        &variant(atomic, "%a = OpAtomicIAdd %uint %pu %c1 %c0 %c1"),
        &["storage class UniformConstant", "atomic instructions", "OpAtomicIAdd %"],
    );
    rejects(
        &variant(atomic, "%a = OpAtomicIAdd %ulong %pl %c1 %c0 %c1l"),
        &["64-bit integer", "Int64Atomics"],
    );
    let with64 = variant(atomic, "%a = OpAtomicIAdd %ulong %pl %c1 %c0 %c1l").replacen(
        "OpCapability Int64\n",
        "OpCapability Int64\nOpCapability Int64Atomics\n",
        1,
    );
    check_text(&with64, &DeviceFeatures::default()).unwrap();
    let no64 = DeviceFeatures {
        int64_atomics: false,
        ..DeviceFeatures::default()
    };
    rejects_with(&with64, &no64, &["capability Int64Atomics is not supported"]);
}

/// The reference kernel with a Workgroup float `%wf` (and a 64-bit `%wd`, a 16-bit `%wh`) and its
/// atomic replaced by `atomic`.
fn float_atomic_variant(atomic: &str) -> String {
    variant("%a = OpAtomicIAdd %uint %p %c1 %c0 %c1", atomic)
        .replacen(
            "OpCapability Int64\n",
            "OpCapability Int64\nOpCapability Float64\nOpCapability Float16\n",
            1,
        )
        .replacen(
            "%c1l = OpConstant %ulong 1\n",
            "%c1l = OpConstant %ulong 1\n%double = OpTypeFloat 64\n%half = OpTypeFloat 16\n\
             %pf = OpTypePointer Workgroup %float\n%pd = OpTypePointer Workgroup %double\n\
             %ph = OpTypePointer Workgroup %half\n%wf = OpVariable %pf Workgroup\n\
             %wd = OpVariable %pd Workgroup\n%wh = OpVariable %ph Workgroup\n\
             %f1 = OpConstant %float 1\n%d1 = OpConstant %double 1\n%h1 = OpConstant %half 1\n",
            1,
        )
}

#[test]
fn section4_float_atomics_move_values_only() {
    // Load, store and exchange move 32- and 64-bit floats (atomic_xchg on float, atomic_float,
    // atomic_double); no Int64Atomics is needed for the double.
    for ok in [
        "%a = OpAtomicExchange %float %wf %c2 %c0 %f1",
        "%a = OpAtomicLoad %float %wf %c2 %c0",
        "OpAtomicStore %wf %c2 %c0 %f1",
        "%a = OpAtomicExchange %double %wd %c2 %c0 %d1",
        "%a = OpAtomicLoad %double %wd %c2 %c0",
        "OpAtomicStore %wd %c2 %c0 %d1",
    ] {
        check_text(&float_atomic_variant(ok), &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    // Arithmetic and compare-exchange on floats stay invalid, named by instruction.
    rejects(
        &float_atomic_variant("%a = OpAtomicIAdd %float %wf %c2 %c0 %f1"),
        &[
            "OpAtomicIAdd on a 32-bit float",
            "atomic instructions",
            "OpAtomicIAdd %",
        ],
    );
    rejects(
        &float_atomic_variant("%a = OpAtomicCompareExchange %double %wd %c2 %c0 %c0 %d1 %d1"),
        &["OpAtomicCompareExchange on a 64-bit float", "OpAtomicCompareExchange %"],
    );
    rejects(
        &float_atomic_variant("%a = OpAtomicExchange %half %wh %c2 %c0 %h1"),
        &["OpAtomicExchange on a 16-bit float", "only 32- and 64-bit floats"],
    );
    // The value type must still match the pointee.
    rejects(
        &float_atomic_variant("%a = OpAtomicExchange %float %wd %c2 %c0 %f1"),
        &["differs from the type the Pointer points to", "OpAtomicExchange %"],
    );
}

#[test]
fn section4_scopes_and_semantics() {
    let atomic = "%a = OpAtomicIAdd %uint %p %c1 %c0 %c1";
    rejects(
        &variant(atomic, "%a = OpAtomicIAdd %uint %p %c5 %c0 %c1"),
        &["Scope for Memory of atomic instructions", "memory scope QueueFamily"],
    );
    rejects(
        &variant(atomic, "%a = OpAtomicIAdd %uint %p %v %c0 %c1"),
        &["not an integer OpConstant"],
    );
    rejects(
        &variant("OpControlBarrier %c2 %c2", "OpControlBarrier %c1 %c2"),
        &["Scope for Execution", "Device", "OpControlBarrier"],
    );
    rejects(
        &variant("%c272 = OpConstant %uint 272", "%c272 = OpConstant %uint 0x116"),
        &["more than one memory order"],
    );
    let no_seq = DeviceFeatures {
        order_seq_cst: false,
        ..DeviceFeatures::default()
    };
    let seq = variant("%c272 = OpConstant %uint 272", "%c272 = OpConstant %uint 0x110");
    check_text(&seq, &DeviceFeatures::default()).unwrap();
    rejects_with(&seq, &no_seq, &["memory order 0x10 is not supported"]);
    let no_dev = DeviceFeatures {
        scope_device: false,
        ..DeviceFeatures::default()
    };
    rejects_with(
        &data("valid_kernel.spvasm"),
        &no_dev,
        &["memory scope Device is not allowed"],
    );
}

#[test]
fn section4_no_recursion() {
    let e = rejects(
        &variant("%hx = OpIAdd %uint %x %c1", "%hx = OpFunctionCall %uint %helper %x"),
        &["recursion is not supported", "cycle"],
    );
    assert!(e.instruction.unwrap().starts_with("OpFunctionCall %"));
}

#[test]
fn section3_capabilities() {
    rejects(
        &variant("OpCapability Int64\n", "OpCapability Int64\nOpCapability Groups\n"),
        &["capability Groups is not supported", "section 3"],
    );
    rejects(
        &variant("OpCapability Int64\n", "OpCapability Int64\nOpCapability Pipes\n"),
        &["capability Pipes is not supported"],
    );
    rejects(
        &variant("OpCapability Int64\n", ""),
        &["requires capability Int64", "OpTypeInt %"],
    );
    rejects(
        &variant("OpCapability Addresses\n", ""),
        &["Physical64 requires capability Addresses"],
    );
    rejects(
        &variant(
            "OpCapability Int64\n",
            "OpCapability Int64\nOpExtension \"SPV_KHR_bogus\"\n",
        ),
        &["SPV_KHR_bogus is not supported"],
    );
    let no_images = DeviceFeatures {
        images: false,
        ..DeviceFeatures::default()
    };
    rejects_with(
        &variant("OpCapability Int64\n", "OpCapability Int64\nOpCapability ImageBasic\n"),
        &no_images,
        &["ImageBasic is not supported"],
    );
    assert!(DeviceFeatures::default()
        .supported_capabilities()
        .contains(&rspirv::spirv::Capability::Float64));
}

#[test]
fn section2_types_and_kernels() {
    rejects(
        &variant(
            "%ulong = OpTypeInt 64 0",
            "%ulong = OpTypeInt 64 0\n%i128 = OpTypeInt 128 0",
        ),
        &["integer width 128"],
    );
    rejects(
        &variant(
            "%ulong = OpTypeInt 64 0",
            "%ulong = OpTypeInt 64 0\n%v5 = OpTypeVector %uint 5",
        ),
        &["vector of 5 components"],
    );
    rejects(
        &variant(
            "%fnty = OpTypeFunction %void %ptr %ptrl %ptru",
            "%fnty = OpTypeFunction %void %ptr %ptrl %bool",
        )
        .replacen("%pu = OpFunctionParameter %ptru", "%pu = OpFunctionParameter %bool", 1)
        .replacen("%a = OpAtomicIAdd %uint %p %c1 %c0 %c1\n", "", 1),
        &["section 2.8.2", "argument %"],
    );
    rejects(
        &variant("OpEntryPoint Kernel %k", "OpEntryPoint Kernel %helper"),
        &["section 2.8.1", "OpTypeVoid"],
    );
}

#[test]
fn structural_rules() {
    rejects(
        &variant("OpStore %p %v", "OpStore %p %undefined_thing"),
        &["no instruction defines", "OpStore at byte offset"],
    );
    rejects(
        &variant(
            "%c5 = OpConstant %uint 5",
            "%c5 = OpConstant %uint 5\n%c1 = OpConstant %uint 7",
        ),
        &["defined again"],
    );
    rejects(
        &variant("          %v = OpLoad %uint %p", "          %v = OpLoad %ulong %p"),
        &["OpLoad", "operand types", "through a pointer to"],
    );
    rejects(&variant("OpStore %p %v", "OpStore %p %c1l"), &["OpStore", "stores"]);
    rejects(
        &variant("%next = OpIAdd %uint %iv %c1", "%next = OpIAdd %uint %iv %c1l"),
        &["OpIAdd %", "operand 2 has type"],
    );
    rejects(
        &variant("               OpReturn\n", ""),
        &["does not end with a branch or return"],
    );
    rejects(
        &variant(
            "%ptr = OpTypePointer CrossWorkgroup %uint",
            "%ptr = OpTypePointer CrossWorkgroup %later\n%later = OpTypeInt 8 0",
        )
        .replacen("OpCapability Int64\n", "OpCapability Int64\nOpCapability Int8\n", 1),
        &["before its definition"],
    );
    rejects(
        &variant(
            "%hc = OpFunctionCall %uint %helper %v",
            "%hc = OpFunctionCall %uint %helper %c1l",
        ),
        &["argument 1"],
    );
    rejects(
        &variant("%v = OpLoad %uint %p", "%v = OpLoad %c1 %p"),
        &["is not a type"],
    );
}

/// An integer opcode on booleans (or floats) is refused before it reaches the code generator
/// (fuzzing found OpUDiv on floats taking Cranelift's verifier down).
#[test]
fn rejects_integer_opcode_on_the_wrong_kind() {
    rejects(
        &variant(
            "%cond = OpULessThan %bool %next %c5",
            "%cond = OpLogicalAnd %bool %next %c5",
        ),
        &["operand types", "OpLogicalAnd"],
    );
    rejects(
        &variant("%next = OpIAdd %uint %iv %c1", "%next = OpFAdd %uint %iv %c1"),
        &["operand types", "OpFAdd", "floating-point"],
    );
}

/// OpSpecConstantOp naming an opcode it does not allow is a parse error, not a panic.
#[test]
fn spec_constant_op_of_a_spec_constant_op_is_a_parse_error() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fuzz/regressions/spec-constant-op-nested.spv"
    ))
    .unwrap();
    let e = spirv::parse(&bytes).expect_err("refused");
    assert!(e.to_string().contains("OpSpecConstantOp"), "{e}");
}

/// OpSwitch with a repeated case literal is refused (SPIR-V: "It is invalid for any two Literal
/// to be equal to each other"); fuzzing found Cranelift's switch builder panicking on one.
#[test]
fn rejects_switch_with_a_repeated_case_literal() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../cts/kernels/control.spvasm")).unwrap();
    let from = "OpSwitch %22 %28 0 %29 1 %24";
    assert!(text.contains(from));
    check_text(&text, &DeviceFeatures::default()).expect("the original is valid");
    rejects(
        &text.replacen(from, "OpSwitch %22 %28 0 %29 0 %24", 1),
        &["OpSwitch", "case literal 0 appears twice"],
    );
}
