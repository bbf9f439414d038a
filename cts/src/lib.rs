//! Clift's conformance suite harness.
//!
//! The tests drive an OpenCL platform through the system ICD loader (`libOpenCL.so.1`), exactly
//! as an application does. The platform under test is picked by name from the environment
//! variable `CLIFT_CTS_PLATFORM` (default `Clift`); which ICDs the loader sees is chosen with
//! `OCL_ICD_VENDORS` (see README.md).
//!
//! This file holds the shared pieces: platform/device lookup, the error-name table, the `check!`
//! and `ok!` macros, RAII wrappers for contexts, queues, buffers and events, and `*Info` readers.

#![allow(clippy::missing_safety_doc)]
// Handles are opaque: the wrappers pass them to the API, which validates them.
#![allow(clippy::not_unsafe_ptr_arg_deref)]
// `check!` wraps the API call it is given in `unsafe` on purpose: every test call is FFI.
#![allow(clippy::macro_metavars_in_unsafe)]

pub mod command_buffer;
pub mod ffi;
pub mod image_ref;
pub mod threads;

pub use ffi::*;
pub use libc::{c_char, c_void, size_t};
pub use opencl_sys::*;

use std::ffi::CStr;
use std::ptr;
use std::sync::OnceLock;

/// Name of every error code the API can return, for messages.
pub fn err_name(code: cl_int) -> String {
    let name = match code {
        CL_SUCCESS => "CL_SUCCESS",
        CL_DEVICE_NOT_FOUND => "CL_DEVICE_NOT_FOUND",
        CL_DEVICE_NOT_AVAILABLE => "CL_DEVICE_NOT_AVAILABLE",
        CL_COMPILER_NOT_AVAILABLE => "CL_COMPILER_NOT_AVAILABLE",
        CL_MEM_OBJECT_ALLOCATION_FAILURE => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        CL_OUT_OF_RESOURCES => "CL_OUT_OF_RESOURCES",
        CL_OUT_OF_HOST_MEMORY => "CL_OUT_OF_HOST_MEMORY",
        CL_PROFILING_INFO_NOT_AVAILABLE => "CL_PROFILING_INFO_NOT_AVAILABLE",
        CL_MEM_COPY_OVERLAP => "CL_MEM_COPY_OVERLAP",
        CL_IMAGE_FORMAT_MISMATCH => "CL_IMAGE_FORMAT_MISMATCH",
        CL_IMAGE_FORMAT_NOT_SUPPORTED => "CL_IMAGE_FORMAT_NOT_SUPPORTED",
        CL_BUILD_PROGRAM_FAILURE => "CL_BUILD_PROGRAM_FAILURE",
        CL_MAP_FAILURE => "CL_MAP_FAILURE",
        CL_MISALIGNED_SUB_BUFFER_OFFSET => "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST => "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        CL_COMPILE_PROGRAM_FAILURE => "CL_COMPILE_PROGRAM_FAILURE",
        CL_LINKER_NOT_AVAILABLE => "CL_LINKER_NOT_AVAILABLE",
        CL_LINK_PROGRAM_FAILURE => "CL_LINK_PROGRAM_FAILURE",
        CL_DEVICE_PARTITION_FAILED => "CL_DEVICE_PARTITION_FAILED",
        CL_KERNEL_ARG_INFO_NOT_AVAILABLE => "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
        CL_INVALID_VALUE => "CL_INVALID_VALUE",
        CL_INVALID_DEVICE_TYPE => "CL_INVALID_DEVICE_TYPE",
        CL_INVALID_PLATFORM => "CL_INVALID_PLATFORM",
        CL_INVALID_DEVICE => "CL_INVALID_DEVICE",
        CL_INVALID_CONTEXT => "CL_INVALID_CONTEXT",
        CL_INVALID_QUEUE_PROPERTIES => "CL_INVALID_QUEUE_PROPERTIES",
        CL_INVALID_COMMAND_QUEUE => "CL_INVALID_COMMAND_QUEUE",
        CL_INVALID_HOST_PTR => "CL_INVALID_HOST_PTR",
        CL_INVALID_MEM_OBJECT => "CL_INVALID_MEM_OBJECT",
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR => "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
        CL_INVALID_IMAGE_SIZE => "CL_INVALID_IMAGE_SIZE",
        CL_INVALID_SAMPLER => "CL_INVALID_SAMPLER",
        CL_INVALID_BINARY => "CL_INVALID_BINARY",
        CL_INVALID_BUILD_OPTIONS => "CL_INVALID_BUILD_OPTIONS",
        CL_INVALID_PROGRAM => "CL_INVALID_PROGRAM",
        CL_INVALID_PROGRAM_EXECUTABLE => "CL_INVALID_PROGRAM_EXECUTABLE",
        CL_INVALID_KERNEL_NAME => "CL_INVALID_KERNEL_NAME",
        CL_INVALID_KERNEL_DEFINITION => "CL_INVALID_KERNEL_DEFINITION",
        CL_INVALID_KERNEL => "CL_INVALID_KERNEL",
        CL_INVALID_ARG_INDEX => "CL_INVALID_ARG_INDEX",
        CL_INVALID_ARG_VALUE => "CL_INVALID_ARG_VALUE",
        CL_INVALID_ARG_SIZE => "CL_INVALID_ARG_SIZE",
        CL_INVALID_KERNEL_ARGS => "CL_INVALID_KERNEL_ARGS",
        CL_INVALID_WORK_DIMENSION => "CL_INVALID_WORK_DIMENSION",
        CL_INVALID_WORK_GROUP_SIZE => "CL_INVALID_WORK_GROUP_SIZE",
        CL_INVALID_WORK_ITEM_SIZE => "CL_INVALID_WORK_ITEM_SIZE",
        CL_INVALID_GLOBAL_OFFSET => "CL_INVALID_GLOBAL_OFFSET",
        CL_INVALID_EVENT_WAIT_LIST => "CL_INVALID_EVENT_WAIT_LIST",
        CL_INVALID_EVENT => "CL_INVALID_EVENT",
        CL_INVALID_OPERATION => "CL_INVALID_OPERATION",
        CL_INVALID_GL_OBJECT => "CL_INVALID_GL_OBJECT",
        CL_INVALID_BUFFER_SIZE => "CL_INVALID_BUFFER_SIZE",
        CL_INVALID_MIP_LEVEL => "CL_INVALID_MIP_LEVEL",
        CL_INVALID_GLOBAL_WORK_SIZE => "CL_INVALID_GLOBAL_WORK_SIZE",
        CL_INVALID_PROPERTY => "CL_INVALID_PROPERTY",
        CL_INVALID_IMAGE_DESCRIPTOR => "CL_INVALID_IMAGE_DESCRIPTOR",
        CL_INVALID_COMPILER_OPTIONS => "CL_INVALID_COMPILER_OPTIONS",
        CL_INVALID_LINKER_OPTIONS => "CL_INVALID_LINKER_OPTIONS",
        CL_INVALID_DEVICE_PARTITION_COUNT => "CL_INVALID_DEVICE_PARTITION_COUNT",
        CL_INVALID_PIPE_SIZE => "CL_INVALID_PIPE_SIZE",
        CL_INVALID_DEVICE_QUEUE => "CL_INVALID_DEVICE_QUEUE",
        CL_INVALID_SPEC_ID => "CL_INVALID_SPEC_ID",
        CL_MAX_SIZE_RESTRICTION_EXCEEDED => "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
        CL_PLATFORM_NOT_FOUND_KHR => "CL_PLATFORM_NOT_FOUND_KHR",
        _ => return format!("<unknown error {code}>"),
    };
    format!("{name} ({code})")
}

/// Asserts that an API call returned `expected`, naming both codes on failure.
#[macro_export]
macro_rules! check {
    ($call:expr, $expected:expr $(,)?) => {{
        #[allow(unused_unsafe)]
        let got: $crate::cl_int = unsafe { $call };
        let want: $crate::cl_int = $expected;
        assert!(
            got == want,
            "{}\n  returned {}\n  expected {}",
            stringify!($call),
            $crate::err_name(got),
            $crate::err_name(want)
        );
    }};
}

/// Asserts that an API call returned `CL_SUCCESS`.
#[macro_export]
macro_rules! ok {
    ($call:expr $(,)?) => {
        $crate::check!($call, $crate::CL_SUCCESS)
    };
}

/// Asserts that an error code (from `errcode_ret`) equals `expected`.
#[macro_export]
macro_rules! check_err {
    ($err:expr, $expected:expr, $what:expr $(,)?) => {{
        let got: $crate::cl_int = $err;
        let want: $crate::cl_int = $expected;
        assert!(
            got == want,
            "{}\n  errcode_ret {}\n  expected {}",
            $what,
            $crate::err_name(got),
            $crate::err_name(want)
        );
    }};
}

// ---------------------------------------------------------------------------------------------
// Platform and device
// ---------------------------------------------------------------------------------------------

/// The platform name to test (`CLIFT_CTS_PLATFORM`, default `Clift`).
pub fn wanted_platform_name() -> String {
    std::env::var("CLIFT_CTS_PLATFORM").unwrap_or_else(|_| "Clift".to_string())
}

/// All platforms the loader reports.
pub fn all_platforms() -> Vec<cl_platform_id> {
    let mut n: cl_uint = 0;
    let err = unsafe { clGetPlatformIDs(0, ptr::null_mut(), &mut n) };
    if err == CL_PLATFORM_NOT_FOUND_KHR || n == 0 {
        return Vec::new();
    }
    assert_eq!(err, CL_SUCCESS, "clGetPlatformIDs: {}", err_name(err));
    let mut v = vec![ptr::null_mut(); n as usize];
    let err = unsafe { clGetPlatformIDs(n, v.as_mut_ptr(), ptr::null_mut()) };
    assert_eq!(err, CL_SUCCESS, "clGetPlatformIDs: {}", err_name(err));
    v
}

struct Ids {
    platform: usize,
    device: usize,
}

fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let want = wanted_platform_name();
        let plats = all_platforms();
        let names: Vec<String> = plats.iter().map(|&p| platform_string(p, CL_PLATFORM_NAME)).collect();
        let idx = names.iter().position(|n| *n == want).unwrap_or_else(|| {
            panic!(
                "platform {want:?} not found (set CLIFT_CTS_PLATFORM / OCL_ICD_VENDORS); \
                 the loader reports {} platform(s): {names:?}",
                plats.len()
            )
        });
        let p = plats[idx];
        let mut dev: cl_device_id = ptr::null_mut();
        let mut n: cl_uint = 0;
        let err = unsafe { clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &mut dev, &mut n) };
        assert_eq!(err, CL_SUCCESS, "clGetDeviceIDs(CPU): {}", err_name(err));
        assert!(n >= 1 && !dev.is_null(), "platform {want:?} has no CPU device");
        Ids {
            platform: p as usize,
            device: dev as usize,
        }
    })
}

/// The platform under test.
pub fn platform() -> cl_platform_id {
    ids().platform as cl_platform_id
}

/// The platform's CPU device.
pub fn device() -> cl_device_id {
    ids().device as cl_device_id
}

/// Reads a variable-sized `clGet*Info` value: asks for the size, then for the value.
/// `f(size, value, size_ret)` performs the call.
pub fn info_bytes(mut f: impl FnMut(size_t, *mut c_void, *mut size_t) -> cl_int) -> Result<Vec<u8>, cl_int> {
    let mut size: size_t = 0;
    let err = f(0, ptr::null_mut(), &mut size);
    if err != CL_SUCCESS {
        return Err(err);
    }
    let mut buf = vec![0u8; size];
    let mut size2: size_t = 0;
    let err = f(size, buf.as_mut_ptr() as *mut c_void, &mut size2);
    if err != CL_SUCCESS {
        return Err(err);
    }
    assert_eq!(size, size2, "param_value_size_ret differs between the two calls");
    Ok(buf)
}

/// Reads a fixed-size `clGet*Info` value of type `T`, checking that the reported size is
/// exactly `size_of::<T>()`.
pub fn info_scalar<T: Copy + Default>(
    mut f: impl FnMut(size_t, *mut c_void, *mut size_t) -> cl_int,
) -> Result<T, cl_int> {
    let mut v = T::default();
    let mut ret: size_t = 0;
    let err = f(std::mem::size_of::<T>(), &mut v as *mut T as *mut c_void, &mut ret);
    if err != CL_SUCCESS {
        return Err(err);
    }
    assert_eq!(
        ret,
        std::mem::size_of::<T>(),
        "param_value_size_ret is not the size of the value's type"
    );
    Ok(v)
}

/// Turns info bytes into a string, checking NUL termination.
pub fn bytes_to_string(b: &[u8]) -> String {
    assert!(!b.is_empty(), "string query returned size 0 (no NUL)");
    assert_eq!(*b.last().unwrap(), 0, "string query not NUL-terminated");
    CStr::from_bytes_until_nul(b)
        .unwrap()
        .to_str()
        .expect("string query is not UTF-8")
        .to_string()
}

/// Casts info bytes to a vector of `T`, checking the size is a multiple of `size_of::<T>()`.
pub fn bytes_to_vec<T: Copy>(b: &[u8]) -> Vec<T> {
    let sz = std::mem::size_of::<T>();
    assert_eq!(b.len() % sz, 0, "array query size not a multiple of element size");
    (0..b.len() / sz)
        .map(|i| unsafe { ptr::read_unaligned(b.as_ptr().add(i * sz) as *const T) })
        .collect()
}

pub fn platform_bytes(p: cl_platform_id, param: cl_platform_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetPlatformInfo(p, param, s, v, r) })
}

pub fn platform_string(p: cl_platform_id, param: cl_platform_info) -> String {
    let b = platform_bytes(p, param).unwrap_or_else(|e| panic!("clGetPlatformInfo({param:#x}): {}", err_name(e)));
    bytes_to_string(&b)
}

pub fn device_bytes(d: cl_device_id, param: cl_device_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) })
}

pub fn device_string(param: cl_device_info) -> String {
    let b = device_bytes(device(), param).unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}): {}", err_name(e)));
    bytes_to_string(&b)
}

pub fn device_info<T: Copy + Default>(param: cl_device_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetDeviceInfo(device(), param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}): {}", err_name(e)))
}

pub fn context_info<T: Copy + Default>(c: cl_context, param: cl_context_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetContextInfo(c, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetContextInfo({param:#x}): {}", err_name(e)))
}

pub fn context_bytes(c: cl_context, param: cl_context_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetContextInfo(c, param, s, v, r) })
}

pub fn queue_info<T: Copy + Default>(q: cl_command_queue, param: cl_command_queue_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetCommandQueueInfo(q, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetCommandQueueInfo({param:#x}): {}", err_name(e)))
}

pub fn queue_bytes(q: cl_command_queue, param: cl_command_queue_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetCommandQueueInfo(q, param, s, v, r) })
}

pub fn mem_info<T: Copy + Default>(m: cl_mem, param: cl_mem_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetMemObjectInfo(m, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetMemObjectInfo({param:#x}): {}", err_name(e)))
}

pub fn mem_bytes(m: cl_mem, param: cl_mem_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetMemObjectInfo(m, param, s, v, r) })
}

pub fn event_info<T: Copy + Default>(e: cl_event, param: cl_event_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetEventInfo(e, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetEventInfo({param:#x}): {}", err_name(e)))
}

/// `CL_EVENT_COMMAND_EXECUTION_STATUS` of an event.
pub fn event_status(e: cl_event) -> cl_int {
    event_info::<cl_int>(e, CL_EVENT_COMMAND_EXECUTION_STATUS)
}

pub fn profiling(e: cl_event, param: cl_profiling_info) -> Result<cl_ulong, cl_int> {
    info_scalar(|s, v, r| unsafe { clGetEventProfilingInfo(e, param, s, v, r) })
}

/// Host timer of the device under test (`clGetHostTimer`).
pub fn host_timer() -> cl_ulong {
    let mut t: cl_ulong = 0;
    ok!(clGetHostTimer(device(), &mut t));
    t
}

/// Number of online CPUs of the host.
pub fn online_cpus() -> usize {
    (unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }) as usize
}

// ---------------------------------------------------------------------------------------------
// RAII wrappers. Each holds one application reference and releases it on drop; `.0` is the raw
// handle so tests can pass it to any entry point.
// ---------------------------------------------------------------------------------------------

pub struct Context(pub cl_context);
pub struct Queue(pub cl_command_queue);
pub struct Mem(pub cl_mem);
pub struct Event(pub cl_event);

// The OpenCL objects are thread-safe by the spec (all API calls except clSetKernelArg and
// clCloneKernel are thread-safe).
unsafe impl Send for Context {}
unsafe impl Sync for Context {}
unsafe impl Send for Queue {}
unsafe impl Sync for Queue {}
unsafe impl Send for Mem {}
unsafe impl Sync for Mem {}
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl Drop for Context {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseContext(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseContext: {}", err_name(err));
            }
        }
    }
}
impl Drop for Queue {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseCommandQueue(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseCommandQueue: {}", err_name(err));
            }
        }
    }
}
impl Drop for Mem {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseMemObject(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseMemObject: {}", err_name(err));
            }
        }
    }
}
impl Drop for Event {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseEvent(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseEvent: {}", err_name(err));
            }
        }
    }
}

impl Context {
    /// A context on the device under test, with a `CL_CONTEXT_PLATFORM` property.
    pub fn new() -> Context {
        let props = [
            CL_CONTEXT_PLATFORM as cl_context_properties,
            platform() as cl_context_properties,
            0,
        ];
        let dev = device();
        let mut err = 0;
        let c = unsafe { clCreateContext(props.as_ptr(), 1, &dev, None, ptr::null_mut(), &mut err) };
        check_err!(err, CL_SUCCESS, "clCreateContext");
        assert!(!c.is_null());
        Context(c)
    }

    /// An in-order queue without properties.
    pub fn queue(&self) -> Queue {
        self.queue_with(0)
    }

    /// A queue with the given `CL_QUEUE_PROPERTIES` (via clCreateCommandQueueWithProperties).
    pub fn queue_with(&self, props: cl_command_queue_properties) -> Queue {
        self.try_queue_with(props)
            .unwrap_or_else(|e| panic!("clCreateCommandQueueWithProperties: {}", err_name(e)))
    }

    pub fn try_queue_with(&self, props: cl_command_queue_properties) -> Result<Queue, cl_int> {
        let list = [CL_QUEUE_PROPERTIES as cl_queue_properties, props, 0];
        let mut err = 0;
        let q = unsafe { clCreateCommandQueueWithProperties(self.0, device(), list.as_ptr(), &mut err) };
        if err != CL_SUCCESS {
            assert!(q.is_null(), "failed create returned a non-NULL queue");
            return Err(err);
        }
        assert!(!q.is_null());
        Ok(Queue(q))
    }

    /// Creates a buffer; the error code on failure (and checks the returned handle is NULL).
    pub fn try_buffer(&self, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void) -> Result<Mem, cl_int> {
        let mut err = 0;
        let m = unsafe { clCreateBuffer(self.0, flags, size, host_ptr, &mut err) };
        if err != CL_SUCCESS {
            assert!(m.is_null(), "failed clCreateBuffer returned a non-NULL handle");
            return Err(err);
        }
        assert!(!m.is_null());
        Ok(Mem(m))
    }

    /// A `CL_MEM_READ_WRITE` buffer of `size` bytes.
    pub fn buffer(&self, size: usize) -> Mem {
        self.buffer_with(CL_MEM_READ_WRITE, size, ptr::null_mut())
    }

    pub fn buffer_with(&self, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void) -> Mem {
        self.try_buffer(flags, size, host_ptr)
            .unwrap_or_else(|e| panic!("clCreateBuffer(flags {flags:#x}, {size}): {}", err_name(e)))
    }

    /// A buffer initialised from `data` (COPY_HOST_PTR).
    pub fn buffer_from(&self, data: &[u8]) -> Mem {
        self.buffer_with(
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            data.len(),
            data.as_ptr() as *mut c_void,
        )
    }

    pub fn user_event(&self) -> Event {
        let mut err = 0;
        let e = unsafe { clCreateUserEvent(self.0, &mut err) };
        check_err!(err, CL_SUCCESS, "clCreateUserEvent");
        Event(e)
    }

    pub fn reference_count(&self) -> cl_uint {
        context_info(self.0, CL_CONTEXT_REFERENCE_COUNT)
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

/// Turns an optional wait list into the (count, pointer) pair of the API.
pub fn wait_list(events: &[cl_event]) -> (cl_uint, *const cl_event) {
    if events.is_empty() {
        (0, ptr::null())
    } else {
        (events.len() as cl_uint, events.as_ptr())
    }
}

impl Queue {
    pub fn finish(&self) {
        ok!(clFinish(self.0));
    }

    pub fn flush(&self) {
        ok!(clFlush(self.0));
    }

    /// Blocking write of `data` at `offset`.
    pub fn write(&self, m: &Mem, offset: usize, data: &[u8]) {
        ok!(clEnqueueWriteBuffer(
            self.0,
            m.0,
            CL_TRUE,
            offset,
            data.len(),
            data.as_ptr() as *const c_void,
            0,
            ptr::null(),
            ptr::null_mut()
        ));
    }

    /// Blocking read of `len` bytes at `offset`.
    pub fn read(&self, m: &Mem, offset: usize, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        ok!(clEnqueueReadBuffer(
            self.0,
            m.0,
            CL_TRUE,
            offset,
            len,
            v.as_mut_ptr() as *mut c_void,
            0,
            ptr::null(),
            ptr::null_mut()
        ));
        v
    }

    /// Non-blocking write returning its event; `data` must outlive the command.
    pub fn write_async(&self, m: &Mem, offset: usize, data: &[u8], wait: &[cl_event]) -> Event {
        let (n, w) = wait_list(wait);
        let mut e = ptr::null_mut();
        ok!(clEnqueueWriteBuffer(
            self.0,
            m.0,
            CL_FALSE,
            offset,
            data.len(),
            data.as_ptr() as *const c_void,
            n,
            w,
            &mut e
        ));
        Event(e)
    }

    /// Non-blocking read into `out`; `out` must outlive the command.
    pub fn read_async(&self, m: &Mem, offset: usize, out: &mut [u8], wait: &[cl_event]) -> Event {
        let (n, w) = wait_list(wait);
        let mut e = ptr::null_mut();
        ok!(clEnqueueReadBuffer(
            self.0,
            m.0,
            CL_FALSE,
            offset,
            out.len(),
            out.as_mut_ptr() as *mut c_void,
            n,
            w,
            &mut e
        ));
        Event(e)
    }

    pub fn copy(&self, src: &Mem, dst: &Mem, so: usize, doff: usize, len: usize, wait: &[cl_event]) -> Event {
        let (n, w) = wait_list(wait);
        let mut e = ptr::null_mut();
        ok!(clEnqueueCopyBuffer(self.0, src.0, dst.0, so, doff, len, n, w, &mut e));
        Event(e)
    }

    pub fn fill(&self, m: &Mem, pattern: &[u8], offset: usize, len: usize, wait: &[cl_event]) -> Event {
        let (n, w) = wait_list(wait);
        let mut e = ptr::null_mut();
        ok!(clEnqueueFillBuffer(
            self.0,
            m.0,
            pattern.as_ptr() as *const c_void,
            pattern.len(),
            offset,
            len,
            n,
            w,
            &mut e
        ));
        Event(e)
    }

    pub fn marker(&self, wait: &[cl_event]) -> Event {
        let (n, w) = wait_list(wait);
        let mut e = ptr::null_mut();
        ok!(clEnqueueMarkerWithWaitList(self.0, n, w, &mut e));
        Event(e)
    }

    pub fn barrier(&self, wait: &[cl_event]) -> Event {
        let (n, w) = wait_list(wait);
        let mut e = ptr::null_mut();
        ok!(clEnqueueBarrierWithWaitList(self.0, n, w, &mut e));
        Event(e)
    }

    pub fn reference_count(&self) -> cl_uint {
        queue_info(self.0, CL_QUEUE_REFERENCE_COUNT)
    }
}

impl Mem {
    pub fn size(&self) -> usize {
        mem_info::<size_t>(self.0, CL_MEM_SIZE)
    }

    /// Creates a sub-buffer region.
    pub fn try_sub(&self, flags: cl_mem_flags, origin: usize, size: usize) -> Result<Mem, cl_int> {
        let region = cl_buffer_region { origin, size };
        let mut err = 0;
        let m = unsafe {
            clCreateSubBuffer(
                self.0,
                flags,
                CL_BUFFER_CREATE_TYPE_REGION,
                &region as *const cl_buffer_region as *const c_void,
                &mut err,
            )
        };
        if err != CL_SUCCESS {
            assert!(m.is_null(), "failed clCreateSubBuffer returned a non-NULL handle");
            return Err(err);
        }
        Ok(Mem(m))
    }

    pub fn sub(&self, flags: cl_mem_flags, origin: usize, size: usize) -> Mem {
        self.try_sub(flags, origin, size)
            .unwrap_or_else(|e| panic!("clCreateSubBuffer({origin}, {size}): {}", err_name(e)))
    }

    pub fn reference_count(&self) -> cl_uint {
        mem_info(self.0, CL_MEM_REFERENCE_COUNT)
    }
}

impl Event {
    pub fn wait(&self) {
        ok!(clWaitForEvents(1, &self.0));
    }

    pub fn status(&self) -> cl_int {
        event_status(self.0)
    }

    pub fn set_status(&self, status: cl_int) {
        ok!(clSetUserEventStatus(self.0, status));
    }

    pub fn command_type(&self) -> cl_command_type {
        event_info(self.0, CL_EVENT_COMMAND_TYPE)
    }
}

/// A deterministic pseudo-random byte pattern (xorshift), for checking every byte.
pub fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Polls `cond` until it holds or `timeout` passes; returns whether it held. Used only to wait
/// for something that must eventually happen (never to prove that something did not happen).
pub fn wait_until(timeout: std::time::Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Generous default timeout for things that must happen eventually.
pub const EVENTUALLY: std::time::Duration = std::time::Duration::from_secs(30);

/// A command that runs test `name` of the current test binary alone in a child process
/// (`--exact --nocapture`, one thread, no backtraces); callers add their flags and environment.
pub fn test_child(name: &str) -> std::process::Command {
    let exe = std::env::current_exe().expect("current_exe");
    let mut cmd = std::process::Command::new(exe);
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("RUST_BACKTRACE", "0");
    cmd
}

/// Runs test `name` alone in a child process (`test_child`) with `env` added and asserts
/// that it passed; `what` names the run in the failure message, with the child's output.
pub fn assert_child_passes(name: &str, env: &[(&str, &str)], what: &str) {
    let mut cmd = test_child(name);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{what}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Crash isolation for tests that may bring an implementation down (wrong-type handles): the
/// test re-runs itself in a child process of the same test binary. Use as the first line of a
/// test: `if !isolate("test_name") { return; }`. In the parent it runs the child, asserts that
/// it passed (a crash becomes an ordinary test failure naming the signal) and returns false; in
/// the child it returns true and the body runs.
pub fn isolate(test: &str) -> bool {
    if std::env::var_os("CTS_ISOLATED_CHILD").is_some() {
        return true;
    }
    let mut child = test_child(test)
        .env("CTS_ISOLATED_CHILD", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn isolated test child");
    // Drain the pipes on threads so a chatty child cannot block.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut so, &mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut se, &mut s);
        s
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for child") {
            break Some(st);
        }
        if start.elapsed() > ISOLATED_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let status = match status {
        Some(s) => s,
        None => panic!("{test} hung: no result after {ISOLATED_TIMEOUT:?} (killed)\n{stdout}\n{stderr}"),
    };
    assert!(
        status.success() && stdout.contains("1 passed"),
        "{test} failed in its child process ({}):\n{stdout}\n{stderr}",
        describe_status(&status)
    );
    false
}

/// How long an isolated test may run before it counts as hung.
pub const ISOLATED_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

fn describe_status(s: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (_, Some(sig)) => format!("killed by signal {sig}"),
        (Some(c), _) => format!("exit code {c}"),
        _ => "unknown status".into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Programs and kernels
// ---------------------------------------------------------------------------------------------

pub struct Program(pub cl_program);
pub struct Kernel(pub cl_kernel);

unsafe impl Send for Program {}
unsafe impl Sync for Program {}
unsafe impl Send for Kernel {}

impl Drop for Program {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseProgram(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseProgram: {}", err_name(err));
            }
        }
    }
}
impl Drop for Kernel {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseKernel(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseKernel: {}", err_name(err));
            }
        }
    }
}

/// The folder of kernel sources (`cts/kernels`).
pub fn kernels_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// Text of `cts/kernels/<file>`.
pub fn kernel_text(file: &str) -> String {
    let p = kernels_dir().join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Whether kernels that have an OpenCL C reference source (`cts/kernels/<name>.cl`) are built
/// from that source instead of their SPIR-V (`CTS_KERNELS_FROM_SOURCE=1`). This exists only to
/// validate the tests' host references on an implementation without SPIR-V ingestion (PoCL 3.1);
/// the suite proper always uses the SPIR-V.
pub fn kernels_from_source() -> bool {
    std::env::var_os("CTS_KERNELS_FROM_SOURCE").is_some_and(|v| v != "0")
}

/// The SPIR-V version written in a `; Version: X.Y` header comment (as `spirv-dis` writes), or
/// 1.0 when there is none.
pub fn spvasm_version(text: &str) -> (u8, u8) {
    for line in text.lines() {
        if let Some(v) = line.trim().strip_prefix("; Version:") {
            let mut it = v.trim().split('.');
            let maj = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
            let min = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            return (maj, min);
        }
    }
    (1, 0)
}

impl Context {
    /// clCreateProgramWithIL; the error code on failure (checking the handle is NULL).
    pub fn try_program_il(&self, il: &[u8]) -> Result<Program, cl_int> {
        let mut err = 0;
        let p = unsafe { clCreateProgramWithIL(self.0, il.as_ptr() as *const c_void, il.len(), &mut err) };
        if err != CL_SUCCESS {
            assert!(p.is_null(), "failed clCreateProgramWithIL returned a non-NULL handle");
            return Err(err);
        }
        assert!(!p.is_null());
        Ok(Program(p))
    }

    pub fn program_il(&self, il: &[u8]) -> Program {
        self.try_program_il(il)
            .unwrap_or_else(|e| panic!("clCreateProgramWithIL: {}", err_name(e)))
    }

    /// clCreateProgramWithSource (used only under `kernels_from_source()`).
    pub fn program_source(&self, src: &str) -> Program {
        let mut err = 0;
        let s = src.as_ptr() as *const c_char;
        let len = src.len();
        let p = unsafe { clCreateProgramWithSource(self.0, 1, &s, &len, &mut err) };
        check_err!(err, CL_SUCCESS, "clCreateProgramWithSource");
        Program(p)
    }

    /// Program `name` built for the device: from the SPIR-V `spirv` (assembled by the test from
    /// `cts/kernels/<name>.spvasm`), or from `cts/kernels/<name>.cl` under
    /// `kernels_from_source()`. Panics with the build log on failure.
    pub fn built_program(&self, name: &str, spirv: &[u8]) -> Program {
        let src = kernels_dir().join(format!("{name}.cl"));
        let (p, opts) = if kernels_from_source() && src.exists() {
            // A `// cts-source-options: <options>` line in the source overrides the options.
            let text = kernel_text(&format!("{name}.cl"));
            let opts = text
                .lines()
                .find_map(|l| l.strip_prefix("// cts-source-options:"))
                .map(|o| o.split(" (").next().unwrap_or("").trim().to_string())
                .unwrap_or_else(|| "-cl-std=CL3.0".to_string());
            (self.program_source(&text), opts)
        } else {
            (self.program_il(spirv), String::new())
        };
        let err = p.build(&opts);
        assert!(
            err == CL_SUCCESS,
            "clBuildProgram({name}): {}\nlog:\n{}",
            err_name(err),
            p.build_log()
        );
        p
    }
}

impl Program {
    /// clBuildProgram for the device under test with `options`; the return code.
    pub fn build(&self, options: &str) -> cl_int {
        let opts = std::ffi::CString::new(options).unwrap();
        let dev = device();
        unsafe { clBuildProgram(self.0, 1, &dev, opts.as_ptr(), None, ptr::null_mut()) }
    }

    pub fn build_bytes(&self, param: cl_program_build_info) -> Result<Vec<u8>, cl_int> {
        info_bytes(|s, v, r| unsafe { clGetProgramBuildInfo(self.0, device(), param, s, v, r) })
    }

    pub fn build_log(&self) -> String {
        match self.build_bytes(CL_PROGRAM_BUILD_LOG) {
            Ok(b) => bytes_to_string(&b),
            Err(e) => format!("<clGetProgramBuildInfo(LOG) failed: {}>", err_name(e)),
        }
    }

    pub fn build_status(&self) -> cl_build_status {
        info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(self.0, device(), CL_PROGRAM_BUILD_STATUS, s, v, r) })
            .unwrap_or_else(|e| panic!("clGetProgramBuildInfo(STATUS): {}", err_name(e)))
    }

    pub fn info_bytes(&self, param: cl_program_info) -> Result<Vec<u8>, cl_int> {
        info_bytes(|s, v, r| unsafe { clGetProgramInfo(self.0, param, s, v, r) })
    }

    pub fn info<T: Copy + Default>(&self, param: cl_program_info) -> T {
        info_scalar(|s, v, r| unsafe { clGetProgramInfo(self.0, param, s, v, r) })
            .unwrap_or_else(|e| panic!("clGetProgramInfo({param:#x}): {}", err_name(e)))
    }

    pub fn try_kernel(&self, name: &str) -> Result<Kernel, cl_int> {
        let n = std::ffi::CString::new(name).unwrap();
        let mut err = 0;
        let k = unsafe { clCreateKernel(self.0, n.as_ptr(), &mut err) };
        if err != CL_SUCCESS {
            assert!(k.is_null(), "failed clCreateKernel returned a non-NULL handle");
            return Err(err);
        }
        assert!(!k.is_null());
        Ok(Kernel(k))
    }

    pub fn kernel(&self, name: &str) -> Kernel {
        self.try_kernel(name)
            .unwrap_or_else(|e| panic!("clCreateKernel({name}): {}", err_name(e)))
    }
}

impl Kernel {
    /// clSetKernelArg with a by-value argument (a `cl_mem` handle for buffers).
    pub fn arg<T: Copy>(&self, index: cl_uint, value: &T) {
        ok!(clSetKernelArg(
            self.0,
            index,
            std::mem::size_of::<T>(),
            value as *const T as *const c_void
        ));
    }

    pub fn arg_mem(&self, index: cl_uint, m: &Mem) {
        self.arg(index, &m.0);
    }

    /// A `__local` argument of `size` bytes.
    pub fn arg_local(&self, index: cl_uint, size: usize) {
        ok!(clSetKernelArg(self.0, index, size, ptr::null()));
    }

    pub fn info_bytes(&self, param: cl_kernel_info) -> Result<Vec<u8>, cl_int> {
        info_bytes(|s, v, r| unsafe { clGetKernelInfo(self.0, param, s, v, r) })
    }

    pub fn info<T: Copy + Default>(&self, param: cl_kernel_info) -> T {
        info_scalar(|s, v, r| unsafe { clGetKernelInfo(self.0, param, s, v, r) })
            .unwrap_or_else(|e| panic!("clGetKernelInfo({param:#x}): {}", err_name(e)))
    }

    pub fn work_group_info<T: Copy + Default>(&self, param: cl_kernel_work_group_info) -> T {
        info_scalar(|s, v, r| unsafe { clGetKernelWorkGroupInfo(self.0, device(), param, s, v, r) })
            .unwrap_or_else(|e| panic!("clGetKernelWorkGroupInfo({param:#x}): {}", err_name(e)))
    }
}

impl Queue {
    /// clEnqueueNDRangeKernel with `global.len()` dimensions; `offset`/`local` may be empty
    /// (NULL). Returns the code.
    pub fn try_nd_range(&self, k: &Kernel, offset: &[usize], global: &[usize], local: &[usize]) -> cl_int {
        let off = if offset.is_empty() {
            ptr::null()
        } else {
            offset.as_ptr()
        };
        let loc = if local.is_empty() { ptr::null() } else { local.as_ptr() };
        unsafe {
            clEnqueueNDRangeKernel(
                self.0,
                k.0,
                global.len() as cl_uint,
                off,
                global.as_ptr(),
                loc,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    }

    /// Enqueues an ND-range, checking CL_SUCCESS, and waits for it (clFinish).
    pub fn run(&self, k: &Kernel, offset: &[usize], global: &[usize], local: &[usize]) {
        let err = self.try_nd_range(k, offset, global, local);
        assert!(
            err == CL_SUCCESS,
            "clEnqueueNDRangeKernel(global {global:?}, local {local:?}, offset {offset:?}): {}",
            err_name(err)
        );
        self.finish();
    }
}

/// Plain-data values as bytes (for buffers).
pub fn as_bytes<T: Copy>(v: &[T]) -> &[u8] {
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// Bytes read back from a buffer as values of `T`.
pub fn from_bytes<T: Copy>(b: &[u8]) -> Vec<T> {
    bytes_to_vec(b)
}

// ---------------------------------------------------------------------------------------------
// OpenCL C programs (`cts/kernels/source`): creation from several strings, compile with
// embedded headers, link, binaries, and scratch directories for -I headers and caches.
// ---------------------------------------------------------------------------------------------

/// Text of `cts/kernels/source/<file>`.
pub fn source_text(file: &str) -> String {
    kernel_text(&format!("source/{file}"))
}

/// A fresh, empty directory under the system temporary directory, removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!("clift-cts-{tag}-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
        TempDir(p)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Context {
    /// clCreateProgramWithSource with `strings.len()` strings and the given `lengths` (NULL when
    /// `None`); the error code on failure (checking the handle is NULL).
    pub fn try_program_sources(&self, strings: &[*const c_char], lengths: Option<&[usize]>) -> Result<Program, cl_int> {
        let mut err = 0;
        let lens = lengths.map_or(ptr::null(), |l| l.as_ptr());
        let p = unsafe {
            clCreateProgramWithSource(
                self.0,
                strings.len() as cl_uint,
                strings.as_ptr() as *mut *const c_char,
                lens,
                &mut err,
            )
        };
        if err != CL_SUCCESS {
            assert!(
                p.is_null(),
                "failed clCreateProgramWithSource returned a non-NULL handle"
            );
            return Err(err);
        }
        assert!(!p.is_null());
        Ok(Program(p))
    }

    /// A program from `cts/kernels/source/<file>`, not built.
    pub fn source_program(&self, file: &str) -> Program {
        self.program_source(&source_text(file))
    }

    /// `cts/kernels/source/<file>` built with `options`; panics with the build log on failure.
    pub fn built_source(&self, file: &str, options: &str) -> Program {
        let p = self.source_program(file);
        let err = p.build(options);
        assert!(
            err == CL_SUCCESS,
            "clBuildProgram({file}, {options:?}): {}\nlog:\n{}",
            err_name(err),
            p.build_log()
        );
        p
    }

    /// `cts/kernels/source/<file>` compiled with clCompileProgram, `options` and the embedded
    /// headers `hdrs` (include name, header program); panics with the log on failure and checks
    /// the result is a compiled object.
    pub fn compiled_source(&self, file: &str, options: &str, hdrs: &[(&str, &Program)]) -> Program {
        let p = self.source_program(file);
        let err = p.compile(options, hdrs);
        assert!(
            err == CL_SUCCESS,
            "clCompileProgram({file}): {}\nlog:\n{}",
            err_name(err),
            p.build_log()
        );
        assert_eq!(p.build_status(), CL_BUILD_SUCCESS, "{file}");
        assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "{file}");
        p
    }

    /// clLinkProgram that must succeed; panics with the log otherwise.
    pub fn linked(&self, options: &str, inputs: &[&Program]) -> Program {
        let (p, err) = self.link(options, inputs);
        let log = p.as_ref().map(|p| p.build_log()).unwrap_or_default();
        assert!(
            err == CL_SUCCESS,
            "clLinkProgram({options:?}): {}\nlog:\n{log}",
            err_name(err)
        );
        let p = p.expect("a successful clLinkProgram returns a program");
        assert_eq!(p.build_status(), CL_BUILD_SUCCESS);
        p
    }

    /// clLinkProgram for the device under test: the program (also returned on a link failure,
    /// when the implementation returns one) and the error code.
    pub fn link(&self, options: &str, inputs: &[&Program]) -> (Option<Program>, cl_int) {
        let opts = std::ffi::CString::new(options).unwrap();
        let dev = device();
        let handles: Vec<cl_program> = inputs.iter().map(|p| p.0).collect();
        let mut err = 0;
        let p = unsafe {
            clLinkProgram(
                self.0,
                1,
                &dev,
                opts.as_ptr(),
                handles.len() as cl_uint,
                handles.as_ptr(),
                None,
                ptr::null_mut(),
                &mut err,
            )
        };
        ((!p.is_null()).then_some(Program(p)), err)
    }

    /// clCreateProgramWithBinary for the device under test; the error code on failure.
    pub fn try_program_binary(&self, binary: &[u8]) -> Result<Program, cl_int> {
        let dev = device();
        let len = binary.len();
        let bp = binary.as_ptr();
        let mut status = 99;
        let mut err = 0;
        let p = unsafe {
            clCreateProgramWithBinary(
                self.0,
                1,
                &dev,
                &len,
                &bp as *const *const u8 as *mut _,
                &mut status,
                &mut err,
            )
        };
        if err != CL_SUCCESS {
            assert!(
                p.is_null(),
                "failed clCreateProgramWithBinary returned a non-NULL handle"
            );
            return Err(err);
        }
        assert_eq!(
            status, CL_SUCCESS,
            "binary_status of a successful clCreateProgramWithBinary"
        );
        Ok(Program(p))
    }
}

impl Program {
    /// clCompileProgram for the device under test with embedded headers (include name, header
    /// program); the return code.
    pub fn compile(&self, options: &str, headers: &[(&str, &Program)]) -> cl_int {
        let opts = std::ffi::CString::new(options).unwrap();
        let dev = device();
        let names: Vec<std::ffi::CString> = headers
            .iter()
            .map(|(n, _)| std::ffi::CString::new(*n).unwrap())
            .collect();
        let mut name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let progs: Vec<cl_program> = headers.iter().map(|(_, p)| p.0).collect();
        let (hp, np) = if headers.is_empty() {
            (ptr::null(), ptr::null_mut())
        } else {
            (progs.as_ptr(), name_ptrs.as_mut_ptr())
        };
        unsafe {
            clCompileProgram(
                self.0,
                1,
                &dev,
                opts.as_ptr(),
                headers.len() as cl_uint,
                hp,
                np,
                None,
                ptr::null_mut(),
            )
        }
    }

    /// CL_PROGRAM_BINARY_TYPE for the device under test.
    pub fn binary_type(&self) -> cl_program_binary_type {
        info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(self.0, device(), CL_PROGRAM_BINARY_TYPE, s, v, r) })
            .unwrap_or_else(|e| panic!("clGetProgramBuildInfo(BINARY_TYPE): {}", err_name(e)))
    }

    /// The program's binary for the device under test (CL_PROGRAM_BINARY_SIZES, then
    /// CL_PROGRAM_BINARIES).
    pub fn binary(&self) -> Vec<u8> {
        let sizes: Vec<size_t> = bytes_to_vec(&self.info_bytes(CL_PROGRAM_BINARY_SIZES).unwrap());
        assert_eq!(sizes.len(), 1, "one binary size per device");
        let mut bin = vec![0u8; sizes[0]];
        let mut ptrs = [bin.as_mut_ptr()];
        ok!(clGetProgramInfo(
            self.0,
            CL_PROGRAM_BINARIES,
            std::mem::size_of_val(&ptrs),
            ptrs.as_mut_ptr() as *mut c_void,
            ptr::null_mut()
        ));
        bin
    }
}

// ---------------------------------------------------------------------------------------------
// Images and samplers
// ---------------------------------------------------------------------------------------------

/// A sampler object; releases its reference on drop.
pub struct Sampler(pub cl_sampler);

unsafe impl Send for Sampler {}
unsafe impl Sync for Sampler {}

impl Drop for Sampler {
    fn drop(&mut self) {
        if !self.0.is_null() {
            let err = unsafe { clReleaseSampler(self.0) };
            if !std::thread::panicking() {
                assert_eq!(err, CL_SUCCESS, "clReleaseSampler: {}", err_name(err));
            }
        }
    }
}

/// An image descriptor of `image_type` with `size` = (width, height, depth, array size), the
/// entries a type does not use being passed as given.
pub fn image_desc(
    image_type: cl_mem_object_type,
    size: [usize; 4],
    row_pitch: usize,
    slice_pitch: usize,
    buffer: cl_mem,
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: size[3],
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer,
    }
}

/// The (width, rows, slices) region covering a whole image of `image_type` and `size` =
/// (width, height, depth, array size), as image commands take it: a 1D array's layers are rows,
/// a 2D array's layers are slices.
pub fn image_region(image_type: cl_mem_object_type, size: [usize; 4]) -> [usize; 3] {
    let [w, h, d, a] = size;
    match image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [w, a, 1],
        CL_MEM_OBJECT_IMAGE2D => [w, h, 1],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [w, h, a],
        CL_MEM_OBJECT_IMAGE3D => [w, h, d],
        _ => [w, 1, 1],
    }
}

pub fn image_info<T: Copy + Default>(m: cl_mem, param: cl_image_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetImageInfo(m, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetImageInfo({param:#x}): {}", err_name(e)))
}

pub fn image_bytes(m: cl_mem, param: cl_image_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetImageInfo(m, param, s, v, r) })
}

pub fn sampler_info<T: Copy + Default>(s: cl_sampler, param: cl_sampler_info) -> T {
    info_scalar(|sz, v, r| unsafe { clGetSamplerInfo(s, param, sz, v, r) })
        .unwrap_or_else(|e| panic!("clGetSamplerInfo({param:#x}): {}", err_name(e)))
}

pub fn sampler_bytes(s: cl_sampler, param: cl_sampler_info) -> Result<Vec<u8>, cl_int> {
    info_bytes(|sz, v, r| unsafe { clGetSamplerInfo(s, param, sz, v, r) })
}

impl Context {
    /// clCreateImage; the error code on failure (checking the handle is NULL).
    pub fn try_image(
        &self,
        flags: cl_mem_flags,
        format: &cl_image_format,
        desc: &cl_image_desc,
        host_ptr: *mut c_void,
    ) -> Result<Mem, cl_int> {
        let mut err = 0;
        let m = unsafe { clCreateImage(self.0, flags, format, desc, host_ptr, &mut err) };
        if err != CL_SUCCESS {
            assert!(m.is_null(), "failed clCreateImage returned a non-NULL handle");
            return Err(err);
        }
        assert!(!m.is_null());
        Ok(Mem(m))
    }

    pub fn image(
        &self,
        flags: cl_mem_flags,
        format: &cl_image_format,
        desc: &cl_image_desc,
        host_ptr: *mut c_void,
    ) -> Mem {
        self.try_image(flags, format, desc, host_ptr).unwrap_or_else(|e| {
            panic!(
                "clCreateImage(flags {flags:#x}, format {:#x}/{:#x}, type {:#x} {}x{}x{} [{}], pitches {}/{}): {}",
                format.image_channel_order,
                format.image_channel_data_type,
                desc.image_type,
                desc.image_width,
                desc.image_height,
                desc.image_depth,
                desc.image_array_size,
                desc.image_row_pitch,
                desc.image_slice_pitch,
                err_name(e)
            )
        })
    }

    /// clGetSupportedImageFormats: the count, then the list.
    pub fn supported_image_formats(&self, flags: cl_mem_flags, image_type: cl_mem_object_type) -> Vec<cl_image_format> {
        let mut n: cl_uint = 0;
        ok!(clGetSupportedImageFormats(
            self.0,
            flags,
            image_type,
            0,
            ptr::null_mut(),
            &mut n
        ));
        let mut v = vec![
            cl_image_format {
                image_channel_order: 0,
                image_channel_data_type: 0
            };
            n as usize
        ];
        if n > 0 {
            ok!(clGetSupportedImageFormats(
                self.0,
                flags,
                image_type,
                n,
                v.as_mut_ptr(),
                ptr::null_mut()
            ));
        }
        v
    }

    /// clCreateSamplerWithProperties with the three properties; the error code on failure.
    pub fn try_sampler(
        &self,
        normalized: bool,
        addressing: cl_addressing_mode,
        filter: cl_filter_mode,
    ) -> Result<Sampler, cl_int> {
        let props: [cl_sampler_properties; 7] = [
            CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
            normalized as cl_sampler_properties,
            CL_SAMPLER_ADDRESSING_MODE as cl_sampler_properties,
            addressing as cl_sampler_properties,
            CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
            filter as cl_sampler_properties,
            0,
        ];
        self.try_sampler_props(Some(&props))
    }

    /// clCreateSamplerWithProperties with a raw property list (NULL when `None`).
    pub fn try_sampler_props(&self, props: Option<&[cl_sampler_properties]>) -> Result<Sampler, cl_int> {
        let mut err = 0;
        let p = props.map_or(ptr::null(), |p| p.as_ptr());
        let s = unsafe { clCreateSamplerWithProperties(self.0, p, &mut err) };
        if err != CL_SUCCESS {
            assert!(
                s.is_null(),
                "failed clCreateSamplerWithProperties returned a non-NULL handle"
            );
            return Err(err);
        }
        assert!(!s.is_null());
        Ok(Sampler(s))
    }

    pub fn sampler(&self, normalized: bool, addressing: cl_addressing_mode, filter: cl_filter_mode) -> Sampler {
        self.try_sampler(normalized, addressing, filter).unwrap_or_else(|e| {
            panic!(
                "clCreateSamplerWithProperties({normalized}, {addressing:#x}, {filter:#x}): {}",
                err_name(e)
            )
        })
    }
}

impl Queue {
    /// clEnqueueWriteImage, blocking; the return code.
    pub fn try_write_image(
        &self,
        img: &Mem,
        origin: [usize; 3],
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
        data: &[u8],
    ) -> cl_int {
        unsafe {
            clEnqueueWriteImage(
                self.0,
                img.0,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                row_pitch,
                slice_pitch,
                data.as_ptr() as *const c_void,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    }

    pub fn write_image(
        &self,
        img: &Mem,
        origin: [usize; 3],
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
        data: &[u8],
    ) {
        let err = self.try_write_image(img, origin, region, row_pitch, slice_pitch, data);
        assert!(
            err == CL_SUCCESS,
            "clEnqueueWriteImage(origin {origin:?}, region {region:?}, pitches {row_pitch}/{slice_pitch}, {} bytes): {}",
            data.len(),
            err_name(err)
        );
    }

    /// clEnqueueReadImage, blocking, into `out`; the return code.
    pub fn try_read_image(
        &self,
        img: &Mem,
        origin: [usize; 3],
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
        out: &mut [u8],
    ) -> cl_int {
        unsafe {
            clEnqueueReadImage(
                self.0,
                img.0,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                row_pitch,
                slice_pitch,
                out.as_mut_ptr() as *mut c_void,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        }
    }

    /// Blocking read of `len` bytes laid out with the given pitches.
    pub fn read_image(
        &self,
        img: &Mem,
        origin: [usize; 3],
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
        len: usize,
    ) -> Vec<u8> {
        let mut v = vec![0u8; len];
        let err = self.try_read_image(img, origin, region, row_pitch, slice_pitch, &mut v);
        assert!(
            err == CL_SUCCESS,
            "clEnqueueReadImage(origin {origin:?}, region {region:?}, pitches {row_pitch}/{slice_pitch}): {}",
            err_name(err)
        );
        v
    }
}

impl Kernel {
    pub fn arg_sampler(&self, index: cl_uint, s: &Sampler) {
        self.arg(index, &s.0);
    }
}
