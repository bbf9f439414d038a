//! The vector plan: which instructions of a kernel body run per lane, which once for four
//! work-items, and whether the body can run four work-items at a time at all.

use super::{rep, Class, Guard, Plan, Step};
use crate::codegen::context::Ctx;
use crate::codegen::layout::{round_up, Id, Scalar, Ty};
use crate::codegen::mathfn;
use crate::codegen::state::op_id;
use crate::codegen::translate::is_barrier;
use crate::spirv::module::{ConstantValue, Function};
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, Type};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, StorageClass};
use std::collections::{HashMap, HashSet};

/// The single 32-bit scalar leaf of `ty`, if that is what it is.
fn scalar32(cx: &Ctx, ty: Id) -> Option<Type> {
    match cx.layout.get(ty).ok()?.ty {
        Ty::Scalar(Scalar::Int(32)) => Some(types::I32),
        Ty::Scalar(Scalar::Float(32)) => Some(types::F32),
        _ => None,
    }
}

/// Whether `ty` is `double` (held as `Rep::Pair`).
fn is_f64(cx: &Ctx, ty: Id) -> bool {
    cx.layout
        .get(ty)
        .is_ok_and(|i| matches!(i.ty, Ty::Scalar(Scalar::Float(64))))
}

/// The OpenCL.std functions the vector loop computes on doubles two lanes at a time, with the
/// scalar translation's operations: one IEEE operation each (besides the functions of
/// `mathfn::known_f64`).
pub(super) const VECTOR_EXT_F64: [&str; 9] = ["fma", "mad", "fabs", "sqrt", "rsqrt", "floor", "ceil", "trunc", "rint"];

/// Comparisons: a four-lane mask from two 32-bit operands.
pub(super) fn is_compare(op: Op) -> bool {
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

/// The tests of one float (OpIsNan, OpIsInf, ...), four lanes at a time in the vector loop, and
/// the logical not.
pub(super) fn is_unary_test(op: Op) -> bool {
    use Op::*;
    matches!(op, LogicalNot | IsNan | IsInf | IsFinite | IsNormal | SignBitSet)
}

/// The operations whose result is a boolean (a lane mask in the vector loop): comparisons,
/// logical operations, the tests of floats.
pub(super) fn is_mask_op(op: Op) -> bool {
    use Op::*;
    is_compare(op)
        || is_unary_test(op)
        || matches!(
            op,
            LogicalAnd | LogicalOr | LogicalEqual | LogicalNotEqual | Ordered | Unordered | LessOrGreater
        )
}

/// The OpenCL.std functions the vector loop computes four lanes at a time, exactly as the
/// scalar translation does (its inline forms; besides the functions of `mathfn`).
const VECTOR_EXT_F32: [&str; 17] = [
    "hypot",
    "recip",
    "divide",
    "fma",
    "mad",
    "fabs",
    "sqrt",
    "rsqrt",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "fmin",
    "fmax",
    "copysign",
    "fmin_common",
    "fclamp",
];
const VECTOR_EXT_I32: [&str; 14] = [
    "s_max", "u_max", "s_min", "u_min", "s_clamp", "u_clamp", "s_mul24", "u_mul24", "s_mad24", "u_mad24", "s_mul_hi",
    "u_mul_hi", "s_mad_hi", "u_mad_hi",
];

/// The name the scalar translation dispatches on (native_ and half_ forms share it).
pub(super) fn base_name(name: &str) -> &str {
    name.strip_prefix("native_")
        .or_else(|| name.strip_prefix("half_"))
        .unwrap_or(name)
}

/// The OpenCL.std functions that return a value and also store one through their pointer
/// operand (OpenCL C 6.15.2's `iptr`, `exp`, `cosval`, `quo`, `signp`): lane by lane under the
/// execution mask, never run for a work-item that would not run them.
pub(super) fn ext_writes_through_pointer(name: &str) -> bool {
    matches!(name, "fract" | "frexp" | "lgamma_r" | "modf" | "remquo" | "sincos")
}

/// Whether `inst` is an OpenCL.std function of [`ext_writes_through_pointer`].
pub(super) fn is_ext_with_out_pointer(cx: &Ctx, inst: &Instruction) -> bool {
    inst.opcode == Op::ExtInst && ext_name(cx, inst).is_some_and(|n| ext_writes_through_pointer(&n))
}

/// The atomic instructions the vector loop runs lane by lane.
pub(super) fn is_atomic(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicIIncrement
            | AtomicIDecrement
            | AtomicIAdd
            | AtomicISub
            | AtomicSMin
            | AtomicUMin
            | AtomicSMax
            | AtomicUMax
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | AtomicFAddEXT
            | AtomicFMinEXT
            | AtomicFMaxEXT
    )
}

/// The instructions of the vector body that write memory: after one, four work-items that
/// disagree can no longer go to the scalar loop (it would run the write again).
fn writes(cx: &Ctx, inst: &Instruction) -> bool {
    let op = inst.opcode;
    matches!(op, Op::Store | Op::CopyMemorySized | Op::CopyMemory | Op::ImageWrite)
        || is_atomic(op)
        || (op == Op::ExtInst
            && ext_name(cx, inst).is_some_and(|n| n.starts_with("vstore") || ext_writes_through_pointer(&n)))
}

fn is_bool(cx: &Ctx, ty: Id) -> bool {
    matches!(cx.layout.get(ty).map(|i| &i.ty), Ok(Ty::Scalar(Scalar::Bool)))
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
    is_compare(op)
        || matches!(
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
                | BitCount
                | BitReverse
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
                | PtrCastToGeneric
                | GenericCastToPtr
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
/// `inputs`: values defined before the body that differ between work-items (32-bit scalars;
/// the caller gives their four lanes).
pub(crate) fn plan(
    cx: &Ctx,
    f: &Function,
    order: &[usize],
    params: &[(Id, Id)],
    inputs: &HashSet<Id>,
    speculate: bool,
) -> Result<Plan, String> {
    plan_live(cx, f, order, params, inputs, &HashSet::new(), speculate)
}

/// As [`plan`] for a body that may end at a barrier, where the values `kept` (a superset of
/// those the work-items keep across it) are read lane by lane: one defined in a loop gets an
/// exit phi like a value used after the loop ([`exit_copies`]). `speculate`: a product of an
/// affine value and a uniform one that is not a constant is taken as affine under a guard that
/// the uniform is 1 ([`Guard::Unit`]).
pub(crate) fn plan_live(
    cx: &Ctx,
    f: &Function,
    order: &[usize],
    params: &[(Id, Id)],
    inputs: &HashSet<Id>,
    kept: &HashSet<Id>,
    speculate: bool,
) -> Result<Plan, String> {
    // A loop phi takes the class of its value on entry unless the loop's value for it has
    // another: then it is planned again as varying.
    // A loop whose values are used after it other than through its exit phis runs without a
    // mask (the four work-items go round together or go to the scalar loop) where it can.
    // Branches and switches whose arms only compute, if-converted first.
    // Work-items side by side would each hold their own copy of memory they share.
    let promoted_loop = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .any(|i| i.result_id.is_some_and(|r| cx.promoted_vars.contains(&r)));
    if promoted_loop {
        return Err("a loop holding shared memory in registers (`promote`): one work-item at a time".into());
    }
    let entry = f.blocks.get(*order.first().ok_or("no body")?).ok_or("no body")?.label;
    let simple = super::cfg::simplify(cx, f, entry);
    let f = &simple;
    let start = [f.blocks.iter().position(|b| b.label == entry).ok_or("no body")?];
    let order = &start[..];
    // Promoted private variables are the scalar translation's SSA variables: not for four
    // work-items.
    let promoted = crate::codegen::translate::promotable(cx, f);
    // Branches on data (not Monotone) run their arms under masks; should that plan fail (a
    // merge's phi of uniform values needed uniform), all-or-none as before a store.
    let mut result = Err(String::new());
    for masks in [true, false] {
        let mut varying = HashSet::new();
        let mut unmasked = HashSet::new();
        result = Err("loop values of too many classes".into());
        for _ in 0..8 {
            let mut again = Vec::new();
            let mut again_loops = Vec::new();
            match plan_with(
                cx,
                f,
                order,
                params,
                inputs,
                (&promoted, kept, speculate, masks),
                (&varying, &unmasked),
                (&mut again, &mut again_loops),
            ) {
                Err(_) if !again.is_empty() || !again_loops.is_empty() => {
                    varying.extend(again);
                    unmasked.extend(again_loops);
                }
                r => {
                    result = r;
                    break;
                }
            }
        }
        if result.is_ok() {
            break;
        }
    }
    result
}

/// As [`plan`], with the loop phis `varying` taken as varying and the loops `unmasked` (by
/// the place of their head marker in the body) run without a mask; a loop phi found to need
/// that is added to `again`, a loop to `again_loops` (and the plan fails). `promoted`: the
/// private variables the scalar translation keeps in registers; `speculate` as in
/// [`plan_live`]; `masks`: a branch on a varying condition (a test of data, which the four
/// work-items often disagree on) runs each arm under the mask of its lanes even before a
/// store, rather than sending four that disagree to the scalar loop.
#[allow(clippy::too_many_arguments)]
fn plan_with(
    cx: &Ctx,
    f: &Function,
    order: &[usize],
    params: &[(Id, Id)],
    inputs: &HashSet<Id>,
    (promoted, kept, speculate, masks): (&HashSet<Id>, &HashSet<Id>, bool, bool),
    (varying, unmasked): (&HashSet<Id>, &HashSet<usize>),
    (again, again_loops): (&mut Vec<Id>, &mut Vec<usize>),
) -> Result<Plan, String> {
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
    let (mut body, yield_at) =
        flatten(cx, f, order).ok_or("control flow other than if-then-else with computing arms")?;
    let kept = if yield_at.is_some() {
        kept.clone()
    } else {
        HashSet::new()
    };
    let renamed = exit_copies(cx, &mut body, &mut tys, &kept);
    let mut class: HashMap<Id, Class> = inputs.iter().map(|id| (*id, Class::Varying)).collect();
    let mut steps = Vec::new();
    let mut stored = false;
    let mut any_vector = false;
    let mut monotone = HashMap::new();
    // The phis of the loop being planned: (result, value on entry, value from the loop).
    let mut loop_phis: Vec<(Id, Id, Id)> = Vec::new();
    // Phis here are the loop's (after its head marker) or its exit block's (after its end).
    let (mut at_head, mut at_exit) = (false, false);
    // The loop being planned: where its head step is, whether a test of it differs between
    // work-items (then it runs under an execution mask), the values it defines.
    let mut lp_head = 0;
    let mut lp_masked = false;
    let mut lp_defs: HashSet<Id> = HashSet::new();
    // The values of the last masked loop: after it, each lane has its own last round's, so
    // only its exit phis may carry them on.
    let mut left_behind: HashSet<Id> = HashSet::new();
    // The loop being planned: its head marker's place, whether it may send the four
    // work-items to the scalar loop instead of masking (nothing stored before its end), and
    // whether it does (`unmasked`).
    let (mut lp_at, mut lp_can_bail, mut lp_bail) = (0, false, false);
    // The head marker's place of the loop `left_behind` is of, and whether it could bail.
    let mut behind_of = (0, false);
    let mut live_outs = HashMap::new();
    // Whether the last branch closed runs its arms under masks (its phis are then varying);
    // the same for the branches open (nested: the innermost last).
    let mut br_masked = false;
    let mut br_open: Vec<bool> = Vec::new();
    for (k, inst) in body.iter().enumerate() {
        let cls = |id: &Id| class.get(id).copied().unwrap_or(Class::Uniform);
        let exit_phi = inst.opcode == Op::Phi && at_exit;
        if !exit_phi
            && inst
                .operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(x) if left_behind.contains(x)))
        {
            if behind_of.1 {
                again_loops.push(behind_of.0);
            }
            return Err(format!(
                "{}: a value of a loop that work-items leave at different rounds",
                inst.describe()
            ));
        }
        if let Some(r) = inst.result_id {
            lp_defs.insert(r);
        }
        if is_barrier(cx, inst) {
            // The end of a barrier region (flatten stops there).
            steps.push((inst.clone(), Step::Yield));
            continue;
        }
        let marker = |inst: &Instruction| match (inst.opcode, inst.result_id, inst.operands.first()) {
            (Op::LoopMerge, None, Some(Operand::LiteralBit32(m))) => Some(*m),
            _ => None,
        };
        if inst.opcode != Op::Phi {
            at_head = false;
            at_exit = false;
        }
        match marker(inst) {
            Some(0) => {
                let negate = matches!(inst.operands.get(1), Some(Operand::LiteralBit32(1)));
                lp_masked = false;
                // A store in the loop comes before the next round's tests. (Any write: an
                // atomic in a loop without stores, such as a compare-and-swap retry loop, also
                // rules out sending the four work-items to the scalar loop at a later test,
                // which would run the atomic again for those that had already left.)
                let end = body[k..]
                    .iter()
                    .position(|i| marker(i) == Some(1))
                    .ok_or("loop without an end")?;
                stored |= body[k..k + end].iter().any(|i| writes(cx, i));
                (lp_at, lp_can_bail, lp_bail) = (k, !stored, unmasked.contains(&k));
                if let Ok(c) = op_id(inst, 2) {
                    match cls(&c) {
                        Class::Uniform => {}
                        Class::Varying | Class::Monotone if lp_bail => {}
                        Class::Varying | Class::Monotone => lp_masked = true,
                        _ => return Err(format!("loop guard %{c}: not a condition")),
                    }
                }
                loop_phis.clear();
                lp_defs.clear();
                lp_head = steps.len();
                at_head = true;
                steps.push((inst.clone(), Step::LoopHead { negate, masked: false }));
                continue;
            }
            Some(2) => {
                // A test in the middle of the loop: the work-items for which it holds (is false
                // if `negate`) leave.
                let c = op_id(inst, 2).map_err(|e| e.message)?;
                match cls(&c) {
                    Class::Uniform => {}
                    Class::Varying | Class::Monotone if lp_bail => {}
                    Class::Varying | Class::Monotone => lp_masked = true,
                    _ => return Err(format!("loop exit %{c}: not a condition")),
                }
                let negate = matches!(inst.operands.get(1), Some(Operand::LiteralBit32(1)));
                steps.push((inst.clone(), Step::LoopExit { negate }));
                continue;
            }
            Some(1) => {
                let c = op_id(inst, 2).map_err(|e| e.message)?;
                match cls(&c) {
                    Class::Uniform => {}
                    Class::Varying | Class::Monotone if lp_bail => {}
                    Class::Varying | Class::Monotone => lp_masked = true,
                    _ => return Err(format!("loop test %{c}: not a condition")),
                }
                if let Some((_, Step::LoopHead { masked, .. })) = steps.get_mut(lp_head) {
                    *masked = lp_masked;
                }
                if lp_masked {
                    // The loop's varying values used after it (not through an exit phi): each
                    // lane keeps its own from the round it left in.
                    let mut outs = Vec::new();
                    for later in body[k + 1..].iter().skip_while(|i| i.opcode == Op::Phi) {
                        for o in &later.operands {
                            if let Operand::IdRef(x) = o {
                                let ok = cls(x) == Class::Varying && tys.get(x).is_some_and(|t| rep(cx, *t).is_some());
                                if lp_defs.contains(x) && ok && !outs.contains(x) {
                                    outs.push(*x);
                                }
                            }
                        }
                    }
                    for x in &outs {
                        lp_defs.remove(x);
                    }
                    live_outs.insert(steps.len(), outs);
                    left_behind = std::mem::take(&mut lp_defs);
                    behind_of = (lp_at, lp_can_bail);
                }
                // Each loop phi's class must hold for its value from the loop as well.
                for (r, _, back) in &loop_phis {
                    let want = cls(r);
                    let ok = match (want, cls(back)) {
                        (Class::Varying, Class::Uniform | Class::Varying | Class::Affine(_)) => true,
                        (a, b) => a == b,
                    };
                    if !ok {
                        again.push(*r);
                    }
                }
                if !again.is_empty() {
                    return Err("loop values of another class".into());
                }
                let go_on = matches!(inst.operands.get(1), Some(Operand::LiteralBit32(1)));
                at_exit = true;
                steps.push((inst.clone(), Step::LoopEnd { negate: !go_on }));
                continue;
            }
            _ => {}
        }
        if inst.opcode == Op::Phi && at_head {
            let (r, ty) = (
                inst.result_id.ok_or("OpPhi without a result")?,
                inst.result_type.ok_or("OpPhi without a type")?,
            );
            let (entry, back) = (
                op_id(inst, 0).map_err(|e| e.message)?,
                op_id(inst, 1).map_err(|e| e.message)?,
            );
            let single = cx.layout.get(ty).map(|i| i.leaves.len() == 1).unwrap_or(false);
            let c = match cls(&entry) {
                _ if varying.contains(&r) => Class::Varying,
                Class::Uniform if single => Class::Uniform,
                Class::Affine(s) if single => Class::Affine(s),
                _ => Class::Varying,
            };
            if c == Class::Varying && rep(cx, ty).is_none() {
                return Err(format!("{}: not a scalar value", inst.describe()));
            }
            class.insert(r, c);
            any_vector |= c != Class::Uniform;
            loop_phis.push((r, entry, back));
            steps.push((inst.clone(), Step::LoopPhi));
            continue;
        }
        // The markers flatten() leaves for an arm taken by all or none.
        if inst.result_id.is_none() && matches!(inst.opcode, Op::BranchConditional | Op::Branch) {
            if inst.opcode == Op::Branch {
                let step = if inst.operands.is_empty() {
                    br_masked = br_open.pop().ok_or("an end of a branch without its start")?;
                    Step::EndIf
                } else {
                    Step::Else
                };
                steps.push((inst.clone(), step));
                continue;
            }
            let c = op_id(inst, 0).map_err(|e| e.message)?;
            let negate = matches!(inst.operands.get(1), Some(Operand::LiteralBit32(1)));
            let masked = match cls(&c) {
                Class::Uniform => false,
                // May send the four work-items to the scalar loop: nothing stored yet (a
                // Monotone test, a bound, differs only at the end of a row).
                Class::Monotone if !stored => false,
                Class::Varying if !stored && !masks => false,
                // Else both arms run, each under the mask of its lanes.
                Class::Varying | Class::Monotone => true,
                _ => return Err(format!("branch on %{c}: not a condition")),
            };
            br_open.push(masked);
            steps.push((inst.clone(), Step::If { negate, masked }));
            continue;
        }
        let ids: Vec<Id> = inst.id_refs().collect();
        let all_uniform = ids.iter().all(|x| cls(x) == Class::Uniform);
        if inst.opcode == Op::Phi {
            // The value of the arm the four work-items took (or of the way they left a loop):
            // uniform if both are, else four lanes of a 32-bit value.
            let ty = inst.result_type.ok_or("OpPhi without a type")?;
            let single = cx.layout.get(ty).map(|i| i.leaves.len() == 1).unwrap_or(false);
            let masked = if at_exit { lp_masked } else { br_masked };
            // One value at every exit of a loop the four leave together ([`exit_copies`]):
            // that value's class (an affine address stays affine after the loop).
            let one = match ids.as_slice() {
                [x, rest @ ..] if at_exit && !masked && single && rest.iter().all(|y| y == x) => {
                    Some(cls(x)).filter(|c| matches!(c, Class::Uniform | Class::Affine(_)))
                }
                _ => None,
            };
            let c = if let Some(c) = one {
                c
            } else if all_uniform && single && !masked {
                Class::Uniform
            } else if rep(cx, ty).is_some()
                && ids
                    .iter()
                    .all(|x| matches!(cls(x), Class::Uniform | Class::Varying | Class::Affine(_)))
            {
                Class::Varying
            } else {
                return Err(format!("{}: not a scalar value", inst.describe()));
            };
            let r = inst.result_id.ok_or("OpPhi without a result")?;
            class.insert(r, c);
            any_vector |= c != Class::Uniform;
            steps.push((inst.clone(), if at_exit { Step::LoopExitPhi } else { Step::Phi }));
            continue;
        }
        let (step, out) = match inst.opcode {
            Op::Variable => {
                // One copy per work-item, side by side.
                let r = inst.result_id.ok_or("OpVariable without a result")?;
                if promoted.contains(&r) {
                    return Err(format!("{}: a private variable kept in registers", inst.describe()));
                }
                let pointee = match cx
                    .layout
                    .get(inst.result_type.ok_or("OpVariable without a type")?)
                    .map(|i| &i.ty)
                {
                    Ok(Ty::Pointer(_, p)) => *p,
                    _ => return Err(format!("{}: not a pointer", inst.describe())),
                };
                let info = cx.layout.get(pointee).map_err(|e| e.message)?;
                let size = round_up(info.size.max(1), info.align.max(1));
                if inst.operands.len() > 1 || size >= 1 << 20 {
                    return Err(format!("{}: an initialized or large private variable", inst.describe()));
                }
                (Step::Private, Some(Class::Affine(size as i64)))
            }
            // Hints without code.
            Op::LifetimeStart | Op::LifetimeStop => (Step::Scalar, None),
            // Atomics: the scalar translation lane by lane, in lane order, each only for a lane
            // in the execution mask (work-items are unordered, so any order of the four is one
            // the scalar loop could have run; four lanes on one address each see the others').
            op if is_atomic(op) => {
                // (Lane by lane needs each varying operand's type.)
                let ok = ids.iter().all(|x| match cls(x) {
                    Class::Uniform => true,
                    Class::Affine(_) | Class::Varying => tys.contains_key(x),
                    _ => false,
                });
                let scalar = match inst.result_type {
                    Some(t) => matches!(
                        rep(cx, t),
                        Some(super::Rep::Vector(_) | super::Rep::Quad(_) | super::Rep::Pair(_))
                    ),
                    None => true,
                };
                if !ok || !scalar {
                    return Err(inst.describe());
                }
                (Step::Lanes, inst.result_id.map(|_| Class::Varying))
            }
            Op::CopyMemorySized | Op::CopyMemory => {
                // Lane by lane (under the execution mask), every pointer uniform, affine or
                // varying.
                let ok = ids
                    .iter()
                    .all(|x| matches!(cls(x), Class::Uniform | Class::Affine(_) | Class::Varying));
                if !ok {
                    return Err(inst.describe());
                }
                if ids.iter().all(|x| cls(x) == Class::Uniform) {
                    return Err(format!("{}: a copy to one place by four work-items", inst.describe()));
                }
                (Step::Lanes, None)
            }
            Op::IMul if speculate && unit_stride(cx, inst, &ids, &cls).is_some() => {
                let (k, s) = unit_stride(cx, inst, &ids, &cls).ok_or("unit stride")?;
                (Step::ScalarGuarded(Guard::Unit { operand: k }), Some(Class::Affine(s)))
            }
            _ => classify(cx, &tys, &defs, inst, &ids, &cls, all_uniform).ok_or_else(|| inst.describe())?,
        };
        let (step, out) = match (step, inst.result_type) {
            // After a store the four work-items can no longer go to the scalar loop when the
            // check fails: the value is computed lane by lane instead (varying, not affine).
            (Step::ScalarGuarded(_), Some(ty)) if stored => {
                let typed = ids.iter().all(|x| cls(x) == Class::Uniform || tys.contains_key(x));
                if !typed || rep(cx, ty).is_none() {
                    return Err(format!("{}: needs a run-time check after a store", inst.describe()));
                }
                (Step::Lanes, Some(Class::Varying))
            }
            _ => (step, out),
        };
        // Guards and lane-by-lane accesses compute `stride * 3` and 32-bit lane offsets.
        let small = |id: &Id| matches!(cls(id), Class::Affine(s) if s.abs() < 1 << 28);
        let checked = match (step, inst.opcode) {
            (Step::ScalarGuarded(_), _) => out.is_some_and(|c| matches!(c, Class::Affine(s) if s.abs() < 1 << 28)),
            (Step::Vector, Op::Load | Op::Store) => ids
                .first()
                .is_some_and(|p| matches!(cls(p), Class::Uniform | Class::Varying) || small(p)),
            _ => true,
        };
        if !checked {
            return Err(format!("{}: stride too large", inst.describe()));
        }
        if writes(cx, inst) {
            stored = true;
        }
        any_vector |= matches!(step, Step::Vector | Step::Lanes) || out.is_some_and(|c| c != Class::Uniform);
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
    let speculative = steps
        .iter()
        .any(|(_, s)| matches!(s, Step::ScalarGuarded(Guard::Unit { .. })));
    Ok(Plan {
        steps,
        class,
        monotone,
        yield_at,
        tys,
        live_outs,
        renamed,
        speculative,
    })
}

/// For `x * u` (operands `ids`) with x affine and u a uniform integer that is not a constant
/// (a stride the kernel takes as an argument, such as pyopencl's `i * step`): u's operand
/// index and x's stride. Under a guard that u is 1 the product is x itself; the usual case
/// (a contiguous array) then loads and stores whole vectors, and the plan made without the
/// speculation runs where it fails. (No 8- or 16-bit value is affine: its lanes wrap.)
fn unit_stride(cx: &Ctx, inst: &Instruction, ids: &[Id], cls: &dyn Fn(&Id) -> Class) -> Option<(usize, i64)> {
    if !matches!(inst.result_type.and_then(|t| int_bits(cx, t)), Some(32 | 64)) {
        return None;
    }
    match (ids, ids.iter().map(cls).collect::<Vec<_>>().as_slice()) {
        ([_, u], [Class::Affine(s), Class::Uniform]) if const_int(cx, *u).is_none() => Some((1, *s)),
        ([u, _], [Class::Uniform, Class::Affine(s)]) if const_int(cx, *u).is_none() => Some((0, *s)),
        _ => None,
    }
}

/// First of the ids [`exit_copies`] gives (counting down, below [`super::cfg`]'s).
const EXIT_COPY_IDS: Id = u32::MAX - (1 << 20);

/// Gives each value of a loop (not behind a guard) used after it other than by the exit
/// block's phis an exit phi of its own (LCSSA form, which llvm-spirv does not keep): a phi
/// with a fresh id taking the value at each exit, the uses after the loop renamed to it. In a
/// loop the work-items leave at different rounds, a value the same for the four inside (the
/// round count of `do { ... n++; } while (cas(...) != e)`) differs after it, and the exit phi
/// is what keeps each lane's. Returns the renaming (a value kept across the barrier that ends
/// the body is read under its new id).
fn exit_copies(cx: &Ctx, body: &mut Vec<Instruction>, tys: &mut Types, kept: &HashSet<Id>) -> HashMap<Id, Id> {
    let marker = |inst: &Instruction| match (inst.opcode, inst.result_id, inst.operands.first()) {
        (Op::LoopMerge, None, Some(Operand::LiteralBit32(m))) => Some(*m),
        _ => None,
    };
    let mut renamed = HashMap::new();
    let mut fresh = EXIT_COPY_IDS;
    let mut k = 0;
    while k < body.len() {
        if marker(&body[k]) != Some(0) {
            k += 1;
            continue;
        }
        let guarded = body[k].operands.len() > 1;
        let Some(len) = body[k..].iter().position(|i| marker(i) == Some(1)) else {
            break;
        };
        let end = k + len;
        let exits = body[k..end].iter().filter(|i| marker(i) == Some(2)).count() + 1;
        let defs: HashSet<Id> = body[k..end].iter().filter_map(|i| i.result_id).collect();
        let mut after = end + 1;
        while body.get(after).is_some_and(|i| i.opcode == Op::Phi) {
            after += 1;
        }
        let mut copies: Vec<(Id, Id)> = Vec::new();
        if !guarded {
            // Values kept across the barrier that ends the body (in the order they were
            // defined), where they have lanes.
            for inst in &body[k..end] {
                let Some(x) = inst.result_id.filter(|x| kept.contains(x)) else {
                    continue;
                };
                let Some(ty) = tys.get(&x).copied().filter(|t| rep(cx, *t).is_some()) else {
                    continue;
                };
                fresh -= 1;
                tys.insert(fresh, ty);
                copies.push((x, fresh));
            }
            for inst in &mut body[after..] {
                for o in &mut inst.operands {
                    let Operand::IdRef(x) = o else { continue };
                    if !defs.contains(x) {
                        continue;
                    }
                    let Some(ty) = tys.get(x).copied() else { continue };
                    let n = match copies.iter().find(|(v, _)| v == x) {
                        Some((_, n)) => *n,
                        None => {
                            fresh -= 1;
                            tys.insert(fresh, ty);
                            copies.push((*x, fresh));
                            fresh
                        }
                    };
                    *x = n;
                }
            }
        }
        let phis: Vec<Instruction> = copies
            .iter()
            .map(|(x, n)| Instruction {
                opcode: Op::Phi,
                result_type: tys.get(n).copied(),
                result_id: Some(*n),
                operands: vec![Operand::IdRef(*x); exits],
                offset: body[end].offset,
            })
            .collect();
        renamed.extend(copies);
        let at = after;
        body.splice(at..at, phis);
        k = end + 1;
    }
    renamed
}

/// An instruction's place: block label and index.
type Place = (Id, usize);

/// The body as one sequence of instructions: a chain of blocks ending in OpReturn, where an
/// if-then(-else) whose arms only compute (no memory access, nothing with an effect) has both
/// arms computed and each OpPhi of its merge block turned into an OpSelect on the condition
/// (if-conversion). A chain may also end at a barrier (a barrier region's code): the barrier
/// is the last instruction, and its place (block label, index) comes with the body. `None` for
/// any other shape.
fn flatten(cx: &Ctx, f: &Function, order: &[usize]) -> Option<(Vec<Instruction>, Option<Place>)> {
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut out = Vec::new();
    let mut seen = vec![false; f.blocks.len()];
    match walk(cx, f, &index, &mut out, &mut seen, *order.first()?, None)? {
        End::Return => Some((out, None)),
        End::Barrier(at) => Some((out, Some(at))),
        End::Merge(_) => None,
    }
}

/// Where [`walk`] ended.
enum End {
    Return,
    /// At a barrier (its place).
    Barrier(Place),
    /// At the merge block it was to stop at, coming from this block.
    Merge(Id),
}

/// [`flatten`] from block `cur` on, appending to `out`; with `stop`, an arm of a branch whose
/// arms touch memory, which ends where it reaches that merge block (and may hold branches of
/// its own, not loops, barriers or returns).
fn walk(
    cx: &Ctx,
    f: &Function,
    index: &HashMap<Id, usize>,
    out: &mut Vec<Instruction>,
    seen: &mut [bool],
    mut cur: usize,
    stop: Option<Id>,
) -> Option<End> {
    let in_arm = stop.is_some();
    // The block the walk came to `cur` from by a plain branch.
    let mut prev: Option<Id> = None;
    // Phis of the current block are allowed only right after an if-conversion.
    let mut selects: Option<(Id, Id, Id)> = None;
    // Set when the phis of the next block were already turned into Step::Phi.
    let mut phis_done = false;
    // A loop from block `l`: (its blocks, its exit label); see [`chain_loop`].
    let self_loop = |l: Id| chain_loop(f, index, l).filter(|_| !in_arm);
    // The block a plain branch came from (its phis take that block's values).
    let mut next_from: Option<Id> = None;
    loop {
        if stop.is_some() && stop == f.blocks.get(cur).map(|b| b.label) {
            return Some(End::Merge(prev?));
        }
        if std::mem::replace(seen.get_mut(cur)?, true) {
            return None;
        }
        let came_from = next_from.take();
        prev = None;
        let blk = &f.blocks[cur];
        let mut merge = None;
        for (i, inst) in blk.instructions.iter().enumerate() {
            if is_barrier(cx, inst) {
                out.push(inst.clone());
                return (!in_arm).then_some(End::Barrier((blk.label, i)));
            }
            match inst.opcode {
                Op::Nop | Op::Line | Op::NoLine => {}
                Op::Phi if phis_done => {}
                Op::Phi => {
                    let pick = |pred: Id| {
                        inst.operands.chunks(2).find_map(|pair| match pair {
                            [Operand::IdRef(v), Operand::IdRef(p)] if *p == pred => Some(*v),
                            _ => None,
                        })
                    };
                    if let (None, Some(p)) = (selects, came_from) {
                        // Reached by a plain branch from block `p` (the block's other
                        // predecessors lie beyond a barrier or a return): a copy of p's value.
                        out.push(Instruction {
                            opcode: Op::CopyObject,
                            result_type: inst.result_type,
                            result_id: inst.result_id,
                            operands: vec![Operand::IdRef(pick(p)?)],
                            offset: inst.offset,
                        });
                        continue;
                    }
                    // (condition, predecessor on the true path, on the false path)
                    let (c, tp, fp) = selects?;
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
                Op::Return => return (!in_arm).then_some(End::Return),
                Op::LoopMerge if in_arm => return None,
                Op::Branch => {
                    let target = op_id(inst, 0).ok()?;
                    if let Some((chain, exit)) = self_loop(target) {
                        // A loop without a guard (do-while).
                        loop_steps(cx, f, out, seen, None, [blk.label; 2], &chain, exit)?;
                        cur = *index.get(&exit)?;
                        phis_done = true;
                    } else {
                        cur = *index.get(&target)?;
                        phis_done = false;
                        next_from = Some(blk.label);
                        prev = Some(blk.label);
                    }
                    selects = None;
                }
                Op::BranchConditional => {
                    let c = op_id(inst, 0).ok()?;
                    let (t, e) = (op_id(inst, 1).ok()?, op_id(inst, 2).ok()?);
                    // A loop behind a guard: `if (c) do { ... } while (c2);`, the guard's other
                    // side being the loop's exit.
                    // The loop may come after a preheader: one block without phis that only
                    // computes (run before the guard, as an if-converted arm is).
                    let guarded = [(t, e, false), (e, t, true)]
                        .into_iter()
                        .find_map(|(l, other, negate)| {
                            if merge.is_some() || in_arm {
                                return None;
                            }
                            if let Some((chain, exit)) = self_loop(l) {
                                return (exit == other).then_some((chain, exit, negate, None));
                            }
                            let pi = *index.get(&l)?;
                            let (last, rest) = f.blocks[pi].instructions.split_last()?;
                            let computes = rest.iter().all(|i| {
                                matches!(i.opcode, Op::Nop | Op::Line | Op::NoLine)
                                    || (i.opcode != Op::Phi && speculatable(cx, i))
                            });
                            if last.opcode != Op::Branch || !computes || l == other {
                                return None;
                            }
                            let (chain, exit) = self_loop(op_id(last, 0).ok()?)?;
                            (exit == other && !chain.contains(&pi)).then_some((chain, exit, negate, Some(pi)))
                        });
                    if let Some((chain, exit, negate, pre)) = guarded {
                        let g = Some((c, negate));
                        let mut from = blk.label;
                        if let Some(pi) = pre {
                            if std::mem::replace(seen.get_mut(pi)?, true) {
                                return None;
                            }
                            let pb = &f.blocks[pi];
                            let n = pb.instructions.len().saturating_sub(1);
                            out.extend(
                                pb.instructions[..n]
                                    .iter()
                                    .filter(|i| !matches!(i.opcode, Op::Nop | Op::Line | Op::NoLine))
                                    .cloned(),
                            );
                            from = pb.label;
                        }
                        loop_steps(cx, f, out, seen, g, [from, blk.label], &chain, exit)?;
                        cur = *index.get(&exit)?;
                        phis_done = true;
                        selects = None;
                        continue;
                    }
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
                            // Arms of more than one block (branches of their own).
                            _ => super::merges::merge_of(cx, f, blk.label, t, e)?,
                        },
                    };
                    // Arms that touch memory (if (i < n) c[i] = ..., x > 0 ? in[i - 1] : c): kept
                    // as a branch that all four work-items take or none does (Step::If). Each
                    // arm is one block that jumps to the merge; the merge's phis become
                    // [value on the first arm's path, value on the other] (Step::Phi).
                    let single = |l: Id| {
                        let i = *index.get(&l)?;
                        let (last, rest) = f.blocks[i].instructions.split_last()?;
                        (last.opcode == Op::Branch && op_id(last, 0).ok()? == m).then_some((i, rest))
                    };
                    let shape = match (t == m, e == m) {
                        (false, true) => Some((t, None, false)),
                        (true, false) => Some((e, None, true)),
                        (false, false) if t != e => Some((t, Some(e), false)),
                        _ => None,
                    };
                    if let Some((first, second, negate)) = shape {
                        let spec = |arm: &(usize, &[Instruction])| arm.1.iter().all(|i| speculatable(cx, i));
                        let computes = |l: Id| single(l).is_some_and(|a| spec(&a));
                        if !(computes(first) && second.is_none_or(computes)) {
                            let marker = |operands: Vec<Operand>, opcode: Op| Instruction {
                                opcode,
                                result_type: None,
                                result_id: None,
                                operands,
                                offset: inst.offset,
                            };
                            out.push(marker(
                                vec![Operand::IdRef(c), Operand::LiteralBit32(negate as u32)],
                                Op::BranchConditional,
                            ));
                            // Each arm up to the merge (the block it comes from there).
                            let mut last = Vec::new();
                            for (k, arm) in [Some(first), second].into_iter().flatten().enumerate() {
                                if k == 1 {
                                    out.push(marker(vec![Operand::LiteralBit32(1)], Op::Branch));
                                }
                                match walk(cx, f, index, out, seen, *index.get(&arm)?, Some(m))? {
                                    End::Merge(from) => last.push(from),
                                    _ => return None,
                                }
                            }
                            out.push(marker(vec![], Op::Branch));
                            let mi = *index.get(&m)?;
                            let other = if second.is_some() { *last.get(1)? } else { blk.label };
                            let first_end = *last.first()?;
                            for phi in f.blocks[mi].instructions.iter().filter(|i| i.opcode == Op::Phi) {
                                if phi.operands.len() != 4 {
                                    return None;
                                }
                                let pick = |pred: Id| {
                                    phi.operands.chunks(2).find_map(|pair| match pair {
                                        [Operand::IdRef(v), Operand::IdRef(p)] if *p == pred => Some(*v),
                                        _ => None,
                                    })
                                };
                                out.push(Instruction {
                                    opcode: Op::Phi,
                                    result_type: phi.result_type,
                                    result_id: phi.result_id,
                                    operands: vec![Operand::IdRef(pick(first_end)?), Operand::IdRef(pick(other)?)],
                                    offset: phi.offset,
                                });
                            }
                            phis_done = true;
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
                    phis_done = false;
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

/// A loop from block `l` (`index`: block index by label): a chain of blocks, each going on to
/// the next (unconditionally, or conditionally with the other side the loop's one exit
/// block), the last one (the latch) back to `l` or to the exit. Gives the chain's block
/// indexes and the exit's label; `None` for any other shape.
fn chain_loop(f: &Function, index: &HashMap<Id, usize>, l: Id) -> Option<(Vec<usize>, Id)> {
    let targets = |bi: usize| -> Option<(Option<Id>, Id, Option<Id>)> {
        let last = f.blocks[bi].instructions.last()?;
        match last.opcode {
            Op::Branch => Some((None, op_id(last, 0).ok()?, None)),
            Op::BranchConditional => Some((
                Some(op_id(last, 0).ok()?),
                op_id(last, 1).ok()?,
                Some(op_id(last, 2).ok()?),
            )),
            _ => None,
        }
    };
    // The latch: the chain's one block with a conditional branch back to `l`; its other
    // side is the exit.
    let mut chain = Vec::new();
    let mut cur = l;
    let mut exits = Vec::new();
    loop {
        let bi = *index.get(&cur)?;
        if chain.contains(&bi) || chain.len() > 32 {
            return None;
        }
        if !chain.is_empty() && f.blocks[bi].instructions.iter().any(|i| i.opcode == Op::Phi) {
            return None;
        }
        chain.push(bi);
        match targets(bi)? {
            (None, t, _) if t == l => return None,
            (None, t, _) => cur = t,
            (Some(_), a, Some(b)) if a == l || b == l => {
                let exit = if a == l { b } else { a };
                if exit == l || exits.iter().any(|e| *e != exit) {
                    return None;
                }
                return Some((chain, exit));
            }
            (Some(_), a, Some(b)) => {
                // One side leaves (to the block the latch leaves to), the other goes on: the
                // one that leads back to `l`.
                // Whether the loop's head can be reached from `t` (a bounded search).
                let on = |t: Id| {
                    let mut stack = vec![t];
                    let mut visited = HashSet::new();
                    while let Some(c) = stack.pop() {
                        if c == l {
                            return true;
                        }
                        if !visited.insert(c) || visited.len() > 64 {
                            continue;
                        }
                        if let Some((_, x, y)) = index.get(&c).and_then(|i| targets(*i)) {
                            stack.push(x);
                            stack.extend(y);
                        }
                    }
                    false
                };
                let (next, exit) = match (on(a), on(b)) {
                    (true, false) => (a, b),
                    (false, true) => (b, a),
                    _ => return None,
                };
                exits.push(exit);
                cur = next;
            }
            _ => return None,
        }
    }
}

/// The markers and instructions of loop `chain` (block indexes, the first its head) entered
/// from block `pre` (behind guard `(condition, negate)` in block `gpre`, if any) that leaves to block `exit`:
/// a head marker (OpLoopMerge [0, negate, guard]), the head's phis as [entry value, value from
/// the latch], the blocks' instructions with a marker for each test in the middle
/// (OpLoopMerge [2, negate, condition]: the work-items leave when the condition holds, is
/// false if `negate`), an end marker (OpLoopMerge [1, again, condition]: round again when the
/// condition is `again`), then the exit block's phis as [value from each exiting block in
/// the chain's order, value from the guard] (the last only with a guard).
#[allow(clippy::too_many_arguments)]
fn loop_steps(
    cx: &Ctx,
    f: &Function,
    out: &mut Vec<Instruction>,
    seen: &mut [bool],
    guard: Option<(Id, bool)>,
    [pre, gpre]: [Id; 2],
    chain: &[usize],
    exit: Id,
) -> Option<()> {
    let (&li, _) = chain.split_first()?;
    let &latch = chain.last()?;
    let lb = &f.blocks[li];
    let marker = |operands: Vec<Operand>| Instruction {
        opcode: Op::LoopMerge,
        result_type: None,
        result_id: None,
        operands,
        offset: lb.offset,
    };
    let pick = |phi: &Instruction, pred: Id| {
        phi.operands.chunks(2).find_map(|pair| match pair {
            [Operand::IdRef(v), Operand::IdRef(p)] if *p == pred => Some(*v),
            _ => None,
        })
    };
    let mut head = vec![Operand::LiteralBit32(0)];
    if let Some((c, negate)) = guard {
        head.extend([Operand::LiteralBit32(negate as u32), Operand::IdRef(c)]);
    }
    out.push(marker(head));
    for phi in lb.instructions.iter().filter(|i| i.opcode == Op::Phi) {
        if phi.operands.len() != 4 {
            return None;
        }
        let mut p = phi.clone();
        p.operands = vec![
            Operand::IdRef(pick(phi, pre)?),
            Operand::IdRef(pick(phi, f.blocks[latch].label)?),
        ];
        out.push(p);
    }
    let mut exiting = Vec::new();
    for &bi in chain {
        if std::mem::replace(seen.get_mut(bi)?, true) {
            return None;
        }
        let blk = &f.blocks[bi];
        let (last, rest) = blk.instructions.split_last()?;
        for inst in rest {
            match inst.opcode {
                Op::Phi | Op::Nop | Op::Line | Op::NoLine | Op::LoopMerge | Op::SelectionMerge => {}
                _ if is_barrier(cx, inst) => return None,
                _ => out.push(inst.clone()),
            }
        }
        if last.opcode != Op::BranchConditional {
            continue;
        }
        let (c, a) = (op_id(last, 0).ok()?, op_id(last, 1).ok()?);
        exiting.push(blk.label);
        if bi == latch {
            // Round again when the condition is true if its true side is the head.
            out.push(marker(vec![
                Operand::LiteralBit32(1),
                Operand::LiteralBit32((a == lb.label) as u32),
                Operand::IdRef(c),
            ]));
        } else {
            // Leave when the condition is true if its true side is the exit.
            out.push(marker(vec![
                Operand::LiteralBit32(2),
                Operand::LiteralBit32((a != exit) as u32),
                Operand::IdRef(c),
            ]));
        }
    }
    let index = f.blocks.iter().position(|b| b.label == exit)?;
    let preds = 2 * (exiting.len() + usize::from(guard.is_some()));
    for phi in f.blocks[index].instructions.iter().filter(|i| i.opcode == Op::Phi) {
        if phi.operands.len() != preds {
            return None;
        }
        let mut p = phi.clone();
        p.operands = exiting
            .iter()
            .map(|e| pick(phi, *e).map(Operand::IdRef))
            .collect::<Option<_>>()?;
        if guard.is_some() {
            p.operands.push(Operand::IdRef(pick(phi, gpre)?));
        }
        out.push(p);
    }
    Some(())
}

/// Whether `inst` may run although the work-item would not have run it: a computation without
/// memory access or other effect (integer division cannot trap in Clift's code).
pub(super) fn speculatable(cx: &Ctx, inst: &Instruction) -> bool {
    match inst.opcode {
        Op::Nop | Op::Line | Op::NoLine => true,
        Op::Load | Op::Store => false,
        // Built-in functions without memory access or other effect (no trap either: Clift's
        // math library returns a value for every input).
        Op::ExtInst => ext_name(cx, inst).is_some_and(|n| {
            !(n.starts_with("vstore")
                || n.starts_with("vload")
                || matches!(n.as_str(), "printf" | "prefetch")
                || ext_writes_through_pointer(&n))
        }),
        op => pure(op),
    }
}

/// The step and result class of one instruction (`None`: not vectorizable): its four-lane
/// form where it has one, else the scalar translation lane by lane.
fn classify(
    cx: &Ctx,
    tys: &Types,
    defs: &HashMap<Id, &Instruction>,
    inst: &Instruction,
    ids: &[Id],
    cls: &dyn Fn(&Id) -> Class,
    all_uniform: bool,
) -> Option<(Step, Option<Class>)> {
    super::image::classify(cx, tys, inst, ids, cls)
        .or_else(|| classify_vmem(cx, tys, inst, ids, cls))
        .or_else(|| classify_vector(cx, tys, defs, inst, ids, cls, all_uniform))
        .or_else(|| by_lanes(cx, tys, inst, ids, cls))
}

/// The vector data loads and stores (`vloadn`, `vstore_half`...): uniform when every operand
/// is (the scalar translation, once), else Step::Vector (`emit::vmem`) with the offset and
/// pointer (and a stored value) of any class the lanes can be had of.
fn classify_vmem(
    cx: &Ctx,
    tys: &Types,
    inst: &Instruction,
    ids: &[Id],
    cls: &dyn Fn(&Id) -> Class,
) -> Option<(Step, Option<Class>)> {
    if inst.opcode != Op::ExtInst {
        return None;
    }
    let name = ext_name(cx, inst)?;
    let load = name.starts_with("vload");
    if !load && !name.starts_with("vstore") {
        return None;
    }
    // After the instruction set: (the data,) the offset and the pointer; a rounding mode
    // after them is a literal.
    let args = ids.get(1..if load { 3 } else { 4 })?;
    if args.iter().all(|x| cls(x) == Class::Uniform) {
        return Some((Step::Scalar, load.then_some(Class::Uniform)));
    }
    for x in args {
        match cls(x) {
            Class::Uniform => {}
            Class::Affine(_) | Class::Varying => {
                rep(cx, value_type(cx, tys, *x)?)?;
            }
            _ => return None,
        }
    }
    if load {
        rep(cx, inst.result_type?)?;
        Some((Step::Vector, Some(Class::Varying)))
    } else {
        Some((Step::Vector, None))
    }
}

/// Step::Lanes for a computation without effects on single scalars (of any width), every
/// operand uniform, affine or varying.
fn by_lanes(
    cx: &Ctx,
    tys: &Types,
    inst: &Instruction,
    ids: &[Id],
    cls: &dyn Fn(&Id) -> Class,
) -> Option<(Step, Option<Class>)> {
    use Op::*;
    let op = inst.opcode;
    let ok = match op {
        Load | Store | Variable | CompositeExtract | CompositeInsert | CompositeConstruct | VectorShuffle
        | VectorExtractDynamic | VectorInsertDynamic => false,
        // Built-in functions that neither touch memory nor have an effect, and those that
        // store through a pointer operand (run under the execution mask, as atomics).
        ExtInst => ext_name(cx, inst).is_some_and(|n| {
            !(n.starts_with("vstore") || n.starts_with("vload") || matches!(n.as_str(), "printf" | "prefetch"))
        }),
        op => pure(op),
    };
    if !ok || inst.result_id.is_none() {
        return None;
    }
    rep(cx, inst.result_type?)?;
    // An OpExtInst's first operand is its instruction set, not a value.
    let skip = usize::from(op == ExtInst);
    for x in ids.iter().skip(skip) {
        match cls(x) {
            Class::Uniform => {}
            Class::Affine(_) | Class::Varying | Class::Monotone => {
                rep(cx, value_type(cx, tys, *x)?)?;
            }
            Class::IdX3 => return None,
        }
    }
    Some((Step::Lanes, Some(Class::Varying)))
}

/// The four-lane step and result class of one instruction (`None`: it has none).
fn classify_vector(
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
    // An 8- or 16-bit integer result (32-bit lanes, low bits valid): the operations that wrap.
    let small = rty.and_then(|t| super::small_int(cx, t)).is_some();
    let f64 = rty.is_some_and(|t| is_f64(cx, t));
    let c = |i: usize| ids.get(i).map(cls);
    let id = |k: usize| ids.get(k).copied();
    let op = inst.opcode;
    // Decorated conversions (rounding modes, saturation) stay scalar unless uniform.
    let decorated = inst
        .result_id
        .is_some_and(|r| cx.rounding.contains_key(&r) || cx.saturated.contains(&r));
    // Values of OpenCL vector type (structure of arrays).
    let skip = usize::from(op == Op::ExtInst);
    let vector_operand = ids
        .iter()
        .skip(skip)
        .any(|x| cls(x) != Uniform && value_type(cx, tys, *x).is_some_and(|t| soa(cx, t).is_some()));
    let vector_result = rty.is_some_and(|t| soa(cx, t).is_some());
    if super::cfg::is_case_eq(inst) {
        let sel = *ids.first()?;
        int_bits(cx, value_type(cx, tys, sel)?)?;
        return match cls(&sel) {
            Uniform => Some((Step::CaseEq, Some(Uniform))),
            Affine(_) | Varying => Some((Step::CaseEq, Some(Varying))),
            _ => None,
        };
    }
    // (The casts between a named address space and the generic one keep the address.)
    if matches!(op, Op::CopyObject | Op::PtrCastToGeneric | Op::GenericCastToPtr) && !all_uniform {
        let x = *ids.first()?;
        return match cls(&x) {
            Affine(s) => Some((Step::Scalar, Some(Affine(s)))),
            Varying => Some((Step::Vector, Some(Varying))),
            _ => None,
        };
    }
    if !all_uniform && !matches!(op, Op::Load | Op::Store) && (vector_operand || vector_result) {
        return classify_soa(cx, tys, inst, ids, cls, decorated);
    }
    match op {
        Op::Load => {
            let p = *ids.first()?;
            if let Some(bi) = cx.builtins.get(&p) {
                if !crate::codegen::uniform::direct_builtin(cx, p, rty?) {
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
                // Four lanes of a single scalar: a vector load or lane by lane.
                Affine(_) | Varying if rep(cx, rty?).is_some() => Some((Step::Vector, Some(Varying))),
                _ => None,
            }
        }
        Op::Store => {
            let (p, v) = (*ids.first()?, *ids.get(1)?);
            let vty = value_type(cx, tys, v)?;
            match (cls(&p), cls(&v)) {
                (Uniform, Uniform) => Some((Step::Scalar, None)),
                (Uniform | Affine(_) | Varying, Uniform | Affine(_) | Varying) if rep(cx, vty).is_some() => {
                    Some((Step::Vector, None))
                }
                _ => None,
            }
        }
        Op::ExtInst => {
            let name = ext_name(cx, inst)?;
            if all_uniform {
                // Everything but the instructions with effects (stores, printf).
                let effect = name.starts_with("vstore")
                    || matches!(name.as_str(), "printf" | "prefetch")
                    || ext_writes_through_pointer(&name);
                return (!effect && rty.is_some()).then_some((Step::Scalar, Some(Uniform)));
            }
            let rt = rty.and_then(|t| scalar32(cx, t));
            let base = base_name(&name);
            // The scalar `select(a, b, c)` of 32-bit values: `c` a 32-bit integer.
            let select = base == "select"
                && ids
                    .get(3)
                    .and_then(|c| value_type(cx, tys, *c))
                    .and_then(|t| scalar32(cx, t))
                    == Some(types::I32);
            let known = select
                || match rt {
                    Some(types::F32) => {
                        VECTOR_EXT_F32.contains(&base)
                            || matches!(base, "fmax_common" | "ldexp")
                            || mathfn::common::known(base)
                            || mathfn::known(base)
                            || mathfn::known2(base)
                    }
                    // ilogb of a float (of a double it is not four 32-bit lanes).
                    Some(types::I32) => {
                        VECTOR_EXT_I32.contains(&base)
                            || super::integer::known(base)
                            || (base == "ilogb"
                                && ids
                                    .get(1)
                                    .and_then(|a| value_type(cx, tys, *a))
                                    .and_then(|t| scalar32(cx, t))
                                    == Some(types::F32))
                    }
                    // 8- and 16-bit integers (the low bits of 32-bit lanes).
                    None if rty.and_then(|t| super::small_int(cx, t)).is_some() => super::integer::known_small(base),
                    // Doubles (`Rep::Pair`): the inline functions that are one IEEE operation.
                    _ => {
                        rty.is_some_and(|t| is_f64(cx, t))
                            && (VECTOR_EXT_F64.contains(&base)
                                || mathfn::known_f64(base)
                                || mathfn::common::known(base))
                    }
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
        // The other tests of floats, four lanes on their bits or by one comparison.
        Op::IsInf | Op::IsFinite | Op::IsNormal | Op::SignBitSet | Op::Ordered | Op::Unordered | Op::LessOrGreater
            if !all_uniform =>
        {
            (scalar32(cx, value_type(cx, tys, id(0)?)?)? == types::F32).then_some(())?;
            let args: Vec<Class> = (0..ids.len()).map(&c).collect::<Option<_>>()?;
            mask_op(&args)
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
                // (Either operand's type: a uniform one the region's prefix computed has none
                // here.)
                && [0, 1]
                    .iter()
                    .find_map(|&k| value_type(cx, tys, id(k)?))
                    .and_then(|t| int_bits(cx, t))
                    .is_some_and(|b| b == 32 || b == 64) =>
        {
            Some((Step::Deferred, Some(Monotone)))
        }
        // A 64-bit affine value (`lid == 0` on size_t) against a uniform one: holds in at most
        // one lane, which one follows from their difference (no lane by lane comparisons).
        Op::IEqual | Op::INotEqual
            if matches!((c(0)?, c(1)?), (Affine(s), Uniform) | (Uniform, Affine(s)) if s != 0 && s.abs() < 1 << 28)
                && [0, 1]
                    .iter()
                    .find_map(|&k| value_type(cx, tys, id(k)?))
                    .and_then(|t| int_bits(cx, t))
                    == Some(64) =>
        {
            Some((Step::Vector, Some(Varying)))
        }
        _ if is_compare(op) && !all_uniform => {
            // Four lanes of 32-bit operands give a mask (all ones where true).
            let t = value_type(cx, tys, id(0)?)?;
            scalar32(cx, t).or_else(|| super::small_int(cx, t))?;
            mask_op(&[c(0)?, c(1)?])
        }
        Op::LogicalAnd | Op::LogicalOr | Op::LogicalEqual | Op::LogicalNotEqual | Op::LogicalNot if !all_uniform => {
            let args: Vec<Class> = (0..ids.len()).map(&c).collect::<Option<_>>()?;
            mask_op(&args)
        }
        Op::Select if !all_uniform => {
            // A mask or a uniform condition choosing between 32-bit values, or between masks
            // (what `a || b` and `a && b` become).
            if rty.is_some_and(|t| is_bool(cx, t)) {
                return mask_op(&[c(0)?, c(1)?, c(2)?]);
            }
            if !v32 && !small {
                return None;
            }
            let cond = match c(0)? {
                Monotone => Varying,
                k => k,
            };
            vector_op(true, &[cond, c(1)?, c(2)?], false)
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
        Op::PtrAccessChain | Op::InBoundsPtrAccessChain | Op::AccessChain | Op::InBoundsAccessChain => {
            // An affine base with uniform indexes, or a uniform base with one index affine (a
            // row of a `__local` 2D array: `t[ty][tx]`): an affine address.
            let with_element = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
            let varying: Vec<usize> = (1..ids.len()).filter(|k| c(*k) != Some(Uniform)).collect();
            let k = match (c(0)?, varying.as_slice()) {
                (Affine(s), []) => return Some((Step::Scalar, Some(Affine(s)))),
                (Uniform, [k]) => *k,
                _ => return None,
            };
            let Affine(s) = c(k)? else { return None };
            // (A program-scope variable's entry is its pointee type.)
            let mut cur = match cx.globals.get(&id(0)?) {
                Some((pointee, _)) => *pointee,
                None => match cx.layout.get(value_type(cx, tys, id(0)?)?).ok()?.ty {
                    Ty::Pointer(_, p) => p,
                    _ => return None,
                },
            };
            // The stride of index k: walk the types down to its level.
            let mut elem = None;
            let mut pos = 1;
            if with_element {
                let info = cx.layout.get(cur).ok()?;
                if k == 1 {
                    elem = Some(match info.ty {
                        Ty::Array(..) => info.size,
                        _ => round_up(info.size, info.align),
                    });
                }
                pos = 2;
            }
            while elem.is_none() && pos < ids.len() {
                let info = cx.layout.get(cur).ok()?;
                match &info.ty {
                    Ty::Struct(ms) if pos != k => cur = *ms.get(usize::try_from(const_int(cx, id(pos)?)?).ok()?)?,
                    Ty::Array(e, _) => {
                        if pos == k {
                            elem = Some(info.stride);
                        }
                        cur = *e;
                    }
                    Ty::Vector(..) => {
                        if pos == k {
                            elem = Some(info.stride);
                        }
                        cur = info.elem;
                    }
                    _ => return None,
                }
                pos += 1;
            }
            let stride = s.checked_mul(i64::try_from(elem?).ok()?)?;
            let step = match int_bits(cx, value_type(cx, tys, id(k)?)?)? {
                64 => Step::Scalar,
                32 => Step::ScalarGuarded(Guard::Extend {
                    operand: k,
                    signed: true,
                }),
                _ => return None,
            };
            Some((step, Some(Affine(stride))))
        }
        Op::IAdd | Op::ISub | Op::IMul | Op::ShiftLeftLogical => {
            let (a, b) = (c(0)?, c(1)?);
            let bits = int_bits(cx, rty?)?;
            // (No 8- or 16-bit value is affine: its lanes wrap.)
            let aff = match (op, a, b) {
                _ if small => None,
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
            vector_op(v32 || small, &[a, b], op == Op::ShiftLeftLogical)
        }
        Op::UDiv | Op::SDiv | Op::UMod | Op::SRem if rty.and_then(|t| int_bits(cx, t)) == Some(32) => {
            // Four lanes at once (`divide`): by a nonzero constant its reciprocal, by anything
            // else through doubles.
            vector_op(v32, &[c(0)?, c(1)?], false)
        }
        Op::SNegate => match c(0)? {
            Affine(x) if x.abs() < 1 << 28 && !small => Some((Step::Scalar, Some(Affine(-x)))),
            a => vector_op(v32 || small, &[a], false),
        },
        // Between 8-, 16- and 32-bit integers, one narrower than its lanes: extended from the
        // low bits or narrowed by keeping them.
        Op::UConvert | Op::SConvert
            if !decorated
                && !matches!(c(0)?, Affine(_))
                && [value_type(cx, tys, id(0)?)?, rty?]
                    .iter()
                    .all(|t| matches!(int_bits(cx, *t), Some(8 | 16 | 32)))
                && (small || super::small_int(cx, value_type(cx, tys, id(0)?)?).is_some()) =>
        {
            vector_op(true, &[c(0)?], false)
        }
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
            vector_op(v32 || small, &[c(0)?, c(1)?], true)
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
            vector_op(v32 || small, &[c(0)?, c(1)?], false)
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
        Op::BitwiseAnd if rty.and_then(|t| int_bits(cx, t)) == Some(64) => {
            // A 64-bit affine value and 2^k - 1 (how compilers write `(ulong)(uint)x`): the
            // low k bits, affine as long as no lane wraps around in them.
            for (a, k) in [(0, 1), (1, 0)] {
                if let (Some(Affine(s)), Some(m)) = (c(a), id(k).and_then(|x| const_int(cx, x))) {
                    let bits = 64 - m.leading_zeros();
                    if m > 0 && m.count_ones() == bits && bits < 64 {
                        let guard = Guard::Wrap {
                            shift: 64 - bits,
                            signed: false,
                        };
                        return Some((Step::ScalarGuarded(guard), Some(Affine(s))));
                    }
                }
            }
            None
        }
        // (Doubles as two two-lane vectors, `Rep::Pair`.)
        Op::FAdd | Op::FSub | Op::FMul | Op::FDiv => vector_op(v32 || f64, &[c(0)?, c(1)?], false),
        Op::BitwiseAnd | Op::BitwiseXor => vector_op(v32 || small, &[c(0)?, c(1)?], false),
        Op::FNegate => vector_op(v32 || f64, &[c(0)?], false),
        Op::Not => vector_op(v32 || small, &[c(0)?], false),
        Op::Bitcast => {
            scalar32(cx, value_type(cx, tys, id(0)?)?)?;
            vector_op(v32, &[c(0)?], false)
        }
        Op::ConvertFToS | Op::ConvertFToU => {
            // f32 -> 8-, 16- or 32-bit integer, in any rounding mode, saturated or not (Clift
            // saturates every one; NaN to 0): the four-lane form of the scalar translation's
            // conversion (`emit::simd_float_to_int`).
            let from = scalar32(cx, value_type(cx, tys, id(0)?)?)?;
            let to = int_bits(cx, rty?)?;
            (from == types::F32 && matches!(to, 8 | 16 | 32))
                .then_some(())
                .and_then(|_| vector_op(true, &[c(0)?], false))
        }
        Op::ConvertSToF | Op::ConvertUToF if !decorated => {
            // 8-, 16- or 32-bit integer -> f32 (rounding to nearest, as the scalar
            // translation does; exact from the narrower ones).
            let from = int_bits(cx, value_type(cx, tys, id(0)?)?)?;
            let to = scalar32(cx, rty?)?;
            (matches!(from, 8 | 16 | 32) && to == types::F32)
                .then_some(())
                .and_then(|_| vector_op(true, &[c(0)?], false))
        }
        _ => None,
    }
}

/// The component count of a value of type `ty` held as structure of arrays.
fn soa(cx: &Ctx, ty: Id) -> Option<usize> {
    match rep(cx, ty)? {
        super::Rep::Soa(_, n) => Some(n),
        _ => None,
    }
}

/// The OpenCL.std functions the vector loop computes component by component on vectors
/// (besides [`VECTOR_EXT_F32`] and [`VECTOR_EXT_I32`]).
const VECTOR_EXT_SOA_I32: [&str; 3] = ["bitselect", "rotate", "select"];
/// `select` of vectors picks by each component's most significant bit (OpenCL C 6.15.6), of
/// scalars by the condition being non-zero: only the vector form is component by component.
const VECTOR_EXT_SOA_F32: [&str; 1] = ["select"];

/// The step and class of an operation on values of OpenCL vector type (`None`: none of its
/// own; the scalar translation lane by lane may take it).
fn classify_soa(
    cx: &Ctx,
    tys: &Types,
    inst: &Instruction,
    ids: &[Id],
    cls: &dyn Fn(&Id) -> Class,
    decorated: bool,
) -> Option<(Step, Option<Class>)> {
    use Class::*;
    let op = inst.opcode;
    let rty = inst.result_type?;
    let vector = Some((Step::Vector, Some(Varying)));
    // A 32-bit scalar (any class but a three-component id) or a vector of 32-bit values
    // (uniform or varying).
    let operand_ok = |x: &Id| {
        let Some(t) = value_type(cx, tys, *x) else { return false };
        // (An 8- or 16-bit scalar is a component of a narrow vector, a bool one of a vector
        // of booleans.)
        let narrow_scalar = matches!(int_bits(cx, t), Some(8 | 16)) || is_bool(cx, t);
        match cls(x) {
            IdX3 => false,
            Uniform | Varying => soa(cx, t).is_some() || scalar32(cx, t).is_some() || narrow_scalar,
            Affine(_) | Monotone => scalar32(cx, t).is_some(),
        }
    };
    let n = soa(cx, rty);
    let leaf = cx.layout.get(rty).ok()?.leaves.first().copied();
    match op {
        Op::CompositeExtract => {
            let c = *ids.first()?;
            soa(cx, value_type(cx, tys, c)?)?;
            matches!(inst.operands.get(1..)?, [Operand::LiteralBit32(_)]).then_some(())?;
            vector
        }
        Op::CompositeInsert => {
            n?;
            matches!(inst.operands.get(2..)?, [Operand::LiteralBit32(_)]).then_some(())?;
            ids.iter().all(operand_ok).then_some(())?;
            vector
        }
        Op::CompositeConstruct | Op::VectorShuffle => {
            n?;
            ids.iter().all(operand_ok).then_some(())?;
            vector
        }
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::FAdd
        | Op::FSub
        | Op::FMul
        | Op::FDiv
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::FNegate
        | Op::SNegate
        | Op::Not => {
            let n = n?;
            ids.iter()
                .all(|x| operand_ok(x) && value_type(cx, tys, *x).and_then(|t| soa(cx, t)) == Some(n))
                .then_some(())?;
            vector
        }
        Op::VectorTimesScalar => {
            // A float vector times a float scalar (uniform, affine or varying).
            let n = n?;
            let (x, k) = (*ids.first()?, *ids.get(1)?);
            (leaf == Some(types::F32)
                && operand_ok(&x)
                && operand_ok(&k)
                && value_type(cx, tys, x).and_then(|t| soa(cx, t)) == Some(n)
                && value_type(cx, tys, k).and_then(|t| scalar32(cx, t)).is_some())
            .then_some(())?;
            vector
        }
        // (A rounding mode or saturation on a float-to-integer conversion: rounded first,
        // every one saturates.)
        Op::Bitcast
        | Op::ConvertSToF
        | Op::ConvertUToF
        | Op::ConvertFToS
        | Op::ConvertFToU
        | Op::SConvert
        | Op::UConvert
            if !decorated || matches!(op, Op::ConvertFToS | Op::ConvertFToU) =>
        {
            let n = n?;
            let x = *ids.first()?;
            let t = value_type(cx, tys, x)?;
            (operand_ok(&x) && soa(cx, t) == Some(n)).then_some(())?;
            let from = cx.layout.get(t).ok()?.leaves.first().copied();
            let int = |t: Option<Type>| matches!(t, Some(types::I8 | types::I16 | types::I32));
            match op {
                Op::Bitcast => {}
                // f32 -> 8-, 16- or 32-bit integers.
                Op::ConvertFToS | Op::ConvertFToU => (from == Some(types::F32) && int(leaf)).then_some(())?,
                // Between 8-, 16- and 32-bit integer vectors, one of them narrow: extended
                // from the low bits, or the low bits kept.
                Op::SConvert | Op::UConvert => {
                    (int(from) && int(leaf) && (super::narrow(cx, t).is_some() || super::narrow(cx, rty).is_some()))
                        .then_some(())?
                }
                // 8-, 16- or 32-bit integers -> f32.
                _ => (int(from) && leaf == Some(types::F32)).then_some(())?,
            }
            vector
        }
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
            let n = n?;
            let (x, k) = (*ids.first()?, *ids.get(1)?);
            (operand_ok(&x) && value_type(cx, tys, x).and_then(|t| soa(cx, t)) == Some(n) && cls(&k) == Uniform)
                .then_some(())?;
            vector
        }
        // Comparisons of vectors component by component (vectors of booleans), and the
        // logical operations on them.
        op if is_mask_op(op) => {
            let n = n?;
            super::is_bool_vector(cx, rty).then_some(())?;
            ids.iter()
                .all(|x| operand_ok(x) && value_type(cx, tys, *x).and_then(|t| soa(cx, t)) == Some(n))
                .then_some(())?;
            vector
        }
        // Whether any or all components of a vector of booleans hold: a scalar mask.
        Op::Any | Op::All => {
            let x = *ids.first()?;
            (operand_ok(&x) && value_type(cx, tys, x).is_some_and(|t| super::is_bool_vector(cx, t))).then_some(())?;
            vector
        }
        Op::Select => {
            let n = n?;
            let c = *ids.first()?;
            // A scalar condition (a mask or a uniform bool) for the whole vector, or a vector
            // of booleans component by component.
            let ct = value_type(cx, tys, c)?;
            let per_component = super::is_bool_vector(cx, ct) && soa(cx, ct) == Some(n) && operand_ok(&c);
            ((is_bool(cx, ct) || per_component) && cls(&c) != IdX3).then_some(())?;
            ids[1..]
                .iter()
                .all(|x| operand_ok(x) && value_type(cx, tys, *x).and_then(|t| soa(cx, t)) == Some(n))
                .then_some(())?;
            vector
        }
        // On whole float vectors: OpDot and the geometric functions (scalar results for
        // `dot`, `length` and `distance`), each operand a vector of the same size.
        Op::Dot | Op::ExtInst
            if op == Op::Dot || ext_name(cx, inst).is_some_and(|nm| mathfn::geometric::known(base_name(&nm))) =>
        {
            let skip = usize::from(op == Op::ExtInst);
            let x = *ids.get(skip)?;
            let m = soa(cx, value_type(cx, tys, x)?)?;
            let f32_vector = |t: Id| {
                soa(cx, t) == Some(m)
                    && cx.layout.get(t).ok().and_then(|l| l.leaves.first().copied()) == Some(types::F32)
            };
            ids.iter()
                .skip(skip)
                .all(|x| operand_ok(x) && value_type(cx, tys, *x).is_some_and(f32_vector))
                .then_some(())?;
            (scalar32(cx, rty) == Some(types::F32) || f32_vector(rty)).then_some(())?;
            vector
        }
        Op::ExtInst => {
            let n = n?;
            let name = ext_name(cx, inst)?;
            let b = base_name(&name);
            let known = match leaf? {
                types::F32 => {
                    VECTOR_EXT_F32.contains(&b)
                        || b == "fmax_common"
                        || VECTOR_EXT_SOA_F32.contains(&b)
                        || mathfn::common::known(b)
                        || mathfn::known(b)
                }
                types::I32 => {
                    VECTOR_EXT_I32.contains(&b) || VECTOR_EXT_SOA_I32.contains(&b) || super::integer::known(b)
                }
                // Narrow components (`simd::narrow`): extended, computed in 32 bits.
                types::I8 | types::I16 => super::integer::known_small(b),
                _ => false,
            };
            known.then_some(())?;
            for (i, x) in ids.iter().enumerate().skip(1) {
                let t = value_type(cx, tys, *x)?;
                let ok = if b == "rotate" && i == 2 {
                    cls(x) == Uniform
                } else {
                    operand_ok(x) && soa(cx, t).is_none_or(|m| m == n)
                };
                ok.then_some(())?;
            }
            vector
        }
        _ => None,
    }
}

/// The name of an OpenCL.std extended instruction.
pub(super) fn ext_name(cx: &Ctx, inst: &Instruction) -> Option<String> {
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
    // (A Monotone comparison becomes a mask where one is needed.)
    if ops.contains(&Class::IdX3) {
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
