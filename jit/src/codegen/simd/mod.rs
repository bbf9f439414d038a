//! SIMD across work-items: a kernel body that is straight-line code runs four consecutive
//! work-items of a row (x) at once, each 32-bit value a four-lane vector. So does the code of a
//! barrier region (`regions`): there the body ends at the next barrier, and values a work-item
//! keeps across barriers come in and go out lane by lane through the work-items' records
//! (`plan`'s inputs).
//!
//! Work-items of a group are unordered between barriers, and two work-items touching the same
//! memory without synchronization is a data race (undefined), so the four work-items' loads and
//! stores may be interleaved in any order as long as each work-item's own order is kept, which
//! straight-line vector code does. Atomics run lane by lane in lane order, each only for a
//! lane in the execution mask (an order the scalar loop could have run too). Calls and anything
//! else with a per-work-item effect keep the kernel on the scalar path.
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
//! A branch whose arms touch memory (`if (i < n) c[i] = ...`, an early return, a load in one
//! arm of `x > 0 ? in[i - 1] : c`, stores in both arms of an if-else) stays a branch (its arms
//! may hold branches of their own, below); the merge's phis are carried in variables. On a
//! bound (an ordered comparison of an affine and a uniform value, which changes at most once
//! across the lanes, so lanes 0 and 3 decide it) the four work-items take it together, and
//! when they disagree (the vector straddles `n`) they go to the scalar loop, which is possible
//! as long as nothing has been stored yet. On a test of data (`if (x > 0) o[i] = ...`, which
//! four work-items often disagree on), and on any test after a store, each arm that some lane
//! takes runs under the execution mask of its lanes (stores and loads touch memory only for
//! them) and the merge's phis select lane by lane.
//!
//! A loop (the rotated form compilers emit: a chain of blocks, each going on to the next or
//! leaving to the loop's one exit block, the last one going back to the first; behind a guard
//! or not) is taken whole. When its guard and tests hold or fail for all four work-items alike
//! (uniform), the four go round together. When a test differs between work-items (Mandelbrot's
//! `while (it < max && |z|² <= 4)`, a `break` on a loaded value, a per-work-item trip count),
//! the loop runs under an execution mask (`I32X4`, all ones in the lanes still in the loop)
//! until the last lane has left: each exit takes the leaving lanes out of the mask and keeps
//! their values of the exit block's phis (and of the loop's values used after it) by a select;
//! stores in the loop write only the lanes still in it, and loads read only theirs (both a
//! plain vector access when all four are in, lane by lane otherwise); the loop's phis are
//! carried in variables, each with the class of its value on entry unless the value from the
//! loop has another (then the plan is made again with that phi varying). A loop whose values
//! are used after it in a way the mask cannot keep instead sends four work-items that
//! disagree to the scalar loop, where nothing was stored yet.
//!
//! Values of OpenCL vector type are held one four-lane register per component: a loop that
//! carries four `float4`/`int4` values needs 16 registers and spills some, and still ran faster
//! than the scalar path's one register per value once the component-wise built-ins it calls
//! (`clamp`, `fmax`, vector `select`) had four-lane forms (`vec4`, measured).
//!
//! Doubles are held as two two-lane vectors (`Rep::Pair`: lanes 0-1 and 2-3, `F64X2`): a
//! load or store through an affine pointer of stride 8 is two 16-byte accesses, and `+ - * /`,
//! negation, `fma` and `mad` are two two-lane operations, bit for bit the scalar ones (each
//! lane rounded as the scalar instruction rounds). 8- and 16-bit integers (`uchar`, `short`) are
//! held in the low bits of 32-bit lanes (`small_int`). Other values that are not 32-bit
//! (size_t and long arithmetic, pointers, halves) are held as four scalars, one per lane
//! (`Rep::Quad`); operations without a four-lane form (64-bit arithmetic, divisions, built-in
//! calls, double comparisons and conversions) run the scalar translation once per lane
//! (Step::Lanes, on lanes taken out of the pairs and put back), so vector and scalar loops
//! compute bit-identical results.
//!
//! Values of OpenCL vector type with 32-bit components (`float4`, `uint4`, `float2`...) are
//! held as structure of arrays (`Rep::Soa`): one four-lane vector per component, lane `l` of
//! vector `k` being component `k` of work-item `l`. So are vectors of 8- and 16-bit integers
//! (`uchar4`, `short2`...), each component in the low bits of a 32-bit lane (`narrow`), and
//! vectors of booleans (vector comparisons' results), each component a lane mask. Component-wise operations, composites and
//! the inline built-ins work component by component; a `float4` load or store through a
//! per-work-item pointer is four 16-byte accesses and a 4x4 transpose; OpDot and the
//! geometric functions (`length`, `distance`, `normalize`, `cross`) of float vectors take the
//! four work-items' components at once (`normalize` in single precision, the others in double
//! precision two lanes at a time, as the scalar translation computes each work-item's);
//! anything else on vectors runs the scalar translation lane by lane (Step::Lanes). The vector
//! data functions (`vloadn`, `vstoren`, `vload_half`, `vstore_half` and their forms) move
//! each lane's group at its own offset in vector registers (`emit::vmem`), under an execution
//! mask lane by lane for the lanes in it. Casts to and from the generic address space keep the
//! pointer's class (clang passes generic pointers to the vector data functions).
//!
//! Before planning, `cfg` if-converts the body: branches and switches whose arms only compute
//! become selects, and blocks that only follow one another merge, so a loop whose body holds
//! such a switch is a single block. Private arrays get four copies side by side (the pointer
//! is affine with the array's size as stride).
//!
//! A load or store through an affine pointer whose stride is the element size is one vector
//! access; other strides gather or scatter lane by lane. Extending a 32-bit affine value to 64
//! bits is only affine while no lane wraps around: a run-time guard, checked before the body's
//! first store, sends the four work-items to the scalar loop when one would.
//!
//! A product of an affine value and a uniform one that is not a constant (`i * step` with the
//! step a kernel argument, as pyopencl's reductions and element-wise kernels index) is taken to
//! be the affine value itself under a guard that the uniform is 1 (`Guard::Unit`): the usual
//! call, on a contiguous array, then loads whole vectors. Where the guard fails (a strided
//! view, `A[row * n + k]` with n the row length), the work-items go on in a second vector body
//! planned without that guess (gathers, as before), not in the scalar loop; the kernel or
//! region carries both (`Plan::speculative`).
//!
//! Branches nest: an arm of a branch whose arms touch memory may hold branches of its own
//! (`if (i < n) { out[i] = x; if (x > 0) p[i] = ...; }`), each a Step::If ... Step::EndIf
//! inside its parent's arm, run all-or-none or under the mask of its lanes within the parent's.
//! Compilers end nested `if`s at one merge block; `merges` gives each branch a merge of its
//! own first.

//! Bodies that compute only with integers and keep 8- or 16-bit ones in memory (byte and
//! pixel kernels) run sixteen work-items per iteration instead (`emit::wide`): an 8-bit value is
//! one `I8X16`, a 16-bit value two `I16X8`, a 32-bit one four `I32X4`, so sixteen consecutive
//! bytes move in one 16-byte access.
//!
//! The lane shape is a parameter: one quad (four work-items) per vector iteration, or two
//! (eight: [`FnTx::simd_body2`], `CLIFT_SIMD_QUADS=1|2|auto`). With two, each varying value
//! has one set of registers per quad (quad `q`: the work-items `4q..4q+3` after the vector's
//! first), uniform values are computed once and shared, affine ones once too (quad 1's base is
//! quad 0's plus four strides; a guard checks all eight lanes), each quad has its own execution
//! mask and loop phis, and every instruction is emitted for quad 0 then for quad 1: the two
//! dependency chains are independent and the core overlaps them. A loop runs until neither
//! quad has a lane in it, a masked arm runs when a lane of either quad takes it; a branch the
//! eight must take alike sends them to the scalar loop when they do not. A row goes eight
//! work-items at a time, then four, then one. Two quads pay where a loop's rounds are short
//! chains of few values (Mandelbrot: 1.4x to 1.6x measured); they cost where registers run
//! out (`vec4`'s `float4` loop: 1.3x to 1.7x slower) and change nothing on memory-bound
//! straight-line kernels, so `auto` takes them only for a loop carrying one to six
//! one-register values with no per-lane code; bodies with private arrays, affine phis or
//! barriers (regions) run one quad.
//!
//! [`FnTx::simd_body2`]: crate::codegen::state::FnTx::simd_body2

mod cfg;
mod chains;
mod divide;
mod emit;
mod fold;
mod image;
mod integer;
mod merges;
mod plan;

pub(crate) use emit::{RowCut, Vecs, NO_NARROW_MEMORY, WIDE};
pub(crate) use plan::{plan, plan_live};

use super::context::Ctx;
use super::layout::{Id, Scalar, Ty};
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, Type};
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
    /// "Selector equals case literal" of an if-converted switch ([`cfg`]).
    CaseEq,
    /// A private (Function) variable: one copy per work-item, the four side by side (the
    /// pointer is affine with the variable's size as stride).
    Private,
    /// The scalar translation once per lane, on each lane's operands (64-bit integers,
    /// pointers, divisions, built-in calls: whatever has no four-lane form of its own).
    Lanes,
    /// Nothing yet: a Monotone comparison, evaluated by the Step::If that uses it.
    Deferred,
    /// The start of an arm taken by all four work-items or by none (`negate`: when the
    /// condition is false); four work-items that disagree go to the scalar loop.
    /// `masked`: the condition differs between work-items after a store, so each arm runs
    /// under the mask of its lanes (when any lane takes it) and the merge's phis select.
    If { negate: bool, masked: bool },
    /// The second arm of that branch (an if-else).
    Else,
    /// The end of the branch.
    EndIf,
    /// A phi of the branch's merge: `[value on the first arm's path, value on the other]`.
    Phi,
    /// The barrier that ends a barrier region's code (the caller saves and yields).
    Yield,
    /// The start of a loop (a chain of blocks); behind a guard (taken when its condition is
    /// false if `negate`) when the marker has one. `masked`: a test of the loop differs
    /// between work-items, so it runs under an execution mask until the last one has left
    /// (stores of the work-items that left are masked, their exit values kept).
    LoopHead { negate: bool, masked: bool },
    /// A test in the middle of the loop: the work-items for which it holds (is false if
    /// `negate`) leave.
    LoopExit { negate: bool },
    /// A phi of that loop: `[value on entry, value from the loop]`.
    LoopPhi,
    /// The loop's test: round again when the condition holds (is false if `negate`).
    LoopEnd { negate: bool },
    /// A phi of the loop's exit block: `[value from each exit in order (the end's last),
    /// value from the guard]`.
    LoopExitPhi,
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
    /// Operand `operand` (a uniform integer, not a constant) is 1, so the product of an affine
    /// value and it is that value (speculated, [`Plan::speculative`]). When it fails, the
    /// work-items go to the body planned without the speculation (`spec_bail`), where there
    /// is one, rather than to the scalar loop.
    Unit { operand: usize },
}

/// The vector plan of a kernel body.
pub(crate) struct Plan {
    steps: Vec<(Instruction, Step)>,
    class: HashMap<Id, Class>,
    /// The comparisons of Monotone values.
    monotone: HashMap<Id, Instruction>,
    /// Where the body ends at a barrier (block label, instruction index), if it does.
    pub yield_at: Option<(Id, usize)>,
    /// The types of the body's values (instruction results and parameters).
    tys: HashMap<Id, Id>,
    /// The values of a masked loop (by its Step::LoopEnd's index) used after it other than
    /// through its exit phis: their lanes are kept as each work-item leaves.
    live_outs: HashMap<usize, Vec<Id>>,
    /// Values of loops used after them, renamed to the exit phis `plan` gave them: a value kept
    /// across the barrier that ends the body is read under its new id.
    renamed: HashMap<Id, Id>,
    /// Whether a value is affine only under a [`Guard::Unit`]: a stride the kernel computes
    /// at run time taken to be 1 (planned with `speculate`).
    pub speculative: bool,
}

/// How a varying value's four lanes are held.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Rep {
    /// One four-lane vector of this type: 32-bit integers and floats, and booleans as masks
    /// (`I32X4`, all ones where true).
    Vector(Type),
    /// Four scalars of this type, one per lane: 64-bit integers, pointers, 8- and 16-bit
    /// integers.
    Quad(Type),
    /// Two two-lane vectors of this type (`F64X2`: doubles), lanes 0-1 and lanes 2-3.
    Pair(Type),
    /// A value of OpenCL vector type with `n` 32-bit components, as structure of arrays: one
    /// four-lane vector of this type per component (`float4`: four `F32X4`, lane `l` of
    /// vector `k` being component `k` of work-item `l`).
    Soa(Type, usize),
}

/// How the four lanes of a varying value of type `ty` are held (`None`: not a single scalar).
fn rep(cx: &Ctx, ty: Id) -> Option<Rep> {
    let info = cx.layout.get(ty).ok()?;
    match info.ty {
        Ty::Scalar(Scalar::Bool) => Some(Rep::Vector(types::I32X4)),
        Ty::Scalar(Scalar::Int(32)) => Some(Rep::Vector(types::I32X4)),
        Ty::Scalar(Scalar::Float(32)) => Some(Rep::Vector(types::F32X4)),
        Ty::Scalar(Scalar::Float(64)) => Some(Rep::Pair(types::F64X2)),
        // 8- and 16-bit integers in the low bits of 32-bit lanes (`small_int`).
        Ty::Scalar(Scalar::Int(8 | 16)) => Some(Rep::Vector(types::I32X4)),
        Ty::Scalar(_) | Ty::Pointer(..) if info.leaves.len() == 1 => Some(Rep::Quad(info.leaves[0])),
        Ty::Vector(Scalar::Int(32), n) => Some(Rep::Soa(types::I32X4, n as usize)),
        Ty::Vector(Scalar::Float(32), n) => Some(Rep::Soa(types::F32X4, n as usize)),
        // Each component a lane mask (all ones where true), as a scalar bool.
        Ty::Vector(Scalar::Bool, n) => Some(Rep::Soa(types::I32X4, n as usize)),
        // Components of 8 or 16 bits in 32-bit lanes, only the low bits valid (`narrow`).
        Ty::Vector(Scalar::Int(8 | 16), n) => Some(Rep::Soa(types::I32X4, n as usize)),
        _ => None,
    }
}

/// The type (`I8`, `I16`) of a scalar integer of `ty` narrower than its 32-bit lanes: held
/// as `Rep::Vector(I32X4)`, only the lanes' low bits valid (as `narrow`'s components).
pub(crate) fn small_int(cx: &Ctx, ty: Id) -> Option<Type> {
    match cx.layout.get(ty).ok()?.ty {
        Ty::Scalar(Scalar::Int(b @ (8 | 16))) => Type::int(b as u16),
        _ => None,
    }
}

/// Whether `ty` is a vector of booleans (components held as lane masks).
pub(crate) fn is_bool_vector(cx: &Ctx, ty: Id) -> bool {
    matches!(cx.layout.get(ty).map(|i| &i.ty), Ok(Ty::Vector(Scalar::Bool, _)))
}

/// The component type (`I8` or `I16`) of a vector of `ty` whose components are narrower
/// than their 32-bit lanes: only the lanes' low bits are the value, the rest undefined.
/// Operations that wrap (`+ - *`, bitwise, left shifts) need nothing more; the others
/// extend first (zero or sign, as the instruction reads its operand).
pub(crate) fn narrow(cx: &Ctx, ty: Id) -> Option<Type> {
    match cx.layout.get(ty).ok()?.ty {
        Ty::Vector(Scalar::Int(b @ (8 | 16)), _) => Type::int(b as u16),
        _ => None,
    }
}

impl Plan {
    /// Whether `id`'s four lanes can be had as a vector (a value or a comparison's mask, not an
    /// id vector).
    pub(crate) fn has_lanes(&self, id: Id) -> bool {
        let id = self.at_end(id);
        matches!(
            self.class.get(&id).copied().unwrap_or(Class::Uniform),
            Class::Uniform | Class::Affine(_) | Class::Varying | Class::Monotone
        )
    }

    /// The id value `id` has at the end of the body (after the loops that define it).
    pub(crate) fn at_end(&self, id: Id) -> Id {
        self.renamed.get(&id).copied().unwrap_or(id)
    }

    /// The step of the branch after which a row's remaining work-items may be skipped (a
    /// region in lockstep, `regions`): the body's first branch, an if without else on a
    /// Monotone comparison whose arm is taken by the row's first work-items and then by none
    /// (`lid < off` of a reduction tree), with nothing but computation before it and after its
    /// end (no memory writes, calls, built-in calls, loops or other branches; no value of
    /// `kept`, the uniform values saved at the body's end, defined from that branch on). When
    /// four work-items at once skip the arm, so would every later one of the row, and their
    /// code would do nothing: the caller goes on with the next row (after checking that the
    /// compared value does not wrap around within the row).
    pub(crate) fn row_cut(&self, kept: &std::collections::HashSet<Id>) -> Option<usize> {
        use rspirv::spirv::Op;
        let quiet = |inst: &Instruction| {
            let name = format!("{:?}", inst.opcode);
            !(matches!(
                inst.opcode,
                Op::Store
                    | Op::CopyMemory
                    | Op::CopyMemorySized
                    | Op::ImageWrite
                    | Op::FunctionCall
                    | Op::ExtInst
                    | Op::Variable
                    | Op::ControlBarrier
                    | Op::MemoryBarrier
            ) || name.starts_with("Atomic")
                || name.starts_with("Group")
                || name.starts_with("Subgroup"))
        };
        // (A guard that fails sends the four work-items to the scalar loop before the branch.)
        let plain = |(inst, step): &(Instruction, Step)| {
            matches!(
                step,
                Step::Scalar
                    | Step::ScalarGuarded(_)
                    | Step::Builtin
                    | Step::Vector
                    | Step::CaseEq
                    | Step::Lanes
                    | Step::Deferred
                    | Step::Phi
            ) && quiet(inst)
        };
        let k = self.steps.iter().position(|(_, s)| {
            !matches!(
                s,
                Step::Scalar
                    | Step::ScalarGuarded(_)
                    | Step::Builtin
                    | Step::Vector
                    | Step::CaseEq
                    | Step::Lanes
                    | Step::Deferred
                    | Step::Phi
            )
        })?;
        if !self.steps[..k].iter().all(plain) {
            return None;
        }
        let (inst, Step::If { negate, masked: false }) = &self.steps[k] else {
            return None;
        };
        let rest = &self.steps[k + 1..];
        let end = rest.iter().position(|(_, s)| *s == Step::EndIf)?;
        if rest[..end]
            .iter()
            .any(|(_, s)| matches!(s, Step::Else | Step::If { .. }))
        {
            return None;
        }
        // After the branch: its phis, computation, and the barrier that ends the body.
        let after = &rest[end + 1..];
        let tail_ok = after
            .iter()
            .enumerate()
            .all(|(i, st)| plain(st) || (st.1 == Step::Yield && i + 1 == after.len()));
        if !tail_ok {
            return None;
        }
        if self.steps[k..]
            .iter()
            .any(|(i, _)| i.result_id.is_some_and(|r| kept.contains(&r)))
        {
            return None;
        }
        let c = crate::codegen::state::op_id(inst, 0).ok()?;
        let cmp = self.monotone.get(&c)?;
        let (x, y) = (
            crate::codegen::state::op_id(cmp, 0).ok()?,
            crate::codegen::state::op_id(cmp, 1).ok()?,
        );
        let (a_first, s) = match (self.class.get(&x).copied(), self.class.get(&y).copied()) {
            (Some(Class::Affine(s)), _) => (true, s),
            (_, Some(Class::Affine(s))) => (false, s),
            _ => return None,
        };
        // The compared value is affine over the whole row when it is computed without a
        // guard (an extension of a 32-bit affine value is affine only while that value does
        // not wrap around, which a guard checks for four work-items, not for the row).
        let defs: std::collections::HashMap<Id, &(Instruction, Step)> = self.steps[..k]
            .iter()
            .filter_map(|st| Some((st.0.result_id?, st)))
            .collect();
        let mut stack = vec![if a_first { x } else { y }];
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = stack.pop() {
            let Some((inst, step)) = defs.get(&id).copied() else {
                continue;
            };
            if !seen.insert(id) {
                continue;
            }
            if matches!(step, Step::ScalarGuarded(_)) {
                return None;
            }
            stack.extend(inst.operands.iter().filter_map(|o| match o {
                rspirv::dr::Operand::IdRef(r) => Some(*r),
                _ => None,
            }));
        }
        // The row's end is checked for wrapping with `stride * (work-items left)` (fewer than
        // 2^20 of them), which must not overflow.
        if s == 0 || s.abs() > 1 << 10 {
            return None;
        }
        let less = match cmp.opcode {
            Op::ULessThan | Op::ULessThanEqual | Op::SLessThan | Op::SLessThanEqual => true,
            Op::UGreaterThan | Op::UGreaterThanEqual | Op::SGreaterThan | Op::SGreaterThanEqual => false,
            _ => return None,
        };
        // The comparison holds for the first work-items of the row and then no longer (the
        // affine side grows and is the smaller one, or shrinks and is the greater one).
        let decreasing = (less == a_first) == (s > 0);
        (decreasing != *negate).then_some(k)
    }

    /// The branch that starts at step `k` (a Step::If): the index of its Step::Else, if it has
    /// one, and of its Step::EndIf (branches nest: those of its arms' branches are skipped).
    pub(crate) fn branch_span(&self, k: usize) -> Option<(Option<usize>, usize)> {
        let mut depth = 0;
        let mut other = None;
        for (j, (_, s)) in self.steps.iter().enumerate().skip(k + 1) {
            match s {
                Step::If { .. } => depth += 1,
                Step::Else if depth == 0 => other = Some(j),
                Step::EndIf if depth == 0 => return Some((other, j)),
                Step::EndIf => depth -= 1,
                _ => {}
            }
        }
        None
    }

    /// The affine operand of Monotone comparison `c` and its stride.
    pub(crate) fn monotone_affine(&self, c: Id) -> Option<(Id, i64)> {
        let cmp = self.monotone.get(&c)?;
        let x = crate::codegen::state::op_id(cmp, 0).ok()?;
        let y = crate::codegen::state::op_id(cmp, 1).ok()?;
        match (self.class.get(&x).copied(), self.class.get(&y).copied()) {
            (Some(Class::Affine(s)), _) => Some((x, s)),
            (_, Some(Class::Affine(s))) => Some((y, s)),
            _ => None,
        }
    }

    /// Whether an instruction of the plan refers to one of `ids`.
    pub(crate) fn mentions(&self, ids: &std::collections::HashSet<Id>) -> bool {
        self.steps.iter().any(|(inst, _)| {
            inst.operands
                .iter()
                .any(|o| matches!(o, rspirv::dr::Operand::IdRef(x) if ids.contains(x)))
        })
    }
}

/// Whether vectorization is enabled (`CLIFT_SIMD=0` turns it off) and whether a failure to
/// build the vector code of a kernel or region is an error rather than a silent fallback
/// (`CLIFT_SIMD=check` and `CLIFT_SIMD=strict`, for tests).
pub(crate) fn mode() -> (bool, bool) {
    match std::env::var("CLIFT_SIMD").as_deref() {
        Ok("0") => (false, false),
        Ok("strict") | Ok("check") => (true, true),
        _ => (true, false),
    }
}

/// With `CLIFT_SIMD=strict`, any kernel or barrier region that does not take the vector loop
/// (the planner declines it, or it runs on fibers) is a build error naming the reason;
/// `CLIFT_SIMD=check` only makes failures to build planned vector code errors. `None`: not
/// strict; else the error message for kernel `name` declined for `why`.
pub(crate) fn strict_decline(name: &str, what: &str, why: &str) -> Option<String> {
    (std::env::var("CLIFT_SIMD").as_deref() == Ok("strict")).then(|| {
        format!("kernel {name}: {what} does not take the vector loop ({why}) and CLIFT_SIMD=strict makes that an error")
    })
}

impl Plan {
    /// Why the vector body cannot run as two quads (eight work-items, [`FnTx::simd_body2`]);
    /// `None`: it can.
    ///
    /// [`FnTx::simd_body2`]: crate::codegen::state::FnTx::simd_body2
    fn two_quads_refusal(&self) -> Option<&'static str> {
        for (inst, step) in &self.steps {
            match step {
                Step::Private => return Some("private variables"),
                Step::Yield => return Some("a barrier"),
                Step::LoopPhi | Step::LoopExitPhi | Step::Phi => {
                    let class = inst.result_id.and_then(|r| self.class.get(&r).copied());
                    if !matches!(class, None | Some(Class::Uniform) | Some(Class::Varying)) {
                        return Some("an affine value of a loop or branch");
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Whether two quads should hide latency (`CLIFT_SIMD_QUADS=auto`): the body has a loop
    /// that carries few varying values (each one four-lane register, two with two quads, of
    /// 16) and runs no per-lane code (Step::Lanes) or values of other shapes in it; its
    /// rounds are then one short dependency chain per quad, which the core can overlap.
    fn prefers_two_quads(&self, cx: &Ctx) -> Result<(), &'static str> {
        let mut loops = 0;
        let mut inside = false;
        let mut carried = 0;
        for (inst, step) in &self.steps {
            match step {
                Step::LoopHead { .. } => {
                    inside = true;
                    loops += 1;
                }
                Step::LoopEnd { .. } => inside = false,
                Step::Lanes if inside => return Err("per-lane code in a loop"),
                Step::LoopPhi if self.class.get(&inst.result_id.unwrap_or(0)) == Some(&Class::Varying) => {
                    carried += 1;
                    let ty = inst.result_type.and_then(|t| rep(cx, t));
                    if !matches!(ty, Some(Rep::Vector(_))) {
                        return Err("a loop carries values of more than one register");
                    }
                }
                _ => {}
            }
            if inside {
                if let Some(r) = inst.result_id {
                    let ty = self.tys.get(&r).and_then(|t| rep(cx, *t));
                    if self.class.get(&r) == Some(&Class::Varying) && !matches!(ty, Some(Rep::Vector(_))) {
                        return Err("a loop computes values of more than one register");
                    }
                }
            }
        }
        if loops == 0 {
            return Err("no loop");
        }
        if carried == 0 || carried > 6 {
            return Err("no loop carrying one to six varying values");
        }
        Ok(())
    }
}

/// Whether the body runs sixteen work-items per iteration ([`FnTx::simd_body16`]: bodies of
/// 8- and 16-bit integers, `emit::wide`), and if not why. Only with `CLIFT_SIMD_QUADS=auto`
/// (the default); then the rest of a row runs four work-items at a time, then one.
///
/// [`FnTx::simd_body16`]: crate::codegen::state::FnTx::simd_body16
pub(crate) fn wide(cx: &Ctx, plan: &Plan) -> Result<(), String> {
    if let Ok(k) = std::env::var("CLIFT_SIMD_QUADS") {
        if k != "auto" {
            return Err(format!("CLIFT_SIMD_QUADS={k}"));
        }
    }
    match plan.wide_refusal(cx) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// How many quads (four work-items each) the kernel's vector loop runs per iteration: 2 or 1,
/// and why. `CLIFT_SIMD_QUADS=1` or `2` forces it (2 where the plan allows), `auto` (the
/// default) takes two for the loops [`Plan::prefers_two_quads`] describes.
pub(crate) fn quads(cx: &Ctx, plan: &Plan) -> (usize, String) {
    match wide(cx, plan) {
        Ok(()) => return (4, "integers only, 8 or 16 bits in memory".into()),
        // With CLIFT_DUMP_CODE (debugging aid), why a body with 8- or 16-bit loads or stores
        // does not.
        Err(why) if std::env::var_os("CLIFT_DUMP_CODE").is_some() && why != NO_NARROW_MEMORY => {
            eprintln!("   sixteen work-items per iteration: no ({why})")
        }
        Err(_) => {}
    }
    let knob = std::env::var("CLIFT_SIMD_QUADS").ok();
    if knob.as_deref() == Some("1") {
        return (1, "CLIFT_SIMD_QUADS=1".into());
    }
    if let Some(why) = plan.two_quads_refusal() {
        return (1, format!("two quads do not take {why}"));
    }
    if knob.as_deref() == Some("2") {
        return (2, "CLIFT_SIMD_QUADS=2".into());
    }
    match plan.prefers_two_quads(cx) {
        Ok(()) => (2, "a loop of short chains".into()),
        Err(why) => (1, why.into()),
    }
}
