// Sum reduction: each work-item accumulates a grid-strided slice, then the work-group reduces
// the per-item sums with a tree in local memory (a __local pointer argument, sized by
// clSetKernelArg(NULL)), with a barrier per level. One partial sum per work-group.
__kernel void reduce(__global const float *in, __global float *partial, __local float *scratch, uint n) {
    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);
    size_t gsz = get_global_size(0);
    float s = 0.0f;
    for (size_t i = gid; i < n; i += gsz)
        s += in[i];
    scratch[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t off = get_local_size(0) / 2; off > 0; off >>= 1) {
        if (lid < off)
            scratch[lid] += scratch[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
