//! Buffer objects (API section 5.2): creation, sub-buffers, host commands (read, write, copy,
//! their rectangular forms, fill, map, unmap, migrate), info and destructor callbacks.

use super::event::complete_enqueue;
use crate::guard::{guard, guard_object, properties, slice, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::callback::{ObjectCallback, UserData};
use runtime::context::Context;
use runtime::event::Event;
use runtime::info;
use runtime::memory::{HostPtr, Mapping, Mem, Storage};
use runtime::object::{publish, release, retain, ClObject};
use runtime::queue::Queue;
use runtime::rect::{self, Rect};
use std::ffi::c_void;
use std::sync::Arc;

pub(super) const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
pub(super) const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
pub(super) const HOST_ACCESS: cl_mem_flags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

/// "CL_INVALID_VALUE if values specified in flags are not valid": unknown bits, or more than
/// one of each mutually exclusive group.
pub(super) fn check_flags(flags: cl_mem_flags) -> ClResult {
    let known = ACCESS | HOST_PTR | HOST_ACCESS | CL_MEM_KERNEL_READ_AND_WRITE;
    let many = |group: cl_mem_flags| (flags & group).count_ones() > 1;
    if flags & !known != 0
        || many(ACCESS)
        || many(HOST_ACCESS)
        || flags & CL_MEM_USE_HOST_PTR != 0 && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

unsafe fn create_buffer(
    context: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    let ctx = handles::context(context)?;
    check_flags(flags)?;
    // "CL_INVALID_BUFFER_SIZE if size is 0 or if size is greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context."
    let device = runtime::device::device();
    if size == 0 || size as u64 > device.max_mem_alloc_size() {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR
    // are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or
    // CL_MEM_USE_HOST_PTR are not set in flags."
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    // Memory from clSVMAlloc: "CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR is set in flags, and host_ptr is a pointer returned by clSVMAlloc,
    // and size is greater than the size passed to clSVMAlloc" (from a pointer into the
    // allocation: more than the bytes left after it). With CL_MEM_USE_HOST_PTR the buffer
    // shares the allocation's bytes and keeps them alive ("the new buffer object returned
    // has the shared memory as the underlying storage").
    if wants_ptr {
        if let Some(svm) = runtime::svm::find(host_ptr as usize) {
            let offset = host_ptr as usize - svm.start();
            if size > svm.size - offset {
                return Err(CL_INVALID_BUFFER_SIZE);
            }
            if flags & CL_MEM_USE_HOST_PTR != 0 {
                let mem = Mem::new_svm_buffer(ctx, flags, size, host_ptr, svm.storage.clone(), offset, props);
                return Ok(publish(Arc::new(mem)) as cl_mem);
            }
        }
    }
    let storage = if flags & CL_MEM_USE_HOST_PTR != 0 {
        Storage::borrowed(host_ptr as *mut u8, size)
    } else {
        let storage = Storage::for_buffer(size, device.mem_base_addr_align_bytes(), ctx.numa_node())
            .ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
        if flags & CL_MEM_COPY_HOST_PTR != 0 {
            std::ptr::copy_nonoverlapping(host_ptr as *const u8, storage.ptr(), size);
        }
        storage
    };
    // CL_MEM_HOST_PTR reports host_ptr only for CL_MEM_USE_HOST_PTR.
    let reported = if flags & CL_MEM_USE_HOST_PTR != 0 {
        host_ptr
    } else {
        std::ptr::null_mut()
    };
    Ok(publish(Arc::new(Mem::new_buffer(ctx, flags, size, reported, storage, props))) as cl_mem)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        create_buffer(context, Vec::new(), flags, size, host_ptr)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateBufferWithProperties(
    context: cl_context,
    props: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        let (pairs, raw) = properties(props);
        // No buffer properties are supported: "CL_INVALID_PROPERTY if a property name in
        // properties is not a supported property name".
        if !pairs.is_empty() {
            return Err(CL_INVALID_PROPERTY);
        }
        create_buffer(context, raw, flags, size, host_ptr)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSubBuffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    create_type: cl_buffer_create_type,
    create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        let parent = handles::buffer(buffer)?;
        // "CL_INVALID_MEM_OBJECT if buffer is not a buffer object or is a sub-buffer object."
        if parent.parent.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        check_flags(flags)?;
        let pf = parent.flags;
        // Access and host-access flags must not widen the parent's; host-pointer flags are
        // not allowed ("CL_INVALID_VALUE if ... flags ... CL_MEM_USE_HOST_PTR ...").
        let widens = (pf & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
            || (pf & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
            || (pf & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
            || (pf & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
            || (pf & CL_MEM_HOST_NO_ACCESS != 0 && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0);
        if widens || flags & HOST_PTR != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_VALUE if the value specified in buffer_create_type is not valid ... or
        // if buffer_create_info is NULL."
        if create_type != CL_BUFFER_CREATE_TYPE_REGION || create_info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let region = &*(create_info as *const cl_buffer_region);
        // "CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure ... is 0."
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        // "CL_INVALID_VALUE if the region specified by the cl_buffer_region structure ... is
        // out of bounds of buffer."
        if region
            .origin
            .checked_add(region.size)
            .is_none_or(|end| end > parent.size)
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context associated with
        // buffer for which the origin field ... is aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN."
        if !region
            .origin
            .is_multiple_of(runtime::device::device().mem_base_addr_align_bytes())
        {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        // Flags the application leaves out are inherited from the parent.
        let mut inherited = flags | (pf & HOST_PTR);
        if flags & ACCESS == 0 {
            inherited |= pf & ACCESS;
        }
        if flags & HOST_ACCESS == 0 {
            inherited |= pf & HOST_ACCESS;
        }
        Ok(publish(Arc::new(Mem::new_sub_buffer(
            &parent,
            inherited,
            region.origin,
            region.size,
        ))) as cl_mem)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainMemObject(memobj: cl_mem) -> cl_int {
    guard(|| retain::<Mem>(memobj as _).ok_or(CL_INVALID_MEM_OBJECT))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseMemObject(memobj: cl_mem) -> cl_int {
    guard(|| release::<Mem>(memobj as _).ok_or(CL_INVALID_MEM_OBJECT))
}

#[no_mangle]
pub unsafe extern "C" fn clGetMemObjectInfo(
    memobj: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let m = handles::mem(memobj)?;
        let answer = match param_name {
            CL_MEM_TYPE => info::uint(m.mem_type),
            CL_MEM_FLAGS => info::ulong(m.flags),
            CL_MEM_SIZE => info::size(m.size),
            CL_MEM_HOST_PTR => info::ptr(m.host_ptr),
            CL_MEM_MAP_COUNT => info::uint(m.map_count()),
            CL_MEM_REFERENCE_COUNT => info::uint(m.header().ref_count()),
            CL_MEM_CONTEXT => info::ptr(Arc::as_ptr(&m.context) as *const c_void),
            CL_MEM_ASSOCIATED_MEMOBJECT => info::ptr(
                m.parent
                    .as_ref()
                    .map_or(std::ptr::null(), |p| Arc::as_ptr(p) as *const c_void),
            ),
            CL_MEM_OFFSET => info::size(m.parent.as_ref().map_or(0, |p| m.offset - p.offset)),
            CL_MEM_USES_SVM_POINTER => info::boolean(m.uses_svm_pointer),
            CL_MEM_PROPERTIES => info::array(&m.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    memobj: cl_mem,
    pfn_notify: Option<unsafe extern "C" fn(cl_mem, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    guard(|| {
        let m = handles::mem(memobj)?;
        // "CL_INVALID_VALUE if pfn_notify is NULL."
        let func = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        m.add_destructor(ObjectCallback {
            func,
            user_data: UserData(user_data),
        });
        Ok(())
    })
}

/// The checks every memory command shares: the queue, the memory objects, one context, the
/// wait list.
pub(super) struct Target {
    pub queue: Arc<Queue>,
    pub deps: Vec<Arc<Event>>,
}

pub(super) unsafe fn target(
    queue: cl_command_queue,
    mems: &[&Arc<Mem>],
    num_events: cl_uint,
    wait_list: *const cl_event,
) -> ClResult<Target> {
    let queue = handles::queue(queue)?;
    // "CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the
    // same."
    if mems.iter().any(|m| !Arc::ptr_eq(&m.context, &queue.context)) {
        return Err(CL_INVALID_CONTEXT);
    }
    let deps = handles::wait_list(num_events, wait_list, &queue.context)?;
    Ok(Target { queue, deps })
}

fn context_matches(queue: &Queue, ctx: &Arc<Context>) -> bool {
    Arc::ptr_eq(&queue.context, ctx)
}

/// "CL_INVALID_VALUE if the region being read or written specified by (offset, size) is out
/// of bounds or if ptr is a NULL value" (and a zero size for read, write and copy).
fn check_range(mem: &Mem, offset: usize, size: usize) -> ClResult {
    if size == 0 || offset.checked_add(size).is_none_or(|end| end > mem.size) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
/// with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS" (and the converse for writes).
pub(super) fn check_host_read(mem: &Mem) -> ClResult {
    if mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

pub(super) fn check_host_write(mem: &Mem) -> ClResult {
    if mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// Which way a host transfer goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    /// Buffer to host memory (clEnqueueRead*).
    Read,
    /// Host memory to buffer (clEnqueueWrite*).
    Write,
}

/// clEnqueueReadBuffer and clEnqueueWriteBuffer.
#[allow(clippy::too_many_arguments)]
unsafe fn host_transfer(
    dir: Direction,
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult {
    handles::queue(queue)?;
    let mem = handles::buffer(buffer)?;
    let t = target(queue, &[&mem], num_events, wait_list)?;
    check_range(&mem, offset, size)?;
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let host = HostPtr(ptr as *mut u8);
    let command = match dir {
        Direction::Read => {
            check_host_read(&mem)?;
            CL_COMMAND_READ_BUFFER
        }
        Direction::Write => {
            check_host_write(&mem)?;
            CL_COMMAND_WRITE_BUFFER
        }
    };
    let work = Box::new(move || {
        let device = mem.base().wrapping_add(offset);
        let (from, to) = if dir == Direction::Read {
            (device, host.get())
        } else {
            (host.get(), device)
        };
        // SAFETY: the buffer range is checked; the application keeps ptr valid until the
        // command completes.
        unsafe { std::ptr::copy(from, to, size) };
        Ok(())
    });
    complete_enqueue(t.queue.enqueue(command, t.deps, work), event, blocking != CL_FALSE)
}

/// clEnqueueReadBufferRect and clEnqueueWriteBufferRect.
#[allow(clippy::too_many_arguments)]
unsafe fn host_rect_transfer(
    dir: Direction,
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_pitches: (usize, usize),
    host_pitches: (usize, usize),
    ptr: *const c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult {
    handles::queue(queue)?;
    let mem = handles::buffer(buffer)?;
    let t = target(queue, &[&mem], num_events, wait_list)?;
    let region = rect_region(region)?;
    let b = rect_side(
        buffer_origin,
        region,
        buffer_pitches.0,
        buffer_pitches.1,
        Some(mem.size),
    )?;
    let h = rect_side(host_origin, region, host_pitches.0, host_pitches.1, None)?;
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let host = HostPtr(ptr as *mut u8);
    let command = match dir {
        Direction::Read => {
            check_host_read(&mem)?;
            CL_COMMAND_READ_BUFFER_RECT
        }
        Direction::Write => {
            check_host_write(&mem)?;
            CL_COMMAND_WRITE_BUFFER_RECT
        }
    };
    let work = Box::new(move || {
        // SAFETY: the buffer side is checked; the host side is the application's promise.
        unsafe {
            match dir {
                Direction::Read => rect::copy(mem.base(), b, host.get(), h, region),
                Direction::Write => rect::copy(host.get(), h, mem.base(), b, region),
            }
        }
        Ok(())
    });
    complete_enqueue(t.queue.enqueue(command, t.deps, work), event, blocking != CL_FALSE)
}

/// "CL_MISALIGNED_SUB_BUFFER_OFFSET if buffer is a sub-buffer object and offset specified when
/// the sub-buffer object is created is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN value for
/// device associated with queue." Sub-buffers are refused at creation when misaligned, so
/// this holds by construction.
#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadBuffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        host_transfer(
            Direction::Read,
            queue,
            buffer,
            blocking,
            offset,
            size,
            ptr,
            num_events,
            wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteBuffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        host_transfer(
            Direction::Write,
            queue,
            buffer,
            blocking,
            offset,
            size,
            ptr,
            num_events,
            wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBuffer(
    queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        handles::queue(queue)?;
        let src = handles::buffer(src_buffer)?;
        let dst = handles::buffer(dst_buffer)?;
        let t = target(queue, &[&src, &dst], num_events, wait_list)?;
        check_range(&src, src_offset, size)?;
        check_range(&dst, dst_offset, size)?;
        // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer
        // object and the source and destination regions overlap or if src_buffer and
        // dst_buffer are different sub-buffers of the same associated buffer object and they
        // overlap."
        if src.shares_storage(&dst) {
            let (a, b) = (src.offset + src_offset, dst.offset + dst_offset);
            if a < b + size && b < a + size {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        let work = Box::new(move || {
            // SAFETY: both ranges checked above.
            unsafe { std::ptr::copy(src.base().add(src_offset), dst.base().add(dst_offset), size) };
            Ok(())
        });
        complete_enqueue(t.queue.enqueue(CL_COMMAND_COPY_BUFFER, t.deps, work), event, false)
    })
}

/// Reads a 3-element origin or region argument.
pub(super) unsafe fn triple(p: *const usize) -> ClResult<[usize; 3]> {
    let s = slice(p, 3).ok_or(CL_INVALID_VALUE)?;
    Ok([s[0], s[1], s[2]])
}

/// The pitch rules of the Rect commands: 0 means tightly packed; otherwise "row_pitch is not
/// 0 and is less than region[0]" and "slice_pitch is not 0 and is less than region[1] ×
/// row_pitch or ... is not a multiple of row_pitch" are CL_INVALID_VALUE.
fn pitches(region: [usize; 3], row: usize, slice: usize) -> ClResult<(usize, usize)> {
    let row = if row == 0 { region[0] } else { row };
    if row < region[0] {
        return Err(CL_INVALID_VALUE);
    }
    let min_slice = region[1].checked_mul(row).ok_or(CL_INVALID_VALUE)?;
    let slice = if slice == 0 { min_slice } else { slice };
    if slice < min_slice || slice % row != 0 {
        return Err(CL_INVALID_VALUE);
    }
    Ok((row, slice))
}

/// Builds one side of a Rect command and checks it lies within `limit` bytes (if any).
pub(super) unsafe fn rect_side(
    origin: *const usize,
    region: [usize; 3],
    row: usize,
    slice: usize,
    limit: Option<usize>,
) -> ClResult<Rect> {
    let origin = triple(origin)?;
    let (row_pitch, slice_pitch) = pitches(region, row, slice)?;
    let r = Rect {
        origin,
        row_pitch,
        slice_pitch,
    };
    let end = r.end(region).ok_or(CL_INVALID_VALUE)?;
    if limit.is_some_and(|limit| end > limit) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(r)
}

pub(super) unsafe fn rect_region(region: *const usize) -> ClResult<[usize; 3]> {
    let region = triple(region)?;
    // "CL_INVALID_VALUE if any region array element is 0."
    if region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(region)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadBufferRect(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        host_rect_transfer(
            Direction::Read,
            queue,
            buffer,
            blocking,
            buffer_origin,
            host_origin,
            region,
            (buffer_row_pitch, buffer_slice_pitch),
            (host_row_pitch, host_slice_pitch),
            ptr,
            num_events,
            wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        host_rect_transfer(
            Direction::Write,
            queue,
            buffer,
            blocking,
            buffer_origin,
            host_origin,
            region,
            (buffer_row_pitch, buffer_slice_pitch),
            (host_row_pitch, host_slice_pitch),
            ptr,
            num_events,
            wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        handles::queue(queue)?;
        let src = handles::buffer(src_buffer)?;
        let dst = handles::buffer(dst_buffer)?;
        let t = target(queue, &[&src, &dst], num_events, wait_list)?;
        let region = rect_region(region)?;
        let s = rect_side(src_origin, region, src_row_pitch, src_slice_pitch, Some(src.size))?;
        let d = rect_side(dst_origin, region, dst_row_pitch, dst_slice_pitch, Some(dst.size))?;
        // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and
        // src_slice_pitch is not equal to dst_slice_pitch and src_row_pitch is not equal to
        // dst_row_pitch."
        if Arc::ptr_eq(&src, &dst) && s.slice_pitch != d.slice_pitch && s.row_pitch != d.row_pitch {
            return Err(CL_INVALID_VALUE);
        }
        if src.shares_storage(&dst) && rect::overlap(s, src.offset, d, dst.offset, region) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let work = Box::new(move || {
            // SAFETY: both sides checked against their buffers.
            unsafe { rect::copy(src.base(), s, dst.base(), d, region) };
            Ok(())
        });
        complete_enqueue(t.queue.enqueue(CL_COMMAND_COPY_BUFFER_RECT, t.deps, work), event, false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillBuffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        handles::queue(queue)?;
        let mem = handles::buffer(buffer)?;
        let t = target(queue, &[&mem], num_events, wait_list)?;
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
        // The pattern is copied now: the application may reuse its memory once this returns.
        let bytes = slice(pattern as *const u8, pattern_size)
            .ok_or(CL_INVALID_VALUE)?
            .to_vec();
        let work = Box::new(move || {
            // SAFETY: range checked above.
            let dst = unsafe { std::slice::from_raw_parts_mut(mem.base().add(offset), size) };
            runtime::memory::fill_pattern(dst, &bytes);
            Ok(())
        });
        complete_enqueue(t.queue.enqueue(CL_COMMAND_FILL_BUFFER, t.deps, work), event, false)
    })
}

/// "CL_INVALID_VALUE if values specified in map_flags are not valid"
/// (CL_MAP_WRITE_INVALIDATE_REGION excludes CL_MAP_READ and CL_MAP_WRITE); "CL_INVALID_OPERATION
/// if buffer has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and
/// CL_MAP_READ is set in map_flags" (and the converse for writing maps).
pub(super) fn check_map_flags(mem: &Mem, map_flags: cl_map_flags) -> ClResult {
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if map_flags & !known != 0
        || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    if map_flags & CL_MAP_READ != 0 {
        check_host_read(mem)?;
    }
    if map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
        check_host_write(mem)?;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMapBuffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    size: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    guard_object(errcode_ret, || {
        handles::queue(queue)?;
        let mem = handles::buffer(buffer)?;
        let t = target(queue, &[&mem], num_events, wait_list)?;
        check_range(&mem, offset, size)?;
        check_map_flags(&mem, map_flags)?;
        // Device memory is host memory: the mapped region is the buffer itself (for
        // CL_MEM_USE_HOST_PTR, the application's host_ptr + offset).
        let ptr = mem.base().add(offset);
        // "CL_INVALID_OPERATION if mapping would lead to overlapping regions being mapped for
        // writing."
        let mapping = Mapping {
            ptr: ptr as usize,
            offset,
            size,
            flags: map_flags,
            pixels: None,
        };
        if !mem.add_mapping(mapping) {
            return Err(CL_INVALID_OPERATION);
        }
        let ev = t.queue.enqueue(CL_COMMAND_MAP_BUFFER, t.deps, Box::new(|| Ok(())));
        if let Err(code) = complete_enqueue(ev, event, blocking_map != CL_FALSE) {
            mem.remove_mapping(ptr as usize);
            return Err(code);
        }
        Ok(ptr as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    queue: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        handles::queue(queue)?;
        let mem = handles::mem(memobj)?;
        let t = target(queue, &[&mem], num_events, wait_list)?;
        // "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapBuffer
        // or clEnqueueMapImage for memobj."
        mem.remove_mapping(mapped_ptr as usize).ok_or(CL_INVALID_VALUE)?;
        complete_enqueue(
            t.queue
                .enqueue(CL_COMMAND_UNMAP_MEM_OBJECT, t.deps, Box::new(|| Ok(()))),
            event,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let q = handles::queue(queue)?;
        // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL" or flags
        // has unknown bits.
        if num_mem_objects == 0 || mem_objects.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let handles = slice(mem_objects, num_mem_objects as usize).ok_or(CL_INVALID_VALUE)?;
        let mems = handles.iter().map(|&m| handles::mem(m)).collect::<ClResult<Vec<_>>>()?;
        if mems.iter().any(|m| !context_matches(&q, &m.context)) {
            return Err(CL_INVALID_CONTEXT);
        }
        let deps = handles::wait_list(num_events, wait_list, &q.context)?;
        // One memory for host and device: migration only orders the command.
        complete_enqueue(
            q.enqueue(CL_COMMAND_MIGRATE_MEM_OBJECTS, deps, Box::new(|| Ok(()))),
            event,
            false,
        )
    })
}
