//! The entry points of the areas Clift does not implement yet: built-in kernels,
//! sub-group queries, and the sharing extensions (OpenGL, EGL, Direct3D 10/11, DX9 media
//! surfaces, device fission). Each one is in the dispatch table, checks the handles it can
//! check cheaply, and then answers with the error the specification gives for a device without
//! the feature, which is what the device reports (`runtime::device::FEATURES`: no
//! sub-groups, none of the sharing extensions).
//!
//! Clauses are quoted from the OpenCL 3.0 API specification (section numbers in brackets). No function here dereferences a pointer the specification does not require to be
//! valid, and none can panic across the C boundary (`guard` / `guard_object`).

#![allow(unused_variables, clippy::too_many_arguments)]

use crate::guard::{guard, guard_object, slice, ClResult};
use crate::handles;
use opencl_sys::cl_d3d10::{
    cl_d3d10_device_set_khr, cl_d3d10_device_source_khr, ID3D10Buffer_ptr, ID3D10Texture2D_ptr, ID3D10Texture3D_ptr,
    CL_ALL_DEVICES_FOR_D3D10_KHR, CL_D3D10_DEVICE_KHR, CL_D3D10_DXGI_ADAPTER_KHR, CL_INVALID_D3D10_RESOURCE_KHR,
    CL_PREFERRED_DEVICES_FOR_D3D10_KHR,
};
use opencl_sys::cl_d3d11::{
    cl_d3d11_device_set_khr, cl_d3d11_device_source_khr, ID3D11Buffer_ptr, ID3D11Texture2D_ptr, ID3D11Texture3D_ptr,
    CL_ALL_DEVICES_FOR_D3D11_KHR, CL_D3D11_DEVICE_KHR, CL_D3D11_DXGI_ADAPTER_KHR, CL_INVALID_D3D11_RESOURCE_KHR,
    CL_PREFERRED_DEVICES_FOR_D3D11_KHR,
};
use opencl_sys::cl_dx9_media_sharing::{
    cl_dx9_media_adapter_set_khr, cl_dx9_media_adapter_type_khr, CL_ADAPTER_D3D9EX_KHR, CL_ADAPTER_D3D9_KHR,
    CL_ADAPTER_DXVA_KHR, CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR, CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR,
};
use opencl_sys::cl_egl::{cl_egl_image_properties_khr, CLeglDisplayKHR, CLeglImageKHR, CLeglSyncKHR};
use opencl_sys::*;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// Shared checks
// ---------------------------------------------------------------------------------------------

const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
const HOST_ACCESS: cl_mem_flags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

/// "CL_INVALID_VALUE if values specified in flags are not valid" (the memory flags table of
/// [5.2.1]): unknown bits, more than one of a mutually exclusive group, or USE_HOST_PTR with
/// ALLOC_HOST_PTR or COPY_HOST_PTR.
fn check_mem_flags(flags: cl_mem_flags) -> ClResult {
    let known = ACCESS | HOST_PTR | HOST_ACCESS | CL_MEM_KERNEL_READ_AND_WRITE;
    let many = |group: cl_mem_flags| (flags & group).count_ones() > 1;
    let use_with_other =
        flags & CL_MEM_USE_HOST_PTR != 0 && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if flags & !known != 0 || many(ACCESS) || many(HOST_ACCESS) || use_with_other {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// "CL_INVALID_VALUE if num_objects is zero and mem_objects is not a NULL value or if
/// num_objects > 0 and mem_objects is NULL" (the acquire/release commands of the sharing
/// extensions).
fn check_object_list(num_objects: cl_uint, mem_objects: *const cl_mem) -> ClResult {
    if (num_objects == 0) != mem_objects.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// A device list that must name devices of `context`: "CL_INVALID_VALUE if device_list is NULL
/// or num_devices is zero", "CL_INVALID_DEVICE if any device in device_list is not in the list
/// of devices associated with context".
unsafe fn check_devices_in_context(
    context: &runtime::context::Context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
) -> ClResult {
    if num_devices == 0 || device_list.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let devices = slice(device_list, num_devices as usize).ok_or(CL_INVALID_VALUE)?;
    for &d in devices {
        let device = handles::device(d)?;
        if !context.has_device(device) {
            return Err(CL_INVALID_DEVICE);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Programs [5.8]
// ---------------------------------------------------------------------------------------------

/// [5.8.1]: "CL_INVALID_CONTEXT", "CL_INVALID_VALUE if device_list is NULL or num_devices is
/// zero", "CL_INVALID_DEVICE if any device in device_list is not in the list of devices
/// associated with context", "CL_INVALID_VALUE if kernel_names is NULL or kernel_names
/// contains a kernel name that is not supported by any of the devices in device_list": the
/// device has no built-in kernels (`CL_DEVICE_BUILT_IN_KERNELS` is empty).
#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithBuiltInKernels(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    guard_object(errcode_ret, || {
        let ctx = handles::context(context)?;
        check_devices_in_context(&ctx, num_devices, device_list)?;
        Err(CL_INVALID_VALUE)
    })
}

// ---------------------------------------------------------------------------------------------
// Kernels [5.9, 5.10]
// ---------------------------------------------------------------------------------------------

// clGetKernelSubGroupInfo and clGetKernelSubGroupInfoKHR: subgroup.rs.

// Pipes [5.4]: pipe.rs.

// ---------------------------------------------------------------------------------------------
// cl_ext_device_fission (superseded by clCreateSubDevices; not reported)
// ---------------------------------------------------------------------------------------------

/// "CL_INVALID_DEVICE if in_device is not a valid device", then "CL_INVALID_VALUE if values
/// specified in properties are not valid or if values specified in properties are valid but
/// not supported by the device": Clift supports no `CL_DEVICE_PARTITION_*_EXT` scheme.
#[no_mangle]
pub unsafe extern "C" fn clCreateSubDevicesEXT(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property_ext,
    num_entries: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    guard(|| {
        handles::device(in_device)?;
        Err(CL_INVALID_VALUE)
    })
}

/// The extension's retain/release behave as the 1.2 core functions (a root device is not
/// counted): delegated so both always agree.
#[no_mangle]
pub unsafe extern "C" fn clRetainDeviceEXT(device: cl_device_id) -> cl_int {
    super::clRetainDevice(device)
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseDeviceEXT(device: cl_device_id) -> cl_int {
    super::clReleaseDevice(device)
}

// ---------------------------------------------------------------------------------------------
// cl_khr_gl_sharing, cl_khr_gl_event [5.2.4, 5.3.x, 5.5.x, 5.11.x; not reported]
// No context can be created from an OpenGL context (clCreateContext accepts no GL property).
// ---------------------------------------------------------------------------------------------

/// "CL_INVALID_CONTEXT if context is not a valid context or was not created from an OpenGL
/// context".
fn gl_creation(context: cl_context) -> ClResult<cl_mem> {
    handles::context(context)?;
    Err(CL_INVALID_CONTEXT)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    bufobj: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || gl_creation(context))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture(
    context: cl_context,
    flags: cl_mem_flags,
    target: cl_GLenum,
    miplevel: cl_GLint,
    texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || gl_creation(context))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture2D(
    context: cl_context,
    flags: cl_mem_flags,
    target: cl_GLenum,
    miplevel: cl_GLint,
    texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || gl_creation(context))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture3D(
    context: cl_context,
    flags: cl_mem_flags,
    target: cl_GLenum,
    miplevel: cl_GLint,
    texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || gl_creation(context))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLRenderbuffer(
    context: cl_context,
    flags: cl_mem_flags,
    renderbuffer: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || gl_creation(context))
}

/// "CL_INVALID_MEM_OBJECT if memobj is not a valid OpenCL memory object", then
/// "CL_INVALID_GL_OBJECT if there is no OpenGL object associated with memobj".
#[no_mangle]
pub unsafe extern "C" fn clGetGLObjectInfo(
    memobj: cl_mem,
    gl_object_type: *mut cl_gl_object_type,
    gl_object_name: *mut cl_GLuint,
) -> cl_int {
    guard(|| {
        handles::mem(memobj)?;
        Err(CL_INVALID_GL_OBJECT)
    })
}

/// "CL_INVALID_MEM_OBJECT if memobj is not a valid OpenCL memory object", then
/// "CL_INVALID_GL_OBJECT if there is no OpenGL texture object associated with memobj".
#[no_mangle]
pub unsafe extern "C" fn clGetGLTextureInfo(
    memobj: cl_mem,
    param_name: cl_gl_texture_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        handles::mem(memobj)?;
        Err(CL_INVALID_GL_OBJECT)
    })
}

/// "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue", "CL_INVALID_VALUE
/// if num_objects is zero and mem_objects is not a NULL value or if num_objects > 0 and
/// mem_objects is NULL", then "CL_INVALID_CONTEXT if context associated with command_queue was
/// not created from an OpenGL context".
unsafe fn gl_command(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem) -> ClResult {
    handles::queue(command_queue)?;
    check_object_list(num_objects, mem_objects)?;
    Err(CL_INVALID_CONTEXT)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireGLObjects(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| gl_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseGLObjects(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| gl_command(command_queue, num_objects, mem_objects))
}

/// [5.11, clGetGLContextInfoKHR]: "CL_INVALID_VALUE if a property name specified in properties
/// is invalid", "CL_INVALID_VALUE if param_name is not one of the supported values",
/// "CL_INVALID_OPERATION if ... more than one of the properties CL_CGL_SHAREGROUP_KHR,
/// CL_EGL_DISPLAY_KHR, CL_GLX_DISPLAY_KHR, and CL_WGL_HDC_KHR is set to a non-default value" or
/// "both of the properties CL_CGL_SHAREGROUP_KHR and CL_GL_CONTEXT_KHR are set to non-default
/// values", then "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR if ... the specified context is not
/// compatible with the OpenCL context being created (... it does not support sharing data with
/// OpenCL due to implementation restrictions)": Clift shares with no OpenGL context.
#[no_mangle]
pub unsafe extern "C" fn clGetGLContextInfoKHR(
    properties: *const cl_context_properties,
    param_name: cl_gl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let mut displays = 0;
        let mut gl_context = false;
        let mut cgl = false;
        if !properties.is_null() {
            let mut i = 0;
            loop {
                let key = *properties.add(i);
                if key == 0 {
                    break;
                }
                let value = *properties.add(i + 1);
                match key {
                    CL_CONTEXT_PLATFORM | CL_CONTEXT_INTEROP_USER_SYNC => {}
                    CL_GL_CONTEXT_KHR => gl_context |= value != 0,
                    CL_CGL_SHAREGROUP_KHR => {
                        cgl |= value != 0;
                        displays += (value != 0) as u32;
                    }
                    CL_EGL_DISPLAY_KHR | CL_GLX_DISPLAY_KHR | CL_WGL_HDC_KHR => displays += (value != 0) as u32,
                    _ => return Err(CL_INVALID_VALUE),
                }
                i += 2;
            }
        }
        if param_name != CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR && param_name != CL_DEVICES_FOR_GL_CONTEXT_KHR {
            return Err(CL_INVALID_VALUE);
        }
        if displays > 1 || (cgl && gl_context) {
            return Err(CL_INVALID_OPERATION);
        }
        Err(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR)
    })
}

/// [5.11.x, clCreateEventFromGLsyncKHR]: "CL_INVALID_CONTEXT if context is not a valid context,
/// or was not created from a GL context".
#[no_mangle]
pub unsafe extern "C" fn clCreateEventFromGLsyncKHR(
    context: cl_context,
    sync: cl_GLsync,
    errcode_ret: *mut cl_int,
) -> cl_event {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        Err(CL_INVALID_CONTEXT)
    })
}

// ---------------------------------------------------------------------------------------------
// cl_khr_egl_image, cl_khr_egl_event [not reported]
// ---------------------------------------------------------------------------------------------

/// [5.3.x, clCreateFromEGLImageKHR]: "CL_INVALID_CONTEXT if context is not a valid OpenCL
/// context", "CL_INVALID_VALUE if ... flags are not in the set defined above", then
/// "CL_INVALID_OPERATION if there are no devices in context that support images".
#[no_mangle]
pub unsafe extern "C" fn clCreateFromEGLImageKHR(
    context: cl_context,
    egldisplay: CLeglDisplayKHR,
    eglimage: CLeglImageKHR,
    flags: cl_mem_flags,
    properties: *const cl_egl_image_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        // "Accepted for flags are CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, and CL_MEM_READ_WRITE. If
        // OpenCL 1.2 is supported, flags also accepts CL_MEM_HOST_WRITE_ONLY,
        // CL_MEM_HOST_READ_ONLY, and CL_MEM_HOST_NO_ACCESS."
        let many = |group: cl_mem_flags| (flags & group).count_ones() > 1;
        if flags & !(ACCESS | HOST_ACCESS) != 0 || many(ACCESS) || many(HOST_ACCESS) {
            return Err(CL_INVALID_VALUE);
        }
        Err(CL_INVALID_OPERATION)
    })
}

/// [5.5.x, clEnqueueAcquireEGLObjectsKHR]: "CL_INVALID_COMMAND_QUEUE if command_queue is not a
/// valid command-queue", "CL_INVALID_VALUE if num_objects is zero and mem_objects is not a NULL
/// value or if num_objects > 0 and mem_objects is NULL", "CL_INVALID_MEM_OBJECT if memory
/// objects in mem_objects are not valid OpenCL memory objects in the context associated with
/// command_queue", "CL_INVALID_EGL_OBJECT_KHR if memory objects in mem_objects have not been
/// created from EGL resources": none can be. An empty list gets CL_INVALID_OPERATION: the
/// extension is not supported, so there is no command to enqueue.
unsafe fn egl_command(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem) -> ClResult {
    let queue = handles::queue(command_queue)?;
    check_object_list(num_objects, mem_objects)?;
    let objects = slice(mem_objects, num_objects as usize).ok_or(CL_INVALID_VALUE)?;
    if objects.is_empty() {
        return Err(CL_INVALID_OPERATION);
    }
    for &memobj in objects {
        let mem = handles::mem(memobj)?;
        if !Arc::ptr_eq(&mem.context, &queue.context) {
            return Err(CL_INVALID_MEM_OBJECT);
        }
    }
    Err(opencl_sys::cl_egl::CL_INVALID_EGL_OBJECT_KHR)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireEGLObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| egl_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseEGLObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| egl_command(command_queue, num_objects, mem_objects))
}

/// [5.11.x, clCreateEventFromEGLSyncKHR]: "CL_INVALID_CONTEXT if context is not a valid
/// context, or was not created from a GL context".
#[no_mangle]
pub unsafe extern "C" fn clCreateEventFromEGLSyncKHR(
    context: cl_context,
    sync: CLeglSyncKHR,
    display: CLeglDisplayKHR,
    errcode_ret: *mut cl_int,
) -> cl_event {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        Err(CL_INVALID_CONTEXT)
    })
}

// ---------------------------------------------------------------------------------------------
// cl_khr_d3d10_sharing, cl_khr_d3d11_sharing, cl_khr_dx9_media_sharing [not reported]
// No context can be created against a Direct3D device or media adapter.
// ---------------------------------------------------------------------------------------------

/// [4.x, clGetDeviceIDsFromD3D1xKHR / clGetDeviceIDsFromDX9MediaAdapterKHR], the tail shared by
/// the three: "CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL", "if
/// both num_devices and devices are NULL", then "CL_DEVICE_NOT_FOUND if no OpenCL devices that
/// correspond to ... were found" (`num_devices`, when given, is set to 0).
unsafe fn no_sharing_devices(num_entries: cl_uint, devices: *mut cl_device_id, num_devices: *mut cl_uint) -> ClResult {
    if num_entries == 0 && !devices.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    if devices.is_null() && num_devices.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    crate::guard::set(num_devices, 0);
    Err(CL_DEVICE_NOT_FOUND)
}

/// "CL_INVALID_PLATFORM if platform is not a valid platform", "CL_INVALID_VALUE if
/// d3d_device_source is not a valid value", "if d3d_device_set is not a valid value", then the
/// shared tail.
#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDsFromD3D10KHR(
    platform: cl_platform_id,
    d3d_device_source: cl_d3d10_device_source_khr,
    d3d_object: *mut c_void,
    d3d_device_set: cl_d3d10_device_set_khr,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    guard(|| {
        handles::platform(platform)?;
        if d3d_device_source != CL_D3D10_DEVICE_KHR && d3d_device_source != CL_D3D10_DXGI_ADAPTER_KHR {
            return Err(CL_INVALID_VALUE);
        }
        if d3d_device_set != CL_PREFERRED_DEVICES_FOR_D3D10_KHR && d3d_device_set != CL_ALL_DEVICES_FOR_D3D10_KHR {
            return Err(CL_INVALID_VALUE);
        }
        no_sharing_devices(num_entries, devices, num_devices)
    })
}

/// As clGetDeviceIDsFromD3D10KHR, for Direct3D 11.
#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDsFromD3D11KHR(
    platform: cl_platform_id,
    d3d_device_source: cl_d3d11_device_source_khr,
    d3d_object: *mut c_void,
    d3d_device_set: cl_d3d11_device_set_khr,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    guard(|| {
        handles::platform(platform)?;
        if d3d_device_source != CL_D3D11_DEVICE_KHR && d3d_device_source != CL_D3D11_DXGI_ADAPTER_KHR {
            return Err(CL_INVALID_VALUE);
        }
        if d3d_device_set != CL_PREFERRED_DEVICES_FOR_D3D11_KHR && d3d_device_set != CL_ALL_DEVICES_FOR_D3D11_KHR {
            return Err(CL_INVALID_VALUE);
        }
        no_sharing_devices(num_entries, devices, num_devices)
    })
}

/// "CL_INVALID_PLATFORM if platform is not a valid platform", "CL_INVALID_VALUE if
/// num_media_adapters is zero, if media_adapters_type is NULL, if media_adapters is NULL, if
/// any of the entries in media_adapters_type is not a valid value, if media_adapter_set is not
/// a valid value", then the shared tail.
#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDsFromDX9MediaAdapterKHR(
    platform: cl_platform_id,
    num_media_adapters: cl_uint,
    media_adapter_type: *mut cl_dx9_media_adapter_type_khr,
    media_adapters: *mut c_void,
    media_adapter_set: cl_dx9_media_adapter_set_khr,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    guard(|| {
        handles::platform(platform)?;
        if num_media_adapters == 0 || media_adapters.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let types = slice(
            media_adapter_type as *const cl_dx9_media_adapter_type_khr,
            num_media_adapters as usize,
        )
        .ok_or(CL_INVALID_VALUE)?;
        let known = [CL_ADAPTER_D3D9_KHR, CL_ADAPTER_D3D9EX_KHR, CL_ADAPTER_DXVA_KHR];
        if types.iter().any(|t| !known.contains(t)) {
            return Err(CL_INVALID_VALUE);
        }
        if media_adapter_set != CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR
            && media_adapter_set != CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR
        {
            return Err(CL_INVALID_VALUE);
        }
        no_sharing_devices(num_entries, devices, num_devices)
    })
}

/// [5.2.x / 5.3.x, clCreateFromD3D10*KHR]: "CL_INVALID_CONTEXT if context is not a valid
/// context", "CL_INVALID_VALUE if values specified in flags are not valid", then
/// "CL_INVALID_D3D10_RESOURCE_KHR if ... context was not created against the same Direct3D 10
/// device from which resource was created" (no context is created against one).
fn d3d10_creation(context: cl_context, flags: cl_mem_flags) -> ClResult<cl_mem> {
    handles::context(context)?;
    check_mem_flags(flags)?;
    Err(CL_INVALID_D3D10_RESOURCE_KHR)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D10BufferKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D10Buffer_ptr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || d3d10_creation(context, flags))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D10Texture2DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D10Texture2D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || d3d10_creation(context, flags))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D10Texture3DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D10Texture3D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || d3d10_creation(context, flags))
}

/// As d3d10_creation: "CL_INVALID_D3D11_RESOURCE_KHR if ... context was not created against
/// the same Direct3D 11 device from which resource was created".
fn d3d11_creation(context: cl_context, flags: cl_mem_flags) -> ClResult<cl_mem> {
    handles::context(context)?;
    check_mem_flags(flags)?;
    Err(CL_INVALID_D3D11_RESOURCE_KHR)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D11BufferKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D11Buffer_ptr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || d3d11_creation(context, flags))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D11Texture2DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D11Texture2D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || d3d11_creation(context, flags))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D11Texture3DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D11Texture3D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || d3d11_creation(context, flags))
}

/// [5.3.x, clCreateFromDX9MediaSurfaceKHR]: "CL_INVALID_CONTEXT if context is not a valid
/// context", "CL_INVALID_VALUE if values specified in flags are not valid", then
/// "CL_INVALID_OPERATION if there are no devices in context that support adapter_type".
#[no_mangle]
pub unsafe extern "C" fn clCreateFromDX9MediaSurfaceKHR(
    context: cl_context,
    flags: cl_mem_flags,
    adapter_type: cl_dx9_media_adapter_type_khr,
    surface_info: *mut c_void,
    plane: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        check_mem_flags(flags)?;
        Err(CL_INVALID_OPERATION)
    })
}

/// The acquire/release commands of the three extensions: "CL_INVALID_COMMAND_QUEUE if
/// command_queue is not a valid command-queue", "CL_INVALID_VALUE if num_objects is zero and
/// mem_objects is not a NULL value or if num_objects > 0 and mem_objects is NULL", then
/// "CL_INVALID_CONTEXT if context associated with command_queue was not created from a
/// Direct3D 10 / Direct3D 11 context" or "from a device that can share the media surface".
unsafe fn d3d_command(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem) -> ClResult {
    handles::queue(command_queue)?;
    check_object_list(num_objects, mem_objects)?;
    Err(CL_INVALID_CONTEXT)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireD3D10ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| d3d_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseD3D10ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| d3d_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireD3D11ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| d3d_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseD3D11ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| d3d_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireDX9MediaSurfacesKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| d3d_command(command_queue, num_objects, mem_objects))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseDX9MediaSurfacesKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| d3d_command(command_queue, num_objects, mem_objects))
}
