//! The generic address space's run-time questions (OpenCL C 2.0 `to_global`, `to_local`,
//! `to_private`, `get_fence`): OpGenericCastToPtrExplicit and OpGenericPtrMemSemantics.
//!
//! Every address space is one flat address space on a CPU, so the answer depends on where the
//! address lies. The local address space is the work-group's arena (`WorkItem::local_mem`,
//! `abi::LOCAL_ARENA_BYTES` bytes), which the test below recognises exactly. Global and private
//! memory are not told apart: private variables live on the worker's stack, in spill records
//! or fiber stacks depending on how the kernel runs, so a pointer that is not local converts to
//! both (`to_global` and `to_private` return it; `to_local` returns NULL), and `get_fence`
//! answers `CLK_GLOBAL_MEM_FENCE` for it (a valid fence for either, as the spec asks).

use super::driver as drv;
use super::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use rspirv::spirv::{MemorySemantics, Op, StorageClass};

impl FnTx<'_, '_, '_> {
    /// 1 (I8) when `p` lies in this work-group's local arena.
    fn in_local_arena(&mut self, p: Value) -> Value {
        let base = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), self.wi, drv::OFF_LOCAL_MEM as i32);
        let offset = self.b.ins().isub(p, base);
        self.b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, offset, crate::abi::LOCAL_ARENA_BYTES as i64)
    }

    /// OpGenericCastToPtrExplicit (`to_global`, `to_local`, `to_private`): the pointer when it
    /// may point into the named storage class, NULL otherwise.
    pub(crate) fn generic_cast_explicit(&mut self, inst: &Instruction) -> R {
        let (r, ty) = result(inst)?;
        let p = self.val1(op_id(inst, 0)?)?;
        let storage = match inst.operands.get(1) {
            Some(rspirv::dr::Operand::StorageClass(s)) => *s,
            _ => return Err(self.err(inst, "OpGenericCastToPtrExplicit without a storage class")),
        };
        let local = self.in_local_arena(p);
        let zero = self.b.ins().iconst(types::I64, 0);
        let out = match storage {
            StorageClass::Workgroup => self.b.ins().select(local, p, zero),
            StorageClass::CrossWorkgroup | StorageClass::Function => self.b.ins().select(local, zero, p),
            other => return Err(self.err(inst, &format!("OpGenericCastToPtrExplicit to {other:?}"))),
        };
        self.def(r, ty, vec![out]);
        Ok(())
    }

    /// OpGenericPtrMemSemantics (`get_fence`): WorkgroupMemory for a pointer into the local
    /// arena, CrossWorkgroupMemory for any other.
    pub(crate) fn generic_ptr_mem_semantics(&mut self, inst: &Instruction) -> R {
        debug_assert_eq!(inst.opcode, Op::GenericPtrMemSemantics);
        let (r, ty) = result(inst)?;
        let p = self.val1(op_id(inst, 0)?)?;
        let local = self.in_local_arena(p);
        let rt = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
        let wg = self
            .b
            .ins()
            .iconst(rt, i64::from(MemorySemantics::WORKGROUP_MEMORY.bits()));
        let cwg = self
            .b
            .ins()
            .iconst(rt, i64::from(MemorySemantics::CROSS_WORKGROUP_MEMORY.bits()));
        let out = self.b.ins().select(local, wg, cwg);
        self.def(r, ty, vec![out]);
        Ok(())
    }
}
