//! Vector values kept across barriers (issue 15): float4, float8, int4 and double2 values
//! changed in divergent code between several barriers (`kernels/vector_barriers.cl`), against a
//! host computation of the same, on the default path (the region's vector loop where it
//! takes the kernel), with `CLIFT_SIMD=0` (the scalar region loop) and with
//! `CLIFT_VECTOR_LEAVES=1` (vectors as scalar leaves). The kept vectors are saved and restored
//! as whole registers (`jit/src/codegen/vector.rs`, `slot_moves`).
//!
//! The environment variables are read when a program is compiled, so this file holds one test.

use jit::Kernel;

mod support;
use support::{build_with_env as build, cl_to_spirv, ptr, run_grid, Arg, Rng};

/// Runs `k` over `groups` groups of `local` work-items.
fn run(k: &Kernel, args: &[Arg], local: u64, groups: u64) {
    run_grid(k, args, 1, [local, 1, 1], [groups, 1, 1]);
}

/// `kept_mixed` on the host, one group of `n` work-items at a time.
#[allow(clippy::type_complexity)]
fn host_mixed(
    f: &[f32],
    ii: &[i32],
    d: &[f64],
    n: usize,
    groups: usize,
    rounds: u32,
) -> (Vec<f32>, Vec<i32>, Vec<f64>) {
    let gs = n * groups;
    let (mut fo, mut io, mut dout) = (vec![0f32; 12 * gs], vec![0i32; 4 * gs], vec![0f64; 2 * gs]);
    for grp in 0..groups {
        let ids: Vec<usize> = (0..n).map(|l| grp * n + l).collect();
        let mut a: Vec<[f32; 4]> = ids.iter().map(|&g| std::array::from_fn(|k| f[4 * g + k])).collect();
        let mut b: Vec<[f32; 8]> = ids
            .iter()
            .map(|&g| std::array::from_fn(|k| f[4 * gs + 8 * g + k]))
            .collect();
        let mut c: Vec<[i32; 4]> = ids.iter().map(|&g| std::array::from_fn(|k| ii[4 * g + k])).collect();
        let mut e: Vec<[f64; 2]> = ids.iter().map(|&g| std::array::from_fn(|k| d[2 * g + k])).collect();
        let mut sh = vec![0i32; n];
        for r in 0..rounds {
            for l in 0..n {
                sh[l] = c[l][0].wrapping_add(r as i32);
            }
            for l in 0..n {
                let nb = sh[(l + 1) % n];
                if l & 1 == 1 {
                    a[l] = std::array::from_fn(|k| a[l][k] * 2.0 + (k + 1) as f32);
                    let m = [nb, 3, 5, 7];
                    c[l] = std::array::from_fn(|k| c[l][k] ^ m[k]);
                } else {
                    b[l] = std::array::from_fn(|k| b[l][7 - k] + nb as f32);
                    let m = [r as f64, -1.0];
                    e[l] = std::array::from_fn(|k| e[l][k] * 0.5 + m[k]);
                }
            }
            for l in 0..n {
                sh[l] = c[l][1];
            }
            for l in 0..n {
                if l % 3 == 0 {
                    let s = sh[n - 1 - l];
                    c[l] = c[l].map(|x| x.wrapping_add(s));
                }
                a[l][3] += b[l][3];
            }
        }
        for (l, &g) in ids.iter().enumerate() {
            fo[4 * g..4 * g + 4].copy_from_slice(&a[l]);
            fo[4 * gs + 8 * g..4 * gs + 8 * g + 8].copy_from_slice(&b[l]);
            io[4 * g..4 * g + 4].copy_from_slice(&c[l]);
            dout[2 * g..2 * g + 2].copy_from_slice(&e[l]);
        }
    }
    (fo, io, dout)
}

/// `kept_small` on the host.
fn host_small(f: &[f32], ii: &[i32], n: usize, groups: usize, rounds: u32) -> (Vec<f32>, Vec<i32>) {
    let gs = n * groups;
    let (mut fo, mut io) = (vec![0f32; 4 * gs], vec![0i32; 4 * gs]);
    for grp in 0..groups {
        let ids: Vec<usize> = (0..n).map(|l| grp * n + l).collect();
        let mut a: Vec<[f32; 4]> = ids.iter().map(|&g| std::array::from_fn(|k| f[4 * g + k])).collect();
        let mut c: Vec<[i32; 4]> = ids.iter().map(|&g| std::array::from_fn(|k| ii[4 * g + k])).collect();
        let mut sh = vec![0i32; n];
        for r in 0..rounds {
            for l in 0..n {
                sh[l] = c[l][0].wrapping_add(r as i32);
            }
            for l in 0..n {
                let nb = sh[(l + 1) % n];
                if l & 1 == 1 {
                    a[l] = std::array::from_fn(|k| a[l][k] * 2.0 + (k + 1) as f32);
                } else {
                    let m = [nb, 3, 5, 7];
                    c[l] = std::array::from_fn(|k| c[l][k] ^ m[k]);
                }
                a[l][1] -= c[l][2] as f32;
            }
        }
        for (l, &g) in ids.iter().enumerate() {
            fo[4 * g..4 * g + 4].copy_from_slice(&a[l]);
            io[4 * g..4 * g + 4].copy_from_slice(&c[l]);
        }
    }
    (fo, io)
}

#[test]
fn vectors_kept_across_barriers_match_the_host() {
    if !support::have_clang() {
        eprintln!("clang-15 is not installed: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("clift-vector-barriers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/vector_barriers.cl");
    let spv = cl_to_spirv(std::path::Path::new(src), &[], &dir, "vector_barriers")
        .unwrap_or_else(|e| panic!("llvm-spirv-15 rejected {src}: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let configs: [&[(&str, &str)]; 3] = [&[], &[("CLIFT_SIMD", "0")], &[("CLIFT_VECTOR_LEAVES", "1")]];
    let mut rng = Rng(0x5eed_0015);
    for env in configs {
        let p = build(&spv, env);
        let mixed = p.kernel("kept_mixed").expect("kept_mixed");
        let small = p.kernel("kept_small").expect("kept_small");
        assert!(mixed.has_barriers && small.has_barriers);
        // 13: the vector loop's groups of four leave a remainder to the scalar loop.
        for (n, groups, rounds) in [(16usize, 3usize, 5u32), (13, 2, 4), (1, 2, 3), (64, 1, 6)] {
            let gs = n * groups;
            let f: Vec<f32> = (0..12 * gs).map(|_| rng.small(64) as f32 * 0.25).collect();
            let ii: Vec<i32> = (0..4 * gs).map(|_| rng.small(1000) as i32).collect();
            let d: Vec<f64> = (0..2 * gs).map(|_| rng.small(1 << 20) as f64).collect();

            let (mut fo, mut io, mut dout) = (vec![0f32; 12 * gs], vec![0i32; 4 * gs], vec![0f64; 2 * gs]);
            let (mut fi, mut iin, mut din) = (f.clone(), ii.clone(), d.clone());
            let args = [
                ptr(&mut fi),
                ptr(&mut iin),
                ptr(&mut din),
                ptr(&mut fo),
                ptr(&mut io),
                ptr(&mut dout),
                Arg::U32(rounds),
            ];
            run(&mixed, &args, n as u64, groups as u64);
            let (wf, wi, wd) = host_mixed(&f, &ii, &d, n, groups, rounds);
            let ctx = format!("kept_mixed, {env:?}, {groups} groups of {n}, {rounds} rounds");
            assert_eq!(fo, wf, "{ctx}: floats");
            assert_eq!(io, wi, "{ctx}: ints");
            assert_eq!(dout, wd, "{ctx}: doubles");

            let (mut fo, mut io) = (vec![0f32; 4 * gs], vec![0i32; 4 * gs]);
            let args = [
                ptr(&mut fi),
                ptr(&mut iin),
                ptr(&mut fo),
                ptr(&mut io),
                Arg::U32(rounds),
            ];
            run(&small, &args, n as u64, groups as u64);
            let (wf, wi) = host_small(&f, &ii, n, groups, rounds);
            let ctx = format!("kept_small, {env:?}, {groups} groups of {n}, {rounds} rounds");
            assert_eq!(fo, wf, "{ctx}: floats");
            assert_eq!(io, wi, "{ctx}: ints");
        }
    }
}
