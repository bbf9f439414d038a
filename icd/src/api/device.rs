//! Partitioning a device (API section 4.3): clCreateSubDevices, and the reference counts of
//! sub-devices (clRetainDevice, clReleaseDevice). Root devices are not counted.

use crate::guard::{guard, set};
use crate::handles;
use opencl_sys::*;
use runtime::device::Device;
use runtime::object::{release_static, retain_static};
use runtime::{partition, topology};

#[no_mangle]
pub unsafe extern "C" fn clCreateSubDevices(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property,
    num_devices: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices_ret: *mut cl_uint,
) -> cl_int {
    guard(|| {
        let device = handles::device(in_device)?;
        // "CL_INVALID_VALUE if values specified in properties are not valid": NULL is no list.
        if properties.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the application passes a 0-terminated list; `parse` reads no entry past
        // the terminator its scheme requires.
        let scheme = partition::parse(|i| unsafe { *properties.add(i) }, device.units().len())?;
        let plan = partition::plan(device.units(), &scheme, topology::machine())?;
        let count = plan.groups.len();
        // "CL_INVALID_VALUE if out_devices is not NULL and num_devices is less than the number
        // of sub-devices created by the partition scheme."
        if !out_devices.is_null() {
            if (num_devices as usize) < count {
                return Err(CL_INVALID_VALUE);
            }
            for (i, sub) in device.create_sub_devices(&plan).iter().enumerate() {
                *out_devices.add(i) = sub.handle();
            }
        }
        set(num_devices_ret, count as cl_uint);
        Ok(())
    })
}

fn is_root(device: &Device) -> bool {
    device.parent().is_none()
}

/// "If device is a root level device ... the device reference count remains unchanged."
#[no_mangle]
pub unsafe extern "C" fn clRetainDevice(device_id: cl_device_id) -> cl_int {
    guard(|| {
        if is_root(handles::device(device_id)?) {
            return Ok(());
        }
        retain_static::<Device>(device_id as _).ok_or(CL_INVALID_DEVICE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseDevice(device_id: cl_device_id) -> cl_int {
    guard(|| {
        if is_root(handles::device(device_id)?) {
            return Ok(());
        }
        let (device, last) = release_static::<Device>(device_id as _).ok_or(CL_INVALID_DEVICE)?;
        if last {
            device.released();
        }
        Ok(())
    })
}
