// Image reads for tests/image_kernel.rs, compared there with cts::image_ref.
// read_<k>_<t>:  sampled read with a sampler argument at float coordinates c[i];
// readi_<k>_<t>: sampled read with a sampler argument at integer coordinates ci[i];
// load_<k>_<t>:  sampler-less read (OpImageRead) at integer coordinates ci[i];
// <k> is f (read_imagef), i (read_imagei) or ui (read_imageui); <t> is the image type: 1d, 1da
// (1D array), 1db (1D image buffer, sampler-less only), 2d, 2da (2D array), 3d, 2dd (2D depth)
// and 2dad (2D array depth). The coordinate vector holds x, y, z with an array's layer after
// the spatial coordinates; a depth read returns its scalar in .x of out[i].
// cts-source-options: -cl-std=CL3.0

#define READS(K, T4, FN)                                                                                   \
    kernel void read_##K##_1d(read_only image1d_t img, sampler_t s, global const float4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i].x); }                                       \
    kernel void read_##K##_1da(read_only image1d_array_t img, sampler_t s, global const float4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i].xy); }                                      \
    kernel void read_##K##_2d(read_only image2d_t img, sampler_t s, global const float4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i].xy); }                                      \
    kernel void read_##K##_2da(read_only image2d_array_t img, sampler_t s, global const float4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i]); }                                         \
    kernel void read_##K##_3d(read_only image3d_t img, sampler_t s, global const float4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i]); }                                         \
    kernel void readi_##K##_1d(read_only image1d_t img, sampler_t s, global const int4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i].x); }                                       \
    kernel void readi_##K##_1da(read_only image1d_array_t img, sampler_t s, global const int4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i].xy); }                                      \
    kernel void readi_##K##_2d(read_only image2d_t img, sampler_t s, global const int4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i].xy); }                                      \
    kernel void readi_##K##_2da(read_only image2d_array_t img, sampler_t s, global const int4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i]); }                                         \
    kernel void readi_##K##_3d(read_only image3d_t img, sampler_t s, global const int4 *c, global T4 *out) { \
        size_t i = get_global_id(0); out[i] = FN(img, s, c[i]); }                                         \
    kernel void load_##K##_1d(read_only image1d_t img, global const int4 *c, global T4 *out) {            \
        size_t i = get_global_id(0); out[i] = FN(img, c[i].x); }                                          \
    kernel void load_##K##_1db(read_only image1d_buffer_t img, global const int4 *c, global T4 *out) {    \
        size_t i = get_global_id(0); out[i] = FN(img, c[i].x); }                                          \
    kernel void load_##K##_1da(read_only image1d_array_t img, global const int4 *c, global T4 *out) {     \
        size_t i = get_global_id(0); out[i] = FN(img, c[i].xy); }                                         \
    kernel void load_##K##_2d(read_only image2d_t img, global const int4 *c, global T4 *out) {            \
        size_t i = get_global_id(0); out[i] = FN(img, c[i].xy); }                                         \
    kernel void load_##K##_2da(read_only image2d_array_t img, global const int4 *c, global T4 *out) {     \
        size_t i = get_global_id(0); out[i] = FN(img, c[i]); }                                            \
    kernel void load_##K##_3d(read_only image3d_t img, global const int4 *c, global T4 *out) {            \
        size_t i = get_global_id(0); out[i] = FN(img, c[i]); }

READS(f, float4, read_imagef)
READS(i, int4, read_imagei)
READS(ui, uint4, read_imageui)

// Depth images (PoCL 3.1 has none: -DCTS_NO_DEPTH_IMAGES leaves them out).
#ifndef CTS_NO_DEPTH_IMAGES
kernel void read_f_2dd(read_only image2d_depth_t img, sampler_t s, global const float4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = (float4)(read_imagef(img, s, c[i].xy), 0.0f, 0.0f, 0.0f); }
kernel void read_f_2dad(read_only image2d_array_depth_t img, sampler_t s, global const float4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = (float4)(read_imagef(img, s, c[i]), 0.0f, 0.0f, 0.0f); }
kernel void readi_f_2dd(read_only image2d_depth_t img, sampler_t s, global const int4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = (float4)(read_imagef(img, s, c[i].xy), 0.0f, 0.0f, 0.0f); }
kernel void readi_f_2dad(read_only image2d_array_depth_t img, sampler_t s, global const int4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = (float4)(read_imagef(img, s, c[i]), 0.0f, 0.0f, 0.0f); }
kernel void load_f_2dd(read_only image2d_depth_t img, global const int4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = (float4)(read_imagef(img, c[i].xy), 0.0f, 0.0f, 0.0f); }
kernel void load_f_2dad(read_only image2d_array_depth_t img, global const int4 *c, global float4 *out) {
    size_t i = get_global_id(0); out[i] = (float4)(read_imagef(img, c[i]), 0.0f, 0.0f, 0.0f); }
#endif
