//! From clang's bitcode to SPIR-V along the optimized path.
//!
//! clang emits its front end's IR (`-O2 -Xclang -disable-llvm-passes`: the `-O2` attributes,
//! TBAA and lifetime markers, no LLVM passes yet); `opt` runs LLVM's `-O2` pipeline on it, as
//! opt prints it, less the passes and options listed in [`pipeline`] that make `freeze`, vector
//! masks or sunk calls with non-constant sampler arguments. llvm-spirv itself then checks the
//! result (it parses the bitcode and refuses what it cannot translate, naming it). When it
//! refuses, the program is legalized, still optimized:
//! 1. the same pipeline runs again with the native integer widths named in the data layout
//!    (`n8:16:32:64`). clang's `spir64` layout names none, and LLVM then treats every width as
//!    equally good: InstCombine narrows a `switch` over `x & 3` to `switch i2`, which SPIR-V
//!    cannot express ("InvalidBitWidth"). With native widths LLVM keeps 8/16/32/64-bit
//!    integers, as for every CPU target. (Not the first choice: with 64-bit integers native,
//!    InstCombine also does 32-bit index arithmetic in 64 bits, a shape Clift's
//!    four-work-items-at-a-time path takes less often.)
//! 2. LLVM's legalizing passes ([`LEGALIZATIONS`]) run on that IR.
//!
//! Only when both fail is the unoptimized IR translated, and the build log says so, verbose or
//! not; when even that fails the build fails with llvm-spirv's message for the optimized IR.

use super::pipeline;
use super::server::{self, Tool};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// clang-15's data layout for `spir64` plus the native integer widths (`n8:16:32:64`): only
/// an optimization hint (which widths LLVM may introduce), no change to sizes or alignments.
pub const SPIR64_LAYOUT_WITH_NATIVE_INTS: &str =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64";

/// The first legalization: the -O2 pipeline again, with the native integer widths named.
pub const NATIVE_INTS: &str = "-O2 pipeline with native integer widths (n8:16:32:64)";

/// LLVM passes that turn optimized IR llvm-spirv 15 refused into an equivalent form it
/// translates, tried in order on the optimized IR: (name, opt pipeline).
/// - `scalarizer` splits vector operations into per-element ones: vector forms of intrinsics
///   llvm-spirv 15 does not map (InstCombine makes `llvm.usub.sat.v4i32` of
///   `x > y ? x - y : 0` on `uint4`, on which llvm-spirv 15 asserts) become scalar ones it
///   maps, vector `i1` masks become scalar compares;
/// - `lowerswitch` turns every `switch` into compare-and-branch trees;
/// - `lower-constant-intrinsics` replaces `llvm.is.constant` and `llvm.objectsize`.
pub const LEGALIZATIONS: &[(&str, &str)] = &[(
    "scalarizer, lowerswitch, lower-constant-intrinsics",
    "function(scalarizer,lowerswitch,lower-constant-intrinsics,instsimplify,dce)",
)];

/// The programs of the optimized path.
pub struct Tools<'a> {
    pub clang: &'a Path,
    pub opt: Option<&'a Path>,
    pub llvm_spirv: &'a Path,
}

/// How the verbose-only route lines start (a fallback's note starts otherwise: always shown).
pub const ROUTE_PREFIX: &str = "Clift: front end:";

/// Which path a program's SPIR-V took.
pub enum Route {
    /// `-cl-opt-disable`: unoptimized IR, as asked.
    Unoptimized,
    /// LLVM's -O2 pipeline, translated as it came.
    Optimized { pipeline: &'static str },
    /// LLVM's -O2 pipeline, then legalizing passes after llvm-spirv refused.
    Legalized {
        pipeline: &'static str,
        passes: &'static str,
        refusal: String,
    },
    /// llvm-spirv refused the optimized IR even after legalizing: unoptimized IR.
    Fallback { refusal: String },
}

impl Route {
    /// The build log's line about the route: for `Fallback` always shown, for the others only
    /// with CLIFT_BUILD_LOG=verbose.
    pub fn describe(&self) -> String {
        match self {
            Route::Unoptimized => "Clift: front end: unoptimized IR (-cl-opt-disable), llvm-spirv\n".into(),
            Route::Optimized { pipeline } => format!("Clift: front end: optimized IR ({pipeline}), llvm-spirv\n"),
            Route::Legalized {
                pipeline,
                passes,
                refusal,
            } => format!(
                "Clift: front end: optimized IR ({pipeline}), legalized by LLVM's {passes} after llvm-spirv refused it ({}), llvm-spirv\n",
                first_line(refusal)
            ),
            Route::Fallback { refusal } => format!(
                "Clift note: llvm-spirv cannot translate this program's optimized IR ({}); it was translated from unoptimized (-O0) IR, and its kernels may run many times slower\n",
                first_line(refusal)
            ),
        }
    }

    pub fn is_fallback(&self) -> bool {
        matches!(self, Route::Fallback { .. })
    }
}

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or("no message")
}

/// The SPIR-V and the route it took.
pub struct Translation {
    pub spirv: Vec<u8>,
    pub route: Route,
    /// Time spent in `opt` (LLVM's optimizer, which clang runs by itself when opt is absent).
    pub optimizer_ms: f64,
}

fn run(tool: Tool, program: &Path, dir: &Path, args: &[OsString]) -> Result<std::process::Output, String> {
    server::run(tool, program, dir, args).map_err(|e| format!("cannot run {}: {e}\n", program.display()))
}

/// The SPIR-V extensions llvm-spirv may use: those of the OpenCL extensions the device
/// reports whose built-ins it translates to extension instructions (without them it refuses
/// the built-ins, or declares the Shader capability for OpBitFieldInsert and friends).
pub fn spirv_ext_flag() -> Option<&'static str> {
    static FLAG: OnceLock<Option<String>> = OnceLock::new();
    FLAG.get_or_init(make_spirv_ext_flag).as_deref()
}

fn make_spirv_ext_flag() -> Option<String> {
    let f = &crate::device::FEATURES;
    let mut items = Vec::new();
    for (cl, spv) in [
        ("cl_khr_integer_dot_product", "SPV_KHR_integer_dot_product"),
        ("cl_khr_extended_bit_ops", "SPV_KHR_bit_instructions"),
        ("cl_ext_float_atomics", "SPV_EXT_shader_atomic_float_add"),
        ("cl_ext_float_atomics", "SPV_EXT_shader_atomic_float_min_max"),
        ("cl_khr_subgroup_rotate", "SPV_KHR_subgroup_rotate"),
    ] {
        if f.has_extension(cl) {
            items.push(format!("+{spv}"));
        }
    }
    (!items.is_empty()).then(|| format!("--spirv-ext={}", items.join(",")))
}

/// llvm-spirv's arguments to translate `input` to `program.spv`.
fn llvm_spirv_args(input: &str) -> Vec<OsString> {
    // Keeps kernel_arg_type and kernel_arg_type_qual as OpStrings (clGetKernelArgInfo).
    let mut args: Vec<OsString> = vec!["--preserve-ocl-kernel-arg-type-metadata-through-string".into()];
    args.extend(spirv_ext_flag().map(OsString::from));
    args.extend([input.into(), "-o".into(), "program.spv".into()]);
    args
}

/// llvm-spirv on `input`: Ok(SPIR-V) or Err(its message).
fn llvm_spirv(tools: &Tools, dir: &Path, input: &str) -> Result<Result<Vec<u8>, String>, String> {
    let out = run(Tool::LlvmSpirv, tools.llvm_spirv, dir, &llvm_spirv_args(input))?;
    if !out.status.success() {
        let mut msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if out.status.code().is_none() {
            // Killed by a signal (llvm-spirv 15 crashes on some input, inline assembly for one).
            msg = format!("llvm-spirv crashed ({}):\n{msg}", out.status);
        } else if msg.is_empty() {
            msg = format!("llvm-spirv ended with {}", out.status);
        }
        return Ok(Err(msg));
    }
    std::fs::read(dir.join("program.spv"))
        .map(Ok)
        .map_err(|e| format!("cannot read the SPIR-V: {e}\n"))
}

/// opt's arguments to run `passes` from `input` to `output`.
fn opt_args(passes: &str, native_ints: bool, input: &str, output: &str) -> Vec<OsString> {
    let layout: OsString = if native_ints {
        format!("--data-layout={SPIR64_LAYOUT_WITH_NATIVE_INTS}").into()
    } else {
        // The module's own layout (an empty override is none).
        "--data-layout=".into()
    };
    vec![
        layout,
        // With 64-bit integers native, IndVarSimplify widens a 32-bit loop counter to 64
        // bits and puts the widened trip count in a block before the loop. Clift runs
        // work-items in 32-bit SIMD lanes and takes a one-block loop right behind its guard
        // that way, so the counter stays as the program wrote it (as clang -O2 left it).
        "-indvars-widen-indvars=false".into(),
        format!("-passes={passes}").into(),
        input.into(),
        "-o".into(),
        output.into(),
    ]
}

/// `opt` with `passes` from `input` to `output`.
fn opt(opt: &Path, dir: &Path, passes: &str, native_ints: bool, input: &str, output: &str) -> Result<(), String> {
    let out = run(Tool::Opt, opt, dir, &opt_args(passes, native_ints, input, output))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}error: LLVM's optimizer ({}) failed\n",
            String::from_utf8_lossy(&out.stderr),
            opt.display()
        ))
    }
}

/// The edited `-O2` pipeline of this `opt`, worked out once per process.
pub fn o2_pipeline(opt: &Path) -> Result<&'static str, String> {
    static PIPELINE: OnceLock<Result<String, String>> = OnceLock::new();
    PIPELINE
        .get_or_init(|| {
            let out = Command::new(opt)
                // An empty module from standard input: the pipeline does not depend on it.
                .args(["-passes=default<O2>", "-print-pipeline-passes", "-disable-output"])
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("cannot run {}: {e}", opt.display()))?;
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text.lines().find(|l| l.contains("verify")).unwrap_or_default();
            let passes = pipeline::parse(line).map_err(|e| {
                format!(
                    "{} printed no usable -O2 pipeline ({e}): {}",
                    opt.display(),
                    String::from_utf8_lossy(&out.stderr)
                )
            })?;
            Ok(pipeline::render(&pipeline::edit(passes)))
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// The optimized route in one request to the compile server: clang with `clang_args` (which
/// name `program.bc` as its output), the edited -O2 pipeline, llvm-spirv, the modules passed
/// in memory (`server::run_pipeline`). None when that cannot be asked (no opt, no server for
/// these programs) or a step after clang failed: then clang runs again and `translate` takes
/// the usual steps and routes, so every route, message and failure stays as it was.
pub fn pipelined(tools: &Tools, dir: &Path, clang_args: &[OsString]) -> Option<(server::Pipelined, &'static str)> {
    let opt_path = tools.opt?;
    let passes = o2_pipeline(opt_path).ok()?;
    let opt = opt_args(passes, false, "program.bc", "program.opt.bc");
    let spirv = llvm_spirv_args("program.opt.bc");
    let done = server::run_pipeline(
        [tools.clang, opt_path, tools.llvm_spirv],
        dir,
        [clang_args, &opt, &spirv],
    )?;
    Some((done, OPT_PIPELINE_NAME))
}

/// The route's name for LLVM's pipeline run by opt.
pub const OPT_PIPELINE_NAME: &str = "LLVM -O2 pipeline by opt";

/// Translates `program.bc` in `dir`, which clang wrote with `clang_args`; the fallback
/// recompiles with those arguments at `-O0`.
pub fn translate(tools: &Tools, dir: &Path, clang_args: &[OsString], opt_disable: bool) -> Result<Translation, String> {
    if opt_disable {
        return match llvm_spirv(tools, dir, "program.bc")? {
            Ok(spirv) => Ok(Translation {
                spirv,
                route: Route::Unoptimized,
                optimizer_ms: 0.0,
            }),
            Err(msg) => Err(format!("{msg}\nerror: translation to SPIR-V failed\n")),
        };
    }
    let started = std::time::Instant::now();
    let (input, pipeline_name) = match tools.opt {
        Some(opt_path) => {
            let passes = o2_pipeline(opt_path)?;
            opt(opt_path, dir, passes, false, "program.bc", "program.opt.bc")?;
            ("program.opt.bc", OPT_PIPELINE_NAME)
        }
        // Without opt, clang ran LLVM's -O2 pipeline itself (see `clang_optimizes`).
        None => ("program.bc", "clang -O2"),
    };
    let mut optimizer_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut refusal = match llvm_spirv(tools, dir, input)? {
        Ok(spirv) => {
            return Ok(Translation {
                spirv,
                route: Route::Optimized {
                    pipeline: pipeline_name,
                },
                optimizer_ms,
            })
        }
        Err(msg) => msg,
    };
    if let Some(opt_path) = tools.opt {
        // The same pipeline with the native integer widths named: LLVM then makes no `i2`.
        let started = std::time::Instant::now();
        let passes = o2_pipeline(opt_path)?;
        opt(opt_path, dir, passes, true, "program.bc", "program.native.bc")?;
        optimizer_ms += started.elapsed().as_secs_f64() * 1e3;
        if let Ok(spirv) = llvm_spirv(tools, dir, "program.native.bc")? {
            return Ok(Translation {
                spirv,
                route: Route::Legalized {
                    pipeline: pipeline_name,
                    passes: NATIVE_INTS,
                    refusal,
                },
                optimizer_ms,
            });
        }
        for (name, passes) in LEGALIZATIONS {
            if let Err(e) = opt(opt_path, dir, passes, true, "program.native.bc", "program.legal.bc") {
                refusal.push_str(&format!("\n(legalizing with {name} failed: {e})"));
                continue;
            }
            if let Ok(spirv) = llvm_spirv(tools, dir, "program.legal.bc")? {
                return Ok(Translation {
                    spirv,
                    route: Route::Legalized {
                        pipeline: pipeline_name,
                        passes: name,
                        refusal,
                    },
                    optimizer_ms,
                });
            }
        }
    }
    // The last resort: the unoptimized IR of the same program.
    let args: Vec<OsString> = unoptimized_args(clang_args);
    let recompiled = run(Tool::Clang, tools.clang, dir, &args)?;
    if recompiled.status.success() {
        if let Ok(spirv) = llvm_spirv(tools, dir, "program.bc")? {
            return Ok(Translation {
                spirv,
                route: Route::Fallback { refusal },
                optimizer_ms,
            });
        }
    }
    Err(format!("{refusal}\nerror: translation to SPIR-V failed\n"))
}

/// clang's arguments for the optimized path: `-O2`, and when `opt` runs the pipeline, the front
/// end's IR only.
pub fn clang_optimizes(tools: &Tools) -> Vec<&'static str> {
    match tools.opt {
        Some(_) => vec!["-O2", "-Xclang", "-disable-llvm-passes"],
        None => vec!["-O2"],
    }
}

/// The same clang command unoptimized the way `-cl-opt-disable` is (`UNOPTIMIZED_FLAGS`: C99
/// inline definitions survive it, plain `-O0` would drop them).
fn unoptimized_args(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-Xclang" && args.get(i + 1).is_some_and(|n| n == "-disable-llvm-passes") {
            i += 2;
            continue;
        }
        if a == "-O2" {
            out.extend(super::UNOPTIMIZED_FLAGS.iter().map(OsString::from));
        } else {
            out.push(a.clone());
        }
        i += 1;
    }
    out
}

/// `opt` beside clang: `CLIFT_OPT` when set, else the `opt` with clang's version suffix
/// (`clang-15` → `opt-15`; bitcode is read only by the same or a newer LLVM), else none.
pub fn find_opt(clang: &Path) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CLIFT_OPT").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let name = clang.file_name()?.to_str()?;
    let suffix = name.strip_prefix("clang")?;
    let beside = clang.with_file_name(format!("opt{suffix}"));
    if beside.is_file() {
        return Some(beside);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(format!("opt{suffix}")))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unoptimized_args_drop_the_front_end_only_flag() {
        let args: Vec<OsString> = [
            "-c",
            "-O2",
            "-Xclang",
            "-disable-llvm-passes",
            "-Xclang",
            "-cl-ext=-all",
            "x.cl",
        ]
        .iter()
        .map(|s| s.into())
        .collect();
        let got: Vec<String> = unoptimized_args(&args)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            got,
            [
                "-c",
                "-O1",
                "-Xclang",
                "-disable-llvm-passes",
                "-U__OPTIMIZE__",
                "-Xclang",
                "-cl-ext=-all",
                "x.cl"
            ]
        );
    }
}
