//! Memory: Function variables (SSA variables when only loaded and stored, stack slots
//! otherwise), loads and stores of any type, every access chain (base + sum(index * stride),
//! constant parts folded), OpCopyMemory(Sized), pointer difference and comparison.

use super::layout::{load_leaves, store_leaves};
use super::layout::{round_up, Ty};
use super::state::{op_id, result, FnTx, R};
use crate::spirv::module::ConstantValue;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module as _;
use rspirv::spirv::Op;

impl FnTx<'_, '_, '_> {
    fn pointee(&self, inst: &Instruction, ptr_ty: u32) -> R<u32> {
        match self.cx.layout.get(ptr_ty)?.ty {
            Ty::Pointer(_, p) => Ok(p),
            _ => Err(self.err(inst, "operand is not a pointer")),
        }
    }

    /// Constant integer value of `id`, if it is a (non-overridden) constant.
    fn const_int(&self, id: u32) -> Option<i64> {
        let c = self.cx.m.constant(id)?;
        let bits = if c.spec { self.cx.spec_override(id) } else { None };
        let v = match (&c.value, bits) {
            (_, Some(b)) => b,
            (ConstantValue::Scalar(v), None) => *v,
            (ConstantValue::Null, None) => 0,
            _ => return None,
        };
        let w = match self.cx.layout.get(c.ty).ok()?.leaves.first()?.bits() {
            0 => 64,
            w => w,
        };
        // Indices are signed in OpenCL (sign-extend).
        Some(if w >= 64 {
            v as i64
        } else {
            ((v << (64 - w)) as i64) >> (64 - w)
        })
    }

    /// `base + index * stride`, folding constant indices into `off`.
    fn add_index(&mut self, base: &mut Value, off: &mut i64, idx: u32, stride: u64) -> R {
        if let Some(c) = self.const_int(idx) {
            *off = off.wrapping_add(c.wrapping_mul(stride as i64));
            return Ok(());
        }
        let v = self.val1(idx)?;
        let v = self.int_resize(v, types::I64, true);
        let scaled = if stride == 1 {
            v
        } else {
            self.b.ins().imul_imm_s(v, stride as i64)
        };
        *base = self.b.ins().iadd(*base, scaled);
        Ok(())
    }

    fn access_chain(&mut self, inst: &Instruction, with_element: bool) -> R {
        let (r, ty) = result(inst)?;
        let base_id = op_id(inst, 0)?;
        let bty = self.ty_of(base_id)?;
        let mut cur = self.pointee(inst, bty)?;
        let mut addr = self.val1(base_id)?;
        let mut off = 0i64;
        let mut i = 1;
        if with_element {
            let info = self.cx.layout.get(cur)?;
            let stride = match info.ty {
                Ty::Array(..) => info.size,
                _ => round_up(info.size, info.align),
            };
            let idx = op_id(inst, 1)?;
            self.add_index(&mut addr, &mut off, idx, stride)?;
            i = 2;
        }
        while i < inst.operands.len() {
            let idx = op_id(inst, i)?;
            let info = self.cx.layout.get(cur)?.clone();
            match info.ty {
                Ty::Struct(ref ms) => {
                    let k = self
                        .const_int(idx)
                        .ok_or_else(|| self.err(inst, "struct index is not a constant"))?;
                    let m = *ms
                        .get(k as usize)
                        .ok_or_else(|| self.err(inst, "struct index out of range"))?;
                    off += info.offsets[k as usize] as i64;
                    cur = m;
                }
                Ty::Array(e, _) => {
                    self.add_index(&mut addr, &mut off, idx, info.stride)?;
                    cur = e;
                }
                Ty::Vector(..) => {
                    self.add_index(&mut addr, &mut off, idx, info.stride)?;
                    cur = info.elem;
                }
                _ => return Err(self.err(inst, "index into a non-composite type")),
            }
            i += 1;
        }
        let out = if off != 0 {
            self.b.ins().iadd_imm_s(addr, off)
        } else {
            addr
        };
        self.def(r, ty, vec![out]);
        Ok(())
    }

    fn copy_bytes(&mut self, dst: Value, src: Value, size: u64) {
        if size <= 64 {
            let flags = MemFlagsData::new();
            let mut o = 0u64;
            while o < size {
                let (t, n) = match size - o {
                    8.. => (types::I64, 8),
                    4..=7 => (types::I32, 4),
                    2..=3 => (types::I16, 2),
                    _ => (types::I8, 1),
                };
                let v = self.b.ins().load(t, flags, src, o as i32);
                self.b.ins().store(flags, v, dst, o as i32);
                o += n;
            }
        } else {
            let cfg = self.cx.jit.target_config();
            let n = self.b.ins().iconst(types::I64, size as i64);
            self.b.call_memmove(cfg, dst, src, n);
        }
    }

    /// `copy_bytes` with robust mode's checks: each side redirected on its own when the copy
    /// fits a scratch area, else the whole copy dropped when either side is out of range.
    fn copy_checked(&mut self, (dst_id, dst): (u32, Value), (src_id, src): (u32, Value), size: u64) {
        if self.robust.is_none() {
            return self.copy_bytes(dst, src, size);
        }
        if size as usize <= super::driver::SCRATCH_BYTES {
            let dst = self.rb_addr(dst_id, dst, size, true);
            let src = self.rb_addr(src_id, src, size, false);
            return self.copy_bytes(dst, src, size);
        }
        let n = self.b.ins().iconst(types::I64, size as i64);
        let n = self.rb_copy_len((dst_id, dst), (src_id, src), n);
        let cfg = self.cx.jit.target_config();
        self.b.call_memmove(cfg, dst, src, n);
    }

    pub fn memory(&mut self, inst: &Instruction) -> R {
        match inst.opcode {
            Op::Variable => {
                let (r, ty) = result(inst)?;
                self.rb_scalar_private(r);
                let pointee = self.pointee(inst, ty)?;
                let init = match inst.operands.get(1) {
                    Some(rspirv::dr::Operand::IdRef(i)) => Some(*i),
                    _ => None,
                };
                if let Some((_, vars)) = self.promoted.get(&r).cloned() {
                    if let Some(i) = init {
                        let v = self.val(i)?;
                        for (var, x) in vars.iter().zip(v) {
                            self.b.def_var(*var, x);
                        }
                    }
                    self.vtys.insert(r, ty);
                    return Ok(());
                }
                let addr = match self.region_var_addr(r) {
                    Some(a) => a,
                    None => {
                        let info = self.cx.layout.get(pointee)?;
                        aligned_stack_slot(&mut self.b, info.size.max(1), info.align.max(1))
                    }
                };
                if let Some(i) = init {
                    let v = self.val(i)?;
                    store_leaves(&self.cx.layout, &mut self.b, pointee, addr, 0, &v)?;
                }
                self.def(r, ty, vec![addr]);
            }
            Op::Load => {
                let (r, ty) = result(inst)?;
                let p = op_id(inst, 0)?;
                if let Some((_, vars)) = self.promoted.get(&p).cloned() {
                    let v = vars.iter().map(|x| self.b.use_var(*x)).collect();
                    self.def(r, ty, v);
                    return Ok(());
                }
                if let Some(v) = self.builtin_load(p, ty)? {
                    if let Some(bi) = self.cx.builtins.get(&p) {
                        self.builtin_vectors.insert(r, *bi);
                    }
                    self.def(r, ty, v);
                    return Ok(());
                }
                if let Some(v) = self.sub_group_builtin(p)? {
                    self.def(r, ty, v);
                    return Ok(());
                }
                let addr = self.val1(p)?;
                let n = self.cx.layout.get(ty)?.size;
                let addr = self.rb_addr(p, addr, n, false);
                if let Some(sh) = self.simd_shape(ty) {
                    if let Some(regs) = self.simd_load(sh, addr, 0) {
                        self.def_simd(r, ty, sh, regs);
                        return Ok(());
                    }
                }
                let v =
                    load_leaves(&self.cx.layout, &mut self.b, ty, addr, 0).map_err(|e| self.err(inst, &e.message))?;
                self.def(r, ty, v);
            }
            Op::Store => {
                let p = op_id(inst, 0)?;
                let vid = op_id(inst, 1)?;
                let v = self.val(vid)?;
                if let Some((_, vars)) = self.promoted.get(&p).cloned() {
                    for (var, x) in vars.iter().zip(v) {
                        self.b.def_var(*var, x);
                    }
                    return Ok(());
                }
                let vty = self.ty_of(vid)?;
                let addr = self.val1(p)?;
                let n = self.cx.layout.get(vty)?.size;
                let addr = self.rb_addr(p, addr, n, true);
                if let Some((sh, regs)) = self.vec_of(vid)? {
                    if self.simd_store(sh, &regs, addr, 0) {
                        return Ok(());
                    }
                }
                store_leaves(&self.cx.layout, &mut self.b, vty, addr, 0, &v).map_err(|e| self.err(inst, &e.message))?;
            }
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(inst, false)?,
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain => self.access_chain(inst, true)?,
            Op::CopyMemory => {
                let dst_id = op_id(inst, 0)?;
                let dty = self.ty_of(dst_id)?;
                let pointee = self.pointee(inst, dty)?;
                let size = self.cx.layout.get(pointee)?.size;
                let dst = self.val1(dst_id)?;
                let src_id = op_id(inst, 1)?;
                let src = self.val1(src_id)?;
                self.copy_checked((dst_id, dst), (src_id, src), size);
            }
            Op::CopyMemorySized => {
                let dst_id = op_id(inst, 0)?;
                let src_id = op_id(inst, 1)?;
                let dst = self.val1(dst_id)?;
                let src = self.val1(src_id)?;
                let size_id = op_id(inst, 2)?;
                if let Some(n) = self.const_int(size_id) {
                    self.copy_checked((dst_id, dst), (src_id, src), n as u64);
                } else {
                    let n = self.val1(size_id)?;
                    let n = self.int_resize(n, types::I64, false);
                    let n = self.rb_copy_len((dst_id, dst), (src_id, src), n);
                    let cfg = self.cx.jit.target_config();
                    self.b.call_memmove(cfg, dst, src, n);
                }
            }
            Op::PtrDiff => {
                let (r, ty) = result(inst)?;
                let a_id = op_id(inst, 0)?;
                let aty = self.ty_of(a_id)?;
                let pointee = self.pointee(inst, aty)?;
                let info = self.cx.layout.get(pointee)?;
                let size = round_up(info.size, info.align).max(1);
                let a = self.val1(a_id)?;
                let bv = self.val1(op_id(inst, 1)?)?;
                let d = self.b.ins().isub(a, bv);
                let q = if size == 1 {
                    d
                } else {
                    self.b.ins().sdiv_imm_s(d, size as i64)
                };
                let rt = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I64);
                let q = self.int_resize(q, rt, true);
                self.def(r, ty, vec![q]);
            }
            Op::PtrEqual | Op::PtrNotEqual => {
                let (r, ty) = result(inst)?;
                let a = self.val1(op_id(inst, 0)?)?;
                let bv = self.val1(op_id(inst, 1)?)?;
                let cc = if inst.opcode == Op::PtrEqual {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let c = self.b.ins().icmp(cc, a, bv);
                self.def(r, ty, vec![c]);
            }
            _ => return Err(self.err(inst, "instruction is not supported")),
        }
        Ok(())
    }
}

/// A stack slot of `size` bytes at an address that is a multiple of `align`. Cranelift keeps
/// its frame 16-byte aligned only, so a larger alignment (a `ushort16` or `double4` member
/// needs 32 bytes, OpenCL C 6.3.5) comes from a larger slot and a rounded-up address.
pub(crate) fn aligned_stack_slot(b: &mut FunctionBuilder, size: u64, align: u64) -> Value {
    let align = align.max(1).next_power_of_two();
    if align <= 16 {
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size as u32,
            align.trailing_zeros() as u8,
        ));
        return b.ins().stack_addr(types::I64, slot, 0);
    }
    let slot = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        (size + align - 16) as u32,
        4,
    ));
    let base = b.ins().stack_addr(types::I64, slot, 0);
    let up = b.ins().iadd_imm_s(base, (align - 1) as i64);
    b.ins().band_imm_s(up, -(align as i64))
}
