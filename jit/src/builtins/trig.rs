//! `sin`, `cos`, `tan` and `sincos` of large arguments: the reduction modulo pi/2 with the
//! whole of 2/pi that a float or a double can reach (Payne and Hanek), then the `libm`
//! crate's functions on the reduced argument, where they need no reduction of their own.
//!
//! A float is M * 2^E with an integer M of 24 bits (a double: 53), so x * 2/pi modulo 4 only
//! needs the bits of 2/pi that start just above 2^-E: 128 of them for a float (one wrapping
//! 128-bit multiply), 192 for a double (three 64-bit multiplies). That gives the quadrant and
//! a fraction of 126 (190) bits, with no loop and no dependence on the exponent's size. The
//! `libm` crate's general reduction (`rem_pio2_large`) is correct too, but slow: for floats
//! and doubles beyond 2^20, half of all floats and most doubles, it cost more than the rest
//! of the function.

/// The fractional bits of 2/pi, most significant first, after one zero word: bit j of the
/// fraction (weight 2^-j) is bit `j + 63` of the table counted from the top. 1216 bits reach
/// past the largest double's exponent by the 192 bits its reduction reads.
const TWO_OVER_PI: [u64; 21] = [
    0,
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
    0xB724_6E3A_424D_D2E0,
    0x0649_2EEA_09D1_921C,
    0xFE1D_EB1C_B129_A73E,
    0xE882_35F5_2EBB_4484,
    0xE99C_7026_B45F_7E41,
    0x3991_D639_8353_39F4,
    0x9C84_5F8B_BDF9_283B,
    0x1FF8_97FF_DE05_980F,
    0xEF2F_118B_5A0A_6D1F,
    0x6D36_7ECF_27CB_09B7,
    0x4F46_3F66_9E5F_EA2D,
    0x7527_BAC7_EBE5_F17B,
    0x3D07_39F7_8A52_92EA,
    0x6BFB_5FB1_1F8D_5D08,
    0x5603_3046_FC7B_6BAB,
    0xF0CF_BC20_9AF4_361D,
];

/// 64 bits of [`TWO_OVER_PI`] from bit `p` (counted from the top of the table).
fn bits_at(p: usize) -> u64 {
    let (w, s) = (p / 64, p % 64);
    let two = (TWO_OVER_PI[w] as u128) << 64 | TWO_OVER_PI[w + 1] as u128;
    ((two << s) >> 64) as u64
}

/// The quarter turns `t` (a fraction of 2^-128 units, signed: a fraction of one half or more
/// is the next quadrant's negative one) as radians.
fn radians(t: i128) -> f64 {
    t as f64 * f64::powi(2.0, -128) * std::f64::consts::FRAC_PI_2
}

/// [`radians`] as a head and a tail (pi/2 in two parts, the product's rounding error by a
/// fused multiply-add): a double's reduced argument needs more than a double's bits.
fn radians2(t: i128) -> (f64, f64) {
    const PIO2_LO: f64 = 6.123_233_995_736_766e-17;
    let scale = f64::powi(2.0, -128);
    let th = t as f64;
    let tl = t.wrapping_sub(th as i128) as f64;
    let (th, tl) = (th * scale, tl * scale);
    let hi = th * std::f64::consts::FRAC_PI_2;
    let err = th.mul_add(std::f64::consts::FRAC_PI_2, -hi);
    let lo = err + th * PIO2_LO + tl * std::f64::consts::FRAC_PI_2;
    let r = hi + lo;
    (r, lo - (r - hi))
}

/// `(r, q)` with `|x| = q * pi/2 + r` (q modulo 4, `|r| <= pi/4`) for a finite float of at
/// least pi/4 in magnitude (`abs_bits`: its bits without the sign).
fn rem_pio2_f32(abs_bits: u32) -> (f64, u32) {
    let m = (abs_bits & 0x7f_ffff) | 0x80_0000;
    // |x| = m * 2^e; the bits of 2/pi above weight 2^(1-e) give multiples of 4.
    let e = (abs_bits >> 23) as i64 - 150;
    let p = (e + 62) as usize;
    let window = (bits_at(p) as u128) << 64 | bits_at(p + 64) as u128;
    // prod / 2^126 is |x| * 2/pi modulo 4.
    let prod = window.wrapping_mul(m as u128);
    let frac = (prod << 2) as i128;
    let q = ((prod >> 126) as u32).wrapping_add((frac < 0) as u32);
    (radians(frac), q & 3)
}

/// [`rem_pio2_f32`] for a finite double of at least pi/4 in magnitude, `r` as a head and a
/// tail.
fn rem_pio2_f64(abs_bits: u64) -> ((f64, f64), u32) {
    let m = (abs_bits & ((1 << 52) - 1)) | 1 << 52;
    let e = (abs_bits >> 52) as i64 - 1075;
    let p = (e + 62) as usize;
    let (w2, w1, w0) = (bits_at(p), bits_at(p + 64), bits_at(p + 128));
    // (r2, r1, r0) = m * window modulo 2^192; divided by 2^190, |x| * 2/pi modulo 4.
    let p0 = m as u128 * w0 as u128;
    let p1 = m as u128 * w1 as u128 + (p0 >> 64);
    let (r0, r1) = (p0 as u64, p1 as u64);
    let r2 = m.wrapping_mul(w2).wrapping_add((p1 >> 64) as u64);
    // The fraction's top 128 bits: the double nearest a multiple of pi/2 is about 2^-62
    // quarter turns away from it, so 128 bits keep more than the 53 a double holds.
    let frac = (((r2 as u128) << 64 | r1 as u128) << 2 | (r0 >> 62) as u128) as i128;
    let q = ((r2 >> 62) as u32).wrapping_add((frac < 0) as u32);
    (radians2(frac), q & 3)
}

/// `(r, q)` for a finite float: `x = q * pi/2 + r` modulo 2 pi.
fn reduce_f32(x: f32) -> (f64, u32) {
    let bits = x.to_bits() & 0x7fff_ffff;
    if f32::from_bits(bits) <= std::f32::consts::FRAC_PI_4 {
        return (x as f64, 0);
    }
    signed(x < 0.0, rem_pio2_f32(bits))
}

/// The reduction of `-|x|` from that of `|x|`.
fn signed(negative: bool, (r, q): (f64, u32)) -> (f64, u32) {
    if negative {
        (-r, q.wrapping_neg() & 3)
    } else {
        (r, q)
    }
}

/// Below this magnitude `libm`'s own reduction of a double is fast (its Cody-Waite steps).
const LIBM_FAST: f64 = 1_048_576.0;

fn sin_q((r, q): (f64, u32)) -> f64 {
    match q {
        0 => libm::sin(r),
        1 => libm::cos(r),
        2 => -libm::sin(r),
        _ => -libm::cos(r),
    }
}

fn cos_q((r, q): (f64, u32)) -> f64 {
    match q {
        0 => libm::cos(r),
        1 => -libm::sin(r),
        2 => -libm::cos(r),
        _ => libm::sin(r),
    }
}

fn tan_q((r, q): (f64, u32)) -> f64 {
    let t = libm::tan(r);
    if q & 1 == 0 {
        t
    } else {
        -1.0 / t
    }
}

/// sin and cos of `q * pi/2 + r` from those of `r`.
fn turn((s, c): (f64, f64), q: u32) -> (f64, f64) {
    match q {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

fn sincos_q((r, q): (f64, u32)) -> (f64, f64) {
    turn((libm::sin(r), libm::cos(r)), q)
}

// Infinities and NaN give NaN (the quiet NaN the spec allows: OpenCL does not propagate NaN
// payloads).

pub(crate) fn sin_f32(x: f32) -> f64 {
    if x.is_finite() {
        sin_q(reduce_f32(x))
    } else {
        f64::NAN
    }
}

pub(crate) fn cos_f32(x: f32) -> f64 {
    if x.is_finite() {
        cos_q(reduce_f32(x))
    } else {
        f64::NAN
    }
}

pub(crate) fn tan_f32(x: f32) -> f64 {
    if x.is_finite() {
        tan_q(reduce_f32(x))
    } else {
        f64::NAN
    }
}

/// sin(x) and cos(x), each within a few f64 ulps.
pub(crate) fn sincos_f32(x: f32) -> (f64, f64) {
    if x.is_finite() {
        sincos_q(reduce_f32(x))
    } else {
        (f64::NAN, f64::NAN)
    }
}

/// sin and cos of a finite double of at least [`LIBM_FAST`] in magnitude: of the reduced
/// argument's head, corrected by its tail to first order (the tail is below 2^-53 of the
/// head, so the second-order term is far below a double's precision).
fn sincos_large(x: f64) -> (f64, f64) {
    let ((r, lo), q) = rem_pio2_f64(x.to_bits() & !(1 << 63));
    let (s, c) = libm::sincos(r);
    let (s, c) = turn((c.mul_add(lo, s), (-s).mul_add(lo, c)), q);
    if x < 0.0 {
        (-s, c)
    } else {
        (s, c)
    }
}

pub(crate) fn sin_f64(x: f64) -> f64 {
    if x.abs() < LIBM_FAST || !x.is_finite() {
        libm::sin(x)
    } else {
        sincos_large(x).0
    }
}

pub(crate) fn cos_f64(x: f64) -> f64 {
    if x.abs() < LIBM_FAST || !x.is_finite() {
        libm::cos(x)
    } else {
        sincos_large(x).1
    }
}

pub(crate) fn tan_f64(x: f64) -> f64 {
    if x.abs() < LIBM_FAST || !x.is_finite() {
        libm::tan(x)
    } else {
        let ((r, lo), q) = rem_pio2_f64(x.to_bits() & !(1 << 63));
        let t = libm::tan(r);
        // tan' = 1 + tan^2.
        let t = t.mul_add(t, 1.0).mul_add(lo, t);
        let t = if q & 1 == 0 { t } else { -1.0 / t };
        if x < 0.0 {
            -t
        } else {
            t
        }
    }
}

pub(crate) fn sincos_f64(x: f64) -> (f64, f64) {
    if x.abs() < LIBM_FAST || !x.is_finite() {
        libm::sincos(x)
    } else {
        sincos_large(x)
    }
}

#[cfg(test)]
mod tests;
