//! A corpus of OpenCL C written by others (issue 14): every program must build, and every
//! build must take the optimized path (its SPIR-V from LLVM's -O2 IR, never the unoptimized
//! fallback). Nothing of these projects is copied into this repository; the programs are
//! obtained when the test runs:
//! - the Khronos OpenCL CTS (`shared/khronos-cts/OpenCL-CTS-*.tar.xz`, or its checkout in
//!   `~/.cache/khronos-cts/src`): the kernels it embeds as C/C++ string literals in its test
//!   sources. A run of adjacent literals (or a `{ "...", "..." }` list of them) that mentions
//!   `kernel` is a candidate; many are templates completed at run time (`%s`, `TYPE`), so a
//!   candidate is a program of the corpus when clang-15 alone compiles it as OpenCL C (at an
//!   OpenCL C version the device supports, with the extensions and features it reports) and it
//!   calls no function it does not define (a piece meant for clLinkProgram) — an independent
//!   judge of "a standalone program", not Clift;
//! - hashcat's kernels (Debian package `hashcat-data`, /usr/share/hashcat/OpenCL), built with
//!   the options hashcat passes (`-D KERNEL_STATIC -I ...`, the `HAS_*`/`DGST_*` macros), for
//!   the hash modes in [`HASHCAT_KERNELS`];
//! - kernels pyopencl generates at run time (Debian package `python3-pyopencl`): its array
//!   arithmetic, reductions, scans and algorithms for several element types, run against Clift
//!   by `cts/corpus/pyopencl_kernels.py` with `CLIFT_DUMP_SOURCES` set, which makes Clift write
//!   each program it is asked to build (source and options) to a directory.
//!
//! A source that is genuinely unavailable is skipped with a message; the corpus must still
//! hold at least [`MIN_PROGRAMS`] programs. Builds run in parallel, compile only (no kernel
//! runs).

use cts::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

const MIN_PROGRAMS: usize = 300;

/// hashcat modes (file stems under /usr/share/hashcat/OpenCL): MD5, SHA-1 and SHA-256 in
/// their "optimized" brute-force form, whose optimized IR llvm-spirv 15 used to refuse
/// (`switch i2`). Each takes tens of seconds at -O2 (hashcat's kernels are large and
/// unrolled), so the list is kept short for CI.
const HASHCAT_KERNELS: &[&str] = &["m00000_a3-optimized", "m00100_a3-optimized", "m01400_a3-optimized"];

/// One program of the corpus.
struct Entry {
    origin: &'static str,
    name: String,
    source: String,
    options: String,
}

fn is_clift() -> bool {
    wanted_platform_name() == "Clift"
}

fn clang() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("clang-15"))
        .find(|p| p.is_file())
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("corpus");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------------------------
// The CTS: string literals of C++ sources.

/// The CTS's `test_conformance` directory: a checkout, or the tarball extracted under target/.
fn cts_sources() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let checkout = home.join(".cache/khronos-cts/src/test_conformance");
    if checkout.is_dir() {
        return Some(checkout);
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = [
        repo.join("../shared/khronos-cts"),
        PathBuf::from("/work/shared/khronos-cts"),
    ];
    let tarball = shared.iter().find_map(|d| {
        std::fs::read_dir(d).ok()?.flatten().map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("OpenCL-CTS-") && n.ends_with(".tar.xz"))
        })
    })?;
    let out = scratch().join("cts-src");
    let done = out.join(".extracted");
    if !done.exists() {
        std::fs::create_dir_all(&out).ok()?;
        let ok = Command::new("tar")
            .args(["-xJf"])
            .arg(&tarball)
            .arg("-C")
            .arg(&out)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return None;
        }
        std::fs::write(&done, b"").ok()?;
    }
    std::fs::read_dir(&out)
        .ok()?
        .flatten()
        .map(|e| e.path().join("test_conformance"))
        .find(|p| p.is_dir())
}

/// The contents of the string literals of C/C++ `text`, runs of adjacent literals and
/// comma-separated lists of them joined, with C escapes decoded.
fn string_runs(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut runs = Vec::new();
    let mut current: Option<String> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c == b'\'' {
            // A character literal: skip it so that '"' does not open a string.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == b'R' && b.get(i + 1) == Some(&b'"') && (i == 0 || !is_ident(b[i - 1])) {
            // A raw string: R"delim( ... )delim".
            let open = i + 2;
            let Some(paren) = text[open..].find('(') else { break };
            let delim = &text[open..open + paren];
            let body = open + paren + 1;
            let close = format!("){delim}\"");
            let Some(end) = text[body..].find(&close) else { break };
            current
                .get_or_insert_with(String::new)
                .push_str(&text[body..body + end]);
            i = body + end + close.len();
        } else if c == b'"' {
            i += 1;
            let s = current.get_or_insert_with(String::new);
            let mut bytes = Vec::new();
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    i += 1;
                    let e = b[i];
                    match e {
                        b'n' => bytes.push(b'\n'),
                        b't' => bytes.push(b'\t'),
                        b'r' => bytes.push(b'\r'),
                        b'\n' => {}
                        b'x' => {
                            let mut v = 0u32;
                            while i + 1 < b.len() && (b[i + 1] as char).is_ascii_hexdigit() {
                                i += 1;
                                v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                            }
                            bytes.push(v as u8);
                        }
                        b'0'..=b'7' => {
                            let mut v = (e - b'0') as u32;
                            let mut n = 1;
                            while n < 3 && i + 1 < b.len() && (b'0'..=b'7').contains(&b[i + 1]) {
                                i += 1;
                                n += 1;
                                v = v * 8 + (b[i] - b'0') as u32;
                            }
                            bytes.push(v as u8);
                        }
                        other => bytes.push(other),
                    }
                } else {
                    bytes.push(b[i]);
                }
                i += 1;
            }
            s.push_str(&String::from_utf8_lossy(&bytes));
            i += 1;
        } else if c.is_ascii_whitespace() || c == b',' || c == b'\\' {
            // Adjacent literals and list elements stay in one run.
            i += 1;
        } else {
            if let Some(s) = current.take() {
                runs.push(s);
            }
            i += 1;
        }
        if i > b.len() {
            break;
        }
    }
    if let Some(s) = current.take() {
        runs.push(s);
    }
    runs
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "cpp" | "c" | "h" | "hpp" | "cl"))
        {
            out.push(p);
        }
    }
}

/// The extensions and OpenCL C features the device reports, as clang's `-cl-ext` list.
fn device_cl_ext() -> String {
    let mut items = vec!["-all".to_string()];
    items.extend(
        device_string(CL_DEVICE_EXTENSIONS)
            .split_ascii_whitespace()
            .map(|e| format!("+{e}")),
    );
    // cl_name_version: a version (u32) and a 64-byte name.
    if let Ok(bytes) = device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES) {
        for f in bytes.chunks_exact(68) {
            items.push(format!("+{}", bytes_to_string(&f[4..])));
        }
    }
    format!("-cl-ext={}", items.join(","))
}

/// OpenCL C 3.0's optional feature macros (OpenCL C 6.2.1). clang-15's default header defines
/// all of them for SPIR targets whatever `-cl-ext` says, so the judge undefines those the
/// device does not report (as a device's compiler must).
const OPTIONAL_FEATURES: &[&str] = &[
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
];

/// The header the judge includes after clang's default header.
fn undef_missing_features(dir: &Path, cl_ext: &str) -> PathBuf {
    let mut text = String::new();
    for f in OPTIONAL_FEATURES {
        if !cl_ext.split(',').any(|e| e == format!("+{f}")) {
            text.push_str(&format!("#undef {f}\n"));
        }
    }
    let path = dir.join("undef_missing_features.h");
    std::fs::write(&path, text).unwrap();
    path
}

/// The `-cl-std` values of the OpenCL C versions the device supports
/// (CL_DEVICE_OPENCL_C_ALL_VERSIONS), oldest first, from 1.2 on.
fn device_c_versions() -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(bytes) = device_bytes(device(), CL_DEVICE_OPENCL_C_ALL_VERSIONS) {
        for v in bytes.chunks_exact(68) {
            let version = u32::from_ne_bytes([v[0], v[1], v[2], v[3]]);
            let (major, minor) = (version >> 22, (version >> 12) & 0x3ff);
            if (major, minor) >= (1, 2) {
                out.push(format!("CL{major}.{minor}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// True when clang accepts `source` as a standalone OpenCL C program under `std`: it compiles,
/// and calls no function it only declares (other than OpenCL's built-ins, which clang mangles,
/// and LLVM's and the translator's `llvm.*`/`__*` ones) — such a program is a piece for
/// clCompileProgram + clLinkProgram, not a program by itself.
fn clang_accepts(clang: &Path, dir: &Path, source: &str, std: &str, cl_ext: &str, undef: &Path) -> bool {
    let file = dir.join(format!("{:016x}.cl", fnv(source.as_bytes())));
    if std::fs::write(&file, source).is_err() {
        return false;
    }
    let out = Command::new(clang)
        .args([
            "-S",
            "-emit-llvm",
            "-O0",
            "-o",
            "-",
            "-target",
            "spir64",
            "-Xclang",
            cl_ext,
            "-include",
        ])
        .arg(undef)
        .arg(format!("-cl-std={std}"))
        .arg(&file)
        .output();
    let _ = std::fs::remove_file(&file);
    let Ok(out) = out else { return false };
    if !out.status.success() {
        return false;
    }
    let ir = String::from_utf8_lossy(&out.stdout);
    !ir.lines().filter(|l| l.starts_with("declare ")).any(|l| {
        let name = l.split('@').nth(1).unwrap_or("");
        !(name.starts_with("_Z") || name.starts_with("llvm.") || name.starts_with("__"))
    })
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The standalone programs of the CTS.
fn cts_programs(notes: &mut Vec<String>) -> Vec<Entry> {
    let Some(src) = cts_sources() else {
        notes.push(
            "CTS sources unavailable (no ~/.cache/khronos-cts/src, no shared/khronos-cts tarball): skipped".into(),
        );
        return Vec::new();
    };
    let Some(clang) = clang() else {
        notes.push("clang-15 not on PATH: CTS candidates cannot be judged, skipped".into());
        return Vec::new();
    };
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut seen = std::collections::HashSet::new();
    let mut candidates = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let rel = f.strip_prefix(&src).unwrap_or(f).display().to_string();
        if f.extension().is_some_and(|e| e == "cl") {
            if seen.insert(fnv(text.as_bytes())) {
                candidates.push((rel, text));
            }
            continue;
        }
        for (k, run) in string_runs(&text).into_iter().enumerate() {
            let kernel = run.contains("__kernel") || run.contains("kernel void");
            if kernel && seen.insert(fnv(run.as_bytes())) {
                candidates.push((format!("{rel}#{k}"), run));
            }
        }
    }
    let cl_ext = device_cl_ext();
    let stds = device_c_versions();
    let dir = scratch().join("syntax");
    std::fs::create_dir_all(&dir).unwrap();
    let undef = undef_missing_features(&dir, &cl_ext);
    let accepted = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers() {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((name, text)) = candidates.get(i) else { break };
                let std = stds
                    .iter()
                    .find(|std| clang_accepts(&clang, &dir, text, std, &cl_ext, &undef));
                if let Some(std) = std {
                    accepted.lock().unwrap().push(Entry {
                        origin: "Khronos CTS",
                        name: name.clone(),
                        source: text.clone(),
                        options: format!("-cl-std={std}"),
                    });
                }
            });
        }
    });
    let mut accepted = accepted.into_inner().unwrap();
    accepted.sort_by(|a, b| a.name.cmp(&b.name));
    notes.push(format!(
        "Khronos CTS ({}): {} kernel-bearing string runs and .cl files, {} standalone programs (clang-15 compiles them, no undefined functions)",
        src.display(),
        candidates.len(),
        accepted.len()
    ));
    accepted
}

// ---------------------------------------------------------------------------------------------
// hashcat.

const HASHCAT_DIR: &str = "/usr/share/hashcat/OpenCL";

fn hashcat_programs(notes: &mut Vec<String>) -> Vec<Entry> {
    if !Path::new(HASHCAT_DIR).is_dir() {
        notes.push(format!("{HASHCAT_DIR} missing (Debian package hashcat-data): skipped"));
        return Vec::new();
    }
    let mut out = Vec::new();
    for stem in HASHCAT_KERNELS {
        let path = Path::new(HASHCAT_DIR).join(format!("{stem}.cl"));
        let Ok(source) = std::fs::read_to_string(&path) else {
            notes.push(format!("{} missing: skipped", path.display()));
            continue;
        };
        let mode: u32 = stem[1..6].parse().unwrap_or(0);
        let attack = if stem.contains("_a0") {
            0
        } else if stem.contains("_a1") {
            1
        } else {
            3
        };
        // The options hashcat's backend passes for an OpenCL CPU device.
        let mut options = format!(
            "-D KERNEL_STATIC -I {HASHCAT_DIR} -D INCLUDE_PATH={HASHCAT_DIR} -D XM2S(x)=#x -D M2S(x)=XM2S(x) \
             -D LOCAL_MEM_TYPE=2 -D VENDOR_ID=64 -D CUDA_ARCH=0 -D HAS_ADD=0 -D HAS_ADDC=0 -D HAS_SUB=0 \
             -D HAS_SUBC=0 -D HAS_VADD=0 -D HAS_VADDC=0 -D HAS_VADD_CO=0 -D HAS_VADDC_CO=0 -D HAS_VSUB=0 \
             -D HAS_VSUBB=0 -D HAS_VSUB_CO=0 -D HAS_VSUBB_CO=0 -D HAS_VPERM=0 -D HAS_VADD3=0 -D HAS_VBFE=0 \
             -D HAS_BFE=0 -D HAS_LOP3=0 -D HAS_MOV64=0 -D HAS_PRMT=0 -D VECT_SIZE=4 -D DEVICE_TYPE=2 \
             -D DGST_R0=0 -D DGST_R1=3 -D DGST_R2=2 -D DGST_R3=1 -D DGST_ELEM=4 -D KERN_TYPE={mode} \
             -D ATTACK_EXEC=11 -D ATTACK_KERN={attack} -D MAX_THREADS=256"
        );
        if stem.ends_with("-pure") && !stem.contains("_a") {
            options = options.replace("ATTACK_EXEC=11", "ATTACK_EXEC=10");
        }
        out.push(Entry {
            origin: "hashcat-data",
            name: stem.to_string(),
            source,
            options,
        });
    }
    notes.push(format!("hashcat ({HASHCAT_DIR}): {} programs", out.len()));
    out
}

// ---------------------------------------------------------------------------------------------
// pyopencl's generated kernels.

/// Debian's Python, where python3-pyopencl installs (not a user's other Python on PATH).
const PYTHON: &str = "/usr/bin/python3";

fn pyopencl_programs(notes: &mut Vec<String>) -> Vec<Entry> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pyopencl_kernels.py");
    let have = Command::new(PYTHON)
        .args(["-c", "import pyopencl"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        notes.push("python3 with pyopencl unavailable (Debian package python3-pyopencl): skipped".into());
        return Vec::new();
    }
    let dump = scratch().join("pyopencl-dump");
    let _ = std::fs::remove_dir_all(&dump);
    std::fs::create_dir_all(&dump).unwrap();
    let out = Command::new(PYTHON)
        .arg(&script)
        .env("CLIFT_DUMP_SOURCES", &dump)
        .env("PYOPENCL_NO_CACHE", "1")
        .env("PYOPENCL_CTX", "")
        .output()
        .expect("run /usr/bin/python3");
    assert!(
        out.status.success(),
        "{} failed:\n{}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut entries = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dump)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    files.sort();
    for f in files {
        let source = std::fs::read_to_string(&f).unwrap();
        let options = std::fs::read_to_string(f.with_extension("options")).unwrap_or_default();
        entries.push(Entry {
            origin: "pyopencl (generated)",
            name: f.file_name().unwrap().to_string_lossy().into_owned(),
            source,
            options,
        });
    }
    notes.push(format!("pyopencl generated: {} programs", entries.len()));
    entries
}

fn workers() -> usize {
    std::env::var("CTS_CORPUS_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| online_cpus().clamp(1, 4))
}

/// What one build did.
enum Outcome {
    Optimized,
    Legalized(String),
    Fallback(String),
    Failed(String),
}

#[test]
fn corpus_builds_on_the_optimized_path() {
    if !is_clift() {
        eprintln!("the optimized-path check reads Clift's build log: skipped on other platforms");
        return;
    }
    // The route line of every build ("Clift: front end: ...").
    std::env::set_var("CLIFT_BUILD_LOG", "verbose");
    let mut notes = Vec::new();
    // CTS_CORPUS_ONLY=cts|hashcat|pyopencl narrows the run (for debugging; the count check
    // then does not apply).
    let only = std::env::var("CTS_CORPUS_ONLY").unwrap_or_default();
    let wanted = |s: &str| only.is_empty() || only == s;
    let mut corpus = Vec::new();
    if wanted("pyopencl") {
        corpus.extend(pyopencl_programs(&mut notes));
    }
    if wanted("hashcat") {
        corpus.extend(hashcat_programs(&mut notes));
    }
    if wanted("cts") {
        corpus.extend(cts_programs(&mut notes));
    }
    for n in &notes {
        eprintln!("corpus: {n}");
    }
    let ctx = Context::new();
    let results = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let started = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..workers() {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(e) = corpus.get(i) else { break };
                let p = ctx.program_source(&e.source);
                let err = p.build(&e.options);
                let log = p.build_log();
                let outcome = if err != CL_SUCCESS {
                    Outcome::Failed(format!("{}\n{log}", err_name(err)))
                } else if let Some(l) = log.lines().find(|l| l.starts_with("Clift note:")) {
                    Outcome::Fallback(l.to_string())
                } else if let Some(l) = log.lines().find(|l| l.contains("legalized by")) {
                    Outcome::Legalized(l.to_string())
                } else if log.lines().any(|l| l.starts_with("Clift: front end: optimized IR")) {
                    Outcome::Optimized
                } else {
                    Outcome::Failed(format!("no front-end route in the verbose build log:\n{log}"))
                };
                results.lock().unwrap().push((i, outcome));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    let mut per_origin: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut problems = Vec::new();
    let failed_dir = scratch().join("failed");
    let _ = std::fs::remove_dir_all(&failed_dir);
    for (i, outcome) in &results {
        let e = &corpus[*i];
        if matches!(outcome, Outcome::Fallback(_) | Outcome::Failed(_)) {
            // Kept for a look: target/corpus/failed/<origin>-<name>.cl with its options.
            let _ = std::fs::create_dir_all(&failed_dir);
            let file: String = format!("{}-{}", e.origin, e.name)
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let _ = std::fs::write(
                failed_dir.join(format!("{file}.cl")),
                format!("// options: {}\n{}", e.options, e.source),
            );
        }
        let slot = per_origin.entry(e.origin).or_default();
        match outcome {
            Outcome::Optimized => slot[0] += 1,
            Outcome::Legalized(l) => {
                slot[1] += 1;
                eprintln!("legalized: {} {}: {l}", e.origin, e.name);
            }
            Outcome::Fallback(l) => {
                slot[2] += 1;
                problems.push(format!("FALLBACK {} {} ({}): {l}", e.origin, e.name, e.options));
            }
            Outcome::Failed(l) => {
                slot[3] += 1;
                problems.push(format!("BUILD ERROR {} {} ({}): {l}", e.origin, e.name, e.options));
            }
        }
    }
    for (origin, [opt, legal, fallback, failed]) in &per_origin {
        eprintln!("corpus: {origin}: {opt} optimized, {legal} legalized, {fallback} fallbacks, {failed} build errors");
    }
    eprintln!(
        "corpus: {} programs built in {:.1} s with {} threads",
        corpus.len(),
        started.elapsed().as_secs_f64(),
        workers()
    );
    assert!(
        problems.is_empty(),
        "{} of {} programs:\n{}",
        problems.len(),
        corpus.len(),
        problems.join("\n")
    );
    assert!(
        !only.is_empty() || corpus.len() >= MIN_PROGRAMS,
        "the corpus holds {} programs, fewer than {MIN_PROGRAMS}: {}",
        corpus.len(),
        notes.join("; ")
    );
}

/// A program llvm-spirv cannot translate at any optimization level (inline assembly, on which
/// llvm-spirv 15 crashes): CL_BUILD_PROGRAM_FAILURE with llvm-spirv's message in the log, the
/// program still queryable, and the next build unaffected.
#[test]
fn untranslatable_program_fails_with_the_translators_message() {
    if !is_clift() {
        eprintln!("reads Clift's build log: skipped on other platforms");
        return;
    }
    let ctx = Context::new();
    let p = ctx.program_source(&kernel_text("source/untranslatable.cl"));
    let err = p.build("");
    let log = p.build_log();
    assert_eq!(err, CL_BUILD_PROGRAM_FAILURE, "{}: {log}", err_name(err));
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    assert!(log.contains("llvm-spirv"), "log names the translator: {log}");
    assert!(log.contains("translation to SPIR-V failed"), "{log}");
    let ok = ctx.program_source("kernel void k(global int *o) { o[0] = 1; }");
    assert_eq!(ok.build(""), CL_SUCCESS, "{}", ok.build_log());
}

#[test]
fn string_runs_join_adjacent_literals_and_lists() {
    let text = r#"
        // "not this"
        const char *a = "kernel void f() " /* gap */ "{ int x = '\"'; }\n";
        const char *b[] = { "__kernel void g()", "\n{}\x41" };
        char c = '"'; const char *d = R"CL(raw "text")CL";
    "#;
    let runs = string_runs(text);
    assert_eq!(runs[0], "kernel void f() { int x = '\"'; }\n");
    assert_eq!(runs[1], "__kernel void g()\n{}A");
    assert_eq!(runs[2], "raw \"text\"");
    assert_eq!(runs.len(), 3);
}
