// A saturating difference on uint4: InstCombine turns `x > y ? x - y : 0` into
// `llvm.usub.sat.v4i32`, on which llvm-spirv 15 asserts. Clift's front end must then legalize
// the same optimized IR (LLVM's scalarizer makes it four scalar `llvm.usub.sat.i32`, which
// llvm-spirv maps) instead of translating unoptimized IR. Run by cts/tests/source_optimized.rs.
kernel void saturating_difference(global const uint4 *x, global const uint4 *y, global uint4 *out) {
    size_t g = get_global_id(0);
    uint4 a = x[g], b = y[g];
    out[g] = a > b ? a - b : 0;
}
