//! The ICD dispatch table (cl_khr_icd): the first field of every Clift object points here, and
//! the loader calls through it. Every slot is a real entry point, so no call through the loader
//! can reach a NULL function; the areas Clift does not implement yet answer from
//! `api::unsupported` with the specification's error for the unsupported case.
//!
//! The field order and the function-pointer types are those of `opencl_sys::cl_icd` (the
//! Khronos `cl_icd.h`); `Some(f)` type-checks only when `f` has exactly the slot's signature.
//!
//! Link requirement: the slots name the exported `cl*` symbols, so the library must be linked
//! with `-Wl,-Bsymbolic-functions` (icd/build.rs: `cargo:rustc-cdylib-link-arg`). Without it
//! the dynamic linker binds these addresses to the first `cl*` definition in the process,
//! which for a program linked with the ICD loader is the loader's own trampoline: the loader
//! then calls itself forever.

use opencl_sys::cl_icd::cl_icd_dispatch;
use std::ffi::{c_void, CStr};

pub static DISPATCH: cl_icd_dispatch = cl_icd_dispatch {
    clGetPlatformIDs: Some(crate::api::clGetPlatformIDs),
    clGetPlatformInfo: Some(crate::api::clGetPlatformInfo),
    clGetDeviceIDs: Some(crate::api::clGetDeviceIDs),
    clGetDeviceInfo: Some(crate::api::clGetDeviceInfo),
    clCreateContext: Some(crate::api::clCreateContext),
    clCreateContextFromType: Some(crate::api::clCreateContextFromType),
    clRetainContext: Some(crate::api::clRetainContext),
    clReleaseContext: Some(crate::api::clReleaseContext),
    clGetContextInfo: Some(crate::api::clGetContextInfo),
    clCreateCommandQueue: Some(crate::api::clCreateCommandQueue),
    clRetainCommandQueue: Some(crate::api::clRetainCommandQueue),
    clReleaseCommandQueue: Some(crate::api::clReleaseCommandQueue),
    clGetCommandQueueInfo: Some(crate::api::clGetCommandQueueInfo),
    clSetCommandQueueProperty: Some(crate::api::clSetCommandQueueProperty),
    clCreateBuffer: Some(crate::api::clCreateBuffer),
    clCreateImage2D: Some(crate::api::clCreateImage2D),
    clCreateImage3D: Some(crate::api::clCreateImage3D),
    clRetainMemObject: Some(crate::api::clRetainMemObject),
    clReleaseMemObject: Some(crate::api::clReleaseMemObject),
    clGetSupportedImageFormats: Some(crate::api::clGetSupportedImageFormats),
    clGetMemObjectInfo: Some(crate::api::clGetMemObjectInfo),
    clGetImageInfo: Some(crate::api::clGetImageInfo),
    clCreateSampler: Some(crate::api::clCreateSampler),
    clRetainSampler: Some(crate::api::clRetainSampler),
    clReleaseSampler: Some(crate::api::clReleaseSampler),
    clGetSamplerInfo: Some(crate::api::clGetSamplerInfo),
    clCreateProgramWithSource: Some(crate::api::clCreateProgramWithSource),
    clCreateProgramWithBinary: Some(crate::api::clCreateProgramWithBinary),
    clRetainProgram: Some(crate::api::clRetainProgram),
    clReleaseProgram: Some(crate::api::clReleaseProgram),
    clBuildProgram: Some(crate::api::clBuildProgram),
    clUnloadCompiler: Some(crate::api::clUnloadCompiler),
    clGetProgramInfo: Some(crate::api::clGetProgramInfo),
    clGetProgramBuildInfo: Some(crate::api::clGetProgramBuildInfo),
    clCreateKernel: Some(crate::api::clCreateKernel),
    clCreateKernelsInProgram: Some(crate::api::clCreateKernelsInProgram),
    clRetainKernel: Some(crate::api::clRetainKernel),
    clReleaseKernel: Some(crate::api::clReleaseKernel),
    clSetKernelArg: Some(crate::api::clSetKernelArg),
    clGetKernelInfo: Some(crate::api::clGetKernelInfo),
    clGetKernelWorkGroupInfo: Some(crate::api::clGetKernelWorkGroupInfo),
    clWaitForEvents: Some(crate::api::clWaitForEvents),
    clGetEventInfo: Some(crate::api::clGetEventInfo),
    clRetainEvent: Some(crate::api::clRetainEvent),
    clReleaseEvent: Some(crate::api::clReleaseEvent),
    clGetEventProfilingInfo: Some(crate::api::clGetEventProfilingInfo),
    clFlush: Some(crate::api::clFlush),
    clFinish: Some(crate::api::clFinish),
    clEnqueueReadBuffer: Some(crate::api::clEnqueueReadBuffer),
    clEnqueueWriteBuffer: Some(crate::api::clEnqueueWriteBuffer),
    clEnqueueCopyBuffer: Some(crate::api::clEnqueueCopyBuffer),
    clEnqueueReadImage: Some(crate::api::clEnqueueReadImage),
    clEnqueueWriteImage: Some(crate::api::clEnqueueWriteImage),
    clEnqueueCopyImage: Some(crate::api::clEnqueueCopyImage),
    clEnqueueCopyImageToBuffer: Some(crate::api::clEnqueueCopyImageToBuffer),
    clEnqueueCopyBufferToImage: Some(crate::api::clEnqueueCopyBufferToImage),
    clEnqueueMapBuffer: Some(crate::api::clEnqueueMapBuffer),
    clEnqueueMapImage: Some(crate::api::clEnqueueMapImage),
    clEnqueueUnmapMemObject: Some(crate::api::clEnqueueUnmapMemObject),
    clEnqueueNDRangeKernel: Some(crate::api::clEnqueueNDRangeKernel),
    clEnqueueTask: Some(crate::api::clEnqueueTask),
    clEnqueueNativeKernel: Some(crate::api::clEnqueueNativeKernel),
    clEnqueueMarker: Some(crate::api::clEnqueueMarker),
    clEnqueueWaitForEvents: Some(crate::api::clEnqueueWaitForEvents),
    clEnqueueBarrier: Some(crate::api::clEnqueueBarrier),
    clGetExtensionFunctionAddress: Some(crate::api::clGetExtensionFunctionAddress),

    clCreateFromGLBuffer: Some(crate::api::clCreateFromGLBuffer),
    clCreateFromGLTexture2D: Some(crate::api::clCreateFromGLTexture2D),
    clCreateFromGLTexture3D: Some(crate::api::clCreateFromGLTexture3D),
    clCreateFromGLRenderbuffer: Some(crate::api::clCreateFromGLRenderbuffer),
    clGetGLObjectInfo: Some(crate::api::clGetGLObjectInfo),
    clGetGLTextureInfo: Some(crate::api::clGetGLTextureInfo),
    clEnqueueAcquireGLObjects: Some(crate::api::clEnqueueAcquireGLObjects),
    clEnqueueReleaseGLObjects: Some(crate::api::clEnqueueReleaseGLObjects),
    clGetGLContextInfoKHR: Some(crate::api::clGetGLContextInfoKHR),

    // cl_khr_d3d10_sharing
    clGetDeviceIDsFromD3D10KHR: Some(crate::api::clGetDeviceIDsFromD3D10KHR),
    clCreateFromD3D10BufferKHR: Some(crate::api::clCreateFromD3D10BufferKHR),
    clCreateFromD3D10Texture2DKHR: Some(crate::api::clCreateFromD3D10Texture2DKHR),
    clCreateFromD3D10Texture3DKHR: Some(crate::api::clCreateFromD3D10Texture3DKHR),
    clEnqueueAcquireD3D10ObjectsKHR: Some(crate::api::clEnqueueAcquireD3D10ObjectsKHR),
    clEnqueueReleaseD3D10ObjectsKHR: Some(crate::api::clEnqueueReleaseD3D10ObjectsKHR),

    // OpenCL 1.1
    clSetEventCallback: Some(crate::api::clSetEventCallback),
    clCreateSubBuffer: Some(crate::api::clCreateSubBuffer),
    clSetMemObjectDestructorCallback: Some(crate::api::clSetMemObjectDestructorCallback),
    clCreateUserEvent: Some(crate::api::clCreateUserEvent),
    clSetUserEventStatus: Some(crate::api::clSetUserEventStatus),
    clEnqueueReadBufferRect: Some(crate::api::clEnqueueReadBufferRect),
    clEnqueueWriteBufferRect: Some(crate::api::clEnqueueWriteBufferRect),
    clEnqueueCopyBufferRect: Some(crate::api::clEnqueueCopyBufferRect),

    // cl_ext_device_fission
    clCreateSubDevicesEXT: Some(crate::api::clCreateSubDevicesEXT),
    clRetainDeviceEXT: Some(crate::api::clRetainDeviceEXT),
    clReleaseDeviceEXT: Some(crate::api::clReleaseDeviceEXT),
    clCreateEventFromGLsyncKHR: Some(crate::api::clCreateEventFromGLsyncKHR),

    // OpenCL 1.2
    clCreateSubDevices: Some(crate::api::clCreateSubDevices),
    clRetainDevice: Some(crate::api::clRetainDevice),
    clReleaseDevice: Some(crate::api::clReleaseDevice),
    clCreateImage: Some(crate::api::clCreateImage),
    clCreateProgramWithBuiltInKernels: Some(crate::api::clCreateProgramWithBuiltInKernels),
    clCompileProgram: Some(crate::api::clCompileProgram),
    clLinkProgram: Some(crate::api::clLinkProgram),
    clUnloadPlatformCompiler: Some(crate::api::clUnloadPlatformCompiler),
    clGetKernelArgInfo: Some(crate::api::clGetKernelArgInfo),
    clEnqueueFillBuffer: Some(crate::api::clEnqueueFillBuffer),
    clEnqueueFillImage: Some(crate::api::clEnqueueFillImage),
    clEnqueueMigrateMemObjects: Some(crate::api::clEnqueueMigrateMemObjects),
    clEnqueueMarkerWithWaitList: Some(crate::api::clEnqueueMarkerWithWaitList),
    clEnqueueBarrierWithWaitList: Some(crate::api::clEnqueueBarrierWithWaitList),
    clGetExtensionFunctionAddressForPlatform: Some(crate::api::clGetExtensionFunctionAddressForPlatform),
    clCreateFromGLTexture: Some(crate::api::clCreateFromGLTexture),

    // cl_khr_d3d11_sharing and cl_khr_dx9_media_sharing
    clGetDeviceIDsFromD3D11KHR: Some(crate::api::clGetDeviceIDsFromD3D11KHR),
    clCreateFromD3D11BufferKHR: Some(crate::api::clCreateFromD3D11BufferKHR),
    clCreateFromD3D11Texture2DKHR: Some(crate::api::clCreateFromD3D11Texture2DKHR),
    clCreateFromD3D11Texture3DKHR: Some(crate::api::clCreateFromD3D11Texture3DKHR),
    clCreateFromDX9MediaSurfaceKHR: Some(crate::api::clCreateFromDX9MediaSurfaceKHR),
    clEnqueueAcquireD3D11ObjectsKHR: Some(crate::api::clEnqueueAcquireD3D11ObjectsKHR),
    clEnqueueReleaseD3D11ObjectsKHR: Some(crate::api::clEnqueueReleaseD3D11ObjectsKHR),
    clGetDeviceIDsFromDX9MediaAdapterKHR: Some(crate::api::clGetDeviceIDsFromDX9MediaAdapterKHR),
    clEnqueueAcquireDX9MediaSurfacesKHR: Some(crate::api::clEnqueueAcquireDX9MediaSurfacesKHR),
    clEnqueueReleaseDX9MediaSurfacesKHR: Some(crate::api::clEnqueueReleaseDX9MediaSurfacesKHR),

    // cl_khr_egl_image
    clCreateFromEGLImageKHR: Some(crate::api::clCreateFromEGLImageKHR),
    clEnqueueAcquireEGLObjectsKHR: Some(crate::api::clEnqueueAcquireEGLObjectsKHR),
    clEnqueueReleaseEGLObjectsKHR: Some(crate::api::clEnqueueReleaseEGLObjectsKHR),

    // cl_khr_egl_event
    clCreateEventFromEGLSyncKHR: Some(crate::api::clCreateEventFromEGLSyncKHR),

    // OpenCL 2.0
    clCreateCommandQueueWithProperties: Some(crate::api::clCreateCommandQueueWithProperties),
    clCreatePipe: Some(crate::api::clCreatePipe),
    clGetPipeInfo: Some(crate::api::clGetPipeInfo),
    clSVMAlloc: Some(crate::api::clSVMAlloc),
    clSVMFree: Some(crate::api::clSVMFree),
    clEnqueueSVMFree: Some(crate::api::clEnqueueSVMFree),
    clEnqueueSVMMemcpy: Some(crate::api::clEnqueueSVMMemcpy),
    clEnqueueSVMMemFill: Some(crate::api::clEnqueueSVMMemFill),
    clEnqueueSVMMap: Some(crate::api::clEnqueueSVMMap),
    clEnqueueSVMUnmap: Some(crate::api::clEnqueueSVMUnmap),
    clCreateSamplerWithProperties: Some(crate::api::clCreateSamplerWithProperties),
    clSetKernelArgSVMPointer: Some(crate::api::clSetKernelArgSVMPointer),
    clSetKernelExecInfo: Some(crate::api::clSetKernelExecInfo),

    // cl_khr_sub_groups
    clGetKernelSubGroupInfoKHR: Some(crate::api::clGetKernelSubGroupInfoKHR),

    // OpenCL 2.1
    clCloneKernel: Some(crate::api::clCloneKernel),
    clCreateProgramWithIL: Some(crate::api::clCreateProgramWithIL),
    clEnqueueSVMMigrateMem: Some(crate::api::clEnqueueSVMMigrateMem),
    clGetDeviceAndHostTimer: Some(crate::api::clGetDeviceAndHostTimer),
    clGetHostTimer: Some(crate::api::clGetHostTimer),
    clGetKernelSubGroupInfo: Some(crate::api::clGetKernelSubGroupInfo),
    clSetDefaultDeviceCommandQueue: Some(crate::api::clSetDefaultDeviceCommandQueue),

    // OpenCL 2.2
    clSetProgramReleaseCallback: Some(crate::api::clSetProgramReleaseCallback),
    clSetProgramSpecializationConstant: Some(crate::api::clSetProgramSpecializationConstant),

    // OpenCL 3.0
    clCreateBufferWithProperties: Some(crate::api::clCreateBufferWithProperties),
    clCreateImageWithProperties: Some(crate::api::clCreateImageWithProperties),
    clSetContextDestructorCallback: Some(crate::api::clSetContextDestructorCallback),

    // OpenCL 3.1
    // Without opencl-sys's `CL_VERSION_3_1` feature this slot is typed `intptr_t`, and a
    // function address cannot become an integer in a static. Applications reach
    // cl_khr_suggested_local_work_size's clGetKernelSuggestedLocalWorkSizeKHR through
    // clGetExtensionFunctionAddress(ForPlatform) (`lookup_extension`); ocl-icd 2.3.1 does not
    // export it and never reads this slot.
    clGetKernelSuggestedLocalWorkSize: 0,
};

/// The extension entry points that clGetExtensionFunctionAddress(ForPlatform) hands out: those
/// of the extensions Clift reports (`CL_PLATFORM_EXTENSIONS` / `CL_DEVICE_EXTENSIONS`), NULL for
/// any other name ("returns NULL if the specified function does not exist for the
/// implementation"). Core functions are not extension functions and are not returned.
pub fn lookup_extension(name: &CStr) -> *mut c_void {
    match name.to_bytes() {
        // cl_khr_icd.
        b"clIcdGetPlatformIDsKHR" => crate::api::clIcdGetPlatformIDsKHR as *const () as *mut c_void,
        // cl_khr_il_program: clCreateProgramWithILKHR has the signature and behaviour of the
        // core clCreateProgramWithIL (OpenCL 2.1), the extension's promotion.
        b"clCreateProgramWithILKHR" => crate::api::clCreateProgramWithIL as *const () as *mut c_void,
        // cl_khr_suggested_local_work_size.
        b"clGetKernelSuggestedLocalWorkSizeKHR"
            if runtime::device::FEATURES.has_extension("cl_khr_suggested_local_work_size") =>
        {
            crate::api::clGetKernelSuggestedLocalWorkSizeKHR as *const () as *mut c_void
        }
        // cl_khr_subgroups.
        b"clGetKernelSubGroupInfoKHR" if runtime::device::FEATURES.has_extension("cl_khr_subgroups") => {
            crate::api::clGetKernelSubGroupInfoKHR as *const () as *mut c_void
        }
        _ => command_buffer_extension(name),
    }
}

/// cl_khr_command_buffer and cl_khr_command_buffer_mutable_dispatch (`api::command_buffer`),
/// while the device reports them.
fn command_buffer_extension(name: &CStr) -> *mut c_void {
    use crate::api as a;
    use runtime::device::FEATURES;
    let f: *const () = match name.to_bytes() {
        _ if !FEATURES.has_extension("cl_khr_command_buffer") => return std::ptr::null_mut(),
        b"clCreateCommandBufferKHR" => a::clCreateCommandBufferKHR as *const (),
        b"clRetainCommandBufferKHR" => a::clRetainCommandBufferKHR as *const (),
        b"clReleaseCommandBufferKHR" => a::clReleaseCommandBufferKHR as *const (),
        b"clFinalizeCommandBufferKHR" => a::clFinalizeCommandBufferKHR as *const (),
        b"clEnqueueCommandBufferKHR" => a::clEnqueueCommandBufferKHR as *const (),
        b"clGetCommandBufferInfoKHR" => a::clGetCommandBufferInfoKHR as *const (),
        b"clCommandBarrierWithWaitListKHR" => a::clCommandBarrierWithWaitListKHR as *const (),
        b"clCommandCopyBufferKHR" => a::clCommandCopyBufferKHR as *const (),
        b"clCommandCopyBufferRectKHR" => a::clCommandCopyBufferRectKHR as *const (),
        b"clCommandCopyBufferToImageKHR" => a::clCommandCopyBufferToImageKHR as *const (),
        b"clCommandCopyImageKHR" => a::clCommandCopyImageKHR as *const (),
        b"clCommandCopyImageToBufferKHR" => a::clCommandCopyImageToBufferKHR as *const (),
        b"clCommandFillBufferKHR" => a::clCommandFillBufferKHR as *const (),
        b"clCommandFillImageKHR" => a::clCommandFillImageKHR as *const (),
        b"clCommandNDRangeKernelKHR" => a::clCommandNDRangeKernelKHR as *const (),
        b"clCommandSVMMemcpyKHR" => a::clCommandSVMMemcpyKHR as *const (),
        b"clCommandSVMMemFillKHR" => a::clCommandSVMMemFillKHR as *const (),
        _ if !FEATURES.has_extension("cl_khr_command_buffer_mutable_dispatch") => return std::ptr::null_mut(),
        b"clUpdateMutableCommandsKHR" => a::clUpdateMutableCommandsKHR as *const (),
        b"clGetMutableCommandInfoKHR" => a::clGetMutableCommandInfoKHR as *const (),
        _ => return std::ptr::null_mut(),
    };
    f as *mut c_void
}
