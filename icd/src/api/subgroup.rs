//! clGetKernelSubGroupInfo (API 5.9.4) and cl_khr_subgroups' clGetKernelSubGroupInfoKHR.
//!
//! A Clift sub-group is `SUB_GROUP_SIZE` (32) consecutive local linear ids of a work-group,
//! the last one possibly smaller (jit `codegen/collective.rs` says why): a local size of N
//! work-items makes ceil(N / 32) sub-groups of at most 32.

use crate::guard::{guard, write_info, ClResult};
use jit::abi::SUB_GROUP_SIZE;
use opencl_sys::*;
use runtime::info;
use std::ffi::c_void;

/// The local size an NDRange query passes: 1 to 3 `size_t`.
///
/// # Safety
/// `input` points to `input_size` readable bytes (or is NULL).
unsafe fn local_size(input_size: usize, input: *const c_void) -> ClResult<Vec<usize>> {
    let n = input_size / std::mem::size_of::<usize>();
    // "CL_INVALID_VALUE if param_name is CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE and the size in
    // bytes specified by input_value_size is not valid or if input_value is NULL."
    if input.is_null() || !input_size.is_multiple_of(std::mem::size_of::<usize>()) || !(1..=3).contains(&n) {
        return Err(CL_INVALID_VALUE);
    }
    let p = input as *const usize;
    Ok((0..n).map(|i| unsafe { p.add(i).read_unaligned() }).collect())
}

/// [5.9.4]: "CL_INVALID_KERNEL if kernel is a not a valid kernel object", "CL_INVALID_DEVICE if
/// device is not in the list of devices associated with kernel or if device is NULL but there
/// is more than one device associated with kernel", "CL_INVALID_OPERATION if device does not
/// support sub-groups" before the query itself is looked at; then "CL_INVALID_VALUE if
/// param_name is not valid", a wrong input, or a too small param_value.
///
/// # Safety
/// The pointers are as the entry point's caller passed them.
#[allow(clippy::too_many_arguments)]
unsafe fn kernel_sub_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> ClResult {
    let k = super::kernel::kernel(kernel)?;
    let device = super::kernel::kernel_device(&k, device)?;
    if !device.supports_sub_groups() {
        return Err(CL_INVALID_OPERATION);
    }
    let answer = match param_name {
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
            let l = unsafe { local_size(input_value_size, input_value)? };
            info::size(l.iter().product::<usize>().min(SUB_GROUP_SIZE))
        }
        CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
            let l = unsafe { local_size(input_value_size, input_value)? };
            info::size(l.iter().product::<usize>().div_ceil(SUB_GROUP_SIZE))
        }
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
            // Input: the sub-group count (size_t); output: a local size of as many
            // dimensions as param_value has room for ("0 in each element" where no local
            // size makes that many sub-groups).
            if input_value.is_null() || input_value_size != std::mem::size_of::<usize>() {
                return Err(CL_INVALID_VALUE);
            }
            let count = unsafe { (input_value as *const usize).read_unaligned() };
            let dims = param_value_size / std::mem::size_of::<usize>();
            if !param_value.is_null()
                && (!param_value_size.is_multiple_of(std::mem::size_of::<usize>()) || !(1..=3).contains(&dims))
            {
                return Err(CL_INVALID_VALUE);
            }
            let dims = if param_value.is_null() { 3 } else { dims };
            let mut out = vec![0usize; dims];
            match k.compiled.reqd_work_group_size.map(|r| r.map(|x| x as usize)) {
                // The kernel's required size, if it makes that many (and fits the dimensions).
                Some(r) => {
                    let n: usize = r.iter().product();
                    if count >= 1 && n.div_ceil(SUB_GROUP_SIZE) == count && r.iter().skip(dims).all(|&x| x == 1) {
                        out.copy_from_slice(&r[..dims]);
                    }
                }
                // count sub-groups of SUB_GROUP_SIZE in dimension 0, within the largest group.
                None => {
                    let max = super::kernel::max_group(&k).min(device.max_work_group_size());
                    if let Some(n) = count.checked_mul(SUB_GROUP_SIZE).filter(|&n| count >= 1 && n <= max) {
                        out[0] = n;
                        out[1..].iter_mut().for_each(|v| *v = 1);
                    }
                }
            }
            info::array(&out)
        }
        CL_KERNEL_MAX_NUM_SUB_GROUPS => info::size(super::kernel::max_group(&k).div_ceil(SUB_GROUP_SIZE)),
        // No SubgroupsPerWorkgroup execution mode is honoured: none specified.
        CL_KERNEL_COMPILE_NUM_SUB_GROUPS => info::size(0),
        _ => Err(CL_INVALID_VALUE),
    };
    unsafe { write_info(answer, param_value_size, param_value, param_value_size_ret) }
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelSubGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| unsafe {
        kernel_sub_group_info(
            kernel,
            device,
            param_name,
            input_value_size,
            input_value,
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}

/// cl_khr_subgroups' form of clGetKernelSubGroupInfo.
#[no_mangle]
pub unsafe extern "C" fn clGetKernelSubGroupInfoKHR(
    in_kernel: cl_kernel,
    in_device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| unsafe {
        kernel_sub_group_info(
            in_kernel,
            in_device,
            param_name,
            input_value_size,
            input_value,
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}
