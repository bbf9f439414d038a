//! Events and the commands behind them (API section 5.11): status transitions with profiling
//! timestamps, dependencies, user events, callbacks.
//!
//! A command waits for its dependencies by counting them down: each unfinished dependency
//! lists the command among its dependents and releases it when it completes. Callbacks and
//! dependents are always run after the event's lock is dropped, so a callback may call back
//! into the API.

use crate::callback::UserData;
use crate::clock::now_ns;
use crate::context::Context;
use crate::object::{handle_of, ClObject, Header, Kind};
use crate::queue::Queue;
use opencl_sys::{
    cl_command_type, cl_int, CL_COMMAND_USER, CL_COMPLETE, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
    CL_OUT_OF_RESOURCES, CL_QUEUED, CL_RUNNING, CL_SUBMITTED,
};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// `void (CL_CALLBACK *)(cl_event event, cl_int event_command_status, void *user_data)`.
pub type EventNotifyFn = unsafe extern "C" fn(*mut c_void, cl_int, *mut c_void);

/// What a command does when it runs; an `Err` becomes the event's (negative) status.
pub type Work = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

struct Callback {
    status: cl_int,
    func: EventNotifyFn,
    user_data: UserData,
}

struct State {
    status: cl_int,
    /// QUEUED, SUBMIT, START, END (COMPLETE is END on a CPU: nothing runs after the command).
    times: [u64; 4],
    callbacks: Vec<Callback>,
    dependents: Vec<(Arc<Command>, bool)>,
}

#[repr(C)]
pub struct Event {
    header: Header,
    pub context: Arc<Context>,
    pub queue: Option<Arc<Queue>>,
    pub command_type: cl_command_type,
    state: Mutex<State>,
    changed: Condvar,
}

impl ClObject for Event {
    const KIND: Kind = Kind::Event;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Event {
    fn new(context: Arc<Context>, queue: Option<Arc<Queue>>, command_type: cl_command_type, status: cl_int) -> Event {
        let now = now_ns();
        Event {
            header: Header::new(Kind::Event),
            context,
            queue,
            command_type,
            state: Mutex::new(State {
                status,
                times: [now, 0, 0, 0],
                callbacks: Vec::new(),
                dependents: Vec::new(),
            }),
            changed: Condvar::new(),
        }
    }

    /// clCreateUserEvent: starts as CL_SUBMITTED and completes when the application says so.
    pub fn new_user(context: Arc<Context>) -> Arc<Event> {
        Arc::new(Event::new(context, None, CL_COMMAND_USER, CL_SUBMITTED))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn status(&self) -> cl_int {
        self.lock().status
    }

    pub fn is_user(&self) -> bool {
        self.command_type == CL_COMMAND_USER
    }

    /// Profiling timestamps: queued, submit, start, end; `None` until the command completed.
    pub fn times(&self) -> Option<[u64; 4]> {
        let st = self.lock();
        (st.status == CL_COMPLETE).then_some(st.times)
    }

    /// Moves the event to `status` (a later state or an error), then runs what waited on it.
    /// Returns false when the event had already finished.
    pub fn set_status(self: &Arc<Event>, status: cl_int) -> bool {
        let now = now_ns();
        let (callbacks, dependents) = {
            let mut st = self.lock();
            if st.status <= CL_COMPLETE {
                return false;
            }
            match status {
                CL_SUBMITTED => st.times[1] = now,
                CL_RUNNING => st.times[2] = now,
                _ => st.times[3] = now,
            }
            st.status = status;
            let (due, keep): (Vec<_>, Vec<_>) = st.callbacks.drain(..).partition(|cb| status <= cb.status);
            st.callbacks = keep;
            let dependents = if status <= CL_COMPLETE {
                std::mem::take(&mut st.dependents)
            } else {
                Vec::new()
            };
            (due, dependents)
        };
        if status <= CL_COMPLETE {
            self.changed.notify_all();
        }
        let handle = handle_of(self);
        for cb in callbacks {
            // A callback registered for CL_SUBMITTED/CL_RUNNING/CL_COMPLETE hears the status
            // it waited for, or the error that ended the command.
            let reported = if status < 0 { status } else { cb.status };
            // SAFETY: the application registered this callback for this event.
            unsafe { (cb.func)(handle, reported, cb.user_data.0) };
        }
        for (command, propagate) in dependents {
            command.dependency_done(propagate && status < 0);
        }
        true
    }

    /// clSetEventCallback. Runs the callback at once (on this thread) if the status was
    /// already reached.
    pub fn add_callback(self: &Arc<Event>, status: cl_int, func: EventNotifyFn, user_data: UserData) {
        let reached = {
            let mut st = self.lock();
            if st.status <= status {
                Some(st.status)
            } else {
                st.callbacks.push(Callback {
                    status,
                    func,
                    user_data,
                });
                None
            }
        };
        if let Some(current) = reached {
            let reported = if current < 0 { current } else { status };
            // SAFETY: as in set_status.
            unsafe { func(handle_of(self), reported, user_data.0) };
        }
    }

    /// Blocks until the event completed or failed; returns its final status. While waiting,
    /// the thread runs ready commands itself, then spins briefly, and only then sleeps: a
    /// short command finishes without a round trip through the scheduler.
    pub fn wait(&self) -> cl_int {
        let mut spins = 0u32;
        loop {
            let status = self.status();
            if status <= CL_COMPLETE {
                return status;
            }
            if crate::executor::help() {
                continue;
            }
            if spins < 2000 {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            break;
        }
        let mut st = self.lock();
        while st.status > CL_COMPLETE {
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.status
    }

    /// Adds `command` as waiting on this event. Returns false (and does nothing) when the event
    /// has already finished; `Some(status)` tells the final status in that case.
    fn add_dependent(&self, command: &Arc<Command>, propagate: bool) -> Result<(), cl_int> {
        let mut st = self.lock();
        if st.status <= CL_COMPLETE {
            return Err(st.status);
        }
        st.dependents.push((command.clone(), propagate));
        Ok(())
    }
}

/// A command waiting for its dependencies, then for a command thread.
pub struct Command {
    event: Arc<Event>,
    pending: AtomicUsize,
    failed: AtomicBool,
    work: Mutex<Option<Work>>,
}

/// A dependency of a new command. Errors of explicit wait-list events fail the command
/// (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST); the implicit order of an in-order queue
/// only orders.
pub struct Dependency {
    pub event: Arc<Event>,
    pub propagate_error: bool,
}

impl Command {
    /// Creates the event of a new command and schedules `work` after `deps`.
    pub fn enqueue(
        context: Arc<Context>,
        queue: Arc<Queue>,
        command_type: cl_command_type,
        deps: Vec<Dependency>,
        work: Work,
    ) -> Arc<Event> {
        let event = Arc::new(Event::new(context, Some(queue), command_type, CL_QUEUED));
        let command = Arc::new(Command {
            event: event.clone(),
            pending: AtomicUsize::new(1),
            failed: AtomicBool::new(false),
            work: Mutex::new(Some(work)),
        });
        for dep in deps {
            command.pending.fetch_add(1, Ordering::AcqRel);
            match dep.event.add_dependent(&command, dep.propagate_error) {
                Ok(()) => {}
                Err(status) => command.dependency_done(dep.propagate_error && status < 0),
            }
        }
        // Drop the guard count: the command may now start.
        command.dependency_done(false);
        event
    }

    fn dependency_done(self: &Arc<Command>, failed: bool) {
        if failed {
            self.failed.store(true, Ordering::Release);
        }
        if self.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        if self.failed.load(Ordering::Acquire) {
            self.take_work();
            self.event.set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
            return;
        }
        self.event.set_status(CL_SUBMITTED);
        let command = self.clone();
        crate::executor::spawn(move || command.run());
    }

    fn take_work(&self) -> Option<Work> {
        self.work.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn run(&self) {
        let Some(work) = self.take_work() else { return };
        self.event.set_status(CL_RUNNING);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let status = match result {
            Ok(Ok(())) => CL_COMPLETE,
            Ok(Err(code)) => code.min(-1),
            Err(_) => CL_OUT_OF_RESOURCES,
        };
        self.event.set_status(status);
    }
}
