//! Selects of scalar floats without a branch where they follow the data (speed of real
//! kernels: `step`, `smoothstep`, `round`, per-work-item `?:` on floats).
//!
//! Cranelift's x86 backend lowers `select` of an `f32` or `f64` to a conditional jump around
//! a register move (`XmmCmove`). On data that goes either way at random, as `step(edge, x)`
//! over an array does, the jump is mispredicted half the time: about 5 ns a work-item on this
//! machine, 20 times the cost of the rest of such a kernel. [`branch_free`] runs on a finished
//! function before Cranelift compiles it and rewrites the selects whose condition orders two
//! values (`<`, `<=`, `>`, `>=`, also unordered-or), the ones that follow the data:
//!
//! - on a float comparison of the same type: the comparison and the select on lane 0 of
//!   vector registers (`cmpss`-like compare to a mask, bit select, no jump; `a < b ? a : b`
//!   becomes `minps`);
//! - on any integer comparison (OpenCL C's scalar `select(a, b, c)` tests `c != 0`, often a
//!   comparison's result): a select of the floats' bits (`cmov`).
//!
//! Selects on float equality, NaN or infinity tests (special values, nearly always the same
//! way) keep the jump, which costs less when predicted. The value is the same bits, NaN payloads
//! included.

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, Function, InstBuilder, InstructionData, MemFlagsData, Opcode, ValueDef};

/// Whether a float comparison orders its operands (its result follows the data).
fn ordering(cc: FloatCC) -> bool {
    use FloatCC::*;
    matches!(
        cc,
        LessThan
            | LessThanOrEqual
            | GreaterThan
            | GreaterThanOrEqual
            | UnorderedOrLessThan
            | UnorderedOrLessThanOrEqual
            | UnorderedOrGreaterThan
            | UnorderedOrGreaterThanOrEqual
    )
}

/// Rewrites the scalar float selects of `func` on ordering comparisons (module docs); returns
/// how many.
pub(crate) fn branch_free(func: &mut Function) -> usize {
    let mut count = 0;
    let mut pos = FuncCursor::new(func);
    while pos.next_block().is_some() {
        while let Some(inst) = pos.next_inst() {
            let InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [cond, x, y],
            } = pos.func.dfg.insts[inst]
            else {
                continue;
            };
            let ty = pos.func.dfg.ctrl_typevar(inst);
            let (int, vt) = match ty {
                types::F32 => (types::I32, types::F32X4),
                types::F64 => (types::I64, types::F64X2),
                _ => continue,
            };
            let ValueDef::Result(def, _) = pos.func.dfg.value_def(cond) else {
                continue;
            };
            match pos.func.dfg.insts[def] {
                InstructionData::FloatCompare {
                    cond: cc, args: [a, b], ..
                } if ordering(cc) && pos.func.dfg.value_type(a) == ty => {
                    let [va, vb, vx, vy] = [a, b, x, y].map(|v| pos.ins().scalar_to_vector(vt, v));
                    let m = pos.ins().fcmp(cc, va, vb);
                    let m = pos.ins().bitcast(vt, MemFlagsData::new(), m);
                    let r = pos.ins().bitselect(m, vx, vy);
                    pos.func.replace(inst).extractlane(r, 0);
                }
                InstructionData::IntCompare { .. } => {
                    let xi = pos.ins().bitcast(int, MemFlagsData::new(), x);
                    let yi = pos.ins().bitcast(int, MemFlagsData::new(), y);
                    let bits = pos.ins().select(cond, xi, yi);
                    pos.func.replace(inst).bitcast(ty, MemFlagsData::new(), bits);
                }
                _ => continue,
            }
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::test_jit::functions;
    use cranelift_codegen::ir::condcodes::IntCC;
    use cranelift_codegen::ir::{Type, Value};

    const CCS: [FloatCC; 10] = [
        FloatCC::LessThan,
        FloatCC::LessThanOrEqual,
        FloatCC::GreaterThan,
        FloatCC::GreaterThanOrEqual,
        FloatCC::UnorderedOrLessThan,
        FloatCC::UnorderedOrLessThanOrEqual,
        FloatCC::UnorderedOrGreaterThan,
        FloatCC::UnorderedOrGreaterThanOrEqual,
        FloatCC::Equal,
        FloatCC::Unordered,
    ];

    fn holds(cc: FloatCC, x: f64, e: f64) -> bool {
        let un = x.is_nan() || e.is_nan();
        match cc {
            FloatCC::LessThan => x < e,
            FloatCC::LessThanOrEqual => x <= e,
            FloatCC::GreaterThan => x > e,
            FloatCC::GreaterThanOrEqual => x >= e,
            FloatCC::UnorderedOrLessThan => un || x < e,
            FloatCC::UnorderedOrLessThanOrEqual => un || x <= e,
            FloatCC::UnorderedOrGreaterThan => un || x > e,
            FloatCC::UnorderedOrGreaterThanOrEqual => un || x >= e,
            FloatCC::Equal => x == e,
            _ => un,
        }
    }

    /// `x cc e ? a : b` for every comparison on floats and doubles, and `(int)x < (int)e ? a :
    /// b` (x, e, a, b loaded from `src`), rewritten where the comparison orders.
    #[test]
    fn selects_keep_their_values() {
        let shapes: Vec<(Type, Option<FloatCC>)> = [types::F32, types::F64]
            .iter()
            .flat_map(|t| CCS.iter().map(|cc| (*t, Some(*cc))).chain([(*t, None)]))
            .collect();
        let (_jit, f) = functions(&[], shapes.len(), |k, _, b, src| {
            let (t, cc) = shapes[k];
            let w = t.bytes() as i32;
            let v: Vec<Value> = (0..4)
                .map(|i| b.ins().load(t, MemFlagsData::new(), src, i * w))
                .collect();
            let c = match cc {
                Some(cc) => b.ins().fcmp(cc, v[0], v[1]),
                None => {
                    let it = if t == types::F32 { types::I32 } else { types::I64 };
                    let xi = b.ins().fcvt_to_sint_sat(it, v[0]);
                    let ei = b.ins().fcvt_to_sint_sat(it, v[1]);
                    b.ins().icmp(IntCC::SignedLessThan, xi, ei)
                }
            };
            let r = b.ins().select(c, v[2], v[3]);
            let rewrites = cc.is_none_or(ordering);
            assert_eq!(branch_free(b.func), usize::from(rewrites));
            r
        });
        let vals = [0.5, -0.0, 0.0, f64::NAN, f64::INFINITY, -3.0, 1e-310, 2.7];
        for (k, (t, cc)) in shapes.iter().enumerate() {
            for &x in &vals {
                for &e in &vals {
                    let c = match cc {
                        Some(cc) if *t == types::F32 => holds(*cc, x as f32 as f64, e as f32 as f64),
                        Some(cc) => holds(*cc, x, e),
                        None => (x as i64) < (e as i64),
                    };
                    if *t == types::F64 {
                        let (a, bb) = (f64::from_bits(0x7ff8_0000_0000_1234), -1.25e300);
                        let mut got = 0f64;
                        f[k]([x, e, a, bb].as_ptr() as *const u8, &mut got as *mut f64 as *mut u8);
                        let want = if c { a } else { bb };
                        assert_eq!(got.to_bits(), want.to_bits(), "{x} {cc:?} {e}");
                    } else {
                        let (a, bb) = (f32::from_bits(0x7fc0_0077), 2.5f32);
                        let src = [x as f32, e as f32, a, bb];
                        let mut got = 0f32;
                        f[k](src.as_ptr() as *const u8, &mut got as *mut f32 as *mut u8);
                        let want = if c { a } else { bb };
                        assert_eq!(got.to_bits(), want.to_bits(), "{x} {cc:?} {e} (float)");
                    }
                }
            }
        }
    }
}
