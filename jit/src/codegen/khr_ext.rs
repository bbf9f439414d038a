//! Instructions of SPIR-V extensions that OpenCL extensions bring:
//! - SPV_KHR_expect_assume (cl_khr_expect_assume): OpAssumeTrueKHR is a hint and emits
//!   nothing (OpExpectKHR moves its value, in `composite`);
//! - SPV_KHR_bit_instructions (cl_khr_extended_bit_ops): OpBitFieldInsert,
//!   OpBitFieldSExtract, OpBitFieldUExtract (OpBitReverse is in `arith`);
//! - SPV_KHR_integer_dot_product (core in SPIR-V 1.6, cl_khr_integer_dot_product): OpSDot,
//!   OpUDot, OpSUDot and their accumulating saturating forms, on vectors and on 4x8-bit
//!   packed 32-bit scalars;
//! - SPV_KHR_shader_clock (cl_khr_kernel_clock): OpReadClockKHR, a monotonic nanosecond
//!   count shared by every thread of the process, so one counter serves the device,
//!   work-group and sub-group scopes.

use super::layout::Scalar;
use super::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use std::sync::OnceLock;
use std::time::Instant;

/// OpReadClockKHR: nanoseconds since the first read in this process (never decreasing).
pub(crate) extern "C" fn clift_read_clock() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// The all-ones immediate of integer type `t` (immediates are zero-extended).
fn all_ones(t: Type) -> i64 {
    if t.bits() >= 64 {
        -1
    } else {
        ((1u64 << t.bits()) - 1) as i64
    }
}

/// Whether `op` is translated here.
pub(crate) fn is_khr_ext(op: Op) -> bool {
    matches!(
        op,
        Op::AssumeTrueKHR
            | Op::BitFieldInsert
            | Op::BitFieldSExtract
            | Op::BitFieldUExtract
            | Op::SDot
            | Op::UDot
            | Op::SUDot
            | Op::SDotAccSat
            | Op::UDotAccSat
            | Op::SUDotAccSat
            | Op::ReadClockKHR
    )
}

impl FnTx<'_, '_, '_> {
    /// The leaves of operand `i` with its component width.
    fn int_operand(&mut self, inst: &Instruction, i: usize) -> R<(Vec<Value>, u32)> {
        let id = op_id(inst, i)?;
        let ty = self.ty_of(id)?;
        let (s, _) = self.cx.layout.shape(ty).map_err(|e| self.err(inst, &e.message))?;
        match s {
            Scalar::Int(w) => Ok((self.val(id)?, w)),
            _ => Err(self.err(inst, &format!("operand {} is not an integer", i + 1))),
        }
    }

    /// `v` (an integer of any width) as an integer of type `t`: truncated or zero-extended.
    fn int_as(&mut self, v: Value, t: Type) -> Value {
        let vt = self.b.func.dfg.value_type(v);
        if vt.bits() > t.bits() {
            self.b.ins().ireduce(t, v)
        } else if vt.bits() < t.bits() {
            self.b.ins().uextend(t, v)
        } else {
            v
        }
    }

    /// `count` low bits set (count in 0..=width of `t`).
    fn low_mask(&mut self, t: Type, count: Value) -> Value {
        let ones = self.b.ins().iconst(t, all_ones(t));
        let width = self.b.ins().iconst(t, t.bits() as i64);
        let shift = self.b.ins().isub(width, count);
        let m = self.b.ins().ushr(ones, shift);
        let zero = self.b.ins().iconst(t, 0);
        let none = self.b.ins().icmp_imm_u(IntCC::Equal, count, 0);
        self.b.ins().select(none, zero, m)
    }

    pub fn khr_ext(&mut self, inst: &Instruction) -> R {
        match inst.opcode {
            Op::AssumeTrueKHR => Ok(()),
            Op::ReadClockKHR => {
                let (r, ty) = result(inst)?;
                let t = self.call_helper("clift_read_clock", &[], &[types::I64], &[])?[0];
                let leaves = self.cx.layout.get(ty)?.leaves.clone();
                let out = if leaves.len() == 2 {
                    // uvec2: low word first.
                    let lo = self.b.ins().ireduce(types::I32, t);
                    let hi = self.b.ins().ushr_imm_u(t, 32);
                    let hi = self.b.ins().ireduce(types::I32, hi);
                    vec![lo, hi]
                } else {
                    vec![t]
                };
                self.def(r, ty, out);
                Ok(())
            }
            Op::BitFieldInsert => {
                let (r, ty) = result(inst)?;
                let (base, _) = self.int_operand(inst, 0)?;
                let (ins, _) = self.int_operand(inst, 1)?;
                let off = self.val1(op_id(inst, 2)?)?;
                let count = self.val1(op_id(inst, 3)?)?;
                let mut out = Vec::with_capacity(base.len());
                for (b, x) in base.iter().zip(&ins) {
                    let t = self.b.func.dfg.value_type(*b);
                    let off = self.int_as(off, t);
                    let count = self.int_as(count, t);
                    let low = self.low_mask(t, count);
                    let mask = self.b.ins().ishl(low, off);
                    let shifted = self.b.ins().ishl(*x, off);
                    let keep = self.b.ins().band_not(*b, mask);
                    let put = self.b.ins().band(shifted, mask);
                    out.push(self.b.ins().bor(keep, put));
                }
                self.def(r, ty, out);
                Ok(())
            }
            Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let (r, ty) = result(inst)?;
                let (base, _) = self.int_operand(inst, 0)?;
                let off = self.val1(op_id(inst, 1)?)?;
                let count = self.val1(op_id(inst, 2)?)?;
                let mut out = Vec::with_capacity(base.len());
                for b in &base {
                    let t = self.b.func.dfg.value_type(*b);
                    let off = self.int_as(off, t);
                    let count = self.int_as(count, t);
                    let zero = self.b.ins().iconst(t, 0);
                    let none = self.b.ins().icmp_imm_u(IntCC::Equal, count, 0);
                    let v = if inst.opcode == Op::BitFieldUExtract {
                        let s = self.b.ins().ushr(*b, off);
                        let m = self.low_mask(t, count);
                        self.b.ins().band(s, m)
                    } else {
                        // Shift the field to the top, then arithmetic-shift it down.
                        let width = self.b.ins().iconst(t, t.bits() as i64);
                        let top = self.b.ins().isub(width, off);
                        let up = self.b.ins().isub(top, count);
                        let s = self.b.ins().ishl(*b, up);
                        let down = self.b.ins().isub(width, count);
                        let v = self.b.ins().sshr(s, down);
                        self.b.ins().select(none, zero, v)
                    };
                    out.push(v);
                }
                self.def(r, ty, out);
                Ok(())
            }
            _ => self.dot(inst),
        }
    }

    /// OpSDot, OpUDot, OpSUDot (wrapping) and the AccSat forms (exact dot product plus the
    /// accumulator, saturated to the result type).
    fn dot(&mut self, inst: &Instruction) -> R {
        let (r, ty) = result(inst)?;
        let rt = self.cx.layout.get(ty)?.leaves[0];
        let (a_signed, b_signed) = match inst.opcode {
            Op::SDot | Op::SDotAccSat => (true, true),
            Op::UDot | Op::UDotAccSat => (false, false),
            Op::SUDot | Op::SUDotAccSat => (true, false),
            _ => return Err(self.err(inst, "instruction is not supported")),
        };
        let acc_sat = matches!(inst.opcode, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat);
        let packed = inst
            .operands
            .iter()
            .any(|o| matches!(o, Operand::PackedVectorFormat(_)));
        let (mut a, aw) = self.int_operand(inst, 0)?;
        let (mut b, bw) = self.int_operand(inst, 1)?;
        if packed {
            // PackedVectorFormat4x8Bit: four 8-bit components, component 0 in the low byte.
            if a.len() != 1 || b.len() != 1 || aw != 32 || bw != 32 {
                return Err(self.err(inst, "packed operands must be 32-bit scalars"));
            }
            a = self.unpack4x8(a[0]);
            b = self.unpack4x8(b[0]);
        }
        if a.len() != b.len() {
            return Err(self.err(inst, "operands have different component counts"));
        }
        // Exact: products of components of up to 32 bits and their sums fit in 128 bits.
        let wt = if acc_sat { types::I128 } else { rt };
        let mut sum = if acc_sat {
            self.i128_const(0)
        } else {
            self.b.ins().iconst(wt, 0)
        };
        for (x, y) in a.iter().zip(&b) {
            let x = self.extend(*x, wt, a_signed);
            let y = self.extend(*y, wt, b_signed);
            let p = self.b.ins().imul(x, y);
            sum = self.b.ins().iadd(sum, p);
        }
        if acc_sat {
            let acc = self.val1(op_id(inst, 2)?)?;
            let signed = a_signed;
            let acc = self.extend(acc, types::I128, signed);
            let total = self.b.ins().iadd(sum, acc);
            let bits = rt.bits();
            let (lo, hi): (i128, i128) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, if bits >= 128 { i128::MAX } else { (1i128 << bits) - 1 })
            };
            // Compare in 128 bits, select in the result type (Cranelift has no 128-bit
            // min/max on x86-64, which a 128-bit compare-and-select would become).
            let lo_v = self.i128_const(lo);
            let hi_v = self.i128_const(hi);
            let below = self.b.ins().icmp(IntCC::SignedLessThan, total, lo_v);
            let above = self.b.ins().icmp(IntCC::SignedGreaterThan, total, hi_v);
            let r = self.b.ins().ireduce(rt, total);
            let lo_r = self.b.ins().iconst(rt, (lo as i64) & all_ones(rt));
            let hi_r = self.b.ins().iconst(rt, (hi as i64) & all_ones(rt));
            let r = self.b.ins().select(below, lo_r, r);
            sum = self.b.ins().select(above, hi_r, r);
        }
        self.def(r, ty, vec![sum]);
        Ok(())
    }

    fn i128_const(&mut self, v: i128) -> Value {
        let lo = self.b.ins().iconst(types::I64, v as u64 as i64);
        let hi = self.b.ins().iconst(types::I64, (v >> 64) as u64 as i64);
        self.b.ins().iconcat(lo, hi)
    }

    /// `v` widened (or kept) to `t`, sign- or zero-extended.
    fn extend(&mut self, v: Value, t: Type, signed: bool) -> Value {
        let vt = self.b.func.dfg.value_type(v);
        if vt.bits() >= t.bits() {
            return if vt.bits() > t.bits() {
                self.b.ins().ireduce(t, v)
            } else {
                v
            };
        }
        if signed {
            self.b.ins().sextend(t, v)
        } else {
            self.b.ins().uextend(t, v)
        }
    }

    /// The four bytes of a 32-bit value, lowest first, as 8-bit values.
    fn unpack4x8(&mut self, v: Value) -> Vec<Value> {
        (0..4)
            .map(|k| {
                let s = self.b.ins().ushr_imm_u(v, 8 * k);
                self.b.ins().ireduce(types::I8, s)
            })
            .collect()
    }
}
