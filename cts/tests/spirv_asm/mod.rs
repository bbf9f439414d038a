//! Kernels of the tests in SPIR-V assembly, assembled by Clift's own assembler (shared by the
//! test files that build their kernels with clCreateProgramWithIL).

use cts::{kernel_text, spvasm_version};

/// The SPIR-V binary of `cts/kernels/<name>.spvasm`, assembled by Clift's own assembler at the
/// version its `; Version:` header names (1.0 without one).
pub fn spirv(name: &str) -> Vec<u8> {
    let text = kernel_text(&format!("{name}.spvasm"));
    let opts = jit::spirv::AsmOptions {
        version: spvasm_version(&text),
        ..Default::default()
    };
    let words = jit::spirv::assemble(&text, opts).unwrap_or_else(|e| panic!("assemble {name}.spvasm: {e:?}"));
    jit::spirv::words_to_bytes(&words)
}
