//! `clift dis` text reassembles to the same module: every SPIR-V module the Khronos CTS ships
//! (spirv_new/spirv_bin, SPIR-V 1.0 to 1.6, when the CTS is built) through spirv-as, and every
//! .spvasm file of this project through `clift asm` (and spirv-as when it is on PATH).

use jit::spirv::{self, AsmOptions, DisOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn have_spirv_as() -> bool {
    Command::new("spirv-as").arg("--version").output().is_ok()
}

fn tmp(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("clift-round-trip-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(format!("{n}-{name}"))
}

/// spirv-as of `text` for SPIR-V 1.`minor`, or its error output.
fn spirv_as(text: &str, minor: u32) -> Result<Vec<u32>, String> {
    let src = tmp("in.spvasm");
    let out = tmp("out.spv");
    std::fs::write(&src, text).unwrap();
    let o = Command::new("spirv-as")
        .args(["--target-env", &format!("spv1.{minor}")])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(words(&std::fs::read(&out).unwrap()))
}

/// Files under `dir` (recursively) whose name passes `keep`, sorted.
fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn cts_spirv_bin() -> PathBuf {
    if let Some(d) = std::env::var_os("CLIFT_CTS_SPIRV_BIN") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    let base = std::env::var_os("CTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&home).join(".cache/khronos-cts"));
    base.join("build/test_conformance/spirv_new/spirv_bin")
}

#[test]
fn cts_modules_reassemble_to_the_same_bytes() {
    let dir = cts_spirv_bin();
    let files = files_under(&dir, &|p| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.starts_with("spv"))
    });
    if files.is_empty() || !have_spirv_as() {
        eprintln!(
            "skipped: no CTS SPIR-V modules under {} (build test_spirv_new with \
             /work/shared/khronos-cts/build.sh, or set CLIFT_CTS_SPIRV_BIN) or no spirv-as on PATH",
            dir.display()
        );
        return;
    }
    let mut failures = Vec::new();
    let mut versions = [0usize; 7];
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let orig = words(&bytes);
        let minor = (orig[1] >> 8) & 0xff;
        versions[(minor as usize).min(6)] += 1;
        let text = match spirv::dis::disassemble_bytes(&bytes, DisOptions::default()) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: clift dis: {e}", f.display()));
                continue;
            }
        };
        // Every operand is printed by name: no enumerant falls back to a number.
        match spirv_as(&text, minor) {
            Ok(back) if back == orig => {}
            Ok(_) => failures.push(format!("{}: spirv-as of clift dis differs", f.display())),
            Err(e) => failures.push(format!("{}: spirv-as: {}", f.display(), e.trim())),
        }
        // And clift asm takes the same text back.
        let opts = AsmOptions {
            version: (1, minor as u8),
            preserve_numeric_ids: false,
        };
        match spirv::assemble(&text, opts) {
            Ok(back) if back[5..] == orig[5..] => {}
            Ok(_) => failures.push(format!("{}: clift asm of clift dis differs", f.display())),
            Err(e) => failures.push(format!("{}: clift asm: {e}", f.display())),
        }
    }
    eprintln!("{} CTS modules (SPIR-V 1.0..1.6: {:?})", files.len(), versions);
    assert!(versions[6] > 0, "no SPIR-V 1.6 module among the CTS modules");
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

fn spvasm_version(text: &str) -> (u8, u8) {
    for line in text.lines() {
        if let Some(v) = line.trim().strip_prefix("; Version:") {
            let mut it = v.trim().split('.');
            let maj = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
            let min = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            return (maj, min);
        }
    }
    (1, 0)
}

#[test]
fn project_spvasm_files_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for d in ["cts/kernels", "jit/tests", "examples"] {
        files.extend(files_under(&root.join(d), &|p| {
            p.extension().is_some_and(|e| e == "spvasm")
        }));
    }
    assert!(!files.is_empty());
    let tools = have_spirv_as();
    let (mut checked, mut not_modules) = (0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let opts = AsmOptions {
            version: spvasm_version(&text),
            preserve_numeric_ids: false,
        };
        // Some files are deliberately malformed (assembler and validator tests).
        let Ok(orig) = spirv::assemble(&text, opts) else {
            not_modules += 1;
            continue;
        };
        // ... or assemble from raw words (`!0x...`) into something that is no module.
        let Ok(raw) = spirv::disassemble(
            &orig,
            DisOptions {
                raw_id: true,
                ..Default::default()
            },
        ) else {
            not_modules += 1;
            continue;
        };
        checked += 1;
        let keep = AsmOptions {
            version: opts.version,
            preserve_numeric_ids: true,
        };
        match spirv::assemble(&raw, keep) {
            Ok(back) if back == orig => {}
            Ok(_) => failures.push(format!("{}: clift asm of clift dis --raw-id differs", f.display())),
            Err(e) => failures.push(format!("{}: clift asm of clift dis --raw-id: {e}", f.display())),
        }
        if tools {
            let friendly = spirv::disassemble(&orig, DisOptions::default()).unwrap();
            match spirv_as(&friendly, opts.version.1 as u32) {
                Ok(back) if back[5..] == orig[5..] && back[1] == orig[1] => {}
                Ok(_) => failures.push(format!("{}: spirv-as of clift dis differs", f.display())),
                Err(e) => failures.push(format!("{}: spirv-as of clift dis: {}", f.display(), e.trim())),
            }
        }
    }
    eprintln!("{checked} project modules round-tripped ({not_modules} files are not modules)");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
