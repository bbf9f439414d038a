//! Built-in functions that store through a pointer operand (fract, modf, frexp, sincos,
//! remquo, lgamma_r: OpenCL C 6.15.2) store for the work-items that call them and for no
//! other (kernels/source/out_pointer.cl): called under a condition that neighbouring
//! work-items answer differently, the other work-items' elements keep the value they had. The
//! values are checked against the host's: floor, trunc, the exponent and mantissa from the
//! bits (exact), sin and cos in double precision (4 ulp). Run in the vector loop
//! (`CLIFT_SIMD=strict` in a child: the kernels must take it) and in the scalar loop
//! (`CLIFT_SIMD=0`), besides the default.

use cts::image_ref::Rng;
use cts::*;

const N: usize = 1000;
const UNTOUCHED: u32 = 0x7fc0_1234;

fn inputs() -> Vec<f32> {
    let mut rng = Rng::new(7);
    (0..N)
        .map(|i| match i % 7 {
            0 => -(i as f32) * 0.75,
            1 | 4 => 0.0,
            _ => rng.range_f64(-40.0, 90.0) as f32,
        })
        .collect()
}

fn ulps(got: f32, want: f64) -> f64 {
    let e = (want.abs().log2().floor() as i32).max(-126);
    ((got as f64 - want) / 2f64.powi(e - 23)).abs()
}

#[test]
fn out_pointer_builtins_store_only_for_their_work_items() {
    let x = inputs();
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("out_pointer.cl", "");
    let xb = ctx.buffer_from(as_bytes(&x));
    for name in [
        "fract_if",
        "modf_if",
        "frexp_if",
        "sincos_if",
        "remquo_if",
        "lgamma_r_if",
    ] {
        let k = prog.kernel(name);
        let r = ctx.buffer(4 * N);
        let out = ctx.buffer_from(as_bytes(&vec![UNTOUCHED; N]));
        k.arg_mem(0, &xb);
        k.arg_mem(1, &r);
        k.arg_mem(2, &out);
        q.run(&k, &[], &[N], &[]);
        let rv: Vec<f32> = from_bytes(&q.read(&r, 0, 4 * N));
        let ov: Vec<u32> = from_bytes(&q.read(&out, 0, 4 * N));
        for i in 0..N {
            let xi = x[i];
            if xi <= 0.0 {
                assert_eq!(
                    ov[i], UNTOUCHED,
                    "{name}: work-item {i} (x = {xi}) did not call it, but its element changed"
                );
                assert_eq!(rv[i], 0.0, "{name}: work-item {i}");
                continue;
            }
            assert_ne!(
                ov[i], UNTOUCHED,
                "{name}: work-item {i} (x = {xi}) called it, its element did not change"
            );
            let (ri, oi) = (rv[i], ov[i]);
            match name {
                "fract_if" => {
                    let fl = xi.floor();
                    assert_eq!(
                        (f32::from_bits(oi), ri),
                        (fl, (xi - fl).min(f32::from_bits(0x3f7f_ffff))),
                        "fract({xi})"
                    );
                }
                "modf_if" => {
                    let t = xi.trunc();
                    assert_eq!((f32::from_bits(oi), ri), (t, xi - t), "modf({xi})");
                }
                "frexp_if" => {
                    // x = m * 2^e with m in [0.5, 1).
                    let e = oi as i32;
                    assert!(
                        (0.5..1.0).contains(&ri) && ri * 2f32.powi(e) == xi,
                        "frexp({xi}) = {ri}, {e}"
                    );
                }
                "sincos_if" => {
                    let (s, c) = (xi as f64).sin_cos();
                    assert!(ulps(ri, s) <= 4.0 && ulps(f32::from_bits(oi), c) <= 4.0, "sincos({xi})");
                }
                "remquo_if" => {
                    // The remainder is exact: x - n * 1.5 with n the quotient rounded to even;
                    // quo has n's sign and at least its 3 low bits.
                    let n = ((xi as f64 - ri as f64) / 1.5).round() as i64;
                    assert_eq!((xi as f64 - n as f64 * 1.5) as f32, ri, "remquo({xi})");
                    assert_eq!(
                        (oi as i32 as i64 - n).rem_euclid(8),
                        0,
                        "remquo({xi}): quo {}",
                        oi as i32
                    );
                }
                _ => assert_eq!(oi, 1, "lgamma_r({xi}): the sign of gamma of a positive number"),
            }
        }
    }
    // fract through a private variable in a loop of the work-item's own length.
    let xa: Vec<f32> = x.iter().map(|v| v.abs()).collect();
    let xb = ctx.buffer_from(as_bytes(&xa));
    let k = prog.kernel("fract_loop");
    let r = ctx.buffer(4 * N);
    let out = ctx.buffer(4 * N);
    k.arg_mem(0, &xb);
    k.arg_mem(1, &r);
    k.arg_mem(2, &out);
    q.run(&k, &[], &[N], &[]);
    let rv: Vec<f32> = from_bytes(&q.read(&r, 0, 4 * N));
    let wv: Vec<f32> = from_bytes(&q.read(&out, 0, 4 * N));
    for i in 0..N {
        let (mut acc, mut w) = (0f32, 0f32);
        for k in 0..(xa[i] as i32) & 3 {
            let v = xa[i] * (k + 1) as f32;
            let fl = v.floor();
            acc += (v - fl).min(f32::from_bits(0x3f7f_ffff));
            w += fl;
        }
        assert_eq!((rv[i], wv[i]), (acc, w), "fract_loop: work-item {i} (x = {})", xa[i]);
    }
}

/// The bits of the spec's fract (OpenCL C 6.15.2) or modf of `x`: (fraction, whole part).
fn fraction_of(name: &str, x: f32) -> (f32, f32) {
    let whole = if name == "fract" { x.floor() } else { x.trunc() };
    if x.is_nan() {
        return (x, x);
    }
    if x.is_infinite() || x == 0.0 {
        return (0f32.copysign(x), whole);
    }
    if name == "fract" {
        ((x - whole).min(f32::from_bits(0x3f7f_ffff)), whole)
    } else {
        ((x - whole).copysign(x), whole)
    }
}

/// fract and modf of float4 by every work-item, special values among the components.
#[test]
fn fraction_of_float4_components() {
    let mut x = inputs();
    let specials = [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
        -1e-30,
        1e-30,
        -3.0,
        2.5e9,
    ];
    for (k, s) in specials.iter().enumerate() {
        x[13 * k + 5] = *s;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("out_pointer.cl", "");
    let xb = ctx.buffer_from(as_bytes(&x));
    for name in ["fract", "modf"] {
        let k = prog.kernel(&format!("{name}4_all"));
        let (r, whole) = (ctx.buffer(4 * N), ctx.buffer(4 * N));
        k.arg_mem(0, &xb);
        k.arg_mem(1, &r);
        k.arg_mem(2, &whole);
        q.run(&k, &[], &[N / 4], &[]);
        let rv: Vec<f32> = from_bytes(&q.read(&r, 0, 4 * N));
        let wv: Vec<f32> = from_bytes(&q.read(&whole, 0, 4 * N));
        for i in 0..N {
            let (f, w) = fraction_of(name, x[i]);
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(
                same(rv[i], f) && same(wv[i], w),
                "{name}({:e}) = {:e}, {:e}; want {f:e}, {w:e}",
                x[i],
                rv[i],
                wv[i]
            );
        }
    }
}

/// The same in the vector loop (which the kernels must take) and in the scalar loop.
#[test]
fn out_pointer_builtins_in_both_loops() {
    if std::env::var_os("CTS_OUT_POINTER_CHILD").is_some() || !is_clift() {
        return;
    }
    for (test, simd) in [
        ("out_pointer_builtins_store_only_for_their_work_items", "strict"),
        ("out_pointer_builtins_store_only_for_their_work_items", "0"),
        ("fraction_of_float4_components", "strict"),
        ("fraction_of_float4_components", "0"),
    ] {
        assert_child_passes(
            test,
            &[
                ("CLIFT_SIMD", simd),
                ("CLIFT_CACHE", "0"),
                ("CTS_OUT_POINTER_CHILD", "1"),
                ("CTS_ISOLATED_CHILD", "1"),
            ],
            &format!("{test} with CLIFT_SIMD={simd}"),
        );
    }
}

fn is_clift() -> bool {
    wanted_platform_name() == "Clift"
}
