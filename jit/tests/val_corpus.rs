//! Clift's validator against `spirv-val --target-env opencl2.2` on a corpus
//! of valid and invalid modules (docs/validator.md describes the corpus).
//!
//! * Valid: jit/tests/data/*.spv and jit/tests/kernels/*.spv (llvm-spirv-15
//!   output), jit/tests/data/valid/*.spvasm (hand-written edge cases); Clift
//!   must accept every one.
//! * Invalid: jit/tests/data/invalid/*.spvasm, each breaking exactly one rule
//!   named on its `; Breaks:` line; Clift must reject it and its message must
//!   contain that rule (validated with the device features of an optional
//!   `; clift-features:` line, e.g. a device with work-group collectives).
//! * The conformance kernels cts/kernels/*.spvasm (read only), assembled at
//!   the version of their `; Version:` comment (1.0 without one): verdicts
//!   are compared, nothing more.
//!
//! Clift's verdict (default device features) must equal spirv-val's, except
//! for the modules in KNOWN_DIFFERENCES and the version rule below. Without
//! spirv-val on PATH only Clift's own expectations are checked.

use jit::spirv::{self, AsmOptions, DeviceFeatures};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Modules on which Clift and `spirv-val --target-env opencl2.2` disagree,
/// and why. Keep in step with docs/validator.md.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    // SPV_KHR_shader_clock allows the Device and Subgroup scopes; cl_khr_kernel_clock adds
    // clock_read_work_group, an OpReadClockKHR of Workgroup scope, which Clift accepts.
    (
        "cts/spirv_ext.spvasm",
        "OpReadClockKHR of Workgroup scope (cl_khr_kernel_clock)",
    ),
    // llvm-spirv-15 writes blocks out of dominance order (a loop exit before
    // the body that defines the values it uses). SPIR-V 2.16.1 asks for
    // dominators first; spirv-val enforces that order, Clift checks
    // dominance on the CFG and accepts what llvm-spirv really emits.
    (
        "data/control_O2.spv",
        "llvm-spirv block order: spirv-val 'Block appears in the binary before its dominator'",
    ),
    (
        "data/valid/loop_exit_before_body.spvasm",
        "llvm-spirv block order: spirv-val 'ID has not been defined' for a use in an earlier-listed block",
    ),
    // llvm-spirv-15 -g: DebugTypeMember names its DebugTypeComposite before
    // the composite is written (OpenCL.DebugInfo.100 needs such forward
    // references for recursive types); spirv-val rejects the forward id.
    (
        "data/kernels_debuginfo.spv",
        "OpenCL.DebugInfo.100 forward reference: spirv-val 'ID has not been defined'",
    ),
    // llvm-spirv-15 writes `atomic_compare_exchange_weak` as OpAtomicCompareExchangeWeak in
    // its SPIR-V 1.4 modules; spirv-val says the opcode is missing after 1.3, Clift takes it as
    // OpAtomicCompareExchange (which it is defined to behave as) in every version.
    (
        "kernels/spin.spv",
        "OpAtomicCompareExchangeWeak in a SPIR-V 1.4 module (llvm-spirv-15)",
    ),
    (
        "kernels/spin_O0.spv",
        "OpAtomicCompareExchangeWeak in a SPIR-V 1.4 module (llvm-spirv-15)",
    ),
    // OpenCL 3.0 with cl_khr_int64_base_atomics allows Int64Atomics; the
    // OpenCL 2.2 environment of spirv-val does not know the extension.
    (
        "cts/atomic64.spvasm",
        "OpenCL 3.0 + cl_khr_int64_base_atomics: spirv-val rejects capability Int64Atomics for OpenCL 2.2",
    ),
    // Device-specific: Physical32 is right for a 32-bit device; spirv-val
    // has no device and accepts either physical model.
    (
        "data/invalid/s4_addressing_model_device_bits.spvasm",
        "device-specific (CL_DEVICE_ADDRESS_BITS): spirv-val accepts Physical32",
    ),
    // Section 4 rules that Debian's spirv-val does not implement.
    (
        "data/invalid/s4_async_copy_scope.spvasm",
        "spirv-val does not check OpGroupWaitEvents' execution scope",
    ),
    (
        "data/invalid/s4_group_scope.spvasm",
        "spirv-val does not check the execution scope of group instructions",
    ),
    (
        "data/invalid/s4_barrier_execution_scope.spvasm",
        "spirv-val accepts Device execution scope on OpControlBarrier",
    ),
    (
        "data/invalid/s4_atomic_type.spvasm",
        "spirv-val accepts 16-bit integer atomics",
    ),
    (
        "data/invalid/s4_recursion.spvasm",
        "spirv-val does not check the call graph for recursion",
    ),
];

/// spirv-val's OpenCL 2.2 environment accepts SPIR-V 1.0-1.2 only; every
/// llvm-spirv-15 module is 1.4. For a module newer than 1.2 that spirv-val
/// rejects on its version alone, Clift's verdict is compared with spirv-val's
/// universal environment of the module's own version (`--target-env spv1.X`)
/// instead: the structural rules, not the OpenCL ones.
const VERSION_RULE: &str = "Invalid SPIR-V binary version";

/// The section 4 rules of seeds/004 and the module breaking each.
const SECTION4_MODULES: &[&str] = &[
    "s4_execution_model",
    "s4_addressing_model_logical",
    "s4_addressing_model_device_bits",
    "s4_memory_model",
    "s4_int_signedness",
    "s4_image_sampled_type",
    "s4_image_sampled",
    "s4_image_ms",
    "s4_image_arrayed",
    "s4_image_format",
    "s4_image_access_qualifier",
    "s4_image_write_operands",
    "s4_image_read_constoffset",
    "s4_image_sample_constoffset",
    "s4_atomic_type",
    "s4_atomic_storage_class",
    "s4_recursion",
    "s4_async_copy_scope",
    "s4_group_scope",
    "s4_barrier_execution_scope",
    "s4_barrier_memory_scope",
    "s4_barrier_semantics",
    "s4_atomic_memory_scope",
    "s4_atomic_semantics",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    Valid,
    Invalid,
    Compare,
}

struct Case {
    /// "data/x.spv", "cts/y.spvasm", ...
    name: String,
    words: Vec<u32>,
    expect: Expect,
    /// For invalid modules: the rule the message must name.
    rule: Option<String>,
    features: DeviceFeatures,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn list(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|e| e == ext).unwrap_or(false))
            .collect(),
        Err(_) => vec![],
    };
    v.sort();
    v
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn header_line<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .take_while(|l| l.starts_with(';') || l.trim().is_empty())
        .find_map(|l| l.strip_prefix(key))
        .map(str::trim)
}

fn assemble_file(p: &Path) -> (Vec<u32>, String) {
    let text = std::fs::read_to_string(p).unwrap();
    let minor = header_line(&text, "; Version:")
        .and_then(|v| v.strip_prefix("1."))
        .and_then(|m| m.parse::<u8>().ok())
        .unwrap_or(0);
    let w = spirv::assemble(
        &text,
        AsmOptions {
            version: (1, minor),
            preserve_numeric_ids: false,
        },
    )
    .unwrap_or_else(|e| panic!("{}: {}", p.display(), e));
    (w, text)
}

fn features_from(line: Option<&str>) -> DeviceFeatures {
    let mut f = DeviceFeatures::default();
    for name in line.unwrap_or("").split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match name {
            "work_group_collectives" => f.work_group_collectives = true,
            "subgroups" => f.subgroups = true,
            other => panic!("unknown clift-features entry {}", other),
        }
    }
    f
}

fn corpus() -> Vec<Case> {
    let r = root();
    let mut v = vec![];
    for (dir, prefix) in [(r.join("tests/data"), "data"), (r.join("tests/kernels"), "kernels")] {
        for p in list(&dir, "spv") {
            v.push(Case {
                name: format!("{}/{}", prefix, p.file_name().unwrap().to_string_lossy()),
                words: words(&std::fs::read(&p).unwrap()),
                expect: Expect::Valid,
                rule: None,
                features: DeviceFeatures::default(),
            });
        }
    }
    for p in list(&r.join("tests/data/valid"), "spvasm") {
        let (w, _) = assemble_file(&p);
        v.push(Case {
            name: format!("data/valid/{}", p.file_name().unwrap().to_string_lossy()),
            words: w,
            expect: Expect::Valid,
            rule: None,
            features: DeviceFeatures::default(),
        });
    }
    for p in list(&r.join("tests/data/invalid"), "spvasm") {
        let (w, text) = assemble_file(&p);
        let rule = header_line(&text, "; Breaks:")
            .unwrap_or_else(|| panic!("{} has no '; Breaks:' line", p.display()))
            .to_string();
        v.push(Case {
            name: format!("data/invalid/{}", p.file_name().unwrap().to_string_lossy()),
            words: w,
            expect: Expect::Invalid,
            rule: Some(rule),
            features: features_from(header_line(&text, "; clift-features:")),
        });
    }
    for p in list(&r.join("../cts/kernels"), "spvasm") {
        let (w, _) = assemble_file(&p);
        v.push(Case {
            name: format!("cts/{}", p.file_name().unwrap().to_string_lossy()),
            words: w,
            expect: Expect::Compare,
            rule: None,
            features: DeviceFeatures::default(),
        });
    }
    v
}

/// Clift's verdict with the given features: Ok or the message.
fn clift(words: &[u32], f: &DeviceFeatures) -> Result<(), String> {
    let m = spirv::parse(&spirv::words_to_bytes(words)).map_err(|e| e.to_string())?;
    spirv::validate(&m, f).map_err(|e| e.to_string())
}

fn have_spirv_val() -> bool {
    Command::new("spirv-val").arg("--version").output().is_ok()
}

/// spirv-val's verdict: Ok or its first error line.
fn spirv_val(words: &[u32], env: &str) -> Result<(), String> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("clift-val-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(format!("{}.spv", n));
    std::fs::write(&p, spirv::words_to_bytes(words)).unwrap();
    let o = Command::new("spirv-val")
        .args(["--target-env", env])
        .arg(&p)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&p);
    if o.status.success() {
        Ok(())
    } else {
        let s = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
        Err(s.lines().next().unwrap_or("").to_string())
    }
}

#[test]
fn clift_verdicts_and_rules() {
    let cases = corpus();
    assert!(cases.iter().filter(|c| c.expect == Expect::Invalid).count() >= 50);
    assert!(cases.iter().filter(|c| c.expect == Expect::Valid).count() >= 8);
    let mut failures = vec![];
    for c in &cases {
        match c.expect {
            Expect::Valid => {
                if let Err(e) = clift(&c.words, &DeviceFeatures::default()) {
                    failures.push(format!("{}: valid module rejected: {}", c.name, e));
                }
            }
            Expect::Invalid => {
                let rule = c.rule.as_deref().unwrap_or("");
                match clift(&c.words, &c.features) {
                    Ok(()) => failures.push(format!("{}: accepted, but it breaks {}", c.name, rule)),
                    Err(e) if !e.contains(rule) => failures.push(format!(
                        "{}: rejected for another rule: {} (expected {})",
                        c.name, e, rule
                    )),
                    Err(_) => {}
                }
                // Rejected with the default device too (the verdict compared
                // with spirv-val).
                if clift(&c.words, &DeviceFeatures::default()).is_ok() {
                    failures.push(format!("{}: accepted with the default device", c.name));
                }
            }
            Expect::Compare => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_section4_rule_has_a_module() {
    let dir = root().join("tests/data/invalid");
    for m in SECTION4_MODULES {
        let p = dir.join(format!("{}.spvasm", m));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|_| panic!("missing {}", p.display()));
        let rule = header_line(&text, "; Breaks:").unwrap();
        assert!(
            rule.starts_with("OpenCL SPIR-V environment section 4"),
            "{}: {}",
            m,
            rule
        );
    }
    // Every invalid module that claims a section 4 rule is in the list.
    for p in list(&dir, "spvasm") {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        if stem.starts_with("s4_") {
            assert!(SECTION4_MODULES.contains(&stem.as_str()), "{} not listed", stem);
        }
    }
}

#[test]
fn verdicts_match_spirv_val() {
    if !have_spirv_val() {
        eprintln!("spirv-val not on PATH: comparison skipped");
        return;
    }
    let mut failures = vec![];
    let mut differing = vec![];
    let mut compared = 0;
    for c in corpus() {
        let ours = clift(&c.words, &DeviceFeatures::default());
        let mut theirs = spirv_val(&c.words, "opencl2.2");
        let minor = (c.words[1] >> 8) & 0xff;
        if minor > 2 {
            if let Err(e) = &theirs {
                if e.contains(VERSION_RULE) {
                    theirs = spirv_val(&c.words, &format!("spv1.{}", minor));
                }
            }
        }
        compared += 1;
        let known = KNOWN_DIFFERENCES.iter().find(|(n, _)| *n == c.name);
        let agree = ours.is_ok() == theirs.is_ok();
        match (agree, known) {
            (true, None) => {}
            (false, Some(_)) => differing.push(c.name.clone()),
            (false, None) => failures.push(format!(
                "{}: Clift says {:?}, spirv-val says {:?}",
                c.name, ours, theirs
            )),
            (true, Some((_, why))) => failures.push(format!(
                "{}: listed as a known difference ({}) but both say {}",
                c.name,
                why,
                if ours.is_ok() { "valid" } else { "invalid" }
            )),
        }
    }
    assert!(compared >= 80, "only {} modules compared", compared);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every listed difference was seen (the list names real modules).
    for (n, why) in KNOWN_DIFFERENCES {
        assert!(
            differing.iter().any(|d| d == n),
            "known difference {} ({}) not in the corpus",
            n,
            why
        );
    }
}

#[test]
fn validator_never_panics_on_mutated_modules() {
    // Word-level mutations of every corpus module: parse and validate must
    // return (Ok or Err), never panic or hang.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let f = DeviceFeatures::default();
    for c in corpus() {
        for _ in 0..40 {
            let mut w = c.words.clone();
            for _ in 0..1 + next() % 3 {
                let k = 5 + (next() as usize) % (w.len() - 5);
                let v = next();
                w[k] = match v % 4 {
                    0 => (v >> 8) as u32,
                    1 => w[k] ^ (1 << ((v >> 8) % 32)),
                    2 => w[k].wrapping_add(1),
                    _ => w[(v as usize >> 8) % w.len()],
                };
            }
            if let Ok(m) = spirv::parse(&spirv::words_to_bytes(&w)) {
                let _ = spirv::validate(&m, &f);
            }
        }
    }
}
