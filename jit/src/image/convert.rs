//! The conversion rules of the OpenCL SPIR-V environment, section 7.4, both ways between the
//! bytes of one texel and the four components a kernel sees, with the channel mapping of
//! section 7.6.
//!
//! A texel travels as a `[u8; 16]` (the largest element, RGBA float, is 16 bytes); only the
//! first `Format::element_size` bytes matter. Native byte order: images live in host memory.

use super::format::{DataType, Format, Kind, ONE, PAD, ZERO};
use std::sync::OnceLock;

/// A texel's bytes (the first `element_size` of them are the texel).
pub type Texel = [u8; 16];

// ---- scalar conversions ------------------------------------------------------------------

/// floor(x) without a libm call (baseline x86-64 has no rounding instruction): exact for
/// every finite float; NaN stays NaN (a -0.0 argument gives +0.0).
#[inline]
pub fn floor_f32(x: f32) -> f32 {
    if x.abs() < 8_388_608.0 {
        // |x| < 2^23: the truncation is exact, then step down for negative fractions.
        let t = x as i32 as f32;
        if t > x {
            t - 1.0
        } else {
            t
        }
    } else {
        // Already an integer (or INF or NaN).
        x
    }
}

/// rint(x) (round to nearest, ties to even) without a libm call: adding and subtracting
/// 2^23 rounds in the default rounding mode, which Rust guarantees.
#[inline]
pub fn rint_f32(x: f32) -> f32 {
    if x.abs() < 8_388_608.0 {
        let m = 8_388_608.0f32.copysign(x);
        (x + m) - m
    } else {
        x
    }
}

/// rint for f64 (2^52).
#[inline]
fn rint_f64(x: f64) -> f64 {
    const M: f64 = 4_503_599_627_370_496.0;
    if x.abs() < M {
        let m = M.copysign(x);
        (x + m) - m
    } else {
        x
    }
}

/// Half bits to float: exact (7.4.2, "lossless").
#[inline]
pub fn half_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match exp {
        // Subnormal: man * 2^-24, exact in f32.
        0 => (man as f32 * (1.0 / 16_777_216.0)).to_bits(),
        0x1f => 0x7f80_0000 | (man << 13),
        _ => ((exp + 112) << 23) | (man << 13),
    };
    f32::from_bits(sign | bits)
}

/// Float to half bits with round to nearest even; NaN stays NaN (quiet), INF stays INF,
/// values beyond the half range become INF, half subnormals are kept (7.4.2).
pub fn f32_to_half(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return if man != 0 {
            sign | 0x7e00 | (man >> 13) as u16
        } else {
            sign | 0x7c00
        };
    }
    // Biased half exponent.
    let e = exp - 112;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // A half subnormal (or zero): value = m * 2^(exp-150) = h * 2^-24.
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32; // 14..=24
        let h = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let halfway = 1 << (shift - 1);
        let h = if rem > halfway || (rem == halfway && h & 1 == 1) {
            h + 1
        } else {
            h
        };
        return sign | h as u16;
    }
    let h = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    // A carry into the exponent is right, up to INF.
    let h = if rem > 0x1000 || (rem == 0x1000 && h & 1 == 1) {
        h + 1
    } else {
        h
    };
    sign | h as u16
}

/// Float to an unsigned normalized integer of maximum `max` (7.4.1): f(x) = max(0, min(max,
/// max × x)) rounded to nearest even. The product is exact in f64, so the rounding is the
/// preferred one exactly. NaN gives 0 (implementation-defined).
#[inline]
pub fn to_unorm(x: f32, max: u32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let m = max as f64;
    rint_f64((x as f64 * m).clamp(0.0, m)) as u32
}

/// Float to a signed normalized integer of maximum `max` (127 or 32767): f(x) =
/// max(-max-1, min(max, max × x)) rounded to nearest even (7.4.1). NaN gives 0.
#[inline]
pub fn to_snorm(x: f32, max: i32) -> i32 {
    if x.is_nan() {
        return 0;
    }
    let m = max as f64;
    rint_f64((x as f64 * m).clamp(-m - 1.0, m)) as i32
}

/// Unsigned normalized integer to float, round_to_float(x / max) (7.4.1): one correctly
/// rounded f32 division, which gives 0 and 1.0 exactly at the end points.
#[inline]
pub fn from_unorm(x: u32, max: u32) -> f32 {
    x as f32 / max as f32
}

/// Signed normalized integer to float, max(-1, round_to_float(x / max)) (7.4.1): both -128
/// and -127 (SNORM_INT8) read -1.0.
#[inline]
pub fn from_snorm(x: i32, max: i32) -> f32 {
    (x as f32 / max as f32).max(-1.0)
}

/// sRGB to linear, c_linear of 7.4.5, applied to the normalized value of an 8-bit channel.
fn srgb_to_linear_exact(x: u8) -> f32 {
    let r = from_unorm(x as u32, 255) as f64;
    let y = if r <= 0.04045 {
        r / 12.92
    } else {
        ((r + 0.055) / 1.055).powf(2.4)
    };
    y as f32
}

/// sRGB to linear for an 8-bit channel, from a table of the 256 values.
#[inline]
pub fn srgb_to_linear(x: u8) -> f32 {
    static TABLE: OnceLock<[f32; 256]> = OnceLock::new();
    let t = TABLE.get_or_init(|| std::array::from_fn(|i| srgb_to_linear_exact(i as u8)));
    t[x as usize]
}

/// c_sRGB of 7.4.5: linear to sRGB (NaN and negative values give 0, values above 1 give 1).
pub fn c_srgb(y: f64) -> f64 {
    if y.is_nan() || y < 0.0 {
        0.0
    } else if y < 0.0031308 {
        12.92 * y
    } else if y <= 1.0 {
        1.055 * y.powf(1.0 / 2.4) - 0.055
    } else {
        1.0
    }
}

/// Linear to an 8-bit sRGB value: c_sRGB, then to a normalized 8-bit integer rounded to
/// nearest (7.4.5). The result is the number of thresholds below `y`, where threshold k is
/// the linear value c_sRGB maps to (k + 0.5) / 255, so no pow is evaluated per write; away
/// from the (measure-zero) exact ties it is the rounding of 255 × c_sRGB(y).
pub fn linear_to_srgb(y: f32) -> u8 {
    static TABLE: OnceLock<[f64; 255]> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        std::array::from_fn(|k| {
            // c_linear, the inverse of c_sRGB.
            let r = (k as f64 + 0.5) / 255.0;
            if r <= 0.04045 {
                r / 12.92
            } else {
                ((r + 0.055) / 1.055).powf(2.4)
            }
        })
    });
    let y = y as f64;
    // NaN compares false everywhere: 0.
    t.partition_point(|&th| th < y) as u8
}

// ---- raw channel access ------------------------------------------------------------------

#[inline]
fn u16_at(t: &Texel, i: usize) -> u16 {
    u16::from_ne_bytes([t[2 * i], t[2 * i + 1]])
}

#[inline]
fn u32_at(t: &Texel, i: usize) -> u32 {
    u32::from_ne_bytes([t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]])
}

#[inline]
fn put_u16(t: &mut Texel, i: usize, v: u16) {
    t[2 * i..2 * i + 2].copy_from_slice(&v.to_ne_bytes());
}

#[inline]
fn put_u32(t: &mut Texel, i: usize, v: u32) {
    t[4 * i..4 * i + 4].copy_from_slice(&v.to_ne_bytes());
}

/// Applies the 7.6 mapping: component c of the result is stored channel `comp[c]`, or 0 /
/// `one` for `ZERO` / `ONE`.
#[inline(always)]
fn map<T: Copy>(raw: [T; 4], comp: [u8; 4], zero: T, one: T) -> [T; 4] {
    comp.map(|k| match k {
        ZERO => zero,
        ONE => one,
        k => raw[(k & 3) as usize],
    })
}

/// The stored channels of a texel as floats, memory order, for the normalized, half and
/// float types (integer types give their value as a float: undefined for read_imagef).
#[inline(always)]
fn raw_float(f: Format, t: &Texel) -> [f32; 4] {
    let n = f.stored_channels().min(4);
    let mut raw = [0.0f32; 4];
    match f.data_type {
        DataType::UnormInt8 => {
            if f.order.is_srgb() {
                // 7.4.5: sRGB to linear before filtering; alpha (channel 3) is linear.
                for (i, r) in raw.iter_mut().enumerate().take(n) {
                    *r = if i < 3 {
                        srgb_to_linear(t[i])
                    } else {
                        from_unorm(t[i] as u32, 255)
                    };
                }
            } else {
                per_channel(&mut raw, n, |i| from_unorm(t[i] as u32, 255));
            }
        }
        DataType::SnormInt8 => {
            per_channel(&mut raw, n, |i| from_snorm(t[i] as i8 as i32, 127));
        }
        DataType::UnormInt16 => {
            per_channel(&mut raw, n, |i| from_unorm(u16_at(t, i) as u32, 65535));
        }
        DataType::SnormInt16 => {
            per_channel(&mut raw, n, |i| from_snorm(u16_at(t, i) as i16 as i32, 32767));
        }
        DataType::HalfFloat => {
            per_channel(&mut raw, n, |i| half_to_f32(u16_at(t, i)));
        }
        DataType::Float => {
            per_channel(&mut raw, n, |i| f32::from_bits(u32_at(t, i)));
        }
        DataType::UnormShort565 => {
            let v = u16_at(t, 0) as u32;
            raw = [
                from_unorm(v >> 11 & 31, 31),
                from_unorm(v >> 5 & 63, 63),
                from_unorm(v & 31, 31),
                0.0,
            ];
        }
        DataType::UnormShort555 => {
            let v = u16_at(t, 0) as u32;
            raw = [
                from_unorm(v >> 10 & 31, 31),
                from_unorm(v >> 5 & 31, 31),
                from_unorm(v & 31, 31),
                0.0,
            ];
        }
        DataType::UnormInt101010 => {
            let v = u32_at(t, 0);
            raw = [
                from_unorm(v >> 20 & 1023, 1023),
                from_unorm(v >> 10 & 1023, 1023),
                from_unorm(v & 1023, 1023),
                0.0,
            ];
        }
        DataType::UnormInt101010_2 => {
            let v = u32_at(t, 0);
            raw = [
                from_unorm(v >> 22 & 1023, 1023),
                from_unorm(v >> 12 & 1023, 1023),
                from_unorm(v >> 2 & 1023, 1023),
                from_unorm(v & 3, 3),
            ];
        }
        DataType::SignedInt8
        | DataType::SignedInt16
        | DataType::SignedInt32
        | DataType::UnsignedInt8
        | DataType::UnsignedInt16
        | DataType::UnsignedInt32 => {
            let r = raw_int(f, t);
            let signed = f.data_type.kind() == Kind::Int;
            for (o, v) in raw.iter_mut().zip(r) {
                *o = if signed { v as f32 } else { v as u32 as f32 };
            }
        }
    }
    raw
}

/// Sets the first `n` channels of `raw` to `value(channel)`.
#[inline(always)]
fn per_channel<T>(raw: &mut [T; 4], n: usize, value: impl Fn(usize) -> T) {
    for (i, r) in raw.iter_mut().enumerate().take(n) {
        *r = value(i);
    }
}

/// The stored channels as 32-bit integers (raw bits: sign-extended for signed types,
/// zero-extended for unsigned ones), memory order (7.4.4: reads return the stored values
/// unmodified). Float types give the bits of their float value (undefined for
/// read_imagei/ui).
#[inline(always)]
fn raw_int(f: Format, t: &Texel) -> [i32; 4] {
    let n = f.stored_channels().min(4);
    let mut raw = [0i32; 4];
    match f.data_type {
        DataType::SignedInt8 => {
            per_channel(&mut raw, n, |i| t[i] as i8 as i32);
        }
        DataType::UnsignedInt8 => {
            per_channel(&mut raw, n, |i| t[i] as i32);
        }
        DataType::SignedInt16 => {
            per_channel(&mut raw, n, |i| u16_at(t, i) as i16 as i32);
        }
        DataType::UnsignedInt16 => {
            per_channel(&mut raw, n, |i| u16_at(t, i) as i32);
        }
        DataType::SignedInt32 | DataType::UnsignedInt32 => {
            per_channel(&mut raw, n, |i| u32_at(t, i) as i32);
        }
        _ => raw = raw_float(f, t).map(|x| x.to_bits() as i32),
    }
    raw
}

// ---- texel <-> components ----------------------------------------------------------------

/// What read_imagef (and read_imageh) returns for a texel: 7.4.1-7.4.3 and 7.4.5
/// conversions, then the 7.6 channel mapping.
#[inline(always)]
pub fn decode_float(f: Format, t: &Texel) -> [f32; 4] {
    map(raw_float(f, t), f.components(), 0.0, 1.0)
}

/// What read_imagei / read_imageui return for a texel, as raw i32 bits (7.4.4, 7.6; a
/// missing alpha reads integer 1).
#[inline(always)]
pub fn decode_int(f: Format, t: &Texel) -> [i32; 4] {
    map(raw_int(f, t), f.components(), 0, 1)
}

/// The components each stored channel takes on a write, memory order (`PAD` gives 0).
#[inline]
fn gather<T: Copy>(v: [T; 4], sources: [u8; 4], zero: T) -> [T; 4] {
    sources.map(|k| if k == PAD { zero } else { v[(k & 3) as usize] })
}

/// The texel write_imagef (and write_imageh) stores for `v` (7.4.1-7.4.3, 7.4.5): round to
/// nearest even with the exact end points for normalized types, linear to sRGB for the
/// colour channels of sRGB orders. Integer formats (undefined for write_imagef) store the
/// values converted to integers with saturation.
#[inline]
pub fn encode_float(f: Format, v: [f32; 4]) -> Texel {
    let mut t = [0u8; 16];
    let n = f.stored_channels().min(4);
    let c = gather(v, f.sources(), 0.0);
    match f.data_type {
        DataType::UnormInt8 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                t[i] = if f.order.is_srgb() && i < 3 {
                    linear_to_srgb(x)
                } else {
                    to_unorm(x, 255) as u8
                };
            }
        }
        DataType::SnormInt8 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                t[i] = to_snorm(x, 127) as i8 as u8;
            }
        }
        DataType::UnormInt16 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u16(&mut t, i, to_unorm(x, 65535) as u16);
            }
        }
        DataType::SnormInt16 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u16(&mut t, i, to_snorm(x, 32767) as i16 as u16);
            }
        }
        DataType::HalfFloat => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u16(&mut t, i, f32_to_half(x));
            }
        }
        DataType::Float => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u32(&mut t, i, x.to_bits());
            }
        }
        DataType::UnormShort565 => {
            let v = to_unorm(c[0], 31) << 11 | to_unorm(c[1], 63) << 5 | to_unorm(c[2], 31);
            put_u16(&mut t, 0, v as u16);
        }
        DataType::UnormShort555 => {
            // Bit 15 is undefined; it is written 0.
            let v = to_unorm(c[0], 31) << 10 | to_unorm(c[1], 31) << 5 | to_unorm(c[2], 31);
            put_u16(&mut t, 0, v as u16);
        }
        DataType::UnormInt101010 => {
            // Bits 31:30 are undefined; they are written 0.
            let v = to_unorm(c[0], 1023) << 20 | to_unorm(c[1], 1023) << 10 | to_unorm(c[2], 1023);
            put_u32(&mut t, 0, v);
        }
        DataType::UnormInt101010_2 => {
            let v =
                to_unorm(c[0], 1023) << 22 | to_unorm(c[1], 1023) << 12 | to_unorm(c[2], 1023) << 2 | to_unorm(c[3], 3);
            put_u32(&mut t, 0, v);
        }
        DataType::SignedInt8
        | DataType::SignedInt16
        | DataType::SignedInt32
        | DataType::UnsignedInt8
        | DataType::UnsignedInt16
        | DataType::UnsignedInt32 => {
            let ints = if f.data_type.kind() == Kind::Int {
                v.map(|x| x as i32)
            } else {
                v.map(|x| x as u32 as i32)
            };
            return encode_int(f, ints);
        }
    }
    t
}

/// The texel write_imagei / write_imageui stores for `v` (raw i32 bits; the format's data
/// type decides signed or unsigned), saturated as 7.4.4 says. Float formats (undefined for
/// these writes) store the values converted to float.
#[inline]
pub fn encode_int(f: Format, v: [i32; 4]) -> Texel {
    let mut t = [0u8; 16];
    let n = f.stored_channels().min(4);
    let c = gather(v, f.sources(), 0);
    match f.data_type {
        DataType::SignedInt8 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                t[i] = x.clamp(-128, 127) as i8 as u8;
            }
        }
        DataType::SignedInt16 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u16(&mut t, i, x.clamp(-32768, 32767) as i16 as u16);
            }
        }
        DataType::UnsignedInt8 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                t[i] = (x as u32).min(255) as u8;
            }
        }
        DataType::UnsignedInt16 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u16(&mut t, i, (x as u32).min(65535) as u16);
            }
        }
        DataType::SignedInt32 | DataType::UnsignedInt32 => {
            for (i, &x) in c.iter().enumerate().take(n) {
                put_u32(&mut t, i, x as u32);
            }
        }
        _ => return encode_float(f, v.map(|x| x as f32)),
    }
    t
}

/// The bytes of one texel of the format `(order, data_type)` filled with `color`, for
/// clEnqueueFillImage: `color` holds a float4 for normalized, half and float formats, an
/// int4 for signed and a uint4 for unsigned integer formats (native byte order), converted
/// by the write rules of 7.4 (sRGB encoding included). `None` for an unsupported format.
pub fn fill_texel(order: u32, data_type: u32, color: &[u8; 16]) -> Option<Vec<u8>> {
    let f = Format::new(order, data_type)?;
    let word = |i: usize| u32::from_ne_bytes([color[4 * i], color[4 * i + 1], color[4 * i + 2], color[4 * i + 3]]);
    let words: [u32; 4] = std::array::from_fn(word);
    let t = match f.data_type.kind() {
        Kind::Float => encode_float(f, words.map(f32::from_bits)),
        Kind::Int | Kind::UInt => encode_int(f, words.map(|w| w as i32)),
    };
    Some(t[..f.element_size()].to_vec())
}
