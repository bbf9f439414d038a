//! Global atomics in ranges of many work-groups (kernels/source/atomic_spread.cl). Clift runs
//! the groups of a kernel with global atomics either on every worker with atomic
//! instructions, or one after the other on one thread with plain loads and stores, chosen by
//! timing the first two groups (runtime/src/ndrange.rs, `Spread`). Each test runs in child
//! processes with the choice left to the probe and forced each way (`CLIFT_SPREAD`), and
//! checks exact results:
//! - contended compare-exchange swaps on one word: the word and the work-items' values hold
//!   each starting value exactly once, and no strong exchange failed spuriously;
//! - counters added to by every work-item, with more or less work between the atomics, against
//!   the host's sums (and the non-atomic work against the host's arithmetic);
//! - a float sum by `atomic_cmpxchg` retries on whole numbers (exact in float), against the
//!   host's sum.

use cts::*;

const FILE: &str = "atomic_spread.cl";
const OPTIONS: &str = "-cl-std=CL3.0";

/// Runs `test` in one child per spread (`CLIFT_SPREAD` unset, `serial`, `parallel`) and
/// asserts each passed; true in the child (the caller then runs the body).
fn each_spread(test: &str) -> bool {
    if std::env::var_os("CTS_ISOLATED_CHILD").is_some() {
        return true;
    }
    for spread in ["", "serial", "parallel"] {
        let mut cmd = test_child(test);
        cmd.env("CTS_ISOLATED_CHILD", "1");
        if spread.is_empty() {
            cmd.env_remove("CLIFT_SPREAD");
        } else {
            cmd.env("CLIFT_SPREAD", spread);
        }
        let out = cmd.output().expect("spawn test child");
        assert!(
            out.status.success(),
            "{test} (CLIFT_SPREAD={spread:?}): {:?}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    false
}

#[test]
fn contended_swaps_keep_every_value_once() {
    if !each_spread("contended_swaps_keep_every_value_once") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source(FILE, OPTIONS);
    let k = p.kernel("swap_rounds");
    for &(n, local, rounds) in &[
        (1024usize, 16usize, 2000u32),
        (256, 64, 500),
        (96, 1, 300),
        (1024, 1024, 100),
    ] {
        let word = ctx.buffer_from(as_bytes(&[n as u32]));
        let mine = ctx.buffer(4 * n);
        k.arg_mem(0, &word);
        k.arg_mem(1, &mine);
        k.arg(2, &rounds);
        q.run(&k, &[], &[n], &[local]);
        let w: Vec<u32> = from_bytes(&q.read(&word, 0, 4));
        let m: Vec<u32> = from_bytes(&q.read(&mine, 0, 4 * n));
        assert!(
            !m.contains(&u32::MAX),
            "{n} work-items in groups of {local}: a strong exchange failed spuriously"
        );
        let mut all: Vec<u32> = m.iter().copied().chain(w).collect();
        all.sort_unstable();
        let want: Vec<u32> = (0..=n as u32).collect();
        assert_eq!(all, want, "{n} work-items in groups of {local}: values lost or doubled");
    }
}

#[test]
fn counters_are_exact_with_and_without_work_between() {
    if !each_spread("counters_are_exact_with_and_without_work_between") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source(FILE, OPTIONS);
    let k = p.kernel("count_and_work");
    for &(n, local, rounds, work) in &[
        (2048usize, 32usize, 200u32, 0u32),
        (512, 16, 50, 2000),
        (4096, 256, 3, 10),
    ] {
        let sum = ctx.buffer_from(as_bytes(&[0u32]));
        let count = ctx.buffer_from(as_bytes(&[0u32]));
        let out = ctx.buffer(4 * n);
        k.arg_mem(0, &sum);
        k.arg_mem(1, &count);
        k.arg_mem(2, &out);
        k.arg(3, &rounds);
        k.arg(4, &work);
        q.run(&k, &[], &[n], &[local]);
        let s: Vec<u32> = from_bytes(&q.read(&sum, 0, 4));
        let c: Vec<u32> = from_bytes(&q.read(&count, 0, 4));
        let o: Vec<u32> = from_bytes(&q.read(&out, 0, 4 * n));
        let want_sum = (0..n as u64).sum::<u64>().wrapping_mul(rounds as u64) as u32;
        assert_eq!(s[0], want_sum, "{n} work-items in groups of {local}, work {work}: sum");
        assert_eq!(c[0], n as u32 * rounds, "{n} work-items in groups of {local}: count");
        for (id, &x) in o.iter().enumerate() {
            let mut h = (id as u32).wrapping_mul(2654435761);
            for _ in 0..rounds * work {
                h = h.wrapping_mul(1664525).wrapping_add(1013904223);
            }
            assert_eq!(x, h, "work-item {id}: its own arithmetic");
        }
    }
}

#[test]
fn float_sum_by_compare_exchange_is_exact() {
    if !each_spread("float_sum_by_compare_exchange_is_exact") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source(FILE, OPTIONS);
    let k = p.kernel("float_sum");
    let n = 768usize;
    let rounds = 40u32;
    // Whole numbers whose every partial sum stays below 2^24: exact in any order.
    let v: Vec<f32> = (0..n).map(|i| ((i * 7919) % 97) as f32).collect();
    let want: f32 = v.iter().map(|&x| x as f64).sum::<f64>() as f32 * rounds as f32;
    assert!(want < (1u32 << 24) as f32);
    for local in [8usize, 64, 768] {
        let total = ctx.buffer_from(as_bytes(&[0f32]));
        let vb = ctx.buffer_from(as_bytes(&v));
        k.arg_mem(0, &total);
        k.arg_mem(1, &vb);
        k.arg(2, &rounds);
        q.run(&k, &[], &[n], &[local]);
        let t: Vec<f32> = from_bytes(&q.read(&total, 0, 4));
        assert_eq!(t[0], want, "groups of {local}");
    }
}
