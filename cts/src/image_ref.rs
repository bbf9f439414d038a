//! Reference model of OpenCL images, for comparing an implementation's image engine with.
//!
//! Written straight from the specifications, in scalar f64, sharing no code with Clift:
//! - the formats: the channel orders and data types of the API specification's image format
//!   tables (which combinations are valid, the memory layout of an element, the packed
//!   565/555/101010/101010_2 bit fields);
//! - section 7 of the OpenCL SPIR-V environment specification: image coordinates (7.1), the
//!   addressing and filter modes (7.2) and their precision (7.3), the conversion rules for
//!   normalized, half, float, integer and sRGB data (7.4), layer selection (7.5) and the vector
//!   a texel maps to (7.6); border colors from the OpenCL C specification.
//!
//! Where the specifications allow an error the reference returns what is allowed rather than one
//! value: a read gives an interval per component ([`Iv`]: exact for integers, floats and the
//! normalized end points of 7.4.1; 1.5 ulp wide for other normalized values; the 7.4.5 bound for
//! sRGB), a write gives the set of stored values allowed per channel ([`Accept`]: round to nearest
//! even or any integer within 0.6 for normalized data, round to nearest even or to zero for half,
//! the 7.4.5 bound for sRGB, exact saturation for integers).

#![allow(clippy::needless_range_loop)]
#![allow(non_upper_case_globals)]

use opencl_sys::*;

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

/// Every channel order of the API specification (`CL_DEPTH_STENCIL` needs a GL extension and is
/// left out).
pub const ORDERS: [(cl_channel_order, &str); 19] = [
    (CL_R, "CL_R"),
    (CL_A, "CL_A"),
    (CL_RG, "CL_RG"),
    (CL_RA, "CL_RA"),
    (CL_RGB, "CL_RGB"),
    (CL_RGBA, "CL_RGBA"),
    (CL_BGRA, "CL_BGRA"),
    (CL_ARGB, "CL_ARGB"),
    (CL_ABGR, "CL_ABGR"),
    (CL_INTENSITY, "CL_INTENSITY"),
    (CL_LUMINANCE, "CL_LUMINANCE"),
    (CL_Rx, "CL_Rx"),
    (CL_RGx, "CL_RGx"),
    (CL_RGBx, "CL_RGBx"),
    (CL_DEPTH, "CL_DEPTH"),
    (CL_sRGB, "CL_sRGB"),
    (CL_sRGBA, "CL_sRGBA"),
    (CL_sBGRA, "CL_sBGRA"),
    (CL_sRGBx, "CL_sRGBx"),
];

/// Every channel data type of the API specification (`CL_UNORM_INT24` needs a GL extension and
/// is left out).
pub const DATA_TYPES: [(cl_channel_type, &str); 16] = [
    (CL_SNORM_INT8, "CL_SNORM_INT8"),
    (CL_SNORM_INT16, "CL_SNORM_INT16"),
    (CL_UNORM_INT8, "CL_UNORM_INT8"),
    (CL_UNORM_INT16, "CL_UNORM_INT16"),
    (CL_UNORM_SHORT_565, "CL_UNORM_SHORT_565"),
    (CL_UNORM_SHORT_555, "CL_UNORM_SHORT_555"),
    (CL_UNORM_INT_101010, "CL_UNORM_INT_101010"),
    (CL_UNORM_INT_101010_2, "CL_UNORM_INT_101010_2"),
    (CL_SIGNED_INT8, "CL_SIGNED_INT8"),
    (CL_SIGNED_INT16, "CL_SIGNED_INT16"),
    (CL_SIGNED_INT32, "CL_SIGNED_INT32"),
    (CL_UNSIGNED_INT8, "CL_UNSIGNED_INT8"),
    (CL_UNSIGNED_INT16, "CL_UNSIGNED_INT16"),
    (CL_UNSIGNED_INT32, "CL_UNSIGNED_INT32"),
    (CL_HALF_FLOAT, "CL_HALF_FLOAT"),
    (CL_FLOAT, "CL_FLOAT"),
];

/// Every image object type.
pub const IMAGE_TYPES: [(cl_mem_object_type, &str); 6] = [
    (CL_MEM_OBJECT_IMAGE1D, "1D"),
    (CL_MEM_OBJECT_IMAGE1D_BUFFER, "1D buffer"),
    (CL_MEM_OBJECT_IMAGE1D_ARRAY, "1D array"),
    (CL_MEM_OBJECT_IMAGE2D, "2D"),
    (CL_MEM_OBJECT_IMAGE2D_ARRAY, "2D array"),
    (CL_MEM_OBJECT_IMAGE3D, "3D"),
];

pub fn order_name(o: cl_channel_order) -> String {
    ORDERS
        .iter()
        .find(|(v, _)| *v == o)
        .map_or_else(|| format!("order {o:#x}"), |(_, n)| n.to_string())
}

pub fn data_type_name(t: cl_channel_type) -> String {
    DATA_TYPES
        .iter()
        .find(|(v, _)| *v == t)
        .map_or_else(|| format!("type {t:#x}"), |(_, n)| n.to_string())
}

pub fn image_type_name(t: cl_mem_object_type) -> String {
    IMAGE_TYPES
        .iter()
        .find(|(v, _)| *v == t)
        .map_or_else(|| format!("image type {t:#x}"), |(_, n)| n.to_string())
}

/// What a read returns: `read_imagef` (normalized, half and float data), `read_imagei` (signed
/// integer data) or `read_imageui` (unsigned integer data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Float,
    Int,
    Uint,
}

/// A stored channel: the color it holds, or `X`, an ignored padding channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ch {
    R,
    G,
    B,
    A,
    I,
    L,
    D,
    X,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    pub order: cl_channel_order,
    pub dtype: cl_channel_type,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", order_name(self.order), data_type_name(self.dtype))
    }
}

impl Format {
    pub const fn new(order: cl_channel_order, dtype: cl_channel_type) -> Format {
        Format { order, dtype }
    }

    pub fn from_cl(f: &cl_image_format) -> Format {
        Format::new(f.image_channel_order, f.image_channel_data_type)
    }

    pub fn cl(&self) -> cl_image_format {
        cl_image_format {
            image_channel_order: self.order,
            image_channel_data_type: self.dtype,
        }
    }

    /// Whether the API specification's channel order table allows this data type with this
    /// order ("This format can only be used if channel data type = ...").
    pub fn is_valid(&self) -> bool {
        let t = self.dtype;
        if !DATA_TYPES.iter().any(|(v, _)| *v == t) {
            return false;
        }
        let plain = !matches!(
            t,
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2
        );
        match self.order {
            CL_R | CL_A | CL_RG | CL_RA | CL_Rx | CL_RGx => plain,
            CL_RGBA => plain || t == CL_UNORM_INT_101010_2,
            CL_INTENSITY | CL_LUMINANCE => matches!(
                t,
                CL_UNORM_INT8 | CL_UNORM_INT16 | CL_SNORM_INT8 | CL_SNORM_INT16 | CL_HALF_FLOAT | CL_FLOAT
            ),
            CL_RGB | CL_RGBx => matches!(t, CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010),
            CL_ARGB | CL_BGRA | CL_ABGR => {
                matches!(t, CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8)
            }
            CL_sRGB | CL_sRGBA | CL_sBGRA | CL_sRGBx => t == CL_UNORM_INT8,
            CL_DEPTH => matches!(t, CL_UNORM_INT16 | CL_FLOAT),
            _ => false,
        }
    }

    /// Whether the API's rule "the number of bits per element determined by the
    /// image_channel_data_type and image_channel_order must be a power of two" may make this
    /// valid combination of the format table invalid after all: `CL_sRGB` (24 bits, yet listed
    /// with `CL_UNORM_INT8`) and `CL_RGx` if its `x` channel is stored.
    pub fn power_of_two_questionable(&self) -> bool {
        self.order == CL_sRGB || (self.order == CL_RGx && !self.is_packed())
    }

    /// For a combination the format tables do not allow: whether the data type table rules it
    /// out ("Represents a normalized 5-6-5 3-channel RGB image. The channel order must be CL_RGB
    /// or CL_RGBx", "... must be CL_RGBA" for 101010_2) or a value is unknown, as opposed to an
    /// order's own list in the channel order table ("This format can only be used if channel
    /// data type = ..." of `CL_RGB`, `CL_INTENSITY`, `CL_BGRA`, `CL_sRGBA`, `CL_DEPTH`, ...).
    pub fn invalid_by_data_type(&self) -> bool {
        let known_order = ORDERS.iter().any(|(v, _)| *v == self.order);
        let known_type = DATA_TYPES.iter().any(|(v, _)| *v == self.dtype);
        if !known_order || !known_type {
            return true;
        }
        match self.dtype {
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 => !matches!(self.order, CL_RGB | CL_RGBx),
            CL_UNORM_INT_101010_2 => self.order != CL_RGBA,
            _ => false,
        }
    }

    /// One of the packed data types, whose element is one 16- or 32-bit word of bit fields.
    pub fn is_packed(&self) -> bool {
        matches!(
            self.dtype,
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2
        )
    }

    pub fn kind(&self) -> Kind {
        match self.dtype {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => Kind::Int,
            CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => Kind::Uint,
            _ => Kind::Float,
        }
    }

    pub fn is_srgb(&self) -> bool {
        matches!(self.order, CL_sRGB | CL_sRGBA | CL_sBGRA | CL_sRGBx)
    }

    pub fn is_depth(&self) -> bool {
        self.order == CL_DEPTH
    }

    /// Bytes of one channel (not for packed types).
    pub fn channel_size(&self) -> usize {
        match self.dtype {
            CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
            CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
            CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
            _ => 4,
        }
    }

    /// Whether the order has an ignored `x` channel whose storage the specifications leave open
    /// (the API table groups `CL_Rx` with the one-channel orders, the Khronos CTS stores no `x`,
    /// the OpenCL 2.x+ table describes it as a stored, ignored channel). Packed types have no
    /// such choice.
    pub fn has_optional_x(&self) -> bool {
        matches!(self.order, CL_Rx | CL_RGx | CL_sRGBx) && !self.is_packed()
    }

    /// The stored channels in memory order (not for packed types); `x_pad` says whether the
    /// `x` channel of an `Rx`/`RGx`/`sRGBx` order occupies storage.
    pub fn layout(&self, x_pad: bool) -> Vec<Ch> {
        use Ch::*;
        let mut v = match self.order {
            CL_R => vec![R],
            CL_A => vec![A],
            CL_RG => vec![R, G],
            CL_RA => vec![R, A],
            CL_RGBA | CL_sRGBA => vec![R, G, B, A],
            CL_BGRA | CL_sBGRA => vec![B, G, R, A],
            CL_ARGB => vec![A, R, G, B],
            CL_ABGR => vec![A, B, G, R],
            CL_INTENSITY => vec![I],
            CL_LUMINANCE => vec![L],
            CL_DEPTH => vec![D],
            CL_Rx => vec![R],
            CL_RGx => vec![R, G],
            CL_sRGB | CL_sRGBx => vec![R, G, B],
            CL_RGB | CL_RGBx => vec![R, G, B],
            o => panic!("layout of unknown order {o:#x}"),
        };
        if x_pad && self.has_optional_x() {
            v.push(X);
        }
        v
    }

    /// Bytes per element; `x_pad` as in [`Format::layout`].
    pub fn element_size(&self, x_pad: bool) -> usize {
        if self.is_packed() {
            return self.channel_size();
        }
        self.layout(x_pad).len() * self.channel_size()
    }

    /// The element sizes the specifications allow for this format (two for the `x` orders).
    pub fn element_sizes(&self) -> Vec<usize> {
        if self.has_optional_x() {
            vec![self.element_size(false), self.element_size(true)]
        } else {
            vec![self.element_size(false)]
        }
    }

    /// The `x_pad` an element size corresponds to, if it is one the specifications allow.
    pub fn x_pad_for(&self, element_size: usize) -> Option<bool> {
        if element_size == self.element_size(false) {
            Some(false)
        } else if self.has_optional_x() && element_size == self.element_size(true) {
            Some(true)
        } else {
            None
        }
    }

    /// The alpha of the border color ([`Sampler`] `CL_ADDRESS_CLAMP`): 0 for orders with an
    /// alpha channel, 1 for those without: `CL_R`, `CL_RG`, `CL_RGB`, `CL_LUMINANCE` (the
    /// OpenCL C specification's list), `CL_sRGB`, and the `x` orders, whose ignored channel is
    /// no alpha (reads inside the image give them alpha 1). The OpenCL C list names the `x`
    /// orders with the alpha orders; the Khronos CTS and issue 13 give them alpha 1, which is
    /// what is checked here. One value per order (a slice, for callers that try each).
    pub fn border_alphas(&self) -> &'static [f64] {
        match self.order {
            CL_R | CL_RG | CL_RGB | CL_LUMINANCE | CL_DEPTH => &[1.0],
            CL_Rx | CL_RGx | CL_RGBx | CL_sRGBx | CL_sRGB => &[1.0],
            _ => &[0.0],
        }
    }
}

/// Every valid combination of channel order and data type.
pub fn all_formats() -> Vec<Format> {
    let mut v = Vec::new();
    for &(o, _) in &ORDERS {
        for &(t, _) in &DATA_TYPES {
            let f = Format::new(o, t);
            if f.is_valid() {
                v.push(f);
            }
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Numbers: intervals, half precision, ulps
// ---------------------------------------------------------------------------------------------

/// A closed interval of allowed values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iv {
    pub lo: f64,
    pub hi: f64,
}

impl Iv {
    pub fn exact(v: f64) -> Iv {
        Iv { lo: v, hi: v }
    }

    pub fn new(lo: f64, hi: f64) -> Iv {
        Iv { lo, hi }
    }

    pub fn hull(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// The largest magnitude in the interval.
    pub fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// How far `x` lies outside the interval (0 inside; infinite for NaN).
    pub fn dist(self, x: f64) -> f64 {
        if x.is_nan() {
            f64::INFINITY
        } else if x < self.lo {
            self.lo - x
        } else if x > self.hi {
            x - self.hi
        } else {
            0.0
        }
    }

    pub fn scale(self, w: f64) -> Iv {
        debug_assert!(w >= 0.0);
        Iv {
            lo: self.lo * w,
            hi: self.hi * w,
        }
    }

    pub fn plus(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo + o.lo,
            hi: self.hi + o.hi,
        }
    }
}

/// The unit in the last place of single precision at the real value `v` (the spacing of the
/// floats around it; 2^-149 at 0).
pub fn ulp_f32(v: f64) -> f64 {
    let a = v.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return 2f64.powi(-149);
    }
    let e = a.log2().floor() as i32;
    // log2 may be off by one right at a power of two: fix up.
    let e = if 2f64.powi(e) > a {
        e - 1
    } else if 2f64.powi(e + 1) <= a {
        e + 1
    } else {
        e
    };
    2f64.powi(e - 23)
}

/// The exact value of a half-precision bit pattern.
pub fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => sign * m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// A finite or infinite value rounded to half precision, to nearest even (`rtz` false) or
/// toward zero (`rtz` true). NaN gives the quiet NaN 0x7e00.
pub fn f64_to_half(v: f64, rtz: bool) -> u16 {
    if v.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Scale so the units are the half's last place: 2^-24 below 2^-14, else 2^(e-10).
    let e = if a < 2f64.powi(-14) {
        -14
    } else {
        let mut e = a.log2().floor() as i32;
        if 2f64.powi(e) > a {
            e -= 1;
        }
        if 2f64.powi(e + 1) <= a {
            e += 1;
        }
        e
    };
    let q = a / 2f64.powi(e - 10); // exact: a scaled by a power of two
    let r = if rtz { q.trunc() } else { q.round_ties_even() };
    // r is in [0, 2048]; 2048 means the next binade.
    let (mut e, mut r) = (e, r as u32);
    if r == 2048 {
        e += 1;
        r = 1024;
    }
    if e > 15 {
        return if rtz { sign | 0x7bff } else { sign | 0x7c00 };
    }
    if r < 1024 {
        // Subnormal (only possible when e == -14).
        return sign | r as u16;
    }
    sign | (((e + 15) as u16) << 10) | (r - 1024) as u16
}

/// sRGB to linear (7.4.5, `c_linear`), for r in [0, 1].
pub fn srgb_to_linear(r: f64) -> f64 {
    if r <= 0.04045 {
        r / 12.92
    } else {
        ((r + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear to sRGB (7.4.5, `c_sRGB`): 0 for NaN and negatives, 1 above 1. (The specification's
/// text drops the `- 0.055` of the standard's upper branch; this is the inverse of `c_linear`,
/// as the standard it cites has it.)
pub fn linear_to_srgb(y: f64) -> f64 {
    if y.is_nan() || y < 0.0 {
        0.0
    } else if y < 0.0031308 {
        12.92 * y
    } else if y <= 1.0 {
        1.055 * y.powf(1.0 / 2.4) - 0.055
    } else {
        1.0
    }
}

// ---------------------------------------------------------------------------------------------
// Reading: raw channel values, their conversion to the returned vector
// ---------------------------------------------------------------------------------------------

fn le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | b as u64)
}

/// The raw channel values of one element, as (channel, unsigned bit pattern) in memory order
/// (for packed types: the bit fields, red first).
pub fn raw_channels(f: Format, x_pad: bool, elem: &[u8]) -> Vec<(Ch, u64)> {
    use Ch::*;
    if f.is_packed() {
        let v = le(&elem[..f.channel_size()]);
        return match f.dtype {
            CL_UNORM_SHORT_565 => vec![(R, (v >> 11) & 31), (G, (v >> 5) & 63), (B, v & 31)],
            CL_UNORM_SHORT_555 => vec![(R, (v >> 10) & 31), (G, (v >> 5) & 31), (B, v & 31)],
            CL_UNORM_INT_101010 => vec![(R, (v >> 20) & 1023), (G, (v >> 10) & 1023), (B, v & 1023)],
            _ => vec![
                (R, (v >> 22) & 1023),
                (G, (v >> 12) & 1023),
                (B, (v >> 2) & 1023),
                (A, v & 3),
            ],
        };
    }
    let cs = f.channel_size();
    f.layout(x_pad)
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, le(&elem[i * cs..(i + 1) * cs])))
        .collect()
}

/// 7.4.1, normalized unsigned integer `x` of maximum `max` to float: x / max within 1.5 ulp,
/// exact (0 and 1.0) at the end points when `exact_ends`.
fn unorm_read(x: u64, max: u64, exact_ends: bool) -> Iv {
    if x == 0 {
        return Iv::exact(0.0);
    }
    if x == max && exact_ends {
        return Iv::exact(1.0);
    }
    let v = x as f64 / max as f64;
    let e = 1.5 * ulp_f32(v);
    Iv::new(v - e, v + e)
}

/// 7.4.1, normalized signed integer `x` with `max` = 127 or 32767 to float: max(-1, x / max)
/// within 1.5 ulp; -max-1 and -max give -1, 0 gives 0, max gives 1 exactly.
fn snorm_read(x: i64, max: i64) -> Iv {
    if x <= -max {
        return Iv::exact(-1.0);
    }
    if x == 0 {
        return Iv::exact(0.0);
    }
    if x == max {
        return Iv::exact(1.0);
    }
    let v = x as f64 / max as f64;
    let e = 1.5 * ulp_f32(v);
    Iv::new((v - e).max(-1.0), v + e)
}

/// 7.4.5: an 8-bit sRGB value to linear: 0 and 255 exactly 0 and 1; otherwise any y with
/// |x - 255 c_sRGB(y)| <= 0.5, i.e. y between c_linear((x -+ 0.5) / 255).
fn srgb_read(x: u64) -> Iv {
    match x {
        0 => Iv::exact(0.0),
        255 => Iv::exact(1.0),
        _ => Iv::new(
            srgb_to_linear((x as f64 - 0.5) / 255.0),
            srgb_to_linear((x as f64 + 0.5) / 255.0),
        ),
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

/// The value a read returns for one stored channel (7.4): an interval for float reads, the
/// exact integer (as an exact interval) for integer reads.
pub fn channel_value(f: Format, ch: Ch, raw: u64) -> Iv {
    if f.is_srgb() && matches!(ch, Ch::R | Ch::G | Ch::B) {
        return srgb_read(raw);
    }
    match f.dtype {
        CL_UNORM_INT8 => unorm_read(raw, 255, true),
        CL_UNORM_INT16 => unorm_read(raw, 65535, true),
        CL_UNORM_INT_101010 => unorm_read(raw, 1023, true),
        // 7.4.1 does not list these; the same rule, without required end points.
        CL_UNORM_SHORT_565 => unorm_read(raw, if ch == Ch::G { 63 } else { 31 }, false),
        CL_UNORM_SHORT_555 => unorm_read(raw, 31, false),
        CL_UNORM_INT_101010_2 => {
            if ch == Ch::A {
                unorm_read(raw, 3, false)
            } else {
                unorm_read(raw, 1023, false)
            }
        }
        CL_SNORM_INT8 => snorm_read(sext(raw, 8), 127),
        CL_SNORM_INT16 => snorm_read(sext(raw, 16), 32767),
        CL_SIGNED_INT8 => Iv::exact(sext(raw, 8) as f64),
        CL_SIGNED_INT16 => Iv::exact(sext(raw, 16) as f64),
        CL_SIGNED_INT32 => Iv::exact(sext(raw, 32) as f64),
        CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => Iv::exact(raw as f64),
        // 7.4.2: half to float is lossless.
        CL_HALF_FLOAT => Iv::exact(half_to_f64(raw as u16)),
        // 7.4.3: preserved; denormals may be flushed to zero.
        CL_FLOAT => {
            let v = f32::from_bits(raw as u32) as f64;
            if v != 0.0 && v.abs() < f32::MIN_POSITIVE as f64 {
                Iv::new(v.min(0.0), v.max(0.0))
            } else {
                Iv::exact(v)
            }
        }
        t => panic!("channel_value: data type {t:#x}"),
    }
}

/// The 4-component vector a read of one element returns (7.6, table 9; `CL_RA` gives
/// (R, 0, 0, A); `CL_DEPTH` puts its scalar in the first component).
pub fn texel_vector(f: Format, x_pad: bool, elem: &[u8]) -> [Iv; 4] {
    let mut v = [Iv::exact(0.0), Iv::exact(0.0), Iv::exact(0.0), Iv::exact(1.0)];
    for (ch, raw) in raw_channels(f, x_pad, elem) {
        let x = channel_value(f, ch, raw);
        match ch {
            Ch::R | Ch::D => v[0] = x,
            Ch::G => v[1] = x,
            Ch::B => v[2] = x,
            Ch::A => v[3] = x,
            Ch::I => v = [x; 4],
            Ch::L => v = [x, x, x, Iv::exact(1.0)],
            Ch::X => {}
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Images and the sampler
// ---------------------------------------------------------------------------------------------

/// An image's contents, tightly packed: texel (x, y, z) at `((z * grid[1]) + y) * grid[0] + x`
/// elements. The grid is (width, height, depth) with a 1D array's layers as its rows and a 2D
/// array's layers as its slices, as the API lays images out.
#[derive(Clone, Debug)]
pub struct RefImage {
    pub format: Format,
    pub image_type: cl_mem_object_type,
    pub x_pad: bool,
    pub grid: [usize; 3],
    pub data: Vec<u8>,
}

impl RefImage {
    /// An image of `image_type` with `size` = (width, height, depth, array size) (unused entries
    /// ignored) holding `data`.
    pub fn new(
        format: Format,
        x_pad: bool,
        image_type: cl_mem_object_type,
        size: [usize; 4],
        data: Vec<u8>,
    ) -> RefImage {
        let [w, h, d, a] = size;
        let grid = match image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => [w, 1, 1],
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [w, a, 1],
            CL_MEM_OBJECT_IMAGE2D => [w, h, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [w, h, a],
            CL_MEM_OBJECT_IMAGE3D => [w, h, d],
            t => panic!("RefImage: image type {t:#x}"),
        };
        let img = RefImage {
            format,
            image_type,
            x_pad,
            grid,
            data,
        };
        assert_eq!(
            img.data.len(),
            grid[0] * grid[1] * grid[2] * img.element_size(),
            "RefImage data size"
        );
        img
    }

    pub fn element_size(&self) -> usize {
        self.format.element_size(self.x_pad)
    }

    pub fn element(&self, x: usize, y: usize, z: usize) -> &[u8] {
        let es = self.element_size();
        let o = ((z * self.grid[1] + y) * self.grid[0] + x) * es;
        &self.data[o..o + es]
    }

    /// The vector a read of texel (x, y, z) returns.
    pub fn texel(&self, x: usize, y: usize, z: usize) -> [Iv; 4] {
        texel_vector(self.format, self.x_pad, self.element(x, y, z))
    }

    /// The axes sampled with filtering (the others select a layer).
    pub fn spatial_axes(&self) -> usize {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE1D_ARRAY => 1,
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => 2,
            _ => 3,
        }
    }

    /// The grid axis holding layers, for image arrays.
    pub fn layer_axis(&self) -> Option<usize> {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => Some(1),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => Some(2),
            _ => None,
        }
    }
}

/// A sampler's three properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sampler {
    pub normalized: bool,
    pub addressing: cl_addressing_mode,
    pub filter: cl_filter_mode,
}

impl std::fmt::Display for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = match self.addressing {
            CL_ADDRESS_NONE => "NONE",
            CL_ADDRESS_CLAMP_TO_EDGE => "CLAMP_TO_EDGE",
            CL_ADDRESS_CLAMP => "CLAMP",
            CL_ADDRESS_REPEAT => "REPEAT",
            CL_ADDRESS_MIRRORED_REPEAT => "MIRRORED_REPEAT",
            _ => "?",
        };
        let fl = if self.filter == CL_FILTER_LINEAR {
            "LINEAR"
        } else {
            "NEAREST"
        };
        write!(
            f,
            "{} {a} {fl}",
            if self.normalized { "normalized" } else { "unnormalized" }
        )
    }
}

impl Sampler {
    /// Every sampler a read may use: repeat and mirrored repeat need normalized coordinates.
    pub fn all() -> Vec<Sampler> {
        let mut v = Vec::new();
        for normalized in [false, true] {
            for addressing in [
                CL_ADDRESS_NONE,
                CL_ADDRESS_CLAMP_TO_EDGE,
                CL_ADDRESS_CLAMP,
                CL_ADDRESS_REPEAT,
                CL_ADDRESS_MIRRORED_REPEAT,
            ] {
                if !normalized && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
                    continue;
                }
                for filter in [CL_FILTER_NEAREST, CL_FILTER_LINEAR] {
                    v.push(Sampler {
                        normalized,
                        addressing,
                        filter,
                    });
                }
            }
        }
        v
    }

    /// 7.3: texel locations computed without loss of precision.
    pub fn is_exact(&self) -> bool {
        !self.normalized
            && self.filter == CL_FILTER_NEAREST
            && matches!(
                self.addressing,
                CL_ADDRESS_NONE | CL_ADDRESS_CLAMP | CL_ADDRESS_CLAMP_TO_EDGE
            )
    }

    /// The bits of an OpenCL C `sampler_t` literal (`CLK_*`) for this sampler.
    pub fn clk_bits(&self) -> u32 {
        let n = u32::from(self.normalized);
        let a = match self.addressing {
            CL_ADDRESS_NONE => 0,
            CL_ADDRESS_CLAMP_TO_EDGE => 2,
            CL_ADDRESS_CLAMP => 4,
            CL_ADDRESS_REPEAT => 6,
            _ => 8,
        };
        let f = if self.filter == CL_FILTER_LINEAR { 0x20 } else { 0x10 };
        n | a | f
    }
}

/// Relative size, against max(|u|, size), of the perturbation of an unnormalized coordinate
/// for the sampler combinations whose precision 7.3 leaves undefined: a single precision
/// computation of u (s * size, the fractional part for repeat, |s - s'| for mirrored repeat) is
/// off by a few 2^-24; this allows 16 of them.
pub const COORD_SLACK: f64 = 1.0 / (1u64 << 20) as f64;

/// 7.2, the texel location of one axis for the addressing modes of table 8.
fn address(addressing: cl_addressing_mode, i: i64, n: i64) -> i64 {
    match addressing {
        CL_ADDRESS_CLAMP => i.clamp(-1, n),
        CL_ADDRESS_CLAMP_TO_EDGE => i.clamp(0, n - 1),
        _ => i,
    }
}

/// 7.2: the unnormalized coordinate u of an axis from the coordinate s given to the read,
/// after the addressing mode's own step (the fractional part for repeat, the mirror for
/// mirrored repeat).
fn axis_u(s: &Sampler, c: f64, n: f64) -> f64 {
    match s.addressing {
        CL_ADDRESS_REPEAT => (c - c.floor()) * n,
        CL_ADDRESS_MIRRORED_REPEAT => {
            let sp = 2.0 * (0.5 * c).round_ties_even();
            (c - sp).abs() * n
        }
        _ => {
            if s.normalized {
                c * n
            } else {
                c
            }
        }
    }
}

/// 7.2 nearest filtering: the texel index of an axis from u.
fn nearest_index(s: &Sampler, u: f64, n: i64) -> i64 {
    let i = u.floor() as i64;
    match s.addressing {
        // "if (i > wt - 1) i = i - wt"; below 0 only when u was perturbed below 0.
        CL_ADDRESS_REPEAT => i.rem_euclid(n),
        CL_ADDRESS_MIRRORED_REPEAT => i.min(n - 1).max(0),
        a => address(a, i, n),
    }
}

/// 7.2 linear filtering: (i0, i1, weight of i1) of an axis from u.
fn linear_axis(s: &Sampler, u: f64, n: i64) -> (i64, i64, f64) {
    let f = (u - 0.5).floor();
    let a = (u - 0.5) - f;
    let i = f as i64;
    match s.addressing {
        CL_ADDRESS_REPEAT => (i.rem_euclid(n), (i + 1).rem_euclid(n), a),
        CL_ADDRESS_MIRRORED_REPEAT => (i.clamp(0, n - 1), (i + 1).clamp(0, n - 1), a),
        m => (address(m, i, n), address(m, i + 1, n), a),
    }
}

/// 7.5: the layer a sampled read selects, clamp(rint(c), 0, n - 1).
pub fn sampled_layer(c: f32, n: usize) -> usize {
    (c as f64).round_ties_even().clamp(0.0, (n - 1) as f64) as usize
}

/// What a sampled read may return.
#[derive(Clone, Debug)]
pub struct Sampled {
    /// Nearest filtering: one vector per texel the location may select (one for the exact
    /// combinations of 7.3; up to two per axis when the coordinate lies within
    /// [`COORD_SLACK`] of a texel boundary). Linear filtering: one vector, the hull over the
    /// slack of the filtered intervals.
    pub candidates: Vec<[Iv; 4]>,
    /// Per component, the largest magnitude among the texels (and border) the read combines:
    /// the scale of the arithmetic error of filtering.
    pub scale: [f64; 4],
}

/// The result of a sampled read of `img` with `s` at `coord` (x, y, z; the layer in the
/// component after the spatial ones for arrays), per 7.1, 7.2, 7.5 and 7.6: `None` where the
/// result is undefined (`CL_ADDRESS_NONE` reaching outside the image; linear filtering of
/// integer data), otherwise every result allowed. `border_alpha` is one of
/// [`Format::border_alphas`].
pub fn sample(img: &RefImage, s: &Sampler, coord: [f32; 4], border_alpha: f64) -> Option<Sampled> {
    let f = img.format;
    if s.filter == CL_FILTER_LINEAR && f.kind() != Kind::Float {
        return None;
    }
    let axes = img.spatial_axes();
    let mut fixed = [0usize; 3];
    if let Some(la) = img.layer_axis() {
        fixed[la] = sampled_layer(coord[axes], img.grid[la]);
    }
    let border = {
        let mut b = [Iv::exact(0.0); 4];
        b[3] = Iv::exact(border_alpha);
        b
    };
    let clamp_mode = matches!(s.addressing, CL_ADDRESS_CLAMP | CL_ADDRESS_CLAMP_TO_EDGE);
    // Fetch with border / undefined handling; indices for the spatial axes.
    let fetch = |idx: &[i64; 3]| -> Option<[Iv; 4]> {
        let mut p = fixed;
        for a in 0..axes {
            let n = img.grid[a] as i64;
            if idx[a] < 0 || idx[a] >= n {
                return if clamp_mode { Some(border) } else { None };
            }
            p[a] = idx[a] as usize;
        }
        Some(img.texel(p[0], p[1], p[2]))
    };
    // The u values of each axis: the exact one, and the slack either side.
    let us: Vec<Vec<f64>> = (0..axes)
        .map(|a| {
            let n = img.grid[a] as f64;
            let u = axis_u(s, coord[a] as f64, n);
            if s.is_exact() {
                vec![u]
            } else {
                let d = COORD_SLACK * u.abs().max(n);
                vec![u, u - d, u + d]
            }
        })
        .collect();
    // Every combination of one u per axis.
    let mut combos: Vec<[f64; 3]> = vec![[0.0; 3]];
    for a in 0..axes {
        let mut next = Vec::new();
        for c in &combos {
            for &u in &us[a] {
                let mut c2 = *c;
                c2[a] = u;
                next.push(c2);
            }
        }
        combos = next;
    }
    let mut scale = [0f64; 4];
    let mut note = |t: &[Iv; 4]| {
        for k in 0..4 {
            scale[k] = scale[k].max(t[k].mag());
        }
    };
    if s.filter == CL_FILTER_NEAREST {
        let mut out: Vec<[Iv; 4]> = Vec::new();
        let mut seen: Vec<[i64; 3]> = Vec::new();
        for c in &combos {
            let mut idx = [0i64; 3];
            for a in 0..axes {
                idx[a] = nearest_index(s, c[a], img.grid[a] as i64);
            }
            if seen.contains(&idx) {
                continue;
            }
            seen.push(idx);
            let t = fetch(&idx)?;
            note(&t);
            out.push(t);
        }
        Some(Sampled { candidates: out, scale })
    } else {
        let mut hull: Option<[Iv; 4]> = None;
        for c in &combos {
            let mut ax = [(0i64, 0i64, 0f64); 3];
            for a in 0..axes {
                ax[a] = linear_axis(s, c[a], img.grid[a] as i64);
            }
            // Sum over the 2, 4 or 8 corners: weight (1 - a) for i0, a for i1, per axis.
            let mut acc = [Iv::exact(0.0); 4];
            for corner in 0..(1usize << axes) {
                let mut idx = [0i64; 3];
                let mut w = 1.0;
                for a in 0..axes {
                    let (i0, i1, fr) = ax[a];
                    if corner >> a & 1 == 1 {
                        idx[a] = i1;
                        w *= fr;
                    } else {
                        idx[a] = i0;
                        w *= 1.0 - fr;
                    }
                }
                let t = fetch(&idx)?;
                note(&t);
                for k in 0..4 {
                    acc[k] = acc[k].plus(t[k].scale(w));
                }
            }
            hull = Some(match hull {
                None => acc,
                Some(h) => std::array::from_fn(|k| h[k].hull(acc[k])),
            });
        }
        Some(Sampled {
            candidates: vec![hull.unwrap()],
            scale,
        })
    }
}

/// The result of a sampler-less read (OpImageRead, 7.7) at integer coordinates: the texel,
/// `None` outside the image (undefined). `coord` holds (x, y, z) with the layer of an array in
/// its component after the spatial ones, as for [`sample`].
pub fn load(img: &RefImage, coord: [i32; 4]) -> Option<[Iv; 4]> {
    let axes = img.spatial_axes();
    let mut p = [0usize; 3];
    for a in 0..axes {
        if coord[a] < 0 || coord[a] as usize >= img.grid[a] {
            return None;
        }
        p[a] = coord[a] as usize;
    }
    if let Some(la) = img.layer_axis() {
        let c = coord[axes];
        if c < 0 || c as usize >= img.grid[la] {
            return None;
        }
        p[la] = c as usize;
    }
    Some(img.texel(p[0], p[1], p[2]))
}

// ---------------------------------------------------------------------------------------------
// Writing: the stored values a color may give
// ---------------------------------------------------------------------------------------------

/// A color as a write (or a fill) takes it.
#[derive(Clone, Copy, Debug)]
pub enum Color {
    F([f32; 4]),
    I([i32; 4]),
    U([u32; 4]),
}

/// The raw values allowed for one stored channel.
#[derive(Clone, Debug, PartialEq)]
pub enum Accept {
    /// Anything (the ignored `x` channel).
    Any,
    /// One of these bit patterns; the first is the preferred one.
    Vals(Vec<u64>),
    /// Any half NaN.
    Nan16,
    /// Any float NaN.
    Nan32,
}

impl Accept {
    pub fn allows(&self, raw: u64) -> bool {
        match self {
            Accept::Any => true,
            Accept::Vals(v) => v.contains(&raw),
            Accept::Nan16 => raw & 0x7c00 == 0x7c00 && raw & 0x3ff != 0,
            Accept::Nan32 => raw & 0x7f80_0000 == 0x7f80_0000 && raw & 0x7f_ffff != 0,
        }
    }

    /// The preferred raw value (0 for `Any`, a quiet NaN for the NaN cases).
    pub fn preferred(&self) -> u64 {
        match self {
            Accept::Any => 0,
            Accept::Vals(v) => v[0],
            Accept::Nan16 => 0x7e00,
            Accept::Nan32 => 0x7fc0_0000,
        }
    }
}

/// 7.4.1: a float to a normalized integer of range [lo, hi] scaled by `scale`:
/// f(x) = max(lo, min(hi, scale * x)); the preferred result rounds f(x) to nearest even, any
/// integer within 0.6 of f(x) is allowed. NaN is implementation-defined; infinities clamp.
/// Returns values as signed integers.
fn norm_write(x: f32, scale: f64, lo: f64, hi: f64) -> Option<Vec<i64>> {
    if x.is_nan() {
        return None;
    }
    let f = (scale * x as f64).clamp(lo, hi);
    let pref = f.round_ties_even() as i64;
    let mut v = vec![pref];
    for k in [f.floor() as i64, f.ceil() as i64] {
        if !v.contains(&k) && (f - k as f64).abs() <= 0.6 && k as f64 >= lo && k as f64 <= hi {
            v.push(k);
        }
    }
    Some(v)
}

/// 7.4.5: linear y to an 8-bit sRGB value: any x with |x - 255 c_sRGB(y)| <= 0.6, preferring
/// round to nearest even of 255 c_sRGB(y).
fn srgb_write(y: f32) -> Vec<i64> {
    let t = 255.0 * linear_to_srgb(y as f64);
    let pref = t.round_ties_even() as i64;
    let mut v = vec![pref];
    for k in [t.floor() as i64, t.ceil() as i64] {
        if !v.contains(&k) && (t - k as f64).abs() <= 0.6 && (0..=255).contains(&k) {
            v.push(k);
        }
    }
    v
}

/// 7.4.2: float to half, round to nearest even or toward zero; a denormal result may be
/// flushed to zero.
fn half_write(x: f32) -> Accept {
    if x.is_nan() {
        return Accept::Nan16;
    }
    let mut v = vec![f64_to_half(x as f64, false) as u64];
    for h in [f64_to_half(x as f64, true) as u64] {
        if !v.contains(&h) {
            v.push(h);
        }
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if v.iter().any(|&h| h & 0x7c00 == 0 && h & 0x3ff != 0) {
        for z in [sign, sign ^ 0x8000] {
            if !v.contains(&z) {
                v.push(z);
            }
        }
    }
    Accept::Vals(v)
}

/// 7.4.3: float preserved; a denormal may be flushed to zero.
fn float_write(x: f32) -> Accept {
    if x.is_nan() {
        return Accept::Nan32;
    }
    let mut v = vec![x.to_bits() as u64];
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        v.push(0);
        v.push(0x8000_0000);
    }
    Accept::Vals(v)
}

fn mask(v: i64, bits: u32) -> u64 {
    (v as u64) & ((1u64 << bits) - 1)
}

/// The values allowed for one stored channel `ch` of format `f` from component value `x` of the
/// color (with the channel's data type's rules; `g6` marks the 6-bit green of 565).
fn channel_accept(f: Format, ch: Ch, color: Color, comp: usize) -> Accept {
    if ch == Ch::X {
        return Accept::Any;
    }
    match color {
        Color::F(c) => {
            let x = c[comp];
            if f.is_srgb() && matches!(ch, Ch::R | Ch::G | Ch::B) {
                return Accept::Vals(srgb_write(x).into_iter().map(|v| v as u64).collect());
            }
            let (scale, lo, hi, bits) = match f.dtype {
                CL_UNORM_INT8 => (255.0, 0.0, 255.0, 8),
                CL_UNORM_INT16 => (65535.0, 0.0, 65535.0, 16),
                CL_SNORM_INT8 => (127.0, -128.0, 127.0, 8),
                CL_SNORM_INT16 => (32767.0, -32768.0, 32767.0, 16),
                CL_UNORM_INT_101010 => (1023.0, 0.0, 1023.0, 10),
                CL_UNORM_SHORT_565 if ch == Ch::G => (63.0, 0.0, 63.0, 6),
                CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => (31.0, 0.0, 31.0, 5),
                CL_UNORM_INT_101010_2 if ch == Ch::A => (3.0, 0.0, 3.0, 2),
                CL_UNORM_INT_101010_2 => (1023.0, 0.0, 1023.0, 10),
                CL_HALF_FLOAT => return half_write(x),
                CL_FLOAT => return float_write(x),
                t => panic!("float write to data type {t:#x}"),
            };
            match norm_write(x, scale, lo, hi) {
                Some(v) => Accept::Vals(v.into_iter().map(|k| mask(k, bits)).collect()),
                None => Accept::Any,
            }
        }
        // 7.4.4: saturating conversions.
        Color::I(c) => {
            let x = c[comp] as i64;
            let (lo, hi, bits) = match f.dtype {
                CL_SIGNED_INT8 => (-128, 127, 8),
                CL_SIGNED_INT16 => (-32768, 32767, 16),
                CL_SIGNED_INT32 => (i32::MIN as i64, i32::MAX as i64, 32),
                t => panic!("int write to data type {t:#x}"),
            };
            Accept::Vals(vec![mask(x.clamp(lo, hi), bits)])
        }
        Color::U(c) => {
            let x = c[comp] as u64;
            let hi = match f.dtype {
                CL_UNSIGNED_INT8 => 255,
                CL_UNSIGNED_INT16 => 65535,
                CL_UNSIGNED_INT32 => u32::MAX as u64,
                t => panic!("uint write to data type {t:#x}"),
            };
            Accept::Vals(vec![x.min(hi)])
        }
    }
}

/// The color component a stored channel takes (7.6 read backwards; intensity, luminance and
/// depth take the first component).
fn component_of(ch: Ch) -> usize {
    match ch {
        Ch::R | Ch::I | Ch::L | Ch::D | Ch::X => 0,
        Ch::G => 1,
        Ch::B => 2,
        Ch::A => 3,
    }
}

/// What a write of `color` may store, per stored channel in memory order (the bit fields of a
/// packed type red first; the unused bits of 555 and 101010 are not a channel and may hold
/// anything).
pub fn write_accept(f: Format, x_pad: bool, color: Color) -> Vec<(Ch, Accept)> {
    let chans: Vec<Ch> = if f.is_packed() {
        if f.dtype == CL_UNORM_INT_101010_2 {
            vec![Ch::R, Ch::G, Ch::B, Ch::A]
        } else {
            vec![Ch::R, Ch::G, Ch::B]
        }
    } else {
        f.layout(x_pad)
    };
    chans
        .into_iter()
        .map(|ch| (ch, channel_accept(f, ch, color, component_of(ch))))
        .collect()
}

/// Checks an element written with `color` against [`write_accept`]; the error names the
/// channel, the stored value and what was allowed.
pub fn check_written(f: Format, x_pad: bool, color: Color, elem: &[u8]) -> Result<(), String> {
    let acc = write_accept(f, x_pad, color);
    let raw = raw_channels(f, x_pad, elem);
    assert_eq!(acc.len(), raw.len());
    for ((ch, a), (_, r)) in acc.iter().zip(raw.iter()) {
        if !a.allows(*r) {
            return Err(format!(
                "{f}: channel {ch:?} of {color:?} stored {r:#x}, allowed {a:?} (element bytes {elem:02x?})"
            ));
        }
    }
    Ok(())
}

/// The element a write of `color` stores with the preferred conversions (round to nearest even;
/// ignored bits zero).
pub fn encode(f: Format, x_pad: bool, color: Color) -> Vec<u8> {
    let acc = write_accept(f, x_pad, color);
    let es = f.element_size(x_pad);
    if f.is_packed() {
        let p: Vec<u64> = acc.iter().map(|(_, a)| a.preferred()).collect();
        let v = match f.dtype {
            CL_UNORM_SHORT_565 => (p[0] << 11) | (p[1] << 5) | p[2],
            CL_UNORM_SHORT_555 => (p[0] << 10) | (p[1] << 5) | p[2],
            CL_UNORM_INT_101010 => (p[0] << 20) | (p[1] << 10) | p[2],
            _ => (p[0] << 22) | (p[1] << 12) | (p[2] << 2) | p[3],
        };
        return v.to_le_bytes()[..es].to_vec();
    }
    let cs = f.channel_size();
    let mut out = Vec::with_capacity(es);
    for (_, a) in &acc {
        out.extend_from_slice(&a.preferred().to_le_bytes()[..cs]);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Random data
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in [lo, hi).
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Random contents for one element that every read is defined on: any bits for normalized
/// and integer data, finite half and float values of moderate magnitude (|v| in 2^-8..2^8 or 0,
/// so filtering stays finite and away from denormals).
pub fn random_element(f: Format, x_pad: bool, rng: &mut Rng) -> Vec<u8> {
    let es = f.element_size(x_pad);
    match f.dtype {
        CL_HALF_FLOAT => {
            let mut out = Vec::with_capacity(es);
            for _ in 0..es / 2 {
                let h: u16 = if rng.below(16) == 0 {
                    0
                } else {
                    let sign = (rng.below(2) as u16) << 15;
                    let e = 7 + rng.below(17) as u16; // 2^-8 .. 2^8
                    sign | (e << 10) | (rng.below(1024) as u16)
                };
                out.extend_from_slice(&h.to_le_bytes());
            }
            out
        }
        CL_FLOAT => {
            let mut out = Vec::with_capacity(es);
            for _ in 0..es / 4 {
                let v: u32 = if rng.below(16) == 0 {
                    0
                } else {
                    let sign = (rng.below(2) as u32) << 31;
                    let e = 119 + rng.below(17) as u32;
                    sign | (e << 23) | (rng.next_u64() as u32 & 0x7f_ffff)
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
            out
        }
        _ => rng.bytes(es),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_table() {
        let all = all_formats();
        // 7 orders x 12 plain types, intensity/luminance x 6, RGB/RGBx x 3, ARGB/BGRA/ABGR x 4,
        // RGBA 101010_2, 4 sRGB orders x 1, depth x 2.
        assert_eq!(all.len(), 7 * 12 - 12 + 12 + 1 + 12 + 6 + 12 + 4 + 2);
        assert!(Format::new(CL_RGBA, CL_UNORM_INT8).is_valid());
        assert!(!Format::new(CL_RGB, CL_UNORM_INT8).is_valid());
        assert!(!Format::new(CL_INTENSITY, CL_SIGNED_INT8).is_valid());
        assert_eq!(Format::new(CL_RGBA, CL_FLOAT).element_size(false), 16);
        assert_eq!(Format::new(CL_RGB, CL_UNORM_SHORT_565).element_size(false), 2);
        assert_eq!(Format::new(CL_sRGB, CL_UNORM_INT8).element_size(false), 3);
        assert_eq!(Format::new(CL_Rx, CL_FLOAT).element_sizes(), vec![4, 8]);
    }

    #[test]
    fn half_conversions() {
        assert_eq!(half_to_f64(0x3c00), 1.0);
        assert_eq!(half_to_f64(0xc000), -2.0);
        assert_eq!(half_to_f64(0x7bff), 65504.0);
        assert_eq!(half_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(half_to_f64(0x0400), 2f64.powi(-14));
        for h in 0..=0xffffu16 {
            let v = half_to_f64(h);
            if !v.is_nan() {
                assert_eq!(f64_to_half(v, false), h, "{h:#x}");
                assert_eq!(f64_to_half(v, true), h, "{h:#x}");
            }
        }
        // Halfway between 1 and the next half: to even (1), toward zero (1).
        let next = 1.0 + 2f64.powi(-10);
        assert_eq!(f64_to_half((1.0 + next) / 2.0, false), 0x3c00);
        let mid = (next + 1.0 + 2.0 * 2f64.powi(-10)) / 2.0;
        assert_eq!(f64_to_half(mid, false), 0x3c02);
        assert_eq!(f64_to_half(mid, true), 0x3c01);
        assert_eq!(f64_to_half(65520.0, false), 0x7c00);
        assert_eq!(f64_to_half(65519.0, false), 0x7bff);
        assert_eq!(f64_to_half(1e6, true), 0x7bff);
        assert_eq!(f64_to_half(-3.0 * 2f64.powi(-26), false), 0x8001);
    }

    #[test]
    fn srgb_round_trip() {
        for x in 0..=255u64 {
            let r = srgb_read(x);
            for y in [r.lo, r.hi, (r.lo + r.hi) / 2.0] {
                assert!((x as f64 - 255.0 * linear_to_srgb(y)).abs() <= 0.5 + 1e-9, "{x} {y}");
            }
            let mid = (r.lo + r.hi) / 2.0;
            assert!(srgb_write(mid as f32).contains(&(x as i64)), "{x}");
        }
        assert_eq!(srgb_write(-1.0), vec![0]);
        assert_eq!(srgb_write(2.0), vec![255]);
        assert_eq!(srgb_write(f32::NAN), vec![0]);
    }

    #[test]
    fn normalized_conversions() {
        assert_eq!(
            channel_value(Format::new(CL_R, CL_UNORM_INT8), Ch::R, 255),
            Iv::exact(1.0)
        );
        assert_eq!(
            channel_value(Format::new(CL_R, CL_SNORM_INT8), Ch::R, 0x80),
            Iv::exact(-1.0)
        );
        assert_eq!(
            channel_value(Format::new(CL_R, CL_SNORM_INT8), Ch::R, 0x81),
            Iv::exact(-1.0)
        );
        assert_eq!(
            channel_value(Format::new(CL_R, CL_SNORM_INT16), Ch::R, 0x7fff),
            Iv::exact(1.0)
        );
        let v = channel_value(Format::new(CL_R, CL_UNORM_INT8), Ch::R, 1);
        assert!(v.lo < 1.0 / 255.0 && v.hi > 1.0 / 255.0 && v.hi - v.lo < 2e-9, "{v:?}");
        let f = Format::new(CL_R, CL_UNORM_INT8);
        assert_eq!(
            write_accept(f, false, Color::F([0.5, 0., 0., 0.])),
            vec![(Ch::R, Accept::Vals(vec![128, 127]))]
        );
        assert_eq!(
            write_accept(f, false, Color::F([2.0, 0., 0., 0.])),
            vec![(Ch::R, Accept::Vals(vec![255]))]
        );
        let f = Format::new(CL_R, CL_SNORM_INT8);
        assert_eq!(
            write_accept(f, false, Color::F([-2.0, 0., 0., 0.])),
            vec![(Ch::R, Accept::Vals(vec![0x80]))]
        );
        let f = Format::new(CL_BGRA, CL_UNORM_INT8);
        assert_eq!(encode(f, false, Color::F([1.0, 0.0, 0.2, 0.6])), vec![51, 0, 255, 153]);
        let f = Format::new(CL_RGB, CL_UNORM_SHORT_565);
        assert_eq!(encode(f, false, Color::F([1.0, 0.0, 1.0, 0.0])), vec![0x1f, 0xf8]);
    }

    fn img2d(f: Format, w: usize, h: usize, vals: &[u8]) -> RefImage {
        RefImage::new(f, false, CL_MEM_OBJECT_IMAGE2D, [w, h, 1, 1], vals.to_vec())
    }

    #[test]
    fn sampler_rules() {
        let f = Format::new(CL_R, CL_UNSIGNED_INT8);
        let img = img2d(f, 4, 1, &[10, 20, 30, 40]);
        let s = |normalized, addressing| Sampler {
            normalized,
            addressing,
            filter: CL_FILTER_NEAREST,
        };
        let one = |r: Option<Sampled>| -> Vec<f64> { r.unwrap().candidates.iter().map(|v| v[0].lo).collect() };
        // Exact unnormalized: 1.0 is texel 1, just below is texel 0.
        assert_eq!(
            one(sample(&img, &s(false, CL_ADDRESS_CLAMP), [1.0, 0.5, 0., 0.], 0.0)),
            vec![20.0]
        );
        let below = f32::from_bits(1.0f32.to_bits() - 1);
        assert_eq!(
            one(sample(&img, &s(false, CL_ADDRESS_CLAMP), [below, 0.5, 0., 0.], 0.0)),
            vec![10.0]
        );
        // Clamp outside: border; clamp to edge: edge; none: undefined.
        assert_eq!(
            one(sample(&img, &s(false, CL_ADDRESS_CLAMP), [-0.5, 0.5, 0., 0.], 0.0)),
            vec![0.0]
        );
        assert_eq!(
            one(sample(
                &img,
                &s(false, CL_ADDRESS_CLAMP_TO_EDGE),
                [9.0, 0.5, 0., 0.],
                0.0
            )),
            vec![40.0]
        );
        assert!(sample(&img, &s(false, CL_ADDRESS_NONE), [4.0, 0.5, 0., 0.], 0.0).is_none());
        // Repeat: 1.3 -> 0.3 -> texel 1; mirrored: 1.3 -> 0.7 -> texel 2; -0.3 -> 0.3 -> 1.
        assert_eq!(
            one(sample(&img, &s(true, CL_ADDRESS_REPEAT), [1.3, 0.5, 0., 0.], 0.0)),
            vec![20.0]
        );
        assert_eq!(
            one(sample(
                &img,
                &s(true, CL_ADDRESS_MIRRORED_REPEAT),
                [1.3, 0.5, 0., 0.],
                0.0
            )),
            vec![30.0]
        );
        assert_eq!(
            one(sample(
                &img,
                &s(true, CL_ADDRESS_MIRRORED_REPEAT),
                [-0.3, 0.5, 0., 0.],
                0.0
            )),
            vec![20.0]
        );
        // Normalized 0.25 is u = 1 exactly: a boundary, texel 0 or 1 allowed.
        let mut v = one(sample(&img, &s(true, CL_ADDRESS_CLAMP), [0.25, 0.5, 0., 0.], 0.0));
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(v, vec![10.0, 20.0]);

        // Linear, unnormalized, clamp to edge: u = 1.5 is texel 1; u = 1.75: 3/4 of 1 and 1/4 of 2.
        let f = Format::new(CL_R, CL_FLOAT);
        let data: Vec<u8> = [1.0f32, 2.0, 4.0, 8.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let img = img2d(f, 4, 1, &data);
        let lin = Sampler {
            normalized: false,
            addressing: CL_ADDRESS_CLAMP_TO_EDGE,
            filter: CL_FILTER_LINEAR,
        };
        let r = sample(&img, &lin, [2.0, 0.5, 0., 0.], 0.0).unwrap().candidates[0][0];
        assert!(r.dist(3.0) < 1e-4 && r.hi - r.lo < 1e-3, "{r:?}");
        let r = sample(&img, &lin, [0.0, 0.5, 0., 0.], 0.0).unwrap().candidates[0][0];
        assert!(r.dist(1.0) < 1e-4, "{r:?}");
        // Clamp: half border at the left edge.
        let lin = Sampler {
            addressing: CL_ADDRESS_CLAMP,
            ..lin
        };
        let r = sample(&img, &lin, [0.0, 0.5, 0., 0.], 0.0).unwrap().candidates[0];
        assert!(r[0].dist(0.5) < 1e-4 && r[3].dist(0.5) < 1e-4, "{r:?}");
        // Layers: rint(1.5) = 2, rint(2.5) = 2, clamped to the last.
        assert_eq!(sampled_layer(1.5, 5), 2);
        assert_eq!(sampled_layer(2.5, 5), 2);
        assert_eq!(sampled_layer(-3.0, 5), 0);
        assert_eq!(sampled_layer(9.0, 5), 4);
    }
}
