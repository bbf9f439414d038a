//! Program-scope variables initialized with pointers: addresses of other variables (through
//! constant access chains with and without indexes) and null pointers become data
//! relocations, compiled directly and through a native image; a damaged data relocation in an
//! image is an error; an address that is no program-wide constant is a compile error.

use jit::abi::WorkGroupContext;
use jit::{CompileOptions, Program};

/// `tab` = {10, 11, 12, 13} and `ptrs` = {&tab[2], &tab[2] + 1, &tab[0], NULL} (an
/// OpPtrAccessChain without indexes, one with an index, an OpInBoundsAccessChain); the kernel
/// writes the four pointers, `&tab`, `*ptrs[0]` and `*ptrs[1]` as ulongs.
const SOURCE: &str = r#"
; Version: 1.0
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "k"
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u3 = OpConstant %uint 3
%ul0 = OpConstant %ulong 0
%ul1 = OpConstant %ulong 1
%ul2 = OpConstant %ulong 2
%ul4 = OpConstant %ulong 4
%ul5 = OpConstant %ulong 5
%ul6 = OpConstant %ulong 6
%c10 = OpConstant %uint 10
%c11 = OpConstant %uint 11
%c12 = OpConstant %uint 12
%c13 = OpConstant %uint 13
%arr = OpTypeArray %uint %ul4
%p_arr = OpTypePointer UniformConstant %arr
%p_uint = OpTypePointer UniformConstant %uint
%parr = OpTypeArray %p_uint %ul4
%p_parr = OpTypePointer UniformConstant %parr
%p_p_uint = OpTypePointer UniformConstant %p_uint
%cw_ulong = OpTypePointer CrossWorkgroup %ulong
%fn = OpTypeFunction %void %cw_ulong
%tab_init = OpConstantComposite %arr %c10 %c11 %c12 %c13
%tab = OpVariable %p_arr UniformConstant %tab_init
%e2 = OpSpecConstantOp %p_uint InBoundsPtrAccessChain %tab %ul0 %ul2
%e3 = OpSpecConstantOp %p_uint PtrAccessChain %e2 %ul1
%e0 = OpSpecConstantOp %p_uint InBoundsAccessChain %tab %u0
%null = OpConstantNull %p_uint
%ptrs_init = OpConstantComposite %parr %e2 %e3 %e0 %null
%ptrs = OpVariable %p_parr UniformConstant %ptrs_init
%k = OpFunction %void None %fn
%out = OpFunctionParameter %cw_ulong
%entry = OpLabel
%a0 = OpInBoundsAccessChain %p_p_uint %ptrs %u0
%a1 = OpInBoundsAccessChain %p_p_uint %ptrs %u1
%a2 = OpInBoundsAccessChain %p_p_uint %ptrs %u2
%a3 = OpInBoundsAccessChain %p_p_uint %ptrs %u3
%v0 = OpLoad %p_uint %a0
%v1 = OpLoad %p_uint %a1
%v2 = OpLoad %p_uint %a2
%v3 = OpLoad %p_uint %a3
%i0 = OpConvertPtrToU %ulong %v0
%i1 = OpConvertPtrToU %ulong %v1
%i2 = OpConvertPtrToU %ulong %v2
%i3 = OpConvertPtrToU %ulong %v3
%it = OpConvertPtrToU %ulong %tab
%x0 = OpLoad %uint %v0
%x1 = OpLoad %uint %v1
%y0 = OpUConvert %ulong %x0
%y1 = OpUConvert %ulong %x1
%o1 = OpInBoundsPtrAccessChain %cw_ulong %out %ul1
%o2 = OpInBoundsPtrAccessChain %cw_ulong %out %ul2
%o3 = OpInBoundsPtrAccessChain %cw_ulong %out %u3
%o4 = OpInBoundsPtrAccessChain %cw_ulong %out %ul4
%o5 = OpInBoundsPtrAccessChain %cw_ulong %out %ul5
%o6 = OpInBoundsPtrAccessChain %cw_ulong %out %ul6
OpStore %out %i0
OpStore %o1 %i1
OpStore %o2 %i2
OpStore %o3 %i3
OpStore %o4 %it
OpStore %o5 %y0
OpStore %o6 %y1
OpReturn
OpFunctionEnd
"#;

fn module(text: &str) -> jit::spirv::Module {
    let opts = jit::spirv::AsmOptions {
        version: (1, 0),
        ..Default::default()
    };
    let words = jit::spirv::assemble(text, opts).expect("assemble");
    jit::spirv::parse_words(&words).expect("parse")
}

fn check(p: &Program) {
    let k = p.kernel("k").expect("kernel k");
    let mut out = [0u64; 7];
    let mut block = [0u64; 1];
    block[0] = out.as_mut_ptr() as u64;
    let ctx = WorkGroupContext {
        work_dim: 1,
        host_shared: 0,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size: [1, 1, 1],
        enqueued_local_size: [1, 1, 1],
        num_groups: [1, 1, 1],
        group_id: [0; 3],
        local_mem: std::ptr::null_mut(),
        printf: std::ptr::null_mut(),
    };
    unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
    let tab = out[4];
    assert_ne!(tab, 0);
    assert_eq!(
        [
            out[0].wrapping_sub(tab),
            out[1].wrapping_sub(tab),
            out[2].wrapping_sub(tab),
            out[3]
        ],
        [8, 12, 0, 0],
        "the pointers in ptrs, relative to &tab"
    );
    assert_eq!([out[5], out[6]], [12, 13], "*ptrs[0], *ptrs[1]");
}

#[test]
fn pointer_initializers_compiled() {
    let p = jit::compile(&module(SOURCE), &CompileOptions::default()).unwrap_or_else(|e| panic!("compile: {e}"));
    check(&p);
}

fn image() -> Vec<u8> {
    let (p, image) = jit::codegen::compile_with_image(&module(SOURCE), &CompileOptions::default()).expect("compile");
    check(&p);
    image.expect("an image")
}

#[test]
fn pointer_initializers_through_the_native_image() {
    check(&jit::codegen::load_native(&image()).expect("load"));
}

/// Where the image holds `ptrs`' relocations: the count (3), then (offset 0, target 0 = `tab`,
/// addend 8).
fn relocs_at(image: &[u8]) -> usize {
    let mut pattern = 3u64.to_le_bytes().to_vec();
    pattern.extend_from_slice(&0u32.to_le_bytes());
    pattern.extend_from_slice(&0u32.to_le_bytes());
    pattern.extend_from_slice(&8u64.to_le_bytes());
    let at: Vec<usize> = image
        .windows(pattern.len())
        .enumerate()
        .filter(|(_, w)| *w == pattern.as_slice())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "one place holds ptrs' relocations");
    at[0] + 8
}

#[test]
fn damaged_data_relocations_are_errors() {
    let good = image();
    let at = relocs_at(&good);
    let patch = |field: usize, value: u32| {
        let mut bad = good.clone();
        bad[at + field..at + field + 4].copy_from_slice(&value.to_le_bytes());
        bad
    };
    // An offset whose pointer would end past the 32 bytes of `ptrs`, one past the end, a
    // huge one; a target that is not a data object.
    for (what, bad) in [
        ("offset 25", patch(0, 25)),
        ("offset 32", patch(0, 32)),
        ("offset u32::MAX", patch(0, u32::MAX)),
        ("target 7", patch(4, 7)),
    ] {
        match jit::codegen::load_native(&bad) {
            Ok(_) => panic!("{what}: a damaged relocation loaded"),
            Err(e) => assert!(e.message.contains("damaged"), "{what}: {e}"),
        }
    }
    // The last legal offset still loads.
    assert!(jit::codegen::load_native(&patch(0, 24)).is_ok());
    // Truncated anywhere: an error.
    for len in (0..good.len()).step_by(11) {
        assert!(
            jit::codegen::load_native(&good[..len]).is_err(),
            "prefix of {len} bytes"
        );
    }
}

/// The address of a local (Workgroup) variable is no program-wide constant: a compile error
/// naming it, not a panic.
#[test]
fn address_of_a_local_variable_is_a_compile_error() {
    let text = SOURCE
        .replace(
            "%cw_ulong = OpTypePointer",
            "%wg_uint = OpTypePointer Workgroup %uint\n%p_wg = OpTypePointer UniformConstant %wg_uint\n%cw_ulong = OpTypePointer",
        )
        .replace(
            "%k = OpFunction",
            "%lv = OpVariable %wg_uint Workgroup\n%bad = OpVariable %p_wg UniformConstant %lv\n%k = OpFunction",
        );
    let m = module(&text);
    match jit::compile(&m, &CompileOptions::default()) {
        Ok(_) => panic!("the address of a Workgroup variable initialized program-scope memory"),
        Err(e) => assert!(e.message.contains("cannot initialize program-scope memory"), "{e}"),
    }
    assert!(
        jit::codegen::compile_with_image(&m, &CompileOptions::default()).is_err(),
        "the same with an image"
    );
}
