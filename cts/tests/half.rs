//! cl_khr_fp16: the device queries, half arithmetic (correctly rounded, fma included), half
//! conversions with every rounding mode and saturation, and built-ins on half and half4
//! (math within the half ulp bounds of the OpenCL C specification, exact functions bit for
//! bit, relationals, select and geometric functions), from kernels/source/half.cl, and the
//! half stores (vstore_half{n}, vstorea_half{n}) of float and double in every rounding mode,
//! from kernels/source/half_stores.cl, against host references computed with the `half`
//! crate and f64 arithmetic.

use cts::image_ref::Rng;
use cts::*;
use half::f16;

/// A host reference function in double precision.
type Reference = fn(f64) -> f64;

/// Operands per kernel run.
const N: usize = 4096;

fn h(bits: u16) -> f64 {
    f16::from_bits(bits).to_f64()
}

/// Every half value except NaNs, in increasing order (one zero: +0), for directed rounding.
fn ordered_halves() -> Vec<f64> {
    let mut v: Vec<f64> = (0..=0xffffu16)
        .filter(|b| *b != 0x8000)
        .map(h)
        .filter(|x| !x.is_nan())
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v
}

/// `x` rounded to half in `mode` (0 rte, 1 rtz, 2 rtp, 3 rtn), as half bits, from the
/// halves on either side of `x` (`f16::from_f64` is not used on inexact values: it rounds a
/// double through f32, twice).
fn round_half(all: &[f64], x: f64, mode: usize) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    // A zero result keeps the sign of x.
    let bits = |v: f64| f16::from_f64(if v == 0.0 { 0.0f64.copysign(x) } else { v }).to_bits();
    let i = all.partition_point(|v| *v <= x);
    let below = all[i - 1];
    if below == x {
        return bits(x);
    }
    let above = all[i];
    // Past the largest finite half, rounding to nearest treats infinity as 2^16.
    let finite = |v: f64| if v.is_infinite() { 65536f64.copysign(v) } else { v };
    let mid = (finite(below) + finite(above)) / 2.0;
    let r = match mode {
        0 if x < mid => below,
        0 if x > mid => above,
        0 if bits(below) & 1 == 0 => below,
        0 => above,
        1 if x > 0.0 => below,
        1 => above,
        2 => above,
        _ => below,
    };
    bits(r)
}

/// Random half bit patterns with the special values first.
fn half_inputs(seed: u64, n: usize) -> Vec<u16> {
    let mut v: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3800, 0x3555, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
        0x7e00, 0x4248, 0xc248, 0x3bff, 0x4000, 0x5640,
    ];
    let mut rng = Rng::new(seed);
    while v.len() < n {
        v.push(rng.next_u64() as u16);
    }
    v
}

/// Random halves with magnitudes in [2^-lo, 2^hi] and random signs.
fn half_range(seed: u64, n: usize, lo: f64, hi: f64) -> Vec<u16> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let m = 2f64.powf(rng.range_f64(lo, hi));
            let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            f16::from_f64(s * m).to_bits()
        })
        .collect()
}

fn same_half(got: u16, want: u16) -> bool {
    let (g, w) = (f16::from_bits(got), f16::from_bits(want));
    (g.is_nan() && w.is_nan()) || got == want
}

/// Error of `got` in ulps of half at the reference value `want` (CTS style: an infinite result
/// for a finite reference counts as 2^16).
fn ulps(got: u16, want: f64) -> f64 {
    let g = h(got);
    if want.is_nan() {
        return if g.is_nan() { 0.0 } else { f64::INFINITY };
    }
    // A reference beyond the half range rounds to infinity.
    let want = if want.abs() >= 65520.0 {
        f64::INFINITY.copysign(want)
    } else {
        want
    };
    if want.is_infinite() || g.is_nan() {
        return if g == want { 0.0 } else { f64::INFINITY };
    }
    let g = if g.is_infinite() { 65536f64.copysign(g) } else { g };
    let e = if want == 0.0 {
        -14
    } else {
        (want.abs().log2().floor() as i32).max(-14)
    };
    (g - want).abs() / 2f64.powi(e - 10)
}

fn check_ulps(what: &str, x: &[u16], got: &[u16], reference: impl Fn(f64) -> f64, bound: f64) -> f64 {
    let mut worst = 0.0f64;
    for (i, (&xi, &g)) in x.iter().zip(got).enumerate() {
        let want = reference(h(xi));
        let e = ulps(g, want);
        assert!(
            e <= bound,
            "{what}: element {i}: x = {} ({xi:#06x}): got {} ({g:#06x}), want {want} ({e} ulp > {bound})",
            h(xi),
            h(g)
        );
        worst = worst.max(e);
    }
    worst
}

fn run(q: &Queue, k: &Kernel, args: &[&Mem], n: usize) {
    for (i, m) in args.iter().enumerate() {
        k.arg_mem(i as u32, m);
    }
    q.run(k, &[], &[n], &[]);
}

fn read<T: Copy>(q: &Queue, m: &Mem, count: usize) -> Vec<T> {
    from_bytes(&q.read(m, 0, count * std::mem::size_of::<T>()))
}

struct Env {
    ctx: Context,
    q: Queue,
    prog: Program,
}

fn env() -> Env {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("half.cl", "-cl-std=CL3.0");
    Env { ctx, q, prog }
}

#[test]
fn device_reports_fp16() {
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(ext.split(' ').any(|e| e == "cl_khr_fp16"), "{ext}");
    let features = device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES).expect("features");
    let names: Vec<String> = features
        .chunks(std::mem::size_of::<cl_name_version>())
        .filter(|c| c.len() == std::mem::size_of::<cl_name_version>())
        .map(|c| bytes_to_string(&c[4..]))
        .collect();
    assert!(names.iter().any(|n| n == "__opencl_c_fp16"), "{names:?}");
    let config: cl_device_fp_config = device_info(CL_DEVICE_HALF_FP_CONFIG);
    let need = CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_DENORM;
    assert_eq!(config & need, need, "CL_DEVICE_HALF_FP_CONFIG {config:#x}");
    assert!(device_info::<cl_uint>(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF) > 0);
    assert!(device_info::<cl_uint>(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF) > 0);
    // A buffer too small for the cl_ulong answer: CL_INVALID_VALUE.
    let mut small = [0u8; 4];
    let err = unsafe {
        clGetDeviceInfo(
            device(),
            CL_DEVICE_HALF_FP_CONFIG,
            small.len(),
            small.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(err, CL_INVALID_VALUE);
}

#[test]
fn arithmetic_is_correctly_rounded() {
    let e = env();
    let a = half_inputs(1, N);
    let mut b = half_inputs(2, N);
    b.rotate_left(7);
    let c = half_inputs(3, N);
    let (ba, bb, bc) = (
        e.ctx.buffer_from(as_bytes(&a)),
        e.ctx.buffer_from(as_bytes(&b)),
        e.ctx.buffer_from(as_bytes(&c)),
    );
    let out = e.ctx.buffer(N * 8);
    let fout = e.ctx.buffer(N * 2);
    run(&e.q, &e.prog.kernel("arith"), &[&ba, &bb, &bc, &out, &fout], N);
    let got: Vec<u16> = read(&e.q, &out, 4 * N);
    let gotf: Vec<u16> = read(&e.q, &fout, N);
    for i in 0..N {
        let (x, y, z) = (h(a[i]), h(b[i]), h(c[i]));
        // f64 holds sums and products of halves exactly; the quotient's double rounding is
        // innocuous (53 >= 2 * 11 + 2); fma's f64 rounding never lands on a half tie.
        let want = [x + y, x - y, x * y, x / y].map(|v| f16::from_f64(v).to_bits());
        for k in 0..4 {
            assert!(
                same_half(got[4 * i + k], want[k]),
                "op {k} of {x} and {y}: got {:#06x}, want {:#06x}",
                got[4 * i + k],
                want[k]
            );
        }
        let wf = f16::from_f64(x.mul_add(y, z)).to_bits();
        assert!(
            same_half(gotf[i], wf),
            "fma({x}, {y}, {z}): got {:#06x}, want {wf:#06x}",
            gotf[i]
        );
    }
}

#[test]
fn vector_arithmetic() {
    let e = env();
    let a = half_inputs(4, N);
    let b = half_inputs(5, N);
    let (ba, bb) = (e.ctx.buffer_from(as_bytes(&a)), e.ctx.buffer_from(as_bytes(&b)));
    let out = e.ctx.buffer(N * 6);
    let n = N / 4;
    run(&e.q, &e.prog.kernel("arith4"), &[&ba, &bb, &out], n);
    let got: Vec<u16> = read(&e.q, &out, 3 * N);
    for i in 0..n {
        for c in 0..4 {
            let (x, y) = (h(a[4 * i + c]), h(b[4 * i + c]));
            let y1 = h(b[4 * i + 1]);
            let want = [x + y, x * y, x / y1].map(|v| f16::from_f64(v).to_bits());
            for (k, w) in want.iter().enumerate() {
                let g = got[12 * i + 4 * k + c];
                assert!(same_half(g, *w), "arith4 {i}.{c} op {k}: got {g:#06x}, want {w:#06x}");
            }
        }
    }
}

/// `n` floats: special values, then values near half values (between neighbours, ties),
/// beyond the half range, at the subnormal halves, and random bit patterns.
fn floats_near_halves(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut fl: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        65504.0,
        65519.0,
        65520.0,
        1e6,
        -1e6,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        5.9604645e-8,
        2.9802322e-8,
        2.9802326e-8,
        -2.9802322e-8,
        1e-10,
        -1e-10,
        1.0 + 1.0 / 2048.0,
        -(1.0 + 3.0 / 2048.0),
    ];
    while fl.len() < n {
        let bits = rng.next_u64() as u16;
        let base = h(bits) as f32;
        let f = match rng.below(3) {
            0 => f32::from_bits(base.to_bits().wrapping_add(rng.below(1 << 13) as u32)),
            1 => f32::from_bits(base.to_bits() ^ (1 << 12)),
            _ => f32::from_bits(rng.next_u64() as u32),
        };
        fl.push(f);
    }
    fl
}

/// `n` doubles: the same kinds of values as [`floats_near_halves`], with bits below a float's
/// last place (a double just off a tie that no float can be), and double subnormals.
fn doubles_near_halves(rng: &mut Rng, n: usize) -> Vec<f64> {
    // Just below 65520 (the midpoint with 2^16), 2^-25 (half the smallest subnormal) and
    // just above it, the smallest double subnormals, the largest doubles.
    let mut dl: Vec<f64> = [
        0x40ef_fdff_ffff_ffffu64,
        0x3e60_0000_0000_0000,
        0x3e60_0000_0000_0001,
        1,
        0x8000_0000_0000_0001,
    ]
    .map(f64::from_bits)
    .to_vec();
    dl.extend([f64::MAX, f64::MIN]);
    while dl.len() < n {
        let base = h(rng.next_u64() as u16);
        let d = match rng.below(4) {
            0 => f64::from_bits(base.to_bits().wrapping_add(rng.below(1 << 42))),
            1 => f64::from_bits(base.to_bits() ^ (1 << 41)),
            2 => f64::from_bits((base.to_bits() ^ (1 << 41)) + 1 - 2 * rng.below(2)),
            _ => f64::from_bits(rng.next_u64()),
        };
        dl.push(d);
    }
    dl
}

/// vstore_half{n} and vstorea_half{n} of float and double vectors in each rounding mode
/// (kernels/source/half_stores.cl), bit for bit against `round_half` (a NaN: any NaN); the
/// fourth half of each vstorea_half3 slot is left as it was.
#[test]
fn half_stores_in_every_rounding_mode() {
    const M: usize = 1024;
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("half_stores.cl", "");
    let all = ordered_halves();
    let mut rng = Rng::new(12);
    let fl = floats_near_halves(&mut rng, 16 * M);
    let dl = doubles_near_halves(&mut rng, 16 * M);
    let bf = ctx.buffer_from(as_bytes(&fl));
    let bd = ctx.buffer_from(as_bytes(&dl));
    let out = ctx.buffer(16 * M * 2);
    const SENTINEL: u16 = 0xaaaa;
    let fresh = vec![SENTINEL; 16 * M];
    let inputs: [(&str, &Mem, Vec<f64>); 2] = [
        ("f", &bf, fl.iter().map(|x| f64::from(*x)).collect()),
        ("d", &bd, dl.clone()),
    ];
    for (prefix, buf, values) in &inputs {
        for n in [1usize, 2, 3, 4, 8, 16] {
            let mut kernels = vec![
                (format!("{prefix}{n}"), 0, n),
                (format!("{prefix}{n}_rte"), 0, n),
                (format!("{prefix}{n}_rtz"), 1, n),
                (format!("{prefix}{n}_rtp"), 2, n),
                (format!("{prefix}{n}_rtn"), 3, n),
            ];
            if n > 1 {
                let stride = if n == 3 { 4 } else { n };
                kernels.push((format!("{prefix}a{n}"), 0, stride));
                kernels.push((format!("{prefix}a{n}_rtz"), 1, stride));
                kernels.push((format!("{prefix}a{n}_rtp"), 2, stride));
            }
            for (name, mode, stride) in kernels {
                q.write(&out, 0, as_bytes(&fresh));
                run(&q, &prog.kernel(&name), &[buf, &out], M);
                let got: Vec<u16> = read(&q, &out, 16 * M);
                for i in 0..M {
                    for c in 0..stride {
                        let g = got[i * stride + c];
                        if c >= n {
                            assert_eq!(g, SENTINEL, "{name}: work-item {i} wrote past its {n} halves");
                            continue;
                        }
                        let x = values[i * n + c];
                        let want = round_half(&all, x, mode);
                        assert!(
                            same_half(g, want),
                            "{name}: work-item {i} component {c}: {x:e} ({:#x}) gives {g:#06x}, want {want:#06x}",
                            x.to_bits()
                        );
                    }
                }
                assert!(
                    got[M * stride..].iter().all(|g| *g == SENTINEL),
                    "{name} wrote past the range"
                );
            }
        }
    }
    // A store that work-items take or skip one by one.
    q.write(&out, 0, as_bytes(&fresh));
    run(&q, &prog.kernel("f4_if_positive"), &[&bf, &out], M);
    let got: Vec<u16> = read(&q, &out, 4 * M);
    for i in 0..M {
        let stored = fl[4 * i] > 0.0;
        for c in 0..4 {
            let want = if stored {
                round_half(&all, f64::from(fl[4 * i + c]), 2)
            } else {
                SENTINEL
            };
            assert!(same_half(got[4 * i + c], want), "f4_if_positive {i}.{c}");
        }
    }
}

/// Every half loaded (vload_half) and stored again (vstore_half in each rounding mode),
/// directly and through private memory: the same bits back, a NaN as a NaN.
#[test]
fn half_load_and_store_round_trips() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("half_stores.cl", "");
    let all: Vec<u16> = (0..=0xffffu16).collect();
    let n = all.len();
    let input = ctx.buffer_from(as_bytes(&all));
    let out = ctx.buffer(2 * n);
    for mode in ["", "_rtz", "_rtp", "_rtn"] {
        for (kernel, items) in [(format!("copy{mode}"), n), (format!("copy_private{mode}"), n / 4)] {
            q.write(&out, 0, as_bytes(&vec![0u16; n]));
            run(&q, &prog.kernel(&kernel), &[&input, &out], items);
            let got: Vec<u16> = read(&q, &out, n);
            for (h, g) in all.iter().zip(&got) {
                assert!(same_half(*g, *h), "{kernel}: {h:#06x} came back as {g:#06x}");
            }
        }
    }
}

#[test]
fn conversions_in_every_rounding_mode() {
    let e = env();
    let all = ordered_halves();
    let mut rng = Rng::new(6);
    // Floats: near half values (ties and neighbours), beyond the half range, subnormal halves.
    let fl = floats_near_halves(&mut rng, N);
    let bf = e.ctx.buffer_from(as_bytes(&fl));
    let out = e.ctx.buffer(N * 8);
    run(&e.q, &e.prog.kernel("from_float"), &[&bf, &out], N);
    let got: Vec<u16> = read(&e.q, &out, 4 * N);
    for (i, x) in fl.iter().enumerate() {
        for mode in 0..4 {
            let want = round_half(&all, *x as f64, mode);
            let g = got[4 * i + mode];
            assert!(
                same_half(g, want),
                "float {x:e} mode {mode}: got {g:#06x}, want {want:#06x}"
            );
        }
    }

    let mut ints: Vec<i32> = vec![
        0,
        1,
        -1,
        2049,
        2051,
        -2049,
        65504,
        65519,
        65520,
        65535,
        -65536,
        i32::MAX,
        i32::MIN,
    ];
    while ints.len() < N {
        let v = rng.next_u64() as i32;
        ints.push(v >> rng.below(31));
    }
    let bi = e.ctx.buffer_from(as_bytes(&ints));
    run(&e.q, &e.prog.kernel("from_int"), &[&bi, &out], N);
    let got: Vec<u16> = read(&e.q, &out, 4 * N);
    for (i, x) in ints.iter().enumerate() {
        for mode in 0..4 {
            let want = round_half(&all, *x as f64, mode);
            let g = got[4 * i + mode];
            assert_eq!(g, want, "int {x} mode {mode}: got {g:#06x}, want {want:#06x}");
        }
    }

    // half -> short (saturated, each mode), uchar (saturated), float (exact): every half.
    let hs: Vec<u16> = (0..=0xffffu16).collect();
    let n = hs.len();
    let bh = e.ctx.buffer_from(as_bytes(&hs));
    let so = e.ctx.buffer(n * 8);
    let uo = e.ctx.buffer(n);
    let fo = e.ctx.buffer(n * 4);
    run(&e.q, &e.prog.kernel("to_int"), &[&bh, &so, &uo, &fo], n);
    let gs: Vec<i16> = read(&e.q, &so, 4 * n);
    let gu: Vec<u8> = read(&e.q, &uo, n);
    let gf: Vec<f32> = read(&e.q, &fo, n);
    for (i, &bits) in hs.iter().enumerate() {
        let x = h(bits);
        let sat = |v: f64, lo: f64, hi: f64| if v.is_nan() { 0.0 } else { v.clamp(lo, hi) };
        let want = [x.round_ties_even(), x.trunc(), x.ceil(), x.floor()]
            .map(|v| sat(v, i16::MIN as f64, i16::MAX as f64) as i16);
        for mode in 0..4 {
            assert_eq!(
                gs[4 * i + mode],
                want[mode],
                "convert_short_sat mode {mode} of {x} ({bits:#06x})"
            );
        }
        assert_eq!(gu[i], sat(x.trunc(), 0.0, 255.0) as u8, "convert_uchar_sat({x})");
        let wf = f16::from_bits(bits).to_f32();
        assert!(
            (wf.is_nan() && gf[i].is_nan()) || wf.to_bits() == gf[i].to_bits(),
            "(float){x}: got {}",
            gf[i]
        );
    }
}

fn ilogb_ref(x: f64) -> i32 {
    if x == 0.0 {
        i32::MIN
    } else if !x.is_finite() {
        i32::MAX
    } else {
        libm::ilogb(x)
    }
}

#[test]
fn unary_builtins() {
    const K: usize = 14;
    let e = env();
    // Every half value.
    let x: Vec<u16> = (0..=0xffffu16).collect();
    let n = x.len();
    let bx = e.ctx.buffer_from(as_bytes(&x));
    let out = e.ctx.buffer(n * K * 2);
    let iout = e.ctx.buffer(n * 8);
    run(&e.q, &e.prog.kernel("unary"), &[&bx, &out, &iout], n);
    let got: Vec<u16> = read(&e.q, &out, n * K);
    let gi: Vec<i32> = read(&e.q, &iout, 2 * n);
    let col = |k: usize| -> Vec<u16> { (0..n).map(|i| got[K * i + k]).collect() };
    let mut report = Vec::new();
    let bounds: [(&str, usize, Reference, f64); 6] = [
        ("sin", 1, f64::sin, 2.0),
        ("exp", 2, f64::exp, 2.0),
        ("log", 3, f64::ln, 2.0),
        ("rsqrt", 4, |v| 1.0 / v.sqrt(), 1.0),
        ("atan", 7, f64::atan, 2.0),
        ("cbrt", 8, f64::cbrt, 2.0),
    ];
    for (name, k, f, bound) in bounds {
        let worst = check_ulps(name, &x, &col(k), f, bound);
        report.push(format!("{name} {worst:.3}"));
    }
    // Correctly rounded or exact: bit for bit.
    let all = ordered_halves();
    for i in 0..n {
        let v = h(x[i]);
        let exact: [(&str, usize, f64); 3] = [
            ("sqrt", 0, v.sqrt()),
            ("floor", 5, v.floor()),
            ("rint", 6, v.round_ties_even()),
        ];
        for (name, k, want) in exact {
            let w = f16::from_f64(want).to_bits();
            assert!(
                same_half(got[K * i + k], w),
                "{name}({v}): got {:#06x}, want {w:#06x}",
                got[K * i + k]
            );
        }
        // fract: min(x - floor(x), the largest half below 1); floor in the pointer.
        let (fr, ip) = if v.is_nan() {
            (f64::NAN, f64::NAN)
        } else if v.is_infinite() {
            (0.0f64.copysign(v), v)
        } else if v == 0.0 {
            (v, v)
        } else {
            ((v - v.floor()).min(h(0x3bff)), v.floor())
        };
        let (wfr, wip) = (f16::from_f64(fr).to_bits(), f16::from_f64(ip).to_bits());
        assert!(
            same_half(got[K * i + 9], wfr),
            "fract({v}): got {:#06x}, want {wfr:#06x}",
            got[K * i + 9]
        );
        assert!(
            same_half(got[K * i + 10], wip),
            "fract({v}) iptr: got {:#06x}",
            got[K * i + 10]
        );
        // nextafter toward 0 and toward +inf, from the ordered list of every half.
        let toward = |y: f64| -> f64 {
            if v.is_nan() {
                f64::NAN
            } else if v == y {
                y
            } else if y > v {
                all[all.partition_point(|a| *a <= v)]
            } else {
                let p = all[all.partition_point(|a| *a < v) - 1];
                // Stepping down to zero from a positive value gives +0.
                if p == 0.0 {
                    0.0
                } else {
                    p
                }
            }
        };
        for (k, y) in [(11, 0.0), (12, f64::INFINITY)] {
            let mut want = toward(y);
            if v != 0.0 && want == 0.0 {
                // From the smallest subnormal of either sign toward zero: a zero of its sign.
                want = 0.0f64.copysign(v);
            }
            let w = f16::from_f64(want).to_bits();
            let g = got[K * i + k];
            let ok = same_half(g, w) || (want == 0.0 && h(g) == 0.0);
            assert!(ok, "nextafter({v}, {y}): got {g:#06x}, want {w:#06x}");
        }
        // frexp and ilogb.
        let (m, ex) = if v == 0.0 || !v.is_finite() {
            (v, 0)
        } else {
            libm::frexp(v)
        };
        let wm = f16::from_f64(m).to_bits();
        assert!(
            same_half(got[K * i + 13], wm),
            "frexp({v}): got {:#06x}",
            got[K * i + 13]
        );
        assert_eq!(gi[2 * i], ex, "frexp({v}) exponent");
        assert_eq!(gi[2 * i + 1], ilogb_ref(v), "ilogb({v})");
    }
    println!("max ulp over every half: {}", report.join(", "));
}

#[test]
fn binary_builtins_and_relationals() {
    const K: usize = 8;
    const R: usize = 9;
    let e = env();
    let a = half_inputs(7, N);
    let mut b = half_inputs(8, N);
    b.rotate_left(3);
    let (ba, bb) = (e.ctx.buffer_from(as_bytes(&a)), e.ctx.buffer_from(as_bytes(&b)));
    let out = e.ctx.buffer(N * K * 2);
    let rel = e.ctx.buffer(N * R * 2);
    run(&e.q, &e.prog.kernel("binary"), &[&ba, &bb, &out, &rel], N);
    let got: Vec<u16> = read(&e.q, &out, N * K);
    let gr: Vec<i16> = read(&e.q, &rel, N * R);
    let mut worst_pow = 0.0f64;
    let mut worst_atan2 = 0.0f64;
    for i in 0..N {
        let (x, y) = (h(a[i]), h(b[i]));
        let g = |k: usize| got[K * i + k];
        let fmin = if x.is_nan() {
            y
        } else if y.is_nan() {
            x
        } else {
            x.min(y)
        };
        let fmax = if x.is_nan() {
            y
        } else if y.is_nan() {
            x
        } else {
            x.max(y)
        };
        let fdim = if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if x > y {
            x - y
        } else {
            0.0
        };
        let exact = [
            ("fmin", 0, fmin),
            ("fmax", 1, fmax),
            ("fmod", 3, x % y),
            ("copysign", 4, x.copysign(y)),
            ("step", 5, if y < x { 0.0 } else { 1.0 }),
            ("fdim", 6, fdim),
        ];
        for (name, k, want) in exact {
            let w = f16::from_f64(want).to_bits();
            // fmin/fmax of +0 and -0 may return either zero.
            let zeros = matches!(name, "fmin" | "fmax") && want == 0.0 && h(g(k)) == 0.0;
            assert!(
                same_half(g(k), w) || zeros,
                "{name}({x}, {y}): got {:#06x}, want {w:#06x}",
                g(k)
            );
        }
        let ep = ulps(g(2), x.powf(y));
        assert!(ep <= 4.0, "pow({x}, {y}): got {} ({ep} ulp)", h(g(2)));
        worst_pow = worst_pow.max(ep);
        let ea = ulps(g(7), x.atan2(y));
        assert!(ea <= 2.0, "atan2({x}, {y}): got {} ({ea} ulp)", h(g(7)));
        worst_atan2 = worst_atan2.max(ea);
        let unordered = x.is_nan() || y.is_nan();
        let want_rel = [
            (x < y) as i16,
            (x == y) as i16,
            x.is_nan() as i16,
            unordered as i16,
            ((a[i] & 0x8000) != 0) as i16,
            (x > y || y > x) as i16,
            // Half's normal range: 2^-14 up.
            (x.is_finite() && x.abs() >= 2f64.powi(-14)) as i16,
            x.is_finite() as i16,
            x.is_infinite() as i16,
        ];
        for (k, w) in want_rel.iter().enumerate() {
            assert_eq!(gr[R * i + k], *w, "relational {k} of {x} and {y}");
        }
    }
    println!("max ulp: pow {worst_pow:.3}, atan2 {worst_atan2:.3}");
}

#[test]
fn vector_relationals_select_geometric() {
    let e = env();
    let n = N / 4;
    let a = half_range(9, N, -3.0, 3.0);
    let b = half_range(10, N, -3.0, 3.0);
    let (ba, bb) = (e.ctx.buffer_from(as_bytes(&a)), e.ctx.buffer_from(as_bytes(&b)));
    let rel = e.ctx.buffer(N * 2);
    let sel = e.ctx.buffer(N * 2);
    let geo = e.ctx.buffer(n * 4);
    let norm = e.ctx.buffer(N * 2);
    run(&e.q, &e.prog.kernel("vec4"), &[&ba, &bb, &rel, &sel, &geo, &norm], n);
    let gr: Vec<i16> = read(&e.q, &rel, N);
    let gs: Vec<u16> = read(&e.q, &sel, N);
    let gg: Vec<u16> = read(&e.q, &geo, 2 * n);
    let gn: Vec<u16> = read(&e.q, &norm, N);
    for i in 0..n {
        let x: Vec<f64> = (0..4).map(|c| h(a[4 * i + c])).collect();
        let y: Vec<f64> = (0..4).map(|c| h(b[4 * i + c])).collect();
        for c in 0..4 {
            let j = 4 * i + c;
            assert_eq!(
                gr[j],
                if x[c] > y[c] { -1 } else { 0 },
                "isgreater lane {c} of {x:?} {y:?}"
            );
            let w = if x[c] < y[c] { b[j] } else { a[j] };
            assert_eq!(gs[j], w, "select lane {c} of {x:?} {y:?}");
        }
        // dot: at most one ulp of the result plus the rounding of the partial sums.
        let dot: f64 = (0..4).map(|c| x[c] * y[c]).sum();
        let mag: f64 = (0..4).map(|c| (x[c] * y[c]).abs()).sum();
        let err = (h(gg[2 * i]) - dot).abs();
        let ulp = |v: f64| 2f64.powi((v.abs().log2().floor() as i32).max(-14) - 10);
        assert!(
            err <= ulp(dot) + 4.0 * mag * 2f64.powi(-24),
            "dot({x:?}, {y:?}) = {}, want {dot}",
            h(gg[2 * i])
        );
        let len = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let el = ulps(gg[2 * i + 1], len);
        assert!(el <= 2.0, "length({x:?}) = {}, want {len} ({el} ulp)", h(gg[2 * i + 1]));
        for c in 0..4 {
            let en = ulps(gn[4 * i + c], x[c] / len);
            assert!(en <= 2.0, "normalize({x:?})[{c}] = {} ({en} ulp)", h(gn[4 * i + c]));
        }
    }
}

/// sin(pi x) and cos(pi x) with the argument reduced exactly (x is a half).
fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x % 2.0;
    if r == r.trunc() {
        return 0.0f64.copysign(x);
    }
    (std::f64::consts::PI * r).sin()
}

fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = (x % 2.0).abs();
    if r == 0.5 || r == 1.5 {
        return 0.0;
    }
    (std::f64::consts::PI * r).cos()
}

#[test]
fn more_unary_builtins_over_every_half() {
    const K: usize = 24;
    let e = env();
    let x: Vec<u16> = (0..=0xffffu16).collect();
    let n = x.len();
    let bx = e.ctx.buffer_from(as_bytes(&x));
    let out = e.ctx.buffer(n * K * 2);
    run(&e.q, &e.prog.kernel("unary2"), &[&bx, &out], n);
    let got: Vec<u16> = read(&e.q, &out, n * K);
    let col = |k: usize| -> Vec<u16> { (0..n).map(|i| got[K * i + k]).collect() };
    // Bounds: the half column of the OpenCL C specification's ulp table (as the Khronos CTS
    // has them).
    let table: [(&str, Reference, f64); 20] = [
        ("cos", f64::cos, 2.0),
        ("tan", f64::tan, 2.5),
        ("asin", f64::asin, 2.0),
        ("acos", f64::acos, 2.0),
        ("sinh", f64::sinh, 2.0),
        ("cosh", f64::cosh, 2.0),
        ("tanh", f64::tanh, 2.0),
        ("asinh", f64::asinh, 2.0),
        ("acosh", f64::acosh, 2.0),
        ("atanh", f64::atanh, 2.0),
        ("exp2", f64::exp2, 2.0),
        ("exp10", |v| 10f64.powf(v), 2.0),
        ("expm1", f64::exp_m1, 2.0),
        ("log2", f64::log2, 2.0),
        ("log10", f64::log10, 2.0),
        ("log1p", f64::ln_1p, 2.0),
        ("sinpi", sinpi, 2.0),
        ("cospi", cospi, 2.0),
        ("erf", libm::erf, 4.0),
        ("tgamma", libm::tgamma, 4.0),
    ];
    let mut report = Vec::new();
    for (k, (name, f, bound)) in table.iter().enumerate() {
        let worst = check_ulps(name, &x, &col(k), f, *bound);
        report.push(format!("{name} {worst:.3}"));
    }
    for i in 0..n {
        let v = h(x[i]);
        let logb = if v == 0.0 {
            f64::NEG_INFINITY
        } else if v.is_infinite() {
            f64::INFINITY
        } else if v.is_nan() {
            v
        } else {
            libm::ilogb(v) as f64
        };
        for (name, k, want) in [
            ("ceil", 20, v.ceil()),
            ("trunc", 21, v.trunc()),
            ("round", 22, v.round()),
            ("logb", 23, logb),
        ] {
            let w = f16::from_f64(want).to_bits();
            let g = got[K * i + k];
            assert!(same_half(g, w), "{name}({v}): got {g:#06x}, want {w:#06x}");
        }
    }
    println!("max ulp over every half: {}", report.join(", "));
}
