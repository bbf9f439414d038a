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

/// Half bits to f64 (exact; a NaN keeps its sign and payload).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = u64::from(h & 0x8000) << 48;
    let e = u64::from((h >> 10) & 0x1f);
    let m = u64::from(h & 0x3ff);
    let bits = match e {
        0 if m == 0 => 0,
        // A subnormal half is a normal double: shift the leading one into the implicit bit.
        0 => {
            let lead = 63 - m.leading_zeros() as u64; // 0..=9
            ((lead + 1023 - 24) << 52) | ((m ^ (1 << lead)) << (52 - lead))
        }
        31 => 0x7ff0_0000_0000_0000 | (m << 42) | if m != 0 { 0x0008_0000_0000_0000 } else { 0 },
        _ => ((e + 1023 - 15) << 52) | (m << 42),
    };
    f64::from_bits(sign | bits)
}

/// f64 to half bits, correctly rounded in `mode`, on the bits: the significand is cut at the
/// half's last place (of the normal, or of the subnormal range) and rounded by the bits cut
/// off. (Computing through powers of two and `round_ties_even` was most of the time of a
/// conversion-heavy kernel.)
pub fn f64_to_f16(x: f64, mode: i32) -> u16 {
    let bits = x.to_bits();
    let sign: u16 = if bits >> 63 != 0 { 0x8000 } else { 0 };
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    if biased == 0x7ff {
        return sign | if frac == 0 { 0x7c00 } else { 0x7e00 };
    }
    if biased == 0 && frac == 0 {
        return sign;
    }
    let e = biased - 1023;
    // Rounding away from zero in magnitude: RTP for positive values, RTN for negative ones.
    let up_mag = (mode == RTP && sign == 0) || (mode == RTN && sign != 0);
    let overflow = if mode == RTE || up_mag { 0x7c00 } else { 0x7bff };
    if e > 15 {
        return sign | overflow;
    }
    // Significand with its implicit one (a subnormal double is far below any half).
    let m = if biased == 0 { frac } else { frac | (1 << 52) };
    // Bits cut off: 42 for a normal half, more below its range (the subnormal last place is
    // 2^-24).
    let cut = 42 + (-14 - e).max(0) as u32;
    let (q, rest, half) = if cut >= 64 {
        (0, m, u64::MAX)
    } else {
        (m >> cut, m & ((1u64 << cut) - 1), 1u64 << (cut - 1))
    };
    let round_up = match mode {
        RTE => rest > half || (rest == half && q & 1 == 1),
        RTZ => false,
        _ => up_mag && rest != 0,
    };
    let q = q + u64::from(round_up);
    // A normal half's exponent field plus the significand with its implicit one (a rounding
    // carry moves into the exponent); a subnormal is the significand alone.
    let mag = if e >= -14 { (((e + 14) as u64) << 10) + q } else { q };
    if mag >= 0x7c00 {
        return sign | overflow;
    }
    sign | mag as u16
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

/// Sub-group barrier: suspends this work-item's fiber until every work-item of its sub-group
/// has reached a barrier (a no-op without fibers).
///
/// # Safety
/// As [`clift_barrier`].
pub unsafe extern "C" fn clift_sub_group_barrier(wi: *mut WorkItem) {
    unsafe { super::driver::suspend(wi, super::driver::YIELD_SUB_GROUP_BARRIER) }
}

/// The back-edge of a potential spin loop (`super::spin`): lets the other work-items of the
/// group run (a no-op without fibers).
///
/// # Safety
/// As [`clift_barrier`].
pub unsafe extern "C" fn clift_spin_yield(wi: *mut WorkItem) {
    unsafe { super::driver::spin_yield(wi) }
}

/// `async_work_group_(strided_)copy`: called by the first work-item of the group only (the
/// generated code checks its local linear id); the matching wait is a barrier.
///
/// # Safety
/// Pointers come from the kernel and must be valid for the copy.
pub unsafe extern "C" fn clift_async_copy(
    dst: *mut u8,
    src: *const u8,
    n: u64,
    elem: u64,
    src_stride: u64,
    dst_stride: u64,
) {
    unsafe {
        // The kernel's pointers: a bad one faults as the kernel's own access would.
        if src_stride == 1 && dst_stride == 1 {
            // async_work_group_copy: one run of n elements.
            crate::fault::kernel_copy(dst, src, n.saturating_mul(elem) as usize);
            return;
        }
        for i in 0..n {
            crate::fault::kernel_copy(
                dst.wrapping_add((i * dst_stride * elem) as usize),
                src.wrapping_add((i * src_stride * elem) as usize),
                elem as usize,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The previous, arithmetic conversions: independent references for the bit-level ones.
    fn reference_f16_to_f64(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = ((h >> 10) & 0x1f) as i32;
        let m = (h & 0x3ff) as f64;
        let mag = if e == 0 {
            m * (2.0f64).powi(-24)
        } else if e == 31 {
            if m == 0.0 {
                f64::INFINITY
            } else {
                return f64::from_bits(
                    0x7ff8_0000_0000_0000 | (((h & 0x3ff) as u64) << 42) | ((h as u64 & 0x8000) << 48),
                );
            }
        } else {
            (1.0 + m / 1024.0) * (2.0f64).powi(e - 15)
        };
        sign * mag
    }

    fn reference_f64_to_f16(x: f64, mode: i32) -> u16 {
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
        let back = reference_f16_to_f64(r);
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

    /// The bit-level conversions against the arithmetic ones: every half to f64, and to half
    /// in every rounding mode every value a half apart from its neighbours matters at (the
    /// halves themselves, the midpoints between neighbours and the doubles and floats next to
    /// them, beyond the largest half, far below the smallest), and random doubles.
    #[test]
    fn half_conversions_match_the_reference() {
        let mut xs = Vec::new();
        for h in 0u16..=0x7bff {
            let v = reference_f16_to_f64(h);
            let next = reference_f16_to_f64(h + 1);
            assert_eq!(f16_to_f64(h).to_bits(), v.to_bits(), "{h:#x}");
            assert_eq!(f16_to_f64(h | 0x8000).to_bits(), (-v).to_bits(), "{h:#x}");
            let mid = (v + next) / 2.0;
            for y in [
                v,
                mid,
                next_up_f64(mid),
                next_down_f64(mid),
                next_up_f64(v),
                next_down_f64(v),
            ] {
                xs.extend([
                    y,
                    (y as f32) as f64,
                    next_up_f32(y as f32) as f64,
                    next_down_f32(y as f32) as f64,
                ]);
            }
        }
        for h in 0x7c00u16..=0x7fff {
            let v = reference_f16_to_f64(h);
            assert_eq!(f16_to_f64(h).to_bits(), v.to_bits(), "{h:#x}");
        }
        xs.extend([
            65504.0,
            65519.0,
            65519.99,
            65520.0,
            1e6,
            1e300,
            f64::INFINITY,
            1e-8,
            2.98e-8,
            1e-30,
            1e-310,
            f64::MIN_POSITIVE,
        ]);
        let mut r = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            // Exponents around the half range, any significand.
            let e = (r >> 52) % 60 + 1023 - 40;
            xs.push(f64::from_bits((e << 52) | (r & ((1 << 52) - 1))));
        }
        for x in xs {
            for v in [x, -x] {
                for mode in [RTE, RTZ, RTP, RTN] {
                    assert_eq!(
                        f64_to_f16(v, mode),
                        reference_f64_to_f16(v, mode),
                        "{v:e} ({:#x}) mode {mode}",
                        v.to_bits()
                    );
                }
            }
        }
        for mode in [RTE, RTZ, RTP, RTN] {
            assert_eq!(f64_to_f16(f64::NAN, mode) & 0x7e00, 0x7e00);
            assert_eq!(f64_to_f16(0.0, mode), 0);
            assert_eq!(f64_to_f16(-0.0, mode), 0x8000);
        }
    }

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
