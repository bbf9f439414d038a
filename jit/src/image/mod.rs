//! The image engine: texel formats, the conversion rules and the sampler of the OpenCL
//! SPIR-V environment, section 7. One engine serves kernels (the `clift_image_*` symbols the
//! JIT calls) and the runtime's host image commands, so they never disagree about a texel.

/// `(name, address)` of every image entry point, for the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    Vec::new()
}
