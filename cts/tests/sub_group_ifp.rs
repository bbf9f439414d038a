//! Independent forward progress of sub-groups (issue 17, cl_khr_subgroups): sub-groups of a
//! work-group that wait in loops for each other. Kernels: kernels/source/sub_group_ifp.cl.
//! - a token handed around the sub-groups in a ring through a local atomic and through a
//!   global atomic (compare-exchange), the order of its holders checked;
//! - a spin lock taken by one work-item per sub-group around a non-atomic counter, against
//!   the host's count; the same with the OpenCL 1.x `atomic_cmpxchg` / `atomic_xchg`;
//! - divergent trip counts around `sub_group_barrier`, each sub-group waiting for the one
//!   before it to leave its loop, against host arithmetic;
//! - the device reports cl_khr_subgroups and independent forward progress.
//!
//! Each test runs in child processes of this binary (the default mode, `CLIFT_BARRIERS=fibers`
//! and `=sweep`) under a time limit, so a regression that hangs fails instead
//! (`CLIFT_KERNEL_TIMEOUT_MS` stops the kernel in the child; the parent kills a child that
//! still runs past `LIMIT`).

use cts::*;
use std::time::{Duration, Instant};

const OPTIONS: &str = "-cl-std=CL3.0";
const FILE: &str = "sub_group_ifp.cl";
/// How long one child may run before the parent kills it.
const LIMIT: Duration = Duration::from_secs(120);

/// Runs `test` in one child per barrier mode and asserts each passed in time; true in the
/// child (the caller then runs the body), false in the parent.
fn supervise(test: &str) -> bool {
    if std::env::var_os("CTS_ISOLATED_CHILD").is_some() {
        return true;
    }
    for mode in ["", "fibers", "sweep"] {
        let mut cmd = test_child(test);
        cmd.env("CTS_ISOLATED_CHILD", "1")
            .env("CLIFT_KERNEL_TIMEOUT_MS", "60000")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if mode.is_empty() {
            cmd.env_remove("CLIFT_BARRIERS");
        } else {
            cmd.env("CLIFT_BARRIERS", mode);
        }
        let mut child = cmd.spawn().expect("spawn test child");
        let mut err = child.stderr.take().expect("stderr");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut s);
            s
        });
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait for test child") {
                break Some(s);
            }
            if start.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let log = reader.join().unwrap_or_default();
        match status {
            Some(s) => assert!(s.success(), "{test} (CLIFT_BARRIERS={mode:?}): {s:?}\n{log}"),
            None => panic!("{test} (CLIFT_BARRIERS={mode:?}): still running after {LIMIT:?}, killed\n{log}"),
        }
    }
    false
}

fn setup() -> Option<(Context, Queue, Program)> {
    let n: cl_uint = device_info(CL_DEVICE_MAX_NUM_SUB_GROUPS);
    if n == 0 {
        eprintln!("skipped: no sub-groups");
        return None;
    }
    let ifp: cl_bool = device_info(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS);
    if ifp == 0 {
        assert_ne!(
            wanted_platform_name(),
            "Clift",
            "Clift reports independent forward progress"
        );
        eprintln!("skipped: no independent forward progress");
        return None;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source(FILE, OPTIONS);
    Some((ctx, q, p))
}

/// Sub-groups per work-group of `local` work-items for kernel `k`.
fn sub_group_count(k: &Kernel, local: usize) -> usize {
    let mut count = 0usize;
    let err = unsafe {
        clGetKernelSubGroupInfo(
            k.0,
            device(),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            std::mem::size_of::<usize>(),
            &local as *const usize as *const std::ffi::c_void,
            std::mem::size_of::<usize>(),
            &mut count as *mut usize as *mut std::ffi::c_void,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(err, CL_SUCCESS, "clGetKernelSubGroupInfo: {}", err_name(err));
    count
}

#[test]
fn device_reports_cl_khr_subgroups_with_ifp() {
    if wanted_platform_name() != "Clift" {
        return;
    }
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(ext.split_whitespace().any(|e| e == "cl_khr_subgroups"), "{ext}");
    let ifp: cl_bool = device_info(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS);
    assert_eq!(ifp, CL_TRUE);
}

#[test]
fn token_ring_through_local_atomic() {
    if !supervise("token_ring_through_local_atomic") {
        return;
    }
    let Some((ctx, q, p)) = setup() else { return };
    let k = p.kernel("ring_local");
    for &(groups, local, rounds) in &[(4usize, 256usize, 5u32), (3, 200, 7), (2, 64, 50)] {
        let n = sub_group_count(&k, local);
        assert!(n >= 2, "local {local}: {n} sub-groups");
        let len = n * rounds as usize;
        let log = ctx.buffer(groups * len * 4);
        q.write(&log, 0, as_bytes(&vec![u32::MAX; groups * len]));
        k.arg_mem(0, &log);
        k.arg(1, &rounds);
        q.run(&k, &[], &[groups * local], &[local]);
        let got: Vec<u32> = from_bytes(&q.read(&log, 0, groups * len * 4));
        for g in 0..groups {
            for i in 0..len {
                assert_eq!(
                    got[g * len + i],
                    (i % n) as u32,
                    "local {local}, rounds {rounds}: group {g}, holder {i}"
                );
            }
        }
    }
}

#[test]
fn token_ring_through_global_compare_exchange() {
    if !supervise("token_ring_through_global_compare_exchange") {
        return;
    }
    let Some((ctx, q, p)) = setup() else { return };
    let k = p.kernel("ring_global");
    for &(groups, local, rounds) in &[(8usize, 128usize, 10u32), (2, 96, 3)] {
        let n = sub_group_count(&k, local);
        let len = n * rounds as usize;
        let tokens = ctx.buffer_from(as_bytes(&vec![0u32; groups]));
        let log = ctx.buffer_from(as_bytes(&vec![u32::MAX; groups * len]));
        k.arg_mem(0, &tokens);
        k.arg_mem(1, &log);
        k.arg(2, &rounds);
        q.run(&k, &[], &[groups * local], &[local]);
        let got: Vec<u32> = from_bytes(&q.read(&log, 0, groups * len * 4));
        let want: Vec<u32> = (0..groups).flat_map(|_| 0..len as u32).collect();
        assert_eq!(got, want, "local {local}, rounds {rounds}");
        let t: Vec<u32> = from_bytes(&q.read(&tokens, 0, groups * 4));
        assert_eq!(t, vec![0u32; groups], "every token back at sub-group 0");
    }
}

#[test]
fn spin_lock_one_work_item_per_sub_group() {
    if !supervise("spin_lock_one_work_item_per_sub_group") {
        return;
    }
    let Some((ctx, q, p)) = setup() else { return };
    for name in ["spin_lock", "spin_lock_legacy"] {
        let k = p.kernel(name);
        for &(groups, local, per) in &[(6usize, 256usize, 40u32), (3, 100, 7)] {
            let n = sub_group_count(&k, local);
            let locks = ctx.buffer_from(as_bytes(&vec![0i32; groups]));
            let counters = ctx.buffer_from(as_bytes(&vec![0u32; groups]));
            let arrived = ctx.buffer_from(as_bytes(&vec![0u32; groups]));
            k.arg_mem(0, &locks);
            k.arg_mem(1, &counters);
            if name == "spin_lock" {
                k.arg_mem(2, &arrived);
                k.arg(3, &per);
            } else {
                k.arg(2, &per);
            }
            q.run(&k, &[], &[groups * local], &[local]);
            let got: Vec<u32> = from_bytes(&q.read(&counters, 0, groups * 4));
            assert_eq!(got, vec![n as u32 * per; groups], "{name}: local {local}, {per} each");
            let l: Vec<i32> = from_bytes(&q.read(&locks, 0, groups * 4));
            assert_eq!(l, vec![0; groups], "{name}: every lock released");
        }
    }
}

#[test]
fn divergent_trip_counts_around_sub_group_barrier() {
    if !supervise("divergent_trip_counts_around_sub_group_barrier") {
        return;
    }
    let Some((ctx, q, p)) = setup() else { return };
    let k = p.kernel("divergent_trips");
    for &(groups, local) in &[(3usize, 256usize), (2, 160), (4, 70)] {
        let n = sub_group_count(&k, local);
        // Sub-group s runs trips[s] times: fewer, more and none.
        let trips: Vec<u32> = (0..n as u32).map(|s| (s * 7 + 4) % 11).collect();
        let tb = ctx.buffer_from(as_bytes(&trips));
        let out = ctx.buffer(groups * local * 8);
        let sums = ctx.buffer(groups * 4);
        k.arg_mem(0, &tb);
        k.arg_mem(1, &out);
        k.arg_mem(2, &sums);
        q.run(&k, &[], &[groups * local], &[local]);
        let got: Vec<u32> = from_bytes(&q.read(&out, 0, groups * local * 8));
        for (i, v) in got.chunks(2).enumerate() {
            let (sum, s) = (v[0], v[1] as usize);
            assert!(s < n, "local {local}: work-item {i} in sub-group {s}");
            let t = trips[s];
            assert_eq!(sum, t * (t + 1) / 2, "local {local}: work-item {i}, {t} trips");
        }
        let s: Vec<u32> = from_bytes(&q.read(&sums, 0, groups * 4));
        assert_eq!(s, vec![n as u32; groups], "local {local}: sub-groups done");
    }
}

#[test]
fn counting_loop_of_atomics() {
    if !supervise("counting_loop_of_atomics") {
        return;
    }
    let Some((ctx, q, p)) = setup() else { return };
    let k = p.kernel("count_only");
    let c = ctx.buffer_from(as_bytes(&[0u32]));
    k.arg_mem(0, &c);
    k.arg(1, &13u32);
    q.run(&k, &[], &[4096], &[128]);
    let got: Vec<u32> = from_bytes(&q.read(&c, 0, 4));
    assert_eq!(got, vec![4096 * 13]);
}
