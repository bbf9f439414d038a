//! Integer instruction family: arithmetic, division and remainder (OpSDiv/OpUDiv/OpSRem/OpUMod,
//! and OpSMod from hand-written SPIR-V), bitwise, shifts, negation and compare-select, for every
//! integer width (8, 16, 32, 64; signed and unsigned) and every vector width (1, 2, 3, 4, 8,
//! 16), each checked against a host reference with OpenCL C semantics.
//! Kernels: kernels/int_arith.cl (-> .spvasm) and kernels/intops.spvasm.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];
/// Vectors per run: not a multiple of any work-group size Clift might pick.
const N: usize = 37;
const OPS: usize = 14;

trait Int: Copy + PartialEq + PartialOrd + std::fmt::Debug + Default {
    const BITS: u32;
    const SIGNED: bool;
    fn from_u64(v: u64) -> Self;
    fn to_i128(self) -> i128;
    fn wrap(v: i128) -> Self {
        Self::from_u64(v as u64)
    }
}

macro_rules! int_impl {
    ($t:ty, $signed:expr) => {
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    };
}
int_impl!(i8, true);
int_impl!(u8, false);
int_impl!(i16, true);
int_impl!(u16, false);
int_impl!(i32, true);
int_impl!(u32, false);
int_impl!(i64, true);
int_impl!(u64, false);

/// The 14 results of int_arith.cl for one component. `scalar`: OpenCL C integer promotion
/// applies (types narrower than int are computed in int, so shift counts are masked by 31).
fn reference<T: Int>(x: T, y: T, scalar: bool) -> [T; OPS] {
    let (xi, yi) = (x.to_i128(), y.to_i128());
    let promoted = scalar && T::BITS < 32;
    let shift_bits = if promoted { 32 } else { T::BITS };
    let count = (yi as u64 & (shift_bits as u64 - 1)) as u32;
    let shl = T::wrap(xi << count);
    // Right shift of the (possibly promoted) value: arithmetic for signed, logical for unsigned
    // (a promoted unsigned value is non-negative, so both coincide there).
    let shr = T::wrap(xi >> count);
    let div = T::wrap(xi / yi);
    let rem = T::wrap(xi % yi);
    [
        T::wrap(xi + yi),
        T::wrap(xi - yi),
        T::wrap(xi.wrapping_mul(yi)),
        div,
        rem,
        T::wrap(xi & yi),
        T::wrap(xi | yi),
        T::wrap(xi ^ yi),
        shl,
        shr,
        T::wrap(!xi),
        T::wrap(-xi),
        if x < y { x } else { y },
        if x >= y { y } else { T::wrap(xi + yi) },
    ]
}

/// Inputs: edge values first, then pseudo-random bit patterns. y is never 0 and never -1 when
/// x is the minimum (undefined in OpenCL C for vectors).
fn inputs<T: Int>(count: usize, seed: u64) -> (Vec<T>, Vec<T>) {
    let ra = pattern(count * 8, seed);
    let rb = pattern(count * 8, seed + 1);
    let word = |r: &[u8], i: usize| u64::from_le_bytes(r[i * 8..i * 8 + 8].try_into().unwrap());
    let min = if T::SIGNED { 1u64 << (T::BITS - 1) } else { 0 };
    let max = if T::SIGNED { min.wrapping_sub(1) } else { u64::MAX };
    let edges = [min, max, 0, 1, u64::MAX, 2, 5, 7];
    let mut a = Vec::with_capacity(count);
    let mut b = Vec::with_capacity(count);
    for i in 0..count {
        let mut x = T::from_u64(word(&ra, i));
        let mut y = T::from_u64(word(&rb, i));
        if i < edges.len() {
            x = T::from_u64(edges[i]);
        }
        if i % 5 == 1 {
            // Small shift counts and divisors too.
            y = T::from_u64(word(&rb, i) % (T::BITS as u64 + 3));
        }
        if y.to_i128() == 0 || (T::SIGNED && x.to_i128() == min as i64 as i128 && y.to_i128() == -1) {
            y = T::from_u64(3);
        }
        if T::SIGNED && T::BITS < 64 && x.to_i128() == -(1i128 << (T::BITS - 1)) && y.to_i128() == -1 {
            y = T::from_u64(3);
        }
        a.push(x);
        b.push(y);
    }
    (a, b)
}

fn run_type<T: Int>(tname: &str) {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("int_arith", &spirv("int_arith"));
    for (wi, &w) in WIDTHS.iter().enumerate() {
        let p = if w == 3 { 4 } else { w };
        let (a, b) = inputs::<T>(N * p, 100 + wi as u64 + T::BITS as u64);
        let ba = ctx.buffer_from(as_bytes(&a));
        let bb = ctx.buffer_from(as_bytes(&b));
        let size = std::mem::size_of::<T>();
        let bo = ctx.buffer(N * p * OPS * size);
        let k = prog.kernel(&format!("ops_{tname}{w}"));
        k.arg_mem(0, &ba);
        k.arg_mem(1, &bb);
        k.arg_mem(2, &bo);
        q.run(&k, &[], &[N], &[]);
        let o: Vec<T> = from_bytes(&q.read(&bo, 0, N * p * OPS * size));
        for i in 0..N {
            for c in 0..w {
                let (x, y) = (a[i * p + c], b[i * p + c]);
                let want = reference(x, y, w == 1);
                for (op, &wv) in want.iter().enumerate() {
                    let got = o[(i * OPS + op) * p + c];
                    assert_eq!(
                        got, wv,
                        "ops_{tname}{w}: vector {i} component {c} op {op} (x = {x:?}, y = {y:?})"
                    );
                }
            }
        }
    }
}

macro_rules! int_test {
    ($name:ident, $t:ty, $tname:expr) => {
        #[test]
        fn $name() {
            if !isolate(stringify!($name)) {
                return;
            }
            run_type::<$t>($tname);
        }
    };
}
int_test!(ops_char_every_width, i8, "char");
int_test!(ops_uchar_every_width, u8, "uchar");
int_test!(ops_short_every_width, i16, "short");
int_test!(ops_ushort_every_width, u16, "ushort");
int_test!(ops_int_every_width, i32, "int");
int_test!(ops_uint_every_width, u32, "uint");
int_test!(ops_long_every_width, i64, "long");
int_test!(ops_ulong_every_width, u64, "ulong");

/// OpSMod (sign of the divisor), OpSRem (sign of the dividend), OpUMod, OpSDiv, OpUDiv on i32,
/// OpSMod on i16, OpFRem and OpFMod on f32 (kernels/intops.spvasm, hand-written).
#[test]
fn mods_match_host() {
    if !isolate("mods_match_host") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("intops", &spirv("intops"));
    let k = prog.kernel("mods");
    let xs: [i32; 12] = [7, -7, 7, -7, 0, 13, i32::MIN, i32::MAX, -1, 100, -100, 65539];
    let ys: [i32; 12] = [3, 3, -3, -3, 5, 13, 7, -2, 4, -7, 7, 65536 + 5];
    let fx: [f32; 12] = [5.5, -5.5, 5.5, -5.5, 0.75, 3.0, -0.25, 100.0, 8.0, -1.5, 7.25, 1.0];
    let fy: [f32; 12] = [2.0, 2.0, -2.0, -2.0, 0.5, 3.0, 1.0, 7.0, -3.0, 0.5, -2.0, 4.0];
    let n = xs.len();
    let (ba, bb) = (ctx.buffer_from(as_bytes(&xs)), ctx.buffer_from(as_bytes(&ys)));
    let (bfa, bfb) = (ctx.buffer_from(as_bytes(&fx)), ctx.buffer_from(as_bytes(&fy)));
    let bo = ctx.buffer(n * 8 * 4);
    let bfo = ctx.buffer(n * 2 * 4);
    for (i, m) in [&ba, &bb, &bo, &bfa, &bfb, &bfo].iter().enumerate() {
        k.arg_mem(i as cl_uint, m);
    }
    q.run(&k, &[], &[n], &[]);
    let o: Vec<i32> = from_bytes(&q.read(&bo, 0, n * 8 * 4));
    let fo: Vec<f32> = from_bytes(&q.read(&bfo, 0, n * 2 * 4));
    let smod = |x: i64, y: i64| {
        let r = x % y;
        if r != 0 && ((r < 0) != (y < 0)) {
            r + y
        } else {
            r
        }
    };
    for i in 0..n {
        let (x, y) = (xs[i], ys[i]);
        let want = [
            smod(x as i64, y as i64) as i32,
            x.wrapping_rem(y),
            ((x as u32) % (y as u32)) as i32,
            x.wrapping_div(y),
            ((x as u32) / (y as u32)) as i32,
            smod(x as i16 as i64, y as i16 as i64) as i16 as i32,
        ];
        for (j, &w) in want.iter().enumerate() {
            assert_eq!(o[i * 8 + j], w, "mods: item {i} op {j} (x = {x}, y = {y})");
        }
        let frem = fx[i] % fy[i];
        let fmod = if frem != 0.0 && ((frem < 0.0) != (fy[i] < 0.0)) {
            frem + fy[i]
        } else {
            frem
        };
        assert_eq!(fo[i * 2].to_bits(), frem.to_bits(), "OpFRem({}, {})", fx[i], fy[i]);
        assert_eq!(fo[i * 2 + 1], fmod, "OpFMod({}, {})", fx[i], fy[i]);
    }
}
