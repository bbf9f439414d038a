//! Atomic instructions as Cranelift atomic operations (sequentially consistent, which is at
//! least as strong as any memory semantics the kernel asks for).
//!
//! Atomics on `__local` memory (Workgroup pointers) are plain loads and stores: every
//! work-item of a work-group runs on the one worker thread that owns the group's local arena
//! (loops, regions and fibers alike switch between work-items only at barriers), so nothing
//! can come between the read and the write.

use super::layout::Ty;
use super::translate::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AtomicRmwOp, InstBuilder, MemFlagsData, Type, Value};
use rspirv::spirv::{Op, StorageClass};

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

    /// True when the atomic's pointer points into local memory.
    fn on_local_memory(&self, inst: &Instruction) -> R<bool> {
        let pty = self.ty_of(op_id(inst, 0)?)?;
        Ok(matches!(
            self.cx.layout.get(pty)?.ty,
            Ty::Pointer(StorageClass::Workgroup, _)
        ))
    }

    /// The read-modify-write of `op` on `old` with operand `v`.
    fn rmw_value(&mut self, op: AtomicRmwOp, old: Value, v: Value) -> Value {
        let ins = self.b.ins();
        match op {
            AtomicRmwOp::Add => ins.iadd(old, v),
            AtomicRmwOp::Sub => ins.isub(old, v),
            AtomicRmwOp::And => ins.band(old, v),
            AtomicRmwOp::Or => ins.bor(old, v),
            AtomicRmwOp::Xor => ins.bxor(old, v),
            AtomicRmwOp::Smin => ins.smin(old, v),
            AtomicRmwOp::Umin => ins.umin(old, v),
            AtomicRmwOp::Smax => ins.smax(old, v),
            AtomicRmwOp::Umax => ins.umax(old, v),
            _ => v,
        }
    }

    /// An atomic read-modify-write: a locked instruction, or a plain load and store on local
    /// memory.
    fn rmw(&mut self, local: bool, t: Type, op: AtomicRmwOp, p: Value, v: Value) -> Value {
        if local {
            let old = self.b.ins().load(t, MemFlagsData::new(), p, 0);
            let new = self.rmw_value(op, old, v);
            self.b.ins().store(MemFlagsData::new(), new, p, 0);
            old
        } else {
            self.b.ins().atomic_rmw(t, MemFlagsData::new(), op, p, v)
        }
    }

    pub fn atomic(&mut self, inst: &Instruction) -> R {
        let flags = MemFlagsData::new();
        let p = self.val1(op_id(inst, 0)?)?;
        let local = self.on_local_memory(inst)?;
        match inst.opcode {
            Op::AtomicLoad => {
                let (r, ty) = result(inst)?;
                let t = self.cx.layout.get(ty)?.leaves[0];
                let it = if t.is_float() {
                    Type::int(t.bits() as u16).unwrap_or(types::I32)
                } else {
                    t
                };
                let v = if local {
                    self.b.ins().load(it, flags, p, 0)
                } else {
                    self.b.ins().atomic_load(it, flags, p)
                };
                let v = self.int_back(v, t);
                self.def(r, ty, vec![v]);
            }
            Op::AtomicStore => {
                let v = self.val1(op_id(inst, 3)?)?;
                let (v, _) = self.as_int(v);
                if local {
                    self.b.ins().store(flags, v, p, 0);
                } else {
                    self.b.ins().atomic_store(flags, v, p);
                }
            }
            Op::AtomicFlagClear => {
                let z = self.b.ins().iconst(types::I32, 0);
                if local {
                    self.b.ins().store(flags, z, p, 0);
                } else {
                    self.b.ins().atomic_store(flags, z, p);
                }
            }
            Op::AtomicFlagTestAndSet => {
                let (r, ty) = result(inst)?;
                let one = self.b.ins().iconst(types::I32, 1);
                let old = self.rmw(local, types::I32, AtomicRmwOp::Xchg, p, one);
                let c = self.b.ins().icmp_imm_s(IntCC::NotEqual, old, 0);
                self.def(r, ty, vec![c]);
            }
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                let (r, ty) = result(inst)?;
                let v = self.val1(op_id(inst, 4)?)?;
                let cmp = self.val1(op_id(inst, 5)?)?;
                let (v, t) = self.as_int(v);
                let (cmp, _) = self.as_int(cmp);
                let old = if local {
                    let vt = self.b.func.dfg.value_type(v);
                    let old = self.b.ins().load(vt, flags, p, 0);
                    let same = self.b.ins().icmp(IntCC::Equal, old, cmp);
                    let new = self.b.ins().select(same, v, old);
                    self.b.ins().store(flags, new, p, 0);
                    old
                } else {
                    self.b.ins().atomic_cas(flags, p, cmp, v)
                };
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
                let old = self.rmw(local, it, rmw, p, v);
                let old = self.int_back(old, vt);
                self.def(r, ty, vec![old]);
            }
        }
        Ok(())
    }
}
