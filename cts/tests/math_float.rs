//! Every OpenCL.std math, common, geometric and relational function for float and double,
//! scalar and 4-vector forms (geometric: widths 1-4), on special values (section 6.7 edge
//! cases, signed zeros, infinities, NaN, denormals, integers and half-integers) and random
//! inputs, against a host reference: f64 for float, libm's f64 functions for double (which
//! costs the double bounds an allowance of 2 ulp for the reference's own error). The maximum
//! error seen is printed per function. Kernels: kernels/math/float.cl and kernels/math/double.cl.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::fmt::Write as _;

/// Elements per function (a multiple of 4: each work-item does 4).
const N: usize = 2048;

#[derive(Clone, Copy)]
struct Ty {
    double: bool,
}

impl Ty {
    fn bytes(self, v: &[f64]) -> Vec<u8> {
        if self.double {
            as_bytes(v).to_vec()
        } else {
            let f: Vec<f32> = v.iter().map(|x| *x as f32).collect();
            as_bytes(&f).to_vec()
        }
    }
    fn read(self, b: &[u8]) -> Vec<f64> {
        if self.double {
            from_bytes::<f64>(b)
        } else {
            from_bytes::<f32>(b).into_iter().map(|x| x as f64).collect()
        }
    }
    fn size(self) -> usize {
        if self.double {
            8
        } else {
            4
        }
    }
    fn round(self, x: f64) -> f64 {
        if self.double {
            x
        } else {
            x as f32 as f64
        }
    }
    fn name(self) -> &'static str {
        if self.double {
            "double"
        } else {
            "float"
        }
    }
    /// Error of `got` in ulps of the reference's binade (infinities count as the next power of
    /// two past the maximum; NaN must match NaN; an exact zero or infinity must match exactly,
    /// sign included).
    fn ulps(self, got: f64, r: f64) -> f64 {
        if r.is_nan() {
            return if got.is_nan() { 0.0 } else { f64::INFINITY };
        }
        if got.is_nan() {
            return f64::INFINITY;
        }
        if r.is_infinite() || r == 0.0 {
            return if got == r && got.is_sign_negative() == r.is_sign_negative() {
                0.0
            } else if r == 0.0 && got.abs() < f64::MIN_POSITIVE {
                // A denormal result for an exact zero still has to be counted.
                got.abs() / self.min_ulp()
            } else {
                f64::INFINITY
            };
        }
        let (mant, minexp, top) = if self.double {
            (52, -1022, 1024)
        } else {
            (23, -126, 128)
        };
        let g = if got.is_infinite() {
            2f64.powi(top).copysign(got)
        } else {
            got
        };
        let e = (r.abs().log2().floor() as i32).max(minexp);
        let ulp = libm::scalbn(1.0, e - mant);
        if ulp == 0.0 {
            return f64::INFINITY;
        }
        ((g - r).abs() / ulp).min(1e30)
    }
    fn min_ulp(self) -> f64 {
        if self.double {
            f64::from_bits(1)
        } else {
            2f64.powi(-149)
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn specials(t: Ty) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.25,
        -0.75,
        10.0,
        -7.0,
        100.5,
        1e-3,
        -1e-5,
        0.999,
        1.001,
        88.0,
        -104.0,
        700.0,
        -745.0,
        1e10,
        -3e20,
    ];
    if t.double {
        v.extend([
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e300,
        ]);
    } else {
        let fm = f32::MAX as f64;
        let fmin = f32::MIN_POSITIVE as f64;
        let den = 2f64.powi(-149);
        v.extend([fm, -fm, fmin, -fmin, den, -den, 1e30]);
    }
    v.into_iter().map(|x| t.round(x)).collect()
}

/// Random values: uniform in [-lo, lo], log-uniform magnitudes over the type's range, random
/// bit patterns, near-integers.
fn random(t: Ty, rng: &mut Rng, wide: bool) -> f64 {
    let k = rng.next() % 8;
    let sign = if rng.next() & 1 == 1 { -1.0 } else { 1.0 };
    let v = match k {
        0..=2 => (rng.unit() * 2.0 - 1.0) * 8.0,
        3 => (rng.unit() * 2.0 - 1.0) * 1.2,
        4 if wide => {
            if t.double {
                f64::from_bits(rng.next() & 0x7fef_ffff_ffff_ffff) * sign
            } else {
                f32::from_bits((rng.next() as u32) & 0x7f7f_ffff) as f64 * sign
            }
        }
        5 if wide => {
            let e = if t.double { 2000.0 } else { 250.0 };
            sign * 2f64.powf((rng.unit() - 0.5) * e)
        }
        6 => ((rng.unit() * 40.0 - 20.0).round() * 2.0).round() / 2.0,
        _ => sign * 2f64.powf((rng.unit() - 0.5) * 40.0),
    };
    t.round(v)
}

/// `(a, b, c)` inputs: specials crossed with specials, then random values.
fn inputs(t: Ty, seed: u64, wide: bool) -> [Vec<f64>; 3] {
    let sp = specials(t);
    let mut rng = Rng(seed | 1);
    let mut a = Vec::with_capacity(N);
    let mut b = Vec::with_capacity(N);
    let mut c = Vec::with_capacity(N);
    for x in &sp {
        for y in &sp {
            if a.len() < N / 2 {
                a.push(*x);
                b.push(*y);
                c.push(sp[(a.len() * 7) % sp.len()]);
            }
        }
    }
    while a.len() < N {
        a.push(random(t, &mut rng, wide));
        b.push(random(t, &mut rng, wide));
        c.push(random(t, &mut rng, wide));
    }
    [a, b, c]
}

fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x % 2.0;
    if r > 1.0 {
        r -= 2.0;
    } else if r < -1.0 {
        r += 2.0;
    }
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    let v = (std::f64::consts::PI * r).sin();
    if v == 0.0 {
        0f64.copysign(x)
    } else {
        v
    }
}

fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x.abs() % 2.0;
    if r > 1.0 {
        r = 2.0 - r;
    }
    let v = sinpi(0.5 - r);
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

fn pow_ref(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

fn powr(x: f64, y: f64) -> f64 {
    if x < 0.0 || x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    if x.is_infinite() && y == 0.0 {
        return f64::NAN;
    }
    if x == 1.0 {
        return if y.is_infinite() { f64::NAN } else { 1.0 };
    }
    libm::pow(x, y)
}

fn rootn(x: f64, n: i32) -> f64 {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    if x == 0.0 {
        return if n < 0 {
            if n % 2 != 0 {
                f64::INFINITY.copysign(x)
            } else {
                f64::INFINITY
            }
        } else if n % 2 != 0 {
            x
        } else {
            0.0
        };
    }
    let r = libm::pow(x.abs(), 1.0 / n as f64);
    r.copysign(x)
}

fn maxmag(x: f64, y: f64) -> f64 {
    if x.abs() > y.abs() {
        x
    } else if y.abs() > x.abs() {
        y
    } else {
        fmax(x, y)
    }
}

fn minmag(x: f64, y: f64) -> f64 {
    if x.abs() < y.abs() {
        x
    } else if y.abs() < x.abs() {
        y
    } else {
        fmin(x, y)
    }
}

fn fmax(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        if x.is_sign_negative() {
            y
        } else {
            x
        }
    } else {
        x.max(y)
    }
}

fn fmin(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        if x.is_sign_negative() {
            x
        } else {
            y
        }
    } else {
        x.min(y)
    }
}

fn ilogb(x: f64) -> i32 {
    if x == 0.0 {
        i32::MIN
    } else if x.is_nan() || x.is_infinite() {
        i32::MAX
    } else {
        libm::ilogb(x)
    }
}

fn logb(x: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if x.is_infinite() {
        f64::INFINITY
    } else if x.is_nan() {
        x
    } else {
        libm::ilogb(x) as f64
    }
}

/// Reference and ULP bound of a one-operand function (the bound is the float one; `None`:
/// implementation-defined accuracy, only reported).
fn unary(name: &str, x: f64, double: bool) -> (f64, Option<f64>) {
    use std::f64::consts::PI;
    let name = name.strip_prefix("native_").unwrap_or(name);
    let (half, name) = match name.strip_prefix("half_") {
        Some(n) => (true, n),
        None => (false, name),
    };
    let (r, b) = match name {
        "acos" => (x.acos(), 4.0),
        "acosh" => (if x < 1.0 { f64::NAN } else { libm::acosh(x) }, 4.0),
        "acospi" => (x.acos() / PI, 5.0),
        "asin" => (x.asin(), 4.0),
        "asinh" => (libm::asinh(x), 4.0),
        "asinpi" => (x.asin() / PI, 5.0),
        "atan" => (x.atan(), 5.0),
        "atanh" => (libm::atanh(x), 5.0),
        "atanpi" => (x.atan() / PI, 5.0),
        "cbrt" => (x.cbrt(), 2.0),
        "ceil" => (x.ceil(), 0.0),
        "cos" => (x.cos(), 4.0),
        "cosh" => (x.cosh(), 4.0),
        "cospi" => (cospi(x), 4.0),
        "erfc" => (libm::erfc(x), 16.0),
        "erf" => (libm::erf(x), 16.0),
        "exp" => (x.exp(), 3.0),
        "exp2" => (x.exp2(), 3.0),
        "exp10" => (libm::exp10(x), 3.0),
        "expm1" => (x.exp_m1(), 3.0),
        "fabs" => (x.abs(), 0.0),
        "floor" => (x.floor(), 0.0),
        "lgamma" => (libm::lgamma_r(x).0, 1e9),
        "log" => (x.ln(), 3.0),
        "log2" => (x.log2(), 3.0),
        "log10" => (x.log10(), 3.0),
        "log1p" => (x.ln_1p(), 2.0),
        "logb" => (logb(x), 0.0),
        "rint" => (x.round_ties_even(), 0.0),
        "round" => (x.round(), 0.0),
        "rsqrt" => (1.0 / x.sqrt(), 2.0),
        "sin" => (x.sin(), 4.0),
        "sinh" => (x.sinh(), 4.0),
        "sinpi" => (sinpi(x), 4.0),
        "sqrt" => (x.sqrt(), if double { 0.0 } else { 3.0 }),
        "tan" => (x.tan(), 5.0),
        "tanh" => (x.tanh(), 5.0),
        "tanpi" => (sinpi(x) / cospi(x), 6.0),
        "tgamma" => (libm::tgamma(x), 16.0),
        "trunc" => (x.trunc(), 0.0),
        "degrees" => (x * (180.0 / PI), 2.0),
        "radians" => (x * (PI / 180.0), 2.0),
        "recip" => (1.0 / x, 0.0),
        "sign" => (
            if x.is_nan() {
                0.0
            } else if x == 0.0 {
                x
            } else {
                1f64.copysign(x)
            },
            0.0,
        ),
        _ => panic!("no reference for {name}"),
    };
    (r, if half { Some(8192.0) } else { Some(b) })
}

fn binary(name: &str, x: f64, y: f64) -> (f64, Option<f64>) {
    use std::f64::consts::PI;
    let native = name.starts_with("native_");
    let name = name.strip_prefix("native_").unwrap_or(name);
    let (half, name) = match name.strip_prefix("half_") {
        Some(n) => (true, n),
        None => (false, name),
    };
    let (r, b) = match name {
        "atan2" => (x.atan2(y), 6.0),
        "atan2pi" => (x.atan2(y) / PI, 6.0),
        "copysign" => (x.copysign(y), 0.0),
        "fdim" => (
            if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x > y {
                x - y
            } else {
                0.0
            },
            0.0,
        ),
        "fmax" => (fmax(x, y), 0.0),
        "fmin" => (fmin(x, y), 0.0),
        "fmod" => (libm::fmod(x, y), 0.0),
        "hypot" => (x.hypot(y), 4.0),
        "maxmag" => (maxmag(x, y), 0.0),
        "minmag" => (minmag(x, y), 0.0),
        "nextafter" => (f64::NAN, 0.0), // checked exactly in the type by the caller
        "pow" => (pow_ref(x, y), 16.0),
        "powr" => (powr(x, y), 16.0),
        "remainder" => (libm::remainder(x, y), 0.0),
        "step" => (if y < x { 0.0 } else { 1.0 }, 0.0),
        "divide" => (x / y, 0.0),
        _ => panic!("no reference for {name}"),
    };
    let bound = if native {
        None
    } else if half {
        Some(8192.0)
    } else {
        Some(b)
    };
    (r, bound)
}

fn nextafter(t: Ty, x: f64, y: f64) -> f64 {
    if t.double {
        libm::nextafter(x, y)
    } else {
        libm::nextafterf(x as f32, y as f32) as f64
    }
}

struct Report {
    lines: String,
    failures: Vec<String>,
}

impl Report {
    fn check(
        &mut self,
        t: Ty,
        func: &str,
        got: &[f64],
        want: &[f64],
        bound: Option<f64>,
        inputs: &dyn Fn(usize) -> String,
    ) {
        let allow = bound.map(|b| if t.double && b > 0.0 { b + 2.0 } else { b });
        let mut max: f64 = 0.0;
        let mut first_bad = None;
        // C99 Annex F, which OpenCL C 7.5.1 follows: these return a zero argument with its sign
        // (sin(-0) = -0, ...).
        let keeps_zero = matches!(
            func,
            "sin"
                | "tan"
                | "asin"
                | "atan"
                | "sinh"
                | "tanh"
                | "asinh"
                | "atanh"
                | "sinpi"
                | "tanpi"
                | "asinpi"
                | "atanpi"
        );
        for i in 0..want.len() {
            let mut e = t.ulps(got[i], want[i]);
            if keeps_zero && want[i] == 0.0 && got[i] == 0.0 && got[i].is_sign_negative() != want[i].is_sign_negative()
            {
                e = f64::INFINITY;
            }
            if bound.is_none() {
                // Implementation-defined: report finite errors only, but the special values
                // that are exact must stay right.
                if !e.is_finite() && want[i].is_finite() && want[i] != 0.0 {
                    e = 0.0;
                }
            }
            if e > max {
                max = e;
            }
            let ok = match allow {
                Some(a) => e <= a,
                None => e.is_finite(),
            };
            if !ok && first_bad.is_none() {
                first_bad = Some(i);
            }
        }
        let _ = writeln!(
            self.lines,
            "{:6} {:16} max {:10.3} ulp  (bound {})",
            t.name(),
            func,
            max,
            bound.map(|b| format!("{b}")).unwrap_or_else(|| "impl-defined".into())
        );
        if let Some(i) = first_bad {
            self.failures.push(format!(
                "{} {func}: {} -> got {:e} ({:#x}), want {:e} ({:.3} ulp)",
                t.name(),
                inputs(i),
                got[i],
                got[i].to_bits(),
                want[i],
                t.ulps(got[i], want[i])
            ));
        }
    }
}

struct Runner {
    t: Ty,
    cx: Context,
    q: Queue,
    prog: Program,
}

impl Runner {
    fn new(t: Ty) -> Runner {
        let cx = Context::new();
        let q = cx.queue();
        let name = format!("math/{}", t.name());
        let prog = cx.built_program(&name, &spirv(&name));
        Runner { t, cx, q, prog }
    }

    /// Runs kernel `name` with the given input buffers and `outs` output buffers of
    /// `out_len[i]` bytes; returns the outputs.
    fn run(&self, name: &str, ins: &[Vec<u8>], out_len: &[usize], items: usize) -> Vec<Vec<u8>> {
        let k = self.prog.kernel(name);
        let mut mems = Vec::new();
        for b in ins {
            mems.push(self.cx.buffer_from(b));
        }
        for l in out_len {
            mems.push(self.cx.buffer(*l));
        }
        for (i, m) in mems.iter().enumerate() {
            k.arg_mem(i as cl_uint, m);
        }
        self.q.run(&k, &[], &[items], &[]);
        mems[ins.len()..]
            .iter()
            .zip(out_len)
            .map(|(m, l)| self.q.read(m, 0, *l))
            .collect()
    }
}

fn ints(seed: u64) -> Vec<i32> {
    let mut rng = Rng(seed | 1);
    let sp = [
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        4,
        5,
        -5,
        7,
        100,
        -100,
        1 << 20,
        i32::MAX,
        i32::MIN,
    ];
    (0..N)
        .map(|i| {
            if i % 3 == 0 {
                sp[(i / 3) % sp.len()]
            } else {
                ((rng.next() % 41) as i32) - 20
            }
        })
        .collect()
}

fn fmt3<'a>(a: &'a [f64], b: &'a [f64], c: &'a [f64]) -> impl Fn(usize) -> String + 'a {
    move |i| format!("({:e}, {:e}, {:e})", a[i], b[i], c[i])
}

fn run_all(t: Ty) {
    let r = Runner::new(t);
    let mut rep = Report {
        lines: String::new(),
        failures: Vec::new(),
    };
    let sz = t.size();
    let items = N / 4;
    let [a, b, c] = inputs(t, 0x9e37_79b9, true);
    let (ab, bb, cb) = (t.bytes(&a), t.bytes(&b), t.bytes(&c));
    let show = fmt3(&a, &b, &c);
    let kernels = kernel_names(&r.prog);
    for k in kernels.iter() {
        let (kind, f) = k.split_once('_').unwrap_or((k, ""));
        match kind {
            "u" => {
                let outs = r.run(k, std::slice::from_ref(&ab), &[N * sz, N * sz], items);
                let native = f.starts_with("native_");
                let bound = if native { None } else { unary(f, 1.0, t.double).1 };
                // Exact functions against the rounded reference, the others against the
                // unrounded one (so that the error shows its fraction of an ulp).
                let exact = bound == Some(0.0);
                let want: Vec<f64> = a
                    .iter()
                    .map(|x| {
                        let v = unary(f, *x, t.double).0;
                        let rv = t.round(v);
                        if exact || t.double || rv.is_infinite() || rv == 0.0 {
                            t.round(v)
                        } else {
                            v
                        }
                    })
                    .collect();
                for (o, form) in outs.iter().zip(["", "4"]) {
                    rep.check(t, &format!("{f}{form}"), &t.read(o), &want, bound, &show);
                }
            }
            "b" => {
                let outs = r.run(k, &[ab.clone(), bb.clone()], &[N * sz, N * sz], items);
                let want: Vec<f64> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| {
                        if f == "nextafter" {
                            nextafter(t, *x, *y)
                        } else {
                            let (v, bd) = binary(f, *x, *y);
                            let rv = t.round(v);
                            if bd == Some(0.0) || t.double || rv.is_infinite() || rv == 0.0 {
                                t.round(v)
                            } else {
                                v
                            }
                        }
                    })
                    .collect();
                let bound = if f == "nextafter" {
                    Some(0.0)
                } else {
                    binary(f, 1.0, 1.0).1
                };
                for (o, form) in outs.iter().zip(["", "4"]) {
                    rep.check(t, &format!("{f}{form}"), &t.read(o), &want, bound, &show);
                }
            }
            "t" => {
                let outs = r.run(k, &[ab.clone(), bb.clone(), cb.clone()], &[N * sz, N * sz], items);
                for (o, form) in outs.iter().zip(["", "4"]) {
                    let got = t.read(o);
                    let (want, bound): (Vec<f64>, Option<f64>) = match f {
                        "fma" => (
                            a.iter().zip(&b).zip(&c).map(|((x, y), z)| fma(t, *x, *y, *z)).collect(),
                            Some(0.0),
                        ),
                        "mad" => {
                            // Either a correctly rounded fma or a rounded multiply and add.
                            let w = (0..N)
                                .map(|i| {
                                    let f1 = fma(t, a[i], b[i], c[i]);
                                    let f2 = t.round(t.round(a[i] * b[i]) + c[i]);
                                    if t.ulps(got[i], f2) == 0.0 {
                                        f2
                                    } else {
                                        f1
                                    }
                                })
                                .collect();
                            (w, Some(0.0))
                        }
                        "clamp" => ((0..N).map(|i| fmin(fmax(a[i], b[i]), c[i])).collect(), Some(0.0)),
                        _ => continue, // mix / smoothstep: see scalar_forms (absolute tolerance)
                    };
                    // clamp is undefined when min > max or an operand is NaN.
                    if f == "clamp" {
                        let keep: Vec<usize> = (0..N).filter(|i| b[*i] <= c[*i]).collect();
                        let g: Vec<f64> = keep.iter().map(|i| got[*i]).collect();
                        let w: Vec<f64> = keep.iter().map(|i| want[*i]).collect();
                        rep.check(t, &format!("{f}{form}"), &g, &w, bound, &|j| show(keep[j]));
                    } else {
                        rep.check(t, &format!("{f}{form}"), &got, &want, bound, &show);
                    }
                }
            }
            "bi" => {
                let n = ints(7);
                let outs = r.run(k, &[ab.clone(), as_bytes(&n).to_vec()], &[N * sz, N * sz], items);
                let want: Vec<f64> = (0..N)
                    .map(|i| {
                        let (x, n) = (a[i], n[i]);
                        t.round(match f {
                            "ldexp" => libm::scalbn(x, n),
                            "pown" => {
                                if n == 0 {
                                    1.0
                                } else {
                                    pow_ref(x, n as f64)
                                }
                            }
                            _ => rootn(x, n),
                        })
                    })
                    .collect();
                let bound = match f {
                    "ldexp" => Some(0.0),
                    "rootn" if t.double => None, // the f64 reference loses |ln x / n| ulp
                    _ => Some(16.0),
                };
                let sh = |i: usize| format!("({:e}, {})", a[i], n[i]);
                for (o, form) in outs.iter().zip(["", "4"]) {
                    rep.check(t, &format!("{f}{form}"), &t.read(o), &want, bound, &sh);
                }
            }
            "pf" | "pi" => {
                let psz = if kind == "pf" { sz } else { 4 };
                let outs = r.run(k, std::slice::from_ref(&ab), &[N * sz, N * sz, N * psz, N * psz], items);
                let (w1, w2): (Vec<f64>, Vec<f64>) = a
                    .iter()
                    .map(|x| {
                        let x = *x;
                        match f {
                            "fract" => {
                                let fl = x.floor();
                                let fr = if x.is_nan() {
                                    x
                                } else if x.is_infinite() {
                                    0f64.copysign(x)
                                } else {
                                    t.round((x - fl).min(if t.double { 1.0 - f64::EPSILON / 2.0 } else { 0.99999994 }))
                                };
                                (if fr == 0.0 { fr.copysign(x) } else { fr }, fl)
                            }
                            "modf" => {
                                let tr = x.trunc();
                                ((if x.is_infinite() { 0.0 } else { x - tr }).copysign(x), tr)
                            }
                            "sincos" => (t.round(x.sin()), t.round(x.cos())),
                            "frexp" => {
                                if x == 0.0 || !x.is_finite() {
                                    (x, 0.0)
                                } else {
                                    let (m, e) = libm::frexp(x);
                                    (m, e as f64)
                                }
                            }
                            _ => {
                                let (v, s) = libm::lgamma_r(x);
                                (t.round(v), s as f64)
                            }
                        }
                    })
                    .unzip();
                let bound = match f {
                    "sincos" => Some(4.0),
                    "lgamma_r" => Some(1e9),
                    _ => Some(0.0),
                };
                rep.check(t, f, &t.read(&outs[0]), &w1, bound, &show);
                rep.check(t, &format!("{f}4"), &t.read(&outs[1]), &w1, bound, &show);
                for (o, form) in outs[2..].iter().zip(["", "4"]) {
                    let got: Vec<f64> = if kind == "pf" {
                        t.read(o)
                    } else {
                        from_bytes::<i32>(o).into_iter().map(|v| v as f64).collect()
                    };
                    let b2 = if f == "sincos" { Some(4.0) } else { Some(0.0) };
                    if f == "lgamma_r" {
                        // The sign is only meaningful where lgamma is finite and not at a pole.
                        let keep: Vec<usize> = (0..N).filter(|i| a[*i].is_finite() && a[*i] > 0.0).collect();
                        let g: Vec<f64> = keep.iter().map(|i| got[*i]).collect();
                        let w: Vec<f64> = keep.iter().map(|i| w2[*i]).collect();
                        rep.check(t, &format!("{f}{form}.sign"), &g, &w, b2, &|j| show(keep[j]));
                    } else {
                        rep.check(t, &format!("{f}{form}.out"), &got, &w2, b2, &show);
                    }
                }
            }
            "ir" => {
                let outs = r.run(k, std::slice::from_ref(&ab), &[N * 4, N * 4], items);
                let want: Vec<f64> = a.iter().map(|x| ilogb(*x) as f64).collect();
                for (o, form) in outs.iter().zip(["", "4"]) {
                    let got: Vec<f64> = from_bytes::<i32>(o).into_iter().map(|v| v as f64).collect();
                    let bad = (0..N).find(|i| got[*i] != want[*i]);
                    let _ = writeln!(
                        rep.lines,
                        "{:6} ilogb{form:12} {}",
                        t.name(),
                        if bad.is_none() { "exact" } else { "WRONG" }
                    );
                    if let Some(i) = bad {
                        rep.failures
                            .push(format!("ilogb{form}({:e}) = {} want {}", a[i], got[i], want[i]));
                    }
                }
            }
            _ => {}
        }
    }
    special_kernels(&r, &mut rep, &a, &b, &c);
    println!("{}", rep.lines);
    assert!(
        rep.failures.is_empty(),
        "{} failures:\n{}",
        rep.failures.len(),
        rep.failures.join("\n")
    );
}

fn fma(t: Ty, x: f64, y: f64, z: f64) -> f64 {
    if t.double {
        libm::fma(x, y, z)
    } else {
        libm::fmaf(x as f32, y as f32, z as f32) as f64
    }
}

/// The kernels of the program (CL_PROGRAM_KERNEL_NAMES).
fn kernel_names(p: &Program) -> Vec<String> {
    let b = p.info_bytes(CL_PROGRAM_KERNEL_NAMES).expect("kernel names");
    let s = bytes_to_string(&b);
    let mut v: Vec<String> = s
        .split(';')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect();
    v.sort();
    v
}

fn special_kernels(r: &Runner, rep: &mut Report, a: &[f64], b: &[f64], c: &[f64]) {
    let t = r.t;
    let sz = t.size();
    let items = N / 4;
    let show = fmt3(a, b, c);
    // remquo
    {
        let outs = r.run(
            "remquo_k",
            &[t.bytes(a), t.bytes(b)],
            &[N * sz, N * sz, N * 4, N * 4],
            items,
        );
        let mut w = Vec::new();
        let mut wq = Vec::new();
        for i in 0..N {
            let (rv, q) = if t.double {
                libm::remquo(a[i], b[i])
            } else {
                let (rv, q) = libm::remquof(a[i] as f32, b[i] as f32);
                (rv as f64, q)
            };
            w.push(rv);
            wq.push(if rv.is_nan() { 0 } else { q });
        }
        for (k, form) in ["", "4"].iter().enumerate() {
            rep.check(t, &format!("remquo{form}"), &t.read(&outs[k]), &w, Some(0.0), &show);
            let q = from_bytes::<i32>(&outs[2 + k]);
            if let Some(i) = (0..N).find(|i| (q[*i] - wq[*i]) & 0x7f != 0 || (q[*i] < 0) != (wq[*i] < 0)) {
                rep.failures
                    .push(format!("remquo{form}.quo{}: got {} want {}", show(i), q[i], wq[i]));
            }
        }
    }
    // nan
    {
        let codes: Vec<u64> = (0..N as u64).map(|i| i * 0x9e37_79b9 % (1 << 20)).collect();
        let inb = if t.double {
            as_bytes(&codes).to_vec()
        } else {
            let c32: Vec<u32> = codes.iter().map(|v| *v as u32).collect();
            as_bytes(&c32).to_vec()
        };
        let outs = r.run("nan_k", &[inb], &[N * sz, N * sz], items);
        for (o, form) in outs.iter().zip(["", "4"]) {
            let ok = t.read(o).iter().all(|v| v.is_nan());
            let _ = writeln!(
                rep.lines,
                "{:6} nan{form:14} {}",
                t.name(),
                if ok { "exact" } else { "WRONG" }
            );
            if !ok {
                rep.failures.push(format!("nan{form} returned a non-NaN"));
            }
        }
    }
    // fmin/fmax/clamp/mix/step/smoothstep with scalar operands (absolute tolerances for mix
    // and smoothstep: 1e-3 and 1e-5 for float).
    {
        let (ra, rb, rc) = {
            let mut rng = Rng(77);
            let v = |rng: &mut Rng| t.round((rng.unit() * 2.0 - 1.0) * 4.0);
            let a: Vec<f64> = (0..N).map(|_| v(&mut rng)).collect();
            let b: Vec<f64> = (0..N).map(|_| v(&mut rng)).collect();
            let c: Vec<f64> = (0..N).map(|_| t.round(rng.unit())).collect();
            (a, b, c)
        };
        let o = r.run(
            "scalar_forms",
            &[t.bytes(&ra), t.bytes(&rb), t.bytes(&rc)],
            &[6 * N * sz],
            items,
        );
        let got = t.read(&o[0]);
        let mut errs = [0f64; 6];
        let mut bad = Vec::new();
        for g in 0..items {
            let (s, tt) = (rb[4 * g], rc[4 * g]);
            for k in 0..4 {
                let x = ra[4 * g + k];
                let (lo, hi) = (fmin(s, tt), fmax(s, tt));
                let want = [
                    fmin(x, s),
                    fmax(x, s),
                    fmin(fmax(x, lo), hi),
                    x + (rb[4 * g + k] - x) * tt,
                    if x < s { 0.0 } else { 1.0 },
                    {
                        let u = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
                        u * u * (3.0 - 2.0 * u)
                    },
                ];
                for j in 0..6 {
                    let v = got[24 * g + 4 * j + k];
                    let e = if j == 3 || j == 5 {
                        if hi == lo && j == 5 {
                            0.0
                        } else {
                            (v - want[j]).abs()
                        }
                    } else {
                        t.ulps(v, want[j])
                    };
                    errs[j] = errs[j].max(e);
                    let tol = match j {
                        3 => 1e-3,
                        5 => 1e-5,
                        _ => 0.0,
                    };
                    if e > tol && bad.len() < 3 {
                        bad.push(format!("scalar form {j} ({x}, {s}, {tt}): got {v} want {}", want[j]));
                    }
                }
            }
        }
        for (j, n) in [
            "fmin(v,s)",
            "fmax(v,s)",
            "clamp(v,s,s)",
            "mix",
            "step(s,v)",
            "smoothstep",
        ]
        .iter()
        .enumerate()
        {
            let unit = if j == 3 || j == 5 { "abs" } else { "ulp" };
            let _ = writeln!(rep.lines, "{:6} {:16} max {:10.3e} {unit}", t.name(), n, errs[j]);
        }
        rep.failures.extend(bad);
    }
    geometric(r, rep);
    relational(r, rep, a, b);
}

fn geometric(r: &Runner, rep: &mut Report) {
    let t = r.t;
    let sz = t.size();
    let g = N / 4;
    // Inputs: moderate values, plus huge and tiny vectors (overflow / underflow of the
    // squares), zero vectors, infinities and NaN.
    let mut rng = Rng(12345);
    let mut a = Vec::with_capacity(4 * g);
    let mut b = Vec::with_capacity(4 * g);
    let big = if t.double { 1e300 } else { 1e37 };
    let tiny = if t.double { 1e-310 } else { 1e-42 };
    for i in 0..g {
        let scale = match i % 8 {
            5 => big,
            6 => tiny,
            _ => 1.0,
        };
        for _ in 0..4 {
            a.push(t.round((rng.unit() * 2.0 - 1.0) * 10.0 * scale));
            b.push(t.round((rng.unit() * 2.0 - 1.0) * 10.0 * scale));
        }
    }
    for (i, v) in [0.0, -0.0, 0.0, -0.0].iter().enumerate() {
        a[4 + i] = *v;
    }
    a[8] = f64::INFINITY;
    a[13] = f64::NEG_INFINITY;
    a[18] = f64::NAN;
    for w in 1..=4 {
        let nouts = if t.double { 4 } else { 7 };
        let sizes: Vec<usize> = (0..nouts)
            .map(|k| if k % 3 == 0 && k > 0 { g * w * sz } else { g * sz })
            .collect();
        let sizes: Vec<usize> = sizes
            .iter()
            .enumerate()
            .map(|(k, s)| if k == 3 || k == 6 { g * w * sz } else { *s })
            .collect();
        // geo<w> reads vectors of w from packed arrays.
        let pa: Vec<f64> = (0..g).flat_map(|i| a[4 * i..4 * i + w].to_vec()).collect();
        let pb: Vec<f64> = (0..g).flat_map(|i| b[4 * i..4 * i + w].to_vec()).collect();
        let outs = r.run(&format!("geo{w}"), &[t.bytes(&pa), t.bytes(&pb)], &sizes, g);
        let o: Vec<Vec<f64>> = outs.iter().map(|x| t.read(x)).collect();
        let n = w as f64;
        let (bl, bd, bn) = if t.double {
            (5.5 + n, 5.5 + 2.0 * n, 4.5 + n)
        } else {
            (2.75 + 0.5 * n, 2.5 + 2.0 * n, 2.0 + n)
        };
        let mut wdot = Vec::new();
        let mut wlen = Vec::new();
        let mut wdist = Vec::new();
        let mut wn = Vec::new();
        let mut dot_err: f64 = 0.0;
        let mut dot_bad = None;
        for i in 0..g {
            let x = &pa[w * i..w * i + w];
            let y = &pb[w * i..w * i + w];
            let d: f64 = x.iter().zip(y).map(|(p, q)| p * q).sum();
            wdot.push(d);
            wlen.push(t.round(hypot_n(x)));
            let diff: Vec<f64> = x.iter().zip(y).map(|(p, q)| p - q).collect();
            wdist.push(t.round(hypot_n(&diff)));
            wn.extend(normalize_ref(t, x));
            // dot: absolute tolerance max*max*(2n-1)*eps.
            let m = x.iter().chain(y).fold(0f64, |m, v| m.max(v.abs()));
            let eps = if t.double { f64::EPSILON } else { f32::EPSILON as f64 };
            let tol = (m * m * (2.0 * n - 1.0) * eps).max(t.min_ulp());
            let got = o[0][i];
            let top = if t.double { f64::MAX } else { f32::MAX as f64 };
            if d.is_finite() && tol.is_finite() && tol > 0.0 && m * m * n <= top {
                let e = (got - d).abs() / tol;
                dot_err = dot_err.max(e);
                if e > 1.0 && dot_bad.is_none() {
                    dot_bad = Some(format!("dot{w}({x:?}, {y:?}) = {got} want {d}"));
                }
            }
        }
        let _ = writeln!(rep.lines, "{:6} dot{w:<13} max {:10.3} of tolerance", t.name(), dot_err);
        rep.failures.extend(dot_bad);
        let sh = |i: usize| format!("{:?} / {:?}", &pa[w * i..w * i + w], &pb[w * i..w * i + w]);
        let shn = |i: usize| format!("{:?}", &pa[w * (i / w)..w * (i / w) + w]);
        rep.check(t, &format!("length{w}"), &o[1], &wlen, Some(bl), &sh);
        rep.check(t, &format!("distance{w}"), &o[2], &wdist, Some(bd), &sh);
        rep.check(t, &format!("normalize{w}"), &o[3], &wn, Some(bn), &shn);
        if !t.double {
            rep.check(t, &format!("fast_length{w}"), &o[4], &wlen, Some(8191.5 + n), &sh);
            rep.check(
                t,
                &format!("fast_distance{w}"),
                &o[5],
                &wdist,
                Some(8191.5 + 2.0 * n),
                &sh,
            );
            rep.check(t, &format!("fast_normalize{w}"), &o[6], &wn, Some(8192.0 + n), &shn);
        }
    }
    // cross
    for w in [3usize, 4] {
        let pa: Vec<f64> = (0..g).flat_map(|i| a[4 * i..4 * i + w].to_vec()).collect();
        let pb: Vec<f64> = (0..g).flat_map(|i| b[4 * i..4 * i + w].to_vec()).collect();
        let outs = r.run(&format!("cross{w}"), &[t.bytes(&pa), t.bytes(&pb)], &[g * w * sz], g);
        let o = t.read(&outs[0]);
        let mut max: f64 = 0.0;
        let eps = if t.double { f64::EPSILON } else { f32::EPSILON as f64 };
        for i in 0..g {
            let x = &pa[w * i..w * i + 3];
            let y = &pb[w * i..w * i + 3];
            if x.iter().chain(y).any(|v| !v.is_finite()) {
                continue;
            }
            let want = [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
            ];
            let m = x.iter().chain(y).fold(0f64, |m, v| m.max(v.abs()));
            let tol = (m * m * 3.0 * eps).max(t.min_ulp());
            let top = if t.double { f64::MAX } else { f32::MAX as f64 };
            for k in 0..3 {
                if tol.is_finite() && want[k].abs() <= top {
                    let e = (o[w * i + k] - want[k]).abs() / tol;
                    max = max.max(e);
                    if e > 1.0 && max <= e {
                        rep.failures.push(format!(
                            "cross{w}({x:?}, {y:?})[{k}] = {} want {}",
                            o[w * i + k],
                            want[k]
                        ));
                    }
                }
            }
            if w == 4 && o[w * i + 3] != 0.0 {
                rep.failures.push(format!("cross4 w component = {}", o[w * i + 3]));
            }
        }
        let _ = writeln!(rep.lines, "{:6} cross{w:<11} max {:10.3} of tolerance", t.name(), max);
    }
}

/// sqrt(sum of squares) without overflow (scaled; the reference for length and distance).
fn hypot_n(x: &[f64]) -> f64 {
    if x.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    x.iter().fold(0.0, |acc: f64, v| acc.hypot(*v))
}

fn normalize_ref(t: Ty, x: &[f64]) -> Vec<f64> {
    if x.iter().any(|v| v.is_nan()) {
        return vec![f64::NAN; x.len()];
    }
    let x: Vec<f64> = if x.iter().any(|v| v.is_infinite()) {
        x.iter()
            .map(|v| if v.is_infinite() { 1f64.copysign(*v) } else { 0.0 * v })
            .collect()
    } else {
        x.to_vec()
    };
    if x.iter().all(|v| *v == 0.0) {
        return x;
    }
    // Scale tiny vectors up (exactly) so that the length keeps its precision.
    let x: Vec<f64> = if x.iter().all(|v| v.abs() < 1e-150) {
        x.iter().map(|v| v * 2f64.powi(600)).collect()
    } else {
        x
    };
    let l = hypot_n(&x);
    x.iter().map(|v| t.round(v / l)).collect()
}

fn relational(r: &Runner, rep: &mut Report, a: &[f64], b: &[f64]) {
    let t = r.t;
    let items = N / 4;
    let vsz = if t.double { 8 } else { 4 };
    let outs = r.run(
        "relational",
        &[t.bytes(a), t.bytes(b)],
        &[14 * N * 4, 14 * N * vsz],
        items,
    );
    let so = from_bytes::<i32>(&outs[0]);
    let vo: Vec<i64> = if t.double {
        from_bytes::<i64>(&outs[1])
    } else {
        from_bytes::<i32>(&outs[1]).into_iter().map(|v| v as i64).collect()
    };
    let names = [
        "isequal",
        "isnotequal",
        "isgreater",
        "isgreaterequal",
        "isless",
        "islessequal",
        "islessgreater",
        "isordered",
        "isunordered",
        "isfinite",
        "isinf",
        "isnan",
        "isnormal",
        "signbit",
    ];
    let min_normal = if t.double {
        f64::MIN_POSITIVE
    } else {
        f32::MIN_POSITIVE as f64
    };
    let mut wrong = 0;
    for (j, n) in names.iter().enumerate() {
        let mut ok = true;
        for i in 0..N {
            let (x, y) = (a[i], b[i]);
            let want = match *n {
                "isequal" => x == y,
                "isnotequal" => x != y,
                "isgreater" => x > y,
                "isgreaterequal" => x >= y,
                "isless" => x < y,
                "islessequal" => x <= y,
                "islessgreater" => !x.is_nan() && !y.is_nan() && x != y,
                "isordered" => !x.is_nan() && !y.is_nan(),
                "isunordered" => x.is_nan() || y.is_nan(),
                "isfinite" => x.is_finite(),
                "isinf" => x.is_infinite(),
                "isnan" => x.is_nan(),
                "isnormal" => x.is_finite() && x.abs() >= min_normal,
                _ => x.is_sign_negative(),
            };
            let (g4, k) = (i / 4, i % 4);
            let s = so[14 * 4 * g4 + j * 4 + k];
            let v = vo[14 * 4 * g4 + j * 4 + k];
            if s != want as i32 || v != -(want as i64) {
                if ok {
                    rep.failures.push(format!(
                        "{} {n}({x:e}, {y:e}): scalar {s} vector {v}, want {want}",
                        t.name()
                    ));
                }
                ok = false;
            }
        }
        if !ok {
            wrong += 1;
        }
    }
    let _ = writeln!(
        rep.lines,
        "{:6} relational (14 functions, scalar + vector): {} wrong",
        t.name(),
        wrong
    );
    // select / bitselect / any / all
    let mut rng = Rng(99);
    let m: Vec<i64> = (0..N)
        .map(|_| {
            let v = rng.next();
            if v & 2 != 0 {
                v as i64
            } else {
                (v >> 1) as i64 & 0x7fff_ffff
            }
        })
        .collect();
    let mb = if t.double {
        as_bytes(&m).to_vec()
    } else {
        let m32: Vec<i32> = m.iter().map(|v| (*v >> 32) as i32 ^ (*v as i32)).collect();
        as_bytes(&m32).to_vec()
    };
    let mv: Vec<i64> = if t.double {
        m.clone()
    } else {
        from_bytes::<i32>(&mb).into_iter().map(|v| v as i64).collect()
    };
    let ob = &r.run("selects", &[t.bytes(a), t.bytes(b), mb], &[16 * N / 4 * vsz], items)[0];
    let o = t.read(ob);
    let raw: Vec<u64> = if t.double {
        from_bytes::<u64>(ob)
    } else {
        from_bytes::<u32>(ob).into_iter().map(|v| v as u64).collect()
    };
    let bits = |v: f64| {
        if t.double {
            v.to_bits()
        } else {
            (v as f32).to_bits() as u64
        }
    };
    let mut bad = 0;
    for g in 0..items {
        let mm = &mv[4 * g..4 * g + 4];
        for k in 0..4 {
            let (x, y, c) = (a[4 * g + k], b[4 * g + k], mm[k]);
            let sel = if c < 0 { y } else { x };
            let bs = {
                let cb = c as u64 & if t.double { u64::MAX } else { 0xffff_ffff };
                (bits(x) & !cb) | (bits(y) & cb)
            };
            let ssel = if c & 1 != 0 { y } else { x };
            if bits(o[16 * g + k]) != bits(sel) || raw[16 * g + 4 + k] != bs || bits(o[16 * g + 8 + k]) != bits(ssel) {
                bad += 1;
            }
        }
        let any4 = mm.iter().any(|v| *v < 0) as i32 as f64;
        let all4 = mm.iter().all(|v| *v < 0) as i32 as f64;
        let any2 = mm[..2].iter().any(|v| *v < 0) as i32 as f64;
        let all2 = mm[..2].iter().all(|v| *v < 0) as i32 as f64;
        if o[16 * g + 12..16 * g + 16] != [any4, all4, any2, all2] {
            bad += 1;
        }
    }
    let _ = writeln!(rep.lines, "{:6} select/bitselect/any/all: {bad} wrong", t.name());
    if bad > 0 {
        rep.failures
            .push(format!("{} select/bitselect/any/all: {bad} wrong", t.name()));
    }
}

#[test]
fn math_float() {
    run_all(Ty { double: false });
}

#[test]
fn math_double() {
    run_all(Ty { double: true });
}
