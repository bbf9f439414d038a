//! Atomics that move floating-point values (kernels/atomic_float.cl): OpenCL C 1.1 atomic_xchg
//! on float in global and local memory, and atomic_init / atomic_load / atomic_store /
//! atomic_exchange on atomic_float and atomic_double in global and local memory, directly and
//! through generic pointers. Each kernel runs from its SPIR-V (OpAtomicExchange, OpAtomicLoad
//! and OpAtomicStore on 32- and 64-bit floats) and from its OpenCL C source. The values are
//! arbitrary bit patterns (NaNs with payloads among them), so every check is bit-exact, and
//! every returned old value is checked: an exchange chain's old values plus the final value
//! must be exactly the initial value and every work-item's value.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

/// The program from SPIR-V and from OpenCL C source (what clang makes of atomic_xchg on
/// float and of atomic_double goes through the same validator and code generator).
fn programs(ctx: &Context) -> Vec<(&'static str, Program)> {
    let il = ctx.built_program("atomic_float", &spirv("atomic_float"));
    let src = ctx.program_source(&kernel_text("atomic_float.cl"));
    let err = src.build("-cl-std=CL3.0");
    assert_eq!(
        err,
        CL_SUCCESS,
        "atomic_float.cl: {}\n{}",
        err_name(err),
        src.build_log()
    );
    vec![("SPIR-V", il), ("OpenCL C", src)]
}

/// A float or double as its bits; `pattern` is the kernel's bits32 / bits64.
trait Bits: Copy + Ord + std::fmt::Debug + Default {
    const NAME: &'static str;
    fn pattern(i: u64) -> Self;
    fn minus_five() -> Self;
}

impl Bits for u32 {
    const NAME: &'static str = "float";
    fn pattern(i: u64) -> u32 {
        (i as u32).wrapping_mul(0x9E37_79B9) ^ 0x7FC0_1234
    }
    fn minus_five() -> u32 {
        (-5.0f32).to_bits()
    }
}

impl Bits for u64 {
    const NAME: &'static str = "double";
    fn pattern(i: u64) -> u64 {
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x7FF8_0000_00C0_FFEE
    }
    fn minus_five() -> u64 {
        (-5.0f64).to_bits()
    }
}

/// An exchange chain is right when the old values returned plus the final value are exactly the
/// initial value and every participant's value.
fn check_chain<T: Bits>(what: &str, old: &[T], last: T, initial: T, values: impl Iterator<Item = T>) {
    let mut got: Vec<T> = old.to_vec();
    got.push(last);
    got.sort_unstable();
    let mut want: Vec<T> = values.collect();
    want.push(initial);
    want.sort_unstable();
    assert_eq!(got, want, "{what}: old values plus final value");
}

const N: usize = 2048;

#[test]
fn atomic_xchg_on_float_global_and_local() {
    if !isolate("atomic_xchg_on_float_global_and_local") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    for (how, prog) in programs(&ctx) {
        let initial = 2.5f32.to_bits();
        let bx = ctx.buffer_from(as_bytes(&[initial]));
        let bold = ctx.buffer(N * 4);
        let k = prog.kernel("xchg_global");
        k.arg_mem(0, &bx);
        k.arg_mem(1, &bold);
        q.run(&k, &[], &[N], &[64]);
        let old: Vec<u32> = from_bytes(&q.read(&bold, 0, N * 4));
        let last: Vec<u32> = from_bytes(&q.read(&bx, 0, 4));
        let values = (0..N as u64).map(u32::pattern);
        check_chain(&format!("{how} xchg_global"), &old, last[0], initial, values);

        for local in [64usize, 7] {
            let groups = 9;
            let n = groups * local;
            let bout = ctx.buffer(groups * 4);
            let bold = ctx.buffer(n * 4);
            let k = prog.kernel("xchg_local");
            k.arg_mem(0, &bout);
            k.arg_mem(1, &bold);
            q.run(&k, &[], &[n], &[local]);
            let out: Vec<u32> = from_bytes(&q.read(&bout, 0, groups * 4));
            let old: Vec<u32> = from_bytes(&q.read(&bold, 0, n * 4));
            for (g, (chunk, last)) in old.chunks(local).zip(&out).enumerate() {
                check_chain(
                    &format!("{how} xchg_local, group {g} of {local}"),
                    chunk,
                    *last,
                    (-1.25f32).to_bits(),
                    (g * local..(g + 1) * local).map(|i| u32::pattern(i as u64)),
                );
            }
        }
    }
}

/// c11_global_<T>: the exchange chain on a[0] and init / load / store / exchange / load on each
/// work-item's own a[1 + g].
fn c11_global<T: Bits>(ctx: &Context, q: &Queue, how: &str, prog: &Program) {
    let size = std::mem::size_of::<T>();
    let initial = T::minus_five();
    let mut a = vec![T::default(); N + 1];
    a[0] = initial;
    let ba = ctx.buffer_from(as_bytes(&a));
    let bold = ctx.buffer(N * size);
    let bseen = ctx.buffer(3 * N * size);
    let k = prog.kernel(&format!("c11_global_{}", T::NAME));
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bold);
    k.arg_mem(2, &bseen);
    k.arg(3, &(N as u32));
    q.run(&k, &[], &[N], &[32]);
    let a: Vec<T> = from_bytes(&q.read(&ba, 0, (N + 1) * size));
    let old: Vec<T> = from_bytes(&q.read(&bold, 0, N * size));
    let seen: Vec<T> = from_bytes(&q.read(&bseen, 0, 3 * N * size));
    let what = format!("{how} c11_global_{}", T::NAME);
    check_chain(&what, &old, a[0], initial, (0..N as u64).map(T::pattern));
    let n = N as u64;
    for g in 0..N {
        let p = |k: u64| T::pattern(g as u64 + k * n);
        assert_eq!(seen[3 * g], p(1), "{what}: atomic_load after atomic_init, item {g}");
        assert_eq!(
            seen[3 * g + 1],
            p(2),
            "{what}: atomic_exchange returns the atomic_store's value, item {g}"
        );
        assert_eq!(
            seen[3 * g + 2],
            p(3),
            "{what}: generic atomic_load after the exchange, item {g}"
        );
        assert_eq!(a[1 + g], p(3), "{what}: final value, item {g}");
    }
}

/// c11_local_<T>: work-groups of 64 with a local exchange chain and per-work-item local
/// objects read by the neighbour across barriers.
fn c11_local<T: Bits>(ctx: &Context, q: &Queue, how: &str, prog: &Program) {
    let size = std::mem::size_of::<T>();
    let (local, groups) = (64usize, 16usize);
    let n = local * groups;
    let bold = ctx.buffer(n * size);
    let bseen = ctx.buffer(2 * n * size);
    let blast = ctx.buffer(n * size);
    let bend = ctx.buffer(groups * size);
    let k = prog.kernel(&format!("c11_local_{}", T::NAME));
    k.arg_mem(0, &bold);
    k.arg_mem(1, &bseen);
    k.arg_mem(2, &blast);
    k.arg_mem(3, &bend);
    q.run(&k, &[], &[n], &[local]);
    let old: Vec<T> = from_bytes(&q.read(&bold, 0, n * size));
    let seen: Vec<T> = from_bytes(&q.read(&bseen, 0, 2 * n * size));
    let last: Vec<T> = from_bytes(&q.read(&blast, 0, n * size));
    let end: Vec<T> = from_bytes(&q.read(&bend, 0, groups * size));
    let what = format!("{how} c11_local_{}", T::NAME);
    for (grp, (chunk, last)) in old.chunks(local).zip(&end).enumerate() {
        check_chain(
            &format!("{what}, group {grp}"),
            chunk,
            *last,
            T::minus_five(),
            (grp * local..(grp + 1) * local).map(|i| T::pattern(i as u64)),
        );
    }
    for g in 0..n {
        let prev = (g / local * local + (g % local + local - 1) % local) as u64;
        assert_eq!(
            seen[2 * g],
            T::pattern(prev + 100_000),
            "{what}: atomic_load of the neighbour's atomic_init, item {g}"
        );
        assert_eq!(
            seen[2 * g + 1],
            T::pattern(g as u64 + 200_000),
            "{what}: atomic_exchange returns the atomic_store's value, item {g}"
        );
        assert_eq!(
            last[g],
            T::pattern(prev + 300_000),
            "{what}: the neighbour's exchanged value through a generic pointer, item {g}"
        );
    }
}

#[test]
fn c11_atomic_float_and_double_load_store_exchange_init() {
    if !isolate("c11_atomic_float_and_double_load_store_exchange_init") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    for (how, prog) in programs(&ctx) {
        c11_global::<u32>(&ctx, &q, how, &prog);
        c11_global::<u64>(&ctx, &q, how, &prog);
        c11_local::<u32>(&ctx, &q, how, &prog);
        c11_local::<u64>(&ctx, &q, how, &prog);
    }
}

#[test]
fn float_atomic_arithmetic_in_spirv_is_rejected_naming_the_instruction() {
    if !isolate("float_atomic_arithmetic_in_spirv_is_rejected_naming_the_instruction") {
        return;
    }
    let ctx = Context::new();
    let p = ctx.program_il(&spirv("atomic_float_iadd"));
    assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    let log = p.build_log();
    assert!(
        log.contains("OpAtomicIAdd") && log.contains("32-bit float"),
        "the log names the instruction and the type: {log}"
    );
    assert_eq!(p.try_kernel("iadd_float").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
}
