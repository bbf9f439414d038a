//! A program's JIT module and the `Program` made of it, shared by compilation (`module`) and
//! the loading of native images (`native`): the host ISA, the JIT module with every helper
//! symbol registered, the kernels' launch descriptions before their code has an address.

use super::context::SymbolNames;
use super::driver::{EntryFn, Exec, GroupFn};
use super::{
    collective, helpers, khr_ext, math_symbols, printf, BarrierStrategy, CodeMemory, CompileError, Kernel, Program,
};
use crate::abi::KernelArg;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::FuncId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

fn err(s: impl Into<String>) -> CompileError {
    CompileError::new(s)
}

/// Address space reserved for one program's code and data.
pub(crate) const ARENA_RESERVE: usize = 256 << 20;

pub(crate) fn make_isa(opt_level_none: bool) -> Result<cranelift_codegen::isa::OwnedTargetIsa, CompileError> {
    // The same two ISAs serve every program of the process (detecting the host's features
    // and building the flags is not free).
    type Isa = Result<cranelift_codegen::isa::OwnedTargetIsa, String>;
    static ISAS: [OnceLock<Isa>; 2] = [OnceLock::new(), OnceLock::new()];
    ISAS[opt_level_none as usize]
        .get_or_init(|| build_isa(opt_level_none).map_err(|e| e.message))
        .clone()
        .map_err(err)
}

fn build_isa(opt_level_none: bool) -> Result<cranelift_codegen::isa::OwnedTargetIsa, CompileError> {
    let mut flags = settings::builder();
    let set =
        |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(|e| err(format!("cranelift flag {k}: {e}")));
    set(&mut flags, "opt_level", if opt_level_none { "none" } else { "speed" })?;
    set(
        &mut flags,
        "enable_verifier",
        // Cranelift's verifier would run five times per function (before its passes and
        // after each). `context::define` runs it once, on the IR as translated, before code
        // generation: IR that a malformed module slipped past the validator is then a build
        // error, never code generated from inconsistent IR.
        "false",
    )?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
    let isa_builder = cranelift_native::builder().map_err(|e| err(format!("host ISA: {e}")))?;
    isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| err(format!("host ISA: {e}")))
}

/// Every helper, math, image and pipe symbol the generated code may call, by name.
fn symbol_table() -> &'static HashMap<&'static str, usize> {
    static TABLE: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    TABLE.get_or_init(|| {
        helper_symbols()
            .into_iter()
            .chain(math_symbols())
            .chain(crate::image::symbols())
            .chain(crate::pipe::symbols())
            .map(|(name, ptr)| (name, ptr as usize))
            .collect()
    })
}

/// A JIT module for one program that resolves every helper, math and image symbol; the
/// names of those symbols come with it.
pub(crate) fn new_jit(opt_level_none: bool) -> Result<(JITModule, SymbolNames), CompileError> {
    let isa = make_isa(opt_level_none)?;
    let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    // One contiguous reservation per program: code refers to its functions and data with
    // 32-bit PC-relative relocations, which separate allocations could put out of reach.
    // The reservation is address space only; pages are committed as the JIT fills them.
    let arena = ArenaMemoryProvider::new_with_size(ARENA_RESERVE).map_err(|e| err(format!("JIT memory: {e}")))?;
    // Its executable part is registered as JIT code for fault containment (`crate::fault`).
    jb.memory_provider(Box::new(crate::fault::CodeArena::new(arena)));
    // One shared table instead of a copy of every name per program.
    let table = symbol_table();
    jb.symbol_lookup_fn(Box::new(move |name| table.get(name).map(|&p| p as *const u8)));
    Ok((JITModule::new(jb), SymbolNames(table)))
}

/// `(name, address)` of every helper, for the JIT's symbol table.
fn helper_symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("clift_cvt_int_f32", helpers::clift_cvt_int_f32 as *const u8),
        ("clift_cvt_int_f64", helpers::clift_cvt_int_f64 as *const u8),
        ("clift_cvt_int_f16", helpers::clift_cvt_int_f16 as *const u8),
        ("clift_cvt_f64_f32", helpers::clift_cvt_f64_f32 as *const u8),
        ("clift_cvt_f64_f16", helpers::clift_cvt_f64_f16 as *const u8),
        ("clift_cvt_f32_f16", helpers::clift_cvt_f32_f16 as *const u8),
        ("clift_cvt_f16_f32", helpers::clift_cvt_f16_f32 as *const u8),
        ("clift_cvt_f16_f64", helpers::clift_cvt_f16_f64 as *const u8),
        ("clift_frem_f32", helpers::clift_frem_f32 as *const u8),
        ("clift_frem_f64", helpers::clift_frem_f64 as *const u8),
        ("clift_mad_sat_i64", helpers::clift_mad_sat_i64 as *const u8),
        ("clift_barrier", helpers::clift_barrier as *const u8),
        ("clift_sub_group_barrier", helpers::clift_sub_group_barrier as *const u8),
        ("clift_spin_yield", helpers::clift_spin_yield as *const u8),
        ("clift_async_copy", helpers::clift_async_copy as *const u8),
        ("clift_wg_put", collective::clift_wg_put as *const u8),
        ("clift_wg_get", collective::clift_wg_get as *const u8),
        ("clift_printf", printf::clift_printf as *const u8),
        ("clift_read_clock", khr_ext::clift_read_clock as *const u8),
    ]
}

/// The program of a finalized JIT module: each kernel with its entry function's address.
pub(crate) fn program_from(jit: JITModule, pending: Vec<Pending>) -> Program {
    let execs: Vec<Exec> = pending
        .iter()
        .map(|p| match p.code {
            Code::Group(fid, record) => {
                let ptr = jit.get_finalized_function(fid);
                // SAFETY: the function was built with the `GroupFn` signature.
                let f = unsafe { std::mem::transmute::<*const u8, GroupFn>(ptr) };
                Exec::Group { f, record }
            }
            Code::Fiber(fid) => {
                let ptr = jit.get_finalized_function(fid);
                // SAFETY: the wrapper was built with the `EntryFn` signature.
                Exec::Fibers(unsafe { std::mem::transmute::<*const u8, EntryFn>(ptr) })
            }
        })
        .collect();
    let code = Arc::new(CodeMemory(Some(jit)));
    let kernels = pending
        .into_iter()
        .zip(execs)
        .map(|(p, exec)| {
            let k = p.kernel;
            Arc::new(Kernel {
                name: k.name,
                args: k.args,
                args_size: k.args_size,
                static_local_size: k.static_local_size,
                reqd_work_group_size: k.reqd,
                work_group_size_hint: k.hint,
                private_mem_size: k.private,
                has_barriers: k.has_barriers,
                shared_atomics: k.shared_atomics,
                group_blind: k.group_blind,
                promoted_loops: k.promoted_loops,
                robust_tail: k.robust_tail,
                barrier_strategy: p.strategy,
                exec,
                _code: code.clone(),
            })
        })
        .collect();
    Program { kernels, _code: code }
}

/// A kernel's launch description before its code has an address.
pub(crate) struct Kernel0 {
    pub name: String,
    pub args: Vec<KernelArg>,
    pub args_size: usize,
    pub static_local_size: usize,
    pub reqd: Option<[u32; 3]>,
    pub hint: Option<[u32; 3]>,
    pub private: usize,
    pub has_barriers: bool,
    pub shared_atomics: bool,
    pub group_blind: bool,
    pub promoted_loops: u32,
    pub robust_tail: Option<usize>,
}

/// The function a kernel's work-groups run.
#[derive(Clone, Copy)]
pub(crate) enum Code {
    /// A work-group function and its per-work-item record size.
    Group(FuncId, usize),
    /// The fiber wrapper of one work-item.
    Fiber(FuncId),
}

pub(crate) struct Pending {
    pub kernel: Kernel0,
    pub code: Code,
    pub strategy: BarrierStrategy,
}

#[cfg(test)]
mod tests {
    use super::super::context::verify_and_define;
    use super::*;
    use cranelift_codegen::ir::UserFuncName;
    use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
    use cranelift_codegen::Context;
    use cranelift_frontend::FunctionBuilder;
    use cranelift_frontend::FunctionBuilderContext;
    use cranelift_module::{Linkage, Module as _};

    /// `fn(i64) -> i64` returning its parameter plus one, or (`bad`) an i32 constant added to
    /// the i64 parameter, which Cranelift's verifier rejects.
    fn build(jit: &mut JITModule, bad: bool) -> (FuncId, Context) {
        let mut sig = jit.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        let fid = jit.declare_function("f", Linkage::Local, &sig).unwrap();
        let mut ctx = jit.make_context();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, 0);
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let x = b.block_params(block)[0];
        let one = b.ins().iconst(if bad { types::I32 } else { types::I64 }, 1);
        let y = b.ins().iadd(x, one);
        b.ins().return_(&[y]);
        b.finalize(jit.target_config());
        (fid, ctx)
    }

    #[test]
    fn ill_typed_ir_is_an_error_not_code() {
        let (mut jit, _) = new_jit(false).unwrap();
        let (fid, mut ctx) = build(&mut jit, true);
        match verify_and_define(&mut jit, fid, &mut ctx) {
            Err(cranelift_module::ModuleError::Compilation(cranelift_codegen::CodegenError::Verifier(e))) => {
                assert!(!e.0.is_empty())
            }
            other => panic!("expected a verifier error, got {other:?}"),
        }
    }

    #[test]
    fn well_typed_ir_compiles_and_runs() {
        let (mut jit, _) = new_jit(false).unwrap();
        let (fid, mut ctx) = build(&mut jit, false);
        verify_and_define(&mut jit, fid, &mut ctx).unwrap();
        jit.finalize_definitions().unwrap();
        // SAFETY: the function was built with this signature.
        let f = unsafe { std::mem::transmute::<*const u8, extern "C" fn(i64) -> i64>(jit.get_finalized_function(fid)) };
        assert_eq!(f(41), 42);
    }
}
