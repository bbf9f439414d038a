//! SPIR-V front end and JIT (see the SPIR-V front-end issue).

pub mod spirv;
