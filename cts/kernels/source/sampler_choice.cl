// Two literal samplers chosen at run time. clang -O2 turns the choice into a select between
// samplers, which llvm-spirv 15 cannot translate (an assertion); Clift then translates the
// unoptimized IR instead.
constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
constant sampler_t linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

kernel void choose(read_only image2d_t img, int which, global float4 *out) {
    out[0] = which ? read_imagef(img, nearest, (float2)(0.5f)) : read_imagef(img, linear, (float2)(0.5f));
}
