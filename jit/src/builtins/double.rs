//! Double-precision entry points, `clift_<name>_f64`.
//!
//! `libm`'s f64 functions (FreeBSD/musl/ARM-optimized-routines ports) are within about
//! 1 ulp; the `pi` family, `exp10`, `rootn`, `powr` and the exact functions use the
//! kernels in [`super::kernels`].

use super::kernels as k;
use super::trig;

macro_rules! direct {
    ($($name:ident => $f:expr;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(x: f64) -> f64 {
            let f: fn(f64) -> f64 = $f;
            f(x)
        }
    )*};
}

macro_rules! direct2 {
    ($($name:ident => $f:expr;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(x: f64, y: f64) -> f64 {
            let f: fn(f64, f64) -> f64 = $f;
            f(x, y)
        }
    )*};
}

direct! {
    clift_acos_f64 => libm::acos;
    clift_acosh_f64 => k::acosh;
    clift_acospi_f64 => k::acospi;
    clift_asin_f64 => libm::asin;
    clift_asinh_f64 => libm::asinh;
    clift_asinpi_f64 => k::asinpi;
    clift_atan_f64 => libm::atan;
    clift_atanh_f64 => libm::atanh;
    clift_atanpi_f64 => k::atanpi;
    clift_cbrt_f64 => libm::cbrt;
    clift_ceil_f64 => f64::ceil;
    clift_cos_f64 => trig::cos_f64;
    clift_cosh_f64 => libm::cosh;
    clift_cospi_f64 => k::cospi;
    clift_erfc_f64 => libm::erfc;
    clift_erf_f64 => libm::erf;
    clift_exp_f64 => libm::exp;
    clift_exp2_f64 => libm::exp2;
    clift_exp10_f64 => k::exp10;
    clift_expm1_f64 => libm::expm1;
    clift_fabs_f64 => f64::abs;
    clift_floor_f64 => f64::floor;
    clift_lgamma_f64 => libm::lgamma;
    clift_log_f64 => libm::log;
    clift_log2_f64 => libm::log2;
    clift_log10_f64 => libm::log10;
    clift_log1p_f64 => libm::log1p;
    clift_logb_f64 => k::logb;
    clift_rint_f64 => f64::round_ties_even;
    clift_round_f64 => f64::round;
    clift_rsqrt_f64 => |x| 1.0 / x.sqrt();
    clift_sin_f64 => trig::sin_f64;
    clift_sinh_f64 => libm::sinh;
    clift_sinpi_f64 => k::sinpi;
    clift_sqrt_f64 => f64::sqrt;
    clift_tan_f64 => trig::tan_f64;
    clift_tanh_f64 => libm::tanh;
    clift_tanpi_f64 => k::tanpi;
    clift_tgamma_f64 => libm::tgamma;
    clift_trunc_f64 => f64::trunc;
}

direct2! {
    clift_atan2_f64 => libm::atan2;
    clift_atan2pi_f64 => k::atan2pi;
    clift_copysign_f64 => f64::copysign;
    clift_fdim_f64 => k::fdim;
    clift_fmax_f64 => k::fmax;
    clift_fmin_f64 => k::fmin;
    clift_fmod_f64 => libm::fmod;
    clift_hypot_f64 => libm::hypot;
    clift_nextafter_f64 => libm::nextafter;
    clift_pow_f64 => libm::pow;
    clift_powr_f64 => k::powr;
    clift_remainder_f64 => libm::remainder;
}

#[no_mangle]
pub extern "C" fn clift_maxmag_f64(x: f64, y: f64) -> f64 {
    if x.abs() > y.abs() {
        x
    } else if y.abs() > x.abs() {
        y
    } else {
        k::fmax(x, y)
    }
}

#[no_mangle]
pub extern "C" fn clift_minmag_f64(x: f64, y: f64) -> f64 {
    if x.abs() < y.abs() {
        x
    } else if y.abs() < x.abs() {
        y
    } else {
        k::fmin(x, y)
    }
}

#[no_mangle]
pub extern "C" fn clift_fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// `mad` is implemented as a correctly rounded fma.
#[no_mangle]
pub extern "C" fn clift_mad_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[no_mangle]
pub extern "C" fn clift_ilogb_f64(x: f64) -> i32 {
    k::ilogb(x)
}

#[no_mangle]
pub extern "C" fn clift_ldexp_f64(x: f64, n: i32) -> f64 {
    libm::scalbn(x, n)
}

#[no_mangle]
pub extern "C" fn clift_nan_f64(nancode: u64) -> f64 {
    f64::from_bits(0x7ff8_0000_0000_0000 | (nancode & 0x0007_ffff_ffff_ffff))
}

#[no_mangle]
pub extern "C" fn clift_pown_f64(x: f64, n: i32) -> f64 {
    k::pown(x, n)
}

#[no_mangle]
pub extern "C" fn clift_rootn_f64(x: f64, n: i32) -> f64 {
    k::rootn(x, n)
}

/// # Safety
/// `iptr` must be valid for a write of one f64.
#[no_mangle]
pub unsafe extern "C" fn clift_fract_f64(x: f64, iptr: *mut f64) -> f64 {
    let fl = x.floor();
    *iptr = fl;
    if x.is_nan() {
        return x;
    }
    if x == 0.0 || x.is_infinite() {
        return 0.0f64.copysign(x);
    }
    (x - fl).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

/// # Safety
/// `exp` must be valid for a write of one i32.
#[no_mangle]
pub unsafe extern "C" fn clift_frexp_f64(x: f64, exp: *mut i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        *exp = 0;
        return x;
    }
    let (m, e) = libm::frexp(x);
    *exp = e;
    m
}

/// # Safety
/// `iptr` must be valid for a write of one f64.
#[no_mangle]
pub unsafe extern "C" fn clift_modf_f64(x: f64, iptr: *mut f64) -> f64 {
    let t = x.trunc();
    *iptr = t;
    if x.is_infinite() {
        0.0f64.copysign(x)
    } else {
        (x - t).copysign(x)
    }
}

/// Returns sin(x) and stores cos(x) in `cosval`.
///
/// # Safety
/// `cosval` must be valid for a write of one f64.
#[no_mangle]
pub unsafe extern "C" fn clift_sincos_f64(x: f64, cosval: *mut f64) -> f64 {
    let (s, c) = trig::sincos_f64(x);
    *cosval = c;
    s
}

/// # Safety
/// `quo` must be valid for a write of one i32.
#[no_mangle]
pub unsafe extern "C" fn clift_remquo_f64(x: f64, y: f64, quo: *mut i32) -> f64 {
    let (r, q) = libm::remquo(x, y);
    *quo = if r.is_nan() { 0 } else { q };
    r
}

/// # Safety
/// `signp` must be valid for a write of one i32.
#[no_mangle]
pub unsafe extern "C" fn clift_lgamma_r_f64(x: f64, signp: *mut i32) -> f64 {
    let (v, s) = k::lgamma_r(x);
    *signp = s;
    v
}
