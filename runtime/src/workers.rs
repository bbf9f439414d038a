//! The worker pools that run the work-groups of an ND-range: one per device, one thread per
//! compute unit pinned to that unit's CPU, each with its own local-memory arena. Work-groups
//! are handed out in chunks that shrink as the range drains (guided self-scheduling), and on
//! the root device the thread that enqueued the range works on it too, so a one-group range
//! never wakes another thread.

use crossbeam_channel::{unbounded, Sender};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The per-work-group body: `(linear group index, local-memory arena)`.
pub type GroupFn = dyn Fn(usize, *mut u8) + Send + Sync;

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
    finished: Mutex<bool>,
    wake: Condvar,
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
        // u128 gives 16-byte alignment; over-allocate and align up to 128.
        let need = (size + 128).div_ceil(16);
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
    with_arena(range.arena_size, |arena| loop {
        let remaining = range.groups.saturating_sub(range.next.load(Ordering::Relaxed));
        let chunk = (remaining / (2 * range.threads)).max(1);
        let start = range.next.fetch_add(chunk, Ordering::AcqRel);
        if start >= range.groups {
            break;
        }
        let end = (start + chunk).min(range.groups);
        for group in start..end {
            // A panic must not leave the range unfinished (the enqueuer would wait forever).
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (range.body)(group, arena))).is_err() {
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
/// group uses, on a thread with at least `stack_need` bytes of stack. Returns false when a
/// group panicked.
pub fn run(pool: &Pool, groups: usize, arena_size: usize, stack_need: usize, body: Box<GroupFn>) -> bool {
    if groups == 0 {
        return true;
    }
    let caller_works = pool.caller_joins && stack_need <= CALLER_STACK_BUDGET;
    if !caller_works && pool.senders.is_empty() {
        return false;
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
        finished: Mutex::new(false),
        wake: Condvar::new(),
    });
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
    !range.failed.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Box::new(move |g, arena| {
                assert_eq!(arena as usize % 128, 0);
                s[g].fetch_add(1, Ordering::Relaxed);
            }),
        );
        assert!(ok);
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }
}
