// Sampled reads with literal samplers (program-scope sampler_t constants, OpConstantSampler in
// SPIR-V): lit_<k>_<t> reads with literal sampler number `which` (the order of
// cts::image_ref::Sampler::all(): unnormalized NONE, CLAMP_TO_EDGE, CLAMP, each NEAREST then
// LINEAR; then normalized NONE, CLAMP_TO_EDGE, CLAMP, REPEAT, MIRRORED_REPEAT, each NEAREST
// then LINEAR). For tests/image_kernel.rs.
// cts-source-options: -cl-std=CL3.0

constant sampler_t S0 = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
constant sampler_t S1 = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_LINEAR;
constant sampler_t S2 = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
constant sampler_t S3 = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
constant sampler_t S4 = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
constant sampler_t S5 = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;
constant sampler_t S6 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
constant sampler_t S7 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_NONE | CLK_FILTER_LINEAR;
constant sampler_t S8 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
constant sampler_t S9 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
constant sampler_t S10 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
constant sampler_t S11 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;
constant sampler_t S12 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;
constant sampler_t S13 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
constant sampler_t S14 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;
constant sampler_t S15 = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;

#define PICK(FN, IMG, C, W)                  \
    switch (W) {                             \
    case 0: return FN(IMG, S0, C);           \
    case 1: return FN(IMG, S1, C);           \
    case 2: return FN(IMG, S2, C);           \
    case 3: return FN(IMG, S3, C);           \
    case 4: return FN(IMG, S4, C);           \
    case 5: return FN(IMG, S5, C);           \
    case 6: return FN(IMG, S6, C);           \
    case 7: return FN(IMG, S7, C);           \
    case 8: return FN(IMG, S8, C);           \
    case 9: return FN(IMG, S9, C);           \
    case 10: return FN(IMG, S10, C);         \
    case 11: return FN(IMG, S11, C);         \
    case 12: return FN(IMG, S12, C);         \
    case 13: return FN(IMG, S13, C);         \
    case 14: return FN(IMG, S14, C);         \
    default: return FN(IMG, S15, C);         \
    }

static float4 pick_f_2d(read_only image2d_t img, float2 c, int w) { PICK(read_imagef, img, c, w) }
static float4 pick_f_3d(read_only image3d_t img, float4 c, int w) { PICK(read_imagef, img, c, w) }
static float4 pick_f_1da(read_only image1d_array_t img, float2 c, int w) { PICK(read_imagef, img, c, w) }
static int4 pick_i_2d(read_only image2d_t img, float2 c, int w) { PICK(read_imagei, img, c, w) }
static uint4 pick_ui_2d(read_only image2d_t img, float2 c, int w) { PICK(read_imageui, img, c, w) }

kernel void lit_f_2d(read_only image2d_t img, int which, global const float4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = pick_f_2d(img, c[i].xy, which); }
kernel void lit_f_3d(read_only image3d_t img, int which, global const float4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = pick_f_3d(img, c[i], which); }
kernel void lit_f_1da(read_only image1d_array_t img, int which, global const float4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = pick_f_1da(img, c[i].xy, which); }
kernel void lit_i_2d(read_only image2d_t img, int which, global const float4 *c, global int4 *out) {
    size_t i = get_global_id(0); out[i] = pick_i_2d(img, c[i].xy, which); }
kernel void lit_ui_2d(read_only image2d_t img, int which, global const float4 *c, global uint4 *out) {
    size_t i = get_global_id(0); out[i] = pick_ui_2d(img, c[i].xy, which); }
