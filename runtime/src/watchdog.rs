//! The per-command time limit (`CLIFT_KERNEL_TIMEOUT_MS`): one watchdog thread stops the
//! ND-ranges still running past their deadline, so that a kernel that never ends fails its
//! command instead of hanging `clFinish` and the application's exit.
//!
//! Stopping needs no cooperation from the generated code: the watchdog interrupts the threads
//! working on the range (`jit::fault::interrupt`), which abandons the kernel code they are in
//! as a contained fault does, and asks again every few milliseconds until the range is done
//! (a thread that was inside a runtime helper at that moment ignores the request).

use std::sync::{Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// What the watchdog can stop.
pub trait Stoppable: Send + Sync {
    /// Stops the work; false once it has finished (the watchdog then forgets it).
    fn stop(&self) -> bool;
}

/// How often a stopped range that has not finished is interrupted again.
const RETRY: Duration = Duration::from_millis(5);

/// The time limit of one ND-range: `CLIFT_KERNEL_TIMEOUT_MS` milliseconds when set to a
/// positive integer, else none.
pub fn time_limit() -> Option<Duration> {
    static LIMIT: OnceLock<Option<Duration>> = OnceLock::new();
    *LIMIT.get_or_init(|| parse_limit(std::env::var("CLIFT_KERNEL_TIMEOUT_MS").ok().as_deref()))
}

fn parse_limit(v: Option<&str>) -> Option<Duration> {
    let ms: u64 = v?.trim().parse().ok()?;
    (ms > 0).then(|| Duration::from_millis(ms))
}

struct Watch {
    due: Instant,
    target: Weak<dyn Stoppable>,
}

struct Watchdog {
    watches: Mutex<Watches>,
    changed: Condvar,
}

#[derive(Default)]
struct Watches {
    list: Vec<Watch>,
    /// The length at which `watch` next drops the entries of ranges that finished long before
    /// their deadline (a long limit would otherwise keep one entry per command until then).
    prune_at: usize,
}

fn watchdog() -> &'static Watchdog {
    static DOG: OnceLock<&'static Watchdog> = OnceLock::new();
    DOG.get_or_init(|| {
        let dog: &'static Watchdog = Box::leak(Box::new(Watchdog {
            watches: Mutex::new(Watches::default()),
            changed: Condvar::new(),
        }));
        let _ = std::thread::Builder::new()
            .name("clift-watchdog".into())
            .spawn(move || dog.run());
        dog
    })
}

/// Stops `target` at `due` unless it has finished (or been dropped) by then.
pub fn watch(due: Instant, target: Weak<dyn Stoppable>) {
    let dog = watchdog();
    let mut w = dog.watches.lock().unwrap_or_else(|e| e.into_inner());
    if w.list.len() >= w.prune_at {
        w.list.retain(|x| x.target.strong_count() > 0);
        w.prune_at = (2 * w.list.len()).max(64);
    }
    w.list.push(Watch { due, target });
    drop(w);
    dog.changed.notify_one();
}

impl Watchdog {
    fn run(&self) {
        let mut guard = self.watches.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let watches = &mut guard.list;
            let now = Instant::now();
            let mut i = 0;
            while i < watches.len() {
                if watches[i].due > now {
                    i += 1;
                    continue;
                }
                let target = watches[i].target.upgrade();
                if target.is_some_and(|t| t.stop()) {
                    watches[i].due = now + RETRY;
                    i += 1;
                } else {
                    watches.swap_remove(i);
                }
            }
            let next = watches.iter().map(|w| w.due).min();
            guard = match next {
                Some(due) => {
                    let wait = due.saturating_duration_since(Instant::now());
                    self.changed
                        .wait_timeout(guard, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(guard).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn limits_parse() {
        assert_eq!(parse_limit(None), None);
        assert_eq!(parse_limit(Some("0")), None);
        assert_eq!(parse_limit(Some("x")), None);
        assert_eq!(parse_limit(Some(" 250 ")), Some(Duration::from_millis(250)));
    }

    /// Entries of targets gone long before their deadline do not pile up.
    #[test]
    fn finished_targets_are_pruned() {
        let far = Instant::now() + Duration::from_secs(3600);
        for _ in 0..10_000 {
            let c: Arc<dyn Stoppable> = Arc::new(Count(AtomicUsize::new(0), 1));
            watch(far, Arc::downgrade(&c));
        }
        let n = watchdog().watches.lock().unwrap().list.len();
        assert!(n < 1000, "{n} entries kept");
    }

    struct Count(AtomicUsize, usize);

    impl Stoppable for Count {
        fn stop(&self) -> bool {
            self.0.fetch_add(1, Ordering::SeqCst) + 1 < self.1
        }
    }

    /// A target is stopped at its time, asked again until it says it is done, then forgotten.
    #[test]
    fn stops_until_done() {
        let c = Arc::new(Count(AtomicUsize::new(0), 3));
        let start = Instant::now();
        let weak: Weak<dyn Stoppable> = Arc::downgrade(&(c.clone() as Arc<dyn Stoppable>));
        watch(start + Duration::from_millis(20), weak);
        while c.0.load(Ordering::SeqCst) < 3 {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the watchdog stopped too few times"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(start.elapsed() >= Duration::from_millis(20));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(c.0.load(Ordering::SeqCst), 3, "forgotten once done");
    }
}
