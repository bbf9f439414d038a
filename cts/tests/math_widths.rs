//! Every OpenCL.std math and common function that takes and returns values, in every vector
//! width (1, 2, 3, 4, 8, 16) of float and double (kernels/source/math_widths.cl, built from
//! OpenCL C): each width must give, component by component, exactly the scalar kernel's
//! result on the same inputs (NaN for NaN). `math_float` checks the scalar and 4-wide forms
//! against host references; this covers the other widths, including the 3-component ones
//! (vload3/vstore3) and the int-vector operands of ldexp, pown and rootn. The relational
//! functions (kernels/source/relational_widths.cl) likewise, where a true scalar result is 1
//! and a true vector component is -1.
//!
//! Bit-for-bit agreement is Clift's design (vector forms run the scalar routines per
//! component) and is asserted for Clift only; another implementation's vector math may
//! legitimately differ within the ULP bound, so there the differences are only printed.

use cts::image_ref::Rng;
use cts::*;

/// Elements per function: a multiple of 3 and of 16.
const N: usize = 480;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Unary,
    Binary,
    Ternary,
    /// A floating-point operand and an int operand.
    WithInt,
}

const UNARY: &[&str] = &[
    "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atanh", "atanpi", "cbrt", "ceil", "cos", "cosh",
    "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "floor", "lgamma", "log", "log2", "log10",
    "log1p", "logb", "rint", "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma",
    "trunc", "degrees", "radians", "sign",
];
const BINARY: &[&str] = &[
    "atan2",
    "atan2pi",
    "copysign",
    "fdim",
    "fmax",
    "fmin",
    "fmod",
    "hypot",
    "maxmag",
    "minmag",
    "nextafter",
    "pow",
    "powr",
    "remainder",
    "step",
];
const TERNARY: &[&str] = &["fma", "mad", "mix", "smoothstep", "clamp"];
const WITH_INT: &[&str] = &["ldexp", "pown", "rootn"];
/// float only.
const UNARY_FLOAT: &[&str] = &[
    "half_cos",
    "half_exp",
    "half_exp2",
    "half_exp10",
    "half_log",
    "half_log2",
    "half_log10",
    "half_recip",
    "half_rsqrt",
    "half_sin",
    "half_sqrt",
    "half_tan",
    "native_cos",
    "native_exp",
    "native_exp2",
    "native_exp10",
    "native_log",
    "native_log2",
    "native_log10",
    "native_recip",
    "native_rsqrt",
    "native_sin",
    "native_sqrt",
    "native_tan",
];
const BINARY_FLOAT: &[&str] = &["half_divide", "half_powr", "native_divide", "native_powr"];

/// Special values first, then a mix of moderate, wide-range and tiny values of both signs.
fn values(rng: &mut Rng) -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-40,
        -1e-310,
        3.0,
        100.5,
        -7.25,
        1e30,
    ];
    let mut v: Vec<f64> = specials.to_vec();
    while v.len() < N {
        let sign = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        let x = match rng.next_u64() % 4 {
            0 => rng.range_f64(0.0, 1.0) * 4.0,
            1 => rng.range_f64(0.0, 1.0) * 200.0 - 100.0,
            2 => 2f64.powf(rng.range_f64(0.0, 1.0) * 120.0 - 60.0),
            _ => (rng.range_f64(0.0, 1.0) * 40.0).round() / 4.0,
        };
        v.push(sign * x);
    }
    v
}

struct Inputs {
    x: Vec<u8>,
    y: Vec<u8>,
    z: Vec<u8>,
    n: Vec<u8>,
}

fn to_bytes(double: bool, v: &[f64]) -> Vec<u8> {
    if double {
        as_bytes(v).to_vec()
    } else {
        let f: Vec<f32> = v.iter().map(|x| *x as f32).collect();
        as_bytes(&f).to_vec()
    }
}

fn inputs(double: bool) -> Inputs {
    let mut rng = Rng::new(7);
    let x = values(&mut rng);
    let mut y = values(&mut rng);
    y.rotate_left(5);
    let mut z = values(&mut rng);
    z.rotate_left(11);
    let n: Vec<i32> = (0..N)
        .map(|i| match i % 8 {
            0 => 0,
            1 => -1,
            2 => 3,
            3 => -4,
            _ => (rng.next_u64() % 41) as i32 - 20,
        })
        .collect();
    Inputs {
        x: to_bytes(double, &x),
        y: to_bytes(double, &y),
        z: to_bytes(double, &z),
        n: as_bytes(&n).to_vec(),
    }
}

/// Element `i` of `out` as bits, with every NaN the same.
fn element(double: bool, out: &[u8], i: usize) -> u64 {
    if double {
        let v = f64::from_ne_bytes(out[i * 8..i * 8 + 8].try_into().unwrap());
        if v.is_nan() {
            u64::MAX
        } else {
            v.to_bits()
        }
    } else {
        let v = f32::from_ne_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        if v.is_nan() {
            u64::MAX
        } else {
            v.to_bits() as u64
        }
    }
}

fn run_all(double: bool) {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("math_widths.cl", if double { "-DDOUBLE" } else { "" });
    let inp = inputs(double);
    let elem = if double { 8 } else { 4 };
    let (x, y, z, n) = (
        ctx.buffer_from(&inp.x),
        ctx.buffer_from(&inp.y),
        ctx.buffer_from(&inp.z),
        ctx.buffer_from(&inp.n),
    );
    let out = ctx.buffer(N * elem);
    let mut funcs: Vec<(&str, Shape)> = Vec::new();
    funcs.extend(UNARY.iter().map(|f| (*f, Shape::Unary)));
    funcs.extend(BINARY.iter().map(|f| (*f, Shape::Binary)));
    funcs.extend(TERNARY.iter().map(|f| (*f, Shape::Ternary)));
    funcs.extend(WITH_INT.iter().map(|f| (*f, Shape::WithInt)));
    if !double {
        funcs.extend(UNARY_FLOAT.iter().map(|f| (*f, Shape::Unary)));
        funcs.extend(BINARY_FLOAT.iter().map(|f| (*f, Shape::Binary)));
    }
    let mut failures = Vec::new();
    for &(name, shape) in &funcs {
        let mut scalar: Vec<u8> = Vec::new();
        for w in WIDTHS {
            let k = p.kernel(&format!("k_{name}_{w}"));
            let operands: Vec<&Mem> = match shape {
                Shape::Unary => vec![&x],
                Shape::Binary => vec![&x, &y],
                Shape::Ternary => vec![&x, &y, &z],
                Shape::WithInt => vec![&x, &n],
            };
            for (i, m) in operands.iter().enumerate() {
                k.arg_mem(i as cl_uint, m);
            }
            k.arg_mem(operands.len() as cl_uint, &out);
            q.run(&k, &[], &[N / w], &[]);
            let got = q.read(&out, 0, N * elem);
            if w == 1 {
                scalar = got;
                continue;
            }
            if let Some(i) = (0..N).find(|&i| element(double, &got, i) != element(double, &scalar, i)) {
                failures.push(format!(
                    "{name} width {w}: element {i} is {:#x}, the scalar kernel gives {:#x}",
                    element(double, &got, i),
                    element(double, &scalar, i)
                ));
            }
        }
    }
    println!(
        "{} {} functions x widths {WIDTHS:?}: {} differ from the scalar form",
        funcs.len(),
        if double { "double" } else { "float" },
        failures.len()
    );
    if wanted_platform_name() == "Clift" {
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    } else {
        failures.iter().take(10).for_each(|f| println!("  {f}"));
    }
}

const RELATIONAL_UNARY: &[&str] = &["isfinite", "isinf", "isnan", "isnormal", "signbit"];
const RELATIONAL_BINARY: &[&str] = &[
    "isequal",
    "isnotequal",
    "isgreater",
    "isgreaterequal",
    "isless",
    "islessequal",
    "islessgreater",
    "isordered",
    "isunordered",
];

fn relational(double: bool) {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source(
        "relational_widths.cl",
        if double {
            "-cl-std=CL3.0 -DDOUBLE"
        } else {
            "-cl-std=CL3.0"
        },
    );
    let inp = inputs(double);
    let (x, y) = (ctx.buffer_from(&inp.x), ctx.buffer_from(&inp.y));
    let out = ctx.buffer(N * 8);
    let mut failures = Vec::new();
    let funcs = RELATIONAL_UNARY
        .iter()
        .map(|f| (*f, 1))
        .chain(RELATIONAL_BINARY.iter().map(|f| (*f, 2)));
    let mut count = 0;
    for (name, arity) in funcs {
        count += 1;
        let mut scalar: Vec<i64> = Vec::new();
        for w in WIDTHS {
            let k = p.kernel(&format!("k_{name}_{w}"));
            for (i, m) in [&x, &y].iter().take(arity).enumerate() {
                k.arg_mem(i as cl_uint, m);
            }
            k.arg_mem(arity as cl_uint, &out);
            q.run(&k, &[], &[N / w], &[]);
            let got: Vec<i64> = from_bytes(&q.read(&out, 0, N * 8));
            if w == 1 {
                if let Some(i) = got.iter().position(|v| *v != 0 && *v != 1) {
                    failures.push(format!("{name} scalar: element {i} is {}, not 0 or 1", got[i]));
                }
                scalar = got;
                continue;
            }
            if let Some(i) = (0..N).find(|&i| got[i] != -scalar[i]) {
                failures.push(format!(
                    "{name} width {w}: element {i} is {}, the scalar form gives {}",
                    got[i], scalar[i]
                ));
            }
        }
    }
    println!(
        "{count} {} relational functions x widths {WIDTHS:?}: {} differ from the scalar form",
        if double { "double" } else { "float" },
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn relational_widths_float() {
    relational(false);
}

#[test]
fn relational_widths_double() {
    if !device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        return;
    }
    relational(true);
}

#[test]
fn math_widths_float() {
    run_all(false);
}

#[test]
fn math_widths_double() {
    if !device_string(CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        return;
    }
    run_all(true);
}
