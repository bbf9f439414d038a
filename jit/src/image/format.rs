//! Image formats: which `(channel order, channel data type)` pairs Clift supports, how many
//! bytes a texel takes, and where each channel sits in it.
//!
//! The pairs follow the OpenCL API specification's "Image Channel Order" and "Image Channel
//! Data Types" tables (section 5.3.1.1), with these rules:
//! - the bits per element must be a power of two (cl_image_format), which leaves `CL_RGB` and
//!   `CL_RGBx` to the packed types 565, 555 and 101010 (their own descriptions name exactly
//!   those two orders) and leaves `CL_RGx`, three stored channels, without any type;
//! - `CL_sRGB` keeps its one type, `CL_UNORM_INT8`, although 24 bits is no power of two:
//!   the specification lists it (it is the only sRGB order with three channels);
//! - the `x` orders store their ignored channel: `CL_Rx` is a two channel format, `CL_RGBx`
//!   and `CL_sRGBx` four channel formats (the order table's words);
//! - `CL_INTENSITY` and `CL_LUMINANCE` only with the normalized 8/16-bit types, half and
//!   float; `CL_BGRA`, `CL_ARGB` and `CL_ABGR` only with 8-bit types; the sRGB orders only
//!   with `CL_UNORM_INT8` (OpenCL 1.2/2.0 wording of the same tables);
//! - `CL_DEPTH` (`CL_UNORM_INT16`, `CL_FLOAT`) only for 2D images and 2D image arrays.

// `CL_Rx`, `CL_sRGB` ... keep their OpenCL spelling in patterns.
#![allow(non_upper_case_globals)]

use opencl_sys::*;

/// A channel data type (`cl_channel_type`) Clift handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    SnormInt8,
    SnormInt16,
    UnormInt8,
    UnormInt16,
    UnormShort565,
    UnormShort555,
    UnormInt101010,
    UnormInt101010_2,
    SignedInt8,
    SignedInt16,
    SignedInt32,
    UnsignedInt8,
    UnsignedInt16,
    UnsignedInt32,
    HalfFloat,
    Float,
}

/// What an image read returns for a data type (OpenCL SPIR-V environment, 7.6, table 11):
/// floats for normalized, half and float types, 32-bit integers for the integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Float,
    Int,
    UInt,
}

impl DataType {
    pub fn from_cl(data_type: u32) -> Option<DataType> {
        Some(match data_type {
            CL_SNORM_INT8 => DataType::SnormInt8,
            CL_SNORM_INT16 => DataType::SnormInt16,
            CL_UNORM_INT8 => DataType::UnormInt8,
            CL_UNORM_INT16 => DataType::UnormInt16,
            CL_UNORM_SHORT_565 => DataType::UnormShort565,
            CL_UNORM_SHORT_555 => DataType::UnormShort555,
            CL_UNORM_INT_101010 => DataType::UnormInt101010,
            CL_UNORM_INT_101010_2 => DataType::UnormInt101010_2,
            CL_SIGNED_INT8 => DataType::SignedInt8,
            CL_SIGNED_INT16 => DataType::SignedInt16,
            CL_SIGNED_INT32 => DataType::SignedInt32,
            CL_UNSIGNED_INT8 => DataType::UnsignedInt8,
            CL_UNSIGNED_INT16 => DataType::UnsignedInt16,
            CL_UNSIGNED_INT32 => DataType::UnsignedInt32,
            CL_HALF_FLOAT => DataType::HalfFloat,
            CL_FLOAT => DataType::Float,
            _ => return None,
        })
    }

    pub fn kind(self) -> Kind {
        match self {
            DataType::SignedInt8 | DataType::SignedInt16 | DataType::SignedInt32 => Kind::Int,
            DataType::UnsignedInt8 | DataType::UnsignedInt16 | DataType::UnsignedInt32 => Kind::UInt,
            _ => Kind::Float,
        }
    }

    /// Whether all channels share one packed 16- or 32-bit word (565, 555, 101010,
    /// 101010_2), so the element size does not depend on the channel count.
    pub fn is_packed(self) -> bool {
        matches!(
            self,
            DataType::UnormShort565 | DataType::UnormShort555 | DataType::UnormInt101010 | DataType::UnormInt101010_2
        )
    }

    /// Bytes of one channel (unpacked types only).
    fn channel_size(self) -> usize {
        match self {
            DataType::SnormInt8 | DataType::UnormInt8 | DataType::SignedInt8 | DataType::UnsignedInt8 => 1,
            DataType::SnormInt16
            | DataType::UnormInt16
            | DataType::SignedInt16
            | DataType::UnsignedInt16
            | DataType::HalfFloat
            | DataType::UnormShort565
            | DataType::UnormShort555 => 2,
            DataType::SignedInt32
            | DataType::UnsignedInt32
            | DataType::Float
            | DataType::UnormInt101010
            | DataType::UnormInt101010_2 => 4,
        }
    }
}

/// A channel order (`cl_channel_order`) Clift handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    R,
    A,
    RG,
    RA,
    RGB,
    RGBA,
    BGRA,
    ARGB,
    ABGR,
    Intensity,
    Luminance,
    Rx,
    RGx,
    RGBx,
    Depth,
    SRGB,
    SRGBx,
    SRGBA,
    SBGRA,
}

/// Where an RGBA component of a read comes from (`Order::components`): a stored channel
/// (index in memory order) or a constant.
pub const ZERO: u8 = 4;
pub const ONE: u8 = 5;
/// A stored channel written as 0 (the ignored channel of the `x` orders).
pub const PAD: u8 = 4;

impl Order {
    pub fn from_cl(order: u32) -> Option<Order> {
        Some(match order {
            CL_R => Order::R,
            CL_A => Order::A,
            CL_RG => Order::RG,
            CL_RA => Order::RA,
            CL_RGB => Order::RGB,
            CL_RGBA => Order::RGBA,
            CL_BGRA => Order::BGRA,
            CL_ARGB => Order::ARGB,
            CL_ABGR => Order::ABGR,
            CL_INTENSITY => Order::Intensity,
            CL_LUMINANCE => Order::Luminance,
            CL_Rx => Order::Rx,
            CL_RGx => Order::RGx,
            CL_RGBx => Order::RGBx,
            CL_DEPTH => Order::Depth,
            CL_sRGB => Order::SRGB,
            CL_sRGBx => Order::SRGBx,
            CL_sRGBA => Order::SRGBA,
            CL_sBGRA => Order::SBGRA,
            _ => return None,
        })
    }

    /// Channels stored per texel, the ignored `x` channel included (API spec, Image Channel
    /// Order table: "Rx: a two channel image format ...").
    pub fn channels(self) -> usize {
        match self {
            Order::R | Order::A | Order::Intensity | Order::Luminance | Order::Depth => 1,
            Order::RG | Order::RA | Order::Rx => 2,
            Order::RGB | Order::RGx | Order::SRGB => 3,
            Order::RGBA
            | Order::BGRA
            | Order::ARGB
            | Order::ABGR
            | Order::RGBx
            | Order::SRGBx
            | Order::SRGBA
            | Order::SBGRA => 4,
        }
    }

    /// For each component (R, G, B, A) of what a read returns, the stored channel it comes
    /// from, or `ZERO`/`ONE` (SPIR-V environment 7.6, table 9: missing colour channels read
    /// 0, a missing alpha 1; intensity fills all four, luminance R, G and B; a depth image
    /// returns its depth in the first component). Packed types use `Order::RGBA` layout
    /// of their channels (R first) whatever the order, see `Format::components`.
    pub fn components(self) -> [u8; 4] {
        match self {
            Order::R | Order::Rx | Order::Depth => [0, ZERO, ZERO, ONE],
            Order::A => [ZERO, ZERO, ZERO, 0],
            Order::RG | Order::RGx => [0, 1, ZERO, ONE],
            Order::RA => [0, ZERO, ZERO, 1],
            Order::RGB | Order::RGBx | Order::SRGB | Order::SRGBx => [0, 1, 2, ONE],
            Order::RGBA | Order::SRGBA => [0, 1, 2, 3],
            Order::BGRA | Order::SBGRA => [2, 1, 0, 3],
            Order::ARGB => [1, 2, 3, 0],
            Order::ABGR => [3, 2, 1, 0],
            Order::Intensity => [0, 0, 0, 0],
            Order::Luminance => [0, 0, 0, ONE],
        }
    }

    /// For each stored channel (memory order), the component (0 = R ... 3 = A) a write takes
    /// it from, or `PAD`. Single-channel intensity, luminance and depth take the first
    /// component.
    pub fn sources(self) -> [u8; 4] {
        match self {
            Order::R | Order::Intensity | Order::Luminance | Order::Depth => [0, PAD, PAD, PAD],
            Order::A => [3, PAD, PAD, PAD],
            Order::Rx => [0, PAD, PAD, PAD],
            Order::RG => [0, 1, PAD, PAD],
            Order::RGx => [0, 1, PAD, PAD],
            Order::RA => [0, 3, PAD, PAD],
            Order::RGB | Order::SRGB => [0, 1, 2, PAD],
            Order::RGBx | Order::SRGBx => [0, 1, 2, PAD],
            Order::RGBA | Order::SRGBA => [0, 1, 2, 3],
            Order::BGRA | Order::SBGRA => [2, 1, 0, 3],
            Order::ARGB => [3, 0, 1, 2],
            Order::ABGR => [3, 2, 1, 0],
        }
    }

    /// sRGB orders convert R, G and B between sRGB and linear (7.4.5).
    pub fn is_srgb(self) -> bool {
        matches!(self, Order::SRGB | Order::SRGBx | Order::SRGBA | Order::SBGRA)
    }

    /// The border colour of `CL_ADDRESS_CLAMP` has alpha 1 for the orders without an alpha
    /// channel, 0 for the others: `CL_R`, `CL_RG`, `CL_RGB` and `CL_LUMINANCE` as OpenCL C
    /// ("Determining the Border Color or Value") names them, `CL_sRGB` like `CL_RGB`, and the
    /// `x` orders, whose ignored channel is no alpha: reads inside the image give them alpha 1
    /// (SPIR-V environment 7.6), and so does their border in the Khronos CTS and in issue 13,
    /// although the OpenCL C list puts them with the alpha orders. A depth image's border is 0
    /// in the first component.
    fn border_alpha_one(self) -> bool {
        matches!(
            self,
            Order::R
                | Order::RG
                | Order::RGB
                | Order::Luminance
                | Order::SRGB
                | Order::Depth
                | Order::Rx
                | Order::RGx
                | Order::RGBx
                | Order::SRGBx
        )
    }
}

/// A supported `(order, data type)` pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub order: Order,
    pub data_type: DataType,
}

impl Format {
    /// The format, when the pair is one Clift supports for some image type.
    pub fn new(order: u32, data_type: u32) -> Option<Format> {
        let f = Format {
            order: Order::from_cl(order)?,
            data_type: DataType::from_cl(data_type)?,
        };
        f.valid().then_some(f)
    }

    fn valid(self) -> bool {
        use DataType as T;
        let t = self.data_type;
        let standard = !t.is_packed();
        let eight_bit = matches!(t, T::UnormInt8 | T::SnormInt8 | T::SignedInt8 | T::UnsignedInt8);
        match self.order {
            Order::R | Order::A | Order::RG | Order::RA => standard,
            // The optional padded orders are not offered: the API spec calls Rx two channels,
            // RGx three and sRGBx four, while the Khronos CTS (and applications written
            // against it) store them as one, two and three; either layout would read the
            // other's images wrongly. RGBx is offered with the packed types only, whose
            // size both agree on.
            Order::Rx | Order::RGx | Order::SRGBx => false,
            Order::RGB | Order::RGBx => matches!(t, T::UnormShort565 | T::UnormShort555 | T::UnormInt101010),
            Order::RGBA => standard || t == T::UnormInt101010_2,
            Order::BGRA | Order::ARGB | Order::ABGR => eight_bit,
            Order::Intensity | Order::Luminance => matches!(
                t,
                T::UnormInt8 | T::UnormInt16 | T::SnormInt8 | T::SnormInt16 | T::HalfFloat | T::Float
            ),
            Order::Depth => matches!(t, T::UnormInt16 | T::Float),
            Order::SRGB | Order::SRGBA | Order::SBGRA => t == T::UnormInt8,
        }
    }

    /// Bytes per texel.
    pub fn element_size(self) -> usize {
        if self.data_type.is_packed() {
            self.data_type.channel_size()
        } else {
            self.data_type.channel_size() * self.order.channels()
        }
    }

    /// Channels stored per texel (packed types count their fields: 3 for 565, 555 and
    /// 101010, 4 for 101010_2).
    pub fn stored_channels(self) -> usize {
        match self.data_type {
            DataType::UnormShort565 | DataType::UnormShort555 | DataType::UnormInt101010 => 3,
            DataType::UnormInt101010_2 => 4,
            _ => self.order.channels(),
        }
    }

    /// See `Order::components`; packed types hold R, G, B (and A) in that order.
    pub fn components(self) -> [u8; 4] {
        match self.data_type {
            DataType::UnormInt101010_2 => [0, 1, 2, 3],
            DataType::UnormShort565 | DataType::UnormShort555 | DataType::UnormInt101010 => [0, 1, 2, ONE],
            _ => self.order.components(),
        }
    }

    /// See `Order::sources`.
    pub fn sources(self) -> [u8; 4] {
        match self.data_type {
            DataType::UnormInt101010_2 => [0, 1, 2, 3],
            DataType::UnormShort565 | DataType::UnormShort555 | DataType::UnormInt101010 => [0, 1, 2, PAD],
            _ => self.order.sources(),
        }
    }

    /// Whether the format may be used with `image_type` (a `CL_MEM_OBJECT_IMAGE*`).
    pub fn allowed_for(self, image_type: u32) -> bool {
        match image_type {
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => true,
            CL_MEM_OBJECT_IMAGE1D
            | CL_MEM_OBJECT_IMAGE1D_ARRAY
            | CL_MEM_OBJECT_IMAGE1D_BUFFER
            | CL_MEM_OBJECT_IMAGE3D => self.order != Order::Depth,
            _ => false,
        }
    }

    /// The float border colour (`CL_ADDRESS_CLAMP`, out-of-range sampler-less reads).
    pub fn border_float(self) -> [f32; 4] {
        [0.0, 0.0, 0.0, if self.order.border_alpha_one() { 1.0 } else { 0.0 }]
    }

    /// The integer border colour (read_imagei / read_imageui).
    pub fn border_int(self) -> [i32; 4] {
        [0, 0, 0, self.order.border_alpha_one() as i32]
    }
}

/// Every order Clift knows, in `CL_*` value order.
const ORDERS: [u32; 19] = [
    CL_R,
    CL_A,
    CL_RG,
    CL_RA,
    CL_RGB,
    CL_RGBA,
    CL_BGRA,
    CL_ARGB,
    CL_INTENSITY,
    CL_LUMINANCE,
    CL_Rx,
    CL_RGx,
    CL_RGBx,
    CL_DEPTH,
    CL_sRGB,
    CL_sRGBx,
    CL_sRGBA,
    CL_sBGRA,
    CL_ABGR,
];

/// Every data type Clift knows, in `CL_*` value order.
const DATA_TYPES: [u32; 16] = [
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_UNORM_SHORT_565,
    CL_UNORM_SHORT_555,
    CL_UNORM_INT_101010,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
    CL_UNORM_INT_101010_2,
];

/// Number of channels stored per texel for `order` (the ignored channel of `CL_Rx`,
/// `CL_RGBx` and `CL_sRGBx` included); `None` for an order Clift does not know.
pub fn channel_count(order: u32) -> Option<usize> {
    Order::from_cl(order).map(Order::channels)
}

/// Bytes per texel of the format, or `None` when `(order, data_type)` is not a format Clift
/// supports (for any image type; `supported_formats` narrows by image type).
pub fn element_size(order: u32, data_type: u32) -> Option<usize> {
    Format::new(order, data_type).map(Format::element_size)
}

/// Every `(channel order, channel data type)` Clift supports for `image_type`
/// (`CL_MEM_OBJECT_IMAGE1D` ... `CL_MEM_OBJECT_IMAGE1D_BUFFER`), all readable and writable
/// by kernels; empty for other types.
pub fn supported_formats(image_type: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for &o in &ORDERS {
        for &t in &DATA_TYPES {
            if Format::new(o, t).is_some_and(|f| f.allowed_for(image_type)) {
                v.push((o, t));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes() {
        assert_eq!(element_size(CL_RGBA, CL_UNORM_INT8), Some(4));
        assert_eq!(element_size(CL_RGBA, CL_FLOAT), Some(16));
        assert_eq!(element_size(CL_R, CL_HALF_FLOAT), Some(2));
        assert_eq!(element_size(CL_RG, CL_SIGNED_INT32), Some(8));
        assert_eq!(element_size(CL_Rx, CL_UNORM_INT8), None);
        assert_eq!(element_size(CL_RGB, CL_UNORM_SHORT_565), Some(2));
        assert_eq!(element_size(CL_RGBx, CL_UNORM_SHORT_555), Some(2));
        assert_eq!(element_size(CL_RGB, CL_UNORM_INT_101010), Some(4));
        assert_eq!(element_size(CL_RGBA, CL_UNORM_INT_101010_2), Some(4));
        assert_eq!(element_size(CL_sRGB, CL_UNORM_INT8), Some(3));
        assert_eq!(element_size(CL_sRGBx, CL_UNORM_INT8), None);
        assert_eq!(element_size(CL_DEPTH, CL_UNORM_INT16), Some(2));
        assert_eq!(element_size(CL_DEPTH, CL_FLOAT), Some(4));
        // Not formats.
        assert_eq!(element_size(CL_RGB, CL_UNORM_INT8), None);
        assert_eq!(element_size(CL_RGBA, CL_UNORM_SHORT_565), None);
        assert_eq!(element_size(CL_BGRA, CL_UNORM_INT16), None);
        assert_eq!(element_size(CL_INTENSITY, CL_SIGNED_INT8), None);
        assert_eq!(element_size(CL_sRGBA, CL_FLOAT), None);
        assert_eq!(element_size(CL_DEPTH, CL_UNORM_INT8), None);
        assert_eq!(element_size(0, CL_FLOAT), None);
        assert_eq!(element_size(CL_R, 0), None);
    }

    #[test]
    fn element_sizes_are_powers_of_two_but_srgb() {
        for ty in [
            CL_MEM_OBJECT_IMAGE1D,
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            CL_MEM_OBJECT_IMAGE2D,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            CL_MEM_OBJECT_IMAGE3D,
        ] {
            let list = supported_formats(ty);
            assert!(!list.is_empty());
            for (o, t) in list {
                let size = element_size(o, t).unwrap();
                assert!(size.is_power_of_two() || o == CL_sRGB, "{o:#x} {t:#x}");
            }
        }
    }

    #[test]
    fn supported_lists() {
        let d2 = supported_formats(CL_MEM_OBJECT_IMAGE2D);
        let d3 = supported_formats(CL_MEM_OBJECT_IMAGE3D);
        // The minimum lists of the API spec.
        for t in DATA_TYPES.iter().copied().filter(|&t| {
            !matches!(t, CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010) && t != CL_UNORM_INT_101010_2
        }) {
            for o in [CL_R, CL_RG, CL_RGBA] {
                assert!(d2.contains(&(o, t)) && d3.contains(&(o, t)));
            }
        }
        for f in [
            (CL_BGRA, CL_UNORM_INT8),
            (CL_sRGBA, CL_UNORM_INT8),
            (CL_DEPTH, CL_UNORM_INT16),
            (CL_DEPTH, CL_FLOAT),
            (CL_RGBx, CL_UNORM_INT_101010),
            (CL_RGBA, CL_UNORM_INT_101010_2),
            (CL_LUMINANCE, CL_HALF_FLOAT),
            (CL_ABGR, CL_SIGNED_INT8),
        ] {
            assert!(d2.contains(&f));
        }
        assert!(!d3.contains(&(CL_DEPTH, CL_FLOAT)));
        assert!(supported_formats(CL_MEM_OBJECT_IMAGE2D_ARRAY).contains(&(CL_DEPTH, CL_FLOAT)));
        assert!(!supported_formats(CL_MEM_OBJECT_IMAGE1D).contains(&(CL_DEPTH, CL_FLOAT)));
        assert!(supported_formats(0).is_empty());
        assert!(supported_formats(CL_MEM_OBJECT_BUFFER).is_empty());
        // No duplicates.
        let mut sorted = d2.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), d2.len());
    }

    #[test]
    fn channel_counts() {
        assert_eq!(channel_count(CL_R), Some(1));
        assert_eq!(channel_count(CL_Rx), Some(2));
        assert_eq!(channel_count(CL_RGx), Some(3));
        assert_eq!(channel_count(CL_RGBx), Some(4));
        assert_eq!(channel_count(CL_sRGB), Some(3));
        assert_eq!(channel_count(CL_DEPTH), Some(1));
        assert_eq!(channel_count(CL_ABGR), Some(4));
        assert_eq!(channel_count(0x10BE), None);
    }
}
