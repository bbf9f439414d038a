//! `clift-bench`: the same host program on every requested OpenCL platform (by default Clift
//! and PoCL) in one process, printing per kernel the time to first result, the steady-state
//! kernel time, the result check against a host reference and the Clift/PoCL ratios, as
//! markdown, then, per platform, a build of one kernel from source in a new process with a
//! cold and with a warm kernel cache. See BENCHMARKS.md.
//!
//! ```text
//! OCL_ICD_VENDORS=<dir with clift.icd and pocl.icd> clift-bench [--size small|large] [--il]
//!     [--platform NAME]... [--kernel NAME]... [--reps N] [--runs N] [--timeout SECONDS]
//!     [--warm NAME]... [--no-warm]
//! ```

#![allow(clippy::missing_safety_doc)]

#[path = "../bench/cl.rs"]
mod cl;
#[path = "../bench/cmdbuf.rs"]
mod cmdbuf;
#[path = "../bench/fft.rs"]
mod fft;
#[path = "../bench/gemm.rs"]
mod gemm;
#[path = "../bench/kernels.rs"]
mod kernels;
#[path = "../bench/warm.rs"]
mod warm;

use cl::{Buf, Ctx, Kern, Platform, Prog, Sampler, R};
use cts::{c_void, CL_DEVICE_VERSION};
use kernels::{Arg, Class, Job, Size};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: clift-bench [options]
  --platform NAME   platform to run (repeatable; exact name, a substring, or 'pocl');
                    default: Clift and Portable Computing Language, whichever are present
  --size small|large  problem sizes (default small)
  --kernel NAME     kernel to run (repeatable; default all): vecadd saxpy reduce sgemm
                    mandelbrot histogram nbody hash vec4 daxpy ddot empty, and image_{linear,nearest}_{rgba8,float}_
                    {none,clamp,edge,repeat,mirror} (image_sample.cl through each sampler)
  --il              build from SPIR-V (clCreateProgramWithIL) on the platforms whose device
                    ingests it; the others build from source
  --reps N          fresh-context first-result measurements per kernel (default 3)
  --runs N          timed steady-state runs per kernel (default 10; fewer if over 3 s)
  --timeout S       give up (print what was measured, exit 2) when one platform spends more
                    than S seconds on one kernel (default 300)
  --warm NAME       kernel(s) built from source in two new processes per platform sharing a
                    fresh kernel cache, the second build measuring the warm cache
                    (repeatable; 'all' for every kernel; default: the --kernel ones)
  --no-warm         skip the new-process builds
  --command-buffer  instead of the kernels: 100 small launches enqueued one by one against
                    the same recorded into a cl_khr_command_buffer and replayed (host time of
                    the enqueue calls and time to completion; --runs batches, at least 100)
The ICD loader picks the platforms up from OCL_ICD_VENDORS (a folder of .icd files).
Every run uses fresh CLIFT_CACHE_DIR and POCL_CACHE_DIR folders, removed at the end.";

struct Opts {
    platforms: Vec<String>,
    size: Size,
    kernels: Vec<String>,
    il: bool,
    reps: usize,
    runs: usize,
    timeout: u64,
    warm: Vec<String>,
    command_buffer: bool,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        platforms: vec![],
        size: Size::Small,
        kernels: vec![],
        il: false,
        reps: 3,
        runs: 10,
        timeout: 300,
        warm: vec![],
        command_buffer: false,
    };
    let mut no_warm = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = |what: &str| it.next().ok_or_else(|| format!("{what} needs a value"));
        match a.as_str() {
            "--platform" => o.platforms.push(val("--platform")?),
            "--kernel" => {
                for k in val("--kernel")?.split(',') {
                    if !kernels::NAMES.contains(&k) {
                        return Err(format!("unknown kernel {k:?}; kernels: {}", kernels::NAMES.join(" ")));
                    }
                    o.kernels.push(k.to_string());
                }
            }
            "--size" => {
                o.size = match val("--size")?.as_str() {
                    "small" => Size::Small,
                    "large" => Size::Large,
                    s => return Err(format!("--size {s:?}: expected small or large")),
                }
            }
            "--warm" => {
                for k in val("--warm")?.split(',') {
                    if k == "all" {
                        o.warm.extend(kernels::NAMES.iter().map(|s| s.to_string()));
                    } else if kernels::NAMES.contains(&k) {
                        o.warm.push(k.to_string());
                    } else {
                        return Err(format!("unknown kernel {k:?}; kernels: {}", kernels::NAMES.join(" ")));
                    }
                }
            }
            "--no-warm" => no_warm = true,
            "--command-buffer" => o.command_buffer = true,
            "--il" => o.il = true,
            "--reps" => o.reps = val("--reps")?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--runs" => o.runs = val("--runs")?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--timeout" => o.timeout = val("--timeout")?.parse().map_err(|e| format!("--timeout: {e}"))?,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument {a:?}\n{USAGE}")),
        }
    }
    o.reps = o.reps.max(1);
    o.runs = o.runs.max(1);
    if o.kernels.is_empty() {
        o.kernels = kernels::NAMES.iter().map(|s| s.to_string()).collect();
    }
    if no_warm {
        o.warm.clear();
    } else if o.warm.is_empty() {
        o.warm = o.kernels.clone();
    }
    Ok(o)
}

// ---------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------

/// The phases of one time-to-first-result measurement.
#[derive(Clone, Copy, Default)]
struct Phases {
    create: Duration,
    build: Duration,
    kernel: Duration,
    first: Duration,
}

impl Phases {
    fn total(&self) -> Duration {
        self.create + self.build + self.kernel + self.first
    }
}

/// What one platform did with one kernel.
struct Outcome {
    platform: String,
    /// "source" or "SPIR-V".
    via: &'static str,
    /// The check's note, or what failed (phase and message, or the mismatch).
    result: Result<String, String>,
    /// One per fresh-context repetition, each with a never-seen-before program.
    cold: Vec<Phases>,
    /// Fresh context, the same program text as the first cold repetition (a kernel cache hits).
    again: Option<Phases>,
    /// Median steady-state time (for the launch micro-benchmark: mean per launch).
    steady: Option<Duration>,
    runs: usize,
}

impl Outcome {
    fn ok(&self) -> bool {
        self.result.is_ok()
    }
    fn cold_median(&self) -> Option<Phases> {
        if self.cold.is_empty() {
            return None;
        }
        let mut v = self.cold.clone();
        v.sort_by_key(|p| p.total());
        Some(v[v.len() / 2])
    }
}

struct Row {
    name: &'static str,
    class: Class,
    desc: String,
    work: f64,
    unit: &'static str,
    outcomes: Vec<Outcome>,
}

/// The program a platform builds: OpenCL C source or SPIR-V.
enum Input<'a> {
    Source(&'a str),
    Il(&'a [u8]),
}

/// A fresh tag per build, passed as a `-D` build option, so that no kernel cache can serve a
/// "cold" build: PoCL keeps one on disk, keyed by the preprocessed source (a comment would not
/// do) and the build options.
fn nonce() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    format!("{}_{}_{}", std::process::id(), t, N.fetch_add(1, Ordering::Relaxed))
}

/// A context object an argument refers to.
enum Held {
    Mem(Buf),
    Sampler(Sampler),
}

/// Buffers, images and samplers of a job in a context (not timed).
fn make_buffers(ctx: &Ctx, job: &Job) -> R<Vec<Option<Held>>> {
    job.args
        .iter()
        .map(|a| match a {
            Arg::Buf { size, init, .. } => ctx.buffer(*size, init.as_deref()).map(|b| Some(Held::Mem(b))),
            Arg::Image {
                format,
                width,
                height,
                data,
                out,
            } => ctx
                .image2d(*format, *width, *height, data, *out)
                .map(|b| Some(Held::Mem(b))),
            Arg::Sampler { addressing, filter } => {
                ctx.sampler(true, *addressing, *filter).map(|s| Some(Held::Sampler(s)))
            }
            _ => Ok(None),
        })
        .collect()
}

fn set_args(k: &Kern, job: &Job, bufs: &[Option<Held>]) -> R<()> {
    for (i, (a, b)) in job.args.iter().zip(bufs).enumerate() {
        let i = i as u32;
        match (a, b) {
            (Arg::Scalar(v), _) => k.arg_raw(i, v.len(), v.as_ptr() as *const c_void)?,
            (Arg::Local(n), _) => k.arg_raw(i, *n, std::ptr::null())?,
            (_, Some(Held::Mem(m))) => k.arg_raw(i, std::mem::size_of_val(&m.0), &m.0 as *const _ as *const c_void)?,
            (_, Some(Held::Sampler(s))) => {
                k.arg_raw(i, std::mem::size_of_val(&s.0), &s.0 as *const _ as *const c_void)?
            }
            (_, None) => return Err(format!("argument {i} has no object")),
        }
    }
    Ok(())
}

fn read_outputs(ctx: &Ctx, job: &Job, bufs: &[Option<Held>]) -> R<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for (a, b) in job.args.iter().zip(bufs) {
        if let (Arg::Buf { size, out: true, .. }, Some(Held::Mem(m))) = (a, b) {
            out.push(ctx.read(m, *size)?);
        }
    }
    for (a, b) in job.args.iter().zip(bufs) {
        if let (
            Arg::Image {
                width,
                height,
                data,
                out: true,
                ..
            },
            Some(Held::Mem(m)),
        ) = (a, b)
        {
            out.push(ctx.read_image2d(m, *width, *height, data.len())?);
        }
    }
    Ok(out)
}

/// A context left ready to run the kernel again.
struct Live {
    ctx: Ctx,
    _prog: Prog,
    kern: Kern,
    bufs: Vec<Option<Held>>,
}

/// From a fresh context: program creation, build, kernel creation, arguments, first enqueue and
/// clFinish, timed phase by phase. Buffer creation (with its data upload) is not timed.
fn first_result(p: &Platform, job: &Job, input: &Input, tag: &str) -> R<(Phases, Live)> {
    let ctx = Ctx::new(p).map_err(|e| format!("setup: {e}"))?;
    let bufs = make_buffers(&ctx, job).map_err(|e| format!("setup: {e}"))?;
    let mut ph = Phases::default();
    let t = Instant::now();
    let (prog, options) = match input {
        Input::Source(src) => (
            ctx.program_source(src)?,
            format!(
                "-cl-std=CL1.2 -DCLIFT_BENCH_BUILD={tag} {}",
                kernels::build_options(job.name)?
            ),
        ),
        Input::Il(il) => (ctx.program_il(il)?, format!("-DCLIFT_BENCH_BUILD={tag}")),
    };
    ph.create = t.elapsed();
    let t = Instant::now();
    prog.build(&options)?;
    ph.build = t.elapsed();
    let t = Instant::now();
    let kern = prog.kernel(kernels::entry(job.name))?;
    set_args(&kern, job, &bufs)?;
    ph.kernel = t.elapsed();
    let t = Instant::now();
    ctx.run(&kern, &job.offset, &job.global, &job.local)?;
    ph.first = t.elapsed();
    Ok((
        ph,
        Live {
            ctx,
            _prog: prog,
            kern,
            bufs,
        },
    ))
}

fn check(job: &Job, live: &Live) -> Result<String, String> {
    let out = read_outputs(&live.ctx, job, &live.bufs).map_err(|e| format!("read back: {e}"))?;
    (job.check)(&out).map_err(|e| format!("WRONG: {e}"))
}

/// Runs one kernel on one platform: `reps` cold first results (the first one checked), one
/// first result with the same program again, then the steady state in that context (checked
/// again afterwards).
fn measure(p: &Platform, job: &Job, input: &Input, via: &'static str, o: &Opts) -> Outcome {
    let mut out = Outcome {
        platform: p.label(),
        via,
        result: Err(String::new()),
        cold: vec![],
        again: None,
        steady: None,
        runs: 0,
    };
    let first_tag = nonce();
    for rep in 0..o.reps {
        let tag = if rep == 0 { first_tag.clone() } else { nonce() };
        match first_result(p, job, input, &tag) {
            Ok((ph, live)) => {
                out.cold.push(ph);
                if rep == 0 {
                    if let Err(e) = check(job, &live) {
                        out.result = Err(e);
                        return out;
                    }
                }
            }
            Err(e) => {
                out.result = Err(e);
                return out;
            }
        }
    }
    let live = match first_result(p, job, input, &first_tag) {
        Ok((ph, live)) => {
            out.again = Some(ph);
            live
        }
        Err(e) => {
            out.result = Err(e);
            return out;
        }
    };
    let run = || live.ctx.run(&live.kern, &job.offset, &job.global, &job.local);
    let steady = if job.class == Class::Launch {
        launch_rate(run)
    } else {
        steady_median(run, o.runs)
    };
    match steady {
        Ok((d, n)) => {
            out.steady = Some(d);
            out.runs = n;
        }
        Err(e) => {
            out.result = Err(format!("steady state: {e}"));
            return out;
        }
    }
    out.result = check(job, &live).map_err(|e| format!("after the steady-state runs: {e}"));
    out
}

/// Median of up to `runs` timed enqueue+finish after 2 warm-up runs; stops early (after at least
/// 3) once 3 s have passed.
fn steady_median(run: impl Fn() -> R<()>, runs: usize) -> R<(Duration, usize)> {
    run()?;
    run()?;
    let start = Instant::now();
    let mut v = Vec::new();
    while v.len() < runs && (v.len() < 3 || start.elapsed() < Duration::from_secs(3)) {
        let t = Instant::now();
        run()?;
        v.push(t.elapsed());
    }
    v.sort();
    Ok((v[v.len() / 2], v.len()))
}

/// Time of one enqueue+finish of the empty kernel: the median over batches of the mean of 100
/// launches (20 batches, or fewer, at least 3, once 2 s have passed), after 100 warm-up
/// launches. The median of batch means keeps a burst of load from another process on the
/// machine out of the figure. Returns the time and the number of launches measured.
fn launch_rate(run: impl Fn() -> R<()>) -> R<(Duration, usize)> {
    const BATCH: u32 = 100;
    for _ in 0..BATCH {
        run()?;
    }
    let start = Instant::now();
    let mut means = Vec::new();
    while means.len() < 20 && (means.len() < 3 || start.elapsed() < Duration::from_secs(2)) {
        let t = Instant::now();
        for _ in 0..BATCH {
            run()?;
        }
        means.push(t.elapsed() / BATCH);
    }
    means.sort();
    Ok((means[means.len() / 2], means.len() * BATCH as usize))
}

// ---------------------------------------------------------------------------------------------
// SPIR-V
// ---------------------------------------------------------------------------------------------

/// Assembles SPIR-V assembly with `spirv-as` (SPIRV-Tools; `CLIFT_SPIRV_AS` overrides), for the
/// target environment named by its `; Version:` header.
fn assemble(name: &str, text: &str) -> R<Vec<u8>> {
    let (maj, min) = cts::spvasm_version(text);
    let dir = std::env::temp_dir().join(format!("clift-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join(format!("{name}.spvasm"));
    let bin = dir.join(format!("{name}.spv"));
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let tool = std::env::var("CLIFT_SPIRV_AS").unwrap_or_else(|_| "spirv-as".into());
    let st = std::process::Command::new(&tool)
        .arg("--target-env")
        .arg(format!("spv{maj}.{min}"))
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .status()
        .map_err(|e| format!("{tool}: {e} (install spirv-tools or set CLIFT_SPIRV_AS)"))?;
    if !st.success() {
        return Err(format!("{tool} {name}.spvasm: {st}"));
    }
    let words = std::fs::read(&bin).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(words)
}

// ---------------------------------------------------------------------------------------------
// Machine description
// ---------------------------------------------------------------------------------------------

fn machine(plats: &[Platform]) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let flags = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags"))
        .unwrap_or_default();
    let simd: Vec<&str> = ["avx512f", "avx2", "fma", "avx", "sse4_2"]
        .into_iter()
        .filter(|f| flags.split_whitespace().any(|x| x == *f))
        .collect();
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let usable = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            libc::CPU_COUNT(&set) as i64
        } else {
            online
        }
    };
    let quota = std::fs::read_to_string("/sys/fs/cgroup/cpu.max")
        .ok()
        .and_then(|s| {
            let mut it = s.split_whitespace();
            let q: f64 = it.next()?.parse().ok()?;
            let p: f64 = it.next()?.parse().ok()?;
            Some(format!(", cgroup quota {:.1} CPUs", q / p))
        })
        .unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("MemTotal:")
                .map(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
        })
        .flatten()
        .map(|kb| format!("{:.1} GiB", kb / 1024.0 / 1024.0))
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut s = String::new();
    s += &format!("- CPU: {model} ({})\n", simd.join(", "));
    s += &format!("- Cores: {online} online, {usable} usable by this process{quota}\n");
    s += &format!("- Memory: {mem}\n");
    s += &format!("- Linux {}\n", kernel.trim());
    for p in plats {
        let threads = if p.is_clift() {
            format!(
                ", {} worker threads (CLIFT_THREADS={})",
                p.compute_units,
                std::env::var("CLIFT_THREADS").unwrap_or_else(|_| "unset".into())
            )
        } else {
            format!(", {} compute units", p.compute_units)
        };
        s += &format!(
            "- {}: {} — device {:?}, {}{threads}{}\n",
            p.label(),
            p.version,
            p.device_name,
            cl::device_string(p.dev, CL_DEVICE_VERSION),
            if p.il {
                ", ingests SPIR-V"
            } else {
                ", no SPIR-V ingestion"
            }
        );
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn fmt_ratio(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}x")
    } else {
        format!("{x:.2}x")
    }
}

fn short_result(o: &Outcome) -> String {
    match &o.result {
        Ok(n) => n.clone(),
        Err(e) if e.starts_with("WRONG") || e.contains(": WRONG") => "**WRONG**".into(),
        Err(_) => "**FAILED**".into(),
    }
}

fn report(rows: &[Row], hung: Option<(&str, &str)>) -> String {
    let mut s = String::new();
    s += "| kernel | problem | platform | program | result | first result | of which build | same program again | steady state | rate |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|\n";
    for r in rows {
        for o in &r.outcomes {
            let cold = o.cold_median();
            let steady = match (o.steady, r.class) {
                (Some(d), Class::Launch) => format!(
                    "{} per launch ({} launches, median of the means of {} batches)",
                    fmt_time(d),
                    o.runs,
                    o.runs / 100
                ),
                (Some(d), _) => format!("{} (median of {})", fmt_time(d), o.runs),
                (None, _) => "—".into(),
            };
            let rate = match o.steady {
                Some(d) if o.ok() && r.work > 0.0 => format!("{:.2} {}", r.work / d.as_secs_f64() / 1e9, r.unit),
                _ => "—".into(),
            };
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.name,
                r.desc,
                o.platform,
                o.via,
                short_result(o),
                cold.map(|c| format!("{} (median of {})", fmt_time(c.total()), o.cold.len()))
                    .unwrap_or_else(|| "—".into()),
                cold.map(|c| fmt_time(c.build)).unwrap_or_else(|| "—".into()),
                o.again.map(|c| fmt_time(c.total())).unwrap_or_else(|| "—".into()),
                steady,
                rate
            );
        }
    }
    if let Some((k, p)) = hung {
        s += &format!("| {k} | | {p} | | **HUNG** (timeout) | | | | | |\n");
    }

    // Clift against PoCL, when both ran.
    fn pair(r: &Row) -> Option<(&Outcome, &Outcome)> {
        let c = r.outcomes.iter().find(|o| o.platform == "Clift")?;
        let p = r.outcomes.iter().find(|o| o.platform == "PoCL")?;
        Some((c, p))
    }
    if rows.iter().any(|r| pair(r).is_some()) {
        s += "\nClift against PoCL (speedup = PoCL time / Clift time; shown only when both results are right):\n\n";
        s += "| kernel | class | first result: Clift | PoCL | speedup (target ≥ 10x) | steady: Clift | PoCL | speedup (target) |\n";
        s += "|---|---|---|---|---|---|---|---|\n";
        for r in rows {
            let Some((c, p)) = pair(r) else { continue };
            let both = c.ok() && p.ok();
            let why = if !c.ok() {
                "— (Clift failed)".to_string()
            } else {
                "— (PoCL failed)".to_string()
            };
            let t = |o: &Outcome| {
                o.cold_median()
                    .map(|x| fmt_time(x.total()))
                    .unwrap_or_else(|| "—".into())
            };
            let st = |o: &Outcome| o.steady.map(fmt_time).unwrap_or_else(|| "—".into());
            let ttfr = match (both, c.cold_median(), p.cold_median()) {
                (true, Some(a), Some(b)) => {
                    let x = b.total().as_secs_f64() / a.total().as_secs_f64();
                    format!("{} {}", fmt_ratio(x), if x >= 10.0 { "✓" } else { "✗" })
                }
                _ => why.clone(),
            };
            let (target, what) = match r.class {
                Class::Memory => (1.0, "≥ 1.0x"),
                Class::Compute => (0.5, "≥ 0.5x"),
                Class::Image => (1.5, "≥ 1.5x"),
                Class::Launch => (0.0, "Clift < 5 µs"),
            };
            let steady = match (both, c.steady, p.steady) {
                (true, Some(a), Some(b)) => {
                    let x = b.as_secs_f64() / a.as_secs_f64();
                    let met = if r.class == Class::Launch {
                        a < Duration::from_micros(5)
                    } else {
                        x >= target
                    };
                    format!("{} ({what}) {}", fmt_ratio(x), if met { "✓" } else { "✗" })
                }
                _ => why,
            };
            s += &format!(
                "| {} | {} | {} | {} | {ttfr} | {} | {} | {steady} |\n",
                r.name,
                r.class.label(),
                t(c),
                t(p),
                st(c),
                st(p)
            );
        }
    }

    let failures: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.outcomes.iter().filter_map(move |o| {
                o.result
                    .as_ref()
                    .err()
                    .map(|e| format!("- {} on {}: {e}", r.name, o.platform))
            })
        })
        .collect();
    if !failures.is_empty() {
        s += "\nFailures:\n\n";
        for f in failures {
            s += &f;
            s += "\n";
        }
    }
    s
}

/// What the kernel caches did for the "same program again" column: Clift's build times cold
/// and again (from source its OpenCL C cache skips clang and llvm-spirv and its native code
/// cache skips Cranelift; from SPIR-V the native code cache alone serves it).
fn cache_note(rows: &[Row]) -> Option<String> {
    let clift: Vec<&Outcome> = rows
        .iter()
        .flat_map(|r| r.outcomes.iter())
        .filter(|o| o.platform == "Clift" && o.ok())
        .collect();
    let range = |v: Vec<Duration>| -> Option<String> {
        let lo = v.iter().min()?;
        let hi = v.iter().max()?;
        Some(format!("{} to {}", fmt_time(*lo), fmt_time(*hi)))
    };
    let mut parts = Vec::new();
    for (via, what) in [
        (
            "source",
            "from source the same program again is served by Clift's OpenCL C cache and native code cache (clang, llvm-spirv and Cranelift all skipped)",
        ),
        (
            "SPIR-V",
            "from SPIR-V the same program again is served by Clift's native code cache (Cranelift skipped)",
        ),
    ] {
        let of: Vec<&&Outcome> = clift.iter().filter(|o| o.via == via).collect();
        let cold = range(of.iter().filter_map(|o| o.cold_median()).map(|c| c.build).collect());
        let again = range(of.iter().filter_map(|o| o.again).map(|c| c.build).collect());
        if let (Some(cold), Some(again)) = (cold, again) {
            parts.push(format!(
                "{what}: Clift's builds took {cold} cold and {again} for the same program again"
            ));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "Kernel caches: {}. PoCL's \"same program again\" column is served by its on-disk kernel cache.",
        parts.join("; ")
    ))
}

// ---------------------------------------------------------------------------------------------
// Watchdog: a kernel that never finishes must not hide what was measured before it.
// ---------------------------------------------------------------------------------------------

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());
static DEADLINE_MS: AtomicU64 = AtomicU64::new(0);
static CURRENT: Mutex<(String, String)> = Mutex::new((String::new(), String::new()));

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

fn start_watchdog() {
    std::thread::spawn(|| loop {
        std::thread::sleep(Duration::from_millis(200));
        let d = DEADLINE_MS.load(Ordering::Relaxed);
        if d != 0 && now_ms() > d {
            let (k, p) = CURRENT.lock().map(|c| c.clone()).unwrap_or_default();
            eprintln!("clift-bench: {k} on {p} did not finish within the timeout; giving up");
            // try_lock: the main thread may hold the lock only between kernels, briefly.
            if let Ok(rows) = ROWS.try_lock() {
                println!("{}", report(&rows, Some((&k, &p))));
            }
            std::process::exit(2);
        }
    });
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == warm::CHILD_FLAG {
        warm::child(&args[2], &args[3]);
    }
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("clift-bench: {e}");
            std::process::exit(1);
        }
    };

    // Kernel caches in fresh folders: the cold builds (each with a never-seen option) leave no
    // entries behind in the user's caches, and no old entry can serve a build. Set before any
    // platform is loaded (PoCL reads POCL_CACHE_DIR when it starts).
    let cache_dir = warm::fresh_dir("cache");
    std::env::set_var("CLIFT_CACHE_DIR", cache_dir.join("clift"));
    std::env::set_var("POCL_CACHE_DIR", cache_dir.join("pocl"));

    // Platforms, in the order asked for.
    let all: Vec<Platform> = cl::platforms()
        .into_iter()
        .filter_map(|id| match Platform::new(id) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("clift-bench: skipping a platform: {e}");
                None
            }
        })
        .collect();
    let wanted: Vec<String> = if o.platforms.is_empty() {
        vec!["Clift".into(), "Portable Computing Language".into()]
    } else {
        o.platforms.clone()
    };
    let mut plats: Vec<Platform> = Vec::new();
    let mut pool = all;
    for w in &wanted {
        let wl = w.to_lowercase();
        let pos = pool.iter().position(|p| {
            let n = p.name.to_lowercase();
            n == wl || (wl == "pocl" && p.label() == "PoCL") || n.contains(&wl)
        });
        match pos {
            Some(i) => plats.push(pool.remove(i)),
            None if o.platforms.is_empty() => eprintln!("clift-bench: platform {w:?} not found; running without it"),
            None => {
                eprintln!(
                    "clift-bench: platform {w:?} not found (OCL_ICD_VENDORS={:?})",
                    std::env::var("OCL_ICD_VENDORS").unwrap_or_default()
                );
                std::process::exit(1);
            }
        }
    }
    if plats.is_empty() {
        eprintln!("clift-bench: no platform to run; set OCL_ICD_VENDORS to a folder holding clift.icd and pocl.icd");
        std::process::exit(1);
    }

    println!("# clift-bench\n");
    print!("{}", machine(&plats));
    if o.command_buffer {
        let runs = o.runs.max(100);
        let mut rows = Vec::new();
        for p in &plats {
            eprintln!("clift-bench: command-buffer replay on {}", p.label());
            match cmdbuf::measure(p, runs) {
                Ok(r) => rows.push(r),
                Err(e) => println!("- {}: {e}\n", p.label()),
            }
        }
        println!("## Command-buffer replay against one-by-one enqueue\n");
        print!("{}", cmdbuf::table(&rows, runs, fmt_time));
        return;
    }

    println!(
        "- Sizes: {}; program: {}; {} fresh-context first results per kernel (each a program no cache has seen), steady state over up to {} runs after 2 warm-ups\n",
        if o.size == Size::Large { "large" } else { "small" },
        if o.il { "SPIR-V where the device ingests it, else source" } else { "OpenCL C source" },
        o.reps,
        o.runs
    );

    start_watchdog();
    for name in &o.kernels {
        let (src, spvasm) = kernels::sources(name);
        eprintln!("clift-bench: {name}: preparing data and host reference");
        let job = kernels::job(name, o.size).expect("known kernel");
        let il = if o.il && !spvasm.is_empty() && plats.iter().any(|p| p.il) {
            match assemble(name, spvasm) {
                Ok(b) => Some(b),
                Err(e) => {
                    eprintln!("clift-bench: {e}; building {name} from source");
                    None
                }
            }
        } else {
            None
        };
        let mut row = Row {
            name: job.name,
            class: job.class,
            desc: job.desc.clone(),
            work: job.work,
            unit: job.unit,
            outcomes: vec![],
        };
        for p in &plats {
            let (input, via) = match &il {
                Some(b) if p.il => (Input::Il(b), "SPIR-V"),
                _ => (Input::Source(src), "source"),
            };
            eprintln!("clift-bench: {name} on {} ({via})", p.label());
            *CURRENT.lock().unwrap() = (name.clone(), p.label());
            DEADLINE_MS.store(now_ms() + o.timeout * 1000, Ordering::Relaxed);
            let out = measure(p, &job, &input, via, &o);
            DEADLINE_MS.store(0, Ordering::Relaxed);
            if let Err(e) = &out.result {
                eprintln!("clift-bench:   {e}");
            }
            row.outcomes.push(out);
        }
        ROWS.lock().unwrap().push(row);
    }
    DEADLINE_MS.store(0, Ordering::Relaxed);

    let mut warm_rows = Vec::new();
    for name in &o.warm {
        for p in &plats {
            eprintln!("clift-bench: {name} on {}: builds in new processes", p.label());
            *CURRENT.lock().unwrap() = (name.clone(), format!("{} (new-process build)", p.label()));
            DEADLINE_MS.store(now_ms() + o.timeout * 1000, Ordering::Relaxed);
            let r = warm::measure(p, name, 3);
            DEADLINE_MS.store(0, Ordering::Relaxed);
            for e in [&r.cold, &r.warm].into_iter().filter_map(|b| b.as_ref().err()) {
                eprintln!("clift-bench:   {e}");
            }
            warm_rows.push(r);
        }
    }

    let rows = ROWS.lock().unwrap();
    println!("{}", report(&rows, None));
    if let Some(note) = cache_note(&rows) {
        println!("{note}");
    }
    if !warm_rows.is_empty() {
        println!(
            "\n## Builds from OpenCL C in a new process\n\n\
             Per platform, two child processes build the kernel from source with `{}` and the \
             same kernel cache folder, fresh for the first; the time is `clBuildProgram`'s. The \
             first child's build is cold (Clift's build log splits it into clang, llvm-spirv and \
             Clift's JIT), the second one's is served by the cache. Three such pairs, each with \
             a fresh folder; medians.\n",
            warm::OPTIONS
        );
        println!("{}", warm::report(&warm_rows));
    }
    let _ = std::fs::remove_dir_all(&cache_dir);
}
