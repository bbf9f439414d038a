//! The threads that run commands once their dependencies are met. Host-memory commands are
//! short; kernel commands hand their work-groups on to the worker pool.

use crossbeam_channel::{unbounded, Sender};
use std::sync::OnceLock;

type Job = Box<dyn FnOnce() + Send>;

fn sender() -> &'static Sender<Job> {
    static POOL: OnceLock<Sender<Job>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = unbounded::<Job>();
        // Enough threads that independent commands of out-of-order queues overlap.
        let threads = crate::device::worker_threads().clamp(2, 8);
        for i in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("clift-cmd-{i}"))
                .spawn(move || {
                    for job in rx {
                        // A panic in a command must not take the thread down with it; the
                        // command itself turns panics into an error status.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            if spawned.is_err() && i == 0 {
                // Without any thread, commands run on the thread that makes them ready.
                break;
            }
        }
        tx
    })
}

/// Runs `job` on a command thread.
pub fn spawn(job: impl FnOnce() + Send + 'static) {
    if let Err(err) = sender().send(Box::new(job)) {
        (err.into_inner())();
    }
}
