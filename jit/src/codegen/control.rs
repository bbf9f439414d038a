//! Control flow (branches with OpPhi arguments, OpSwitch, returns, OpUnreachable), function
//! calls, barriers, memory barriers and the asynchronous group copies.

use super::driver as drv;
use super::layout::Ty;
use super::state::{op_id, op_lit, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, MemFlagsData};
use cranelift_frontend::Switch;
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, Scope, StorageClass};

/// A spin loop's back-edge block, its target and the target's arguments.
type SpinEdge = (Block, Block, Vec<BlockArg>);

impl FnTx<'_, '_, '_> {
    /// The Cranelift block of `target` and the phi arguments for the edge from the current block.
    fn edge(&mut self, target: u32) -> R<(cranelift_codegen::ir::Block, Vec<BlockArg>)> {
        let blk = *self
            .blocks
            .get(&target)
            .ok_or_else(|| crate::codegen::CompileError::new(format!("branch to unknown block %{target}")))?;
        let wanted: Vec<(Option<u32>, u32, u32)> = self
            .phis
            .get(&target)
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        (
                            p.incoming
                                .iter()
                                .find(|(_, par)| *par == self.cur_label)
                                .map(|(v, _)| *v),
                            p.ty,
                            p.result,
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut args = Vec::new();
        for (v, ty, r) in wanted {
            let vals = self.phi_arg(r, v, ty)?;
            args.extend(vals.into_iter().map(BlockArg::Value));
        }
        Ok((blk, args))
    }

    /// As [`Self::edge`]; a back-edge of a potential spin loop (`super::spin`) goes through a
    /// block of its own, added to `spins` as (block, target, arguments) for
    /// [`Self::spin_yields`] to fill once the branch is emitted.
    fn spin_edge(&mut self, target: u32, spins: &mut Vec<SpinEdge>) -> R<(Block, Vec<BlockArg>)> {
        let (blk, args) = self.edge(target)?;
        if !self.cx.spin_edges.contains(&(self.cur_label, target)) {
            return Ok((blk, args));
        }
        let y = self.b.create_block();
        spins.push((y, blk, args));
        Ok((y, Vec::new()))
    }

    /// Fills the blocks of [`Self::spin_edge`]: the work-item's back-edge count goes up, and
    /// every `SPIN_BATCH`-th time a yield to the other work-items of the group
    /// (`clift_spin_yield`, which starts the count again; no suspension outside fibers), then
    /// the edge. The count is inline: a call at every back-edge took most of the time of a
    /// compare-exchange loop.
    fn spin_yields(&mut self, spins: Vec<SpinEdge>) -> R {
        for (y, blk, args) in spins {
            self.b.switch_to_block(y);
            let wi = self.wi;
            let flags = MemFlagsData::trusted();
            let n = self.b.ins().load(types::I32, flags, wi, drv::OFF_SPINS as i32);
            let n = self.b.ins().iadd_imm_u(n, 1);
            self.b.ins().store(flags, n, wi, drv::OFF_SPINS as i32);
            let full = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, n, i64::from(drv::SPIN_BATCH));
            let call = self.b.create_block();
            self.b.set_cold_block(call);
            self.b.ins().brif(full, call, &[], blk, &args);
            self.b.switch_to_block(call);
            self.call_helper("clift_spin_yield", &[types::I64], &[], &[wi])?;
            self.b.ins().jump(blk, &args);
        }
        Ok(())
    }

    /// The phis of `target` with their values on the edge from the current block: result,
    /// type, leaves.
    pub fn edge_values(&mut self, target: u32) -> R<Vec<(u32, u32, Vec<cranelift_codegen::ir::Value>)>> {
        let wanted: Vec<(Option<u32>, u32, u32)> = self
            .phis
            .get(&target)
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        let v = p
                            .incoming
                            .iter()
                            .find(|(_, par)| *par == self.cur_label)
                            .map(|(v, _)| *v);
                        (v, p.ty, p.result)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for (v, ty, r) in wanted {
            let vals = match v {
                Some(v) => self.val(v)?,
                None => self.zeros(ty)?,
            };
            out.push((r, ty, vals));
        }
        Ok(out)
    }

    fn return_zero(&mut self) -> R {
        let z = self.zeros(self.ret_ty)?;
        self.b.ins().return_(&z);
        Ok(())
    }

    fn const_scope(&self, id: u32) -> Option<u32> {
        match self.cx.m.constant(id)?.value {
            crate::spirv::module::ConstantValue::Scalar(v) => Some(v as u32),
            _ => None,
        }
    }

    pub fn barrier_call(&mut self) -> R {
        self.b.ins().fence();
        let wi = self.wi;
        self.call_helper("clift_barrier", &[types::I64], &[], &[wi])?;
        self.b.ins().fence();
        Ok(())
    }

    pub fn control(&mut self, inst: &Instruction) -> R {
        match inst.opcode {
            Op::Branch => {
                let mut spins = Vec::new();
                let (blk, args) = self.spin_edge(op_id(inst, 0)?, &mut spins)?;
                self.b.ins().jump(blk, &args);
                self.spin_yields(spins)?;
            }
            Op::BranchConditional => {
                let c = self.val1(op_id(inst, 0)?)?;
                let mut spins = Vec::new();
                let (t, ta) = self.spin_edge(op_id(inst, 1)?, &mut spins)?;
                let (f, fa) = self.spin_edge(op_id(inst, 2)?, &mut spins)?;
                if t == f && ta.is_empty() && fa.is_empty() {
                    self.b.ins().jump(t, &[]);
                } else {
                    self.b.ins().brif(c, t, &ta, f, &fa);
                }
                self.spin_yields(spins)?;
            }
            Op::Switch => {
                let sel_id = op_id(inst, 0)?;
                let sel = self.val1(sel_id)?;
                let width = self.b.func.dfg.value_type(sel).bits();
                let sel = self.int_resize(sel, types::I64, false);
                // Literals of a narrow selector may carry sign-extended high bits; compare the
                // selector's own bits, as the zero-extended selector does.
                let width_mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
                let mut targets = vec![(None, op_id(inst, 1)?)];
                let mut i = 2;
                while i + 1 < inst.operands.len() {
                    let v = match inst.operands.get(i) {
                        Some(Operand::LiteralBit32(v)) => *v as u64 & width_mask,
                        Some(Operand::LiteralBit64(v)) => *v & width_mask,
                        _ => return Err(self.err(inst, "case literal expected")),
                    };
                    targets.push((Some(v), op_id(inst, i + 1)?));
                    i += 2;
                }
                let cur = self
                    .b
                    .current_block()
                    .ok_or_else(|| self.err(inst, "no current block"))?;
                // Resolve every edge first (phi arguments are computed in the current block),
                // then route edges with arguments through trampoline blocks.
                let mut resolved = Vec::new();
                let mut spins = Vec::new();
                for (v, t) in targets {
                    let (blk, args) = self.spin_edge(t, &mut spins)?;
                    resolved.push((v, blk, args));
                }
                let mut sw = Switch::new();
                let mut default = None;
                let mut tramps = Vec::new();
                for (v, blk, args) in resolved {
                    let dest = if args.is_empty() {
                        blk
                    } else {
                        let tb = self.b.create_block();
                        tramps.push((tb, blk, args));
                        tb
                    };
                    match v {
                        None => default = Some(dest),
                        // The validator refuses repeated literals; the first one wins.
                        Some(v) if !sw.entries().contains_key(&(v as u128)) => {
                            sw.set_entry(v as u128, dest);
                        }
                        Some(_) => {}
                    }
                }
                let default = default.ok_or_else(|| self.err(inst, "no default"))?;
                sw.emit(&mut self.b, sel, default);
                for (tb, blk, args) in tramps {
                    self.b.switch_to_block(tb);
                    self.b.ins().jump(blk, &args);
                }
                self.spin_yields(spins)?;
                let _ = cur;
            }
            Op::Return | Op::ReturnValue | Op::Unreachable | Op::Kill if self.finish_item()? => {}
            Op::Return => {
                self.b.ins().return_(&[]);
            }
            Op::ReturnValue => {
                let v = self.val(op_id(inst, 0)?)?;
                self.b.ins().return_(&v);
            }
            Op::Unreachable | Op::Kill => self.return_zero()?,
            Op::FunctionCall => {
                let (r, ty) = result(inst)?;
                let callee = op_id(inst, 0)?;
                let fid = *self.cx.funcs.get(&callee).ok_or_else(|| {
                    self.err(
                        inst,
                        &format!("calls %{callee}, which has no body (imported functions are not supported)"),
                    )
                })?;
                let mut args = Vec::new();
                for i in 1..inst.operands.len() {
                    args.extend(self.val(op_id(inst, i)?)?);
                }
                args.push(self.wi);
                let fr = self.func_ref(fid);
                let call = self.b.ins().call(fr, &args);
                let res = self.b.inst_results(call).to_vec();
                self.def(r, ty, res);
            }
            Op::ControlBarrier | Op::GroupWaitEvents if self.yield_at_barrier()? => {}
            Op::ControlBarrier => {
                let exec = self.const_scope(op_id(inst, 0)?);
                // Region loops handle barriers before this (`yield_at_barrier`); here the work-items
                // run as fibers, where a sub-group barrier waits for its sub-group only.
                if exec == Some(Scope::Subgroup as u32) {
                    self.b.ins().fence();
                    let wi = self.wi;
                    self.call_helper("clift_sub_group_barrier", &[types::I64], &[], &[wi])?;
                    self.b.ins().fence();
                } else if exec == Some(Scope::Workgroup as u32) || exec.is_none() {
                    self.barrier_call()?;
                } else {
                    self.b.ins().fence();
                }
            }
            Op::MemoryBarrier => {
                self.b.ins().fence();
            }
            Op::GroupAsyncCopy => {
                let (r, ty) = result(inst)?;
                let dst_id = op_id(inst, 1)?;
                let dty = self.ty_of(dst_id)?;
                let (storage, pointee) = match self.cx.layout.get(dty)?.ty {
                    Ty::Pointer(s, p) => (s, p),
                    _ => return Err(self.err(inst, "destination is not a pointer")),
                };
                let elem = self.cx.layout.get(pointee)?.size as i64;
                let dst = self.val1(dst_id)?;
                let src = self.val1(op_id(inst, 2)?)?;
                let n = self.val1(op_id(inst, 3)?)?;
                let n = self.int_resize(n, types::I64, false);
                let stride = self.val1(op_id(inst, 4)?)?;
                let stride = self.int_resize(stride, types::I64, false);
                let one = self.b.ins().iconst(types::I64, 1);
                let (ss, ds) = if storage == StorageClass::Workgroup {
                    (stride, one)
                } else {
                    (one, stride)
                };
                let e = self.b.ins().iconst(types::I64, elem);
                let wi = self.wi;
                // The group's first work-item copies (every work-item passes the same
                // arguments): the local linear id of a work-group function, or the one in the
                // `WorkItem` of a fiber.
                let lin = match self
                    .group
                    .as_ref()
                    .and_then(|g| g.builtins.get(&BuiltIn::LocalInvocationIndex))
                    .and_then(|v| v.first().copied())
                {
                    Some(lin) => lin,
                    None => self
                        .b
                        .ins()
                        .load(types::I64, MemFlagsData::trusted(), wi, drv::OFF_LOCAL_LINEAR_ID as i32),
                };
                let (copy, join) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(lin, join, &[], copy, &[]);
                self.b.seal_block(copy);
                self.b.switch_to_block(copy);
                self.call_helper("clift_async_copy", &[types::I64; 6], &[], &[dst, src, n, e, ss, ds])?;
                self.b.ins().jump(join, &[]);
                self.b.seal_block(join);
                self.b.switch_to_block(join);
                let ev = self.val(op_id(inst, 5)?)?;
                self.def(r, ty, ev);
                let _ = op_lit;
            }
            Op::GroupWaitEvents => self.barrier_call()?,
            _ => return Err(self.err(inst, "instruction is not supported")),
        }
        Ok(())
    }
}
