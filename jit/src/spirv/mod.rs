//! SPIR-V front end: binary parser into Clift's module representation, the
//! OpenCL-environment validator, and an assembler/disassembler for the
//! SPIR-V assembly syntax.

pub mod asm;
pub mod binary;
pub mod cfg;
pub mod dis;
pub mod grammar;
pub mod link;
pub mod module;
pub mod numbers;
pub mod validate;

pub use asm::{assemble, AsmError, AsmOptions};
pub use binary::{Header, Instruction, ParseError};
pub use dis::{disassemble, DisError, DisOptions};
pub use link::{imports_functions, link, LinkError};
pub use module::{parse, parse_words, Module};
pub use validate::{validate, DeviceFeatures, ValidationError};

/// Words to little-endian bytes (the layout `spirv-as` writes on x86).
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
