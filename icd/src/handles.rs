//! From handles to objects. Each lookup fails with the error code the spec gives for an
//! invalid handle of that type, so NULL, freed and wrong-type handles are all refused alike.

use crate::guard::ClResult;
use opencl_sys::*;
use runtime::context::Context;
use runtime::device::Device;
use runtime::event::Event;
use runtime::memory::Mem;
use runtime::object::{lookup, lookup_static, ClObject};
use runtime::platform::Platform;
use runtime::queue::Queue;
use runtime::sampler::Sampler;
use std::ffi::c_void;
use std::sync::Arc;

fn get<T: ClObject>(handle: *mut c_void, error: cl_int) -> ClResult<Arc<T>> {
    lookup::<T>(handle).ok_or(error)
}

pub fn context(handle: cl_context) -> ClResult<Arc<Context>> {
    get(handle as _, CL_INVALID_CONTEXT)
}

pub fn queue(handle: cl_command_queue) -> ClResult<Arc<Queue>> {
    get(handle as _, CL_INVALID_COMMAND_QUEUE)
}

pub fn mem(handle: cl_mem) -> ClResult<Arc<Mem>> {
    get(handle as _, CL_INVALID_MEM_OBJECT)
}

pub fn event(handle: cl_event) -> ClResult<Arc<Event>> {
    get(handle as _, CL_INVALID_EVENT)
}

pub fn device(handle: cl_device_id) -> ClResult<&'static Device> {
    lookup_static::<Device>(handle as _).ok_or(CL_INVALID_DEVICE)
}

/// A platform argument: NULL selects Clift's platform (the behaviour is implementation
/// defined; Clift is its own only platform).
pub fn platform(handle: cl_platform_id) -> ClResult<&'static Platform> {
    if handle.is_null() {
        return Ok(runtime::platform::platform());
    }
    lookup_static::<Platform>(handle as _).ok_or(CL_INVALID_PLATFORM)
}

/// A buffer (not an image or pipe) handle.
pub fn buffer(handle: cl_mem) -> ClResult<Arc<Mem>> {
    let mem = mem(handle)?;
    if mem.mem_type != CL_MEM_OBJECT_BUFFER {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(mem)
}

/// An image handle: "CL_INVALID_MEM_OBJECT if image is not a valid image object".
pub fn image(handle: cl_mem) -> ClResult<Arc<Mem>> {
    let mem = mem(handle)?;
    if mem.image.is_none() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(mem)
}

pub fn sampler(handle: cl_sampler) -> ClResult<Arc<Sampler>> {
    get(handle as _, CL_INVALID_SAMPLER)
}

/// An event wait list: `CL_INVALID_EVENT_WAIT_LIST` when the list and its count disagree or a
/// handle is not a valid event; `CL_INVALID_CONTEXT` when an event belongs to another context.
///
/// # Safety
/// `list` must be NULL or valid for `count` elements.
pub unsafe fn wait_list(count: cl_uint, list: *const cl_event, context: &Arc<Context>) -> ClResult<Vec<Arc<Event>>> {
    if (count == 0) != list.is_null() {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    let handles = crate::guard::slice(list, count as usize).ok_or(CL_INVALID_EVENT_WAIT_LIST)?;
    let mut events = Vec::with_capacity(handles.len());
    for &h in handles {
        let event = lookup::<Event>(h as _).ok_or(CL_INVALID_EVENT_WAIT_LIST)?;
        if !Arc::ptr_eq(&event.context, context) {
            return Err(CL_INVALID_CONTEXT);
        }
        events.push(event);
    }
    Ok(events)
}
