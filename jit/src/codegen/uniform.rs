//! Uniformity (divergence analysis): which values of a kernel body are the same for every
//! work-item of a work-group.
//!
//! A value is *divergent* when it may differ between work-items: the local and global ids,
//! anything read from memory (another work-item may have stored in between), private
//! addresses, call and atomic results, and whatever is computed from a divergent value. Control
//! flow adds two more sources:
//! - a phi where paths from a divergent branch meet again (its immediate post-dominator or an
//!   earlier join) merges values from different work-items' paths;
//! - a value defined in a loop that a divergent branch leaves is divergent after the loop, as
//!   work-items leave after different numbers of iterations (it is marked divergent
//!   everywhere).
//!
//! Everything else is uniform: constants, kernel arguments (but a by-value struct, which is
//! each work-item's private copy), the group's ids and sizes, and pure
//! arithmetic on uniform values. The work-group function keeps uniform values live across a
//! barrier once per group instead of once per work-item.

use super::context::Ctx;
use super::layout::{Id, Ty};
use super::translate::successor_blocks;
use crate::spirv::module::Function;
use crate::spirv::Instruction;
use cranelift_codegen::ir::types;
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, StorageClass};
use std::collections::{HashMap, HashSet};

/// Largest body (blocks) analysed; bigger ones are treated as wholly divergent.
const MAX_BLOCKS: usize = 1024;

/// The uniform instruction results of body `f` (`order`: its reachable blocks, entry first).
pub(crate) fn uniform_values(cx: &Ctx, f: &Function, order: &[usize]) -> HashSet<Id> {
    let n = order.len();
    if n == 0 || n > MAX_BLOCKS {
        return HashSet::new();
    }
    let pos: HashMap<Id, usize> = order
        .iter()
        .enumerate()
        .map(|(i, &bi)| (f.blocks[bi].label, i))
        .collect();
    let term = |p: usize| f.blocks[order[p]].instructions.last();
    let succ: Vec<Vec<usize>> = order
        .iter()
        .map(|&bi| {
            let mut s = successor_blocks(&f.blocks[bi], &pos);
            s.dedup();
            s
        })
        .collect();
    let ipdom = immediate_post_dominators(&succ);
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (p, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(p);
        }
    }
    // Types of results and parameters, to see pointer operands.
    let mut tys: HashMap<Id, Id> = f.params.iter().copied().collect();
    for &bi in order {
        for inst in &f.blocks[bi].instructions {
            if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                tys.insert(r, t);
            }
        }
    }
    let is_ptr = |id: &Id| {
        tys.get(id)
            .or_else(|| cx.m.constant(*id).map(|c| &c.ty))
            .and_then(|t| cx.layout.get(*t).ok())
            .is_some_and(|i| matches!(i.ty, Ty::Pointer(..)))
            || cx.globals.contains_key(id)
    };

    // Results divergent whatever their operands.
    let mut divergent: HashSet<Id> = order
        .iter()
        .flat_map(|&bi| &f.blocks[bi].instructions)
        .filter(|inst| always_divergent(cx, inst, &is_ptr))
        .filter_map(|inst| inst.result_id)
        .collect();
    // A by-value argument is each work-item's private copy.
    divergent.extend(f.params.iter().map(|(p, _)| *p).filter(|p| cx.byval.contains(p)));
    // Blocks whose phis merge divergent paths, and blocks whose every value is divergent.
    let mut join = vec![false; n];
    let mut whole = vec![false; n];
    let mut done_branch = vec![false; n];
    loop {
        let mut changed = false;
        for (p, &bi) in order.iter().enumerate() {
            for inst in &f.blocks[bi].instructions {
                let Some(r) = inst.result_id else { continue };
                if divergent.contains(&r) {
                    continue;
                }
                let div = whole[p]
                    || (inst.opcode == Op::Phi && join[p])
                    || inst
                        .operands
                        .iter()
                        .any(|o| matches!(o, Operand::IdRef(x) if divergent.contains(x)));
                if div {
                    divergent.insert(r);
                    changed = true;
                }
            }
        }
        // Branches on divergent conditions.
        for p in 0..n {
            if done_branch[p] || succ[p].len() < 2 {
                continue;
            }
            let Some(t) = term(p) else { continue };
            let cond = match (t.opcode, t.operands.first()) {
                (Op::BranchConditional | Op::Switch, Some(Operand::IdRef(c))) => *c,
                _ => continue,
            };
            if !divergent.contains(&cond) {
                continue;
            }
            done_branch[p] = true;
            changed = true;
            let stop = ipdom[p];
            // Blocks each successor reaches before the paths meet again (the stop block
            // included): reached from two successors, a block's phis merge divergent paths.
            let mut seen_by = vec![0usize; n];
            for &s in &succ[p] {
                for b in reach(&succ, s, stop) {
                    seen_by[b] += 1;
                }
            }
            for b in 0..n {
                if seen_by[b] >= 2 {
                    join[b] = true;
                }
            }
            // A loop this branch may leave: blocks on a cycle through the branch that avoids
            // the stop block.
            let fwd: HashSet<usize> = succ[p].iter().flat_map(|&s| reach(&succ, s, stop)).collect();
            let back: HashSet<usize> = reach(&pred, p, stop).into_iter().collect();
            for b in fwd.intersection(&back) {
                if Some(*b) != stop {
                    whole[*b] = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = HashSet::new();
    for &bi in order {
        for inst in &f.blocks[bi].instructions {
            if let Some(r) = inst.result_id {
                if !divergent.contains(&r) {
                    out.insert(r);
                }
            }
        }
    }
    out
}

/// Whether every barrier of body `f` (`order`: its reachable blocks, entry first) lies in
/// uniform control flow: no branch on a divergent condition (`uniform`: the uniform values, see
/// [`uniform_values`]) reaches a barrier before its paths meet again (its immediate
/// post-dominator; a branch with none, such as one whose arm returns, reaches everything after
/// it). Then the barriers a work-item passes, and in which order, depend on uniform values
/// only: every work-item of the group is at the same barrier whenever one is, and the region
/// loops need not keep nor test each work-item's state ("lockstep"). Bodies too big to analyse
/// are not.
pub(crate) fn barriers_in_uniform_flow(
    f: &Function,
    order: &[usize],
    uniform: &HashSet<Id>,
    is_barrier: &dyn Fn(&Instruction) -> bool,
) -> bool {
    let n = order.len();
    if n == 0 || n > MAX_BLOCKS {
        return false;
    }
    let pos: HashMap<Id, usize> = order
        .iter()
        .enumerate()
        .map(|(i, &bi)| (f.blocks[bi].label, i))
        .collect();
    let succ: Vec<Vec<usize>> = order
        .iter()
        .map(|&bi| {
            let mut s = successor_blocks(&f.blocks[bi], &pos);
            s.dedup();
            s
        })
        .collect();
    let defined: HashSet<Id> = order
        .iter()
        .flat_map(|&bi| &f.blocks[bi].instructions)
        .filter_map(|i| i.result_id)
        .collect();
    // A condition is divergent when the body computes it and it is not uniform (constants
    // and kernel arguments are uniform).
    let divergent = |c: &Id| defined.contains(c) && !uniform.contains(c);
    let has_barrier: Vec<bool> = order
        .iter()
        .map(|&bi| f.blocks[bi].instructions.iter().any(is_barrier))
        .collect();
    if !has_barrier.iter().any(|b| *b) {
        return true;
    }
    // Calls may hold barriers of their own; only straight kernel bodies are judged.
    if order
        .iter()
        .flat_map(|&bi| &f.blocks[bi].instructions)
        .any(|i| i.opcode == Op::FunctionCall)
    {
        return false;
    }
    let ipdom = immediate_post_dominators(&succ);
    for p in 0..n {
        if succ[p].len() < 2 {
            continue;
        }
        let Some(t) = f.blocks[order[p]].instructions.last() else {
            continue;
        };
        let cond = match (t.opcode, t.operands.first()) {
            (Op::BranchConditional | Op::Switch, Some(Operand::IdRef(c))) => *c,
            _ => return false,
        };
        if !divergent(&cond) {
            continue;
        }
        let stop = ipdom[p];
        for &s in &succ[p] {
            if reach(&succ, s, stop)
                .into_iter()
                .any(|b| Some(b) != stop && has_barrier[b])
            {
                return false;
            }
        }
    }
    true
}

/// Whether `inst`'s result may differ between work-items whatever its operands.
fn always_divergent(cx: &Ctx, inst: &Instruction, is_ptr: &dyn Fn(&Id) -> bool) -> bool {
    use Op::*;
    match inst.opcode {
        Load => {
            // The group's own ids and sizes are uniform; anything read from memory is not.
            let uniform_builtin = match (inst.operands.first(), inst.result_type) {
                (Some(Operand::IdRef(p)), Some(ty)) if direct_builtin(cx, *p, ty) => matches!(
                    cx.builtins.get(p),
                    Some(
                        BuiltIn::WorkgroupId
                            | BuiltIn::GlobalSize
                            | BuiltIn::WorkgroupSize
                            | BuiltIn::EnqueuedWorkgroupSize
                            | BuiltIn::NumWorkgroups
                            | BuiltIn::GlobalOffset
                            | BuiltIn::WorkDim
                    )
                ),
                _ => false,
            };
            !uniform_builtin
        }
        // Math on values is pure; an operand that is a pointer means memory is read or
        // written (vloadn, the pointer outputs of frexp, printf...).
        // Work-group collectives (`collective`): scans differ per work-item, and every
        // work-item must run its own `get`.
        ExtInst if super::collective::is_collective(cx, inst) => true,
        // Pipes (`pipe`): every call reserves, reads or writes packets of its own.
        ExtInst if super::pipe::is_pipe_ext(cx, inst) => true,
        op if super::pipe::is_pipe_op(op) => true,
        ExtInst => inst
            .operands
            .iter()
            .skip(2)
            .any(|o| matches!(o, Operand::IdRef(x) if is_ptr(x))),
        Variable
        | FunctionCall
        | GroupAsyncCopy
        | GroupWaitEvents
        | ImageRead
        | ImageSampleExplicitLod
        | ImageFetch
        | ImageGather
        | ImageSampleImplicitLod => true,
        op => {
            let name = format!("{op:?}");
            name.starts_with("Atomic") || name.starts_with("Group") || name.starts_with("Subgroup")
        }
    }
}

/// Blocks reachable from `from` (included) without going past `stop` (included when reached).
fn reach(succ: &[Vec<usize>], from: usize, stop: Option<usize>) -> Vec<usize> {
    let mut seen = vec![false; succ.len()];
    let mut out = Vec::new();
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(b) = stack.pop() {
        out.push(b);
        if Some(b) == stop {
            continue;
        }
        for &s in &succ[b] {
            if !seen[s] {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    out
}

/// The immediate post-dominator of each block (`None`: the exit, or no path to an exit).
fn immediate_post_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    let words = (n + 1).div_ceil(64);
    let exit = n;
    let full = vec![u64::MAX; words];
    // pdom[b]: the blocks that post-dominate b (the virtual exit is node n).
    let mut pdom: Vec<Vec<u64>> = vec![full; n + 1];
    pdom[exit] = vec![0; words];
    pdom[exit][exit / 64] |= 1 << (exit % 64);
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut set = vec![u64::MAX; words];
            let exits: &[usize] = &[exit];
            let ss: &[usize] = if succ[b].is_empty() { exits } else { &succ[b] };
            for &s in ss {
                for (w, x) in set.iter_mut().zip(&pdom[s]) {
                    *w &= x;
                }
            }
            set[b / 64] |= 1 << (b % 64);
            if set != pdom[b] {
                pdom[b] = set;
                changed = true;
            }
        }
    }
    let has = |set: &[u64], i: usize| set[i / 64] & (1 << (i % 64)) != 0;
    let count = |set: &[u64]| set.iter().map(|w| w.count_ones()).sum::<u32>();
    // Without a path to the exit a block's set stays full: no post-dominator is known.
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut stack = Vec::new();
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(b);
        }
        if ss.is_empty() {
            stack.push(b);
        }
    }
    let mut to_exit = vec![false; n];
    for &b in &stack {
        to_exit[b] = true;
    }
    while let Some(b) = stack.pop() {
        for &p in &pred[b] {
            if !to_exit[p] {
                to_exit[p] = true;
                stack.push(p);
            }
        }
    }
    (0..n)
        .map(|b| {
            if !to_exit[b] {
                return None;
            }
            // The strict post-dominators form a chain; the nearest has the most of them.
            (0..n)
                .filter(|&p| p != b && has(&pdom[b], p))
                .max_by_key(|&p| count(&pdom[p]))
        })
        .collect()
}

/// Whether a load of `ptr` (type `ty`) reads a builtin variable directly from the values the
/// work-item loops compute (see `FnTx::builtin_load`), not from the `WorkItem`.
pub(crate) fn direct_builtin(cx: &Ctx, ptr: Id, ty: Id) -> bool {
    if !matches!(cx.globals.get(&ptr), Some((_, StorageClass::Input))) {
        return false;
    }
    let Some(bi) = cx.builtins.get(&ptr) else { return false };
    let (want, n) = match bi {
        BuiltIn::GlobalInvocationId
        | BuiltIn::LocalInvocationId
        | BuiltIn::WorkgroupId
        | BuiltIn::GlobalSize
        | BuiltIn::WorkgroupSize
        | BuiltIn::EnqueuedWorkgroupSize
        | BuiltIn::NumWorkgroups
        | BuiltIn::GlobalOffset => (types::I64, 3),
        BuiltIn::GlobalLinearId | BuiltIn::LocalInvocationIndex => (types::I64, 1),
        BuiltIn::WorkDim => (types::I32, 1),
        _ => return false,
    };
    match cx.layout.get(ty) {
        Ok(info) => info.leaves.len() <= n && info.leaves.iter().all(|l| *l == want),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_dominators_of_a_diamond_in_a_loop() {
        // 0 -> 1; 1 -> 2, 3; 2 -> 3; 3 -> 1, 4; 4 exits.
        let succ = vec![vec![1], vec![2, 3], vec![3], vec![1, 4], vec![]];
        let ip = immediate_post_dominators(&succ);
        assert_eq!(ip, vec![Some(1), Some(3), Some(3), Some(4), None]);
    }

    #[test]
    fn an_endless_loop_has_no_post_dominator() {
        let succ = vec![vec![1], vec![1]];
        assert_eq!(immediate_post_dominators(&succ), vec![None, None]);
    }
}
