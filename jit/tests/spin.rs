//! Potential spin loops (codegen/spin.rs): the kernels of kernels/spin.cl, from -O2 and -O0
//! SPIR-V, run as fibers exactly when a loop's exit depends on an atomic or volatile read
//! inside it; a work-item that spins waiting for a later work-item of its group finishes.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::codegen::BarrierStrategy;
use jit::Program;

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
            let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
            let bytes = block.as_mut_ptr() as *mut u8;
            for (a, ptr) in k.args.iter().zip([flag.as_mut_ptr() as u64, out.as_mut_ptr() as u64]) {
                assert_eq!(a.kind, ArgKind::Global);
                unsafe { *(bytes.add(a.offset) as *mut u64) = ptr };
            }
            let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES.div_ceil(16) + 1];
            let ctx = WorkGroupContext {
                work_dim: 1,
                host_shared: 0,
                global_offset: [0; 3],
                global_size: [n, 1, 1],
                local_size: [n, 1, 1],
                enqueued_local_size: [n, 1, 1],
                num_groups: [1, 1, 1],
                group_id: [0; 3],
                local_mem: arena.as_mut_ptr() as *mut u8,
                printf: std::ptr::null_mut(),
            };
            unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
            assert_eq!(flag[0], 1, "{label}, {n} work-items");
            assert!(out.iter().all(|&v| v == 1), "{label}, {n} work-items: {out:?}");
        }
    }
}
