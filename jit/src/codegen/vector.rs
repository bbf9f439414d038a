//! OpenCL vector values in SIMD registers (issue 15) on the scalar path (one work-item per loop
//! iteration).
//!
//! Every value keeps its list of scalar leaves (`FnTx::vals`): that is what the rest of the
//! translator (calls, promoted variables, the work-group loops, the regions, the vector loop
//! across work-items) reads and writes. A vector of 2, 3, 4, 8 or 16 lanes of an 8- to 64-bit
//! integer, float or double also has a SIMD form (`FnTx::vecs`): one 128-bit register per 16
//! bytes of lanes (`I8X16` .. `F64X2`; an 8- or 16-lane vector of 32-bit lanes is two or four
//! registers; a 2- or 3-lane vector uses the first lanes of one register). The SIMD form is
//! keyed by the leaves it was made with, so a value redefined elsewhere (the other translators
//! save and restore `vals`) never picks up a stale register.
//!
//! An instruction that has a SIMD form takes its operands' registers (packing the leaves with
//! `splat` + `insertlane` where an operand has none, a constant as one `vconst`) and defines its
//! result by its registers and by `extractlane` leaves; Cranelift removes the extracts (and the
//! packs) nobody uses, so a chain of vector operations stays in registers. Vector OpPhis are
//! block parameters of the register type (outside barrier regions), so loop-carried vectors
//! stay in registers too. Boolean vectors (comparison results) are held as lane masks of the
//! compared lanes' width, which feed OpSelect as `bitselect`.
//!
//! Values kept across barriers (region mode) keep their leaves in SSA variables, but their
//! registers too: `group` gives a vector whose lanes fill whole 16-byte registers (float4,
//! float8, int4, double2, char16...) 16-byte aligned record slots, the region restores it with
//! one vector load per register (`restore_slots`), and the barrier saves it with one vector
//! store per register when its leaves are still those of its registers (`save_slots`; after
//! control flow the SSA builder's block parameters hide that, and the leaves are stored one by
//! one, as are 3-lane vectors and promoted variables).
//!
//! In SIMD: integer add, sub, mul (not 8-bit lanes), and, or, xor, not, negate, shifts by an
//! amount the same in every lane (a constant, or a scalar splatted by insert + shuffle, masked
//! by `& (width - 1)` or not: compilers' form of `v << s`); float add, sub, mul, div, negate; every integer
//! and float comparison; OpSelect; OpVectorTimesScalar; OpVectorShuffle within one register (a broadcast of one lane, `(float4)(x)`, as one
//! `splat` of the scalar);
//! OpCompositeInsert; OpCopyObject; OpLoad / OpStore of 2-, 4-, 8- and 16-lane vectors (not
//! through promoted Function variables); vloadn / vstoren of 2, 4, 8, 16 lanes; the built-ins
//! fabs, fma, mad, sqrt, rsqrt, floor, ceil, trunc, rint, fmin, fmax, fclamp, mix, divide, recip,
//! degrees, radians, s/u min, max, clamp, s_abs, bitselect, select and rotate by a constant.
//! fmin/fmax/fclamp are built from the `maxps`/`minps` pattern (`y < x ? x : y`) so that they
//! are bit for bit the scalar path's (NaN operands, signed zeros), and are one instruction
//! against a constant bound that is neither NaN nor zero (a clamp's bounds).
//!
//! Scalar leaves remain (no SIMD operation, or not worth one): half vectors and boolean
//! vectors' logical operations; integer division and remainder (no SIMD division); 8-bit lane
//! multiplication (no `pmullb`); shifts by per-lane amounts and `rotate` by a non-constant
//! (no per-lane SIMD shift in Cranelift's x86 backend); FRem/FMod, copysign, sign, step, smoothstep, round (no
//! vector `fcopysign` lowering); OpDot, OpAny/OpAll (a horizontal sum in the scalar order keeps
//! the results identical); conversions between types (`fcvt` lane variants are partial on
//! x86); 3-lane loads and stores (a 16-byte access could touch memory past the object);
//! OpVectorExtractDynamic / InsertDynamic; shuffles whose sources or result span several
//! registers; the geometric functions and the math library's polynomial functions (sin, cos,
//! exp, log, pow ...: one call per lane); function parameters and results; promoted
//! Function variables. `CLIFT_VECTOR_LEAVES=1` turns the SIMD forms off (the differential
//! test compares both paths).

use super::arith::{float_cc, int_cc};
use super::layout::{Id, Scalar, Ty};
use super::state::{op_id, op_lit, FnTx, Slot, R};
use crate::spirv::module::ConstantValue;
use crate::spirv::Instruction;
use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, types, ConstantData, Endianness, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Variable;
use rspirv::spirv::Op;
use std::collections::HashMap;

/// How a vector type is held in SIMD registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Simd {
    pub s: Scalar,
    /// The lane's Cranelift type.
    pub lane: ir::Type,
    /// Lanes of the OpenCL vector.
    pub n: u32,
    /// Lanes per register.
    pub per: u32,
    /// The register type.
    pub vty: ir::Type,
}

impl Simd {
    pub fn regs(&self) -> usize {
        self.n.div_ceil(self.per) as usize
    }

    /// The vector's lanes held in register `r`.
    pub fn lanes_in(&self, r: usize) -> std::ops::Range<usize> {
        let per = self.per as usize;
        r * per..(self.n as usize).min((r + 1) * per)
    }

    pub fn is_float(&self) -> bool {
        matches!(self.s, Scalar::Float(_))
    }

    /// The integer register type of the same lane width (comparison masks).
    pub fn mask_ty(&self) -> ir::Type {
        ir::Type::int(self.lane.bits() as u16)
            .and_then(|t| t.by(self.per))
            .unwrap_or(types::I32X4)
    }
}

/// Whether `CLIFT_VECTOR_LEAVES=1` forces vectors onto scalar leaves.
pub(crate) fn vector_leaves_forced() -> bool {
    std::env::var("CLIFT_VECTOR_LEAVES").is_ok_and(|v| v == "1")
}

/// Flags of a bitcast between vector types (lane counts may differ).
pub(crate) fn vflags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl FnTx<'_, '_, '_> {
    /// The SIMD shape of type `ty`, when vectors are in SIMD registers and it is one.
    pub fn simd_shape(&self, ty: Id) -> Option<Simd> {
        if !self.simd_on {
            return None;
        }
        let info = self.cx.layout.get(ty).ok()?;
        let Ty::Vector(s, n) = info.ty else { return None };
        if !matches!(s, Scalar::Int(8 | 16 | 32 | 64) | Scalar::Float(32 | 64)) || !matches!(n, 2 | 3 | 4 | 8 | 16) {
            return None;
        }
        let lane = s.clif();
        let per = 128 / lane.bits();
        Some(Simd {
            s,
            lane,
            n,
            per,
            vty: lane.by(per)?,
        })
    }

    /// The SIMD shape of value `id`'s type.
    pub fn simd_of(&self, id: Id) -> Option<Simd> {
        self.ty_of(id).ok().and_then(|t| self.simd_shape(t))
    }

    /// Registers holding `leaves` (unused lanes repeat the register's first lane).
    pub fn pack(&mut self, sh: Simd, leaves: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(sh.regs());
        for r in 0..sh.regs() {
            let lanes = sh.lanes_in(r);
            let first = lanes.start;
            let mut v = self.b.ins().splat(sh.vty, leaves[first]);
            for i in lanes.skip(1) {
                v = self.b.ins().insertlane(v, leaves[i], (i - first) as u8);
            }
            out.push(v);
        }
        out
    }

    /// The leaves of registers `regs` (a register that is a `splat` gives its scalar: a
    /// broadcast constant stays a constant for those who look, the vector loop's `fclamp` and
    /// `fmin`/`fmax` against a constant bound among them).
    pub fn unpack(&mut self, sh: Simd, regs: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(sh.n as usize);
        for (r, reg) in regs.iter().enumerate() {
            let dfg = &self.b.func.dfg;
            let splat = match dfg.value_def(*reg).inst().map(|i| &dfg.insts[i]) {
                Some(ir::InstructionData::Unary {
                    opcode: ir::Opcode::Splat,
                    arg,
                }) if dfg.value_type(*arg) == sh.lane => Some(*arg),
                _ => None,
            };
            for i in sh.lanes_in(r) {
                out.push(match splat {
                    Some(x) => x,
                    None => self.b.ins().extractlane(*reg, (i % sh.per as usize) as u8),
                });
            }
        }
        out
    }

    /// Defines `id` by its registers (and their leaves). A value kept across barriers (its
    /// leaves in SSA variables) keeps its registers too: they serve every use that reads the
    /// very leaves defined here, and the save at the next barrier (`save_slots`).
    pub fn def_simd(&mut self, id: Id, ty: Id, sh: Simd, regs: Vec<Value>) {
        let leaves = self.unpack(sh, &regs);
        self.def(id, ty, leaves.clone());
        self.vecs.insert(id, (leaves, regs));
    }

    /// Defines the boolean vector `id` by lane masks of shape `sh` (all ones where true).
    pub fn def_mask(&mut self, id: Id, ty: Id, sh: Simd, masks: Vec<Value>) {
        let mut leaves = Vec::with_capacity(sh.n as usize);
        for (r, m) in masks.iter().enumerate() {
            for i in sh.lanes_in(r) {
                let x = self.b.ins().extractlane(*m, (i % sh.per as usize) as u8);
                leaves.push(self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0));
            }
        }
        self.def(id, ty, leaves.clone());
        self.vecs.insert(id, (leaves, masks));
    }

    /// The registers of vector value `id`, if its type has a SIMD shape.
    pub fn vec_of(&mut self, id: Id) -> R<Option<(Simd, Vec<Value>)>> {
        let Some(sh) = self.simd_of(id) else { return Ok(None) };
        let leaves = self.val(id)?;
        if let Some((l, regs)) = self.vecs.get(&id) {
            if *l == leaves {
                return Ok(Some((sh, regs.clone())));
            }
        }
        if leaves.len() != sh.n as usize {
            return Ok(None);
        }
        if let Some(regs) = self.vec_const(id, sh) {
            return Ok(Some((sh, regs)));
        }
        Ok(Some((sh, self.pack(sh, &leaves))))
    }

    /// The registers of `id` when its shape is `sh` (None otherwise).
    pub fn vec_as(&mut self, id: Id, sh: Simd) -> R<Option<Vec<Value>>> {
        Ok(match self.vec_of(id)? {
            Some((s, regs)) if s == sh => Some(regs),
            _ => None,
        })
    }

    /// Lane masks of shape `sh` for the boolean vector `id` (or a scalar boolean, broadcast).
    pub fn mask_of(&mut self, id: Id, sh: Simd) -> R<Vec<Value>> {
        let leaves = self.val(id)?;
        let mt = sh.mask_ty();
        if let Some((l, masks)) = self.vecs.get(&id) {
            if *l == leaves && masks.len() == sh.regs() && masks.iter().all(|m| self.b.func.dfg.value_type(*m) == mt) {
                return Ok(masks.clone());
            }
        }
        let it = mt.lane_type();
        let wide: Vec<Value> = (0..sh.n as usize)
            .map(|i| {
                let x = if leaves.len() == 1 { leaves[0] } else { leaves[i] };
                if it.bits() > 8 {
                    self.b.ins().uextend(it, x)
                } else {
                    x
                }
            })
            .collect();
        let ish = Simd {
            s: Scalar::Int(it.bits()),
            lane: it,
            vty: mt,
            ..sh
        };
        let packed = self.pack(ish, &wide);
        Ok(packed.into_iter().map(|p| self.b.ins().ineg(p)).collect())
    }

    /// A constant vector as `vconst` registers.
    fn vec_const(&mut self, id: Id, sh: Simd) -> Option<Vec<Value>> {
        let c = self.cx.m.constant(id)?;
        if c.spec {
            return None;
        }
        let bits: Vec<u64> = match &c.value {
            ConstantValue::Null | ConstantValue::Undef => vec![0; sh.n as usize],
            ConstantValue::Composite(parts) => {
                let mut v = Vec::with_capacity(parts.len());
                for p in parts {
                    let pc = self.cx.m.constant(*p)?;
                    if pc.spec {
                        return None;
                    }
                    v.push(match pc.value {
                        ConstantValue::Scalar(b) => b,
                        ConstantValue::Null | ConstantValue::Undef => 0,
                        _ => return None,
                    });
                }
                v
            }
            _ => return None,
        };
        if bits.len() != sh.n as usize {
            return None;
        }
        let lb = (sh.lane.bits() / 8) as usize;
        let mut out = Vec::with_capacity(sh.regs());
        for r in 0..sh.regs() {
            let lanes = sh.lanes_in(r);
            let mut bytes = Vec::with_capacity(16);
            for k in 0..sh.per as usize {
                let b = bits
                    .get(lanes.start + k)
                    .filter(|_| lanes.start + k < lanes.end)
                    .copied()
                    .unwrap_or(0);
                bytes.extend_from_slice(&b.to_le_bytes()[..lb]);
            }
            let h = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
            out.push(self.b.ins().vconst(sh.vty, h));
        }
        Some(out)
    }

    /// The value of a constant (or of a vector constant with every lane equal, or of the
    /// insert-and-shuffle splat of a constant).
    pub fn splat_const(&self, id: Id) -> Option<u64> {
        if let Some((None, b)) = self.known_lanes.get(&id) {
            return Some(*b);
        }
        let c = self.cx.m.constant(id)?;
        if c.spec {
            return None;
        }
        match &c.value {
            ConstantValue::Scalar(b) => Some(*b),
            ConstantValue::Null => Some(0),
            ConstantValue::Composite(parts) => {
                let first = self.splat_const(*parts.first()?)?;
                parts
                    .iter()
                    .all(|p| self.splat_const(*p) == Some(first))
                    .then_some(first)
            }
            _ => None,
        }
    }

    /// A scalar operand broadcast to registers of shape `sh`.
    pub fn splat_regs(&mut self, sh: Simd, x: Value) -> Vec<Value> {
        let v = self.b.ins().splat(sh.vty, x);
        vec![v; sh.regs()]
    }

    /// Integer view of float registers (and back): for the bitwise operations.
    pub fn int_view(&mut self, sh: Simd, regs: &[Value]) -> Vec<Value> {
        if !sh.is_float() {
            return regs.to_vec();
        }
        let it = sh.mask_ty();
        regs.iter().map(|r| self.b.ins().bitcast(it, vflags(), *r)).collect()
    }

    pub fn float_view(&mut self, sh: Simd, regs: &[Value]) -> Vec<Value> {
        if !sh.is_float() {
            return regs.to_vec();
        }
        regs.iter()
            .map(|r| self.b.ins().bitcast(sh.vty, vflags(), *r))
            .collect()
    }

    /// Block parameters of the vector phis of a block made for `label`: registers instead of
    /// leaves. Returns false when the phi keeps leaves.
    pub fn simd_phi_params(&mut self, label: Id, cblk: ir::Block, r: Id, ty: Id) -> bool {
        if self.group.as_ref().is_some_and(|g| g.regions.is_some()) {
            return false;
        }
        let Some(sh) = self.simd_shape(ty) else { return false };
        let params: Vec<Value> = (0..sh.regs())
            .map(|_| self.b.append_block_param(cblk, sh.vty))
            .collect();
        self.simd_phis.entry(label).or_default().push((r, ty, params));
        self.simd_phi_results.insert(r);
        true
    }

    /// At the start of block `label`: its vector phis' leaves from their registers.
    pub fn enter_simd_phis(&mut self, label: Id) {
        let list = self.simd_phis.get(&label).cloned().unwrap_or_default();
        for (r, ty, params) in list {
            if let Some(sh) = self.simd_shape(ty) {
                self.def_simd(r, ty, sh, params);
            }
        }
    }

    /// The block arguments for phi `r` (of type `ty`) taking value `v` (zero when None).
    pub fn phi_arg(&mut self, r: Id, v: Option<Id>, ty: Id) -> R<Vec<Value>> {
        if self.simd_phi_results.contains(&r) {
            if let Some(sh) = self.simd_shape(ty) {
                if let Some(v) = v {
                    if let Some((s, regs)) = self.vec_of(v)? {
                        if s == sh {
                            return Ok(regs);
                        }
                    }
                    let leaves = self.val(v)?;
                    return Ok(self.pack(sh, &leaves));
                }
                let z = self.b.ins().iconst(types::I8, 0);
                let zi = self.b.ins().splat(types::I8X16, z);
                let zr = self.b.ins().bitcast(sh.vty, vflags(), zi);
                return Ok(vec![zr; sh.regs()]);
            }
        }
        match v {
            Some(v) => self.val(v),
            None => self.zeros(ty),
        }
    }
}

/// A barrier's record slots (`group::Slot`) as the save and the restore move them.
pub(crate) enum SlotMove {
    /// One leaf.
    Leaf(Slot),
    /// The leaves of value `id` laid out as whole 16-byte registers of lanes `lane` from
    /// offset `off` on (`group` aligns such values to 16 bytes): one vector load or store per
    /// register.
    Regs {
        id: Id,
        vars: Vec<Variable>,
        off: i32,
        lane: ir::Type,
    },
}

impl FnTx<'_, '_, '_> {
    /// Slots `slots` grouped into whole registers where a kept value's leaves fill 16-byte
    /// registers at consecutive offsets (OpenCL vectors of 16, 32 or 64 bytes, 2-lane vectors
    /// of 64-bit lanes), leaf by leaf elsewhere.
    pub(crate) fn slot_moves(&self, slots: &[Slot]) -> Vec<SlotMove> {
        let crossing = self
            .group
            .as_ref()
            .and_then(|g| g.regions.as_ref())
            .map(|r| &r.crossing);
        let mut owner: HashMap<usize, Id> = HashMap::new();
        if let Some(c) = crossing {
            for (id, vars) in c {
                if vars.len() > 1 {
                    for v in vars {
                        owner.insert(v.index(), *id);
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(slots.len());
        let mut i = 0;
        while i < slots.len() {
            let (var, off, lane) = slots[i];
            let whole = owner.get(&var.index()).and_then(|id| {
                let vars = crossing?.get(id)?;
                let n = vars.len();
                let lb = lane.bytes() as i32;
                let fits = simd_on_lanes(lane)
                    && off % 16 == 0
                    && (n as i32 * lb) % 16 == 0
                    && vars.first() == Some(&var)
                    && slots.len() >= i + n
                    && slots[i..i + n]
                        .iter()
                        .zip(vars)
                        .enumerate()
                        .all(|(k, ((v, o, t), w))| v == w && *t == lane && *o == off + k as i32 * lb);
                fits.then(|| (*id, vars.clone()))
            });
            match whole {
                Some((id, vars)) if self.simd_on => {
                    i += vars.len();
                    out.push(SlotMove::Regs { id, vars, off, lane });
                }
                _ => {
                    out.push(SlotMove::Leaf(slots[i]));
                    i += 1;
                }
            }
        }
        out
    }

    /// Reloads the values of slots `slots` from the record at `rec` into their SSA variables
    /// (whole registers where `slot_moves` finds them; their registers serve the values' SIMD
    /// uses without repacking).
    pub(crate) fn restore_slots(&mut self, rec: Value, slots: &[Slot]) {
        let flags = MemFlagsData::trusted();
        for m in self.slot_moves(slots) {
            match m {
                SlotMove::Leaf((var, off, ty)) => {
                    let v = self.b.ins().load(ty, flags, rec, off);
                    self.b.def_var(var, v);
                }
                SlotMove::Regs { id, vars, off, lane } => {
                    let per = 16 / lane.bytes();
                    let Some(vty) = lane.by(per) else { continue };
                    let mut regs = Vec::new();
                    let mut leaves = Vec::with_capacity(vars.len());
                    for r in 0..vars.len() / per as usize {
                        let reg = self.b.ins().load(vty, flags, rec, off + 16 * r as i32);
                        for k in 0..per {
                            leaves.push(self.b.ins().extractlane(reg, k as u8));
                        }
                        regs.push(reg);
                    }
                    for (var, x) in vars.iter().zip(&leaves) {
                        self.b.def_var(*var, *x);
                    }
                    self.vecs.insert(id, (leaves, regs));
                }
            }
        }
    }

    /// Stores the values of slots `slots` in the record at `rec`: a kept vector whose current
    /// leaves are those of its registers as whole registers, anything else leaf by leaf.
    pub(crate) fn save_slots(&mut self, rec: Value, slots: &[Slot]) {
        let flags = MemFlagsData::trusted();
        for m in self.slot_moves(slots) {
            match m {
                SlotMove::Leaf((var, off, _)) => {
                    let v = self.b.use_var(var);
                    self.b.ins().store(flags, v, rec, off);
                }
                SlotMove::Regs { id, vars, off, lane } => {
                    let leaves: Vec<Value> = vars.iter().map(|v| self.b.use_var(*v)).collect();
                    let per = 16 / lane.bytes();
                    let want = lane.by(per);
                    let regs = self
                        .vecs
                        .get(&id)
                        .filter(|(l, regs)| {
                            *l == leaves
                                && regs.len() * per as usize == leaves.len()
                                && regs.iter().all(|r| Some(self.b.func.dfg.value_type(*r)) == want)
                        })
                        .map(|(_, regs)| regs.clone());
                    match regs {
                        Some(regs) => {
                            for (r, reg) in regs.iter().enumerate() {
                                self.b.ins().store(flags, *reg, rec, off + 16 * r as i32);
                            }
                        }
                        None => {
                            for (k, x) in leaves.iter().enumerate() {
                                self.b
                                    .ins()
                                    .store(flags, *x, rec, off + (k as u32 * lane.bytes()) as i32);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Lane types a kept value may move in whole registers.
fn simd_on_lanes(lane: ir::Type) -> bool {
    matches!(
        lane,
        types::I8 | types::I16 | types::I32 | types::I64 | types::F32 | types::F64
    )
}

/// The SIMD forms of instructions. Each returns `Ok(false)` where the instruction keeps its
/// scalar-leaf translation (the caller then runs that).
impl FnTx<'_, '_, '_> {
    /// Arithmetic, comparisons, select (called by `arith`).
    pub fn simd_arith(&mut self, inst: &Instruction) -> R<bool> {
        use Op::*;
        let op = inst.opcode;
        let (r, rty) = match (inst.result_id, inst.result_type) {
            (Some(r), Some(t)) => (r, t),
            _ => return Ok(false),
        };
        let two = |t: &mut Self, sh: Simd| -> R<Option<(Vec<Value>, Vec<Value>)>> {
            let a = t.vec_as(op_id(inst, 0)?, sh)?;
            let b = t.vec_as(op_id(inst, 1)?, sh)?;
            Ok(a.zip(b))
        };
        match op {
            IAdd | ISub | IMul | BitwiseAnd | BitwiseOr | BitwiseXor => {
                let Some(sh) = self.simd_shape(rty) else {
                    return Ok(false);
                };
                if sh.is_float() || (op == IMul && sh.lane == types::I8) {
                    return Ok(false);
                }
                let Some((a, b)) = two(self, sh)? else { return Ok(false) };
                let out = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| self.lanewise(op, *x, *y).ok_or_else(|| self.err(inst, "not lane-wise")))
                    .collect::<R<_>>()?;
                self.def_simd(r, rty, sh, out);
                // `splat(s) & (width - 1)`, as compilers mask a vector shift amount: the same
                // amount to a SIMD shift, which masks by itself.
                if op == BitwiseAnd {
                    let (x, y) = (op_id(inst, 0)?, op_id(inst, 1)?);
                    let w = sh.lane.bits() as u64 - 1;
                    for (s, c) in [(x, y), (y, x)] {
                        if let (Some((src, _)), Some(k)) = (self.splat_of.get(&s).copied(), self.splat_const(c)) {
                            if k & w == w {
                                self.splat_of.insert(r, (src, false));
                            }
                        }
                    }
                }
            }
            ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic => {
                let Some(sh) = self.simd_shape(rty) else {
                    return Ok(false);
                };
                let Some(amt) = self.shift_amount(sh, op_id(inst, 1)?)? else {
                    return Ok(false);
                };
                let Some(a) = self.vec_as(op_id(inst, 0)?, sh)? else {
                    return Ok(false);
                };
                let out = a
                    .iter()
                    .map(|x| match op {
                        ShiftLeftLogical => self.b.ins().ishl(*x, amt),
                        ShiftRightLogical => self.b.ins().ushr(*x, amt),
                        _ => self.b.ins().sshr(*x, amt),
                    })
                    .collect();
                self.def_simd(r, rty, sh, out);
            }
            FAdd | FSub | FMul | FDiv => {
                let Some(sh) = self.simd_shape(rty).filter(|s| s.is_float()) else {
                    return Ok(false);
                };
                let Some((a, b)) = two(self, sh)? else { return Ok(false) };
                let out = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| self.lanewise(op, *x, *y).ok_or_else(|| self.err(inst, "not lane-wise")))
                    .collect::<R<_>>()?;
                self.def_simd(r, rty, sh, out);
            }
            SNegate | Not | FNegate => {
                let Some(sh) = self.simd_shape(rty) else {
                    return Ok(false);
                };
                if sh.is_float() != (op == FNegate) {
                    return Ok(false);
                }
                let Some(a) = self.vec_as(op_id(inst, 0)?, sh)? else {
                    return Ok(false);
                };
                let out = a
                    .iter()
                    .map(|x| {
                        let t = self.b.func.dfg.value_type(*x);
                        self.lanewise_unary(op, *x, t)
                            .ok_or_else(|| self.err(inst, "not lane-wise"))
                    })
                    .collect::<R<_>>()?;
                self.def_simd(r, rty, sh, out);
            }
            IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | Ordered
            | Unordered
            | LessOrGreater => {
                let Some(sh) = self.simd_of(op_id(inst, 0)?) else {
                    return Ok(false);
                };
                let Some((a, b)) = two(self, sh)? else { return Ok(false) };
                let mut out = Vec::with_capacity(a.len());
                for (x, y) in a.iter().zip(&b) {
                    let (x, y) = (*x, *y);
                    let m = match (int_cc(op), float_cc(op)) {
                        (Some(cc), _) if !sh.is_float() => self.b.ins().icmp(cc, x, y),
                        (None, Some(FloatCC::OrderedNotEqual)) if sh.is_float() => {
                            let o = self.b.ins().fcmp(FloatCC::Ordered, x, y);
                            let ne = self.b.ins().fcmp(FloatCC::NotEqual, x, y);
                            self.b.ins().band(o, ne)
                        }
                        (None, Some(FloatCC::UnorderedOrEqual)) if sh.is_float() => {
                            let u = self.b.ins().fcmp(FloatCC::Unordered, x, y);
                            let eq = self.b.ins().fcmp(FloatCC::Equal, x, y);
                            self.b.ins().bor(u, eq)
                        }
                        (None, Some(cc)) if sh.is_float() => self.b.ins().fcmp(cc, x, y),
                        _ => return Ok(false),
                    };
                    out.push(m);
                }
                self.def_mask(r, rty, sh, out);
            }
            Select => {
                let Some(sh) = self.simd_shape(rty) else {
                    return Ok(false);
                };
                let c = op_id(inst, 0)?;
                let Some((a, b)) = (|t: &mut Self| -> R<_> {
                    let a = t.vec_as(op_id(inst, 1)?, sh)?;
                    let b = t.vec_as(op_id(inst, 2)?, sh)?;
                    Ok(a.zip(b))
                })(self)?
                else {
                    return Ok(false);
                };
                let cty = self.ty_of(c)?;
                let out = if matches!(self.cx.layout.get(cty)?.ty, Ty::Vector(Scalar::Bool, _)) {
                    let m = self.mask_of(c, sh)?;
                    self.bitselect_regs(sh, &m, &a, &b)
                } else {
                    let cv = self.val1(c)?;
                    a.iter().zip(&b).map(|(x, y)| self.b.ins().select(cv, *x, *y)).collect()
                };
                self.def_simd(r, rty, sh, out);
            }
            VectorTimesScalar => {
                let Some(sh) = self.simd_shape(rty).filter(|s| s.is_float()) else {
                    return Ok(false);
                };
                let Some(a) = self.vec_as(op_id(inst, 0)?, sh)? else {
                    return Ok(false);
                };
                let k = self.val1(op_id(inst, 1)?)?;
                let kv = self.b.ins().splat(sh.vty, k);
                let out = a.iter().map(|x| self.b.ins().fmul(*x, kv)).collect();
                self.def_simd(r, rty, sh, out);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The scalar amount of a vector shift whose amount is the same in every lane (a constant,
    /// or a splat of a scalar, masked or not), for registers of shape `sh`.
    pub fn shift_amount(&mut self, sh: Simd, id: Id) -> R<Option<Value>> {
        if let Some(k) = self.splat_const(id) {
            return Ok(Some(
                self.b.ins().iconst(types::I32, (k % sh.lane.bits() as u64) as i64),
            ));
        }
        if let Some((s, _)) = self.splat_of.get(&id).copied() {
            let v = self.val1(s)?;
            if self.b.func.dfg.value_type(v).is_int() {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// Lanes of `a` where the mask is set, of `b` elsewhere.
    pub fn bitselect_regs(&mut self, sh: Simd, m: &[Value], a: &[Value], b: &[Value]) -> Vec<Value> {
        (0..a.len())
            .map(|i| {
                let mi = if sh.is_float() {
                    self.b.ins().bitcast(sh.vty, vflags(), m[i])
                } else {
                    m[i]
                };
                self.b.ins().bitselect(mi, a[i], b[i])
            })
            .collect()
    }

    /// OpVectorShuffle, OpCompositeInsert of one component, OpCompositeConstruct of whole
    /// registers (called by `composite`).
    pub fn simd_composite(&mut self, inst: &Instruction) -> R<bool> {
        let (r, rty) = match (inst.result_id, inst.result_type) {
            (Some(r), Some(t)) => (r, t),
            _ => return Ok(false),
        };
        let Some(rs) = self.simd_shape(rty) else {
            return Ok(false);
        };
        match inst.opcode {
            Op::VectorShuffle => {
                let (ia, ib) = (op_id(inst, 0)?, op_id(inst, 1)?);
                self.note_splat(inst, r, ia)?;
                let (Some((sa, ra)), Some((sb, rb))) = (self.vec_of(ia)?, self.vec_of(ib)?) else {
                    return Ok(false);
                };
                if sa.lane != rs.lane || sb.lane != rs.lane {
                    return Ok(false);
                }
                let comps: Vec<u32> = (2..inst.operands.len()).map(|i| op_lit(inst, i)).collect::<R<_>>()?;
                let (na, per) = (sa.n as usize, rs.per as usize);
                // A broadcast of one lane (`(float4)(x)` is an insert and this shuffle): a
                // `splat` of that lane's scalar leaf, one instruction (a broadcast load when
                // the scalar came from memory) instead of a byte shuffle of the register.
                if let Some(&c) = comps.first() {
                    let c = c as usize;
                    let total = na + sb.n as usize;
                    if c < total && comps.len() == rs.n as usize && comps.iter().all(|&k| k as usize == c) {
                        // The scalar itself where the lane was just inserted (its leaf is
                        // an extract of the insert, which Cranelift does not fold).
                        let (src, lane) = if c < na { (ia, c) } else { (ib, c - na) };
                        let x = match self.inserted.get(&src).copied() {
                            Some((l, obj)) if l as usize == lane => self.val1(obj)?,
                            _ => self.val(src)?[lane],
                        };
                        if self.b.func.dfg.value_type(x) == rs.lane {
                            let v = self.b.ins().splat(rs.vty, x);
                            let out = vec![v; rs.regs()];
                            self.def_simd(r, rty, rs, out);
                            return Ok(true);
                        }
                    }
                }
                // Source lane -> (source register, lane in it).
                // Source lane -> (source register, lane in it); an undefined component (the
                // 0xFFFFFFFF literal) is zero, as on the leaf path.
                let src = |c: u32| -> Option<(usize, usize)> {
                    let c = c as usize;
                    if c < na {
                        Some((c / per, c % per))
                    } else if c - na < sb.n as usize {
                        Some((ra.len() + (c - na) / per, (c - na) % per))
                    } else {
                        None
                    }
                };
                let all: Vec<Value> = ra.iter().chain(&rb).copied().collect();
                let lb = (rs.lane.bits() / 8) as usize;
                let mut out = Vec::with_capacity(rs.regs());
                for reg in 0..rs.regs() {
                    let mut lanes: Vec<Option<(usize, usize)>> = Vec::with_capacity(per);
                    for i in rs.lanes_in(reg) {
                        let c = *comps.get(i).ok_or_else(|| self.err(inst, "too few components"))?;
                        lanes.push(src(c));
                    }
                    let mut used: Vec<usize> = Vec::new();
                    for (s, _) in lanes.iter().flatten() {
                        if !used.contains(s) {
                            used.push(*s);
                        }
                    }
                    if used.len() > 2 {
                        return Ok(false);
                    }
                    if used.is_empty() {
                        used.push(0);
                    }
                    let mut bytes = Vec::with_capacity(16);
                    let mut keep = Vec::with_capacity(16);
                    for k in 0..per {
                        // Lanes past the vector repeat its first one.
                        let lane = if k < lanes.len() { lanes[k] } else { lanes[0] };
                        for j in 0..lb {
                            bytes.push(match lane {
                                Some((s, l)) => ((if s == used[0] { 0 } else { 16 }) + l * lb + j) as u8,
                                None => 0,
                            });
                            keep.push(if lane.is_some() { 0xff } else { 0 });
                        }
                    }
                    let x = self.b.ins().bitcast(types::I8X16, vflags(), all[used[0]]);
                    let y = match used.get(1) {
                        Some(s) => self.b.ins().bitcast(types::I8X16, vflags(), all[*s]),
                        None => x,
                    };
                    let imm = self.b.func.dfg.immediates.push(ConstantData::from(bytes));
                    let mut v = self.b.ins().shuffle(x, y, imm);
                    if keep.contains(&0) {
                        let h = self.b.func.dfg.constants.insert(ConstantData::from(keep));
                        let m = self.b.ins().vconst(types::I8X16, h);
                        v = self.b.ins().band(v, m);
                    }
                    out.push(self.b.ins().bitcast(rs.vty, vflags(), v));
                }
                self.def_simd(r, rty, rs, out);
            }
            Op::CompositeInsert => {
                if inst.operands.len() != 3 {
                    return Ok(false);
                }
                let idx = op_lit(inst, 2)? as usize;
                if idx >= rs.n as usize {
                    return Ok(false);
                }
                let Some(mut regs) = self.vec_as(op_id(inst, 1)?, rs)? else {
                    return Ok(false);
                };
                let obj = op_id(inst, 0)?;
                let x = self.val1(obj)?;
                if let Some(b) = self.splat_const(obj) {
                    self.known_lanes.insert(r, (Some(idx as u32), b));
                }
                self.inserted.insert(r, (idx as u32, obj));
                let k = idx / rs.per as usize;
                regs[k] = self.b.ins().insertlane(regs[k], x, (idx % rs.per as usize) as u8);
                self.def_simd(r, rty, rs, regs);
            }
            Op::CompositeConstruct => {
                let mut regs = Vec::new();
                for i in 0..inst.operands.len() {
                    let id = op_id(inst, i)?;
                    match self.simd_of(id) {
                        Some(s) if s.lane == rs.lane && s.n == s.per => {
                            let Some((_, rr)) = self.vec_of(id)? else {
                                return Ok(false);
                            };
                            regs.extend(rr);
                        }
                        _ => return Ok(false),
                    }
                }
                if regs.len() != rs.regs() {
                    return Ok(false);
                }
                self.def_simd(r, rty, rs, regs);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Records `r` as a constant splat when shuffle `inst` repeats one lane of `a` that holds
    /// a known constant.
    fn note_splat(&mut self, inst: &Instruction, r: Id, a: Id) -> R {
        let comps: Vec<u32> = (2..inst.operands.len()).map(|i| op_lit(inst, i)).collect::<R<_>>()?;
        let Some(first) = comps.first().copied() else {
            return Ok(());
        };
        let na = self.simd_of(a).map(|s| s.n).unwrap_or(0);
        if first >= na || comps.iter().any(|c| *c != first) {
            return Ok(());
        }
        if let Some((l, s)) = self.inserted.get(&a).copied() {
            if l == first {
                self.splat_of.insert(r, (s, true));
            }
        }
        let bits = match self.known_lanes.get(&a) {
            Some((Some(l), b)) if *l == first => Some(*b),
            _ => self.splat_const(a),
        };
        if let Some(b) = bits {
            self.known_lanes.insert(r, (None, b));
        }
        Ok(())
    }

    /// Loads a vector of shape `sh` from `addr + off` as registers; None for 3 lanes.
    pub fn simd_load(&mut self, sh: Simd, addr: Value, off: i32) -> Option<Vec<Value>> {
        let total = sh.n * sh.lane.bits() / 8;
        let flags = MemFlagsData::new();
        if total.is_multiple_of(16) {
            Some(
                (0..sh.regs())
                    .map(|r| self.b.ins().load(sh.vty, flags, addr, off + 16 * r as i32))
                    .collect(),
            )
        } else if matches!(total, 2 | 4 | 8) {
            let it = ir::Type::int((total * 8) as u16)?;
            let x = self.b.ins().load(it, flags, addr, off);
            let v = self.b.ins().scalar_to_vector(it.by(16 / total)?, x);
            Some(vec![self.b.ins().bitcast(sh.vty, vflags(), v)])
        } else {
            None
        }
    }

    /// Stores the `n` f32 components held in `regs` (`F32X4`, four components each) as halves
    /// rounded in `mode`, four conversions at a time (`half::to_half_in_mode`), the halves
    /// packed (`unarrow`: every lane is below 2^16) and stored together.
    pub fn store_f32_as_halves(&mut self, regs: &[Value], n: usize, mode: i32, addr: Value) {
        let flags = MemFlagsData::new();
        let halves: Vec<Value> = regs
            .iter()
            .map(|r| {
                let bits = self.b.ins().bitcast(types::I32X4, vflags(), *r);
                super::half::to_half_in_mode(&mut self.b, bits, mode)
            })
            .collect();
        for (j, pair) in halves.chunks(2).enumerate() {
            let hi = pair.get(1).copied().unwrap_or(pair[0]);
            let packed = self.b.ins().unarrow(pair[0], hi);
            let off = 16 * j as i32;
            match n {
                2 | 3 => {
                    let w = self.b.ins().bitcast(types::I32X4, vflags(), packed);
                    let x = self.b.ins().extractlane(w, 0);
                    self.b.ins().store(flags, x, addr, off);
                    if n == 3 {
                        let x = self.b.ins().extractlane(packed, 2);
                        self.b.ins().store(flags, x, addr, off + 4);
                    }
                }
                4 => {
                    let w = self.b.ins().bitcast(types::I64X2, vflags(), packed);
                    let x = self.b.ins().extractlane(w, 0);
                    self.b.ins().store(flags, x, addr, off);
                }
                _ => {
                    self.b.ins().store(flags, packed, addr, off);
                }
            }
        }
    }

    /// Stores registers of shape `sh` at `addr + off`; false for 3 lanes.
    pub fn simd_store(&mut self, sh: Simd, regs: &[Value], addr: Value, off: i32) -> bool {
        let total = sh.n * sh.lane.bits() / 8;
        let flags = MemFlagsData::new();
        if total.is_multiple_of(16) {
            for (r, v) in regs.iter().enumerate() {
                self.b.ins().store(flags, *v, addr, off + 16 * r as i32);
            }
            true
        } else if matches!(total, 2 | 4 | 8) {
            let Some(vt) = ir::Type::int((total * 8) as u16).and_then(|t| t.by(16 / total)) else {
                return false;
            };
            let v = self.b.ins().bitcast(vt, vflags(), regs[0]);
            let x = self.b.ins().extractlane(v, 0);
            self.b.ins().store(flags, x, addr, off);
            true
        } else {
            false
        }
    }

    /// The inline built-ins on vectors (called by `ext_inst` with the instruction's name
    /// without `native_`/`half_` and its operand ids).
    pub fn simd_builtin(&mut self, base: &str, r: Id, rty: Id, args: &[Id]) -> R<bool> {
        let Some(sh) = self.simd_shape(rty) else {
            return Ok(false);
        };
        let fl = sh.is_float();
        let known = if fl {
            matches!(
                base,
                "fabs"
                    | "fma"
                    | "mad"
                    | "sqrt"
                    | "rsqrt"
                    | "floor"
                    | "ceil"
                    | "trunc"
                    | "rint"
                    | "fmin"
                    | "fmax"
                    | "fmin_common"
                    | "fmax_common"
                    | "fclamp"
                    | "divide"
                    | "recip"
                    | "bitselect"
                    | "select"
            )
        } else {
            matches!(
                base,
                "s_max"
                    | "s_min"
                    | "u_max"
                    | "u_min"
                    | "s_clamp"
                    | "u_clamp"
                    | "s_abs"
                    | "u_abs"
                    | "bitselect"
                    | "select"
                    | "rotate"
            )
        };
        let known = known
            || (fl && super::mathfn::common::known(base))
            || (sh.lane == types::F32 && super::mathfn::known(base))
            || (sh.lane == types::F64 && super::mathfn::known_f64(base));
        if !known {
            return Ok(false);
        }
        // rotate by an amount the same in every lane: two shifts.
        if base == "rotate" {
            let (Some(x), Some(k)) = (self.vec_as(args[0], sh)?, args.get(1).copied()) else {
                return Ok(false);
            };
            let Some(k) = self.splat_const(k) else { return Ok(false) };
            let w = sh.lane.bits() as u64;
            let l = self.b.ins().iconst(types::I32, (k % w) as i64);
            let rr = self.b.ins().iconst(types::I32, ((w - k % w) % w) as i64);
            let out = x
                .iter()
                .map(|v| {
                    let hi = self.b.ins().ishl(*v, l);
                    let lo = self.b.ins().ushr(*v, rr);
                    self.b.ins().bor(hi, lo)
                })
                .collect();
            self.def_simd(r, rty, sh, out);
            return Ok(true);
        }
        // Operands: registers of the result's shape, or scalars broadcast; select's condition
        // may be an integer vector of the same lane width.
        let mut ops: Vec<Vec<Value>> = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            if base == "select" && k == 2 {
                match self.vec_of(*a)? {
                    Some((s, regs)) if s.lane.bits() == sh.lane.bits() && s.n == sh.n => {
                        ops.push(self.int_view(s, &regs));
                    }
                    _ => return Ok(false),
                }
                continue;
            }
            if let Some(regs) = self.vec_as(*a, sh)? {
                ops.push(regs);
                continue;
            }
            let v = self.val(*a)?;
            if v.len() != 1 || self.b.func.dfg.value_type(v[0]) != sh.lane {
                return Ok(false);
            }
            ops.push(self.splat_regs(sh, v[0]));
        }
        if ops.is_empty() {
            return Ok(false);
        }
        let plain: Vec<bool> = (0..3)
            .map(|k| fl && args.get(k).is_some_and(|a| self.plain_const(sh, *a)))
            .collect();
        let mut out = Vec::with_capacity(sh.regs());
        for i in 0..sh.regs() {
            let a = |k: usize| ops.get(k).map(|o| o[i]).unwrap_or(ops[0][i]);
            let x = a(0);
            let fconst = |t: &mut Self, v: f64| -> Value {
                let c = if sh.lane == types::F64 {
                    t.b.ins().f64const(v)
                } else {
                    t.b.ins().f32const(v as f32)
                };
                t.b.ins().splat(sh.vty, c)
            };
            if let Some(v) = self.math_inline(base, x)? {
                out.push(v);
                continue;
            }
            let operands: Vec<Value> = (0..args.len()).map(a).collect();
            if let Some(v) = super::mathfn::common::emit(&mut self.b, base, &operands) {
                out.push(v);
                continue;
            }
            let v = match base {
                "fabs" => self.b.ins().fabs(x),
                "fma" | "mad" => self.b.ins().fma(x, a(1), a(2)),
                "sqrt" => self.b.ins().sqrt(x),
                "rsqrt" => {
                    let root = self.b.ins().sqrt(x);
                    let o = fconst(self, 1.0);
                    self.b.ins().fdiv(o, root)
                }
                "floor" => self.b.ins().floor(x),
                "ceil" => self.b.ins().ceil(x),
                "trunc" => self.b.ins().trunc(x),
                "rint" => self.b.ins().nearest(x),
                "fmin" | "fmin_common" => self.vfminmax(sh, x, a(1), false, plain[1]),
                "fmax" | "fmax_common" => self.vfminmax(sh, x, a(1), true, plain[1]),
                "fclamp" => {
                    let m = self.vfminmax(sh, x, a(1), true, plain[1]);
                    self.vfminmax(sh, m, a(2), false, plain[2])
                }
                "divide" => self.b.ins().fdiv(x, a(1)),
                "recip" => {
                    let o = fconst(self, 1.0);
                    self.b.ins().fdiv(o, x)
                }
                "s_max" => self.b.ins().smax(x, a(1)),
                "s_min" => self.b.ins().smin(x, a(1)),
                "u_max" => self.b.ins().umax(x, a(1)),
                "u_min" => self.b.ins().umin(x, a(1)),
                "s_clamp" => {
                    let m = self.b.ins().smax(x, a(1));
                    self.b.ins().smin(m, a(2))
                }
                "u_clamp" => {
                    let m = self.b.ins().umax(x, a(1));
                    self.b.ins().umin(m, a(2))
                }
                "s_abs" => self.b.ins().iabs(x),
                "u_abs" => x,
                "bitselect" => {
                    // (a & ~c) | (b & c)
                    let xs = self.int_view(sh, &[x, a(1), a(2)]);
                    let o = self.b.ins().bitselect(xs[2], xs[1], xs[0]);
                    self.float_view(sh, &[o])[0]
                }
                _ => {
                    // select(a, b, c): MSB of c set -> b.
                    let c = a(2);
                    let m = self.b.ins().sshr_imm_s(c, (sh.lane.bits() - 1) as i64);
                    self.bitselect_regs(sh, &[m], &[a(1)], &[x])[0]
                }
            };
            out.push(v);
        }
        self.def_simd(r, rty, sh, out);
        Ok(true)
    }

    /// x86's `maxps x, y` / `minps x, y` (the pattern Cranelift lowers to one instruction):
    /// `y < x ? x : y` / `x < y ? x : y`, so `y` where either is NaN or both are equal.
    fn pminmax(&mut self, sh: Simd, x: Value, y: Value, max: bool) -> Value {
        let c = if max {
            self.b.ins().fcmp(FloatCC::LessThan, y, x)
        } else {
            self.b.ins().fcmp(FloatCC::LessThan, x, y)
        };
        self.bitselect_regs(sh, &[c], &[x], &[y])[0]
    }

    /// OpenCL fmin/fmax on registers, bit for bit the scalar path's (`fminmax`): when one
    /// operand is NaN the other is returned (`y` when both are), fmax(-0, +0) is +0 and
    /// fmin(-0, +0) is -0. `plain_y` says `y` is a constant that is neither NaN nor zero: then
    /// one `maxps`/`minps` is exact.
    pub(crate) fn vfminmax(&mut self, sh: Simd, x: Value, y: Value, max: bool, plain_y: bool) -> Value {
        let m1 = self.pminmax(sh, x, y, max);
        if plain_y {
            return m1;
        }
        // m1 is y where x is NaN, m2 is x where y is NaN; where both are numbers they agree
        // but for equal values of either sign, which the and (max) / or (min) settles.
        let m2 = self.pminmax(sh, y, x, max);
        let both = self.int_view(sh, &[m1, m2]);
        let z = if max {
            self.b.ins().band(both[0], both[1])
        } else {
            self.b.ins().bor(both[0], both[1])
        };
        let z = self.float_view(sh, &[z])[0];
        let xn = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let yn = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        let r = self.bitselect_regs(sh, &[yn], &[m2], &[z])[0];
        self.bitselect_regs(sh, &[xn], &[m1], &[r])[0]
    }

    /// Whether float operand `id` is a constant (every lane equal) that is neither NaN nor
    /// zero.
    fn plain_const(&self, sh: Simd, id: Id) -> bool {
        match self.splat_const(id) {
            Some(b) if sh.lane == types::F64 => {
                let v = f64::from_bits(b);
                !v.is_nan() && v != 0.0
            }
            Some(b) => {
                let v = f32::from_bits(b as u32);
                !v.is_nan() && v != 0.0
            }
            None => false,
        }
    }
}
