//! Where work ran, observed from outside the implementation: the threads of this process, the
//! CPU time each has used (/proc/self/task/*/schedstat) and the CPUs each may run on
//! (`Cpus_allowed_list`). A test snapshots before and after a long kernel and asks which
//! threads did the work.

use std::collections::HashMap;

/// One thread of this process at one moment.
#[derive(Clone, Debug)]
pub struct TaskSample {
    pub name: String,
    /// Nanoseconds this thread has run on a CPU.
    pub cpu_ns: u64,
    /// The CPUs it may run on.
    pub allowed: Vec<usize>,
}

/// Every thread of this process, by thread id.
pub fn tasks() -> HashMap<u32, TaskSample> {
    let mut out = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse::<u32>().ok()) else {
            continue;
        };
        let path = entry.path();
        let read = |f: &str| std::fs::read_to_string(path.join(f)).unwrap_or_default();
        let cpu_ns = read("schedstat")
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let status = read("status");
        let allowed = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .map(|l| parse_cpu_list(l.trim()))
            .unwrap_or_default();
        out.insert(
            tid,
            TaskSample {
                name: read("comm").trim().to_string(),
                cpu_ns,
                allowed,
            },
        );
    }
    out
}

/// The threads that ran at least `share` of the CPU time all threads used between two
/// snapshots, with the CPU time each used.
pub fn busy_threads(
    before: &HashMap<u32, TaskSample>,
    after: &HashMap<u32, TaskSample>,
    share: f64,
) -> Vec<(TaskSample, u64)> {
    let used: Vec<(TaskSample, u64)> = after
        .iter()
        .map(|(tid, t)| {
            let start = before.get(tid).map_or(0, |b| b.cpu_ns);
            (t.clone(), t.cpu_ns.saturating_sub(start))
        })
        .collect();
    let total: u64 = used.iter().map(|(_, ns)| ns).sum();
    used.into_iter()
        .filter(|(_, ns)| *ns as f64 >= share * total as f64 && *ns > 0)
        .collect()
}

/// "0-3,8,10-11" as CPU numbers.
pub fn parse_cpu_list(text: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    cpus.extend(a..=b);
                }
            }
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    cpus
}

/// The CPUs this process may run on (`sched_getaffinity`).
pub fn affinity() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    assert_eq!(rc, 0, "sched_getaffinity");
    (0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// Restricts this process (its calling thread, and so every thread it starts later) to `cpus`.
pub fn set_affinity(cpus: &[usize]) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the indexes are checked.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        assert!(c < libc::CPU_SETSIZE as usize);
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    assert_eq!(rc, 0, "sched_setaffinity({cpus:?})");
}

/// The spin kernel's value for work-item `gid` (see `cts/kernels/source/spin.cl`).
pub fn spin_reference(gid: u32, rounds: u32) -> u32 {
    let mut x = gid.wrapping_add(1);
    for _ in 0..rounds {
        x = x.wrapping_mul(1664525).wrapping_add(1013904223);
        x ^= x >> 13;
    }
    x
}

/// Runs `items` one-work-item groups of the spin kernel on `queue`, checks every result
/// against the host, and returns the threads that did at least 5% of the CPU work meanwhile.
pub fn run_spin(ctx: &crate::Context, queue: &crate::Queue, items: usize, rounds: u32) -> Vec<(TaskSample, u64)> {
    // Built for every device of the context (which may hold only sub-devices).
    let program = ctx.source_program("spin.cl");
    let err = unsafe {
        crate::clBuildProgram(
            program.0,
            0,
            std::ptr::null(),
            std::ptr::null(),
            None,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(
        err,
        crate::CL_SUCCESS,
        "clBuildProgram(spin.cl): {}",
        crate::err_name(err)
    );
    let kernel = program.kernel("spin");
    let out = ctx.buffer(items * 4);
    kernel.arg_mem(0, &out);
    // A first short run compiles the kernel, so the measured run is the kernel alone.
    kernel.arg(1, &1u32);
    queue.run(&kernel, &[], &[items], &[1]);
    kernel.arg(1, &rounds);
    let before = tasks();
    queue.run(&kernel, &[], &[items], &[1]);
    let after = tasks();
    let got: Vec<u32> = crate::from_bytes(&queue.read(&out, 0, items * 4));
    for (gid, value) in got.iter().enumerate() {
        assert_eq!(*value, spin_reference(gid as u32, rounds), "spin work-item {gid}");
    }
    busy_threads(&before, &after, 0.05)
}
