//! Barrier regions as loops over the work-items (the way PoCL forms "parallel regions").
//!
//! The barriers cut the kernel body into regions: the code a work-item runs from the entry or
//! from one barrier until it reaches the next barrier or returns. Every work-item of a group
//! reaches the same barriers in the same order (OpenCL C 6.15.8: a barrier is encountered by
//! all work-items or by none, in loops on every iteration), so the group runs one region at a
//! time: a loop over all its work-items runs the region's code for each, then the next region
//! starts where they stopped. Each region is translated on its own, so:
//! - a work-item starts its region without dispatching on its state;
//! - values the same for every work-item (see `uniform`) cross a barrier once per group: they
//!   are loaded before the work-item loop, and Cranelift hoists what is computed from them out
//!   of it (the bound and the step of a reduction loop, for instance);
//! - the loops are small and keep their values in registers.
//!
//! The work-item's record still holds its state, so kernels that break the rule (work-items
//! returning before a barrier the others reach) still finish: work-items not at the region's
//! start are skipped, and the group goes on with a region where some are waiting.
//!
//! A region reaches the blocks between its barrier and the next ones; blocks reachable from
//! several barriers are translated once per region. Bodies where that would grow too much use
//! the single sweep loop of `group` instead.

use super::group::{is_barrier, linear_ids, GroupIds, STATE_DONE};
use super::layout::Id;
use super::module::Ctx;
use super::translate::{successors, FnTx, R};
use crate::spirv::module::Function;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Switch;
use rspirv::spirv::BuiltIn;
use std::collections::{HashMap, HashSet};

/// The code of one region.
pub(crate) struct RegionCode {
    /// Where it starts: block index and first instruction (0 with the entry block).
    pub start: (usize, usize),
    /// The whole blocks it may reach, in reverse post-order (the entry block first for the
    /// entry region).
    pub blocks: Vec<usize>,
}

/// Most instructions translated for all regions together, relative to the body's.
const MAX_GROWTH: usize = 4;

/// The regions of body `f` (reachable blocks `order`, entry first): the entry region, then one
/// per barrier of `at` (block label and instruction index, in state order). `None` when the
/// regions would repeat too much of the body.
pub(crate) fn region_codes(cx: &Ctx, f: &Function, order: &[usize], at: &[(Id, usize)]) -> Option<Vec<RegionCode>> {
    let index: HashMap<Id, usize> = order.iter().map(|&bi| (f.blocks[bi].label, bi)).collect();
    // Where a unit (block bi from instruction `from`) leads: nowhere when it reaches a barrier.
    let next = |bi: usize, from: usize| -> Vec<usize> {
        let blk = &f.blocks[bi];
        if blk.instructions.iter().skip(from).any(|i| is_barrier(cx, i)) {
            return Vec::new();
        }
        blk.instructions
            .last()
            .map(successors)
            .unwrap_or_default()
            .iter()
            .filter_map(|l| index.get(l).copied())
            .collect()
    };
    let total: usize = order.iter().map(|&bi| f.blocks[bi].instructions.len()).sum();
    let mut budget = total * MAX_GROWTH + 1000;
    let mut starts = vec![(order[0], 0usize)];
    for (label, i) in at {
        starts.push((*index.get(label)?, i + 1));
    }
    let mut out = Vec::new();
    for (k, &(bi, from)) in starts.iter().enumerate() {
        // Reverse post-order of the whole blocks from the start unit (depth first).
        let roots = if k == 0 { vec![bi] } else { next(bi, from) };
        let mut seen: HashSet<usize> = HashSet::new();
        let mut post = Vec::new();
        for r in roots {
            if !seen.insert(r) {
                continue;
            }
            let mut stack = vec![(r, next(r, 0), 0usize)];
            while let Some((b, succ, i)) = stack.last_mut() {
                if *i < succ.len() {
                    let s = succ[*i];
                    *i += 1;
                    if seen.insert(s) {
                        let n = next(s, 0);
                        stack.push((s, n, 0));
                    }
                } else {
                    post.push(*b);
                    stack.pop();
                }
            }
        }
        post.reverse();
        let size: usize = post.iter().map(|&b| f.blocks[b].instructions.len()).sum();
        budget = budget.checked_sub(size)?;
        out.push(RegionCode {
            start: (bi, from),
            blocks: post,
        });
    }
    Some(out)
}

/// What the region loops need from the work-group function's prologue.
pub(crate) struct RegionEnv {
    /// Bytes of each work-item's record (spill slots, then by-value argument copies).
    pub record: usize,
    /// By-value parameters: id, type, offset of the private copy in the record, source, size.
    pub byval: Vec<(Id, Id, u64, Value, u64)>,
    /// Whether the work-item ids must be stored in the `WorkItem` too.
    pub wi_ids: bool,
    pub spill: Value,
}

impl FnTx<'_, '_, '_> {
    /// Emits the group's region loops: a dispatch on the group's next region, and per region a
    /// loop nest over the work-items running that region's code.
    pub fn region_loops(&mut self, f: &Function, codes: &[RegionCode], g: &GroupIds, env: &RegionEnv) -> R {
        let flags = MemFlagsData::trusted();
        let Some(r) = self.group.as_ref().and_then(|g| g.regions.as_ref()) else {
            return Err(super::CompileError::new("region loops without regions"));
        };
        let next = r.any;
        let gslot = r.gslot;
        let zero = self.b.ins().iconst(types::I64, 0);
        // sweep(state): the region of that state runs next; `next` collects the state of a
        // region where work-items wait (none left: the group is done).
        let sweep = self.b.create_block();
        let st = self.b.append_block_param(sweep, types::I32);
        let exit = self.b.create_block();
        let s0 = self.b.ins().iconst(types::I32, 0);
        self.b.ins().jump(sweep, &[BlockArg::Value(s0)]);
        self.b.switch_to_block(sweep);
        let none = self.b.ins().iconst(types::I32, STATE_DONE as i64);
        self.b.ins().stack_store(types::I64, none, next, 0);
        let pre: Vec<_> = codes.iter().map(|_| self.b.create_block()).collect();
        let mut sw = Switch::new();
        for (k, p) in pre.iter().enumerate() {
            sw.set_entry(k as u128, *p);
        }
        sw.emit(&mut self.b, st, exit);
        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);

        let barriers: HashMap<u32, (Id, usize)> = r.barriers.iter().map(|(at, bp)| (bp.state, *at)).collect();
        for (k, code) in codes.iter().enumerate() {
            let state = k as u32;
            self.b.switch_to_block(pre[k]);
            // The uniform values live at the region's start, once for the whole group.
            let (uslots, slots, remat) = match barriers.get(&state) {
                Some(at) => {
                    let bp = &self
                        .group
                        .as_ref()
                        .and_then(|g| g.regions.as_ref())
                        .map(|r| &r.barriers[at]);
                    match bp {
                        Some(bp) => (bp.uslots.clone(), bp.slots.clone(), bp.remat.clone()),
                        None => (Vec::new(), Vec::new(), Vec::new()),
                    }
                }
                None => (Vec::new(), Vec::new(), Vec::new()),
            };
            let mut uvals = Vec::new();
            for (var, off, ty) in &uslots {
                let v = match gslot {
                    Some(s) => self.b.ins().stack_load(types::I64, *ty, s, *off),
                    None => return Err(super::CompileError::new("uniform slots without their area")),
                };
                uvals.push((*var, v));
            }
            let zhead = self.b.create_block();
            let yhead = self.b.create_block();
            let xhead = self.b.create_block();
            let item = self.b.create_block();
            let go = self.b.create_block();
            let skip = self.b.create_block();
            let latch = self.b.create_block();
            let ylatch = self.b.create_block();
            let zlatch = self.b.create_block();
            let after = self.b.create_block();
            let z = self.b.append_block_param(zhead, types::I64);
            let y = self.b.append_block_param(yhead, types::I64);
            let x = self.b.append_block_param(xhead, types::I64);
            let gx = self.b.append_block_param(xhead, types::I64);
            let rec = self.b.append_block_param(xhead, types::I64);
            self.b.ins().jump(zhead, &[BlockArg::Value(zero)]);

            self.b.switch_to_block(zhead);
            let c = self.b.ins().icmp(IntCC::UnsignedLessThan, z, g.lsz[2]);
            self.b.ins().brif(c, yhead, &[BlockArg::Value(zero)], after, &[]);

            self.b.switch_to_block(yhead);
            let c = self.b.ins().icmp(IntCC::UnsignedLessThan, y, g.lsz[1]);
            let row = self.b.ins().imul(z, g.lsz[1]);
            let row = self.b.ins().iadd(row, y);
            let row = self.b.ins().imul(row, g.lsz[0]);
            let row = self.b.ins().imul_imm_s(row, env.record as i64);
            let rec0 = self.b.ins().iadd(env.spill, row);
            let xargs = [
                BlockArg::Value(zero),
                BlockArg::Value(g.gbase[0]),
                BlockArg::Value(rec0),
            ];
            self.b.ins().brif(c, xhead, &xargs, zlatch, &[]);

            self.b.switch_to_block(xhead);
            let c = self.b.ins().icmp(IntCC::UnsignedLessThan, x, g.lsz[0]);
            self.b.ins().brif(c, item, &[], ylatch, &[]);

            // A work-item runs the region if it waits at its start; one waiting elsewhere
            // keeps the group going.
            self.b.switch_to_block(item);
            let s = self.b.ins().load(types::I32, flags, rec, 0);
            let here = self.b.ins().icmp_imm_u(IntCC::Equal, s, state as i64);
            self.b.ins().brif(here, go, &[], skip, &[]);
            self.b.switch_to_block(skip);
            let waiting = self.b.ins().icmp_imm_u(IntCC::NotEqual, s, STATE_DONE as i64);
            let keep = self.b.create_block();
            self.b.ins().brif(waiting, keep, &[], latch, &[]);
            self.b.switch_to_block(keep);
            self.b.ins().stack_store(types::I64, s, next, 0);
            self.b.ins().jump(latch, &[]);

            self.b.switch_to_block(latch);
            let x1 = self.b.ins().iadd_imm_s(x, 1);
            let gx1 = self.b.ins().iadd_imm_s(gx, 1);
            let r1 = self.b.ins().iadd_imm_s(rec, env.record as i64);
            self.b
                .ins()
                .jump(xhead, &[BlockArg::Value(x1), BlockArg::Value(gx1), BlockArg::Value(r1)]);
            self.b.switch_to_block(ylatch);
            let y1 = self.b.ins().iadd_imm_s(y, 1);
            self.b.ins().jump(yhead, &[BlockArg::Value(y1)]);
            self.b.switch_to_block(zlatch);
            let z1 = self.b.ins().iadd_imm_s(z, 1);
            self.b.ins().jump(zhead, &[BlockArg::Value(z1)]);
            self.b.switch_to_block(after);
            let n = self.b.ins().stack_load(types::I64, types::I32, next, 0);
            let more = self.b.ins().icmp_imm_u(IntCC::NotEqual, n, STATE_DONE as i64);
            self.b.ins().brif(more, sweep, &[BlockArg::Value(n)], exit, &[]);

            // The work-item: its ids, its by-value copies, the values live at the start.
            self.b.switch_to_block(go);
            let lid = [x, y, z];
            let gl = [gx, self.b.ins().iadd(g.gbase[1], y), self.b.ins().iadd(g.gbase[2], z)];
            let (lin, glin) = linear_ids(&mut self.b, lid, &g.lsz, &g.gsz, &g.gbase0);
            if env.wi_ids {
                use super::driver as drv;
                let wi = self.wi;
                for d in 0..3 {
                    self.b
                        .ins()
                        .store(flags, lid[d], wi, (drv::OFF_LOCAL_ID + 8 * d) as i32);
                    self.b
                        .ins()
                        .store(flags, gl[d], wi, (drv::OFF_GLOBAL_ID + 8 * d) as i32);
                }
                self.b.ins().store(flags, glin, wi, drv::OFF_GLOBAL_LINEAR_ID as i32);
                self.b.ins().store(flags, lin, wi, drv::OFF_LOCAL_LINEAR_ID as i32);
            }
            if let Some(gt) = self.group.as_mut() {
                gt.latch = latch;
                gt.builtins.insert(BuiltIn::GlobalInvocationId, gl.to_vec());
                gt.builtins.insert(BuiltIn::LocalInvocationId, lid.to_vec());
                gt.builtins.insert(BuiltIn::GlobalLinearId, vec![glin]);
                gt.builtins.insert(BuiltIn::LocalInvocationIndex, vec![lin]);
                if let Some(r) = gt.regions.as_mut() {
                    r.rec = rec;
                }
            }
            for (pid, ty, at, src, size) in &env.byval {
                let dst = self.b.ins().iadd_imm_s(rec, *at as i64);
                if k == 0 {
                    let cfg = cranelift_module::Module::target_config(&self.cx.jit);
                    super::module::copy_struct(&mut self.b, cfg, dst, *src, *size);
                }
                self.def(*pid, *ty, vec![dst]);
            }
            // Promoted variables not kept across this barrier start as zero (every path
            // defines them before use; this keeps the SSA builder out of the loops).
            let saved: Vec<_> = slots.iter().map(|(v, ..)| *v).collect();
            let mut pvars: Vec<(Id, Id, Vec<_>)> =
                self.promoted.iter().map(|(id, (p, v))| (*id, *p, v.clone())).collect();
            pvars.sort_by_key(|(id, ..)| *id);
            for (_, p, vs) in pvars {
                let leaves = self.cx.layout.get(p)?.leaves.clone();
                for (v, vt) in vs.into_iter().zip(leaves) {
                    if !saved.contains(&v) {
                        let zv = self.zero(vt);
                        self.b.def_var(v, zv);
                    }
                }
            }
            for (var, off, ty) in &slots {
                let v = self.b.ins().load(*ty, flags, rec, *off);
                self.b.def_var(*var, v);
            }
            for (var, v) in &uvals {
                self.b.def_var(*var, *v);
            }
            // The region's code: fresh blocks, then the start unit in this block.
            self.make_blocks(f, &code.blocks)?;
            let (sbi, from) = code.start;
            if k == 0 {
                let entry = self.blocks[&f.blocks[sbi].label];
                self.b.ins().jump(entry, &[]);
            } else {
                self.cur_label = f.blocks[sbi].label;
                for inst in &remat {
                    self.inst(inst)?;
                }
                self.region_unit(f, sbi, from)?;
            }
            for &bi in &code.blocks {
                let label = f.blocks[bi].label;
                let cblk = self.blocks[&label];
                self.b.switch_to_block(cblk);
                self.cur_label = label;
                self.enter_block(label)?;
                self.region_unit(f, bi, 0)?;
            }
        }
        Ok(())
    }

    /// Translates block `bi` from instruction `from` up to its terminator or its next barrier
    /// (where the work-item yields).
    fn region_unit(&mut self, f: &Function, bi: usize, from: usize) -> R {
        let blk = &f.blocks[bi];
        for (i, inst) in blk.instructions.iter().enumerate().skip(from) {
            if inst.opcode == rspirv::spirv::Op::Phi {
                continue;
            }
            self.cur_inst = i;
            self.inst(inst)?;
            if is_barrier(self.cx, inst) {
                return Ok(());
            }
        }
        Ok(())
    }
}
