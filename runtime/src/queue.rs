//! Command queues (API section 5.1): in-order and out-of-order, markers, barriers, finish.

use crate::context::Context;
use crate::device::Device;
use crate::event::{Command, Dependency, Event, Work};
use crate::object::{ClObject, Header, Kind};
use opencl_sys::{
    cl_command_queue_properties, cl_command_type, cl_int, cl_queue_properties, CL_COMMAND_BARRIER,
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE,
};
use std::sync::{Arc, Mutex, Weak};

#[repr(C)]
pub struct Queue {
    header: Header,
    pub context: Arc<Context>,
    pub device: &'static Device,
    pub properties: cl_command_queue_properties,
    /// `CL_QUEUE_PROPERTIES_ARRAY`: the list given to clCreateCommandQueueWithProperties.
    pub properties_array: Vec<cl_queue_properties>,
    state: Mutex<Order>,
}

/// What a new command must wait for besides its wait list. Weak references: a command that
/// has not finished is kept alive by its dependencies or by the command threads.
#[derive(Default)]
struct Order {
    /// In-order queues: the previous command.
    last: Weak<Event>,
    /// Out-of-order queues: the latest barrier; every later command waits for it.
    barrier: Weak<Event>,
    /// Commands not yet known to be finished (for clFinish and wait-list-less barriers).
    outstanding: Vec<Weak<Event>>,
}

impl ClObject for Queue {
    const KIND: Kind = Kind::Queue;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Queue {
    pub fn new(
        context: Arc<Context>,
        device: &'static Device,
        properties: cl_command_queue_properties,
        properties_array: Vec<cl_queue_properties>,
    ) -> Queue {
        Queue {
            header: Header::new(Kind::Queue),
            context,
            device,
            properties,
            properties_array,
            state: Mutex::new(Order::default()),
        }
    }

    pub fn out_of_order(&self) -> bool {
        self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0
    }

    pub fn profiling(&self) -> bool {
        self.properties & CL_QUEUE_PROFILING_ENABLE != 0
    }

    /// Enqueues a command that runs `work` after `wait_list` and the queue's own ordering.
    pub fn enqueue(
        self: &Arc<Queue>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        work: Work,
    ) -> Arc<Event> {
        self.submit(command_type, wait_list, false, work)
    }

    /// A marker (clEnqueueMarkerWithWaitList) or barrier: with an empty wait list it waits for
    /// every command enqueued before it. A barrier also makes every later command wait for it.
    pub fn enqueue_sync(self: &Arc<Queue>, command_type: cl_command_type, wait_list: Vec<Arc<Event>>) -> Arc<Event> {
        self.submit(command_type, wait_list, true, Box::new(|| Ok(())))
    }

    fn submit(
        self: &Arc<Queue>,
        command_type: cl_command_type,
        wait_list: Vec<Arc<Event>>,
        sync: bool,
        work: Work,
    ) -> Arc<Event> {
        let mut order = self.state.lock().unwrap_or_else(|e| e.into_inner());
        order
            .outstanding
            .retain(|w| w.upgrade().is_some_and(|e| e.status() > 0));
        let waits_for_all = sync && wait_list.is_empty();
        let mut deps: Vec<Dependency> = wait_list
            .into_iter()
            .map(|event| Dependency {
                event,
                propagate_error: true,
            })
            .collect();
        let implicit = |event: Arc<Event>| Dependency {
            event,
            propagate_error: false,
        };
        if self.out_of_order() {
            if waits_for_all {
                deps.extend(order.outstanding.iter().filter_map(Weak::upgrade).map(implicit));
            } else if let Some(barrier) = order.barrier.upgrade() {
                deps.push(implicit(barrier));
            }
        } else if let Some(last) = order.last.upgrade() {
            deps.push(implicit(last));
        }
        let event = Command::enqueue(self.context.clone(), self.clone(), command_type, deps, work);
        order.last = Arc::downgrade(&event);
        if command_type == CL_COMMAND_BARRIER {
            order.barrier = Arc::downgrade(&event);
        }
        order.outstanding.push(Arc::downgrade(&event));
        event
    }

    /// clFinish: waits for every command enqueued so far.
    pub fn finish(&self) -> cl_int {
        let pending: Vec<Arc<Event>> = {
            let order = self.state.lock().unwrap_or_else(|e| e.into_inner());
            order.outstanding.iter().filter_map(Weak::upgrade).collect()
        };
        for event in pending {
            event.wait();
        }
        opencl_sys::CL_SUCCESS
    }
}
