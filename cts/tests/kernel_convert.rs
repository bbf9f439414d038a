//! Conversion instruction family at every vector width: OpConvertFToS/FToU with and without
//! SaturatedConversion and with each FPRoundingMode, OpConvertSToF/UToF and OpFConvert with each
//! rounding mode, OpSConvert/OpUConvert/OpSatConvertSToU/UToS, OpBitcast, and half storage
//! (vload_half/vstore_half{,_rtz}), against host references with the exact OpenCL semantics.
//! Kernels: kernels/convert.cl and kernels/convert64.cl (doubles) (-> .spvasm).

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::cmp::Ordering;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// Equality for results: integers exactly, floats bit for bit (any NaN matches any NaN).
trait Same: Copy + std::fmt::Debug {
    fn same(self, o: Self) -> bool;
}
macro_rules! same_int {
    ($($t:ty),*) => {$(impl Same for $t { fn same(self, o: Self) -> bool { self == o } })*};
}
same_int!(i8, u8, i16, u16, i32, u32, i64, u64);
impl Same for f32 {
    fn same(self, o: Self) -> bool {
        (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
    }
}
impl Same for f64 {
    fn same(self, o: Self) -> bool {
        (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
    }
}

struct Env {
    ctx: Context,
    q: Queue,
    prog: Program,
}

impl Env {
    fn new(module: &str) -> Env {
        let ctx = Context::new();
        let q = ctx.queue();
        let prog = ctx.built_program(module, &spirv(module));
        Env { ctx, q, prog }
    }

    /// Runs `<name>_<w>` for every width over `inputs` (repeated to fill the vectors) and checks
    /// every component against `reference`.
    fn check<S: Copy + std::fmt::Debug, D: Same>(&self, name: &str, inputs: &[S], reference: impl Fn(S) -> D) {
        for &w in &WIDTHS {
            let p = if w == 3 { 4 } else { w };
            let n = inputs.len().div_ceil(w);
            let src: Vec<S> = (0..n * p).map(|j| inputs[(j / p * w + j % p) % inputs.len()]).collect();
            let bs = self.ctx.buffer_from(as_bytes(&src));
            let dsize = std::mem::size_of::<D>() * n * p;
            let bd = self.ctx.buffer(dsize);
            let k = self.prog.kernel(&format!("{name}_{w}"));
            k.arg_mem(0, &bs);
            k.arg_mem(1, &bd);
            self.q.run(&k, &[], &[n], &[]);
            let out: Vec<D> = from_bytes(&self.q.read(&bd, 0, dsize));
            for i in 0..n {
                for c in 0..w {
                    let x = src[i * p + c];
                    let (got, want) = (out[i * p + c], reference(x));
                    assert!(
                        got.same(want),
                        "{name}_{w}: element {i}.{c}: {x:?} -> {got:?}, want {want:?}"
                    );
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

fn f32_step(r: f32, up: bool) -> f32 {
    let b = r.to_bits();
    let pos = r > 0.0 || (r == 0.0 && r.is_sign_positive());
    if r == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    f32::from_bits(if pos == up { b + 1 } else { b - 1 })
}
fn f64_step(r: f64, up: bool) -> f64 {
    let b = r.to_bits();
    if r == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    f64::from_bits(if (r > 0.0) == up { b + 1 } else { b - 1 })
}

/// Rounds to f32 in `mode`, given the round-to-nearest-even result `r` and how `r` compares
/// with the exact value.
fn adjust32(r: f32, cmp: Ordering, mode: Mode) -> f32 {
    match (mode, cmp) {
        (Mode::Rte, _) | (_, Ordering::Equal) => r,
        (Mode::Rtp, Ordering::Less) => f32_step(r, true),
        (Mode::Rtn, Ordering::Greater) => f32_step(r, false),
        (Mode::Rtz, Ordering::Greater) if r > 0.0 => f32_step(r, false),
        (Mode::Rtz, Ordering::Less) if r < 0.0 => f32_step(r, true),
        _ => r,
    }
}

fn i64_to_f32(x: i128, mode: Mode) -> f32 {
    let r = x as f32;
    adjust32(r, (r as i128).cmp(&x), mode)
}

fn f64_to_f32(x: f64, mode: Mode) -> f32 {
    let r = x as f32;
    if x.is_nan() {
        return r;
    }
    adjust32(r, (r as f64).partial_cmp(&x).unwrap(), mode)
}

fn float_inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -2.5,
        0.49999997,
        3.7,
        -3.7,
        255.5,
        256.0,
        254.5,
        -1.0,
        65535.5,
        32767.5,
        -32768.5,
        1e10,
        -1e10,
        2147483520.0,
        -2147483648.0,
        2147483648.0,
        4294967040.0,
        4294967296.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        16777217.0,
        1e-3,
        -1e-3,
    ];
    let r = pattern(64 * 4, 5);
    for i in 0..64 {
        let w = u32::from_le_bytes(r[i * 4..i * 4 + 4].try_into().unwrap());
        let mag = (w % 100_000) as f32 / 16.0 * if i % 3 == 0 { 40000.0 } else { 1.0 };
        v.push(if w & (1 << 31) != 0 { -mag } else { mag });
    }
    v
}

fn int_inputs() -> Vec<i32> {
    let mut v = vec![
        0,
        1,
        -1,
        127,
        128,
        -128,
        -129,
        255,
        256,
        32767,
        32768,
        -32769,
        i32::MAX,
        i32::MIN,
        16777217,
        16777219,
        -16777217,
        2147483520,
        2147483583,
        33554435,
    ];
    let r = pattern(64 * 4, 9);
    for i in 0..64 {
        v.push(i32::from_le_bytes(r[i * 4..i * 4 + 4].try_into().unwrap()) >> (i % 24));
    }
    v
}

fn long_inputs() -> Vec<i64> {
    let mut v = vec![
        0,
        1,
        -1,
        i64::MAX,
        i64::MIN,
        1 << 40,
        (1 << 53) + 1,
        -(1 << 55) - 3,
        0x7FFF_FFFF,
        0x8000_0000,
    ];
    let r = pattern(64 * 8, 11);
    for i in 0..64 {
        v.push(i64::from_le_bytes(r[i * 8..i * 8 + 8].try_into().unwrap()) >> (i % 50));
    }
    v
}

#[test]
fn float_to_integer_every_mode_and_width() {
    if !isolate("float_to_integer_every_mode_and_width") {
        return;
    }
    let e = Env::new("convert");
    let all = float_inputs();
    // Without saturation, out-of-range and NaN inputs are undefined: only in-range ones.
    let in_range: Vec<f32> = all
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x > -2147483904.0 && *x < 2147483648.0)
        .collect();
    e.check("f2i_rtz", &in_range, |x: f32| x.trunc() as i32);
    e.check("f2i_sat", &all, |x: f32| x as i32);
    e.check("f2i_sat_rte", &all, |x: f32| x.round_ties_even() as i32);
    e.check("f2i_sat_rtp", &all, |x: f32| x.ceil() as i32);
    e.check("f2i_sat_rtn", &all, |x: f32| x.floor() as i32);
    e.check("f2uc_sat", &all, |x: f32| x as u8);
    e.check("f2s_sat_rte", &all, |x: f32| x.round_ties_even() as i16);
    e.check("f2u_sat", &all, |x: f32| x as u32);
}

#[test]
fn integer_to_float_every_mode_and_width() {
    if !isolate("integer_to_float_every_mode_and_width") {
        return;
    }
    let e = Env::new("convert");
    let ints = int_inputs();
    e.check("i2f_rte", &ints, |x: i32| i64_to_f32(x as i128, Mode::Rte));
    e.check("i2f_rtz", &ints, |x: i32| i64_to_f32(x as i128, Mode::Rtz));
    e.check("i2f_rtp", &ints, |x: i32| i64_to_f32(x as i128, Mode::Rtp));
    e.check("i2f_rtn", &ints, |x: i32| i64_to_f32(x as i128, Mode::Rtn));
    let uints: Vec<u32> = ints.iter().map(|&x| x as u32).collect();
    e.check("u2f_rte", &uints, |x: u32| i64_to_f32(x as i128, Mode::Rte));
    e.check("u2f_rtz", &uints, |x: u32| i64_to_f32(x as i128, Mode::Rtz));
    let longs = long_inputs();
    e.check("l2f_rte", &longs, |x: i64| i64_to_f32(x as i128, Mode::Rte));
    e.check("l2f_rtz", &longs, |x: i64| i64_to_f32(x as i128, Mode::Rtz));
}

#[test]
fn integer_to_integer_every_width() {
    if !isolate("integer_to_integer_every_width") {
        return;
    }
    let e = Env::new("convert");
    let ints = int_inputs();
    e.check("i2c", &ints, |x: i32| x as i8);
    e.check("i2uc_sat", &ints, |x: i32| x.clamp(0, 255) as u8);
    e.check("i2s_sat", &ints, |x: i32| {
        x.clamp(i16::MIN as i32, i16::MAX as i32) as i16
    });
    e.check("i2u_sat", &ints, |x: i32| x.max(0) as u32);
    e.check("i2ul", &ints, |x: i32| x as i64 as u64);
    let uints: Vec<u32> = ints.iter().map(|&x| x as u32).collect();
    e.check("u2i_sat", &uints, |x: u32| x.min(i32::MAX as u32) as i32);
    let longs = long_inputs();
    e.check("l2i_sat", &longs, |x: i64| {
        x.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    });
    let ulongs: Vec<u64> = longs.iter().map(|&x| x as u64).collect();
    e.check("ul2uc_sat", &ulongs, |x: u64| x.min(255) as u8);
    let uchars: Vec<u8> = (0..=255u8).step_by(7).chain([255]).collect();
    e.check("uc2l", &uchars, |x: u8| x as i64);
    let chars: Vec<i8> = uchars.iter().map(|&x| x as i8).collect();
    e.check("c2i", &chars, |x: i8| x as i32);
}

#[test]
fn bitcast_every_width() {
    if !isolate("bitcast_every_width") {
        return;
    }
    let e = Env::new("convert");
    e.check("f2i_bits", &float_inputs(), |x: f32| x.to_bits() as i32);
}

/// Every finite non-negative half value, as f64, in increasing order (index = bits).
fn half_table() -> Vec<f64> {
    (0u16..0x7C00).map(f16_to_f64).collect()
}

fn f16_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1F) as i32;
    let m = (b & 0x3FF) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// f32 -> half bits, round to nearest even (`rtz` false) or toward zero.
fn f32_to_f16(x: f32, rtz: bool, table: &[f64]) -> u16 {
    if x.is_nan() {
        return 0x7E00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = (x as f64).abs();
    if a.is_infinite() {
        return sign | 0x7C00;
    }
    // Largest half <= a.
    let lo = table.partition_point(|&v| v <= a) - 1;
    let lo_v = table[lo];
    if lo_v == a || rtz {
        return sign | lo as u16;
    }
    let hi_v = if lo + 1 < table.len() { table[lo + 1] } else { 65536.0 };
    let pick_hi = match (a - lo_v).partial_cmp(&(hi_v - a)).unwrap() {
        Ordering::Less => false,
        Ordering::Greater => true,
        Ordering::Equal => lo % 2 == 1,
    };
    sign | if pick_hi { (lo + 1) as u16 } else { lo as u16 }
}

#[test]
fn half_storage_load_and_store() {
    if !isolate("half_storage_load_and_store") {
        return;
    }
    let e = Env::new("convert");
    let table = half_table();
    // Loads: a spread of half bit patterns (normal, denormal, zero, inf; NaN separately).
    let halves: Vec<u16> = (0..256u32)
        .map(|i| (i * 257 + (i >> 3)) as u16)
        .filter(|h| h & 0x7C00 != 0x7C00 || h & 0x3FF == 0)
        .collect();
    let n = halves.len();
    let bh = e.ctx.buffer_from(as_bytes(&halves));
    let bo = e.ctx.buffer(n * 4);
    let k = e.prog.kernel("half_load");
    k.arg_mem(0, &bh);
    k.arg_mem(1, &bo);
    e.q.run(&k, &[], &[n], &[]);
    let out: Vec<f32> = from_bytes(&e.q.read(&bo, 0, n * 4));
    for (i, &h) in halves.iter().enumerate() {
        assert_eq!(out[i] as f64, f16_to_f64(h), "vload_half({h:#06x})");
    }
    let k4 = e.prog.kernel("half_load4");
    k4.arg_mem(0, &bh);
    k4.arg_mem(1, &bo);
    e.q.run(&k4, &[], &[n / 4], &[]);
    let out4: Vec<f32> = from_bytes(&e.q.read(&bo, 0, n / 4 * 16));
    for i in 0..n / 4 * 4 {
        assert_eq!(out4[i] as f64, f16_to_f64(halves[i]), "vload_half4 element {i}");
    }
    // Stores in both rounding modes.
    let mut fl = float_inputs();
    fl.extend([
        65504.0,
        65519.0,
        65520.0,
        70000.0,
        1.0 + 1.0 / 1024.0,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        6.0e-8,
        3.0e-5,
    ]);
    let n = fl.len();
    let bf = e.ctx.buffer_from(as_bytes(&fl));
    let bh = e.ctx.buffer(n * 2);
    for (name, rtz) in [("half_store_rte", false), ("half_store_rtz", true)] {
        let k = e.prog.kernel(name);
        k.arg_mem(0, &bf);
        k.arg_mem(1, &bh);
        e.q.run(&k, &[], &[n], &[]);
        let out: Vec<u16> = from_bytes(&e.q.read(&bh, 0, n * 2));
        for (i, &x) in fl.iter().enumerate() {
            let want = f32_to_f16(x, rtz, &table);
            let ok = if x.is_nan() {
                out[i] & 0x7C00 == 0x7C00 && out[i] & 0x3FF != 0
            } else {
                out[i] == want
            };
            assert!(ok, "{name}({x:e}) = {:#06x}, want {want:#06x}", out[i]);
        }
    }
}

#[test]
fn double_conversions_every_mode_and_width() {
    if !isolate("double_conversions_every_mode_and_width") {
        return;
    }
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(ext.contains("cl_khr_fp64"), "the device must support doubles (Float64)");
    let e = Env::new("convert64");
    let mut doubles: Vec<f64> = float_inputs().iter().map(|&x| x as f64).collect();
    doubles.extend([
        1e39,
        -1e39,
        1.0 + 1e-12,
        -(1.0 + 1e-12),
        9.3e18,
        -9.3e18,
        1.8e19,
        1.9e19,
        0.1,
        -0.1,
        3.4028235677973366e38,
        f64::MAX,
        2.5e-7,
    ]);
    e.check("d2l_sat_rte", &doubles, |x: f64| x.round_ties_even() as i64);
    e.check("d2ul_sat", &doubles, |x: f64| x as u64);
    e.check("d2f_rte", &doubles, |x: f64| f64_to_f32(x, Mode::Rte));
    e.check("d2f_rtz", &doubles, |x: f64| f64_to_f32(x, Mode::Rtz));
    e.check("d2f_rtp", &doubles, |x: f64| f64_to_f32(x, Mode::Rtp));
    e.check("d2f_rtn", &doubles, |x: f64| f64_to_f32(x, Mode::Rtn));
    e.check("f2d", &float_inputs(), |x: f32| x as f64);
    let longs = long_inputs();
    let ulongs: Vec<u64> = longs.iter().map(|&x| x as u64).collect();
    e.check("ul2d_rte", &ulongs, |x: u64| x as f64);
    // ulong to float and float to ulong: every sign, 2^63 and 2^64 on both sides.
    e.check("ul2f_rte", &ulongs, |x: u64| x as f32);
    let mut floats = float_inputs();
    floats.extend([9.2e18f32, 9.3e18, 1.8e19, 1.9e19, -9.3e18, 0.99, 1.0, 2.5e18]);
    e.check("f2ul_sat", &floats, |x: f32| x as u64);
    e.check("l2d_rtp", &longs, |x: i64| {
        let r = x as f64;
        if (r as i128) < x as i128 {
            f64_step(r, true)
        } else {
            r
        }
    });
    e.check("l2d_bits", &longs, |x: i64| f64::from_bits(x as u64));
}
