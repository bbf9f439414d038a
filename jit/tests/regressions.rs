//! Inputs that once crashed the front end or the JIT (most found by fuzzing, see fuzz/):
//! each must now give a result or an error, never a panic.

use jit::spirv::{self, DeviceFeatures};

#[test]
fn fuzz_regressions_do_not_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("regressions directory") {
        let path = entry.expect("entry").path();
        let bytes = std::fs::read(&path).expect("readable");
        seen += 1;
        let Ok(module) = spirv::parse(&bytes) else { continue };
        if spirv::validate(&module, &DeviceFeatures::default()).is_ok() {
            let _ = jit::codegen::compile(&module, &jit::codegen::CompileOptions::default());
        }
    }
    assert!(seen > 0);
}
