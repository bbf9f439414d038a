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
        serial: bool,
    ) -> WorkGroupContext {
        let mut ctx = WorkGroupContext {
            work_dim: self.work_dim,
            host_shared: host_shared as u32,
            serial: serial as u32,
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

/// Work-items a coalesced work-group aims at (`coalesce`).
const COALESCED_ITEMS: u64 = 256;

/// Work-items along x a coalesced work-group aims at: the vector loop runs four consecutive
/// work-items of a row at a time (two quads for some loops), so a group one work-item wide
/// (local size 1 x 1 x 1024) leaves three of its four lanes idle.
const COALESCED_ROW: u64 = 8;

/// For a kernel that cannot tell work-groups apart (`Kernel::group_blind`): `range` with
/// consecutive work-groups run as one, and how many per dimension (`span`). They are merged
/// along the first dimension with more than one group (the groups of the dimensions below it
/// span them whole, so merged groups stay boxes of the range). Small groups (an application's
/// local size of 1, or one forced by a prime global size) then cost one work-group function
/// call per `k` of them and fill the vector loop; the kernel computes the same global ids
/// either way. The last group of that dimension may come out partial, which every work-group
/// function handles (OpenCL 2.0 non-uniform work-groups). Groups narrower than
/// `COALESCED_ROW` along x are merged along x whatever their size. At least `4 * threads`
/// groups remain where the range had that many.
pub fn coalesce(range: NDRange, threads: u64) -> (NDRange, [u64; 3]) {
    let items: u64 = range.local.iter().product();
    let groups = range.num_groups();
    let total: u64 = groups.iter().product();
    let Some(d) = (0..3).find(|&d| groups[d] > 1) else {
        return (range, [1; 3]);
    };
    let others = total / groups[d];
    let keep = (4 * threads).min(total);
    let row = if d == 0 {
        COALESCED_ROW.div_ceil(range.local[0].max(1))
    } else {
        1
    };
    let mut k = (COALESCED_ITEMS / items.max(1)).max(row).clamp(1, groups[d]);
    while k > 1 && groups[d].div_ceil(k) * others < keep {
        k -= 1;
    }
    let mut merged = range;
    merged.local[d] *= k;
    let mut span = [1; 3];
    span[d] = k;
    (merged, span)
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
    /// `span[d]` work-groups from `group` on along each dimension `d` ran as one
    /// (`coalesce`); the fault was in one of them.
    Fault {
        fault: Fault,
        group: [u64; 3],
        span: [u64; 3],
    },
    /// A runtime helper panicked (say, an allocation for the group's state failed).
    Panic,
    /// The range ran past its time limit (`CLIFT_KERNEL_TIMEOUT_MS`) and was stopped.
    Stopped(std::time::Duration),
}

/// How the work-groups of a range are spread over the worker threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spread {
    /// Over every worker; atomics on global memory are atomic instructions.
    Parallel,
    /// One after the other on one thread, with nothing else of the range running meanwhile:
    /// the kernel's atomics are plain loads and stores (`WorkGroupContext::serial`).
    /// Work-groups of one range have no forward-progress guarantee towards each other, so
    /// any order is a valid execution.
    Serial,
}

/// Ranges with fewer work-groups run in parallel without a probe (`probe_spread`).
const PROBE_MIN_GROUPS: usize = 4;

/// A probe group that ran shorter than this (timed on its worker, without the dispatch) says
/// nothing about the kernel's atomics (timer and cache noise): the range runs in parallel.
const PROBE_MIN_TIME: std::time::Duration = std::time::Duration::from_micros(20);

/// How the rest of a range whose first two groups ran as a probe is spread: the first with
/// plain atomics (`plain`), the second with atomic instructions (`atomic`), each alone. A
/// group whose atomics dominate its time (the Khronos CTS's c11_atomics kernels, 10,000
/// exchanges per work-item on one word) runs several times longer with atomic instructions,
/// and contended across threads longer still; where one thread with plain atomics is faster
/// than `threads` threads with atomic instructions (`plain * threads < atomic`) the range runs
/// serially. Kernels whose atomics are a small part of their work take the same time both
/// ways and keep every worker.
fn probe_spread(plain: std::time::Duration, atomic: std::time::Duration, threads: usize) -> Spread {
    if plain < PROBE_MIN_TIME || threads < 2 {
        return Spread::Parallel;
    }
    if plain.saturating_mul(threads as u32) < atomic {
        Spread::Serial
    } else {
        Spread::Parallel
    }
}

/// `CLIFT_SPREAD=serial` or `=parallel`: the ranges that would be probed run that way
/// without a probe (tests and measurements). Read once per process.
fn forced_spread() -> Option<Spread> {
    static FORCED: std::sync::OnceLock<Option<Spread>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| match std::env::var("CLIFT_SPREAD").ok()?.as_str() {
        "serial" => Some(Spread::Serial),
        "parallel" => Some(Spread::Parallel),
        _ => None,
    })
}

/// Runs every work-group of `range` and returns when all are done or one failed. What the
/// kernel printed is written to standard output before this returns, that is before the
/// command completes.
///
/// A kernel with atomics on global memory (`Kernel::shared_atomics`) in a range of at least
/// `PROBE_MIN_GROUPS` groups first runs two groups alone as a probe (`probe_spread`), which
/// decides how the others run.
pub fn run(device: &Device, kernel: Arc<codegen::Kernel>, args: BoundArgs, range: NDRange) -> Result<(), Failure> {
    if range.is_empty() {
        return Ok(());
    }
    let pool = device.workers();
    let (range, span) = if kernel.group_blind && kernel.reqd_work_group_size.is_none() {
        coalesce(range, pool.parallel() as u64)
    } else {
        (range, [1; 3])
    };
    let groups = range.num_groups().iter().product::<u64>() as usize;
    let arena = args.local_size;
    let kernel_stack = kernel.private_mem_size;
    let probe = kernel.shared_atomics && groups >= PROBE_MIN_GROUPS;
    let sink = Arc::new(PrintfSink::default());
    let printed = sink.clone();
    let first_fault: Arc<Mutex<Option<Failure>>> = Arc::default();
    let faults = first_fault.clone();
    // Nanoseconds the probe's groups ran, timed around the group itself on its worker: the
    // dispatch around it (waking a worker, tens of microseconds) says nothing about atomics.
    let ran_ns = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let ran = ran_ns.clone();
    // Groups `first + r` for the `r` a worker takes, or with `serial` all of `first..end` at
    // the first call.
    let run_part = Arc::new(
        move |groups: std::ops::Range<usize>, local_mem: *mut u8, halted: &dyn Fn() -> bool, serial: bool| {
            let mut ctx = range.group(
                groups.start,
                local_mem,
                Arc::as_ptr(&sink) as *mut std::ffi::c_void,
                args.host_shared,
                serial,
            );
            // SAFETY: the argument block was laid out for this kernel by `Kernel::bind`, its
            // buffers are alive (held by `args`), the arena has `args.local_size` bytes and the
            // sink outlives the range. What the kernel does with them is its own affair: a fault
            // in its code ends the group (`jit::fault`).
            let t = probe.then(std::time::Instant::now);
            let result = unsafe { kernel.try_run_groups(args.block.as_ptr(), &mut ctx, groups.len(), halted) };
            if let Some(t) = t {
                ran.fetch_add(t.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
            }
            let _ = (&args.buffers, &args.svm);
            match result {
                Ok(()) => true,
                // Stopped by the watchdog: the outcome of the range says so.
                Err(fault) if fault.interrupted() => false,
                Err(fault) => {
                    let mut first = faults.lock().unwrap_or_else(|e| e.into_inner());
                    let [x, y, z] = ctx.group_id;
                    first.get_or_insert(Failure::Fault {
                        fault,
                        group: [x * span[0], y * span[1], z * span[2]],
                        span,
                    });
                    false
                }
            }
        },
    );
    let stack = stack_need(kernel_stack);
    let limit = crate::watchdog::time_limit();
    let started = std::time::Instant::now();
    // Runs groups `first..end` spread as asked; the time limit counts from the range's start.
    let part = |first: usize, end: usize, spread: Spread| {
        let run_part = run_part.clone();
        let left = limit.map(|l| l.saturating_sub(started.elapsed()));
        let (count, body): (usize, Box<workers::GroupFn>) = match spread {
            Spread::Parallel => (
                end - first,
                Box::new(
                    move |r: std::ops::Range<usize>, mem: *mut u8, halted: &dyn Fn() -> bool| {
                        run_part(first + r.start..first + r.end, mem, halted, false)
                    },
                ),
            ),
            Spread::Serial => (
                1,
                Box::new(
                    move |_: std::ops::Range<usize>, mem: *mut u8, halted: &dyn Fn() -> bool| {
                        run_part(first..end, mem, halted, true)
                    },
                ),
            ),
        };
        workers::run(&pool, count, arena, stack, left, body)
    };
    let outcome = if let Some(spread) = probe.then(forced_spread).flatten() {
        part(0, groups, spread)
    } else if probe {
        let timed = |first: usize, spread: Spread| {
            ran_ns.store(0, std::sync::atomic::Ordering::Relaxed);
            let outcome = part(first, first + 1, spread);
            let ns = ran_ns.load(std::sync::atomic::Ordering::Relaxed);
            (outcome, std::time::Duration::from_nanos(ns))
        };
        let (o0, plain) = timed(0, Spread::Serial);
        let (o1, atomic) = if o0 == workers::Outcome::Done {
            timed(1, Spread::Parallel)
        } else {
            (o0, Default::default())
        };
        if o1 == workers::Outcome::Done {
            part(2, groups, probe_spread(plain, atomic, pool.parallel().min(groups - 2)))
        } else {
            o1
        }
    } else {
        part(0, groups, Spread::Parallel)
    };
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
        Failure::Fault { fault, group, span } if span == &[1; 3] => format!(
            "faulted in work-group ({}, {}, {}): {fault}; its other work-groups were skipped",
            group[0], group[1], group[2]
        ),
        Failure::Fault { fault, group, span } => {
            let at = |d: usize| match span[d] {
                1 => group[d].to_string(),
                n => format!("{}..{}", group[d], group[d] + n - 1),
            };
            format!(
                "faulted in one of the work-groups ({}, {}, {}), which ran as one: {fault}; its other work-groups were skipped",
                at(0),
                at(1),
                at(2)
            )
        }
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
    fn probe_spread_goes_serial_only_where_atomics_dominate() {
        let us = std::time::Duration::from_micros;
        // Atomic instructions 4x slower than plain ones: one thread beats two, not eight.
        assert_eq!(probe_spread(us(100), us(400), 2), Spread::Serial);
        assert_eq!(probe_spread(us(100), us(400), 8), Spread::Parallel);
        // A kernel whose atomics cost little keeps every worker.
        assert_eq!(probe_spread(us(100), us(110), 2), Spread::Parallel);
        assert_eq!(probe_spread(us(100), us(200), 2), Spread::Parallel);
        // Too short to tell, or a single thread anyway.
        assert_eq!(probe_spread(us(5), us(500), 2), Spread::Parallel);
        assert_eq!(probe_spread(us(100), us(400), 1), Spread::Parallel);
    }

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

    /// Groups run together cover the same work-items, keep enough groups for the workers and
    /// leave larger groups alone.
    #[test]
    fn coalesced_ranges_cover_the_same_work_items() {
        let range = |global: [u64; 3], local: [u64; 3]| NDRange {
            work_dim: 3,
            offset: [0; 3],
            global,
            local,
        };
        let (r, k) = coalesce(range([1 << 24, 1, 1], [1, 1, 1]), 2);
        assert_eq!((r.local, k), ([256, 1, 1], [256, 1, 1]));
        // 997 groups (a prime): 8 groups for two workers, the last one partial.
        let (r, k) = coalesce(range([997, 1, 1], [1, 1, 1]), 2);
        assert_eq!((k, r.num_groups()), ([142, 1, 1], [8, 1, 1]), "{r:?}");
        assert_eq!(
            r.group(7, std::ptr::null_mut(), std::ptr::null_mut(), false, false)
                .local_size,
            [3, 1, 1]
        );
        // Non-uniform groups of 3.
        let (r, k) = coalesce(range([1000, 1, 1], [3, 1, 1]), 2);
        assert_eq!(r.global, [1000, 1, 1]);
        assert!(k[0] > 1 && r.num_groups()[0] >= 8, "{r:?}");
        // Few groups: every worker keeps some.
        let (r, k) = coalesce(range([16, 1, 1], [1, 1, 1]), 2);
        assert_eq!((k, r.num_groups()), ([2, 1, 1], [8, 1, 1]));
        let (_, k) = coalesce(range([6, 1, 1], [1, 1, 1]), 2);
        assert_eq!(k, [1; 3]);
        // Groups in the other dimensions count too; large groups stay.
        let (r, k) = coalesce(range([64, 64, 1], [1, 1, 1]), 2);
        assert_eq!((r.local, k), ([64, 1, 1], [64, 1, 1]));
        assert_eq!(coalesce(range([4096, 1, 1], [256, 1, 1]), 2).1, [1; 3]);
        // Narrow groups widen along x even when they are large.
        let (r, k) = coalesce(range([1023, 1024, 1024], [1, 1, 1024]), 2);
        assert_eq!((r.local, k), ([8, 1, 1024], [8, 1, 1]));
        let (r, k) = coalesce(range([64, 64, 1], [2, 32, 1]), 2);
        assert_eq!((r.local, k), ([8, 32, 1], [4, 1, 1]));
        assert_eq!(coalesce(range([64, 64, 1], [8, 32, 1]), 2).1, [1; 3]);
        // One group along x: merged along the next dimension with several.
        let (r, k) = coalesce(range([1, 1, 1 << 25], [1, 1, 1]), 2);
        assert_eq!((r.local, k), ([1, 1, 256], [1, 1, 256]));
        let (r, k) = coalesce(range([4, 1000, 3], [4, 1, 1]), 2);
        assert_eq!((r.local, k), ([4, 64, 1], [1, 64, 1]));
    }

    /// The report of a fault in groups that ran as one names them all.
    #[test]
    fn fault_messages_name_the_groups_run_together() {
        let fault = Fault {
            signal: libc::SIGSEGV,
            code: 1,
            address: 0x10,
            pc: 0x1000,
        };
        let one = failure_message(
            "k",
            &Failure::Fault {
                fault,
                group: [3, 4, 5],
                span: [1; 3],
            },
        );
        assert!(one.contains("faulted in work-group (3, 4, 5):"), "{one}");
        let merged = failure_message(
            "k",
            &Failure::Fault {
                fault,
                group: [0, 0, 512],
                span: [1, 1, 256],
            },
        );
        assert!(
            merged.contains("work-groups (0, 0, 512..767), which ran as one"),
            "{merged}"
        );
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
            r.group(2, std::ptr::null_mut(), std::ptr::null_mut(), false, false)
                .local_size,
            [2, 1, 1]
        );
    }
}
