//! Atomic instructions as Cranelift atomic operations (sequentially consistent, which is at
//! least as strong as any memory semantics the kernel asks for), or as plain loads and stores
//! where no other thread can take part.
//!
//! Every work-item of a work-group runs on the one worker thread that owns the group's local
//! arena, and loops, regions and fibers alike switch between work-items only at barriers, so
//! nothing can come between an atomic's read and its write when only the group's work-items
//! can take part:
//! - on local memory: Workgroup pointers, and generic pointers into this group's arena
//!   (checked at run time: `jit::abi::LOCAL_ARENA_BYTES`);
//! - on any memory when no other thread runs a work-group of the ND-range meanwhile: it has a
//!   single work-group, or the runtime runs its groups one after the other on one thread
//!   (`WorkItem::alone`, checked at run time; `WorkGroupContext::serial`). Atomics
//!   of another kernel instance have no inclusive scope with this range's unless both work on
//!   an SVM allocation (OpenCL 3.0 API specification, section 3.3.6, memory model: "inclusive
//!   scope", "data race"). The host takes part in atomics on SVM memory only at
//!   `memory_scope_all_svm_devices` (SPIR-V CrossDevice scope), so atomics of that scope on
//!   global and generic pointers take the shortcut only when the command reaches no memory
//!   the host can use while it runs (`Access::Shared`, `WorkGroupContext::host_shared`: no
//!   SVM pointer, no buffer over SVM or `CL_MEM_USE_HOST_PTR` memory); kernel instances
//!   sharing an SVM allocation through device-scope atomics at once are not covered yet.
//!
//! Floating-point values (OpAtomicLoad, OpAtomicStore, OpAtomicExchange) move as integers of
//! their width, bit for bit.

use super::driver as drv;
use super::layout::Ty;
use super::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, AtomicRmwOp, BlockArg, InstBuilder, MemFlagsData, Type, Value};
use rspirv::spirv::{Op, StorageClass};

/// How an atomic reaches its memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Local memory: plain loads and stores.
    Plain,
    /// Global memory: plain in a one-group range, else atomic instructions.
    Global,
    /// A generic pointer: plain in a one-group range or inside this group's local arena, else
    /// atomic instructions.
    Generic,
    /// A global or generic pointer at `memory_scope_all_svm_devices`: as `Generic`, but
    /// atomic instructions whenever host threads may take part (the command reaches memory
    /// the host can use while it runs), whatever the range; `true`: a generic pointer.
    Shared(bool),
}

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

    /// How the atomic `inst` (Pointer operand 0) reaches its memory. Not by its memory scope:
    /// llvm-spirv gives OpenCL 1.x atomics (atomic_add, atom_add, ...), which are atomic across
    /// the whole ND-range, the Workgroup scope, just like a work-group-scoped OpenCL 2.0 atomic.
    fn access(&self, inst: &Instruction) -> R<Access> {
        let pty = self.ty_of(op_id(inst, 0)?)?;
        let all_svm_devices = matches!(
            inst.operands.get(1),
            Some(rspirv::dr::Operand::IdScope(s)) | Some(rspirv::dr::Operand::IdRef(s))
                if matches!(self.cx.m.constant(*s).map(|c| &c.value),
                    Some(crate::spirv::module::ConstantValue::Scalar(v)) if *v == rspirv::spirv::Scope::CrossDevice as u64)
        );
        Ok(match self.cx.layout.get(pty)?.ty {
            Ty::Pointer(StorageClass::Workgroup, _) => Access::Plain,
            Ty::Pointer(StorageClass::Generic, _) if all_svm_devices => Access::Shared(true),
            _ if all_svm_devices => Access::Shared(false),
            Ty::Pointer(StorageClass::Generic, _) => Access::Generic,
            _ => Access::Global,
        })
    }

    /// Whether no other thread runs a work-group of the ND-range (`WorkItem::alone`), whether
    /// it also shares no memory with host threads, and the local arena's base: computed once
    /// per function where `wi` is defined (the function's or the work-group function's entry
    /// block parameter), so before every use; Cranelift does not hoist loads out of the
    /// work-item and kernel loops on its own.
    fn atomic_consts(&mut self) -> [Value; 3] {
        use cranelift_codegen::cursor::{Cursor, FuncCursor};
        use cranelift_codegen::ir::ValueDef;
        if let Some(c) = self.atomic_consts {
            return c;
        }
        let wi = self.wi;
        macro_rules! emit {
            ($ins:expr) => {{
                let trusted = MemFlagsData::trusted().with_readonly();
                let alone = $ins.load(types::I32, trusted, wi, drv::OFF_ALONE as i32);
                let alone = $ins.icmp_imm_u(IntCC::NotEqual, alone, 0);
                let shared = $ins.load(types::I32, trusted, wi, drv::OFF_HOST_SHARED as i32);
                let private = $ins.icmp_imm_u(IntCC::Equal, shared, 0);
                let alone_private = $ins.band(alone, private);
                let base = $ins.load(types::I64, trusted, wi, drv::OFF_LOCAL_MEM as i32);
                [alone, alone_private, base]
            }};
        }
        let c = match self.b.func.dfg.value_def(wi) {
            ValueDef::Param(blk, _) if Some(blk) != self.b.current_block() => {
                match self.b.func.layout.first_inst(blk) {
                    Some(first) => {
                        let mut pos = FuncCursor::new(self.b.func).at_inst(first);
                        emit!(pos.ins())
                    }
                    None => return emit!(self.b.ins()),
                }
            }
            ValueDef::Param(..) => emit!(self.b.ins()),
            // Not a block parameter: computed here, for this use only.
            _ => return emit!(self.b.ins()),
        };
        self.atomic_consts = Some(c);
        c
    }

    /// 1 (I8) when no other thread runs a work-group of the ND-range, and with `no_host`
    /// also the command shares no memory with host threads: atomics (of any scope with
    /// `no_host`, of the scopes below `memory_scope_all_svm_devices` without) then run as
    /// plain loads and stores (`promote`'s dispatch).
    pub(crate) fn alone_flag(&mut self, no_host: bool) -> Value {
        self.atomic_consts()[no_host as usize]
    }

    /// Whether only this thread can take part in an atomic on `p` (see the module comment):
    /// no other thread runs a work-group of the ND-range (and, for `Access::Shared`, it shares
    /// no memory with host threads), or (a generic pointer) `p` lies in this group's local
    /// arena.
    fn only_this_thread(&mut self, p: Value, access: Access) -> Value {
        let [alone, alone_private, base] = self.atomic_consts();
        let (alone, generic) = match access {
            Access::Shared(generic) => (alone_private, generic),
            _ => (alone, access == Access::Generic),
        };
        if !generic {
            return alone;
        }
        let offset = self.b.ins().isub(p, base);
        let local = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, offset, crate::abi::LOCAL_ARENA_BYTES as i64);
        self.b.ins().bor(alone, local)
    }

    /// Emits `plain` or `atomic` (each giving the atomic's result, if it has one, of type
    /// `result`) as `access` asks: for global and generic pointers, both behind the test of
    /// `only_this_thread`.
    fn emit_access(
        &mut self,
        access: Access,
        p: Value,
        result: Option<Type>,
        plain: impl FnOnce(&mut Self) -> Option<Value>,
        atomic: impl FnOnce(&mut Self) -> Option<Value>,
    ) -> Option<Value> {
        if access == Access::Plain {
            return plain(self);
        }
        let alone = self.only_this_thread(p, access);
        let (on_one, shared, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let joined = result.map(|t| self.b.append_block_param(join, t));
        self.b.ins().brif(alone, on_one, &[], shared, &[]);
        self.b.switch_to_block(on_one);
        let v = plain(self);
        let args: Vec<BlockArg> = v.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(shared);
        let v = atomic(self);
        let args: Vec<BlockArg> = v.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        joined
    }

    /// A read-modify-write of `op` with operand `v`: a locked instruction, or a plain load and
    /// store; returns the old value.
    fn rmw(&mut self, access: Access, t: Type, op: AtomicRmwOp, p: Value, v: Value) -> Value {
        let plain = move |s: &mut Self| {
            let old = s.b.ins().load(t, MemFlagsData::new(), p, 0);
            let new = s.rmw_value(op, old, v);
            s.b.ins().store(MemFlagsData::new(), new, p, 0);
            Some(old)
        };
        let atomic = move |s: &mut Self| Some(s.b.ins().atomic_rmw(t, MemFlagsData::new(), op, p, v));
        self.emit_access(access, p, Some(t), plain, atomic).unwrap_or(v)
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

    /// The new value of a float read-modify-write (SPV_EXT_shader_atomic_float_add,
    /// SPV_EXT_shader_atomic_float_min_max). Min and max follow OpenCL C fmin/fmax, which
    /// cl_ext_float_atomics names: a NaN operand gives the other operand.
    fn float_rmw_value(&mut self, op: Op, old: Value, v: Value) -> Value {
        if op == Op::AtomicFAddEXT {
            return self.b.ins().fadd(old, v);
        }
        let m = if op == Op::AtomicFMinEXT {
            self.b.ins().fmin(old, v)
        } else {
            self.b.ins().fmax(old, v)
        };
        let old_nan = self.b.ins().fcmp(FloatCC::Unordered, old, old);
        let m = self.b.ins().select(old_nan, v, m);
        let v_nan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
        self.b.ins().select(v_nan, old, m)
    }

    /// A float read-modify-write of `op` with operand `v` (of float type `t`): a plain load
    /// and store, or a compare-exchange loop on the value's bits; returns the old value.
    fn float_rmw(&mut self, access: Access, t: Type, op: Op, p: Value, v: Value) -> Value {
        let it = Type::int(t.bits() as u16).unwrap_or(types::I32);
        let flags = MemFlagsData::new();
        let plain = move |s: &mut Self| {
            let old = s.b.ins().load(t, flags, p, 0);
            let new = s.float_rmw_value(op, old, v);
            s.b.ins().store(flags, new, p, 0);
            Some(s.b.ins().bitcast(it, flags, old))
        };
        let atomic = move |s: &mut Self| {
            let first = s.b.ins().atomic_load(it, flags, p);
            let (retry, done) = (s.b.create_block(), s.b.create_block());
            let seen = s.b.append_block_param(retry, it);
            let got = s.b.append_block_param(done, it);
            s.b.ins().jump(retry, &[BlockArg::Value(first)]);
            s.b.switch_to_block(retry);
            let oldf = s.b.ins().bitcast(t, flags, seen);
            let newf = s.float_rmw_value(op, oldf, v);
            let new = s.b.ins().bitcast(it, flags, newf);
            let prev = s.b.ins().atomic_cas(flags, p, seen, new);
            let same = s.b.ins().icmp(IntCC::Equal, prev, seen);
            s.b.ins()
                .brif(same, done, &[BlockArg::Value(prev)], retry, &[BlockArg::Value(prev)]);
            s.b.switch_to_block(done);
            Some(got)
        };
        let bits = self.emit_access(access, p, Some(it), plain, atomic);
        match bits {
            Some(b) => self.b.ins().bitcast(t, flags, b),
            None => v,
        }
    }

    /// An atomic store of `v` (an integer) to `p`.
    fn store_value(&mut self, access: Access, p: Value, v: Value) {
        let flags = MemFlagsData::new();
        self.emit_access(
            access,
            p,
            None,
            move |s| {
                s.b.ins().store(flags, v, p, 0);
                None
            },
            move |s| {
                s.b.ins().atomic_store(flags, v, p);
                None
            },
        );
    }

    pub fn atomic(&mut self, inst: &Instruction) -> R {
        let flags = MemFlagsData::new();
        let pid = op_id(inst, 0)?;
        let p = self.val1(pid)?;
        // Robust mode: out of range, the atomic works on the sink and its result is zero.
        let (p, in_range) = match self.robust.is_some() {
            true => {
                let n = match self.cx.layout.get(self.ty_of(pid)?)?.ty {
                    super::layout::Ty::Pointer(_, pointee) => self.cx.layout.get(pointee)?.size,
                    _ => 4,
                };
                self.rb_atomic(pid, p, n)
            }
            false => (p, None),
        };
        self.atomic_at(inst, p, flags)?;
        if let (Some(ok), Some(r)) = (in_range, inst.result_id) {
            if let Some(vals) = self.vals.get(&r).cloned() {
                let vals = vals
                    .into_iter()
                    .map(|v| {
                        let t = self.b.func.dfg.value_type(v);
                        let zero = if t.is_float() {
                            let z = self.b.ins().iconst(Type::int(t.bits() as u16).unwrap_or(types::I32), 0);
                            self.b.ins().bitcast(t, MemFlagsData::new(), z)
                        } else {
                            self.b.ins().iconst(t, 0)
                        };
                        self.b.ins().select(ok, v, zero)
                    })
                    .collect();
                self.vals.insert(r, vals);
            }
        }
        Ok(())
    }

    fn atomic_at(&mut self, inst: &Instruction, p: Value, flags: MemFlagsData) -> R {
        let access = self.access(inst)?;
        match inst.opcode {
            Op::AtomicLoad => {
                let (r, ty) = result(inst)?;
                let t = self.cx.layout.get(ty)?.leaves[0];
                let it = if t.is_float() {
                    Type::int(t.bits() as u16).unwrap_or(types::I32)
                } else {
                    t
                };
                let v = self
                    .emit_access(
                        access,
                        p,
                        Some(it),
                        move |s| Some(s.b.ins().load(it, flags, p, 0)),
                        move |s| Some(s.b.ins().atomic_load(it, flags, p)),
                    )
                    .ok_or_else(|| self.err(inst, "atomic load without a value"))?;
                let v = self.int_back(v, t);
                self.def(r, ty, vec![v]);
            }
            Op::AtomicStore => {
                let v = self.val1(op_id(inst, 3)?)?;
                let (v, _) = self.as_int(v);
                self.store_value(access, p, v);
            }
            Op::AtomicFlagClear => {
                let z = self.b.ins().iconst(types::I32, 0);
                self.store_value(access, p, z);
            }
            Op::AtomicFlagTestAndSet => {
                let (r, ty) = result(inst)?;
                let one = self.b.ins().iconst(types::I32, 1);
                let old = self.rmw(access, types::I32, AtomicRmwOp::Xchg, p, one);
                let c = self.b.ins().icmp_imm_s(IntCC::NotEqual, old, 0);
                self.def(r, ty, vec![c]);
            }
            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                let (r, ty) = result(inst)?;
                let v = self.val1(op_id(inst, 4)?)?;
                let cmp = self.val1(op_id(inst, 5)?)?;
                let (v, t) = self.as_int(v);
                let (cmp, _) = self.as_int(cmp);
                let vt = self.b.func.dfg.value_type(v);
                let plain = move |s: &mut Self| {
                    let old = s.b.ins().load(vt, flags, p, 0);
                    let same = s.b.ins().icmp(IntCC::Equal, old, cmp);
                    let new = s.b.ins().select(same, v, old);
                    s.b.ins().store(flags, new, p, 0);
                    Some(old)
                };
                let atomic = move |s: &mut Self| Some(s.b.ins().atomic_cas(flags, p, cmp, v));
                let old = self
                    .emit_access(access, p, Some(vt), plain, atomic)
                    .ok_or_else(|| self.err(inst, "compare-exchange without a value"))?;
                let old = self.int_back(old, t);
                self.def(r, ty, vec![old]);
            }
            Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
                let (r, ty) = result(inst)?;
                let t = self.cx.layout.get(ty)?.leaves[0];
                if t != types::F32 && t != types::F64 {
                    return Err(self.err(inst, "float atomics take 32- or 64-bit floats"));
                }
                let v = self.val1(op_id(inst, 3)?)?;
                let op = inst.opcode;
                let old = self.float_rmw(access, t, op, p, v);
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
                let old = self.rmw(access, it, rmw, p, v);
                let old = self.int_back(old, vt);
                self.def(r, ty, vec![old]);
            }
        }
        Ok(())
    }
}
