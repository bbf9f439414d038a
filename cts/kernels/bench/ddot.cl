// Double-precision dot product: each work-item accumulates x[i] * y[i] over a grid-strided
// slice (size_t indexing), then the work-group sums the per-item values with a tree in local
// memory (a __local pointer argument), a barrier per level. One partial sum per work-group;
// the host adds the partial sums.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void ddot(__global const double *x, __global const double *y, __global double *partial,
                   __local double *scratch, uint n) {
    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);
    size_t gsz = get_global_size(0);
    double s = 0.0;
    for (size_t i = gid; i < n; i += gsz)
        s += x[i] * y[i];
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
