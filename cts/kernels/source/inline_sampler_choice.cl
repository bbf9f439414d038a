// Issue 21: a plain inline helper in a program whose optimized IR llvm-spirv 15 cannot
// translate (a run-time choice between two literal samplers), so that Clift translates the
// unoptimized IR instead: the inline definition must survive that path too.
constant sampler_t at_texel = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
constant sampler_t blended = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

inline bool wants_texel(int which) { return (which & 1) != 0; }

kernel void choose_inline(read_only image2d_t img, int which, global float4 *out) {
    out[0] = wants_texel(which) ? read_imagef(img, at_texel, (float2)(0.5f))
                                : read_imagef(img, blended, (float2)(0.5f));
}
