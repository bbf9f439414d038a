//! Native kernels (issue 19): `CL_EXEC_NATIVE_KERNEL` and clEnqueueNativeKernel, with memory
//! objects in the argument block replaced by their host addresses, the block copied at
//! enqueue, queue order and events, sub-buffers and NULL entries, the thread it runs on (a
//! sub-device's own CPUs), and every error of the spec's list.

use cts::*;
use std::ptr;

/// The argument block of `scale`: two buffers (replaced by addresses), a count and a factor.
#[repr(C)]
#[derive(Clone, Copy)]
struct ScaleArgs {
    src: *mut f32,
    dst: *mut f32,
    n: usize,
    factor: f32,
}

unsafe extern "C" fn scale(args: *mut c_void) {
    let a = &*(args as *const ScaleArgs);
    for i in 0..a.n {
        *a.dst.add(i) = *a.src.add(i) * a.factor;
    }
}

/// Adds one to each of `n` ints, or records that it saw a NULL buffer.
#[repr(C)]
struct IncArgs {
    data: *mut i32,
    n: usize,
    saw_null: *mut bool,
}

unsafe extern "C" fn increment(args: *mut c_void) {
    let a = &*(args as *const IncArgs);
    if a.data.is_null() {
        *a.saw_null = true;
        return;
    }
    for i in 0..a.n {
        *a.data.add(i) += 1;
    }
}

/// Records the CPU it ran on and how many CPUs its thread may use.
#[repr(C)]
struct WhereArgs {
    out: *mut i64,
}

unsafe extern "C" fn where_am_i(args: *mut c_void) {
    let a = &*(args as *const WhereArgs);
    let mut set: libc::cpu_set_t = std::mem::zeroed();
    libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
    *a.out = libc::sched_getcpu() as i64;
    *a.out.add(1) = libc::CPU_COUNT(&set) as i64;
}

#[allow(clippy::too_many_arguments)]
unsafe fn enqueue(
    q: &Queue,
    func: Option<unsafe extern "C" fn(*mut c_void)>,
    args: *mut c_void,
    cb: usize,
    mems: &[cl_mem],
    locs: &[*const c_void],
    wait: &[cl_event],
    event: *mut cl_event,
) -> cl_int {
    let (nw, wl) = wait_list(wait);
    clEnqueueNativeKernel(
        q.0,
        func,
        args,
        cb,
        mems.len() as cl_uint,
        if mems.is_empty() { ptr::null() } else { mems.as_ptr() },
        if locs.is_empty() { ptr::null() } else { locs.as_ptr() },
        nw,
        wl,
        event,
    )
}

#[test]
fn device_reports_native_kernels() {
    let caps: cl_device_exec_capabilities = device_info(CL_DEVICE_EXECUTION_CAPABILITIES);
    assert_ne!(caps & CL_EXEC_NATIVE_KERNEL, 0);
    assert_ne!(caps & CL_EXEC_KERNEL, 0);
}

#[test]
fn buffers_become_host_addresses_and_args_are_copied() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 1000;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 100.0).collect();
    let src = ctx.buffer_from(as_bytes(&input));
    let dst = ctx.buffer(n * 4);
    // The block holds the cl_mem handles where the pointers go.
    let mut args = ScaleArgs {
        src: src.0 as *mut f32,
        dst: dst.0 as *mut f32,
        n,
        factor: 3.0,
    };
    let locs = [
        ptr::addr_of!(args.src) as *const c_void,
        ptr::addr_of!(args.dst) as *const c_void,
    ];
    // Held back by a user event, so the block is changed before the function runs: the
    // function must see the copy taken at enqueue.
    let gate = ctx.user_event();
    let mut ev: cl_event = ptr::null_mut();
    let err = unsafe {
        enqueue(
            &q,
            Some(scale),
            &mut args as *mut ScaleArgs as *mut c_void,
            std::mem::size_of::<ScaleArgs>(),
            &[src.0, dst.0],
            &locs,
            &[gate.0],
            &mut ev,
        )
    };
    check_err!(err, CL_SUCCESS, "clEnqueueNativeKernel");
    let ev = Event(ev);
    args.factor = -1.0;
    args.n = 1;
    std::hint::black_box(&mut args);
    assert_eq!(ev.command_type(), CL_COMMAND_NATIVE_KERNEL);
    assert!(ev.status() > CL_RUNNING, "ran before its wait list completed");
    gate.set_status(CL_COMPLETE);
    ev.wait();
    assert_eq!(ev.status(), CL_COMPLETE);
    let out: Vec<f32> = from_bytes(&q.read(&dst, 0, n * 4));
    for i in 0..n {
        assert_eq!(out[i], input[i] * 3.0, "element {i}");
    }
}

#[test]
fn queue_order_sub_buffers_and_null_entries() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 64;
    let start: Vec<i32> = (0..n as i32).collect();
    let buf = ctx.buffer_from(as_bytes(&start));
    // The second half through a sub-buffer: its address is the parent's plus the offset.
    let half = buf.sub(CL_MEM_READ_WRITE, n * 2, n * 2);
    let mut saw_null = false;
    for (mem, count) in [(buf.0, n), (half.0, n / 2), (half.0, n / 2)] {
        let mut args = IncArgs {
            data: mem as *mut i32,
            n: count,
            saw_null: &mut saw_null,
        };
        let locs = [ptr::addr_of!(args.data) as *const c_void];
        let err = unsafe {
            enqueue(
                &q,
                Some(increment),
                &mut args as *mut IncArgs as *mut c_void,
                std::mem::size_of::<IncArgs>(),
                &[mem],
                &locs,
                &[],
                ptr::null_mut(),
            )
        };
        check_err!(err, CL_SUCCESS, "clEnqueueNativeKernel");
    }
    // In order with the other commands of the queue: the read sees all three.
    let got: Vec<i32> = from_bytes(&q.read(&buf, 0, n * 4));
    for i in 0..n {
        let expected = start[i] + if i < n / 2 { 1 } else { 3 };
        assert_eq!(got[i], expected, "element {i}");
    }
    // A NULL entry of mem_list becomes a NULL pointer.
    let mut args = IncArgs {
        data: buf.0 as *mut i32, // replaced by NULL below
        n: 1,
        saw_null: &mut saw_null,
    };
    let locs = [ptr::addr_of!(args.data) as *const c_void];
    let err = unsafe {
        enqueue(
            &q,
            Some(increment),
            &mut args as *mut IncArgs as *mut c_void,
            std::mem::size_of::<IncArgs>(),
            &[ptr::null_mut()],
            &locs,
            &[],
            ptr::null_mut(),
        )
    };
    check_err!(err, CL_SUCCESS, "NULL in mem_list");
    q.finish();
    assert!(saw_null);
}

/// On a sub-device the function runs on that sub-device's pinned worker.
#[test]
fn runs_on_the_queue_device_cpus() {
    let root = device();
    let units: cl_uint = device_info(CL_DEVICE_MAX_COMPUTE_UNITS);
    if units < 2 || std::env::var_os("CLIFT_THREADS").is_some() {
        return;
    }
    let props = [CL_DEVICE_PARTITION_EQUALLY, 1, 0];
    let mut subs = vec![ptr::null_mut(); units as usize];
    ok!(clCreateSubDevices(
        root,
        props.as_ptr(),
        units,
        subs.as_mut_ptr(),
        ptr::null_mut()
    ));
    let mut cpus = Vec::new();
    for &sub in &subs {
        let mut err = 0;
        let ctx = Context(unsafe { clCreateContext(ptr::null(), 1, &sub, None, ptr::null_mut(), &mut err) });
        check_err!(err, CL_SUCCESS, "clCreateContext(sub-device)");
        let q = Queue(unsafe { clCreateCommandQueueWithProperties(ctx.0, sub, ptr::null(), &mut err) });
        check_err!(err, CL_SUCCESS, "queue on a sub-device");
        let out = ctx.buffer(16);
        let mut args = WhereArgs { out: out.0 as *mut i64 };
        let locs = [ptr::addr_of!(args.out) as *const c_void];
        let err = unsafe {
            enqueue(
                &q,
                Some(where_am_i),
                &mut args as *mut WhereArgs as *mut c_void,
                std::mem::size_of::<WhereArgs>(),
                &[out.0],
                &locs,
                &[],
                ptr::null_mut(),
            )
        };
        check_err!(err, CL_SUCCESS, "clEnqueueNativeKernel on a sub-device");
        let got: Vec<i64> = from_bytes(&q.read(&out, 0, 16));
        assert_eq!(got[1], 1, "the function's thread is pinned to one CPU");
        cpus.push(got[0]);
    }
    for s in subs {
        ok!(clReleaseDevice(s));
    }
    cpus.sort();
    cpus.dedup();
    assert_eq!(
        cpus.len(),
        units as usize,
        "each sub-device ran on its own CPU: {cpus:?}"
    );
}

#[test]
fn errors() {
    let ctx = Context::new();
    let q = ctx.queue();
    let buf = ctx.buffer(64);
    let mut block = [0u64; 4];
    block[0] = buf.0 as u64;
    let args = block.as_mut_ptr() as *mut c_void;
    let cb = std::mem::size_of_val(&block);
    let inside = [args as *const c_void];
    let f = Some(increment as unsafe extern "C" fn(*mut c_void));
    let none: Option<unsafe extern "C" fn(*mut c_void)> = None;
    let call = |func, args, cb, n: cl_uint, mems: *const cl_mem, locs: *const *const c_void| unsafe {
        clEnqueueNativeKernel(q.0, func, args, cb, n, mems, locs, 0, ptr::null(), ptr::null_mut())
    };
    let mems = [buf.0];
    check_err!(
        unsafe {
            clEnqueueNativeKernel(
                ptr::null_mut(),
                f,
                args,
                cb,
                0,
                ptr::null(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        CL_INVALID_COMMAND_QUEUE,
        "NULL queue"
    );
    check_err!(
        call(none, args, cb, 0, ptr::null(), ptr::null()),
        CL_INVALID_VALUE,
        "NULL user_func"
    );
    check_err!(
        call(f, ptr::null_mut(), 8, 0, ptr::null(), ptr::null()),
        CL_INVALID_VALUE,
        "NULL args, cb_args > 0"
    );
    check_err!(
        call(f, ptr::null_mut(), 0, 1, mems.as_ptr(), inside.as_ptr()),
        CL_INVALID_VALUE,
        "NULL args, num_mem_objects > 0"
    );
    check_err!(
        call(f, args, 0, 0, ptr::null(), ptr::null()),
        CL_INVALID_VALUE,
        "args with cb_args 0"
    );
    check_err!(
        call(f, args, cb, 1, ptr::null(), inside.as_ptr()),
        CL_INVALID_VALUE,
        "NULL mem_list"
    );
    check_err!(
        call(f, args, cb, 1, mems.as_ptr(), ptr::null()),
        CL_INVALID_VALUE,
        "NULL args_mem_loc"
    );
    check_err!(
        call(f, args, cb, 0, mems.as_ptr(), ptr::null()),
        CL_INVALID_VALUE,
        "mem_list without objects"
    );
    check_err!(
        call(f, args, cb, 0, ptr::null(), inside.as_ptr()),
        CL_INVALID_VALUE,
        "args_mem_loc without objects"
    );
    let not_mem = [q.0 as cl_mem];
    check_err!(
        call(f, args, cb, 1, not_mem.as_ptr(), inside.as_ptr()),
        CL_INVALID_MEM_OBJECT,
        "a queue as a mem object"
    );
    // An image is not a buffer object.
    let format = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1, 0], 0, 0, ptr::null_mut());
    let image = ctx.image(CL_MEM_READ_WRITE, &format, &desc, ptr::null_mut());
    let images = [image.0];
    check_err!(
        call(f, args, cb, 1, images.as_ptr(), inside.as_ptr()),
        CL_INVALID_MEM_OBJECT,
        "an image"
    );
    // Locations outside the argument block.
    let past = [(args as *const u8).wrapping_add(cb - 4) as *const c_void];
    check_err!(
        call(f, args, cb, 1, mems.as_ptr(), past.as_ptr()),
        CL_INVALID_VALUE,
        "a location past the block"
    );
    let before = [(args as *const u8).wrapping_sub(8) as *const c_void];
    check_err!(
        call(f, args, cb, 1, mems.as_ptr(), before.as_ptr()),
        CL_INVALID_VALUE,
        "a location before the block"
    );
    // Wait lists.
    check_err!(
        unsafe {
            clEnqueueNativeKernel(
                q.0,
                f,
                args,
                cb,
                0,
                ptr::null(),
                ptr::null(),
                1,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        CL_INVALID_EVENT_WAIT_LIST,
        "NULL wait list with a count"
    );
    let other = Context::new();
    let foreign = other.user_event();
    check_err!(
        unsafe {
            clEnqueueNativeKernel(
                q.0,
                f,
                args,
                cb,
                0,
                ptr::null(),
                ptr::null(),
                1,
                &foreign.0,
                ptr::null_mut(),
            )
        },
        CL_INVALID_CONTEXT,
        "an event of another context"
    );
    foreign.set_status(CL_COMPLETE);
    q.finish();
}
