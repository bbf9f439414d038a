//! Potential spin loops (codegen/spin.rs): the kernels of kernels/spin.cl, from -O2 and -O0
//! SPIR-V, run as fibers exactly when a loop's exit depends on an atomic or volatile read
//! inside it; a work-item that spins waiting for a later work-item of its group finishes.

use jit::codegen::BarrierStrategy;
use jit::Program;

mod support;
use support::{run_grid, Arg};

fn programs() -> Vec<(&'static str, Program)> {
    [
        ("O2", &include_bytes!("kernels/spin.spv")[..]),
        ("O0", &include_bytes!("kernels/spin_O0.spv")[..]),
    ]
    .into_iter()
    .map(|(label, bytes)| {
        let m = jit::spirv::parse(bytes).expect("parse");
        let p = jit::compile(&m, &jit::CompileOptions::default()).unwrap_or_else(|e| panic!("{label}: {e}"));
        (label, p)
    })
    .collect()
}

#[test]
fn spin_loops_run_as_fibers_and_only_they() {
    for (label, p) in programs() {
        for name in [
            "wait_load",
            "cas_lock",
            "flag_lock",
            "through_private",
            "wait_volatile",
            "wait_in_call",
            "retry_until_flag",
        ] {
            let k = p.kernel(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(k.barrier_strategy, BarrierStrategy::Fibers, "{name} ({label})");
        }
        // A lock-free compare-exchange retry needs no yield; at -O0 its comparison goes
        // through private variables and the analysis does not see it.
        let retry = if label == "O2" {
            BarrierStrategy::WorkItemLoops
        } else {
            BarrierStrategy::Fibers
        };
        for (name, want) in [
            ("cas_retry", retry),
            ("float_add_retry", retry),
            ("exchange_rounds", retry),
            // At -O0 too: its comparator goes through the `expected` variable either way.
            ("exchange_rounds_weak", BarrierStrategy::WorkItemLoops),
            ("counting", BarrierStrategy::WorkItemLoops),
            ("histogram", BarrierStrategy::Regions),
            ("inside_only", BarrierStrategy::WorkItemLoops),
            ("plain_loop", BarrierStrategy::WorkItemLoops),
        ] {
            let k = p.kernel(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(k.barrier_strategy, want, "{name} ({label})");
        }
    }
}

/// Work-item 0 of the group waits until the last one has stored the flag: without a yield in
/// its loop the group would never end.
#[test]
fn a_work_item_waiting_for_a_later_one_finishes() {
    for (label, p) in programs() {
        let k = p.kernel("wait_load").expect("wait_load");
        for n in [2u64, 33, 100] {
            let mut flag = [0i32; 1];
            let mut out = vec![0i32; n as usize];
            run_one_group(&k, n, &[flag.as_mut_ptr() as u64, out.as_mut_ptr() as u64], &[]);
            assert_eq!(flag[0], 1, "{label}, {n} work-items");
            assert!(out.iter().all(|&v| v == 1), "{label}, {n} work-items: {out:?}");
        }
    }
}

/// The compare-exchange rounds (no spin loops at -O2, fibers at -O0) run in one group: every
/// successful exchange swaps the work-item's value with the word's, so the word and the
/// work-items' values hold each starting value exactly once, and no exchange failed with its
/// comparator unchanged.
#[test]
fn exchange_rounds_swap_every_value_once() {
    for (label, p) in programs() {
        for name in ["exchange_rounds", "exchange_rounds_weak"] {
            let k = p.kernel(name).unwrap_or_else(|| panic!("{name}"));
            let n = 48u64;
            let rounds = 200u32;
            let mut word = [n as u32; 1];
            let mut mine = vec![0u32; n as usize];
            run_one_group(&k, n, &[word.as_mut_ptr() as u64, mine.as_mut_ptr() as u64], &[rounds]);
            let mut all: Vec<u32> = mine.iter().copied().chain(word).collect();
            all.sort_unstable();
            let want: Vec<u32> = (0..=n as u32).collect();
            assert_eq!(all, want, "{name} ({label}): word {word:?}, values {mine:?}");
        }
    }
}

/// Runs kernel `k` as one work-group of `n` work-items: its global pointer arguments first
/// (`globals`), then 32-bit values (`values`).
fn run_one_group(k: &jit::Kernel, n: u64, globals: &[u64], values: &[u32]) {
    let args: Vec<Arg> = globals
        .iter()
        .map(|p| Arg::Ptr(*p as *mut u8))
        .chain(values.iter().map(|v| Arg::U32(*v)))
        .collect();
    run_grid(k, &args, 1, [n, 1, 1], [1, 1, 1]);
}

/// `-cl-no-subgroup-ifp` (`CompileOptions::no_subgroup_ifp`): the program needs no independent
/// forward progress, so no kernel runs on fibers for a spin loop.
#[test]
fn no_subgroup_ifp_keeps_spin_loops_off_the_fibers() {
    let m = jit::spirv::parse(include_bytes!("kernels/spin.spv")).expect("parse");
    let opts = jit::CompileOptions {
        no_subgroup_ifp: true,
        ..Default::default()
    };
    let p = jit::compile(&m, &opts).expect("compile");
    for name in ["wait_load", "cas_lock", "flag_lock", "wait_volatile", "wait_in_call"] {
        let k = p.kernel(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(k.barrier_strategy, BarrierStrategy::WorkItemLoops, "{name}");
    }
}
