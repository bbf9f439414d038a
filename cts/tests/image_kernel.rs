//! Images in kernels, against the reference of `cts::image_ref` (section 7 of the OpenCL SPIR-V
//! environment specification):
//! - sampled reads (read_imagef/i/ui with a sampler argument: OpSampledImage +
//!   OpImageSampleExplicitLod) of every listed format of every image type that has them, with
//!   every sampler (normalized or not x every addressing mode x nearest / linear), at random
//!   coordinates including out-of-range ones, exact texel boundaries, one ulp either side of
//!   them and texel centres; with integer coordinates; and sampler-less reads (OpImageRead),
//!   1D image buffers included;
//! - literal samplers (OpConstantSampler) for every sampler;
//! - writes (OpImageWrite) of every listed format of every image type, 3D included, converted
//!   as 7.4 says (normalized within 0.6, saturated integers, half rounding, sRGB); read_write
//!   images;
//! - the exact end points of 7.4.1 and the normalized conversions of every value; the sRGB
//!   accuracy bounds of 7.4.5 for every 8-bit value and a sweep of linear values;
//! - image queries (OpImageQuerySizeLod / OpImageQuerySize / OpImageQueryFormat /
//!   OpImageQueryOrder);
//! - kernel arguments of the wrong kind refused.
//!
//! Kernels: kernels/image_read.cl, image_lit.cl, image_write.cl, image_query.cl (-> .spvasm).
//! Linear filtering's precision is not defined by the specification (7.3); the result must lie
//! within `LINEAR_REL` (2^-14) of the texels' magnitude of the exact filtered value at a
//! coordinate within `image_ref::COORD_SLACK` of the given one (the Khronos CTS picks 2^-7).

#![allow(non_upper_case_globals)]
#![allow(clippy::too_many_arguments)]
#![allow(clippy::needless_range_loop)]

use cts::image_ref::{self as iref, Color, Format, Iv, Kind, RefImage, Rng, Sampled};
use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::collections::HashMap;
use std::ptr;
use std::rc::Rc;

/// Relative error allowed for linear filtering, against the largest magnitude of the texels
/// filtered. 7.3 leaves the precision undefined and the Khronos CTS picks 2^-7; single
/// precision arithmetic reaches about 1e-6, so 2^-14 catches lost precision (weights in half
/// precision or fixed point) as well as wrong texels or weights.
const LINEAR_REL: f64 = 1.0 / 16384.0;
/// Samples per (format, sampler) pair.
const SAMPLES: usize = 48;

fn require_images() {
    let s: cl_bool = device_info(CL_DEVICE_IMAGE_SUPPORT);
    assert_eq!(s, CL_TRUE, "CL_DEVICE_IMAGE_SUPPORT is CL_FALSE");
}

fn opencl_c_features() -> Vec<String> {
    let feats = device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES).unwrap();
    bytes_to_vec::<cl_name_version>(&feats)
        .iter()
        .map(|n| bytes_to_string(&n.name[..=n.name.iter().position(|&c| c == 0).unwrap()]))
        .collect()
}

struct Env {
    ctx: Context,
    q: Queue,
    programs: HashMap<&'static str, Program>,
    kernels: std::cell::RefCell<HashMap<String, Rc<Kernel>>>,
    /// A sampler object for each of `iref::Sampler::all()`.
    samplers: Vec<(iref::Sampler, Sampler)>,
}

impl Env {
    fn new(modules: &[&'static str]) -> Env {
        require_images();
        let ctx = Context::new();
        let q = ctx.queue();
        let mut programs = HashMap::new();
        for &m in modules {
            programs.insert(m, ctx.built_program(m, &spirv(m)));
        }
        let samplers = iref::Sampler::all()
            .into_iter()
            .map(|s| {
                let so = ctx.sampler(s.normalized, s.addressing, s.filter);
                (s, so)
            })
            .collect();
        Env {
            ctx,
            q,
            programs,
            kernels: Default::default(),
            samplers,
        }
    }

    fn kernel(&self, module: &'static str, name: &str) -> Rc<Kernel> {
        self.kernels
            .borrow_mut()
            .entry(name.to_string())
            .or_insert_with(|| Rc::new(self.programs[module].kernel(name)))
            .clone()
    }

    /// Formats listed for `ty` with `flags`.
    fn listed(&self, flags: cl_mem_flags, ty: cl_mem_object_type) -> Vec<Format> {
        self.ctx
            .supported_image_formats(flags, ty)
            .iter()
            .map(Format::from_cl)
            .collect()
    }
}

/// Kernel name suffix of an image type (depth images have their own).
fn tname(ty: cl_mem_object_type, depth: bool) -> &'static str {
    match (ty, depth) {
        (CL_MEM_OBJECT_IMAGE1D, _) => "1d",
        (CL_MEM_OBJECT_IMAGE1D_BUFFER, _) => "1db",
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, _) => "1da",
        (CL_MEM_OBJECT_IMAGE2D, false) => "2d",
        (CL_MEM_OBJECT_IMAGE2D, true) => "2dd",
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, false) => "2da",
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, true) => "2dad",
        _ => "3d",
    }
}

fn kname(k: Kind) -> &'static str {
    match k {
        Kind::Float => "f",
        Kind::Int => "i",
        Kind::Uint => "ui",
    }
}

/// Sizes (width, height, depth, array size) of the images read: widths both powers of two (so
/// normalized texel boundaries are exact floats) and odd.
fn read_size(ty: cl_mem_object_type) -> [usize; 4] {
    match ty {
        CL_MEM_OBJECT_IMAGE1D => [13, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_BUFFER => [37, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [8, 0, 0, 4],
        CL_MEM_OBJECT_IMAGE2D => [8, 5, 0, 0],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [5, 4, 0, 3],
        _ => [4, 5, 3, 0],
    }
}

/// An image with random contents and its reference model.
struct TestImage {
    mem: Mem,
    _buf: Option<Mem>,
    r: RefImage,
}

fn make_image(
    env: &Env,
    flags: cl_mem_flags,
    fmt: Format,
    ty: cl_mem_object_type,
    size: [usize; 4],
    rng: &mut Rng,
) -> TestImage {
    let mut buf = None;
    let mut bh: cl_mem = ptr::null_mut();
    if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        let max_es = *fmt.element_sizes().iter().max().unwrap();
        let b = env.ctx.buffer(size[0] * max_es);
        bh = b.0;
        buf = Some(b);
    }
    let desc = image_desc(ty, size, 0, 0, bh);
    let mem = env.ctx.image(flags, &fmt.cl(), &desc, ptr::null_mut());
    let es: usize = image_info(mem.0, CL_IMAGE_ELEMENT_SIZE);
    let x_pad = fmt.x_pad_for(es).unwrap_or_else(|| panic!("{fmt}: element size {es}"));
    let region = image_region(ty, size);
    let n = region[0] * region[1] * region[2];
    let data: Vec<u8> = (0..n).flat_map(|_| iref::random_element(fmt, x_pad, rng)).collect();
    env.q.write_image(&mem, [0; 3], region, 0, 0, &data);
    TestImage {
        mem,
        _buf: buf,
        r: RefImage::new(fmt, x_pad, ty, size, data),
    }
}

// ---------------------------------------------------------------------------------------------
// Coordinates
// ---------------------------------------------------------------------------------------------

fn next_up(x: f32) -> f32 {
    if x == 0.0 {
        return f32::from_bits(1);
    }
    if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// One coordinate of a spatial axis of `n` texels for sampler `s`: uniform over a wide range
/// (out of the image included), exactly on a texel boundary, one ulp either side of one, at a
/// texel centre or one ulp off it; normalized when the sampler is. With `CL_ADDRESS_NONE` the
/// coordinates stay where the result is defined.
fn axis_coord(rng: &mut Rng, s: &iref::Sampler, n: usize) -> f32 {
    let nf = n as f64;
    let none = s.addressing == CL_ADDRESS_NONE;
    let linear = s.filter == CL_FILTER_LINEAR;
    let repeat = matches!(s.addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT);
    // k: an integer texel boundary (unnormalized).
    let k = if none {
        if linear {
            1 + rng.below(n.max(2) as u64 - 1) as i64
        } else {
            rng.below(n as u64) as i64
        }
    } else if repeat {
        rng.below(5 * n as u64) as i64 - 2 * n as i64
    } else {
        rng.below(n as u64 + 5) as i64 - 2
    };
    let to_c = |u: f64| -> f32 {
        if s.normalized {
            (u / nf) as f32
        } else {
            u as f32
        }
    };
    let kc = if s.normalized {
        (k as f32) / (n as f32)
    } else {
        k as f32
    };
    match rng.below(7) {
        0 => {
            let (lo, hi) = if none {
                if linear {
                    (0.5, nf - 0.5)
                } else {
                    (0.0, nf)
                }
            } else if repeat {
                (-2.5 * nf, 3.5 * nf)
            } else {
                (-1.5 * nf, 2.5 * nf)
            };
            let c = to_c(rng.range_f64(lo, hi));
            if none && !s.normalized && c as f64 >= hi {
                to_c(lo)
            } else {
                c
            }
        }
        1 => kc,
        2 if !(none && !linear && k == 0) => next_down(kc),
        3 if !(none && !linear && k as usize == n - 1) => next_up(kc),
        4 if !(none && linear && k as usize == n - 1) => to_c(k as f64 + 0.5),
        5 if !(none && linear) => next_up(to_c(k as f64 + 0.5)),
        _ => to_c(k as f64 + 0.25),
    }
}

/// A layer coordinate of an array of `n` layers: outside, exact, ties (rint rounds to even).
fn layer_coord(rng: &mut Rng, n: usize) -> f32 {
    let k = rng.below(n as u64 + 2) as f32 - 1.0;
    match rng.below(4) {
        0 => k,
        1 => k + 0.5,
        2 => k + 0.49,
        _ => rng.range_f64(-1.5, n as f64 + 0.5) as f32,
    }
}

fn float_coords(rng: &mut Rng, r: &RefImage, s: &iref::Sampler, count: usize) -> Vec<[f32; 4]> {
    let axes = r.spatial_axes();
    (0..count)
        .map(|_| {
            let mut c = [0f32; 4];
            for a in 0..axes {
                c[a] = axis_coord(rng, s, r.grid[a]);
            }
            if let Some(la) = r.layer_axis() {
                c[axes] = layer_coord(rng, r.grid[la]);
            }
            c
        })
        .collect()
}

/// Integer coordinates: in the image when `inside`, else up to two texels outside.
fn int_coords(rng: &mut Rng, r: &RefImage, inside: bool, count: usize) -> Vec<[i32; 4]> {
    let axes = r.spatial_axes();
    (0..count)
        .map(|_| {
            let mut c = [0i32; 4];
            for a in 0..axes {
                let n = r.grid[a] as i64;
                c[a] = if inside {
                    rng.below(n as u64) as i32
                } else {
                    (rng.below(n as u64 + 4) as i64 - 2) as i32
                };
            }
            if let Some(la) = r.layer_axis() {
                let n = r.grid[la] as i64;
                c[axes] = if inside {
                    rng.below(n as u64) as i32
                } else {
                    (rng.below(n as u64 + 2) as i64 - 1) as i32
                };
            }
            c
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/// Statistics of a family of checks, printed at the end of a test.
#[derive(Default)]
struct Stats {
    combos: usize,
    samples: usize,
    undefined: usize,
    max_linear_rel: f64,
    other_border: usize,
    boundary_alternatives: usize,
}

impl Stats {
    fn print(&self, what: &str) {
        println!(
            "{what}: {} (format, sampler) combinations, {} samples compared ({} undefined skipped), max linear error {:.3e} of the texel scale, {} reads matched the second border color, {} nearest reads within the coordinate slack of a boundary",
            self.combos, self.samples, self.undefined, self.max_linear_rel, self.other_border, self.boundary_alternatives
        );
    }
}

/// The result of a read as f64 components.
fn got_vec(kind: Kind, bytes: &[u8]) -> [f64; 4] {
    std::array::from_fn(|k| {
        let w: [u8; 4] = bytes[k * 4..k * 4 + 4].try_into().unwrap();
        match kind {
            Kind::Float => f32::from_le_bytes(w) as f64,
            Kind::Int => i32::from_le_bytes(w) as f64,
            Kind::Uint => u32::from_le_bytes(w) as f64,
        }
    })
}

/// Whether `got` is one of the results `smp` allows: for nearest, inside one candidate's
/// intervals; for linear, within `LINEAR_REL` of the scale. Returns the relative linear error.
fn matches(got: &[f64; 4], smp: &Sampled, linear: bool, comps: usize) -> Option<f64> {
    let mut best: Option<f64> = None;
    for c in &smp.candidates {
        let mut worst = 0f64;
        let mut ok = true;
        for k in 0..comps {
            let d = c[k].dist(got[k]);
            if linear {
                let scale = smp.scale[k].max(f32::MIN_POSITIVE as f64);
                let rel = d / scale;
                if rel > LINEAR_REL {
                    ok = false;
                }
                worst = worst.max(rel);
            } else if d != 0.0 {
                ok = false;
            }
        }
        if ok {
            best = Some(best.map_or(worst, |b: f64| b.min(worst)));
        }
    }
    best
}

fn describe(c: &[Iv; 4]) -> String {
    c.iter()
        .map(|i| {
            if i.lo == i.hi {
                format!("{}", i.lo)
            } else {
                format!("[{}, {}]", i.lo, i.hi)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks one sampled read against the reference, trying each border color the specifications
/// give; panics with the details on a mismatch.
fn check_sampled(
    stats: &mut Stats,
    r: &RefImage,
    s: &iref::Sampler,
    coord: [f32; 4],
    got: [f64; 4],
    comps: usize,
    what: &dyn Fn() -> String,
) {
    let linear = s.filter == CL_FILTER_LINEAR;
    let mut first: Option<Sampled> = None;
    for (bi, &ba) in r.format.border_alphas().iter().enumerate() {
        let Some(smp) = iref::sample(r, s, coord, ba) else {
            stats.undefined += 1;
            return;
        };
        if let Some(e) = matches(&got, &smp, linear, comps) {
            stats.samples += 1;
            if linear {
                stats.max_linear_rel = stats.max_linear_rel.max(e);
            } else if smp.candidates.len() > 1 {
                stats.boundary_alternatives += 1;
            }
            if bi > 0 {
                stats.other_border += 1;
            }
            return;
        }
        if first.is_none() {
            first = Some(smp);
        }
    }
    let smp = first.unwrap();
    let allowed: Vec<String> = smp.candidates.iter().map(describe).collect();
    panic!(
        "{}: sampler {s}, coordinate {coord:?}: got {:?}, allowed {}{}",
        what(),
        &got[..comps],
        allowed.join(" or "),
        if linear {
            format!(" (within {LINEAR_REL:e} x {:?})", smp.scale)
        } else {
            String::new()
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

fn as_bytes_f(c: &[[f32; 4]]) -> Vec<u8> {
    c.iter().flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes())).collect()
}

fn as_bytes_i(c: &[[i32; 4]]) -> Vec<u8> {
    c.iter().flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes())).collect()
}

/// Runs `name` over `n` coordinates with (image, [sampler or int], coordinates, out) arguments
/// and returns the 16-byte results.
fn run_read(
    env: &Env,
    module: &'static str,
    name: &str,
    img: &Mem,
    arg1: Option<&dyn Fn(&Kernel)>,
    coords: &[u8],
    n: usize,
) -> Vec<u8> {
    let cb = env.ctx.buffer_from(coords);
    let ob = env.ctx.buffer(n * 16);
    let k = env.kernel(module, name);
    k.arg_mem(0, img);
    let mut i = 1;
    if let Some(f) = arg1 {
        f(&k);
        i = 2;
    }
    k.arg_mem(i, &cb);
    k.arg_mem(i + 1, &ob);
    env.q.run(&k, &[], &[n], &[]);
    env.q.read(&ob, 0, n * 16)
}

/// Every kind of read of every listed format of `ty` (depth formats through the depth image
/// types): sampled with every sampler at float and integer coordinates, and sampler-less.
fn reads(ty: cl_mem_object_type, depth: bool, seed: u64) {
    let env = Env::new(&["image_read"]);
    let mut rng = Rng::new(seed);
    let mut st_float = Stats::default();
    let mut st_int = Stats::default();
    let mut st_load = Stats::default();
    let t = tname(ty, depth);
    let formats: Vec<Format> = env
        .listed(CL_MEM_READ_ONLY, ty)
        .into_iter()
        .filter(|f| f.is_depth() == depth)
        .collect();
    assert!(!formats.is_empty(), "no {} formats listed", iref::image_type_name(ty));
    let comps = if depth { 1 } else { 4 };
    for fmt in formats {
        let img = make_image(&env, CL_MEM_READ_ONLY, fmt, ty, read_size(ty), &mut rng);
        let kind = fmt.kind();
        let k = kname(kind);
        let what = |extra: &str| format!("{} {fmt} {extra}", iref::image_type_name(ty));
        // Sampled reads (no samplers for 1D image buffers).
        if ty != CL_MEM_OBJECT_IMAGE1D_BUFFER {
            for si in 0..env.samplers.len() {
                let s = env.samplers[si].0;
                if s.filter == CL_FILTER_LINEAR && kind != Kind::Float {
                    continue;
                }
                let sh = env.samplers[si].1 .0;
                // Float coordinates.
                let coords = float_coords(&mut rng, &img.r, &s, SAMPLES);
                let out = run_read(
                    &env,
                    "image_read",
                    &format!("read_{k}_{t}"),
                    &img.mem,
                    Some(&|kk: &Kernel| kk.arg(1, &sh)),
                    &as_bytes_f(&coords),
                    SAMPLES,
                );
                for (i, &c) in coords.iter().enumerate() {
                    let got = got_vec(kind, &out[i * 16..i * 16 + 16]);
                    check_sampled(&mut st_float, &img.r, &s, c, got, comps, &|| {
                        what(&format!("read_{k}_{t}"))
                    });
                }
                st_float.combos += 1;
                // Integer coordinates: only with unnormalized nearest samplers of the clamp family.
                if s.is_exact() {
                    let ic = int_coords(&mut rng, &img.r, s.addressing == CL_ADDRESS_NONE, SAMPLES);
                    let out = run_read(
                        &env,
                        "image_read",
                        &format!("readi_{k}_{t}"),
                        &img.mem,
                        Some(&|kk: &Kernel| kk.arg(1, &sh)),
                        &as_bytes_i(&ic),
                        SAMPLES,
                    );
                    for (i, c) in ic.iter().enumerate() {
                        let got = got_vec(kind, &out[i * 16..i * 16 + 16]);
                        let fc = c.map(|v| v as f32);
                        check_sampled(&mut st_int, &img.r, &s, fc, got, comps, &|| {
                            what(&format!("readi_{k}_{t} {c:?}"))
                        });
                    }
                    st_int.combos += 1;
                }
            }
        }
        // Sampler-less reads: 7.7, nearest / unnormalized / none, inside the image.
        let ic = int_coords(&mut rng, &img.r, true, SAMPLES);
        let out = run_read(
            &env,
            "image_read",
            &format!("load_{k}_{t}"),
            &img.mem,
            None,
            &as_bytes_i(&ic),
            SAMPLES,
        );
        for (i, c) in ic.iter().enumerate() {
            let got = got_vec(kind, &out[i * 16..i * 16 + 16]);
            let want = iref::load(&img.r, *c).unwrap();
            let ok = (0..comps).all(|q| want[q].dist(got[q]) == 0.0);
            assert!(
                ok,
                "{}: load at {c:?}: got {:?}, want {}",
                what(&format!("load_{k}_{t}")),
                &got[..comps],
                describe(&want)
            );
            st_load.samples += 1;
        }
        st_load.combos += 1;
    }
    let name = iref::image_type_name(ty);
    st_float.print(&format!(
        "{name}{} sampled, float coordinates",
        if depth { " depth" } else { "" }
    ));
    st_int.print(&format!(
        "{name}{} sampled, integer coordinates",
        if depth { " depth" } else { "" }
    ));
    st_load.print(&format!("{name}{} sampler-less", if depth { " depth" } else { "" }));
}

#[test]
fn reads_1d() {
    reads(CL_MEM_OBJECT_IMAGE1D, false, 11);
}

#[test]
fn reads_1d_buffer() {
    reads(CL_MEM_OBJECT_IMAGE1D_BUFFER, false, 12);
}

#[test]
fn reads_1d_array() {
    reads(CL_MEM_OBJECT_IMAGE1D_ARRAY, false, 13);
}

#[test]
fn reads_2d() {
    reads(CL_MEM_OBJECT_IMAGE2D, false, 14);
}

#[test]
fn reads_2d_array() {
    reads(CL_MEM_OBJECT_IMAGE2D_ARRAY, false, 15);
}

#[test]
fn reads_3d() {
    reads(CL_MEM_OBJECT_IMAGE3D, false, 16);
}

#[test]
fn reads_depth() {
    let env = Env::new(&[]);
    let has_depth = env
        .listed(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D)
        .iter()
        .any(|f| f.is_depth());
    drop(env);
    if !has_depth {
        println!("no CL_DEPTH formats listed: nothing to test");
        return;
    }
    reads(CL_MEM_OBJECT_IMAGE2D, true, 17);
    reads(CL_MEM_OBJECT_IMAGE2D_ARRAY, true, 18);
}

/// Literal samplers (OpConstantSampler): each of the 16 samplers on every listed 2D format
/// (nearest ones for integer formats), and on a few formats of 3D images and 1D arrays.
#[test]
fn literal_samplers() {
    let env = Env::new(&["image_lit"]);
    let mut rng = Rng::new(21);
    let mut st = Stats::default();
    let all = iref::Sampler::all();
    assert_eq!(all.len(), 16);
    let few = [
        Format::new(CL_RGBA, CL_UNORM_INT8),
        Format::new(CL_RGBA, CL_FLOAT),
        Format::new(CL_R, CL_HALF_FLOAT),
        Format::new(CL_sRGBA, CL_UNORM_INT8),
        Format::new(CL_LUMINANCE, CL_SNORM_INT16),
    ];
    for (ty, t) in [
        (CL_MEM_OBJECT_IMAGE2D, "2d"),
        (CL_MEM_OBJECT_IMAGE3D, "3d"),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, "1da"),
    ] {
        let listed = env.listed(CL_MEM_READ_ONLY, ty);
        for fmt in listed {
            if fmt.is_depth() || (ty != CL_MEM_OBJECT_IMAGE2D && !few.contains(&fmt)) {
                continue;
            }
            let kind = fmt.kind();
            if ty != CL_MEM_OBJECT_IMAGE2D && kind != Kind::Float {
                continue;
            }
            let img = make_image(&env, CL_MEM_READ_ONLY, fmt, ty, read_size(ty), &mut rng);
            let k = kname(kind);
            for (which, s) in all.iter().enumerate() {
                if s.filter == CL_FILTER_LINEAR && kind != Kind::Float {
                    continue;
                }
                let coords = float_coords(&mut rng, &img.r, s, SAMPLES);
                let w = which as cl_int;
                let out = run_read(
                    &env,
                    "image_lit",
                    &format!("lit_{k}_{t}"),
                    &img.mem,
                    Some(&|kk: &Kernel| kk.arg(1, &w)),
                    &as_bytes_f(&coords),
                    SAMPLES,
                );
                for (i, &c) in coords.iter().enumerate() {
                    let got = got_vec(kind, &out[i * 16..i * 16 + 16]);
                    check_sampled(&mut st, &img.r, s, c, got, 4, &|| {
                        format!("{} {fmt} literal sampler {which}", iref::image_type_name(ty))
                    });
                }
                st.combos += 1;
            }
        }
    }
    st.print("literal samplers");
}

// ---------------------------------------------------------------------------------------------
// Conversions: 7.4.1 end points and every value, 7.4.5 sRGB bounds
// ---------------------------------------------------------------------------------------------

/// Reads every value of each normalized format (every 8- and 10-bit value, every 16-bit value,
/// every 5/6-bit field) with sampler-less reads: the end points of 7.4.1 exactly (0, 1.0, -1.0
/// for -128/-127 and -32768/-32767), every other value within 1.5 ulp of x / max; prints the
/// largest error in ulps. Writes the end points back (1.0, -1.0, 0.0 and beyond) and requires
/// the exact integers.
#[test]
fn normalized_conversions_and_end_points() {
    let env = Env::new(&["image_read", "image_write"]);
    let listed = env.listed(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let listed_w = env.listed(CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let cases: [(Format, u64, i64); 8] = [
        (Format::new(CL_R, CL_UNORM_INT8), 256, 255),
        (Format::new(CL_R, CL_SNORM_INT8), 256, 127),
        (Format::new(CL_R, CL_UNORM_INT16), 65536, 65535),
        (Format::new(CL_R, CL_SNORM_INT16), 65536, 32767),
        (Format::new(CL_RGB, CL_UNORM_INT_101010), 1024, 1023),
        (Format::new(CL_RGB, CL_UNORM_SHORT_565), 64, 63),
        (Format::new(CL_RGB, CL_UNORM_SHORT_555), 32, 31),
        (Format::new(CL_RGBA, CL_UNORM_INT_101010_2), 1024, 1023),
    ];
    for (fmt, count, max) in cases {
        if !listed.contains(&fmt) {
            println!("{fmt}: not listed");
            continue;
        }
        // Every raw value, as an image of 256 x (count / 256) (at least one row).
        let w = count.min(256) as usize;
        let h = (count as usize).div_ceil(256);
        let es = fmt.element_size(false);
        let mut data = Vec::with_capacity(w * h * es);
        for v in 0..(w * h) as u64 {
            let raw: u64 = match fmt.dtype {
                CL_UNORM_INT_101010 => (v << 20) | (v << 10) | v,
                CL_UNORM_SHORT_565 => ((v & 31) << 11) | (v << 5) | (v & 31),
                CL_UNORM_SHORT_555 => (v << 10) | (v << 5) | v,
                CL_UNORM_INT_101010_2 => (v << 22) | (v << 12) | (v << 2) | (v & 3),
                _ => v,
            };
            data.extend_from_slice(&raw.to_le_bytes()[..es]);
        }
        let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], 0, 0, ptr::null_mut());
        let mem = env.ctx.image(CL_MEM_READ_WRITE, &fmt.cl(), &desc, ptr::null_mut());
        env.q.write_image(&mem, [0; 3], [w, h, 1], 0, 0, &data);
        let r = RefImage::new(fmt, false, CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], data.clone());
        let coords: Vec<[i32; 4]> = (0..w * h).map(|i| [(i % w) as i32, (i / w) as i32, 0, 0]).collect();
        let out = run_read(&env, "image_read", "load_f_2d", &mem, None, &as_bytes_i(&coords), w * h);
        let mut max_ulp = 0f64;
        for (i, c) in coords.iter().enumerate() {
            let got = got_vec(Kind::Float, &out[i * 16..i * 16 + 16]);
            let want = iref::load(&r, *c).unwrap();
            for q in 0..4 {
                assert!(
                    want[q].dist(got[q]) == 0.0,
                    "{fmt}: raw value {i} component {q}: read {}, allowed {}",
                    got[q],
                    describe(&want)
                );
                if want[q].lo != want[q].hi {
                    let mid = (want[q].lo + want[q].hi) / 2.0;
                    max_ulp = max_ulp.max((got[q] - mid).abs() / iref::ulp_f32(mid));
                }
            }
        }
        println!(
            "{fmt}: {} values read, end points exact, max error {max_ulp:.2} ulp",
            w * h
        );
        // Writes of the end points and beyond.
        if !listed_w.contains(&fmt) {
            continue;
        }
        let colors: Vec<[f32; 4]> = vec![
            [1.0, 1.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0],
            [-1.0, -1.0, -1.0, -1.0],
            [2.0, -2.0, 1e30, -1e30],
            [f32::INFINITY, f32::NEG_INFINITY, 0.5, -0.5],
            [1.0 / max as f32, -1.0 / max as f32, 0.999, -0.999],
        ];
        let wdesc = image_desc(CL_MEM_OBJECT_IMAGE2D, [colors.len(), 1, 0, 0], 0, 0, ptr::null_mut());
        let wimg = env.ctx.image(CL_MEM_WRITE_ONLY, &fmt.cl(), &wdesc, ptr::null_mut());
        let coords: Vec<[i32; 4]> = (0..colors.len()).map(|i| [i as i32, 0, 0, 0]).collect();
        run_write(&env, "write_f_2d", &wimg, &coords, &as_bytes_f(&colors));
        let got = env
            .q
            .read_image(&wimg, [0; 3], [colors.len(), 1, 1], 0, 0, colors.len() * es);
        for (i, c) in colors.iter().enumerate() {
            let color = Color::F(*c);
            let e = &got[i * es..(i + 1) * es];
            if let Err(m) = iref::check_written(fmt, false, color, e) {
                panic!("write_imagef: {m}");
            }
            // The end points themselves must be exact, not merely within 0.6.
            if i < 3 {
                assert_eq!(e, &iref::encode(fmt, false, color)[..], "{fmt}: write_imagef of {c:?}");
            }
        }
    }
}

/// 7.4.5: reading every 8-bit sRGB value gives y with |x - 255 c_sRGB(y)| <= 0.5 (alpha linear,
/// exact end points); writing linear values from -0.1 to 1.1 stores x with
/// |x - 255 c_sRGB(y)| <= 0.6. Prints the largest deviations.
#[test]
fn srgb_accuracy() {
    let env = Env::new(&["image_read", "image_write"]);
    for order in [CL_sRGBA, CL_sBGRA, CL_sRGB, CL_sRGBx] {
        let fmt = Format::new(order, CL_UNORM_INT8);
        if !env.listed(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D).contains(&fmt) {
            println!("{fmt}: not listed for reading");
            continue;
        }
        let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [256, 1, 0, 0], 0, 0, ptr::null_mut());
        let mem = env.ctx.image(CL_MEM_READ_WRITE, &fmt.cl(), &desc, ptr::null_mut());
        let es: usize = image_info(mem.0, CL_IMAGE_ELEMENT_SIZE);
        let x_pad = fmt.x_pad_for(es).unwrap();
        let data: Vec<u8> = (0..256u32).flat_map(|v| vec![v as u8; es]).collect();
        env.q.write_image(&mem, [0; 3], [256, 1, 1], 0, 0, &data);
        let coords: Vec<[i32; 4]> = (0..256).map(|i| [i, 0, 0, 0]).collect();
        let out = run_read(&env, "image_read", "load_f_2d", &mem, None, &as_bytes_i(&coords), 256);
        let mut max_dev = 0f64;
        for x in 0..256usize {
            let got = got_vec(Kind::Float, &out[x * 16..x * 16 + 16]);
            for q in 0..3 {
                let dev = (x as f64 - 255.0 * iref::linear_to_srgb(got[q])).abs();
                max_dev = max_dev.max(dev);
                assert!(
                    dev <= 0.5,
                    "{fmt}: read of {x}: component {q} = {} deviates {dev} > 0.5",
                    got[q]
                );
            }
            if x == 0 || x == 255 {
                assert_eq!(&got[..3], &[x as f64 / 255.0; 3], "{fmt}: end point {x}");
            }
            let alpha = if order == CL_sRGBA || order == CL_sBGRA {
                iref::texel_vector(fmt, x_pad, &data[x * es..(x + 1) * es])[3]
            } else {
                Iv::exact(1.0)
            };
            assert!(
                alpha.dist(got[3]) == 0.0,
                "{fmt}: alpha of {x}: {} not in {alpha:?}",
                got[3]
            );
        }
        println!("{fmt}: 256 values read, max |x - 255 c_sRGB(y)| = {max_dev:.4} (bound 0.5)");
        if !env.listed(CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D).contains(&fmt) {
            println!("{fmt}: not listed for writing");
            continue;
        }
        let n = 4096usize;
        let colors: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                let y = -0.1 + 1.2 * i as f32 / (n - 1) as f32;
                [y, y * 0.5, y * y, y]
            })
            .collect();
        let (w, h) = (256usize, n / 256);
        let wdesc = image_desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 0, 0], 0, 0, ptr::null_mut());
        let wimg = env.ctx.image(CL_MEM_WRITE_ONLY, &fmt.cl(), &wdesc, ptr::null_mut());
        let coords: Vec<[i32; 4]> = (0..n).map(|i| [(i % w) as i32, (i / w) as i32, 0, 0]).collect();
        run_write(&env, "write_f_2d", &wimg, &coords, &as_bytes_f(&colors));
        let got = env.q.read_image(&wimg, [0; 3], [w, h, 1], 0, 0, n * es);
        let mut max_dev = 0f64;
        let mut not_nearest = 0;
        for (i, c) in colors.iter().enumerate() {
            let e = &got[i * es..(i + 1) * es];
            if let Err(m) = iref::check_written(fmt, x_pad, Color::F(*c), e) {
                panic!("write_imagef: {m}");
            }
            for (ch, raw) in iref::raw_channels(fmt, x_pad, e) {
                let q = match ch {
                    iref::Ch::R => 0,
                    iref::Ch::G => 1,
                    iref::Ch::B => 2,
                    _ => continue,
                };
                max_dev = max_dev.max((raw as f64 - 255.0 * iref::linear_to_srgb(c[q] as f64)).abs());
            }
            if e[..3] != iref::encode(fmt, x_pad, Color::F(*c))[..3] {
                not_nearest += 1;
            }
        }
        println!("{fmt}: {n} colors written, max |x - 255 c_sRGB(y)| = {max_dev:.4} (bound 0.6), {not_nearest} not rounded to nearest");
    }
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

fn run_write(env: &Env, name: &str, img: &Mem, coords: &[[i32; 4]], colors: &[u8]) {
    let cb = env.ctx.buffer_from(&as_bytes_i(coords));
    let colb = env.ctx.buffer_from(colors);
    let k = env.kernel("image_write", name);
    k.arg_mem(0, img);
    k.arg_mem(1, &cb);
    k.arg_mem(2, &colb);
    env.q.run(&k, &[], &[coords.len()], &[]);
}

/// A random color for `fmt`'s kind (as in the fill test): in range, at the end points, out of
/// range, and for floats special values.
fn random_color(fmt: Format, rng: &mut Rng) -> Color {
    match fmt.kind() {
        Kind::Float => Color::F(std::array::from_fn(|_| match rng.below(8) {
            0 => 0.0,
            1 => 1.0,
            2 => -1.0,
            3 => rng.range_f64(-2.0, 2.0) as f32,
            4 => rng.range_f64(-70000.0, 70000.0) as f32,
            5 => [f32::INFINITY, f32::NEG_INFINITY, 1e-40, -0.0, 65520.0, 3e-8][rng.below(6) as usize],
            _ => rng.range_f64(0.0, 1.0) as f32,
        })),
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

fn color_bytes(c: &[Color]) -> Vec<u8> {
    c.iter()
        .flat_map(|c| match c {
            Color::F(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>(),
            Color::I(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Color::U(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        })
        .collect()
}

/// `count` distinct texel coordinates of `r` (x, y, z with an array's layer after the spatial
/// ones) and their grid positions.
fn distinct_texels(rng: &mut Rng, r: &RefImage, count: usize) -> Vec<([i32; 4], [usize; 3])> {
    let g = r.grid;
    let total = g[0] * g[1] * g[2];
    let mut idx: Vec<usize> = (0..total).collect();
    for i in (1..total).rev() {
        idx.swap(i, rng.below(i as u64 + 1) as usize);
    }
    idx.truncate(count.min(total));
    let axes = r.spatial_axes();
    idx.into_iter()
        .map(|i| {
            let p = [i % g[0], i / g[0] % g[1], i / (g[0] * g[1])];
            let mut c = [0i32; 4];
            for a in 0..axes {
                c[a] = p[a] as i32;
            }
            if let Some(la) = r.layer_axis() {
                c[axes] = p[la] as i32;
            }
            (c, p)
        })
        .collect()
}

/// Writes random colors to random texels of every listed format of `ty`; each written texel
/// holds what 7.4 allows, every other texel is unchanged.
fn writes(ty: cl_mem_object_type, depth: bool, seed: u64) {
    let env = Env::new(&["image_write"]);
    let mut rng = Rng::new(seed);
    let t = tname(ty, depth);
    let formats: Vec<Format> = env
        .listed(CL_MEM_WRITE_ONLY, ty)
        .into_iter()
        .filter(|f| f.is_depth() == depth)
        .collect();
    assert!(
        !formats.is_empty(),
        "no {} formats listed for writing",
        iref::image_type_name(ty)
    );
    let (mut texels, mut not_nearest) = (0usize, 0usize);
    for fmt in &formats {
        let fmt = *fmt;
        let img = make_image(&env, CL_MEM_WRITE_ONLY, fmt, ty, read_size(ty), &mut rng);
        let before = img.r.data.clone();
        let es = img.r.element_size();
        let targets = distinct_texels(&mut rng, &img.r, 24);
        let colors: Vec<Color> = targets.iter().map(|_| random_color(fmt, &mut rng)).collect();
        let coords: Vec<[i32; 4]> = targets.iter().map(|t| t.0).collect();
        let name = format!("write_{}_{t}", kname(fmt.kind()));
        run_write(&env, &name, &img.mem, &coords, &color_bytes(&colors));
        let g = img.r.grid;
        let got = env.q.read_image(&img.mem, [0; 3], g, 0, 0, before.len());
        let mut written = vec![false; g[0] * g[1] * g[2]];
        for ((c, p), color) in targets.iter().zip(&colors) {
            let i = (p[2] * g[1] + p[1]) * g[0] + p[0];
            written[i] = true;
            let e = &got[i * es..(i + 1) * es];
            if let Err(m) = iref::check_written(fmt, img.r.x_pad, *color, e) {
                panic!("{} {name} at {c:?}: {m}", iref::image_type_name(ty));
            }
            if !fmt.is_packed() && e != &iref::encode(fmt, img.r.x_pad, *color)[..] {
                not_nearest += 1;
            }
            texels += 1;
        }
        for (i, w) in written.iter().enumerate() {
            if !w {
                assert_eq!(
                    &got[i * es..(i + 1) * es],
                    &before[i * es..(i + 1) * es],
                    "{} {fmt}: {name} changed texel {i}, which it did not write",
                    iref::image_type_name(ty)
                );
            }
        }
    }
    println!(
        "{}{} writes: {} formats, {texels} texels checked, {not_nearest} stored values allowed but not the round-to-nearest-even ones",
        iref::image_type_name(ty),
        if depth { " depth" } else { "" },
        formats.len()
    );
}

#[test]
fn writes_1d() {
    writes(CL_MEM_OBJECT_IMAGE1D, false, 31);
}

#[test]
fn writes_1d_buffer() {
    writes(CL_MEM_OBJECT_IMAGE1D_BUFFER, false, 32);
}

#[test]
fn writes_1d_array() {
    writes(CL_MEM_OBJECT_IMAGE1D_ARRAY, false, 33);
}

#[test]
fn writes_2d() {
    writes(CL_MEM_OBJECT_IMAGE2D, false, 34);
}

#[test]
fn writes_2d_array() {
    writes(CL_MEM_OBJECT_IMAGE2D_ARRAY, false, 35);
}

#[test]
fn writes_3d() {
    if !opencl_c_features().iter().any(|f| f == "__opencl_c_3d_image_writes") {
        println!("no __opencl_c_3d_image_writes: nothing to test");
        return;
    }
    writes(CL_MEM_OBJECT_IMAGE3D, false, 36);
}

#[test]
fn writes_depth() {
    let env = Env::new(&[]);
    let has_depth = env
        .listed(CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D)
        .iter()
        .any(|f| f.is_depth());
    drop(env);
    if !has_depth {
        println!("no CL_DEPTH formats listed for writing: nothing to test");
        return;
    }
    writes(CL_MEM_OBJECT_IMAGE2D, true, 37);
    writes(CL_MEM_OBJECT_IMAGE2D_ARRAY, true, 38);
}

/// read_write images (2D, 3D, 1D array): each work-item reads its texel (the reference value)
/// and writes a new color there (what 7.4 allows).
#[test]
fn read_write_images() {
    if !opencl_c_features().iter().any(|f| f == "__opencl_c_read_write_images") {
        println!("no __opencl_c_read_write_images: nothing to test");
        return;
    }
    let env = Env::new(&["image_write"]);
    let mut rng = Rng::new(41);
    let mut texels = 0;
    for (ty, t) in [
        (CL_MEM_OBJECT_IMAGE2D, "2d"),
        (CL_MEM_OBJECT_IMAGE3D, "3d"),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, "1da"),
    ] {
        let formats = env.listed(CL_MEM_KERNEL_READ_AND_WRITE | CL_MEM_READ_WRITE, ty);
        for fmt in formats {
            if fmt.is_depth() {
                continue;
            }
            let img = make_image(&env, CL_MEM_READ_WRITE, fmt, ty, read_size(ty), &mut rng);
            let es = img.r.element_size();
            let targets = distinct_texels(&mut rng, &img.r, 16);
            let colors: Vec<Color> = targets.iter().map(|_| random_color(fmt, &mut rng)).collect();
            let coords: Vec<[i32; 4]> = targets.iter().map(|t| t.0).collect();
            let cb = env.ctx.buffer_from(&as_bytes_i(&coords));
            let colb = env.ctx.buffer_from(&color_bytes(&colors));
            let gotb = env.ctx.buffer(coords.len() * 16);
            let name = format!("rw_{}_{t}", kname(fmt.kind()));
            let k = env.kernel("image_write", &name);
            k.arg_mem(0, &img.mem);
            k.arg_mem(1, &cb);
            k.arg_mem(2, &colb);
            k.arg_mem(3, &gotb);
            env.q.run(&k, &[], &[coords.len()], &[]);
            let read = env.q.read(&gotb, 0, coords.len() * 16);
            let g = img.r.grid;
            let after = env.q.read_image(&img.mem, [0; 3], g, 0, 0, img.r.data.len());
            for (n, ((c, p), color)) in targets.iter().zip(&colors).enumerate() {
                let got = got_vec(fmt.kind(), &read[n * 16..n * 16 + 16]);
                let want = iref::load(&img.r, *c).unwrap();
                assert!(
                    (0..4).all(|q| want[q].dist(got[q]) == 0.0),
                    "{} {fmt}: {name} read at {c:?}: got {got:?}, want {}",
                    iref::image_type_name(ty),
                    describe(&want)
                );
                let i = (p[2] * g[1] + p[1]) * g[0] + p[0];
                if let Err(m) = iref::check_written(fmt, img.r.x_pad, *color, &after[i * es..(i + 1) * es]) {
                    panic!("{} {name} at {c:?}: {m}", iref::image_type_name(ty));
                }
                texels += 1;
            }
        }
    }
    println!("read_write images: {texels} texels read and written");
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

/// get_image_width/height/depth/array_size/dim/channel_data_type/channel_order of every image
/// type, and the format queries of every listed 2D format.
#[test]
fn image_queries() {
    let env = Env::new(&["image_query"]);
    let mut rng = Rng::new(51);
    let mut cases: Vec<(cl_mem_object_type, bool, Format, [usize; 4], cl_mem_flags)> = vec![
        (
            CL_MEM_OBJECT_IMAGE1D,
            false,
            Format::new(CL_RGBA, CL_UNORM_INT8),
            [19, 0, 0, 0],
            CL_MEM_READ_ONLY,
        ),
        (
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            false,
            Format::new(CL_R, CL_FLOAT),
            [23, 0, 0, 0],
            CL_MEM_READ_ONLY,
        ),
        (
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            false,
            Format::new(CL_RG, CL_SIGNED_INT16),
            [7, 0, 0, 5],
            CL_MEM_READ_ONLY,
        ),
        (
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            false,
            Format::new(CL_BGRA, CL_UNORM_INT8),
            [6, 4, 0, 3],
            CL_MEM_WRITE_ONLY,
        ),
        (
            CL_MEM_OBJECT_IMAGE3D,
            false,
            Format::new(CL_RGBA, CL_HALF_FLOAT),
            [5, 4, 3, 0],
            CL_MEM_READ_ONLY,
        ),
    ];
    for f in env.listed(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D) {
        let depth = f.is_depth();
        cases.push((CL_MEM_OBJECT_IMAGE2D, depth, f, [9, 7, 0, 0], CL_MEM_READ_ONLY));
    }
    if opencl_c_features().iter().any(|f| f == "__opencl_c_read_write_images") {
        let d = Format::new(CL_DEPTH, CL_FLOAT);
        if env
            .listed(
                CL_MEM_KERNEL_READ_AND_WRITE | CL_MEM_READ_WRITE,
                CL_MEM_OBJECT_IMAGE2D_ARRAY,
            )
            .contains(&d)
        {
            cases.push((CL_MEM_OBJECT_IMAGE2D_ARRAY, true, d, [3, 8, 0, 2], CL_MEM_READ_WRITE));
        }
    }
    for (ty, depth, fmt, size, flags) in cases {
        let img = make_image(&env, flags, fmt, ty, size, &mut rng);
        let ob = env.ctx.buffer(40);
        let name = format!("query_{}", tname(ty, depth));
        let k = env.kernel("image_query", &name);
        k.arg_mem(0, &img.mem);
        k.arg_mem(1, &ob);
        env.q.run(&k, &[], &[1], &[]);
        let got: Vec<i32> = from_bytes(&env.q.read(&ob, 0, 40));
        let [w, h, d, a] = size;
        let (h, d, a) = match ty {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (0, 0, 0),
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (0, 0, a),
            CL_MEM_OBJECT_IMAGE2D => (h, 0, 0),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (h, 0, a),
            _ => (h, d, 0),
        };
        let dim = match ty {
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => [w, h, 0, 0],
            CL_MEM_OBJECT_IMAGE3D => [w, h, d, 0],
            _ => [0; 4],
        };
        let want: Vec<i32> = [w, h, d, a]
            .iter()
            .map(|&v| v as i32)
            .chain([fmt.dtype as i32, fmt.order as i32])
            .chain(dim.iter().map(|&v| v as i32))
            .collect();
        assert_eq!(
            got,
            want,
            "{name} of a {} {fmt} image {size:?}: (width, height, depth, array size, data type, order, dim)",
            iref::image_type_name(ty)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Kernel argument errors
// ---------------------------------------------------------------------------------------------

/// Image and sampler arguments given the wrong objects or sizes: the spec's error codes, and
/// nothing crashes; an unset image argument fails the enqueue.
#[test]
fn image_argument_errors() {
    if !isolate("image_argument_errors") {
        return;
    }
    let env = Env::new(&["image_read", "image_write"]);
    let mut rng = Rng::new(61);
    let fmt = Format::new(CL_RGBA, CL_FLOAT);
    let ro = make_image(
        &env,
        CL_MEM_READ_ONLY,
        fmt,
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
        &mut rng,
    );
    let wo = make_image(
        &env,
        CL_MEM_WRITE_ONLY,
        fmt,
        CL_MEM_OBJECT_IMAGE2D,
        [4, 4, 0, 0],
        &mut rng,
    );

    let buf = env.ctx.buffer(256);
    let smp = env.ctx.sampler(false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
    let set = |k: &Rc<Kernel>, i: cl_uint, size: usize, v: *const c_void| unsafe { clSetKernelArg(k.0, i, size, v) };
    let mem_size = std::mem::size_of::<cl_mem>();
    let either = |e: cl_int, what: &str| {
        assert!(
            e == CL_INVALID_MEM_OBJECT || e == CL_INVALID_ARG_VALUE,
            "{what}: {} (CL_INVALID_MEM_OBJECT or CL_INVALID_ARG_VALUE expected)",
            err_name(e)
        );
    };
    {
        let k = env.kernel("image_read", "read_f_2d");
        // A buffer, a 3D image, NULL as an image2d_t.
        either(
            set(&k, 0, mem_size, &buf.0 as *const cl_mem as *const c_void),
            "buffer as image2d_t",
        );

        let null: cl_mem = ptr::null_mut();
        either(
            set(&k, 0, mem_size, &null as *const cl_mem as *const c_void),
            "NULL image as image2d_t",
        );
        either(set(&k, 0, mem_size, ptr::null()), "no value for an image2d_t");
        // A write-only image for a read_only argument.
        assert_eq!(
            set(&k, 0, mem_size, &wo.mem.0 as *const cl_mem as *const c_void),
            CL_INVALID_ARG_VALUE,
            "CL_MEM_WRITE_ONLY image for a read_only image2d_t"
        );
        assert_eq!(
            set(&k, 0, 4, &ro.mem.0 as *const cl_mem as *const c_void),
            CL_INVALID_ARG_SIZE,
            "image argument of size 4"
        );
        // Samplers.
        assert_eq!(
            set(
                &k,
                1,
                std::mem::size_of::<cl_sampler>(),
                &buf.0 as *const cl_mem as *const c_void
            ),
            CL_INVALID_SAMPLER,
            "a buffer as sampler_t"
        );
        let nulls: cl_sampler = ptr::null_mut();
        assert_eq!(
            set(
                &k,
                1,
                std::mem::size_of::<cl_sampler>(),
                &nulls as *const cl_sampler as *const c_void
            ),
            CL_INVALID_SAMPLER,
            "NULL sampler"
        );
        assert_eq!(
            set(&k, 1, 4, &smp.0 as *const cl_sampler as *const c_void),
            CL_INVALID_ARG_SIZE,
            "sampler argument of size 4"
        );
        // An image for a buffer argument, a sampler for an image.
        either(
            set(&k, 2, mem_size, &ro.mem.0 as *const cl_mem as *const c_void),
            "image as a global pointer",
        );
        either(
            set(&k, 0, mem_size, &smp.0 as *const cl_sampler as *const c_void),
            "sampler as image2d_t",
        );
        // The right ones work; an unset argument fails the enqueue.
        ok!(set(&k, 0, mem_size, &ro.mem.0 as *const cl_mem as *const c_void));
        ok!(set(
            &k,
            1,
            std::mem::size_of::<cl_sampler>(),
            &smp.0 as *const cl_sampler as *const c_void
        ));
        ok!(set(&k, 2, mem_size, &buf.0 as *const cl_mem as *const c_void));
    }
    let k = env.kernel("image_read", "read_f_2d");
    assert_eq!(
        env.q.try_nd_range(&k, &[], &[1], &[]),
        CL_INVALID_KERNEL_ARGS,
        "enqueue with argument 3 unset"
    );
    let k = env.kernel("image_write", "write_f_2d");
    assert_eq!(
        set(&k, 0, mem_size, &ro.mem.0 as *const cl_mem as *const c_void),
        CL_INVALID_ARG_VALUE,
        "CL_MEM_READ_ONLY image for a write_only image2d_t"
    );
    ok!(set(&k, 0, mem_size, &wo.mem.0 as *const cl_mem as *const c_void));
}

/// An image of another type for an image argument: "If the kernel argument is a 2D image, then
/// the image memory object must be of image type CL_MEM_OBJECT_IMAGE2D" (and so on for each
/// image type; a depth image argument needs a CL_DEPTH image), refused with
/// CL_INVALID_MEM_OBJECT (or CL_INVALID_ARG_VALUE).
#[test]
fn image_argument_of_another_image_type() {
    let env = Env::new(&["image_read"]);
    let mut rng = Rng::new(62);
    let fmt = Format::new(CL_RGBA, CL_FLOAT);
    let mem_size = std::mem::size_of::<cl_mem>();
    let k = env.kernel("image_read", "read_f_2d");
    for (ty, size) in [
        (CL_MEM_OBJECT_IMAGE3D, [4, 4, 2, 0]),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 4, 0, 2]),
        (CL_MEM_OBJECT_IMAGE1D, [4, 0, 0, 0]),
        (CL_MEM_OBJECT_IMAGE1D_BUFFER, [4, 0, 0, 0]),
    ] {
        let img = make_image(&env, CL_MEM_READ_ONLY, fmt, ty, size, &mut rng);
        let e = unsafe { clSetKernelArg(k.0, 0, mem_size, &img.mem.0 as *const cl_mem as *const c_void) };
        assert!(
            e == CL_INVALID_MEM_OBJECT || e == CL_INVALID_ARG_VALUE,
            "{} image for an image2d_t argument: {} (CL_INVALID_ARG_VALUE or CL_INVALID_MEM_OBJECT expected)",
            iref::image_type_name(ty),
            err_name(e)
        );
    }
    // A 2D image that is not CL_DEPTH for an image2d_depth_t argument.
    if env
        .listed(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D)
        .iter()
        .any(|f| f.is_depth())
    {
        let k = env.kernel("image_read", "read_f_2dd");
        let img = make_image(
            &env,
            CL_MEM_READ_ONLY,
            fmt,
            CL_MEM_OBJECT_IMAGE2D,
            [4, 4, 0, 0],
            &mut rng,
        );
        let e = unsafe { clSetKernelArg(k.0, 0, mem_size, &img.mem.0 as *const cl_mem as *const c_void) };
        assert!(
            e == CL_INVALID_MEM_OBJECT || e == CL_INVALID_ARG_VALUE,
            "{fmt} image for an image2d_depth_t argument: {} (CL_INVALID_ARG_VALUE or CL_INVALID_MEM_OBJECT expected)",
            err_name(e)
        );
        let d = make_image(
            &env,
            CL_MEM_READ_ONLY,
            Format::new(CL_DEPTH, CL_FLOAT),
            CL_MEM_OBJECT_IMAGE2D,
            [4, 4, 0, 0],
            &mut rng,
        );
        ok!(clSetKernelArg(
            k.0,
            0,
            mem_size,
            &d.mem.0 as *const cl_mem as *const c_void
        ));
    }
}

/// Coordinates far outside the image (up to 1e9 texels, 1e6 images for normalized
/// coordinates): the defined results (border, edge, repeat, mirror) equal the reference;
/// CL_ADDRESS_NONE's are undefined, but the reads complete.
#[test]
fn extreme_coordinates() {
    if !isolate("extreme_coordinates") {
        return;
    }
    let env = Env::new(&["image_read"]);
    let mut rng = Rng::new(71);
    let mut st = Stats::default();
    let listed2 = env.listed(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    for fmt in [
        Format::new(CL_RGBA, CL_FLOAT),
        Format::new(CL_R, CL_UNORM_INT8),
        Format::new(CL_RGBA, CL_UNSIGNED_INT16),
        Format::new(CL_sRGBA, CL_UNORM_INT8),
    ] {
        if !listed2.contains(&fmt) {
            continue;
        }
        for ty in [
            CL_MEM_OBJECT_IMAGE2D,
            CL_MEM_OBJECT_IMAGE3D,
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
        ] {
            let img = make_image(&env, CL_MEM_READ_ONLY, fmt, ty, read_size(ty), &mut rng);
            let kind = fmt.kind();
            let k = kname(kind);
            let t = tname(ty, false);
            for (s, so) in &env.samplers {
                if s.filter == CL_FILTER_LINEAR && kind != Kind::Float {
                    continue;
                }
                let far: &[f32] = if s.normalized {
                    &[1e6, -1e6, 1000.3, -1000.3, 12345.678, -0.5, 1.5]
                } else {
                    &[1e9, -1e9, 1e6, -1e6, 65536.5, -65536.5, 1e4 + 0.25]
                };
                let axes = img.r.spatial_axes();
                let coords: Vec<[f32; 4]> = (0..SAMPLES)
                    .map(|_| {
                        let mut c = [0f32; 4];
                        for a in 0..axes {
                            c[a] = far[rng.below(far.len() as u64) as usize];
                        }
                        if let Some(la) = img.r.layer_axis() {
                            c[axes] =
                                [1e9f32, -1e9, 1e6, -3.5, 2.5, img.r.grid[la] as f32 - 0.5][rng.below(6) as usize];
                        }
                        c
                    })
                    .collect();
                let sh = so.0;
                let out = run_read(
                    &env,
                    "image_read",
                    &format!("read_{k}_{t}"),
                    &img.mem,
                    Some(&|kk: &Kernel| kk.arg(1, &sh)),
                    &as_bytes_f(&coords),
                    SAMPLES,
                );
                for (i, &c) in coords.iter().enumerate() {
                    let got = got_vec(kind, &out[i * 16..i * 16 + 16]);
                    check_sampled(&mut st, &img.r, s, c, got, 4, &|| {
                        format!("{} {fmt} read_{k}_{t} (far coordinates)", iref::image_type_name(ty))
                    });
                }
                st.combos += 1;
            }
        }
    }
    st.print("far coordinates");
}

/// Hand-written SPIR-V (kernels/image_spirv.spvasm): OpImageQuerySize without a level of
/// detail, an OpConstantSampler (normalized, repeat, linear) sampled directly in the kernel, and
/// OpImageRead / OpImageWrite of an unsigned integer image at coordinates computed in the
/// kernel.
#[test]
fn spirv_forms() {
    let env = Env::new(&["image_spirv"]);
    let mut rng = Rng::new(81);
    for (name, ty, size, want) in [
        ("size_2d", CL_MEM_OBJECT_IMAGE2D, [9, 7, 0, 0], vec![9u32, 7]),
        ("size_3d", CL_MEM_OBJECT_IMAGE3D, [5, 4, 3, 0], vec![5, 4, 3]),
        ("size_1da", CL_MEM_OBJECT_IMAGE1D_ARRAY, [7, 0, 0, 5], vec![7, 5]),
        ("size_2da", CL_MEM_OBJECT_IMAGE2D_ARRAY, [6, 4, 0, 3], vec![6, 4, 3]),
    ] {
        let img = make_image(
            &env,
            CL_MEM_READ_ONLY,
            Format::new(CL_R, CL_UNORM_INT8),
            ty,
            size,
            &mut rng,
        );
        let ob = env.ctx.buffer_from(&[0xffu8; 12]);
        let k = env.kernel("image_spirv", name);
        k.arg_mem(0, &img.mem);
        k.arg_mem(1, &ob);
        env.q.run(&k, &[], &[1], &[]);
        let got: Vec<u32> = from_bytes(&env.q.read(&ob, 0, 4 * want.len()));
        assert_eq!(got, want, "{name}: OpImageQuerySize of {size:?}");
    }
    // The literal sampler.
    let s = iref::Sampler {
        normalized: true,
        addressing: CL_ADDRESS_REPEAT,
        filter: CL_FILTER_LINEAR,
    };
    let img = make_image(
        &env,
        CL_MEM_READ_ONLY,
        Format::new(CL_RGBA, CL_FLOAT),
        CL_MEM_OBJECT_IMAGE2D,
        [8, 5, 0, 0],
        &mut rng,
    );
    let coords = float_coords(&mut rng, &img.r, &s, SAMPLES);
    let cb = env.ctx.buffer_from(
        &coords
            .iter()
            .flat_map(|c| [c[0], c[1]])
            .flat_map(f32::to_le_bytes)
            .collect::<Vec<u8>>(),
    );
    let ob = env.ctx.buffer(SAMPLES * 16);
    let k = env.kernel("image_spirv", "repeat_linear");
    k.arg_mem(0, &img.mem);
    k.arg_mem(1, &cb);
    k.arg_mem(2, &ob);
    env.q.run(&k, &[], &[SAMPLES], &[]);
    let out = env.q.read(&ob, 0, SAMPLES * 16);
    let mut st = Stats::default();
    for (i, &c) in coords.iter().enumerate() {
        let got = got_vec(Kind::Float, &out[i * 16..i * 16 + 16]);
        check_sampled(&mut st, &img.r, &s, c, got, 4, &|| {
            "repeat_linear (OpConstantSampler)".to_string()
        });
    }
    // Read and write at computed coordinates.
    let fmt = Format::new(CL_RGBA, CL_UNSIGNED_INT16);
    let src = make_image(
        &env,
        CL_MEM_READ_ONLY,
        fmt,
        CL_MEM_OBJECT_IMAGE2D,
        [6, 4, 0, 0],
        &mut rng,
    );
    let dst = make_image(
        &env,
        CL_MEM_WRITE_ONLY,
        fmt,
        CL_MEM_OBJECT_IMAGE2D,
        [6, 4, 0, 0],
        &mut rng,
    );
    let k = env.kernel("image_spirv", "mirror_x");
    k.arg_mem(0, &src.mem);
    k.arg_mem(1, &dst.mem);
    env.q.run(&k, &[], &[6, 4], &[]);
    let got = env.q.read_image(&dst.mem, [0; 3], [6, 4, 1], 0, 0, 6 * 4 * 8);
    for y in 0..4 {
        for x in 0..6 {
            assert_eq!(
                &got[(y * 6 + x) * 8..(y * 6 + x + 1) * 8],
                src.r.element(5 - x, y, 0),
                "mirror_x: texel ({x}, {y})"
            );
        }
    }
}

/// OpenCL C choosing between two literal samplers at run time (kernels/source/sampler_choice.cl):
/// llvm-spirv 15 cannot translate clang's optimized IR for it, so Clift translates the
/// unoptimized IR; the build succeeds and each sampler gives its own result on a 2x2 RGBA
/// float image: nearest at (0.5, 0.5) unnormalized is texel (0, 0), linear at (0.5, 0.5)
/// normalized is the mean of the four texels.
#[test]
fn literal_samplers_chosen_at_run_time_from_source() {
    require_images();
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("sampler_choice.cl", "");
    let k = p.kernel("choose");
    let mut texels: Vec<f32> = (0..16).map(|v| v as f32).collect();
    let fmt = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_FLOAT,
    };
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [2, 2, 1, 1], 0, 0, std::ptr::null_mut());
    let img = ctx.image(
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        &fmt,
        &desc,
        texels.as_mut_ptr() as *mut std::ffi::c_void,
    );
    let out = ctx.buffer(16);
    k.arg_mem(0, &img);
    k.arg_mem(2, &out);
    for (which, expect) in [(1i32, [0.0f32, 1.0, 2.0, 3.0]), (0, [6.0, 7.0, 8.0, 9.0])] {
        k.arg(1, &which);
        q.run(&k, &[0], &[1], &[1]);
        let got: Vec<f32> = from_bytes(&q.read(&out, 0, 16));
        assert_eq!(got, expect, "sampler {which}");
    }
}

/// Issue 13, item 8: with `CL_ADDRESS_CLAMP`, every listed 2D format whose order has no alpha
/// channel (`CL_R`, `CL_RG`, `CL_RGB`, `CL_LUMINANCE`, `CL_sRGB` and the `x` orders, the packed
/// 565, 555 and 101010 types of `CL_RGBx` among them) reads alpha 1 outside the image, and the
/// orders with alpha read 0; each read is also checked whole against the reference sampler.
#[test]
fn border_alpha_without_alpha_channel() {
    let env = Env::new(&["image_read"]);
    let mut rng = Rng::new(13);
    let ty = CL_MEM_OBJECT_IMAGE2D;
    let (s, sh) = env
        .samplers
        .iter()
        .find(|(s, _)| !s.normalized && s.addressing == CL_ADDRESS_CLAMP && s.filter == CL_FILTER_NEAREST)
        .map(|(s, h)| (*s, h.0))
        .expect("an unnormalized nearest clamp sampler");
    let size = read_size(ty);
    let (w, h) = (size[0] as f32, size[1] as f32);
    // Outside on each side, and far outside.
    let coords: Vec<[f32; 4]> = vec![
        [-1.0, 0.5, 0.0, 0.0],
        [0.5, -1.0, 0.0, 0.0],
        [w + 0.5, 0.5, 0.0, 0.0],
        [0.5, h + 0.5, 0.0, 0.0],
        [-1e6, 1e6, 0.0, 0.0],
    ];
    let mut without_alpha = Vec::new();
    for fmt in env.listed(CL_MEM_READ_ONLY, ty).into_iter().filter(|f| !f.is_depth()) {
        let img = make_image(&env, CL_MEM_READ_ONLY, fmt, ty, size, &mut rng);
        let kind = fmt.kind();
        let k = kname(kind);
        let name = format!("read_{k}_{}", tname(ty, false));
        let out = run_read(
            &env,
            "image_read",
            &name,
            &img.mem,
            Some(&|kk: &Kernel| kk.arg(1, &sh)),
            &as_bytes_f(&coords),
            coords.len(),
        );
        let no_alpha = matches!(
            fmt.order,
            CL_R | CL_RG | CL_RGB | CL_LUMINANCE | CL_sRGB | CL_Rx | CL_RGx | CL_RGBx | CL_sRGBx
        );
        for (i, &c) in coords.iter().enumerate() {
            let got = got_vec(kind, &out[i * 16..i * 16 + 16]);
            assert_eq!(&got[..3], &[0.0; 3], "{fmt} {name} at {c:?}: border colour {got:?}");
            let alpha = if no_alpha { 1.0 } else { 0.0 };
            assert_eq!(got[3], alpha, "{fmt} {name} at {c:?}: border alpha");
            let mut stats = Stats::default();
            check_sampled(&mut stats, &img.r, &s, c, got, 4, &|| format!("{fmt} {name}"));
        }
        if no_alpha {
            without_alpha.push(fmt.to_string());
        }
    }
    // The packed RGBx formats the issue names are among those checked when listed.
    println!("border alpha 1 checked for: {}", without_alpha.join(", "));
    assert!(!without_alpha.is_empty());
}
