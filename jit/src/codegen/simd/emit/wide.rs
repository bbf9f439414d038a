//! Sixteen work-items per vector iteration for bodies that compute only with integers and
//! keep 8- or 16-bit ones in memory (`uchar` pixels, byte masks, `short` samples): each 8-bit
//! value is one `I8X16` (lane `l`: work-item `l`), each 16-bit value two `I16X8` (work-items
//! 0-7 and 8-15), each 32-bit value (what OpenCL C's integer promotions leave: `abs(x - y)`,
//! `x * m`) four `I32X4`, and a comparison's result a lane mask of its operands' width. The
//! four-lane loop holds 8- and 16-bit values in 32-bit lanes and spends about a dozen
//! instructions on four work-items of a byte copy (a 4-byte load, widening, packing, a 4-byte
//! store, the loop's own); here one 16-byte load and one store serve sixteen.
//!
//! Only straight-line bodies take it (no branches, loops, private variables or per-lane
//! code) with an 8- or 16-bit load or store, whose varying values are all 8-, 16- or 32-bit
//! integers or their comparisons' results, loaded and stored through pointers consecutive in
//! the work-items (`a[i]`), and whose operations have a lane form here that computes what the
//! scalar translation does: wrapping arithmetic (8-bit products through 16 bits), comparisons,
//! selects, shifts by a uniform amount, widening and truncating conversions, and the halving,
//! min/max, abs and clamp built-ins (the saturating ones of 8 and 16 bits: x86 has no 32-bit
//! saturating lanes). The rest of a row then runs four work-items at a time, then one.

use super::super::plan::{base_name, ext_name};
use super::super::{Class, Plan, Step};
use crate::codegen::arith::int_cc;
use crate::codegen::context::Ctx;
use crate::codegen::layout::{Id, Scalar, Ty};
use crate::codegen::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, MemFlagsData, Type, Value};
use rspirv::spirv::Op;
use std::collections::HashMap;

/// Work-items per wide iteration.
pub(crate) const WIDE: i64 = 16;

/// [`Plan::wide_refusal`]'s reason for a body without 8- or 16-bit loads and stores.
pub(crate) const NO_NARROW_MEMORY: &str = "no 8- or 16-bit loads or stores";

/// The lane width (8, 16 or 32) of a value of SPIR-V type `ty`: 8-, 16- and 32-bit integers;
/// `Some(0)` for a boolean (its width is its comparison's); `None` for anything else.
fn width(cx: &Ctx, ty: Id) -> Option<u32> {
    match cx.layout.get(ty).ok()?.ty {
        Ty::Scalar(Scalar::Int(b @ (8 | 16 | 32))) => Some(b),
        Ty::Scalar(Scalar::Bool) => Some(0),
        _ => None,
    }
}

/// The vector type of sixteen lanes of `bits` (8, 16, 32), one register of them.
fn vtype(bits: u32) -> Type {
    match bits {
        8 => types::I8X16,
        16 => types::I16X8,
        _ => types::I32X4,
    }
}

/// The built-ins (OpenCL.std, `s_`/`u_` forms) with a wide lane form (`add_sat` and `sub_sat`
/// of 8- and 16-bit integers only).
const WIDE_EXT: [&str; 9] = [
    "add_sat", "sub_sat", "abs", "abs_diff", "hadd", "rhadd", "max", "min", "clamp",
];

impl Plan {
    /// Why the body cannot run sixteen work-items at a time ([`FnTx::simd_body16`]); `None`:
    /// it can (see the module docs).
    pub(crate) fn wide_refusal(&self, cx: &Ctx) -> Option<String> {
        self.wide_check(cx).err()
    }

    /// [`Self::wide_refusal`] as a result (a missing operand is a refusal too).
    fn wide_check(&self, cx: &Ctx) -> Result<(), String> {
        let malformed = || "a malformed instruction".to_string();
        let class = |id: Id| self.class.get(&id).copied().unwrap_or(Class::Uniform);
        let ty_of = |id: Id| self.tys.get(&id).copied().or_else(|| cx.m.constant(id).map(|c| c.ty));
        let w_of = |id: Id| ty_of(id).and_then(|t| width(cx, t));
        let narrow_memory = self.steps.iter().any(|(inst, step)| {
            *step == Step::Vector
                && match inst.opcode {
                    Op::Load => inst.result_id.and_then(w_of).is_some_and(|w| w == 8 || w == 16),
                    Op::Store => op_id(inst, 1).ok().and_then(w_of).is_some_and(|w| w == 8 || w == 16),
                    _ => false,
                }
        });
        if !narrow_memory {
            return Err(NO_NARROW_MEMORY.into());
        }
        for (inst, step) in &self.steps {
            match step {
                Step::Scalar | Step::Builtin | Step::ScalarGuarded(_) => continue,
                Step::Vector => {}
                _ => return Err("control flow, private variables or per-lane code".into()),
            }
            let ids: Vec<Id> = inst.operands.iter().filter_map(|o| o.id_ref_any()).collect();
            match inst.opcode {
                Op::Load | Op::Store => {
                    let (p, v) = match inst.opcode {
                        Op::Load => (
                            op_id(inst, 0).map_err(|_| malformed())?,
                            inst.result_id.ok_or_else(malformed)?,
                        ),
                        _ => (
                            op_id(inst, 0).map_err(|_| malformed())?,
                            op_id(inst, 1).map_err(|_| malformed())?,
                        ),
                    };
                    let w = w_of(v).filter(|w| *w > 0);
                    if w.is_none_or(|w| class(p) != Class::Affine(i64::from(w / 8))) {
                        return Err("a load or store not of consecutive integers".into());
                    }
                    if inst.opcode == Op::Store && !matches!(class(v), Class::Uniform | Class::Varying) {
                        return Err("an affine value stored".into());
                    }
                    continue;
                }
                Op::ExtInst => {
                    let name = ext_name(cx, inst).ok_or_else(malformed)?;
                    let base = base_name(&name);
                    let known = (base.starts_with("u_") || base.starts_with("s_"))
                        && WIDE_EXT.contains(&base.get(2..).unwrap_or(""));
                    let sat = base.ends_with("_sat") && w_of(inst.result_id.ok_or_else(malformed)?) == Some(32);
                    if !known || sat {
                        return Err("a built-in without a wide form".into());
                    }
                }
                Op::UConvert | Op::SConvert => {
                    let r = inst.result_id.ok_or_else(malformed)?;
                    if cx.rounding.contains_key(&r) || cx.saturated.contains(&r) {
                        return Err("a saturating conversion".into());
                    }
                }
                Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                    if class(op_id(inst, 1).map_err(|_| malformed())?) != Class::Uniform {
                        return Err("a shift by a varying amount".into());
                    }
                }
                Op::IAdd
                | Op::ISub
                | Op::IMul
                | Op::BitwiseAnd
                | Op::BitwiseOr
                | Op::BitwiseXor
                | Op::Not
                | Op::SNegate
                | Op::LogicalAnd
                | Op::LogicalOr
                | Op::LogicalNot
                | Op::LogicalEqual
                | Op::LogicalNotEqual => {}
                Op::Select => {}
                Op::CopyObject if w_of(inst.result_id.ok_or_else(malformed)?).is_some_and(|w| w > 0) => {}
                Op::Bitcast
                    if w_of(inst.result_id.ok_or_else(malformed)?).is_some_and(|w| w > 0)
                        && w_of(ids[0]) == w_of(inst.result_id.ok_or_else(malformed)?) => {}
                op if int_cc(op).is_some() => {}
                op => return Err(format!("Op{op:?} without a wide form")),
            }
            if w_of(inst.result_id.ok_or_else(malformed)?).is_none() {
                return Err("a value not of 8-, 16- or 32-bit integers".into());
            }
            for id in ids.iter().skip(usize::from(inst.opcode == Op::ExtInst)) {
                if !matches!(class(*id), Class::Uniform | Class::Varying) || w_of(*id).is_none() {
                    return Err("an operand not of 8-, 16- or 32-bit integers".into());
                }
            }
        }
        Ok(())
    }
}

impl FnTx<'_, '_, '_> {
    /// Translates the vector body of `plan` for sixteen work-items at once (the plan's
    /// [`Plan::wide_refusal`] is `None`). A failed guard jumps to `bail` with `bail_args`
    /// (before any store).
    pub(crate) fn simd_body16(&mut self, plan: &Plan, bail: Block, bail_args: &[BlockArg]) -> R {
        let mut w: HashMap<Id, Vec<Value>> = HashMap::new();
        let mut none = super::Vecs::default();
        for (k, (inst, step)) in plan.steps.iter().enumerate() {
            match *step {
                Step::Scalar | Step::Builtin => self.simd_step(
                    k,
                    inst,
                    *step,
                    plan,
                    &mut none,
                    &mut Vec::new(),
                    &mut None,
                    bail,
                    bail_args,
                    None,
                )?,
                Step::ScalarGuarded(guard) => self.guarded_span(inst, plan, guard, bail, bail_args, WIDE)?,
                Step::Vector => self.wide_inst(inst, plan, &mut w)?,
                _ => return Err(self.err(inst, "vector plan: a step without a wide form")),
            }
        }
        Ok(())
    }

    /// The lane width of value `id` (8 or 16; 0 for a boolean).
    fn wide_width(&self, inst: &Instruction, id: Id, plan: &Plan) -> R<u32> {
        self.type_of(id, plan)
            .and_then(|t| width(self.cx, t))
            .ok_or_else(|| self.err(inst, "vector plan: a value without a wide form"))
    }

    /// The sixteen lanes of `id` at lane width `bits` (an integer's own width; a boolean's
    /// mask at the width asked for): one `I8X16` or two `I16X8`.
    fn wide(&mut self, id: Id, bits: u32, plan: &Plan, w: &HashMap<Id, Vec<Value>>) -> R<Vec<Value>> {
        if let Some(v) = w.get(&id) {
            return Ok(self.mask_width(v.clone(), bits));
        }
        // A uniform value: the same in every lane (a boolean as a mask: 0 or all ones).
        let x = self.val1(id)?;
        let vt = vtype(bits);
        let st = vt.lane_type();
        let is_bool = self.type_of(id, plan).and_then(|t| width(self.cx, t)) == Some(0);
        let x = if is_bool { self.b.ins().ineg(x) } else { x };
        let xt = self.b.func.dfg.value_type(x);
        let x = if xt.bits() < st.bits() {
            self.b.ins().sextend(st, x)
        } else if xt.bits() > st.bits() {
            self.b.ins().ireduce(st, x)
        } else {
            x
        };
        let s = self.b.ins().splat(vt, x);
        Ok(vec![s; bits as usize / 8])
    }

    /// Lane masks `v` (one `I8X16`, two `I16X8` or four `I32X4`) at lane width `bits`;
    /// integers of that width unchanged.
    fn mask_width(&mut self, mut v: Vec<Value>, bits: u32) -> Vec<Value> {
        let want = bits as usize / 8;
        while v.len() < want {
            v = v
                .iter()
                .flat_map(|x| [self.b.ins().swiden_low(*x), self.b.ins().swiden_high(*x)])
                .collect();
        }
        while v.len() > want && want > 0 {
            v = v.chunks(2).map(|p| self.b.ins().snarrow(p[0], p[1])).collect();
        }
        v
    }

    /// Integers `v` of `from` bits in sixteen lanes extended (zero or `signed`) or truncated
    /// to `to` bits.
    fn convert_wide(&mut self, mut v: Vec<Value>, from: u32, to: u32, signed: bool) -> Vec<Value> {
        let (mut bits, to) = (from, to);
        while bits < to {
            v = v
                .iter()
                .flat_map(|x| {
                    if signed {
                        [self.b.ins().swiden_low(*x), self.b.ins().swiden_high(*x)]
                    } else {
                        [self.b.ins().uwiden_low(*x), self.b.ins().uwiden_high(*x)]
                    }
                })
                .collect();
            bits *= 2;
        }
        while bits > to {
            // The low halves, packed: masked so that the unsigned saturating pack keeps them.
            let half = bits / 2;
            let m = self.b.ins().iconst(vtype(bits).lane_type(), (1i64 << half) - 1);
            let m = self.b.ins().splat(vtype(bits), m);
            v = v
                .chunks(2)
                .map(|p| {
                    let lo = self.b.ins().band(p[0], m);
                    let hi = self.b.ins().band(p[1], m);
                    self.b.ins().unarrow(lo, hi)
                })
                .collect();
            bits = half;
        }
        v
    }

    /// One instruction of the body on sixteen lanes.
    fn wide_inst(&mut self, inst: &Instruction, plan: &Plan, w: &mut HashMap<Id, Vec<Value>>) -> R {
        let flags = MemFlagsData::new();
        if inst.opcode == Op::Store {
            let (p, v) = (op_id(inst, 0)?, op_id(inst, 1)?);
            let bits = self.wide_width(inst, v, plan)?;
            let xs = self.wide(v, bits, plan, w)?;
            let base = self.val1(p)?;
            for (h, x) in xs.iter().enumerate() {
                self.b.ins().store(flags, *x, base, 16 * h as i32);
            }
            return Ok(());
        }
        let (r, _) = result(inst)?;
        let bits = self.wide_width(inst, r, plan)?;
        let ids: Vec<Id> = inst.operands.iter().filter_map(|o| o.id_ref_any()).collect();
        let int_args = |me: &mut Self, w: &HashMap<Id, Vec<Value>>, from: usize| -> R<Vec<Vec<Value>>> {
            ids[from..].iter().map(|id| me.wide(*id, bits, plan, w)).collect()
        };
        // Applies `f` to each register of the operands (one I8X16 or two I16X8).
        let each = |me: &mut Self, a: &[Vec<Value>], f: &dyn Fn(&mut Self, &[Value]) -> Value| -> Vec<Value> {
            (0..a[0].len())
                .map(|h| {
                    let xs: Vec<Value> = a.iter().map(|v| v[h]).collect();
                    f(me, &xs)
                })
                .collect()
        };
        let out = match inst.opcode {
            Op::Load => {
                let base = self.val1(op_id(inst, 0)?)?;
                let vt = vtype(bits);
                (0..(bits / 8) as i32)
                    .map(|h| self.b.ins().load(vt, flags, base, 16 * h))
                    .collect()
            }
            Op::CopyObject | Op::Bitcast => int_args(self, w, 0)?.remove(0),
            Op::IMul if bits == 8 => {
                // No 8-bit lane multiply on x86: the products of the halves widened to 16 bits,
                // their low bytes packed.
                let a = int_args(self, w, 0)?;
                let (x, y) = (a[0][0], a[1][0]);
                let (xl, xh) = (self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x));
                let (yl, yh) = (self.b.ins().uwiden_low(y), self.b.ins().uwiden_high(y));
                let (pl, ph) = (self.b.ins().imul(xl, yl), self.b.ins().imul(xh, yh));
                self.convert_wide(vec![pl, ph], 16, 8, false)
            }
            Op::IAdd | Op::ISub | Op::IMul | Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => {
                let a = int_args(self, w, 0)?;
                let op = inst.opcode;
                each(self, &a, &|me, x| match op {
                    Op::IAdd => me.b.ins().iadd(x[0], x[1]),
                    Op::ISub => me.b.ins().isub(x[0], x[1]),
                    Op::IMul => me.b.ins().imul(x[0], x[1]),
                    Op::BitwiseAnd => me.b.ins().band(x[0], x[1]),
                    Op::BitwiseOr => me.b.ins().bor(x[0], x[1]),
                    _ => me.b.ins().bxor(x[0], x[1]),
                })
            }
            Op::Not | Op::SNegate => {
                let a = int_args(self, w, 0)?;
                let neg = inst.opcode == Op::SNegate;
                each(self, &a, &|me, x| {
                    if neg {
                        me.b.ins().ineg(x[0])
                    } else {
                        me.b.ins().bnot(x[0])
                    }
                })
            }
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let a = int_args(self, w, 0)?.remove(0);
                // The amount, uniform, modulo the lane width as the scalar translation takes it.
                let n = self.val1(ids[1])?;
                let op = inst.opcode;
                each(self, &[a], &|me, x| match op {
                    Op::ShiftLeftLogical => me.b.ins().ishl(x[0], n),
                    Op::ShiftRightLogical => me.b.ins().ushr(x[0], n),
                    _ => me.b.ins().sshr(x[0], n),
                })
            }
            Op::UConvert | Op::SConvert => {
                let from = self.wide_width(inst, ids[0], plan)?;
                let a = self.wide(ids[0], from, plan, w)?;
                self.convert_wide(a, from, bits, inst.opcode == Op::SConvert)
            }
            Op::Select => {
                // Of integers at their width; of booleans at the first mask's.
                let bits = match (bits, w.get(&ids[1])) {
                    (0, Some(v)) => 8 * v.len() as u32,
                    (0, _) => 8,
                    (b, _) => b,
                };
                let c = self.wide(ids[0], bits, plan, w)?;
                let a = ids[1..]
                    .iter()
                    .map(|id| self.wide(*id, bits, plan, w))
                    .collect::<R<Vec<_>>>()?;
                let mut xs = vec![c];
                xs.extend(a);
                each(self, &xs, &|me, x| me.b.ins().bitselect(x[0], x[1], x[2]))
            }
            Op::LogicalAnd | Op::LogicalOr | Op::LogicalNot | Op::LogicalEqual | Op::LogicalNotEqual => {
                // Masks at the width of the first operand's comparison.
                let mw = w.get(&ids[0]).map_or(8, |v| 8 * v.len() as u32);
                let a: Vec<Vec<Value>> = ids.iter().map(|id| self.wide(*id, mw, plan, w)).collect::<R<_>>()?;
                let op = inst.opcode;
                each(self, &a, &|me, x| match op {
                    Op::LogicalAnd => me.b.ins().band(x[0], x[1]),
                    Op::LogicalOr => me.b.ins().bor(x[0], x[1]),
                    Op::LogicalNot => me.b.ins().bnot(x[0]),
                    Op::LogicalNotEqual => me.b.ins().bxor(x[0], x[1]),
                    _ => {
                        let d = me.b.ins().bxor(x[0], x[1]);
                        me.b.ins().bnot(d)
                    }
                })
            }
            Op::ExtInst => {
                let name = ext_name(self.cx, inst).ok_or_else(|| self.err(inst, "vector plan: unknown function"))?;
                let a = int_args(self, w, 1)?;
                let base = base_name(&name).to_string();
                let signed = base.starts_with("s_");
                let f = base.get(2..).unwrap_or("").to_string();
                let mut out = Vec::new();
                for h in 0..a[0].len() {
                    let xs: Vec<Value> = a.iter().map(|v| v[h]).collect();
                    let y = self.wide_ext(&f, signed, bits, &xs);
                    out.push(y.ok_or_else(|| self.err(inst, "vector plan: a built-in without a wide form"))?);
                }
                out
            }
            op => {
                let cc = int_cc(op).ok_or_else(|| self.err(inst, "vector plan: an operation without a wide form"))?;
                let from = self.wide_width(inst, ids[0], plan)?;
                let a: Vec<Vec<Value>> = ids.iter().map(|id| self.wide(*id, from, plan, w)).collect::<R<_>>()?;
                each(self, &a, &|me, x| me.b.ins().icmp(cc, x[0], x[1]))
            }
        };
        w.insert(r, out);
        Ok(())
    }

    /// OpenCL.std's `s_`/`u_` function `f` on one register of lanes (`I8X16`, `I16X8`,
    /// `I32X4`: `bits`), as
    /// the scalar translation computes it (OpenCL C 6.15.3). `None`: not one of [`WIDE_EXT`]
    /// with its operand count.
    fn wide_ext(&mut self, f: &str, signed: bool, bits: u32, x: &[Value]) -> Option<Value> {
        let b = &mut self.b;
        // max (`hi`) or min, signed or not.
        let mm = |b: &mut cranelift_frontend::FunctionBuilder, p: Value, q: Value, hi: bool| match (signed, hi) {
            (true, true) => b.ins().smax(p, q),
            (true, false) => b.ins().smin(p, q),
            (false, true) => b.ins().umax(p, q),
            (false, false) => b.ins().umin(p, q),
        };
        Some(match (f, x) {
            ("add_sat" | "sub_sat", _) if bits == 32 => return None,
            ("add_sat", [p, q]) if signed => b.ins().sadd_sat(*p, *q),
            ("add_sat", [p, q]) => b.ins().uadd_sat(*p, *q),
            ("sub_sat", [p, q]) if signed => b.ins().ssub_sat(*p, *q),
            ("sub_sat", [p, q]) => b.ins().usub_sat(*p, *q),
            ("abs", [p]) if signed => b.ins().iabs(*p),
            ("abs", [p]) => *p,
            ("abs_diff", [p, q]) => {
                let m = mm(b, *p, *q, true);
                let n = mm(b, *p, *q, false);
                b.ins().isub(m, n)
            }
            // hadd: (p & q) + ((p ^ q) >> 1); rhadd: (p | q) - ((p ^ q) >> 1), both without
            // the sum's overflow (unsigned rhadd: the rounding average).
            ("rhadd", [p, q]) if !signed && bits < 32 => b.ins().avg_round(*p, *q),
            ("hadd" | "rhadd", [p, q]) => {
                let d = b.ins().bxor(*p, *q);
                let one = b.ins().iconst(types::I32, 1);
                let h = if signed {
                    b.ins().sshr(d, one)
                } else {
                    b.ins().ushr(d, one)
                };
                if f == "hadd" {
                    let a = b.ins().band(*p, *q);
                    b.ins().iadd(a, h)
                } else {
                    let o = b.ins().bor(*p, *q);
                    b.ins().isub(o, h)
                }
            }
            ("max", [p, q]) => mm(b, *p, *q, true),
            ("min", [p, q]) => mm(b, *p, *q, false),
            ("clamp", [v, l, h]) => {
                let m = mm(b, *v, *l, true);
                mm(b, m, *h, false)
            }
            _ => return None,
        })
    }
}
