//! Work-group and sub-group collective functions: `work_group_all/any/broadcast/reduce/scan_*`
//! (SPIR-V OpGroupAll, OpGroupAny, OpGroupBroadcast, OpGroupIAdd, OpGroupFAdd,
//! OpGroup[SUF]Min, OpGroup[SUF]Max with Workgroup or Subgroup scope) and the
//! `cl_khr_subgroup_*` extensions' OpGroupNonUniform* instructions (vote, ballot, arithmetic
//! with reduce / scans / clustered reduce, shuffle, shuffle up / down, rotate).
//!
//! Built on the barrier machinery rather than beside it: before code generation `rewrite`
//! replaces each collective by three instructions,
//!
//! ```text
//! put(site, x [, aux])            ; each arriving work-item deposits its operand (clift_wg_put)
//! OpControlBarrier                ; a region boundary: one region loop deposits...
//! %r = get(site, operation)       ; ...a later one reads the result (clift_wg_get)
//! ```
//!
//! `put` and `get` are OpExtInst of an internal instruction set (`SET_NAME`), so every path
//! that runs barriers (region loops, the single sweep loop, fibers) runs collectives too, and
//! the liveness at the barrier keeps the operands and results that cross it as for any value.
//! `site` numbers the call sites of the module; `aux` is a work-item's own second operand
//! (a shuffle's index or delta).
//!
//! The group's operands live in a per-thread scratch area (a work-group runs on one thread from
//! start to end): per work-item its operand (up to 16 components and `aux`) and the call site
//! it waits at (its *tag*, set by `put`). The first `get` of a round computes the whole answer
//! at once, in order of local linear id, for the *participants*: the work-items of its slice
//! (the work-group, or the sub-group) whose tag is this call site. It marks them *pending*;
//! each participant's `get` then only reads its own answer and clears its tag and mark. No
//! second barrier is needed after the `get`: a work-item's next `put` only writes its own
//! operand, which only a later round reads (every answer of this round is already computed).
//!
//! Non-uniform operations (divergent control flow): a call site is a sync point that only the
//! work-items reaching it join. A work-item that does not reach it never tags it, so the round
//! is exactly the work-items that arrived: with region loops, the region after the call site's
//! barrier runs only the work-items waiting there, and the first of them computes before any
//! work-item of the region can go on to another call site. With the single sweep loop and
//! fibers, where every work-item resumes in each sweep, a work-item that reaches the call site
//! in the same sweep before the first `get` joins that round: it is pending when it resumes,
//! and reads the answer computed with it. Limits: work-items reaching one call site along
//! different paths (a loop run a different number of times, say) before its round starts are
//! one round, where SIMD hardware could run them as two; and the round is formed when the first
//! `get` runs, so the set of participants is "the work-items that arrived before the group
//! went on", which is what the extension specifications call the active work-items for
//! structured divergence (`if` / `else`, loops with a divergent exit) and the CTS tests.
//! A call site is the SPIR-V instruction: two calls the front end merged are one site (the
//! OpenCL C pipeline keeps LLVM's simplifycfg from hoisting or sinking the common calls of
//! two branches, runtime `clc::pipeline`). A work-item that returns, or waits at another call
//! site or barrier, is simply not a participant: nothing waits for it, so nothing can hang.
//! Each call site costs a barrier (a region boundary) even in uniform control flow.
//!
//! Sub-groups (`cl_khr_subgroups`, `__opencl_c_subgroups`): sub-group `k` of a work-group is
//! the work-items of local linear ids `k * SUB_GROUP_SIZE ..` (`abi::SUB_GROUP_SIZE`, 32; the
//! last sub-group of a group may be smaller). Sub-group operations are the collectives above
//! over that slice of the operands (Subgroup scope is split the same way). In region loops and
//! the single sweep loop a sub-group barrier is a work-group barrier: every work-item of a
//! Clift work-group runs on one thread, region by region, so a narrower barrier would not be
//! cheaper. On fibers (`driver::run_fibers`: kernels with a potential spin loop, `spin`, and
//! the fallback) a sub-group barrier waits for its own sub-group only, so sub-groups may run
//! different numbers of iterations around it and a sub-group spinning for another one does not
//! hold that one up: independent forward progress, which `cl_khr_subgroups` requires. Why 32: a common sub-group
//! size (a warp), which divides the usual power-of-two work-group sizes, and at most the 128
//! work-items the `cl_khr_subgroup_ballot` masks (uint4) can describe.
//!
//! Operations of one work-item only (`sub_group_inverse_ballot`, `ballot_bit_extract`,
//! `ballot_bit_count` and its scans, `ballot_find_lsb/msb`, the `get_sub_group_*_mask`
//! built-in variables) are translated in place (`sub_group_local`, `sub_group_builtin`).
//!
//! Undefined results are values, never faults: a shuffle or broadcast from an id outside the
//! sub-group (or from a work-item that is not active) reads 0 or a stale operand.
use super::context::Ctx;
use super::driver as drv;
use super::layout::Scalar;
use super::state::{op_id, op_lit, result, FnTx, R};
use crate::abi::SUB_GROUP_SIZE;
use crate::codegen::driver::{Scratch, WorkItem, SCRATCH};
use crate::spirv::module::Module;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, GroupOperation, Op, Scope, StorageClass};
use std::collections::HashMap;

/// The name of the internal extended instruction set (never in a user's module: the rewrite
/// adds its import with a fresh id).
pub(crate) const SET_NAME: &str = "Clift.collective";

/// `put`'s instruction number: this bit set; `PUT_SIGNED` for operands extended as signed.
/// Operands: site (literal), then the value (absent for `sub_group_elect`), then `aux`.
const PUT: u32 = 0x8000_0000;
const PUT_SIGNED: u32 = 0x4000_0000;
const PUT_VALUE: u32 = 0x2000_0000;
const PUT_AUX: u32 = 0x1000_0000;

// `get`'s instruction number: mode | arith << 8 | kind << 12 | SUB_GROUP, width << 16 added at
// code generation. Operands: site, cluster size, the operand's type (literals), then for
// broadcasts the source id.
/// Set in `get`'s instruction number for Subgroup scope.
const SUB_GROUP: u32 = 0x4000_0000;
const MODE_REDUCE: u32 = 0;
const MODE_INCLUSIVE: u32 = 1;
const MODE_EXCLUSIVE: u32 = 2;
const MODE_BROADCAST: u32 = 3;
/// Sub-group broadcast: the source is a sub-group local id.
const MODE_BROADCAST_LINEAR: u32 = 4;
const MODE_CLUSTERED: u32 = 5;
const MODE_BROADCAST_FIRST: u32 = 6;
const MODE_ELECT: u32 = 7;
const MODE_ALL_EQUAL: u32 = 8;
const MODE_BALLOT: u32 = 9;
const MODE_SHUFFLE: u32 = 10;
const MODE_SHUFFLE_XOR: u32 = 11;
const MODE_SHUFFLE_UP: u32 = 12;
const MODE_SHUFFLE_DOWN: u32 = 13;
const MODE_ROTATE: u32 = 14;
const ARITH_ADD: u32 = 0;
const ARITH_MIN: u32 = 1;
const ARITH_MAX: u32 = 2;
/// Logical and / or (the result is 0 or 1).
const ARITH_AND: u32 = 3;
const ARITH_OR: u32 = 4;
const ARITH_MUL: u32 = 5;
const ARITH_BAND: u32 = 6;
const ARITH_BOR: u32 = 7;
const ARITH_BXOR: u32 = 8;
const ARITH_LXOR: u32 = 9;
const KIND_SIGNED: u32 = 0;
const KIND_UNSIGNED: u32 = 1;
const KIND_FLOAT: u32 = 2;

/// Components kept per work-item: 16 of the operand, then `aux`.
const STRIDE: usize = 17;
const AUX: u32 = 16;

/// How `rewrite` splits one collective.
struct Plan {
    mode: u32,
    arith: u32,
    kind: u32,
    sub_group: bool,
    value: Option<u32>,
    aux: Option<u32>,
    /// A broadcast's source id.
    extra: Option<u32>,
    cluster: u32,
}

fn const_of(m: &Module, id: u32) -> Option<u64> {
    match m.constant(id)?.value {
        crate::spirv::module::ConstantValue::Scalar(v) => Some(v),
        _ => None,
    }
}

fn scope_of(m: &Module, inst: &Instruction) -> Option<u32> {
    let id = match inst.operands.first()? {
        Operand::IdScope(s) | Operand::IdRef(s) => *s,
        _ => return None,
    };
    const_of(m, id).map(|v| v as u32)
}

/// The non-uniform arithmetic instructions: (arithmetic, operand kind).
fn non_uniform_arith(op: Op) -> Option<(u32, u32)> {
    Some(match op {
        Op::GroupNonUniformIAdd => (ARITH_ADD, KIND_SIGNED),
        Op::GroupNonUniformFAdd => (ARITH_ADD, KIND_FLOAT),
        Op::GroupNonUniformIMul => (ARITH_MUL, KIND_SIGNED),
        Op::GroupNonUniformFMul => (ARITH_MUL, KIND_FLOAT),
        Op::GroupNonUniformSMin => (ARITH_MIN, KIND_SIGNED),
        Op::GroupNonUniformUMin => (ARITH_MIN, KIND_UNSIGNED),
        Op::GroupNonUniformFMin => (ARITH_MIN, KIND_FLOAT),
        Op::GroupNonUniformSMax => (ARITH_MAX, KIND_SIGNED),
        Op::GroupNonUniformUMax => (ARITH_MAX, KIND_UNSIGNED),
        Op::GroupNonUniformFMax => (ARITH_MAX, KIND_FLOAT),
        Op::GroupNonUniformBitwiseAnd => (ARITH_BAND, KIND_UNSIGNED),
        Op::GroupNonUniformBitwiseOr => (ARITH_BOR, KIND_UNSIGNED),
        Op::GroupNonUniformBitwiseXor => (ARITH_BXOR, KIND_UNSIGNED),
        Op::GroupNonUniformLogicalAnd => (ARITH_AND, KIND_UNSIGNED),
        Op::GroupNonUniformLogicalOr => (ARITH_OR, KIND_UNSIGNED),
        Op::GroupNonUniformLogicalXor => (ARITH_LXOR, KIND_UNSIGNED),
        _ => return None,
    })
}

/// The plan for `inst`, `None` when it is not a collective `rewrite` handles (or is malformed:
/// the translator then reports it).
fn plan(m: &Module, inst: &Instruction) -> Option<Plan> {
    let scope = scope_of(m, inst)?;
    let sub_group = scope == Scope::Subgroup as u32;
    if !sub_group && scope != Scope::Workgroup as u32 {
        return None;
    }
    let id = |i: usize| match inst.operands.get(i) {
        Some(Operand::IdRef(x)) => Some(*x),
        _ => None,
    };
    let group_op = |i: usize| match inst.operands.get(i) {
        Some(Operand::GroupOperation(GroupOperation::Reduce)) => Some(MODE_REDUCE),
        Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => Some(MODE_INCLUSIVE),
        Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => Some(MODE_EXCLUSIVE),
        Some(Operand::GroupOperation(GroupOperation::ClusteredReduce)) => Some(MODE_CLUSTERED),
        _ => None,
    };
    let p = |mode, arith, kind, value: Option<u32>| Plan {
        mode,
        arith,
        kind,
        sub_group,
        value,
        aux: None,
        extra: None,
        cluster: 0,
    };
    // A power-of-two cluster size, given as a constant (one larger than the sub-group is
    // the whole sub-group).
    let cluster = |i: usize| {
        let c = const_of(m, id(i)?)?;
        c.is_power_of_two().then_some(c.min(1 << 15) as u32)
    };
    let old = match inst.opcode {
        Op::GroupAll => Some((ARITH_AND, KIND_UNSIGNED)),
        Op::GroupAny => Some((ARITH_OR, KIND_UNSIGNED)),
        Op::GroupIAdd => Some((ARITH_ADD, KIND_SIGNED)),
        Op::GroupFAdd => Some((ARITH_ADD, KIND_FLOAT)),
        Op::GroupSMin => Some((ARITH_MIN, KIND_SIGNED)),
        Op::GroupUMin => Some((ARITH_MIN, KIND_UNSIGNED)),
        Op::GroupFMin => Some((ARITH_MIN, KIND_FLOAT)),
        Op::GroupSMax => Some((ARITH_MAX, KIND_SIGNED)),
        Op::GroupUMax => Some((ARITH_MAX, KIND_UNSIGNED)),
        Op::GroupFMax => Some((ARITH_MAX, KIND_FLOAT)),
        _ => None,
    };
    if let Some((arith, kind)) = old {
        return match inst.opcode {
            Op::GroupAll | Op::GroupAny => Some(p(MODE_REDUCE, arith, kind, Some(id(1)?))),
            _ => {
                let mode = group_op(1).filter(|m| *m != MODE_CLUSTERED)?;
                Some(p(mode, arith, kind, Some(id(2)?)))
            }
        };
    }
    if inst.opcode == Op::GroupBroadcast {
        let mode = if sub_group {
            MODE_BROADCAST_LINEAR
        } else {
            MODE_BROADCAST
        };
        let mut pl = p(mode, ARITH_ADD, KIND_UNSIGNED, Some(id(1)?));
        pl.extra = Some(id(2)?);
        return Some(pl);
    }
    // The cl_khr_subgroup_* instructions: Subgroup scope only.
    if !sub_group {
        return None;
    }
    if let Some((arith, kind)) = non_uniform_arith(inst.opcode) {
        let mode = group_op(1)?;
        let mut pl = p(mode, arith, kind, Some(id(2)?));
        if mode == MODE_CLUSTERED {
            pl.cluster = cluster(3)?;
        } else if inst.operands.len() > 3 {
            return None;
        }
        return Some(pl);
    }
    let u = KIND_UNSIGNED;
    let shuffle = |mode| {
        let mut pl = p(mode, ARITH_ADD, u, Some(id(1)?));
        pl.aux = Some(id(2)?);
        Some(pl)
    };
    match inst.opcode {
        Op::GroupNonUniformElect => Some(p(MODE_ELECT, ARITH_ADD, u, None)),
        Op::GroupNonUniformAll => Some(p(MODE_REDUCE, ARITH_AND, u, Some(id(1)?))),
        Op::GroupNonUniformAny => Some(p(MODE_REDUCE, ARITH_OR, u, Some(id(1)?))),
        Op::GroupNonUniformAllEqual => Some(p(MODE_ALL_EQUAL, ARITH_ADD, u, Some(id(1)?))),
        Op::GroupNonUniformBroadcast => {
            let mut pl = p(MODE_BROADCAST_LINEAR, ARITH_ADD, u, Some(id(1)?));
            pl.extra = Some(id(2)?);
            Some(pl)
        }
        Op::GroupNonUniformBroadcastFirst => Some(p(MODE_BROADCAST_FIRST, ARITH_ADD, u, Some(id(1)?))),
        Op::GroupNonUniformBallot => Some(p(MODE_BALLOT, ARITH_ADD, u, Some(id(1)?))),
        Op::GroupNonUniformShuffle => shuffle(MODE_SHUFFLE),
        Op::GroupNonUniformShuffleXor => shuffle(MODE_SHUFFLE_XOR),
        Op::GroupNonUniformShuffleUp => shuffle(MODE_SHUFFLE_UP),
        Op::GroupNonUniformShuffleDown => shuffle(MODE_SHUFFLE_DOWN),
        Op::GroupNonUniformRotateKHR => {
            let mut pl = shuffle(MODE_ROTATE)?;
            pl.cluster = match inst.operands.len() {
                3 => 0,
                4 => cluster(3)?,
                _ => return None,
            };
            Some(pl)
        }
        _ => None,
    }
}

/// The module with every collective split into put / barrier / get (see the module
/// documentation), or `None` when it has none. Malformed collectives are left alone: the
/// translator reports them.
pub(crate) fn rewrite(m: &Module) -> Option<Module> {
    let any = m.functions.iter().any(|f| {
        f.blocks
            .iter()
            .any(|b| b.instructions.iter().any(|i| plan(m, i).is_some()))
    });
    if !any {
        return None;
    }
    let mut out = m.clone();
    let mut bound = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    // Result and parameter types: `get` is told its operand's type.
    let mut tys: HashMap<u32, u32> = HashMap::new();
    for inst in &m.instructions {
        if let Some(r) = inst.result_id {
            bound = bound.max(r.saturating_add(1));
        }
    }
    for f in &m.functions {
        tys.extend(f.params.iter().copied());
        for b in &f.blocks {
            for i in &b.instructions {
                if let Some(r) = i.result_id {
                    bound = bound.max(r.saturating_add(1));
                    if let Some(t) = i.result_type {
                        tys.insert(r, t);
                    }
                }
            }
        }
    }
    let set = bound;
    if let Some(h) = out.header.as_mut() {
        h.bound = bound + 1;
    }
    out.ext_inst_imports.push((set, SET_NAME.to_string()));
    let mut site = 0u32;
    for f in &mut out.functions {
        for b in &mut f.blocks {
            let old = std::mem::take(&mut b.instructions);
            for inst in old {
                let ty_of = |x: u32| tys.get(&x).copied().or_else(|| m.constant(x).map(|c| c.ty));
                let split = plan(m, &inst).and_then(|p| split(set, site, &inst, &p, ty_of));
                match split {
                    Some(three) => {
                        b.instructions.extend(three);
                        site += 1;
                    }
                    None => b.instructions.push(inst),
                }
            }
        }
    }
    Some(out)
}

/// put / barrier / get for one collective (`None`: operands not as expected).
fn split(
    set: u32,
    site: u32,
    inst: &Instruction,
    p: &Plan,
    ty_of: impl Fn(u32) -> Option<u32>,
) -> Option<[Instruction; 3]> {
    let scope = match inst.operands.first()? {
        Operand::IdScope(s) | Operand::IdRef(s) => *s,
        _ => return None,
    };
    let value_ty = match p.value {
        Some(v) => ty_of(v)?,
        None => 0,
    };
    let mk = |result_type, result_id, operands| Instruction {
        opcode: Op::ExtInst,
        result_type,
        result_id,
        operands,
        offset: inst.offset,
    };
    let mut code = PUT;
    if p.kind == KIND_SIGNED {
        code |= PUT_SIGNED;
    }
    let mut ops = vec![
        Operand::IdRef(set),
        Operand::LiteralExtInstInteger(0),
        Operand::LiteralBit32(site),
    ];
    if let Some(v) = p.value {
        code |= PUT_VALUE;
        ops.push(Operand::IdRef(v));
    }
    if let Some(a) = p.aux {
        code |= PUT_AUX;
        ops.push(Operand::IdRef(a));
    }
    ops[1] = Operand::LiteralExtInstInteger(code);
    let put = mk(None, None, ops);
    let barrier = scope_barrier(scope, inst.offset);
    let mut code = p.mode | p.arith << 8 | p.kind << 12;
    if p.sub_group {
        code |= SUB_GROUP;
    }
    let mut ops = vec![
        Operand::IdRef(set),
        Operand::LiteralExtInstInteger(code),
        Operand::LiteralBit32(site),
        Operand::LiteralBit32(p.cluster),
        Operand::LiteralBit32(value_ty),
    ];
    if let Some(e) = p.extra {
        ops.push(Operand::IdRef(e));
    }
    let get = mk(inst.result_type, inst.result_id, ops);
    Some([put, barrier, get])
}

/// Whether `inst` is one of the rewrite's put / get instructions.
pub(crate) fn is_collective(cx: &Ctx, inst: &Instruction) -> bool {
    inst.opcode == Op::ExtInst
        && matches!(inst.operands.first(), Some(Operand::IdRef(s)) if cx.ext_sets.get(s).is_some_and(|n| n == SET_NAME))
}

/// The sub-group instructions of one work-item (translated by `sub_group_local`).
pub(crate) fn is_sub_group_local(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformInverseBallot
            | Op::GroupNonUniformBallotBitExtract
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupNonUniformBallotFindLSB
            | Op::GroupNonUniformBallotFindMSB
    )
}

impl FnTx<'_, '_, '_> {
    /// Translates a put or get of the rewrite.
    pub fn collective(&mut self, inst: &Instruction) -> R {
        let code = op_lit(inst, 1)?;
        let site = op_lit(inst, 2)?;
        let wi = self.wi;
        if code & PUT != 0 {
            let mut k = 3;
            let put = |t: &mut Self, comp: u32, bits: Value| -> R {
                let s = t.b.ins().iconst(types::I32, site as i64);
                let c = t.b.ins().iconst(types::I32, comp as i64);
                t.call_helper(
                    "clift_wg_put",
                    &[types::I64, types::I32, types::I32, types::I64],
                    &[],
                    &[wi, s, c, bits],
                )?;
                Ok(())
            };
            if code & PUT_VALUE != 0 {
                let x = op_id(inst, k)?;
                k += 1;
                let ty = self.ty_of(x)?;
                let (s, n) = self.cx.layout.shape(ty)?;
                let vals = self.val(x)?;
                if vals.len() != n as usize || n as usize > AUX as usize {
                    return Err(self.err(inst, "group functions take scalars and vectors of up to 16 components"));
                }
                for (c, v) in vals.into_iter().enumerate() {
                    let bits = self.leaf_to_bits(inst, s, v, code & PUT_SIGNED != 0)?;
                    put(self, c as u32, bits)?;
                }
            }
            if code & PUT_AUX != 0 {
                let a = op_id(inst, k)?;
                let ty = self.ty_of(a)?;
                let (s, n) = self.cx.layout.shape(ty)?;
                if n != 1 || !matches!(s, Scalar::Int(_)) {
                    return Err(self.err(inst, "the index or delta must be an integer scalar"));
                }
                let v = self.val1(a)?;
                let bits = self.leaf_to_bits(inst, s, v, false)?;
                put(self, AUX, bits)?;
            } else if code & PUT_VALUE == 0 {
                let z = self.b.ins().iconst(types::I64, 0);
                put(self, AUX, z)?;
            }
            return Ok(());
        }
        let cluster = op_lit(inst, 3)?;
        let value_ty = op_lit(inst, 4)?;
        let (r, ty) = result(inst)?;
        let (rs, rn) = self.cx.layout.shape(ty)?;
        let mode = code & 0xff;
        let arith = (code >> 8) & 0xf;
        let kind = (code >> 12) & 0xf;
        // The operand's scalar type (bool for elect's missing operand).
        let (os, on) = if value_ty == 0 {
            (Scalar::Bool, 1)
        } else {
            self.cx.layout.shape(value_ty)?
        };
        let width = match os {
            Scalar::Bool => 8,
            Scalar::Int(w) | Scalar::Float(w) => w,
            Scalar::Ptr => 64,
        };
        let moves = matches!(
            mode,
            MODE_BROADCAST
                | MODE_BROADCAST_LINEAR
                | MODE_BROADCAST_FIRST
                | MODE_SHUFFLE
                | MODE_SHUFFLE_XOR
                | MODE_SHUFFLE_UP
                | MODE_SHUFFLE_DOWN
                | MODE_ROTATE
        );
        let arithmetic = matches!(mode, MODE_REDUCE | MODE_INCLUSIVE | MODE_EXCLUSIVE | MODE_CLUSTERED);
        if arithmetic && (on != 1 || rn != 1) {
            return Err(self.err(inst, "group arithmetic takes and returns scalars"));
        }
        if arithmetic && (kind == KIND_FLOAT) != matches!(os, Scalar::Float(_)) && arith <= ARITH_MUL {
            return Err(self.err(inst, "operand type does not match the operation"));
        }
        if moves && (rn != on || rs != os) {
            return Err(self.err(inst, "the result type must be the operand's"));
        }
        if mode == MODE_BALLOT && (rn != 4 || rs != Scalar::Int(32)) {
            return Err(self.err(inst, "a ballot returns a uint4"));
        }
        let kind = if matches!(os, Scalar::Float(_)) {
            KIND_FLOAT
        } else {
            kind
        };
        let full = (code & (0xfff | SUB_GROUP) & !(0xf << 12)) | kind << 12 | width << 16;
        let mut idx = [None; 3];
        if matches!(mode, MODE_BROADCAST | MODE_BROADCAST_LINEAR) {
            let lid = op_id(inst, 5)?;
            let vals = self.val(lid)?;
            if vals.is_empty() || vals.len() > 3 {
                return Err(self.err(inst, "the local id must have 1 to 3 components"));
            }
            for (d, v) in vals.into_iter().enumerate() {
                let t = self.b.func.dfg.value_type(v);
                let v = if t == types::I64 {
                    v
                } else {
                    self.b.ins().uextend(types::I64, v)
                };
                idx[d] = Some(v);
            }
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        let [x, y, z] = idx.map(|v| v.unwrap_or(zero));
        let c = self.b.ins().iconst(types::I32, full as i64);
        let s = self.b.ins().iconst(types::I32, site as i64);
        let mut leaves = Vec::with_capacity(rn as usize);
        for comp in 0..rn {
            let info = self.b.ins().iconst(types::I32, (comp | rn << 8 | cluster << 16) as i64);
            let out = self.call_helper(
                "clift_wg_get",
                &[
                    types::I64,
                    types::I32,
                    types::I32,
                    types::I32,
                    types::I64,
                    types::I64,
                    types::I64,
                ],
                &[types::I64],
                &[wi, c, s, info, x, y, z],
            )?;
            leaves.push(self.bits_to_leaf(rs, out[0]));
        }
        self.def(r, ty, leaves);
        Ok(())
    }

    /// A scalar's bits in 64: integers extended per `signed`, floats' patterns zero-extended.
    fn leaf_to_bits(&mut self, inst: &Instruction, s: Scalar, v: Value, signed: bool) -> R<Value> {
        let t = self.b.func.dfg.value_type(v);
        Ok(match (s, t) {
            (_, types::I64) => v,
            (Scalar::Float(32), _) => {
                let i = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
                self.b.ins().uextend(types::I64, i)
            }
            (Scalar::Float(64), _) => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
            (Scalar::Int(_), types::I8 | types::I16 | types::I32) if signed => self.b.ins().sextend(types::I64, v),
            (_, types::I8 | types::I16 | types::I32) => self.b.ins().uextend(types::I64, v),
            _ => return Err(self.err(inst, "operand type is not supported")),
        })
    }

    fn bits_to_leaf(&mut self, s: Scalar, v: Value) -> Value {
        match s.clif() {
            types::I64 => v,
            types::F64 => self.b.ins().bitcast(types::F64, MemFlagsData::new(), v),
            types::F32 => {
                let i = self.b.ins().ireduce(types::I32, v);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), i)
            }
            t => self.b.ins().ireduce(t, v),
        }
    }

    /// The work-item's sub-group local id (64 bits).
    fn sub_group_local_id(&mut self) -> Value {
        let lid = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            self.wi,
            drv::OFF_LOCAL_LINEAR_ID as i32,
        );
        self.b.ins().band_imm_s(lid, SUB_GROUP_SIZE as i64 - 1)
    }

    /// The largest sub-group size of the enqueue (64 bits): min(SUB_GROUP_SIZE, enqueued
    /// work-group size).
    fn sub_group_max_size(&mut self) -> Value {
        let flags = MemFlagsData::trusted();
        let wi = self.wi;
        let v: Vec<Value> = (0..3)
            .map(|d| {
                self.b
                    .ins()
                    .load(types::I64, flags, wi, (drv::OFF_ENQ_LOCAL_SIZE + 8 * d) as i32)
            })
            .collect();
        let xy = self.b.ins().imul(v[0], v[1]);
        let e = self.b.ins().imul(xy, v[2]);
        let cap = self.b.ins().iconst(types::I64, SUB_GROUP_SIZE as i64);
        self.b.ins().umin(e, cap)
    }

    /// Bits 0 .. n-1 set (64 bits; n at most 63 here).
    fn low_bits(&mut self, n: Value) -> Value {
        let one = self.b.ins().iconst(types::I64, 1);
        let p = self.b.ins().ishl(one, n);
        self.b.ins().iadd_imm_s(p, -1)
    }

    /// The ballot instructions of one work-item: inverse ballot, bit extract, bit count (and
    /// its scans), find LSB / MSB. Only the bits of a sub-group's ids count (at most
    /// `SUB_GROUP_SIZE`, 32: the first component of the uint4).
    pub fn sub_group_local(&mut self, inst: &Instruction) -> R {
        let (r, ty) = result(inst)?;
        if scope_of(self.cx.m, inst) != Some(Scope::Subgroup as u32) {
            return Err(self.err(inst, "only Subgroup scope is supported"));
        }
        let value_at = match inst.opcode {
            Op::GroupNonUniformBallotBitCount => 2,
            _ => 1,
        };
        let v = op_id(inst, value_at)?;
        let words = self.val(v)?;
        if words.len() != 4 || words.iter().any(|w| self.b.func.dfg.value_type(*w) != types::I32) {
            return Err(self.err(inst, "the ballot value must be a uint4"));
        }
        let lid = self.sub_group_local_id();
        let x = self.b.ins().uextend(types::I64, words[0]);
        let out = match inst.opcode {
            Op::GroupNonUniformInverseBallot => {
                let s = self.b.ins().ushr(x, lid);
                let bit = self.b.ins().band_imm_s(s, 1);
                self.b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0)
            }
            Op::GroupNonUniformBallotBitExtract => {
                let i = self.val1(op_id(inst, 2)?)?;
                let i = if self.b.func.dfg.value_type(i) == types::I64 {
                    self.b.ins().ireduce(types::I32, i)
                } else {
                    i
                };
                // words[i / 32] >> (i % 32), indexes taken modulo 128.
                let word = self.b.ins().ushr_imm_s(i, 5);
                let word = self.b.ins().band_imm_s(word, 3);
                let mut w = words[3];
                for k in (0..3).rev() {
                    let is = self.b.ins().icmp_imm_u(IntCC::Equal, word, k);
                    w = self.b.ins().select(is, words[k as usize], w);
                }
                let sh = self.b.ins().band_imm_s(i, 31);
                let s = self.b.ins().ushr(w, sh);
                let bit = self.b.ins().band_imm_s(s, 1);
                self.b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0)
            }
            _ => {
                let max = self.sub_group_max_size();
                let m = self.low_bits(max);
                let x = self.b.ins().band(x, m);
                match inst.opcode {
                    Op::GroupNonUniformBallotBitCount => {
                        let keep = match inst.operands.get(1) {
                            Some(Operand::GroupOperation(GroupOperation::Reduce)) => None,
                            Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => {
                                Some(self.b.ins().iadd_imm_s(lid, 1))
                            }
                            Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => Some(lid),
                            _ => return Err(self.err(inst, "unsupported group operation")),
                        };
                        let x = match keep {
                            Some(n) => {
                                let m = self.low_bits(n);
                                self.b.ins().band(x, m)
                            }
                            None => x,
                        };
                        let c = self.b.ins().popcnt(x);
                        self.b.ins().ireduce(types::I32, c)
                    }
                    Op::GroupNonUniformBallotFindLSB => {
                        let c = self.b.ins().ctz(x);
                        self.b.ins().ireduce(types::I32, c)
                    }
                    _ => {
                        // 63 - clz in 64 bits (undefined for 0: -1 then).
                        let c = self.b.ins().clz(x);
                        let c = self.b.ins().ireduce(types::I32, c);
                        let k = self.b.ins().iconst(types::I32, 63);
                        self.b.ins().isub(k, c)
                    }
                }
            }
        };
        let want = self.cx.layout.shape(ty)?.0.clif();
        if self.b.func.dfg.value_type(out) != want {
            return Err(self.err(inst, "unexpected result type"));
        }
        self.def(r, ty, vec![out]);
        Ok(())
    }
}

impl FnTx<'_, '_, '_> {
    /// A load of a sub-group builtin variable (32-bit values; the `get_sub_group_*_mask`
    /// variables are uint4), `None` for any other pointer.
    pub fn sub_group_builtin(&mut self, ptr: u32) -> R<Option<Vec<Value>>> {
        if !matches!(self.cx.globals.get(&ptr), Some((_, StorageClass::Input))) {
            return Ok(None);
        }
        let Some(bi) = self.cx.builtins.get(&ptr).copied() else {
            return Ok(None);
        };
        let flags = MemFlagsData::trusted();
        let wi = self.wi;
        let product = |t: &mut Self, off: usize| {
            let v: Vec<Value> = (0..3)
                .map(|d| t.b.ins().load(types::I64, flags, wi, (off + 8 * d) as i32))
                .collect();
            let xy = t.b.ins().imul(v[0], v[1]);
            t.b.ins().imul(xy, v[2])
        };
        let sg = SUB_GROUP_SIZE as i64;
        let count = |t: &mut Self, n: Value| {
            let up = t.b.ins().iadd_imm_s(n, sg - 1);
            t.b.ins().udiv_imm_s(up, sg)
        };
        let v = match bi {
            BuiltIn::SubgroupSize => {
                // min(SUB_GROUP_SIZE, n - first local id of the sub-group)
                let n = product(self, drv::OFF_LOCAL_SIZE);
                let lid = self
                    .b
                    .ins()
                    .load(types::I64, flags, wi, drv::OFF_LOCAL_LINEAR_ID as i32);
                let first = self.b.ins().band_imm_s(lid, !(sg - 1));
                let left = self.b.ins().isub(n, first);
                let cap = self.b.ins().iconst(types::I64, sg);
                self.b.ins().umin(left, cap)
            }
            BuiltIn::SubgroupMaxSize => {
                let e = product(self, drv::OFF_ENQ_LOCAL_SIZE);
                let cap = self.b.ins().iconst(types::I64, sg);
                self.b.ins().umin(e, cap)
            }
            BuiltIn::NumSubgroups => {
                let n = product(self, drv::OFF_LOCAL_SIZE);
                count(self, n)
            }
            BuiltIn::NumEnqueuedSubgroups => {
                let e = product(self, drv::OFF_ENQ_LOCAL_SIZE);
                count(self, e)
            }
            BuiltIn::SubgroupId => {
                let lid = self
                    .b
                    .ins()
                    .load(types::I64, flags, wi, drv::OFF_LOCAL_LINEAR_ID as i32);
                self.b.ins().ushr_imm_s(lid, sg.trailing_zeros() as i64)
            }
            BuiltIn::SubgroupLocalInvocationId => {
                let lid = self
                    .b
                    .ins()
                    .load(types::I64, flags, wi, drv::OFF_LOCAL_LINEAR_ID as i32);
                self.b.ins().band_imm_s(lid, sg - 1)
            }
            BuiltIn::SubgroupEqMask
            | BuiltIn::SubgroupGeMask
            | BuiltIn::SubgroupGtMask
            | BuiltIn::SubgroupLeMask
            | BuiltIn::SubgroupLtMask => {
                // Bit k stands for sub-group local id k (< 32: the first component only);
                // ge / gt stop at the largest sub-group size.
                let lid = self.sub_group_local_id();
                let one = self.b.ins().iconst(types::I64, 1);
                let eq = self.b.ins().ishl(one, lid);
                let lt = self.b.ins().iadd_imm_s(eq, -1);
                let x = match bi {
                    BuiltIn::SubgroupEqMask => eq,
                    BuiltIn::SubgroupLtMask => lt,
                    BuiltIn::SubgroupLeMask => self.b.ins().bor(lt, eq),
                    _ => {
                        let max = self.sub_group_max_size();
                        let all = self.low_bits(max);
                        let ge = self.b.ins().band_not(all, lt);
                        if bi == BuiltIn::SubgroupGtMask {
                            self.b.ins().band_not(ge, eq)
                        } else {
                            ge
                        }
                    }
                };
                let x = self.b.ins().ireduce(types::I32, x);
                let z = self.b.ins().iconst(types::I32, 0);
                return Ok(Some(vec![x, z, z, z]));
            }
            _ => return Ok(None),
        };
        Ok(Some(vec![self.b.ins().ireduce(types::I32, v)]))
    }
}

// ---------------------------------------------------------------------------------------------
// Run time
// ---------------------------------------------------------------------------------------------

fn group_size(wi: &WorkItem) -> usize {
    (wi.local_size[0] * wi.local_size[1] * wi.local_size[2]) as usize
}

fn grow(s: &mut Scratch, n: usize) {
    if s.tag.len() < n {
        s.vals.resize(n * STRIDE, 0);
        s.out.resize(n * STRIDE, 0);
        s.tag.resize(n, 0);
        s.pending.resize(n, false);
    }
}

/// `put`: component `comp` of the work-item's operand at call site `site` (`AUX`: its aux).
///
/// # Safety
/// `wi` is the work-item state the driver passed to the kernel, with its ids set.
pub unsafe extern "C" fn clift_wg_put(wi: *const WorkItem, site: u32, comp: u32, bits: u64) {
    let wi = unsafe { &*wi };
    let n = group_size(wi);
    let lid = wi.local_linear_id as usize;
    if lid >= n || comp as usize >= STRIDE {
        return;
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        grow(&mut s, n);
        s.vals[lid * STRIDE + comp as usize] = bits;
        s.tag[lid] = site.wrapping_add(1);
    });
}

/// `get`: component `info & 0xff` (of `(info >> 8) & 0xff`) of the work-item's result of the
/// collective `code` at call site `site` (see `split`); `info >> 16` the cluster size; `x, y,
/// z` the local id of a broadcast's source.
///
/// # Safety
/// As [`clift_wg_put`].
pub unsafe extern "C" fn clift_wg_get(
    wi: *const WorkItem,
    code: u32,
    site: u32,
    info: u32,
    x: u64,
    y: u64,
    z: u64,
) -> u64 {
    let wi = unsafe { &*wi };
    let n = group_size(wi);
    let lid = wi.local_linear_id as usize;
    let comp = (info & 0xff) as usize;
    let ncomp = ((info >> 8) & 0xff) as usize;
    if lid >= n || comp >= STRIDE {
        return 0;
    }
    // The slice of the group this collective spans: first id, end.
    let (start, end) = if code & SUB_GROUP != 0 {
        let k = lid / SUB_GROUP_SIZE;
        (k * SUB_GROUP_SIZE, ((k + 1) * SUB_GROUP_SIZE).min(n))
    } else {
        (0, n)
    };
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let s = &mut *s;
        grow(s, n);
        if comp == 0 && !s.pending[lid] {
            let key = site.wrapping_add(1);
            let mut members = std::mem::take(&mut s.members);
            members.clear();
            members.extend((start..end).filter(|&j| j == lid || (s.tag[j] == key && !s.pending[j])));
            for &j in &members {
                s.pending[j] = true;
            }
            let round = Round {
                code,
                ncomp: ncomp.clamp(1, AUX as usize),
                cluster: (info >> 16) as usize,
                start,
                end,
                members: &members,
            };
            round.compute(&s.vals, &mut s.out, wi, [x, y, z]);
            s.members = members;
        }
        let v = s.out[lid * STRIDE + comp];
        if comp + 1 >= ncomp {
            s.pending[lid] = false;
            s.tag[lid] = 0;
        }
        v
    })
}

/// One round of a collective: its participants (local linear ids in increasing order, in the
/// slice `start..end`).
struct Round<'a> {
    code: u32,
    ncomp: usize,
    cluster: usize,
    start: usize,
    end: usize,
    members: &'a [usize],
}

impl Round<'_> {
    /// Every participant's answer into `out`.
    fn compute(&self, vals: &[u64], out: &mut [u64], wi: &WorkItem, xyz: [u64; 3]) {
        let mode = self.code & 0xff;
        let op = Op2::new(self.code);
        let members = self.members;
        let Some(&first) = members.first() else { return };
        let at = |j: usize, c: usize| j * STRIDE + c;
        let size = self.end - self.start;
        // The operand of sub-group local id `i` (0 outside the slice).
        let of = |i: u64, c: usize| {
            if i < size as u64 {
                vals[at(self.start + i as usize, c)]
            } else {
                0
            }
        };
        match mode {
            MODE_REDUCE => {
                let acc = members.iter().fold(op.identity(), |a, &j| op.apply(a, vals[at(j, 0)]));
                members.iter().for_each(|&j| out[at(j, 0)] = acc);
            }
            MODE_INCLUSIVE | MODE_EXCLUSIVE => {
                let mut acc = op.identity();
                for &j in members {
                    let next = op.apply(acc, vals[at(j, 0)]);
                    out[at(j, 0)] = if mode == MODE_INCLUSIVE { next } else { acc };
                    acc = next;
                }
            }
            MODE_CLUSTERED => {
                let c = self.cluster.max(1);
                for &j in members {
                    let k = (j - self.start) / c;
                    let acc = members
                        .iter()
                        .filter(|&&m| (m - self.start) / c == k)
                        .fold(op.identity(), |a, &m| op.apply(a, vals[at(m, 0)]));
                    out[at(j, 0)] = acc;
                }
            }
            MODE_BROADCAST => {
                let [lx, ly, lz] = wi.local_size;
                let [x, y, z] = xyz;
                // An id outside the group is undefined behaviour; 0 keeps it harmless.
                let src = (x < lx && y < ly && z < lz).then(|| ((z * ly + y) * lx + x) as usize);
                for c in 0..self.ncomp {
                    let v = src.map_or(0, |i| of(i as u64, c));
                    members.iter().for_each(|&j| out[at(j, c)] = v);
                }
            }
            MODE_BROADCAST_LINEAR | MODE_BROADCAST_FIRST => {
                let src = if mode == MODE_BROADCAST_FIRST {
                    (first - self.start) as u64
                } else {
                    xyz[0]
                };
                for c in 0..self.ncomp {
                    let v = of(src, c);
                    members.iter().for_each(|&j| out[at(j, c)] = v);
                }
            }
            MODE_ELECT => members.iter().for_each(|&j| out[at(j, 0)] = u64::from(j == first)),
            MODE_ALL_EQUAL => {
                let v0 = vals[at(first, 0)];
                let all = members.iter().all(|&j| op.equal(vals[at(j, 0)], v0));
                members.iter().for_each(|&j| out[at(j, 0)] = u64::from(all));
            }
            MODE_BALLOT => {
                let mut words = [0u64; 4];
                for &j in members {
                    if vals[at(j, 0)] != 0 {
                        let i = j - self.start;
                        words[i / 32] |= 1 << (i % 32);
                    }
                }
                for &j in members {
                    out[j * STRIDE..j * STRIDE + 4].copy_from_slice(&words);
                }
            }
            _ => {
                // Shuffles and rotations: each work-item reads the operand of the id its
                // `aux` names. A rotation without a cluster size is modulo the largest
                // sub-group size of the enqueue (which need not be a power of two).
                let c = self.cluster.max(1) as u64;
                let enq = wi.enqueued_local_size;
                let max = (enq[0] * enq[1] * enq[2]).clamp(1, SUB_GROUP_SIZE as u64);
                for &j in members {
                    let i = (j - self.start) as u64;
                    let a = vals[at(j, AUX as usize)];
                    let src = match mode {
                        MODE_SHUFFLE => a,
                        MODE_SHUFFLE_XOR => i ^ a,
                        MODE_SHUFFLE_UP => i.checked_sub(a).unwrap_or(u64::MAX),
                        MODE_SHUFFLE_DOWN => i.saturating_add(a),
                        _ if self.cluster == 0 => (i + a % max) % max,
                        _ => (i & !(c - 1)) + (i + a % c) % c,
                    };
                    for k in 0..self.ncomp {
                        out[at(j, k)] = of(src, k);
                    }
                }
            }
        }
    }
}

/// One binary operation on values kept in 64 bits (integers extended per their signedness,
/// floats as their bit patterns).
#[derive(Clone, Copy)]
struct Op2 {
    arith: u32,
    kind: u32,
    width: u32,
}

impl Op2 {
    fn new(code: u32) -> Op2 {
        Op2 {
            arith: (code >> 8) & 0xf,
            kind: (code >> 12) & 0xf,
            width: (code >> 16) & 0xff,
        }
    }

    fn identity(self) -> u64 {
        let w = self.width.clamp(1, 64);
        match (self.arith, self.kind) {
            (ARITH_AND, _) => 1,
            (ARITH_ADD | ARITH_OR | ARITH_BOR | ARITH_BXOR | ARITH_LXOR, _) => 0,
            (ARITH_BAND, _) => u64::MAX,
            (ARITH_MUL, KIND_FLOAT) => float_bits(1.0, w),
            (ARITH_MUL, _) => 1,
            (ARITH_MIN, KIND_FLOAT) => float_bits(f64::INFINITY, w),
            (ARITH_MAX, KIND_FLOAT) => float_bits(f64::NEG_INFINITY, w),
            (ARITH_MIN, KIND_SIGNED) => (i64::MAX >> (64 - w)) as u64,
            (ARITH_MAX, KIND_SIGNED) => (i64::MIN >> (64 - w)) as u64,
            (ARITH_MIN, _) => u64::MAX >> (64 - w),
            _ => 0,
        }
    }

    fn apply(self, a: u64, b: u64) -> u64 {
        match self.arith {
            ARITH_AND => u64::from(a != 0 && b != 0),
            ARITH_OR => u64::from(a != 0 || b != 0),
            ARITH_LXOR => u64::from((a != 0) != (b != 0)),
            ARITH_BAND => a & b,
            ARITH_BOR => a | b,
            ARITH_BXOR => a ^ b,
            _ if self.kind == KIND_FLOAT => self.float(a, b),
            ARITH_ADD => a.wrapping_add(b),
            ARITH_MUL => a.wrapping_mul(b),
            ARITH_MIN if self.kind == KIND_SIGNED => (a as i64).min(b as i64) as u64,
            ARITH_MAX if self.kind == KIND_SIGNED => (a as i64).max(b as i64) as u64,
            ARITH_MIN => a.min(b),
            _ => a.max(b),
        }
    }

    /// Equality of two operands (floats compare as numbers: -0 equals 0, NaN nothing).
    fn equal(self, a: u64, b: u64) -> bool {
        if self.kind != KIND_FLOAT {
            return a == b;
        }
        match self.width {
            32 => f32::from_bits(a as u32) == f32::from_bits(b as u32),
            64 => f64::from_bits(a) == f64::from_bits(b),
            _ => {
                use super::helpers::f16_to_f64;
                f16_to_f64(a as u16) == f16_to_f64(b as u16)
            }
        }
    }

    fn float(self, a: u64, b: u64) -> u64 {
        // fmin / fmax: a NaN operand yields the other one (Rust's min and max do the same).
        match self.width {
            32 => {
                let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                let r = match self.arith {
                    ARITH_ADD => x + y,
                    ARITH_MUL => x * y,
                    ARITH_MIN => x.min(y),
                    _ => x.max(y),
                };
                u64::from(r.to_bits())
            }
            64 => {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let r = match self.arith {
                    ARITH_ADD => x + y,
                    ARITH_MUL => x * y,
                    ARITH_MIN => x.min(y),
                    _ => x.max(y),
                };
                r.to_bits()
            }
            _ => {
                // half: each step in double (exact for a sum or product of two halves),
                // rounded to nearest even.
                use super::helpers::{f16_to_f64, f64_to_f16, RTE};
                let (x, y) = (f16_to_f64(a as u16), f16_to_f64(b as u16));
                let r = match self.arith {
                    ARITH_ADD => x + y,
                    ARITH_MUL => x * y,
                    ARITH_MIN => x.min(y),
                    _ => x.max(y),
                };
                u64::from(f64_to_f16(r, RTE))
            }
        }
    }
}

fn float_bits(v: f64, width: u32) -> u64 {
    match width {
        32 => u64::from((v as f32).to_bits()),
        64 => v.to_bits(),
        _ => u64::from(super::helpers::f64_to_f16(v, super::helpers::RTE)),
    }
}

/// An `OpControlBarrier` of scope constant `scope` (execution and memory), standing at
/// `offset` of the instruction it was split from. The semantics operand is not read by the
/// code generator; the scope's constant stands in for it.
pub(crate) fn scope_barrier(scope: u32, offset: usize) -> Instruction {
    Instruction {
        opcode: Op::ControlBarrier,
        result_type: None,
        result_id: None,
        operands: vec![
            Operand::IdScope(scope),
            Operand::IdScope(scope),
            Operand::IdMemorySemantics(scope),
        ],
        offset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(mode: u32, arith: u32, kind: u32, width: u32) -> u32 {
        mode | arith << 8 | kind << 12 | width << 16
    }

    #[test]
    fn identities() {
        assert_eq!(
            Op2::new(code(0, ARITH_MIN, KIND_SIGNED, 32)).identity() as i64,
            i32::MAX as i64
        );
        assert_eq!(
            Op2::new(code(0, ARITH_MAX, KIND_SIGNED, 32)).identity() as i64,
            i32::MIN as i64
        );
        assert_eq!(
            Op2::new(code(0, ARITH_MIN, KIND_UNSIGNED, 32)).identity(),
            u32::MAX as u64
        );
        assert_eq!(Op2::new(code(0, ARITH_MIN, KIND_UNSIGNED, 64)).identity(), u64::MAX);
        assert_eq!(
            Op2::new(code(0, ARITH_MAX, KIND_SIGNED, 64)).identity() as i64,
            i64::MIN
        );
        assert_eq!(Op2::new(code(0, ARITH_MIN, KIND_FLOAT, 16)).identity(), 0x7c00);
        assert_eq!(Op2::new(code(0, ARITH_MAX, KIND_FLOAT, 32)).identity(), 0xff80_0000);
        assert_eq!(Op2::new(code(0, ARITH_MUL, KIND_FLOAT, 16)).identity(), 0x3c00);
        assert_eq!(Op2::new(code(0, ARITH_MUL, KIND_SIGNED, 8)).identity(), 1);
    }

    #[test]
    fn float_equality() {
        let op = Op2::new(code(MODE_ALL_EQUAL, 0, KIND_FLOAT, 32));
        assert!(op.equal(0x8000_0000, 0));
        assert!(!op.equal(0x7fc0_0000, 0x7fc0_0000));
        let op = Op2::new(code(MODE_ALL_EQUAL, 0, KIND_UNSIGNED, 32));
        assert!(!op.equal(0x8000_0000, 0));
    }
}
