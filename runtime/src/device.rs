//! The one Clift device: the host CPU. `clGetDeviceInfo` answers (OpenCL 3.0 API, "Device
//! Queries" table), read from the machine where the value is a property of the hardware and
//! from [`FEATURES`] where it is a property of what Clift implements.

use crate::clock;
use crate::cpuset;
use crate::info::{self, Answer};
use crate::object::{self, ClObject, Header, Kind};
use crate::partition;
use crate::platform::{self, OPENCL_VERSION};
use crate::topology;
use crate::workers::Pool;
use opencl_sys::*;
use std::sync::{Arc, Mutex, Once, OnceLock};

// ---------------------------------------------------------------------------------------------
// The feature table
// ---------------------------------------------------------------------------------------------

/// What Clift reports. The rule: report only what works at this commit, and grow the lists as
/// the later issues land. Every optional capability of the device is flipped here and nowhere
/// else; the device queries that depend on it (images, fp64, atomics, generic address space,
/// pipes, ...) are derived from these lists so they always agree with each other.
pub struct Features {
    /// `CL_DEVICE_EXTENSIONS` and `CL_DEVICE_EXTENSIONS_WITH_VERSION` (name, version).
    /// `cl_khr_fp64` here turns on `CL_DEVICE_DOUBLE_FP_CONFIG` and the double vector widths
    /// (it needs `__opencl_c_fp64` below as well); `cl_khr_fp16` turns on
    /// `CL_DEVICE_HALF_FP_CONFIG` and the half vector widths.
    pub extensions: &'static [(&'static str, cl_version)],
    /// `CL_DEVICE_OPENCL_C_FEATURES`: the `__opencl_c_*` feature macros, with the OpenCL C
    /// version that introduced them. `__opencl_c_images` turns on images and their limits,
    /// `__opencl_c_atomic_*` the atomic capabilities, `__opencl_c_generic_address_space`,
    /// `__opencl_c_pipes`, `__opencl_c_program_scope_global_variables`,
    /// `__opencl_c_work_group_collective_functions` and `__opencl_c_read_write_images` their
    /// queries. A full-profile device with a compiler must list `__opencl_c_int64`.
    pub opencl_c_features: &'static [(&'static str, cl_version)],
    /// `CL_DEVICE_OPENCL_C_ALL_VERSIONS`: an OpenCL 3.0 device with a compiler supports at
    /// least 1.0, 1.1, 1.2 and 3.0.
    pub opencl_c_versions: &'static [cl_version],
    /// `CL_DEVICE_OPENCL_C_VERSION`: the highest fully backwards compatible OpenCL C version
    /// (1.2 unless every optional 3.0 feature is supported); must be in `opencl_c_versions`.
    pub opencl_c_version: &'static str,
    /// `CL_DEVICE_ILS_WITH_VERSION` and `CL_DEVICE_IL_VERSION` ("SPIR-V", version).
    pub ils: &'static [(&'static str, cl_version)],
    /// `CL_DEVICE_COMPILER_AVAILABLE` and `CL_DEVICE_LINKER_AVAILABLE`.
    pub compiler: bool,
    /// `CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT`.
    pub non_uniform_work_groups: bool,
    /// `CL_DEVICE_SINGLE_FP_CONFIG` (and `CL_DEVICE_DOUBLE_FP_CONFIG` with fp64): what the
    /// generated code delivers. CPUs do IEEE 754 in hardware: denormals (the JIT must not
    /// flush them), INF/NaN, and all four rounding modes natively (the spec's footnote: report
    /// an optional rounding mode only if it is native). `CL_FP_FMA` is dropped at run time on
    /// a CPU without hardware fused multiply-add. `CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT` (float
    /// only) promises `-cl-fp32-correctly-rounded-divide-sqrt`: add it when the compiler
    /// honours that option.
    pub fp_config: cl_device_fp_config,
    /// `CL_DEVICE_SVM_CAPABILITIES`: 0 is a device without shared virtual memory, whose SVM
    /// entry points answer CL_INVALID_OPERATION. A CPU shares the host's address space and
    /// memory system, so Clift offers every kind, fine-grain system SVM and SVM atomics
    /// included (`runtime::svm`).
    pub svm_capabilities: cl_device_svm_capabilities,
}

// cl_ext_float_atomics (not in opencl-sys): the queries and capability bits.
const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4231;
const CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4232;
const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4233;
/// Global and local load/store, add and min/max (bits 0-2 and 16-18).
const FP_ATOMICS_ALL: cl_ulong = 0b111 | (0b111 << 16);

const V1_0: cl_version = info::version(1, 0, 0);
const V1_1: cl_version = info::version(1, 1, 0);
const V1_2: cl_version = info::version(1, 2, 0);
const V3_0: cl_version = info::version(3, 0, 0);

/// What works today: SPIR-V 1.0-1.6 programs (cl_khr_il_program) JIT-compiled by Cranelift,
/// OpenCL C through clang + llvm-spirv, byte-addressable stores and 32/64-bit atomics on
/// global and local memory, non-uniform work-groups, double precision, images and samplers
/// (1D, 1D buffer, 1D array, 2D, 2D array, 3D; read, write and read-write; depth and sRGB;
/// 2D images from buffers), half precision (cl_khr_fp16), work-group collectives, sub-groups
/// (`__opencl_c_subgroups`, cl_khr_subgroups), pipes. Not yet: device enqueue. Each later
/// issue adds its entries here.
pub const FEATURES: Features = Features {
    extensions: &[
        ("cl_khr_icd", V1_0),
        ("cl_khr_il_program", V1_0),
        ("cl_khr_byte_addressable_store", V1_0),
        ("cl_khr_global_int32_base_atomics", V1_0),
        ("cl_khr_global_int32_extended_atomics", V1_0),
        ("cl_khr_local_int32_base_atomics", V1_0),
        ("cl_khr_local_int32_extended_atomics", V1_0),
        ("cl_khr_int64_base_atomics", V1_0),
        ("cl_khr_int64_extended_atomics", V1_0),
        ("cl_khr_fp64", V1_0),
        // Half arithmetic and the whole built-in library on half (computed in f32 or f64 and
        // rounded to half: jit::builtins::half, jit::codegen::arith).
        ("cl_khr_fp16", V1_0),
        ("cl_khr_3d_image_writes", V1_0),
        ("cl_khr_depth_images", V1_0),
        ("cl_khr_image2d_from_buffer", V1_0),
        ("cl_khr_srgb_image_writes", V1_0),
        ("cl_khr_command_buffer", info::version(0, 9, 8)),
        ("cl_khr_command_buffer_mutable_dispatch", info::version(0, 9, 5)),
        ("cl_khr_suggested_local_work_size", V1_0),
        // SPIR-V extensions the validator and code generator take (jit::spirv::validate).
        ("cl_khr_expect_assume", V1_0),
        ("cl_khr_spirv_no_integer_wrap_decoration", V1_0),
        ("cl_khr_spirv_linkonce_odr", V1_0),
        // cl_khr_spirv_extended_debug_info: its SPIR-V (NonSemantic.Shader.DebugInfo.100) is
        // accepted and ignored, but the name is not listed: the Khronos CTS at b8f8906c
        // (compiler_defines_for_extensions) fails a device listing an extension it does not
        // know, and this one is newer than it.
        // clock_read_device / clock_read_work_group (SPV_KHR_shader_clock; the OpenCL C
        // built-ins come from clc's feature header and the SPIR-V linker).
        ("cl_khr_kernel_clock", V1_0),
        // Sub-groups with independent forward progress, which the extension (unlike OpenCL
        // 3.0's __opencl_c_subgroups, reported below) requires: a kernel with a potential
        // spin loop runs its work-items as fibers that yield at the loop's back-edges, where a
        // sub-group barrier waits for its own sub-group only (jit codegen/spin.rs, driver.rs).
        ("cl_khr_subgroups", V1_0),
        // The sub-group extensions (jit codegen/collective.rs: non-uniform operations as call
        // sites that only the arriving work-items join; the CTS subgroups suite passes them).
        ("cl_khr_subgroup_extended_types", V1_0),
        ("cl_khr_subgroup_non_uniform_vote", V1_0),
        ("cl_khr_subgroup_ballot", V1_0),
        ("cl_khr_subgroup_non_uniform_arithmetic", V1_0),
        ("cl_khr_subgroup_shuffle", V1_0),
        ("cl_khr_subgroup_shuffle_relative", V1_0),
        ("cl_khr_subgroup_clustered_reduce", V1_0),
        ("cl_khr_subgroup_rotate", V1_0),
        // dot, dot_acc_sat and their 4x8-bit packed forms (OpSDot/OpUDot/OpSUDot and the
        // AccSat forms, jit::codegen::khr_ext; packed built-ins defined in jit::spirv::link).
        ("cl_khr_integer_dot_product", info::version(2, 0, 0)),
        // bitfield_insert, bitfield_extract_{signed,unsigned}, bit_reverse
        // (SPV_KHR_bit_instructions).
        ("cl_khr_extended_bit_ops", V1_0),
        // atomic_fetch_add/sub/min/max on float and double, global and local
        // (OpAtomicFAddEXT, OpAtomicFMinEXT, OpAtomicFMaxEXT: jit::codegen::atomics).
        ("cl_ext_float_atomics", V1_0),
    ],
    opencl_c_features: &[
        ("__opencl_c_int64", V3_0),
        ("__opencl_c_atomic_order_acq_rel", V3_0),
        ("__opencl_c_atomic_order_seq_cst", V3_0),
        ("__opencl_c_atomic_scope_device", V3_0),
        ("__opencl_c_atomic_scope_all_devices", V3_0),
        ("__opencl_c_generic_address_space", V3_0),
        ("__opencl_c_program_scope_global_variables", V3_0),
        ("__opencl_c_fp64", V3_0),
        ("__opencl_c_fp16", V3_0),
        ("__opencl_c_images", V3_0),
        ("__opencl_c_read_write_images", V3_0),
        ("__opencl_c_3d_image_writes", V3_0),
        ("__opencl_c_work_group_collective_functions", V3_0),
        ("__opencl_c_subgroups", V3_0),
        // Pipes (runtime::pipe, jit::pipe, jit::codegen::pipe).
        ("__opencl_c_pipes", V3_0),
        ("__opencl_c_kernel_clock_scope_device", V3_0),
        ("__opencl_c_kernel_clock_scope_work_group", V3_0),
        ("__opencl_c_integer_dot_product_input_4x8bit", V3_0),
        ("__opencl_c_integer_dot_product_input_4x8bit_packed", V3_0),
        // cl_ext_float_atomics, as CL_DEVICE_{SINGLE,DOUBLE}_FP_ATOMIC_CAPABILITIES_EXT say
        // (none on half).
        ("__opencl_c_ext_fp32_global_atomic_add", V1_0),
        ("__opencl_c_ext_fp32_local_atomic_add", V1_0),
        ("__opencl_c_ext_fp32_global_atomic_min_max", V1_0),
        ("__opencl_c_ext_fp32_local_atomic_min_max", V1_0),
        ("__opencl_c_ext_fp64_global_atomic_add", V1_0),
        ("__opencl_c_ext_fp64_local_atomic_add", V1_0),
        ("__opencl_c_ext_fp64_global_atomic_min_max", V1_0),
        ("__opencl_c_ext_fp64_local_atomic_min_max", V1_0),
    ],
    opencl_c_versions: &[V1_0, V1_1, V1_2, V3_0],
    opencl_c_version: "OpenCL C 1.2 Clift",
    ils: &[
        ("SPIR-V", V1_0),
        ("SPIR-V", V1_1),
        ("SPIR-V", V1_2),
        ("SPIR-V", info::version(1, 3, 0)),
        ("SPIR-V", info::version(1, 4, 0)),
        ("SPIR-V", info::version(1, 5, 0)),
        ("SPIR-V", info::version(1, 6, 0)),
    ],
    compiler: true,
    non_uniform_work_groups: true,
    fp_config: CL_FP_DENORM
        | CL_FP_INF_NAN
        | CL_FP_ROUND_TO_NEAREST
        | CL_FP_ROUND_TO_ZERO
        | CL_FP_ROUND_TO_INF
        | CL_FP_FMA
        // Cranelift's fdiv and sqrt are IEEE operations, correctly rounded.
        | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT,
    svm_capabilities: CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
        | CL_DEVICE_SVM_FINE_GRAIN_BUFFER
        | CL_DEVICE_SVM_FINE_GRAIN_SYSTEM
        | CL_DEVICE_SVM_ATOMICS,
};

impl Features {
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.iter().any(|(n, _)| *n == name)
    }

    pub fn has_feature(&self, name: &str) -> bool {
        self.opencl_c_features.iter().any(|(n, _)| *n == name)
    }

    pub fn images(&self) -> bool {
        self.has_feature("__opencl_c_images")
    }

    /// OpenCL 3.0 requires both the extension and the feature macro for double precision.
    pub fn fp64(&self) -> bool {
        self.has_extension("cl_khr_fp64") && self.has_feature("__opencl_c_fp64")
    }

    pub fn fp16(&self) -> bool {
        self.has_extension("cl_khr_fp16")
    }

    /// Sub-groups: the OpenCL 3.0 feature macro (or the older extension).
    pub fn sub_groups(&self) -> bool {
        self.has_feature("__opencl_c_subgroups") || self.has_extension("cl_khr_subgroups")
    }

    /// Shared virtual memory of any kind (`CL_DEVICE_SVM_CAPABILITIES` is not 0).
    pub fn svm(&self) -> bool {
        self.svm_capabilities != 0
    }

    /// `CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES`: the mandated minimum is relaxed order at
    /// work-group scope; each stronger order or wider scope comes with its feature macro.
    pub fn atomic_memory_capabilities(&self) -> cl_device_atomic_capabilities {
        CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | self.atomic_extras()
    }

    /// `CL_DEVICE_ATOMIC_FENCE_CAPABILITIES`: the mandated minimum is relaxed and
    /// acquire-release order at work-group scope.
    pub fn atomic_fence_capabilities(&self) -> cl_device_atomic_capabilities {
        CL_DEVICE_ATOMIC_ORDER_RELAXED
            | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
            | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
            | self.atomic_extras()
    }

    fn atomic_extras(&self) -> cl_device_atomic_capabilities {
        let bits = [
            ("__opencl_c_atomic_order_acq_rel", CL_DEVICE_ATOMIC_ORDER_ACQ_REL),
            ("__opencl_c_atomic_order_seq_cst", CL_DEVICE_ATOMIC_ORDER_SEQ_CST),
            ("__opencl_c_atomic_scope_device", CL_DEVICE_ATOMIC_SCOPE_DEVICE),
            (
                "__opencl_c_atomic_scope_all_devices",
                CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES,
            ),
        ];
        bits.iter()
            .filter(|(name, _)| self.has_feature(name))
            .fold(0, |acc, (_, bit)| acc | bit)
    }

    /// `CL_DEVICE_IL_VERSION`: "<IL_Prefix>_<Major>.<Minor>", space separated.
    pub fn il_version_string(&self) -> String {
        let ils: Vec<String> = self
            .ils
            .iter()
            .map(|(name, v)| format!("{}_{}.{}", name, version_major(*v), version_minor(*v)))
            .collect();
        ils.join(" ")
    }

    pub fn extensions_string(&self) -> String {
        let names: Vec<&str> = self.extensions.iter().map(|(name, _)| *name).collect();
        names.join(" ")
    }
}

fn version_major(v: cl_version) -> u32 {
    v >> 22
}

fn version_minor(v: cl_version) -> u32 {
    (v >> 12) & 0x3FF
}

// ---------------------------------------------------------------------------------------------
// Fixed limits (not read from the machine)
// ---------------------------------------------------------------------------------------------

/// `CL_DEVICE_MAX_WORK_GROUP_SIZE` and each of `CL_DEVICE_MAX_WORK_ITEM_SIZES`.
pub const MAX_WORK_GROUP_SIZE: usize = 4096;
/// `CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS`; the minimum is 3.
pub const MAX_WORK_ITEM_DIMENSIONS: u32 = 3;
/// `CL_DEVICE_LOCAL_MEM_SIZE`; the minimum is 32 KB. Local memory lives in host memory
/// (`CL_GLOBAL`): each worker's arena of at least this size (see `jit::abi::LOCAL_ARENA_BYTES`).
pub const LOCAL_MEM_SIZE: u64 = jit::abi::LOCAL_ARENA_BYTES as u64;
/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN`, in bits: at least the size of `long16` (128 bytes).
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;
/// `CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE`, in bytes: the size of `long16` in the full profile.
pub const MIN_DATA_TYPE_ALIGN_SIZE: u32 = 128;
/// `CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE` (capped by the max allocation); the minimum is 64 KB.
pub const MAX_CONSTANT_BUFFER_SIZE: u64 = 1024 * 1024;
/// `CL_DEVICE_MAX_CONSTANT_ARGS`; the minimum is 8.
pub const MAX_CONSTANT_ARGS: u32 = 8;
/// `CL_DEVICE_MAX_PARAMETER_SIZE`; the minimum is 1024 (then at most 128 arguments).
pub const MAX_PARAMETER_SIZE: usize = 1024;
/// `CL_DEVICE_PRINTF_BUFFER_SIZE`; the full-profile minimum is 1 MB.
pub const PRINTF_BUFFER_SIZE: usize = 1024 * 1024;
/// `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE` (and the device query of the same name): a
/// hint; straight-line code runs four work-items at a time in 128-bit vectors
/// (`jit::codegen::simd`), so groups of a multiple of 4 fill every vector.
pub const PREFERRED_WORK_GROUP_SIZE_MULTIPLE: usize = 4;
/// `CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED`, format vYYYY-MM-DD-XX: Clift has not
/// passed an official conformance submission.
pub const LATEST_CONFORMANCE_VERSION_PASSED: &str = "v0000-01-01-00";
/// `CL_DEVICE_IMAGE2D_MAX_WIDTH` and `_HEIGHT` (also the widest 1D image and image array): the
/// spec's minimum.
pub const IMAGE2D_MAX_SIZE: usize = 16384;
/// `CL_DEVICE_IMAGE3D_MAX_WIDTH`, `_HEIGHT` and `_DEPTH`: the spec's minimum.
pub const IMAGE3D_MAX_SIZE: usize = 2048;
/// `CL_DEVICE_IMAGE_MAX_ARRAY_SIZE`: the spec's minimum.
pub const IMAGE_MAX_ARRAY_SIZE: usize = 2048;
/// `CL_DEVICE_IMAGE_PITCH_ALIGNMENT` and `CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT`, in pixels,
/// for 2D images from buffers (cl_khr_image2d_from_buffer): one pixel. Rows are whole pixels
/// for every image anyway, and any address works: the image engine loads and stores texels
/// unaligned and the host commands copy bytes.
pub const IMAGE_PITCH_ALIGNMENT: u32 = 1;
pub const IMAGE_BASE_ADDRESS_ALIGNMENT: u32 = 1;
/// The least `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE` (pixels of a 1D image buffer) the spec allows.
const MIN_IMAGE_MAX_BUFFER_SIZE: usize = 65536;
/// `CL_DEVICE_MAX_READ_IMAGE_ARGS`, `_WRITE_IMAGE_ARGS`, `_READ_WRITE_IMAGE_ARGS`,
/// `CL_DEVICE_MAX_SAMPLERS`: the spec's minimums. An image or sampler argument takes 8 bytes
/// of the argument block, so `MAX_PARAMETER_SIZE` holds 128 of them.
pub const MAX_READ_IMAGE_ARGS: u32 = 128;
pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
pub const MAX_READ_WRITE_IMAGE_ARGS: u32 = 64;
pub const MAX_SAMPLERS: u32 = 16;
/// `CL_DEVICE_QUEUE_ON_HOST_PROPERTIES`: both are implemented by the host runtime.
pub const QUEUE_ON_HOST_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/// Preferred and native vector widths for 128-bit SIMD (SSE2 / NEON), the baseline of every
/// 64-bit target: char, short, int, long, float, double, half.
const VECTOR_WIDTHS: [u32; 7] = [16, 8, 4, 2, 4, 2, 8];

/// The smallest allocation limit Clift reports; the spec's minimum is
/// max(min(1 GiB, global / 4), 32 MiB).
const MIN_MAX_ALLOC: u64 = 128 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The device object
// ---------------------------------------------------------------------------------------------

#[repr(C)]
pub struct Device {
    header: Header,
    name: String,
    vendor: String,
    vendor_id: u32,
    /// The compute units, as the CPU each one's worker thread is pinned to.
    units: Vec<usize>,
    /// The device this one was partitioned from (`None` for the root device).
    parent: Option<&'static Device>,
    /// `CL_DEVICE_PARTITION_TYPE` of a sub-device: the properties it was made with, the
    /// affinity domain resolved, terminated by 0.
    partition_type: Vec<cl_device_partition_property>,
    /// The worker pool, started by the first ND-range; a released sub-device lets it go.
    pool: Mutex<Option<Arc<Pool>>>,
    /// Contexts using this sub-device: its handle stays valid while there are any, even after
    /// the application released its own references.
    holders: Mutex<usize>,
    clock_mhz: u32,
    global_mem_size: u64,
    max_mem_alloc_size: u64,
    cache_size: u64,
    cache_line: u32,
    hardware_fma: bool,
    profiling_resolution: u64,
    version: String,
    driver_version: String,
}

impl ClObject for Device {
    const KIND: Kind = Kind::Device;
    fn header(&self) -> &Header {
        &self.header
    }
}

/// The device, read from the machine and registered on first use.
pub fn device() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    static PUBLISHED: Once = Once::new();
    let device = DEVICE.get_or_init(Device::new);
    PUBLISHED.call_once(|| {
        object::publish_static(device);
    });
    device
}

/// Threads of the root device's worker pool, its `CL_DEVICE_MAX_COMPUTE_UNITS`.
pub fn worker_threads() -> usize {
    device().units.len()
}

/// The root device's compute units, as the CPU each runs on: one per CPU the process may use
/// (its affinity mask and cgroup quota, not the machine's online count), or `CLIFT_THREADS`
/// of them (a positive integer) spread round-robin over those CPUs.
fn root_units() -> Vec<usize> {
    let cpus = cpuset::process_cpus();
    let env = std::env::var("CLIFT_THREADS").ok();
    let n = parse_threads(env.as_deref()).unwrap_or(cpus.len());
    (0..n).map(|i| cpus[i % cpus.len()]).collect()
}

impl Device {
    fn new() -> Device {
        let cpuinfo = read("/proc/cpuinfo");
        let vendor_tag = cpuinfo_field(&cpuinfo, "vendor_id").unwrap_or("");
        let global = global_mem_bytes();
        let (cache_size, cache_line) = global_cache(&cpuinfo);
        Device {
            header: Header::new(Kind::Device),
            name: device_name(&cpuinfo),
            vendor: vendor_name(vendor_tag),
            vendor_id: vendor_id(vendor_tag),
            units: root_units(),
            parent: None,
            partition_type: vec![0],
            pool: Mutex::new(None),
            holders: Mutex::new(0),
            clock_mhz: clock_mhz(&cpuinfo),
            global_mem_size: global,
            max_mem_alloc_size: max_alloc_for(global),
            cache_size,
            cache_line,
            hardware_fma: hardware_fma(),
            profiling_resolution: clock::resolution_ns(),
            version: format!("OpenCL 3.0 Clift {}", env!("CARGO_PKG_VERSION")),
            driver_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// `CL_DEVICE_NAME`.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn handle(&self) -> cl_device_id {
        self as *const Device as cl_device_id
    }

    pub fn max_mem_alloc_size(&self) -> u64 {
        self.max_mem_alloc_size
    }

    pub fn global_mem_size(&self) -> u64 {
        self.global_mem_size
    }

    /// Sub-buffer offsets must be multiples of this (`CL_MISALIGNED_SUB_BUFFER_OFFSET`).
    pub fn mem_base_addr_align_bytes(&self) -> usize {
        (MEM_BASE_ADDR_ALIGN_BITS / 8) as usize
    }

    pub fn compute_units(&self) -> u32 {
        u32::try_from(self.units.len()).unwrap_or(u32::MAX)
    }

    /// The CPU of each compute unit.
    pub fn units(&self) -> &[usize] {
        &self.units
    }

    /// The threads that run this device's ND-ranges, started on first use. Only the root
    /// device lets the enqueuing thread join in: a sub-device's work runs on its own CPUs.
    pub fn workers(&self) -> Arc<Pool> {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.get_or_insert_with(|| Arc::new(Pool::new(&self.units, self.parent.is_none())))
            .clone()
    }

    /// `CL_DEVICE_PARENT_DEVICE`.
    pub fn parent(&self) -> Option<&'static Device> {
        self.parent
    }

    /// The sub-devices of `plan` (see `partition::plan`), registered as handles with an
    /// application reference count of one. Their memory is never freed: contexts, programs and
    /// queues refer to devices as `&'static Device` and may outlive the application's last
    /// reference.
    pub fn create_sub_devices(&'static self, plan: &partition::Plan) -> Vec<&'static Device> {
        plan.groups
            .iter()
            .map(|group| {
                let sub: &'static Device = Box::leak(Box::new(Device {
                    header: Header::new(Kind::Device),
                    name: self.name.clone(),
                    vendor: self.vendor.clone(),
                    vendor_id: self.vendor_id,
                    units: group.iter().map(|&i| self.units[i]).collect(),
                    parent: Some(self),
                    partition_type: plan.partition_type.clone(),
                    pool: Mutex::new(None),
                    holders: Mutex::new(0),
                    clock_mhz: self.clock_mhz,
                    global_mem_size: self.global_mem_size,
                    max_mem_alloc_size: self.max_mem_alloc_size,
                    cache_size: self.cache_size,
                    cache_line: self.cache_line,
                    hardware_fma: self.hardware_fma,
                    profiling_resolution: self.profiling_resolution,
                    version: self.version.clone(),
                    driver_version: self.driver_version.clone(),
                }));
                object::publish_static(sub);
                sub
            })
            .collect()
    }

    /// A context starts using this device (sub-devices only are counted).
    pub fn hold(&self) {
        if self.parent.is_some() {
            *self.holders.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        }
    }

    /// A context using this device is gone.
    pub fn unhold(&self) {
        if self.parent.is_some() {
            let mut holders = self.holders.lock().unwrap_or_else(|e| e.into_inner());
            *holders = holders.saturating_sub(1);
            self.retire_if_unused(*holders);
        }
    }

    /// The application released its last reference to this sub-device.
    pub fn released(&self) {
        let holders = self.holders.lock().unwrap_or_else(|e| e.into_inner());
        self.retire_if_unused(*holders);
    }

    /// With no application reference and no context left, the handle is withdrawn and the
    /// worker threads end once no running ND-range uses them.
    fn retire_if_unused(&self, holders: usize) {
        if holders == 0 && self.header.ref_count() == 0 {
            object::withdraw_static(self.handle() as *const _);
            self.pool.lock().unwrap_or_else(|e| e.into_inner()).take();
        }
    }

    pub fn local_mem_size(&self) -> u64 {
        LOCAL_MEM_SIZE
    }

    pub fn max_work_group_size(&self) -> usize {
        MAX_WORK_GROUP_SIZE
    }

    /// `CL_DEVICE_SVM_CAPABILITIES` is not 0.
    pub fn supports_svm(&self) -> bool {
        FEATURES.svm()
    }

    /// `CL_DEVICE_SVM_CAPABILITIES`.
    pub fn svm_capabilities(&self) -> cl_device_svm_capabilities {
        FEATURES.svm_capabilities
    }

    /// `CL_DEVICE_MAX_NUM_SUB_GROUPS` is not 0.
    pub fn supports_sub_groups(&self) -> bool {
        FEATURES.sub_groups()
    }

    /// Resolution of the profiling timer in nanoseconds.
    pub fn profiling_resolution(&self) -> u64 {
        self.profiling_resolution
    }

    pub fn max_constant_buffer_size(&self) -> u64 {
        MAX_CONSTANT_BUFFER_SIZE.min(self.max_mem_alloc_size)
    }

    pub fn single_fp_config(&self) -> cl_device_fp_config {
        let config = FEATURES.fp_config;
        if self.hardware_fma {
            config
        } else {
            config & !CL_FP_FMA
        }
    }

    /// 0 without fp64 (the spec's mandated minimum); the correctly-rounded bit is float only.
    pub fn double_fp_config(&self) -> cl_device_fp_config {
        if FEATURES.fp64() {
            self.single_fp_config() & !CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
        } else {
            0
        }
    }

    /// Half: denormals, INF and NaN, round to nearest even (every half operation is computed
    /// in a wider type and rounded once to half) and a correctly rounded fma (computed in
    /// double, where the sum rounds at most once before the final rounding to half).
    pub fn half_fp_config(&self) -> cl_device_fp_config {
        if FEATURES.fp16() {
            CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA
        } else {
            0
        }
    }

    /// A vector width, 0 for double without fp64 and half without fp16 (the spec's rule).
    fn vector_width(&self, index: usize) -> u32 {
        match index {
            5 if !FEATURES.fp64() => 0,
            6 if !FEATURES.fp16() => 0,
            _ => VECTOR_WIDTHS[index],
        }
    }

    /// `clGetDeviceInfo`.
    pub fn info(&self, param: cl_device_info) -> Answer {
        self.identity_info(param)
            .or_else(|| self.compute_info(param))
            .or_else(|| self.memory_info(param))
            .or_else(|| self.image_info(param))
            .or_else(|| self.capability_info(param))
            .or_else(|| self.language_info(param))
            .or_else(|| crate::command_buffer::device_info(param))
            .unwrap_or(Err(CL_INVALID_VALUE))
    }

    fn identity_info(&self, param: cl_device_info) -> Option<Answer> {
        Some(match param {
            // A single type, never DEFAULT or ALL.
            CL_DEVICE_TYPE => info::ulong(CL_DEVICE_TYPE_CPU),
            CL_DEVICE_VENDOR_ID => info::uint(self.vendor_id),
            CL_DEVICE_NAME => info::string(&self.name),
            CL_DEVICE_VENDOR => info::string(&self.vendor),
            CL_DRIVER_VERSION => info::string(&self.driver_version),
            CL_DEVICE_PROFILE => info::string("FULL_PROFILE"),
            CL_DEVICE_VERSION => info::string(&self.version),
            CL_DEVICE_NUMERIC_VERSION => info::uint(OPENCL_VERSION),
            CL_DEVICE_PLATFORM => info::ptr(platform::platform().handle() as *const _),
            CL_DEVICE_AVAILABLE => info::boolean(true),
            CL_DEVICE_PARENT_DEVICE => info::ptr(self.parent.map_or(std::ptr::null(), |p| p.handle() as *const _)),
            // "If the device is a root-level device, a reference count of one is returned."
            CL_DEVICE_REFERENCE_COUNT => info::uint(match self.parent {
                Some(_) => self.header.ref_count(),
                None => 1,
            }),
            CL_DEVICE_PARTITION_MAX_SUB_DEVICES => {
                info::uint(u32::try_from(partition::max_sub_devices(self.units.len())).unwrap_or(u32::MAX))
            }
            CL_DEVICE_PARTITION_PROPERTIES => info::array(&partition::schemes(&self.units, topology::machine())),
            CL_DEVICE_PARTITION_AFFINITY_DOMAIN => {
                info::ulong(partition::affinity_domains(&self.units, topology::machine()))
            }
            // The root device answers 0: "there is no partition type associated with device".
            CL_DEVICE_PARTITION_TYPE => info::array(&self.partition_type),
            CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => info::string(LATEST_CONFORMANCE_VERSION_PASSED),
            _ => return None,
        })
    }

    fn compute_info(&self, param: cl_device_info) -> Option<Answer> {
        Some(match param {
            CL_DEVICE_MAX_COMPUTE_UNITS => info::uint(self.compute_units()),
            CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => info::uint(MAX_WORK_ITEM_DIMENSIONS),
            CL_DEVICE_MAX_WORK_ITEM_SIZES => info::array(&[MAX_WORK_GROUP_SIZE; MAX_WORK_ITEM_DIMENSIONS as usize]),
            CL_DEVICE_MAX_WORK_GROUP_SIZE => info::size(MAX_WORK_GROUP_SIZE),
            CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => info::size(PREFERRED_WORK_GROUP_SIZE_MULTIPLE),
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => {
                info::uint(self.vector_width(0))
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => {
                info::uint(self.vector_width(1))
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT => {
                info::uint(self.vector_width(2))
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG => {
                info::uint(self.vector_width(3))
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => {
                info::uint(self.vector_width(4))
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => {
                info::uint(self.vector_width(5))
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => {
                info::uint(self.vector_width(6))
            }
            CL_DEVICE_MAX_CLOCK_FREQUENCY => info::uint(self.clock_mhz),
            CL_DEVICE_ADDRESS_BITS => info::uint(usize::BITS),
            CL_DEVICE_ENDIAN_LITTLE => info::boolean(cfg!(target_endian = "little")),
            CL_DEVICE_SINGLE_FP_CONFIG => info::ulong(self.single_fp_config()),
            CL_DEVICE_DOUBLE_FP_CONFIG => info::ulong(self.double_fp_config()),
            // cl_khr_kernel_clock: one process-wide counter serves the device and work-group
            // scopes (no sub-groups).
            CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR if FEATURES.has_extension("cl_khr_kernel_clock") => {
                info::ulong(CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR | CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR)
            }
            // cl_khr_integer_dot_product: both input forms; none faster than the other
            // operations (plain integer arithmetic on the CPU).
            CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR if FEATURES.has_extension("cl_khr_integer_dot_product") => {
                info::ulong(
                    (CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR
                        | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR) as cl_ulong,
                )
            }
            p if (p == CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR
                || p == CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR)
                && FEATURES.has_extension("cl_khr_integer_dot_product") =>
            {
                // Six cl_bool fields, all CL_FALSE.
                info::array(&[CL_FALSE as cl_bool; 6])
            }
            // cl_ext_float_atomics: add and min/max (and load/store) on float and double in
            // global and local memory; none on half.
            CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT | CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT
                if FEATURES.has_extension("cl_ext_float_atomics") =>
            {
                if param == CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT && !FEATURES.fp64() {
                    info::ulong(0)
                } else {
                    info::ulong(FP_ATOMICS_ALL)
                }
            }
            CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT if FEATURES.has_extension("cl_ext_float_atomics") => {
                info::ulong(0)
            }
            // Only a device with cl_khr_fp16 knows this query.
            CL_DEVICE_HALF_FP_CONFIG if FEATURES.fp16() => info::ulong(self.half_fp_config()),
            CL_DEVICE_PROFILING_TIMER_RESOLUTION => {
                info::size(usize::try_from(self.profiling_resolution).unwrap_or(usize::MAX))
            }
            // Native kernels: host functions run by clEnqueueNativeKernel.
            CL_DEVICE_EXECUTION_CAPABILITIES => info::ulong(CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL),
            CL_DEVICE_MAX_PARAMETER_SIZE => info::size(MAX_PARAMETER_SIZE),
            CL_DEVICE_PRINTF_BUFFER_SIZE => info::size(PRINTF_BUFFER_SIZE),
            // Sub-groups of `jit::abi::SUB_GROUP_SIZE` work-items (jit codegen/collective.rs).
            // They make independent forward progress: a kernel whose work-items may wait for
            // each other in a spin loop runs them as fibers that yield in that loop (jit
            // codegen/spin.rs); the others cannot tell.
            CL_DEVICE_MAX_NUM_SUB_GROUPS => info::uint(if FEATURES.sub_groups() {
                MAX_WORK_GROUP_SIZE.div_ceil(jit::abi::SUB_GROUP_SIZE) as cl_uint
            } else {
                0
            }),
            CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => info::boolean(FEATURES.sub_groups()),
            _ => return None,
        })
    }

    fn memory_info(&self, param: cl_device_info) -> Option<Answer> {
        Some(match param {
            CL_DEVICE_MAX_MEM_ALLOC_SIZE => info::ulong(self.max_mem_alloc_size),
            CL_DEVICE_GLOBAL_MEM_SIZE => info::ulong(self.global_mem_size),
            CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => info::uint(CL_READ_WRITE_CACHE),
            CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => info::uint(self.cache_line),
            CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => info::ulong(self.cache_size),
            CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => info::ulong(self.max_constant_buffer_size()),
            CL_DEVICE_MAX_CONSTANT_ARGS => info::uint(MAX_CONSTANT_ARGS),
            CL_DEVICE_LOCAL_MEM_TYPE => info::uint(CL_GLOBAL),
            CL_DEVICE_LOCAL_MEM_SIZE => info::ulong(LOCAL_MEM_SIZE),
            CL_DEVICE_MEM_BASE_ADDR_ALIGN => info::uint(MEM_BASE_ADDR_ALIGN_BITS),
            CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => info::uint(MIN_DATA_TYPE_ALIGN_SIZE),
            CL_DEVICE_ERROR_CORRECTION_SUPPORT => info::boolean(false),
            // A CPU device: its global memory is host memory.
            CL_DEVICE_HOST_UNIFIED_MEMORY => info::boolean(true),
            // Program-scope globals: 64 KB minimum with the feature, else must be 0.
            CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE => info::size(self.global_variable_size()),
            CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => info::size(self.global_variable_size()),
            // 0 means "natural alignment" for the atomic alignments.
            CL_DEVICE_SVM_CAPABILITIES => info::ulong(FEATURES.svm_capabilities),
            CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
            | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
            | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => info::uint(0),
            _ => return None,
        })
    }

    fn global_variable_size(&self) -> usize {
        if FEATURES.has_feature("__opencl_c_program_scope_global_variables") {
            64 * 1024
        } else {
            0
        }
    }

    /// `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE`: pixels of a 1D image buffer. Its pixels are the
    /// buffer's, so any count whose widest (16-byte) element fits one allocation works.
    pub fn image_max_buffer_size(&self) -> usize {
        let pixels = usize::try_from(self.max_mem_alloc_size / 16).unwrap_or(usize::MAX);
        pixels.max(MIN_IMAGE_MAX_BUFFER_SIZE)
    }

    /// Image limits (the spec's minimums, see the constants) with image support, 0 without.
    fn image_info(&self, param: cl_device_info) -> Option<Answer> {
        let images = FEATURES.images();
        let rw_images = images && FEATURES.has_feature("__opencl_c_read_write_images");
        let from_buffer = images && FEATURES.has_extension("cl_khr_image2d_from_buffer");
        let size = |n: usize| info::size(if images { n } else { 0 });
        let uint = |n: u32, on: bool| info::uint(if on { n } else { 0 });
        Some(match param {
            CL_DEVICE_IMAGE_SUPPORT => info::boolean(images),
            CL_DEVICE_MAX_READ_IMAGE_ARGS => uint(MAX_READ_IMAGE_ARGS, images),
            CL_DEVICE_MAX_WRITE_IMAGE_ARGS => uint(MAX_WRITE_IMAGE_ARGS, images),
            CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => uint(MAX_READ_WRITE_IMAGE_ARGS, rw_images),
            CL_DEVICE_IMAGE2D_MAX_WIDTH | CL_DEVICE_IMAGE2D_MAX_HEIGHT => size(IMAGE2D_MAX_SIZE),
            CL_DEVICE_IMAGE3D_MAX_WIDTH | CL_DEVICE_IMAGE3D_MAX_HEIGHT | CL_DEVICE_IMAGE3D_MAX_DEPTH => {
                size(IMAGE3D_MAX_SIZE)
            }
            CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => size(self.image_max_buffer_size()),
            CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => size(IMAGE_MAX_ARRAY_SIZE),
            CL_DEVICE_MAX_SAMPLERS => uint(MAX_SAMPLERS, images),
            // "This value must be 0 for devices that do not support 2D images created from a
            // buffer."
            CL_DEVICE_IMAGE_PITCH_ALIGNMENT => uint(IMAGE_PITCH_ALIGNMENT, from_buffer),
            CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => uint(IMAGE_BASE_ADDRESS_ALIGNMENT, from_buffer),
            _ => return None,
        })
    }

    fn capability_info(&self, param: cl_device_info) -> Option<Answer> {
        let pipes = FEATURES.has_feature("__opencl_c_pipes");
        Some(match param {
            CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => info::ulong(QUEUE_ON_HOST_PROPERTIES),
            // No on-device queues: every one of these must be 0.
            CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => info::ulong(0),
            CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE
            | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE
            | CL_DEVICE_MAX_ON_DEVICE_QUEUES
            | CL_DEVICE_MAX_ON_DEVICE_EVENTS => info::uint(0),
            CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => info::ulong(0),
            CL_DEVICE_PIPE_SUPPORT => info::boolean(pipes),
            CL_DEVICE_MAX_PIPE_ARGS => info::uint(if pipes { 16 } else { 0 }),
            // A pipe's reservations are ranges of its ring (`jit::pipe`): a work-item may hold
            // any number at once, as long as the packets fit.
            CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS => info::uint(if pipes { 256 } else { 0 }),
            CL_DEVICE_PIPE_MAX_PACKET_SIZE => info::uint(if pipes { crate::pipe::MAX_PACKET_SIZE } else { 0 }),
            CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => info::ulong(FEATURES.atomic_memory_capabilities()),
            CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => info::ulong(FEATURES.atomic_fence_capabilities()),
            CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => info::boolean(FEATURES.non_uniform_work_groups),
            CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => {
                info::boolean(FEATURES.has_feature("__opencl_c_work_group_collective_functions"))
            }
            CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => {
                info::boolean(FEATURES.has_feature("__opencl_c_generic_address_space"))
            }
            CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => info::boolean(true),
            // No built-in kernels: an empty string and an empty array.
            CL_DEVICE_BUILT_IN_KERNELS => info::string(""),
            CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => info::name_versions(&[]),
            _ => return None,
        })
    }

    fn language_info(&self, param: cl_device_info) -> Option<Answer> {
        Some(match param {
            // The OpenCL C compiler is clang + llvm-spirv, found at run time; the linker is
            // Clift's own SPIR-V linker (it needs compiled objects, which need the compiler).
            CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
                info::boolean(FEATURES.compiler && crate::clc::toolchain().is_ok())
            }
            CL_DEVICE_OPENCL_C_VERSION => info::string(FEATURES.opencl_c_version),
            CL_DEVICE_OPENCL_C_ALL_VERSIONS => {
                let all: Vec<(&str, cl_version)> =
                    FEATURES.opencl_c_versions.iter().map(|v| ("OpenCL C", *v)).collect();
                info::name_versions(&all)
            }
            CL_DEVICE_OPENCL_C_FEATURES => info::name_versions(FEATURES.opencl_c_features),
            CL_DEVICE_EXTENSIONS => info::string(&FEATURES.extensions_string()),
            CL_DEVICE_EXTENSIONS_WITH_VERSION => info::name_versions(FEATURES.extensions),
            // "" when no IL is supported.
            CL_DEVICE_IL_VERSION => info::string(&FEATURES.il_version_string()),
            CL_DEVICE_ILS_WITH_VERSION => info::name_versions(FEATURES.ils),
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Reading the machine. Every reader falls back; none panics.
// ---------------------------------------------------------------------------------------------

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The value of the first `key : value` line of /proc/cpuinfo with this key.
fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim()).filter(|v| !v.is_empty())
    })
}

/// The CPU's model name with runs of spaces collapsed, or the architecture.
fn device_name(cpuinfo: &str) -> String {
    match cpuinfo_field(cpuinfo, "model name") {
        Some(name) => name.split_whitespace().collect::<Vec<_>>().join(" "),
        None => format!("{} CPU", std::env::consts::ARCH),
    }
}

fn vendor_name(vendor_id: &str) -> String {
    match vendor_id {
        "GenuineIntel" => "Intel(R) Corporation".to_string(),
        "AuthenticAMD" => "Advanced Micro Devices, Inc.".to_string(),
        "" => "Unknown".to_string(),
        other => other.to_string(),
    }
}

/// The PCI vendor ID of the CPU's vendor; 0 when it has none that Clift knows.
fn vendor_id(vendor_id: &str) -> u32 {
    match vendor_id {
        "GenuineIntel" => 0x8086,
        "AuthenticAMD" => 0x1022,
        _ => 0,
    }
}

fn parse_threads(value: Option<&str>) -> Option<usize> {
    value?.trim().parse::<usize>().ok().filter(|n| *n > 0)
}

/// Global memory: MemTotal, lowered to the cgroup's memory limit when there is one.
fn global_mem_bytes() -> u64 {
    let total = meminfo_total_bytes(&read("/proc/meminfo"))
        .or_else(sysconf_memory)
        .unwrap_or(1 << 30);
    let limits = [
        read("/sys/fs/cgroup/memory.max"),
        read("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
    ];
    limits.iter().filter_map(|l| cgroup_limit(l)).fold(total, u64::min)
}

/// "MemTotal:       16318204 kB" in bytes.
fn meminfo_total_bytes(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = words.next()?.parse().ok()?;
    let unit = match words.next() {
        Some("kB") | Some("KB") => 1024,
        Some("mB") | Some("MB") => 1024 * 1024,
        None => 1,
        Some(_) => return None,
    };
    n.checked_mul(unit).filter(|b| *b > 0)
}

fn sysconf_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system values.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let bytes = u64::try_from(pages).ok()?.checked_mul(u64::try_from(page).ok()?)?;
    (bytes > 0).then_some(bytes)
}

/// A cgroup memory limit file: a byte count, or "max" (v2) / a huge number (v1) for none.
fn cgroup_limit(text: &str) -> Option<u64> {
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes > 0 && bytes < (1 << 60)).then_some(bytes)
}

/// The spec's minimum is max(min(1 GiB, global / 4), 32 MiB); Clift offers a quarter of global
/// memory and at least 128 MiB, never more than global memory.
fn max_alloc_for(global: u64) -> u64 {
    (global / 4).max(MIN_MAX_ALLOC).min(global)
}

/// One cache of /sys/devices/system/cpu/cpu0/cache/index*.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cache {
    level: u32,
    data: bool,
    size: u64,
    line: u32,
}

/// The global memory cache: the last level holding data (its size and line size), else the
/// "cache size" of /proc/cpuinfo with 64-byte lines.
fn global_cache(cpuinfo: &str) -> (u64, u32) {
    let caches: Vec<Cache> = (0..16).filter_map(read_sys_cache).collect();
    match last_level_cache(&caches) {
        Some(c) => (c.size, c.line),
        None => {
            let size = cpuinfo_field(cpuinfo, "cache size").and_then(parse_cache_size);
            (size.unwrap_or(0), 64)
        }
    }
}

fn read_sys_cache(index: u32) -> Option<Cache> {
    let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
    let field = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).ok();
    Some(Cache {
        level: field("level")?.trim().parse().ok()?,
        data: field("type")?.trim() != "Instruction",
        size: parse_cache_size(&field("size")?)?,
        line: field("coherency_line_size")
            .and_then(|l| l.trim().parse().ok())
            .filter(|l| *l > 0)
            .unwrap_or(64),
    })
}

fn last_level_cache(caches: &[Cache]) -> Option<Cache> {
    caches
        .iter()
        .filter(|c| c.data && c.size > 0)
        .max_by_key(|c| c.level)
        .copied()
}

/// "32768K", "32M", "512 KB", "1024" in bytes.
fn parse_cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let n: u64 = text[..digits].parse().ok()?;
    let unit = match text[digits..].trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1024,
        "M" | "MB" | "MIB" => 1024 * 1024,
        "G" | "GB" | "GIB" => 1024 * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(unit)
}

/// The maximum frequency of cpufreq (kHz), else "cpu MHz" of /proc/cpuinfo, else 0.
fn clock_mhz(cpuinfo: &str) -> u32 {
    let cpufreq = read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    cpufreq_mhz(&cpufreq).or_else(|| cpuinfo_mhz(cpuinfo)).unwrap_or(0)
}

fn cpufreq_mhz(khz: &str) -> Option<u32> {
    let khz: u64 = khz.trim().parse().ok()?;
    u32::try_from(khz / 1000).ok().filter(|m| *m > 0)
}

fn cpuinfo_mhz(cpuinfo: &str) -> Option<u32> {
    let mhz: f64 = cpuinfo_field(cpuinfo, "cpu MHz")?.parse().ok()?;
    (mhz >= 1.0 && mhz < u32::MAX as f64).then(|| mhz.round() as u32)
}

/// Whether the CPU has fused multiply-add in hardware (`CL_FP_FMA`).
fn hardware_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n\
model name\t: Intel(R) Core(TM)  i7-8700 CPU @ 3.20GHz\ncpu MHz\t\t: 3191.998\n\
cache size\t: 12288 KB\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n";

    #[test]
    fn cpuinfo_fields() {
        assert_eq!(cpuinfo_field(CPUINFO, "vendor_id"), Some("GenuineIntel"));
        assert_eq!(device_name(CPUINFO), "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz");
        assert_eq!(cpuinfo_mhz(CPUINFO), Some(3192));
        assert_eq!(cpuinfo_field(CPUINFO, "missing"), None);
        assert_eq!(cpuinfo_field("model name\t:\n", "model name"), None);
        assert!(device_name("").ends_with(" CPU"));
        assert_eq!(cpuinfo_mhz("cpu MHz : garbage"), None);
    }

    #[test]
    fn vendors() {
        assert_eq!(vendor_name("GenuineIntel"), "Intel(R) Corporation");
        assert_eq!(vendor_name("AuthenticAMD"), "Advanced Micro Devices, Inc.");
        assert_eq!(vendor_name("HygonGenuine"), "HygonGenuine");
        assert_eq!(vendor_id("GenuineIntel"), 0x8086);
        assert_eq!(vendor_id("AuthenticAMD"), 0x1022);
        assert_eq!(vendor_id(""), 0);
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       16318204 kB\nMemFree:         1000 kB\n";
        assert_eq!(meminfo_total_bytes(text), Some(16318204 * 1024));
        assert_eq!(meminfo_total_bytes("MemFree: 1 kB"), None);
        assert_eq!(meminfo_total_bytes("MemTotal: x kB"), None);
        assert_eq!(meminfo_total_bytes(""), None);
    }

    #[test]
    fn cgroup_limits() {
        assert_eq!(cgroup_limit("max\n"), None);
        assert_eq!(cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(cgroup_limit("4294967296\n"), Some(4 << 30));
        assert_eq!(cgroup_limit(""), None);
    }

    #[test]
    fn caches() {
        assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("512 KB"), Some(512 << 10));
        assert_eq!(parse_cache_size("64"), Some(64));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size("12 parsecs"), None);
        let l1i = Cache {
            level: 1,
            data: false,
            size: 32 << 10,
            line: 64,
        };
        let l1d = Cache {
            level: 1,
            data: true,
            size: 32 << 10,
            line: 64,
        };
        let l3 = Cache {
            level: 3,
            data: true,
            size: 16 << 20,
            line: 64,
        };
        assert_eq!(last_level_cache(&[l1i, l1d, l3]), Some(l3));
        assert_eq!(last_level_cache(&[l1i]), None);
    }

    #[test]
    fn clock_and_threads() {
        assert_eq!(cpufreq_mhz("4700000\n"), Some(4700));
        assert_eq!(cpufreq_mhz(""), None);
        assert_eq!(parse_threads(Some("8")), Some(8));
        assert_eq!(parse_threads(Some("0")), None);
        assert_eq!(parse_threads(Some("-2")), None);
        assert_eq!(parse_threads(Some("many")), None);
        assert_eq!(parse_threads(None), None);
        assert!(!root_units().is_empty());
    }

    #[test]
    fn allocation_limit_meets_the_spec_minimum() {
        for global in [64u64 << 20, 512 << 20, 4 << 30, 64 << 30] {
            let alloc = max_alloc_for(global);
            let minimum = (global / 4).clamp(32 << 20, 1 << 30).min(global);
            assert!(alloc >= minimum && alloc <= global, "global {global}");
        }
    }

    #[test]
    fn feature_table_is_consistent() {
        let f = &FEATURES;
        let c_version = f.opencl_c_version.strip_prefix("OpenCL C ").unwrap_or("");
        let listed = f
            .opencl_c_versions
            .iter()
            .any(|v| c_version.starts_with(&format!("{}.{} ", version_major(*v), version_minor(*v))));
        assert!(
            listed,
            "CL_DEVICE_OPENCL_C_VERSION must be in CL_DEVICE_OPENCL_C_ALL_VERSIONS"
        );
        assert!(f
            .extensions_string()
            .split(' ')
            .all(|e| !e.is_empty() || f.extensions.is_empty()));
        let mandatory = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
        assert_eq!(f.atomic_memory_capabilities() & mandatory, mandatory);
        assert_ne!(f.atomic_fence_capabilities() & CL_DEVICE_ATOMIC_ORDER_ACQ_REL, 0);
        assert_eq!(f.il_version_string().is_empty(), f.ils.is_empty());
        // Full profile minimum for single precision.
        let minimum = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN;
        assert_eq!(f.fp_config & minimum, minimum);
    }

    #[test]
    fn device_answers() {
        let d = device();
        let version = d.info(CL_DEVICE_VERSION).unwrap_or_default();
        assert!(version.starts_with(b"OpenCL 3.0 "));
        assert!(d.compute_units() >= 1);
        assert!(d.max_mem_alloc_size() <= d.global_mem_size());
        assert_eq!(d.mem_base_addr_align_bytes(), 128);
        assert_eq!(d.info(0xFFFF), Err(CL_INVALID_VALUE));
        if FEATURES.fp16() {
            assert_eq!(d.info(CL_DEVICE_HALF_FP_CONFIG), info::ulong(d.half_fp_config()));
        } else {
            assert_eq!(d.info(CL_DEVICE_HALF_FP_CONFIG), Err(CL_INVALID_VALUE));
        }
        assert_eq!(d.info(CL_DEVICE_IMAGE_SUPPORT), info::boolean(FEATURES.images()));
        assert!(d.image_max_buffer_size() >= MIN_IMAGE_MAX_BUFFER_SIZE);
        let double_width = if FEATURES.fp64() { 2 } else { 0 };
        assert_eq!(
            d.info(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE),
            info::uint(double_width)
        );
        assert_eq!(d.info(CL_DEVICE_MAX_WORK_ITEM_SIZES).map(|v| v.len()), Ok(3 * 8));
        assert_eq!(
            d.info(CL_DEVICE_IL_VERSION),
            info::string(&FEATURES.il_version_string())
        );
        assert!(object::lookup_static::<Device>(d.handle() as *const _).is_some());
    }
}
