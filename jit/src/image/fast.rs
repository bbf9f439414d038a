//! Image reads specialised for their format, image type and sampler: the reference engine's
//! own code (`sample::Image`), monomorphised.
//!
//! Kernels do not call the engine's `clift_image_*` entry points for reads. Each image's
//! descriptor carries a [`ReadTable`] chosen once, when the runtime creates the image, from
//! its format and image type ([`reads_for`]). The kernel loads the entry for its sampler
//! (`sampler & 63`: a constant index for a literal or `OpConstantSampler` sampler, the
//! argument's bits otherwise) and the read kind it needs, and calls it. An entry serves one
//! `(channel order, channel data type, image type, sampler)`: the engine's
//! `Image::sample_float` / `sample_int` / `read_*` inlined with all four as constants, so
//! what is left is the straight-line code of that combination: no decision on the format,
//! the addressing mode, the filter or the normalisation per texel. Being the same code, the
//! results are bit-identical to the reference engine's (`fast_tests` checks it over every
//! combination served).
//!
//! Served (the common combinations): channel orders `CL_RGBA`, `CL_BGRA` (8-bit types only,
//! as the format table allows), `CL_R` and `CL_RG`; data types `CL_UNORM_INT8`,
//! `CL_UNORM_INT16`, `CL_HALF_FLOAT`, `CL_FLOAT` (read_imagef/h) and `CL_(UN)SIGNED_INT8/16/32`
//! (read_imagei/ui); 1D, 1D array, 2D, 2D array and 3D images with every valid sampler
//! (nearest and linear; none, clamp-to-edge, clamp, repeat, mirrored repeat; normalised or
//! not), and sampler-less reads of those formats on every image type (1D buffers included).
//! Every other entry, and every table of another format, is the reference engine's entry
//! point (`GENERIC_READS`): sRGB, packed, SNORM, depth, intensity/luminance and the other
//! orders; a read kind the format does not return (read_imagei of a float image, undefined);
//! sampler bits that are not a valid sampler.
//!
//! An entry checks that the descriptor still holds its format and image type (and the engine's
//! other checks of a usable descriptor) and otherwise hands the read to the reference entry
//! point, so a table that does not match its descriptor is slow, never wrong or unsafe.

use super::format::{DataType, Format, Order};
use super::sample::Image;
use super::{clift_image_read_float, clift_image_read_int, clift_image_sample_float, clift_image_sample_int};
use super::{write4, ImageDesc};
use opencl_sys::*;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A sampled read: descriptor, sampler bits, coordinates (x, y, z; array layer after the
/// spatial ones), and the 4 result components (f32 or i32 bits) to `out`.
pub type SampleFn = unsafe extern "C" fn(*const ImageDesc, u32, f32, f32, f32, *mut u32);
/// A sampler-less read: descriptor, integer coordinates, the 4 result components to `out`.
pub type ReadFn = unsafe extern "C" fn(*const ImageDesc, i32, i32, i32, *mut u32);

/// Sampler bits index the tables' sampled entries: normalised (bit 0), addressing (bits
/// 1-3) and filter (bits 4-5) of `abi::sampler_bits`. Bits above are ignored, as the
/// engine ignores them.
pub const SAMPLER_INDEX_MASK: u32 = 63;

/// The reads of one image (`ImageDesc::reads`). The layout is read by generated code
/// (`SAMPLE_FLOAT_OFFSET` ...).
#[repr(C)]
pub struct ReadTable {
    /// read_imagef / read_imageh with a sampler, by `sampler & SAMPLER_INDEX_MASK`.
    pub sample_float: [SampleFn; 64],
    /// read_imagei / read_imageui with a sampler, likewise.
    pub sample_int: [SampleFn; 64],
    /// Sampler-less read_imagef / read_imageh.
    pub read_float: ReadFn,
    /// Sampler-less read_imagei / read_imageui.
    pub read_int: ReadFn,
}

pub const SAMPLE_FLOAT_OFFSET: i32 = std::mem::offset_of!(ReadTable, sample_float) as i32;
pub const SAMPLE_INT_OFFSET: i32 = std::mem::offset_of!(ReadTable, sample_int) as i32;
pub const READ_FLOAT_OFFSET: i32 = std::mem::offset_of!(ReadTable, read_float) as i32;
pub const READ_INT_OFFSET: i32 = std::mem::offset_of!(ReadTable, read_int) as i32;

/// Every read through the reference engine: the table of formats without specialised reads
/// and of descriptors built by hand.
pub static GENERIC_READS: ReadTable = ReadTable {
    sample_float: [generic_sample_float; 64],
    sample_int: [generic_sample_int; 64],
    read_float: generic_read_float,
    read_int: generic_read_int,
};

unsafe extern "C" fn generic_sample_float(img: *const ImageDesc, s: u32, x: f32, y: f32, z: f32, out: *mut u32) {
    clift_image_sample_float(img, s, x, y, z, out as *mut f32)
}

unsafe extern "C" fn generic_sample_int(img: *const ImageDesc, s: u32, x: f32, y: f32, z: f32, out: *mut u32) {
    clift_image_sample_int(img, s, x, y, z, out as *mut i32)
}

unsafe extern "C" fn generic_read_float(img: *const ImageDesc, x: i32, y: i32, z: i32, out: *mut u32) {
    clift_image_read_float(img, x, y, z, out as *mut f32)
}

unsafe extern "C" fn generic_read_int(img: *const ImageDesc, x: i32, y: i32, z: i32, out: *mut u32) {
    clift_image_read_int(img, x, y, z, out as *mut i32)
}

/// The specialised tables built so far, by (order, data type, image type).
type Tables = HashMap<(u32, u32, u32), &'static ReadTable>;

/// The reads for `desc`: specialised ones when its format is served and the descriptor is a
/// usable image, else [`GENERIC_READS`]. One table per (format, image type), built on first
/// use and kept for the process.
pub fn reads_for(desc: &ImageDesc) -> &'static ReadTable {
    if Image::new(desc).is_none() {
        return &GENERIC_READS;
    }
    let key = (desc.channel_order, desc.channel_data_type, desc.image_type);
    static TABLES: OnceLock<Mutex<Tables>> = OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    let mut tables = tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = tables.get(&key) {
        return t;
    }
    let Some(table) = build(key.0, key.1, key.2) else {
        return &GENERIC_READS;
    };
    // Bounded: one per served (format, image type).
    let table: &'static ReadTable = Box::leak(Box::new(table));
    tables.insert(key, table);
    table
}

/// Whether `reads_for` gives specialised reads for this format and image type.
pub fn served(order: u32, data_type: u32, image_type: u32) -> bool {
    build(order, data_type, image_type).is_some()
}

/// The format of a served `(order, data type)` pair, as a constant.
const fn format_of(order: u32, data_type: u32) -> Format {
    let order = match order {
        CL_RGBA => Order::RGBA,
        CL_BGRA => Order::BGRA,
        CL_R => Order::R,
        CL_RG => Order::RG,
        _ => panic!("channel order without specialised reads"),
    };
    let data_type = match data_type {
        CL_UNORM_INT8 => DataType::UnormInt8,
        CL_UNORM_INT16 => DataType::UnormInt16,
        CL_HALF_FLOAT => DataType::HalfFloat,
        CL_FLOAT => DataType::Float,
        CL_SIGNED_INT8 => DataType::SignedInt8,
        CL_SIGNED_INT16 => DataType::SignedInt16,
        CL_SIGNED_INT32 => DataType::SignedInt32,
        CL_UNSIGNED_INT8 => DataType::UnsignedInt8,
        CL_UNSIGNED_INT16 => DataType::UnsignedInt16,
        CL_UNSIGNED_INT32 => DataType::UnsignedInt32,
        _ => panic!("channel data type without specialised reads"),
    };
    Format { order, data_type }
}

/// The image behind `img` when it still has the format and image type of the entry (and is
/// usable), with those as constants.
///
/// # Safety
/// `img` is null or valid for reading an `ImageDesc`.
#[inline(always)]
unsafe fn view<const ORDER: u32, const DTYPE: u32, const TYPE: u32>(img: *const ImageDesc) -> Option<Image> {
    let d = img.as_ref()?;
    if d.channel_order != ORDER || d.channel_data_type != DTYPE || d.image_type != TYPE {
        return None;
    }
    Image::with_format(d, const { format_of(ORDER, DTYPE) }, TYPE)
}

unsafe extern "C" fn sample_float<const ORDER: u32, const DTYPE: u32, const TYPE: u32, const SAMPLER: u32>(
    img: *const ImageDesc,
    s: u32,
    x: f32,
    y: f32,
    z: f32,
    out: *mut u32,
) {
    match view::<ORDER, DTYPE, TYPE>(img) {
        Some(i) => write4(out, i.sample_float(SAMPLER, [x, y, z]).map(f32::to_bits)),
        None => generic_sample_float(img, s, x, y, z, out),
    }
}

unsafe extern "C" fn sample_int<const ORDER: u32, const DTYPE: u32, const TYPE: u32, const SAMPLER: u32>(
    img: *const ImageDesc,
    s: u32,
    x: f32,
    y: f32,
    z: f32,
    out: *mut u32,
) {
    match view::<ORDER, DTYPE, TYPE>(img) {
        Some(i) => write4(out, i.sample_int(SAMPLER, [x, y, z]).map(|v| v as u32)),
        None => generic_sample_int(img, s, x, y, z, out),
    }
}

unsafe extern "C" fn read_float<const ORDER: u32, const DTYPE: u32, const TYPE: u32>(
    img: *const ImageDesc,
    x: i32,
    y: i32,
    z: i32,
    out: *mut u32,
) {
    match view::<ORDER, DTYPE, TYPE>(img) {
        Some(i) => write4(out, i.read_float([x, y, z]).map(f32::to_bits)),
        None => generic_read_float(img, x, y, z, out),
    }
}

unsafe extern "C" fn read_int<const ORDER: u32, const DTYPE: u32, const TYPE: u32>(
    img: *const ImageDesc,
    x: i32,
    y: i32,
    z: i32,
    out: *mut u32,
) {
    match view::<ORDER, DTYPE, TYPE>(img) {
        Some(i) => write4(out, i.read_int([x, y, z]).map(|v| v as u32)),
        None => generic_read_int(img, x, y, z, out),
    }
}

/// The valid samplers: nearest (0x10) or linear (0x20), an addressing mode (0, 2, 4, 6, 8),
/// normalised or not (bit 0).
macro_rules! each_sampler {
    ($m:ident) => {
        $m!(0x10 0x11 0x12 0x13 0x14 0x15 0x16 0x17 0x18 0x19 0x20 0x21 0x22 0x23 0x24 0x25 0x26 0x27 0x28 0x29)
    };
}

/// The table of a format whose reads return floats (read_imagef/h).
fn float_table<const ORDER: u32, const DTYPE: u32, const TYPE: u32>() -> ReadTable {
    let mut sample = [generic_sample_float as SampleFn; 64];
    // A 1D image buffer is read without a sampler only (OpenCL C 6.15.15.3).
    if TYPE != CL_MEM_OBJECT_IMAGE1D_BUFFER {
        macro_rules! put {
            ($($s:literal)*) => { $( sample[$s] = sample_float::<ORDER, DTYPE, TYPE, $s>; )* };
        }
        each_sampler!(put);
    }
    ReadTable {
        sample_float: sample,
        sample_int: [generic_sample_int; 64],
        read_float: read_float::<ORDER, DTYPE, TYPE>,
        read_int: generic_read_int,
    }
}

/// The table of a format whose reads return integers (read_imagei/ui). These reads are
/// always nearest (the engine ignores the filter of integer formats), so a linear sampler's
/// entry is the nearest one with the same addressing and normalisation.
fn int_table<const ORDER: u32, const DTYPE: u32, const TYPE: u32>() -> ReadTable {
    let mut sample = [generic_sample_int as SampleFn; 64];
    if TYPE != CL_MEM_OBJECT_IMAGE1D_BUFFER {
        macro_rules! put {
            ($($s:literal)*) => { $( sample[$s] = sample_int::<ORDER, DTYPE, TYPE, { $s & 0xf | 0x10 }>; )* };
        }
        each_sampler!(put);
    }
    ReadTable {
        sample_float: [generic_sample_float; 64],
        sample_int: sample,
        read_float: generic_read_float,
        read_int: read_int::<ORDER, DTYPE, TYPE>,
    }
}

/// The specialised table of `(order, data_type, image_type)`, `None` when not served.
fn build(order: u32, data_type: u32, image_type: u32) -> Option<ReadTable> {
    macro_rules! by_type {
        ($make:ident, $o:ident, $d:ident) => {
            match image_type {
                CL_MEM_OBJECT_IMAGE1D => $make::<$o, $d, CL_MEM_OBJECT_IMAGE1D>(),
                CL_MEM_OBJECT_IMAGE1D_BUFFER => $make::<$o, $d, CL_MEM_OBJECT_IMAGE1D_BUFFER>(),
                CL_MEM_OBJECT_IMAGE1D_ARRAY => $make::<$o, $d, CL_MEM_OBJECT_IMAGE1D_ARRAY>(),
                CL_MEM_OBJECT_IMAGE2D => $make::<$o, $d, CL_MEM_OBJECT_IMAGE2D>(),
                CL_MEM_OBJECT_IMAGE2D_ARRAY => $make::<$o, $d, CL_MEM_OBJECT_IMAGE2D_ARRAY>(),
                CL_MEM_OBJECT_IMAGE3D => $make::<$o, $d, CL_MEM_OBJECT_IMAGE3D>(),
                _ => return None,
            }
        };
    }
    macro_rules! each_data_type {
        ($make:ident, $o:ident, [$($d:ident)*]) => {
            $( if order == $o && data_type == $d { return Some(by_type!($make, $o, $d)); } )*
        };
    }
    macro_rules! formats {
        ($( $make:ident: $($o:ident)* => $ds:tt; )*) => {
            $( $( each_data_type!($make, $o, $ds); )* )*
        };
    }
    formats! {
        float_table: CL_RGBA CL_R CL_RG => [CL_UNORM_INT8 CL_UNORM_INT16 CL_HALF_FLOAT CL_FLOAT];
        float_table: CL_BGRA => [CL_UNORM_INT8];
        int_table: CL_RGBA CL_R CL_RG => [CL_SIGNED_INT8 CL_SIGNED_INT16 CL_SIGNED_INT32
            CL_UNSIGNED_INT8 CL_UNSIGNED_INT16 CL_UNSIGNED_INT32];
        int_table: CL_BGRA => [CL_SIGNED_INT8 CL_UNSIGNED_INT8];
    }
    None
}
