//! Robust mode's group-level check (issue 20): an access whose address is a kernel argument's
//! pointer (or a `__local` variable) plus an index computed from the work-item ids, the
//! group's sizes, kernel arguments, constants and loop counters with simple bounds (see
//! [`Node`]) is checked once per work-group, before the group runs, over every value the
//! index can take in that group. A robust kernel with such accesses gets two work-group
//! functions: an *unchecked* one, without the checks of those accesses, and the ordinary
//! *checked* one, whose prologue evaluates the ranges and calls the unchecked one when every
//! range lies inside its memory. Otherwise the checked function runs the group as before
//! (each access checked on its own), so out-of-range behaviour is that of robust mode
//! whatever the group: a group runs unchecked only when none of those accesses can leave its
//! memory, for any work-item, on any path.
//!
//! The ranges are intervals of unsigned values computed at run time in the prologue; every
//! operation checks that its result cannot wrap at its SPIR-V width (and stays below 2^60, so
//! the arithmetic on bounds cannot overflow). A check that fails only sends the group to the
//! checked function.
//!
//! A loop counter `i = phi(init, i + step)` whose back edge is taken only when `i + step < B`
//! (unsigned, or signed with every value non-negative) lies in `[init.lo, max(init.hi,
//! B.hi - 1)]` provided `i + step` cannot wrap, which the prologue checks from the same bounds;
//! when `init` and `step` are one value each for the whole group, in `[init, init + (B.hi - 1 -
//! init) / step * step]`.

use super::context::{ArgVal, Ctx, Variant};
use super::layout::{Id, Scalar, Ty};
use super::robust_state::{Check, Node, Plan, Root, Terms};
use super::state::FnTx;
use crate::abi::ArgKind;
use crate::spirv::module::{ConstantValue, Function};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::{FuncId, Module as _};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, StorageClass};
use std::collections::{HashMap, HashSet};

/// Bounds stay below this: sums of a few of them cannot overflow 64 bits.
const LIMIT: u64 = 1 << 60;

struct Builder<'a, 'm> {
    cx: &'a Ctx<'m>,
    f: &'a Function,
    kinds: &'a [ArgKind],
    defs: HashMap<Id, (&'a Instruction, Id)>,
    nodes: Vec<(Node, u32)>,
    memo: HashMap<Id, Option<usize>>,
    visiting: HashSet<Id>,
    /// Values the check could not follow (for `CLIFT_DUMP_CODE`).
    missed: Vec<(Id, Op)>,
}

fn id_at(inst: &Instruction, i: usize) -> Option<Id> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(x)) => Some(*x),
        _ => None,
    }
}

fn lit_at(inst: &Instruction, i: usize) -> Option<u32> {
    match inst.operands.get(i) {
        Some(Operand::LiteralBit32(x)) => Some(*x),
        _ => None,
    }
}

impl<'a, 'm> Builder<'a, 'm> {
    fn push(&mut self, n: Node, w: u32) -> usize {
        self.nodes.push((n, w));
        self.nodes.len() - 1
    }

    /// The integer width of type `ty`.
    fn width(&self, ty: Id) -> Option<u32> {
        match self.cx.layout.get(ty).ok()?.ty {
            Ty::Scalar(Scalar::Int(w)) => Some(w),
            _ => None,
        }
    }

    fn type_of(&self, id: Id) -> Option<Id> {
        if let Some((_, t)) = self.f.params.iter().find(|(p, _)| *p == id) {
            return Some(*t);
        }
        if let Some(c) = self.cx.m.constant(id) {
            return Some(c.ty);
        }
        self.defs.get(&id).and_then(|(i, _)| i.result_type)
    }

    /// A constant's bits (`w` wide), when it is a plain integer constant.
    fn const_bits(&self, id: Id) -> Option<(u64, u32)> {
        let c = self.cx.m.constant(id)?;
        if c.spec {
            return None;
        }
        let w = self.width(c.ty)?;
        let v = match c.value {
            ConstantValue::Scalar(v) => v,
            ConstantValue::Null => 0,
            _ => return None,
        };
        let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        Some((v & mask, w))
    }

    /// A constant as a signed number.
    fn const_signed(&self, id: Id) -> Option<i64> {
        let (v, w) = self.const_bits(id)?;
        Some(if w >= 64 {
            v as i64
        } else {
            ((v << (64 - w)) as i64) >> (64 - w)
        })
    }

    fn node(&mut self, id: Id) -> Option<usize> {
        if let Some(x) = self.memo.get(&id) {
            return *x;
        }
        if !self.visiting.insert(id) {
            return None;
        }
        let r = self.build(id);
        if r.is_none() {
            if let Some((i, _)) = self.defs.get(&id) {
                self.missed.push((id, i.opcode));
            }
        }
        self.visiting.remove(&id);
        self.memo.insert(id, r);
        r
    }

    /// `x`, checked to be below 2^bits (a use where it must not be negative as a signed
    /// number of `bits + 1` bits, or a narrowing).
    fn fits(&mut self, x: usize, bits: u32) -> usize {
        if bits >= 60 {
            return x;
        }
        let w = self.nodes[x].1;
        self.push(Node::Fits(x, bits), w)
    }

    fn build(&mut self, id: Id) -> Option<usize> {
        if let Some((v, w)) = self.const_bits(id) {
            return (v < LIMIT).then(|| self.push(Node::Const(v), w));
        }
        if let Some(k) = self.f.params.iter().position(|(p, _)| *p == id) {
            let w = self.width(self.f.params[k].1)?;
            return (self.kinds.get(k) == Some(&ArgKind::Value)).then(|| self.push(Node::Param(k), w));
        }
        let (inst, block) = *self.defs.get(&id)?;
        let w = self.width(inst.result_type?)?;
        let a = id_at(inst, 0);
        let b = id_at(inst, 1);
        match inst.opcode {
            Op::CompositeExtract => {
                let d = lit_at(inst, 1)?;
                let (ld, _) = *self.defs.get(&a?)?;
                if ld.opcode != Op::Load || inst.operands.len() != 2 {
                    return None;
                }
                let bi = *self.cx.builtins.get(&id_at(ld, 0)?)?;
                let ok = matches!(
                    bi,
                    BuiltIn::GlobalInvocationId
                        | BuiltIn::LocalInvocationId
                        | BuiltIn::WorkgroupId
                        | BuiltIn::WorkgroupSize
                        | BuiltIn::EnqueuedWorkgroupSize
                        | BuiltIn::GlobalSize
                        | BuiltIn::NumWorkgroups
                        | BuiltIn::GlobalOffset
                );
                (ok && d < 3).then(|| self.push(Node::Builtin(bi, d), w))
            }
            Op::IAdd => {
                let (a, b) = (a?, b?);
                // Adding a negative constant subtracts.
                for (x, c) in [(a, b), (b, a)] {
                    if let Some(c) = self.const_signed(c).filter(|c| *c < 0) {
                        let m = c.unsigned_abs();
                        if m >= LIMIT {
                            return None;
                        }
                        let x = self.node(x)?;
                        let m = self.push(Node::Const(m), w);
                        return Some(self.push(Node::Sub(x, m), w));
                    }
                }
                let (x, y) = (self.node(a)?, self.node(b)?);
                Some(self.push(Node::Add(x, y), w))
            }
            Op::ISub => {
                let (x, y) = (self.node(a?)?, self.node(b?)?);
                Some(self.push(Node::Sub(x, y), w))
            }
            Op::IMul => {
                let (a, b) = (a?, b?);
                for (x, c) in [(a, b), (b, a)] {
                    if let Some((c, _)) = self.const_bits(c).filter(|(c, _)| *c < LIMIT) {
                        let x = self.node(x)?;
                        return Some(self.push(Node::MulC(x, c), w));
                    }
                }
                let (x, y) = (self.node(a)?, self.node(b)?);
                Some(self.push(Node::Mul(x, y), w))
            }
            Op::ShiftLeftLogical => {
                let (k, _) = self.const_bits(b?)?;
                if k >= 60 || k >= u64::from(w) {
                    return None;
                }
                let x = self.node(a?)?;
                Some(self.push(Node::MulC(x, 1 << k), w))
            }
            Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let (k, _) = self.const_bits(b?)?;
                if k >= u64::from(w) {
                    return None;
                }
                let mut x = self.node(a?)?;
                if inst.opcode == Op::ShiftRightArithmetic {
                    x = self.fits(x, w - 1);
                }
                Some(self.push(Node::Shr(x, k as u32), w))
            }
            Op::UDiv | Op::SDiv | Op::UMod | Op::SRem | Op::SMod => {
                let signed = !matches!(inst.opcode, Op::UDiv | Op::UMod);
                let c = if signed {
                    self.const_signed(b?).filter(|c| *c > 0)? as u64
                } else {
                    self.const_bits(b?).map(|(c, _)| c).filter(|c| *c > 0)?
                };
                if inst.opcode == Op::UMod && c <= LIMIT {
                    // Whatever the value, the remainder is below `c`.
                    let Some(x) = self.node(a?) else {
                        return Some(self.push(Node::Upto(c - 1), w));
                    };
                    return Some(self.push(Node::RemC(x, c), w));
                }
                let mut x = self.node(a?)?;
                if signed {
                    x = self.fits(x, w - 1);
                }
                Some(if matches!(inst.opcode, Op::UDiv | Op::SDiv) {
                    self.push(Node::DivC(x, c), w)
                } else {
                    self.push(Node::RemC(x, c), w)
                })
            }
            Op::BitwiseAnd => {
                let (a, b) = (a?, b?);
                for (x, c) in [(a, b), (b, a)] {
                    if let Some((m, _)) = self.const_bits(c) {
                        // Whatever the value, `x & m <= m`.
                        return match self.node(x) {
                            Some(x) => Some(self.push(Node::AndC(x, m), w)),
                            None => (m < LIMIT).then(|| self.push(Node::Upto(m), w)),
                        };
                    }
                }
                None
            }
            Op::UConvert | Op::SConvert | Op::Bitcast => {
                let a = a?;
                let ws = self.width(self.type_of(a)?)?;
                let x = self.node(a)?;
                Some(match inst.opcode {
                    Op::Bitcast if ws != w => return None,
                    Op::SConvert if w > ws => self.fits(x, ws - 1),
                    _ if w < ws => self.fits(x, w),
                    _ => x,
                })
            }
            Op::CopyObject => self.node(a?),
            Op::Select => {
                let (x, y) = (self.node(b?)?, self.node(id_at(inst, 2)?)?);
                Some(self.push(Node::Hull(vec![x, y]), w))
            }
            Op::Phi => {
                if let Some(n) = self.induction(inst, block, w) {
                    return Some(n);
                }
                let mut xs = Vec::new();
                let mut i = 0;
                while i < inst.operands.len() {
                    xs.push(self.node(id_at(inst, i)?)?);
                    i += 2;
                }
                Some(self.push(Node::Hull(xs), w))
            }
            _ => None,
        }
    }

    /// Phi `inst` of block `block` as a loop counter (module docs).
    fn induction(&mut self, inst: &Instruction, block: Id, w: u32) -> Option<usize> {
        if inst.operands.len() != 4 {
            return None;
        }
        let me = inst.result_id?;
        for back in [0usize, 2] {
            let (next, latch) = (id_at(inst, back)?, id_at(inst, back + 1)?);
            let init = id_at(inst, 2 - back)?;
            let Some((add, _)) = self.defs.get(&next).copied() else {
                continue;
            };
            if add.opcode != Op::IAdd {
                continue;
            }
            let step = match (id_at(add, 0), id_at(add, 1)) {
                (Some(x), Some(s)) if x == me => s,
                (Some(s), Some(x)) if x == me => s,
                _ => continue,
            };
            // The latch ends with `if (next < bound) goto block; else goto elsewhere`.
            let Some(lb) = self.f.blocks.iter().find(|b| b.label == latch) else {
                continue;
            };
            let Some(term) = lb.instructions.last() else {
                continue;
            };
            if term.opcode != Op::BranchConditional || id_at(term, 1) != Some(block) || id_at(term, 2) == Some(block) {
                continue;
            }
            let Some((cmp, _)) = id_at(term, 0).and_then(|c| self.defs.get(&c).copied()) else {
                continue;
            };
            let signed = match cmp.opcode {
                Op::ULessThan => false,
                Op::SLessThan => true,
                _ => continue,
            };
            if id_at(cmp, 0) != Some(next) {
                continue;
            }
            if self.const_signed(step).is_some_and(|s| s < 0) {
                continue;
            }
            let (Some(init), Some(step), Some(bound)) = (
                self.node(init),
                self.node(step),
                id_at(cmp, 1).and_then(|b| self.node(b)),
            ) else {
                continue;
            };
            return Some(self.push(
                Node::Induction {
                    init,
                    step,
                    bound,
                    signed,
                },
                w,
            ));
        }
        None
    }

    /// Pointer `id` as a root plus `sum(node * stride) + constant` bytes.
    fn pointer(&mut self, id: Id, depth: u32) -> Option<(Root, Terms, i64)> {
        if depth > 16 {
            return None;
        }
        if let Some(k) = self.f.params.iter().position(|(p, _)| *p == id) {
            return matches!(
                self.kinds.get(k),
                Some(ArgKind::Global | ArgKind::Constant | ArgKind::Local)
            )
            .then_some((Root::Arg(k), Vec::new(), 0));
        }
        if self.cx.local_offsets.contains_key(&id)
            && matches!(self.cx.globals.get(&id), Some((_, StorageClass::Workgroup)))
        {
            return Some((Root::Local(id), Vec::new(), 0));
        }
        let (inst, _) = *self.defs.get(&id)?;
        match inst.opcode {
            Op::CopyObject
            | Op::Bitcast
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::GenericCastToPtrExplicit => self.pointer(id_at(inst, 0)?, depth + 1),
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
                let base = id_at(inst, 0)?;
                let (root, mut terms, mut c) = self.pointer(base, depth + 1)?;
                let mut cur = match self.cx.globals.get(&base) {
                    Some((pointee, _)) => *pointee,
                    None => match self.cx.layout.get(self.type_of(base)?).ok()?.ty {
                        Ty::Pointer(_, p) => p,
                        _ => return None,
                    },
                };
                let mut i = 1;
                let with_element = matches!(inst.opcode, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
                while i < inst.operands.len() {
                    let idx = id_at(inst, i)?;
                    let info = self.cx.layout.get(cur).ok()?.clone();
                    let stride = if with_element && i == 1 {
                        match info.ty {
                            Ty::Array(..) => info.size,
                            _ => super::layout::round_up(info.size, info.align),
                        }
                    } else {
                        match info.ty {
                            Ty::Struct(ref ms) => {
                                let k = self.const_signed(idx)? as usize;
                                c = c.checked_add(*info.offsets.get(k)? as i64)?;
                                cur = *ms.get(k)?;
                                i += 1;
                                continue;
                            }
                            Ty::Array(e, _) => {
                                cur = e;
                                info.stride
                            }
                            Ty::Vector(..) => {
                                cur = info.elem;
                                info.stride
                            }
                            _ => return None,
                        }
                    };
                    if let Some(k) = self.const_signed(idx) {
                        c = c.checked_add(k.checked_mul(i64::try_from(stride).ok()?)?)?;
                    } else {
                        let w = self.width(self.type_of(idx)?)?;
                        let x = self.node(idx)?;
                        // Indices are signed: the value must not be negative.
                        let x = self.fits(x, w - 1);
                        if stride != 0 {
                            terms.push((x, stride));
                        }
                    }
                    i += 1;
                }
                (c.unsigned_abs() < LIMIT).then_some((root, terms, c))
            }
            _ => None,
        }
    }
}

/// The group-level check of kernel body `f` (argument kinds `kinds`).
pub(crate) fn plan(cx: &Ctx, f: &Function, kinds: &[ArgKind]) -> Plan {
    let mut defs = HashMap::new();
    for blk in &f.blocks {
        for inst in &blk.instructions {
            if let Some(r) = inst.result_id {
                defs.insert(r, (inst, blk.label));
            }
        }
    }
    let mut b = Builder {
        cx,
        f,
        kinds,
        defs,
        nodes: Vec::new(),
        memo: HashMap::new(),
        visiting: HashSet::new(),
        missed: Vec::new(),
    };
    // The pointers memory is accessed through.
    let mut ptrs = Vec::new();
    for blk in &f.blocks {
        for inst in &blk.instructions {
            let ops: &[usize] = match inst.opcode {
                Op::Load | Op::Store => &[0],
                Op::CopyMemory | Op::CopyMemorySized => &[0, 1],
                op if crate::spirv::validate::is_atomic(op) => &[0],
                _ => &[],
            };
            for &i in ops {
                if let Some(p) = id_at(inst, i) {
                    if !ptrs.contains(&p) {
                        ptrs.push(p);
                    }
                }
            }
        }
    }
    let mut checks: Vec<Check> = Vec::new();
    let mut proven = HashMap::new();
    let dump = std::env::var_os("CLIFT_DUMP_CODE").is_some();
    let total = ptrs.len();
    for p in ptrs {
        let pointee = match cx.globals.get(&p) {
            Some((e, _)) => Some(*e),
            None => b.type_of(p).and_then(|t| match cx.layout.get(t).ok()?.ty {
                Ty::Pointer(_, e) => Some(e),
                _ => None,
            }),
        };
        let Some(n) = pointee
            .and_then(|e| Some(cx.layout.get(e).ok()?.size))
            .filter(|n| *n > 0 && *n < LIMIT)
        else {
            continue;
        };
        let Some((root, terms, c)) = b.pointer(p, 0) else {
            if dump {
                eprintln!("== robust: %{p} not covered: cannot follow {:?}", b.missed);
            }
            b.missed.clear();
            continue;
        };
        let end = c + n as i64;
        match checks.iter_mut().find(|k| k.root == root && k.terms == terms) {
            Some(k) => {
                k.cmin = k.cmin.min(c);
                k.end = k.end.max(end);
            }
            None => checks.push(Check {
                root,
                terms,
                cmin: c,
                end,
            }),
        }
        proven.insert(p, n);
    }
    if dump {
        eprintln!(
            "== robust: the group-level check covers {} of {total} pointers",
            proven.len()
        );
    }
    Plan {
        nodes: b.nodes,
        checks,
        proven,
    }
}

impl FnTx<'_, '_, '_> {
    /// The checked work-group function's prologue (its current block, parameters `(args,
    /// work item, spill)`): evaluates the group-level check of `plan` and, when every range
    /// is inside its memory, runs the group through `target` (the unchecked function) and
    /// returns. `args`: each argument's `(lo, size)`.
    pub(crate) fn rb_dispatch(&mut self, plan: &Plan, target: FuncId, argvals: &[ArgVal], args: &[(Value, Value)]) {
        let Some(blk) = self.b.current_block() else {
            return;
        };
        let params = self.b.block_params(blk).to_vec();
        if params.len() != 3 {
            return;
        }
        // Only the nodes some check uses (a failed attempt may have left others).
        let mut used = vec![false; plan.nodes.len()];
        let mut stack: Vec<usize> = plan.checks.iter().flat_map(|c| c.terms.iter().map(|t| t.0)).collect();
        while let Some(x) = stack.pop() {
            if used[x] {
                continue;
            }
            used[x] = true;
            match &plan.nodes[x].0 {
                Node::Const(_) | Node::Upto(_) | Node::Param(_) | Node::Builtin(..) => {}
                Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) => stack.extend([*a, *b]),
                Node::MulC(a, _)
                | Node::Shr(a, _)
                | Node::DivC(a, _)
                | Node::RemC(a, _)
                | Node::AndC(a, _)
                | Node::Fits(a, _) => stack.push(*a),
                Node::Hull(xs) => stack.extend(xs.iter().copied()),
                Node::Induction { init, step, bound, .. } => stack.extend([*init, *step, *bound]),
            }
        }
        let flags = MemFlagsData::trusted().with_readonly();
        let wi = self.wi;
        let mut wi_cache: HashMap<usize, Value> = HashMap::new();
        let mut ok = self.b.ins().iconst(types::I8, 1);
        let mut vals: Vec<(Value, Value)> = Vec::with_capacity(plan.nodes.len());
        // `ok &= x < limit` (unsigned).
        macro_rules! below {
            ($x:expr, $lim:expr) => {{
                let c = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, $x, $lim as i64);
                ok = self.b.ins().band(ok, c);
            }};
        }
        let bound = |w: u32| -> u64 {
            if w >= 60 {
                LIMIT
            } else {
                1u64 << w
            }
        };
        for (i, (node, w)) in plan.nodes.iter().enumerate() {
            if !used[i] {
                let z = self.b.ins().iconst(types::I64, 0);
                vals.push((z, z));
                continue;
            }
            let w = *w;
            let v = match node {
                Node::Const(c) => {
                    let c = self.b.ins().iconst(types::I64, *c as i64);
                    (c, c)
                }
                Node::Upto(m) => (
                    self.b.ins().iconst(types::I64, 0),
                    self.b.ins().iconst(types::I64, *m as i64),
                ),
                Node::Param(k) => {
                    let Some(ArgVal::Leaves(l)) = argvals.get(*k) else {
                        return;
                    };
                    let Some(&x) = l.first() else {
                        return;
                    };
                    let t = self.b.func.dfg.value_type(x);
                    if !t.is_int() || t.bits() > 64 {
                        return;
                    }
                    let x = if t.bits() < 64 {
                        self.b.ins().uextend(types::I64, x)
                    } else {
                        x
                    };
                    below!(x, bound(w));
                    (x, x)
                }
                Node::Builtin(bi, d) => {
                    let d = *d as usize;
                    let mut ld = |b: &mut cranelift_frontend::FunctionBuilder, off: usize| -> Value {
                        *wi_cache
                            .entry(off + 8 * d)
                            .or_insert_with(|| b.ins().load(types::I64, flags, wi, (off + 8 * d) as i32))
                    };
                    use super::driver as drv;
                    let point = |x: Value| (x, x);
                    match bi {
                        BuiltIn::LocalInvocationId => {
                            let l = ld(&mut self.b, drv::OFF_LOCAL_SIZE);
                            let hi = self.b.ins().iadd_imm_s(l, -1);
                            below!(hi, LIMIT);
                            (self.b.ins().iconst(types::I64, 0), hi)
                        }
                        BuiltIn::GlobalInvocationId => {
                            let g = ld(&mut self.b, drv::OFF_GROUP_ID);
                            let e = ld(&mut self.b, drv::OFF_ENQ_LOCAL_SIZE);
                            let o = ld(&mut self.b, drv::OFF_GLOBAL_OFFSET);
                            let l = ld(&mut self.b, drv::OFF_LOCAL_SIZE);
                            // Each bound below 2^30 so that the products cannot wrap.
                            below!(g, 1u64 << 30);
                            below!(e, 1u64 << 30);
                            below!(o, 1u64 << 59);
                            below!(l, 1u64 << 59);
                            let lo = self.b.ins().imul(g, e);
                            let lo = self.b.ins().iadd(lo, o);
                            let hi = self.b.ins().iadd(lo, l);
                            let hi = self.b.ins().iadd_imm_s(hi, -1);
                            below!(hi, LIMIT);
                            (lo, hi)
                        }
                        BuiltIn::WorkgroupId => point(ld(&mut self.b, drv::OFF_GROUP_ID)),
                        BuiltIn::WorkgroupSize => point(ld(&mut self.b, drv::OFF_LOCAL_SIZE)),
                        BuiltIn::EnqueuedWorkgroupSize => point(ld(&mut self.b, drv::OFF_ENQ_LOCAL_SIZE)),
                        BuiltIn::GlobalSize => point(ld(&mut self.b, drv::OFF_GLOBAL_SIZE)),
                        BuiltIn::NumWorkgroups => point(ld(&mut self.b, drv::OFF_NUM_GROUPS)),
                        BuiltIn::GlobalOffset => point(ld(&mut self.b, drv::OFF_GLOBAL_OFFSET)),
                        _ => return,
                    }
                }
                Node::Add(a, b) => {
                    let (a, b) = (vals[*a], vals[*b]);
                    let lo = self.b.ins().iadd(a.0, b.0);
                    let hi = self.b.ins().iadd(a.1, b.1);
                    below!(hi, bound(w));
                    (lo, hi)
                }
                Node::Sub(a, b) => {
                    let (a, b) = (vals[*a], vals[*b]);
                    let c = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a.0, b.1);
                    ok = self.b.ins().band(ok, c);
                    (self.b.ins().isub(a.0, b.1), self.b.ins().isub(a.1, b.0))
                }
                Node::Mul(a, b) => {
                    let (a, b) = (vals[*a], vals[*b]);
                    below!(a.1, 1u64 << 30);
                    below!(b.1, 1u64 << 30);
                    let lo = self.b.ins().imul(a.0, b.0);
                    let hi = self.b.ins().imul(a.1, b.1);
                    below!(hi, bound(w));
                    (lo, hi)
                }
                Node::MulC(a, c) => {
                    let a = vals[*a];
                    if *c == 0 {
                        let z = self.b.ins().iconst(types::I64, 0);
                        (z, z)
                    } else {
                        below!(a.1, (LIMIT - 1) / c + 1);
                        let lo = self.b.ins().imul_imm_s(a.0, *c as i64);
                        let hi = self.b.ins().imul_imm_s(a.1, *c as i64);
                        below!(hi, bound(w));
                        (lo, hi)
                    }
                }
                Node::Shr(a, k) => {
                    let a = vals[*a];
                    (
                        self.b.ins().ushr_imm_u(a.0, i64::from(*k)),
                        self.b.ins().ushr_imm_u(a.1, i64::from(*k)),
                    )
                }
                Node::DivC(a, c) => {
                    let a = vals[*a];
                    let c = self.b.ins().iconst(types::I64, *c as i64);
                    (self.b.ins().udiv(a.0, c), self.b.ins().udiv(a.1, c))
                }
                Node::RemC(a, c) => {
                    let a = vals[*a];
                    let small = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, a.1, *c as i64);
                    let z = self.b.ins().iconst(types::I64, 0);
                    let lo = self.b.ins().select(small, a.0, z);
                    let cm1 = self.b.ins().iconst(types::I64, (*c - 1) as i64);
                    (lo, self.b.ins().umin(a.1, cm1))
                }
                Node::AndC(a, m) => {
                    let a = vals[*a];
                    let m = self.b.ins().iconst(types::I64, *m as i64);
                    (self.b.ins().iconst(types::I64, 0), self.b.ins().umin(a.1, m))
                }
                Node::Fits(a, bits) => {
                    let a = vals[*a];
                    below!(a.1, bound(*bits));
                    a
                }
                Node::Hull(xs) => {
                    let mut acc = vals[xs[0]];
                    for x in &xs[1..] {
                        let v = vals[*x];
                        acc = (self.b.ins().umin(acc.0, v.0), self.b.ins().umax(acc.1, v.1));
                    }
                    acc
                }
                Node::Induction {
                    init,
                    step,
                    bound: bd,
                    signed,
                } => {
                    let (init, step, bd) = (vals[*init], vals[*step], vals[*bd]);
                    let m1 = self.b.ins().iadd_imm_s(bd.1, -1);
                    let z = self.b.ins().iconst(types::I64, 0);
                    let none = self.b.ins().icmp_imm_u(IntCC::Equal, bd.1, 0);
                    let m1 = self.b.ins().select(none, z, m1);
                    let loose = self.b.ins().umax(init.1, m1);
                    // With one start and one step for the whole group, the counter is
                    // `init + m * step`: at most `init + (bound - 1 - init) / step * step`
                    // (`t += lsz` loops end at the last multiple below the bound).
                    let one = self.b.ins().iconst(types::I64, 1);
                    let s0 = self.b.ins().icmp_imm_u(IntCC::Equal, step.1, 0);
                    let s1 = self.b.ins().select(s0, one, step.1);
                    let room = self.b.ins().isub(m1, init.1);
                    let q = self.b.ins().udiv(room, s1);
                    let q = self.b.ins().imul(q, s1);
                    let tight = self.b.ins().iadd(init.1, q);
                    let c1 = self.b.ins().icmp(IntCC::Equal, init.0, init.1);
                    let c2 = self.b.ins().icmp(IntCC::Equal, step.0, step.1);
                    let c3 = self.b.ins().icmp(IntCC::UnsignedGreaterThan, bd.1, init.1);
                    let sn = self.b.ins().icmp_imm_u(IntCC::NotEqual, step.1, 0);
                    let c = self.b.ins().band(c1, c2);
                    let c = self.b.ins().band(c, c3);
                    let c = self.b.ins().band(c, sn);
                    let hi = self.b.ins().select(c, tight, loose);
                    // The counter's next value cannot wrap (nor turn negative).
                    let next = self.b.ins().iadd(hi, step.1);
                    below!(next, bound(if *signed { w - 1 } else { w }));
                    (init.0, hi)
                }
            };
            vals.push(v);
        }
        for c in &plan.checks {
            let (delta, size) = match c.root {
                Root::Arg(k) => {
                    let Some(ArgVal::Leaves(l)) = argvals.get(k) else {
                        return;
                    };
                    let (Some(&p), Some(&(lo, size))) = (l.first(), args.get(k)) else {
                        return;
                    };
                    (self.b.ins().isub(p, lo), size)
                }
                Root::Local(id) => {
                    let Some(size) = self
                        .cx
                        .globals
                        .get(&id)
                        .and_then(|(pointee, _)| self.cx.layout.get(*pointee).ok())
                        .map(|i| i.size)
                    else {
                        return;
                    };
                    (
                        self.b.ins().iconst(types::I64, 0),
                        self.b.ins().iconst(types::I64, size as i64),
                    )
                }
            };
            below!(delta, LIMIT);
            below!(size, LIMIT);
            let (mut lo, mut hi) = (delta, delta);
            for (x, stride) in &c.terms {
                let v = vals[*x];
                below!(v.1, (LIMIT - 1) / stride + 1);
                let tl = self.b.ins().imul_imm_s(v.0, *stride as i64);
                let th = self.b.ins().imul_imm_s(v.1, *stride as i64);
                lo = self.b.ins().iadd(lo, tl);
                hi = self.b.ins().iadd(hi, th);
                below!(hi, LIMIT);
            }
            let first = self.b.ins().iadd_imm_s(lo, c.cmin);
            let end = self.b.ins().iadd_imm_s(hi, c.end);
            let a = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, first, 0);
            let e = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, end, size);
            ok = self.b.ins().band(ok, a);
            ok = self.b.ins().band(ok, e);
        }
        let (fast, rest) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], rest, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(rest);
        self.b.switch_to_block(fast);
        let fref = self.cx.jit.declare_func_in_func(target, self.b.func);
        self.b.ins().call(fref, &params);
        self.b.ins().return_(&[]);
        self.b.switch_to_block(rest);
    }
}

/// Builds a robust kernel's pair of work-group functions with `build` (module docs), or
/// `None` when the kernel has no access the group-level check covers (or `CLIFT_ROBUST_GROUP=0`)
/// and the single function is to be built as before.
pub(crate) fn build_pair<F>(
    cx: &mut Ctx,
    body: &Function,
    kinds: &[ArgKind],
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
    mut build: F,
) -> Result<Option<super::context::GroupFn>, super::CompileError>
where
    F: FnMut(
        &mut Ctx,
        &mut Context,
        &mut FunctionBuilderContext,
    ) -> Result<super::context::GroupFn, super::CompileError>,
{
    if !cx.opts.robust || std::env::var("CLIFT_ROBUST_GROUP").is_ok_and(|v| v == "0") {
        return Ok(None);
    }
    // With CLIFT_DUMP_CODE (debugging aid), `plan` says which accesses the check covers.
    let p = plan(cx, body, kinds);
    if p.is_empty() {
        return Ok(None);
    }
    cx.rb_variant = Variant::Unchecked;
    let u = build(cx, ctx, fbc);
    cx.rb_variant = Variant::Plain;
    let u = match u {
        Ok(u) => u,
        Err(_) => {
            ctx.clear();
            *fbc = FunctionBuilderContext::new();
            return Ok(None);
        }
    };
    cx.rb_variant = Variant::Checked(u.fid);
    let c = build(cx, ctx, fbc);
    cx.rb_variant = Variant::Plain;
    let c = c?;
    if c.record_size == u.record_size {
        return Ok(Some(c));
    }
    // The two took different paths (spill records of different sizes): one function only.
    cx.rb_variant = Variant::Retry;
    let r = build(cx, ctx, fbc);
    cx.rb_variant = Variant::Plain;
    r.map(Some)
}
