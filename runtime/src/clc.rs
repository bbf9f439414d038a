//! OpenCL C to SPIR-V: clang compiles the source to LLVM bitcode for `spir64`, and the
//! SPIR-V/LLVM translator turns that into SPIR-V, which then takes Clift's SPIR-V path. Both
//! programs are found at run time.

use crate::cache;
use crate::options::Options;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

mod builtin_dims;
pub mod dump;
mod pch;
mod pipeline;
pub mod server;
pub mod translate;

/// The external programs: `CLIFT_CLANG` / `CLIFT_LLVM_SPIRV` when set, else the first of the
/// versioned and plain names found on PATH.
pub struct Toolchain {
    pub clang: PathBuf,
    pub llvm_spirv: PathBuf,
    /// LLVM's `opt` of clang's version, which runs the optimizer (see `clc/translate.rs`);
    /// without it clang optimizes by itself.
    pub opt: Option<PathBuf>,
}

impl Toolchain {
    fn tools(&self) -> translate::Tools<'_> {
        translate::Tools {
            clang: &self.clang,
            opt: self.opt.as_deref(),
            llvm_spirv: &self.llvm_spirv,
        }
    }
}

const CLANG_NAMES: &[&str] = &["clang-15", "clang-16", "clang-17", "clang-14", "clang"];
const LLVM_SPIRV_NAMES: &[&str] = &[
    "llvm-spirv-15",
    "llvm-spirv-16",
    "llvm-spirv-17",
    "llvm-spirv-14",
    "llvm-spirv",
];

fn find(env: &str, names: &[&str]) -> Option<PathBuf> {
    // An override that names no file means "no compiler", not "search elsewhere".
    if let Some(path) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// The toolchain, or a message saying what was looked for and how to install it.
pub fn toolchain() -> Result<&'static Toolchain, &'static str> {
    static FOUND: OnceLock<Result<Toolchain, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let clang = find("CLIFT_CLANG", CLANG_NAMES);
            let llvm_spirv = find("CLIFT_LLVM_SPIRV", LLVM_SPIRV_NAMES);
            match (clang, llvm_spirv) {
                (Some(clang), Some(llvm_spirv)) => {
                    let opt = translate::find_opt(&clang);
                    Ok(Toolchain { clang, llvm_spirv, opt })
                }
                (clang, llvm_spirv) => {
                    let mut missing = Vec::new();
                    if clang.is_none() {
                        missing.push(format!("clang (looked for $CLIFT_CLANG, then {} on PATH)", CLANG_NAMES.join(", ")));
                    }
                    if llvm_spirv.is_none() {
                        missing.push(format!("llvm-spirv (looked for $CLIFT_LLVM_SPIRV, then {} on PATH)", LLVM_SPIRV_NAMES.join(", ")));
                    }
                    Err(format!(
                        "OpenCL C compiler not available: {} not found. On Debian: apt-get install clang-15 llvm-spirv-15",
                        missing.join(" and ")
                    ))
                }
            }
        })
        .as_ref()
        .map_err(String::as_str)
}

/// A scratch directory for one compilation, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    /// A new directory of our own (created here, never one that existed: the roots are shared
    /// with other users), readable by us only. It goes to `$TMPDIR` when that is set; else to
    /// /dev/shm, a memory file system on Linux, when we can create it there: a build creates
    /// and removes six files, which costs about 3 ms on a disk's /tmp and 0.4 ms in memory;
    /// else to /tmp.
    fn new() -> std::io::Result<Scratch> {
        use std::os::unix::fs::DirBuilderExt;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut roots = Vec::with_capacity(2);
        if std::env::var_os("TMPDIR").is_none_or(|d| d.is_empty()) {
            roots.push(PathBuf::from("/dev/shm"));
        }
        roots.push(std::env::temp_dir());
        let mut last = std::io::Error::other("no scratch directory root");
        for root in &roots {
            // A name taken (by an earlier process with our pid, or anyone) is skipped.
            for _ in 0..64 {
                let n = COUNTER.fetch_add(1, Ordering::Relaxed);
                let dir = root.join(format!("clift-clc-{}-{n}", std::process::id()));
                match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                    Ok(()) => return Ok(Scratch(dir)),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = e,
                    Err(e) => {
                        last = e;
                        break;
                    }
                }
            }
        }
        Err(last)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `-cl-ext` list that makes clang define exactly the extension and feature macros the
/// device reports (made once: the device's features are fixed).
fn cl_ext_flag() -> &'static str {
    static FLAG: OnceLock<String> = OnceLock::new();
    FLAG.get_or_init(make_cl_ext_flag)
}

fn make_cl_ext_flag() -> String {
    let f = &crate::device::FEATURES;
    let mut items = vec!["-all".to_string()];
    items.extend(f.extensions.iter().map(|(n, _)| format!("+{n}")));
    items.extend(f.opencl_c_features.iter().map(|(n, _)| format!("+{n}")));
    format!("-cl-ext={}", items.join(","))
}

/// Feature and extension macros clang or its default header may define for the `spir64`
/// target. Those the device does not report are undefined after the default header, so that
/// the macros agree exactly with CL_DEVICE_OPENCL_C_FEATURES and CL_DEVICE_EXTENSIONS.
const KNOWN_MACROS: &[&str] = &[
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_fp16",
    "__opencl_c_fp64",
    "__opencl_c_generic_address_space",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_min_max",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "cl_khr_fp16",
    "cl_khr_fp64",
    "cl_khr_gl_msaa_sharing",
    "cl_khr_mipmap_image",
    "cl_khr_mipmap_image_writes",
    "cl_khr_subgroups",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_rotate",
    "cl_khr_extended_bit_ops",
    "cl_khr_integer_dot_product",
    "cl_ext_float_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store",
    "cl_khr_3d_image_writes",
    "cl_khr_srgb_image_writes",
    "cl_khr_gl_sharing",
    "cl_khr_spir",
    "cl_khr_expect_assume",
    "cl_khr_kernel_clock",
    "cl_ext_image_raw10_raw12",
];

/// The `-include`d header that undefines the macros of features the device lacks, and
/// defines the `CLK_*` constants of listed image formats the default header misses (made once:
/// it depends only on the device's fixed features and image formats).
fn undef_header() -> &'static str {
    static HEADER: OnceLock<String> = OnceLock::new();
    HEADER.get_or_init(make_undef_header)
}

fn make_undef_header() -> String {
    let f = &crate::device::FEATURES;
    let reported = |m: &str| f.has_extension(m) || f.has_feature(m);
    let mut text = String::from("/* Clift: feature and extension macros the device does not report. */\n");
    for m in KNOWN_MACROS.iter().filter(|m| !reported(m)) {
        text.push_str(&format!("#undef {m}\n"));
    }
    // OpenCL C 6.13.10: __OPENCL_VERSION__ is the device's OpenCL version (300); clang leaves
    // it to the implementation (it defines only __OPENCL_C_VERSION__).
    text.push_str("#ifndef __OPENCL_VERSION__\n#define __OPENCL_VERSION__ 300\n#endif\n");
    // Reported extensions whose macro clang-15 does not define (its built-ins, here
    // __builtin_expect and __builtin_assume, it has anyway).
    for m in [
        "__opencl_c_fp16",
        "cl_khr_expect_assume",
        "cl_khr_kernel_clock",
        "__opencl_c_kernel_clock_scope_device",
        "__opencl_c_kernel_clock_scope_work_group",
    ]
    .iter()
    .filter(|m| reported(m))
    {
        text.push_str(&format!("#ifndef {m}\n#define {m} 1\n#endif\n"));
    }
    // cl_khr_kernel_clock built-ins: calls of these imports become OpReadClockKHR in the
    // SPIR-V linker (jit::spirv::link).
    for scope in ["device", "work_group"] {
        if reported(&format!("__opencl_c_kernel_clock_scope_{scope}")) {
            text.push_str(&format!(
                "ulong clock_read_{scope}(void);\nuint2 clock_read_hilo_{scope}(void);\n"
            ));
        }
    }
    text.push_str(&crate::clc_image_constants::header());
    text
}

/// What a compilation produced: SPIR-V and clang's diagnostics (warnings included).
pub struct Output {
    pub spirv: Vec<u8>,
    pub log: String,
}

/// Names the way clang and llvm-spirv are driven; change it whenever their arguments change,
/// so that no cache entry made the old way is served.
const PIPELINE: &str = "clang -c -target spir64 -emit-llvm, -include undef header; opt -O2 edited, legalizations; llvm-spirv with arg type strings; builtin dimension repair; native ints second; -cl-opt-disable and fallback: -O1 without LLVM passes; --spirv-ext of the reported extensions; no-hoist-common-insts; v10";

/// Everything that decides the SPIR-V of a compilation, for the cache key.
fn cache_key(tools: &Toolchain, source: &str, headers: &[(String, String)], options: &Options) -> String {
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| format!("{} {} {:?}", p.display(), m.len(), m.modified().ok()))
            .unwrap_or_default()
    };
    let mut key = cache::Key::default()
        .part(env!("CARGO_PKG_VERSION").as_bytes())
        .part(stamp(&tools.clang).as_bytes())
        .part(stamp(&tools.llvm_spirv).as_bytes())
        .part(tools.opt.as_deref().map(stamp).unwrap_or_default().as_bytes())
        .part(PIPELINE.as_bytes())
        .part(cl_ext_flag().as_bytes())
        .part(undef_header().as_bytes())
        .part(crate::device::device().name().as_bytes())
        .part(format!("{options:?}").as_bytes())
        .part(source.as_bytes());
    for (name, text) in headers {
        key = key.part(name.as_bytes()).part(text.as_bytes());
    }
    key.hex()
}

/// The files clang read, from its `-MD` dependency file (a make rule), outside `dir` and the
/// precompiled header's folder `pch`.
fn dependencies(dir: &Path, pch: Option<&Path>) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(dir.join("program.d")).unwrap_or_default();
    let body = text.split_once(':').map_or("", |(_, deps)| deps);
    body.replace("\\\n", " ")
        .split_ascii_whitespace()
        .filter(|w| *w != "\\")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && !p.starts_with(dir) && !pch.is_some_and(|d| p.starts_with(d)))
        .collect()
}

/// Compiles `source` with the embedded `headers` (include name, text), from the cache when an
/// identical compilation was done before. The error is the build log: clang's diagnostics,
/// then what failed.
pub fn compile(source: &str, headers: &[(String, String)], options: &Options) -> Result<Output, String> {
    let tools = toolchain().map_err(str::to_string)?;
    let key = cache_key(tools, source, headers, options);
    if let Some(hit) = cache::lookup(&key) {
        let verbose = crate::options::verbose_build_log();
        let mut log: String = hit
            .log
            .split_inclusive('\n')
            .filter(|l| verbose || !l.starts_with(translate::ROUTE_PREFIX))
            .collect();
        if verbose {
            log.push_str("Clift: OpenCL C compilation taken from the cache\n");
        }
        return Ok(Output { spirv: hit.spirv, log });
    }
    let out = run_compiler(tools, source, headers, options)?;
    cache::store(
        &key,
        &cache::Entry::with_deps(out.spirv.clone(), out.clang_log, &out.deps),
    );
    Ok(Output {
        spirv: out.spirv,
        log: out.log,
    })
}

/// clang's flags for unoptimized IR (`-cl-opt-disable`, `-O0`, and the last-resort fallback
/// of `translate`): clang's code generation at `-O1` with every LLVM pass disabled, and `__OPTIMIZE__` left
/// undefined as at `-O0`. Why not `-O0`: OpenCL C's `inline` follows C99, where a plain
/// `inline` definition is no external definition; clang marks it `available_externally` and
/// at `-O0` does not emit such bodies at all, leaving calls to a symbol that nothing defines
/// (the build then fails, while the optimized build inlined them). From `-O1` on clang emits
/// the inline definitions, llvm-spirv keeps them as bodies decorated Import, and the SPIR-V
/// linker turns each into a module-local function unless some module exports an external
/// definition (jit/src/spirv/link.rs). `-fgnu89-inline` would instead swap the meaning of
/// `extern inline` and make a header's `inline` functions clash across linked programs; and
/// no LLVM pass runs, so the code is as unoptimized as `-O0`'s.
pub(crate) const UNOPTIMIZED_FLAGS: &[&str] = &["-O1", "-Xclang", "-disable-llvm-passes", "-U__OPTIMIZE__"];

/// What running clang and llvm-spirv produced.
struct Compiled {
    spirv: Vec<u8>,
    /// clang's diagnostics only (what a cache hit replays).
    clang_log: String,
    /// clang's diagnostics and the timing.
    log: String,
    deps: Vec<PathBuf>,
}

fn run_compiler(
    tools: &Toolchain,
    source: &str,
    headers: &[(String, String)],
    options: &Options,
) -> Result<Compiled, String> {
    let scratch = Scratch::new().map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let dir = &scratch.0;
    let write = |name: &Path, text: &str| -> Result<(), String> {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    for (name, text) in headers {
        // Include names are relative paths; anything escaping the directory is refused.
        let rel = Path::new(name);
        if rel.is_absolute() || rel.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Err(format!(
                "header include name {name:?} must be a relative path inside the program"
            ));
        }
        write(rel, text)?;
    }
    write(Path::new("program.cl"), source)?;
    write(Path::new("clift_features.h"), undef_header())?;
    let std = options.cl_std.clone().unwrap_or_else(|| "CL1.2".into());
    let mut clang_args: Vec<std::ffi::OsString> = Vec::new();
    {
        let mut arg = |a: &str| clang_args.push(a.into());
        for a in ["-c", "-target", "spir64", "-emit-llvm", "-fno-discard-value-names"] {
            arg(a);
        }
        arg(&format!("-cl-std={std}"));
        let optimize = if options.opt_disable {
            UNOPTIMIZED_FLAGS.to_vec()
        } else {
            translate::clang_optimizes(&tools.tools())
        };
        for a in optimize {
            arg(a);
        }
        // LLVM's vectorizers gain nothing here (the JIT takes vector types apart, and runs
        // work-items four at a time itself) and leave IR that llvm-spirv 15 cannot translate
        // (`freeze` of `<4 x i1>`, `i4` masks), which would push the whole program onto the
        // unoptimized fallback below.
        for a in ["-fno-slp-vectorize", "-fno-vectorize", "-Xclang"] {
            arg(a);
        }
        arg(cl_ext_flag());
        // After the default header, which defines some feature macros for every SPIR target.
        for a in ["-include", "clift_features.h", "-I."] {
            arg(a);
        }
        for i in &options.includes {
            arg(&format!("-I{i}"));
        }
        for d in &options.defines {
            arg(&format!("-D{d}"));
        }
        for o in options
            .passthrough
            .iter()
            .filter(|o| *o != "-cl-kernel-arg-info" && *o != "-cl-no-subgroup-ifp")
        {
            arg(o);
        }
        for a in ["-MD", "-MF", "program.d", "-o", "program.bc", "program.cl"] {
            arg(a);
        }
        if options.kernel_arg_info {
            arg("-cl-kernel-arg-info");
        }
    }
    // The usual case in one request (the modules stay in the server's memory); anything but
    // success or a clang error takes the steps one by one below.
    let mut fast = None;
    let mut pch_dir = None;
    // A precompiled header that failed this build (clang's error, a crash, a failing step).
    let mut pch_tried: Option<PathBuf> = None;
    if !options.opt_disable && server::active() {
        // With the precompiled header, when there is one for these arguments: its result is
        // taken only when clang printed nothing (see `pch`); anything else builds without it.
        if let Some((folder, file)) = pch::for_build(&tools.clang, &clang_args, undef_header()) {
            if let Some(args) = pch::with_pch(&clang_args, &file) {
                let attempt = translate::pipelined(&tools.tools(), dir, &args);
                if !matches!(attempt, Some((server::Pipelined::Done { .. }, _))) {
                    pch_tried = Some(folder.clone());
                }
                if let Some((server::Pipelined::Done { log, ms }, pipeline)) = attempt {
                    if let (true, Ok(spirv)) = (log.is_empty(), std::fs::read(dir.join("program.spv"))) {
                        let translated = translate::Translation {
                            spirv,
                            route: translate::Route::Optimized { pipeline },
                            optimizer_ms: ms[1],
                        };
                        fast = Some((String::new(), translated, ms[0], ms[2]));
                        pch_dir = Some(folder);
                    }
                }
            }
        }
    }
    if fast.is_none() && !options.opt_disable {
        match translate::pipelined(&tools.tools(), dir, &clang_args) {
            Some((server::Pipelined::Done { log, ms }, pipeline)) => {
                if let (Some(folder), true) = (&pch_tried, log.is_empty()) {
                    // The same build succeeded without a word: the header failed it.
                    pch::disable(folder);
                }
                if let Ok(spirv) = std::fs::read(dir.join("program.spv")) {
                    let translated = translate::Translation {
                        spirv,
                        route: translate::Route::Optimized { pipeline },
                        optimizer_ms: ms[1],
                    };
                    fast = Some((String::from_utf8_lossy(&log).into_owned(), translated, ms[0], ms[2]));
                }
            }
            Some((server::Pipelined::ClangFailed(out), _)) => {
                let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
                log.push_str("error: OpenCL C compilation failed\n");
                return Err(log);
            }
            None => {}
        }
    }
    let (mut log, translated, front_ms, spirv_ms) = match fast {
        Some(done) => done,
        None => {
            let started = std::time::Instant::now();
            let out = server::run(server::Tool::Clang, &tools.clang, dir, &clang_args)
                .map_err(|e| format!("cannot run {}: {e}", tools.clang.display()))?;
            let front_ms = started.elapsed().as_secs_f64() * 1e3;
            let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
            if !out.status.success() {
                log.push_str("error: OpenCL C compilation failed\n");
                return Err(log);
            }
            let started = std::time::Instant::now();
            let translated = match translate::translate(&tools.tools(), dir, &clang_args, options.opt_disable) {
                Ok(t) => t,
                Err(e) => {
                    log.push_str(&e);
                    return Err(log);
                }
            };
            // LLVM's optimizer counts as clang's (it is what clang -O2 runs), the rest as
            // llvm-spirv's.
            let spirv_ms = started.elapsed().as_secs_f64() * 1e3 - translated.optimizer_ms;
            (log, translated, front_ms, spirv_ms)
        }
    };
    let optimizer_ms = translated.optimizer_ms;
    let clang_ms = front_ms + optimizer_ms;
    let mut spirv = translated.spirv;
    let mut route = translated.route.describe();
    if let Some((fixed, n)) = builtin_dims::repair(&spirv) {
        spirv = fixed;
        route.push_str(&format!(
            "{} {n} work-item function result(s) past the third dimension set to their OpenCL C value\n",
            translate::ROUTE_PREFIX
        ));
    }
    // The route goes into the cached log too; a cache hit shows it only where a fresh build
    // does (see `compile`): a fallback always, the others with CLIFT_BUILD_LOG=verbose.
    let clang_log = format!("{log}{route}");
    if crate::options::verbose_build_log() || translated.route.is_fallback() {
        log.push_str(&route);
    }
    if crate::options::verbose_build_log() {
        log.push_str(&format!(
            "Clift: clang {clang_ms:.1} ms (front end {front_ms:.1}, optimizer {optimizer_ms:.1}), llvm-spirv {spirv_ms:.1} ms\n"
        ));
    }
    Ok(Compiled {
        spirv,
        clang_log,
        log,
        deps: dependencies(dir, pch_dir.as_deref()),
    })
}
