//! Sub-groups (issue 17): OpenCL 3.0's `__opencl_c_subgroups`.
//! - every `sub_group_reduce/scan_inclusive/scan_exclusive_{add,min,max}` and
//!   `sub_group_broadcast` in int, uint, long, ulong, float and double, `sub_group_all/any`
//!   and `sub_group_barrier`, against host arithmetic over the sub-groups the kernel reports
//!   (`get_sub_group_id`, `get_sub_group_local_id`: the tests hold for any sub-group size);
//! - the work-item functions agree with each other and with clGetKernelSubGroupInfo;
//! - clGetKernelSubGroupInfo's error codes: wrong input sizes, NULL input, a too small output,
//!   unknown queries, an invalid kernel or device.
//!
//! Kernels: kernels/source/sub_groups.cl.

use cts::*;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr;

mod group_elem;
use group_elem::Elem;

const OPTIONS: &str = "-cl-std=CL3.0";

fn supported() -> bool {
    let n: cl_uint = device_info(CL_DEVICE_MAX_NUM_SUB_GROUPS);
    if wanted_platform_name() == "Clift" {
        assert!(n > 0, "Clift reports sub-groups");
    }
    if n == 0 {
        eprintln!("skipped: no sub-groups");
    }
    n > 0
}

/// The sub-groups of a run: (work-group, sub-group id) -> global ids by sub-group local id.
fn sub_groups(map: &[u32], n: usize, local: usize) -> BTreeMap<(usize, u32), Vec<usize>> {
    let mut out: BTreeMap<(usize, u32), Vec<(u32, usize)>> = BTreeMap::new();
    for g in 0..n {
        out.entry((g / local, map[3 * g]))
            .or_default()
            .push((map[3 * g + 1], g));
    }
    out.into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable();
            for (i, (lid, g)) in v.iter().enumerate() {
                assert_eq!(*lid as usize, i, "sub-group {k:?}: local ids 0..n, work-item {g}");
            }
            let size = map[3 * v[0].1 + 2] as usize;
            assert_eq!(size, v.len(), "sub-group {k:?}: get_sub_group_size");
            (k, v.into_iter().map(|(_, g)| g).collect())
        })
        .collect()
}

/// (global, local) sizes: uniform, non-uniform last group, one work-item per group.
const SHAPES: &[(usize, usize)] = &[(256, 64), (200, 48), (5, 1), (130, 130)];

fn check_type<T: Elem>(ctx: &Context, q: &Queue, p: &Program) {
    let size = std::mem::size_of::<T>();
    for func in group_elem::FUNCTIONS {
        let k = p.kernel(&format!("sg_{func}_{}", T::NAME));
        for &(n, local) in SHAPES {
            let input: Vec<T> = (0..n).map(|i| T::input(i * 3 + func.len())).collect();
            let inb = ctx.buffer_from(as_bytes(&input));
            let outb = ctx.buffer(n * size);
            let mapb = ctx.buffer(n * 12);
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            k.arg_mem(2, &mapb);
            q.run(&k, &[], &[n], &[local]);
            let got: Vec<T> = from_bytes(&q.read(&outb, 0, n * size));
            let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
            for (sg, ids) in sub_groups(&map, n, local) {
                let vals: Vec<T> = ids.iter().map(|&g| input[g]).collect();
                for (&g, want) in ids.iter().zip(group_elem::collective(func, &vals)) {
                    assert_eq!(
                        got[g],
                        want,
                        "sub_group_{func}({}) global {n} local {local}: sub-group {sg:?}, work-item {g}",
                        T::NAME
                    );
                }
            }
        }
    }
    let k = p.kernel(&format!("sg_broadcast_{}", T::NAME));
    for &(n, local) in SHAPES {
        for which in [0u32, 1, 37, u32::MAX] {
            let input: Vec<T> = (0..n).map(|i| T::input(i + which as usize % 5)).collect();
            let inb = ctx.buffer_from(as_bytes(&input));
            let outb = ctx.buffer(n * size);
            let mapb = ctx.buffer(n * 12);
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            k.arg_mem(2, &mapb);
            k.arg(3, &which);
            q.run(&k, &[], &[n], &[local]);
            let got: Vec<T> = from_bytes(&q.read(&outb, 0, n * size));
            let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
            for (sg, ids) in sub_groups(&map, n, local) {
                let from = ids[which as usize % ids.len()];
                for &g in &ids {
                    assert_eq!(
                        got[g],
                        input[from],
                        "sub_group_broadcast({}, {which}) local {local}: sub-group {sg:?}, work-item {g}",
                        T::NAME
                    );
                }
            }
        }
    }
}

#[test]
fn every_type_against_host_arithmetic() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("sub_groups.cl", OPTIONS);
    check_type::<i32>(&ctx, &q, &p);
    check_type::<u32>(&ctx, &q, &p);
    check_type::<i64>(&ctx, &q, &p);
    check_type::<u64>(&ctx, &q, &p);
    check_type::<f32>(&ctx, &q, &p);
    check_type::<f64>(&ctx, &q, &p);
}

#[test]
fn all_any_and_barrier() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("sub_groups.cl", OPTIONS);
    let (n, local) = (192usize, 32usize);
    // Per work-group: all set, none set, one set, one clear, then mixed.
    let input: Vec<i32> = (0..n)
        .map(|i| match (i / local, i % local) {
            (0, l) => l as i32 + 1,
            (1, _) => 0,
            (2, l) => i32::from(l == 9),
            (3, l) => i32::from(l != 30) * 7,
            (g, l) => i32::from(l % (g + 1) == 1),
        })
        .collect();
    let inb = ctx.buffer_from(as_bytes(&input));
    let outb = ctx.buffer(n * 8);
    let mapb = ctx.buffer(n * 12);
    let k = p.kernel("sg_all_any");
    k.arg_mem(0, &inb);
    k.arg_mem(1, &outb);
    k.arg_mem(2, &mapb);
    q.run(&k, &[], &[n], &[local]);
    let got: Vec<i32> = from_bytes(&q.read(&outb, 0, n * 8));
    let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
    for (sg, ids) in sub_groups(&map, n, local) {
        let all = ids.iter().all(|&g| input[g] != 0);
        let any = ids.iter().any(|&g| input[g] != 0);
        for &g in &ids {
            assert_eq!(got[2 * g] != 0, all, "sub_group_all, sub-group {sg:?}, work-item {g}");
            assert_eq!(
                got[2 * g + 1] != 0,
                any,
                "sub_group_any, sub-group {sg:?}, work-item {g}"
            );
        }
    }
    let k = p.kernel("sg_reverse");
    let outb = ctx.buffer(n * 4);
    k.arg_mem(0, &inb);
    k.arg_mem(1, &outb);
    k.arg_mem(2, &mapb);
    k.arg_local(3, 2 * local * 4);
    q.run(&k, &[], &[n], &[local]);
    let got: Vec<i32> = from_bytes(&q.read(&outb, 0, n * 4));
    let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
    for (sg, ids) in sub_groups(&map, n, local) {
        for (i, &g) in ids.iter().enumerate() {
            assert_eq!(got[g], input[ids[ids.len() - 1 - i]], "sub-group {sg:?}, work-item {g}");
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn sg_info(
    k: cl_kernel,
    dev: cl_device_id,
    param: cl_kernel_sub_group_info,
    input_size: usize,
    input: *const c_void,
    out_size: usize,
    out: *mut c_void,
    ret: *mut usize,
) -> cl_int {
    unsafe { clGetKernelSubGroupInfo(k, dev, param, input_size, input, out_size, out, ret) }
}

fn sizes_query(k: &Kernel, param: cl_kernel_sub_group_info, local: &[usize]) -> usize {
    let mut v = usize::MAX;
    let mut ret = 0usize;
    let err = sg_info(
        k.0,
        device(),
        param,
        std::mem::size_of_val(local),
        local.as_ptr() as *const c_void,
        8,
        &mut v as *mut usize as *mut c_void,
        &mut ret,
    );
    assert_eq!(err, CL_SUCCESS, "clGetKernelSubGroupInfo({param:#x}, {local:?})");
    assert_eq!(ret, 8);
    v
}

#[test]
fn work_item_functions_agree_with_the_api() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("sub_groups.cl", OPTIONS);
    let k = p.kernel("sg_info");
    let max_groups: cl_uint = device_info(CL_DEVICE_MAX_NUM_SUB_GROUPS);
    for (global, local) in [
        (vec![100usize], vec![32usize]),
        (vec![12, 9], vec![4, 3]),
        (vec![4, 4, 6], vec![2, 2, 3]),
    ] {
        let n: usize = global.iter().product();
        let out = ctx.buffer(n * 24);
        k.arg_mem(0, &out);
        q.run(&k, &[], &global, &local);
        let got: Vec<u32> = from_bytes(&q.read(&out, 0, n * 24));
        let max_size = sizes_query(&k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &local);
        let count = sizes_query(&k, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &local);
        let lsize: usize = local.iter().product();
        assert!(max_size >= 1 && max_size <= lsize);
        assert_eq!(count, lsize.div_ceil(max_size), "sub-groups of {local:?}");
        assert!(count <= max_groups as usize);
        for g in 0..n {
            let r = &got[6 * g..6 * g + 6];
            assert_eq!(r[1] as usize, max_size, "get_max_sub_group_size, work-item {g}");
            assert_eq!(r[3] as usize, count, "get_enqueued_num_sub_groups, work-item {g}");
            assert!(r[0] >= 1 && r[0] <= r[1], "get_sub_group_size {} of {}", r[0], r[1]);
            assert!(r[2] >= 1 && r[2] <= r[3]);
            assert!(r[4] < r[2], "get_sub_group_id");
            assert!(r[5] < r[0], "get_sub_group_local_id");
        }
    }
    // A non-uniform last group: smaller sub-groups there, the same maximum.
    let (n, local) = (70usize, 32usize);
    let out = ctx.buffer(n * 24);
    k.arg_mem(0, &out);
    q.run(&k, &[], &[n], &[local]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, n * 24));
    let total_last: u32 = (64..70).map(|g| u32::from(got[6 * g + 5] == 0)).sum();
    assert_eq!(
        total_last,
        got[6 * 64 + 2],
        "one local id 0 per sub-group of the last group"
    );
    for g in 64..70 {
        assert_eq!(got[6 * g + 1], got[1], "get_max_sub_group_size is the enqueued one");
        assert_eq!(got[6 * g + 3], got[3]);
    }
}

#[test]
fn local_size_for_sub_group_count_and_limits() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("sub_groups.cl", OPTIONS);
    let k = p.kernel("sg_info");
    let mut max_num = 0usize;
    let err = sg_info(
        k.0,
        device(),
        CL_KERNEL_MAX_NUM_SUB_GROUPS,
        0,
        ptr::null(),
        8,
        &mut max_num as *mut usize as *mut c_void,
        ptr::null_mut(),
    );
    assert_eq!(err, CL_SUCCESS);
    assert!(max_num >= 1);
    let mut compiled = usize::MAX;
    let err = sg_info(
        k.0,
        device(),
        CL_KERNEL_COMPILE_NUM_SUB_GROUPS,
        0,
        ptr::null(),
        8,
        &mut compiled as *mut usize as *mut c_void,
        ptr::null_mut(),
    );
    assert_eq!(err, CL_SUCCESS);
    assert_eq!(compiled, 0, "no sub-group count in the source");
    for dims in 1..=3usize {
        for count in 1..=max_num.min(4) {
            let mut l = [usize::MAX; 3];
            let mut ret = 0;
            let err = sg_info(
                k.0,
                device(),
                CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                8,
                &count as *const usize as *const c_void,
                8 * dims,
                l.as_mut_ptr() as *mut c_void,
                &mut ret,
            );
            assert_eq!(err, CL_SUCCESS);
            assert_eq!(ret, 8 * dims);
            let local = &l[..dims];
            assert!(
                local.iter().all(|&x| x >= 1),
                "{count} sub-groups: local size {local:?}"
            );
            let global: Vec<usize> = local.to_vec();
            let out = ctx.buffer(global.iter().product::<usize>() * 24);
            k.arg_mem(0, &out);
            q.run(&k, &[], &global, local);
            let got: Vec<u32> = from_bytes(&q.read(&out, 0, 24));
            assert_eq!(got[2] as usize, count, "get_num_sub_groups with local size {local:?}");
        }
        // More sub-groups than any work-group has: zeros.
        let count = max_num + 1;
        let mut l = [usize::MAX; 3];
        let err = sg_info(
            k.0,
            device(),
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
            8,
            &count as *const usize as *const c_void,
            8 * dims,
            l.as_mut_ptr() as *mut c_void,
            ptr::null_mut(),
        );
        assert_eq!(err, CL_SUCCESS);
        assert!(l[..dims].iter().all(|&x| x == 0), "{:?}", &l[..dims]);
    }
}

#[test]
fn sub_group_info_bad_input() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let p = ctx.built_source("sub_groups.cl", OPTIONS);
    let k = p.kernel("sg_info");
    let local = [8usize, 2, 2, 2];
    let mut v = usize::MAX;
    let out = &mut v as *mut usize as *mut c_void;
    let lp = local.as_ptr() as *const c_void;
    for param in [
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
        CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
    ] {
        // "CL_INVALID_VALUE if ... the size in bytes specified by input_value_size is not valid
        // or if input_value is NULL."
        for bad in [0usize, 4, 12, 32] {
            assert_eq!(
                sg_info(k.0, device(), param, bad, lp, 8, out, ptr::null_mut()),
                CL_INVALID_VALUE,
                "input size {bad}"
            );
        }
        assert_eq!(
            sg_info(k.0, device(), param, 8, ptr::null(), 8, out, ptr::null_mut()),
            CL_INVALID_VALUE,
            "NULL input"
        );
        // "CL_INVALID_VALUE if ... param_value_size is < size of return type".
        assert_eq!(
            sg_info(k.0, device(), param, 8, lp, 4, out, ptr::null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(v, usize::MAX, "nothing written");
        // The size alone.
        let mut ret = 0usize;
        assert_eq!(
            sg_info(k.0, device(), param, 24, lp, 0, ptr::null_mut(), &mut ret),
            CL_SUCCESS
        );
        assert_eq!(ret, 8);
    }
    let one = 1usize;
    let op = &one as *const usize as *const c_void;
    let q = CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT;
    assert_eq!(
        sg_info(k.0, device(), q, 4, op, 8, out, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    assert_eq!(
        sg_info(k.0, device(), q, 8, ptr::null(), 8, out, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let mut four = [0usize; 4];
    assert_eq!(
        sg_info(
            k.0,
            device(),
            q,
            8,
            op,
            32,
            four.as_mut_ptr() as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE,
        "a local size of 4 dimensions"
    );
    // "CL_INVALID_VALUE if param_name is not valid".
    assert_eq!(
        sg_info(k.0, device(), 0x1234, 8, lp, 8, out, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    // The kernel and the device come first.
    assert_eq!(
        sg_info(
            ptr::null_mut(),
            device(),
            0x1234,
            0,
            ptr::null(),
            8,
            out,
            ptr::null_mut()
        ),
        CL_INVALID_KERNEL
    );
    assert_eq!(
        sg_info(k.0, 1 as cl_device_id, 0x1234, 0, ptr::null(), 8, out, ptr::null_mut()),
        CL_INVALID_DEVICE
    );
    // The device may be left out: the kernel's program has one.
    assert_eq!(
        sg_info(
            k.0,
            ptr::null_mut(),
            CL_KERNEL_MAX_NUM_SUB_GROUPS,
            0,
            ptr::null(),
            8,
            out,
            ptr::null_mut()
        ),
        CL_SUCCESS
    );
    assert!(v >= 1 && v != usize::MAX, "CL_KERNEL_MAX_NUM_SUB_GROUPS {v}");
}
