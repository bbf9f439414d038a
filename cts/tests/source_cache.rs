//! Clift's persistent OpenCL C compilation cache and a missing compiler (issue 4), each
//! checked in fresh processes with their own environment: this test binary runs itself as a
//! child (`cache_child`, ignored unless `CTS_CACHE_CHILD` is set) that builds one source file
//! through the ICD loader and prints the status, build time, build log and kernel output.
//! - a hit across processes (the log says "taken from the cache"), replaying clang's warnings,
//!   and the warm-cache build time in a new process (printed, not asserted);
//! - stale keys: a changed -D option, a changed embedded header, and a changed on-disk header
//!   under -I each miss and give the new result;
//! - a corrupted or truncated entry is detected: the build succeeds, misses, and rewrites it;
//! - `CLIFT_CACHE=0` never hits and writes nothing;
//! - `CLIFT_CLANG` / `CLIFT_LLVM_SPIRV` naming no file: CL_COMPILER_NOT_AVAILABLE with a log
//!   saying what was looked for and how to install it, CL_DEVICE_COMPILER_AVAILABLE false,
//!   IL programs still build.
//!
//! These use Clift's environment variables and are skipped on other platforms.
//! Kernels: kernels/source/defines.cl, include_disk.cl, disk_header.h, lib_scale.cl, defs.h,
//! proto.h, warning.cl; kernels/barrier.spvasm.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::path::{Path, PathBuf};

const HIT: &str = "taken from the cache";
/// What the log says when the machine code itself came from the cache (no JIT at all).
const NATIVE_HIT: &str = "loaded from the native code cache";

fn is_clift() -> bool {
    wanted_platform_name() == "Clift"
}

fn source_path(file: &str) -> PathBuf {
    kernels_dir().join("source").join(file)
}

/// The child: builds `$CTS_SRC` with `$CTS_OPTS` (clCompileProgram with the embedded headers
/// `$CTS_HEADERS` = `name=path;name=path` when set, else clBuildProgram), runs `$CTS_KERNEL`
/// (one `global int*` of 3 ints) when set, and prints what happened.
#[test]
#[ignore = "child process of the cache tests (runs only with CTS_CACHE_CHILD set)"]
fn cache_child() {
    if std::env::var_os("CTS_CACHE_CHILD").is_none() {
        return;
    }
    let var = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
    let src = std::fs::read_to_string(var("CTS_SRC").expect("CTS_SRC")).unwrap();
    let opts = var("CTS_OPTS").unwrap_or_default();
    let compiler = device_info::<cl_bool>(CL_DEVICE_COMPILER_AVAILABLE);
    let linker = device_info::<cl_bool>(CL_DEVICE_LINKER_AVAILABLE);
    let ctx = Context::new();
    let header_progs: Vec<(String, Program)> = var("CTS_HEADERS")
        .map(|h| {
            h.split(';')
                .map(|pair| {
                    let (name, path) = pair.split_once('=').unwrap();
                    (
                        name.to_string(),
                        ctx.program_source(&std::fs::read_to_string(path).unwrap()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let p = ctx.program_source(&src);
    let start = std::time::Instant::now();
    let status = if var("CTS_HEADERS").is_some() {
        let hdrs: Vec<(&str, &Program)> = header_progs.iter().map(|(n, p)| (n.as_str(), p)).collect();
        p.compile(&opts, &hdrs)
    } else {
        p.build(&opts)
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    println!("CTS-CHILD status={status} build_ms={ms:.3} compiler={compiler} linker={linker}");
    println!("CTS-LOG-BEGIN\n{}\nCTS-LOG-END", p.build_log());
    if status == CL_SUCCESS {
        if let Some(kernel) = var("CTS_KERNEL") {
            let q = ctx.queue();
            let b = ctx.buffer_from(as_bytes(&[-99i32; 3]));
            let k = p.kernel(&kernel);
            k.arg_mem(0, &b);
            q.run(&k, &[], &[1], &[]);
            let o: Vec<i32> = from_bytes(&q.read(&b, 0, 12));
            println!("CTS-OUT {} {} {}", o[0], o[1], o[2]);
        }
    }
    if var("CTS_NO_COMPILER").is_some() {
        // The program stays usable: queries work, a second build fails the same way, a compile
        // too; IL programs are unaffected.
        println!("CTS-SECOND status={}", p.build(&opts));
        println!("CTS-STATUS {}", p.build_status());
        let c = ctx.program_source(&src);
        println!("CTS-COMPILE status={}", c.compile(&opts, &[]));
        let il = ctx.program_il(&spirv("barrier"));
        println!("CTS-IL status={}", il.build(""));
    }
}

/// What a child reported.
#[derive(Debug, Default)]
struct Child {
    status: cl_int,
    build_ms: f64,
    wall_ms: f64,
    compiler: cl_bool,
    linker: cl_bool,
    log: String,
    out: Option<Vec<i32>>,
    stdout: String,
}

impl Child {
    fn hit(&self) -> bool {
        self.log.contains(HIT)
    }

    fn native_hit(&self) -> bool {
        self.log.contains(NATIVE_HIT)
    }

    /// The rest of the line after `prefix` (which may follow libtest's `test name ... `).
    fn field(&self, prefix: &str) -> Option<String> {
        self.stdout
            .lines()
            .find_map(|l| l.find(prefix).map(|at| &l[at + prefix.len()..]))
            .map(|s| s.trim().to_string())
    }
}

/// Runs the child with `env` (on top of a cleaned environment: Clift's cache and compiler
/// variables removed).
fn child(src: &Path, opts: &str, env: &[(&str, String)]) -> Child {
    let mut cmd = test_child("cache_child");
    cmd.arg("--ignored")
        .env("CTS_CACHE_CHILD", "1")
        // Clift notes cache hits in the build log only when asked to.
        .env("CLIFT_BUILD_LOG", "verbose")
        .env("CTS_SRC", src)
        .env("CTS_OPTS", opts);
    for v in [
        "CLIFT_CACHE",
        "CLIFT_CACHE_DIR",
        "CLIFT_CLANG",
        "CLIFT_LLVM_SPIRV",
        "CTS_HEADERS",
        "CTS_KERNEL",
        "CTS_NO_COMPILER",
    ] {
        cmd.env_remove(v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = std::time::Instant::now();
    let out = cmd.output().expect("spawn the child");
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the child failed ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    let mut c = Child {
        wall_ms,
        stdout: stdout.clone(),
        ..Default::default()
    };
    let line = c
        .field("CTS-CHILD ")
        .unwrap_or_else(|| panic!("no report from the child:\n{stdout}"));
    for kv in line.split_whitespace() {
        let (k, v) = kv.split_once('=').unwrap();
        match k {
            "status" => c.status = v.parse().unwrap(),
            "build_ms" => c.build_ms = v.parse().unwrap(),
            "compiler" => c.compiler = v.parse().unwrap(),
            "linker" => c.linker = v.parse().unwrap(),
            _ => {}
        }
    }
    let log = stdout
        .split("CTS-LOG-BEGIN\n")
        .nth(1)
        .and_then(|s| s.split("\nCTS-LOG-END").next());
    c.log = log.unwrap_or_default().to_string();
    c.out = c
        .field("CTS-OUT ")
        .map(|s| s.split_whitespace().map(|v| v.parse().unwrap()).collect());
    c
}

/// The cache entries of OpenCL C compilations (`*.clc`) in `dir`.
fn entries(dir: &Path) -> Vec<PathBuf> {
    files_with(dir, "clc")
}

/// The native code entries (`*.native`) in `dir`.
fn native_entries(dir: &Path) -> Vec<PathBuf> {
    files_with(dir, "native")
}

fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

fn cache_env(dir: &TempDir) -> Vec<(&'static str, String)> {
    vec![("CLIFT_CACHE_DIR", dir.path().display().to_string())]
}

fn with(mut env: Vec<(&'static str, String)>, k: &'static str, v: &str) -> Vec<(&'static str, String)> {
    env.push((k, v.to_string()));
    env
}

fn assert_built(c: &Child, what: &str) {
    assert_eq!(c.status, CL_SUCCESS, "{what}: {}\nlog:\n{}", err_name(c.status), c.log);
}

#[test]
fn cache_hit_across_processes_and_warm_build_time() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("cache-hit");
    let env = with(cache_env(&dir), "CTS_KERNEL", "defines");
    let src = source_path("defines.cl");
    let cold = child(&src, "-D OFFSET=5", &env);
    assert_built(&cold, "cold build");
    assert!(
        !cold.hit(),
        "the first build in an empty cache is a miss:\n{}",
        cold.log
    );
    assert_eq!(cold.out.as_deref(), Some(&[5, 0, -1][..]));
    assert_eq!(entries(dir.path()).len(), 1, "one entry written");
    assert_eq!(native_entries(dir.path()).len(), 1, "one native code entry written");
    assert!(!cold.native_hit());
    assert_eq!(cold.compiler, CL_TRUE);
    assert_eq!(cold.linker, CL_TRUE);
    let mut warm = Vec::new();
    for i in 0..3 {
        let w = child(&src, "-D OFFSET=5", &env);
        assert_built(&w, "warm build");
        assert!(w.hit(), "build {i} in a new process hits the cache:\n{}", w.log);
        assert!(
            w.native_hit(),
            "build {i} takes the machine code from the cache too (no JIT):\n{}",
            w.log
        );
        assert_eq!(w.out.as_deref(), Some(&[5, 0, -1][..]), "the cached program's result");
        warm.push(w);
    }
    assert_eq!(entries(dir.path()).len(), 1, "hits write nothing new");
    assert_eq!(native_entries(dir.path()).len(), 1, "hits write no new native code");
    let best = warm.iter().map(|w| w.build_ms).fold(f64::INFINITY, f64::min);
    let wall = warm.iter().map(|w| w.wall_ms).fold(f64::INFINITY, f64::min);
    println!(
        "clBuildProgram(defines.cl) in a new process: cold {:.2} ms, warm cache {best:.3} ms \
         (best of {}; whole child process {wall:.1} ms)",
        cold.build_ms,
        warm.len()
    );

    // clang's warnings are replayed from the cache.
    let wsrc = source_path("warning.cl");
    let w1 = child(&wsrc, "", &cache_env(&dir));
    let w2 = child(&wsrc, "", &cache_env(&dir));
    assert_built(&w1, "warning.cl");
    assert!(!w1.hit() && w2.hit(), "miss then hit:\n{}\n---\n{}", w1.log, w2.log);
    assert!(w1.log.contains("cts-source-warning"), "{}", w1.log);
    assert!(
        w2.log.contains("cts-source-warning"),
        "a hit replays the warning:\n{}",
        w2.log
    );
}

#[test]
fn stale_keys_changed_option_and_headers_miss() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("cache-stale");
    // A changed -D option.
    let env = with(cache_env(&dir), "CTS_KERNEL", "defines");
    let src = source_path("defines.cl");
    let a = child(&src, "-D OFFSET=5", &env);
    let b = child(&src, "-D OFFSET=6", &env);
    let c = child(&src, "-D OFFSET=5", &env);
    assert!(!a.hit() && !b.hit(), "a changed -D misses:\n{}", b.log);
    assert_eq!(b.out.as_deref(), Some(&[6, 0, -1][..]));
    assert!(c.hit(), "the first options hit again");
    assert_eq!(c.out.as_deref(), Some(&[5, 0, -1][..]));
    // Another option that changes nothing in the source still is another key.
    let d = child(&src, "-D OFFSET=5 -cl-opt-disable", &env);
    assert!(!d.hit(), "-cl-opt-disable added misses");

    // A changed embedded header (clCompileProgram with input_headers).
    let hdir = TempDir::new("cache-embedded");
    let defs = hdir.path().join("defs.h");
    std::fs::write(&defs, "#define SCALE 7\n").unwrap();
    let headers = format!(
        "inc/defs.h={};proto.h={}",
        defs.display(),
        source_path("proto.h").display()
    );
    let env = with(cache_env(&dir), "CTS_HEADERS", &headers);
    let lib = source_path("lib_scale.cl");
    let a = child(&lib, "", &env);
    let b = child(&lib, "", &env);
    assert_built(&a, "compile with headers");
    assert!(!a.hit() && b.hit(), "compile with embedded headers: miss then hit");
    std::fs::write(&defs, "#define SCALE 8\n").unwrap();
    let c = child(&lib, "", &env);
    assert_built(&c, "compile with the changed header");
    assert!(!c.hit(), "a changed embedded header misses:\n{}", c.log);
    assert!(child(&lib, "", &env).hit());

    // A changed header on disk under -I, edited between two processes.
    let inc = TempDir::new("cache-disk");
    let header = inc.path().join("disk_header.h");
    std::fs::write(&header, source_text("disk_header.h")).unwrap();
    let opts = format!("-I {}", inc.path().display());
    let env = with(cache_env(&dir), "CTS_KERNEL", "from_disk");
    let src = source_path("include_disk.cl");
    let a = child(&src, &opts, &env);
    let b = child(&src, &opts, &env);
    assert_built(&a, "-I build");
    assert!(!a.hit() && b.hit(), "-I build: miss then hit");
    assert_eq!(b.out.as_deref().map(|o| o[0]), Some(4100));
    std::fs::write(&header, "#define DISK_VALUE 4200\n").unwrap();
    let c = child(&src, &opts, &env);
    assert_built(&c, "-I build after the edit");
    assert!(!c.hit(), "an edited on-disk header misses:\n{}", c.log);
    assert_eq!(c.out.as_deref().map(|o| o[0]), Some(4200), "the new header's value");
    let d = child(&src, &opts, &env);
    assert!(d.hit(), "and the new entry hits");
    assert_eq!(d.out.as_deref().map(|o| o[0]), Some(4200));
}

#[test]
fn corrupted_entry_is_detected_and_rebuilt() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("cache-corrupt");
    let env = with(cache_env(&dir), "CTS_KERNEL", "defines");
    let src = source_path("defines.cl");
    let first = child(&src, "-D FLAG=3", &env);
    assert_built(&first, "first build");
    let files = entries(dir.path());
    assert_eq!(files.len(), 1);
    let entry = &files[0];
    let good = std::fs::read(entry).unwrap();
    // Flipped bytes in the middle, then a truncated entry, then garbage.
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    for b in &mut flipped[mid..mid + 16] {
        *b ^= 0xA5;
    }
    let truncated = good[..good.len() / 2].to_vec();
    for (what, bad) in [
        ("flipped", flipped),
        ("truncated", truncated),
        ("garbage", pattern(good.len(), 9)),
    ] {
        std::fs::write(entry, &bad).unwrap();
        let c = child(&src, "-D FLAG=3", &env);
        assert_built(&c, what);
        assert!(!c.hit(), "a {what} entry is not used:\n{}", c.log);
        assert_eq!(c.out.as_deref(), Some(&[0, 1, 3][..]), "{what}: correct result");
        let now = std::fs::read(entry).unwrap_or_default();
        assert_ne!(now, bad, "the {what} entry is replaced");
        let again = child(&src, "-D FLAG=3", &env);
        assert!(again.hit(), "the rewritten entry hits ({what})");
        assert_eq!(again.out.as_deref(), Some(&[0, 1, 3][..]));
    }
}

/// The native code entry damaged in the same ways: the build compiles again (a JIT run, not a
/// native hit), gives the right result and rewrites the entry.
#[test]
fn corrupted_native_entry_is_detected_and_rebuilt() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("cache-corrupt-native");
    let env = with(cache_env(&dir), "CTS_KERNEL", "defines");
    let src = source_path("defines.cl");
    let first = child(&src, "-D FLAG=3", &env);
    assert_built(&first, "first build");
    let files = native_entries(dir.path());
    assert_eq!(files.len(), 1);
    let entry = &files[0];
    let good = std::fs::read(entry).unwrap();
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    for b in &mut flipped[mid..mid + 16] {
        *b ^= 0x5A;
    }
    for (what, bad) in [
        ("flipped", flipped),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("garbage", pattern(good.len(), 11)),
        ("empty", Vec::new()),
    ] {
        std::fs::write(entry, &bad).unwrap();
        let c = child(&src, "-D FLAG=3", &env);
        assert_built(&c, what);
        assert!(c.hit(), "the SPIR-V entry still hits ({what})");
        assert!(!c.native_hit(), "a {what} native entry is not used:\n{}", c.log);
        assert_eq!(c.out.as_deref(), Some(&[0, 1, 3][..]), "{what}: correct result");
        assert_ne!(
            std::fs::read(entry).unwrap_or_default(),
            bad,
            "the {what} entry is replaced"
        );
        let again = child(&src, "-D FLAG=3", &env);
        assert!(again.native_hit(), "the rewritten native entry hits ({what})");
        assert_eq!(again.out.as_deref(), Some(&[0, 1, 3][..]));
    }
}

#[test]
fn cache_off_never_hits() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("cache-off");
    let off = with(with(cache_env(&dir), "CLIFT_CACHE", "0"), "CTS_KERNEL", "defines");
    let src = source_path("defines.cl");
    for i in 0..2 {
        let c = child(&src, "-D OFFSET=1", &off);
        assert_built(&c, "build with the cache off");
        assert!(!c.hit(), "CLIFT_CACHE=0, build {i}: no hit");
        assert_eq!(c.out.as_deref(), Some(&[1, 0, -1][..]));
    }
    assert!(entries(dir.path()).is_empty(), "CLIFT_CACHE=0 writes no entry");
    assert!(
        native_entries(dir.path()).is_empty(),
        "CLIFT_CACHE=0 writes no native code"
    );
    // A warm cache is not used when it is off.
    let on = with(cache_env(&dir), "CTS_KERNEL", "defines");
    child(&src, "-D OFFSET=1", &on);
    assert!(child(&src, "-D OFFSET=1", &on).hit());
    assert!(
        !child(&src, "-D OFFSET=1", &off).hit(),
        "CLIFT_CACHE=0 ignores a warm cache"
    );
}

#[test]
fn missing_compiler_gives_compiler_not_available() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("cache-nocc");
    let src = source_path("defines.cl");
    for (var, tool) in [("CLIFT_CLANG", "clang"), ("CLIFT_LLVM_SPIRV", "llvm-spirv")] {
        let env = with(
            with(cache_env(&dir), var, "/nonexistent/cts-no-such-tool"),
            "CTS_NO_COMPILER",
            "1",
        );
        let c = child(&src, "", &env);
        assert_eq!(
            c.status,
            CL_COMPILER_NOT_AVAILABLE,
            "{var}=/nonexistent: clBuildProgram returned {}\nlog:\n{}",
            err_name(c.status),
            c.log
        );
        assert!(c.log.contains(tool), "the log names {tool}:\n{}", c.log);
        assert!(c.log.contains("install"), "the log says how to install it:\n{}", c.log);
        assert_eq!(c.compiler, CL_FALSE, "CL_DEVICE_COMPILER_AVAILABLE without {tool}");
        assert_eq!(
            c.field("CTS-SECOND status="),
            Some(CL_COMPILER_NOT_AVAILABLE.to_string()),
            "a second build fails the same way"
        );
        assert_eq!(
            c.field("CTS-COMPILE status="),
            Some(CL_COMPILER_NOT_AVAILABLE.to_string()),
            "clCompileProgram without {tool}"
        );
        assert_eq!(c.field("CTS-IL status="), Some("0".into()), "IL programs still build");
    }
    assert!(entries(dir.path()).is_empty(), "nothing was cached");
}
