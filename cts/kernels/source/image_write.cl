// Image writes for tests/image_inline.rs (inline writes against the reference engine).
// write_<k>_<t>: writes v[i] at integer coordinates c[i] (x, y, z, an array's layer after the
// spatial coordinates); <k> is f (write_imagef), i (write_imagei) or ui (write_imageui), <t>
// the image type: 1d, 1da (1D array), 2d, 2da (2D array), 3d.

#define WRITES(K, T4, FN)                                                                                  \
    kernel void write_##K##_1d(write_only image1d_t img, global const int4 *c, global const T4 *v) {        \
        size_t i = get_global_id(0); FN(img, c[i].x, v[i]); }                                              \
    kernel void write_##K##_1da(write_only image1d_array_t img, global const int4 *c, global const T4 *v) { \
        size_t i = get_global_id(0); FN(img, c[i].xy, v[i]); }                                             \
    kernel void write_##K##_2d(write_only image2d_t img, global const int4 *c, global const T4 *v) {       \
        size_t i = get_global_id(0); FN(img, c[i].xy, v[i]); }                                             \
    kernel void write_##K##_2da(write_only image2d_array_t img, global const int4 *c, global const T4 *v) { \
        size_t i = get_global_id(0); FN(img, c[i], v[i]); }                                                \
    kernel void write_##K##_3d(write_only image3d_t img, global const int4 *c, global const T4 *v) {       \
        size_t i = get_global_id(0); FN(img, c[i], v[i]); }

WRITES(f, float4, write_imagef)
WRITES(i, int4, write_imagei)
WRITES(ui, uint4, write_imageui)

// write_if_<k>_2d: only the work-items whose flag is set write (divergent writes: in the
// vector loop, under the execution mask).
kernel void write_if_f_2d(write_only image2d_t img, global const int4 *c, global const float4 *v,
                          global int *flag) {
    size_t i = get_global_id(0);
    int f = flag[i];
    flag[i] = f + 1; // a store before the branch: work-items that disagree stay in the quad
    if (f) write_imagef(img, c[i].xy, v[i]);
}
kernel void write_if_ui_2d(write_only image2d_t img, global const int4 *c, global const uint4 *v,
                           global int *flag) {
    size_t i = get_global_id(0);
    int f = flag[i];
    flag[i] = f + 1; // a store before the branch: work-items that disagree stay in the quad
    if (f) write_imageui(img, c[i].xy, v[i]);
}
