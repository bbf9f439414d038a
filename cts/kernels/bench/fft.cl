// Batched complex FFTs of FFT_N points (a power of 4) over float2, one transform per
// work-group of FFT_N / 4 work-items (issue 15, item 4). Radix-4 Stockham passes: each pass
// reads four points a quarter of the transform apart from one local-memory buffer, multiplies
// them by twiddles from sincos, does a radix-4 butterfly and writes them, reordered
// (transposed), into the other buffer; a barrier separates the passes. Forward transform,
// X[k] = sum_j x[j] exp(-2 pi i j k / FFT_N).
#ifndef FFT_N
#define FFT_N 1024
#endif
#define Q (FFT_N / 4)

inline float2 cmul(float2 a, float2 b) {
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__kernel __attribute__((reqd_work_group_size(Q, 1, 1)))
void fft(__global const float2 *in, __global float2 *out) {
    __local float2 buf[2][FFT_N];
    uint j = get_local_id(0);
    size_t base = get_group_id(0) * (size_t)FFT_N;
    for (uint q = 0; q < 4; q++)
        buf[0][j + q * Q] = in[base + j + q * Q];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint cur = 0;
    for (uint ns = 1; ns < FFT_N; ns *= 4) {
        uint k = j & (ns - 1);
        float ang = -6.28318530717958647692f * (float)k / (float)(4 * ns);
        float2 v0 = buf[cur][j];
        float2 v1 = buf[cur][j + Q];
        float2 v2 = buf[cur][j + 2 * Q];
        float2 v3 = buf[cur][j + 3 * Q];
        float c1, c2, c3;
        float s1 = sincos(ang, &c1);
        float s2 = sincos(2.0f * ang, &c2);
        float s3 = sincos(3.0f * ang, &c3);
        v1 = cmul(v1, (float2)(c1, s1));
        v2 = cmul(v2, (float2)(c2, s2));
        v3 = cmul(v3, (float2)(c3, s3));
        float2 a0 = v0 + v2, a1 = v0 - v2, a2 = v1 + v3, a3 = v1 - v3;
        a3 = (float2)(a3.y, -a3.x); // -i * (v1 - v3)
        uint d = (j - k) * 4 + k;
        buf[cur ^ 1][d] = a0 + a2;
        buf[cur ^ 1][d + ns] = a1 + a3;
        buf[cur ^ 1][d + 2 * ns] = a0 - a2;
        buf[cur ^ 1][d + 3 * ns] = a1 - a3;
        cur ^= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint q = 0; q < 4; q++)
        out[base + j + q * Q] = buf[cur][j + q * Q];
}
