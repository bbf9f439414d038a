//! Single-precision `exp`, `exp2`, `exp10`, `log`, `log2`, `log10`, `sin`, `cos`, `tan`,
//! `sincos`, `tanh`, `sinh` and `cosh` as inline code, for one value (`F32`) or four lanes
//! (`F32X4`) with the same operations, so that the scalar loop, the scalar path's vector
//! registers and the vector loop give the same bits. OpenCL C 7.4 allows 3 ulp for the exp and
//! log families, 4 for sin, cos, sinh and cosh, 5 for tan and tanh (their `native_` and
//! `half_` forms allow more); these stay within about 1, 1.5, 2.5 and 3.4 ulp, without calls (a
//! helper call per lane spills every live vector register and costs more than the function)
//! and, but for the trigonometric functions' large arguments, without branches. The exact
//! `ldexp`, `logb` and `ilogb` of floats and doubles are in [`exponent`].
//!
//! - exp family: `x = n*ln2 + r` with `n` an integer and `|r| <= ln2/2` (Cody and Waite: the
//!   reduction `x - n*ln2_hi` is exact with a fused multiply-add, the rest of ln2 is subtracted
//!   next), `e^r` by its Taylor polynomial of degree 7 (truncation below 2^-27 relative), and
//!   the result `e^r * 2^n` as two exact power-of-two factors, so that a subnormal result is
//!   rounded once and an overflowing one becomes infinity. `exp2` takes `n` as the nearest
//!   integer, `exp10` reduces by log10(2) first.
//! - log family: `x = 2^k * m` with `m` in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^25
//!   first), `f = m - 1` exact, and `log(1 + f)` from `s = f / (2 + f)` as
//!   `f - f^2/2 + s*(f^2/2 + R(s^2))` with the minimax coefficients of the classic fdlibm
//!   derivation; `k*ln2`, `log2` and `log10` add their parts in an order that keeps the large
//!   terms exact (`f - f^2/2` split into a head of 12 bits and a tail).
//! - sin, cos, tan (4, 4 and 5 ulp allowed): `x = n*pi/2 + r` with `|r| <= pi/4` by a
//!   three-part Cody-Waite reduction (the first part exact with a fused multiply-add; the
//!   parts hold about 72 bits of pi/2, enough for |x| up to [`TRIG_FAST`]), sine and cosine
//!   of `r` by their Taylor polynomials (degrees 9 and 10), the quadrant choosing and signing
//!   them, tan as their quotient. Larger arguments (and infinities) need the reduction with
//!   all the bits of 2/pi: a branch, taken only when some lane needs it, calls the library
//!   function (`fallback`) for such lanes.
//! - tanh (5 ulp): a polynomial below 0.55 in magnitude, `1 - 2/(e^2|x| + 1)` from there.
//! - sinh and cosh (4 ulp): `(e -+ 1/e) / 2` from one inline `exp` (its half argument beyond
//!   88), sinh's Taylor polynomial below 1.
//! - special values by selects at the end: NaN stays NaN, `log` of 0 is -inf, of a negative
//!   number NaN, of +inf +inf; `exp` of +-inf is +inf and 0.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, BlockArg, FuncRef, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions this module generates (by their OpenCL.std name without `native_`/`half_`).
pub fn known(base: &str) -> bool {
    matches!(
        base,
        "exp" | "exp2" | "exp10" | "log" | "log2" | "log10" | "sin" | "cos" | "tan" | "tanh" | "sinh" | "cosh" | "logb"
    ) || pi::known(base)
        || atan::known(base)
}

/// The two-argument functions this module generates for floats ([`atan`]).
pub fn known2(base: &str) -> bool {
    atan::known2(base)
}

/// `base(y, x)` for `F32` or `F32X4` operands and one of [`known2`]; `None` otherwise.
pub fn emit2(b: &mut FunctionBuilder, base: &str, y: Value, x: Value) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    let shape_ok = t.lane_type() == types::F32 && (t.lane_count() == 1 || t.lane_count() == 4);
    (shape_ok && known2(base)).then(|| atan::emit2(b, base, y, x))
}

/// The functions this module generates for doubles ([`double`], [`pi`]).
pub fn known_f64(base: &str) -> bool {
    double::known(base) || pi::known(base) || base == "logb"
}

/// Whether `base` needs the library function (`clift_<base>_f32`, `_f64`) for some arguments.
pub fn needs_fallback(base: &str) -> bool {
    matches!(base, "sin" | "cos" | "tan")
}

/// Up to this magnitude the sine, cosine and tangent are reduced inline.
pub const TRIG_FAST: f32 = 65536.0;

/// `base(x)` for `x` of type `F32` or `F32X4` (or `F64`, `F64X2`: [`double`]); `None` for
/// other functions or types, and for a function that [`needs_fallback`] without one
/// (`f32 -> f32`).
pub fn emit(b: &mut FunctionBuilder, base: &str, x: Value, fallback: Option<FuncRef>) -> Option<Value> {
    let t = b.func.dfg.value_type(x);
    let double = match (t.lane_type(), t.lane_count()) {
        (types::F32, 1 | 4) => false,
        (types::F64, 1 | 2) => true,
        _ => return None,
    };
    Some(match base {
        _ if pi::known(base) => pi::emit(b, base, x),
        "logb" => exponent::logb(b, x)?,
        "sin" | "cos" | "tan" => {
            let r = if double { double::reduce(b, x) } else { reduce(b, x) };
            trig(b, base, r, x, fallback?)
        }
        _ if double => double::emit(b, base, x)?,
        _ if atan::known(base) => atan::emit(b, base, x),
        "exp" | "exp2" | "exp10" => exp(b, base, x),
        "log" | "log2" | "log10" => log(b, base, x),
        "tanh" => tanh(b, x),
        "sinh" | "cosh" => sinh_cosh(b, base, x),
        _ => return None,
    })
}

/// The integer type with the lanes of `t`.
fn int_of(t: Type) -> Type {
    if t.is_vector() {
        types::I32X4
    } else {
        types::I32
    }
}

/// A float constant of type `t` (in every lane).
fn fk(b: &mut FunctionBuilder, t: Type, c: f32) -> Value {
    let s = b.ins().f32const(c);
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

/// An integer constant in every lane of the integer type `t` (any lane width).
fn ik(b: &mut FunctionBuilder, t: Type, c: i64) -> Value {
    let s = b.ins().iconst(t.lane_type(), c);
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

fn bits(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = int_of(b.func.dfg.value_type(x));
    b.ins().bitcast(t, MemFlagsData::new(), x)
}

fn float(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = if b.func.dfg.value_type(x).is_vector() {
        types::F32X4
    } else {
        types::F32
    };
    b.ins().bitcast(t, MemFlagsData::new(), x)
}

/// `cond ? x : y` for float values and a condition from `fcmp`/`icmp` of the same lanes.
fn pick(b: &mut FunctionBuilder, cond: Value, x: Value, y: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if t.is_vector() {
        let m = if b.func.dfg.value_type(cond) == t {
            cond
        } else {
            b.ins().bitcast(t, MemFlagsData::new(), cond)
        };
        b.ins().bitselect(m, x, y)
    } else {
        b.ins().select(cond, x, y)
    }
}

/// `x <cc> c` for a float constant `c`.
fn fcmp_k(b: &mut FunctionBuilder, cc: FloatCC, x: Value, c: f32) -> Value {
    let t = b.func.dfg.value_type(x);
    let k = fk(b, t, c);
    b.ins().fcmp(cc, x, k)
}

/// `x` clamped to [lo, hi]; NaN stays NaN (both comparisons are false for it).
fn clamp(b: &mut FunctionBuilder, x: Value, lo: f32, hi: f32) -> Value {
    let t = b.func.dfg.value_type(x);
    let above = fcmp_k(b, FloatCC::GreaterThan, x, hi);
    let h = fk(b, t, hi);
    let x = pick(b, above, h, x);
    let below = fcmp_k(b, FloatCC::LessThan, x, lo);
    let l = fk(b, t, lo);
    pick(b, below, l, x)
}

/// `c` split into a head of `keep` significant bits and the f32 nearest to the rest.
fn split(c: f64, keep: u32) -> (f32, f32) {
    let mask = !((1u32 << (24 - keep)) - 1);
    let hi = f32::from_bits((c as f32).to_bits() & mask);
    (hi, (c - hi as f64) as f32)
}

/// `c` as the nearest f32 and the f32 nearest to the rest.
fn pair(c: f64) -> (f32, f32) {
    let hi = c as f32;
    (hi, (c - hi as f64) as f32)
}

/// `e^r` for `|r| <= ln2/2` (a little more after the reduction's rounding): Taylor to degree 7.
fn exp_poly(b: &mut FunctionBuilder, r: Value) -> Value {
    let t = b.func.dfg.value_type(r);
    let mut p = fk(b, t, 1.0 / 5040.0);
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        let k = fk(b, t, c as f32);
        p = b.ins().fma(p, r, k);
    }
    p
}

/// `2^k` for integer lanes `k` in [-126, 127] as floats.
fn pow2(b: &mut FunctionBuilder, k: Value) -> Value {
    let t = b.func.dfg.value_type(k);
    let bias = ik(b, t, 127);
    let e = b.ins().iadd(k, bias);
    let e = b.ins().ishl_imm_u(e, 23);
    float(b, e)
}

fn exp(b: &mut FunctionBuilder, base: &str, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let it = int_of(t);
    // Beyond these bounds the result is infinity or rounds to zero; the clamp keeps n within
    // [-153, 130], where both factors of 2^n below are normal.
    let (lo, hi) = match base {
        "exp" => (-104.0, 89.0),
        "exp2" => (-151.0, 129.0),
        _ => (-46.0, 39.0),
    };
    let xc = clamp(b, x, lo, hi);
    let (n, r) = match base {
        "exp" => {
            let k = fk(b, t, std::f32::consts::LOG2_E);
            let y = b.ins().fmul(xc, k);
            let n = b.ins().nearest(y);
            let nn = b.ins().fneg(n);
            let (h, l) = pair(std::f64::consts::LN_2);
            let (h, l) = (fk(b, t, h), fk(b, t, l));
            let r = b.ins().fma(nn, h, xc);
            (n, b.ins().fma(nn, l, r))
        }
        "exp2" => {
            let n = b.ins().nearest(xc);
            let f = b.ins().fsub(xc, n);
            let (h, l) = pair(std::f64::consts::LN_2);
            let (h, l) = (fk(b, t, h), fk(b, t, l));
            let fl = b.ins().fmul(f, l);
            (n, b.ins().fma(f, h, fl))
        }
        _ => {
            let k = fk(b, t, std::f64::consts::LOG2_10 as f32);
            let y = b.ins().fmul(xc, k);
            let n = b.ins().nearest(y);
            let nn = b.ins().fneg(n);
            let (h, l) = pair(std::f64::consts::LOG10_2);
            let (h, l) = (fk(b, t, h), fk(b, t, l));
            let s = b.ins().fma(nn, h, xc);
            let s = b.ins().fma(nn, l, s);
            let (h, l) = pair(std::f64::consts::LN_10);
            let (h, l) = (fk(b, t, h), fk(b, t, l));
            let sl = b.ins().fmul(s, l);
            (n, b.ins().fma(s, h, sl))
        }
    };
    let p = exp_poly(b, r);
    let ni = b.ins().fcvt_to_sint_sat(it, n);
    let h = b.ins().sshr_imm_u(ni, 1);
    let h2 = b.ins().isub(ni, h);
    let s1 = pow2(b, h);
    let s2 = pow2(b, h2);
    let y = b.ins().fmul(p, s1);
    b.ins().fmul(y, s2)
}

fn log(b: &mut FunctionBuilder, base: &str, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let it = int_of(t);
    // Subnormals (and +0): scaled into the normal range first.
    let ix = bits(b, x);
    let small = ik(b, it, 0x0080_0000);
    let sub = b.ins().icmp(IntCC::UnsignedLessThan, ix, small);
    let scale = fk(b, t, 33_554_432.0); // 2^25
    let xs = b.ins().fmul(x, scale);
    let xs = bits(b, xs);
    let ix = if t.is_vector() {
        b.ins().bitselect(sub, xs, ix)
    } else {
        b.ins().select(sub, xs, ix)
    };
    let (m25, zero) = (ik(b, it, -25), ik(b, it, 0));
    let kadj = if t.is_vector() {
        b.ins().bitselect(sub, m25, zero)
    } else {
        b.ins().select(sub, m25, zero)
    };
    // k and m: the exponent taken with m in [sqrt(1/2), sqrt(2)).
    let c = ik(b, it, 0x3f80_0000 - 0x3f35_04f3);
    let ix = b.ins().iadd(ix, c);
    let e = b.ins().ushr_imm_u(ix, 23);
    let c = ik(b, it, -0x7f);
    let e = b.ins().iadd(e, c);
    let k = b.ins().iadd(e, kadj);
    let mant = ik(b, it, 0x007f_ffff);
    let ix = b.ins().band(ix, mant);
    let c = ik(b, it, 0x3f35_04f3);
    let ix = b.ins().iadd(ix, c);
    let m = float(b, ix);
    let one = fk(b, t, 1.0);
    let f = b.ins().fsub(m, one);
    // log(1 + f) = f - hfsq + s*(hfsq + R).
    let two = fk(b, t, 2.0);
    let d = b.ins().fadd(two, f);
    let s = b.ins().fdiv(f, d);
    let z = b.ins().fmul(s, s);
    let w = b.ins().fmul(z, z);
    let [lg1, lg2, lg3, lg4] = [0xaaaaaa, 0xccce13, 0x91e9ee, 0xf89e26].map(|m| m as f32);
    let (lg1, lg2, lg3, lg4) = (
        lg1 / 16_777_216.0,
        lg2 / 33_554_432.0,
        lg3 / 33_554_432.0,
        lg4 / 67_108_864.0,
    );
    let c4 = fk(b, t, lg4);
    let c2 = fk(b, t, lg2);
    let t1 = b.ins().fma(w, c4, c2);
    let t1 = b.ins().fmul(w, t1);
    let c3 = fk(b, t, lg3);
    let c1 = fk(b, t, lg1);
    let t2 = b.ins().fma(w, c3, c1);
    let t2 = b.ins().fmul(z, t2);
    let rr = b.ins().fadd(t2, t1);
    let half = fk(b, t, 0.5);
    let hf = b.ins().fmul(half, f);
    let hfsq = b.ins().fmul(hf, f);
    let dk = b.ins().fcvt_from_sint(t, k);
    let sum = b.ins().fadd(hfsq, rr);
    let tail = b.ins().fmul(s, sum);
    let y = match base {
        "log" => {
            let (h, l) = pair(std::f64::consts::LN_2);
            let l = fk(b, t, l);
            let a = b.ins().fma(dk, l, tail);
            let a = b.ins().fsub(a, hfsq);
            let a = b.ins().fadd(a, f);
            let h = fk(b, t, h);
            b.ins().fma(dk, h, a)
        }
        _ => {
            // f - hfsq as hi (12 significant bits) + lo, so that hi times the head of the
            // constant is exact.
            let hi = b.ins().fsub(f, hfsq);
            let hib = bits(b, hi);
            let mask = ik(b, it, 0xffff_f000u32 as i32 as i64);
            let hib = b.ins().band(hib, mask);
            let hi = float(b, hib);
            let lo = b.ins().fsub(f, hi);
            let lo = b.ins().fsub(lo, hfsq);
            let lo = b.ins().fadd(lo, tail);
            let c = if base == "log2" {
                std::f64::consts::LOG2_E
            } else {
                std::f64::consts::LOG10_E
            };
            let (ch, cl) = split(c, 12);
            let (ch, cl) = (fk(b, t, ch), fk(b, t, cl));
            let both = b.ins().fadd(lo, hi);
            let a = b.ins().fmul(both, cl);
            let a = b.ins().fma(lo, ch, a);
            let hh = b.ins().fmul(hi, ch);
            if base == "log2" {
                let a = b.ins().fadd(a, hh);
                b.ins().fadd(a, dk)
            } else {
                let (kh, kl) = pair(std::f64::consts::LOG10_2);
                let kl = fk(b, t, kl);
                let a = b.ins().fma(dk, kl, a);
                let a = b.ins().fadd(a, hh);
                let kh = fk(b, t, kh);
                b.ins().fma(dk, kh, a)
            }
        }
    };
    // Special values: negative -> NaN, +-0 -> -inf, +inf -> +inf, NaN -> NaN.
    let neg = fcmp_k(b, FloatCC::LessThan, x, 0.0);
    let nan = fk(b, t, f32::NAN);
    let y = pick(b, neg, nan, y);
    let zero = fcmp_k(b, FloatCC::Equal, x, 0.0);
    let ninf = fk(b, t, f32::NEG_INFINITY);
    let y = pick(b, zero, ninf, y);
    let inf = fcmp_k(b, FloatCC::Equal, x, f32::INFINITY);
    let y = pick(b, inf, x, y);
    let uno = b.ins().fcmp(FloatCC::Unordered, x, x);
    pick(b, uno, x, y)
}

/// sin, cos or tan of `x` from its reduction `r`, inline up to [`TRIG_FAST`]
/// ([`double::TRIG_FAST`]), else by `fallback`.
fn trig(b: &mut FunctionBuilder, base: &str, r: Quadrant, x: Value, fallback: FuncRef) -> Value {
    let fast = match base {
        "sin" => r.sin(b, x),
        "cos" => r.cos(b),
        _ => r.tan(b, x),
    };
    let large = beyond(b, x);
    with_fallback(b, x, large, &[fast], &[fallback])[0]
}

/// sin(x) and cos(x) with one reduction (`sincos`); the library functions for large `x`.
pub fn sincos(b: &mut FunctionBuilder, x: Value, sin: FuncRef, cos: FuncRef) -> Option<(Value, Value)> {
    let t = b.func.dfg.value_type(x);
    let r = match (t.lane_type(), t.lane_count()) {
        (types::F32, 1 | 4) => reduce(b, x),
        (types::F64, 1 | 2) => double::reduce(b, x),
        _ => return None,
    };
    let fast = [r.sin(b, x), r.cos(b)];
    let large = beyond(b, x);
    let v = with_fallback(b, x, large, &fast, &[sin, cos]);
    Some((v[0], v[1]))
}

/// The lanes beyond [`TRIG_FAST`] (or [`double::TRIG_FAST`]) in magnitude (infinities
/// included, NaN not).
fn beyond(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let ax = b.ins().fabs(x);
    let limit = if t.lane_type() == types::F64 {
        double::TRIG_FAST
    } else {
        TRIG_FAST as f64
    };
    let k = fraction::konst(b, t, limit);
    b.ins().fcmp(FloatCC::GreaterThan, ax, k)
}

/// `fast` in the lanes that are not `large`; the `fallbacks` (one per value, taking and
/// returning one lane of `x`'s type) in the others (a NaN stays with `fast`, which is NaN for
/// it), behind a branch taken only when some lane is large.
fn with_fallback(b: &mut FunctionBuilder, x: Value, large: Value, fast: &[Value], fallbacks: &[FuncRef]) -> Vec<Value> {
    let t = b.func.dfg.value_type(x);
    let any = if t.is_vector() { b.ins().vany_true(large) } else { large };
    let (slow, join) = (b.create_block(), b.create_block());
    let ys: Vec<Value> = fast.iter().map(|_| b.append_block_param(join, t)).collect();
    let args: Vec<BlockArg> = fast.iter().map(|v| BlockArg::Value(*v)).collect();
    b.ins().brif(any, slow, &[], join, &args);
    b.seal_block(slow);
    b.switch_to_block(slow);
    let mut out = Vec::with_capacity(fast.len());
    for (f, fr) in fast.iter().zip(fallbacks) {
        let v = if t.is_vector() {
            // The library's value in the lanes that need it, the inline value in the others
            // (the same bits as one lane at a time).
            let mut lib = *f;
            for l in 0..t.lane_count() as u8 {
                let xl = b.ins().extractlane(x, l);
                let call = b.ins().call(*fr, &[xl]);
                let yl = b.inst_results(call)[0];
                lib = b.ins().insertlane(lib, yl, l);
            }
            pick(b, large, lib, *f)
        } else {
            let call = b.ins().call(*fr, &[x]);
            b.inst_results(call)[0]
        };
        out.push(BlockArg::Value(v));
    }
    b.ins().jump(join, &out);
    b.seal_block(join);
    b.switch_to_block(join);
    ys
}

/// `x = n*pi/2 + r` by the three-part reduction (accurate for |x| <= [`TRIG_FAST`]): sin r,
/// cos r, and the quadrant n (mod 4: only its two low bits are used).
fn reduce(b: &mut FunctionBuilder, x: Value) -> Quadrant {
    let t = b.func.dfg.value_type(x);
    let it = int_of(t);
    let k = fk(b, t, std::f32::consts::FRAC_2_PI);
    let y = b.ins().fmul(x, k);
    let n = b.ins().nearest(y);
    let nn = b.ins().fneg(n);
    // pi/2 as three floats: p1 + p2 + p3.
    let half_pi = std::f64::consts::FRAC_PI_2;
    let p1 = half_pi as f32;
    let p2 = (half_pi - p1 as f64) as f32;
    // The rest beyond double precision: pi/2 = 1.5707963267948966 + 6.123233995736766e-17.
    let p3 = ((half_pi - p1 as f64 - p2 as f64) + 6.123_233_995_736_766e-17) as f32;
    let mut r = x;
    for p in [p1, p2, p3] {
        let pk = fk(b, t, p);
        r = b.ins().fma(nn, pk, r);
    }
    let z = b.ins().fmul(r, r);
    // sin r = r + r^3 * (-1/6 + z/120 - z^2/5040 + z^3/362880)
    let mut ps = fk(b, t, (1.0 / 362_880.0) as f32);
    for c in [-1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0] {
        let ck = fk(b, t, c as f32);
        ps = b.ins().fma(ps, z, ck);
    }
    let rz = b.ins().fmul(r, z);
    let sin_r = b.ins().fma(rz, ps, r);
    // cos r = 1 - z/2 + z^2 * (1/24 - z/720 + z^2/40320 - z^3/3628800)
    let mut pc = fk(b, t, (-1.0 / 3_628_800.0) as f32);
    for c in [1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0] {
        let ck = fk(b, t, c as f32);
        pc = b.ins().fma(pc, z, ck);
    }
    let zz = b.ins().fmul(z, z);
    let half = fk(b, t, 0.5);
    let one = fk(b, t, 1.0);
    let hz = b.ins().fmul(half, z);
    let w = b.ins().fsub(one, hz);
    // What 1 - hz lost, added back with the polynomial's part.
    let lost = b.ins().fsub(one, w);
    let lost = b.ins().fsub(lost, hz);
    let tail = b.ins().fma(zz, pc, lost);
    let cos_r = b.ins().fadd(w, tail);
    let q = b.ins().fcvt_to_sint_sat(it, n);
    Quadrant::new(b, sin_r, cos_r, q)
}

/// tanh(x) (5 ulp allowed): below 0.55 in magnitude `x + x^3 * P(x^2)` with `P` a Chebyshev
/// fit of (tanh x - x) / x^3 (error below 4e-10); from there `1 - 2 / (e^(2|x|) + 1)`, where
/// the result is at least 0.5 and nothing cancels; the sign of x put on either.
fn tanh(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let ax = b.ins().fabs(x);
    let z = b.ins().fmul(x, x);
    let coefficients: [f64; 6] = [
        0.002_526_390_710_574_513_6,
        -0.008_526_333_057_801_33,
        0.021_818_449_128_639_904,
        -0.053_964_700_445_158_3,
        0.133_333_242_000_073_13,
        -0.333_333_332_950_259_1,
    ];
    let mut p = fk(b, t, coefficients[0] as f32);
    for c in &coefficients[1..] {
        let ck = fk(b, t, *c as f32);
        p = b.ins().fma(p, z, ck);
    }
    let xz = b.ins().fmul(x, z);
    let small = b.ins().fma(xz, p, x);
    let two = fk(b, t, 2.0);
    let ax2 = b.ins().fmul(ax, two);
    let e = exp(b, "exp", ax2);
    let one = fk(b, t, 1.0);
    let e1 = b.ins().fadd(e, one);
    let q = b.ins().fdiv(two, e1);
    let large = b.ins().fsub(one, q);
    let is_small = fcmp_k(b, FloatCC::LessThan, ax, 0.55);
    let y = pick(b, is_small, small, large);
    copysign(b, y, x)
}

/// sinh and cosh (4 ulp allowed) from one `e = exp(|x|)`: `(e -+ 1/e) / 2`; beyond 88, where
/// `e` would overflow before the result does, `e = exp(|x|/2)` and the result `e/2 * e`. sinh
/// below 1 in magnitude, where the difference cancels, is its Taylor polynomial to degree 11.
fn sinh_cosh(b: &mut FunctionBuilder, base: &str, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let ax = b.ins().fabs(x);
    let half = fk(b, t, 0.5);
    let large = fcmp_k(b, FloatCC::GreaterThan, ax, 88.0);
    let hx = b.ins().fmul(ax, half);
    let arg = pick(b, large, hx, ax);
    let e = exp(b, "exp", arg);
    let he = b.ins().fmul(e, half);
    let big = b.ins().fmul(he, e);
    let hinv = b.ins().fdiv(half, e);
    let mid = if base == "cosh" {
        b.ins().fadd(he, hinv)
    } else {
        b.ins().fsub(he, hinv)
    };
    let y = pick(b, large, big, mid);
    if base == "cosh" {
        return y;
    }
    // x + x^3/3! + ... + x^11/11!, as x + x*z*P(z) with z = x^2.
    let z = b.ins().fmul(x, x);
    let mut p = fk(b, t, 1.0 / 39_916_800.0);
    for c in [1.0 / 362_880.0, 1.0 / 5040.0, 1.0 / 120.0, 1.0 / 6.0] {
        let ck = fk(b, t, c as f32);
        p = b.ins().fma(p, z, ck);
    }
    let xz = b.ins().fmul(x, z);
    let small = b.ins().fma(xz, p, x);
    let is_small = fcmp_k(b, FloatCC::LessThan, ax, 1.0);
    let y = copysign(b, y, x);
    pick(b, is_small, small, y)
}

/// `|y|` with the sign of `x` (Cranelift has no vector fcopysign).
fn copysign(b: &mut FunctionBuilder, y: Value, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if !t.is_vector() {
        return b.ins().fcopysign(y, x);
    }
    let it = int_of(t);
    let m = ik(b, it, i32::MIN as i64);
    let m = b.ins().bitcast(t, MemFlagsData::new(), m);
    b.ins().bitselect(m, x, y)
}

mod atan;
pub mod common;
mod double;
mod exponent;
mod fraction;
pub mod geometric;
mod pi;
mod quadrant;
pub use exponent::{frexp, ilogb, ldexp};
pub use fraction::fraction;
use quadrant::Quadrant;

#[cfg(test)]
mod tests;
