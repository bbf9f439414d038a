//! Work-group collective functions (issue 17): `work_group_reduce/scan_inclusive/
//! scan_exclusive_{add,min,max}` and `work_group_broadcast` for int, uint, long, ulong, float
//! and double, `work_group_all/any`, against host arithmetic; 1D (with a non-uniform last
//! group), 2D and 3D work-groups (scans run in local linear id order); collectives in a loop,
//! in a called function and beside barriers and local memory.
//!
//! Kernels: kernels/source/work_group_collectives.cl.

use cts::*;

mod group_elem;
use group_elem::Elem;

const OPTIONS: &str = "-cl-std=CL3.0";

fn supported() -> bool {
    let yes: cl_bool = device_info(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT);
    if wanted_platform_name() == "Clift" {
        assert_eq!(yes, CL_TRUE, "Clift reports work-group collective functions");
    }
    if yes == CL_FALSE {
        eprintln!("skipped: no work-group collective functions");
    }
    yes == CL_TRUE
}

/// The work-groups of an ND-range as lists of global linear ids in local linear id order.
fn groups(global: &[usize], local: &[usize]) -> Vec<Vec<usize>> {
    let g = |d: usize| global.get(d).copied().unwrap_or(1);
    let l = |d: usize| local.get(d).copied().unwrap_or(1);
    let mut out = Vec::new();
    for gz in (0..g(2)).step_by(l(2)) {
        for gy in (0..g(1)).step_by(l(1)) {
            for gx in (0..g(0)).step_by(l(0)) {
                let mut ids = Vec::new();
                for z in gz..(gz + l(2)).min(g(2)) {
                    for y in gy..(gy + l(1)).min(g(1)) {
                        for x in gx..(gx + l(0)).min(g(0)) {
                            ids.push((z * g(1) + y) * g(0) + x);
                        }
                    }
                }
                out.push(ids);
            }
        }
    }
    out
}

fn reference<T: Elem>(func: &str, input: &[T], global: &[usize], local: &[usize]) -> Vec<T> {
    let mut out = vec![T::zero(); input.len()];
    for ids in groups(global, local) {
        let vals: Vec<T> = ids.iter().map(|&g| input[g]).collect();
        for (&g, v) in ids.iter().zip(group_elem::collective(func, &vals)) {
            out[g] = v;
        }
    }
    out
}

const SHAPES: &[(&[usize], &[usize])] = &[
    (&[200], &[64]),
    (&[256], &[256]),
    (&[7], &[1]),
    (&[12, 10], &[4, 5]),
    (&[8, 6, 4], &[4, 3, 2]),
];

fn check_type<T: Elem>(ctx: &Context, q: &Queue, p: &Program) {
    for func in group_elem::FUNCTIONS {
        let k = p.kernel(&format!("{func}_{}", T::NAME));
        for &(global, local) in SHAPES {
            let n: usize = global.iter().product();
            let input: Vec<T> = (0..n).map(|i| T::input(i + 3 * func.len())).collect();
            let inb = ctx.buffer_from(as_bytes(&input));
            let outb = ctx.buffer(n * std::mem::size_of::<T>());
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            q.run(&k, &[], global, local);
            let got: Vec<T> = from_bytes(&q.read(&outb, 0, n * std::mem::size_of::<T>()));
            let want = reference(func, &input, global, local);
            for i in 0..n {
                assert_eq!(
                    got[i],
                    want[i],
                    "work_group_{func}({}) global {global:?} local {local:?}: work-item {i}",
                    T::NAME
                );
            }
        }
    }
    // Broadcast from several sources per shape.
    let k = p.kernel(&format!("broadcast_{}", T::NAME));
    for &(global, local) in SHAPES {
        let n: usize = global.iter().product();
        let input: Vec<T> = (0..n).map(|i| T::input(i + 11)).collect();
        let inb = ctx.buffer_from(as_bytes(&input));
        let outb = ctx.buffer(n * std::mem::size_of::<T>());
        let l = |d: usize| local.get(d).copied().unwrap_or(1);
        let g = |d: usize| global.get(d).copied().unwrap_or(1);
        // The last group of a non-uniform range is smaller: pick ids valid in every group.
        let small = |d: usize| if g(d) % l(d) == 0 { l(d) } else { g(d) % l(d) };
        for src in [
            [0usize, 0, 0],
            [small(0) - 1, small(1) - 1, small(2) - 1],
            [small(0) / 2, small(1) / 2, 0],
        ] {
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            for (d, s) in src.iter().enumerate() {
                k.arg(2 + d as cl_uint, &(*s as cl_uint));
            }
            q.run(&k, &[], global, local);
            let got: Vec<T> = from_bytes(&q.read(&outb, 0, n * std::mem::size_of::<T>()));
            for ids in groups(global, local) {
                // The source's local linear id in this group (its sizes may be the smaller ones).
                let gid0 = ids[0];
                let (x0, y0, z0) = (gid0 % g(0), gid0 / g(0) % g(1), gid0 / (g(0) * g(1)));
                let from = ((z0 + src[2]) * g(1) + (y0 + src[1])) * g(0) + x0 + src[0];
                for &i in &ids {
                    assert_eq!(
                        got[i],
                        input[from],
                        "work_group_broadcast({}, {src:?}) global {global:?} local {local:?}: work-item {i}",
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
    let p = ctx.built_source("work_group_collectives.cl", OPTIONS);
    check_type::<i32>(&ctx, &q, &p);
    check_type::<u32>(&ctx, &q, &p);
    check_type::<i64>(&ctx, &q, &p);
    check_type::<u64>(&ctx, &q, &p);
    check_type::<f32>(&ctx, &q, &p);
    check_type::<f64>(&ctx, &q, &p);
}

#[test]
fn all_and_any() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("work_group_collectives.cl", OPTIONS);
    let k = p.kernel("all_any");
    let (global, local) = (256usize, 32usize);
    // Group 0: all set; 1: none; 2: one set; 3: one clear; the others mixed.
    let input: Vec<i32> = (0..global)
        .map(|i| {
            let (g, l) = (i / local, i % local);
            match g {
                0 => 1 + l as i32,
                1 => 0,
                2 => i32::from(l == 17),
                3 => i32::from(l != 5) * -3,
                _ => i32::from(l % g == 0),
            }
        })
        .collect();
    let inb = ctx.buffer_from(as_bytes(&input));
    let outb = ctx.buffer(global * 8);
    k.arg_mem(0, &inb);
    k.arg_mem(1, &outb);
    q.run(&k, &[], &[global], &[local]);
    let got: Vec<i32> = from_bytes(&q.read(&outb, 0, global * 8));
    for g in 0..global / local {
        let ids = g * local..(g + 1) * local;
        let all = ids.clone().all(|i| input[i] != 0);
        let any = ids.clone().any(|i| input[i] != 0);
        for i in ids {
            assert_eq!(got[2 * i] != 0, all, "work_group_all, group {g}, work-item {i}");
            assert_eq!(got[2 * i + 1] != 0, any, "work_group_any, group {g}, work-item {i}");
        }
    }
}

#[test]
fn in_a_loop_with_barriers_and_calls() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("work_group_collectives.cl", OPTIONS);
    let k = p.kernel("in_loop");
    let (global, local, iters) = (96usize, 24usize, 5i32);
    let input: Vec<i32> = (0..global).map(|i| ((i * 37) % 101) as i32 - 50).collect();
    let inb = ctx.buffer_from(as_bytes(&input));
    let outb = ctx.buffer(global * 4);
    k.arg_mem(0, &inb);
    k.arg_mem(1, &outb);
    k.arg(2, &iters);
    k.arg_local(3, local * 4);
    q.run(&k, &[], &[global], &[local]);
    let got: Vec<i32> = from_bytes(&q.read(&outb, 0, global * 4));
    for g in 0..global / local {
        let mut x: Vec<i32> = input[g * local..(g + 1) * local].to_vec();
        let mut acc = vec![0i32; local];
        for it in 0..iters {
            let xs: Vec<i32> = x.iter().map(|v| v.wrapping_add(it)).collect();
            let mut s = Vec::with_capacity(local);
            let mut run = 0i32;
            for v in &xs {
                run = run.wrapping_add(*v);
                s.push(run);
            }
            let mx = *xs.iter().max().unwrap();
            for i in 0..local {
                acc[i] = acc[i].wrapping_add(s[local - 1 - i].wrapping_add(mx));
            }
            let b = x[it as usize % local];
            for v in x.iter_mut() {
                *v ^= b;
            }
        }
        for i in 0..local {
            assert_eq!(got[g * local + i], acc[i], "group {g}, work-item {i}");
        }
    }
}
