//! Half-precision conversions as inline code: half bits to f32 (exact), f32 and f64 to half
//! bits rounded to nearest even, and f32/f64 rounded to half precision in their own type, for
//! one value (`I32`, `I64`) or four lanes (`I32X4`; not used by the vector loop yet), with the
//! same results, bit for bit, as the helpers `clift_cvt_f16_f32`, `clift_cvt_f32_f16` and
//! `clift_cvt_f64_f16` in mode RTE.
//!
//! Cranelift's x64 backend has no F16C lowering, so these are integer operations on the bit
//! patterns, without branches (each case is computed and selected), plus one exact float
//! operation for the subnormal halves:
//! - half to f32: a normal or infinite half moves its exponent and significand into place and
//!   rebiases the exponent; a NaN also gets the quiet bit (its payload is kept, as the helper
//!   keeps it); a subnormal half is its significand times 2^-24, which an integer-to-float
//!   conversion and a multiplication compute exactly.
//! - f32 (f64) to half: magnitudes from 2^-14 up round at bit 13 (42) by adding half the last
//!   place less one plus the last kept bit (ties to even) and rebias; from 65520 up (the first
//!   value that rounds past the largest half) the result is infinity; below 2^-14 the
//!   magnitude is added to 0.5 (2^28), whose last place is 2^-24, the last place of the half
//!   subnormals, so the float addition (round to nearest even) rounds it, and the result's
//!   low bits are the half; a NaN becomes the quiet NaN 0x7e00 with the sign kept (the helper
//!   keeps no payload).
//! - rounded in its own type: the same rounding with the bits below the half's last place
//!   cleared instead of shifted out (`FnTx::float_to_half` keeps this for the next operation
//!   on the half, which then needs no widening).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// A constant of type `t` (`I32`/`I64`, or a vector of them with the constant in every lane).
fn k(b: &mut FunctionBuilder, t: Type, c: u64) -> Value {
    let s = b.ins().iconst(t.lane_type(), c as i64);
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

/// `x <cc> c` (a scalar condition, or an all-ones lane mask).
fn cmp(b: &mut FunctionBuilder, cc: IntCC, x: Value, c: u64) -> Value {
    let t = b.func.dfg.value_type(x);
    let c = k(b, t, c);
    b.ins().icmp(cc, x, c)
}

/// `cond ? x : y` for a condition made by [`cmp`].
fn pick(b: &mut FunctionBuilder, cond: Value, x: Value, y: Value) -> Value {
    if b.func.dfg.value_type(x).is_vector() {
        b.ins().bitselect(cond, x, y)
    } else {
        b.ins().select(cond, x, y)
    }
}

fn and(b: &mut FunctionBuilder, x: Value, c: u64) -> Value {
    let t = b.func.dfg.value_type(x);
    let c = k(b, t, c);
    b.ins().band(x, c)
}

fn add(b: &mut FunctionBuilder, x: Value, c: u64) -> Value {
    let t = b.func.dfg.value_type(x);
    let c = k(b, t, c);
    b.ins().iadd(x, c)
}

/// The float type with the lanes and lane width of the integer type `t`.
fn float_of(t: Type) -> Type {
    match (t.lane_bits(), t.lane_count()) {
        (32, 1) => types::F32,
        (32, 4) => types::F32X4,
        (64, 1) => types::F64,
        _ => types::F64X2,
    }
}

/// A float constant of type `ft` (in every lane).
fn fk(b: &mut FunctionBuilder, ft: Type, c: f64) -> Value {
    let s = if ft.lane_type() == types::F32 {
        b.ins().f32const(c as f32)
    } else {
        b.ins().f64const(c)
    };
    if ft.is_vector() {
        b.ins().splat(ft, s)
    } else {
        s
    }
}

/// Half bits (the low 16 bits of each `I32` lane; the upper bits must be zero) to the bits of
/// the f32 of the same value, as `I32`/`I32X4`.
pub fn half_to_f32_bits(b: &mut FunctionBuilder, h: Value) -> Value {
    let t = b.func.dfg.value_type(h);
    let mag = and(b, h, 0x7fff);
    let sign = and(b, h, 0x8000);
    let sign = b.ins().ishl_imm_u(sign, 16);
    // Normal: exponent and significand shifted into place, the exponent rebiased (127 - 15).
    let shifted = b.ins().ishl_imm_u(mag, 13);
    let normal = add(b, shifted, 112 << 23);
    // Infinity and NaN: the exponent all ones (rebiased again), a NaN also quiet: (m + 0x3ff)
    // & 0x400 of the significand m is set exactly when m is not zero; shifted by 12 it is the
    // f32 quiet bit.
    let special = add(b, normal, 112 << 23);
    let m = and(b, h, 0x3ff);
    let m1 = add(b, m, 0x3ff);
    let quiet = and(b, m1, 0x400);
    let quiet = b.ins().ishl_imm_u(quiet, 12);
    let special = b.ins().bor(special, quiet);
    // Subnormal (and zero): significand * 2^-24, exact in f32.
    let ft = float_of(t);
    let f = b.ins().fcvt_from_sint(ft, mag);
    let scale = fk(b, ft, f64::from(f32::from_bits(0x3380_0000))); // 2^-24
    let f = b.ins().fmul(f, scale);
    let sub = b.ins().bitcast(t, MemFlagsData::new(), f);
    let is_sub = cmp(b, IntCC::UnsignedLessThan, mag, 0x400);
    let is_special = cmp(b, IntCC::UnsignedGreaterThanOrEqual, mag, 0x7c00);
    let r = pick(b, is_special, special, normal);
    let r = pick(b, is_sub, sub, r);
    b.ins().bor(r, sign)
}

/// f32 bits (`I32`/`I32X4`) to half bits rounded to nearest even, in the low 16 bits of each
/// lane (the upper bits zero).
pub fn f32_bits_to_half(b: &mut FunctionBuilder, x: Value) -> Value {
    to_half(b, x)
}

/// f64 bits (`I64`) to half bits rounded to nearest even, in the low 16 bits (the upper bits
/// zero): as [`f32_bits_to_half`], the same steps on the double's fields.
pub fn f64_bits_to_half(b: &mut FunctionBuilder, x: Value) -> Value {
    to_half(b, x)
}

/// The fields of the float format whose bits are integer type `t` (`I32` lanes: f32, `I64`
/// lanes: f64), and the constants both roundings to half use.
struct Format {
    /// Bits of the format.
    bits: i64,
    /// Significand bits.
    frac: i64,
    /// Exponent bias.
    bias: u64,
    /// The bits of 65520, the first magnitude that rounds to infinity.
    over: u64,
    /// The power of two whose last place is 2^-24, the half subnormals' last place.
    magic: f64,
}

impl Format {
    fn of(t: Type) -> Format {
        if t.lane_bits() == 64 {
            Format {
                bits: 64,
                frac: 52,
                bias: 1023,
                over: 0x40ef_fe00_0000_0000,
                magic: (1u64 << 28) as f64,
            }
        } else {
            Format {
                bits: 32,
                frac: 23,
                bias: 127,
                over: 0x477f_f000,
                magic: 0.5,
            }
        }
    }

    /// The bits of the format's infinity (exponent all ones, significand zero).
    fn infinity(&self) -> u64 {
        ((self.bias << 1) + 1) << self.frac
    }

    /// The bits of 2^-14, the smallest normal half.
    fn smallest_normal_half(&self) -> u64 {
        (self.bias - 14) << self.frac
    }

    /// Bits of `magic` in the format.
    fn magic_bits(&self) -> u64 {
        if self.bits == 32 {
            u64::from((self.magic as f32).to_bits())
        } else {
            self.magic.to_bits()
        }
    }
}

/// Magnitude bits `a` plus half the half's last place less one, plus the last kept bit: at
/// the half's last place, rounded to nearest even (the bits below still to be dropped).
fn round_at_half_ulp(b: &mut FunctionBuilder, a: Value, shift: i64) -> Value {
    let lsb = b.ins().ushr_imm_u(a, shift);
    let lsb = and(b, lsb, 1);
    let r = add(b, a, (1u64 << (shift - 1)) - 1);
    b.ins().iadd(r, lsb)
}

/// `magic + |x|` for magnitude bits `a` below 2^-14: |x| rounded to a multiple of 2^-24 by
/// the float addition (nearest even), plus `magic`; and `magic` itself, both floats.
fn round_subnormal(b: &mut FunctionBuilder, a: Value, f: &Format) -> (Value, Value) {
    let ft = float_of(b.func.dfg.value_type(a));
    let x = b.ins().bitcast(ft, MemFlagsData::new(), a);
    let m = fk(b, ft, f.magic);
    (b.ins().fadd(x, m), m)
}

/// The half's sign bit (0x8000) of float bits `x`, and their magnitude bits.
fn half_sign_and_magnitude(b: &mut FunctionBuilder, x: Value, f: &Format) -> (Value, Value) {
    let sign = b.ins().ushr_imm_u(x, f.bits - 16);
    let sign = and(b, sign, 0x8000);
    let a = and(b, x, (u64::MAX >> (64 - f.bits)) >> 1);
    (sign, a)
}

/// Exponent and significand shifted down to the half's places (`r`), rebiased to the half's
/// exponent bias.
fn rebias_to_half(b: &mut FunctionBuilder, r: Value, f: &Format) -> Value {
    add(b, r, ((f.bias - 15) << 10).wrapping_neg() & (u64::MAX >> (64 - f.bits)))
}

/// The half of magnitude bits `a`: `sub` below 2^-14, `normal` from there, the quiet NaN
/// 0x7e00 for a NaN; with the sign bit `sign`.
fn finish_half(b: &mut FunctionBuilder, f: &Format, a: Value, sub: Value, normal: Value, sign: Value) -> Value {
    let t = b.func.dfg.value_type(a);
    let is_sub = cmp(b, IntCC::UnsignedLessThan, a, f.smallest_normal_half());
    let r = pick(b, is_sub, sub, normal);
    let nan = k(b, t, 0x7e00);
    let is_nan = cmp(b, IntCC::UnsignedGreaterThan, a, f.infinity());
    let r = pick(b, is_nan, nan, r);
    b.ins().bor(r, sign)
}

/// A float's bits (f32 in `I32` lanes, f64 in `I64`) to half bits rounded to nearest even.
fn to_half(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let f = Format::of(t);
    let shift = f.frac - 10;
    let (sign, a) = half_sign_and_magnitude(b, x, &f);
    // From 2^-14: round at the half's last place, shift, rebias.
    let r = round_at_half_ulp(b, a, shift);
    let r = b.ins().ushr_imm_u(r, shift);
    let normal = rebias_to_half(b, r, &f);
    let inf = k(b, t, 0x7c00);
    let over = cmp(b, IntCC::UnsignedGreaterThanOrEqual, a, f.over);
    let normal = pick(b, over, inf, normal);
    // Below 2^-14: magic + |x| rounds |x| to a multiple of 2^-24; the sum's low bits are the
    // half.
    let (s, _) = round_subnormal(b, a, &f);
    let s = b.ins().bitcast(t, MemFlagsData::new(), s);
    let mk = k(b, t, f.magic_bits());
    let sub = b.ins().isub(s, mk);
    finish_half(b, &f, a, sub, normal, sign)
}

/// A float's bits (f32 in `I32`/`I32X4` lanes, f64 in `I64`) to half bits rounded in `mode`
/// (`RTE`, `RTZ`, `RTP` or `RTN` of `helpers`), in the low 16 bits of each lane (the upper
/// bits zero): the same results as the helpers' `f64_to_f16`.
pub fn to_half_in_mode(b: &mut FunctionBuilder, x: Value, mode: i32) -> Value {
    use super::helpers::{RTN, RTP, RTZ};
    // Which signs round their magnitude up (away from zero): (positive, negative).
    let up = match mode {
        RTZ => (false, false),
        RTP => (true, false),
        RTN => (false, true),
        _ => return to_half(b, x),
    };
    let t = b.func.dfg.value_type(x);
    let f = Format::of(t);
    let shift = f.frac - 10;
    let (sign, a) = half_sign_and_magnitude(b, x, &f);
    let neg = cmp(b, IntCC::SignedLessThan, x, 0);
    // `up_value` for the lanes whose sign rounds up, `other` elsewhere.
    let by_sign = |b: &mut FunctionBuilder, up_value: u64, other: u64| -> Value {
        match up {
            (false, false) => k(b, t, other),
            (true, true) => k(b, t, up_value),
            (pos, _) => {
                let (p, n) = if pos { (up_value, other) } else { (other, up_value) };
                let (p, n) = (k(b, t, p), k(b, t, n));
                pick(b, neg, n, p)
            }
        }
    };
    // From 2^-14: a magnitude rounded up gains the half's last place less one before the bits
    // below it are shifted out; then the exponent is rebiased. Past the largest half it is
    // infinity when rounded up, the largest half (65504) when rounded toward zero.
    let bump = by_sign(b, (1u64 << shift) - 1, 0);
    let r = b.ins().iadd(a, bump);
    let r = b.ins().ushr_imm_u(r, shift);
    let normal = rebias_to_half(b, r, &f);
    let cap = by_sign(b, 0x7c00, 0x7bff);
    let over = cmp(b, IntCC::UnsignedGreaterThanOrEqual, normal, 0x7c00);
    let normal = pick(b, over, cap, normal);
    // Below 2^-14: |x| * 2^24 (exact) counts the half subnormal's last places; `ceil` or
    // `trunc` rounds it to an integer up to 1024 (1024 is the smallest normal half's bits),
    // which the exact addition of 2^frac moves into the low bits.
    let ft = float_of(t);
    let xf = b.ins().bitcast(ft, MemFlagsData::new(), a);
    let scale = fk(b, ft, (1u64 << 24) as f64);
    let scaled = b.ins().fmul(xf, scale);
    let place = fk(b, ft, (1u64 << f.frac) as f64);
    let place_bits = k(b, t, (f.bias + f.frac as u64) << f.frac);
    let low_bits = |b: &mut FunctionBuilder, rounded: Value| -> Value {
        let s = b.ins().fadd(rounded, place);
        let s = b.ins().bitcast(t, MemFlagsData::new(), s);
        b.ins().isub(s, place_bits)
    };
    let sub = match up {
        (false, false) => {
            let r = b.ins().trunc(scaled);
            low_bits(b, r)
        }
        (pos, _) => {
            let c = b.ins().ceil(scaled);
            let ceil = low_bits(b, c);
            let z = b.ins().trunc(scaled);
            let trunc = low_bits(b, z);
            if pos {
                pick(b, neg, trunc, ceil)
            } else {
                pick(b, neg, ceil, trunc)
            }
        }
    };
    // Infinity stays infinity in every mode.
    let inf = k(b, t, 0x7c00);
    let is_inf = cmp(b, IntCC::Equal, a, f.infinity());
    let normal = pick(b, is_inf, inf, normal);
    finish_half(b, &f, a, sub, normal, sign)
}

/// f32 bits (`I32`/`I32X4`) or f64 bits (`I64`) rounded to half precision, nearest even, as
/// the bits of the same float type: the value [`f32_bits_to_half`] (or [`f64_bits_to_half`])
/// and then [`half_to_f32_bits`] give, without going through the half's bits (a NaN gives the
/// quiet NaN those give, with its sign). For the next operation on a half just computed.
pub fn round_to_half_bits(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let f = Format::of(t);
    let all = u64::MAX >> (64 - f.bits);
    let shift = f.frac - 10;
    let sign = and(b, x, 1 << (f.bits - 1));
    let a = and(b, x, all >> 1);
    // From 2^-14: round at the half's last place and clear the bits below.
    let r = round_at_half_ulp(b, a, shift);
    let normal = and(b, r, all << shift);
    let inf = k(b, t, f.infinity());
    let is_over = cmp(b, IntCC::UnsignedGreaterThanOrEqual, a, f.over);
    let normal = pick(b, is_over, inf, normal);
    // Below 2^-14: (magic + |x|) - magic, |x| rounded to a multiple of 2^-24.
    let (s, m) = round_subnormal(b, a, &f);
    let s = b.ins().fsub(s, m);
    let sub = b.ins().bitcast(t, MemFlagsData::new(), s);
    let is_sub = cmp(b, IntCC::UnsignedLessThan, a, f.smallest_normal_half());
    let r = pick(b, is_sub, sub, normal);
    let nan = k(b, t, ((f.bias << 2) + 3) << (f.frac - 1));
    let is_nan = cmp(b, IntCC::UnsignedGreaterThan, a, f.infinity());
    let r = pick(b, is_nan, nan, r);
    b.ins().bor(r, sign)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::helpers::{f16_to_f64, f64_to_f16, RTE};
    use crate::codegen::test_jit::{unary_functions, Unary};
    use cranelift_jit::JITModule;

    type Conv = fn(&mut FunctionBuilder, Value) -> Value;

    /// `fn(src, dst)`: one value of type `t` loaded from `src`, converted by `conv`, stored
    /// to `dst`, for each of `convs`.
    fn build(t: Type, convs: &[Conv]) -> (JITModule, Vec<Unary>) {
        unary_functions(t, &[], convs.len(), |i, _, b, x| convs[i](b, x))
    }

    /// Floats around every rounding position of every binade, and random ones.
    fn floats() -> Vec<u32> {
        let mut v = Vec::new();
        let mut s = 0x9e37_79b9u32;
        for e in 0u32..256 {
            let cut = (13 + 113u32.saturating_sub(e)).min(24);
            let mid = 1u32 << (cut - 1);
            for hi in 0u32..8 {
                for lo in [0, 1, mid - 1, mid, mid + 1, (mid << 1) - 1] {
                    let m = ((hi << cut) | lo) & 0x7f_ffff;
                    v.push((e << 23) | m);
                    v.push((1 << 31) | (e << 23) | m);
                }
            }
            for _ in 0..64 {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                v.push((e << 23) | (s & 0x807f_ffff));
            }
        }
        v
    }

    /// The four-lane forms against the one-lane forms and both against the helpers'
    /// conversions: every half widened, floats narrowed and rounded to half precision.
    #[test]
    fn four_lanes_match_one_lane_and_the_helpers() {
        let convs: [Conv; 3] = [half_to_f32_bits, f32_bits_to_half, round_to_half_bits];
        let (_j1, one) = build(types::I32, &convs);
        let (_j4, four) = build(types::I32X4, &convs);
        let run = |f: extern "C" fn(*const u8, *mut u8), x: &[u32]| -> Vec<u32> {
            let mut out = vec![0u32; x.len()];
            for (i, o) in x.chunks(4).zip(out.chunks_mut(4)) {
                f(i.as_ptr() as *const u8, o.as_mut_ptr() as *mut u8);
            }
            out
        };
        let one_by_one = |f: extern "C" fn(*const u8, *mut u8), x: &[u32]| -> Vec<u32> {
            x.iter()
                .map(|v| {
                    let mut o = 0u32;
                    f(v as *const u32 as *const u8, &mut o as *mut u32 as *mut u8);
                    o
                })
                .collect()
        };
        // The first input where `got` differs from `want`, not the whole vectors.
        let same = |what: &str, input: &[u32], got: Vec<u32>, want: &[u32]| {
            if let Some(i) = (0..input.len()).find(|&i| got[i] != want[i]) {
                panic!("{what}: {:#x} gives {:#x}, not {:#x}", input[i], got[i], want[i]);
            }
        };
        let halves: Vec<u32> = (0..=0xffff).collect();
        let wide: Vec<u32> = halves
            .iter()
            .map(|h| (f16_to_f64(*h as u16) as f32).to_bits())
            .collect();
        same("four lanes, half to f32", &halves, run(four[0], &halves), &wide);
        same("one lane, half to f32", &halves, one_by_one(one[0], &halves), &wide);
        let fs = floats();
        let narrow: Vec<u32> = fs
            .iter()
            .map(|x| u32::from(f64_to_f16(f64::from(f32::from_bits(*x)), RTE)))
            .collect();
        same("four lanes, f32 to half", &fs, run(four[1], &fs), &narrow);
        same("one lane, f32 to half", &fs, one_by_one(one[1], &fs), &narrow);
        let rounded: Vec<u32> = narrow.iter().map(|h| wide[*h as usize]).collect();
        same(
            "four lanes, f32 rounded to half precision",
            &fs,
            run(four[2], &fs),
            &rounded,
        );
        same(
            "one lane, f32 rounded to half precision",
            &fs,
            one_by_one(one[2], &fs),
            &rounded,
        );
    }

    fn rtz(b: &mut FunctionBuilder, x: Value) -> Value {
        to_half_in_mode(b, x, crate::codegen::helpers::RTZ)
    }
    fn rtp(b: &mut FunctionBuilder, x: Value) -> Value {
        to_half_in_mode(b, x, crate::codegen::helpers::RTP)
    }
    fn rtn(b: &mut FunctionBuilder, x: Value) -> Value {
        to_half_in_mode(b, x, crate::codegen::helpers::RTN)
    }

    /// The directed roundings to half, one lane and four lanes of f32 and one lane of f64,
    /// against the helpers' conversion.
    #[test]
    fn directed_roundings_match_the_helpers() {
        use crate::codegen::helpers::{RTN, RTP, RTZ};
        let convs: [Conv; 3] = [rtz, rtp, rtn];
        let modes = [RTZ, RTP, RTN];
        let (_j1, one) = build(types::I32, &convs);
        let (_j4, four) = build(types::I32X4, &convs);
        let (_j8, wide) = build(types::I64, &convs);
        let fs = floats();
        for (m, mode) in modes.iter().enumerate() {
            for chunk in fs.chunks(4) {
                let mut lanes = [0u32; 4];
                lanes[..chunk.len()].copy_from_slice(chunk);
                let mut out4 = [0u32; 4];
                four[m](lanes.as_ptr() as *const u8, out4.as_mut_ptr() as *mut u8);
                for (i, x) in lanes.iter().enumerate() {
                    let want = u32::from(f64_to_f16(f64::from(f32::from_bits(*x)), *mode));
                    let mut o = 0u32;
                    one[m](x as *const u32 as *const u8, &mut o as *mut u32 as *mut u8);
                    assert_eq!(o, want, "mode {mode}, one lane: {x:#x}");
                    assert_eq!(out4[i], want, "mode {mode}, four lanes: {x:#x}");
                }
            }
            // Doubles: the floats widened, and doubles around the half's rounding places
            // that no float reaches (bits below the float's last place).
            let mut ds: Vec<u64> = fs.iter().map(|x| f64::from(f32::from_bits(*x)).to_bits()).collect();
            for d in ds.clone() {
                ds.push(d ^ 1);
                ds.push(d | 1);
                ds.push(d.wrapping_sub(1));
            }
            ds.extend([1, 0x8000_0000_0000_0001, 0x7ff0_0000_0000_0001, 0xfff8_0000_0000_0000]);
            for d in ds {
                let want = u64::from(f64_to_f16(f64::from_bits(d), *mode));
                let mut o = 0u64;
                wide[m](&d as *const u64 as *const u8, &mut o as *mut u64 as *mut u8);
                assert_eq!(o, want, "mode {mode}, f64: {d:#x}");
            }
        }
    }
}
