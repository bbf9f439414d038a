//! Atomics under contention with exact final values: every OpAtomic* on 32-bit integers in
//! global and local memory (kernels/atomic.cl), 64-bit atomics (kernels/atomic64.cl), OpenCL
//! 2.0 atomics with explicit order and scope (kernels/atomic20.cl), atomic_flag test-and-set/clear, and a local-memory
//! histogram; atomics through generic pointers into global and local memory and with a
//! work-group scope on global memory (kernels/atomic_generic.cl).

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

const N: usize = 4096;

#[test]
fn global_32bit_atomics_exact_counts() {
    if !isolate("global_32bit_atomics_exact_counts") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic", &spirv("atomic"));
    global32_exact(&ctx, &q, &prog, N, 64);
}

#[test]
fn global_atomics_of_a_single_work_group_exact_counts() {
    if !isolate("global_atomics_of_a_single_work_group_exact_counts") {
        return;
    }
    // A range of one work-group runs its global atomics as plain loads and stores: every
    // work-item of the group, however many, still sees each other's updates.
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic", &spirv("atomic"));
    for n in [1024, 333, 1] {
        global32_exact(&ctx, &q, &prog, n, n);
    }
    let prog = ctx.built_program("atomic_generic", &spirv("atomic_generic"));
    let bg = ctx.buffer_from(as_bytes(&[0i32, 0]));
    let bout = ctx.buffer(12);
    let bold = ctx.buffer(512 * 4);
    let k = prog.kernel("generic_counts");
    k.arg_mem(0, &bg);
    k.arg_mem(1, &bout);
    k.arg_mem(2, &bold);
    k.arg(3, &7i32);
    q.run(&k, &[], &[512], &[512]);
    let g: Vec<i32> = from_bytes(&q.read(&bg, 0, 8));
    let out: Vec<i32> = from_bytes(&q.read(&bout, 0, 12));
    assert_eq!(
        g,
        [512 * 7, 512 * 7],
        "one group: generic global fetch_add and compare-exchange"
    );
    assert_eq!(&out[..2], &[512 * 7, 512 * 7], "one group: generic local counters");
}

/// Kernel `global32` of kernels/atomic.cl over `n` work-items in groups of `local`: every
/// OpenCL 1.x atomic on global memory, exact final values and old values.
fn global32_exact(ctx: &Context, q: &Queue, prog: &Program, n_items: usize, local: usize) {
    let c0: [i32; 12] = [0, 0, 0, 0, i32::MAX, i32::MIN, 0, -1, 0, -1, 5, 0];
    let u0: [u32; 2] = [u32::MAX, 0];
    let bc = ctx.buffer_from(as_bytes(&c0));
    let bu = ctx.buffer_from(as_bytes(&u0));
    let bold = ctx.buffer(n_items * 4);
    let k = prog.kernel("global32");
    k.arg_mem(0, &bc);
    k.arg_mem(1, &bu);
    k.arg_mem(2, &bold);
    q.run(&k, &[], &[n_items], &[local]);
    let c: Vec<i32> = from_bytes(&q.read(&bc, 0, 48));
    let u: Vec<u32> = from_bytes(&q.read(&bu, 0, 8));
    let n = n_items as i32;
    let sum = n * (n - 1) / 2;
    let xor = (0..n).fold(0, |a, g| a ^ g);
    let at = format!("{n_items} work-items in groups of {local}");
    assert_eq!(c[0], n, "atomic_inc, {at}");
    assert_eq!(c[1], -n, "atomic_dec, {at}");
    assert_eq!(c[2], sum, "atomic_add, {at}");
    assert_eq!(c[3], -sum, "atomic_sub, {at}");
    assert_eq!(c[4], -500, "atomic_min, {at}");
    assert_eq!(c[5], n - 1 - 500, "atomic_max, {at}");
    let bits = (0..n).fold(0i32, |a, g| a | 1 << (g & 31));
    assert_eq!(c[6], bits, "atomic_or, {at}");
    assert_eq!(c[7], !bits, "atomic_and, {at}");
    assert_eq!(c[8], xor, "atomic_xor, {at}");
    assert_eq!(c[10], 5 + 2 * n, "atomic_cmpxchg loop, {at}");
    assert_eq!(u[0], 7, "atomic_min (unsigned), {at}");
    assert_eq!(u[1], (n_items as u32 - 1) * 3, "atomic_max (unsigned), {at}");
    // atomic_xchg: the old values plus the final value are a permutation of {-1, 0..n}.
    let mut old: Vec<i32> = from_bytes(&q.read(&bold, 0, n_items * 4));
    old.push(c[9]);
    old.sort_unstable();
    let want: Vec<i32> = (-1..n).collect();
    assert_eq!(old, want, "atomic_xchg chain, {at}");
}

#[test]
fn opencl_1x_atomics_stay_atomic_across_many_work_groups() {
    if !isolate("opencl_1x_atomics_stay_atomic_across_many_work_groups") {
        return;
    }
    // llvm-spirv gives OpenCL 1.x atomics the Workgroup memory scope; they are atomic across
    // the whole ND-range all the same. A million work-items in 4096 groups keep every worker
    // thread on the same counters.
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic", &spirv("atomic"));
    let n = 1usize << 20;
    // Three launches: a lost update shows up in one of them even on a busy machine.
    for round in 0..3 {
        let c0: [i32; 12] = [0, 0, 0, 0, i32::MAX, i32::MIN, 0, -1, 0, -1, 5, 0];
        let bc = ctx.buffer_from(as_bytes(&c0));
        let bu = ctx.buffer_from(as_bytes(&[u32::MAX, 0]));
        let bold = ctx.buffer(n * 4);
        let k = prog.kernel("global32");
        k.arg_mem(0, &bc);
        k.arg_mem(1, &bu);
        k.arg_mem(2, &bold);
        q.run(&k, &[], &[n], &[256]);
        let c: Vec<i32> = from_bytes(&q.read(&bc, 0, 48));
        assert_eq!(c[0], n as i32, "atomic_inc, launch {round}");
        assert_eq!(c[1], -(n as i32), "atomic_dec, launch {round}");
        assert_eq!(c[10], 5 + 2 * n as i32, "atomic_cmpxchg loop, launch {round}");
        let mut old: Vec<i32> = from_bytes(&q.read(&bold, 0, n * 4));
        old.push(c[9]);
        old.sort_unstable();
        assert!(
            old.iter().copied().eq(-1..n as i32),
            "atomic_xchg chain, launch {round}"
        );
    }
}

#[test]
fn local_32bit_atomics_per_group() {
    if !isolate("local_32bit_atomics_per_group") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic", &spirv("atomic"));
    for local in [64usize, 256, 7] {
        let groups = 12;
        let bo = ctx.buffer(groups * 16);
        let k = prog.kernel("local32");
        k.arg_mem(0, &bo);
        q.run(&k, &[], &[groups * local], &[local]);
        let o: Vec<i32> = from_bytes(&q.read(&bo, 0, groups * 16));
        let l = local as i32;
        let xor = (0..l).fold(0, |a, g| a ^ g);
        for g in 0..groups {
            assert_eq!(
                &o[g * 4..g * 4 + 4],
                &[l * (l + 1) / 2, -5, (l - 1) * 3 - 5, xor],
                "local32: group {g} of size {local} (add, min, max, xor)"
            );
        }
    }
}

#[test]
fn local_histogram_exact_bins() {
    if !isolate("local_histogram_exact_bins") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic", &spirv("atomic"));
    let n = 64 * 256;
    // Skewed: half of the values land in bin 3.
    let a: Vec<u32> = from_bytes::<u32>(&pattern(n * 4, 21))
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 2 == 0 { 3 } else { v % 64 })
        .collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bins = ctx.buffer_from(&[0u8; 256]);
    let k = prog.kernel("histogram");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bins);
    q.run(&k, &[], &[n], &[128]);
    let got: Vec<u32> = from_bytes(&q.read(&bins, 0, 256));
    let mut want = [0u32; 64];
    for v in &a {
        want[*v as usize] += 1;
    }
    assert_eq!(got, want.to_vec(), "histogram bins");
}

#[test]
fn opencl20_atomics_and_flags() {
    if !isolate("opencl20_atomics_and_flags") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic20", &spirv("atomic20"));
    let c0: [i32; 7] = [0, 0, -1, 0, 0, 0x10, 0x0F00];
    let bc = ctx.buffer_from(as_bytes(&c0));
    let bf = ctx.buffer_from(as_bytes(&[0i32, 1]));
    let bw = ctx.buffer(N * 4);
    let k = prog.kernel("c11");
    k.arg_mem(0, &bc);
    k.arg_mem(1, &bf);
    k.arg_mem(2, &bw);
    q.run(&k, &[], &[N], &[]);
    let c: Vec<i32> = from_bytes(&q.read(&bc, 0, 28));
    let n = N as i32;
    assert_eq!(c[0], n, "atomic_fetch_add_explicit");
    assert_eq!(c[1], -2 * n, "atomic_fetch_sub_explicit");
    assert_eq!(c[2], n - 1, "atomic_fetch_max_explicit");
    assert!(
        c[3] >= 1 && c[3] <= n,
        "compare_exchange_strong: exactly one winner stored g + 1, got {}",
        c[3]
    );
    assert_eq!(c[4], 77, "atomic_store");
    assert_eq!(c[5], 0x0F10, "atomic_fetch_or(atomic_load)");
    let won: Vec<i32> = from_bytes(&q.read(&bw, 0, N * 4));
    assert_eq!(
        won.iter().filter(|&&w| w == 1).count(),
        1,
        "atomic_flag_test_and_set: one winner"
    );
    let f: Vec<i32> = from_bytes(&q.read(&bf, 0, 8));
    assert_ne!(f[0], 0, "flag 0 set");
    assert_eq!(f[1], 0, "atomic_flag_clear");
}

#[test]
fn global_64bit_atomics_exact_counts() {
    if !isolate("global_64bit_atomics_exact_counts") {
        return;
    }
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(
        ext.contains("cl_khr_int64_base_atomics") && ext.contains("cl_khr_int64_extended_atomics"),
        "issue 3 requires 64-bit atomics: {ext}"
    );
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic64", &spirv("atomic64"));
    let c0: [i64; 6] = [0, 0, 0, i64::MAX, i64::MIN, 7];
    let u0: [u64; 4] = [0, 0, u64::MAX, 0];
    let bc = ctx.buffer_from(as_bytes(&c0));
    let bu = ctx.buffer_from(as_bytes(&u0));
    let k = prog.kernel("global64");
    k.arg_mem(0, &bc);
    k.arg_mem(1, &bu);
    q.run(&k, &[], &[N], &[32]);
    let c: Vec<i64> = from_bytes(&q.read(&bc, 0, 48));
    let u: Vec<u64> = from_bytes(&q.read(&bu, 0, 32));
    let n = N as i64;
    let sum = n * (n - 1) / 2;
    assert_eq!(c[0], sum << 33, "atom_add");
    assert_eq!(c[1], n, "atom_inc");
    assert_eq!(c[2], -3 * n, "atom_sub");
    assert_eq!(c[3], -1000, "atom_min");
    assert_eq!(c[4], (n - 1) * 0x1_0000_0000, "atom_max");
    assert_eq!(u[0], u64::MAX, "atom_or");
    assert_eq!(
        u[1],
        (0..N as u64).fold(0, |a, g| a ^ g.wrapping_mul(0x9E3779B97F4A7C15)),
        "atom_xor"
    );
    assert_eq!(u[2], 0, "atom_and");
    assert_eq!(c[5], 7 + sum, "atom_cmpxchg loop");
    assert_eq!(u[3], 5, "atom_xchg");
    let bl = ctx.buffer_from(as_bytes(&[0i64, 0]));
    let bu2 = ctx.buffer_from(as_bytes(&[0u64, 0]));
    let k = prog.kernel("c11_64");
    k.arg_mem(0, &bl);
    k.arg_mem(1, &bu2);
    q.run(&k, &[], &[N], &[]);
    let l: Vec<i64> = from_bytes(&q.read(&bl, 0, 16));
    let u2: Vec<u64> = from_bytes(&q.read(&bu2, 0, 16));
    assert_eq!(l[0], sum * 0x1000_0000, "atomic_fetch_add_explicit (long)");
    assert_eq!(l[1], -(n - 1) * 0x1000_0000, "atomic_fetch_min_explicit (long)");
    assert_eq!(u2[0], (N as u64 - 1) << 40, "atomic_fetch_max_explicit (ulong)");
    assert_eq!(u2[1], 0u64.wrapping_sub(N as u64), "atomic_fetch_sub (ulong)");
}

#[test]
fn generic_pointer_atomics_on_global_and_local_memory() {
    if !isolate("generic_pointer_atomics_on_global_and_local_memory") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic_generic", &spirv("atomic_generic"));
    // Many groups, so several worker threads update the global counters at once: the generic
    // pointers into the global buffer must stay atomic, those into local memory need not.
    let (local, groups, rounds) = (64usize, 48usize, 50i32);
    let n = local * groups;
    let bg = ctx.buffer_from(as_bytes(&[0i32, 0]));
    let bout = ctx.buffer(groups * 12);
    let bold = ctx.buffer(n * 4);
    let k = prog.kernel("generic_counts");
    k.arg_mem(0, &bg);
    k.arg_mem(1, &bout);
    k.arg_mem(2, &bold);
    k.arg(3, &rounds);
    q.run(&k, &[], &[n], &[local]);
    let g: Vec<i32> = from_bytes(&q.read(&bg, 0, 8));
    let out: Vec<i32> = from_bytes(&q.read(&bout, 0, groups * 12));
    let old: Vec<i32> = from_bytes(&q.read(&bold, 0, n * 4));
    let total = n as i32 * rounds;
    assert_eq!(
        g[0], total,
        "atomic_fetch_add through a generic pointer to global memory"
    );
    assert_eq!(
        g[1], total,
        "compare-exchange loop through a generic pointer to global memory"
    );
    for grp in 0..groups {
        let per_group = local as i32 * rounds;
        assert_eq!(out[3 * grp], per_group, "group {grp}: local atomic_fetch_add (generic)");
        assert_eq!(
            out[3 * grp + 1],
            per_group,
            "group {grp}: local compare-exchange loop (generic)"
        );
        // The exchange chain: old values plus the final value are -1 and every global id.
        let mut chain: Vec<i32> = old[grp * local..(grp + 1) * local].to_vec();
        chain.push(out[3 * grp + 2]);
        chain.sort_unstable();
        let mut want: Vec<i32> = (grp * local..(grp + 1) * local).map(|i| i as i32).collect();
        want.insert(0, -1);
        assert_eq!(chain, want, "group {grp}: local atomic_exchange chain (generic)");
    }
}

#[test]
fn work_group_scope_atomics_on_global_memory() {
    if !isolate("work_group_scope_atomics_on_global_memory") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("atomic_generic", &spirv("atomic_generic"));
    for local in [256usize, 37] {
        let bc = ctx.buffer_from(as_bytes(&[5i32, 0, -100, 1]));
        let bf = ctx.buffer_from(&[0u8; 32]);
        let k = prog.kernel("work_group_scope");
        k.arg_mem(0, &bc);
        k.arg_mem(1, &bf);
        q.run(&k, &[], &[local], &[local]);
        let c: Vec<i32> = from_bytes(&q.read(&bc, 0, 16));
        let f: Vec<u32> = from_bytes(&q.read(&bf, 0, 32));
        let l = local as i32;
        assert_eq!(
            c,
            [5 + l * (l - 1) / 2, -2 * l, l - 1, 1 + 3 * l],
            "one group of {local}"
        );
        let mut want = [0u32; 8];
        for i in 0..local {
            want[i / 32] |= 1 << (i % 32);
        }
        assert_eq!(f, want, "atomic_fetch_or bits, group of {local}");
    }
}
