//! `clCreateSubDevices` (API section 4.3, "Partitioning a Device"): reading the partition
//! properties, and choosing which compute units of a device go to each sub-device. A compute
//! unit is one CPU (see `cpuset`), so a sub-device is a set of the parent's CPUs.

use crate::topology::{Topology, DOMAINS};
use opencl_sys::*;

/// A partition scheme and its value, as read from the properties.
#[derive(Clone, Debug, PartialEq)]
pub enum Scheme {
    /// `CL_DEVICE_PARTITION_EQUALLY`: as many sub-devices of `n` units as fit.
    Equally(usize),
    /// `CL_DEVICE_PARTITION_BY_COUNTS`: one sub-device per count.
    ByCounts(Vec<usize>),
    /// `CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN`: one sub-device per group of units sharing a
    /// NUMA node or a cache.
    ByAffinity(cl_device_affinity_domain),
}

/// Which units (indexes into the parent's) each sub-device gets, and what its
/// `CL_DEVICE_PARTITION_TYPE` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub groups: Vec<Vec<usize>>,
    pub partition_type: Vec<cl_device_partition_property>,
}

/// Reads a property list through `at` (its entries by index) for a device of `units` compute
/// units. Reading stops at the list's end, and a counts list is not read past the most
/// sub-devices a device of `units` may have. Errors: "CL_INVALID_VALUE if values specified in
/// properties are not valid" (an unknown name, a zero count, more than one scheme: the list
/// must end with 0 right after the scheme's value); "CL_INVALID_DEVICE_PARTITION_COUNT if the
/// number of compute units requested for one or more sub-devices is less than zero" or the
/// number of sub-devices requested exceeds `CL_DEVICE_PARTITION_MAX_SUB_DEVICES`.
pub fn parse(at: impl Fn(usize) -> cl_device_partition_property, units: usize) -> Result<Scheme, cl_int> {
    let count = |value: cl_device_partition_property| -> Result<usize, cl_int> {
        usize::try_from(value).map_err(|_| CL_INVALID_DEVICE_PARTITION_COUNT)
    };
    let (scheme, end) = match at(0) {
        CL_DEVICE_PARTITION_EQUALLY => match count(at(1))? {
            0 => return Err(CL_INVALID_VALUE),
            n => (Scheme::Equally(n), 2),
        },
        CL_DEVICE_PARTITION_BY_COUNTS => {
            let mut counts = Vec::new();
            let mut i = 1;
            while at(i) != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END {
                counts.push(count(at(i))?);
                if counts.len() > max_sub_devices(units) {
                    return Err(CL_INVALID_DEVICE_PARTITION_COUNT);
                }
                i += 1;
            }
            if counts.is_empty() {
                return Err(CL_INVALID_VALUE);
            }
            (Scheme::ByCounts(counts), i + 1)
        }
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN => {
            let domain = at(1) as cl_device_affinity_domain;
            if !DOMAINS.contains(&domain) && domain != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE {
                return Err(CL_INVALID_VALUE);
            }
            (Scheme::ByAffinity(domain), 2)
        }
        _ => return Err(CL_INVALID_VALUE),
    };
    // "Only one of the listed partitioning schemes can be specified"; "the list is terminated
    // with 0".
    if at(end) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    Ok(scheme)
}

/// `CL_DEVICE_PARTITION_MAX_SUB_DEVICES`: one sub-device per unit; 0 for a device that cannot
/// be partitioned (one unit).
pub fn max_sub_devices(units: usize) -> usize {
    if units >= 2 {
        units
    } else {
        0
    }
}

/// `CL_DEVICE_PARTITION_PROPERTIES`: every scheme for a device of two or more units ("If the
/// device cannot be partitioned ... a value of 0 will be returned"); by affinity domain only
/// where the machine describes one.
pub fn schemes(units: &[usize], topology: &Topology) -> Vec<cl_device_partition_property> {
    if units.len() < 2 {
        return vec![0];
    }
    let mut out = vec![
        CL_DEVICE_PARTITION_EQUALLY as cl_device_partition_property,
        CL_DEVICE_PARTITION_BY_COUNTS as cl_device_partition_property,
    ];
    if affinity_domains(units, topology) != 0 {
        out.push(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN as cl_device_partition_property);
    }
    out
}

/// `CL_DEVICE_PARTITION_AFFINITY_DOMAIN`: the domains the machine describes for every unit of
/// the device, with NEXT_PARTITIONABLE when there is any.
pub fn affinity_domains(units: &[usize], topology: &Topology) -> cl_device_affinity_domain {
    if units.len() < 2 {
        return 0;
    }
    // Only the domains that split the device: a partition along a domain whose one group holds
    // every CPU would be the device itself, and applications (the CTS's buffer_migrate among
    // them) partition along every domain the device lists and expect sub-devices.
    let found = DOMAINS
        .iter()
        .filter(|&&d| {
            units.iter().all(|&cpu| topology.group(d, cpu).is_some()) && by_domain(units, d, topology).len() >= 2
        })
        .fold(0, |acc, d| acc | d);
    if found != 0 {
        found | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE
    } else {
        0
    }
}

/// The sub-devices `scheme` makes of a device whose units run on the CPUs `units`.
/// "CL_INVALID_DEVICE_PARTITION_COUNT if ... the total number of compute units requested
/// exceeds CL_DEVICE_MAX_COMPUTE_UNITS"; "CL_INVALID_VALUE if values specified in properties
/// are valid but not supported by in_device" (a one-unit device, an affinity domain the
/// machine lacks, or one whose single group holds every CPU of the device: see
/// [`affinity_domains`]); "CL_DEVICE_PARTITION_FAILED if the partition name is supported by
/// the implementation but in_device could not be further partitioned" (equally or by counts
/// into the device itself).
pub fn plan(units: &[usize], scheme: &Scheme, topology: &Topology) -> Result<Plan, cl_int> {
    let n = units.len();
    if n < 2 {
        return Err(CL_INVALID_VALUE);
    }
    let prop = |v: usize| v as cl_device_partition_property;
    let (groups, partition_type) = match scheme {
        Scheme::Equally(size) => {
            if *size > n {
                return Err(CL_INVALID_DEVICE_PARTITION_COUNT);
            }
            let groups = (0..n / size).map(|i| (i * size..(i + 1) * size).collect()).collect();
            (groups, vec![prop(CL_DEVICE_PARTITION_EQUALLY as usize), prop(*size), 0])
        }
        Scheme::ByCounts(counts) => {
            if counts
                .iter()
                .try_fold(0usize, |a, c| a.checked_add(*c))
                .is_none_or(|total| total > n)
            {
                return Err(CL_INVALID_DEVICE_PARTITION_COUNT);
            }
            let mut next = 0;
            let groups = counts
                .iter()
                .map(|&c| {
                    next += c;
                    (next - c..next).collect()
                })
                .collect();
            let mut ty = vec![prop(CL_DEVICE_PARTITION_BY_COUNTS as usize)];
            ty.extend(counts.iter().map(|&c| prop(c)));
            ty.extend([
                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END as cl_device_partition_property,
                0,
            ]);
            (groups, ty)
        }
        Scheme::ByAffinity(domain) => {
            let supported = affinity_domains(units, topology);
            let chosen = if *domain == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE && supported != 0 {
                DOMAINS
                    .iter()
                    .copied()
                    .find(|&d| supported & d != 0 && by_domain(units, d, topology).len() >= 2)
                    .ok_or(CL_DEVICE_PARTITION_FAILED)?
            } else if supported & domain != 0 {
                *domain
            } else {
                return Err(CL_INVALID_VALUE);
            };
            let ty = vec![
                prop(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN as usize),
                chosen as cl_device_partition_property,
                0,
            ];
            (by_domain(units, chosen, topology), ty)
        }
    };
    if groups.len() < 2 && groups.first().is_none_or(|g: &Vec<usize>| g.len() == n) {
        return Err(CL_DEVICE_PARTITION_FAILED);
    }
    Ok(Plan { groups, partition_type })
}

/// The units grouped by the group their CPU has in `domain`, groups in order of first unit.
fn by_domain(units: &[usize], domain: cl_device_affinity_domain, topology: &Topology) -> Vec<Vec<usize>> {
    let mut keys: Vec<Option<usize>> = Vec::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, &cpu) in units.iter().enumerate() {
        let key = topology.group(domain, cpu);
        match keys.iter().position(|k| *k == key) {
            Some(g) => groups[g].push(i),
            None => {
                keys.push(key);
                groups.push(vec![i]);
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(props: &[cl_device_partition_property]) -> impl Fn(usize) -> cl_device_partition_property + '_ {
        // Entries past the slice read as a non-zero guard, so a parser reading too far fails.
        move |i| props.get(i).copied().unwrap_or(0x7777)
    }

    const EQ: cl_device_partition_property = CL_DEVICE_PARTITION_EQUALLY as _;
    const BC: cl_device_partition_property = CL_DEVICE_PARTITION_BY_COUNTS as _;
    const AF: cl_device_partition_property = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN as _;

    #[test]
    fn parsing() {
        assert_eq!(parse(list(&[EQ, 2, 0]), 4), Ok(Scheme::Equally(2)));
        assert_eq!(parse(list(&[EQ, 0, 0]), 4), Err(CL_INVALID_VALUE));
        assert_eq!(parse(list(&[EQ, -1, 0]), 4), Err(CL_INVALID_DEVICE_PARTITION_COUNT));
        assert_eq!(parse(list(&[EQ, 1, EQ, 1, 0]), 4), Err(CL_INVALID_VALUE));
        assert_eq!(parse(list(&[BC, 3, 1, 0, 0]), 4), Ok(Scheme::ByCounts(vec![3, 1])));
        assert_eq!(parse(list(&[BC, 0, 0]), 4), Err(CL_INVALID_VALUE));
        assert_eq!(
            parse(list(&[BC, 1, -2, 0, 0]), 4),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
        assert_eq!(
            parse(list(&[BC, 1, 1, 1, 0, 0]), 2),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
        assert_eq!(parse(list(&[BC, 1, 0, EQ, 1, 0]), 4), Err(CL_INVALID_VALUE));
        let numa = CL_DEVICE_AFFINITY_DOMAIN_NUMA as cl_device_partition_property;
        assert_eq!(
            parse(list(&[AF, numa, 0]), 4),
            Ok(Scheme::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_NUMA))
        );
        assert_eq!(parse(list(&[AF, 3, 0]), 4), Err(CL_INVALID_VALUE));
        assert_eq!(parse(list(&[0]), 4), Err(CL_INVALID_VALUE));
        assert_eq!(parse(list(&[-1, 1, 0]), 4), Err(CL_INVALID_VALUE));
    }

    #[test]
    fn plans() {
        let t = Topology::default();
        let units = [0, 1, 2, 3, 4];
        let p = plan(&units, &Scheme::Equally(2), &t).unwrap();
        assert_eq!(p.groups, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(p.partition_type, vec![EQ, 2, 0]);
        assert_eq!(plan(&units, &Scheme::Equally(5), &t), Err(CL_DEVICE_PARTITION_FAILED));
        assert_eq!(
            plan(&units, &Scheme::Equally(6), &t),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
        let p = plan(&units, &Scheme::ByCounts(vec![1, 3]), &t).unwrap();
        assert_eq!(p.groups, vec![vec![0], vec![1, 2, 3]]);
        assert_eq!(p.partition_type, vec![BC, 1, 3, 0, 0]);
        assert_eq!(
            plan(&units, &Scheme::ByCounts(vec![3]), &t).map(|p| p.groups.len()),
            Ok(1)
        );
        assert_eq!(
            plan(&units, &Scheme::ByCounts(vec![5]), &t),
            Err(CL_DEVICE_PARTITION_FAILED)
        );
        assert_eq!(
            plan(&units, &Scheme::ByCounts(vec![3, 3]), &t),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
        assert_eq!(plan(&[0], &Scheme::Equally(1), &t), Err(CL_INVALID_VALUE));
        let next = Scheme::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
        assert_eq!(plan(&units, &next, &t), Err(CL_INVALID_VALUE), "no domain known");
        assert_eq!(schemes(&units, &t), vec![EQ, BC]);
        assert_eq!(schemes(&[3], &t), vec![0]);
        assert_eq!(max_sub_devices(1), 0);
    }

    #[test]
    fn affinity_plans() {
        // One NUMA node, an L2 per pair of CPUs, an L1 per CPU.
        let mut t = Topology::default();
        t.add(CL_DEVICE_AFFINITY_DOMAIN_NUMA, &[0, 1, 2, 3]);
        t.add(CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, &[0, 1]);
        t.add(CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, &[2, 3]);
        for cpu in 0..4 {
            t.add(CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, &[cpu]);
        }
        let units = [0, 1, 2, 3];
        let by = |d| plan(&units, &Scheme::ByAffinity(d), &t);
        // One NUMA node holds every CPU: not a domain of this device.
        assert_eq!(by(CL_DEVICE_AFFINITY_DOMAIN_NUMA), Err(CL_INVALID_VALUE));
        assert_eq!(by(CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE), Err(CL_INVALID_VALUE));
        assert_eq!(
            by(CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE).unwrap().groups,
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(by(CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE).unwrap().groups.len(), 4);
        let next = by(CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE).unwrap();
        assert_eq!(
            next.partition_type[1],
            CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE as cl_device_partition_property
        );
        let domains = affinity_domains(&units, &t);
        assert_eq!(domains & CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, 0);
        assert_eq!(domains & CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0);
        assert_ne!(domains & CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0);
        // A sub-device of one L2 splits only along L1; units on the same CPU stay together.
        let sub = [2, 3];
        let next = plan(
            &sub,
            &Scheme::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE),
            &t,
        )
        .unwrap();
        assert_eq!(
            next.partition_type[1],
            CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE as cl_device_partition_property
        );
        let l1 = plan(&[1, 1, 2], &Scheme::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE), &t).unwrap();
        assert_eq!(l1.groups, vec![vec![0, 1], vec![2]]);
    }
}
