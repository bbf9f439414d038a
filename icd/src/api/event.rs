//! Events (API section 5.11) and profiling (section 5.15).

use crate::guard::{guard, guard_object, slice, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::callback::UserData;
use runtime::event::{Event, EventNotifyFn};
use runtime::info;
use runtime::object::{publish, release, retain, ClObject};
use std::ffi::c_void;
use std::sync::Arc;

/// The end of every enqueue: waits when the call is blocking, then hands the event to the
/// application if it asked for one. "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the
/// operation is blocking and the execution status of any of the events in event_wait_list is
/// a negative integer value" (a blocking command that fails for another reason also ends
/// with a negative status; Clift reports the same code).
pub(crate) unsafe fn complete_enqueue(event: Arc<Event>, out: *mut cl_event, blocking: bool) -> ClResult {
    if blocking && event.wait() < 0 {
        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    if !out.is_null() {
        *out = publish(event) as cl_event;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clWaitForEvents(num_events: cl_uint, event_list: *const cl_event) -> cl_int {
    guard(|| {
        // "CL_INVALID_VALUE if num_events is zero or event_list is NULL."
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let handles = slice(event_list, num_events as usize).ok_or(CL_INVALID_VALUE)?;
        let events = handles
            .iter()
            .map(|&e| handles::event(e))
            .collect::<ClResult<Vec<_>>>()?;
        // "CL_INVALID_CONTEXT if events specified in event_list do not belong to the same
        // context."
        if events.iter().any(|e| !Arc::ptr_eq(&e.context, &events[0].context)) {
            return Err(CL_INVALID_CONTEXT);
        }
        let mut failed = false;
        for event in &events {
            failed |= event.wait() < 0;
        }
        // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of the
        // events in event_list is a negative integer value."
        if failed {
            return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetEventInfo(
    event: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let e = handles::event(event)?;
        let answer = match param_name {
            CL_EVENT_COMMAND_QUEUE => info::ptr(
                e.queue
                    .as_ref()
                    .map_or(std::ptr::null(), |q| Arc::as_ptr(q) as *const c_void),
            ),
            CL_EVENT_CONTEXT => info::ptr(Arc::as_ptr(&e.context) as *const c_void),
            CL_EVENT_COMMAND_TYPE => info::uint(e.command_type),
            CL_EVENT_COMMAND_EXECUTION_STATUS => info::int(e.status()),
            CL_EVENT_REFERENCE_COUNT => info::uint(e.header().ref_count()),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetEventProfilingInfo(
    event: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let e = handles::event(event)?;
        let index = match param_name {
            CL_PROFILING_COMMAND_QUEUED => 0,
            CL_PROFILING_COMMAND_SUBMIT => 1,
            CL_PROFILING_COMMAND_START => 2,
            CL_PROFILING_COMMAND_END | CL_PROFILING_COMMAND_COMPLETE => 3,
            _ => return Err(CL_INVALID_VALUE),
        };
        // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for
        // the command-queue, if the execution status of the command identified by event is not
        // CL_COMPLETE or if event is a user event object."
        let profiled = e.queue.as_ref().is_some_and(|q| q.profiling());
        let times = e.times().filter(|_| profiled).ok_or(CL_PROFILING_INFO_NOT_AVAILABLE)?;
        write_info(
            info::ulong(times[index]),
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainEvent(event: cl_event) -> cl_int {
    guard(|| retain::<Event>(event as _).ok_or(CL_INVALID_EVENT))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseEvent(event: cl_event) -> cl_int {
    guard(|| release::<Event>(event as _).ok_or(CL_INVALID_EVENT))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateUserEvent(context: cl_context, errcode_ret: *mut cl_int) -> cl_event {
    guard_object(errcode_ret, || {
        let ctx = handles::context(context)?;
        Ok(publish(Event::new_user(ctx)) as cl_event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int {
    guard(|| {
        let e = handles::event(event)?;
        // "CL_INVALID_EVENT if event is not a valid user event object."
        if !e.is_user() {
            return Err(CL_INVALID_EVENT);
        }
        // "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer
        // value."
        if execution_status > CL_COMPLETE {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if the execution_status for event has already been changed by
        // a previous call to clSetUserEventStatus."
        if !e.set_status(execution_status) {
            return Err(CL_INVALID_OPERATION);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetEventCallback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<EventNotifyFn>,
    user_data: *mut c_void,
) -> cl_int {
    guard(|| {
        let e = handles::event(event)?;
        // "CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is not
        // CL_SUBMITTED, CL_RUNNING, or CL_COMPLETE."
        let func = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        if ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&command_exec_callback_type) {
            return Err(CL_INVALID_VALUE);
        }
        e.add_callback(command_exec_callback_type, func, UserData(user_data));
        Ok(())
    })
}
