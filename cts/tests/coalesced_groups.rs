//! Work-groups run together: for a kernel that cannot tell one work-group from another (no
//! local ids, group ids or local sizes, no local memory, barriers, collectives or sub-group
//! built-ins), Clift may run several of the application's small work-groups as one larger one
//! (runtime/src/ndrange.rs, `coalesce`). Such kernels must still run every work-item exactly
//! once with its own global ids, uniform and non-uniform ranges, in 1, 2 and 3 dimensions, with
//! offsets; and every kernel that does observe its work-group must see the application's
//! groups. (Local memory also keeps a kernel's groups apart, but without a barrier no valid
//! kernel can tell.) Kernels: kernels/source/coalesced_groups.cl.

use cts::*;

fn program(ctx: &Context) -> Program {
    ctx.built_source("coalesced_groups.cl", "-cl-std=CL3.0")
}

/// `blind` over one range: every work-item counted once, at its own ids.
fn check_blind(ctx: &Context, q: &Queue, k: &Kernel, offset: &[usize], global: &[usize], local: &[usize]) {
    let dims = global.len();
    let items: usize = global.iter().product();
    let count = ctx.buffer_from(&vec![0u8; items * 4]);
    let ids = ctx.buffer_from(&vec![0xffu8; items * 32]);
    k.arg_mem(0, &count);
    k.arg_mem(1, &ids);
    q.run(k, offset, global, local);
    let counts: Vec<u32> = from_bytes(&q.read(&count, 0, items * 4));
    let got: Vec<u64> = from_bytes(&q.read(&ids, 0, items * 32));
    let what = format!("offset {offset:?}, global {global:?}, local {local:?}");
    for n in 0..items {
        assert_eq!(counts[n], 1, "{what}: work-item {n} ran {} times", counts[n]);
        let mut rest = n;
        let mut want = [0u64; 4];
        for d in 0..3 {
            want[d] = if d < dims {
                let c = rest % global[d];
                rest /= global[d];
                (c + offset.get(d).copied().unwrap_or(0)) as u64
            } else {
                0
            };
        }
        want[3] = (global[0] * dims) as u64;
        assert_eq!(got[n * 4..n * 4 + 4], want, "{what}: work-item {n}");
    }
}

#[test]
fn blind_kernels_run_every_work_item_once() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = program(&ctx);
    let k = p.kernel("blind");
    // Groups of one work-item: uniform, with a partial-size count of groups (997 is prime).
    check_blind(&ctx, &q, &k, &[], &[1 << 16], &[1]);
    check_blind(&ctx, &q, &k, &[5], &[997], &[1]);
    check_blind(&ctx, &q, &k, &[], &[1000], &[2]);
    // Non-uniform: 1000 = 333 x 3 + 1, the last group partial.
    check_blind(&ctx, &q, &k, &[3], &[1000], &[3]);
    check_blind(&ctx, &q, &k, &[], &[4099], &[7]);
    // Two and three dimensions, with offsets.
    check_blind(&ctx, &q, &k, &[1, 2], &[64, 37], &[1, 1]);
    check_blind(&ctx, &q, &k, &[0, 0], &[50, 40], &[2, 4]);
    check_blind(&ctx, &q, &k, &[7, 0, 9], &[48, 5, 6], &[1, 1, 1]);
    check_blind(&ctx, &q, &k, &[], &[33, 7, 3], &[3, 1, 1]);
    // One group along x: groups run together along y or z.
    check_blind(&ctx, &q, &k, &[0, 0, 4], &[1, 1, 5000], &[1, 1, 1]);
    check_blind(&ctx, &q, &k, &[2, 0], &[3, 701], &[3, 1]);
    check_blind(&ctx, &q, &k, &[], &[5, 7, 300], &[5, 7, 1]);
    // Groups one or two work-items wide but large: widened along x.
    check_blind(&ctx, &q, &k, &[0, 1, 2], &[21, 3, 64], &[1, 1, 64]);
    check_blind(&ctx, &q, &k, &[], &[30, 40], &[2, 32]);
    // Tiny ranges.
    check_blind(&ctx, &q, &k, &[], &[1], &[1]);
    check_blind(&ctx, &q, &k, &[], &[6], &[1]);
}

#[test]
fn blind_vector_kernel_with_groups_of_one() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = program(&ctx);
    let k = p.kernel("blind_float4");
    let n = 4099usize;
    let input: Vec<f32> = (0..4 * n).map(|i| (i as f32) * 0.25 - 300.0).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let a = ctx.buffer_from(&bytes);
    let out = ctx.buffer_from(&vec![0u8; 16 * n]);
    k.arg_mem(0, &a);
    k.arg_mem(1, &out);
    for local in [1usize, 3] {
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<f32> = from_bytes(&q.read(&out, 0, 16 * n));
        for i in 0..n {
            for c in 0..4 {
                let v = input[4 * i + c];
                let add = [1.0f32, 2.0, 3.0, i as f32][c];
                let want = v * v + add;
                assert_eq!(
                    got[4 * i + c].to_bits(),
                    want.to_bits(),
                    "local {local}, item {i}, lane {c}"
                );
            }
        }
    }
}

#[test]
fn group_ids_stay_the_applications() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = program(&ctx);
    let k = p.kernel("aware_ids");
    for (global, local) in [(4096usize, 1usize), (1000, 3), (999, 2)] {
        let out = ctx.buffer(global * 40);
        k.arg_mem(0, &out);
        q.run(&k, &[], &[global], &[local]);
        let got: Vec<u64> = from_bytes(&q.read(&out, 0, global * 40));
        let groups = global.div_ceil(local);
        for g in 0..global {
            let group = g / local;
            let size = local.min(global - group * local);
            let want = [
                (g % local) as u64,
                group as u64,
                size as u64,
                groups as u64,
                local as u64,
            ];
            assert_eq!(
                got[g * 5..g * 5 + 5],
                want,
                "global {global}, local {local}, work-item {g}"
            );
        }
    }
    let k = p.kernel("aware_linear");
    let (global, local) = ([40usize, 30], [1usize, 1]);
    let out = ctx.buffer(1200 * 8);
    k.arg_mem(0, &out);
    q.run(&k, &[], &global, &local);
    let got: Vec<u64> = from_bytes(&q.read(&out, 0, 1200 * 8));
    assert!(
        got.iter().all(|&v| v == 0),
        "local linear ids with groups of one: {got:?}"
    );
}

#[test]
fn collectives_and_sub_groups_see_their_own_group() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = program(&ctx);
    let k = p.kernel("aware_reduce");
    for local in [1usize, 2] {
        let n = 2048usize;
        let out = ctx.buffer(n * 4);
        k.arg_mem(0, &out);
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<u32> = from_bytes(&q.read(&out, 0, n * 4));
        for (g, v) in got.iter().enumerate() {
            let first = g - g % local;
            let want: u32 = (first..first + local).map(|i| i as u32 + 1).sum();
            assert_eq!(*v, want, "local {local}, work-item {g}");
        }
    }
    let k = p.kernel("aware_sub_group");
    let n = 1024usize;
    let out = ctx.buffer(n * 4);
    k.arg_mem(0, &out);
    q.run(&k, &[], &[n], &[1]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, n * 4));
    assert!(
        got.iter().all(|&v| v == 1000),
        "sub-groups of one work-item: {:?}",
        &got[..16]
    );
}
