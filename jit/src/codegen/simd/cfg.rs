//! If-conversion of a kernel body's control flow before it is planned: what compilers leave
//! as branches or switches whose arms only compute (no memory access, nothing with an effect)
//! becomes straight-line code, so the vector plan sees a chain of blocks (and loops whose
//! bodies are one block).
//!
//! Three rewrites, repeated until none applies:
//! - a block that jumps unconditionally to a block with no other predecessor absorbs it (its
//!   phis, with one incoming value, become copies);
//! - a block ending in OpBranchConditional or OpSwitch whose every target is either an arm (a
//!   block of speculatable instructions whose only predecessor is this block, jumping to the
//!   merge) or the merge itself, the merge having no other predecessors, absorbs the arms and
//!   the merge: the arms' instructions run unconditionally and each phi of the merge becomes a
//!   select on the branch condition (a chain of selects on "selector equals case" for a
//!   switch, the default last);
//! - a branch whose merge block other edges share (nested `if`s ending together) gets a merge
//!   of its own (`merges`), which the second rewrite may then absorb.
//!
//! Blocks holding a barrier are never absorbed (the regions find their barriers by block and
//! index). The rewritten function is only planned: the scalar translation keeps the original.

use super::plan::speculatable;
use crate::codegen::context::Ctx;
use crate::codegen::layout::Id;
use crate::codegen::translate::is_barrier;
use crate::codegen::translate::successors;
use crate::spirv::module::{Function, Type};
use crate::spirv::Instruction;
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use std::collections::{HashMap, HashSet};

/// The opcode of "selector equals case literal" (operands: the selector, the literal), an
/// instruction only the vector plan knows: OpIEqual with a literal second operand.
pub(super) const CASE_EQ: Op = Op::IEqual;

/// Whether `inst` is a "selector equals case literal" test made here.
pub(super) fn is_case_eq(inst: &Instruction) -> bool {
    inst.opcode == CASE_EQ
        && matches!(
            inst.operands.get(1),
            Some(Operand::LiteralBit32(_) | Operand::LiteralBit64(_))
        )
}

/// `f` with its computing branches and switches if-converted (see the module docs); `entry`:
/// the label of the block the body starts at.
pub(super) fn simplify(cx: &Ctx, f: &Function, entry: Id) -> Function {
    let mut f = f.clone();
    let bool_ty = cx.m.types.iter().find(|t| matches!(t.ty, Type::Bool)).map(|t| t.id);
    // Fresh ids for the switch tests and the select chains: from the top of the id space
    // down, above every id of the function.
    let top = f
        .blocks
        .iter()
        .flat_map(|b| std::iter::once(b.label).chain(b.instructions.iter().filter_map(|i| i.result_id)))
        .max()
        .unwrap_or(0);
    let mut fresh = u32::MAX - 1;
    for _ in 0..10_000 {
        let changed = merge_chain(cx, &mut f, entry)
            || if_convert(cx, &mut f, entry, bool_ty, top, &mut fresh)
            || super::merges::split_merges(cx, &mut f, entry, &mut || {
                let n = fresh;
                (n > top).then(|| {
                    fresh -= 1;
                    n
                })
            });
        if !changed {
            break;
        }
    }
    f
}

/// Predecessor labels of each block (one entry per edge).
pub(super) fn preds(f: &Function) -> HashMap<Id, Vec<Id>> {
    let mut p: HashMap<Id, Vec<Id>> = HashMap::new();
    for b in &f.blocks {
        if let Some(t) = b.instructions.last() {
            for s in successors(t) {
                p.entry(s).or_default().push(b.label);
            }
        }
    }
    p
}

fn has_barrier(cx: &Ctx, insts: &[Instruction]) -> bool {
    insts.iter().any(|i| is_barrier(cx, i))
}

/// Renames predecessor `from` to `to` in every phi of `f`.
fn rename_pred(f: &mut Function, from: Id, to: Id) {
    for b in &mut f.blocks {
        for inst in b.instructions.iter_mut().filter(|i| i.opcode == Op::Phi) {
            for pair in inst.operands.chunks_mut(2) {
                if let [_, Operand::IdRef(p)] = pair {
                    if *p == from {
                        *p = to;
                    }
                }
            }
        }
    }
}

fn is_hint(inst: &Instruction) -> bool {
    matches!(inst.opcode, Op::SelectionMerge | Op::LoopMerge)
}

/// One block that jumps to a block with no other predecessor absorbs it.
fn merge_chain(cx: &Ctx, f: &mut Function, entry: Id) -> bool {
    let pr = preds(f);
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    for xi in 0..f.blocks.len() {
        let x = &f.blocks[xi];
        let Some(last) = x.instructions.last() else { continue };
        if last.opcode != Op::Branch {
            continue;
        }
        let Some(Operand::IdRef(y)) = last.operands.first() else {
            continue;
        };
        let y = *y;
        if y == x.label || y == entry || pr.get(&y).map(Vec::as_slice) != Some(&[x.label]) {
            continue;
        }
        if x.instructions.iter().any(|i| i.opcode == Op::LoopMerge) {
            continue;
        }
        let Some(&yi) = index.get(&y) else { continue };
        if has_barrier(cx, &f.blocks[yi].instructions) {
            continue;
        }
        let ys = f.blocks[yi].instructions.clone();
        let mut moved = Vec::with_capacity(ys.len());
        for inst in ys {
            if inst.opcode == Op::Phi {
                // One incoming value (from x): a copy.
                let Some(Operand::IdRef(v)) = inst.operands.first() else {
                    return false;
                };
                moved.push(Instruction {
                    opcode: Op::CopyObject,
                    result_type: inst.result_type,
                    result_id: inst.result_id,
                    operands: vec![Operand::IdRef(*v)],
                    offset: inst.offset,
                });
            } else if !is_hint(&inst) {
                moved.push(inst);
            }
        }
        let xl = f.blocks[xi].label;
        let xb = &mut f.blocks[xi];
        xb.instructions.pop();
        xb.instructions.retain(|i| i.opcode != Op::SelectionMerge);
        xb.instructions.extend(moved);
        f.blocks.remove(yi);
        rename_pred(f, y, xl);
        return true;
    }
    false
}

/// One branch or switch whose arms only compute becomes straight-line code with selects.
fn if_convert(cx: &Ctx, f: &mut Function, entry: Id, bool_ty: Option<Id>, top: Id, fresh: &mut Id) -> bool {
    let pr = preds(f);
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    'blocks: for bi in 0..f.blocks.len() {
        let b = &f.blocks[bi];
        let Some(term) = b.instructions.last() else { continue };
        if b.instructions.iter().any(|i| i.opcode == Op::LoopMerge) {
            continue;
        }
        // (condition, [(case literal or None for the default / the true side, target)])
        let id = |k: usize| match term.operands.get(k) {
            Some(Operand::IdRef(x)) => Some(*x),
            _ => None,
        };
        let (cond, targets): (Id, Vec<(Option<Operand>, Id)>) = match term.opcode {
            Op::BranchConditional => match (id(0), id(1), id(2)) {
                (Some(c), Some(t), Some(e)) if t != e => (c, vec![(Some(Operand::LiteralBit32(1)), t), (None, e)]),
                _ => continue,
            },
            Op::Switch => {
                let (Some(s), Some(d)) = (id(0), id(1)) else { continue };
                let mut ts = Vec::new();
                for pair in term.operands[2..].chunks(2) {
                    match pair {
                        [lit @ (Operand::LiteralBit32(_) | Operand::LiteralBit64(_)), Operand::IdRef(l)] => {
                            ts.push((Some(lit.clone()), *l))
                        }
                        _ => continue 'blocks,
                    }
                }
                if ts.is_empty() || bool_ty.is_none() {
                    continue;
                }
                ts.push((None, d));
                (s, ts)
            }
            _ => continue,
        };
        // Each distinct target: an arm (its jump target is the merge) or the merge itself.
        let mut distinct: Vec<Id> = Vec::new();
        for (_, t) in &targets {
            if !distinct.contains(t) {
                distinct.push(*t);
            }
        }
        let arm_of = |x: Id| -> Option<Id> {
            let xb = &f.blocks[*index.get(&x)?];
            if x == b.label || x == entry {
                return None;
            }
            let ps: HashSet<Id> = pr.get(&x)?.iter().copied().collect();
            if ps.len() != 1 || !ps.contains(&b.label) {
                return None;
            }
            let (last, rest) = xb.instructions.split_last()?;
            if last.opcode != Op::Branch {
                return None;
            }
            let ok = rest
                .iter()
                .all(|i| !matches!(i.opcode, Op::Phi | Op::LoopMerge) && (is_hint(i) || speculatable(cx, i)));
            if !ok || has_barrier(cx, rest) {
                return None;
            }
            match last.operands.first() {
                Some(Operand::IdRef(m)) => Some(*m),
                _ => None,
            }
        };
        let mut arms: Vec<Id> = Vec::new();
        let mut merges: HashSet<Id> = HashSet::new();
        for x in &distinct {
            match arm_of(*x) {
                Some(mx) => {
                    arms.push(*x);
                    merges.insert(mx);
                }
                None => {
                    merges.insert(*x);
                }
            }
        }
        let (Some(&m), 1) = (merges.iter().next(), merges.len()) else {
            continue;
        };
        if arms.is_empty() || m == b.label || m == entry {
            continue;
        }
        let Some(&mi) = index.get(&m) else { continue };
        if has_barrier(cx, &f.blocks[mi].instructions) {
            continue;
        }
        let mut want: HashSet<Id> = arms.iter().copied().collect();
        if distinct.contains(&m) {
            want.insert(b.label);
        }
        let got: HashSet<Id> = pr.get(&m).map(|v| v.iter().copied().collect()).unwrap_or_default();
        if got != want {
            continue;
        }
        // The rewrite.
        let offset = term.offset;
        let bl = b.label;
        let mut out: Vec<Instruction> = b.instructions[..b.instructions.len() - 1]
            .iter()
            .filter(|i| !is_hint(i))
            .cloned()
            .collect();
        for a in &arms {
            let ab = &f.blocks[index[a]];
            out.extend(
                ab.instructions[..ab.instructions.len() - 1]
                    .iter()
                    .filter(|i| !is_hint(i))
                    .cloned(),
            );
        }
        // The predecessor of the merge on the way through target t.
        let via = |t: Id| if t == m { bl } else { t };
        let mut alloc = || -> Option<Id> {
            let n = *fresh;
            if n <= top {
                return None;
            }
            *fresh -= 1;
            Some(n)
        };
        // The tests of a switch's cases.
        let mut tests: Vec<Id> = Vec::new();
        if term.opcode == Op::Switch {
            for (lit, _) in &targets[..targets.len() - 1] {
                let (Some(r), Some(lit)) = (alloc(), lit.clone()) else {
                    return false;
                };
                out.push(Instruction {
                    opcode: CASE_EQ,
                    result_type: bool_ty,
                    result_id: Some(r),
                    operands: vec![Operand::IdRef(cond), lit],
                    offset,
                });
                tests.push(r);
            }
        }
        let mb = f.blocks[mi].instructions.clone();
        for phi in mb.iter().filter(|i| i.opcode == Op::Phi) {
            let pick = |pred: Id| {
                phi.operands.chunks(2).find_map(|pair| match pair {
                    [Operand::IdRef(v), Operand::IdRef(p)] if *p == pred => Some(*v),
                    _ => None,
                })
            };
            let mut vals = Vec::new();
            for (_, t) in &targets {
                match pick(via(*t)) {
                    Some(v) => vals.push(v),
                    None => return false,
                }
            }
            let select = |c: Id, x: Id, y: Id, r: Id| Instruction {
                opcode: Op::Select,
                result_type: phi.result_type,
                result_id: Some(r),
                operands: vec![Operand::IdRef(c), Operand::IdRef(x), Operand::IdRef(y)],
                offset: phi.offset,
            };
            let Some(res) = phi.result_id else { return false };
            if term.opcode == Op::BranchConditional {
                out.push(select(cond, vals[0], vals[1], res));
            } else {
                // The default's value, then each case's over it from the last case to the
                // first (the first matching case wins, as only one can match).
                let mut acc = vals[vals.len() - 1];
                let n = tests.len();
                for k in (0..n).rev() {
                    let r = if k == 0 {
                        res
                    } else {
                        match alloc() {
                            Some(r) => r,
                            None => return false,
                        }
                    };
                    out.push(select(tests[k], vals[k], acc, r));
                    acc = r;
                }
            }
        }
        out.extend(mb.into_iter().filter(|i| i.opcode != Op::Phi && !is_hint(i)));
        f.blocks[bi].instructions = out;
        let mut gone: Vec<Id> = arms.clone();
        gone.push(m);
        f.blocks.retain(|x| !gone.contains(&x.label));
        rename_pred(f, m, bl);
        return true;
    }
    false
}
