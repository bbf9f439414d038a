//! Inputs that once crashed the front end or the JIT (most found by fuzzing, see fuzz/):
//! each must now give a result or an error, never a panic.

use jit::spirv::{self, DeviceFeatures};

#[test]
fn fuzz_regressions_do_not_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("regressions directory") {
        let path = entry.expect("entry").path();
        let bytes = std::fs::read(&path).expect("readable");
        seen += 1;
        let Ok(module) = spirv::parse(&bytes) else { continue };
        if spirv::validate(&module, &DeviceFeatures::default()).is_ok() {
            let _ = jit::codegen::compile(&module, &jit::codegen::CompileOptions::default());
        }
    }
    assert!(seen > 0);
}

/// Older SPIR-V translators declare work-item builtins as UniformConstant variables rather
/// than Input; the BuiltIn decoration is what counts (pyopencl's own SPIR-V test uses such a
/// module).
#[test]
fn uniform_constant_builtin_is_the_work_item_id() {
    let text = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "ids"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %gid Constant
%ulong = OpTypeInt 64 0
%v3ulong = OpTypeVector %ulong 3
%ptr_uc = OpTypePointer UniformConstant %v3ulong
%void = OpTypeVoid
%ptr_g = OpTypePointer CrossWorkgroup %ulong
%fn = OpTypeFunction %void %ptr_g
%gid = OpVariable %ptr_uc UniformConstant
%k = OpFunction %void None %fn
%out = OpFunctionParameter %ptr_g
%entry = OpLabel
%v = OpLoad %v3ulong %gid
%x = OpCompositeExtract %ulong %v 0
%p = OpInBoundsPtrAccessChain %ptr_g %out %x
OpStore %p %x
OpReturn
OpFunctionEnd
"#;
    let words = spirv::assemble(
        text,
        spirv::AsmOptions {
            version: (1, 0),
            ..Default::default()
        },
    )
    .expect("assembles");
    let module = spirv::parse_words(&words).expect("parses");
    spirv::validate(&module, &DeviceFeatures::default()).expect("valid");
    let program = jit::codegen::compile(&module, &jit::codegen::CompileOptions::default()).expect("compiles");
    let kernel = program.kernel("ids").expect("kernel");
    let mut out = vec![u64::MAX; 8];
    let args = (out.as_mut_ptr() as u64).to_ne_bytes();
    let ctx = jit::abi::WorkGroupContext {
        work_dim: 1,
        host_shared: 0,
        global_offset: [0; 3],
        global_size: [8, 1, 1],
        local_size: [8, 1, 1],
        enqueued_local_size: [8, 1, 1],
        num_groups: [1, 1, 1],
        group_id: [0; 3],
        local_mem: std::ptr::null_mut(),
        printf: std::ptr::null_mut(),
    };
    // SAFETY: the argument block holds the one pointer argument; `out` has 8 elements.
    unsafe { kernel.run_group(args.as_ptr(), &ctx) };
    assert_eq!(out, (0..8).collect::<Vec<u64>>());
}

/// A program-scope array far larger than memory is a compile error, not an allocation that
/// aborts the host.
#[test]
fn huge_program_scope_data_is_an_error() {
    let text = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "huge"
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%len = OpConstant %ulong 68719476736
%arr = OpTypeArray %float %len
%ptr = OpTypePointer CrossWorkgroup %arr
%void = OpTypeVoid
%fn = OpTypeFunction %void
%null = OpConstantNull %arr
%table = OpVariable %ptr CrossWorkgroup %null
%k = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"#;
    let words = spirv::assemble(
        text,
        spirv::AsmOptions {
            version: (1, 0),
            ..Default::default()
        },
    )
    .expect("assembles");
    let module = spirv::parse_words(&words).expect("parses");
    if spirv::validate(&module, &DeviceFeatures::default()).is_ok() {
        assert!(jit::codegen::compile(&module, &jit::codegen::CompileOptions::default()).is_err());
    }
}
