//! Platform and device queries (API sections 4.1-4.2) and the ICD's own entry points;
//! partitioning and device reference counts (4.3) are in `device.rs`.

use crate::guard::{guard, set, slice, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::device::device;
use runtime::platform::platform;
use std::ffi::{c_char, c_void, CStr};

/// The platforms Clift offers: exactly one.
unsafe fn platform_ids(num_entries: cl_uint, platforms: *mut cl_platform_id, num_platforms: *mut cl_uint) -> ClResult {
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL or if both
    // num_platforms and platforms are NULL."
    if (num_entries == 0 && !platforms.is_null()) || (num_platforms.is_null() && platforms.is_null()) {
        return Err(CL_INVALID_VALUE);
    }
    if !platforms.is_null() {
        *platforms = platform().handle();
    }
    set(num_platforms, 1);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    guard(|| platform_ids(num_entries, platforms, num_platforms))
}

/// cl_khr_icd: the loader enumerates vendor platforms through this.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    guard(|| {
        // cl_khr_icd: CL_INVALID_VALUE as for clGetPlatformIDs.
        platform_ids(num_entries, platforms, num_platforms)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform_id: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let p = handles::platform(platform_id)?;
        write_info(p.info(param_name), param_value_size, param_value, param_value_size_ret)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDs(
    platform_id: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    guard(|| {
        handles::platform(platform_id)?;
        let known = CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_CUSTOM
            | CL_DEVICE_TYPE_DEFAULT;
        // "CL_INVALID_DEVICE_TYPE if device_type is not a valid value."
        if device_type != CL_DEVICE_TYPE_ALL && (device_type == 0 || device_type & !known != 0) {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        // "CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL or if both
        // num_devices and devices are NULL."
        if (num_entries == 0 && !devices.is_null()) || (num_devices.is_null() && devices.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        // The one device is a CPU and the platform's default device.
        if device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0 {
            set(num_devices, 0);
            return Err(CL_DEVICE_NOT_FOUND);
        }
        if !devices.is_null() {
            *devices = device().handle();
        }
        set(num_devices, 1);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceInfo(
    device_id: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let d = handles::device(device_id)?;
        write_info(d.info(param_name), param_value_size, param_value, param_value_size_ret)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceAndHostTimer(
    device_id: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    guard(|| {
        handles::device(device_id)?;
        // "CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL."
        if device_timestamp.is_null() || host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // Device and host share one clock.
        let now = runtime::clock::now_ns();
        *device_timestamp = now;
        *host_timestamp = now;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetHostTimer(device_id: cl_device_id, host_timestamp: *mut cl_ulong) -> cl_int {
    guard(|| {
        handles::device(device_id)?;
        if host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        *host_timestamp = runtime::clock::now_ns();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    if func_name.is_null() {
        return std::ptr::null_mut();
    }
    std::panic::catch_unwind(|| crate::dispatch::lookup_extension(CStr::from_ptr(func_name)))
        .unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform_id: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    if func_name.is_null() || handles::platform(platform_id).is_err() {
        return std::ptr::null_mut();
    }
    clGetExtensionFunctionAddress(func_name)
}

/// Deprecated hints: nothing to unload (the compiler is an external program).
#[no_mangle]
pub unsafe extern "C" fn clUnloadCompiler() -> cl_int {
    CL_SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn clUnloadPlatformCompiler(platform_id: cl_platform_id) -> cl_int {
    guard(|| handles::platform(platform_id).map(|_| ()))
}

/// Checks a device list against the devices of a context or platform.
pub(crate) unsafe fn device_list(
    num_devices: cl_uint,
    devices: *const cl_device_id,
) -> ClResult<Vec<&'static runtime::device::Device>> {
    let handles = slice(devices, num_devices as usize).ok_or(CL_INVALID_VALUE)?;
    handles.iter().map(|&d| handles::device(d)).collect()
}
