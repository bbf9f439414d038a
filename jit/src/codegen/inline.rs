//! Inlining of the functions that contain barriers into a kernel body, at the SPIR-V level, so
//! the region path sees every barrier of the kernel in one function.
//!
//! A call is replaced by the callee's blocks with fresh ids: the calling block is split after
//! the call, the callee's returns branch to the second half, whose OpPhi collects the returned
//! value. Decorations that the translator reads by result id (rounding mode, saturation) are
//! copied to the fresh ids.

use super::context::Ctx;
use super::layout::Id;
use crate::spirv::module::{Block, Function};
use crate::spirv::Instruction;
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use std::collections::{HashMap, HashSet};

/// Instructions the flattened body may grow to before the region path gives up (the fiber
/// fallback handles the kernel).
const MAX_INSTRUCTIONS: usize = 200_000;

/// Functions without barriers of at most this many instructions are inlined as well, while
/// the body stays under `SMALL_BUDGET` instructions.
const SMALL_FUNCTION: usize = 300;
const SMALL_BUDGET: usize = 20_000;

/// Functions called from one place only are inlined while the body stays under this many
/// instructions.
const ONCE_BUDGET: usize = 50_000;

/// Functions whose call graph contains a work-group barrier.
pub(crate) fn barrier_functions(cx: &Ctx) -> HashSet<Id> {
    let m = cx.m;
    let mut direct: HashSet<Id> = HashSet::new();
    let mut callers: HashMap<Id, Vec<Id>> = HashMap::new();
    for f in &m.functions {
        for blk in &f.blocks {
            for inst in &blk.instructions {
                match inst.opcode {
                    Op::ControlBarrier | Op::GroupWaitEvents => {
                        direct.insert(f.id);
                    }
                    Op::FunctionCall => {
                        if let Some(Operand::IdRef(c)) = inst.operands.first() {
                            callers.entry(*c).or_default().push(f.id);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    let mut out = HashSet::new();
    let mut stack: Vec<Id> = direct.into_iter().collect();
    while let Some(f) = stack.pop() {
        if out.insert(f) {
            if let Some(cs) = callers.get(&f) {
                stack.extend(cs.iter().copied());
            }
        }
    }
    out
}

/// The first id above every id of the module.
pub(crate) fn id_bound(cx: &Ctx) -> Id {
    let m = cx.m;
    let mut max = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    for inst in &m.instructions {
        if let Some(r) = inst.result_id {
            max = max.max(r.saturating_add(1));
        }
    }
    max
}

fn call_target(inst: &Instruction) -> Option<Id> {
    if inst.opcode != Op::FunctionCall {
        return None;
    }
    match inst.operands.first() {
        Some(Operand::IdRef(c)) => Some(*c),
        _ => None,
    }
}

fn size(f: &Function) -> usize {
    f.blocks.iter().map(|b| b.instructions.len()).sum()
}

fn rename_operand(op: &mut Operand, map: &HashMap<Id, Id>) {
    match op {
        Operand::IdRef(x) | Operand::IdScope(x) | Operand::IdMemorySemantics(x) => {
            if let Some(n) = map.get(x) {
                *x = *n;
            }
        }
        _ => {}
    }
}

/// `f` with every call to a function of `barrier_fns` inlined (and calls to small functions,
/// within a budget), or None when that is not possible for a function with barriers
/// (recursion, a declaration, or a body that grows too large).
pub(crate) fn flatten(cx: &mut Ctx, f: &Function, barrier_fns: &HashSet<Id>, next_id: &mut Id) -> Option<Function> {
    let m = cx.m;
    let mut out = f.clone();
    let mut total: usize = size(&out);
    // Functions called from one place only (a kernel's wrapper calling its body): inlining
    // them copies nothing.
    let mut sites: HashMap<Id, usize> = HashMap::new();
    for g in &m.functions {
        for inst in g.blocks.iter().flat_map(|b| &b.instructions) {
            if let Some(c) = call_target(inst) {
                *sites.entry(c).or_default() += 1;
            }
        }
    }
    let mut bi = 0;
    while bi < out.blocks.len() {
        // The next call to inline in this block.
        let mut found = None;
        for (i, inst) in out.blocks[bi].instructions.iter().enumerate() {
            let Some(c) = call_target(inst) else { continue };
            let callee = m.function(c)?;
            let must = barrier_fns.contains(&c);
            if must && (callee.is_declaration() || callee.id == f.id) {
                return None;
            }
            let n = size(callee);
            let once = sites.get(&c) == Some(&1) && total + n <= ONCE_BUDGET;
            if must || (!callee.is_declaration() && (once || n <= SMALL_FUNCTION && total + n <= SMALL_BUDGET)) {
                found = Some((i, callee));
                break;
            }
        }
        let Some((ci, callee)) = found else {
            bi += 1;
            continue;
        };
        let call = out.blocks[bi].instructions[ci].clone();
        total += size(callee) + 2;
        if total > MAX_INSTRUCTIONS {
            return None;
        }
        // Fresh ids for the callee's labels and results; parameters become the arguments.
        let mut map: HashMap<Id, Id> = HashMap::new();
        // Ids past the module's bound; a bound near u32::MAX leaves none, and then the call
        // stays a call.
        let mut fresh = |map: &mut HashMap<Id, Id>, old: Id| -> Option<Id> {
            let n = *next_id;
            *next_id = n.checked_add(1)?;
            map.insert(old, n);
            Some(n)
        };
        for (i, (pid, _)) in callee.params.iter().enumerate() {
            match call.operands.get(i + 1) {
                Some(Operand::IdRef(a)) => {
                    map.insert(*pid, *a);
                }
                _ => return None,
            }
        }
        for blk in &callee.blocks {
            fresh(&mut map, blk.label)?;
            for inst in &blk.instructions {
                if let Some(r) = inst.result_id {
                    let n = fresh(&mut map, r)?;
                    if let Some(v) = cx.rounding.get(&r).copied() {
                        cx.rounding.insert(n, v);
                    }
                    if cx.saturated.contains(&r) {
                        cx.saturated.insert(n);
                    }
                }
            }
        }
        let cont_label = {
            let n = *next_id;
            *next_id = n.checked_add(1)?;
            n
        };
        let blk = &mut out.blocks[bi];
        let old_label = blk.label;
        let tail: Vec<Instruction> = blk.instructions.split_off(ci + 1);
        blk.instructions.pop();
        let entry_label = map[&callee.blocks[0].label];
        blk.instructions.push(Instruction {
            opcode: Op::Branch,
            result_type: None,
            result_id: None,
            operands: vec![Operand::IdRef(entry_label)],
            offset: call.offset,
        });
        let mut returns: Vec<(Id, Id)> = Vec::new();
        let mut new_blocks = Vec::new();
        for cb in &callee.blocks {
            let label = map[&cb.label];
            let mut insts = Vec::with_capacity(cb.instructions.len());
            for inst in &cb.instructions {
                let mut ni = inst.clone();
                if let Some(r) = ni.result_id {
                    ni.result_id = map.get(&r).copied();
                }
                for op in &mut ni.operands {
                    rename_operand(op, &map);
                }
                match ni.opcode {
                    Op::Return | Op::ReturnValue => {
                        if let (Op::ReturnValue, Some(Operand::IdRef(v))) = (ni.opcode, ni.operands.first()) {
                            returns.push((*v, label));
                        }
                        ni = Instruction {
                            opcode: Op::Branch,
                            result_type: None,
                            result_id: None,
                            operands: vec![Operand::IdRef(cont_label)],
                            offset: inst.offset,
                        };
                    }
                    // Selection/loop merge hints may name the callee's blocks: keep them
                    // consistent (they are ignored by the translator).
                    _ => {}
                }
                insts.push(ni);
            }
            new_blocks.push(Block {
                label,
                offset: cb.offset,
                instructions: insts,
            });
        }
        // The continuation: the returned value as a phi, then the rest of the calling block.
        let mut cont = Vec::with_capacity(tail.len() + 1);
        let void = |ty: Id| matches!(cx.layout.get(ty).map(|i| &i.ty), Ok(super::layout::Ty::Void));
        if let (Some(r), Some(ty)) = (call.result_id, call.result_type) {
            if void(ty) {
                // Nothing to define.
            } else if !returns.is_empty() {
                let mut ops = Vec::new();
                for (v, l) in &returns {
                    ops.push(Operand::IdRef(*v));
                    ops.push(Operand::IdRef(*l));
                }
                cont.push(Instruction {
                    opcode: Op::Phi,
                    result_type: Some(ty),
                    result_id: Some(r),
                    operands: ops,
                    offset: call.offset,
                });
            } else {
                // The callee never returns a value: the result is undefined.
                cont.push(Instruction {
                    opcode: Op::Undef,
                    result_type: Some(ty),
                    result_id: Some(r),
                    operands: vec![],
                    offset: call.offset,
                });
            }
        }
        cont.extend(tail);
        // Phis of the calling block's successors now come from the continuation.
        for b in out.blocks.iter_mut() {
            for inst in b.instructions.iter_mut().filter(|i| i.opcode == Op::Phi) {
                let mut i = 1;
                while i < inst.operands.len() {
                    if inst.operands[i] == Operand::IdRef(old_label) {
                        inst.operands[i] = Operand::IdRef(cont_label);
                    }
                    i += 2;
                }
            }
        }
        out.blocks.extend(new_blocks);
        out.blocks.push(Block {
            label: cont_label,
            offset: call.offset,
            instructions: cont,
        });
        // The calling block now ends at the call; the inlined blocks and the continuation are
        // visited later.
        bi += 1;
    }
    Some(out)
}
