//! Double-precision `exp`, `exp2` and `exp10` as inline code, for one value (`F64`) or two
//! lanes (`F64X2`, how the vector registers and the vector loop hold doubles) with the same
//! operations. OpenCL C 7.4 allows 3 ulp; these stay within about 1.
//!
//! `x = n*ln2 + r` with `n` an integer and `|r| <= ln2/2` (the reduction by fused
//! multiply-adds with ln2 in two parts; `exp2` takes `n` as the nearest integer and `r` as
//! the exact fraction times ln2, `exp10` reduces by log10(2) in two parts first), `e^r` by its
//! Taylor polynomial of degree 13 (truncation below 2^-57 relative), and the result `e^r *
//! 2^n` as two exact power-of-two factors, so that a subnormal result is rounded once and an
//! overflowing one becomes infinity. The integer `n` never leaves the float registers: its
//! factors' exponent fields come from the bits of `n + 1.5 * 2^52` (x86 has no two-lane
//! conversion from double to 64-bit integer before AVX-512).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions this module generates (OpenCL.std names without `native_`/`half_`).
pub fn known(base: &str) -> bool {
    matches!(base, "exp" | "exp2" | "exp10")
}

/// `base(x)` for `x` of type `F64` or `F64X2`; `None` for other functions or types.
pub fn emit(b: &mut FunctionBuilder, base: &str, x: Value) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    if t != types::F64 && t != types::F64X2 {
        return None;
    }
    known(base).then(|| exp(b, base, x))
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

/// `cond ? x : y` for a condition from `fcmp` of the same lanes.
fn pick(b: &mut FunctionBuilder, cond: Value, x: Value, y: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if t.is_vector() {
        let m = b.ins().bitcast(t, MemFlagsData::new(), cond);
        b.ins().bitselect(m, x, y)
    } else {
        b.ins().select(cond, x, y)
    }
}

/// `x` clamped to [lo, hi]; NaN stays NaN (both comparisons are false for it).
fn clamp(b: &mut FunctionBuilder, x: Value, lo: f64, hi: f64) -> Value {
    let t = b.func.dfg.value_type(x);
    let h = fk(b, t, hi);
    let above = b.ins().fcmp(FloatCC::GreaterThan, x, h);
    let x = pick(b, above, h, x);
    let l = fk(b, t, lo);
    let below = b.ins().fcmp(FloatCC::LessThan, x, l);
    pick(b, below, l, x)
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

#[cfg(test)]
mod tests {
    //! Against the host's functions (glibc, within one ulp): error in ulps of the double
    //! result as OpenCL C counts it, and two lanes against one lane bit for bit.
    use super::*;
    use crate::codegen::test_jit::{ulps_f64 as ulp_error, unary_functions, Unary};

    const NAMES: [&str; 3] = ["exp", "exp2", "exp10"];

    fn reference(name: &str, x: f64) -> f64 {
        match name {
            "exp" => x.exp(),
            "exp2" => x.exp2(),
            _ => 10f64.powf(x),
        }
    }

    fn inputs() -> Vec<f64> {
        let mut v = Vec::new();
        // Every binade of both signs, 997 patterns each from a fixed sequence.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for e in 0..2047u64 {
            for _ in 0..997 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let m = s & ((1 << 52) - 1);
                v.push(f64::from_bits(e << 52 | m));
                v.push(-f64::from_bits(e << 52 | m));
            }
        }
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
        v.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -0.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
        ]);
        v
    }

    fn build(t: Type) -> (cranelift_jit::JITModule, Vec<Unary>) {
        unary_functions(t, &[], NAMES.len(), |k, _, b, x| emit(b, NAMES[k], x).unwrap())
    }

    #[test]
    fn within_bounds_and_two_lanes_match_one_lane() {
        let (_j1, one) = build(types::F64);
        let (_j2, two) = build(types::F64X2);
        let xs = inputs();
        for (k, name) in NAMES.iter().enumerate() {
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
                    let err = ulp_error(y, reference(name, x[l]));
                    if err > worst.0 {
                        worst = (err, x[l]);
                    }
                }
            }
            eprintln!("{name}: worst {:.3} ulp at {:e}", worst.0, worst.1);
            // OpenCL C allows 3 ulp; held to 1.5 against a reference within 1.
            let mut y = 0f64;
            one[k](&worst.1 as *const f64 as *const u8, &mut y as *mut f64 as *mut u8);
            assert!(
                worst.0 <= 1.5,
                "{name}: {:.3} ulp at {:e} ({:#x}): {y:e}, want {:e}",
                worst.0,
                worst.1,
                worst.1.to_bits(),
                reference(name, worst.1)
            );
        }
    }
}
