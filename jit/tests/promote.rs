//! Loops with atomics whose memory is held in registers while the range runs alone
//! (codegen/promote.rs), on the kernels of kernels/promote.cl: each kernel is compiled with
//! the transformation and without it (`CLIFT_PROMOTE=0`), both without the vector loop
//! (`CLIFT_SIMD=0`: its four interleaved work-items are another valid order), both run on the
//! same inputs, one work-item after the other as the work-item loops run them, and the results
//! must be bit-identical and equal to a host simulation of that order. The loops that must not be
//! taken (a volatile access, an address that moves) are not.

use jit::Program;

mod support;
use support::{build_with_env, cl_to_spirv, have_clang, ptr, run_grid, Arg};

/// The kernels' SPIR-V (clang-15 -cl-std=CL3.0 -O2, llvm-spirv-15).
fn spirv() -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("clift-promote-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cl = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/promote.cl");
    let spv = cl_to_spirv(&cl, &["-cl-std=CL3.0".into()], &dir, "promote").expect("llvm-spirv");
    let _ = std::fs::remove_dir_all(&dir);
    spv
}

/// Runs `name` of `p` over `groups` groups of `local` work-items with `args`.
fn run(p: &Program, name: &str, local: u64, groups: u64, args: &[Arg]) {
    let k = p.kernel(name).unwrap_or_else(|| panic!("{name}"));
    run_grid(&k, args, 1, [local, 1, 1], [groups, 1, 1]);
}

fn loops(p: &Program, name: &str) -> u32 {
    p.kernel(name).unwrap_or_else(|| panic!("{name}")).promoted_loops
}

#[test]
fn promoted_loops_compute_what_the_original_loops_compute() {
    if !have_clang() {
        eprintln!("skipped: no clang-15");
        return;
    }
    let spv = spirv();
    let on = build_with_env(&spv, &[("CLIFT_SIMD", "0")]);
    let off = build_with_env(&spv, &[("CLIFT_PROMOTE", "0"), ("CLIFT_SIMD", "0")]);
    for name in [
        "exchange_rounds",
        "exchange_rounds_all_devices",
        "cas_rounds",
        "or_and",
        "counters",
        "maybe_aliased",
        "float_exchange",
        "two_exits",
        "local_rounds",
    ] {
        assert_eq!(loops(&on, name), 1, "{name} should hold its loop's memory in registers");
        assert_eq!(loops(&off, name), 0, "{name} with CLIFT_PROMOTE=0");
    }
    for name in ["volatile_inside", "moving_address"] {
        assert_eq!(loops(&on, name), 0, "{name} must keep its loop in memory");
    }
    for (p, promoted) in [(&on, true), (&off, false)] {
        exchange(p);
        cas(p);
        or_and(p);
        counters(p, promoted);
        aliased(p);
        floats(p);
        exits(p);
        local(p, promoted);
    }
}

/// One group (alone: the copy runs) and three groups (not alone: the original runs).
const GROUPS: [u64; 2] = [1, 3];

fn exchange(p: &Program) {
    for (name, groups) in GROUPS
        .iter()
        .flat_map(|&g| [("exchange_rounds", g), ("exchange_rounds_all_devices", g)])
    {
        let (local, rounds) = (37u64, 301u32);
        let n = (local * groups) as usize;
        let mut word = [9999u32];
        let mut mine = vec![0u32; n];
        run(
            p,
            name,
            local,
            groups,
            &[ptr(&mut word), ptr(&mut mine), Arg::U32(rounds)],
        );
        // The host in the same order: work-item after work-item, group after group.
        let (mut w, mut want) = (9999u32, vec![0u32; n]);
        for (tid, m) in want.iter_mut().enumerate() {
            *m = std::mem::replace(&mut w, tid as u32);
            for _ in 0..rounds {
                *m = std::mem::replace(&mut w, *m);
            }
        }
        assert_eq!((word[0], &mine), (w, &want), "{name}, {groups} groups");
    }
}

fn cas(p: &Program) {
    for groups in GROUPS {
        let (local, rounds) = (29u64, 50u32);
        let n = (local * groups) as usize;
        let mut word = [n as i32];
        let (mut mine, mut wins) = (vec![0i32; n], vec![0i32; n]);
        run(
            p,
            "cas_rounds",
            local,
            groups,
            &[ptr(&mut word), ptr(&mut mine), ptr(&mut wins), Arg::U32(rounds)],
        );
        let (mut w, mut want, mut want_wins) = (n as i32, vec![0i32; n], vec![0i32; n]);
        for tid in 0..n {
            let (mut expected, mut successes, mut m) = (tid as i32, 0, tid as i32);
            let mut i = 0;
            while i < rounds || successes == 0 {
                let previous = expected;
                if w == expected {
                    w = m;
                    m = expected;
                    successes += 1;
                } else {
                    expected = w;
                    if previous == expected {
                        m = -1;
                        break;
                    }
                }
                i += 1;
            }
            want[tid] = m;
            want_wins[tid] = successes;
        }
        assert_eq!(
            (word[0], &mine, &wins),
            (w, &want, &want_wins),
            "cas_rounds, {groups} groups"
        );
    }
}

fn or_and(p: &Program) {
    for groups in GROUPS {
        let (local, rounds) = (70u64, 40u32);
        let n = (local * groups) as usize;
        let mut bits = vec![0u32; n.div_ceil(32)];
        let mut surprises = vec![7u32; n];
        run(
            p,
            "or_and",
            local,
            groups,
            &[ptr(&mut bits), ptr(&mut surprises), Arg::U32(rounds)],
        );
        assert!(bits.iter().all(|&b| b == 0), "or_and, {groups} groups: {bits:?}");
        assert!(
            surprises.iter().all(|&s| s == 0),
            "or_and, {groups} groups: {surprises:?}"
        );
    }
}

/// `promoted`: the kernel runs one work-item at a time (the vector loop declines a body with
/// a promoted loop), so each work-item's sum is the host's; the vector loop of the
/// unpromoted build runs four work-items' iterations interleaved, which only the counters
/// do not see.
fn counters(p: &Program, promoted: bool) {
    for groups in GROUPS {
        let (local, rounds) = (23u64, 97u32);
        let n = (local * groups) as usize;
        let init_c = [5, -3, 11, 13, 40, -40, -1, 0x1000, 0x5a5a];
        let init_u = [u32::MAX - 5, 17];
        let (mut c, mut u, mut sum) = (init_c.to_vec(), init_u.to_vec(), vec![0i32; n]);
        run(
            p,
            "counters",
            local,
            groups,
            &[ptr(&mut c), ptr(&mut u), ptr(&mut sum), Arg::U32(rounds)],
        );
        let (mut hc, mut hu, mut hs) = (init_c.to_vec(), init_u.to_vec(), vec![0i32; n]);
        for (tid, s) in hs.iter_mut().enumerate() {
            for i in 0..rounds {
                let k = (i as i32).wrapping_mul(7).wrapping_sub(tid as i32 * 3);
                let rmw = |x: &mut i32, f: &dyn Fn(i32) -> i32| std::mem::replace(x, f(*x));
                *s = s.wrapping_add(rmw(&mut hc[0], &|x| x.wrapping_add(1)));
                *s = s.wrapping_add(rmw(&mut hc[1], &|x| x.wrapping_sub(1)));
                *s = s.wrapping_add(rmw(&mut hc[2], &|x| x.wrapping_add(k)));
                *s = s.wrapping_add(rmw(&mut hc[3], &|x| x.wrapping_sub(k)));
                *s = s.wrapping_add(rmw(&mut hc[4], &|x| x.min(k)));
                *s = s.wrapping_add(rmw(&mut hc[5], &|x| x.max(k)));
                let m = hu[0].min(k as u32);
                *s = s.wrapping_add(std::mem::replace(&mut hu[0], m) as i32);
                let m = hu[1].max(k as u32);
                *s = s.wrapping_add(std::mem::replace(&mut hu[1], m) as i32);
                *s ^= rmw(&mut hc[6], &|x| x & !(1 << (i % 31)));
                *s ^= rmw(&mut hc[7], &|x| x | (1 << ((i + tid as u32) % 31)));
                *s ^= rmw(&mut hc[8], &|x| x ^ k);
            }
        }
        assert_eq!((&c, &u), (&hc, &hu), "counters, {groups} groups");
        if promoted {
            assert_eq!(sum, hs, "counters' sums, {groups} groups");
        }
    }
}

fn aliased(p: &Program) {
    let rounds = 25u32;
    // Different words: every work-item adds to its own `b`.
    let mut a = [3i32];
    let mut b = vec![100i32; 5];
    run(p, "maybe_aliased", 5, 1, &[ptr(&mut a), ptr(&mut b), Arg::U32(rounds)]);
    // The sum of what each work-item's adds returned, whatever their order.
    let total: i64 = b.iter().map(|&x| (x - 100) as i64).sum();
    assert_eq!(a[0], 3 + 5 * rounds as i32, "maybe_aliased, two words");
    assert_eq!(
        total,
        (3..3 + 5 * rounds as i64).sum::<i64>(),
        "maybe_aliased, two words: {b:?}"
    );
    // One work-item with the same word passed twice: each round adds one and then the old
    // value again, so the copy (which would keep two copies of one word) must not run.
    let mut w = [3i32];
    let wp = w.as_mut_ptr() as *mut u8;
    run(
        p,
        "maybe_aliased",
        1,
        1,
        &[Arg::Ptr(wp), Arg::Ptr(wp), Arg::U32(rounds)],
    );
    let mut hw = 3i32;
    for _ in 0..rounds {
        let v = hw;
        hw += 1;
        hw = hw.wrapping_add(v);
    }
    assert_eq!(w[0], hw, "maybe_aliased, one word passed twice");
}

fn floats(p: &Program) {
    for groups in GROUPS {
        let (local, rounds) = (19u64, 33u32);
        let n = (local * groups) as usize;
        let mut word = [1.25f32];
        let mut out = vec![0f32; n];
        run(
            p,
            "float_exchange",
            local,
            groups,
            &[ptr(&mut word), ptr(&mut out), Arg::U32(rounds)],
        );
        let (mut w, mut want) = (1.25f32, vec![0f32; n]);
        for (tid, o) in want.iter_mut().enumerate() {
            let mine = tid as f32 * 0.5;
            let mut last = 0.0f32;
            for _ in 0..rounds {
                last = std::mem::replace(&mut w, mine + last);
            }
            *o = last;
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            (word[0].to_bits(), bits(&out)),
            (w.to_bits(), bits(&want)),
            "float_exchange, {groups} groups"
        );
    }
}

fn exits(p: &Program) {
    for groups in GROUPS {
        let (local, rounds) = (31u64, 20u32);
        let n = (local * groups) as usize;
        // Every third work-item leaves early, at a different iteration.
        let stop: Vec<u32> = (0..n as u32).map(|t| if t % 3 == 0 { t % 17 } else { 99 }).collect();
        let mut c = [0i32];
        let mut out = vec![0i32; n];
        let mut stop_arg = stop.clone();
        run(
            p,
            "two_exits",
            local,
            groups,
            &[ptr(&mut c), ptr(&mut out), ptr(&mut stop_arg), Arg::U32(rounds)],
        );
        let (mut hc, mut want) = (0i32, vec![0i32; n]);
        for (tid, o) in want.iter_mut().enumerate() {
            let mut v = 0;
            *o = 'item: {
                for i in 0..rounds {
                    v = hc;
                    hc += tid as i32 + 1;
                    if i == stop[tid] {
                        break 'item -v;
                    }
                }
                v
            };
        }
        assert_eq!((c[0], &out), (hc, &want), "two_exits, {groups} groups");
    }
}

/// `promoted`: one work-item at a time, as the host; else (the region's vector loop
/// interleaves four work-items) the group's values and the word are still a permutation.
fn local(p: &Program, promoted: bool) {
    for groups in GROUPS {
        let (local, rounds) = (45u64, 77u32);
        let n = (local * groups) as usize;
        let mut result = vec![0u32; groups as usize];
        let mut mine = vec![0u32; n];
        run(
            p,
            "local_rounds",
            local,
            groups,
            &[ptr(&mut result), ptr(&mut mine), Arg::U32(rounds)],
        );
        let (mut hr, mut want) = (vec![0u32; groups as usize], vec![0u32; n]);
        for g in 0..groups as usize {
            let mut w = 1000u32;
            for lid in 0..local as usize {
                let m = &mut want[g * local as usize + lid];
                *m = lid as u32;
                for _ in 0..rounds {
                    *m = std::mem::replace(&mut w, *m);
                }
            }
            hr[g] = w;
        }
        if promoted {
            assert_eq!((&result, &mine), (&hr, &want), "local_rounds, {groups} groups");
        }
        for g in 0..groups as usize {
            let mut all: Vec<u32> = mine[g * local as usize..][..local as usize].to_vec();
            all.push(result[g]);
            all.sort_unstable();
            let mut expect: Vec<u32> = (0..local as u32).collect();
            expect.push(1000);
            assert_eq!(all, expect, "local_rounds, group {g} of {groups}");
        }
    }
}
