//! Rust functions the generated code calls for the operations Cranelift has no instruction for:
//! conversions with non-default rounding modes, half-precision conversions, `fmod`, barriers and
//! asynchronous copies. Rounding modes use the SPIR-V FPRoundingMode numbers (0 RTE, 1 RTZ,
//! 2 RTP, 3 RTN). Halves cross the boundary as their bit pattern in an `i32`.

use super::driver::WorkItem;

pub const RTE: i32 = 0;
pub const RTZ: i32 = 1;
pub const RTP: i32 = 2;
pub const RTN: i32 = 3;

fn next_up_f32(r: f32) -> f32 {
    if r.is_nan() || r == f32::INFINITY {
        return r;
    }
    if r == 0.0 {
        return f32::from_bits(1);
    }
    let b = r.to_bits();
    f32::from_bits(if r > 0.0 { b + 1 } else { b - 1 })
}

fn next_down_f32(r: f32) -> f32 {
    -next_up_f32(-r)
}

fn next_up_f64(r: f64) -> f64 {
    if r.is_nan() || r == f64::INFINITY {
        return r;
    }
    if r == 0.0 {
        return f64::from_bits(1);
    }
    let b = r.to_bits();
    f64::from_bits(if r > 0.0 { b + 1 } else { b - 1 })
}

fn next_down_f64(r: f64) -> f64 {
    -next_up_f64(-r)
}

/// Half bits to f64 (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    let mag = if e == 0 {
        m * (2.0f64).powi(-24)
    } else if e == 31 {
        if m == 0.0 {
            f64::INFINITY
        } else {
            return f64::from_bits(0x7ff8_0000_0000_0000 | (((h & 0x3ff) as u64) << 42) | ((h as u64 & 0x8000) << 48));
        }
    } else {
        (1.0 + m / 1024.0) * (2.0f64).powi(e - 15)
    };
    sign * mag
}

fn f16_next_up(h: u16) -> u16 {
    let neg = h & 0x8000 != 0;
    let mag = h & 0x7fff;
    if mag > 0x7c00 || h == 0x7c00 {
        return h;
    }
    if mag == 0 {
        return 1;
    }
    if neg {
        h - 1
    } else {
        h + 1
    }
}

fn f16_next_down(h: u16) -> u16 {
    f16_next_up(h ^ 0x8000) ^ 0x8000
}

/// f64 to half bits, correctly rounded in `mode`.
pub fn f64_to_f16(x: f64, mode: i32) -> u16 {
    if x.is_nan() {
        return 0x7e00 | if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    // Round to nearest even first.
    let rte: u16 = if a.is_infinite() || a >= 65520.0 {
        0x7c00
    } else if a <= (2.0f64).powi(-25) {
        0
    } else {
        let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let qexp = if e >= -14 { e - 10 } else { -24 };
        let q = (2.0f64).powi(qexp);
        let v = (a / q).round_ties_even() * q;
        if v >= (2.0f64).powi(-14) {
            let e2 = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
            if e2 + 15 >= 31 {
                0x7c00
            } else {
                let mant = (v / (2.0f64).powi(e2 - 10)) as u32 - 1024;
                (((e2 + 15) as u16) << 10) | mant as u16
            }
        } else {
            (v / (2.0f64).powi(-24)) as u16
        }
    };
    let mut r = rte | sign;
    if mode == RTE {
        return r;
    }
    let back = f16_to_f64(r);
    match mode {
        RTZ if back.abs() > a => {
            r = if sign != 0 { f16_next_up(r) } else { f16_next_down(r) };
        }
        RTP if back < x => r = f16_next_up(r),
        RTN if back > x => r = f16_next_down(r),
        _ => {}
    }
    r
}

/// f64 to f32 correctly rounded in `mode`.
pub fn f64_to_f32(x: f64, mode: i32) -> f32 {
    let r = x as f32;
    if x.is_nan() || mode == RTE {
        return r;
    }
    let back = r as f64;
    match mode {
        RTZ if back.abs() > x.abs() => {
            if x > 0.0 {
                next_down_f32(r)
            } else {
                next_up_f32(r)
            }
        }
        RTP if back < x => next_up_f32(r),
        RTN if back > x => next_down_f32(r),
        _ => r,
    }
}

fn i128_to_f32(v: i128, mode: i32) -> f32 {
    let r = v as f32;
    if mode == RTE {
        return r;
    }
    let back = r as i128;
    match mode {
        RTZ if back.abs() > v.abs() => {
            if v > 0 {
                next_down_f32(r)
            } else {
                next_up_f32(r)
            }
        }
        RTP if back < v => next_up_f32(r),
        RTN if back > v => next_down_f32(r),
        _ => r,
    }
}

fn i128_to_f64(v: i128, mode: i32) -> f64 {
    let r = v as f64;
    if mode == RTE {
        return r;
    }
    let back = r as i128;
    match mode {
        RTZ if back.abs() > v.abs() => {
            if v > 0 {
                next_down_f64(r)
            } else {
                next_up_f64(r)
            }
        }
        RTP if back < v => next_up_f64(r),
        RTN if back > v => next_down_f64(r),
        _ => r,
    }
}

fn int_arg(x: i64, signed: i32) -> i128 {
    if signed != 0 {
        x as i128
    } else {
        x as u64 as i128
    }
}

pub extern "C" fn clift_cvt_int_f32(x: i64, signed: i32, mode: i32) -> f32 {
    i128_to_f32(int_arg(x, signed), mode)
}

pub extern "C" fn clift_cvt_int_f64(x: i64, signed: i32, mode: i32) -> f64 {
    i128_to_f64(int_arg(x, signed), mode)
}

pub extern "C" fn clift_cvt_int_f16(x: i64, signed: i32, mode: i32) -> i32 {
    let v = int_arg(x, signed);
    // |v| <= 2^53 converts exactly; beyond, every value is far outside the half range.
    f64_to_f16(v as f64, mode) as i32
}

pub extern "C" fn clift_cvt_f64_f32(x: f64, mode: i32) -> f32 {
    f64_to_f32(x, mode)
}

pub extern "C" fn clift_cvt_f64_f16(x: f64, mode: i32) -> i32 {
    f64_to_f16(x, mode) as i32
}

pub extern "C" fn clift_cvt_f32_f16(x: f32, mode: i32) -> i32 {
    f64_to_f16(x as f64, mode) as i32
}

pub extern "C" fn clift_cvt_f16_f32(h: i32) -> f32 {
    f16_to_f64(h as u16) as f32
}

pub extern "C" fn clift_cvt_f16_f64(h: i32) -> f64 {
    f16_to_f64(h as u16)
}

pub extern "C" fn clift_frem_f32(x: f32, y: f32) -> f32 {
    x % y
}

pub extern "C" fn clift_frem_f64(x: f64, y: f64) -> f64 {
    x % y
}

/// OpenCL.std `mad_sat` for 64-bit integers (`signed` != 0: long, else ulong).
pub extern "C" fn clift_mad_sat_i64(x: i64, y: i64, z: i64, signed: i32) -> i64 {
    if signed != 0 {
        let r = (x as i128) * (y as i128) + z as i128;
        r.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    } else {
        let r = (x as u64 as u128)
            .checked_mul(y as u64 as u128)
            .and_then(|p| p.checked_add(z as u64 as u128));
        match r {
            Some(r) if r <= u64::MAX as u128 => r as u64 as i64,
            _ => -1,
        }
    }
}

/// Work-group barrier: suspends this work-item's fiber (a no-op when the kernel runs without
/// fibers, which only happens for kernels without barriers).
///
/// # Safety
/// `wi` is the work-item state the driver passed to the kernel.
pub unsafe extern "C" fn clift_barrier(wi: *mut WorkItem) {
    unsafe { super::driver::barrier(wi) }
}

/// `async_work_group_(strided_)copy`: performed by the first work-item of the group; the
/// matching wait is a barrier.
///
/// # Safety
/// Pointers come from the kernel and must be valid for the copy.
pub unsafe extern "C" fn clift_async_copy(
    wi: *mut WorkItem,
    dst: *mut u8,
    src: *const u8,
    n: u64,
    elem: u64,
    src_stride: u64,
    dst_stride: u64,
) {
    unsafe {
        if (*wi).local_linear_id != 0 {
            return;
        }
        for i in 0..n {
            std::ptr::copy(
                src.add((i * src_stride * elem) as usize),
                dst.add((i * dst_stride * elem) as usize),
                elem as usize,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trip() {
        for h in 0u16..=0xffff {
            let v = f16_to_f64(h);
            if v.is_nan() {
                continue;
            }
            assert_eq!(f64_to_f16(v, RTE), h, "{h:#x}");
            assert_eq!(f64_to_f16(v, RTZ), h, "{h:#x}");
            assert_eq!(f64_to_f16(v, RTP), h, "{h:#x}");
            assert_eq!(f64_to_f16(v, RTN), h, "{h:#x}");
        }
        assert_eq!(f64_to_f16(1.0 + 1.0 / 4096.0, RTE), 0x3c00);
        assert_eq!(f64_to_f16(1.0 + 1.0 / 4096.0, RTP), 0x3c01);
        assert_eq!(f64_to_f16(-1.0 - 1.0 / 4096.0, RTN), 0xbc01);
        assert_eq!(f64_to_f16(-1.0 - 1.0 / 4096.0, RTZ), 0xbc00);
        assert_eq!(f64_to_f16(1e6, RTZ), 0x7bff);
        assert_eq!(f64_to_f16(1e6, RTE), 0x7c00);
        assert_eq!(f64_to_f16(1e-9, RTP), 1);
    }

    #[test]
    fn int_to_float_modes() {
        let x = (1i64 << 40) + 1;
        assert_eq!(clift_cvt_int_f32(x, 1, RTE), (1u64 << 40) as f32);
        assert!(clift_cvt_int_f32(x, 1, RTP) > (1u64 << 40) as f32);
        assert_eq!(clift_cvt_int_f32(-x, 1, RTN), -next_up_f32((1u64 << 40) as f32));
        assert_eq!(clift_cvt_int_f32(-1, 0, RTZ), next_down_f32(18446744073709551616.0));
    }
}
