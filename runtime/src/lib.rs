//! Clift's OpenCL objects and their behaviour. The icd crate turns C calls into calls here.

pub mod callback;
pub mod clock;
pub mod context;
pub mod device;
pub mod event;
pub mod executor;
pub mod info;
pub mod memory;
pub mod object;
pub mod platform;
pub mod queue;
pub mod rect;
