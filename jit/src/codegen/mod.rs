//! Translation of validated SPIR-V kernels to native code with Cranelift.
//!
//! `compile` turns a module into a [`Program`]: one JIT module holding every function, plus one
//! [`Kernel`] per OpEntryPoint with its argument layout. `Kernel::run_group` runs one work-group.
//!
//! # Layers
//!
//! The modules form five layers; a module uses modules of its own layer or of lower ones, never
//! one of a higher layer, and no modules use each other in a cycle (this file, the crate root
//! with `CompileError`, `CompileOptions`, `Program` and `Kernel`, may be used from any layer):
//!
//! | layer | what | modules |
//! |---|---|---|
//! | 4 | the program | `module` (compiles a program: decorations, data, declarations, kernel wrappers), `native` (native images), `program` (the JIT module and the `Program` both make) |
//! | 3 | work-group functions | `group` (work-item loops, sweep mode), `regions` (one loop per barrier region), `simd` (the vector loop) |
//! | 2 | function translation | `translate` (one SPIR-V function: blocks, phis, opcode dispatch), `inline`, `promote` (loop memory in registers when the command is alone), `uniform`, `spin` (the potential spin loops that yield) |
//! | 1 | instruction families | `arith`, `atomics`, `collective`, `composite`, `control`, `convert`, `extinst`, `generic`, `geometric`, `half` (inline half conversions), `mathfn` (inline exp, log, sin, cos, tan), `image`, `image_inline`, `khr_ext`, `memory`, `pipe`, `printf`, `robust`, `robust_group`, `vector`; `helpers` (the Rust functions their code calls) |
//! | 0 | foundations | `layout` (types), `driver` (the runtime that runs the generated code), `context` (the compile context `Ctx`), `state` (the translator's state `FnTx`, its operand accessors, `GroupTx`), `robust_state` (robust mode's data `FnTx` holds), `pure_loads` (which loads the egraph may place at their uses), `block_params` (block parameters equal to another value), `float_select` (selects of floats without a branch), `test_jit` (tests' generated functions) |
//!
//! The instruction families, the work-group functions and `translate` are `impl FnTx` blocks
//! on the state defined in `state`; definitions shared across layers live in the lowest layer
//! that uses them. `scripts/codegen-layers.sh` (run by `scripts/test.sh`) fails on any import
//! of a higher layer, any cycle and any module missing from its layer table.

mod arith;
mod atomics;
mod block_params;
mod collective;
mod composite;
mod context;
mod control;
mod convert;
pub mod driver;
mod extinst;
mod float_select;
mod generic;
mod geometric;
mod group;
mod half;
pub mod helpers;
mod image;
mod image_inline;
mod inline;
mod khr_ext;
mod layout;
mod mathfn;
mod memory;
mod module;
mod native;
mod pipe;
mod printf;
mod program;
mod promote;
mod pure_loads;
mod regions;
pub mod robust;
mod robust_group;
mod robust_state;
mod simd;
mod spin;
mod state;
#[cfg(test)]
pub(crate) mod test_jit;
mod translate;
mod uniform;
mod vector;

use crate::abi::{KernelArg, WorkGroupContext};
use crate::spirv::Module;
use cranelift_jit::JITModule;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// How to compile a program.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// SpecId -> value bits (low bits used for narrow types).
    pub spec_constants: HashMap<u32, u64>,
    pub denorms_are_zero: bool,
    pub fast_relaxed_math: bool,
    /// Compile without Cranelift's optimizations (`-cl-opt-disable`).
    pub opt_level_none: bool,
    /// Robust mode (`-cl-clift-robust`, `CLIFT_ROBUST=1`): accesses checked against their
    /// memory (see `robust`).
    pub robust: bool,
    /// Compile one kernel only, specialised for what an enqueue knows about its image and
    /// sampler arguments (see [`compile_variant`]); `None` for a program build.
    pub specialize: Option<Specialization>,
    /// `-cl-no-subgroup-ifp`: the program's kernels need no independent forward progress
    /// (OpenCL API 5.8.6.4), so no loop counts as a potential spin loop (`spin`) and no kernel
    /// runs on fibers for one.
    pub no_subgroup_ifp: bool,
}

/// What an enqueue knows about one image or sampler argument: image reads generated for it
/// (`image_inline`) instead of calls through the image's read table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgFact {
    /// An image of this format and image type (`CL_MEM_OBJECT_IMAGE*`) whose sizes are at
    /// most [`INLINE_MAX_EXTENT`] (and non-zero), with the element size of its format.
    Image {
        order: u32,
        data_type: u32,
        image_type: u32,
    },
    /// A sampler with these `abi::sampler_bits`.
    Sampler(u32),
}

/// The largest width, height, depth or array size of an image argument that reads may be
/// generated for (`ArgFact::Image`): indices and float coordinates stay exact in 32 bits.
pub const INLINE_MAX_EXTENT: u64 = 1 << 24;

/// The specialisation of one kernel: per argument, in parameter order, what is known.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Specialization {
    pub kernel: String,
    pub args: Vec<Option<ArgFact>>,
}

/// The fact to specialise image reads on for image descriptor `d`, when its format, image
/// type and sizes are among those reads are generated for (a usable descriptor).
pub fn image_fact(d: &crate::abi::ImageDesc) -> Option<ArgFact> {
    let ok_size = |n: u64| (1..=INLINE_MAX_EXTENT).contains(&n);
    let usable = crate::image::Image::new(d).is_some()
        && ok_size(d.width)
        && ok_size(d.height)
        && ok_size(d.depth)
        && ok_size(d.array_size)
        && image_inline::served(d.channel_order, d.channel_data_type, d.image_type);
    usable.then_some(ArgFact::Image {
        order: d.channel_order,
        data_type: d.channel_data_type,
        image_type: d.image_type,
    })
}

/// Whether the module reads or writes images (OpImageSampleExplicitLod, OpImageRead,
/// OpImageWrite): then enqueues may pick a [`compile_variant`] of its kernels for their
/// arguments.
pub fn accesses_images(module: &Module) -> bool {
    use rspirv::spirv::Op;
    module.functions.iter().any(|f| {
        f.blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .any(|i| matches!(i.opcode, Op::ImageSampleExplicitLod | Op::ImageRead | Op::ImageWrite))
    })
}

/// Compiles kernel `kernel` of `module` alone, with its image reads generated for the image
/// formats and samplers `args` gives (per parameter; `None` where nothing is known). The
/// kernel has the same arguments and layout as the program's.
pub fn compile_variant(
    module: &Module,
    options: &CompileOptions,
    kernel: &str,
    args: &[Option<ArgFact>],
) -> Result<Arc<Kernel>, CompileError> {
    let mut opts = options.clone();
    opts.specialize = Some(Specialization {
        kernel: kernel.to_string(),
        args: args.to_vec(),
    });
    let (p, _) = module::compile_program(module, &opts, force_fibers(), false)?;
    p.kernel(kernel)
        .ok_or_else(|| CompileError::new(format!("kernel {kernel}: no such entry point")))
}

/// Why a module could not be compiled; the message names the instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub message: String,
}

impl CompileError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        CompileError {
            message: message.into(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CompileError {}

/// The JIT code and data of one program. Freed when the last kernel and the program are gone.
pub(crate) struct CodeMemory(Option<JITModule>);

// SAFETY: after finalization the module is only read (code executes, data is addressed by the
// kernels); nothing mutates it until `Drop`, which has exclusive access.
unsafe impl Send for CodeMemory {}
unsafe impl Sync for CodeMemory {}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            // SAFETY: no kernel can run any more: every `Kernel` holds an Arc to this memory.
            unsafe { m.free_memory() };
        }
    }
}

/// A compiled program.
pub struct Program {
    kernels: Vec<Arc<Kernel>>,
    _code: Arc<CodeMemory>,
}

impl Program {
    pub fn kernels(&self) -> &[Arc<Kernel>] {
        &self.kernels
    }

    pub fn kernel(&self, name: &str) -> Option<Arc<Kernel>> {
        self.kernels.iter().find(|k| k.name == name).cloned()
    }
}

/// One compiled kernel.
pub struct Kernel {
    pub name: String,
    /// In parameter order, with offsets into the argument block.
    pub args: Vec<KernelArg>,
    /// Bytes of the argument block.
    pub args_size: usize,
    /// Bytes of Workgroup-storage variables, placed at the start of the local arena.
    pub static_local_size: usize,
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    /// Approximate bytes of Function-storage variables per work-item.
    pub private_mem_size: usize,
    pub has_barriers: bool,
    /// Whether the kernel reaches an atomic on memory other than local memory: then its
    /// atomics are plain loads and stores when no other thread runs a work-group of its range
    /// (`WorkGroupContext::serial`, `atomics`), which the runtime may choose to do.
    pub shared_atomics: bool,
    /// Whether the kernel cannot tell how its range is cut into work-groups: no barrier, no
    /// local memory, no group or sub-group instruction, and of the work-item built-ins only the
    /// global ones (`get_global_id`, `get_global_size`, `get_global_offset`,
    /// `get_global_linear_id`, `get_work_dim`). The runtime may then run several of the
    /// application's work-groups as one larger one (`ndrange::coalesce`).
    pub group_blind: bool,
    /// Loops whose memory is held in registers when the command runs alone (`promote`).
    pub promoted_loops: u32,
    /// Robust mode: the offset in the argument block of the bounds the runtime writes for
    /// every argument (`robust::robust_tail`); `None` for a kernel compiled without it.
    pub robust_tail: Option<usize>,
    /// How the work-items of a group are run (chosen per kernel at compile time).
    pub barrier_strategy: BarrierStrategy,
    exec: driver::Exec,
    _code: Arc<CodeMemory>,
}

/// How a kernel's work-group function runs its work-items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierStrategy {
    /// No barriers: the kernel body inlined into generated work-item loops.
    WorkItemLoops,
    /// Barriers as yield points: the kernel body (with every function that contains a barrier
    /// inlined) runs for all work-items region by region, values live across a barrier kept in
    /// per-work-item records.
    Regions,
    /// Work-items on fibers (stackful coroutines, `driver::run_fibers`): kernels with a
    /// potential spin loop (`spin`), and the fallback for what regions cannot do.
    Fibers,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("args", &self.args)
            .field("args_size", &self.args_size)
            .field("static_local_size", &self.static_local_size)
            .field("has_barriers", &self.has_barriers)
            .field("shared_atomics", &self.shared_atomics)
            .field("group_blind", &self.group_blind)
            .field("promoted_loops", &self.promoted_loops)
            .field("barrier_strategy", &self.barrier_strategy)
            .finish()
    }
}

impl Kernel {
    /// Memory each work-item of a group needs besides the thread's stack: its spill record
    /// (region path) or its fiber stack (fallback); 0 for barrier-free kernels.
    pub fn per_work_item_memory(&self) -> usize {
        match self.exec {
            driver::Exec::Group { record, .. } => record,
            driver::Exec::Fibers(_) => driver::FIBER_STACK,
        }
    }

    /// Runs every work-item of one work-group.
    ///
    /// # Safety
    /// `args` points to an argument block laid out as `self.args` describes, whose pointers are
    /// valid for everything the kernel accesses; `ctx.local_mem` points to at least
    /// `static_local_size` bytes plus the `__local` arguments' sizes, used by no other thread
    /// during the call.
    pub unsafe fn run_group(&self, args: *const u8, ctx: &WorkGroupContext) {
        if let Err(fault) = unsafe { self.try_run_group(args, ctx) } {
            panic!("kernel {} faulted: {fault}", self.name);
        }
    }

    /// As [`Kernel::run_group`], ending the group with `Err` when the kernel's code raised a
    /// hardware fault (see [`crate::fault`]); the thread and its state stay usable.
    ///
    /// # Safety
    /// As [`Kernel::run_group`], except that the kernel may access memory it should not.
    pub unsafe fn try_run_group(&self, args: *const u8, ctx: &WorkGroupContext) -> Result<(), crate::fault::Fault> {
        let mut ctx = *ctx;
        unsafe { self.try_run_groups(args, &mut ctx, 1, &|| false) }
    }

    /// As [`Kernel::try_run_group`] for `count` work-groups of one ND-range: the one `ctx`
    /// describes, then the next ones in linear order (dimension 0 fastest), stopping early
    /// (with `Ok`) once `halted` says so. On `Err`, `ctx` describes the group that faulted.
    /// A run of groups pays the per-call set-up once, which is most of the cost of a group of
    /// one work-item.
    ///
    /// # Safety
    /// As [`Kernel::try_run_group`], for every group of the run.
    pub unsafe fn try_run_groups(
        &self,
        args: *const u8,
        ctx: &mut WorkGroupContext,
        count: usize,
        halted: &dyn Fn() -> bool,
    ) -> Result<(), crate::fault::Fault> {
        unsafe {
            match self.exec {
                driver::Exec::Group { f, record } => driver::run_group_fn(f, record, args, ctx, count, halted),
                driver::Exec::Fibers(entry) => {
                    for i in 0..count {
                        if i > 0 {
                            if halted() {
                                break;
                            }
                            let _ = ctx.next_group();
                        }
                        driver::run_fibers(entry, args, ctx)?;
                    }
                    Ok(())
                }
            }
        }
    }
}

/// Compiles every kernel of a validated module.
///
/// Setting the environment variable `CLIFT_BARRIERS=fibers` runs every kernel with barriers as
/// fibers (the fallback), for comparisons.
pub fn compile(module: &Module, options: &CompileOptions) -> Result<Program, CompileError> {
    module::compile_program(module, options, force_fibers(), false).map(|(p, _)| p)
}

fn force_fibers() -> bool {
    std::env::var("CLIFT_BARRIERS").is_ok_and(|v| v == "fibers")
}

/// As [`compile`], also returning the program's native image for a persistent cache (`None`
/// when the program holds something an image cannot carry). The image is only valid for this
/// Clift build on this CPU; [`load_native`] turns it back into the program.
pub fn compile_with_image(
    module: &Module,
    options: &CompileOptions,
) -> Result<(Program, Option<Vec<u8>>), CompileError> {
    module::compile_program(module, options, force_fibers(), true)
}

/// The code generator's target: the triple and the ISA flags Cranelift detected on this CPU.
/// A native image is only valid for the same target.
pub fn target_id() -> String {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        program::make_isa(false)
            .map(|isa| {
                let flags: Vec<String> = isa.isa_flags().iter().map(|v| v.to_string()).collect();
                format!("{} {}", isa.triple(), flags.join(","))
            })
            .unwrap_or_default()
    })
    .clone()
}

/// Loads a native image made by [`compile_with_image`]: no translation, no code generation,
/// only placement and linking. A damaged image is an error.
pub fn load_native(image: &[u8]) -> Result<Program, CompileError> {
    native::load(image)
}

/// As [`compile`], with every kernel that has barriers forced onto the fiber fallback (tests
/// compare both strategies with it).
#[doc(hidden)]
pub fn compile_with_fibers(module: &Module, options: &CompileOptions) -> Result<Program, CompileError> {
    module::compile_program(module, options, true, false).map(|(p, _)| p)
}

/// The OpenCL.std math library's symbols (the `builtins` module), registered with the JIT.
pub(crate) fn math_symbols() -> Vec<(&'static str, *const u8)> {
    crate::builtins::symbols()
}
