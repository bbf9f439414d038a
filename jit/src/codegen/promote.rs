//! Memory at loop-invariant addresses held in registers while a loop with atomics runs, when
//! no other thread runs beside the work-group (scalar promotion, versioned at run time).
//!
//! LLVM keeps every access of a loop like `for (...) old[tid] = atomic_exchange(&dest[0],
//! old[tid])` in memory: an atomic may be observed by other threads, and `old` may alias
//! `dest`. So each iteration's value goes through memory, and the loop runs at the speed of
//! store-to-load forwarding (about 7 cycles an iteration; the Khronos CTS's c11_atomics loops
//! 10,000 times in each of 1,024 work-items of a group, in about 17,000 cases).
//!
//! When the command is alone (`WorkItem::alone`: one work-group, or groups run one after the
//! other on one thread), every atomic of the kernel below `memory_scope_all_svm_devices`
//! already runs as a plain load and store (`atomics`; at that scope, only when the command
//! also reaches no memory host threads use while it runs, `WorkGroupContext::host_shared`),
//! and nothing can observe the loop's memory between two of the work-item's own accesses
//! without a data race: no other work-group runs, a host thread takes part only in atomics of
//! that scope, and the work-items of the group switch only at barriers
//! (a loop with a barrier, a call or a collective is not taken) or, in fiber kernels, at the
//! back-edges of potential spin loops (fiber kernels are not transformed: only work-item and
//! region loops, `module`). The loop may then run on copies: each location it accesses is
//! loaded into a Function variable (an SSA value, `translate::promotable`) before the loop,
//! the loop's loads, stores and atomics work on the variable, and every location the loop
//! stores is written back on each way out of the loop.
//!
//! The original loop stays for every other case: a dispatch block before it takes the copy
//! only when the command is alone (an OpUndef the translator reads as that flag,
//! `Ctx::alone_oracles`; for a loop with an atomic at `memory_scope_all_svm_devices` also
//! without memory host threads may use, as `atomics` asks) and the promoted pointers that may
//! alias (same storage class, or one generic) differ pairwise. They all have the same size, and OpenCL C aligns every data item
//! to its size (OpenCL C 3.0, 6.3.5), so different pointers mean disjoint locations.
//!
//! A loop is taken when:
//! - it is a natural loop with no loop inside it and one block outside that enters it;
//! - it has an atomic (without one, LLVM has kept in memory only what may alias);
//! - every load, store and atomic in it goes through a pointer defined outside it, to an
//!   integer or floating-point scalar, none volatile; the atomics are loads, stores, exchanges,
//!   compare-exchanges, increments, decrements, integer add/sub/min/max/and/or/xor or float add;
//! - nothing else in it touches memory (no call, barrier, fence, copy, image write, pipe,
//!   group or sub-group operation, built-in with a pointer operand, return);
//! - every promoted location is accessed in the loop's header, which runs whenever the loop is
//!   entered, so loading it before the loop reads nothing the loop would not;
//! - a value of the loop used after it (other than by the phis of an exit's target) is defined
//!   in the header and the loop has a single exit target.
//!
//! `CLIFT_PROMOTE=0` turns the transformation off (part of the native-code cache key).

use super::context::Ctx;
use super::layout::{Scalar, Ty};
use crate::spirv::module::{Block, Function, Id, Type};
use crate::spirv::validate::is_atomic;
use crate::spirv::Instruction;
use rspirv::dr::Operand;
use rspirv::spirv::{MemoryAccess, Op, StorageClass};
use std::collections::{HashMap, HashSet};

/// Loops transformed per function at most.
const MAX_LOOPS: usize = 8;

/// Whether `CLIFT_PROMOTE` leaves the transformation on.
pub(crate) fn enabled() -> bool {
    !std::env::var("CLIFT_PROMOTE").is_ok_and(|v| v == "0")
}

/// One promoted location: the pointer, the pointee type, its storage class, whether the loop
/// writes it.
#[derive(Clone)]
struct Loc {
    /// The pointer the location is named by, through casts (`strip_casts`): accesses through
    /// casts of one pointer share its copy.
    root: Id,
    /// One pointer of the loop's accesses (all of one pointee type): loads and write-backs.
    ptr: Id,
    pointee: Id,
    storage: StorageClass,
    stored: bool,
}

/// A loop that can be transformed.
struct Candidate {
    header: usize,
    /// Block indices of the loop, in function order.
    body: Vec<usize>,
    /// The one block outside the loop that branches into it.
    pre: usize,
    locs: Vec<Loc>,
    /// Loop values used after the loop other than by the phis of its exits' targets, with
    /// their types: they leave through Function variables.
    escaping: Vec<(Id, Id)>,
    /// Whether the copy needs the command to be alone: it has an atomic that is not on local
    /// memory, or it may write back a location the original would not have written.
    needs_alone: bool,
    /// Whether an atomic of the loop is at `memory_scope_all_svm_devices`, where host threads
    /// take part: the copy then also needs the command to share no memory with them.
    cross_device: bool,
}

/// Transforms the loops of `f` that qualify (module docs); returns how many.
pub(crate) fn promote_loops(cx: &mut Ctx, f: &mut Function, next_id: &mut Id) -> usize {
    if !enabled() {
        return 0;
    }
    let Some(bool_ty) = cx.m.types.iter().find(|t| matches!(t.ty, Type::Bool)).map(|t| t.id) else {
        return 0;
    };
    let mut done: HashSet<Id> = HashSet::new();
    let mut n = 0;
    while n < MAX_LOOPS {
        let Some(c) = find(cx, f, &done) else { break };
        done.insert(f.blocks[c.header].label);
        apply(cx, f, c, bool_ty, next_id);
        n += 1;
    }
    n
}

/// The pointer type of a pointer value and its (storage class, pointee).
fn pointer_of(cx: &Ctx, f: &Function, defs: &HashMap<Id, (usize, &Instruction)>, p: Id) -> Option<(StorageClass, Id)> {
    if let Some((pointee, sc)) = cx.globals.get(&p) {
        return Some((*sc, *pointee));
    }
    let ty = match defs.get(&p) {
        Some((_, i)) => i.result_type?,
        None => f.params.iter().find(|(id, _)| *id == p)?.1,
    };
    match cx.layout.get(ty).ok()?.ty {
        Ty::Pointer(sc, pointee) => Some((sc, pointee)),
        _ => None,
    }
}

/// Whether `id` has a pointer type.
fn is_pointer(cx: &Ctx, f: &Function, defs: &HashMap<Id, (usize, &Instruction)>, id: Id) -> bool {
    pointer_of(cx, f, defs, id).is_some()
}

/// Instructions that may take pointer operands without touching memory.
fn pointer_arith(op: Op) -> bool {
    matches!(
        op,
        Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::Bitcast
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::GenericCastToPtrExplicit
            | Op::ConvertPtrToU
            | Op::PtrEqual
            | Op::PtrNotEqual
            | Op::PtrDiff
            | Op::Select
            | Op::Phi
            | Op::CopyObject
            | Op::LifetimeStart
            | Op::LifetimeStop
            | Op::GenericPtrMemSemantics
    )
}

/// Atomics the copy can compute on a plain value: all but the flag and float min/max ones.
fn promotable_atomic(op: Op) -> bool {
    is_atomic(op)
        && !matches!(
            op,
            Op::AtomicFlagTestAndSet | Op::AtomicFlagClear | Op::AtomicFMinEXT | Op::AtomicFMaxEXT
        )
}

/// Instructions that end a loop's analysis: they touch memory, synchronize or leave.
fn forbidden(op: Op) -> bool {
    let name = format!("{op:?}");
    name.starts_with("Group")
        || name.starts_with("Subgroup")
        || super::pipe::is_pipe_op(op)
        || matches!(
            op,
            Op::FunctionCall
                | Op::ControlBarrier
                | Op::MemoryBarrier
                | Op::CopyMemory
                | Op::CopyMemorySized
                | Op::Return
                | Op::ReturnValue
                | Op::Kill
                | Op::Unreachable
                | Op::TerminateInvocation
                | Op::ImageWrite
                | Op::AtomicFlagTestAndSet
                | Op::AtomicFlagClear
        )
}

fn volatile(inst: &Instruction) -> bool {
    inst.operands
        .iter()
        .any(|o| matches!(o, Operand::MemoryAccess(a) if a.contains(MemoryAccess::VOLATILE)))
}

fn may_alias(a: StorageClass, b: StorageClass) -> bool {
    a == b || a == StorageClass::Generic || b == StorageClass::Generic
}

/// The immediate dominator of each reachable block (the entry's is itself; unreachable
/// blocks: `usize::MAX`), by Cooper, Harvey and Kennedy's iteration over the reverse
/// post-order `order` (`pos`: each block's place in it).
fn immediate_dominators(order: &[usize], pos: &[usize], pred: &[Vec<usize>]) -> Vec<usize> {
    let mut idom = vec![usize::MAX; pos.len()];
    let Some(&entry) = order.first() else { return idom };
    idom[entry] = entry;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while pos[a] > pos[b] {
                a = idom[a];
            }
            while pos[b] > pos[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order[1..] {
            let mut new = usize::MAX;
            for &p in &pred[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX { p } else { intersect(&idom, p, new) };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Whether block `a` dominates block `b` (both reachable).
fn dominates(idom: &[usize], pos: &[usize], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        let up = idom[b];
        if up == usize::MAX || up == b || pos[up] == usize::MAX {
            return false;
        }
        b = up;
    }
}

/// Whether atomic `inst`'s scope (operand 1) is CrossDevice (`memory_scope_all_svm_devices`),
/// or not a constant.
fn cx_scope_is_cross_device(cx: &Ctx, inst: &Instruction) -> bool {
    match inst.operands.get(1) {
        Some(Operand::IdScope(s)) | Some(Operand::IdRef(s)) => !matches!(
            cx.m.constant(*s).map(|c| &c.value),
            Some(crate::spirv::module::ConstantValue::Scalar(v)) if *v != rspirv::spirv::Scope::CrossDevice as u64
        ),
        _ => true,
    }
}

/// Whether operand `k` of `inst` is a phi's value for an edge from the loop `body`.
fn exit_phi_operand(inst: &Instruction, k: usize, index: &HashMap<Id, usize>, body: &HashSet<usize>) -> bool {
    inst.opcode == Op::Phi
        && k.is_multiple_of(2)
        && matches!(inst.operands.get(k + 1), Some(Operand::IdRef(from)) if index.get(from).is_some_and(|b| body.contains(b)))
}

/// Every result of `f` with its defining instruction (block index unused: 0), as
/// `strip_casts` reads them.
fn definitions(f: &Function) -> HashMap<Id, (usize, &Instruction)> {
    f.blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter_map(|i| i.result_id.map(|r| (r, (0, i))))
        .collect()
}

/// Per location (index into `locs`): the result of the last non-volatile load of it in
/// `insts` (a block) after which no instruction may write memory.
fn last_loads(insts: &[Instruction], locs: &[Loc], defs: &HashMap<Id, (usize, &Instruction)>) -> HashMap<usize, Id> {
    let mut out = HashMap::new();
    for i in insts.iter().rev() {
        let writes = matches!(i.opcode, Op::Store | Op::ExtInst) || is_atomic(i.opcode) || forbidden(i.opcode);
        if writes {
            break;
        }
        let (Op::Load, Some(Operand::IdRef(p)), Some(r)) = (i.opcode, i.operands.first(), i.result_id) else {
            continue;
        };
        if volatile(i) {
            continue;
        }
        let root = strip_casts(*p, defs);
        if let Some(k) = locs
            .iter()
            .position(|l| l.root == root && i.result_type == Some(l.pointee))
        {
            out.entry(k).or_insert(r);
        }
    }
    out
}

/// The pointer `p` is a cast of (the same address), as far as the function shows.
fn strip_casts(mut p: Id, defs: &HashMap<Id, (usize, &Instruction)>) -> Id {
    for _ in 0..64 {
        let Some((_, i)) = defs.get(&p) else { return p };
        let cast = matches!(
            i.opcode,
            Op::Bitcast | Op::CopyObject | Op::PtrCastToGeneric | Op::GenericCastToPtr | Op::GenericCastToPtrExplicit
        );
        match i.operands.first() {
            Some(Operand::IdRef(q)) if cast => p = *q,
            _ => return p,
        }
    }
    p
}

fn find(cx: &Ctx, f: &Function, done: &HashSet<Id>) -> Option<Candidate> {
    let nb = f.blocks.len();
    let super::translate::Cfg {
        index,
        pred,
        order,
        pos,
        latches,
        ..
    } = super::translate::cfg(f);
    let idom = immediate_dominators(&order, &pos, &pred);
    let defs: HashMap<Id, (usize, &Instruction)> = f
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(bi, b)| b.instructions.iter().map(move |i| (bi, i)))
        .filter_map(|(bi, i)| i.result_id.map(|r| (r, (bi, i))))
        .collect();
    let mut headers: Vec<usize> = latches.keys().copied().collect();
    headers.sort_unstable();
    let trace = std::env::var_os("CLIFT_DUMP_CODE").is_some();
    'loops: for h in headers {
        if done.contains(&f.blocks[h].label) {
            continue;
        }
        // Says why a loop stays as it is (under CLIFT_DUMP_CODE), and goes to the next.
        macro_rules! reject {
            ($why:expr) => {{
                if trace {
                    eprintln!("promote: loop %{} kept in memory: {}", f.blocks[h].label, $why);
                }
                continue 'loops;
            }};
        }
        let mut body: HashSet<usize> = HashSet::from([h]);
        let mut work: Vec<usize> = latches[&h].clone();
        while let Some(b) = work.pop() {
            if body.insert(b) {
                work.extend(pred[b].iter().copied());
            }
        }
        // No loop inside, one way in.
        for (&other, ls) in &latches {
            if other != h && body.contains(&other) && ls.iter().any(|l| body.contains(l)) {
                reject!("a loop inside it");
            }
        }
        let outside: Vec<usize> = pred[h].iter().copied().filter(|p| !body.contains(p)).collect();
        let [pre] = outside[..] else { continue };
        if pred[h].iter().filter(|&&p| p == pre).count() != 1 {
            reject!("not one block entering it");
        }
        // The loop's memory.
        let mut locs: Vec<Loc> = Vec::new();
        let mut atomics = false;
        let mut shared_atomics = false;
        let mut cross_device = false;
        let mut sorted: Vec<usize> = body.iter().copied().collect();
        sorted.sort_unstable();
        for &b in &sorted {
            for inst in &f.blocks[b].instructions {
                let op = inst.opcode;
                if forbidden(op) {
                    reject!("an instruction that touches memory or synchronizes");
                }
                let mem = matches!(op, Op::Load | Op::Store) || is_atomic(op);
                if !mem {
                    if !pointer_arith(op) {
                        let takes_pointer = inst
                            .operands
                            .iter()
                            .any(|o| matches!(o, Operand::IdRef(x) if is_pointer(cx, f, &defs, *x)));
                        if takes_pointer {
                            reject!("an instruction with a pointer operand");
                        }
                    }
                    continue;
                }
                if is_atomic(op) && !promotable_atomic(op) {
                    reject!("an atomic without a plain form here");
                }
                if volatile(inst) {
                    reject!("a volatile access");
                }
                let Some(Operand::IdRef(p)) = inst.operands.first() else {
                    reject!("an access without a pointer")
                };
                let p = *p;
                if defs.get(&p).is_some_and(|(db, _)| body.contains(db)) {
                    reject!("an address computed in the loop");
                }
                let Some((_, pointee)) = pointer_of(cx, f, &defs, p) else {
                    reject!("an access through a non-pointer")
                };
                let root = strip_casts(p, &defs);
                let Some((sc, _)) = pointer_of(cx, f, &defs, root) else {
                    reject!("an unknown pointer")
                };
                match sc {
                    StorageClass::Input | StorageClass::UniformConstant if op == Op::Load => continue,
                    StorageClass::Workgroup
                    | StorageClass::CrossWorkgroup
                    | StorageClass::Generic
                    | StorageClass::Function => {}
                    _ => reject!("memory of another storage class"),
                }
                if !matches!(
                    cx.layout.get(pointee).map(|i| &i.ty),
                    Ok(Ty::Scalar(Scalar::Int(_) | Scalar::Float(_)))
                ) {
                    reject!("a pointee that is not an integer or float scalar");
                }
                atomics |= is_atomic(op);
                shared_atomics |= is_atomic(op) && sc != StorageClass::Workgroup;
                cross_device |= is_atomic(op) && cx_scope_is_cross_device(cx, inst);
                let stored = !matches!(op, Op::Load | Op::AtomicLoad);
                match locs.iter_mut().find(|l| l.root == root) {
                    Some(l) => {
                        if l.pointee != pointee {
                            reject!("one location accessed as two types");
                        }
                        l.stored |= stored;
                    }
                    None => locs.push(Loc {
                        root,
                        ptr: p,
                        pointee,
                        storage: sc,
                        stored,
                    }),
                }
            }
        }
        if !atomics || locs.is_empty() {
            continue;
        }
        // Locations that may alias have one size; each is accessed in the header.
        let size = |t: Id| cx.layout.get(t).map(|i| i.size).unwrap_or(0);
        for (i, a) in locs.iter().enumerate() {
            for b in &locs[i + 1..] {
                if may_alias(a.storage, b.storage) && size(a.pointee) != size(b.pointee) {
                    reject!("locations of two sizes that may alias");
                }
            }
            // Loaded before the loop: safe where the loop's header or a block that runs before
            // the loop whenever it does (dominates the block entering it) accesses it.
            let accessed_in = |b: usize| {
                f.blocks[b].instructions.iter().any(|inst| {
                    (matches!(inst.opcode, Op::Load | Op::Store) || is_atomic(inst.opcode))
                        && matches!(inst.operands.first(), Some(Operand::IdRef(q)) if strip_casts(*q, &defs) == a.root)
                })
            };
            let before = (0..nb).any(|b| {
                !body.contains(&b) && pos[b] != usize::MAX && dominates(&idom, &pos, b, pre) && accessed_in(b)
            });
            if !accessed_in(h) && !before {
                reject!("a location the loop may not access when entered");
            }
        }
        // A location the header writes is written whenever the loop runs: writing it back
        // stores what the original stored last.
        let written_in_header = |root: Id| {
            f.blocks[h].instructions.iter().any(|inst| {
                matches!(inst.operands.first(), Some(Operand::IdRef(q)) if strip_casts(*q, &defs) == root)
                    && (inst.opcode == Op::Store || (is_atomic(inst.opcode) && inst.opcode != Op::AtomicLoad))
            })
        };
        let needs_alone = shared_atomics || locs.iter().any(|l| l.stored && !written_in_header(l.root));
        // Values of the loop used after it, other than by the phis of its exits' targets.
        let defined_in: HashSet<Id> = sorted
            .iter()
            .flat_map(|&b| f.blocks[b].instructions.iter().filter_map(|i| i.result_id))
            .collect();
        let mut escaping: Vec<(Id, Id)> = Vec::new();
        for (bi, blk) in f.blocks.iter().enumerate() {
            if body.contains(&bi) {
                continue;
            }
            for inst in &blk.instructions {
                for (k, o) in inst.operands.iter().enumerate() {
                    let Operand::IdRef(x) = o else { continue };
                    if !defined_in.contains(x) || exit_phi_operand(inst, k, &index, &body) {
                        continue;
                    }
                    let Some(ty) = defs.get(x).and_then(|(_, i)| i.result_type) else {
                        reject!("a value without a type")
                    };
                    if !matches!(cx.layout.get(ty).map(|i| &i.ty), Ok(Ty::Scalar(_) | Ty::Vector(..))) {
                        reject!("a value used after the loop that is not a scalar or vector");
                    }
                    if !escaping.iter().any(|(e, _)| e == x) {
                        escaping.push((*x, ty));
                    }
                }
            }
        }
        if trace {
            eprintln!(
                "promote: loop %{}: {} location(s) held in registers{}",
                f.blocks[h].label,
                locs.len(),
                if needs_alone {
                    " when the command runs alone"
                } else {
                    ""
                }
            );
        }
        return Some(Candidate {
            header: h,
            body: sorted,
            pre,
            locs,
            escaping,
            needs_alone,
            cross_device,
        });
    }
    None
}

/// A fresh id.
fn fresh(next_id: &mut Id) -> Id {
    let id = *next_id;
    *next_id += 1;
    id
}

fn inst(opcode: Op, result_type: Option<Id>, result_id: Option<Id>, operands: Vec<Operand>) -> Instruction {
    Instruction {
        opcode,
        result_type,
        result_id,
        operands,
        offset: 0,
    }
}

/// The Function-storage pointer type to `pointee`: the module's, or a new id laid out here.
fn function_pointer(cx: &mut Ctx, pointee: Id, next_id: &mut Id) -> Id {
    let existing =
        cx.m.types
            .iter()
            .find(|t| matches!(t.ty, Type::Pointer { storage: StorageClass::Function, pointee: p } if p == pointee));
    if let Some(t) = existing {
        return t.id;
    }
    let id = fresh(next_id);
    cx.layout.add_pointer(id, StorageClass::Function, pointee);
    id
}

fn apply(cx: &mut Ctx, f: &mut Function, c: Candidate, bool_ty: Id, next_id: &mut Id) {
    let body: HashSet<usize> = c.body.iter().copied().collect();
    let label_of = |i: usize, f: &Function| f.blocks[i].label;
    let header_label = label_of(c.header, f);
    let pre_label = label_of(c.pre, f);

    // Fresh ids for every label and result of the copy.
    let mut map: HashMap<Id, Id> = HashMap::new();
    for &b in &c.body {
        map.insert(f.blocks[b].label, fresh(next_id));
        for i in &f.blocks[b].instructions {
            if let Some(r) = i.result_id {
                map.insert(r, fresh(next_id));
            }
        }
    }
    // Decorations the translator reads by result id go with the copies.
    for (old, new) in map.clone() {
        if let Some(r) = cx.rounding.get(&old).copied() {
            cx.rounding.insert(new, r);
        }
        if cx.saturated.contains(&old) {
            cx.saturated.insert(new);
        }
    }
    let remap = |id: Id, map: &HashMap<Id, Id>| map.get(&id).copied().unwrap_or(id);

    // One Function variable per location.
    let vars: Vec<(Id, Id)> = c
        .locs
        .iter()
        .map(|l| {
            let pty = function_pointer(cx, l.pointee, next_id);
            let v = fresh(next_id);
            cx.promoted_vars.insert(v);
            (v, pty)
        })
        .collect();
    let var_of: HashMap<Id, usize> = c.locs.iter().enumerate().map(|(i, l)| (l.root, i)).collect();
    // Each accessed pointer's location, and the loads before the loop the copy can start from
    // (see the copy's entry below).
    let (root_of, reuse): (HashMap<Id, Id>, HashMap<usize, Id>) = {
        let defs = definitions(f);
        let root_of = c
            .body
            .iter()
            .flat_map(|&b| &f.blocks[b].instructions)
            .filter(|i| matches!(i.opcode, Op::Load | Op::Store) || is_atomic(i.opcode))
            .filter_map(|i| match i.operands.first() {
                Some(Operand::IdRef(p)) => Some((*p, strip_casts(*p, &defs))),
                _ => None,
            })
            .collect();
        (root_of, last_loads(&f.blocks[c.pre].instructions, &c.locs, &defs))
    };

    // The dispatch block: the copy when alone and the pointers that may alias differ.
    let dispatch = fresh(next_id);
    let fast_pre = fresh(next_id);
    let mut d_insts = Vec::new();
    let mut cond = None;
    if c.needs_alone {
        let oracle = fresh(next_id);
        cx.alone_oracles.insert(oracle, c.cross_device);
        d_insts.push(inst(Op::Undef, Some(bool_ty), Some(oracle), vec![]));
        cond = Some(oracle);
    }
    for (i, a) in c.locs.iter().enumerate() {
        for b in &c.locs[i + 1..] {
            if !may_alias(a.storage, b.storage) {
                continue;
            }
            // Every address space is one flat address space here (`generic`): the pointers
            // compare as they are.
            let ne = fresh(next_id);
            d_insts.push(inst(
                Op::PtrNotEqual,
                Some(bool_ty),
                Some(ne),
                vec![Operand::IdRef(a.root), Operand::IdRef(b.root)],
            ));
            cond = Some(match cond {
                None => ne,
                Some(c) => {
                    let both = fresh(next_id);
                    d_insts.push(inst(
                        Op::LogicalAnd,
                        Some(bool_ty),
                        Some(both),
                        vec![Operand::IdRef(c), Operand::IdRef(ne)],
                    ));
                    both
                }
            });
        }
    }
    // Nothing to check: a test that always holds keeps both loops reachable (the translator
    // and the phis of the exit targets expect the original's blocks).
    let cond = match cond {
        Some(c) => c,
        None => {
            let t = fresh(next_id);
            let p = c.locs[0].ptr;
            d_insts.push(inst(
                Op::PtrEqual,
                Some(bool_ty),
                Some(t),
                vec![Operand::IdRef(p), Operand::IdRef(p)],
            ));
            t
        }
    };
    d_insts.push(inst(
        Op::BranchConditional,
        None,
        None,
        vec![
            Operand::IdRef(cond),
            Operand::IdRef(fast_pre),
            Operand::IdRef(header_label),
        ],
    ));

    // The copy's entry: each location loaded into its variable, or given the value the block
    // before the loop last loaded from it when nothing may write memory after that load (one
    // value instead of two equal ones: the loop's phis of that load and the variable are then
    // the same value, which `block_params::merge_congruent` makes one register).
    let mut p_insts = Vec::new();
    for (k, (l, (var, _))) in c.locs.iter().zip(&vars).enumerate() {
        let v = match reuse.get(&k) {
            Some(&v) => v,
            None => {
                let v = fresh(next_id);
                p_insts.push(inst(Op::Load, Some(l.pointee), Some(v), vec![Operand::IdRef(l.ptr)]));
                v
            }
        };
        p_insts.push(inst(
            Op::Store,
            None,
            None,
            vec![Operand::IdRef(*var), Operand::IdRef(v)],
        ));
    }
    p_insts.push(inst(Op::Branch, None, None, vec![Operand::IdRef(map[&header_label])]));

    // The copy of the loop.
    let mut copy: Vec<Block> = Vec::new();
    let mut exits: Vec<Block> = Vec::new();
    // (exit target label, copied exiting block label, exit block label)
    let mut exit_edges: Vec<(Id, Id, Id)> = Vec::new();
    for &b in &c.body {
        let src = &f.blocks[b];
        let mut out: Vec<Instruction> = Vec::new();
        for i in &src.instructions {
            match i.opcode {
                Op::LoopMerge | Op::SelectionMerge => continue,
                _ => {}
            }
            let ptr = match i.operands.first() {
                Some(Operand::IdRef(p)) if matches!(i.opcode, Op::Load | Op::Store) || is_atomic(i.opcode) => {
                    root_of.get(p).and_then(|r| var_of.get(r)).copied()
                }
                _ => None,
            };
            if let Some(k) = ptr {
                let var = vars[k].0;
                rewrite_access(i, var, bool_ty, &map, next_id, &mut out);
                continue;
            }
            let mut n = i.clone();
            n.result_id = n.result_id.map(|r| remap(r, &map));
            for (k, o) in n.operands.iter_mut().enumerate() {
                if let Operand::IdRef(x) = o {
                    // A header phi's value from outside the loop now comes from the copy's entry.
                    if i.opcode == Op::Phi && b == c.header && !k.is_multiple_of(2) && *x == pre_label {
                        *x = fast_pre;
                    } else {
                        *x = remap(*x, &map);
                    }
                }
            }
            // Ways out of the loop go through an exit block that writes the locations back.
            if matches!(n.opcode, Op::Branch | Op::BranchConditional | Op::Switch) {
                for o in n.operands.iter_mut() {
                    let Operand::IdRef(x) = o else { continue };
                    let target = *x;
                    let leaves = f
                        .blocks
                        .iter()
                        .position(|blk| blk.label == target)
                        .is_some_and(|t| !body.contains(&t));
                    if !leaves {
                        continue;
                    }
                    let e = fresh(next_id);
                    let mut e_insts = Vec::new();
                    for (l, (var, _)) in c.locs.iter().zip(&vars) {
                        if l.stored {
                            let v = fresh(next_id);
                            e_insts.push(inst(Op::Load, Some(l.pointee), Some(v), vec![Operand::IdRef(*var)]));
                            e_insts.push(inst(
                                Op::Store,
                                None,
                                None,
                                vec![Operand::IdRef(l.ptr), Operand::IdRef(v)],
                            ));
                        }
                    }
                    e_insts.push(inst(Op::Branch, None, None, vec![Operand::IdRef(target)]));
                    exits.push(Block {
                        label: e,
                        offset: 0,
                        instructions: e_insts,
                    });
                    exit_edges.push((target, map[&src.label], e));
                    *x = e;
                }
            }
            out.push(n);
        }
        copy.push(Block {
            label: map[&src.label],
            offset: 0,
            instructions: out,
        });
    }

    // The targets of the loop's exits take the copy's values from its exit blocks.
    let orig_label: HashMap<Id, Id> = map.iter().map(|(o, n)| (*n, *o)).collect();
    for blk in f.blocks.iter_mut() {
        let edges: Vec<(Id, Id)> = exit_edges
            .iter()
            .filter(|(t, _, _)| *t == blk.label)
            .map(|(_, from, e)| (*from, *e))
            .collect();
        if edges.is_empty() {
            continue;
        }
        for phi in blk.instructions.iter_mut().filter(|i| i.opcode == Op::Phi) {
            let mut extra = Vec::new();
            for (from, e) in &edges {
                let orig_from = orig_label[from];
                let mut k = 0;
                while k + 1 < phi.operands.len() {
                    if phi.operands[k + 1] == Operand::IdRef(orig_from) {
                        if let Operand::IdRef(v) = phi.operands[k] {
                            extra.push(Operand::IdRef(remap(v, &map)));
                            extra.push(Operand::IdRef(*e));
                        }
                    }
                    k += 2;
                }
            }
            phi.operands.extend(extra);
        }
    }

    // Loop values used after it leave through Function variables: both loops store each one
    // right after defining it, and each use after the loop loads it (the translator makes
    // the variables SSA values again, with the phis the two loops need).
    let mut escape_vars: Vec<(Id, Id, Id)> = Vec::new();
    for (x, ty) in &c.escaping {
        let pty = function_pointer(cx, *ty, next_id);
        let v = fresh(next_id);
        cx.promoted_vars.insert(v);
        escape_vars.push((*x, v, pty));
    }
    let store_after_defs = |blocks: &mut [Block], map: Option<&HashMap<Id, Id>>| {
        for blk in blocks.iter_mut() {
            let mut k = 0;
            while k < blk.instructions.len() {
                let def = blk.instructions[k].result_id;
                let hit = escape_vars
                    .iter()
                    .find(|(x, _, _)| Some(map.map_or(*x, |m| remap(*x, m))) == def);
                if let (Some((_, var, _)), Some(d)) = (hit, def) {
                    // After the block's phis when the value is one.
                    let mut at = k + 1;
                    while at < blk.instructions.len() && blk.instructions[at].opcode == Op::Phi {
                        at += 1;
                    }
                    blk.instructions.insert(
                        at,
                        inst(Op::Store, None, None, vec![Operand::IdRef(*var), Operand::IdRef(d)]),
                    );
                }
                k += 1;
            }
        }
    };
    store_after_defs(&mut copy, Some(&map));
    let body_labels: HashSet<Id> = c.body.iter().map(|&b| f.blocks[b].label).collect();
    let exit_labels: HashSet<Id> = exits.iter().map(|b| b.label).collect();
    for bi in 0..f.blocks.len() {
        if body.contains(&bi) {
            continue;
        }
        let mut k = 0;
        while k < f.blocks[bi].instructions.len() {
            let is_phi = f.blocks[bi].instructions[k].opcode == Op::Phi;
            let mut n_ops = 0;
            while n_ops < f.blocks[bi].instructions[k].operands.len() {
                let op = f.blocks[bi].instructions[k].operands[n_ops].clone();
                let Operand::IdRef(x) = op else {
                    n_ops += 1;
                    continue;
                };
                let Some((_, var, _)) = escape_vars.iter().find(|(e, _, _)| *e == x) else {
                    n_ops += 1;
                    continue;
                };
                let from = match f.blocks[bi].instructions[k].operands.get(n_ops + 1) {
                    Some(Operand::IdRef(fr)) if is_phi && n_ops.is_multiple_of(2) => Some(*fr),
                    _ => None,
                };
                if from.is_some_and(|fr| body_labels.contains(&fr) || exit_labels.contains(&fr)) {
                    n_ops += 1;
                    continue;
                }
                let ty = escape_vars
                    .iter()
                    .find(|(e, _, _)| *e == x)
                    .and_then(|_| c.escaping.iter().find(|(e, _)| *e == x).map(|(_, t)| *t))
                    .unwrap_or(0);
                let l = fresh(next_id);
                let load = inst(Op::Load, Some(ty), Some(l), vec![Operand::IdRef(*var)]);
                f.blocks[bi].instructions[k].operands[n_ops] = Operand::IdRef(l);
                match from {
                    // A phi's value: loaded at the end of the block it comes from.
                    Some(fr) => {
                        if let Some(pb) = f.blocks.iter_mut().find(|b| b.label == fr) {
                            let at = pb.instructions.len().saturating_sub(1);
                            pb.instructions.insert(at, load);
                        }
                    }
                    None => {
                        f.blocks[bi].instructions.insert(k, load);
                        k += 1;
                    }
                }
                n_ops += 1;
            }
            k += 1;
        }
    }
    {
        let mut orig: Vec<Block> = c
            .body
            .iter()
            .map(|&b| std::mem::take(&mut f.blocks[b].instructions))
            .map(|instructions| Block {
                label: 0,
                offset: 0,
                instructions,
            })
            .collect();
        store_after_defs(&mut orig, None);
        for (&b, blk) in c.body.iter().zip(orig) {
            f.blocks[b].instructions = blk.instructions;
        }
    }
    // The entry into the loop now goes through the dispatch block.
    if let Some(term) = f.blocks[c.pre].instructions.last_mut() {
        for o in term.operands.iter_mut() {
            if *o == Operand::IdRef(header_label) {
                *o = Operand::IdRef(dispatch);
            }
        }
    }
    for phi in f.blocks[c.header]
        .instructions
        .iter_mut()
        .filter(|i| i.opcode == Op::Phi)
    {
        let mut k = 1;
        while k < phi.operands.len() {
            if phi.operands[k] == Operand::IdRef(pre_label) {
                phi.operands[k] = Operand::IdRef(dispatch);
            }
            k += 2;
        }
    }

    // The variables at the start of the entry block.
    let var_insts: Vec<Instruction> = escape_vars
        .iter()
        .map(|(_, v, pty)| (*v, *pty))
        .chain(vars.iter().copied())
        .map(|(v, pty)| {
            inst(
                Op::Variable,
                Some(pty),
                Some(v),
                vec![Operand::StorageClass(StorageClass::Function)],
            )
        })
        .collect();
    // Blocks: dispatch before the header; the copy, its entry and exits after the loop.
    let last = c.body.iter().copied().max().unwrap_or(c.header);
    let mut tail: Vec<Block> = vec![Block {
        label: fast_pre,
        offset: 0,
        instructions: p_insts,
    }];
    tail.extend(copy);
    tail.extend(exits);
    let after: Vec<Block> = f.blocks.drain(last + 1..).collect();
    f.blocks.extend(tail);
    f.blocks.extend(after);
    f.blocks.insert(
        c.header,
        Block {
            label: dispatch,
            offset: 0,
            instructions: d_insts,
        },
    );
    let entry = &mut f.blocks[0].instructions;
    for (k, v) in var_insts.into_iter().enumerate() {
        entry.insert(k, v);
    }
}

/// The copy of one access to a promoted location: on its variable.
fn rewrite_access(
    i: &Instruction,
    var: Id,
    bool_ty: Id,
    map: &HashMap<Id, Id>,
    next_id: &mut Id,
    out: &mut Vec<Instruction>,
) {
    let remap = |id: Id| map.get(&id).copied().unwrap_or(id);
    let arg = |k: usize| match i.operands.get(k) {
        Some(Operand::IdRef(x)) => remap(*x),
        _ => 0,
    };
    let r = i.result_id.map(remap);
    let ty = i.result_type;
    let load = |out: &mut Vec<Instruction>| out.push(inst(Op::Load, ty, r, vec![Operand::IdRef(var)]));
    let store = |out: &mut Vec<Instruction>, v: Id| {
        out.push(inst(
            Op::Store,
            None,
            None,
            vec![Operand::IdRef(var), Operand::IdRef(v)],
        ))
    };
    let old = || Operand::IdRef(r.unwrap_or(0));
    match i.opcode {
        Op::Load | Op::AtomicLoad => load(out),
        Op::Store => store(out, arg(1)),
        Op::AtomicStore => store(out, arg(3)),
        Op::AtomicExchange => {
            load(out);
            store(out, arg(3));
        }
        Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
            // Operands: pointer, scope, equal and unequal semantics, value, comparator.
            load(out);
            let eq = fresh(next_id);
            out.push(inst(
                Op::IEqual,
                Some(bool_ty),
                Some(eq),
                vec![old(), Operand::IdRef(arg(5))],
            ));
            let new = fresh(next_id);
            out.push(inst(
                Op::Select,
                ty,
                Some(new),
                vec![Operand::IdRef(eq), Operand::IdRef(arg(4)), old()],
            ));
            store(out, new);
        }
        Op::AtomicIIncrement | Op::AtomicIDecrement => {
            // x + 1 = -(~x), x - 1 = ~(-x): no constant needed.
            load(out);
            let (first, second) = if i.opcode == Op::AtomicIIncrement {
                (Op::Not, Op::SNegate)
            } else {
                (Op::SNegate, Op::Not)
            };
            let a = fresh(next_id);
            out.push(inst(first, ty, Some(a), vec![old()]));
            let new = fresh(next_id);
            out.push(inst(second, ty, Some(new), vec![Operand::IdRef(a)]));
            store(out, new);
        }
        op => {
            load(out);
            let v = Operand::IdRef(arg(3));
            let new = fresh(next_id);
            let simple = match op {
                Op::AtomicIAdd => Some(Op::IAdd),
                Op::AtomicISub => Some(Op::ISub),
                Op::AtomicAnd => Some(Op::BitwiseAnd),
                Op::AtomicOr => Some(Op::BitwiseOr),
                Op::AtomicXor => Some(Op::BitwiseXor),
                Op::AtomicFAddEXT => Some(Op::FAdd),
                _ => None,
            };
            if let Some(s) = simple {
                out.push(inst(s, ty, Some(new), vec![old(), v]));
            } else {
                // min and max: the old value where it wins the comparison, else the operand.
                let cmp = match op {
                    Op::AtomicSMin => Op::SLessThan,
                    Op::AtomicUMin => Op::ULessThan,
                    Op::AtomicSMax => Op::SGreaterThan,
                    _ => Op::UGreaterThan,
                };
                let c = fresh(next_id);
                out.push(inst(cmp, Some(bool_ty), Some(c), vec![old(), v.clone()]));
                out.push(inst(Op::Select, ty, Some(new), vec![Operand::IdRef(c), old(), v]));
            }
            store(out, new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_memory_free_instructions_pass() {
        assert!(forbidden(Op::FunctionCall));
        assert!(forbidden(Op::GroupAsyncCopy));
        assert!(forbidden(Op::ControlBarrier));
        assert!(!forbidden(Op::IAdd));
        assert!(promotable_atomic(Op::AtomicCompareExchangeWeak));
        assert!(!promotable_atomic(Op::AtomicFlagTestAndSet));
    }
}
