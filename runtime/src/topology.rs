//! The machine's affinity domains, for `CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN`: which CPUs
//! share a NUMA node (/sys/devices/system/node/node*/cpulist) and which share each level of
//! data cache (/sys/devices/system/cpu/cpu*/cache/index*/shared_cpu_list).

use opencl_sys::*;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The affinity domains in the order NEXT_PARTITIONABLE tries them: outermost first.
pub const DOMAINS: [cl_device_affinity_domain; 5] = [
    CL_DEVICE_AFFINITY_DOMAIN_NUMA,
    CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
];

/// For each domain, the group each CPU belongs to (the lowest CPU of the group names it).
#[derive(Default, Debug)]
pub struct Topology {
    groups: HashMap<cl_device_affinity_domain, HashMap<usize, usize>>,
    /// The NUMA node number of each CPU.
    nodes: HashMap<usize, usize>,
}

impl Topology {
    /// The group of `cpu` in `domain`, `None` where the machine does not describe it.
    pub fn group(&self, domain: cl_device_affinity_domain, cpu: usize) -> Option<usize> {
        self.groups.get(&domain)?.get(&cpu).copied()
    }

    /// The NUMA node all of `cpus` lie in, if there is one.
    pub fn common_node(&self, cpus: &[usize]) -> Option<usize> {
        let first = *self.nodes.get(cpus.first()?)?;
        cpus.iter().all(|c| self.nodes.get(c) == Some(&first)).then_some(first)
    }

    pub(crate) fn add(&mut self, domain: cl_device_affinity_domain, cpus: &[usize]) {
        if let Some(&first) = cpus.iter().min() {
            let map = self.groups.entry(domain).or_default();
            for &cpu in cpus {
                map.insert(cpu, first);
            }
        }
    }
}

/// The topology of this machine, read once.
pub fn machine() -> &'static Topology {
    static TOPOLOGY: OnceLock<Topology> = OnceLock::new();
    TOPOLOGY.get_or_init(|| read_sysfs("/sys/devices/system"))
}

fn read_sysfs(root: &str) -> Topology {
    let mut topology = Topology::default();
    for (node, dir) in numbered_dirs(&format!("{root}/node"), "node") {
        let cpus = parse_cpu_list(&read(&format!("{dir}/cpulist")));
        topology.add(CL_DEVICE_AFFINITY_DOMAIN_NUMA, &cpus);
        topology.nodes.extend(cpus.iter().map(|&c| (c, node)));
    }
    for (_, cpu_dir) in numbered_dirs(&format!("{root}/cpu"), "cpu") {
        for (_, cache) in numbered_dirs(&format!("{cpu_dir}/cache"), "index") {
            if read(&format!("{cache}/type")).trim() == "Instruction" {
                continue;
            }
            let domain = match read(&format!("{cache}/level")).trim() {
                "1" => CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
                "2" => CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
                "3" => CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
                "4" => CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
                _ => continue,
            };
            let cpus = parse_cpu_list(&read(&format!("{cache}/shared_cpu_list")));
            topology.add(domain, &cpus);
        }
    }
    topology
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The entries `<prefix><number>` of a folder, as (number, path).
fn numbered_dirs(dir: &str, prefix: &str) -> Vec<(usize, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(usize, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix(prefix)?.parse().ok()?;
            Some((n, format!("{dir}/{name}")))
        })
        .collect();
    out.sort();
    out
}

/// "0-3,8,10-11" as CPU numbers; nothing for malformed parts.
pub fn parse_cpu_list(text: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    cpus.extend(a..=b.min(a.saturating_add(1 << 16)));
                }
            }
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    cpus
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse_cpu_list(""), Vec::<usize>::new());
        assert_eq!(parse_cpu_list("x,2"), vec![2]);
    }

    #[test]
    fn a_fake_two_socket_machine() {
        let dir = std::env::temp_dir().join(format!("clift-topology-{}", std::process::id()));
        let w = |path: &str, text: &str| {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("node/node0/cpulist", "0-1\n");
        w("node/node1/cpulist", "2-3\n");
        for cpu in 0..4 {
            w(&format!("cpu/cpu{cpu}/cache/index0/level"), "1");
            w(&format!("cpu/cpu{cpu}/cache/index0/type"), "Data");
            w(&format!("cpu/cpu{cpu}/cache/index0/shared_cpu_list"), &cpu.to_string());
            w(&format!("cpu/cpu{cpu}/cache/index1/level"), "1");
            w(&format!("cpu/cpu{cpu}/cache/index1/type"), "Instruction");
            w(&format!("cpu/cpu{cpu}/cache/index1/shared_cpu_list"), "0-3");
            w(&format!("cpu/cpu{cpu}/cache/index2/level"), "3");
            w(&format!("cpu/cpu{cpu}/cache/index2/type"), "Unified");
            let l3 = if cpu < 2 { "0-1" } else { "2-3" };
            w(&format!("cpu/cpu{cpu}/cache/index2/shared_cpu_list"), l3);
        }
        let t = read_sysfs(dir.to_str().unwrap());
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(t.group(CL_DEVICE_AFFINITY_DOMAIN_NUMA, 3), Some(2));
        assert_eq!(t.common_node(&[2, 3]), Some(1));
        assert_eq!(t.common_node(&[1, 2]), None);
        assert_eq!(t.common_node(&[]), None);
        assert_eq!(t.group(CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, 1), Some(0));
        assert_eq!(t.group(CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, 1), Some(1));
        assert_eq!(t.group(CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, 0), None);
        assert_eq!(t.group(CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, 0), None);
    }
}
