//! Shared f64 kernels for the functions that need more than a call into `libm`:
//! the `pi` family with exact argument reduction, `exp10`, `rootn`, `powr` and the
//! exact-result helpers. The f32 entry points call these in f64 and round once; the
//! f64 entry points call them directly.

/// pi = PI_HI + PI_LO to about 107 bits.
pub(crate) const PI_HI: f64 = f64::from_bits(0x4009_21FB_5444_2D18);
pub(crate) const PI_LO: f64 = f64::from_bits(0x3CA1_A626_3314_5C07);
/// 1/pi = INV_PI_HI + INV_PI_LO to about 107 bits.
pub(crate) const INV_PI_HI: f64 = f64::from_bits(0x3FD4_5F30_6DC9_C883);
pub(crate) const INV_PI_LO: f64 = f64::from_bits(0xBC76_B01E_C541_7056);
/// ln(10) = LN10_HI + LN10_LO to about 107 bits.
pub(crate) const LN10_HI: f64 = f64::from_bits(0x4002_6BB1_BBB5_5516);
pub(crate) const LN10_LO: f64 = f64::from_bits(0xBCAF_48AD_494E_A3E9);

const TWO52: f64 = 4_503_599_627_370_496.0;

/// `r * pi` as an unevaluated sum `hi + lo`.
#[inline]
fn mul_pi(r: f64) -> (f64, f64) {
    let hi = r * PI_HI;
    let lo = r.mul_add(PI_HI, -hi) + r * PI_LO;
    (hi, lo)
}

/// sin(pi * r) for |r| <= 0.25.
#[inline]
fn sin_pi_small(r: f64) -> f64 {
    let (hi, lo) = mul_pi(r);
    let (s, c) = libm::sincos(hi);
    s + lo * c
}

/// cos(pi * r) for |r| <= 0.25.
#[inline]
fn cos_pi_small(r: f64) -> f64 {
    let (hi, lo) = mul_pi(r);
    let (s, c) = libm::sincos(hi);
    c - lo * s
}

/// tan(pi * r) for |r| <= 0.25.
#[inline]
fn tan_pi_small(r: f64) -> f64 {
    let (hi, lo) = mul_pi(r);
    let t = libm::tan(hi);
    t + lo * (1.0 + t * t)
}

/// Multiplies `a` by 1/pi with the constant in double-double.
#[inline]
pub(crate) fn mul_inv_pi(a: f64) -> f64 {
    if a == 0.0 {
        return a; // keep the sign of zero
    }
    a.mul_add(INV_PI_HI, a * INV_PI_LO)
}

/// acosh with an explicit domain check (`libm::acosh` returns garbage for some x < -1).
pub(crate) fn acosh(x: f64) -> f64 {
    if x < 1.0 {
        return f64::NAN;
    }
    libm::acosh(x)
}

/// Splits |x| (finite) into (r, odd) with |x| = 2k + r, r in [0, 2) exactly; or for tanpi,
/// |x| = k + r with r in [0, 1) and `odd` the parity of k.
#[inline]
fn reduce2(ax: f64) -> f64 {
    if ax >= 2.0 * TWO52 {
        0.0 // every such double is an even integer
    } else {
        ax - 2.0 * (ax * 0.5).floor()
    }
}

pub(crate) fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = reduce2(x.abs());
    let mut neg = false;
    if r >= 1.0 {
        r -= 1.0;
        neg = true;
    }
    if r > 0.5 {
        r = 1.0 - r;
    }
    let v = if r <= 0.25 {
        sin_pi_small(r)
    } else {
        cos_pi_small(0.5 - r)
    };
    if v == 0.0 {
        // sinpi(+n) = +0, sinpi(-n) = -0, sinpi(+-0) = +-0
        return 0.0f64.copysign(x);
    }
    let v = if neg { -v } else { v };
    if x < 0.0 {
        -v
    } else {
        v
    }
}

pub(crate) fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = reduce2(x.abs());
    if r > 1.0 {
        r = 2.0 - r;
    }
    let mut neg = false;
    if r > 0.5 {
        r = 1.0 - r;
        neg = true;
    }
    let v = if r <= 0.25 {
        cos_pi_small(r)
    } else {
        sin_pi_small(0.5 - r)
    };
    if v == 0.0 {
        return 0.0; // cospi(n + 0.5) = +0
    }
    if neg {
        -v
    } else {
        v
    }
}

pub(crate) fn tanpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let ax = x.abs();
    let (r, odd) = if ax >= 2.0 * TWO52 {
        (0.0, false)
    } else {
        let k = ax.floor();
        (ax - k, (k as u64) & 1 == 1)
    };
    // tan(pi * ax) for ax = k + r
    let v = if r == 0.0 {
        if odd {
            -0.0
        } else {
            0.0
        }
    } else if r == 0.5 {
        if odd {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }
    } else if r < 0.25 {
        tan_pi_small(r)
    } else if r <= 0.5 {
        1.0 / tan_pi_small(0.5 - r)
    } else if r <= 0.75 {
        -1.0 / tan_pi_small(r - 0.5)
    } else {
        -tan_pi_small(1.0 - r)
    };
    if x.is_sign_negative() {
        -v
    } else {
        v
    }
}

pub(crate) fn asinpi(x: f64) -> f64 {
    if x.abs() == 1.0 {
        return 0.5f64.copysign(x);
    }
    mul_inv_pi(libm::asin(x))
}

pub(crate) fn acospi(x: f64) -> f64 {
    if x == 1.0 {
        return 0.0;
    }
    if x == -1.0 {
        return 1.0;
    }
    mul_inv_pi(libm::acos(x))
}

pub(crate) fn atanpi(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.5f64.copysign(x);
    }
    mul_inv_pi(libm::atan(x))
}

pub(crate) fn atan2pi(y: f64, x: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if y == 0.0 {
        return if x.is_sign_negative() {
            1.0f64.copysign(y)
        } else {
            0.0f64.copysign(y)
        };
    }
    if y.is_infinite() {
        return if x.is_infinite() {
            (if x < 0.0 { 0.75f64 } else { 0.25 }).copysign(y)
        } else {
            0.5f64.copysign(y)
        };
    }
    if x == 0.0 {
        return 0.5f64.copysign(y);
    }
    if x.is_infinite() {
        return if x < 0.0 {
            1.0f64.copysign(y)
        } else {
            0.0f64.copysign(y)
        };
    }
    mul_inv_pi(libm::atan2(y, x))
}

/// 10^x for |x| <= 300, before the final scaling: exp(x ln10) with the product in
/// double-double.
#[inline]
fn exp10_core(x: f64) -> f64 {
    let hi = x * LN10_HI;
    let lo = x.mul_add(LN10_HI, -hi) + x * LN10_LO;
    let e = libm::exp(hi);
    e + e * lo
}

pub(crate) fn exp10(x: f64) -> f64 {
    if x.is_nan() {
        return x + x;
    }
    if x > 310.0 {
        return f64::INFINITY;
    }
    if x < -330.0 {
        return 0.0;
    }
    if x == x.trunc() && x.abs() <= 22.0 {
        let mut p = 1.0f64;
        for _ in 0..(x.abs() as i32) {
            p *= 10.0; // exact up to 1e22
        }
        return if x < 0.0 { 1.0 / p } else { p };
    }
    if x > 300.0 {
        exp10_core(x - 20.0) * 1e20
    } else if x < -300.0 {
        exp10_core(x + 20.0) / 1e20
    } else {
        exp10_core(x)
    }
}

/// rootn edge cases; returns Err(result) when `x` or `n` is special, Ok(()) otherwise.
#[inline]
pub(crate) fn rootn_special(x: f64, n: i32) -> Result<(), f64> {
    if n == 0 || x.is_nan() {
        return Err(f64::NAN);
    }
    let odd = n & 1 != 0;
    if x < 0.0 && !odd {
        return Err(f64::NAN);
    }
    if x == 0.0 {
        return Err(if n < 0 {
            if odd {
                f64::INFINITY.copysign(x)
            } else {
                f64::INFINITY
            }
        } else if odd {
            x
        } else {
            0.0
        });
    }
    if x.is_infinite() {
        return Err(if n > 0 { x } else { 0.0f64.copysign(x) });
    }
    Ok(())
}

/// rootn for f64 with |ln(z) / n| kept below ln 2 so that rounding 1/n costs under 1 ulp.
pub(crate) fn rootn(x: f64, n: i32) -> f64 {
    if let Err(v) = rootn_special(x, n) {
        return v;
    }
    let ax = x.abs();
    let k = n.unsigned_abs() as i64;
    let r = if n.unsigned_abs() >= 1024 {
        libm::pow(ax, 1.0 / n as f64)
    } else {
        let (m, e) = libm::frexp(ax); // ax = m * 2^e, m in [0.5, 1)
        let e = e as i64;
        let q = e.div_euclid(k);
        let s = e.rem_euclid(k);
        let z = libm::scalbn(m, s as i32); // in [0.5, 2^(k-1)), exact
        if n > 0 {
            libm::scalbn(libm::pow(z, 1.0 / k as f64), q as i32)
        } else {
            libm::scalbn(libm::pow(z, -1.0 / k as f64), -q as i32)
        }
    };
    r.copysign(x)
}

/// powr edge cases (OpenCL C 6.7.1); `None` means use pow(x, y) with x > 0.
#[inline]
pub(crate) fn powr_special(x: f64, y: f64) -> Option<f64> {
    if x.is_nan() || y.is_nan() || x < 0.0 {
        return Some(f64::NAN);
    }
    if x == 0.0 {
        return Some(if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            f64::INFINITY
        } else {
            0.0
        });
    }
    if x.is_infinite() {
        return Some(if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            0.0
        } else {
            f64::INFINITY
        });
    }
    if x == 1.0 {
        return Some(if y.is_infinite() { f64::NAN } else { 1.0 });
    }
    if y == 0.0 {
        return Some(1.0);
    }
    None
}

pub(crate) fn powr(x: f64, y: f64) -> f64 {
    powr_special(x, y).unwrap_or_else(|| libm::pow(x, y))
}

pub(crate) fn pown(x: f64, n: i32) -> f64 {
    if n == 0 {
        1.0
    } else {
        libm::pow(x, n as f64)
    }
}

/// OpenCL fmax: the non-NaN operand wins; +0 is larger than -0.
#[inline]
pub(crate) fn fmax(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x > y {
        x
    } else if y > x || x.is_sign_negative() {
        y // equal values: prefer +0 over -0
    } else {
        x
    }
}

/// OpenCL fmin: the non-NaN operand wins; -0 is smaller than +0.
#[inline]
pub(crate) fn fmin(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x < y {
        x
    } else if y < x {
        y
    } else if x.is_sign_negative() {
        x
    } else {
        y
    }
}

pub(crate) fn lgamma_r(x: f64) -> (f64, i32) {
    let (v, s) = libm::lgamma_r(x);
    if x == 0.0 || (x < 0.0 && x == x.floor()) {
        return (f64::INFINITY, 0);
    }
    if x.is_nan() {
        return (x + x, 0);
    }
    (v, s)
}

/// ilogb with FP_ILOGB0 = INT_MIN and FP_ILOGBNAN = INT_MAX (clang's OpenCL headers).
pub(crate) fn ilogb(x: f64) -> i32 {
    if x == 0.0 {
        return i32::MIN;
    }
    if !x.is_finite() {
        return i32::MAX;
    }
    let b = x.to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    if e == 0 {
        let m = b << 12;
        -1023 - m.leading_zeros() as i32
    } else {
        e - 1023
    }
}

pub(crate) fn logb(x: f64) -> f64 {
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_nan() {
        return x + x;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    ilogb(x) as f64
}

pub(crate) fn fdim(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        x + y
    } else if x > y {
        x - y
    } else {
        0.0
    }
}
