//! Application callbacks and the `user_data` they carry. The pointers belong to the
//! application; the spec makes it responsible for their thread safety.

use std::ffi::c_void;

/// A `user_data` pointer, sent to whichever thread runs the callback.
#[derive(Clone, Copy)]
pub struct UserData(pub *mut c_void);

// SAFETY: OpenCL hands user_data back to the application untouched; the application is
// responsible for synchronising what it points to (the spec says callbacks may run on any thread).
unsafe impl Send for UserData {}
unsafe impl Sync for UserData {}

/// `void (CL_CALLBACK *)(cl_xxx object, void *user_data)`: destructor callbacks of contexts,
/// memory objects and programs.
#[derive(Clone, Copy)]
pub struct ObjectCallback {
    pub func: unsafe extern "C" fn(*mut c_void, *mut c_void),
    pub user_data: UserData,
}

impl ObjectCallback {
    /// # Safety
    /// `object` must be the handle of the object the callback was registered for.
    pub unsafe fn call(&self, object: *mut c_void) {
        (self.func)(object, self.user_data.0)
    }
}

/// Runs destructor callbacks in the reverse order of their registration, as the spec requires
/// for contexts and memory objects.
///
/// # Safety
/// `object` must be the handle of the object the callbacks were registered for.
pub unsafe fn run_destructors(callbacks: Vec<ObjectCallback>, object: *mut c_void) {
    for cb in callbacks.into_iter().rev() {
        cb.call(object);
    }
}
