//! Contexts (API section 4.4).

use super::platform::device_list;
use crate::guard::{guard, guard_object, properties, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::callback::{ObjectCallback, UserData};
use runtime::context::{Context, NotifyFn};
use runtime::device::{device, Device};
use runtime::info;
use runtime::object::{publish, release, retain, ClObject};
use std::ffi::c_void;
use std::sync::Arc;

/// Checks a context property list: "CL_INVALID_PROPERTY if context property name in properties
/// is not a supported property name, if the value specified for a supported property name is
/// not valid, or if the same property name is specified more than once"; an invalid platform
/// gives CL_INVALID_PLATFORM.
unsafe fn context_properties(list: *const cl_context_properties) -> ClResult<Vec<cl_context_properties>> {
    let (pairs, raw) = properties(list);
    let mut seen = Vec::new();
    for (key, value) in pairs {
        if seen.contains(&key) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(key);
        match key {
            CL_CONTEXT_PLATFORM => {
                if value == 0 {
                    return Err(CL_INVALID_PLATFORM);
                }
                handles::platform(value as cl_platform_id)?;
            }
            CL_CONTEXT_INTEROP_USER_SYNC => {
                if value as cl_bool != CL_TRUE && value as cl_bool != CL_FALSE {
                    return Err(CL_INVALID_PROPERTY);
                }
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
    }
    Ok(raw)
}

type PfnNotify = Option<NotifyFn>;

fn notify(pfn_notify: PfnNotify, user_data: *mut c_void) -> ClResult<Option<(NotifyFn, UserData)>> {
    // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
    match pfn_notify {
        None if !user_data.is_null() => Err(CL_INVALID_VALUE),
        None => Ok(None),
        Some(f) => Ok(Some((f, UserData(user_data)))),
    }
}

fn make(
    devices: Vec<&'static Device>,
    props: Vec<cl_context_properties>,
    notify: Option<(NotifyFn, UserData)>,
) -> cl_context {
    publish(Arc::new(Context::new(devices, props, notify))) as cl_context
}

#[no_mangle]
pub unsafe extern "C" fn clCreateContext(
    props: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: PfnNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    guard_object(errcode_ret, || {
        let props = context_properties(props)?;
        // "CL_INVALID_VALUE if devices is NULL; if num_devices is equal to zero."
        if devices.is_null() || num_devices == 0 {
            return Err(CL_INVALID_VALUE);
        }
        let notify = notify(pfn_notify, user_data)?;
        let mut list = device_list(num_devices, devices)?;
        list.dedup_by(|a, b| std::ptr::eq(*a, *b));
        Ok(make(list, props, notify))
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateContextFromType(
    props: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: PfnNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    guard_object(errcode_ret, || {
        let props = context_properties(props)?;
        let notify = notify(pfn_notify, user_data)?;
        let known = CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_CUSTOM
            | CL_DEVICE_TYPE_DEFAULT;
        // "CL_INVALID_DEVICE_TYPE if device_type is not a valid value."
        if device_type != CL_DEVICE_TYPE_ALL && (device_type == 0 || device_type & !known != 0) {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        // "CL_DEVICE_NOT_FOUND if no devices that match device_type ... were found."
        if device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0 {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        Ok(make(vec![device()], props, notify))
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainContext(context: cl_context) -> cl_int {
    guard(|| retain::<Context>(context as _).ok_or(CL_INVALID_CONTEXT))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseContext(context: cl_context) -> cl_int {
    guard(|| release::<Context>(context as _).ok_or(CL_INVALID_CONTEXT))
}

#[no_mangle]
pub unsafe extern "C" fn clGetContextInfo(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let ctx = handles::context(context)?;
        let answer = match param_name {
            CL_CONTEXT_REFERENCE_COUNT => info::uint(ctx.header().ref_count()),
            CL_CONTEXT_NUM_DEVICES => info::uint(ctx.devices.len() as cl_uint),
            CL_CONTEXT_DEVICES => info::array(&ctx.devices.iter().map(|d| d.handle()).collect::<Vec<_>>()),
            CL_CONTEXT_PROPERTIES => info::array(&ctx.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetContextDestructorCallback(
    context: cl_context,
    pfn_notify: Option<unsafe extern "C" fn(cl_context, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    guard(|| {
        let ctx = handles::context(context)?;
        // "CL_INVALID_VALUE if pfn_notify is NULL."
        let func = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        ctx.add_destructor(ObjectCallback {
            func,
            user_data: UserData(user_data),
        });
        Ok(())
    })
}
