//! Image objects (API section 5.3): creation (from host memory, from a buffer, from another
//! image), supported formats, queries, and the host commands: read, write, copy, fill, copy
//! to and from buffers, map (unmapping is clEnqueueUnmapMemObject's).

use super::event::complete_enqueue;
use super::memory::{
    check_flags, check_host_read, check_host_write, check_map_flags, target, triple, Direction, ACCESS, HOST_ACCESS,
    HOST_PTR,
};
use crate::guard::{guard, guard_object, properties, set, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::device::{self, FEATURES};
use runtime::image::{self, Dims, Image, Layout};
use runtime::info;
use runtime::memory::{Backing, HostPtr, Mapping, Mem, Storage};
use runtime::object::publish;
use runtime::rect;
use std::ffi::c_void;
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------------------------

/// "CL_INVALID_OPERATION if there are no devices in context that support images".
fn check_image_support() -> ClResult {
    if FEATURES.images() {
        Ok(())
    } else {
        Err(CL_INVALID_OPERATION)
    }
}

/// The memory object an image is made from (`image_desc->mem_object`), checked against the
/// image type: "mem_object can be a buffer memory object if image_type is
/// CL_MEM_OBJECT_IMAGE1D_BUFFER or CL_MEM_OBJECT_IMAGE2D ... can be an image object if
/// image_type is CL_MEM_OBJECT_IMAGE2D. Otherwise it must be NULL" (CL_INVALID_IMAGE_DESCRIPTOR).
fn source_object(desc: &cl_image_desc, ctx: &Arc<runtime::context::Context>) -> ClResult<Option<Arc<Mem>>> {
    let required = desc.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER;
    if desc.buffer.is_null() {
        return if required {
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        } else {
            Ok(None)
        };
    }
    let mem = handles::mem(desc.buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
    let allowed = match desc.image_type {
        CL_MEM_OBJECT_IMAGE1D_BUFFER => mem.mem_type == CL_MEM_OBJECT_BUFFER,
        CL_MEM_OBJECT_IMAGE2D => {
            mem.mem_type == CL_MEM_OBJECT_IMAGE2D
                || mem.mem_type == CL_MEM_OBJECT_BUFFER && FEATURES.has_extension("cl_khr_image2d_from_buffer")
        }
        _ => false,
    };
    if !allowed || !Arc::ptr_eq(&mem.context, ctx) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    Ok(Some(mem))
}

/// The flags of an image made from `source`: "CL_INVALID_VALUE if ... mem_object was created
/// with CL_MEM_WRITE_ONLY and flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY" (and the
/// like for the access and host access groups), "flags specifies CL_MEM_USE_HOST_PTR or
/// CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR"; what flags leave out is inherited.
fn derived_flags(flags: cl_mem_flags, source: &Mem) -> ClResult<cl_mem_flags> {
    let sf = source.flags;
    let widens = (sf & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
        || (sf & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
        || (sf & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
        || (sf & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
        || (sf & CL_MEM_HOST_NO_ACCESS != 0 && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0);
    if widens || flags & HOST_PTR != 0 {
        return Err(CL_INVALID_VALUE);
    }
    let mut inherited = flags | (sf & HOST_PTR);
    if flags & ACCESS == 0 {
        inherited |= sf & ACCESS;
    }
    if flags & HOST_ACCESS == 0 {
        inherited |= sf & HOST_ACCESS;
    }
    Ok(inherited)
}

/// An image over a buffer's bytes: a 1D image buffer, or a 2D image (cl_khr_image2d_from_buffer:
/// "the image_row_pitch must also be a multiple of ... CL_DEVICE_IMAGE_PITCH_ALIGNMENT",
/// CL_INVALID_IMAGE_FORMAT_DESCRIPTOR "if a 2D image is created from a buffer and the row
/// pitch and base address alignment does not follow the rules"; any buffer address will do,
/// see `device::IMAGE_BASE_ADDRESS_ALIGNMENT`). The buffer must hold the image
/// ("image_row_pitch x image_height must be <= size of the buffer object"), else
/// CL_INVALID_IMAGE_SIZE.
fn layout_in_buffer(desc: &cl_image_desc, dims: Dims, element_size: usize, buffer: &Mem) -> ClResult<Layout> {
    let layout = if desc.image_type == CL_MEM_OBJECT_IMAGE2D {
        let layout = Layout::new(desc.image_type, dims, element_size, desc.image_row_pitch, 0)?;
        let pitch_align = device::IMAGE_PITCH_ALIGNMENT as usize * element_size;
        if !layout.row_pitch.is_multiple_of(pitch_align) {
            return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        }
        layout
    } else {
        // A 1D image buffer: its one row lies in the buffer, so a row pitch is taken as it is
        // for a host_ptr ("either 0 or >= image_width x size of element in bytes", "a multiple
        // of the image element size"): the Khronos CTS gives width x element size, which the
        // stricter "must be 0 if host_ptr is NULL" would refuse. There is no slice pitch.
        if desc.image_slice_pitch != 0 {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Layout::new(desc.image_type, dims, element_size, desc.image_row_pitch, 0)?
    };
    if layout.size > buffer.size {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    Ok(layout)
}

/// A 2D image viewing another 2D image's pixels: "All of the values specified in image_desc
/// must match the image descriptor information associated with mem_object, except for
/// mem_object" (pitches may be left 0), "The image channel data type specified in
/// image_format must match" and the orders must be compatible.
fn layout_of_view(desc: &cl_image_desc, dims: Dims, format: &cl_image_format, parent: &Mem) -> ClResult<Layout> {
    let p = parent.image.as_ref().ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    let same_pitch = |given: usize, theirs: usize| given == 0 || given == theirs;
    if p.dims != dims
        || !same_pitch(desc.image_row_pitch, p.layout.row_pitch)
        || !same_pitch(desc.image_slice_pitch, p.reported_slice_pitch())
    {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if format.image_channel_data_type != p.format.image_channel_data_type
        || !image::orders_compatible(format.image_channel_order, p.format.image_channel_order)
    {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    Ok(p.layout)
}

/// The bytes of a new image that has no memory object to share: the application's
/// (CL_MEM_USE_HOST_PTR, with its pitches) or a tightly packed allocation, filled from
/// host_ptr with CL_MEM_COPY_HOST_PTR.
///
/// # Safety
/// `host_ptr` must be NULL or valid for `layout.size` bytes (the "Required host_ptr buffer
/// sizes for images" table).
unsafe fn own_storage(
    desc: &cl_image_desc,
    format: cl_image_format,
    dims: Dims,
    element_size: usize,
    flags: cl_mem_flags,
    host_ptr: *mut c_void,
    node: Option<usize>,
) -> ClResult<(Layout, Storage)> {
    // "The image_row_pitch must be zero if host_ptr is NULL", "The image_slice_pitch must be
    // zero if host_ptr is NULL".
    let (row, slice) = (desc.image_row_pitch, desc.image_slice_pitch);
    let uses_slice = matches!(
        desc.image_type,
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
    );
    if host_ptr.is_null() && (row != 0 || uses_slice && slice != 0) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let given = Layout::new(desc.image_type, dims, element_size, row, slice)?;
    let tight = Layout::new(desc.image_type, dims, element_size, 0, 0)?;
    let device = device::device();
    // An image's data store is one allocation: CL_DEVICE_MAX_MEM_ALLOC_SIZE bounds it.
    if tight.size as u64 > device.max_mem_alloc_size() {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    if flags & CL_MEM_USE_HOST_PTR != 0 {
        return Ok((given, Storage::borrowed(host_ptr as *mut u8, given.size)));
    }
    let storage = Storage::allocate(tight.size, device.mem_base_addr_align_bytes(), node)
        .ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
    if flags & CL_MEM_COPY_HOST_PTR != 0 {
        // Copied row by row from the application's pitches into tight rows.
        let src = Image::new(desc.image_type, format, dims, given, host_ptr as *mut u8);
        let dst = Image::new(desc.image_type, format, dims, tight, storage.ptr());
        let bytes = src.byte_region(src.extent());
        rect::copy(
            host_ptr as *const u8,
            src.rect([0; 3]),
            storage.ptr(),
            dst.rect([0; 3]),
            bytes,
        );
    }
    Ok((tight, storage))
}

/// clCreateImage and clCreateImageWithProperties (after the properties), with the checks in
/// the order of the specification's error list.
///
/// # Safety
/// The pointers must be NULL or valid as the specification describes.
unsafe fn create_image(
    context: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    let ctx = handles::context(context)?;
    check_image_support()?;
    check_flags(flags)?;
    // "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if image_format is NULL or if values specified in
    // image_format are not valid."
    let format = *image_format.as_ref().ok_or(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
    if !image::format_is_valid(&format) {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // CL_INVALID_IMAGE_DESCRIPTOR: "Returned when the specified image descriptor is NULL or
    // specifies invalid values" ("num_mip_levels must be 0", "num_samples must be 0").
    let desc = *image_desc.as_ref().ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    if !image::is_image_type(desc.image_type) || desc.num_mip_levels != 0 || desc.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let source = source_object(&desc, &ctx)?;
    let dims = image::dims(&desc)?;
    // "CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that support
    // image_format."
    if !image::is_supported(desc.image_type, &format) {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    let element_size = image::element_size(&format).ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    let flags = match &source {
        Some(src) => derived_flags(flags, src)?,
        None => flags,
    };
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR
    // are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or
    // CL_MEM_USE_HOST_PTR are not set in flags." (An image from a memory object takes no
    // host_ptr: its host pointer flags are the object's.)
    let wants_ptr = source.is_none() && flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    let (layout, backing, reported) = match source {
        Some(src) => {
            let layout = if src.image.is_some() {
                layout_of_view(&desc, dims, &format, &src)?
            } else {
                layout_in_buffer(&desc, dims, element_size, &src)?
            };
            // Like a sub-buffer's, the host pointer is the source's, if it has one.
            let reported = src.host_ptr;
            (layout, Backing::Shares(src), reported)
        }
        None => {
            let (layout, storage) = own_storage(&desc, format, dims, element_size, flags, host_ptr, ctx.numa_node())?;
            let reported = if flags & CL_MEM_USE_HOST_PTR != 0 {
                host_ptr
            } else {
                std::ptr::null_mut()
            };
            (layout, Backing::Owns(storage), reported)
        }
    };
    let img = Image::new(desc.image_type, format, dims, layout, backing.data());
    let mem = Mem::new_image(ctx, flags, reported, props, img, backing);
    Ok(publish(Arc::new(mem)) as cl_mem)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        create_image(context, Vec::new(), flags, image_format, image_desc, host_ptr)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    props: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        handles::context(context)?;
        check_image_support()?;
        let (pairs, raw) = properties(props);
        // "OpenCL does not define any optional properties for images": "CL_INVALID_PROPERTY if
        // a property name in properties is not a supported property name".
        if !pairs.is_empty() {
            return Err(CL_INVALID_PROPERTY);
        }
        create_image(context, raw, flags, image_format, image_desc, host_ptr)
    })
}

/// The descriptor of a clCreateImage2D / clCreateImage3D call.
fn legacy_desc(
    image_type: cl_mem_object_type,
    size: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: 1,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

/// The 1.x entry points list pitch errors as "CL_INVALID_IMAGE_SIZE if ... values specified
/// by image_row_pitch (and image_slice_pitch) do not follow rules described in the argument
/// description".
fn legacy_error(code: cl_int) -> cl_int {
    if code == CL_INVALID_IMAGE_DESCRIPTOR {
        CL_INVALID_IMAGE_SIZE
    } else {
        code
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        let desc = legacy_desc(
            CL_MEM_OBJECT_IMAGE2D,
            [image_width, image_height, 1],
            image_row_pitch,
            0,
        );
        create_image(context, Vec::new(), flags, image_format, &desc, host_ptr).map_err(legacy_error)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    guard_object(errcode_ret, || {
        // "CL_INVALID_IMAGE_SIZE if ... image_depth <= 1": a depth of 0 fails where the
        // descriptor's sizes are checked.
        let depth = if image_depth <= 1 { 0 } else { image_depth };
        let desc = legacy_desc(
            CL_MEM_OBJECT_IMAGE3D,
            [image_width, image_height, depth],
            image_row_pitch,
            image_slice_pitch,
        );
        create_image(context, Vec::new(), flags, image_format, &desc, host_ptr).map_err(legacy_error)
    })
}

// ---------------------------------------------------------------------------------------------
// Formats and queries
// ---------------------------------------------------------------------------------------------

/// Every format works for reading, writing and reading and writing in one kernel, so the
/// list does not depend on the access flags.
#[no_mangle]
pub unsafe extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    guard(|| {
        handles::context(context)?;
        // "CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0 and
        // image_formats is not NULL."
        check_flags(flags)?;
        if !image::is_image_type(image_type) || num_entries == 0 && !image_formats.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let formats = if FEATURES.images() {
            image::supported_formats(image_type)
        } else {
            Vec::new()
        };
        if !image_formats.is_null() {
            for (i, f) in formats.iter().take(num_entries as usize).enumerate() {
                *image_formats.add(i) = *f;
            }
        }
        set(num_image_formats, formats.len() as cl_uint);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetImageInfo(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        // "CL_INVALID_MEM_OBJECT if image is a not a valid image object."
        let mem = handles::image(image)?;
        let img = mem.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)?;
        let [height, depth, array_size] = img.reported_dims();
        let answer = match param_name {
            CL_IMAGE_FORMAT => info::array(&[img.format]),
            CL_IMAGE_ELEMENT_SIZE => info::size(img.element_size()),
            CL_IMAGE_ROW_PITCH => info::size(img.layout.row_pitch),
            CL_IMAGE_SLICE_PITCH => info::size(img.reported_slice_pitch()),
            CL_IMAGE_WIDTH => info::size(img.dims.width),
            CL_IMAGE_HEIGHT => info::size(height),
            CL_IMAGE_DEPTH => info::size(depth),
            CL_IMAGE_ARRAY_SIZE => info::size(array_size),
            // "Return buffer object associated with image" (NULL when it was not made from one).
            CL_IMAGE_BUFFER => info::ptr(
                mem.parent
                    .as_ref()
                    .filter(|p| p.mem_type == CL_MEM_OBJECT_BUFFER)
                    .map_or(std::ptr::null(), |p| Arc::as_ptr(p) as *const c_void),
            ),
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => info::uint(0),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

// ---------------------------------------------------------------------------------------------
// Host commands
// ---------------------------------------------------------------------------------------------

/// The image part of a memory object found by `handles::image`.
pub(super) fn image_of(mem: &Mem) -> ClResult<&Image> {
    mem.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
}

/// An origin and region of an image command: "CL_INVALID_VALUE if origin or region is NULL",
/// then `Image::check_region`.
pub(super) unsafe fn image_box(
    img: &Image,
    origin: *const usize,
    region: *const usize,
) -> ClResult<([usize; 3], [usize; 3])> {
    let origin = triple(origin)?;
    let region = triple(region)?;
    img.check_region(origin, region)?;
    Ok((origin, region))
}

/// clEnqueueReadImage and clEnqueueWriteImage.
#[allow(clippy::too_many_arguments)]
unsafe fn host_transfer(
    dir: Direction,
    queue: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult {
    handles::queue(queue)?;
    let mem = handles::image(image)?;
    let t = target(queue, &[&mem], num_events, wait_list)?;
    let img = image_of(&mem)?;
    let (origin, region) = image_box(img, origin, region)?;
    let host = img.host_rect(region, row_pitch, slice_pitch)?;
    // "CL_INVALID_VALUE if ptr is NULL."
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let command = match dir {
        Direction::Read => {
            check_host_read(&mem)?;
            CL_COMMAND_READ_IMAGE
        }
        Direction::Write => {
            check_host_write(&mem)?;
            CL_COMMAND_WRITE_IMAGE
        }
    };
    let (pixels, bytes) = (img.rect(origin), img.byte_region(region));
    let host_ptr = HostPtr(ptr as *mut u8);
    let work = Box::new(move || {
        // SAFETY: the image side is checked; the host side is the application's promise.
        unsafe {
            match dir {
                Direction::Read => rect::copy(mem.base(), pixels, host_ptr.get(), host, bytes),
                Direction::Write => rect::copy(host_ptr.get(), host, mem.base(), pixels, bytes),
            }
        }
        Ok(())
    });
    complete_enqueue(t.queue.enqueue(command, t.deps, work), event, blocking != CL_FALSE)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        host_transfer(
            Direction::Read,
            command_queue,
            image,
            blocking_read,
            origin,
            region,
            row_pitch,
            slice_pitch,
            ptr,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        host_transfer(
            Direction::Write,
            command_queue,
            image,
            blocking_write,
            origin,
            region,
            input_row_pitch,
            input_slice_pitch,
            ptr,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        handles::queue(command_queue)?;
        let src = handles::image(src_image)?;
        let dst = handles::image(dst_image)?;
        let t = target(command_queue, &[&src, &dst], num_events_in_wait_list, event_wait_list)?;
        let (s, d) = (image_of(&src)?, image_of(&dst)?);
        // "CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image
        // format."
        if (s.format.image_channel_order, s.format.image_channel_data_type)
            != (d.format.image_channel_order, d.format.image_channel_data_type)
        {
            return Err(CL_IMAGE_FORMAT_MISMATCH);
        }
        let (s_origin, region) = image_box(s, src_origin, region)?;
        let d_origin = triple(dst_origin)?;
        d.check_region(d_origin, region)?;
        // "CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and the
        // source and destination regions overlap."
        if Arc::ptr_eq(&src, &dst)
            && (0..3).all(|i| s_origin[i] < d_origin[i] + region[i] && d_origin[i] < s_origin[i] + region[i])
        {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let (from, to, bytes) = (s.rect(s_origin), d.rect(d_origin), s.byte_region(region));
        let work = Box::new(move || {
            // SAFETY: both boxes checked; equal formats give equal row lengths.
            unsafe { rect::copy(src.base(), from, dst.base(), to, bytes) };
            Ok(())
        });
        complete_enqueue(t.queue.enqueue(CL_COMMAND_COPY_IMAGE, t.deps, work), event, false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        handles::queue(command_queue)?;
        let mem = handles::image(image)?;
        let t = target(command_queue, &[&mem], num_events_in_wait_list, event_wait_list)?;
        let img = image_of(&mem)?;
        // "CL_INVALID_VALUE if fill_color is NULL."
        if fill_color.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (origin, region) = image_box(img, origin, region)?;
        // "The fill color is a single floating-point value if the channel order is CL_DEPTH.
        // Otherwise, the fill color is a four component RGBA floating-point color value ...
        // signed integer value ... unsigned integer value": 4 or 16 bytes to read.
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
        let work = Box::new(move || {
            if let Some(img) = mem.image.as_ref() {
                // SAFETY: the box is checked against this image.
                unsafe { image::fill(img, mem.base(), origin, region, &texel) };
            }
            Ok(())
        });
        complete_enqueue(t.queue.enqueue(CL_COMMAND_FILL_IMAGE, t.deps, work), event, false)
    })
}

/// Which way clEnqueueCopyImageToBuffer / clEnqueueCopyBufferToImage go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Between {
    ImageToBuffer,
    BufferToImage,
}

/// clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage: the buffer side is the region
/// packed tightly at `offset` ("dst_cb" / "src_cb").
#[allow(clippy::too_many_arguments)]
unsafe fn copy_between(
    way: Between,
    queue: cl_command_queue,
    image: cl_mem,
    buffer: cl_mem,
    origin: *const usize,
    region: *const usize,
    offset: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> ClResult {
    handles::queue(queue)?;
    let img_mem = handles::image(image)?;
    let buf = handles::buffer(buffer)?;
    let t = target(queue, &[&img_mem, &buf], num_events, wait_list)?;
    // "CL_INVALID_MEM_OBJECT if src_image is a 1D image buffer object created from
    // dst_buffer" (and the converse).
    if img_mem.mem_type == CL_MEM_OBJECT_IMAGE1D_BUFFER && img_mem.parent.as_ref().is_some_and(|p| Arc::ptr_eq(p, &buf))
    {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let img = image_of(&img_mem)?;
    let (origin, region) = image_box(img, origin, region)?;
    // "CL_INVALID_VALUE if the region specified by dst_offset and dst_cb is out of bounds of
    // dst_buffer" (src_offset and src_cb for the other way).
    let (size, packed) = img.packed(region, offset).ok_or(CL_INVALID_VALUE)?;
    if offset.checked_add(size).is_none_or(|end| end > buf.size) {
        return Err(CL_INVALID_VALUE);
    }
    let (pixels, bytes) = (img.rect(origin), img.byte_region(region));
    let command = match way {
        Between::ImageToBuffer => CL_COMMAND_COPY_IMAGE_TO_BUFFER,
        Between::BufferToImage => CL_COMMAND_COPY_BUFFER_TO_IMAGE,
    };
    let work = Box::new(move || {
        // SAFETY: both sides are checked against their objects.
        unsafe {
            match way {
                Between::ImageToBuffer => rect::copy(img_mem.base(), pixels, buf.base(), packed, bytes),
                Between::BufferToImage => rect::copy(buf.base(), packed, img_mem.base(), pixels, bytes),
            }
        }
        Ok(())
    });
    complete_enqueue(t.queue.enqueue(command, t.deps, work), event, false)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        copy_between(
            Between::ImageToBuffer,
            command_queue,
            src_image,
            dst_buffer,
            src_origin,
            region,
            dst_offset,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        copy_between(
            Between::BufferToImage,
            command_queue,
            dst_image,
            src_buffer,
            dst_origin,
            region,
            src_offset,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    guard_object(errcode_ret, || {
        handles::queue(command_queue)?;
        let mem = handles::image(image)?;
        let t = target(command_queue, &[&mem], num_events_in_wait_list, event_wait_list)?;
        let img = image_of(&mem)?;
        let (origin, region) = image_box(img, origin, region)?;
        check_map_flags(&mem, map_flags)?;
        // "CL_INVALID_VALUE if image_row_pitch is NULL", "if image is a 1D or 2D image array
        // object and image_slice_pitch is NULL", "if image is a 3D and image_slice_pitch is
        // NULL".
        let needs_slice = img.reported_slice_pitch() != 0;
        if image_row_pitch.is_null() || needs_slice && image_slice_pitch.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // The mapped region is the image's own bytes (for CL_MEM_USE_HOST_PTR, "derived from
        // the host_ptr").
        let pixels = img.rect(origin);
        let start = pixels.offset(0, 0);
        let end = pixels.end(img.byte_region(region)).ok_or(CL_INVALID_VALUE)?;
        let ptr = mem.base().wrapping_add(start);
        // "CL_INVALID_OPERATION if mapping would lead to overlapping regions being mapped for
        // writing."
        let mapping = Mapping {
            ptr: ptr as usize,
            offset: start,
            size: end - start,
            flags: map_flags,
            pixels: Some((origin, region)),
        };
        if !mem.add_mapping(mapping) {
            return Err(CL_INVALID_OPERATION);
        }
        let ev = t.queue.enqueue(CL_COMMAND_MAP_IMAGE, t.deps, Box::new(|| Ok(())));
        if let Err(code) = complete_enqueue(ev, event, blocking_map != CL_FALSE) {
            mem.remove_mapping(ptr as usize);
            return Err(code);
        }
        // "For a 1D and 2D image, zero is returned if this argument is not NULL."
        set(image_row_pitch, img.layout.row_pitch);
        set(image_slice_pitch, img.reported_slice_pitch());
        Ok(ptr as *mut c_void)
    })
}
