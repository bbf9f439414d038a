//! Barriers (OpControlBarrier) in every pattern issue 3 names: in a loop with a uniform trip
//! count (tree reduction in a `__local` argument), inside a called function, in nested loops,
//! a `__local` variable (Workgroup storage) shared across the group, and many private values
//! live across a barrier; several work-group sizes each. Kernels: kernels/barrier.cl.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

fn input(n: usize, seed: u64) -> Vec<i32> {
    from_bytes::<i32>(&pattern(n * 4, seed))
        .iter()
        .map(|v| v % 100_000)
        .collect()
}

struct Env {
    ctx: Context,
    q: Queue,
    prog: Program,
}

/// A context, a queue and the program of kernels/`name`.spvasm.
fn env_of(name: &str) -> Env {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program(name, &spirv(name));
    Env { ctx, q, prog }
}

fn env() -> Env {
    env_of("barrier")
}

#[test]
fn barrier_in_uniform_loop_tree_reduction() {
    if !isolate("barrier_in_uniform_loop_tree_reduction") {
        return;
    }
    let e = env();
    for (groups, local) in [(5usize, 64usize), (3, 256), (17, 16), (4, 1), (2, 128)] {
        let n = groups * local;
        let a = input(n, local as u64);
        let ba = e.ctx.buffer_from(as_bytes(&a));
        let bo = e.ctx.buffer(groups * 4);
        let k = e.prog.kernel("reduce");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bo);
        k.arg_local(2, local * 4);
        e.q.run(&k, &[], &[n], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, groups * 4));
        for g in 0..groups {
            let want: i32 = a[g * local..(g + 1) * local].iter().sum();
            assert_eq!(o[g], want, "reduce: group {g} of {groups} x {local}");
        }
    }
}

#[test]
fn barrier_inside_called_function() {
    if !isolate("barrier_inside_called_function") {
        return;
    }
    let e = env();
    for (groups, local) in [(4usize, 32usize), (2, 7), (3, 100)] {
        let n = groups * local;
        let a = input(n, 3);
        let ba = e.ctx.buffer_from(as_bytes(&a));
        let bo = e.ctx.buffer(n * 4);
        let k = e.prog.kernel("in_function");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bo);
        k.arg_local(2, local * 4);
        e.q.run(&k, &[], &[n], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, n * 4));
        for g in 0..groups {
            for l in 0..local {
                assert_eq!(
                    o[g * local + l],
                    a[g * local + (l + 3) % local],
                    "in_function: group {g} item {l}"
                );
            }
        }
    }
}

#[test]
fn barrier_in_nested_loops() {
    if !isolate("barrier_in_nested_loops") {
        return;
    }
    let e = env();
    for (groups, local, outer, inner) in [
        (3usize, 16usize, 3i32, 4i32),
        (2, 64, 2, 5),
        (4, 5, 4, 1),
        (1, 64, 0, 3),
    ] {
        let n = groups * local;
        let a: Vec<i32> = input(n, 4).iter().map(|v| v % 100).collect();
        let ba = e.ctx.buffer_from(as_bytes(&a));
        let bo = e.ctx.buffer(n * 4);
        let k = e.prog.kernel("nested");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bo);
        k.arg(2, &outer);
        k.arg(3, &inner);
        e.q.run(&k, &[], &[n], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, n * 4));
        for g in 0..groups {
            let mut v: Vec<i32> = a[g * local..(g + 1) * local].to_vec();
            for i in 0..outer {
                for j in 0..inner {
                    let t = v.clone();
                    for l in 0..local {
                        v[l] = v[l]
                            .wrapping_add(t[(l + local - 1) % local].wrapping_mul(j + 1))
                            .wrapping_sub(i);
                    }
                }
                for x in v.iter_mut() {
                    *x ^= i;
                }
            }
            assert_eq!(
                &o[g * local..(g + 1) * local],
                &v[..],
                "nested({outer}, {inner}): group {g}"
            );
        }
    }
}

#[test]
fn local_variable_shared_across_group() {
    if !isolate("local_variable_shared_across_group") {
        return;
    }
    let e = env();
    for (groups, local) in [(4usize, 256usize), (9, 10), (2, 1)] {
        let n = groups * local;
        let a = input(n, 5);
        let ba = e.ctx.buffer_from(as_bytes(&a));
        let bo = e.ctx.buffer(n * 4);
        let k = e.prog.kernel("reverse");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bo);
        e.q.run(&k, &[], &[n], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, n * 4));
        for g in 0..groups {
            for l in 0..local {
                assert_eq!(
                    o[g * local + l],
                    a[g * local + local - 1 - l],
                    "reverse: group {g} item {l}"
                );
            }
        }
    }
}

#[test]
fn many_private_values_live_across_barrier() {
    if !isolate("many_private_values_live_across_barrier") {
        return;
    }
    let e = env();
    for (groups, local) in [(3usize, 64usize), (5, 13)] {
        let n = groups * local;
        let a: Vec<i32> = input(n, 6).iter().map(|v| v % 10_000).collect();
        let ba = e.ctx.buffer_from(as_bytes(&a));
        let bo = e.ctx.buffer(n * 4);
        let k = e.prog.kernel("many_live");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bo);
        k.arg_local(2, local * 4);
        e.q.run(&k, &[], &[n], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, n * 4));
        for g in 0..groups {
            for l in 0..local {
                let x = a[g * local + l];
                let nb = a[g * local + (l + 1) % local];
                let vals = [
                    x + 1,
                    x * 3,
                    x ^ 0x55,
                    x - 7,
                    x << 2,
                    x >> 1,
                    x * x,
                    x + 1000,
                    x & 0xf0,
                    x | 3,
                    !x,
                    -x,
                    x * 5 + 1,
                    x / 3,
                    x % 11,
                    x * 7 - 2,
                    x + l as i32,
                    x * 9,
                    x - 100,
                    x ^ 0x1234,
                    x * 13,
                    x + 21,
                    ((x as i64 * 100000) % 1000003) as i32,
                    (x as f32 * 0.5) as i32,
                    nb * 31,
                ];
                let want = vals.iter().fold(0i32, |s, &v| s.wrapping_add(v));
                assert_eq!(o[g * local + l], want, "many_live: group {g} item {l} (x = {x})");
            }
        }
    }
}

/// A struct passed by value to a kernel with a barrier (kernels/source/barrier_byval.cl): each
/// work-item's private copy survives the barrier (the copies once overlapped the next
/// work-item's saved state).
#[test]
fn struct_by_value_across_a_barrier() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("barrier_byval.cl", "-cl-std=CL3.0");
    let k = p.kernel("byval_barrier");
    let s: [i32; 8] = [5, 10, 11, 12, 13, 14, 15, 16];
    let n = 256usize;
    let local = 64usize;
    let out = ctx.buffer(4 * n);
    k.arg(0, &s);
    k.arg_mem(1, &out);
    k.arg_local(2, 4 * local);
    q.run(&k, &[], &[n], &[local]);
    let got: Vec<i32> = from_bytes(&q.read(&out, 0, 4 * n));
    for (i, g) in got.iter().enumerate() {
        let l = (i % local) as i32;
        let want = (s[0] + (l + 1) % local as i32) * 100 + s[1 + (l % 7) as usize];
        assert_eq!(*g, want, "work-item {i}");
    }
}

/// The kernels of kernels/barrier_uniform.cl (values that are, or only look, the same for every
/// work-item of a group, live across barriers).
fn uniform_env() -> Env {
    env_of("barrier_uniform")
}

#[test]
fn phi_of_uniform_values_after_a_divergent_branch() {
    let e = uniform_env();
    let n = 1234i32;
    for (groups, local) in [(4usize, 32usize), (2, 2), (3, 100)] {
        let total = groups * local;
        let bo = e.ctx.buffer(total * 4);
        let bc = e.ctx.buffer_from(as_bytes(&[0i32]));
        let k = e.prog.kernel("join_phi");
        k.arg_mem(0, &bo);
        k.arg_mem(1, &bc);
        k.arg_local(2, local * 4);
        k.arg(3, &n);
        e.q.run(&k, &[], &[total], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, total * 4));
        let v = |l: usize| if l & 1 == 1 { n * 3 } else { n * 5 };
        for (i, got) in o.iter().enumerate() {
            let l = i % local;
            assert_eq!(*got, v(l) * 2 + v(l ^ 1), "join_phi: work-item {i}, groups of {local}");
        }
        let c: Vec<i32> = from_bytes(&e.q.read(&bc, 0, 4));
        assert_eq!(c[0] as usize, groups * (local / 2), "join_phi: odd work-items counted");
    }
}

#[test]
fn values_of_a_loop_left_after_different_trip_counts() {
    let e = uniform_env();
    let n = 77i32;
    for (groups, local) in [(2usize, 64usize), (3, 10), (4, 1)] {
        let total = groups * local;
        let bo = e.ctx.buffer(total * 4);
        let k = e.prog.kernel("temporal");
        k.arg_mem(0, &bo);
        k.arg(1, &n);
        e.q.run(&k, &[], &[total], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, total * 4));
        for (g, got) in o.iter().enumerate() {
            let l = (g % local) as i32;
            let (mut i, mut k);
            i = 0i32;
            loop {
                k = i * 7 + n;
                i += 1;
                if i * i > l {
                    break;
                }
            }
            assert_eq!(*got, k * 1000 + i, "temporal: work-item {g}, groups of {local}");
        }
    }
}

#[test]
fn uniform_and_private_values_across_the_barriers_of_a_loop() {
    let e = uniform_env();
    let rounds = 5i32;
    for (groups, local) in [(4usize, 16usize), (3, 33), (2, 1), (2, 256)] {
        let total = groups * local;
        let a = input(total, 11);
        let ba = e.ctx.buffer_from(as_bytes(&a));
        let bo = e.ctx.buffer(total * 4);
        let k = e.prog.kernel("uniform_loop");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bo);
        k.arg_local(2, local * 4);
        k.arg(3, &rounds);
        e.q.run(&k, &[], &[total], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, total * 4));
        for g in 0..groups {
            let mut acc: Vec<i32> = a[g * local..(g + 1) * local].to_vec();
            let mut step = g as i32 + 1;
            for r in 0..rounds + g as i32 {
                let s = acc.clone();
                for (l, v) in acc.iter_mut().enumerate() {
                    let from = (l + step as usize) % local;
                    *v = v.wrapping_add(s[from].wrapping_mul(r + 1));
                }
                step = step * 3 % local as i32 + 1;
            }
            for l in 0..local {
                let want = acc[l].wrapping_mul(10).wrapping_add(step);
                assert_eq!(
                    o[g * local + l],
                    want,
                    "uniform_loop: group {g}, work-item {l} of {local}"
                );
            }
        }
    }
}

#[test]
fn work_items_returning_before_a_barrier_do_not_stop_the_group() {
    let e = uniform_env();
    for (groups, local) in [(3usize, 16usize), (2, 3), (1, 200)] {
        let total = groups * local;
        let bo = e.ctx.buffer(total * 4);
        let k = e.prog.kernel("early_return");
        k.arg_mem(0, &bo);
        k.arg_local(1, local * 4);
        e.q.run(&k, &[], &[total], &[local]);
        let o: Vec<i32> = from_bytes(&e.q.read(&bo, 0, total * 4));
        for (i, got) in o.iter().enumerate() {
            let l = i % local;
            let want = if l >= 3 { -1 } else { ((l + 1) % 3) as i32 * 10 };
            assert_eq!(*got, want, "early_return: work-item {i}, groups of {local}");
        }
    }
}

/// The single sweep loop (what a kernel with barriers uses when its region loops cannot be
/// built) runs every barrier pattern of this file as well: each test again, in a child process
/// with `CLIFT_BARRIERS=sweep`.
#[test]
fn barrier_patterns_in_the_single_sweep_loop() {
    if std::env::var_os("CTS_SWEEP_CHILD").is_some() {
        return;
    }
    for name in [
        "barrier_in_uniform_loop_tree_reduction",
        "barrier_inside_called_function",
        "barrier_in_nested_loops",
        "local_variable_shared_across_group",
        "many_private_values_live_across_barrier",
        "struct_by_value_across_a_barrier",
        "phi_of_uniform_values_after_a_divergent_branch",
        "values_of_a_loop_left_after_different_trip_counts",
        "uniform_and_private_values_across_the_barriers_of_a_loop",
        "work_items_returning_before_a_barrier_do_not_stop_the_group",
        "tiled_matrix_multiply_through_2d_local_tiles",
    ] {
        assert_child_passes(
            name,
            &[
                ("CLIFT_BARRIERS", "sweep"),
                ("CLIFT_CACHE", "0"),
                ("CTS_SWEEP_CHILD", "1"),
                ("CTS_ISOLATED_CHILD", "1"),
            ],
            &format!("{name} with CLIFT_BARRIERS=sweep"),
        );
    }
}

#[test]
fn tiled_matrix_multiply_through_2d_local_tiles() {
    let e = uniform_env();
    for (n, groups_x) in [(24usize, 3usize), (40, 5)] {
        // Small integers: every sum is exact, whatever the order.
        let a: Vec<f32> = (0..n * n).map(|i| ((i * 7 + 3) % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..n * n).map(|i| ((i * 5 + 1) % 9) as f32 - 4.0).collect();
        let (ba, bb) = (e.ctx.buffer_from(as_bytes(&a)), e.ctx.buffer_from(as_bytes(&b)));
        let bc = e.ctx.buffer(n * n * 4);
        let k = e.prog.kernel("tiled_matmul");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &bc);
        k.arg(3, &(n as i32));
        e.q.run(&k, &[], &[n, n], &[8, 8]);
        let c: Vec<f32> = from_bytes(&e.q.read(&bc, 0, n * n * 4));
        assert_eq!(groups_x * 8, n);
        for row in 0..n {
            for col in 0..n {
                let want: f32 = (0..n).map(|k| a[row * n + k] * b[k * n + col]).sum();
                assert_eq!(c[row * n + col], want, "tiled_matmul {n}x{n}: row {row} column {col}");
            }
        }
    }
}
