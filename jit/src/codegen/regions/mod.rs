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
//! When every barrier lies in uniform control flow (`uniform::barriers_in_uniform_flow`), no
//! kernel can break the rule: the loops run in lockstep, without writing or testing the
//! states. The vector loop of such a region may then end a row early (`simd::Plan::row_cut`):
//! in a reduction tree's `if (lid < off)` level, once four work-items skip the arm, so do the
//! rest of the row, and their code would do nothing.
//!
//! A region often starts with work the same for every work-item: the loop test of a barrier
//! loop, the bound of the next step. That uniform prefix runs once, before the work-item loop,
//! following uniform branches; each place where it stops gets a work-item loop of its own.
//!
//! A region reaches the blocks between its barrier and the next ones; blocks reachable from
//! several barriers are translated once per region (or per place its prefix stops). Bodies
//! where that would grow too much use the single sweep loop of `group` instead.

mod vector;

use super::context::Ctx;
use super::layout::Id;
use super::simd;
use super::state::{linear_ids, op_id, FnTx, GroupIds, Slot, R, STATE_DONE};
use super::translate::is_barrier;
use super::translate::successor_blocks;
use super::CompileError;
use crate::spirv::module::Function;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, Block, BlockArg, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{Switch, Variable};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op};
use std::collections::{HashMap, HashSet};

/// Where each region starts (block index, first instruction): the entry, then after each
/// barrier of `at` (block label and instruction index, in state order).
pub(crate) fn region_starts(f: &Function, order: &[usize], at: &[(Id, usize)]) -> Option<Vec<(usize, usize)>> {
    let index: HashMap<Id, usize> = order.iter().map(|&bi| (f.blocks[bi].label, bi)).collect();
    let mut starts = vec![(*order.first()?, 0usize)];
    for (label, i) in at {
        starts.push((*index.get(label)?, i + 1));
    }
    Some(starts)
}

/// The whole blocks reached by branches from block `bi`'s instructions from `from` on without
/// passing a barrier, in reverse post-order (depth first).
fn unit_blocks(cx: &Ctx, f: &Function, index: &HashMap<Id, usize>, bi: usize, from: usize) -> Vec<usize> {
    // Where a unit leads: nowhere when it reaches a barrier.
    let next = |bi: usize, from: usize| -> Vec<usize> {
        let blk = &f.blocks[bi];
        if blk.instructions.iter().skip(from).any(|i| is_barrier(cx, i)) {
            return Vec::new();
        }
        successor_blocks(blk, index)
    };
    let roots = next(bi, from);
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
    post
}

/// Most instructions translated for all regions together, relative to the body's.
const MAX_GROWTH: usize = 4;

/// Most blocks a uniform prefix follows.
const MAX_PREFIX_BLOCKS: usize = 8;

/// What the region loops need from the work-group function's prologue.
pub(crate) struct RegionEnv {
    /// Bytes of each work-item's record (spill slots, then by-value argument copies).
    pub record: usize,
    /// By-value parameters: id, type, offset of the private copy in the record, source, size.
    pub byval: Vec<(Id, Id, u64, Value, u64)>,
    /// Whether the work-item ids must be stored in the `WorkItem` too.
    pub wi_ids: bool,
    pub spill: Value,
    /// The kernel's name.
    pub name: String,
    /// The body's reachable blocks, entry first.
    pub order: Vec<usize>,
    /// The values the same for every work-item of the group.
    pub uniform: HashSet<Id>,
    /// The body's instruction results and by-value parameters (other ids are constants,
    /// arguments and globals).
    pub defined: HashSet<Id>,
}

/// One region being emitted.
pub(super) struct Emit<'e> {
    env: &'e RegionEnv,
    index: HashMap<Id, usize>,
    state: u32,
    sweep: Block,
    exit: Block,
    next: StackSlot,
    /// The values saved in the work-item's record at the region's barrier.
    slots: Vec<Slot>,
    /// The instructions recomputed per work-item after it.
    remat: Vec<Instruction>,
    /// Variables the uniform prefix defined (or loaded), to define again in each work-item.
    carried: Vec<Variable>,
    /// Instructions the prefix passed over (each work-item's own values, without effects),
    /// which start the work-item's code.
    deferred: Vec<Instruction>,
    /// Instructions the region code may still translate.
    budget: usize,
}

/// Whether the region loops run in lockstep (see `RegionTx::lockstep`).
pub(super) fn lockstep(t: &FnTx) -> bool {
    t.group
        .as_ref()
        .and_then(|g| g.regions.as_ref())
        .is_some_and(|r| r.lockstep)
}

/// Whether `inst` (a uniform value) may run once before the work-item loop: no memory access
/// and no effect.
fn hoistable(inst: &Instruction) -> bool {
    use Op::*;
    !matches!(
        inst.opcode,
        Variable | FunctionCall | Store | CopyMemory | CopyMemorySized | ImageWrite | ExtInst | Phi
    ) && !format!("{:?}", inst.opcode).starts_with("Atomic")
}

impl FnTx<'_, '_, '_> {
    /// Emits the group's region loops: a dispatch on the group's next region, and per region
    /// its uniform prefix and a loop nest over the work-items per place the prefix stops.
    pub fn region_loops(&mut self, f: &Function, starts: &[(usize, usize)], g: &GroupIds, env: &RegionEnv) -> R {
        let Some(r) = self.group.as_ref().and_then(|g| g.regions.as_ref()) else {
            return Err(CompileError::new("region loops without regions"));
        };
        let next = r.any;
        let gslot = r.gslot;
        let barriers: HashMap<u32, (Id, usize)> = r.barriers.iter().map(|(at, bp)| (bp.state, *at)).collect();
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
        let pre: Vec<_> = starts.iter().map(|_| self.b.create_block()).collect();
        let mut sw = Switch::new();
        for (k, p) in pre.iter().enumerate() {
            sw.set_entry(k as u128, *p);
        }
        sw.emit(&mut self.b, st, exit);
        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);

        self.phi_lists(f, &env.order)?;
        let index: HashMap<Id, usize> = env.order.iter().map(|&bi| (f.blocks[bi].label, bi)).collect();
        let total: usize = env.order.iter().map(|&bi| f.blocks[bi].instructions.len()).sum();
        let mut budget = total * MAX_GROWTH + 1000;
        for (k, &(bi, from)) in starts.iter().enumerate() {
            let state = k as u32;
            self.b.switch_to_block(pre[k]);
            let bp = barriers
                .get(&state)
                .and_then(|at| self.group.as_ref()?.regions.as_ref()?.barriers.get(at));
            let (uslots, slots, remat) = match bp {
                Some(bp) => (bp.uslots.clone(), bp.slots.clone(), bp.remat.clone()),
                None => (Vec::new(), Vec::new(), Vec::new()),
            };
            // The uniform values live at the region's start, once for the whole group, and
            // those recomputed from the group's own values.
            let mut carried = Vec::new();
            for (var, off, ty) in &uslots {
                let s = gslot.ok_or_else(|| CompileError::new("uniform slots without their area"))?;
                let v = self.b.ins().stack_load(types::I64, *ty, s, *off);
                self.b.def_var(*var, v);
                carried.push(*var);
            }
            self.cur_label = f.blocks[bi].label;
            for inst in &remat {
                if inst.result_id.is_some_and(|r| env.uniform.contains(&r)) {
                    self.inst(inst)?;
                    if let Some(vars) = inst.result_id.and_then(|r| self.crossing_vars(r)) {
                        carried.extend(vars);
                    }
                }
            }
            let mut e = Emit {
                env,
                index: index.clone(),
                state,
                sweep,
                exit,
                next,
                slots,
                remat,
                carried,
                deferred: Vec::new(),
                budget,
            };
            let mut path = vec![bi];
            self.prefix(f, g, &mut e, bi, from, &mut path)?;
            budget = e.budget;
        }
        Ok(())
    }

    /// Runs the uniform instructions of block `bi` from `from` on in the current (pre-loop)
    /// block, following uniform branches (`path`: the blocks followed); where a work-item's
    /// own work starts, emits the work-item loop.
    fn prefix(&mut self, f: &Function, g: &GroupIds, e: &mut Emit, bi: usize, from: usize, path: &mut Vec<usize>) -> R {
        let blk = &f.blocks[bi];
        self.cur_label = blk.label;
        let uniform = |id: &Id| e.env.uniform.contains(id);
        for (i, inst) in blk.instructions.iter().enumerate().skip(from) {
            self.cur_inst = i;
            // A block the prefix may go on into: not one it passed, and not one the region can
            // reach again without a barrier (its values would have two versions).
            let target = |k: usize| match inst.operands.get(k) {
                Some(Operand::IdRef(t)) => e
                    .index
                    .get(t)
                    .copied()
                    .filter(|t| !unit_blocks(self.cx, f, &e.index, *t, 0).contains(t)),
                _ => None,
            };
            match inst.opcode {
                Op::Phi
                | Op::Nop
                | Op::Line
                | Op::NoLine
                | Op::SelectionMerge
                | Op::LoopMerge
                | Op::LifetimeStart
                | Op::LifetimeStop => {}
                Op::Branch if path.len() < MAX_PREFIX_BLOCKS => {
                    let Some(t) = target(0).filter(|t| self.may_follow(f, e, blk.label, *t, path)) else {
                        return self.item_loops(f, g, e, bi, i);
                    };
                    return self.follow(f, g, e, blk.label, t, path);
                }
                Op::BranchConditional if path.len() < MAX_PREFIX_BLOCKS => {
                    let c = op_id(inst, 0)?;
                    let edge = |t: Option<usize>| t.filter(|t| self.may_follow(f, e, blk.label, *t, path));
                    let (Some(t), Some(el)) = (edge(target(1)), edge(target(2))) else {
                        return self.item_loops(f, g, e, bi, i);
                    };
                    if !uniform(&c) || t == el {
                        return self.item_loops(f, g, e, bi, i);
                    }
                    let cv = self.val1(c)?;
                    let (tb, eb) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(cv, tb, &[], eb, &[]);
                    let vals = self.vals.clone();
                    let carried = e.carried.clone();
                    let deferred = e.deferred.clone();
                    for (cblk, target) in [(tb, t), (eb, el)] {
                        self.b.switch_to_block(cblk);
                        self.vals = vals.clone();
                        e.carried = carried.clone();
                        e.deferred = deferred.clone();
                        self.cur_label = f.blocks[bi].label;
                        self.follow(f, g, e, blk.label, target, path)?;
                    }
                    return Ok(());
                }
                _ if inst.result_id.is_some_and(|r| uniform(&r)) && hoistable(inst) => {
                    self.inst(inst)?;
                    if let Some(vars) = inst.result_id.and_then(|r| self.crossing_vars(r)) {
                        e.carried.extend(vars);
                    }
                }
                // Every work-item returns (the prefix follows uniform branches only) and the
                // values deferred to their code have no effects: no work-item loop, the group
                // is done (no region was left waiting: `next` still says so).
                Op::Return => {
                    self.b.ins().jump(e.exit, &[]);
                    return Ok(());
                }
                // A work-item's own value: computed first thing in its code (the prefix only
                // computes, so moving a load after it changes nothing).
                _ if inst.result_id.is_some() && (hoistable(inst) || inst.opcode == Op::Load) => {
                    e.deferred.push(inst.clone());
                }
                _ => return self.item_loops(f, g, e, bi, i),
            }
        }
        Err(CompileError::new(format!("block %{} has no terminator", blk.label)))
    }

    /// Whether the prefix may go on into block `t` by its edge from block `from`:
    /// - each phi of `t` takes a uniform value on the edge (defined now), or a work-item's own
    ///   (a copy deferred to the work-item's code) if the phi is not one of the uniform values;
    /// - a block the prefix passed already (the region's code going round a barrier loop back
    ///   to its start, sgemm's and n-body's tile loops) only if it reaches a barrier, and no
    ///   value it defines before that barrier is read by the work-item code deferred so far or
    ///   by the edge's phi values (the prefix would define it again before they run).
    fn may_follow(&self, f: &Function, e: &Emit, from: Id, t: usize, path: &[usize]) -> bool {
        let defined = |id: &Id| e.env.defined.contains(id);
        let uniform = |id: &Id| e.env.uniform.contains(id) || !defined(id);
        let phis = self.phis.get(&f.blocks[t].label);
        let edge: Vec<(Id, Id)> = phis
            .into_iter()
            .flatten()
            .flat_map(|p| {
                p.incoming
                    .iter()
                    .filter(|(_, pred)| *pred == from)
                    .map(|(v, _)| (p.result, *v))
            })
            .collect();
        if edge.iter().any(|(r, v)| !uniform(v) && e.env.uniform.contains(r)) {
            return false;
        }
        if !path.contains(&t) {
            return true;
        }
        let insts = &f.blocks[t].instructions;
        let Some(at) = insts.iter().position(|i| is_barrier(self.cx, i)) else {
            return false;
        };
        let again: HashSet<Id> = insts[..at].iter().filter_map(|i| i.result_id).collect();
        let reads = |i: &Instruction| {
            i.operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(x) if again.contains(x)))
        };
        !(e.deferred.iter().any(reads)
            || e.remat
                .iter()
                .any(|i| reads(i) || i.result_id.is_some_and(|r| again.contains(&r)))
            || edge.iter().any(|(_, v)| again.contains(v)))
    }

    /// The prefix goes on into block `t` from block `from` (its phis take their values on
    /// this edge: a uniform one now, a work-item's own as a copy deferred to its code).
    fn follow(&mut self, f: &Function, g: &GroupIds, e: &mut Emit, from: Id, t: usize, path: &mut Vec<usize>) -> R {
        let label = f.blocks[t].label;
        let phis: Vec<(Id, Id, Option<Id>)> = self
            .phis
            .get(&label)
            .into_iter()
            .flatten()
            .map(|p| {
                let v = p.incoming.iter().find(|(_, pred)| *pred == from).map(|(v, _)| *v);
                (p.result, p.ty, v)
            })
            .collect();
        let own = |v: &Id| e.env.defined.contains(v) && !e.env.uniform.contains(v);
        let mut defs = Vec::new();
        let mixed = phis.iter().any(|(_, _, v)| v.as_ref().is_some_and(own));
        if !mixed {
            // (All uniform: the values on the edge from the current block.)
            self.cur_label = from;
            defs = self.edge_values(label)?;
        }
        for (r, ty, v) in phis.into_iter().filter(|_| mixed) {
            match v {
                Some(v) if own(&v) => {
                    e.deferred.push(Instruction {
                        opcode: Op::CopyObject,
                        result_type: Some(ty),
                        result_id: Some(r),
                        operands: vec![Operand::IdRef(v)],
                        offset: f.blocks[t].offset,
                    });
                }
                Some(v) => defs.push((r, ty, self.val(v)?)),
                None => defs.push((r, ty, self.zeros(ty)?)),
            }
        }
        // (All the edge's values first: a phi may take another phi's value.)
        for (r, ty, vals) in defs {
            self.def(r, ty, vals);
            if let Some(vars) = self.crossing_vars(r) {
                e.carried.extend(vars);
            }
        }
        path.push(t);
        let out = self.prefix(f, g, e, t, 0, path);
        path.pop();
        out
    }

    /// A loop nest over the work-items of the group running the region's code from block `bi`,
    /// instruction `from`, for those waiting at the region's start.
    fn item_loops(&mut self, f: &Function, g: &GroupIds, e: &mut Emit, sbi: usize, from: usize) -> R {
        let flags = MemFlagsData::trusted();
        let (env, state, next) = (e.env, e.state, e.next);
        // The values the prefix left, as they are here.
        let mut carried: Vec<(Variable, Value)> = Vec::new();
        for var in &e.carried {
            if !carried.iter().any(|(v, _)| v == var) {
                carried.push((*var, self.b.use_var(*var)));
            }
        }
        let plan = self.region_plan(f, e, sbi, from, true);
        // A plan that speculates on a stride of 1 goes on, where that fails, in one that does
        // not (else in the scalar loop).
        let unspeculated = match &plan {
            Ok(p) if p.speculative => {
                let b = self.region_plan(f, e, sbi, from, false);
                if std::env::var_os("CLIFT_DUMP_CODE").is_some() {
                    match &b {
                        Ok(_) => eprintln!(
                            "== kernel {}: region {state}: a stride taken to be 1 (else the plan without)",
                            env.name
                        ),
                        Err(why) => eprintln!(
                            "== kernel {}: region {state}: a stride taken to be 1 (else scalar: {why})",
                            env.name
                        ),
                    }
                }
                b.ok()
            }
            _ => None,
        };
        // With CLIFT_DUMP_CODE (debugging aid), say which regions got the vector loop.
        if std::env::var_os("CLIFT_DUMP_CODE").is_some() {
            match &plan {
                Ok(_) => eprintln!("== kernel {}: region {state} vector loop yes", env.name),
                Err(why) => eprintln!("== kernel {}: region {state} vector loop no ({why})", env.name),
            }
        }
        let plan = match plan {
            Ok(p) => Some(p),
            Err(why) => match simd::strict_decline(&env.name, &format!("region {state}"), &why) {
                Some(msg) => return Err(CompileError::new(msg)),
                None => None,
            },
        };
        let zero = self.b.ins().iconst(types::I64, 0);
        let zhead = self.b.create_block();
        let yhead = self.b.create_block();
        let xhead = self.b.create_block();
        let xdone = self.b.create_block();
        let item = self.b.create_block();
        let go = self.b.create_block();
        let skip = self.b.create_block();
        let keep = self.b.create_block();
        let latch = self.b.create_block();
        let ylatch = self.b.create_block();
        let zlatch = self.b.create_block();
        let after = self.b.create_block();
        let z = self.b.append_block_param(zhead, types::I64);
        let y = self.b.append_block_param(yhead, types::I64);
        let x = self.b.append_block_param(xhead, types::I64);
        let gx = self.b.append_block_param(xhead, types::I64);
        let rec = self.b.append_block_param(xhead, types::I64);
        // The scalar loop runs up to `end`: the end of the row, or the end of four work-items
        // the vector loop handed over.
        let end = self.b.append_block_param(xhead, types::I64);
        // Vector attempts that failed in this execution of the region (see `region_vector`).
        let bails = plan.as_ref().map(|_| {
            let slot = self
                .b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 4, 2));
            let z32 = self.b.ins().iconst(types::I32, 0);
            self.b.ins().stack_store(types::I64, z32, slot, 0);
            slot
        });
        let vector = plan.as_ref().map(|_| {
            let vhead = self.b.create_block();
            let vx = self.b.append_block_param(vhead, types::I64);
            let vgx = self.b.append_block_param(vhead, types::I64);
            let vrec = self.b.append_block_param(vhead, types::I64);
            (vhead, vx, vgx, vrec)
        });
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
        let mut xargs = vec![
            BlockArg::Value(zero),
            BlockArg::Value(g.gbase[0]),
            BlockArg::Value(rec0),
        ];
        match &vector {
            Some((vhead, ..)) => self.b.ins().brif(c, *vhead, &xargs, zlatch, &[]),
            None => {
                xargs.push(BlockArg::Value(g.lsz[0]));
                self.b.ins().brif(c, xhead, &xargs, zlatch, &[])
            }
        };

        self.b.switch_to_block(xhead);
        let c = self.b.ins().icmp(IntCC::UnsignedLessThan, x, end);
        self.b.ins().brif(c, item, &[], xdone, &[]);
        self.b.switch_to_block(xdone);
        match &vector {
            Some((vhead, ..)) => {
                let more = self.b.ins().icmp(IntCC::UnsignedLessThan, x, g.lsz[0]);
                let args = [BlockArg::Value(x), BlockArg::Value(gx), BlockArg::Value(rec)];
                self.b.ins().brif(more, *vhead, &args, ylatch, &[])
            }
            None => self.b.ins().jump(ylatch, &[]),
        };

        // A work-item runs the region if it waits at its start; one waiting elsewhere keeps
        // the group going. In lockstep, all of them wait there.
        self.b.switch_to_block(item);
        if lockstep(self) {
            self.b.ins().jump(go, &[]);
            for blk in [skip, keep] {
                self.b.switch_to_block(blk);
                self.b.ins().jump(latch, &[]);
            }
        } else {
            let s = self.b.ins().load(types::I32, flags, rec, 0);
            let here = self.b.ins().icmp_imm_u(IntCC::Equal, s, state as i64);
            self.b.ins().brif(here, go, &[], skip, &[]);
            self.b.switch_to_block(skip);
            let waiting = self.b.ins().icmp_imm_u(IntCC::NotEqual, s, STATE_DONE as i64);
            self.b.ins().brif(waiting, keep, &[], latch, &[]);
            self.b.switch_to_block(keep);
            self.b.ins().stack_store(types::I64, s, next, 0);
            self.b.ins().jump(latch, &[]);
        }

        self.b.switch_to_block(latch);
        let x1 = self.b.ins().iadd_imm_s(x, 1);
        let gx1 = self.b.ins().iadd_imm_s(gx, 1);
        let r1 = self.b.ins().iadd_imm_s(rec, env.record as i64);
        let xnext = [x1, gx1, r1, end].map(BlockArg::Value);
        self.b.ins().jump(xhead, &xnext);
        self.b.switch_to_block(ylatch);
        let y1 = self.b.ins().iadd_imm_s(y, 1);
        self.b.ins().jump(yhead, &[BlockArg::Value(y1)]);
        self.b.switch_to_block(zlatch);
        let z1 = self.b.ins().iadd_imm_s(z, 1);
        self.b.ins().jump(zhead, &[BlockArg::Value(z1)]);
        self.b.switch_to_block(after);
        let n = self.b.ins().stack_load(types::I64, types::I32, next, 0);
        let more = self.b.ins().icmp_imm_u(IntCC::NotEqual, n, STATE_DONE as i64);
        self.b.ins().brif(more, e.sweep, &[BlockArg::Value(n)], e.exit, &[]);

        if let (Some(plan), Some((vhead, vx, vgx, vrec)), Some(bails)) = (&plan, vector, bails) {
            // The body without the speculation: its own vector loop, entered from the
            // speculating one's failed guard with the same four work-items.
            let other = unspeculated.as_ref().map(|b| {
                let head = self.b.create_block();
                let at = [0; 3].map(|_| self.b.append_block_param(head, types::I64));
                (b, head, at, self.b.create_block())
            });
            if let (Some(g), Some((.., spec))) = (self.group.as_mut(), &other) {
                g.spec_bail = Some(*spec);
            }
            self.region_vector(plan, g, e, &carried, [vhead, xhead], [vx, vgx, vrec], [y, z], bails)?;
            if let Some(g) = self.group.as_mut() {
                g.spec_bail = None;
            }
            if let Some((b, head, at, spec)) = other {
                self.b.switch_to_block(spec);
                self.b.ins().jump(head, &[vx, vgx, vrec].map(BlockArg::Value));
                self.b.seal_block(spec);
                self.region_vector(b, g, e, &carried, [head, xhead], at, [y, z], bails)?;
            }
        }

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
            if state == 0 {
                let cfg = cranelift_module::Module::target_config(&self.cx.jit);
                super::layout::copy_struct(&mut self.b, cfg, dst, *src, *size);
            }
            self.def(*pid, *ty, vec![dst]);
        }
        // Promoted variables not kept across this barrier start as zero (every path defines
        // them before use; this keeps the SSA builder out of the loops).
        let saved: Vec<_> = e.slots.iter().map(|(v, ..)| *v).collect();
        let mut pvars: Vec<(Id, Id, Vec<_>)> = self.promoted.iter().map(|(id, (p, v))| (*id, *p, v.clone())).collect();
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
        let slots = e.slots.clone();
        self.restore_slots(rec, &slots);
        for (var, v) in &carried {
            self.b.def_var(*var, *v);
        }
        let label = f.blocks[sbi].label;
        self.cur_label = label;
        for inst in &e.remat {
            if !inst.result_id.is_some_and(|r| env.uniform.contains(&r)) {
                self.inst(inst)?;
            }
        }
        for inst in &e.deferred {
            self.inst(inst)?;
        }
        // The region's code: fresh blocks (the start block's phis keep the values the prefix
        // gave them until its start is translated), then the start in this block.
        let blocks = unit_blocks(self.cx, f, &e.index, sbi, from);
        let size: usize = blocks.iter().map(|&b| f.blocks[b].instructions.len()).sum();
        e.budget = e
            .budget
            .checked_sub(size)
            .ok_or_else(|| CompileError::new("the regions repeat too much code"))?;
        self.note_unchanged(f, e, &blocks, sbi);
        let start_phis: Vec<Id> = self.phis[&label].iter().map(|p| p.result).collect();
        let kept: Vec<(Id, Option<Vec<Value>>)> = start_phis.iter().map(|r| (*r, self.vals.get(r).cloned())).collect();
        self.make_blocks(f, &blocks)?;
        let params: Vec<(Id, Option<Vec<Value>>)> =
            start_phis.iter().map(|r| (*r, self.vals.get(r).cloned())).collect();
        for (r, v) in kept {
            match v {
                Some(v) => self.vals.insert(r, v),
                None => self.vals.remove(&r),
            };
        }
        self.region_unit(f, sbi, from)?;
        if blocks.contains(&sbi) {
            // The start block again, reached by a branch: its phis are its parameters.
            for (r, v) in params {
                if let Some(v) = v {
                    self.vals.insert(r, v);
                }
            }
        }
        for &bi in &blocks {
            let label = f.blocks[bi].label;
            let cblk = self.blocks[&label];
            self.b.switch_to_block(cblk);
            self.cur_label = label;
            self.enter_block(label)?;
            self.region_unit(f, bi, 0)?;
        }
        Ok(())
    }

    /// Notes which values the region restores from the record but never defines
    /// (`RegionTx::unchanged`): every instruction of its blocks (the start block whole), its
    /// recomputed and deferred instructions and the prefix's values count as definitions.
    fn note_unchanged(&mut self, f: &Function, e: &Emit, blocks: &[usize], sbi: usize) {
        let mut defined: HashSet<Id> = HashSet::new();
        let insts = blocks
            .iter()
            .chain(std::iter::once(&sbi))
            .flat_map(|&bi| f.blocks[bi].instructions.iter())
            .chain(e.remat.iter())
            .chain(e.deferred.iter());
        defined.extend(insts.filter_map(|i| i.result_id));
        let Some(r) = self.group.as_mut().and_then(|g| g.regions.as_mut()) else {
            return;
        };
        // Variables by number (`Variable` is not `Hash`).
        let mut changed: HashSet<u32> = e.carried.iter().map(|v| v.as_u32()).collect();
        for id in &defined {
            if let Some(vars) = r.crossing.get(id) {
                changed.extend(vars.iter().map(|v| v.as_u32()));
            }
        }
        let crossing: HashSet<u32> = r.crossing.values().flatten().map(|v| v.as_u32()).collect();
        // Only SSA values: promoted Function variables change through stores.
        r.unchanged = e
            .slots
            .iter()
            .map(|(v, ..)| *v)
            .filter(|v| crossing.contains(&v.as_u32()) && !changed.contains(&v.as_u32()))
            .collect();
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
