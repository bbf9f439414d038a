//! The worker pools that run the work-groups of an ND-range: one per device, one thread per
//! compute unit pinned to that unit's CPU, each with its own local-memory arena. Work-groups
//! are handed out in chunks that shrink as the range drains (guided self-scheduling), and on
//! the root device the thread that enqueued the range works on it too, so a one-group range
//! never wakes another thread.

use crossbeam_channel::{unbounded, Sender};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The body of a range: `(groups, local-memory arena, halted)` runs the groups of a run of
/// consecutive linear indices one after the other in the arena, checking `halted` between
/// them (true once the range failed or was stopped: the rest of the run is skipped); false
/// when a group failed (its kernel faulted), which skips the range's groups not yet started.
/// Runs, not single groups, so that a range of tiny groups pays its per-call costs per run.
pub type GroupFn = dyn Fn(std::ops::Range<usize>, *mut u8, &dyn Fn() -> bool) -> bool + Send + Sync;

/// Stack of each worker thread. Address space only: pages are committed as a kernel's
/// private memory touches them. A kernel needing more is refused at enqueue.
pub const WORKER_STACK: usize = 64 << 20;

/// The most stack a work-group may need and still run on the enqueuing thread (whose stack
/// size Clift does not choose: an application thread, or a command thread).
pub const CALLER_STACK_BUDGET: usize = 256 << 10;

struct Range {
    body: Box<GroupFn>,
    groups: usize,
    arena_size: usize,
    next: AtomicUsize,
    done: AtomicUsize,
    threads: usize,
    failed: AtomicBool,
    /// Set by the watchdog when the range ran past its time limit: groups not started are
    /// skipped, the kernel code running is interrupted.
    stopped: AtomicBool,
    /// With a time limit: the threads working on the range now (the ones to interrupt).
    members: Option<Mutex<Vec<libc::pthread_t>>>,
    finished: Mutex<bool>,
    wake: Condvar,
}

/// How a range ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every group ran and succeeded.
    Done,
    /// A group failed or panicked; the groups not started by then did not run.
    Failed,
    /// The range ran past its time limit and was stopped.
    Stopped,
}

impl crate::watchdog::Stoppable for Range {
    fn stop(&self) -> bool {
        if *self.finished.lock().unwrap_or_else(|e| e.into_inner()) {
            return false;
        }
        self.stopped.store(true, Ordering::Release);
        if let Some(members) = &self.members {
            for &t in members.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                // A member is still inside `work` (it leaves the list before it returns).
                jit::fault::interrupt(t);
            }
        }
        true
    }
}

/// The threads that run one device's ND-ranges, each pinned to one CPU of the device.
pub struct Pool {
    senders: Vec<Sender<Arc<Range>>>,
    /// Threads that may work on one range at once (the device's compute units).
    parallel: usize,
    /// Whether the enqueuing thread works on its ranges too. A sub-device's ranges run only on
    /// its own pinned threads ("the commands enqueued on the queue are executed only on the
    /// sub-device"); the root device owns every CPU of the process, so its caller may help.
    caller_joins: bool,
}

impl Pool {
    /// A pool for the compute units `units` (the CPU of each, `units.len()` at least 1).
    /// With `caller_joins` the enqueuing thread is one of the workers and the pool starts one
    /// thread less (but at least one, for kernels whose stack need is too large for it).
    pub fn new(units: &[usize], caller_joins: bool) -> Pool {
        let parallel = units.len().max(1);
        let skip = usize::from(caller_joins && units.len() > 1);
        let mut senders = Vec::with_capacity(parallel);
        for (i, &cpu) in units.iter().enumerate().skip(skip) {
            let (tx, rx) = unbounded::<Arc<Range>>();
            let spawned = std::thread::Builder::new()
                .name(format!("clift-worker-{i}"))
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    crate::cpuset::pin_current_thread(cpu);
                    for range in rx {
                        work(&range);
                    }
                });
            if spawned.is_ok() {
                senders.push(tx);
            }
        }
        Pool {
            senders,
            parallel,
            caller_joins,
        }
    }
}

thread_local! {
    /// This thread's local-memory arena, 128-byte aligned (CL_DEVICE_MEM_BASE_ADDR_ALIGN).
    static ARENA: RefCell<Vec<u128>> = const { RefCell::new(Vec::new()) };
}

#[repr(C, align(128))]
struct Align128([u8; 128]);

fn with_arena<R>(size: usize, f: impl FnOnce(*mut u8) -> R) -> R {
    ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        // u128 gives 16-byte alignment; over-allocate and align up to 128. Never less than
        // the device's local memory: compiled atomics take any address within that span of
        // the arena's start for local memory (jit::abi::LOCAL_ARENA_BYTES).
        let need = (size.max(jit::abi::LOCAL_ARENA_BYTES) + 128).div_ceil(16);
        if arena.len() < need {
            arena.resize(need, 0);
        }
        let base = arena.as_mut_ptr() as *mut u8;
        let aligned = base.wrapping_add(base.align_offset(std::mem::align_of::<Align128>()));
        f(aligned)
    })
}

/// Takes chunks of groups until none are left.
fn work(range: &Range) {
    let Some(members) = &range.members else {
        return work_chunks(range);
    };
    // SAFETY: pthread_self has no preconditions.
    let me = unsafe { libc::pthread_self() };
    members.lock().unwrap_or_else(|e| e.into_inner()).push(me);
    let prev = jit::fault::set_cancel_flag(&range.stopped);
    work_chunks(range);
    jit::fault::set_cancel_flag(prev);
    let mut list = members.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = list.iter().position(|&t| t == me) {
        list.swap_remove(i);
    }
}

fn work_chunks(range: &Range) {
    with_arena(range.arena_size, |arena| loop {
        let remaining = range.groups.saturating_sub(range.next.load(Ordering::Relaxed));
        let chunk = (remaining / (2 * range.threads)).max(1);
        let start = range.next.fetch_add(chunk, Ordering::AcqRel);
        if start >= range.groups {
            break;
        }
        let end = (start + chunk).min(range.groups);
        // Once a group failed, the command has failed: the others are counted, not run.
        let halted = || range.failed.load(Ordering::Relaxed) || range.stopped.load(Ordering::Relaxed);
        if !halted() {
            // A panic must not leave the range unfinished (the enqueuer would wait forever).
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (range.body)(start..end, arena, &halted)
            }));
            if !matches!(ok, Ok(true)) {
                range.failed.store(true, Ordering::Relaxed);
            }
        }
        if range.done.fetch_add(end - start, Ordering::AcqRel) + (end - start) == range.groups {
            *range.finished.lock().unwrap_or_else(|e| e.into_inner()) = true;
            range.wake.notify_all();
        }
    });
}

/// Runs `body` for every group in `0..groups` on the pool and returns when all are done.
/// Each call of `body` gets an arena of at least `arena_size` bytes that no other running
/// group uses, on a thread with at least `stack_need` bytes of stack. With a time limit, the
/// range is stopped once it runs longer (see `watchdog`).
pub fn run(
    pool: &Pool,
    groups: usize,
    arena_size: usize,
    stack_need: usize,
    time_limit: Option<std::time::Duration>,
    body: Box<GroupFn>,
) -> Outcome {
    if groups == 0 {
        return Outcome::Done;
    }
    let caller_works = pool.caller_joins && stack_need <= CALLER_STACK_BUDGET;
    if !caller_works && pool.senders.is_empty() {
        return Outcome::Failed;
    }
    // At most `parallel` threads on one range, the caller included when it works.
    let helpers = if caller_works {
        pool.senders.len().min(pool.parallel - 1).min(groups - 1)
    } else {
        pool.senders.len().min(pool.parallel).min(groups)
    };
    let range = Arc::new(Range {
        body,
        groups,
        arena_size,
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        threads: helpers + usize::from(caller_works),
        failed: AtomicBool::new(false),
        stopped: AtomicBool::new(false),
        members: time_limit.map(|_| Mutex::new(Vec::new())),
        finished: Mutex::new(false),
        wake: Condvar::new(),
    });
    if let Some(limit) = time_limit {
        let target: Arc<dyn crate::watchdog::Stoppable> = range.clone();
        crate::watchdog::watch(std::time::Instant::now() + limit, Arc::downgrade(&target));
    }
    for tx in &pool.senders[..helpers] {
        let _ = tx.send(range.clone());
    }
    if caller_works {
        work(&range);
    }
    let mut finished = range.finished.lock().unwrap_or_else(|e| e.into_inner());
    while !*finished {
        finished = range.wake.wait(finished).unwrap_or_else(|e| e.into_inner());
    }
    if range.stopped.load(Ordering::Acquire) {
        Outcome::Stopped
    } else if range.failed.load(Ordering::Relaxed) {
        Outcome::Failed
    } else {
        Outcome::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A range body from a per-group one, run as the ND-range's body runs its groups: each in
    /// turn, ending the run at a failed group or once the range is halted.
    fn per_group(f: impl Fn(usize, *mut u8) -> bool + Send + Sync + 'static) -> Box<GroupFn> {
        Box::new(move |groups, arena, halted| {
            for g in groups {
                if halted() {
                    break;
                }
                if !f(g, arena) {
                    return false;
                }
            }
            true
        })
    }

    #[test]
    fn every_group_runs_once() {
        let seen: Arc<Vec<AtomicUsize>> = Arc::new((0..1000).map(|_| AtomicUsize::new(0)).collect());
        let s = seen.clone();
        let pool = Pool::new(&[0, 0, 0], true);
        let ok = run(
            &pool,
            1000,
            64,
            0,
            None,
            per_group(move |g, arena| {
                assert_eq!(arena as usize % 128, 0);
                s[g].fetch_add(1, Ordering::Relaxed);
                true
            }),
        );
        assert_eq!(ok, Outcome::Done);
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }

    /// A failed group fails the range; groups not yet started are skipped, and the pool runs
    /// the next range in full.
    #[test]
    fn a_failed_group_skips_the_rest() {
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let pool = Pool::new(&[0, 0], true);
        let ok = run(
            &pool,
            100_000,
            64,
            0,
            None,
            per_group(move |g, _| {
                r.fetch_add(1, Ordering::Relaxed);
                g != 0
            }),
        );
        assert_eq!(ok, Outcome::Failed);
        assert!(
            ran.load(Ordering::Relaxed) < 100_000,
            "groups after the failure were skipped"
        );
        let r = ran.clone();
        ran.store(0, Ordering::Relaxed);
        let ok = run(
            &pool,
            1000,
            64,
            0,
            None,
            per_group(move |_, _| {
                r.fetch_add(1, Ordering::Relaxed);
                true
            }),
        );
        assert_eq!(ok, Outcome::Done);
        assert_eq!(ran.load(Ordering::Relaxed), 1000);
    }

    /// A range past its time limit is stopped: the groups not started are skipped.
    #[test]
    fn a_range_past_its_time_limit_stops() {
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let start = std::time::Instant::now();
        let pool = Pool::new(&[0, 0], true);
        let ok = run(
            &pool,
            10_000,
            64,
            0,
            Some(std::time::Duration::from_millis(30)),
            per_group(move |_, _| {
                r.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(2));
                true
            }),
        );
        assert_eq!(ok, Outcome::Stopped);
        assert!(ran.load(Ordering::Relaxed) < 10_000);
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
    }
}
