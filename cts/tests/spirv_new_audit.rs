//! Regressions found by auditing Clift against the Khronos CTS `spirv_new` suite. Every kernel
//! is hand-written SPIR-V under kernels/ and every result is checked against a host reference.
//!
//! - kernels/nonsemantic.spvasm: SPV_KHR_non_semantic_info, "NonSemantic." instruction sets
//!   whose OpExtInst appear among the module's globals and inside a function (the CTS test
//!   extinstimport_nonsemantic builds such a module and runs it).
//! - cl_khr_il_program: clGetExtensionFunctionAddressForPlatform hands out
//!   clCreateProgramWithILKHR (the CTS creates its programs through it on devices without core
//!   IL programs, and the extension is reported).

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

#[test]
fn non_semantic_instructions_are_ignored() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("nonsemantic", &spirv("nonsemantic"));
    let input: Vec<u32> = from_bytes::<u32>(&pattern(4 * 257, 11));
    let n = input.len();
    let bi = ctx.buffer_from(as_bytes(&input));
    let bo = ctx.buffer(4 * n);
    let k = prog.kernel("scale_add");
    k.arg_mem(0, &bi);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[n], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&bo, 0, 4 * n));
    for (i, (&x, &g)) in input.iter().zip(&got).enumerate() {
        assert_eq!(g, x.wrapping_mul(3).wrapping_add(7), "item {i} (input {x:#x})");
    }
}

type CreateProgramWithIlKhr = unsafe extern "C" fn(cl_context, *const c_void, size_t, *mut cl_int) -> cl_program;

#[test]
fn il_program_khr_entry_point() {
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    assert!(
        exts.split_whitespace().any(|e| e == "cl_khr_il_program"),
        "extensions: {exts}"
    );
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(platform(), c"clCreateProgramWithILKHR".as_ptr()) };
    assert!(
        !f.is_null(),
        "cl_khr_il_program is reported but clCreateProgramWithILKHR is not handed out"
    );
    let create: CreateProgramWithIlKhr = unsafe { std::mem::transmute(f) };
    let ctx = Context::new();
    let il = spirv("nonsemantic");
    let mut err = CL_INVALID_VALUE;
    let p = unsafe { create(ctx.0, il.as_ptr() as *const c_void, il.len(), &mut err) };
    assert_eq!(err, CL_SUCCESS, "clCreateProgramWithILKHR: {}", err_name(err));
    assert!(!p.is_null());
    let prog = Program(p);
    assert_eq!(prog.info_bytes(CL_PROGRAM_IL).unwrap(), il, "CL_PROGRAM_IL");
    let err = prog.build("");
    assert_eq!(
        err,
        CL_SUCCESS,
        "clBuildProgram: {}\n{}",
        err_name(err),
        prog.build_log()
    );
    let q = ctx.queue();
    let input: Vec<u32> = (0..64).collect();
    let bi = ctx.buffer_from(as_bytes(&input));
    let bo = ctx.buffer(4 * input.len());
    let k = prog.kernel("scale_add");
    k.arg_mem(0, &bi);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[input.len()], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&bo, 0, 4 * input.len()));
    let want: Vec<u32> = input.iter().map(|x| x * 3 + 7).collect();
    assert_eq!(got, want);
}
