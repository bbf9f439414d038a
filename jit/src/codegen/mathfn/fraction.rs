//! `fract` and `modf` without their store: the returned fraction and the whole part that goes
//! through the pointer, for one value (`F32`, `F64`) or lanes (`F32X4`, `F64X2`) with the same
//! operations, so that the scalar translation and the vector loop give the same bits.
//!
//! OpenCL C 6.15.2: `fract(x, iptr)` returns `fmin(x - floor(x), 0x1.fffffep-1f)` and stores
//! `floor(x)`; `modf(x, iptr)` returns `x - trunc(x)` with the sign of `x` and stores
//! `trunc(x)`. The fraction of an infinity is a zero of its sign, of a NaN the NaN; `fract` of
//! a zero is that zero.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// `(fraction, whole)` of `x` for `base` "fract" or "modf".
pub fn fraction(b: &mut FunctionBuilder, base: &str, x: Value) -> (Value, Value) {
    let t = b.func.dfg.value_type(x);
    let whole = if base == "fract" {
        b.ins().floor(x)
    } else {
        b.ins().trunc(x)
    };
    let d = b.ins().fsub(x, whole);
    let z = konst(b, t, 0.0);
    let zs = copysign(b, z, x);
    let ax = b.ins().fabs(x);
    let inf = konst(b, t, f64::INFINITY);
    let is_inf = b.ins().fcmp(FloatCC::Equal, ax, inf);
    if base == "modf" {
        let d = copysign(b, d, x);
        return (super::pick(b, is_inf, zs, d), whole);
    }
    // The largest float below 1: a fraction that rounds up to 1 (-tiny - floor) stays below.
    let below = if t.lane_type() == types::F64 {
        f64::from_bits(0x3fef_ffff_ffff_ffff)
    } else {
        f32::from_bits(0x3f7f_ffff) as f64
    };
    let below = konst(b, t, below);
    let lt = b.ins().fcmp(FloatCC::LessThan, d, below);
    let d = super::pick(b, lt, d, below);
    // +-0 and +-infinity give a zero of x's sign; NaN gives NaN (d is NaN: `lt` is false, so
    // `below` was picked; take x back).
    let zero = b.ins().fcmp(FloatCC::Equal, x, z);
    let special = b.ins().bor(zero, is_inf);
    let d = super::pick(b, special, zs, d);
    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    (super::pick(b, nan, x, d), whole)
}

/// A constant of float type `t` (in every lane).
pub(super) fn konst(b: &mut FunctionBuilder, t: Type, c: f64) -> Value {
    let s = if t.lane_type() == types::F64 {
        b.ins().f64const(c)
    } else {
        b.ins().f32const(c as f32)
    };
    if t.is_vector() {
        b.ins().splat(t, s)
    } else {
        s
    }
}

/// `|y|` with the sign of `x` (Cranelift has no vector fcopysign).
pub(super) fn copysign(b: &mut FunctionBuilder, y: Value, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if !t.is_vector() {
        return b.ins().fcopysign(y, x);
    }
    // -0.0 in every lane: the sign bits.
    let m = konst(b, t, -0.0);
    b.ins().bitselect(m, x, y)
}
