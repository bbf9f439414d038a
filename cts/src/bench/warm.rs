//! Builds in a new process: for each platform, the benchmark runs itself twice as a child
//! (`--warm-child`), each building one kernel from OpenCL C source with the same source and
//! options and a kernel cache in the same fresh directory. The first child fills the cache (its
//! build is a cold build in a new process, and Clift's build log splits it into clang,
//! llvm-spirv and Cranelift time); the second child's `clBuildProgram` is the warm-cache build.
//! Three such pairs, each with its own fresh cache directory; the tables give the medians.

use crate::cl::{Ctx, Platform, R};
use crate::kernels;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The hidden flag that makes the benchmark a child: `--warm-child PLATFORM_NAME KERNEL`.
pub const CHILD_FLAG: &str = "--warm-child";

/// The build options of both children (the same as the source path's cold builds, without
/// the never-seen `-D`).
pub const OPTIONS: &str = "-cl-std=CL1.2";

/// What the child prints before its build log.
const TAG: &str = "clift-bench-child build_ns=";

/// The child: builds `kernel` from source on the platform named `platform`, prints the
/// `clBuildProgram` wall time and the build log, and exits.
pub fn child(platform: &str, kernel: &str) -> ! {
    let res = (|| -> R<(Duration, String)> {
        let p = crate::cl::platforms()
            .into_iter()
            .filter_map(|id| Platform::new(id).ok())
            .find(|p| p.name == platform)
            .ok_or_else(|| format!("platform {platform:?} not found"))?;
        let (src, _) = kernels::sources(kernel);
        let ctx = Ctx::new(&p)?;
        let prog = ctx.program_source(src)?;
        let t = Instant::now();
        prog.build(&format!("{OPTIONS} {}", kernels::build_options(kernel)?))?;
        let build = t.elapsed();
        prog.kernel(kernels::entry(kernel))?;
        Ok((build, prog.log()))
    })();
    match res {
        Ok((build, log)) => {
            println!("{TAG}{}\n{log}", build.as_nanos());
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("clift-bench child: {e}");
            std::process::exit(1)
        }
    }
}

/// One child's build.
pub struct Build {
    /// `clBuildProgram` wall time.
    pub time: Duration,
    /// From Clift's build log: clang and llvm-spirv time (ms), absent on a cache hit.
    pub clang_ms: Option<f64>,
    pub spirv_ms: Option<f64>,
    /// From Clift's build log: Cranelift time (ms).
    pub jit_ms: Option<f64>,
    /// Clift's build log says the OpenCL C compilation came from the cache.
    pub hit: bool,
    /// From Clift's build log: the machine code came from the native code cache, loaded in
    /// this many ms (no Cranelift run).
    pub native_ms: Option<f64>,
}

/// Parses "Clift: clang X ms, llvm-spirv Y ms", "Clift: N kernel(s) compiled in Z ms" and
/// "taken from the cache" out of a build log.
fn parse_log(log: &str) -> (Option<f64>, Option<f64>, Option<f64>, bool, Option<f64>) {
    let num = |s: &str| s.trim().trim_end_matches("ms").trim().parse::<f64>().ok();
    let (mut clang, mut spirv, mut jit, mut hit, mut native) = (None, None, None, false, None);
    for l in log.lines() {
        if let Some(rest) = l.trim().strip_prefix("Clift: clang ") {
            if let Some((c, s)) = rest.split_once(", llvm-spirv ") {
                clang = num(c);
                spirv = num(s);
            }
        } else if let Some((_, z)) = l.split_once("kernel(s) compiled in ") {
            jit = num(z);
        } else if let Some((_, z)) = l.split_once("kernel(s) loaded from the native code cache in ") {
            native = num(z);
        }
        hit |= l.contains("taken from the cache");
    }
    (clang, spirv, jit, hit, native)
}

fn run_child(p: &Platform, kernel: &str, clift_cache: &Path, pocl_cache: &Path) -> R<Build> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(exe)
        .args([CHILD_FLAG, &p.name, kernel])
        .env("CLIFT_CACHE_DIR", clift_cache)
        // Clift's build log carries the clang / llvm-spirv / JIT split only when asked.
        .env("CLIFT_BUILD_LOG", "verbose")
        .env("POCL_CACHE_DIR", pocl_cache)
        .env_remove("CLIFT_CACHE")
        .output()
        .map_err(|e| format!("spawning the child: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("child {}: {}", out.status, err.trim()));
    }
    let rest = stdout
        .split_once(TAG)
        .map(|(_, r)| r)
        .ok_or_else(|| format!("child printed no build time: {stdout:?}"))?;
    let (ns, log) = rest.split_once('\n').unwrap_or((rest, ""));
    let ns: u64 = ns.trim().parse().map_err(|e| format!("child build time {ns:?}: {e}"))?;
    let (clang_ms, spirv_ms, jit_ms, hit, native_ms) = parse_log(log);
    Ok(Build {
        time: Duration::from_nanos(ns),
        clang_ms,
        spirv_ms,
        jit_ms,
        hit,
        native_ms,
    })
}

/// The children's builds on one platform: the median of `rounds` cold builds and of as
/// many warm ones.
pub struct Row {
    pub kernel: String,
    pub platform: String,
    pub clift: bool,
    pub rounds: usize,
    pub cold: R<Build>,
    pub warm: R<Build>,
    /// Files in the platform's cache directory after the first child.
    pub cache_files: usize,
}

fn count_files(d: &Path) -> usize {
    std::fs::read_dir(d)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        count_files(&p)
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

/// A fresh directory under the system temporary directory.
pub fn fresh_dir(what: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "clift-bench-{}-{what}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::create_dir_all(&d);
    d
}

/// The build of median time (the first failure, if any failed).
fn median(mut v: Vec<R<Build>>) -> R<Build> {
    if let Some(i) = v.iter().position(|b| b.is_err()) {
        return v.swap_remove(i);
    }
    let mut v: Vec<Build> = v.into_iter().map(|b| b.unwrap()).collect();
    v.sort_by_key(|b| b.time);
    let mid = v.len() / 2;
    Ok(v.swap_remove(mid))
}

/// `rounds` times: a first child with cache directories no build has used, then a second one
/// with the same directories.
pub fn measure(p: &Platform, kernel: &str, rounds: usize) -> Row {
    let (mut cold, mut warm, mut cache_files) = (vec![], vec![], 0);
    for round in 0..rounds.max(1) {
        let dir = fresh_dir("warm");
        let (clift_cache, pocl_cache) = (dir.join("clift"), dir.join("pocl"));
        let _ = std::fs::create_dir_all(&clift_cache);
        let _ = std::fs::create_dir_all(&pocl_cache);
        let c = run_child(p, kernel, &clift_cache, &pocl_cache);
        if round == 0 {
            cache_files = count_files(if p.is_clift() { &clift_cache } else { &pocl_cache });
        }
        let failed = c.is_err();
        cold.push(c);
        warm.push(if failed {
            Err("not run (the first child failed)".into())
        } else {
            run_child(p, kernel, &clift_cache, &pocl_cache)
        });
        let _ = std::fs::remove_dir_all(&dir);
        if failed {
            break;
        }
    }
    Row {
        kernel: kernel.to_string(),
        platform: p.label(),
        clift: p.is_clift(),
        rounds: cold.len(),
        cold: median(cold),
        warm: median(warm),
        cache_files,
    }
}

/// Milliseconds, with two decimals under 10 ms (the 2 ms target needs them).
fn fmt_ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.1} ms")
    }
}

/// The markdown table of the new-process builds.
pub fn report(rows: &[Row]) -> String {
    let ms = |x: Option<f64>| x.map(fmt_ms).unwrap_or_else(|| "—".into());
    let mut s = String::new();
    s += "| kernel | platform | cold build (new process) | clang | llvm-spirv | Clift JIT | warm-cache build (new process) | of which Clift JIT (or native code load) | cache | target: warm < 2 ms |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|\n";
    for r in rows {
        let (cold, clang, spirv, jit) = match &r.cold {
            Ok(b) => (
                format!("{} (median of {})", fmt_ms(b.time.as_secs_f64() * 1e3), r.rounds),
                ms(b.clang_ms),
                ms(b.spirv_ms),
                ms(b.jit_ms),
            ),
            Err(_) => ("**FAILED**".into(), "—".into(), "—".into(), "—".into()),
        };
        let (warm, wjit, cache, target) = match &r.warm {
            Ok(b) => {
                let cache = if r.clift {
                    if b.hit && b.native_ms.is_some() {
                        "hit (SPIR-V and native code)".to_string()
                    } else if b.hit {
                        "hit".to_string()
                    } else {
                        "**miss**".to_string()
                    }
                } else {
                    format!("PoCL's own ({} files after the first build)", r.cache_files)
                };
                let target = if r.clift {
                    if b.time < Duration::from_millis(2) {
                        "✓"
                    } else {
                        "✗"
                    }
                } else {
                    "—"
                };
                (
                    format!("{} (median of {})", fmt_ms(b.time.as_secs_f64() * 1e3), r.rounds),
                    match b.native_ms {
                        Some(n) => format!("no JIT: native code loaded in {}", fmt_ms(n)),
                        None => ms(b.jit_ms),
                    },
                    cache,
                    target.to_string(),
                )
            }
            Err(_) => ("**FAILED**".into(), "—".into(), "—".into(), "—".into()),
        };
        s += &format!(
            "| {} | {} | {cold} | {clang} | {spirv} | {jit} | {warm} | {wjit} | {cache} | {target} |\n",
            r.kernel, r.platform
        );
    }
    let failures: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            [("first", &r.cold), ("second", &r.warm)]
                .into_iter()
                .filter_map(move |(which, b)| {
                    b.as_ref()
                        .err()
                        .map(|e| format!("- {} on {}, {which} child: {e}\n", r.kernel, r.platform))
                })
        })
        .collect();
    if !failures.is_empty() {
        s += "\nFailures:\n\n";
        s += &failures.concat();
    }
    s
}
