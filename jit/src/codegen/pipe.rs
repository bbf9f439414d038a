//! Pipe instructions (SPIR-V Pipes capability): OpReadPipe, OpWritePipe, OpReservedReadPipe,
//! OpReservedWritePipe, OpReserve{Read,Write}PipePackets, OpCommit{Read,Write}Pipe,
//! OpIsValidReserveId, OpGetNumPipePackets, OpGetMaxPipePackets, and the work-group and
//! sub-group forms OpGroupReserve{Read,Write}PipePackets and OpGroupCommit{Read,Write}Pipe.
//!
//! A pipe value is the address of the pipe object's bytes (`ArgKind::Pipe`), a reserve id a
//! 64-bit word; the instructions call the functions of `crate::pipe`, which define the layout.
//!
//! The group forms are rewritten before code generation (`rewrite`, ahead of the collectives'
//! own rewrite), so that they use the collectives' machinery:
//!
//! ```text
//! %r = OpGroupReserveReadPipePackets %rid Workgroup %p %n %size %align
//!   =>  %t = leader_reserve(%p, %n)           ; clift_pipe_group_reserve: local id 0 reserves
//!       %r = OpGroupUMax %rid Workgroup Reduce %t   ; every work-item gets the leader's id
//! OpGroupCommitReadPipe Workgroup %p %r %size %align
//!   =>  OpControlBarrier Workgroup            ; every work-item has copied its packet
//!       leader_commit(%p, %r)                 ; clift_pipe_group_commit
//! ```
//!
//! (Subgroup scope alike, with the first work-item of each sub-group as its leader.) The
//! reduction is a put / barrier / get of `collective`, so all three barrier strategies run it.

use super::context::Ctx;
use super::state::{op_id, op_lit, result, FnTx, R};
use crate::pipe::{GROUP_SUB, GROUP_WRITE};
use crate::spirv::module::Module;
use crate::spirv::Instruction;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{GroupOperation, Op, Scope};

/// The internal extended instruction set of the rewrite (never in a user's module).
pub(crate) const SET_NAME: &str = "Clift.pipe";
const LEADER_RESERVE: u32 = 1 << 8;
const LEADER_COMMIT: u32 = 2 << 8;

/// Whether `op` is one of the pipe instructions this module translates.
pub(crate) fn is_pipe_op(op: Op) -> bool {
    matches!(
        op,
        Op::ReadPipe
            | Op::WritePipe
            | Op::ReservedReadPipe
            | Op::ReservedWritePipe
            | Op::ReserveReadPipePackets
            | Op::ReserveWritePipePackets
            | Op::CommitReadPipe
            | Op::CommitWritePipe
            | Op::IsValidReserveId
            | Op::GetNumPipePackets
            | Op::GetMaxPipePackets
            | Op::GroupReserveReadPipePackets
            | Op::GroupReserveWritePipePackets
            | Op::GroupCommitReadPipe
            | Op::GroupCommitWritePipe
    )
}

/// Whether `inst` is one of the rewrite's leader instructions.
pub(crate) fn is_pipe_ext(cx: &Ctx, inst: &Instruction) -> bool {
    inst.opcode == Op::ExtInst
        && matches!(inst.operands.first(), Some(Operand::IdRef(s)) if cx.ext_sets.get(s).is_some_and(|n| n == SET_NAME))
}

fn is_group_pipe(op: Op) -> bool {
    matches!(
        op,
        Op::GroupReserveReadPipePackets
            | Op::GroupReserveWritePipePackets
            | Op::GroupCommitReadPipe
            | Op::GroupCommitWritePipe
    )
}

fn scope_value(m: &Module, id: u32) -> Option<u32> {
    match m.constant(id)?.value {
        crate::spirv::module::ConstantValue::Scalar(v) => Some(v as u32),
        _ => None,
    }
}

/// The module with every group reservation and commit rewritten (see the module
/// documentation), or `None` when it has none. Malformed ones are left for the translator to
/// report.
pub(crate) fn rewrite(m: &Module) -> Option<Module> {
    let any = m.functions.iter().any(|f| {
        f.blocks
            .iter()
            .any(|b| b.instructions.iter().any(|i| is_group_pipe(i.opcode)))
    });
    if !any {
        return None;
    }
    let mut out = m.clone();
    let mut bound = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    let mut bump = |r: Option<u32>| {
        if let Some(r) = r {
            bound = bound.max(r.saturating_add(1));
        }
    };
    for inst in &m.instructions {
        bump(inst.result_id);
    }
    for f in &m.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                bump(i.result_id);
            }
        }
    }
    let set = bound;
    let mut next = bound + 1;
    out.ext_inst_imports.push((set, SET_NAME.to_string()));
    for f in &mut out.functions {
        for b in &mut f.blocks {
            let old = std::mem::take(&mut b.instructions);
            for inst in old {
                match split(m, set, &mut next, &inst) {
                    Some(two) => b.instructions.extend(two),
                    None => b.instructions.push(inst),
                }
            }
        }
    }
    if let Some(h) = out.header.as_mut() {
        h.bound = next;
    }
    Some(out)
}

fn split(m: &Module, set: u32, next: &mut u32, inst: &Instruction) -> Option<[Instruction; 2]> {
    if !is_group_pipe(inst.opcode) {
        return None;
    }
    let scope = match inst.operands.first()? {
        Operand::IdScope(s) | Operand::IdRef(s) => *s,
        _ => return None,
    };
    let sub = match scope_value(m, scope)? {
        s if s == Scope::Workgroup as u32 => 0,
        s if s == Scope::Subgroup as u32 => GROUP_SUB,
        _ => return None,
    };
    let id = |i: usize| match inst.operands.get(i) {
        Some(Operand::IdRef(x)) => Some(*x),
        _ => None,
    };
    let write = matches!(inst.opcode, Op::GroupReserveWritePipePackets | Op::GroupCommitWritePipe);
    let flags = sub | if write { GROUP_WRITE } else { 0 };
    let ext = |result_type, result_id, code: u32, a: u32, b: u32| Instruction {
        opcode: Op::ExtInst,
        result_type,
        result_id,
        operands: vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(code | flags),
            Operand::IdRef(a),
            Operand::IdRef(b),
        ],
        offset: inst.offset,
    };
    match inst.opcode {
        Op::GroupReserveReadPipePackets | Op::GroupReserveWritePipePackets => {
            let (pipe, n) = (id(1)?, id(2)?);
            let t = *next;
            *next += 1;
            let leader = ext(inst.result_type, Some(t), LEADER_RESERVE, pipe, n);
            let spread = Instruction {
                opcode: Op::GroupUMax,
                result_type: inst.result_type,
                result_id: inst.result_id,
                operands: vec![
                    Operand::IdScope(scope),
                    Operand::GroupOperation(GroupOperation::Reduce),
                    Operand::IdRef(t),
                ],
                offset: inst.offset,
            };
            Some([leader, spread])
        }
        _ => {
            let (pipe, rid) = (id(1)?, id(2)?);
            let barrier = super::collective::scope_barrier(scope, inst.offset);
            Some([barrier, ext(None, None, LEADER_COMMIT, pipe, rid)])
        }
    }
}

impl FnTx<'_, '_, '_> {
    /// An operand that must be a 32-bit integer (packet counts, indices, sizes).
    fn pipe_u32(&mut self, inst: &Instruction, i: usize) -> R<Value> {
        let v = self.val1(op_id(inst, i)?)?;
        Ok(match self.b.func.dfg.value_type(v) {
            types::I32 => v,
            types::I64 => self.b.ins().ireduce(types::I32, v),
            types::I8 | types::I16 => self.b.ins().uextend(types::I32, v),
            _ => return Err(self.err(inst, &format!("operand {} is not an integer", i + 1))),
        })
    }

    /// An operand that must be a 64-bit word (pipes, reserve ids, pointers).
    fn pipe_word(&mut self, inst: &Instruction, i: usize) -> R<Value> {
        let v = self.val1(op_id(inst, i)?)?;
        if self.b.func.dfg.value_type(v) != types::I64 {
            return Err(self.err(inst, &format!("operand {} is not a pipe, pointer or reserve id", i + 1)));
        }
        Ok(v)
    }

    fn define_i32(&mut self, inst: &Instruction, v: Value) -> R {
        let (r, ty) = result(inst)?;
        let v = match self.cx.layout.get(ty)?.leaves.as_slice() {
            [types::I32] => v,
            [types::I64] => self.b.ins().uextend(types::I64, v),
            _ => return Err(self.err(inst, "the result type must be a 32-bit integer")),
        };
        self.def(r, ty, vec![v]);
        Ok(())
    }

    /// Translates one pipe instruction (see `is_pipe_op`).
    pub fn pipe(&mut self, inst: &Instruction) -> R {
        let i32t = types::I32;
        let i64t = types::I64;
        let write = |op: Op| {
            matches!(
                op,
                Op::WritePipe | Op::ReservedWritePipe | Op::ReserveWritePipePackets | Op::CommitWritePipe
            ) as i64
        };
        match inst.opcode {
            Op::ReadPipe | Op::WritePipe => {
                // Pipe, Pointer, Packet Size, Packet Alignment
                let p = self.pipe_word(inst, 0)?;
                let ptr = self.pipe_word(inst, 1)?;
                let size = self.pipe_u32(inst, 2)?;
                let name = if inst.opcode == Op::ReadPipe {
                    "clift_pipe_read"
                } else {
                    "clift_pipe_write"
                };
                let r = self.call_helper(name, &[i64t, i64t, i32t], &[i32t], &[p, ptr, size])?;
                self.define_i32(inst, r[0])
            }
            Op::ReservedReadPipe | Op::ReservedWritePipe => {
                // Pipe, Reserve Id, Index, Pointer, Packet Size, Packet Alignment
                let p = self.pipe_word(inst, 0)?;
                let rid = self.pipe_word(inst, 1)?;
                let index = self.pipe_u32(inst, 2)?;
                let ptr = self.pipe_word(inst, 3)?;
                let size = self.pipe_u32(inst, 4)?;
                let w = self.b.ins().iconst(i32t, write(inst.opcode));
                let r = self.call_helper(
                    "clift_pipe_reserved",
                    &[i64t, i64t, i32t, i64t, i32t, i32t],
                    &[i32t],
                    &[p, rid, index, ptr, size, w],
                )?;
                self.define_i32(inst, r[0])
            }
            Op::ReserveReadPipePackets | Op::ReserveWritePipePackets => {
                // Pipe, Num Packets, Packet Size, Packet Alignment
                let p = self.pipe_word(inst, 0)?;
                let n = self.pipe_u32(inst, 1)?;
                let w = self.b.ins().iconst(i32t, write(inst.opcode));
                let r = self.call_helper("clift_pipe_reserve", &[i64t, i32t, i32t], &[i64t], &[p, n, w])?;
                let (rid, ty) = result(inst)?;
                self.def(rid, ty, vec![r[0]]);
                Ok(())
            }
            Op::CommitReadPipe | Op::CommitWritePipe => {
                // Pipe, Reserve Id, Packet Size, Packet Alignment
                let p = self.pipe_word(inst, 0)?;
                let rid = self.pipe_word(inst, 1)?;
                let w = self.b.ins().iconst(i32t, write(inst.opcode));
                self.call_helper("clift_pipe_commit", &[i64t, i64t, i32t], &[], &[p, rid, w])?;
                Ok(())
            }
            Op::IsValidReserveId => {
                let rid = self.pipe_word(inst, 0)?;
                let v = self.b.ins().icmp_imm_u(IntCC::NotEqual, rid, 0);
                let (r, ty) = result(inst)?;
                self.def(r, ty, vec![v]);
                Ok(())
            }
            Op::GetNumPipePackets | Op::GetMaxPipePackets => {
                let p = self.pipe_word(inst, 0)?;
                let name = if inst.opcode == Op::GetNumPipePackets {
                    "clift_pipe_num_packets"
                } else {
                    "clift_pipe_max_packets"
                };
                let r = self.call_helper(name, &[i64t], &[i32t], &[p])?;
                self.define_i32(inst, r[0])
            }
            _ => Err(self.err(
                inst,
                "work-group and sub-group pipe reservations need a constant Workgroup or Subgroup execution scope",
            )),
        }
    }

    /// Translates a leader instruction of the rewrite.
    pub fn pipe_leader(&mut self, inst: &Instruction) -> R {
        let code = op_lit(inst, 1)?;
        let p = self.pipe_word(inst, 2)?;
        let flags = self.b.ins().iconst(types::I32, (code & 0xff) as i64);
        let wi = self.wi;
        let (i64t, i32t) = (types::I64, types::I32);
        if code & !0xff == LEADER_RESERVE {
            let n = self.pipe_u32(inst, 3)?;
            let r = self.call_helper(
                "clift_pipe_group_reserve",
                &[i64t, i64t, i32t, i32t],
                &[i64t],
                &[wi, p, n, flags],
            )?;
            let (rid, ty) = result(inst)?;
            self.def(rid, ty, vec![r[0]]);
        } else {
            let rid = self.pipe_word(inst, 3)?;
            self.call_helper(
                "clift_pipe_group_commit",
                &[i64t, i64t, i64t, i32t],
                &[],
                &[wi, p, rid, flags],
            )?;
        }
        Ok(())
    }
}
