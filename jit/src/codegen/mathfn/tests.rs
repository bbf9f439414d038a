//! The inline functions against the host's double-precision functions (an independent
//! reference, rounded error measured in the result's f32 ulp as the OpenCL C specification
//! counts it), and the four-lane forms against the one-lane forms bit for bit.

use super::*;
use crate::codegen::test_jit::{unary_functions, Unary as Fun};
use cranelift_codegen::ir::AbiParam;
use cranelift_codegen::ir::Value;
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};

const NAMES: [&str; 23] = [
    "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sincos_s",
    "sincos_c", "sinpi", "cospi", "tanpi", "atan", "asin", "acos", "atanpi", "asinpi", "acospi",
];

/// The library functions the trigonometric ones fall back to.
fn fallbacks() -> [(&'static str, *const u8); 3] {
    use crate::builtins::float::{clift_cos_f32, clift_sin_f32, clift_tan_f32};
    [
        ("clift_sin_f32", clift_sin_f32 as *const u8),
        ("clift_cos_f32", clift_cos_f32 as *const u8),
        ("clift_tan_f32", clift_tan_f32 as *const u8),
    ]
}

/// `fn(src, dst)`: one value of type `t` loaded from `src`, `name` of it stored to `dst`.
fn build(t: Type) -> (JITModule, Vec<Fun>) {
    unary_functions(t, &fallbacks(), NAMES.len(), |k, jit, b, x| {
        let name = NAMES[k];
        let mut unary = jit.make_signature();
        unary.params.push(AbiParam::new(types::F32));
        unary.returns.push(AbiParam::new(types::F32));
        let mut import = |f: &str| {
            let f = jit
                .declare_function(&format!("clift_{f}_f32"), Linkage::Import, &unary)
                .unwrap();
            jit.declare_func_in_func(f, b.func)
        };
        match name.strip_prefix("sincos_") {
            // sincos: sin or cos (by the last letter) of the pair.
            Some(which) => {
                let (s, c) = (import("sin"), import("cos"));
                let (ys, yc) = sincos(b, x, s, c).unwrap();
                if which == "s" {
                    ys
                } else {
                    yc
                }
            }
            None => {
                let fallback = needs_fallback(name).then(|| import(name));
                emit(b, name, x, fallback).unwrap()
            }
        }
    })
}

/// The bound each function is held to here: well inside OpenCL C's (3 ulp for the exp and
/// log families, 4 for sin and cos, 5 for tan), so that a lost bit of accuracy shows.
fn bound(name: &str) -> f64 {
    match name {
        "sin" | "cos" | "sincos_s" | "sincos_c" => 2.0,
        // tan: 3.35 ulp at 54250.6 (0x4753ea98) over every float, the quotient of two
        // values of up to 1.5 ulp each.
        "tan" => 4.0,
        "tanh" => 3.0,
        // (4 ulp allowed.) 2.44 ulp at 88.03 (0x42b00ed5) over every float: `exp(x/2)`
        // squared.
        "sinh" | "cosh" => 2.5,
        // (4, 4, 6 allowed.)
        "sinpi" | "cospi" => 2.0,
        "tanpi" => 4.0,
        // (5, 4, 4 allowed; 5 for the pi forms.)
        "atan" | "atanpi" => 2.5,
        // Over every float: asin 2.97 ulp at 0x3ed25a80, acos 3.05 at 0x3f6c0655 (stop 38).
        "asin" | "acos" | "asinpi" | "acospi" => 3.5,
        _ => 1.5,
    }
}

fn reference(name: &str, x: f32) -> f64 {
    let x = x as f64;
    match name {
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "exp10" => 10f64.powf(x),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "sin" | "sincos_s" => x.sin(),
        "cos" | "sincos_c" => x.cos(),
        "tan" => x.tan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        // The library's double functions (reduced exactly; within an ulp of a double).
        "sinpi" => crate::builtins::double::clift_sinpi_f64(x),
        "cospi" => crate::builtins::double::clift_cospi_f64(x),
        "tanpi" => crate::builtins::double::clift_tanpi_f64(x),
        "atan" => x.atan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atanpi" => x.atan() / std::f64::consts::PI,
        "asinpi" => x.asin() / std::f64::consts::PI,
        "acospi" => x.acos() / std::f64::consts::PI,
        _ => x.tanh(),
    }
}

/// |got - want| in ulps of the f32 result (the ulp of a subnormal is 2^-149); 0 for matching
/// special values, infinity for a wrong one.
fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got.is_nan() {
        return f64::INFINITY;
    }
    let rounded = want as f32;
    if rounded.is_infinite() || got.is_infinite() {
        return if got == rounded { 0.0 } else { f64::INFINITY };
    }
    let e = (want.abs().log2().floor() as i32).max(-126);
    ((got as f64 - want) / 2f64.powi(e - 23)).abs()
}

fn run1(f: Fun, x: f32) -> f32 {
    let mut y = 0f32;
    f(&x as *const f32 as *const u8, &mut y as *mut f32 as *mut u8);
    y
}

fn run4(f: Fun, x: [f32; 4]) -> [f32; 4] {
    let mut y = [0f32; 4];
    f(x.as_ptr() as *const u8, y.as_mut_ptr() as *mut u8);
    y
}

/// Every 1021st bit pattern (both signs, every binade, subnormals, infinities, NaNs), the
/// neighbours of the overflow and underflow thresholds and of 1, and small integers.
fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..=u32::MAX / 1021).map(|i| f32::from_bits(i * 1021)).collect();
    for c in [
        88.72284f32,
        88.0,
        89.41599,
        -87.33655,
        -103.97208,
        128.0,
        -126.0,
        -149.0,
        -150.0,
        38.53184,
        -45.1545,
        1.0,
        0.0,
    ] {
        let b = c.to_bits();
        v.extend((b.saturating_sub(64)..b + 64).map(f32::from_bits));
    }
    v.extend((-160..160).map(|i| i as f32));
    // Near multiples of pi/2 (where the reduction cancels most) and around the largest
    // argument reduced inline.
    for k in (1..42_000).step_by(7) {
        let b = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        for x in [b.next_down(), b, b.next_up()] {
            v.extend([x, -x]);
        }
    }
    let b = TRIG_FAST.to_bits();
    v.extend((b - 8..b + 8).map(f32::from_bits));
    // Multiples of 1/4 (the pi functions' quadrant boundaries, zeros and poles) and their
    // neighbours, up to where every float is an even integer.
    for k in (-4000..4000).chain([(1 << 22) - 1, 1 << 22, (1 << 23) - 1, 1 << 23, (1 << 24) - 1, 1 << 24]) {
        let c = k as f32 * 0.25;
        v.extend([c.next_down(), c, c.next_up(), -c]);
    }
    for c in [8_388_607.0f32, 8_388_609.0, 16_777_215.0, 16_777_218.0, 3.0e38] {
        v.extend([c, -c]);
    }
    v.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
        f32::MIN_POSITIVE,
        f32::MAX,
    ]);
    v
}

#[test]
fn within_bounds_and_four_lanes_match_one_lane() {
    let (_j1, one) = build(types::F32);
    let (_j4, four) = build(types::F32X4);
    let xs = inputs();
    for (k, name) in NAMES.iter().enumerate() {
        let mut worst = (0.0, 0.0f32);
        for q in xs.chunks(4) {
            let mut x = [0f32; 4];
            x[..q.len()].copy_from_slice(q);
            let y4 = run4(four[k], x);
            for l in 0..q.len() {
                let y = run1(one[k], x[l]);
                assert_eq!(
                    y.to_bits(),
                    y4[l].to_bits(),
                    "{name}({:e}): one lane {y:e}, four lanes {:e}",
                    x[l],
                    y4[l]
                );
                let err = ulp_error(y, reference(name, x[l]));
                if err > worst.0 {
                    worst = (err, x[l]);
                }
                // Odd functions keep the sign of a zero (sin(-0) = -0, ...).
                let odd = !matches!(*name, "cos" | "sincos_c" | "cosh" | "cospi" | "acos" | "acospi")
                    && !name.starts_with("exp")
                    && !name.starts_with("log");
                if x[l] == 0.0 && odd {
                    assert_eq!(y.to_bits(), x[l].to_bits(), "{name}({:e}) = {y:e}", x[l]);
                }
            }
        }
        eprintln!(
            "{name}: worst {:.3} ulp at {:e} ({:#x})",
            worst.0,
            worst.1,
            worst.1.to_bits()
        );
        assert!(
            worst.0 <= bound(name),
            "{name}: {:.3} ulp at {:e} ({:#x})",
            worst.0,
            worst.1,
            worst.1.to_bits()
        );
    }
}

/// Every f32 (2^32 inputs per function, a few minutes on two cores):
/// `cargo test -p clift-jit --release mathfn -- --ignored` (`MATHFN_ONLY=sinh,cosh`: only
/// these functions).
#[test]
#[ignore]
fn every_float_within_bounds() {
    let (_j4, four) = build(types::F32X4);
    let only = std::env::var("MATHFN_ONLY").ok();
    for (k, name) in NAMES.iter().enumerate() {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|n| n == *name)) {
            continue;
        }
        let f = four[k];
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2) as u64;
        let worst = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..threads)
                .map(|t| {
                    sc.spawn(move || {
                        let mut worst = (0.0, 0u32);
                        let (a, z) = ((1u64 << 32) * t / threads, (1u64 << 32) * (t + 1) / threads);
                        for base in (a..z).step_by(4) {
                            let x = [0, 1, 2, 3].map(|l| f32::from_bits((base + l).min(u32::MAX as u64) as u32));
                            let y = run4(f, x);
                            for l in 0..4 {
                                let err = ulp_error(y[l], reference(name, x[l]));
                                if err > worst.0 {
                                    worst = (err, x[l].to_bits());
                                }
                            }
                        }
                        worst
                    })
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().unwrap())
                .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a })
        });
        eprintln!("{name}: worst {:.3} ulp at {:#x}", worst.0, worst.1);
        assert!(worst.0 <= bound(name), "{name}: {:.3} ulp at {:#x}", worst.0, worst.1);
    }
}

/// sinpi, cospi and tanpi at integers and half-integers, zeros, infinities and NaN: the
/// values of OpenCL C 7.5.1 (signs of zeros and infinities included), in one lane and four.
#[test]
fn pi_functions_special_values() {
    let (_j1, one) = build(types::F32);
    let (_j4, four) = build(types::F32X4);
    let at = |n: &str| NAMES.iter().position(|x| *x == n).unwrap();
    let mut cases: Vec<(&str, f32, f32)> = vec![
        ("sinpi", 0.0, 0.0),
        ("sinpi", -0.0, -0.0),
        ("cospi", 0.0, 1.0),
        ("cospi", -0.0, 1.0),
        ("tanpi", 0.0, 0.0),
        ("tanpi", -0.0, -0.0),
    ];
    for n in [
        1.0f32,
        2.0,
        3.0,
        4.0,
        7.0,
        1000.0,
        1001.0,
        8_388_607.0,
        16_777_216.0,
        3.0e38,
    ] {
        let odd = n % 2.0 == 1.0;
        cases.extend([
            ("sinpi", n, 0.0),
            ("sinpi", -n, -0.0),
            ("cospi", n, if odd { -1.0 } else { 1.0 }),
            ("cospi", -n, if odd { -1.0 } else { 1.0 }),
            // tanpi(n) = copysign(0, n) for even n, copysign(0, -n) for odd n.
            ("tanpi", n, if odd { -0.0 } else { 0.0 }),
            ("tanpi", -n, if odd { 0.0 } else { -0.0 }),
        ]);
    }
    for n in [0.0f32, 1.0, 2.0, 3.0, 10.0, 11.0, 4_194_303.0] {
        let h = n + 0.5;
        let even = n % 2.0 == 0.0;
        cases.extend([
            ("cospi", h, 0.0),
            ("cospi", -h, 0.0),
            ("sinpi", h, if even { 1.0 } else { -1.0 }),
            ("sinpi", -h, if even { -1.0 } else { 1.0 }),
            // tanpi(n + 0.5) = +inf for even n, -inf for odd n; -h = (-n - 1) + 0.5.
            ("tanpi", h, if even { f32::INFINITY } else { f32::NEG_INFINITY }),
            ("tanpi", -h, if even { f32::NEG_INFINITY } else { f32::INFINITY }),
        ]);
    }
    for name in ["sinpi", "cospi", "tanpi"] {
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            cases.push((name, x, f32::NAN));
        }
    }
    for (name, x, want) in cases {
        let y = run1(one[at(name)], x);
        let y4 = run4(four[at(name)], [x, 0.3, x, -2.75]);
        for got in [y, y4[0], y4[2]] {
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{name}({x:e}) = {got:e}, want {want:e}"
            );
        }
    }
}

/// atan2 and atan2pi of lane pairs (y in one lane, x in the next, over all of `inputs()` and
/// its special values): four lanes against one lane bit for bit, against the host's atan2,
/// and OpenCL C 7.5.1's angles for zeros and infinities exactly.
#[test]
fn atan2_four_lanes_and_one() {
    use cranelift_codegen::ir::InstBuilder;
    let names = ["atan2", "atan2pi"];
    // Function 2k: four lanes at once; 2k + 1: lane by lane. atan2(v, v rotated by a lane).
    let (_j, f) = unary_functions(types::F32X4, &[], 4, |i, _, b, v| {
        let lanes: Vec<Value> = (0..4u8).map(|l| b.ins().extractlane(v, l)).collect();
        let mut rot = v;
        for l in 0..4u8 {
            rot = b.ins().insertlane(rot, lanes[(l as usize + 1) % 4], l);
        }
        let name = names[i / 2];
        if i % 2 == 0 {
            emit2(b, name, v, rot).unwrap()
        } else {
            let mut out = v;
            for l in 0..4usize {
                let y = emit2(b, name, lanes[l], lanes[(l + 1) % 4]).unwrap();
                out = b.ins().insertlane(out, y, l as u8);
            }
            out
        }
    });
    let mut xs = inputs();
    // (Pairs near the largest float too, where lo + hi would overflow.)
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -3.0,
        3e38,
        -2.5e38,
    ];
    for a in specials {
        for c in specials {
            xs.extend([a, c, a, c]);
        }
    }
    let mut worst = [0.0f64; 2];
    for q in xs.chunks_exact(4) {
        let x = [q[0], q[1], q[2], q[3]];
        for k in 0..2 {
            let (y4, y1) = (run4(f[2 * k], x), run4(f[2 * k + 1], x));
            for l in 0..4 {
                let (yy, xx) = (x[l] as f64, x[(l + 1) % 4] as f64);
                assert!(
                    y4[l].to_bits() == y1[l].to_bits() || (y4[l].is_nan() && y1[l].is_nan()),
                    "{}({yy:e}, {xx:e}): four lanes {:e}, one {:e}",
                    names[k],
                    y4[l],
                    y1[l]
                );
                let mut want = yy.atan2(xx);
                if k == 1 {
                    want /= std::f64::consts::PI;
                }
                let err = ulp_error(y4[l], want);
                worst[k] = worst[k].max(err);
                assert!(err <= 2.5, "{}({yy:e}, {xx:e}) = {:e}, want {want:e}", names[k], y4[l]);
                // Zeros and infinities: the exact angles (in units of pi, 0, 1/4, 1/2, 3/4, 1).
                let special = (yy == 0.0 || yy.is_infinite()) && !xx.is_nan();
                if k == 1 && special {
                    assert_eq!(y4[l].to_bits(), (want as f32).to_bits(), "atan2pi({yy:e}, {xx:e})");
                }
            }
        }
    }
    eprintln!("atan2: worst {:.3} ulp, atan2pi {:.3}", worst[0], worst[1]);
}

/// sincos gives the bits of sin and cos.
#[test]
fn sincos_is_sin_and_cos() {
    let (_j1, one) = build(types::F32);
    let at = |n: &str| NAMES.iter().position(|x| *x == n).unwrap();
    for x in inputs() {
        for (a, b) in [("sin", "sincos_s"), ("cos", "sincos_c")] {
            let (ya, yb) = (run1(one[at(a)], x), run1(one[at(b)], x));
            assert!(
                ya.to_bits() == yb.to_bits() || (ya.is_nan() && yb.is_nan()),
                "{b}({x:e}) = {yb:e}, {a} {ya:e}"
            );
        }
    }
}
