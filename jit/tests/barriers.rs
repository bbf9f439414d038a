//! Barrier patterns (kernels/barriers.cl) against host references, with both barrier
//! strategies (regions and the fiber fallback), from -O2 and -O0 SPIR-V, on several threads
//! running different groups concurrently.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::codegen::BarrierStrategy;
use jit::{CompileOptions, Kernel, Program};
use std::sync::{Arc, OnceLock};

enum Arg {
    Ptr(*mut u8),
    Local(usize),
    U32(u32),
}

fn ptr<T>(v: &mut [T]) -> Arg {
    Arg::Ptr(v.as_mut_ptr() as *mut u8)
}

fn prepare(k: &Kernel, args: &[Arg]) -> (Vec<u64>, usize) {
    assert_eq!(k.args.len(), args.len(), "argument count of {}", k.name);
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    let bytes = block.as_mut_ptr() as *mut u8;
    let mut local = k.static_local_size;
    for (ka, a) in k.args.iter().zip(args) {
        unsafe {
            match (ka.kind, a) {
                (ArgKind::Global | ArgKind::Constant, Arg::Ptr(p)) => {
                    *(bytes.add(ka.offset) as *mut u64) = *p as u64;
                }
                (ArgKind::Local, Arg::Local(n)) => {
                    local = local.div_ceil(16) * 16;
                    *(bytes.add(ka.offset) as *mut u64) = local as u64;
                    local += n;
                }
                (ArgKind::Value, Arg::U32(v)) => {
                    assert_eq!(ka.size, 4);
                    *(bytes.add(ka.offset) as *mut u32) = *v;
                }
                (k, _) => panic!("argument kind {k:?} mismatch"),
            }
        }
    }
    (block, local)
}

/// Runs an ND-range on `threads` threads (groups split round-robin).
fn run_nd(k: &Kernel, args: &[Arg], dim: u32, global: [u64; 3], local: [u64; 3], threads: usize) {
    let (block, lsz) = prepare(k, args);
    let num = [0, 1, 2].map(|d| global[d].div_ceil(local[d]));
    let total = num[0] * num[1] * num[2];
    let blk = block.as_ptr() as usize;
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut arena = vec![0u128; lsz.max(jit::abi::LOCAL_ARENA_BYTES).div_ceil(16) + 1];
                let mut g = t as u64;
                while g < total {
                    let gid = [g % num[0], (g / num[0]) % num[1], g / (num[0] * num[1])];
                    let ls = [0, 1, 2].map(|d| (global[d] - gid[d] * local[d]).min(local[d]));
                    let ctx = WorkGroupContext {
                        work_dim: dim,
                        host_shared: 0,
                        global_offset: [0; 3],
                        global_size: global,
                        local_size: ls,
                        enqueued_local_size: local,
                        num_groups: num,
                        group_id: gid,
                        local_mem: arena.as_mut_ptr() as *mut u8,
                        printf: std::ptr::null_mut(),
                    };
                    unsafe { k.run_group(blk as *const u8, &ctx) };
                    g += threads as u64;
                }
            });
        }
    });
}

fn run1(k: &Kernel, args: &[Arg], global: u64, local: u64) {
    run_nd(k, args, 1, [global, 1, 1], [local, 1, 1], 3)
}

struct Variant {
    label: &'static str,
    program: Program,
    fibers: bool,
}

fn variants() -> &'static [Variant] {
    static V: OnceLock<Vec<Variant>> = OnceLock::new();
    V.get_or_init(|| {
        let mut out = Vec::new();
        for (label, bytes, fibers) in [
            ("O2 regions", &include_bytes!("kernels/barriers.spv")[..], false),
            ("O0 regions", &include_bytes!("kernels/barriers_O0.spv")[..], false),
            ("O2 fibers", &include_bytes!("kernels/barriers.spv")[..], true),
            ("O0 fibers", &include_bytes!("kernels/barriers_O0.spv")[..], true),
        ] {
            let m = jit::spirv::parse(bytes).expect("parse");
            let o = CompileOptions::default();
            let program = if fibers {
                jit::codegen::compile_with_fibers(&m, &o)
            } else {
                jit::compile(&m, &o)
            }
            .unwrap_or_else(|e| panic!("compile ({label}): {e}"));
            out.push(Variant { label, program, fibers });
        }
        out
    })
}

/// Runs `check` with the kernel `name` of every variant, after checking its strategy.
fn each(name: &str, check: impl Fn(&Arc<Kernel>, &str)) {
    for v in variants() {
        let k = v.program.kernel(name).unwrap_or_else(|| panic!("kernel {name}"));
        let want = match (k.has_barriers, v.fibers) {
            (false, _) => BarrierStrategy::WorkItemLoops,
            (true, false) => BarrierStrategy::Regions,
            (true, true) => BarrierStrategy::Fibers,
        };
        assert_eq!(k.barrier_strategy, want, "{name} ({})", v.label);
        check(&k, v.label);
    }
}

/// The groups of a 1-D range: (group id, first global id, size).
fn groups(global: usize, local: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (0..global.div_ceil(local)).map(move |g| (g, g * local, local.min(global - g * local)))
}

#[test]
fn barrier_in_uniform_loop() {
    for (global, local, iters) in [(100usize, 16usize, 5u32), (64, 64, 0), (37, 37, 9), (256, 1, 3)] {
        let mut want = vec![0u32; global];
        for (g, base, n) in groups(global, local) {
            let mut v: Vec<u32> = (0..n).map(|l| l as u32 * 3 + g as u32).collect();
            let mut acc = vec![0u32; n];
            for it in 0..iters {
                let t = v.clone();
                for l in 0..n {
                    v[l] = t[(l + 1) % n].wrapping_add(it);
                    acc[l] = acc[l].wrapping_add(v[l].wrapping_mul(it + 1));
                }
            }
            for l in 0..n {
                want[base + l] = acc[l] ^ v[l];
            }
        }
        each("rotate", |k, label| {
            assert!(k.has_barriers);
            let mut out = vec![0u32; global];
            run1(
                k,
                &[ptr(&mut out), Arg::Local(local * 4), Arg::U32(iters)],
                global as u64,
                local as u64,
            );
            assert_eq!(out, want, "rotate {global}/{local} x{iters} ({label})");
        });
    }
}

#[test]
fn barriers_in_nested_loops() {
    for (global, local, outer, inner) in [(96usize, 32usize, 3u32, 4u32), (50, 20, 2, 0), (24, 24, 0, 3)] {
        let mut want = vec![0u32; global];
        for (_, base, n) in groups(global, local) {
            let mut s: Vec<u32> = (0..n as u32).collect();
            let mut t = vec![0u32; n];
            for i in 0..outer {
                for j in 0..inner {
                    for l in 0..n {
                        t[l] = s[l].wrapping_add(j);
                    }
                    for l in 0..n {
                        s[l] = s[l].wrapping_add(t[(l + j as usize + 1) % n]) & 0xffff;
                    }
                }
                t[0] = i * 5;
                for x in s.iter_mut() {
                    *x = x.wrapping_add(t[0]);
                }
            }
            want[base..base + n].copy_from_slice(&s);
        }
        each("nested", |k, label| {
            let mut out = vec![0u32; global];
            run1(
                k,
                &[ptr(&mut out), Arg::Local(local * 4), Arg::U32(outer), Arg::U32(inner)],
                global as u64,
                local as u64,
            );
            assert_eq!(out, want, "nested {global}/{local} {outer}x{inner} ({label})");
        });
    }
}

#[test]
fn barriers_in_called_functions() {
    let exchange = |v: &[u32], shift: usize| -> Vec<u32> {
        let n = v.len();
        (0..n).map(|l| v[(l + shift) % n]).collect()
    };
    for (global, local, iters) in [(128usize, 32usize, 3u32), (45, 16, 2), (8, 8, 0)] {
        let mut want = vec![0u32; global];
        for (_, base, n) in groups(global, local) {
            let mut v = exchange(&(0..n as u32).collect::<Vec<_>>(), 3);
            for i in 0..iters {
                let w: Vec<u32> = v.iter().map(|x| x.wrapping_add(i)).collect();
                let a = exchange(&w, 1);
                let a2: Vec<u32> = a.iter().map(|x| x.wrapping_mul(2)).collect();
                let b = exchange(&a2, 2);
                v = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
            }
            want[base..base + n].copy_from_slice(&v);
        }
        each("calls", |k, label| {
            let mut out = vec![0u32; global];
            run1(
                k,
                &[ptr(&mut out), Arg::Local(local * 4), Arg::U32(iters)],
                global as u64,
                local as u64,
            );
            assert_eq!(out, want, "calls {global}/{local} x{iters} ({label})");
        });
    }
}

#[test]
fn many_private_values_live_across_barriers() {
    let (global, local) = (200usize, 64usize);
    let input: Vec<u32> = (0..global as u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let mut want = vec![0u32; global];
    for (_, base, n) in groups(global, local) {
        let x: Vec<u32> = input[base..base + n].to_vec();
        let y: Vec<u32> = (0..n).map(|l| x[(l + 1) % n]).collect();
        let a3: Vec<u32> = x.iter().map(|v| v >> 1).collect();
        let t2: Vec<u32> = (0..n).map(|l| y[l].wrapping_mul(2).wrapping_add(a3[l])).collect();
        for l in 0..n {
            let x = x[l];
            let lid = l as u32;
            let a = [
                x.wrapping_add(1),
                x.wrapping_mul(3),
                x ^ 0x55,
                x >> 1,
                x.wrapping_mul(x),
                x.wrapping_add(17),
                x | 0x100,
                x.wrapping_mul(7).wrapping_add(1),
                x.wrapping_sub(3),
                x << 2,
                !x,
                x.wrapping_mul(11),
                x.wrapping_add(lid),
                x ^ lid,
                x.wrapping_mul(n as u32),
                x.wrapping_add(99),
            ];
            let w = (x as u64).wrapping_mul(0x100000001);
            let mut k: Vec<u32> = (0..24u32).map(|i| x.wrapping_mul(7).wrapping_add(i * 13)).collect();
            let yv = y[l];
            k[(yv % 24) as usize] = k[(yv % 24) as usize].wrapping_add(yv);
            let z = t2[(l + n - 1) % n];
            let mut s = 0u32;
            for (i, ai) in a.iter().enumerate() {
                s = s.wrapping_add(ai.wrapping_mul(i as u32 + 1));
            }
            s = s
                .wrapping_add(k[(x % 24) as usize])
                .wrapping_add(k[(z % 24) as usize].wrapping_mul(3))
                .wrapping_add((w >> 7) as u32);
            want[base + l] = s.wrapping_add(yv).wrapping_add(z);
        }
    }
    each("many_live", |k, label| {
        let mut inp = input.clone();
        let mut out = vec![0u32; global];
        run1(
            k,
            &[ptr(&mut inp), ptr(&mut out), Arg::Local(local * 4)],
            global as u64,
            local as u64,
        );
        assert_eq!(out, want, "many_live ({label})");
    });
}

#[test]
fn barriers_in_uniform_branches() {
    let (global, local) = (96usize, 24usize);
    for mode in 0u32..5 {
        let mut want = vec![0u32; global];
        for (g, base, n) in groups(global, local) {
            let mut v: Vec<u32> = if mode & 1 != 0 {
                (0..n).map(|l| (n - 1 - l) as u32 * 3).collect()
            } else {
                (0..n).map(|l| ((l + 2) % n) as u32 * 5 + 35).collect()
            };
            if g % 2 == 0 {
                let t: Vec<u32> = v.iter().map(|x| x + 1).collect();
                for l in 0..n {
                    v[l] += t[(l + 1) % n];
                }
            }
            match mode & 0xf6 {
                0 => {}
                2 => {
                    let t0 = v[0];
                    for x in v.iter_mut() {
                        *x += t0;
                    }
                }
                _ => {
                    for x in v.iter_mut() {
                        *x *= 2;
                    }
                }
            }
            want[base..base + n].copy_from_slice(&v);
        }
        each("uniform_branches", |k, label| {
            let mut out = vec![0u32; global];
            run1(
                k,
                &[ptr(&mut out), Arg::Local(local * 4), Arg::U32(mode)],
                global as u64,
                local as u64,
            );
            assert_eq!(out, want, "uniform_branches mode {mode} ({label})");
        });
    }
}

#[test]
fn loop_trip_count_from_local_memory() {
    let (global, local) = (160usize, 32usize);
    let input: Vec<u32> = (0..global as u32).map(|i| (i * 37 + 11) % 101).collect();
    let mut want = vec![0u32; global];
    for (_, base, n) in groups(global, local) {
        let mut v = input[base..base + n].to_vec();
        let mut rounds = 0;
        loop {
            let t = v.clone();
            let nv: Vec<u32> = (0..n).map(|l| v[l].max(t[(l + n - 1) % n])).collect();
            let changed = nv != v;
            v = nv;
            rounds += 1;
            if !changed {
                break;
            }
        }
        for l in 0..n {
            want[base + l] = v[l] + rounds * 1000;
        }
    }
    each("converge", |k, label| {
        let mut inp = input.clone();
        let mut out = vec![0u32; global];
        run1(
            k,
            &[ptr(&mut inp), ptr(&mut out), Arg::Local(4), Arg::Local(local * 4)],
            global as u64,
            local as u64,
        );
        assert_eq!(out, want, "converge ({label})");
    });
}

#[test]
fn two_dimensional_groups_non_uniform() {
    let (w, h) = (21usize, 13usize);
    let (lx, ly) = (8usize, 4usize);
    let input: Vec<u32> = (0..(w * h) as u32).map(|i| i * 3 + 1).collect();
    let mut want = vec![0u32; w * h];
    for gy in 0..h {
        for gx in 0..w {
            let (ox, oy) = (gx / lx * lx, gy / ly * ly);
            let (s0, s1) = (lx.min(w - ox), ly.min(h - oy));
            let (rx, ry) = (s0 - 1 - (gx - ox), s1 - 1 - (gy - oy));
            want[gy * w + gx] = input[(oy + ry) * w + ox + rx];
        }
    }
    each("mirror2d", |k, label| {
        let mut inp = input.clone();
        let mut out = vec![0u32; w * h];
        run_nd(
            k,
            &[
                ptr(&mut inp),
                ptr(&mut out),
                Arg::Local(lx * ly * 4),
                Arg::U32(w as u32),
            ],
            2,
            [w as u64, h as u64, 1],
            [lx as u64, ly as u64, 1],
            3,
        );
        assert_eq!(out, want, "mirror2d ({label})");
    });
}

#[test]
fn tiled_matrix_multiply() {
    let n = 48usize;
    let t = 8usize;
    let a: Vec<u32> = (0..n * n).map(|i| (i % 13) as u32).collect();
    let b: Vec<u32> = (0..n * n).map(|i| (i % 7) as u32 + 1).collect();
    let mut want = vec![0u32; n * n];
    for r in 0..n {
        for c in 0..n {
            want[r * n + c] = (0..n).map(|k| a[r * n + k] * b[k * n + c]).sum();
        }
    }
    each("matmul", |k, label| {
        let (mut a, mut b) = (a.clone(), b.clone());
        let mut c = vec![0u32; n * n];
        run_nd(
            k,
            &[
                ptr(&mut a),
                ptr(&mut b),
                ptr(&mut c),
                Arg::U32(n as u32),
                Arg::Local(t * t * 4),
                Arg::Local(t * t * 4),
            ],
            2,
            [n as u64, n as u64, 1],
            [t as u64, t as u64, 1],
            4,
        );
        assert_eq!(c, want, "matmul ({label})");
    });
}

#[test]
fn async_copy_and_wait() {
    let (global, local) = (192usize, 64usize);
    let input: Vec<u32> = (0..global as u32).map(|i| i * 5).collect();
    let mut want = vec![0u32; global];
    for (_, base, n) in groups(global, local) {
        for l in 0..n {
            want[base + l] = input[base + n - 1 - l] + 1;
        }
    }
    each("async_copy", |k, label| {
        assert!(k.static_local_size >= 256);
        let mut inp = input.clone();
        let mut out = vec![0u32; global];
        run1(k, &[ptr(&mut inp), ptr(&mut out)], global as u64, local as u64);
        assert_eq!(out, want, "async_copy ({label})");
    });
}

#[test]
fn work_item_loops_with_builtins_in_calls() {
    let (gx, gy) = (10usize, 6usize);
    let (lx, ly) = (4usize, 3usize);
    let mut want = vec![0u64; gx * gy];
    for y in 0..gy {
        for x in 0..gx {
            let lsx = lx.min(gx - x / lx * lx);
            let llid = (y % ly) * lsx + x % lx;
            want[y * gx + x] = (x * 1000000 + (y % ly) * 1000 + llid + (y / ly) * 7) as u64;
        }
    }
    each("ids_call", |k, label| {
        assert!(!k.has_barriers);
        let mut out = vec![0u64; gx * gy];
        run_nd(
            k,
            &[ptr(&mut out)],
            2,
            [gx as u64, gy as u64, 1],
            [lx as u64, ly as u64, 1],
            2,
        );
        assert_eq!(out, want, "ids_call ({label})");
    });
    each("vadd", |k, label| {
        let n = 1000;
        let mut a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let mut b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
        let mut c = vec![0f32; n];
        run1(k, &[ptr(&mut a), ptr(&mut b), ptr(&mut c)], n as u64, 64);
        assert!(
            c.iter().enumerate().all(|(i, v)| *v == 1.5 * i as f32),
            "vadd ({label})"
        );
    });
    each("empty", |k, _| {
        run1(k, &[], 1000, 100);
    });
}

/// The benchmark suite's tree reduction and tiled SGEMM (`cts/kernels/bench`): values derived
/// from the work-item ids (pointers into local tiles hoisted out of the loop) live across
/// barriers in loops, recomputed after each barrier rather than kept in the records.
#[test]
fn bench_suite_reduce_and_sgemm() {
    let asm = |text: &str| {
        let opts = jit::spirv::AsmOptions {
            version: (1, 0),
            ..Default::default()
        };
        let words = jit::spirv::assemble(text, opts).expect("assemble");
        jit::compile(
            &jit::spirv::parse_words(&words).expect("parse"),
            &CompileOptions::default(),
        )
        .expect("compile")
    };
    let p = asm(include_str!("../../cts/kernels/bench/reduce.spvasm"));
    let k = p.kernel("reduce").expect("reduce");
    assert_eq!(k.barrier_strategy, BarrierStrategy::Regions);
    let (n, global, local) = (5000usize, 256u64, 64u64);
    let mut input: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let mut partial = vec![0f32; (global / local) as usize];
    run1(
        &k,
        &[
            ptr(&mut input),
            ptr(&mut partial),
            Arg::Local(local as usize * 4),
            Arg::U32(n as u32),
        ],
        global,
        local,
    );
    for (g, got) in partial.iter().enumerate() {
        let want: f32 = (0..n)
            .filter(|i| (*i as u64 % global) / local == g as u64)
            .map(|i| input[i])
            .sum();
        assert_eq!(*got, want, "reduce group {g}");
    }

    let p = asm(include_str!("../../cts/kernels/bench/sgemm.spvasm"));
    let k = p.kernel("sgemm").expect("sgemm");
    assert_eq!(k.barrier_strategy, BarrierStrategy::Regions);
    let n = 48usize;
    let mut a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let mut b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let mut c = vec![0f32; n * n];
    run_nd(
        &k,
        &[Arg::U32(n as u32), ptr(&mut a), ptr(&mut b), ptr(&mut c)],
        2,
        [n as u64, n as u64, 1],
        [16, 16, 1],
        3,
    );
    for r in 0..n {
        for col in 0..n {
            let want: f32 = (0..n).map(|k| a[r * n + k] * b[k * n + col]).sum();
            assert_eq!(c[r * n + col], want, "sgemm C[{r}][{col}]");
        }
    }
}
