//! The few OpenCL.std functions whose half form is not the float function rounded to half.
//!
//! Every other built-in on `half` calls the float function on the widened (exact) operands
//! and rounds the result once to half (`codegen::extinst::library_call`): the float functions
//! are within 0.5 ulp + 2^-28 ulp of float, so the half result stays within 0.5 ulp of half
//! plus a negligible amount, far inside the half bounds. These are the exceptions, where a
//! float result rounded to half is wrong: `fract`'s upper clamp and `nextafter`'s step are
//! properties of the half format. Operands and results are half values held in f32 (exact);
//! the names end in `_f16` and take the same arguments as the `_f32` functions.

use crate::codegen::helpers::{f16_to_f64, f64_to_f16, RTE};

/// The largest half below 1 (0x1.ffcp-1).
const HALF_BELOW_ONE: f32 = 1.0 - 1.0 / 2048.0;

/// # Safety
/// `iptr` must be valid for a write of one f32.
#[no_mangle]
pub unsafe extern "C" fn clift_fract_f16(x: f32, iptr: *mut f32) -> f32 {
    let fl = x.floor();
    *iptr = fl;
    if x.is_nan() {
        return x;
    }
    if x == 0.0 || x.is_infinite() {
        return 0.0f32.copysign(x);
    }
    // x - floor(x) is exact in f32 for a half x; clamp at the largest half below 1.
    (x - fl).min(HALF_BELOW_ONE)
}

/// The next half after `x` in the direction of `y`.
#[no_mangle]
pub extern "C" fn clift_nextafter_f16(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        // The smallest subnormal with the sign of the direction.
        let h: u16 = if y > 0.0 { 0x0001 } else { 0x8001 };
        return f16_to_f64(h) as f32;
    }
    let h = f64_to_f16(x as f64, RTE);
    // Away from zero when moving in the direction of x's sign.
    let h = if (y > x) == (x > 0.0) { h + 1 } else { h - 1 };
    f16_to_f64(h) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(bits: u16) -> f32 {
        f16_to_f64(bits) as f32
    }

    #[test]
    fn fract_clamps_below_one_in_half() {
        let mut ip = 0.0f32;
        // -2^-24 (the smallest subnormal, negative): floor -1, fract 1 - 2^-24 -> 0x1.ffcp-1.
        let r = unsafe { clift_fract_f16(h(0x8001), &mut ip) };
        assert_eq!(ip, -1.0);
        assert_eq!(f64_to_f16(r as f64, RTE), 0x3bff);
        let r = unsafe { clift_fract_f16(2.75, &mut ip) };
        assert_eq!((r, ip), (0.75, 2.0));
        let r = unsafe { clift_fract_f16(f32::NEG_INFINITY, &mut ip) };
        assert_eq!((r.to_bits(), ip), ((-0.0f32).to_bits(), f32::NEG_INFINITY));
        assert!(unsafe { clift_fract_f16(f32::NAN, &mut ip) }.is_nan());
    }

    #[test]
    fn nextafter_steps_in_half_ulps() {
        assert_eq!(clift_nextafter_f16(1.0, 2.0), h(0x3c01));
        assert_eq!(clift_nextafter_f16(1.0, 0.0), h(0x3bff));
        assert_eq!(clift_nextafter_f16(-1.0, -2.0), h(0xbc01));
        assert_eq!(clift_nextafter_f16(-1.0, 0.0), h(0xbbff));
        assert_eq!(clift_nextafter_f16(0.0, 1.0), h(0x0001));
        assert_eq!(clift_nextafter_f16(-0.0, -1.0), h(0x8001));
        assert_eq!(clift_nextafter_f16(h(0x0001), -1.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(clift_nextafter_f16(65504.0, f32::INFINITY), f32::INFINITY);
        assert_eq!(clift_nextafter_f16(f32::INFINITY, 0.0), 65504.0);
        assert_eq!(clift_nextafter_f16(3.0, 3.0), 3.0);
        assert!(clift_nextafter_f16(f32::NAN, 1.0).is_nan());
    }
}
