// image_write: a 3-tap horizontal blur of an RGBA8 image into a second RGBA8 image: three
// read_imagef (integer coordinates, nearest, clamp to edge) and one write_imagef per
// work-item, one work-item per pixel.

__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void image_write(read_only image2d_t src, write_only image2d_t dst) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 c = read_imagef(src, edge, (int2)(x, y));
    float4 l = read_imagef(src, edge, (int2)(x - 1, y));
    float4 r = read_imagef(src, edge, (int2)(x + 1, y));
    write_imagef(dst, (int2)(x, y), 0.5f * c + 0.25f * (l + r));
}
