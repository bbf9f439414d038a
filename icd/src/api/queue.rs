//! Command queues (API section 5.1), flush/finish, markers and barriers (section 5.13).

use super::event::complete_enqueue;
use crate::guard::{guard, guard_object, properties, write_info, ClResult};
use crate::handles;
use opencl_sys::*;

use runtime::info;
use runtime::object::{publish, release, retain, ClObject};
use runtime::queue::Queue;
use std::ffi::c_void;
use std::sync::Arc;

/// Checks queue properties: unknown bits or inconsistent on-device bits are CL_INVALID_VALUE;
/// valid properties the device lacks (on-device queues) are CL_INVALID_QUEUE_PROPERTIES.
fn check_properties(props: cl_command_queue_properties) -> ClResult {
    let known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        | CL_QUEUE_PROFILING_ENABLE
        | CL_QUEUE_ON_DEVICE
        | CL_QUEUE_ON_DEVICE_DEFAULT;
    if props & !known != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // "CL_QUEUE_ON_DEVICE ... requires CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE";
    // CL_QUEUE_ON_DEVICE_DEFAULT requires CL_QUEUE_ON_DEVICE.
    if props & CL_QUEUE_ON_DEVICE != 0 && props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0 {
        return Err(CL_INVALID_VALUE);
    }
    if props & CL_QUEUE_ON_DEVICE_DEFAULT != 0 && props & CL_QUEUE_ON_DEVICE == 0 {
        return Err(CL_INVALID_VALUE);
    }
    // CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES is 0: no device-side enqueue.
    if props & CL_QUEUE_ON_DEVICE != 0 {
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    Ok(())
}

unsafe fn create(
    context: cl_context,
    device_id: cl_device_id,
    props: cl_command_queue_properties,
    props_array: Vec<cl_queue_properties>,
) -> ClResult<cl_command_queue> {
    let ctx = handles::context(context)?;
    let dev = handles::device(device_id)?;
    // "CL_INVALID_DEVICE if device is not a valid device or is not associated with context."
    if !ctx.has_device(dev) {
        return Err(CL_INVALID_DEVICE);
    }
    check_properties(props)?;
    Ok(publish(Arc::new(Queue::new(ctx, dev, props, props_array))) as cl_command_queue)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandQueue(
    context: cl_context,
    device_id: cl_device_id,
    props: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    guard_object(errcode_ret, || create(context, device_id, props, Vec::new()))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    context: cl_context,
    device_id: cl_device_id,
    props: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        handles::device(device_id)?;
        let (pairs, raw) = properties(props);
        let mut bits = 0;
        let mut seen = Vec::new();
        for (key, value) in pairs {
            // "CL_INVALID_VALUE if values specified in properties are not valid."
            if seen.contains(&key) {
                return Err(CL_INVALID_VALUE);
            }
            seen.push(key);
            match key as cl_uint {
                CL_QUEUE_PROPERTIES => bits = value,
                // A size only applies to on-device queues, which the device does not have.
                CL_QUEUE_SIZE => {}
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        check_properties(bits)?;
        if seen.contains(&(CL_QUEUE_SIZE as cl_queue_properties)) {
            return Err(CL_INVALID_VALUE);
        }
        create(context, device_id, bits, raw)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainCommandQueue(queue: cl_command_queue) -> cl_int {
    guard(|| retain::<Queue>(queue as _).ok_or(CL_INVALID_COMMAND_QUEUE))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseCommandQueue(queue: cl_command_queue) -> cl_int {
    // Commands already enqueued still run: they hold the queue themselves (an implicit flush).
    guard(|| release::<Queue>(queue as _).ok_or(CL_INVALID_COMMAND_QUEUE))
}

#[no_mangle]
pub unsafe extern "C" fn clGetCommandQueueInfo(
    queue: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let q = handles::queue(queue)?;
        let answer = match param_name {
            CL_QUEUE_CONTEXT => info::ptr(Arc::as_ptr(&q.context) as *const c_void),
            CL_QUEUE_DEVICE => info::ptr(q.device.handle() as *const c_void),
            CL_QUEUE_REFERENCE_COUNT => info::uint(q.header().ref_count()),
            CL_QUEUE_PROPERTIES => info::ulong(q.properties),
            CL_QUEUE_PROPERTIES_ARRAY => info::array(&q.properties_array),
            // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue for
            // param_name CL_QUEUE_SIZE" (it is valid only for device queues).
            CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
            CL_QUEUE_DEVICE_DEFAULT => info::ptr(std::ptr::null()),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// Deprecated in OpenCL 1.1; properties are fixed at creation in Clift.
#[no_mangle]
pub unsafe extern "C" fn clSetCommandQueueProperty(
    queue: cl_command_queue,
    props: cl_command_queue_properties,
    _enable: cl_bool,
    old_properties: *mut cl_command_queue_properties,
) -> cl_int {
    guard(|| {
        let q = handles::queue(queue)?;
        check_properties(props)?;
        crate::guard::set(old_properties, q.properties);
        Err(CL_INVALID_OPERATION)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetDefaultDeviceCommandQueue(
    context: cl_context,
    device_id: cl_device_id,
    queue: cl_command_queue,
) -> cl_int {
    guard(|| {
        let ctx = handles::context(context)?;
        let dev = handles::device(device_id)?;
        if !ctx.has_device(dev) {
            return Err(CL_INVALID_DEVICE);
        }
        let _ = queue;
        // "CL_INVALID_OPERATION if device does not support a replaceable default on-device
        // queue."
        Err(CL_INVALID_OPERATION)
    })
}

/// Commands are handed to the command threads as soon as they are enqueued.
#[no_mangle]
pub unsafe extern "C" fn clFlush(queue: cl_command_queue) -> cl_int {
    guard(|| handles::queue(queue).map(|_| ()))
}

#[no_mangle]
pub unsafe extern "C" fn clFinish(queue: cl_command_queue) -> cl_int {
    guard(|| {
        let q = handles::queue(queue)?;
        q.finish();
        Ok(())
    })
}

unsafe fn sync_command(
    queue: cl_command_queue,
    command_type: cl_command_type,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult {
    let q = handles::queue(queue)?;
    let deps = handles::wait_list(num_events, wait_list, &q.context)?;
    complete_enqueue(q.enqueue_sync(command_type, deps), event, false)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    queue: cl_command_queue,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| sync_command(queue, CL_COMMAND_MARKER, num_events, wait_list, event))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    queue: cl_command_queue,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| sync_command(queue, CL_COMMAND_BARRIER, num_events, wait_list, event))
}

/// OpenCL 1.1: a marker that waits for every earlier command.
#[no_mangle]
pub unsafe extern "C" fn clEnqueueMarker(queue: cl_command_queue, event: *mut cl_event) -> cl_int {
    guard(|| {
        handles::queue(queue)?;
        // "CL_INVALID_VALUE if event is NULL."
        if event.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        sync_command(queue, CL_COMMAND_MARKER, 0, std::ptr::null(), event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueBarrier(queue: cl_command_queue) -> cl_int {
    guard(|| sync_command(queue, CL_COMMAND_BARRIER, 0, std::ptr::null(), std::ptr::null_mut()))
}

/// OpenCL 1.1: later commands wait for the given events.
#[no_mangle]
pub unsafe extern "C" fn clEnqueueWaitForEvents(
    queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    guard(|| {
        let q = handles::queue(queue)?;
        // "CL_INVALID_VALUE if num_events is 0 or event_list is NULL."
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let deps = handles::wait_list(num_events, event_list, &q.context).map_err(|e| {
            if e == CL_INVALID_EVENT_WAIT_LIST {
                CL_INVALID_EVENT
            } else {
                e
            }
        })?;
        complete_enqueue(q.enqueue_sync(CL_COMMAND_BARRIER, deps), std::ptr::null_mut(), false)
    })
}
