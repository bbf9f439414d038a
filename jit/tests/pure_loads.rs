//! Loads that Cranelift may place at their uses (`jit/src/codegen/pure_loads.rs`): the kernels
//! of `kernels/pure_loads.cl` (loads around stores through an aliasing pointer, a loop that
//! carries a value through memory, a load-only loop) and the register-tiled GEMM of
//! `cts/kernels/bench/gemm.cl` at several settings, each compiled with the marking on (the
//! default) and off (`CLIFT_PURE_LOADS=0`): both give the host's results, the GEMM bit for bit
//! (the host computes the same `fma` chain in the same order).
//!
//! The environment variable is read when a program is compiled, so this file holds one test.

use jit::Kernel;

mod support;
use support::{build_with_env as build, cl_to_spirv, ptr, run_grid, Arg, Rng};

/// Runs `k` over a 2-D grid of `groups` groups of `local` work-items.
fn run(k: &Kernel, args: &[Arg], local: [u64; 2], groups: [u64; 2]) {
    run_grid(k, args, 2, [local[0], local[1], 1], [groups[0], groups[1], 1]);
}

const CONFIGS: [&[(&str, &str)]; 2] = [&[], &[("CLIFT_PURE_LOADS", "0")]];

/// The alias kernels: `a` and `b` are one buffer.
fn alias_kernels(rng: &mut Rng) {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/pure_loads.cl");
    let spv = compile_cl(src, &[], "alias");
    for env in CONFIGS {
        let p = build(&spv, env);
        let n = 40usize;
        let init: Vec<f32> = (0..n).map(|_| rng.float()).collect();
        // A permutation: work-item i works on element idx[i].
        let mut idx: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            idx.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        let mut ix = idx.clone();

        let k = p.kernel("store_between").expect("store_between");
        let (mut ab, mut out) = (init.clone(), vec![0f32; n]);
        let a = ptr(&mut ab);
        let b = Arg::Ptr(ab.as_mut_ptr() as *mut u8);
        run(&k, &[ptr(&mut ix), a, b, ptr(&mut out)], [8, 1], [5, 1]);
        let want: Vec<f32> = idx.iter().map(|&j| init[j as usize] * 2.0).collect();
        assert_eq!(out, want, "store_between {env:?}");
        assert!(ab.iter().all(|&v| v == 7.0), "store_between {env:?}: stores");

        let k = p.kernel("reload_after_store").expect("reload_after_store");
        let (mut ab, mut out) = (init.clone(), vec![0f32; n]);
        let a = ptr(&mut ab);
        let b = Arg::Ptr(ab.as_mut_ptr() as *mut u8);
        run(&k, &[ptr(&mut ix), a, b, ptr(&mut out)], [8, 1], [5, 1]);
        let want: Vec<f32> = idx
            .iter()
            .map(|&j| (init[j as usize] + 1.0) - init[j as usize])
            .collect();
        assert_eq!(out, want, "reload_after_store {env:?}");

        let k = p.kernel("used_after_branch").expect("used_after_branch");
        let (mut ab, mut out) = (init.clone(), vec![0f32; n]);
        let a = ptr(&mut ab);
        let b = Arg::Ptr(ab.as_mut_ptr() as *mut u8);
        run(&k, &[ptr(&mut ix), a, b, ptr(&mut out), Arg::U32(3)], [8, 1], [5, 1]);
        let want: Vec<f32> = idx.iter().map(|&j| init[j as usize] + 0.5).collect();
        assert_eq!(out, want, "used_after_branch {env:?}");

        let k = p.kernel("chain").expect("chain");
        let steps = 9usize;
        let items = 16usize;
        let init: Vec<f32> = (0..items * (steps + 1)).map(|_| rng.float()).collect();
        let (mut ab, mut out) = (init.clone(), vec![0f32; items]);
        let a = ptr(&mut ab);
        let b = Arg::Ptr(ab.as_mut_ptr() as *mut u8);
        run(&k, &[a, b, ptr(&mut out), Arg::U32(steps as u32)], [4, 1], [4, 1]);
        for w in 0..items {
            let mut m = init[w * (steps + 1)..(w + 1) * (steps + 1)].to_vec();
            let mut s = 0f32;
            for k in 0..steps {
                let x = m[k];
                m[k + 1] = x * 0.5 + 1.0;
                s += x;
            }
            assert_eq!(out[w], s, "chain {env:?}: work-item {w}");
            assert_eq!(
                &ab[w * (steps + 1)..(w + 1) * (steps + 1)],
                &m[..],
                "chain {env:?}: memory"
            );
        }

        let k = p.kernel("dot_rows").expect("dot_rows");
        let (rows, n) = (8usize, 33usize);
        let a: Vec<f32> = (0..2 * rows * n).map(|_| rng.float()).collect();
        let b: Vec<f32> = (0..4 * n).map(|_| rng.float()).collect();
        let (mut ai, mut bi, mut out) = (a.clone(), b.clone(), vec![0f32; 8 * rows]);
        run(
            &k,
            &[ptr(&mut ai), ptr(&mut bi), ptr(&mut out), Arg::U32(n as u32)],
            [4, 1],
            [2, 1],
        );
        for r in 0..2 * rows {
            for j in 0..4 {
                let mut acc = 0f32;
                for k in 0..n {
                    acc = a[r * n + k].mul_add(b[4 * k + j], acc);
                }
                assert_eq!(
                    out[4 * r + j].to_bits(),
                    acc.to_bits(),
                    "dot_rows {env:?}: row {r} lane {j}"
                );
            }
        }
    }
}

/// The GEMM of `clift-bench` at one setting against the host's `fma` chain.
fn gemm(rng: &mut Rng, vw: usize, tm: usize, wg: usize, local: bool) {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../cts/kernels/bench/gemm.cl");
    let defines: Vec<String> = [("VW", vw), ("TM", tm), ("WG", wg), ("LOCAL", local as usize)]
        .iter()
        .map(|(k, v)| format!("-D{k}={v}"))
        .collect();
    let tag = format!("v{vw}t{tm}g{wg}{}", if local { "l" } else { "g" });
    let spv = compile_cl(src, &defines, &tag);
    // Two groups in each direction.
    let n = 2 * (wg * tm).max(wg * vw);
    let a: Vec<f32> = (0..n * n).map(|_| rng.float()).collect();
    let b: Vec<f32> = (0..n * n).map(|_| rng.float()).collect();
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[r * n + k].mul_add(b[k * n + c], acc);
            }
            want[r * n + c] = acc;
        }
    }
    for env in CONFIGS {
        let p = build(&spv, env);
        let k = p.kernel("gemm").expect("gemm");
        let (mut ai, mut bi, mut c) = (a.clone(), b.clone(), vec![f32::NAN; n * n]);
        let groups = [(n / vw / wg) as u64, (n / tm / wg) as u64];
        run(
            &k,
            &[Arg::U32(n as u32), ptr(&mut ai), ptr(&mut bi), ptr(&mut c)],
            [wg as u64, wg as u64],
            groups,
        );
        for (i, (g, w)) in c.iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits(), w.to_bits(), "gemm {tag} {env:?}: C[{}][{}]", i / n, i % n);
        }
    }
}

#[test]
fn loads_placed_at_their_uses_keep_results() {
    if !support::have_clang() {
        eprintln!("clang-15 is not installed: skipped");
        return;
    }
    let mut rng = Rng(0x5eed_0016);
    alias_kernels(&mut rng);
    for (vw, tm, wg, local) in [
        (8, 8, 8, false),
        (8, 4, 8, false),
        (4, 8, 8, false),
        (8, 8, 8, true),
        (8, 4, 8, true),
        (4, 4, 8, true),
        (4, 4, 16, true),
    ] {
        gemm(&mut rng, vw, tm, wg, local);
    }
}

/// SPIR-V of the OpenCL C file `src` built with `defines` (clang-15 -O2, llvm-spirv-15).
fn compile_cl(src: &str, defines: &[String], tag: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("clift-pure-loads-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = cl_to_spirv(std::path::Path::new(src), defines, &dir, "k");
    let _ = std::fs::remove_dir_all(&dir);
    out.unwrap_or_else(|e| panic!("llvm-spirv-15 rejected {src}: {e}"))
}
