//! cl_khr_command_buffer (0.9.8) and cl_khr_command_buffer_mutable_dispatch (0.9.5): the entry
//! points, reached through clGetExtensionFunctionAddress(ForPlatform) (`dispatch.rs`). The
//! objects and the replay live in `runtime::command_buffer`.
//!
//! Each `clCommand*KHR` returns "the errors defined by" its `clEnqueue*` twin, with the
//! extension's replacements: the queue argument must be NULL (no multi-device support), a
//! sync-point list replaces the event wait list, and the context checked is the
//! command-buffer's.

#![allow(non_camel_case_types)]

use super::event::complete_enqueue;
use super::image::{image_box, image_of};
use super::kernel::{arg_value_of, check_offset, check_resources, kernel, read_geometry, resolve_range, Geometry};
use super::memory::{rect_region, rect_side, triple};
use crate::guard::{guard, guard_object, properties, slice, write_info, ClResult};
use crate::handles;
use opencl_sys::{
    cl_command_queue, cl_event, cl_int, cl_kernel, cl_mem, cl_uint, cl_ulong, CL_DEPTH, CL_IMAGE_FORMAT_MISMATCH,
    CL_IMAGE_FORMAT_NOT_SUPPORTED, CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT, CL_INVALID_DEVICE,
    CL_INVALID_KERNEL_ARGS, CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION, CL_INVALID_PROPERTY, CL_INVALID_VALUE,
    CL_MEM_COPY_OVERLAP, CL_MEM_OBJECT_IMAGE1D_BUFFER,
};
use runtime::command_buffer::khr::*;
use runtime::command_buffer::{
    self as cb, CommandBuffer, Dispatch, HostOp, Launch, MutableCommand, Recorded, MUTABLE_FIELDS,
    SUPPORTED_QUEUE_PROPERTIES,
};
use runtime::image;
use runtime::info;
use runtime::memory::Mem;
use runtime::object::{lookup, publish, release, retain, ClObject};
use runtime::rect;
use std::ffi::c_void;
use std::sync::Arc;

pub type cl_command_buffer_khr = *mut c_void;
pub type cl_mutable_command_khr = *mut c_void;
pub type cl_sync_point_khr = cl_uint;
pub type cl_command_buffer_properties_khr = cl_ulong;
pub type cl_command_properties_khr = cl_ulong;

/// `cl_mutable_dispatch_arg_khr`.
#[repr(C)]
pub struct MutableDispatchArg {
    pub arg_index: cl_uint,
    pub arg_size: usize,
    pub arg_value: *const c_void,
}

/// `cl_mutable_dispatch_exec_info_khr`.
#[repr(C)]
pub struct MutableDispatchExecInfo {
    pub param_name: cl_uint,
    pub param_value_size: usize,
    pub param_value: *const c_void,
}

/// `cl_mutable_dispatch_config_khr`.
#[repr(C)]
pub struct MutableDispatchConfig {
    pub command: cl_mutable_command_khr,
    pub num_args: cl_uint,
    pub num_svm_args: cl_uint,
    pub num_exec_infos: cl_uint,
    pub work_dim: cl_uint,
    pub arg_list: *const MutableDispatchArg,
    pub arg_svm_list: *const MutableDispatchArg,
    pub exec_info_list: *const MutableDispatchExecInfo,
    pub global_work_offset: *const usize,
    pub global_work_size: *const usize,
    pub local_work_size: *const usize,
}

fn command_buffer(handle: cl_command_buffer_khr) -> ClResult<Arc<CommandBuffer>> {
    lookup::<CommandBuffer>(handle as _).ok_or(CL_INVALID_COMMAND_BUFFER_KHR)
}

fn mutable_command(handle: cl_mutable_command_khr) -> ClResult<Arc<MutableCommand>> {
    lookup::<MutableCommand>(handle as _).ok_or(CL_INVALID_MUTABLE_COMMAND_KHR)
}

// ---------------------------------------------------------------------------------------------
// Creation, reference counts, finalize, enqueue, queries
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandBufferKHR(
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    properties_list: *const cl_command_buffer_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    guard_object(errcode_ret, || {
        // "CL_INVALID_VALUE if ... num_queues is not one"; "CL_INVALID_VALUE if queues is NULL."
        if queues.is_null() || num_queues != 1 {
            return Err(CL_INVALID_VALUE);
        }
        let handles = slice(queues, num_queues as usize).ok_or(CL_INVALID_VALUE)?;
        let queues = handles
            .iter()
            .map(|&q| handles::queue(q))
            .collect::<ClResult<Vec<_>>>()?;
        // "CL_INVALID_CONTEXT if all the command-queues in queues do not have the same OpenCL
        // context."
        if queues.iter().any(|q| !Arc::ptr_eq(&q.context, &queues[0].context)) {
            return Err(CL_INVALID_CONTEXT);
        }
        let (pairs, raw) = properties(properties_list);
        let (mut flags, mut asserts) = (None, None);
        for (key, value) in pairs {
            // "CL_INVALID_VALUE if values specified in properties are not valid, or if the same
            // property name is specified more than once."
            let slot = match key {
                CL_COMMAND_BUFFER_FLAGS_KHR => &mut flags,
                CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR => &mut asserts,
                _ => return Err(CL_INVALID_VALUE),
            };
            if slot.replace(value).is_some() {
                return Err(CL_INVALID_VALUE);
            }
        }
        let flags = flags.unwrap_or(0);
        let asserts = asserts.unwrap_or(0);
        // Flags the extensions define: simultaneous use and mutable (mutable dispatch), device
        // side sync (multi-device, not supported: "valid but not supported" below).
        const DEVICE_SIDE_SYNC: cl_ulong = 1 << 2;
        let known = CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR | DEVICE_SIDE_SYNC;
        if flags & !known != 0 || asserts & !CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_PROPERTY if values specified in properties are valid but are not
        // supported by all the devices associated with command-queues in queues."
        if flags & DEVICE_SIDE_SYNC != 0 {
            return Err(CL_INVALID_PROPERTY);
        }
        let buffer = CommandBuffer::new(queues, raw, flags, asserts).ok_or(CL_INVALID_VALUE)?;
        Ok(publish(Arc::new(buffer)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    guard(|| retain::<CommandBuffer>(command_buffer as _).ok_or(CL_INVALID_COMMAND_BUFFER_KHR))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    guard(|| release::<CommandBuffer>(command_buffer as _).ok_or(CL_INVALID_COMMAND_BUFFER_KHR))
}

#[no_mangle]
pub unsafe extern "C" fn clFinalizeCommandBufferKHR(command_buffer_handle: cl_command_buffer_khr) -> cl_int {
    guard(|| command_buffer(command_buffer_handle)?.finalize())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCommandBufferKHR(
    num_queues: cl_uint,
    queues: *mut cl_command_queue,
    command_buffer_handle: cl_command_buffer_khr,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let cb = command_buffer(command_buffer_handle)?;
        // "CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or queues is not NULL and
        // num_queues is 0"; "... if num_queues is > 0 and not the same value as num_queues set
        // on command_buffer creation."
        if queues.is_null() != (num_queues == 0) {
            return Err(CL_INVALID_VALUE);
        }
        let queue = if queues.is_null() {
            cb.queue().clone()
        } else {
            if num_queues as usize != cb.queues.len() {
                return Err(CL_INVALID_VALUE);
            }
            // "CL_INVALID_COMMAND_QUEUE if any element of queues is not a valid command-queue."
            let q = handles::queue(*queues)?;
            // "CL_INVALID_DEVICE if any element of queues does not have the same device as the
            // command-queue set on command_buffer creation at the same list index";
            // "CL_INVALID_CONTEXT if ... not the same context".
            if !std::ptr::eq(q.device, cb.queue().device) {
                return Err(CL_INVALID_DEVICE);
            }
            if !Arc::ptr_eq(&q.context, &cb.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            q
        };
        // "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if the properties of any command-queue in queues
        // contains a property not specified by CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_
        // PROPERTIES_KHR" (none is required).
        if queue.properties & !SUPPORTED_QUEUE_PROPERTIES != 0 {
            return Err(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
        }
        // "CL_INVALID_EVENT_WAIT_LIST ...", "CL_INVALID_CONTEXT if context associated with
        // command_buffer and events in event_wait_list are not the same."
        let deps = handles::wait_list(num_events_in_wait_list, event_wait_list, &cb.context)?;
        // "CL_INVALID_OPERATION if command_buffer is not in the Executable state."
        let e = cb.enqueue(&queue, deps)?;
        complete_enqueue(e, event, false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetCommandBufferInfoKHR(
    command_buffer_handle: cl_command_buffer_khr,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let cb = command_buffer(command_buffer_handle)?;
        let answer = match param_name {
            CL_COMMAND_BUFFER_NUM_QUEUES_KHR => info::uint(cb.queues.len() as cl_uint),
            CL_COMMAND_BUFFER_QUEUES_KHR => {
                let qs: Vec<*const c_void> = cb.queues.iter().map(|q| Arc::as_ptr(q) as *const c_void).collect();
                info::array(&qs)
            }
            CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => info::uint(cb.header().ref_count()),
            CL_COMMAND_BUFFER_STATE_KHR => info::uint(cb.state()),
            CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => info::array(&cb.properties),
            CL_COMMAND_BUFFER_CONTEXT_KHR => info::ptr(Arc::as_ptr(&cb.context) as *const c_void),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

// ---------------------------------------------------------------------------------------------
// Recording
// ---------------------------------------------------------------------------------------------

/// The checks every `clCommand*KHR` starts with; returns the command-buffer.
///
/// # Safety
/// `sync_point_wait_list` must be NULL or valid for `num_sync_points` elements.
unsafe fn begin(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    num_sync_points: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
) -> ClResult<Arc<CommandBuffer>> {
    let cb = command_buffer(command_buffer_handle)?;
    // "CL_INVALID_COMMAND_QUEUE if the cl_khr_command_buffer_multi_device extension is not
    // supported and command_queue is not NULL."
    if !command_queue.is_null() {
        return Err(CL_INVALID_COMMAND_QUEUE);
    }
    // "CL_INVALID_OPERATION if command_buffer has been finalized."
    if cb.is_finalized() {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if sync_point_wait_list is NULL and
    // num_sync_points_in_wait_list is > 0, or sync_point_wait_list is not NULL and
    // num_sync_points_in_wait_list is 0, or if synchronization-point objects in
    // sync_point_wait_list are not valid synchronization-points."
    if sync_point_wait_list.is_null() != (num_sync_points == 0) {
        return Err(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
    }
    let points = slice(sync_point_wait_list, num_sync_points as usize).ok_or(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR)?;
    cb.check_sync_points(points)?;
    Ok(cb)
}

/// The properties and mutable handle of a command that is not an ND-range: "CL_INVALID_VALUE
/// if values specified in properties are not valid" (the extension defines none for it),
/// "CL_INVALID_VALUE if mutable_handle is not NULL".
///
/// # Safety
/// `properties_list` must be NULL or 0-terminated.
unsafe fn no_properties(
    properties_list: *const cl_command_properties_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> ClResult {
    if !mutable_handle.is_null() || (!properties_list.is_null() && *properties_list != 0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Records a host operation and writes its sync point.
///
/// # Safety
/// `sync_point` must be NULL or writable.
unsafe fn finish_host(cb: &CommandBuffer, op: HostOp, sync_point: *mut cl_sync_point_khr) -> ClResult {
    let point = cb.record(Recorded::Host(op))?;
    crate::guard::set(sync_point, point);
    Ok(())
}

/// "CL_INVALID_CONTEXT if the context associated with command_buffer, src_buffer, and
/// dst_buffer is not the same."
fn same_context(cb: &CommandBuffer, mems: &[&Arc<Mem>]) -> ClResult {
    if mems.iter().any(|m| !Arc::ptr_eq(&m.context, &cb.context)) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clCommandBarrierWithWaitListKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        let point = cb.record(Recorded::Barrier)?;
        crate::guard::set(sync_point, point);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyBufferKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        let src = handles::buffer(src_buffer)?;
        let dst = handles::buffer(dst_buffer)?;
        same_context(&cb, &[&src, &dst])?;
        // As clEnqueueCopyBuffer: "CL_INVALID_VALUE if src_offset, dst_offset, size,
        // src_offset + size or dst_offset + size require accessing elements outside the
        // src_buffer and dst_buffer buffer objects respectively", or size is 0.
        let within = |m: &Mem, off: usize| size != 0 && off.checked_add(size).is_some_and(|end| end <= m.size);
        if !within(&src, src_offset) || !within(&dst, dst_offset) {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer
        // object and the source and destination regions overlap ...".
        if src.shares_storage(&dst) {
            let (a, b) = (src.offset + src_offset, dst.offset + dst_offset);
            if a < b + size && b < a + size {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        let op: HostOp = Arc::new(move || {
            // SAFETY: both ranges checked at recording; the command-buffer holds both buffers.
            unsafe { std::ptr::copy(src.base().add(src_offset), dst.base().add(dst_offset), size) };
            Ok(())
        });
        finish_host(&cb, op, sync_point)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyBufferRectKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        let src = handles::buffer(src_buffer)?;
        let dst = handles::buffer(dst_buffer)?;
        same_context(&cb, &[&src, &dst])?;
        // The checks of clEnqueueCopyBufferRect.
        let region = rect_region(region)?;
        let s = rect_side(src_origin, region, src_row_pitch, src_slice_pitch, Some(src.size))?;
        let d = rect_side(dst_origin, region, dst_row_pitch, dst_slice_pitch, Some(dst.size))?;
        if Arc::ptr_eq(&src, &dst) && s.slice_pitch != d.slice_pitch && s.row_pitch != d.row_pitch {
            return Err(CL_INVALID_VALUE);
        }
        if src.shares_storage(&dst) && rect::overlap(s, src.offset, d, dst.offset, region) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let op: HostOp = Arc::new(move || {
            // SAFETY: both sides checked against their buffers at recording.
            unsafe { rect::copy(src.base(), s, dst.base(), d, region) };
            Ok(())
        });
        finish_host(&cb, op, sync_point)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandFillBufferKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        let mem = handles::buffer(buffer)?;
        same_context(&cb, &[&mem])?;
        // The checks of clEnqueueFillBuffer.
        if offset.checked_add(size).is_none_or(|end| end > mem.size) || pattern.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if pattern_size == 0
            || !pattern_size.is_power_of_two()
            || pattern_size > 128
            || !offset.is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
        {
            return Err(CL_INVALID_VALUE);
        }
        let bytes = slice(pattern as *const u8, pattern_size)
            .ok_or(CL_INVALID_VALUE)?
            .to_vec();
        let op: HostOp = Arc::new(move || {
            // SAFETY: range checked at recording.
            let dst = unsafe { std::slice::from_raw_parts_mut(mem.base().add(offset), size) };
            runtime::memory::fill_pattern(dst, &bytes);
            Ok(())
        });
        finish_host(&cb, op, sync_point)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyImageKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        let src = handles::image(src_image)?;
        let dst = handles::image(dst_image)?;
        same_context(&cb, &[&src, &dst])?;
        // The checks of clEnqueueCopyImage.
        let (s, d) = (image_of(&src)?, image_of(&dst)?);
        if (s.format.image_channel_order, s.format.image_channel_data_type)
            != (d.format.image_channel_order, d.format.image_channel_data_type)
        {
            return Err(CL_IMAGE_FORMAT_MISMATCH);
        }
        let (s_origin, region) = image_box(s, src_origin, region)?;
        let d_origin = triple(dst_origin)?;
        d.check_region(d_origin, region)?;
        if Arc::ptr_eq(&src, &dst)
            && (0..3).all(|i| s_origin[i] < d_origin[i] + region[i] && d_origin[i] < s_origin[i] + region[i])
        {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let (from, to, bytes) = (s.rect(s_origin), d.rect(d_origin), s.byte_region(region));
        let op: HostOp = Arc::new(move || {
            // SAFETY: both boxes checked at recording; equal formats give equal row lengths.
            unsafe { rect::copy(src.base(), from, dst.base(), to, bytes) };
            Ok(())
        });
        finish_host(&cb, op, sync_point)
    })
}

/// clCommandCopyImageToBufferKHR and clCommandCopyBufferToImageKHR (the checks of their
/// `clEnqueue*` twins).
#[allow(clippy::too_many_arguments)]
unsafe fn copy_between(
    cb: &CommandBuffer,
    to_buffer: bool,
    image: cl_mem,
    buffer: cl_mem,
    origin: *const usize,
    region: *const usize,
    offset: usize,
    sync_point: *mut cl_sync_point_khr,
) -> ClResult {
    let img_mem = handles::image(image)?;
    let buf = handles::buffer(buffer)?;
    same_context(cb, &[&img_mem, &buf])?;
    if img_mem.mem_type == CL_MEM_OBJECT_IMAGE1D_BUFFER && img_mem.parent.as_ref().is_some_and(|p| Arc::ptr_eq(p, &buf))
    {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let img = image_of(&img_mem)?;
    let (origin, region) = image_box(img, origin, region)?;
    let (size, packed) = img.packed(region, offset).ok_or(CL_INVALID_VALUE)?;
    if offset.checked_add(size).is_none_or(|end| end > buf.size) {
        return Err(CL_INVALID_VALUE);
    }
    let (pixels, bytes) = (img.rect(origin), img.byte_region(region));
    let op: HostOp = Arc::new(move || {
        // SAFETY: both sides checked against their objects at recording.
        unsafe {
            if to_buffer {
                rect::copy(img_mem.base(), pixels, buf.base(), packed, bytes)
            } else {
                rect::copy(buf.base(), packed, img_mem.base(), pixels, bytes)
            }
        }
        Ok(())
    });
    finish_host(cb, op, sync_point)
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyImageToBufferKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        copy_between(
            &cb, true, src_image, dst_buffer, src_origin, region, dst_offset, sync_point,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyBufferToImageKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        copy_between(
            &cb, false, dst_image, src_buffer, dst_origin, region, src_offset, sync_point,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandFillImageKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    image_handle: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        no_properties(properties_list, mutable_handle)?;
        let mem = handles::image(image_handle)?;
        same_context(&cb, &[&mem])?;
        // The checks of clEnqueueFillImage.
        let img = image_of(&mem)?;
        if fill_color.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (origin, region) = image_box(img, origin, region)?;
        let mut color = [0u8; 16];
        let len = if img.format.image_channel_order == CL_DEPTH {
            4
        } else {
            16
        };
        std::ptr::copy_nonoverlapping(fill_color as *const u8, color.as_mut_ptr(), len);
        let texel = image::fill_texel(&img.format, &color).ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
        if texel.len() != img.element_size() {
            return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
        }
        let op: HostOp = Arc::new(move || {
            if let Some(img) = mem.image.as_ref() {
                // SAFETY: the box is checked against this image at recording.
                unsafe { image::fill(img, mem.base(), origin, region, &texel) };
            }
            Ok(())
        });
        finish_host(&cb, op, sync_point)
    })
}

/// An address the host can copy to and from inside a recorded operation.
#[derive(Clone, Copy)]
struct Address(usize);

/// clCommandSVMMemcpyKHR / clCommandSVMMemFillKHR: without SVM on the device, after the checks
/// common to every command, "CL_INVALID_OPERATION if the device associated with command_queue
/// does not support SVM" (clEnqueueSVMMemcpy's error); with it, the checks of
/// clEnqueueSVMMemcpy / clEnqueueSVMMemFill and a host copy or fill at each replay (SVM on a
/// CPU device is host memory).
#[allow(clippy::too_many_arguments)]
unsafe fn svm_command(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
    op: impl FnOnce() -> ClResult<HostOp>,
) -> ClResult {
    let cb = begin(
        command_buffer_handle,
        command_queue,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
    )?;
    no_properties(properties_list, mutable_handle)?;
    if !runtime::device::FEATURES.svm() {
        return Err(CL_INVALID_OPERATION);
    }
    finish_host(&cb, op()?, sync_point)
}

#[no_mangle]
pub unsafe extern "C" fn clCommandSVMMemcpyKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        svm_command(
            command_buffer_handle,
            command_queue,
            properties_list,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            || {
                // "CL_INVALID_VALUE if dst_ptr or src_ptr is NULL"; "CL_MEM_COPY_OVERLAP if the
                // values specified for dst_ptr, src_ptr and size result in an overlapping copy."
                if dst_ptr.is_null() || src_ptr.is_null() {
                    return Err(CL_INVALID_VALUE);
                }
                let (d, s) = (dst_ptr as usize, src_ptr as usize);
                if d < s.saturating_add(size) && s < d.saturating_add(size) {
                    return Err(CL_MEM_COPY_OVERLAP);
                }
                let (d, s) = (Address(d), Address(s));
                Ok(Arc::new(move || {
                    // SAFETY: the application's SVM allocations, which must outlive the
                    // command-buffer's executions.
                    unsafe { std::ptr::copy_nonoverlapping(s.0 as *const u8, d.0 as *mut u8, size) };
                    Ok(())
                }) as HostOp)
            },
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandSVMMemFillKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        svm_command(
            command_buffer_handle,
            command_queue,
            properties_list,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            || {
                // The checks of clEnqueueSVMMemFill: svm_ptr and pattern not NULL, pattern_size
                // a power of two up to 128, svm_ptr aligned to it and size a multiple of it.
                if svm_ptr.is_null()
                    || pattern.is_null()
                    || pattern_size == 0
                    || !pattern_size.is_power_of_two()
                    || pattern_size > 128
                    || !(svm_ptr as usize).is_multiple_of(pattern_size)
                    || !size.is_multiple_of(pattern_size)
                {
                    return Err(CL_INVALID_VALUE);
                }
                let bytes = slice(pattern as *const u8, pattern_size)
                    .ok_or(CL_INVALID_VALUE)?
                    .to_vec();
                let at = Address(svm_ptr as usize);
                Ok(Arc::new(move || {
                    // SAFETY: as for clCommandSVMMemcpyKHR.
                    let dst = unsafe { std::slice::from_raw_parts_mut(at.0 as *mut u8, size) };
                    runtime::memory::fill_pattern(dst, &bytes);
                    Ok(())
                }) as HostOp)
            },
        )
    })
}

// ---------------------------------------------------------------------------------------------
// ND-range commands and their mutation
// ---------------------------------------------------------------------------------------------

/// Prepares the launch of a dispatch: `None` while an argument is unset (allowed only where the
/// arguments can still be set by an update), else the argument block and the checked range.
fn prepare(d: &Dispatch, device: &runtime::device::Device, defer_ok: bool) -> ClResult<Option<Arc<Launch>>> {
    let g = Geometry {
        work_dim: d.work_dim,
        offset: d.offset,
        global: d.global,
        local: d.local,
    };
    check_offset(&g)?;
    let range = resolve_range(&d.args, device, &g)?;
    // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified and the
    // CL_MUTABLE_DISPATCH_ARGUMENTS_KHR flag was not set".
    let Some(args) = d.args.bind() else {
        return if defer_ok {
            Ok(None)
        } else {
            Err(CL_INVALID_KERNEL_ARGS)
        };
    };
    check_resources(&d.args, device, &args, &range)?;
    Ok(Some(Arc::new(Launch {
        compiled: d.args.compiled.clone(),
        args,
        range,
    })))
}

/// Whether every dimension of a range given with a local size divides evenly.
fn uniform(global: [u64; 3], local: Option<[u64; 3]>) -> Option<bool> {
    local.map(|l| (0..3).all(|i| global[i].is_multiple_of(l[i].max(1))))
}

#[no_mangle]
pub unsafe extern "C" fn clCommandNDRangeKernelKHR(
    command_buffer_handle: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties_list: *const cl_command_properties_khr,
    kernel_handle: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    guard(|| {
        let cb = begin(
            command_buffer_handle,
            command_queue,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
        )?;
        // The properties: "CL_INVALID_VALUE if values specified in properties are not valid";
        // "CL_INVALID_OPERATION if the requested CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR
        // properties are not reported by CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR".
        let (pairs, raw) = properties(properties_list);
        let (mut updatable, mut asserts) = (None, None);
        for (key, value) in pairs {
            let slot = match key {
                CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR => &mut updatable,
                CL_MUTABLE_DISPATCH_ASSERTS_KHR => &mut asserts,
                _ => return Err(CL_INVALID_VALUE),
            };
            if slot.replace(value).is_some() {
                return Err(CL_INVALID_VALUE);
            }
        }
        let all_fields = MUTABLE_FIELDS | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;
        if updatable.is_some_and(|u| u & !all_fields != 0)
            || asserts.is_some_and(|a| a & !CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        if updatable.is_some_and(|u| u & !MUTABLE_FIELDS != 0) {
            return Err(CL_INVALID_OPERATION);
        }
        let updatable = updatable.unwrap_or(MUTABLE_FIELDS);
        let asserts = asserts.unwrap_or(0) | cb.asserts;
        let k = kernel(kernel_handle)?;
        // "CL_INVALID_CONTEXT if the context associated with command_buffer and kernel is not
        // the same."
        if !Arc::ptr_eq(&k.program.context, &cb.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        let g = read_geometry(work_dim, global_work_offset, global_work_size, local_work_size)?;
        // "CL_INVALID_VALUE if command_buffer was created with ...
        // CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR and local_work_size is NULL,
        // or if properties includes [it] and local_work_size is NULL."
        if asserts & CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR != 0 && g.local.is_none() {
            return Err(CL_INVALID_VALUE);
        }
        let queue = cb.queue().clone();
        let dispatch = Dispatch {
            // "Any changes to kernel after calling clCommandNDRangeKernelKHR, such as with
            // clSetKernelArg or clSetKernelExecInfo, have no effect on the recorded command."
            args: k.clone_kernel(),
            work_dim: g.work_dim,
            offset: g.offset,
            global: g.global,
            local: g.local,
            launch: None,
        };
        let defer_ok = cb.is_mutable() && updatable & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR != 0;
        let launch = prepare(&dispatch, queue.device, defer_ok)?;
        let groups = launch.as_ref().map_or(0, |l| cb::work_groups(&l.range));
        let dispatch = Dispatch { launch, ..dispatch };
        let command = Arc::new(MutableCommand::new(
            &cb, queue, k, raw, updatable, asserts, groups, dispatch,
        ));
        let point = cb.record(Recorded::Kernel(command.clone()))?;
        let handle = cb::publish_mutable(&command);
        crate::guard::set(mutable_handle, handle);
        crate::guard::set(sync_point, point);
        Ok(())
    })
}

/// Reads `n` sizes of an update (`None` for NULL: unchanged).
unsafe fn update_dims(p: *const usize, work_dim: cl_uint, fill: u64) -> ClResult<Option<[u64; 3]>> {
    if p.is_null() {
        return Ok(None);
    }
    let s = slice(p, work_dim as usize).ok_or(CL_INVALID_VALUE)?;
    let mut out = [fill; 3];
    for (o, v) in out.iter_mut().zip(s) {
        *o = *v as u64;
    }
    Ok(Some(out))
}

/// One `cl_mutable_dispatch_config_khr` applied to `base` (the command's configuration, or
/// the one an earlier config of the same call produced): the new configuration, prepared.
unsafe fn apply(command: &MutableCommand, base: &Dispatch, config: &MutableDispatchConfig) -> ClResult<Dispatch> {
    let allowed = |field: cl_ulong| command.updatable & field != 0;
    // "CL_INVALID_OPERATION if work_dim is not zero and different from the work_dim set on
    // command recording."
    if config.work_dim != 0 && config.work_dim != base.work_dim {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_OPERATION if the CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR property was not set
    // on command recording and global_work_offset is not NULL", and likewise for the global
    // size, the local size, the arguments and the execution info.
    if (!config.global_work_offset.is_null() && !allowed(CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR))
        || (!config.global_work_size.is_null() && !allowed(CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR))
        || (!config.local_work_size.is_null() && !allowed(CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR))
        || ((config.num_args != 0 || config.num_svm_args != 0) && !allowed(CL_MUTABLE_DISPATCH_ARGUMENTS_KHR))
        || (config.num_exec_infos != 0 && !allowed(CL_MUTABLE_DISPATCH_EXEC_INFO_KHR))
    {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_VALUE if arg_list is NULL and num_args > 0, or arg_list is not NULL and
    // num_args is 0", and the same for the SVM arguments and the execution info.
    if config.arg_list.is_null() != (config.num_args == 0)
        || config.arg_svm_list.is_null() != (config.num_svm_args == 0)
        || config.exec_info_list.is_null() != (config.num_exec_infos == 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    // SVM arguments: clSetKernelArgSVMPointer's "CL_INVALID_OPERATION if no devices in the
    // context associated with kernel support SVM".
    if config.num_svm_args != 0 && !runtime::device::FEATURES.svm() {
        return Err(CL_INVALID_OPERATION);
    }
    let args = base.args.clone_kernel();
    let list = slice(config.arg_list, config.num_args as usize).ok_or(CL_INVALID_VALUE)?;
    for a in list {
        // The errors of clSetKernelArg: CL_INVALID_ARG_INDEX, CL_INVALID_ARG_SIZE (an argument
        // of the wrong size), CL_INVALID_ARG_VALUE, CL_INVALID_MEM_OBJECT, ...
        let value = arg_value_of(&args, a.arg_index, a.arg_size, a.arg_value)?;
        args.set_arg(a.arg_index as usize, value);
    }
    // clSetKernelArgSVMPointer and clSetKernelExecInfo, on the command's copy of the kernel.
    let svm_list = slice(config.arg_svm_list, config.num_svm_args as usize).ok_or(CL_INVALID_VALUE)?;
    for a in svm_list {
        super::svm::set_svm_pointer(&args, a.arg_index, a.arg_value)?;
    }
    let infos = slice(config.exec_info_list, config.num_exec_infos as usize).ok_or(CL_INVALID_VALUE)?;
    for info in infos {
        super::svm::set_exec_info(&args, info.param_name, info.param_value_size, info.param_value)?;
    }
    let n = base.work_dim;
    let offset = update_dims(config.global_work_offset, n, 0)?.unwrap_or(base.offset);
    let global = update_dims(config.global_work_size, n, 1)?.unwrap_or(base.global);
    let local = match update_dims(config.local_work_size, n, 1)? {
        Some(l) => Some(l),
        None => base.local,
    };
    // "CL_INVALID_OPERATION if the values of local_work_size and/or global_work_size result in
    // a change to work-group uniformity."
    if (!config.global_work_size.is_null() || !config.local_work_size.is_null())
        && uniform(base.global, base.local).is_some_and(|was| uniform(global, local) != Some(was))
    {
        return Err(CL_INVALID_OPERATION);
    }
    let next = Dispatch {
        args,
        work_dim: n,
        offset,
        global,
        local,
        launch: None,
    };
    let launch = prepare(&next, command.queue.device, true)?;
    Ok(Dispatch { launch, ..next })
}

#[no_mangle]
pub unsafe extern "C" fn clUpdateMutableCommandsKHR(
    command_buffer_handle: cl_command_buffer_khr,
    num_configs: cl_uint,
    config_types: *const cl_uint,
    configs: *const *const c_void,
) -> cl_int {
    guard(|| {
        let cb = command_buffer(command_buffer_handle)?;
        // "CL_INVALID_OPERATION if command_buffer has not been finalized"; "... was not created
        // with the CL_COMMAND_BUFFER_MUTABLE_KHR flag."
        if !cb.is_finalized() || !cb.is_mutable() {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_VALUE if config_types is NULL and num_configs > 0, or config_types is not
        // NULL and num_configs is 0", and the same for configs.
        if config_types.is_null() != (num_configs == 0) || configs.is_null() != (num_configs == 0) {
            return Err(CL_INVALID_VALUE);
        }
        let types = slice(config_types, num_configs as usize).ok_or(CL_INVALID_VALUE)?;
        let configs = slice(configs, num_configs as usize).ok_or(CL_INVALID_VALUE)?;
        // "CL_INVALID_VALUE if any element of config_types is not a valid
        // cl_command_buffer_update_type_khr enum"; "... if any element of configs is NULL."
        if types
            .iter()
            .any(|&t| t != CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR)
            || configs.iter().any(|c| c.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        // "Otherwise, none of the updates to mutable-command objects are preserved": every
        // config is checked and prepared first, then all are applied.
        let mut pending: Vec<(Arc<MutableCommand>, Dispatch)> = Vec::new();
        for &c in configs {
            let config = &*(c as *const MutableDispatchConfig);
            // "CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable command object
            // returned from clCommandNDRangeKernelKHR, or created from command_buffer."
            let command = mutable_command(config.command)?;
            if !cb.owns(&command) {
                return Err(CL_INVALID_MUTABLE_COMMAND_KHR);
            }
            let next = match pending.iter().rposition(|(m, _)| Arc::ptr_eq(m, &command)) {
                Some(i) => apply(&command, &pending[i].1, config)?,
                None => {
                    let current = command.dispatch();
                    apply(&command, &current, config)?
                }
            };
            pending.push((command, next));
        }
        for (command, next) in pending {
            *command.dispatch() = next;
        }
        cb.replan();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetMutableCommandInfoKHR(
    command: cl_mutable_command_khr,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let m = mutable_command(command)?;
        let d = m.dispatch();
        let n = d.work_dim as usize;
        let sizes = |v: [u64; 3]| info::array(&v.map(|x| x as usize)[..n]);
        let answer = match param_name {
            CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR => info::ptr(Arc::as_ptr(&m.queue) as *const c_void),
            CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR => info::ptr(m.command_buffer as *const c_void),
            CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR => info::uint(cb::MUTABLE_COMMAND_TYPE),
            CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR => info::array(&m.properties),
            CL_MUTABLE_DISPATCH_KERNEL_KHR => info::ptr(Arc::as_ptr(&m.kernel) as *const c_void),
            CL_MUTABLE_DISPATCH_DIMENSIONS_KHR => info::uint(d.work_dim),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR => sizes(d.offset),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR => sizes(d.global),
            // "If a local work-item size was not set, zero is returned for each element."
            CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR => sizes(d.local.unwrap_or([0; 3])),
            _ => Err(CL_INVALID_VALUE),
        };
        drop(d);
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}
