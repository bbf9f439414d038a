//! Command-buffers (cl_khr_command_buffer), their mutable ND-ranges
//! (cl_khr_command_buffer_mutable_dispatch) and clGetKernelSuggestedLocalWorkSizeKHR
//! (cl_khr_suggested_local_work_size), issue 18:
//! - the extensions are reported and every entry point resolves through
//!   clGetExtensionFunctionAddressForPlatform; the device queries answer;
//! - record, finalize, enqueue many times: the results match a host model of the recorded
//!   commands, applied once per enqueue;
//! - a recorded kernel keeps the arguments it had when recorded;
//! - sync points, barriers, the states, the queries, the reference count, the event of an
//!   enqueue and its wait list;
//! - mutation: arguments, global size and offset, local size between enqueues; an argument of
//!   the wrong size gets CL_INVALID_ARG_SIZE and leaves the command as it was; deferred
//!   arguments;
//! - a kernel that faults inside a replay fails that enqueue only; image commands replay;
//! - the errors the extensions list for bad input.
//!
//! Kernels: kernels/source/command_buffer.cl.

use cts::command_buffer::{
    address, Api, CommandBuffer, MutableCommand, MutableDispatchArg, MutableDispatchConfig, MutableDispatchExecInfo,
    SyncPoint, CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR, CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR,
    CL_COMMAND_BUFFER_CONTEXT_KHR, CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR,
    CL_COMMAND_BUFFER_NUM_QUEUES_KHR, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, CL_COMMAND_BUFFER_QUEUES_KHR,
    CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR,
    CL_COMMAND_BUFFER_STATE_FINALIZED_KHR, CL_COMMAND_BUFFER_STATE_KHR, CL_COMMAND_BUFFER_STATE_RECORDING_KHR,
    CL_COMMAND_COMMAND_BUFFER_KHR, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR,
    CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR, CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR,
    CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR, CL_INVALID_COMMAND_BUFFER_KHR, CL_INVALID_MUTABLE_COMMAND_KHR,
    CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR,
    CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR, CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
    CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR,
    CL_MUTABLE_DISPATCH_KERNEL_KHR, CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR,
    CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR,
};
use cts::*;
use std::ffi::c_void;
use std::ptr;

fn api() -> Api {
    Api::load(platform()).unwrap_or_else(|e| panic!("{e}"))
}

/// An owned command-buffer.
struct Cb<'a> {
    api: &'a Api,
    handle: CommandBuffer,
}

impl<'a> Cb<'a> {
    fn new(api: &'a Api, q: &Queue, props: &[cl_ulong]) -> Cb<'a> {
        let mut err = 0;
        let list = if props.is_empty() { ptr::null() } else { props.as_ptr() };
        let handle = unsafe { (api.create)(1, &q.0, list, &mut err) };
        check_err!(err, CL_SUCCESS, "clCreateCommandBufferKHR");
        assert!(!handle.is_null());
        Cb { api, handle }
    }

    fn mutable(api: &'a Api, q: &Queue) -> Cb<'a> {
        Cb::new(api, q, &[CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR, 0])
    }

    /// clCommandNDRangeKernelKHR in one dimension; the code, the sync point, the handle.
    fn try_kernel(
        &self,
        k: &Kernel,
        props: &[cl_ulong],
        offset: usize,
        global: usize,
        local: Option<usize>,
        wait: &[SyncPoint],
    ) -> (cl_int, SyncPoint, MutableCommand) {
        let (mut point, mut handle) = (0, ptr::null_mut());
        let list = if props.is_empty() { ptr::null() } else { props.as_ptr() };
        let l = local.unwrap_or(0);
        let err = unsafe {
            (self.api.nd_range)(
                self.handle,
                ptr::null_mut(),
                list,
                k.0,
                1,
                &offset,
                &global,
                if local.is_some() { &l } else { ptr::null() },
                wait.len() as cl_uint,
                if wait.is_empty() { ptr::null() } else { wait.as_ptr() },
                &mut point,
                &mut handle,
            )
        };
        (err, point, handle)
    }

    fn kernel(&self, k: &Kernel, global: usize) -> (SyncPoint, MutableCommand) {
        let (err, point, handle) = self.try_kernel(k, &[], 0, global, None, &[]);
        check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR");
        (point, handle)
    }

    fn copy(&self, src: &Mem, dst: &Mem, size: usize, wait: &[SyncPoint]) -> SyncPoint {
        let mut point = 0;
        ok!((self.api.copy_buffer)(
            self.handle,
            ptr::null_mut(),
            ptr::null(),
            src.0,
            dst.0,
            0,
            0,
            size,
            wait.len() as cl_uint,
            if wait.is_empty() { ptr::null() } else { wait.as_ptr() },
            &mut point,
            ptr::null_mut()
        ));
        point
    }

    fn fill(&self, m: &Mem, value: i32, size: usize) -> SyncPoint {
        let mut point = 0;
        ok!((self.api.fill_buffer)(
            self.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            &value as *const i32 as *const c_void,
            4,
            0,
            size,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ));
        point
    }

    fn finalize(&self) {
        ok!((self.api.finalize)(self.handle));
    }

    fn try_enqueue(&self, wait: &[cl_event], event: *mut cl_event) -> cl_int {
        unsafe {
            (self.api.enqueue)(
                0,
                ptr::null_mut(),
                self.handle,
                wait.len() as cl_uint,
                if wait.is_empty() { ptr::null() } else { wait.as_ptr() },
                event,
            )
        }
    }

    fn enqueue(&self) {
        check!(self.try_enqueue(&[], ptr::null_mut()), CL_SUCCESS);
    }

    fn info<T: Copy + Default>(&self, param: cl_uint) -> T {
        info_scalar(|s, v, r| unsafe { (self.api.info)(self.handle, param, s, v, r) })
            .unwrap_or_else(|e| panic!("clGetCommandBufferInfoKHR({param:#x}): {}", err_name(e)))
    }

    fn state(&self) -> cl_uint {
        self.info(CL_COMMAND_BUFFER_STATE_KHR)
    }

    fn update(&self, configs: &[&MutableDispatchConfig]) -> cl_int {
        let types = vec![CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR; configs.len()];
        let ptrs: Vec<*const c_void> = configs
            .iter()
            .map(|c| *c as *const MutableDispatchConfig as *const c_void)
            .collect();
        unsafe { (self.api.update)(self.handle, configs.len() as cl_uint, types.as_ptr(), ptrs.as_ptr()) }
    }
}

impl Drop for Cb<'_> {
    fn drop(&mut self) {
        let err = unsafe { (self.api.release)(self.handle) };
        if !std::thread::panicking() {
            assert_eq!(err, CL_SUCCESS, "clReleaseCommandBufferKHR");
        }
    }
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    from_bytes::<i32>(bytes)
}

fn int_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn program(ctx: &Context) -> Program {
    ctx.built_source("command_buffer.cl", "-cl-std=CL3.0")
}

fn arg_config(command: MutableCommand, args: &[MutableDispatchArg]) -> MutableDispatchConfig {
    MutableDispatchConfig {
        command,
        num_args: args.len() as cl_uint,
        arg_list: args.as_ptr(),
        ..Default::default()
    }
}

#[test]
fn extensions_and_entry_points() {
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    for name in [
        "cl_khr_command_buffer",
        "cl_khr_command_buffer_mutable_dispatch",
        "cl_khr_suggested_local_work_size",
    ] {
        assert!(ext.split_whitespace().any(|e| e == name), "{name} not in {ext}");
    }
    for name in [
        "clCreateCommandBufferKHR",
        "clRetainCommandBufferKHR",
        "clReleaseCommandBufferKHR",
        "clFinalizeCommandBufferKHR",
        "clEnqueueCommandBufferKHR",
        "clGetCommandBufferInfoKHR",
        "clCommandBarrierWithWaitListKHR",
        "clCommandCopyBufferKHR",
        "clCommandCopyBufferRectKHR",
        "clCommandCopyBufferToImageKHR",
        "clCommandCopyImageKHR",
        "clCommandCopyImageToBufferKHR",
        "clCommandFillBufferKHR",
        "clCommandFillImageKHR",
        "clCommandNDRangeKernelKHR",
        "clUpdateMutableCommandsKHR",
        "clGetMutableCommandInfoKHR",
        "clGetKernelSuggestedLocalWorkSizeKHR",
    ] {
        assert!(address(platform(), name).is_some(), "{name} does not resolve");
    }
    assert!(address(platform(), "clCommandNoSuchThingKHR").is_none());
    let caps: cl_ulong = device_info(CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR);
    assert_ne!(caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR, 0);
    assert_ne!(caps & CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR, 0);
    let required: cl_ulong = device_info(CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR);
    assert_eq!(required, 0);
    let supported: cl_ulong = device_info(CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR);
    assert_ne!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0);
    let fields: cl_ulong = device_info(CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR);
    let want = CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
        | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
        | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
        | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR;
    assert_eq!(fields & want, want);
}

/// Fill A with 1, then per enqueue: A += 3, copy A to B, B += 10 (after a barrier), A += 1.
/// After n enqueues of the buffer (the fill runs each time): A = 1 + 3 + 1, B = 1 + 3 + 10;
/// C, only added to, accumulates 2 per enqueue.
#[test]
fn record_finalize_replay_many_times() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    const N: usize = 1000;
    let size = N * 4;
    let (a, b) = (ctx.buffer(size), ctx.buffer(size));
    let init: Vec<i32> = (0..N as i32).map(|i| i * 7 - 300).collect();
    let c = ctx.buffer_from(&int_bytes(&init));
    let add = |m: &Mem, v: i32| {
        let k = prog.kernel("add");
        k.arg_mem(0, m);
        k.arg(1, &v);
        k
    };
    let (ka3, kb10, ka1, kc2) = (add(&a, 3), add(&b, 10), add(&a, 1), add(&c, 2));
    let cb = Cb::new(&api, &q, &[]);
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
    let s_fill = cb.fill(&a, 1, size);
    let (s_a3, _) = cb.kernel(&ka3, N);
    let s_copy = cb.copy(&a, &b, size, &[s_fill, s_a3]);
    let mut s_bar = 0;
    ok!((api.barrier)(
        cb.handle,
        ptr::null_mut(),
        ptr::null(),
        1,
        &s_copy,
        &mut s_bar,
        ptr::null_mut()
    ));
    let (s_b10, _) = cb.kernel(&kb10, N);
    let (s_a1, _) = cb.kernel(&ka1, N);
    let (s_c2, _) = cb.kernel(&kc2, N);
    let points = [s_fill, s_a3, s_copy, s_bar, s_b10, s_a1, s_c2];
    let mut sorted = points.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), points.len(), "sync points must be unique: {points:?}");
    cb.finalize();
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    // Recording does not run anything.
    q.finish();
    assert_eq!(ints(&q.read(&c, 0, size)), init);
    const REPLAYS: i32 = 25;
    for _ in 0..REPLAYS {
        cb.enqueue();
    }
    q.finish();
    assert_eq!(ints(&q.read(&a, 0, size)), vec![5; N]);
    assert_eq!(ints(&q.read(&b, 0, size)), vec![14; N]);
    let want: Vec<i32> = init.iter().map(|x| x + 2 * REPLAYS).collect();
    assert_eq!(ints(&q.read(&c, 0, size)), want);
}

/// "Any changes to kernel after calling clCommandNDRangeKernelKHR, such as with clSetKernelArg
/// ..., have no effect on the recorded command"; a later recording captures the new state.
#[test]
fn arguments_captured_when_recorded() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let (x, y) = (ctx.buffer(64 * 4), ctx.buffer(64 * 4));
    let k = prog.kernel("index_scale");
    k.arg_mem(0, &x);
    k.arg(1, &2i32);
    let cb = Cb::new(&api, &q, &[]);
    cb.kernel(&k, 64);
    k.arg_mem(0, &y);
    k.arg(1, &5i32);
    cb.kernel(&k, 32);
    k.arg(1, &9i32);
    cb.finalize();
    cb.enqueue();
    q.finish();
    let xs: Vec<i32> = (0..64).map(|i| i * 2).collect();
    assert_eq!(ints(&q.read(&x, 0, 64 * 4)), xs);
    let ys = ints(&q.read(&y, 0, 32 * 4));
    assert_eq!(ys, (0..32).map(|i| i * 5).collect::<Vec<i32>>());
}

#[test]
fn queries_reference_count_and_event() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue_with(CL_QUEUE_PROFILING_ENABLE);
    let prog = program(&ctx);
    let m = ctx.buffer(16 * 4);
    let k = prog.kernel("index_scale");
    k.arg_mem(0, &m);
    k.arg(1, &3i32);
    let props = [CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0];
    let cb = Cb::new(&api, &q, &props);
    assert_eq!(cb.info::<cl_uint>(CL_COMMAND_BUFFER_NUM_QUEUES_KHR), 1);
    assert_eq!(cb.info::<cl_command_queue>(CL_COMMAND_BUFFER_QUEUES_KHR), q.0);
    assert_eq!(cb.info::<cl_context>(CL_COMMAND_BUFFER_CONTEXT_KHR), ctx.0);
    let got = info_bytes(|s, v, r| unsafe { (api.info)(cb.handle, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, s, v, r) })
        .expect("properties array");
    assert_eq!(from_bytes::<cl_ulong>(&got), props.to_vec());
    assert_eq!(cb.info::<cl_uint>(CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR), 1);
    ok!((api.retain)(cb.handle));
    assert_eq!(cb.info::<cl_uint>(CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR), 2);
    ok!((api.release)(cb.handle));
    assert_eq!(cb.info::<cl_uint>(CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR), 1);
    // A parameter the extension does not define, and a too-small value.
    let mut v: cl_uint = 0;
    check!(
        (api.info)(cb.handle, 0x1200, 4, &mut v as *mut _ as *mut c_void, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        (api.info)(
            cb.handle,
            CL_COMMAND_BUFFER_STATE_KHR,
            2,
            &mut v as *mut _ as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );

    cb.kernel(&k, 16);
    cb.finalize();
    // Its event: the command type, and it waits for its wait list.
    let gate = ctx.user_event();
    let mut e: cl_event = ptr::null_mut();
    check!(cb.try_enqueue(&[gate.0], &mut e), CL_SUCCESS);
    let e = Event(e);
    assert_eq!(e.command_type(), CL_COMMAND_COMMAND_BUFFER_KHR);
    assert!(e.status() > CL_COMPLETE, "ran before its wait list completed");
    gate.set_status(CL_COMPLETE);
    e.wait();
    assert_eq!(e.status(), CL_COMPLETE);
    let (start, end) = (
        profiling(e.0, CL_PROFILING_COMMAND_START).unwrap(),
        profiling(e.0, CL_PROFILING_COMMAND_END).unwrap(),
    );
    assert!(start <= end);
    assert_eq!(ints(&q.read(&m, 0, 64)), (0..16).map(|i| i * 3).collect::<Vec<i32>>());
    // Released while still referenced by nothing but the application: gone.
    let handle = cb.handle;
    drop(cb);
    check!((api.retain)(handle), CL_INVALID_COMMAND_BUFFER_KHR);
}

#[test]
fn mutate_arguments_and_sizes() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let (x, y) = (ctx.buffer(256 * 4), ctx.buffer(256 * 4));
    let k = prog.kernel("index_scale");
    k.arg_mem(0, &x);
    k.arg(1, &2i32);
    let cb = Cb::mutable(&api, &q);
    let (err, _, command) = cb.try_kernel(&k, &[], 0, 64, Some(16), &[]);
    check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR");
    assert!(!command.is_null());
    cb.finalize();
    cb.enqueue();
    q.finish();
    assert_eq!(
        ints(&q.read(&x, 0, 64 * 4)),
        (0..64).map(|i| i * 2).collect::<Vec<i32>>()
    );

    // New buffer and scale, global size 128 at offset 8, groups of 32.
    let scale = 7i32;
    let args = [
        MutableDispatchArg {
            arg_index: 0,
            arg_size: std::mem::size_of::<cl_mem>(),
            arg_value: &y.0 as *const cl_mem as *const c_void,
        },
        MutableDispatchArg {
            arg_index: 1,
            arg_size: 4,
            arg_value: &scale as *const i32 as *const c_void,
        },
    ];
    let (offset, global, local) = (8usize, 128usize, 32usize);
    let config = MutableDispatchConfig {
        work_dim: 1,
        global_work_offset: &offset,
        global_work_size: &global,
        local_work_size: &local,
        ..arg_config(command, &args)
    };
    check!(cb.update(&[&config]), CL_SUCCESS);
    // Queries follow the update.
    let sizes = |param| {
        from_bytes::<usize>(
            &info_bytes(|s, v, r| unsafe { (api.mutable_info)(command, param, s, v, r) })
                .expect("mutable command info"),
        )
    };
    assert_eq!(sizes(CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR), vec![128]);
    assert_eq!(sizes(CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR), vec![8]);
    assert_eq!(sizes(CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR), vec![32]);
    let kernel_of: cl_kernel =
        info_scalar(|s, v, r| unsafe { (api.mutable_info)(command, CL_MUTABLE_DISPATCH_KERNEL_KHR, s, v, r) }).unwrap();
    assert_eq!(kernel_of, k.0);
    let owner: CommandBuffer =
        info_scalar(|s, v, r| unsafe { (api.mutable_info)(command, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, s, v, r) })
            .unwrap();
    assert_eq!(owner, cb.handle);
    let ty: cl_uint =
        info_scalar(|s, v, r| unsafe { (api.mutable_info)(command, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR, s, v, r) })
            .unwrap();
    assert_eq!(ty, CL_COMMAND_NDRANGE_KERNEL);
    cb.enqueue();
    q.finish();
    let ys = ints(&q.read(&y, 0, 256 * 4));
    for (i, v) in ys.iter().enumerate() {
        let want = if (8..136).contains(&i) { i as i32 * scale + 8 } else { 0 };
        assert_eq!(*v, want, "y[{i}]");
    }
    // x was not touched again.
    assert_eq!(
        ints(&q.read(&x, 0, 64 * 4)),
        (0..64).map(|i| i * 2).collect::<Vec<i32>>()
    );

    // An argument of the wrong size: CL_INVALID_ARG_SIZE, and the whole update is dropped
    // (the valid config before it too).
    let bad_scale = 99i64;
    let good = [MutableDispatchArg {
        arg_index: 1,
        arg_size: 4,
        arg_value: &scale as *const i32 as *const c_void,
    }];
    let bad = [MutableDispatchArg {
        arg_index: 1,
        arg_size: 8,
        arg_value: &bad_scale as *const i64 as *const c_void,
    }];
    let zero = 0usize;
    let c1 = MutableDispatchConfig {
        global_work_offset: &zero,
        ..arg_config(command, &good)
    };
    let c2 = arg_config(command, &bad);
    check!(cb.update(&[&c1, &c2]), CL_INVALID_ARG_SIZE);
    assert_eq!(
        sizes(CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR),
        vec![8],
        "a failed update changed the command"
    );
    // A bad index, an invalid mutable command, a changed dimension count.
    let bad_index = [MutableDispatchArg {
        arg_index: 5,
        arg_size: 4,
        arg_value: &scale as *const i32 as *const c_void,
    }];
    check!(cb.update(&[&arg_config(command, &bad_index)]), CL_INVALID_ARG_INDEX);
    let c3 = MutableDispatchConfig {
        command: ptr::null_mut(),
        ..Default::default()
    };
    check!(cb.update(&[&c3]), CL_INVALID_MUTABLE_COMMAND_KHR);
    let c4 = MutableDispatchConfig {
        command,
        work_dim: 2,
        ..Default::default()
    };
    check!(cb.update(&[&c4]), CL_INVALID_OPERATION);
    // Work-group uniformity may not change: 128 by 32 is uniform, 120 by 32 is not.
    let odd = 120usize;
    let c5 = MutableDispatchConfig {
        command,
        global_work_size: &odd,
        ..Default::default()
    };
    check!(cb.update(&[&c5]), CL_INVALID_OPERATION);
    // NULL lists with counts, and counts with NULL lists.
    let c6 = MutableDispatchConfig {
        command,
        num_args: 1,
        ..Default::default()
    };
    check!(cb.update(&[&c6]), CL_INVALID_VALUE);
    check!((api.update)(cb.handle, 1, ptr::null(), ptr::null()), CL_INVALID_VALUE);
    let ty = 7u32;
    let p = &c1 as *const MutableDispatchConfig as *const c_void;
    check!((api.update)(cb.handle, 1, &ty, &p), CL_INVALID_VALUE);
    // The command still runs as configured by the successful update.
    q.write(&y, 0, &vec![0u8; 256 * 4]);
    cb.enqueue();
    q.finish();
    assert_eq!(ints(&q.read(&y, 0, 256 * 4)), ys);
}

/// Fields not made updatable when recorded cannot change; a command-buffer created without
/// CL_COMMAND_BUFFER_MUTABLE_KHR cannot be updated.
#[test]
fn mutation_limits() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let x = ctx.buffer(64 * 4);
    let k = prog.kernel("index_scale");
    k.arg_mem(0, &x);
    k.arg(1, &1i32);
    let cb = Cb::mutable(&api, &q);
    let only_args = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
        0,
    ];
    let (err, _, command) = cb.try_kernel(&k, &only_args, 0, 64, None, &[]);
    check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR");
    // Updates before finalize: CL_INVALID_OPERATION.
    let g = 32usize;
    let c = MutableDispatchConfig {
        command,
        global_work_size: &g,
        ..Default::default()
    };
    check!(cb.update(&[&c]), CL_INVALID_OPERATION);
    cb.finalize();
    check!(cb.update(&[&c]), CL_INVALID_OPERATION);

    // An unknown property, a repeated one.
    let (err, _, _) = cb.try_kernel(&k, &[0x4242, 1, 0], 0, 64, None, &[]);
    assert_eq!(err, CL_INVALID_OPERATION, "recording into a finalized buffer");
    let cb2 = Cb::mutable(&api, &q);
    let (err, _, _) = cb2.try_kernel(&k, &[0x4242, 1, 0], 0, 64, None, &[]);
    check_err!(err, CL_INVALID_VALUE, "unknown property");
    let twice = [
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        0,
        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
        0,
        0,
    ];
    let (err, _, _) = cb2.try_kernel(&k, &twice, 0, 64, None, &[]);
    check_err!(err, CL_INVALID_VALUE, "repeated property");

    // Not mutable: recorded fine, never updated.
    let plain = Cb::new(&api, &q, &[]);
    let (err, _, command) = plain.try_kernel(&k, &[], 0, 64, None, &[]);
    check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR");
    plain.finalize();
    let c = MutableDispatchConfig {
        command,
        global_work_size: &g,
        ..Default::default()
    };
    check!(plain.update(&[&c]), CL_INVALID_OPERATION);
    // A command of another command-buffer.
    check!(cb2.update(&[&c]), CL_INVALID_OPERATION);
    cb2.finalize();
    check!(cb2.update(&[&c]), CL_INVALID_MUTABLE_COMMAND_KHR);
}

/// Arguments left unset on a mutable command: the buffer finalizes to the Finalized state,
/// cannot be enqueued, and becomes Executable once an update sets them.
#[test]
fn deferred_arguments() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let k = prog.kernel("index_scale");
    let cb = Cb::mutable(&api, &q);
    let (err, _, command) = cb.try_kernel(&k, &[], 0, 16, None, &[]);
    check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR without arguments");
    cb.finalize();
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_FINALIZED_KHR);
    check!(cb.try_enqueue(&[], ptr::null_mut()), CL_INVALID_OPERATION);
    let x = ctx.buffer(16 * 4);
    let scale = 4i32;
    let only_buffer = [MutableDispatchArg {
        arg_index: 0,
        arg_size: std::mem::size_of::<cl_mem>(),
        arg_value: &x.0 as *const cl_mem as *const c_void,
    }];
    check!(cb.update(&[&arg_config(command, &only_buffer)]), CL_SUCCESS);
    assert_eq!(
        cb.state(),
        CL_COMMAND_BUFFER_STATE_FINALIZED_KHR,
        "one argument still unset"
    );
    let scale_arg = [MutableDispatchArg {
        arg_index: 1,
        arg_size: 4,
        arg_value: &scale as *const i32 as *const c_void,
    }];
    check!(cb.update(&[&arg_config(command, &scale_arg)]), CL_SUCCESS);
    assert_eq!(cb.state(), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    cb.enqueue();
    q.finish();
    assert_eq!(ints(&q.read(&x, 0, 64)), (0..16).map(|i| i * 4).collect::<Vec<i32>>());

    // A command-buffer that is not mutable needs the arguments when recording.
    let plain = Cb::new(&api, &q, &[]);
    let k2 = prog.kernel("index_scale");
    let (err, _, _) = plain.try_kernel(&k2, &[], 0, 16, None, &[]);
    check_err!(err, CL_INVALID_KERNEL_ARGS, "unset arguments");
}

#[test]
fn bad_input() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let m = ctx.buffer(256);
    let mut err = 0;
    // Creation: num_queues must be one, queues not NULL, flags known, properties once.
    unsafe {
        let none = (api.create)(0, &q.0, ptr::null(), &mut err);
        assert!(none.is_null());
        check_err!(err, CL_INVALID_VALUE, "num_queues 0");
        (api.create)(1, ptr::null(), ptr::null(), &mut err);
        check_err!(err, CL_INVALID_VALUE, "queues NULL");
        let bad = std::ptr::dangling_mut::<u8>() as cl_command_queue;
        (api.create)(1, &bad, ptr::null(), &mut err);
        check_err!(err, CL_INVALID_COMMAND_QUEUE, "invalid queue");
        let flags = [CL_COMMAND_BUFFER_FLAGS_KHR, 1 << 40, 0];
        (api.create)(1, &q.0, flags.as_ptr(), &mut err);
        check_err!(err, CL_INVALID_VALUE, "unknown flag");
        let twice = [CL_COMMAND_BUFFER_FLAGS_KHR, 0, CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0];
        (api.create)(1, &q.0, twice.as_ptr(), &mut err);
        check_err!(err, CL_INVALID_VALUE, "repeated property");
    }
    let bad_cb = std::ptr::dangling_mut::<u8>() as CommandBuffer;
    check!((api.finalize)(bad_cb), CL_INVALID_COMMAND_BUFFER_KHR);
    check!((api.release)(ptr::null_mut()), CL_INVALID_COMMAND_BUFFER_KHR);
    check!(
        (api.enqueue)(0, ptr::null_mut(), bad_cb, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_COMMAND_BUFFER_KHR
    );

    let cb = Cb::new(&api, &q, &[]);
    let mut point = 0;
    let mut handle: MutableCommand = ptr::null_mut();
    // A queue where NULL is required (no multi-device support).
    check!(
        (api.copy_buffer)(
            cb.handle,
            q.0,
            ptr::null(),
            m.0,
            m.0,
            0,
            128,
            64,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_COMMAND_QUEUE
    );
    // Overlapping copy, out of range copy, zero size.
    check!(
        (api.copy_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            m.0,
            0,
            32,
            64,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_MEM_COPY_OVERLAP
    );
    check!(
        (api.copy_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            m.0,
            0,
            200,
            64,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    // A mutable handle for a copy, properties for a copy.
    check!(
        (api.copy_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            m.0,
            0,
            128,
            64,
            0,
            ptr::null(),
            &mut point,
            &mut handle
        ),
        CL_INVALID_VALUE
    );
    let props = [CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0, 0];
    check!(
        (api.copy_buffer)(
            cb.handle,
            ptr::null_mut(),
            props.as_ptr(),
            m.0,
            m.0,
            0,
            128,
            64,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    // Sync point lists: a count without a list, a list without a count, a point not recorded.
    let first = cb.copy(&m, &ctx.buffer(256), 64, &[]);
    check!(
        (api.barrier)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            1,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
    );
    check!(
        (api.barrier)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            0,
            &first,
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
    );
    let unknown = first + 100;
    check!(
        (api.barrier)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            1,
            &unknown,
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
    );
    // A buffer of another context.
    let other = Context::new();
    let foreign = other.buffer(256);
    check!(
        (api.copy_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            foreign.0,
            0,
            0,
            64,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_CONTEXT
    );
    // A fill pattern of a size that is not a power of two.
    let pattern = [0u8; 3];
    check!(
        (api.fill_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            pattern.as_ptr() as *const c_void,
            3,
            0,
            192,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    // Enqueue before finalize; finalize twice; record after finalize.
    check!(cb.try_enqueue(&[], ptr::null_mut()), CL_INVALID_OPERATION);
    cb.finalize();
    check!((api.finalize)(cb.handle), CL_INVALID_OPERATION);
    check!(
        (api.copy_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            m.0,
            m.0,
            0,
            128,
            64,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_OPERATION
    );
    // Enqueue: queues and their count must agree; a queue of another context.
    let mut qs = [q.0];
    check!(
        (api.enqueue)(1, ptr::null_mut(), cb.handle, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        (api.enqueue)(0, qs.as_mut_ptr(), cb.handle, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let oq = other.queue();
    let mut oqs = [oq.0];
    check!(
        (api.enqueue)(1, oqs.as_mut_ptr(), cb.handle, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_CONTEXT
    );
    check!(
        (api.enqueue)(0, ptr::null_mut(), cb.handle, 1, ptr::null(), ptr::null_mut()),
        CL_INVALID_EVENT_WAIT_LIST
    );
    // A substitute queue of the same device and context is fine.
    let q2 = ctx.queue();
    let mut q2s = [q2.0];
    check!(
        (api.enqueue)(1, q2s.as_mut_ptr(), cb.handle, 0, ptr::null(), ptr::null_mut()),
        CL_SUCCESS
    );
    q2.finish();
}

/// clGetKernelSuggestedLocalWorkSizeKHR gives the local size an enqueue with a NULL local size
/// uses (what the kernel reads back), and the errors its specification lists.
#[test]
fn suggested_local_work_size() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let k = prog.kernel("local_size");
    let mut local = [0usize; 3];
    let global = [1000usize];
    // Arguments not set yet.
    check!(
        (api.suggest)(q.0, k.0, 1, ptr::null(), global.as_ptr(), local.as_mut_ptr()),
        CL_INVALID_KERNEL_ARGS
    );
    let out = ctx.buffer(4096 * 4);
    k.arg_mem(0, &out);
    for g in [1usize, 7, 64, 1000, 4096, 999] {
        ok!((api.suggest)(q.0, k.0, 1, ptr::null(), &g, local.as_mut_ptr()));
        assert!(local[0] >= 1 && local[0] <= g, "global {g}: suggested {}", local[0]);
        check!(q.try_nd_range(&k, &[], &[g], &[]), CL_SUCCESS);
        q.finish();
        let seen = ints(&q.read(&out, 0, 4));
        assert_eq!(
            seen[0] as usize, local[0],
            "global {g}: the kernel ran with another local size"
        );
    }
    check!(
        (api.suggest)(q.0, k.0, 1, ptr::null(), global.as_ptr(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let zero = [0usize];
    check!(
        (api.suggest)(q.0, k.0, 1, ptr::null(), zero.as_ptr(), local.as_mut_ptr()),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    check!(
        (api.suggest)(q.0, k.0, 1, ptr::null(), ptr::null(), local.as_mut_ptr()),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    check!(
        (api.suggest)(q.0, k.0, 4, ptr::null(), global.as_ptr(), local.as_mut_ptr()),
        CL_INVALID_WORK_DIMENSION
    );
    check!(
        (api.suggest)(
            ptr::null_mut(),
            k.0,
            1,
            ptr::null(),
            global.as_ptr(),
            local.as_mut_ptr()
        ),
        CL_INVALID_COMMAND_QUEUE
    );
    check!(
        (api.suggest)(
            q.0,
            ptr::null_mut(),
            1,
            ptr::null(),
            global.as_ptr(),
            local.as_mut_ptr()
        ),
        CL_INVALID_KERNEL
    );
    let other = Context::new();
    let oq = other.queue();
    check!(
        (api.suggest)(oq.0, k.0, 1, ptr::null(), global.as_ptr(), local.as_mut_ptr()),
        CL_INVALID_CONTEXT
    );
}

/// A kernel that faults inside a replay fails that enqueue with CL_OUT_OF_RESOURCES and skips
/// the commands recorded after it; the queue, the buffers and the command-buffer stay usable,
/// and after an update of the faulting argument the next replay runs everything.
#[test]
fn fault_inside_a_replay() {
    if !isolate("fault_inside_a_replay") {
        return;
    }
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let (a, b) = (ctx.buffer(64 * 4), ctx.buffer(64 * 4));
    let store = prog.kernel("store_at");
    store.arg_mem(0, &a);
    store.arg(1, &(1u64 << 40));
    let add = prog.kernel("add");
    add.arg_mem(0, &b);
    add.arg(1, &5i32);
    let cb = Cb::mutable(&api, &q);
    cb.fill(&b, 1, 64 * 4);
    let (err, _, faulting) = cb.try_kernel(&store, &[], 0, 1, None, &[]);
    check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR");
    cb.kernel(&add, 64);
    cb.finalize();
    let mut e: cl_event = ptr::null_mut();
    check!(cb.try_enqueue(&[], &mut e), CL_SUCCESS);
    let e = Event(e);
    q.finish();
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
    // The fill ran, the add after the fault did not.
    assert_eq!(ints(&q.read(&b, 0, 64 * 4)), vec![1; 64]);
    let zero = 0u64;
    let arg = [MutableDispatchArg {
        arg_index: 1,
        arg_size: 8,
        arg_value: &zero as *const u64 as *const c_void,
    }];
    check!(cb.update(&[&arg_config(faulting, &arg)]), CL_SUCCESS);
    let mut e2: cl_event = ptr::null_mut();
    check!(cb.try_enqueue(&[], &mut e2), CL_SUCCESS);
    let e2 = Event(e2);
    q.finish();
    assert_eq!(e2.status(), CL_COMPLETE);
    assert_eq!(ints(&q.read(&b, 0, 64 * 4)), vec![6; 64]);
    assert_eq!(ints(&q.read(&a, 0, 4)), vec![7]);
}

/// Image commands replay too: fill a 2D RGBA8 image (a different colour for two regions),
/// copy it into a buffer, replay twice after overwriting the buffer.
#[test]
fn image_commands_replay() {
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let format = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNSIGNED_INT8,
    };
    let (w, h) = (16usize, 8usize);
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 1, 1], 0, 0, ptr::null_mut());
    let img = ctx.image(CL_MEM_READ_WRITE, &format, &desc, ptr::null_mut());
    let out = ctx.buffer(w * h * 4);
    let cb = Cb::new(&api, &q, &[]);
    let (top, bottom) = ([1u32, 2, 3, 4], [250u32, 251, 252, 253]);
    let fill = |color: &[u32; 4], origin: [usize; 3], region: [usize; 3]| {
        let mut point = 0;
        ok!((api.fill_image)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            img.0,
            color.as_ptr() as *const c_void,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ));
        point
    };
    let s1 = fill(&top, [0, 0, 0], [w, h / 2, 1]);
    let s2 = fill(&bottom, [0, h / 2, 0], [w, h - h / 2, 1]);
    let region = [w, h, 1];
    let origin = [0usize; 3];
    let waits = [s1, s2];
    let mut point = 0;
    ok!((api.copy_image_to_buffer)(
        cb.handle,
        ptr::null_mut(),
        ptr::null(),
        img.0,
        out.0,
        origin.as_ptr(),
        region.as_ptr(),
        0,
        2,
        waits.as_ptr(),
        &mut point,
        ptr::null_mut()
    ));
    // A region outside the image is refused when recorded.
    let big = [w + 1, h, 1];
    check!(
        (api.copy_image_to_buffer)(
            cb.handle,
            ptr::null_mut(),
            ptr::null(),
            img.0,
            out.0,
            origin.as_ptr(),
            big.as_ptr(),
            0,
            0,
            ptr::null(),
            &mut point,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    cb.finalize();
    let want: Vec<u8> = (0..h)
        .flat_map(|y| {
            let c = if y < h / 2 { top } else { bottom };
            (0..w).flat_map(move |_| c.map(|v| v as u8))
        })
        .collect();
    for _ in 0..2 {
        q.write(&out, 0, &vec![0xEEu8; w * h * 4]);
        cb.enqueue();
        q.finish();
        assert_eq!(q.read(&out, 0, w * h * 4), want);
    }
}

/// An SVM pointer argument recorded with clSetKernelArgSVMPointer and then replaced through
/// `arg_svm_list` (and the execution info through `exec_info_list`): the replay writes the new
/// allocation, the old one keeps what the first replay wrote.
#[test]
fn mutate_svm_arguments() {
    let svm: cl_device_svm_capabilities = device_info(CL_DEVICE_SVM_CAPABILITIES);
    if svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        eprintln!("skipped: no SVM");
        return;
    }
    let api = api();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let k = prog.kernel("index_scale");
    let bytes = 64 * 4;
    let (a, b) = unsafe {
        (
            clSVMAlloc(ctx.0, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0) as *mut i32,
            clSVMAlloc(ctx.0, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0) as *mut i32,
        )
    };
    assert!(!a.is_null() && !b.is_null());
    unsafe {
        std::ptr::write_bytes(a, 0, 64);
        std::ptr::write_bytes(b, 0, 64);
    }
    check!(
        unsafe { clSetKernelArgSVMPointer(k.0, 0, a as *const c_void) },
        CL_SUCCESS
    );
    k.arg(1, &3i32);
    let cb = Cb::mutable(&api, &q);
    let (err, _, command) = cb.try_kernel(&k, &[], 0, 64, Some(16), &[]);
    check_err!(err, CL_SUCCESS, "clCommandNDRangeKernelKHR");
    cb.finalize();
    cb.enqueue();
    q.finish();
    let read = |p: *mut i32| unsafe { std::slice::from_raw_parts(p, 64).to_vec() };
    assert_eq!(read(a), (0..64).map(|i| i * 3).collect::<Vec<i32>>());
    // The SVM argument moves to b; the execution info names b too.
    let svm_args = [MutableDispatchArg {
        arg_index: 0,
        arg_size: 0,
        arg_value: b as *const c_void,
    }];
    let ptrs = [b as *const c_void];
    let infos = [MutableDispatchExecInfo {
        param_name: CL_KERNEL_EXEC_INFO_SVM_PTRS,
        param_value_size: std::mem::size_of_val(&ptrs),
        param_value: ptrs.as_ptr() as *const c_void,
    }];
    let config = MutableDispatchConfig {
        command,
        num_svm_args: 1,
        arg_svm_list: svm_args.as_ptr(),
        num_exec_infos: 1,
        exec_info_list: infos.as_ptr() as *const c_void,
        ..Default::default()
    };
    check!(cb.update(&[&config]), CL_SUCCESS);
    cb.enqueue();
    q.finish();
    assert_eq!(
        read(b),
        (0..64).map(|i| i * 3).collect::<Vec<i32>>(),
        "the new allocation"
    );
    // Bad input: an SVM argument index past the kernel's arguments.
    let bad = [MutableDispatchArg {
        arg_index: 9,
        arg_size: 0,
        arg_value: a as *const c_void,
    }];
    let config = MutableDispatchConfig {
        command,
        num_svm_args: 1,
        arg_svm_list: bad.as_ptr(),
        ..Default::default()
    };
    check_err!(cb.update(&[&config]), CL_INVALID_ARG_INDEX, "SVM argument index 9");
    drop(cb);
    unsafe {
        clSVMFree(ctx.0, a as *mut c_void);
        clSVMFree(ctx.0, b as *mut c_void);
    }
}
