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
//! - varying: a vector of four 32-bit lanes (`I32X4`, `F32X4`); booleans are lane masks
//!   (all ones where true), so comparisons feed selects directly.
//!
//! "Straight-line" includes if-then(-else) whose arms only compute: both arms run for all four
//! work-items and each OpPhi of the merge becomes a select on the condition (if-conversion).
//! Arms with loads, stores or anything with an effect keep the kernel scalar.
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
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
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
    /// An ordered integer comparison of an affine and a uniform value: across the four lanes
    /// it changes at most once, so lanes 0 and 3 decide whether all or none hold. Only a
    /// branch condition (Step::If) may use it.
    Monotone,
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
    /// Nothing yet: a Monotone comparison, evaluated by the Step::If that uses it.
    Deferred,
    /// The start of an arm taken by all four work-items or by none (`negate`: when the
    /// condition is false); four work-items that disagree go to the scalar loop.
    If { negate: bool },
    /// The end of that arm.
    EndIf,
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
    /// The comparisons of Monotone values.
    monotone: HashMap<Id, Instruction>,
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

/// Comparisons: a four-lane mask from two 32-bit operands.
fn is_compare(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
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
    )
}

/// The OpenCL.std functions the vector loop computes four lanes at a time, exactly as the
/// scalar translation does (its inline forms).
const VECTOR_EXT_F32: [&str; 12] = [
    "fma",
    "mad",
    "fabs",
    "sqrt",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "fmin",
    "fmax",
    "copysign",
    "fmin_common",
];
const VECTOR_EXT_I32: [&str; 4] = ["s_max", "u_max", "s_min", "u_min"];

/// The name the scalar translation dispatches on (native_ and half_ forms share it).
fn base_name(name: &str) -> &str {
    name.strip_prefix("native_")
        .or_else(|| name.strip_prefix("half_"))
        .unwrap_or(name)
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
            | IsNan
            | IsInf
            | IsFinite
            | IsNormal
            | SignBitSet
            | Ordered
            | Unordered
            | LessOrGreater
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
pub(crate) fn plan(cx: &Ctx, f: &Function, order: &[usize], params: &[(Id, Id)]) -> Result<Plan, String> {
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
    let body = flatten(cx, f, order).ok_or("control flow other than if-then-else with computing arms")?;
    let mut class: HashMap<Id, Class> = HashMap::new();
    let mut steps = Vec::new();
    let mut stored = false;
    let mut any_vector = false;
    let mut monotone = HashMap::new();
    for inst in &body {
        let cls = |id: &Id| class.get(id).copied().unwrap_or(Class::Uniform);
        // The markers flatten() leaves for an arm taken by all or none.
        if inst.result_id.is_none() && matches!(inst.opcode, Op::BranchConditional | Op::Branch) {
            if inst.opcode == Op::Branch {
                steps.push((inst.clone(), Step::EndIf));
                continue;
            }
            let c = op_id(inst, 0).map_err(|e| e.message)?;
            let negate = matches!(inst.operands.get(1), Some(Operand::LiteralBit32(1)));
            match cls(&c) {
                Class::Uniform => {}
                // May send the four work-items to the scalar loop: nothing stored yet.
                Class::Varying | Class::Monotone if !stored => {}
                _ => {
                    return Err(format!(
                        "branch on %{c}: condition differs between work-items after a store"
                    ))
                }
            }
            steps.push((inst.clone(), Step::If { negate }));
            continue;
        }
        let ids: Vec<Id> = inst
            .operands
            .iter()
            .filter_map(|o| match o {
                Operand::IdRef(x) => Some(*x),
                _ => None,
            })
            .collect();
        let all_uniform = ids.iter().all(|x| cls(x) == Class::Uniform);
        let (step, out) = classify(cx, &tys, &defs, inst, &ids, &cls, all_uniform).ok_or_else(|| inst.describe())?;
        if matches!(step, Step::ScalarGuarded(_)) && stored {
            return Err(format!("{}: needs a run-time check after a store", inst.describe()));
        }
        // Guards and lane-by-lane accesses compute `stride * 3` and 32-bit lane offsets.
        let small = |id: &Id| matches!(cls(id), Class::Affine(s) if s.abs() < 1 << 28);
        let checked = match (step, inst.opcode) {
            (Step::ScalarGuarded(_), _) => out.is_some_and(|c| matches!(c, Class::Affine(s) if s.abs() < 1 << 28)),
            (Step::Vector, Op::Load | Op::Store) => ids.first().is_some_and(|p| cls(p) == Class::Uniform || small(p)),
            _ => true,
        };
        if !checked {
            return Err(format!("{}: stride too large", inst.describe()));
        }
        if inst.opcode == Op::Store {
            stored = true;
        }
        any_vector |= step == Step::Vector || out.is_some_and(|c| c != Class::Uniform);
        if let (Some(r), Some(c)) = (inst.result_id, out) {
            class.insert(r, c);
            if c == Class::Monotone {
                monotone.insert(r, inst.clone());
            }
        }
        steps.push((inst.clone(), step));
    }
    // A body whose every value is uniform gains nothing.
    if !any_vector {
        return Err("nothing differs between work-items".into());
    }
    Ok(Plan { steps, class, monotone })
}

/// The body as one sequence of instructions: a chain of blocks ending in OpReturn, where an
/// if-then(-else) whose arms only compute (no memory access, nothing with an effect) has both
/// arms computed and each OpPhi of its merge block turned into an OpSelect on the condition
/// (if-conversion). `None` for any other shape.
fn flatten(cx: &Ctx, f: &Function, order: &[usize]) -> Option<Vec<Instruction>> {
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut out = Vec::new();
    let mut seen = vec![false; f.blocks.len()];
    let mut cur = *order.first()?;
    // Phis of the current block are allowed only right after an if-conversion.
    let mut selects: Option<(Id, Id, Id)> = None;
    loop {
        if std::mem::replace(seen.get_mut(cur)?, true) {
            return None;
        }
        let blk = &f.blocks[cur];
        let mut merge = None;
        for inst in &blk.instructions {
            match inst.opcode {
                Op::Nop | Op::Line | Op::NoLine => {}
                Op::Phi => {
                    // (condition, predecessor on the true path, on the false path)
                    let (c, tp, fp) = selects?;
                    let pick = |pred: Id| {
                        inst.operands.chunks(2).find_map(|pair| match pair {
                            [Operand::IdRef(v), Operand::IdRef(p)] if *p == pred => Some(*v),
                            _ => None,
                        })
                    };
                    if inst.operands.len() != 4 {
                        return None;
                    }
                    out.push(Instruction {
                        opcode: Op::Select,
                        result_type: inst.result_type,
                        result_id: inst.result_id,
                        operands: vec![Operand::IdRef(c), Operand::IdRef(pick(tp)?), Operand::IdRef(pick(fp)?)],
                        offset: inst.offset,
                    });
                }
                Op::SelectionMerge => merge = Some(op_id(inst, 0).ok()?),
                Op::Return => return Some(out),
                Op::Branch => {
                    cur = *index.get(&op_id(inst, 0).ok()?)?;
                    selects = None;
                }
                Op::BranchConditional => {
                    let c = op_id(inst, 0).ok()?;
                    let (t, e) = (op_id(inst, 1).ok()?, op_id(inst, 2).ok()?);
                    // The merge block: OpSelectionMerge's, else where both arms meet (compilers
                    // for OpenCL need not emit merge instructions).
                    let jump_of = |l: Id| {
                        let b = &f.blocks[*index.get(&l)?];
                        let last = b.instructions.last()?;
                        (last.opcode == Op::Branch).then(|| op_id(last, 0).ok()).flatten()
                    };
                    let m = match merge {
                        Some(m) => m,
                        None => match (jump_of(t), jump_of(e)) {
                            (Some(a), Some(b)) if a == b && t != e => a,
                            (Some(a), _) if a == e => e,
                            (_, Some(b)) if b == t => t,
                            _ => return None,
                        },
                    };
                    // An if without else whose arm touches memory (if (i < n) c[i] = ...): kept
                    // as a branch that all four work-items take or none does (Step::If).
                    let arm = match (t == m, e == m) {
                        (false, true) => Some((t, false)),
                        (true, false) => Some((e, true)),
                        _ => None,
                    };
                    if let Some((a, negate)) = arm {
                        let ai = *index.get(&a)?;
                        let (last, rest) = f.blocks[ai].instructions.split_last()?;
                        let mi = *index.get(&m)?;
                        let merge_phis = f.blocks[mi].instructions.iter().any(|i| i.opcode == Op::Phi);
                        let jumps_to_merge = last.opcode == Op::Branch && op_id(last, 0).ok()? == m;
                        if jumps_to_merge && !merge_phis && !rest.iter().all(|i| speculatable(cx, i)) {
                            if std::mem::replace(seen.get_mut(ai)?, true) {
                                return None;
                            }
                            out.push(Instruction {
                                opcode: Op::BranchConditional,
                                result_type: None,
                                result_id: None,
                                operands: vec![Operand::IdRef(c), Operand::LiteralBit32(negate as u32)],
                                offset: inst.offset,
                            });
                            for i in rest {
                                match i.opcode {
                                    Op::Nop | Op::Line | Op::NoLine => {}
                                    Op::Phi | Op::SelectionMerge | Op::LoopMerge => return None,
                                    _ => out.push(i.clone()),
                                }
                            }
                            out.push(Instruction {
                                opcode: Op::Branch,
                                result_type: None,
                                result_id: None,
                                operands: vec![],
                                offset: last.offset,
                            });
                            selects = None;
                            cur = mi;
                            continue;
                        }
                    }
                    let mut preds = [blk.label, blk.label];
                    for (k, side) in [t, e].into_iter().enumerate() {
                        if side == m {
                            preds[k] = blk.label;
                            continue;
                        }
                        let si = *index.get(&side)?;
                        if std::mem::replace(seen.get_mut(si)?, true) {
                            return None;
                        }
                        let arm = &f.blocks[si];
                        let (last, rest) = arm.instructions.split_last()?;
                        if last.opcode != Op::Branch || op_id(last, 0).ok()? != m {
                            return None;
                        }
                        for a in rest {
                            if !speculatable(cx, a) {
                                return None;
                            }
                            out.push(a.clone());
                        }
                        preds[k] = side;
                    }
                    selects = Some((c, preds[0], preds[1]));
                    cur = *index.get(&m)?;
                }
                _ => out.push(inst.clone()),
            }
        }
        if blk
            .instructions
            .last()
            .is_none_or(|l| !matches!(l.opcode, Op::Branch | Op::BranchConditional))
        {
            return None;
        }
    }
}

/// Whether `inst` may run although the work-item would not have run it: a computation without
/// memory access or other effect (integer division cannot trap in Clift's code).
fn speculatable(cx: &Ctx, inst: &Instruction) -> bool {
    match inst.opcode {
        Op::Nop | Op::Line | Op::NoLine => true,
        Op::Load | Op::Store => false,
        Op::ExtInst => ext_name(cx, inst).is_some_and(|n| {
            let b = base_name(&n);
            VECTOR_EXT_F32.contains(&b) || VECTOR_EXT_I32.contains(&b) || b == "fmax_common"
        }),
        op => pure(op),
    }
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
    let id = |k: usize| ids.get(k).copied();
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
            let rt = rty.and_then(|t| scalar32(cx, t));
            let base = base_name(&name);
            let known = match rt {
                Some(types::F32) => VECTOR_EXT_F32.contains(&base) || base == "fmax_common",
                Some(types::I32) => VECTOR_EXT_I32.contains(&base),
                _ => false,
            };
            if !known {
                return None;
            }
            let args: Vec<Class> = (1..ids.len()).map(&c).collect::<Option<_>>()?;
            vector_op(true, &args, false)
        }
        Op::IsNan if !all_uniform => {
            scalar32(cx, value_type(cx, tys, id(0)?)?)?;
            mask_op(&[c(0)?])
        }
        Op::ULessThan
        | Op::SLessThan
        | Op::ULessThanEqual
        | Op::SLessThanEqual
        | Op::UGreaterThan
        | Op::SGreaterThan
        | Op::UGreaterThanEqual
        | Op::SGreaterThanEqual
            if matches!((c(0)?, c(1)?), (Affine(s), Uniform) | (Uniform, Affine(s)) if s.abs() < 1 << 28)
                && int_bits(cx, value_type(cx, tys, id(0)?)?).is_some_and(|b| b == 32 || b == 64) =>
        {
            Some((Step::Deferred, Some(Monotone)))
        }
        _ if is_compare(op) && !all_uniform => {
            // Four lanes of 32-bit operands give a mask (all ones where true).
            let t = value_type(cx, tys, id(0)?)?;
            scalar32(cx, t)?;
            mask_op(&[c(0)?, c(1)?])
        }
        Op::LogicalAnd | Op::LogicalOr | Op::LogicalEqual | Op::LogicalNotEqual | Op::LogicalNot if !all_uniform => {
            let args: Vec<Class> = (0..ids.len()).map(&c).collect::<Option<_>>()?;
            mask_op(&args)
        }
        Op::Select if !all_uniform => {
            // A mask or a uniform condition choosing between 32-bit values.
            if !v32 {
                return None;
            }
            vector_op(true, &[c(0)?, c(1)?, c(2)?], false)
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
            if c(0)? != Uniform || ids.get(2..).unwrap_or(&[]).iter().any(|x| cls(x) != Uniform) {
                return None;
            }
            let Affine(s) = c(1)? else { return None };
            let bty = value_type(cx, tys, id(0)?)?;
            let Ty::Pointer(_, pointee) = cx.layout.get(bty).ok()?.ty else {
                return None;
            };
            let info = cx.layout.get(pointee).ok()?;
            let elem = match info.ty {
                Ty::Array(..) => info.size,
                _ => round_up(info.size, info.align),
            };
            let stride = s.checked_mul(i64::try_from(elem).ok()?)?;
            let ibits = int_bits(cx, value_type(cx, tys, id(1)?)?)?;
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
                (Op::IMul, Affine(x), Uniform) => id(1).and_then(|i| const_int(cx, i)).and_then(|k| x.checked_mul(k)),
                (Op::IMul, Uniform, Affine(x)) => id(0).and_then(|i| const_int(cx, i)).and_then(|k| x.checked_mul(k)),
                (Op::ShiftLeftLogical, Affine(x), Uniform) => id(1)
                    .and_then(|i| const_int(cx, i))
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
            let from = int_bits(cx, value_type(cx, tys, id(0)?)?)?;
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
                id(1).and_then(|x| const_int(cx, x)),
                id(0).and_then(|x| defs.get(&x)),
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
                if let (Some(Affine(s)), Some(v)) = (c(a), id(k).and_then(|x| const_int(cx, x))) {
                    if v >= 0 {
                        let span = 1i64 << (64 - v.leading_zeros());
                        if s % span == 0 {
                            // Known from how the value was computed (x << k, x * 2^k), else
                            // checked at run time.
                            if known_low_zeros(cx, defs, id(a)?, 8) >= 64 - v.leading_zeros() {
                                return Some((Step::Scalar, Some(Affine(s))));
                            }
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
            scalar32(cx, value_type(cx, tys, id(0)?)?)?;
            vector_op(v32, &[c(0)?], false)
        }
        Op::ConvertSToF if !decorated => {
            // i32 -> f32 only (rounding to nearest, as the scalar translation does).
            let from = int_bits(cx, value_type(cx, tys, id(0)?)?)?;
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

/// How many low bits of integer `id` are known to be zero (`depth`: how far to look back).
fn known_low_zeros(cx: &Ctx, defs: &HashMap<Id, &Instruction>, id: Id, depth: u32) -> u32 {
    if let Some(c) = const_int(cx, id) {
        return c.trailing_zeros();
    }
    let Some(inst) = defs.get(&id).filter(|_| depth > 0) else {
        return 0;
    };
    let arg = |k: usize| match inst.operands.get(k) {
        Some(Operand::IdRef(x)) => Some(*x),
        _ => None,
    };
    let (Some(a), b) = (arg(0), arg(1)) else { return 0 };
    let tz = |x: Id| known_low_zeros(cx, defs, x, depth - 1);
    match inst.opcode {
        Op::ShiftLeftLogical => match b.and_then(|b| const_int(cx, b)) {
            Some(k) if (0..64).contains(&k) => (tz(a) + k as u32).min(64),
            _ => 0,
        },
        Op::IMul => b.map_or(0, |b| (tz(a) + tz(b)).min(64)),
        Op::IAdd | Op::ISub | Op::BitwiseOr | Op::BitwiseXor => b.map_or(0, |b| tz(a).min(tz(b))),
        Op::BitwiseAnd => b.map_or(0, |b| tz(a).max(tz(b))),
        _ => 0,
    }
}

/// A four-lane mask (comparison or logical operation).
fn mask_op(ops: &[Class]) -> Option<(Step, Option<Class>)> {
    if ops.contains(&Class::IdX3) || ops.contains(&Class::Monotone) {
        return None;
    }
    Some((Step::Vector, Some(Class::Varying)))
}

/// A four-lane operation on 32-bit values: every operand uniform, 32-bit affine or varying
/// (`shift`: the second operand is a shift amount and must be uniform).
fn vector_op(v32: bool, ops: &[Class], shift: bool) -> Option<(Step, Option<Class>)> {
    if !v32 || ops.contains(&Class::IdX3) || ops.contains(&Class::Monotone) {
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
        let mut merge: Option<Block> = None;
        for (inst, step) in &plan.steps {
            match *step {
                Step::Deferred => {}
                Step::If { negate } => {
                    let c = op_id(inst, 0)?;
                    let (arm, after) = (self.b.create_block(), self.b.create_block());
                    match plan.class.get(&c).copied().unwrap_or(Class::Uniform) {
                        Class::Uniform => {
                            let v = self.val1(c)?;
                            let (t, e) = if negate { (after, arm) } else { (arm, after) };
                            self.b.ins().brif(v, t, &[], e, &[]);
                        }
                        _ => {
                            let (all, none) = self.all_or_none(c, plan, &vecs)?;
                            let (all, none) = if negate { (none, all) } else { (all, none) };
                            let check = self.b.create_block();
                            self.b.ins().brif(all, arm, &[], check, &[]);
                            self.b.seal_block(check);
                            self.b.switch_to_block(check);
                            self.b.ins().brif(none, after, &[], bail, bail_args);
                        }
                    }
                    self.b.seal_block(arm);
                    self.b.switch_to_block(arm);
                    merge = Some(after);
                }
                Step::EndIf => {
                    let after = merge
                        .take()
                        .ok_or_else(|| self.err(inst, "vector plan: arm without a start"))?;
                    self.b.ins().jump(after, &[]);
                    self.b.seal_block(after);
                    self.b.switch_to_block(after);
                }
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

    /// Whether condition `c` holds in all four lanes, and whether in none (both false: they
    /// disagree).
    fn all_or_none(&mut self, c: Id, plan: &Plan, vecs: &HashMap<Id, Value>) -> R<(Value, Value)> {
        if let Some(cmp) = plan.monotone.get(&c) {
            // Lanes 0 and 3 of an ordered comparison of affine x and uniform y: the lanes in
            // between lie between them, unless x wraps around within the four lanes.
            let (x, y) = (op_id(cmp, 0)?, op_id(cmp, 1)?);
            let (aff, s) = match (plan.class.get(&x).copied(), plan.class.get(&y).copied()) {
                (Some(Class::Affine(s)), _) => (x, s),
                (_, Some(Class::Affine(s))) => (y, s),
                _ => return Err(self.err(cmp, "vector plan: comparison without an affine operand")),
            };
            let base = self.val1(aff)?;
            let last = self.b.ins().iadd_imm_s(base, s * (LANES - 1));
            let (ucc, scc) = if s >= 0 {
                (IntCC::UnsignedGreaterThanOrEqual, IntCC::SignedGreaterThanOrEqual)
            } else {
                (IntCC::UnsignedLessThanOrEqual, IntCC::SignedLessThanOrEqual)
            };
            let nu = self.b.ins().icmp(ucc, last, base);
            let ns = self.b.ins().icmp(scc, last, base);
            let no_wrap = self.b.ins().band(nu, ns);
            let cc = match cmp.opcode {
                Op::ULessThan => IntCC::UnsignedLessThan,
                Op::SLessThan => IntCC::SignedLessThan,
                Op::ULessThanEqual => IntCC::UnsignedLessThanOrEqual,
                Op::SLessThanEqual => IntCC::SignedLessThanOrEqual,
                Op::UGreaterThan => IntCC::UnsignedGreaterThan,
                Op::SGreaterThan => IntCC::SignedGreaterThan,
                Op::UGreaterThanEqual => IntCC::UnsignedGreaterThanOrEqual,
                _ => IntCC::SignedGreaterThanOrEqual,
            };
            let (xv, yv) = (self.val1(x)?, self.val1(y)?);
            let (x3, y3) = if aff == x { (last, yv) } else { (xv, last) };
            let c0 = self.b.ins().icmp(cc, xv, yv);
            let c3 = self.b.ins().icmp(cc, x3, y3);
            let both = self.b.ins().band(c0, c3);
            let either = self.b.ins().bor(c0, c3);
            let neither = self.b.ins().bnot(either);
            let neither = self.b.ins().band_imm_s(neither, 1);
            let all = self.b.ins().band(both, no_wrap);
            let none = self.b.ins().band(neither, no_wrap);
            return Ok((all, none));
        }
        let m = self.lanes(c, plan, vecs)?;
        let all = self.b.ins().vall_true(m);
        let any = self.b.ins().vany_true(m);
        let none = self.b.ins().bxor_imm_s(any, 1);
        Ok((all, none))
    }

    /// Four lanes of operand `id` as a vector of `lane` elements.
    fn lanes(&mut self, id: Id, plan: &Plan, vecs: &HashMap<Id, Value>) -> R<Value> {
        if let Some(v) = vecs.get(&id) {
            return Ok(*v);
        }
        let mut x = self.val1(id)?;
        if self.b.func.dfg.value_type(x) == types::I8 {
            // A uniform bool (0 or 1) as a mask.
            let w = self.b.ins().uextend(types::I32, x);
            x = self.b.ins().ineg(w);
        }
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

    /// An OpenCL.std function of [`VECTOR_EXT_F32`] or [`VECTOR_EXT_I32`] on four lanes.
    fn simd_ext(&mut self, inst: &Instruction, plan: &Plan, vecs: &HashMap<Id, Value>) -> R<Value> {
        let name = ext_name(self.cx, inst).ok_or_else(|| self.err(inst, "vector plan: unknown instruction"))?;
        let mut a = Vec::new();
        for i in 2..inst.operands.len() {
            a.push(self.lanes(op_id(inst, i)?, plan, vecs)?);
        }
        let arg = |k: usize| {
            a.get(k)
                .copied()
                .ok_or_else(|| CompileError::new(format!("{name}: missing operand")))
        };
        Ok(match base_name(&name) {
            // mad is the fused multiply-add, as in the scalar translation.
            "fma" | "mad" => self.b.ins().fma(arg(0)?, arg(1)?, arg(2)?),
            "fabs" => self.b.ins().fabs(arg(0)?),
            "sqrt" => self.b.ins().sqrt(arg(0)?),
            "floor" => self.b.ins().floor(arg(0)?),
            "ceil" => self.b.ins().ceil(arg(0)?),
            "trunc" => self.b.ins().trunc(arg(0)?),
            "rint" => self.b.ins().nearest(arg(0)?),
            "copysign" => {
                // The sign bit of y, the other bits of x (Cranelift has no vector fcopysign).
                let sign = self.b.ins().iconst(types::I32, 0x8000_0000u32 as i64);
                let sign = self.b.ins().splat(types::I32X4, sign);
                let sign = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), sign);
                self.b.ins().bitselect(sign, arg(1)?, arg(0)?)
            }
            "fmin" | "fmin_common" | "fmax" | "fmax_common" => {
                // OpenCL's rule: a NaN operand gives the other one.
                let (x, y) = (arg(0)?, arg(1)?);
                let m = if base_name(&name).starts_with("fmax") {
                    self.b.ins().fmax(x, y)
                } else {
                    self.b.ins().fmin(x, y)
                };
                let xn = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                let yn = self.b.ins().fcmp(FloatCC::Unordered, y, y);
                let xn = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), xn);
                let yn = self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), yn);
                let r = self.b.ins().bitselect(yn, x, m);
                self.b.ins().bitselect(xn, y, r)
            }
            "s_max" => self.b.ins().smax(arg(0)?, arg(1)?),
            "u_max" => self.b.ins().umax(arg(0)?, arg(1)?),
            "s_min" => self.b.ins().smin(arg(0)?, arg(1)?),
            "u_min" => self.b.ins().umin(arg(0)?, arg(1)?),
            _ => return Err(self.err(inst, "vector plan: unexpected function")),
        })
    }

    /// A comparison or logical operation as a four-lane mask.
    fn simd_mask(&mut self, inst: &Instruction, plan: &Plan, vecs: &HashMap<Id, Value>) -> R<Value> {
        use FloatCC as F;
        use IntCC as I;
        let op = inst.opcode;
        let a = self.lanes(op_id(inst, 0)?, plan, vecs)?;
        if op == Op::LogicalNot {
            return Ok(self.b.ins().bnot(a));
        }
        if op == Op::IsNan {
            return Ok(self.b.ins().fcmp(FloatCC::Unordered, a, a));
        }
        let b = self.lanes(op_id(inst, 1)?, plan, vecs)?;
        let icc = match op {
            Op::IEqual | Op::LogicalEqual => Some(I::Equal),
            Op::INotEqual | Op::LogicalNotEqual => Some(I::NotEqual),
            Op::UGreaterThan => Some(I::UnsignedGreaterThan),
            Op::SGreaterThan => Some(I::SignedGreaterThan),
            Op::UGreaterThanEqual => Some(I::UnsignedGreaterThanOrEqual),
            Op::SGreaterThanEqual => Some(I::SignedGreaterThanOrEqual),
            Op::ULessThan => Some(I::UnsignedLessThan),
            Op::SLessThan => Some(I::SignedLessThan),
            Op::ULessThanEqual => Some(I::UnsignedLessThanOrEqual),
            Op::SLessThanEqual => Some(I::SignedLessThanOrEqual),
            _ => None,
        };
        if let Some(cc) = icc {
            return Ok(self.b.ins().icmp(cc, a, b));
        }
        let fcc = match op {
            Op::FOrdEqual => F::Equal,
            Op::FOrdNotEqual => F::OrderedNotEqual,
            Op::FOrdLessThan => F::LessThan,
            Op::FOrdGreaterThan => F::GreaterThan,
            Op::FOrdLessThanEqual => F::LessThanOrEqual,
            Op::FOrdGreaterThanEqual => F::GreaterThanOrEqual,
            Op::FUnordEqual => F::UnorderedOrEqual,
            Op::FUnordNotEqual => F::NotEqual,
            Op::FUnordLessThan => F::UnorderedOrLessThan,
            Op::FUnordGreaterThan => F::UnorderedOrGreaterThan,
            Op::FUnordLessThanEqual => F::UnorderedOrLessThanOrEqual,
            Op::FUnordGreaterThanEqual => F::UnorderedOrGreaterThanOrEqual,
            Op::LogicalAnd => return Ok(self.b.ins().band(a, b)),
            Op::LogicalOr => return Ok(self.b.ins().bor(a, b)),
            _ => return Err(self.err(inst, "vector plan: unexpected comparison")),
        };
        Ok(self.b.ins().fcmp(fcc, a, b))
    }

    fn simd_inst(&mut self, inst: &Instruction, plan: &Plan, vecs: &mut HashMap<Id, Value>) -> R {
        let flags = MemFlagsData::new();
        let op = inst.opcode;
        if is_compare(op)
            || matches!(
                op,
                Op::LogicalAnd | Op::LogicalOr | Op::LogicalEqual | Op::LogicalNotEqual | Op::LogicalNot | Op::IsNan
            )
        {
            let (r, _) = result(inst)?;
            let m = self.simd_mask(inst, plan, vecs)?;
            vecs.insert(r, m);
            return Ok(());
        }
        if op == Op::Select {
            let (r, ty) = result(inst)?;
            let t = self.cx.layout.get(ty)?.leaves.first().copied().unwrap_or(types::I32);
            let vt = vec_type(t).ok_or_else(|| self.err(inst, "vector plan: not a 32-bit select"))?;
            let c = op_id(inst, 0)?;
            let (x, y) = (
                self.lanes(op_id(inst, 1)?, plan, vecs)?,
                self.lanes(op_id(inst, 2)?, plan, vecs)?,
            );
            let v = if vecs.contains_key(&c) {
                let m = self.lanes(c, plan, vecs)?;
                let m = if self.b.func.dfg.value_type(m) == vt {
                    m
                } else {
                    self.b.ins().bitcast(vt, MemFlagsData::new(), m)
                };
                self.b.ins().bitselect(m, x, y)
            } else {
                let cv = self.val1(c)?;
                self.b.ins().select(cv, x, y)
            };
            vecs.insert(r, v);
            return Ok(());
        }
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
                    let v = self.simd_ext(inst, plan, vecs)?;
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
