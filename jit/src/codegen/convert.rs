//! Conversions (seeds/004 sections 6.2, 6.3): integer widening/narrowing with optional
//! saturation, float <-> integer with FPRoundingMode and saturation (float-to-integer always
//! saturates, so no value can trap), float <-> float with rounding modes, half conversions,
//! pointer <-> integer, OpBitcast and the generic-pointer casts (no-ops: one flat address space).

use super::arith::mask;
use super::helpers::{RTE, RTN, RTP, RTZ};
use super::layout::{Scalar, Ty};
use super::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Type, Value};
use rspirv::spirv::Op;

impl FnTx<'_, '_, '_> {
    /// Integer `v` (of its clif type) to width `to` bits, `signed` source.
    pub fn int_resize(&mut self, v: Value, to: Type, signed: bool) -> Value {
        let from = self.b.func.dfg.value_type(v);
        if from == to {
            v
        } else if from.bits() > to.bits() {
            self.b.ins().ireduce(to, v)
        } else if signed {
            self.b.ins().sextend(to, v)
        } else {
            self.b.ins().uextend(to, v)
        }
    }

    /// Bool (i8 0/1) to an integer of type `t`.
    pub fn bool_to_int(&mut self, c: Value, t: Type) -> Value {
        if t == types::I8 {
            c
        } else {
            self.b.ins().uextend(t, c)
        }
    }

    /// Clamps integer `v` (signedness `src_signed`, width of its type) into the range of a
    /// `to_bits`-bit integer of signedness `dst_signed`, then resizes.
    fn int_saturate(&mut self, v: Value, src_signed: bool, to_bits: u32, dst_signed: bool) -> Value {
        let from = self.b.func.dfg.value_type(v);
        let fb = from.bits();
        // Work in 64 bits (sign- or zero-extended source).
        let w = self.int_resize(v, types::I64, src_signed);
        let (lo, hi): (i128, i128) = if dst_signed {
            (-(1i128 << (to_bits - 1)), (1i128 << (to_bits - 1)) - 1)
        } else {
            (0, (1i128 << to_bits) - 1)
        };
        let (slo, shi): (i128, i128) = if src_signed {
            (-(1i128 << (fb - 1)), (1i128 << (fb - 1)) - 1)
        } else {
            (0, (1i128 << fb) - 1)
        };
        let mut x = w;
        if hi < shi {
            let h = self.b.ins().iconst(types::I64, hi as i64);
            let cc = if src_signed {
                IntCC::SignedGreaterThan
            } else {
                IntCC::UnsignedGreaterThan
            };
            let c = self.b.ins().icmp(cc, x, h);
            x = self.b.ins().select(c, h, x);
        }
        if lo > slo {
            let l = self.b.ins().iconst(types::I64, lo as i64);
            let c = self.b.ins().icmp(IntCC::SignedLessThan, x, l);
            x = self.b.ins().select(c, l, x);
        }
        let to = Scalar::Int(to_bits).clif();
        self.int_resize(x, to, true)
    }

    /// Float (f32/f64 value) to integer of `bits` bits, saturating, after rounding per `mode`.
    fn float_to_int(&mut self, v: Value, bits: u32, signed: bool, mode: i32) -> Value {
        let v = match mode {
            RTE => self.b.ins().nearest(v),
            RTP => self.b.ins().ceil(v),
            RTN => self.b.ins().floor(v),
            _ => v,
        };
        let to = Scalar::Int(bits).clif();
        if self.b.func.dfg.value_type(v) == types::F32 && bits <= 32 {
            // Cranelift's scalar saturating conversions test NaN and the range with branches,
            // which random data mispredicts (convert_uchar_sat over an image: 5 ns an item);
            // the four-lane conversion is branch-free: lane 0 of it. Narrower results clamp
            // the signed 32-bit value (NaN gives 0, as OpenCL C 6.4.3.3 requires).
            let v4 = self.b.ins().scalar_to_vector(types::F32X4, v);
            let w4 = if signed || bits < 32 {
                self.b.ins().fcvt_to_sint_sat(types::I32X4, v4)
            } else {
                self.b.ins().fcvt_to_uint_sat(types::I32X4, v4)
            };
            let w = self.b.ins().extractlane(w4, 0);
            return if bits == 32 {
                w
            } else {
                self.int_saturate(w, true, bits, signed)
            };
        }
        if bits == 64 && !signed {
            return self.float_to_u64(v);
        }
        if bits >= 32 {
            if signed {
                self.b.ins().fcvt_to_sint_sat(to, v)
            } else {
                self.b.ins().fcvt_to_uint_sat(to, v)
            }
        } else {
            let w = if signed {
                self.b.ins().fcvt_to_sint_sat(types::I32, v)
            } else {
                self.b.ins().fcvt_to_uint_sat(types::I32, v)
            };
            self.int_saturate(w, signed, bits, signed)
        }
    }

    /// A float (already rounded to an integer value) to u64, saturating, NaN to 0. Cranelift's
    /// own sequence branches on the sign and on 2^63, which data of either sign mispredicts;
    /// here the signed conversion (whose overflow test is never taken below 2^63) runs on
    /// `x` or `x - 2^63`, and selects (`cmov`) pick the rest.
    fn float_to_u64(&mut self, v: Value) -> Value {
        let double = self.b.func.dfg.value_type(v) == types::F64;
        let mut k = |c: f64| {
            if double {
                self.b.ins().f64const(c)
            } else {
                self.b.ins().f32const(c as f32)
            }
        };
        let (two63, two64, one) = (k(9_223_372_036_854_775_808.0), k(18_446_744_073_709_551_616.0), k(1.0));
        let big = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, v, two63);
        let less = self.b.ins().fsub(v, two63);
        let x = self.b.ins().select(big, less, v);
        let r = self.b.ins().fcvt_to_sint_sat(types::I64, x);
        let top = self.b.ins().iconst(types::I64, i64::MIN);
        let zero = self.b.ins().iconst(types::I64, 0);
        let flip = self.b.ins().select(big, top, zero);
        let r = self.b.ins().bxor(r, flip);
        let max = self.b.ins().iconst(types::I64, -1);
        let over = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, v, two64);
        let r = self.b.ins().select(over, max, r);
        // Below 1 (negative numbers, -0 and values truncated to 0) and NaN: 0.
        let low = self.b.ins().fcmp(FloatCC::UnorderedOrLessThan, v, one);
        self.b.ins().select(low, zero, r)
    }

    /// u64 to float rounded to nearest: Cranelift's sequence branches on the top bit; here
    /// both the signed conversion (right below 2^63) and the conversion of `x/2` with the lost
    /// bit kept sticky (then doubled, exact) run, and a `cmov` picks one.
    fn u64_to_float(&mut self, x: Value, t: Type) -> Value {
        let direct = self.b.ins().fcvt_from_sint(t, x);
        let half = self.b.ins().ushr_imm_u(x, 1);
        let low = self.b.ins().band_imm_s(x, 1);
        let half = self.b.ins().bor(half, low);
        let h = self.b.ins().fcvt_from_sint(t, half);
        let doubled = self.b.ins().fadd(h, h);
        let top = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
        self.b.ins().select(top, doubled, direct)
    }

    /// Integer to float with rounding mode.
    fn int_to_float(&mut self, v: Value, signed: bool, to: Scalar, mode: i32) -> R<Value> {
        let from = self.b.func.dfg.value_type(v);
        // Exact cases: the whole source range fits the destination's significand.
        let exact = match to {
            Scalar::Float(32) => from.bits() <= 16,
            Scalar::Float(64) => from.bits() <= 32,
            _ => false,
        };
        if to != Scalar::Float(16) && (mode == RTE || exact) {
            let (src, t) = if from.bits() < 32 {
                (self.int_resize(v, types::I32, signed), to.clif())
            } else {
                (v, to.clif())
            };
            return Ok(if signed {
                self.b.ins().fcvt_from_sint(t, src)
            } else if self.b.func.dfg.value_type(src) == types::I64 {
                self.u64_to_float(src, t)
            } else {
                self.b.ins().fcvt_from_uint(t, src)
            });
        }
        let x = self.int_resize(v, types::I64, signed);
        if to == Scalar::Float(16) && mode == RTE {
            // Exact in f64 up to 2^53, and every integer beyond is far past the largest half
            // (infinity either way): one rounding, inline (`half`).
            let f = if signed {
                self.b.ins().fcvt_from_sint(types::F64, x)
            } else {
                self.b.ins().fcvt_from_uint(types::F64, x)
            };
            return Ok(self.float_to_half(f));
        }
        let s = self.b.ins().iconst(types::I32, signed as i64);
        let m = self.b.ins().iconst(types::I32, mode as i64);
        Ok(match to {
            Scalar::Float(32) => self.call_helper(
                "clift_cvt_int_f32",
                &[types::I64, types::I32, types::I32],
                &[types::F32],
                &[x, s, m],
            )?[0],
            Scalar::Float(64) => self.call_helper(
                "clift_cvt_int_f64",
                &[types::I64, types::I32, types::I32],
                &[types::F64],
                &[x, s, m],
            )?[0],
            _ => {
                let r = self.call_helper(
                    "clift_cvt_int_f16",
                    &[types::I64, types::I32, types::I32],
                    &[types::I32],
                    &[x, s, m],
                )?[0];
                self.b.ins().ireduce(types::I16, r)
            }
        })
    }

    /// Float to float (any of f16/f32/f64) with rounding mode.
    pub fn float_to_float(&mut self, v: Value, from: Scalar, to: Scalar, mode: i32) -> R<Value> {
        if from == to {
            return Ok(v);
        }
        // Half to f32 and f64 is exact (f32 to f64 too, the NaN payload kept), and f32 and f64 to
        // half rounded to nearest even inline (`half`).
        match (from, to, mode) {
            (Scalar::Float(16), Scalar::Float(32), _) => return Ok(self.half_to_f32(v)),
            (Scalar::Float(16), _, _) => return Ok(self.half_to_f64(v)),
            (Scalar::Float(32) | Scalar::Float(64), Scalar::Float(16), RTE) => return Ok(self.float_to_half(v)),
            (Scalar::Float(32) | Scalar::Float(64), Scalar::Float(16), RTZ | RTP | RTN) => {
                return Ok(self.float_to_half_in_mode(v, mode))
            }
            _ => {}
        }
        let m = self.b.ins().iconst(types::I32, mode as i64);
        Ok(match (from, to) {
            (Scalar::Float(32), Scalar::Float(64)) => self.b.ins().fpromote(types::F64, v),
            (Scalar::Float(64), Scalar::Float(32)) => {
                if mode == RTE {
                    self.b.ins().fdemote(types::F32, v)
                } else {
                    self.call_helper("clift_cvt_f64_f32", &[types::F64, types::I32], &[types::F32], &[v, m])?[0]
                }
            }
            (Scalar::Float(32), Scalar::Float(16)) => {
                let r = self.call_helper("clift_cvt_f32_f16", &[types::F32, types::I32], &[types::I32], &[v, m])?[0];
                self.b.ins().ireduce(types::I16, r)
            }
            _ => {
                let r = self.call_helper("clift_cvt_f64_f16", &[types::F64, types::I32], &[types::I32], &[v, m])?[0];
                self.b.ins().ireduce(types::I16, r)
            }
        })
    }

    pub fn convert(&mut self, inst: &Instruction) -> R {
        let (r, ty) = result(inst)?;
        let src_id = op_id(inst, 0)?;
        let src_ty = self.ty_of(src_id)?;
        let vals = self.val(src_id)?;
        let op = inst.opcode;
        let mode = self.cx.rounding.get(&r).map(|m| *m as i32);
        let sat = self.cx.saturated.contains(&r);
        if matches!(
            op,
            Op::PtrCastToGeneric | Op::GenericCastToPtr | Op::GenericCastToPtrExplicit
        ) {
            self.def(r, ty, vals);
            return Ok(());
        }
        if op == Op::Bitcast {
            return self.bitcast(inst, r, ty, src_ty, vals);
        }
        let (from, _) = self.cx.layout.shape(src_ty).map_err(|e| self.err(inst, &e.message))?;
        let (to, _) = self.cx.layout.shape(ty).map_err(|e| self.err(inst, &e.message))?;
        let mut out = Vec::with_capacity(vals.len());
        for v in vals {
            let x = match op {
                Op::SConvert | Op::UConvert | Op::SatConvertSToU | Op::SatConvertUToS => {
                    let (Scalar::Int(tb), Scalar::Int(_)) = (to, from) else {
                        return Err(self.err(inst, "integer conversion of non-integers"));
                    };
                    let src_signed = matches!(op, Op::SConvert | Op::SatConvertSToU);
                    let dst_signed = match op {
                        Op::SConvert => true,
                        Op::UConvert => false,
                        Op::SatConvertSToU => false,
                        _ => true,
                    };
                    let saturate = sat || matches!(op, Op::SatConvertSToU | Op::SatConvertUToS);
                    if saturate {
                        // For OpSConvert/OpUConvert with SaturatedConversion, signedness of
                        // the destination follows the source.
                        let ds = if matches!(op, Op::SConvert | Op::UConvert) {
                            src_signed
                        } else {
                            dst_signed
                        };
                        self.int_saturate(v, src_signed, tb, ds)
                    } else {
                        self.int_resize(v, to.clif(), src_signed)
                    }
                }
                Op::ConvertFToU | Op::ConvertFToS => {
                    let Scalar::Int(tb) = to else {
                        return Err(self.err(inst, "float-to-integer conversion to a non-integer"));
                    };
                    let w = self.widen_half(v, from)?;
                    self.float_to_int(w, tb, op == Op::ConvertFToS, mode.unwrap_or(RTZ))
                }
                Op::ConvertSToF | Op::ConvertUToF => {
                    let v = if from == Scalar::Bool {
                        self.bool_to_int(v, types::I32)
                    } else {
                        v
                    };
                    self.int_to_float(v, op == Op::ConvertSToF, to, mode.unwrap_or(RTE))?
                }
                Op::FConvert => self.float_to_float(v, from, to, mode.unwrap_or(RTE))?,
                Op::QuantizeToF16 => {
                    let h = self.float_to_float(v, from, Scalar::Float(16), RTE)?;
                    self.float_to_float(h, Scalar::Float(16), from, RTE)?
                }
                Op::ConvertPtrToU | Op::ConvertUToPtr => self.int_resize(v, to.clif(), false),
                _ => return Err(self.err(inst, "conversion is not supported")),
            };
            out.push(x);
        }
        self.def(r, ty, out);
        Ok(())
    }

    fn bitcast(&mut self, inst: &Instruction, r: u32, ty: u32, src_ty: u32, vals: Vec<Value>) -> R {
        let dst = self.cx.layout.get(ty)?.clone();
        let src = self.cx.layout.get(src_ty)?.clone();
        if dst.leaves.len() == 1 && src.leaves.len() == 1 {
            let (t, v) = (dst.leaves[0], vals[0]);
            let st = self.b.func.dfg.value_type(v);
            let out = if st == t {
                v
            } else if st.bits() == t.bits() {
                self.b.ins().bitcast(t, MemFlagsData::new(), v)
            } else {
                return Err(self.err(inst, "bitcast between types of different sizes"));
            };
            self.def(r, ty, vec![out]);
            return Ok(());
        }
        // General case through memory (vectors of different shapes; 3-component vectors use
        // their 4-component storage size).
        let bytes: u32 = src.leaves.iter().map(|l| l.bytes()).sum();
        let dbytes: u32 = dst.leaves.iter().map(|l| l.bytes()).sum();
        if bytes != dbytes {
            return Err(self.err(inst, "bitcast between types of different sizes"));
        }
        let slot = self
            .b
            .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes.max(1), 4));
        let mut off = 0;
        for v in &vals {
            self.b.ins().stack_store(types::I64, *v, slot, off as i32);
            off += self.b.func.dfg.value_type(*v).bytes();
        }
        let mut out = Vec::new();
        let mut off = 0;
        for l in &dst.leaves {
            out.push(self.b.ins().stack_load(types::I64, *l, slot, off as i32));
            off += l.bytes();
        }
        self.def(r, ty, out);
        let _ = (Ty::Void, mask(8), RTN);
        Ok(())
    }
}
