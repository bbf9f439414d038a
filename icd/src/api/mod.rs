//! The entry points, one module per area of the API specification.

mod context;
mod event;
mod kernel;
mod memory;
mod platform;
mod program;
mod queue;
mod unsupported;

pub use context::*;
pub use event::*;
pub use kernel::*;
pub use memory::*;
pub use platform::*;
pub use program::*;
pub use queue::*;
pub use unsupported::*;
