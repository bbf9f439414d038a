//! Single-precision `atan`, `atan2`, `asin`, `acos` and their `pi` forms as inline code, for
//! one value (`F32`) or four lanes (`F32X4`) with the same operations. OpenCL C 7.4 allows 5
//! ulp for atan, 6 for atan2, 4 for asin and acos (5, 6, 5, 5 for the `pi` forms); these stay
//! within about 2.
//!
//! atan of `t` in [0, 1]: above tan(pi/8) `atan t = pi/4 + atan((t - 1)/(t + 1))`, which
//! leaves an argument `u` of at most tan(pi/8) in magnitude, and `atan u = u + u z P(z)` with
//! `z = u^2` and `P` of degree 4, a least-squares fit of the relative error on Chebyshev nodes
//! (below 2^-30). `atan2(y, x)` takes `t = min(|x|, |y|) / max(|x|, |y|)` and turns the angle
//! over to `pi/2 - a` and `pi - a` by the quadrant; `atan x = atan2(x, 1)` and
//! `asin x = atan2(x, sqrt(1 - x^2))`, `acos x = atan2(sqrt(1 - x^2), x)` (`1 - x^2`
//! by one fused multiply-add). The
//! `pi` forms multiply by 1/pi. Special values by selects: both arguments zero or both infinite
//! take OpenCL C 7.5.1's angles, NaN stays NaN.

use super::fraction::{copysign, konst};
use super::pick;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

/// The one-argument functions this module generates.
pub fn known(base: &str) -> bool {
    matches!(base, "atan" | "asin" | "acos" | "atanpi" | "asinpi" | "acospi")
}

/// The two-argument functions this module generates.
pub fn known2(base: &str) -> bool {
    matches!(base, "atan2" | "atan2pi")
}

/// P(z) of atan u = u + u z P(z), |u| <= tan(pi/8).
const P: [f64; 5] = [
    -0.333_333_142_486_391_9,
    0.199_984_236_986_157_44,
    -0.142_427_443_032_094_67,
    0.105_885_721_750_594_56,
    -0.060_660_713_622_072_26,
];

/// `base(x)` for one of [`known`].
pub fn emit(b: &mut FunctionBuilder, base: &str, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let k = |b: &mut FunctionBuilder, c: f64| konst(b, t, c);
    let turns = base.ends_with("pi");
    match base.trim_end_matches("pi") {
        "atan" => {
            let one = k(b, 1.0);
            atan2(b, x, one, turns)
        }
        name => {
            // sqrt(1 - x^2), with 1 - x^2 rounded once (fused).
            let one = k(b, 1.0);
            let nx = b.ins().fneg(x);
            let c = b.ins().fma(nx, x, one);
            let c = b.ins().sqrt(c);
            if name == "asin" {
                atan2(b, x, c, turns)
            } else {
                atan2(b, c, x, turns)
            }
        }
    }
}

/// `base(y, x)` for one of [`known2`].
pub fn emit2(b: &mut FunctionBuilder, base: &str, y: Value, x: Value) -> Value {
    atan2(b, y, x, base == "atan2pi")
}

/// `c` as a head (the nearest float) and a tail (the nearest float to the rest).
fn split(c: f64) -> (f64, f64) {
    let h = c as f32 as f64;
    (h, (c - h) as f32 as f64)
}

/// atan2(y, x), in radians or (`turns`) in units of pi, where the angles pi/4, pi/2 and pi
/// are exact and the polynomial's part is multiplied by 1/pi.
fn atan2(b: &mut FunctionBuilder, y: Value, x: Value, turns: bool) -> Value {
    let t = b.func.dfg.value_type(x);
    let k = |b: &mut FunctionBuilder, c: f64| konst(b, t, c);
    let (ax, ay) = (b.ins().fabs(x), b.ins().fabs(y));
    let steep = b.ins().fcmp(FloatCC::GreaterThan, ay, ax);
    let hi = pick(b, steep, ay, ax);
    let lo = pick(b, steep, ax, ay);
    let tq = b.ins().fdiv(lo, hi);
    // Above tan(pi/8): pi/4 + atan((t - 1)/(t + 1)).
    let one = k(b, 1.0);
    let big = k(b, 0.414_213_562_373_095_1);
    let upper = b.ins().fcmp(FloatCC::GreaterThan, tq, big);
    let tm = b.ins().fsub(tq, one);
    let tp = b.ins().fadd(tq, one);
    let tr = b.ins().fdiv(tm, tp);
    let u = pick(b, upper, tr, tq);
    let z = b.ins().fmul(u, u);
    let mut p = k(b, P[4]);
    for c in P[..4].iter().rev() {
        let ck = k(b, *c);
        p = b.ins().fma(p, z, ck);
    }
    let uz = b.ins().fmul(u, z);
    let a = b.ins().fma(uz, p, u);
    let a = if turns {
        let inv = k(b, std::f64::consts::FRAC_1_PI);
        b.ins().fmul(a, inv)
    } else {
        a
    };
    // a + (upper ? pi/4 : 0), then pi/2 - that where |y| > |x|, then pi - that where x < 0
    // (the sign bit, so that x = -0 counts), each constant as a head and a tail.
    let unit = if turns { 1.0 } else { std::f64::consts::PI };
    let (q_hi, q_lo) = split(unit / 4.0);
    let zero = k(b, 0.0);
    let (qh, ql) = (k(b, q_hi), k(b, q_lo));
    let off_h = pick(b, upper, qh, zero);
    let off_l = pick(b, upper, ql, zero);
    let a = b.ins().fadd(a, off_l);
    let a = b.ins().fadd(a, off_h);
    let (h_hi, h_lo) = split(unit / 2.0);
    let (hh, hl) = (k(b, h_hi), k(b, h_lo));
    let r = b.ins().fsub(hl, a);
    let r = b.ins().fadd(r, hh);
    let a = pick(b, steep, r, a);
    let (p_hi, p_lo) = split(unit);
    let (ph, pl) = (k(b, p_hi), k(b, p_lo));
    let r = b.ins().fsub(pl, a);
    let r = b.ins().fadd(r, ph);
    let sx = copysign(b, one, x);
    let west = b.ins().fcmp(FloatCC::LessThan, sx, zero);
    let a = pick(b, west, r, a);
    // Both zero (0/0) or both infinite (inf/inf): the quotient is NaN; the angle is 0 or pi,
    // pi/4 or 3pi/4 by x's sign.
    let hz = b.ins().fcmp(FloatCC::Equal, hi, zero);
    let lz = b.ins().fcmp(FloatCC::Equal, lo, zero);
    let both_zero = b.ins().band(hz, lz);
    let inf = k(b, f64::INFINITY);
    let hinf = b.ins().fcmp(FloatCC::Equal, hi, inf);
    let linf = b.ins().fcmp(FloatCC::Equal, lo, inf);
    let both_inf = b.ins().band(hinf, linf);
    let half_turn = k(b, unit);
    let z_angle = pick(b, west, half_turn, zero);
    let a = pick(b, both_zero, z_angle, a);
    let (q1, q3) = (k(b, unit / 4.0), k(b, 3.0 * unit / 4.0));
    let i_angle = pick(b, west, q3, q1);
    let a = pick(b, both_inf, i_angle, a);
    // The sign of y (a NaN stays a NaN: copysign keeps its payload).
    copysign(b, a, y)
}
