// Image writes for tests/image_kernel.rs: write_<k>_<t> writes color[i] at integer coordinates
// c[i] (x, y, z with an array's layer after the spatial ones) with write_imagef (k = f),
// write_imagei (i) or write_imageui (ui); the depth kernels write color[i].x. rw_<k>_<t> reads
// the texel at c[i] of a read_write image into got[i], then writes color[i] there. Types as in
// image_read.cl. write_if_<k>_2d: see below.
// cts-source-options: -cl-std=CL3.0

#define WRITES(K, T4, FN, RD)                                                                              \
    kernel void write_##K##_1d(write_only image1d_t img, global const int4 *c, global const T4 *color) {  \
        size_t i = get_global_id(0); FN(img, c[i].x, color[i]); }                                          \
    kernel void write_##K##_1db(write_only image1d_buffer_t img, global const int4 *c, global const T4 *color) { \
        size_t i = get_global_id(0); FN(img, c[i].x, color[i]); }                                          \
    kernel void write_##K##_1da(write_only image1d_array_t img, global const int4 *c, global const T4 *color) { \
        size_t i = get_global_id(0); FN(img, c[i].xy, color[i]); }                                         \
    kernel void write_##K##_2d(write_only image2d_t img, global const int4 *c, global const T4 *color) {  \
        size_t i = get_global_id(0); FN(img, c[i].xy, color[i]); }                                         \
    kernel void write_##K##_2da(write_only image2d_array_t img, global const int4 *c, global const T4 *color) { \
        size_t i = get_global_id(0); FN(img, c[i], color[i]); }                                            \
    kernel void write_##K##_3d(write_only image3d_t img, global const int4 *c, global const T4 *color) {  \
        size_t i = get_global_id(0); FN(img, c[i], color[i]); }                                            \
    kernel void rw_##K##_2d(read_write image2d_t img, global const int4 *c, global const T4 *color, global T4 *got) { \
        size_t i = get_global_id(0); got[i] = RD(img, c[i].xy); FN(img, c[i].xy, color[i]); }             \
    kernel void rw_##K##_3d(read_write image3d_t img, global const int4 *c, global const T4 *color, global T4 *got) { \
        size_t i = get_global_id(0); got[i] = RD(img, c[i]); FN(img, c[i], color[i]); }                   \
    kernel void rw_##K##_1da(read_write image1d_array_t img, global const int4 *c, global const T4 *color, global T4 *got) { \
        size_t i = get_global_id(0); got[i] = RD(img, c[i].xy); FN(img, c[i].xy, color[i]); }

WRITES(f, float4, write_imagef, read_imagef)
WRITES(i, int4, write_imagei, read_imagei)
WRITES(ui, uint4, write_imageui, read_imageui)

// write_if_<k>_2d: only the work-items whose flag is set write, after a store that keeps the
// work-items that disagree together (in the vector loop: writes under the execution mask).
#define WRITE_IF(K, T4, FN)                                                                                \
    kernel void write_if_##K##_2d(write_only image2d_t img, global const int4 *c, global const T4 *color, \
                                  global int *flag) {                                                    \
        size_t i = get_global_id(0); int f = flag[i]; flag[i] = f + 1; if (f) FN(img, c[i].xy, color[i]); }

WRITE_IF(f, float4, write_imagef)
WRITE_IF(ui, uint4, write_imageui)

// Depth images (PoCL 3.1 has none: -DCTS_NO_DEPTH_IMAGES leaves them out).
#ifndef CTS_NO_DEPTH_IMAGES
kernel void write_f_2dd(write_only image2d_depth_t img, global const int4 *c, global const float4 *color) {
    size_t i = get_global_id(0); write_imagef(img, c[i].xy, color[i].x); }
kernel void write_f_2dad(write_only image2d_array_depth_t img, global const int4 *c, global const float4 *color) {
    size_t i = get_global_id(0); write_imagef(img, c[i], color[i].x); }
#endif
