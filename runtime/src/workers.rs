//! The worker pool that runs the work-groups of an ND-range: one thread per core (CLIFT_THREADS
//! overrides), each with its own local-memory arena. Work-groups are handed out in chunks that
//! shrink as the range drains (guided self-scheduling), and the thread that enqueued the
//! range works on it too, so a one-group range never wakes another thread.

use crossbeam_channel::{unbounded, Sender};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

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

struct Pool {
    senders: Vec<Sender<Arc<Range>>>,
    /// Threads that may work on one range at once (CLIFT_THREADS or the cores).
    parallel: usize,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        // The calling thread is one of the workers, except for kernels whose stack need is too
        // large for it: then the helpers (at least one) do all the work.
        let helpers = crate::device::worker_threads().saturating_sub(1).max(1);
        let mut senders = Vec::with_capacity(helpers);
        for i in 0..helpers {
            let (tx, rx) = unbounded::<Arc<Range>>();
            let spawned = std::thread::Builder::new()
                .name(format!("clift-worker-{i}"))
                .stack_size(WORKER_STACK)
                .spawn(move || {
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
            parallel: crate::device::worker_threads().max(1),
        }
    })
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
pub fn run(groups: usize, arena_size: usize, stack_need: usize, body: Box<GroupFn>) -> bool {
    if groups == 0 {
        return true;
    }
    let pool = pool();
    let caller_works = stack_need <= CALLER_STACK_BUDGET;
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
        let ok = run(
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
