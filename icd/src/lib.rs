//! libclift.so: the OpenCL entry points of Clift, exported for the ICD loader (through the
//! dispatch table in every object) and under their plain `cl*` names for direct linking.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

pub mod api;
pub mod dispatch;
pub mod guard;
pub mod handles;

/// Hands the dispatch table to the runtime when the library is loaded, before any object
/// (whose first field must point at the table) can be made.
extern "C" fn register_dispatch() {
    runtime::object::set_dispatch(&dispatch::DISPATCH as *const _ as *const std::ffi::c_void);
}

#[used]
#[link_section = ".init_array"]
static REGISTER_DISPATCH: extern "C" fn() = register_dispatch;
