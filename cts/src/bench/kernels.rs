//! The benchmark's kernels: for each, the host data, the ND-range, the amount of work (for a
//! rate) and the check of the outputs against a host reference. The kernels themselves live in
//! `cts/kernels/bench/<name>.cl` (and `<name>.spvasm`, their SPIR-V).

/// What bounds a kernel, which decides the steady-state target it is held to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    Memory,
    Compute,
    /// Image reads through a sampler (issue 15: at least 1.5x PoCL).
    Image,
    /// The empty-kernel launch micro-benchmark.
    Launch,
}

impl Class {
    pub fn label(self) -> &'static str {
        match self {
            Class::Memory => "memory",
            Class::Compute => "compute",
            Class::Image => "image",
            Class::Launch => "launch",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Size {
    Small,
    Large,
}

/// One kernel argument.
pub enum Arg {
    /// A buffer of `size` bytes, initialised from `init` when given; `out` buffers are read
    /// back (in argument order) and handed to the check.
    Buf {
        size: usize,
        init: Option<Vec<u8>>,
        out: bool,
    },
    /// A by-value argument.
    Scalar(Vec<u8>),
    /// A `__local` pointer argument of this many bytes.
    Local(usize),
    /// A 2D image of `format` filled from `data` (rows tightly packed); `out` images are
    /// read back (after the buffers) and handed to the check.
    Image {
        format: cts::cl_image_format,
        width: usize,
        height: usize,
        data: Vec<u8>,
        out: bool,
    },
    /// A sampler with normalized coordinates.
    Sampler { addressing: u32, filter: u32 },
}

/// `Ok(note)` when the outputs match the reference ("ok", or "ok" with a remark), else what
/// differs.
pub type Check = Box<dyn Fn(&[Vec<u8>]) -> Result<String, String>>;

pub struct Job {
    /// Kernel (entry point) name, also the file name without extension.
    pub name: &'static str,
    pub class: Class,
    /// The problem size, in words.
    pub desc: String,
    pub args: Vec<Arg>,
    pub offset: Vec<usize>,
    pub global: Vec<usize>,
    pub local: Vec<usize>,
    /// Work per run in `unit`s (bytes moved, floating-point operations, iterations).
    pub work: f64,
    /// Rate unit: "GB/s", "GFLOP/s", "Giter/s".
    pub unit: &'static str,
    pub check: Check,
}

/// Every kernel, in the order they run.
pub const NAMES: &[&str] = &[
    "vecadd",
    "vecadd_groups_of_1",
    "saxpy",
    "reduce",
    "sgemm",
    "mandelbrot",
    "histogram",
    "nbody",
    "hash",
    "vec4",
    "daxpy",
    "ddot",
    "empty",
    "fft",
    "gemm_v4_t4_g8_local",
    "gemm_v4_t8_g8_local",
    "gemm_v8_t4_g8_local",
    "gemm_v8_t8_g8_local",
    "gemm_v4_t4_g16_local",
    "gemm_v4_t4_g8_global",
    "gemm_v4_t8_g8_global",
    "gemm_v8_t4_g8_global",
    "gemm_v8_t8_g8_global",
    "gemm_v8_t8_g4_global",
    "image_linear_rgba8_none",
    "image_linear_rgba8_clamp",
    "image_linear_rgba8_edge",
    "image_linear_rgba8_repeat",
    "image_linear_rgba8_mirror",
    "image_linear_float_none",
    "image_linear_float_clamp",
    "image_linear_float_edge",
    "image_linear_float_repeat",
    "image_linear_float_mirror",
    "image_nearest_rgba8_none",
    "image_nearest_rgba8_clamp",
    "image_nearest_rgba8_edge",
    "image_nearest_rgba8_repeat",
    "image_nearest_rgba8_mirror",
    "image_nearest_float_none",
    "image_nearest_float_clamp",
    "image_nearest_float_edge",
    "image_nearest_float_repeat",
    "image_nearest_float_mirror",
    "image_write",
];

macro_rules! src {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../kernels/bench/", $name, ".cl")),
            include_str!(concat!("../../kernels/bench/", $name, ".spvasm")),
        )
    };
}
/// The OpenCL C source and the SPIR-V assembly of every kernel, built into the binary.
pub const SOURCES: &[(&str, &str, &str)] = &[
    src!("vecadd"),
    src!("saxpy"),
    src!("reduce"),
    src!("sgemm"),
    src!("mandelbrot"),
    src!("histogram"),
    src!("nbody"),
    src!("hash"),
    src!("vec4"),
    src!("daxpy"),
    src!("ddot"),
    src!("empty"),
    src!("image_sample"),
    src!("image_write"),
    src!("gemm"),
    src!("fft"),
];

/// The headers `hash.cl` includes, as the application's own files (include name, text).
pub const HASH_HEADERS: &[(&str, &str)] = &[
    ("hash_config.h", include_str!("../../kernels/bench/hash/hash_config.h")),
    ("hash_ops.h", include_str!("../../kernels/bench/hash/hash_ops.h")),
];

/// Rounds and iterations of the hash kernel's compression.
const HASH_ROUNDS: u32 = 64;
const HASH_ITERATIONS: u32 = 16;

/// Build options beyond the benchmark's common ones: the hash kernel is configured the way a
/// password-recovery application configures its kernels, with many -D options and an include
/// directory (its headers written to a directory of their own first).
pub fn build_options(name: &str) -> Result<String, String> {
    if let Some(c) = crate::gemm::parse(name) {
        return Ok(crate::gemm::options(c));
    }
    if name != "hash" {
        return Ok(String::new());
    }
    let dir = std::env::temp_dir().join(format!("clift-bench-hash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, text) in HASH_HEADERS {
        std::fs::write(dir.join(file), text).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(format!(
        "-I {} -D VECT_SIZE=4 -D ROUNDS={HASH_ROUNDS} -D ITERATIONS={HASH_ITERATIONS} -D USE_BITSELECT=1 \
         -D IV0=0x67452301u -D IV1=0xefcdab89u -D IV2=0x98badcfeu -D IV3=0x10325476u -D K_MUL=0x9e3779b9u",
        dir.display()
    ))
}

/// The entry point (and file name) of benchmark `name`: the image benchmarks all run
/// `image_sample`, each with its own image and sampler.
pub fn entry(name: &str) -> &str {
    if name.starts_with("image_") && name != "image_write" {
        "image_sample"
    } else if name.starts_with("gemm_") {
        "gemm"
    } else if name == "vecadd_groups_of_1" {
        "vecadd"
    } else {
        name
    }
}

/// (OpenCL C source, SPIR-V assembly) of benchmark `name`. The SPIR-V is empty where it
/// does not exist: a GEMM setting other than the one `gemm.spvasm` was compiled with (the
/// setting is a build option of the source) builds from source on every platform.
pub fn sources(name: &str) -> (&'static str, &'static str) {
    let entry = entry(name);
    let (_, cl, spv) = SOURCES.iter().find(|(n, _, _)| *n == entry).expect("kernel sources");
    match crate::gemm::parse(name) {
        Some(c) if c != crate::gemm::DEFAULT => (cl, ""),
        _ => (cl, spv),
    }
}

pub fn job(name: &str, size: Size) -> Option<Job> {
    let large = size == Size::Large;
    Some(match name {
        "vecadd" => vecadd(if large { 1 << 24 } else { 1 << 20 }),
        "vecadd_groups_of_1" => {
            // The application's local size is 1 (as the Khronos CTS's allocations and
            // thread_dimensions tests enqueue): millions of work-groups of one work-item.
            let mut job = vecadd(if large { 1 << 24 } else { 1 << 20 });
            job.name = "vecadd_groups_of_1";
            job.desc += ", work-groups of 1";
            job.local = vec![1];
            job
        }
        "saxpy" => saxpy(if large { 1 << 24 } else { 1 << 20 }),
        "reduce" => reduce(if large { 1 << 24 } else { 1 << 20 }),
        "sgemm" => sgemm(if large { 1024 } else { 256 }),
        "mandelbrot" => mandelbrot(if large { 2048 } else { 512 }),
        "histogram" => histogram(if large { 1 << 24 } else { 1 << 20 }),
        "nbody" => nbody(if large { 8192 } else { 2048 }),
        "hash" => hash(if large { 1 << 16 } else { 1 << 13 }),
        "vec4" => vec4(if large { 1 << 16 } else { 1 << 14 }, 256),
        "daxpy" => daxpy(if large { 1 << 24 } else { 1 << 20 }),
        "ddot" => ddot(if large { 1 << 24 } else { 1 << 20 }),
        "empty" => empty(),
        "fft" => crate::fft::job(if large { 4096 } else { 256 }),
        n if n.starts_with("gemm_") => {
            crate::gemm::job(NAMES.iter().find(|m| **m == n)?, if large { 1024 } else { 512 })?
        }
        "image_write" => image_write(if large { 4096 } else { 1024 })?,
        n if n.starts_with("image_") => image_sample(NAMES.iter().find(|m| **m == n)?, if large { 2048 } else { 512 })?,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Host data helpers
// ---------------------------------------------------------------------------------------------

/// Deterministic xorshift64 generator.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 32) as u32
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }
    /// Uniform in [-1, 1).
    pub(crate) fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    cts::as_bytes(v).to_vec()
}

pub(crate) fn scalar<T: Copy>(v: T) -> Arg {
    Arg::Scalar(bytes(&[v]))
}

pub(crate) fn input<T: Copy>(v: &[T]) -> Arg {
    Arg::Buf {
        size: std::mem::size_of_val(v),
        init: Some(bytes(v)),
        out: false,
    }
}

pub(crate) fn output(size: usize) -> Arg {
    Arg::Buf {
        size,
        init: None,
        out: true,
    }
}

fn floats(b: &[u8]) -> Vec<f32> {
    cts::from_bytes(b)
}

fn uints(b: &[u8]) -> Vec<u32> {
    cts::from_bytes(b)
}

/// Compares element by element with `ok(i, got)`; the message counts the mismatches and shows
/// the first.
fn compare<T: std::fmt::Debug + Copy>(
    got: &[T],
    want_len: usize,
    mut ok: impl FnMut(usize, T) -> bool,
    mut want: impl FnMut(usize) -> String,
) -> Result<usize, String> {
    if got.len() != want_len {
        return Err(format!("output has {} elements, expected {want_len}", got.len()));
    }
    let mut bad = 0usize;
    let mut first = None;
    for (i, &g) in got.iter().enumerate() {
        if !ok(i, g) {
            bad += 1;
            if first.is_none() {
                first = Some((i, g));
            }
        }
    }
    match first {
        None => Ok(0),
        Some((i, g)) => Err(format!(
            "{bad} of {want_len} differ; first [{i}]: got {g:?}, want {}",
            want(i)
        )),
    }
}

fn mega(n: usize) -> String {
    if n >= 1 << 20 && n & ((1 << 20) - 1) == 0 {
        format!("{}Mi", n >> 20)
    } else if n >= 1 << 10 && n & ((1 << 10) - 1) == 0 {
        format!("{}Ki", n >> 10)
    } else {
        n.to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// The kernels
// ---------------------------------------------------------------------------------------------

fn vecadd(n: usize) -> Job {
    let mut r = Rng::new(1);
    let a: Vec<f32> = (0..n).map(|_| r.signed()).collect();
    let b: Vec<f32> = (0..n).map(|_| r.signed()).collect();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    Job {
        name: "vecadd",
        class: Class::Memory,
        desc: format!("{} floats", mega(n)),
        args: vec![input(&a), input(&b), output(4 * n)],
        offset: vec![],
        global: vec![n],
        local: vec![],
        work: 12.0 * n as f64,
        unit: "GB/s",
        check: Box::new(move |out| {
            compare(
                &floats(&out[0]),
                n,
                |i, g| g.to_bits() == want[i].to_bits(),
                |i| format!("{:?}", want[i]),
            )
            .map(|_| "ok".into())
        }),
    }
}

fn saxpy(n: usize) -> Job {
    let off = 1000usize;
    let alpha = 2.5f32;
    let mut r = Rng::new(2);
    let x: Vec<f32> = (0..n).map(|_| r.signed()).collect();
    let y: Vec<f32> = (0..n).map(|_| r.signed()).collect();
    let sentinel = -7.0f32;
    let z0 = vec![sentinel; n];
    Job {
        name: "saxpy",
        class: Class::Memory,
        desc: format!("{} floats, offset {off}", mega(n)),
        args: vec![
            scalar(alpha),
            input(&x),
            input(&y),
            Arg::Buf {
                size: 4 * n,
                init: Some(bytes(&z0)),
                out: true,
            },
        ],
        offset: vec![off],
        global: vec![n - off],
        local: vec![],
        work: 12.0 * (n - off) as f64,
        unit: "GB/s",
        check: Box::new(move |out| {
            // Below the offset nothing may be written; above it, alpha*x+y rounded once or twice
            // (a fused multiply-add is allowed).
            let want = |i: usize| {
                if i < off {
                    sentinel as f64
                } else {
                    alpha as f64 * x[i] as f64 + y[i] as f64
                }
            };
            compare(
                &floats(&out[0]),
                n,
                |i, g| {
                    if i < off {
                        g.to_bits() == sentinel.to_bits()
                    } else {
                        let tol = 2.0 * f32::EPSILON as f64 * ((alpha * x[i]).abs() as f64 + y[i].abs() as f64);
                        (g as f64 - want(i)).abs() <= tol
                    }
                },
                |i| format!("{:?}", want(i) as f32),
            )
            .map(|_| "ok".into())
        }),
    }
}

fn reduce(n: usize) -> Job {
    let local = 256usize;
    let per_item = 8usize;
    let global = n / per_item;
    let groups = global / local;
    let mut r = Rng::new(3);
    let data: Vec<f32> = (0..n).map(|_| r.unit()).collect();
    // Group g sums, for each of its work-items gid, data[gid + k * global].
    let mut want = vec![0f64; groups];
    for (i, &v) in data.iter().enumerate() {
        want[(i % global) / local] += v as f64;
    }
    Job {
        name: "reduce",
        class: Class::Memory,
        desc: format!("{} floats, {groups} groups of {local}", mega(n)),
        args: vec![
            input(&data),
            output(4 * groups),
            Arg::Local(4 * local),
            scalar(n as u32),
        ],
        offset: vec![],
        global: vec![global],
        local: vec![local],
        work: 4.0 * n as f64,
        unit: "GB/s",
        check: Box::new(move |out| {
            // Values in [0, 1): the float sum of 2048 of them is good to well under 1e-4.
            compare(
                &floats(&out[0]),
                groups,
                |i, g| (g as f64 - want[i]).abs() <= 1e-4 * want[i] + 1e-6,
                |i| format!("{:?}", want[i] as f32),
            )
            .map(|_| "ok".into())
        }),
    }
}

fn doubles(b: &[u8]) -> Vec<f64> {
    cts::from_bytes(b)
}

fn daxpy(n: usize) -> Job {
    let alpha = -1.75f64;
    let mut r = Rng::new(21);
    let x: Vec<f64> = (0..n).map(|_| r.signed() as f64 + r.unit() as f64 * 1e-7).collect();
    let y: Vec<f64> = (0..n).map(|_| r.signed() as f64 - r.unit() as f64 * 1e-7).collect();
    Job {
        name: "daxpy",
        class: Class::Memory,
        desc: format!("{} doubles", mega(n)),
        args: vec![scalar(alpha), input(&x), input(&y), output(8 * n)],
        offset: vec![],
        global: vec![n],
        local: vec![],
        work: 24.0 * n as f64,
        unit: "GB/s",
        check: Box::new(move |out| {
            // alpha*x+y rounded once (fused) or twice.
            compare(
                &doubles(&out[0]),
                n,
                |i, g| {
                    let want = alpha * x[i] + y[i];
                    let tol = 2.0 * f64::EPSILON * ((alpha * x[i]).abs() + y[i].abs());
                    (g - want).abs() <= tol
                },
                |i| format!("{:?}", alpha * x[i] + y[i]),
            )
            .map(|_| "ok".into())
        }),
    }
}

fn ddot(n: usize) -> Job {
    let local = 256usize;
    let per_item = 8usize;
    let global = n / per_item;
    let groups = global / local;
    let mut r = Rng::new(22);
    let x: Vec<f64> = (0..n).map(|_| r.signed() as f64).collect();
    let y: Vec<f64> = (0..n).map(|_| r.signed() as f64 * 0.5).collect();
    // Group g sums x[i] * y[i] for the i whose work-item (i % global) is in it; the error bound
    // follows the sum of the magnitudes.
    let mut want = vec![0f64; groups];
    let mut mag = vec![0f64; groups];
    for i in 0..n {
        let g = (i % global) / local;
        want[g] += x[i] * y[i];
        mag[g] += (x[i] * y[i]).abs();
    }
    let total: f64 = want.iter().sum();
    Job {
        name: "ddot",
        class: Class::Memory,
        desc: format!("{} doubles, {groups} groups of {local}", mega(n)),
        args: vec![
            input(&x),
            input(&y),
            output(8 * groups),
            Arg::Local(8 * local),
            scalar(n as u32),
        ],
        offset: vec![],
        global: vec![global],
        local: vec![local],
        work: 16.0 * n as f64,
        unit: "GB/s",
        check: Box::new(move |out| {
            let got = doubles(&out[0]);
            let tol = |i: usize| 4.0 * (per_item + local) as f64 * f64::EPSILON * mag[i];
            compare(
                &got,
                groups,
                |i, g| (g - want[i]).abs() <= tol(i),
                |i| format!("{:?}", want[i]),
            )?;
            let sum: f64 = got.iter().sum();
            if (sum - total).abs() > 1e-9 * total.abs().max(1.0) {
                return Err(format!("partial sums add up to {sum}, want {total}"));
            }
            Ok("ok".into())
        }),
    }
}

fn histogram(n: usize) -> Job {
    const BINS: usize = 256;
    let local = 256usize;
    let per_item = 16usize;
    let groups = n / (local * per_item);
    let mut r = Rng::new(4);
    // The bin (low byte) is the smaller of two random bytes, which skews the counts towards
    // the low bins, so some bins are contended.
    let data: Vec<u32> = (0..n)
        .map(|_| {
            let (a, b) = (r.next_u32(), r.next_u32() & 255);
            (a & !255) | (a & 255).min(b)
        })
        .collect();
    let mut want = vec![0u32; groups * BINS];
    for (i, &v) in data.iter().enumerate() {
        want[(i / (local * per_item)) * BINS + (v as usize & (BINS - 1))] += 1;
    }
    Job {
        name: "histogram",
        class: Class::Memory,
        desc: format!("{} uints, 256 bins, {groups} groups of {local}", mega(n)),
        args: vec![input(&data), output(4 * groups * BINS), scalar(per_item as u32)],
        offset: vec![],
        global: vec![groups * local],
        local: vec![local],
        work: 4.0 * n as f64,
        unit: "GB/s",
        check: Box::new(move |out| {
            compare(
                &uints(&out[0]),
                groups * BINS,
                |i, g| g == want[i],
                |i| want[i].to_string(),
            )
            .map(|_| "ok".into())
        }),
    }
}

fn sgemm(n: usize) -> Job {
    let mut r = Rng::new(5);
    let a: Vec<f32> = (0..n * n).map(|_| r.signed()).collect();
    let b: Vec<f32> = (0..n * n).map(|_| r.signed()).collect();
    // Reference in f64, with the sum of |a_ik * b_kj| to bound the float error.
    let mut want = vec![0f64; n * n];
    let mut mag = vec![0f64; n * n];
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k] as f64;
            let row = &b[k * n..(k + 1) * n];
            let w = &mut want[i * n..(i + 1) * n];
            let m = &mut mag[i * n..(i + 1) * n];
            for j in 0..n {
                let p = aik * row[j] as f64;
                w[j] += p;
                m[j] += p.abs();
            }
        }
    }
    let tol = n as f64 * f32::EPSILON as f64;
    Job {
        name: "sgemm",
        class: Class::Compute,
        desc: format!("{n}x{n}, 16x16 tiles"),
        args: vec![scalar(n as u32), input(&a), input(&b), output(4 * n * n)],
        offset: vec![],
        global: vec![n, n],
        local: vec![16, 16],
        work: 2.0 * (n as f64).powi(3),
        unit: "GFLOP/s",
        check: Box::new(move |out| {
            compare(
                &floats(&out[0]),
                n * n,
                |i, g| (g as f64 - want[i]).abs() <= tol * mag[i] + 1e-6,
                |i| format!("{:?}", want[i] as f32),
            )
            .map(|_| "ok".into())
        }),
    }
}

fn mandelbrot(w: usize) -> Job {
    let h = w;
    let max_iter = 256u32;
    let (x0, y0) = (-2.0f32, -1.25f32);
    let dx = 2.5f32 / w as f32;
    let dy = 2.5f32 / h as f32;
    let mut want = vec![0u32; w * h];
    for py in 0..h {
        for px in 0..w {
            let cr = x0 + px as f32 * dx;
            let ci = y0 + py as f32 * dy;
            let (mut zr, mut zi, mut it) = (0f32, 0f32, 0u32);
            while it < max_iter && zr * zr + zi * zi <= 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                it += 1;
            }
            want[py * w + px] = it;
        }
    }
    let iters: f64 = want.iter().map(|&v| v as f64).sum();
    Job {
        name: "mandelbrot",
        class: Class::Compute,
        desc: format!("{w}x{h}, {max_iter} iterations max"),
        args: vec![
            output(4 * w * h),
            scalar(w as u32),
            scalar(max_iter),
            scalar(x0),
            scalar(y0),
            scalar(dx),
            scalar(dy),
        ],
        offset: vec![],
        global: vec![w, h],
        local: vec![],
        work: iters,
        unit: "Giter/s",
        check: Box::new(move |out| {
            // The kernel forbids contraction, so every pixel should match exactly; a handful of
            // pixels on the set's boundary may still differ if an implementation rounds one
            // operation differently, which is reported but tolerated up to 0.01%.
            let got = uints(&out[0]);
            match compare(&got, w * h, |i, g| g == want[i], |i| want[i].to_string()) {
                Ok(_) => Ok("ok".into()),
                Err(msg) => {
                    let bad = got.iter().zip(&want).filter(|(g, v)| g != v).count();
                    if got.len() == want.len() && bad * 10_000 <= w * h {
                        Ok(format!("ok ({bad} px differ)"))
                    } else {
                        Err(msg)
                    }
                }
            }
        }),
    }
}

fn nbody(n: usize) -> Job {
    let local = 128usize;
    let eps2 = 0.01f32;
    let mut r = Rng::new(6);
    let pos: Vec<[f32; 4]> = (0..n)
        .map(|_| [r.signed(), r.signed(), r.signed(), 0.5 + r.unit()])
        .collect();
    let mut want = vec![[0f64; 3]; n];
    let mut mag = vec![0f64; n];
    for i in 0..n {
        let p = pos[i];
        let (mut a, mut m) = ([0f64; 3], 0f64);
        for q in &pos {
            let d = [(q[0] - p[0]) as f64, (q[1] - p[1]) as f64, (q[2] - p[2]) as f64];
            let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2 as f64;
            let s = q[3] as f64 / (d2 * d2.sqrt());
            for c in 0..3 {
                a[c] += d[c] * s;
            }
            m += (d2.sqrt()) * s;
        }
        want[i] = a;
        mag[i] = m;
    }
    let tol = 1e-5 + n as f64 * f32::EPSILON as f64;
    Job {
        name: "nbody",
        class: Class::Compute,
        desc: format!("{n} bodies, groups of {local}"),
        args: vec![
            input(&pos),
            output(16 * n),
            Arg::Local(16 * local),
            scalar(n as u32),
            scalar(eps2),
        ],
        offset: vec![],
        global: vec![n],
        local: vec![local],
        work: 20.0 * (n as f64) * (n as f64),
        unit: "GFLOP/s",
        check: Box::new(move |out| {
            let got = floats(&out[0]);
            compare(
                &got,
                4 * n,
                |i, g| {
                    let (b, c) = (i / 4, i % 4);
                    if c == 3 {
                        g == 0.0
                    } else {
                        (g as f64 - want[b][c]).abs() <= tol * mag[b]
                    }
                },
                |i| format!("{:?}", if i % 4 == 3 { 0.0 } else { want[i / 4][i % 4] as f32 }),
            )
            .map(|_| "ok".into())
        }),
    }
}

/// vec4.cl (issue 15): float4/int4 arithmetic carried around a loop. The int4 results are exact;
/// the float4 ones within a relative bound (mad and the `x * 0.999f + s` contraction may round
/// once or twice).
fn vec4(n: usize, iters: u32) -> Job {
    let mut r = Rng::new(15);
    let a: Vec<[f32; 4]> = (0..n).map(|_| [0.0; 4].map(|_: f32| 4.0 * r.signed())).collect();
    let b: Vec<[i32; 4]> = (0..n).map(|_| [0; 4].map(|_: i32| r.next_u32() as i32)).collect();
    let mut want_f = vec![[0f32; 4]; n];
    let mut want_i = vec![[0i32; 4]; n];
    for g in 0..n {
        let mut x = a[g];
        let k = b[g];
        let mut acc = [0f32; 4];
        let mut s = [0.5f32, 0.25, 0.125, 0.0625];
        let mut h = k;
        const M: [i32; 4] = [3, 5, 7, 9];
        for _ in 0..iters {
            let sw = [s[3], s[2], s[1], s[0]];
            for c in 0..4 {
                acc[c] = x[c].mul_add(s[c], acc[c]);
            }
            for c in 0..4 {
                x[c] = (x[c] * 0.999 + sw[c]).clamp(-4.0, 4.0);
            }
            let ar = [acc[1], acc[2], acc[3], acc[0]];
            for c in 0..4 {
                s[c] = s[c].max(ar[c] * 0.001);
            }
            for c in 0..4 {
                let t = (h[c] ^ (h[c] << 3)).wrapping_add(k[c].wrapping_mul(M[c]));
                h[c] = if t < 0 { t >> 1 } else { t };
            }
        }
        want_f[g] = [0, 1, 2, 3].map(|c| acc[c] + x[c]);
        want_i[g] = h;
    }
    Job {
        name: "vec4",
        class: Class::Compute,
        desc: format!("{n} work-items x {iters} rounds of float4 + int4 arithmetic"),
        args: vec![input(&a), input(&b), output(16 * n), output(16 * n), scalar(iters)],
        offset: vec![],
        global: vec![n],
        local: vec![],
        // Per round: 4 lanes x (mad 2 + mul-add 2 + clamp 2 + fmax 1 + mul 1) float operations
        // and 4 x (shift, xor, mul, add, compare, shift, select) integer ones.
        work: 60.0 * n as f64 * iters as f64,
        unit: "Gop/s",
        check: Box::new(move |out| {
            let gf = floats(&out[0]);
            let gi: Vec<i32> = cts::from_bytes(&out[1]);
            compare(
                &gf,
                4 * n,
                |i, v| {
                    let w = want_f[i / 4][i % 4];
                    (v - w).abs() <= 1e-3 * w.abs().max(1.0)
                },
                |i| format!("{}", want_f[i / 4][i % 4]),
            )?;
            compare(
                &gi,
                4 * n,
                |i, v| v == want_i[i / 4][i % 4],
                |i| want_i[i / 4][i % 4].to_string(),
            )
            .map(|_| "ok".into())
        }),
    }
}

/// The host reference of hash.cl for one work-item: its four lanes (messages) together, since
/// the run-time mixing choice is taken from lane 0 (`a.x`) for all four.
fn hash_work_item(w0: &[[u32; 4]; 16]) -> [[u32; 4]; 4] {
    let bytealign = |hi: u32, lo: u32, s: u32| {
        let sh = (s & 3) * 8;
        if sh == 0 {
            lo
        } else {
            (lo >> sh) | (hi << (32 - sh))
        }
    };
    const SHIFTS: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
    let mut w = *w0;
    let mut st = [
        [0x67452301u32; 4],
        [0xefcdab89u32; 4],
        [0x98badcfeu32; 4],
        [0x10325476u32; 4],
    ];
    for it in 0..HASH_ITERATIONS {
        let start = st;
        for r in 0..HASH_ROUNDS {
            let q = (r >> 4) & 3;
            let g = match q {
                0 => r & 15,
                1 => (5 * r + 1) & 15,
                2 => (3 * r + 5) & 15,
                _ => (7 * r) & 15,
            } as usize;
            let k = (r + 1).wrapping_mul(0x9e3779b9) ^ (r << 24);
            let shift = SHIFTS[(q * 4 + (r & 3)) as usize];
            for l in 0..4 {
                let [a, b, c, d] = [st[0][l], st[1][l], st[2][l], st[3][l]];
                let f = match q {
                    0 => (b & c) | (!b & d),
                    1 => (b & c) | (b & d) | (c & d),
                    2 => b ^ c ^ d,
                    _ => c ^ (b | !d),
                };
                let x = a.wrapping_add(f).wrapping_add(k).wrapping_add(w[g][l]);
                st[0][l] = d;
                st[3][l] = c;
                st[2][l] = b;
                st[1][l] = b.wrapping_add(x.rotate_left(shift));
            }
        }
        for (s, s0) in st.iter_mut().zip(&start) {
            for l in 0..4 {
                s[l] = s[l].wrapping_add(s0[l]);
            }
        }
        let sel = (st[0][0] ^ it) & 3;
        let mut mix = [0u32; 4];
        for (l, m) in mix.iter_mut().enumerate() {
            let [a, b, c, d] = [st[0][l], st[1][l], st[2][l], st[3][l]];
            *m = match sel {
                0 => b ^ c,
                1 => bytealign(c, d, 1),
                2 => a.rotate_left(13),
                _ => d.wrapping_add(a),
            };
        }
        // In place, in order, as the kernel does: word 15 reads the new word 0.
        for i in 0..16 {
            for l in 0..4 {
                w[i][l] = bytealign(w[(i + 1) & 15][l], w[i][l], i as u32) ^ mix[l];
            }
        }
    }
    st
}

fn hash(n: usize) -> Job {
    // n work-items, each hashing four messages of 16 words (one per uint4 lane).
    let mut rng = Rng::new(14);
    let msg: Vec<u32> = (0..n * 64).map(|_| rng.next_u32()).collect();
    let mut want = vec![0u32; n * 16];
    for g in 0..n {
        let mut w = [[0u32; 4]; 16];
        for (i, word) in w.iter_mut().enumerate() {
            word.copy_from_slice(&msg[(g * 16 + i) * 4..(g * 16 + i) * 4 + 4]);
        }
        for (j, lanes) in hash_work_item(&w).iter().enumerate() {
            want[(g * 4 + j) * 4..(g * 4 + j) * 4 + 4].copy_from_slice(lanes);
        }
    }
    Job {
        name: "hash",
        class: Class::Compute,
        desc: format!("{} messages, {HASH_ITERATIONS}x{HASH_ROUNDS} rounds", n * 4),
        args: vec![input(&msg), output(4 * n * 16)],
        offset: vec![],
        global: vec![n],
        local: vec![],
        // Rounds of the compression per run (messages x iterations x rounds).
        work: (n * 4) as f64 * HASH_ITERATIONS as f64 * HASH_ROUNDS as f64,
        unit: "Grounds/s",
        check: Box::new(move |out| {
            let got = uints(&out[0]);
            compare(&got, want.len(), |i, g| g == want[i], |i| format!("{:#x}", want[i])).map(|_| "ok".into())
        }),
    }
}

fn empty() -> Job {
    Job {
        name: "empty",
        class: Class::Launch,
        desc: "1 work-item, no arguments".into(),
        args: vec![],
        offset: vec![],
        global: vec![1],
        local: vec![],
        work: 0.0,
        unit: "",
        check: Box::new(|_| Ok("ok".into())),
    }
}

// ---------------------------------------------------------------------------------------------
// Image reads
// ---------------------------------------------------------------------------------------------

/// The addressing modes of the image benchmarks, by their name suffix.
const ADDRESSING: [(&str, u32); 5] = [
    ("none", cts::CL_ADDRESS_NONE),
    ("clamp", cts::CL_ADDRESS_CLAMP),
    ("edge", cts::CL_ADDRESS_CLAMP_TO_EDGE),
    ("repeat", cts::CL_ADDRESS_REPEAT),
    ("mirror", cts::CL_ADDRESS_MIRRORED_REPEAT),
];

/// The texel indices and weight of one axis at normalized coordinate `s` on `n` texels
/// (OpenCL SPIR-V environment 7.2), nearest (`i0`, weight 0) or linear. An index outside
/// `0..n` reads the border colour.
fn axis(s: f32, n: usize, addressing: u32, linear: bool) -> (i64, i64, f32) {
    let nf = n as f32;
    let n = n as i64;
    let floor = |v: f32| v.floor() as i64;
    let frac = |v: f32| v - v.floor();
    match addressing {
        cts::CL_ADDRESS_REPEAT => {
            let u = (s - s.floor()) * nf;
            if linear {
                let i0 = floor(u - 0.5);
                let (i0, i1) = (
                    if i0 < 0 { i0 + n } else { i0 },
                    if i0 + 1 > n - 1 { i0 + 1 - n } else { i0 + 1 },
                );
                (i0, i1, frac(u - 0.5))
            } else {
                let i = floor(u);
                (if i > n - 1 { i - n } else { i }, 0, 0.0)
            }
        }
        cts::CL_ADDRESS_MIRRORED_REPEAT => {
            let u = (s - 2.0 * (0.5 * s).round_ties_even()).abs() * nf;
            if linear {
                let i0 = floor(u - 0.5);
                (i0.max(0), (i0 + 1).min(n - 1), frac(u - 0.5))
            } else {
                (floor(u).min(n - 1), 0, 0.0)
            }
        }
        a => {
            let u = s * nf;
            let fix = |i: i64| match a {
                cts::CL_ADDRESS_CLAMP_TO_EDGE => i.clamp(0, n - 1),
                cts::CL_ADDRESS_CLAMP => i.clamp(-1, n),
                _ => i,
            };
            if linear {
                let i0 = floor(u - 0.5);
                (fix(i0), fix(i0 + 1), frac(u - 0.5))
            } else {
                (fix(floor(u)), 0, 0.0)
            }
        }
    }
}

/// `image_sample`: a 3x3 blur of a `w` x `w` RGBA image (UNORM_INT8 or FLOAT) through a
/// linear or nearest sampler with normalized coordinates, for the benchmark `name`
/// (`image_<filter>_<rgba8|float>_<addressing>`).
fn image_sample(name: &'static str, w: usize) -> Option<Job> {
    let mut parts = name.split('_').skip(1);
    let linear = parts.next()? == "linear";
    let unorm8 = parts.next()? == "rgba8";
    let mode = parts.next()?;
    let addressing = ADDRESSING.iter().find(|(m, _)| *m == mode)?.1;
    let h = w;
    let mut r = Rng::new(9);
    let texels: Vec<f32> = (0..w * h * 4).map(|_| r.unit()).collect();
    let (format, data, value): (_, Vec<u8>, Vec<f32>) = if unorm8 {
        let b: Vec<u8> = texels.iter().map(|&v| (v * 256.0) as u8).collect();
        let v = b.iter().map(|&x| x as f32 / 255.0).collect();
        (cts::CL_UNORM_INT8, b, v)
    } else {
        (cts::CL_FLOAT, bytes(&texels), texels)
    };
    // The texel (i, j), or the border colour (0, 0, 0, 0) outside.
    let texel = |i: i64, j: i64| -> [f32; 4] {
        if (0..w as i64).contains(&i) && (0..h as i64).contains(&j) {
            let at = 4 * (j as usize * w + i as usize);
            [value[at], value[at + 1], value[at + 2], value[at + 3]]
        } else {
            [0.0; 4]
        }
    };
    let (inv_w, inv_h) = (1.0 / w as f32, 1.0 / h as f32);
    let mut want = vec![[0f32; 4]; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0f32; 4];
            for dy in -1..=1 {
                for dx in -1..=1 {
                    // As the kernel computes them (exact: w and h are powers of two).
                    let s = (x as f32 + 0.5) * inv_w + dx as f32 * 1.25 * inv_w;
                    let t = (y as f32 + 0.5) * inv_h + dy as f32 * 1.25 * inv_h;
                    let (i0, i1, a) = axis(s, w, addressing, linear);
                    let (j0, j1, b) = axis(t, h, addressing, linear);
                    let v: [f32; 4] = if linear {
                        let (t00, t10, t01, t11) = (texel(i0, j0), texel(i1, j0), texel(i0, j1), texel(i1, j1));
                        std::array::from_fn(|c| {
                            (1.0 - a) * (1.0 - b) * t00[c]
                                + a * (1.0 - b) * t10[c]
                                + (1.0 - a) * b * t01[c]
                                + a * b * t11[c]
                        })
                    } else {
                        texel(i0, j0)
                    };
                    for c in 0..4 {
                        acc[c] += v[c];
                    }
                }
            }
            want[y * w + x] = acc.map(|v| v * (1.0 / 9.0));
        }
    }
    // CL_ADDRESS_NONE leaves reads outside the image undefined: only pixels whose taps all
    // fall inside are checked.
    let margin = if addressing == cts::CL_ADDRESS_NONE { 3 } else { 0 };
    let checked = move |i: usize| {
        let (x, y) = (i % w, i / w);
        (margin..w - margin).contains(&x) && (margin..h - margin).contains(&y)
    };
    Some(Job {
        name,
        class: Class::Image,
        desc: format!(
            "{w}x{h} {}, 3x3 {} taps",
            if unorm8 { "RGBA8" } else { "RGBA float" },
            if linear { "linear" } else { "nearest" }
        ),
        args: vec![
            Arg::Image {
                format: cts::cl_image_format {
                    image_channel_order: cts::CL_RGBA,
                    image_channel_data_type: format,
                },
                width: w,
                height: h,
                data,
                out: false,
            },
            Arg::Sampler {
                addressing,
                filter: if linear {
                    cts::CL_FILTER_LINEAR
                } else {
                    cts::CL_FILTER_NEAREST
                },
            },
            output(16 * w * h),
            scalar(inv_w),
            scalar(inv_h),
        ],
        offset: vec![],
        global: vec![w, h],
        local: vec![],
        work: 9.0 * (w * h) as f64,
        unit: "Gread/s",
        check: Box::new(move |out| {
            let got = floats(&out[0]);
            compare(
                &got.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect::<Vec<_>>(),
                w * h,
                |i, g| !checked(i) || (0..4).all(|c| (g[c] - want[i][c]).abs() <= 2e-5),
                |i| format!("{:?}", want[i]),
            )
            .map(|_| "ok".into())
        }),
    })
}

/// `image_write`: a 3-tap horizontal blur of a `w` x `w` RGBA8 image into a second one
/// (three read_imagef and one write_imagef per pixel), checked against the host's blur within
/// one step of 8 bits (the kernel's products may be contracted into fused multiply-adds).
fn image_write(w: usize) -> Option<Job> {
    let h = w;
    let mut r = Rng::new(17);
    let src: Vec<u8> = (0..w * h * 4).map(|_| (r.unit() * 256.0) as u8).collect();
    let at = |x: usize, y: usize, c: usize| src[4 * (y * w + x) + c] as f32 / 255.0;
    let want: Vec<u8> = (0..w * h * 4)
        .map(|i| {
            let (c, p) = (i % 4, i / 4);
            let (x, y) = (p % w, p / w);
            let v = 0.5 * at(x, y, c) + 0.25 * (at(x.saturating_sub(1), y, c) + at((x + 1).min(w - 1), y, c));
            (v.clamp(0.0, 1.0) * 255.0).round_ties_even() as u8
        })
        .collect();
    let rgba8 = cts::cl_image_format {
        image_channel_order: cts::CL_RGBA,
        image_channel_data_type: cts::CL_UNORM_INT8,
    };
    Some(Job {
        name: "image_write",
        class: Class::Image,
        desc: format!("{w}x{h} RGBA8 -> RGBA8, 3 reads and 1 write a pixel"),
        args: vec![
            Arg::Image {
                format: rgba8,
                width: w,
                height: h,
                data: src,
                out: false,
            },
            Arg::Image {
                format: rgba8,
                width: w,
                height: h,
                data: vec![0; w * h * 4],
                out: true,
            },
        ],
        offset: vec![],
        global: vec![w, h],
        local: vec![],
        work: (w * h) as f64,
        unit: "Gpixel/s",
        check: Box::new(
            move |out| match out[0].iter().zip(&want).position(|(g, e)| g.abs_diff(*e) > 1) {
                None => Ok("ok".into()),
                Some(i) => Err(format!("byte {i}: {} where the host has {}", out[0][i], want[i])),
            },
        ),
    })
}
