//! Clift's OpenCL objects and their behaviour. The icd crate turns C calls into calls here.

pub mod arginfo;
pub mod binary;
pub mod cache;
pub mod callback;
pub mod clc;
pub mod clock;
pub mod context;
pub mod cpuset;
pub mod device;
pub mod event;
pub mod executor;
pub mod image;
pub mod info;
pub mod kernel;
pub mod memory;
pub mod ndrange;
pub mod object;
pub mod options;
pub mod partition;
pub mod platform;
pub mod program;
pub mod queue;
pub mod rect;
pub mod sampler;
pub mod topology;
pub mod workers;
