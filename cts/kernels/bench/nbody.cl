// N-body accelerations (compute-bound): every body against every body, positions staged through
// local memory a work-group-sized tile at a time. pos[i] = (x, y, z, mass).
#pragma OPENCL FP_CONTRACT OFF
__kernel void nbody(__global const float4 *pos, __global float4 *acc, __local float4 *tile, uint n, float eps2) {
    uint i = get_global_id(0);
    uint lid = get_local_id(0);
    uint lsz = get_local_size(0);
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (uint t = 0; t < n; t += lsz) {
        tile[lid] = pos[t + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < lsz; j++) {
            float4 q = tile[j];
            float dx = q.x - p.x;
            float dy = q.y - p.y;
            float dz = q.z - p.z;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = rsqrt(d2);
            float s = q.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[i] = (float4)(ax, ay, az, 0.0f);
}
