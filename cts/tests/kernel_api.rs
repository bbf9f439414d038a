//! Kernel objects and ND-range execution at the API level: clCreateKernel, clSetKernelArg and
//! clEnqueueNDRangeKernel errors, clGetKernelInfo and clGetKernelWorkGroupInfo, clEnqueueTask,
//! and a faulty kernel (division by zero, oversized shifts, out-of-range float-to-int) that
//! must not take the host down. Kernels: kernels/barrier.cl, kernels/workitem.cl,
//! kernels/fault.spvasm.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::ptr;

#[test]
fn create_kernel_errors() {
    if !isolate("create_kernel_errors") {
        return;
    }
    let ctx = Context::new();
    let prog = ctx.built_program("barrier", &spirv("barrier"));
    assert_eq!(prog.try_kernel("no_such_kernel").err(), Some(CL_INVALID_KERNEL_NAME));
    assert_eq!(prog.try_kernel("").err(), Some(CL_INVALID_KERNEL_NAME));
    let mut err = 0;
    let k = unsafe { clCreateKernel(prog.0, ptr::null(), &mut err) };
    assert!(k.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateKernel(NULL name)");
    // Not built yet: no executable.
    let unbuilt = ctx.program_il(&spirv("barrier"));
    assert_eq!(unbuilt.try_kernel("reduce").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    let mut n: cl_uint = 0;
    check!(
        clCreateKernelsInProgram(unbuilt.0, 0, ptr::null_mut(), &mut n),
        CL_INVALID_PROGRAM_EXECUTABLE
    );
    // clCreateKernelsInProgram on the built program: every kernel.
    ok!(clCreateKernelsInProgram(prog.0, 0, ptr::null_mut(), &mut n));
    assert_eq!(n, 5);
    let mut ks = vec![ptr::null_mut(); n as usize];
    ok!(clCreateKernelsInProgram(prog.0, n, ks.as_mut_ptr(), ptr::null_mut()));
    let mut names: Vec<String> = ks
        .into_iter()
        .map(|k| {
            let k = Kernel(k);
            bytes_to_string(&k.info_bytes(CL_KERNEL_FUNCTION_NAME).unwrap())
        })
        .collect();
    names.sort();
    assert_eq!(names, ["in_function", "many_live", "nested", "reduce", "reverse"]);
}

#[test]
fn set_kernel_arg_errors() {
    if !isolate("set_kernel_arg_errors") {
        return;
    }
    let ctx = Context::new();
    let prog = ctx.built_program("barrier", &spirv("barrier"));
    let k = prog.kernel("reduce"); // (global int *a, global int *o, local int *s)
    let m = ctx.buffer(64);
    let v: cl_int = 0;
    check!(
        clSetKernelArg(
            k.0,
            3,
            std::mem::size_of::<cl_mem>(),
            &m.0 as *const cl_mem as *const c_void
        ),
        CL_INVALID_ARG_INDEX
    );
    check!(
        clSetKernelArg(k.0, 0, 4, &m.0 as *const cl_mem as *const c_void),
        CL_INVALID_ARG_SIZE
    );
    // A __local argument with a non-NULL value, and with size 0.
    check!(
        clSetKernelArg(k.0, 2, 64, &v as *const cl_int as *const c_void),
        CL_INVALID_ARG_VALUE
    );
    check!(clSetKernelArg(k.0, 2, 0, ptr::null()), CL_INVALID_ARG_SIZE);
    // A handle that is not a memory object (a context) for a buffer argument. (PoCL 3.1
    // deviates: it accepts it.)
    check!(
        clSetKernelArg(
            k.0,
            0,
            std::mem::size_of::<cl_mem>(),
            &ctx.0 as *const cl_context as *const c_void
        ),
        CL_INVALID_MEM_OBJECT
    );
    // NULL buffer value: allowed (a NULL pointer argument).
    let null_mem: cl_mem = ptr::null_mut();
    ok!(clSetKernelArg(
        k.0,
        0,
        std::mem::size_of::<cl_mem>(),
        &null_mem as *const cl_mem as *const c_void
    ));
    ok!(clSetKernelArg(k.0, 0, std::mem::size_of::<cl_mem>(), ptr::null()));
    // By-value argument of the wrong size, and with a NULL value.
    let kn = prog.kernel("nested"); // (global int*, global int*, int outer, int inner)
    let big: cl_long = 1;
    check!(
        clSetKernelArg(kn.0, 2, 8, &big as *const cl_long as *const c_void),
        CL_INVALID_ARG_SIZE
    );
    check!(clSetKernelArg(kn.0, 2, 4, ptr::null()), CL_INVALID_ARG_VALUE);
    check!(
        clSetKernelArg(ptr::null_mut(), 0, 4, &v as *const cl_int as *const c_void),
        CL_INVALID_KERNEL
    );
}

#[test]
fn enqueue_ndrange_errors() {
    if !isolate("enqueue_ndrange_errors") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("barrier", &spirv("barrier"));
    let k = prog.kernel("reverse"); // (global const int *a, global int *o), local int t[256]
                                    // Arguments not set.
    assert_eq!(q.try_nd_range(&k, &[], &[64], &[]), CL_INVALID_KERNEL_ARGS);
    let m = ctx.buffer(1 << 16);
    k.arg_mem(0, &m);
    assert_eq!(q.try_nd_range(&k, &[], &[64], &[]), CL_INVALID_KERNEL_ARGS);
    k.arg_mem(1, &m);
    // Work dimension 0 and 4.
    let g = [64usize, 1, 1, 1];
    for dim in [0u32, 4] {
        check!(
            clEnqueueNDRangeKernel(
                q.0,
                k.0,
                dim,
                ptr::null(),
                g.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            CL_INVALID_WORK_DIMENSION
        );
    }
    // A work-group larger than the kernel's maximum.
    let kmax: size_t = k.work_group_info(CL_KERNEL_WORK_GROUP_SIZE);
    let dmax: size_t = device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert!(kmax >= 1 && kmax <= dmax);
    let items: Vec<size_t> = bytes_to_vec(&device_bytes(device(), CL_DEVICE_MAX_WORK_ITEM_SIZES).unwrap());
    // Split over two dimensions so no single dimension exceeds MAX_WORK_ITEM_SIZES.
    let (l0, l1) = if kmax < items[0] {
        (kmax + 1, 1)
    } else {
        (kmax.div_ceil(2), 3)
    };
    assert_eq!(
        q.try_nd_range(&k, &[], &[l0 * 2, l1], &[l0, l1]),
        CL_INVALID_WORK_GROUP_SIZE
    );
    let (d0, d1) = if dmax <= items[0] {
        (dmax, 2)
    } else {
        (dmax.div_ceil(2), 3)
    };
    assert_eq!(
        q.try_nd_range(&k, &[], &[d0 * 2, d1], &[d0, d1]),
        CL_INVALID_WORK_GROUP_SIZE
    );
    // A local size beyond CL_DEVICE_MAX_WORK_ITEM_SIZES in one dimension.
    let over = items[1] + 1;
    let err = q.try_nd_range(&k, &[], &[1, over, 1], &[1, over, 1]);
    if items[1] < kmax {
        assert_eq!(err, CL_INVALID_WORK_ITEM_SIZE);
    } else {
        // The group is also over the maximum work-group size: either error describes it.
        assert!(
            err == CL_INVALID_WORK_ITEM_SIZE || err == CL_INVALID_WORK_GROUP_SIZE,
            "local size over MAX_WORK_ITEM_SIZES: {}",
            err_name(err)
        );
    }
    // Global offset + global size beyond size_t.
    assert_eq!(
        q.try_nd_range(&k, &[usize::MAX - 10], &[64], &[]),
        CL_INVALID_GLOBAL_OFFSET
    );
    // A range of more work-items than size_t can count (each size alone is valid), with and
    // without a local size: refused, not run as a wrapped-around count of work-groups.
    let huge = 1usize << 40;
    assert_eq!(
        q.try_nd_range(&k, &[], &[huge, huge, huge], &[1, 1, 1]),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    assert_eq!(q.try_nd_range(&k, &[], &[huge, huge], &[]), CL_INVALID_GLOBAL_WORK_SIZE);
    // Queue and kernel from different contexts.
    let ctx2 = Context::new();
    let q2 = ctx2.queue();
    assert_eq!(q2.try_nd_range(&k, &[], &[64], &[]), CL_INVALID_CONTEXT);
    // Non-uniform groups in a program built with -cl-uniform-work-group-size.
    let up = ctx.program_il(&spirv("barrier"));
    assert_eq!(
        up.build("-cl-uniform-work-group-size"),
        CL_SUCCESS,
        "{}",
        up.build_log()
    );
    let ku = up.kernel("reverse");
    ku.arg_mem(0, &m);
    ku.arg_mem(1, &m);
    assert_eq!(q.try_nd_range(&ku, &[], &[37], &[8]), CL_INVALID_WORK_GROUP_SIZE);
    // And the good case still works.
    q.run(&k, &[], &[64], &[16]);
    q.run(&ku, &[], &[64], &[16]);
}

#[test]
fn kernel_info_queries() {
    if !isolate("kernel_info_queries") {
        return;
    }
    let ctx = Context::new();
    let prog = ctx.built_program("barrier", &spirv("barrier"));
    let k = prog.kernel("nested");
    assert_eq!(
        bytes_to_string(&k.info_bytes(CL_KERNEL_FUNCTION_NAME).unwrap()),
        "nested"
    );
    assert_eq!(k.info::<cl_uint>(CL_KERNEL_NUM_ARGS), 4);
    assert_eq!(k.info::<cl_uint>(CL_KERNEL_REFERENCE_COUNT), 1);
    assert_eq!(k.info::<cl_context>(CL_KERNEL_CONTEXT), ctx.0);
    assert_eq!(k.info::<cl_program>(CL_KERNEL_PROGRAM), prog.0);
    bytes_to_string(&k.info_bytes(CL_KERNEL_ATTRIBUTES).unwrap());
    check!(
        clGetKernelInfo(k.0, 0x7777, 0, ptr::null_mut(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let kr = prog.kernel("reduce");
    assert_eq!(kr.info::<cl_uint>(CL_KERNEL_NUM_ARGS), 3);
    // Work-group info.
    let dmax: size_t = device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let wg: size_t = k.work_group_info(CL_KERNEL_WORK_GROUP_SIZE);
    assert!(wg >= 1 && wg <= dmax);
    let cwg: [size_t; 3] = k.work_group_info(CL_KERNEL_COMPILE_WORK_GROUP_SIZE);
    assert_eq!(cwg, [0, 0, 0], "no reqd_work_group_size");
    let mult: size_t = k.work_group_info(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    assert!(mult >= 1 && mult <= wg);
    let _: cl_ulong = k.work_group_info(CL_KERNEL_PRIVATE_MEM_SIZE);
    // Local memory: the 64-int __local array of `nested`; for `reduce` what its __local
    // argument asks for once set.
    let lm: cl_ulong = k.work_group_info(CL_KERNEL_LOCAL_MEM_SIZE);
    assert!(lm >= 256, "CL_KERNEL_LOCAL_MEM_SIZE of nested = {lm}");
    kr.arg_local(2, 1000);
    let lm: cl_ulong = kr.work_group_info(CL_KERNEL_LOCAL_MEM_SIZE);
    assert!(
        lm >= 1000,
        "CL_KERNEL_LOCAL_MEM_SIZE of reduce with a 1000-byte argument = {lm}"
    );
    // GLOBAL_WORK_SIZE is only for custom devices and built-in kernels.
    let mut gws = [0usize; 3];
    check!(
        clGetKernelWorkGroupInfo(
            k.0,
            device(),
            CL_KERNEL_GLOBAL_WORK_SIZE,
            24,
            gws.as_mut_ptr() as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
}

#[test]
fn enqueue_task_runs_one_work_item() {
    if !isolate("enqueue_task_runs_one_work_item") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("workitem", &spirv("workitem"));
    let k = prog.kernel("ids");
    let bo = ctx.buffer_from(&[0xAAu8; 2 * 24 * 8]);
    k.arg_mem(0, &bo);
    let mut e = ptr::null_mut();
    ok!(clEnqueueTask(q.0, k.0, 0, ptr::null(), &mut e));
    let e = Event(e);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE);
    // (PoCL 3.1 deviates: it reports CL_COMMAND_NDRANGE_KERNEL.)
    assert_eq!(e.command_type(), CL_COMMAND_TASK);
    let o: Vec<u64> = from_bytes(&q.read(&bo, 0, 2 * 24 * 8));
    let mut want = [0u64; 24];
    for d in 0..3 {
        want[9 + d] = 1; // local size
        want[12 + d] = 1; // enqueued local size
        want[15 + d] = 1; // groups
    }
    want[21] = 1; // work dim
    assert_eq!(
        &o[..24],
        &want,
        "clEnqueueTask: one work-item, one group, one dimension"
    );
    assert!(
        o[24..].iter().all(|&v| v == 0xAAAA_AAAA_AAAA_AAAA),
        "no second work-item"
    );
}

#[test]
fn faulty_kernel_does_not_kill_the_host() {
    if !isolate("faulty_kernel_does_not_kill_the_host") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("fault", &spirv("fault"));
    let k = prog.kernel("fault");
    let a: [i32; 8] = [7, i32::MIN, 0, -1, 12345, i32::MIN, 1, -8];
    let b: [i32; 8] = [0, -1, 0, 0, 32, -1, 40, 255];
    let f: [f32; 8] = [
        f32::NAN,
        1e20,
        -1e20,
        f32::INFINITY,
        f32::NEG_INFINITY,
        4294967296.0,
        -1.0,
        3e9,
    ];
    let (ba, bb, bf) = (
        ctx.buffer_from(as_bytes(&a)),
        ctx.buffer_from(as_bytes(&b)),
        ctx.buffer_from(as_bytes(&f)),
    );
    let bo = ctx.buffer(8 * 10 * 4);
    for (i, m) in [&ba, &bb, &bf, &bo].iter().enumerate() {
        k.arg_mem(i as cl_uint, m);
    }
    // Results are undefined or implementation-defined; the command completes and the process
    // lives on to run it again.
    for _ in 0..2 {
        let mut e = ptr::null_mut();
        let g = [8usize];
        ok!(clEnqueueNDRangeKernel(
            q.0,
            k.0,
            1,
            ptr::null(),
            g.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            &mut e
        ));
        let e = Event(e);
        e.wait();
        assert_eq!(e.status(), CL_COMPLETE);
        q.read(&bo, 0, 8 * 10 * 4);
    }
    // The queue still works afterwards.
    q.write(&bo, 0, &[1, 2, 3, 4]);
    assert_eq!(q.read(&bo, 0, 4), [1, 2, 3, 4]);
}
