//! The entry points, one module per area of the API specification.

mod context;
mod event;
mod memory;
mod platform;
mod queue;
mod unsupported;

pub use context::*;
pub use event::*;
pub use memory::*;
pub use platform::*;
pub use queue::*;
pub use unsupported::*;
