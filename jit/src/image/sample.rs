//! Addressing and filtering, OpenCL SPIR-V environment sections 7.1, 7.2, 7.5 and 7.7:
//! from a sampler and coordinates to texel locations, and from texels to the read value.
//!
//! Every texel access goes through `Image::fetch_*`, which checks the location against the
//! image and answers the border colour for one outside it, so no sampler, coordinate or
//! addressing mode (`CL_ADDRESS_NONE` included, whose out-of-range result is undefined) ever
//! touches memory outside the image.

use super::convert::{decode_float, decode_int, encode_float, encode_int, floor_f32, rint_f32, Texel};
use super::format::{Format, Kind};
use crate::abi::{sampler_bits as sb, ImageDesc};
use opencl_sys::*;

/// Sizes beyond this are garbage (and keep index arithmetic far from overflow).
const MAX_EXTENT: u64 = 1 << 40;

/// An image descriptor checked once per call: format known, sizes non-zero, element size
/// matching the format.
#[derive(Clone, Copy, Debug)]
pub struct Image {
    data: *mut u8,
    pub format: Format,
    elem: usize,
    /// Spatial dimensions: 1 (1D, 1D buffer, 1D array), 2 (2D, 2D array) or 3.
    dims: usize,
    arrayed: bool,
    /// Width, height, depth (1 where the image has no such dimension).
    size: [i64; 3],
    layers: i64,
    row_pitch: u64,
    slice_pitch: u64,
}

impl Image {
    /// The image `desc` describes, or `None` for a descriptor that is not a usable image
    /// (null data, unknown type or format, a zero size, an element size that is not the
    /// format's).
    pub fn new(desc: &ImageDesc) -> Option<Image> {
        let format = Format::new(desc.channel_order, desc.channel_data_type)?;
        Image::with_format(desc, format, desc.image_type)
    }

    /// The image `desc` describes, read as `format` and `image_type` (which the caller has
    /// taken from `desc`): the checks of `new` but the format's. Inlined with constant
    /// arguments, it is the specialised reads' (`super::fast`) view of their image.
    #[inline(always)]
    pub(super) fn with_format(desc: &ImageDesc, format: Format, image_type: u32) -> Option<Image> {
        let elem = format.element_size();
        if desc.data.is_null() || desc.element_size as usize != elem {
            return None;
        }
        let (dims, arrayed) = match image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (1, false),
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (1, true),
            CL_MEM_OBJECT_IMAGE2D => (2, false),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (2, true),
            CL_MEM_OBJECT_IMAGE3D => (3, false),
            _ => return None,
        };
        let extent = |n: u64| (1..=MAX_EXTENT).contains(&n).then_some(n as i64);
        let mut size = [1i64; 3];
        let given = [desc.width, desc.height, desc.depth];
        for d in 0..dims {
            size[d] = extent(given[d])?;
        }
        let layers = if arrayed { extent(desc.array_size)? } else { 1 };
        Some(Image {
            data: desc.data,
            format,
            elem,
            dims,
            arrayed,
            size,
            layers,
            row_pitch: desc.row_pitch,
            slice_pitch: desc.slice_pitch,
        })
    }

    /// The address of texel (i, j, k) of `layer`, or `None` outside the image.
    #[inline(always)]
    fn locate(&self, i: i64, j: i64, k: i64, layer: i64) -> Option<*mut u8> {
        let inside = |c: i64, n: i64| (0..n).contains(&c);
        if !(inside(i, self.size[0])
            && inside(j, self.size[1])
            && inside(k, self.size[2])
            && inside(layer, self.layers))
        {
            return None;
        }
        // One of k and layer is 0: slice_pitch steps 3D slices and array layers alike.
        let off = (i as u64)
            .wrapping_mul(self.elem as u64)
            .wrapping_add((j as u64).wrapping_mul(self.row_pitch))
            .wrapping_add(((k + layer) as u64).wrapping_mul(self.slice_pitch));
        Some(self.data.wrapping_add(off as usize))
    }

    /// # Safety
    /// `p` is a texel address from `locate`.
    #[inline(always)]
    unsafe fn load(&self, p: *const u8) -> Texel {
        // Fixed-size loads for the usual sizes (LLVM turns a copy of `elem` bytes into a
        // memcpy call, even split by size).
        let v: u128 = match self.elem {
            1 => *p as u128,
            2 => std::ptr::read_unaligned(p as *const u16) as u128,
            4 => std::ptr::read_unaligned(p as *const u32) as u128,
            8 => std::ptr::read_unaligned(p as *const u64) as u128,
            // As bytes: one vector load, where a u128 goes through two integer registers.
            16 => return std::ptr::read_unaligned(p as *const Texel),
            n => {
                let mut t = [0u8; 16];
                std::ptr::copy_nonoverlapping(p, t.as_mut_ptr(), n.min(16));
                return t;
            }
        };
        v.to_ne_bytes()
    }

    /// # Safety
    /// `p` is a texel address from `locate`.
    #[inline]
    unsafe fn store(&self, p: *mut u8, t: &Texel) {
        let v = u128::from_ne_bytes(*t);
        match self.elem {
            1 => *p = v as u8,
            2 => std::ptr::write_unaligned(p as *mut u16, v as u16),
            4 => std::ptr::write_unaligned(p as *mut u32, v as u32),
            8 => std::ptr::write_unaligned(p as *mut u64, v as u64),
            16 => std::ptr::write_unaligned(p as *mut u128, v),
            n => std::ptr::copy_nonoverlapping(t.as_ptr(), p, n.min(16)),
        }
    }

    /// The texel at (i, j, k, layer) as read_imagef returns it; the border colour outside.
    ///
    /// # Safety
    /// The descriptor's data must cover every texel its sizes and pitches describe.
    #[inline(always)]
    pub unsafe fn fetch_float(&self, i: i64, j: i64, k: i64, layer: i64) -> [f32; 4] {
        match self.locate(i, j, k, layer) {
            Some(p) => decode_float(self.format, &self.load(p)),
            None => self.format.border_float(),
        }
    }

    /// The texel at (i, j, k, layer) as read_imagei/ui return it; the border colour outside.
    ///
    /// # Safety
    /// As `fetch_float`.
    #[inline(always)]
    pub unsafe fn fetch_int(&self, i: i64, j: i64, k: i64, layer: i64) -> [i32; 4] {
        match self.locate(i, j, k, layer) {
            Some(p) => decode_int(self.format, &self.load(p)),
            None => self.format.border_int(),
        }
    }

    /// Splits integer coordinates into (i, j, k, layer): the layer is the coordinate after
    /// the spatial ones for arrays (7.5, taken as it is); unused coordinates are ignored.
    #[inline(always)]
    fn split(&self, c: [i32; 3]) -> (i64, i64, i64, i64) {
        let c = c.map(i64::from);
        let mut ijk = [0i64; 3];
        ijk[..self.dims].copy_from_slice(&c[..self.dims]);
        let layer = if self.arrayed { c[self.dims] } else { 0 };
        (ijk[0], ijk[1], ijk[2], layer)
    }

    /// A sampler-less read (7.7: nearest, unnormalized, `CL_ADDRESS_NONE`), float result;
    /// out-of-range coordinates give the border colour.
    ///
    /// # Safety
    /// As `fetch_float`.
    #[inline(always)]
    pub unsafe fn read_float(&self, c: [i32; 3]) -> [f32; 4] {
        let (i, j, k, l) = self.split(c);
        self.fetch_float(i, j, k, l)
    }

    /// A sampler-less read with an integer result (raw i32 bits).
    ///
    /// # Safety
    /// As `fetch_float`.
    #[inline(always)]
    pub unsafe fn read_int(&self, c: [i32; 3]) -> [i32; 4] {
        let (i, j, k, l) = self.split(c);
        self.fetch_int(i, j, k, l)
    }

    /// write_imagef / write_imageh: nothing is written outside the image.
    ///
    /// # Safety
    /// As `fetch_float`, and the data must be writable.
    pub unsafe fn write_float(&self, c: [i32; 3], v: [f32; 4]) {
        let (i, j, k, l) = self.split(c);
        if let Some(p) = self.locate(i, j, k, l) {
            self.store(p, &encode_float(self.format, v));
        }
    }

    /// write_imagei / write_imageui (raw i32 bits; the data type decides the saturation).
    ///
    /// # Safety
    /// As `write_float`.
    pub unsafe fn write_int(&self, c: [i32; 3], v: [i32; 4]) {
        let (i, j, k, l) = self.split(c);
        if let Some(p) = self.locate(i, j, k, l) {
            self.store(p, &encode_int(self.format, v));
        }
    }

    /// The array layer of a sampled read: clamp(rint(coord), 0, layers - 1) (7.5).
    #[inline(always)]
    fn layer(&self, c: [f32; 3]) -> i64 {
        if !self.arrayed {
            return 0;
        }
        let l = rint_f32(c[self.dims]);
        // NaN converts to 0.
        (l.clamp(0.0, (self.layers - 1) as f32) as i64).clamp(0, self.layers - 1)
    }

    /// read_imagef with a sampler (7.1, 7.2, 7.5).
    ///
    /// # Safety
    /// As `fetch_float`.
    #[inline(always)]
    pub unsafe fn sample_float(&self, sampler: u32, c: [f32; 3]) -> [f32; 4] {
        let linear = sampler & sb::FILTER_MASK == sb::FILTER_LINEAR;
        if !linear || self.format.data_type.kind() != Kind::Float {
            // Nearest; integer formats with LINEAR (undefined) read nearest too.
            let [i, j, k] = self.nearest(sampler, c);
            return self.fetch_float(i, j, k, self.layer(c));
        }
        let layer = self.layer(c);
        let mut ax = [Linear::default(); 3];
        for (d, a) in ax.iter_mut().enumerate().take(self.dims) {
            *a = linear_axis(sampler, c[d], self.size[d]);
        }
        let t = |i: i64, j: i64, k: i64| self.fetch_float(i, j, k, layer);
        let (x, y, z) = (ax[0], ax[1], ax[2]);
        let (a, b, cc) = (x.frac, y.frac, z.frac);
        match self.dims {
            1 => {
                let (t0, t1) = (t(x.i0, 0, 0), t(x.i1, 0, 0));
                components(|n| (1.0 - a) * t0[n] + a * t1[n])
            }
            2 => {
                let t00 = t(x.i0, y.i0, 0);
                let t10 = t(x.i1, y.i0, 0);
                let t01 = t(x.i0, y.i1, 0);
                let t11 = t(x.i1, y.i1, 0);
                components(|n| {
                    (1.0 - a) * (1.0 - b) * t00[n] + a * (1.0 - b) * t10[n] + (1.0 - a) * b * t01[n] + a * b * t11[n]
                })
            }
            _ => {
                let t000 = t(x.i0, y.i0, z.i0);
                let t100 = t(x.i1, y.i0, z.i0);
                let t010 = t(x.i0, y.i1, z.i0);
                let t110 = t(x.i1, y.i1, z.i0);
                let t001 = t(x.i0, y.i0, z.i1);
                let t101 = t(x.i1, y.i0, z.i1);
                let t011 = t(x.i0, y.i1, z.i1);
                let t111 = t(x.i1, y.i1, z.i1);
                components(|n| {
                    (1.0 - a) * (1.0 - b) * (1.0 - cc) * t000[n]
                        + a * (1.0 - b) * (1.0 - cc) * t100[n]
                        + (1.0 - a) * b * (1.0 - cc) * t010[n]
                        + a * b * (1.0 - cc) * t110[n]
                        + (1.0 - a) * (1.0 - b) * cc * t001[n]
                        + a * (1.0 - b) * cc * t101[n]
                        + (1.0 - a) * b * cc * t011[n]
                        + a * b * cc * t111[n]
                })
            }
        }
    }

    /// read_imagei / read_imageui with a sampler: always nearest (LINEAR is undefined for
    /// integer formats).
    ///
    /// # Safety
    /// As `fetch_float`.
    #[inline(always)]
    pub unsafe fn sample_int(&self, sampler: u32, c: [f32; 3]) -> [i32; 4] {
        let [i, j, k] = self.nearest(sampler, c);
        self.fetch_int(i, j, k, self.layer(c))
    }

    /// The nearest texel's (i, j, k) (unused dimensions 0).
    #[inline(always)]
    fn nearest(&self, sampler: u32, c: [f32; 3]) -> [i64; 3] {
        let mut ijk = [0i64; 3];
        for (d, o) in ijk.iter_mut().enumerate().take(self.dims) {
            *o = nearest_axis(sampler, c[d], self.size[d]);
        }
        ijk
    }
}

/// The four components `f(0)` ... `f(3)`, inlined (`std::array::from_fn` leaves a call per
/// component in the reads).
#[inline(always)]
fn components(f: impl Fn(usize) -> f32) -> [f32; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// (int)floor(x), kept far inside i64 so that the +1 of linear filtering cannot overflow
/// (NaN gives 0; 7.1 leaves INF and NaN coordinates undefined).
#[inline(always)]
fn ifloor(x: f32) -> i64 {
    (floor_f32(x) as i64).clamp(-(1 << 41), 1 << 41)
}

/// frac(x) = x - floor(x) (7.2.1).
#[inline(always)]
fn frac(x: f32) -> f32 {
    x - floor_f32(x)
}

/// The two texels and weight of one axis for LINEAR filtering.
#[derive(Clone, Copy, Default)]
struct Linear {
    i0: i64,
    i1: i64,
    frac: f32,
}

/// address_mode of table 8 for CLAMP, CLAMP_TO_EDGE and NONE (unknown modes act as NONE).
/// CLAMP gives -1 or `size` for a location outside, which reads the border colour.
#[inline(always)]
fn clamp_mode(addr: u32, i: i64, size: i64) -> i64 {
    match addr {
        sb::ADDRESS_CLAMP_TO_EDGE => i.clamp(0, size - 1),
        sb::ADDRESS_CLAMP => i.clamp(-1, size),
        _ => i,
    }
}

/// The normalized coordinate s of REPEAT and MIRRORED_REPEAT (7.2.2, 7.2.3). These modes
/// require normalized coordinates; unnormalized ones (undefined) are divided by the size.
#[inline(always)]
fn normalized(sampler: u32, x: f32, size: i64) -> f32 {
    if sampler & sb::NORMALIZED != 0 {
        x
    } else {
        x / size as f32
    }
}

/// The unnormalized coordinate u (7.1: s × wt for normalized coordinates).
#[inline(always)]
fn unnormalized(sampler: u32, x: f32, size: i64) -> f32 {
    if sampler & sb::NORMALIZED != 0 {
        x * size as f32
    } else {
        x
    }
}

/// The nearest texel index along one axis (7.2.1-7.2.3, nearest filtering).
#[inline(always)]
fn nearest_axis(sampler: u32, x: f32, size: i64) -> i64 {
    let wt = size as f32;
    match sampler & sb::ADDRESS_MASK {
        sb::ADDRESS_REPEAT => {
            let s = normalized(sampler, x, size);
            let u = (s - floor_f32(s)) * wt;
            let i = ifloor(u);
            if i > size - 1 {
                i - size
            } else {
                i
            }
        }
        sb::ADDRESS_MIRRORED_REPEAT => {
            let s = normalized(sampler, x, size);
            let s = (s - 2.0 * rint_f32(0.5 * s)).abs();
            let u = s * wt;
            ifloor(u).min(size - 1)
        }
        addr => clamp_mode(addr, ifloor(unnormalized(sampler, x, size)), size),
    }
}

/// The two texel indices and weight along one axis (7.2.1-7.2.3, linear filtering).
#[inline(always)]
fn linear_axis(sampler: u32, x: f32, size: i64) -> Linear {
    let wt = size as f32;
    match sampler & sb::ADDRESS_MASK {
        sb::ADDRESS_REPEAT => {
            let s = normalized(sampler, x, size);
            let u = (s - floor_f32(s)) * wt;
            let mut i0 = ifloor(u - 0.5);
            let mut i1 = i0 + 1;
            if i0 < 0 {
                i0 += size;
            }
            if i1 > size - 1 {
                i1 -= size;
            }
            Linear {
                i0,
                i1,
                frac: frac(u - 0.5),
            }
        }
        sb::ADDRESS_MIRRORED_REPEAT => {
            let s = normalized(sampler, x, size);
            let s = (s - 2.0 * rint_f32(0.5 * s)).abs();
            let u = s * wt;
            let i0 = ifloor(u - 0.5);
            Linear {
                i0: i0.max(0),
                i1: (i0 + 1).min(size - 1),
                frac: frac(u - 0.5),
            }
        }
        addr => {
            let u = unnormalized(sampler, x, size);
            let f = ifloor(u - 0.5);
            Linear {
                i0: clamp_mode(addr, f, size),
                i1: clamp_mode(addr, f + 1, size),
                frac: frac(u - 0.5),
            }
        }
    }
}
