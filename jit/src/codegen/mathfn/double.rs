//! Double-precision `exp`, `exp2`, `exp10`, `sin`, `cos` and `tan` as inline code, for one
//! value (`F64`) or two lanes (`F64X2`, how the vector registers and the vector loop hold
//! doubles) with the same operations. OpenCL C 7.4 allows 3 ulp for the exp family, 4 for
//! sin and cos, 5 for tan; these stay within about 1, 1 and 2.
//!
//! exp family: `x = n*ln2 + r` with `n` an integer and `|r| <= ln2/2` (the reduction by fused
//! multiply-adds with ln2 in two parts; `exp2` takes `n` as the nearest integer and `r` as
//! the exact fraction times ln2, `exp10` reduces by log10(2) in two parts first), `e^r` by its
//! Taylor polynomial of degree 13 (truncation below 2^-57 relative), and the result `e^r *
//! 2^n` as two exact power-of-two factors, so that a subnormal result is rounded once and an
//! overflowing one becomes infinity. The integer `n` never leaves the float registers: its
//! factors' exponent fields come from the bits of `n + 1.5 * 2^52` (x86 has no two-lane
//! conversion from double to 64-bit integer before AVX-512).
//!
//! sin, cos, tan: `x = n*pi/2 + r` with `|r| <= pi/4`, reduced by fused multiply-adds with
//! pi/2 in three doubles (159 bits; the first step exact, the second's rounding error kept as
//! a tail), sine and cosine of `r` by their Taylor polynomials to degrees 17 and 18
//! (truncation below 2^-62 relative) with the tail's first-order term, the
//! quadrant (from the same `n + 1.5 * 2^52` bits) choosing and signing them, tan as their
//! quotient. Beyond [`TRIG_FAST`] (and for infinities) a branch, taken only when some lane
//! needs it, calls the library function, which reduces with all the bits of 2/pi.

use super::quadrant::Quadrant;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions this module generates (OpenCL.std names without `native_`/`half_`).
pub fn known(base: &str) -> bool {
    matches!(base, "exp" | "exp2" | "exp10" | "sin" | "cos" | "tan")
}

/// Up to this magnitude (2^30) sin, cos and tan are reduced inline: `n` stays below 2^30, so
/// the part of pi/2 beyond the three doubles (below 2^-163) costs less than 2^-133, where no
/// double comes closer to a multiple of pi/2 than about 2^-62.
pub const TRIG_FAST: f64 = 1_073_741_824.0;

/// `base(x)` for `x` of type `F64` or `F64X2` and one of the exp family; `None` for other
/// functions or types (sin, cos and tan: [`reduce`] and `super::trig`).
pub fn emit(b: &mut FunctionBuilder, base: &str, x: Value) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    if t != types::F64 && t != types::F64X2 {
        return None;
    }
    match base {
        "exp" | "exp2" | "exp10" => Some(exp(b, base, x)),
        _ => None,
    }
}

/// 1.5 * 2^52: adding it to an integer-valued double below 2^51 in magnitude leaves the
/// integer in the low bits of the sum.
const MAGIC: f64 = 6_755_399_441_055_744.0;

fn fk(b: &mut FunctionBuilder, t: Type, c: f64) -> Value {
    let s = b.ins().f64const(c);
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

fn int_of(t: Type) -> Type {
    if t.is_vector() {
        types::I64X2
    } else {
        types::I64
    }
}

/// `x` clamped to [lo, hi]; NaN stays NaN (both comparisons are false for it).
fn clamp(b: &mut FunctionBuilder, x: Value, lo: f64, hi: f64) -> Value {
    let t = b.func.dfg.value_type(x);
    let h = fk(b, t, hi);
    let above = b.ins().fcmp(FloatCC::GreaterThan, x, h);
    let x = super::pick(b, above, h, x);
    let l = fk(b, t, lo);
    let below = b.ins().fcmp(FloatCC::LessThan, x, l);
    super::pick(b, below, l, x)
}

/// `2^k` for integer-valued `k` in [-1022, 1023] (as doubles).
fn pow2(b: &mut FunctionBuilder, k: Value) -> Value {
    let t = b.func.dfg.value_type(k);
    let it = int_of(t);
    let magic = fk(b, t, MAGIC);
    let sum = b.ins().fadd(k, magic);
    let sum = b.ins().bitcast(it, MemFlagsData::new(), sum);
    // The low bits hold MAGIC's mantissa plus k; the exponent field wants k + 1023.
    let bias = 1023i64.wrapping_sub(MAGIC.to_bits() as i64);
    let bias = b.ins().iconst(types::I64, bias);
    let bias = if t.is_vector() { b.ins().splat(it, bias) } else { bias };
    let e = b.ins().iadd(sum, bias);
    let e = b.ins().ishl_imm_u(e, 52);
    b.ins().bitcast(t, MemFlagsData::new(), e)
}

/// `e^r` for `|r|` a little above ln2/2: Taylor to degree 13.
fn exp_poly(b: &mut FunctionBuilder, r: Value) -> Value {
    let t = b.func.dfg.value_type(r);
    let mut inv = [1.0f64; 14];
    for k in 1..14 {
        inv[k] = inv[k - 1] / k as f64;
    }
    let mut p = fk(b, t, inv[13]);
    for k in (0..13).rev() {
        let c = fk(b, t, inv[k]);
        p = b.ins().fma(p, r, c);
    }
    p
}

fn exp(b: &mut FunctionBuilder, base: &str, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    // Beyond these bounds the result is infinity or rounds to zero; the clamp keeps n within
    // [-1560, 1560], where both factors of 2^n below are normal.
    let (lo, hi) = match base {
        "exp" => (-1080.0, 1030.0),
        "exp2" => (-1100.0, 1100.0),
        _ => (-330.0, 310.0),
    };
    let xc = clamp(b, x, lo, hi);
    // ln2, log10(2) and ln10 as two doubles each (head: the nearest double).
    let ln2 = (std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);
    let (n, r) = match base {
        "exp" => {
            let k = fk(b, t, std::f64::consts::LOG2_E);
            let y = b.ins().fmul(xc, k);
            let n = b.ins().nearest(y);
            let nn = b.ins().fneg(n);
            let (h, l) = (fk(b, t, ln2.0), fk(b, t, ln2.1));
            let r = b.ins().fma(nn, h, xc);
            (n, b.ins().fma(nn, l, r))
        }
        "exp2" => {
            let n = b.ins().nearest(xc);
            let f = b.ins().fsub(xc, n);
            let (h, l) = (fk(b, t, ln2.0), fk(b, t, ln2.1));
            let fl = b.ins().fmul(f, l);
            (n, b.ins().fma(f, h, fl))
        }
        _ => {
            let k = fk(b, t, std::f64::consts::LOG2_10);
            let y = b.ins().fmul(xc, k);
            let n = b.ins().nearest(y);
            let nn = b.ins().fneg(n);
            let lg2 = (std::f64::consts::LOG10_2, -2.803_728_127_785_170_3e-18);
            let (h, l) = (fk(b, t, lg2.0), fk(b, t, lg2.1));
            let s = b.ins().fma(nn, h, xc);
            let s = b.ins().fma(nn, l, s);
            let ln10 = (std::f64::consts::LN_10, -2.170_756_223_382_249_4e-16);
            let (h, l) = (fk(b, t, ln10.0), fk(b, t, ln10.1));
            let sl = b.ins().fmul(s, l);
            (n, b.ins().fma(s, h, sl))
        }
    };
    let p = exp_poly(b, r);
    let half = fk(b, t, 0.5);
    let h = b.ins().fmul(n, half);
    let h = b.ins().floor(h);
    let h2 = b.ins().fsub(n, h);
    let s1 = pow2(b, h);
    let s2 = pow2(b, h2);
    let y = b.ins().fmul(p, s1);
    b.ins().fmul(y, s2)
}

/// `x = n*pi/2 + r` (accurate for |x| <= [`TRIG_FAST`]): sin r and cos r, and the quadrant
/// from the bits of `n + 1.5 * 2^52`, whose two low bits are n's (mod 4).
pub(super) fn reduce(b: &mut FunctionBuilder, x: Value) -> Quadrant {
    let t = b.func.dfg.value_type(x);
    let it = int_of(t);
    let k = fk(b, t, std::f64::consts::FRAC_2_PI);
    let y = b.ins().fmul(x, k);
    let n = b.ins().nearest(y);
    let nn = b.ins().fneg(n);
    // pi/2 as three doubles (each the nearest to what the ones before leave). The first
    // step is exact; `n*p2` is split into a rounded product and its exact error, and the
    // sum `r1 - n*p2` into a rounded sum and its exact error (Knuth's TwoSum), so that
    // `r + tail` holds `x - n*pi/2` to about 2^-100 relative.
    let [p1, p2, p3] = [
        std::f64::consts::FRAC_PI_2,
        6.123_233_995_736_766e-17,
        -1.497_384_904_859_169_8e-33,
    ]
    .map(|p| fk(b, t, p));
    let r1 = b.ins().fma(nn, p1, x);
    let w = b.ins().fmul(nn, p2);
    let nw = b.ins().fneg(w);
    let w_lo = b.ins().fma(nn, p2, nw);
    let (r, e) = two_sum(b, r1, w);
    let tail = b.ins().fadd(e, w_lo);
    let tail = b.ins().fma(nn, p3, tail);
    let z = b.ins().fmul(r, r);
    // 1/k! for k up to 18.
    let mut inv = [1.0f64; 19];
    for k in 1..19 {
        inv[k] = inv[k - 1] / k as f64;
    }
    let half = fk(b, t, 0.5);
    let hz = b.ins().fmul(half, z);
    // sin(r + tail) = r + r*z*(-1/3! + z/5! - ... + z^7/17!) + tail*(1 - z/2)
    let mut ps = fk(b, t, inv[17]);
    for k in [15, 13, 11, 9, 7, 5, 3] {
        let c = fk(b, t, if k % 4 == 3 { -inv[k] } else { inv[k] });
        ps = b.ins().fma(ps, z, c);
    }
    let rz = b.ins().fmul(r, z);
    let tz = b.ins().fmul(tail, hz);
    let small = b.ins().fsub(tail, tz);
    let small = b.ins().fma(rz, ps, small);
    let sin_r = b.ins().fadd(r, small);
    // cos(r + tail) = 1 - z/2 + z^2*(1/4! - z/6! + ... - z^7/18!) - r*tail
    let mut pc = fk(b, t, -inv[18]);
    for k in [16, 14, 12, 10, 8, 6, 4] {
        let c = fk(b, t, if k % 4 == 2 { -inv[k] } else { inv[k] });
        pc = b.ins().fma(pc, z, c);
    }
    let zz = b.ins().fmul(z, z);
    let one = fk(b, t, 1.0);
    let w = b.ins().fsub(one, hz);
    // What 1 - hz lost, added back with the polynomial's part.
    let lost = b.ins().fsub(one, w);
    let lost = b.ins().fsub(lost, hz);
    let nr = b.ins().fneg(r);
    let lost = b.ins().fma(nr, tail, lost);
    let small = b.ins().fma(zz, pc, lost);
    let cos_r = b.ins().fadd(w, small);
    let magic = fk(b, t, MAGIC);
    let q = b.ins().fadd(n, magic);
    let q = b.ins().bitcast(it, MemFlagsData::new(), q);
    Quadrant::new(b, sin_r, cos_r, q)
}

/// `a + b` rounded, and its rounding error exactly.
fn two_sum(b: &mut FunctionBuilder, x: Value, y: Value) -> (Value, Value) {
    let s = b.ins().fadd(x, y);
    let yy = b.ins().fsub(s, x);
    let xx = b.ins().fsub(s, yy);
    let dx = b.ins().fsub(x, xx);
    let dy = b.ins().fsub(y, yy);
    (s, b.ins().fadd(dx, dy))
}

#[cfg(test)]
mod tests {
    //! Against the host's functions (glibc, within one ulp): error in ulps of the double
    //! result as OpenCL C counts it, and two lanes against one lane bit for bit.
    use super::*;
    use crate::codegen::test_jit::{ulps_f64 as ulp_error, unary_functions, Unary};
    use cranelift_codegen::ir::AbiParam;
    use cranelift_module::{Linkage, Module};

    const NAMES: [&str; 11] = [
        "exp", "exp2", "exp10", "sin", "cos", "tan", "sincos_s", "sincos_c", "sinpi", "cospi", "tanpi",
    ];

    fn reference(name: &str, x: f64) -> f64 {
        match name {
            "exp" => x.exp(),
            "exp2" => x.exp2(),
            "exp10" => 10f64.powf(x),
            "sin" | "sincos_s" => x.sin(),
            "cos" | "sincos_c" => x.cos(),
            // The library's functions (reduced exactly; within an ulp).
            "sinpi" => crate::builtins::double::clift_sinpi_f64(x),
            "cospi" => crate::builtins::double::clift_cospi_f64(x),
            "tanpi" => crate::builtins::double::clift_tanpi_f64(x),
            _ => x.tan(),
        }
    }

    /// The bound each function is held to here, well inside OpenCL C's (3 ulp for the exp
    /// family, 4 for sin and cos, 5 for tan) against a reference within one.
    fn bound(name: &str) -> f64 {
        match name {
            "tan" => 3.0,
            // Against a reference within an ulp itself: 4, 4 and 6 allowed.
            "sinpi" | "cospi" => 2.0,
            "tanpi" => 4.0,
            _ => 1.5,
        }
    }

    /// `count` patterns of every binade of both signs, from a fixed sequence.
    fn binades(count: usize) -> Vec<f64> {
        let mut v = Vec::new();
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for e in 0..2047u64 {
            for _ in 0..count {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let m = s & ((1 << 52) - 1);
                v.push(f64::from_bits(e << 52 | m));
                v.push(-f64::from_bits(e << 52 | m));
            }
        }
        v
    }

    fn exp_inputs() -> Vec<f64> {
        let mut v = binades(997);
        // The ranges that matter, densely, and the thresholds' neighbours.
        for (lo, hi) in [(-746.0, 710.0), (-1076.0, 1025.0), (-324.0, 309.0)] {
            let n = 400_000;
            v.extend((0..=n).map(|i| lo + (hi - lo) * i as f64 / n as f64));
        }
        for c in [
            709.782_712_893_384,
            -745.133_219_101_941_1,
            -708.396_418_532_264_1,
            1024.0,
            -1074.0,
            -1022.0,
            308.254_715_559_916_7,
            -323.306_215_343_115_2,
            0.0,
            1.0,
        ] {
            let b = f64::to_bits(c);
            v.extend((b.saturating_sub(64)..b + 64).map(f64::from_bits));
        }
        v.extend((-1100..1100).map(|i| i as f64));
        v.extend(specials());
        v
    }

    fn trig_inputs() -> Vec<f64> {
        let mut v = binades(199);
        // Densely over a few periods, and around the multiples of pi/4 and pi/2 (quadrant
        // boundaries and zeros of the results) up to the inline bound and beyond it.
        let n = 400_000;
        v.extend((0..=n).map(|i| -20.0 + 40.0 * i as f64 / n as f64));
        for k in (0..4000i64).chain([1 << 20, (1 << 29) + 7, 683_565_275, 1 << 31, 1 << 40]) {
            for m in [k, -k] {
                let c = m as f64 * std::f64::consts::FRAC_PI_4;
                let b = c.to_bits();
                v.extend((b.saturating_sub(3)..b + 3).map(f64::from_bits));
            }
        }
        // Both sides of the inline bound.
        let b = TRIG_FAST.to_bits();
        v.extend((b - 8..b + 8).map(f64::from_bits));
        // The pi functions' quadrant boundaries (multiples of 1/4), up to where every double
        // is an even integer.
        for k in (-4000i64..4000).chain([
            (1 << 50) - 1,
            1 << 50,
            (1 << 51) + 1,
            (1 << 52) - 1,
            1 << 52,
            (1 << 53) + 2,
        ]) {
            let c = k as f64 * 0.25;
            let b = c.to_bits();
            v.extend([f64::from_bits(b.wrapping_sub(1)), c, f64::from_bits(b + 1), -c]);
        }
        for c in [
            4_503_599_627_370_495.0f64,
            4_503_599_627_370_497.0,
            9_007_199_254_740_991.0,
            1e300,
        ] {
            v.extend([c, -c]);
        }
        v.extend(specials());
        v
    }

    fn specials() -> [f64; 7] {
        [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -0.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
        ]
    }

    /// The library functions the trigonometric ones fall back to.
    fn fallbacks() -> [(&'static str, *const u8); 3] {
        use crate::builtins::double::{clift_cos_f64, clift_sin_f64, clift_tan_f64};
        [
            ("clift_sin_f64", clift_sin_f64 as *const u8),
            ("clift_cos_f64", clift_cos_f64 as *const u8),
            ("clift_tan_f64", clift_tan_f64 as *const u8),
        ]
    }

    fn build(t: Type) -> (cranelift_jit::JITModule, Vec<Unary>) {
        unary_functions(t, &fallbacks(), NAMES.len(), |k, jit, b, x| {
            let mut unary = jit.make_signature();
            unary.params.push(AbiParam::new(types::F64));
            unary.returns.push(AbiParam::new(types::F64));
            let mut import = |f: &str| {
                let f = jit
                    .declare_function(&format!("clift_{f}_f64"), Linkage::Import, &unary)
                    .unwrap();
                jit.declare_func_in_func(f, b.func)
            };
            match NAMES[k].strip_prefix("sincos_") {
                Some(which) => {
                    let (s, c) = (import("sin"), import("cos"));
                    let (ys, yc) = super::super::sincos(b, x, s, c).unwrap();
                    if which == "s" {
                        ys
                    } else {
                        yc
                    }
                }
                None => {
                    let name = NAMES[k];
                    let fallback = super::super::needs_fallback(name).then(|| import(name));
                    super::super::emit(b, name, x, fallback).unwrap()
                }
            }
        })
    }

    #[test]
    fn within_bounds_and_two_lanes_match_one_lane() {
        let (_j1, one) = build(types::F64);
        let (_j2, two) = build(types::F64X2);
        let (exp_xs, trig_xs) = (exp_inputs(), trig_inputs());
        for (k, name) in NAMES.iter().enumerate() {
            let xs = if k < 3 { &exp_xs } else { &trig_xs };
            let mut worst = (0.0, 0.0f64);
            for q in xs.chunks(2) {
                let mut x = [0f64; 2];
                x[..q.len()].copy_from_slice(q);
                let mut y2 = [0f64; 2];
                two[k](x.as_ptr() as *const u8, y2.as_mut_ptr() as *mut u8);
                for l in 0..q.len() {
                    let mut y = 0f64;
                    one[k](&x[l] as *const f64 as *const u8, &mut y as *mut f64 as *mut u8);
                    assert_eq!(
                        y.to_bits(),
                        y2[l].to_bits(),
                        "{name}({:e}): one lane {y:e}, two {:e}",
                        x[l],
                        y2[l]
                    );
                    let want = reference(name, x[l]);
                    // The pi functions' zeros and infinities, signs included, as the library's.
                    if k >= 8 && (want == 0.0 || want.is_infinite()) {
                        assert_eq!(y.to_bits(), want.to_bits(), "{name}({:e})", x[l]);
                    }
                    // Odd functions keep the sign of a zero.
                    if x[l] == 0.0 && !matches!(*name, "cos" | "sincos_c" | "cospi") && k >= 3 {
                        assert_eq!(y.to_bits(), x[l].to_bits(), "{name}({:e})", x[l]);
                    }
                    let err = ulp_error(y, want);
                    if err > worst.0 {
                        worst = (err, x[l]);
                    }
                }
            }
            eprintln!("{name}: worst {:.3} ulp at {:e}", worst.0, worst.1);
            let mut y = 0f64;
            one[k](&worst.1 as *const f64 as *const u8, &mut y as *mut f64 as *mut u8);
            assert!(
                worst.0 <= bound(name),
                "{name}: {:.3} ulp at {:e} ({:#x}): {y:e}, want {:e}",
                worst.0,
                worst.1,
                worst.1.to_bits(),
                reference(name, worst.1)
            );
        }
    }
}
