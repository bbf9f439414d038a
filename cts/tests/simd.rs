//! Straight-line kernels (kernels/source/simd.cl), the ones Clift runs four work-items at a
//! time (loops with one trip count and barrier regions included): every result against host
//! arithmetic, over ranges and local sizes that leave a scalar
//! tail (1D and 2D, with offsets, Clift's own local size); and, on Clift, a child process with
//! `CLIFT_DUMP_CODE` confirms that each kernel really got the vector loop.

use cts::image_ref::Rng;
use cts::*;

const OPTS: &str = "-cl-std=CL3.0";

fn floats(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    (0..n).map(|_| rng.range_f64(lo, hi) as f32).collect()
}

fn read_f32(q: &Queue, m: &Mem, n: usize) -> Vec<f32> {
    from_bytes(&q.read(m, 0, 4 * n))
}

/// The 1D launches each kernel is checked with: (offset, global, local).
fn launches(n: usize) -> Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    vec![
        (vec![], vec![n], vec![]),
        (vec![], vec![n], vec![25]),
        (vec![], vec![n], vec![8]),
        (vec![], vec![n], vec![3]),
        (vec![7], vec![n - 7], vec![]),
    ]
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn float_arithmetic() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 1000;
    let mut rng = Rng::new(1);
    let a = floats(&mut rng, n, -8.0, 8.0);
    let b: Vec<f32> = floats(&mut rng, n, 0.25, 4.0)
        .into_iter()
        .enumerate()
        .map(|(i, x)| if i % 2 == 1 { -x } else { x })
        .collect();
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let o = ctx.buffer(4 * n);
    let s = 3.0f32;
    let c = 0.375f32;
    for (name, want) in [
        (
            "f_arith",
            Box::new(|x: f32, y: f32| (x + y) / s - x / y - (-y)) as Box<dyn Fn(f32, f32) -> f32>,
        ),
        ("f_fma", Box::new(|x: f32, y: f32| x.mul_add(y, c))),
        ("f_mad", Box::new(|x: f32, y: f32| x.mul_add(y, c))),
    ] {
        // mad may be fused or not; Clift's is fused, PoCL's may not be.
        let unfused = |x: f32, y: f32| x * y + c;
        let k = p.kernel(name);
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &o);
        k.arg(3, if name == "f_arith" { &s } else { &c });
        for (off, global, local) in launches(n) {
            q.write(&o, 0, &vec![0xffu8; 4 * n]);
            q.run(&k, &off, &global, &local);
            let got = read_f32(&q, &o, n);
            let start = off.first().copied().unwrap_or(0);
            for i in 0..n {
                if i < start {
                    assert_eq!(
                        got[i].to_bits(),
                        u32::MAX,
                        "{name}: element {i} outside the range was written"
                    );
                    continue;
                }
                let w = want(a[i], b[i]);
                let ok = same(got[i], w) || (name == "f_mad" && same(got[i], unfused(a[i], b[i])));
                assert!(
                    ok,
                    "{name} (offset {off:?}, local {local:?}) element {i}: got {}, want {w}",
                    got[i]
                );
            }
        }
    }
}

#[test]
fn integer_arithmetic_with_int_index() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 998;
    let mut rng = Rng::new(2);
    let mut a: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let b: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    a[..6].copy_from_slice(&[0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff, 3]);
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let o = ctx.buffer(8 * n);
    let k: u32 = 0x9e37_79b9;
    for sh in [0i32, 5, 31, 33] {
        let kern = p.kernel("i_arith");
        kern.arg_mem(0, &ba);
        kern.arg_mem(1, &bb);
        kern.arg_mem(2, &o);
        kern.arg(3, &k);
        kern.arg(4, &sh);
        for local in [vec![], vec![25], vec![7]] {
            q.run(&kern, &[], &[n], &local);
            let got: Vec<u32> = from_bytes(&q.read(&o, 0, 8 * n));
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                let w0 = (x.wrapping_add(y).wrapping_mul(k).wrapping_sub(x ^ y)) | (x & !y);
                // OpenCL shifts by the amount modulo the width.
                let w1 = (x << 3)
                    .wrapping_add(y >> (sh as u32 & 31))
                    .wrapping_add(((x as i32) >> 2) as u32)
                    .wrapping_add(x.wrapping_mul(y));
                assert_eq!(got[i], w0, "i_arith element {i} (local {local:?}, sh {sh})");
                assert_eq!(got[n + i], w1, "i_arith second element {i} (local {local:?}, sh {sh})");
            }
        }
    }
}

#[test]
fn strided_loads_and_stores() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 333;
    let mut rng = Rng::new(3);
    let a = floats(&mut rng, 3 * n, -100.0, 100.0);
    let ba = ctx.buffer_from(as_bytes(&a));
    let o = ctx.buffer(4 * 2 * n);
    let k = p.kernel("strided");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &o);
    for (off, global, local) in launches(n) {
        q.write(&o, 0, &vec![0xffu8; 8 * n]);
        q.run(&k, &off, &global, &local);
        let got = read_f32(&q, &o, 2 * n);
        let start = off.first().copied().unwrap_or(0);
        for i in start..n {
            let (w0, w1) = (-a[3 * i + 1], a[3 * i] + a[3 * i + 2]);
            assert!(same(got[2 * i], w0), "strided o[{}] = {}, want {w0}", 2 * i, got[2 * i]);
            assert!(
                same(got[2 * i + 1], w1),
                "strided o[{}] = {}, want {w1}",
                2 * i + 1,
                got[2 * i + 1]
            );
        }
        for (i, g) in got.iter().enumerate().take(2 * start) {
            assert_eq!(g.to_bits(), u32::MAX, "strided: o[{i}] outside the range was written");
        }
    }
}

#[test]
fn two_dimensional_with_offsets_and_tails() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let mut rng = Rng::new(4);
    for (off, global, local) in [
        (vec![0, 0], vec![64, 6], vec![16, 3]),
        (vec![0, 0], vec![39, 6], vec![13, 3]),
        (vec![5, 2], vec![42, 5], vec![6, 5]),
        (vec![3, 1], vec![30, 7], vec![]),
    ] {
        let (w, h) = (global[0], global[1]);
        let a = floats(&mut rng, w * h, -2.0, 2.0);
        let coef = floats(&mut rng, h, 0.5, 1.5);
        let ba = ctx.buffer_from(as_bytes(&a));
        let bc = ctx.buffer_from(as_bytes(&coef));
        let o = ctx.buffer(4 * w * h);
        let k = p.kernel("grid");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg_mem(2, &bc);
        q.run(&k, &off, &global, &local);
        let got = read_f32(&q, &o, w * h);
        // Without a local size the implementation picks one: local ids are then unknown.
        let lx = local.first().copied();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let lid = lx.map(|l| (x % l) as f32);
                let ok = |l: f32| {
                    // The compiler may contract the multiply and the add.
                    let fused = a[i].mul_add(coef[y], l) + coef[0];
                    let plain = a[i] * coef[y] + l + coef[0];
                    same(got[i], fused) || same(got[i], plain)
                };
                let good = match lid {
                    Some(l) => ok(l),
                    // Unknown local size: some local id in 0..w must explain the value.
                    None => (0..w).any(|l| ok(l as f32)),
                };
                assert!(
                    good,
                    "grid (offset {off:?}, global {global:?}, local {local:?}) ({x}, {y}): got {}",
                    got[i]
                );
            }
        }
    }
}

#[test]
fn linear_ids_and_local_memory() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let (w, h) = (22, 3);
    let o = ctx.buffer(4 * w * h);
    let l = ctx.buffer(4 * w * h);
    let k = p.kernel("linear");
    k.arg_mem(0, &o);
    k.arg_mem(1, &l);
    q.run(&k, &[2, 1], &[w, h], &[11, 3]);
    let got = read_f32(&q, &o, w * h);
    let lids: Vec<u32> = from_bytes(&q.read(&l, 0, 4 * w * h));
    for y in 0..h {
        for x in 0..w {
            let g = y * w + x;
            let lin = (y * 11 + x % 11) as u32;
            assert_eq!(lids[g], lin, "get_local_linear_id at ({x}, {y})");
            assert_eq!(got[g].to_bits(), lin + 0x3f80_0000, "as_float at ({x}, {y})");
        }
    }

    let n = 517;
    let mut rng = Rng::new(5);
    let a: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32 >> 3).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let o = ctx.buffer(4 * n);
    let k = p.kernel("to_float");
    k.arg_mem(0, &ba);
    k.arg_local(1, 4 * 64);
    k.arg_mem(2, &o);
    for local in [vec![64], vec![47], vec![1]] {
        q.run(&k, &[], &[n], &local);
        let got = read_f32(&q, &o, n);
        for i in 0..n {
            let h = a[i] as f32;
            let ok = same(got[i], h * 0.5 + 1.0) || same(got[i], h.mul_add(0.5, 1.0));
            assert!(ok, "to_float element {i} (local {local:?}): got {}", got[i]);
        }
    }
}

#[test]
fn comparisons_selects_and_inline_functions() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 403;
    let mut rng = Rng::new(6);
    let special = [
        0.0f32,
        -0.0,
        1.5,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.5,
        -0.5,
        2.5,
        f32::MIN_POSITIVE,
        3.0,
    ];
    let mut a = floats(&mut rng, n, -6.0, 6.0);
    let mut b = floats(&mut rng, n, -6.0, 6.0);
    for (k, x) in special.iter().enumerate() {
        for (j, y) in special.iter().enumerate() {
            let i = k * special.len() + j;
            if i < n {
                a[i] = *x;
                b[i] = *y;
            }
        }
    }
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let o = ctx.buffer(16 * n);
    let m = ctx.buffer(8 * n);
    let k = p.kernel("cmp_select");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bb);
    k.arg_mem(2, &o);
    k.arg_mem(3, &m);
    for local in [vec![], vec![13], vec![4]] {
        q.run(&k, &[], &[n], &local);
        let got = read_f32(&q, &o, 4 * n);
        let gm: Vec<i32> = from_bytes(&q.read(&m, 0, 8 * n));
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            // fmin/fmax: a NaN operand gives the other one; equal operands (+0 and -0) either.
            let pick = |g: f32, want: f32| {
                if x.is_nan() {
                    same(g, y)
                } else if y.is_nan() {
                    same(g, x)
                } else if x == y {
                    same(g, x) || same(g, y)
                } else {
                    same(g, want)
                }
            };
            assert!(pick(got[4 * i], x.min(y)), "fmin({x}, {y}) = {}", got[4 * i]);
            assert!(pick(got[4 * i + 1], x.max(y)), "fmax({x}, {y}) = {}", got[4 * i + 1]);
            let w2 = if x > y { x - y } else { y.abs().sqrt() };
            assert!(
                same(got[4 * i + 2], w2),
                "select({x}, {y}) = {}, want {w2}",
                got[4 * i + 2]
            );
            let w3 = (x.floor() + y.ceil() + x.trunc() + y.round_ties_even()).copysign(y);
            assert!(
                same(got[4 * i + 3], w3),
                "floor/ceil/trunc/rint({x}, {y}) = {}, want {w3}",
                got[4 * i + 3]
            );
            let (u, v) = (x.to_bits() as i32, y.to_bits() as i32);
            let w4 = u
                .max(v)
                .wrapping_sub(u.min(v))
                .wrapping_add(if x.is_nan() { 7 } else { 0 })
                .wrapping_add(if x < y || u == 0 { 16 } else { 0 });
            assert_eq!(
                gm[2 * i],
                w4,
                "integer max/min and masks for ({x}, {y}), local {local:?}"
            );
            let (uu, uv) = (u as u32, v as u32);
            assert_eq!(
                gm[2 * i + 1],
                (uu.max(uv) ^ uu.min(uv)) as i32,
                "unsigned max/min ({x}, {y})"
            );
        }
    }
}

#[test]
fn if_without_else() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 301;
    let mut rng = Rng::new(7);
    let mut a = floats(&mut rng, n, -3.0, 9.0);
    a[..4].copy_from_slice(&[f32::NAN, f32::INFINITY, -0.0, 2.0]);
    let ba = ctx.buffer_from(as_bytes(&a));
    let o = ctx.buffer(4 * n);
    let lim = 2.0f32;
    let k = p.kernel("triangle");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &o);
    k.arg(2, &lim);
    for local in [vec![], vec![10]] {
        q.run(&k, &[], &[n], &local);
        let got = read_f32(&q, &o, n);
        for i in 0..n {
            let x = a[i];
            let ok = if x > lim {
                // mad: fused or not.
                same(got[i], x.sqrt().mul_add(lim, (x - lim).sqrt())) || same(got[i], x.sqrt() * lim + (x - lim).sqrt())
            } else {
                same(got[i], x)
            };
            assert!(ok, "triangle({x}) = {} (local {local:?})", got[i]);
        }
    }
}

#[test]
fn arms_taken_by_all_or_none() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let len = 130;
    let mut rng = Rng::new(8);
    let a = floats(&mut rng, len, -4.0, 4.0);
    let ia: Vec<i32> = (0..len).map(|_| rng.next_u64() as i32 >> 4).collect();
    let (ba, bi) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&ia)));
    let sentinel = vec![0xeeu8; 4 * len];
    // (global, local, n): n cuts through a vector, at a vector boundary, before every work-item.
    for (global, local, n) in [
        (128, vec![16], 97u32),
        (128, vec![8], 96),
        (120, vec![], 5),
        (121, vec![11], 0),
        (128, vec![32], 128),
    ] {
        let o = ctx.buffer_from(&sentinel);
        let k = p.kernel("bounded");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg(2, &n);
        q.run(&k, &[], &[global], &local);
        let got = read_f32(&q, &o, len);
        for (i, g) in got.iter().enumerate() {
            let want = if i < (n as usize).min(global) {
                a[i] * 2.0 + 1.0
            } else {
                f32::from_bits(0xeeee_eeee)
            };
            assert!(
                same(*g, want),
                "bounded n={n} local {local:?}: o[{i}] = {g}, want {want}"
            );
        }

        let o = ctx.buffer_from(&sentinel);
        let k = p.kernel("early_return");
        k.arg_mem(0, &bi);
        k.arg_mem(1, &o);
        k.arg(2, &(n as i32));
        q.run(&k, &[], &[global], &local);
        let got: Vec<i32> = from_bytes(&q.read(&o, 0, 4 * len));
        for (i, g) in got.iter().enumerate() {
            let want = if i < (n as usize).min(global) {
                ia[i].wrapping_add(i as i32)
            } else {
                0xeeee_eeeeu32 as i32
            };
            assert_eq!(*g, want, "early_return n={n} local {local:?}: o[{i}]");
        }
    }
    // A data-dependent condition: runs of positive and negative values, and mixed vectors.
    let mut v = a.clone();
    for (i, x) in v.iter_mut().enumerate() {
        if (i / 8) % 3 == 0 {
            *x = x.abs() + 0.5;
        } else if (i / 8) % 3 == 1 {
            *x = -x.abs() - 0.5;
        }
    }
    let bv = ctx.buffer_from(as_bytes(&v));
    let o = ctx.buffer_from(&sentinel);
    let k = p.kernel("positive_only");
    k.arg_mem(0, &bv);
    k.arg_mem(1, &o);
    q.run(&k, &[], &[len], &[10]);
    let got = read_f32(&q, &o, len);
    for (i, g) in got.iter().enumerate() {
        let want = if v[i] > 0.0 {
            v[i].sqrt()
        } else {
            f32::from_bits(0xeeee_eeee)
        };
        assert!(same(*g, want), "positive_only: o[{i}] = {g}, want {want}");
    }
}

#[test]
fn stencil_with_or_bounds() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let mut rng = Rng::new(9);
    for (w, h, global, local) in [
        (37usize, 9usize, vec![40usize, 9], vec![8usize, 3]),
        (64, 5, vec![64, 5], vec![]),
        (13, 4, vec![13, 4], vec![13, 1]),
    ] {
        let a = floats(&mut rng, w * h, -3.0, 3.0);
        let ba = ctx.buffer_from(as_bytes(&a));
        let o = ctx.buffer_from(&vec![0xeeu8; 4 * w * h]);
        let k = p.kernel("interior");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg(2, &(w as i32));
        k.arg(3, &(h as i32));
        q.run(&k, &[], &global, &local);
        let got = read_f32(&q, &o, w * h);
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let inside = x >= 1 && y >= 1 && x + 1 < w && y + 1 < h;
                let want = if inside {
                    a[i - 1] + a[i + 1] - 2.0 * a[i]
                } else {
                    f32::from_bits(0xeeee_eeee)
                };
                // The compiler may contract 2*a[i] into the subtraction.
                let fused = if inside {
                    (-2.0f32).mul_add(a[i], a[i - 1] + a[i + 1])
                } else {
                    want
                };
                assert!(
                    same(got[i], want) || same(got[i], fused),
                    "interior {w}x{h} local {local:?} ({x}, {y}): got {}, want {want}",
                    got[i]
                );
            }
        }
    }
}

#[test]
fn branches_with_phis_and_else() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let mut rng = Rng::new(10);
    for (w, local) in [(37usize, vec![]), (64, vec![16]), (29, vec![29]), (5, vec![5])] {
        let a = floats(&mut rng, w, -3.0, 3.0);
        let ba = ctx.buffer_from(as_bytes(&a));
        let o = ctx.buffer_from(&vec![0xeeu8; 4 * w]);
        let k = p.kernel("edges");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg(2, &(w as i32));
        q.run(&k, &[], &[w], &local);
        let got = read_f32(&q, &o, w);
        for x in 0..w {
            let c = a[x];
            let l = if x > 0 { a[x - 1] } else { c };
            let r = if x + 1 < w { a[x + 1] } else { c };
            let plain = 0.5 * c + 0.25 * (l + r);
            let fused = 0.5f32.mul_add(c, 0.25 * (l + r));
            assert!(
                same(got[x], plain) || same(got[x], fused),
                "edges w={w} local {local:?} [{x}]: got {}, want {plain}",
                got[x]
            );
        }

        let pos = ctx.buffer_from(&vec![0xeeu8; 4 * w]);
        let neg = ctx.buffer_from(&vec![0xeeu8; 4 * w]);
        let k = p.kernel("split_store");
        k.arg_mem(0, &ba);
        k.arg_mem(1, &pos);
        k.arg_mem(2, &neg);
        q.run(&k, &[], &[w], &local);
        let (gp, gn) = (read_f32(&q, &pos, w), read_f32(&q, &neg, w));
        let untouched = f32::from_bits(0xeeee_eeee);
        for x in 0..w {
            let (wp, wn) = if a[x] >= 0.0 { (a[x], untouched) } else { (0.0, -a[x]) };
            assert!(
                same(gp[x], wp) && same(gn[x], wn),
                "split_store w={w} [{x}]: {} {}",
                gp[x],
                gn[x]
            );
        }
    }
}

#[test]
fn size_t_index_arithmetic() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(5);
    // (The last row of sz_split reads up to w - 1 past the range.)
    let a = floats(&mut rng, n + 64, -4.0, 4.0);
    let ba = ctx.buffer_from(as_bytes(&a));
    let k = p.kernel("sz_split");
    for w in [1u64, 4, 7, 64] {
        for (off, global, local) in launches(n) {
            let (o, pi) = (ctx.buffer(4 * n), ctx.buffer(4 * n));
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg_mem(2, &pi);
            k.arg(3, &w);
            q.run(&k, &off, &global, &local);
            let (got, gp) = (read_f32(&q, &o, n), from_bytes::<i32>(&q.read(&pi, 0, 4 * n)));
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let (x, y) = (i as u64 % w, i as u64 / w);
                let want = a[(y * w + (w - 1 - x)) as usize] + i as i32 as f32 * 0.5;
                assert!(
                    same(got[i], want),
                    "sz_split w={w} {local:?}: o[{i}] = {} not {want}",
                    got[i]
                );
                let wp = (x * 3 + y) as i32 + if i as u64 == w { 1000 } else { 0 } + (i >> 1) as i32;
                assert_eq!(gp[i], wp, "sz_split w={w} {local:?}: p[{i}]");
            }
        }
    }
    let mut la: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
    la[..5].copy_from_slice(&[0, -1, i64::MAX, i64::MIN, 100]);
    let bl = ctx.buffer_from(as_bytes(&la));
    let k = p.kernel("sz_long");
    for m in [3i64, -0x1234_5678_9abc] {
        for (off, global, local) in launches(n) {
            let o = ctx.buffer(8 * n);
            k.arg_mem(0, &bl);
            k.arg_mem(1, &o);
            k.arg(2, &m);
            q.run(&k, &off, &global, &local);
            let got: Vec<i64> = from_bytes(&q.read(&o, 0, 8 * n));
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let v = la[i];
                let want = v
                    .wrapping_mul(m)
                    .wrapping_add(i as i64)
                    .wrapping_sub(v >> 7)
                    .wrapping_add((v < i as i64) as i64);
                assert_eq!(got[i], want, "sz_long m={m} {local:?}: o[{i}]");
            }
        }
    }
    let idx: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let bi = ctx.buffer_from(as_bytes(&idx));
    let k = p.kernel("sz_gather");
    for m in [1u64, 50, n as u64] {
        for (off, global, local) in launches(n) {
            let o = ctx.buffer(4 * n);
            k.arg_mem(0, &ba);
            k.arg_mem(1, &bi);
            k.arg_mem(2, &o);
            k.arg(3, &m);
            q.run(&k, &off, &global, &local);
            let got = read_f32(&q, &o, n);
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let want = a[(idx[i] as u64 % m) as usize] * 2.0;
                assert!(
                    same(got[i], want),
                    "sz_gather m={m} {local:?}: o[{i}] = {} not {want}",
                    got[i]
                );
            }
        }
    }
}

#[test]
fn loops_left_at_different_rounds() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let k = p.kernel("escape");
    for max_iter in [0u32, 1, 7, 200] {
        for (off, global, local) in launches(n) {
            let (o, zl) = (ctx.buffer(4 * n), ctx.buffer(4 * n));
            k.arg_mem(0, &o);
            k.arg_mem(1, &zl);
            k.arg(2, &-2.2f32);
            k.arg(3, &0.015f32);
            k.arg(4, &max_iter);
            q.run(&k, &off, &global, &local);
            let (got, gz) = (from_bytes::<u32>(&q.read(&o, 0, 4 * n)), read_f32(&q, &zl, n));
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let (cr, ci) = (-2.2f32 + i as f32 * 0.015f32, 0.25f32);
                let (mut zr, mut zi, mut it) = (0.0f32, 0.0f32, 0u32);
                while it < max_iter && zr * zr + zi * zi <= 4.0 {
                    let t = zr * zr - zi * zi + cr;
                    zi = 2.0 * zr * zi + ci;
                    zr = t;
                    it += 1;
                }
                assert_eq!(got[i], it, "escape max {max_iter} {local:?}: out[{i}]");
                assert!(
                    same(gz[i], zr),
                    "escape max {max_iter} {local:?}: last[{i}] = {} not {zr}",
                    gz[i]
                );
            }
        }
    }
    let mut rng = Rng::new(9);
    let a = floats(&mut rng, n + 8, -2.0, 3.0);
    let ba = ctx.buffer_from(as_bytes(&a));
    let k = p.kernel("until");
    for lim in [-10.0f32, 0.5, 2.0, 100.0] {
        for (off, global, local) in launches(n) {
            let o = ctx.buffer(4 * n);
            let trace = ctx.buffer_from(as_bytes(&vec![-1.0f32; n]));
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg_mem(2, &trace);
            k.arg(3, &lim);
            q.run(&k, &off, &global, &local);
            let (got, gt) = (read_f32(&q, &o, n), read_f32(&q, &trace, n));
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let (mut fx, mut tr) = (a[i], -1.0f32);
                for j in 0..(i % 7) + 1 {
                    fx = fx * 0.5 + a[i + j];
                    if fx > lim {
                        break;
                    }
                    tr = fx + j as f32;
                }
                assert!(
                    same(got[i], fx),
                    "until lim {lim} {local:?}: o[{i}] = {} not {fx}",
                    got[i]
                );
                assert!(
                    same(gt[i], tr),
                    "until lim {lim} {local:?}: trace[{i}] = {} not {tr}",
                    gt[i]
                );
            }
        }
    }
}

#[test]
fn branch_arms_under_masks() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(13);
    let a = floats(&mut rng, n + 1, -1.0, 2.0);
    let ba = ctx.buffer_from(as_bytes(&a));
    let k = p.kernel("masked_arms");
    for (off, global, local) in launches(n) {
        let o = ctx.buffer_from(as_bytes(&vec![-7.0f32; 2 * n + 8]));
        let pb = ctx.buffer_from(as_bytes(&vec![-7.0f32; 2 * n]));
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg_mem(2, &pb);
        q.run(&k, &off, &global, &local);
        let (go, gp) = (read_f32(&q, &o, 2 * n + 8), read_f32(&q, &pb, 2 * n));
        let start = off.first().copied().unwrap_or(0);
        let mut want_o = vec![-7.0f32; 2 * n + 8];
        let mut want_p = vec![-7.0f32; 2 * n];
        for i in start..start + global[0] {
            let x = a[i];
            want_o[i] = x;
            let y = if x > 0.5 {
                want_p[2 * i] = x * 2.0;
                x - 1.0
            } else {
                want_p[2 * i + 1] = -x;
                want_o[i] = x + 1.0;
                a[i + 1]
            };
            want_o[i + global[0] + 8] = y;
        }
        for (i, (g, w)) in go.iter().zip(&want_o).enumerate() {
            assert!(same(*g, *w), "masked_arms {local:?} off {off:?}: o[{i}] = {g} not {w}");
        }
        for (i, (g, w)) in gp.iter().zip(&want_p).enumerate() {
            assert!(same(*g, *w), "masked_arms {local:?} off {off:?}: p[{i}] = {g} not {w}");
        }
    }
}

#[test]
fn float4_and_uint4_values() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(23);
    let a = floats(&mut rng, 4 * n, -6.0, 6.0);
    let b = floats(&mut rng, n, -3.0, 3.0);
    let ua: Vec<u32> = (0..4 * n).map(|_| rng.next_u64() as u32).collect();
    let (ba, bb, bu) = (
        ctx.buffer_from(as_bytes(&a)),
        ctx.buffer_from(as_bytes(&b)),
        ctx.buffer_from(as_bytes(&ua)),
    );
    let s = 0.75f32;
    let (kf, ku) = (p.kernel("v_float4"), p.kernel("v_uint4"));
    for (off, global, local) in launches(n) {
        let (of, ou) = (ctx.buffer(16 * n), ctx.buffer(16 * n));
        kf.arg_mem(0, &ba);
        kf.arg_mem(1, &bb);
        kf.arg_mem(2, &of);
        kf.arg(3, &s);
        q.run(&kf, &off, &global, &local);
        ku.arg_mem(0, &bu);
        ku.arg_mem(1, &ou);
        q.run(&ku, &off, &global, &local);
        let (gf, gu) = (read_f32(&q, &of, 4 * n), from_bytes::<u32>(&q.read(&ou, 0, 16 * n)));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let v = &a[4 * i..4 * i + 4];
            let w = [b[i], s, -b[i], 1.0];
            let mut r: Vec<f32> = (0..4).map(|c| v[c].mul_add(w[c], v[3 - c]) - v[c].abs() * s).collect();
            r.swap(0, 2);
            for c in 0..4 {
                assert!(
                    same(gf[4 * i + c], r[c]),
                    "v_float4 {local:?}: o[{i}].{c} = {} want {}",
                    gf[4 * i + c],
                    r[c]
                );
            }
            let u = &ua[4 * i..4 * i + 4];
            for (c, amt) in [1u32, 8, 31, 0].into_iter().enumerate() {
                let m = 0x0f0f_0f0fu32;
                let sel = (u[c] & !m) | (u[(c + 1) % 4] & m);
                let want = (u[c].rotate_left(amt) ^ sel).wrapping_add(i as u32);
                assert_eq!(gu[4 * i + c], want, "v_uint4 {local:?}: o[{i}].{c}");
            }
        }
    }
}

/// `x / |x|` in double precision (every float's square is a normal double).
fn normalize_ref(x: &[f32]) -> Vec<f64> {
    let l = x.iter().map(|v| (*v as f64) * (*v as f64)).sum::<f64>().sqrt();
    x.iter().map(|v| *v as f64 / l).collect()
}

/// |got - want| in units of the last place of the float nearest `want`.
fn ulps32(got: f32, want: f64) -> f64 {
    let e = (want.abs().log2().floor() as i32).max(-126) - 23;
    ((got as f64 - want) / 2f64.powi(e)).abs()
}

/// `normalize`, `cross`, `length`, `distance`, `dot` of float4 and float3 values against the
/// host in double precision, with OpenCL C 7.4's bounds (normalize: 2 + n ulp; length and
/// distance 3 + n/2; cross and dot are the host's operations in their order).
#[test]
fn geometric_functions() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(29);
    let mut a = floats(&mut rng, 4 * n, -100.0, 100.0);
    let b = floats(&mut rng, 4 * n, -1.0e-3, 1.0e-3);
    // Magnitudes far apart, and a zero vector.
    for (k, c) in a.iter_mut().enumerate().skip(40).step_by(13) {
        *c *= 1.0e25 * (k % 3) as f32;
    }
    a[4 * 9..4 * 10].fill(0.0);
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let k = p.kernel("v_geometric");
    for (off, global, local) in launches(n) {
        let (o, s) = (ctx.buffer(48 * n), ctx.buffer(12 * n));
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &o);
        k.arg_mem(3, &s);
        q.run(&k, &off, &global, &local);
        let (go, gs) = (read_f32(&q, &o, 12 * n), read_f32(&q, &s, 3 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let (v, w) = (&a[4 * i..4 * i + 4], &b[4 * i..4 * i + 4]);
            let at = |c: usize| format!("{local:?} work-item {i} {v:?} {w:?}: component {c}");
            let nv = &go[12 * i..12 * i + 4];
            if v.iter().all(|c| *c == 0.0) {
                assert_eq!(nv, v, "{}", at(0));
            } else {
                for (c, want) in normalize_ref(v).into_iter().enumerate() {
                    assert!(ulps32(nv[c], want) <= 6.0, "normalize {}: {} want {want}", at(c), nv[c]);
                }
            }
            let cr = &go[12 * i + 4..12 * i + 8];
            for (c, (x, y)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                let want = (v[x] as f64 * w[y] as f64 - v[y] as f64 * w[x] as f64) as f32;
                assert!(same(cr[c], want), "cross {}: {} want {want}", at(c), cr[c]);
            }
            assert_eq!(cr[3], 0.0, "{}", at(3));
            let n3 = &go[12 * i + 8..12 * i + 12];
            for (c, want) in normalize_ref(&w[..3]).into_iter().enumerate() {
                assert!(
                    ulps32(n3[c], want) <= 5.0,
                    "normalize of xyz {}: {} want {want}",
                    at(c),
                    n3[c]
                );
            }
            let len = |x: &[f64]| x.iter().map(|c| c * c).sum::<f64>().sqrt();
            let wd: Vec<f64> = w.iter().map(|c| *c as f64).collect();
            let vd: Vec<f64> = v.iter().map(|c| *c as f64).collect();
            let dd: Vec<f64> = vd.iter().zip(&wd).map(|(x, y)| x - y).collect();
            assert!(ulps32(n3[3], len(&wd[..2])) <= 4.0, "fast_length {}", at(3));
            assert!(ulps32(gs[3 * i], len(&vd)) <= 5.0, "length {}: {}", at(0), gs[3 * i]);
            assert!(
                ulps32(gs[3 * i + 1], len(&dd)) <= 5.0,
                "distance {}: {}",
                at(0),
                gs[3 * i + 1]
            );
            let dot = v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + v[3] * w[3];
            assert!(same(gs[3 * i + 2], dot), "dot {}: {} want {dot}", at(0), gs[3 * i + 2]);
        }
    }
}

/// Half `x` rounded toward zero.
fn f16_rtz(x: f32) -> half::f16 {
    let r = half::f16::from_f32(x);
    if (r.to_f32()).abs() > x.abs() {
        half::f16::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// vloadn, vstoren, vload_half(n) and vstore_half(n) in the vector loop against the host,
/// with the arms only some work-items take writing nothing for the others.
#[test]
fn vector_data_loads_and_stores() {
    use half::f16;
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(31);
    let a = floats(&mut rng, 4 * (n + 2), -3.0, 3.0);
    let h: Vec<f16> = floats(&mut rng, 4 * (n + 2), -4.0, 4.0)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let hb: Vec<u16> = h.iter().map(|x| x.to_bits()).collect();
    let (ba, bh) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&hb)));
    let k = p.kernel("v_vdata");
    const UNTOUCHED: f32 = -7.0;
    for (off, global, local) in launches(n) {
        let o = ctx.buffer_from(as_bytes(&vec![UNTOUCHED; 13 * n]));
        let (oh, oi) = (ctx.buffer(10 * n), ctx.buffer(8 * n));
        for (j, m) in [&ba, &bh, &o, &oh, &oi].into_iter().enumerate() {
            k.arg_mem(j as u32, m);
        }
        q.run(&k, &off, &global, &local);
        let go = read_f32(&q, &o, 13 * n);
        let goh: Vec<u16> = from_bytes(&q.read(&oh, 0, 10 * n));
        let goi: Vec<i32> = from_bytes(&q.read(&oi, 0, 8 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let at = |what: &str, c: usize| format!("{local:?} work-item {i}: {what}[{c}]");
            let v = &a[4 * i..4 * i + 4];
            let t = &a[1 + 3 * i..4 + 3 * i];
            let wi = 2 * ((i * 7) % 50);
            let w = &a[wi..wi + 2];
            let x = h[i].to_f32();
            let hv: Vec<f32> = h[2 + 4 * i..6 + 4 * i].iter().map(|x| x.to_f32()).collect();
            let add = [w[0], w[1], x, hv[3]];
            for c in 0..4 {
                let want = v[c] * 2.0 + add[c];
                assert!(
                    same(go[4 * i + c], want),
                    "{}: {} want {want}",
                    at("vstore4", c),
                    go[4 * i + c]
                );
                let want = f16_rtz(hv[c] * 3.0 + v[c]).to_bits();
                assert_eq!(goh[n + 4 * i + c], want, "{}", at("vstore_half4_rtz", c));
            }
            for c in 0..3 {
                let want = t[c] + hv[c];
                assert!(same(go[4 * n + 3 * i + c], want), "{}", at("vstore3", c));
            }
            assert_eq!(goh[i], f16::from_f32(v[0] + x).to_bits(), "{}", at("vstore_half", 0));
            assert_eq!(
                goi[2 * i],
                (h[2 * i].to_f32() * 100.0) as i32,
                "{}",
                at("vstore2 int", 0)
            );
            assert_eq!(goi[2 * i + 1], i as i32, "{}", at("vstore2 int", 1));
            for c in 0..2 {
                let want = if v[1] > 0.0 { w[c] } else { UNTOUCHED };
                assert!(same(go[7 * n + 2 * i + c], want), "{}", at("masked vstore2", c));
            }
            for c in 0..4 {
                let want = if v[2] > 0.0 { a[4 * (i + 1) + c] } else { UNTOUCHED };
                assert!(same(go[9 * n + 4 * i + c], want), "{}", at("masked vload4", c));
            }
        }
    }
}

/// `x` rounded by `mode` ("rte", "rtn", "rtp", "rtz"), saturated to [lo, hi], NaN to 0
/// (OpenCL C 6.4.3.3).
fn convert_ref(x: f32, mode: &str, lo: f64, hi: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let r = match mode {
        "rte" => (x as f64).round_ties_even(),
        "rtn" => (x as f64).floor(),
        "rtp" => (x as f64).ceil(),
        _ => (x as f64).trunc(),
    };
    r.clamp(lo, hi) as i64
}

/// Float to integer conversions with rounding modes and saturation in the vector loop (float4
/// components, and floats to int, uchar and short), against the host, on values at and beyond
/// the integer ranges, halves, infinities and NaN.
#[test]
fn conversions_with_rounding_modes() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(37);
    let mut a = floats(&mut rng, 4 * n, -300.0, 300.0);
    let specials = [
        0.5f32,
        -0.5,
        1.5,
        -2.5,
        2.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.0e9,
        -3.0e9,
        4.5e9,
        70000.5,
        -40000.0,
        255.5,
        -0.0,
    ];
    for (k, c) in a.iter_mut().step_by(3).enumerate() {
        *c = specials[k % specials.len()] * if k % 2 == 0 { 1.0 } else { 0.999 };
    }
    let ba = ctx.buffer_from(as_bytes(&a));
    let k = p.kernel("v_convert");
    let (imin, imax) = (i32::MIN as f64, i32::MAX as f64);
    for (off, global, local) in launches(n) {
        let (o, u, s) = (ctx.buffer(32 * n), ctx.buffer(16 * n), ctx.buffer(12 * n));
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg_mem(2, &u);
        k.arg_mem(3, &s);
        q.run(&k, &off, &global, &local);
        let go: Vec<i32> = from_bytes(&q.read(&o, 0, 32 * n));
        let gu: Vec<u32> = from_bytes(&q.read(&u, 0, 16 * n));
        let gs: Vec<i32> = from_bytes(&q.read(&s, 0, 12 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let v = &a[4 * i..4 * i + 4];
            let at = |what: &str, c: usize| format!("{local:?} work-item {i}: {what}({})", v[c]);
            for c in 0..4 {
                let want = convert_ref(v[c] * 3.0, "rte", imin, imax) as i32;
                assert_eq!(go[8 * i + c], want, "{}", at("convert_int4_sat_rte(3x)", c));
                let want = convert_ref(v[c], "rtn", imin, imax) as i32;
                assert_eq!(go[8 * i + 4 + c], want, "{}", at("convert_int4_rtn", c));
                let want = convert_ref(v[c], "rtp", 0.0, u32::MAX as f64) as u32;
                assert_eq!(gu[4 * i + c], want, "{}", at("convert_uint4_sat_rtp", c));
            }
            assert_eq!(
                gs[3 * i],
                convert_ref(v[0], "rte", imin, imax) as i32,
                "{}",
                at("convert_int_rte", 0)
            );
            assert_eq!(
                gs[3 * i + 1],
                convert_ref(v[1], "rtn", 0.0, 255.0) as i32,
                "{}",
                at("convert_uchar_sat_rtn", 1)
            );
            let want = convert_ref(v[2], "rtz", i16::MIN as f64, i16::MAX as f64) as i32;
            assert_eq!(gs[3 * i + 2], want, "{}", at("convert_short_sat", 2));
        }
    }
}

/// Nested `if`s that share one merge block, against the host.
#[test]
fn nested_ifs_sharing_a_merge() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("nested_ifs");
    let n = 203usize;
    let mut rng = Rng::new(43);
    // Low bits zero often enough that every depth of the nest is reached in some quads.
    let a: Vec<u32> = (0..n)
        .map(|_| {
            let r = rng.next_u64() as u32;
            r & !(((r >> 28) & 0xf) * 0x0f)
        })
        .collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    for (off, global, local) in launches(n) {
        let o = ctx.buffer(4 * n);
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        q.run(&k, &off, &global, &local);
        let got: Vec<u32> = from_bytes(&q.read(&o, 0, 4 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let (mut x, mut y, mut z) = (a[i], a[i] >> 3, a[i] >> 7);
            if x & 3 == 0 {
                y = y.wrapping_add(5);
                if x & 12 == 0 {
                    z ^= y;
                    if x & 48 == 0 {
                        x = x.wrapping_mul(3);
                    }
                }
            }
            let want = x.wrapping_add(y.wrapping_mul(7)).wrapping_add(z.wrapping_mul(13));
            assert_eq!(got[i], want, "nested_ifs {local:?}: o[{i}] (a = {:#x})", a[i]);
        }
    }
}

/// Runs kernel `name` of simd.cl, `(global const int *a, global const uint *b, global int *o,
/// global uint *p)`, on `a` and `b` over every launch of [`launches`] and checks each
/// work-item's `o` and `p` against `want_o(a[i], i)` and `want_p(b[i], i)`.
fn int_uint_kernel(
    name: &str,
    a: &[i32],
    b: &[u32],
    want_o: impl Fn(i32, usize) -> i32,
    want_p: impl Fn(u32, usize) -> u32,
) {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel(name);
    let n = a.len();
    let (ba, bb) = (ctx.buffer_from(as_bytes(a)), ctx.buffer_from(as_bytes(b)));
    for (off, global, local) in launches(n) {
        let (o, po) = (ctx.buffer(4 * n), ctx.buffer(4 * n));
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &o);
        k.arg_mem(3, &po);
        q.run(&k, &off, &global, &local);
        let (go, gp): (Vec<i32>, Vec<u32>) = (from_bytes(&q.read(&o, 0, 4 * n)), from_bytes(&q.read(&po, 0, 4 * n)));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            assert_eq!(go[i], want_o(a[i], i), "{name} {local:?}: o[{i}] (a = {})", a[i]);
            assert_eq!(gp[i], want_p(b[i], i), "{name} {local:?}: p[{i}] (b = {})", b[i]);
        }
    }
}

/// mad24 and mul24 of int and uint four lanes at a time, against the host's wrapping
/// arithmetic on the same 24-bit operands.
#[test]
fn multiplies_of_24_bits() {
    let mut rng = Rng::new(41);
    // Within 24 bits, signed: -2^23 .. 2^23 - 1.
    let a: Vec<i32> = (0..203)
        .map(|_| ((rng.next_u64() as u32) >> 8) as i32 - (1 << 23))
        .collect();
    let b: Vec<u32> = (0..203).map(|_| rng.next_u64() as u32).collect();
    int_uint_kernel(
        "mul24s",
        &a,
        &b,
        |x, i| {
            x.wrapping_mul(x >> 8)
                .wrapping_add(i as i32)
                .wrapping_add((x >> 4).wrapping_mul((-x) >> 3))
        },
        |y, _| ((y & 0xff_ffff).wrapping_mul(y >> 8).wrapping_add(y)) ^ (y >> 9).wrapping_mul(y & 0xfff),
    );
}

/// mul_hi and mad_hi of int and uint four lanes at a time, against the host's 64-bit products.
#[test]
fn high_halves_of_products() {
    let mut rng = Rng::new(47);
    let mut a: Vec<i32> = (0..203).map(|_| rng.next_u64() as i32).collect();
    let mut b: Vec<u32> = (0..203).map(|_| rng.next_u64() as u32).collect();
    // The extremes among them.
    a[..4].copy_from_slice(&[i32::MIN, i32::MAX, -1, 0]);
    b[..4].copy_from_slice(&[u32::MAX, 0x8000_0000, 1, 0]);
    let shi = |x: i32, y: i32| ((x as i64 * y as i64) >> 32) as i32;
    let uhi = |x: u32, y: u32| ((x as u64 * y as u64) >> 32) as u32;
    int_uint_kernel(
        "mul_his",
        &a,
        &b,
        |x, i| shi(x, x ^ 0x5bd1e995).wrapping_add(shi(x, -7).wrapping_add(i as i32)),
        |y, i| uhi(y, 0xcd9e_8d57) ^ uhi(y, y >> 3).wrapping_add(i as u32),
    );
}

/// float2, float8 and float16 values loaded and stored whole (the vector loop's row loads and
/// stores), one through a gathered index, and a store two work-items share.
#[test]
fn two_eight_and_sixteen_component_values() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("v_widths");
    let n = 203usize;
    // Small integers: every product and sum is exact, fused or not.
    let small = |i: usize, m: usize| ((i * 7 + m) % 19) as f32 - 9.0;
    let a2: Vec<f32> = (0..2 * n).map(|i| small(i, 1)).collect();
    let a8: Vec<f32> = (0..8 * n).map(|i| small(i, 3)).collect();
    let a16: Vec<f32> = (0..16 * n).map(|i| small(i, 5)).collect();
    // A permutation: lanes of one vector iteration read rows far apart.
    let idx: Vec<u32> = (0..n).map(|i| ((i * 37 + 11) % n) as u32).collect();
    let bufs = [
        ctx.buffer_from(as_bytes(&a2)),
        ctx.buffer_from(as_bytes(&a8)),
        ctx.buffer_from(as_bytes(&a16)),
        ctx.buffer_from(as_bytes(&idx)),
    ];
    for (off, global, local) in launches(n) {
        let outs = [
            ctx.buffer(8 * n),
            ctx.buffer(32 * n),
            ctx.buffer(64 * n),
            ctx.buffer(32 * n.div_ceil(2)),
        ];
        for (a, b) in bufs.iter().chain(&outs).enumerate() {
            k.arg_mem(a as u32, b);
        }
        q.run(&k, &off, &global, &local);
        let g2 = read_f32(&q, &outs[0], 2 * n);
        let g8 = read_f32(&q, &outs[1], 8 * n);
        let g16 = read_f32(&q, &outs[2], 16 * n);
        let gs: Vec<u32> = from_bytes(&q.read(&outs[3], 0, 32 * n.div_ceil(2)));
        let start = off.first().copied().unwrap_or(0);
        let end = start + global[0];
        for i in start..end {
            let x = &a2[2 * i..2 * i + 2];
            let y = &a8[8 * idx[i] as usize..8 * idx[i] as usize + 8];
            let z = &a16[16 * i..16 * i + 16];
            let w2 = [x[1] * 2.0 + y[0], x[0] * 2.0 + y[1]];
            // (z.lo.even, z.hi.odd): z0 z2 z4 z6, z9 z11 z13 z15.
            let mix = [z[0], z[2], z[4], z[6], z[9], z[11], z[13], z[15]];
            let w8: Vec<f32> = (0..8).map(|c| y[c] * x[0] + mix[c]).collect();
            let w16: Vec<f32> = (0..16).map(|c| z[c] + if c < 8 { y[c] } else { y[15 - c] }).collect();
            assert_eq!(&g2[2 * i..2 * i + 2], &w2, "v_widths {local:?}: o2[{i}]");
            assert_eq!(&g8[8 * i..8 * i + 8], &w8[..], "v_widths {local:?}: o8[{i}]");
            assert_eq!(&g16[16 * i..16 * i + 16], &w16[..], "v_widths {local:?}: o16[{i}]");
        }
        // shared[j]: written by work-items 2j and 2j + 1 (of the range), unsynchronized, so
        // each element holds one of theirs.
        let want = |i: usize| -> Vec<u32> {
            let y = &a8[8 * idx[i] as usize..8 * idx[i] as usize + 8];
            let z8 = a16[16 * i + 8];
            [0, 2, 4, 6, 1, 3, 5, 7]
                .iter()
                .map(|&c| ((y[c] - z8) as i32 as u32).wrapping_add(i as u32))
                .collect()
        };
        for j in start / 2..end.div_ceil(2) {
            let writers: Vec<Vec<u32>> = (2 * j..2 * j + 2)
                .filter(|i| (start..end).contains(i))
                .map(want)
                .collect();
            for c in 0..8 {
                assert!(
                    writers.iter().any(|w| w[c] == gs[8 * j + c]),
                    "v_widths {local:?}: shared[{j}].s{c} = {} is none of {writers:?}",
                    gs[8 * j + c]
                );
            }
        }
    }
}

/// float3 and int3 values loaded and stored through pointers (16 bytes each; clang loads and
/// stores the padding too, with an undefined value); elements of work-items outside the range
/// keep what the buffer held.
#[test]
fn three_component_values() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("v_threes");
    let n = 117usize;
    let a: Vec<f32> = (0..4 * n).map(|i| ((i * 5) % 23) as f32 - 11.0).collect();
    let b: Vec<i32> = (0..4 * n).map(|i| ((i * 13) % 41) as i32 - 20).collect();
    let pad = 0x7f7f_7f7fu32;
    for (off, global, local) in launches(n) {
        let ins = [ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b))];
        let fill = vec![pad; 4 * n];
        let outs = [ctx.buffer_from(as_bytes(&fill)), ctx.buffer_from(as_bytes(&fill))];
        for (j, m) in ins.iter().chain(&outs).enumerate() {
            k.arg_mem(j as u32, m);
        }
        q.run(&k, &off, &global, &local);
        let go: Vec<u32> = from_bytes(&q.read(&outs[0], 0, 16 * n));
        let gp: Vec<u32> = from_bytes(&q.read(&outs[1], 0, 16 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in 0..n {
            let (x, y) = (&a[4 * i..4 * i + 3], &b[4 * i..4 * i + 3]);
            let ran = (start..start + global[0]).contains(&i);
            let wo: [u32; 3] = std::array::from_fn(|c| (x[(c + 2) % 3] * 2.0 + y[c] as f32).to_bits());
            let wp: [u32; 3] = std::array::from_fn(|c| y[(c + 1) % 3].wrapping_sub(i as i32) as u32);
            let (wo, wp) = if ran { (wo, wp) } else { ([pad; 3], [pad; 3]) };
            assert_eq!(go[4 * i..4 * i + 3], wo, "v_threes {local:?}: o[{i}]");
            assert_eq!(gp[4 * i..4 * i + 3], wp, "v_threes {local:?}: p[{i}]");
        }
    }
}

/// uchar4, short2 and ushort4 values (the vector loop's narrow components): conversions to
/// float and back with saturation and rounding to nearest even, wrapping 16-bit arithmetic,
/// widening; against host integer arithmetic.
#[test]
fn eight_and_sixteen_bit_vectors() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("v_narrow");
    let n = 211usize;
    let px: Vec<u8> = (0..4 * n).map(|i| (i * 37 % 256) as u8).collect();
    let d: Vec<i16> = (0..2 * n)
        .map(|i| match i % 7 {
            0 => i16::MAX,
            1 => i16::MIN,
            _ => ((i * 2903) % 65536) as u16 as i16 / 64,
        })
        .collect();
    // (Products of 8-bit values and 0.75 and their sums with 16-bit values are exact floats,
    // fused or not; quarters and halves test the rounding of ties.)
    let gain = 0.75f32;
    // Rounding to nearest even, saturated to 0..255.
    let sat = |f: f32| -> u8 {
        let r = f.round_ties_even();
        r.clamp(0.0, 255.0) as u8
    };
    for (off, global, local) in launches(n) {
        let ins = [ctx.buffer_from(&px), ctx.buffer_from(as_bytes(&d))];
        let outs = [ctx.buffer(4 * n), ctx.buffer(4 * n), ctx.buffer(8 * n)];
        for (j, m) in ins.iter().chain(&outs).enumerate() {
            k.arg_mem(j as u32, m);
        }
        k.arg(5, &gain);
        q.run(&k, &off, &global, &local);
        let out = q.read(&outs[0], 0, 4 * n);
        let dout: Vec<i16> = from_bytes(&q.read(&outs[1], 0, 4 * n));
        let wide: Vec<u16> = from_bytes(&q.read(&outs[2], 0, 8 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let (p, e) = (&px[4 * i..4 * i + 4], &d[2 * i..2 * i + 2]);
            let add = [f32::from(e[0]), f32::from(e[1]), 0.5, -0.5];
            let w_out: [u8; 4] = std::array::from_fn(|c| sat(f32::from(p[c]) * gain + add[c]));
            let w_d = [
                e[0].wrapping_mul(3).wrapping_add(i as i16),
                e[1].wrapping_mul(-2).wrapping_add(i as i16),
            ];
            let w_wide: [u16; 4] =
                std::array::from_fn(|c| u16::from(p[c]).wrapping_mul(257).wrapping_add(u16::from(p[3 - c])));
            assert_eq!(out[4 * i..4 * i + 4], w_out, "v_narrow {local:?}: out[{i}]");
            assert_eq!(dout[2 * i..2 * i + 2], w_d, "v_narrow {local:?}: dout[{i}]");
            assert_eq!(wide[4 * i..4 * i + 4], w_wide, "v_narrow {local:?}: wide[{i}]");
        }
    }
}

/// Bodies of 8- and 16-bit integers only run sixteen work-items per iteration (`uchar` and
/// `char` arithmetic, comparisons, selects, shifts, the saturating, halving, min/max, abs and
/// clamp built-ins, widening to and truncating from `short`, the 32-bit values of integer
/// promotions, an in-place update); rows of
/// 25 and 64 work-items and an offset leave tails of eight, four and one. Against host
/// integer arithmetic.
#[test]
fn sixteen_bytes_at_a_time() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 1000usize;
    let edge = [0u8, 255, 127, 128, 7, 20, 200, 1, 254, 129];
    // Every `every`-th byte an edge value, the others spread over 0..255.
    let bytes = |every: usize, mul: usize| -> Vec<u8> {
        (0..n)
            .map(|i| {
                if i % every == 0 {
                    edge[i / every % 10]
                } else {
                    (i * mul % 256) as u8
                }
            })
            .collect()
    };
    let (a, b) = (bytes(5, 37), bytes(7, 101));
    let s: Vec<i16> = (0..n)
        .map(|i| match i % 9 {
            0 => i16::MAX,
            1 => i16::MIN,
            2 => -5,
            3 => -6,
            _ => ((i * 2903) % 65536) as u16 as i16,
        })
        .collect();
    let mut all = launches(n);
    all.push((vec![], vec![n], vec![64]));
    let t = 100u8;
    for (off, global, local) in all {
        let start = off.first().copied().unwrap_or(0);
        let range = start..start + global[0];
        // uchar
        let k = p.kernel("w_u8");
        let ins = [ctx.buffer_from(&a), ctx.buffer_from(&b)];
        let outs: Vec<Mem> = (0..6).map(|_| ctx.buffer(n)).collect();
        k.arg_mem(0, &ins[0]);
        k.arg_mem(1, &ins[1]);
        k.arg(2, &t);
        for (j, m) in outs.iter().enumerate() {
            k.arg_mem(3 + j as u32, m);
        }
        q.run(&k, &off, &global, &local);
        let got: Vec<Vec<u8>> = outs.iter().map(|m| q.read(m, 0, n)).collect();
        for i in range.clone() {
            let (x, y) = (a[i], b[i]);
            let hadd = ((u16::from(x) + u16::from(y)) >> 1) as u8;
            let rhadd = ((u16::from(x) + u16::from(y) + 1) >> 1) as u8;
            let want = [
                if x > t { 255 } else { 0 },
                x.saturating_add(y),
                x.saturating_sub(y) ^ (x >> 3) ^ x.wrapping_mul(y),
                x.abs_diff(y).wrapping_add(hadd),
                rhadd | x.clamp(20, 200),
                if x < y && y != 7 {
                    x.min(y)
                } else {
                    x.max(y).wrapping_sub(!x)
                },
            ];
            for (j, w) in want.iter().enumerate() {
                assert_eq!(got[j][i], *w, "w_u8 {local:?} o{}[{i}] of {x}, {y}", j + 1);
            }
        }
        // char
        let k = p.kernel("w_s8");
        let outs: Vec<Mem> = (0..5).map(|_| ctx.buffer(n)).collect();
        k.arg_mem(0, &ins[0]);
        k.arg_mem(1, &ins[1]);
        for (j, m) in outs.iter().enumerate() {
            k.arg_mem(2 + j as u32, m);
        }
        q.run(&k, &off, &global, &local);
        let got: Vec<Vec<u8>> = outs.iter().map(|m| q.read(m, 0, n)).collect();
        for i in range.clone() {
            let (x, y) = (a[i] as i8, b[i] as i8);
            let (wx, wy) = (i16::from(x), i16::from(y));
            let want = [
                x.saturating_add(y).wrapping_sub(x.saturating_sub(y)) as u8,
                ((x >> 2) ^ y.wrapping_neg()) as u8,
                x.unsigned_abs().wrapping_add(x.abs_diff(y)),
                (((wx + wy) >> 1) as i8).wrapping_add(((wx + wy + 1) >> 1) as i8) as u8,
                ((if x < y { x.max(y) } else { x.min(y) }) ^ x.clamp(-100, 50)) as u8,
            ];
            for (j, w) in want.iter().enumerate() {
                assert_eq!(got[j][i], *w, "w_s8 {local:?} o{}[{i}] of {x}, {y}", j + 1);
            }
        }
        // short and ushort, widened from and truncated to uchar
        let k = p.kernel("w_16");
        let sb = ctx.buffer_from(as_bytes(&s));
        let outs = [
            ctx.buffer(2 * n),
            ctx.buffer(2 * n),
            ctx.buffer(n),
            ctx.buffer(2 * n),
            ctx.buffer(n),
        ];
        k.arg_mem(0, &ins[0]);
        k.arg_mem(1, &ins[1]);
        k.arg_mem(2, &sb);
        for (j, m) in outs.iter().enumerate() {
            k.arg_mem(3 + j as u32, m);
        }
        q.run(&k, &off, &global, &local);
        let o1: Vec<i16> = from_bytes(&q.read(&outs[0], 0, 2 * n));
        let o2: Vec<u16> = from_bytes(&q.read(&outs[1], 0, 2 * n));
        let o3 = q.read(&outs[2], 0, n);
        let o4: Vec<i16> = from_bytes(&q.read(&outs[3], 0, 2 * n));
        let o5 = q.read(&outs[4], 0, n);
        for i in range.clone() {
            let (x, y, v) = (a[i], b[i], s[i]);
            assert_eq!(o1[i], v.wrapping_mul(3).wrapping_add(v >> 2), "w_16 {local:?} o1[{i}]");
            assert_eq!(
                o2[i],
                u16::from(x).wrapping_mul(257).wrapping_add(u16::from(y)),
                "w_16 {local:?} o2[{i}]"
            );
            assert_eq!(o3[i], ((v >> 4) as u8).wrapping_add(x), "w_16 {local:?} o3[{i}]");
            let w4 = if v < -5 {
                v.saturating_add(20000)
            } else {
                ((i32::from(v) + i32::from(x) + 1) >> 1) as i16
            };
            assert_eq!(o4[i], w4, "w_16 {local:?} o4[{i}] of {v}, {x}");
            assert_eq!(o5[i], if (x > y) == (v < 0) { x } else { y }, "w_16 {local:?} o5[{i}]");
        }
        // 32-bit intermediates (integer promotions)
        let k = p.kernel("w_32");
        let m = 300i32;
        let outs = [ctx.buffer(n), ctx.buffer(n), ctx.buffer(n), ctx.buffer(2 * n)];
        k.arg_mem(0, &ins[0]);
        k.arg_mem(1, &ins[1]);
        k.arg_mem(2, &ins[1]);
        k.arg(3, &m);
        for (j, o) in outs.iter().enumerate() {
            k.arg_mem(4 + j as u32, o);
        }
        q.run(&k, &off, &global, &local);
        let (o1, o2, o3) = (q.read(&outs[0], 0, n), q.read(&outs[1], 0, n), q.read(&outs[2], 0, n));
        let o4: Vec<i16> = from_bytes(&q.read(&outs[3], 0, 2 * n));
        for i in range.clone() {
            let (x, y, z) = (i32::from(a[i]), i32::from(b[i]), i32::from(b[i] as i8));
            assert_eq!(
                o1[i],
                if (x - y).abs() > 20 { 255 } else { 0 },
                "w_32 {local:?} o1[{i}]"
            );
            assert_eq!(o2[i], ((x * m) >> 8) as u8, "w_32 {local:?} o2[{i}]");
            assert_eq!(o3[i], ((z * 3 - y) >> 1) as u8, "w_32 {local:?} o3[{i}]");
            assert_eq!(
                o4[i],
                ((x * m).max(y * 1000) - (z << 9)) as i16,
                "w_32 {local:?} o4[{i}]"
            );
        }
        // in place
        let k = p.kernel("w_inv");
        let m = ctx.buffer_from(&a);
        k.arg_mem(0, &m);
        q.run(&k, &off, &global, &local);
        let got = q.read(&m, 0, n);
        for i in 0..n {
            let w = if range.contains(&i) { !a[i] } else { a[i] };
            assert_eq!(got[i], w, "w_inv {local:?} [{i}]");
        }
    }
}

/// Comparisons of float4, int4 and uchar4 values (the vector loop's vectors of booleans):
/// -1 or 0 per component, conditional expressions and select by component, any and all;
/// against host comparisons.
#[test]
fn vector_comparisons() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("v_compare");
    let n = 157usize;
    let specials = [
        0.5f32,
        -0.0,
        0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.499_999_97,
        -3.0,
    ];
    let a: Vec<f32> = (0..4 * n)
        .map(|i| {
            if i % 3 == 0 {
                specials[i / 3 % specials.len()]
            } else {
                (i as f32 * 0.37).sin()
            }
        })
        .collect();
    let b: Vec<i32> = (0..4 * n).map(|i| ((i * 7919) % 23) as i32 - 11).collect();
    let c: Vec<u8> = (0..4 * n).map(|i| (i * 61 % 256) as u8).collect();
    let t = |x: bool| -i32::from(x);
    for (off, global, local) in launches(n) {
        let ins = [
            ctx.buffer_from(as_bytes(&a)),
            ctx.buffer_from(as_bytes(&b)),
            ctx.buffer_from(&c),
        ];
        let outs = [ctx.buffer(16 * n), ctx.buffer(16 * n), ctx.buffer(4 * n)];
        for (j, m) in ins.iter().chain(&outs).enumerate() {
            k.arg_mem(j as u32, m);
        }
        q.run(&k, &off, &global, &local);
        let go: Vec<u32> = from_bytes(&q.read(&outs[0], 0, 16 * n));
        let gp: Vec<i32> = from_bytes(&q.read(&outs[1], 0, 16 * n));
        let gq: Vec<i32> = from_bytes(&q.read(&outs[2], 0, 4 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let (x, y, z) = (&a[4 * i..4 * i + 4], &b[4 * i..4 * i + 4], &c[4 * i..4 * i + 4]);
            let lt: [bool; 4] = std::array::from_fn(|j| x[j] < 0.5);
            let wo: [u32; 4] = std::array::from_fn(|j| {
                let v = if x[j].is_nan() {
                    7.0
                } else if lt[j] {
                    -x[j]
                } else {
                    x[j]
                };
                v.to_bits()
            });
            let wp: [i32; 4] = std::array::from_fn(|j| t(y[j] >= -3) + t(z[j] > 200) * 2 + t(y[3 - j] != y[j]) * 4);
            let b = |v: bool| i32::from(v);
            let wq = b(lt.iter().any(|v| *v))
                + 2 * b((0..4).all(|j| y[j] < y[3 - j]))
                + 4 * b(z.contains(&0))
                + 8 * b(x[0].is_infinite())
                + 16 * b(x[1].is_finite())
                + 32 * b(x[2].is_normal())
                + 64 * b(x[3].is_sign_negative())
                + 128 * b(x.iter().any(|v| v.is_normal()))
                + 256 * b(x[0].is_nan() || x[1].is_nan())
                + 512 * b(x[2].partial_cmp(&x[3]).is_some_and(|o| o.is_ne()))
                + 1024 * b(x.iter().any(|v| v.is_sign_negative()));
            assert_eq!(go[4 * i..4 * i + 4], wo, "v_compare {local:?}: o[{i}] of {x:?}");
            assert_eq!(gp[4 * i..4 * i + 4], wp, "v_compare {local:?}: p[{i}]");
            assert_eq!(gq[i], wq, "v_compare {local:?}: q[{i}]");
        }
    }
}

/// The host's rounds of kernel `chains` for work-item `i`: its two uint4 outputs and its float4.
fn chains_ref(w_in: &[u32], i: usize, n: u32) -> ([u32; 8], [f32; 4]) {
    let v = |k: usize| -> [u32; 4] { std::array::from_fn(|c| w_in[16 * i + 4 * k + c]) };
    let map2 =
        |x: [u32; 4], y: [u32; 4], f: fn(u32, u32) -> u32| -> [u32; 4] { std::array::from_fn(|c| f(x[c], y[c])) };
    let xor = |x, y| map2(x, y, |p, q| p ^ q);
    let add = |x, y| map2(x, y, |p: u32, q| p.wrapping_add(q));
    let mut w = [[0u32; 4]; 8];
    for (k, wk) in w.iter_mut().enumerate().take(4) {
        *wk = v(k);
    }
    w[4] = xor(w[0], w[1]);
    w[5] = xor(w[1], w[2]);
    w[6] = xor(w[2], w[3]);
    w[7] = xor(w[3], w[0]);
    let (mut a, mut b, mut c, mut d) = (xor(w[0], w[2]), w[1], add(w[2], [i as u32; 4]), w[3]);
    let mut f: [f32; 4] = std::array::from_fn(|c| (w[0][c] & 1023) as f32);
    let order: Vec<u32> = (0..8).chain(0..8).chain((0..8).rev()).collect();
    for _ in 0..n + (i % 3) as u32 {
        for &r in &order {
            let bs: [u32; 4] = std::array::from_fn(|k| (d[k] & !b[k]) | (c[k] & b[k]));
            let x = add(add(add(a, bs), w[r as usize]), [(r + 1).wrapping_mul(0x9e37_79b9); 4]);
            a = d;
            d = c;
            c = b;
            b = std::array::from_fn(|k| b[k].wrapping_add(x[k].rotate_left((r * 5) % 31 + 1)));
            let m = 0.5f32 + r as f32 * 0.01f32;
            f = std::array::from_fn(|k| f[k] * m + (b[k] & 255) as f32 * 0.25f32);
        }
        w[0] = add(w[0], a);
        w[5] = xor(w[5], [b[1], b[2], b[3], b[0]]);
    }
    let (o0, o1) = (xor(a, c), add(b, d));
    let mut o = [0u32; 8];
    o[..4].copy_from_slice(&o0);
    o[4..].copy_from_slice(&o1);
    (o, f)
}

#[test]
fn long_chains_cut_into_blocks() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let trips = 3u32;
    let mut rng = Rng::new(29);
    let w: Vec<u32> = (0..16 * n).map(|_| rng.next_u64() as u32).collect();
    let bw = ctx.buffer_from(as_bytes(&w));
    let k = p.kernel("chains");
    for (off, global, local) in launches(n) {
        let (o, of) = (ctx.buffer(32 * n), ctx.buffer(16 * n));
        k.arg_mem(0, &bw);
        k.arg_mem(1, &o);
        k.arg_mem(2, &of);
        k.arg(3, &trips);
        q.run(&k, &off, &global, &local);
        let go = from_bytes::<u32>(&q.read(&o, 0, 32 * n));
        let gf = read_f32(&q, &of, 4 * n);
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let (wo, wf) = chains_ref(&w, i, trips);
            assert_eq!(
                &go[8 * i..8 * i + 8],
                &wo,
                "chains {local:?}: uint4 outputs of work-item {i}"
            );
            for c in 0..4 {
                assert!(
                    same(gf[4 * i + c], wf[c]),
                    "chains {local:?}: of[{i}].{c} = {} want {}",
                    gf[4 * i + c],
                    wf[c]
                );
            }
        }
    }
}

/// Host rounds of kernel `fneg_cut`'s `h`.
fn fneg_cut_h(x: f32, i: usize) -> u32 {
    let mut h = x.to_bits() ^ i as u32;
    for r in 0..36u32 {
        h = h.rotate_left(r % 7 + 3) ^ h.wrapping_add((r + 1).wrapping_mul(0x9e37_79b9));
    }
    h
}

#[test]
fn negation_across_a_cut() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(31);
    let a = floats(&mut rng, n, -4.0, 4.0);
    // Every third b a NaN: both signs, payloads, a signaling one.
    let nans = [0x7fc0_0000u32, 0xffc0_0000, 0x7fc1_2345, 0xffa0_0001, 0x7f80_0001];
    let b: Vec<f32> = (0..n)
        .map(|i| {
            if i % 3 == 1 {
                f32::from_bits(nans[i / 3 % nans.len()])
            } else {
                rng.range_f64(-4.0, 4.0) as f32
            }
        })
        .collect();
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let k = p.kernel("fneg_cut");
    let s = 1.25f32;
    for (off, global, local) in launches(n) {
        let o = ctx.buffer(12 * n);
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &o);
        k.arg(3, &s);
        k.arg(4, &s);
        q.run(&k, &off, &global, &local);
        let got = from_bytes::<u32>(&q.read(&o, 0, 12 * n));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            let (near, far, h) = (got[3 * i], got[3 * i + 1], got[3 * i + 2]);
            assert_eq!(h, fneg_cut_h(a[i], i), "fneg_cut {local:?}: h of work-item {i}");
            // The same negated value into the same multiply-add: the same word, NaN sign
            // included, wherever the vector code was cut.
            assert_eq!(
                near,
                far,
                "fneg_cut {local:?}: work-item {i}, b = {:#x}",
                b[i].to_bits()
            );
            let (fused, apart) = (a[i].mul_add(-b[i], s), a[i] * -b[i] + s);
            let g = f32::from_bits(near);
            assert!(
                same(g, fused) || same(g, apart),
                "fneg_cut {local:?}: mad({}, -{}, {s}) = {g} want {fused}",
                a[i],
                b[i]
            );
        }
    }
}

/// Host values of kernel `shifts` for one work-item's `x`, `y` and the argument `s` (OpenCL
/// takes shift and rotate amounts modulo 32).
fn shifts_ref(x: [u32; 4], y: [u32; 4], s: u32) -> [[u32; 4]; 12] {
    let map = |f: &dyn Fn(usize) -> u32| -> [u32; 4] { std::array::from_fn(f) };
    let funnel = |hi: [u32; 4], lo: [u32; 4], s: u32| -> [u32; 4] {
        let sh = 8 * s;
        map(&|c| {
            if sh == 0 {
                lo[c]
            } else {
                (lo[c] >> (sh % 32)) | (hi[c] << ((32 - sh) % 32))
            }
        })
    };
    let xor = |a: [u32; 4], b: [u32; 4]| map(&|c| a[c] ^ b[c]);
    let (f1, f2, f3, f0) = (funnel(x, y, 1), funnel(y, x, 2), funnel(x, y, 3), funnel(x, y, 0));
    [
        map(&|c| x[c].rotate_left(13)),
        map(&|c| x[c].rotate_left(45 % 32)),
        map(&|c| y[c].rotate_left(s % 32)),
        map(&|c| x[c].rotate_left([1, 8, 31, 32][c] % 32)),
        map(&|c| x[c].rotate_left(y[c] % 32)),
        xor(f1, f2),
        map(&|c| f3[c].wrapping_add(f0[c])),
        funnel(x, y, s & 3),
        map(&|c| (x[c] << (40 % 32)) | (y[c] >> (s % 32))),
        map(&|c| (x[c] << ([3, 35, 0, 31][c] % 32)) ^ (y[c] >> ([31, 1, 64, 17][c] % 32))),
        map(&|c| (x[c] << (y[c] % 32)) ^ (x[c] >> (y[c] % 32))),
        map(&|c| ((x[c] as i32 >> (s % 32)) ^ (y[c] as i32 >> ([3, 33, 0, 31][c] % 32))) as u32),
    ]
}

#[test]
fn shifts_and_rotates_by_splats_and_lanes() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(37);
    let mut w: Vec<u32> = (0..8 * n).map(|_| rng.next_u64() as u32).collect();
    // Some amounts (y, read as amounts) of 0, 31, 32 and more.
    for (k, v) in [0u32, 31, 32, 33, 64, 0xffff_ffff].iter().enumerate() {
        w[4 + k] = *v;
    }
    let bw = ctx.buffer_from(as_bytes(&w));
    let k = p.kernel("shifts");
    for s in [37u32, 32, 4] {
        for (off, global, local) in launches(n) {
            let o = ctx.buffer(192 * n);
            k.arg_mem(0, &bw);
            k.arg_mem(1, &o);
            k.arg(2, &s);
            q.run(&k, &off, &global, &local);
            let got = from_bytes::<u32>(&q.read(&o, 0, 192 * n));
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let x = std::array::from_fn(|c| w[8 * i + c]);
                let y = std::array::from_fn(|c| w[8 * i + 4 + c]);
                for (j, want) in shifts_ref(x, y, s).iter().enumerate() {
                    let at = 48 * i + 4 * j;
                    assert_eq!(
                        &got[at..at + 4],
                        want,
                        "shifts s = {s} {local:?}: out[{j}] of work-item {i} (x {x:x?}, y {y:x?})"
                    );
                }
            }
        }
    }
}

#[test]
fn built_in_calls() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(17);
    let a = floats(&mut rng, n, -6.0, 6.0);
    let mut b: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    b[..4].copy_from_slice(&[0, -1, i32::MAX, i32::MIN]);
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let k = p.kernel("calls");
    for (off, global, local) in launches(n) {
        let (o, pi) = (ctx.buffer(4 * n), ctx.buffer(4 * n));
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &o);
        k.arg_mem(3, &pi);
        q.run(&k, &off, &global, &local);
        let (got, gp) = (read_f32(&q, &o, n), from_bytes::<i32>(&q.read(&pi, 0, 4 * n)));
        let start = off.first().copied().unwrap_or(0);
        for i in start..start + global[0] {
            // sin: within OpenCL's 4 ulp.
            let want = (a[i] as f64).sin();
            assert!(
                (got[i] as f64 - want).abs() <= 4.0 * f32::EPSILON as f64,
                "calls: sin(a[{i}]) = {}",
                got[i]
            );
            let x = b[i];
            let wp = x
                .clamp(-1000, 1000)
                .wrapping_add((x >> 4).unsigned_abs() as i32)
                .wrapping_add(x.count_ones() as i32)
                .wrapping_add(x.rotate_left(7))
                .wrapping_add(((x as i64 * 12345) >> 32) as i32);
            assert_eq!(gp[i], wp, "calls {local:?}: p[{i}] (x = {x})");
        }
    }
}

const VECTORIZED: [&str; 50] = [
    "nested_stores",
    "compact",
    "nested_values",
    "stepped",
    "stepped_int",
    "w_32",
    "w_u8",
    "w_s8",
    "w_16",
    "w_inv",
    "v_compare",
    "v_narrow",
    "v_threes",
    "v_convert",
    "v_geometric",
    "v_vdata",
    "cas_long",
    "mul_his",
    "nested_ifs",
    "mul24s",
    "v_widths",
    "v_float4",
    "v_uint4",
    "sz_split",
    "sz_long",
    "sz_gather",
    "escape",
    "until",
    "masked_arms",
    "calls",
    "loop_sum",
    "edges",
    "split_store",
    "interior",
    "bounded",
    "early_return",
    "positive_only",
    "triangle",
    "f_arith",
    "f_fma",
    "f_mad",
    "i_arith",
    "strided",
    "grid",
    "linear",
    "to_float",
    "cmp_select",
    "chains",
    "fneg_cut",
    "shifts",
];

#[test]
fn loops_with_one_trip_count() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("loop_sum");
    // Small integers: every step is exact, fused or not.
    let n = 203usize;
    let a: Vec<f32> = (0..n + 16).map(|i| ((i * 7) % 17) as f32 - 8.0).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    for m in [0i32, 1, 5, 16] {
        for (off, global, local) in launches(n) {
            let o = ctx.buffer(4 * n);
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg(2, &m);
            q.run(&k, &off, &global, &local);
            let got = read_f32(&q, &o, n);
            let start = off.first().copied().unwrap_or(0);
            for i in start..start + global[0] {
                let want = (0..m as usize).fold(0.0f32, |s, j| s * 0.5 + a[i + j]);
                assert!(
                    same(got[i], want),
                    "loop_sum m={m} {local:?}: o[{i}] = {} not {want}",
                    got[i]
                );
            }
        }
    }
}

#[test]
fn tree_reduction_in_barrier_regions() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let k = p.kernel("tree_sum");
    for (groups, local, per) in [(6usize, 64usize, 3usize), (3, 256, 2), (5, 16, 1), (4, 2, 5), (2, 1, 3)] {
        let global = groups * local;
        let n = global * per + local / 2;
        let a: Vec<f32> = (0..n).map(|i| ((i * 13) % 23) as f32 - 11.0).collect();
        let ba = ctx.buffer_from(as_bytes(&a));
        let o = ctx.buffer(4 * groups);
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg_local(2, 4 * local);
        k.arg(3, &(n as u32));
        q.run(&k, &[], &[global], &[local]);
        let got = read_f32(&q, &o, groups);
        for (g, v) in got.iter().enumerate() {
            // Work-item i of group g sums a[i], a[i + global], ...: integers, exact in any order.
            let want: f32 = (g * local..(g + 1) * local)
                .flat_map(|i| (i..n).step_by(global))
                .map(|i| a[i])
                .sum();
            assert_eq!(*v, want, "tree_sum: group {g} of {groups} x {local}");
        }
    }
}

/// Tree reductions over 2D groups of any shape (tree_rows, tree_rows_rev): the reduction's
/// `if` is taken by the first work-items of each row (the vector loop then ends the row early
/// once four skip it), by the last ones (tree_rows_top: no row cut), and with values kept
/// across the barriers; rows of
/// 1 to 17 work-items, partial vectors, one-row and one-column groups.
#[test]
fn tree_reductions_over_rows() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let (k, kr, kt) = (
        p.kernel("tree_rows"),
        p.kernel("tree_rows_rev"),
        p.kernel("tree_rows_top"),
    );
    for (lx, ly) in [
        (8usize, 3usize),
        (5, 5),
        (16, 16),
        (1, 7),
        (7, 1),
        (64, 1),
        (3, 2),
        (17, 4),
        (4, 4),
    ] {
        let (gx, gy) = (3usize, 2usize);
        let (nx, ny) = (gx * lx, gy * ly);
        let a: Vec<f32> = (0..nx * ny).map(|i| ((i * 7) % 19) as f32 - 9.0).collect();
        let ba = ctx.buffer_from(as_bytes(&a));
        let (o, o2, pb) = (
            ctx.buffer(4 * gx * gy),
            ctx.buffer(4 * gx * gy),
            ctx.buffer(4 * nx * ny),
        );
        k.arg_mem(0, &ba);
        k.arg_mem(1, &o);
        k.arg_local(2, 4 * lx * ly);
        q.run(&k, &[], &[nx, ny], &[lx, ly]);
        kr.arg_mem(0, &ba);
        kr.arg_mem(1, &o2);
        kr.arg_mem(2, &pb);
        kr.arg_local(3, 4 * lx * ly);
        q.run(&kr, &[], &[nx, ny], &[lx, ly]);
        let (got, got2, gotp) = (
            read_f32(&q, &o, gx * gy),
            read_f32(&q, &o2, gx * gy),
            read_f32(&q, &pb, nx * ny),
        );
        kt.arg_mem(0, &ba);
        kt.arg_mem(1, &o2);
        kt.arg_local(2, 4 * lx * ly);
        q.run(&kt, &[], &[nx, ny], &[lx, ly]);
        let got3 = read_f32(&q, &o2, gx * gy);
        for (gyi, gxi) in (0..gy).flat_map(|y| (0..gx).map(move |x| (y, x))) {
            let items: Vec<usize> = (0..ly)
                .flat_map(|y| (0..lx).map(move |x| (gyi * ly + y) * nx + gxi * lx + x))
                .collect();
            // Small integers: exact in any order.
            let sum: f32 = items.iter().map(|&i| a[i]).sum();
            let g = gyi * gx + gxi;
            assert_eq!(got[g], sum, "tree_rows {lx}x{ly}: group {g}");
            assert_eq!(got2[g], sum, "tree_rows_rev {lx}x{ly}: group {g}");
            assert_eq!(got3[g], sum, "tree_rows_top {lx}x{ly}: group {g}");
            for &i in &items {
                assert_eq!(gotp[i], a[i] * 2.0 + sum * 2.0, "tree_rows_rev {lx}x{ly}: p[{i}]");
            }
        }
    }
}

/// 64-bit compare-and-swap retry loops (cas_long, cas_ulong_local): the work-items of a vector
/// leave at different rounds (`fail[i]` failures on purpose, then a try that can succeed), and
/// an atomic that ran again for a work-item that had left would add its increment twice. Each
/// counter must end at its start plus every increment once, and the values the successful tries
/// saw must chain (sorted, each the previous plus that work-item's increment).
#[test]
fn cas_retry_loops_on_64_bit_values() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(16);
    let fail: Vec<u32> = (0..n).map(|_| (rng.next_u64() % 6) as u32).collect();
    let bf = ctx.buffer_from(as_bytes(&fail));
    let k = p.kernel("cas_long");
    let start: [i64; 3] = [0x1_0000_0000, -5, i64::MAX / 2];
    for (off, global, local) in launches(n) {
        let acc = ctx.buffer_from(as_bytes(&start));
        let (old, rounds) = (ctx.buffer(8 * n), ctx.buffer(4 * n));
        k.arg_mem(0, &acc);
        k.arg_mem(1, &old);
        k.arg_mem(2, &rounds);
        k.arg_mem(3, &bf);
        q.run(&k, &off, &global, &local);
        let got: Vec<i64> = from_bytes(&q.read(&acc, 0, 24));
        let seen: Vec<i64> = from_bytes(&q.read(&old, 0, 8 * n));
        let tries: Vec<u32> = from_bytes(&q.read(&rounds, 0, 4 * n));
        let first = off.first().copied().unwrap_or(0);
        let ids: Vec<usize> = (first..first + global[0]).collect();
        for s in 0..3 {
            let mut mine: Vec<(i64, usize)> = ids.iter().filter(|i| *i % 3 == s).map(|i| (seen[*i], *i)).collect();
            let want = start[s] + mine.iter().map(|(_, i)| *i as i64 + 2).sum::<i64>();
            assert_eq!(got[s], want, "cas_long {local:?}: counter {s}");
            mine.sort();
            let mut at = start[s];
            for (v, i) in mine {
                assert_eq!(
                    v, at,
                    "cas_long {local:?}: work-item {i} saw counter {s} at {v}, not {at}"
                );
                at += i as i64 + 2;
            }
        }
        for i in ids {
            assert!(
                tries[i] > fail[i],
                "cas_long {local:?}: work-item {i} tried {} times, failing {} on purpose",
                tries[i],
                fail[i]
            );
        }
    }
    let k = p.kernel("cas_ulong_local");
    for local in [1usize, 3, 8, 25, 64] {
        let groups = n.div_ceil(local);
        let global = groups * local;
        let fail: Vec<u32> = (0..global).map(|i| fail[i % n]).collect();
        let bf = ctx.buffer_from(as_bytes(&fail));
        let acc = ctx.buffer_from(as_bytes(&vec![7u64; groups]));
        let old = ctx.buffer(8 * global);
        k.arg_mem(0, &acc);
        k.arg_mem(1, &old);
        k.arg_mem(2, &bf);
        k.arg_local(3, 8);
        q.run(&k, &[], &[global], &[local]);
        let got: Vec<u64> = from_bytes(&q.read(&acc, 0, 8 * groups));
        let seen: Vec<u64> = from_bytes(&q.read(&old, 0, 8 * global));
        for (g, counter) in got.iter().enumerate() {
            let ids = g * local..(g + 1) * local;
            let sum: u64 = ids.clone().map(|i| i as u64 + 2).sum();
            assert_eq!(*counter, 7 + sum, "cas_ulong_local local {local}: group {g}");
            let mut mine: Vec<(u64, usize)> = ids.map(|i| (seen[i], i)).collect();
            mine.sort();
            let mut at = 0u64;
            for (v, i) in mine {
                assert_eq!(v, at, "cas_ulong_local local {local}: work-item {i} saw {v}, not {at}");
                at += i as u64 + 2;
            }
        }
    }
}

/// Strides the kernel takes as arguments (stepped, stepped_int, stepped_local): 1, where the
/// vector loop's guess holds, and others, where the body planned without it runs; loads,
/// stores, a loop left at different rounds and a barrier region.
#[test]
fn strides_taken_as_arguments() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let len = 4 * n + 200;
    let a: Vec<f32> = (0..len).map(|i| ((i * 7) % 19) as f32 - 9.0).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let k = p.kernel("stepped");
    for step in [1i64, 2, 3, -1] {
        let (start, stop) = if step < 0 {
            (len as i64 - 1, len as i64)
        } else {
            (5, len as i64 - 60)
        };
        for (off, global, local) in launches(n) {
            let o = ctx.buffer(4 * n);
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg(2, &start);
            k.arg(3, &step);
            k.arg(4, &stop);
            q.run(&k, &off, &global, &local);
            let got = read_f32(&q, &o, n);
            let first = off.first().copied().unwrap_or(0);
            for (g, got) in got.iter().enumerate().skip(first).take(global[0]) {
                let mut i = start + g as i64 * step;
                let mut want = 0.0f32;
                for _ in 0..3 {
                    if i >= stop || i < 0 {
                        break;
                    }
                    want += a[i as usize] * 2.0;
                    i += 37 * step;
                }
                assert!(
                    same(*got, want),
                    "stepped step={step} {local:?}: o[{g}] = {got} not {want}"
                );
            }
        }
    }
    let ai: Vec<i32> = (0..len as i32).map(|i| i * 5 - 300).collect();
    let bi = ctx.buffer_from(as_bytes(&ai));
    let k = p.kernel("stepped_int");
    for (istep, ostep) in [(1i32, 1i32), (2, 1), (1, 2), (3, 3), (0, 1)] {
        for (off, global, local) in launches(n) {
            let m = n * ostep as usize;
            let o = ctx.buffer_from(as_bytes(&vec![-1i32; m]));
            k.arg_mem(0, &bi);
            k.arg_mem(1, &o);
            k.arg(2, &istep);
            k.arg(3, &ostep);
            q.run(&k, &off, &global, &local);
            let got: Vec<i32> = from_bytes(&q.read(&o, 0, 4 * m));
            let first = off.first().copied().unwrap_or(0);
            let mut want = vec![-1i32; m];
            for g in first..first + global[0] {
                want[g * ostep as usize] = ai[g * istep as usize] * 3 + g as i32;
            }
            assert_eq!(got, want, "stepped_int istep={istep} ostep={ostep} {local:?}");
        }
    }
    let k = p.kernel("stepped_local");
    let global = 200usize;
    for step in [1i64, 2, 0] {
        for local in [8usize, 25, 40, 4, 1] {
            let o = ctx.buffer(4 * global);
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg_local(2, 4 * local);
            k.arg(3, &step);
            q.run(&k, &[], &[global], &[local]);
            let got = read_f32(&q, &o, global);
            for (g, got) in got.iter().enumerate() {
                let (base, l) = (g - g % local, g % local);
                let t = |j: usize| a[(base + j) * step as usize];
                let want = t(l) - t(local - 1 - l);
                assert!(
                    same(*got, want),
                    "stepped_local step={step} local {local}: o[{g}] = {got} not {want}"
                );
            }
        }
    }
}

/// Nested `if`s whose arms store and load (nested_stores, compact, nested_values): against
/// host arithmetic, with the bound inside and past the range, vectors straddling it.
#[test]
fn nested_branches_that_store() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd.cl", OPTS);
    let n = 203usize;
    let mut rng = Rng::new(43);
    let a: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 41) as i32 - 20).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let k = p.kernel("nested_stores");
    for bound in [n as i32, 150, 0, 1] {
        for (off, global, local) in launches(n) {
            let o = ctx.buffer_from(as_bytes(&vec![-99i32; n]));
            let pb = ctx.buffer_from(as_bytes(&vec![-99i32; n + 1]));
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg_mem(2, &pb);
            k.arg(3, &bound);
            q.run(&k, &off, &global, &local);
            let (mut wo, mut wp) = (vec![-99i32; n], vec![-99i32; n + 1]);
            let first = off.first().copied().unwrap_or(0);
            for i in first..first + global[0] {
                let x = a[i];
                if (i as i32) < bound {
                    wo[i] = x;
                    if x > 0 {
                        wp[i] = x * 2;
                        if x & 3 == 1 {
                            wo[i] = -x;
                        }
                    } else {
                        wp[i] = x - 1;
                    }
                    if i as i32 + 1 == bound {
                        wp[bound as usize] = 12345;
                    }
                }
            }
            let go: Vec<i32> = from_bytes(&q.read(&o, 0, 4 * n));
            let gp: Vec<i32> = from_bytes(&q.read(&pb, 0, 4 * (n + 1)));
            assert_eq!(go, wo, "nested_stores n={bound} {local:?}: o");
            assert_eq!(gp, wp, "nested_stores n={bound} {local:?}: p");
        }
    }
    let input = floats(&mut rng, n, 0.0, 1.0);
    let marks: Vec<i32> = input
        .iter()
        .scan(0, |s, x| {
            *s += i32::from(*x > 0.5);
            Some(*s)
        })
        .collect();
    let (bf, bi) = (ctx.buffer_from(as_bytes(&marks)), ctx.buffer_from(as_bytes(&input)));
    let k = p.kernel("compact");
    for bound in [n, 100, 3] {
        for (_, global, local) in launches(n).into_iter().filter(|(off, ..)| off.is_empty()) {
            let out = ctx.buffer_from(as_bytes(&vec![-1.0f32; n]));
            let count = ctx.buffer_from(as_bytes(&[-1i32]));
            k.arg_mem(0, &bf);
            k.arg_mem(1, &bi);
            k.arg_mem(2, &out);
            k.arg_mem(3, &count);
            k.arg(4, &(bound as i32));
            q.run(&k, &[], &global, &local);
            let kept: Vec<f32> = input[..bound].iter().copied().filter(|x| *x > 0.5).collect();
            let got = read_f32(&q, &out, n);
            let gc: Vec<i32> = from_bytes(&q.read(&count, 0, 4));
            assert_eq!(gc[0] as usize, kept.len(), "compact n={bound} {local:?}: count");
            assert_eq!(
                &got[..kept.len()],
                &kept[..],
                "compact n={bound} {local:?}: kept elements"
            );
            assert!(
                got[kept.len()..].iter().all(|x| *x == -1.0),
                "compact n={bound} {local:?}: past them"
            );
        }
    }
    let k = p.kernel("nested_values");
    for bound in [-30i32, 0, 5, 30] {
        for (_, global, local) in launches(n).into_iter().filter(|(off, ..)| off.is_empty()) {
            let o = ctx.buffer_from(as_bytes(&vec![100i32; n]));
            k.arg_mem(0, &ba);
            k.arg_mem(1, &o);
            k.arg(2, &bound);
            q.run(&k, &[], &global, &local);
            let got: Vec<i32> = from_bytes(&q.read(&o, 0, 4 * n));
            for (i, got) in got.iter().enumerate() {
                let (x, mut y, mut oi) = (a[i], 1, 100);
                if x > bound {
                    oi = 7;
                    y = if x & 1 != 0 { a[(i ^ 1) % n] } else { x * 3 };
                    if y < 0 {
                        y = a[(i + 1) % n] + 1;
                    }
                    y += 2;
                }
                assert_eq!(*got, oi + y, "nested_values n={bound} {local:?}: o[{i}]");
            }
        }
    }
}

/// The barrier regions of tree_sum that run four work-items at a time.
const VECTOR_REGIONS: [(&str, u32); 11] = [
    ("stepped_local", 0),
    ("stepped_local", 1),
    ("tree_sum", 0),
    ("tree_sum", 1),
    ("tree_sum", 2),
    ("tree_rows", 0),
    ("tree_rows", 1),
    ("tree_rows", 2),
    ("cas_ulong_local", 0),
    ("cas_ulong_local", 1),
    ("cas_ulong_local", 2),
];

/// In the child: build the program (its code dump goes to stderr).
#[test]
fn build_for_the_dump() {
    if std::env::var_os("CTS_SIMD_DUMP_CHILD").is_none() {
        return;
    }
    let ctx = Context::new();
    let p = ctx.built_source("simd.cl", OPTS);
    for k in VECTORIZED.iter().chain(VECTOR_REGIONS.iter().map(|(k, _)| k)) {
        let _ = p.kernel(k);
    }
}

#[test]
fn every_kernel_gets_the_vector_loop() {
    if !platform_string(platform(), CL_PLATFORM_NAME).contains("Clift") {
        return;
    }
    let out = test_child("build_for_the_dump")
        .env("CTS_SIMD_DUMP_CHILD", "1")
        .env("CLIFT_DUMP_CODE", "1")
        .env("CLIFT_CACHE", "0")
        // Any kernel or region of the program that does not take the vector loop fails the
        // build.
        .env("CLIFT_SIMD", "strict")
        .output()
        .expect("run the child");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed:\n{stderr}");
    for k in VECTORIZED {
        assert!(
            stderr.contains(&format!("== kernel {k}: vector loop yes")),
            "kernel {k} did not get the vector loop; the dump says:\n{}",
            stderr
                .lines()
                .filter(|l| l.contains("vector loop"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // Bodies of 8- and 16-bit integers only: sixteen work-items per iteration.
    for k in ["w_u8", "w_s8", "w_16", "w_32", "w_inv"] {
        assert!(
            stderr.contains(&format!("== kernel {k}: vector loop yes, 16 work-items per iteration")),
            "kernel {k} did not run sixteen work-items per iteration"
        );
    }
    // Strides taken as arguments: speculated to be 1, with the plan without as the fallback.
    for k in ["stepped", "stepped_int", "stepped_local: region 0"] {
        assert!(
            stderr.contains(&format!(
                "== kernel {k}: a stride taken to be 1 (else the plan without)"
            )),
            "kernel {k}: no stride taken to be 1 with a vector fallback"
        );
    }
    // The long chains of `chains` were cut into blocks (`simd/chains.rs`).
    let after = stderr.split("== kernel chains: vector loop yes").nth(1).unwrap_or("");
    let own = after.split("== kernel").next().unwrap_or("");
    assert!(
        own.contains("vector code cut"),
        "kernel chains: its vector code was not cut for its dependency chains"
    );
    for (k, region) in VECTOR_REGIONS {
        assert!(
            stderr.contains(&format!("== kernel {k}: region {region} vector loop yes")),
            "region {region} of kernel {k} did not get the vector loop; the dump says:\n{}",
            stderr
                .lines()
                .filter(|l| l.contains("vector loop"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
