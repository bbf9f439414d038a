//! Assembler and disassembler: byte identity with Debian's spirv-as, text
//! identity with spirv-dis, and dis -> asm round trips. Comparisons with the
//! SPIRV-Tools binaries are skipped when they are not on PATH.

use jit::spirv::{self, AsmOptions, DisOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn files(ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map(|e| e == ext).unwrap_or(false))
        .collect();
    v.sort();
    v
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn have_tools() -> bool {
    Command::new("spirv-as").arg("--version").output().is_ok()
        && Command::new("spirv-dis").arg("--version").output().is_ok()
}

fn tmp(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("clift-jit-tests-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(format!("{}-{}", n, name))
}

fn spirv_as(text: &str, args: &[&str]) -> Vec<u32> {
    let src = tmp("in.spvasm");
    let out = tmp("out.spv");
    std::fs::write(&src, text).unwrap();
    let st = Command::new("spirv-as")
        .args(args)
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "spirv-as failed on:\n{}", text);
    words(&std::fs::read(&out).unwrap())
}

fn spirv_dis(bin: &Path, args: &[&str]) -> String {
    let o = Command::new("spirv-dis").args(args).arg(bin).output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

/// Modules compare equal except for the generator word (spirv-as writes its own).
fn same_module(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.len() >= 5 && a[..2] == b[..2] && a[3..] == b[3..]
}

fn version_opt(w: &[u32]) -> AsmOptions {
    AsmOptions {
        version: (1, ((w[1] >> 8) & 0xff) as u8),
        preserve_numeric_ids: true,
    }
}

#[test]
fn spvasm_files_match_spirv_as() {
    for f in files("spvasm") {
        let text = std::fs::read_to_string(&f).unwrap();
        let ours = spirv::assemble(&text, AsmOptions::default()).unwrap();
        assert_eq!(ours[1], 0x0001_0600, "default version is spirv-as's 1.6");
        assert_eq!(ours[2], 0x0007_0000, "generator is the SPIR-V Tools assembler");
        let v10 = spirv::assemble(
            &text,
            AsmOptions {
                version: (1, 0),
                ..AsmOptions::default()
            },
        )
        .unwrap();
        assert_eq!(v10[1], 0x0001_0000);
        if have_tools() {
            assert_eq!(ours, spirv_as(&text, &[]), "{}", f.display());
            assert_eq!(v10, spirv_as(&text, &["--target-env", "spv1.0"]), "{}", f.display());
            let pres = spirv::assemble(
                &text,
                AsmOptions {
                    preserve_numeric_ids: true,
                    ..AsmOptions::default()
                },
            )
            .unwrap();
            assert_eq!(pres, spirv_as(&text, &["--preserve-numeric-ids"]), "{}", f.display());
        }
    }
}

#[test]
fn literal_encodings() {
    let text = std::fs::read_to_string(data_dir().join("syntax.spvasm")).unwrap();
    let w = spirv::assemble(&text, AsmOptions::default()).unwrap();
    let has = |seq: &[u32]| w.windows(seq.len()).any(|x| x == seq);
    assert!(has(&[0x7fc0_0000]), "0x1.8p+128 keeps its NaN bits");
    assert!(has(&[0xff80_0100]), "-0x1.0002p+128 keeps its NaN bits");
    assert!(has(&[0xff80_0000]), "-0x1p+128 is -inf");
    assert!(has(&[0x9abc_def0, 0x1234_5678]), "64-bit hex literal, low word first");
    assert!(has(&[0xdead_beef]));
    assert!(has(&[0x7bff]), "largest half");
    assert!(has(&[0, 1]), "OpSwitch 64-bit literal 0x100000000");
    // !<integer> and the alternate parsing mode.
    let imm = std::fs::read_to_string(data_dir().join("immediate.spvasm")).unwrap();
    let w = spirv::assemble(&imm, AsmOptions::default()).unwrap();
    assert_eq!(&w[5..7], &[(2 << 16) | 17, 0xff00]);
    assert!(w.contains(&262187) && w.contains(&327739));
}

#[test]
fn asm_errors_name_the_line() {
    let e = spirv::assemble(
        "OpCapability Kernel\n%1 = OpTypeInt 32 0\n%2 = OpConstant %1 -1\n",
        AsmOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("negative"), "{}", e);
    let e = spirv::assemble(
        "OpCapability Kernel\nOpMemoryModel Physical64 Bogus\n",
        AsmOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("Bogus"));
    let e = spirv::assemble("OpFoo %1\n", AsmOptions::default()).unwrap_err();
    assert!(e.message.contains("expected an opcode"));
    let e = spirv::assemble(
        "%1 = OpTypeInt 16 1\n%2 = OpConstant %1 0x10000\n",
        AsmOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("does not fit"), "{}", e);
}

#[test]
fn corpus_round_trips() {
    let tools = have_tools();
    for f in files("spv") {
        let orig = words(&std::fs::read(&f).unwrap());
        let opts = version_opt(&orig);
        // Parsing works for every module, including debug info
        // (OpenCL.DebugInfo.100 operands are named like spirv-dis names them).
        spirv::parse(&std::fs::read(&f).unwrap()).unwrap();
        let raw = spirv::disassemble(
            &orig,
            DisOptions {
                raw_id: true,
                ..Default::default()
            },
        )
        .unwrap();
        let back = spirv::assemble(&raw, opts).unwrap();
        assert!(
            same_module(&orig, &back),
            "clift dis --raw-id | clift asm: {}",
            f.display()
        );
        let friendly = spirv::disassemble(&orig, DisOptions::default()).unwrap();
        assert!(friendly.contains("%uint") || friendly.contains("%ulong"));
        if !tools {
            continue;
        }
        // clift dis -> spirv-as gives the identical binary.
        let v = format!("spv1.{}", opts.version.1);
        let theirs = spirv_as(&raw, &["--preserve-numeric-ids", "--target-env", &v]);
        assert!(same_module(&orig, &theirs), "clift dis | spirv-as: {}", f.display());
        // spirv-dis -> clift asm gives the identical binary.
        let sraw = spirv_dis(&f, &["--raw-id"]);
        assert!(
            same_module(&orig, &spirv::assemble(&sraw, opts).unwrap()),
            "spirv-dis | clift asm: {}",
            f.display()
        );
        // Text is the same as spirv-dis writes, with and without names.
        assert_eq!(raw, sraw, "raw text of {}", f.display());
        let sfriendly = spirv_dis(&f, &[]);
        assert_eq!(friendly, sfriendly, "friendly text of {}", f.display());
        // Friendly text assembles the same with both assemblers.
        assert_eq!(
            spirv::assemble(&sfriendly, AsmOptions::default()).unwrap(),
            spirv_as(&sfriendly, &[])
        );
    }
}

#[test]
fn assembler_never_panics_on_garbage() {
    let base = std::fs::read_to_string(data_dir().join("syntax.spvasm")).unwrap();
    let toks: Vec<&str> = base.split_whitespace().collect();
    let extra = [
        "!",
        "!0x",
        "%",
        "=",
        "\"",
        "0x",
        "-",
        "0x1p+99999999",
        "-0x.p",
        "1e999",
        "|",
        "None|",
        "!4294967296",
        "%0",
    ];
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for _ in 0..500 {
        let n = (next() % 60) as usize;
        let mut text = String::new();
        for _ in 0..n {
            let r = next() as usize;
            let t = if r.is_multiple_of(5) {
                extra[r / 5 % extra.len()]
            } else {
                toks[r % toks.len()]
            };
            text.push_str(t);
            text.push(if r.is_multiple_of(7) { '\n' } else { ' ' });
        }
        for preserve in [false, true] {
            if let Ok(w) = spirv::assemble(
                &text,
                AsmOptions {
                    preserve_numeric_ids: preserve,
                    ..AsmOptions::default()
                },
            ) {
                let _ = spirv::disassemble(&w, DisOptions::default());
                let _ = spirv::parse(&spirv::words_to_bytes(&w));
            }
        }
    }
}

#[test]
fn cli_asm_dis_val() {
    let exe = env!("CARGO_BIN_EXE_clift");
    let out = tmp("cli.spv");
    let src = data_dir().join("valid_kernel.spvasm");
    let st = Command::new(exe)
        .args(["asm", "--target-env", "spv1.2", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success());
    let w = words(&std::fs::read(&out).unwrap());
    assert_eq!(w[1], 0x0001_0200);
    let o = Command::new(exe).arg("val").arg(&out).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "valid");
    let o = Command::new(exe).args(["dis", "--raw-id"]).arg(&out).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("OpEntryPoint Kernel %"));
    let bad = tmp("vk.spv");
    let vk = spirv::assemble(
        &std::fs::read_to_string(data_dir().join("vulkan_compute.spvasm")).unwrap(),
        AsmOptions {
            version: (1, 0),
            ..Default::default()
        },
    )
    .unwrap();
    std::fs::write(&bad, spirv::words_to_bytes(&vk)).unwrap();
    let o = Command::new(exe).arg("val").arg(&bad).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot run on an OpenCL device"));
}

#[test]
fn debug_info_operand_names() {
    // Every OpenCL.DebugInfo.100 enumerant kind, written by name; FlagIsPublic
    // (both access bits) prints back as FlagIsProtected|FlagIsPrivate.
    let text = r#"OpCapability Addresses
OpCapability Kernel
%1 = OpExtInstImport "OpenCL.DebugInfo.100"
OpMemoryModel Physical64 OpenCL
%s = OpString "a.cl"
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%c32 = OpConstant %uint 32
%src = OpExtInst %void %1 DebugSource %s
%cu = OpExtInst %void %1 DebugCompilationUnit 65536 5 %src OpenCL_C
%none = OpExtInst %void %1 DebugInfoNone
%b = OpExtInst %void %1 DebugTypeBasic %s %c32 UnsignedChar
%q = OpExtInst %void %1 DebugTypeQualifier %b VolatileType
%p = OpExtInst %void %1 DebugTypePointer %b Workgroup FlagIsPublic|FlagIsDefinition|FlagTypePassByReference
%c = OpExtInst %void %1 DebugTypeComposite %s Union %src 1 0 %cu %s %c32 None
%o = OpExtInst %void %1 DebugOperation PlusUconst 4
%f = OpExtInst %void %1 DebugOperation Fragment 0 8
%e = OpExtInst %void %1 DebugExpression %o %f
%i = OpExtInst %void %1 DebugImportedEntity %s ImportedDeclaration %src %b 1 0 %cu
"#;
    let w = spirv::assemble(text, AsmOptions::default()).unwrap();
    let dis = spirv::disassemble(&w, DisOptions::default()).unwrap();
    for frag in [
        "DebugTypeBasic %2 %uint_32 UnsignedChar",
        "VolatileType",
        "Workgroup FlagIsProtected|FlagIsPrivate|FlagIsDefinition|FlagTypePassByReference",
        "Union",
        "DebugOperation PlusUconst 4",
        "DebugOperation Fragment 0 8",
        "ImportedDeclaration",
        "65536 5 %6 OpenCL_C",
    ] {
        assert!(dis.contains(frag), "{} lacks {:?}", dis, frag);
    }
    assert_eq!(spirv::assemble(&dis, AsmOptions::default()).unwrap(), w);
    if have_tools() {
        assert!(same_module(&w, &spirv_as(text, &[])));
        let p = tmp("dbg.spv");
        std::fs::write(&p, spirv::words_to_bytes(&w)).unwrap();
        assert_eq!(spirv_dis(&p, &[]), dis);
    }
}
