//! Device partitioning (issue 19): clCreateSubDevices equally, by counts and by every affinity
//! domain the machine describes (expected groups read from sysfs here, independently of
//! Clift), sub-devices of sub-devices, every sub-device query and reference count, contexts
//! mixing the root device and sub-devices, and where the work of a sub-device's queue ran
//! (the CPU time and CPU mask of every thread, see `cts::threads`). Bad partitions get the
//! spec's errors.

use cts::threads::*;
use cts::*;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// Tests that measure which threads ran a kernel run one at a time.
static MEASURE: Mutex<()> = Mutex::new(());

const ITEMS: usize = 32;
/// Rounds of `spin` per work-item: enough that the worker threads' CPU time dwarfs the
/// enqueuing thread's own (its work-groups of one work-item run several at a time in the
/// vector loop since groups of kernels that cannot tell them apart run together).
const ROUNDS: u32 = 4_000_000;

/// A sub-device handle with one application reference, released on drop.
struct SubDevice(cl_device_id);

impl Drop for SubDevice {
    fn drop(&mut self) {
        let err = unsafe { clReleaseDevice(self.0) };
        if !std::thread::panicking() {
            assert_eq!(err, CL_SUCCESS, "clReleaseDevice: {}", err_name(err));
        }
    }
}

fn try_partition(d: cl_device_id, props: &[cl_device_partition_property]) -> Result<Vec<SubDevice>, cl_int> {
    let mut n: cl_uint = 0;
    let err = unsafe { clCreateSubDevices(d, props.as_ptr(), 0, ptr_null(), &mut n) };
    if err != CL_SUCCESS {
        return Err(err);
    }
    assert!(n >= 1, "clCreateSubDevices counted no sub-devices");
    let mut out = vec![std::ptr::null_mut(); n as usize];
    let mut n2: cl_uint = 0;
    let err = unsafe { clCreateSubDevices(d, props.as_ptr(), n, out.as_mut_ptr(), &mut n2) };
    assert_eq!(err, CL_SUCCESS, "second clCreateSubDevices: {}", err_name(err));
    assert_eq!(n, n2, "the count differs between the two calls");
    assert!(out.iter().all(|d| !d.is_null()));
    Ok(out.into_iter().map(SubDevice).collect())
}

fn ptr_null() -> *mut cl_device_id {
    std::ptr::null_mut()
}

fn partition(d: cl_device_id, props: &[cl_device_partition_property]) -> Vec<SubDevice> {
    try_partition(d, props).unwrap_or_else(|e| panic!("clCreateSubDevices({props:?}): {}", err_name(e)))
}

fn uint(d: cl_device_id, param: cl_device_info) -> cl_uint {
    info_scalar(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) }).expect("clGetDeviceInfo")
}

fn ulong(d: cl_device_id, param: cl_device_info) -> cl_ulong {
    info_scalar(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) }).expect("clGetDeviceInfo")
}

fn props(d: cl_device_id, param: cl_device_info) -> Vec<cl_device_partition_property> {
    bytes_to_vec(&device_bytes(d, param).expect("clGetDeviceInfo"))
}

fn parent(d: cl_device_id) -> cl_device_id {
    info_scalar(|s, v, r| unsafe { clGetDeviceInfo(d, CL_DEVICE_PARENT_DEVICE, s, v, r) }).expect("parent")
}

fn units(d: cl_device_id) -> usize {
    uint(d, CL_DEVICE_MAX_COMPUTE_UNITS) as usize
}

/// A context on `devices`.
fn context_of(devices: &[cl_device_id]) -> Context {
    let mut err = 0;
    let c = unsafe {
        clCreateContext(
            std::ptr::null(),
            devices.len() as cl_uint,
            devices.as_ptr(),
            None,
            std::ptr::null_mut(),
            &mut err,
        )
    };
    assert_eq!(err, CL_SUCCESS, "clCreateContext: {}", err_name(err));
    Context(c)
}

fn queue_on(ctx: &Context, d: cl_device_id) -> Queue {
    let mut err = 0;
    let q = unsafe { clCreateCommandQueueWithProperties(ctx.0, d, std::ptr::null(), &mut err) };
    assert_eq!(err, CL_SUCCESS, "clCreateCommandQueueWithProperties: {}", err_name(err));
    Queue(q)
}

/// Runs the spin kernel on a queue of `d` and returns the CPUs the threads that ran it may
/// use, checking they are Clift's pinned workers.
fn cpus_that_ran(d: cl_device_id) -> BTreeSet<usize> {
    let _one = MEASURE.lock().unwrap_or_else(|e| e.into_inner());
    let ctx = context_of(&[d]);
    let q = queue_on(&ctx, d);
    let busy = run_spin(&ctx, &q, ITEMS, ROUNDS);
    assert!(!busy.is_empty());
    assert!(busy.len() <= units(d), "more threads than compute units ran: {busy:?}");
    let mut cpus = BTreeSet::new();
    for (t, _) in &busy {
        assert!(t.name.starts_with("clift-worker"), "a sub-device's work ran on {t:?}");
        assert_eq!(t.allowed.len(), 1, "{} is pinned to one CPU", t.name);
        cpus.extend(&t.allowed);
    }
    cpus
}

const EQ: cl_device_partition_property = CL_DEVICE_PARTITION_EQUALLY;
const BC: cl_device_partition_property = CL_DEVICE_PARTITION_BY_COUNTS;
const AF: cl_device_partition_property = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
const END: cl_device_partition_property = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;

/// The process's CPUs as Clift should see them (no CLIFT_THREADS in these tests).
fn root_cpus() -> Vec<usize> {
    affinity()
}

fn skip_without_two_cpus() -> bool {
    if std::env::var_os("CLIFT_THREADS").is_some() || units(device()) < 2 {
        eprintln!("skipped: needs two compute units from two CPUs and no CLIFT_THREADS");
        return true;
    }
    false
}

#[test]
fn root_device_reports_the_partition_schemes() {
    let d = device();
    let n = units(d);
    assert_eq!(parent(d), std::ptr::null_mut());
    assert_eq!(uint(d, CL_DEVICE_REFERENCE_COUNT), 1);
    assert_eq!(props(d, CL_DEVICE_PARTITION_TYPE), vec![0]);
    let schemes = props(d, CL_DEVICE_PARTITION_PROPERTIES);
    if n < 2 {
        assert_eq!(schemes, vec![0]);
        assert_eq!(uint(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), 0);
        return;
    }
    assert!(schemes.contains(&EQ) && schemes.contains(&BC), "{schemes:?}");
    assert_eq!(uint(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) as usize, n);
    let domains = ulong(d, CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
    assert_eq!(schemes.contains(&AF), domains != 0);
    // Root devices are not counted.
    ok!(clRetainDevice(d));
    ok!(clReleaseDevice(d));
    ok!(clReleaseDevice(d));
    assert_eq!(uint(d, CL_DEVICE_REFERENCE_COUNT), 1);
}

#[test]
fn equally_one_unit_each_runs_on_distinct_cpus() {
    if skip_without_two_cpus() {
        return;
    }
    let root = device();
    let n = units(root);
    let subs = partition(root, &[EQ, 1, 0]);
    assert_eq!(subs.len(), n);
    let mut seen = BTreeSet::new();
    for s in &subs {
        assert_eq!(units(s.0), 1);
        assert_eq!(parent(s.0), root);
        assert_eq!(props(s.0, CL_DEVICE_PARTITION_TYPE), vec![EQ, 1, 0]);
        // A one-unit device cannot be partitioned further.
        assert_eq!(props(s.0, CL_DEVICE_PARTITION_PROPERTIES), vec![0]);
        assert_eq!(uint(s.0, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), 0);
        assert_eq!(ulong(s.0, CL_DEVICE_PARTITION_AFFINITY_DOMAIN), 0);
        check_err!(
            unsafe { clCreateSubDevices(s.0, [EQ, 1, 0].as_ptr(), 0, ptr_null(), std::ptr::null_mut()) },
            CL_INVALID_VALUE,
            "partitioning a one-unit sub-device"
        );
        let cpus = cpus_that_ran(s.0);
        assert_eq!(cpus.len(), 1, "a one-unit sub-device ran on {cpus:?}");
        assert!(
            seen.insert(*cpus.iter().next().unwrap()),
            "two sub-devices share CPU {cpus:?}"
        );
    }
    assert!(seen.iter().all(|c| root_cpus().contains(c)));
}

#[test]
fn by_counts_and_reference_counts() {
    if skip_without_two_cpus() {
        return;
    }
    let root = device();
    let n = units(root);
    let subs = partition(root, &[BC, 1, (n - 1) as isize, END, 0]);
    assert_eq!(subs.len(), 2);
    assert_eq!(units(subs[0].0), 1);
    assert_eq!(units(subs[1].0), n - 1);
    assert_eq!(
        props(subs[1].0, CL_DEVICE_PARTITION_TYPE),
        vec![BC, 1, (n - 1) as isize, END, 0]
    );
    let a = cpus_that_ran(subs[0].0);
    let b = cpus_that_ran(subs[1].0);
    assert!(a.is_disjoint(&b), "sub-devices overlap: {a:?} {b:?}");
    // Reference counts of a sub-device.
    let s = subs[0].0;
    assert_eq!(uint(s, CL_DEVICE_REFERENCE_COUNT), 1);
    ok!(clRetainDevice(s));
    assert_eq!(uint(s, CL_DEVICE_REFERENCE_COUNT), 2);
    ok!(clReleaseDevice(s));
    assert_eq!(uint(s, CL_DEVICE_REFERENCE_COUNT), 1);
    // Released to zero, the handle is no longer valid.
    let extra = partition(root, &[EQ, 1, 0]);
    let gone = extra[0].0;
    drop(extra);
    check_err!(
        unsafe { clRetainDevice(gone) },
        CL_INVALID_DEVICE,
        "clRetainDevice on a released sub-device"
    );
}

/// The groups the machine's topology makes of `cpus` in `domain`, from sysfs.
fn expected_groups(domain: cl_device_affinity_domain, cpus: &[usize]) -> Option<Vec<BTreeSet<usize>>> {
    let read = |p: String| std::fs::read_to_string(p).ok();
    let mut groups: Vec<BTreeSet<usize>> = Vec::new();
    for &cpu in cpus {
        let shared: BTreeSet<usize> = if domain == CL_DEVICE_AFFINITY_DOMAIN_NUMA {
            (0..1024)
                .filter_map(|n| read(format!("/sys/devices/system/node/node{n}/cpulist")))
                .map(|l| parse_cpu_list(l.trim()))
                .find(|l| l.contains(&cpu))?
                .into_iter()
                .collect()
        } else {
            let level = match domain {
                CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE => "4",
                CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE => "3",
                CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE => "2",
                _ => "1",
            };
            let base = format!("/sys/devices/system/cpu/cpu{cpu}/cache");
            (0..16)
                .filter(|i| read(format!("{base}/index{i}/level")).is_some_and(|l| l.trim() == level))
                .filter(|i| read(format!("{base}/index{i}/type")).is_some_and(|t| t.trim() != "Instruction"))
                .find_map(|i| read(format!("{base}/index{i}/shared_cpu_list")))
                .map(|l| parse_cpu_list(l.trim()).into_iter().collect())?
        };
        let mine: BTreeSet<usize> = shared.into_iter().filter(|c| cpus.contains(c)).collect();
        if !groups.contains(&mine) {
            groups.push(mine);
        }
    }
    Some(groups)
}

const DOMAINS: [(cl_device_affinity_domain, &str); 5] = [
    (CL_DEVICE_AFFINITY_DOMAIN_NUMA, "NUMA"),
    (CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, "L4"),
    (CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, "L3"),
    (CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, "L2"),
    (CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, "L1"),
];

#[test]
fn every_affinity_domain_of_the_machine() {
    if skip_without_two_cpus() {
        return;
    }
    let root = device();
    let cpus = root_cpus();
    let reported = ulong(root, CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
    let mut first_split = None;
    for (domain, name) in DOMAINS {
        let expected = expected_groups(domain, &cpus);
        // Listed exactly when the machine has the domain and it splits the device's CPUs.
        assert_eq!(
            reported & domain != 0,
            expected.as_ref().is_some_and(|g| g.len() >= 2),
            "{name}: CL_DEVICE_PARTITION_AFFINITY_DOMAIN {reported:#x} against sysfs"
        );
        let result = try_partition(root, &[AF, domain as isize, 0]);
        let Some(expected) = expected else {
            assert_eq!(
                result.err(),
                Some(CL_INVALID_VALUE),
                "{name}: a domain the machine lacks"
            );
            continue;
        };
        if expected.len() < 2 {
            assert_eq!(
                result.err(),
                Some(CL_INVALID_VALUE),
                "{name}: one group holds every CPU, so the domain is not the device's"
            );
            continue;
        }
        first_split.get_or_insert(domain);
        let subs = result.unwrap_or_else(|e| panic!("{name}: {}", err_name(e)));
        assert_eq!(subs.len(), expected.len(), "{name}: sub-devices against {expected:?}");
        let mut used = Vec::new();
        for s in &subs {
            assert_eq!(props(s.0, CL_DEVICE_PARTITION_TYPE), vec![AF, domain as isize, 0]);
            let ran = cpus_that_ran(s.0);
            let group = expected
                .iter()
                .find(|g| ran.is_subset(g))
                .unwrap_or_else(|| panic!("{name}: work ran on {ran:?}, not inside one of {expected:?}"));
            assert_eq!(units(s.0), group.len(), "{name}: units of the sub-device on {group:?}");
            assert!(!used.contains(group), "{name}: two sub-devices on {group:?}");
            used.push(group.clone());
        }
    }
    // NEXT_PARTITIONABLE picks the outermost domain that splits, and says which.
    let next = try_partition(root, &[AF, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE as isize, 0]);
    match first_split {
        Some(domain) => {
            let subs = next.unwrap_or_else(|e| panic!("NEXT_PARTITIONABLE: {}", err_name(e)));
            assert_eq!(props(subs[0].0, CL_DEVICE_PARTITION_TYPE), vec![AF, domain as isize, 0]);
        }
        None if reported != 0 => panic!("domains {reported:#x} listed, but none splits the device"),
        None => assert_eq!(next.err(), Some(CL_INVALID_VALUE)),
    }
}

/// A context holding the root device and its sub-devices: one buffer updated in turn by a
/// queue on each, every result checked.
#[test]
fn contexts_mix_root_and_sub_devices() {
    if skip_without_two_cpus() {
        return;
    }
    let _quiet = MEASURE.lock().unwrap_or_else(|e| e.into_inner());
    let root = device();
    let subs = partition(root, &[EQ, 1, 0]);
    let mut devices: Vec<cl_device_id> = subs.iter().map(|s| s.0).collect();
    devices.push(root);
    let ctx = context_of(&devices);
    let listed: Vec<cl_device_id> = bytes_to_vec(&context_bytes(ctx.0, CL_CONTEXT_DEVICES).unwrap());
    assert_eq!(listed, devices);
    let program = ctx.built_source("spin.cl", "");
    let kernel = program.kernel("spin");
    let out = ctx.buffer(ITEMS * 4);
    kernel.arg_mem(0, &out);
    for (i, &d) in devices.iter().enumerate() {
        let rounds = 1000 + i as u32;
        kernel.arg(1, &rounds);
        let q = queue_on(&ctx, d);
        q.run(&kernel, &[], &[ITEMS], &[]);
        let got: Vec<u32> = from_bytes(&q.read(&out, 0, ITEMS * 4));
        for (gid, v) in got.iter().enumerate() {
            assert_eq!(*v, spin_reference(gid as u32, rounds), "device {i} work-item {gid}");
        }
    }
    // A program built for the root device only also runs on its sub-devices.
    let p2 = ctx.source_program("spin.cl");
    ok!(clBuildProgram(
        p2.0,
        1,
        &root,
        std::ptr::null(),
        None,
        std::ptr::null_mut()
    ));
    let k2 = p2.kernel("spin");
    k2.arg_mem(0, &out);
    k2.arg(1, &7u32);
    let q = queue_on(&ctx, devices[0]);
    q.run(&k2, &[], &[ITEMS], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, ITEMS * 4));
    assert_eq!(got[5], spin_reference(5, 7));
}

/// Sub-devices of sub-devices, in a child with CLIFT_THREADS=4 so that two levels exist on
/// any machine: 4 units -> 2 x 2 -> 1 + 1.
#[test]
fn sub_devices_of_sub_devices() {
    if std::env::var_os("CTS_PARTITION_CHILD").is_none() {
        // Starting a process costs this one CPU time: not while another test measures.
        let _quiet = MEASURE.lock().unwrap_or_else(|e| e.into_inner());
        assert_child_passes(
            "sub_devices_of_sub_devices",
            &[("CTS_PARTITION_CHILD", "1"), ("CLIFT_THREADS", "4")],
            "child failed",
        );
        return;
    }
    let root = device();
    assert_eq!(units(root), 4);
    let halves = partition(root, &[EQ, 2, 0]);
    assert_eq!(halves.len(), 2);
    for half in &halves {
        assert_eq!(units(half.0), 2);
        assert_eq!(uint(half.0, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), 2);
        let quarters = partition(half.0, &[BC, 1, 1, END, 0]);
        for q in &quarters {
            assert_eq!(parent(q.0), half.0);
            assert_eq!(parent(parent(q.0)), root);
            assert_eq!(units(q.0), 1);
            assert_eq!(props(q.0, CL_DEVICE_PARTITION_TYPE), vec![BC, 1, 1, END, 0]);
            let ctx = context_of(&[q.0]);
            let queue = queue_on(&ctx, q.0);
            let busy = run_spin(&ctx, &queue, 8, ROUNDS);
            assert!(busy.len() <= 1, "a one-unit sub-device ran on {busy:?}");
        }
        // The half stays usable after its children are gone.
        check_err!(
            unsafe { clCreateSubDevices(half.0, [EQ, 2, 0].as_ptr(), 0, ptr_null(), std::ptr::null_mut()) },
            CL_DEVICE_PARTITION_FAILED,
            "EQUALLY with all of a sub-device's units"
        );
    }
}

#[test]
fn bad_partitions() {
    let root = device();
    let n = units(root) as isize;
    let count = |p: &[cl_device_partition_property]| unsafe {
        let mut k: cl_uint = 0;
        clCreateSubDevices(root, p.as_ptr(), 0, ptr_null(), &mut k)
    };
    check_err!(
        unsafe { clCreateSubDevices(root, std::ptr::null(), 0, ptr_null(), std::ptr::null_mut()) },
        CL_INVALID_VALUE,
        "NULL properties"
    );
    check_err!(
        unsafe {
            clCreateSubDevices(
                std::ptr::null_mut(),
                [EQ, 1, 0].as_ptr(),
                0,
                ptr_null(),
                std::ptr::null_mut(),
            )
        },
        CL_INVALID_DEVICE,
        "NULL device"
    );
    check_err!(count(&[0]), CL_INVALID_VALUE, "an empty list");
    check_err!(count(&[0x7fff, 1, 0]), CL_INVALID_VALUE, "an unknown scheme");
    if n < 2 {
        check_err!(count(&[EQ, 1, 0]), CL_INVALID_VALUE, "a one-unit device has no scheme");
        return;
    }
    check_err!(count(&[EQ, 0, 0]), CL_INVALID_VALUE, "EQUALLY 0");
    check_err!(count(&[EQ, -1, 0]), CL_INVALID_DEVICE_PARTITION_COUNT, "EQUALLY -1");
    check_err!(
        count(&[EQ, n + 1, 0]),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "EQUALLY more than the units"
    );
    check_err!(count(&[EQ, n, 0]), CL_DEVICE_PARTITION_FAILED, "EQUALLY all units");
    check_err!(count(&[EQ, 1, EQ, 1, 0]), CL_INVALID_VALUE, "two schemes");
    check_err!(count(&[EQ, 1, 5, 0]), CL_INVALID_VALUE, "EQUALLY not terminated by 0");
    check_err!(
        count(&[BC, n, 1, END, 0]),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "counts beyond the units"
    );
    check_err!(
        count(&[BC, 1, -1, END, 0]),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "a negative count"
    );
    let mut many = vec![BC];
    many.extend(std::iter::repeat_n(1, n as usize + 1));
    many.extend([END, 0]);
    check_err!(
        count(&many),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "more sub-devices than units"
    );
    check_err!(count(&[BC, END, 0]), CL_INVALID_VALUE, "an empty counts list");
    check_err!(
        count(&[BC, 1, END, EQ, 1, 0]),
        CL_INVALID_VALUE,
        "counts list followed by a scheme"
    );
    check_err!(count(&[AF, 3, 0]), CL_INVALID_VALUE, "two affinity domains at once");
    check_err!(count(&[AF, 0, 0]), CL_INVALID_VALUE, "no affinity domain");
    // Too small an output array.
    let mut one = [std::ptr::null_mut(); 1];
    check_err!(
        unsafe { clCreateSubDevices(root, [EQ, 1, 0].as_ptr(), 1, one.as_mut_ptr(), std::ptr::null_mut()) },
        CL_INVALID_VALUE,
        "num_devices below the sub-devices created"
    );
    assert!(one[0].is_null(), "no sub-device is returned on failure");
    // A domain the machine lacks (L4 is rare; any domain not reported will do).
    let reported = ulong(root, CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
    for (domain, name) in DOMAINS {
        if reported & domain == 0 {
            check_err!(count(&[AF, domain as isize, 0]), CL_INVALID_VALUE, name);
        }
    }
}

/// A context keeps its sub-devices usable after the application released its own references
/// (the handles it lists stay valid); once the context is gone too, the handle is refused.
#[test]
fn a_context_keeps_its_sub_devices() {
    if skip_without_two_cpus() {
        return;
    }
    let _quiet = MEASURE.lock().unwrap_or_else(|e| e.into_inner());
    let subs = partition(device(), &[EQ, 1, 0]);
    let handles: Vec<cl_device_id> = subs.iter().map(|s| s.0).collect();
    let ctx = context_of(&handles[..1]);
    drop(subs); // the application's references
    let listed: Vec<cl_device_id> = bytes_to_vec(&context_bytes(ctx.0, CL_CONTEXT_DEVICES).unwrap());
    assert_eq!(listed, &handles[..1]);
    let d = listed[0];
    assert_eq!(parent(d), device());
    assert_eq!(uint(d, CL_DEVICE_REFERENCE_COUNT), 0);
    check_err!(
        unsafe { clReleaseDevice(d) },
        CL_INVALID_DEVICE,
        "releasing a sub-device the application holds no reference to"
    );
    let q = queue_on(&ctx, d);
    let out = ctx.buffer(ITEMS * 4);
    let p = ctx.source_program("spin.cl");
    ok!(clBuildProgram(
        p.0,
        0,
        std::ptr::null(),
        std::ptr::null(),
        None,
        std::ptr::null_mut()
    ));
    let k = p.kernel("spin");
    k.arg_mem(0, &out);
    k.arg(1, &3u32);
    q.run(&k, &[], &[ITEMS], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, ITEMS * 4));
    assert_eq!(got[ITEMS - 1], spin_reference(ITEMS as u32 - 1, 3));
    // The other sub-device was in no context: its handle went with its last reference.
    check_err!(
        unsafe { clRetainDevice(handles[1]) },
        CL_INVALID_DEVICE,
        "a released sub-device no context uses"
    );
    drop((k, p, out, q, ctx));
    // The runtime lets the context go once its last command has retired.
    let gone = wait_until(std::time::Duration::from_secs(5), || {
        device_bytes(d, CL_DEVICE_MAX_COMPUTE_UNITS) == Err(CL_INVALID_DEVICE)
    });
    assert!(gone, "the sub-device's handle is still valid after its context is gone");
}

/// The NUMA node of `cpu` from sysfs.
fn node_of_cpu(cpu: usize) -> Option<usize> {
    (0..1024).find(|n| {
        std::fs::read_to_string(format!("/sys/devices/system/node/node{n}/cpulist"))
            .is_ok_and(|l| parse_cpu_list(l.trim()).contains(&cpu))
    })
}

/// get_mempolicy(MPOL_F_ADDR) of the page at `p`: (mode, node mask); with `node_of_page`, the
/// node the page lives on (MPOL_F_NODE | MPOL_F_ADDR).
fn page_policy(p: *mut c_void, node_of_page: bool) -> (i32, u64) {
    let mut mode: i32 = -1;
    let mut mask = [0u64; 16];
    let flags: libc::c_ulong = if node_of_page { 3 } else { 2 };
    let rc = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode,
            mask.as_mut_ptr(),
            1024usize,
            p,
            flags,
        )
    };
    assert_eq!(rc, 0, "get_mempolicy: {}", std::io::Error::last_os_error());
    (mode, mask[0])
}

/// Large memory objects of a context whose devices all sit on one NUMA node prefer that node
/// (MPOL_PREFERRED), so their pages land there whichever thread touches them first.
#[test]
fn buffers_prefer_the_node_of_their_sub_device() {
    if skip_without_two_cpus() {
        return;
    }
    let subs = partition(device(), &[EQ, 1, 0]);
    let cpu = *cpus_that_ran(subs[0].0).iter().next().unwrap();
    let Some(node) = node_of_cpu(cpu) else {
        eprintln!("skipped: sysfs lists no NUMA node for CPU {cpu}");
        return;
    };
    let ctx = context_of(&[subs[0].0]);
    let q = queue_on(&ctx, subs[0].0);
    let size = 4 << 20;
    let buf = ctx.buffer(size);
    let mut err = 0;
    let p = unsafe {
        clEnqueueMapBuffer(
            q.0,
            buf.0,
            CL_TRUE,
            CL_MAP_WRITE,
            0,
            size,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "clEnqueueMapBuffer");
    let (mode, mask) = page_policy(p, false);
    assert_eq!((mode, mask), (1, 1 << node), "MPOL_PREFERRED for node {node}");
    unsafe { *(p as *mut u8) = 1 };
    assert_eq!(page_policy(p, true).0, node as i32, "the first touched page's node");
    ok!(clEnqueueUnmapMemObject(
        q.0,
        buf.0,
        p,
        0,
        std::ptr::null(),
        std::ptr::null_mut()
    ));
    q.finish();
}
