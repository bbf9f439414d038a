//! Parser: rejection of malformed binaries, both endiannesses, and a quick
//! fuzz over parse + validate + disassemble (no panics on any input).

use jit::spirv::{self, DeviceFeatures, DisOptions};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/{}", env!("CARGO_MANIFEST_DIR"), name)).expect("test data")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    spirv::words_to_bytes(words)
}

fn err(b: &[u8]) -> String {
    match spirv::parse(b) {
        Ok(_) => panic!("expected a parse error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parses_llvm_spirv_module() {
    let m = spirv::parse(&data("kernel_loop.spv")).unwrap();
    assert_eq!(m.header.unwrap().version, (1, 4));
    assert_eq!(m.entry_points.len(), 1);
    assert_eq!(m.entry_points[0].name, "add");
    assert!(m.functions.iter().any(|f| f.blocks.len() > 3));
    assert!(m
        .decorations
        .iter()
        .any(|d| d.linkage() == Some(("add", rspirv::spirv::LinkageType::Export))));
    assert!(m.types.len() > 5);
    assert!(m.constants.len() > 3);
    assert_eq!(m.variables.len(), 1);
    assert_eq!(m.name_of(m.variables[0].id), Some("__spirv_BuiltInGlobalInvocationId"));
}

#[test]
fn swapped_endianness_is_accepted() {
    let b = data("kernel_loop.spv");
    let swapped: Vec<u8> = b.chunks_exact(4).flat_map(|c| [c[3], c[2], c[1], c[0]]).collect();
    assert_eq!(spirv::parse(&b).unwrap(), spirv::parse(&swapped).unwrap());
}

#[test]
fn bad_magic() {
    let mut w = words(&data("kernel_loop.spv"));
    w[0] = 0x1234_5678;
    assert!(err(&bytes(&w)).contains("bad magic number"));
}

#[test]
fn truncated() {
    let b = data("kernel_loop.spv");
    assert!(err(&b[..b.len() - 2]).contains("not a multiple of the 4-byte word size"));
    assert!(err(&b[..12]).contains("shorter than the 5-word"));
    // OpMemoryModel needs 3 words; give it 2.
    let w = [0x0723_0203, 0x0001_0000, 0, 10, 0, (3 << 16) | 14, 2];
    let e = err(&bytes(&w));
    assert!(
        e.contains("OpMemoryModel has word count 3 but only 2 words remain"),
        "{}",
        e
    );
    assert!(e.contains("byte offset 20"), "{}", e);
    assert!(err(&b[..b.len() - 4]).contains("without OpFunctionEnd"));
}

#[test]
fn bad_word_counts() {
    let mut w = words(&data("kernel_loop.spv"));
    w[5] &= 0xffff; // OpCapability with word count 0
    assert!(err(&bytes(&w)).contains("word count 0"));
    let mut w = words(&data("kernel_loop.spv"));
    w[5] = (3 << 16) | (w[5] & 0xffff); // OpCapability claiming 3 words
    let e = err(&bytes(&w));
    // The stream is now out of step: the walk hits a bogus word count.
    assert!(e.contains("word count"), "{}", e);
    // A word count one too large at the end of the module.
    let w = [0x0723_0203, 0x0001_0000, 0, 10, 0, (4 << 16) | 14, 2, 2, 0];
    let e = err(&bytes(&w));
    assert!(
        e.contains("OpMemoryModel: more words than its operands use (bad word count)"),
        "{}",
        e
    );
    assert!(e.contains("byte offset 20"), "{}", e);
    // A word count that makes the operands run short.
    let w = [0x0723_0203, 0x0001_0000, 0, 10, 0, (2 << 16) | 14, 2];
    let e = err(&bytes(&w));
    assert!(e.contains("OpMemoryModel: missing operands"), "{}", e);
}

#[test]
fn unknown_opcode() {
    let mut w = words(&data("kernel_loop.spv"));
    w[5] = (2 << 16) | 0xfff0;
    assert!(err(&bytes(&w)).contains("unknown opcode 65520"));
}

#[test]
fn versions_outside_1_0_to_1_6() {
    for v in [0x0001_0700u32, 0x0002_0000, 0x0000_0100, 0x0001_0001] {
        let mut w = words(&data("kernel_loop.spv"));
        w[1] = v;
        assert!(err(&bytes(&w)).contains("SPIR-V 1.0 to 1.6"), "version {:x}", v);
    }
    for v in 0..=6u32 {
        let mut w = words(&data("kernel_loop.spv"));
        w[1] = 0x0001_0000 | (v << 8);
        assert!(spirv::parse(&bytes(&w)).is_ok());
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn exercise(b: &[u8]) {
    if let Ok(m) = spirv::parse(b) {
        let _ = spirv::validate(&m, &DeviceFeatures::default());
    }
    if b.len() & 3 == 0 {
        let _ = spirv::disassemble(&words(b), DisOptions::default());
    }
}

#[test]
fn fuzz_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let seeds = [data("kernel_loop.spv"), data("kernels_b_O0.spv")];
    for _ in 0..300 {
        let n = (rng.next() % 200) as usize;
        let mut b: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        exercise(&b);
        if b.len() >= 20 {
            b[..20].copy_from_slice(&bytes(&[0x0723_0203, 0x0001_0000, 0, 100, 0]));
            exercise(&b);
        }
    }
    for seed in &seeds {
        for _ in 0..300 {
            let mut b = seed.clone();
            let len = b.len();
            exercise(&b[..(rng.next() as usize % len)]);
            for _ in 0..(1 + rng.next() % 4) {
                let i = 20 + (rng.next() as usize % (len - 20));
                match rng.next() % 3 {
                    0 => b[i] = rng.next() as u8,
                    1 => b[i] ^= 1 << (rng.next() % 8),
                    _ => {
                        let w = (i / 4) * 4;
                        b[w..w + 4].copy_from_slice(&(rng.next() as u32 % 64).to_le_bytes());
                    }
                }
            }
            exercise(&b);
        }
    }
}
