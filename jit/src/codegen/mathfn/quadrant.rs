//! sin, cos and tan of `x = n*pi/2 + r` from sin r, cos r and the quadrant `n mod 4`, for
//! floats and doubles, one value or lanes: the turn that the float and the double reductions
//! (`mathfn.rs`, `double.rs`) share.

use super::fraction::konst;
use super::ik;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

pub(super) struct Quadrant {
    sin_r: Value,
    cos_r: Value,
    /// Integer lanes of the float's width whose two low bits are `n mod 4`.
    q: Value,
    /// `q & 1`, and the lanes where it is set.
    odd: Value,
    swap: Value,
}

/// `v` with the sign bit flipped where `s` (integers of `v`'s lanes) has it set.
fn xor_sign(b: &mut FunctionBuilder, v: Value, s: Value) -> Value {
    let t = b.func.dfg.value_type(v);
    let vb = b.ins().bitcast(t.as_int(), MemFlagsData::new(), v);
    let vb = b.ins().bxor(vb, s);
    b.ins().bitcast(t, MemFlagsData::new(), vb)
}

/// `x` where it is a zero (either sign), else `v`: sin and tan of -0 are -0, which the
/// reduction's `x - 0*pi/2` (+0) loses.
fn keep_zero(b: &mut FunctionBuilder, x: Value, v: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    let zero = konst(b, t, 0.0);
    let z = b.ins().fcmp(FloatCC::Equal, x, zero);
    super::pick(b, z, x, v)
}

impl Quadrant {
    pub(super) fn new(b: &mut FunctionBuilder, sin_r: Value, cos_r: Value, q: Value) -> Quadrant {
        let it = b.func.dfg.value_type(q);
        let one = ik(b, it, 1);
        let odd = b.ins().band(q, one);
        let zero = ik(b, it, 0);
        let swap = b.ins().icmp(IntCC::NotEqual, odd, zero);
        Quadrant {
            sin_r,
            cos_r,
            q,
            odd,
            swap,
        }
    }

    /// The sign bit's position in a lane.
    fn top(&self, b: &FunctionBuilder) -> i64 {
        let lane = b.func.dfg.value_type(self.q).lane_type();
        if lane == types::I64 {
            63
        } else {
            31
        }
    }

    /// `v` with its sign changed where bit 1 of `q` is set.
    fn flip(&self, b: &mut FunctionBuilder, v: Value, q: Value) -> Value {
        let it = b.func.dfg.value_type(q);
        let two = ik(b, it, 2);
        let s = b.ins().band(q, two);
        let top = self.top(b);
        let s = b.ins().ishl_imm_u(s, top - 1);
        xor_sign(b, v, s)
    }

    /// sin x: sin r, cos r, -sin r, -cos r in quadrants 0 to 3.
    pub(super) fn sin(&self, b: &mut FunctionBuilder, x: Value) -> Value {
        let v = super::pick(b, self.swap, self.cos_r, self.sin_r);
        let v = self.flip(b, v, self.q);
        keep_zero(b, x, v)
    }

    /// cos x: cos r, -sin r, -cos r, sin r; the signs are the sine's one quadrant on, and
    /// n + (n & 1) has the same bit 1 as n + 1.
    pub(super) fn cos(&self, b: &mut FunctionBuilder) -> Value {
        let v = super::pick(b, self.swap, self.sin_r, self.cos_r);
        let q1 = b.ins().iadd(self.q, self.odd);
        self.flip(b, v, q1)
    }

    /// tan x: sin r / cos r in an even quadrant, -cos r / sin r in an odd one.
    pub(super) fn tan(&self, b: &mut FunctionBuilder, x: Value) -> Value {
        let num = super::pick(b, self.swap, self.cos_r, self.sin_r);
        let den = super::pick(b, self.swap, self.sin_r, self.cos_r);
        let v = b.ins().fdiv(num, den);
        let top = self.top(b);
        let neg = b.ins().ishl_imm_u(self.odd, top);
        let v = xor_sign(b, v, neg);
        keep_zero(b, x, v)
    }
}
