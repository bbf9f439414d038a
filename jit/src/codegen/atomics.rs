//! Atomic instructions as Cranelift atomic operations (sequentially consistent, which is at
//! least as strong as any memory semantics the kernel asks for).

use super::translate::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AtomicRmwOp, InstBuilder, MemFlagsData, Type, Value};
use rspirv::spirv::Op;

impl FnTx<'_, '_, '_> {
    fn as_int(&mut self, v: Value) -> (Value, Type) {
        let t = self.b.func.dfg.value_type(v);
        if t.is_float() {
            let it = Type::int(t.bits() as u16).unwrap_or(types::I32);
            (self.b.ins().bitcast(it, MemFlagsData::new(), v), t)
        } else {
            (v, t)
        }
    }

    fn int_back(&mut self, v: Value, t: Type) -> Value {
        if t.is_float() {
            self.b.ins().bitcast(t, MemFlagsData::new(), v)
        } else {
            v
        }
    }

    pub fn atomic(&mut self, inst: &Instruction) -> R {
        let flags = MemFlagsData::new();
        let p = self.val1(op_id(inst, 0)?)?;
        match inst.opcode {
            Op::AtomicLoad => {
                let (r, ty) = result(inst)?;
                let t = self.cx.layout.get(ty)?.leaves[0];
                let it = if t.is_float() {
                    Type::int(t.bits() as u16).unwrap_or(types::I32)
                } else {
                    t
                };
                let v = self.b.ins().atomic_load(it, flags, p);
                let v = self.int_back(v, t);
                self.def(r, ty, vec![v]);
            }
            Op::AtomicStore => {
                let v = self.val1(op_id(inst, 3)?)?;
                let (v, _) = self.as_int(v);
                self.b.ins().atomic_store(flags, v, p);
            }
            Op::AtomicFlagClear => {
                let z = self.b.ins().iconst(types::I32, 0);
                self.b.ins().atomic_store(flags, z, p);
            }
            Op::AtomicFlagTestAndSet => {
                let (r, ty) = result(inst)?;
                let one = self.b.ins().iconst(types::I32, 1);
                let old = self.b.ins().atomic_rmw(types::I32, flags, AtomicRmwOp::Xchg, p, one);
                let c = self.b.ins().icmp_imm_s(IntCC::NotEqual, old, 0);
                self.def(r, ty, vec![c]);
            }
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                let (r, ty) = result(inst)?;
                let v = self.val1(op_id(inst, 4)?)?;
                let cmp = self.val1(op_id(inst, 5)?)?;
                let (v, t) = self.as_int(v);
                let (cmp, _) = self.as_int(cmp);
                let old = self.b.ins().atomic_cas(flags, p, cmp, v);
                let old = self.int_back(old, t);
                self.def(r, ty, vec![old]);
            }
            op => {
                let (r, ty) = result(inst)?;
                let t = self.cx.layout.get(ty)?.leaves[0];
                let (rmw, v) = match op {
                    Op::AtomicIIncrement => (AtomicRmwOp::Add, self.b.ins().iconst(t, 1)),
                    Op::AtomicIDecrement => (AtomicRmwOp::Sub, self.b.ins().iconst(t, 1)),
                    _ => {
                        let v = self.val1(op_id(inst, 3)?)?;
                        let k = match op {
                            Op::AtomicExchange => AtomicRmwOp::Xchg,
                            Op::AtomicIAdd => AtomicRmwOp::Add,
                            Op::AtomicISub => AtomicRmwOp::Sub,
                            Op::AtomicSMin => AtomicRmwOp::Smin,
                            Op::AtomicUMin => AtomicRmwOp::Umin,
                            Op::AtomicSMax => AtomicRmwOp::Smax,
                            Op::AtomicUMax => AtomicRmwOp::Umax,
                            Op::AtomicAnd => AtomicRmwOp::And,
                            Op::AtomicOr => AtomicRmwOp::Or,
                            Op::AtomicXor => AtomicRmwOp::Xor,
                            _ => return Err(self.err(inst, "atomic instruction is not supported")),
                        };
                        (k, v)
                    }
                };
                let (v, vt) = self.as_int(v);
                let it = self.b.func.dfg.value_type(v);
                let old = self.b.ins().atomic_rmw(it, flags, rmw, p, v);
                let old = self.int_back(old, vt);
                self.def(r, ty, vec![old]);
            }
        }
        Ok(())
    }
}
