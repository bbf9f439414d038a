//! Potential spin loops, found on the SPIR-V: the loops whose exit may depend on what another
//! work-item does, so that running the work-items of a group one after the other (the
//! work-item loops and region loops of `group.rs`) could wait forever.
//!
//! A loop is a potential spin loop when a branch inside it that leaves the loop or returns to
//! its header has a condition computed, inside the loop, from the result of an instruction
//! that reads memory another work-item may be changing as the loop runs: an atomic load,
//! read-modify-write or compare-exchange (`atomic_flag_test_and_set` included), a volatile
//! load, a pipe read or reservation, or a call of a function that contains one of those. The
//! dependence is followed through values, OpPhi, and private memory (a value stored into a
//! Function variable taints what is loaded back from it; a value stored anywhere else taints
//! every load of the loop). Spinning on plain loads is a data race, undefined, and not looked
//! for; a loop that only counts (`for (i...) atomic_inc(p)`) or whose atomics only decide
//! something inside the loop is not a spin loop.
//!
//! A kernel that reaches a potential spin loop runs its work-groups as fibers (`driver`),
//! and each back-edge of the loop counts in the work-item's state (`WorkItem::spins`); every
//! `driver::SPIN_BATCH`-th one calls `clift_spin_yield`, which suspends the fiber so that the
//! other work-items of the group run (independent
//! forward progress, as `cl_khr_subgroups` requires between sub-groups; here between all
//! work-items). Every other kernel is compiled as before: the work-item loops, region loops
//! and vector loops are untouched, and the benchmark kernels (BENCHMARKS.md; the histogram's
//! `atomic_inc` in a counting loop is no spin) keep their code.
//!
//! A lock-free compare-exchange retry, whose exit is the exchange's success and whose
//! comparator comes from a read of the loop (an atomic or volatile load, or the last
//! exchange's result), is no spin (`retry_success`): it fails only when another work-item
//! wrote in between, which the work-items of the same group, running one at a time, do not.
//! A plain load of shared memory in the loop counts as such a read too (`old = *p`, the usual
//! float add by compare-exchange); a comparator held in a private variable (`-O0` code) does
//! not, so those retries count as spin loops. Such a retry's success taints nothing (a loop
//! that counts its successes, `for (i = 0; i < n || wins == 0; i++)`, is no spin), and an
//! exit reached only after such an exchange failed (the Khronos CTS's `break` on a spurious
//! failure) does not make the loop a spin when it has another conditional exit that depends on
//! no read (`LoopView::spins`). A branch one of whose ways leaves the loop chooses no phi of
//! the loop: the values that reach a join inside the loop do not depend on it.
//!
//! Why fibers for these kernels only, and what it costs (measured on the shared 2-core
//! machine at load 10 to 13, one worker thread, 4M work-items of 256): a fiber runs one
//! work-item after the other and a new fiber starts only when one suspends, so a kernel whose
//! work-items never wait pays a call through the fault guard and the kernel's entry per
//! work-item instead of the inlined work-item loop. A compare-exchange that always succeeds
//! at once (`while (atomic_cmpxchg(p + i, old, old + 1) != old)`, one word per work-item) went
//! (a plain re-read, so still a spin loop by the rule above) from 18-29 to 44-73 ns per
//! work-item (8 against 30 at a quieter moment); the same loop contended by a work-group on one word
//! (a float add by compare-exchange) from 59-69 to 47-63 ns; `atomic_inc` (no spin loop)
//! unchanged. The CTS's c11_atomics atomic_flag, whose kernels walk flags until one is theirs
//! (a loop the analysis counts), 14-17 s against 9-18 s; subgroups, pipes, workgroups and
//! atomics unchanged. Fibers for every kernel with atomics would cost the vector loop of all
//! of them; a yield in the work-item loops cannot resume the work-items after the spinning
//! one, which is the progress a spin needs.

use super::translate::successors;
use crate::spirv::module::{Function, Id, Module};
use crate::spirv::validate::is_atomic;
use crate::spirv::Instruction;
use rspirv::dr::Operand;
use rspirv::spirv::{MemoryAccess, Op, StorageClass};
use std::collections::{HashMap, HashSet};

/// Whether `inst` reads memory that other work-items may change while it runs in a loop.
fn is_source(inst: &Instruction) -> bool {
    (is_atomic(inst.opcode) && inst.result_id.is_some())
        || super::pipe::is_pipe_op(inst.opcode)
        || matches!(inst.opcode, Op::Load | Op::CopyMemory | Op::CopyMemorySized)
            && inst
                .operands
                .iter()
                .any(|o| matches!(o, Operand::MemoryAccess(a) if a.contains(MemoryAccess::VOLATILE)))
}

fn callee(inst: &Instruction) -> Option<Id> {
    match (inst.opcode, inst.operands.first()) {
        (Op::FunctionCall, Some(Operand::IdRef(c))) => Some(*c),
        _ => None,
    }
}

/// The functions of `m` that contain a source, directly or through the functions they call.
fn reading_functions(m: &Module) -> HashSet<Id> {
    let mut out: HashSet<Id> = HashSet::new();
    loop {
        let before = out.len();
        for f in &m.functions {
            if out.contains(&f.id) {
                continue;
            }
            let reads = f
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .any(|i| is_source(i) || callee(i).is_some_and(|c| out.contains(&c)));
            if reads {
                out.insert(f.id);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The back-edges `(from block, to header)` of the potential spin loops of every function of
/// `m` (labels are unique in a module).
pub(crate) fn spin_edges(m: &Module) -> HashSet<(Id, Id)> {
    let reading = reading_functions(m);
    let is_volatile_var: HashSet<Id> = m
        .decorations
        .iter()
        .filter(|d| d.decoration == rspirv::spirv::Decoration::Volatile)
        .map(|d| d.target)
        .collect();
    let mut out = HashSet::new();
    for f in &m.functions {
        if !f.is_declaration() {
            function_spin_edges(f, &reading, &is_volatile_var, &mut out);
        }
    }
    out
}

/// Whether `kernel` (a function of `m`) reaches, through its calls, a function with an edge
/// in `edges`.
pub(crate) fn reaches_spin(m: &Module, kernel: Id, edges: &HashSet<(Id, Id)>) -> bool {
    if edges.is_empty() {
        return false;
    }
    let mut seen = HashSet::new();
    let mut stack = vec![kernel];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(f) = m.function(id) else { continue };
        for b in &f.blocks {
            if let Some(t) = b.instructions.last() {
                if successors(t).iter().any(|s| edges.contains(&(b.label, *s))) {
                    return true;
                }
            }
            stack.extend(b.instructions.iter().filter_map(callee));
        }
    }
    false
}

fn function_spin_edges(f: &Function, reading: &HashSet<Id>, volatile_vars: &HashSet<Id>, out: &mut HashSet<(Id, Id)>) {
    let super::translate::Cfg {
        succ, pred, latches, ..
    } = super::translate::cfg(f);
    // Every result defined in the function, with its instruction.
    let defs: HashMap<Id, &Instruction> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter_map(|i| i.result_id.map(|r| (r, i)))
        .collect();
    let ipdom = post_dominators(&succ);
    for (&h, ls) in &latches {
        // The natural loop: the header and every block that reaches a latch without it.
        let mut body: HashSet<usize> = HashSet::from([h]);
        let mut work: Vec<usize> = ls.clone();
        while let Some(b) = work.pop() {
            if body.insert(b) {
                work.extend(pred[b].iter().copied());
            }
        }
        let view = LoopView {
            f,
            body: &body,
            header: h,
            succ: &succ,
            ipdom: &ipdom,
            defs: &defs,
            reading,
            volatile_vars,
            block_of: blocks_of(f, &body),
        };
        if view.spins() {
            for &l in ls {
                out.insert((f.blocks[l].label, f.blocks[h].label));
            }
        }
    }
}

/// The pointer a cast of `p` is (the same bytes, no access chain).
fn strip_casts(p: Id, defs: &HashMap<Id, &Instruction>) -> Id {
    follow(p, defs, false)
}

/// The pointer an access chain or cast of `p` is based on, as far as the function shows.
fn root(p: Id, defs: &HashMap<Id, &Instruction>) -> Id {
    follow(p, defs, true)
}

/// Follows `p` back through casts, and through access chains too with `chains`.
fn follow(mut p: Id, defs: &HashMap<Id, &Instruction>, chains: bool) -> Id {
    for _ in 0..64 {
        let Some(i) = defs.get(&p) else { return p };
        let cast = matches!(
            i.opcode,
            Op::Bitcast | Op::CopyObject | Op::PtrCastToGeneric | Op::GenericCastToPtr | Op::GenericCastToPtrExplicit
        );
        let chain = matches!(
            i.opcode,
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::InBoundsPtrAccessChain
        );
        match i.operands.first() {
            Some(Operand::IdRef(q)) if cast || (chains && chain) => p = *q,
            _ => return p,
        }
    }
    p
}

/// One natural loop of a function, with what the analysis needs to look at it.
struct LoopView<'a> {
    f: &'a Function,
    body: &'a HashSet<usize>,
    header: usize,
    succ: &'a [Vec<usize>],
    ipdom: &'a [Option<usize>],
    defs: &'a HashMap<Id, &'a Instruction>,
    reading: &'a HashSet<Id>,
    volatile_vars: &'a HashSet<Id>,
    /// The loop's instructions, with their block.
    block_of: HashMap<*const Instruction, usize>,
}

/// The loop's instructions with the index of their block.
fn blocks_of(f: &Function, body: &HashSet<usize>) -> HashMap<*const Instruction, usize> {
    body.iter()
        .flat_map(|&b| {
            f.blocks[b]
                .instructions
                .iter()
                .map(move |i| (i as *const Instruction, b))
        })
        .collect()
}

impl LoopView<'_> {
    /// Whether the loop is a potential spin loop: a branch that leaves it or returns to its
    /// header has a condition computed from a read of the loop (`taint`).
    ///
    /// A lock-free compare-exchange retry's success (`retry_success`) is no such read: a
    /// retry whose comparator was read in the loop succeeds unless another work-item wrote
    /// in between, which the other work-items of the group, running one at a time, do not.
    /// So a loop that counts its successes (`for (i = 0; i < n || wins == 0; i++)`) is no
    /// spin, and neither is an exit reached only when such an exchange failed (a `break` on
    /// a spurious failure), as long as the loop has a conditional exit that depends on no
    /// read: the exits reached only through a failure can end the loop early, never keep it
    /// going.
    fn spins(&self) -> bool {
        let first = self.taint(&HashSet::new());
        let success = self.retry_successes(&first);
        let tainted = if success.is_empty() {
            first
        } else {
            self.taint(&success)
        };
        let exits: Vec<(usize, Id)> = self
            .body
            .iter()
            .filter_map(|&b| {
                let t = self.f.blocks[b].instructions.last()?;
                let cond = match (t.opcode, t.operands.first()) {
                    (Op::BranchConditional | Op::Switch, Some(Operand::IdRef(c))) => *c,
                    _ => return None,
                };
                self.succ[b]
                    .iter()
                    .any(|s| *s == self.header || !self.body.contains(s))
                    .then_some((b, cond))
            })
            .collect();
        let clean_exit = exits.iter().any(|(_, c)| !tainted.contains(c));
        let after_failure = if clean_exit {
            self.after_failure(&success)
        } else {
            HashSet::new()
        };
        // (A retry's success is in `success`, so never tainted.)
        exits
            .iter()
            .any(|&(b, cond)| tainted.contains(&cond) && !after_failure.contains(&b))
    }

    /// The comparisons of the loop that test a lock-free retry's success (`retry_success`),
    /// given what `tainted` says was read in the loop.
    fn retry_successes(&self, tainted: &HashSet<Id>) -> HashSet<Id> {
        self.body
            .iter()
            .flat_map(|&b| &self.f.blocks[b].instructions)
            .filter(|i| matches!(i.opcode, Op::IEqual | Op::INotEqual))
            .filter_map(|i| i.result_id)
            .filter(|&r| retry_success(r, self.defs, tainted, &self.block_of))
            .collect()
    }

    /// The blocks of the loop reached only through the failure of a retry's compare-exchange:
    /// from the branch on one of `success` (perhaps negated) along its failure edge, up to the
    /// branch's immediate post-dominator.
    fn after_failure(&self, success: &HashSet<Id>) -> HashSet<usize> {
        let mut out = HashSet::new();
        for &b in self.body {
            let Some(t) = self.f.blocks[b].instructions.last() else {
                continue;
            };
            let (Op::BranchConditional, Some(Operand::IdRef(c))) = (t.opcode, t.operands.first()) else {
                continue;
            };
            // Through negations to the comparison: true on success for OpIEqual.
            let (mut c, mut success_when_true) = (*c, true);
            while let Some(n) = self.defs.get(&c).filter(|i| i.opcode == Op::LogicalNot) {
                let Some(Operand::IdRef(x)) = n.operands.first() else {
                    break;
                };
                c = *x;
                success_when_true = !success_when_true;
            }
            let Some(cmp) = self.defs.get(&c).filter(|_| success.contains(&c)) else {
                continue;
            };
            if cmp.opcode == Op::INotEqual {
                success_when_true = !success_when_true;
            }
            let targets: Vec<u32> = t.id_refs().skip(1).collect();
            let Some(&failed) = targets.get(if success_when_true { 1 } else { 0 }) else {
                continue;
            };
            let Some(start) = (0..self.f.blocks.len()).find(|&x| self.f.blocks[x].label == failed) else {
                continue;
            };
            let stop = self.ipdom[b];
            let mut work = vec![start];
            while let Some(x) = work.pop() {
                if Some(x) == stop || x == self.header || !self.body.contains(&x) || !out.insert(x) {
                    continue;
                }
                work.extend(self.succ[x].iter().copied());
            }
        }
        out
    }

    /// The values of the loop computed from a read of the loop (see the module docs), leaving
    /// out the retry successes `success` (neither tainted themselves nor making the blocks
    /// their branches choose dependent).
    fn taint(&self, success: &HashSet<Id>) -> HashSet<Id> {
        let LoopView {
            f,
            body,
            header,
            succ,
            ipdom,
            defs,
            reading,
            volatile_vars,
            ref block_of,
        } = *self;
        let is_private_var = |r: Id| {
            defs.get(&r).is_some_and(|i| {
                i.opcode == Op::Variable
                    && matches!(i.operands.first(), Some(Operand::StorageClass(StorageClass::Function)))
            })
        };
        let insts: Vec<&Instruction> = {
            let mut blocks: Vec<usize> = body.iter().copied().collect();
            blocks.sort_unstable();
            blocks.iter().flat_map(|&b| &f.blocks[b].instructions).collect()
        };
        let mut tainted: HashSet<Id> = HashSet::new();
        let mut vars: HashSet<Id> = HashSet::new();
        let mut any_memory = false;
        // Blocks whose execution depends on a branch on a tainted condition (their stores write
        // tainted values), and blocks whose phis choose by such a branch.
        let mut dependent: HashSet<usize> = HashSet::new();
        let mut joins: HashSet<usize> = HashSet::new();
        loop {
            let before = (tainted.len(), vars.len(), any_memory, dependent.len());
            for &b in body {
                let Some(t) = f.blocks[b].instructions.last() else {
                    continue;
                };
                let tainted_branch = matches!(
                    (t.opcode, t.operands.first()),
                    (Op::BranchConditional | Op::Switch, Some(Operand::IdRef(c))) if tainted.contains(c)
                );
                if !tainted_branch {
                    continue;
                }
                // The blocks reached from the branch before its immediate post-dominator (all of
                // the loop's when it has none), within the loop. Their phis choose by the branch
                // only when two of its ways stay in the loop: a way out of the loop (a `break`)
                // reaches none of them.
                let inside: HashSet<usize> = succ[b].iter().copied().filter(|x| body.contains(x)).collect();
                let chooses = inside.len() >= 2;
                let stop = ipdom[b];
                if let Some(j) = stop.filter(|_| chooses) {
                    joins.insert(j);
                }
                let mut work: Vec<usize> = succ[b].clone();
                while let Some(x) = work.pop() {
                    if Some(x) == stop || x == header || !body.contains(&x) || !dependent.insert(x) {
                        continue;
                    }
                    if chooses {
                        joins.insert(x);
                    }
                    work.extend(succ[x].iter().copied());
                }
            }
            // Per block: the whole private variables stored so far, and whether the value was
            // tainted (a load after such a store reads that value, not what came round the loop).
            let mut stored: HashMap<Id, bool> = HashMap::new();
            let mut cur_block = None;
            for inst in &insts {
                let in_block = block_of.get(&(*inst as *const Instruction)).copied();
                if in_block != cur_block {
                    stored.clear();
                    cur_block = in_block;
                }
                let controlled = in_block.is_some_and(|b| dependent.contains(&b));
                let ids = || inst.id_refs();
                let from_operands = ids().any(|x| tainted.contains(&x));
                let called = callee(inst).is_some_and(|c| reading.contains(&c));
                let volatile_load = matches!(inst.opcode, Op::Load)
                    && matches!(inst.operands.first(), Some(Operand::IdRef(p)) if volatile_vars.contains(&root(*p, defs)));
                let whole = |i: usize| match inst.operands.get(i) {
                    Some(Operand::IdRef(p)) => Some(strip_casts(*p, defs)).filter(|v| is_private_var(*v)),
                    _ => None,
                };
                let loaded = inst.opcode == Op::Load
                    && match whole(0).and_then(|v| stored.get(&v)) {
                        Some(t) => *t,
                        None => matches!(inst.operands.first(), Some(Operand::IdRef(p)) if {
                            let r = root(*p, defs);
                            vars.contains(&r) || (any_memory && !is_private_var(r))
                        }),
                    };
                if inst.opcode == Op::Store {
                    if let (Some(v), Some(Operand::IdRef(x))) = (whole(0), inst.operands.get(1)) {
                        stored.insert(v, controlled || tainted.contains(x));
                    }
                }
                let chosen = inst.opcode == Op::Phi && in_block.is_some_and(|b| joins.contains(&b) && b != header);
                if let Some(r) = inst.result_id {
                    let tainting = is_source(inst) || called || volatile_load || loaded || from_operands || chosen;
                    if tainting && !success.contains(&r) {
                        tainted.insert(r);
                    }
                }
                // What a tainted value is written to (a store, a copy, a call's pointer arguments).
                let writes = match inst.opcode {
                    Op::Store | Op::AtomicStore => (controlled
                        || inst
                            .operands
                            .iter()
                            .rev()
                            .find_map(|o| match o {
                                Operand::IdRef(v) => Some(tainted.contains(v)),
                                _ => None,
                            })
                            .unwrap_or(false))
                    .then(|| vec![root_of(inst, 0, defs)]),
                    Op::CopyMemory | Op::CopyMemorySized if from_operands || is_source(inst) => {
                        Some(vec![root_of(inst, 0, defs)])
                    }
                    Op::FunctionCall if from_operands || called => {
                        Some(ids().skip(1).map(|a| Some(root(a, defs))).collect())
                    }
                    _ => None,
                };
                for w in writes.into_iter().flatten().flatten() {
                    if is_private_var(w) {
                        vars.insert(w);
                    } else {
                        any_memory = true;
                    }
                }
            }
            if (tainted.len(), vars.len(), any_memory, dependent.len()) == before {
                break;
            }
        }
        tainted
    }
}

/// Whether `cond` tests whether a compare-exchange of the loop succeeded (its result equal or
/// not equal to its comparator, perhaps negated) while the comparator itself comes from a read
/// in the loop: a lock-free retry (`do { old = *p; } while (atomic_cmpxchg(p, old, f(old)) !=
/// old)`), which fails only when another work-item wrote `p` between the read and the
/// exchange. The other work-items of the group do not run in between (they only run when this
/// one yields or finishes), so the loop needs no yield. A comparator that does not come from a
/// read in the loop (a lock's `atomic_cmpxchg(lock, 0, 1)`) waits for another work-item: a
/// spin.
fn retry_success(
    cond: Id,
    defs: &HashMap<Id, &Instruction>,
    tainted: &HashSet<Id>,
    in_loop: &HashMap<*const Instruction, usize>,
) -> bool {
    let mut c = cond;
    for _ in 0..4 {
        let Some(i) = defs.get(&c) else { return false };
        let ids: Vec<Id> = i.id_refs().collect();
        match (i.opcode, ids.as_slice()) {
            (Op::LogicalNot, [x]) => c = *x,
            (Op::IEqual | Op::INotEqual, [a, b]) => {
                let is_cas_of = |r: Id, cmp: Id| {
                    defs.get(&r).is_some_and(|x| {
                        matches!(x.opcode, Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak)
                            && in_loop.contains_key(&(*x as *const Instruction))
                            && matches!(x.operands.get(5), Some(Operand::IdRef(k)) if *k == cmp)
                    })
                };
                // The comparator is a read of the loop: tainted (an atomic or volatile load,
                // the last exchange's result), or a plain load of memory other than the
                // work-item's own variables inside the loop (`old = *p`; a wait on a plain
                // load of memory another work-item writes would be a data race, undefined).
                let read = |v: Id| tainted.contains(&v) || plain_load_in_loop(v, defs, in_loop);
                return (is_cas_of(*a, *b) && read(*b)) || (is_cas_of(*b, *a) && read(*a));
            }
            _ => return false,
        }
    }
    false
}

/// Whether `v` is a load, inside the loop, of memory that is not one of the function's own
/// (Function storage) variables: a private variable may hold a constant set before the loop
/// (`-O0` code keeps a lock's comparator there), so loads of those do not count.
fn plain_load_in_loop(v: Id, defs: &HashMap<Id, &Instruction>, in_loop: &HashMap<*const Instruction, usize>) -> bool {
    let Some(load) = defs.get(&v) else { return false };
    let Some(Operand::IdRef(p)) = load.operands.first() else {
        return false;
    };
    let private = defs.get(&root(*p, defs)).is_some_and(|x| {
        x.opcode == Op::Variable && matches!(x.operands.first(), Some(Operand::StorageClass(StorageClass::Function)))
    });
    load.opcode == Op::Load && in_loop.contains_key(&(*load as *const Instruction)) && !private
}

/// The immediate post-dominator of each block (`None`: the exit, or no path to an exit), by
/// the iterative algorithm of Cooper, Harvey and Kennedy on the reversed graph.
fn post_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    let exit = n;
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(b);
        }
    }
    // Post-order of the reversed graph from the virtual exit (whose reversed successors are
    // the blocks without successors).
    let roots: Vec<usize> = (0..n).filter(|&b| succ[b].is_empty()).collect();
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    seen[exit] = true;
    let mut stack: Vec<(usize, usize)> = vec![(exit, 0)];
    while let Some((x, i)) = stack.last_mut() {
        let x = *x;
        let next = if x == exit { roots.get(*i) } else { pred[x].get(*i) };
        *i += 1;
        match next {
            Some(&y) if !seen[y] => {
                seen[y] = true;
                stack.push((y, 0));
            }
            Some(_) => {}
            None => {
                order.push(x);
                stack.pop();
            }
        }
    }
    let mut po = vec![usize::MAX; n + 1];
    for (i, &x) in order.iter().enumerate() {
        po[x] = i;
    }
    let mut idom: Vec<Option<usize>> = vec![None; n + 1];
    idom[exit] = Some(exit);
    let mut changed = true;
    while changed {
        changed = false;
        for &x in order.iter().rev() {
            if x == exit {
                continue;
            }
            let outs: Vec<usize> = if succ[x].is_empty() {
                vec![exit]
            } else {
                succ[x].clone()
            };
            let mut new: Option<usize> = None;
            for s in outs {
                if idom[s].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => s,
                    Some(mut a) => {
                        let mut b = s;
                        while a != b {
                            while po[a] < po[b] {
                                a = idom[a].unwrap_or(exit);
                            }
                            while po[b] < po[a] {
                                b = idom[b].unwrap_or(exit);
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && idom[x] != new {
                idom[x] = new;
                changed = true;
            }
        }
    }
    (0..n).map(|b| idom[b].filter(|&d| d != exit)).collect()
}

fn root_of(inst: &Instruction, i: usize, defs: &HashMap<Id, &Instruction>) -> Option<Id> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(p)) => Some(root(*p, defs)),
        _ => None,
    }
}
