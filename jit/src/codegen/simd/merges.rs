//! Nested branches and their merge blocks, for the vector plan.
//!
//! Compilers end nested `if`s together: `if (a) { x(); if (b) y(); }` has one merge block
//! where the outer branch's skip edge, the inner branch's skip edge and the end of `y` meet,
//! with phis of three values. The vector plan keeps a branch whose arms touch memory as
//! markers around its arms (`Step::If` ... `Step::EndIf`, then its merge's phis), which needs
//! each branch to have a merge of its own with one value from each side. [`split_merges`]
//! gives it one: the inner branch's edges into the shared merge go through a new block whose
//! phis take the inner branch's values, and the shared merge's phis take that block's value
//! in their place. [`merge_of`] finds a branch's merge when its arms are more than one block.

use super::cfg::preds;
use crate::codegen::context::Ctx;
use crate::codegen::layout::Id;
use crate::codegen::translate::{is_barrier, successors};
use crate::spirv::module::{Block, Function};
use crate::spirv::Instruction;
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use std::collections::{HashMap, HashSet};

/// The arm of a branch from block `head` that starts at `root` and ends at `m`: the blocks
/// reachable from `root` before `m`, entered only from `head` (at `root`) and from each other,
/// without a barrier, a return or a way back to `head`. Gives them and those that jump to `m`
/// (in block order).
fn arm_to(
    cx: &Ctx,
    f: &Function,
    pr: &HashMap<Id, Vec<Id>>,
    root: Id,
    head: Id,
    m: Id,
) -> Option<(HashSet<Id>, Vec<Id>)> {
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut inside = HashSet::new();
    let mut stack = vec![root];
    while let Some(x) = stack.pop() {
        if x == m || !inside.insert(x) {
            continue;
        }
        if x == head || inside.len() > 256 {
            return None;
        }
        let b = &f.blocks[*index.get(&x)?];
        if b.instructions.iter().any(|i| is_barrier(cx, i)) {
            return None;
        }
        let next = successors(b.instructions.last()?);
        if next.is_empty() {
            return None;
        }
        stack.extend(next);
    }
    for x in &inside {
        let ps = pr.get(x)?;
        let ok = match *x == root {
            true => ps.iter().all(|p| *p == head),
            false => ps.iter().all(|p| inside.contains(p)),
        };
        if !ok {
            return None;
        }
    }
    let exits = f
        .blocks
        .iter()
        .filter(|b| inside.contains(&b.label))
        .filter(|b| b.instructions.last().is_some_and(|t| successors(t).contains(&m)))
        .map(|b| b.label)
        .collect();
    Some((inside, exits))
}

/// The merge of the two-way branch at the end of block `head` (targets `t`, `e`): the block
/// where its arms (each a region of blocks [`arm_to`] accepts, or the merge itself) end.
pub(super) fn merge_of(cx: &Ctx, f: &Function, head: Id, t: Id, e: Id) -> Option<Id> {
    let pr = preds(f);
    if t == e {
        return None;
    }
    if arm_to(cx, f, &pr, t, head, e).is_some() {
        return Some(e);
    }
    if arm_to(cx, f, &pr, e, head, t).is_some() {
        return Some(t);
    }
    // An if-else: the first block both arms reach, in block order.
    let reach = |root: Id| {
        let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
        let mut seen = HashSet::new();
        let mut stack = vec![root];
        while let Some(x) = stack.pop() {
            if seen.len() > 256 || !seen.insert(x) {
                continue;
            }
            if let Some(last) = index.get(&x).and_then(|&i| f.blocks[i].instructions.last()) {
                stack.extend(successors(last));
            }
        }
        seen
    };
    let (rt, re) = (reach(t), reach(e));
    f.blocks
        .iter()
        .map(|b| b.label)
        .filter(|m| rt.contains(m) && re.contains(m))
        .find(|&m| arm_to(cx, f, &pr, t, head, m).is_some() && arm_to(cx, f, &pr, e, head, m).is_some())
}

/// One branch whose merge block is shared with other edges gets a merge of its own (see the
/// module docs); `alloc` gives fresh ids. Whether it changed `f`.
pub(super) fn split_merges(cx: &Ctx, f: &mut Function, entry: Id, alloc: &mut dyn FnMut() -> Option<Id>) -> bool {
    let pr = preds(f);
    for bi in 0..f.blocks.len() {
        let b = &f.blocks[bi];
        let Some(term) = b.instructions.last() else { continue };
        if term.opcode != Op::BranchConditional || b.instructions.iter().any(|i| i.opcode == Op::LoopMerge) {
            continue;
        }
        let (Some(Operand::IdRef(t)), Some(Operand::IdRef(e))) = (term.operands.get(1), term.operands.get(2)) else {
            continue;
        };
        let (head, t, e) = (b.label, *t, *e);
        let Some(m) = merge_of(cx, f, head, t, e) else { continue };
        if m == entry || m == head {
            continue;
        }
        // The branch's edges into m: from head (a side that is m itself) and from its arms.
        let mut inner: Vec<Id> = Vec::new();
        for side in [t, e] {
            if side == m {
                inner.push(head);
            } else {
                match arm_to(cx, f, &pr, side, head, m) {
                    Some((_, exits)) => inner.extend(exits),
                    None => continue,
                }
            }
        }
        let into_m = pr.get(&m).map_or(0, Vec::len);
        if inner.len() < 2 || into_m <= inner.len() {
            continue;
        }
        let Some(mi) = f.blocks.iter().position(|x| x.label == m) else {
            continue;
        };
        // Every phi of m has a value for each of the branch's edges.
        let phis: Vec<Instruction> = f.blocks[mi]
            .instructions
            .iter()
            .filter(|i| i.opcode == Op::Phi)
            .cloned()
            .collect();
        let pick = |phi: &Instruction, pred: Id| {
            phi.operands.chunks(2).find_map(|pair| match pair {
                [Operand::IdRef(v), Operand::IdRef(p)] if *p == pred => Some(*v),
                _ => None,
            })
        };
        if phis.iter().any(|phi| inner.iter().any(|p| pick(phi, *p).is_none())) {
            continue;
        }
        let Some(own) = alloc() else { return false };
        let mut insts = Vec::new();
        let mut renamed = Vec::new();
        for phi in &phis {
            let Some(r) = alloc() else { return false };
            let mut operands = Vec::new();
            for p in &inner {
                operands.push(Operand::IdRef(pick(phi, *p).unwrap_or_default()));
                operands.push(Operand::IdRef(*p));
            }
            insts.push(Instruction {
                opcode: Op::Phi,
                result_type: phi.result_type,
                result_id: Some(r),
                operands,
                offset: phi.offset,
            });
            renamed.push(r);
        }
        insts.push(Instruction {
            opcode: Op::Branch,
            result_type: None,
            result_id: None,
            operands: vec![Operand::IdRef(m)],
            offset: term.offset,
        });
        // m's phis: the new block's value in place of the branch's edges'.
        for (inst, r) in f.blocks[mi]
            .instructions
            .iter_mut()
            .filter(|i| i.opcode == Op::Phi)
            .zip(renamed)
        {
            let mut kept: Vec<Operand> = Vec::new();
            for pair in inst.operands.chunks(2) {
                if !matches!(pair, [_, Operand::IdRef(p)] if inner.contains(p)) {
                    kept.extend(pair.iter().cloned());
                }
            }
            kept.push(Operand::IdRef(r));
            kept.push(Operand::IdRef(own));
            inst.operands = kept;
        }
        // The branch's edges into m go to the new block (its merge hint too).
        for blk in f.blocks.iter_mut().filter(|x| inner.contains(&x.label)) {
            for inst in blk.instructions.iter_mut() {
                let targets: &mut [Operand] = match inst.opcode {
                    Op::Branch | Op::BranchConditional | Op::SelectionMerge => &mut inst.operands,
                    _ => continue,
                };
                for o in targets.iter_mut() {
                    if matches!(o, Operand::IdRef(x) if *x == m) {
                        *o = Operand::IdRef(own);
                    }
                }
            }
        }
        f.blocks.push(Block {
            label: own,
            offset: f.blocks[mi].offset,
            instructions: insts,
        });
        return true;
    }
    false
}
