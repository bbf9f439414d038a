//! Program-level compilation: decorations, program-scope data, function declarations and the
//! kernel entry wrappers (the JIT module is made in `program`, the kernels' argument layouts in
//! `context`).

use super::context::{define, kernel_args, load_args, stack_copy, ArgVal, Ctx, DataCode, Recorder};
use super::driver::WorkItem;
use super::layout::{round_up, Id, Layout, Scalar, Ty};
use super::native;
use super::program::{new_jit, program_from, Code, Kernel0, Pending, ARENA_RESERVE};
use super::{group, inline, translate, BarrierStrategy, CompileError, CompileOptions, Program};
use crate::spirv::module::{ConstantValue, Function};
use crate::spirv::validate::is_atomic;
use crate::spirv::Module;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, UserFuncName};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

use cranelift_module::{DataDescription, FuncId, Linkage, Module as _};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, ExecutionModel, FunctionParameterAttribute, Op, StorageClass};
use std::collections::{HashMap, HashSet};

fn err(s: impl Into<String>) -> CompileError {
    CompileError::new(s)
}

fn lit(op: Option<&Operand>) -> Option<u32> {
    match op {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

/// An address in program-scope data: `(offset in the variable, target variable, addend)`.
type DataReloc = (u32, Id, i64);

/// The value of a pointer constant in program-scope data.
enum ConstAddr {
    /// A plain number (a null pointer, an integer converted to a pointer).
    Value(u64),
    /// The address of the program-scope variable `var` plus `offset` bytes.
    Global { var: Id, offset: i64 },
}

impl Ctx<'_> {
    /// Bytes of a constant laid out in memory as type `ty`, written to `out`, which starts
    /// `at` bytes into the variable being initialized. Addresses of program-scope variables
    /// are left zero in `out` and recorded in `relocs` as `(offset, variable, addend)`.
    fn const_bytes(
        &self,
        id: Id,
        ty: Id,
        out: &mut [u8],
        at: usize,
        relocs: &mut Vec<DataReloc>,
    ) -> Result<(), CompileError> {
        let info = self.layout.get(ty)?;
        let is_spec_op = |id| {
            self.m
                .constant(id)
                .is_some_and(|c| matches!(c.value, ConstantValue::SpecOp { .. }))
        };
        // Pointers, and pointer-sized integers computed from addresses (OpConvertPtrToU).
        if matches!(info.ty, Ty::Pointer(..)) || (info.size == 8 && is_spec_op(id)) {
            let word = out
                .get_mut(..8)
                .ok_or_else(|| err(format!("constant %{id}: no room for a pointer")))?;
            match self.const_addr(id, 0)? {
                ConstAddr::Value(v) => word.copy_from_slice(&v.to_le_bytes()),
                ConstAddr::Global { var, offset } => {
                    word.fill(0);
                    let at = u32::try_from(at).map_err(|_| err(format!("constant %{id}: offset out of range")))?;
                    relocs.push((at, var, offset));
                }
            }
            return Ok(());
        }
        let c = self
            .m
            .constant(id)
            .ok_or_else(|| err(format!("initializer %{id} is not a constant")))?;
        let value = match (&c.value, c.spec, self.spec_override(id)) {
            (ConstantValue::Scalar(_), true, Some(v)) => ConstantValue::Scalar(v),
            (ConstantValue::Bool(_), true, Some(v)) => ConstantValue::Bool(v != 0),
            (v, _, _) => v.clone(),
        };
        match value {
            ConstantValue::Null | ConstantValue::Undef => {}
            ConstantValue::Bool(b) => {
                if let Some(x) = out.first_mut() {
                    *x = b as u8;
                }
            }
            ConstantValue::Scalar(bits) => {
                let n = (info.size as usize).min(8).min(out.len());
                out[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
            }
            ConstantValue::Composite(parts) => match &info.ty {
                Ty::Vector(..) | Ty::Array(..) => {
                    for (i, p) in parts.iter().enumerate() {
                        let o = i * info.stride as usize;
                        let end = out.len();
                        self.const_bytes(*p, info.elem, &mut out[o.min(end)..], at + o, relocs)?;
                    }
                }
                Ty::Struct(ms) => {
                    for (i, p) in parts.iter().enumerate() {
                        let o = *info.offsets.get(i).unwrap_or(&0) as usize;
                        let mty = *ms.get(i).ok_or_else(|| err("struct constant has too many members"))?;
                        let end = out.len();
                        self.const_bytes(*p, mty, &mut out[o.min(end)..], at + o, relocs)?;
                    }
                }
                _ => return Err(err(format!("composite constant %{id} of a non-composite type"))),
            },
            _ => return Err(err(format!("constant %{id} cannot initialize program-scope memory"))),
        }
        Ok(())
    }

    /// The value of a constant integer index (sign-extended, specialization applied).
    fn const_index(&self, id: Id) -> Result<i64, CompileError> {
        let c = self
            .m
            .constant(id)
            .ok_or_else(|| err(format!("index %{id} is not a constant")))?;
        let bits = match (&c.value, if c.spec { self.spec_override(id) } else { None }) {
            (_, Some(b)) => b,
            (ConstantValue::Scalar(v), None) => *v,
            (ConstantValue::Null, None) => 0,
            _ => return Err(err(format!("index %{id} is not an integer constant"))),
        };
        let w = match self.layout.get(c.ty)?.ty {
            Ty::Scalar(Scalar::Int(w)) => w,
            _ => return Err(err(format!("index %{id} is not an integer"))),
        };
        Ok(if w >= 64 {
            bits as i64
        } else {
            ((bits << (64 - w)) as i64) >> (64 - w)
        })
    }

    /// The value of a pointer (or pointer-sized integer) constant in program-scope data: a
    /// number, or the address of a program-scope variable plus a byte offset, through
    /// constant access chains and pointer casts.
    fn const_addr(&self, id: Id, depth: u32) -> Result<ConstAddr, CompileError> {
        if depth > 256 {
            return Err(err(format!("constant %{id}: address expression nested too deeply")));
        }
        let no = |why: &str| err(format!("constant %{id} cannot initialize program-scope memory: {why}"));
        if let Some(&(_, storage)) = self.globals.get(&id) {
            return match storage {
                StorageClass::Workgroup | StorageClass::Input | StorageClass::Function => Err(no(&format!(
                    "the address of the {storage:?} variable %{id} is not a program-wide constant"
                ))),
                _ => Ok(ConstAddr::Global { var: id, offset: 0 }),
            };
        }
        let c = self
            .m
            .constant(id)
            .ok_or_else(|| err(format!("initializer %{id} is not a constant")))?;
        let size = self.layout.get(c.ty)?.size;
        let operand = |i: usize| match c.value {
            ConstantValue::SpecOp { ref operands, .. } => match operands.get(i) {
                Some(Operand::IdRef(r)) => Ok(*r),
                _ => Err(no("malformed OpSpecConstantOp")),
            },
            _ => Err(no("not an OpSpecConstantOp")),
        };
        match &c.value {
            ConstantValue::Null | ConstantValue::Undef => Ok(ConstAddr::Value(0)),
            ConstantValue::Scalar(v) => {
                let bits = if c.spec {
                    self.spec_override(id).unwrap_or(*v)
                } else {
                    *v
                };
                let bits = if size >= 8 {
                    bits
                } else {
                    bits & ((1u64 << (size * 8)) - 1)
                };
                Ok(ConstAddr::Value(bits))
            }
            ConstantValue::SpecOp { opcode, operands } => match opcode {
                Op::Bitcast
                | Op::PtrCastToGeneric
                | Op::GenericCastToPtr
                | Op::GenericCastToPtrExplicit
                | Op::ConvertPtrToU
                | Op::ConvertUToPtr
                | Op::CopyObject => {
                    let inner = self.const_addr(operand(0)?, depth + 1)?;
                    match inner {
                        ConstAddr::Global { .. } if size != 8 => Err(no("an address converted to a narrower type")),
                        ConstAddr::Value(v) if size < 8 => Ok(ConstAddr::Value(v & ((1u64 << (size * 8)) - 1))),
                        a => Ok(a),
                    }
                }
                Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
                    let base = operand(0)?;
                    let mut cur = match self.globals.get(&base) {
                        Some(&(pointee, _)) => pointee,
                        None => {
                            let bc = self
                                .m
                                .constant(base)
                                .ok_or_else(|| no(&format!("access chain base %{base} is not a constant")))?;
                            match self.layout.get(bc.ty)?.ty {
                                Ty::Pointer(_, p) => p,
                                _ => return Err(no("access chain base is not a pointer")),
                            }
                        }
                    };
                    let mut off = 0i64;
                    let mut i = 1;
                    if matches!(opcode, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
                        let info = self.layout.get(cur)?;
                        let stride = match info.ty {
                            Ty::Array(..) => info.size,
                            _ => round_up(info.size, info.align),
                        };
                        off = self.const_index(operand(1)?)?.wrapping_mul(stride as i64);
                        i = 2;
                    }
                    while i < operands.len() {
                        let idx = self.const_index(operand(i)?)?;
                        let info = self.layout.get(cur)?;
                        match &info.ty {
                            Ty::Struct(ms) => {
                                let k = usize::try_from(idx)
                                    .ok()
                                    .filter(|k| *k < ms.len())
                                    .ok_or_else(|| no("struct index out of range"))?;
                                off = off.wrapping_add(info.offsets[k] as i64);
                                cur = ms[k];
                            }
                            Ty::Array(e, _) => {
                                off = off.wrapping_add(idx.wrapping_mul(info.stride as i64));
                                cur = *e;
                            }
                            Ty::Vector(..) => {
                                off = off.wrapping_add(idx.wrapping_mul(info.stride as i64));
                                cur = info.elem;
                            }
                            _ => return Err(no("index into a non-composite type")),
                        }
                        i += 1;
                    }
                    match self.const_addr(base, depth + 1)? {
                        ConstAddr::Global { var, offset } => Ok(ConstAddr::Global {
                            var,
                            offset: offset.wrapping_add(off),
                        }),
                        ConstAddr::Value(v) => Ok(ConstAddr::Value(v.wrapping_add(off as u64))),
                    }
                }
                other => Err(no(&format!("OpSpecConstantOp {other:?} is not an address expression"))),
            },
            _ => Err(no("not an address")),
        }
    }
}

/// Compiles every kernel of `m`; with `record`, also the native image of the result (see
/// `native`), `None` when the program holds something an image cannot carry.
pub(crate) fn compile_program(
    m: &Module,
    opts: &CompileOptions,
    force_fibers: bool,
    record: bool,
) -> Result<(Program, Option<Vec<u8>>), CompileError> {
    // Work-group and sub-group pipe reservations become collectives (`pipe`), then
    // work-group collectives become put / barrier / get (`collective`).
    let piped = super::pipe::rewrite(m);
    let m = piped.as_ref().unwrap_or(m);
    let rewritten = super::collective::rewrite(m);
    let m = rewritten.as_ref().unwrap_or(m);
    let layout = Layout::new(m)?;
    let (jit, math) = new_jit(opts.opt_level_none)?;

    let mut cx = Ctx {
        m,
        opts,
        layout,
        jit,
        funcs: HashMap::new(),
        data: HashMap::new(),
        local_offsets: HashMap::new(),
        builtins: HashMap::new(),
        rounding: HashMap::new(),
        saturated: HashSet::new(),
        spec_ids: HashMap::new(),
        byval: HashSet::new(),
        ext_sets: m.ext_inst_imports.iter().cloned().collect(),
        imports: HashMap::new(),
        math,
        globals: HashMap::new(),
        native: record.then(Recorder::new),
        image_facts: HashMap::new(),
        rb_variant: Default::default(),
        spin_edges: if opts.no_subgroup_ifp {
            HashSet::new()
        } else {
            super::spin::spin_edges(m)
        },
        alone_oracles: HashMap::new(),
        promoted_vars: HashSet::new(),
    };
    for d in &m.decorations {
        if d.member.is_some() {
            continue;
        }
        match (d.decoration, d.operands.first()) {
            (Decoration::BuiltIn, Some(Operand::BuiltIn(b))) => {
                cx.builtins.insert(d.target, *b);
            }
            (Decoration::FPRoundingMode, Some(Operand::FPRoundingMode(r))) => {
                cx.rounding.insert(d.target, *r as u32);
            }
            (Decoration::SaturatedConversion, _) => {
                cx.saturated.insert(d.target);
            }
            (Decoration::SpecId, Some(Operand::LiteralBit32(s))) => {
                cx.spec_ids.insert(d.target, *s);
            }
            (
                Decoration::FuncParamAttr,
                Some(Operand::FunctionParameterAttribute(FunctionParameterAttribute::ByVal)),
            ) => {
                cx.byval.insert(d.target);
            }
            _ => {}
        }
    }

    // Program-scope variables.
    let mut workgroup_vars: Vec<(Id, u64, u64)> = Vec::new();
    for v in &m.variables {
        let pointee = match cx.layout.get(v.ty)?.ty {
            Ty::Pointer(_, p) => p,
            _ => return Err(err(format!("OpVariable %{}: type is not a pointer", v.id))),
        };
        // Work-item builtins are Input variables; older translators declared them
        // UniformConstant. Either way the BuiltIn decoration decides.
        let storage = if cx.builtins.contains_key(&v.id) {
            StorageClass::Input
        } else {
            v.storage
        };
        cx.globals.insert(v.id, (pointee, storage));
        match storage {
            StorageClass::Input => {
                if !cx.builtins.contains_key(&v.id) {
                    return Err(err(format!("OpVariable %{}: Input variable without BuiltIn", v.id)));
                }
            }
            StorageClass::Workgroup => {
                // Placed once the kernels that use it are known (`place_locals`).
                let info = cx.layout.get(pointee)?;
                workgroup_vars.push((v.id, info.size, info.align.max(1)));
            }
            _ => {
                let info = cx.layout.get(pointee)?;
                // Program-scope data lives in the program's arena: anything larger cannot be
                // placed (and must not be allocated on the host first).
                if info.size > ARENA_RESERVE as u64 / 2 {
                    return Err(err(format!(
                        "OpVariable %{}: {} bytes of program-scope data is more than Clift can place",
                        v.id, info.size
                    )));
                }
                let writable = v.storage != StorageClass::UniformConstant;
                let id = cx
                    .jit
                    .declare_data(&format!("g{}", v.id), Linkage::Local, writable, false)
                    .map_err(|e| err(format!("OpVariable %{}: {e}", v.id)))?;
                cx.data.insert(v.id, id);
            }
        }
    }
    // Their contents, once every variable is declared (initializers may hold addresses of
    // program-scope variables: relocations in the data).
    for v in &m.variables {
        let Some(&id) = cx.data.get(&v.id) else {
            continue;
        };
        let (pointee, _) = cx.globals[&v.id];
        let info = cx.layout.get(pointee)?;
        let align = info.align.max(16);
        let mut bytes = vec![0u8; info.size.max(1) as usize];
        let mut relocs = Vec::new();
        if let Some(init) = v.initializer {
            cx.const_bytes(init, pointee, &mut bytes, 0, &mut relocs)
                .map_err(|e| err(format!("OpVariable %{}: {}", v.id, e.message)))?;
        }
        let mut dd = DataDescription::new();
        let mut data_relocs = Vec::with_capacity(relocs.len());
        for (offset, var, addend) in relocs {
            let target = *cx.data.get(&var).ok_or_else(|| {
                err(format!(
                    "OpVariable %{}: the address of %{var} cannot initialize program-scope memory",
                    v.id
                ))
            })?;
            let gv = cx.jit.declare_data_in_data(target, &mut dd);
            dd.write_data_addr(offset, gv, addend);
            data_relocs.push((offset, target, addend));
        }
        if let Some(rec) = cx.native.as_mut() {
            rec.data.push(DataCode {
                id,
                align,
                bytes: bytes.clone(),
                relocs: data_relocs,
            });
        }
        dd.define(bytes.into_boxed_slice());
        dd.set_align(align);
        cx.jit
            .define_data(id, &dd)
            .map_err(|e| err(format!("OpVariable %{}: {e}", v.id)))?;
    }

    // How each kernel runs: work-item loops (no barriers), regions (barriers as yield points,
    // functions with barriers inlined) or fibers (the fallback).
    let barrier_fns = inline::barrier_functions(&cx);
    let mut next_id = inline::id_bound(&cx);
    struct Plan {
        index: usize,
        name: String,
        func: Id,
        strategy: BarrierStrategy,
        body: Option<Function>,
        has_barriers: bool,
        private: usize,
        calls: CallScan,
        promoted_loops: u32,
    }
    let mut plans = Vec::new();
    for (i, ep) in m.entry_points.iter().enumerate() {
        if ep.model != ExecutionModel::Kernel {
            continue;
        }
        if opts.specialize.as_ref().is_some_and(|s| s.kernel != ep.name) {
            continue;
        }
        let f = m
            .function(ep.function)
            .ok_or_else(|| err(format!("OpEntryPoint {}: function %{} not found", ep.name, ep.function)))?;
        let calls = scan_calls(m, &cx, f.id);
        let (has_barriers, private) = (calls.barrier, calls.private);
        let (strategy, body) = if super::spin::reaches_spin(m, f.id, &cx.spin_edges) {
            // A potential spin loop: the work-items run as fibers that yield at its
            // back-edges, so the work-item it waits for runs (`spin`).
            (BarrierStrategy::Fibers, None)
        } else if !has_barriers {
            // Small callees are inlined into the work-item loop too (when possible).
            (
                BarrierStrategy::WorkItemLoops,
                inline::flatten(&mut cx, f, &barrier_fns, &mut next_id),
            )
        } else if force_fibers {
            (BarrierStrategy::Fibers, None)
        } else {
            match inline::flatten(&mut cx, f, &barrier_fns, &mut next_id) {
                Some(b) => (BarrierStrategy::Regions, Some(b)),
                None => {
                    let why = "barriers in calls that cannot be inlined: the work-items run as fibers";
                    if let Some(msg) = super::simd::strict_decline(&ep.name, "the kernel", why) {
                        return Err(err(msg));
                    }
                    (BarrierStrategy::Fibers, None)
                }
            }
        };
        // Loops with atomics on memory they hold in registers when the command is alone
        // (not in fiber kernels: their work-items switch inside spin loops).
        let mut promoted_loops = 0;
        let body = body.map(|mut b| {
            promoted_loops = super::promote::promote_loops(&mut cx, &mut b, &mut next_id) as u32;
            b
        });
        plans.push(Plan {
            index: i,
            name: ep.name.clone(),
            func: f.id,
            strategy,
            body,
            has_barriers,
            private,
            calls,
            promoted_loops,
        });
    }

    let local_sizes = place_locals(
        &mut cx,
        &workgroup_vars,
        &plans.iter().map(|p| &p.calls.locals).collect::<Vec<_>>(),
    );

    // The functions that need a definition of their own: everything called from a work-group
    // body and everything a fiber kernel reaches.
    let mut needed: HashSet<Id> = HashSet::new();
    let mut stack: Vec<Id> = Vec::new();
    for p in &plans {
        match (&p.body, p.strategy) {
            (_, BarrierStrategy::Fibers) => stack.push(p.func),
            (Some(b), _) => stack.extend(callees(b)),
            (None, _) => {
                if let Some(f) = m.function(p.func) {
                    stack.extend(callees(f));
                }
            }
        }
    }
    while let Some(id) = stack.pop() {
        if needed.insert(id) {
            if let Some(f) = m.function(id) {
                stack.extend(callees(f));
            }
        }
    }

    // Declare every needed function.
    for f in &m.functions {
        if f.is_declaration() || !needed.contains(&f.id) {
            continue;
        }
        let sig = cx.signature(f)?;
        let id = cx
            .jit
            .declare_function(&format!("f{}", f.id), Linkage::Local, &sig)
            .map_err(|e| err(format!("OpFunction %{}: {e}", f.id)))?;
        cx.funcs.insert(f.id, id);
    }

    let mut ctx = cx.jit.make_context();
    let mut fbc = FunctionBuilderContext::new();
    for (i, f) in m.functions.iter().enumerate() {
        if f.is_declaration() || !needed.contains(&f.id) {
            continue;
        }
        let fid = cx.funcs[&f.id];
        ctx.func.signature = cx.signature(f)?;
        ctx.func.name = UserFuncName::user(0, i as u32);
        translate::translate_function(&mut cx, f, &mut ctx.func, &mut fbc)?;
        define(&mut cx, fid, &mut ctx, &format!("OpFunction %{}", f.id))?;
    }

    // Work-group functions and fiber wrappers.
    let mut pending = Vec::new();
    for (p, static_local_size) in plans.into_iter().zip(local_sizes) {
        let f = m
            .function(p.func)
            .ok_or_else(|| err(format!("kernel {}: function %{} not found", p.name, p.func)))?;
        let (args, mut args_size) = kernel_args(&cx, f)?;
        let robust_tail = opts.robust.then_some(args_size);
        if opts.robust {
            args_size += super::robust::robust_tail(args.len());
        }
        let code = match p.strategy {
            BarrierStrategy::Fibers => Code::Fiber(build_wrapper(&mut cx, f, &p.name, p.index, &mut ctx, &mut fbc)?),
            s => {
                let body = p.body.as_ref().unwrap_or(f);
                let regions = s == BarrierStrategy::Regions;
                let g = group::build_group(&mut cx, f, body, &p.name, p.index, regions, &mut ctx, &mut fbc)?;
                Code::Group(g.fid, g.record_size)
            }
        };
        let mut k0 = Kernel0 {
            name: p.name.clone(),
            args,
            args_size,
            static_local_size,
            reqd: None,
            hint: None,
            private: p.private,
            has_barriers: p.has_barriers,
            shared_atomics: p.calls.shared_atomics,
            group_blind: p.strategy == BarrierStrategy::WorkItemLoops && !p.has_barriers && !p.calls.group_aware,
            promoted_loops: p.promoted_loops,
            robust_tail,
        };
        for em in m.execution_modes.iter().filter(|e| e.entry == p.func) {
            let three = || -> Option<[u32; 3]> {
                Some([
                    lit(em.operands.first())?,
                    lit(em.operands.get(1))?,
                    lit(em.operands.get(2))?,
                ])
            };
            match em.mode {
                ExecutionMode::LocalSize => k0.reqd = three(),
                ExecutionMode::LocalSizeHint => k0.hint = three(),
                _ => {}
            }
        }
        pending.push(Pending {
            kernel: k0,
            code,
            strategy: p.strategy,
        });
    }

    cx.jit
        .finalize_definitions()
        .map_err(|e| err(format!("linking: {e}")))?;
    let image = cx
        .native
        .as_ref()
        .and_then(|rec| native::encode(&cx.jit, rec, &pending));
    Ok((program_from(cx.jit, pending), image))
}

/// The functions `f` calls directly.
fn callees(f: &Function) -> Vec<Id> {
    let mut out = Vec::new();
    for blk in &f.blocks {
        for inst in &blk.instructions {
            if inst.opcode == Op::FunctionCall {
                if let Some(Operand::IdRef(c)) = inst.operands.first() {
                    out.push(*c);
                }
            }
        }
    }
    out
}

/// Builds `fn(args: *const u8, wi: *mut WorkItem)` that loads the kernel's arguments from the
/// argument block and calls the kernel function (one work-item; the fiber fallback).
fn build_wrapper(
    cx: &mut Ctx,
    f: &Function,
    name: &str,
    index: usize,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
) -> Result<FuncId, CompileError> {
    let mut sig = cx.jit.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    let fid = cx
        .jit
        .declare_function(&format!("kernel{index}"), Linkage::Local, &sig)
        .map_err(|e| err(format!("kernel {name}: {e}")))?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(1, index as u32);
    let callee = *cx
        .funcs
        .get(&f.id)
        .ok_or_else(|| err(format!("kernel {name}: no body")))?;
    let (args, _) = kernel_args(cx, f)?;
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let argp = b.block_params(entry)[0];
        let wi = b.block_params(entry)[1];
        let mut call_args = Vec::new();
        for v in load_args(cx, &mut b, f, &args, argp, wi)? {
            match v {
                ArgVal::Leaves(l) => call_args.extend(l),
                ArgVal::ByVal { src, size, align } => {
                    call_args.push(stack_copy(&mut b, cx.jit.target_config(), src, size, align))
                }
            }
        }
        call_args.push(wi);
        let fref = cx.jit.declare_func_in_func(callee, b.func);
        b.ins().call(fref, &call_args);
        b.ins().return_(&[]);
        let cfg = cx.jit.target_config();
        b.finalize(cfg);
    }
    define(cx, fid, ctx, &format!("kernel {name}"))?;
    Ok(fid)
}

/// Whether the call graph from `root` contains a work-group barrier (or a wait for group
/// events), and the bytes of Function variables along it.
/// What a kernel reaches through its calls.
#[derive(Clone)]
struct CallScan {
    /// The Workgroup (`__local`) variables it uses, in the order they are first seen.
    locals: Vec<Id>,
    /// A work-group barrier (or a wait for events).
    barrier: bool,
    /// Bytes of Function-storage variables, all functions together.
    private: usize,
    /// An atomic on memory that may not be local memory (see `Kernel::shared_atomics`).
    shared_atomics: bool,
    /// Something that tells one work-group from another or involves the group as a whole:
    /// a work-item built-in other than the global ones (local id, group id, sizes, sub-group
    /// built-ins), local memory, or a group or sub-group instruction (see
    /// `Kernel::group_blind`).
    group_aware: bool,
}

fn scan_calls(m: &Module, cx: &Ctx, root: Id) -> CallScan {
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    let mut scan = CallScan {
        locals: Vec::new(),
        barrier: false,
        private: 0,
        shared_atomics: false,
        group_aware: false,
    };
    let workgroup_vars: HashSet<Id> = m
        .variables
        .iter()
        .filter(|v| v.storage == StorageClass::Workgroup)
        .map(|v| v.id)
        .collect();
    while let Some(fid) = stack.pop() {
        if !seen.insert(fid) {
            continue;
        }
        let Some(f) = m.function(fid) else { continue };
        // The pointer types of the function's values.
        let types: HashMap<Id, Id> = f
            .params
            .iter()
            .copied()
            .chain(
                f.blocks
                    .iter()
                    .flat_map(|b| &b.instructions)
                    .filter_map(|i| Some((i.result_id?, i.result_type?))),
            )
            .collect();
        let local = |p: Id| {
            workgroup_vars.contains(&p)
                || types.get(&p).is_some_and(|t| {
                    matches!(
                        cx.layout.get(*t).map(|i| &i.ty),
                        Ok(Ty::Pointer(StorageClass::Workgroup, _))
                    )
                })
        };
        scan.group_aware |= f.params.iter().any(|&(p, _)| local(p));
        for blk in &f.blocks {
            for inst in &blk.instructions {
                for o in &inst.operands {
                    if let Operand::IdRef(id) = o {
                        if workgroup_vars.contains(id) && !scan.locals.contains(id) {
                            scan.locals.push(*id);
                        }
                    }
                }
                scan.group_aware |= inst.result_id.is_some_and(local)
                    || is_group_op(inst.opcode)
                    || inst.operands.iter().any(|o| match o {
                        Operand::IdRef(id) => {
                            workgroup_vars.contains(id) || cx.builtins.get(id).is_some_and(|b| !global_builtin(*b))
                        }
                        _ => false,
                    });
                match inst.opcode {
                    Op::FunctionCall => {
                        if let Some(Operand::IdRef(c)) = inst.operands.first() {
                            stack.push(*c);
                        }
                    }
                    Op::ControlBarrier | Op::GroupWaitEvents => scan.barrier = true,
                    Op::Variable => {
                        if let Some(ty) = inst.result_type {
                            if let Ok(Ty::Pointer(_, p)) = cx.layout.get(ty).map(|i| i.ty.clone()) {
                                scan.private += cx.layout.get(p).map(|i| i.size as usize).unwrap_or(0);
                            }
                        }
                    }
                    op if is_atomic(op) => {
                        let on_local = matches!(inst.operands.first(), Some(Operand::IdRef(p)) if local(*p));
                        scan.shared_atomics |= !on_local;
                    }
                    _ => {}
                }
            }
        }
    }
    scan
}

/// Offsets of the program's Workgroup variables in the local arena, and each kernel's
/// static local size (`kernels[k]`: the variables kernel `k` uses). One offset per variable
/// (a function that several kernels call addresses it the same way), first fit: a variable
/// overlaps none of those it shares a kernel with, so each kernel needs only its own
/// variables' bytes (`__local` arrays declared in different kernels share the same place).
/// A variable no kernel uses gets offset 0.
fn place_locals(cx: &mut Ctx, vars: &[(Id, u64, u64)], kernels: &[&Vec<Id>]) -> Vec<usize> {
    let mut placed: HashMap<Id, (u64, u64)> = HashMap::new();
    for &(id, size, align) in vars {
        let users: Vec<usize> = (0..kernels.len()).filter(|&k| kernels[k].contains(&id)).collect();
        // The places taken by variables that share a kernel with this one, in address order.
        let mut taken: Vec<(u64, u64)> = users
            .iter()
            .flat_map(|&k| kernels[k].iter().filter_map(|v| placed.get(v).copied()))
            .collect();
        taken.sort_unstable();
        let mut off = 0u64;
        for (start, end) in taken {
            if off + size <= start {
                break;
            }
            if end > off {
                off = round_up(end, align);
            }
        }
        if users.is_empty() {
            off = 0;
        }
        cx.local_offsets.insert(id, off);
        placed.insert(id, (off, off + size));
    }
    kernels
        .iter()
        .map(|vs| {
            let end = vs.iter().filter_map(|v| placed.get(v)).map(|p| p.1).max().unwrap_or(0);
            round_up(end, 16) as usize
        })
        .collect()
}

/// The work-item built-ins whose value does not depend on how the range is cut into
/// work-groups.
fn global_builtin(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::GlobalInvocationId
            | BuiltIn::GlobalSize
            | BuiltIn::GlobalOffset
            | BuiltIn::GlobalLinearId
            | BuiltIn::WorkDim
    )
}

/// Work-group and sub-group instructions (collectives, async copies, shuffles, ballots,
/// named barriers).
fn is_group_op(op: Op) -> bool {
    let name = format!("{op:?}");
    name.starts_with("Group") || name.contains("Subgroup") || name.contains("NamedBarrier")
}

// Keep `WorkItem` referenced from this module for documentation links.
#[allow(dead_code)]
type _Wi = WorkItem;
