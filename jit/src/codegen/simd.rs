//! SIMD across work-items: a kernel body that is straight-line code runs four consecutive
//! work-items of a row (x) at once, each 32-bit value a four-lane vector.
//!
//! Work-items of a group are unordered between barriers, and two work-items touching the same
//! memory without synchronization is a data race (undefined), so the four work-items' loads and
//! stores may be interleaved in any order as long as each work-item's own order is kept, which
//! straight-line vector code does. Atomics, barriers, calls and anything else with a
//! per-work-item effect keep the kernel on the scalar path.
//!
//! Each value of the body gets a class:
//! - uniform: the same in the four work-items (constants, arguments, the group's builtins and
//!   anything computed only from them); translated by the scalar translator, once per vector;
//! - affine: `base + stride * lane` with a constant stride (the x ids and integer or pointer
//!   arithmetic on them); the scalar translator computes the base (lane 0's value) and the
//!   stride is known here, so `a[i]` needs no vector of addresses;
//! - varying: a vector of four 32-bit lanes (`I32X4`, `F32X4`).
//!
//! A load or store through an affine pointer whose stride is the element size is one vector
//! access; other strides gather or scatter lane by lane. Extending a 32-bit affine value to 64
//! bits is only affine while no lane wraps around: a run-time guard, checked before the body's
//! first store, sends the four work-items to the scalar loop when one would.

use super::layout::{round_up, Id, Scalar, Ty};
use super::module::Ctx;
use super::translate::{op_id, result, FnTx, R};
use super::CompileError;
use crate::spirv::module::{ConstantValue, Function};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, BlockArg, ConstantData, InstBuilder, MemFlagsData, Type, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, StorageClass};
use std::collections::HashMap;

/// Work-items per vector.
pub(crate) const LANES: i64 = 4;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Class {
    Uniform,
    /// `base + stride * lane`; the base is the scalar translator's value.
    Affine(i64),
    Varying,
    /// A three-component id builtin whose x component is affine with stride 1.
    IdX3,
}

/// What to do with one instruction of the vector body.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Step {
    /// Translate with the scalar translator (uniform and affine results).
    Scalar,
    /// The scalar translation with a run-time check that the result is affine after all.
    ScalarGuarded(Guard),
    /// A load of the builtin: values of the vector's first work-item.
    Builtin,
    /// A four-lane operation.
    Vector,
}

/// A run-time condition for a value to be affine in the four lanes.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Guard {
    /// Operand `operand` (a 32-bit affine value) does not wrap around when extended to 64 bits
    /// (`signed`: sign extension).
    Extend { operand: usize, signed: bool },
    /// The (64-bit) result is `(x << shift) >> shift` (arithmetic if `signed`) of an affine x:
    /// no lane may wrap around in the low `64 - shift` bits.
    Wrap { shift: u32, signed: bool },
    /// Operand `operand` has its bits `mask` clear (so OR with a constant within `mask` adds
    /// it, in every lane: the stride is a multiple of `mask + 1`).
    LowZero { operand: usize, mask: i64 },
}

/// The vector plan of a kernel body.
pub(crate) struct Plan {
    steps: Vec<(Instruction, Step)>,
    class: HashMap<Id, Class>,
}

/// Whether vectorization is enabled (`CLIFT_SIMD=0` turns it off) and whether a failure to
/// vectorize a kernel is an error rather than a silent fallback (`CLIFT_SIMD=strict`, for tests).
pub(crate) fn mode() -> (bool, bool) {
    match std::env::var("CLIFT_SIMD").as_deref() {
        Ok("0") => (false, false),
        Ok("strict") => (true, true),
        _ => (true, false),
    }
}

/// The single 32-bit scalar leaf of `ty`, if that is what it is.
fn scalar32(cx: &Ctx, ty: Id) -> Option<Type> {
    match cx.layout.get(ty).ok()?.ty {
        Ty::Scalar(Scalar::Int(32)) => Some(types::I32),
        Ty::Scalar(Scalar::Float(32)) => Some(types::F32),
        _ => None,
    }
}

fn int_bits(cx: &Ctx, ty: Id) -> Option<u32> {
    match cx.layout.get(ty).ok()?.ty {
        Ty::Scalar(Scalar::Int(b)) => Some(b),
        _ => None,
    }
}

/// Value of a plain (not specialization) integer constant, sign-extended from its width.
fn const_int(cx: &Ctx, id: Id) -> Option<i64> {
    let c = cx.m.constant(id)?;
    if c.spec {
        return None;
    }
    let v = match c.value {
        ConstantValue::Scalar(v) => v,
        ConstantValue::Null => 0,
        _ => return None,
    };
    let w = int_bits(cx, c.ty)?;
    Some(if w >= 64 {
        v as i64
    } else {
        ((v << (64 - w)) as i64) >> (64 - w)
    })
}

/// The opcodes whose uniform instances the scalar translator may run once for four
/// work-items: pure computations (no memory writes, no per-work-item effects).
fn pure(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | ISub
            | IMul
            | UDiv
            | SDiv
            | UMod
            | SRem
            | SMod
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | SNegate
            | FNegate
            | Not
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | LogicalEqual
            | LogicalNotEqual
            | IEqual
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
            | FOrdNotEqual
            | FOrdLessThan
            | FOrdGreaterThan
            | FOrdLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordEqual
            | FUnordNotEqual
            | FUnordLessThan
            | FUnordGreaterThan
            | FUnordLessThanEqual
            | FUnordGreaterThanEqual
            | Select
            | UConvert
            | SConvert
            | FConvert
            | ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | Bitcast
            | CompositeExtract
            | CompositeInsert
            | CompositeConstruct
            | VectorShuffle
            | VectorExtractDynamic
            | VectorInsertDynamic
            | CopyObject
            | AccessChain
            | InBoundsAccessChain
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | Load
    )
}

/// The vector plan of kernel body `f` (blocks `order`), or `None` when it cannot run four
/// work-items at once: anything but a chain of blocks ending in OpReturn, or an instruction
/// outside what the classes above cover.
pub(crate) fn plan(cx: &Ctx, f: &Function, order: &[usize], params: &[(Id, Id)]) -> Option<Plan> {
    let mut tys: Types = params.iter().copied().collect();
    let mut defs: HashMap<Id, &Instruction> = HashMap::new();
    for blk in &f.blocks {
        for inst in &blk.instructions {
            if let (Some(r), Some(ty)) = (inst.result_id, inst.result_type) {
                tys.insert(r, ty);
                defs.insert(r, inst);
            }
        }
    }
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut class: HashMap<Id, Class> = HashMap::new();
    let mut steps = Vec::new();
    let mut stored = false;
    let mut any_vector = false;
    let mut cur = *order.first()?;
    let mut seen = vec![false; f.blocks.len()];
    loop {
        if std::mem::replace(seen.get_mut(cur)?, true) {
            return None;
        }
        let blk = &f.blocks[cur];
        let mut next = None;
        let mut ret = false;
        for inst in &blk.instructions {
            match inst.opcode {
                Op::Nop | Op::Line | Op::NoLine => continue,
                Op::Branch => {
                    next = Some(*index.get(&op_id(inst, 0).ok()?)?);
                    continue;
                }
                Op::Return => {
                    ret = true;
                    continue;
                }
                _ => {}
            }
            let cls = |id: &Id| class.get(id).copied().unwrap_or(Class::Uniform);
            let ids: Vec<Id> = inst
                .operands
                .iter()
                .filter_map(|o| match o {
                    Operand::IdRef(x) => Some(*x),
                    _ => None,
                })
                .collect();
            let all_uniform = ids.iter().all(|x| cls(x) == Class::Uniform);
            let (step, out) = classify(cx, &tys, &defs, inst, &ids, &cls, all_uniform)?;
            if matches!(step, Step::ScalarGuarded(_)) && stored {
                return None;
            }
            // Guards and lane-by-lane accesses compute `stride * 3` and 32-bit lane offsets.
            let small = |id: &Id| matches!(cls(id), Class::Affine(s) if s.abs() < 1 << 28);
            let checked = match (step, inst.opcode) {
                (Step::ScalarGuarded(_), _) => out.is_some_and(|c| matches!(c, Class::Affine(s) if s.abs() < 1 << 28)),
                (Step::Vector, Op::Load | Op::Store) => {
                    ids.first().is_some_and(|p| cls(p) == Class::Uniform || small(p))
                }
                _ => true,
            };
            if !checked {
                return None;
            }
            if inst.opcode == Op::Store {
                stored = true;
            }
            any_vector |= step == Step::Vector || out.is_some_and(|c| c != Class::Uniform);
            if let (Some(r), Some(c)) = (inst.result_id, out) {
                class.insert(r, c);
            }
            steps.push((inst.clone(), step));
        }
        match (next, ret) {
            (Some(n), false) => cur = n,
            (None, true) => break,
            _ => return None,
        }
    }
    // A body whose every value is uniform gains nothing.
    any_vector.then_some(Plan { steps, class })
}

/// The step and result class of one instruction (`None`: not vectorizable).
fn classify(
    cx: &Ctx,
    tys: &Types,
    defs: &HashMap<Id, &Instruction>,
    inst: &Instruction,
    ids: &[Id],
    cls: &dyn Fn(&Id) -> Class,
    all_uniform: bool,
) -> Option<(Step, Option<Class>)> {
    use Class::*;
    let rty = inst.result_type;
    let v32 = rty.and_then(|t| scalar32(cx, t)).is_some();
    let c = |i: usize| ids.get(i).map(cls);
    let op = inst.opcode;
    // Decorated conversions (rounding modes, saturation) stay scalar unless uniform.
    let decorated = inst
        .result_id
        .is_some_and(|r| cx.rounding.contains_key(&r) || cx.saturated.contains(&r));
    match op {
        Op::Load => {
            let p = *ids.first()?;
            if let Some(bi) = cx.builtins.get(&p) {
                if !super::group::direct_builtin(cx, p, rty?) {
                    return None;
                }
                let n = cx.layout.get(rty?).ok()?.leaves.len();
                let x = match bi {
                    BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId if n == 3 => IdX3,
                    BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId if n == 1 => Affine(1),
                    BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId => return None,
                    BuiltIn::GlobalLinearId | BuiltIn::LocalInvocationIndex => Affine(1),
                    _ => Uniform,
                };
                return Some((Step::Builtin, Some(x)));
            }
            if matches!(cx.globals.get(&p), Some((_, StorageClass::Input))) {
                return None;
            }
            match cls(&p) {
                Uniform => Some((Step::Scalar, Some(Uniform))),
                Affine(_) if v32 => Some((Step::Vector, Some(Varying))),
                _ => None,
            }
        }
        Op::Store => {
            let (p, v) = (*ids.first()?, *ids.get(1)?);
            let vty = value_type(cx, tys, v)?;
            match (cls(&p), cls(&v)) {
                (Uniform, Uniform) => Some((Step::Scalar, None)),
                (Uniform | Affine(_), _) if scalar32(cx, vty).is_some() => Some((Step::Vector, None)),
                _ => None,
            }
        }
        Op::ExtInst => {
            let name = ext_name(cx, inst)?;
            if all_uniform {
                // Everything but the instructions with effects (stores, printf).
                let effect = name.starts_with("vstore") || matches!(name.as_str(), "printf" | "prefetch");
                return (!effect && rty.is_some()).then_some((Step::Scalar, Some(Uniform)));
            }
            match name.as_str() {
                "fma" | "mad" if rty.and_then(|t| scalar32(cx, t)) == Some(types::F32) => {
                    vector_op(true, &[c(1)?, c(2)?, c(3)?], false)
                }
                _ => None,
            }
        }
        _ if all_uniform => {
            if !pure(op) || rty.is_none() {
                return None;
            }
            Some((Step::Scalar, Some(Uniform)))
        }
        Op::CompositeExtract => {
            let lit = match inst.operands.get(1..)? {
                [Operand::LiteralBit32(k)] => *k,
                _ => return None,
            };
            match c(0)? {
                IdX3 => Some((Step::Scalar, Some(if lit == 0 { Affine(1) } else { Uniform }))),
                _ => None,
            }
        }
        Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
            // Only the element index may vary, and only affinely.
            if c(0)? != Uniform || ids[2..].iter().any(|x| cls(x) != Uniform) {
                return None;
            }
            let Affine(s) = c(1)? else { return None };
            let bty = value_type(cx, tys, ids[0])?;
            let Ty::Pointer(_, pointee) = cx.layout.get(bty).ok()?.ty else {
                return None;
            };
            let info = cx.layout.get(pointee).ok()?;
            let elem = match info.ty {
                Ty::Array(..) => info.size,
                _ => round_up(info.size, info.align),
            };
            let stride = s.checked_mul(i64::try_from(elem).ok()?)?;
            let ibits = int_bits(cx, value_type(cx, tys, ids[1])?)?;
            let step = match ibits {
                64 => Step::Scalar,
                32 => Step::ScalarGuarded(Guard::Extend {
                    operand: 1,
                    signed: true,
                }),
                _ => return None,
            };
            Some((step, Some(Affine(stride))))
        }
        Op::IAdd | Op::ISub | Op::IMul | Op::ShiftLeftLogical => {
            let (a, b) = (c(0)?, c(1)?);
            let bits = int_bits(cx, rty?)?;
            let aff = match (op, a, b) {
                (Op::IAdd, Affine(x), Uniform) | (Op::IAdd, Uniform, Affine(x)) => Some(x),
                (Op::IAdd, Affine(x), Affine(y)) => x.checked_add(y),
                (Op::ISub, Affine(x), Uniform) => Some(x),
                (Op::ISub, Uniform, Affine(x)) => x.checked_neg(),
                (Op::ISub, Affine(x), Affine(y)) => x.checked_sub(y),
                (Op::IMul, Affine(x), Uniform) => const_int(cx, ids[1]).and_then(|k| x.checked_mul(k)),
                (Op::IMul, Uniform, Affine(x)) => const_int(cx, ids[0]).and_then(|k| x.checked_mul(k)),
                (Op::ShiftLeftLogical, Affine(x), Uniform) => const_int(cx, ids[1])
                    .filter(|k| (0..bits as i64).contains(k))
                    .and_then(|k| x.checked_mul(1 << k)),
                _ => None,
            };
            if let Some(s) = aff {
                return Some((Step::Scalar, Some(Affine(s))));
            }
            vector_op(v32, &[a, b], op == Op::ShiftLeftLogical)
        }
        Op::SNegate => match c(0)? {
            Affine(x) if x.abs() < 1 << 28 => Some((Step::Scalar, Some(Affine(-x)))),
            a => vector_op(v32, &[a], false),
        },
        Op::UConvert | Op::SConvert => {
            let Affine(s) = c(0)? else { return None };
            let from = int_bits(cx, value_type(cx, tys, ids[0])?)?;
            let to = int_bits(cx, rty?)?;
            match (from, to) {
                (64, 32) | (32, 32) | (64, 64) => Some((Step::Scalar, Some(Affine(s)))),
                (32, 64) => Some((
                    Step::ScalarGuarded(Guard::Extend {
                        operand: 0,
                        signed: op == Op::SConvert,
                    }),
                    Some(Affine(s)),
                )),
                _ => None,
            }
        }
        Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
            // (x << k) >> k on 64 bits, an extension from 64 - k bits (how compilers write
            // `(long)(int)x`): affine as long as no lane wraps.
            if let (Some(64), Some(k), Some(inner)) = (
                rty.and_then(|t| int_bits(cx, t)),
                const_int(cx, ids[1]),
                defs.get(&ids[0]),
            ) {
                if inner.opcode == Op::ShiftLeftLogical
                    && (1..64).contains(&k)
                    && inner.operands.get(1).and_then(|o| match o {
                        Operand::IdRef(x) => const_int(cx, *x),
                        _ => None,
                    }) == Some(k)
                {
                    if let Some(Affine(s)) = inner.operands.first().and_then(|o| match o {
                        Operand::IdRef(x) => Some(cls(x)),
                        _ => None,
                    }) {
                        let guard = Guard::Wrap {
                            shift: k as u32,
                            signed: op == Op::ShiftRightArithmetic,
                        };
                        return Some((Step::ScalarGuarded(guard), Some(Affine(s))));
                    }
                }
            }
            vector_op(v32, &[c(0)?, c(1)?], true)
        }
        Op::BitwiseOr => {
            // An affine value whose low bits are clear, or-ed with a constant that fits in
            // them: an addition.
            for (a, k) in [(0, 1), (1, 0)] {
                if let (Some(Affine(s)), Some(v)) = (c(a), const_int(cx, ids[k])) {
                    if v >= 0 {
                        let span = 1i64 << (64 - v.leading_zeros());
                        if s % span == 0 {
                            let guard = Guard::LowZero {
                                operand: a,
                                mask: span - 1,
                            };
                            return Some((Step::ScalarGuarded(guard), Some(Affine(s))));
                        }
                    }
                }
            }
            vector_op(v32, &[c(0)?, c(1)?], false)
        }
        Op::Bitcast | Op::PtrCastToGeneric | Op::GenericCastToPtr
            if matches!(c(0)?, Affine(_))
                && matches!(
                    rty.and_then(|t| cx.layout.get(t).ok()).map(|i| &i.ty),
                    Some(Ty::Pointer(..))
                ) =>
        {
            // A pointer cast keeps the address.
            Some((Step::Scalar, c(0)))
        }
        Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::BitwiseAnd | Op::BitwiseXor => {
            vector_op(v32, &[c(0)?, c(1)?], false)
        }
        Op::FNegate | Op::Not => vector_op(v32, &[c(0)?], false),
        Op::Bitcast => {
            scalar32(cx, value_type(cx, tys, ids[0])?)?;
            vector_op(v32, &[c(0)?], false)
        }
        Op::ConvertSToF if !decorated => {
            // i32 -> f32 only (rounding to nearest, as the scalar translation does).
            let from = int_bits(cx, value_type(cx, tys, ids[0])?)?;
            let to = scalar32(cx, rty?)?;
            (from == 32 && to == types::F32)
                .then_some(())
                .and_then(|_| vector_op(true, &[c(0)?], false))
        }
        _ => None,
    }
}

/// The name of an OpenCL.std extended instruction.
fn ext_name(cx: &Ctx, inst: &Instruction) -> Option<String> {
    let set = op_id(inst, 0).ok()?;
    if cx.ext_sets.get(&set)? != "OpenCL.std" {
        return None;
    }
    let num = match inst.operands.get(1)? {
        Operand::LiteralExtInstInteger(n) => *n,
        _ => return None,
    };
    Some(
        crate::spirv::grammar::ext_inst_by_number("OpenCL.std", num)?
            .opname
            .to_string(),
    )
}

/// A four-lane operation on 32-bit values: every operand uniform, 32-bit affine or varying
/// (`shift`: the second operand is a shift amount and must be uniform).
fn vector_op(v32: bool, ops: &[Class], shift: bool) -> Option<(Step, Option<Class>)> {
    if !v32 || ops.contains(&Class::IdX3) {
        return None;
    }
    if shift && ops.get(1) != Some(&Class::Uniform) {
        return None;
    }
    Some((Step::Vector, Some(Class::Varying)))
}

/// Result and parameter types of the body being planned.
type Types = HashMap<Id, Id>;

/// The type of a value id: instruction result, parameter, constant or global.
fn value_type(cx: &Ctx, tys: &Types, id: Id) -> Option<Id> {
    if let Some(t) = tys.get(&id) {
        return Some(*t);
    }
    if let Some(c) = cx.m.constant(id) {
        return Some(c.ty);
    }
    cx.globals.get(&id).map(|(ty, _)| *ty)
}

fn vec_type(t: Type) -> Option<Type> {
    match t {
        types::I32 => Some(types::I32X4),
        types::F32 => Some(types::F32X4),
        _ => None,
    }
}

impl FnTx<'_, '_, '_> {
    /// Translates the vector body of `plan` into the current block: four work-items whose
    /// first one's builtins are the group's builtin values. A failed guard jumps to `bail`
    /// with `bail_args` (before any store). Ends in the block where the body ends.
    pub(crate) fn simd_body(&mut self, plan: &Plan, bail: Block, bail_args: &[BlockArg]) -> R {
        let mut vecs: HashMap<Id, Value> = HashMap::new();
        for (inst, step) in &plan.steps {
            match *step {
                Step::Scalar => self.inst(inst)?,
                Step::ScalarGuarded(guard) => self.guarded(inst, plan, guard, bail, bail_args)?,
                Step::Builtin => {
                    let (r, ty) = result(inst)?;
                    let p = op_id(inst, 0)?;
                    let v = self
                        .builtin_load(p, ty)?
                        .ok_or_else(|| self.err(inst, "vector plan: builtin not available"))?;
                    self.def(r, ty, v);
                }
                Step::Vector => self.simd_inst(inst, plan, &mut vecs)?,
            }
        }
        Ok(())
    }

    /// The scalar translation of `inst` under `guard`: when the guard fails, the four
    /// work-items go to `bail` (the scalar loop) instead.
    fn guarded(&mut self, inst: &Instruction, plan: &Plan, guard: Guard, bail: Block, bail_args: &[BlockArg]) -> R {
        let affine = |id: Id| match plan.class.get(&id).copied() {
            Some(Class::Affine(s)) => Ok(s),
            _ => Err(CompileError::new(format!("vector plan: %{id} is not affine"))),
        };
        let last_of = |s: i64| s * (LANES - 1);
        let ok = match guard {
            Guard::Extend { operand, signed } => {
                let id = op_id(inst, operand)?;
                let last = last_of(affine(id)?);
                let base = self.val1(id)?;
                // Lane 3 in 32-bit arithmetic, extended, against the exact sum: equal when no
                // lane wraps (the lanes lie between lane 0 and lane 3).
                let l32 = self.b.ins().iadd_imm_s(base, last);
                let (e32, e0) = if signed {
                    (
                        self.b.ins().sextend(types::I64, l32),
                        self.b.ins().sextend(types::I64, base),
                    )
                } else {
                    (
                        self.b.ins().uextend(types::I64, l32),
                        self.b.ins().uextend(types::I64, base),
                    )
                };
                let exact = self.b.ins().iadd_imm_s(e0, last);
                self.inst(inst)?;
                self.b.ins().icmp(IntCC::Equal, e32, exact)
            }
            Guard::Wrap { shift, signed } => {
                self.inst(inst)?;
                let (r, _) = result(inst)?;
                let last = last_of(affine(r)?);
                let base = self.val1(r)?;
                let exact = self.b.ins().iadd_imm_s(base, last);
                let up = self.b.ins().ishl_imm_s(exact, shift as i64);
                let back = if signed {
                    self.b.ins().sshr_imm_s(up, shift as i64)
                } else {
                    self.b.ins().ushr_imm_s(up, shift as i64)
                };
                self.b.ins().icmp(IntCC::Equal, back, exact)
            }
            Guard::LowZero { operand, mask } => {
                let base = self.val1(op_id(inst, operand)?)?;
                let low = self.b.ins().band_imm_s(base, mask);
                self.inst(inst)?;
                self.b.ins().icmp_imm_s(IntCC::Equal, low, 0)
            }
        };
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], bail, bail_args);
        self.b.seal_block(cont);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// Four lanes of operand `id` as a vector of `lane` elements.
    fn lanes(&mut self, id: Id, plan: &Plan, vecs: &HashMap<Id, Value>) -> R<Value> {
        if let Some(v) = vecs.get(&id) {
            return Ok(*v);
        }
        let x = self.val1(id)?;
        let t = self.b.func.dfg.value_type(x);
        let vt = vec_type(t).ok_or_else(|| CompileError::new(format!("vector plan: %{id} is not 32-bit")))?;
        let splat = self.b.ins().splat(vt, x);
        match plan.class.get(&id).copied().unwrap_or(Class::Uniform) {
            Class::Uniform => Ok(splat),
            Class::Affine(s) => {
                let mut bytes = Vec::with_capacity(16);
                for l in 0..LANES {
                    bytes.extend_from_slice(&(s.wrapping_mul(l) as i32).to_le_bytes());
                }
                let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
                let steps = self.b.ins().vconst(types::I32X4, c);
                Ok(self.b.ins().iadd(splat, steps))
            }
            c => Err(CompileError::new(format!("vector plan: %{id} has class {c:?}"))),
        }
    }

    fn simd_inst(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut HashMap<Id, Value>) -> R {
        let flags = MemFlagsData::new();
        let op = inst.opcode;
        match op {
            Op::Load => {
                let (r, ty) = result(inst)?;
                let p = op_id(inst, 0)?;
                let t = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
                let vt = vec_type(t).ok_or_else(|| self.err(inst, "vector plan: not a 32-bit load"))?;
                let Some(Class::Affine(s)) = plan.class.get(&p).copied() else {
                    return Err(self.err(inst, "vector plan: load through a non-affine pointer"));
                };
                let base = self.val1(p)?;
                let v = if s == 4 {
                    self.b.ins().load(vt, flags, base, 0)
                } else {
                    let mut v = None;
                    for l in 0..LANES {
                        let x = self.b.ins().load(t, flags, base, (s * l) as i32);
                        v = Some(match v {
                            None => self.b.ins().splat(vt, x),
                            Some(acc) => self.b.ins().insertlane(acc, x, l as u8),
                        });
                    }
                    v.unwrap_or(base)
                };
                vecs.insert(r, v);
            }
            Op::Store => {
                let p = op_id(inst, 0)?;
                let vid = op_id(inst, 1)?;
                let v = self.lanes(vid, plan, vecs)?;
                let base = self.val1(p)?;
                match plan.class.get(&p).copied().unwrap_or(Class::Uniform) {
                    Class::Affine(4) => {
                        self.b.ins().store(flags, v, base, 0);
                    }
                    Class::Affine(s) => {
                        for l in 0..LANES {
                            let x = self.b.ins().extractlane(v, l as u8);
                            self.b.ins().store(flags, x, base, (s * l) as i32);
                        }
                    }
                    // One location: the last work-item's store is the one that stays.
                    _ => {
                        let x = self.b.ins().extractlane(v, (LANES - 1) as u8);
                        self.b.ins().store(flags, x, base, 0);
                    }
                }
            }
            _ => {
                let (r, ty) = result(inst)?;
                let t = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
                let vt = vec_type(t).ok_or_else(|| self.err(inst, "vector plan: not a 32-bit result"))?;
                if op == Op::ExtInst {
                    // fma and mad (fused, as the scalar translation).
                    let x = self.lanes(op_id(inst, 2)?, plan, vecs)?;
                    let y = self.lanes(op_id(inst, 3)?, plan, vecs)?;
                    let z = self.lanes(op_id(inst, 4)?, plan, vecs)?;
                    let v = self.b.ins().fma(x, y, z);
                    vecs.insert(r, v);
                    return Ok(());
                }
                let a = self.lanes(op_id(inst, 0)?, plan, vecs)?;
                let v = match op {
                    Op::FNegate => self.b.ins().fneg(a),
                    Op::SNegate => self.b.ins().ineg(a),
                    Op::Not => self.b.ins().bnot(a),
                    Op::Bitcast => {
                        if self.b.func.dfg.value_type(a) == vt {
                            a
                        } else {
                            self.b.ins().bitcast(vt, MemFlagsData::new(), a)
                        }
                    }
                    Op::ConvertSToF => self.b.ins().fcvt_from_sint(vt, a),
                    Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                        let n = self.val1(op_id(inst, 1)?)?;
                        match op {
                            Op::ShiftLeftLogical => self.b.ins().ishl(a, n),
                            Op::ShiftRightLogical => self.b.ins().ushr(a, n),
                            _ => self.b.ins().sshr(a, n),
                        }
                    }
                    _ => {
                        let b = self.lanes(op_id(inst, 1)?, plan, vecs)?;
                        match op {
                            Op::IAdd => self.b.ins().iadd(a, b),
                            Op::ISub => self.b.ins().isub(a, b),
                            Op::IMul => self.b.ins().imul(a, b),
                            Op::FAdd => self.b.ins().fadd(a, b),
                            Op::FSub => self.b.ins().fsub(a, b),
                            Op::FMul => self.b.ins().fmul(a, b),
                            Op::FDiv => self.b.ins().fdiv(a, b),
                            Op::BitwiseAnd => self.b.ins().band(a, b),
                            Op::BitwiseOr => self.b.ins().bor(a, b),
                            Op::BitwiseXor => self.b.ins().bxor(a, b),
                            _ => return Err(self.err(inst, "vector plan: unexpected instruction")),
                        }
                    }
                };
                vecs.insert(r, v);
            }
        }
        Ok(())
    }
}
