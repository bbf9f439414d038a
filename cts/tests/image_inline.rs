//! Image reads generated inline for their format and sampler (`jit/src/codegen/image_inline.rs`,
//! enqueue-time variants: `runtime/src/variants.rs`) bit for bit against Clift's reference image
//! engine (`jit::image`): every format the inline path serves (RGBA, R, RG in UNORM_INT8,
//! UNORM_INT16, HALF_FLOAT, FLOAT and the six integer types; BGRA in the 8-bit ones), each with
//! every sampler (nearest and linear; none, clamp-to-edge, clamp, repeat, mirrored repeat;
//! normalized and not) on 2D images and 1D arrays, float and integer coordinates, and
//! sampler-less reads on every image type; 1D, 2D-array and 3D images with every sampler for a
//! few formats. Coordinates are random inside and outside the image, on texel centres and
//! edges, huge, infinite and NaN; float texels include infinities and NaNs. A NaN component
//! may be any NaN (as `jit::image::fast_tests` allows).
//!
//! Writes generated inline (every format above) are compared the same way: the image after the kernel's writes against the engine's writes to a
//! copy, at every texel, outside the image, and under divergent flags.
//!
//! The test runs with `CLIFT_IMAGE_INLINE=eager`, so the first enqueue of each combination
//! already runs its inline variant. Kernels: kernels/image_read.cl and image_write.cl
//! (-> .spvasm).

use cts::*;

mod image_engine;
mod spirv_asm;
use image_engine::{same, words, Rng};
use jit::abi::{sampler_bits as sb, ImageDesc};
use spirv_asm::spirv;
use std::ptr;

/// An image type: its kernel suffix, spatial sizes and layers.
#[derive(Clone, Copy)]
struct Geometry {
    ty: cl_mem_object_type,
    name: &'static str,
    size: [usize; 3],
    layers: usize,
}

impl Geometry {
    fn dims(&self) -> usize {
        match self.ty {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_ARRAY => 1,
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => 2,
            _ => 3,
        }
    }
    fn arrayed(&self) -> bool {
        self.layers > 1
    }
    fn texels(&self) -> usize {
        self.size.iter().product::<usize>() * self.layers
    }
    /// clCreateImage's sizes: width, height, depth, layers.
    fn cl_dims(&self) -> [usize; 4] {
        [self.size[0], self.size[1], self.size[2], self.layers]
    }
}

const G2D: Geometry = Geometry {
    ty: CL_MEM_OBJECT_IMAGE2D,
    name: "2d",
    size: [13, 7, 1],
    layers: 1,
};
const G1DA: Geometry = Geometry {
    ty: CL_MEM_OBJECT_IMAGE1D_ARRAY,
    name: "1da",
    size: [11, 1, 1],
    layers: 4,
};
const G1D: Geometry = Geometry {
    ty: CL_MEM_OBJECT_IMAGE1D,
    name: "1d",
    size: [17, 1, 1],
    layers: 1,
};
const G2DA: Geometry = Geometry {
    ty: CL_MEM_OBJECT_IMAGE2D_ARRAY,
    name: "2da",
    size: [5, 6, 1],
    layers: 3,
};
const G3D: Geometry = Geometry {
    ty: CL_MEM_OBJECT_IMAGE3D,
    name: "3d",
    size: [5, 4, 3],
    layers: 1,
};

/// One float coordinate along an axis of `size` texels (unnormalized).
fn coord(rng: &mut Rng, size: usize) -> f32 {
    let s = size as f32;
    match rng.next() % 16 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => (rng.unit() - 0.5) * 1e30,
        4 => (rng.unit() - 0.5) * 3e9,
        5 | 6 => (rng.next() % (2 * size as u64 + 5)) as f32 * 0.5 - 1.0,
        7 | 8 => rng.unit() * 8.0 * s - 4.0 * s,
        9 => -0.0,
        _ => rng.unit() * (s + 2.0) - 1.0,
    }
}

/// Float coordinates for a sampled read of `g`: x, y, z with the layer after the spatial ones.
fn float_coords(rng: &mut Rng, g: &Geometry, normalized: bool, n: usize) -> Vec<[f32; 4]> {
    (0..n)
        .map(|_| {
            let mut c = [0f32; 4];
            for (a, &sz) in g.size.iter().enumerate().take(g.dims()) {
                let v = coord(rng, sz);
                c[a] = if normalized { v / sz as f32 } else { v };
            }
            if g.arrayed() {
                c[g.dims()] = match rng.next() % 8 {
                    0 => f32::NAN,
                    1 => 1e20,
                    2 => -1e20,
                    _ => (rng.next() % (g.layers as u64 + 2)) as f32 - 1.0 + rng.unit() * 0.9,
                };
            }
            c
        })
        .collect()
}

/// Integer coordinates in and around `g` (and far outside).
fn int_coords(rng: &mut Rng, g: &Geometry, n: usize) -> Vec<[i32; 4]> {
    (0..n)
        .map(|_| {
            let mut c = [0i32; 4];
            let mut ext: Vec<usize> = g.size[..g.dims()].to_vec();
            if g.arrayed() {
                ext.push(g.layers);
            }
            for (a, &e) in ext.iter().enumerate() {
                c[a] = match rng.next() % 10 {
                    0 => i32::MIN + (rng.next() % 3) as i32,
                    1 => i32::MAX - (rng.next() % 3) as i32,
                    _ => (rng.next() % (e as u64 + 8)) as i32 - 4,
                };
            }
            c
        })
        .collect()
}

/// A format the inline path serves.
#[derive(Clone, Copy, Debug)]
struct Format {
    order: cl_channel_order,
    data_type: cl_channel_type,
}

impl Format {
    fn channels(&self) -> usize {
        match self.order {
            CL_R => 1,
            CL_RG => 2,
            _ => 4,
        }
    }
    fn channel_bytes(&self) -> usize {
        match self.data_type {
            CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
            CL_UNORM_INT16 | CL_HALF_FLOAT | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 => 2,
            _ => 4,
        }
    }
    fn elem(&self) -> usize {
        self.channels() * self.channel_bytes()
    }
    /// read_imagef (`f`), read_imagei (`i`) or read_imageui (`ui`).
    fn kind(&self) -> &'static str {
        match self.data_type {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => "i",
            CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => "ui",
            _ => "f",
        }
    }
}

fn formats() -> Vec<Format> {
    let mut v = Vec::new();
    for order in [CL_RGBA, CL_R, CL_RG] {
        for data_type in [
            CL_UNORM_INT8,
            CL_UNORM_INT16,
            CL_HALF_FLOAT,
            CL_FLOAT,
            CL_SIGNED_INT8,
            CL_SIGNED_INT16,
            CL_SIGNED_INT32,
            CL_UNSIGNED_INT8,
            CL_UNSIGNED_INT16,
            CL_UNSIGNED_INT32,
        ] {
            v.push(Format { order, data_type });
        }
    }
    for data_type in [CL_UNORM_INT8, CL_SIGNED_INT8, CL_UNSIGNED_INT8] {
        v.push(Format {
            order: CL_BGRA,
            data_type,
        });
    }
    v
}

/// Random texel bytes: float channels mostly finite, some infinite or NaN; half channels
/// of every exponent (subnormals, infinities and NaNs included).
fn texels(rng: &mut Rng, f: &Format, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n * f.elem());
    for _ in 0..n * f.channels() {
        match f.data_type {
            CL_FLOAT => {
                let x = match rng.next() % 32 {
                    0 => f32::NAN,
                    1 => f32::INFINITY,
                    2 => -0.0,
                    3 => 1e-40,
                    _ => rng.unit() * 4.0 - 2.0,
                };
                v.extend_from_slice(&x.to_ne_bytes());
            }
            _ => v.extend((0..f.channel_bytes()).map(|_| rng.next() as u8)),
        }
    }
    v
}

/// The reference engine's descriptor for the same texels (tightly packed).
fn reference_desc(f: &Format, g: &Geometry, data: &mut [u8]) -> ImageDesc {
    let row = (g.size[0] * f.elem()) as u64;
    let height = g.size[1] as u64;
    ImageDesc {
        data: data.as_mut_ptr(),
        image_type: g.ty,
        channel_order: f.order,
        channel_data_type: f.data_type,
        element_size: f.elem() as u32,
        width: g.size[0] as u64,
        height,
        depth: g.size[2] as u64,
        array_size: g.layers as u64,
        row_pitch: row,
        slice_pitch: row * height,
        // The generic entry points: the reference itself.
        reads: &jit::image::GENERIC_READS,
    }
}

/// Every valid sampler: (normalized, CL addressing, CL filter, `sampler_bits`).
fn samplers() -> Vec<(bool, cl_addressing_mode, cl_filter_mode, u32)> {
    let mut v = Vec::new();
    for normalized in [false, true] {
        for (addressing, abits) in [
            (CL_ADDRESS_NONE, sb::ADDRESS_NONE),
            (CL_ADDRESS_CLAMP_TO_EDGE, sb::ADDRESS_CLAMP_TO_EDGE),
            (CL_ADDRESS_CLAMP, sb::ADDRESS_CLAMP),
            (CL_ADDRESS_REPEAT, sb::ADDRESS_REPEAT),
            (CL_ADDRESS_MIRRORED_REPEAT, sb::ADDRESS_MIRRORED_REPEAT),
        ] {
            // Repeat modes need normalized coordinates (a sampler error otherwise).
            if !normalized && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
                continue;
            }
            for (filter, fbits) in [
                (CL_FILTER_NEAREST, sb::FILTER_NEAREST),
                (CL_FILTER_LINEAR, sb::FILTER_LINEAR),
            ] {
                v.push((
                    normalized,
                    addressing,
                    filter,
                    (sb::NORMALIZED * normalized as u32) | abits | fbits,
                ));
            }
        }
    }
    v
}

const N: usize = 96;

/// Runs every read of format `f` on image geometry `g` (`sampled`: with every sampler, at
/// float coordinates, and at integer ones when `int_coords`) and compares with the reference.
/// Returns the number of combinations checked.
fn check(
    ctx: &Context,
    q: &Queue,
    prog: &Program,
    rng: &mut Rng,
    f: &Format,
    g: &Geometry,
    int_coords_too: bool,
) -> usize {
    let float = f.kind() == "f";
    let mut data = texels(rng, f, g.texels());
    let fmt = cl_image_format {
        image_channel_order: f.order,
        image_channel_data_type: f.data_type,
    };
    let desc = image_desc(g.ty, g.cl_dims(), 0, 0, ptr::null_mut());
    let img = ctx.image(CL_MEM_READ_ONLY, &fmt, &desc, ptr::null_mut());
    q.write_image(&img, [0; 3], image_region(g.ty, g.cl_dims()), 0, 0, &data);
    let rdesc = reference_desc(f, g, &mut data);
    let what = format!("{:#x}/{:#x} {}", f.order, f.data_type, g.name);
    let mut combos = 0;
    for (normalized, addressing, filter, bits) in samplers() {
        let smp = ctx.sampler(normalized, addressing, filter);
        for ints in [false, true] {
            if ints && (!int_coords_too || normalized) {
                continue;
            }
            let fc: Vec<[f32; 4]>;
            let cb = if ints {
                let ic = int_coords(rng, g, N);
                fc = ic.iter().map(|c| c.map(|v| v as f32)).collect();
                ctx.buffer_from(as_bytes(&ic))
            } else {
                fc = float_coords(rng, g, normalized, N);
                ctx.buffer_from(as_bytes(&fc))
            };
            let ob = ctx.buffer(N * 16);
            let k = prog.kernel(&format!(
                "{}_{}_{}",
                if ints { "readi" } else { "read" },
                f.kind(),
                g.name
            ));
            k.arg_mem(0, &img);
            k.arg_sampler(1, &smp);
            k.arg_mem(2, &cb);
            k.arg_mem(3, &ob);
            if std::env::var_os("IMAGE_INLINE_TRACE").is_some() {
                eprintln!("{what} sampler {bits:#x} ints {ints}");
            }
            q.run(&k, &[], &[N], &[]);
            let got = words(&q.read(&ob, 0, N * 16));
            for (i, co) in fc.iter().enumerate() {
                let xyz = [co[0], co[1], co[2]];
                // SAFETY: `rdesc` describes `data`, alive here.
                let want = unsafe { image_engine::reference(&rdesc, bits, xyz, float) };
                assert!(
                    same(got[i], want, float),
                    "{what} sampler {bits:#x} at {co:?}: got {:x?}, reference {want:x?}",
                    got[i]
                );
            }
            combos += 1;
        }
    }
    // Sampler-less reads, in and out of range (the border colour outside).
    let ic = int_coords(rng, g, N);
    let cb = ctx.buffer_from(as_bytes(&ic));
    let ob = ctx.buffer(N * 16);
    let k = prog.kernel(&format!("load_{}_{}", f.kind(), g.name));
    k.arg_mem(0, &img);
    k.arg_mem(1, &cb);
    k.arg_mem(2, &ob);
    q.run(&k, &[], &[N], &[]);
    let got = words(&q.read(&ob, 0, N * 16));
    for (i, co) in ic.iter().enumerate() {
        let xyz = [co[0], co[1], co[2]];
        // SAFETY: as above.
        let want = unsafe {
            if float {
                jit::image::read_texel_float(&rdesc, xyz).map(f32::to_bits)
            } else {
                jit::image::read_texel_int(&rdesc, xyz).map(|v| v as u32)
            }
        };
        assert!(
            same(got[i], want, float),
            "load {what} at {co:?}: got {:x?}, reference {want:x?}",
            got[i]
        );
    }
    combos + 1
}

fn eager() {
    // Before the first context: the runtime reads it once.
    std::env::set_var("CLIFT_IMAGE_INLINE", "eager");
}

/// Every served format with every sampler on a 2D image and a 1D array (float and integer
/// coordinates on the 2D image), and sampler-less reads.
#[test]
fn inline_reads_match_the_reference_engine() {
    eager();
    let ctx = Context::new();
    let q = ctx.queue();
    let words = spirv("image_read");
    let mut rng = Rng(0x1a2b_3c4d_5e6f_7081);
    let mut combos = 0;
    let fs = formats();
    assert_eq!(fs.len(), 33);
    for f in &fs {
        // A program per format: each keeps its own variants.
        let prog = ctx.built_program("image_read", &words);
        combos += check(&ctx, &q, &prog, &mut rng, f, &G2D, true);
        combos += check(&ctx, &q, &prog, &mut rng, f, &G1DA, false);
    }
    // 2D: 16 samplers at float coordinates, 6 unnormalized at integer ones, 1 load; 1D array:
    // 16 + 1.
    assert_eq!(combos, fs.len() * (16 + 6 + 1 + 16 + 1));
}

/// 1D images, 2D arrays and 3D images with every sampler, for a few formats; and a 1D image
/// buffer's sampler-less reads.
#[test]
fn inline_reads_of_other_image_types() {
    eager();
    let ctx = Context::new();
    let q = ctx.queue();
    let words = spirv("image_read");
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    let fs = [
        Format {
            order: CL_RGBA,
            data_type: CL_UNORM_INT8,
        },
        Format {
            order: CL_BGRA,
            data_type: CL_UNORM_INT8,
        },
        Format {
            order: CL_R,
            data_type: CL_FLOAT,
        },
        Format {
            order: CL_RG,
            data_type: CL_HALF_FLOAT,
        },
        Format {
            order: CL_RGBA,
            data_type: CL_FLOAT,
        },
        Format {
            order: CL_RGBA,
            data_type: CL_UNSIGNED_INT16,
        },
        Format {
            order: CL_RG,
            data_type: CL_SIGNED_INT8,
        },
    ];
    let mut combos = 0;
    for f in &fs {
        let prog = ctx.built_program("image_read", &words);
        for g in [G1D, G2DA, G3D] {
            combos += check(&ctx, &q, &prog, &mut rng, f, &g, g.ty == CL_MEM_OBJECT_IMAGE3D);
        }
    }
    assert_eq!(combos, fs.len() * (17 + 17 + 17 + 6));
}

/// Values written: floats the conversions treat apart (NaNs with payloads and signs,
/// infinities, signed zeros, near-ties of the normalized steps, values outside [0, 1], tiny
/// ones, random bits, the half overflow and subnormal edges) and integers at and past every
/// saturation bound.
fn write_values(rng: &mut Rng, float: bool, n: usize) -> Vec<[u32; 4]> {
    const BOUNDS: [i32; 12] = [
        127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
    ];
    let one = |rng: &mut Rng| -> u32 {
        if float {
            let x: f32 = match rng.next() % 12 {
                0 => f32::NAN,
                // Quiet and signalling NaNs whose payloads reach a half's significand.
                1 => f32::from_bits([0xffc0_1234, 0x7fa5_5000, 0xff81_e000][rng.next() as usize % 3]),
                2 => f32::INFINITY,
                3 => f32::NEG_INFINITY,
                4 => -0.0,
                5 => ((rng.next() % 256) as f32 + 0.5) / 255.0,
                6 => ((rng.next() % 65536) as f32 + 0.5) / 65535.0,
                7 => 1e-30,
                // Any bits: every exponent of a half conversion, NaN payloads.
                8 => f32::from_bits(rng.next() as u32),
                // Half rounding edges: past the largest half (65520 rounds to infinity),
                // half subnormals and their ties.
                9 => [65504.0, 65519.99, 65520.0, 5.9604645e-8, 2.9802322e-8, 8.940697e-8][rng.next() as usize % 6],
                _ => rng.unit() * 3.0 - 1.0,
            };
            x.to_bits()
        } else {
            match rng.next() % 10 {
                0 => i32::MIN as u32,
                1 => i32::MAX as u32,
                2 => u32::MAX,
                3 => BOUNDS[rng.next() as usize % BOUNDS.len()] as u32,
                4 => (rng.next() % 70000) as u32,
                _ => rng.next() as u32,
            }
        }
    };
    (0..n).map(|_| std::array::from_fn(|_| one(rng))).collect()
}

/// Every texel of `g` once, in a random order, then coordinates outside it on one axis
/// (x, y, z with an array's layer after the spatial ones, as the kernels pass them).
fn write_coords(rng: &mut Rng, g: &Geometry) -> Vec<[i32; 4]> {
    let dims = g.dims();
    let mut ext = g.size[..dims].to_vec();
    if g.arrayed() {
        ext.push(g.layers);
    }
    let mut v: Vec<[i32; 4]> = (0..g.texels())
        .map(|mut t| {
            let mut c = [0i32; 4];
            for (a, &e) in ext.iter().enumerate() {
                c[a] = (t % e) as i32;
                t /= e;
            }
            c
        })
        .collect();
    for i in (1..v.len()).rev() {
        v.swap(i, rng.next() as usize % (i + 1));
    }
    for k in 0..24 {
        let mut c = v[rng.next() as usize % g.texels()];
        let a = k % ext.len();
        c[a] = match rng.next() % 5 {
            0 => -1,
            1 => ext[a] as i32,
            2 => i32::MIN,
            3 => i32::MAX,
            _ => ext[a] as i32 + 7,
        };
        v.push(c);
    }
    v
}

/// Writes of every kind the format takes at every texel of `g` and outside it, against the
/// reference engine's writes to a copy of the same texels; with `guarded`, only the
/// work-items whose random flag is set write (`write_if_*` kernels, 2D images).
fn check_writes(ctx: &Context, q: &Queue, prog: &Program, rng: &mut Rng, f: &Format, g: &Geometry, guarded: bool) {
    let float = f.kind() == "f";
    let data = texels(rng, f, g.texels());
    let fmt = cl_image_format {
        image_channel_order: f.order,
        image_channel_data_type: f.data_type,
    };
    let desc = image_desc(g.ty, g.cl_dims(), 0, 0, ptr::null_mut());
    let img = ctx.image(CL_MEM_READ_WRITE, &fmt, &desc, ptr::null_mut());
    let region = image_region(g.ty, g.cl_dims());
    q.write_image(&img, [0; 3], region, 0, 0, &data);
    let coords = write_coords(rng, g);
    let values = write_values(rng, float, coords.len());
    let cb = ctx.buffer_from(as_bytes(&coords));
    let vb = ctx.buffer_from(as_bytes(&values));
    let flags: Vec<i32> = (0..coords.len())
        .map(|_| {
            if guarded {
                rng.next().is_multiple_of(3) as i32
            } else {
                1
            }
        })
        .collect();
    let fb = ctx.buffer_from(as_bytes(&flags));
    let k = prog.kernel(&format!(
        "write_{}{}_{}",
        if guarded { "if_" } else { "" },
        f.kind(),
        g.name
    ));
    k.arg_mem(0, &img);
    k.arg_mem(1, &cb);
    k.arg_mem(2, &vb);
    if guarded {
        k.arg_mem(3, &fb);
    }
    q.run(&k, &[], &[coords.len()], &[]);
    let got = q.read_image(&img, [0; 3], region, 0, 0, data.len());
    let mut want = data.clone();
    let rdesc = reference_desc(f, g, &mut want);
    for ((c, v), _) in coords.iter().zip(&values).zip(&flags).filter(|(_, &w)| w != 0) {
        // SAFETY: `rdesc` describes `want`, alive here; `v` holds four 32-bit values.
        unsafe {
            if float {
                jit::image::clift_image_write_float(&rdesc, c[0], c[1], c[2], v.as_ptr().cast());
            } else {
                jit::image::clift_image_write_int(&rdesc, c[0], c[1], c[2], v.as_ptr().cast());
            }
        }
    }
    if let Some(at) = got.iter().zip(&want).position(|(a, b)| a != b) {
        let t = at / f.elem();
        panic!(
            "writes {:#x}/{:#x} {}: texel {t} holds {:x?}, the reference {:x?}",
            f.order,
            f.data_type,
            g.name,
            &got[t * f.elem()..(t + 1) * f.elem()],
            &want[t * f.elem()..(t + 1) * f.elem()]
        );
    }
}

/// Writes generated inline (every served format) on every image type the kernels write, bit for bit against the reference engine; coordinates
/// outside the image write nothing; work-items that skip their write (a flag per work-item,
/// in the vector loop under its execution mask) write nothing.
#[test]
fn inline_writes_match_the_reference_engine() {
    eager();
    let ctx = Context::new();
    let q = ctx.queue();
    let words = spirv("image_write");
    let mut rng = Rng(0x5eed_0f1a_7e77_e5e5);
    for f in &formats() {
        // A program per format: each keeps its own variants.
        let prog = ctx.built_program("image_write", &words);
        for g in [G2D, G1DA, G1D, G2DA, G3D] {
            check_writes(&ctx, &q, &prog, &mut rng, f, &g, false);
        }
        if f.kind() != "i" {
            check_writes(&ctx, &q, &prog, &mut rng, f, &G2D, true);
        }
    }
}
