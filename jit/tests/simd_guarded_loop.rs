//! The vector loop takes a loop behind a guard that reaches it through a preheader block
//! (kernels/simd_guarded_loop.spvasm, the shape llvm-spirv 15 gives a rotated `for` loop whose
//! setup LLVM left in a block of its own): the preheader's computation runs before the guard,
//! the work-items the guard sends past the loop keep the exit phi's value from the guard's
//! block. Checked against the host for every work-item over group sizes that leave scalar
//! tails; with `CLIFT_SIMD=strict` the build itself shows the vector loop took the kernel.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::{compile, CompileOptions};

fn host(i: u32) -> u32 {
    let n = i % 5;
    if n == 0 {
        return 7;
    }
    let t = i.wrapping_mul(3).wrapping_add(7);
    let mut s = i;
    for j in 0..n {
        s = s.wrapping_mul(3).wrapping_add(t).wrapping_add(j);
    }
    s
}

#[test]
fn a_loop_behind_a_guard_and_a_preheader_matches_the_host() {
    let text = include_str!("kernels/simd_guarded_loop.spvasm");
    let opts = jit::spirv::AsmOptions {
        version: (1, 2),
        ..Default::default()
    };
    let words = jit::spirv::assemble(text, opts).expect("assemble");
    let m = jit::spirv::parse_words(&words).expect("parse");
    let p = compile(&m, &CompileOptions::default()).unwrap_or_else(|e| panic!("build: {}", e.message));
    let k = p.kernel("guarded_preheader").expect("kernel");
    assert_eq!(k.args.len(), 1);
    assert_eq!(k.args[0].kind, ArgKind::Global);
    for (n, local) in [(103usize, 16u64), (64, 64), (37, 5), (9, 3)] {
        let mut out = vec![0xdead_beefu32; n];
        let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
        let ptr = out.as_mut_ptr() as u64;
        unsafe { *((block.as_mut_ptr() as *mut u8).add(k.args[0].offset) as *mut u64) = ptr };
        let groups = (n as u64).div_ceil(local);
        let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES.max(k.static_local_size).div_ceil(16) + 1];
        for g in 0..groups {
            let ctx = WorkGroupContext {
                work_dim: 1,
                host_shared: 0,
                global_offset: [0; 3],
                global_size: [n as u64, 1, 1],
                local_size: [(n as u64 - g * local).min(local), 1, 1],
                enqueued_local_size: [local, 1, 1],
                num_groups: [groups, 1, 1],
                group_id: [g, 0, 0],
                local_mem: arena.as_mut_ptr() as *mut u8,
                printf: std::ptr::null_mut(),
            };
            unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
        }
        for (i, got) in out.iter().enumerate() {
            assert_eq!(*got, host(i as u32), "work-item {i} of {n} in groups of {local}");
        }
    }
}
