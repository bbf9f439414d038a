//! The image engine: texel formats, the conversion rules and the sampler of the OpenCL
//! SPIR-V environment, section 7. One engine serves kernels (the `clift_image_*` symbols the
//! JIT calls) and the runtime's host image commands, so they never disagree about a texel.
//!
//! - `format`: the supported `(order, data type)` pairs, element sizes, channel layout;
//! - `convert`: texel bytes to and from four components (7.4, 7.6), `fill_texel`;
//! - `sample`: coordinates, addressing and filtering (7.1, 7.2, 7.5, 7.7);
//! - `fast`: the reads kernels call, chosen per image: `sample` monomorphised for the common
//!   formats, image types and samplers, the entry points below for the rest.
//!
//! The entry points never panic and never touch memory outside the image their descriptor
//! describes, whatever the coordinates or sampler: a descriptor that is not a usable image
//! (null data, zero sizes, unknown format) reads zeros and writes nothing.

pub mod convert;
pub mod fast;
pub mod format;
pub mod sample;

#[cfg(test)]
mod fast_tests;
#[cfg(test)]
mod tests;

pub use convert::fill_texel;
pub use fast::{reads_for, ReadTable, GENERIC_READS};
pub use format::{channel_count, element_size, supported_formats};
pub use sample::Image;

use crate::abi::ImageDesc;

/// read_imagef (and read_imageh) with a sampler: the 4 components to `out`. Coordinates
/// are floats (integer coordinates converted by the caller); for image arrays the layer is
/// the coordinate after the spatial ones (y for 1D arrays, z for 2D arrays); unused
/// coordinates are ignored. A depth image's value is `out[0]` (4 floats are written all
/// the same).
///
/// # Safety
/// `img` is null or points at a descriptor whose data covers the image it describes; `out`
/// is valid for 4 floats.
#[no_mangle]
pub unsafe extern "C" fn clift_image_sample_float(
    img: *const ImageDesc,
    sampler: u32,
    x: f32,
    y: f32,
    z: f32,
    out: *mut f32,
) {
    let v = match image(img) {
        Some(i) => i.sample_float(sampler, [x, y, z]),
        None => [0.0; 4],
    };
    write4(out, v);
}

/// read_imagei / read_imageui with a sampler: 4 components (raw i32 bits) to `out`.
///
/// # Safety
/// As `clift_image_sample_float`, `out` valid for 4 i32.
#[no_mangle]
pub unsafe extern "C" fn clift_image_sample_int(
    img: *const ImageDesc,
    sampler: u32,
    x: f32,
    y: f32,
    z: f32,
    out: *mut i32,
) {
    let v = match image(img) {
        Some(i) => i.sample_int(sampler, [x, y, z]),
        None => [0; 4],
    };
    write4(out, v);
}

/// Sampler-less read_imagef / read_imageh (7.7): out-of-range coordinates read the border
/// colour.
///
/// # Safety
/// As `clift_image_sample_float`.
#[no_mangle]
pub unsafe extern "C" fn clift_image_read_float(img: *const ImageDesc, x: i32, y: i32, z: i32, out: *mut f32) {
    let v = match image(img) {
        Some(i) => i.read_float([x, y, z]),
        None => [0.0; 4],
    };
    write4(out, v);
}

/// Sampler-less read_imagei / read_imageui (raw i32 bits).
///
/// # Safety
/// As `clift_image_sample_int`.
#[no_mangle]
pub unsafe extern "C" fn clift_image_read_int(img: *const ImageDesc, x: i32, y: i32, z: i32, out: *mut i32) {
    let v = match image(img) {
        Some(i) => i.read_int([x, y, z]),
        None => [0; 4],
    };
    write4(out, v);
}

/// write_imagef / write_imageh: the 4 floats at `val`, or the one float at `val` for a
/// depth image; out-of-range coordinates write nothing.
///
/// # Safety
/// `img` as for `clift_image_sample_float` with writable data; `val` valid for 4 floats
/// (1 for a `CL_DEPTH` image).
#[no_mangle]
pub unsafe extern "C" fn clift_image_write_float(img: *const ImageDesc, x: i32, y: i32, z: i32, val: *const f32) {
    let Some(i) = image(img) else { return };
    if val.is_null() {
        return;
    }
    // write_imagef to a depth image passes one float.
    let v = if i.format.order == format::Order::Depth {
        [*val, 0.0, 0.0, 0.0]
    } else {
        std::ptr::read_unaligned(val as *const [f32; 4])
    };
    i.write_float([x, y, z], v);
}

/// write_imagei / write_imageui: the 4 i32 at `val`, saturated as the image's data type
/// (signed or unsigned) says; out-of-range coordinates write nothing.
///
/// # Safety
/// As `clift_image_write_float`, `val` valid for 4 i32.
#[no_mangle]
pub unsafe extern "C" fn clift_image_write_int(img: *const ImageDesc, x: i32, y: i32, z: i32, val: *const i32) {
    if let (Some(i), Some(v)) = (image(img), read4(val)) {
        i.write_int([x, y, z], v);
    }
}

/// The checked image behind a descriptor pointer.
///
/// # Safety
/// `img` is null or valid for reading an `ImageDesc`.
#[inline]
unsafe fn image(img: *const ImageDesc) -> Option<Image> {
    img.as_ref().and_then(Image::new)
}

#[inline]
unsafe fn write4<T: Copy>(out: *mut T, v: [T; 4]) {
    if !out.is_null() {
        std::ptr::write_unaligned(out as *mut [T; 4], v);
    }
}

#[inline]
unsafe fn read4<T: Copy>(p: *const T) -> Option<[T; 4]> {
    (!p.is_null()).then(|| std::ptr::read_unaligned(p as *const [T; 4]))
}

// ---- Rust API for the runtime and tests ---------------------------------------------------

/// A sampler-less read with a float result ([`Image::read_float`]); zeros for an unusable
/// descriptor.
///
/// # Safety
/// `desc.data` covers the image `desc` describes.
pub unsafe fn read_texel_float(desc: &ImageDesc, coord: [i32; 3]) -> [f32; 4] {
    Image::new(desc).map_or([0.0; 4], |i| i.read_float(coord))
}

/// A sampler-less read with an integer result (raw i32 bits).
///
/// # Safety
/// As [`read_texel_float`].
pub unsafe fn read_texel_int(desc: &ImageDesc, coord: [i32; 3]) -> [i32; 4] {
    Image::new(desc).map_or([0; 4], |i| i.read_int(coord))
}

/// write_imagef on the host.
///
/// # Safety
/// As [`read_texel_float`], and the data is writable.
pub unsafe fn write_texel_float(desc: &ImageDesc, coord: [i32; 3], v: [f32; 4]) {
    if let Some(i) = Image::new(desc) {
        i.write_float(coord, v);
    }
}

/// write_imagei / write_imageui on the host.
///
/// # Safety
/// As [`write_texel_float`].
pub unsafe fn write_texel_int(desc: &ImageDesc, coord: [i32; 3], v: [i32; 4]) {
    if let Some(i) = Image::new(desc) {
        i.write_int(coord, v);
    }
}

/// read_imagef with a sampler (`sampler_bits` encoding).
///
/// # Safety
/// As [`read_texel_float`].
pub unsafe fn sample_float(desc: &ImageDesc, sampler: u32, coord: [f32; 3]) -> [f32; 4] {
    Image::new(desc).map_or([0.0; 4], |i| i.sample_float(sampler, coord))
}

/// read_imagei / read_imageui with a sampler.
///
/// # Safety
/// As [`read_texel_float`].
pub unsafe fn sample_int(desc: &ImageDesc, sampler: u32, coord: [f32; 3]) -> [i32; 4] {
    Image::new(desc).map_or([0; 4], |i| i.sample_int(sampler, coord))
}

/// `(name, address)` of every image entry point, for the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("clift_image_sample_float", clift_image_sample_float as *const u8),
        ("clift_image_sample_int", clift_image_sample_int as *const u8),
        ("clift_image_read_float", clift_image_read_float as *const u8),
        ("clift_image_read_int", clift_image_read_int as *const u8),
        ("clift_image_write_float", clift_image_write_float as *const u8),
        ("clift_image_write_int", clift_image_write_int as *const u8),
    ]
}
