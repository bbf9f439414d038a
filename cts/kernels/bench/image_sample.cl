// Clift benchmark: a 3x3 box blur read through a sampler given as an argument, with
// normalized coordinates. The taps are 1.25 texels apart, so a linear sampler mixes four
// texels per tap, and the taps of the edge pixels fall outside the image, where the
// addressing mode decides what is read. The image is read only through the sampler.
__kernel void image_sample(__read_only image2d_t src, sampler_t smp, __global float4 *dst,
                           float inv_w, float inv_h)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    int w = get_global_size(0);
    float2 c = (float2)((x + 0.5f) * inv_w, (y + 0.5f) * inv_h);
    float4 acc = (float4)(0.0f);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            acc += read_imagef(src, smp, c + (float2)(dx * 1.25f * inv_w, dy * 1.25f * inv_h));
    dst[y * w + x] = acc * (1.0f / 9.0f);
}
