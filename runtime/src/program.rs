//! Program objects (API section 5.8): SPIR-V from clCreateProgramWithIL or a Clift binary,
//! compiled, linked and built into an executable whose kernels the JIT has translated.

use crate::arginfo::{self, ArgInfo};
use crate::binary::ProgramBinary;
use crate::cache;
use crate::callback::ObjectCallback;
use crate::context::Context;
use crate::device::Device;
use crate::object::{ClObject, Header, Kind};
use crate::options::{self, Options, Stage};
use jit::codegen::{self, CompileOptions};
use jit::spirv::{self, Module};
use opencl_sys::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};

/// Where a program came from; it decides which of build/compile/link apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Source,
    Il,
    Binary,
    Linked,
}

/// The state clGetProgramBuildInfo reports, and what a build produced.
pub struct Build {
    pub status: cl_build_status,
    pub log: String,
    pub options: String,
    pub binary_type: cl_program_binary_type,
    /// The SPIR-V binaries this program is made of (one per compiled input).
    pub inputs: Vec<Arc<Vec<u8>>>,
    /// The modules parsed from `inputs`.
    pub modules: Vec<Arc<Module>>,
    /// Built executables: the compiled kernels.
    pub executable: Option<Arc<codegen::Program>>,
    /// Variants of the executable's kernels for an enqueue's images and samplers.
    pub variants: Option<Arc<crate::variants::Variants>>,
    /// Argument information of each kernel of the executable.
    pub arg_info: HashMap<String, Vec<ArgInfo>>,
    pub parsed_options: Options,
}

/// OpenCL C compiled: the SPIR-V, its module and clang's diagnostics.
type SourceOutput = (Arc<Vec<u8>>, Arc<Module>, String);

/// What building an executable yields.
struct Built {
    program: codegen::Program,
    variants: Option<Arc<crate::variants::Variants>>,
    arg_info: HashMap<String, Vec<ArgInfo>>,
    log: String,
}

#[repr(C)]
pub struct Program {
    header: Header,
    pub context: Arc<Context>,
    pub devices: Vec<&'static Device>,
    pub origin: Origin,
    /// CL_PROGRAM_IL: the bytes given to clCreateProgramWithIL.
    pub il: Vec<u8>,
    /// CL_PROGRAM_SOURCE: the OpenCL C given to clCreateProgramWithSource.
    pub source: String,
    /// Specialization constants of the IL (SpecId -> size in bytes).
    pub spec_sizes: HashMap<u32, usize>,
    spec_values: Mutex<HashMap<u32, u64>>,
    build: Mutex<Build>,
    /// Kernel objects made from this program (clBuildProgram refuses to rebuild under them).
    pub kernels_attached: AtomicUsize,
    release_callbacks: Mutex<Vec<ObjectCallback>>,
}

impl ClObject for Program {
    const KIND: Kind = Kind::Program;
    fn header(&self) -> &Header {
        &self.header
    }
}

/// Parses a SPIR-V binary; the message is for the build log or a CL_INVALID_VALUE report.
pub fn parse_il(bytes: &[u8]) -> Result<Module, String> {
    spirv::parse(bytes).map_err(|e| e.to_string())
}

/// Specialization constants: SpecId decorations on OpSpecConstant* with their sizes.
fn spec_sizes(module: &Module) -> HashMap<u32, usize> {
    let mut sizes = HashMap::new();
    for d in &module.decorations {
        if d.decoration != rspirv_spec_id() || d.member.is_some() {
            continue;
        }
        let Some(rspirv::dr::Operand::LiteralBit32(spec_id)) = d.operands.first() else {
            continue;
        };
        let Some(c) = module.constant(d.target) else { continue };
        let size = match module.type_of(c.ty) {
            Some(spirv::module::Type::Bool) => 1,
            Some(spirv::module::Type::Int { width, .. }) | Some(spirv::module::Type::Float { width }) => {
                (*width / 8) as usize
            }
            _ => continue,
        };
        sizes.insert(*spec_id, size);
    }
    sizes
}

fn rspirv_spec_id() -> rspirv::spirv::Decoration {
    rspirv::spirv::Decoration::SpecId
}

impl Program {
    fn new(context: Arc<Context>, devices: Vec<&'static Device>, origin: Origin, il: Vec<u8>, build: Build) -> Program {
        let spec_sizes = build.modules.first().map(|m| spec_sizes(m)).unwrap_or_default();
        Program {
            header: Header::new(Kind::Program),
            devices,
            context,
            origin,
            il,
            source: String::new(),
            spec_sizes,
            spec_values: Mutex::new(HashMap::new()),
            build: Mutex::new(build),
            kernels_attached: AtomicUsize::new(0),
            release_callbacks: Mutex::new(Vec::new()),
        }
    }

    fn empty_build(binary_type: cl_program_binary_type, inputs: Vec<Arc<Vec<u8>>>, modules: Vec<Arc<Module>>) -> Build {
        Build {
            status: CL_BUILD_NONE,
            log: String::new(),
            options: String::new(),
            binary_type,
            inputs,
            modules,
            executable: None,
            variants: None,
            arg_info: HashMap::new(),
            parsed_options: Options::default(),
        }
    }

    /// clCreateProgramWithIL: the module is parsed at once, so ill-formed IL is refused here.
    pub fn from_il(context: Arc<Context>, il: Vec<u8>) -> Result<Program, String> {
        let module = parse_il(&il)?;
        let devices = context.devices.clone();
        let build = Self::empty_build(
            CL_PROGRAM_BINARY_TYPE_NONE,
            vec![Arc::new(il.clone())],
            vec![Arc::new(module)],
        );
        Ok(Program::new(context, devices, Origin::Il, il, build))
    }

    /// clCreateProgramWithSource: nothing is compiled until a build or compile.
    pub fn from_source(context: Arc<Context>, source: String) -> Program {
        let devices = context.devices.clone();
        let mut p = Program::new(
            context,
            devices,
            Origin::Source,
            Vec::new(),
            Self::empty_build(CL_PROGRAM_BINARY_TYPE_NONE, Vec::new(), Vec::new()),
        );
        p.source = source;
        p
    }

    /// OpenCL C to a SPIR-V module: the module and clang's diagnostics, or the build log.
    fn compile_source(&self, headers: &[(String, String)], opts: &Options) -> Result<SourceOutput, String> {
        let out = crate::clc::compile(&self.source, headers, opts)?;
        let module = parse_il(&out.spirv)
            .map_err(|e| format!("{}error: the translator produced unreadable SPIR-V: {e}\n", out.log))?;
        Ok((Arc::new(out.spirv), Arc::new(module), out.log))
    }

    /// "CL_COMPILER_NOT_AVAILABLE if program is created with clCreateProgramWithSource and a
    /// compiler is not available."
    fn check_compiler(&self) -> Result<(), cl_int> {
        if self.origin == Origin::Source {
            if let Err(why) = crate::clc::toolchain() {
                let mut b = self.lock();
                b.status = CL_BUILD_ERROR;
                b.log = format!("error: {why}\n");
                return Err(CL_COMPILER_NOT_AVAILABLE);
            }
        }
        Ok(())
    }

    /// clCreateProgramWithBinary for one device's binary.
    pub fn from_binary(context: Arc<Context>, devices: Vec<&'static Device>, binary: &[u8]) -> Result<Program, String> {
        let decoded = ProgramBinary::decode(binary)?;
        let mut modules = Vec::new();
        for m in &decoded.modules {
            modules.push(Arc::new(parse_il(m)?));
        }
        let inputs = decoded.modules.into_iter().map(Arc::new).collect();
        let build = Self::empty_build(decoded.binary_type, inputs, modules);
        Ok(Program::new(context, devices, Origin::Binary, Vec::new(), build))
    }

    pub fn lock(&self) -> MutexGuard<'_, Build> {
        self.build.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn set_spec_constant(&self, spec_id: u32, value: u64) {
        self.spec_values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(spec_id, value);
    }

    pub fn add_release_callback(&self, cb: ObjectCallback) {
        self.release_callbacks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(cb);
    }

    /// The Clift binary of this program (CL_PROGRAM_BINARIES); empty before anything was
    /// compiled.
    pub fn binary(&self) -> Vec<u8> {
        let b = self.lock();
        if b.binary_type == CL_PROGRAM_BINARY_TYPE_NONE {
            return Vec::new();
        }
        let device = self.devices.first().map(|d| d.name().to_string()).unwrap_or_default();
        ProgramBinary {
            binary_type: b.binary_type,
            device,
            modules: b.inputs.iter().map(|m| m.to_vec()).collect(),
        }
        .encode()
    }

    /// clBuildProgram: compile (IL or binary) and link into an executable.
    pub fn build(&self, options_text: &str) -> Result<(), cl_int> {
        let parsed = options::parse(options_text, Stage::Build).map_err(|e| {
            let mut b = self.lock();
            b.log = format!("error: {e}\n");
            CL_INVALID_BUILD_OPTIONS
        })?;
        self.check_compiler()?;
        let mut b = self.lock();
        b.options = options_text.to_string();
        b.parsed_options = parsed.clone();
        b.status = CL_BUILD_IN_PROGRESS;
        let modules = b.modules.clone();
        drop(b);
        let result = if self.origin == Origin::Source {
            crate::clc::dump::record(&self.source, options_text);
            self.compile_source(&[], &parsed)
                .and_then(|(spirv, module, clang_log)| {
                    let mut b = self.lock();
                    b.inputs = vec![spirv];
                    b.modules = vec![module.clone()];
                    drop(b);
                    self.make_executable(&[module], &parsed)
                        .map(|built| Built {
                            log: clang_log.clone() + &built.log,
                            ..built
                        })
                        .map_err(|log| clang_log + &log)
                })
        } else {
            self.make_executable(&modules, &parsed)
        };
        let mut b = self.lock();
        match result {
            Ok(built) => {
                b.status = CL_BUILD_SUCCESS;
                b.log = built.log;
                b.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                b.executable = Some(Arc::new(built.program));
                b.variants = built.variants;
                b.arg_info = built.arg_info;
                Ok(())
            }
            Err(log) => {
                b.status = CL_BUILD_ERROR;
                b.log = log;
                b.executable = None;
                b.variants = None;
                Err(CL_BUILD_PROGRAM_FAILURE)
            }
        }
    }

    /// clCompileProgram: OpenCL C (with its embedded headers) to SPIR-V, or an IL program's
    /// module checked; either is kept as a compiled object.
    pub fn compile(&self, options_text: &str, headers: &[(String, String)]) -> Result<(), cl_int> {
        let parsed = options::parse(options_text, Stage::Compile).map_err(|e| {
            self.lock().log = format!("error: {e}\n");
            CL_INVALID_COMPILER_OPTIONS
        })?;
        self.check_compiler()?;
        let compiled = if self.origin == Origin::Source {
            crate::clc::dump::record(&self.source, options_text);
            Some(self.compile_source(headers, &parsed))
        } else {
            None
        };
        let mut b = self.lock();
        b.options = options_text.to_string();
        b.parsed_options = parsed;
        let mut log = String::new();
        let checked = match compiled {
            Some(Err(clang_log)) => Err(clang_log),
            Some(Ok((spirv, module, clang_log))) => {
                b.inputs = vec![spirv];
                b.modules = vec![module];
                log = clang_log;
                Ok(())
            }
            None => Ok(()),
        };
        let checked = checked.and_then(|()| {
            b.modules
                .iter()
                .try_for_each(|m| spirv::validate(m, &features()).map_err(|e| format!("{log}error: {e}\n")))
        });
        match checked {
            Ok(()) => {
                b.status = CL_BUILD_SUCCESS;
                b.log = log;
                b.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
                b.executable = None;
                b.variants = None;
                Ok(())
            }
            Err(log) => {
                b.status = CL_BUILD_ERROR;
                b.log = log;
                Err(CL_COMPILE_PROGRAM_FAILURE)
            }
        }
    }

    /// clLinkProgram: a new program from compiled objects and libraries. The program is
    /// returned even when linking fails, so that its log can be read.
    pub fn link(
        context: Arc<Context>,
        devices: Vec<&'static Device>,
        inputs: &[Arc<Program>],
        options_text: &str,
    ) -> Result<(Program, bool), cl_int> {
        let mut parsed = options::parse(options_text, Stage::Link).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
        // An object compiled with -cl-clift-robust makes the linked program robust.
        parsed.robust = inputs.iter().any(|p| p.lock().parsed_options.robust);
        let mut sources = Vec::new();
        let mut modules = Vec::new();
        for p in inputs {
            let b = p.lock();
            // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or
            // libraries as described in input_programs argument above are not followed."
            if b.binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                && b.binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY
            {
                return Err(CL_INVALID_OPERATION);
            }
            sources.extend(b.inputs.iter().cloned());
            modules.extend(b.modules.iter().cloned());
        }
        let binary_type = if parsed.create_library {
            CL_PROGRAM_BINARY_TYPE_LIBRARY
        } else {
            CL_PROGRAM_BINARY_TYPE_EXECUTABLE
        };
        let mut build = Self::empty_build(binary_type, sources, modules.clone());
        build.options = options_text.to_string();
        let program = Program::new(context, devices, Origin::Linked, Vec::new(), build);
        let outcome = if parsed.create_library {
            let refs: Vec<&Module> = modules.iter().map(|m| m.as_ref()).collect();
            spirv::link(&refs, true)
                .map(|_| ())
                .map_err(|e| format!("error: {e}\n"))
        } else {
            program.make_executable(&modules, &parsed).map(|built| {
                let mut b = program.lock();
                b.executable = Some(Arc::new(built.program));
                b.variants = built.variants;
                b.arg_info = built.arg_info;
                b.log = built.log;
            })
        };
        let mut b = program.lock();
        let ok = match outcome {
            Ok(()) => {
                b.status = CL_BUILD_SUCCESS;
                true
            }
            Err(log) => {
                b.status = CL_BUILD_ERROR;
                b.log = log;
                b.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
                false
            }
        };
        drop(b);
        Ok((program, ok))
    }

    /// Links, validates and JIT-compiles; the error is the build log.
    fn make_executable(&self, modules: &[Arc<Module>], opts: &Options) -> Result<Built, String> {
        let linked;
        // One module that imports no function is complete; anything else goes through the
        // linker, which resolves imports (inline definitions included) or names what is
        // undefined.
        let module: &Module = if modules.len() == 1 && !spirv::imports_functions(&modules[0]) {
            &modules[0]
        } else {
            let refs: Vec<&Module> = modules.iter().map(|m| m.as_ref()).collect();
            linked = spirv::link(&refs, false).map_err(|e| format!("error: {e}\n"))?;
            &linked
        };
        let spec_constants = self.spec_values.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let compile_options = CompileOptions {
            spec_constants,
            denorms_are_zero: opts.denorms_are_zero,
            fast_relaxed_math: opts.fast_relaxed_math,
            opt_level_none: opts.opt_disable,
            robust: opts.robust || options::robust_env(),
            specialize: None,
            no_subgroup_ifp: opts.no_subgroup_ifp,
        };
        let start = std::time::Instant::now();
        let inputs = self.lock().inputs.clone();
        let key = native_key(&inputs, &compile_options);
        // The native code cache: the same modules, options, Clift build and CPU give the same
        // machine code, so a hit skips validation, translation and code generation.
        let cached = cache::lookup_native(&key).and_then(|image| codegen::load_native(&image).ok());
        let from_cache = cached.is_some();
        let program = match cached {
            Some(p) => p,
            None => {
                spirv::validate(module, &features()).map_err(|e| format!("error: {e}\n"))?;
                let (program, image) =
                    codegen::compile_with_image(module, &compile_options).map_err(|e| format!("error: {e}\n"))?;
                if let Some(image) = image {
                    cache::store_native(&key, image);
                }
                program
            }
        };
        let log = if crate::options::verbose_build_log() {
            format!(
                "Clift: {} kernel(s) {} in {:.2} ms\n",
                program.kernels().len(),
                if from_cache {
                    "loaded from the native code cache"
                } else {
                    "compiled"
                },
                start.elapsed().as_secs_f64() * 1e3
            )
        } else {
            String::new()
        };
        let arg_info = program
            .kernels()
            .iter()
            .map(|k| (k.name.clone(), arginfo::kernel_args(module, &k.name)))
            .collect();
        let variants = crate::variants::Variants::new(
            match modules.first() {
                Some(m) if std::ptr::eq(module, m.as_ref()) => m.clone(),
                _ => Arc::new(module.clone()),
            },
            &compile_options,
        );
        Ok(Built {
            program,
            variants,
            arg_info,
            log,
        })
    }

    /// True when ND-ranges of this program's kernels must be uniform: built with
    /// `-cl-uniform-work-group-size`, or OpenCL C before 2.0 (the default `-cl-std`), which
    /// has no non-uniform work-groups.
    pub fn requires_uniform_work_groups(&self) -> bool {
        let b = self.lock();
        let opts = &b.parsed_options;
        opts.passthrough.iter().any(|o| o == "-cl-uniform-work-group-size")
            || (self.origin == Origin::Source && opts.cl_std.as_deref().is_none_or(|v| v.starts_with("CL1.")))
    }

    /// Argument information of a kernel of the executable.
    pub fn arg_info(&self, kernel: &str) -> Vec<ArgInfo> {
        self.lock().arg_info.get(kernel).cloned().unwrap_or_default()
    }

    /// `CL_KERNEL_ATTRIBUTES` of a kernel: its `__attribute__`s as written in the source of a
    /// program created with clCreateProgramWithSource, empty for every other program.
    pub fn kernel_attributes(&self, kernel: &str) -> String {
        if self.origin != Origin::Source {
            return String::new();
        }
        crate::kernel_attributes::scan(&self.source)
            .remove(kernel)
            .unwrap_or_default()
    }

    /// The variants of the executable's kernels (a program that reads images).
    pub fn variants(&self) -> Option<Arc<crate::variants::Variants>> {
        self.lock().variants.clone()
    }

    /// The executable's kernels, if the program was built.
    pub fn executable(&self) -> Option<Arc<codegen::Program>> {
        let b = self.lock();
        if b.status == CL_BUILD_SUCCESS && b.binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE {
            b.executable.clone()
        } else {
            None
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let callbacks = std::mem::take(self.release_callbacks.get_mut().unwrap_or_else(|e| e.into_inner()));
        // SAFETY: the callbacks were registered for this program.
        unsafe { crate::callback::run_destructors(callbacks, self as *mut Program as *mut c_void) };
    }
}

/// The native code cache key: everything that decides the machine code of a build.
fn native_key(inputs: &[Arc<Vec<u8>>], options: &CompileOptions) -> String {
    let mut spec: Vec<(u32, u64)> = options.spec_constants.iter().map(|(k, v)| (*k, *v)).collect();
    spec.sort_unstable();
    let mut key = cache::Key::default()
        .part(b"native code")
        .part(cache::build_id().as_bytes())
        .part(codegen::target_id().as_bytes())
        .part(format!("{spec:?}").as_bytes())
        .part(
            format!(
                "{} {} {} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                options.denorms_are_zero,
                options.no_subgroup_ifp,
                options.fast_relaxed_math,
                options.opt_level_none,
                options.robust,
                std::env::var("CLIFT_BARRIERS").ok(),
                std::env::var("CLIFT_SIMD").ok(),
                std::env::var("CLIFT_ROBUST_GROUP").ok(),
                std::env::var("CLIFT_PURE_LOADS").ok(),
                std::env::var("CLIFT_SIMD_CHAIN").ok(),
                std::env::var("CLIFT_PROMOTE").ok(),
                std::env::var("CLIFT_SIMD_QUADS").ok()
            )
            .as_bytes(),
        );
    for input in inputs {
        key = key.part(input);
    }
    key.hex()
}

/// What the validator accepts: what the device reports.
pub fn features() -> spirv::DeviceFeatures {
    let f = &crate::device::FEATURES;
    spirv::DeviceFeatures {
        float64: f.fp64(),
        float16: f.fp16(),
        images: f.images(),
        read_write_images: f.has_feature("__opencl_c_read_write_images"),
        generic_pointer: f.has_feature("__opencl_c_generic_address_space"),
        work_group_collectives: f.has_feature("__opencl_c_work_group_collective_functions"),
        subgroups: f.sub_groups(),
        subgroup_extensions: f
            .extensions
            .iter()
            .filter(|(n, _)| n.starts_with("cl_khr_subgroup_"))
            .map(|(n, _)| n.to_string())
            .collect(),
        extensions: {
            let mut e = spirv::DeviceFeatures::default().extensions;
            if f.has_extension("cl_khr_subgroup_rotate") {
                e.push("SPV_KHR_subgroup_rotate".into());
            }
            e
        },
        pipes: f.has_feature("__opencl_c_pipes"),
        ..spirv::DeviceFeatures::default()
    }
}
