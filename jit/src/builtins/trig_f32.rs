//! `sin`, `cos`, `tan` and `sincos` of single-precision arguments, evaluated in f64.
//!
//! The argument is reduced modulo pi/2 with the whole of 2/pi that a float can reach
//! (Payne-Hanek): a float is M * 2^E with a 24-bit integer M, so x * 2/pi modulo 4 only
//! needs the 128 bits of 2/pi that start just above 2^-E. One wrapping 128-bit multiply
//! gives the quadrant and a 126-bit fraction; no loop, no dependence on the exponent's
//! size. The `libm` crate's f64 reduction of a converted float is correct too, but far
//! slower for large arguments, which are half of all floats.

/// The fractional bits of 2/pi, most significant first, after one zero word. Bit j of
/// the fraction (weight 2^-j) is bit `j + 31` of this table counted from the top.
const TWO_OVER_PI: [u32; 9] = [
    0x0000_0000,
    0xA2F9_836E,
    0x4E44_1529,
    0xFC27_57D1,
    0xF534_DDC0,
    0xDB62_9599,
    0x3C43_9041,
    0xFE51_63AB,
    0xDEBB_C561,
];

/// 128 bits of [`TWO_OVER_PI`] from bit `p` (counted from the top of the table).
fn window(p: usize) -> u128 {
    let (w, s) = (p / 32, p % 32);
    let t = &TWO_OVER_PI;
    let a = (t[w] as u128) << 96 | (t[w + 1] as u128) << 64 | (t[w + 2] as u128) << 32 | t[w + 3] as u128;
    let b = ((t[w + 4] as u64) << s) >> 32;
    (a << s) | b as u128
}

/// Reduces a finite `|x|` (at least pi/4, as bits) to `(r, q)` with `|x| = q * pi/2 + r`,
/// `|r| <= pi/4` and `q` taken modulo 4.
fn rem_pio2(abs_bits: u32) -> (f64, u32) {
    let biased = (abs_bits >> 23) as i32;
    let m = (abs_bits & 0x7f_ffff) | 0x80_0000;
    // |x| = m * 2^e; bits of 2/pi above weight 2^(1-e) give multiples of 4.
    let e = biased - 150;
    let p = (e + 30) as usize;
    let prod = window(p).wrapping_mul(m as u128);
    // prod / 2^126 is |x| * 2/pi modulo 4.
    let mut q = (prod >> 126) as u32;
    let frac = prod << 2;
    let hi = (frac >> 64) as u64 as i64;
    let lo = frac as u64;
    if hi < 0 {
        // The fraction is at least one half: round to the next quadrant.
        q = q.wrapping_add(1);
    }
    let turns = hi as f64 * f64::powi(2.0, -64) + lo as f64 * f64::powi(2.0, -128);
    (turns * std::f64::consts::FRAC_PI_2, q & 3)
}

/// `(r, q)` for any finite float: `x = q * pi/2 + r` modulo 2 pi.
fn reduce(x: f32) -> (f64, u32) {
    let bits = x.to_bits() & 0x7fff_ffff;
    if f32::from_bits(bits) <= std::f32::consts::FRAC_PI_4 {
        return (x as f64, 0);
    }
    let (r, q) = rem_pio2(bits);
    if x < 0.0 {
        (-r, q.wrapping_neg() & 3)
    } else {
        (r, q)
    }
}

/// sin(x) and cos(x), each within a few f64 ulps; NaN for infinities and NaN (the
/// quiet NaN the spec allows: OpenCL does not propagate NaN payloads).
pub(crate) fn sincos(x: f32) -> (f64, f64) {
    if !x.is_finite() {
        let nan = f64::NAN;
        return (nan, nan);
    }
    let (r, q) = reduce(x);
    let (s, c) = (libm::sin(r), libm::cos(r));
    match q {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

pub(crate) fn sin(x: f32) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (r, q) = reduce(x);
    match q {
        0 => libm::sin(r),
        1 => libm::cos(r),
        2 => -libm::sin(r),
        _ => -libm::cos(r),
    }
}

pub(crate) fn cos(x: f32) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (r, q) = reduce(x);
    match q {
        0 => libm::cos(r),
        1 => -libm::sin(r),
        2 => -libm::cos(r),
        _ => libm::sin(r),
    }
}

pub(crate) fn tan(x: f32) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (r, q) = reduce(x);
    let t = libm::tan(r);
    if q & 1 == 0 {
        t
    } else {
        -1.0 / t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance of `got` from `want` in units of 2^-48 of `want` (or of 2^-150 near 0).
    fn close(got: f64, want: f64) -> bool {
        if want.is_nan() {
            return got.is_nan();
        }
        (got - want).abs() <= want.abs().max(1e-45) * f64::powi(2.0, -48)
    }

    fn check_range(bits: impl Iterator<Item = u32>) {
        for b in bits {
            for x in [f32::from_bits(b), -f32::from_bits(b)] {
                let xd = x as f64;
                let (s, c) = sincos(x);
                let want = (libm::sin(xd), libm::cos(xd), libm::tan(xd));
                assert!(close(s, want.0), "sin({x:e}) = {s:e}, libm {:e}", want.0);
                assert!(close(c, want.1), "cos({x:e}) = {c:e}, libm {:e}", want.1);
                assert!(close(sin(x), want.0) && close(cos(x), want.1));
                let t = tan(x);
                assert!(close(t, want.2), "tan({x:e}) = {t:e}, libm {:e}", want.2);
            }
        }
    }

    /// Against the `libm` crate's own f64 reduction (a different table of 2/pi) on every
    /// exponent, so every bit of [`TWO_OVER_PI`] a float can reach is checked.
    #[test]
    fn matches_f64_reduction_on_samples() {
        check_range((0x3f00_0000u32..0x7f80_0000).step_by(997));
        check_range([0x7f7f_ffff, 0x4b00_0000, 0x3f49_0fdb, 0x3f49_0fdc].into_iter());
        assert!(sin(f32::INFINITY).is_nan() && cos(f32::NAN).is_nan());
        assert!(tan(f32::NEG_INFINITY).is_nan());
    }

    /// sin of every positive float from 0.5 up against `libm`'s reduction: the reduction
    /// and the table are shared by all four functions, their quadrants are checked above.
    #[test]
    #[ignore = "every float from 0.5 up: minutes in release mode"]
    fn matches_f64_reduction_on_every_float() {
        let (start, end) = (0x3f00_0000u32, 0x7f80_0000u32);
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u32;
        let chunk = (end - start).div_ceil(threads);
        std::thread::scope(|scope| {
            for t in 0..threads {
                let lo = start + t * chunk;
                let hi = (lo + chunk).min(end);
                scope.spawn(move || {
                    for b in lo..hi {
                        let x = f32::from_bits(b);
                        let (got, want) = (sin(x), libm::sin(x as f64));
                        assert!(close(got, want), "sin({x:e}) = {got:e}, libm {want:e}");
                    }
                });
            }
        });
    }
}
