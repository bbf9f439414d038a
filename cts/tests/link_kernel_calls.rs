//! Kernels that call kernels across clCompileProgram/clLinkProgram (issue 13, item 1): a
//! kernel called from another kernel is an ordinary function call (OpenCL C 6.9: "a kernel
//! function ... can be called from another kernel function like a regular function"), and
//! both kernels stay enqueueable. Also the invalid links: an undefined symbol, one symbol
//! defined twice, a library with two kernels of one name: CL_LINK_PROGRAM_FAILURE with a log
//! naming the symbol by its OpenCL C name.
//! Kernels: kernels/source/kcall_callee.cl, kcall_caller.cl, kcall_caller_hdr.cl,
//! kcall_proto.h.

use cts::*;

fn compiled(ctx: &Context, file: &str, options: &str, hdrs: &[(&str, &Program)]) -> Program {
    let p = ctx.source_program(file);
    let err = p.compile(options, hdrs);
    assert!(
        err == CL_SUCCESS,
        "clCompileProgram({file}): {}\nlog:\n{}",
        err_name(err),
        p.build_log()
    );
    assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "{file}");
    p
}

fn linked(ctx: &Context, options: &str, inputs: &[&Program]) -> Program {
    let (p, err) = ctx.link(options, inputs);
    let log = p.as_ref().map(|p| p.build_log()).unwrap_or_default();
    check_err!(err, CL_SUCCESS, format!("clLinkProgram({options:?}); log:\n{log}"));
    let p = p.expect("a successful clLinkProgram returns a program");
    assert_eq!(p.build_status(), CL_BUILD_SUCCESS);
    p
}

/// Enqueues `kernel` of `exe` on a = -40..88 and returns what it wrote.
fn run(ctx: &Context, exe: &Program, kernel: &str) -> Vec<i32> {
    let q = ctx.queue();
    let a: Vec<i32> = (-40..88).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(a.len() * 4);
    let k = exe.kernel(kernel);
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[a.len()], &[]);
    from_bytes(&q.read(&bo, 0, a.len() * 4))
}

fn expect(f: impl Fn(i32) -> i32) -> Vec<i32> {
    (-40..88).map(f).collect()
}

#[test]
fn kernel_calls_kernel_of_another_object() {
    if !isolate("kernel_calls_kernel_of_another_object") {
        return;
    }
    let ctx = Context::new();
    let callee = compiled(&ctx, "kcall_callee.cl", "", &[]);
    let caller = compiled(&ctx, "kcall_caller.cl", "", &[]);
    for inputs in [[&callee, &caller], [&caller, &callee]] {
        let exe = linked(&ctx, "", &inputs);
        assert_eq!(exe.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 2);
        assert_eq!(run(&ctx, &exe, "triple_plus_one"), expect(|x| x * 3 + 1));
        assert_eq!(run(&ctx, &exe, "call_then_add"), expect(|x| x * 3 + 11));
    }
}
