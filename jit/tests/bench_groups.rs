//! Micro benchmarks of the work-group driver (not run by default):
//! `cargo test --release -p clift-jit --test bench_groups -- --ignored --nocapture`.
//! Vector add over 1 << 22 elements, an empty kernel, a tiled matrix product and the benchmark
//! suite's reduction and SGEMM (`cts/kernels/bench`, barriers), one thread, `Kernel::run_group`
//! per group as the runtime calls it.

use jit::abi::WorkGroupContext;
use jit::{compile, CompileOptions, Kernel};
use std::time::Instant;

mod support;
use support::arg_block;

fn kernel(name: &str) -> std::sync::Arc<Kernel> {
    let m = jit::spirv::parse(include_bytes!("kernels/barriers.spv")).expect("parse");
    let p = compile(&m, &CompileOptions::default()).expect("compile");
    p.kernel(name).expect("kernel")
}

/// A kernel of the benchmark suite's SPIR-V assembly.
fn bench_kernel(text: &str, name: &str) -> std::sync::Arc<Kernel> {
    let words = jit::spirv::assemble(
        text,
        jit::spirv::AsmOptions {
            version: (1, 0),
            ..Default::default()
        },
    )
    .expect("assemble");
    let m = jit::spirv::parse_words(&words).expect("parse");
    let p = compile(&m, &CompileOptions::default()).expect("compile");
    p.kernel(name).expect("kernel")
}

fn ctx(global: u64, local: u64, g: u64, arena: *mut u8) -> WorkGroupContext {
    WorkGroupContext {
        work_dim: 1,
        host_shared: 0,
        serial: 0,
        global_offset: [0; 3],
        global_size: [global, 1, 1],
        local_size: [local.min(global - g * local), 1, 1],
        enqueued_local_size: [local, 1, 1],
        num_groups: [global.div_ceil(local), 1, 1],
        group_id: [g, 0, 0],
        local_mem: arena,
        printf: std::ptr::null_mut(),
    }
}

/// Best time of `reps` runs of the whole ND-range, in seconds.
fn time_nd(k: &Kernel, args: &[u64], global: u64, local: u64, reps: usize) -> f64 {
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES / 16];
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        for g in 0..global.div_ceil(local) {
            let c = ctx(global, local, g, arena.as_mut_ptr() as *mut u8);
            unsafe { k.run_group(args.as_ptr() as *const u8, &c) };
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

#[test]
#[ignore]
fn bench_vector_add() {
    let k = kernel("vadd");
    let n = 1usize << 22;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let mut c = vec![0f32; n];
    let args = [a.as_ptr() as u64, b.as_ptr() as u64, c.as_mut_ptr() as u64];
    for local in [64u64, 256, 1024] {
        let t = time_nd(&k, &args, n as u64, local, 20);
        println!(
            "vadd n=2^22 local={local}: {:.3} ms, {:.2} ns/item, {:.1} GB/s",
            t * 1e3,
            t * 1e9 / n as f64,
            (n * 12) as f64 / t / 1e9
        );
    }
    assert!(c.iter().all(|v| *v == n as f32));
}

#[test]
#[ignore]
fn bench_empty() {
    let k = kernel("empty");
    for (global, local) in [(1u64, 1u64), (256, 256), (1 << 20, 256)] {
        let reps = if global > 1 << 16 { 20 } else { 2000 };
        let t = time_nd(&k, &[], global, local, reps);
        let groups = global.div_ceil(local);
        println!(
            "empty global={global} local={local}: {:.3} us per ND-range, {:.1} ns per group, {:.2} ns per item",
            t * 1e6,
            t * 1e9 / groups as f64,
            t * 1e9 / global as f64
        );
    }
}

#[test]
#[ignore]
fn bench_barrier_matmul() {
    let k = kernel("matmul");
    let n = 256usize;
    let a: Vec<u32> = (0..n * n).map(|i| (i % 7) as u32).collect();
    let b: Vec<u32> = (0..n * n).map(|i| (i % 5) as u32).collect();
    let mut c = vec![0u32; n * n];
    // Argument block: A, B, C, N (u32, padded), As offset, Bs offset.
    let t = 16u64;
    let mut args = vec![0u64; k.args_size.div_ceil(8)];
    let vals = [
        a.as_ptr() as u64,
        b.as_ptr() as u64,
        c.as_mut_ptr() as u64,
        n as u64,
        0,
        t * t * 4,
    ];
    for (ka, v) in k.args.iter().zip(vals) {
        unsafe {
            std::ptr::copy_nonoverlapping(
                &v as *const u64 as *const u8,
                (args.as_mut_ptr() as *mut u8).add(ka.offset),
                ka.size,
            )
        };
    }
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES / 16];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        for gy in 0..n as u64 / t {
            for gx in 0..n as u64 / t {
                let c = WorkGroupContext {
                    work_dim: 2,
                    host_shared: 0,
                    serial: 0,
                    global_offset: [0; 3],
                    global_size: [n as u64, n as u64, 1],
                    local_size: [t, t, 1],
                    enqueued_local_size: [t, t, 1],
                    num_groups: [n as u64 / t, n as u64 / t, 1],
                    group_id: [gx, gy, 0],
                    local_mem: arena.as_mut_ptr() as *mut u8,
                    printf: std::ptr::null_mut(),
                };
                unsafe { k.run_group(args.as_ptr() as *const u8, &c) };
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("matmul 256x256 (16x16 tiles, barriers): {:.3} ms", best * 1e3);
    let want: u32 = (0..n).map(|k| a[k] * b[k * n]).sum();
    assert_eq!(c[0], want);
}

#[test]
#[ignore]
fn bench_reduce() {
    let k = bench_kernel(include_str!("../../cts/kernels/bench/reduce.spvasm"), "reduce");
    // As clift-bench: 1Mi floats, 512 groups of 256.
    let n = 1usize << 20;
    let (local, groups) = (256u64, 512u64);
    let input: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let mut partial = vec![0f32; groups as usize];
    let args = arg_block(&k, &[input.as_ptr() as u64, partial.as_mut_ptr() as u64, 0, n as u64]);
    let t = time_nd(&k, &args, local * groups, local, 20);
    println!(
        "reduce n=2^20 {groups} groups of {local}: {:.3} ms, {:.2} GB/s",
        t * 1e3,
        (n * 4) as f64 / t / 1e9
    );
    let total: f64 = partial.iter().map(|v| *v as f64).sum();
    let want: f64 = input.iter().map(|v| *v as f64).sum();
    assert!((total - want).abs() <= want * 1e-5, "{total} vs {want}");
}

#[test]
#[ignore]
fn bench_sgemm() {
    let k = bench_kernel(include_str!("../../cts/kernels/bench/sgemm.spvasm"), "sgemm");
    let n = 256usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32).collect();
    let mut c = vec![0f32; n * n];
    let args = arg_block(
        &k,
        &[n as u64, a.as_ptr() as u64, b.as_ptr() as u64, c.as_mut_ptr() as u64],
    );
    let t = 16u64;
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES / 16];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        for gy in 0..n as u64 / t {
            for gx in 0..n as u64 / t {
                let c = WorkGroupContext {
                    work_dim: 2,
                    host_shared: 0,
                    serial: 0,
                    global_offset: [0; 3],
                    global_size: [n as u64, n as u64, 1],
                    local_size: [t, t, 1],
                    enqueued_local_size: [t, t, 1],
                    num_groups: [n as u64 / t, n as u64 / t, 1],
                    group_id: [gx, gy, 0],
                    local_mem: arena.as_mut_ptr() as *mut u8,
                    printf: std::ptr::null_mut(),
                };
                unsafe { k.run_group(args.as_ptr() as *const u8, &c) };
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "sgemm 256x256 (16x16 tiles, barriers): {:.3} ms, {:.2} GFLOP/s",
        best * 1e3,
        2.0 * (n * n * n) as f64 / best / 1e9
    );
    let want: f32 = (0..n).map(|k| a[k] * b[k * n]).sum();
    assert_eq!(c[0], want);
}
