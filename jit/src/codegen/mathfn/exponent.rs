//! `ldexp`, `logb`, `ilogb` and `frexp` (OpenCL C 6.15.2; all exact) as inline code on the bits, for one
//! value (`F32`, `F64`) or lanes (`F32X4`, and `F64X2` for `logb`) with the same operations.
//!
//! - `ldexp(x, n)` is `x * 2^n` rounded once: as in the classic `scalbn`, up to two steps by a
//!   normal power of two move `n` into the exponent range, then one multiplication by `2^n`.
//!   The downward step is `2^(emin + p)` rather than `2^emin`, so that a step never makes
//!   a subnormal that the last multiplication rounds again (a result small enough for that
//!   rounds to zero either way).
//! - `logb(x)` and `ilogb(x)` are the unbiased exponent; subnormals are first scaled by `2^p`
//!   (exact). `logb` forms the exponent as a float from its bits (`2^p + e` built as bits,
//!   less `2^p`), so that two doubles need no integer conversion. OpenCL C's `FP_ILOGB0` is
//!   `INT_MIN`, `FP_ILOGBNAN` `INT_MAX` (clang's header), which `ilogb` also gives for
//!   infinities, as the library function does; `logb` of 0 is -inf, of +-inf +inf.
//! - `frexp(x)` is `x`'s significand with the exponent field of 0.5 (and `x`'s sign) and
//!   `ilogb(x) + 1`; zeros, infinities and NaN are returned as they are with exponent 0, as
//!   the library function does.

use super::fraction::konst;
use super::ik;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The layout of a binary floating-point format.
struct Format {
    /// Integer type of the same width (per lane).
    int: Type,
    /// Significand bits after the point.
    p: i64,
    /// Exponent bias (also the largest exponent).
    bias: i64,
}

fn format(t: Type) -> Option<Format> {
    match (t.lane_type(), t.lane_count()) {
        (types::F32, 1 | 4) => Some(Format {
            int: if t.is_vector() { types::I32X4 } else { types::I32 },
            p: 23,
            bias: 127,
        }),
        (types::F64, 1 | 2) => Some(Format {
            int: if t.is_vector() { types::I64X2 } else { types::I64 },
            p: 52,
            bias: 1023,
        }),
        _ => None,
    }
}

/// `|x|` with subnormals scaled into the normal range, and the condition that they were.
fn normalized(b: &mut FunctionBuilder, f: &Format, x: Value) -> (Value, Value) {
    let t = b.func.dfg.value_type(x);
    let ax = b.ins().fabs(x);
    let smallest = konst(b, t, f64::powi(2.0, 1 - f.bias as i32));
    let sub = b.ins().fcmp(FloatCC::LessThan, ax, smallest);
    let scale = konst(b, t, f64::powi(2.0, f.p as i32));
    let scaled = b.ins().fmul(ax, scale);
    (super::pick(b, sub, scaled, ax), sub)
}

/// `logb(x)` for `x` of type `F32`, `F32X4`, `F64` or `F64X2`.
pub fn logb(b: &mut FunctionBuilder, x: Value) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    let f = format(t)?;
    let (ax, sub) = normalized(b, &f, x);
    let bits = b.ins().bitcast(f.int, MemFlagsData::new(), ax);
    let e = b.ins().ushr_imm_u(bits, f.p);
    // The biased exponent as the low bits of 2^p's significand: (2^p + e) - (2^p + bias).
    let two_p = konst(b, t, f64::powi(2.0, f.p as i32));
    let two_p_bits = b.ins().bitcast(f.int, MemFlagsData::new(), two_p);
    let sum = b.ins().bor(e, two_p_bits);
    let sum = b.ins().bitcast(t, MemFlagsData::new(), sum);
    let off = konst(b, t, f64::powi(2.0, f.p as i32) + f.bias as f64);
    let v = b.ins().fsub(sum, off);
    let p = konst(b, t, f.p as f64);
    let vs = b.ins().fsub(v, p);
    let v = super::pick(b, sub, vs, v);
    // 0 gives -inf, +-inf +inf, NaN itself.
    let zero = konst(b, t, 0.0);
    let is_zero = b.ins().fcmp(FloatCC::Equal, x, zero);
    let ninf = konst(b, t, f64::NEG_INFINITY);
    let v = super::pick(b, is_zero, ninf, v);
    let inf = konst(b, t, f64::INFINITY);
    let is_inf = b.ins().fcmp(FloatCC::Equal, ax, inf);
    let v = super::pick(b, is_inf, inf, v);
    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    Some(super::pick(b, nan, x, v))
}

/// The exponent of `x` (`F32`, `F32X4` or `F64`) as 32-bit integer lanes.
struct Exponent {
    f: Format,
    /// `|x|`, subnormals scaled into the normal range, and its bits.
    ax: Value,
    bits: Value,
    /// `I32` or `I32X4`.
    it: Type,
    /// The unbiased exponent of `x` plus `plus` (subnormals' true exponent).
    e: Value,
}

fn exponent(b: &mut FunctionBuilder, x: Value, plus: i64) -> Option<Exponent> {
    let t = b.func.dfg.value_type(x);
    if t == types::F64X2 {
        return None;
    }
    let f = format(t)?;
    let (ax, sub) = normalized(b, &f, x);
    let bits = b.ins().bitcast(f.int, MemFlagsData::new(), ax);
    let e = b.ins().ushr_imm_u(bits, f.p);
    let e = if t == types::F64 {
        b.ins().ireduce(types::I32, e)
    } else {
        e
    };
    let it = if t.is_vector() { types::I32X4 } else { types::I32 };
    let bias = ik(b, it, f.bias - plus);
    let e = b.ins().isub(e, bias);
    let p = ik(b, it, f.p);
    let es = b.ins().isub(e, p);
    let e = super::pick(b, sub, es, e);
    Some(Exponent { f, ax, bits, it, e })
}

/// `(significand, exponent)` of `frexp(x)` for `x` of type `F32`, `F32X4` or `F64` (the
/// exponent `I32` or `I32X4`).
pub fn frexp(b: &mut FunctionBuilder, x: Value) -> Option<(Value, Value)> {
    let t = b.func.dfg.value_type(x);
    let Exponent { f, ax, bits, it, e } = exponent(b, x, 1)?;
    // The significand with the exponent field of 0.5, and x's sign.
    let mant = ik(b, f.int, (1i64 << f.p) - 1);
    let m = b.ins().band(bits, mant);
    let half = ik(b, f.int, (f.bias - 1) << f.p);
    let m = b.ins().bor(m, half);
    let m = b.ins().bitcast(t, MemFlagsData::new(), m);
    let m = super::fraction::copysign(b, m, x);
    // Zeros, infinities and NaN: themselves, exponent 0.
    let zero = konst(b, t, 0.0);
    let is_zero = b.ins().fcmp(FloatCC::Equal, x, zero);
    let inf = konst(b, t, f64::INFINITY);
    let special = b.ins().fcmp(FloatCC::UnorderedOrGreaterThanOrEqual, ax, inf);
    let special = b.ins().bor(special, is_zero);
    let m = super::pick(b, special, x, m);
    let z = ik(b, it, 0);
    let e = super::pick(b, special, z, e);
    Some((m, e))
}

/// `ilogb(x)` (`I32` or `I32X4`) for `x` of type `F32`, `F32X4` or `F64`.
pub fn ilogb(b: &mut FunctionBuilder, x: Value) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    let Exponent { ax, it, e: v, .. } = exponent(b, x, 0)?;
    let zero = konst(b, t, 0.0);
    let is_zero = b.ins().fcmp(FloatCC::Equal, x, zero);
    let min = ik(b, it, i32::MIN as i64);
    let v = super::pick(b, is_zero, min, v);
    // Infinities and NaN: neither is below the largest finite value.
    let largest = konst(
        b,
        t,
        if t.lane_type() == types::F64 {
            f64::MAX
        } else {
            f32::MAX as f64
        },
    );
    let finite = b.ins().fcmp(FloatCC::LessThanOrEqual, ax, largest);
    let max = ik(b, it, i32::MAX as i64);
    Some(super::pick(b, finite, v, max))
}

/// `ldexp(x, n)` for `x` of type `F32` with `n` an `I32`, `F32X4` with `I32X4`, or `F64` with
/// `I32`.
pub fn ldexp(b: &mut FunctionBuilder, x: Value, n: Value) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    let nt = b.func.dfg.value_type(n);
    let ok = matches!(
        (t, nt),
        (types::F32, types::I32) | (types::F32X4, types::I32X4) | (types::F64, types::I32)
    );
    if !ok {
        return None;
    }
    let f = format(t)?;
    let (emax, emin) = (f.bias, 1 - f.bias);
    // Two steps: down by 2^(emin + p) keeps a normal x normal as long as the result can still
    // be nonzero.
    let (up, down) = (emax, emin + f.p);
    let (mut y, mut n) = (x, n);
    for _ in 0..2 {
        let hi = ik(b, nt, emax);
        let is_hi = b.ins().icmp(IntCC::SignedGreaterThan, n, hi);
        let lo = ik(b, nt, emin);
        let is_lo = b.ins().icmp(IntCC::SignedLessThan, n, lo);
        let (fu, fd, one) = (
            konst(b, t, f64::powi(2.0, up as i32)),
            konst(b, t, f64::powi(2.0, down as i32)),
            konst(b, t, 1.0),
        );
        let fl = super::pick(b, is_lo, fd, one);
        let factor = super::pick(b, is_hi, fu, fl);
        y = b.ins().fmul(y, factor);
        let (du, dd, zero) = (ik(b, nt, up), ik(b, nt, down), ik(b, nt, 0));
        let dl = super::pick(b, is_lo, dd, zero);
        let dn = super::pick(b, is_hi, du, dl);
        n = b.ins().isub(n, dn);
    }
    let hi = ik(b, nt, emax);
    let n = b.ins().smin(n, hi);
    let lo = ik(b, nt, emin);
    let n = b.ins().smax(n, lo);
    let scale = if t == types::F64 {
        let n = b.ins().sextend(types::I64, n);
        let e = b.ins().iadd_imm_s(n, f.bias);
        let e = b.ins().ishl_imm_u(e, f.p);
        b.ins().bitcast(t, MemFlagsData::new(), e)
    } else {
        let bias = ik(b, nt, f.bias);
        let e = b.ins().iadd(n, bias);
        let e = b.ins().ishl_imm_u(e, f.p);
        b.ins().bitcast(t, MemFlagsData::new(), e)
    };
    Some(b.ins().fmul(y, scale))
}

#[cfg(test)]
mod tests {
    //! Against exact references on the host's integers (the value as `m * 2^e` with `m` an
    //! integer, rounded to nearest even by hand), bit for bit, and the lanes against one lane.
    use super::*;
    use crate::codegen::test_jit::functions;

    /// `(m, e)` with `x = m * 2^e` for a finite nonzero double.
    fn parts(x: f64) -> (u64, i64) {
        let bits = x.to_bits();
        let (ex, frac) = (((bits >> 52) & 0x7ff) as i64, bits & ((1 << 52) - 1));
        if ex == 0 {
            (frac, -1074)
        } else {
            (frac | 1 << 52, ex - 1075)
        }
    }

    fn pow2(k: i64) -> f64 {
        f64::from_bits(((k + 1023) as u64) << 52)
    }

    /// `x * 2^n` rounded once to a double.
    fn ldexp_ref(x: f64, n: i32) -> f64 {
        if x == 0.0 || !x.is_finite() {
            return x;
        }
        let (m, e) = parts(x);
        let sign = if x < 0.0 { -1.0 } else { 1.0 };
        let e2 = e + n as i64;
        if e2 >= -1074 {
            // Exact unless it exceeds the largest double (m < 2^53: then it is at least 2^1024).
            let v = if e2 > 1100 {
                f64::INFINITY
            } else {
                m as f64 * pow2(e2 / 2) * pow2(e2 - e2 / 2)
            };
            return sign * v;
        }
        let s = (-1074 - e2) as u32;
        if s >= 60 {
            return sign * 0.0;
        }
        let (q, rem, half) = (m >> s, m & ((1 << s) - 1), 1u64 << (s - 1));
        let q = if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        };
        sign * f64::from_bits(q)
    }

    fn ilogb_ref(x: f64) -> i32 {
        if x == 0.0 {
            return i32::MIN;
        }
        if !x.is_finite() {
            return i32::MAX;
        }
        let (m, e) = parts(x);
        (e + 63 - m.leading_zeros() as i64) as i32
    }

    fn logb_ref(x: f64) -> f64 {
        match x {
            _ if x.is_nan() => x,
            _ if x.is_infinite() => f64::INFINITY,
            0.0 => f64::NEG_INFINITY,
            _ => ilogb_ref(x) as f64,
        }
    }

    /// Floats of every binade of both signs (a few significands each), subnormals, zeros,
    /// infinities, NaN.
    fn floats() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            -f32::MAX,
        ];
        for e in 0..255u32 {
            for m in [0, 1, 0x2a_aaab, 0x40_0000, 0x7f_ffff] {
                let bits = e << 23 | m;
                v.push(f32::from_bits(bits));
                v.push(-f32::from_bits(bits));
            }
        }
        for k in 0..23 {
            v.push(f32::from_bits(1 << k));
            v.push(f32::from_bits((1 << (k + 1)) - 1));
        }
        v.retain(|x| x.to_bits() != 0 || *x == 0.0);
        v
    }

    fn doubles() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            -f64::MAX,
        ];
        for e in 0..2047u64 {
            for m in [0, 1, 0x5_5555_5555_5555, 0x8_0000_0000_0000, 0xf_ffff_ffff_ffff] {
                let bits = e << 52 | m;
                v.push(f64::from_bits(bits));
                v.push(-f64::from_bits(bits));
            }
        }
        for k in 0..52 {
            v.push(f64::from_bits(1 << k));
            v.push(f64::from_bits((1 << (k + 1)) - 1));
        }
        v
    }

    fn exponents(bias: i32) -> Vec<i32> {
        let mut v: Vec<i32> = (-3 * bias..=3 * bias).step_by(7).collect();
        for k in [0, 1, 2, 22, 23, 24, 52, 53, 54] {
            for c in [bias - 1, bias, bias + 1, 2 * bias, 2 * bias + k] {
                v.extend([c, -c, c - k, k - c]);
            }
        }
        v.extend([i32::MIN, i32::MAX, i32::MIN + 1, i32::MAX - 1, 1 << 20, -(1 << 20)]);
        v
    }

    fn same32(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    fn same64(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn ldexp_rounds_once_in_every_range() {
        // f0: F32 (x at 0, n at 4), f1: F32X4 (x at 0, n at 16), f2: F64 (x at 0, n at 8).
        let shapes = [
            (types::F32, types::I32, 4),
            (types::F32X4, types::I32X4, 16),
            (types::F64, types::I32, 8),
        ];
        let (_jit, f) = functions(&[], 3, |k, _, b, src| {
            let (t, nt, off) = shapes[k];
            let x = b.ins().load(t, MemFlagsData::new(), src, 0);
            let n = b.ins().load(nt, MemFlagsData::new(), src, off);
            ldexp(b, x, n).unwrap()
        });
        let ns = exponents(127);
        for x in floats() {
            for chunk in ns.chunks(4) {
                let mut src = [0u32; 8];
                let mut four = [0f32; 4];
                for (l, n) in chunk.iter().enumerate() {
                    let want = ldexp_ref(x as f64, (*n).clamp(-400, 400)) as f32;
                    let mut s1 = [x.to_bits(), *n as u32];
                    let mut y = 0f32;
                    f[0](s1.as_mut_ptr() as *const u8, &mut y as *mut f32 as *mut u8);
                    assert!(same32(y, want), "ldexp({x:e}, {n}) = {y:e}, want {want:e}");
                    src[l] = x.to_bits();
                    src[4 + l] = *n as u32;
                    four[l] = want;
                }
                let mut y4 = [0f32; 4];
                f[1](src.as_ptr() as *const u8, y4.as_mut_ptr() as *mut u8);
                for l in 0..chunk.len() {
                    assert!(same32(y4[l], four[l]), "four lanes: ldexp({x:e}, {})", chunk[l]);
                }
            }
        }
        let ns = exponents(1023);
        for x in doubles() {
            for n in &ns {
                let want = ldexp_ref(x, *n);
                let mut src = [0u64; 2];
                src[0] = x.to_bits();
                src[1] = *n as u32 as u64;
                let mut y = 0f64;
                f[2](src.as_ptr() as *const u8, &mut y as *mut f64 as *mut u8);
                assert!(same64(y, want), "ldexp({x:e}, {n}) = {y:e}, want {want:e}");
            }
        }
    }

    #[test]
    fn logb_and_ilogb_are_the_exponent() {
        let shapes = [types::F32, types::F32X4, types::F64, types::F64X2];
        // f0..f3: logb of each shape; f4..f6: ilogb of F32, F32X4, F64.
        let (_jit, f) = functions(&[], 7, |k, _, b, src| {
            let x = b.ins().load(shapes[k % 4], MemFlagsData::new(), src, 0);
            if k < 4 {
                logb(b, x).unwrap()
            } else {
                ilogb(b, x).unwrap()
            }
        });
        let xs = floats();
        for chunk in xs.chunks(4) {
            let mut src = [0f32; 4];
            let (mut l4, mut i4) = ([0f32; 4], [0i32; 4]);
            for (l, x) in chunk.iter().enumerate() {
                let (lw, iw) = (logb_ref(*x as f64) as f32, ilogb_ref(*x as f64));
                let (mut y, mut iy) = (0f32, 0i32);
                f[0](x as *const f32 as *const u8, &mut y as *mut f32 as *mut u8);
                f[4](x as *const f32 as *const u8, &mut iy as *mut i32 as *mut u8);
                assert!(same32(y, lw), "logb({x:e}) = {y:e}, want {lw:e}");
                assert_eq!(iy, iw, "ilogb({x:e})");
                src[l] = *x;
                (l4[l], i4[l]) = (lw, iw);
            }
            let (mut y4, mut iy4) = ([0f32; 4], [0i32; 4]);
            f[1](src.as_ptr() as *const u8, y4.as_mut_ptr() as *mut u8);
            f[5](src.as_ptr() as *const u8, iy4.as_mut_ptr() as *mut u8);
            for l in 0..chunk.len() {
                assert!(same32(y4[l], l4[l]), "four lanes: logb({:e})", src[l]);
                assert_eq!(iy4[l], i4[l], "four lanes: ilogb({:e})", src[l]);
            }
        }
        let xs = doubles();
        for chunk in xs.chunks(2) {
            let mut src = [0f64; 2];
            let mut l2 = [0f64; 2];
            for (l, x) in chunk.iter().enumerate() {
                let (lw, iw) = (logb_ref(*x), ilogb_ref(*x));
                let (mut y, mut iy) = (0f64, 0i32);
                f[2](x as *const f64 as *const u8, &mut y as *mut f64 as *mut u8);
                f[6](x as *const f64 as *const u8, &mut iy as *mut i32 as *mut u8);
                assert!(same64(y, lw), "logb({x:e}) = {y:e}, want {lw:e}");
                assert_eq!(iy, iw, "ilogb({x:e})");
                src[l] = *x;
                l2[l] = lw;
            }
            let mut y2 = [0f64; 2];
            f[3](src.as_ptr() as *const u8, y2.as_mut_ptr() as *mut u8);
            for l in 0..chunk.len() {
                assert!(same64(y2[l], l2[l]), "two lanes: logb({:e})", src[l]);
            }
        }
    }

    #[test]
    fn frexp_is_the_librarys() {
        use crate::builtins::{double::clift_frexp_f64, float::clift_frexp_f32};
        let shapes = [types::F32, types::F32X4, types::F64];
        // f(2k): the significand of shape k, f(2k + 1): the exponent.
        let (_jit, f) = functions(&[], 6, |k, _, b, src| {
            let x = b.ins().load(shapes[k / 2], MemFlagsData::new(), src, 0);
            let (m, e) = frexp(b, x).unwrap();
            if k % 2 == 0 {
                m
            } else {
                e
            }
        });
        for chunk in floats().chunks(4) {
            let mut src = [0f32; 4];
            let (mut m4, mut e4) = ([0f32; 4], [0i32; 4]);
            for (l, x) in chunk.iter().enumerate() {
                let mut ew = 0i32;
                // SAFETY: ew is an i32 to write.
                let mw = unsafe { clift_frexp_f32(*x, &mut ew) };
                let (mut m, mut e) = (0f32, 0i32);
                f[0](x as *const f32 as *const u8, &mut m as *mut f32 as *mut u8);
                f[1](x as *const f32 as *const u8, &mut e as *mut i32 as *mut u8);
                assert!(
                    same32(m, mw) && e == ew,
                    "frexp({x:e}) = ({m:e}, {e}), want ({mw:e}, {ew})"
                );
                src[l] = *x;
                (m4[l], e4[l]) = (mw, ew);
            }
            let (mut y4, mut ye4) = ([0f32; 4], [0i32; 4]);
            f[2](src.as_ptr() as *const u8, y4.as_mut_ptr() as *mut u8);
            f[3](src.as_ptr() as *const u8, ye4.as_mut_ptr() as *mut u8);
            for l in 0..chunk.len() {
                assert!(
                    same32(y4[l], m4[l]) && ye4[l] == e4[l],
                    "four lanes: frexp({:e})",
                    src[l]
                );
            }
        }
        for x in doubles() {
            let mut ew = 0i32;
            // SAFETY: ew is an i32 to write.
            let mw = unsafe { clift_frexp_f64(x, &mut ew) };
            let (mut m, mut e) = (0f64, 0i32);
            f[4](&x as *const f64 as *const u8, &mut m as *mut f64 as *mut u8);
            f[5](&x as *const f64 as *const u8, &mut e as *mut i32 as *mut u8);
            assert!(
                same64(m, mw) && e == ew,
                "frexp({x:e}) = ({m:e}, {e}), want ({mw:e}, {ew})"
            );
        }
    }
}
