//! The pipe instructions' operand rules (SPIR-V 3.49.23 "Pipe Instructions"): pipes of the
//! right access qualifier, reserve ids, 32-bit integer counts and indices, and constant packet
//! sizes and alignments. Every error names the instruction.

use super::{err, op_id, Ctx, R};
use crate::spirv::binary::Instruction;
use crate::spirv::module::Type;
use rspirv::spirv::{AccessQualifier, Op};

/// What one operand of a pipe instruction must be.
#[derive(Clone, Copy)]
enum Want {
    /// A pipe; `Some` access qualifier when the instruction needs one.
    Pipe(Option<AccessQualifier>),
    ReserveId,
    /// A 32-bit integer.
    Int32,
    Pointer,
    /// The Packet Size and Packet Alignment pair.
    SizeAlign,
}

/// The operands after the result (and after the Execution scope of the group forms), and the
/// result: `Some(true)` a 32-bit integer, `Some(false)` a reserve id or boolean (below), `None`
/// no result.
fn shape(op: Op) -> Option<(Vec<Want>, usize)> {
    use AccessQualifier::{ReadOnly, WriteOnly};
    use Want::*;
    // (operands, index of the first operand: 1 for the group forms' Execution scope)
    Some(match op {
        Op::ReadPipe => (vec![Pipe(Some(ReadOnly)), Pointer, SizeAlign], 0),
        Op::WritePipe => (vec![Pipe(Some(WriteOnly)), Pointer, SizeAlign], 0),
        Op::ReservedReadPipe => (vec![Pipe(Some(ReadOnly)), ReserveId, Int32, Pointer, SizeAlign], 0),
        Op::ReservedWritePipe => (vec![Pipe(Some(WriteOnly)), ReserveId, Int32, Pointer, SizeAlign], 0),
        Op::ReserveReadPipePackets => (vec![Pipe(Some(ReadOnly)), Int32, SizeAlign], 0),
        Op::ReserveWritePipePackets => (vec![Pipe(Some(WriteOnly)), Int32, SizeAlign], 0),
        Op::CommitReadPipe => (vec![Pipe(Some(ReadOnly)), ReserveId, SizeAlign], 0),
        Op::CommitWritePipe => (vec![Pipe(Some(WriteOnly)), ReserveId, SizeAlign], 0),
        Op::IsValidReserveId => (vec![ReserveId], 0),
        Op::GetNumPipePackets | Op::GetMaxPipePackets => (vec![Pipe(None), SizeAlign], 0),
        Op::GroupReserveReadPipePackets => (vec![Pipe(Some(ReadOnly)), Int32, SizeAlign], 1),
        Op::GroupReserveWritePipePackets => (vec![Pipe(Some(WriteOnly)), Int32, SizeAlign], 1),
        Op::GroupCommitReadPipe => (vec![Pipe(Some(ReadOnly)), ReserveId, SizeAlign], 1),
        Op::GroupCommitWritePipe => (vec![Pipe(Some(WriteOnly)), ReserveId, SizeAlign], 1),
        _ => return None,
    })
}

fn is_int32(ctx: &Ctx, ty: Option<u32>) -> bool {
    matches!(ty.and_then(|t| ctx.ty(t)), Some(Type::Int { width: 32, .. }))
}

/// Checks one pipe instruction (nothing for other instructions).
pub(super) fn check(ctx: &Ctx, i: &Instruction) -> R {
    let Some((wants, first)) = shape(i.opcode) else {
        return Ok(());
    };
    let rule = format!("SPIR-V {} (pipe instruction operands)", i.name());
    let fail = |what: String| -> R { Err(err(rule.clone(), format!("{}: {what}", i.name()), Some(i))) };
    // The result.
    match i.opcode {
        Op::CommitReadPipe | Op::CommitWritePipe | Op::GroupCommitReadPipe | Op::GroupCommitWritePipe => {}
        Op::ReserveReadPipePackets
        | Op::ReserveWritePipePackets
        | Op::GroupReserveReadPipePackets
        | Op::GroupReserveWritePipePackets => {
            if !matches!(i.result_type.and_then(|t| ctx.ty(t)), Some(Type::ReserveId)) {
                return fail("the result type must be OpTypeReserveId".into());
            }
        }
        Op::IsValidReserveId => {
            if !matches!(i.result_type.and_then(|t| ctx.ty(t)), Some(Type::Bool)) {
                return fail("the result type must be OpTypeBool".into());
            }
        }
        _ => {
            if !is_int32(ctx, i.result_type) {
                return fail("the result type must be a 32-bit integer".into());
            }
        }
    }
    let mut k = first;
    for want in wants {
        let Some(id) = op_id(&i.operands, k) else {
            return fail(format!("operand {} is missing", k + 1));
        };
        let ty = ctx.value_type(id);
        match want {
            Want::Pipe(access) => match ty.and_then(|t| ctx.ty(t)) {
                Some(Type::Pipe { access: a }) => {
                    if access.is_some_and(|want| want != *a) {
                        return fail(format!(
                            "the pipe %{id} is {a:?}, the instruction needs a {:?} pipe",
                            access.unwrap_or(*a)
                        ));
                    }
                }
                _ => return fail(format!("operand %{id} is not a pipe (OpTypePipe)")),
            },
            Want::ReserveId => {
                if !matches!(ty.and_then(|t| ctx.ty(t)), Some(Type::ReserveId)) {
                    return fail(format!("operand %{id} is not a reserve id (OpTypeReserveId)"));
                }
            }
            Want::Int32 => {
                if !is_int32(ctx, ty) {
                    return fail(format!("operand %{id} must be a 32-bit integer"));
                }
            }
            Want::Pointer => {
                if !matches!(ty.and_then(|t| ctx.ty(t)), Some(Type::Pointer { .. })) {
                    return fail(format!("operand %{id} is not a pointer"));
                }
            }
            Want::SizeAlign => {
                let Some(align_id) = op_id(&i.operands, k + 1) else {
                    return fail("the Packet Alignment operand is missing".into());
                };
                if !is_int32(ctx, ty) || !is_int32(ctx, ctx.value_type(align_id)) {
                    return fail("Packet Size and Packet Alignment must be 32-bit integers".into());
                }
                let (Some(size), Some(align)) = (ctx.int_const(id), ctx.int_const(align_id)) else {
                    return fail("Packet Size and Packet Alignment must be OpConstant".into());
                };
                if align == 0 || !align.is_power_of_two() {
                    return fail(format!("Packet Alignment {align} is not a power of two"));
                }
                if size == 0 || size % align != 0 {
                    return fail(format!(
                        "Packet Size {size} must be at least 1 and a multiple of Packet Alignment {align}"
                    ));
                }
                k += 1;
            }
        }
        k += 1;
    }
    if i.operands.len() != k {
        return fail(format!("takes {k} operands, not {}", i.operands.len()));
    }
    Ok(())
}
