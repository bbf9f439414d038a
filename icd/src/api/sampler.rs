//! Sampler objects (API section 5.7): creation, reference counts, queries.

use crate::guard::{guard, guard_object, properties, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::device::FEATURES;
use runtime::info;
use runtime::object::{publish, release, retain, ClObject};
use runtime::sampler::{valid_addressing_mode, valid_filter_mode, Sampler};
use std::ffi::c_void;
use std::sync::Arc;

/// The checks both creation functions share, in the order of their error lists, and the new
/// sampler: "CL_INVALID_CONTEXT if context is not a valid context", "CL_INVALID_VALUE if
/// addressing_mode, filter_mode, normalized_coords or a combination of these arguments are
/// not valid", "CL_INVALID_OPERATION if images are not supported by any device associated
/// with context".
fn create(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    properties: Vec<cl_sampler_properties>,
) -> ClResult<cl_sampler> {
    let ctx = handles::context(context)?;
    let normalized = match normalized_coords {
        CL_TRUE => true,
        CL_FALSE => false,
        _ => return Err(CL_INVALID_VALUE),
    };
    if !valid_addressing_mode(addressing_mode) || !valid_filter_mode(filter_mode) {
        return Err(CL_INVALID_VALUE);
    }
    if !FEATURES.images() {
        return Err(CL_INVALID_OPERATION);
    }
    let sampler = Sampler::new(ctx, normalized, addressing_mode, filter_mode, properties);
    Ok(publish(Arc::new(sampler)) as cl_sampler)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    guard_object(errcode_ret, || {
        create(context, normalized_coords, addressing_mode, filter_mode, Vec::new())
    })
}

/// A property value that must fit its 32-bit type; an out-of-range value is not valid.
fn narrow(value: cl_sampler_properties) -> ClResult<u32> {
    u32::try_from(value).map_err(|_| CL_INVALID_VALUE)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    sampler_properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        let (pairs, raw) = properties(sampler_properties);
        // "If a supported property and its value is not specified in sampler_properties, its
        // default value will be used": normalized, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST.
        let mut normalized = CL_TRUE;
        let mut addressing = CL_ADDRESS_CLAMP;
        let mut filter = CL_FILTER_NEAREST;
        let mut seen = Vec::new();
        for (name, value) in pairs {
            // "CL_INVALID_VALUE if the property name in sampler_properties is not a supported
            // property name, if the value specified for a supported property name is not
            // valid, or if the same property name is specified more than once."
            if seen.contains(&name) {
                return Err(CL_INVALID_VALUE);
            }
            seen.push(name);
            match narrow(name)? {
                CL_SAMPLER_NORMALIZED_COORDS => normalized = narrow(value)?,
                CL_SAMPLER_ADDRESSING_MODE => addressing = narrow(value)?,
                CL_SAMPLER_FILTER_MODE => filter = narrow(value)?,
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        create(context, normalized, addressing, filter, raw)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainSampler(sampler: cl_sampler) -> cl_int {
    guard(|| retain::<Sampler>(sampler as _).ok_or(CL_INVALID_SAMPLER))
}

/// The sampler lives on while a command's kernel arguments hold its bits, which are copied:
/// nothing keeps the object itself.
#[no_mangle]
pub unsafe extern "C" fn clReleaseSampler(sampler: cl_sampler) -> cl_int {
    guard(|| release::<Sampler>(sampler as _).ok_or(CL_INVALID_SAMPLER))
}

#[no_mangle]
pub unsafe extern "C" fn clGetSamplerInfo(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let s = handles::sampler(sampler)?;
        let answer = match param_name {
            CL_SAMPLER_REFERENCE_COUNT => info::uint(s.header().ref_count()),
            CL_SAMPLER_CONTEXT => info::ptr(Arc::as_ptr(&s.context) as *const c_void),
            CL_SAMPLER_NORMALIZED_COORDS => info::boolean(s.normalized_coords),
            CL_SAMPLER_ADDRESSING_MODE => info::uint(s.addressing_mode),
            CL_SAMPLER_FILTER_MODE => info::uint(s.filter_mode),
            // "If sampler was created using clCreateSampler, or if the properties argument
            // specified in clCreateSamplerWithProperties was NULL, the implementation must
            // return param_value_size_ret equal to 0."
            CL_SAMPLER_PROPERTIES => info::array(&s.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}
