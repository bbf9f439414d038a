//! Fault containment (README, "When a kernel faults"): a hardware fault in a kernel's code
//! ends that command with CL_OUT_OF_RESOURCES, commands waiting on it fail with
//! CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, the context's pfn_notify hears once which
//! kernel faulted where, and everything else (the queue, other buffers, the process) lives on.
//! Faults outside kernel code still reach the application's own handler, or end the process
//! as they would without Clift. Every test runs in a child process. Kernels:
//! kernels/kernel_fault.cl, kernels/fault.spvasm.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;
use std::sync::Mutex;

/// What the context's pfn_notify heard (one child process, one list).
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "C" fn notify(errinfo: *const c_char, _private: *const c_void, _cb: size_t, _user: *mut c_void) {
    let text = unsafe { CStr::from_ptr(errinfo) }.to_string_lossy().into_owned();
    NOTES.lock().unwrap().push(text);
}

fn notes() -> Vec<String> {
    NOTES.lock().unwrap().clone()
}

/// A context whose pfn_notify records into NOTES.
fn context_with_notify() -> Context {
    let props = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        0,
    ];
    let dev = device();
    let mut err = 0;
    let c = unsafe { clCreateContext(props.as_ptr(), 1, &dev, Some(notify), ptr::null_mut(), &mut err) };
    check_err!(err, CL_SUCCESS, "clCreateContext with pfn_notify");
    Context(c)
}

/// A context with pfn_notify, an in-order queue and the program of kernels/kernel_fault.cl.
fn setup() -> (Context, Queue, Program) {
    let ctx = context_with_notify();
    let q = ctx.queue();
    let prog = ctx.built_program("kernel_fault", &spirv("kernel_fault"));
    (ctx, q, prog)
}

/// Enqueues `k` over `global` (local size `local`, or chosen when empty) after `wait`.
fn enqueue(q: &Queue, k: &Kernel, global: usize, local: &[usize], wait: &[cl_event]) -> Event {
    let (n, list) = wait_list(wait);
    let mut e = ptr::null_mut();
    let loc = if local.is_empty() { ptr::null() } else { local.as_ptr() };
    ok!(clEnqueueNDRangeKernel(
        q.0,
        k.0,
        1,
        ptr::null(),
        &global,
        loc,
        n,
        list,
        &mut e
    ));
    Event(e)
}

/// `fill` over `n` items into `out`, checked: the kernel after a fault runs correctly.
fn fill_and_check(q: &Queue, fill: &Kernel, out: &Mem, n: usize) {
    fill.arg_mem(0, out);
    let e = enqueue(q, fill, n, &[], &[]);
    settle(&e);
    assert_eq!(e.status(), CL_COMPLETE, "the next kernel on the queue");
    let got: Vec<i32> = from_bytes(&q.read(out, 0, n * 4));
    let want: Vec<i32> = (0..n as i32).map(|i| 3 * i + 1).collect();
    assert_eq!(got, want, "fill after the fault");
}

/// Waits for `e` whatever its outcome (clWaitForEvents says CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
/// for a failed one).
fn settle(e: &Event) {
    let r = unsafe { clWaitForEvents(1, &e.0) };
    assert!(
        r == CL_SUCCESS || r == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "{}",
        err_name(r)
    );
}

/// As `isolate`, with `env` set in the child.
fn isolate_with_env(test: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os("CTS_ISOLATED_CHILD").is_some() {
        return true;
    }
    let mut child = test_child(test);
    child.env("CTS_ISOLATED_CHILD", "1").envs(env.iter().copied());
    let out = child.output().expect("spawn child");
    assert!(
        out.status.success(),
        "child: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

/// One work-item of `store_far` storing 2^40 elements past a 64-byte buffer: the command fails.
fn store_far_once(ctx: &Context, q: &Queue, prog: &Program) {
    let store = prog.kernel("store_far");
    let a = ctx.buffer(64);
    store.arg_mem(0, &a);
    store.arg(1, &(1u64 << 40));
    let e = enqueue(q, &store, 1, &[], &[]);
    settle(&e);
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
}

static EVENT_STATUS: Mutex<Vec<cl_int>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_event(_e: cl_event, status: cl_int, _user: *mut c_void) {
    EVENT_STATUS.lock().unwrap().push(status);
}

#[test]
fn store_far_out_of_bounds_fails_only_its_command() {
    if !isolate("store_far_out_of_bounds_fails_only_its_command") {
        return;
    }
    let (ctx, q, prog) = setup();
    let (store, fill) = (prog.kernel("store_far"), prog.kernel("fill"));
    let a0 = pattern(64 * 4, 1);
    let other0 = pattern(4096 * 4, 2);
    let a = ctx.buffer_from(&a0);
    let other = ctx.buffer_from(&other0);
    store.arg_mem(0, &a);
    store.arg(1, &(1u64 << 40));
    // 64 groups of 64 work-items, each of which faults: one report, one failed command.
    let e = enqueue(&q, &store, 4096, &[64], &[]);
    ok!(clSetEventCallback(e.0, CL_COMPLETE, Some(on_event), ptr::null_mut()));
    // An explicit dependent fails; the in-order queue's next command runs.
    fill.arg_mem(0, &other);
    let dep = enqueue(&q, &fill, 16, &[], &[e.0]);
    check!(clWaitForEvents(1, &e.0), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES, "the faulted command's status");
    settle(&dep);
    assert_eq!(
        dep.status(),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "a command waiting on the faulted one"
    );
    ok!(clFinish(q.0));
    assert_eq!(*EVENT_STATUS.lock().unwrap(), [CL_OUT_OF_RESOURCES], "event callback");
    let n = notes();
    assert_eq!(n.len(), 1, "pfn_notify once per failed command: {n:?}");
    assert!(n[0].contains("\"store_far\"") && n[0].contains("SIGSEGV"), "{}", n[0]);
    assert!(n[0].contains("CL_OUT_OF_RESOURCES"), "{}", n[0]);
    // Nothing lost: the store went nowhere, the dependent never ran.
    assert_eq!(q.read(&a, 0, a0.len()), a0, "the faulted kernel's own buffer");
    assert_eq!(
        q.read(&other, 0, other0.len()),
        other0,
        "a buffer only the failed dependent names"
    );
    fill_and_check(&q, &fill, &other, 4096);
    // Again, with the default local size: every worker thread recovers as often as needed.
    for round in 0..3 {
        let e = enqueue(&q, &store, 100_000, &[], &[]);
        settle(&e);
        assert_eq!(e.status(), CL_OUT_OF_RESOURCES, "round {round}");
        fill_and_check(&q, &fill, &other, 1000);
    }
    assert_eq!(notes().len(), 4, "one report per failed command");
    // An out-of-order queue: a marker on the failed command fails, an independent command runs.
    let qo = ctx.queue_with(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let e = enqueue(&qo, &store, 1, &[], &[]);
    let m = qo.marker(&[e.0]);
    fill_and_check(&qo, &fill, &other, 64);
    ok!(clFinish(qo.0));
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
    assert_eq!(m.status(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
}

/// Machine code compiled in this process and machine code loaded from the native code cache
/// are both contained (each registers its code range).
#[test]
fn compiled_and_cached_code_are_both_contained() {
    let dir = TempDir::new("fault-cache");
    let cache = dir.path().to_string_lossy().into_owned();
    let env = [
        ("CLIFT_CACHE_DIR", cache.as_str()),
        ("CLIFT_CACHE", "on"),
        ("CLIFT_BUILD_LOG", "verbose"),
    ];
    if !isolate_with_env("compiled_and_cached_code_are_both_contained", &env) {
        return;
    }
    let ctx = context_with_notify();
    let q = ctx.queue();
    for (round, cached) in [false, true].into_iter().enumerate() {
        let prog = ctx.built_program("kernel_fault", &spirv("kernel_fault"));
        let log = prog.build_log();
        assert_eq!(
            log.contains("loaded from the native code cache"),
            cached,
            "round {round}: {log}"
        );
        store_far_once(&ctx, &q, &prog);
        assert_eq!(notes().len(), round + 1, "round {round}");
    }
}

#[test]
fn load_from_null_fails_only_its_command() {
    if !isolate("load_from_null_fails_only_its_command") {
        return;
    }
    let (ctx, q, prog) = setup();
    let (load, fill) = (prog.kernel("load_null"), prog.kernel("fill"));
    let out0 = pattern(256 * 4, 3);
    let out = ctx.buffer_from(&out0);
    // "If the argument is a buffer object, the arg_value pointer can be NULL or point to a
    // NULL value in which case a NULL value will be used as the value for the argument."
    let null: cl_mem = ptr::null_mut();
    load.arg(0, &null);
    load.arg_mem(1, &out);
    let e = enqueue(&q, &load, 256, &[64], &[]);
    settle(&e);
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
    let n = notes();
    assert_eq!(n.len(), 1, "{n:?}");
    // Groups run on every worker thread: the first to fault is any of the four, and it faults
    // at its first work-item's element, 4 bytes times its first global id.
    let group = (0..4usize)
        .find(|g| n[0].contains(&format!("work-group ({g}, 0, 0)")))
        .unwrap_or_else(|| panic!("no work-group named: {}", n[0]));
    assert!(
        n[0].contains("\"load_null\"")
            && n[0].contains("SIGSEGV")
            && n[0].contains(&format!("at address {:#x} ", 4 * 64 * group)),
        "{}",
        n[0]
    );
    // Each work-item loads before it stores: nothing was written.
    assert_eq!(q.read(&out, 0, out0.len()), out0);
    fill_and_check(&q, &fill, &out, 256);
    // The context, queue and program are released normally (the child then exits 0).
}

/// A fault in a kernel whose groups of one work-item run together (tests/coalesced_groups.rs):
/// the report names the groups that ran as one, among them the faulting work-item's.
#[test]
fn fault_in_groups_run_together() {
    if !isolate("fault_in_groups_run_together") {
        return;
    }
    let ctx = context_with_notify();
    let q = ctx.queue();
    let prog = ctx.built_source("coalesced_groups.cl", "-cl-std=CL3.0");
    let k = prog.kernel("blind_fault");
    let n = 4096usize;
    let bad = 1234u64;
    let out = ctx.buffer(n * 4);
    k.arg_mem(0, &out);
    k.arg(1, &bad);
    let e = enqueue(&q, &k, n, &[1], &[]);
    settle(&e);
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
    let note = notes().pop().expect("a report");
    let range = note
        .split("work-groups (")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|r| r.split_once(".."))
        .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)))
        .unwrap_or_else(|| panic!("no range of work-groups named: {note}"));
    assert!(
        range.0 <= bad && bad <= range.1 && range.0 < range.1,
        "{range:?}: {note}"
    );
    assert!(note.contains("\"blind_fault\"") && note.contains("SIGSEGV"), "{note}");
    // The same kernel, no work-item faulting, afterwards.
    k.arg(1, &u64::MAX);
    q.run(&k, &[], &[n], &[1]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, n * 4));
    assert!(got.iter().enumerate().all(|(i, &v)| v == i as u32));
}

/// Runs `k` (global 64, local 64) and returns its status once settled.
fn run_status(q: &Queue, k: &Kernel) -> cl_int {
    let e = enqueue(q, k, 64, &[64], &[]);
    settle(&e);
    e.status()
}

/// Built-ins that Clift implements with a runtime helper touching memory the kernel names
/// (async copies, the out-parameters of modf, frexp and sincos, printf's %s, pipe packets):
/// a pointer far past its buffer fails the command with CL_OUT_OF_RESOURCES and a report, as
/// a fault in the kernel's own code does, and the same kernel with a good pointer runs
/// correctly afterwards. Kernels: kernels/source/helper_faults.cl.
#[test]
fn bad_pointers_in_builtin_helpers_fail_only_their_command() {
    if !isolate("bad_pointers_in_builtin_helpers_fail_only_their_command") {
        return;
    }
    let ctx = context_with_notify();
    let q = ctx.queue();
    let prog = ctx.built_source("helper_faults.cl", "-cl-std=CL3.0");
    let far = 1u64 << 40;
    let mut reports = 0;
    let mut failed = |what: &str, status: cl_int| {
        assert_eq!(status, CL_OUT_OF_RESOURCES, "{what}");
        reports += 1;
        let n = notes();
        assert_eq!(n.len(), reports, "{what}: one report per failed command: {n:?}");
        assert!(n[reports - 1].contains("SIGSEGV"), "{what}: {}", n[reports - 1]);
    };

    let src: Vec<i32> = (0..64).map(|i| i * 7).collect();
    let g = ctx.buffer_from(&src.iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>());
    let out = ctx.buffer(64 * 4);
    let k = prog.kernel("copy_in");
    k.arg_mem(0, &g);
    k.arg(1, &far);
    k.arg_mem(2, &out);
    failed("async copy from a bad pointer", run_status(&q, &k));
    k.arg(1, &0u64);
    assert_eq!(run_status(&q, &k), CL_COMPLETE);
    let got: Vec<i32> = from_bytes(&q.read(&out, 0, 256));
    assert!(got.iter().zip(&src).all(|(a, b)| *a == b + 1), "{got:?}");

    let k = prog.kernel("copy_out");
    k.arg_mem(0, &out);
    k.arg(1, &far);
    failed("async copy to a bad pointer", run_status(&q, &k));
    k.arg(1, &0u64);
    assert_eq!(run_status(&q, &k), CL_COMPLETE);
    let got: Vec<i32> = from_bytes(&q.read(&out, 0, 256));
    assert!(got.iter().enumerate().all(|(i, v)| *v == 2 * i as i32), "{got:?}");

    let (f, n, d) = (ctx.buffer(256), ctx.buffer(256), ctx.buffer(512));
    let res = ctx.buffer(3 * 256);
    let k = prog.kernel("out_params");
    k.arg_mem(0, &f);
    k.arg_mem(1, &n);
    k.arg_mem(2, &d);
    k.arg_mem(4, &res);
    k.arg(3, &far);
    failed("modf, frexp, sincos through a bad pointer", run_status(&q, &k));
    k.arg(3, &0u64);
    assert_eq!(run_status(&q, &k), CL_COMPLETE);
    let (fi, ni, di): (Vec<f32>, Vec<i32>, Vec<f64>) = (
        from_bytes(&q.read(&f, 0, 256)),
        from_bytes(&q.read(&n, 0, 256)),
        from_bytes(&q.read(&d, 0, 512)),
    );
    let r: Vec<f32> = from_bytes(&q.read(&res, 0, 3 * 256));
    for i in 0..64 {
        let x = 2.75f32 + i as f32;
        assert_eq!((r[3 * i], fi[i]), (x.fract(), x.trunc()), "modf({x})");
        let e = ni[i];
        assert_eq!(r[3 * i + 1] * 2f32.powi(e), x, "frexp({x}): {} * 2^{e}", r[3 * i + 1]);
        assert!((0.5..1.0).contains(&r[3 * i + 1]));
        assert!((di[i] - (x as f64).cos()).abs() < 1e-15, "sincos({x}) cos {}", di[i]);
    }

    let text = ctx.buffer_from(b"helper faults\0");
    let k = prog.kernel("print_string");
    k.arg_mem(0, &text);
    k.arg(1, &far);
    failed("printf %s of a bad pointer", run_status(&q, &k));
    k.arg(1, &0u64);
    assert_eq!(run_status(&q, &k), CL_COMPLETE);

    let pipe = {
        let mut err = 0;
        let m = unsafe { clCreatePipe(ctx.0, 0, 4, 8, ptr::null(), &mut err) };
        check_err!(err, CL_SUCCESS, "clCreatePipe");
        Mem(m)
    };
    let status = ctx.buffer(4);
    let (w, r) = (prog.kernel("pipe_through"), prog.kernel("pipe_back"));
    for k in [&w, &r] {
        k.arg_mem(0, &g);
        k.arg(1, &far);
        k.arg_mem(2, &pipe);
        k.arg_mem(3, &status);
    }
    let one = |q: &Queue, k: &Kernel| {
        let e = enqueue(q, k, 1, &[1], &[]);
        settle(&e);
        e.status()
    };
    failed("write_pipe from a bad pointer", one(&q, &w));
    w.arg(1, &5u64);
    assert_eq!(one(&q, &w), CL_COMPLETE);
    failed("read_pipe into a bad pointer", one(&q, &r));
    // The packet read by the failed command is gone; the pipe still works.
    assert_eq!(one(&q, &w), CL_COMPLETE);
    r.arg_mem(0, &out);
    r.arg(1, &0u64);
    assert_eq!(one(&q, &r), CL_COMPLETE);
    let got: Vec<i32> = from_bytes(&q.read(&out, 0, 4));
    assert_eq!(got[0], src[5], "the packet written from g[5]");
    let st: Vec<i32> = from_bytes(&q.read(&status, 0, 4));
    assert_eq!(st[0], 0, "read_pipe's status");
}

/// A fault after a barrier, in one work-item of one group: the group's other work-items, the
/// state kept across the barrier (spill records, or fibers) and the local memory must all be
/// usable by the next command.
fn fault_after_barrier() {
    let (ctx, q, prog) = setup();
    let (k, fill) = (prog.kernel("fault_after_barrier"), prog.kernel("fill"));
    let (n, l) = (1024usize, 64usize);
    let out = ctx.buffer(n * 4);
    k.arg_mem(0, &out);
    k.arg_local(1, l * 4);
    k.arg(2, &200u64);
    let e = enqueue(&q, &k, n, &[l], &[]);
    settle(&e);
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
    let notes = notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("\"fault_after_barrier\""), "{}", notes[0]);
    assert!(notes[0].contains("work-group (3, 0, 0)"), "{}", notes[0]);
    fill_and_check(&q, &fill, &out, n);
    // No work-item faults now: the full, correct result.
    k.arg(2, &u64::MAX);
    for _ in 0..2 {
        let e = enqueue(&q, &k, n, &[l], &[]);
        settle(&e);
        assert_eq!(e.status(), CL_COMPLETE);
        let got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
        let want: Vec<i32> = (0..n).map(|i| (i / l * l + (i % l + 1) % l) as i32).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn fault_after_barrier_regions() {
    if !isolate("fault_after_barrier_regions") {
        return;
    }
    fault_after_barrier();
}

/// As above with every barrier kernel on the fiber fallback (CLIFT_BARRIERS=fibers).
#[test]
fn fault_after_barrier_fibers() {
    if !isolate_with_env("fault_after_barrier_fibers", &[("CLIFT_BARRIERS", "fibers")]) {
        return;
    }
    fault_after_barrier();
}

/// Division by zero and INT_MIN / -1 never reach the hardware's divider in Clift's code (the
/// divisor is replaced where it would trap, see jit/src/codegen/arith.rs): the command
/// completes and nothing is reported. (The containment of the hardware's SIGFPE itself is
/// shown by jit's fault unit tests, on raw Cranelift code.)
#[test]
fn division_faults_do_not_happen() {
    if !isolate("division_faults_do_not_happen") {
        return;
    }
    let ctx = context_with_notify();
    let q = ctx.queue();
    let prog = ctx.built_program("fault", &spirv("fault"));
    let k = prog.kernel("fault");
    let a: [i32; 4] = [i32::MIN, 7, i32::MIN, 0];
    let b: [i32; 4] = [-1, 0, 0, 0];
    let f = [0f32; 4];
    let (ba, bb, bf) = (
        ctx.buffer_from(as_bytes(&a)),
        ctx.buffer_from(as_bytes(&b)),
        ctx.buffer_from(as_bytes(&f)),
    );
    let bo = ctx.buffer(4 * 10 * 4);
    for (i, m) in [&ba, &bb, &bf, &bo].iter().enumerate() {
        k.arg_mem(i as cl_uint, m);
    }
    let e = enqueue(&q, &k, 4, &[], &[]);
    settle(&e);
    assert_eq!(e.status(), CL_COMPLETE);
    assert!(notes().is_empty(), "{:?}", notes());
}

/// With `CLIFT_KERNEL_TIMEOUT_MS`, a kernel that never ends is stopped at its time limit: the
/// command fails like a faulted one, and the queue goes on.
#[test]
fn endless_kernel_stopped_at_its_time_limit() {
    if !isolate_with_env(
        "endless_kernel_stopped_at_its_time_limit",
        &[("CLIFT_KERNEL_TIMEOUT_MS", "300")],
    ) {
        return;
    }
    let (ctx, q, prog) = setup();
    let (spin, fill) = (prog.kernel("spin"), prog.kernel("fill"));
    let flag = ctx.buffer_from(&[0u8; 4]);
    let out0 = pattern(64 * 4, 4);
    let out = ctx.buffer_from(&out0);
    spin.arg_mem(0, &flag);
    spin.arg_mem(1, &out);
    // One work-item, then one per group on every worker thread at once.
    for (round, (global, local)) in [(1usize, 1usize), (64, 1)].into_iter().enumerate() {
        let start = std::time::Instant::now();
        let e = enqueue(&q, &spin, global, &[local], &[]);
        ok!(clFinish(q.0));
        let took = start.elapsed();
        assert_eq!(e.status(), CL_OUT_OF_RESOURCES, "round {round}");
        assert!(took >= std::time::Duration::from_millis(300), "stopped early: {took:?}");
        assert!(took < std::time::Duration::from_secs(20), "not stopped: {took:?}");
        let n = notes();
        assert_eq!(n.len(), round + 1, "{n:?}");
        assert!(
            n[round].contains("\"spin\"") && n[round].contains("time limit of 300 ms"),
            "{}",
            n[round]
        );
        // The stopped work-items never reached their store.
        assert_eq!(q.read(&out, 0, out0.len()), out0);
        fill_and_check(&q, &fill, &ctx.buffer(256 * 4), 256);
    }
}

// ---------------------------------------------------------------------------------------------
// Faults outside kernel code are the application's.

const APP_HANDLER_EXIT: i32 = 77;

extern "C" fn app_handler_siginfo(sig: i32, _info: *mut libc::siginfo_t, _ctx: *mut c_void) {
    let msg = b"application handler ran\n";
    unsafe {
        libc::write(2, msg.as_ptr() as *const c_void, msg.len());
        libc::_exit(if sig == libc::SIGSEGV { APP_HANDLER_EXIT } else { 1 });
    }
}

extern "C" fn app_handler_plain(sig: i32) {
    app_handler_siginfo(sig, ptr::null_mut(), ptr::null_mut());
}

/// In the child: installs `handler` ("siginfo", "plain" or "none") for SIGSEGV, then has a
/// kernel fault (contained: the handler must not run), then faults in host code.
fn host_fault_after_kernel_fault(handler: &str) {
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        libc::sigemptyset(&mut act.sa_mask);
        match handler {
            "siginfo" => {
                act.sa_sigaction = app_handler_siginfo as *const () as usize;
                act.sa_flags = libc::SA_SIGINFO;
                libc::sigaction(libc::SIGSEGV, &act, ptr::null_mut());
            }
            "plain" => {
                act.sa_sigaction = app_handler_plain as *const () as usize;
                libc::sigaction(libc::SIGSEGV, &act, ptr::null_mut());
            }
            _ => {}
        }
    }
    {
        let (ctx, q, prog) = setup();
        store_far_once(&ctx, &q, &prog);
    }
    println!("kernel fault contained");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // A host bug: read from an unmapped page (no core file for a process that dies of it).
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) };
    let bad = std::hint::black_box(16usize) as *const i32;
    let v = unsafe { ptr::read_volatile(bad) };
    println!("host fault survived?! {v}");
}

/// In the parent: runs `host_fault_after_kernel_fault(handler)` in a child of `test` and
/// returns its exit status, standard output and error. In the child: runs it (it does not
/// return when the host fault is handled as it must be) and returns `None`.
fn host_fault_case(test: &str, handler: &str) -> Option<(std::process::ExitStatus, String, String)> {
    if let Ok(handler) = std::env::var("CTS_HOST_FAULT_CHILD") {
        host_fault_after_kernel_fault(&handler);
        return None;
    }
    let out = test_child(test)
        .env("CTS_HOST_FAULT_CHILD", handler)
        .output()
        .expect("spawn child");
    let so = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(so.contains("kernel fault contained"), "{so}");
    assert!(!so.contains("survived"), "{so}");
    Some((out.status, so, String::from_utf8_lossy(&out.stderr).into_owned()))
}

#[test]
fn host_fault_reaches_the_application_siginfo_handler() {
    let Some((status, so, se)) = host_fault_case("host_fault_reaches_the_application_siginfo_handler", "siginfo")
    else {
        return;
    };
    assert_eq!(status.code(), Some(APP_HANDLER_EXIT), "{status:?}\n{so}\n{se}");
    assert_eq!(se.matches("application handler ran").count(), 1, "{se}");
}

#[test]
fn host_fault_reaches_the_application_plain_handler() {
    let Some((status, so, se)) = host_fault_case("host_fault_reaches_the_application_plain_handler", "plain") else {
        return;
    };
    assert_eq!(status.code(), Some(APP_HANDLER_EXIT), "{status:?}\n{so}\n{se}");
    assert_eq!(se.matches("application handler ran").count(), 1, "{se}");
}

/// Without an application handler, a host fault ends the process with SIGSEGV, as it would
/// without Clift (here through Rust's own handler, which Clift chains to).
#[test]
fn host_fault_without_handler_still_kills() {
    use std::os::unix::process::ExitStatusExt;
    let Some((status, so, _)) = host_fault_case("host_fault_without_handler_still_kills", "none") else {
        return;
    };
    assert_eq!(status.signal(), Some(libc::SIGSEGV), "{status:?}\n{so}");
}
