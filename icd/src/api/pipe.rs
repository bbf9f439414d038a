//! Pipe objects (API section 5.4): clCreatePipe and clGetPipeInfo. The object itself is a
//! memory object of type CL_MEM_OBJECT_PIPE (`runtime::pipe`); kernels take it through
//! clSetKernelArg (`kernel.rs`, `ArgKind::Pipe`).

use crate::guard::{guard, guard_object, write_info};
use crate::handles;
use opencl_sys::*;
use runtime::device::FEATURES;
use runtime::info;
use runtime::object::publish;
use runtime::pipe::{self, PipeError, MAX_PACKET_SIZE};
use std::ffi::c_void;
use std::sync::Arc;

/// The flags a pipe may have: "Only CL_MEM_READ_WRITE and CL_MEM_HOST_NO_ACCESS can be
/// specified when creating a pipe object."
const PIPE_FLAGS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS;

/// Whether the device supports pipes (`CL_DEVICE_PIPE_SUPPORT`).
pub(crate) fn pipes_supported() -> bool {
    FEATURES.has_feature("__opencl_c_pipes")
}

#[no_mangle]
pub unsafe extern "C" fn clCreatePipe(
    context: cl_context,
    flags: cl_mem_flags,
    pipe_packet_size: cl_uint,
    pipe_max_packets: cl_uint,
    properties: *const cl_pipe_properties,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        // "CL_INVALID_CONTEXT if context is not a valid context."
        let ctx = handles::context(context)?;
        // "CL_INVALID_OPERATION if no devices in context support pipes."
        if !pipes_supported() {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_VALUE if values specified in flags are not as defined above."
        if flags & !PIPE_FLAGS != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if properties is not NULL."
        if !properties.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_PIPE_SIZE if pipe_packet_size is 0 or the pipe_packet_size exceeds
        // CL_DEVICE_PIPE_MAX_PACKET_SIZE ... or if pipe_max_packets is 0."
        if pipe_packet_size == 0 || pipe_packet_size > MAX_PACKET_SIZE || pipe_max_packets == 0 {
            return Err(CL_INVALID_PIPE_SIZE);
        }
        // "If the value specified for flags is 0, the default is used which is
        // CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS."
        let flags = if flags == 0 { PIPE_FLAGS } else { flags };
        // "CL_MEM_OBJECT_ALLOCATION_FAILURE if there is a failure to allocate memory for the
        // pipe object" (also a pipe larger than one allocation may be).
        let mem = pipe::create(ctx, flags, pipe_packet_size, pipe_max_packets).map_err(|e| match e {
            PipeError::TooLarge | PipeError::NoMemory => CL_MEM_OBJECT_ALLOCATION_FAILURE,
        })?;
        Ok(publish(Arc::new(mem)) as cl_mem)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetPipeInfo(
    pipe: cl_mem,
    param_name: cl_pipe_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        // "CL_INVALID_MEM_OBJECT if pipe is a not a valid pipe object."
        let mem = handles::mem(pipe)?;
        let (packet_size, max_packets) = pipe::geometry(&mem).ok_or(CL_INVALID_MEM_OBJECT)?;
        let answer = match param_name {
            CL_PIPE_PACKET_SIZE => info::uint(packet_size),
            CL_PIPE_MAX_PACKETS => info::uint(max_packets),
            // "If properties was NULL, the implementation must return param_value_size_ret
            // equal to 0": clCreatePipe takes no other.
            CL_PIPE_PROPERTIES => info::array::<cl_pipe_properties>(&[]),
            // "CL_INVALID_VALUE if param_name is not valid".
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}
