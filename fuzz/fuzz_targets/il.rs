//! Fuzzes everything a SPIR-V module passes through between clCreateProgramWithIL and a built
//! program: the parser, the OpenCL-environment validator, the disassembler and, for modules
//! the validator accepts, the Cranelift translation and the native code cache's image of the
//! result (written, then loaded back). Any panic, hang or runaway allocation is
//! a bug (the ICD would turn a panic into an error code, but it must not happen at all).
#![no_main]

use jit::spirv::{self, DeviceFeatures, DisOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(module) = spirv::parse(data) else { return };
    if let Ok(words) = spirv::binary::words_from_bytes(data) {
        let _ = spirv::disassemble(&words, DisOptions::default());
    }
    if spirv::validate(&module, &DeviceFeatures::default()).is_ok() {
        let compiled = jit::codegen::compile_with_image(&module, &jit::codegen::CompileOptions::default());
        if let Ok((_, Some(image))) = compiled {
            let _ = jit::codegen::load_native(&image);
        }
    }
});
