//! The compile context of a program (`Ctx`): the module being compiled, its options, type
//! layouts, the JIT module and what has been declared in it, the native image's record; and
//! what every layer that builds functions does with it: defining a function, a kernel's
//! argument layout and its loads.

use super::driver::OFF_LOCAL_MEM;
use super::layout::{copy_struct, load_leaves, round_up, Id, Layout, Scalar, Ty};
use super::{ArgFact, CompileError, CompileOptions};
use crate::abi::{ArgKind, KernelArg};
use crate::spirv::module::Function;
use crate::spirv::Module;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::{DataId, FuncId, Linkage, Module as _, ModuleReloc};
use rspirv::spirv::{BuiltIn, StorageClass};
use std::collections::{HashMap, HashSet};

/// The names of the symbols a program's JIT module resolves (`program::new_jit`): helpers,
/// math, image and pipe functions.
pub(crate) struct SymbolNames(pub &'static HashMap<&'static str, usize>);

impl SymbolNames {
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&'static str> {
        self.0.get_key_value(name).map(|(k, _)| *k)
    }
}

pub(crate) struct Ctx<'m> {
    pub m: &'m Module,
    pub opts: &'m CompileOptions,
    pub layout: Layout,
    pub jit: JITModule,
    pub funcs: HashMap<Id, FuncId>,
    pub data: HashMap<Id, DataId>,
    pub local_offsets: HashMap<Id, u64>,
    pub builtins: HashMap<Id, BuiltIn>,
    pub rounding: HashMap<Id, u32>,
    pub saturated: HashSet<Id>,
    pub spec_ids: HashMap<Id, u32>,
    pub byval: HashSet<Id>,
    pub ext_sets: HashMap<Id, String>,
    pub imports: HashMap<String, FuncId>,
    pub math: SymbolNames,
    pub globals: HashMap<Id, (Id, StorageClass)>,
    /// What the native image needs, when one is made.
    pub native: Option<Recorder>,
    /// In the work-group function being built: the image arguments whose format an enqueue
    /// gave (`CompileOptions::specialize`), by the value of their descriptor pointer.
    pub image_facts: HashMap<Value, super::ArgFact>,
    /// Robust mode: which of a kernel's work-group functions is being built (`robust_group`).
    pub rb_variant: Variant,
    /// The back-edges `(from, header)` of potential spin loops, which yield (`super::spin`).
    pub spin_edges: HashSet<(Id, Id)>,
    /// OpUndef results that stand for "only this thread can take part in the atomics"
    /// (`promote`: the dispatch before a loop whose memory is held in registers): no other
    /// thread runs a work-group of the range, and with `true` also no host thread can use
    /// the command's memory (the loop has an atomic at `memory_scope_all_svm_devices`).
    pub alone_oracles: HashMap<Id, bool>,
    /// The Function variables `promote` holds a loop's shared memory in: one work-item at a
    /// time must run such a loop (the vector loop declines it).
    pub promoted_vars: HashSet<Id>,
}

fn err(s: impl Into<String>) -> CompileError {
    CompileError::new(s)
}

impl<'m> Ctx<'m> {
    /// The Cranelift signature of a SPIR-V function: flattened parameters, then the work-item
    /// state pointer; flattened results.
    pub fn signature(&self, f: &Function) -> Result<Signature, CompileError> {
        let mut sig = self.jit.make_signature();
        for (_, ty) in &f.params {
            for l in &self.layout.get(*ty)?.leaves {
                sig.params.push(AbiParam::new(*l));
            }
        }
        sig.params.push(AbiParam::new(types::I64));
        for l in &self.layout.get(f.result_type)?.leaves {
            sig.returns.push(AbiParam::new(*l));
        }
        Ok(sig)
    }

    /// Value of a specialization constant's SpecId override, if any.
    pub fn spec_override(&self, id: Id) -> Option<u64> {
        let sid = self.spec_ids.get(&id)?;
        self.opts.spec_constants.get(sid).copied()
    }

    /// Declares (on first use) an imported helper function by symbol.
    pub fn import(&mut self, name: &str, params: &[types::Type], rets: &[types::Type]) -> Result<FuncId, CompileError> {
        if let Some(id) = self.imports.get(name) {
            return Ok(*id);
        }
        let mut sig = self.jit.make_signature();
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(rets.iter().map(|t| AbiParam::new(*t)));
        let id = self
            .jit
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| err(format!("declaring helper {name}: {e}")))?;
        self.imports.insert(name.to_string(), id);
        Ok(id)
    }
}

/// One function's machine code as Cranelift produced it.
pub(crate) struct FuncCode {
    pub id: FuncId,
    pub align: u64,
    pub bytes: Vec<u8>,
    pub relocs: Vec<ModuleReloc>,
}

/// One program-scope variable's initial contents, with the addresses of other variables
/// they hold: `(offset, target, addend)`, each a pointer-sized absolute relocation.
pub(crate) struct DataCode {
    pub id: DataId,
    pub align: u64,
    pub bytes: Vec<u8>,
    pub relocs: Vec<(u32, DataId, i64)>,
}

/// What a compilation records for its image; `complete` turns false when something was
/// produced that an image cannot carry (the program then simply is not cached).
pub(crate) struct Recorder {
    pub funcs: Vec<FuncCode>,
    pub data: Vec<DataCode>,
    pub complete: bool,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            funcs: Vec::new(),
            data: Vec::new(),
            complete: true,
        }
    }
}

/// Which work-group function of a robust kernel is being built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Variant {
    /// The only one (no group-level check).
    #[default]
    Plain,
    /// Without the checks the group-level check covers.
    Unchecked,
    /// With every check, calling the unchecked function (this id) for groups in range.
    Checked(FuncId),
    /// The only one, after a pair could not be used (its own symbol name).
    Retry,
}

impl Variant {
    /// What the work-group function's symbol name ends with.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Variant::Unchecked => "u",
            Variant::Retry => "r",
            _ => "",
        }
    }
}

/// What `build_group` produced.
pub(crate) struct GroupFn {
    pub fid: FuncId,
    /// Bytes of each work-item's record in the spill area (0 without barriers).
    pub record_size: usize,
}

pub(crate) fn define(cx: &mut Ctx, fid: FuncId, ctx: &mut Context, what: &str) -> Result<(), CompileError> {
    // CLIFT_DUMP_CODE=1 prints the generated machine code of every function (debugging aid).
    // CLIFT_DUMP_CODE=clif prints the Cranelift IR given to the code generator first.
    let dump = std::env::var_os("CLIFT_DUMP_CODE");
    if dump.as_ref().is_some_and(|v| v == "clif") {
        eprintln!("== {what} (Cranelift IR)\n{}", ctx.func.display());
    }
    let dump = dump.is_some();
    if dump {
        ctx.set_disasm(true);
    }
    if !cx.opts.opt_level_none {
        super::block_params::merge_congruent(&mut ctx.func);
    }
    super::float_select::branch_free(&mut ctx.func);
    if !cx.opts.opt_level_none && super::pure_loads::enabled() {
        super::pure_loads::mark(&mut ctx.func);
    }
    let r = verify_and_define(&mut cx.jit, fid, ctx);
    if dump {
        if let Some(cc) = ctx.compiled_code() {
            eprintln!("== {what}\n{}", cc.vcode.as_deref().unwrap_or(""));
        }
    }
    if let Err(e) = r {
        let detail = match &e {
            cranelift_module::ModuleError::Compilation(ce) => {
                format!("{:?}\n{}", ce, ctx.func.display())
            }
            _ => e.to_string(),
        };
        cx.jit.clear_context(ctx);
        return Err(err(format!("{what}: code generation failed: {detail}")));
    }
    if let (Some(rec), Some(cc)) = (cx.native.as_mut(), ctx.compiled_code()) {
        let align = (cc.buffer.alignment as u64)
            .max(cx.jit.isa().function_alignment().minimum as u64)
            .max(cx.jit.isa().symbol_alignment());
        let relocs = cc
            .buffer
            .relocs()
            .iter()
            .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, fid))
            .collect();
        rec.funcs.push(FuncCode {
            id: fid,
            align,
            bytes: cc.code_buffer().to_vec(),
            relocs,
        });
    }
    cx.jit.clear_context(ctx);
    Ok(())
}

/// Verifies the function in `ctx` and compiles it into `jit` as `fid`. The verifier runs
/// here, once, on the IR as translated: the ISA is built without Cranelift's own verifier,
/// which would check the same function five times (before its passes and after each; see
/// `program::make_isa`).
// The error is `JITModule::define_function`'s own, passed through unchanged.
#[allow(clippy::result_large_err)]
pub(crate) fn verify_and_define(
    jit: &mut JITModule,
    fid: FuncId,
    ctx: &mut Context,
) -> Result<(), cranelift_module::ModuleError> {
    cranelift_codegen::verify_function(&ctx.func, jit.isa()).map_err(|errors| {
        cranelift_module::ModuleError::Compilation(cranelift_codegen::CodegenError::Verifier(errors))
    })?;
    jit.define_function(fid, ctx)
}

/// A kernel parameter's value as the work-group code receives it.
pub(crate) enum ArgVal {
    /// Flattened leaves, the same for every work-item.
    Leaves(Vec<Value>),
    /// A by-value struct: every work-item gets a private copy of `size` bytes at `src`.
    ByVal { src: Value, size: u64, align: u64 },
}

/// The argument block layout of kernel function `f`.
pub(crate) fn kernel_args(cx: &Ctx, f: &Function) -> Result<(Vec<KernelArg>, usize), CompileError> {
    let mut args = Vec::new();
    let mut off = 0usize;
    for (pid, ty) in &f.params {
        let info = cx.layout.get(*ty)?;
        let pname = cx.m.name_of(*pid).map(str::to_string);
        let (kind, size, align) = match info.ty {
            Ty::Pointer(sc, pointee) => match sc {
                StorageClass::Workgroup => (ArgKind::Local, 8, 8),
                StorageClass::UniformConstant => (ArgKind::Constant, 8, 8),
                StorageClass::Function if cx.byval.contains(pid) => {
                    let pi = cx.layout.get(pointee)?;
                    (ArgKind::Value, pi.size as usize, pi.align.max(1) as usize)
                }
                _ => (ArgKind::Global, 8, 8),
            },
            Ty::Scalar(Scalar::Ptr) => {
                let k = match cx.m.type_of(*ty) {
                    Some(crate::spirv::module::Type::Image { .. }) => ArgKind::Image,
                    Some(crate::spirv::module::Type::Sampler) => ArgKind::Sampler,
                    Some(crate::spirv::module::Type::Pipe { .. }) => ArgKind::Pipe,
                    _ => ArgKind::Value,
                };
                (k, 8, 8)
            }
            _ => (ArgKind::Value, info.size as usize, info.align.max(1) as usize),
        };
        off = round_up(off as u64, align as u64) as usize;
        args.push(KernelArg {
            kind,
            offset: off,
            size,
            align,
            name: pname,
        });
        off += size;
    }
    Ok((args, round_up(off as u64, 8) as usize))
}

/// Loads the parameters of kernel function `f` from the argument block at `argp`.
pub(crate) fn load_args(
    cx: &mut Ctx,
    b: &mut FunctionBuilder,
    f: &Function,
    args: &[KernelArg],
    argp: Value,
    wi: Value,
) -> Result<Vec<ArgVal>, CompileError> {
    let flags = MemFlagsData::trusted();
    let mut out = Vec::new();
    cx.image_facts.clear();
    for (k, ((_, ty), ka)) in f.params.iter().zip(args).enumerate() {
        let info = cx.layout.get(*ty)?;
        let off = ka.offset;
        // What an enqueue knows about this argument (a specialised variant).
        let fact = cx
            .opts
            .specialize
            .as_ref()
            .and_then(|s| s.args.get(k).copied().flatten());
        out.push(match (ka.kind, &info.ty, fact) {
            (ArgKind::Sampler, _, Some(ArgFact::Sampler(bits))) => {
                ArgVal::Leaves(vec![b.ins().iconst(types::I64, i64::from(bits))])
            }
            (ArgKind::Image, _, Some(fact @ ArgFact::Image { .. })) => {
                let v = b.ins().load(types::I64, flags, argp, off as i32);
                cx.image_facts.insert(v, fact);
                ArgVal::Leaves(vec![v])
            }
            (ArgKind::Local, _, _) => {
                let o = b.ins().load(types::I64, flags, argp, off as i32);
                let base = b.ins().load(types::I64, flags, wi, OFF_LOCAL_MEM as i32);
                ArgVal::Leaves(vec![b.ins().iadd(base, o)])
            }
            (ArgKind::Value, Ty::Pointer(_, pointee), _) => {
                let pi = cx.layout.get(*pointee)?;
                ArgVal::ByVal {
                    src: b.ins().iadd_imm_s(argp, off as i64),
                    size: pi.size,
                    align: pi.align.max(1),
                }
            }
            (ArgKind::Value, _, _) => {
                let a = b.ins().iadd_imm_s(argp, off as i64);
                ArgVal::Leaves(load_leaves(&cx.layout, b, *ty, a, 0)?)
            }
            _ => ArgVal::Leaves(vec![b.ins().load(types::I64, flags, argp, off as i32)]),
        });
    }
    Ok(out)
}

/// A private stack copy of a by-value argument.
pub(crate) fn stack_copy(
    b: &mut FunctionBuilder,
    cfg: TargetFrontendConfig,
    src: Value,
    size: u64,
    align: u64,
) -> Value {
    let slot = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        size.max(1) as u32,
        align.max(1).trailing_zeros().min(6) as u8,
    ));
    let dst = b.ins().stack_addr(types::I64, slot, 0);
    copy_struct(b, cfg, dst, src, size);
    dst
}
