//! Selects of scalar floats without a branch (speed of real kernels: `step`, `select`,
//! `sign`, `round`, saturating conversions, per-work-item `?:` on floats).
//!
//! Cranelift's x86 backend lowers `select` of an `f32` or `f64` to a conditional jump around
//! a register move (`XmmCmove`), where an integer `select` becomes a `cmov`. On data that
//! goes either way at random, as `step(edge, x)` over an array does, the jump is mispredicted
//! half the time: about 5 ns a work-item on this machine, 20 times the cost of the rest of
//! such a kernel. [`branch_free`] runs on a finished function before Cranelift compiles it
//! and makes each such select one on the float's bits (`bitcast`, integer `select`,
//! `bitcast`): two or three register moves and a `cmov`, the same on every input. The value
//! is the same bits, NaN payloads included.

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{types, Function, InstBuilder, InstructionData, MemFlagsData, Opcode};

/// Rewrites every scalar float `select` of `func` as a select of its bits; returns how many.
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
            let int = match ty {
                types::F32 => types::I32,
                types::F64 => types::I64,
                _ => continue,
            };
            let xi = pos.ins().bitcast(int, MemFlagsData::new(), x);
            let yi = pos.ins().bitcast(int, MemFlagsData::new(), y);
            let bits = pos.ins().select(cond, xi, yi);
            pos.func.replace(inst).bitcast(ty, MemFlagsData::new(), bits);
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::test_jit::functions;
    use cranelift_codegen::ir::condcodes::FloatCC;
    use cranelift_codegen::ir::Value;
    use cranelift_frontend::FunctionBuilder;

    /// `x < e ? a : b` on floats and doubles (x, e, a, b loaded from `src`), rewritten.
    #[test]
    fn selects_keep_their_values() {
        let ts = [types::F32, types::F64];
        let (_jit, f) = functions(&[], 2, |k, _, b: &mut FunctionBuilder, src| {
            let t = ts[k];
            let w = t.bytes() as i32;
            let v: Vec<Value> = (0..4)
                .map(|i| b.ins().load(t, MemFlagsData::new(), src, i * w))
                .collect();
            let c = b.ins().fcmp(FloatCC::LessThan, v[0], v[1]);
            let r = b.ins().select(c, v[2], v[3]);
            assert_eq!(branch_free(b.func), 1);
            r
        });
        let vals = [0.5, -0.0, 0.0, f64::NAN, f64::INFINITY, -3.0, 1e-310];
        for &x in &vals {
            for &e in &vals {
                let (a, bb) = (f64::from_bits(0x7ff8_0000_0000_1234), -1.25e300);
                let want = if x < e { a } else { bb };
                let src = [x, e, a, bb];
                let mut got = 0f64;
                f[1](src.as_ptr() as *const u8, &mut got as *mut f64 as *mut u8);
                assert_eq!(got.to_bits(), want.to_bits(), "{x} < {e}");
                let (a, bb) = (f32::from_bits(0x7fc0_0077), 2.5f32);
                let src = [x as f32, e as f32, a, bb];
                let want = if (x as f32) < (e as f32) { a } else { bb };
                let mut got = 0f32;
                f[0](src.as_ptr() as *const u8, &mut got as *mut f32 as *mut u8);
                assert_eq!(got.to_bits(), want.to_bits(), "{x} < {e} (float)");
            }
        }
    }
}
