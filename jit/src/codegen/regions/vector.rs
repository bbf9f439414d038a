//! The vector loop of a barrier region: its code from where the region's work-items start,
//! planned as a body of its own (`simd`), four work-items of a row at a time. The values a
//! work-item keeps across barriers come in from, and go out to, the four work-items' records
//! lane by lane. A region whose work-items keep more than `MAX_KEPT_COMPONENTS` components of
//! vector values at its start stays on the scalar loop: the vector loop would hold each
//! component in a register of its own (GEMM's float8 x 4 accumulators: 32 registers, spilled).

use super::{Emit, GroupIds};
use crate::codegen::layout::Id;
use crate::codegen::simd;
use crate::codegen::state::{linear_ids, FnTx, Slot, R, STATE_DONE};
use crate::codegen::translate::is_barrier;
use crate::codegen::CompileError;
use crate::spirv::module::{Block as SpvBlock, Function};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, MemFlagsData, StackSlot, Value};
use cranelift_frontend::Variable;
use rspirv::spirv::{BuiltIn, Op};
use std::collections::HashSet;

/// The record slots (offset, type) of a value's leaves.
type Leaves = Vec<(i32, types::Type)>;

/// Groups of four work-items sent to the scalar loop after which a region's execution stops
/// trying the vector loop.
const MAX_BAILS: i64 = 8;

/// Most components of OpenCL vector values a work-item may keep across the region's start for
/// the region to take the vector loop.
const MAX_KEPT_COMPONENTS: usize = 8;

impl FnTx<'_, '_, '_> {
    /// The vector plan of the region's code from block `sbi`, instruction `from` (after the
    /// deferred instructions; four work-items at once), where it has one: what its start and
    /// its end keep per work-item in the records are scalars or vectors of 32-bit values, and it
    /// touches no private variable. `speculate`: as [`simd::plan_live`]'s.
    pub(super) fn region_plan(
        &mut self,
        f: &Function,
        e: &Emit,
        sbi: usize,
        from: usize,
        speculate: bool,
    ) -> Result<simd::Plan, String> {
        if !simd::mode().0 {
            return Err("CLIFT_SIMD=0".into());
        }
        if e.env.wi_ids || !e.env.byval.is_empty() {
            return Err("calls or by-value arguments".into());
        }
        let kept_in = self.slot_ids_why(&e.slots).map_err(|why| {
            format!("values kept per work-item at its start other than scalars or 32-bit vectors: {why}")
        })?;
        // The vector loop holds each component of a kept vector in a four-lane register of its
        // own, where the scalar loop holds the whole vector in one or two: past
        // MAX_KEPT_COMPONENTS they spill (GEMM's float8 x 4 accumulators: 32 registers; the
        // scalar loop measured 2x to 3x faster there).
        let comps: usize = kept_in.iter().map(|(_, l)| l.len()).filter(|&n| n > 1).sum();
        if comps > MAX_KEPT_COMPONENTS {
            return Err(format!(
                "{comps} vector components kept per work-item (more than {MAX_KEPT_COMPONENTS} four-lane registers)"
            ));
        }
        let inputs: HashSet<Id> = kept_in.into_iter().map(|(id, ..)| id).collect();
        // The code as a function of its own: the recomputed values, then the region's first
        // block from `from` on (its phis have their values already), then the other blocks.
        let mut blocks = f.blocks.clone();
        let mut insts: Vec<Instruction> = e
            .remat
            .iter()
            .filter(|i| !i.result_id.is_some_and(|r| e.env.uniform.contains(&r)))
            .chain(&e.deferred)
            .cloned()
            .collect();
        insts.extend(
            f.blocks[sbi]
                .instructions
                .iter()
                .skip(from)
                .filter(|i| i.opcode != Op::Phi)
                .cloned(),
        );
        // It keeps the first block's label: phis of the blocks it branches to name it.
        blocks[sbi] = SpvBlock {
            label: f.blocks[sbi].label,
            offset: f.blocks[sbi].offset,
            instructions: insts,
        };
        let order = [sbi];
        let rf = Function {
            id: f.id,
            result_type: f.result_type,
            control: f.control,
            fn_type: f.fn_type,
            params: f.params.clone(),
            blocks,
            offset: f.offset,
        };
        // (The first block's phis, defined before the code starts, keep their types.)
        let mut typed = f.params.clone();
        typed.extend(
            f.blocks[sbi]
                .instructions
                .iter()
                .filter(|i| i.opcode == Op::Phi)
                .filter_map(|i| Some((i.result_id?, i.result_type?))),
        );
        // The values kept across any barrier (the body's end is one of them).
        let barrier_slots: Vec<Vec<Slot>> = self
            .group
            .as_ref()
            .and_then(|g| g.regions.as_ref())
            .map(|r| r.barriers.values().map(|bp| bp.slots.clone()).collect())
            .unwrap_or_default();
        let kept: HashSet<Id> = barrier_slots
            .iter()
            .filter_map(|slots| self.slot_ids(slots))
            .flatten()
            .map(|(id, _)| id)
            .collect();
        let mut plan = simd::plan_live(self.cx, &rf, &order, &typed, &inputs, &kept, speculate)?;
        if plan.yield_at.is_some_and(|(l, _)| l == f.blocks[sbi].label) {
            // The barrier of the first block: its place in the body.
            let blk = &f.blocks[sbi];
            let i = (from..blk.instructions.len()).find(|&i| is_barrier(self.cx, &blk.instructions[i]));
            plan.yield_at = i.map(|i| (blk.label, i));
        }
        let mut private: HashSet<Id> = self.promoted.keys().copied().collect();
        private.extend(
            f.blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .filter(|i| i.opcode == Op::Variable)
                .filter_map(|i| i.result_id),
        );
        if plan.mentions(&private) {
            return Err("private variables".into());
        }
        if let Some(at) = plan.yield_at {
            let bp = self.group.as_ref().and_then(|g| g.regions.as_ref()?.barriers.get(&at));
            let slots = bp.map(|bp| bp.slots.clone()).unwrap_or_default();
            let why = match (bp, self.slot_ids_why(&slots)) {
                (None, _) => Some("an unknown barrier".to_string()),
                (_, Err(why)) => Some(why),
                (_, Ok(ids)) => ids
                    .iter()
                    .find(|(id, ..)| !plan.has_lanes(*id))
                    .map(|(id, ..)| format!("%{id} has no lanes in the plan")),
            };
            if let Some(why) = why {
                return Err(format!(
                    "values kept per work-item at its end other than scalars or 32-bit vectors: {why}"
                ));
            }
        }
        Ok(plan)
    }

    /// The values of record slots `slots`, each with the offset and type of each of its leaves'
    /// slots, when each is a scalar (8 to 64 bits) or a vector of 32-bit values (not a
    /// private variable).
    fn slot_ids(&self, slots: &[Slot]) -> Option<Vec<(Id, Leaves)>> {
        self.slot_ids_why(slots).ok()
    }

    /// As [`slot_ids`](Self::slot_ids), or which value does not fit and why.
    fn slot_ids_why(&self, slots: &[Slot]) -> Result<Vec<(Id, Leaves)>, String> {
        let r = self
            .group
            .as_ref()
            .and_then(|g| g.regions.as_ref())
            .ok_or("not a region")?;
        let mut out: Vec<(Id, Leaves)> = Vec::new();
        for (var, ..) in slots {
            let (id, vs) = r
                .crossing
                .iter()
                .find(|(_, vs)| vs.contains(var))
                .ok_or("a record slot of no value")?;
            if out.iter().any(|(x, _)| x == id) {
                continue;
            }
            // Every leaf has a slot, in the leaves' order.
            let leaves = vs
                .iter()
                .map(|v| slots.iter().find(|(w, ..)| w == v).map(|(_, off, ty)| (*off, *ty)))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("%{id}: a leaf without a record slot"))?;
            let ok = match leaves.as_slice() {
                // (8- and 16-bit: chars, shorts and booleans, 0 or 1.)
                [(_, t)] => matches!(
                    *t,
                    types::I8 | types::I16 | types::I32 | types::F32 | types::I64 | types::F64
                ),
                many => many.iter().all(|(_, t)| matches!(*t, types::I32 | types::F32)),
            };
            if !ok {
                let tys: Vec<String> = leaves.iter().map(|(_, t)| t.to_string()).collect();
                return Err(format!("%{id} of {}", tys.join(", ")));
            }
            out.push((*id, leaves));
        }
        Ok(out)
    }

    /// At the barrier that ends the vector plan, the uniform values kept across it, once for
    /// the group.
    fn yield_uniform(&mut self, plan: &simd::Plan) -> R {
        let Some(at) = plan.yield_at else { return Ok(()) };
        let r = self.group.as_ref().and_then(|g| g.regions.as_ref());
        let Some((bp, gslot)) = r.and_then(|r| Some((r.barriers.get(&at)?, r.gslot))) else {
            return Err(CompileError::new("vector plan: unknown barrier"));
        };
        let uslots = bp.uslots.clone();
        if let Some(gs) = gslot {
            for (var, off, _) in &uslots {
                let v = self.b.use_var(*var);
                self.b.ins().stack_store(types::I64, v, gs, *off);
            }
        }
        Ok(())
    }

    /// The row cut of a region's vector plan in lockstep ([`simd::Plan::row_cut`]): when the
    /// barrier that ends it keeps no work-item's own value, and the uniform values it keeps
    /// are defined before the branch. `vx`: the vector's first x.
    fn row_cut(&mut self, plan: &simd::Plan, vx: Value, g: &GroupIds) -> Option<simd::RowCut> {
        let r = self.group.as_ref()?.regions.as_ref()?;
        let kept: HashSet<Id> = match plan.yield_at {
            Some(at) => {
                let bp = r.barriers.get(&at)?;
                if !bp.slots.is_empty() {
                    return None;
                }
                let vars: Vec<Variable> = bp.uslots.iter().map(|(v, ..)| *v).collect();
                r.crossing
                    .iter()
                    .filter(|(_, vs)| vs.iter().any(|v| vars.contains(v)))
                    .map(|(id, _)| *id)
                    .chain(bp.remat.iter().filter_map(|i| i.result_id))
                    .collect()
            }
            None => HashSet::new(),
        };
        let step = plan.row_cut(&kept)?;
        let block = self.b.create_block();
        let left = self.b.ins().isub(g.lsz[0], vx);
        let rem = self.b.ins().iadd_imm_s(left, -1);
        Some(simd::RowCut { step, block, rem })
    }

    /// The vector loop of a region: four work-items of the row at a time (all waiting at the
    /// region's start), handing four that cannot run together, and the row's last ones, to
    /// the scalar loop `xhead`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn region_vector(
        &mut self,
        plan: &simd::Plan,
        g: &GroupIds,
        e: &Emit,
        carried: &[(Variable, Value)],
        [vhead, xhead]: [Block; 2],
        [vx, vgx, vrec]: [Value; 3],
        [y, z]: [Value; 2],
        bails: StackSlot,
    ) -> R {
        let flags = MemFlagsData::trusted();
        let record = e.env.record as i64;
        let lanes = simd::LANES;
        self.b.switch_to_block(vhead);
        let vitem = self.b.create_block();
        let vgo = self.b.create_block();
        let vbail = self.b.create_block();
        let last = self.b.ins().iadd_imm_s(vx, lanes);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, last, g.lsz[0]);
        // After MAX_BAILS groups of four that could not run together (a loop whose trip
        // count differs between work-items), the rest of the region runs on the scalar loop.
        let n = self.b.ins().stack_load(types::I64, types::I32, bails, 0);
        let calm = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, n, MAX_BAILS);
        let c = self.b.ins().band(fits, calm);
        let rest = [vx, vgx, vrec, g.lsz[0]].map(BlockArg::Value);
        self.b.ins().brif(c, vitem, &[], xhead, &rest);
        // All four at the region's start? (In lockstep, always.)
        self.b.switch_to_block(vitem);
        let four = [vx, vgx, vrec, last].map(BlockArg::Value);
        let lockstep = super::lockstep(self);
        if lockstep {
            self.b.ins().jump(vgo, &[]);
        } else {
            let mut differ = None;
            for l in 0..lanes {
                let s = self.b.ins().load(types::I32, flags, vrec, (l * record) as i32);
                let d = self.b.ins().bxor_imm_s(s, e.state as i64);
                differ = Some(match differ {
                    None => d,
                    Some(a) => self.b.ins().bor(a, d),
                });
            }
            let differ = differ.ok_or_else(|| CompileError::new("no lanes"))?;
            self.b.ins().brif(differ, xhead, &four, vgo, &[]);
        }
        self.b.switch_to_block(vbail);
        let n = self.b.ins().stack_load(types::I64, types::I32, bails, 0);
        let n1 = self.b.ins().iadd_imm_s(n, 1);
        self.b.ins().stack_store(types::I64, n1, bails, 0);
        self.b.ins().jump(xhead, &four);

        self.b.switch_to_block(vgo);
        // The first work-item's ids (the x ids are affine in the lane).
        let lid = [vx, y, z];
        let gl = [vgx, self.b.ins().iadd(g.gbase[1], y), self.b.ins().iadd(g.gbase[2], z)];
        let (lin, glin) = linear_ids(&mut self.b, lid, &g.lsz, &g.gsz, &g.gbase0);
        if let Some(gt) = self.group.as_mut() {
            gt.builtins.insert(BuiltIn::GlobalInvocationId, gl.to_vec());
            gt.builtins.insert(BuiltIn::LocalInvocationId, lid.to_vec());
            gt.builtins.insert(BuiltIn::GlobalLinearId, vec![glin]);
            gt.builtins.insert(BuiltIn::LocalInvocationIndex, vec![lin]);
            if let Some(r) = gt.regions.as_mut() {
                r.rec = vrec;
            }
        }
        for (var, v) in carried {
            self.b.def_var(*var, *v);
        }
        let vals = self.vals.clone();
        // The four work-items' values kept in their records, as vectors.
        let mut inputs = simd::Vecs::default();
        for (id, leaves) in self.slot_ids(&e.slots).unwrap_or_default() {
            let comps: Vec<[Value; 4]> = leaves
                .iter()
                .map(|(off, ty)| [0, 1, 2, 3].map(|l| self.b.ins().load(*ty, flags, vrec, (l * record) as i32 + off)))
                .collect();
            self.simd_input(id, plan, &comps, &mut inputs)?;
        }
        // In lockstep, a reduction tree's `if (lid < off)` may end the row early.
        let cut = match lockstep {
            true => self.row_cut(plan, vx, g),
            false => None,
        };
        let vecs = self.simd_body(plan, vbail, &[], inputs, cut.as_ref())?;
        // The end: a barrier (uniform values saved once, the four wait there) or the return.
        let state = match plan.yield_at {
            Some(at) => {
                let r = self.group.as_ref().and_then(|g| g.regions.as_ref());
                let bp = r.and_then(|r| r.barriers.get(&at));
                let Some(bp) = bp else {
                    return Err(CompileError::new("vector plan: unknown barrier"));
                };
                let (slots, st) = (bp.slots.clone(), bp.state);
                self.yield_uniform(plan)?;
                // Each work-item's own values, lane by lane into its record.
                let ids = self
                    .slot_ids(&slots)
                    .ok_or_else(|| CompileError::new("vector plan: a kept value is not a 32-bit scalar"))?;
                for (id, leaves) in ids {
                    let comps = self.simd_lanes(id, plan, &vecs)?;
                    if comps.len() != leaves.len() {
                        return Err(CompileError::new(format!(
                            "vector plan: %{id} does not fit its record slots"
                        )));
                    }
                    for (xs, (off, _)) in comps.into_iter().zip(leaves) {
                        for (l, x) in (0..lanes).zip(xs) {
                            self.b.ins().store(flags, x, vrec, (l * record) as i32 + off);
                        }
                    }
                }
                st
            }
            None => STATE_DONE,
        };
        let sv = self.b.ins().iconst(types::I32, state as i64);
        if !lockstep {
            for l in 0..lanes {
                self.b.ins().store(flags, sv, vrec, (l * record) as i32);
            }
        }
        if state != STATE_DONE {
            self.b.ins().stack_store(types::I64, sv, e.next, 0);
        }
        self.vals = vals;
        let n = [
            self.b.ins().iadd_imm_s(vx, lanes),
            self.b.ins().iadd_imm_s(vgx, lanes),
            self.b.ins().iadd_imm_s(vrec, lanes * record),
        ]
        .map(BlockArg::Value);
        self.b.ins().jump(vhead, &n);
        if let Some(cut) = cut {
            // The rest of the row skipped: the uniform values and the next region as at the
            // end (the row cut keeps no work-item's own values).
            self.b.switch_to_block(cut.block);
            self.yield_uniform(plan)?;
            if state != STATE_DONE {
                let sv = self.b.ins().iconst(types::I32, state as i64);
                self.b.ins().stack_store(types::I64, sv, e.next, 0);
            }
            let end = [g.lsz[0], vgx, vrec, g.lsz[0]].map(BlockArg::Value);
            self.b.ins().jump(xhead, &end);
            self.b.seal_block(cut.block);
        }
        Ok(())
    }
}
