//! The CPUs this process may run on: its affinity mask (what `taskset`, `mpirun --bind-to`
//! and batch schedulers set), trimmed to the CPU quota of its cgroup (what container runtimes
//! set). Clift's compute units are these CPUs, and each worker thread is pinned to one of them.

use std::path::Path;

/// The CPUs of the affinity mask (ascending), at most as many as the cgroup's quota allows;
/// never empty.
pub fn process_cpus() -> Vec<usize> {
    let mut cpus = affinity().unwrap_or_else(|| (0..online_cpus()).collect());
    if cpus.is_empty() {
        cpus.push(0);
    }
    if let Some(limit) = cgroup_cpu_limit() {
        cpus.truncate(limit.max(1));
    }
    cpus
}

/// The calling thread's affinity mask (`sched_getaffinity`), as CPU numbers.
fn affinity() -> Option<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the kernel writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return None;
    }
    let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: the index is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect();
    (!cpus.is_empty()).then_some(cpus)
}

fn online_cpus() -> usize {
    // SAFETY: sysconf only reads a system value.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).ok().filter(|n| *n > 0).unwrap_or(1)
}

/// Pins the calling thread to one CPU. Fails quietly (the thread then runs anywhere in the
/// process's mask) where the system refuses, e.g. a CPU that went offline.
pub fn pin_current_thread(cpu: usize) {
    if cpu >= libc::CPU_SETSIZE as usize {
        return;
    }
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the index is below CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Whole CPUs the cgroup lets this process use: the tightest quota of its cgroup and the
/// cgroups above it (v2 `cpu.max`; v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded up.
/// `None` without a quota.
fn cgroup_cpu_limit() -> Option<usize> {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut limits = Vec::new();
    if let Some(path) = cgroup_v2_path(&own) {
        for dir in ancestors(Path::new("/sys/fs/cgroup"), &path) {
            let text = std::fs::read_to_string(dir.join("cpu.max")).unwrap_or_default();
            limits.extend(cpu_max_limit(&text));
        }
    }
    for root in ["/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"] {
        let path = cgroup_v1_path(&own).unwrap_or_default();
        for dir in ancestors(Path::new(root), &path) {
            let quota = std::fs::read_to_string(dir.join("cpu.cfs_quota_us")).unwrap_or_default();
            let period = std::fs::read_to_string(dir.join("cpu.cfs_period_us")).unwrap_or_default();
            limits.extend(cfs_limit(&quota, &period));
        }
    }
    limits.into_iter().min()
}

/// The cgroup v2 path of this process: the "0::/path" line of /proc/self/cgroup.
fn cgroup_v2_path(own: &str) -> Option<String> {
    own.lines().find_map(|l| l.strip_prefix("0::")).map(str::to_string)
}

/// The cgroup v1 path of the cpu controller: "N:cpu,cpuacct:/path".
fn cgroup_v1_path(own: &str) -> Option<String> {
    own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == "cpu").then(|| path.to_string())
    })
}

/// `root/path`, then each folder above it up to `root`. Inside a container the cgroup
/// namespace makes the process's own cgroup the root, so `root` alone is always included.
fn ancestors(root: &Path, path: &str) -> Vec<std::path::PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let mut dir = root.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty() && *p != "..") {
        dir.push(part);
        dirs.push(dir.clone());
    }
    dirs
}

/// cgroup v2 `cpu.max`: "QUOTA PERIOD" in microseconds, or "max PERIOD" for no limit.
fn cpu_max_limit(text: &str) -> Option<usize> {
    let mut words = text.split_whitespace();
    let quota: u64 = words.next()?.parse().ok()?;
    let period: u64 = words.next().and_then(|p| p.parse().ok()).unwrap_or(100_000);
    whole_cpus(quota, period)
}

/// cgroup v1: a quota of -1 means no limit.
fn cfs_limit(quota: &str, period: &str) -> Option<usize> {
    let quota: i64 = quota.trim().parse().ok()?;
    let period: u64 = period.trim().parse().ok()?;
    whole_cpus(u64::try_from(quota).ok()?, period)
}

/// A quota of 150 ms per 100 ms period lets 1.5 CPUs run: 2 threads can use it.
fn whole_cpus(quota: u64, period: u64) -> Option<usize> {
    if quota == 0 || period == 0 {
        return None;
    }
    usize::try_from(quota.div_ceil(period)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas() {
        assert_eq!(cpu_max_limit("max 100000\n"), None);
        assert_eq!(cpu_max_limit("200000 100000\n"), Some(2));
        assert_eq!(cpu_max_limit("150000 100000"), Some(2));
        assert_eq!(cpu_max_limit("50000 100000"), Some(1));
        assert_eq!(cpu_max_limit(""), None);
        assert_eq!(cfs_limit("-1\n", "100000\n"), None);
        assert_eq!(cfs_limit("400000\n", "100000\n"), Some(4));
        assert_eq!(cfs_limit("0", "100000"), None);
        assert_eq!(cfs_limit("x", "100000"), None);
    }

    #[test]
    fn cgroup_paths() {
        let v2 = "0::/user.slice/job-7\n";
        assert_eq!(cgroup_v2_path(v2).as_deref(), Some("/user.slice/job-7"));
        let v1 = "12:memory:/a\n4:cpu,cpuacct:/slurm/job_3\n";
        assert_eq!(cgroup_v1_path(v1).as_deref(), Some("/slurm/job_3"));
        assert_eq!(cgroup_v1_path("3:cpuset:/x\n"), None);
        let dirs = ancestors(Path::new("/sys/fs/cgroup"), "/a/b");
        assert_eq!(dirs.len(), 3);
        assert_eq!(dirs[2], Path::new("/sys/fs/cgroup/a/b"));
        assert_eq!(ancestors(Path::new("/r"), "/").len(), 1);
    }

    #[test]
    fn this_process_has_cpus() {
        let cpus = process_cpus();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]));
    }
}
