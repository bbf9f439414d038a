//! cl_khr_command_buffer, cl_khr_command_buffer_mutable_dispatch and
//! cl_khr_suggested_local_work_size for the tests and the benchmark: the entry points, found
//! with clGetExtensionFunctionAddressForPlatform as applications find them, and the enums of
//! the extensions' headers (command buffer 0.9.8, mutable dispatch 0.9.5).

use crate::{c_void, cl_command_queue, cl_event, cl_int, cl_kernel, cl_mem, cl_platform_id, cl_uint, cl_ulong};
use std::ffi::CString;

pub type CommandBuffer = *mut c_void;
pub type MutableCommand = *mut c_void;
pub type SyncPoint = cl_uint;

pub const CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: cl_uint = 0x12A9;
pub const CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR: cl_uint = 0x129A;
pub const CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR: cl_uint = 0x12AA;
pub const CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR: cl_uint = 0x12B0;
pub const CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR: cl_ulong = 1 << 0;
pub const CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR: cl_ulong = 1 << 2;
pub const CL_COMMAND_BUFFER_FLAGS_KHR: cl_ulong = 0x1293;
pub const CL_COMMAND_BUFFER_MUTABLE_KHR: cl_ulong = 1 << 1;
pub const CL_INVALID_COMMAND_BUFFER_KHR: cl_int = -1138;
pub const CL_INVALID_SYNC_POINT_WAIT_LIST_KHR: cl_int = -1139;
pub const CL_INVALID_MUTABLE_COMMAND_KHR: cl_int = -1141;
pub const CL_COMMAND_BUFFER_QUEUES_KHR: cl_uint = 0x1294;
pub const CL_COMMAND_BUFFER_NUM_QUEUES_KHR: cl_uint = 0x1295;
pub const CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR: cl_uint = 0x1296;
pub const CL_COMMAND_BUFFER_STATE_KHR: cl_uint = 0x1297;
pub const CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: cl_uint = 0x1298;
pub const CL_COMMAND_BUFFER_CONTEXT_KHR: cl_uint = 0x1299;
pub const CL_COMMAND_BUFFER_STATE_RECORDING_KHR: cl_uint = 0;
pub const CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR: cl_uint = 1;
pub const CL_COMMAND_BUFFER_STATE_FINALIZED_KHR: cl_uint = 2;
pub const CL_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A8;
pub const CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR: cl_ulong = 0x12B1;
pub const CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR: cl_ulong = 1 << 0;
pub const CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR: cl_ulong = 1 << 1;
pub const CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR: cl_ulong = 1 << 2;
pub const CL_MUTABLE_DISPATCH_ARGUMENTS_KHR: cl_ulong = 1 << 3;
pub const CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A1;
pub const CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR: cl_uint = 0x12AD;
pub const CL_MUTABLE_DISPATCH_KERNEL_KHR: cl_uint = 0x12A3;
pub const CL_MUTABLE_DISPATCH_DIMENSIONS_KHR: cl_uint = 0x12A4;
pub const CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR: cl_uint = 0x12A5;
pub const CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR: cl_uint = 0x12A6;
pub const CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR: cl_uint = 0x12A7;
pub const CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR: cl_uint = 0;

/// `cl_mutable_dispatch_arg_khr`.
#[repr(C)]
pub struct MutableDispatchArg {
    pub arg_index: cl_uint,
    pub arg_size: usize,
    pub arg_value: *const c_void,
}

/// `cl_mutable_dispatch_exec_info_khr`.
#[repr(C)]
pub struct MutableDispatchExecInfo {
    pub param_name: cl_uint,
    pub param_value_size: usize,
    pub param_value: *const c_void,
}

/// `cl_mutable_dispatch_config_khr`.
#[repr(C)]
pub struct MutableDispatchConfig {
    pub command: MutableCommand,
    pub num_args: cl_uint,
    pub num_svm_args: cl_uint,
    pub num_exec_infos: cl_uint,
    pub work_dim: cl_uint,
    pub arg_list: *const MutableDispatchArg,
    pub arg_svm_list: *const MutableDispatchArg,
    pub exec_info_list: *const c_void,
    pub global_work_offset: *const usize,
    pub global_work_size: *const usize,
    pub local_work_size: *const usize,
}

impl Default for MutableDispatchConfig {
    fn default() -> Self {
        MutableDispatchConfig {
            command: std::ptr::null_mut(),
            num_args: 0,
            num_svm_args: 0,
            num_exec_infos: 0,
            work_dim: 0,
            arg_list: std::ptr::null(),
            arg_svm_list: std::ptr::null(),
            exec_info_list: std::ptr::null(),
            global_work_offset: std::ptr::null(),
            global_work_size: std::ptr::null(),
            local_work_size: std::ptr::null(),
        }
    }
}

pub type CreateFn =
    unsafe extern "C" fn(cl_uint, *const cl_command_queue, *const cl_ulong, *mut cl_int) -> CommandBuffer;
pub type HandleFn = unsafe extern "C" fn(CommandBuffer) -> cl_int;
pub type EnqueueFn = unsafe extern "C" fn(
    cl_uint,
    *mut cl_command_queue,
    CommandBuffer,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
pub type BarrierFn = unsafe extern "C" fn(
    CommandBuffer,
    cl_command_queue,
    *const cl_ulong,
    cl_uint,
    *const SyncPoint,
    *mut SyncPoint,
    *mut MutableCommand,
) -> cl_int;
pub type CopyBufferFn = unsafe extern "C" fn(
    CommandBuffer,
    cl_command_queue,
    *const cl_ulong,
    cl_mem,
    cl_mem,
    usize,
    usize,
    usize,
    cl_uint,
    *const SyncPoint,
    *mut SyncPoint,
    *mut MutableCommand,
) -> cl_int;
pub type FillBufferFn = unsafe extern "C" fn(
    CommandBuffer,
    cl_command_queue,
    *const cl_ulong,
    cl_mem,
    *const c_void,
    usize,
    usize,
    usize,
    cl_uint,
    *const SyncPoint,
    *mut SyncPoint,
    *mut MutableCommand,
) -> cl_int;
pub type FillImageFn = unsafe extern "C" fn(
    CommandBuffer,
    cl_command_queue,
    *const cl_ulong,
    cl_mem,
    *const c_void,
    *const usize,
    *const usize,
    cl_uint,
    *const SyncPoint,
    *mut SyncPoint,
    *mut MutableCommand,
) -> cl_int;
pub type CopyImageToBufferFn = unsafe extern "C" fn(
    CommandBuffer,
    cl_command_queue,
    *const cl_ulong,
    cl_mem,
    cl_mem,
    *const usize,
    *const usize,
    usize,
    cl_uint,
    *const SyncPoint,
    *mut SyncPoint,
    *mut MutableCommand,
) -> cl_int;
pub type NDRangeFn = unsafe extern "C" fn(
    CommandBuffer,
    cl_command_queue,
    *const cl_ulong,
    cl_kernel,
    cl_uint,
    *const usize,
    *const usize,
    *const usize,
    cl_uint,
    *const SyncPoint,
    *mut SyncPoint,
    *mut MutableCommand,
) -> cl_int;
pub type InfoFn = unsafe extern "C" fn(*mut c_void, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
pub type UpdateFn = unsafe extern "C" fn(CommandBuffer, cl_uint, *const cl_uint, *const *const c_void) -> cl_int;
pub type SuggestFn =
    unsafe extern "C" fn(cl_command_queue, cl_kernel, cl_uint, *const usize, *const usize, *mut usize) -> cl_int;

/// The entry points, looked up on one platform.
pub struct Api {
    pub create: CreateFn,
    pub retain: HandleFn,
    pub release: HandleFn,
    pub finalize: HandleFn,
    pub enqueue: EnqueueFn,
    pub barrier: BarrierFn,
    pub copy_buffer: CopyBufferFn,
    pub fill_buffer: FillBufferFn,
    pub fill_image: FillImageFn,
    pub copy_image_to_buffer: CopyImageToBufferFn,
    pub nd_range: NDRangeFn,
    pub info: InfoFn,
    pub update: UpdateFn,
    pub mutable_info: InfoFn,
    pub suggest: SuggestFn,
}

/// clGetExtensionFunctionAddressForPlatform, NULL as `None`.
pub fn address(platform: cl_platform_id, name: &str) -> Option<*mut c_void> {
    let n = CString::new(name).ok()?;
    let p = unsafe { crate::clGetExtensionFunctionAddressForPlatform(platform, n.as_ptr()) };
    (!p.is_null()).then_some(p)
}

impl Api {
    /// Every entry point the tests use, or the first name that does not resolve.
    pub fn load(platform: cl_platform_id) -> Result<Api, String> {
        macro_rules! get {
            ($ty:ty, $name:expr) => {{
                let p = address(platform, $name).ok_or_else(|| format!("{} does not resolve", $name))?;
                // SAFETY: the extension defines this name's signature as the field's type.
                unsafe { std::mem::transmute::<*mut c_void, $ty>(p) }
            }};
        }
        Ok(Api {
            create: get!(CreateFn, "clCreateCommandBufferKHR"),
            retain: get!(HandleFn, "clRetainCommandBufferKHR"),
            release: get!(HandleFn, "clReleaseCommandBufferKHR"),
            finalize: get!(HandleFn, "clFinalizeCommandBufferKHR"),
            enqueue: get!(EnqueueFn, "clEnqueueCommandBufferKHR"),
            barrier: get!(BarrierFn, "clCommandBarrierWithWaitListKHR"),
            copy_buffer: get!(CopyBufferFn, "clCommandCopyBufferKHR"),
            fill_buffer: get!(FillBufferFn, "clCommandFillBufferKHR"),
            fill_image: get!(FillImageFn, "clCommandFillImageKHR"),
            copy_image_to_buffer: get!(CopyImageToBufferFn, "clCommandCopyImageToBufferKHR"),
            nd_range: get!(NDRangeFn, "clCommandNDRangeKernelKHR"),
            info: get!(InfoFn, "clGetCommandBufferInfoKHR"),
            update: get!(UpdateFn, "clUpdateMutableCommandsKHR"),
            mutable_info: get!(InfoFn, "clGetMutableCommandInfoKHR"),
            suggest: get!(SuggestFn, "clGetKernelSuggestedLocalWorkSizeKHR"),
        })
    }
}
