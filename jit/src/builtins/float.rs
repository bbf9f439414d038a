//! Single-precision entry points, `clift_<name>_f32`.
//!
//! Transcendental functions are evaluated in f64 (whose `libm` result is within about
//! one f64 ulp, i.e. 2^-29 f32 ulp) and rounded once to f32, so their error stays within
//! 0.5 + 2^-28 ulp. Exact functions are done directly in f32.

use super::kernels as k;
use super::trig;

/// Defines `extern "C" fn $name(x: f32) -> f32` as `f(x as f64) as f32`.
macro_rules! via_f64 {
    ($($name:ident => $f:expr;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(x: f32) -> f32 {
            let f: fn(f64) -> f64 = $f;
            f(x as f64) as f32
        }
    )*};
}

/// Defines `extern "C" fn $name(x: f32, y: f32) -> f32` as `f(x as f64, y as f64) as f32`.
macro_rules! via_f64_2 {
    ($($name:ident => $f:expr;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(x: f32, y: f32) -> f32 {
            let f: fn(f64, f64) -> f64 = $f;
            f(x as f64, y as f64) as f32
        }
    )*};
}

via_f64! {
    clift_acos_f32 => libm::acos;
    clift_acosh_f32 => k::acosh;
    clift_acospi_f32 => k::acospi;
    clift_asin_f32 => libm::asin;
    clift_asinh_f32 => libm::asinh;
    clift_asinpi_f32 => k::asinpi;
    clift_atan_f32 => libm::atan;
    clift_atanh_f32 => libm::atanh;
    clift_atanpi_f32 => k::atanpi;
    clift_cbrt_f32 => libm::cbrt;
    clift_cosh_f32 => libm::cosh;
    clift_cospi_f32 => k::cospi;
    clift_erfc_f32 => libm::erfc;
    clift_erf_f32 => libm::erf;
    clift_exp_f32 => libm::exp;
    clift_exp2_f32 => libm::exp2;
    clift_exp10_f32 => k::exp10;
    clift_expm1_f32 => libm::expm1;
    clift_lgamma_f32 => libm::lgamma;
    clift_log_f32 => libm::log;
    clift_log2_f32 => libm::log2;
    clift_log10_f32 => libm::log10;
    clift_log1p_f32 => libm::log1p;
    clift_rsqrt_f32 => |x| 1.0 / x.sqrt();
    clift_sinh_f32 => libm::sinh;
    clift_sinpi_f32 => k::sinpi;
    clift_tanh_f32 => libm::tanh;
    clift_tanpi_f32 => k::tanpi;
    clift_tgamma_f32 => libm::tgamma;
}

via_f64_2! {
    clift_atan2_f32 => libm::atan2;
    clift_atan2pi_f32 => k::atan2pi;
    clift_hypot_f32 => libm::hypot;
    clift_pow_f32 => libm::pow;
    clift_powr_f32 => k::powr;
}

#[no_mangle]
pub extern "C" fn clift_sin_f32(x: f32) -> f32 {
    trig::sin_f32(x) as f32
}

#[no_mangle]
pub extern "C" fn clift_cos_f32(x: f32) -> f32 {
    trig::cos_f32(x) as f32
}

#[no_mangle]
pub extern "C" fn clift_tan_f32(x: f32) -> f32 {
    trig::tan_f32(x) as f32
}

#[no_mangle]
pub extern "C" fn clift_ceil_f32(x: f32) -> f32 {
    x.ceil()
}

#[no_mangle]
pub extern "C" fn clift_floor_f32(x: f32) -> f32 {
    x.floor()
}

#[no_mangle]
pub extern "C" fn clift_trunc_f32(x: f32) -> f32 {
    x.trunc()
}

#[no_mangle]
pub extern "C" fn clift_round_f32(x: f32) -> f32 {
    x.round()
}

#[no_mangle]
pub extern "C" fn clift_rint_f32(x: f32) -> f32 {
    x.round_ties_even()
}

#[no_mangle]
pub extern "C" fn clift_fabs_f32(x: f32) -> f32 {
    x.abs()
}

#[no_mangle]
pub extern "C" fn clift_sqrt_f32(x: f32) -> f32 {
    x.sqrt()
}

#[no_mangle]
pub extern "C" fn clift_copysign_f32(x: f32, y: f32) -> f32 {
    x.copysign(y)
}

#[no_mangle]
pub extern "C" fn clift_fdim_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        x + y
    } else if x > y {
        x - y
    } else {
        0.0
    }
}

#[no_mangle]
pub extern "C" fn clift_fmax_f32(x: f32, y: f32) -> f32 {
    k::fmax(x as f64, y as f64) as f32
}

#[no_mangle]
pub extern "C" fn clift_fmin_f32(x: f32, y: f32) -> f32 {
    k::fmin(x as f64, y as f64) as f32
}

#[no_mangle]
pub extern "C" fn clift_maxmag_f32(x: f32, y: f32) -> f32 {
    if x.abs() > y.abs() {
        x
    } else if y.abs() > x.abs() {
        y
    } else {
        clift_fmax_f32(x, y)
    }
}

#[no_mangle]
pub extern "C" fn clift_minmag_f32(x: f32, y: f32) -> f32 {
    if x.abs() < y.abs() {
        x
    } else if y.abs() < x.abs() {
        y
    } else {
        clift_fmin_f32(x, y)
    }
}

#[no_mangle]
pub extern "C" fn clift_fmod_f32(x: f32, y: f32) -> f32 {
    libm::fmodf(x, y)
}

#[no_mangle]
pub extern "C" fn clift_remainder_f32(x: f32, y: f32) -> f32 {
    libm::remainderf(x, y)
}

#[no_mangle]
pub extern "C" fn clift_nextafter_f32(x: f32, y: f32) -> f32 {
    libm::nextafterf(x, y)
}

#[no_mangle]
pub extern "C" fn clift_fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `mad` is implemented as a correctly rounded fma.
#[no_mangle]
pub extern "C" fn clift_mad_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

#[no_mangle]
pub extern "C" fn clift_ilogb_f32(x: f32) -> i32 {
    k::ilogb(x as f64)
}

#[no_mangle]
pub extern "C" fn clift_logb_f32(x: f32) -> f32 {
    k::logb(x as f64) as f32
}

/// x * 2^n, correctly rounded: the product is exact in f64 once `n` is clamped to a
/// range that already saturates f32.
#[no_mangle]
pub extern "C" fn clift_ldexp_f32(x: f32, n: i32) -> f32 {
    let n = n.clamp(-400, 400);
    let scale = f64::from_bits(((1023 + n) as u64) << 52);
    (x as f64 * scale) as f32
}

#[no_mangle]
pub extern "C" fn clift_nan_f32(nancode: u32) -> f32 {
    f32::from_bits(0x7fc0_0000 | (nancode & 0x003f_ffff))
}

#[no_mangle]
pub extern "C" fn clift_pown_f32(x: f32, n: i32) -> f32 {
    k::pown(x as f64, n) as f32
}

#[no_mangle]
pub extern "C" fn clift_rootn_f32(x: f32, n: i32) -> f32 {
    let x = x as f64;
    match k::rootn_special(x, n) {
        Err(v) => v as f32,
        Ok(()) => (libm::pow(x.abs(), 1.0 / n as f64).copysign(x)) as f32,
    }
}

/// # Safety
/// `iptr` must be valid for a write of one f32.
#[no_mangle]
pub unsafe extern "C" fn clift_fract_f32(x: f32, iptr: *mut f32) -> f32 {
    let fl = x.floor();
    *iptr = fl;
    if x.is_nan() {
        return x;
    }
    if x == 0.0 || x.is_infinite() {
        return 0.0f32.copysign(x);
    }
    (x - fl).min(f32::from_bits(0x3f7f_ffff))
}

/// # Safety
/// `exp` must be valid for a write of one i32.
#[no_mangle]
pub unsafe extern "C" fn clift_frexp_f32(x: f32, exp: *mut i32) -> f32 {
    if x == 0.0 || !x.is_finite() {
        *exp = 0;
        return x;
    }
    let (m, e) = libm::frexp(x as f64);
    *exp = e;
    m as f32
}

/// # Safety
/// `iptr` must be valid for a write of one f32.
#[no_mangle]
pub unsafe extern "C" fn clift_modf_f32(x: f32, iptr: *mut f32) -> f32 {
    let t = x.trunc();
    *iptr = t;
    if x.is_infinite() {
        0.0f32.copysign(x)
    } else {
        (x - t).copysign(x)
    }
}

/// Returns sin(x) and stores cos(x) in `cosval`.
///
/// # Safety
/// `cosval` must be valid for a write of one f32.
#[no_mangle]
pub unsafe extern "C" fn clift_sincos_f32(x: f32, cosval: *mut f32) -> f32 {
    let (s, c) = trig::sincos_f32(x);
    *cosval = c as f32;
    s as f32
}

/// # Safety
/// `quo` must be valid for a write of one i32.
#[no_mangle]
pub unsafe extern "C" fn clift_remquo_f32(x: f32, y: f32, quo: *mut i32) -> f32 {
    let (r, q) = libm::remquof(x, y);
    *quo = if r.is_nan() { 0 } else { q };
    r
}

/// # Safety
/// `signp` must be valid for a write of one i32.
#[no_mangle]
pub unsafe extern "C" fn clift_lgamma_r_f32(x: f32, signp: *mut i32) -> f32 {
    let (v, s) = k::lgamma_r(x as f64);
    *signp = s;
    v as f32
}

// half_* (at least 10 bits, <= 8192 ulp) and native_* (implementation-defined): both use
// the full-precision functions.

macro_rules! alias1 {
    ($($name:ident => $f:ident;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(x: f32) -> f32 {
            $f(x)
        }
    )*};
}

macro_rules! alias2 {
    ($($name:ident => $f:ident;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(x: f32, y: f32) -> f32 {
            $f(x, y)
        }
    )*};
}

fn divide(x: f32, y: f32) -> f32 {
    x / y
}

fn recip(x: f32) -> f32 {
    1.0 / x
}

alias1! {
    clift_half_cos_f32 => clift_cos_f32;
    clift_half_exp_f32 => clift_exp_f32;
    clift_half_exp2_f32 => clift_exp2_f32;
    clift_half_exp10_f32 => clift_exp10_f32;
    clift_half_log_f32 => clift_log_f32;
    clift_half_log2_f32 => clift_log2_f32;
    clift_half_log10_f32 => clift_log10_f32;
    clift_half_recip_f32 => recip;
    clift_half_rsqrt_f32 => clift_rsqrt_f32;
    clift_half_sin_f32 => clift_sin_f32;
    clift_half_sqrt_f32 => clift_sqrt_f32;
    clift_half_tan_f32 => clift_tan_f32;
    clift_native_cos_f32 => clift_cos_f32;
    clift_native_exp_f32 => clift_exp_f32;
    clift_native_exp2_f32 => clift_exp2_f32;
    clift_native_exp10_f32 => clift_exp10_f32;
    clift_native_log_f32 => clift_log_f32;
    clift_native_log2_f32 => clift_log2_f32;
    clift_native_log10_f32 => clift_log10_f32;
    clift_native_recip_f32 => recip;
    clift_native_rsqrt_f32 => clift_rsqrt_f32;
    clift_native_sin_f32 => clift_sin_f32;
    clift_native_sqrt_f32 => clift_sqrt_f32;
    clift_native_tan_f32 => clift_tan_f32;
}

alias2! {
    clift_half_divide_f32 => divide;
    clift_half_powr_f32 => clift_powr_f32;
    clift_native_divide_f32 => divide;
    clift_native_powr_f32 => clift_powr_f32;
}
