//! Kernels that call kernels across clCompileProgram/clLinkProgram (issue 13, item 1): a
//! kernel called from another kernel is an ordinary function call (OpenCL C 6.9: "a kernel
//! function ... can be called from another kernel function like a regular function"), and
//! both kernels stay enqueueable. Also the invalid links: an undefined symbol, one symbol
//! defined twice, a library with two kernels of one name: CL_LINK_PROGRAM_FAILURE with a log
//! naming the symbol by its OpenCL C name.
//! Kernels: kernels/source/kcall_callee.cl, kcall_caller.cl, kcall_caller_hdr.cl,
//! kcall_proto.h.

use cts::*;

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
    let callee = ctx.compiled_source("kcall_callee.cl", "", &[]);
    let caller = ctx.compiled_source("kcall_caller.cl", "", &[]);
    for inputs in [[&callee, &caller], [&caller, &callee]] {
        let exe = ctx.linked("", &inputs);
        assert_eq!(exe.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 2);
        assert_eq!(run(&ctx, &exe, "triple_plus_one"), expect(|x| x * 3 + 1));
        assert_eq!(run(&ctx, &exe, "call_then_add"), expect(|x| x * 3 + 11));
    }
}

#[test]
fn kernel_calls_kernel_through_a_library_and_headers() {
    if !isolate("kernel_calls_kernel_through_a_library_and_headers") {
        return;
    }
    let ctx = Context::new();
    let proto = ctx.source_program("kcall_proto.h");
    for opts in ["", "-cl-opt-disable"] {
        let callee = ctx.compiled_source("kcall_callee.cl", opts, &[]);
        let caller = ctx.compiled_source("kcall_caller.cl", opts, &[]);
        let caller_hdr = ctx.compiled_source("kcall_caller_hdr.cl", opts, &[("kcall/proto.h", &proto)]);
        // The callee as a library, linked with each caller; the library also round-trips
        // through its binary.
        let lib = ctx.linked("-create-library", &[&callee]);
        assert_eq!(lib.binary_type(), CL_PROGRAM_BINARY_TYPE_LIBRARY);
        let lib_b = ctx
            .try_program_binary(&lib.binary())
            .unwrap_or_else(|e| panic!("library binary: {}", err_name(e)));
        for library in [&lib, &lib_b] {
            let exe = ctx.linked("", &[&caller, library]);
            assert_eq!(run(&ctx, &exe, "call_then_add"), expect(|x| x * 3 + 11), "{opts:?}");
            assert_eq!(run(&ctx, &exe, "triple_plus_one"), expect(|x| x * 3 + 1), "{opts:?}");
            let exe = ctx.linked("", &[library, &caller_hdr]);
            assert_eq!(
                run(&ctx, &exe, "call_then_double"),
                expect(|x| (x * 3 + 1) * 2),
                "{opts:?}"
            );
        }
        // Both callers and the callee: three kernels, each enqueueable.
        let exe = ctx.linked("", &[&caller_hdr, &callee, &caller]);
        assert_eq!(exe.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 3);
        assert_eq!(run(&ctx, &exe, "call_then_double"), expect(|x| (x * 3 + 1) * 2));
        assert_eq!(run(&ctx, &exe, "call_then_add"), expect(|x| x * 3 + 11));
        assert_eq!(run(&ctx, &exe, "triple_plus_one"), expect(|x| x * 3 + 1));
        // A library of the callers, which leaves the kernel they call unresolved, then an
        // executable of that library and the callee.
        let callers = ctx.linked("-create-library", &[&caller, &caller_hdr]);
        let exe = ctx.linked("", &[&callers, &callee]);
        assert_eq!(run(&ctx, &exe, "call_then_add"), expect(|x| x * 3 + 11));
        // The executable's binary builds and runs too.
        let exe_b = ctx.try_program_binary(&exe.binary()).unwrap();
        assert_eq!(exe_b.build(""), CL_SUCCESS, "{}", exe_b.build_log());
        assert_eq!(run(&ctx, &exe_b, "call_then_double"), expect(|x| (x * 3 + 1) * 2));
    }
}

/// Expects clLinkProgram of `inputs` to fail with CL_LINK_PROGRAM_FAILURE and, when a program
/// comes back, a log naming `symbol`.
fn link_fails_naming(ctx: &Context, options: &str, inputs: &[&Program], symbol: &str) {
    let (p, err) = ctx.link(options, inputs);
    check_err!(
        err,
        CL_LINK_PROGRAM_FAILURE,
        format!("link {options:?} expected to fail on {symbol}")
    );
    if let Some(p) = p {
        assert_eq!(p.build_status(), CL_BUILD_ERROR);
        let log = p.build_log();
        assert!(log.contains(symbol), "the log names {symbol}:\n{log}");
        assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_NONE);
    }
}

#[test]
fn invalid_links_name_the_symbol() {
    if !isolate("invalid_links_name_the_symbol") {
        return;
    }
    let ctx = Context::new();
    // Undefined: the caller without the kernel it calls.
    let caller = ctx.compiled_source("kcall_caller.cl", "", &[]);
    link_fails_naming(&ctx, "", &[&caller], "triple_plus_one");
    // Duplicate: a function defined by two programs, in an executable and in a library.
    let a = ctx.compiled_source("dup_symbol_a.cl", "", &[]);
    let b = ctx.compiled_source("dup_symbol_b.cl", "", &[]);
    link_fails_naming(&ctx, "", &[&a, &b], "duplicate_helper");
    link_fails_naming(&ctx, "-create-library", &[&b, &a], "duplicate_helper");
    // A kernel defined twice: in one library, and in two libraries linked together, and a
    // kernel object linked with a library that has it already.
    let k1 = ctx.compiled_source("dup_kernel.cl", "", &[]);
    let k2 = ctx.compiled_source("dup_kernel.cl", "-cl-opt-disable", &[]);
    link_fails_naming(&ctx, "-create-library", &[&k1, &k2], "twice_defined_kernel");
    let lib1 = ctx.linked("-create-library", &[&k1]);
    let lib2 = ctx.linked("-create-library", &[&k2]);
    link_fails_naming(&ctx, "", &[&lib1, &lib2], "twice_defined_kernel");
    link_fails_naming(&ctx, "", &[&k2, &lib1], "twice_defined_kernel");
    // The inputs are untouched: each still links alone.
    let exe = ctx.linked("", &[&lib1]);
    let q = ctx.queue();
    let buf = ctx.buffer(16);
    let k = exe.kernel("twice_defined_kernel");
    k.arg_mem(0, &buf);
    q.run(&k, &[], &[4], &[]);
    assert_eq!(from_bytes::<i32>(&q.read(&buf, 0, 16)), [5; 4]);
}
