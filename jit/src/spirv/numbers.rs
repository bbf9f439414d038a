//! Numeric literals of the assembly syntax (seeds/003 "Floating point
//! literals"): integers sized and sign-extended by their type, decimal and
//! hex floats that keep every bit of infinities and NaNs, and the printing
//! rules of the disassembler (decimal for zero/normal values, hex otherwise).

/// Parses an integer literal (decimal, or hex with 0x) into a u64 and a sign.
fn parse_int_text(text: &str) -> Option<(bool, u64, bool)> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (hex, digits) = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        Some(d) => (true, d),
        None => (false, rest),
    };
    if digits.is_empty() {
        return None;
    }
    let v = if hex {
        u64::from_str_radix(digits, 16).ok()?
    } else {
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u64>().ok()?
    };
    Some((neg, v, hex))
}

/// Encodes an integer literal for an integer type of `width` bits.
/// Hex values given for a signed type are sign-extended from `width` bits.
pub fn encode_int(text: &str, width: u32, signed: bool) -> Result<Vec<u32>, String> {
    let (neg, mag, hex) = parse_int_text(text).ok_or_else(|| format!("invalid integer literal '{}'", text))?;
    if !(1..=64).contains(&width) {
        return Err(format!("unsupported integer width {}", width));
    }
    let mask: u64 = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let bits: u64 = if neg {
        if !signed {
            return Err(format!("cannot put a negative number in an unsigned literal: {}", text));
        }
        let min_mag = 1u64 << (width - 1);
        if mag > min_mag {
            return Err(format!(
                "integer {} does not fit in a {}-bit signed integer",
                text, width
            ));
        }
        mag.wrapping_neg() & mask
    } else if hex {
        if mag & !mask != 0 {
            return Err(format!("integer {} does not fit in a {}-bit integer", text, width));
        }
        mag
    } else {
        let max = if signed { mask >> 1 } else { mask };
        if mag > max {
            return Err(format!(
                "integer {} does not fit in a {}-bit {}signed integer",
                text,
                width,
                if signed { "" } else { "un" }
            ));
        }
        mag
    };
    // Sign-extend into the containing word(s) for signed types.
    let ext = if signed && width < 64 && (bits >> (width - 1)) & 1 == 1 {
        bits | !mask
    } else {
        bits
    };
    Ok(if width <= 32 {
        vec![ext as u32]
    } else {
        vec![ext as u32, (ext >> 32) as u32]
    })
}

/// A plain 32-bit literal (LiteralInteger operands): unsigned or negative.
pub fn encode_word(text: &str) -> Result<u32, String> {
    let (neg, mag, _) = parse_int_text(text).ok_or_else(|| format!("invalid integer literal '{}'", text))?;
    if neg {
        if mag > 1u64 << 31 {
            return Err(format!("integer {} does not fit in 32 bits", text));
        }
        Ok((mag as i64).wrapping_neg() as u32)
    } else if mag > u32::MAX as u64 {
        Err(format!("integer {} does not fit in 32 bits", text))
    } else {
        Ok(mag as u32)
    }
}

/// Float format: exponent bits and fraction bits.
fn fmt_bits(width: u32) -> Option<(u32, u32)> {
    match width {
        16 => Some((5, 10)),
        32 => Some((8, 23)),
        64 => Some((11, 52)),
        _ => None,
    }
}

/// Builds the bit pattern of `m * 2^e` (m > 0), rounding to nearest even.
/// Values beyond the largest finite exponent keep their fraction bits, so
/// `0x1.8p+128` becomes a NaN with the given payload (seeds/003).
fn pack(neg: bool, m: u128, e: i32, ebits: u32, fbits: u32) -> u64 {
    let sign = (neg as u64) << (ebits + fbits);
    if m == 0 {
        return sign;
    }
    let bias = (1i32 << (ebits - 1)) - 1;
    let h = 127 - m.leading_zeros() as i32; // highest set bit
    let unbiased = h + e;
    let emin = 1 - bias;
    // Number of fraction bits kept below the leading one.
    let (biased, shift) = if unbiased < emin {
        // Subnormal: value = f * 2^(emin - fbits)
        (0i32, (emin - fbits as i32) - e)
    } else {
        (unbiased + bias, h - fbits as i32)
    };
    let mut frac: u128 = if shift > 0 {
        let s = shift as u32;
        if s >= 128 {
            0
        } else {
            let q = m >> s;
            let r = m & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            if r > half || (r == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        }
    } else {
        let s = (-shift) as u32;
        if s >= 127 {
            0
        } else {
            m << s
        }
    };
    let mut biased = biased;
    if biased == 0 {
        if frac >> fbits != 0 {
            biased = 1; // rounded up into the normals
        }
        return sign | ((biased as u64) << fbits) | (frac as u64 & ((1u64 << fbits) - 1));
    }
    if frac >> (fbits + 1) != 0 {
        frac >>= 1;
        biased += 1;
    }
    let emax_field = (1i32 << ebits) - 1;
    if biased >= emax_field {
        // Infinity or NaN: the maximum exponent, fraction bits as written.
        return sign | ((emax_field as u64) << fbits) | (frac as u64 & ((1u64 << fbits) - 1));
    }
    sign | ((biased as u64) << fbits) | (frac as u64 & ((1u64 << fbits) - 1))
}

/// Parses a C99 hex float `[-]0x1.8p+3` into `m * 2^e`.
fn parse_hex_float(text: &str) -> Option<(bool, u128, i32)> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let rest = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X"))?;
    let (mant, exp) = match rest.find(['p', 'P']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut m: u128 = 0;
    let mut e: i32 = 0;
    for c in int.chars() {
        let d = c.to_digit(16)? as u128;
        if m >> 120 != 0 {
            e += 4; // drop low digits of absurdly long literals
        } else {
            m = (m << 4) | d;
        }
    }
    for c in frac.chars() {
        let d = c.to_digit(16)? as u128;
        if m >> 120 == 0 {
            m = (m << 4) | d;
            e -= 4;
        }
    }
    if let Some(x) = exp {
        let x: i64 = x.parse().ok()?;
        e = e.checked_add(x.clamp(-100_000, 100_000) as i32)?;
    }
    Some((neg, m, e))
}

fn is_hex(text: &str) -> bool {
    let t = text.trim_start_matches(['-', '+']);
    t.starts_with("0x") || t.starts_with("0X")
}

fn decimal_ok(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && text.bytes().any(|b| b.is_ascii_digit())
}

fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let neg = b >> 31 != 0;
    let exp = ((b >> 23) & 0xff) as i32;
    let frac = b & 0x7f_ffff;
    if exp == 0xff {
        let sign = (neg as u16) << 15;
        return sign | 0x7c00 | ((frac >> 13) as u16) | if frac != 0 && frac >> 13 == 0 { 1 } else { 0 };
    }
    if exp == 0 && frac == 0 {
        return (neg as u16) << 15;
    }
    let (m, e) = if exp == 0 {
        (frac as u128, -149)
    } else {
        ((frac | 0x80_0000) as u128, exp - 150)
    };
    pack(neg, m, e, 5, 10) as u16
}

/// Encodes a float literal for a float type of `width` bits.
pub fn encode_float(text: &str, width: u32) -> Result<Vec<u32>, String> {
    let (ebits, fbits) = fmt_bits(width).ok_or_else(|| format!("unsupported float width {}", width))?;
    let bits: u64 = if is_hex(text) {
        let (neg, m, e) = parse_hex_float(text).ok_or_else(|| format!("invalid hex float literal '{}'", text))?;
        pack(neg, m, e, ebits, fbits)
    } else {
        if !decimal_ok(text) {
            return Err(format!("invalid floating-point literal '{}'", text));
        }
        match width {
            16 => f32_to_f16(
                text.parse::<f32>()
                    .map_err(|_| format!("invalid float literal '{}'", text))?,
            ) as u64,
            32 => text
                .parse::<f32>()
                .map_err(|_| format!("invalid float literal '{}'", text))?
                .to_bits() as u64,
            _ => text
                .parse::<f64>()
                .map_err(|_| format!("invalid float literal '{}'", text))?
                .to_bits(),
        }
    };
    Ok(match width {
        64 => vec![bits as u32, (bits >> 32) as u32],
        _ => vec![bits as u32],
    })
}

/// Hex form used for infinities, NaNs, subnormals (and all halves):
/// `0x1.8p+128`, with the significand normalised to a leading 1.
pub fn hex_float_text(bits: u64, width: u32) -> String {
    let (ebits, fbits) = fmt_bits(width).unwrap_or((8, 23));
    let neg = (bits >> (ebits + fbits)) & 1 == 1;
    let bias = (1i64 << (ebits - 1)) - 1;
    let efield = ((bits >> fbits) & ((1 << ebits) - 1)) as i64;
    let mut frac = bits & ((1u64 << fbits) - 1);
    let sign = if neg { "-" } else { "" };
    if efield == 0 && frac == 0 {
        return format!("{}0x0p+0", sign);
    }
    let mut exp = efield - bias;
    if efield == 0 {
        // Subnormal: normalise.
        exp = 1 - bias;
        while frac & (1u64 << fbits) == 0 {
            frac <<= 1;
            exp -= 1;
        }
        frac &= (1u64 << fbits) - 1;
    }
    // Pad the fraction to a whole number of hex digits.
    let digits = fbits.div_ceil(4);
    let padded = frac << (digits * 4 - fbits);
    let mut s = format!("{:0width$x}", padded, width = digits as usize);
    while s.ends_with('0') {
        s.pop();
    }
    let dot = if s.is_empty() { String::new() } else { format!(".{}", s) };
    format!("{}0x1{}p{}{}", sign, dot, if exp >= 0 { "+" } else { "-" }, exp.abs())
}

/// C's `%.{p}g`.
fn format_g(x: f64, p: usize) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{:.*e}", p - 1, x);
    let (mant, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        format!("{}e{}{:02}", strip(&mant), if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip(&format!("{:.*}", decimals, x))
    }
}

/// Disassembly text of a float constant's bits (seeds/003: zero and normal
/// values in decimal with enough digits, everything else in hex).
pub fn float_text(bits: u64, width: u32) -> String {
    match width {
        32 => {
            let f = f32::from_bits(bits as u32);
            if f == 0.0 || f.is_normal() {
                format_g(f as f64, 9)
            } else {
                hex_float_text(bits, 32)
            }
        }
        64 => {
            let f = f64::from_bits(bits);
            if f == 0.0 || f.is_normal() {
                format_g(f, 17)
            } else {
                hex_float_text(bits, 64)
            }
        }
        _ => hex_float_text(bits, width),
    }
}

/// Disassembly text of an integer constant's bits.
pub fn int_text(bits: u64, width: u32, signed: bool) -> String {
    let w = width.clamp(1, 64);
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = bits & mask;
    if signed && (v >> (w - 1)) & 1 == 1 {
        let neg = if w == 64 { v as i64 } else { (v | !mask) as i64 };
        neg.to_string()
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_payloads() {
        assert_eq!(encode_float("0x1.8p+128", 32).unwrap(), vec![0x7fc0_0000]);
        assert_eq!(encode_float("-0x1.0002p+128", 32).unwrap(), vec![0xff80_0100]);
        assert_eq!(encode_float("0x1p+128", 32).unwrap(), vec![0x7f80_0000]);
        assert_eq!(hex_float_text(0xff80_0100, 32), "-0x1.0002p+128");
        assert_eq!(hex_float_text(1, 32), "0x1p-149");
        assert_eq!(encode_float("0x1p-149", 32).unwrap(), vec![1]);
        assert_eq!(encode_float("1.5", 16).unwrap(), vec![0x3e00]);
        assert_eq!(encode_float("0x1p+16", 16).unwrap(), vec![0x7c00]);
        assert_eq!(hex_float_text(0x2e66, 16), "0x1.998p-4");
    }

    #[test]
    fn g_format() {
        assert_eq!(float_text(0.1f32.to_bits() as u64, 32), "0.100000001");
        assert_eq!(float_text(1e20f32.to_bits() as u64, 32), "1.00000002e+20");
        assert_eq!(float_text(0.1f64.to_bits(), 64), "0.10000000000000001");
        assert_eq!(float_text(100f32.to_bits() as u64, 32), "100");
        assert_eq!(float_text(1e9f32.to_bits() as u64, 32), "1e+09");
    }

    #[test]
    fn ints() {
        assert_eq!(encode_int("0xffff", 16, true).unwrap(), vec![0xffff_ffff]);
        assert_eq!(encode_int("-5", 64, true).unwrap(), vec![0xffff_fffb, 0xffff_ffff]);
        assert!(encode_int("-1", 32, false).is_err());
        assert!(encode_int("65536", 16, false).is_err());
        assert_eq!(int_text(0xffff_ffff, 16, true), "-1");
    }
}
