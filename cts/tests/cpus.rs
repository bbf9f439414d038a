//! The process's CPUs (issue 19): the compute units are the CPUs the process may run on (its
//! affinity mask, e.g. `taskset -c 0`), not the machine's; each worker thread is pinned to one
//! of them; `CLIFT_THREADS` still overrides the count. Where the work ran is observed from the
//! outside: the CPU time of every thread of the process (see `cts::threads`).

use cts::threads::*;
use cts::*;

/// Work-items (one per work-group) and rounds of the spin kernel: about half a second of CPU.
const ITEMS: usize = 64;

/// A test measuring which threads ran a kernel runs alone: starting a child process costs the
/// parent CPU time that would count.
static MEASURE: std::sync::Mutex<()> = std::sync::Mutex::new(());
const ROUNDS: u32 = 2_000_000;

/// Runs test `name` of this binary under `taskset -c <cpu>` with `CTS_CPU_CHILD` set (and
/// `CLIFT_THREADS` as given), and asserts it passed.
fn run_pinned_child(name: &str, clift_threads: Option<&str>) {
    let _quiet = MEASURE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = affinity()[0];
    let exe = std::env::current_exe().expect("current_exe");
    let mut cmd = std::process::Command::new("taskset");
    cmd.arg("-c")
        .arg(cpu.to_string())
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("CTS_CPU_CHILD", "1")
        .env_remove("CLIFT_THREADS");
    if let Some(n) = clift_threads {
        cmd.env("CLIFT_THREADS", n);
    }
    let out = cmd.output().expect("run taskset (util-linux)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} under taskset -c {cpu} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn in_child() -> bool {
    std::env::var_os("CTS_CPU_CHILD").is_some()
}

fn compute_units(d: cl_device_id) -> usize {
    let bytes = device_bytes(d, CL_DEVICE_MAX_COMPUTE_UNITS).expect("CL_DEVICE_MAX_COMPUTE_UNITS");
    from_bytes::<cl_uint>(&bytes)[0] as usize
}

fn clift_workers() -> Vec<TaskSample> {
    tasks()
        .into_values()
        .filter(|t| t.name.starts_with("clift-worker"))
        .collect()
}

/// Under `taskset -c N`: one compute unit, and a 64-group kernel runs on one thread.
#[test]
fn one_cpu_one_compute_unit_one_thread() {
    if !in_child() {
        return run_pinned_child("one_cpu_one_compute_unit_one_thread", None);
    }
    let cpu = affinity();
    assert_eq!(cpu.len(), 1, "the child runs under taskset -c");
    assert_eq!(
        compute_units(device()),
        1,
        "CL_DEVICE_MAX_COMPUTE_UNITS under taskset -c"
    );
    let ctx = Context::new();
    let q = ctx.queue();
    let busy = run_spin(&ctx, &q, ITEMS, ROUNDS);
    assert_eq!(busy.len(), 1, "threads that ran the kernel: {busy:?}");
    for w in clift_workers() {
        assert_eq!(w.allowed, cpu, "worker {} pinned inside the process's CPUs", w.name);
    }
}

/// `CLIFT_THREADS` overrides the count, but the threads stay on the process's CPUs.
#[test]
fn clift_threads_overrides_inside_the_mask() {
    if !in_child() {
        return run_pinned_child("clift_threads_overrides_inside_the_mask", Some("3"));
    }
    let cpu = affinity();
    assert_eq!(compute_units(device()), 3, "CLIFT_THREADS=3");
    let ctx = Context::new();
    let q = ctx.queue();
    let busy = run_spin(&ctx, &q, ITEMS, ROUNDS / 4);
    assert!(
        !busy.is_empty() && busy.len() <= 3,
        "threads that ran the kernel: {busy:?}"
    );
    let workers = clift_workers();
    assert_eq!(workers.len(), 2, "the enqueuing thread is the third: {workers:?}");
    for w in workers {
        assert_eq!(w.allowed, cpu, "worker {} pinned inside the process's CPUs", w.name);
    }
}

/// The CPU limit of this process's cgroup (v2 cpu.max at the namespace root), if any.
fn cgroup_quota() -> Option<usize> {
    let text = std::fs::read_to_string("/sys/fs/cgroup/cpu.max").ok()?;
    let mut words = text.split_whitespace();
    let quota: u64 = words.next()?.parse().ok()?;
    let period: u64 = words.next()?.parse().ok()?;
    Some(quota.div_ceil(period) as usize)
}

/// Without taskset: one compute unit per CPU of the mask (within the cgroup quota), each
/// worker pinned to exactly one of them, and a kernel spreads over as many threads.
#[test]
fn compute_units_are_the_process_cpus() {
    if in_child() || std::env::var_os("CLIFT_THREADS").is_some() {
        return;
    }
    let _quiet = MEASURE.lock().unwrap_or_else(|e| e.into_inner());
    let mask = affinity();
    let expected = cgroup_quota().map_or(mask.len(), |q| q.clamp(1, mask.len()));
    let units = compute_units(device());
    assert_eq!(units, expected, "compute units for affinity {mask:?}");
    let ctx = Context::new();
    let q = ctx.queue();
    let busy = run_spin(&ctx, &q, ITEMS, ROUNDS);
    assert!(busy.len() <= units, "more threads than compute units ran: {busy:?}");
    if units >= 2 {
        assert!(busy.len() >= 2, "{units} compute units but one thread ran: {busy:?}");
    }
    let workers = clift_workers();
    assert!(!workers.is_empty());
    for w in workers {
        assert_eq!(w.allowed.len(), 1, "worker {} pinned to one CPU", w.name);
        assert!(mask.contains(&w.allowed[0]), "worker {} outside the mask", w.name);
    }
}
