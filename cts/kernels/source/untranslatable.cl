// Inline assembly: llvm-spirv 15 has no translation for it (without SPV_INTEL_inline_assembly)
// at any optimization level, so the build must fail with llvm-spirv's message in the log.
kernel void asm_kernel(global int *out) {
    int v = 1;
    __asm__ volatile("" : "+r"(v));
    out[get_global_id(0)] = v;
}
