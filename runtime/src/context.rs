//! Contexts (API section 4.4).

use crate::callback::{run_destructors, ObjectCallback, UserData};
use crate::device::Device;
use crate::object::{ClObject, Header, Kind};
use opencl_sys::cl_context_properties;
use std::ffi::{c_char, c_void, CString};
use std::sync::Mutex;

/// The `pfn_notify` of clCreateContext: reports errors that happen in this context.
pub type NotifyFn = unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);

#[repr(C)]
pub struct Context {
    header: Header,
    pub devices: Vec<&'static Device>,
    /// The property list as the application gave it, with its terminating zero (empty when
    /// it gave none): `CL_CONTEXT_PROPERTIES` returns it verbatim.
    pub properties: Vec<cl_context_properties>,
    notify: Option<(NotifyFn, UserData)>,
    destructors: Mutex<Vec<ObjectCallback>>,
}

impl ClObject for Context {
    const KIND: Kind = Kind::Context;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Context {
    pub fn new(
        devices: Vec<&'static Device>,
        properties: Vec<cl_context_properties>,
        notify: Option<(NotifyFn, UserData)>,
    ) -> Context {
        // A context keeps its sub-devices' handles valid (see `Device::hold`).
        for d in &devices {
            d.hold();
        }
        Context {
            header: Header::new(Kind::Context),
            devices,
            properties,
            notify,
            destructors: Mutex::new(Vec::new()),
        }
    }

    pub fn has_device(&self, device: &Device) -> bool {
        self.devices.iter().any(|d| std::ptr::eq(*d, device))
    }

    /// The NUMA node every CPU of every device of this context lies in, if there is one (a
    /// context on a sub-device partitioned by NUMA node, or on a process bound to one node):
    /// its memory objects are placed there.
    pub fn numa_node(&self) -> Option<usize> {
        let cpus: Vec<usize> = self.devices.iter().flat_map(|d| d.units().iter().copied()).collect();
        crate::topology::machine().common_node(&cpus)
    }

    pub fn add_destructor(&self, cb: ObjectCallback) {
        self.destructors.lock().unwrap_or_else(|e| e.into_inner()).push(cb);
    }

    /// Tells the application about an error in this context through its `pfn_notify`.
    pub fn report(&self, message: &str) {
        if let Some((func, user_data)) = self.notify {
            let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the application registered this callback for such reports.
            unsafe { func(text.as_ptr(), std::ptr::null(), 0, user_data.0) };
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let callbacks = std::mem::take(self.destructors.get_mut().unwrap_or_else(|e| e.into_inner()));
        // SAFETY: the callbacks were registered for this object.
        unsafe { run_destructors(callbacks, self as *mut Context as *mut c_void) };
        for d in &self.devices {
            d.unhold();
        }
    }
}
