//! Pipes (issue 17 item 5): clCreatePipe and clGetPipeInfo with their errors, pipes as memory
//! objects and as kernel arguments, and the pipe built-ins in kernels: read_pipe/write_pipe with
//! and without reservations over every scalar and vector size (and a struct), work-group and
//! sub-group reservations, get_pipe_num_packets/get_pipe_max_packets, read on empty and write
//! on full, checked against a host model of the pipe (which packets, how many, which
//! reservations hold). Pipes are unordered between work-items, so contents are compared as
//! multisets of packets.
//!
//! Kernels: kernels/pipes/types.cl, kernels/pipes/groups.cl (OpenCL C), kernels/pipes/*.spvasm
//! (SPIR-V, two of them invalid on purpose).

use cts::*;

mod spirv_asm;
use std::ptr;

const OPTIONS: &str = "-cl-std=CL3.0";

fn supported() -> bool {
    let yes: cl_bool = device_info(CL_DEVICE_PIPE_SUPPORT);
    if wanted_platform_name() == "Clift" {
        assert_eq!(yes, CL_TRUE, "Clift reports pipe support");
    }
    if yes == CL_FALSE {
        eprintln!("skipped: no pipes");
    }
    yes == CL_TRUE
}

fn try_pipe(
    ctx: cl_context,
    flags: cl_mem_flags,
    packet: cl_uint,
    max: cl_uint,
    props: *const cl_pipe_properties,
) -> Result<Mem, cl_int> {
    let mut err = 0;
    let m = unsafe { clCreatePipe(ctx, flags, packet, max, props, &mut err) };
    if err != CL_SUCCESS {
        assert!(m.is_null(), "a failed clCreatePipe returned a handle");
        return Err(err);
    }
    assert!(!m.is_null());
    Ok(Mem(m))
}

fn pipe(ctx: &Context, packet: usize, max: usize) -> Mem {
    try_pipe(ctx.0, 0, packet as cl_uint, max as cl_uint, ptr::null())
        .unwrap_or_else(|e| panic!("clCreatePipe({packet}, {max}): {}", err_name(e)))
}

fn pipe_info<T: Copy + Default>(m: &Mem, param: cl_pipe_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetPipeInfo(m.0, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetPipeInfo({param:#x}): {}", err_name(e)))
}

fn build(ctx: &Context, file: &str, options: &str) -> Program {
    let p = ctx.program_source(&kernel_text(file));
    let err = p.build(options);
    assert_eq!(
        err,
        CL_SUCCESS,
        "clBuildProgram({file}): {}\nlog:\n{}",
        err_name(err),
        p.build_log()
    );
    p
}

fn spirv(name: &str) -> Vec<u8> {
    spirv_asm::spirv(&format!("pipes/{name}"))
}

fn has_extension(name: &str) -> bool {
    device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == name)
}

/// The packets of `data` (`size` bytes each), sorted: a multiset to compare.
fn packets(data: &[u8], size: usize) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = data.chunks(size).map(<[u8]>::to_vec).collect();
    v.sort();
    v
}

fn ints(q: &Queue, m: &Mem, n: usize) -> Vec<i32> {
    from_bytes(&q.read(m, 0, 4 * n))
}

fn counts(ctx: &Context, q: &Queue, p: &Program, pipe: &Mem) -> (u32, u32) {
    let k = p.kernel("counts");
    let out = ctx.buffer(8);
    k.arg_mem(0, pipe);
    k.arg_mem(1, &out);
    q.run(&k, &[], &[1], &[]);
    let v: Vec<u32> = from_bytes(&q.read(&out, 0, 8));
    (v[0], v[1])
}

#[test]
fn device_reports_pipe_limits() {
    if !supported() {
        return;
    }
    let max_args: cl_uint = device_info(CL_DEVICE_MAX_PIPE_ARGS);
    let reservations: cl_uint = device_info(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS);
    let packet: cl_uint = device_info(CL_DEVICE_PIPE_MAX_PACKET_SIZE);
    // OpenCL 3.0 Table 5 minimums for a device that supports pipes.
    assert!(max_args >= 16, "CL_DEVICE_MAX_PIPE_ARGS {max_args}");
    assert!(
        reservations >= 1,
        "CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS {reservations}"
    );
    assert!(packet >= 1024, "CL_DEVICE_PIPE_MAX_PACKET_SIZE {packet}");
    let features = device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES).unwrap();
    let named: Vec<cl_name_version> = bytes_to_vec(&features);
    let has = named.iter().any(|nv| {
        let name: Vec<u8> = nv.name.iter().take_while(|c| **c != 0).copied().collect();
        name == b"__opencl_c_pipes"
    });
    assert!(has, "__opencl_c_pipes is listed in CL_DEVICE_OPENCL_C_FEATURES");
}

#[test]
fn create_pipe_and_query_it() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let p = pipe(&ctx, 12, 1000);
    assert_eq!(pipe_info::<cl_uint>(&p, CL_PIPE_PACKET_SIZE), 12);
    assert_eq!(pipe_info::<cl_uint>(&p, CL_PIPE_MAX_PACKETS), 1000);
    let mut ret = 99usize;
    let err = unsafe { clGetPipeInfo(p.0, CL_PIPE_PROPERTIES, 0, ptr::null_mut(), &mut ret) };
    assert_eq!(err, CL_SUCCESS);
    assert_eq!(ret, 0, "CL_PIPE_PROPERTIES of a pipe created without properties");
    // A pipe is a memory object.
    assert_eq!(mem_info::<cl_mem_object_type>(p.0, CL_MEM_TYPE), CL_MEM_OBJECT_PIPE);
    assert_eq!(
        mem_info::<cl_mem_flags>(p.0, CL_MEM_FLAGS),
        CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
        "flags 0 select the default"
    );
    assert!(mem_info::<usize>(p.0, CL_MEM_SIZE) >= 12 * 1000);
    assert_eq!(mem_info::<cl_context>(p.0, CL_MEM_CONTEXT), ctx.0);
    assert_eq!(mem_info::<cl_uint>(p.0, CL_MEM_REFERENCE_COUNT), 1);
    // Explicit flags are kept.
    for flags in [
        CL_MEM_READ_WRITE,
        CL_MEM_HOST_NO_ACCESS,
        CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
    ] {
        let p = try_pipe(ctx.0, flags, 4, 1, ptr::null()).unwrap();
        assert_eq!(mem_info::<cl_mem_flags>(p.0, CL_MEM_FLAGS), flags);
    }
    // The largest packet the device takes.
    let max: cl_uint = device_info(CL_DEVICE_PIPE_MAX_PACKET_SIZE);
    let big = try_pipe(ctx.0, 0, max, 3, ptr::null()).unwrap();
    assert_eq!(pipe_info::<cl_uint>(&big, CL_PIPE_PACKET_SIZE), max);
}

#[test]
fn create_pipe_errors() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let max: cl_uint = device_info(CL_DEVICE_PIPE_MAX_PACKET_SIZE);
    let e = |flags, packet, n, props| try_pipe(ctx.0, flags, packet, n, props).err();
    // "CL_INVALID_PIPE_SIZE if pipe_packet_size is 0 or ... exceeds
    // CL_DEVICE_PIPE_MAX_PACKET_SIZE ... or if pipe_max_packets is 0."
    assert_eq!(e(0, 0, 16, ptr::null()), Some(CL_INVALID_PIPE_SIZE));
    assert_eq!(e(0, max + 1, 16, ptr::null()), Some(CL_INVALID_PIPE_SIZE));
    assert_eq!(e(0, cl_uint::MAX, 16, ptr::null()), Some(CL_INVALID_PIPE_SIZE));
    assert_eq!(e(0, 4, 0, ptr::null()), Some(CL_INVALID_PIPE_SIZE));
    // "CL_INVALID_VALUE if values specified in flags are not as defined above": only
    // CL_MEM_READ_WRITE and CL_MEM_HOST_NO_ACCESS.
    for flags in [
        CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,
        CL_MEM_USE_HOST_PTR,
        CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_COPY_HOST_PTR,
        CL_MEM_HOST_READ_ONLY,
        CL_MEM_HOST_WRITE_ONLY,
        CL_MEM_KERNEL_READ_AND_WRITE,
        CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
        1 << 40,
    ] {
        assert_eq!(e(flags, 4, 16, ptr::null()), Some(CL_INVALID_VALUE), "flags {flags:#x}");
    }
    // "CL_INVALID_VALUE if properties is not NULL" (even an empty list).
    let props: [cl_pipe_properties; 1] = [0];
    assert_eq!(e(0, 4, 16, props.as_ptr()), Some(CL_INVALID_VALUE));
    // "CL_INVALID_CONTEXT if context is not a valid context."
    let buf = ctx.buffer(64);
    assert_eq!(
        try_pipe(ptr::null_mut(), 0, 4, 16, ptr::null()).err(),
        Some(CL_INVALID_CONTEXT)
    );
    assert_eq!(
        try_pipe(buf.0 as cl_context, 0, 4, 16, ptr::null()).err(),
        Some(CL_INVALID_CONTEXT)
    );
    // More packets than memory: an allocation failure, not a crash.
    assert_eq!(
        e(0, max, cl_uint::MAX, ptr::null()),
        Some(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    );
}

#[test]
fn get_pipe_info_errors() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let p = pipe(&ctx, 4, 8);
    let buf = ctx.buffer(64);
    let mut v = 0u32;
    let q = |m: cl_mem, param, size, out: *mut c_void| unsafe { clGetPipeInfo(m, param, size, out, ptr::null_mut()) };
    let out = &mut v as *mut u32 as *mut c_void;
    // "CL_INVALID_MEM_OBJECT if pipe is a not a valid pipe object": a buffer, an image, NULL.
    assert_eq!(q(buf.0, CL_PIPE_PACKET_SIZE, 4, out), CL_INVALID_MEM_OBJECT);
    assert_eq!(q(ptr::null_mut(), CL_PIPE_PACKET_SIZE, 4, out), CL_INVALID_MEM_OBJECT);
    assert_eq!(q(ctx.0 as cl_mem, CL_PIPE_PACKET_SIZE, 4, out), CL_INVALID_MEM_OBJECT);
    // "CL_INVALID_VALUE if param_name is not valid, or if size in bytes specified by
    // param_value_size is < size of return type ... and param_value is not NULL."
    assert_eq!(q(p.0, CL_MEM_SIZE, 8, out), CL_INVALID_VALUE);
    assert_eq!(q(p.0, CL_PIPE_MAX_PACKETS, 2, out), CL_INVALID_VALUE);
    assert_eq!(q(p.0, CL_PIPE_MAX_PACKETS, 4, out), CL_SUCCESS);
    assert_eq!(v, 8);
    // Buffer commands do not take a pipe.
    let queue = ctx.queue();
    let mut host = [0u8; 4];
    let err = unsafe {
        clEnqueueReadBuffer(
            queue.0,
            p.0,
            CL_TRUE,
            0,
            4,
            host.as_mut_ptr() as *mut c_void,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    assert_eq!(err, CL_INVALID_MEM_OBJECT, "clEnqueueReadBuffer on a pipe");
}

#[test]
fn pipe_kernel_arguments_take_pipes_only() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let p = build(&ctx, "pipes/groups.cl", &format!("{OPTIONS} -cl-kernel-arg-info"));
    let k = p.kernel("wg_write");
    let pipe_obj = pipe(&ctx, 4, 64);
    let buf = ctx.buffer(256);
    let set = |i: cl_uint, size: usize, v: *const c_void| unsafe { clSetKernelArg(k.0, i, size, v) };
    let mem = |m: &Mem| &m.0 as *const cl_mem as *const c_void;
    let cl_mem_size = std::mem::size_of::<cl_mem>();
    assert_eq!(set(1, cl_mem_size, mem(&pipe_obj)), CL_SUCCESS);
    // A buffer where a pipe is expected, a pipe where a buffer is expected.
    assert_eq!(set(1, cl_mem_size, mem(&buf)), CL_INVALID_MEM_OBJECT);
    assert_eq!(set(0, cl_mem_size, mem(&pipe_obj)), CL_INVALID_MEM_OBJECT);
    assert_eq!(set(0, cl_mem_size, mem(&buf)), CL_SUCCESS);
    // No pipe at all, or a size that is not sizeof(cl_mem).
    assert_eq!(set(1, cl_mem_size, ptr::null()), CL_INVALID_MEM_OBJECT);
    let null: cl_mem = ptr::null_mut();
    assert_eq!(
        set(1, cl_mem_size, &null as *const cl_mem as *const c_void),
        CL_INVALID_MEM_OBJECT
    );
    assert_eq!(set(1, 4, mem(&pipe_obj)), CL_INVALID_ARG_SIZE);
    // A pipe of another context.
    let other = Context::new();
    let foreign = pipe(&other, 4, 64);
    assert_eq!(set(1, cl_mem_size, mem(&foreign)), CL_INVALID_CONTEXT);
    // Argument info says pipe (a cl_bitfield in cl.h, 64 bits).
    let qual: cl_ulong =
        info_scalar(|s, v, r| unsafe { clGetKernelArgInfo(k.0, 1, CL_KERNEL_ARG_TYPE_QUALIFIER, s, v, r) }).unwrap();
    assert_eq!(
        qual & CL_KERNEL_ARG_TYPE_PIPE as cl_ulong,
        CL_KERNEL_ARG_TYPE_PIPE as cl_ulong
    );
}

/// Every type the transfers run over: (OpenCL C name, bytes of one packet).
fn all_types() -> Vec<(String, usize)> {
    let mut bases = vec![
        ("char", 1),
        ("uchar", 1),
        ("short", 2),
        ("int", 4),
        ("uint", 4),
        ("long", 8),
        ("float", 4),
    ];
    if has_extension("cl_khr_fp64") {
        bases.push(("double", 8));
    }
    if has_extension("cl_khr_fp16") {
        bases.push(("half", 2));
    }
    let mut out = Vec::new();
    for (b, size) in bases {
        for n in [1usize, 2, 3, 4, 8, 16] {
            let name = if n == 1 { b.to_string() } else { format!("{b}{n}") };
            // A 3-component vector occupies four components.
            out.push((name, size * if n == 3 { 4 } else { n }));
        }
    }
    out.push(("Record".to_string(), 16));
    out
}

#[test]
fn producers_and_consumers_over_every_type_size() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = build(&ctx, "pipes/types.cl", OPTIONS);
    let n = 1000usize;
    for (seed, (ty, size)) in all_types().into_iter().enumerate() {
        let src = pattern(n * size, seed as u64 + 1);
        let srcb = ctx.buffer_from(&src);
        let dstb = ctx.buffer(n * size);
        let st = ctx.buffer(4 * n);
        // A capacity that is not a power of two.
        let p = pipe(&ctx, size, n + 3);

        // Plain write_pipe / read_pipe: every call succeeds, nothing is lost or duplicated.
        let w = prog.kernel(&format!("write_plain_{ty}"));
        w.arg_mem(0, &srcb);
        w.arg_mem(1, &p);
        w.arg_mem(2, &st);
        q.run(&w, &[], &[n], &[]);
        assert!(ints(&q, &st, n).iter().all(|&s| s == 0), "{ty}: write_pipe failed");
        let r = prog.kernel(&format!("read_plain_{ty}"));
        r.arg_mem(0, &p);
        r.arg_mem(1, &dstb);
        r.arg_mem(2, &st);
        q.run(&r, &[], &[n], &[]);
        assert!(ints(&q, &st, n).iter().all(|&s| s == 0), "{ty}: read_pipe failed");
        let dst = q.read(&dstb, 0, n * size);
        assert!(
            packets(&dst, size) == packets(&src, size),
            "{ty}: plain transfer changed the packets"
        );
        // The pipe is empty again: reads fail with a negative value.
        q.run(&r, &[], &[7], &[]);
        assert!(
            ints(&q, &st, 7).iter().all(|&s| s < 0),
            "{ty}: read_pipe on an empty pipe"
        );

        // Reservations of two packets per work-item.
        let src2 = pattern(n * size, seed as u64 + 1000);
        q.write(&srcb, 0, &src2);
        let w = prog.kernel(&format!("write_res_{ty}"));
        w.arg_mem(0, &srcb);
        w.arg_mem(1, &p);
        w.arg_mem(2, &st);
        q.run(&w, &[], &[n / 2], &[]);
        assert!(
            ints(&q, &st, n / 2).iter().all(|&s| s == 0),
            "{ty}: reserved writes failed"
        );
        let r = prog.kernel(&format!("read_res_{ty}"));
        r.arg_mem(0, &p);
        r.arg_mem(1, &dstb);
        r.arg_mem(2, &st);
        q.run(&r, &[], &[n / 2], &[]);
        assert!(
            ints(&q, &st, n / 2).iter().all(|&s| s == 0),
            "{ty}: reserved reads failed"
        );
        let dst = q.read(&dstb, 0, n * size);
        assert!(
            packets(&dst, size) == packets(&src2, size),
            "{ty}: reserved transfer changed the packets"
        );
    }
}

#[test]
fn write_on_full_and_read_on_empty_count_against_the_model() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let types = build(&ctx, "pipes/types.cl", OPTIONS);
    let groups = build(&ctx, "pipes/groups.cl", OPTIONS);
    let cap = 300usize;
    let p = pipe(&ctx, 4, cap);
    assert_eq!(counts(&ctx, &q, &groups, &p), (0, cap as u32));
    // 1000 writers into 300 slots: exactly 300 succeed, the others get a negative value.
    let n = 1000usize;
    let src: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
    let srcb = ctx.buffer_from(as_bytes(&src));
    let st = ctx.buffer(4 * n);
    let w = types.kernel("write_plain_uint");
    w.arg_mem(0, &srcb);
    w.arg_mem(1, &p);
    w.arg_mem(2, &st);
    q.run(&w, &[], &[n], &[64]);
    let s = ints(&q, &st, n);
    assert_eq!(s.iter().filter(|&&v| v == 0).count(), cap);
    assert!(s.iter().all(|&v| v <= 0), "write_pipe returns 0 or a negative value");
    let mut written: Vec<u32> = (0..n).filter(|&i| s[i] == 0).map(|i| src[i]).collect();
    assert_eq!(counts(&ctx, &q, &groups, &p), (cap as u32, cap as u32));
    // Reservations of two packets fail as a whole when only one is left: fill to cap - 1.
    let r = types.kernel("read_plain_uint");
    let dst = ctx.buffer(4 * n);
    r.arg_mem(0, &p);
    r.arg_mem(1, &dst);
    r.arg_mem(2, &st);
    q.run(&r, &[], &[120], &[]);
    assert!(ints(&q, &st, 120).iter().all(|&v| v == 0));
    let mut read: Vec<u32> = from_bytes(&q.read(&dst, 0, 4 * 120));
    assert_eq!(counts(&ctx, &q, &groups, &p), ((cap - 120) as u32, cap as u32));
    // 119 more slots free... 120 free: 61 two-packet reservations, 60 succeed.
    let wr = types.kernel("write_res_uint");
    let more: Vec<u32> = (0..122u32).map(|i| 100_000 + i).collect();
    q.write(&srcb, 0, as_bytes(&more));
    wr.arg_mem(0, &srcb);
    wr.arg_mem(1, &p);
    wr.arg_mem(2, &st);
    q.run(&wr, &[], &[61], &[]);
    let s2 = ints(&q, &st, 61);
    assert_eq!(s2.iter().filter(|&&v| v == 0).count(), 60);
    for (g, &v) in s2.iter().enumerate() {
        if v == 0 {
            written.extend([more[2 * g], more[2 * g + 1]]);
        }
    }
    assert_eq!(counts(&ctx, &q, &groups, &p), (cap as u32, cap as u32));
    // Read everything (and 50 more, which find the pipe empty).
    q.run(&r, &[], &[cap + 50], &[]);
    let s3 = ints(&q, &st, cap + 50);
    assert_eq!(s3.iter().filter(|&&v| v == 0).count(), cap);
    let got: Vec<u32> = from_bytes(&q.read(&dst, 0, 4 * (cap + 50)));
    read.extend((0..cap + 50).filter(|&i| s3[i] == 0).map(|i| got[i]));
    written.sort_unstable();
    read.sort_unstable();
    assert_eq!(read, written, "the packets read are the packets written");
    assert_eq!(counts(&ctx, &q, &groups, &p), (0, cap as u32));
}

/// Runs a group producer and consumer: returns (ok flags of the writers, of the readers, the
/// values read by readers whose reservation held).
#[allow(clippy::too_many_arguments)]
fn group_round(
    ctx: &Context,
    q: &Queue,
    prog: &Program,
    (write, read): (&str, &str),
    pipe: &Mem,
    src: &[u8],
    elem: usize,
    global: &[usize],
    local: &[usize],
) -> (Vec<i32>, Vec<i32>, Vec<Vec<u8>>) {
    let n: usize = global.iter().product();
    let srcb = ctx.buffer_from(src);
    let dstb = ctx.buffer(n * elem);
    let okw = ctx.buffer(4 * n);
    let okr = ctx.buffer(4 * n);
    let w = prog.kernel(write);
    w.arg_mem(0, &srcb);
    w.arg_mem(1, pipe);
    w.arg_mem(2, &okw);
    q.run(&w, &[], global, local);
    let r = prog.kernel(read);
    r.arg_mem(0, pipe);
    r.arg_mem(1, &dstb);
    r.arg_mem(2, &okr);
    q.run(&r, &[], global, local);
    let okr_v = ints(q, &okr, n);
    let dst = q.read(&dstb, 0, n * elem);
    let got = (0..n)
        .filter(|&i| okr_v[i] == 1)
        .map(|i| dst[i * elem..(i + 1) * elem].to_vec())
        .collect();
    (ints(q, &okw, n), okr_v, got)
}

/// Work-item ids grouped by work-group (local linear order), for 1D and 2D ranges.
fn group_members(global: &[usize], local: &[usize]) -> Vec<Vec<usize>> {
    let (gx, gy) = (global[0], global.get(1).copied().unwrap_or(1));
    let (lx, ly) = (local[0], local.get(1).copied().unwrap_or(1));
    let mut out = Vec::new();
    for by in (0..gy).step_by(ly) {
        for bx in (0..gx).step_by(lx) {
            let mut ids = Vec::new();
            for y in by..by + ly {
                for x in bx..bx + lx {
                    ids.push(y * gx + x);
                }
            }
            out.push(ids);
        }
    }
    out
}

fn check_groups(what: &str, members: &[Vec<usize>], ok: &[i32], expect_groups: usize) {
    let mut held = 0;
    for ids in members {
        let flags: Vec<i32> = ids.iter().map(|&i| ok[i]).collect();
        assert!(
            flags.iter().all(|&f| f == flags[0]),
            "{what}: a group's reservation holds for all of its work-items or none: {flags:?}"
        );
        held += (flags[0] == 1) as usize;
    }
    assert_eq!(held, expect_groups, "{what}: reservations that held");
}

#[test]
fn work_group_reservations() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = build(&ctx, "pipes/groups.cl", OPTIONS);
    // 1D: 10 groups of 64 into 266 slots: 4 group reservations hold (266 / 64), for writing and
    // then for reading.
    let (global, local) = ([640usize], [64usize]);
    let src = pattern(640 * 4, 5);
    let p = pipe(&ctx, 4, 266);
    let (okw, okr, got) = group_round(&ctx, &q, &prog, ("wg_write", "wg_read"), &p, &src, 4, &global, &local);
    let members = group_members(&global, &local);
    check_groups("wg_write", &members, &okw, 4);
    check_groups("wg_read", &members, &okr, 4);
    let mut written: Vec<Vec<u8>> = (0..640)
        .filter(|&i| okw[i] == 1)
        .map(|i| src[i * 4..i * 4 + 4].to_vec())
        .collect();
    let mut got = got;
    written.sort();
    got.sort();
    assert!(got == written, "wg: the packets read are the packets written");
    assert_eq!(counts(&ctx, &q, &prog, &p), (0, 266));

    // 2D groups of 8x4, every reservation holds.
    let (global, local) = ([16usize, 12], [8usize, 4]);
    let src = pattern(16 * 12 * 8, 6);
    let p = pipe(&ctx, 8, 200);
    let (okw, okr, got) = group_round(
        &ctx,
        &q,
        &prog,
        ("wg_write_2d", "wg_read_2d"),
        &p,
        &src,
        8,
        &global,
        &local,
    );
    let members = group_members(&global, &local);
    check_groups("wg_write_2d", &members, &okw, 6);
    check_groups("wg_read_2d", &members, &okr, 6);
    let mut got = got;
    got.sort();
    assert!(
        got == packets(&src, 8),
        "wg 2D: the packets read are the packets written"
    );
}

#[test]
fn sub_group_reservations() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = build(&ctx, "pipes/groups.cl", OPTIONS);
    // Groups of 80 work-items: sub-groups of 32, 32 and 16 (get_sub_group_size), each reserving
    // its own size. 3 groups = 9 sub-group reservations, 240 packets; 200 slots: the
    // reservations that hold are a matter of order, but their packets fit.
    for (cap, all) in [(240usize, true), (200, false)] {
        let (global, local) = ([240usize], [80usize]);
        let src = pattern(240 * 4, 7);
        let p = pipe(&ctx, 4, cap);
        let (okw, okr, mut got) = group_round(&ctx, &q, &prog, ("sg_write", "sg_read"), &p, &src, 4, &global, &local);
        // Sub-groups as members.
        let mut members = Vec::new();
        for g in 0..3 {
            for (start, len) in [(0, 32), (32, 32), (64, 16)] {
                members.push((g * 80 + start..g * 80 + start + len).collect::<Vec<_>>());
            }
        }
        let held: usize = members
            .iter()
            .map(|ids| {
                let f: Vec<i32> = ids.iter().map(|&i| okw[i]).collect();
                assert!(
                    f.iter().all(|&x| x == f[0]),
                    "sub-group reservations are all or nothing: {f:?}"
                );
                if f[0] == 1 {
                    ids.len()
                } else {
                    0
                }
            })
            .sum();
        if all {
            assert_eq!(held, 240);
            assert!(okr.iter().all(|&x| x == 1));
        } else {
            assert!(
                held <= cap && held >= cap - 32,
                "packets reserved by sub-groups: {held}"
            );
        }
        let mut written: Vec<Vec<u8>> = (0..240)
            .filter(|&i| okw[i] == 1)
            .map(|i| src[i * 4..i * 4 + 4].to_vec())
            .collect();
        written.sort();
        got.sort();
        // Readers take whole sub-group reservations too: what they got was written, and at
        // most one sub-group's worth is left behind.
        assert!(got.len() <= written.len() && written.len() - got.len() < 32);
        let mut rest = written.clone();
        for g in &got {
            let at = rest.binary_search(g).expect("a packet read was written");
            rest.remove(at);
        }
        assert_eq!(counts(&ctx, &q, &prog, &p).0 as usize, rest.len());
    }
}

#[test]
fn sub_group_reservations_in_divergent_sub_groups() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = build(&ctx, "pipes/groups.cl", OPTIONS);
    // Groups of 128: sub-groups 0 and 2 write (64 packets per group), then every sub-group
    // tries to read 32: exactly half of them find packets.
    let (global, local) = ([512usize], [128usize]);
    let src = pattern(512 * 4, 8);
    let p = pipe(&ctx, 4, 512);
    let (okw, okr, mut got) = group_round(
        &ctx,
        &q,
        &prog,
        ("sg_write_even", "sg_read"),
        &p,
        &src,
        4,
        &global,
        &local,
    );
    for (i, &ok) in okw.iter().enumerate() {
        assert_eq!(ok, ((i % 128) / 32 % 2 == 0) as i32, "writer {i}");
    }
    assert_eq!(okr.iter().filter(|&&x| x == 1).count(), 256);
    let mut written: Vec<Vec<u8>> = (0..512)
        .filter(|&i| okw[i] == 1)
        .map(|i| src[i * 4..i * 4 + 4].to_vec())
        .collect();
    written.sort();
    got.sort();
    assert!(got == written, "the packets read are the packets written");
    assert_eq!(counts(&ctx, &q, &prog, &p), (0, 512));
}

#[test]
fn many_outstanding_reservations_per_group() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let groups = build(&ctx, "pipes/groups.cl", OPTIONS);
    let types = build(&ctx, "pipes/types.cl", OPTIONS);
    let n = 256usize;
    let total: usize = (0..n).map(|g| g % 4 + 1).sum();
    let p = pipe(&ctx, 4, total);
    let ok = ctx.buffer(4 * n);
    let k = groups.kernel("many_reservations");
    k.arg_mem(0, &p);
    k.arg_mem(1, &ok);
    q.run(&k, &[], &[n], &[64]);
    assert!(ints(&q, &ok, n).iter().all(|&v| v == 1));
    assert_eq!(counts(&ctx, &q, &groups, &p), (total as u32, total as u32));
    let r = types.kernel("read_plain_uint");
    let dst = ctx.buffer(4 * total);
    let st = ctx.buffer(4 * total);
    r.arg_mem(0, &p);
    r.arg_mem(1, &dst);
    r.arg_mem(2, &st);
    q.run(&r, &[], &[total], &[]);
    assert!(ints(&q, &st, total).iter().all(|&v| v == 0));
    let mut got: Vec<u32> = from_bytes(&q.read(&dst, 0, 4 * total));
    got.sort_unstable();
    let mut want: Vec<u32> = (0..n as u32)
        .flat_map(|g| std::iter::repeat_n(g, g as usize % 4 + 1))
        .collect();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn pipes_in_spirv() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.program_il(&spirv("copy"));
    let err = prog.build("");
    assert_eq!(err, CL_SUCCESS, "{}", prog.build_log());
    let n = 500usize;
    let src: Vec<u32> = (0..n as u32).map(|i| i ^ 0x5a5a).collect();
    let srcb = ctx.buffer_from(as_bytes(&src));
    let st = ctx.buffer(4 * n);
    let p = pipe(&ctx, 4, 400);
    let w = prog.kernel("produce");
    w.arg_mem(0, &srcb);
    w.arg_mem(1, &p);
    w.arg_mem(2, &st);
    q.run(&w, &[], &[n], &[]);
    let s = ints(&q, &st, n);
    assert_eq!(s.iter().filter(|&&v| v == 0).count(), 400);
    let c = prog.kernel("counts");
    let out = ctx.buffer(8);
    c.arg_mem(0, &p);
    c.arg_mem(1, &out);
    q.run(&c, &[], &[1], &[]);
    assert_eq!(from_bytes::<u32>(&q.read(&out, 0, 8)), [400, 400]);
    let r = prog.kernel("consume");
    let dst = ctx.buffer(4 * n);
    r.arg_mem(0, &p);
    r.arg_mem(1, &dst);
    r.arg_mem(2, &st);
    q.run(&r, &[], &[n], &[]);
    let s2 = ints(&q, &st, n);
    // 0: read; 1: no reservation (empty).
    assert_eq!(s2.iter().filter(|&&v| v == 0).count(), 400);
    assert_eq!(s2.iter().filter(|&&v| v == 1).count(), 100);
    let got: Vec<u32> = from_bytes(&q.read(&dst, 0, 4 * n));
    let mut got: Vec<u32> = (0..n).filter(|&i| s2[i] == 0).map(|i| got[i]).collect();
    let mut want: Vec<u32> = (0..n).filter(|&i| s[i] == 0).map(|i| src[i]).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn malformed_pipe_instructions_are_rejected_naming_them() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    for (file, op) in [("read_write_only", "OpReadPipe"), ("bad_packet_size", "OpWritePipe")] {
        let p = ctx.program_il(&spirv(file));
        assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE, "{file}");
        let log = p.build_log();
        assert!(log.contains(op), "{file}: the log names {op}: {log}");
        assert_eq!(p.try_kernel("bad").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    }
}
