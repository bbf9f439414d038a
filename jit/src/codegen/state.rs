//! The translator's state: what translating one SPIR-V function into a Cranelift function
//! carries (`FnTx`, shared by `translate`, the instruction families and the work-group
//! functions, which add their own `impl FnTx` blocks), the operand accessors every
//! instruction uses, and the state of a kernel body inlined into a work-group function
//! (`GroupTx`, with the barrier regions' records).

use super::context::Ctx;
use super::layout::Id;
use super::robust_state::Robust;
use super::CompileError;
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, Block, FuncRef, GlobalValue, InstBuilder, StackSlot, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_module::{DataId, FuncId};
use rspirv::dr::Operand;
use rspirv::spirv::BuiltIn;
use std::collections::{HashMap, HashSet};

pub(crate) type R<T = ()> = Result<T, CompileError>;

pub(crate) struct Phi {
    pub ty: Id,
    pub incoming: Vec<(Id, Id)>,
    pub result: Id,
}

pub(crate) struct FnTx<'a, 'm, 'f> {
    pub cx: &'a mut Ctx<'m>,
    pub b: FunctionBuilder<'f>,
    pub vals: HashMap<Id, Vec<Value>>,
    pub vtys: HashMap<Id, Id>,
    pub blocks: HashMap<Id, Block>,
    pub phis: HashMap<Id, Vec<Phi>>,
    pub wi: Value,
    /// Function variables kept in SSA form: pointee type and one variable per leaf.
    pub promoted: HashMap<Id, (Id, Vec<Variable>)>,
    pub ret_ty: Id,
    pub cur_label: Id,
    /// Index of the instruction being translated within its block.
    pub cur_inst: usize,
    pub func_refs: HashMap<FuncId, FuncRef>,
    pub gvs: HashMap<DataId, GlobalValue>,
    /// Set when the function is a kernel body inlined into a work-group function.
    pub group: Option<GroupTx>,
    /// Vectors in SIMD registers (see `vector`); off with `CLIFT_VECTOR_LEAVES=1`.
    pub simd_on: bool,
    /// The SIMD form of vector values: the leaves it was made with, and its registers.
    pub vecs: HashMap<Id, (Vec<Value>, Vec<Value>)>,
    /// Per block label: its vector phis held in registers (result, type, block parameters).
    pub simd_phis: HashMap<Id, Vec<(Id, Id, Vec<Value>)>>,
    /// The phis of `simd_phis`.
    pub simd_phi_results: HashSet<Id>,
    /// Vector values known to hold a constant: per value, (lane, bits) of one lane (an insert
    /// into an undefined vector) or every lane (`None` lane: the splat compilers make of it).
    pub known_lanes: HashMap<Id, (Option<u32>, u64)>,
    /// Vectors made by inserting scalar `.1` at lane `.0` (of anything).
    pub inserted: HashMap<Id, (u32, Id)>,
    /// Vectors every lane of which is scalar `.0` (`.1` false: only modulo the lane width,
    /// good for a shift amount).
    /// Values loaded from a work-item built-in vector (GlobalSize, LocalInvocationId, ...):
    /// a dynamic extract past its last component gives OpenCL C's value for that query.
    pub builtin_vectors: HashMap<Id, rspirv::spirv::BuiltIn>,
    pub splat_of: HashMap<Id, (Id, bool)>,
    /// Robust mode's origins and state (`None` when the program is not robust).
    pub robust: Option<Box<Robust>>,
    /// For atomics (`atomics`): whether the ND-range has one work-group, whether it also
    /// shares no memory with host threads, and the local arena's base, computed once where
    /// `wi` is defined.
    pub atomic_consts: Option<[Value; 3]>,
    /// Halves (`I16`) made by rounding an f32 or f64 to half, with that float rounded to half
    /// precision in its own type: the next operation widens a half by taking it (`half`).
    pub half_wide: HashMap<Value, Value>,
    /// For an f32 or f64 value widened from a half (exact), that half's bits (`I16`):
    /// narrowing it again in any rounding mode gives the half back, a NaN made quiet
    /// (`FnTx::float_to_half_in_mode`). `vstore_half(vload_half(...))` needs no conversion.
    pub half_narrow: HashMap<Value, Value>,
}

pub(crate) fn op_id(inst: &Instruction, i: usize) -> R<Id> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(v)) | Some(Operand::IdScope(v)) | Some(Operand::IdMemorySemantics(v)) => Ok(*v),
        _ => Err(CompileError::new(format!(
            "{}: operand {} is not an id",
            inst.describe(),
            i
        ))),
    }
}

pub(crate) fn op_lit(inst: &Instruction, i: usize) -> R<u32> {
    match inst.operands.get(i) {
        Some(Operand::LiteralBit32(v)) | Some(Operand::LiteralExtInstInteger(v)) => Ok(*v),
        _ => Err(CompileError::new(format!(
            "{}: operand {} is not a literal",
            inst.describe(),
            i
        ))),
    }
}

pub(crate) fn result(inst: &Instruction) -> R<(Id, Id)> {
    match (inst.result_id, inst.result_type) {
        (Some(r), Some(t)) => Ok((r, t)),
        _ => Err(CompileError::new(format!("{}: missing result", inst.describe()))),
    }
}

/// State of a work-item that has returned.
pub(crate) const STATE_DONE: u32 = u32::MAX;

/// Translation state of a kernel body inlined into a work-group function.
pub(crate) struct GroupTx {
    /// Where a work-item goes when it returns or yields.
    pub latch: Block,
    /// Per-work-item values of the builtin variables, for direct loads.
    pub builtins: HashMap<BuiltIn, Vec<Value>>,
    pub regions: Option<RegionTx>,
    /// Where a vector body whose speculation failed (`simd::Plan::speculative`) goes on:
    /// the body planned without it, taking the same arguments as the scalar loop's bail.
    pub spec_bail: Option<Block>,
}

/// Region (barrier) mode.
pub(crate) struct RegionTx {
    /// This work-item's record in the spill area.
    pub rec: Value,
    /// Set to 1 when a work-item yields at a barrier during the current sweep.
    pub any: StackSlot,
    /// Values live across some barrier (kept in the record or recomputed after it): one SSA
    /// variable per leaf.
    pub crossing: HashMap<Id, Vec<Variable>>,
    /// Offsets of memory-resident Function variables in the record.
    pub var_offsets: HashMap<Id, i32>,
    /// Barrier points by (block label, instruction index).
    pub barriers: HashMap<(Id, usize), BarrierPoint>,
    /// Region loops (`regions`; `any` then holds the next region's state): where the uniform
    /// values live across barriers are kept, once per group.
    pub gslot: Option<StackSlot>,
    /// Region loops over a body whose barriers all lie in uniform control flow
    /// (`uniform::barriers_in_uniform_flow`): every work-item is always at the same barrier,
    /// so the records' states are neither written nor tested.
    pub lockstep: bool,
    /// Region loops: the SSA variables kept in the record that the region being translated
    /// restores but never defines. Their slots still hold their values at the region's
    /// barriers, so those do not store them again (which kept them live through the region).
    pub unchanged: Vec<Variable>,
}

pub(crate) type Slot = (Variable, i32, types::Type);

pub(crate) struct BarrierPoint {
    pub state: u32,
    /// Where the single sweep loop resumes a work-item (`None` with region loops).
    pub cont: Option<Block>,
    /// What is saved in the record at the barrier and reloaded after it (values and promoted
    /// variables live across it): SSA variable, offset and type per leaf.
    pub slots: Vec<Slot>,
    /// The same for uniform values, kept once per group (offsets in `RegionTx::gslot`).
    pub uslots: Vec<Slot>,
    /// Instructions translated again after the barrier, in order (the live values cheaper to
    /// recompute than to keep, and their operands).
    pub remat: Vec<Instruction>,
}

/// The group's sizes and first global ids, as the work-item loops need them.
pub(crate) struct GroupIds {
    pub lsz: [Value; 3],
    pub gsz: [Value; 3],
    /// The group's first global id per dimension without the global offset, and with it.
    pub gbase0: [Value; 3],
    pub gbase: [Value; 3],
}

/// The local and the global linear id of work-item `lid` of the group (`gbase0`: the group's
/// first global id, without the offset).
pub(crate) fn linear_ids(
    b: &mut FunctionBuilder,
    lid: [Value; 3],
    lsz: &[Value; 3],
    gsz: &[Value; 3],
    gbase0: &[Value; 3],
) -> (Value, Value) {
    let a = b.ins().imul(lid[2], lsz[1]);
    let a = b.ins().iadd(a, lid[1]);
    let a = b.ins().imul(a, lsz[0]);
    let lin = b.ins().iadd(a, lid[0]);
    let g = [0, 1, 2].map(|d| b.ins().iadd(gbase0[d], lid[d]));
    let a = b.ins().imul(g[2], gsz[1]);
    let a = b.ins().iadd(a, g[1]);
    let a = b.ins().imul(a, gsz[0]);
    (lin, b.ins().iadd(a, g[0]))
}
