//! `sinpi`, `cospi` and `tanpi` (sin, cos and tan of pi times x) as inline code, for one value
//! (`F32`, `F64`) or lanes (`F32X4`, `F64X2`) with the same operations. OpenCL C 7.4 allows 4,
//! 4 and 6 ulp; these stay within about 1.5, 1.5 and 3.
//!
//! The reduction is exact: `|x| = n/2 + r` with `n = rint(2|x|)` and `|r| <= 1/4` (`2|x|` and
//! `n/2` are exact, and so is the difference of two nearby values). `|x|` is first clamped to
//! 2^24 (2^53 for doubles), above which every value is an even integer, so that `2|x|` stays
//! finite and the quadrant `n mod 4` is computed exactly in the float registers (no integer
//! conversion, which x86 lacks for two doubles). sin(pi r) and cos(pi r) come from their Taylor
//! polynomials in `r` (|pi r| <= pi/4; degrees 9 and 10 for floats, 17 and 18 for doubles), the
//! leading `pi r` with pi as a head and a tail. Integers and half-integers, where a result is a
//! zero or an infinity, take the signs OpenCL C 7.5.1 lists; infinities and NaN give NaN.

use super::fraction::{copysign, konst};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions this module generates.
pub fn known(base: &str) -> bool {
    matches!(base, "sinpi" | "cospi" | "tanpi")
}

/// `base(x)` for `x` of type `F32`, `F32X4`, `F64` or `F64X2`.
pub fn emit(b: &mut FunctionBuilder, base: &str, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let double = t.lane_type() == types::F64;
    let k = |b: &mut FunctionBuilder, c: f64| konst(b, t, c);
    let ax = b.ins().fabs(x);
    let big = k(b, if double { 9_007_199_254_740_992.0 } else { 16_777_216.0 });
    // (fmin would give NaN for a NaN too; the NaN is restored at the end.)
    let lt = b.ins().fcmp(FloatCC::LessThan, ax, big);
    let a = super::pick(b, lt, ax, big);
    let two = k(b, 2.0);
    let a2 = b.ins().fmul(a, two);
    let n = b.ins().nearest(a2);
    let half = k(b, 0.5);
    let nh = b.ins().fmul(n, half);
    let r = b.ins().fsub(a, nh);
    // q = n mod 4, and its bits as lane conditions.
    let quarter = k(b, 0.25);
    let n4 = b.ins().fmul(n, quarter);
    let n4 = b.ins().floor(n4);
    let four = k(b, 4.0);
    let q = b.ins().fmul(n4, four);
    let q = b.ins().fsub(n, q);
    let one = k(b, 1.0);
    let (zero, three) = (k(b, 0.0), k(b, 3.0));
    let is1 = b.ins().fcmp(FloatCC::Equal, q, one);
    let is3 = b.ins().fcmp(FloatCC::Equal, q, three);
    let odd = b.ins().bor(is1, is3);
    let upper = b.ins().fcmp(FloatCC::GreaterThanOrEqual, q, two);
    let (s, c) = sin_cos_pi(b, r, double);
    let r0 = b.ins().fcmp(FloatCC::Equal, r, zero);
    let v = match base {
        "sinpi" => {
            // sin, cos, -sin, -cos in quadrants 0 to 3; the sign of x on top.
            let v = super::pick(b, odd, c, s);
            let nv = b.ins().fneg(v);
            let v = super::pick(b, upper, nv, v);
            let nv = b.ins().fneg(v);
            let neg = b.ins().fcmp(FloatCC::LessThan, x, zero);
            let v = super::pick(b, neg, nv, v);
            // sinpi(+-n) = +-0 (and sinpi(+-0) = +-0).
            let zs = copysign(b, zero, x);
            let at_zero = super::pick(b, odd, v, zs);
            super::pick(b, r0, at_zero, v)
        }
        "cospi" => {
            // cos, -sin, -cos, sin: the sign flips in quadrants 1 and 2.
            let v = super::pick(b, odd, s, c);
            let nv = b.ins().fneg(v);
            let is2 = b.ins().fcmp(FloatCC::Equal, q, two);
            let flip = b.ins().bor(is1, is2);
            let v = super::pick(b, flip, nv, v);
            // cospi(n + 0.5) = +0.
            let rz = b.ins().band(r0, odd);
            super::pick(b, rz, zero, v)
        }
        _ => {
            // s/c in even quadrants, -c/s in odd ones (period 1).
            let num = super::pick(b, odd, c, s);
            let den = super::pick(b, odd, s, c);
            let v = b.ins().fdiv(num, den);
            let nv = b.ins().fneg(v);
            let v = super::pick(b, odd, nv, v);
            // At r = 0: +0 for an even integer, -0 for an odd one, +inf for n + 0.5 with n
            // even, -inf with n odd (for |x|; the sign of x then turns them over).
            let nz = k(b, -0.0);
            let z = super::pick(b, upper, nz, zero);
            let (pinf, ninf) = (k(b, f64::INFINITY), k(b, f64::NEG_INFINITY));
            let inf = super::pick(b, is3, ninf, pinf);
            let special = super::pick(b, odd, inf, z);
            let v = super::pick(b, r0, special, v);
            // The sign of x (its sign bit, so that tanpi(-0) = -0).
            let nv = b.ins().fneg(v);
            let sign = copysign(b, one, x);
            let neg = b.ins().fcmp(FloatCC::LessThan, sign, zero);
            super::pick(b, neg, nv, v)
        }
    };
    // Infinities and NaN: NaN.
    let inf = k(b, f64::INFINITY);
    let finite = b.ins().fcmp(FloatCC::LessThan, ax, inf);
    let nan = k(b, f64::NAN);
    super::pick(b, finite, v, nan)
}

/// sin(pi r) and cos(pi r) for |r| <= 1/4.
fn sin_cos_pi(b: &mut FunctionBuilder, r: Value, double: bool) -> (Value, Value) {
    let t = b.func.dfg.value_type(r);
    let k = |b: &mut FunctionBuilder, c: f64| konst(b, t, c);
    let pi = std::f64::consts::PI;
    // pi as head + tail in the lane type; (pi r)^k/k! = pi^k/k! * r^k.
    let (pi_hi, pi_lo) = if double {
        (pi, 1.224_646_799_147_353_2e-16)
    } else {
        let h = pi as f32;
        (h as f64, (pi - h as f64) as f32 as f64)
    };
    let terms = if double { 9 } else { 5 };
    // c[k] = pi^k / k!
    let mut c = vec![1.0f64; 2 * terms + 1];
    for j in 1..c.len() {
        c[j] = c[j - 1] * pi / j as f64;
    }
    let z = b.ins().fmul(r, r);
    // sin(pi r) = r*pi_hi + r*(pi_lo + z*(-c3 + c5 z - c7 z^2 + ...))
    let top = 2 * terms - 1;
    let sgn = |j: usize| if (j / 2) % 2 == 1 { -1.0 } else { 1.0 };
    let mut ps = k(b, sgn(top) * c[top]);
    for j in (1..terms - 1).rev().map(|i| 2 * i + 1) {
        let cj = k(b, sgn(j) * c[j]);
        ps = b.ins().fma(ps, z, cj);
    }
    let lo = k(b, pi_lo);
    let tail = b.ins().fma(ps, z, lo);
    let rt = b.ins().fmul(r, tail);
    let hi = k(b, pi_hi);
    let s = b.ins().fma(r, hi, rt);
    // cos(pi r) = 1 - c2 z + z^2*(c4 - c6 z + ...), with what 1 - c2 z loses added back.
    let top = 2 * terms;
    let mut pc = k(b, sgn(top) * c[top]);
    for j in (2..terms).rev().map(|i| 2 * i) {
        let cj = k(b, sgn(j) * c[j]);
        pc = b.ins().fma(pc, z, cj);
    }
    let c2 = k(b, c[2]);
    let hz = b.ins().fmul(z, c2);
    let one = k(b, 1.0);
    let w = b.ins().fsub(one, hz);
    let lost = b.ins().fsub(one, w);
    let lost = b.ins().fsub(lost, hz);
    let zz = b.ins().fmul(z, z);
    let small = b.ins().fma(zz, pc, lost);
    (s, b.ins().fadd(w, small))
}
