//! Native kernels (API section 5.10, clEnqueueNativeKernel): a host function run as a command
//! of the queue, in queue order and with events, on a worker thread of the queue's device (so
//! on a sub-device's own CPUs). The argument block is copied at enqueue, and the memory
//! objects it holds are replaced by their host addresses just before the call.

use super::event::complete_enqueue;
use crate::guard::{guard, slice, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::memory::Mem;
use std::ffi::c_void;
use std::sync::Arc;

type UserFunc = unsafe extern "C" fn(*mut c_void);

/// A memory object of `mem_list` and where its handle sits in the argument block.
struct MemArg {
    mem: Option<Arc<Mem>>,
    offset: usize,
}

/// The argument block, 16-byte aligned like any malloc'd structure the function expects.
struct ArgBlock(Vec<u128>);

impl ArgBlock {
    unsafe fn copy(args: *const c_void, cb_args: usize) -> ArgBlock {
        let mut block = vec![0u128; cb_args.div_ceil(16)];
        if cb_args > 0 {
            std::ptr::copy_nonoverlapping(args as *const u8, block.as_mut_ptr() as *mut u8, cb_args);
        }
        ArgBlock(block)
    }

    /// Writes each memory object's host address where the application stored its handle.
    fn patch(&mut self, mems: &[MemArg]) -> *mut c_void {
        let base = self.0.as_mut_ptr() as *mut u8;
        for m in mems {
            let address = m.mem.as_ref().map_or(std::ptr::null_mut(), |m| m.base() as *mut c_void);
            // SAFETY: `offset` was checked to leave room for a pointer inside the block.
            unsafe { std::ptr::write_unaligned(base.add(m.offset) as *mut *mut c_void, address) };
        }
        base as *mut c_void
    }
}

/// The memory objects and their places in `args`. "CL_INVALID_MEM_OBJECT if one or more
/// memory objects specified in mem_list are not valid or are not buffer objects" (NULL is
/// allowed); each place must hold a whole pointer inside the `cb_args` bytes of `args`.
unsafe fn mem_args(
    args: *const c_void,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: *const cl_mem,
    args_mem_loc: *const *const c_void,
) -> ClResult<Vec<MemArg>> {
    let n = num_mem_objects as usize;
    let mems = slice(mem_list, n).ok_or(CL_INVALID_VALUE)?;
    let locs = slice(args_mem_loc, n).ok_or(CL_INVALID_VALUE)?;
    let mut out = Vec::with_capacity(n);
    for (&m, &loc) in mems.iter().zip(locs) {
        let mem = if m.is_null() { None } else { Some(handles::buffer(m)?) };
        let offset = (loc as usize).wrapping_sub(args as usize);
        if (loc as usize) < (args as usize) || offset + std::mem::size_of::<*mut c_void>() > cb_args {
            return Err(CL_INVALID_VALUE);
        }
        out.push(MemArg { mem, offset });
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn clEnqueueNativeKernel(
    command_queue: cl_command_queue,
    user_func: Option<UserFunc>,
    args: *mut c_void,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: *const cl_mem,
    args_mem_loc: *mut *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    guard(|| {
        let q = handles::queue(command_queue)?;
        // "CL_INVALID_VALUE if user_func is NULL."
        let func = user_func.ok_or(CL_INVALID_VALUE)?;
        // "... if args is a NULL value and cb_args > 0, or if args is a NULL value and
        // num_mem_objects > 0"; "if args is not NULL and cb_args is 0".
        if args.is_null() && (cb_args > 0 || num_mem_objects > 0) || !args.is_null() && cb_args == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // "... if num_mem_objects > 0 and mem_list or args_mem_loc are NULL"; "if
        // num_mem_objects = 0 and mem_list or args_mem_loc are not NULL".
        let lists_given = !mem_list.is_null() && !args_mem_loc.is_null();
        let lists_absent = mem_list.is_null() && args_mem_loc.is_null();
        if (num_mem_objects > 0 && !lists_given) || (num_mem_objects == 0 && !lists_absent) {
            return Err(CL_INVALID_VALUE);
        }
        let mems = mem_args(args, cb_args, num_mem_objects, mem_list, args_mem_loc)?;
        let deps = handles::wait_list(num_events_in_wait_list, event_wait_list, &q.context)?;
        // "The data pointed to by args and cb_args bytes in size will be copied."
        let mut block = ArgBlock::copy(args, cb_args);
        let device = q.device;
        let work = Box::new(move || {
            let arg = block.patch(&mems) as usize;
            // One "work-group" on the device's workers, with a worker's full stack: the
            // function's stack need is unknown.
            let body = move |_: std::ops::Range<usize>, _: *mut u8, _: &dyn Fn() -> bool| {
                // SAFETY: the application enqueued this host function with this block.
                unsafe { func(arg as *mut c_void) };
                true
            };
            let pool = device.workers();
            let ran = runtime::workers::run(&pool, 1, 0, runtime::workers::WORKER_STACK, None, Box::new(body));
            drop(mems);
            if ran == runtime::workers::Outcome::Done {
                Ok(())
            } else {
                Err(CL_OUT_OF_RESOURCES)
            }
        });
        complete_enqueue(q.enqueue(CL_COMMAND_NATIVE_KERNEL, deps, work), event, false)
    })
}
