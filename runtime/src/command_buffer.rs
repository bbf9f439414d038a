//! Command-buffers (cl_khr_command_buffer 0.9.8) and their mutable ND-range commands
//! (cl_khr_command_buffer_mutable_dispatch 0.9.5).
//!
//! A command-buffer records commands once and runs them many times. Recording checks every
//! command as its `clEnqueue*` twin would (the icd does that) and keeps what the command will
//! do: a host operation for copies and fills, a mutable command for an ND-range whose launch is
//! prepared as it is recorded (the arguments captured, the argument block laid out, the local
//! size chosen, the memory objects held). Finalizing gathers the operations and launches into a
//! *plan*; enqueuing the command-buffer puts one command on the
//! queue (`CL_COMMAND_COMMAND_BUFFER_KHR`) whose work runs the plan's steps in the order they
//! were recorded. That order satisfies every sync point (a sync point can only name a command
//! recorded before) and every barrier, so the steps need no events of their own: a replay costs
//! one queue command, whatever the number of commands in the buffer.
//!
//! An update of a mutable command (clUpdateMutableCommandsKHR) prepares the new launch and
//! publishes a new plan; submissions already enqueued keep the plan they were given (the spec:
//! updates change "future enqueues"), which also makes simultaneous use safe.

use crate::context::Context;
use crate::device::{Device, FEATURES};
use crate::event::Event;
use crate::info::{self, Answer};
use crate::kernel::{BoundArgs, Kernel};
use crate::ndrange::{self, NDRange};
use crate::object::{handle_of, publish, release, ClObject, Header, Kind};
use crate::queue::Queue;
use jit::codegen;
use opencl_sys::{
    cl_command_queue_properties, cl_command_type, cl_int, cl_uint, cl_ulong, CL_INVALID_OPERATION,
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE,
};
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};

/// The extension's enums, as the OpenCL-Headers of the CTS snapshot define them (opencl-sys
/// knows an older revision).
pub mod khr {
    use opencl_sys::{cl_bitfield, cl_command_type, cl_int, cl_uint};

    pub type CommandBufferProperties = cl_bitfield;
    pub type SyncPoint = cl_uint;

    pub const CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: cl_uint = 0x12A9;
    pub const CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR: cl_uint = 0x129A;
    pub const CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR: cl_uint = 0x12AA;
    pub const CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR: cl_bitfield = 1 << 0;
    pub const CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR: cl_bitfield = 1 << 1;
    pub const CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR: cl_bitfield = 1 << 2;
    pub const CL_COMMAND_BUFFER_FLAGS_KHR: CommandBufferProperties = 0x1293;
    pub const CL_INVALID_COMMAND_BUFFER_KHR: cl_int = -1138;
    pub const CL_INVALID_SYNC_POINT_WAIT_LIST_KHR: cl_int = -1139;
    pub const CL_INCOMPATIBLE_COMMAND_QUEUE_KHR: cl_int = -1140;
    pub const CL_COMMAND_BUFFER_QUEUES_KHR: cl_uint = 0x1294;
    pub const CL_COMMAND_BUFFER_NUM_QUEUES_KHR: cl_uint = 0x1295;
    pub const CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR: cl_uint = 0x1296;
    pub const CL_COMMAND_BUFFER_STATE_KHR: cl_uint = 0x1297;
    pub const CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: cl_uint = 0x1298;
    pub const CL_COMMAND_BUFFER_CONTEXT_KHR: cl_uint = 0x1299;
    pub const CL_COMMAND_BUFFER_STATE_RECORDING_KHR: cl_uint = 0;
    pub const CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR: cl_uint = 1;
    pub const CL_COMMAND_BUFFER_STATE_FINALIZED_KHR: cl_uint = 2;
    pub const CL_COMMAND_COMMAND_BUFFER_KHR: cl_command_type = 0x12A8;

    // cl_khr_command_buffer_mutable_dispatch
    pub const CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR: cl_bitfield = 1 << 0;
    pub const CL_COMMAND_BUFFER_MUTABLE_KHR: cl_bitfield = 1 << 1;
    pub const CL_INVALID_MUTABLE_COMMAND_KHR: cl_int = -1141;
    pub const CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR: cl_uint = 0x12B0;
    pub const CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR: CommandBufferProperties = 0x12B1;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR: cl_bitfield = 1 << 0;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR: cl_bitfield = 1 << 1;
    pub const CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR: cl_bitfield = 1 << 2;
    pub const CL_MUTABLE_DISPATCH_ARGUMENTS_KHR: cl_bitfield = 1 << 3;
    pub const CL_MUTABLE_DISPATCH_EXEC_INFO_KHR: cl_bitfield = 1 << 4;
    pub const CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR: cl_uint = 0x12A0;
    pub const CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A1;
    pub const CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR: cl_uint = 0x12AD;
    pub const CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR: cl_uint = 0x12A2;
    pub const CL_MUTABLE_DISPATCH_KERNEL_KHR: cl_uint = 0x12A3;
    pub const CL_MUTABLE_DISPATCH_DIMENSIONS_KHR: cl_uint = 0x12A4;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR: cl_uint = 0x12A5;
    pub const CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR: cl_uint = 0x12A6;
    pub const CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR: cl_uint = 0x12A7;
    pub const CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR: cl_uint = 0;
    pub const CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR: CommandBufferProperties = 0x12B7;
    pub const CL_MUTABLE_DISPATCH_ASSERTS_KHR: CommandBufferProperties = 0x12B8;
    pub const CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR: cl_bitfield = 1 << 0;
}

use khr::*;

/// What the device can do with command-buffers: printf in recorded kernels (the text is
/// written when the kernel's range ends, as for an enqueued kernel) and simultaneous use (every
/// submission runs a plan of its own). Device-side enqueue is not supported.
pub const CAPABILITIES: cl_ulong =
    CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR | CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;

/// Queue properties a command-buffer may be recorded for and enqueued to.
pub const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/// The fields of a recorded ND-range that clUpdateMutableCommandsKHR can change, execution
/// info (`clSetKernelExecInfo`: the SVM pointers a kernel reaches) included.
pub const MUTABLE_FIELDS: cl_ulong = CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
    | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
    | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// The device queries of the two extensions, answered while the device reports them.
pub fn device_info(param: cl_uint) -> Option<Answer> {
    if !FEATURES.has_extension("cl_khr_command_buffer") {
        return None;
    }
    Some(match param {
        CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => info::ulong(CAPABILITIES),
        CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => info::ulong(SUPPORTED_QUEUE_PROPERTIES),
        CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => info::ulong(0),
        CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR
            if FEATURES.has_extension("cl_khr_command_buffer_mutable_dispatch") =>
        {
            info::ulong(MUTABLE_FIELDS)
        }
        _ => return None,
    })
}

/// A recorded copy or fill: runs each time the command-buffer does.
pub type HostOp = Arc<dyn Fn() -> Result<(), cl_int> + Send + Sync>;

/// A kernel launch ready to run: what `Kernel::bind` laid out and the range.
pub struct Launch {
    pub compiled: Arc<codegen::Kernel>,
    pub args: BoundArgs,
    pub range: NDRange,
}

impl Launch {
    fn run(&self, context: &Context, device: &Device) -> Result<(), cl_int> {
        let args = BoundArgs {
            block: self.args.block.clone(),
            buffers: self.args.buffers.clone(),
            svm: self.args.svm.clone(),
            facts: self.args.facts.clone(),
            local_size: self.args.local_size,
            host_shared: self.args.host_shared,
        };
        ndrange::run_command(context, device, self.compiled.clone(), args, self.range)
    }
}

/// The configuration of a recorded ND-range: the kernel's arguments as they were when it was
/// recorded (a private copy of the kernel, which later clSetKernelArg calls do not reach) and
/// the range as given.
pub struct Dispatch {
    pub args: Kernel,
    pub work_dim: cl_uint,
    pub offset: [u64; 3],
    pub global: [u64; 3],
    /// `None`: the local size is Clift's choice.
    pub local: Option<[u64; 3]>,
    /// The prepared launch; `None` while an argument is not set (a mutable command recorded
    /// with `CL_MUTABLE_DISPATCH_ARGUMENTS_KHR` before its arguments were all set).
    pub launch: Option<Arc<Launch>>,
}

/// A recorded ND-range (`cl_mutable_command_khr`). Its handle lives as long as its
/// command-buffer.
#[repr(C)]
pub struct MutableCommand {
    header: Header,
    /// The handle of the command-buffer it belongs to.
    pub command_buffer: usize,
    pub queue: Arc<Queue>,
    /// The kernel given to clCommandNDRangeKernelKHR (`CL_MUTABLE_DISPATCH_KERNEL_KHR`).
    pub kernel: Arc<Kernel>,
    /// The properties list as given, terminator included (empty for NULL).
    pub properties: Vec<cl_ulong>,
    /// `CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR`.
    pub updatable: cl_ulong,
    /// `CL_MUTABLE_DISPATCH_ASSERTS_KHR` (and the command-buffer's).
    pub asserts: cl_ulong,
    /// The number of work-groups when recorded, for the no-additional-work-groups assertion.
    pub recorded_groups: u64,
    dispatch: Mutex<Dispatch>,
}

impl ClObject for MutableCommand {
    const KIND: Kind = Kind::MutableCommand;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl MutableCommand {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        command_buffer: &CommandBuffer,
        queue: Arc<Queue>,
        kernel: Arc<Kernel>,
        properties: Vec<cl_ulong>,
        updatable: cl_ulong,
        asserts: cl_ulong,
        recorded_groups: u64,
        dispatch: Dispatch,
    ) -> MutableCommand {
        MutableCommand {
            header: Header::new(Kind::MutableCommand),
            command_buffer: command_buffer as *const CommandBuffer as usize,
            queue,
            kernel,
            properties,
            updatable,
            asserts,
            recorded_groups,
            dispatch: Mutex::new(dispatch),
        }
    }

    pub fn dispatch(&self) -> MutexGuard<'_, Dispatch> {
        self.dispatch.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One recorded command.
pub enum Recorded {
    Host(HostOp),
    Kernel(Arc<MutableCommand>),
    /// clCommandBarrierWithWaitListKHR: in-order execution satisfies it.
    Barrier,
}

enum Step {
    Host(HostOp),
    Launch(Arc<Launch>),
}

struct State {
    finalized: bool,
    commands: Vec<Recorded>,
    /// Built at finalize and after each update; `None` while a kernel lacks arguments.
    plan: Option<Arc<Vec<Step>>>,
}

#[repr(C)]
pub struct CommandBuffer {
    header: Header,
    pub context: Arc<Context>,
    pub queues: Vec<Arc<Queue>>,
    /// The properties list as given, terminator included (empty for NULL).
    pub properties: Vec<cl_ulong>,
    /// `CL_COMMAND_BUFFER_FLAGS_KHR`.
    pub flags: cl_ulong,
    /// `CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR`.
    pub asserts: cl_ulong,
    state: Mutex<State>,
}

impl ClObject for CommandBuffer {
    const KIND: Kind = Kind::CommandBuffer;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl CommandBuffer {
    pub fn new(queues: Vec<Arc<Queue>>, properties: Vec<cl_ulong>, flags: cl_ulong, asserts: cl_ulong) -> Option<Self> {
        let context = queues.first()?.context.clone();
        Some(CommandBuffer {
            header: Header::new(Kind::CommandBuffer),
            context,
            queues,
            properties,
            flags,
            asserts,
            state: Mutex::new(State {
                finalized: false,
                commands: Vec::new(),
                plan: None,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn is_mutable(&self) -> bool {
        self.flags & CL_COMMAND_BUFFER_MUTABLE_KHR != 0
    }

    pub fn is_finalized(&self) -> bool {
        self.lock().finalized
    }

    /// The default queue (the only one without cl_khr_command_buffer_multi_device).
    pub fn queue(&self) -> &Arc<Queue> {
        &self.queues[0]
    }

    /// `CL_COMMAND_BUFFER_STATE_KHR`.
    pub fn state(&self) -> cl_uint {
        let st = self.lock();
        match (st.finalized, st.plan.is_some()) {
            (false, _) => CL_COMMAND_BUFFER_STATE_RECORDING_KHR,
            (true, true) => CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR,
            (true, false) => CL_COMMAND_BUFFER_STATE_FINALIZED_KHR,
        }
    }

    /// "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if ... synchronization-point objects in
    /// sync_point_wait_list are not valid synchronization-points": a sync point names a command
    /// recorded before in this command-buffer (they are numbered from 1).
    pub fn check_sync_points(&self, points: &[SyncPoint]) -> Result<(), cl_int> {
        let recorded = self.lock().commands.len();
        if points.iter().any(|&p| p == 0 || p as usize > recorded) {
            return Err(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
        }
        Ok(())
    }

    /// Appends a command; returns its sync point. "CL_INVALID_OPERATION if command_buffer has
    /// been finalized."
    pub fn record(&self, command: Recorded) -> Result<SyncPoint, cl_int> {
        let mut st = self.lock();
        if st.finalized {
            return Err(CL_INVALID_OPERATION);
        }
        st.commands.push(command);
        Ok(st.commands.len() as SyncPoint)
    }

    /// clFinalizeCommandBufferKHR: "CL_INVALID_OPERATION if command_buffer is not in the
    /// Recording state."
    pub fn finalize(&self) -> Result<(), cl_int> {
        let mut st = self.lock();
        if st.finalized {
            return Err(CL_INVALID_OPERATION);
        }
        st.finalized = true;
        st.plan = plan(&st.commands);
        Ok(())
    }

    /// Publishes a new plan after mutable commands changed.
    pub fn replan(&self) {
        let mut st = self.lock();
        if st.finalized {
            st.plan = plan(&st.commands);
        }
    }

    /// True when `command` was recorded into this command-buffer.
    pub fn owns(&self, command: &Arc<MutableCommand>) -> bool {
        command.command_buffer == self as *const CommandBuffer as usize
    }

    /// clEnqueueCommandBufferKHR: one command on `queue` that runs the current plan.
    /// "CL_INVALID_OPERATION if command_buffer is not in the Executable state."
    pub fn enqueue(&self, queue: &Arc<Queue>, wait_list: Vec<Arc<Event>>) -> Result<Arc<Event>, cl_int> {
        let plan = {
            let st = self.lock();
            if !st.finalized {
                return Err(CL_INVALID_OPERATION);
            }
            st.plan.clone().ok_or(CL_INVALID_OPERATION)?
        };
        let context = self.context.clone();
        let device = queue.device;
        let work = Box::new(move || run(&context, device, &plan));
        Ok(queue.enqueue(CL_COMMAND_COMMAND_BUFFER_KHR, wait_list, work))
    }

    /// The handles of its mutable commands, to withdraw when it goes.
    fn mutable_handles(&self) -> Vec<*mut c_void> {
        self.lock()
            .commands
            .iter()
            .filter_map(|c| match c {
                Recorded::Kernel(m) => Some(handle_of(m)),
                _ => None,
            })
            .collect()
    }
}

impl Drop for CommandBuffer {
    fn drop(&mut self) {
        // "The lifetime of this handle is tied to the parent command-buffer, such that freeing
        // the command-buffer will also free this handle."
        for handle in self.mutable_handles() {
            let _ = release::<MutableCommand>(handle);
        }
    }
}

/// Hands a new mutable command to the application (its handle).
pub fn publish_mutable(command: &Arc<MutableCommand>) -> *mut c_void {
    publish(command.clone())
}

/// The plan of `commands`, or `None` while a kernel lacks arguments.
fn plan(commands: &[Recorded]) -> Option<Arc<Vec<Step>>> {
    let mut steps = Vec::with_capacity(commands.len());
    for c in commands {
        match c {
            Recorded::Host(op) => steps.push(Step::Host(op.clone())),
            Recorded::Kernel(m) => steps.push(Step::Launch(m.dispatch().launch.clone()?)),
            Recorded::Barrier => {}
        }
    }
    Some(Arc::new(steps))
}

/// Runs a plan: every step in recorded order; the first failure ends the command with its
/// status (a kernel that faulted: `CL_OUT_OF_RESOURCES`, reported through `pfn_notify`).
fn run(context: &Context, device: &Device, steps: &[Step]) -> Result<(), cl_int> {
    for step in steps {
        match step {
            Step::Host(op) => op()?,
            Step::Launch(launch) => launch.run(context, device)?,
        }
    }
    Ok(())
}

/// The number of work-groups of a range (`ceil(global / local)` over its dimensions).
pub fn work_groups(range: &NDRange) -> u64 {
    range.num_groups().iter().product()
}

/// A sanity check used by the icd: a command-buffer property list key it knows.
pub fn is_known_property(key: cl_ulong) -> bool {
    key == CL_COMMAND_BUFFER_FLAGS_KHR || key == CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR
}

/// `cl_command_type` of a mutable command (only ND-ranges are mutable).
pub const MUTABLE_COMMAND_TYPE: cl_command_type = opencl_sys::CL_COMMAND_NDRANGE_KERNEL;
