//! Integer and floating-point arithmetic, bitwise operations, comparisons, logical operations,
//! select, the floating-point class tests, OpAny/OpAll, OpDot and OpVectorTimesScalar. Vectors
//! are handled component by component, except where `vector::simd_arith` computes them in SIMD
//! registers. Integer division never traps (see `safe_divisor`).

use super::layout::Scalar;
use super::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use rspirv::spirv::Op;

impl FnTx<'_, '_, '_> {
    /// Half (16-bit pattern) to f32; other values unchanged.
    pub fn widen_half(&mut self, v: Value, s: Scalar) -> R<Value> {
        if s != Scalar::Float(16) {
            return Ok(v);
        }
        Ok(self.half_to_f32(v))
    }

    /// f32 back to a half pattern (round to nearest even); other values unchanged.
    pub fn narrow_half(&mut self, v: Value, s: Scalar) -> R<Value> {
        if s != Scalar::Float(16) {
            return Ok(v);
        }
        Ok(self.float_to_half(v))
    }

    /// A half (`I16` bits) to f32, inline (exact, see `half`); a half just rounded from a float
    /// is that float rounded to half precision, without going through its bits.
    pub fn half_to_f32(&mut self, v: Value) -> Value {
        if let Some(&q) = self.half_wide.get(&v) {
            return match self.b.func.dfg.value_type(q) {
                types::F32 => q,
                _ => self.b.ins().fdemote(types::F32, q),
            };
        }
        let x = self.b.ins().uextend(types::I32, v);
        let bits = super::half::half_to_f32_bits(&mut self.b, x);
        let f = self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
        self.half_narrow.insert(f, v);
        f
    }

    /// A half (`I16` bits) to f64 (exact).
    pub fn half_to_f64(&mut self, v: Value) -> Value {
        if let Some(&q) = self.half_wide.get(&v) {
            if self.b.func.dfg.value_type(q) == types::F64 {
                return q;
            }
        }
        let f = self.half_to_f32(v);
        let d = self.b.ins().fpromote(types::F64, f);
        self.half_narrow.insert(d, v);
        d
    }

    /// Half bits `h` (`I16`) as narrowing their widened value gives them back: a NaN becomes
    /// the quiet NaN 0x7e00 with its sign, as `half` narrows every NaN.
    fn half_renarrowed(&mut self, h: Value) -> Value {
        let x = self.b.ins().uextend(types::I32, h);
        let mag = self.b.ins().band_imm_s(x, 0x7fff);
        let is_nan = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, mag, 0x7c00);
        let sign = self.b.ins().band_imm_s(x, 0x8000);
        let quiet = self.b.ins().bor_imm_s(sign, 0x7e00);
        let r = self.b.ins().select(is_nan, quiet, x);
        self.b.ins().ireduce(types::I16, r)
    }

    /// An f32 or f64 to half bits (`I16`) rounded to nearest even, inline (see `half`).
    pub fn float_to_half(&mut self, v: Value) -> Value {
        if let Some(&h) = self.half_narrow.get(&v) {
            return self.half_renarrowed(h);
        }
        let ft = self.b.func.dfg.value_type(v);
        let it = if ft == types::F64 { types::I64 } else { types::I32 };
        let x = self.b.ins().bitcast(it, MemFlagsData::new(), v);
        let h = if ft == types::F64 {
            super::half::f64_bits_to_half(&mut self.b, x)
        } else {
            super::half::f32_bits_to_half(&mut self.b, x)
        };
        let h = self.b.ins().ireduce(types::I16, h);
        // What widening `h` gives, computed from `v` (dead code unless `h` is widened).
        let q = super::half::round_to_half_bits(&mut self.b, x);
        let q = self.b.ins().bitcast(ft, MemFlagsData::new(), q);
        self.half_wide.insert(h, q);
        h
    }

    /// An f32 or f64 to half bits (`I16`) rounded in `mode`, inline (see `half`).
    pub fn float_to_half_in_mode(&mut self, v: Value, mode: i32) -> Value {
        if mode == super::helpers::RTE {
            return self.float_to_half(v);
        }
        // A widened half is exact: every mode gives it back.
        if let Some(&h) = self.half_narrow.get(&v) {
            return self.half_renarrowed(h);
        }
        let ft = self.b.func.dfg.value_type(v);
        let it = if ft == types::F64 { types::I64 } else { types::I32 };
        let x = self.b.ins().bitcast(it, MemFlagsData::new(), v);
        let h = super::half::to_half_in_mode(&mut self.b, x, mode);
        self.b.ins().ireduce(types::I16, h)
    }

    /// A divisor that cannot trap: 1 where `d` is 0 (or -1 with `x` the minimum, signed).
    fn safe_divisor(&mut self, x: Value, d: Value, signed: bool) -> Value {
        let t = self.b.func.dfg.value_type(d);
        let one = self.b.ins().iconst(t, 1);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
        let bad = if signed {
            let min = self.b.ins().iconst(t, (1i64 << (t.bits() - 1)) & mask(t.bits()) as i64);
            let xm = self.b.ins().icmp(IntCC::Equal, x, min);
            let dm = self.b.ins().icmp_imm_s(IntCC::Equal, d, -1);
            let both = self.b.ins().band(xm, dm);
            self.b.ins().bor(zero, both)
        } else {
            zero
        };
        self.b.ins().select(bad, one, d)
    }

    /// The one Cranelift instruction of a SPIR-V operation that is the same for every lane and
    /// needs only its two operands, on values of any shape: a scalar, a SIMD vector of the
    /// scalar path (`vector`) or the vector loop's four or two lanes (`simd`), which all build
    /// these operations here. `None` for the others (division, remainders, shifts: their
    /// operand rules differ by shape).
    pub(crate) fn lanewise(&mut self, op: Op, x: Value, y: Value) -> Option<Value> {
        let b = &mut self.b;
        Some(match op {
            Op::IAdd => b.ins().iadd(x, y),
            Op::ISub => b.ins().isub(x, y),
            Op::IMul => b.ins().imul(x, y),
            Op::BitwiseAnd => b.ins().band(x, y),
            Op::BitwiseOr => b.ins().bor(x, y),
            Op::BitwiseXor => b.ins().bxor(x, y),
            Op::FAdd => b.ins().fadd(x, y),
            Op::FSub => b.ins().fsub(x, y),
            Op::FMul => b.ins().fmul(x, y),
            Op::FDiv => b.ins().fdiv(x, y),
            _ => return None,
        })
    }

    /// Whether `op` is one of [`Self::lanewise_unary`]'s operations (for some lane types).
    pub(crate) fn is_lanewise_unary(op: Op) -> bool {
        matches!(
            op,
            Op::FNegate
                | Op::SNegate
                | Op::Not
                | Op::Bitcast
                | Op::ConvertSToF
                | Op::ConvertUToF
                | Op::ConvertFToS
                | Op::ConvertFToU
        )
    }

    /// The one-operand counterpart of [`Self::lanewise`]: negations, `Not`, and conversions
    /// of 32-bit integers to floats and bit casts whose result has lane type `to` (the same
    /// shape as `x`).
    pub(crate) fn lanewise_unary(&mut self, op: Op, x: Value, to: Type) -> Option<Value> {
        let b = &mut self.b;
        Some(match op {
            Op::FNegate => b.ins().fneg(x),
            Op::SNegate => b.ins().ineg(x),
            Op::Not => b.ins().bnot(x),
            Op::ConvertSToF => b.ins().fcvt_from_sint(to, x),
            Op::ConvertUToF => b.ins().fcvt_from_uint(to, x),
            // Four lanes only: the scalar translation's conversion (`float_to_int`) is lane 0
            // of these, which have no branches.
            Op::ConvertFToS if to == types::I32X4 => b.ins().fcvt_to_sint_sat(to, x),
            Op::ConvertFToU if to == types::I32X4 => b.ins().fcvt_to_uint_sat(to, x),
            Op::Bitcast if b.func.dfg.value_type(x) == to => x,
            Op::Bitcast => b.ins().bitcast(to, MemFlagsData::new(), x),
            _ => return None,
        })
    }

    fn int_bin(&mut self, op: Op, x: Value, y: Value) -> Value {
        if let Some(v) = self.lanewise(op, x, y) {
            return v;
        }
        let b = &mut self.b;
        match op {
            Op::ShiftLeftLogical => b.ins().ishl(x, y),
            Op::ShiftRightLogical => b.ins().ushr(x, y),
            Op::ShiftRightArithmetic => b.ins().sshr(x, y),
            Op::UDiv => {
                let d = self.safe_divisor(x, y, false);
                self.b.ins().udiv(x, d)
            }
            Op::UMod => {
                let d = self.safe_divisor(x, y, false);
                self.b.ins().urem(x, d)
            }
            Op::SDiv => {
                let d = self.safe_divisor(x, y, true);
                self.b.ins().sdiv(x, d)
            }
            Op::SRem => {
                let d = self.safe_divisor(x, y, true);
                self.b.ins().srem(x, d)
            }
            Op::SMod => {
                let d = self.safe_divisor(x, y, true);
                let r = self.b.ins().srem(x, d);
                let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
                let sx = self.b.ins().bxor(r, d);
                let diff = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, sx, 0);
                let fix = self.b.ins().band(nz, diff);
                let adj = self.b.ins().iadd(r, d);
                self.b.ins().select(fix, adj, r)
            }
            _ => x,
        }
    }

    fn float_bin(&mut self, op: Op, x: Value, y: Value) -> R<Value> {
        let t = self.b.func.dfg.value_type(x);
        if let Some(v) = self.lanewise(op, x, y) {
            return Ok(v);
        }
        Ok(match op {
            Op::FRem | Op::FMod => {
                let name = if t == types::F64 {
                    "clift_frem_f64"
                } else {
                    "clift_frem_f32"
                };
                let r = self.call_helper(name, &[t, t], &[t], &[x, y])?[0];
                if op == Op::FRem {
                    r
                } else {
                    // Result takes the sign of y.
                    let z = self.zero(t);
                    let nz = self.b.ins().fcmp(FloatCC::NotEqual, r, z);
                    let rn = self.b.ins().fcmp(FloatCC::LessThan, r, z);
                    let yn = self.b.ins().fcmp(FloatCC::LessThan, y, z);
                    let diff = self.b.ins().bxor(rn, yn);
                    let fix = self.b.ins().band(nz, diff);
                    let adj = self.b.ins().fadd(r, y);
                    self.b.ins().select(fix, adj, r)
                }
            }
            _ => x,
        })
    }

    fn cmp(&mut self, op: Op, x: Value, y: Value) -> Value {
        match (int_cc(op), float_cc(op)) {
            (Some(cc), _) => self.b.ins().icmp(cc, x, y),
            (_, Some(cc)) => self.b.ins().fcmp(cc, x, y),
            _ => self.b.ins().fcmp(FloatCC::Unordered, x, y),
        }
    }

    /// Operand values and the scalar kind of operand `i`.
    fn operand(&mut self, inst: &Instruction, i: usize) -> R<(Vec<Value>, Scalar)> {
        let id = op_id(inst, i)?;
        let ty = self.ty_of(id)?;
        let (s, _) = self.cx.layout.shape(ty).map_err(|e| self.err(inst, &e.message))?;
        Ok((self.val(id)?, s))
    }

    pub fn arith(&mut self, inst: &Instruction) -> R {
        use Op::*;
        if self.simd_arith(inst)? {
            return Ok(());
        }
        let op = inst.opcode;
        match op {
            IAdd | ISub | IMul | UDiv | SDiv | UMod | SRem | SMod | ShiftRightLogical | ShiftRightArithmetic
            | ShiftLeftLogical | BitwiseOr | BitwiseXor | BitwiseAnd => {
                let (r, ty) = result(inst)?;
                let (a, _) = self.operand(inst, 0)?;
                let (bv, _) = self.operand(inst, 1)?;
                self.check_len(inst, &a, &bv)?;
                let out: Vec<Value> = a.iter().zip(&bv).map(|(x, y)| self.int_bin(op, *x, *y)).collect();
                self.def(r, ty, out);
            }
            LogicalOr | LogicalAnd => {
                let (r, ty) = result(inst)?;
                let (a, _) = self.operand(inst, 0)?;
                let (bv, _) = self.operand(inst, 1)?;
                self.check_len(inst, &a, &bv)?;
                let out = a
                    .iter()
                    .zip(&bv)
                    .map(|(x, y)| {
                        if op == LogicalOr {
                            self.b.ins().bor(*x, *y)
                        } else {
                            self.b.ins().band(*x, *y)
                        }
                    })
                    .collect();
                self.def(r, ty, out);
            }
            LogicalNot => {
                let (r, ty) = result(inst)?;
                let (a, _) = self.operand(inst, 0)?;
                let out = a.iter().map(|x| self.b.ins().bxor_imm_s(*x, 1)).collect();
                self.def(r, ty, out);
            }
            SNegate | Not | BitCount | BitReverse => {
                let (r, ty) = result(inst)?;
                let (a, _) = self.operand(inst, 0)?;
                let out = a
                    .iter()
                    .map(|x| match op {
                        SNegate => self.b.ins().ineg(*x),
                        Not => self.b.ins().bnot(*x),
                        BitCount => self.b.ins().popcnt(*x),
                        _ => self.b.ins().bitrev(*x),
                    })
                    .collect();
                self.def(r, ty, out);
            }
            FAdd | FSub | FMul | FDiv | FRem | FMod => {
                let (r, ty) = result(inst)?;
                let (a, s) = self.operand(inst, 0)?;
                let (bv, _) = self.operand(inst, 1)?;
                self.check_len(inst, &a, &bv)?;
                let mut out = Vec::new();
                for (x, y) in a.iter().zip(&bv) {
                    let x = self.widen_half(*x, s)?;
                    let y = self.widen_half(*y, s)?;
                    let v = self.float_bin(op, x, y)?;
                    out.push(self.narrow_half(v, s)?);
                }
                self.def(r, ty, out);
            }
            FNegate => {
                let (r, ty) = result(inst)?;
                let (a, s) = self.operand(inst, 0)?;
                let out = a
                    .iter()
                    .map(|x| {
                        if s == Scalar::Float(16) {
                            self.b.ins().bxor_imm_s(*x, 0x8000u16 as i16 as i64)
                        } else {
                            self.b.ins().fneg(*x)
                        }
                    })
                    .collect();
                self.def(r, ty, out);
            }
            IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | LogicalEqual
            | LogicalNotEqual
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | Ordered
            | Unordered
            | LessOrGreater => {
                let (r, ty) = result(inst)?;
                let (a, s) = self.operand(inst, 0)?;
                let (bv, _) = self.operand(inst, 1)?;
                self.check_len(inst, &a, &bv)?;
                let mut out = Vec::new();
                for (x, y) in a.iter().zip(&bv) {
                    let x = self.widen_half(*x, s)?;
                    let y = self.widen_half(*y, s)?;
                    out.push(self.cmp(op, x, y));
                }
                self.def(r, ty, out);
            }
            IsNan | IsInf | IsFinite | IsNormal | SignBitSet => {
                let (r, ty) = result(inst)?;
                let (a, s) = self.operand(inst, 0)?;
                let mut out = Vec::new();
                for x in a {
                    let x = self.widen_half(x, s)?;
                    out.push(self.class_test(op, x, s == Scalar::Float(16)));
                }
                self.def(r, ty, out);
            }
            Any | All => {
                let (r, ty) = result(inst)?;
                let (a, _) = self.operand(inst, 0)?;
                let mut acc = a[0];
                for x in &a[1..] {
                    acc = if op == Any {
                        self.b.ins().bor(acc, *x)
                    } else {
                        self.b.ins().band(acc, *x)
                    };
                }
                self.def(r, ty, vec![acc]);
            }
            Select => {
                let (r, ty) = result(inst)?;
                let c = self.val(op_id(inst, 0)?)?;
                let a = self.val(op_id(inst, 1)?)?;
                let bv = self.val(op_id(inst, 2)?)?;
                self.check_len(inst, &a, &bv)?;
                let out = (0..a.len())
                    .map(|i| {
                        let ci = if c.len() == a.len() { c[i] } else { c[0] };
                        self.b.ins().select(ci, a[i], bv[i])
                    })
                    .collect();
                self.def(r, ty, out);
            }
            Dot => {
                let (r, ty) = result(inst)?;
                let (a, s) = self.operand(inst, 0)?;
                let (bv, _) = self.operand(inst, 1)?;
                self.check_len(inst, &a, &bv)?;
                let mut acc: Option<Value> = None;
                for (x, y) in a.iter().zip(&bv) {
                    let x = self.widen_half(*x, s)?;
                    let y = self.widen_half(*y, s)?;
                    let p = self.b.ins().fmul(x, y);
                    acc = Some(match acc {
                        Some(a) => self.b.ins().fadd(a, p),
                        None => p,
                    });
                }
                let v = acc.ok_or_else(|| self.err(inst, "empty vector"))?;
                let v = self.narrow_half(v, s)?;
                self.def(r, ty, vec![v]);
            }
            VectorTimesScalar => {
                let (r, ty) = result(inst)?;
                let (a, s) = self.operand(inst, 0)?;
                let k = self.val1(op_id(inst, 1)?)?;
                let k = self.widen_half(k, s)?;
                let mut out = Vec::new();
                for x in a {
                    let x = self.widen_half(x, s)?;
                    let p = self.b.ins().fmul(x, k);
                    out.push(self.narrow_half(p, s)?);
                }
                self.def(r, ty, out);
            }
            UMulExtended | SMulExtended | IAddCarry | ISubBorrow => {
                let (r, ty) = result(inst)?;
                let (a, _) = self.operand(inst, 0)?;
                let (bv, _) = self.operand(inst, 1)?;
                self.check_len(inst, &a, &bv)?;
                let mut lo = Vec::new();
                let mut hi = Vec::new();
                for (x, y) in a.iter().zip(&bv) {
                    let t = self.b.func.dfg.value_type(*x);
                    match op {
                        UMulExtended => {
                            lo.push(self.b.ins().imul(*x, *y));
                            hi.push(self.b.ins().umulhi(*x, *y));
                        }
                        SMulExtended => {
                            lo.push(self.b.ins().imul(*x, *y));
                            hi.push(self.b.ins().smulhi(*x, *y));
                        }
                        IAddCarry => {
                            let s = self.b.ins().iadd(*x, *y);
                            let c = self.b.ins().icmp(IntCC::UnsignedLessThan, s, *x);
                            lo.push(s);
                            hi.push(self.bool_to_int(c, t));
                        }
                        _ => {
                            let s = self.b.ins().isub(*x, *y);
                            let c = self.b.ins().icmp(IntCC::UnsignedLessThan, *x, *y);
                            lo.push(s);
                            hi.push(self.bool_to_int(c, t));
                        }
                    }
                }
                lo.extend(hi);
                self.def(r, ty, lo);
            }
            _ => return Err(self.err(inst, "instruction is not supported")),
        }
        Ok(())
    }

    fn check_len(&self, inst: &Instruction, a: &[Value], b: &[Value]) -> R {
        if a.len() != b.len() {
            return Err(self.err(inst, "operands have different component counts"));
        }
        Ok(())
    }

    /// `op` (a class test) of `x`, an f32 or f64; `half`: `x` is a half widened to f32, whose
    /// normal range starts at half's smallest normal, 2^-14 (its subnormals are normal floats).
    pub fn class_test(&mut self, op: Op, x: Value, half: bool) -> Value {
        let t = self.b.func.dfg.value_type(x);
        let (it, exp_mask, smallest_normal) = if t == types::F64 {
            (types::I64, 0x7ffu64 << 52, f64::MIN_POSITIVE.to_bits())
        } else if half {
            (types::I32, 0xffu64 << 23, (2f32.powi(-14)).to_bits() as u64)
        } else {
            (types::I32, 0xffu64 << 23, f32::MIN_POSITIVE.to_bits() as u64)
        };
        let bits = self.b.ins().bitcast(it, cranelift_codegen::ir::MemFlagsData::new(), x);
        let abs_mask = if t == types::F64 { i64::MAX } else { i32::MAX as i64 };
        let a = self.b.ins().band_imm_s(bits, abs_mask);
        match op {
            Op::IsNan => self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, a, exp_mask as i64),
            Op::IsInf => self.b.ins().icmp_imm_s(IntCC::Equal, a, exp_mask as i64),
            Op::IsFinite => self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, a, exp_mask as i64),
            Op::IsNormal => {
                let lo = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, a, smallest_normal as i64);
                let hi = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, a, exp_mask as i64);
                self.b.ins().band(lo, hi)
            }
            _ => self.b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0),
        }
    }
}

pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The integer condition code of an integer, logical or pointer comparison opcode.
pub(crate) fn int_cc(op: Op) -> Option<IntCC> {
    use IntCC as I;
    Some(match op {
        Op::IEqual | Op::LogicalEqual | Op::PtrEqual => I::Equal,
        Op::INotEqual | Op::LogicalNotEqual | Op::PtrNotEqual => I::NotEqual,
        Op::UGreaterThan => I::UnsignedGreaterThan,
        Op::SGreaterThan => I::SignedGreaterThan,
        Op::UGreaterThanEqual => I::UnsignedGreaterThanOrEqual,
        Op::SGreaterThanEqual => I::SignedGreaterThanOrEqual,
        Op::ULessThan => I::UnsignedLessThan,
        Op::SLessThan => I::SignedLessThan,
        Op::ULessThanEqual => I::UnsignedLessThanOrEqual,
        Op::SLessThanEqual => I::SignedLessThanOrEqual,
        _ => return None,
    })
}

/// The float condition code of a float comparison opcode (OpOrdered and OpUnordered included).
pub(crate) fn float_cc(op: Op) -> Option<FloatCC> {
    use FloatCC as F;
    Some(match op {
        Op::FOrdEqual => F::Equal,
        Op::FUnordEqual => F::UnorderedOrEqual,
        Op::FOrdNotEqual | Op::LessOrGreater => F::OrderedNotEqual,
        Op::FUnordNotEqual => F::NotEqual,
        Op::FOrdLessThan => F::LessThan,
        Op::FUnordLessThan => F::UnorderedOrLessThan,
        Op::FOrdGreaterThan => F::GreaterThan,
        Op::FUnordGreaterThan => F::UnorderedOrGreaterThan,
        Op::FOrdLessThanEqual => F::LessThanOrEqual,
        Op::FUnordLessThanEqual => F::UnorderedOrLessThanOrEqual,
        Op::FOrdGreaterThanEqual => F::GreaterThanOrEqual,
        Op::FUnordGreaterThanEqual => F::UnorderedOrGreaterThanOrEqual,
        Op::Ordered => F::Ordered,
        Op::Unordered => F::Unordered,
        _ => return None,
    })
}
