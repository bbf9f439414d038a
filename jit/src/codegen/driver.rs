//! The work-group driver: runs every work-item of one work-group. Most kernels run through
//! their generated work-group function (work-item loops inside the JIT code, see `group.rs`),
//! which gets the group's `WorkItem` state and, for kernels with barriers, a per-work-item
//! spill area kept per thread. The fallback runs one fiber (stackful coroutine) per
//! work-item, resumed round-robin, where a barrier suspends the fiber.

use crate::abi::WorkGroupContext;
use crate::fault::{self, Fault, Frame};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{RefCell, UnsafeCell};
use std::ffi::c_void;
use std::mem::offset_of;

/// Per-work-item state the generated code reads its builtins from (the Input-storage builtin
/// variables point into it) and passes to helpers.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct WorkItem {
    pub global_id: [u64; 3],
    pub local_id: [u64; 3],
    pub group_id: [u64; 3],
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
    pub enqueued_local_size: [u64; 3],
    pub num_groups: [u64; 3],
    pub global_offset: [u64; 3],
    pub work_dim: u32,
    pub host_shared: u32,
    pub global_linear_id: u64,
    pub local_linear_id: u64,
    pub local_mem: *mut u8,
    /// The fiber's yielder while running as a fiber, else null.
    pub fiber: *const c_void,
    pub ctx: *const WorkGroupContext,
    /// The argument block, and robust mode's zero and sink areas (`super::robust`).
    pub args: *const u8,
    pub rb_zero: u64,
    pub rb_sink: u64,
}

pub(crate) const OFF_GLOBAL_ID: usize = offset_of!(WorkItem, global_id);
pub(crate) const OFF_LOCAL_ID: usize = offset_of!(WorkItem, local_id);
pub(crate) const OFF_GROUP_ID: usize = offset_of!(WorkItem, group_id);
pub(crate) const OFF_GLOBAL_SIZE: usize = offset_of!(WorkItem, global_size);
pub(crate) const OFF_LOCAL_SIZE: usize = offset_of!(WorkItem, local_size);
pub(crate) const OFF_ENQ_LOCAL_SIZE: usize = offset_of!(WorkItem, enqueued_local_size);
pub(crate) const OFF_NUM_GROUPS: usize = offset_of!(WorkItem, num_groups);
pub(crate) const OFF_GLOBAL_OFFSET: usize = offset_of!(WorkItem, global_offset);
pub(crate) const OFF_WORK_DIM: usize = offset_of!(WorkItem, work_dim);
pub(crate) const OFF_HOST_SHARED: usize = offset_of!(WorkItem, host_shared);
pub(crate) const OFF_GLOBAL_LINEAR_ID: usize = offset_of!(WorkItem, global_linear_id);
pub(crate) const OFF_LOCAL_LINEAR_ID: usize = offset_of!(WorkItem, local_linear_id);
pub(crate) const OFF_LOCAL_MEM: usize = offset_of!(WorkItem, local_mem);
pub(crate) const OFF_ARGS: usize = offset_of!(WorkItem, args);
pub(crate) const OFF_RB_ZERO: usize = offset_of!(WorkItem, rb_zero);
pub(crate) const OFF_RB_SINK: usize = offset_of!(WorkItem, rb_sink);

/// The compiled per-work-item entry of the fiber fallback: `fn(args, work_item)`.
pub(crate) type EntryFn = unsafe extern "C" fn(*const u8, *mut WorkItem);

/// A compiled work-group function: `fn(args, work_item, spill)`.
pub(crate) type GroupFn = unsafe extern "C" fn(*const u8, *mut WorkItem, *mut u8);

/// How a kernel runs.
#[derive(Clone, Copy)]
pub(crate) enum Exec {
    /// A work-group function; `record` bytes of spill area per work-item (0: none).
    Group {
        f: GroupFn,
        record: usize,
    },
    Fibers(EntryFn),
}

impl WorkItem {
    fn for_group(ctx: &WorkGroupContext, args: *const u8) -> WorkItem {
        let (rb_zero, rb_sink) = scratch_areas();
        WorkItem {
            global_id: [0; 3],
            local_id: [0; 3],
            group_id: ctx.group_id,
            global_size: ctx.global_size,
            local_size: ctx.local_size,
            enqueued_local_size: ctx.enqueued_local_size,
            num_groups: ctx.num_groups,
            global_offset: ctx.global_offset,
            work_dim: ctx.work_dim,
            host_shared: ctx.host_shared,
            global_linear_id: 0,
            local_linear_id: 0,
            local_mem: ctx.local_mem,
            fiber: std::ptr::null(),
            ctx,
            args,
            rb_zero,
            rb_sink,
        }
    }

    #[inline(always)]
    fn set_local(&mut self, x: u64, y: u64, z: u64) {
        self.local_id = [x, y, z];
        for (d, l) in [x, y, z].into_iter().enumerate() {
            self.global_id[d] = self.group_id[d] * self.enqueued_local_size[d] + l + self.global_offset[d];
        }
        let gs = self.global_size;
        let go = self.global_offset;
        self.global_linear_id =
            ((self.global_id[2] - go[2]) * gs[1] + (self.global_id[1] - go[1])) * gs[0] + (self.global_id[0] - go[0]);
        self.local_linear_id = (z * self.local_size[1] + y) * self.local_size[0] + x;
    }
}

thread_local! {
    /// This thread's spill area for work-group functions with barriers (16-byte units).
    static SPILL: RefCell<Vec<u128>> = const { RefCell::new(Vec::new()) };
}

/// Runs `count` work-groups through their work-group function: the one `ctx` describes, then
/// the ones after it in linear order (`WorkGroupContext::next_group`), as long as `halted`
/// says no. On `Err`, `ctx` describes the group that faulted.
///
/// # Safety
/// `f` is compiled code for a kernel whose argument block is `args`; `record` is the spill
/// bytes per work-item it was compiled with.
pub(crate) unsafe fn run_group_fn(
    f: GroupFn,
    record: usize,
    args: *const u8,
    ctx: &mut WorkGroupContext,
    count: usize,
    halted: &dyn Fn() -> bool,
) -> Result<(), Fault> {
    let ctx: *mut WorkGroupContext = ctx;
    // SAFETY: `ctx` is valid (it came from a reference); the work-item keeps a pointer to it,
    // so it is changed between groups only through that same pointer.
    let mut wi = WorkItem::for_group(unsafe { &*ctx }, args);
    let mut frame = Frame::new();
    // Take the spill buffer out of the thread's slot while it is in use, so a nested use (none
    // is expected) would get its own. Every group of the run fits in the enqueued size.
    let mut buf = if record == 0 {
        Vec::new()
    } else {
        SPILL.with(|s| std::mem::take(&mut *s.borrow_mut()))
    };
    if record != 0 {
        let [x, y, z] = unsafe { (*ctx).enqueued_local_size };
        let units = ((x * y * z) as usize * record).div_ceil(16);
        if buf.len() < units {
            // The runtime bounds `units` at enqueue; should the allocation still fail, unwind
            // to the runtime (which fails the command) rather than abort the process.
            let mut fresh = Vec::new();
            if fresh.try_reserve_exact(units).is_err() {
                panic!("cannot allocate {} bytes of work-item spill area", units * 16);
            }
            fresh.resize(units, 0u128);
            buf = fresh;
        }
    }
    let spill = if record == 0 {
        std::ptr::null_mut()
    } else {
        buf.as_mut_ptr() as *mut u8
    };
    let wi_ptr: *mut WorkItem = &mut wi;
    let next = |i: usize| {
        if i == count || (i > 0 && halted()) {
            return None;
        }
        // SAFETY: no JIT code runs between the calls; `ctx` and `wi` are alive.
        unsafe {
            if i > 0 {
                let (id, size) = (*ctx).next_group();
                (*wi_ptr).group_id = id;
                (*wi_ptr).local_size = size;
            }
            if record != 0 {
                // Every work-item starts at state 0 (the kernel's entry).
                let [x, y, z] = (*ctx).local_size;
                for k in 0..(x * y * z) as usize {
                    (spill.add(k * record) as *mut u32).write(0);
                }
            }
        }
        Some((args as usize, wi_ptr as usize, spill as usize))
    };
    // SAFETY: `f` is a work-group function of signature (args, work item, spill area).
    let result = unsafe { fault::guarded_each(&mut frame, f as usize, next) };
    if record != 0 {
        // A fault leaves the spill area in any state; the next group starts every work-item
        // anew.
        if result.is_err() {
            reset_collectives();
        }
        SPILL.with(|s| {
            let mut slot = s.borrow_mut();
            if slot.len() < buf.len() {
                *slot = buf;
            }
        });
    }
    result
}

/// Stack of each work-item fiber; kernels needing more private memory are refused at enqueue.
pub const FIBER_STACK: usize = 256 * 1024;

thread_local! {
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

type Fiber<'s> = Coroutine<(), (), Result<(), Fault>, &'s mut DefaultStack>;

/// Runs all work-items of a group as fibers; barriers suspend. After a fault in one work-item
/// the others are not resumed: their fibers are discarded.
///
/// # Safety
/// As [`run_group_fn`].
pub(crate) unsafe fn run_fibers(entry: EntryFn, args: *const u8, ctx: &WorkGroupContext) -> Result<(), Fault> {
    let [lx, ly, lz] = ctx.local_size;
    let n = (lx * ly * lz) as usize;
    let base = WorkItem::for_group(ctx, args);
    let mut items: Vec<WorkItem> = Vec::with_capacity(n);
    for z in 0..lz {
        for y in 0..ly {
            for x in 0..lx {
                let mut wi = base;
                wi.set_local(x, y, z);
                items.push(wi);
            }
        }
    }
    // Take the stacks out of the pool so a nested use cannot alias them.
    let mut stacks: Vec<DefaultStack> = STACKS.with(|s| std::mem::take(&mut *s.borrow_mut()));
    while stacks.len() < n {
        match DefaultStack::new(FIBER_STACK) {
            Ok(s) => stacks.push(s),
            Err(_) => break,
        }
    }
    let items_ptr = items.as_mut_ptr();
    // One guard frame per fiber: a fiber suspended inside kernel code keeps its own.
    let mut frames: Vec<Frame> = (0..n).map(|_| Frame::new()).collect();
    let frames_ptr = frames.as_mut_ptr();
    let mut result = Ok(());
    {
        let mut fibers: Vec<Fiber<'_>> = Vec::with_capacity(n);
        for (i, stack) in stacks.iter_mut().take(n).enumerate() {
            let wi = unsafe { items_ptr.add(i) };
            let frame = unsafe { frames_ptr.add(i) };
            let f = move |y: &Yielder<(), ()>, _: ()| unsafe {
                (*wi).fiber = y as *const Yielder<(), ()> as *const c_void;
                fault::guarded(frame, entry as usize, args as usize, wi as usize, 0)
            };
            // SAFETY: the fiber borrows `items` and the stack, both outliving the loop below,
            // which drives every fiber to completion.
            fibers.push(unsafe { Coroutine::with_stack_unchecked(stack, f) });
        }
        let mut live = fibers.len();
        let mut done = vec![false; fibers.len()];
        'run: while live > 0 {
            for (i, f) in fibers.iter_mut().enumerate() {
                if done[i] {
                    continue;
                }
                let prev = fault::set_current(unsafe { frames_ptr.add(i) });
                let step = f.resume(());
                fault::set_current(prev);
                if let CoroutineResult::Return(r) = step {
                    done[i] = true;
                    live -= 1;
                    if r.is_err() {
                        result = r;
                        break 'run;
                    }
                }
            }
        }
        for (i, f) in fibers.iter_mut().enumerate() {
            if !done[i] && f.started() {
                // SAFETY: a suspended fiber's stack holds JIT frames, the barrier helper and
                // the guard call, none with anything to drop.
                unsafe { f.force_reset() };
            }
        }
    }
    STACKS.with(|s| {
        let mut pool = s.borrow_mut();
        if pool.len() < stacks.len() {
            *pool = stacks;
        }
    });
    drop(frames);
    if result.is_err() {
        reset_collectives();
    }
    result
}

/// # Safety
/// `wi` is a live work-item state.
pub(crate) unsafe fn barrier(wi: *mut WorkItem) {
    unsafe {
        let y = (*wi).fiber as *const Yielder<(), ()>;
        if !y.is_null() {
            (*y).suspend(());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Robust mode's scratch areas (`robust`)
// ---------------------------------------------------------------------------------------------

/// Bytes of each scratch area: the largest single access a check redirects.
pub const SCRATCH_BYTES: usize = 64 * 1024;

#[repr(C, align(4096))]
struct ScratchArea(UnsafeCell<[u8; SCRATCH_BYTES]>);

// SAFETY: the zero area is never written (stores are only ever redirected to the sink); the
// sink's bytes are never read for a result, so concurrent writes to it are harmless.
unsafe impl Sync for ScratchArea {}

static ZERO: ScratchArea = ScratchArea(UnsafeCell::new([0; SCRATCH_BYTES]));
static SINK: ScratchArea = ScratchArea(UnsafeCell::new([0; SCRATCH_BYTES]));

/// The addresses of the zero area (out-of-range loads read it) and the sink (out-of-range
/// stores write it), which the driver puts in every `WorkItem`.
pub(crate) fn scratch_areas() -> (u64, u64) {
    (ZERO.0.get() as u64, SINK.0.get() as u64)
}

// ---------------------------------------------------------------------------------------------
// The work-group collectives' per-thread state (`collective`)
// ---------------------------------------------------------------------------------------------

/// The per-thread state of the work-group collectives in progress (`collective`).
#[derive(Default)]
pub(crate) struct Scratch {
    /// Operands by local linear id (`STRIDE` per work-item: components, then `aux`).
    pub vals: Vec<u64>,
    /// Answers by local linear id, as `vals`.
    pub out: Vec<u64>,
    /// The call site each work-item waits at, plus 1 (0: none).
    pub tag: Vec<u32>,
    /// Work-items whose answer is computed but not yet read.
    pub pending: Vec<bool>,
    /// The participants of the round being computed (kept to reuse its memory).
    pub members: Vec<usize>,
}

thread_local! {
    pub(crate) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Forgets the collectives in progress (after a fault ended a group in the middle of one).
pub(crate) fn reset_collectives() {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.tag.iter_mut().for_each(|t| *t = 0);
        s.pending.iter_mut().for_each(|p| *p = false);
    });
}
