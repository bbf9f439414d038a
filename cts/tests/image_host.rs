//! Images and samplers through the host API: clGetSupportedImageFormats, clCreateImage (every
//! image type, every listed format, with and without host pointers and pitches, from buffers),
//! clGetImageInfo / clGetMemObjectInfo, byte-exact read / write / copy / map round trips for
//! every format with several pitches, origins and regions, image <-> buffer copies, fills
//! (checked against the conversion rules of `cts::image_ref`), samplers (creation, info,
//! properties), and the API's error codes for bad formats, sizes, descriptors, regions and
//! handles.

#![allow(non_upper_case_globals)]

use cts::image_ref::{self as iref, Color, Format, Kind, Rng};
use cts::*;
use std::ptr;

const ALL_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

fn require_images() {
    let s: cl_bool = device_info(CL_DEVICE_IMAGE_SUPPORT);
    assert_eq!(s, CL_TRUE, "CL_DEVICE_IMAGE_SUPPORT is CL_FALSE");
}

/// (width, height, depth, array size) of the images of the round-trip tests, unused entries 0.
fn test_size(ty: cl_mem_object_type) -> [usize; 4] {
    match ty {
        CL_MEM_OBJECT_IMAGE1D => [23, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_BUFFER => [29, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [17, 0, 0, 3],
        CL_MEM_OBJECT_IMAGE2D => [11, 7, 0, 0],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [7, 5, 0, 3],
        _ => [6, 5, 3, 0],
    }
}

fn is_array(ty: cl_mem_object_type) -> bool {
    matches!(ty, CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY)
}

/// An image under test with what the tests need to know about it.
struct Img {
    mem: Mem,
    fmt: Format,
    ty: cl_mem_object_type,
    size: [usize; 4],
    es: usize,
    /// The buffer of a 1D image buffer.
    buf: Option<Mem>,
}

impl Img {
    fn grid(&self) -> [usize; 3] {
        image_region(self.ty, self.size)
    }

    fn bytes(&self) -> usize {
        let g = self.grid();
        g[0] * g[1] * g[2] * self.es
    }
}

/// Creates an image of `fmt`, `ty`, `size` (a 1D image buffer on a fresh buffer), reading its
/// element size back and checking it is one the format allows.
fn try_make(
    ctx: &Context,
    flags: cl_mem_flags,
    fmt: Format,
    ty: cl_mem_object_type,
    size: [usize; 4],
) -> Result<Img, cl_int> {
    let mut buf = None;
    let mut bh: cl_mem = ptr::null_mut();
    if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        let max_es = *fmt.element_sizes().iter().max().unwrap();
        let b = ctx.buffer_with(
            flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY),
            size[0] * max_es,
            ptr::null_mut(),
        );
        bh = b.0;
        buf = Some(b);
    }
    let desc = image_desc(ty, size, 0, 0, bh);
    let mem = ctx.try_image(flags, &fmt.cl(), &desc, ptr::null_mut())?;
    let es: usize = image_info(mem.0, CL_IMAGE_ELEMENT_SIZE);
    assert!(
        fmt.x_pad_for(es).is_some(),
        "{fmt}: CL_IMAGE_ELEMENT_SIZE {es}, the format's elements are {:?} bytes",
        fmt.element_sizes()
    );
    Ok(Img {
        mem,
        fmt,
        ty,
        size,
        es,
        buf,
    })
}

fn make(ctx: &Context, flags: cl_mem_flags, fmt: Format, ty: cl_mem_object_type, size: [usize; 4]) -> Img {
    try_make(ctx, flags, fmt, ty, size)
        .unwrap_or_else(|e| panic!("create {} {fmt}: {}", iref::image_type_name(ty), err_name(e)))
}

/// The formats listed for `ty` under any of the access flags.
fn listed_any(ctx: &Context, ty: cl_mem_object_type) -> Vec<Format> {
    let mut v: Vec<Format> = Vec::new();
    for flags in [
        CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE,
        CL_MEM_KERNEL_READ_AND_WRITE | CL_MEM_READ_WRITE,
    ] {
        for f in ctx.supported_image_formats(flags, ty) {
            let f = Format::from_cl(&f);
            if !v.contains(&f) {
                v.push(f);
            }
        }
    }
    v
}

/// The formats listed for `ty` with `CL_MEM_READ_ONLY`: the ones the tests create.
fn listed(ctx: &Context, ty: cl_mem_object_type) -> Vec<Format> {
    ctx.supported_image_formats(CL_MEM_READ_ONLY, ty)
        .iter()
        .map(Format::from_cl)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The host model of an image: tightly packed bytes, and host memory laid out with pitches
// ---------------------------------------------------------------------------------------------

/// Row and slice pitches of host memory for `region`, the defaults filled in (7.x of the API:
/// row = region[0] * element; slice = row for a 1D array, row * region[1] for 3D and 2D arrays).
fn host_pitches(ty: cl_mem_object_type, es: usize, region: [usize; 3], row: usize, slice: usize) -> (usize, usize) {
    let row = if row == 0 { region[0] * es } else { row };
    let slice = if slice != 0 {
        slice
    } else {
        match ty {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => row,
            CL_MEM_OBJECT_IMAGE3D | CL_MEM_OBJECT_IMAGE2D_ARRAY => row * region[1],
            _ => 0,
        }
    };
    (row, slice)
}

/// Byte offset in host memory of region texel (x, y, z): a 1D array's layers (y) are slices.
fn host_offset(ty: cl_mem_object_type, es: usize, row: usize, slice: usize, x: usize, y: usize, z: usize) -> usize {
    if ty == CL_MEM_OBJECT_IMAGE1D_ARRAY {
        y * slice + x * es
    } else {
        z * slice + y * row + x * es
    }
}

/// Bytes of host memory a region with these pitches spans.
fn host_len(ty: cl_mem_object_type, es: usize, region: [usize; 3], row: usize, slice: usize) -> usize {
    let (row, slice) = host_pitches(ty, es, region, row, slice);
    host_offset(ty, es, row, slice, region[0] - 1, region[1] - 1, region[2] - 1) + es
}

/// Copies `region` at `origin` of the tight image `model` (grid `grid`) into / out of host
/// memory `host` laid out with the given pitches.
#[allow(clippy::too_many_arguments)]
fn model_xfer(
    model: &mut [u8],
    grid: [usize; 3],
    ty: cl_mem_object_type,
    es: usize,
    origin: [usize; 3],
    region: [usize; 3],
    row: usize,
    slice: usize,
    host: &mut [u8],
    to_model: bool,
) {
    let (row, slice) = host_pitches(ty, es, region, row, slice);
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                let m = (((origin[2] + z) * grid[1] + origin[1] + y) * grid[0] + origin[0] + x) * es;
                let h = host_offset(ty, es, row, slice, x, y, z);
                if to_model {
                    model[m..m + es].copy_from_slice(&host[h..h + es]);
                } else {
                    host[h..h + es].copy_from_slice(&model[m..m + es]);
                }
            }
        }
    }
}

const SENTINEL: u8 = 0xa5;

/// Reads `region` at `origin` with the given pitches and checks it against the model, every
/// byte of the region exact and the padding between rows and slices untouched.
#[allow(clippy::too_many_arguments)]
fn check_read(
    q: &Queue,
    img: &Img,
    model: &[u8],
    origin: [usize; 3],
    region: [usize; 3],
    row: usize,
    slice: usize,
    what: &str,
) {
    let len = host_len(img.ty, img.es, region, row, slice);
    let mut got = vec![SENTINEL; len + 7];
    let err = q.try_read_image(&img.mem, origin, region, row, slice, &mut got);
    assert!(
        err == CL_SUCCESS,
        "{what}: clEnqueueReadImage({} {}, origin {origin:?}, region {region:?}, pitches {row}/{slice}): {}",
        iref::image_type_name(img.ty),
        img.fmt,
        err_name(err)
    );
    let mut want = vec![SENTINEL; len + 7];
    let mut m = model.to_vec();
    model_xfer(
        &mut m,
        img.grid(),
        img.ty,
        img.es,
        origin,
        region,
        row,
        slice,
        &mut want,
        false,
    );
    if got != want {
        let i = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
        panic!(
            "{what}: {} {} read origin {origin:?} region {region:?} pitches {row}/{slice}: byte {i} of {} is {:#04x}, want {:#04x}",
            iref::image_type_name(img.ty),
            img.fmt,
            got.len(),
            got[i],
            want[i]
        );
    }
}

/// Writes random bytes to `region` at `origin` laid out with the given pitches and applies
/// the write to the model.
#[allow(clippy::too_many_arguments)]
fn do_write(
    q: &Queue,
    img: &Img,
    model: &mut [u8],
    origin: [usize; 3],
    region: [usize; 3],
    row: usize,
    slice: usize,
    rng: &mut Rng,
) {
    let len = host_len(img.ty, img.es, region, row, slice);
    let mut host = rng.bytes(len);
    q.write_image(&img.mem, origin, region, row, slice, &host);
    model_xfer(
        model,
        img.grid(),
        img.ty,
        img.es,
        origin,
        region,
        row,
        slice,
        &mut host,
        true,
    );
}

/// A sub-region of an image of grid `grid`: origin and region, from `rng`, at least 1 per axis.
fn sub_region(grid: [usize; 3], rng: &mut Rng) -> ([usize; 3], [usize; 3]) {
    let mut o = [0; 3];
    let mut r = [1; 3];
    for a in 0..3 {
        o[a] = rng.below(grid[a] as u64) as usize;
        r[a] = 1 + rng.below((grid[a] - o[a]) as u64) as usize;
    }
    (o, r)
}

/// Pitches for host memory of `region` with `pad_row` / `pad_slice` extra bytes (0 pads give
/// the 0 = default pitches).
fn padded(ty: cl_mem_object_type, es: usize, region: [usize; 3], pad_row: usize, pad_slice: usize) -> (usize, usize) {
    let row = if pad_row == 0 { 0 } else { region[0] * es + pad_row };
    let slice = match ty {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D => 0,
        _ if pad_slice == 0 => 0,
        CL_MEM_OBJECT_IMAGE1D_ARRAY => host_pitches(ty, es, region, row, 0).0 + pad_slice,
        _ => host_pitches(ty, es, region, row, 0).0 * region[1] + pad_slice,
    };
    (row, slice)
}

// ---------------------------------------------------------------------------------------------
// Device and format lists
// ---------------------------------------------------------------------------------------------

#[test]
fn device_image_queries() {
    require_images();
    let feats = device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES).unwrap();
    let names: Vec<String> = bytes_to_vec::<cl_name_version>(&feats)
        .iter()
        .map(|n| bytes_to_string(&n.name[..=n.name.iter().position(|&c| c == 0).unwrap()]))
        .collect();
    assert!(
        names.iter().any(|n| n == "__opencl_c_images"),
        "image support without __opencl_c_images in CL_DEVICE_OPENCL_C_FEATURES: {names:?}"
    );
    let rw: cl_uint = device_info(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
    if names.iter().any(|n| n == "__opencl_c_read_write_images") {
        assert!(
            rw >= 64,
            "CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS {rw} < 64 with read-write images"
        );
    } else {
        assert_eq!(rw, 0, "CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS without read-write images");
    }
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    if names.iter().any(|n| n == "__opencl_c_3d_image_writes") {
        assert!(
            exts.contains("cl_khr_3d_image_writes"),
            "3D image writes without cl_khr_3d_image_writes"
        );
    }
    if exts.contains("cl_khr_image2d_from_buffer") {
        let pa: cl_uint = device_info(CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
        let ba: cl_uint = device_info(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT);
        assert!(
            pa.is_power_of_two() && ba.is_power_of_two(),
            "pitch alignment {pa}, base alignment {ba}"
        );
    }
}

/// The minimum list of the API specification that every device with images supports for
/// reading and for writing (OpenCL 1.2's, which 3.0 keeps).
fn minimum_formats() -> Vec<Format> {
    let mut v: Vec<Format> = [
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
        CL_HALF_FLOAT,
        CL_FLOAT,
    ]
    .iter()
    .map(|&t| Format::new(CL_RGBA, t))
    .collect();
    v.push(Format::new(CL_BGRA, CL_UNORM_INT8));
    v
}

#[test]
fn supported_formats_are_valid_and_complete() {
    require_images();
    let ctx = Context::new();
    let three_d_writes = device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_3d_image_writes");
    for flags in [
        CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE,
        CL_MEM_KERNEL_READ_AND_WRITE | CL_MEM_READ_WRITE,
    ] {
        for ty in ALL_TYPES {
            let list = ctx.supported_image_formats(flags, ty);
            let what = format!("flags {flags:#x}, {}", iref::image_type_name(ty));
            let fl: Vec<Format> = list.iter().map(Format::from_cl).collect();
            if flags == CL_MEM_READ_ONLY && ty == CL_MEM_OBJECT_IMAGE2D {
                let missing: Vec<String> = iref::all_formats()
                    .into_iter()
                    .filter(|f| !fl.contains(f))
                    .map(|f| f.to_string())
                    .collect();
                println!(
                    "{what}: {} formats listed; valid but not listed: {}",
                    fl.len(),
                    missing.join(" ")
                );
            }
            for (i, f) in fl.iter().enumerate() {
                assert!(f.is_valid(), "{what}: listed format {f} is not a valid combination");
                assert!(!fl[..i].contains(f), "{what}: {f} listed twice");
                if f.is_depth() {
                    assert!(
                        matches!(ty, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY),
                        "{what}: CL_DEPTH is only for 2D images and 2D image arrays"
                    );
                }
            }
            let needs_min = match flags {
                CL_MEM_READ_ONLY => true,
                CL_MEM_WRITE_ONLY => ty != CL_MEM_OBJECT_IMAGE3D || three_d_writes,
                _ => false,
            };
            if needs_min {
                for m in minimum_formats() {
                    assert!(fl.contains(&m), "{what}: the required format {m} is not listed");
                }
            }
            // A short array gets only its size; the count is the full count.
            if list.len() >= 2 {
                let mut few = vec![
                    cl_image_format {
                        image_channel_order: 0xdead,
                        image_channel_data_type: 0xbeef
                    };
                    3
                ];
                let mut n: cl_uint = 0;
                ok!(clGetSupportedImageFormats(
                    ctx.0,
                    flags,
                    ty,
                    1,
                    few.as_mut_ptr(),
                    &mut n
                ));
                assert_eq!(n as usize, list.len(), "{what}: num_image_formats with a short array");
                assert_eq!(Format::from_cl(&few[0]), fl[0], "{what}: first entry");
                assert_eq!(few[1].image_channel_order, 0xdead, "{what}: wrote past num_entries");
            }
        }
    }
    // Errors.
    let mut n: cl_uint = 0;
    let mut one = [cl_image_format {
        image_channel_order: 0,
        image_channel_data_type: 0,
    }];
    check!(
        clGetSupportedImageFormats(
            ctx.0,
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            one.as_mut_ptr(),
            &mut n
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetSupportedImageFormats(
            ctx.0,
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_BUFFER,
            0,
            ptr::null_mut(),
            &mut n
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetSupportedImageFormats(ctx.0, CL_MEM_READ_ONLY, 0x1234, 0, ptr::null_mut(), &mut n),
        CL_INVALID_VALUE
    );
    check!(
        clGetSupportedImageFormats(
            ctx.0,
            CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            ptr::null_mut(),
            &mut n
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetSupportedImageFormats(
            ptr::null_mut(),
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            ptr::null_mut(),
            &mut n
        ),
        CL_INVALID_CONTEXT
    );
}

// ---------------------------------------------------------------------------------------------
// Creation, info, byte-exact round trips
// ---------------------------------------------------------------------------------------------

fn check_info(ctx: &Context, img: &Img, flags: cl_mem_flags) {
    let m = img.mem.0;
    let what = format!("{} {}", iref::image_type_name(img.ty), img.fmt);
    let fb = image_bytes(m, CL_IMAGE_FORMAT).unwrap();
    let f: Vec<cl_image_format> = bytes_to_vec(&fb);
    assert_eq!(f.len(), 1, "{what}: CL_IMAGE_FORMAT size");
    assert_eq!(Format::from_cl(&f[0]), img.fmt, "{what}: CL_IMAGE_FORMAT");
    let [w, h, d, a] = img.size;
    let q = |p| image_info::<usize>(m, p);
    assert_eq!(q(CL_IMAGE_WIDTH), w, "{what}: CL_IMAGE_WIDTH");
    let want_h = if matches!(
        img.ty,
        CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
    ) {
        h
    } else {
        0
    };
    assert_eq!(q(CL_IMAGE_HEIGHT), want_h, "{what}: CL_IMAGE_HEIGHT");
    assert_eq!(
        q(CL_IMAGE_DEPTH),
        if img.ty == CL_MEM_OBJECT_IMAGE3D { d } else { 0 },
        "{what}: CL_IMAGE_DEPTH"
    );
    assert_eq!(
        q(CL_IMAGE_ARRAY_SIZE),
        if is_array(img.ty) { a } else { 0 },
        "{what}: CL_IMAGE_ARRAY_SIZE"
    );
    let row = q(CL_IMAGE_ROW_PITCH);
    let slice = q(CL_IMAGE_SLICE_PITCH);
    assert!(row >= w * img.es, "{what}: CL_IMAGE_ROW_PITCH {row} < width * element");
    match img.ty {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => assert!(slice >= row, "{what}: CL_IMAGE_SLICE_PITCH {slice} < row pitch"),
        CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => {
            assert!(
                slice >= row * h,
                "{what}: CL_IMAGE_SLICE_PITCH {slice} < row pitch * height"
            )
        }
        _ => assert_eq!(slice, 0, "{what}: CL_IMAGE_SLICE_PITCH of a 1D or 2D image"),
    }
    let b: cl_mem = image_info(m, CL_IMAGE_BUFFER);
    assert_eq!(
        b,
        img.buf.as_ref().map_or(ptr::null_mut(), |b| b.0),
        "{what}: CL_IMAGE_BUFFER"
    );
    assert_eq!(
        image_info::<cl_uint>(m, CL_IMAGE_NUM_MIP_LEVELS),
        0,
        "{what}: CL_IMAGE_NUM_MIP_LEVELS"
    );
    assert_eq!(
        image_info::<cl_uint>(m, CL_IMAGE_NUM_SAMPLES),
        0,
        "{what}: CL_IMAGE_NUM_SAMPLES"
    );
    assert_eq!(
        mem_info::<cl_mem_object_type>(m, CL_MEM_TYPE),
        img.ty,
        "{what}: CL_MEM_TYPE"
    );
    assert_eq!(mem_info::<cl_mem_flags>(m, CL_MEM_FLAGS), flags, "{what}: CL_MEM_FLAGS");
    let size: usize = mem_info(m, CL_MEM_SIZE);
    assert!(
        size >= img.bytes(),
        "{what}: CL_MEM_SIZE {size} < {} bytes of texels",
        img.bytes()
    );
    assert_eq!(
        mem_info::<cl_context>(m, CL_MEM_CONTEXT),
        ctx.0,
        "{what}: CL_MEM_CONTEXT"
    );
    assert_eq!(
        mem_info::<cl_mem>(m, CL_MEM_ASSOCIATED_MEMOBJECT),
        img.buf.as_ref().map_or(ptr::null_mut(), |b| b.0),
        "{what}: CL_MEM_ASSOCIATED_MEMOBJECT"
    );
    assert_eq!(mem_info::<usize>(m, CL_MEM_OFFSET), 0, "{what}: CL_MEM_OFFSET");
    assert_eq!(
        mem_info::<*mut c_void>(m, CL_MEM_HOST_PTR),
        ptr::null_mut(),
        "{what}: CL_MEM_HOST_PTR"
    );
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 0, "{what}: CL_MEM_MAP_COUNT");
}

/// Every listed format of every image type: created, described by clGetImageInfo and
/// clGetMemObjectInfo, written whole and read back whole, then written and read in random
/// sub-regions with host pitches padded by an odd number of bytes, read back whole with padded
/// pitches: every byte exact. Formats valid but listed for no access get
/// CL_IMAGE_FORMAT_NOT_SUPPORTED.
#[test]
fn every_format_round_trips_byte_exact() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(1);
    let mut combos = 0;
    for ty in ALL_TYPES {
        let fl = listed(&ctx, ty);
        let any = listed_any(&ctx, ty);
        for (fi, fmt) in iref::all_formats().into_iter().enumerate() {
            if !fl.contains(&fmt) {
                if !any.contains(&fmt) && ty != CL_MEM_OBJECT_IMAGE1D_BUFFER {
                    let e = try_make(&ctx, CL_MEM_READ_ONLY, fmt, ty, test_size(ty)).err();
                    let ok = e == Some(CL_IMAGE_FORMAT_NOT_SUPPORTED)
                        || (fmt.power_of_two_questionable() && e == Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
                    assert!(
                        ok,
                        "{} {fmt}: valid but not listed: {}",
                        iref::image_type_name(ty),
                        e.map_or("success".to_string(), err_name)
                    );
                }
                continue;
            }
            let img = make(&ctx, CL_MEM_READ_ONLY, fmt, ty, test_size(ty));
            check_info(&ctx, &img, CL_MEM_READ_ONLY);
            let grid = img.grid();
            let mut model = vec![0u8; img.bytes()];
            // Whole image, default pitches.
            do_write(&q, &img, &mut model, [0; 3], grid, 0, 0, &mut rng);
            check_read(&q, &img, &model, [0; 3], grid, 0, 0, "whole");
            // Sub-regions with padded pitches (pads vary with the format).
            for k in 0..3 {
                let (o, r) = sub_region(grid, &mut rng);
                let (row, slice) = padded(ty, img.es, r, (fi + k) % 5, (fi * 3 + k) % 7);
                do_write(&q, &img, &mut model, o, r, row, slice, &mut rng);
                let (o2, r2) = sub_region(grid, &mut rng);
                let (row2, slice2) = padded(ty, img.es, r2, (fi + 2 * k + 1) % 6, (fi + k) % 4);
                check_read(&q, &img, &model, o2, r2, row2, slice2, "sub-region");
            }
            let (row, slice) = padded(ty, img.es, grid, 1 + fi % 3, 1 + fi % 2);
            check_read(&q, &img, &model, [0; 3], grid, row, slice, "whole, padded");
            // A 1D image buffer shares its buffer's bytes.
            if let Some(b) = &img.buf {
                assert_eq!(
                    q.read(b, 0, model.len()),
                    model,
                    "1D image buffer {fmt}: buffer contents"
                );
                let fresh = rng.bytes(model.len());
                q.write(b, 0, &fresh);
                check_read(&q, &img, &fresh, [0; 3], grid, 0, 0, "after writing the buffer");
            }
            combos += 1;
        }
    }
    println!("{combos} format x image type combinations round-tripped");
    assert!(combos > 0);
}

/// Images created from host memory with padded pitches (COPY_HOST_PTR and USE_HOST_PTR) hold
/// exactly the texels of that memory; USE_HOST_PTR images map to the host memory itself and
/// leave their latest bits there; the deprecated clCreateImage2D/3D do the same.
#[test]
fn host_pointer_images() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(2);
    for ty in ALL_TYPES {
        if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            continue;
        }
        let fl = listed(&ctx, ty);
        // One format per element size.
        let mut sizes_done: Vec<usize> = Vec::new();
        for fmt in fl {
            let es = fmt.element_size(false);
            if sizes_done.contains(&es) || fmt.has_optional_x() {
                continue;
            }
            sizes_done.push(es);
            let size = test_size(ty);
            let grid = image_region(ty, size);
            for (copy, pad_r, pad_s) in [(true, 0, 0), (true, 3, 2), (false, 1, 1), (false, 0, 0)] {
                let row = grid[0] * es + pad_r * es;
                let (row_p, slice_p, slice) = match ty {
                    CL_MEM_OBJECT_IMAGE1D => (if pad_r > 0 { row } else { 0 }, 0, 0),
                    CL_MEM_OBJECT_IMAGE2D => (if pad_r > 0 { row } else { 0 }, 0, 0),
                    CL_MEM_OBJECT_IMAGE1D_ARRAY => {
                        let s = row * (1 + pad_s);
                        (row, if pad_s > 0 { s } else { 0 }, s)
                    }
                    _ => {
                        let s = row * (grid[1] + pad_s);
                        (row, if pad_s > 0 { s } else { 0 }, s)
                    }
                };
                let len = match ty {
                    CL_MEM_OBJECT_IMAGE1D => grid[0] * es,
                    CL_MEM_OBJECT_IMAGE2D => row * grid[1],
                    CL_MEM_OBJECT_IMAGE1D_ARRAY => slice * grid[1],
                    _ => slice * grid[2],
                };
                let mut host = rng.bytes(len);
                let flags = if copy {
                    CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR
                } else {
                    CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR
                };
                let desc = image_desc(ty, size, row_p, slice_p, ptr::null_mut());
                let mem = ctx.image(flags, &fmt.cl(), &desc, host.as_mut_ptr() as *mut c_void);
                let img = Img {
                    mem,
                    fmt,
                    ty,
                    size,
                    es,
                    buf: None,
                };
                let what = format!(
                    "{} {fmt} {} pitches {row_p}/{slice_p}",
                    iref::image_type_name(ty),
                    if copy { "COPY_HOST_PTR" } else { "USE_HOST_PTR" }
                );
                let (hr, hs) = (row, if slice == 0 { 0 } else { slice });
                let mut model = vec![0u8; img.bytes()];
                let mut h2 = host.clone();
                model_xfer(&mut model, grid, ty, es, [0; 3], grid, hr, hs, &mut h2, true);
                check_read(&q, &img, &model, [0; 3], grid, 0, 0, &what);
                let hp: *mut c_void = mem_info(img.mem.0, CL_MEM_HOST_PTR);
                if copy {
                    assert!(hp.is_null(), "{what}: CL_MEM_HOST_PTR of a COPY_HOST_PTR image");
                    continue;
                }
                assert_eq!(hp, host.as_mut_ptr() as *mut c_void, "{what}: CL_MEM_HOST_PTR");
                // After a write, a map (a synchronization point) leaves the bits in host memory
                // and returns a pointer into it with the host pitches.
                do_write(&q, &img, &mut model, [0; 3], grid, 0, 0, &mut rng);
                let mut rp = 0usize;
                let mut sp = 0usize;
                let mut err = 0;
                let p = unsafe {
                    clEnqueueMapImage(
                        q.0,
                        img.mem.0,
                        CL_TRUE,
                        CL_MAP_READ,
                        [0usize; 3].as_ptr(),
                        grid.as_ptr(),
                        &mut rp,
                        &mut sp,
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                        &mut err,
                    )
                };
                check_err!(err, CL_SUCCESS, format!("{what}: clEnqueueMapImage"));
                assert_eq!(
                    p,
                    host.as_mut_ptr() as *mut c_void,
                    "{what}: mapped pointer is not host_ptr"
                );
                assert_eq!(rp, hr, "{what}: mapped row pitch");
                if ty != CL_MEM_OBJECT_IMAGE1D && ty != CL_MEM_OBJECT_IMAGE2D {
                    assert_eq!(sp, hs, "{what}: mapped slice pitch");
                }
                let mut expect = host.clone();
                model_xfer(
                    &mut model.clone(),
                    grid,
                    ty,
                    es,
                    [0; 3],
                    grid,
                    hr,
                    hs,
                    &mut expect,
                    false,
                );
                let now = unsafe { std::slice::from_raw_parts(host.as_ptr(), host.len()) }.to_vec();
                for z in 0..grid[2] {
                    for y in 0..grid[1] {
                        let o = host_offset(ty, es, hr, hs, 0, y, z);
                        assert_eq!(
                            now[o..o + grid[0] * es],
                            expect[o..o + grid[0] * es],
                            "{what}: host memory after a write and a map, row {y} slice {z}"
                        );
                    }
                }
                ok!(clEnqueueUnmapMemObject(
                    q.0,
                    img.mem.0,
                    p,
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ));
                q.finish();
            }
        }
    }
    // clCreateImage2D / clCreateImage3D (OpenCL 1.x).
    let fmt = Format::new(CL_RGBA, CL_UNORM_INT8);
    let mut cf = fmt.cl();
    let mut host = rng.bytes(9 * 4 * 5);
    let mut err = 0;
    let m = unsafe {
        clCreateImage2D(
            ctx.0,
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            &mut cf,
            8,
            5,
            9 * 4,
            host.as_mut_ptr() as *mut c_void,
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "clCreateImage2D");
    let img = Img {
        mem: Mem(m),
        fmt,
        ty: CL_MEM_OBJECT_IMAGE2D,
        size: [8, 5, 0, 0],
        es: 4,
        buf: None,
    };
    let mut model = vec![0u8; img.bytes()];
    model_xfer(
        &mut model,
        img.grid(),
        img.ty,
        4,
        [0; 3],
        img.grid(),
        36,
        0,
        &mut host,
        true,
    );
    check_read(&q, &img, &model, [0; 3], img.grid(), 0, 0, "clCreateImage2D");
    let m = unsafe {
        clCreateImage3D(
            ctx.0,
            CL_MEM_READ_ONLY,
            &mut cf,
            4,
            3,
            2,
            0,
            0,
            ptr::null_mut(),
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "clCreateImage3D");
    let m = Mem(m);
    assert_eq!(mem_info::<cl_mem_object_type>(m.0, CL_MEM_TYPE), CL_MEM_OBJECT_IMAGE3D);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_DEPTH), 2);
    // A 3D image of depth 1 is not a 3D image for clCreateImage3D.
    let m = unsafe {
        clCreateImage3D(
            ctx.0,
            CL_MEM_READ_ONLY,
            &mut cf,
            4,
            3,
            1,
            0,
            0,
            ptr::null_mut(),
            &mut err,
        )
    };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_IMAGE_SIZE, "clCreateImage3D with depth 1");
}

/// clEnqueueCopyImage between images of each type (and across types where the API allows:
/// 2D <-> a slice of 3D or of a 2D array, 1D <-> a layer of a 1D array), sub-regions at random
/// origins, every byte checked; overlapping copies in one image, format mismatches and regions
/// outside either image are refused.
#[test]
fn copy_images() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(3);
    let fl2 = listed(&ctx, CL_MEM_OBJECT_IMAGE2D);
    let mut copies = 0;
    // Same-type copies: every listed format for 2D, one per element size elsewhere.
    for ty in ALL_TYPES {
        let fl = listed(&ctx, ty);
        let mut sizes_done: Vec<usize> = Vec::new();
        for fmt in fl {
            let es0 = fmt.element_size(false);
            if ty != CL_MEM_OBJECT_IMAGE2D && sizes_done.contains(&es0) {
                continue;
            }
            sizes_done.push(es0);
            let a = make(&ctx, CL_MEM_READ_WRITE, fmt, ty, test_size(ty));
            let b = make(&ctx, CL_MEM_READ_WRITE, fmt, ty, test_size(ty));
            let grid = a.grid();
            let mut ma = vec![0u8; a.bytes()];
            let mut mb = vec![0u8; b.bytes()];
            do_write(&q, &a, &mut ma, [0; 3], grid, 0, 0, &mut rng);
            do_write(&q, &b, &mut mb, [0; 3], grid, 0, 0, &mut rng);
            for _ in 0..2 {
                let (so, r) = sub_region(grid, &mut rng);
                let mut dst_o = [0; 3];
                for k in 0..3 {
                    dst_o[k] = rng.below((grid[k] - r[k] + 1) as u64) as usize;
                }
                let err = unsafe {
                    clEnqueueCopyImage(
                        q.0,
                        a.mem.0,
                        b.mem.0,
                        so.as_ptr(),
                        dst_o.as_ptr(),
                        r.as_ptr(),
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                    )
                };
                assert_eq!(
                    err,
                    CL_SUCCESS,
                    "{} {fmt}: clEnqueueCopyImage({so:?} -> {dst_o:?}, region {r:?}): {}",
                    iref::image_type_name(ty),
                    err_name(err)
                );
                let mut tmp = vec![0u8; r[0] * r[1] * r[2] * a.es];
                model_xfer(&mut ma, grid, ty, a.es, so, r, 0, 0, &mut tmp, false);
                model_xfer(&mut mb, grid, ty, a.es, dst_o, r, 0, 0, &mut tmp, true);
                q.finish();
                check_read(&q, &b, &mb, [0; 3], grid, 0, 0, "after clEnqueueCopyImage");
                copies += 1;
            }
            // Within one image, non-overlapping: first column to last column.
            if grid[0] >= 2 {
                let r = [1, grid[1], grid[2]];
                let (so, dst_o) = ([0, 0, 0], [grid[0] - 1, 0, 0]);
                ok!(clEnqueueCopyImage(
                    q.0,
                    b.mem.0,
                    b.mem.0,
                    so.as_ptr(),
                    dst_o.as_ptr(),
                    r.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ));
                let mut tmp = vec![0u8; r[0] * r[1] * r[2] * a.es];
                model_xfer(&mut mb, grid, ty, a.es, so, r, 0, 0, &mut tmp, false);
                model_xfer(&mut mb, grid, ty, a.es, dst_o, r, 0, 0, &mut tmp, true);
                q.finish();
                check_read(&q, &b, &mb, [0; 3], grid, 0, 0, "after a copy within one image");
                // Overlapping.
                let r = [grid[0] - 1, grid[1], grid[2]];
                check!(
                    clEnqueueCopyImage(
                        q.0,
                        b.mem.0,
                        b.mem.0,
                        [0usize, 0, 0].as_ptr(),
                        [1usize, 0, 0].as_ptr(),
                        r.as_ptr(),
                        0,
                        ptr::null(),
                        ptr::null_mut()
                    ),
                    CL_MEM_COPY_OVERLAP
                );
            }
            // Outside the source, outside the destination.
            let big = [grid[0] + 1, grid[1], grid[2]];
            check!(
                clEnqueueCopyImage(
                    q.0,
                    a.mem.0,
                    b.mem.0,
                    [0usize; 3].as_ptr(),
                    [0usize; 3].as_ptr(),
                    big.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
            check!(
                clEnqueueCopyImage(
                    q.0,
                    a.mem.0,
                    b.mem.0,
                    [0usize; 3].as_ptr(),
                    [1usize, 0, 0].as_ptr(),
                    grid.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
        }
    }
    // Across types: 2D <-> 3D slice, 2D <-> 2D array layer, 1D <-> 1D array layer.
    let fmt = Format::new(CL_RGBA, CL_UNSIGNED_INT16);
    assert!(fl2.contains(&fmt));
    let pairs = [
        (CL_MEM_OBJECT_IMAGE2D, [5, 4, 0, 0], CL_MEM_OBJECT_IMAGE3D, [6, 5, 3, 0]),
        (CL_MEM_OBJECT_IMAGE3D, [6, 5, 3, 0], CL_MEM_OBJECT_IMAGE2D, [5, 4, 0, 0]),
        (
            CL_MEM_OBJECT_IMAGE2D,
            [5, 4, 0, 0],
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [6, 5, 0, 3],
        ),
        (
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [6, 5, 0, 3],
            CL_MEM_OBJECT_IMAGE2D,
            [5, 4, 0, 0],
        ),
        (
            CL_MEM_OBJECT_IMAGE1D,
            [9, 0, 0, 0],
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [10, 0, 0, 3],
        ),
        (
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [10, 0, 0, 3],
            CL_MEM_OBJECT_IMAGE1D,
            [9, 0, 0, 0],
        ),
    ];
    for (sty, ss, dty, ds) in pairs {
        let a = make(&ctx, CL_MEM_READ_WRITE, fmt, sty, ss);
        let b = make(&ctx, CL_MEM_READ_WRITE, fmt, dty, ds);
        let (ga, gb) = (a.grid(), b.grid());
        let mut ma = vec![0u8; a.bytes()];
        let mut mb = vec![0u8; b.bytes()];
        do_write(&q, &a, &mut ma, [0; 3], ga, 0, 0, &mut rng);
        do_write(&q, &b, &mut mb, [0; 3], gb, 0, 0, &mut rng);
        // The 2D (1D) region: width and height of the smaller, one slice (layer).
        let r = [
            ga[0].min(gb[0]) - 1,
            if ga[1] > 1 && gb[1] > 1 {
                ga[1].min(gb[1]) - 1
            } else {
                1
            },
            1,
        ];
        let so = [1, if ga[1] > r[1] { 1 } else { 0 }, ga[2] - 1];
        let dst_o = [
            0,
            if gb[1] > 1 && gb[1] > r[1] && gb[2] == 1 && ga[1] == 1 {
                gb[1] - 1
            } else {
                0
            },
            gb[2] - 1,
        ];
        let what = format!("copy {} -> {}", iref::image_type_name(sty), iref::image_type_name(dty));
        let err = unsafe {
            clEnqueueCopyImage(
                q.0,
                a.mem.0,
                b.mem.0,
                so.as_ptr(),
                dst_o.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        assert_eq!(
            err,
            CL_SUCCESS,
            "{what}: origin {so:?} -> {dst_o:?} region {r:?}: {}",
            err_name(err)
        );
        // The layer of a 1D array is its row: a 1D source row goes to row dst_o[1].
        let mut tmp = vec![0u8; r[0] * r[1] * r[2] * 8];
        model_xfer(&mut ma, ga, sty, 8, so, r, 0, 0, &mut tmp, false);
        model_xfer(&mut mb, gb, dty, 8, dst_o, r, 0, 0, &mut tmp, true);
        q.finish();
        check_read(&q, &b, &mb, [0; 3], gb, 0, 0, &what);
        copies += 1;
    }
    // Different formats.
    let a = make(
        &ctx,
        CL_MEM_READ_WRITE,
        Format::new(CL_RGBA, CL_UNORM_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
    );
    let b = make(
        &ctx,
        CL_MEM_READ_WRITE,
        Format::new(CL_BGRA, CL_UNORM_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
    );
    let c = make(
        &ctx,
        CL_MEM_READ_WRITE,
        Format::new(CL_RGBA, CL_SIGNED_INT8),
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
    );
    for (x, y) in [(&a, &b), (&a, &c)] {
        check!(
            clEnqueueCopyImage(
                q.0,
                x.mem.0,
                y.mem.0,
                [0usize; 3].as_ptr(),
                [0usize; 3].as_ptr(),
                [2usize, 2, 1].as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            CL_IMAGE_FORMAT_MISMATCH
        );
    }
    // A buffer is not an image.
    let buf = ctx.buffer(1024);
    check!(
        clEnqueueCopyImage(
            q.0,
            buf.0,
            a.mem.0,
            [0usize; 3].as_ptr(),
            [0usize; 3].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_MEM_OBJECT
    );
    println!("{copies} image copies checked");
}

/// clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage: region texels packed tightly in
/// the buffer from an offset, for every listed 2D format and one format per element size of
/// the other types; out-of-range offsets and regions are refused.
#[test]
fn image_buffer_copies() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(4);
    for ty in ALL_TYPES {
        let mut sizes_done: Vec<usize> = Vec::new();
        for fmt in listed(&ctx, ty) {
            let es0 = fmt.element_size(false);
            if ty != CL_MEM_OBJECT_IMAGE2D && sizes_done.contains(&es0) {
                continue;
            }
            sizes_done.push(es0);
            let img = make(&ctx, CL_MEM_READ_WRITE, fmt, ty, test_size(ty));
            let grid = img.grid();
            let es = img.es;
            let mut model = vec![0u8; img.bytes()];
            do_write(&q, &img, &mut model, [0; 3], grid, 0, 0, &mut rng);
            let (o, r) = sub_region(grid, &mut rng);
            let n = r[0] * r[1] * r[2] * es;
            let off = 3 + (rng.below(4) as usize) * es;
            let buf = ctx.buffer_from(&rng.bytes(off + n + 5));
            let before = q.read(&buf, 0, off + n + 5);
            ok!(clEnqueueCopyImageToBuffer(
                q.0,
                img.mem.0,
                buf.0,
                o.as_ptr(),
                r.as_ptr(),
                off,
                0,
                ptr::null(),
                ptr::null_mut()
            ));
            let got = q.read(&buf, 0, off + n + 5);
            let mut want = before.clone();
            model_xfer(&mut model, grid, ty, es, o, r, 0, 0, &mut want[off..off + n], false);
            assert!(
                got == want,
                "{} {fmt}: clEnqueueCopyImageToBuffer origin {o:?} region {r:?} offset {off}",
                iref::image_type_name(ty)
            );
            // Buffer to image.
            let (o, r) = sub_region(grid, &mut rng);
            let n = r[0] * r[1] * r[2] * es;
            let src = rng.bytes(off + n);
            let buf = ctx.buffer_from(&src);
            ok!(clEnqueueCopyBufferToImage(
                q.0,
                buf.0,
                img.mem.0,
                off,
                o.as_ptr(),
                r.as_ptr(),
                0,
                ptr::null(),
                ptr::null_mut()
            ));
            let mut s2 = src[off..].to_vec();
            model_xfer(&mut model, grid, ty, es, o, r, 0, 0, &mut s2, true);
            q.finish();
            check_read(&q, &img, &model, [0; 3], grid, 0, 0, "after clEnqueueCopyBufferToImage");
            // Errors: the buffer too small, the region outside the image, swapped objects.
            check!(
                clEnqueueCopyImageToBuffer(
                    q.0,
                    img.mem.0,
                    buf.0,
                    o.as_ptr(),
                    r.as_ptr(),
                    off + 1,
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
            check!(
                clEnqueueCopyBufferToImage(
                    q.0,
                    buf.0,
                    img.mem.0,
                    off + 1,
                    o.as_ptr(),
                    r.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
            let big = [grid[0] + 1, grid[1], grid[2]];
            let big_buf = ctx.buffer((grid[0] + 1) * grid[1] * grid[2] * es);
            check!(
                clEnqueueCopyImageToBuffer(
                    q.0,
                    img.mem.0,
                    big_buf.0,
                    [0usize; 3].as_ptr(),
                    big.as_ptr(),
                    0,
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
            check!(
                clEnqueueCopyBufferToImage(
                    q.0,
                    big_buf.0,
                    img.mem.0,
                    0,
                    [0usize; 3].as_ptr(),
                    big.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
            check!(
                clEnqueueCopyImageToBuffer(
                    q.0,
                    big_buf.0,
                    img.mem.0,
                    [0usize; 3].as_ptr(),
                    r.as_ptr(),
                    0,
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_MEM_OBJECT
            );
            check!(
                clEnqueueCopyBufferToImage(
                    q.0,
                    img.mem.0,
                    img.mem.0,
                    0,
                    [0usize; 3].as_ptr(),
                    r.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ),
                CL_INVALID_MEM_OBJECT
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fill
// ---------------------------------------------------------------------------------------------

/// A random fill color for `fmt`'s kind, with values outside the representable range (to check
/// saturation) and the normalized end points.
fn random_color(fmt: Format, rng: &mut Rng) -> Color {
    match fmt.kind() {
        Kind::Float => {
            let v: [f32; 4] = std::array::from_fn(|_| match rng.below(6) {
                0 => 0.0,
                1 => 1.0,
                2 => -1.0,
                3 => rng.range_f64(-2.0, 2.0) as f32,
                4 => rng.range_f64(0.0, 1.0) as f32,
                _ => rng.range_f64(-300.0, 300.0) as f32,
            });
            Color::F(v)
        }
        Kind::Int => Color::I(std::array::from_fn(|_| match rng.below(4) {
            0 => rng.next_u64() as i32,
            1 => (rng.next_u64() as i32) >> 16,
            2 => (rng.next_u64() as i32) >> 24,
            _ => rng.below(300) as i32 - 150,
        })),
        Kind::Uint => Color::U(std::array::from_fn(|_| match rng.below(3) {
            0 => rng.next_u64() as u32,
            1 => rng.below(70000) as u32,
            _ => rng.below(300) as u32,
        })),
    }
}

/// clEnqueueFillImage of every listed format (2D, and each other type in turn): every texel of
/// the region holds the fill color converted by the rules of 7.4 (normalized values within 0.6
/// of the scaled color, saturated integers, half rounded to nearest even or toward zero, sRGB
/// within 0.6 of the encoded value), the texels outside keep their bytes.
#[test]
fn fill_images_convert_the_color() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(5);
    let mut fills = 0;
    let mut rounded_not_nearest = 0;
    for ty in ALL_TYPES {
        for (fi, fmt) in listed(&ctx, ty).into_iter().enumerate() {
            if ty != CL_MEM_OBJECT_IMAGE2D && fi % 3 != (ty as usize) % 3 {
                continue;
            }
            let img = make(&ctx, CL_MEM_READ_WRITE, fmt, ty, test_size(ty));
            let x_pad = fmt.x_pad_for(img.es).unwrap();
            let grid = img.grid();
            let mut model = vec![0u8; img.bytes()];
            do_write(&q, &img, &mut model, [0; 3], grid, 0, 0, &mut rng);
            for _ in 0..3 {
                let color = random_color(fmt, &mut rng);
                let (o, r) = sub_region(grid, &mut rng);
                let raw: [u32; 4] = match color {
                    Color::F(v) => v.map(f32::to_bits),
                    Color::I(v) => v.map(|x| x as u32),
                    Color::U(v) => v,
                };
                ok!(clEnqueueFillImage(
                    q.0,
                    img.mem.0,
                    raw.as_ptr() as *const c_void,
                    o.as_ptr(),
                    r.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ));
                let got = q.read_image(&img.mem, [0; 3], grid, 0, 0, img.bytes());
                let es = img.es;
                let pref = iref::encode(fmt, x_pad, color);
                for z in 0..grid[2] {
                    for y in 0..grid[1] {
                        for x in 0..grid[0] {
                            let i = ((z * grid[1] + y) * grid[0] + x) * es;
                            let e = &got[i..i + es];
                            let inside = (0..3).all(|k| {
                                let c = [x, y, z][k];
                                c >= o[k] && c < o[k] + r[k]
                            });
                            if inside {
                                if let Err(m) = iref::check_written(fmt, x_pad, color, e) {
                                    panic!(
                                        "{} fill origin {o:?} region {r:?}, texel ({x},{y},{z}): {m}",
                                        iref::image_type_name(ty)
                                    );
                                }
                                if !fmt.has_optional_x()
                                    && !fmt.is_packed()
                                    && e != &pref[..]
                                    && fmt.dtype != CL_HALF_FLOAT
                                {
                                    rounded_not_nearest += 1;
                                }
                                model[i..i + es].copy_from_slice(e);
                            } else {
                                assert!(
                                    e == &model[i..i + es],
                                    "{} {fmt}: fill origin {o:?} region {r:?} changed texel ({x},{y},{z}) outside it",
                                    iref::image_type_name(ty)
                                );
                            }
                        }
                    }
                }
                fills += 1;
            }
        }
    }
    println!("{fills} fills checked; {rounded_not_nearest} texels rounded otherwise than to nearest even (allowed within 0.6)");
    // Errors: NULL color, region outside.
    let img = make(
        &ctx,
        CL_MEM_READ_WRITE,
        Format::new(CL_RGBA, CL_FLOAT),
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
    );
    let c = [0f32; 4];
    check!(
        clEnqueueFillImage(
            q.0,
            img.mem.0,
            ptr::null(),
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueFillImage(
            q.0,
            img.mem.0,
            c.as_ptr() as *const c_void,
            [0usize; 3].as_ptr(),
            [5usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueFillImage(
            q.0,
            img.mem.0,
            c.as_ptr() as *const c_void,
            [0usize, 0, 1].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let buf = ctx.buffer(64);
    check!(
        clEnqueueFillImage(
            q.0,
            buf.0,
            c.as_ptr() as *const c_void,
            [0usize; 3].as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_MEM_OBJECT
    );
}

// ---------------------------------------------------------------------------------------------
// Map
// ---------------------------------------------------------------------------------------------

struct Mapped {
    p: *mut u8,
    row: usize,
    slice: usize,
}

fn map(q: &Queue, img: &Img, flags: cl_map_flags, o: [usize; 3], r: [usize; 3]) -> Result<Mapped, cl_int> {
    let mut row = 0usize;
    let mut slice = 0usize;
    let mut err = 0;
    let p = unsafe {
        clEnqueueMapImage(
            q.0,
            img.mem.0,
            CL_TRUE,
            flags,
            o.as_ptr(),
            r.as_ptr(),
            &mut row,
            &mut slice,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        )
    };
    if err != CL_SUCCESS {
        assert!(p.is_null(), "failed clEnqueueMapImage returned a pointer");
        return Err(err);
    }
    Ok(Mapped {
        p: p as *mut u8,
        row,
        slice,
    })
}

/// clEnqueueMapImage for reading and for writing (and invalidating) regions of every type: the
/// mapped memory holds the region with the returned pitches, writes through it land in the
/// image at unmap; CL_MEM_MAP_COUNT follows; bad pitches pointers and regions are refused.
#[test]
fn map_images() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(6);
    for ty in ALL_TYPES {
        let mut sizes_done: Vec<usize> = Vec::new();
        for fmt in listed(&ctx, ty) {
            let es0 = fmt.element_size(false);
            if sizes_done.contains(&es0) {
                continue;
            }
            sizes_done.push(es0);
            let img = make(&ctx, CL_MEM_READ_WRITE, fmt, ty, test_size(ty));
            let grid = img.grid();
            let es = img.es;
            let what = format!("{} {fmt}", iref::image_type_name(ty));
            let mut model = vec![0u8; img.bytes()];
            do_write(&q, &img, &mut model, [0; 3], grid, 0, 0, &mut rng);
            for flags in [
                CL_MAP_READ,
                CL_MAP_WRITE,
                CL_MAP_READ | CL_MAP_WRITE,
                CL_MAP_WRITE_INVALIDATE_REGION,
            ] {
                let (o, r) = sub_region(grid, &mut rng);
                let m =
                    map(&q, &img, flags, o, r).unwrap_or_else(|e| panic!("{what}: map {flags:#x}: {}", err_name(e)));
                assert!(m.row >= r[0] * es, "{what}: mapped row pitch {} < region row", m.row);
                match ty {
                    CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D => {
                        assert_eq!(m.slice, 0, "{what}: mapped slice pitch of a 1D or 2D image")
                    }
                    CL_MEM_OBJECT_IMAGE1D_ARRAY => assert!(m.slice >= m.row, "{what}: mapped slice pitch"),
                    _ => assert!(m.slice >= m.row * r[1], "{what}: mapped slice pitch"),
                }
                assert_eq!(
                    mem_info::<cl_uint>(img.mem.0, CL_MEM_MAP_COUNT),
                    1,
                    "{what}: CL_MEM_MAP_COUNT"
                );
                let span = host_len(ty, es, r, m.row, m.slice);
                let view = unsafe { std::slice::from_raw_parts_mut(m.p, span) };
                if flags & CL_MAP_READ != 0 {
                    let mut want = view.to_vec();
                    model_xfer(&mut model.clone(), grid, ty, es, o, r, m.row, m.slice, &mut want, false);
                    assert!(
                        view == &want[..],
                        "{what}: mapped region {o:?} {r:?} differs from the image"
                    );
                }
                if flags != CL_MAP_READ {
                    let mut fresh = view.to_vec();
                    let src = rng.bytes(span);
                    // Write only the region's texels.
                    let mut tmp_model = vec![0u8; img.bytes()];
                    let mut src2 = src.clone();
                    model_xfer(&mut tmp_model, grid, ty, es, o, r, m.row, m.slice, &mut src2, true);
                    model_xfer(&mut tmp_model, grid, ty, es, o, r, m.row, m.slice, &mut fresh, false);
                    view.copy_from_slice(&fresh);
                    model_xfer(&mut model, grid, ty, es, o, r, m.row, m.slice, &mut fresh, true);
                }
                ok!(clEnqueueUnmapMemObject(
                    q.0,
                    img.mem.0,
                    m.p as *mut c_void,
                    0,
                    ptr::null(),
                    ptr::null_mut()
                ));
                q.finish();
                assert_eq!(
                    mem_info::<cl_uint>(img.mem.0, CL_MEM_MAP_COUNT),
                    0,
                    "{what}: CL_MEM_MAP_COUNT after unmap"
                );
                check_read(
                    &q,
                    &img,
                    &model,
                    [0; 3],
                    grid,
                    0,
                    0,
                    &format!("{what}: after map {flags:#x} / unmap"),
                );
            }
            // Errors.
            let mut row = 0usize;
            let mut slice = 0usize;
            let mut err = 0;
            let p = unsafe {
                clEnqueueMapImage(
                    q.0,
                    img.mem.0,
                    CL_TRUE,
                    CL_MAP_READ,
                    [0usize; 3].as_ptr(),
                    grid.as_ptr(),
                    ptr::null_mut(),
                    &mut slice,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    &mut err,
                )
            };
            assert!(p.is_null());
            check_err!(err, CL_INVALID_VALUE, format!("{what}: map with image_row_pitch NULL"));
            if matches!(
                ty,
                CL_MEM_OBJECT_IMAGE3D | CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY
            ) {
                let p = unsafe {
                    clEnqueueMapImage(
                        q.0,
                        img.mem.0,
                        CL_TRUE,
                        CL_MAP_READ,
                        [0usize; 3].as_ptr(),
                        grid.as_ptr(),
                        &mut row,
                        ptr::null_mut(),
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                        &mut err,
                    )
                };
                assert!(p.is_null());
                check_err!(
                    err,
                    CL_INVALID_VALUE,
                    format!("{what}: map with image_slice_pitch NULL")
                );
            }
            let big = [grid[0] + 1, grid[1], grid[2]];
            assert_eq!(
                map(&q, &img, CL_MAP_READ, [0; 3], big).err(),
                Some(CL_INVALID_VALUE),
                "{what}: map outside"
            );
            let bad = [0usize, 0, 0];
            assert_eq!(
                map(&q, &img, CL_MAP_READ, [0; 3], bad).err(),
                Some(CL_INVALID_VALUE),
                "{what}: map of an empty region"
            );
            assert_eq!(
                map(&q, &img, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, [0; 3], grid).err(),
                Some(CL_INVALID_VALUE),
                "{what}: map READ | WRITE_INVALIDATE_REGION"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Region and access errors of read / write
// ---------------------------------------------------------------------------------------------

/// Regions outside the image, empty regions, origins and regions a type does not have, pitches
/// too small, NULL pointers, buffers in place of images and the other way round, and host access
/// flags that forbid the command: each refused with the API's error code.
#[test]
fn read_write_errors() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let fmt = Format::new(CL_RGBA, CL_UNORM_INT8);
    let mut buf = vec![0u8; 1 << 16];
    for ty in ALL_TYPES {
        let img = make(&ctx, CL_MEM_READ_WRITE, fmt, ty, test_size(ty));
        let g = img.grid();
        let what = iref::image_type_name(ty);
        let rd = |o: [usize; 3], r: [usize; 3], row: usize, slice: usize, buf: &mut [u8]| {
            q.try_read_image(&img.mem, o, r, row, slice, buf)
        };
        let mut bad: Vec<([usize; 3], [usize; 3], &str)> = vec![
            ([0, 0, 0], [g[0] + 1, g[1], g[2]], "region wider than the image"),
            ([1, 0, 0], g, "origin + region past the width"),
            ([0, 0, 0], [0, g[1], g[2]], "region[0] = 0"),
            ([0, 0, 0], [g[0], 0, g[2]], "region[1] = 0"),
            ([0, 0, 0], [g[0], g[1], 0], "region[2] = 0"),
            ([0, 0, 0], [g[0], g[1] + 1, g[2]], "region[1] past the height (layers)"),
            ([0, g[1], 0], [g[0], 1, g[2]], "origin[1] at the height (layers)"),
            ([0, 0, g[2]], [g[0], g[1], 1], "origin[2] at the depth (layers)"),
        ];
        if g[2] == 1 {
            bad.push(([0, 0, 0], [g[0], g[1], 2], "region[2] = 2 without a third dimension"));
        }
        for (o, r, why) in bad {
            assert_eq!(
                rd(o, r, 0, 0, &mut buf),
                CL_INVALID_VALUE,
                "{what}: read with {why} (origin {o:?} region {r:?})"
            );
            assert_eq!(
                q.try_write_image(&img.mem, o, r, 0, 0, &buf),
                CL_INVALID_VALUE,
                "{what}: write with {why} (origin {o:?} region {r:?})"
            );
        }
        // Row pitch smaller than a region row.
        assert_eq!(
            rd([0; 3], g, g[0] * 4 - 1, 0, &mut buf),
            CL_INVALID_VALUE,
            "{what}: row pitch < region row"
        );
        // Slice pitch: must be 0 for 1D and 2D images, >= the slice otherwise.
        match ty {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D => {
                assert_eq!(
                    rd([0; 3], g, 0, 4096, &mut buf),
                    CL_INVALID_VALUE,
                    "{what}: slice pitch of a 1D/2D image"
                );
            }
            CL_MEM_OBJECT_IMAGE1D_ARRAY => {
                assert_eq!(
                    rd([0; 3], g, g[0] * 4, g[0] * 4 - 1, &mut buf),
                    CL_INVALID_VALUE,
                    "{what}: slice pitch < row pitch"
                );
            }
            _ => {
                assert_eq!(
                    rd([0; 3], g, 0, g[0] * 4 * g[1] - 1, &mut buf),
                    CL_INVALID_VALUE,
                    "{what}: slice pitch < row pitch * height"
                );
            }
        }
        // NULL pointer, NULL origin / region.
        let err = unsafe {
            clEnqueueReadImage(
                q.0,
                img.mem.0,
                CL_TRUE,
                [0usize; 3].as_ptr(),
                g.as_ptr(),
                0,
                0,
                ptr::null_mut(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        assert_eq!(err, CL_INVALID_VALUE, "{what}: read into NULL");
        let err = unsafe {
            clEnqueueWriteImage(
                q.0,
                img.mem.0,
                CL_TRUE,
                ptr::null(),
                g.as_ptr(),
                0,
                0,
                buf.as_ptr() as *const c_void,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        assert_eq!(err, CL_INVALID_VALUE, "{what}: write with origin NULL");
        let err = unsafe {
            clEnqueueReadImage(
                q.0,
                img.mem.0,
                CL_TRUE,
                [0usize; 3].as_ptr(),
                ptr::null(),
                0,
                0,
                buf.as_mut_ptr() as *mut c_void,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        assert_eq!(err, CL_INVALID_VALUE, "{what}: read with region NULL");
        // Images are not buffers.
        check!(
            clEnqueueReadBuffer(
                q.0,
                img.mem.0,
                CL_TRUE,
                0,
                4,
                buf.as_mut_ptr() as *mut c_void,
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        check!(
            clEnqueueWriteBuffer(
                q.0,
                img.mem.0,
                CL_TRUE,
                0,
                4,
                buf.as_ptr() as *const c_void,
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        let pat = [0u8; 4];
        check!(
            clEnqueueFillBuffer(
                q.0,
                img.mem.0,
                pat.as_ptr() as *const c_void,
                4,
                0,
                4,
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
    }
    // Buffers are not images.
    let b = ctx.buffer(4096);
    let m = Mem(b.0);
    std::mem::forget(b);
    assert_eq!(
        q.try_read_image(&m, [0; 3], [1, 1, 1], 0, 0, &mut buf),
        CL_INVALID_MEM_OBJECT,
        "read image from a buffer"
    );
    assert_eq!(
        q.try_write_image(&m, [0; 3], [1, 1, 1], 0, 0, &buf),
        CL_INVALID_MEM_OBJECT,
        "write image to a buffer"
    );
    let mut n = 0usize;
    check!(
        clGetImageInfo(
            m.0,
            CL_IMAGE_WIDTH,
            8,
            &mut n as *mut usize as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_MEM_OBJECT
    );
    // Host access flags.
    let size = [4, 4, 0, 0];
    for (flags, read_ok, write_ok) in [
        (CL_MEM_HOST_NO_ACCESS, false, false),
        (CL_MEM_HOST_READ_ONLY, true, false),
        (CL_MEM_HOST_WRITE_ONLY, false, true),
    ] {
        let img = make(&ctx, CL_MEM_READ_WRITE | flags, fmt, CL_MEM_OBJECT_IMAGE2D, size);
        let r = [4, 4, 1];
        let want = |ok: bool| if ok { CL_SUCCESS } else { CL_INVALID_OPERATION };
        assert_eq!(
            q.try_read_image(&img.mem, [0; 3], r, 0, 0, &mut buf),
            want(read_ok),
            "read, host flags {flags:#x}"
        );
        assert_eq!(
            q.try_write_image(&img.mem, [0; 3], r, 0, 0, &buf),
            want(write_ok),
            "write, host flags {flags:#x}"
        );
        assert_eq!(
            map(&q, &img, CL_MAP_READ, [0; 3], r).err().unwrap_or(CL_SUCCESS),
            want(read_ok),
            "map read, host flags {flags:#x}"
        );
        q.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// Creation errors
// ---------------------------------------------------------------------------------------------

fn create_err(
    ctx: &Context,
    flags: cl_mem_flags,
    fmt: Option<&cl_image_format>,
    desc: Option<&cl_image_desc>,
    host: *mut c_void,
) -> cl_int {
    let mut err = 0;
    let m = unsafe {
        clCreateImage(
            ctx.0,
            flags,
            fmt.map_or(ptr::null(), |f| f as *const _),
            desc.map_or(ptr::null(), |d| d as *const _),
            host,
            &mut err,
        )
    };
    if !m.is_null() {
        drop(Mem(m));
        assert_ne!(err, CL_SUCCESS, "clCreateImage succeeded where an error was expected");
    }
    err
}

/// Format descriptors that are not valid (unknown values, combinations the format table
/// forbids, NULL), descriptors that are not valid, sizes over the device's limits, bad flags and
/// host pointers: each with its error code, and nothing crashes.
#[test]
fn create_errors() {
    if !isolate("create_errors") {
        return;
    }
    require_images();
    let ctx = Context::new();
    let rgba8 = Format::new(CL_RGBA, CL_UNORM_INT8).cl();
    let d2 = image_desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0], 0, 0, ptr::null_mut());
    let rw = CL_MEM_READ_WRITE;
    // Formats.
    assert_eq!(
        create_err(&ctx, rw, None, Some(&d2), ptr::null_mut()),
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
        "NULL format"
    );
    let mut invalid = 0;
    for &(o, _) in &iref::ORDERS {
        for &(t, _) in &iref::DATA_TYPES {
            let f = Format::new(o, t);
            if f.is_valid() {
                continue;
            }
            let desc = if o == CL_DEPTH {
                d2
            } else {
                image_desc(CL_MEM_OBJECT_IMAGE1D, [4, 0, 0, 0], 0, 0, ptr::null_mut())
            };
            let e = create_err(&ctx, rw, Some(&f.cl()), Some(&desc), ptr::null_mut());
            if f.invalid_by_data_type() {
                assert_eq!(
                    e, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                    "{f}: the data type table does not allow it"
                );
            } else {
                // An order's own list of data types ("can only be used if"): not a valid format
                // by the table, though implementations (Mesa's among them) answer that it is not
                // supported.
                assert!(
                    e == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR || e == CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    "{f}: the format table does not allow it: {}",
                    err_name(e)
                );
            }
            invalid += 1;
        }
    }
    assert!(invalid > 100);
    for (o, t) in [
        (0u32, CL_UNORM_INT8),
        (CL_RGBA, 0u32),
        (0x1234, CL_FLOAT),
        (CL_RGBA, 0x10ff),
    ] {
        let f = Format::new(o, t).cl();
        assert_eq!(
            create_err(&ctx, rw, Some(&f), Some(&d2), ptr::null_mut()),
            CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
            "format {o:#x}/{t:#x}"
        );
    }
    // Descriptors.
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), None, ptr::null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "NULL descriptor"
    );
    for ty in [CL_MEM_OBJECT_BUFFER, CL_MEM_OBJECT_PIPE, 0x1234] {
        let d = image_desc(ty, [4, 4, 1, 1], 0, 0, ptr::null_mut());
        assert_eq!(
            create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "image_type {ty:#x}"
        );
    }
    let mut d = d2;
    d.num_mip_levels = 1;
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "num_mip_levels 1"
    );
    let mut d = d2;
    d.num_samples = 1;
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "num_samples 1"
    );
    let mut d = d2;
    d.image_row_pitch = 64;
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "row pitch without host_ptr"
    );
    let mut host = vec![0u8; 1 << 16];
    let hp = host.as_mut_ptr() as *mut c_void;
    let copy = rw | CL_MEM_COPY_HOST_PTR;
    let mut d = d2;
    d.image_row_pitch = 15;
    assert_eq!(
        create_err(&ctx, copy, Some(&rgba8), Some(&d), hp),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "row pitch < width * element"
    );
    d.image_row_pitch = 18;
    assert_eq!(
        create_err(&ctx, copy, Some(&rgba8), Some(&d), hp),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "row pitch not a multiple of the element"
    );
    let mut d = image_desc(CL_MEM_OBJECT_IMAGE3D, [4, 4, 2, 0], 16, 63, ptr::null_mut());
    assert_eq!(
        create_err(&ctx, copy, Some(&rgba8), Some(&d), hp),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "slice pitch < row pitch * height"
    );
    d.image_slice_pitch = 72;
    assert_eq!(
        create_err(&ctx, copy, Some(&rgba8), Some(&d), hp),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "slice pitch not a multiple of the row pitch"
    );
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 0, 0, 2], 16, 8, ptr::null_mut());
    assert_eq!(
        create_err(&ctx, copy, Some(&rgba8), Some(&d), hp),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "1D array slice pitch < row pitch"
    );
    // A buffer where none belongs.
    let b = ctx.buffer(4096);
    for ty in [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE3D,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
    ] {
        let d = image_desc(ty, [4, 4, 2, 2], 0, 0, b.0);
        assert_eq!(
            create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "{}: buffer set",
            iref::image_type_name(ty)
        );
    }
    if !device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_image2d_from_buffer") {
        let d = image_desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0], 0, 0, b.0);
        assert_eq!(
            create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "2D from a buffer without cl_khr_image2d_from_buffer"
        );
    }
    // 1D image buffers: no buffer, an image as the buffer, a buffer too small, conflicting flags.
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], 0, 0, ptr::null_mut());
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "1D image buffer without a buffer"
    );
    let other = make(
        &ctx,
        rw,
        Format::new(CL_RGBA, CL_UNORM_INT8),
        CL_MEM_OBJECT_IMAGE1D,
        [64, 0, 0, 0],
    );
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], 0, 0, other.mem.0);
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "1D image buffer on an image"
    );
    let small = ctx.buffer(63);
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], 0, 0, small.0);
    let e = create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut());
    assert!(
        e == CL_INVALID_IMAGE_SIZE || e == CL_INVALID_IMAGE_DESCRIPTOR,
        "1D image buffer on a buffer too small: {}",
        err_name(e)
    );
    let ro = ctx.buffer_with(CL_MEM_READ_ONLY, 4096, ptr::null_mut());
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], 0, 0, ro.0);
    assert_eq!(
        create_err(&ctx, CL_MEM_WRITE_ONLY, Some(&rgba8), Some(&d), ptr::null_mut()),
        CL_INVALID_VALUE,
        "write-only image on a read-only buffer"
    );
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], 0, 0, b.0);
    assert_eq!(
        create_err(&ctx, rw | CL_MEM_COPY_HOST_PTR, Some(&rgba8), Some(&d), hp),
        CL_INVALID_VALUE,
        "1D image buffer with COPY_HOST_PTR"
    );
    // A 1D image buffer's row pitch, as for a host pointer: 0 or at least width x element size,
    // a multiple of the element size (issue 13: the Khronos CTS passes width x element size).
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], 64, 0, b.0);
    let with_pitch = ctx.image(rw, &rgba8, &d, ptr::null_mut());
    let pitch: usize = image_info(with_pitch.0, CL_IMAGE_ROW_PITCH);
    assert_eq!(pitch, 64, "1D image buffer row pitch");
    for (bad, what) in [
        (65, "not a multiple of the element size"),
        (60, "below width x element size"),
    ] {
        let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0], bad, 0, b.0);
        assert_eq!(
            create_err(&ctx, rw, Some(&rgba8), Some(&d), ptr::null_mut()),
            CL_INVALID_IMAGE_DESCRIPTOR,
            "1D image buffer row pitch {what}"
        );
    }
    // Sizes: 0, and one past each limit.
    let lim = |p| device_info::<usize>(p);
    let (w2, h2) = (lim(CL_DEVICE_IMAGE2D_MAX_WIDTH), lim(CL_DEVICE_IMAGE2D_MAX_HEIGHT));
    let (w3, h3, d3) = (
        lim(CL_DEVICE_IMAGE3D_MAX_WIDTH),
        lim(CL_DEVICE_IMAGE3D_MAX_HEIGHT),
        lim(CL_DEVICE_IMAGE3D_MAX_DEPTH),
    );
    let arr = lim(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE);
    let r8 = Format::new(CL_R, CL_UNORM_INT8).cl();
    let over: Vec<(cl_mem_object_type, [usize; 4], &str)> = vec![
        (CL_MEM_OBJECT_IMAGE1D, [w2 + 1, 0, 0, 0], "1D width > IMAGE2D_MAX_WIDTH"),
        (
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [w2 + 1, 0, 0, 2],
            "1D array width > IMAGE2D_MAX_WIDTH",
        ),
        (
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [4, 0, 0, arr + 1],
            "1D array size > IMAGE_MAX_ARRAY_SIZE",
        ),
        (CL_MEM_OBJECT_IMAGE2D, [w2 + 1, 1, 0, 0], "2D width > IMAGE2D_MAX_WIDTH"),
        (
            CL_MEM_OBJECT_IMAGE2D,
            [1, h2 + 1, 0, 0],
            "2D height > IMAGE2D_MAX_HEIGHT",
        ),
        (
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [4, 4, 0, arr + 1],
            "2D array size > IMAGE_MAX_ARRAY_SIZE",
        ),
        (
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [w2 + 1, 1, 0, 2],
            "2D array width > IMAGE2D_MAX_WIDTH",
        ),
        (CL_MEM_OBJECT_IMAGE3D, [w3 + 1, 1, 2, 0], "3D width > IMAGE3D_MAX_WIDTH"),
        (
            CL_MEM_OBJECT_IMAGE3D,
            [1, h3 + 1, 2, 0],
            "3D height > IMAGE3D_MAX_HEIGHT",
        ),
        (CL_MEM_OBJECT_IMAGE3D, [1, 1, d3 + 1, 0], "3D depth > IMAGE3D_MAX_DEPTH"),
    ];
    for (ty, size, why) in over {
        let d = image_desc(ty, size, 0, 0, ptr::null_mut());
        assert_eq!(
            create_err(&ctx, rw, Some(&r8), Some(&d), ptr::null_mut()),
            CL_INVALID_IMAGE_SIZE,
            "{why}"
        );
    }
    let maxbuf = lim(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE);
    let alloc: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    if maxbuf < (256 << 20) && (maxbuf as u64) < alloc {
        let big = ctx.buffer(maxbuf + 1);
        let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [maxbuf + 1, 0, 0, 0], 0, 0, big.0);
        assert_eq!(
            create_err(&ctx, rw, Some(&r8), Some(&d), ptr::null_mut()),
            CL_INVALID_IMAGE_SIZE,
            "1D image buffer width > IMAGE_MAX_BUFFER_SIZE"
        );
    }
    for (ty, size) in [
        (CL_MEM_OBJECT_IMAGE1D, [0, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D, [0, 4, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D, [4, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE3D, [4, 4, 0, 0]),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 4, 0, 0]),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 0, 0, 0]),
    ] {
        let d = image_desc(ty, size, 0, 0, ptr::null_mut());
        let e = create_err(&ctx, rw, Some(&r8), Some(&d), ptr::null_mut());
        assert!(
            e == CL_INVALID_IMAGE_DESCRIPTOR || e == CL_INVALID_IMAGE_SIZE,
            "{} of size {size:?}: {}",
            iref::image_type_name(ty),
            err_name(e)
        );
    }
    // Flags and host pointers.
    for bad in [
        CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
        1 << 40,
    ] {
        assert_eq!(
            create_err(&ctx, bad, Some(&rgba8), Some(&d2), ptr::null_mut()),
            CL_INVALID_VALUE,
            "flags {bad:#x}"
        );
    }
    assert_eq!(
        create_err(&ctx, rw, Some(&rgba8), Some(&d2), hp),
        CL_INVALID_HOST_PTR,
        "host_ptr without COPY/USE_HOST_PTR"
    );
    assert_eq!(
        create_err(&ctx, copy, Some(&rgba8), Some(&d2), ptr::null_mut()),
        CL_INVALID_HOST_PTR,
        "COPY_HOST_PTR without host_ptr"
    );
    assert_eq!(
        create_err(&ctx, rw | CL_MEM_USE_HOST_PTR, Some(&rgba8), Some(&d2), ptr::null_mut()),
        CL_INVALID_HOST_PTR,
        "USE_HOST_PTR without host_ptr"
    );
    // Context.
    let mut err = 0;
    let m = unsafe { clCreateImage(ptr::null_mut(), rw, &rgba8, &d2, ptr::null_mut(), &mut err) };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "clCreateImage(NULL context)");
    // clCreateImageWithProperties: an empty list works and is reported, an unknown property fails.
    let props: [cl_mem_properties; 1] = [0];
    let m = unsafe { clCreateImageWithProperties(ctx.0, props.as_ptr(), rw, &rgba8, &d2, ptr::null_mut(), &mut err) };
    check_err!(err, CL_SUCCESS, "clCreateImageWithProperties(empty list)");
    let m = Mem(m);
    let p = mem_bytes(m.0, CL_MEM_PROPERTIES).unwrap();
    assert!(
        p.is_empty() || bytes_to_vec::<cl_mem_properties>(&p) == vec![0],
        "CL_MEM_PROPERTIES of an empty list: {p:?}"
    );
    let m2 = unsafe { clCreateImageWithProperties(ctx.0, ptr::null(), rw, &rgba8, &d2, ptr::null_mut(), &mut err) };
    check_err!(err, CL_SUCCESS, "clCreateImageWithProperties(NULL)");
    let m2 = Mem(m2);
    assert!(
        mem_bytes(m2.0, CL_MEM_PROPERTIES).unwrap().is_empty(),
        "CL_MEM_PROPERTIES without properties"
    );
    let props: [cl_mem_properties; 3] = [0x12345, 1, 0];
    let m3 = unsafe { clCreateImageWithProperties(ctx.0, props.as_ptr(), rw, &rgba8, &d2, ptr::null_mut(), &mut err) };
    assert!(m3.is_null());
    check_err!(
        err,
        CL_INVALID_PROPERTY,
        "clCreateImageWithProperties(unknown property)"
    );
    // Info errors.
    let mut v = 0usize;
    check!(
        clGetImageInfo(m.0, 0x1234, 8, &mut v as *mut usize as *mut c_void, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let mut small = 0u8;
    check!(
        clGetImageInfo(
            m.0,
            CL_IMAGE_WIDTH,
            1,
            &mut small as *mut u8 as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let mut sz = 0usize;
    ok!(clGetImageInfo(m.0, CL_IMAGE_FORMAT, 0, ptr::null_mut(), &mut sz));
    assert_eq!(sz, std::mem::size_of::<cl_image_format>());
    check!(
        clGetImageInfo(
            ptr::null_mut(),
            CL_IMAGE_WIDTH,
            8,
            &mut v as *mut usize as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_MEM_OBJECT
    );
}

/// A 1D image buffer keeps its buffer alive: the buffer's handle can be released first; the
/// image's destructor callback runs at its release.
#[test]
fn image_lifetime() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let fmt = Format::new(CL_RGBA, CL_UNSIGNED_INT8);
    let data = pattern(64 * 4, 7);
    let b = ctx.buffer_from(&data);
    let d = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [64, 0, 0, 0], 0, 0, b.0);
    let img = ctx.image(CL_MEM_READ_WRITE, &fmt.cl(), &d, ptr::null_mut());
    assert!(b.reference_count() >= 1);
    drop(b);
    assert_eq!(
        q.read_image(&img, [0; 3], [64, 1, 1], 0, 0, 256),
        data,
        "1D image buffer after its buffer's release"
    );
    static CALLED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    unsafe extern "C" fn cb(_m: cl_mem, _u: *mut c_void) {
        CALLED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    ok!(clSetMemObjectDestructorCallback(img.0, Some(cb), ptr::null_mut()));
    drop(img);
    assert!(wait_until(EVENTUALLY, || CALLED
        .load(std::sync::atomic::Ordering::SeqCst)
        == 1));
}

/// Every image command reports its command type in its event.
#[test]
fn image_command_events() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let fmt = Format::new(CL_RGBA, CL_FLOAT);
    let a = make(&ctx, CL_MEM_READ_WRITE, fmt, CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0]);
    let b = make(&ctx, CL_MEM_READ_WRITE, fmt, CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0]);
    let buf = ctx.buffer(256);
    let mut host = vec![0u8; 256];
    let (o, r) = ([0usize; 3], [4usize, 4, 1]);
    let color = [0.5f32; 4];
    let mut evs: Vec<(cl_event, cl_command_type)> = Vec::new();
    let mut e = ptr::null_mut();
    ok!(clEnqueueWriteImage(
        q.0,
        a.mem.0,
        CL_FALSE,
        o.as_ptr(),
        r.as_ptr(),
        0,
        0,
        host.as_ptr() as *const c_void,
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_WRITE_IMAGE));
    ok!(clEnqueueReadImage(
        q.0,
        a.mem.0,
        CL_FALSE,
        o.as_ptr(),
        r.as_ptr(),
        0,
        0,
        host.as_mut_ptr() as *mut c_void,
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_READ_IMAGE));
    ok!(clEnqueueCopyImage(
        q.0,
        a.mem.0,
        b.mem.0,
        o.as_ptr(),
        o.as_ptr(),
        r.as_ptr(),
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_COPY_IMAGE));
    ok!(clEnqueueFillImage(
        q.0,
        a.mem.0,
        color.as_ptr() as *const c_void,
        o.as_ptr(),
        r.as_ptr(),
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_FILL_IMAGE));
    ok!(clEnqueueCopyImageToBuffer(
        q.0,
        a.mem.0,
        buf.0,
        o.as_ptr(),
        r.as_ptr(),
        0,
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_COPY_IMAGE_TO_BUFFER));
    ok!(clEnqueueCopyBufferToImage(
        q.0,
        buf.0,
        b.mem.0,
        0,
        o.as_ptr(),
        r.as_ptr(),
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_COPY_BUFFER_TO_IMAGE));
    let (mut rp, mut sp, mut err) = (0usize, 0usize, 0);
    let p = unsafe {
        clEnqueueMapImage(
            q.0,
            a.mem.0,
            CL_FALSE,
            CL_MAP_READ,
            o.as_ptr(),
            r.as_ptr(),
            &mut rp,
            &mut sp,
            0,
            ptr::null(),
            &mut e,
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "clEnqueueMapImage");
    evs.push((e, CL_COMMAND_MAP_IMAGE));
    ok!(clEnqueueUnmapMemObject(q.0, a.mem.0, p, 0, ptr::null(), &mut e));
    evs.push((e, CL_COMMAND_UNMAP_MEM_OBJECT));
    let mems = [a.mem.0, b.mem.0];
    ok!(clEnqueueMigrateMemObjects(
        q.0,
        2,
        mems.as_ptr(),
        0,
        0,
        ptr::null(),
        &mut e
    ));
    evs.push((e, CL_COMMAND_MIGRATE_MEM_OBJECTS));
    q.finish();
    for (e, t) in evs {
        let e = Event(e);
        assert_eq!(e.command_type(), t, "CL_EVENT_COMMAND_TYPE");
        assert_eq!(e.status(), CL_COMPLETE);
    }
    // The fill landed: 0.5 in every channel of every texel.
    let got: Vec<f32> = from_bytes(&q.read_image(&a.mem, o, r, 0, 0, 256));
    assert!(got.iter().all(|&v| v == 0.5), "fill of RGBA/FLOAT with 0.5: {got:?}");
}

// ---------------------------------------------------------------------------------------------
// Samplers
// ---------------------------------------------------------------------------------------------

/// clCreateSamplerWithProperties and clCreateSampler for every combination; clGetSamplerInfo of
/// each property, the property list as given, the reference count and context; the defaults
/// without properties; unknown, repeated and invalid properties refused.
#[test]
fn samplers() {
    if !isolate("samplers") {
        return;
    }
    require_images();
    let ctx = Context::new();
    for normalized in [false, true] {
        for addressing in [
            CL_ADDRESS_NONE,
            CL_ADDRESS_CLAMP_TO_EDGE,
            CL_ADDRESS_CLAMP,
            CL_ADDRESS_REPEAT,
            CL_ADDRESS_MIRRORED_REPEAT,
        ] {
            for filter in [CL_FILTER_NEAREST, CL_FILTER_LINEAR] {
                let what = format!("sampler {normalized} {addressing:#x} {filter:#x}");
                // Repeat modes need normalized coordinates: "a combination of these arguments"
                // that is not valid may be refused with CL_INVALID_VALUE at creation.
                let s = match ctx.try_sampler(normalized, addressing, filter) {
                    Ok(s) => s,
                    Err(CL_INVALID_VALUE)
                        if !normalized && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) =>
                    {
                        continue
                    }
                    Err(e) => panic!("{what}: {}", err_name(e)),
                };
                assert_eq!(
                    sampler_info::<cl_bool>(s.0, CL_SAMPLER_NORMALIZED_COORDS),
                    normalized as cl_bool,
                    "{what}"
                );
                assert_eq!(
                    sampler_info::<cl_addressing_mode>(s.0, CL_SAMPLER_ADDRESSING_MODE),
                    addressing,
                    "{what}"
                );
                assert_eq!(
                    sampler_info::<cl_filter_mode>(s.0, CL_SAMPLER_FILTER_MODE),
                    filter,
                    "{what}"
                );
                assert_eq!(sampler_info::<cl_context>(s.0, CL_SAMPLER_CONTEXT), ctx.0, "{what}");
                assert_eq!(sampler_info::<cl_uint>(s.0, CL_SAMPLER_REFERENCE_COUNT), 1, "{what}");
                let props: Vec<cl_sampler_properties> =
                    bytes_to_vec(&sampler_bytes(s.0, CL_SAMPLER_PROPERTIES).unwrap());
                assert_eq!(
                    props,
                    vec![
                        CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
                        normalized as cl_sampler_properties,
                        CL_SAMPLER_ADDRESSING_MODE as cl_sampler_properties,
                        addressing as cl_sampler_properties,
                        CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
                        filter as cl_sampler_properties,
                        0
                    ],
                    "{what}: CL_SAMPLER_PROPERTIES"
                );
                let mut err = 0;
                let s2 = unsafe { clCreateSampler(ctx.0, normalized as cl_bool, addressing, filter, &mut err) };
                check_err!(err, CL_SUCCESS, format!("clCreateSampler: {what}"));
                let s2 = Sampler(s2);
                assert_eq!(
                    sampler_info::<cl_addressing_mode>(s2.0, CL_SAMPLER_ADDRESSING_MODE),
                    addressing,
                    "{what}"
                );
                assert!(
                    sampler_bytes(s2.0, CL_SAMPLER_PROPERTIES).unwrap().is_empty(),
                    "{what}: CL_SAMPLER_PROPERTIES of clCreateSampler"
                );
            }
        }
    }
    // Defaults: normalized, clamp, nearest; a partial list keeps the others' defaults.
    let s = ctx.try_sampler_props(None).unwrap();
    assert_eq!(sampler_info::<cl_bool>(s.0, CL_SAMPLER_NORMALIZED_COORDS), CL_TRUE);
    assert_eq!(
        sampler_info::<cl_addressing_mode>(s.0, CL_SAMPLER_ADDRESSING_MODE),
        CL_ADDRESS_CLAMP
    );
    assert_eq!(
        sampler_info::<cl_filter_mode>(s.0, CL_SAMPLER_FILTER_MODE),
        CL_FILTER_NEAREST
    );
    assert!(sampler_bytes(s.0, CL_SAMPLER_PROPERTIES).unwrap().is_empty());
    let s = ctx
        .try_sampler_props(Some(&[
            CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
            CL_FILTER_LINEAR as cl_sampler_properties,
            0,
        ]))
        .unwrap();
    assert_eq!(sampler_info::<cl_bool>(s.0, CL_SAMPLER_NORMALIZED_COORDS), CL_TRUE);
    assert_eq!(
        sampler_info::<cl_addressing_mode>(s.0, CL_SAMPLER_ADDRESSING_MODE),
        CL_ADDRESS_CLAMP
    );
    assert_eq!(
        sampler_info::<cl_filter_mode>(s.0, CL_SAMPLER_FILTER_MODE),
        CL_FILTER_LINEAR
    );
    // Reference counting.
    ok!(clRetainSampler(s.0));
    assert_eq!(sampler_info::<cl_uint>(s.0, CL_SAMPLER_REFERENCE_COUNT), 2);
    ok!(clReleaseSampler(s.0));
    assert_eq!(sampler_info::<cl_uint>(s.0, CL_SAMPLER_REFERENCE_COUNT), 1);
    // Errors.
    let p = |v: &[cl_sampler_properties]| ctx.try_sampler_props(Some(v)).err();
    let n = CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties;
    let a = CL_SAMPLER_ADDRESSING_MODE as cl_sampler_properties;
    let f = CL_SAMPLER_FILTER_MODE as cl_sampler_properties;
    assert_eq!(p(&[0x9999, 1, 0]), Some(CL_INVALID_VALUE), "unknown property");
    assert_eq!(
        p(&[a, CL_ADDRESS_CLAMP as _, a, CL_ADDRESS_REPEAT as _, 0]),
        Some(CL_INVALID_VALUE),
        "repeated property"
    );
    assert_eq!(p(&[a, 0x1139, 0]), Some(CL_INVALID_VALUE), "addressing mode 0x1139");
    assert_eq!(p(&[f, 0x1149, 0]), Some(CL_INVALID_VALUE), "filter mode 0x1149");
    assert_eq!(p(&[n, 2, 0]), Some(CL_INVALID_VALUE), "normalized coords 2");
    let mut err = 0;
    let s0 = unsafe { clCreateSampler(ctx.0, CL_TRUE, 0x1139, CL_FILTER_NEAREST, &mut err) };
    assert!(s0.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateSampler(addressing 0x1139)");
    let s0 = unsafe { clCreateSampler(ctx.0, CL_TRUE, CL_ADDRESS_CLAMP, 0x1149, &mut err) };
    assert!(s0.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateSampler(filter 0x1149)");
    let s0 = unsafe { clCreateSamplerWithProperties(ptr::null_mut(), ptr::null(), &mut err) };
    assert!(s0.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "clCreateSamplerWithProperties(NULL context)");
    let mut v = 0u32;
    check!(
        clGetSamplerInfo(s.0, 0x1234, 4, &mut v as *mut u32 as *mut c_void, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let mut small = 0u8;
    check!(
        clGetSamplerInfo(
            s.0,
            CL_SAMPLER_FILTER_MODE,
            1,
            &mut small as *mut u8 as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetSamplerInfo(
            ptr::null_mut(),
            CL_SAMPLER_FILTER_MODE,
            4,
            &mut v as *mut u32 as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_SAMPLER
    );
    check!(clRetainSampler(ptr::null_mut()), CL_INVALID_SAMPLER);
    check!(clReleaseSampler(ptr::null_mut()), CL_INVALID_SAMPLER);
    // A memory object is not a sampler.
    let b = ctx.buffer(64);
    check!(clRetainSampler(b.0 as cl_sampler), CL_INVALID_SAMPLER);
}

// ---------------------------------------------------------------------------------------------
// 2D images over buffers and over other 2D images
// ---------------------------------------------------------------------------------------------

/// cl_khr_image2d_from_buffer: a 2D image over a buffer with a row pitch (a multiple of
/// CL_DEVICE_IMAGE_PITCH_ALIGNMENT pixels) shares the buffer's bytes both ways; a row pitch off
/// the alignment gets CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, a buffer too small an error.
#[test]
fn image2d_from_buffer() {
    require_images();
    if !device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_image2d_from_buffer") {
        println!("no cl_khr_image2d_from_buffer: nothing to test");
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(8);
    let pitch_px: cl_uint = device_info(CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
    let base_px: cl_uint = device_info(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT);
    assert!(pitch_px >= 1 && base_px >= 1);
    for fmt in [
        Format::new(CL_RGBA, CL_UNORM_INT8),
        Format::new(CL_R, CL_FLOAT),
        Format::new(CL_RG, CL_SIGNED_INT16),
        Format::new(CL_RGBA, CL_FLOAT),
    ] {
        let es = fmt.element_size(false);
        let (w, h) = (7usize, 5usize);
        let align = pitch_px as usize * es;
        let row = (w * es).div_ceil(align) * align + align;
        let data = rng.bytes(row * h);
        let buf = ctx.buffer_from(&data);
        let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], row, 0, buf.0);
        let mem = ctx.image(CL_MEM_READ_WRITE, &fmt.cl(), &desc, ptr::null_mut());
        let img = Img {
            mem,
            fmt,
            ty: CL_MEM_OBJECT_IMAGE2D,
            size: [w, h, 0, 0],
            es,
            buf: None,
        };
        assert_eq!(
            image_info::<usize>(img.mem.0, CL_IMAGE_ROW_PITCH),
            row,
            "{fmt}: CL_IMAGE_ROW_PITCH"
        );
        assert_eq!(
            image_info::<cl_mem>(img.mem.0, CL_IMAGE_BUFFER),
            buf.0,
            "{fmt}: CL_IMAGE_BUFFER"
        );
        assert_eq!(
            mem_info::<cl_mem>(img.mem.0, CL_MEM_ASSOCIATED_MEMOBJECT),
            buf.0,
            "{fmt}: CL_MEM_ASSOCIATED_MEMOBJECT"
        );
        // The buffer's bytes, row by row, are the image's.
        let mut model = vec![0u8; img.bytes()];
        let mut d2 = data.clone();
        model_xfer(
            &mut model,
            img.grid(),
            img.ty,
            es,
            [0; 3],
            img.grid(),
            row,
            0,
            &mut d2,
            true,
        );
        check_read(&q, &img, &model, [0; 3], img.grid(), 0, 0, "2D image from a buffer");
        // Image writes land in the buffer, leaving the padding alone.
        do_write(&q, &img, &mut model, [1, 1, 0], [w - 2, h - 1, 1], 0, 0, &mut rng);
        let now = q.read(&buf, 0, row * h);
        let mut want = data.clone();
        model_xfer(
            &mut model,
            img.grid(),
            img.ty,
            es,
            [0; 3],
            img.grid(),
            row,
            0,
            &mut want,
            false,
        );
        assert!(now == want, "{fmt}: the buffer after writing the image");
        // Errors.
        // A row pitch that is a whole number of elements but off the pitch alignment breaks
        // only the extension's rule; one that is not a whole number of elements breaks the
        // descriptor's rule as well.
        if pitch_px > 1 {
            let d = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], row + es, 0, buf.0);
            assert_eq!(
                create_err(&ctx, CL_MEM_READ_WRITE, Some(&fmt.cl()), Some(&d), ptr::null_mut()),
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                "{fmt}: row pitch {} off the pitch alignment",
                row + es
            );
        }
        if es > 1 {
            let d = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], row + 1, 0, buf.0);
            let e = create_err(&ctx, CL_MEM_READ_WRITE, Some(&fmt.cl()), Some(&d), ptr::null_mut());
            assert!(
                e == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR || e == CL_INVALID_IMAGE_DESCRIPTOR,
                "{fmt}: row pitch {} not a whole number of elements: {}",
                row + 1,
                err_name(e)
            );
        }
        let d = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h + 1, 0, 0], row, 0, buf.0);
        let e = create_err(&ctx, CL_MEM_READ_WRITE, Some(&fmt.cl()), Some(&d), ptr::null_mut());
        assert!(
            e == CL_INVALID_IMAGE_SIZE || e == CL_INVALID_IMAGE_DESCRIPTOR,
            "{fmt}: image taller than its buffer: {}",
            err_name(e)
        );
        let d = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], row, 0, buf.0);
        assert_eq!(
            create_err(
                &ctx,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                Some(&fmt.cl()),
                Some(&d),
                data.as_ptr() as *mut c_void
            ),
            CL_INVALID_VALUE,
            "{fmt}: image from a buffer with COPY_HOST_PTR"
        );
    }
}

/// A 2D image over another 2D image with a compatible order (the sRGB and linear forms of an
/// order): same bytes, CL_MEM_ASSOCIATED_MEMOBJECT the parent; other orders, data types and
/// sizes are refused.
#[test]
fn image2d_from_image() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let mut rng = Rng::new(9);
    let listed2 = listed(&ctx, CL_MEM_OBJECT_IMAGE2D);
    for (parent, view) in [(CL_RGBA, CL_sRGBA), (CL_sRGBA, CL_RGBA), (CL_BGRA, CL_sBGRA)] {
        let pf = Format::new(parent, CL_UNORM_INT8);
        let vf = Format::new(view, CL_UNORM_INT8);
        if !listed2.contains(&pf) || !listed2.contains(&vf) {
            continue;
        }
        let p = make(&ctx, CL_MEM_READ_WRITE, pf, CL_MEM_OBJECT_IMAGE2D, [6, 4, 0, 0]);
        let mut model = vec![0u8; p.bytes()];
        do_write(&q, &p, &mut model, [0; 3], p.grid(), 0, 0, &mut rng);
        let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [6, 4, 0, 0], 0, 0, p.mem.0);
        let mem = ctx.image(CL_MEM_READ_WRITE, &vf.cl(), &desc, ptr::null_mut());
        assert_eq!(
            mem_info::<cl_mem>(mem.0, CL_MEM_ASSOCIATED_MEMOBJECT),
            p.mem.0,
            "{vf} over {pf}"
        );
        let v = Img {
            mem,
            fmt: vf,
            ty: CL_MEM_OBJECT_IMAGE2D,
            size: [6, 4, 0, 0],
            es: 4,
            buf: None,
        };
        check_read(&q, &v, &model, [0; 3], v.grid(), 0, 0, &format!("{vf} over {pf}"));
        do_write(&q, &v, &mut model, [1, 1, 0], [3, 2, 1], 0, 0, &mut rng);
        check_read(&q, &p, &model, [0; 3], p.grid(), 0, 0, &format!("{pf} under {vf}"));
        // Incompatible order, other data type, other size.
        for (f, why) in [
            (Format::new(CL_ARGB, CL_UNORM_INT8), "an incompatible order"),
            (
                Format::new(if parent == CL_sRGBA { CL_RGBA } else { parent }, CL_SNORM_INT8),
                "another data type",
            ),
        ] {
            assert_eq!(
                create_err(&ctx, CL_MEM_READ_WRITE, Some(&f.cl()), Some(&desc), ptr::null_mut()),
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                "{f} over {pf}: {why}"
            );
        }
        let d = image_desc(CL_MEM_OBJECT_IMAGE2D, [5, 4, 0, 0], 0, 0, p.mem.0);
        let e = create_err(&ctx, CL_MEM_READ_WRITE, Some(&vf.cl()), Some(&d), ptr::null_mut());
        assert!(
            e == CL_INVALID_IMAGE_DESCRIPTOR || e == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
            "{vf} over {pf} with another width: {}",
            err_name(e)
        );
    }
}
