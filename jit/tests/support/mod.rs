//! Helpers shared by the jit integration tests: a test file that uses them declares
//! `mod support;`. Each test binary uses only some of them.
#![allow(dead_code)]

use jit::abi::{ArgKind, WorkGroupContext};
use jit::{compile, CompileOptions, Kernel, Program};
use std::path::Path;
use std::process::Command;

/// xorshift64*: a test's own deterministic inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// An index in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }

    /// A small integer in `-range..range`.
    pub fn small(&mut self, range: i64) -> i64 {
        (self.next() % (2 * range as u64)) as i64 - range
    }

    /// A float in [-2, 2) with few mantissa bits, or an arbitrary one in [-1, 1).
    pub fn float(&mut self) -> f32 {
        let v = self.next();
        if v & 1 == 0 {
            ((v >> 8) % 64) as f32 / 16.0 - 2.0
        } else {
            ((v >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
        }
    }
}

/// The SPIR-V of OpenCL C file `cl` (clang-15 `-cl-std=CL1.2 -O2` with the default header and
/// `defines`, then llvm-spirv-15), its intermediate files in `dir` named after `tag`. Panics
/// when clang refuses the program; `Err` with llvm-spirv's message when llvm-spirv refuses it.
pub fn cl_to_spirv(cl: &Path, defines: &[String], dir: &Path, tag: &str) -> Result<Vec<u8>, String> {
    let bc = dir.join(format!("{tag}.bc"));
    let spv = dir.join(format!("{tag}.spv"));
    let ok = Command::new("clang-15")
        .args([
            "-c",
            "-target",
            "spir64",
            "-cl-std=CL1.2",
            "-O2",
            "-emit-llvm",
            "-Xclang",
        ])
        .arg("-finclude-default-header")
        .args(defines)
        .arg("-o")
        .arg(&bc)
        .arg(cl)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "clang-15 rejected {} {defines:?}", cl.display());
    let out = Command::new("llvm-spirv-15")
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .output()
        .map_err(|e| format!("llvm-spirv-15: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    std::fs::read(&spv).map_err(|e| format!("read {}: {e}", spv.display()))
}

/// Compiles `spv` with the environment variables `env` (name, value) set while it compiles.
/// The callers' test files hold a single test each, so no other thread reads the environment
/// meanwhile (the safety condition of `set_var`).
pub fn build_with_env(spv: &[u8], env: &[(&str, &str)]) -> Program {
    for (k, v) in env {
        std::env::set_var(k, v);
    }
    let m = jit::spirv::parse(spv).expect("parse");
    let p = compile(&m, &CompileOptions::default());
    for (k, _) in env {
        std::env::remove_var(k);
    }
    p.unwrap_or_else(|e| panic!("compile ({env:?}): {e}"))
}

/// Whether clang-15 runs here (the tests that build OpenCL C skip without it).
pub fn have_clang() -> bool {
    Command::new("clang-15").arg("--version").output().is_ok()
}

/// A kernel argument for [`run_grid`].
pub enum Arg {
    Ptr(*mut u8),
    U32(u32),
}

/// A `__global` pointer argument to the elements of `v`.
pub fn ptr<T>(v: &mut [T]) -> Arg {
    Arg::Ptr(v.as_mut_ptr() as *mut u8)
}

/// Runs every work-group of a `work_dim`-dimensional grid of `groups` groups of `local`
/// work-items, one after the other (dimension 0 fastest), with `args` laid out as the kernel
/// asks.
pub fn run_grid(k: &Kernel, args: &[Arg], work_dim: u32, local: [u64; 3], groups: [u64; 3]) {
    assert_eq!(k.args.len(), args.len(), "argument count of {}", k.name);
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    let bytes = block.as_mut_ptr() as *mut u8;
    for (ka, a) in k.args.iter().zip(args) {
        // SAFETY: offsets come from the kernel's argument layout, inside `block`.
        unsafe {
            match (ka.kind, a) {
                (ArgKind::Global, Arg::Ptr(p)) => *(bytes.add(ka.offset) as *mut u64) = *p as u64,
                (ArgKind::Value, Arg::U32(v)) => *(bytes.add(ka.offset) as *mut u32) = *v,
                (kind, _) => panic!("argument kind {kind:?} mismatch"),
            }
        }
    }
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES.div_ceil(16) + 1];
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let ctx = WorkGroupContext {
                    work_dim,
                    host_shared: 0,
                    serial: 0,
                    global_offset: [0; 3],
                    global_size: std::array::from_fn(|d| local[d] * groups[d]),
                    local_size: local,
                    enqueued_local_size: local,
                    num_groups: groups,
                    group_id: [gx, gy, gz],
                    local_mem: arena.as_mut_ptr() as *mut u8,
                    printf: std::ptr::null_mut(),
                };
                // SAFETY: the caller's buffers hold what the kernel reads and writes for this
                // grid.
                unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
            }
        }
    }
}

/// The argument block of `k` holding `vals`, each argument the low bytes of its u64.
pub fn arg_block(k: &Kernel, vals: &[u64]) -> Vec<u64> {
    let mut args = vec![0u64; k.args_size.div_ceil(8).max(1)];
    for (ka, v) in k.args.iter().zip(vals) {
        // SAFETY: offsets and sizes come from the kernel's argument layout, inside `args`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                v as *const u64 as *const u8,
                (args.as_mut_ptr() as *mut u8).add(ka.offset),
                ka.size.min(8),
            )
        };
    }
    args
}
