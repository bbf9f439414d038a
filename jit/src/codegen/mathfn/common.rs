//! OpenCL C's common functions that are a few IEEE operations (6.15.4: `step`, `smoothstep`,
//! `sign`, `mix`, `degrees`, `radians`) and `round` (half away from zero), for one value
//! (`F32`, `F64`) or lanes (`F32X4`, `F64X2`) with the same operations, so that the scalar
//! translation, the scalar path's vector registers and the vector loop give the same bits.

use super::fraction::{copysign, konst};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions this module generates (by their OpenCL.std name).
pub fn known(base: &str) -> bool {
    matches!(
        base,
        "step" | "smoothstep" | "sign" | "mix" | "degrees" | "radians" | "round"
    )
}

/// `base(args)` for operands of one float type (`F32`, `F32X4`, `F64`, `F64X2`); `None` for
/// other functions, types or operand counts.
pub fn emit(b: &mut FunctionBuilder, base: &str, args: &[Value]) -> Option<Value> {
    let x = *args.first()?;
    let t = b.func.dfg.value_type(x);
    if !matches!(
        (t.lane_type(), t.lane_count()),
        (types::F32, 1 | 4) | (types::F64, 1 | 2)
    ) {
        return None;
    }
    if args.iter().any(|a| b.func.dfg.value_type(*a) != t) {
        return None;
    }
    let k = |b: &mut FunctionBuilder, c: f64| konst(b, t, c);
    Some(match (base, args) {
        // step(edge, x): 0 if x < edge, else 1.
        ("step", [edge, x]) => {
            let (z, o) = (k(b, 0.0), k(b, 1.0));
            let c = b.ins().fcmp(FloatCC::LessThan, *x, *edge);
            super::pick(b, c, z, o)
        }
        // t = clamp((x - edge0) / (edge1 - edge0), 0, 1); t * t * (3 - 2 * t)
        ("smoothstep", [e0, e1, v]) => {
            let num = b.ins().fsub(*v, *e0);
            let den = b.ins().fsub(*e1, *e0);
            let q = b.ins().fdiv(num, den);
            let (z, o) = (k(b, 0.0), k(b, 1.0));
            let q = b.ins().fmax(q, z);
            let q = b.ins().fmin(q, o);
            let (two, three) = (k(b, 2.0), k(b, 3.0));
            let tq = b.ins().fmul(two, q);
            let s = b.ins().fsub(three, tq);
            let qq = b.ins().fmul(q, q);
            let r = b.ins().fmul(qq, s);
            // 0 for x <= edge0 and 1 for x >= edge1 even where the quotient is not a number
            // (an infinite edge or x).
            let lo = b.ins().fcmp(FloatCC::LessThanOrEqual, *v, *e0);
            let hi = b.ins().fcmp(FloatCC::GreaterThanOrEqual, *v, *e1);
            let r = super::pick(b, lo, z, r);
            super::pick(b, hi, o, r)
        }
        // 1 with the sign of x; a zero stays that zero; NaN gives 0.
        ("sign", [x]) => {
            let (z, o) = (k(b, 0.0), k(b, 1.0));
            let so = copysign(b, o, *x);
            let zs = copysign(b, z, *x);
            let is_zero = b.ins().fcmp(FloatCC::Equal, *x, z);
            let r = super::pick(b, is_zero, zs, so);
            let nan = b.ins().fcmp(FloatCC::Unordered, *x, *x);
            super::pick(b, nan, z, r)
        }
        ("mix", [x, y, a]) => {
            let d = b.ins().fsub(*y, *x);
            let m = b.ins().fmul(d, *a);
            b.ins().fadd(*x, m)
        }
        ("degrees", [x]) => {
            let c = k(b, 180.0 / std::f64::consts::PI);
            b.ins().fmul(*x, c)
        }
        ("radians", [x]) => {
            let c = k(b, std::f64::consts::PI / 180.0);
            b.ins().fmul(*x, c)
        }
        // Half-way cases away from zero: trunc(x), plus 1 with x's sign where the fraction
        // is at least one half.
        ("round", [x]) => {
            let tr = b.ins().trunc(*x);
            let d = b.ins().fsub(*x, tr);
            let ad = b.ins().fabs(d);
            let (half, one) = (k(b, 0.5), k(b, 1.0));
            let s = copysign(b, one, *x);
            let up = b.ins().fadd(tr, s);
            let c = b.ins().fcmp(FloatCC::GreaterThanOrEqual, ad, half);
            super::pick(b, c, up, tr)
        }
        _ => return None,
    })
}
