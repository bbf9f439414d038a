//! Bad input for the vector loop's planner (issue 16): hand-written SPIR-V without any merge
//! instruction, with an irreducible loop, an unstructured diamond whose arms store and meet at
//! a return reached from two places, switch cases that fall through into each other, and a
//! switch whose arms only compute (kernels/simd_bad_input.spvasm). Each kernel either compiles
//! (the vector loop where it can, else the scalar loop) and gives the host's results for every
//! work-item over group sizes that leave scalar tails, or (with `CLIFT_SIMD=strict`, where a
//! kernel the vector loop cannot take is an error) fails to build with a message naming what
//! stopped it. Never a wrong result, never a crash.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::{compile, CompileOptions, Kernel, Program};

fn program() -> Result<Program, String> {
    let text = include_str!("kernels/simd_bad_input.spvasm");
    let opts = jit::spirv::AsmOptions {
        version: (1, 2),
        ..Default::default()
    };
    let words = jit::spirv::assemble(text, opts).expect("assemble");
    let m = jit::spirv::parse_words(&words).expect("parse");
    compile(&m, &CompileOptions::default()).map_err(|e| e.message)
}

fn strict() -> bool {
    std::env::var("CLIFT_SIMD").is_ok_and(|v| v == "strict")
}

/// Runs kernel `k` (one `uint *` argument) over `n` work-items in groups of `local`.
fn run(k: &Kernel, out: &mut [u32], local: u64) {
    assert_eq!(k.args.len(), 1);
    assert_eq!(k.args[0].kind, ArgKind::Global);
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    let ptr = out.as_mut_ptr() as u64;
    unsafe { *((block.as_mut_ptr() as *mut u8).add(k.args[0].offset) as *mut u64) = ptr };
    let n = out.len() as u64;
    let groups = n.div_ceil(local);
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES.max(k.static_local_size).div_ceil(16) + 1];
    for g in 0..groups {
        let ctx = WorkGroupContext {
            work_dim: 1,
            host_shared: 0,
            global_offset: [0; 3],
            global_size: [n, 1, 1],
            local_size: [(n - g * local).min(local), 1, 1],
            enqueued_local_size: [local, 1, 1],
            num_groups: [groups, 1, 1],
            group_id: [g, 0, 0],
            local_mem: arena.as_mut_ptr() as *mut u8,
            printf: std::ptr::null_mut(),
        };
        unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
    }
}

/// A kernel's result for work-item `i`, computed on the host.
type Reference = fn(u32) -> u32;

fn irreducible(i: u32) -> u32 {
    let lim = i % 7 + 3;
    let (mut n, mut s) = (0u32, i);
    // Odd work-items enter at A, even ones at B.
    let mut at_a = i & 1 == 1;
    loop {
        if at_a {
            n += 1;
            s = s.wrapping_add(10);
            if n >= lim {
                return s;
            }
            at_a = false;
        } else {
            n += 1;
            s = s.wrapping_mul(3) ^ n;
            at_a = true;
        }
    }
}

fn unstructured(i: u32) -> u32 {
    match i % 3 {
        0 => 100,
        1 => i.wrapping_mul(13),
        _ => 12,
    }
}

fn fallthrough(i: u32) -> u32 {
    match i % 5 {
        0 => i.wrapping_mul(3),
        1 => 3,
        2 => 999,
        _ => i + 100,
    }
}

fn computing_switch(i: u32) -> u32 {
    match i.wrapping_mul(7) % 5 {
        0 => i.wrapping_mul(3),
        1 | 3 => i ^ 5,
        2 => 13,
        _ => i + 7,
    }
}

#[test]
fn unstructured_control_flow_compiles_or_is_refused_with_a_reason() {
    let p = match program() {
        Ok(p) => p,
        Err(msg) => {
            // Only strict mode refuses, and it says what stopped the vector loop.
            assert!(strict(), "build failed without CLIFT_SIMD=strict: {msg}");
            assert!(
                msg.contains("kernel") && msg.len() > 20,
                "refusal without a reason: {msg}"
            );
            return;
        }
    };
    let kernels: [(&str, Reference); 4] = [
        ("irreducible", irreducible),
        ("unstructured", unstructured),
        ("fallthrough", fallthrough),
        ("computing_switch", computing_switch),
    ];
    for (name, want) in kernels {
        let k = p.kernel(name).unwrap_or_else(|| panic!("kernel {name}"));
        for (n, local) in [(103usize, 16u64), (64, 64), (37, 5), (9, 3)] {
            let mut out = vec![0xdead_beefu32; n];
            run(&k, &mut out, local);
            for (i, got) in out.iter().enumerate() {
                assert_eq!(
                    *got,
                    want(i as u32),
                    "{name}: work-item {i} of {n} in groups of {local}"
                );
            }
        }
    }
}
