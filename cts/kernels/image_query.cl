// Image queries for tests/image_kernel.rs: query_<t> stores, as ints, width, height, depth,
// array size (0 where the type has none), channel data type, channel order, and the
// components of get_image_dim (0 where the type has none).
// cts-source-options: -cl-std=CL3.0

#define STORE(W, H, D, A, DIM2, DIM4)                                                    \
    out[0] = W; out[1] = H; out[2] = D; out[3] = A;                                     \
    out[4] = get_image_channel_data_type(img); out[5] = get_image_channel_order(img);   \
    out[6] = DIM2.x; out[7] = DIM2.y; out[8] = DIM4.z; out[9] = DIM4.w;

kernel void query_1d(read_only image1d_t img, global int *out) {
    int w = get_image_width(img); STORE(w, 0, 0, 0, (int2)(0, 0), (int4)(0)) }
kernel void query_1db(read_only image1d_buffer_t img, global int *out) {
    int w = get_image_width(img); STORE(w, 0, 0, 0, (int2)(0, 0), (int4)(0)) }
kernel void query_1da(read_only image1d_array_t img, global int *out) {
    STORE(get_image_width(img), 0, 0, (int)get_image_array_size(img), (int2)(0, 0), (int4)(0)) }
kernel void query_2d(read_only image2d_t img, global int *out) {
    int2 d = get_image_dim(img);
    STORE(get_image_width(img), get_image_height(img), 0, 0, d, (int4)(0)) }
kernel void query_2da(write_only image2d_array_t img, global int *out) {
    int2 d = get_image_dim(img);
    STORE(get_image_width(img), get_image_height(img), 0, (int)get_image_array_size(img), d, (int4)(0)) }
kernel void query_3d(read_only image3d_t img, global int *out) {
    int4 d = get_image_dim(img);
    STORE(get_image_width(img), get_image_height(img), get_image_depth(img), 0, d.xy, d) }
// Depth images (PoCL 3.1 has none: -DCTS_NO_DEPTH_IMAGES leaves them out).
#ifndef CTS_NO_DEPTH_IMAGES
kernel void query_2dd(read_only image2d_depth_t img, global int *out) {
    int2 d = get_image_dim(img);
    STORE(get_image_width(img), get_image_height(img), 0, 0, d, (int4)(0)) }
kernel void query_2dad(read_write image2d_array_depth_t img, global int *out) {
    int2 d = get_image_dim(img);
    STORE(get_image_width(img), get_image_height(img), 0, (int)get_image_array_size(img), d, (int4)(0)) }
#endif
