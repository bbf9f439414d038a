// float4/int4 arithmetic (issue 15): per work-item, ITERS rounds of float4 multiply-adds,
// clamps, fmax and swizzles, and int4 shifts, xors, multiplies and selects, on a loaded pair
// of vectors; vector values carried around the loop.
kernel void vec4(global const float4 *a, global const int4 *b, global float4 *fo, global int4 *io, uint iters) {
    size_t g = get_global_id(0);
    float4 x = a[g];
    int4 k = b[g];
    float4 acc = (float4)(0.0f);
    float4 s = (float4)(0.5f, 0.25f, 0.125f, 0.0625f);
    int4 h = k;
    for (uint i = 0; i < iters; i++) {
        acc = mad(x, s, acc);
        x = clamp(x * 0.999f + s.wzyx, -4.0f, 4.0f);
        s = fmax(s, acc.yzwx * 0.001f);
        h = (h ^ (h << 3)) + k * (int4)(3, 5, 7, 9);
        h = select(h, h >> 1, h < (int4)(0));
    }
    fo[g] = acc + x;
    io[g] = h;
}
