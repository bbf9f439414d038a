//! Clift's OpenCL objects and their behaviour. The icd crate turns C calls into calls here.

pub mod clock;
pub mod info;
pub mod object;
