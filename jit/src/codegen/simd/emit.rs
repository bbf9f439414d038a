//! The vector body's code: the plan's steps translated into the vector loop's block.

use super::plan::{base_name, ext_name, is_mask_op, is_unary_test};
use super::{fold, narrow, rep, Class, Guard, Plan, Rep, Step, LANES};
use crate::codegen::arith::{float_cc, int_cc};
use crate::codegen::layout::Id;
use crate::codegen::state::{op_id, op_lit, result, FnTx, R};
use crate::codegen::vector::vflags;
use crate::codegen::CompileError;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, Block, BlockArg, ConstantData, InstBuilder, InstructionData, MemFlagsData, Opcode, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use rspirv::spirv::Op;
use std::collections::HashMap;

mod narrow;
mod vmem;
mod wide;

pub(crate) use wide::{NO_NARROW_MEMORY, WIDE};

/// A branch of the vector body being translated (Step::If to Step::EndIf).
struct Branch {
    /// The first arm, the second arm (the merge itself without an else) and the merge.
    first: Block,
    second: Block,
    after: Block,
    has_else: bool,
    phis: Vec<BranchPhi>,
    /// A masked branch: the lanes of the first arm and of the second, the arms' execution
    /// mask variable, the one outside.
    masked: Option<(Value, Value, Variable, Option<Variable>)>,
}

/// A single-block loop of the vector body being translated (Step::LoopHead to Step::LoopEnd).
struct Loop {
    head: Block,
    exit: Block,
    /// The loop's phis (values: on entry, from the loop).
    phis: Vec<BranchPhi>,
    /// The exit block's phis (values: from each exit, from the guard).
    exit_phis: Vec<BranchPhi>,
    /// The exits passed so far.
    exits: usize,
    /// The execution mask outside the loop (a masked loop's is in `Vecs::exec`).
    outer: Option<Variable>,
}

/// A phi of a branch's merge, carried in variables.
#[derive(Clone)]
struct BranchPhi {
    result: Id,
    ty: Id,
    /// One (a uniform value or a vector) or one per lane (Rep::Quad).
    vars: Vec<Variable>,
    /// On the first arm's path, on the other (a loop's exit phi: from each exit).
    values: Vec<Id>,
    /// How its four lanes are held (`None`: one uniform value).
    rep: Option<Rep>,
}

/// Where a region's vector body may leave the rest of its row (see [`Plan::row_cut`]).
pub(crate) struct RowCut {
    /// The plan's step (a Step::If) whose arm no later work-item of the row takes once four
    /// skip it together.
    pub step: usize,
    /// Where the body goes then.
    pub block: Block,
    /// Work-items of the row after the vector's first (I64).
    pub rem: Value,
}

/// The values of the vector body that differ between work-items, as [`Rep`] says.
#[derive(Default)]
pub(crate) struct Vecs {
    /// Four-lane vectors (32-bit values and masks).
    v: HashMap<Id, Value>,
    /// Four scalars, one per lane.
    q: HashMap<Id, [Value; LANES as usize]>,
    /// Two two-lane vectors, lanes 0-1 and 2-3 (Rep::Pair).
    p: HashMap<Id, [Value; 2]>,
    /// One four-lane vector per component (Rep::Soa).
    s: HashMap<Id, Vec<Value>>,
    /// The execution mask (`I32X4`, all ones in the lanes whose work-items run this code)
    /// inside a masked loop; `None`: all four run it.
    exec: Option<Variable>,
    /// Whether the body runs two quads ([`FnTx::simd_body2`]), where registers are scarcer.
    twice: bool,
}

impl Vecs {
    /// The values holding `id`'s lanes (one vector, four scalars or one vector per
    /// component), taken out.
    fn take(&mut self, id: Id) -> Vec<Value> {
        match (
            self.v.remove(&id),
            self.q.remove(&id),
            self.s.remove(&id),
            self.p.remove(&id),
        ) {
            (Some(v), ..) => vec![v],
            (_, Some(q), ..) => q.to_vec(),
            (_, _, Some(s), _) => s,
            (.., Some(p)) => p.to_vec(),
            _ => vec![],
        }
    }

    /// Whether `id` has lanes here.
    fn holds(&self, id: Id) -> bool {
        self.v.contains_key(&id) || self.q.contains_key(&id) || self.s.contains_key(&id)
    }

    /// The values holding `id`'s lanes, to replace in place (none if it has none here).
    fn held_mut(&mut self, id: Id) -> &mut [Value] {
        if let Some(v) = self.v.get_mut(&id) {
            std::slice::from_mut(v)
        } else if let Some(q) = self.q.get_mut(&id) {
            &mut q[..]
        } else if let Some(s) = self.s.get_mut(&id) {
            &mut s[..]
        } else {
            &mut []
        }
    }

    /// Puts back what [`Vecs::take`] gave for a value held as `rep`.
    fn put(&mut self, id: Id, rep: Rep, vals: &[Value]) {
        match rep {
            Rep::Vector(_) => {
                if let [v] = vals {
                    self.v.insert(id, *v);
                }
            }
            Rep::Quad(_) => {
                if let Ok(q) = <[Value; LANES as usize]>::try_from(vals) {
                    self.q.insert(id, q);
                }
            }
            Rep::Soa(..) => {
                self.s.insert(id, vals.to_vec());
            }
            Rep::Pair(_) => {
                if let Ok(p) = <[Value; 2]>::try_from(vals) {
                    self.p.insert(id, p);
                }
            }
        }
    }
}

/// Whether the loop that ends at step `k` runs under a mask.
fn looped_masked(plan: &Plan, k: usize) -> bool {
    plan.steps[..k]
        .iter()
        .rev()
        .find_map(|(_, s)| match s {
            Step::LoopHead { masked, .. } => Some(*masked),
            _ => None,
        })
        .unwrap_or(false)
}

fn fx_is_small(fx: &FnTx, x: Value) -> bool {
    matches!(fx.b.func.dfg.value_type(x), types::I8 | types::I16)
}

fn vec_type(t: Type) -> Option<Type> {
    match t {
        types::I32 => Some(types::I32X4),
        types::F32 => Some(types::F32X4),
        _ => None,
    }
}

impl FnTx<'_, '_, '_> {
    /// Translates the vector body of `plan` into the current block: four work-items whose
    /// first one's builtins are the group's builtin values. A failed guard jumps to `bail`
    /// with `bail_args` (before any store). Ends in the block where the body ends.
    /// `inputs`: the four lanes of the plan's inputs ([`FnTx::simd_input`]). Gives the four
    /// lanes of the values at the end.
    pub(crate) fn simd_body(
        &mut self,
        plan: &Plan,
        bail: Block,
        bail_args: &[BlockArg],
        inputs: Vecs,
        cut: Option<&RowCut>,
    ) -> R<Vecs> {
        let mut vecs = inputs;
        // The branches being translated, the innermost last.
        let mut branch: Vec<Branch> = Vec::new();
        let mut looping: Option<Loop> = None;
        let mut chains = super::chains::Chains::new(plan, self.b.func.dfg.num_insts());
        for (k, (inst, step)) in plan.steps.iter().enumerate() {
            if let Some(live) = chains.due(k, self.b.func.dfg.num_insts()) {
                chains.cuts += usize::from(self.chain_cut(&live, &mut vecs));
            }
            if let Some(r) = inst.result_id.filter(|r| vecs.holds(*r)) {
                // (Before the step: a value of an earlier step redefined here is fresh again.)
                chains.fresh.retain(|x| *x != r);
            }
            self.simd_step(
                k,
                inst,
                *step,
                plan,
                &mut vecs,
                &mut branch,
                &mut looping,
                bail,
                bail_args,
                cut,
            )?;
            if let Some(r) = inst.result_id.filter(|r| vecs.holds(*r)) {
                chains.fresh.push(r);
            }
            if !matches!(
                step,
                Step::Scalar
                    | Step::ScalarGuarded(_)
                    | Step::Builtin
                    | Step::Vector
                    | Step::CaseEq
                    | Step::Private
                    | Step::Lanes
                    | Step::Deferred
            ) {
                // A branch, a loop or a merge: values defined before may not dominate what
                // follows (an arm's), so only the stretch from here on is passed at cuts.
                chains.fresh.clear();
            }
        }
        // With CLIFT_DUMP_CODE (debugging aid), say where the code was cut.
        if chains.cuts > 0 && std::env::var_os("CLIFT_DUMP_CODE").is_some() {
            eprintln!("   vector code cut {} times for its dependency chains", chains.cuts);
        }
        Ok(vecs)
    }

    /// Ends the current block with a branch to a new one that takes the vector values of `ids`
    /// as parameters, and goes on there with them (see [`super::chains`]). The new block has a
    /// second way in, never taken (the function's first argument, a pointer, is not null),
    /// passing the same values again (`x | x`): a block whose parameters all come from one
    /// branch would have them replaced by the values before the optimizer runs.
    fn chain_cut(&mut self, ids: &[Id], vecs: &mut Vecs) -> bool {
        let Some(entry) = self.b.func.layout.entry_block() else {
            return false;
        };
        let Some(&p0) = self.b.func.dfg.block_params(entry).first() else {
            return false;
        };
        let mut args = Vec::new();
        let next = self.b.create_block();
        // A negation is passed as its operand and done again after the cut (`redo`): the
        // instruction selector folds a negation into the multiply-add that reads it
        // (`vfnmadd`, which leaves a NaN's sign as it was), so hiding it behind a parameter
        // would change the sign of a NaN coming through (the scalar loop's code keeps the fold).
        let mut passed: HashMap<Value, Value> = HashMap::new();
        let mut redo: Vec<(Id, usize, Value, u32)> = Vec::new();
        for &id in ids {
            for (slot, x) in vecs.held_mut(id).iter_mut().enumerate() {
                let ty = self.b.func.dfg.value_type(*x);
                if !ty.is_vector() {
                    continue;
                }
                let (mut root, mut negs) = (*x, 0u32);
                while let Some(inner) = self.negated(root) {
                    root = inner;
                    negs += 1;
                }
                let param = match passed.get(&root) {
                    Some(p) => *p,
                    None => {
                        let p = self.b.append_block_param(next, ty);
                        args.push(root);
                        passed.insert(root, p);
                        p
                    }
                };
                if negs == 0 {
                    *x = param;
                } else {
                    redo.push((id, slot, param, negs));
                }
            }
        }
        if args.is_empty() {
            return false;
        }
        let dead = self.b.create_block();
        let null = self.b.ins().icmp_imm_u(IntCC::Equal, p0, 0);
        let taken: Vec<BlockArg> = args.iter().map(|x| BlockArg::Value(*x)).collect();
        self.b.ins().brif(null, dead, &[], next, &taken);
        self.b.seal_block(dead);
        self.b.switch_to_block(dead);
        let again: Vec<BlockArg> = args.iter().map(|x| BlockArg::Value(self.b.ins().bor(*x, *x))).collect();
        self.b.ins().jump(next, &again);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        for (id, slot, param, negs) in redo {
            let mut v = param;
            for _ in 0..negs {
                v = self.b.ins().fneg(v);
            }
            if let Some(x) = vecs.held_mut(id).get_mut(slot) {
                *x = v;
            }
        }
        true
    }

    /// Vector `x` shifted (`op`: a SPIR-V shift) by scalar `n`, modulo the lane width; by an
    /// immediate when `n` follows from constants ([`fold`]), not from a register.
    fn shift_by(&mut self, op: Op, x: Value, n: Value) -> Value {
        let n = match fold::const_int(&self.b.func.dfg, n) {
            Some(k) => {
                let bits = u64::from(self.b.func.dfg.value_type(x).lane_bits());
                self.b.ins().iconst(types::I32, (k % bits) as i64)
            }
            None => n,
        };
        match op {
            Op::ShiftLeftLogical => self.b.ins().ishl(x, n),
            Op::ShiftRightLogical => self.b.ins().ushr(x, n),
            _ => self.b.ins().sshr(x, n),
        }
    }

    /// The operand of `v` if `v` is a negation (`fneg`).
    fn negated(&self, v: Value) -> Option<Value> {
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::Fneg,
                arg,
            } => Some(arg),
            _ => None,
        }
    }

    /// One step of [`FnTx::simd_body`].
    #[allow(clippy::too_many_arguments)]
    fn simd_step(
        &mut self,
        k: usize,
        inst: &Instruction,
        step: Step,
        plan: &Plan,
        vecs: &mut Vecs,
        branch: &mut Vec<Branch>,
        looping: &mut Option<Loop>,
        bail: Block,
        bail_args: &[BlockArg],
        cut: Option<&RowCut>,
    ) -> R {
        {
            match step {
                Step::Deferred | Step::Phi | Step::Yield | Step::LoopPhi | Step::LoopExitPhi => {}
                Step::LoopHead { negate, masked } => {
                    let mut lp = self.open_loop(plan, k, masked, vecs)?;
                    match (op_id(inst, 2), masked) {
                        (Err(_), false) => {
                            self.b.ins().jump(lp.head, &[]);
                        }
                        (Ok(c), false) => {
                            self.all_or_none_branch(c, negate, [lp.head, lp.exit], plan, vecs, bail, bail_args)?
                        }
                        (guard, true) => {
                            // The work-items that enter run the loop under a mask of their own.
                            let all = self.exec_mask(vecs);
                            let var = self.b.declare_var(types::I32X4);
                            lp.outer = vecs.exec.replace(var);
                            match guard {
                                Err(_) => {
                                    self.b.def_var(var, all);
                                    self.b.ins().jump(lp.head, &[]);
                                }
                                Ok(c) => {
                                    let m = self.mask(c, negate, plan, vecs)?;
                                    let e = self.b.ins().band(all, m);
                                    self.b.def_var(var, e);
                                    let any = self.b.ins().vany_true(e);
                                    self.b.ins().brif(any, lp.head, &[], lp.exit, &[]);
                                }
                            }
                        }
                    }
                    self.b.switch_to_block(lp.head);
                    self.use_phis(&lp.phis, vecs);
                    *looping = Some(lp);
                }
                Step::LoopExit { negate } => {
                    let lp = looping
                        .as_mut()
                        .ok_or_else(|| self.err(inst, "vector plan: loop exit without a head"))?;
                    let (exit, at, exit_phis) = (lp.exit, lp.exits, lp.exit_phis.clone());
                    lp.exits += 1;
                    let c = op_id(inst, 2)?;
                    let cont = self.b.create_block();
                    match vecs.exec {
                        Some(var) => {
                            // The lanes for which it holds leave with their values.
                            let leave = self.mask(c, negate, plan, vecs)?;
                            let cur = self.b.use_var(var);
                            let leaving = self.b.ins().band(cur, leave);
                            self.capture_leaving(&exit_phis, at, leaving, plan, vecs)?;
                            let stay = self.b.ins().band_not(cur, leave);
                            self.b.def_var(var, stay);
                            let any = self.b.ins().vany_true(stay);
                            self.b.ins().brif(any, cont, &[], exit, &[]);
                        }
                        None => {
                            // All four leave, or none does (else they go to the scalar loop).
                            self.def_phis(&exit_phis, at, plan, vecs)?;
                            self.all_or_none_branch(c, negate, [exit, cont], plan, vecs, bail, bail_args)?;
                        }
                    }
                    self.b.seal_block(cont);
                    self.b.switch_to_block(cont);
                }
                Step::LoopEnd { negate } => {
                    let lp = looping
                        .take()
                        .ok_or_else(|| self.err(inst, "vector plan: loop end without a head"))?;
                    self.def_phis(&lp.phis, 1, plan, vecs)?;
                    let c = op_id(inst, 2)?;
                    let uniform = plan.class.get(&c).is_none_or(|x| *x == Class::Uniform);
                    match vecs.exec {
                        Some(var) if looped_masked(plan, k) && uniform => {
                            // The same test for every lane: all still in go round, or all leave.
                            let leave = self.b.create_block();
                            let v = self.val1(c)?;
                            let (t, e) = if negate { (leave, lp.head) } else { (lp.head, leave) };
                            self.b.ins().brif(v, t, &[], e, &[]);
                            self.b.seal_block(leave);
                            self.b.switch_to_block(leave);
                            let cur = self.b.use_var(var);
                            self.capture(&lp.exit_phis, lp.exits, cur, plan, vecs)?;
                            self.b.ins().jump(lp.exit, &[]);
                            vecs.exec = lp.outer;
                        }
                        Some(var) if looped_masked(plan, k) => {
                            if plan.monotone.contains_key(&c) {
                                // Lanes 0 and 3 decide the usual cases: every lane goes round
                                // again, or every lane leaves; the mask only when they differ.
                                let (all, none) = self.all_or_none(c, plan, vecs)?;
                                let (all, none) = if negate { (none, all) } else { (all, none) };
                                let (check, leave, mixed) =
                                    (self.b.create_block(), self.b.create_block(), self.b.create_block());
                                self.b.ins().brif(all, lp.head, &[], check, &[]);
                                self.b.seal_block(check);
                                self.b.switch_to_block(check);
                                self.b.ins().brif(none, leave, &[], mixed, &[]);
                                self.b.seal_block(leave);
                                self.b.seal_block(mixed);
                                self.b.switch_to_block(leave);
                                let cur = self.b.use_var(var);
                                self.capture(&lp.exit_phis, lp.exits, cur, plan, vecs)?;
                                self.b.ins().jump(lp.exit, &[]);
                                self.b.switch_to_block(mixed);
                            }
                            let again = self.mask(c, negate, plan, vecs)?;
                            let cur = self.b.use_var(var);
                            let leaving = self.b.ins().band_not(cur, again);
                            self.capture_leaving(&lp.exit_phis, lp.exits, leaving, plan, vecs)?;
                            let cont = self.b.ins().band(cur, again);
                            self.b.def_var(var, cont);
                            let any = self.b.ins().vany_true(cont);
                            self.b.ins().brif(any, lp.head, &[], lp.exit, &[]);
                            vecs.exec = lp.outer;
                        }
                        _ => {
                            self.def_phis(&lp.exit_phis, lp.exits, plan, vecs)?;
                            self.all_or_none_branch(c, negate, [lp.head, lp.exit], plan, vecs, bail, bail_args)?;
                        }
                    }
                    self.b.seal_block(lp.head);
                    self.b.seal_block(lp.exit);
                    self.b.switch_to_block(lp.exit);
                    self.use_phis(&lp.exit_phis, vecs);
                }
                Step::If { negate, masked } => {
                    let c = op_id(inst, 0)?;
                    let mut br = self.open_branch(plan, k, vecs)?;
                    let (first, second) = (br.first, br.second);
                    if masked {
                        // Each arm that some lane takes runs under the mask of its lanes.
                        let outer = self.exec_mask(vecs);
                        let m = self.mask(c, negate, plan, vecs)?;
                        let t = self.b.ins().band(outer, m);
                        let f = self.b.ins().band_not(outer, m);
                        if br.has_else {
                            self.zero_phis(&br.phis)?;
                        }
                        let ev = self.b.declare_var(types::I32X4);
                        br.masked = Some((t, f, ev, vecs.exec.replace(ev)));
                        let any = self.b.ins().vany_true(t);
                        self.b.ins().brif(any, first, &[], second, &[]);
                        self.b.seal_block(first);
                        self.b.switch_to_block(first);
                        self.b.def_var(ev, t);
                    } else if let Some(cut) = cut.filter(|cut| cut.step == k) {
                        self.cut_branch(c, negate, [first, second], cut, plan, vecs, bail, bail_args)?;
                        self.b.seal_block(first);
                        self.b.switch_to_block(first);
                    } else {
                        self.all_or_none_branch(c, negate, [first, second], plan, vecs, bail, bail_args)?;
                        self.b.seal_block(first);
                        self.b.switch_to_block(first);
                    }
                    branch.push(br);
                }
                Step::Else => {
                    let br = branch
                        .last()
                        .ok_or_else(|| self.err(inst, "vector plan: else without if"))?;
                    let (after, second) = (br.after, br.second);
                    let phis = br.phis.clone();
                    match br.masked {
                        Some((t, f, ev, _)) => {
                            self.capture(&phis, 0, t, plan, vecs)?;
                            let any = self.b.ins().vany_true(f);
                            self.b.ins().brif(any, second, &[], after, &[]);
                            self.b.seal_block(second);
                            self.b.switch_to_block(second);
                            self.b.def_var(ev, f);
                        }
                        None => {
                            self.def_phis(&phis, 0, plan, vecs)?;
                            self.b.ins().jump(after, &[]);
                            self.b.seal_block(second);
                            self.b.switch_to_block(second);
                        }
                    }
                }
                Step::EndIf => {
                    let br = branch
                        .pop()
                        .ok_or_else(|| self.err(inst, "vector plan: end without if"))?;
                    // The first arm's values, or (after an else) the second's.
                    match br.masked {
                        Some((t, f, _, outer)) => {
                            let (at, lanes) = if br.has_else { (1, f) } else { (0, t) };
                            self.capture(&br.phis, at, lanes, plan, vecs)?;
                            vecs.exec = outer;
                        }
                        None => self.def_phis(&br.phis, usize::from(br.has_else), plan, vecs)?,
                    }
                    self.b.ins().jump(br.after, &[]);
                    self.b.seal_block(br.after);
                    self.b.switch_to_block(br.after);
                    self.use_phis(&br.phis, vecs);
                }
                Step::Scalar => self.inst(inst)?,
                Step::ScalarGuarded(guard) => self.guarded(inst, plan, guard, bail, bail_args)?,
                Step::Builtin => {
                    let (r, ty) = result(inst)?;
                    let p = op_id(inst, 0)?;
                    let v = self
                        .builtin_load(p, ty)?
                        .ok_or_else(|| self.err(inst, "vector plan: builtin not available"))?;
                    self.def(r, ty, v);
                }
                Step::Vector => self.simd_inst(inst, plan, vecs)?,
                Step::CaseEq => self.case_eq(inst, plan, vecs)?,
                Step::Private => {
                    // Four copies side by side: lane l's at base + l * size.
                    let (r, ty) = result(inst)?;
                    let Some(Class::Affine(size)) = plan.class.get(&r).copied() else {
                        return Err(self.err(inst, "vector plan: private variable without a size"));
                    };
                    let align = match self.cx.layout.get(ty)?.ty {
                        crate::codegen::layout::Ty::Pointer(_, p) => self.cx.layout.get(p)?.align.max(1),
                        _ => 1,
                    };
                    let a = crate::codegen::memory::aligned_stack_slot(
                        &mut self.b,
                        (size as u64) * LANES as u64,
                        align.max(16),
                    );
                    self.rb_vector_private(r, a, size as u64);
                    self.def(r, ty, vec![a]);
                }
                Step::Lanes => {
                    if !self.fraction_lanes(inst, plan, vecs)? {
                        self.by_lanes(inst, plan, vecs)?
                    }
                }
            }
        }
        Ok(())
    }

    /// The values of carried phis where their paths meet: four lanes, or the scalar value.
    fn use_phis(&mut self, phis: &[BranchPhi], vecs: &mut Vecs) {
        for p in phis {
            let xs: Vec<Value> = p.vars.iter().map(|v| self.b.use_var(*v)).collect();
            match p.rep {
                Some(rep) => vecs.put(p.result, rep, &xs),
                None => self.def(p.result, p.ty, xs),
            }
        }
    }

    /// The four lanes of each leaf of value `id` at the end of the vector body (`vecs`: what
    /// it gave): one entry per component of a vector, one for a scalar.
    pub(crate) fn simd_lanes(&mut self, id: Id, plan: &Plan, vecs: &Vecs) -> R<Vec<[Value; LANES as usize]>> {
        let id = plan.at_end(id);
        let mut per_lane = Vec::with_capacity(LANES as usize);
        for l in 0..LANES as usize {
            per_lane.push(self.lane_vals(id, l, plan, vecs)?);
        }
        let n = per_lane[0].len();
        if per_lane.iter().any(|xs| xs.len() != n) {
            return Err(CompileError::new(format!(
                "vector plan: %{id} has lanes of different sizes"
            )));
        }
        Ok((0..n).map(|k| [0, 1, 2, 3].map(|l| per_lane[l][k])).collect())
    }

    /// Adds the four lanes of each leaf of input `id` (scalars of its record slots' types, one
    /// entry per component of a vector) to `vecs`. (An input may be a promoted private
    /// variable, with no SPIR-V type of its own.)
    /// A boolean (`plan` knows its type) comes as four 8-bit 0/1 values and becomes a mask.
    pub(crate) fn simd_input(&mut self, id: Id, plan: &Plan, comps: &[[Value; LANES as usize]], vecs: &mut Vecs) -> R {
        let one = |fx: &mut Self, xs: &[Value; LANES as usize]| {
            vec_type(fx.b.func.dfg.value_type(xs[0])).map(|vt| fx.build(vt, xs))
        };
        let bools = self.bool_vector_of(id, plan);
        if comps.len() > 1 && (self.narrow_of(id, plan).is_some() || bools) {
            // A narrow vector's components, widened into 32-bit lanes (a vector of booleans'
            // made masks).
            let xs: Vec<Vec<Value>> = (0..LANES as usize)
                .map(|l| comps.iter().map(|c| c[l]).collect())
                .collect();
            let vs = self.widen_lanes(&xs, comps.len(), bools);
            vecs.s.insert(id, vs);
            return Ok(());
        }
        let ty = plan.tys.get(&id).copied();
        match comps {
            [xs] if fx_is_small(self, xs[0]) && ty.is_some_and(|t| matches!(rep(self.cx, t), Some(Rep::Vector(_)))) => {
                // (A boolean's record slot holds 0 or 1; an 8- or 16-bit integer's its value.)
                let ty = ty.ok_or_else(|| CompileError::new("vector plan: an input of no type"))?;
                self.put_lanes(id, ty, *xs, vecs)?;
            }
            [xs] => match one(self, xs) {
                Some(v) => {
                    vecs.v.insert(id, v);
                }
                None if self.b.func.dfg.value_type(xs[0]) == types::F64 => {
                    let p = self.pair_of(*xs);
                    vecs.p.insert(id, p);
                }
                None => {
                    vecs.q.insert(id, *xs);
                }
            },
            _ => {
                let vs = comps
                    .iter()
                    .map(|xs| one(self, xs))
                    .collect::<Option<Vec<Value>>>()
                    .ok_or_else(|| CompileError::new(format!("vector plan: input %{id} is not a 32-bit vector")))?;
                vecs.s.insert(id, vs);
            }
        }
        Ok(())
    }

    /// A four-lane vector of type `vt` from four scalars.
    fn build(&mut self, vt: Type, xs: &[Value; LANES as usize]) -> Value {
        let mut v = self.b.ins().splat(vt, xs[0]);
        for (l, x) in xs.iter().enumerate().skip(1) {
            v = self.b.ins().insertlane(v, *x, l as u8);
        }
        v
    }

    /// The scalar translation of `inst` under `guard`: when the guard fails, the four
    /// work-items go to `bail` (the scalar loop) instead.
    fn guarded(&mut self, inst: &Instruction, plan: &Plan, guard: Guard, bail: Block, bail_args: &[BlockArg]) -> R {
        self.guarded_span(inst, plan, guard, bail, bail_args, LANES)
    }

    /// [`Self::guarded`] for the `span` work-items of the body (four, or eight with two quads):
    /// the guard holds for all of them.
    fn guarded_span(
        &mut self,
        inst: &Instruction,
        plan: &Plan,
        guard: Guard,
        bail: Block,
        bail_args: &[BlockArg],
        span: i64,
    ) -> R {
        let affine = |id: Id| match plan.class.get(&id).copied() {
            Some(Class::Affine(s)) => Ok(s),
            _ => Err(CompileError::new(format!("vector plan: %{id} is not affine"))),
        };
        let last_of = |s: i64| s * (span - 1);
        let ok = match guard {
            Guard::Extend { operand, signed } => {
                let id = op_id(inst, operand)?;
                let last = last_of(affine(id)?);
                let base = self.val1(id)?;
                // Lane 3 in 32-bit arithmetic, extended, against the exact sum: equal when no
                // lane wraps (the lanes lie between lane 0 and lane 3).
                let l32 = self.b.ins().iadd_imm_s(base, last);
                let (e32, e0) = if signed {
                    (
                        self.b.ins().sextend(types::I64, l32),
                        self.b.ins().sextend(types::I64, base),
                    )
                } else {
                    (
                        self.b.ins().uextend(types::I64, l32),
                        self.b.ins().uextend(types::I64, base),
                    )
                };
                let exact = self.b.ins().iadd_imm_s(e0, last);
                self.inst(inst)?;
                self.b.ins().icmp(IntCC::Equal, e32, exact)
            }
            Guard::Wrap { shift, signed } => {
                self.inst(inst)?;
                let (r, _) = result(inst)?;
                let last = last_of(affine(r)?);
                let base = self.val1(r)?;
                let exact = self.b.ins().iadd_imm_s(base, last);
                let up = self.b.ins().ishl_imm_s(exact, shift as i64);
                let back = if signed {
                    self.b.ins().sshr_imm_s(up, shift as i64)
                } else {
                    self.b.ins().ushr_imm_s(up, shift as i64)
                };
                self.b.ins().icmp(IntCC::Equal, back, exact)
            }
            Guard::LowZero { operand, mask } => {
                let base = self.val1(op_id(inst, operand)?)?;
                let low = self.b.ins().band_imm_s(base, mask);
                self.inst(inst)?;
                self.b.ins().icmp_imm_s(IntCC::Equal, low, 0)
            }
            Guard::Unit { operand } => {
                let u = self.val1(op_id(inst, operand)?)?;
                self.inst(inst)?;
                self.b.ins().icmp_imm_s(IntCC::Equal, u, 1)
            }
        };
        // A failed speculation goes on in the body planned without it, where there is one
        // (it takes the same arguments as the scalar loop's bail).
        let bail = match (guard, self.group.as_ref().and_then(|g| g.spec_bail)) {
            (Guard::Unit { .. }, Some(spec)) => spec,
            _ => bail,
        };
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], bail, bail_args);
        self.b.seal_block(cont);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The blocks and phi variables of the branch that starts at step `k` (a Step::If): its
    /// Step::Else and Step::EndIf follow, then its Step::Phi. Without an else, the path that
    /// skips the arm brings the phis' second values, defined here.
    fn open_branch(&mut self, plan: &Plan, k: usize, vecs: &Vecs) -> R<Branch> {
        self.open_branch_in(plan, k, vecs, None)
    }

    /// [`Self::open_branch`]; with `shared` (a second quad's branch), the first quad's, whose
    /// blocks it takes, and only the varying phis (the uniform ones are the first quad's).
    fn open_branch_in(&mut self, plan: &Plan, k: usize, vecs: &Vecs, shared: Option<&Branch>) -> R<Branch> {
        let (other, end) = plan
            .branch_span(k)
            .ok_or_else(|| CompileError::new("vector plan: branch without an end"))?;
        let has_else = other.is_some();
        let mut phis = Vec::new();
        for (phi, _) in plan.steps[end + 1..].iter().take_while(|(_, s)| *s == Step::Phi) {
            phis.push(self.phi_var(phi, plan)?);
        }
        let br = match shared {
            Some(b0) => {
                phis.retain(|p| p.rep.is_some());
                Branch {
                    first: b0.first,
                    second: b0.second,
                    after: b0.after,
                    has_else,
                    phis,
                    masked: None,
                }
            }
            None => {
                let after = self.b.create_block();
                Branch {
                    first: self.b.create_block(),
                    second: if has_else { self.b.create_block() } else { after },
                    after,
                    has_else,
                    phis,
                    masked: None,
                }
            }
        };
        if !has_else {
            self.def_phis(&br.phis, 1, plan, vecs)?;
        }
        Ok(br)
    }

    /// Goes to `yes` when condition `c` holds (is false if `negate`) in all four lanes, to
    /// `no` when in none; four lanes that disagree go to `bail`.
    #[allow(clippy::too_many_arguments)]
    fn all_or_none_branch(
        &mut self,
        c: Id,
        negate: bool,
        [yes, no]: [Block; 2],
        plan: &Plan,
        vecs: &Vecs,
        bail: Block,
        bail_args: &[BlockArg],
    ) -> R {
        if plan.class.get(&c).copied().unwrap_or(Class::Uniform) == Class::Uniform {
            let v = self.val1(c)?;
            let (t, e) = if negate { (no, yes) } else { (yes, no) };
            self.b.ins().brif(v, t, &[], e, &[]);
            return Ok(());
        }
        let (all, none) = self.all_or_none(c, plan, vecs)?;
        let (all, none) = if negate { (none, all) } else { (all, none) };
        let check = self.b.create_block();
        self.b.ins().brif(all, yes, &[], check, &[]);
        self.b.seal_block(check);
        self.b.switch_to_block(check);
        self.b.ins().brif(none, no, &[], bail, bail_args);
        Ok(())
    }

    /// As [`all_or_none_branch`](Self::all_or_none_branch) for the branch of a [`RowCut`]:
    /// when no lane takes the arm and the compared affine value does not wrap around within
    /// the rest of the row, no later work-item of the row takes it either, and the body goes
    /// to the cut's block instead.
    #[allow(clippy::too_many_arguments)]
    fn cut_branch(
        &mut self,
        c: Id,
        negate: bool,
        [yes, no]: [Block; 2],
        cut: &RowCut,
        plan: &Plan,
        vecs: &Vecs,
        bail: Block,
        bail_args: &[BlockArg],
    ) -> R {
        let (aff, s) = plan
            .monotone_affine(c)
            .ok_or_else(|| CompileError::new("vector plan: a row cut without an affine comparison"))?;
        let (all, none) = self.all_or_none(c, plan, vecs)?;
        let (all, none) = if negate { (none, all) } else { (all, none) };
        let (check, skip) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(all, yes, &[], check, &[]);
        self.b.seal_block(check);
        self.b.switch_to_block(check);
        self.b.ins().brif(none, skip, &[], bail, bail_args);
        self.b.seal_block(skip);
        self.b.switch_to_block(skip);
        // The affine value at the row's last work-item, base + stride * rem (rem < 2^20 and
        // |stride| <= 2^10: no overflow), lies beyond the base in the stride's direction, in
        // signed and in unsigned order: no lane wraps around.
        let base = self.val1(aff)?;
        let t = self.b.func.dfg.value_type(base);
        if t != types::I64 && t != types::I32 {
            self.b.ins().jump(no, &[]);
            return Ok(());
        }
        let few = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, cut.rem, 1 << 20);
        let rem = if t == types::I64 {
            cut.rem
        } else {
            self.b.ins().ireduce(t, cut.rem)
        };
        let d = self.b.ins().imul_imm_s(rem, s);
        let last = self.b.ins().iadd(base, d);
        let (ucc, scc) = if s >= 0 {
            (IntCC::UnsignedGreaterThanOrEqual, IntCC::SignedGreaterThanOrEqual)
        } else {
            (IntCC::UnsignedLessThanOrEqual, IntCC::SignedLessThanOrEqual)
        };
        let nu = self.b.ins().icmp(ucc, last, base);
        let ns = self.b.ins().icmp(scc, last, base);
        let ok = self.b.ins().band(nu, ns);
        let ok = self.b.ins().band(ok, few);
        self.b.ins().brif(ok, cut.block, &[], no, &[]);
        Ok(())
    }

    /// The blocks and variables of the loop that starts at step `k` (a Step::LoopHead): its
    /// phis follow, then after its Step::LoopEnd the exit block's. Defines the loop phis'
    /// values on entry and the exit phis' values from the guard (with one), or (a masked loop
    /// without one) zeros.
    fn open_loop(&mut self, plan: &Plan, k: usize, masked: bool, vecs: &Vecs) -> R<Loop> {
        self.open_loop_in(plan, k, masked, vecs, None)
    }

    /// [`Self::open_loop`]; with `shared` (a second quad's loop), the head and exit of the
    /// first quad's, and only the varying phis (the uniform ones are the first quad's).
    fn open_loop_in(
        &mut self,
        plan: &Plan,
        k: usize,
        masked: bool,
        vecs: &Vecs,
        shared: Option<(Block, Block)>,
    ) -> R<Loop> {
        let rest = plan.steps.get(k + 1..).unwrap_or(&[]);
        let end = rest
            .iter()
            .position(|(_, s)| matches!(s, Step::LoopEnd { .. }))
            .ok_or_else(|| CompileError::new("vector plan: loop without an end"))?;
        let guarded = op_id(&plan.steps[k].0, 2).is_ok();
        let mut phis = Vec::new();
        for (phi, _) in rest.iter().take_while(|(_, s)| *s == Step::LoopPhi) {
            phis.push(self.phi_var(phi, plan)?);
        }
        let mut exit_phis = Vec::new();
        for (phi, _) in rest[end + 1..].iter().take_while(|(_, s)| *s == Step::LoopExitPhi) {
            exit_phis.push(self.phi_var(phi, plan)?);
        }
        if shared.is_some() {
            phis.retain(|p| p.rep.is_some());
            exit_phis.retain(|p| p.rep.is_some());
        }
        self.def_phis(&phis, 0, plan, vecs)?;
        if guarded {
            for p in &exit_phis {
                let last = p.values.len() - 1;
                self.def_phis(std::slice::from_ref(p), last, plan, vecs)?;
            }
        }
        // The loop's values used after it, kept like exit phis with the value itself at every
        // exit.
        let exits = rest[..end]
            .iter()
            .filter(|(_, s)| matches!(s, Step::LoopExit { .. }))
            .count()
            + 1;
        let mut outs = Vec::new();
        for x in plan.live_outs.get(&(k + 1 + end)).into_iter().flatten() {
            let ty = *plan
                .tys
                .get(x)
                .ok_or_else(|| CompileError::new(format!("vector plan: %{x} of unknown type")))?;
            let rep = rep(self.cx, ty).ok_or_else(|| CompileError::new(format!("vector plan: %{x} not a scalar")))?;
            let vars = self.rep_vars(rep);
            outs.push(BranchPhi {
                result: *x,
                ty,
                vars,
                values: vec![*x; exits],
                rep: Some(rep),
            });
        }
        if masked {
            // Zeros where no path into the exit defines them yet (the lanes that never enter).
            if !guarded {
                self.zero_phis(&exit_phis)?;
            }
            self.zero_phis(&outs)?;
        }
        if masked {
            exit_phis.extend(outs);
        }
        let (head, exit) = match shared {
            Some(blocks) => blocks,
            None => (self.b.create_block(), self.b.create_block()),
        };
        Ok(Loop {
            head,
            exit,
            phis,
            exit_phis,
            exits: 0,
            outer: None,
        })
    }

    /// Variables for a value held as `rep`.
    fn rep_vars(&mut self, rep: Rep) -> Vec<Variable> {
        match rep {
            Rep::Vector(t) => vec![self.b.declare_var(t)],
            Rep::Quad(t) => (0..LANES).map(|_| self.b.declare_var(t)).collect(),
            Rep::Soa(t, n) => (0..n).map(|_| self.b.declare_var(t)).collect(),
            Rep::Pair(t) => (0..2).map(|_| self.b.declare_var(t)).collect(),
        }
    }

    /// The values holding `id`'s lanes as `rep` says (one vector, four scalars, one vector
    /// per component).
    fn held(&mut self, id: Id, rep: Rep, plan: &Plan, vecs: &Vecs) -> R<Vec<Value>> {
        match rep {
            Rep::Vector(_) => Ok(vec![self.lanes(id, plan, vecs)?]),
            Rep::Quad(_) => Ok(self.quad(id, plan, vecs)?.to_vec()),
            Rep::Soa(..) => self.comps(id, plan, vecs),
            Rep::Pair(_) => Ok(self.pair(id, plan, vecs)?.to_vec()),
        }
    }

    /// Double `id`'s lanes as two two-lane vectors (Rep::Pair; a uniform value splat).
    fn pair(&mut self, id: Id, plan: &Plan, vecs: &Vecs) -> R<[Value; 2]> {
        if let Some(p) = vecs.p.get(&id) {
            return Ok(*p);
        }
        if plan.class.get(&id).is_none_or(|c| *c == Class::Uniform) && !vecs.q.contains_key(&id) {
            let x = self.val1(id)?;
            if self.b.func.dfg.value_type(x) == types::F64 {
                let v = self.b.ins().splat(types::F64X2, x);
                return Ok([v, v]);
            }
        }
        let q = self.quad(id, plan, vecs)?;
        Ok(self.pair_of(q))
    }

    /// Four f64 lanes as two two-lane vectors.
    fn pair_of(&mut self, q: [Value; LANES as usize]) -> [Value; 2] {
        [0, 2].map(|l| {
            let v = self.b.ins().scalar_to_vector(types::F64X2, q[l]);
            self.b.ins().insertlane(v, q[l + 1], 1)
        })
    }

    /// The components of vector value `id` as four-lane vectors (a uniform one splat).
    fn comps(&mut self, id: Id, plan: &Plan, vecs: &Vecs) -> R<Vec<Value>> {
        if let Some(s) = vecs.s.get(&id) {
            return Ok(s.clone());
        }
        if plan.class.get(&id).is_some_and(|c| *c != Class::Uniform) {
            return Err(CompileError::new(format!("vector plan: %{id} has no components")));
        }
        let xs = self.val(id)?;
        let bools = self.bool_vector_of(id, plan);
        xs.into_iter()
            .map(|x| {
                // (A narrow vector's components in the low bits of 32-bit lanes, a vector of
                // booleans' as masks.)
                let mut x = self.widen_lane(x);
                if bools {
                    x = self.b.ins().ineg(x);
                }
                let t = self.b.func.dfg.value_type(x);
                let vt = vec_type(t).ok_or_else(|| CompileError::new(format!("vector plan: %{id} is not 32-bit")))?;
                Ok(self.b.ins().splat(vt, x))
            })
            .collect()
    }

    /// Operand `id` of an operation on `n` components: its components, or (a scalar) its
    /// lanes for each.
    fn comp_args(&mut self, id: Id, n: usize, plan: &Plan, vecs: &Vecs) -> R<Vec<Value>> {
        let vector = vecs.s.contains_key(&id) || self.leaves_of(id, plan) > 1;
        if vector {
            return self.comps(id, plan, vecs);
        }
        let v = self.lanes(id, plan, vecs)?;
        Ok(vec![v; n])
    }

    /// How many leaves value `id` has (1 when unknown).
    fn leaves_of(&self, id: Id, plan: &Plan) -> usize {
        let ty = plan
            .tys
            .get(&id)
            .copied()
            .or_else(|| self.cx.m.constant(id).map(|c| c.ty));
        ty.and_then(|t| self.cx.layout.get(t).ok())
            .map_or(1, |i| i.leaves.len())
    }

    /// Defines varying phis' variables as zeros (the lanes no path defines yet).
    fn zero_phis(&mut self, phis: &[BranchPhi]) -> R {
        for p in phis {
            let Some(Rep::Vector(t) | Rep::Quad(t) | Rep::Soa(t, _) | Rep::Pair(t)) = p.rep else {
                return Err(CompileError::new("vector plan: uniform phi of a masked branch"));
            };
            for var in &p.vars {
                let z = self.zero_of(t);
                self.b.def_var(*var, z);
            }
        }
        Ok(())
    }

    /// Zero of a scalar or vector type.
    fn zero_of(&mut self, t: Type) -> Value {
        if t.is_vector() {
            let lane = t.lane_type();
            let z = self.zero(lane);
            self.b.ins().splat(t, z)
        } else {
            self.zero(t)
        }
    }

    /// The execution mask here: the masked loop's, or all ones.
    fn exec_mask(&mut self, vecs: &Vecs) -> Value {
        match vecs.exec {
            Some(v) => self.b.use_var(v),
            None => {
                let ones = self.b.ins().iconst(types::I32, -1);
                self.b.ins().splat(types::I32X4, ones)
            }
        }
    }

    /// Condition `c` as a mask (its negation if `negate`).
    fn mask(&mut self, c: Id, negate: bool, plan: &Plan, vecs: &Vecs) -> R<Value> {
        let m = self.lanes(c, plan, vecs)?;
        let m = if self.b.func.dfg.value_type(m) == types::I32X4 {
            m
        } else {
            self.b.ins().bitcast(types::I32X4, MemFlagsData::new(), m)
        };
        Ok(if negate { self.b.ins().bnot(m) } else { m })
    }

    /// `mask ? a : b` lane by lane, for values held as `rep` (one value or one per lane).
    fn select_rep(&mut self, mask: Value, a: &[Value], b: &[Value]) -> Vec<Value> {
        if let ([a0, a1], [b0, b1]) = (a, b) {
            if self.b.func.dfg.value_type(*a0) == types::F64X2 {
                // Two two-lane vectors (Rep::Pair): the mask's lanes 0-1, then 2-3, widened.
                let le = vflags();
                let m0 = self.b.ins().swiden_low(mask);
                let m1 = self.b.ins().swiden_high(mask);
                let m0 = self.b.ins().bitcast(types::F64X2, le, m0);
                let m1 = self.b.ins().bitcast(types::F64X2, le, m1);
                return vec![
                    self.b.ins().bitselect(m0, *a0, *b0),
                    self.b.ins().bitselect(m1, *a1, *b1),
                ];
            }
        }
        if a.first().is_some_and(|x| self.b.func.dfg.value_type(*x).is_vector()) {
            // One vector, or one per component.
            return a
                .iter()
                .zip(b)
                .map(|(x, y)| {
                    let t = self.b.func.dfg.value_type(*x);
                    let m = if t == types::I32X4 {
                        mask
                    } else {
                        self.b.ins().bitcast(t, MemFlagsData::new(), mask)
                    };
                    self.b.ins().bitselect(m, *x, *y)
                })
                .collect();
        }
        a.iter()
            .zip(b)
            .enumerate()
            .map(|(l, (x, y))| {
                let ml = self.b.ins().extractlane(mask, l as u8);
                self.b.ins().select(ml, *x, *y)
            })
            .collect()
    }

    /// [`Self::capture`] at a loop's exit, skipped in the (usual) rounds no lane leaves in.
    fn capture_leaving(&mut self, phis: &[BranchPhi], at: usize, leaving: Value, plan: &Plan, vecs: &Vecs) -> R {
        if phis.is_empty() {
            return Ok(());
        }
        let (keep, join) = (self.b.create_block(), self.b.create_block());
        let any = self.b.ins().vany_true(leaving);
        self.b.ins().brif(any, keep, &[], join, &[]);
        self.b.seal_block(keep);
        self.b.switch_to_block(keep);
        self.capture(phis, at, leaving, plan, vecs)?;
        self.b.ins().jump(join, &[]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// The lanes of `leaving` take value `at` of each exit phi (the others keep theirs).
    fn capture(&mut self, phis: &[BranchPhi], at: usize, leaving: Value, plan: &Plan, vecs: &Vecs) -> R {
        for p in phis {
            let v = *p
                .values
                .get(at)
                .ok_or_else(|| CompileError::new("vector plan: exit phi without a value for an exit"))?;
            let new = match p.rep {
                Some(rep) => self.held(v, rep, plan, vecs)?,
                None => return Err(CompileError::new("vector plan: uniform exit value of a masked loop")),
            };
            let old: Vec<Value> = p.vars.iter().map(|x| self.b.use_var(*x)).collect();
            let xs = self.select_rep(leaving, &new, &old);
            for (var, x) in p.vars.iter().zip(xs) {
                self.b.def_var(*var, x);
            }
        }
        Ok(())
    }

    /// A phi carried in a variable (vector or scalar, as its class says); `values`: the
    /// operands holding its two values.
    fn phi_var(&mut self, phi: &Instruction, plan: &Plan) -> R<BranchPhi> {
        let (result, ty) = crate::codegen::state::result(phi)?;
        let leaf = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
        let rep = if plan.class.get(&result) == Some(&Class::Varying) {
            Some(rep(self.cx, ty).ok_or_else(|| self.err(phi, "vector plan: not a scalar phi"))?)
        } else {
            None
        };
        let vars = match rep {
            None => vec![self.b.declare_var(leaf)],
            Some(rep) => self.rep_vars(rep),
        };
        Ok(BranchPhi {
            result,
            ty,
            vars,
            values: (0..phi.operands.len()).map(|k| op_id(phi, k)).collect::<R<_>>()?,
            rep,
        })
    }

    /// Defines each phi's variables with its value `at` (0: on the first arm's path).
    fn def_phis(&mut self, phis: &[BranchPhi], at: usize, plan: &Plan, vecs: &Vecs) -> R {
        for p in phis {
            let v = *p
                .values
                .get(at)
                .ok_or_else(|| CompileError::new("vector plan: phi without a value for a path"))?;
            let xs = match p.rep {
                Some(rep) => self.held(v, rep, plan, vecs)?,
                None => vec![self.val1(v)?],
            };
            for (var, x) in p.vars.iter().zip(xs) {
                self.b.def_var(*var, x);
            }
        }
        Ok(())
    }

    /// Whether condition `c` holds in all four lanes, and whether in none (both false: they
    /// disagree).
    fn all_or_none(&mut self, c: Id, plan: &Plan, vecs: &Vecs) -> R<(Value, Value)> {
        self.all_or_none_span(c, plan, vecs, LANES)
    }

    /// [`Self::all_or_none`] over `span` work-items for a Monotone `c` (lanes 0 and
    /// `span - 1` decide); a mask's four lanes otherwise.
    fn all_or_none_span(&mut self, c: Id, plan: &Plan, vecs: &Vecs, span: i64) -> R<(Value, Value)> {
        if let Some(cmp) = plan.monotone.get(&c) {
            // Lanes 0 and 3 of an ordered comparison of affine x and uniform y: the lanes in
            // between lie between them, unless x wraps around within the four lanes.
            let (x, y) = (op_id(cmp, 0)?, op_id(cmp, 1)?);
            let (aff, s) = match (plan.class.get(&x).copied(), plan.class.get(&y).copied()) {
                (Some(Class::Affine(s)), _) => (x, s),
                (_, Some(Class::Affine(s))) => (y, s),
                _ => return Err(self.err(cmp, "vector plan: comparison without an affine operand")),
            };
            let base = self.val1(aff)?;
            let last = self.b.ins().iadd_imm_s(base, s * (span - 1));
            let (ucc, scc) = if s >= 0 {
                (IntCC::UnsignedGreaterThanOrEqual, IntCC::SignedGreaterThanOrEqual)
            } else {
                (IntCC::UnsignedLessThanOrEqual, IntCC::SignedLessThanOrEqual)
            };
            let cc = int_cc(cmp.opcode).ok_or_else(|| self.err(cmp, "vector plan: not an ordered comparison"))?;
            // Only the comparison's own order matters: the lanes are monotone in it when they
            // do not wrap around in it.
            let no_wrap = match cc {
                IntCC::SignedLessThan
                | IntCC::SignedLessThanOrEqual
                | IntCC::SignedGreaterThan
                | IntCC::SignedGreaterThanOrEqual => self.b.ins().icmp(scc, last, base),
                IntCC::UnsignedLessThan
                | IntCC::UnsignedLessThanOrEqual
                | IntCC::UnsignedGreaterThan
                | IntCC::UnsignedGreaterThanOrEqual => self.b.ins().icmp(ucc, last, base),
                _ => {
                    let nu = self.b.ins().icmp(ucc, last, base);
                    let ns = self.b.ins().icmp(scc, last, base);
                    self.b.ins().band(nu, ns)
                }
            };
            let (xv, yv) = (self.val1(x)?, self.val1(y)?);
            let (x3, y3) = if aff == x { (last, yv) } else { (xv, last) };
            let c0 = self.b.ins().icmp(cc, xv, yv);
            let c3 = self.b.ins().icmp(cc, x3, y3);
            let both = self.b.ins().band(c0, c3);
            let either = self.b.ins().bor(c0, c3);
            let neither = self.b.ins().bnot(either);
            let neither = self.b.ins().band_imm_s(neither, 1);
            let all = self.b.ins().band(both, no_wrap);
            let none = self.b.ins().band(neither, no_wrap);
            return Ok((all, none));
        }
        let m = self.lanes(c, plan, vecs)?;
        let all = self.b.ins().vall_true(m);
        let any = self.b.ins().vany_true(m);
        let none = self.b.ins().bxor_imm_s(any, 1);
        Ok((all, none))
    }

    /// A Monotone comparison as a four-lane mask: the comparison in each lane.
    fn monotone_mask(&mut self, cmp: &Instruction, plan: &Plan) -> R<Value> {
        let (x, y) = (op_id(cmp, 0)?, op_id(cmp, 1)?);
        let cc = int_cc(cmp.opcode).ok_or_else(|| self.err(cmp, "vector plan: not an ordered comparison"))?;
        let (xv, yv) = (self.val1(x)?, self.val1(y)?);
        let stride = |id: Id| match plan.class.get(&id).copied() {
            Some(Class::Affine(s)) => s,
            _ => 0,
        };
        let (sx, sy) = (stride(x), stride(y));
        match self.b.func.dfg.value_type(xv) {
            // Each operand as its first lane's value plus the lanes' steps, compared as
            // vectors (wrapping like the scalar additions would).
            types::I32 => {
                let xs = self.affine_lanes(types::I32X4, xv, sx, 0);
                let ys = self.affine_lanes(types::I32X4, yv, sy, 0);
                Ok(self.b.ins().icmp(cc, xs, ys))
            }
            // Lanes 0-1 and 2-3 as two-lane vectors; the low halves of their masks gathered.
            types::I64 => {
                let [lo, hi] = [0, 2].map(|first| {
                    let xs = self.affine_lanes(types::I64X2, xv, sx, first);
                    let ys = self.affine_lanes(types::I64X2, yv, sy, first);
                    let m = self.b.ins().icmp(cc, xs, ys);
                    self.b.ins().bitcast(types::I32X4, vflags(), m)
                });
                Ok(self.shuffle32(lo, hi, [0, 2, 4, 6]))
            }
            _ => Err(self.err(
                cmp,
                "vector plan: an ordered comparison of neither 32- nor 64-bit integers",
            )),
        }
    }

    /// `v + s * l` in each lane `l` of a vector of type `vt`, its lanes being work-items
    /// `first..`.
    fn affine_lanes(&mut self, vt: Type, v: Value, s: i64, first: i64) -> Value {
        let splat = self.b.ins().splat(vt, v);
        if s == 0 {
            return splat;
        }
        let lanes = vt.lane_count() as i64;
        let bytes: Vec<u8> = (first..first + lanes)
            .flat_map(|l| {
                let step = s.wrapping_mul(l);
                if vt.lane_bits() == 64 {
                    step.to_le_bytes().to_vec()
                } else {
                    (step as i32).to_le_bytes().to_vec()
                }
            })
            .collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        let steps = self.b.ins().vconst(vt, c);
        self.b.ins().iadd(splat, steps)
    }

    /// Four lanes of operand `id` as a vector of `lane` elements.
    fn lanes(&mut self, id: Id, plan: &Plan, vecs: &Vecs) -> R<Value> {
        if let Some(v) = vecs.v.get(&id) {
            return Ok(*v);
        }
        if let Some(cmp) = plan.monotone.get(&id) {
            return self.monotone_mask(cmp, plan);
        }
        let mut x = self.val1(id)?;
        if matches!(self.b.func.dfg.value_type(x), types::I8 | types::I16) {
            // A uniform bool (0 or 1) as a mask, an 8- or 16-bit integer in the low bits.
            x = self.b.ins().uextend(types::I32, x);
            if self.small_int_of(id, plan).is_none() {
                x = self.b.ins().ineg(x);
            }
        }
        let t = self.b.func.dfg.value_type(x);
        let vt = vec_type(t).ok_or_else(|| CompileError::new(format!("vector plan: %{id} is not 32-bit")))?;
        let splat = self.b.ins().splat(vt, x);
        match plan.class.get(&id).copied().unwrap_or(Class::Uniform) {
            Class::Uniform => Ok(splat),
            Class::Affine(s) => {
                let mut bytes = Vec::with_capacity(16);
                for l in 0..LANES {
                    bytes.extend_from_slice(&(s.wrapping_mul(l) as i32).to_le_bytes());
                }
                let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
                let steps = self.b.ins().vconst(types::I32X4, c);
                Ok(self.b.ins().iadd(splat, steps))
            }
            c => Err(CompileError::new(format!("vector plan: %{id} has class {c:?}"))),
        }
    }

    /// An OpenCL.std function of [`VECTOR_EXT_F32`] or [`VECTOR_EXT_I32`] on four lanes.
    fn simd_ext(&mut self, inst: &Instruction, plan: &Plan, vecs: &Vecs) -> R<Value> {
        let name = ext_name(self.cx, inst).ok_or_else(|| self.err(inst, "vector plan: unknown instruction"))?;
        let mut a = Vec::new();
        for i in 2..inst.operands.len() {
            a.push(self.lanes(op_id(inst, i)?, plan, vecs)?);
        }
        if let ("select", [x, y, c]) = (name.as_str(), a.as_slice()) {
            // The scalar form (6.15.6): b where c is not zero (the vector form, by the most
            // significant bit, is `simd_soa`'s).
            let z = self.zero_of(types::I32X4);
            let m = self.b.ins().icmp(IntCC::NotEqual, *c, z);
            let vt = self.b.func.dfg.value_type(*x);
            let m = if vt == types::I32X4 {
                m
            } else {
                self.b.ins().bitcast(vt, MemFlagsData::new(), m)
            };
            return Ok(self.b.ins().bitselect(m, *y, *x));
        }
        if let Some(t) = self.small_int_of(inst.result_id.unwrap_or(0), plan) {
            return super::integer::emit_small(&mut self.b, base_name(&name), &a, t.bits())
                .ok_or_else(|| self.err(inst, "vector plan: unexpected 8- or 16-bit function"));
        }
        self.ext_on(inst, &name, &a)
    }

    /// fmax (`max`) or fmin of four lanes, bit for bit the scalar translation's: the scalar
    /// path's vector form (`vector.rs`), one `maxps`/`minps` when `y` is a plain constant.
    fn fminmax4(&mut self, x: Value, y: Value, max: bool) -> Value {
        let sh = crate::codegen::vector::Simd {
            s: crate::codegen::layout::Scalar::Float(32),
            lane: types::F32,
            n: 4,
            per: 4,
            vty: types::F32X4,
        };
        let plain = self.plain_f32x4(y);
        self.vfminmax(sh, x, y, max, plain)
    }

    /// The high 32 bits of each lane's 64-bit product of four 32-bit lanes (signed or not).
    fn mul_hi4(&mut self, x: Value, y: Value, signed: bool) -> Value {
        super::divide::mul_hi(&mut self.b, x, y, signed)
    }

    /// The value of every lane of four-lane float `v` when it is a splatted constant.
    fn splat_f32(&self, v: Value) -> Option<f32> {
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        match dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::Splat,
                arg,
            } => match dfg.value_def(arg).inst().map(|i| &dfg.insts[i]) {
                Some(InstructionData::UnaryIeee32 {
                    opcode: Opcode::F32const,
                    imm,
                }) => Some(f32::from_bits(imm.bits())),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether four-lane float `v` is a splatted constant that is neither NaN nor zero.
    fn plain_f32x4(&self, v: Value) -> bool {
        let dfg = &self.b.func.dfg;
        let Some(inst) = dfg.value_def(v).inst() else {
            return false;
        };
        let plain = |x: f32| !x.is_nan() && x != 0.0;
        match dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::Splat, ..
            } => self.splat_f32(v).is_some_and(plain),
            InstructionData::UnaryConst {
                opcode: Opcode::Vconst,
                constant_handle,
            } => {
                let bytes = dfg.constants.get(constant_handle).as_slice();
                bytes.len() == 16
                    && bytes.chunks(4).all(|c| c == &bytes[..4])
                    && plain(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            }
            _ => false,
        }
    }

    /// OpenCL.std function `name` on four-lane vectors `a` (for `rotate`, the amount is a
    /// uniform scalar).
    fn ext_on(&mut self, inst: &Instruction, name: &str, a: &[Value]) -> R<Value> {
        let arg = |k: usize| {
            a.get(k)
                .copied()
                .ok_or_else(|| CompileError::new(format!("{name}: missing operand")))
        };
        if crate::codegen::mathfn::known2(base_name(name)) {
            let (y, x) = (arg(0)?, arg(1)?);
            return crate::codegen::mathfn::emit2(&mut self.b, base_name(name), y, x)
                .ok_or_else(|| CompileError::new(format!("{name}: not a four-lane float")));
        }
        if crate::codegen::mathfn::common::known(base_name(name)) {
            return crate::codegen::mathfn::common::emit(&mut self.b, base_name(name), a)
                .ok_or_else(|| CompileError::new(format!("{name}: not four-lane floats")));
        }
        let exponent = match name {
            "ldexp" => Some(crate::codegen::mathfn::ldexp(&mut self.b, arg(0)?, arg(1)?)),
            "ilogb" => Some(crate::codegen::mathfn::ilogb(&mut self.b, arg(0)?)),
            _ => None,
        };
        if let Some(v) = exponent {
            return v.ok_or_else(|| CompileError::new(format!("{name}: not four-lane floats")));
        }
        if crate::codegen::mathfn::known(base_name(name)) {
            let x = arg(0)?;
            return self
                .math_inline(base_name(name), x)?
                .ok_or_else(|| CompileError::new(format!("{name}: not a four-lane float")));
        }
        if let Some(v) = super::integer::emit(&mut self.b, base_name(name), a) {
            return Ok(v);
        }
        Ok(match base_name(name) {
            // mad is the fused multiply-add, as in the scalar translation.
            "fma" | "mad" => self.b.ins().fma(arg(0)?, arg(1)?, arg(2)?),
            "fabs" => self.b.ins().fabs(arg(0)?),
            "sqrt" => self.b.ins().sqrt(arg(0)?),
            // In double precision two lanes at a time, as the scalar translation computes each.
            "hypot" => {
                let ops = [vec![arg(0)?], vec![arg(1)?]];
                let h = self.in_double_halves(&ops, |b, ps| {
                    Some(vec![crate::codegen::mathfn::geometric::hypot(b, ps[0][0], ps[1][0])])
                });
                h.and_then(|h| h.first().copied())
                    .ok_or_else(|| CompileError::new("hypot: no result"))?
            }
            // native_ and half_ forms, computed exactly as in the scalar translation.
            "divide" => self.b.ins().fdiv(arg(0)?, arg(1)?),
            "recip" => {
                let one = self.b.ins().f32const(1.0);
                let one = self.b.ins().splat(types::F32X4, one);
                self.b.ins().fdiv(one, arg(0)?)
            }
            "rsqrt" => {
                let root = self.b.ins().sqrt(arg(0)?);
                let one = self.b.ins().f32const(1.0);
                let one = self.b.ins().splat(types::F32X4, one);
                self.b.ins().fdiv(one, root)
            }
            "floor" => self.b.ins().floor(arg(0)?),
            "ceil" => self.b.ins().ceil(arg(0)?),
            "trunc" => self.b.ins().trunc(arg(0)?),
            "rint" => self.b.ins().nearest(arg(0)?),
            "copysign" => {
                // The sign bit of y, the other bits of x (Cranelift has no vector fcopysign).
                let sign = self.b.ins().iconst(types::I32, 0x8000_0000u32 as i64);
                let sign = self.b.ins().splat(types::I32X4, sign);
                let sign = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), sign);
                self.b.ins().bitselect(sign, arg(1)?, arg(0)?)
            }
            "fmin" | "fmin_common" | "fmax" | "fmax_common" => {
                self.fminmax4(arg(0)?, arg(1)?, base_name(name).starts_with("fmax"))
            }
            // As the scalar translation: fmin(fmax(x, lo), hi) with their NaN rule.
            "fclamp" => {
                let m = self.fminmax4(arg(0)?, arg(1)?, true);
                self.fminmax4(m, arg(2)?, false)
            }
            "s_clamp" => {
                let m = self.b.ins().smax(arg(0)?, arg(1)?);
                self.b.ins().smin(m, arg(2)?)
            }
            "u_clamp" => {
                let m = self.b.ins().umax(arg(0)?, arg(1)?);
                self.b.ins().umin(m, arg(2)?)
            }
            "select" => {
                // A component of a vector select: b where c's most significant bit is set.
                let (x, y, c) = (arg(0)?, arg(1)?, arg(2)?);
                let c = match self.b.func.dfg.value_type(c) {
                    t if t == types::I32X4 => c,
                    _ => self.b.ins().bitcast(types::I32X4, MemFlagsData::new(), c),
                };
                let m = self.b.ins().sshr_imm_u(c, 31);
                let vt = self.b.func.dfg.value_type(x);
                let m = if vt == types::I32X4 {
                    m
                } else {
                    self.b.ins().bitcast(vt, MemFlagsData::new(), m)
                };
                self.b.ins().bitselect(m, y, x)
            }
            "bitselect" => {
                // Bits of b where c is set, of a elsewhere.
                let (x, y, c) = (arg(0)?, arg(1)?, arg(2)?);
                self.b.ins().bitselect(c, y, x)
            }
            "rotate" => {
                // By a uniform scalar amount (modulo 32): the two shifts mask it.
                let (x, n) = (arg(0)?, arg(1)?);
                if let Some(k) = fold::const_int(&self.b.func.dfg, n) {
                    // By a constant: two shifts by immediates (none by 0).
                    let m = (k % 32) as i64;
                    if m == 0 {
                        return Ok(x);
                    }
                    let (l, r) = (
                        self.b.ins().iconst(types::I32, m),
                        self.b.ins().iconst(types::I32, 32 - m),
                    );
                    let (hi, lo) = (self.b.ins().ishl(x, l), self.b.ins().ushr(x, r));
                    return Ok(self.b.ins().bor(hi, lo));
                }
                let m = self.b.ins().band_imm_s(n, 31);
                let l = self.b.ins().ishl(x, m);
                let t = self.b.func.dfg.value_type(m);
                let w = self.b.ins().iconst(t, 32);
                let k = self.b.ins().isub(w, m);
                let k = self.b.ins().band_imm_s(k, 31);
                let r = self.b.ins().ushr(x, k);
                let both = self.b.ins().bor(l, r);
                // n = 0: both shifts by 0 give x | x = x.
                both
            }
            "s_max" => self.b.ins().smax(arg(0)?, arg(1)?),
            "u_max" => self.b.ins().umax(arg(0)?, arg(1)?),
            "s_min" => self.b.ins().smin(arg(0)?, arg(1)?),
            "u_min" => self.b.ins().umin(arg(0)?, arg(1)?),
            // As the scalar translation: the full 32-bit product (operands outside 24 bits give
            // an implementation-defined result, OpenCL C 6.15.3).
            "s_mul24" | "u_mul24" => self.b.ins().imul(arg(0)?, arg(1)?),
            "s_mad24" | "u_mad24" => {
                let m = self.b.ins().imul(arg(0)?, arg(1)?);
                self.b.ins().iadd(m, arg(2)?)
            }
            "s_mul_hi" | "u_mul_hi" => self.mul_hi4(arg(0)?, arg(1)?, base_name(name) == "s_mul_hi"),
            "s_mad_hi" | "u_mad_hi" => {
                let h = self.mul_hi4(arg(0)?, arg(1)?, base_name(name) == "s_mad_hi");
                self.b.ins().iadd(h, arg(2)?)
            }
            _ => return Err(self.err(inst, "vector plan: unexpected function")),
        })
    }

    /// The scalar value of operand `id` in lane `l` (a boolean as 0 or 1).
    fn lane(&mut self, id: Id, l: usize, plan: &Plan, vecs: &Vecs) -> R<Value> {
        if let Some(q) = vecs.q.get(&id) {
            return Ok(q[l]);
        }
        if let Some(p) = vecs.p.get(&id) {
            let v = p[l / 2];
            return Ok(self.b.ins().extractlane(v, (l % 2) as u8));
        }
        if vecs.v.contains_key(&id) || plan.monotone.contains_key(&id) {
            let v = self.lanes(id, plan, vecs)?;
            let x = self.b.ins().extractlane(v, l as u8);
            if let Some(t) = self.small_int_of(id, plan) {
                return Ok(self.b.ins().ireduce(t, x));
            }
            let is_bool = plan
                .tys
                .get(&id)
                .is_some_and(|t| self.cx.layout.get(*t).is_ok_and(|i| i.leaves == [types::I8]));
            return Ok(if is_bool {
                self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
            } else {
                x
            });
        }
        let base = self.val1(id)?;
        match plan.class.get(&id).copied().unwrap_or(Class::Uniform) {
            Class::Uniform => Ok(base),
            Class::Affine(s) if l == 0 || s == 0 => Ok(base),
            Class::Affine(s) => Ok(self.b.ins().iadd_imm_s(base, s.wrapping_mul(l as i64))),
            c => Err(CompileError::new(format!("vector plan: %{id} has class {c:?}"))),
        }
    }

    /// The leaves of operand `id` in lane `l` (one for a scalar, one per component of a
    /// vector).
    fn lane_vals(&mut self, id: Id, l: usize, plan: &Plan, vecs: &Vecs) -> R<Vec<Value>> {
        if let Some(s) = vecs.s.get(&id) {
            let s = s.clone();
            if let Some(t) = self.narrow_of(id, plan) {
                return Ok(self.narrow_lane_vals(&s, t, l));
            }
            if self.bool_vector_of(id, plan) {
                return Ok(self.bool_lane_vals(&s, l));
            }
            return Ok(s.into_iter().map(|v| self.b.ins().extractlane(v, l as u8)).collect());
        }
        if plan.class.get(&id).is_none_or(|c| *c == Class::Uniform)
            && !vecs.v.contains_key(&id)
            && !vecs.q.contains_key(&id)
            && !vecs.p.contains_key(&id)
        {
            // (All the leaves: a uniform value may be a vector, or a promoted variable of no
            // SPIR-V type.)
            return self.val(id);
        }
        Ok(vec![self.lane(id, l, plan, vecs)?])
    }

    /// Four lanes `xs` (each the leaves of one work-item's value) of a value of type `ty` as
    /// that value's varying form.
    fn put_lane_vals(&mut self, r: Id, ty: Id, xs: Vec<Vec<Value>>, vecs: &mut Vecs) -> R {
        if let Some(Rep::Soa(vt, n)) = rep(self.cx, ty) {
            if xs.len() != LANES as usize || xs.iter().any(|x| x.len() != n) {
                return Err(CompileError::new(format!("vector plan: %{r}: lanes of the wrong size")));
            }
            let comps = if self.cx.layout.get(ty)?.leaves.first().is_some_and(|t| t.bits() < 32) {
                self.widen_lanes(&xs, n, super::is_bool_vector(self.cx, ty))
            } else {
                (0..n)
                    .map(|k| self.build(vt, &[0, 1, 2, 3].map(|l| xs[l][k])))
                    .collect()
            };
            vecs.s.insert(r, comps);
            return Ok(());
        }
        let one: Vec<Value> = xs.iter().filter_map(|x| x.first().copied()).collect();
        let one = one
            .try_into()
            .map_err(|_| CompileError::new(format!("vector plan: %{r}: missing lanes")))?;
        self.put_lanes(r, ty, one, vecs)
    }

    /// The four lanes of operand `id` as scalars.
    fn quad(&mut self, id: Id, plan: &Plan, vecs: &Vecs) -> R<[Value; LANES as usize]> {
        if let Some(q) = vecs.q.get(&id) {
            return Ok(*q);
        }
        let mut q = Vec::with_capacity(LANES as usize);
        for l in 0..LANES as usize {
            q.push(self.lane(id, l, plan, vecs)?);
        }
        q.try_into().map_err(|_| CompileError::new("vector plan: no lanes"))
    }

    /// Four scalar lanes `xs` of a value of type `ty` as that value's varying form.
    fn put_lanes(&mut self, r: Id, ty: Id, xs: [Value; LANES as usize], vecs: &mut Vecs) -> R {
        match rep(self.cx, ty) {
            Some(Rep::Vector(vt)) => {
                let int = super::small_int(self.cx, ty).is_some();
                let mut v = None;
                for (l, mut x) in xs.into_iter().enumerate() {
                    if matches!(self.b.func.dfg.value_type(x), types::I8 | types::I16) {
                        // A boolean (0 or 1) as a mask lane, an 8- or 16-bit integer in the
                        // low bits.
                        x = self.b.ins().uextend(types::I32, x);
                        if !int {
                            x = self.b.ins().ineg(x);
                        }
                    }
                    v = Some(match v {
                        None => self.b.ins().splat(vt, x),
                        Some(acc) => self.b.ins().insertlane(acc, x, l as u8),
                    });
                }
                let v = v.ok_or_else(|| CompileError::new("vector plan: no lanes"))?;
                vecs.v.insert(r, v);
            }
            Some(Rep::Quad(_)) => {
                vecs.q.insert(r, xs);
            }
            Some(Rep::Pair(_)) => {
                let p = self.pair_of(xs);
                vecs.p.insert(r, p);
            }
            Some(Rep::Soa(..)) | None => return Err(CompileError::new(format!("vector plan: %{r} is not a scalar"))),
        }
        Ok(())
    }

    /// Code for lane `l` only where the execution mask `mask` (if any) lets it run: a branch
    /// around it, whose join [`Self::leave_lane`] takes.
    fn enter_lane(&mut self, mask: Option<Value>, l: usize) -> Option<Block> {
        mask.map(|m| {
            let ml = self.b.ins().extractlane(m, l as u8);
            let (go, next) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(ml, go, &[], next, &[]);
            self.b.seal_block(go);
            self.b.switch_to_block(go);
            next
        })
    }

    /// The end of a lane's code begun by [`Self::enter_lane`].
    fn leave_lane(&mut self, next: Option<Block>) {
        if let Some(next) = next {
            self.b.ins().jump(next, &[]);
            self.b.seal_block(next);
            self.b.switch_to_block(next);
        }
    }

    /// `fract`, `modf`, `sincos` and `frexp` of floats and of float vectors (Step::Lanes, for
    /// their pointer): the fractions and whole parts (sines and cosines, significands and
    /// exponents) four lanes at a time with the scalar translation's operations
    /// (`mathfn::fraction`, `mathfn::sincos`, `mathfn::frexp`), then each lane's whole part
    /// (cosine, exponent) stored through its own pointer, in lane order, for the lanes in the
    /// execution mask. `false`: not such a call (or robust mode, whose stores are
    /// checked lane by lane).
    fn fraction_lanes(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R<bool> {
        if inst.opcode != Op::ExtInst || self.robust.is_some() {
            return Ok(false);
        }
        let Some(name) = ext_name(self.cx, inst) else {
            return Ok(false);
        };
        let base = base_name(&name);
        if !matches!(base, "fract" | "modf" | "sincos" | "frexp") {
            return Ok(false);
        }
        let (r, ty) = result(inst)?;
        let (x, p) = (op_id(inst, 2)?, op_id(inst, 3)?);
        let xs = match rep(self.cx, ty) {
            Some(Rep::Vector(types::F32X4)) => vec![self.lanes(x, plan, vecs)?],
            Some(Rep::Soa(types::F32X4, n)) => self.comp_args(x, n, plan, vecs)?,
            _ => return Ok(false),
        };
        // (returned, stored): the fractions and the whole parts, or the sines and the cosines.
        let mut fractions = Vec::with_capacity(xs.len());
        let mut wholes = Vec::with_capacity(xs.len());
        for v in xs {
            let (f, w) = if base == "sincos" {
                match self.sincos_inline(v)? {
                    Some(sc) => sc,
                    None => return Ok(false),
                }
            } else if base == "frexp" {
                match crate::codegen::mathfn::frexp(&mut self.b, v) {
                    Some(me) => me,
                    None => return Ok(false),
                }
            } else {
                crate::codegen::mathfn::fraction(&mut self.b, base, v)
            };
            fractions.push(f);
            wholes.push(w);
        }
        if let ([whole], Some(Class::Affine(4)), None) = (wholes.as_slice(), plan.class.get(&p), vecs.exec) {
            // Four consecutive floats (a private float's four copies, or `&a[i]`), every
            // lane storing: one 16-byte store.
            let a = self.val1(p)?;
            self.b.ins().store(MemFlagsData::new(), *whole, a, 0);
            vecs.v.insert(r, fractions[0]);
            return Ok(true);
        }
        let addrs = self.quad(p, plan, vecs)?;
        let mask = vecs.exec.map(|v| self.b.use_var(v));
        for (l, a) in addrs.into_iter().enumerate() {
            let next = self.enter_lane(mask, l);
            for (k, w) in wholes.iter().enumerate() {
                let v = self.b.ins().extractlane(*w, l as u8);
                self.b.ins().store(MemFlagsData::new(), v, a, 4 * k as i32);
            }
            self.leave_lane(next);
        }
        match fractions.as_slice() {
            [one] if !matches!(rep(self.cx, ty), Some(Rep::Soa(..))) => {
                vecs.v.insert(r, *one);
            }
            _ => {
                vecs.s.insert(r, fractions);
            }
        }
        Ok(true)
    }

    /// Step::Lanes: the scalar translation of `inst` once per lane, its varying operands
    /// given that lane's values (the scalar values they had are put back after).
    fn by_lanes(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        // (A vector data store has a result of type void.)
        let vstore = inst.opcode == Op::ExtInst && ext_name(self.cx, inst).is_some_and(|n| n.starts_with("vstore"));
        if inst.result_id.is_none() || vstore {
            return self.effect_by_lanes(inst, plan, vecs);
        }
        let (r, ty) = result(inst)?;
        let mut ids: Vec<Id> = Vec::new();
        for o in &inst.operands {
            if let rspirv::dr::Operand::IdRef(x) = o {
                let varying = plan.class.get(x).is_some_and(|c| *c != Class::Uniform);
                if varying && !ids.contains(x) {
                    ids.push(*x);
                }
            }
        }
        // Every operand's lanes first: an affine one may be read from a variable.
        let mut lanes = Vec::with_capacity(ids.len());
        for x in &ids {
            let t = *plan
                .tys
                .get(x)
                .ok_or_else(|| self.err(inst, &format!("vector plan: operand %{x} of unknown type")))?;
            let mut per = Vec::with_capacity(LANES as usize);
            for l in 0..LANES as usize {
                per.push(self.lane_vals(*x, l, plan, vecs)?);
            }
            lanes.push((*x, t, per));
        }
        // Values carried across barriers live in variables that a definition would set:
        // out of the way while the lanes are translated.
        let mut hidden = Vec::new();
        if let Some(rg) = self.group.as_mut().and_then(|g| g.regions.as_mut()) {
            for x in ids.iter().chain([&r]) {
                if let Some(vs) = rg.crossing.remove(x) {
                    hidden.push((*x, vs));
                }
            }
        }
        let saved: Vec<(Id, Option<Vec<Value>>)> = ids
            .iter()
            .chain([&r])
            .map(|x| (*x, self.vals.get(x).cloned()))
            .collect();
        let mut out = Vec::with_capacity(LANES as usize);
        let mut res = Ok(());
        // An atomic, a function that stores through its pointer operand or a vector data load
        // runs only for the lanes in the execution mask (the others get zeros).
        let vload = inst.opcode == Op::ExtInst && ext_name(self.cx, inst).is_some_and(|n| vmem::is_vload(&n));
        let mask = vecs
            .exec
            .filter(|_| {
                vload || super::plan::is_atomic(inst.opcode) || super::plan::is_ext_with_out_pointer(self.cx, inst)
            })
            .map(|v| self.b.use_var(v));
        let leaves = self.cx.layout.get(ty)?.leaves.clone();
        for l in 0..LANES as usize {
            let next = mask.map(|m| {
                let ml = self.b.ins().extractlane(m, l as u8);
                let (go, next) = (self.b.create_block(), self.b.create_block());
                let zeros: Vec<BlockArg> = leaves
                    .iter()
                    .map(|t| {
                        let z = match *t {
                            types::F32 => self.b.ins().f32const(0.0),
                            types::F64 => self.b.ins().f64const(0.0),
                            t => self.b.ins().iconst(t, 0),
                        };
                        BlockArg::Value(z)
                    })
                    .collect();
                for t in &leaves {
                    self.b.append_block_param(next, *t);
                }
                self.b.ins().brif(ml, go, &[], next, &zeros);
                self.b.seal_block(go);
                self.b.switch_to_block(go);
                next
            });
            for (x, t, q) in &lanes {
                self.def(*x, *t, q[l].clone());
            }
            self.rb_set_lane(Some(l));
            match self.inst(inst).and_then(|_| self.val(r)) {
                Ok(v) => match next {
                    Some(next) => {
                        let args: Vec<BlockArg> = v.iter().map(|x| BlockArg::Value(*x)).collect();
                        self.b.ins().jump(next, &args);
                        self.b.seal_block(next);
                        self.b.switch_to_block(next);
                        out.push(self.b.block_params(next).to_vec());
                    }
                    None => out.push(v),
                },
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        self.rb_set_lane(None);
        for (x, v) in saved {
            match v {
                Some(v) => self.vals.insert(x, v),
                None => self.vals.remove(&x),
            };
        }
        if let Some(rg) = self.group.as_mut().and_then(|g| g.regions.as_mut()) {
            rg.crossing.extend(hidden);
        }
        res?;
        self.put_lane_vals(r, ty, out, vecs)
    }

    /// A comparison or logical operation as a four-lane mask.
    fn simd_mask(&mut self, inst: &Instruction, plan: &Plan, vecs: &Vecs) -> R<Value> {
        let op = inst.opcode;
        if matches!(op, Op::IEqual | Op::INotEqual) {
            if let Some(m) = self.affine_eq_mask(inst, plan)? {
                return Ok(if op == Op::INotEqual { self.b.ins().bnot(m) } else { m });
            }
        }
        let mut a = self.lanes(op_id(inst, 0)?, plan, vecs)?;
        if is_unary_test(op) {
            return self.test_mask(inst, a);
        }
        let mut b = self.lanes(op_id(inst, 1)?, plan, vecs)?;
        let small = self
            .small_int_of(op_id(inst, 0)?, plan)
            .or(self.small_int_of(op_id(inst, 1)?, plan));
        if let Some(t) = small {
            // 8- or 16-bit integers: extended as the comparison reads them.
            let signed = matches!(
                op,
                Op::SLessThan | Op::SLessThanEqual | Op::SGreaterThan | Op::SGreaterThanEqual
            );
            a = self.extend_low(a, t.bits(), signed);
            b = self.extend_low(b, t.bits(), signed);
        }
        self.cmp_mask(inst, a, b)
    }

    /// The mask of a one-operand test `inst` (OpLogicalNot, OpIsNan, OpIsInf, OpIsFinite,
    /// OpIsNormal, OpSignBitSet) of four lanes `a`: the float tests on the bits (magnitude
    /// `|a|` against the exponent field's limits).
    fn test_mask(&mut self, inst: &Instruction, a: Value) -> R<Value> {
        let op = inst.opcode;
        if op == Op::LogicalNot {
            return Ok(self.b.ins().bnot(a));
        }
        if op == Op::IsNan {
            return Ok(self.b.ins().fcmp(FloatCC::Unordered, a, a));
        }
        let bits = self.b.ins().bitcast(types::I32X4, MemFlagsData::new(), a);
        let k = |fx: &mut Self, v: i64| {
            let c = fx.b.ins().iconst(types::I32, v);
            fx.b.ins().splat(types::I32X4, c)
        };
        if op == Op::SignBitSet {
            let z = k(self, 0);
            return Ok(self.b.ins().icmp(IntCC::SignedLessThan, bits, z));
        }
        let m = k(self, 0x7fff_ffff);
        let mag = self.b.ins().band(bits, m);
        let inf = k(self, 0x7f80_0000);
        Ok(match op {
            Op::IsInf => self.b.ins().icmp(IntCC::Equal, mag, inf),
            Op::IsFinite => self.b.ins().icmp(IntCC::SignedLessThan, mag, inf),
            Op::IsNormal => {
                // 2^-126 <= |a| < infinity: `|a| - 2^-126` below the span, unsigned.
                let min = k(self, 0x0080_0000);
                let d = self.b.ins().isub(mag, min);
                let span = k(self, 0x7f80_0000 - 0x0080_0000);
                self.b.ins().icmp(IntCC::UnsignedLessThan, d, span)
            }
            _ => return Err(self.err(inst, "vector plan: unexpected test")),
        })
    }

    /// The mask of binary comparison or logical operation `inst` on four lanes `a` and `b`.
    fn cmp_mask(&mut self, inst: &Instruction, a: Value, b: Value) -> R<Value> {
        let op = inst.opcode;
        match op {
            Op::Ordered => Ok(self.b.ins().fcmp(FloatCC::Ordered, a, b)),
            Op::Unordered => Ok(self.b.ins().fcmp(FloatCC::Unordered, a, b)),
            Op::LessOrGreater => {
                let o = self.b.ins().fcmp(FloatCC::Ordered, a, b);
                let ne = self.b.ins().fcmp(FloatCC::NotEqual, a, b);
                Ok(self.b.ins().band(o, ne))
            }
            Op::LogicalAnd => Ok(self.b.ins().band(a, b)),
            Op::LogicalOr => Ok(self.b.ins().bor(a, b)),
            _ => match (int_cc(op), float_cc(op)) {
                (Some(cc), _) => Ok(self.b.ins().icmp(cc, a, b)),
                // (Cranelift has no four-lane `one` or `ueq`: ordered and not equal, unordered
                // or equal.)
                (_, Some(FloatCC::OrderedNotEqual)) => {
                    let o = self.b.ins().fcmp(FloatCC::Ordered, a, b);
                    let ne = self.b.ins().fcmp(FloatCC::NotEqual, a, b);
                    Ok(self.b.ins().band(o, ne))
                }
                (_, Some(FloatCC::UnorderedOrEqual)) => {
                    let u = self.b.ins().fcmp(FloatCC::Unordered, a, b);
                    let eq = self.b.ins().fcmp(FloatCC::Equal, a, b);
                    Ok(self.b.ins().bor(u, eq))
                }
                (_, Some(cc)) => Ok(self.b.ins().fcmp(cc, a, b)),
                _ => Err(self.err(inst, "vector plan: unexpected comparison")),
            },
        }
    }

    /// `a == u` of a 64-bit affine `a` (stride `s`) and a uniform `u` as a four-lane mask:
    /// lane `l` holds when `u - base` is `s * l` (`None`: the operands are not of that kind).
    fn affine_eq_mask(&mut self, inst: &Instruction, plan: &Plan) -> R<Option<Value>> {
        let (x, y) = (op_id(inst, 0)?, op_id(inst, 1)?);
        let class = |id: Id| plan.class.get(&id).copied().unwrap_or(Class::Uniform);
        let (a, s, u) = match (class(x), class(y)) {
            (Class::Affine(s), Class::Uniform) => (x, s, y),
            (Class::Uniform, Class::Affine(s)) => (y, s, x),
            _ => return Ok(None),
        };
        let (base, uv) = (self.val1(a)?, self.val1(u)?);
        if self.b.func.dfg.value_type(base) != types::I64 || self.b.func.dfg.value_type(uv) != types::I64 {
            return Ok(None);
        }
        let diff = self.b.ins().isub(uv, base);
        // (A difference that does not fit in 32 bits is no lane's `s * l`.)
        let narrow = self.b.ins().ireduce(types::I32, diff);
        let back = self.b.ins().sextend(types::I64, narrow);
        let fits = self.b.ins().icmp(IntCC::Equal, back, diff);
        let d = self.b.ins().splat(types::I32X4, narrow);
        let mut bytes = Vec::with_capacity(16);
        for l in 0..LANES {
            bytes.extend_from_slice(&(s.wrapping_mul(l) as i32).to_le_bytes());
        }
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        let steps = self.b.ins().vconst(types::I32X4, c);
        let m = self.b.ins().icmp(IntCC::Equal, d, steps);
        let zero = self.zero_of(types::I32X4);
        Ok(Some(self.b.ins().select(fits, m, zero)))
    }

    /// Whether all four lanes of execution mask `m` (lanes all ones or zero) are on: its sign
    /// bits (one `movmskps` the masked accesses of a round share, then a compare each).
    fn mask_full(&mut self, m: Value) -> Value {
        let bits = self.b.ins().vhigh_bits(types::I32, m);
        self.b.ins().icmp_imm_s(IntCC::Equal, bits, 0xf)
    }

    /// The leaf type, leaf count and component stride of a loaded or stored value of type `ty`.
    fn mem_shape(&self, ty: Id) -> R<(Type, usize, i32)> {
        let info = self.cx.layout.get(ty)?;
        let t = info.leaves.first().copied().unwrap_or(types::I32);
        let n = info.leaves.len().max(1);
        Ok((t, n, if n > 1 { info.stride as i32 } else { 0 }))
    }

    /// Loads one work-item's value (`n` leaves of type `t`, `stride` bytes apart) at `a`.
    fn load_one(&mut self, (t, n, stride): (Type, usize, i32), a: Value) -> Vec<Value> {
        (0..n)
            .map(|k| self.b.ins().load(t, MemFlagsData::new(), a, stride * k as i32))
            .collect()
    }

    /// Stores one work-item's value (its leaves, `stride` bytes apart) at `a`.
    fn store_one(&mut self, xs: &[Value], stride: i32, a: Value) {
        for (k, x) in xs.iter().enumerate() {
            self.b.ins().store(MemFlagsData::new(), *x, a, stride * k as i32);
        }
    }

    /// `shuffle` of two 32-bit four-lane vectors by lane indexes (0-3: `a`, 4-7: `b`).
    fn shuffle32(&mut self, a: Value, b: Value, lanes: [u8; 4]) -> Value {
        let t = self.b.func.dfg.value_type(a);
        let le = vflags();
        let (x, y) = (
            self.b.ins().bitcast(types::I8X16, le, a),
            self.b.ins().bitcast(types::I8X16, le, b),
        );
        let bytes: Vec<u8> = lanes.iter().flat_map(|l| (0..4).map(move |k| 4 * l + k)).collect();
        let mask = self.b.func.dfg.immediates.push(ConstantData::from(bytes));
        let v = self.b.ins().shuffle(x, y, mask);
        self.b.ins().bitcast(t, le, v)
    }

    /// The 8-byte values at the four lanes' addresses as two four-lane vectors of type `vt`:
    /// lanes 0 and 1's (components x0 y0 x1 y1), then lanes 2 and 3's.
    fn pairs_of_lanes(&mut self, addrs: [Value; 4], vt: Type) -> [Value; 2] {
        let flags = MemFlagsData::new();
        let le = vflags();
        let x: Vec<Value> = addrs
            .iter()
            .map(|a| self.b.ins().load(types::F64, flags, *a, 0))
            .collect();
        [0, 2].map(|l| {
            let v = self.b.ins().scalar_to_vector(types::F64X2, x[l]);
            let v = self.b.ins().insertlane(v, x[l + 1], 1);
            self.b.ins().bitcast(vt, le, v)
        })
    }

    /// The 4x4 transpose of four 32-bit four-lane vectors (work-items' `float4`s into
    /// components, and back).
    fn transpose4(&mut self, v: [Value; 4]) -> [Value; 4] {
        let t0 = self.shuffle32(v[0], v[1], [0, 4, 1, 5]);
        let t1 = self.shuffle32(v[2], v[3], [0, 4, 1, 5]);
        let t2 = self.shuffle32(v[0], v[1], [2, 6, 3, 7]);
        let t3 = self.shuffle32(v[2], v[3], [2, 6, 3, 7]);
        [
            self.shuffle32(t0, t1, [0, 1, 4, 5]),
            self.shuffle32(t0, t1, [2, 3, 6, 7]),
            self.shuffle32(t2, t3, [0, 1, 4, 5]),
            self.shuffle32(t2, t3, [2, 3, 6, 7]),
        ]
    }

    /// `n` 32-bit components of type `vt` at each lane's address, as one vector per
    /// component.
    pub(super) fn load_rows(&mut self, vt: Type, n: usize, addrs: [Value; LANES as usize]) -> Vec<Value> {
        let flags = MemFlagsData::new();
        if n == 2 {
            let [a, b] = self.pairs_of_lanes(addrs, vt);
            return vec![self.shuffle32(a, b, [0, 2, 4, 6]), self.shuffle32(a, b, [1, 3, 5, 7])];
        }
        let mut comps = Vec::with_capacity(n);
        for j in 0..n / 4 {
            let rows = addrs.map(|a| self.b.ins().load(vt, flags, a, 16 * j as i32));
            comps.extend(self.transpose4(rows));
        }
        let lt = vt.lane_type();
        for k in 4 * (n / 4)..n {
            let xs = addrs.map(|a| self.b.ins().load(lt, flags, a, 4 * k as i32));
            comps.push(self.build(vt, &xs));
        }
        comps
    }

    /// Stores each lane's components (one vector per component) at its address, lane after
    /// lane.
    pub(super) fn store_rows(&mut self, comps: &[Value], addrs: [Value; LANES as usize]) {
        let flags = MemFlagsData::new();
        let n = comps.len();
        let rows: Vec<[Value; 4]> = comps
            .chunks_exact(4)
            .map(|q| self.transpose4([q[0], q[1], q[2], q[3]]))
            .collect();
        let pairs = (n == 2).then(|| {
            let le = vflags();
            [[0, 4, 1, 5], [2, 6, 3, 7]].map(|m| {
                let v = self.shuffle32(comps[0], comps[1], m);
                self.b.ins().bitcast(types::F64X2, le, v)
            })
        });
        for (l, a) in addrs.into_iter().enumerate() {
            if let Some(pairs) = pairs {
                let x = self.b.ins().extractlane(pairs[l / 2], (l % 2) as u8);
                self.b.ins().store(flags, x, a, 0);
                continue;
            }
            for (j, row) in rows.iter().enumerate() {
                self.b.ins().store(flags, row[l], a, 16 * j as i32);
            }
            for (k, c) in comps.iter().enumerate().skip(4 * rows.len()) {
                let x = self.b.ins().extractlane(*c, l as u8);
                self.b.ins().store(flags, x, a, 4 * k as i32);
            }
        }
    }

    /// Pointer `p` and its first lane's address when the four lanes' `size`-byte accesses
    /// lie side by side (affine with stride `size`).
    fn consecutive_of(&mut self, p: Id, size: u64, plan: &Plan) -> R<Option<(Id, Value)>> {
        if plan.class.get(&p) != Some(&Class::Affine(size as i64)) {
            return Ok(None);
        }
        Ok(Some((p, self.val1(p)?)))
    }

    /// The type of `id`, a value stored by `inst` (a planned value or a constant).
    pub(super) fn stored_type(&self, inst: &Instruction, id: Id, plan: &Plan) -> R<Id> {
        self.type_of(id, plan)
            .ok_or_else(|| self.err(inst, "vector plan: stored value of unknown type"))
    }

    /// A load of four lanes (all four run it).
    fn load_plain(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let flags = MemFlagsData::new();
        let (r, ty) = result(inst)?;
        let p = op_id(inst, 0)?;
        let shape = self.mem_shape(ty)?;
        let t = shape.0;
        let class = plan.class.get(&p).copied();
        if let (Some(Rep::Soa(vt, n)), 4) = (rep(self.cx, ty), shape.2) {
            let addrs = self.quad(p, plan, vecs)?;
            let addrs = self.rb_quad(p, addrs, self.cx.layout.get(ty)?.size, false);
            let comps = self.load_rows(vt, n, addrs);
            vecs.s.insert(r, comps);
            return Ok(());
        }
        if let (Some(t), Some(Rep::Soa(_, n))) = (narrow(self.cx, ty), rep(self.cx, ty)) {
            if Self::narrow_rows(n) {
                let size = self.cx.layout.get(ty)?.size;
                let consecutive = self.consecutive_of(p, size, plan)?;
                let addrs = self.quad(p, plan, vecs)?;
                let addrs = self.rb_quad(p, addrs, size, false);
                let comps = self.load_narrow(t, n, addrs, consecutive);
                vecs.s.insert(r, comps);
                return Ok(());
            }
        }
        if shape.1 > 1 {
            // Lane by lane, component by component.
            let addrs = self.quad(p, plan, vecs)?;
            let addrs = self.rb_quad(p, addrs, self.cx.layout.get(ty)?.size, false);
            let xs = addrs.iter().map(|a| self.load_one(shape, *a)).collect();
            return self.put_lane_vals(r, ty, xs, vecs);
        }
        if let (Some(Class::Affine(s)), Some(vt)) = (class, vec_type(t)) {
            if s == 4 {
                let base = self.val1(p)?;
                let v = self.rb_vector_load(p, base, vt, t);
                vecs.v.insert(r, v);
                return Ok(());
            }
        }
        if let (Some(Class::Affine(s)), Some(_), None) = (class, super::small_int(self.cx, ty), &self.robust) {
            if s == i64::from(t.bytes()) {
                // 8- or 16-bit integers of four consecutive work-items: one 4- or 8-byte load.
                let base = self.val1(p)?;
                let v = self.load_small_consecutive(t, base);
                vecs.v.insert(r, v);
                return Ok(());
            }
        }
        if let (Some(Class::Affine(8)), Some(Rep::Pair(vt)), None) = (class, rep(self.cx, ty), &self.robust) {
            // Doubles of four consecutive work-items: two 16-byte loads.
            let base = self.val1(p)?;
            let pr = [0, 16].map(|o| self.b.ins().load(vt, flags, base, o));
            vecs.p.insert(r, pr);
            return Ok(());
        }
        // Lane by lane (a gather), each at its lane's address.
        let addrs = self.quad(p, plan, vecs)?;
        let addrs = self.rb_quad(p, addrs, u64::from(t.bytes()), false);
        let xs = addrs.map(|a| self.b.ins().load(t, flags, a, 0));
        self.put_lanes(r, ty, xs, vecs)?;
        Ok(())
    }

    /// A store of four lanes (all four run it).
    fn store_plain(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let flags = MemFlagsData::new();
        let p = op_id(inst, 0)?;
        let vid = op_id(inst, 1)?;
        let vty = self.stored_type(inst, vid, plan)?;
        let shape = self.mem_shape(vty)?;
        if shape.1 > 1 {
            let pc = plan.class.get(&p).copied().unwrap_or(Class::Uniform);
            if pc == Class::Uniform {
                // One location: the last work-item's store is the one that stays.
                let xs = self.lane_vals(vid, (LANES - 1) as usize, plan, vecs)?;
                let a = self.val1(p)?;
                let a = self.rb_addr(p, a, self.cx.layout.get(vty)?.size, true);
                self.store_one(&xs, shape.2, a);
                return Ok(());
            }
            let addrs = self.quad(p, plan, vecs)?;
            let addrs = self.rb_quad(p, addrs, self.cx.layout.get(vty)?.size, true);
            if let (Some(Rep::Soa(..)), 4) = (rep(self.cx, vty), shape.2) {
                let c = self.comps(vid, plan, vecs)?;
                self.store_rows(&c, addrs);
                return Ok(());
            }
            if let (Some(t), true) = (narrow(self.cx, vty), Self::narrow_rows(shape.1)) {
                let consecutive = self.consecutive_of(p, self.cx.layout.get(vty)?.size, plan)?;
                let c = self.comps(vid, plan, vecs)?;
                self.store_narrow(t, &c, addrs, consecutive);
                return Ok(());
            }
            for (l, a) in addrs.into_iter().enumerate() {
                let xs = self.lane_vals(vid, l, plan, vecs)?;
                self.store_one(&xs, shape.2, a);
            }
            return Ok(());
        }
        let vector = vecs.v.contains_key(&vid) || plan.class.get(&vid).is_some_and(|c| *c != Class::Uniform);
        let vt = plan.tys.get(&vid).and_then(|t| rep(self.cx, *t));
        match plan.class.get(&p).copied().unwrap_or(Class::Uniform) {
            // Doubles of four consecutive work-items: two 16-byte stores.
            Class::Affine(8) if matches!(vt, Some(Rep::Pair(_))) && self.robust.is_none() => {
                let pr = self.pair(vid, plan, vecs)?;
                let base = self.val1(p)?;
                self.b.ins().store(flags, pr[0], base, 0);
                self.b.ins().store(flags, pr[1], base, 16);
            }
            Class::Affine(4) if vector && matches!(vt, Some(Rep::Vector(_))) && shape.0.bits() == 32 => {
                let v = self.lanes(vid, plan, vecs)?;
                let base = self.val1(p)?;
                let lt = self.b.func.dfg.value_type(v).lane_type();
                self.rb_vector_store(p, base, v, lt);
            }
            // 8- or 16-bit integers of four consecutive work-items: one 4- or 8-byte store.
            Class::Affine(s)
                if vector
                    && s == i64::from(shape.0.bytes())
                    && super::small_int(self.cx, vty).is_some()
                    && self.robust.is_none() =>
            {
                let v = self.lanes(vid, plan, vecs)?;
                let base = self.val1(p)?;
                self.store_small_consecutive(v, shape.0, base);
            }
            // One location: the last work-item's store is the one that stays.
            Class::Uniform => {
                let x = self.lane(vid, (LANES - 1) as usize, plan, vecs)?;
                let base = self.val1(p)?;
                let n = u64::from(self.b.func.dfg.value_type(x).bytes());
                let base = self.rb_addr(p, base, n, true);
                self.b.ins().store(flags, x, base, 0);
            }
            // Lane by lane (a scatter), in the lanes' order.
            _ => {
                let addrs = self.quad(p, plan, vecs)?;
                let xs = self.quad(vid, plan, vecs)?;
                let n = u64::from(self.b.func.dfg.value_type(xs[0]).bytes());
                let addrs = self.rb_quad(p, addrs, n, true);
                for (a, x) in addrs.into_iter().zip(xs) {
                    self.b.ins().store(flags, x, a, 0);
                }
            }
        }
        Ok(())
    }

    /// A load under execution mask `var`: as [`Self::load_plain`] when all four lanes run,
    /// else lane by lane, only the running lanes touching memory (the others read zero).
    fn load_masked(&mut self, inst: &Instruction, var: Variable, plan: &Plan, vecs: &mut Vecs) -> R {
        let (r, ty) = result(inst)?;
        let p = op_id(inst, 0)?;
        let shape = self.mem_shape(ty)?;
        let held = rep(self.cx, ty).ok_or_else(|| self.err(inst, "vector plan: not a scalar or vector load"))?;
        let m = self.b.use_var(var);
        let (fast, slow, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let all = self.mask_full(m);
        self.b.ins().brif(all, fast, &[], slow, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(slow);
        self.b.switch_to_block(fast);
        self.load_plain(inst, plan, vecs)?;
        let vals = vecs.take(r);
        for v in &vals {
            let vt = self.b.func.dfg.value_type(*v);
            self.b.append_block_param(join, vt);
        }
        let args: Vec<BlockArg> = vals.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(slow);
        let addrs = self.quad(p, plan, vecs)?;
        let addrs = self.rb_quad(p, addrs, self.cx.layout.get(ty)?.size, false);
        let mut xs = Vec::with_capacity(LANES as usize);
        for (l, a) in addrs.into_iter().enumerate() {
            let ml = self.b.ins().extractlane(m, l as u8);
            let (go, next) = (self.b.create_block(), self.b.create_block());
            let x: Vec<Value> = (0..shape.1).map(|_| self.b.append_block_param(next, shape.0)).collect();
            let z = self.zero(shape.0);
            self.b.ins().brif(ml, go, &[], next, &vec![BlockArg::Value(z); shape.1]);
            self.b.seal_block(go);
            self.b.switch_to_block(go);
            let v: Vec<BlockArg> = self.load_one(shape, a).into_iter().map(BlockArg::Value).collect();
            self.b.ins().jump(next, &v);
            self.b.seal_block(next);
            self.b.switch_to_block(next);
            xs.push(x);
        }
        self.put_lane_vals(r, ty, xs, vecs)?;
        let vals = vecs.take(r);
        let args: Vec<BlockArg> = vals.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().jump(join, &args);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        let params = self.b.block_params(join).to_vec();
        vecs.put(r, held, &params);
        Ok(())
    }

    /// A store under execution mask `var`: as [`Self::store_plain`] when all four lanes run,
    /// else lane by lane, for the running lanes only.
    fn store_masked(&mut self, inst: &Instruction, var: Variable, plan: &Plan, vecs: &mut Vecs) -> R {
        let (p, vid) = (op_id(inst, 0)?, op_id(inst, 1)?);
        let m = self.b.use_var(var);
        let (fast, slow, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let all = self.mask_full(m);
        self.b.ins().brif(all, fast, &[], slow, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(slow);
        self.b.switch_to_block(fast);
        self.store_plain(inst, plan, vecs)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let addrs = self.quad(p, plan, vecs)?;
        let vty = self.stored_type(inst, vid, plan)?;
        let stride = self.mem_shape(vty)?.2;
        let addrs = self.rb_quad(p, addrs, self.cx.layout.get(vty)?.size, true);
        for (l, a) in addrs.into_iter().enumerate() {
            let xs = self.lane_vals(vid, l, plan, vecs)?;
            let ml = self.b.ins().extractlane(m, l as u8);
            let (go, next) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(ml, go, &[], next, &[]);
            self.b.seal_block(go);
            self.b.switch_to_block(go);
            self.store_one(&xs, stride, a);
            self.b.ins().jump(next, &[]);
            self.b.seal_block(next);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(join, &[]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// "Selector equals case literal" ([`super::cfg`]): a uniform bool or a mask.
    fn case_eq(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let (r, ty) = result(inst)?;
        let sel = op_id(inst, 0)?;
        let lit = match inst.operands.get(1) {
            Some(rspirv::dr::Operand::LiteralBit32(v)) => *v as i64,
            Some(rspirv::dr::Operand::LiteralBit64(v)) => *v as i64,
            _ => return Err(self.err(inst, "vector plan: case without a literal")),
        };
        if plan.class.get(&r).is_none_or(|c| *c == Class::Uniform) {
            let x = self.val1(sel)?;
            let v = self.b.ins().icmp_imm_s(IntCC::Equal, x, lit);
            self.def(r, ty, vec![v]);
            return Ok(());
        }
        let st = *plan
            .tys
            .get(&sel)
            .ok_or_else(|| self.err(inst, "vector plan: selector of unknown type"))?;
        match rep(self.cx, st) {
            Some(Rep::Vector(vt)) => {
                let x = self.lanes(sel, plan, vecs)?;
                let k = self.b.ins().iconst(vt.lane_type(), lit as i32 as i64);
                let k = self.b.ins().splat(vt, k);
                let m = self.b.ins().icmp(IntCC::Equal, x, k);
                vecs.v.insert(r, m);
            }
            _ => {
                let q = self.quad(sel, plan, vecs)?;
                let xs = q.map(|x| self.b.ins().icmp_imm_s(IntCC::Equal, x, lit));
                self.put_lanes(r, ty, xs, vecs)?;
            }
        }
        Ok(())
    }

    fn simd_inst(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let op = inst.opcode;
        if matches!(op, Op::CopyObject | Op::PtrCastToGeneric | Op::GenericCastToPtr) {
            let (r, ty) = result(inst)?;
            let x = op_id(inst, 0)?;
            let held = rep(self.cx, ty).ok_or_else(|| self.err(inst, "vector plan: not a scalar or vector copy"))?;
            let vals = self.held(x, held, plan, vecs)?;
            vecs.put(r, held, &vals);
            return Ok(());
        }
        if op == Op::ExtInst {
            if let Some(name) = ext_name(self.cx, inst).filter(|n| vmem::is_vmem(n)) {
                return self.simd_vmem(inst, &name, plan, vecs);
            }
        }
        if matches!(op, Op::ConvertFToS | Op::ConvertFToU)
            && !matches!(rep(self.cx, inst.result_type.unwrap_or(0)), Some(Rep::Soa(..)))
        {
            return self.simd_float_to_int(inst, plan, vecs);
        }
        let geometric = op == Op::Dot
            || (op == Op::ExtInst
                && ext_name(self.cx, inst).is_some_and(|n| crate::codegen::mathfn::geometric::known(&n)));
        if geometric {
            return self.simd_geometric(inst, plan, vecs);
        }
        let soa = inst
            .result_type
            .is_some_and(|t| matches!(rep(self.cx, t), Some(Rep::Soa(..))))
            || (op == Op::CompositeExtract
                && op_id(inst, 0).is_ok_and(|c| vecs.s.contains_key(&c) || self.leaves_of(c, plan) > 1))
            || matches!(op, Op::Any | Op::All);
        if soa && !matches!(op, Op::Load | Op::Store) {
            return self.simd_soa(inst, plan, vecs);
        }
        if is_mask_op(op) {
            let (r, _) = result(inst)?;
            let m = self.simd_mask(inst, plan, vecs)?;
            vecs.v.insert(r, m);
            return Ok(());
        }
        if op == Op::Select {
            let (r, ty) = result(inst)?;
            let mut t = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
            if super::small_int(self.cx, ty).is_some() {
                // (8- and 16-bit integers in 32-bit lanes.)
                t = types::I32;
            }
            if t == types::I8 {
                // Between masks.
                let c = self.lanes(op_id(inst, 0)?, plan, vecs)?;
                let x = self.lanes(op_id(inst, 1)?, plan, vecs)?;
                let y = self.lanes(op_id(inst, 2)?, plan, vecs)?;
                let v = self.b.ins().bitselect(c, x, y);
                vecs.v.insert(r, v);
                return Ok(());
            }
            let vt = vec_type(t).ok_or_else(|| self.err(inst, "vector plan: not a 32-bit select"))?;
            let c = op_id(inst, 0)?;
            let (x, y) = (
                self.lanes(op_id(inst, 1)?, plan, vecs)?,
                self.lanes(op_id(inst, 2)?, plan, vecs)?,
            );
            let v = if vecs.v.contains_key(&c) || plan.monotone.contains_key(&c) {
                let m = self.lanes(c, plan, vecs)?;
                let m = if self.b.func.dfg.value_type(m) == vt {
                    m
                } else {
                    self.b.ins().bitcast(vt, MemFlagsData::new(), m)
                };
                self.b.ins().bitselect(m, x, y)
            } else {
                let cv = self.val1(c)?;
                self.b.ins().select(cv, x, y)
            };
            vecs.v.insert(r, v);
            return Ok(());
        }
        match op {
            Op::Load => match vecs.exec {
                None => self.load_plain(inst, plan, vecs)?,
                Some(var) => self.load_masked(inst, var, plan, vecs)?,
            },
            Op::Store => match vecs.exec {
                None => self.store_plain(inst, plan, vecs)?,
                Some(var) => self.store_masked(inst, var, plan, vecs)?,
            },
            _ => {
                let (r, ty) = result(inst)?;
                let mut t = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
                if super::small_int(self.cx, ty).is_some() {
                    // (8- and 16-bit integers in 32-bit lanes.)
                    t = types::I32;
                }
                if t == types::F64 {
                    let v = self.simd_pair(inst, plan, vecs)?;
                    vecs.p.insert(r, v);
                    return Ok(());
                }
                if op != Op::ExtInst
                    && (super::small_int(self.cx, ty).is_some() || matches!(op, Op::UConvert | Op::SConvert))
                {
                    let v = self.simd_small_int(inst, plan, vecs)?;
                    vecs.v.insert(r, v);
                    return Ok(());
                }
                let vt = vec_type(t).ok_or_else(|| self.err(inst, "vector plan: not a 32-bit result"))?;
                if op == Op::ExtInst {
                    let v = self.simd_ext(inst, plan, vecs)?;
                    vecs.v.insert(r, v);
                    return Ok(());
                }
                let mut a = self.lanes(op_id(inst, 0)?, plan, vecs)?;
                if let (Some(t), Op::ConvertSToF | Op::ConvertUToF) = (self.small_int_of(op_id(inst, 0)?, plan), op) {
                    // From the low bits, extended as the conversion reads them; then a signed
                    // 32-bit value either way (the cheaper conversion, exact).
                    a = self.extend_low(a, t.bits(), op == Op::ConvertSToF);
                    vecs.v.insert(r, self.b.ins().fcvt_from_sint(vt, a));
                    return Ok(());
                }
                let v = match op {
                    _ if Self::is_lanewise_unary(op) => self
                        .lanewise_unary(op, a, vt)
                        .ok_or_else(|| self.err(inst, "vector plan: unexpected instruction"))?,
                    Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                        let n = self.val1(op_id(inst, 1)?)?;
                        self.shift_by(op, a, n)
                    }
                    // By a nonzero constant: its reciprocal, four lanes at once; by anything
                    // else, through doubles two lanes at a time.
                    Op::UDiv | Op::SDiv | Op::UMod | Op::SRem => {
                        let did = op_id(inst, 1)?;
                        let uniform = plan.class.get(&did).is_none_or(|c| *c == Class::Uniform);
                        let k = if uniform {
                            let d = self.val1(did)?;
                            super::fold::const_int(&self.b.func.dfg, d).filter(|d| *d != 0)
                        } else {
                            None
                        };
                        match k {
                            Some(d) => super::divide::by_constant(&mut self.b, op, a, d as u32),
                            None => {
                                let d = self.lanes(did, plan, vecs)?;
                                super::divide::by_variable(&mut self.b, op, a, d)
                            }
                        }
                        .ok_or_else(|| self.err(inst, "vector plan: unexpected division"))?
                    }
                    _ => {
                        let b = self.lanes(op_id(inst, 1)?, plan, vecs)?;
                        match op {
                            // With two quads, `2 * x` as `x + x` (the same bits, a
                            // register fewer for the constant).
                            Op::FMul if vecs.twice && self.splat_f32(a) == Some(2.0) => self.b.ins().fadd(b, b),
                            Op::FMul if vecs.twice && self.splat_f32(b) == Some(2.0) => self.b.ins().fadd(a, a),
                            _ => self
                                .lanewise(op, a, b)
                                .ok_or_else(|| self.err(inst, "vector plan: unexpected instruction"))?,
                        }
                    }
                };
                vecs.v.insert(r, v);
            }
        }
        Ok(())
    }

    /// Float lanes `x` rounded to integers in the rounding mode that decorates conversion
    /// `r` (as they are without one: the conversion rounds toward zero).
    fn rounded_for(&mut self, r: Id, x: Value) -> Value {
        use crate::codegen::helpers::{RTE, RTN, RTP, RTZ};
        match self.cx.rounding.get(&r).map(|m| *m as i32).unwrap_or(RTZ) {
            RTE => self.b.ins().nearest(x),
            RTP => self.b.ins().ceil(x),
            RTN => self.b.ins().floor(x),
            _ => x,
        }
    }

    /// A float to an 8-, 16- or 32-bit integer: rounded in the decoration's mode (toward zero
    /// without one), converted with saturation (NaN to 0), narrower results clamped, as the
    /// scalar translation's `float_to_int`, which is lane 0 of this.
    fn simd_float_to_int(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let (r, ty) = result(inst)?;
        let x = self.lanes(op_id(inst, 0)?, plan, vecs)?;
        let v = self.rounded_for(r, x);
        let to = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
        let signed = inst.opcode == Op::ConvertFToS;
        let bits = to.bits();
        let w = if signed || bits < 32 {
            self.b.ins().fcvt_to_sint_sat(types::I32X4, v)
        } else {
            self.b.ins().fcvt_to_uint_sat(types::I32X4, v)
        };
        if bits == 32 {
            vecs.v.insert(r, w);
            return Ok(());
        }
        let w = self.clamp_to_bits(w, bits, signed);
        if super::small_int(self.cx, ty).is_some() {
            // (In range: the 8- or 16-bit value in the low bits, extended.)
            vecs.v.insert(r, w);
            return Ok(());
        }
        let lanes = [0u8, 1, 2, 3].map(|l| {
            let e = self.b.ins().extractlane(w, l);
            self.b.ins().ireduce(to, e)
        });
        self.put_lanes(r, ty, lanes, vecs)
    }

    /// `f` on four float lanes in double precision: each of `args` (operands' components,
    /// `F32X4`) as lanes 0-1 and then lanes 2-3 promoted to `F64X2`, `f`'s results (the same
    /// count for both halves) demoted and joined back into four lanes.
    fn in_double_halves(
        &mut self,
        args: &[Vec<Value>],
        mut f: impl FnMut(&mut FunctionBuilder, &[Vec<Value>]) -> Option<Vec<Value>>,
    ) -> Option<Vec<Value>> {
        let mut halves = Vec::with_capacity(2);
        for m in [[0, 1, 0, 1], [2, 3, 2, 3]] {
            let mut ps = Vec::with_capacity(args.len());
            for xs in args {
                let mut p = Vec::with_capacity(xs.len());
                for x in xs {
                    let x = if m[0] == 0 { *x } else { self.shuffle32(*x, *x, m) };
                    p.push(self.b.ins().fvpromote_low(x));
                }
                ps.push(p);
            }
            halves.push(f(&mut self.b, &ps)?);
        }
        let mut out = Vec::with_capacity(halves[0].len());
        for (lo, hi) in halves[0].iter().zip(&halves[1]) {
            let (lo, hi) = (self.b.ins().fvdemote(*lo), self.b.ins().fvdemote(*hi));
            out.push(self.shuffle32(lo, hi, [0, 1, 4, 5]));
        }
        Some(out)
    }

    /// OpDot and the geometric functions on float vectors (`plan::classify_soa`), bit for bit
    /// the scalar translation's: `dot` in single precision component by component, `normalize`
    /// in single precision on four work-items' lanes, the others in double precision on two
    /// work-items' lanes at a time ([`mathfn::geometric`]).
    ///
    /// [`mathfn::geometric`]: crate::codegen::mathfn::geometric
    fn simd_geometric(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let op = inst.opcode;
        let (r, ty) = result(inst)?;
        let first = usize::from(op == Op::ExtInst) * 2;
        let mut args = Vec::new();
        for i in first..inst.operands.len() {
            args.push(self.comps(op_id(inst, i)?, plan, vecs)?);
        }
        let out: Vec<Value> = if op == Op::Dot {
            let (Some(xs), Some(ys)) = (args.first(), args.get(1)) else {
                return Err(self.err(inst, "dot: missing operands"));
            };
            let mut acc: Option<Value> = None;
            for (x, y) in xs.iter().zip(ys) {
                let p = self.b.ins().fmul(*x, *y);
                acc = Some(match acc {
                    Some(a) => self.b.ins().fadd(a, p),
                    None => p,
                });
            }
            vec![acc.ok_or_else(|| self.err(inst, "dot of empty vectors"))?]
        } else {
            let name = ext_name(self.cx, inst).ok_or_else(|| self.err(inst, "vector plan: unknown instruction"))?;
            if crate::codegen::mathfn::geometric::single(&name) {
                return match crate::codegen::mathfn::geometric::emit(&mut self.b, &name, &args, false) {
                    Some(out) => {
                        vecs.s.insert(r, out);
                        Ok(())
                    }
                    None => Err(self.err(inst, "vector plan: operands of the wrong sizes")),
                };
            }
            self.in_double_halves(&args, |b, ps| {
                crate::codegen::mathfn::geometric::emit(b, &name, ps, false)
            })
            .ok_or_else(|| self.err(inst, "vector plan: operands of the wrong sizes"))?
        };
        match rep(self.cx, ty) {
            Some(Rep::Soa(_, n)) if n == out.len() => {
                vecs.s.insert(r, out);
            }
            _ if out.len() == 1 => {
                vecs.v.insert(r, out[0]);
            }
            _ => return Err(self.err(inst, "vector plan: wrong number of components")),
        }
        Ok(())
    }

    /// An operation on doubles held as two two-lane vectors (Rep::Pair), each half as the
    /// scalar translation computes each lane: `+ - * /`, negation and the functions of
    /// `plan::VECTOR_EXT_F64` and `mathfn::known_f64`.
    fn simd_pair(&mut self, inst: &Instruction, plan: &Plan, vecs: &Vecs) -> R<[Value; 2]> {
        let op = inst.opcode;
        let first = usize::from(op == Op::ExtInst) * 2;
        let mut args = Vec::new();
        for i in first..inst.operands.len() {
            args.push(self.pair(op_id(inst, i)?, plan, vecs)?);
        }
        if op == Op::ExtInst {
            let name = ext_name(self.cx, inst).ok_or_else(|| self.err(inst, "vector plan: unknown instruction"))?;
            let base = base_name(&name);
            let mut out = Vec::with_capacity(2);
            for h in 0..2 {
                let a = |k: usize| args.get(k).map(|p| p[h]);
                let v = match (base, a(0), a(1), a(2)) {
                    ("fma" | "mad", Some(x), Some(y), Some(z)) => Some(self.b.ins().fma(x, y, z)),
                    ("fabs", Some(x), None, None) => Some(self.b.ins().fabs(x)),
                    ("sqrt", Some(x), None, None) => Some(self.b.ins().sqrt(x)),
                    // 1/sqrt(x), two roundings, as the library's `clift_rsqrt_f64`.
                    ("rsqrt", Some(x), None, None) => {
                        let root = self.b.ins().sqrt(x);
                        let one = self.b.ins().f64const(1.0);
                        let one = self.b.ins().splat(types::F64X2, one);
                        Some(self.b.ins().fdiv(one, root))
                    }
                    ("floor", Some(x), None, None) => Some(self.b.ins().floor(x)),
                    ("ceil", Some(x), None, None) => Some(self.b.ins().ceil(x)),
                    ("trunc", Some(x), None, None) => Some(self.b.ins().trunc(x)),
                    ("rint", Some(x), None, None) => Some(self.b.ins().nearest(x)),
                    _ if crate::codegen::mathfn::common::known(base) => {
                        let ops: Vec<Value> = (0..args.len()).filter_map(a).collect();
                        crate::codegen::mathfn::common::emit(&mut self.b, base, &ops)
                    }
                    (_, Some(x), None, None) => self.math_inline(base, x)?,
                    _ => None,
                };
                out.push(v.ok_or_else(|| self.err(inst, "vector plan: unexpected double function"))?);
            }
            return Ok([out[0], out[1]]);
        }
        let a = *args.first().ok_or_else(|| self.err(inst, "vector plan: no operand"))?;
        if op == Op::FNegate {
            return Ok(a.map(|x| self.b.ins().fneg(x)));
        }
        let b = *args
            .get(1)
            .ok_or_else(|| self.err(inst, "vector plan: no second operand"))?;
        let mut out = Vec::with_capacity(2);
        for h in 0..2 {
            let v = match op {
                Op::FAdd | Op::FSub | Op::FMul | Op::FDiv => self.lanewise(op, a[h], b[h]),
                _ => None,
            };
            out.push(v.ok_or_else(|| self.err(inst, "vector plan: unexpected double instruction"))?);
        }
        Ok([out[0], out[1]])
    }

    /// An operation on values of OpenCL vector type held as components (Rep::Soa): each
    /// component's four lanes as one vector.
    fn simd_soa(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let op = inst.opcode;
        let (r, ty) = result(inst)?;
        if op == Op::CompositeExtract {
            let x = op_id(inst, 0)?;
            let c = self.comps(x, plan, vecs)?;
            let k = op_lit(inst, 1)? as usize;
            // (An 8- or 16-bit component stays in the low bits of its lanes.)
            let v = *c.get(k).ok_or_else(|| self.err(inst, "component out of range"))?;
            vecs.v.insert(r, v);
            return Ok(());
        }
        if matches!(op, Op::Any | Op::All) {
            // Any or all of the components' masks.
            let c = self.comps(op_id(inst, 0)?, plan, vecs)?;
            let mut m = *c.first().ok_or_else(|| self.err(inst, "vector plan: no components"))?;
            for x in &c[1..] {
                m = if op == Op::Any {
                    self.b.ins().bor(m, *x)
                } else {
                    self.b.ins().band(m, *x)
                };
            }
            vecs.v.insert(r, m);
            return Ok(());
        }
        let Some(Rep::Soa(vt, n)) = rep(self.cx, ty) else {
            return Err(self.err(inst, "vector plan: not a vector of 32-bit values"));
        };
        if is_mask_op(op) {
            let out = self.soa_masks(inst, plan, vecs)?;
            vecs.s.insert(r, out);
            return Ok(());
        }
        let out: Vec<Value> = match op {
            Op::CompositeInsert => {
                let mut c = self.comps(op_id(inst, 1)?, plan, vecs)?;
                let k = op_lit(inst, 2)? as usize;
                let x = self.lanes(op_id(inst, 0)?, plan, vecs)?;
                *c.get_mut(k).ok_or_else(|| self.err(inst, "component out of range"))? = x;
                c
            }
            Op::CompositeConstruct => {
                let mut c = Vec::with_capacity(n);
                for i in 0..inst.operands.len() {
                    let x = op_id(inst, i)?;
                    if vecs.s.contains_key(&x) || self.leaves_of(x, plan) > 1 {
                        c.extend(self.comps(x, plan, vecs)?);
                    } else {
                        c.push(self.lanes(x, plan, vecs)?);
                    }
                }
                c
            }
            Op::VectorShuffle => {
                let mut both = self.comps(op_id(inst, 0)?, plan, vecs)?;
                both.extend(self.comps(op_id(inst, 1)?, plan, vecs)?);
                let mut c = Vec::with_capacity(n);
                for i in 2..inst.operands.len() {
                    let k = op_lit(inst, i)?;
                    c.push(match both.get(k as usize) {
                        Some(v) => *v,
                        // 0xFFFFFFFF: an undefined component.
                        None => self.zero_of(vt),
                    });
                }
                c
            }
            Op::Select => {
                let cond = op_id(inst, 0)?;
                let (x, y) = (
                    self.comps(op_id(inst, 1)?, plan, vecs)?,
                    self.comps(op_id(inst, 2)?, plan, vecs)?,
                );
                if vecs.s.contains_key(&cond) || self.leaves_of(cond, plan) > 1 {
                    // A vector of booleans: component by component.
                    let m = self.comps(cond, plan, vecs)?;
                    let mut out = Vec::with_capacity(n);
                    for ((mk, a), b) in m.iter().zip(&x).zip(&y) {
                        out.extend(self.select_rep(*mk, &[*a], &[*b]));
                    }
                    out
                } else if vecs.v.contains_key(&cond) || plan.monotone.contains_key(&cond) {
                    let m = self.lanes(cond, plan, vecs)?;
                    self.select_rep(m, &x, &y)
                } else {
                    let cv = self.val1(cond)?;
                    x.iter().zip(&y).map(|(a, b)| self.b.ins().select(cv, *a, *b)).collect()
                }
            }
            Op::ExtInst => {
                let name = ext_name(self.cx, inst).ok_or_else(|| self.err(inst, "vector plan: unknown instruction"))?;
                let mut args = Vec::new();
                for i in 2..inst.operands.len() {
                    let x = op_id(inst, i)?;
                    if base_name(&name) == "rotate" && i == 3 {
                        // The amount: uniform, one scalar per component.
                        let mut xs = self.val(x)?;
                        if xs.len() == 1 {
                            xs = vec![xs[0]; n];
                        }
                        args.push(xs);
                    } else {
                        args.push(self.comp_args(x, n, plan, vecs)?);
                    }
                }
                let mut c = Vec::with_capacity(n);
                for k in 0..n {
                    let a: Vec<Value> = args
                        .iter()
                        .map(|xs| xs.get(k).copied().ok_or_else(|| self.err(inst, "missing component")))
                        .collect::<R<_>>()?;
                    c.push(match self.narrow_of(r, plan) {
                        Some(t) => super::integer::emit_small(&mut self.b, base_name(&name), &a, t.bits())
                            .ok_or_else(|| self.err(inst, "vector plan: unexpected 8- or 16-bit function"))?,
                        None => self.ext_on(inst, &name, &a)?,
                    });
                }
                c
            }
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let mut a = self.comps(op_id(inst, 0)?, plan, vecs)?;
                if let (Some(t), true) = (self.narrow_of(r, plan), op != Op::ShiftLeftLogical) {
                    // Narrow components: their low bits extended, zero or sign, first.
                    let signed = op == Op::ShiftRightArithmetic;
                    a = a.into_iter().map(|v| self.extend_low(v, t.bits(), signed)).collect();
                }
                // The amount: uniform, one scalar per component.
                let mut amt = self.val(op_id(inst, 1)?)?;
                if amt.len() == 1 {
                    amt = vec![amt[0]; n];
                }
                a.iter().zip(amt).map(|(x, m)| self.shift_by(op, *x, m)).collect()
            }
            Op::SConvert | Op::UConvert => {
                // Between 8-, 16- and 32-bit components: widened from the low bits, or
                // narrowed by keeping them.
                let x = op_id(inst, 0)?;
                let from = self.narrow_of(x, plan).map_or(32, |t| t.bits());
                let to = self.narrow_of(r, plan).map_or(32, |t| t.bits());
                let a = self.comps(x, plan, vecs)?;
                if from < to {
                    a.into_iter()
                        .map(|v| self.extend_low(v, from, op == Op::SConvert))
                        .collect()
                } else {
                    a
                }
            }
            Op::ConvertSToF | Op::ConvertUToF | Op::ConvertFToS | Op::ConvertFToU
                if self
                    .narrow_of(r, plan)
                    .or_else(|| op_id(inst, 0).ok().and_then(|x| self.narrow_of(x, plan)))
                    .is_some() =>
            {
                let x = op_id(inst, 0)?;
                let a = self.comps(x, plan, vecs)?;
                let signed = matches!(op, Op::ConvertSToF | Op::ConvertFToS);
                if let Some(t) = self.narrow_of(x, plan) {
                    // From the low bits, extended as the conversion reads them; then a signed
                    // 32-bit value either way (the cheaper conversion, exact).
                    a.into_iter()
                        .map(|v| {
                            let w = self.extend_low(v, t.bits(), signed);
                            self.b.ins().fcvt_from_sint(vt, w)
                        })
                        .collect()
                } else {
                    // To 8 or 16 bits, as `simd_float_to_int`: rounded, converted with
                    // saturation, clamped.
                    let bits = self.narrow_of(r, plan).map_or(32, |t| t.bits());
                    a.into_iter()
                        .map(|v| {
                            let v = self.rounded_for(r, v);
                            let w = self.b.ins().fcvt_to_sint_sat(types::I32X4, v);
                            self.clamp_to_bits(w, bits, signed)
                        })
                        .collect()
                }
            }
            _ if Self::is_lanewise_unary(op) => {
                let a = self.comps(op_id(inst, 0)?, plan, vecs)?;
                let to_int = matches!(op, Op::ConvertFToS | Op::ConvertFToU);
                a.into_iter()
                    .map(|x| {
                        let x = if to_int { self.rounded_for(r, x) } else { x };
                        self.lanewise_unary(op, x, vt)
                            .ok_or_else(|| self.err(inst, "vector plan: unexpected instruction"))
                    })
                    .collect::<R<_>>()?
            }
            _ => {
                let a = self.comps(op_id(inst, 0)?, plan, vecs)?;
                let b = self.comp_args(op_id(inst, 1)?, n, plan, vecs)?;
                let mut c = Vec::with_capacity(n);
                // A vector times a scalar: each component times the scalar's lanes.
                let lop = if op == Op::VectorTimesScalar { Op::FMul } else { op };
                for (x, y) in a.into_iter().zip(b) {
                    let v = self.lanewise(lop, x, y);
                    c.push(v.ok_or_else(|| self.err(inst, "vector plan: unexpected instruction"))?);
                }
                c
            }
        };
        if out.len() != n {
            return Err(self.err(inst, "vector plan: wrong number of components"));
        }
        vecs.s.insert(r, out);
        Ok(())
    }

    /// A comparison of vectors (or a logical operation on vectors of booleans) component by
    /// component: one mask per component. Narrow integer components are extended first, as
    /// the comparison reads them (sign for the signed ones, zero for the others).
    fn soa_masks(&mut self, inst: &Instruction, plan: &Plan, vecs: &Vecs) -> R<Vec<Value>> {
        let op = inst.opcode;
        let x = op_id(inst, 0)?;
        let signed = matches!(
            op,
            Op::SLessThan | Op::SLessThanEqual | Op::SGreaterThan | Op::SGreaterThanEqual
        );
        let narrow = self.narrow_of(x, plan);
        let mut args = Vec::with_capacity(2);
        for i in 0..if is_unary_test(op) { 1 } else { 2 } {
            let c = self.comps(op_id(inst, i)?, plan, vecs)?;
            args.push(match narrow {
                Some(t) => c.into_iter().map(|v| self.extend_low(v, t.bits(), signed)).collect(),
                None => c,
            });
        }
        let n = args[0].len();
        if args.iter().any(|a| a.len() != n) {
            return Err(self.err(inst, "vector plan: operands of different sizes"));
        }
        (0..n)
            .map(|k| {
                let a = args[0][k];
                match op {
                    _ if is_unary_test(op) => self.test_mask(inst, a),
                    Op::LogicalEqual => Ok(self.b.ins().icmp(IntCC::Equal, a, args[1][k])),
                    Op::LogicalNotEqual => Ok(self.b.ins().icmp(IntCC::NotEqual, a, args[1][k])),
                    _ => self.cmp_mask(inst, a, args[1][k]),
                }
            })
            .collect()
    }

    /// An instruction without a result (a memory copy) once per lane, on each lane's
    /// operands, for the lanes the execution mask lets run, in the lanes' order.
    fn effect_by_lanes(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut Vecs) -> R {
        let mut ids: Vec<Id> = Vec::new();
        for o in &inst.operands {
            if let rspirv::dr::Operand::IdRef(x) = o {
                if plan.class.get(x).is_some_and(|c| *c != Class::Uniform) && !ids.contains(x) {
                    ids.push(*x);
                }
            }
        }
        let mut lanes = Vec::with_capacity(ids.len());
        for x in &ids {
            let t = *plan
                .tys
                .get(x)
                .ok_or_else(|| self.err(inst, &format!("vector plan: operand %{x} of unknown type")))?;
            let mut per = Vec::with_capacity(LANES as usize);
            for l in 0..LANES as usize {
                per.push(self.lane_vals(*x, l, plan, vecs)?);
            }
            lanes.push((*x, t, per));
        }
        // Values carried across barriers live in variables a definition would set: out of
        // the way while the lanes are translated.
        let mut hidden = Vec::new();
        if let Some(rg) = self.group.as_mut().and_then(|g| g.regions.as_mut()) {
            for x in &ids {
                if let Some(vs) = rg.crossing.remove(x) {
                    hidden.push((*x, vs));
                }
            }
        }
        let saved: Vec<(Id, Option<Vec<Value>>)> = ids.iter().map(|x| (*x, self.vals.get(x).cloned())).collect();
        let mask = vecs.exec.map(|v| self.b.use_var(v));
        let mut res = Ok(());
        for l in 0..LANES as usize {
            let next = self.enter_lane(mask, l);
            for (x, t, q) in &lanes {
                self.def(*x, *t, q[l].clone());
            }
            self.rb_set_lane(Some(l));
            if let Err(e) = self.inst(inst) {
                res = Err(e);
            }
            self.leave_lane(next);
            if res.is_err() {
                break;
            }
        }
        self.rb_set_lane(None);
        for (x, v) in saved {
            match v {
                Some(v) => self.vals.insert(x, v),
                None => self.vals.remove(&x),
            };
        }
        if let Some(rg) = self.group.as_mut().and_then(|g| g.regions.as_mut()) {
            rg.crossing.extend(hidden);
        }
        res
    }
}

/// The second quad's values of the body's affine values: its base, lane 4's value
/// (`base + 4 * stride`), by id.
type Affine1 = HashMap<Id, Value>;

impl FnTx<'_, '_, '_> {
    /// Translates the vector body of `plan` for two quads of work-items at once (eight:
    /// quad `q` the work-items 4q..4q+3 after the first one), for a plan
    /// [`Plan::two_quads`] accepts. Each varying value has a [`Vecs`] entry per quad and each
    /// step that computes one runs for quad 0 then for quad 1 (two independent chains the
    /// core overlaps); uniform values are computed once and shared, affine ones once too
    /// (quad 1's base is quad 0's plus four strides); a loop runs until neither quad has a
    /// lane in it, each quad under its own execution mask. A failed guard, or a branch the
    /// eight work-items do not take alike, jumps to `bail` with `bail_args` (before any store).
    pub(crate) fn simd_body2(&mut self, plan: &Plan, bail: Block, bail_args: &[BlockArg]) -> R {
        let mut vs = [Vecs::default(), Vecs::default()];
        for v in &mut vs {
            v.twice = true;
        }
        let mut aff1 = Affine1::new();
        let mut lps: Option<[Loop; 2]> = None;
        let mut brs: Vec<[Branch; 2]> = Vec::new();
        let span = 2 * LANES;
        for (k, (inst, step)) in plan.steps.iter().enumerate() {
            match *step {
                Step::Deferred | Step::LoopPhi | Step::LoopExitPhi | Step::Phi => {}
                Step::Scalar | Step::Builtin => {
                    self.simd_step(
                        k,
                        inst,
                        *step,
                        plan,
                        &mut vs[0],
                        &mut Vec::new(),
                        &mut None,
                        bail,
                        bail_args,
                        None,
                    )?;
                    self.note_affine(inst, plan, &mut aff1)?;
                }
                Step::ScalarGuarded(guard) => {
                    self.guarded_span(inst, plan, guard, bail, bail_args, span)?;
                    self.note_affine(inst, plan, &mut aff1)?;
                }
                Step::CaseEq
                    if inst
                        .result_id
                        .is_some_and(|r| plan.class.get(&r).is_none_or(|c| *c == Class::Uniform)) =>
                {
                    self.case_eq(inst, plan, &mut vs[0])?;
                }
                Step::Vector | Step::Lanes | Step::CaseEq => {
                    for (q, vecs) in vs.iter_mut().enumerate() {
                        let saved = self.quad_in(q, &aff1);
                        let r = self.simd_step(
                            k,
                            inst,
                            *step,
                            plan,
                            vecs,
                            &mut Vec::new(),
                            &mut None,
                            bail,
                            bail_args,
                            None,
                        );
                        self.quad_out(saved);
                        r?;
                    }
                }
                Step::LoopHead { negate, masked } => {
                    let lp0 = self.open_loop(plan, k, masked, &vs[0])?;
                    let saved = self.quad_in(1, &aff1);
                    let lp1 = self.open_loop_in(plan, k, masked, &vs[1], Some((lp0.head, lp0.exit)));
                    self.quad_out(saved);
                    let mut lp = [lp0, lp1?];
                    let (head, exit) = (lp[0].head, lp[0].exit);
                    match (op_id(inst, 2), masked) {
                        (Err(_), false) => {
                            self.b.ins().jump(head, &[]);
                        }
                        (Ok(c), false) => {
                            self.all_or_none2(c, negate, [head, exit], plan, &vs, &aff1, bail, bail_args)?
                        }
                        (guard, true) => {
                            // Each quad's work-items that enter run the loop under a mask of
                            // their own; the loop runs while either quad has one.
                            let mut any = None;
                            for q in 0..2 {
                                let all = self.exec_mask(&vs[q]);
                                let var = self.b.declare_var(types::I32X4);
                                let e = match guard {
                                    Err(_) => all,
                                    Ok(c) => {
                                        let saved = self.quad_in(q, &aff1);
                                        let m = self.mask(c, negate, plan, &vs[q]);
                                        self.quad_out(saved);
                                        self.b.ins().band(all, m?)
                                    }
                                };
                                self.b.def_var(var, e);
                                lp[q].outer = vs[q].exec.replace(var);
                                any = Some(match any {
                                    None => e,
                                    Some(a) => self.b.ins().bor(a, e),
                                });
                            }
                            match (guard, any) {
                                (Ok(_), Some(a)) => {
                                    let any = self.b.ins().vany_true(a);
                                    self.b.ins().brif(any, head, &[], exit, &[]);
                                }
                                _ => {
                                    self.b.ins().jump(head, &[]);
                                }
                            }
                        }
                    }
                    self.b.switch_to_block(head);
                    for q in 0..2 {
                        self.use_phis(&lp[q].phis, &mut vs[q]);
                    }
                    lps = Some(lp);
                }
                Step::LoopExit { negate } => {
                    let lp = lps
                        .as_mut()
                        .ok_or_else(|| self.err(inst, "vector plan: loop exit without a head"))?;
                    let (exit, at) = (lp[0].exit, lp[0].exits);
                    let exit_phis = [lp[0].exit_phis.clone(), lp[1].exit_phis.clone()];
                    lp[0].exits += 1;
                    lp[1].exits += 1;
                    let c = op_id(inst, 2)?;
                    let cont = self.b.create_block();
                    match (vs[0].exec, vs[1].exec) {
                        (Some(v0), Some(v1)) => {
                            // Each quad's lanes for which it holds leave with their values.
                            let stay = self.leave_lanes(c, negate, [v0, v1], &exit_phis, at, plan, &vs, &aff1)?;
                            let any = self.b.ins().vany_true(stay);
                            self.b.ins().brif(any, cont, &[], exit, &[]);
                        }
                        _ => {
                            // All eight leave, or none does (else they go to the scalar loop).
                            for q in 0..2 {
                                let saved = self.quad_in(q, &aff1);
                                let r = self.def_phis(&exit_phis[q], at, plan, &vs[q]);
                                self.quad_out(saved);
                                r?;
                            }
                            self.all_or_none2(c, negate, [exit, cont], plan, &vs, &aff1, bail, bail_args)?;
                        }
                    }
                    self.b.seal_block(cont);
                    self.b.switch_to_block(cont);
                }
                Step::LoopEnd { negate } => {
                    let lp = lps
                        .take()
                        .ok_or_else(|| self.err(inst, "vector plan: loop end without a head"))?;
                    let (head, exit) = (lp[0].head, lp[0].exit);
                    for q in 0..2 {
                        let saved = self.quad_in(q, &aff1);
                        let r = self.def_phis(&lp[q].phis, 1, plan, &vs[q]);
                        self.quad_out(saved);
                        r?;
                    }
                    let c = op_id(inst, 2)?;
                    let uniform = plan.class.get(&c).is_none_or(|x| *x == Class::Uniform);
                    match (vs[0].exec, vs[1].exec) {
                        (Some(v0), Some(v1)) if looped_masked(plan, k) && uniform => {
                            // The same test for every lane: all still in go round, or all leave.
                            let leave = self.b.create_block();
                            let v = self.val1(c)?;
                            let (t, e) = if negate { (leave, head) } else { (head, leave) };
                            self.b.ins().brif(v, t, &[], e, &[]);
                            self.b.seal_block(leave);
                            self.b.switch_to_block(leave);
                            for (q, var) in [(0, v0), (1, v1)] {
                                let cur = self.b.use_var(var);
                                let saved = self.quad_in(q, &aff1);
                                let r = self.capture(&lp[q].exit_phis, lp[q].exits, cur, plan, &vs[q]);
                                self.quad_out(saved);
                                r?;
                            }
                            self.b.ins().jump(exit, &[]);
                        }
                        (Some(v0), Some(v1)) if looped_masked(plan, k) => {
                            // Each quad's lanes for which the test fails leave.
                            let phis = [lp[0].exit_phis.clone(), lp[1].exit_phis.clone()];
                            let at = lp[0].exits;
                            let stay = self.leave_lanes(c, !negate, [v0, v1], &phis, at, plan, &vs, &aff1)?;
                            let any = self.b.ins().vany_true(stay);
                            self.b.ins().brif(any, head, &[], exit, &[]);
                        }
                        _ => {
                            for q in 0..2 {
                                let saved = self.quad_in(q, &aff1);
                                let r = self.def_phis(&lp[q].exit_phis, lp[q].exits, plan, &vs[q]);
                                self.quad_out(saved);
                                r?;
                            }
                            self.all_or_none2(c, negate, [head, exit], plan, &vs, &aff1, bail, bail_args)?;
                        }
                    }
                    if looped_masked(plan, k) {
                        for q in 0..2 {
                            vs[q].exec = lp[q].outer;
                        }
                    }
                    self.b.seal_block(head);
                    self.b.seal_block(exit);
                    self.b.switch_to_block(exit);
                    for q in 0..2 {
                        self.use_phis(&lp[q].exit_phis, &mut vs[q]);
                    }
                }
                Step::If { negate, masked } => {
                    let c = op_id(inst, 0)?;
                    let b0 = self.open_branch(plan, k, &vs[0])?;
                    let saved = self.quad_in(1, &aff1);
                    let b1 = self.open_branch_in(plan, k, &vs[1], Some(&b0));
                    self.quad_out(saved);
                    let mut br = [b0, b1?];
                    let (first, second) = (br[0].first, br[0].second);
                    if masked {
                        // Each arm that a lane of either quad takes runs under each quad's
                        // mask of its lanes.
                        let mut lanes = Vec::with_capacity(2);
                        for q in 0..2 {
                            let outer = self.exec_mask(&vs[q]);
                            let saved = self.quad_in(q, &aff1);
                            let m = self.mask(c, negate, plan, &vs[q]);
                            self.quad_out(saved);
                            let m = m?;
                            let t = self.b.ins().band(outer, m);
                            let f = self.b.ins().band_not(outer, m);
                            if br[q].has_else {
                                self.zero_phis(&br[q].phis)?;
                            }
                            let ev = self.b.declare_var(types::I32X4);
                            br[q].masked = Some((t, f, ev, vs[q].exec.replace(ev)));
                            lanes.push((t, ev));
                        }
                        let either = self.b.ins().bor(lanes[0].0, lanes[1].0);
                        let any = self.b.ins().vany_true(either);
                        self.b.ins().brif(any, first, &[], second, &[]);
                        self.b.seal_block(first);
                        self.b.switch_to_block(first);
                        for (t, ev) in lanes {
                            self.b.def_var(ev, t);
                        }
                    } else {
                        self.all_or_none2(c, negate, [first, second], plan, &vs, &aff1, bail, bail_args)?;
                        self.b.seal_block(first);
                        self.b.switch_to_block(first);
                    }
                    brs.push(br);
                }
                Step::Else => {
                    let br = brs
                        .last()
                        .ok_or_else(|| self.err(inst, "vector plan: else without if"))?;
                    let (after, second) = (br[0].after, br[0].second);
                    let phis = [br[0].phis.clone(), br[1].phis.clone()];
                    match (br[0].masked, br[1].masked) {
                        (Some((t0, f0, ev0, _)), Some((t1, f1, ev1, _))) => {
                            for (q, t) in [(0, t0), (1, t1)] {
                                let saved = self.quad_in(q, &aff1);
                                let r = self.capture(&phis[q], 0, t, plan, &vs[q]);
                                self.quad_out(saved);
                                r?;
                            }
                            let either = self.b.ins().bor(f0, f1);
                            let any = self.b.ins().vany_true(either);
                            self.b.ins().brif(any, second, &[], after, &[]);
                            self.b.seal_block(second);
                            self.b.switch_to_block(second);
                            self.b.def_var(ev0, f0);
                            self.b.def_var(ev1, f1);
                        }
                        _ => {
                            for q in 0..2 {
                                let saved = self.quad_in(q, &aff1);
                                let r = self.def_phis(&phis[q], 0, plan, &vs[q]);
                                self.quad_out(saved);
                                r?;
                            }
                            self.b.ins().jump(after, &[]);
                            self.b.seal_block(second);
                            self.b.switch_to_block(second);
                        }
                    }
                }
                Step::EndIf => {
                    let br = brs.pop().ok_or_else(|| self.err(inst, "vector plan: end without if"))?;
                    for q in 0..2 {
                        let saved = self.quad_in(q, &aff1);
                        let r = match br[q].masked {
                            Some((t, f, _, outer)) => {
                                let (at, lanes) = if br[q].has_else { (1, f) } else { (0, t) };
                                let r = self.capture(&br[q].phis, at, lanes, plan, &vs[q]);
                                vs[q].exec = outer;
                                r
                            }
                            None => self.def_phis(&br[q].phis, usize::from(br[q].has_else), plan, &vs[q]),
                        };
                        self.quad_out(saved);
                        r?;
                    }
                    let after = br[0].after;
                    self.b.ins().jump(after, &[]);
                    self.b.seal_block(after);
                    self.b.switch_to_block(after);
                    for q in 0..2 {
                        self.use_phis(&br[q].phis, &mut vs[q]);
                    }
                }
                _ => return Err(self.err(inst, "vector plan: a step two quads do not take")),
            }
        }
        Ok(())
    }

    /// A masked loop's exit (or its end, `negate` flipped) for both quads: the lanes of each
    /// quad's execution mask `vars[q]` for which `c` holds (is false if `negate`) leave with
    /// value `at` of the quad's exit phis (kept in a block skipped in the rounds where no lane
    /// of either quad leaves). Gives the lanes that stay, of either quad (the masks are set to
    /// each quad's).
    #[allow(clippy::too_many_arguments)]
    fn leave_lanes(
        &mut self,
        c: Id,
        negate: bool,
        vars: [Variable; 2],
        exit_phis: &[Vec<BranchPhi>; 2],
        at: usize,
        plan: &Plan,
        vs: &[Vecs; 2],
        aff1: &Affine1,
    ) -> R<Value> {
        let mut leaving = Vec::with_capacity(2);
        let mut stays = Vec::with_capacity(2);
        for (q, var) in vars.iter().enumerate() {
            let saved = self.quad_in(q, aff1);
            let leave = self.mask(c, negate, plan, &vs[q]);
            self.quad_out(saved);
            let leave = leave?;
            let cur = self.b.use_var(*var);
            leaving.push(self.b.ins().band(cur, leave));
            stays.push(self.b.ins().band_not(cur, leave));
        }
        if exit_phis.iter().any(|p| !p.is_empty()) {
            let (keep, join) = (self.b.create_block(), self.b.create_block());
            let either = self.b.ins().bor(leaving[0], leaving[1]);
            let any = self.b.ins().vany_true(either);
            self.b.ins().brif(any, keep, &[], join, &[]);
            self.b.seal_block(keep);
            self.b.switch_to_block(keep);
            for q in 0..2 {
                let saved = self.quad_in(q, aff1);
                let r = self.capture(&exit_phis[q], at, leaving[q], plan, &vs[q]);
                self.quad_out(saved);
                r?;
            }
            self.b.ins().jump(join, &[]);
            self.b.seal_block(join);
            self.b.switch_to_block(join);
        }
        for (var, stay) in vars.iter().zip(&stays) {
            self.b.def_var(*var, *stay);
        }
        Ok(self.b.ins().bor(stays[0], stays[1]))
    }

    /// As [`Self::all_or_none_branch`] for two quads: all eight work-items, or none.
    #[allow(clippy::too_many_arguments)]
    fn all_or_none2(
        &mut self,
        c: Id,
        negate: bool,
        [yes, no]: [Block; 2],
        plan: &Plan,
        vs: &[Vecs; 2],
        aff1: &Affine1,
        bail: Block,
        bail_args: &[BlockArg],
    ) -> R {
        if plan.class.get(&c).copied().unwrap_or(Class::Uniform) == Class::Uniform {
            let v = self.val1(c)?;
            let (t, e) = if negate { (no, yes) } else { (yes, no) };
            self.b.ins().brif(v, t, &[], e, &[]);
            return Ok(());
        }
        let (all, none) = if plan.monotone.contains_key(&c) {
            // Lanes 0 and 7 decide.
            self.all_or_none_span(c, plan, &vs[0], 2 * LANES)?
        } else {
            let (a0, n0) = self.all_or_none(c, plan, &vs[0])?;
            let saved = self.quad_in(1, aff1);
            let r = self.all_or_none(c, plan, &vs[1]);
            self.quad_out(saved);
            let (a1, n1) = r?;
            (self.b.ins().band(a0, a1), self.b.ins().band(n0, n1))
        };
        let (all, none) = if negate { (none, all) } else { (all, none) };
        let check = self.b.create_block();
        self.b.ins().brif(all, yes, &[], check, &[]);
        self.b.seal_block(check);
        self.b.switch_to_block(check);
        self.b.ins().brif(none, no, &[], bail, bail_args);
        Ok(())
    }

    /// After a step translated once for both quads: if its result is affine, quad 1's base
    /// (four strides on).
    fn note_affine(&mut self, inst: &Instruction, plan: &Plan, aff1: &mut Affine1) -> R {
        let Some(r) = inst.result_id else {
            return Ok(());
        };
        if let Some(Class::Affine(s)) = plan.class.get(&r).copied() {
            let base = self.val1(r)?;
            let b1 = self.b.ins().iadd_imm_s(base, s.wrapping_mul(LANES));
            aff1.insert(r, b1);
        }
        Ok(())
    }

    /// For quad `q` = 1: the affine values take quad 1's bases (the old values are given,
    /// for [`Self::quad_out`]); nothing for quad 0.
    fn quad_in(&mut self, q: usize, aff1: &Affine1) -> Vec<(Id, Option<Vec<Value>>)> {
        if q == 0 {
            return Vec::new();
        }
        aff1.iter()
            .map(|(id, v)| (*id, self.vals.insert(*id, vec![*v])))
            .collect()
    }

    /// Puts back the values [`Self::quad_in`] replaced.
    fn quad_out(&mut self, saved: Vec<(Id, Option<Vec<Value>>)>) {
        for (id, v) in saved {
            match v {
                Some(v) => self.vals.insert(id, v),
                None => self.vals.remove(&id),
            };
        }
    }
}
