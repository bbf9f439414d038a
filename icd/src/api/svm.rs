//! Shared virtual memory (API section 5.6) and the kernel entry points that take SVM pointers
//! (section 5.9.2). The memory side lives in `runtime::svm`: on a CPU every SVM pointer is a
//! host pointer, so the commands here copy, fill or free host memory in queue order, and map,
//! unmap and migrate only order the queue.
//!
//! Each check carries the clause of the specification it implements. Pointers the
//! specification does not require to be valid are never dereferenced on the caller's thread.

use super::event::complete_enqueue;
use crate::guard::{guard, slice, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::context::Context;
use runtime::event::Event;
use runtime::kernel::ArgValue;
use runtime::memory::HostPtr;
use runtime::queue::Queue;
use runtime::svm;
use std::ffi::c_void;
use std::sync::Arc;

/// The context identity the SVM registry keeps.
fn context_id(ctx: &Arc<Context>) -> usize {
    Arc::as_ptr(ctx) as usize
}

/// True when every device of `ctx` has all of `caps`.
fn context_has(ctx: &Context, caps: cl_device_svm_capabilities) -> bool {
    !ctx.devices.is_empty() && ctx.devices.iter().all(|d| d.svm_capabilities() & caps == caps)
}

// ---------------------------------------------------------------------------------------------
// Allocation [5.6.1]
// ---------------------------------------------------------------------------------------------

/// [5.6.1]: clSVMAlloc "returns a NULL pointer value" when it fails, with no error code: for
/// an invalid context, a context whose devices do not support SVM, flags outside the SVM
/// memory flags table (two access flags, `CL_MEM_SVM_ATOMICS` without
/// `CL_MEM_SVM_FINE_GRAIN_BUFFER`, unknown bits), fine-grain or atomics flags some device does
/// not support, "size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE value for any device in
/// context", "alignment is not a power of two or the OpenCL implementation cannot support the
/// specified alignment", or no memory. The reason goes to the context's `pfn_notify`.
#[no_mangle]
pub unsafe extern "C" fn clSVMAlloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    let result = std::panic::catch_unwind(|| {
        let ctx = handles::context(context).ok()?;
        if !context_has(&ctx, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
            return None;
        }
        let mut needed = 0;
        if flags & CL_MEM_SVM_FINE_GRAIN_BUFFER != 0 {
            needed |= CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
        }
        if flags & CL_MEM_SVM_ATOMICS != 0 {
            needed |= CL_DEVICE_SVM_ATOMICS;
        }
        if !context_has(&ctx, needed) {
            ctx.report("Clift: clSVMAlloc: a device of the context does not support the fine-grain or atomics flags");
            return None;
        }
        let max = ctx.devices.iter().map(|d| d.max_mem_alloc_size()).min().unwrap_or(0);
        match svm::allocate(context_id(&ctx), flags, size, alignment as usize, max, ctx.numa_node()) {
            Ok(ptr) => Some(ptr as *mut c_void),
            Err(why) => {
                ctx.report(&format!("Clift: clSVMAlloc returned NULL: {why}"));
                None
            }
        }
    });
    result.ok().flatten().unwrap_or(std::ptr::null_mut())
}

/// [5.6.1]: "If a NULL pointer is passed in svm_pointer, no action occurs"; svm_pointer "must
/// be the value returned by a call to clSVMAlloc" for `context`: anything else (a pointer
/// into the middle of an allocation, another context's allocation, a pointer not from
/// clSVMAlloc) is undefined by the spec and ignored here. The memory is given back once the
/// commands and buffers that still use it are done with it.
#[no_mangle]
pub unsafe extern "C" fn clSVMFree(context: cl_context, svm_pointer: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        if svm_pointer.is_null() {
            return;
        }
        let owner = handles::context(context).ok().map(|c| context_id(&c));
        svm::free(svm_pointer as usize, owner);
    });
}

// ---------------------------------------------------------------------------------------------
// Commands [5.6.2]
// ---------------------------------------------------------------------------------------------

/// The checks every SVM command starts with: "CL_INVALID_COMMAND_QUEUE if command_queue is not
/// a valid host command-queue", "CL_INVALID_OPERATION if the device associated with
/// command_queue does not support SVM".
fn svm_queue(command_queue: cl_command_queue) -> ClResult<Arc<Queue>> {
    let queue = handles::queue(command_queue)?;
    if !queue.device.supports_svm() {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(queue)
}

/// "CL_INVALID_CONTEXT if the context associated with command_queue and events in
/// event_wait_list are not the same", "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL
/// and num_events_in_wait_list > 0, or event_wait_list is not NULL and
/// num_events_in_wait_list is 0, or if event objects in event_wait_list are not valid events".
unsafe fn deps(queue: &Queue, num_events: cl_uint, wait_list: *const cl_event) -> ClResult<Vec<Arc<Event>>> {
    handles::wait_list(num_events, wait_list, &queue.context)
}

/// The free function of clEnqueueSVMFree.
type FreeFn = unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void);

/// What a clEnqueueSVMFree command carries to the command thread.
struct FreeRequest {
    queue: usize,
    pointers: Vec<usize>,
    callback: Option<(FreeFn, usize)>,
    context: usize,
}

impl FreeRequest {
    fn run(mut self) {
        match self.callback {
            Some((func, user_data)) => {
                let mut ptrs: Vec<*mut c_void> = self.pointers.iter().map(|&p| p as *mut c_void).collect();
                // SAFETY: the application registered this callback to free these pointers;
                // the array is ours and lives across the call.
                unsafe {
                    func(
                        self.queue as cl_command_queue,
                        ptrs.len() as cl_uint,
                        ptrs.as_mut_ptr(),
                        user_data as *mut c_void,
                    )
                };
            }
            None => {
                for p in self.pointers.drain(..) {
                    svm::free(p, Some(self.context));
                }
            }
        }
    }
}

/// [5.6.2]: "CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is non-NULL, or if
/// svm_pointers is NULL and num_svm_pointers is not 0". Without `pfn_free_func` every pointer
/// must come from clSVMAlloc; those that do not are left alone (undefined by the spec).
#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMFree(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<FreeFn>,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let queue = svm_queue(command_queue)?;
        if (num_svm_pointers == 0) != svm_pointers.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let deps = deps(&queue, num_events_in_wait_list, event_wait_list)?;
        // The list is copied now: "the memory associated with svm_pointers can be reused or
        // freed after the function returns".
        let pointers: Vec<usize> = slice(svm_pointers as *const *mut c_void, num_svm_pointers as usize)
            .unwrap_or(&[])
            .iter()
            .map(|&p| p as usize)
            .collect();
        let request = FreeRequest {
            queue: command_queue as usize,
            pointers,
            callback: pfn_free_func.map(|f| (f, user_data as usize)),
            context: context_id(&queue.context),
        };
        let work = Box::new(move || {
            request.run();
            Ok(())
        });
        complete_enqueue(queue.enqueue(CL_COMMAND_SVM_FREE, deps, work), event, false)
    })
}

/// [5.6.2]: "CL_INVALID_VALUE if dst_ptr is NULL" or "src_ptr is NULL", "CL_MEM_COPY_OVERLAP if
/// the values specified for dst_ptr, src_ptr and size result in an overlapping copy". Either
/// side may be SVM memory or any host memory (fine-grain system SVM).
#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    command_queue: cl_command_queue,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let queue = svm_queue(command_queue)?;
        let deps = deps(&queue, num_events_in_wait_list, event_wait_list)?;
        if dst_ptr.is_null() || src_ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (d, s) = (dst_ptr as usize, src_ptr as usize);
        if d.checked_add(size).is_none() || s.checked_add(size).is_none() {
            return Err(CL_INVALID_VALUE);
        }
        if size > 0 && d < s + size && s < d + size {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let held = svm::hold([d, s]);
        let (dst, src) = (HostPtr(dst_ptr as *mut u8), HostPtr(src_ptr as *mut u8));
        let work = Box::new(move || {
            // SAFETY: the application promises both ranges are valid until the command
            // completes; SVM allocations among them are held alive by `held`.
            unsafe { std::ptr::copy_nonoverlapping(src.get(), dst.get(), size) };
            drop(held);
            Ok(())
        });
        complete_enqueue(
            queue.enqueue(CL_COMMAND_SVM_MEMCPY, deps, work),
            event,
            blocking_copy != CL_FALSE,
        )
    })
}

/// [5.6.2]: "CL_INVALID_VALUE if svm_ptr is NULL", "if svm_ptr is not aligned to pattern_size
/// bytes", "if pattern is NULL", "if pattern_size is zero", "if pattern_size is not a power of
/// two", "if pattern_size is greater than 128", "if size is not a multiple of pattern_size".
#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let queue = svm_queue(command_queue)?;
        let deps = deps(&queue, num_events_in_wait_list, event_wait_list)?;
        if svm_ptr.is_null()
            || pattern.is_null()
            || pattern_size == 0
            || !pattern_size.is_power_of_two()
            || pattern_size > 128
            || !(svm_ptr as usize).is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
            || (svm_ptr as usize).checked_add(size).is_none()
        {
            return Err(CL_INVALID_VALUE);
        }
        // The pattern is copied now: the application may reuse its memory once this returns.
        let bytes = slice(pattern as *const u8, pattern_size)
            .ok_or(CL_INVALID_VALUE)?
            .to_vec();
        let held = svm::hold([svm_ptr as usize]);
        let dst = HostPtr(svm_ptr as *mut u8);
        let work = Box::new(move || {
            // SAFETY: the application promises the range is valid until the command
            // completes; an SVM allocation is held alive by `held`.
            let out = unsafe { std::slice::from_raw_parts_mut(dst.get(), size) };
            runtime::memory::fill_pattern(out, &bytes);
            drop(held);
            Ok(())
        });
        complete_enqueue(queue.enqueue(CL_COMMAND_SVM_MEMFILL, deps, work), event, false)
    })
}

/// [5.6.2]: "CL_INVALID_VALUE if svm_ptr is NULL", "if size is zero", "if values specified in
/// map_flags are not valid". The region is host memory already: the command only orders the
/// queue ("the region is already mapped in the host address space").
#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMap(
    command_queue: cl_command_queue,
    blocking_map: cl_bool,
    flags: cl_map_flags,
    svm_ptr: *mut c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let queue = svm_queue(command_queue)?;
        let deps = deps(&queue, num_events_in_wait_list, event_wait_list)?;
        let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        if svm_ptr.is_null()
            || size == 0
            || flags & !known != 0
            || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        complete_enqueue(
            queue.enqueue(CL_COMMAND_SVM_MAP, deps, Box::new(|| Ok(()))),
            event,
            blocking_map != CL_FALSE,
        )
    })
}

/// [5.6.2]: "CL_INVALID_VALUE if svm_ptr is NULL".
#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMUnmap(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let queue = svm_queue(command_queue)?;
        let deps = deps(&queue, num_events_in_wait_list, event_wait_list)?;
        if svm_ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        complete_enqueue(
            queue.enqueue(CL_COMMAND_SVM_UNMAP, deps, Box::new(|| Ok(()))),
            event,
            false,
        )
    })
}

/// [5.6.2]: "CL_INVALID_VALUE if num_svm_pointers is zero", "if svm_pointers is NULL", "if
/// flags is not zero and is not a valid combination" of the migration flags, "if sizes[i] is
/// non-zero and the memory range described by svm_pointers[i] and sizes[i] is not contained
/// within an SVM allocation returned by clSVMAlloc". One memory serves host and device: the
/// command only orders the queue.
#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *const c_void,
    sizes: *const usize,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let queue = svm_queue(command_queue)?;
        let deps = deps(&queue, num_events_in_wait_list, event_wait_list)?;
        if num_svm_pointers == 0 || svm_pointers.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let n = num_svm_pointers as usize;
        let ptrs = slice(svm_pointers as *const *const c_void, n).ok_or(CL_INVALID_VALUE)?;
        let lens = if sizes.is_null() {
            None
        } else {
            Some(slice(sizes, n).ok_or(CL_INVALID_VALUE)?)
        };
        for (i, &p) in ptrs.iter().enumerate() {
            let len = lens.map_or(0, |l| l[i]);
            if len != 0 && !svm::find(p as usize).is_some_and(|a| a.contains(p as usize, len)) {
                return Err(CL_INVALID_VALUE);
            }
        }
        complete_enqueue(
            queue.enqueue(CL_COMMAND_SVM_MIGRATE_MEM, deps, Box::new(|| Ok(()))),
            event,
            false,
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Kernels [5.9.2]
// ---------------------------------------------------------------------------------------------

/// "CL_INVALID_OPERATION if no devices in the context associated with kernel support SVM":
/// checked right after the kernel handle (needed to find the context), before the other
/// arguments (issue 13 item 6: the CTS's consistency_svm expects it first).
fn kernel_svm(kernel: cl_kernel) -> ClResult<Arc<runtime::kernel::Kernel>> {
    let k = super::kernel::kernel(kernel)?;
    if !k.program.context.devices.iter().any(|d| d.supports_svm()) {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(k)
}

/// [5.9.2]: "CL_INVALID_KERNEL if kernel is not a valid kernel object", "CL_INVALID_OPERATION
/// if no devices in the context associated with kernel support SVM", "CL_INVALID_ARG_INDEX if
/// arg_index is not a valid argument index", "CL_INVALID_ARG_VALUE if arg_value specified is
/// not a valid value": "The SVM pointer can only be used for arguments that are declared to be
/// a pointer to global or constant memory". Any address is a valid value there (fine-grain
/// system SVM), NULL included.
#[no_mangle]
pub unsafe extern "C" fn clSetKernelArgSVMPointer(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_value: *const c_void,
) -> cl_int {
    guard(|| set_svm_pointer(&*kernel_svm(kernel)?, arg_index, arg_value))
}

/// clSetKernelArgSVMPointer's checks and effect once the kernel and SVM support are known
/// (also what clUpdateMutableCommandsKHR does with its `arg_svm_list`).
pub(crate) fn set_svm_pointer(k: &runtime::kernel::Kernel, arg_index: cl_uint, arg_value: *const c_void) -> ClResult {
    let desc = k.arg(arg_index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
    if !matches!(desc.kind, jit::abi::ArgKind::Global | jit::abi::ArgKind::Constant) {
        return Err(CL_INVALID_ARG_VALUE);
    }
    k.set_arg(arg_index as usize, ArgValue::Svm(arg_value as usize));
    Ok(())
}

/// [5.9.2]: "CL_INVALID_KERNEL if kernel is a not a valid kernel object"; "CL_INVALID_OPERATION
/// if param_name is CL_KERNEL_EXEC_INFO_SVM_PTRS and no devices in the context associated with
/// kernel support SVM" (checked before the value, as the CTS expects); "CL_INVALID_OPERATION if
/// param_name is CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM and param_value is CL_TRUE and no
/// devices in the context associated with kernel support fine-grain system SVM allocations";
/// "CL_INVALID_VALUE if param_name is not valid, if param_value is NULL or if the size
/// specified by param_value_size is not valid". An empty `CL_KERNEL_EXEC_INFO_SVM_PTRS` set
/// is size 0 with a NULL value.
#[no_mangle]
pub unsafe extern "C" fn clSetKernelExecInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> cl_int {
    guard(|| set_exec_info(&*kernel_svm(kernel)?, param_name, param_value_size, param_value))
}

/// clSetKernelExecInfo's checks and effect once the kernel and SVM support are known (also
/// what clUpdateMutableCommandsKHR does with its `exec_info_list`).
///
/// # Safety
/// `param_value` points to `param_value_size` readable bytes (or is NULL).
pub(crate) unsafe fn set_exec_info(
    k: &runtime::kernel::Kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> ClResult {
    match param_name {
        CL_KERNEL_EXEC_INFO_SVM_PTRS => {
            let width = std::mem::size_of::<*const c_void>();
            if !param_value_size.is_multiple_of(width) || (param_value.is_null() && param_value_size != 0) {
                return Err(CL_INVALID_VALUE);
            }
            let ptrs = slice(param_value as *const *const c_void, param_value_size / width).unwrap_or(&[]);
            k.set_svm_ptrs(ptrs.iter().map(|&p| p as usize).collect());
            Ok(())
        }
        CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
            if param_value.is_null() || param_value_size != std::mem::size_of::<cl_bool>() {
                return Err(CL_INVALID_VALUE);
            }
            let on = *(param_value as *const cl_bool) != CL_FALSE;
            if on && !context_has(&k.program.context, CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) {
                return Err(CL_INVALID_OPERATION);
            }
            // Every host pointer is reachable from kernels either way.
            Ok(())
        }
        _ => Err(CL_INVALID_VALUE),
    }
}
