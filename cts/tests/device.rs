//! clGetDeviceIDs, clGetDeviceInfo (every OpenCL 3.0 query), timers, retain/release,
//! clCreateSubDevices.

use cts::*;
use std::collections::BTreeSet;
use std::ptr;

#[derive(Clone, Copy, Debug)]
enum Kind {
    U32,
    U64,
    Size,
    Bool,
    Bitfield,
    Str,
    /// Array whose element has this size.
    Array(usize),
    Handle,
}
use Kind::*;

const NV: usize = std::mem::size_of::<cl_name_version>();
const SZ: usize = std::mem::size_of::<size_t>();
const PROP: usize = std::mem::size_of::<cl_device_partition_property>();

/// Every clGetDeviceInfo query of the OpenCL 3.0 core, with its return type.
const QUERIES: &[(cl_device_info, &str, Kind)] = &[
    (CL_DEVICE_TYPE, "TYPE", Bitfield),
    (CL_DEVICE_VENDOR_ID, "VENDOR_ID", U32),
    (CL_DEVICE_MAX_COMPUTE_UNITS, "MAX_COMPUTE_UNITS", U32),
    (CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, "MAX_WORK_ITEM_DIMENSIONS", U32),
    (CL_DEVICE_MAX_WORK_ITEM_SIZES, "MAX_WORK_ITEM_SIZES", Array(SZ)),
    (CL_DEVICE_MAX_WORK_GROUP_SIZE, "MAX_WORK_GROUP_SIZE", Size),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,
        "PREFERRED_VECTOR_WIDTH_CHAR",
        U32,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
        "PREFERRED_VECTOR_WIDTH_SHORT",
        U32,
    ),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, "PREFERRED_VECTOR_WIDTH_INT", U32),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
        "PREFERRED_VECTOR_WIDTH_LONG",
        U32,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
        "PREFERRED_VECTOR_WIDTH_FLOAT",
        U32,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
        "PREFERRED_VECTOR_WIDTH_DOUBLE",
        U32,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
        "PREFERRED_VECTOR_WIDTH_HALF",
        U32,
    ),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, "NATIVE_VECTOR_WIDTH_CHAR", U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, "NATIVE_VECTOR_WIDTH_SHORT", U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, "NATIVE_VECTOR_WIDTH_INT", U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, "NATIVE_VECTOR_WIDTH_LONG", U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, "NATIVE_VECTOR_WIDTH_FLOAT", U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, "NATIVE_VECTOR_WIDTH_DOUBLE", U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, "NATIVE_VECTOR_WIDTH_HALF", U32),
    (CL_DEVICE_MAX_CLOCK_FREQUENCY, "MAX_CLOCK_FREQUENCY", U32),
    (CL_DEVICE_ADDRESS_BITS, "ADDRESS_BITS", U32),
    (CL_DEVICE_MAX_MEM_ALLOC_SIZE, "MAX_MEM_ALLOC_SIZE", U64),
    (CL_DEVICE_IMAGE_SUPPORT, "IMAGE_SUPPORT", Bool),
    (CL_DEVICE_MAX_READ_IMAGE_ARGS, "MAX_READ_IMAGE_ARGS", U32),
    (CL_DEVICE_MAX_WRITE_IMAGE_ARGS, "MAX_WRITE_IMAGE_ARGS", U32),
    (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, "MAX_READ_WRITE_IMAGE_ARGS", U32),
    (CL_DEVICE_IL_VERSION, "IL_VERSION", Str),
    (CL_DEVICE_ILS_WITH_VERSION, "ILS_WITH_VERSION", Array(NV)),
    (CL_DEVICE_IMAGE2D_MAX_WIDTH, "IMAGE2D_MAX_WIDTH", Size),
    (CL_DEVICE_IMAGE2D_MAX_HEIGHT, "IMAGE2D_MAX_HEIGHT", Size),
    (CL_DEVICE_IMAGE3D_MAX_WIDTH, "IMAGE3D_MAX_WIDTH", Size),
    (CL_DEVICE_IMAGE3D_MAX_HEIGHT, "IMAGE3D_MAX_HEIGHT", Size),
    (CL_DEVICE_IMAGE3D_MAX_DEPTH, "IMAGE3D_MAX_DEPTH", Size),
    (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, "IMAGE_MAX_BUFFER_SIZE", Size),
    (CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, "IMAGE_MAX_ARRAY_SIZE", Size),
    (CL_DEVICE_MAX_SAMPLERS, "MAX_SAMPLERS", U32),
    (CL_DEVICE_IMAGE_PITCH_ALIGNMENT, "IMAGE_PITCH_ALIGNMENT", U32),
    (
        CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT,
        "IMAGE_BASE_ADDRESS_ALIGNMENT",
        U32,
    ),
    (CL_DEVICE_MAX_PIPE_ARGS, "MAX_PIPE_ARGS", U32),
    (
        CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS,
        "PIPE_MAX_ACTIVE_RESERVATIONS",
        U32,
    ),
    (CL_DEVICE_PIPE_MAX_PACKET_SIZE, "PIPE_MAX_PACKET_SIZE", U32),
    (CL_DEVICE_MAX_PARAMETER_SIZE, "MAX_PARAMETER_SIZE", Size),
    (CL_DEVICE_MEM_BASE_ADDR_ALIGN, "MEM_BASE_ADDR_ALIGN", U32),
    (CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, "MIN_DATA_TYPE_ALIGN_SIZE", U32),
    (CL_DEVICE_SINGLE_FP_CONFIG, "SINGLE_FP_CONFIG", Bitfield),
    (CL_DEVICE_DOUBLE_FP_CONFIG, "DOUBLE_FP_CONFIG", Bitfield),
    (CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, "GLOBAL_MEM_CACHE_TYPE", U32),
    (CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, "GLOBAL_MEM_CACHELINE_SIZE", U32),
    (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, "GLOBAL_MEM_CACHE_SIZE", U64),
    (CL_DEVICE_GLOBAL_MEM_SIZE, "GLOBAL_MEM_SIZE", U64),
    (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, "MAX_CONSTANT_BUFFER_SIZE", U64),
    (CL_DEVICE_MAX_CONSTANT_ARGS, "MAX_CONSTANT_ARGS", U32),
    (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, "MAX_GLOBAL_VARIABLE_SIZE", Size),
    (
        CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
        "GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE",
        Size,
    ),
    (CL_DEVICE_LOCAL_MEM_TYPE, "LOCAL_MEM_TYPE", U32),
    (CL_DEVICE_LOCAL_MEM_SIZE, "LOCAL_MEM_SIZE", U64),
    (CL_DEVICE_ERROR_CORRECTION_SUPPORT, "ERROR_CORRECTION_SUPPORT", Bool),
    (CL_DEVICE_HOST_UNIFIED_MEMORY, "HOST_UNIFIED_MEMORY", Bool),
    (CL_DEVICE_PROFILING_TIMER_RESOLUTION, "PROFILING_TIMER_RESOLUTION", Size),
    (CL_DEVICE_ENDIAN_LITTLE, "ENDIAN_LITTLE", Bool),
    (CL_DEVICE_AVAILABLE, "AVAILABLE", Bool),
    (CL_DEVICE_COMPILER_AVAILABLE, "COMPILER_AVAILABLE", Bool),
    (CL_DEVICE_LINKER_AVAILABLE, "LINKER_AVAILABLE", Bool),
    (CL_DEVICE_EXECUTION_CAPABILITIES, "EXECUTION_CAPABILITIES", Bitfield),
    (CL_DEVICE_QUEUE_PROPERTIES, "QUEUE_PROPERTIES", Bitfield),
    (CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, "QUEUE_ON_HOST_PROPERTIES", Bitfield),
    (
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES,
        "QUEUE_ON_DEVICE_PROPERTIES",
        Bitfield,
    ),
    (
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE,
        "QUEUE_ON_DEVICE_PREFERRED_SIZE",
        U32,
    ),
    (CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, "QUEUE_ON_DEVICE_MAX_SIZE", U32),
    (CL_DEVICE_MAX_ON_DEVICE_QUEUES, "MAX_ON_DEVICE_QUEUES", U32),
    (CL_DEVICE_MAX_ON_DEVICE_EVENTS, "MAX_ON_DEVICE_EVENTS", U32),
    (CL_DEVICE_BUILT_IN_KERNELS, "BUILT_IN_KERNELS", Str),
    (
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION,
        "BUILT_IN_KERNELS_WITH_VERSION",
        Array(NV),
    ),
    (CL_DEVICE_PLATFORM, "PLATFORM", Handle),
    (CL_DEVICE_NAME, "NAME", Str),
    (CL_DEVICE_VENDOR, "VENDOR", Str),
    (CL_DRIVER_VERSION, "DRIVER_VERSION", Str),
    (CL_DEVICE_PROFILE, "PROFILE", Str),
    (CL_DEVICE_VERSION, "VERSION", Str),
    (CL_DEVICE_NUMERIC_VERSION, "NUMERIC_VERSION", U32),
    (CL_DEVICE_OPENCL_C_VERSION, "OPENCL_C_VERSION", Str),
    (CL_DEVICE_OPENCL_C_ALL_VERSIONS, "OPENCL_C_ALL_VERSIONS", Array(NV)),
    (CL_DEVICE_OPENCL_C_FEATURES, "OPENCL_C_FEATURES", Array(NV)),
    (CL_DEVICE_EXTENSIONS, "EXTENSIONS", Str),
    (CL_DEVICE_EXTENSIONS_WITH_VERSION, "EXTENSIONS_WITH_VERSION", Array(NV)),
    (CL_DEVICE_PRINTF_BUFFER_SIZE, "PRINTF_BUFFER_SIZE", Size),
    (
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC,
        "PREFERRED_INTEROP_USER_SYNC",
        Bool,
    ),
    (CL_DEVICE_PARENT_DEVICE, "PARENT_DEVICE", Handle),
    (CL_DEVICE_PARTITION_MAX_SUB_DEVICES, "PARTITION_MAX_SUB_DEVICES", U32),
    (CL_DEVICE_PARTITION_PROPERTIES, "PARTITION_PROPERTIES", Array(PROP)),
    (
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
        "PARTITION_AFFINITY_DOMAIN",
        Bitfield,
    ),
    (CL_DEVICE_PARTITION_TYPE, "PARTITION_TYPE", Array(PROP)),
    (CL_DEVICE_REFERENCE_COUNT, "REFERENCE_COUNT", U32),
    (CL_DEVICE_SVM_CAPABILITIES, "SVM_CAPABILITIES", Bitfield),
    (
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT,
        "PREFERRED_PLATFORM_ATOMIC_ALIGNMENT",
        U32,
    ),
    (
        CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT,
        "PREFERRED_GLOBAL_ATOMIC_ALIGNMENT",
        U32,
    ),
    (
        CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT,
        "PREFERRED_LOCAL_ATOMIC_ALIGNMENT",
        U32,
    ),
    (CL_DEVICE_MAX_NUM_SUB_GROUPS, "MAX_NUM_SUB_GROUPS", U32),
    (
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
        "SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS",
        Bool,
    ),
    (
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
        "ATOMIC_MEMORY_CAPABILITIES",
        Bitfield,
    ),
    (
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
        "ATOMIC_FENCE_CAPABILITIES",
        Bitfield,
    ),
    (
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
        "NON_UNIFORM_WORK_GROUP_SUPPORT",
        Bool,
    ),
    (
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
        "WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT",
        Bool,
    ),
    (
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
        "GENERIC_ADDRESS_SPACE_SUPPORT",
        Bool,
    ),
    (
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
        "DEVICE_ENQUEUE_CAPABILITIES",
        Bitfield,
    ),
    (CL_DEVICE_PIPE_SUPPORT, "PIPE_SUPPORT", Bool),
    (
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
        "PREFERRED_WORK_GROUP_SIZE_MULTIPLE",
        Size,
    ),
    (
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED,
        "LATEST_CONFORMANCE_VERSION_PASSED",
        Str,
    ),
];

fn u32q(p: cl_device_info) -> u32 {
    device_info::<cl_uint>(p)
}
fn u64q(p: cl_device_info) -> u64 {
    device_info::<cl_ulong>(p)
}
fn sizeq(p: cl_device_info) -> usize {
    device_info::<size_t>(p)
}
fn boolq(p: cl_device_info) -> bool {
    let b = device_info::<cl_bool>(p);
    assert!(b == CL_TRUE || b == CL_FALSE, "cl_bool query {p:#x} returned {b}");
    b == CL_TRUE
}

fn name_versions(p: cl_device_info) -> Vec<(String, cl_version)> {
    let b = device_bytes(device(), p).unwrap();
    bytes_to_vec::<cl_name_version>(&b)
        .iter()
        .map(|nv| {
            #[allow(clippy::unnecessary_cast)] // c_char is i8 on some targets
            let raw: Vec<u8> = nv.name.iter().map(|&c| c as u8).collect();
            let end = raw.iter().position(|&c| c == 0).expect("name not NUL-terminated");
            (String::from_utf8(raw[..end].to_vec()).unwrap(), nv.version)
        })
        .collect()
}

const fn make_version(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << 22) | (minor << 12) | patch
}

#[test]
fn device_ids_by_type() {
    let p = platform();
    for ty in [CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_DEFAULT] {
        let mut n: cl_uint = 0;
        ok!(clGetDeviceIDs(p, ty, 0, ptr::null_mut(), &mut n));
        assert_eq!(n, 1, "device type {ty:#x}: one CPU device expected");
        let mut d: cl_device_id = ptr::null_mut();
        ok!(clGetDeviceIDs(p, ty, 1, &mut d, ptr::null_mut()));
        assert_eq!(d, device(), "device type {ty:#x} returned another device");
    }
    // Combined bits select devices of any of the types.
    let mut n: cl_uint = 0;
    ok!(clGetDeviceIDs(
        p,
        CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU,
        0,
        ptr::null_mut(),
        &mut n
    ));
    assert_eq!(n, 1);
    for ty in [CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM] {
        let mut n: cl_uint = 7;
        check!(clGetDeviceIDs(p, ty, 0, ptr::null_mut(), &mut n), CL_DEVICE_NOT_FOUND);
    }
}

#[test]
fn device_ids_errors() {
    let p = platform();
    let mut d: cl_device_id = ptr::null_mut();
    let mut n: cl_uint = 0;
    // 0 names no device type at all, so it is not a valid value.
    // (PoCL 3.1 deviates: it answers CL_DEVICE_NOT_FOUND.)
    check!(clGetDeviceIDs(p, 0, 1, &mut d, &mut n), CL_INVALID_DEVICE_TYPE);
    check!(clGetDeviceIDs(p, 1 << 20, 1, &mut d, &mut n), CL_INVALID_DEVICE_TYPE);
    check!(
        clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, &mut d, &mut n),
        CL_INVALID_VALUE
    );
    check!(
        clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, ptr::null_mut(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    // (Wrong-type handles are in handles.rs.)
}

#[test]
fn every_device_query_succeeds_with_its_type_size() {
    let d = device();
    for &(param, name, kind) in QUERIES {
        let mut size: size_t = 0;
        let err = unsafe { clGetDeviceInfo(d, param, 0, ptr::null_mut(), &mut size) };
        assert_eq!(err, CL_SUCCESS, "CL_DEVICE_{name}: {}", err_name(err));
        let want = match kind {
            U32 => Some(4),
            U64 | Bitfield => Some(8),
            Size | Handle => Some(SZ),
            Bool => Some(std::mem::size_of::<cl_bool>()),
            Str | Array(_) => None,
        };
        if let Some(w) = want {
            assert_eq!(size, w, "CL_DEVICE_{name}: size_ret");
        }
        if let Array(el) = kind {
            assert_eq!(size % el, 0, "CL_DEVICE_{name}: size not a multiple of element");
        }
        let b = device_bytes(d, param).unwrap();
        if let Str = kind {
            bytes_to_string(&b);
        }
        // Too small a buffer -> CL_INVALID_VALUE (strings and arrays only when non-empty).
        if size > 0 && !(matches!(kind, Str) && size == 1) {
            let mut small = vec![0u8; size];
            let err =
                unsafe { clGetDeviceInfo(d, param, size - 1, small.as_mut_ptr() as *mut c_void, ptr::null_mut()) };
            assert_eq!(err, CL_INVALID_VALUE, "CL_DEVICE_{name} with size-1: {}", err_name(err));
        }
    }
}

#[test]
fn device_info_errors() {
    let d = device();
    let mut size = 0;
    check!(
        clGetDeviceInfo(d, 0x0BAD, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    check!(
        clGetDeviceInfo(d, CL_PLATFORM_NAME, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    check!(
        clGetDeviceInfo(ptr::null_mut(), CL_DEVICE_NAME, 0, ptr::null_mut(), &mut size),
        CL_INVALID_DEVICE
    );
}

#[test]
fn device_identity() {
    let ty = u64q(CL_DEVICE_TYPE);
    assert_ne!(ty & CL_DEVICE_TYPE_CPU, 0, "device type {ty:#x} lacks CPU");
    assert_eq!(
        ty & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM),
        0
    );
    assert_eq!(device_info::<cl_platform_id>(CL_DEVICE_PLATFORM), platform());
    assert!(device_info::<cl_device_id>(CL_DEVICE_PARENT_DEVICE).is_null());
    assert!(!device_string(CL_DEVICE_NAME).is_empty());
    assert!(!device_string(CL_DEVICE_VENDOR).is_empty());
    let dv = device_string(CL_DRIVER_VERSION);
    assert!(!dv.is_empty());
    assert_eq!(device_string(CL_DEVICE_PROFILE), "FULL_PROFILE");
    let v = device_string(CL_DEVICE_VERSION);
    assert!(v.starts_with("OpenCL 3.0 "), "CL_DEVICE_VERSION {v:?}");
    assert_eq!(u32q(CL_DEVICE_NUMERIC_VERSION), make_version(3, 0, 0));
    assert!(boolq(CL_DEVICE_AVAILABLE));
    assert_eq!(boolq(CL_DEVICE_ENDIAN_LITTLE), cfg!(target_endian = "little"));
    assert_eq!(u32q(CL_DEVICE_ADDRESS_BITS), usize::BITS);
    let vendor_id = u32q(CL_DEVICE_VENDOR_ID);
    // Spec: a PCI vendor id in the low 16 bits, or a Khronos vendor id (0x10000..).
    assert!(vendor_id != 0, "CL_DEVICE_VENDOR_ID is 0");
}

#[test]
fn device_compute_units_are_online_cpus() {
    assert_eq!(
        u32q(CL_DEVICE_MAX_COMPUTE_UNITS) as usize,
        online_cpus(),
        "CL_DEVICE_MAX_COMPUTE_UNITS must equal the host's online CPUs"
    );
}

#[test]
fn device_work_sizes() {
    let dims = u32q(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    assert!(dims >= 3);
    let sizes: Vec<usize> = bytes_to_vec(&device_bytes(device(), CL_DEVICE_MAX_WORK_ITEM_SIZES).unwrap());
    assert_eq!(
        sizes.len(),
        dims as usize,
        "MAX_WORK_ITEM_SIZES has one entry per dimension"
    );
    assert!(sizes.iter().all(|&s| s >= 1));
    let wg = sizeq(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert!(wg >= 1);
    let product = sizes.iter().fold(1usize, |a, &s| a.saturating_mul(s));
    assert!(
        wg <= product,
        "MAX_WORK_GROUP_SIZE {wg} exceeds the product of item sizes {sizes:?}"
    );
    assert!(sizeq(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE) >= 1);
    assert!(sizeq(CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
}

#[test]
fn device_memory_sizes() {
    let global = u64q(CL_DEVICE_GLOBAL_MEM_SIZE);
    let phys = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) as u64 * libc::sysconf(libc::_SC_PAGESIZE) as u64 };
    assert!(
        global > 0 && global <= phys,
        "GLOBAL_MEM_SIZE {global} vs physical {phys}"
    );
    let alloc = u64q(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let min_alloc = (global / 4).clamp(32 << 20, 1 << 30);
    assert!(
        alloc >= min_alloc,
        "MAX_MEM_ALLOC_SIZE {alloc} < spec minimum {min_alloc}"
    );
    assert!(alloc <= global);
    assert!(u64q(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 * 1024);
    assert!(u32q(CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
    assert!(u64q(CL_DEVICE_LOCAL_MEM_SIZE) >= 32 * 1024);
    let lt = u32q(CL_DEVICE_LOCAL_MEM_TYPE);
    assert!(lt == CL_LOCAL || lt == CL_GLOBAL);
    let ct = u32q(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE);
    assert!(ct == CL_NONE || ct == CL_READ_ONLY_CACHE || ct == CL_READ_WRITE_CACHE);
    // The largest OpenCL C type is long16 (128 bytes = 1024 bits).
    assert!(u32q(CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 1024);
    assert!(u32q(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE) >= 128);
    assert!(sizeq(CL_DEVICE_PRINTF_BUFFER_SIZE) >= 1024 * 1024);
    assert!(sizeq(CL_DEVICE_PROFILING_TIMER_RESOLUTION) >= 1);
}

#[test]
fn device_image_limits_match_image_support() {
    let images = boolq(CL_DEVICE_IMAGE_SUPPORT);
    let limits: &[(cl_device_info, &str, usize, bool)] = &[
        (CL_DEVICE_MAX_READ_IMAGE_ARGS, "MAX_READ_IMAGE_ARGS", 128, false),
        (CL_DEVICE_MAX_WRITE_IMAGE_ARGS, "MAX_WRITE_IMAGE_ARGS", 64, false),
        (CL_DEVICE_IMAGE2D_MAX_WIDTH, "IMAGE2D_MAX_WIDTH", 16384, true),
        (CL_DEVICE_IMAGE2D_MAX_HEIGHT, "IMAGE2D_MAX_HEIGHT", 16384, true),
        (CL_DEVICE_IMAGE3D_MAX_WIDTH, "IMAGE3D_MAX_WIDTH", 2048, true),
        (CL_DEVICE_IMAGE3D_MAX_HEIGHT, "IMAGE3D_MAX_HEIGHT", 2048, true),
        (CL_DEVICE_IMAGE3D_MAX_DEPTH, "IMAGE3D_MAX_DEPTH", 2048, true),
        (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, "IMAGE_MAX_BUFFER_SIZE", 65536, true),
        (CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, "IMAGE_MAX_ARRAY_SIZE", 2048, true),
        (CL_DEVICE_MAX_SAMPLERS, "MAX_SAMPLERS", 16, false),
    ];
    for &(p, name, min, is_size) in limits {
        let v = if is_size { sizeq(p) } else { u32q(p) as usize };
        if images {
            // (PoCL 3.1 deviates: IMAGE2D_MAX_WIDTH/HEIGHT 8192 < 16384.)
            assert!(
                v >= min,
                "CL_DEVICE_{name} = {v}, spec minimum {min} with image support"
            );
        } else {
            assert_eq!(v, 0, "CL_DEVICE_{name} must be 0 without image support");
        }
    }
    if !images {
        assert_eq!(u32q(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS), 0);
        assert_eq!(u32q(CL_DEVICE_IMAGE_PITCH_ALIGNMENT), 0);
        assert_eq!(u32q(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT), 0);
    }
}

#[test]
fn device_optional_features_are_consistent() {
    // Pipes.
    if boolq(CL_DEVICE_PIPE_SUPPORT) {
        assert!(u32q(CL_DEVICE_MAX_PIPE_ARGS) >= 16);
        assert!(u32q(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS) >= 1);
        assert!(u32q(CL_DEVICE_PIPE_MAX_PACKET_SIZE) >= 1024);
    } else {
        assert_eq!(u32q(CL_DEVICE_MAX_PIPE_ARGS), 0);
        assert_eq!(u32q(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS), 0);
        assert_eq!(u32q(CL_DEVICE_PIPE_MAX_PACKET_SIZE), 0);
    }
    // On-device queues.
    let enq = u64q(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
    if enq & CL_DEVICE_QUEUE_SUPPORTED == 0 {
        assert_eq!(enq, 0);
        assert_eq!(u64q(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES), 0);
        assert_eq!(u32q(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE), 0);
        assert_eq!(u32q(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE), 0);
        assert_eq!(u32q(CL_DEVICE_MAX_ON_DEVICE_QUEUES), 0);
        assert_eq!(u32q(CL_DEVICE_MAX_ON_DEVICE_EVENTS), 0);
    }
    // Host queue properties: PROFILING is mandatory.
    let hq = u64q(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    assert_ne!(hq & CL_QUEUE_PROFILING_ENABLE, 0);
    assert_eq!(u64q(CL_DEVICE_QUEUE_PROPERTIES), hq);
    assert_ne!(u64q(CL_DEVICE_EXECUTION_CAPABILITIES) & CL_EXEC_KERNEL, 0);
    // Full profile: compiler and linker.
    assert!(boolq(CL_DEVICE_COMPILER_AVAILABLE) || !boolq(CL_DEVICE_LINKER_AVAILABLE));
    // Single precision: full profile minimum is ROUND_TO_NEAREST | INF_NAN.
    let sp = u64q(CL_DEVICE_SINGLE_FP_CONFIG);
    assert_eq!(
        sp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
        CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN
    );
    // Double precision: 0, or the mandated minimum when supported.
    let dp = u64q(CL_DEVICE_DOUBLE_FP_CONFIG);
    let dp_min = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM;
    let has_fp64 = device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_fp64");
    if has_fp64 {
        assert_eq!(
            dp & dp_min,
            dp_min,
            "DOUBLE_FP_CONFIG {dp:#x} lacks the mandated minimum"
        );
    } else {
        assert_eq!(dp, 0, "DOUBLE_FP_CONFIG non-zero without cl_khr_fp64");
        assert_eq!(u32q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE), 0);
        assert_eq!(u32q(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE), 0);
    }
    let has_fp16 = device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_fp16");
    if !has_fp16 {
        assert_eq!(u32q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF), 0);
        assert_eq!(u32q(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF), 0);
    }
    // Sub-groups: MAX_NUM_SUB_GROUPS 0 iff no sub-group support.
    let subgroups = device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_subgroups");
    if !subgroups
        && !name_versions(CL_DEVICE_OPENCL_C_FEATURES)
            .iter()
            .any(|(n, _)| n == "__opencl_c_subgroups")
    {
        assert_eq!(u32q(CL_DEVICE_MAX_NUM_SUB_GROUPS), 0);
    }
}

#[test]
fn device_atomic_capabilities_have_mandatory_bits() {
    // (PoCL 3.1 deviates elsewhere: it writes DEVICE_ENQUEUE_CAPABILITIES as 4 bytes
    // although cl_device_device_enqueue_capabilities is a 64-bit cl_bitfield.)
    let mem = u64q(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    let need = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
    assert_eq!(mem & need, need, "ATOMIC_MEMORY_CAPABILITIES {mem:#x}");
    let fence = u64q(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    let need = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
    assert_eq!(fence & need, need, "ATOMIC_FENCE_CAPABILITIES {fence:#x}");
    // Scopes are hierarchical: a wide scope implies the narrower ones (work-item excepted).
    for caps in [mem, fence] {
        if caps & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES != 0 {
            assert_ne!(caps & CL_DEVICE_ATOMIC_SCOPE_DEVICE, 0);
        }
        if caps & CL_DEVICE_ATOMIC_SCOPE_DEVICE != 0 {
            assert_ne!(caps & CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP, 0);
        }
    }
}

#[test]
fn device_extensions_with_version_match_string() {
    let ext: Vec<String> = device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let set: BTreeSet<String> = ext.iter().cloned().collect();
    assert_eq!(set.len(), ext.len(), "duplicate names in CL_DEVICE_EXTENSIONS");
    let nv = name_versions(CL_DEVICE_EXTENSIONS_WITH_VERSION);
    let names: BTreeSet<String> = nv.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names.len(), nv.len());
    assert_eq!(
        set, names,
        "CL_DEVICE_EXTENSIONS_WITH_VERSION must name the CL_DEVICE_EXTENSIONS set"
    );
}

#[test]
fn device_opencl_c_versions() {
    let all = name_versions(CL_DEVICE_OPENCL_C_ALL_VERSIONS);
    assert!(
        all.iter().all(|(n, _)| n == "OpenCL C"),
        "names must be \"OpenCL C\": {all:?}"
    );
    let vs: BTreeSet<cl_version> = all.iter().map(|&(_, v)| v).collect();
    for (maj, min) in [(1, 0), (1, 1), (1, 2), (3, 0)] {
        assert!(
            vs.contains(&make_version(maj, min, 0)),
            "OpenCL C {maj}.{min} missing from OPENCL_C_ALL_VERSIONS (required for OpenCL 3.0)"
        );
    }
    let cv = device_string(CL_DEVICE_OPENCL_C_VERSION);
    assert!(cv.starts_with("OpenCL C "), "CL_DEVICE_OPENCL_C_VERSION {cv:?}");
    let num = cv["OpenCL C ".len()..].split_whitespace().next().unwrap();
    let (maj, min) = num.split_once('.').unwrap();
    let v = make_version(maj.parse().unwrap(), min.parse().unwrap(), 0);
    assert!(
        vs.iter().any(|&x| x >> 12 == v >> 12),
        "OPENCL_C_VERSION {cv:?} not in ALL_VERSIONS"
    );
    // Every feature is named with the __opencl_c_ prefix.
    for (n, _) in name_versions(CL_DEVICE_OPENCL_C_FEATURES) {
        assert!(n.starts_with("__opencl_c_"), "feature {n:?}");
    }
    // IL_VERSION and ILS_WITH_VERSION agree on the IL names.
    let il = device_string(CL_DEVICE_IL_VERSION);
    let ils = name_versions(CL_DEVICE_ILS_WITH_VERSION);
    assert_eq!(
        il.is_empty(),
        ils.is_empty(),
        "IL_VERSION {il:?} vs ILS_WITH_VERSION {ils:?}"
    );
    // Built-in kernels: string and list agree.
    let bik: BTreeSet<String> = device_string(CL_DEVICE_BUILT_IN_KERNELS)
        .split(';')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let bikv: BTreeSet<String> = name_versions(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(bik, bikv);
}

#[test]
fn device_partition_queries() {
    let props: Vec<cl_device_partition_property> =
        bytes_to_vec(&device_bytes(device(), CL_DEVICE_PARTITION_PROPERTIES).unwrap());
    // Either {0} (size of one property) / empty, or a list of supported partition types.
    for &p in &props {
        assert!(
            p == 0
                || p == CL_DEVICE_PARTITION_EQUALLY
                || p == CL_DEVICE_PARTITION_BY_COUNTS
                || p == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
            "unknown partition property {p:#x}"
        );
    }
    // Root device: PARTITION_TYPE is empty or {0}.
    let ty: Vec<cl_device_partition_property> =
        bytes_to_vec(&device_bytes(device(), CL_DEVICE_PARTITION_TYPE).unwrap());
    assert!(ty.is_empty() || ty == [0], "root device PARTITION_TYPE {ty:?}");
    let maxsub = u32q(CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    assert!(maxsub as usize <= online_cpus());
}

#[test]
fn device_retain_release_root() {
    let d = device();
    let before = device_info::<cl_uint>(CL_DEVICE_REFERENCE_COUNT);
    ok!(clRetainDevice(d));
    ok!(clReleaseDevice(d));
    ok!(clReleaseDevice(d)); // Root devices: retain/release are no-ops that succeed.
    ok!(clRetainDevice(d));
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_REFERENCE_COUNT), before);
    check!(clRetainDevice(ptr::null_mut()), CL_INVALID_DEVICE);
    check!(clReleaseDevice(ptr::null_mut()), CL_INVALID_DEVICE);
}

#[test]
fn host_timers() {
    let d = device();
    let mut h0: cl_ulong = 0;
    let err = unsafe { clGetHostTimer(d, &mut h0) };
    let res: cl_ulong =
        info_scalar(|s, v, r| unsafe { clGetPlatformInfo(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION, s, v, r) })
            .unwrap();
    if err == CL_INVALID_OPERATION {
        // No timer synchronisation: resolution must then be 0.
        assert_eq!(res, 0);
        return;
    }
    check!(err, CL_SUCCESS);
    let mut dev_t: cl_ulong = 0;
    let mut host_t: cl_ulong = 0;
    ok!(clGetDeviceAndHostTimer(d, &mut dev_t, &mut host_t));
    let mut h1: cl_ulong = 0;
    ok!(clGetHostTimer(d, &mut h1));
    assert!(
        h0 <= host_t && host_t <= h1,
        "host timer not monotonic: {h0} {host_t} {h1}"
    );
    let mut dev2: cl_ulong = 0;
    let mut host2: cl_ulong = 0;
    ok!(clGetDeviceAndHostTimer(d, &mut dev2, &mut host2));
    assert!(dev2 >= dev_t && host2 >= host_t);
    check!(clGetHostTimer(d, ptr::null_mut()), CL_INVALID_VALUE);
    check!(
        clGetDeviceAndHostTimer(d, ptr::null_mut(), &mut host_t),
        CL_INVALID_VALUE
    );
    check!(
        clGetDeviceAndHostTimer(d, &mut dev_t, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clGetDeviceAndHostTimer(ptr::null_mut(), &mut dev_t, &mut host_t),
        CL_INVALID_DEVICE
    );
    // Near each other: the host timestamps of two close calls differ by far less than a minute.
    assert!(h1 - h0 < 60_000_000_000);
}

#[test]
fn create_sub_devices_errors() {
    let d = device();
    let mut out: [cl_device_id; 64] = [ptr::null_mut(); 64];
    let mut n: cl_uint = 0;
    // Unknown partition property.
    let bad = [0x0BAD as cl_device_partition_property, 1, 0];
    check!(
        clCreateSubDevices(d, bad.as_ptr(), 64, out.as_mut_ptr(), &mut n),
        CL_INVALID_VALUE
    );
    let eq = [CL_DEVICE_PARTITION_EQUALLY, 1, 0];
    check!(
        clCreateSubDevices(ptr::null_mut(), eq.as_ptr(), 64, out.as_mut_ptr(), &mut n),
        CL_INVALID_DEVICE
    );
    let props: Vec<cl_device_partition_property> =
        bytes_to_vec(&device_bytes(d, CL_DEVICE_PARTITION_PROPERTIES).unwrap());
    let cus = u32q(CL_DEVICE_MAX_COMPUTE_UNITS) as isize;
    if !props.contains(&CL_DEVICE_PARTITION_EQUALLY) {
        // Valid but unsupported partition scheme.
        check!(
            clCreateSubDevices(d, eq.as_ptr(), 64, out.as_mut_ptr(), &mut n),
            CL_INVALID_VALUE
        );
    } else if cus >= 2 {
        // out_devices too small for the partition.
        check!(
            clCreateSubDevices(d, eq.as_ptr(), 1, out.as_mut_ptr(), &mut n),
            CL_INVALID_VALUE
        );
        ok!(clCreateSubDevices(d, eq.as_ptr(), 0, ptr::null_mut(), &mut n));
        assert_eq!(n as isize, cus);
    }
    if props.contains(&CL_DEVICE_PARTITION_BY_COUNTS) {
        let too_many = [
            CL_DEVICE_PARTITION_BY_COUNTS,
            cus,
            1,
            CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
            0,
        ];
        check!(
            clCreateSubDevices(d, too_many.as_ptr(), 64, out.as_mut_ptr(), &mut n),
            CL_INVALID_DEVICE_PARTITION_COUNT
        );
    } else {
        let counts = [
            CL_DEVICE_PARTITION_BY_COUNTS,
            1,
            CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
            0,
        ];
        check!(
            clCreateSubDevices(d, counts.as_ptr(), 64, out.as_mut_ptr(), &mut n),
            CL_INVALID_VALUE
        );
    }
    // The device still answers.
    assert!(!device_string(CL_DEVICE_NAME).is_empty());
}
