//! Image objects (API section 5.3): which formats are valid and supported, the dimensions and
//! pitches of an image, and the part of a memory object that makes it an image. An image's
//! pixels are bytes of its memory object's storage; the host commands address them through
//! the `rect::Rect`s built here, kernels through the `ImageDesc` kept here.
//!
//! Coordinates follow the host commands' `origin` and `region`: (x, y, z) for 1D, 2D and 3D
//! images, (x, layer) for 1D image arrays and (x, y, layer) for 2D image arrays; unused
//! coordinates are 0 with extent 1.

// The specification's names for channel orders: CL_Rx, CL_sRGBA, ...
#![allow(non_upper_case_globals)]

use crate::device;
use crate::rect::Rect;
use jit::abi::ImageDesc;
use jit::image::{convert, format as engine};
use opencl_sys::*;

/// Every `cl_mem_object_type` of an image.
pub const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

pub fn is_image_type(t: cl_mem_object_type) -> bool {
    IMAGE_TYPES.contains(&t)
}

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

/// Channels of an order of the "Image Channel Order" table (the `x` orders count their
/// ignored channel).
fn order_channels(order: cl_channel_order) -> Option<usize> {
    Some(match order {
        CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => 1,
        CL_RG | CL_RA | CL_Rx => 2,
        CL_RGB | CL_RGx | CL_sRGB => 3,
        CL_RGBA | CL_BGRA | CL_ARGB | CL_ABGR | CL_RGBx | CL_sRGBA | CL_sBGRA | CL_sRGBx => 4,
        _ => return None,
    })
}

/// Bytes of one channel of a type of the "Image Channel Data Types" table, or for the packed
/// types the whole element, with the orders a packed type allows.
fn type_size(data_type: cl_channel_type) -> Option<(usize, Option<&'static [cl_channel_order]>)> {
    const RGB: &[cl_channel_order] = &[CL_RGB, CL_RGBx];
    Some(match data_type {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => (1, None),
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => (2, None),
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => (4, None),
        // "The channel order must be CL_RGB or CL_RGBx" / "must be CL_RGBA".
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => (2, Some(RGB)),
        CL_UNORM_INT_101010 => (4, Some(RGB)),
        CL_UNORM_INT_101010_2 => (4, Some(&[CL_RGBA])),
        _ => return None,
    })
}

/// The element size of a format by the tables alone (`None`: not a valid format).
fn table_element_size(f: &cl_image_format) -> Option<usize> {
    let channels = order_channels(f.image_channel_order)?;
    match type_size(f.image_channel_data_type)? {
        (size, Some(orders)) => orders.contains(&f.image_channel_order).then_some(size),
        (size, None) => Some(size * channels),
    }
}

/// "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not valid": an
/// order or type outside the tables, a packed type with an order it does not name, or "the
/// number of bits per element ... must be a power of two". A format the device supports is
/// valid (`CL_sRGB` with 24 bits is listed by the specification).
pub fn format_is_valid(f: &cl_image_format) -> bool {
    table_element_size(f).is_some_and(usize::is_power_of_two) || IMAGE_TYPES.iter().any(|&t| is_supported(t, f))
}

/// The formats the device supports for an image type, for reading, writing and both (the
/// image engine's table).
pub fn supported_formats(image_type: cl_mem_object_type) -> Vec<cl_image_format> {
    engine::supported_formats(image_type)
        .into_iter()
        .map(|(order, data_type)| cl_image_format {
            image_channel_order: order,
            image_channel_data_type: data_type,
        })
        .collect()
}

pub fn is_supported(image_type: cl_mem_object_type, f: &cl_image_format) -> bool {
    engine::supported_formats(image_type).contains(&(f.image_channel_order, f.image_channel_data_type))
}

/// Bytes of one element of a supported format.
pub fn element_size(f: &cl_image_format) -> Option<usize> {
    engine::element_size(f.image_channel_order, f.image_channel_data_type)
}

/// Whether an image of `order` may view the pixels of a 2D image of `parent` ("Compatible
/// Image Channel Orders": the sRGB and linear forms of an order, and CL_DEPTH over CL_R). The
/// same order is a plain alias.
pub fn orders_compatible(order: cl_channel_order, parent: cl_channel_order) -> bool {
    const PAIRS: [(cl_channel_order, cl_channel_order); 5] = [
        (CL_sBGRA, CL_BGRA),
        (CL_sRGBA, CL_RGBA),
        (CL_sRGB, CL_RGB),
        (CL_sRGBx, CL_RGBx),
        (CL_DEPTH, CL_R),
    ];
    order == parent
        || PAIRS
            .iter()
            .any(|&(a, b)| (order, parent) == (a, b) || (order, parent) == (b, a) && a != CL_DEPTH)
}

/// One element of `f` filled with `color` (clEnqueueFillImage): a float4, int4 or uint4, or
/// one float for CL_DEPTH, converted as the format dictates.
pub fn fill_texel(f: &cl_image_format, color: &[u8; 16]) -> Option<Vec<u8>> {
    convert::fill_texel(f.image_channel_order, f.image_channel_data_type, color)
}

// ---------------------------------------------------------------------------------------------
// Dimensions and pitches
// ---------------------------------------------------------------------------------------------

/// An image's size in pixels; the dimensions its type does not use are 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
}

/// The dimensions of a descriptor, checked against the device's limits:
/// "CL_INVALID_IMAGE_SIZE if the image dimensions specified in image_desc are not valid or
/// exceed the maximum image dimensions" (each field's rules in "Image Descriptor").
pub fn dims(desc: &cl_image_desc) -> Result<Dims, cl_int> {
    let d = device::device();
    let max2 = device::IMAGE2D_MAX_SIZE;
    let max3 = device::IMAGE3D_MAX_SIZE;
    let layers = device::IMAGE_MAX_ARRAY_SIZE;
    let (w, h, z, a) = (
        desc.image_width,
        desc.image_height,
        desc.image_depth,
        desc.image_array_size,
    );
    let within = |v: usize, max: usize| (1..=max).contains(&v);
    let (ok, dims) = match desc.image_type {
        CL_MEM_OBJECT_IMAGE1D => (within(w, max2), (w, 1, 1, 1)),
        CL_MEM_OBJECT_IMAGE1D_BUFFER => (within(w, d.image_max_buffer_size()), (w, 1, 1, 1)),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (within(w, max2) && within(a, layers), (w, 1, 1, a)),
        CL_MEM_OBJECT_IMAGE2D => (within(w, max2) && within(h, max2), (w, h, 1, 1)),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (within(w, max2) && within(h, max2) && within(a, layers), (w, h, 1, a)),
        CL_MEM_OBJECT_IMAGE3D => (within(w, max3) && within(h, max3) && within(z, max3), (w, h, z, 1)),
        _ => return Err(CL_INVALID_IMAGE_DESCRIPTOR),
    };
    if !ok {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    Ok(Dims {
        width: dims.0,
        height: dims.1,
        depth: dims.2,
        array_size: dims.3,
    })
}

/// Where an image's pixels lie in its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub element_size: usize,
    /// Bytes from one row to the next.
    pub row_pitch: usize,
    /// Bytes from one 2D slice (3D) or layer (arrays) to the next; for 1D and 2D images the
    /// size of the one slice.
    pub slice_pitch: usize,
    /// The bytes the image spans: the "Required host_ptr buffer sizes for images" table.
    pub size: usize,
}

impl Layout {
    /// The layout with these pitches (0: tightly packed), after the rules of
    /// `image_row_pitch` and `image_slice_pitch` ("If image_row_pitch is non-zero, then it
    /// must be greater than or equal to the image_width times the size of an image element in
    /// bytes, and must be a multiple of the size of an image element"; "The image slice pitch
    /// must be >= the image row pitch x image_height for a 2D image array or a 3D image, must
    /// be >= the image row pitch for a 1D image array, and must be a multiple of the image row
    /// pitch"): CL_INVALID_IMAGE_DESCRIPTOR when they are broken, CL_INVALID_IMAGE_SIZE when
    /// the sizes overflow.
    pub fn new(
        image_type: cl_mem_object_type,
        dims: Dims,
        element_size: usize,
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<Layout, cl_int> {
        let min_row = dims.width.checked_mul(element_size).ok_or(CL_INVALID_IMAGE_SIZE)?;
        let row = if row_pitch == 0 { min_row } else { row_pitch };
        if row < min_row || !row.is_multiple_of(element_size) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        let rows = dims.height.checked_mul(row).ok_or(CL_INVALID_IMAGE_SIZE)?;
        let (slice, count) = match image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (row, dims.array_size),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (rows, dims.array_size),
            CL_MEM_OBJECT_IMAGE3D => (rows, dims.depth),
            // 1D and 2D images have no slice pitch: it is not looked at.
            _ => {
                return Ok(Layout {
                    element_size,
                    row_pitch: row,
                    slice_pitch: rows,
                    size: rows,
                })
            }
        };
        let slice = match slice_pitch {
            0 => slice,
            given if given < slice || !given.is_multiple_of(row) => return Err(CL_INVALID_IMAGE_DESCRIPTOR),
            given => given,
        };
        Ok(Layout {
            element_size,
            row_pitch: row,
            slice_pitch: slice,
            size: slice.checked_mul(count).ok_or(CL_INVALID_IMAGE_SIZE)?,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The image part of a memory object
// ---------------------------------------------------------------------------------------------

/// What makes a memory object an image: its format, dimensions and layout, and the
/// descriptor kernels receive (boxed, so its address stays fixed for the image's lifetime).
pub struct Image {
    pub image_type: cl_mem_object_type,
    pub format: cl_image_format,
    pub dims: Dims,
    pub layout: Layout,
    desc: Box<ImageDesc>,
}

impl Image {
    /// An image whose pixel (0, 0, 0) of layer 0 is at `data`.
    pub fn new(
        image_type: cl_mem_object_type,
        format: cl_image_format,
        dims: Dims,
        layout: Layout,
        data: *mut u8,
    ) -> Image {
        let mut desc = Box::new(ImageDesc {
            data,
            image_type,
            channel_order: format.image_channel_order,
            channel_data_type: format.image_channel_data_type,
            element_size: layout.element_size as u32,
            width: dims.width as u64,
            height: dims.height as u64,
            depth: dims.depth as u64,
            array_size: dims.array_size as u64,
            row_pitch: layout.row_pitch as u64,
            slice_pitch: layout.slice_pitch as u64,
            reads: &jit::image::GENERIC_READS,
        });
        // The reads kernels call: chosen once, from the format and image type.
        desc.reads = jit::image::reads_for(&desc);
        Image {
            image_type,
            format,
            dims,
            layout,
            desc,
        }
    }

    /// The kernel argument value (`ArgKind::Image`): the descriptor's address.
    pub fn desc_address(&self) -> u64 {
        &*self.desc as *const ImageDesc as u64
    }

    /// The descriptor kernels receive.
    pub fn desc(&self) -> &ImageDesc {
        &self.desc
    }

    pub fn element_size(&self) -> usize {
        self.layout.element_size
    }

    /// The extent in origin/region coordinates.
    pub fn extent(&self) -> [usize; 3] {
        let d = self.dims;
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [d.width, d.array_size, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [d.width, d.height, d.array_size],
            _ => [d.width, d.height, d.depth],
        }
    }

    /// Bytes between consecutive values of the y and z coordinates.
    fn strides(&self) -> (usize, usize) {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (self.layout.slice_pitch, self.layout.size),
            _ => (self.layout.row_pitch, self.layout.slice_pitch),
        }
    }

    /// "CL_INVALID_VALUE if the region ... specified by origin and region is out of bounds or
    /// if values in origin and region do not follow the rules described in the argument
    /// description for origin and region": every region value at least 1, and the box
    /// within the image. A coordinate the image type does not use has extent 1, so this also
    /// enforces "origin[2] must be 0" and "region[2] must be 1" for a 2D image and the like.
    pub fn check_region(&self, origin: [usize; 3], region: [usize; 3]) -> Result<(), cl_int> {
        let extent = self.extent();
        let inside = (0..3).all(|i| region[i] != 0 && origin[i].checked_add(region[i]).is_some_and(|e| e <= extent[i]));
        if inside {
            Ok(())
        } else {
            Err(CL_INVALID_VALUE)
        }
    }

    /// The region's row length in bytes, rows and slices: the `region` of `rect::copy`.
    pub fn byte_region(&self, region: [usize; 3]) -> [usize; 3] {
        [region[0] * self.element_size(), region[1], region[2]]
    }

    /// The image side of a transfer at `origin` (checked with `check_region`), relative to
    /// the image's first byte.
    pub fn rect(&self, origin: [usize; 3]) -> Rect {
        let (row_pitch, slice_pitch) = self.strides();
        Rect {
            origin: [origin[0] * self.element_size(), origin[1], origin[2]],
            row_pitch,
            slice_pitch,
        }
    }

    /// The host side of clEnqueueReadImage / clEnqueueWriteImage: pitches 0 mean tightly
    /// packed; "row_pitch ... must be greater than or equal to the element size in bytes x
    /// width"; "slice_pitch ... must be 0 if image is a 1D or 2D image. Otherwise this value
    /// must be greater than or equal to row_pitch x height" (the height of a 1D image array's
    /// layers being one row). CL_INVALID_VALUE otherwise.
    pub fn host_rect(&self, region: [usize; 3], row_pitch: usize, slice_pitch: usize) -> Result<Rect, cl_int> {
        let min_row = region[0].checked_mul(self.element_size()).ok_or(CL_INVALID_VALUE)?;
        let row = if row_pitch == 0 { min_row } else { row_pitch };
        if row < min_row {
            return Err(CL_INVALID_VALUE);
        }
        let rows_per_slice = match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => 1,
            CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => region[1],
            _ if slice_pitch != 0 => return Err(CL_INVALID_VALUE),
            _ => region[1],
        };
        let min_slice = row.checked_mul(rows_per_slice).ok_or(CL_INVALID_VALUE)?;
        let slice = if slice_pitch == 0 { min_slice } else { slice_pitch };
        if slice < min_slice {
            return Err(CL_INVALID_VALUE);
        }
        let rect = match self.image_type {
            // A 1D image array's layers are its rows: one row per slice pitch.
            CL_MEM_OBJECT_IMAGE1D_ARRAY => Rect {
                origin: [0; 3],
                row_pitch: slice,
                slice_pitch: slice.checked_mul(region[1]).ok_or(CL_INVALID_VALUE)?,
            },
            _ => Rect {
                origin: [0; 3],
                row_pitch: row,
                slice_pitch: slice,
            },
        };
        rect.end(self.byte_region(region)).ok_or(CL_INVALID_VALUE)?;
        Ok(rect)
    }

    /// Bytes of a region packed tightly ("dst_cb" of clEnqueueCopyImageToBuffer, "src_cb" of
    /// clEnqueueCopyBufferToImage), and its rectangle at `offset` in the buffer.
    pub fn packed(&self, region: [usize; 3], offset: usize) -> Option<(usize, Rect)> {
        let row = region[0].checked_mul(self.element_size())?;
        let slice = row.checked_mul(region[1])?;
        let size = slice.checked_mul(region[2])?;
        Some((
            size,
            Rect {
                origin: [offset, 0, 0],
                row_pitch: row,
                slice_pitch: slice,
            },
        ))
    }

    /// `CL_IMAGE_SLICE_PITCH`: "For a 1D image, 1D image buffer and 2D image object return 0."
    pub fn reported_slice_pitch(&self) -> usize {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => {
                self.layout.slice_pitch
            }
            _ => 0,
        }
    }

    /// `CL_IMAGE_HEIGHT`, `CL_IMAGE_DEPTH`, `CL_IMAGE_ARRAY_SIZE`: 0 where the type has none.
    pub fn reported_dims(&self) -> [usize; 3] {
        let d = self.dims;
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [0, 0, d.array_size],
            CL_MEM_OBJECT_IMAGE2D => [d.height, 0, 0],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [d.height, 0, d.array_size],
            CL_MEM_OBJECT_IMAGE3D => [d.height, d.depth, 0],
            _ => [0, 0, 0],
        }
    }
}

/// Fills a region of an image with one element.
///
/// # Safety
/// `base` must be the image's first byte and the region checked with `check_region`.
pub unsafe fn fill(image: &Image, base: *mut u8, origin: [usize; 3], region: [usize; 3], texel: &[u8]) {
    let r = image.rect(origin);
    let bytes = image.byte_region(region);
    for (start, end) in r.rows(bytes) {
        let row = std::slice::from_raw_parts_mut(base.add(start), end - start);
        crate::memory::fill_pattern(row, texel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(order: cl_channel_order, data_type: cl_channel_type) -> cl_image_format {
        cl_image_format {
            image_channel_order: order,
            image_channel_data_type: data_type,
        }
    }

    #[test]
    fn format_validity() {
        assert!(format_is_valid(&format(CL_RGBA, CL_UNORM_INT8)));
        assert!(format_is_valid(&format(CL_RGB, CL_UNORM_SHORT_565)));
        assert!(format_is_valid(&format(CL_RGBA, CL_UNORM_INT_101010_2)));
        // Packed types with an order they do not name; 24-bit elements; unknown values.
        assert!(!format_is_valid(&format(CL_RGBA, CL_UNORM_SHORT_565)));
        assert!(!format_is_valid(&format(CL_RGB, CL_UNORM_INT_101010_2)));
        assert!(!format_is_valid(&format(CL_RGB, CL_UNSIGNED_INT8)));
        assert!(!format_is_valid(&format(0, CL_FLOAT)));
        assert!(!format_is_valid(&format(CL_RGBA, 0)));
    }

    #[test]
    fn compatible_orders() {
        assert!(orders_compatible(CL_sRGBA, CL_RGBA));
        assert!(orders_compatible(CL_RGBA, CL_sRGBA));
        assert!(orders_compatible(CL_DEPTH, CL_R));
        assert!(!orders_compatible(CL_R, CL_DEPTH));
        assert!(!orders_compatible(CL_BGRA, CL_RGBA));
        assert!(orders_compatible(CL_RG, CL_RG));
    }

    #[test]
    fn layouts() {
        let d = Dims {
            width: 10,
            height: 3,
            depth: 1,
            array_size: 4,
        };
        let l = Layout::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, d, 4, 0, 0).unwrap();
        assert_eq!((l.row_pitch, l.slice_pitch, l.size), (40, 120, 480));
        let l = Layout::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, d, 4, 44, 176).unwrap();
        assert_eq!((l.row_pitch, l.slice_pitch, l.size), (44, 176, 704));
        assert_eq!(
            Layout::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, d, 4, 42, 0),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            Layout::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, d, 4, 44, 100),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        let l = Layout::new(CL_MEM_OBJECT_IMAGE1D_ARRAY, d, 4, 0, 80).unwrap();
        assert_eq!((l.row_pitch, l.slice_pitch, l.size), (40, 80, 320));
        let huge = Dims {
            width: usize::MAX / 2,
            ..d
        };
        assert_eq!(
            Layout::new(CL_MEM_OBJECT_IMAGE2D, huge, 16, 0, 0),
            Err(CL_INVALID_IMAGE_SIZE)
        );
    }

    #[test]
    fn regions_and_rects() {
        let d = Dims {
            width: 8,
            height: 1,
            depth: 1,
            array_size: 5,
        };
        let f = format(CL_RGBA, CL_UNORM_INT8);
        let layout = Layout::new(CL_MEM_OBJECT_IMAGE1D_ARRAY, d, 4, 0, 64).unwrap();
        let img = Image::new(CL_MEM_OBJECT_IMAGE1D_ARRAY, f, d, layout, std::ptr::null_mut());
        assert_eq!(img.extent(), [8, 5, 1]);
        assert!(img.check_region([0, 4, 0], [8, 1, 1]).is_ok());
        assert_eq!(img.check_region([0, 4, 0], [8, 2, 1]), Err(CL_INVALID_VALUE));
        assert_eq!(img.check_region([0, 0, 1], [8, 1, 1]), Err(CL_INVALID_VALUE));
        assert_eq!(img.check_region([0, 0, 0], [0, 1, 1]), Err(CL_INVALID_VALUE));
        assert_eq!(img.check_region([usize::MAX, 0, 0], [2, 1, 1]), Err(CL_INVALID_VALUE));
        let r = img.rect([2, 3, 0]);
        assert_eq!(r.offset(0, 0), 3 * 64 + 8);
        // Host layers of a 1D array are slice_pitch apart.
        let h = img.host_rect([8, 2, 1], 0, 40).unwrap();
        assert_eq!(h.offset(1, 0), 40);
        assert_eq!(img.host_rect([8, 2, 1], 0, 16).err(), Some(CL_INVALID_VALUE));
        assert_eq!(img.reported_dims(), [0, 0, 5]);
        assert_eq!(img.reported_slice_pitch(), 64);
    }

    #[test]
    fn slice_pitch_must_be_zero_for_2d_host_transfers() {
        let d = Dims {
            width: 4,
            height: 4,
            depth: 1,
            array_size: 1,
        };
        let layout = Layout::new(CL_MEM_OBJECT_IMAGE2D, d, 4, 0, 0).unwrap();
        let img = Image::new(
            CL_MEM_OBJECT_IMAGE2D,
            format(CL_RGBA, CL_UNORM_INT8),
            d,
            layout,
            std::ptr::null_mut(),
        );
        assert!(img.host_rect([4, 4, 1], 0, 0).is_ok());
        assert_eq!(img.host_rect([4, 4, 1], 0, 64).err(), Some(CL_INVALID_VALUE));
        assert_eq!(img.host_rect([4, 4, 1], 8, 0).err(), Some(CL_INVALID_VALUE));
        assert_eq!(img.reported_slice_pitch(), 0);
    }
}
