//! Work-group functions: `fn(args, wi, spill)` runs every work-item of one group in loops
//! generated inside the JIT code, with the kernel body inlined into the loop (no call per
//! work-item; the arguments and the group's constants are loaded once, before the loops).
//!
//! Kernels with barriers run each barrier region as a loop of its own over the work-items
//! (`regions`). Where that fails to build (or would repeat too much code), they use the same
//! loops as above in "sweep" mode (continuation-based synchronization): every barrier is a
//! yield point. A work-item that reaches barrier `k` saves
//! the values live across it (SPIR-V values, promoted Function variables) in its record of the
//! per-work-item spill area, stores `k` as its state and goes on to the next work-item. The
//! loops are repeated (one sweep per region) until every work-item has finished; each sweep
//! resumes every work-item at the barrier it stopped at. Function variables kept in memory live
//! in the work-item's record as well, so their addresses stay valid across barriers.
//!
//! Record layout: state (u32) at offset 0, then the Function variables, then the spill slots.

use super::context::{kernel_args, load_args, stack_copy, ArgVal, Ctx, GroupFn};
use super::layout::{copy_struct, round_up, Id, Ty};
use super::state::{linear_ids, BarrierPoint, FnTx, GroupIds, GroupTx, RegionTx, Slot, R, STATE_DONE};
use super::translate::{is_barrier, promotable, rpo, successor_blocks};
use super::uniform::direct_builtin;
use super::{driver as drv, regions, simd, uniform, CompileError};
use crate::spirv::module::Function;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_module::{Linkage, Module as _};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, StorageClass};
use std::collections::{HashMap, HashSet};

fn err(s: impl Into<String>) -> CompileError {
    CompileError::new(s)
}

/// Whether the body needs the work-item ids stored in the `WorkItem` (called functions and
/// helpers read them from there; so do builtin variables used other than by a direct load).
fn needs_wi_ids(cx: &Ctx, f: &Function) -> bool {
    let is_input = |id: &Id| matches!(cx.globals.get(id), Some((_, StorageClass::Input)));
    for blk in &f.blocks {
        for inst in &blk.instructions {
            if inst.opcode == Op::FunctionCall
                || super::collective::is_collective(cx, inst)
                || super::collective::is_sub_group_local(inst.opcode)
                || super::pipe::is_pipe_ext(cx, inst)
            {
                return true;
            }
            for (i, op) in inst.operands.iter().enumerate() {
                if let Operand::IdRef(x) = op {
                    let direct = inst.opcode == Op::Load
                        && i == 0
                        && inst.result_type.is_some_and(|t| direct_builtin(cx, *x, t));
                    if is_input(x) && !direct {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Whether the body does nothing: a chain of unconditional branches from the entry to a
/// return, without any other instruction (an empty kernel, possibly through inlined calls).
fn is_trivial(f: &Function, entry: usize) -> bool {
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut seen = HashSet::new();
    let mut cur = entry;
    while seen.insert(cur) {
        let blk = &f.blocks[cur];
        let mut next = None;
        for inst in &blk.instructions {
            match (inst.opcode, inst.operands.first()) {
                (Op::Nop | Op::Line | Op::NoLine | Op::SelectionMerge | Op::LoopMerge, _) => {}
                (Op::Return, _) => return true,
                (Op::Branch, Some(Operand::IdRef(t))) => next = index.get(t).copied(),
                _ => return false,
            }
        }
        match next {
            Some(n) => cur = n,
            None => return false,
        }
    }
    false
}

/// The builtin variables the body refers to.
fn used_builtins(cx: &Ctx, f: &Function) -> HashSet<BuiltIn> {
    let mut out = HashSet::new();
    for blk in &f.blocks {
        for inst in &blk.instructions {
            for op in &inst.operands {
                if let Operand::IdRef(x) = op {
                    if let Some(b) = cx.builtins.get(x) {
                        out.insert(*b);
                    }
                }
            }
        }
    }
    out
}

/// Liveness at the barriers of `f` (reachable blocks `order`): for each barrier, in
/// translation order, (block label, instruction index) and the ids live right after it:
/// instruction results and promoted Function variables (`promo`; a load uses one, a store or
/// an initializer defines it).
fn barrier_liveness(cx: &Ctx, f: &Function, order: &[usize], promo: &HashSet<Id>) -> Vec<((Id, usize), Vec<Id>)> {
    let mut defined: HashSet<Id> = HashSet::new();
    for &bi in order {
        for inst in &f.blocks[bi].instructions {
            if let Some(r) = inst.result_id {
                if !promo.contains(&r) {
                    defined.insert(r);
                }
            }
        }
    }
    let index: HashMap<Id, usize> = order.iter().map(|&bi| (f.blocks[bi].label, bi)).collect();
    // What one (non-phi) instruction defines and uses among the tracked ids.
    let def_use = |inst: &Instruction, kills: &mut Vec<Id>, uses: &mut Vec<Id>| {
        kills.clear();
        uses.clear();
        if let Some(r) = inst.result_id {
            // A promoted variable without initializer keeps its value (translation defines
            // nothing there).
            if !promo.contains(&r) || inst.operands.len() > 1 {
                kills.push(r);
            }
        }
        for (i, op) in inst.operands.iter().enumerate() {
            if let Operand::IdRef(x) = op {
                if promo.contains(x) {
                    match (inst.opcode, i) {
                        (Op::Store, 0) => kills.push(*x),
                        _ => uses.push(*x),
                    }
                } else if defined.contains(x) {
                    uses.push(*x);
                }
            }
        }
    };
    let n = f.blocks.len();
    let succ: Vec<Vec<usize>> = f.blocks.iter().map(|b| successor_blocks(b, &index)).collect();
    // Phi uses per (successor, predecessor label).
    let phi_uses = |s: usize, pred: Id| -> Vec<Id> {
        let mut out = Vec::new();
        for inst in f.blocks[s].instructions.iter().filter(|i| i.opcode == Op::Phi) {
            let mut i = 0;
            while i + 1 < inst.operands.len() {
                if let (Operand::IdRef(v), Operand::IdRef(p)) = (&inst.operands[i], &inst.operands[i + 1]) {
                    if *p == pred && defined.contains(v) {
                        out.push(*v);
                    }
                }
                i += 2;
            }
        }
        out
    };
    // live_in of each block, without its phi results.
    let mut live_in: Vec<HashSet<Id>> = vec![HashSet::new(); n];
    let block_in = |bi: usize, live_in: &Vec<HashSet<Id>>, upto: usize| -> HashSet<Id> {
        let blk = &f.blocks[bi];
        let mut live: HashSet<Id> = HashSet::new();
        for &s in &succ[bi] {
            live.extend(live_in[s].iter().copied());
            live.extend(phi_uses(s, blk.label));
        }
        let (mut k, mut u) = (Vec::new(), Vec::new());
        for inst in blk.instructions[upto..].iter().rev() {
            if inst.opcode == Op::Phi {
                continue;
            }
            def_use(inst, &mut k, &mut u);
            for r in &k {
                live.remove(r);
            }
            live.extend(u.iter().copied());
        }
        if upto == 0 {
            for inst in blk.instructions.iter().filter(|i| i.opcode == Op::Phi) {
                if let Some(r) = inst.result_id {
                    live.remove(&r);
                }
            }
        }
        live
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &bi in order.iter().rev() {
            let l = block_in(bi, &live_in, 0);
            if l.len() != live_in[bi].len() {
                live_in[bi] = l;
                changed = true;
            }
        }
    }
    let mut out = Vec::new();
    for &bi in order {
        for (i, inst) in f.blocks[bi].instructions.iter().enumerate() {
            if is_barrier(cx, inst) {
                let mut live: Vec<Id> = block_in(bi, &live_in, i + 1).into_iter().collect();
                live.sort_unstable();
                out.push(((f.blocks[bi].label, i), live));
            }
        }
    }
    out
}

/// Most instructions recomputed for one value instead of keeping it in the record.
const REMAT_COST: u32 = 6;

/// Values cheap to recompute after a barrier from the work-item's ids, the arguments, constants
/// and program-scope variables (pure integer and pointer arithmetic on them): value -> cost
/// (instructions emitted, including its operands').
fn rematerializable(cx: &Ctx, f: &Function, order: &[usize]) -> HashMap<Id, u32> {
    let params: HashSet<Id> = f.params.iter().map(|(p, _)| *p).collect();
    let mut out: HashMap<Id, u32> = HashMap::new();
    for &bi in order {
        for inst in &f.blocks[bi].instructions {
            let Some(r) = inst.result_id else { continue };
            let own = match inst.opcode {
                Op::Load => {
                    match (inst.operands.first(), inst.result_type) {
                        (Some(Operand::IdRef(p)), Some(ty)) if direct_builtin(cx, *p, ty) => {}
                        _ => continue,
                    }
                    0
                }
                Op::CompositeExtract | Op::CopyObject => 0,
                Op::IAdd
                | Op::ISub
                | Op::IMul
                | Op::ShiftLeftLogical
                | Op::ShiftRightLogical
                | Op::ShiftRightArithmetic
                | Op::BitwiseAnd
                | Op::BitwiseOr
                | Op::BitwiseXor
                | Op::Not
                | Op::SNegate
                | Op::UConvert
                | Op::SConvert
                | Op::ConvertPtrToU
                | Op::ConvertUToPtr
                | Op::AccessChain
                | Op::InBoundsAccessChain
                | Op::PtrAccessChain
                | Op::InBoundsPtrAccessChain => 1,
                _ => continue,
            };
            // Scalars only, unless free (a vector costs one instruction per lane).
            match inst.result_type.and_then(|t| cx.layout.get(t).ok()) {
                Some(info) if own == 0 || info.leaves.len() == 1 => {}
                _ => continue,
            }
            let mut cost = own;
            let mut ok = true;
            for (i, op) in inst.operands.iter().enumerate() {
                let Operand::IdRef(x) = op else { continue };
                if inst.opcode == Op::Load && i == 0 {
                    continue;
                }
                if let Some(c) = out.get(x) {
                    cost += c;
                } else if !(params.contains(x) || cx.m.constant(*x).is_some() || cx.globals.contains_key(x)) {
                    ok = false;
                    break;
                }
            }
            if ok && cost <= REMAT_COST {
                out.insert(r, cost);
            }
        }
    }
    out
}

fn leaf_bytes(t: types::Type) -> i32 {
    t.bytes().max(1) as i32
}

/// Builds the work-group function of kernel `f` (`body`: its body with barrier-containing
/// calls inlined; `regions`: whether barriers are yield points).
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_group(
    cx: &mut Ctx,
    f: &Function,
    body: &Function,
    name: &str,
    index: usize,
    regions: bool,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<GroupFn, CompileError> {
    // Robust mode: a second function without the checks a group-level check covers
    // (`robust_group`), which this one calls for groups in range.
    let (args, _) = kernel_args(cx, f)?;
    let kinds: Vec<_> = args.iter().map(|a| a.kind).collect();
    let one = |cx: &mut Ctx, ctx: &mut Context, fbc: &mut FunctionBuilderContext| {
        build_group_one(cx, f, body, name, index, regions, ctx, fbc)
    };
    match super::robust_group::build_pair(cx, body, &kinds, ctx, fbc, &one)? {
        Some(g) => Ok(g),
        None => one(cx, ctx, fbc),
    }
}

/// As [`build_group`], one work-group function.
#[allow(clippy::too_many_arguments)]
fn build_group_one(
    cx: &mut Ctx,
    f: &Function,
    body: &Function,
    name: &str,
    index: usize,
    regions: bool,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<GroupFn, CompileError> {
    let (simd_on, strict) = simd::mode();
    // CLIFT_BARRIERS=sweep: the single sweep loop only (for comparisons and tests).
    let sweep = std::env::var("CLIFT_BARRIERS").is_ok_and(|v| v == "sweep");
    let fast = if regions { !sweep } else { simd_on };
    if fast {
        // Two quads per vector iteration where chosen; should they fail to build, one.
        // (Barrier regions run one quad.)
        let tries: &[bool] = if regions { &[false] } else { &[true, false] };
        for &two in tries {
            match build(cx, f, body, name, index, regions, true, two, ctx, fbc) {
                Ok(g) => return Ok(g),
                Err(e) if strict => return Err(e),
                // Region loops and the vector loop are optimizations: should they fail to
                // build, the single sweep loop and the scalar loop run any body.
                Err(_) => {
                    ctx.clear();
                    *fbc = FunctionBuilderContext::new();
                }
            }
        }
    }
    build(cx, f, body, name, index, regions, false, false, ctx, fbc)
}

/// As [`build_group`]; `fast`: whether to add the vector loop where the body allows it
/// (without barriers), or to run the regions as loops of their own (with barriers); `two`:
/// whether the vector loop may run two quads (eight work-items) per iteration.
#[allow(clippy::too_many_arguments)]
fn build(
    cx: &mut Ctx,
    f: &Function,
    body: &Function,
    name: &str,
    index: usize,
    regions: bool,
    fast: bool,
    two: bool,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<GroupFn, CompileError> {
    let mut sig = cx.jit.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I64));
    }
    let fid = cx
        .jit
        .declare_function(&format!("group{index}{}", cx.rb_variant.suffix()), Linkage::Local, &sig)
        .map_err(|e| err(format!("kernel {name}: {e}")))?;
    ctx.func.signature = sig;
    ctx.func.name = cranelift_codegen::ir::UserFuncName::user(2, index as u32);
    let (args, _) = kernel_args(cx, f)?;
    let order = rpo(body);
    if order.is_empty() {
        return Err(err(format!("kernel {name}: no body")));
    }
    let wi_ids = needs_wi_ids(cx, body);
    // Four work-items at once where the body allows it (plain loops only).
    // By-value arguments are private copies, one per work-item: those kernels stay scalar.
    let byval = f.params.iter().any(|(p, _)| cx.byval.contains(p));
    let mut quads = 1;
    // Quads (four work-items) per vector iteration of a plan: two only without robust checks.
    let quads_of = |cx: &Ctx, p: &simd::Plan| {
        let (n, why) = match cx.opts.robust {
            true => (1, "robust checks".to_string()),
            false => simd::quads(cx, p),
        };
        match two || n == 1 {
            true => (n, why),
            false => (1, "two quads failed to build".to_string()),
        }
    };
    // A plan that speculates on a stride of 1 goes on, where that fails, in one that does not.
    let mut unspeculated = None;
    let plan = if fast && !regions && !wi_ids && !byval {
        let p = simd::plan(cx, body, &order, &f.params, &HashSet::new(), true);
        let (n, why) = match &p {
            Ok(p) => quads_of(cx, p),
            Err(_) => (1, String::new()),
        };
        quads = n;
        if let Ok(p) = &p {
            if p.speculative {
                let b = simd::plan(cx, body, &order, &f.params, &HashSet::new(), false);
                if std::env::var_os("CLIFT_DUMP_CODE").is_some() {
                    match &b {
                        Ok(_) => eprintln!("== kernel {name}: a stride taken to be 1 (else the plan without)"),
                        Err(why) => eprintln!("== kernel {name}: a stride taken to be 1 (else scalar: {why})"),
                    }
                }
                unspeculated = b.ok().map(|b| {
                    let (n, _) = quads_of(cx, &b);
                    (b, n)
                });
            }
        }
        // With CLIFT_DUMP_CODE (debugging aid), say which kernels got the vector loop.
        if std::env::var_os("CLIFT_DUMP_CODE").is_some() {
            match &p {
                Ok(_) if n == 4 => eprintln!("== kernel {name}: vector loop yes, 16 work-items per iteration ({why})"),
                Ok(_) => eprintln!("== kernel {name}: vector loop yes, {n} quad(s) per iteration ({why})"),
                Err(why) => eprintln!("== kernel {name}: vector loop no ({why})"),
            }
        }
        match p {
            Ok(p) => Some(p),
            Err(why) if !is_trivial(body, order[0]) => match simd::strict_decline(name, "the kernel", &why) {
                Some(msg) => return Err(err(msg)),
                None => None,
            },
            Err(_) => None,
        }
    } else {
        if fast && !regions {
            let why = if wi_ids {
                "calls or work-item ids read as vectors"
            } else {
                "by-value arguments"
            };
            if std::env::var_os("CLIFT_DUMP_CODE").is_some() {
                eprintln!("== kernel {name}: vector loop no ({why})");
            }
            if let Some(msg) = simd::strict_decline(name, "the kernel", why) {
                return Err(err(msg));
            }
        }
        None
    };
    let record_size;
    if is_trivial(body, order[0]) {
        // A kernel that does nothing: no work-item loops at all.
        let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
        let blk = b.create_block();
        b.append_block_params_for_function_params(blk);
        b.switch_to_block(blk);
        b.seal_block(blk);
        b.ins().return_(&[]);
        let cfg = cx.jit.target_config();
        b.finalize(cfg);
        super::context::define(cx, fid, ctx, &format!("kernel {name}"))?;
        return Ok(GroupFn { fid, record_size: 0 });
    }
    // Region mode: liveness at the barriers, what can be recomputed after them, and with
    // region loops the regions' code and the uniform values.
    let promo = if regions { promotable(cx, body) } else { HashSet::new() };
    let points = if regions {
        barrier_liveness(cx, body, &order, &promo)
    } else {
        Vec::new()
    };
    let starts = if regions && fast {
        let at: Vec<(Id, usize)> = points.iter().map(|(at, _)| *at).collect();
        let starts = regions::region_starts(body, &order, &at)
            .ok_or_else(|| err(format!("kernel {name}: a barrier outside the body")))?;
        Some(starts)
    } else {
        None
    };
    let uniform = if starts.is_some() {
        uniform::uniform_values(cx, body, &order)
    } else {
        HashSet::new()
    };
    // (`CLIFT_LOCKSTEP=0` keeps the states, to compare.)
    let lockstep = starts.is_some()
        && std::env::var("CLIFT_LOCKSTEP").as_deref() != Ok("0")
        && uniform::barriers_in_uniform_flow(body, &order, &uniform, &|i| is_barrier(cx, i));
    {
        let b = FunctionBuilder::new(&mut ctx.func, fbc);
        let mut t = FnTx::new(cx, b, body.result_type);
        if t.cx.opts.robust {
            let (_, size) = kernel_args(t.cx, f)?;
            let shape = super::robust::kernel_shape(&args, size);
            t.robust = Some(Box::new(super::robust_state::Robust::analyse(t.cx, body, Some(shape))));
        }
        if starts.is_some() {
            // Each region makes its own blocks.
            t.promote(body)?;
        } else {
            t.prepare(body, &order)?;
        }
        let flags = MemFlagsData::trusted();

        // Prologue: arguments and the group's constants.
        let prologue = t.b.create_block();
        t.b.append_block_params_for_function_params(prologue);
        t.b.switch_to_block(prologue);
        let pp = t.b.block_params(prologue).to_vec();
        let (argp, wi, spill) = (pp[0], pp[1], pp[2]);
        t.wi = wi;
        let argvals = load_args(t.cx, &mut t.b, f, &args, argp, wi)?;
        t.rb_prologue(argp, &argvals);
        // Only what the body uses is loaded (loads are not removed when dead).
        let used = used_builtins(t.cx, body);
        let uses = |b: BuiltIn| wi_ids || used.contains(&b);
        let need_gl = uses(BuiltIn::GlobalInvocationId);
        let need_glin = uses(BuiltIn::GlobalLinearId);
        let zero = t.b.ins().iconst(types::I64, 0);
        let ld3 = |b: &mut FunctionBuilder, off: usize, need: bool| -> [Value; 3] {
            if !need {
                return [zero; 3];
            }
            [0, 1, 2].map(|d| b.ins().load(types::I64, flags, wi, (off + 8 * d) as i32))
        };
        let lsz = ld3(&mut t.b, drv::OFF_LOCAL_SIZE, true);
        let enq = ld3(
            &mut t.b,
            drv::OFF_ENQ_LOCAL_SIZE,
            need_gl || need_glin || uses(BuiltIn::EnqueuedWorkgroupSize),
        );
        let gid = ld3(
            &mut t.b,
            drv::OFF_GROUP_ID,
            need_gl || need_glin || uses(BuiltIn::WorkgroupId),
        );
        let goff = ld3(&mut t.b, drv::OFF_GLOBAL_OFFSET, need_gl || uses(BuiltIn::GlobalOffset));
        let gsz = ld3(&mut t.b, drv::OFF_GLOBAL_SIZE, need_glin || uses(BuiltIn::GlobalSize));
        let ngr = ld3(&mut t.b, drv::OFF_NUM_GROUPS, uses(BuiltIn::NumWorkgroups));
        let wdim = if uses(BuiltIn::WorkDim) {
            t.b.ins().load(types::I32, flags, wi, drv::OFF_WORK_DIM as i32)
        } else {
            t.b.ins().iconst(types::I32, 0)
        };
        // First global id of the group per dimension, and its offset-free form.
        let gbase0 = [0, 1, 2].map(|d| t.b.ins().imul(gid[d], enq[d]));
        let gbase = [0, 1, 2].map(|d| t.b.ins().iadd(gbase0[d], goff[d]));

        // Region mode: records, layout and barrier points.
        let mut rec_layout = None;
        if regions {
            let remat = rematerializable(t.cx, body, &order);
            let mut off: u64 = 16;
            // Bytes of the group's area for uniform values.
            let mut uoff: u64 = 0;
            let mut max_align: u64 = 16;
            let mut var_offsets = HashMap::new();
            let mut result_ty: HashMap<Id, Id> = HashMap::new();
            // Definitions: id -> (position in translation order, instruction).
            let mut defs: HashMap<Id, (usize, &Instruction)> = HashMap::new();
            for &bi in &order {
                for inst in &body.blocks[bi].instructions {
                    if let (Some(r), Some(ty)) = (inst.result_id, inst.result_type) {
                        defs.insert(r, (defs.len(), inst));
                        result_ty.insert(r, ty);
                        if inst.opcode == Op::Variable && !promo.contains(&r) {
                            if let Ty::Pointer(_, p) = t.cx.layout.get(ty)?.ty {
                                let info = t.cx.layout.get(p)?;
                                let a = info.align.clamp(1, 64);
                                max_align = max_align.max(a);
                                off = round_up(off, a);
                                var_offsets.insert(r, off as i32);
                                off += info.size.max(1);
                            }
                        }
                    }
                }
            }
            // Per barrier: the ids kept in the record and the instructions recomputed after it
            // (every value they need, operands first).
            let mut plans = Vec::new();
            for (at, live) in points {
                let (re, saved): (Vec<Id>, Vec<Id>) = live.into_iter().partition(|id| remat.contains_key(id));
                let mut need: HashSet<Id> = HashSet::new();
                let mut stack = re;
                while let Some(id) = stack.pop() {
                    if !need.insert(id) {
                        continue;
                    }
                    for op in &defs[&id].1.operands {
                        if let Operand::IdRef(x) = op {
                            if remat.contains_key(x) {
                                stack.push(*x);
                            }
                        }
                    }
                }
                let mut need: Vec<Id> = need.into_iter().collect();
                need.sort_by_key(|id| defs[id].0);
                plans.push((at, saved, need));
            }
            // Values live across some barrier (or recomputed after one) are SSA variables.
            let mut crossing: HashMap<Id, Vec<Variable>> = HashMap::new();
            // Per value: whether it is kept once per group, and its slots.
            let mut saved_slots: HashMap<Id, (bool, Vec<Slot>)> = HashMap::new();
            let mut ids: Vec<Id> = plans
                .iter()
                .flat_map(|(_, s, n)| s.iter().chain(n.iter()).copied())
                .filter(|id| !promo.contains(id))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let spilled: HashSet<Id> = plans.iter().flat_map(|(_, s, _)| s.iter().copied()).collect();
            for id in ids {
                let ty = *result_ty
                    .get(&id)
                    .ok_or_else(|| err(format!("kernel {name}: %{id} has no type")))?;
                let leaves = t.cx.layout.get(ty)?.leaves.clone();
                let vars: Vec<Variable> = leaves.iter().map(|l| t.b.declare_var(*l)).collect();
                if spilled.contains(&id) {
                    let once = uniform.contains(&id);
                    let at = if once { &mut uoff } else { &mut off };
                    let mut v = Vec::new();
                    // Whole 16-byte registers of equal lanes (float4, int8, double2...) start
                    // 16-aligned: saved and restored one register at a time (`slot_moves`).
                    let n = leaves.len() as u64;
                    if !once
                        && n > 1
                        && leaves.iter().all(|l| *l == leaves[0])
                        && (n * leaf_bytes(leaves[0]) as u64).is_multiple_of(16)
                    {
                        *at = round_up(*at, 16);
                    }
                    for (var, l) in vars.iter().zip(leaves) {
                        let sz = leaf_bytes(l) as u64;
                        *at = round_up(*at, sz);
                        v.push((*var, *at as i32, l));
                        *at += sz;
                    }
                    saved_slots.insert(id, (once, v));
                }
                crossing.insert(id, vars);
            }
            // Promoted Function variables live across some barrier.
            let mut pvars: Vec<(Id, Id, Vec<Variable>)> = t
                .promoted
                .iter()
                .filter(|(id, _)| spilled.contains(id))
                .map(|(id, (p, v))| (*id, *p, v.clone()))
                .collect();
            pvars.sort_by_key(|(id, _, _)| *id);
            for (id, p, vars) in pvars {
                let leaves = t.cx.layout.get(p)?.leaves.clone();
                let mut v = Vec::new();
                for (var, l) in vars.into_iter().zip(leaves) {
                    let sz = leaf_bytes(l) as u64;
                    off = round_up(off, sz);
                    v.push((var, off as i32, l));
                    off += sz;
                }
                saved_slots.insert(id, (false, v));
            }
            if off > i32::MAX as u64 / 2 || uoff > i32::MAX as u64 / 2 {
                return Err(err(format!("kernel {name}: private memory too large")));
            }
            let mut barriers = HashMap::new();
            for (i, (at, saved, need)) in plans.into_iter().enumerate() {
                // The single sweep loop resumes work-items in a block of its own.
                let cont = if starts.is_some() {
                    None
                } else {
                    Some(t.b.create_block())
                };
                let pick = |once: bool| -> Vec<Slot> {
                    saved
                        .iter()
                        .filter_map(|id| saved_slots.get(id))
                        .filter(|(o, _)| *o == once)
                        .flat_map(|(_, v)| v.iter().copied())
                        .collect()
                };
                let (slots, uslots) = (pick(false), pick(true));
                let remat = need.iter().map(|id| defs[id].1.clone()).collect();
                barriers.insert(
                    at,
                    BarrierPoint {
                        state: i as u32 + 1,
                        cont,
                        slots,
                        uslots,
                        remat,
                    },
                );
            }
            let any =
                t.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
            let gslot = (uoff > 0).then(|| {
                t.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, uoff as u32, 4))
            });
            rec_layout = Some((
                round_up(off, max_align) as usize,
                any,
                crossing,
                var_offsets,
                barriers,
                gslot,
            ));
        }

        // Region mode: each work-item's record holds its spill slots, then private copies of
        // the by-value arguments.
        let record_layout = rec_layout.as_ref().map(|(size, ..)| {
            let mut byval_offsets = Vec::new();
            let mut off = *size as u64;
            for v in &argvals {
                if let ArgVal::ByVal { size, align, .. } = v {
                    off = round_up(off, (*align).clamp(1, 16));
                    byval_offsets.push(off);
                    off += size;
                }
            }
            let full = if byval_offsets.is_empty() {
                *size
            } else {
                round_up(off, 16) as usize
            };
            (full, byval_offsets)
        });

        let mut builtins = HashMap::new();
        builtins.insert(BuiltIn::WorkgroupId, gid.to_vec());
        builtins.insert(BuiltIn::GlobalSize, gsz.to_vec());
        builtins.insert(BuiltIn::WorkgroupSize, lsz.to_vec());
        builtins.insert(BuiltIn::EnqueuedWorkgroupSize, enq.to_vec());
        builtins.insert(BuiltIn::NumWorkgroups, ngr.to_vec());
        builtins.insert(BuiltIn::GlobalOffset, goff.to_vec());
        builtins.insert(BuiltIn::WorkDim, vec![wdim]);

        // Region loops: one loop over the work-items per region.
        let loops = if starts.is_some() { rec_layout.take() } else { None };
        if let (Some(starts), Some((_, any, crossing, var_offsets, barriers, gslot))) = (&starts, loops) {
            let (full, byval_offsets) = record_layout.clone().unwrap_or_default();
            let mut byval = Vec::new();
            let mut byval_at = byval_offsets.into_iter();
            for ((pid, ty), v) in f.params.iter().zip(argvals) {
                match v {
                    ArgVal::Leaves(l) => t.def(*pid, *ty, l),
                    ArgVal::ByVal { src, size, .. } => byval.push((*pid, *ty, byval_at.next().unwrap_or(0), src, size)),
                }
            }
            let latch = t.b.create_block();
            t.group = Some(GroupTx {
                latch,
                spec_bail: None,
                builtins,
                regions: Some(RegionTx {
                    rec: spill,
                    any,
                    crossing,
                    var_offsets,
                    barriers,
                    gslot,
                    lockstep,
                    unchanged: Vec::new(),
                }),
            });
            let ids = GroupIds {
                lsz,
                gsz,
                gbase0,
                gbase,
            };
            let env = regions::RegionEnv {
                record: full,
                byval,
                wi_ids,
                spill,
                name: name.to_string(),
                order: order.clone(),
                uniform,
                defined: body
                    .blocks
                    .iter()
                    .flat_map(|b| &b.instructions)
                    .filter_map(|i| i.result_id)
                    .chain(f.params.iter().map(|(p, _)| *p).filter(|p| t.cx.byval.contains(p)))
                    .collect(),
            };
            t.region_loops(body, starts, &ids, &env)?;
            t.b.seal_all_blocks();
            let cfg = t.cx.jit.target_config();
            t.b.finalize(cfg);
            super::context::define(cx, fid, ctx, &format!("kernel {name}"))?;
            return Ok(GroupFn { fid, record_size: full });
        }

        // Loop nest: z, y, x (x innermost), each header with its counter as block parameter.
        let sweep = t.b.create_block();
        let zhead = t.b.create_block();
        let yhead = t.b.create_block();
        let xhead = t.b.create_block();
        let item = t.b.create_block();
        let latch = t.b.create_block();
        let ylatch = t.b.create_block();
        let zlatch = t.b.create_block();
        let done = t.b.create_block();
        let z = t.b.append_block_param(zhead, types::I64);
        let y = t.b.append_block_param(yhead, types::I64);
        let x = t.b.append_block_param(xhead, types::I64);
        // The global x id advances with x, so the innermost loop does no multiply for it; so
        // does the work-item's record in region mode.
        let gx = t.b.append_block_param(xhead, types::I64);
        let recp = record_layout
            .as_ref()
            .map(|_| t.b.append_block_param(xhead, types::I64));
        t.b.ins().jump(sweep, &[]);

        t.b.switch_to_block(sweep);
        if let Some((_, any, ..)) = &rec_layout {
            let z32 = t.b.ins().iconst(types::I32, 0);
            t.b.ins().stack_store(types::I64, z32, *any, 0);
        }
        t.b.ins().jump(zhead, &[BlockArg::Value(zero)]);

        t.b.switch_to_block(zhead);
        let c = t.b.ins().icmp(IntCC::UnsignedLessThan, z, lsz[2]);
        t.b.ins().brif(c, yhead, &[BlockArg::Value(zero)], done, &[]);

        t.b.switch_to_block(yhead);
        let c = t.b.ins().icmp(IntCC::UnsignedLessThan, y, lsz[1]);
        let mut xargs = vec![BlockArg::Value(zero), BlockArg::Value(gbase[0])];
        if let Some((full, _)) = &record_layout {
            // The record of work-item (0, y, z).
            let row = t.b.ins().imul(z, lsz[1]);
            let row = t.b.ins().iadd(row, y);
            let row = t.b.ins().imul(row, lsz[0]);
            let row = t.b.ins().imul_imm_s(row, *full as i64);
            xargs.push(BlockArg::Value(t.b.ins().iadd(spill, row)));
        }
        // With a vector plan, the row starts in the vector loop (four work-items per
        // iteration), which hands the rest of the row to the scalar loop.
        let vector = plan.as_ref().map(|_| {
            let vhead = t.b.create_block();
            let vx = t.b.append_block_param(vhead, types::I64);
            let vgx = t.b.append_block_param(vhead, types::I64);
            (vhead, vx, vgx)
        });
        match &vector {
            Some((vhead, ..)) => t.b.ins().brif(c, *vhead, &xargs, zlatch, &[]),
            None => t.b.ins().brif(c, xhead, &xargs, zlatch, &[]),
        };

        t.b.switch_to_block(xhead);
        let c = t.b.ins().icmp(IntCC::UnsignedLessThan, x, lsz[0]);
        t.b.ins().brif(c, item, &[], ylatch, &[]);

        // One work-item: its ids, then the kernel body (or the resume point).
        t.b.switch_to_block(item);
        let lid = [x, y, z];
        let gl = [gx, t.b.ins().iadd(gbase[1], y), t.b.ins().iadd(gbase[2], z)];
        let (lin, glin) = linear_ids(&mut t.b, lid, &lsz, &gsz, &gbase0);
        if wi_ids {
            for d in 0..3 {
                t.b.ins().store(flags, lid[d], wi, (drv::OFF_LOCAL_ID + 8 * d) as i32);
                t.b.ins().store(flags, gl[d], wi, (drv::OFF_GLOBAL_ID + 8 * d) as i32);
            }
            t.b.ins().store(flags, glin, wi, drv::OFF_GLOBAL_LINEAR_ID as i32);
            t.b.ins().store(flags, lin, wi, drv::OFF_LOCAL_LINEAR_ID as i32);
        }
        builtins.insert(BuiltIn::GlobalInvocationId, gl.to_vec());
        builtins.insert(BuiltIn::LocalInvocationId, lid.to_vec());
        builtins.insert(BuiltIn::GlobalLinearId, vec![glin]);
        builtins.insert(BuiltIn::LocalInvocationIndex, vec![lin]);

        let entry = t.blocks[&body.blocks[order[0]].label];
        let mut region_tx = None;
        let mut param_vals = Vec::new();
        match rec_layout {
            None => {
                for v in argvals {
                    param_vals.push(match v {
                        ArgVal::Leaves(l) => l,
                        ArgVal::ByVal { src, size, align } => {
                            vec![stack_copy(&mut t.b, t.cx.jit.target_config(), src, size, align)]
                        }
                    });
                }
                t.b.ins().jump(entry, &[]);
            }
            Some((_, any, crossing, var_offsets, barriers, gslot)) => {
                // By-value arguments: private copies in the record after the spill slots, made
                // when the item starts.
                let (full, byval_offsets) = record_layout.clone().unwrap_or_default();
                let rec = recp.unwrap_or(spill);
                let mut copies = Vec::new();
                let mut byval_at = byval_offsets.into_iter();
                for v in argvals {
                    param_vals.push(match v {
                        ArgVal::Leaves(l) => l,
                        ArgVal::ByVal { src, size, .. } => {
                            let at = byval_at.next().unwrap_or(0);
                            let dst = t.b.ins().iadd_imm_s(rec, at as i64);
                            copies.push((dst, src, size));
                            vec![dst]
                        }
                    });
                }
                let st = t.b.ins().load(types::I32, flags, rec, 0);
                let start = t.b.create_block();
                let mut sw = Switch::new();
                sw.set_entry(0, start);
                for bp in barriers.values() {
                    if let Some(cont) = bp.cont {
                        sw.set_entry(bp.state as u128, cont);
                    }
                }
                sw.emit(&mut t.b, st, latch);
                t.b.switch_to_block(start);
                for (dst, src, n) in copies {
                    copy_struct(&mut t.b, t.cx.jit.target_config(), dst, src, n);
                }
                t.b.ins().jump(entry, &[]);
                region_tx = Some((
                    full,
                    RegionTx {
                        rec,
                        any,
                        crossing,
                        var_offsets,
                        barriers,
                        gslot,
                        lockstep: false,
                        unchanged: Vec::new(),
                    },
                ));
            }
        }
        record_size = region_tx.as_ref().map(|(s, _)| *s).unwrap_or(0);
        for ((pid, ty), v) in f.params.iter().zip(param_vals) {
            t.def(*pid, *ty, v);
        }
        t.group = Some(GroupTx {
            latch,
            spec_bail: None,
            builtins,
            regions: region_tx.map(|(_, r)| r),
        });

        if let (Some(plan), Some((vhead, vx, vgx))) = (&plan, vector) {
            let scalar_vals = t.vals.clone();
            let scalar_builtins = t.group.as_ref().map(|g| g.builtins.clone()).unwrap_or_default();
            // The builtins of the vector's first work-item (x ids are affine in the lane).
            let vector_builtins = |t: &mut FnTx, vx: Value, vgx: Value| {
                let vlid = [vx, y, z];
                let vgl = [vgx, t.b.ins().iadd(gbase[1], y), t.b.ins().iadd(gbase[2], z)];
                let (vlin, vglin) = linear_ids(&mut t.b, vlid, &lsz, &gsz, &gbase0);
                let mut vb = scalar_builtins.clone();
                vb.insert(BuiltIn::GlobalInvocationId, vgl.to_vec());
                vb.insert(BuiltIn::LocalInvocationId, vlid.to_vec());
                vb.insert(BuiltIn::GlobalLinearId, vec![vglin]);
                vb.insert(BuiltIn::LocalInvocationIndex, vec![vlin]);
                if let Some(g) = t.group.as_mut() {
                    g.builtins = vb;
                }
            };
            // The speculating plan's body, then the one without the speculation that the
            // first goes on in (from the same work-item on) when its guard fails.
            let mut bodies = vec![(plan, quads, vhead, [vx, vgx])];
            if let Some((b, n)) = &unspeculated {
                let head = t.b.create_block();
                let at = [0; 2].map(|_| t.b.append_block_param(head, types::I64));
                bodies.push((b, *n, head, at));
            }
            let spec = bodies.get(1).map(|b| b.2);
            for (i, &(plan, quads, vhead, at)) in bodies.iter().enumerate() {
                if let Some(g) = t.group.as_mut() {
                    g.spec_bail = if i == 0 { spec } else { None };
                }
                t.b.switch_to_block(vhead);
                // The row's stages, each while the row has its span of work-items left, then the
                // next: sixteen-lane bodies (32 work-items: the body twice, the loop's own
                // instructions being most of a byte copy's; then 16 once), or two quads (8);
                // then four work-items at a time, then the scalar loop from x on.
                let stages: &[(i64, usize, bool)] = match quads {
                    4 => &[(simd::WIDE, 2, true), (simd::WIDE, 1, false), (simd::LANES, 1, true)],
                    2 => &[(2 * simd::LANES, 1, true), (simd::LANES, 1, true)],
                    _ => &[(simd::LANES, 1, true)],
                };
                let (mut head, mut at) = (vhead, at);
                for (k, &(span, times, again)) in stages.iter().enumerate() {
                    let last = k + 1 == stages.len();
                    let next = if last { xhead } else { t.b.create_block() };
                    let params = if last {
                        at
                    } else {
                        [0; 2].map(|_| t.b.append_block_param(next, types::I64))
                    };
                    let vitem = t.b.create_block();
                    let end = t.b.ins().iadd_imm_s(at[0], span * times as i64);
                    let c = t.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, lsz[0]);
                    t.b.ins().brif(c, vitem, &[], next, &at.map(BlockArg::Value));
                    t.b.switch_to_block(vitem);
                    let mut h = at;
                    for _ in 0..times {
                        t.vals = scalar_vals.clone();
                        vector_builtins(&mut t, h[0], h[1]);
                        let rest = h.map(BlockArg::Value);
                        match span {
                            simd::WIDE => t.simd_body16(plan, xhead, &rest)?,
                            s if s == 2 * simd::LANES => t.simd_body2(plan, xhead, &rest)?,
                            _ => {
                                t.simd_body(plan, xhead, &rest, simd::Vecs::default(), None)?;
                            }
                        }
                        h = h.map(|v| t.b.ins().iadd_imm_s(v, span));
                    }
                    t.b.ins().jump(if again { head } else { next }, &h.map(BlockArg::Value));
                    t.vals = scalar_vals.clone();
                    if !last {
                        t.b.switch_to_block(next);
                    }
                    (head, at) = (next, params);
                }
            }
            if let Some(g) = t.group.as_mut() {
                g.builtins = scalar_builtins;
                g.spec_bail = None;
            }
            // The scalar body defines every value again; the arguments stay.
            t.vals = scalar_vals;
        }

        t.translate_blocks(body, &order)?;

        t.b.switch_to_block(latch);
        let x1 = t.b.ins().iadd_imm_s(x, 1);
        let gx1 = t.b.ins().iadd_imm_s(gx, 1);
        let mut next = vec![BlockArg::Value(x1), BlockArg::Value(gx1)];
        if let (Some(r), Some((full, _))) = (recp, &record_layout) {
            next.push(BlockArg::Value(t.b.ins().iadd_imm_s(r, *full as i64)));
        }
        t.b.ins().jump(xhead, &next);
        t.b.switch_to_block(ylatch);
        let y1 = t.b.ins().iadd_imm_s(y, 1);
        t.b.ins().jump(yhead, &[BlockArg::Value(y1)]);
        t.b.switch_to_block(zlatch);
        let z1 = t.b.ins().iadd_imm_s(z, 1);
        t.b.ins().jump(zhead, &[BlockArg::Value(z1)]);
        t.b.switch_to_block(done);
        match t.group.as_ref().and_then(|g| g.regions.as_ref()) {
            Some(r) => {
                let any = t.b.ins().stack_load(types::I64, types::I32, r.any, 0);
                let exit = t.b.create_block();
                t.b.ins().brif(any, sweep, &[], exit, &[]);
                t.b.switch_to_block(exit);
                t.b.ins().return_(&[]);
            }
            None => {
                t.b.ins().return_(&[]);
            }
        }
        t.b.seal_all_blocks();
        let cfg = t.cx.jit.target_config();
        t.b.finalize(cfg);
    }
    super::context::define(cx, fid, ctx, &format!("kernel {name}"))?;
    Ok(GroupFn { fid, record_size })
}

impl FnTx<'_, '_, '_> {
    /// The work-item returns: mark it finished and go on to the next one.
    pub fn finish_item(&mut self) -> R<bool> {
        let Some(g) = &self.group else { return Ok(false) };
        let latch = g.latch;
        if let Some(r) = g.regions.as_ref().filter(|r| !r.lockstep) {
            let rec = r.rec;
            let d = self.b.ins().iconst(types::I32, STATE_DONE as i64);
            self.b.ins().store(MemFlagsData::trusted(), d, rec, 0);
        }
        self.b.ins().jump(latch, &[]);
        Ok(true)
    }

    /// A barrier in region mode: save the live values, record the resume point, go on to the
    /// next work-item; translation continues in the resume block, which reloads them.
    pub fn yield_at_barrier(&mut self) -> R<bool> {
        let Some(g) = &self.group else { return Ok(false) };
        let Some(r) = &g.regions else { return Ok(false) };
        let Some(bp) = r.barriers.get(&(self.cur_label, self.cur_inst)) else {
            return Ok(false);
        };
        let latch = g.latch;
        let (rec, any, state, cont, gslot) = (r.rec, r.any, bp.state, bp.cont, r.gslot);
        let lockstep = r.lockstep;
        // Region loops: a value the region never defines is still in its slot.
        let slots: Vec<Slot> = bp
            .slots
            .iter()
            .filter(|(v, ..)| cont.is_some() || !r.unchanged.contains(v))
            .copied()
            .collect();
        let restored = bp.slots.clone();
        let uslots = bp.uslots.clone();
        let remat = bp.remat.clone();
        // Every work-item of the group runs on this thread: program order is all the ordering
        // a barrier needs here.
        let flags = MemFlagsData::trusted();
        self.save_slots(rec, &slots);
        if let Some(gs) = gslot {
            for (var, off, _) in &uslots {
                let v = self.b.use_var(*var);
                self.b.ins().stack_store(types::I64, v, gs, *off);
            }
        }
        let s = self.b.ins().iconst(types::I32, state as i64);
        if !lockstep {
            self.b.ins().store(flags, s, rec, 0);
        }
        // Region loops: the next region is this barrier's (`any` holds it); the single sweep
        // loop only notes that some work-item yielded.
        let mark = if cont.is_none() {
            s
        } else {
            self.b.ins().iconst(types::I32, 1)
        };
        self.b.ins().stack_store(types::I64, mark, any, 0);
        self.b.ins().jump(latch, &[]);
        let Some(cont) = cont else { return Ok(true) };
        self.b.switch_to_block(cont);
        self.restore_slots(rec, &restored);
        for inst in &remat {
            self.inst(inst)?;
        }
        Ok(true)
    }

    /// The value of a builtin variable loaded directly (`ptr` is the variable).
    pub fn builtin_load(&self, ptr: Id, ty: Id) -> R<Option<Vec<Value>>> {
        let Some(g) = &self.group else { return Ok(None) };
        if !matches!(self.cx.globals.get(&ptr), Some((_, StorageClass::Input))) {
            return Ok(None);
        }
        let Some(bi) = self.cx.builtins.get(&ptr) else {
            return Ok(None);
        };
        let Some(v) = g.builtins.get(bi) else { return Ok(None) };
        if !direct_builtin(self.cx, ptr, ty) {
            return Ok(None);
        }
        let n = self.cx.layout.get(ty)?.leaves.len();
        Ok(v.get(..n).map(|v| v.to_vec()))
    }

    /// Address of a memory-resident Function variable in region mode (its place in the
    /// work-item's record).
    pub fn region_var_addr(&mut self, id: Id) -> Option<Value> {
        let r = self.group.as_ref()?.regions.as_ref()?;
        let off = *r.var_offsets.get(&id)?;
        let rec = r.rec;
        Some(self.b.ins().iadd_imm_s(rec, off as i64))
    }
}
