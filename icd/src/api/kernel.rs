//! Kernel objects (API section 5.9) and their execution (section 5.10).

use super::event::complete_enqueue;
use crate::guard::{guard, guard_object, set, slice, write_info, ClResult};
use crate::handles;
use jit::abi::ArgKind;
use opencl_sys::*;
use runtime::info;
use runtime::kernel::{ArgValue, Kernel};
use runtime::ndrange::{self, NDRange};
use runtime::object::{lookup, publish, release, retain, ClObject};
use runtime::program::Program;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

/// The most per-work-item state (spill records, fiber stacks) one work-group may need.
const MAX_GROUP_STATE: u64 = 1 << 30;

pub(crate) fn kernel(handle: cl_kernel) -> ClResult<Arc<Kernel>> {
    lookup::<Kernel>(handle as _).ok_or(CL_INVALID_KERNEL)
}

fn program(handle: cl_program) -> ClResult<Arc<Program>> {
    lookup::<Program>(handle as _).ok_or(CL_INVALID_PROGRAM)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateKernel(
    p: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    guard_object(errcode_ret, || {
        let prog = program(p)?;
        // "CL_INVALID_VALUE if kernel_name is NULL."
        if kernel_name.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for
        // program."
        let exe = prog.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let name = CStr::from_ptr(kernel_name).to_string_lossy();
        // "CL_INVALID_KERNEL_NAME if kernel_name is not found in program."
        let compiled = exe.kernel(&name).ok_or(CL_INVALID_KERNEL_NAME)?;
        Ok(publish(Arc::new(Kernel::new(prog, compiled))) as cl_kernel)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateKernelsInProgram(
    p: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        let exe = prog.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let all = exe.kernels();
        // "CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number of
        // kernels in program."
        if !kernels.is_null() {
            if (num_kernels as usize) < all.len() {
                return Err(CL_INVALID_VALUE);
            }
            for (i, k) in all.iter().enumerate() {
                *kernels.add(i) = publish(Arc::new(Kernel::new(prog.clone(), k.clone()))) as cl_kernel;
            }
        }
        set(num_kernels_ret, all.len() as cl_uint);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainKernel(k: cl_kernel) -> cl_int {
    guard(|| retain::<Kernel>(k as _).ok_or(CL_INVALID_KERNEL))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseKernel(k: cl_kernel) -> cl_int {
    guard(|| release::<Kernel>(k as _).ok_or(CL_INVALID_KERNEL))
}

#[no_mangle]
pub unsafe extern "C" fn clCloneKernel(source_kernel: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel {
    guard_object(errcode_ret, || {
        let k = kernel(source_kernel)?;
        Ok(publish(Arc::new(k.clone_kernel())) as cl_kernel)
    })
}

/// An image argument of clSetKernelArg: "CL_INVALID_ARG_SIZE if arg_value points to a memory
/// object and arg_size != sizeof(cl_mem)"; "CL_INVALID_MEM_OBJECT if arg_value is NULL ...,
/// points to NULL ..., or does not point to a valid memory object" (an image);
/// "CL_INVALID_CONTEXT if the context associated with kernel and an OpenCL object pointed to by
/// arg_value are not the same"; CL_INVALID_MEM_OBJECT for an image of another type than the
/// parameter's; "CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only
/// qualifier and arg_value points to an image object created with the memory flag
/// CL_MEM_WRITE_ONLY", and the converse for write_only.
///
/// # Safety
/// `arg_value` must be NULL or point at a `cl_mem`.
unsafe fn image_arg(k: &Kernel, arg_index: cl_uint, arg_size: usize, arg_value: *const c_void) -> ClResult<ArgValue> {
    if arg_size != std::mem::size_of::<cl_mem>() {
        return Err(CL_INVALID_ARG_SIZE);
    }
    if arg_value.is_null() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let mem = handles::image(*(arg_value as *const cl_mem))?;
    if !Arc::ptr_eq(&mem.context, &k.program.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    let info = k.program.arg_info(k.name()).into_iter().nth(arg_index as usize);
    // "If the kernel argument is a 2D image, then the image memory object must be of image
    // type CL_MEM_OBJECT_IMAGE2D", ..., "If the kernel argument is a 2D depth image, then the
    // image memory object must be of image type CL_MEM_OBJECT_IMAGE2D and image channel order
    // CL_DEPTH": else "the memory object is not valid for the kernel argument".
    if let Some((image_type, depth)) = info.as_ref().and_then(|a| a.image) {
        let order = mem.image.as_ref().map(|i| i.format.image_channel_order);
        if mem.mem_type != image_type || depth && order != Some(CL_DEPTH) {
            return Err(CL_INVALID_MEM_OBJECT);
        }
    }
    let access = info.map_or(CL_KERNEL_ARG_ACCESS_NONE, |a| a.access);
    let forbidden = match access {
        CL_KERNEL_ARG_ACCESS_READ_ONLY => CL_MEM_WRITE_ONLY,
        CL_KERNEL_ARG_ACCESS_WRITE_ONLY => CL_MEM_READ_ONLY,
        _ => 0,
    };
    if mem.flags & forbidden != 0 {
        return Err(CL_INVALID_ARG_VALUE);
    }
    Ok(ArgValue::Image(Arc::downgrade(&mem)))
}

#[no_mangle]
pub unsafe extern "C" fn clSetKernelArg(
    k: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    guard(|| {
        let k = kernel(k)?;
        let value = arg_value_of(&k, arg_index, arg_size, arg_value)?;
        k.set_arg(arg_index as usize, value);
        Ok(())
    })
}

/// The value clSetKernelArg would set, with its errors (also used by the mutable dispatch of
/// command-buffers, whose argument updates return "the errors defined by clSetKernelArg").
///
/// # Safety
/// `arg_value` must be NULL or valid for `arg_size` bytes.
pub(crate) unsafe fn arg_value_of(
    k: &Kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> ClResult<ArgValue> {
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
    let desc = k.arg(arg_index as usize).ok_or(CL_INVALID_ARG_INDEX)?.clone();
    let value = match desc.kind {
        ArgKind::Global | ArgKind::Constant => {
            // "CL_INVALID_ARG_SIZE if ... the argument is a memory object and arg_size !=
            // sizeof(cl_mem)".
            if arg_size != std::mem::size_of::<cl_mem>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // A NULL arg_value or a NULL cl_mem sets a NULL pointer.
            let handle = if arg_value.is_null() {
                std::ptr::null_mut()
            } else {
                *(arg_value as *const cl_mem)
            };
            if handle.is_null() {
                ArgValue::Buffer(None)
            } else {
                // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when
                // the specified arg_value is not a valid memory object."
                let mem = handles::buffer(handle)?;
                if !Arc::ptr_eq(&mem.context, &k.program.context) {
                    return Err(CL_INVALID_MEM_OBJECT);
                }
                ArgValue::Buffer(Some(Arc::downgrade(&mem)))
            }
        }
        ArgKind::Local => {
            // "CL_INVALID_ARG_VALUE if the argument is declared with the local qualifier
            // and arg_value is not NULL"; "CL_INVALID_ARG_SIZE if ... arg_size is zero and
            // the argument is declared with the local qualifier".
            if !arg_value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            if arg_size == 0 {
                return Err(CL_INVALID_ARG_SIZE);
            }
            ArgValue::Local(arg_size)
        }
        ArgKind::Value => {
            // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value";
            // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type".
            if arg_value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            if arg_size != desc.size {
                return Err(CL_INVALID_ARG_SIZE);
            }
            ArgValue::Bytes(std::slice::from_raw_parts(arg_value as *const u8, arg_size).to_vec())
        }
        ArgKind::Image => image_arg(k, arg_index, arg_size, arg_value)?,
        ArgKind::Pipe => {
            // "CL_INVALID_ARG_SIZE if arg_value points to a memory object and arg_size is not
            // equal to sizeof(cl_mem)".
            if arg_size != std::mem::size_of::<cl_mem>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // "CL_INVALID_MEM_OBJECT if arg_value is NULL [or points to NULL] and it must
            // point to a valid memory object ... if arg_value points to a valid memory object,
            // but the memory object is not valid for the kernel argument": a pipe argument
            // takes a pipe object and nothing else.
            if arg_value.is_null() {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            let mem = handles::mem(*(arg_value as *const cl_mem))?;
            if mem.mem_type != CL_MEM_OBJECT_PIPE {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            // "CL_INVALID_CONTEXT if the context associated with kernel and an OpenCL object
            // pointed to by arg_value are not the same".
            if !Arc::ptr_eq(&mem.context, &k.program.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            ArgValue::Buffer(Some(Arc::downgrade(&mem)))
        }
        ArgKind::Sampler => {
            // "CL_INVALID_ARG_SIZE if arg_value points to a sampler object and arg_size is
            // not equal to sizeof(cl_sampler)"; "CL_INVALID_SAMPLER if the kernel argument
            // is a sampler, but arg_value does not point to a valid sampler object".
            if arg_size != std::mem::size_of::<cl_sampler>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            if arg_value.is_null() {
                return Err(CL_INVALID_SAMPLER);
            }
            let sampler = handles::sampler(*(arg_value as *const cl_sampler))?;
            if !Arc::ptr_eq(&sampler.context, &k.program.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            ArgValue::Sampler(sampler.bits())
        }
    };
    Ok(value)
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelInfo(
    k: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let k = kernel(k)?;
        let answer = match param_name {
            CL_KERNEL_FUNCTION_NAME => info::string(k.name()),
            CL_KERNEL_NUM_ARGS => info::uint(k.compiled.args.len() as cl_uint),
            CL_KERNEL_REFERENCE_COUNT => info::uint(k.header().ref_count()),
            CL_KERNEL_CONTEXT => info::ptr(Arc::as_ptr(&k.program.context) as *const c_void),
            CL_KERNEL_PROGRAM => info::ptr(Arc::as_ptr(&k.program) as *const c_void),
            CL_KERNEL_ATTRIBUTES => info::string(&k.program.kernel_attributes(k.name())),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// The device of a per-device kernel query: "CL_INVALID_DEVICE if device is not in the list of
/// devices associated with kernel or if device is NULL but there is more than one device
/// associated with kernel."
pub(crate) fn kernel_device(k: &Kernel, device_id: cl_device_id) -> ClResult<&'static runtime::device::Device> {
    match (device_id.is_null(), k.program.devices.as_slice()) {
        (true, [only]) => Ok(only),
        (true, _) => Err(CL_INVALID_DEVICE),
        (false, devices) => {
            let d = handles::device(device_id)?;
            devices
                .iter()
                .copied()
                .find(|x| std::ptr::eq(*x, d))
                .ok_or(CL_INVALID_DEVICE)
        }
    }
}

/// The largest work-group a kernel accepts (CL_KERNEL_WORK_GROUP_SIZE).
pub(crate) fn max_group(k: &Kernel) -> usize {
    let device_max = runtime::device::device().max_work_group_size();
    match k.compiled.reqd_work_group_size {
        Some(r) => r.iter().map(|&x| x as usize).product::<usize>().min(device_max),
        None => device_max,
    }
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    k: cl_kernel,
    device_id: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let k = kernel(k)?;
        kernel_device(&k, device_id)?;
        let answer = match param_name {
            CL_KERNEL_WORK_GROUP_SIZE => info::size(max_group(&k)),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                let r = k.compiled.reqd_work_group_size.unwrap_or([0; 3]);
                info::array(&r.map(|x| x as usize))
            }
            CL_KERNEL_LOCAL_MEM_SIZE => info::ulong(k.local_mem_size() as cl_ulong),
            // The SIMD width, but never more than the kernel's largest group.
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                info::size(runtime::device::PREFERRED_WORK_GROUP_SIZE_MULTIPLE.min(max_group(&k)))
            }
            CL_KERNEL_PRIVATE_MEM_SIZE => info::ulong(k.compiled.private_mem_size as cl_ulong),
            // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a
            // custom device and kernel is not a built-in kernel."
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelArgInfo(
    k: cl_kernel,
    arg_indx: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let k = kernel(k)?;
        // "CL_INVALID_ARG_INDEX if arg_indx is not a valid argument index."
        k.arg(arg_indx as usize).ok_or(CL_INVALID_ARG_INDEX)?;
        let arg = k
            .program
            .arg_info(k.name())
            .into_iter()
            .nth(arg_indx as usize)
            .unwrap_or_default();
        // "CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available for
        // kernel": names need an OpName, type names and qualifiers the translator's strings.
        let missing = Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        let answer = match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => info::uint(arg.address),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => info::uint(arg.access),
            CL_KERNEL_ARG_TYPE_NAME => arg.type_name.as_deref().map_or(missing, info::string),
            // cl_kernel_arg_type_qualifier is a cl_bitfield (64 bits) in cl.h.
            CL_KERNEL_ARG_TYPE_QUALIFIER => arg.type_qualifier.map_or(missing, |q| info::ulong(q as cl_ulong)),
            CL_KERNEL_ARG_NAME => arg.name.as_deref().map_or(missing, info::string),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// Reads up to `work_dim` sizes; unused dimensions get `fill`.
unsafe fn dims(p: *const usize, work_dim: usize, fill: u64) -> Option<[u64; 3]> {
    let s = slice(p, work_dim)?;
    let mut out = [fill; 3];
    for (o, v) in out.iter_mut().zip(s) {
        *o = *v as u64;
    }
    Some(out)
}

/// The ND-range arguments of clEnqueueNDRangeKernel as given, before a local size is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub work_dim: cl_uint,
    pub offset: [u64; 3],
    pub global: [u64; 3],
    /// `None`: the application left the local size to Clift.
    pub local: Option<[u64; 3]>,
}

/// Reads the ND-range arguments: "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value
/// (i.e. a value between 1 and CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)", "CL_INVALID_GLOBAL_OFFSET
/// if the value specified in global_work_size + the corresponding values in
/// global_work_offset for any dimensions is greater than the maximum value representable by
/// size_t".
///
/// # Safety
/// Each pointer must be NULL or valid for `work_dim` elements.
pub(crate) unsafe fn read_geometry(
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
) -> ClResult<Geometry> {
    if !(1..=3).contains(&work_dim) {
        return Err(CL_INVALID_WORK_DIMENSION);
    }
    let n = work_dim as usize;
    // OpenCL 2.1+: a NULL or zero global size enqueues nothing (the command still completes).
    let global = if global.is_null() {
        [0; 3]
    } else {
        dims(global, n, 1).ok_or(CL_INVALID_VALUE)?
    };
    let offset = if offset.is_null() {
        [0; 3]
    } else {
        dims(offset, n, 0).ok_or(CL_INVALID_VALUE)?
    };
    let g = Geometry {
        work_dim,
        offset,
        global,
        local: if local.is_null() {
            None
        } else {
            Some(dims(local, n, 1).ok_or(CL_INVALID_VALUE)?)
        },
    };
    check_offset(&g)?;
    Ok(g)
}

/// "CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size + the corresponding
/// values in global_work_offset for any dimensions is greater than the maximum value
/// representable by size_t."
pub(crate) fn check_offset(g: &Geometry) -> ClResult {
    if (0..3).any(|d| {
        g.offset[d]
            .checked_add(g.global[d])
            .is_none_or(|end| end > usize::MAX as u64)
    }) {
        return Err(CL_INVALID_GLOBAL_OFFSET);
    }
    Ok(())
}

/// The range a launch of `k` runs: the local size given (checked) or chosen.
pub(crate) fn resolve_range(k: &Kernel, device: &runtime::device::Device, g: &Geometry) -> ClResult<NDRange> {
    let reqd = k.compiled.reqd_work_group_size.map(|r| r.map(|x| x as u64));
    let local = match g.local {
        None => match reqd {
            Some(r) => r,
            None => ndrange::choose_local_size(
                g.work_dim,
                g.global.map(|x| x.max(1)),
                max_group(k) as u64,
                device.compute_units() as u64,
                !k.program.requires_uniform_work_groups(),
            ),
        },
        Some(l) => {
            // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is not NULL and ... the total
            // number of work-items in the work-group is zero / greater than
            // CL_KERNEL_WORK_GROUP_SIZE / does not match the required work-group size."
            let items: u64 = l.iter().product();
            if items == 0 {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // "CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any dimension
            // of local_work_size is greater than the corresponding
            // CL_DEVICE_MAX_WORK_ITEM_SIZES."
            if l.iter().any(|&x| x > runtime::device::MAX_WORK_GROUP_SIZE as u64) {
                return Err(CL_INVALID_WORK_ITEM_SIZE);
            }
            if items > max_group(k) as u64 || reqd.is_some_and(|r| r != l) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // "... if the work-group size must be uniform, and if the global_work_size is not
            // evenly divisible by the local_work_size."
            if k.program.requires_uniform_work_groups() && (0..3).any(|d| !g.global[d].is_multiple_of(l[d])) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            l
        }
    };
    // "The total number of global work-items is computed as global_work_size[0] x ... x
    // global_work_size[work_dim - 1]": a total that size_t cannot represent (nor
    // get_global_linear_id) is refused like a size that size_t cannot represent, instead of
    // a range whose work-group count wraps to nothing.
    if g.global.iter().try_fold(1u64, |n, &x| n.checked_mul(x)).is_none() {
        k.program
            .context
            .report("Clift: clEnqueueNDRangeKernel: the global work size's product exceeds size_t");
        return Err(CL_INVALID_GLOBAL_WORK_SIZE);
    }
    Ok(NDRange {
        work_dim: g.work_dim,
        offset: g.offset,
        global: g.global,
        local,
    })
}

/// The resources a launch needs beyond its arguments: local memory, the stack of a
/// work-item's private memory, per-work-item state of kernels with barriers.
pub(crate) fn check_resources(
    k: &Kernel,
    device: &runtime::device::Device,
    args: &runtime::kernel::BoundArgs,
    range: &NDRange,
) -> ClResult {
    if args.local_size as u64 > device.local_mem_size() {
        return Err(CL_OUT_OF_RESOURCES);
    }
    // "CL_OUT_OF_RESOURCES if there is a failure to allocate resources required by the OpenCL
    // implementation on the device": a work-item's private memory lives on the stack of the
    // thread that runs it (a worker thread, or a fiber for kernels on the fiber fallback).
    let stack = ndrange::stack_need(k.compiled.private_mem_size);
    let limit = match k.compiled.barrier_strategy {
        jit::codegen::BarrierStrategy::Fibers => jit::codegen::driver::FIBER_STACK,
        _ => runtime::workers::WORKER_STACK,
    };
    if stack > limit {
        return Err(CL_OUT_OF_RESOURCES);
    }
    // Per-work-item state of kernels with barriers (spill records or fiber stacks) for one
    // work-group at a time per thread.
    let items: u64 = range.local.iter().product();
    if (k.compiled.per_work_item_memory() as u64).saturating_mul(items) > MAX_GROUP_STATE {
        return Err(CL_OUT_OF_RESOURCES);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
unsafe fn enqueue_kernel(
    queue: cl_command_queue,
    k: cl_kernel,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
    command_type: cl_command_type,
) -> ClResult {
    let q = handles::queue(queue)?;
    let k = kernel(k)?;
    // "CL_INVALID_CONTEXT if the context associated with command_queue and kernel are not the
    // same."
    if !Arc::ptr_eq(&q.context, &k.program.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    let deps = handles::wait_list(num_events, wait_list, &q.context)?;
    let geometry = read_geometry(work_dim, offset, global, local)?;
    let device = q.device;
    let range = resolve_range(&k, device, &geometry)?;
    // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified."
    let args = k.bind().ok_or(CL_INVALID_KERNEL_ARGS)?;
    check_resources(&k, device, &args, &range)?;
    let compiled = k.launch_kernel(&args);
    let context = q.context.clone();
    let work = Box::new(move || ndrange::run_command(&context, device, compiled, args, range));
    complete_enqueue(q.enqueue(command_type, deps, work), event, false)
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    k: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        enqueue_kernel(
            command_queue,
            k,
            work_dim,
            global_work_offset,
            global_work_size,
            local_work_size,
            num_events_in_wait_list,
            event_wait_list,
            event,
            CL_COMMAND_NDRANGE_KERNEL,
        )
    })
}

/// A single work-item: work_dim 1, global and local size 1.
#[no_mangle]
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    k: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one: usize = 1;
    guard(|| {
        enqueue_kernel(
            command_queue,
            k,
            1,
            std::ptr::null(),
            &one,
            &one,
            num_events_in_wait_list,
            event_wait_list,
            event,
            CL_COMMAND_TASK,
        )
    })
}

/// cl_khr_suggested_local_work_size: the local size an enqueue of `kernel` with this range and
/// a NULL local size would use (`resolve_range`, the choice clEnqueueNDRangeKernel makes).
#[no_mangle]
pub unsafe extern "C" fn clGetKernelSuggestedLocalWorkSizeKHR(
    command_queue: cl_command_queue,
    k: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    suggested_local_work_size: *mut usize,
) -> cl_int {
    guard(|| {
        // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue";
        // "CL_INVALID_KERNEL if kernel is not a valid kernel"; "CL_INVALID_CONTEXT if the
        // context associated with command_queue and kernel are not the same".
        let q = handles::queue(command_queue)?;
        let k = kernel(k)?;
        if !Arc::ptr_eq(&q.context, &k.program.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        // "CL_INVALID_KERNEL_ARGS if any kernel arguments for kernel have not been set."
        let args = k.bind().ok_or(CL_INVALID_KERNEL_ARGS)?;
        if !(1..=3).contains(&work_dim) {
            return Err(CL_INVALID_WORK_DIMENSION);
        }
        // "CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL, if any of the values
        // specified in global_work_size[0], ... global_work_size[work_dim - 1] are zero".
        let global = dims(global_work_size, work_dim as usize, 1).ok_or(CL_INVALID_GLOBAL_WORK_SIZE)?;
        if global.contains(&0) {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        // "CL_INVALID_VALUE if suggested_local_work_size is NULL."
        if suggested_local_work_size.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let g = read_geometry(work_dim, global_work_offset, global_work_size, std::ptr::null())?;
        let range = resolve_range(&k, q.device, &g)?;
        check_resources(&k, q.device, &args, &range)?;
        for d in 0..work_dim as usize {
            *suggested_local_work_size.add(d) = range.local[d] as usize;
        }
        Ok(())
    })
}
