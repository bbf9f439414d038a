//! Build, compile and link options (API section 5.8.6). Every option is checked; anything the
//! spec does not list is refused so that a typo never passes silently.

/// What the options ask of the compiler.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `-D name[=value]` (passed to the OpenCL C compiler).
    pub defines: Vec<String>,
    /// `-I dir`.
    pub includes: Vec<String>,
    /// `-cl-std=CLx.y`.
    pub cl_std: Option<String>,
    pub denorms_are_zero: bool,
    pub fast_relaxed_math: bool,
    pub opt_disable: bool,
    pub kernel_arg_info: bool,
    pub create_library: bool,
    pub enable_link_options: bool,
    /// `-cl-clift-robust` (Clift's own option; never handed to clang): accesses checked
    /// against their memory object (README "Robust mode"). Also on with `CLIFT_ROBUST=1`.
    pub robust: bool,
    /// `-cl-no-subgroup-ifp`: the kernels need no independent forward progress.
    pub no_subgroup_ifp: bool,
    /// The flags to hand on unchanged to clang (`-w`, `-Werror`, the `-cl-*` math flags).
    pub passthrough: Vec<String>,
}

/// `CLIFT_BUILD_LOG=verbose` adds Clift's own notes to successful build logs: the time spent
/// in clang, llvm-spirv and the JIT, and cache hits. Off by default, because applications
/// (pyopencl, for one) treat any text in the log of a successful build as a warning.
pub fn verbose_build_log() -> bool {
    std::env::var("CLIFT_BUILD_LOG").is_ok_and(|v| v == "verbose")
}

/// Which entry point the options were given to: each accepts its own set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Build,
    Compile,
    Link,
}

/// Math options valid at every stage (the spec lists them for the linker too).
const LINK_MATH: &[&str] = &[
    "-cl-denorms-are-zero",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-no-subgroup-ifp",
];

/// Options of clBuildProgram and clCompileProgram.
const COMPILE_FLAGS: &[&str] = &[
    "-cl-single-precision-constant",
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-opt-disable",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-kernel-arg-info",
    "-cl-uniform-work-group-size",
    "-cl-no-subgroup-ifp",
    "-w",
    "-Werror",
];

/// Clift's robust mode, accepted by clBuildProgram and clCompileProgram.
pub const ROBUST_OPTION: &str = "-cl-clift-robust";

/// `CLIFT_ROBUST=1` turns robust mode on for every program.
pub fn robust_env() -> bool {
    std::env::var("CLIFT_ROBUST").is_ok_and(|v| v == "1")
}

/// The OpenCL C versions the device reports (CL_DEVICE_OPENCL_C_ALL_VERSIONS); OpenCL C 2.0
/// would need pipes and device-side enqueue.
const CL_STD: &[&str] = &["CL1.1", "CL1.2", "CL3.0"];

/// Splits an option string into words the way a shell would for these options: blanks
/// separate words, and double or single quotes keep blanks inside a word (`-I "/my dir"`).
fn words(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_ascii_whitespace() => out.extend(word.take()),
            '"' | '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => w.extend(chars.next()),
                        Some(other) => w.push(other),
                        None => return Err(format!("unterminated {c} quote in the options")),
                    }
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    Ok(out)
}

/// Parses `text`; the error names the offending option.
pub fn parse(text: &str, stage: Stage) -> Result<Options, String> {
    let mut o = Options::default();
    let words = words(text)?;
    let mut words = words.iter().map(String::as_str);
    while let Some(word) = words.next() {
        let mut take_value = |flag: &str| -> Result<String, String> {
            match word.strip_prefix(flag) {
                Some("") => words.next().map(str::to_string).ok_or(format!("{flag} needs a value")),
                Some(rest) => Ok(rest.to_string()),
                None => Err(format!("{word} is not {flag}")),
            }
        };
        match stage {
            Stage::Build | Stage::Compile => {
                if word.starts_with("-D") {
                    o.defines.push(take_value("-D")?);
                } else if word.starts_with("-I") {
                    // clang runs elsewhere: a relative directory is the application's.
                    let dir = std::path::PathBuf::from(take_value("-I")?);
                    let dir = std::env::current_dir().map(|cwd| cwd.join(&dir)).unwrap_or(dir);
                    o.includes.push(dir.to_string_lossy().into_owned());
                } else if word == "-O0" {
                    // Not in the spec's list, but the compiler-style spelling of
                    // -cl-opt-disable that applications pass (and other implementations
                    // accept); it means exactly that.
                    o.opt_disable = true;
                } else if let Some(std) = word.strip_prefix("-cl-std=") {
                    // Only the versions of CL_DEVICE_OPENCL_C_ALL_VERSIONS.
                    if !CL_STD.contains(&std) {
                        return Err(format!(
                            "unsupported OpenCL C version in {word} (accepted: {})",
                            CL_STD.join(", ")
                        ));
                    }
                    o.cl_std = Some(std.to_string());
                } else if word == ROBUST_OPTION {
                    o.robust = true;
                } else if COMPILE_FLAGS.contains(&word) {
                    o.flag(word);
                } else {
                    return Err(format!("unknown build option {word:?}"));
                }
            }
            Stage::Link => match word {
                "-create-library" => o.create_library = true,
                "-enable-link-options" => o.enable_link_options = true,
                _ if LINK_MATH.contains(&word) => o.flag(word),
                _ => return Err(format!("unknown link option {word:?}")),
            },
        }
    }
    // "-enable-link-options ... can only be specified with -create-library"
    if o.enable_link_options && !o.create_library {
        return Err("-enable-link-options is only valid with -create-library".into());
    }
    Ok(o)
}

impl Options {
    fn flag(&mut self, word: &str) {
        match word {
            "-cl-denorms-are-zero" => self.denorms_are_zero = true,
            "-cl-fast-relaxed-math" => self.fast_relaxed_math = true,
            "-cl-opt-disable" => self.opt_disable = true,
            "-cl-kernel-arg-info" => self.kernel_arg_info = true,
            "-cl-no-subgroup-ifp" => self.no_subgroup_ifp = true,
            _ => {}
        }
        self.passthrough.push(word.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_spec_options() {
        let o = parse(
            "-D FOO=1 -DBAR -I /tmp -cl-std=CL3.0 -cl-mad-enable -w -cl-kernel-arg-info",
            Stage::Build,
        )
        .unwrap();
        assert_eq!(o.defines, ["FOO=1", "BAR"]);
        assert_eq!(o.includes, ["/tmp"]);
        let q = parse(r#"-I "/a b" -D X="1 2""#, Stage::Build).unwrap();
        assert_eq!(q.includes, ["/a b"]);
        assert_eq!(q.defines, ["X=1 2"]);
        assert!(parse("-cl-std=CL2.0", Stage::Build).is_err());
        assert!(o.kernel_arg_info);
        let o0 = parse("-O0", Stage::Compile).unwrap();
        assert!(o0.opt_disable && o0.passthrough.is_empty());
        assert!(
            parse(
                "-create-library -enable-link-options -cl-fast-relaxed-math",
                Stage::Link
            )
            .unwrap()
            .create_library
        );
    }

    #[test]
    fn refuses_unknown_options() {
        assert!(parse("-cl-no-subgroup-ifp", Stage::Build).unwrap().no_subgroup_ifp);
        assert!(parse("-cl-no-subgroup-ifp", Stage::Link).unwrap().no_subgroup_ifp);
        assert!(!parse("-cl-mad-enable", Stage::Build).unwrap().no_subgroup_ifp);
        assert!(parse("-cl-no-such-thing", Stage::Build).is_err());
        assert!(parse("-cl-std=CL9.9", Stage::Compile).is_err());
        assert!(parse("-cl-mad-enable", Stage::Link).is_err());
        assert!(parse("-enable-link-options", Stage::Link).is_err());
        assert!(parse("-D", Stage::Build).is_err());
        assert!(parse("-O0", Stage::Link).is_err());
        assert!(parse("-O7", Stage::Build).is_err());
    }

    #[test]
    fn robust_option_is_clifts_own() {
        let b = parse("-cl-clift-robust -cl-mad-enable", Stage::Build).unwrap();
        assert!(b.robust);
        // Never handed on to clang.
        assert_eq!(b.passthrough, ["-cl-mad-enable"]);
        assert!(parse("-cl-clift-robust", Stage::Compile).unwrap().robust);
        assert!(!parse("-cl-mad-enable", Stage::Build).unwrap().robust);
        assert!(parse("-cl-clift-robust", Stage::Link).is_err());
        assert!(parse("-cl-clift-robustness", Stage::Build).is_err());
    }
}
