//! OpenCL C to SPIR-V: clang compiles the source to LLVM bitcode for `spir64`, and the
//! SPIR-V/LLVM translator turns that into SPIR-V, which then takes Clift's SPIR-V path. Both
//! programs are found at run time.

use crate::options::Options;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The external programs: `CLIFT_CLANG` / `CLIFT_LLVM_SPIRV` when set, else the first of the
/// versioned and plain names found on PATH.
pub struct Toolchain {
    pub clang: PathBuf,
    pub llvm_spirv: PathBuf,
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
    if let Some(path) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
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
                (Some(clang), Some(llvm_spirv)) => Ok(Toolchain { clang, llvm_spirv }),
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
    fn new() -> std::io::Result<Scratch> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("clift-clc-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `-cl-ext` list that makes clang define exactly the extension and feature macros the
/// device reports.
fn cl_ext_flag() -> String {
    let f = &crate::device::FEATURES;
    let mut items = vec!["-all".to_string()];
    items.extend(f.extensions.iter().map(|(n, _)| format!("+{n}")));
    items.extend(f.opencl_c_features.iter().map(|(n, _)| format!("+{n}")));
    format!("-cl-ext={}", items.join(","))
}

/// What a compilation produced: SPIR-V and clang's diagnostics (warnings included).
pub struct Output {
    pub spirv: Vec<u8>,
    pub log: String,
}

/// Compiles `source` with the embedded `headers` (include name, text). The error is the
/// build log: clang's diagnostics, then what failed.
pub fn compile(source: &str, headers: &[(String, String)], options: &Options) -> Result<Output, String> {
    let tools = toolchain().map_err(str::to_string)?;
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
    let std = options.cl_std.clone().unwrap_or_else(|| "CL1.2".into());
    let mut clang = Command::new(&tools.clang);
    clang
        .current_dir(dir)
        .args(["-c", "-target", "spir64", "-emit-llvm", "-fno-discard-value-names"])
        .arg(format!("-cl-std={std}"))
        .arg(if options.opt_disable { "-O0" } else { "-O2" })
        .args(["-Xclang", &cl_ext_flag()])
        .arg("-I.")
        .args(options.includes.iter().map(|i| format!("-I{i}")))
        .args(options.defines.iter().map(|d| format!("-D{d}")))
        .args(
            options
                .passthrough
                .iter()
                .filter(|o| *o != "-cl-kernel-arg-info" && *o != "-cl-no-subgroup-ifp"),
        )
        .args(["-o", "program.bc", "program.cl"]);
    if options.kernel_arg_info {
        clang.arg("-cl-kernel-arg-info");
    }
    let out = clang
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.clang.display()))?;
    let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        log.push_str("error: OpenCL C compilation failed\n");
        return Err(log);
    }
    let out = Command::new(&tools.llvm_spirv)
        .current_dir(dir)
        // Keeps kernel_arg_type and kernel_arg_type_qual as OpStrings (clGetKernelArgInfo).
        .arg("--preserve-ocl-kernel-arg-type-metadata-through-string")
        .args(["program.bc", "-o", "program.spv"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.llvm_spirv.display()))?;
    if !out.status.success() {
        log.push_str(&String::from_utf8_lossy(&out.stderr));
        log.push_str("error: translation to SPIR-V failed\n");
        return Err(log);
    }
    let spirv = std::fs::read(dir.join("program.spv")).map_err(|e| format!("cannot read the SPIR-V: {e}"))?;
    Ok(Output { spirv, log })
}
