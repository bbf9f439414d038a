//! Accuracy and edge-case tests of the math builtins.
//!
//! The reference is computed with `astro-float` at 192 bits or more (for both f32 and
//! f64 results); the ULP error is measured as in the OpenCL CTS, in ulps of the
//! reference's binade in the result format. `cargo test -p clift-jit --release --lib
//! builtins::tests::math_table -- --ignored --nocapture` prints the table of docs/math.md.

use super::double::*;
use super::float::*;
use astro_float::{BigFloat, Consts, RoundingMode, Sign};
use std::cell::RefCell;

const P: usize = 192;
const RM: RoundingMode = RoundingMode::ToEven;

thread_local! {
    static CC: RefCell<Consts> = RefCell::new(Consts::new().unwrap());
}

fn cc<R>(f: impl FnOnce(&mut Consts) -> R) -> R {
    CC.with(|c| f(&mut c.borrow_mut()))
}

// ---------------------------------------------------------------------------------------
// BigFloat helpers

/// Exact conversion (astro-float's `from_f64` flushes f64 subnormals, so scale them).
fn bf(x: f64) -> BigFloat {
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        let mut b = BigFloat::from_f64(x * 18446744073709551616.0, P);
        let e = b.exponent().unwrap();
        b.set_exponent(e - 64);
        b
    } else {
        BigFloat::from_f64(x, P)
    }
}

/// Precision that makes sums and products of f64 values exact.
const PX: usize = 2304;

fn nan() -> BigFloat {
    astro_float::NAN
}

fn inf(neg: bool) -> BigFloat {
    if neg {
        astro_float::INF_NEG
    } else {
        astro_float::INF_POS
    }
}

/// A positive or negative number far below every subnormal (2^-1200).
fn tiny(neg: bool) -> BigFloat {
    let mut t = bf(1.0);
    t.set_exponent(-1199);
    if neg {
        t.neg()
    } else {
        t
    }
}

fn pi(p: usize) -> BigFloat {
    cc(|c| c.pi(p, RM))
}

fn is_neg(b: &BigFloat) -> bool {
    b.sign() == Some(Sign::Neg)
}

fn sign_of(b: BigFloat, neg: bool) -> BigFloat {
    if neg != is_neg(&b) {
        b.neg()
    } else {
        b
    }
}

fn add(a: &BigFloat, b: &BigFloat) -> BigFloat {
    a.add(b, P, RM)
}
fn sub(a: &BigFloat, b: &BigFloat) -> BigFloat {
    a.sub(b, P, RM)
}
fn mul(a: &BigFloat, b: &BigFloat) -> BigFloat {
    a.mul(b, P, RM)
}
fn div(a: &BigFloat, b: &BigFloat) -> BigFloat {
    a.div(b, P, RM)
}
fn lt(a: &BigFloat, b: &BigFloat) -> bool {
    a.cmp(b).is_some_and(|c| c < 0)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fmt {
    F32,
    F64,
}

impl Fmt {
    fn prec(self) -> i32 {
        match self {
            Fmt::F32 => 24,
            Fmt::F64 => 53,
        }
    }
    /// Exponent of the smallest subnormal.
    fn qmin(self) -> i32 {
        match self {
            Fmt::F32 => -149,
            Fmt::F64 => -1074,
        }
    }
    /// Finite values are below 2^emax.
    fn emax(self) -> i32 {
        match self {
            Fmt::F32 => 128,
            Fmt::F64 => 1024,
        }
    }
}

fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Rounds `b` to the nearest value of `fmt` (ties to even), returned as f64.
fn round_to(b: &BigFloat, fmt: Fmt) -> f64 {
    if b.is_nan() {
        return f64::NAN;
    }
    if b.is_inf_pos() {
        return f64::INFINITY;
    }
    if b.is_inf_neg() {
        return f64::NEG_INFINITY;
    }
    let neg = is_neg(b);
    let sgn = |v: f64| if neg { -v } else { v };
    if b.is_zero() {
        return sgn(0.0);
    }
    let (words, _, _, e, _) = b.as_raw_parts().unwrap();
    let len = words.len();
    let mut m: u128 = (words[len - 1] as u128) << 64;
    if len >= 2 {
        m |= words[len - 2] as u128;
    }
    let sticky = len > 2 && words[..len - 2].iter().any(|&w| w != 0);
    let lz = m.leading_zeros() as i32;
    m <<= lz;
    let e = e - lz; // value = m * 2^(e - 128), m in [2^127, 2^128)
    let q = (e - fmt.prec()).max(fmt.qmin());
    let shift = q - (e - 128);
    if shift >= 129 {
        return sgn(0.0);
    }
    let (mut k, rem, half) = if shift == 128 {
        (0u128, m, 1u128 << 127)
    } else {
        (m >> shift, m & ((1u128 << shift) - 1), 1u128 << (shift - 1))
    };
    if rem > half || (rem == half && (sticky || k & 1 == 1)) {
        k += 1;
    }
    // value = k * 2^q
    let bits = 128 - k.leading_zeros() as i32;
    if k != 0 && q + bits > fmt.emax() {
        return sgn(f64::INFINITY);
    }
    let kf = k as f64; // k < 2^54, exact
    let v = if q >= -1022 {
        kf * pow2(q)
    } else {
        kf * pow2(q + 64) * pow2(-64)
    };
    sgn(v)
}

/// Error of `got` against the exact value `r`, in ulps of `fmt` (CTS convention: the ulp
/// of the reference's binade). Infinite when a NaN or infinity is wrong.
fn ulp_err(got: f64, r: &BigFloat, fmt: Fmt) -> f64 {
    if r.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got.is_nan() {
        return f64::INFINITY;
    }
    let rr = round_to(r, fmt);
    if rr.is_infinite() || got.is_infinite() {
        if got == rr {
            return 0.0;
        }
        if got.is_infinite() || r.is_inf() {
            return f64::INFINITY;
        }
        // reference overflows after rounding, result is finite: measure at the top binade
        let d = sub(&bf(got), r).abs();
        let mut d2 = d;
        let ex = d2.exponent().unwrap();
        d2.set_exponent(ex - (fmt.emax() - fmt.prec()));
        return round_to(&d2, Fmt::F64);
    }
    let d = sub(&bf(got), r).abs();
    if d.is_zero() {
        return 0.0;
    }
    let ulp_e = if r.is_zero() {
        fmt.qmin()
    } else {
        (r.exponent().unwrap() - fmt.prec()).max(fmt.qmin())
    };
    let mut d2 = d;
    let ex = d2.exponent().unwrap();
    d2.set_exponent(ex - ulp_e);
    round_to(&d2, Fmt::F64)
}

// ---------------------------------------------------------------------------------------
// Reference functions (arguments are exact f64 values)

/// x + c3 x^3 + c5 x^5 for tiny |x| (relative error ~ x^6).
fn odd_series(x: f64, c3: f64, c5: f64) -> BigFloat {
    let b = bf(x);
    let x2 = mul(&b, &b);
    let x3 = mul(&x2, &b);
    let x5 = mul(&x3, &x2);
    add(
        &add(&b, &mul(&x3, &bf(c3))),
        &mul(&x5, &div(&bf(c5 * 120.0), &bf(120.0))),
    )
}

const SMALL: f64 = 9.313225746154785e-10; // 2^-30

/// exact reduction of x modulo 2, result in (-2, 2) with the sign of x.
fn rem2(x: f64) -> BigFloat {
    bf(x).rem(&bf(2.0))
}

fn sinpi_ref(x: f64) -> BigFloat {
    if !x.is_finite() {
        return nan();
    }
    let r = rem2(x);
    let r2 = mul(&r, &bf(2.0));
    if r.is_int() {
        return bf(0.0);
    }
    if r2.is_int() {
        // r = +-0.5 or +-1.5
        let v = round_to(&r, Fmt::F64);
        return bf(if v == 0.5 || v == -1.5 { 1.0 } else { -1.0 });
    }
    let a = mul(&r, &pi(P + 64));
    cc(|c| a.sin(P, RM, c))
}

fn cospi_ref(x: f64) -> BigFloat {
    if !x.is_finite() {
        return nan();
    }
    let r = rem2(x).abs();
    let r2 = mul(&r, &bf(2.0));
    if r.is_int() {
        return bf(if round_to(&r, Fmt::F64) == 0.0 { 1.0 } else { -1.0 });
    }
    if r2.is_int() {
        return bf(0.0);
    }
    let a = mul(&r, &pi(P + 64));
    cc(|c| a.cos(P, RM, c))
}

fn tanpi_ref(x: f64) -> BigFloat {
    if !x.is_finite() {
        return nan();
    }
    let r = rem2(x);
    let r2 = mul(&r, &bf(2.0));
    if r.is_int() {
        return bf(0.0);
    }
    if r2.is_int() {
        // tanpi(n + 0.5) is +inf for even n, -inf for odd n
        let v = round_to(&r, Fmt::F64);
        return inf(!(v == 0.5 || v == -1.5));
    }
    let a = mul(&r, &pi(P + 64));
    cc(|c| a.tan(P, RM, c))
}

fn atan2_ref(y: f64, x: f64) -> BigFloat {
    let (by, bx) = (bf(y), bf(x));
    if x == 0.0 {
        return sign_of(div(&pi(P), &bf(2.0)), y < 0.0);
    }
    let a = cc(|c| div(&by, &bx).atan(P, RM, c));
    if x > 0.0 {
        a
    } else if !y.is_sign_negative() {
        add(&a, &pi(P))
    } else {
        sub(&a, &pi(P))
    }
}

/// erf(x) at precision p for |x| < 10: 2/sqrt(pi) e^{-x^2} sum 2^n x^{2n+1} / (2n+1)!!.
fn erf_series(x: f64, p: usize) -> BigFloat {
    let b = bf(x).abs();
    let x2 = b.mul(&b, p, RM);
    let tx2 = x2.mul(&bf(2.0), p, RM);
    let mut term = b.clone();
    let mut sum = b.clone();
    let mut n = 0u32;
    loop {
        term = term.mul(&tx2, p, RM).div(&bf((2 * n + 3) as f64), p, RM);
        sum = sum.add(&term, p, RM);
        n += 1;
        if n as f64 > x * x + 2.0 {
            let te = term.exponent().unwrap_or(i32::MIN);
            let se = sum.exponent().unwrap();
            if term.is_zero() || te < se - p as i32 - 8 {
                break;
            }
        }
    }
    let e = cc(|c| x2.neg().exp(p, RM, c));
    let sp = cc(|c| c.pi(p, RM)).sqrt(p, RM);
    let k = bf(2.0).div(&sp, p, RM);
    let r = sum.mul(&e, p, RM).mul(&k, p, RM);
    if x < 0.0 {
        r.neg()
    } else {
        r
    }
}

fn erf_ref(x: f64) -> BigFloat {
    if x.abs() < SMALL {
        let s = odd_series(x, -1.0 / 3.0, 0.1);
        let sp = pi(P).sqrt(P, RM);
        return mul(&s, &div(&bf(2.0), &sp));
    }
    if x.abs() >= 10.0 {
        return bf(1.0f64.copysign(x));
    }
    erf_series(x, P)
}

fn erfc_ref(x: f64) -> BigFloat {
    if x >= 27.5 {
        return tiny(false);
    }
    if x <= -10.0 {
        return bf(2.0);
    }
    if x < 0.5 {
        return sub(&bf(1.0), &erf_ref(x));
    }
    let p = P + (1.45 * x * x) as usize + 64;
    bf(1.0).sub(&erf_series(x, p), p, RM)
}

/// Bernoulli numbers B2..B30 as (numerator, denominator).
const BERNOULLI: [(f64, f64); 15] = [
    (1.0, 6.0),
    (-1.0, 30.0),
    (1.0, 42.0),
    (-1.0, 30.0),
    (5.0, 66.0),
    (-691.0, 2730.0),
    (7.0, 6.0),
    (-3617.0, 510.0),
    (43867.0, 798.0),
    (-174611.0, 330.0),
    (854513.0, 138.0),
    (-236364091.0, 2730.0),
    (8553103.0, 6.0),
    (-23749461029.0, 870.0),
    (8615841276005.0, 14322.0),
];

const PG: usize = 320;

/// ln Gamma(x) for x > 0 (Stirling's series after shifting x to at least 40).
fn lngamma_pos(x: &BigFloat) -> BigFloat {
    let p = PG;
    let mut z = x.clone();
    let mut prod = bf(1.0);
    while lt(&z, &bf(40.0)) {
        prod = prod.mul(&z, p, RM);
        z = z.add(&bf(1.0), p, RM);
    }
    let lnz = cc(|c| z.ln(p, RM, c));
    let mut s = z.sub(&bf(0.5), p, RM).mul(&lnz, p, RM).sub(&z, p, RM);
    let two_pi = cc(|c| c.pi(p, RM)).mul(&bf(2.0), p, RM);
    let half_ln = cc(|c| two_pi.ln(p, RM, c)).div(&bf(2.0), p, RM);
    s = s.add(&half_ln, p, RM);
    let z2 = z.mul(&z, p, RM);
    let mut zp = z.clone(); // z^(2k-1)
    for (i, &(num, den)) in BERNOULLI.iter().enumerate() {
        let k = (i + 1) as f64;
        let c = bf(num).div(&bf(den * (2.0 * k) * (2.0 * k - 1.0)), p, RM);
        s = s.add(&c.div(&zp, p, RM), p, RM);
        zp = zp.mul(&z2, p, RM);
    }
    let lp = cc(|c| prod.ln(p, RM, c));
    s.sub(&lp, p, RM)
}

/// |sin(pi x)| and its sign, for non-integer x.
fn sinpi_big(x: f64) -> BigFloat {
    let r = rem2(x);
    let a = r.mul(&pi(PG + 64), PG, RM);
    cc(|c| a.sin(PG, RM, c))
}

fn lgamma_ref(x: f64) -> BigFloat {
    if x.is_nan() {
        return nan();
    }
    if x.is_infinite() || (x <= 0.0 && x == x.floor()) {
        return inf(false);
    }
    if x == 1.0 || x == 2.0 {
        return bf(0.0);
    }
    if x > 0.0 {
        return lngamma_pos(&bf(x));
    }
    // ln|Gamma(x)| = ln pi - ln|sin(pi x)| - ln Gamma(1 - x)
    let s = sinpi_big(x).abs();
    let l1 = cc(|c| c.pi(PG, RM).ln(PG, RM, c));
    let l2 = cc(|c| s.ln(PG, RM, c));
    let one_minus = bf(1.0).sub(&bf(x), PG, RM);
    l1.sub(&l2, PG, RM).sub(&lngamma_pos(&one_minus), PG, RM)
}

fn lgamma_sign(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if is_neg(&sinpi_big(x)) {
        -1
    } else {
        1
    }
}

fn tgamma_ref(x: f64) -> BigFloat {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return nan();
    }
    if x == 0.0 {
        return inf(x.is_sign_negative());
    }
    if x < 0.0 && x == x.floor() {
        return nan();
    }
    if x > 200.0 {
        return inf(false);
    }
    if x < -200.0 {
        return tiny(lgamma_sign(x) < 0);
    }
    let lg = lgamma_ref(x);
    let v = cc(|c| lg.exp(PG, RM, c));
    sign_of(v, lgamma_sign(x) < 0)
}

fn pow_ref(x: f64, y: f64) -> BigFloat {
    // finite x, y only
    let yi = y == y.floor();
    let odd = yi && y.abs() < 9007199254740992.0 && (y.abs() % 2.0) == 1.0;
    if x == 0.0 {
        let neg = odd && x.is_sign_negative();
        return if y < 0.0 { inf(neg) } else { sign_of(bf(0.0), neg) };
    }
    if x < 0.0 && !yi {
        return nan();
    }
    if y == 0.0 {
        return bf(1.0);
    }
    // |x|^y = e^(y ln|x|); |y ln x| > 16384 certainly over/underflows
    let lnx = cc(|c| bf(x.abs()).ln(P + 64, RM, c));
    let r = exp_like(lnx.mul(&bf(y), P + 64, RM));
    sign_of(r, odd && x < 0.0)
}

fn powr_ref(x: f64, y: f64) -> BigFloat {
    if x < 0.0 || (x == 0.0 && y == 0.0) || (x == 1.0 && y.is_infinite()) {
        return nan();
    }
    if x == 0.0 {
        return if y < 0.0 { inf(false) } else { bf(0.0) };
    }
    pow_ref(x, y)
}

fn rootn_ref(x: f64, n: i32) -> BigFloat {
    if n == 0 || (x < 0.0 && n % 2 == 0) {
        return nan();
    }
    if x == 0.0 {
        let neg = n % 2 != 0 && x.is_sign_negative();
        return if n < 0 { inf(neg) } else { sign_of(bf(0.0), neg) };
    }
    let inv = bf(1.0).div(&bf(n as f64), P + 64, RM);
    let lnx = cc(|c| bf(x.abs()).ln(P + 64, RM, c));
    let t = lnx.mul(&inv, P + 64, RM);
    sign_of(cc(|c| t.exp(P, RM, c)), x < 0.0)
}

fn hypot_ref(x: f64, y: f64) -> BigFloat {
    let s = bf(x).mul(&bf(x), PX, RM).add(&bf(y).mul(&bf(y), PX, RM), PX, RM);
    s.sqrt(P, RM)
}

fn exp_like(t: BigFloat) -> BigFloat {
    // e^t with over/underflow shortcut
    if t.exponent().unwrap_or(0) > 14 && !t.is_zero() {
        return if is_neg(&t) { tiny(false) } else { inf(false) };
    }
    cc(|c| t.exp(P, RM, c))
}

fn ln_of(x: f64) -> BigFloat {
    cc(|c| bf(x).ln(P + 64, RM, c))
}

fn log_ref(x: f64, base: f64) -> BigFloat {
    if x < 0.0 {
        return nan();
    }
    if x == 0.0 {
        return inf(true);
    }
    if x == 1.0 {
        return bf(0.0);
    }
    if base == 1.0 {
        return ln_of(x);
    }
    if base == 2.0 && x == pow2(crate::builtins::kernels::ilogb(x)) {
        return bf(crate::builtins::kernels::ilogb(x) as f64);
    }
    div(&ln_of(x), &ln_of(base))
}

/// Reference for a unary function by name, on finite or infinite inputs.
fn ref1(name: &str, x: f64) -> BigFloat {
    if x.is_nan() {
        return nan();
    }
    let b = bf(x);
    let small = x.abs() < SMALL;
    match name {
        "acos" | "acospi" => {
            if x.abs() > 1.0 {
                return nan();
            }
            let a = cc(|c| b.acos(P, RM, c));
            if name == "acospi" {
                div(&a, &pi(P))
            } else {
                a
            }
        }
        "asin" | "asinpi" => {
            if x.abs() > 1.0 {
                return nan();
            }
            let a = if small {
                odd_series(x, 1.0 / 6.0, 3.0 / 40.0)
            } else {
                cc(|c| b.asin(P, RM, c))
            };
            if name == "asinpi" {
                div(&a, &pi(P))
            } else {
                a
            }
        }
        "atan" | "atanpi" => {
            let a = if x.is_infinite() {
                sign_of(div(&pi(P), &bf(2.0)), x < 0.0)
            } else if small {
                odd_series(x, -1.0 / 3.0, 0.2)
            } else {
                cc(|c| b.atan(P, RM, c))
            };
            if name == "atanpi" {
                div(&a, &pi(P))
            } else {
                a
            }
        }
        "acosh" => {
            if x < 1.0 {
                nan()
            } else if x == 1.0 {
                bf(0.0)
            } else if x > 1e150 {
                add(&ln_of(x), &ln_of(2.0))
            } else {
                cc(|c| b.acosh(P, RM, c))
            }
        }
        "asinh" => {
            if small {
                odd_series(x, -1.0 / 6.0, 3.0 / 40.0)
            } else if x.abs() > 1e150 {
                sign_of(add(&ln_of(x.abs()), &ln_of(2.0)), x < 0.0)
            } else {
                cc(|c| b.asinh(P, RM, c))
            }
        }
        "atanh" => {
            if x.abs() > 1.0 {
                nan()
            } else if x.abs() == 1.0 {
                inf(x < 0.0)
            } else if small {
                odd_series(x, 1.0 / 3.0, 0.2)
            } else {
                // 0.5 * ln((1+x)/(1-x)), exact numerator and denominator
                let n = bf(1.0).add(&b, PX, RM);
                let d = bf(1.0).sub(&b, PX, RM);
                let l = cc(|c| n.div(&d, P + 64, RM).ln(P, RM, c));
                div(&l, &bf(2.0))
            }
        }
        "cbrt" => b.cbrt(P, RM),
        "sqrt" => {
            if x < 0.0 {
                nan()
            } else {
                b.sqrt(P, RM)
            }
        }
        "rsqrt" => {
            if x < 0.0 {
                nan()
            } else if x == 0.0 {
                inf(x.is_sign_negative())
            } else {
                bf(1.0).div(&b.sqrt(P + 64, RM), P, RM)
            }
        }
        "sin" => {
            if small {
                odd_series(x, -1.0 / 6.0, 1.0 / 120.0)
            } else {
                cc(|c| b.sin(P, RM, c))
            }
        }
        "cos" => cc(|c| b.cos(P, RM, c)),
        "tan" => {
            if small {
                odd_series(x, 1.0 / 3.0, 2.0 / 15.0)
            } else {
                cc(|c| b.tan(P, RM, c))
            }
        }
        "sinpi" => sinpi_ref(x),
        "cospi" => cospi_ref(x),
        "tanpi" => tanpi_ref(x),
        "sinh" => {
            if small {
                odd_series(x, 1.0 / 6.0, 1.0 / 120.0)
            } else if x.abs() > 1000.0 {
                inf(x < 0.0)
            } else {
                cc(|c| b.sinh(P, RM, c))
            }
        }
        "cosh" => {
            if x.abs() > 1000.0 {
                inf(false)
            } else {
                cc(|c| b.cosh(P, RM, c))
            }
        }
        "tanh" => {
            if small {
                odd_series(x, -1.0 / 3.0, 2.0 / 15.0)
            } else if x.abs() > 100.0 {
                bf(1.0f64.copysign(x))
            } else {
                cc(|c| b.tanh(P, RM, c))
            }
        }
        "exp" => exp_like(b),
        "exp2" => exp_like(mul(&b, &ln_of(2.0))),
        "exp10" => {
            if x == x.floor() && x.abs() <= 22.0 {
                let p = bf(10f64.powi(x.abs() as i32)); // exact
                return if x < 0.0 { div(&bf(1.0), &p) } else { p };
            }
            exp_like(b.mul(&ln_of(10.0), P + 64, RM))
        }
        "expm1" => {
            if x.abs() < SMALL {
                let x2 = mul(&b, &b);
                let x3 = mul(&x2, &b);
                let x4 = mul(&x2, &x2);
                add(
                    &add(&b, &div(&x2, &bf(2.0))),
                    &add(&div(&x3, &bf(6.0)), &div(&x4, &bf(24.0))),
                )
            } else if x > 1000.0 {
                inf(false)
            } else if x < -1000.0 {
                bf(-1.0)
            } else {
                let e = cc(|c| b.exp(P + 64, RM, c));
                sub(&e, &bf(1.0))
            }
        }
        "log" => log_ref(x, 1.0),
        "log2" => log_ref(x, 2.0),
        "log10" => log_ref(x, 10.0),
        "log1p" => {
            if x < -1.0 {
                nan()
            } else if x == -1.0 {
                inf(true)
            } else if x.abs() < SMALL {
                let x2 = mul(&b, &b);
                let x3 = mul(&x2, &b);
                let x4 = mul(&x2, &x2);
                sub(
                    &add(&b, &div(&x3, &bf(3.0))),
                    &add(&div(&x2, &bf(2.0)), &div(&x4, &bf(4.0))),
                )
            } else {
                cc(|c| bf(1.0).add(&b, PX, RM).ln(P, RM, c))
            }
        }
        "erf" => erf_ref(x),
        "erfc" => erfc_ref(x),
        "tgamma" => tgamma_ref(x),
        "lgamma" => lgamma_ref(x),
        "ceil" => b.ceil(),
        "floor" => b.floor(),
        "trunc" => b.int(),
        "round" => sign_of(bf(x.abs()).add(&bf(0.5), PX, RM).floor(), x < 0.0),
        "rint" => {
            let f = b.floor();
            let d = b.sub(&f, PX, RM);
            let c = d.cmp(&bf(0.5)).unwrap();
            if c > 0 || (c == 0 && !div(&f, &bf(2.0)).is_int()) {
                add(&f, &bf(1.0))
            } else {
                f
            }
        }
        "fabs" => b.abs(),
        "logb" => {
            if x == 0.0 {
                inf(true)
            } else if x.is_infinite() {
                inf(false)
            } else {
                bf(crate::builtins::kernels::ilogb(x) as f64)
            }
        }
        _ => panic!("no reference for {name}"),
    }
}

/// Reference for a binary function (finite arguments).
fn ref2(name: &str, x: f64, y: f64) -> BigFloat {
    match name {
        "atan2" => atan2_ref(x, y),
        "atan2pi" => div(&atan2_ref(x, y), &pi(P)),
        "hypot" => hypot_ref(x, y),
        "pow" => pow_ref(x, y),
        "powr" => powr_ref(x, y),
        "fdim" => {
            if x > y {
                bf(x).sub(&bf(y), P, RM)
            } else {
                bf(0.0)
            }
        }
        "fma" | "mad" => unreachable!(),
        "copysign" => bf(x.abs() * if y.is_sign_negative() { -1.0 } else { 1.0 }),
        "fmax" => bf(if x >= y { x } else { y }),
        "fmin" => bf(if x <= y { x } else { y }),
        "maxmag" => bf(if x.abs() > y.abs() {
            x
        } else if y.abs() > x.abs() {
            y
        } else if x >= y {
            x
        } else {
            y
        }),
        "minmag" => bf(if x.abs() < y.abs() {
            x
        } else if y.abs() < x.abs() {
            y
        } else if x <= y {
            x
        } else {
            y
        }),
        "divide" => bf(x).div(&bf(y), P, RM),
        _ => panic!("no reference for {name}"),
    }
}

// ---------------------------------------------------------------------------------------
// Inputs

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / 9007199254740992.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn any(&mut self, fmt: Fmt) -> f64 {
        loop {
            let v = match fmt {
                Fmt::F32 => f32::from_bits(self.next() as u32) as f64,
                Fmt::F64 => f64::from_bits(self.next()),
            };
            if v.is_finite() {
                return v;
            }
        }
    }
}

fn to_fmt(x: f64, fmt: Fmt) -> f64 {
    match fmt {
        Fmt::F32 => x as f32 as f64,
        Fmt::F64 => x,
    }
}

fn step(x: f64, k: i64, fmt: Fmt) -> f64 {
    match fmt {
        Fmt::F32 => {
            let mut v = x as f32;
            for _ in 0..k.abs() {
                v = libm::nextafterf(v, if k > 0 { f32::INFINITY } else { f32::NEG_INFINITY });
            }
            v as f64
        }
        Fmt::F64 => {
            let mut v = x;
            for _ in 0..k.abs() {
                v = libm::nextafter(v, if k > 0 { f64::INFINITY } else { f64::NEG_INFINITY });
            }
            v
        }
    }
}

/// How to draw one real argument.
#[derive(Clone, Copy)]
struct Dist {
    lo: f64,
    hi: f64,
    /// add integers, half-integers and quarter-integers and their neighbours
    pi_points: bool,
}

const WIDE: Dist = Dist {
    lo: -1e4,
    hi: 1e4,
    pi_points: false,
};

fn dist(lo: f64, hi: f64) -> Dist {
    Dist {
        lo,
        hi,
        pi_points: false,
    }
}

fn draw(rng: &mut Rng, d: Dist, fmt: Fmt) -> f64 {
    match rng.below(8) {
        0 | 1 => rng.any(fmt),
        2..=4 => to_fmt(d.lo + (d.hi - d.lo) * rng.unit(), fmt),
        5 => {
            // log-uniform magnitude within the range
            let m = d.lo.abs().max(d.hi.abs()).max(1e-300);
            let top = m.log2();
            let e = fmt.qmin() as f64 + (top - fmt.qmin() as f64) * rng.unit();
            let v = to_fmt(2f64.powf(e) * (1.0 + rng.unit()), fmt);
            let v = if d.lo < 0.0 && rng.below(2) == 0 { -v } else { v };
            v.clamp(to_fmt(d.lo, fmt), to_fmt(d.hi, fmt))
        }
        6 => {
            // near small integers, halves, quarters, or the range ends
            let base = if d.pi_points {
                (rng.below(64) as f64 - 32.0) / 4.0
            } else {
                match rng.below(4) {
                    0 => d.lo,
                    1 => d.hi,
                    2 => 0.0,
                    _ => (rng.below(17) as f64 - 8.0) / 2.0,
                }
            };
            step(to_fmt(base, fmt), rng.below(9) as i64 - 4, fmt)
        }
        _ => {
            if d.pi_points {
                // large values near integers / half integers
                let big = match fmt {
                    Fmt::F32 => (1u64 << rng.below(25)) as f64,
                    Fmt::F64 => (1u64 << rng.below(54)) as f64,
                };
                let base = to_fmt(big + rng.below(4) as f64 * 0.25 * (rng.below(2) as f64), fmt);
                let v = step(base, rng.below(5) as i64 - 2, fmt);
                if rng.below(2) == 0 {
                    -v
                } else {
                    v
                }
            } else {
                // subnormals and tiny values
                let v = match fmt {
                    Fmt::F32 => f32::from_bits(rng.next() as u32 & 0x00ff_ffff) as f64,
                    Fmt::F64 => f64::from_bits(rng.next() & 0x001f_ffff_ffff_ffff),
                };
                if rng.below(2) == 0 {
                    -v
                } else {
                    v
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cases

#[derive(Clone, Copy)]
enum Impl {
    U(extern "C" fn(f32) -> f32, extern "C" fn(f64) -> f64),
    B(extern "C" fn(f32, f32) -> f32, extern "C" fn(f64, f64) -> f64),
    T(extern "C" fn(f32, f32, f32) -> f32, extern "C" fn(f64, f64, f64) -> f64),
    I(extern "C" fn(f32, i32) -> f32, extern "C" fn(f64, i32) -> f64),
    /// sincos, lgamma_r and the other out-parameter functions are measured by custom code
    Custom,
}

#[derive(Clone, Copy)]
struct Case {
    name: &'static str,
    /// Table 5 full-profile bounds (f32, f64); `None` = implementation-defined
    bound: (Option<f64>, Option<f64>),
    imp: Impl,
    args: [Dist; 3],
    /// integer argument range for `I`
    ints: (i32, i32),
}

const CR: Option<f64> = Some(0.5);
const EXACT: Option<f64> = Some(0.0);

fn b(x: f64) -> Option<f64> {
    Some(x)
}

fn u(
    name: &'static str,
    bound: (Option<f64>, Option<f64>),
    f: extern "C" fn(f32) -> f32,
    g: extern "C" fn(f64) -> f64,
    d: Dist,
) -> Case {
    Case {
        name,
        bound,
        imp: Impl::U(f, g),
        args: [d, d, d],
        ints: (0, 0),
    }
}

fn bin(
    name: &'static str,
    bound: (Option<f64>, Option<f64>),
    f: extern "C" fn(f32, f32) -> f32,
    g: extern "C" fn(f64, f64) -> f64,
    d0: Dist,
    d1: Dist,
) -> Case {
    Case {
        name,
        bound,
        imp: Impl::B(f, g),
        args: [d0, d1, d1],
        ints: (0, 0),
    }
}

fn custom(name: &'static str, bound: (Option<f64>, Option<f64>), d: Dist) -> Case {
    Case {
        name,
        bound,
        imp: Impl::Custom,
        args: [d, d, d],
        ints: (0, 0),
    }
}

fn pi_dist(lo: f64, hi: f64) -> Dist {
    Dist {
        lo,
        hi,
        pi_points: true,
    }
}

fn cases() -> Vec<Case> {
    let same = |x: f64| (b(x), b(x));
    vec![
        u("acos", same(4.0), clift_acos_f32, clift_acos_f64, dist(-1.0, 1.0)),
        u("acosh", same(4.0), clift_acosh_f32, clift_acosh_f64, dist(1.0, 1e6)),
        u("acospi", same(5.0), clift_acospi_f32, clift_acospi_f64, dist(-1.0, 1.0)),
        u("asin", same(4.0), clift_asin_f32, clift_asin_f64, dist(-1.0, 1.0)),
        u("asinh", same(4.0), clift_asinh_f32, clift_asinh_f64, WIDE),
        u("asinpi", same(5.0), clift_asinpi_f32, clift_asinpi_f64, dist(-1.0, 1.0)),
        u("atan", same(5.0), clift_atan_f32, clift_atan_f64, WIDE),
        u("atanh", same(5.0), clift_atanh_f32, clift_atanh_f64, dist(-1.0, 1.0)),
        u("atanpi", same(5.0), clift_atanpi_f32, clift_atanpi_f64, WIDE),
        bin("atan2", same(6.0), clift_atan2_f32, clift_atan2_f64, WIDE, WIDE),
        bin("atan2pi", same(6.0), clift_atan2pi_f32, clift_atan2pi_f64, WIDE, WIDE),
        u("cbrt", same(2.0), clift_cbrt_f32, clift_cbrt_f64, WIDE),
        u(
            "ceil",
            (EXACT, EXACT),
            clift_ceil_f32,
            clift_ceil_f64,
            pi_dist(-100.0, 100.0),
        ),
        bin(
            "copysign",
            (EXACT, EXACT),
            clift_copysign_f32,
            clift_copysign_f64,
            WIDE,
            WIDE,
        ),
        u("cos", same(4.0), clift_cos_f32, clift_cos_f64, dist(-100.0, 100.0)),
        u("cosh", same(4.0), clift_cosh_f32, clift_cosh_f64, dist(-720.0, 720.0)),
        u(
            "cospi",
            same(4.0),
            clift_cospi_f32,
            clift_cospi_f64,
            pi_dist(-10.0, 10.0),
        ),
        u("erf", same(16.0), clift_erf_f32, clift_erf_f64, dist(-7.0, 7.0)),
        u("erfc", same(16.0), clift_erfc_f32, clift_erfc_f64, dist(-7.0, 28.0)),
        u("exp", same(3.0), clift_exp_f32, clift_exp_f64, dist(-745.0, 710.0)),
        u("exp2", same(3.0), clift_exp2_f32, clift_exp2_f64, dist(-1075.0, 1024.0)),
        u(
            "exp10",
            same(3.0),
            clift_exp10_f32,
            clift_exp10_f64,
            dist(-324.0, 309.0),
        ),
        u("expm1", same(3.0), clift_expm1_f32, clift_expm1_f64, dist(-40.0, 710.0)),
        u("fabs", (EXACT, EXACT), clift_fabs_f32, clift_fabs_f64, WIDE),
        bin("fdim", (CR, CR), clift_fdim_f32, clift_fdim_f64, WIDE, WIDE),
        u(
            "floor",
            (EXACT, EXACT),
            clift_floor_f32,
            clift_floor_f64,
            pi_dist(-100.0, 100.0),
        ),
        Case {
            name: "fma",
            bound: (CR, CR),
            imp: Impl::T(clift_fma_f32, clift_fma_f64),
            args: [WIDE; 3],
            ints: (0, 0),
        },
        bin("fmax", (EXACT, EXACT), clift_fmax_f32, clift_fmax_f64, WIDE, WIDE),
        bin("fmin", (EXACT, EXACT), clift_fmin_f32, clift_fmin_f64, WIDE, WIDE),
        custom("fmod", (EXACT, EXACT), WIDE),
        custom("fract", (CR, CR), pi_dist(-100.0, 100.0)),
        custom("frexp", (EXACT, EXACT), WIDE),
        bin("hypot", same(4.0), clift_hypot_f32, clift_hypot_f64, WIDE, WIDE),
        custom("ilogb", (EXACT, EXACT), WIDE),
        Case {
            name: "ldexp",
            bound: (CR, CR),
            imp: Impl::I(clift_ldexp_f32, clift_ldexp_f64),
            args: [WIDE; 3],
            ints: (-2200, 2200),
        },
        u(
            "lgamma",
            (None, None),
            clift_lgamma_f32,
            clift_lgamma_f64,
            pi_dist(-30.0, 200.0),
        ),
        custom("lgamma_r", (None, None), pi_dist(-30.0, 200.0)),
        u("log", same(3.0), clift_log_f32, clift_log_f64, dist(0.0, 1e6)),
        u("log2", same(3.0), clift_log2_f32, clift_log2_f64, dist(0.0, 1e6)),
        u("log10", same(3.0), clift_log10_f32, clift_log10_f64, dist(0.0, 1e6)),
        u("log1p", same(2.0), clift_log1p_f32, clift_log1p_f64, dist(-1.0, 1e6)),
        u("logb", (EXACT, EXACT), clift_logb_f32, clift_logb_f64, WIDE),
        Case {
            name: "mad",
            bound: (CR, CR),
            imp: Impl::T(clift_mad_f32, clift_mad_f64),
            args: [WIDE; 3],
            ints: (0, 0),
        },
        bin("maxmag", (EXACT, EXACT), clift_maxmag_f32, clift_maxmag_f64, WIDE, WIDE),
        bin("minmag", (EXACT, EXACT), clift_minmag_f32, clift_minmag_f64, WIDE, WIDE),
        custom("modf", (EXACT, EXACT), pi_dist(-100.0, 100.0)),
        custom("nextafter", (EXACT, EXACT), WIDE),
        bin(
            "pow",
            same(16.0),
            clift_pow_f32,
            clift_pow_f64,
            dist(-20.0, 100.0),
            dist(-40.0, 40.0),
        ),
        Case {
            name: "pown",
            bound: same(16.0),
            imp: Impl::I(clift_pown_f32, clift_pown_f64),
            args: [dist(-20.0, 20.0); 3],
            ints: (-300, 300),
        },
        bin(
            "powr",
            same(16.0),
            clift_powr_f32,
            clift_powr_f64,
            dist(0.0, 100.0),
            dist(-40.0, 40.0),
        ),
        custom("remainder", (EXACT, EXACT), WIDE),
        custom("remquo", (EXACT, EXACT), WIDE),
        u(
            "rint",
            (EXACT, EXACT),
            clift_rint_f32,
            clift_rint_f64,
            pi_dist(-100.0, 100.0),
        ),
        Case {
            name: "rootn",
            bound: same(16.0),
            imp: Impl::I(clift_rootn_f32, clift_rootn_f64),
            args: [WIDE; 3],
            ints: (-40, 40),
        },
        u(
            "round",
            (EXACT, EXACT),
            clift_round_f32,
            clift_round_f64,
            pi_dist(-100.0, 100.0),
        ),
        u("rsqrt", same(2.0), clift_rsqrt_f32, clift_rsqrt_f64, dist(0.0, 1e6)),
        u("sin", same(4.0), clift_sin_f32, clift_sin_f64, dist(-100.0, 100.0)),
        custom("sincos", same(4.0), dist(-100.0, 100.0)),
        u("sinh", same(4.0), clift_sinh_f32, clift_sinh_f64, dist(-720.0, 720.0)),
        u(
            "sinpi",
            same(4.0),
            clift_sinpi_f32,
            clift_sinpi_f64,
            pi_dist(-10.0, 10.0),
        ),
        u("sqrt", (b(3.0), CR), clift_sqrt_f32, clift_sqrt_f64, dist(0.0, 1e6)),
        u("tan", same(5.0), clift_tan_f32, clift_tan_f64, dist(-100.0, 100.0)),
        u("tanh", same(5.0), clift_tanh_f32, clift_tanh_f64, dist(-20.0, 20.0)),
        u(
            "tanpi",
            same(6.0),
            clift_tanpi_f32,
            clift_tanpi_f64,
            pi_dist(-10.0, 10.0),
        ),
        u(
            "tgamma",
            same(16.0),
            clift_tgamma_f32,
            clift_tgamma_f64,
            pi_dist(-190.0, 190.0),
        ),
        u(
            "trunc",
            (EXACT, EXACT),
            clift_trunc_f32,
            clift_trunc_f64,
            pi_dist(-100.0, 100.0),
        ),
    ]
}

/// half_* and native_* functions: (name, bound for half_, f32 implementation, reference).
fn half_cases() -> Vec<Case> {
    let h = (b(8192.0), None);
    extern "C" fn nop(x: f64) -> f64 {
        x
    }
    extern "C" fn nop2(x: f64, _y: f64) -> f64 {
        x
    }
    vec![
        u("cos", h, clift_half_cos_f32, nop, dist(-65536.0, 65536.0)),
        bin("divide", h, clift_half_divide_f32, nop2, WIDE, WIDE),
        u("exp", h, clift_half_exp_f32, nop, dist(-104.0, 89.0)),
        u("exp2", h, clift_half_exp2_f32, nop, dist(-150.0, 128.0)),
        u("exp10", h, clift_half_exp10_f32, nop, dist(-45.0, 39.0)),
        u("log", h, clift_half_log_f32, nop, dist(0.0, 1e30)),
        u("log2", h, clift_half_log2_f32, nop, dist(0.0, 1e30)),
        u("log10", h, clift_half_log10_f32, nop, dist(0.0, 1e30)),
        bin(
            "powr",
            h,
            clift_half_powr_f32,
            nop2,
            dist(0.0, 100.0),
            dist(-10.0, 10.0),
        ),
        u("recip", h, clift_half_recip_f32, nop, WIDE),
        u("rsqrt", h, clift_half_rsqrt_f32, nop, dist(0.0, 1e30)),
        u("sin", h, clift_half_sin_f32, nop, dist(-65536.0, 65536.0)),
        u("sqrt", h, clift_half_sqrt_f32, nop, dist(0.0, 1e30)),
        u("tan", h, clift_half_tan_f32, nop, dist(-65536.0, 65536.0)),
    ]
}

fn samples() -> usize {
    if cfg!(debug_assertions) {
        120
    } else {
        2500
    }
}

fn seed(name: &str, fmt: Fmt) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ (fmt as u64);
    for c in name.bytes() {
        h = (h ^ c as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

struct Stat {
    max: f64,
    worst: Vec<f64>,
}

impl Stat {
    fn new() -> Self {
        Stat {
            max: 0.0,
            worst: vec![],
        }
    }
    fn add(&mut self, e: f64, args: &[f64]) {
        if e > self.max || (e.is_nan() && !self.max.is_nan()) {
            self.max = e;
            self.worst = args.to_vec();
        }
    }
}

/// Measures the maximum ULP error of `case` in format `fmt` over `n` sampled inputs.
fn measure(case: &Case, fmt: Fmt, n: usize) -> Stat {
    let mut rng = Rng(seed(case.name, fmt));
    let mut st = Stat::new();
    for _ in 0..n {
        let a = draw(&mut rng, case.args[0], fmt);
        let bb = draw(&mut rng, case.args[1], fmt);
        let c = draw(&mut rng, case.args[2], fmt);
        match case.imp {
            Impl::U(f, g) => {
                let got = match fmt {
                    Fmt::F32 => f(a as f32) as f64,
                    Fmt::F64 => g(a),
                };
                st.add(ulp_err(got, &ref1(case.name, a), fmt), &[a]);
            }
            Impl::B(f, g) => {
                let got = match fmt {
                    Fmt::F32 => f(a as f32, bb as f32) as f64,
                    Fmt::F64 => g(a, bb),
                };
                st.add(ulp_err(got, &ref2(case.name, a, bb), fmt), &[a, bb]);
            }
            Impl::T(f, g) => {
                let got = match fmt {
                    Fmt::F32 => f(a as f32, bb as f32, c as f32) as f64,
                    Fmt::F64 => g(a, bb, c),
                };
                let r = bf(a).mul(&bf(bb), PX, RM).add(&bf(c), PX, RM);
                st.add(ulp_err(got, &r, fmt), &[a, bb, c]);
            }
            Impl::I(f, g) => {
                let (lo, hi) = case.ints;
                let k = match rng.below(4) {
                    0 => rng.next() as i32,
                    _ => lo + rng.below((hi - lo + 1) as u64) as i32,
                };
                let got = match fmt {
                    Fmt::F32 => f(a as f32, k) as f64,
                    Fmt::F64 => g(a, k),
                };
                let r = match case.name {
                    "ldexp" => {
                        let mut r = bf(a);
                        if a != 0.0 {
                            let e = r.exponent().unwrap() as i64 + k as i64;
                            if e > 5000 {
                                r = inf(a < 0.0);
                            } else if e < -5000 {
                                r = tiny(a < 0.0);
                            } else {
                                r.set_exponent(e as i32);
                            }
                        }
                        r
                    }
                    "pown" => {
                        if k == 0 {
                            bf(1.0)
                        } else {
                            pow_ref(a, k as f64)
                        }
                    }
                    "rootn" => rootn_ref(a, k),
                    _ => unreachable!(),
                };
                st.add(ulp_err(got, &r, fmt), &[a, k as f64]);
            }
            Impl::Custom => measure_custom(case.name, fmt, a, bb, &mut st),
        }
    }
    st
}

/// `match fmt { F32 => a, F64 => b }` written like a call with two closures.
macro_rules! f32_or_64 {
    ($fmt:expr, || $a:expr, || $b:expr $(,)?) => {
        match $fmt {
            Fmt::F32 => $a,
            Fmt::F64 => $b,
        }
    };
}

/// Checks that r = x - k*y exactly with |r| < |y| (fmod) or |r| <= |y|/2 with ties to even
/// (remainder); returns the quotient k. `None` if the identity fails.
fn check_rem(x: f64, y: f64, r: f64, nearest: bool) -> Option<BigFloat> {
    let pk = 2400;
    let diff = bf(x).sub(&bf(r), PX, RM);
    let k = diff.div(&bf(y), pk, RM);
    if !k.is_int() || k.mul(&bf(y), pk, RM).cmp(&diff) != Some(0) {
        return None;
    }
    if nearest {
        let c = bf(r.abs()).mul(&bf(2.0), P, RM).cmp(&bf(y.abs())).unwrap();
        if c > 0 || (c == 0 && !k.div(&bf(2.0), pk, RM).is_int()) {
            return None;
        }
    } else if r.abs() >= y.abs() || (r != 0.0 && r.is_sign_negative() != x.is_sign_negative()) {
        return None;
    }
    if r == 0.0 && r.is_sign_negative() != x.is_sign_negative() {
        return None;
    }
    Some(k)
}

fn measure_custom(name: &str, fmt: Fmt, x: f64, y: f64, st: &mut Stat) {
    let bad = f64::INFINITY;
    match name {
        "fmod" | "remainder" | "remquo" => {
            if y == 0.0 {
                return;
            }
            let mut q = 0i32;
            let r = match name {
                "fmod" => f32_or_64!(fmt, || clift_fmod_f32(x as f32, y as f32) as f64, || clift_fmod_f64(
                    x, y
                ),),
                "remainder" => f32_or_64!(fmt, || clift_remainder_f32(x as f32, y as f32) as f64, || {
                    clift_remainder_f64(x, y)
                },),
                _ => unsafe {
                    f32_or_64!(fmt, || clift_remquo_f32(x as f32, y as f32, &mut q) as f64, || {
                        clift_remquo_f64(x, y, &mut q)
                    },)
                },
            };
            let k = check_rem(x, y, r, name != "fmod");
            let mut ok = k.is_some();
            if let (Some(k), "remquo") = (k, name) {
                // low 7 bits of |k| with the sign of x/y
                let ak = k.abs();
                let m = ak.sub(
                    &ak.div(&bf(128.0), 2400, RM).floor().mul(&bf(128.0), 2400, RM),
                    2400,
                    RM,
                );
                let m = round_to(&m, Fmt::F64) as i32;
                let neg = (x < 0.0) != (y < 0.0);
                ok &= (q.abs() & 127) == m && (q == 0 || (q < 0) == neg);
            }
            st.add(if ok { 0.0 } else { bad }, &[x, y]);
        }
        "fract" => {
            let mut ip = 0.0f64;
            let fr = unsafe {
                f32_or_64!(
                    fmt,
                    || {
                        let mut i = 0.0f32;
                        let v = clift_fract_f32(x as f32, &mut i) as f64;
                        ip = i as f64;
                        v
                    },
                    || clift_fract_f64(x, &mut ip),
                )
            };
            let fl = bf(x).floor();
            let exact = bf(x).sub(&fl, PX, RM);
            let cap = f32_or_64!(fmt, || f32::from_bits(0x3f7f_ffff) as f64, || f64::from_bits(
                0x3fef_ffff_ffff_ffff
            ),);
            let want = round_to(&exact, fmt).min(cap);
            // fract is defined as fmin(x - floor(x), C): measure the rounding of x - floor(x)
            let e = if fr == want {
                ulp_err(round_to(&exact, fmt), &exact, fmt)
            } else {
                bad
            };
            st.add(e.max(ulp_err(ip, &fl, fmt)), &[x]);
        }
        "modf" => {
            let mut ip = 0.0f64;
            let fr = unsafe {
                f32_or_64!(
                    fmt,
                    || {
                        let mut i = 0.0f32;
                        let v = clift_modf_f32(x as f32, &mut i) as f64;
                        ip = i as f64;
                        v
                    },
                    || clift_modf_f64(x, &mut ip),
                )
            };
            let t = bf(x).int();
            let e = ulp_err(fr, &bf(x).sub(&t, PX, RM), fmt).max(ulp_err(ip, &t, fmt));
            let sign_ok = fr.is_sign_negative() == x.is_sign_negative();
            st.add(if sign_ok { e } else { bad }, &[x]);
        }
        "frexp" => {
            let mut e = 0i32;
            let m = unsafe {
                f32_or_64!(fmt, || clift_frexp_f32(x as f32, &mut e) as f64, || clift_frexp_f64(
                    x, &mut e
                ),)
            };
            let ok = if x == 0.0 {
                m == x && e == 0
            } else {
                let ok_range = (0.5..1.0).contains(&m.abs());
                let mut back = bf(m);
                back.set_exponent(back.exponent().unwrap() + e);
                ok_range && back.cmp(&bf(x)) == Some(0)
            };
            st.add(if ok { 0.0 } else { bad }, &[x]);
        }
        "ilogb" => {
            let got = f32_or_64!(fmt, || clift_ilogb_f32(x as f32), || clift_ilogb_f64(x));
            let ok = if x == 0.0 {
                got == i32::MIN
            } else {
                let ax = x.abs();
                let lo = bf(1.0);
                let mut lo2 = lo.clone();
                lo2.set_exponent(got + 1); // 2^got
                let mut hi = lo;
                hi.set_exponent(got + 2); // 2^(got+1)
                lo2.cmp(&bf(ax)).unwrap() <= 0 && bf(ax).cmp(&hi).unwrap() < 0
            };
            st.add(if ok { 0.0 } else { bad }, &[x]);
        }
        "nextafter" => {
            let got = f32_or_64!(fmt, || clift_nextafter_f32(x as f32, y as f32) as f64, || {
                clift_nextafter_f64(x, y)
            },);
            let want = if x == y { y } else { next_bits(x, y > x, fmt) };
            let ok = got.to_bits() == want.to_bits();
            st.add(if ok { 0.0 } else { bad }, &[x, y]);
        }
        "sincos" => {
            let mut cv = 0.0f64;
            let s = unsafe {
                f32_or_64!(
                    fmt,
                    || {
                        let mut c = 0.0f32;
                        let s = clift_sincos_f32(x as f32, &mut c) as f64;
                        cv = c as f64;
                        s
                    },
                    || clift_sincos_f64(x, &mut cv),
                )
            };
            let e = ulp_err(s, &ref1("sin", x), fmt).max(ulp_err(cv, &ref1("cos", x), fmt));
            st.add(e, &[x]);
        }
        "lgamma_r" => {
            let mut sg = 0i32;
            let v = unsafe {
                f32_or_64!(fmt, || clift_lgamma_r_f32(x as f32, &mut sg) as f64, || {
                    clift_lgamma_r_f64(x, &mut sg)
                },)
            };
            let e = ulp_err(v, &lgamma_ref(x), fmt);
            let want_sign = if x <= 0.0 && x == x.floor() { 0 } else { lgamma_sign(x) };
            st.add(if sg == want_sign { e } else { bad }, &[x]);
        }
        _ => panic!("no custom measure for {name}"),
    }
}

/// The neighbour of finite `x` towards +inf (`up`) or -inf, by bit manipulation.
fn next_bits(x: f64, up: bool, fmt: Fmt) -> f64 {
    match fmt {
        Fmt::F32 => {
            let x = x as f32;
            if x == 0.0 {
                let d = f32::from_bits(1);
                return if up { d as f64 } else { -d as f64 };
            }
            let b = x.to_bits();
            let away = up == (x > 0.0);
            f32::from_bits(if away { b + 1 } else { b - 1 }) as f64
        }
        Fmt::F64 => {
            if x == 0.0 {
                let d = f64::from_bits(1);
                return if up { d } else { -d };
            }
            let b = x.to_bits();
            let away = up == (x > 0.0);
            f64::from_bits(if away { b + 1 } else { b - 1 })
        }
    }
}

fn run_case(name: &str, fmt: Fmt) {
    let case = cases().into_iter().find(|c| c.name == name).unwrap();
    let bound = match fmt {
        Fmt::F32 => case.bound.0,
        Fmt::F64 => case.bound.1,
    };
    let st = measure(&case, fmt, samples());
    eprintln!("{name} {fmt:?}: max {:.3} ulp at {:?}", st.max, st.worst);
    match bound {
        Some(bnd) => assert!(
            st.max <= bnd,
            "{name} {fmt:?}: {} ulp > {bnd} at {:?}",
            st.max,
            st.worst
        ),
        // implementation-defined (lgamma): only NaN/infinity mistakes fail
        None => assert!(st.max.is_finite(), "{name} {fmt:?}: {} ulp at {:?}", st.max, st.worst),
    }
}

macro_rules! ulp_tests {
    ($($name:ident),* $(,)?) => {$(
        #[allow(non_snake_case)]
        mod $name {
            #[test]
            fn f32() {
                super::run_case(stringify!($name), super::Fmt::F32);
            }
            #[test]
            fn f64() {
                super::run_case(stringify!($name), super::Fmt::F64);
            }
        }
    )*};
}

mod ulp {
    use super::*;
    ulp_tests!(
        acos, acosh, acospi, asin, asinh, asinpi, atan, atanh, atanpi, atan2, atan2pi, cbrt, ceil, copysign, cos, cosh,
        cospi, erf, erfc, exp, exp2, exp10, expm1, fabs, fdim, floor, fma, fmax, fmin, fmod, fract, frexp, hypot,
        ilogb, ldexp, lgamma, lgamma_r, log, log2, log10, log1p, logb, mad, maxmag, minmag, modf, nextafter, pow, pown,
        powr, remainder, remquo, rint, rootn, round, rsqrt, sin, sincos, sinh, sinpi, sqrt, tan, tanh, tanpi, tgamma,
        trunc,
    );
}

fn half_ref(name: &str, a: f64, b: f64) -> BigFloat {
    match name {
        "divide" => ref2("divide", a, b),
        "powr" => powr_ref(a, b),
        "recip" => {
            if a == 0.0 {
                inf(a.is_sign_negative())
            } else {
                bf(1.0).div(&bf(a), P, RM)
            }
        }
        _ => ref1(name, a),
    }
}

fn measure_half(case: &Case) -> Stat {
    let mut rng = Rng(seed(case.name, Fmt::F32) ^ 0x5555);
    let mut st = Stat::new();
    for _ in 0..samples() / 2 {
        let a = draw(&mut rng, case.args[0], Fmt::F32);
        let b = draw(&mut rng, case.args[1], Fmt::F32);
        let got = match case.imp {
            Impl::U(f, _) => f(a as f32) as f64,
            Impl::B(f, _) => f(a as f32, b as f32) as f64,
            _ => unreachable!(),
        };
        st.add(ulp_err(got, &half_ref(case.name, a, b), Fmt::F32), &[a, b]);
    }
    st
}

#[test]
fn half_functions() {
    for case in half_cases() {
        let st = measure_half(&case);
        assert!(st.max <= 8192.0, "half_{}: {} ulp at {:?}", case.name, st.max, st.worst);
    }
}

/// Prints the markdown table of docs/math.md.
#[test]
#[ignore]
fn math_table() {
    let n = samples() * 4;
    println!("| Function | float bound | float max measured | double bound | double max measured |");
    println!("|---|---|---|---|---|");
    let fmt_bound = |b: Option<f64>| match b {
        None => "impl.-defined".to_string(),
        Some(0.0) => "0 (exact)".to_string(),
        Some(0.5) => "correctly rounded".to_string(),
        Some(x) => format!("{x}"),
    };
    for case in cases() {
        let s32 = measure(&case, Fmt::F32, n);
        let s64 = measure(&case, Fmt::F64, n);
        println!(
            "| {} | {} | {:.3} | {} | {:.3} |",
            case.name,
            fmt_bound(case.bound.0),
            s32.max,
            fmt_bound(case.bound.1),
            s64.max
        );
    }
    for case in half_cases() {
        let s = measure_half(&case);
        println!("| half_{} | 8192 | {:.3} | - | - |", case.name, s.max);
        println!("| native_{} | impl.-defined | {:.3} | - | - |", case.name, s.max);
    }
}

// ---------------------------------------------------------------------------------------
// Self-checks of the reference

#[test]
fn reference_self_check() {
    assert_eq!(round_to(&bf(1.0), Fmt::F64), 1.0);
    assert_eq!(round_to(&bf(0.1), Fmt::F64), 0.1);
    assert_eq!(round_to(&bf(0.1), Fmt::F32), 0.1f32 as f64);
    assert_eq!(round_to(&bf(5e-324), Fmt::F64), 5e-324);
    assert_eq!(round_to(&bf(1e-45), Fmt::F32), f32::from_bits(1) as f64);
    assert_eq!(round_to(&bf(f64::MAX), Fmt::F32), f64::INFINITY);
    // ties to even at the subnormal boundary
    assert_eq!(round_to(&bf(2.5 * 5e-324), Fmt::F64), 2.0 * 5e-324);
    assert_eq!(round_to(&bf(3.5 * 5e-324), Fmt::F64), 4.0 * 5e-324);
    assert_eq!(ulp_err(1.0, &bf(1.0 + f64::EPSILON), Fmt::F64), 1.0);
    // constants
    let k = &super::kernels::PI_HI;
    let pi_dd = bf(*k).add(&bf(super::kernels::PI_LO), PX, RM);
    assert!(ulp_err(0.0, &sub(&pi_dd, &pi(P)), Fmt::F64) < 1e300);
    assert!(sub(&pi_dd, &pi(P)).abs().exponent().unwrap() < -104);
    let ip = bf(super::kernels::INV_PI_HI).add(&bf(super::kernels::INV_PI_LO), PX, RM);
    assert!(sub(&ip, &div(&bf(1.0), &pi(P))).abs().exponent().unwrap() < -106);
    let l10 = bf(super::kernels::LN10_HI).add(&bf(super::kernels::LN10_LO), PX, RM);
    assert!(sub(&l10, &ln_of(10.0)).abs().exponent().unwrap() < -104);
    // known values
    assert_eq!(round_to(&ref1("sin", 1e22), Fmt::F64), -0.8522008497671888);
    assert_eq!(round_to(&ref1("tgamma", 0.5), Fmt::F64), 1.772453850905516); // sqrt(pi)
    assert_eq!(round_to(&ref1("tgamma", 10.0), Fmt::F64), 362880.0);
    assert_eq!(round_to(&ref1("tgamma", -0.5), Fmt::F64), -2.0 * 1.772453850905516);
    assert_eq!(round_to(&ref1("lgamma", 3.0), Fmt::F64), std::f64::consts::LN_2);
    assert_eq!(round_to(&ref1("erf", 1.0), Fmt::F64), 0.8427007929497149);
    assert_eq!(round_to(&ref1("erfc", 1.0), Fmt::F64), 0.15729920705028513);
    assert_eq!(round_to(&ref1("erfc", 10.0), Fmt::F64), 2.088487583762545e-45);
    assert_eq!(round_to(&ref1("exp10", 2.5), Fmt::F64), 316.22776601683796);
}

// ---------------------------------------------------------------------------------------
// Section 6.7 edge cases (and the C99 F.9 ones), for both f32 and f64.

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

fn same(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

/// Calls a unary function for both types and checks the exact result.
macro_rules! e1 {
    ($f32:ident, $f64:ident, $x:expr, $want:expr) => {{
        let (x, want): (f64, f64) = ($x, $want);
        let g32 = $f32(x as f32) as f64;
        let g64 = $f64(x);
        assert!(same(g32, want), "{}({x:e}) = {g32:e}, want {want:e}", stringify!($f32));
        assert!(same(g64, want), "{}({x:e}) = {g64:e}, want {want:e}", stringify!($f64));
    }};
}

macro_rules! e2 {
    ($f32:ident, $f64:ident, $x:expr, $y:expr, $want:expr) => {{
        let (x, y, want): (f64, f64, f64) = ($x, $y, $want);
        let g32 = $f32(x as f32, y as f32) as f64;
        let g64 = $f64(x, y);
        assert!(
            same(g32, want),
            "{}({x:e}, {y:e}) = {g32:e}, want {want:e}",
            stringify!($f32)
        );
        assert!(
            same(g64, want),
            "{}({x:e}, {y:e}) = {g64:e}, want {want:e}",
            stringify!($f64)
        );
    }};
}

macro_rules! ei {
    ($f32:ident, $f64:ident, $x:expr, $n:expr, $want:expr) => {{
        let (x, n, want): (f64, i32, f64) = ($x, $n, $want);
        let g32 = $f32(x as f32, n) as f64;
        let g64 = $f64(x, n);
        assert!(
            same(g32, want),
            "{}({x:e}, {n}) = {g32:e}, want {want:e}",
            stringify!($f32)
        );
        assert!(
            same(g64, want),
            "{}({x:e}, {n}) = {g64:e}, want {want:e}",
            stringify!($f64)
        );
    }};
}

#[test]
fn edge_pi_family() {
    e1!(clift_acospi_f32, clift_acospi_f64, 1.0, 0.0);
    e1!(clift_acospi_f32, clift_acospi_f64, -1.0, 1.0);
    e1!(clift_acospi_f32, clift_acospi_f64, 1.5, NAN);
    e1!(clift_acospi_f32, clift_acospi_f64, -1.5, NAN);
    e1!(clift_asinpi_f32, clift_asinpi_f64, 0.0, 0.0);
    e1!(clift_asinpi_f32, clift_asinpi_f64, -0.0, -0.0);
    e1!(clift_asinpi_f32, clift_asinpi_f64, 1.5, NAN);
    e1!(clift_asinpi_f32, clift_asinpi_f64, -INF, NAN);
    e1!(clift_atanpi_f32, clift_atanpi_f64, 0.0, 0.0);
    e1!(clift_atanpi_f32, clift_atanpi_f64, -0.0, -0.0);
    e1!(clift_atanpi_f32, clift_atanpi_f64, INF, 0.5);
    e1!(clift_atanpi_f32, clift_atanpi_f64, -INF, -0.5);
    for s in [1.0f64, -1.0] {
        let z = 0.0 * s;
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, z, -0.0, s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, z, 0.0, z);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, z, -3.0, s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, z, 3.0, z);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, 2.0 * s, 0.0, 0.5 * s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, 2.0 * s, -0.0, 0.5 * s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, 2.0 * s, -INF, s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, 2.0 * s, INF, z);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, INF * s, 5.0, 0.5 * s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, INF * s, -5.0, 0.5 * s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, INF * s, -INF, 0.75 * s);
        e2!(clift_atan2pi_f32, clift_atan2pi_f64, INF * s, INF, 0.25 * s);
    }
    e2!(clift_atan2pi_f32, clift_atan2pi_f64, NAN, 1.0, NAN);
    e2!(clift_atan2pi_f32, clift_atan2pi_f64, 1.0, NAN, NAN);

    e1!(clift_cospi_f32, clift_cospi_f64, 0.0, 1.0);
    e1!(clift_cospi_f32, clift_cospi_f64, -0.0, 1.0);
    e1!(clift_cospi_f32, clift_cospi_f64, INF, NAN);
    e1!(clift_cospi_f32, clift_cospi_f64, -INF, NAN);
    e1!(clift_cospi_f32, clift_cospi_f64, NAN, NAN);
    e1!(clift_sinpi_f32, clift_sinpi_f64, 0.0, 0.0);
    e1!(clift_sinpi_f32, clift_sinpi_f64, -0.0, -0.0);
    e1!(clift_sinpi_f32, clift_sinpi_f64, INF, NAN);
    e1!(clift_sinpi_f32, clift_sinpi_f64, -INF, NAN);
    e1!(clift_tanpi_f32, clift_tanpi_f64, 0.0, 0.0);
    e1!(clift_tanpi_f32, clift_tanpi_f64, -0.0, -0.0);
    e1!(clift_tanpi_f32, clift_tanpi_f64, INF, NAN);
    e1!(clift_tanpi_f32, clift_tanpi_f64, -INF, NAN);
    let mut ints: Vec<f64> = (-9..=9).map(|n| n as f64).collect();
    ints.extend([
        8388607.0,
        8388608.0,
        16777216.0,
        1e10,
        1e10 + 1.0,
        4503599627370495.0,
        9007199254740992.0,
        1e300,
    ]);
    for &n in &ints {
        for n in [n, -n] {
            let n32 = n as f32 as f64;
            let even = |n: f64| n.abs() >= 9007199254740992.0 || (n % 2.0) == 0.0;
            for (x, g32) in [(n32, true), (n, false)] {
                if x.is_infinite() {
                    continue;
                }
                let (s, t) = if g32 {
                    (clift_sinpi_f32(x as f32) as f64, clift_tanpi_f32(x as f32) as f64)
                } else {
                    (clift_sinpi_f64(x), clift_tanpi_f64(x))
                };
                if x != 0.0 {
                    assert!(same(s, 0.0f64.copysign(x)), "sinpi({x}) = {s}, g32 {g32}");
                }
                let tw = if even(x) {
                    0.0f64.copysign(x)
                } else {
                    0.0f64.copysign(-x)
                };
                assert!(same(t, tw), "tanpi({x}) = {t}, want {tw}, g32 {g32}");
                let c = if g32 {
                    clift_cospi_f32(x as f32) as f64
                } else {
                    clift_cospi_f64(x)
                };
                assert!(same(c, if even(x) { 1.0 } else { -1.0 }), "cospi({x}) = {c}");
            }
        }
    }
    let halves: Vec<f64> = (-9..=9)
        .map(|n| n as f64 + 0.5)
        .chain([4194303.5, -4194303.5])
        .collect();
    for &x in halves.iter().chain([2251799813685247.5f64, -2251799813685247.5].iter()) {
        let n = x - 0.5;
        let tw = if n % 2.0 == 0.0 { INF } else { -INF };
        if x.abs() < 5e6 {
            assert!(same(clift_cospi_f32(x as f32) as f64, 0.0), "cospi_f32({x})");
            assert!(same(clift_tanpi_f32(x as f32) as f64, tw), "tanpi_f32({x})");
        }
        assert!(same(clift_cospi_f64(x), 0.0), "cospi_f64({x})");
        assert!(same(clift_tanpi_f64(x), tw), "tanpi_f64({x}) = {}", clift_tanpi_f64(x));
    }
}

#[test]
fn edge_rounding() {
    for x in [-0.5, -0.25, -1e-30, -0.0, -0.99999] {
        e1!(clift_ceil_f32, clift_ceil_f64, x, -0.0);
        e1!(clift_trunc_f32, clift_trunc_f64, x, -0.0);
    }
    for x in [-0.5, -0.2, -1e-40, -0.0] {
        e1!(clift_rint_f32, clift_rint_f64, x, -0.0);
    }
    for x in [-0.49999997, -0.2, -1e-40, -0.0] {
        e1!(clift_round_f32, clift_round_f64, x, -0.0);
    }
    e1!(clift_round_f32, clift_round_f64, -0.5, -1.0);
    e1!(clift_round_f32, clift_round_f64, 2.5, 3.0);
    e1!(clift_rint_f32, clift_rint_f64, 2.5, 2.0);
    e1!(clift_rint_f32, clift_rint_f64, 3.5, 4.0);
    e1!(clift_rint_f32, clift_rint_f64, 0.5, 0.0);
    e1!(clift_floor_f32, clift_floor_f64, -0.0, -0.0);
    e1!(clift_floor_f32, clift_floor_f64, -0.5, -1.0);
    for f in [INF, -INF, NAN] {
        e1!(clift_floor_f32, clift_floor_f64, f, f);
        e1!(clift_ceil_f32, clift_ceil_f64, f, f);
        e1!(clift_rint_f32, clift_rint_f64, f, f);
        e1!(clift_round_f32, clift_round_f64, f, f);
        e1!(clift_trunc_f32, clift_trunc_f64, f, f);
    }
}

#[test]
fn edge_exp_log() {
    for z in [0.0, -0.0] {
        e1!(clift_exp10_f32, clift_exp10_f64, z, 1.0);
        e1!(clift_exp_f32, clift_exp_f64, z, 1.0);
        e1!(clift_exp2_f32, clift_exp2_f64, z, 1.0);
        e1!(clift_expm1_f32, clift_expm1_f64, z, z);
        e1!(clift_log1p_f32, clift_log1p_f64, z, z);
        e1!(clift_log_f32, clift_log_f64, z, -INF);
        e1!(clift_log2_f32, clift_log2_f64, z, -INF);
        e1!(clift_log10_f32, clift_log10_f64, z, -INF);
    }
    e1!(clift_exp10_f32, clift_exp10_f64, -INF, 0.0);
    e1!(clift_exp10_f32, clift_exp10_f64, INF, INF);
    e1!(clift_exp10_f32, clift_exp10_f64, NAN, NAN);
    e1!(clift_exp10_f32, clift_exp10_f64, 2.0, 100.0);
    assert_eq!((clift_exp10_f32(-1.0), clift_exp10_f64(-1.0)), (0.1f32, 0.1f64));
    e1!(clift_exp10_f32, clift_exp10_f64, 400.0, INF);
    e1!(clift_exp10_f32, clift_exp10_f64, -400.0, 0.0);
    e1!(clift_exp_f32, clift_exp_f64, -INF, 0.0);
    e1!(clift_exp_f32, clift_exp_f64, INF, INF);
    e1!(clift_exp2_f32, clift_exp2_f64, -INF, 0.0);
    e1!(clift_exp2_f32, clift_exp2_f64, 10.0, 1024.0);
    e1!(clift_expm1_f32, clift_expm1_f64, -INF, -1.0);
    e1!(clift_log_f32, clift_log_f64, 1.0, 0.0);
    e1!(clift_log2_f32, clift_log2_f64, 1.0, 0.0);
    e1!(clift_log10_f32, clift_log10_f64, 1.0, 0.0);
    e1!(clift_log2_f32, clift_log2_f64, 8.0, 3.0);
    e1!(clift_log10_f32, clift_log10_f64, 1000.0, 3.0);
    e1!(clift_log_f32, clift_log_f64, -1.0, NAN);
    e1!(clift_log_f32, clift_log_f64, INF, INF);
    e1!(clift_log1p_f32, clift_log1p_f64, -1.0, -INF);
    e1!(clift_log1p_f32, clift_log1p_f64, -2.0, NAN);
    // denormals are kept
    e1!(clift_log2_f32, clift_log2_f64, f32::from_bits(1) as f64, -149.0);
    e1!(
        clift_expm1_f32,
        clift_expm1_f64,
        f32::from_bits(1) as f64,
        f32::from_bits(1) as f64
    );
    assert!(clift_exp_f32(-100.0) > 0.0 && clift_exp_f32(-100.0) < f32::MIN_POSITIVE);
    assert!(clift_exp_f64(-740.0) > 0.0 && clift_exp_f64(-740.0) < f64::MIN_POSITIVE);
    assert!(clift_exp10_f64(-320.0) > 0.0 && clift_exp10_f32(-40.0) > 0.0);
}

#[test]
fn edge_trig_hyperbolic() {
    for z in [0.0, -0.0] {
        for (f, g) in [
            (
                clift_sin_f32 as extern "C" fn(f32) -> f32,
                clift_sin_f64 as extern "C" fn(f64) -> f64,
            ),
            (clift_tan_f32, clift_tan_f64),
            (clift_asin_f32, clift_asin_f64),
            (clift_atan_f32, clift_atan_f64),
            (clift_sinh_f32, clift_sinh_f64),
            (clift_tanh_f32, clift_tanh_f64),
            (clift_asinh_f32, clift_asinh_f64),
            (clift_atanh_f32, clift_atanh_f64),
            (clift_cbrt_f32, clift_cbrt_f64),
            (clift_erf_f32, clift_erf_f64),
            (clift_sqrt_f32, clift_sqrt_f64),
            (clift_half_sin_f32, clift_sin_f64),
            (clift_native_sqrt_f32, clift_sqrt_f64),
        ] {
            assert!(same(f(z as f32) as f64, z) && same(g(z), z));
        }
        e1!(clift_cos_f32, clift_cos_f64, z, 1.0);
        e1!(clift_cosh_f32, clift_cosh_f64, z, 1.0);
        e1!(clift_rsqrt_f32, clift_rsqrt_f64, z, INF.copysign(z));
    }
    let d = f32::from_bits(5) as f64;
    e1!(clift_sin_f32, clift_sin_f64, d, d);
    e1!(clift_sin_f32, clift_sin_f64, -d, -d);
    e1!(clift_tan_f32, clift_tan_f64, d, d);
    e1!(clift_sin_f32, clift_sin_f64, INF, NAN);
    e1!(clift_cos_f32, clift_cos_f64, -INF, NAN);
    e1!(clift_tan_f32, clift_tan_f64, INF, NAN);
    e1!(clift_acos_f32, clift_acos_f64, 1.0, 0.0);
    e1!(clift_acos_f32, clift_acos_f64, 2.0, NAN);
    e1!(clift_acosh_f32, clift_acosh_f64, 1.0, 0.0);
    e1!(clift_acosh_f32, clift_acosh_f64, 0.5, NAN);
    e1!(clift_atanh_f32, clift_atanh_f64, 1.0, INF);
    e1!(clift_atanh_f32, clift_atanh_f64, -1.0, -INF);
    e1!(clift_sinh_f32, clift_sinh_f64, -INF, -INF);
    e1!(clift_cosh_f32, clift_cosh_f64, -INF, INF);
    e1!(clift_tanh_f32, clift_tanh_f64, -INF, -1.0);
    e1!(clift_erf_f32, clift_erf_f64, -INF, -1.0);
    e1!(clift_erfc_f32, clift_erfc_f64, INF, 0.0);
    e1!(clift_erfc_f32, clift_erfc_f64, -INF, 2.0);
    e1!(clift_rsqrt_f32, clift_rsqrt_f64, INF, 0.0);
    e1!(clift_rsqrt_f32, clift_rsqrt_f64, -1.0, NAN);
    e1!(clift_rsqrt_f32, clift_rsqrt_f64, 4.0, 0.5);
    e1!(clift_sqrt_f32, clift_sqrt_f64, -1.0, NAN);
    e1!(clift_sqrt_f32, clift_sqrt_f64, INF, INF);
    assert!(clift_sqrt_f32(f32::from_bits(1)) > 0.0);
    e2!(clift_hypot_f32, clift_hypot_f64, INF, NAN, INF);
    e2!(clift_hypot_f32, clift_hypot_f64, NAN, -INF, INF);
    e2!(clift_hypot_f32, clift_hypot_f64, -3.0, 0.0, 3.0);
    e2!(clift_hypot_f32, clift_hypot_f64, 3.0, 4.0, 5.0);
    assert_eq!(clift_atan2_f32(0.0, -0.0), std::f32::consts::PI);
    assert_eq!(clift_atan2_f64(0.0, -0.0), std::f64::consts::PI);
    let mut c = 0.0f32;
    let s = unsafe { clift_sincos_f32(-0.0, &mut c) };
    assert!(same(s as f64, -0.0) && c == 1.0);
    let mut c = 0.0f64;
    let s = unsafe { clift_sincos_f64(INF, &mut c) };
    assert!(s.is_nan() && c.is_nan());
}

#[test]
fn edge_gamma() {
    e1!(clift_tgamma_f32, clift_tgamma_f64, 0.0, INF);
    e1!(clift_tgamma_f32, clift_tgamma_f64, -0.0, -INF);
    e1!(clift_tgamma_f32, clift_tgamma_f64, -1.0, NAN);
    e1!(clift_tgamma_f32, clift_tgamma_f64, -INF, NAN);
    e1!(clift_tgamma_f32, clift_tgamma_f64, INF, INF);
    e1!(clift_tgamma_f32, clift_tgamma_f64, 5.0, 24.0);
    e1!(clift_lgamma_f32, clift_lgamma_f64, 1.0, 0.0);
    e1!(clift_lgamma_f32, clift_lgamma_f64, 2.0, 0.0);
    e1!(clift_lgamma_f32, clift_lgamma_f64, 0.0, INF);
    e1!(clift_lgamma_f32, clift_lgamma_f64, -3.0, INF);
    e1!(clift_lgamma_f32, clift_lgamma_f64, -INF, INF);
    for x in [0.0f64, -0.0, -1.0, -2.0, -100.0] {
        let (mut s32, mut s64) = (7, 7);
        let v32 = unsafe { clift_lgamma_r_f32(x as f32, &mut s32) };
        let v64 = unsafe { clift_lgamma_r_f64(x, &mut s64) };
        assert!(
            v32 == f32::INFINITY && v64 == INF && s32 == 0 && s64 == 0,
            "lgamma_r({x})"
        );
    }
    for (x, want) in [(0.5, 1), (-0.5, -1), (-1.5, 1), (-2.5, -1), (3.0, 1)] {
        let (mut s32, mut s64) = (7, 7);
        unsafe {
            clift_lgamma_r_f32(x as f32, &mut s32);
            clift_lgamma_r_f64(x, &mut s64);
        }
        assert!(s32 == want && s64 == want, "lgamma_r sign({x})");
    }
}

#[test]
fn edge_pow_family() {
    // pow
    for z in [0.0, -0.0] {
        e2!(clift_pow_f32, clift_pow_f64, z, -INF, INF);
        e2!(clift_pow_f32, clift_pow_f64, z, -3.0, INF.copysign(z));
        e2!(clift_pow_f32, clift_pow_f64, z, -2.0, INF);
        e2!(clift_pow_f32, clift_pow_f64, z, 3.0, z);
        e2!(clift_pow_f32, clift_pow_f64, z, 2.0, 0.0);
    }
    e2!(clift_pow_f32, clift_pow_f64, NAN, 0.0, 1.0);
    e2!(clift_pow_f32, clift_pow_f64, 1.0, NAN, 1.0);
    e2!(clift_pow_f32, clift_pow_f64, -1.0, INF, 1.0);
    e2!(clift_pow_f32, clift_pow_f64, -8.0, 1.0 / 3.0, NAN);
    e2!(clift_pow_f32, clift_pow_f64, -INF, -3.0, -0.0);
    e2!(clift_pow_f32, clift_pow_f64, -INF, 3.0, -INF);
    e2!(clift_pow_f32, clift_pow_f64, -2.0, 3.0, -8.0);
    e2!(clift_pow_f32, clift_pow_f64, 0.5, INF, 0.0);
    e2!(clift_pow_f32, clift_pow_f64, 2.0, -INF, 0.0);

    // pown
    for x in [0.0, -0.0, NAN, INF, -INF, 2.0] {
        ei!(clift_pown_f32, clift_pown_f64, x, 0, 1.0);
    }
    for z in [0.0, -0.0] {
        ei!(clift_pown_f32, clift_pown_f64, z, -3, INF.copysign(z));
        ei!(clift_pown_f32, clift_pown_f64, z, -2, INF);
        ei!(clift_pown_f32, clift_pown_f64, z, 2, 0.0);
        ei!(clift_pown_f32, clift_pown_f64, z, 3, z);
    }
    ei!(clift_pown_f32, clift_pown_f64, -2.0, 3, -8.0);
    ei!(clift_pown_f32, clift_pown_f64, -INF, -1, -0.0);
    ei!(clift_pown_f32, clift_pown_f64, -1.0, i32::MIN, 1.0);

    // powr
    for x in [0.5, 1.0, 3.0, 1e30] {
        e2!(clift_powr_f32, clift_powr_f64, x, 0.0, 1.0);
        e2!(clift_powr_f32, clift_powr_f64, x, -0.0, 1.0);
    }
    for z in [0.0, -0.0] {
        e2!(clift_powr_f32, clift_powr_f64, z, -2.0, INF);
        e2!(clift_powr_f32, clift_powr_f64, z, -3.0, INF);
        e2!(clift_powr_f32, clift_powr_f64, z, -INF, INF);
        e2!(clift_powr_f32, clift_powr_f64, z, 3.0, 0.0);
        e2!(clift_powr_f32, clift_powr_f64, z, INF, 0.0);
        e2!(clift_powr_f32, clift_powr_f64, z, 0.0, NAN);
        e2!(clift_powr_f32, clift_powr_f64, z, -0.0, NAN);
        e2!(clift_powr_f32, clift_powr_f64, z, NAN, NAN);
    }
    for y in [0.5, -7.0, 1e30] {
        e2!(clift_powr_f32, clift_powr_f64, 1.0, y, 1.0);
    }
    for x in [-1.0, -0.5, -INF, -2.0] {
        e2!(clift_powr_f32, clift_powr_f64, x, 2.0, NAN);
    }
    e2!(clift_powr_f32, clift_powr_f64, INF, 0.0, NAN);
    e2!(clift_powr_f32, clift_powr_f64, INF, -0.0, NAN);
    e2!(clift_powr_f32, clift_powr_f64, 1.0, INF, NAN);
    e2!(clift_powr_f32, clift_powr_f64, 1.0, -INF, NAN);
    e2!(clift_powr_f32, clift_powr_f64, 2.0, NAN, NAN);
    e2!(clift_powr_f32, clift_powr_f64, NAN, 0.0, NAN);
    e2!(clift_powr_f32, clift_powr_f64, NAN, 1.0, NAN);
    e2!(clift_powr_f32, clift_powr_f64, INF, 2.0, INF);
    e2!(clift_powr_f32, clift_powr_f64, INF, -2.0, 0.0);
    e2!(clift_powr_f32, clift_powr_f64, 2.0, 10.0, 1024.0);
    e2!(clift_half_powr_f32, clift_powr_f64, 0.0, 0.0, NAN);
    e2!(clift_native_powr_f32, clift_powr_f64, -1.0, 2.0, NAN);

    // rootn
    for z in [0.0, -0.0] {
        ei!(clift_rootn_f32, clift_rootn_f64, z, -3, INF.copysign(z));
        ei!(clift_rootn_f32, clift_rootn_f64, z, -2, INF);
        ei!(clift_rootn_f32, clift_rootn_f64, z, 2, 0.0);
        ei!(clift_rootn_f32, clift_rootn_f64, z, 3, z);
    }
    ei!(clift_rootn_f32, clift_rootn_f64, -4.0, 2, NAN);
    ei!(clift_rootn_f32, clift_rootn_f64, -4.0, -2, NAN);
    ei!(clift_rootn_f32, clift_rootn_f64, 4.0, 0, NAN);
    ei!(clift_rootn_f32, clift_rootn_f64, 0.0, 0, NAN);
    ei!(clift_rootn_f32, clift_rootn_f64, -8.0, 3, -2.0);
    ei!(clift_rootn_f32, clift_rootn_f64, 8.0, -3, 0.5);
    ei!(clift_rootn_f32, clift_rootn_f64, 16.0, 4, 2.0);
    ei!(clift_rootn_f32, clift_rootn_f64, 7.0, 1, 7.0);
    ei!(clift_rootn_f32, clift_rootn_f64, INF, 3, INF);
    ei!(clift_rootn_f32, clift_rootn_f64, -INF, 3, -INF);
    ei!(clift_rootn_f32, clift_rootn_f64, -INF, -3, -0.0);
    ei!(clift_rootn_f32, clift_rootn_f64, INF, -2, 0.0);
    ei!(clift_rootn_f32, clift_rootn_f64, NAN, 3, NAN);
}

#[test]
fn edge_decompose() {
    // fract
    let fr32 = |x: f64| {
        let mut i = 0.0f32;
        let v = unsafe { clift_fract_f32(x as f32, &mut i) };
        (v as f64, i as f64)
    };
    let fr64 = |x: f64| {
        let mut i = 0.0f64;
        let v = unsafe { clift_fract_f64(x, &mut i) };
        (v, i)
    };
    for (x, v, i) in [
        (0.0, 0.0, 0.0),
        (-0.0, -0.0, -0.0),
        (INF, 0.0, INF),
        (-INF, -0.0, -INF),
        (-1.25, 0.75, -2.0),
    ] {
        for (gv, gi) in [fr32(x), fr64(x)] {
            assert!(same(gv, v) && same(gi, i), "fract({x}) = ({gv}, {gi})");
        }
    }
    let (v, i) = fr32(NAN);
    assert!(v.is_nan() && i.is_nan());
    let (v, i) = fr64(NAN);
    assert!(v.is_nan() && i.is_nan());
    assert_eq!(fr32(-1e-30), (f32::from_bits(0x3f7f_ffff) as f64, -1.0));
    assert_eq!(fr64(-1e-30), (f64::from_bits(0x3fef_ffff_ffff_ffff), -1.0));

    // frexp
    let fx32 = |x: f64| {
        let mut e = 99;
        let v = unsafe { clift_frexp_f32(x as f32, &mut e) };
        (v as f64, e)
    };
    let fx64 = |x: f64| {
        let mut e = 99;
        let v = unsafe { clift_frexp_f64(x, &mut e) };
        (v, e)
    };
    for x in [INF, -INF, NAN, 0.0, -0.0] {
        for (v, e) in [fx32(x), fx64(x)] {
            assert!(same(v, x) && e == 0, "frexp({x})");
        }
    }
    assert_eq!(fx32(f32::from_bits(1) as f64), (0.5, -148));
    assert_eq!(fx64(5e-324), (0.5, -1073));
    assert_eq!(fx64(-8.0), (-0.5, 4));

    // modf
    let md = |x: f64| {
        let (mut i32_, mut i64_) = (0.0f32, 0.0f64);
        let a = unsafe { clift_modf_f32(x as f32, &mut i32_) } as f64;
        let b = unsafe { clift_modf_f64(x, &mut i64_) };
        ((a, i32_ as f64), (b, i64_))
    };
    for (x, v, i) in [
        (INF, 0.0, INF),
        (-INF, -0.0, -INF),
        (-3.5, -0.5, -3.0),
        (-0.0, -0.0, -0.0),
        (-2.0, -0.0, -2.0),
    ] {
        let (a, b) = md(x);
        for (gv, gi) in [a, b] {
            assert!(same(gv, v) && same(gi, i), "modf({x}) = ({gv}, {gi})");
        }
    }

    // ilogb / logb
    for x in [0.0, -0.0] {
        assert_eq!(clift_ilogb_f32(x as f32), i32::MIN);
        assert_eq!(clift_ilogb_f64(x), i32::MIN);
        e1!(clift_logb_f32, clift_logb_f64, x, -INF);
    }
    for x in [NAN, INF, -INF] {
        assert_eq!(clift_ilogb_f32(x as f32), i32::MAX);
        assert_eq!(clift_ilogb_f64(x), i32::MAX);
        e1!(clift_logb_f32, clift_logb_f64, x, if x.is_nan() { NAN } else { INF });
    }
    assert_eq!(clift_ilogb_f32(f32::from_bits(1)), -149);
    assert_eq!(clift_ilogb_f64(5e-324), -1074);
    assert_eq!(clift_ilogb_f64(-1.5), 0);
    e1!(clift_logb_f32, clift_logb_f64, f32::from_bits(1) as f64, -149.0);

    // ldexp
    ei!(clift_ldexp_f32, clift_ldexp_f64, 1.0, -149, f32::from_bits(1) as f64);
    ei!(clift_ldexp_f32, clift_ldexp_f64, f32::from_bits(1) as f64, 149, 1.0);
    ei!(clift_ldexp_f32, clift_ldexp_f64, -0.0, 5, -0.0);
    ei!(clift_ldexp_f32, clift_ldexp_f64, INF, -5000, INF);
    ei!(clift_ldexp_f32, clift_ldexp_f64, 1.0, i32::MAX, INF);
    ei!(clift_ldexp_f32, clift_ldexp_f64, -1.0, i32::MIN, -0.0);
    assert_eq!(clift_ldexp_f32(1.5, -149), f32::from_bits(2)); // tie to even
    assert_eq!(clift_ldexp_f64(1.5, -1074), 1e-323);

    // nan
    for code in [0u32, 1, 0x1234, u32::MAX] {
        let v = clift_nan_f32(code);
        assert!(v.is_nan() && v.to_bits() & 0x0040_0000 != 0);
        let d = clift_nan_f64(code as u64 | 0xdead_0000_0000);
        assert!(d.is_nan() && d.to_bits() & 0x0008_0000_0000_0000 != 0);
    }
    assert_eq!(clift_nan_f32(0x1234).to_bits(), 0x7fc0_1234);
}

#[test]
fn edge_minmax_misc() {
    e2!(clift_fdim_f32, clift_fdim_f64, NAN, 1.0, NAN);
    e2!(clift_fdim_f32, clift_fdim_f64, 1.0, NAN, NAN);
    e2!(clift_fdim_f32, clift_fdim_f64, 1.0, 2.0, 0.0);
    e2!(clift_fdim_f32, clift_fdim_f64, -INF, -INF, 0.0);
    e2!(clift_fdim_f32, clift_fdim_f64, 3.0, 1.0, 2.0);
    e2!(clift_fmax_f32, clift_fmax_f64, NAN, 1.0, 1.0);
    e2!(clift_fmax_f32, clift_fmax_f64, 1.0, NAN, 1.0);
    e2!(clift_fmax_f32, clift_fmax_f64, NAN, NAN, NAN);
    e2!(clift_fmax_f32, clift_fmax_f64, -0.0, 0.0, 0.0);
    e2!(clift_fmin_f32, clift_fmin_f64, 0.0, -0.0, -0.0);
    e2!(clift_fmin_f32, clift_fmin_f64, NAN, -1.0, -1.0);
    e2!(clift_fmin_f32, clift_fmin_f64, -1.0, NAN, -1.0);
    e2!(clift_maxmag_f32, clift_maxmag_f64, -3.0, 2.0, -3.0);
    e2!(clift_maxmag_f32, clift_maxmag_f64, -2.0, 2.0, 2.0);
    e2!(clift_maxmag_f32, clift_maxmag_f64, NAN, 2.0, 2.0);
    e2!(clift_minmag_f32, clift_minmag_f64, -3.0, 2.0, 2.0);
    e2!(clift_minmag_f32, clift_minmag_f64, 2.0, -2.0, -2.0);
    e2!(clift_minmag_f32, clift_minmag_f64, 2.0, NAN, 2.0);
    e2!(clift_copysign_f32, clift_copysign_f64, 2.0, -0.0, -2.0);
    e2!(clift_copysign_f32, clift_copysign_f64, -INF, 1.0, INF);
    e2!(clift_fmod_f32, clift_fmod_f64, 0.0, NAN, NAN);
    e2!(clift_fmod_f32, clift_fmod_f64, -0.0, NAN, NAN);
    e2!(clift_fmod_f32, clift_fmod_f64, -0.0, 3.0, -0.0);
    e2!(clift_fmod_f32, clift_fmod_f64, INF, 3.0, NAN);
    e2!(clift_fmod_f32, clift_fmod_f64, 3.0, 0.0, NAN);
    e2!(clift_fmod_f32, clift_fmod_f64, 3.0, -INF, 3.0);
    e2!(clift_fmod_f32, clift_fmod_f64, -5.5, 2.0, -1.5);
    e2!(clift_remainder_f32, clift_remainder_f64, 5.0, 2.0, 1.0);
    e2!(clift_remainder_f32, clift_remainder_f64, 7.0, 2.0, -1.0);
    e2!(clift_remainder_f32, clift_remainder_f64, -4.0, 2.0, -0.0);
    e2!(clift_remainder_f32, clift_remainder_f64, INF, 2.0, NAN);
    e2!(clift_remainder_f32, clift_remainder_f64, 2.0, 0.0, NAN);
    assert_eq!(clift_nextafter_f32(-0.0, 1.0).to_bits(), 1);
    assert_eq!(clift_nextafter_f32(0.0, -1.0).to_bits(), 0x8000_0001);
    assert_eq!(clift_nextafter_f64(-0.0, 1.0).to_bits(), 1);
    assert_eq!(clift_nextafter_f64(0.0, -1.0).to_bits(), 0x8000_0000_0000_0001);
    assert_eq!(clift_nextafter_f32(f32::MIN_POSITIVE, 0.0).to_bits(), 0x007f_ffff);
    assert!(clift_nextafter_f64(NAN, 1.0).is_nan() && clift_nextafter_f32(1.0, f32::NAN).is_nan());
    // remquo
    let rq = |x: f64, y: f64| {
        let (mut q32, mut q64) = (99, 99);
        let a = unsafe { clift_remquo_f32(x as f32, y as f32, &mut q32) } as f64;
        let b = unsafe { clift_remquo_f64(x, y, &mut q64) };
        ((a, q32), (b, q64))
    };
    for (x, y) in [
        (INF, 1.0),
        (-INF, 1.0),
        (1.0, 0.0),
        (1.0, -0.0),
        (NAN, 1.0),
        (1.0, NAN),
        (NAN, 0.0),
    ] {
        let (a, b) = rq(x, y);
        assert!(a.0.is_nan() && a.1 == 0 && b.0.is_nan() && b.1 == 0, "remquo({x}, {y})");
    }
    let (a, b) = rq(-7.0, 2.0);
    assert!(a == (1.0, -4) && b == (1.0, -4), "{a:?} {b:?}");
    let (a, b) = rq(1000.0, 3.0);
    assert!(a == (1.0, 333 & 127) || a == (1.0, 333), "{a:?}");
    assert!(b == (1.0, 333 & 127) || b == (1.0, 333), "{b:?}");
    // fma / mad exactness and denormals
    let d = f32::from_bits(1);
    assert_eq!(clift_fma_f32(d, 0.5, d), f32::from_bits(2)); // 1.5 ulp rounds to even 2
    assert_eq!(clift_fma_f32(0.1, 10.0, -1.0), 0.1f32.mul_add(10.0, -1.0));
    assert_eq!(clift_fma_f64(0.1, 10.0, -1.0), 5.551115123125783e-17);
    assert!(clift_fma_f64(INF, 0.0, 1.0).is_nan());
    assert_eq!(clift_mad_f32(2.0, 3.0, 1.0), 7.0);
    // half/native aliases
    assert_eq!(clift_half_divide_f32(1.0, 4.0), 0.25);
    assert_eq!(clift_native_recip_f32(4.0), 0.25);
    assert_eq!(clift_half_recip_f32(0.0), f32::INFINITY);
    assert_eq!(clift_native_divide_f32(1.0, 0.0), f32::INFINITY);
}

/// Every OpenCL.std math function of the brief is exported for both types.
#[test]
fn symbols_complete() {
    let syms = super::symbols();
    let mut names: Vec<&str> = syms.iter().map(|s| s.0).collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(n, names.len(), "duplicate symbol");
    let full = "acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt ceil copysign cos cosh \
                cospi erfc erf exp exp2 exp10 expm1 fabs fdim floor fma fmax fmin fmod fract frexp hypot ilogb \
                ldexp lgamma lgamma_r log log2 log10 log1p logb mad maxmag minmag modf nan nextafter pow pown powr \
                remainder remquo rint rootn round rsqrt sin sincos sinh sinpi sqrt tan tanh tanpi tgamma trunc";
    let hn = "cos divide exp exp2 exp10 log log2 log10 powr recip rsqrt sin sqrt tan";
    for f in full.split_whitespace() {
        for t in ["f32", "f64"] {
            let s = format!("clift_{f}_{t}");
            assert!(names.contains(&s.as_str()), "missing {s}");
        }
    }
    for f in hn.split_whitespace() {
        for p in ["half", "native"] {
            let s = format!("clift_{p}_{f}_f32");
            assert!(names.contains(&s.as_str()), "missing {s}");
        }
    }
    for s in ["clift_fract_f16", "clift_nextafter_f16"] {
        assert!(names.contains(&s), "missing {s}");
    }
    // Both types of the full list, the half_ and native_ forms, the two half forms.
    assert_eq!(names.len(), 67 * 2 + 28 + 2);
    assert!(syms.iter().all(|s| !s.1.is_null()));
}
