//! Work-group collective functions (`work_group_all/any/broadcast/reduce/scan_*`; SPIR-V
//! OpGroupAll, OpGroupAny, OpGroupBroadcast, OpGroupIAdd, OpGroupFAdd, OpGroup[SUF]Min,
//! OpGroup[SUF]Max with Workgroup scope).
//!
//! Built on the barrier machinery rather than beside it: before code generation `rewrite`
//! replaces each collective by three instructions,
//!
//! ```text
//! put(x)                          ; every work-item deposits its operand (clift_wg_put)
//! OpControlBarrier Workgroup      ; a region boundary: one region loop deposits...
//! %r = get(operation, local id)   ; ...the next reads the result (clift_wg_get)
//! ```
//!
//! `put` and `get` are OpExtInst of an internal instruction set (`SET_NAME`), so every path
//! that runs barriers (region loops, the single sweep loop, fibers) runs collectives too, and
//! the liveness at the barrier keeps the operands and results that cross it as for any value.
//!
//! The group's operands live in a per-thread scratch area (a work-group runs on one thread from
//! start to end). The first `get` of a collective computes the whole answer at once, in order
//! of local linear id (the reduction, or the scan for every work-item: linear in the group
//! size), and sets a count of the `get`s still to come; the others only read their element.
//! No second barrier is needed after the `get`: a work-item's next `put` only writes the
//! operands, which the next computation reads after the next barrier, by which time every
//! work-item has done this `get` (the spec requires every work-item of the group to meet each
//! collective).
//!
//! Sub-groups (`cl_khr_subgroups`, `__opencl_c_subgroups`): sub-group `k` of a work-group is
//! the work-items of local linear ids `k * SUB_GROUP_SIZE ..` (`abi::SUB_GROUP_SIZE`, 32; the
//! last sub-group of a group may be smaller). Sub-group operations are the collectives above
//! over that slice of the operands (Subgroup scope is split the same way), and a sub-group
//! barrier is a work-group barrier: every work-item of a Clift work-group runs on one thread,
//! region by region, so a narrower barrier would not be cheaper. Why 32: a common sub-group
//! size (a warp), which divides the usual power-of-two work-group sizes, and at most the 128
//! work-items the `cl_khr_subgroup_ballot` masks (uint4) can describe.
//!
//! Each slice (the whole group for work-group scope) has its own count of `get`s to come.
use super::driver as drv;
use super::layout::Scalar;
use super::module::Ctx;
use super::translate::{op_id, op_lit, result, FnTx, R};
use crate::abi::SUB_GROUP_SIZE;
use crate::codegen::driver::WorkItem;
use crate::spirv::module::Module;
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, GroupOperation, Op, Scope, StorageClass};
use std::cell::RefCell;

/// The name of the internal extended instruction set (never in a user's module: the rewrite
/// adds its import with a fresh id).
pub(crate) const SET_NAME: &str = "Clift.collective";

/// `put`'s instruction number: this bit set, the operand kind in bits 8..12.
const PUT: u32 = 0x8000_0000;

// `get`'s instruction number: mode | arith << 4 | kind << 8 | width << 16 | SUB_GROUP.
/// Set in `get`'s instruction number for Subgroup scope.
const SUB_GROUP: u32 = 0x4000_0000;
const MODE_REDUCE: u32 = 0;
const MODE_INCLUSIVE: u32 = 1;
const MODE_EXCLUSIVE: u32 = 2;
const MODE_BROADCAST: u32 = 3;
/// Sub-group broadcast: the source is a sub-group local id, i.e. the local linear id.
const MODE_BROADCAST_LINEAR: u32 = 4;
const ARITH_ADD: u32 = 0;
const ARITH_MIN: u32 = 1;
const ARITH_MAX: u32 = 2;
const ARITH_AND: u32 = 3;
const ARITH_OR: u32 = 4;
const KIND_SIGNED: u32 = 0;
const KIND_UNSIGNED: u32 = 1;
const KIND_FLOAT: u32 = 2;

/// The group operations `rewrite` handles: (arithmetic, operand kind).
fn classify(op: Op) -> Option<(u32, u32)> {
    Some(match op {
        Op::GroupAll => (ARITH_AND, KIND_UNSIGNED),
        Op::GroupAny => (ARITH_OR, KIND_UNSIGNED),
        Op::GroupBroadcast => (ARITH_ADD, KIND_UNSIGNED),
        Op::GroupIAdd => (ARITH_ADD, KIND_SIGNED),
        Op::GroupFAdd => (ARITH_ADD, KIND_FLOAT),
        Op::GroupSMin => (ARITH_MIN, KIND_SIGNED),
        Op::GroupUMin => (ARITH_MIN, KIND_UNSIGNED),
        Op::GroupFMin => (ARITH_MIN, KIND_FLOAT),
        Op::GroupSMax => (ARITH_MAX, KIND_SIGNED),
        Op::GroupUMax => (ARITH_MAX, KIND_UNSIGNED),
        Op::GroupFMax => (ARITH_MAX, KIND_FLOAT),
        _ => return None,
    })
}

fn scope_of(m: &Module, inst: &Instruction) -> Option<u32> {
    let id = match inst.operands.first()? {
        Operand::IdScope(s) | Operand::IdRef(s) => *s,
        _ => return None,
    };
    match m.constant(id)?.value {
        crate::spirv::module::ConstantValue::Scalar(v) => Some(v as u32),
        _ => None,
    }
}

/// Whether `inst` is a collective of the given execution scope that `rewrite` would split.
/// Sub-groups are whole work-groups (see `sub_group_builtin`), so both scopes are split.
fn is_group_op(m: &Module, inst: &Instruction) -> bool {
    classify(inst.opcode).is_some()
        && matches!(scope_of(m, inst), Some(s) if s == Scope::Workgroup as u32 || s == Scope::Subgroup as u32)
}

/// The module with every work-group collective split into put / barrier / get (see the module
/// documentation), or `None` when it has none. Malformed collectives are left alone: the
/// translator reports them.
pub(crate) fn rewrite(m: &Module) -> Option<Module> {
    let any = m.functions.iter().any(|f| {
        f.blocks
            .iter()
            .any(|b| b.instructions.iter().any(|i| is_group_op(m, i)))
    });
    if !any {
        return None;
    }
    let mut out = m.clone();
    let mut bound = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    for inst in &m.instructions {
        if let Some(r) = inst.result_id {
            bound = bound.max(r.saturating_add(1));
        }
    }
    for f in &m.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                if let Some(r) = i.result_id {
                    bound = bound.max(r.saturating_add(1));
                }
            }
        }
    }
    let set = bound;
    if let Some(h) = out.header.as_mut() {
        h.bound = bound + 1;
    }
    out.ext_inst_imports.push((set, SET_NAME.to_string()));
    for f in &mut out.functions {
        for b in &mut f.blocks {
            let old = std::mem::take(&mut b.instructions);
            for inst in old {
                let split = is_group_op(m, &inst)
                    .then(|| split(set, &inst, scope_of(m, &inst)))
                    .flatten();
                match split {
                    Some(three) => b.instructions.extend(three),
                    None => b.instructions.push(inst),
                }
            }
        }
    }
    Some(out)
}

/// put / barrier / get for one collective (`None`: operands not as expected).
fn split(set: u32, inst: &Instruction, scope_value: Option<u32>) -> Option<[Instruction; 3]> {
    let sub_group = scope_value == Some(Scope::Subgroup as u32);
    let (arith, kind) = classify(inst.opcode)?;
    let scope = match inst.operands.first()? {
        Operand::IdScope(s) | Operand::IdRef(s) => *s,
        _ => return None,
    };
    let id = |i: usize| match inst.operands.get(i) {
        Some(Operand::IdRef(x)) => Some(*x),
        _ => None,
    };
    let (mode, value, extra) = match inst.opcode {
        Op::GroupAll | Op::GroupAny => (MODE_REDUCE, id(1)?, None),
        Op::GroupBroadcast if sub_group => (MODE_BROADCAST_LINEAR, id(1)?, Some(id(2)?)),
        Op::GroupBroadcast => (MODE_BROADCAST, id(1)?, Some(id(2)?)),
        _ => {
            let mode = match inst.operands.get(1)? {
                Operand::GroupOperation(GroupOperation::Reduce) => MODE_REDUCE,
                Operand::GroupOperation(GroupOperation::InclusiveScan) => MODE_INCLUSIVE,
                Operand::GroupOperation(GroupOperation::ExclusiveScan) => MODE_EXCLUSIVE,
                _ => return None,
            };
            (mode, id(2)?, None)
        }
    };
    let mk = |result_type, result_id, operands| Instruction {
        opcode: Op::ExtInst,
        result_type,
        result_id,
        operands,
        offset: inst.offset,
    };
    let put = mk(
        None,
        None,
        vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(PUT | kind << 8),
            Operand::IdRef(value),
        ],
    );
    let barrier = Instruction {
        opcode: Op::ControlBarrier,
        result_type: None,
        result_id: None,
        // The semantics operand is not read by the code generator; the scope's constant
        // (Workgroup, 2) stands in for it.
        operands: vec![
            Operand::IdScope(scope),
            Operand::IdScope(scope),
            Operand::IdMemorySemantics(scope),
        ],
        offset: inst.offset,
    };
    let mut ops = vec![
        Operand::IdRef(set),
        Operand::LiteralExtInstInteger(mode | arith << 4 | kind << 8),
    ];
    if let Some(e) = extra {
        ops.push(Operand::IdRef(e));
    }
    if sub_group {
        if let Some(Operand::LiteralExtInstInteger(c)) = ops.get_mut(1) {
            *c |= SUB_GROUP;
        }
    }
    let get = mk(inst.result_type, inst.result_id, ops);
    Some([put, barrier, get])
}

/// Whether `inst` is one of the rewrite's put / get instructions.
pub(crate) fn is_collective(cx: &Ctx, inst: &Instruction) -> bool {
    inst.opcode == Op::ExtInst
        && matches!(inst.operands.first(), Some(Operand::IdRef(s)) if cx.ext_sets.get(s).is_some_and(|n| n == SET_NAME))
}

impl FnTx<'_, '_, '_> {
    /// Translates a put or get of the rewrite.
    pub fn collective(&mut self, inst: &Instruction) -> R {
        let code = op_lit(inst, 1)?;
        let wi = self.wi;
        if code & PUT != 0 {
            let x = op_id(inst, 2)?;
            let ty = self.ty_of(x)?;
            let (s, n) = self.cx.layout.shape(ty)?;
            if n != 1 {
                return Err(self.err(inst, "work-group functions take scalar operands"));
            }
            let v = self.val1(x)?;
            let signed = (code >> 8) & 0xf == KIND_SIGNED;
            let bits = self.leaf_to_bits(inst, s, v, signed)?;
            self.call_helper("clift_wg_put", &[types::I64, types::I64], &[], &[wi, bits])?;
            return Ok(());
        }
        let (r, ty) = result(inst)?;
        let (s, n) = self.cx.layout.shape(ty)?;
        if n != 1 {
            return Err(self.err(inst, "work-group functions return scalars"));
        }
        let width = match s {
            Scalar::Bool => 8,
            Scalar::Int(w) | Scalar::Float(w) => w,
            Scalar::Ptr => 64,
        };
        let kind = (code >> 8) & 0xf;
        let float_op = kind == KIND_FLOAT;
        let broadcast = matches!(code & 0xf, MODE_BROADCAST | MODE_BROADCAST_LINEAR);
        if float_op != matches!(s, Scalar::Float(_)) && !broadcast {
            return Err(self.err(inst, "operand type does not match the operation"));
        }
        let kind = if matches!(s, Scalar::Float(_)) {
            KIND_FLOAT
        } else {
            kind
        };
        let full = (code & (0xff | SUB_GROUP)) | kind << 8 | width << 16;
        let mut idx = [None; 3];
        if matches!(code & 0xf, MODE_BROADCAST | MODE_BROADCAST_LINEAR) {
            let lid = op_id(inst, 2)?;
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
        let out = self.call_helper(
            "clift_wg_get",
            &[types::I64, types::I32, types::I64, types::I64, types::I64],
            &[types::I64],
            &[wi, c, x, y, z],
        )?;
        let v = self.bits_to_leaf(s, out[0]);
        self.def(r, ty, vec![v]);
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
}

impl FnTx<'_, '_, '_> {
    /// A load of a sub-group builtin variable (32-bit values), `None` for any other pointer.
    pub fn sub_group_builtin(&mut self, ptr: u32) -> R<Option<Value>> {
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
            _ => return Ok(None),
        };
        Ok(Some(self.b.ins().ireduce(types::I32, v)))
    }
}

// ---------------------------------------------------------------------------------------------
// Run time
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Scratch {
    /// Operands by local linear id.
    vals: Vec<u64>,
    /// Answers by local linear id: per work-item (scans), or at the first id of the slice.
    out: Vec<u64>,
    /// Per slice (the group, or a sub-group by index): `get`s of the current collective still
    /// to come; 0: the next `get` computes.
    remaining: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Forgets a collective in progress (after a fault ended a group in the middle of one).
pub(crate) fn reset() {
    SCRATCH.with(|s| s.borrow_mut().remaining.iter_mut().for_each(|r| *r = 0));
}

fn group_size(wi: &WorkItem) -> usize {
    (wi.local_size[0] * wi.local_size[1] * wi.local_size[2]) as usize
}

fn grow(s: &mut Scratch, n: usize) {
    if s.vals.len() < n {
        s.vals.resize(n, 0);
        s.out.resize(n, 0);
    }
    if s.remaining.len() < n.div_ceil(SUB_GROUP_SIZE).max(1) {
        s.remaining.resize(n.div_ceil(SUB_GROUP_SIZE).max(1), 0);
    }
}

/// `put`: the work-item's operand.
///
/// # Safety
/// `wi` is the work-item state the driver passed to the kernel, with its ids set.
pub unsafe extern "C" fn clift_wg_put(wi: *const WorkItem, bits: u64) {
    let wi = unsafe { &*wi };
    let n = group_size(wi);
    let lid = wi.local_linear_id as usize;
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        grow(&mut s, n);
        if let Some(slot) = s.vals.get_mut(lid) {
            *slot = bits;
        }
    });
}

/// `get`: the work-item's result of the collective `code` (see `split`); `x, y, z` the local
/// id of a broadcast's source.
///
/// # Safety
/// As [`clift_wg_put`].
pub unsafe extern "C" fn clift_wg_get(wi: *const WorkItem, code: u32, x: u64, y: u64, z: u64) -> u64 {
    let wi = unsafe { &*wi };
    let n = group_size(wi);
    let lid = wi.local_linear_id as usize;
    if lid >= n {
        return 0;
    }
    let mode = code & 0xf;
    // The slice of the group this collective spans: index, first id, end.
    let (slice, start, end) = if code & SUB_GROUP != 0 {
        let k = lid / SUB_GROUP_SIZE;
        (k, k * SUB_GROUP_SIZE, ((k + 1) * SUB_GROUP_SIZE).min(n))
    } else {
        (0, 0, n)
    };
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let s = &mut *s;
        grow(s, n);
        if s.remaining[slice] == 0 {
            s.remaining[slice] = (end - start) as u32;
            compute(code, &s.vals[start..end], &mut s.out[start..end], wi, [x, y, z]);
        }
        s.remaining[slice] -= 1;
        let at = if matches!(mode, MODE_INCLUSIVE | MODE_EXCLUSIVE) {
            lid
        } else {
            start
        };
        s.out[at]
    })
}

/// One collective over `vals` (a slice of the group in local linear id order) into `out` (as
/// long): every element for scans, the first for the others.
fn compute(code: u32, vals: &[u64], out: &mut [u64], wi: &WorkItem, xyz: [u64; 3]) {
    let mode = code & 0xf;
    let Some(first) = out.first_mut() else { return };
    if mode == MODE_BROADCAST {
        let [lx, ly, lz] = wi.local_size;
        let [x, y, z] = xyz;
        // An id outside the group is undefined behaviour; 0 keeps it harmless.
        *first = if x < lx && y < ly && z < lz {
            vals.get(((z * ly + y) * lx + x) as usize).copied().unwrap_or(0)
        } else {
            0
        };
        return;
    }
    if mode == MODE_BROADCAST_LINEAR {
        *first = vals.get(xyz[0] as usize).copied().unwrap_or(0);
        return;
    }
    let op = Op2::new(code);
    let id = op.identity();
    match mode {
        MODE_REDUCE => *first = vals.iter().fold(id, |a, &v| op.apply(a, v)),
        MODE_INCLUSIVE => {
            let mut acc = id;
            for (o, &v) in out.iter_mut().zip(vals) {
                acc = op.apply(acc, v);
                *o = acc;
            }
        }
        _ => {
            let mut acc = id;
            for (o, &v) in out.iter_mut().zip(vals) {
                *o = acc;
                acc = op.apply(acc, v);
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
            arith: (code >> 4) & 0xf,
            kind: (code >> 8) & 0xf,
            width: (code >> 16) & 0xff,
        }
    }

    fn identity(self) -> u64 {
        let w = self.width.clamp(1, 64);
        match (self.arith, self.kind) {
            (ARITH_AND, _) => 1,
            (ARITH_ADD | ARITH_OR, _) => 0,
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
            _ if self.kind == KIND_FLOAT => self.float(a, b),
            ARITH_ADD => a.wrapping_add(b),
            ARITH_MIN if self.kind == KIND_SIGNED => (a as i64).min(b as i64) as u64,
            ARITH_MAX if self.kind == KIND_SIGNED => (a as i64).max(b as i64) as u64,
            ARITH_MIN => a.min(b),
            _ => a.max(b),
        }
    }

    fn float(self, a: u64, b: u64) -> u64 {
        // fmin / fmax: a NaN operand yields the other one (Rust's min and max do the same).
        match self.width {
            32 => {
                let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                let r = match self.arith {
                    ARITH_ADD => x + y,
                    ARITH_MIN => x.min(y),
                    _ => x.max(y),
                };
                u64::from(r.to_bits())
            }
            64 => {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let r = match self.arith {
                    ARITH_ADD => x + y,
                    ARITH_MIN => x.min(y),
                    _ => x.max(y),
                };
                r.to_bits()
            }
            _ => {
                // half: each step in double (exact for a sum of two halves), rounded to
                // nearest even.
                use super::helpers::{f16_to_f64, f64_to_f16, RTE};
                let (x, y) = (f16_to_f64(a as u16), f16_to_f64(b as u16));
                let r = match self.arith {
                    ARITH_ADD => x + y,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn code(mode: u32, arith: u32, kind: u32, width: u32) -> u32 {
        mode | arith << 4 | kind << 8 | width << 16
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
    }
}
