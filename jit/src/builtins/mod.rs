//! The OpenCL.std math library that JIT-compiled kernels call.
//!
//! Every function is a plain `extern "C"` symbol named `clift_<name>_<f32|f64>` taking
//! scalar arguments in OpenCL.std operand order; integer operands are `i32` (the `nan`
//! code is `u32`/`u64`), out-parameters are raw pointers to the scalar (`frexp`, `modf`,
//! `fract`, `sincos`, `remquo`, `lgamma_r`). [`symbols`] lists them all for the JIT.
//!
//! Accuracy: within the full-profile ULP bounds of the OpenCL environment spec (Table 5)
//! with the special values of its section 6.7; denormals are kept. `docs/math.md` has the
//! bounds and the errors the tests measured. `FP_ILOGB0` is `INT_MIN` and `FP_ILOGBNAN`
//! is `INT_MAX`, as in clang's OpenCL headers.

pub mod double;
pub mod float;
pub mod half;
mod kernels;
mod trig;

#[cfg(test)]
mod tests;

macro_rules! table {
    ($v:ident, $m:ident: $($f:ident),* $(,)?) => {
        $( $v.push((stringify!($f), $m::$f as *const u8)); )*
    };
}

/// Every math builtin as (symbol name, address), for registration with the JIT.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut v = Vec::with_capacity(200);
    table!(v, float:
        clift_acos_f32, clift_acosh_f32, clift_acospi_f32, clift_asin_f32, clift_asinh_f32,
        clift_asinpi_f32, clift_atan_f32, clift_atan2_f32, clift_atanh_f32, clift_atanpi_f32,
        clift_atan2pi_f32, clift_cbrt_f32, clift_ceil_f32, clift_copysign_f32, clift_cos_f32,
        clift_cosh_f32, clift_cospi_f32, clift_erfc_f32, clift_erf_f32, clift_exp_f32,
        clift_exp2_f32, clift_exp10_f32, clift_expm1_f32, clift_fabs_f32, clift_fdim_f32,
        clift_floor_f32, clift_fma_f32, clift_fmax_f32, clift_fmin_f32, clift_fmod_f32,
        clift_fract_f32, clift_frexp_f32, clift_hypot_f32, clift_ilogb_f32, clift_ldexp_f32,
        clift_lgamma_f32, clift_lgamma_r_f32, clift_log_f32, clift_log2_f32, clift_log10_f32,
        clift_log1p_f32, clift_logb_f32, clift_mad_f32, clift_maxmag_f32, clift_minmag_f32,
        clift_modf_f32, clift_nan_f32, clift_nextafter_f32, clift_pow_f32, clift_pown_f32,
        clift_powr_f32, clift_remainder_f32, clift_remquo_f32, clift_rint_f32, clift_rootn_f32,
        clift_round_f32, clift_rsqrt_f32, clift_sin_f32, clift_sincos_f32, clift_sinh_f32,
        clift_sinpi_f32, clift_sqrt_f32, clift_tan_f32, clift_tanh_f32, clift_tanpi_f32,
        clift_tgamma_f32, clift_trunc_f32,
        clift_half_cos_f32, clift_half_divide_f32, clift_half_exp_f32, clift_half_exp2_f32,
        clift_half_exp10_f32, clift_half_log_f32, clift_half_log2_f32, clift_half_log10_f32,
        clift_half_powr_f32, clift_half_recip_f32, clift_half_rsqrt_f32, clift_half_sin_f32,
        clift_half_sqrt_f32, clift_half_tan_f32,
        clift_native_cos_f32, clift_native_divide_f32, clift_native_exp_f32,
        clift_native_exp2_f32, clift_native_exp10_f32, clift_native_log_f32,
        clift_native_log2_f32, clift_native_log10_f32, clift_native_powr_f32,
        clift_native_recip_f32, clift_native_rsqrt_f32, clift_native_sin_f32,
        clift_native_sqrt_f32, clift_native_tan_f32,
    );
    // Half forms that differ from the float function rounded to half (builtins::half).
    table!(v, half: clift_fract_f16, clift_nextafter_f16);
    table!(v, double:
        clift_acos_f64, clift_acosh_f64, clift_acospi_f64, clift_asin_f64, clift_asinh_f64,
        clift_asinpi_f64, clift_atan_f64, clift_atan2_f64, clift_atanh_f64, clift_atanpi_f64,
        clift_atan2pi_f64, clift_cbrt_f64, clift_ceil_f64, clift_copysign_f64, clift_cos_f64,
        clift_cosh_f64, clift_cospi_f64, clift_erfc_f64, clift_erf_f64, clift_exp_f64,
        clift_exp2_f64, clift_exp10_f64, clift_expm1_f64, clift_fabs_f64, clift_fdim_f64,
        clift_floor_f64, clift_fma_f64, clift_fmax_f64, clift_fmin_f64, clift_fmod_f64,
        clift_fract_f64, clift_frexp_f64, clift_hypot_f64, clift_ilogb_f64, clift_ldexp_f64,
        clift_lgamma_f64, clift_lgamma_r_f64, clift_log_f64, clift_log2_f64, clift_log10_f64,
        clift_log1p_f64, clift_logb_f64, clift_mad_f64, clift_maxmag_f64, clift_minmag_f64,
        clift_modf_f64, clift_nan_f64, clift_nextafter_f64, clift_pow_f64, clift_pown_f64,
        clift_powr_f64, clift_remainder_f64, clift_remquo_f64, clift_rint_f64, clift_rootn_f64,
        clift_round_f64, clift_rsqrt_f64, clift_sin_f64, clift_sincos_f64, clift_sinh_f64,
        clift_sinpi_f64, clift_sqrt_f64, clift_tan_f64, clift_tanh_f64, clift_tanpi_f64,
        clift_tgamma_f64, clift_trunc_f64,
    );
    v
}
