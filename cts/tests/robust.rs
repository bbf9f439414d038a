//! Robust mode (README "Robust mode"): with `-cl-clift-robust` (or `CLIFT_ROBUST=1`) every
//! access through a pointer whose origin the compiler sees is checked against the memory it
//! came from. The documented rule, computed here on the host: an access that does not lie
//! wholly inside its memory object reads 0 (loads, an atomic's old value) or is dropped
//! (stores, an atomic's write). Kernels: kernels/source/robust.cl (OpenCL C, built by clang),
//! kernels/kernel_fault.spvasm (the fault containment cases, which must no longer fault).

use cts::*;
use std::ptr;

const ROBUST: &str = "-cl-clift-robust";

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// An index into `len` elements about half the time; otherwise just outside either end,
    /// or far outside.
    fn index(&mut self, len: i32) -> i32 {
        let r = self.next();
        match r % 8 {
            0..=3 => ((r >> 8) as i32 & i32::MAX) % len.max(1),
            4 => len + ((r >> 8) % 4) as i32,
            5 => -1 - ((r >> 8) % 4) as i32,
            6 => [i32::MIN, i32::MAX, 1 << 24, -(1 << 24)][((r >> 8) % 4) as usize],
            _ => ((r >> 8) as i32).rem_euclid(len.max(1)),
        }
    }
}

fn ints(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| rng.next() as i32).collect()
}

/// Runs `k` over `global` items (local size `local`, or chosen when 0) and checks that the
/// command completed (robust mode never faults on these kernels).
fn run(q: &Queue, k: &Kernel, global: usize, local: usize) {
    let mut e = ptr::null_mut();
    let loc = if local == 0 {
        ptr::null()
    } else {
        &local as *const usize
    };
    ok!(clEnqueueNDRangeKernel(
        q.0,
        k.0,
        1,
        ptr::null(),
        &global,
        loc,
        0,
        ptr::null(),
        &mut e
    ));
    let e = Event(e);
    let r = unsafe { clWaitForEvents(1, &e.0) };
    assert_eq!(r, CL_SUCCESS, "{}", err_name(r));
    assert_eq!(e.status(), CL_COMPLETE);
}

fn read_i32(q: &Queue, m: &Mem, n: usize) -> Vec<i32> {
    from_bytes(&q.read(m, 0, n * 4))
}

fn in_range(j: i64, len: usize) -> bool {
    j >= 0 && (j as usize) < len
}

struct Setup {
    ctx: Context,
    q: Queue,
    robust: Program,
    normal: Program,
}

fn setup() -> Setup {
    let ctx = Context::new();
    let q = ctx.queue();
    let robust = ctx.built_source("robust.cl", &format!("-cl-std=CL3.0 {ROBUST}"));
    let normal = ctx.built_source("robust.cl", "-cl-std=CL3.0");
    Setup { ctx, q, robust, normal }
}

/// Gathers and scatters at random in- and out-of-range indexes (vector loop and scalar
/// remainder: 1001 work-items).
#[test]
fn loads_and_stores_follow_the_rule() {
    let s = setup();
    let mut rng = Rng(0x5eed_0001);
    for round in 0..4 {
        let (len, n) = (300usize, 1001usize);
        let src0 = ints(&mut rng, len);
        let idx: Vec<i32> = (0..n).map(|_| rng.index(len as i32)).collect();
        let src = s.ctx.buffer_from(as_bytes(&src0));
        let ib = s.ctx.buffer_from(as_bytes(&idx));
        let out = s.ctx.buffer(n * 4);
        let k = s.robust.kernel("load_idx");
        k.arg_mem(0, &src);
        k.arg_mem(1, &ib);
        k.arg_mem(2, &out);
        run(&s.q, &k, n, 0);
        let want: Vec<i32> = idx
            .iter()
            .map(|&j| if in_range(j as i64, len) { src0[j as usize] } else { 0 })
            .collect();
        assert_eq!(read_i32(&s.q, &out, n), want, "round {round}: loads");

        // Scatter: each in-range target taken by one work-item at most (no races).
        let mut taken = vec![false; len];
        let idx: Vec<i32> = (0..n)
            .map(|_| loop {
                let j = rng.index(len as i32);
                if !in_range(j as i64, len) {
                    break j;
                }
                if !taken[j as usize] {
                    taken[j as usize] = true;
                    break j;
                }
            })
            .collect();
        let dst0 = ints(&mut rng, len);
        let dst = s.ctx.buffer_from(as_bytes(&dst0));
        let ib = s.ctx.buffer_from(as_bytes(&idx));
        let k = s.robust.kernel("store_idx");
        k.arg_mem(0, &dst);
        k.arg_mem(1, &ib);
        run(&s.q, &k, n, 0);
        let mut want = dst0.clone();
        for (i, &j) in idx.iter().enumerate() {
            if in_range(j as i64, len) {
                want[j as usize] = i as i32 + 1;
            }
        }
        assert_eq!(read_i32(&s.q, &dst, len), want, "round {round}: stores");
    }
}

/// Contiguous loads and stores shifted partly or wholly out of range: lanes of one vector
/// access that are in range keep their values.
#[test]
fn contiguous_accesses_partly_out_of_range() {
    let s = setup();
    let n = 257usize;
    let src0: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    let src = s.ctx.buffer_from(as_bytes(&src0));
    for (os, od) in [
        (0i64, 0i64),
        (1, 0),
        (-3, 0),
        (0, 2),
        (0, -5),
        (7, -7),
        (250, 0),
        (0, 255),
        (1 << 40, 0),
        (0, 1 << 40),
        (-(1 << 40), -(1 << 40)),
    ] {
        let dst0: Vec<f32> = (0..n).map(|i| -(i as f32)).collect();
        let dst = s.ctx.buffer_from(as_bytes(&dst0));
        let k = s.robust.kernel("copy_shift");
        k.arg_mem(0, &src);
        k.arg_mem(1, &dst);
        k.arg(2, &os);
        k.arg(3, &od);
        run(&s.q, &k, n, 0);
        let mut want = dst0.clone();
        for i in 0..n as i64 {
            let d = i + od;
            if in_range(d, n) {
                let v = if in_range(i + os, n) {
                    src0[(i + os) as usize]
                } else {
                    0.0
                };
                want[d as usize] = v * 2.0;
            }
        }
        let got: Vec<f32> = from_bytes(&s.q.read(&dst, 0, n * 4));
        assert_eq!(got, want, "shift src {os}, dst {od}");
    }
}

/// Atomics out of range return 0 and change nothing; in range they count.
#[test]
fn atomics_follow_the_rule() {
    let s = setup();
    let mut rng = Rng(0x5eed_0002);
    let (len, n) = (40usize, 999usize);
    let idx: Vec<i32> = (0..n).map(|_| rng.index(len as i32)).collect();
    let cnt = s.ctx.buffer_from(as_bytes(&vec![0i32; len]));
    let ib = s.ctx.buffer_from(as_bytes(&idx));
    let old = s.ctx.buffer_from(as_bytes(&vec![-9i32; n]));
    let k = s.robust.kernel("atomic_idx");
    k.arg_mem(0, &cnt);
    k.arg_mem(1, &ib);
    k.arg_mem(2, &old);
    run(&s.q, &k, n, 0);
    let mut want = vec![0i32; len];
    for &j in &idx {
        if in_range(j as i64, len) {
            want[j as usize] += 1;
        }
    }
    assert_eq!(read_i32(&s.q, &cnt, len), want, "counts");
    let got = read_i32(&s.q, &old, n);
    for (i, (&j, &o)) in idx.iter().zip(&got).enumerate() {
        if in_range(j as i64, len) {
            assert!((0..want[j as usize]).contains(&o), "work-item {i}: old {o} at {j}");
        } else {
            assert_eq!(o, 0, "work-item {i}: out-of-range atomic at {j}");
        }
    }
}

/// float4 elements and vload4/vstore4 at random indexes.
#[test]
fn vector_types_follow_the_rule() {
    let s = setup();
    let mut rng = Rng(0x5eed_0003);
    let (len, n) = (50usize, 203usize);
    let src0: Vec<f32> = (0..4 * len).map(|i| i as f32 * 0.25 + 1.0).collect();
    let idx: Vec<i32> = (0..n).map(|_| rng.index(len as i32)).collect();
    let src = s.ctx.buffer_from(as_bytes(&src0));
    let flat = s.ctx.buffer_from(as_bytes(&src0));
    let ib = s.ctx.buffer_from(as_bytes(&idx));
    let dst = s.ctx.buffer_from(as_bytes(&vec![7.0f32; 4 * n]));
    let flat_out = s.ctx.buffer_from(as_bytes(&vec![-1.0f32; 4 * len]));
    let k = s.robust.kernel("vec_idx");
    for (a, m) in [&src, &dst, &flat, &flat_out, &ib].into_iter().enumerate() {
        k.arg_mem(a as cl_uint, m);
    }
    run(&s.q, &k, n, 0);
    let mut want = vec![0f32; 4 * n];
    let mut want_flat = vec![-1.0f32; 4 * len];
    for (i, &j) in idx.iter().enumerate() {
        if in_range(j as i64, len) {
            let j = j as usize;
            want[4 * i..4 * i + 4].copy_from_slice(&src0[4 * j..4 * j + 4]);
            want_flat[4 * j..4 * j + 4].copy_from_slice(&src0[4 * j..4 * j + 4]);
        }
    }
    let got: Vec<f32> = from_bytes(&s.q.read(&dst, 0, 16 * n));
    assert_eq!(got, want, "float4 loads");
    let got: Vec<f32> = from_bytes(&s.q.read(&flat_out, 0, 16 * len));
    assert_eq!(got, want_flat, "vload4/vstore4");
}

/// A __local argument and a local array, read and written at random indexes.
#[test]
fn local_memory_follows_the_rule() {
    let s = setup();
    let mut rng = Rng(0x5eed_0004);
    let (l, n) = (64usize, 256usize);
    let idx: Vec<i32> = (0..n).map(|_| rng.index(l as i32)).collect();
    let ib = s.ctx.buffer_from(as_bytes(&idx));
    let out = s.ctx.buffer(8 * n);
    let k = s.robust.kernel("local_idx");
    k.arg_mem(0, &ib);
    k.arg_mem(1, &out);
    k.arg_local(2, l * 4);
    run(&s.q, &k, n, l);
    let mut want = vec![0i32; 2 * n];
    for g in 0..n / l {
        let ids = &idx[g * l..(g + 1) * l];
        for (x, &j) in ids.iter().enumerate() {
            let i = g * l + x;
            let ok = in_range(j as i64, l);
            let a = if ok { j + 100 } else { 0 };
            let b = if ok { j + 200 } else { 0 };
            let hit = ids.contains(&(x as i32));
            want[2 * i] = a + if hit { -1 } else { x as i32 + 100 };
            want[2 * i + 1] = b + if hit { -1 } else { x as i32 + 200 };
        }
    }
    assert_eq!(read_i32(&s.q, &out, 2 * n), want);
}

/// A private array of 8 ints read and written at random indexes.
#[test]
fn private_arrays_follow_the_rule() {
    let s = setup();
    let mut rng = Rng(0x5eed_0005);
    let n = 301usize;
    let idx: Vec<i32> = (0..n).map(|_| rng.index(8)).collect();
    let ib = s.ctx.buffer_from(as_bytes(&idx));
    let out = s.ctx.buffer(4 * n);
    let k = s.robust.kernel("private_idx");
    k.arg_mem(0, &ib);
    k.arg_mem(1, &out);
    run(&s.q, &k, n, 0);
    let want: Vec<i32> = idx
        .iter()
        .enumerate()
        .map(|(i, &j)| {
            let mut p: Vec<i32> = (0..8).map(|k| k * 10 + i as i32).collect();
            if in_range(j as i64 + 1, 8) {
                p[(j + 1) as usize] = 7;
            }
            let s = p.iter().fold(0i32, |s, &v| s.wrapping_mul(3).wrapping_add(v));
            s.wrapping_add(if in_range(j as i64, 8) { p[j as usize] } else { 0 })
        })
        .collect();
    assert_eq!(read_i32(&s.q, &out, n), want);
}

/// A program-scope array read at random indexes.
#[test]
fn program_scope_arrays_follow_the_rule() {
    let s = setup();
    let mut rng = Rng(0x5eed_0006);
    let n = 77usize;
    let idx: Vec<i32> = (0..n).map(|_| rng.index(16)).collect();
    let ib = s.ctx.buffer_from(as_bytes(&idx));
    let out = s.ctx.buffer(4 * n);
    let k = s.robust.kernel("global_idx");
    k.arg_mem(0, &ib);
    k.arg_mem(1, &out);
    run(&s.q, &k, n, 0);
    let want: Vec<i32> = idx
        .iter()
        .map(|&j| if in_range(j as i64, 16) { j + 1 } else { 0 })
        .collect();
    assert_eq!(read_i32(&s.q, &out, n), want);
}

/// Programs that stay in range compute the same in robust and in normal mode.
#[test]
fn in_range_programs_match_normal_mode() {
    let s = setup();
    let mut rng = Rng(0x5eed_0007);
    let (len, n, l) = (64usize, 512usize, 64usize);
    let idx: Vec<i32> = (0..n).map(|_| (rng.next() % 7) as i32).collect();
    let src0 = ints(&mut rng, 4 * len);
    let results = [&s.normal, &s.robust].map(|p| {
        let mut outs: Vec<Vec<u8>> = Vec::new();
        let ib = s.ctx.buffer_from(as_bytes(&idx));
        let src = s.ctx.buffer_from(as_bytes(&src0));
        let out = s.ctx.buffer(8 * n);
        let k = p.kernel("load_idx");
        k.arg_mem(0, &src);
        k.arg_mem(1, &ib);
        k.arg_mem(2, &out);
        run(&s.q, &k, n, 0);
        outs.push(s.q.read(&out, 0, 4 * n));
        let k = p.kernel("local_idx");
        k.arg_mem(0, &ib);
        k.arg_mem(1, &out);
        k.arg_local(2, l * 4);
        run(&s.q, &k, n, l);
        outs.push(s.q.read(&out, 0, 8 * n));
        let k = p.kernel("private_idx");
        k.arg_mem(0, &ib);
        k.arg_mem(1, &out);
        run(&s.q, &k, n, 0);
        outs.push(s.q.read(&out, 0, 4 * n));
        let dst = s.ctx.buffer_from(as_bytes(&src0));
        let k = p.kernel("copy_shift");
        k.arg_mem(0, &src);
        k.arg_mem(1, &dst);
        k.arg(2, &3i64);
        k.arg(3, &1i64);
        run(&s.q, &k, 4 * len - 3, 0);
        outs.push(s.q.read(&dst, 0, 16 * len));
        let flat_out = s.ctx.buffer(16 * len);
        let dst4 = s.ctx.buffer(16 * n);
        let k = p.kernel("vec_idx");
        for (a, m) in [&src, &dst4, &src, &flat_out, &ib].into_iter().enumerate() {
            k.arg_mem(a as cl_uint, m);
        }
        run(&s.q, &k, n, 0);
        outs.push(s.q.read(&dst4, 0, 16 * n));
        outs.push(s.q.read(&flat_out, 0, 16 * len));
        outs
    });
    assert_eq!(results[0], results[1]);
}

fn fault_program(ctx: &Context, options: &str) -> Program {
    let text = kernel_text("kernel_fault.spvasm");
    let opts = jit::spirv::AsmOptions {
        version: spvasm_version(&text),
        ..Default::default()
    };
    let words = jit::spirv::assemble(&text, opts).unwrap();
    let p = ctx.program_il(&jit::spirv::words_to_bytes(&words));
    let err = p.build(options);
    assert_eq!(err, CL_SUCCESS, "{}\n{}", err_name(err), p.build_log());
    p
}

/// The kernel_fault cases that fault in normal mode complete in robust mode: the store 2^40
/// past the buffer is dropped, the loads through NULL read 0, and the store after a barrier
/// is dropped while every other work-item's result stands.
fn fault_cases_complete(p: &Program, ctx: &Context, q: &Queue) {
    let a0 = pattern(256, 1);
    let a = ctx.buffer_from(&a0);
    let store = p.kernel("store_far");
    store.arg_mem(0, &a);
    store.arg(1, &(1u64 << 40));
    run(q, &store, 4096, 64);
    assert_eq!(q.read(&a, 0, a0.len()), a0, "the far store was dropped");

    let load = p.kernel("load_null");
    let out = ctx.buffer_from(&pattern(1024, 2));
    let null: cl_mem = ptr::null_mut();
    load.arg(0, &null);
    load.arg_mem(1, &out);
    run(q, &load, 256, 0);
    assert_eq!(read_i32(q, &out, 256), vec![0; 256], "loads through NULL read 0");

    let (n, l) = (1024usize, 64usize);
    let k = p.kernel("fault_after_barrier");
    let out = ctx.buffer(n * 4);
    k.arg_mem(0, &out);
    k.arg_local(1, l * 4);
    k.arg(2, &200u64);
    run(q, &k, n, l);
    let want: Vec<i32> = (0..n).map(|i| (i / l * l + (i % l + 1) % l) as i32).collect();
    assert_eq!(read_i32(q, &out, n), want);
}

#[test]
fn fault_cases_complete_with_the_build_option() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = fault_program(&ctx, ROBUST);
    fault_cases_complete(&p, &ctx, &q);
}

/// `CLIFT_ROBUST=1` makes every program robust (a child process with it set).
#[test]
fn fault_cases_complete_with_the_environment_variable() {
    if std::env::var_os("CTS_ISOLATED_CHILD").is_none() {
        let out = test_child("fault_cases_complete_with_the_environment_variable")
            .env("CTS_ISOLATED_CHILD", "1")
            .env("CLIFT_ROBUST", "1")
            .output()
            .expect("spawn child");
        assert!(
            out.status.success(),
            "child: {:?}\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = fault_program(&ctx, "");
    fault_cases_complete(&p, &ctx, &q);
}

/// A kernel that never ends is still stopped by the time limit in robust mode, and the queue
/// runs the next kernel.
#[test]
fn endless_kernel_stops_at_the_time_limit() {
    if std::env::var_os("CTS_ISOLATED_CHILD").is_none() {
        let out = test_child("endless_kernel_stops_at_the_time_limit")
            .env("CTS_ISOLATED_CHILD", "1")
            .env("CLIFT_KERNEL_TIMEOUT_MS", "300")
            .output()
            .expect("spawn child");
        assert!(
            out.status.success(),
            "child: {:?}\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = fault_program(&ctx, ROBUST);
    let flag = ctx.buffer_from(&[0u8; 4]);
    let out = ctx.buffer(64 * 4);
    let spin = p.kernel("spin");
    spin.arg_mem(0, &flag);
    spin.arg_mem(1, &out);
    let mut e = ptr::null_mut();
    let global = 4usize;
    ok!(clEnqueueNDRangeKernel(
        q.0,
        spin.0,
        1,
        ptr::null(),
        &global,
        ptr::null(),
        0,
        ptr::null(),
        &mut e
    ));
    let e = Event(e);
    let _ = unsafe { clWaitForEvents(1, &e.0) };
    assert_eq!(e.status(), CL_OUT_OF_RESOURCES);
    let fill = p.kernel("fill");
    fill.arg_mem(0, &out);
    run(&q, &fill, 64, 0);
    let want: Vec<i32> = (0..64).map(|i| 3 * i + 1).collect();
    assert_eq!(read_i32(&q, &out, 64), want);
}

/// The option is Clift's own: misspelt it is refused, and clCompileProgram accepts it.
#[test]
fn the_option_is_checked() {
    let ctx = Context::new();
    let text = kernel_text("kernel_fault.spvasm");
    let opts = jit::spirv::AsmOptions {
        version: spvasm_version(&text),
        ..Default::default()
    };
    let words = jit::spirv::assemble(&text, opts).unwrap();
    let p = ctx.program_il(&jit::spirv::words_to_bytes(&words));
    assert_eq!(p.build("-cl-clift-robust=1"), CL_INVALID_BUILD_OPTIONS);
    assert_eq!(p.build("-cl-clift-robust"), CL_SUCCESS);
    let c = ctx.source_program("robust.cl");
    let opts = format!("-cl-std=CL3.0 {ROBUST}");
    assert_eq!(c.compile(&opts, &[]), CL_SUCCESS, "{}", c.build_log());
}
