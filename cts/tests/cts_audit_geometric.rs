//! `cross` and `smoothstep` the way the Khronos CTS geometrics and commonfns suites call them
//! (kernels/source/audit_geometric.cl, built from OpenCL C; 3-component vectors through
//! vload3/vstore3), on random inputs and on the overflowing and infinite operands the CTS's
//! "tricky numbers" include, against a host reference:
//!
//! * `cross`: each component `a*b - c*d` within the CTS's tolerance (3 ulp of the largest
//!   squared operand); where a product overflows, exactly the IEEE result of `a*b - c*d` (an
//!   infinity, or NaN for infinity minus infinity), and the fourth component of the 4-wide
//!   form 0;
//! * `smoothstep`: 0 for `x <= edge0` and 1 for `x >= edge1` (infinite edges included), the
//!   Hermite polynomial within 1e-5 in between.

use cts::image_ref::Rng;
use cts::*;

/// Checks one `cross` component against the host: `p = a*b` and `q = c*d` are the two
/// products, `m` the largest operand magnitude and `eps` the type's epsilon.
fn check_component(what: &str, got: f64, p: f64, q: f64, exact: f64, m: f64, eps: f64) {
    if p.is_infinite() || q.is_infinite() || p.is_nan() || q.is_nan() {
        let want = p - q;
        assert!(
            (want.is_nan() && got.is_nan()) || want == got,
            "{what}: got {got:e}, want {want:e} (products {p:e}, {q:e})"
        );
        return;
    }
    let tol = m * m * 3.0 * eps;
    assert!(
        got == exact || (got - exact).abs() <= tol,
        "{what}: got {got:e}, want {exact:e} within {tol:e}"
    );
}

/// The 3-component operand pairs: random ones and the overflowing cases.
fn cross_inputs(big: f64, rng: &mut Rng) -> Vec<([f64; 3], [f64; 3])> {
    let mut v = vec![
        // a1*b2 overflows, a2*b1 does not: component 0 is +inf.
        ([1.0, big, 2.0], [3.0, 1.5, big]),
        // Both products of component 1 overflow with the same sign: NaN.
        ([big, 1.0, big], [big, 1.0, big]),
        // One product infinite through an infinite operand.
        ([f64::INFINITY, 1.0, 2.0], [1.0, 2.0, 3.0]),
        ([-big, big, 0.5], [big, -0.25, big]),
        ([0.0, -0.0, 1.0], [1.0, 0.0, -0.0]),
    ];
    for _ in 0..400 {
        let mut a = [0.0; 3];
        let mut b = [0.0; 3];
        for k in 0..3 {
            a[k] = rng.range_f64(-512.0, 512.0);
            b[k] = rng.range_f64(-512.0, 512.0);
        }
        v.push((a, b));
    }
    v
}

fn run_cross(ctx: &Context, q: &Queue, prog: &Program, double: bool, width: usize) {
    let mut rng = Rng::new(0xc055 + width as u64);
    let big = if double { 1e200 } else { 1e30 };
    let inputs = cross_inputs(big, &mut rng);
    let n = inputs.len();
    let (eps, esz) = if double {
        (f64::EPSILON, 8)
    } else {
        (f32::EPSILON as f64, 4)
    };
    let mut ab = Vec::new();
    let mut bb = Vec::new();
    for (a, b) in &inputs {
        for k in 0..width {
            // The 4-wide form's fourth component is ignored: fill it with garbage.
            let (x, y) = if k < 3 { (a[k], b[k]) } else { (7.0, -9.0) };
            if double {
                ab.extend_from_slice(&x.to_le_bytes());
                bb.extend_from_slice(&y.to_le_bytes());
            } else {
                ab.extend_from_slice(&(x as f32).to_le_bytes());
                bb.extend_from_slice(&(y as f32).to_le_bytes());
            }
        }
    }
    let name = format!("cross{width}_{}", if double { "d" } else { "f" });
    let k = prog.kernel(&name);
    let ba = ctx.buffer_from(&ab);
    let bbuf = ctx.buffer_from(&bb);
    let bo = ctx.buffer(n * width * esz);
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bbuf);
    k.arg_mem(2, &bo);
    q.run(&k, &[], &[n], &[]);
    let out = q.read(&bo, 0, n * width * esz);
    let get = |i: usize| -> f64 {
        let b = &out[i * esz..(i + 1) * esz];
        if double {
            f64::from_le_bytes(b.try_into().unwrap())
        } else {
            f32::from_le_bytes(b.try_into().unwrap()) as f64
        }
    };
    for (i, (a, b)) in inputs.iter().enumerate() {
        // The operands as the kernel saw them.
        let r = |x: f64| if double { x } else { x as f32 as f64 };
        let (a, b) = (a.map(r), b.map(r));
        let m = a.iter().chain(b.iter()).fold(0.0f64, |m, x| m.max(x.abs()));
        for (c, (i1, i2)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
            // Float products are exact in f64, so for floats the reference is the exact
            // difference rounded to float (finite even where a float product would overflow);
            // for doubles, a*b - c*d with the products' rounding errors added back.
            let (p, qq) = (a[i1] * b[i2], a[i2] * b[i1]);
            let exact = if double {
                let ep = a[i1].mul_add(b[i2], -p);
                let eq = a[i2].mul_add(b[i1], -qq);
                (p - qq) + (ep - eq)
            } else {
                (p - qq) as f32 as f64
            };
            let got = get(i * width + c);
            // Where a float product overflows float, the plain float formula gives an
            // infinity or NaN, which the CTS accepts too.
            let over = !double && (p.abs() > f32::MAX as f64 || qq.abs() > f32::MAX as f64);
            if over && !got.is_finite() {
                continue;
            }
            check_component(&format!("{name}[{i}].{c} ({a:?} x {b:?})"), got, p, qq, exact, m, eps);
        }
        if width == 4 {
            assert_eq!(get(i * width + 3), 0.0, "{name}[{i}].w");
        }
    }
}

#[test]
fn audit_cross() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("audit_geometric.cl", "");
    for double in [false, true] {
        for width in [3, 4] {
            run_cross(&ctx, &q, &prog, double, width);
        }
    }
}

fn smooth_ref(e0: f64, e1: f64, x: f64) -> f64 {
    if x <= e0 {
        0.0
    } else if x >= e1 {
        1.0
    } else {
        let t = (x - e0) / (e1 - e0);
        t * t * (3.0 - 2.0 * t)
    }
}

fn smoothstep_cases(rng: &mut Rng) -> Vec<(f64, f64, f64)> {
    let inf = f64::INFINITY;
    let mut v = vec![
        (-inf, 0.0, 5.0),
        (-inf, 1.0, 1.0),
        (0.0, inf, -1.0),
        (1.0, inf, 0.5),
        (-inf, inf, -inf),
        (-inf, inf, inf),
        (0.0, 1.0, inf),
        (0.0, 1.0, -inf),
        (0.0, 1.0, 0.0),
        (0.0, 1.0, 1.0),
        (-2.0, 2.0, 0.0),
    ];
    for _ in 0..500 {
        let a = rng.range_f64(-100.0, 100.0);
        let b = rng.range_f64(-100.0, 100.0);
        let (e0, e1) = if a < b { (a, b) } else { (b, a + 1.0) };
        v.push((e0, e1, rng.range_f64(e0 - 10.0, e1 + 10.0)));
    }
    v
}

#[test]
fn audit_smoothstep() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("audit_geometric.cl", "");
    let cases = smoothstep_cases(&mut Rng::new(0x5300));
    let n = cases.len();
    for double in [false, true] {
        let enc = |f: &dyn Fn(&(f64, f64, f64)) -> f64| -> Vec<u8> {
            cases
                .iter()
                .flat_map(|c| {
                    if double {
                        f(c).to_le_bytes().to_vec()
                    } else {
                        (f(c) as f32).to_le_bytes().to_vec()
                    }
                })
                .collect()
        };
        let esz = if double { 8 } else { 4 };
        let b0 = ctx.buffer_from(&enc(&|c| c.0));
        let b1 = ctx.buffer_from(&enc(&|c| c.1));
        let bx = ctx.buffer_from(&enc(&|c| c.2));
        let bo = ctx.buffer(n * esz);
        let name = if double { "smoothstep_d" } else { "smoothstep_f" };
        let k = prog.kernel(name);
        for (i, b) in [&b0, &b1, &bx, &bo].into_iter().enumerate() {
            k.arg_mem(i as cl_uint, b);
        }
        q.run(&k, &[], &[n], &[]);
        let out = q.read(&bo, 0, n * esz);
        for (i, c) in cases.iter().enumerate() {
            let r = |x: f64| if double { x } else { x as f32 as f64 };
            let (e0, e1, x) = (r(c.0), r(c.1), r(c.2));
            let b = &out[i * esz..(i + 1) * esz];
            let got = if double {
                f64::from_le_bytes(b.try_into().unwrap())
            } else {
                f32::from_le_bytes(b.try_into().unwrap()) as f64
            };
            let want = smooth_ref(e0, e1, x);
            assert!(
                (got - want).abs() <= 1e-5,
                "{name}({e0}, {e1}, {x}) = {got}, want {want}"
            );
        }
    }
    // The scalar-edge vector form, with infinite edges.
    let e0 = [f32::NEG_INFINITY, 0.0, 1.0, -3.0];
    let e1 = [0.0f32, f32::INFINITY, 2.0, 3.0];
    let xs: Vec<f32> = vec![-1.0, 0.5, 1.5, 3.0, 5.0, -0.5, 0.0, 2.0];
    let mut xv = Vec::new();
    for _ in 0..e0.len() {
        xv.extend_from_slice(&xs[..4]);
    }
    let b0 = ctx.buffer_from(as_bytes(&e0));
    let b1 = ctx.buffer_from(as_bytes(&e1));
    let bx = ctx.buffer_from(as_bytes(&xv));
    let bo = ctx.buffer(xv.len() * 4);
    let k = prog.kernel("smoothstep_f4s");
    for (i, b) in [&b0, &b1, &bx, &bo].into_iter().enumerate() {
        k.arg_mem(i as cl_uint, b);
    }
    q.run(&k, &[], &[e0.len()], &[]);
    let out: Vec<f32> = from_bytes(&q.read(&bo, 0, xv.len() * 4));
    for (i, got) in out.iter().enumerate() {
        let (a, b, x) = (e0[i / 4] as f64, e1[i / 4] as f64, xv[i] as f64);
        let want = smooth_ref(a, b, x);
        if want.is_nan() {
            // Inside an infinite interval: undefined.
            continue;
        }
        assert!(
            (*got as f64 - want).abs() <= 1e-5,
            "smoothstep({a}, {b}, float4 x = {x}) = {got}, want {want}"
        );
    }
}

/// `2^e` as an f64 (normal or subnormal), exactly.
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((1023 + e) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Issue 13, item 4: `normalize` of vectors whose components differ so much in magnitude that
/// a result is subnormal. The inputs are built so that the exact result is known on the host:
/// `(3s, 4s, 5t, ...)` with `s` a power of two has length `5s` up to a relative `(t/s)^2`
/// far below an ulp, so the correctly rounded result is `(0.6, 0.8, t/s, ...)` (with `t/s`
/// exactly representable, subnormal or not); the 2-component form uses `(s, t)` -> `(1, t/s)`.
/// Each component must be within 2 ulps of the result's type (subnormal ulps included) of
/// that value: the old code flushed the small component to 0 or lost bits in it.
fn run_normalize(ctx: &Context, q: &Queue, prog: &Program, double: bool, width: usize) {
    let mut rng = Rng::new(0x4e0 + width as u64 + double as u64);
    // (exponent of s, exponent of t) pairs: huge s and tiny t, huge s and moderate t, and a
    // tiny s (scaled up inside normalize) with a subnormal t.
    let (pairs, min_e): (Vec<(i32, i32)>, i32) = if double {
        (
            vec![
                (600, -470),
                (1000, -60),
                (581, -439),
                (560, -483),
                (900, -160),
                (-600, -1070),
            ],
            -1074,
        )
    } else {
        (vec![(60, -80), (100, -40), (120, -20), (-60, -140)], -149)
    };
    let mut inputs: Vec<Vec<f64>> = Vec::new();
    let mut wants: Vec<Vec<f64>> = Vec::new();
    for &(es, et) in &pairs {
        for _ in 0..8 {
            // A small odd mantissa keeps t and t/s exact in the type.
            let m = ((rng.next_u64() % 255) | 1) as f64;
            let neg = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
            let s = pow2(es);
            let t = neg * m * pow2(et);
            let ratio = neg * m * pow2(et - es);
            assert!(et - es >= min_e);
            let (x, w) = match width {
                2 => (vec![s, t], vec![1.0, ratio]),
                _ => {
                    let mut x = vec![3.0 * s, -4.0 * s, 5.0 * t];
                    let mut w = vec![0.6, -0.8, ratio];
                    if width == 4 {
                        // Components in a different order, one zero.
                        x = vec![5.0 * t, 0.0, 3.0 * s, -4.0 * s];
                        w = vec![ratio, 0.0, 0.6, -0.8];
                    }
                    (x, w)
                }
            };
            inputs.push(x);
            wants.push(w);
        }
    }
    let n = inputs.len();
    let esz = if double { 8 } else { 4 };
    let mut xb = Vec::new();
    for x in &inputs {
        for &v in x {
            if double {
                xb.extend_from_slice(&v.to_le_bytes());
            } else {
                assert_eq!(v as f32 as f64, v, "float input {v:e} is not exact");
                xb.extend_from_slice(&(v as f32).to_le_bytes());
            }
        }
    }
    let name = format!("normalize{width}_{}", if double { "d" } else { "f" });
    let k = prog.kernel(&name);
    let bx = ctx.buffer_from(&xb);
    let bo = ctx.buffer(n * width * esz);
    k.arg_mem(0, &bx);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[n], &[]);
    let out = q.read(&bo, 0, n * width * esz);
    let ulp = |w: f64| -> f64 {
        let (min_normal, mant) = if double { (pow2(-1022), 52) } else { (pow2(-126), 23) };
        let a = w.abs().max(min_normal);
        pow2(a.log2().floor() as i32 - mant)
    };
    let mut subnormal = 0;
    for (i, (x, w)) in inputs.iter().zip(&wants).enumerate() {
        for c in 0..width {
            let b = &out[(i * width + c) * esz..(i * width + c + 1) * esz];
            let got = if double {
                f64::from_le_bytes(b.try_into().unwrap())
            } else {
                f32::from_le_bytes(b.try_into().unwrap()) as f64
            };
            let want = if double { w[c] } else { w[c] as f32 as f64 };
            let err = (got - want).abs() / ulp(want);
            assert!(
                err <= 2.0 && (got == 0.0) == (want == 0.0),
                "{name}({x:?}).{c}: got {got:e}, want {want:e} ({err} ulp)"
            );
            let min_normal = if double { pow2(-1022) } else { pow2(-126) };
            if want != 0.0 && want.abs() < min_normal {
                subnormal += 1;
            }
        }
    }
    assert!(subnormal > 0, "{name}: no subnormal results were checked");
}

#[test]
fn audit_normalize() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("audit_geometric.cl", "");
    for double in [false, true] {
        for width in [2, 3, 4] {
            run_normalize(&ctx, &q, &prog, double, width);
        }
    }
}
