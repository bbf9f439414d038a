//! OpenCL C's geometric functions (6.15.5: `length`, `distance`, `normalize`, `cross` and
//! their `fast_` forms), one value (`F64`, `F32`) or several work-items' lanes (`F64X2`,
//! `F32X4`) per component with the same operations, so that the scalar translation and the
//! vector loop give the same bits. The callers promote the components and round the results
//! back.
//!
//! `length`, `distance` and `cross` of floats and halves, and `normalize` of halves, are
//! computed in double precision: the sum of squares of floats can neither overflow nor
//! underflow there, so `length` is accurate to about half an ulp after the final rounding (7.4
//! allows 3 + n/2 ulp). `normalize` of floats is computed in single precision, scaled
//! ([`normalize_f32`]: about 2 ulp, 7.4 allows 2 + n). Doubles (`scaled`) are scaled by a
//! power of two (exact) chosen from the largest magnitude, so that no square overflows and the
//! largest one stays normal. Scaling down can push the small components of a `normalize` into
//! the subnormals, where they lose bits; there each component is divided by the scaled length
//! first and scaled after, so that a subnormal result is rounded once from a value accurate to
//! double precision.

use super::fraction::{copysign, konst};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

const BIG: f64 = 3.273_390_607_896_142e150; // 2^500
const SMALL: f64 = 3.054_936_363_499_605e-151; // 2^-500
/// The power of two that scales magnitudes above BIG down (and, negated, those below SMALL up).
const SCALE_EXP: i32 = 600;

fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// Whether `base` is one of the functions on whole vectors this module generates.
pub fn known(base: &str) -> bool {
    matches!(
        base,
        "length" | "fast_length" | "distance" | "fast_distance" | "normalize" | "fast_normalize" | "cross"
    )
}

/// Whether `name` of float components takes them as they are (`F32`, `F32X4`) rather than in
/// double precision.
pub fn single(name: &str) -> bool {
    matches!(name, "normalize" | "fast_normalize")
}

/// `name(args)`, each operand given by its components: in double precision (`F64`, `F64X2`),
/// or as floats where [`single`]; `scaled`: the components are doubles (see the module
/// documentation). `None` for another function, another component type, or operands of the
/// wrong sizes (`distance`'s two of different sizes, `cross` of fewer than three components).
pub fn emit(b: &mut FunctionBuilder, name: &str, args: &[Vec<Value>], scaled: bool) -> Option<Vec<Value>> {
    let xs = args.first().filter(|v| !v.is_empty())?;
    let lane = b.func.dfg.value_type(xs[0]).lane_type();
    if !(lane == types::F64 || (lane == types::F32 && single(name) && !scaled)) {
        return None;
    }
    match name {
        "length" | "fast_length" => Some(vec![length(b, xs, scaled)]),
        "distance" | "fast_distance" => {
            let ys = args.get(1).filter(|v| v.len() == xs.len())?;
            let d: Vec<Value> = xs.iter().zip(ys).map(|(x, y)| b.ins().fsub(*x, *y)).collect();
            Some(vec![length(b, &d, scaled)])
        }
        "normalize" | "fast_normalize" => Some(normalize(b, xs, scaled)),
        "cross" => {
            let ys = args.get(1)?;
            (xs.len() >= 3 && ys.len() >= 3).then(|| cross(b, xs, ys, scaled))
        }
        _ => None,
    }
}

/// `hypot(x, y)` of floats in double precision (`F64` or `F64X2` lanes of promoted floats):
/// the squares are exact there and cannot overflow, so `sqrt(x*x + y*y)` rounds twice, within
/// one ulp of a double, before the caller's rounding to float (7.4 allows 4 ulp). An infinite
/// operand gives +infinity even with a NaN beside it (C99 F.9.4.3).
pub fn hypot(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let yy = b.ins().fmul(y, y);
    let sum = b.ins().fma(x, x, yy);
    let r = b.ins().sqrt(sum);
    let inf = konst(b, t, f64::INFINITY);
    let (ax, ay) = (b.ins().fabs(x), b.ins().fabs(y));
    let (xi, yi) = (
        b.ins().fcmp(FloatCC::Equal, ax, inf),
        b.ins().fcmp(FloatCC::Equal, ay, inf),
    );
    let either = b.ins().bor(xi, yi);
    super::pick(b, either, inf, r)
}

/// `(scaled components, sum of their squares, unscale factor, scaled-down mask)`: for doubles
/// the components are multiplied by a power of two that keeps the squares in range (the mask
/// is set where that power is below one); floats are left as they are, and have no mask.
fn scaled_squares(b: &mut FunctionBuilder, xs: &[Value], scaled: bool) -> (Vec<Value>, Value, Value, Option<Value>) {
    let t = b.func.dfg.value_type(xs[0]);
    let one = konst(b, t, 1.0);
    let (qs, unscale, down_flag) = if scaled {
        let mut m = b.ins().fabs(xs[0]);
        for x in &xs[1..] {
            let a = b.ins().fabs(*x);
            m = b.ins().fmax(m, a);
        }
        let bigc = konst(b, t, BIG);
        let smallc = konst(b, t, SMALL);
        let big = b.ins().fcmp(FloatCC::GreaterThan, m, bigc);
        let small = b.ins().fcmp(FloatCC::LessThan, m, smallc);
        let down = konst(b, t, pow2(-SCALE_EXP));
        let up = konst(b, t, pow2(SCALE_EXP));
        let s1 = super::pick(b, small, up, one);
        let scale = super::pick(b, big, down, s1);
        let u1 = super::pick(b, small, down, one);
        let unscale = super::pick(b, big, up, u1);
        let qs = xs.iter().map(|x| b.ins().fmul(*x, scale)).collect();
        (qs, unscale, Some(big))
    } else {
        (xs.to_vec(), one, None)
    };
    let mut sum = b.ins().fmul(qs[0], qs[0]);
    for q in &qs[1..] {
        sum = b.ins().fma(*q, *q, sum);
    }
    (qs, sum, unscale, down_flag)
}

fn length(b: &mut FunctionBuilder, xs: &[Value], scaled: bool) -> Value {
    let (_, sum, unscale, _) = scaled_squares(b, xs, scaled);
    let r = b.ins().sqrt(sum);
    if scaled {
        b.ins().fmul(r, unscale)
    } else {
        r
    }
}

/// `normalize` with the 6.15.5 special cases: a vector with infinite components becomes the
/// vector of their signs (other components zero, NaN staying NaN) before normalizing, a zero
/// vector is returned as it is. Float components (`F32`, `F32X4`) are normalized in single
/// precision ([`normalize_f32`]), others in double.
fn normalize(b: &mut FunctionBuilder, xs: &[Value], scaled: bool) -> Vec<Value> {
    let t = b.func.dfg.value_type(xs[0]);
    if t.lane_type() == types::F32 {
        return normalize_f32(b, xs);
    }
    let inf = konst(b, t, f64::INFINITY);
    let is_inf: Vec<Value> = xs
        .iter()
        .map(|x| {
            let a = b.ins().fabs(*x);
            b.ins().fcmp(FloatCC::Equal, a, inf)
        })
        .collect();
    let any_inf = is_inf[1..].iter().fold(is_inf[0], |p, c| b.ins().bor(p, *c));
    let one = konst(b, t, 1.0);
    let zero = konst(b, t, 0.0);
    let fixed: Vec<Value> = xs
        .iter()
        .zip(&is_inf)
        .map(|(x, c)| {
            let sgn = copysign(b, one, *x);
            let z = b.ins().fmul(zero, *x);
            let rep = super::pick(b, *c, sgn, z);
            super::pick(b, any_inf, rep, *x)
        })
        .collect();
    let (qs, sum, _, down) = scaled_squares(b, &fixed, scaled);
    let l = b.ins().sqrt(sum);
    let all_zero = b.ins().fcmp(FloatCC::Equal, sum, zero);
    qs.iter()
        .zip(&fixed)
        .zip(xs)
        .map(|((q, f), x)| {
            let mut r = b.ins().fdiv(*q, l);
            if let Some(down) = down {
                // Scaled down: x / l_scaled is at most 2^600 and exact to double
                // precision; the power of two then rounds it once into the subnormals.
                let unscaled = b.ins().fdiv(*f, l);
                let post = konst(b, t, pow2(-SCALE_EXP));
                let late = b.ins().fmul(unscaled, post);
                r = super::pick(b, down, late, r);
            }
            super::pick(b, all_zero, *x, r)
        })
        .collect()
}

/// `normalize` of floats in single precision, on the bits where that is shorter:
/// - the largest magnitude `m` is the largest of the components' magnitude bits (a NaN's are
///   larger than an infinity's). Where `m` is an infinity (and no component NaN), the
///   components become their signs' 1 or 0, and `m` 1.
/// - The components are scaled by the power of two that brings `m` into [2, 4) (exact; a
///   subnormal `m` as if its exponent were the smallest normal one). A NaN `m` gives a zero
///   scale and, through the NaN component, a NaN sum and NaN results.
/// - The sum of squares with fused multiply-adds, one square root, one division per
///   component. Each step rounds once: the error stays below (n + 4) / 2 units of 2^-24
///   relative, within the 2 + n ulp of 7.4. Four work-items' lanes take one `sqrtps` and n
///   `divps` where double precision took twice as many instructions, each slower.
fn normalize_f32(b: &mut FunctionBuilder, xs: &[Value]) -> Vec<Value> {
    let t = b.func.dfg.value_type(xs[0]);
    let it = super::int_of(t);
    let bits: Vec<Value> = xs.iter().map(|x| super::bits(b, *x)).collect();
    let magnitude = super::ik(b, it, 0x7fff_ffff);
    let mags: Vec<Value> = bits.iter().map(|x| b.ins().band(*x, magnitude)).collect();
    let m = mags[1..].iter().fold(mags[0], |m, a| b.ins().smax(m, *a));
    let inf = super::ik(b, it, 0x7f80_0000);
    let infinite = b.ins().icmp(IntCC::Equal, m, inf);
    let (one, zero) = (super::ik(b, it, 0x3f80_0000), super::ik(b, it, 0));
    let sign = super::ik(b, it, i32::MIN as i64);
    let fixed: Vec<Value> = bits
        .iter()
        .zip(&mags)
        .map(|(x, a)| {
            let is_inf = b.ins().icmp(IntCC::Equal, *a, inf);
            let unit = super::pick(b, is_inf, one, zero);
            let s = b.ins().band(*x, sign);
            let f = b.ins().bor(s, unit);
            let f = super::pick(b, infinite, f, *x);
            super::float(b, f)
        })
        .collect();
    let m = super::pick(b, infinite, one, m);
    // 2^(128 - (e - 127)) for the exponent field e of m (at least 1): 255 - e in the field.
    let e = b.ins().band(m, inf);
    let least = super::ik(b, it, 0x0080_0000);
    let e = b.ins().umax(e, least);
    let scale = b.ins().isub(inf, e);
    let scale = super::float(b, scale);
    let qs: Vec<Value> = fixed.iter().map(|x| b.ins().fmul(*x, scale)).collect();
    let mut sum = b.ins().fmul(qs[0], qs[0]);
    for q in &qs[1..] {
        sum = b.ins().fma(*q, *q, sum);
    }
    let l = b.ins().sqrt(sum);
    let fzero = konst(b, t, 0.0);
    let all_zero = b.ins().fcmp(FloatCC::Equal, sum, fzero);
    qs.iter()
        .zip(xs)
        .map(|(q, x)| {
            let r = b.ins().fdiv(*q, l);
            super::pick(b, all_zero, *x, r)
        })
        .collect()
}

/// `a*b - c*d` for doubles (Kahan's algorithm with fma: about one ulp). Where a product
/// overflows, Kahan's correction term is infinite and the sum NaN; there the plain
/// `a*b - c*d` is the right answer (an infinity, or NaN for infinity minus infinity).
fn diff_of_products(b: &mut FunctionBuilder, x: Value, y: Value, z: Value, w: Value) -> Value {
    let zw = b.ins().fmul(z, w);
    let nz = b.ins().fneg(z);
    let e = b.ins().fma(nz, w, zw);
    let nzw = b.ins().fneg(zw);
    let f = b.ins().fma(x, y, nzw);
    let kahan = b.ins().fadd(f, e);
    let p = b.ins().fmul(x, y);
    let plain = b.ins().fsub(p, zw);
    let nan = b.ins().fcmp(FloatCC::Unordered, kahan, kahan);
    super::pick(b, nan, plain, kahan)
}

/// `cross` of 3- or 4-component vectors (the fourth result component is 0).
fn cross(b: &mut FunctionBuilder, xs: &[Value], ys: &[Value], scaled: bool) -> Vec<Value> {
    let mut r = Vec::with_capacity(xs.len());
    for (i, j) in [(1, 2), (2, 0), (0, 1)] {
        let v = if scaled {
            diff_of_products(b, xs[i], ys[j], xs[j], ys[i])
        } else {
            // Products of floats are exact in f64: one rounding, then one more.
            let p = b.ins().fmul(xs[i], ys[j]);
            let q = b.ins().fmul(xs[j], ys[i]);
            b.ins().fsub(p, q)
        };
        r.push(v);
    }
    if xs.len() == 4 {
        let t = b.func.dfg.value_type(xs[0]);
        r.push(konst(b, t, 0.0));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::test_jit::{functions, Unary};
    use cranelift_codegen::ir::{MemFlagsData, Type};

    /// The sizes checked: `normalize` of float2, float3 and float4.
    const SIZES: [usize; 3] = [2, 3, 4];

    /// For each size `n` and component `k`, a function of one work-item's (`F32`) and one of
    /// four work-items' (`F32X4`) components at `src` (component `c` of lane `l` at float
    /// `4c + l`; the one-lane form reads lane 0) storing component `k` of `normalize`.
    fn build() -> (cranelift_jit::JITModule, Vec<(usize, usize, Unary, Unary)>) {
        let shapes: Vec<(usize, usize, Type)> = SIZES
            .iter()
            .flat_map(|n| (0..*n).flat_map(move |k| [(*n, k, types::F32), (*n, k, types::F32X4)]))
            .collect();
        let (jit, fs) = functions(&[], shapes.len(), |i, _, b, src| {
            let (n, k, t) = shapes[i];
            let xs: Vec<Value> = (0..n)
                .map(|c| b.ins().load(t, MemFlagsData::new(), src, 16 * c as i32))
                .collect();
            normalize(b, &xs, false)[k]
        });
        let out = shapes
            .chunks(2)
            .zip(fs.chunks(2))
            .map(|(s, f)| (s[0].0, s[0].1, f[0], f[1]))
            .collect();
        (jit, out)
    }

    /// `x / |x|` in double precision (the components scaled first so that no square
    /// overflows or underflows), with 6.15.5's special cases.
    fn reference(x: &[f32]) -> Vec<f64> {
        let xd: Vec<f64> = x.iter().map(|v| *v as f64).collect();
        if xd.iter().any(|v| v.is_nan()) {
            return vec![f64::NAN; x.len()];
        }
        if xd.iter().any(|v| v.is_infinite()) {
            let s: Vec<f64> = xd
                .iter()
                .map(|v| {
                    if v.is_infinite() {
                        v.signum()
                    } else {
                        0.0f64.copysign(*v)
                    }
                })
                .collect();
            return reference(&s.iter().map(|v| *v as f32).collect::<Vec<_>>());
        }
        let m = xd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if m == 0.0 {
            return xd;
        }
        let e = m.log2().floor() as i32;
        let scale = 2f64.powi(-e);
        let s: Vec<f64> = xd.iter().map(|v| v * scale).collect();
        let l = s.iter().map(|v| v * v).sum::<f64>().sqrt();
        s.iter().map(|v| v / l).collect()
    }

    /// |got - want| in ulps of the float nearest `want` (the ulp of a subnormal is 2^-149).
    fn ulps(got: f32, want: f64) -> f64 {
        if want.is_nan() || got.is_nan() {
            return if want.is_nan() && got.is_nan() {
                0.0
            } else {
                f64::INFINITY
            };
        }
        let e = (want.abs().log2().floor() as i32).max(-126) - 23;
        ((got as f64 - want) / 2f64.powi(e)).abs()
    }

    fn inputs(n: usize) -> Vec<Vec<f32>> {
        let specials = [
            0.0f32,
            -0.0,
            1.0,
            -3.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            1.0e-45,
            -3.0e-42,
            1.0e30,
            2.0e19,
            1.0e-20,
        ];
        let mut v = Vec::new();
        // Every pair of special values in the first two components, the rest small or zero.
        for a in specials {
            for b in specials {
                let mut x = vec![a, b];
                x.resize(n, if n > 2 { 0.25 } else { 0.0 });
                v.push(x.clone());
                x[2..].iter_mut().for_each(|c| *c = 0.0);
                v.push(x);
            }
        }
        // Random components of random magnitudes (all exponents), and of similar ones.
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for i in 0..40_000 {
            let x = (0..n)
                .map(|_| {
                    let r = next();
                    let bits = if i % 2 == 0 {
                        (r as u32 & 0xff7f_ffff) | (0x0080_0000 * ((r >> 40) as u32 % 2))
                    } else {
                        (r as u32 & 0x807f_ffff) | ((100 + (r >> 32) as u32 % 56) << 23)
                    };
                    f32::from_bits(bits)
                })
                .filter(|x| x.is_finite())
                .collect::<Vec<_>>();
            if x.len() == n {
                v.push(x);
            }
        }
        v
    }

    #[test]
    fn normalize_floats_within_bounds_and_four_lanes_match_one() {
        let (_jit, fs) = build();
        for n in SIZES {
            let mut worst = 0.0f64;
            for chunk in inputs(n).chunks(4) {
                let mut src = [0f32; 16];
                for (l, x) in chunk.iter().enumerate() {
                    for (c, v) in x.iter().enumerate() {
                        src[4 * c + l] = *v;
                    }
                }
                for (m, k, one, four) in fs.iter().filter(|f| f.0 == n) {
                    assert_eq!(*m, n);
                    let mut y4 = [0f32; 4];
                    four(src.as_ptr() as *const u8, y4.as_mut_ptr() as *mut u8);
                    for (l, x) in chunk.iter().enumerate() {
                        let mut lane = [0f32; 16];
                        for c in 0..n {
                            lane[4 * c] = src[4 * c + l];
                        }
                        let mut y = 0f32;
                        one(lane.as_ptr() as *const u8, &mut y as *mut f32 as *mut u8);
                        assert_eq!(y.to_bits(), y4[l].to_bits(), "lane {l} of normalize({x:?})[{k}]");
                        let want = reference(x)[*k];
                        let e = ulps(y, want);
                        if want == 0.0 || x.iter().all(|v| *v == 0.0) {
                            // Zeros keep their sign.
                            assert_eq!(y.to_bits(), (want as f32).to_bits(), "normalize({x:?})[{k}]");
                        }
                        assert!(e <= 3.0, "normalize({x:?})[{k}] = {y:e}, want {want:e} ({e} ulp)");
                        worst = worst.max(e);
                    }
                }
            }
            // 2 + n ulp allowed (OpenCL C 7.4); each step here rounds once.
            assert!(worst > 0.5 && worst <= 3.0, "float{n}: worst error {worst} ulp");
            eprintln!("normalize float{n}: worst error {worst:.3} ulp");
        }
    }

    /// `hypot` of floats against the host's double-precision hypot rounded to float: within
    /// one ulp (7.4 allows 4), exact for the special cases.
    #[test]
    fn hypot_of_floats() {
        let (_jit, fs) = functions(&[], 1, |_, _, b, src| {
            let x = b.ins().load(types::F32, MemFlagsData::new(), src, 0);
            let y = b.ins().load(types::F32, MemFlagsData::new(), src, 4);
            let (x, y) = (b.ins().fpromote(types::F64, x), b.ins().fpromote(types::F64, y));
            let h = hypot(b, x, y);
            b.ins().fdemote(types::F32, h)
        });
        let mut vs = vec![
            0.0f32,
            -0.0,
            1.0,
            -3.0,
            4.0,
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            1.0e-45,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..300 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = f32::from_bits(s as u32);
            if v.is_finite() {
                vs.push(v);
            }
        }
        let mut worst = 0.0f64;
        for x in &vs {
            for y in &vs {
                let src = [*x, *y];
                let mut got = 0f32;
                fs[0](src.as_ptr() as *const u8, &mut got as *mut f32 as *mut u8);
                let want = (*x as f64).hypot(*y as f64);
                if x.is_infinite() || y.is_infinite() {
                    assert_eq!(got, f32::INFINITY, "hypot({x:e}, {y:e})");
                } else if x.is_nan() || y.is_nan() {
                    assert!(got.is_nan(), "hypot({x:e}, {y:e}) = {got:e}");
                } else if (want as f32).is_infinite() {
                    assert_eq!(got, f32::INFINITY, "hypot({x:e}, {y:e}) overflows");
                } else {
                    let e = ulps(got, want);
                    assert!(e <= 1.0, "hypot({x:e}, {y:e}) = {got:e}, want {want:e} ({e} ulp)");
                    worst = worst.max(e);
                }
            }
        }
        assert!(
            worst > 0.3,
            "worst error {worst} ulp: too small to have measured anything"
        );
    }
}
