//! The entry points, one module per area of the API specification.

mod command_buffer;
mod context;
mod device;
mod event;
mod image;
mod kernel;
mod memory;
mod native;
mod pipe;
mod platform;
mod program;
mod queue;
mod sampler;
mod subgroup;
mod svm;
mod unsupported;

pub use command_buffer::*;
pub use context::*;
pub use device::*;
pub use event::*;
pub use image::*;
pub use kernel::*;
pub use memory::*;
pub use native::*;
pub use pipe::*;
pub use platform::*;
pub use program::*;
pub use queue::*;
pub use sampler::*;
pub use subgroup::*;
pub use svm::*;
pub use unsupported::*;
