//! The threads that run commands once their dependencies are met. Host-memory commands are
//! short; kernel commands hand their work-groups on to the worker pool. A host thread that
//! waits for an event helps: it runs ready commands itself instead of sleeping, which makes
//! short commands (a small kernel, a copy) complete without waking another thread.

use crossbeam_channel::{unbounded, Receiver, Sender};
use std::sync::OnceLock;

type Job = Box<dyn FnOnce() + Send>;

struct Pool {
    tx: Sender<Job>,
    rx: Receiver<Job>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = unbounded::<Job>();
        // Enough threads that independent commands of out-of-order queues overlap.
        let threads = crate::device::worker_threads().clamp(2, 8);
        for i in 0..threads {
            let rx = rx.clone();
            let _ = std::thread::Builder::new()
                .name(format!("clift-cmd-{i}"))
                .spawn(move || {
                    for job in rx {
                        run(job);
                    }
                });
        }
        Pool { tx, rx }
    })
}

fn run(job: Job) {
    // A panic in a command must not take the thread down with it; the command itself turns
    // panics into an error status.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
}

/// Runs `job` on a command thread.
pub fn spawn(job: impl FnOnce() + Send + 'static) {
    if let Err(err) = pool().tx.send(Box::new(job)) {
        run(err.into_inner());
    }
}

/// Runs one ready command on the calling thread, if there is one.
pub fn help() -> bool {
    match pool().rx.try_recv() {
        Ok(job) => {
            run(job);
            true
        }
        Err(_) => false,
    }
}
