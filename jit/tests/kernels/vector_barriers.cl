// Vector values kept across barriers (issue 15: saved and restored as whole registers), changed
// in divergent code between the barriers. jit/tests/vector_barriers.rs computes the same on the
// host. Every float operation is exact for the test's inputs (small integers), so contracted
// and separate multiply-adds agree.

#define MAXWG 64

__kernel void kept_mixed(__global const float *f, __global const int *ii, __global const double *d,
                         __global float *fo, __global int *io, __global double *dout, uint rounds) {
    __local int sh[MAXWG];
    uint g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    uint gs = get_global_size(0);
    float4 a = vload4(g, f);
    float8 b = vload8(g, f + 4 * gs);
    int4 c = vload4(g, ii);
    double2 e = vload2(g, d);
    for (uint r = 0; r < rounds; r++) {
        sh[l] = c.x + (int)r;
        barrier(CLK_LOCAL_MEM_FENCE);
        int nb = sh[(l + 1) % n];
        if (l & 1) {
            a = a * 2.0f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
            c = c ^ (int4)(nb, 3, 5, 7);
        } else {
            b = b.s76543210 + (float8)((float)nb);
            e = e * 0.5 + (double2)((double)r, -1.0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        sh[l] = c.y;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l % 3 == 0)
            c += (int4)(sh[n - 1 - l]);
        a.w += b.s3;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    vstore4(a, g, fo);
    vstore8(b, g, fo + 4 * gs);
    vstore4(c, g, io);
    vstore2(e, g, dout);
}

// Few enough kept components (8) for the region's vector loop.
__kernel void kept_small(__global const float *f, __global const int *ii, __global float *fo,
                         __global int *io, uint rounds) {
    __local int sh[MAXWG];
    uint g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    float4 a = vload4(g, f);
    int4 c = vload4(g, ii);
    for (uint r = 0; r < rounds; r++) {
        sh[l] = c.x + (int)r;
        barrier(CLK_LOCAL_MEM_FENCE);
        int nb = sh[(l + 1) % n];
        if (l & 1)
            a = a * 2.0f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
        else
            c = c ^ (int4)(nb, 3, 5, 7);
        barrier(CLK_LOCAL_MEM_FENCE);
        a.y -= (float)c.z;
    }
    vstore4(a, g, fo);
    vstore4(c, g, io);
}
