//! OpenCL C `printf`: the generated code passes the format string, the argument values as
//! 64-bit slots and one kind word per argument (see `kind`); `clift_printf` formats them with
//! the C99 rules plus OpenCL's vector specifier (`%v4hlf`, `%v2hhd`, ...; elements separated
//! by commas) and appends the whole text of the call to the command's `PrintfSink` at once.
//!
//! Each conversion is formatted by the C library's `snprintf` with the corresponding C type,
//! which gives exactly C's output for `%e`, `%g`, `%a`, flags, width and precision.

use super::driver::WorkItem;
use crate::abi::PrintfSink;
use std::ffi::{c_char, c_int, c_longlong, c_ulonglong, c_void, CStr};

/// Argument categories in a kind word.
pub(crate) const CAT_INT: u32 = 1;
pub(crate) const CAT_FLOAT: u32 = 2;
pub(crate) const CAT_PTR: u32 = 3;

/// The largest field width or precision a conversion may ask for.
const MAX_FIELD: i64 = 1 << 16;

/// A kind word: category (bits 0..8), scalar width in bits (8..16), component count (16..).
/// Integer slots hold the raw bits zero-extended; float slots hold the value as an f64.
pub(crate) const fn kind(cat: u32, width: u32, n: u32) -> u32 {
    cat | ((width & 0xff) << 8) | (n << 16)
}

#[derive(Clone, Copy)]
struct Arg<'a> {
    cat: u32,
    width: u32,
    vals: &'a [u64],
}

impl Arg<'_> {
    /// Component `i` as a signed integer (sign-extended from the argument's width; floats
    /// converted).
    fn int(&self, i: usize, signed: bool) -> i64 {
        let v = self.vals[i];
        match self.cat {
            CAT_FLOAT => f64::from_bits(v) as i64,
            CAT_INT if self.width < 64 => {
                let sh = 64 - self.width;
                if signed {
                    ((v << sh) as i64) >> sh
                } else {
                    ((v << sh) >> sh) as i64
                }
            }
            _ => v as i64,
        }
    }

    fn float(&self, i: usize) -> f64 {
        match self.cat {
            CAT_FLOAT => f64::from_bits(self.vals[i]),
            _ => self.int(i, true) as f64,
        }
    }
}

/// Formats with the C library's snprintf, growing the buffer as needed.
fn c_format(spec: &[u8], out: &mut Vec<u8>, call: impl Fn(*mut c_char, usize, *const c_char) -> c_int) -> Option<()> {
    let mut spec = spec.to_vec();
    spec.push(0);
    let mut buf = vec![0u8; 256];
    loop {
        let n = call(
            buf.as_mut_ptr() as *mut c_char,
            buf.len(),
            spec.as_ptr() as *const c_char,
        );
        if n < 0 {
            return None;
        }
        let n = n as usize;
        if n < buf.len() {
            out.extend_from_slice(&buf[..n]);
            return Some(());
        }
        buf = vec![0u8; n + 1];
    }
}

/// One parsed conversion specification.
struct Spec {
    flags: Vec<u8>,
    width: Option<i64>,
    prec: Option<i64>,
    vec: Option<usize>,
    /// "", "hh", "h", "hl", "l".
    len: &'static str,
    conv: u8,
}

impl Spec {
    /// The C conversion specification for one element, with `cl` as the C length modifier.
    fn c_spec(&self, cl: &str, conv: u8) -> Vec<u8> {
        let mut s = vec![b'%'];
        s.extend_from_slice(&self.flags);
        if let Some(w) = self.width {
            s.extend_from_slice(w.to_string().as_bytes());
        }
        if let Some(p) = self.prec {
            s.push(b'.');
            s.extend_from_slice(p.to_string().as_bytes());
        }
        s.extend_from_slice(cl.as_bytes());
        s.push(conv);
        s
    }
}

/// Formats the whole call; `None` for a malformed format or missing/mismatched arguments.
fn format(fmt: &[u8], args: &[Arg]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut next = 0usize;
    let mut take = || -> Option<Arg> {
        let a = args.get(next).copied();
        next += 1;
        a
    };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let mut sp = Spec {
            flags: Vec::new(),
            width: None,
            prec: None,
            vec: None,
            len: "",
            conv: 0,
        };
        while let Some(&f) = fmt.get(i) {
            if matches!(f, b'-' | b'+' | b' ' | b'#' | b'0') {
                sp.flags.push(f);
                i += 1;
            } else {
                break;
            }
        }
        let num = |i: &mut usize| -> Option<i64> {
            let st = *i;
            while fmt.get(*i).is_some_and(|d| d.is_ascii_digit()) {
                *i += 1;
            }
            std::str::from_utf8(&fmt[st..*i])
                .ok()?
                .parse::<i64>()
                .ok()
                .filter(|v| *v <= i32::MAX as i64)
        };
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let a = take()?;
            if a.vals.len() != 1 {
                return None;
            }
            let w = a.int(0, true) as i32 as i64;
            if w < 0 {
                sp.flags.push(b'-');
                sp.width = Some(-w);
            } else {
                sp.width = Some(w);
            }
        } else if fmt.get(i).is_some_and(|d| d.is_ascii_digit()) {
            sp.width = Some(num(&mut i)?);
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let a = take()?;
                if a.vals.len() != 1 {
                    return None;
                }
                let p = a.int(0, true) as i32 as i64;
                sp.prec = if p < 0 { None } else { Some(p) };
            } else if fmt.get(i).is_some_and(|d| d.is_ascii_digit()) {
                sp.prec = Some(num(&mut i)?);
            } else {
                sp.prec = Some(0);
            }
        }
        // A kernel must not make the host allocate gigabytes for one field: widths and
        // precisions beyond this make the call fail (-1) instead.
        if sp.width.is_some_and(|w| w > MAX_FIELD) || sp.prec.is_some_and(|p| p > MAX_FIELD) {
            return None;
        }
        if fmt.get(i) == Some(&b'v') {
            i += 1;
            let n = if fmt[i..].starts_with(b"16") {
                i += 2;
                16
            } else {
                let d = *fmt.get(i)?;
                i += 1;
                match d {
                    b'2' => 2,
                    b'3' => 3,
                    b'4' => 4,
                    b'8' => 8,
                    _ => return None,
                }
            };
            sp.vec = Some(n);
        }
        sp.len = if fmt[i..].starts_with(b"hh") {
            i += 2;
            "hh"
        } else if fmt[i..].starts_with(b"hl") {
            i += 2;
            "hl"
        } else if fmt.get(i) == Some(&b'h') {
            i += 1;
            "h"
        } else if fmt.get(i) == Some(&b'l') {
            i += 1;
            "l"
        } else {
            ""
        };
        sp.conv = *fmt.get(i)?;
        i += 1;
        // `hl` only with a vector specifier.
        if sp.len == "hl" && sp.vec.is_none() {
            return None;
        }
        let a = take()?;
        let n = sp.vec.unwrap_or(1);
        if a.vals.len() != n {
            return None;
        }
        for e in 0..n {
            if e > 0 {
                out.push(b',');
            }
            match sp.conv {
                b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
                    let signed = matches!(sp.conv, b'd' | b'i');
                    let bits = match sp.len {
                        "hh" => 8,
                        "h" => 16,
                        "hl" => 32,
                        "l" => 64,
                        _ if sp.vec.is_some() && a.cat == CAT_INT => a.width.max(8),
                        _ => 32,
                    };
                    let v = a.int(e, signed);
                    let sh = 64 - bits;
                    let v = if signed {
                        (v << sh) >> sh
                    } else {
                        (((v as u64) << sh) >> sh) as i64
                    };
                    let spec = sp.c_spec("ll", sp.conv);
                    c_format(&spec, &mut out, |b, n, f| unsafe {
                        if signed {
                            libc::snprintf(b, n, f, v as c_longlong)
                        } else {
                            libc::snprintf(b, n, f, v as u64 as c_ulonglong)
                        }
                    })?;
                }
                b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                    let v = a.float(e);
                    let spec = sp.c_spec("", sp.conv);
                    c_format(&spec, &mut out, |b, n, f| unsafe { libc::snprintf(b, n, f, v) })?;
                }
                b'c' if sp.vec.is_none() && sp.len.is_empty() => {
                    let v = a.int(0, true) as c_int;
                    let spec = sp.c_spec("", b'c');
                    c_format(&spec, &mut out, |b, n, f| unsafe { libc::snprintf(b, n, f, v) })?;
                }
                b's' if sp.vec.is_none() && sp.len.is_empty() => {
                    let p = a.vals[0] as usize as *const u8;
                    // The kernel's string, copied through `kernel_copy` (a bad pointer faults
                    // as the kernel's own load would); NULL prints as C's printf prints it.
                    let text = (!p.is_null()).then(|| unsafe { kernel_string(p) });
                    let p = text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr() as *const c_char);
                    let spec = sp.c_spec("", b's');
                    c_format(&spec, &mut out, |b, n, f| unsafe { libc::snprintf(b, n, f, p) })?;
                }
                b'p' if sp.vec.is_none() && sp.len.is_empty() => {
                    let p = a.vals[0] as usize as *const c_void;
                    let spec = sp.c_spec("", b'p');
                    c_format(&spec, &mut out, |b, n, f| unsafe { libc::snprintf(b, n, f, p) })?;
                }
                _ => return None,
            }
        }
    }
    Some(out)
}

/// Formats one OpenCL C printf call and appends it to the command's printf sink. Returns 0,
/// or -1 (printing nothing) for a malformed format, missing arguments or no sink.
///
/// # Safety
/// `wi` is the calling work-item, `fmt` a NUL-terminated string, `slots` and `kinds` the
/// argument arrays the generated code built (`n` kind words).
/// Longest `%s` argument printed (the rest of a longer string is cut).
const MAX_STRING: usize = 1 << 20;

/// A copy of the NUL-terminated string a kernel passed to `%s`, NUL-terminated.
///
/// # Safety
/// Called from `clift_printf`, under JIT code (see `fault::kernel_copy`).
unsafe fn kernel_string(p: *const u8) -> Vec<u8> {
    unsafe {
        let len = crate::fault::kernel_strnlen(p, MAX_STRING);
        let mut text = vec![0u8; len + 1];
        crate::fault::kernel_copy(text.as_mut_ptr(), p, len);
        text
    }
}

pub unsafe extern "C" fn clift_printf(
    wi: *const WorkItem,
    fmt: *const c_char,
    slots: *const u64,
    kinds: *const u32,
    n: u64,
) -> i32 {
    unsafe {
        if wi.is_null() || (*wi).ctx.is_null() || fmt.is_null() {
            return -1;
        }
        let sink = (*(*wi).ctx).printf as *const PrintfSink;
        if sink.is_null() {
            return -1;
        }
        let kinds = if n == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(kinds, n as usize)
        };
        let total: usize = kinds.iter().map(|k| (*k >> 16).max(1) as usize).sum();
        let slots = if total == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(slots, total)
        };
        let mut args = Vec::with_capacity(kinds.len());
        let mut at = 0;
        for k in kinds {
            let cnt = (*k >> 16).max(1) as usize;
            args.push(Arg {
                cat: k & 0xff,
                width: (k >> 8) & 0xff,
                vals: &slots[at..at + cnt],
            });
            at += cnt;
        }
        let fmt = CStr::from_ptr(fmt).to_bytes();
        match std::panic::catch_unwind(|| format(fmt, &args)) {
            Ok(Some(text)) => {
                (*sink).append(&text);
                0
            }
            _ => -1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[(u32, u32, Vec<u64>)]) -> Option<String> {
        let a: Vec<Arg> = args
            .iter()
            .map(|(c, w, v)| Arg {
                cat: *c,
                width: *w,
                vals: v,
            })
            .collect();
        format(fmt.as_bytes(), &a).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn basics() {
        let i = |v: i64, w: u32| (CAT_INT, w, vec![(v as u64) & (u64::MAX >> (64 - w))]);
        let d = |v: f64| (CAT_FLOAT, 64, vec![v.to_bits()]);
        assert_eq!(f("x=%d y=%5u %%", &[i(-3, 32), i(7, 32)]).unwrap(), "x=-3 y=    7 %");
        assert_eq!(
            f("%hhd %hx %ld", &[i(300, 32), i(-1, 32), i(-5, 64)]).unwrap(),
            "44 ffff -5"
        );
        assert_eq!(
            f("%.3f %e %g %a", &[d(1.5), d(1e10), d(0.0001), d(1.0)]).unwrap(),
            "1.500 1.000000e+10 0.0001 0x1p+0"
        );
        let v = (
            CAT_FLOAT,
            32,
            [1.0f64, 2.5, -3.0, 4.25].iter().map(|x| x.to_bits()).collect(),
        );
        assert_eq!(f("%v4hlf", &[v]).unwrap(), "1.000000,2.500000,-3.000000,4.250000");
        let v = (CAT_INT, 8, vec![1, 0xff]);
        assert_eq!(f("%v2hhd", &[v]).unwrap(), "1,-1");
        assert_eq!(f("%d", &[]), None);
        assert_eq!(f("%q", &[i(1, 32)]), None);
        assert_eq!(f("%hld", &[i(1, 32)]), None);
        assert_eq!(f("%v5d", &[i(1, 32)]), None);
        assert_eq!(f("abc%", &[]), None);
    }
}
