//! Running an ND-range (API section 5.10, OpenCL C "work-item functions"): the geometry of the
//! range, the choice of a local size when the application gives none, and the launch of every
//! work-group on the worker pool.

use crate::context::Context;
use crate::device::Device;
use crate::kernel::BoundArgs;
use crate::workers;
use jit::abi::{PrintfSink, WorkGroupContext};
use jit::codegen;
use jit::fault::Fault;
use opencl_sys::{cl_int, CL_OUT_OF_RESOURCES};
use std::sync::{Arc, Mutex};

/// The geometry of one enqueue. Unused dimensions have size 1 and offset 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NDRange {
    pub work_dim: u32,
    pub offset: [u64; 3],
    pub global: [u64; 3],
    pub local: [u64; 3],
}

impl NDRange {
    /// Work-groups per dimension; the last one of a dimension may be partial.
    pub fn num_groups(&self) -> [u64; 3] {
        std::array::from_fn(|d| self.global[d].div_ceil(self.local[d].max(1)))
    }

    pub fn is_empty(&self) -> bool {
        self.global.contains(&0)
    }

    /// The context of the group with the given linear index (x fastest).
    fn group(
        &self,
        linear: usize,
        local_mem: *mut u8,
        printf: *mut std::ffi::c_void,
        host_shared: bool,
    ) -> WorkGroupContext {
        let mut ctx = WorkGroupContext {
            work_dim: self.work_dim,
            host_shared: host_shared as u32,
            global_offset: self.offset,
            global_size: self.global,
            local_size: self.local,
            enqueued_local_size: self.local,
            num_groups: self.num_groups(),
            group_id: [0; 3],
            local_mem,
            printf,
        };
        ctx.set_group(linear as u64);
        ctx
    }
}

/// A local size for a range the application left to Clift: groups of up to `target` items
/// that divide the global size exactly (so any kernel can run them), with enough groups to
/// keep every worker busy.
pub fn choose_local_size(work_dim: u32, global: [u64; 3], max_group: u64, threads: u64, partial_ok: bool) -> [u64; 3] {
    let largest_divisor = |n: u64, limit: u64| {
        (1..=limit.min(n).max(1))
            .rev()
            .find(|d| n.is_multiple_of(*d))
            .unwrap_or(1)
    };
    let target = 256.min(max_group);
    let mut local = [1u64; 3];
    let mut budget = target;
    for d in 0..work_dim as usize {
        local[d] = largest_divisor(global[d], budget);
        // A range whose size has only small divisors (a prime, 16Mi - 1000 = 8 x 2097027)
        // would run as a multitude of tiny groups; where the program allows non-uniform
        // work-groups, full-size groups and a smaller last one cost far less.
        if partial_ok && local[d] < budget / 4 && global[d] > local[d] {
            local[d] = budget.min(global[d]);
        }
        budget /= local[d];
    }
    // Keep at least a few groups per worker while the groups stay reasonably large.
    loop {
        let groups: u64 = (0..3).map(|d| global[d].div_ceil(local[d])).product();
        let items: u64 = local.iter().product();
        if groups >= 4 * threads || items <= 16 {
            break;
        }
        let d = (0..3).max_by_key(|&d| local[d]).unwrap_or(0);
        if local[d] <= 1 {
            break;
        }
        local[d] = if partial_ok && !global[d].is_multiple_of(local[d]) {
            local[d] / 2
        } else {
            largest_divisor(global[d], local[d] - 1)
        };
    }
    local
}

/// Stack a work-group function needs: the kernel's private memory (one work-item's at a time:
/// the generated loops reuse it) and room for spills and helper calls.
pub fn stack_need(private_mem_size: usize) -> usize {
    private_mem_size.saturating_add(STACK_MARGIN)
}

/// Stack beyond private memory that a work-group function may use.
const STACK_MARGIN: usize = 128 << 10;

/// Why an ND-range failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A work-group's code raised a hardware fault (the first one seen); the groups not
    /// started by then did not run.
    Fault { fault: Fault, group: [u64; 3] },
    /// A runtime helper panicked (say, an allocation for the group's state failed).
    Panic,
    /// The range ran past its time limit (`CLIFT_KERNEL_TIMEOUT_MS`) and was stopped.
    Stopped(std::time::Duration),
}

/// Runs every work-group of `range` and returns when all are done or one failed. What the
/// kernel printed is written to standard output before this returns, that is before the
/// command completes.
pub fn run(device: &Device, kernel: Arc<codegen::Kernel>, args: BoundArgs, range: NDRange) -> Result<(), Failure> {
    if range.is_empty() {
        return Ok(());
    }
    let groups = range.num_groups().iter().product::<u64>() as usize;
    let arena = args.local_size;
    let kernel_stack = kernel.private_mem_size;
    let sink = Arc::new(PrintfSink::default());
    let printed = sink.clone();
    let first_fault: Arc<Mutex<Option<Failure>>> = Arc::default();
    let faults = first_fault.clone();
    let body = move |groups: std::ops::Range<usize>, local_mem: *mut u8, halted: &dyn Fn() -> bool| {
        let mut ctx = range.group(
            groups.start,
            local_mem,
            Arc::as_ptr(&sink) as *mut std::ffi::c_void,
            args.host_shared,
        );
        // SAFETY: the argument block was laid out for this kernel by `Kernel::bind`, its
        // buffers are alive (held by `args`), the arena has `args.local_size` bytes and the
        // sink outlives the range. What the kernel does with them is its own affair: a fault
        // in its code ends the group (`jit::fault`).
        let result = unsafe { kernel.try_run_groups(args.block.as_ptr(), &mut ctx, groups.len(), halted) };
        let _ = (&args.buffers, &args.svm);
        match result {
            Ok(()) => true,
            // Stopped by the watchdog: the outcome of the range says so.
            Err(fault) if fault.interrupted() => false,
            Err(fault) => {
                let mut first = faults.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(Failure::Fault {
                    fault,
                    group: ctx.group_id,
                });
                false
            }
        }
    };
    let stack = stack_need(kernel_stack);
    let limit = crate::watchdog::time_limit();
    let outcome = workers::run(&device.workers(), groups, arena, stack, limit, Box::new(body));
    let text = printed.take();
    if !text.is_empty() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&text);
        let _ = out.flush();
    }
    let first = *first_fault.lock().unwrap_or_else(|e| e.into_inner());
    match (outcome, limit) {
        (workers::Outcome::Done, _) => Ok(()),
        (workers::Outcome::Stopped, Some(limit)) if first.is_none() => Err(Failure::Stopped(limit)),
        _ => Err(first.unwrap_or(Failure::Panic)),
    }
}

/// Runs `range` as the work of an ND-range command. A failure ends the command with
/// `CL_OUT_OF_RESOURCES` (the status GPU drivers give a kernel that faulted) and is reported
/// once through the context's `pfn_notify`, naming the kernel, the work-group and the address.
pub fn run_command(
    context: &Context,
    device: &Device,
    kernel: Arc<codegen::Kernel>,
    args: BoundArgs,
    range: NDRange,
) -> Result<(), cl_int> {
    let name = kernel.name.clone();
    match run(device, kernel, args, range) {
        Ok(()) => Ok(()),
        Err(failure) => {
            context.report(&failure_message(&name, &failure));
            Err(CL_OUT_OF_RESOURCES)
        }
    }
}

/// The `pfn_notify` text of a failed ND-range.
pub fn failure_message(kernel: &str, failure: &Failure) -> String {
    let what = match failure {
        Failure::Fault { fault, group } => format!(
            "faulted in work-group ({}, {}, {}): {fault}; its other work-groups were skipped",
            group[0], group[1], group[2]
        ),
        Failure::Panic => "failed in a runtime helper".to_string(),
        Failure::Stopped(limit) => format!(
            "ran past its time limit of {} ms (CLIFT_KERNEL_TIMEOUT_MS) and was stopped",
            limit.as_millis()
        ),
    };
    format!("Clift: kernel \"{kernel}\" {what}; the command ended with CL_OUT_OF_RESOURCES")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_sizes_divide_the_range() {
        for g in [1u64, 7, 64, 1000, 1 << 20, 999_983] {
            let l = choose_local_size(1, [g, 1, 1], 4096, 2, false);
            assert_eq!(g % l[0], 0, "{g}");
            assert!(l[0] <= 256);
        }
        let l = choose_local_size(2, [1024, 768, 1], 4096, 2, false);
        assert!(1024 % l[0] == 0 && 768 % l[1] == 0 && l[0] * l[1] <= 256);
    }

    /// With non-uniform groups allowed, a size with only small divisors gets full-size groups
    /// and a partial last one; sizes with a good divisor keep it.
    #[test]
    fn non_uniform_sizes_avoid_tiny_groups() {
        let l = choose_local_size(1, [(1 << 24) - 1000, 1, 1], 4096, 2, true);
        assert_eq!(l[0], 246, "a good divisor is kept");
        let l = choose_local_size(1, [999_983, 1, 1], 4096, 2, true);
        assert_eq!(l[0], 256);
        let l = choose_local_size(1, [1 << 20, 1, 1], 4096, 2, true);
        assert_eq!(l[0], 256);
        let l = choose_local_size(1, [1000, 1, 1], 4096, 2, true);
        assert_eq!(1000 % l[0], 0, "1000 has good divisors: {l:?}");
        let l = choose_local_size(1, [10, 1, 1], 4096, 2, true);
        assert!(l[0] <= 10);
    }

    #[test]
    fn partial_last_group() {
        let r = NDRange {
            work_dim: 1,
            offset: [0; 3],
            global: [10, 1, 1],
            local: [4, 1, 1],
        };
        assert_eq!(r.num_groups(), [3, 1, 1]);
        assert_eq!(
            r.group(2, std::ptr::null_mut(), std::ptr::null_mut(), false).local_size,
            [2, 1, 1]
        );
    }
}
