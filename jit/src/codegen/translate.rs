//! Translation of one SPIR-V function into a Cranelift function: blocks in reverse post-order,
//! OpPhi as block parameters, values as lists of scalar leaves (vectors also in SIMD registers,
//! see `vector`), constants materialized at use.
//! The instruction families live in sibling modules as further `impl FnTx` blocks.

use super::context::Ctx;
use super::driver as drv;
use super::layout::{Id, Scalar, Ty};
use super::state::{op_id, result, FnTx, Phi, R};
use super::CompileError;
use crate::spirv::module::{ConstantValue, Function};
use crate::spirv::Instruction;
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::{self, types, FuncRef, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::{FuncId, Module as _};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Op, Scope, StorageClass};
use std::collections::{HashMap, HashSet};

fn const_u32(cx: &Ctx, id: Id) -> Option<u32> {
    match cx.m.constant(id)?.value {
        crate::spirv::module::ConstantValue::Scalar(v) => Some(v as u32),
        _ => None,
    }
}

/// Whether `inst` synchronizes the work-group (a yield point in region mode).
pub(crate) fn is_barrier(cx: &Ctx, inst: &Instruction) -> bool {
    match inst.opcode {
        Op::ControlBarrier => match inst.operands.first() {
            Some(Operand::IdScope(s)) | Some(Operand::IdRef(s)) => {
                let exec = const_u32(cx, *s);
                // A sub-group is the whole work-group (`collective`).
                exec == Some(Scope::Workgroup as u32) || exec == Some(Scope::Subgroup as u32) || exec.is_none()
            }
            _ => true,
        },
        Op::GroupWaitEvents => true,
        _ => false,
    }
}

pub(crate) fn successors(inst: &Instruction) -> Vec<Id> {
    let ids = |idx: &[usize]| {
        idx.iter()
            .filter_map(|i| match inst.operands.get(*i) {
                Some(Operand::IdRef(v)) => Some(*v),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    match inst.opcode {
        Op::Branch => ids(&[0]),
        Op::BranchConditional => ids(&[1, 2]),
        Op::Switch => {
            let mut v = ids(&[1]);
            let mut i = 3;
            while i < inst.operands.len() {
                if let Some(Operand::IdRef(l)) = inst.operands.get(i) {
                    v.push(*l);
                }
                i += 2;
            }
            v
        }
        _ => vec![],
    }
}

/// The indexes (in `index`: label -> block index) of the blocks `blk` branches to.
pub(crate) fn successor_blocks(blk: &crate::spirv::module::Block, index: &HashMap<Id, usize>) -> Vec<usize> {
    blk.instructions
        .last()
        .map(successors)
        .unwrap_or_default()
        .iter()
        .filter_map(|l| index.get(l).copied())
        .collect()
}

/// A function's control flow by block index: each block's successors and predecessors, the
/// reverse post-order of the reachable blocks and each block's place in it (`usize::MAX`:
/// unreachable), and the retreating edges (the back-edges of reducible loops) by header.
pub(crate) struct Cfg {
    pub index: HashMap<Id, usize>,
    pub succ: Vec<Vec<usize>>,
    pub pred: Vec<Vec<usize>>,
    pub order: Vec<usize>,
    pub pos: Vec<usize>,
    pub latches: HashMap<usize, Vec<usize>>,
}

pub(crate) fn cfg(f: &Function) -> Cfg {
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let succ: Vec<Vec<usize>> = f.blocks.iter().map(|b| successor_blocks(b, &index)).collect();
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); f.blocks.len()];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(b);
        }
    }
    let order = rpo(f);
    let mut pos = vec![usize::MAX; f.blocks.len()];
    for (i, &b) in order.iter().enumerate() {
        pos[b] = i;
    }
    let mut latches: HashMap<usize, Vec<usize>> = HashMap::new();
    for &b in &order {
        for &s in &succ[b] {
            if pos[s] <= pos[b] {
                latches.entry(s).or_default().push(b);
            }
        }
    }
    Cfg {
        index,
        succ,
        pred,
        order,
        pos,
        latches,
    }
}

/// Labels reachable from the entry, in reverse post-order.
pub(crate) fn rpo(f: &Function) -> Vec<usize> {
    let index: HashMap<Id, usize> = f.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let succ: Vec<Vec<usize>> = f.blocks.iter().map(|b| successor_blocks(b, &index)).collect();
    let mut post = Vec::new();
    let mut seen = vec![false; f.blocks.len()];
    if f.blocks.is_empty() {
        return post;
    }
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some((n, i)) = stack.last_mut() {
        let n = *n;
        if *i < succ[n].len() {
            let s = succ[n][*i];
            *i += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(n);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Function variables that are only loaded and stored directly (never addressed otherwise).
pub(crate) fn promotable(cx: &Ctx, f: &Function) -> HashSet<Id> {
    let mut cand: HashSet<Id> = HashSet::new();
    for blk in &f.blocks {
        for inst in &blk.instructions {
            if inst.opcode == Op::Variable {
                if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                    if let Ok(Ty::Pointer(_, p)) = cx.layout.get(t).map(|i| i.ty.clone()) {
                        if let Ok(Ty::Scalar(_) | Ty::Vector(..)) = cx.layout.get(p).map(|i| i.ty.clone()) {
                            cand.insert(r);
                        }
                    }
                }
            }
        }
    }
    for blk in &f.blocks {
        for inst in &blk.instructions {
            for (i, op) in inst.operands.iter().enumerate() {
                if let Operand::IdRef(x) = op {
                    if cand.contains(x) {
                        let ok = (inst.opcode == Op::Load || inst.opcode == Op::Store) && i == 0;
                        if !ok {
                            cand.remove(x);
                        }
                    }
                }
            }
        }
    }
    cand
}

pub(crate) fn translate_function(
    cx: &mut Ctx,
    f: &Function,
    func: &mut ir::Function,
    fbc: &mut FunctionBuilderContext,
) -> R {
    let order = rpo(f);
    let b = FunctionBuilder::new(func, fbc);
    let mut t = FnTx::new(cx, b, f.result_type);
    if t.cx.opts.robust {
        // A kernel's own function (the fiber fallback runs it) sees its arguments' bounds.
        let kernel = super::robust::kernel_of(t.cx, f)?;
        t.robust = Some(Box::new(super::robust_state::Robust::analyse(t.cx, f, kernel)));
    }
    t.prepare(f, &order)?;
    // Entry block parameters: the function's flattened parameters, then the work-item state.
    let entry = t.blocks[&f.blocks[0].label];
    t.b.append_block_params_for_function_params(entry);
    let params = t.b.block_params(entry).to_vec();
    let mut pi = 0;
    for (pid, ty) in &f.params {
        let n = t.cx.layout.get(*ty)?.leaves.len();
        let v = params
            .get(pi..pi + n)
            .ok_or_else(|| CompileError::new(format!("OpFunction %{}: parameter mismatch", f.id)))?
            .to_vec();
        pi += n;
        t.def(*pid, *ty, v);
    }
    t.wi = *params
        .last()
        .ok_or_else(|| CompileError::new(format!("OpFunction %{}: missing state parameter", f.id)))?;
    t.translate_blocks(f, &order)?;
    t.b.seal_all_blocks();
    let cfg = t.cx.jit.target_config();
    t.b.finalize(cfg);
    Ok(())
}

impl<'a, 'm, 'f> FnTx<'a, 'm, 'f> {
    pub fn new(cx: &'a mut Ctx<'m>, b: FunctionBuilder<'f>, ret_ty: Id) -> Self {
        FnTx {
            cx,
            b,
            vals: HashMap::new(),
            vtys: HashMap::new(),
            blocks: HashMap::new(),
            phis: HashMap::new(),
            wi: Value::from_u32(0),
            promoted: HashMap::new(),
            ret_ty,
            cur_label: 0,
            cur_inst: 0,
            func_refs: HashMap::new(),
            gvs: HashMap::new(),
            group: None,
            simd_on: !super::vector::vector_leaves_forced(),
            vecs: HashMap::new(),
            simd_phis: HashMap::new(),
            simd_phi_results: HashSet::new(),
            known_lanes: HashMap::new(),
            inserted: HashMap::new(),
            splat_of: HashMap::new(),
            builtin_vectors: HashMap::new(),
            robust: None,
            atomic_consts: None,
            half_wide: HashMap::new(),
            half_narrow: HashMap::new(),
        }
    }

    /// Creates one Cranelift block per reachable SPIR-V block (`order`), the phis' block
    /// parameters and the SSA variables of promoted Function variables.
    pub fn prepare(&mut self, f: &Function, order: &[usize]) -> R {
        self.make_blocks(f, order)?;
        self.promote(f)
    }

    /// Creates a Cranelift block for each of the SPIR-V blocks `order` (replacing any made
    /// before) with its phis as block parameters.
    pub fn make_blocks(&mut self, f: &Function, order: &[usize]) -> R {
        self.phi_lists(f, order)?;
        for &bi in order {
            let label = f.blocks[bi].label;
            let cblk = self.b.create_block();
            self.blocks.insert(label, cblk);
            self.simd_phis.remove(&label);
            let phis: Vec<(Id, Id)> = self.phis[&label].iter().map(|p| (p.result, p.ty)).collect();
            for (r, ty) in phis {
                self.simd_phi_results.remove(&r);
                if self.simd_phi_params(label, cblk, r, ty) {
                    self.vtys.insert(r, ty);
                    continue;
                }
                let leaves = self.cx.layout.get(ty)?.leaves.clone();
                let vals: Vec<Value> = leaves.iter().map(|l| self.b.append_block_param(cblk, *l)).collect();
                self.vals.insert(r, vals);
                self.vtys.insert(r, ty);
            }
        }
        Ok(())
    }

    /// The phis of each of the SPIR-V blocks `order`.
    pub fn phi_lists(&mut self, f: &Function, order: &[usize]) -> R {
        for &bi in order {
            let blk = &f.blocks[bi];
            let mut list = Vec::new();
            for inst in blk.instructions.iter().filter(|i| i.opcode == Op::Phi) {
                let (r, ty) = result(inst)?;
                let mut incoming = Vec::new();
                let mut i = 0;
                while i + 1 < inst.operands.len() {
                    incoming.push((op_id(inst, i)?, op_id(inst, i + 1)?));
                    i += 2;
                }
                list.push(Phi {
                    ty,
                    incoming,
                    result: r,
                });
            }
            self.phis.insert(blk.label, list);
        }
        Ok(())
    }

    /// The SSA variables of the promoted Function variables.
    pub fn promote(&mut self, f: &Function) -> R {
        let promo = promotable(self.cx, f);
        for blk in &f.blocks {
            for inst in &blk.instructions {
                if let (Op::Variable, Some(r), Some(ty)) = (inst.opcode, inst.result_id, inst.result_type) {
                    if promo.contains(&r) {
                        if let Ty::Pointer(_, p) = self.cx.layout.get(ty)?.ty {
                            let leaves = self.cx.layout.get(p)?.leaves.clone();
                            let vars = leaves.iter().map(|l| self.b.declare_var(*l)).collect();
                            self.promoted.insert(r, (p, vars));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Translates the reachable blocks in `order` (the entry first).
    pub fn translate_blocks(&mut self, f: &Function, order: &[usize]) -> R {
        for &bi in order {
            let blk = &f.blocks[bi];
            self.cur_label = blk.label;
            let cblk = self.blocks[&blk.label];
            self.b.switch_to_block(cblk);
            if bi == 0 {
                // Promoted variables start as zero so every path defines them.
                let mut vars: Vec<(Id, Id, Vec<Variable>)> =
                    self.promoted.iter().map(|(id, (p, v))| (*id, *p, v.clone())).collect();
                vars.sort_by_key(|(id, _, _)| *id);
                for (_, p, vs) in vars {
                    let leaves = self.cx.layout.get(p)?.leaves.clone();
                    for (v, vt) in vs.into_iter().zip(leaves) {
                        let z = self.zero(vt);
                        self.b.def_var(v, z);
                    }
                }
            }
            self.enter_simd_phis(blk.label);
            self.enter_block(blk.label)?;
            for (i, inst) in blk.instructions.iter().enumerate() {
                if inst.opcode == Op::Phi {
                    continue;
                }
                self.cur_inst = i;
                self.inst(inst)?;
            }
        }
        Ok(())
    }

    /// The SSA variables of a value kept live across barriers (region mode), if `id` is one.
    pub fn crossing_vars(&self, id: Id) -> Option<Vec<Variable>> {
        let r = self.group.as_ref()?.regions.as_ref()?;
        r.crossing.get(&id).cloned()
    }

    pub fn def(&mut self, id: Id, ty: Id, v: Vec<Value>) {
        self.vtys.insert(id, ty);
        if let Some(vars) = self.crossing_vars(id) {
            for (var, x) in vars.into_iter().zip(v) {
                self.b.def_var(var, x);
            }
            return;
        }
        self.vals.insert(id, v);
    }

    /// At the start of a block: phi results kept in SSA variables are defined from the block
    /// parameters.
    pub fn enter_block(&mut self, label: Id) -> R {
        if self.group.as_ref().and_then(|g| g.regions.as_ref()).is_none() {
            return Ok(());
        }
        let results: Vec<Id> = self
            .phis
            .get(&label)
            .map(|ps| ps.iter().map(|p| p.result).collect())
            .unwrap_or_default();
        for r in results {
            if let Some(vars) = self.crossing_vars(r) {
                let vals = self.vals.get(&r).cloned().unwrap_or_default();
                for (var, x) in vars.into_iter().zip(vals) {
                    self.b.def_var(var, x);
                }
            }
        }
        Ok(())
    }

    pub fn err(&self, inst: &Instruction, msg: &str) -> CompileError {
        CompileError::new(format!("{}: {}", inst.describe(), msg))
    }

    pub fn ty_of(&self, id: Id) -> R<Id> {
        if let Some(t) = self.vtys.get(&id) {
            return Ok(*t);
        }
        if let Some(c) = self.cx.m.constant(id) {
            return Ok(c.ty);
        }
        if let Some(v) = self.cx.m.variables.iter().find(|v| v.id == id) {
            return Ok(v.ty);
        }
        Err(CompileError::new(format!("type of %{id} is unknown")))
    }

    /// The leaves of value `id` (instruction result, parameter, constant or global address).
    pub fn val(&mut self, id: Id) -> R<Vec<Value>> {
        if let Some(vars) = self.crossing_vars(id) {
            return Ok(vars.into_iter().map(|v| self.b.use_var(v)).collect());
        }
        if let Some(v) = self.vals.get(&id) {
            return Ok(v.clone());
        }
        if self.cx.m.constant(id).is_some() {
            return self.constant(id);
        }
        if self.cx.globals.contains_key(&id) {
            return Ok(vec![self.global_addr(id)?]);
        }
        Err(CompileError::new(format!("%{id} is used before it is defined")))
    }

    /// A scalar operand.
    pub fn val1(&mut self, id: Id) -> R<Value> {
        let v = self.val(id)?;
        v.first()
            .copied()
            .ok_or_else(|| CompileError::new(format!("%{id} has no value")))
    }

    pub fn zero(&mut self, t: ir::Type) -> Value {
        match t {
            types::F32 => self.b.ins().f32const(0.0),
            types::F64 => self.b.ins().f64const(0.0),
            _ => self.b.ins().iconst(t, 0),
        }
    }

    pub fn zeros(&mut self, ty: Id) -> R<Vec<Value>> {
        let leaves = self.cx.layout.get(ty)?.leaves.clone();
        Ok(leaves.into_iter().map(|l| self.zero(l)).collect())
    }

    pub fn scalar_const(&mut self, s: Scalar, bits: u64) -> Value {
        match s {
            Scalar::Bool => self.b.ins().iconst(types::I8, (bits != 0) as i64),
            Scalar::Float(32) => self.b.ins().f32const(Ieee32::with_bits(bits as u32)),
            Scalar::Float(64) => self.b.ins().f64const(Ieee64::with_bits(bits)),
            _ => {
                let t = s.clif();
                let w = t.bits();
                let v = if w >= 64 { bits } else { bits & ((1u64 << w) - 1) };
                self.b.ins().iconst(t, v as i64)
            }
        }
    }

    fn constant(&mut self, id: Id) -> R<Vec<Value>> {
        let c = self
            .cx
            .m
            .constant(id)
            .ok_or_else(|| CompileError::new(format!("%{id} is not a constant")))?
            .clone();
        let over = if c.spec { self.cx.spec_override(id) } else { None };
        let info = self.cx.layout.get(c.ty)?.clone();
        match (&c.value, over) {
            (ConstantValue::Bool(_), Some(v)) => Ok(vec![self.b.ins().iconst(types::I8, (v != 0) as i64)]),
            (ConstantValue::Scalar(_), Some(v)) | (&ConstantValue::Scalar(v), None) => {
                let s = self
                    .cx
                    .layout
                    .scalar_of(c.ty)
                    .ok_or_else(|| CompileError::new(format!("constant %{id}: not a scalar type")))?;
                Ok(vec![self.scalar_const(s, v)])
            }
            (ConstantValue::Bool(b), None) => Ok(vec![self.b.ins().iconst(types::I8, *b as i64)]),
            (ConstantValue::Composite(parts), _) => {
                let mut out = Vec::new();
                for p in parts {
                    out.extend(self.val(*p)?);
                }
                if out.len() != info.leaves.len() {
                    return Err(CompileError::new(format!(
                        "constant %{id}: composite does not match its type"
                    )));
                }
                Ok(out)
            }
            (ConstantValue::Null, _) | (ConstantValue::Undef, _) => self.zeros(c.ty),
            (ConstantValue::SpecOp { opcode, operands }, _) => {
                let fake = Instruction {
                    opcode: *opcode,
                    result_type: Some(c.ty),
                    result_id: Some(id),
                    operands: operands.clone(),
                    offset: c.offset,
                };
                self.inst(&fake)?;
                let v = self.vals.remove(&id).unwrap_or_default();
                self.vtys.remove(&id);
                Ok(v)
            }
            (
                ConstantValue::Sampler {
                    addressing,
                    normalized,
                    filter,
                },
                _,
            ) => {
                let bits = super::image::constant_sampler_bits(*addressing, *normalized, *filter);
                Ok(vec![self.b.ins().iconst(types::I64, bits as i64)])
            }
        }
    }

    /// Address of a program-scope variable.
    pub fn global_addr(&mut self, id: Id) -> R<Value> {
        let (pointee, storage) = self.cx.globals[&id];
        match storage {
            StorageClass::Input => {
                let bi = self.cx.builtins[&id];
                let off = match bi {
                    BuiltIn::GlobalInvocationId => drv::OFF_GLOBAL_ID,
                    BuiltIn::LocalInvocationId => drv::OFF_LOCAL_ID,
                    BuiltIn::WorkgroupId => drv::OFF_GROUP_ID,
                    BuiltIn::GlobalSize => drv::OFF_GLOBAL_SIZE,
                    BuiltIn::WorkgroupSize => drv::OFF_LOCAL_SIZE,
                    BuiltIn::EnqueuedWorkgroupSize => drv::OFF_ENQ_LOCAL_SIZE,
                    BuiltIn::NumWorkgroups => drv::OFF_NUM_GROUPS,
                    BuiltIn::GlobalOffset => drv::OFF_GLOBAL_OFFSET,
                    BuiltIn::WorkDim => drv::OFF_WORK_DIM,
                    BuiltIn::GlobalLinearId => drv::OFF_GLOBAL_LINEAR_ID,
                    BuiltIn::LocalInvocationIndex => drv::OFF_LOCAL_LINEAR_ID,
                    other => {
                        return Err(CompileError::new(format!(
                            "OpVariable %{id}: BuiltIn {other:?} is not supported"
                        )))
                    }
                };
                let want = if bi == BuiltIn::WorkDim { types::I32 } else { types::I64 };
                if self.cx.layout.get(pointee)?.leaves.iter().any(|l| *l != want) {
                    return Err(CompileError::new(format!(
                        "OpVariable %{id}: BuiltIn {bi:?} has an unexpected type (32-bit size_t is not supported)"
                    )));
                }
                Ok(self.b.ins().iadd_imm_s(self.wi, off as i64))
            }
            StorageClass::Workgroup => {
                let off = self.cx.local_offsets[&id];
                let base = self.b.ins().load(
                    types::I64,
                    ir::MemFlagsData::trusted(),
                    self.wi,
                    drv::OFF_LOCAL_MEM as i32,
                );
                Ok(self.b.ins().iadd_imm_s(base, off as i64))
            }
            _ => {
                let did = self.cx.data[&id];
                let gv = match self.gvs.get(&did) {
                    Some(g) => *g,
                    None => {
                        let g = self.cx.jit.declare_data_in_func(did, self.b.func);
                        self.gvs.insert(did, g);
                        g
                    }
                };
                Ok(self.b.ins().symbol_value(types::I64, gv))
            }
        }
    }

    pub fn func_ref(&mut self, fid: FuncId) -> FuncRef {
        if let Some(r) = self.func_refs.get(&fid) {
            return *r;
        }
        let r = self.cx.jit.declare_func_in_func(fid, self.b.func);
        self.func_refs.insert(fid, r);
        r
    }

    /// Calls an imported helper by symbol.
    pub fn call_helper(&mut self, name: &str, params: &[ir::Type], rets: &[ir::Type], args: &[Value]) -> R<Vec<Value>> {
        let fid = self.cx.import(name, params, rets)?;
        let fr = self.func_ref(fid);
        let call = self.b.ins().call(fr, args);
        Ok(self.b.inst_results(call).to_vec())
    }

    /// Whether `inst` (an OpExtInst) belongs to a "NonSemantic." instruction set.
    fn is_non_semantic(&self, inst: &Instruction) -> bool {
        op_id(inst, 0)
            .ok()
            .and_then(|set| self.cx.ext_sets.get(&set))
            .is_some_and(|name| name.starts_with("NonSemantic."))
    }

    /// Translates one instruction; errors name it.
    pub fn inst(&mut self, inst: &Instruction) -> R {
        self.inst_inner(inst).map_err(|e| {
            if e.message.starts_with("Op") {
                e
            } else {
                CompileError::new(format!("{}: {}", inst.describe(), e.message))
            }
        })
    }

    fn inst_inner(&mut self, inst: &Instruction) -> R {
        use Op::*;
        match inst.opcode {
            Nop | Line | NoLine | LoopMerge | SelectionMerge | LifetimeStart | LifetimeStop | Name | Decorate
            | MemberDecorate | ModuleProcessed => Ok(()),
            Branch | BranchConditional | Switch | Return | ReturnValue | Unreachable | FunctionCall | Kill
            | ControlBarrier | MemoryBarrier | GroupAsyncCopy | GroupWaitEvents => self.control(inst),
            Variable
            | Load
            | Store
            | AccessChain
            | InBoundsAccessChain
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | CopyMemory
            | CopyMemorySized
            | PtrDiff
            | PtrEqual
            | PtrNotEqual => self.memory(inst),
            CompositeConstruct | CompositeExtract | CompositeInsert | VectorExtractDynamic | VectorInsertDynamic
            | VectorShuffle | CopyObject | CopyLogical | Undef | ExpectKHR => self.composite(inst),
            SConvert | UConvert | FConvert | ConvertFToU | ConvertFToS | ConvertSToF | ConvertUToF | SatConvertSToU
            | SatConvertUToS | ConvertPtrToU | ConvertUToPtr | Bitcast | PtrCastToGeneric | GenericCastToPtr
            | QuantizeToF16 => self.convert(inst),
            GenericCastToPtrExplicit => self.generic_cast_explicit(inst),
            GenericPtrMemSemantics => self.generic_ptr_mem_semantics(inst),
            AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicCompareExchangeWeak
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
            | AtomicFlagTestAndSet
            | AtomicFlagClear
            | AtomicFAddEXT
            | AtomicFMinEXT
            | AtomicFMaxEXT => self.atomic(inst),
            op if super::khr_ext::is_khr_ext(op) => self.khr_ext(inst),
            op if super::pipe::is_pipe_op(op) => self.pipe(inst),
            ExtInst if super::pipe::is_pipe_ext(self.cx, inst) => self.pipe_leader(inst),
            // SPV_KHR_non_semantic_info: instructions of a "NonSemantic." set carry no
            // semantics and may be dropped; nothing but other non-semantic instructions can
            // use their results.
            ExtInst if super::collective::is_collective(self.cx, inst) => self.collective(inst),
            op if super::collective::is_sub_group_local(op) => self.sub_group_local(inst),
            ExtInst if self.is_non_semantic(inst) => Ok(()),
            ExtInst => self.ext_inst(inst),
            SampledImage
            | ImageSampleExplicitLod
            | ImageRead
            | ImageWrite
            | ImageQuerySizeLod
            | ImageQuerySize
            | ImageQueryFormat
            | ImageQueryOrder => self.image(inst),
            _ => self.arith(inst),
        }
    }
}
