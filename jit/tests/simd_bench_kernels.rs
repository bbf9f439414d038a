//! Micro benchmarks of the vector loop on `clift-bench` kernels (not run by default):
//! `cargo test --release -p clift-jit --test simd_bench_kernels -- --ignored --nocapture`.
//! One thread, `Kernel::run_group` per group as the runtime calls it; `CLIFT_SIMD=0` in the
//! environment times the scalar loop of the same build. Each prints the best of several runs.

use jit::abi::WorkGroupContext;
use jit::{compile, CompileOptions, Kernel};
use std::time::Instant;

mod support;
use support::arg_block;

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
    // SIMD_BENCH_OPT_NONE=1: Cranelift without its optimizer (to compare instruction orders).
    let opts = CompileOptions {
        opt_level_none: std::env::var_os("SIMD_BENCH_OPT_NONE").is_some(),
        ..CompileOptions::default()
    };
    let p = compile(&m, &opts).expect("compile");
    p.kernel(name).expect("kernel")
}

/// Best time in seconds of `reps` runs of the ND-range `global` in groups of `local` (2-D).
fn time_nd(k: &Kernel, args: &[u64], global: [u64; 2], local: [u64; 2], reps: usize) -> f64 {
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES / 16];
    let groups = [global[0].div_ceil(local[0]), global[1].div_ceil(local[1])];
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let c = WorkGroupContext {
                    work_dim: if global[1] > 1 { 2 } else { 1 },
                    host_shared: 0,
                    serial: 0,
                    global_offset: [0; 3],
                    global_size: [global[0], global[1], 1],
                    local_size: [
                        local[0].min(global[0] - gx * local[0]),
                        local[1].min(global[1] - gy * local[1]),
                        1,
                    ],
                    enqueued_local_size: [local[0], local[1], 1],
                    num_groups: [groups[0], groups[1], 1],
                    group_id: [gx, gy, 0],
                    local_mem: arena.as_mut_ptr() as *mut u8,
                    printf: std::ptr::null_mut(),
                };
                unsafe { k.run_group(args.as_ptr() as *const u8, &c) };
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

#[test]
#[ignore]
fn bench_hash() {
    let k = bench_kernel(include_str!("../../cts/kernels/bench/hash.spvasm"), "hash");
    let n = 1usize << 13;
    let msg: Vec<u32> = (0..n * 64)
        .map(|i| (i as u32).wrapping_mul(0x9e37_79b9) ^ 0x5555)
        .collect();
    let mut digest = vec![0u32; n * 16];
    let args = arg_block(&k, &[msg.as_ptr() as u64, digest.as_mut_ptr() as u64]);
    let t = time_nd(&k, &args, [n as u64, 1], [64, 1], 5);
    let sum = digest.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    println!("hash {n} work-items: {:.3} ms (digest sum {sum:#x})", t * 1e3);
}

#[test]
#[ignore]
fn bench_mandelbrot() {
    let k = bench_kernel(include_str!("../../cts/kernels/bench/mandelbrot.spvasm"), "mandelbrot");
    let w = 512usize;
    let mut out = vec![0u32; w * w];
    let d = 2.5f32 / w as f32;
    let args = arg_block(
        &k,
        &[
            out.as_mut_ptr() as u64,
            w as u64,
            256,
            (-2.0f32).to_bits() as u64,
            (-1.25f32).to_bits() as u64,
            d.to_bits() as u64,
            d.to_bits() as u64,
        ],
    );
    let t = time_nd(&k, &args, [w as u64, w as u64], [16, 16], 5);
    let sum: u64 = out.iter().map(|v| *v as u64).sum();
    println!("mandelbrot {w}x{w}: {:.3} ms (iterations {sum})", t * 1e3);
}

#[test]
#[ignore]
fn bench_daxpy() {
    let k = bench_kernel(include_str!("../../cts/kernels/bench/daxpy.spvasm"), "daxpy");
    let n = 1usize << 20;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let y: Vec<f64> = (0..n).map(|i| 1.0 - i as f64).collect();
    let mut z = vec![0f64; n];
    let args = arg_block(
        &k,
        &[
            (-1.75f64).to_bits(),
            x.as_ptr() as u64,
            y.as_ptr() as u64,
            z.as_mut_ptr() as u64,
        ],
    );
    let t = time_nd(&k, &args, [n as u64, 1], [256, 1], 20);
    assert!((0..n).all(|i| z[i] == -1.75 * x[i] + y[i]));
    println!("daxpy {n}: {:.3} ms, {:.2} GB/s", t * 1e3, (24 * n) as f64 / t / 1e9);
}

#[test]
#[ignore]
fn bench_ddot() {
    let k = bench_kernel(include_str!("../../cts/kernels/bench/ddot.spvasm"), "ddot");
    let n = 1usize << 20;
    let (local, global) = (256u64, (n / 8) as u64);
    let x: Vec<f64> = (0..n).map(|i| (i % 13) as f64).collect();
    let y: Vec<f64> = (0..n).map(|i| (i % 7) as f64 * 0.5).collect();
    let mut partial = vec![0f64; (global / local) as usize];
    // The __local pointer argument: its offset into the arena (0).
    let args = arg_block(
        &k,
        &[
            x.as_ptr() as u64,
            y.as_ptr() as u64,
            partial.as_mut_ptr() as u64,
            0,
            n as u64,
        ],
    );
    let t = time_nd(&k, &args, [global, 1], [local, 1], 20);
    let total: f64 = partial.iter().sum();
    let want: f64 = (0..n).map(|i| x[i] * y[i]).sum();
    assert_eq!(total, want);
    println!("ddot {n}: {:.3} ms, {:.2} GB/s", t * 1e3, (16 * n) as f64 / t / 1e9);
}
