//! SPIR-V front end and JIT (see the SPIR-V front-end issue).

pub mod abi;
pub mod builtins;
pub mod codegen;
pub mod fault;
pub mod image;
pub mod pipe;
pub mod spirv;

pub use codegen::{compile, CompileError, CompileOptions, Kernel, Program};
