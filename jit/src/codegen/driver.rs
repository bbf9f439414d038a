//! The work-group driver: runs every work-item of one work-group. Most kernels run through
//! their generated work-group function (work-item loops inside the JIT code, see `group.rs`),
//! which gets the group's `WorkItem` state and, for kernels with barriers, a per-work-item
//! spill area kept per thread. Kernels with a potential spin loop (`spin`), and the fallback,
//! run their work-items on fibers (stackful coroutines) resumed round-robin, where a barrier
//! or a spin loop's back-edge suspends the fiber (`run_fibers`).

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

/// This thread's spill area of at least `units` 16-byte units, taken out of its slot while in
/// use (so a nested use, none is expected, would get its own); empty for `units == 0`.
fn take_spill(units: usize) -> Vec<u128> {
    if units == 0 {
        return Vec::new();
    }
    let buf = SPILL.with(|s| std::mem::take(&mut *s.borrow_mut()));
    if buf.len() >= units {
        return buf;
    }
    // The runtime bounds `units` at enqueue; should the allocation still fail, unwind to the
    // runtime (which fails the command) rather than abort the process.
    let mut fresh = Vec::new();
    if fresh.try_reserve_exact(units).is_err() {
        panic!("cannot allocate {} bytes of work-item spill area", units * 16);
    }
    fresh.resize(units, 0u128);
    fresh
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
    // Every group of the run fits in the enqueued size; no spill area without barriers.
    let [x, y, z] = unsafe { (*ctx).enqueued_local_size };
    let mut buf = take_spill(((x * y * z) as usize * record).div_ceil(16));
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
    // A fault leaves the spill area in any state; the next group starts every work-item anew.
    if record != 0 && result.is_err() {
        reset_collectives();
    }
    if !buf.is_empty() {
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

/// Why a fiber suspended (the value it yields): a potential spin loop's back-edge (it stays
/// ready to run), a sub-group barrier, a work-group barrier.
pub(crate) const YIELD_SPIN: u32 = 0;
pub(crate) const YIELD_SUB_GROUP_BARRIER: u32 = 1;
pub(crate) const YIELD_BARRIER: u32 = 2;

thread_local! {
    // Boxed: a fiber keeps a pointer to its stack while the pool grows.
    #[allow(clippy::vec_box)]
    static STACKS: RefCell<Vec<Box<DefaultStack>>> = const { RefCell::new(Vec::new()) };
}

type Fiber<'s> = Coroutine<(), u32, Result<(), Fault>, &'s mut DefaultStack>;
type FiberYielder = Yielder<(), u32>;

/// Where a fiber stands between two resumptions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Park {
    /// Runs when next resumed (new, or suspended at a spin loop's back-edge).
    Ready,
    /// At a barrier of this kind (`YIELD_SUB_GROUP_BARRIER`, `YIELD_BARRIER`).
    Barrier(u32),
    /// Has no work-item left.
    Done,
}

/// The work-items of a group as the fibers see them: the next one not started, and how many
/// of each sub-group have not finished.
struct Items {
    next: usize,
    n: usize,
    /// Per sub-group: work-items not finished (those not started included).
    live: Vec<usize>,
    live_total: usize,
}

/// Runs all work-items of a group as fibers (stackful coroutines).
///
/// A fiber runs one work-item after the other, taking the next one not started each time its
/// work-item returns, until none is left; a new fiber starts only when every fiber is
/// suspended and work-items are left, so a kernel whose work-items never suspend runs on one
/// fiber. A fiber suspends at a barrier and at the back-edge of a potential spin loop
/// (`super::spin`); the fibers are resumed round-robin, in order of the work-items they run,
/// and after each round the barriers whose work-items have all arrived are released:
/// - a work-group barrier when every work-item of the group not finished waits at a
///   work-group barrier;
/// - a sub-group barrier when every work-item of its sub-group not finished waits at a
///   barrier (of either kind: the others of the sub-group may be at a work-group barrier
///   after a non-uniform sub-group operation, `collective`).
///
/// A work-item spinning at a back-edge is not at a barrier, so it holds up only the barriers
/// of its own sub-group (and the group's); the other sub-groups go on, and with them the
/// work-item it waits for: sub-groups make independent forward progress. Once every
/// work-item not finished is at a barrier one of them can always be released, so nothing
/// hangs but a kernel whose spin loop never ends (which `CLIFT_KERNEL_TIMEOUT_MS` stops).
/// After a fault in one work-item the others are not resumed: their fibers are discarded.
///
/// # Safety
/// As [`run_group_fn`].
pub(crate) unsafe fn run_fibers(entry: EntryFn, args: *const u8, ctx: &WorkGroupContext) -> Result<(), Fault> {
    let [lx, ly, lz] = ctx.local_size;
    let n = (lx * ly * lz) as usize;
    // One work-item state per fiber, set for each work-item the fiber runs (reserved for `n`
    // fibers and never grown past that, so the pointers the fibers keep stay valid).
    let base = WorkItem::for_group(ctx, args);
    let mut states: Vec<WorkItem> = Vec::with_capacity(n);
    let sg = crate::abi::SUB_GROUP_SIZE;
    let groups = n.div_ceil(sg);
    let mut state = Items {
        next: 0,
        n,
        live: (0..groups).map(|k| sg.min(n - k * sg)).collect(),
        live_total: n,
    };
    // Take the stacks out of the pool so a nested use cannot alias them. Boxed: a fiber keeps
    // a pointer to its stack while the pool grows.
    let mut stacks: Vec<Box<DefaultStack>> = STACKS.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let state_ptr: *mut Items = &mut state;
    // Per fiber: its guard frame (a fiber suspended inside kernel code keeps its own) and the
    // work-item it runs. Reserved for `n` fibers and never grown past that, so the pointers
    // the fibers keep into them stay valid.
    let mut frames: Vec<Frame> = Vec::with_capacity(n);
    let mut current: Vec<usize> = Vec::with_capacity(n);
    let mut result = Ok(());
    {
        let mut fibers: Vec<Fiber<'_>> = Vec::with_capacity(n);
        let mut park: Vec<Park> = Vec::with_capacity(n);
        // Per sub-group: work-items at a barrier of either kind; in the group: at a
        // work-group barrier.
        let mut at_barrier = vec![0usize; groups];
        let mut at_group_barrier = 0usize;
        'run: loop {
            let mut i = 0;
            loop {
                if i == fibers.len() {
                    // Every fiber has been resumed this round: start another one if
                    // work-items are left.
                    // SAFETY: only fibers write `state`, and none runs now.
                    if unsafe { (*state_ptr).next } >= n || fibers.len() >= n {
                        break;
                    }
                    if stacks.len() <= i {
                        stacks.push(Box::new(new_stack()));
                    }
                    // SAFETY: the boxed stack stays in place until the fibers are gone, and
                    // only this fiber uses it.
                    let stack: &mut DefaultStack = unsafe { &mut *(&mut *stacks[i] as *mut DefaultStack) };
                    frames.push(Frame::new());
                    current.push(usize::MAX);
                    states.push(base);
                    let frame = unsafe { frames.as_mut_ptr().add(i) };
                    let cur = unsafe { current.as_mut_ptr().add(i) };
                    let wi = unsafe { states.as_mut_ptr().add(i) };
                    let f = move |y: &FiberYielder, _: ()| unsafe {
                        // The local id of the fiber's last work-item, to step to the next one
                        // without dividing.
                        let mut last: Option<(usize, [u64; 3])> = None;
                        loop {
                            let st = &mut *state_ptr;
                            if st.next >= st.n {
                                return Ok(());
                            }
                            let k = st.next;
                            st.next += 1;
                            *cur = k;
                            let [x, y_, z] = match last {
                                Some((p, [x, y_, z])) if p + 1 == k => {
                                    if x + 1 < lx {
                                        [x + 1, y_, z]
                                    } else if y_ + 1 < ly {
                                        [0, y_ + 1, z]
                                    } else {
                                        [0, 0, z + 1]
                                    }
                                }
                                _ => {
                                    let k64 = k as u64;
                                    [k64 % lx, k64 / lx % ly, k64 / (lx * ly)]
                                }
                            };
                            last = Some((k, [x, y_, z]));
                            (*wi).set_local(x, y_, z);
                            (*wi).fiber = y as *const FiberYielder as *const c_void;
                            fault::guarded(frame, entry as usize, args as usize, wi as usize, 0)?;
                            let st = &mut *state_ptr;
                            st.live[k / sg] -= 1;
                            st.live_total -= 1;
                        }
                    };
                    // SAFETY: the fiber borrows its work-item state, `state`, its frame and the stack,
                    // all outliving the loop, which drives every fiber to completion or
                    // resets it.
                    fibers.push(unsafe { Coroutine::with_stack_unchecked(stack, f) });
                    park.push(Park::Ready);
                }
                if park[i] == Park::Ready {
                    let prev = fault::set_current(unsafe { frames.as_mut_ptr().add(i) });
                    let step = fibers[i].resume(());
                    fault::set_current(prev);
                    match step {
                        CoroutineResult::Yield(YIELD_SPIN) => {}
                        CoroutineResult::Yield(kind) => {
                            park[i] = Park::Barrier(kind);
                            at_barrier[current[i] / sg] += 1;
                            if kind == YIELD_BARRIER {
                                at_group_barrier += 1;
                            }
                        }
                        CoroutineResult::Return(r) => {
                            park[i] = Park::Done;
                            if r.is_err() {
                                result = r;
                                break 'run;
                            }
                        }
                    }
                }
                i += 1;
            }
            // SAFETY: no fiber runs now.
            let st = unsafe { &*state_ptr };
            if st.live_total == 0 {
                break;
            }
            // Release the barriers whose work-items have all arrived, then count again.
            let group = at_group_barrier == st.live_total;
            for (f, p) in park.iter_mut().enumerate() {
                let Park::Barrier(kind) = *p else { continue };
                let k = current[f] / sg;
                if group || (kind == YIELD_SUB_GROUP_BARRIER && at_barrier[k] == st.live[k]) {
                    *p = Park::Ready;
                }
            }
            at_barrier.iter_mut().for_each(|c| *c = 0);
            at_group_barrier = 0;
            for (f, p) in park.iter().enumerate() {
                if let Park::Barrier(kind) = *p {
                    at_barrier[current[f] / sg] += 1;
                    at_group_barrier += usize::from(kind == YIELD_BARRIER);
                }
            }
        }
        for (i, f) in fibers.iter_mut().enumerate() {
            if park[i] != Park::Done && f.started() && !f.done() {
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

/// A fiber stack; should the system refuse one, unwind to the runtime (which fails the
/// command) rather than abort the process.
fn new_stack() -> DefaultStack {
    match DefaultStack::new(FIBER_STACK) {
        Ok(s) => s,
        Err(e) => panic!("cannot allocate a {FIBER_STACK}-byte work-item fiber stack: {e}"),
    }
}

/// Suspends the work-item's fiber with `why` (`YIELD_*`); a no-op when the kernel runs
/// without fibers.
///
/// # Safety
/// `wi` is a live work-item state.
pub(crate) unsafe fn suspend(wi: *mut WorkItem, why: u32) {
    unsafe {
        let y = (*wi).fiber as *const FiberYielder;
        if !y.is_null() {
            (*y).suspend(why);
        }
    }
}

// Back-edges of spin loops taken on this thread since its fiber last yielded there.
thread_local! {
    static SPINS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// How many back-edges of potential spin loops a fiber takes before it yields: a loop the
/// analysis counts as spinning may be a search that ends by itself (the Khronos CTS's
/// c11_atomics atomic_flag test walks the flags until it sets one), and yielding at each
/// iteration made that test 3 to 5 times slower; a work-item that does wait for another one
/// loses at most this many iterations before the others run.
const SPIN_BATCH: u32 = 64;

/// A potential spin loop's back-edge: every `SPIN_BATCH`-th on this thread suspends the
/// fiber, which stays ready to run (a no-op without fibers).
///
/// # Safety
/// `wi` is a live work-item state.
pub(crate) unsafe fn spin_yield(wi: *mut WorkItem) {
    if unsafe { (*wi).fiber.is_null() } {
        return;
    }
    let n = SPINS.with(|c| {
        let n = c.get() + 1;
        c.set(if n >= SPIN_BATCH { 0 } else { n });
        n
    });
    if n >= SPIN_BATCH {
        unsafe { suspend(wi, YIELD_SPIN) }
    }
}

/// Work-group barrier.
///
/// # Safety
/// `wi` is a live work-item state.
pub(crate) unsafe fn barrier(wi: *mut WorkItem) {
    unsafe { suspend(wi, YIELD_BARRIER) }
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
