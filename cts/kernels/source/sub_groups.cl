// Sub-group functions (OpenCL C 3.0 with __opencl_c_subgroups): tests/subgroup_functions.rs
// groups the work-items by the sub-group ids the kernels report and compares every result
// with host arithmetic.

#define MAP(g)                                                                     \
    map[3 * (g)] = get_sub_group_id();                                             \
    map[3 * (g) + 1] = get_sub_group_local_id();                                   \
    map[3 * (g) + 2] = get_sub_group_size();

#define ONE(T, F)                                                                  \
    kernel void sg_##F##_##T(global const T *in, global T *out, global uint *map) { \
        size_t g = get_global_linear_id();                                         \
        out[g] = sub_group_##F(in[g]);                                             \
        MAP(g)                                                                     \
    }

#define ALL_OPS(T)                                                                 \
    ONE(T, reduce_add) ONE(T, reduce_min) ONE(T, reduce_max)                       \
    ONE(T, scan_inclusive_add) ONE(T, scan_inclusive_min) ONE(T, scan_inclusive_max) \
    ONE(T, scan_exclusive_add) ONE(T, scan_exclusive_min) ONE(T, scan_exclusive_max) \
    kernel void sg_broadcast_##T(global const T *in, global T *out, global uint *map, uint which) { \
        size_t g = get_global_linear_id();                                         \
        out[g] = sub_group_broadcast(in[g], which % get_sub_group_size());         \
        MAP(g)                                                                     \
    }

ALL_OPS(int)
ALL_OPS(uint)
ALL_OPS(long)
ALL_OPS(ulong)
ALL_OPS(float)
ALL_OPS(double)

kernel void sg_all_any(global const int *in, global int *out, global uint *map) {
    size_t g = get_global_linear_id();
    out[2 * g] = sub_group_all(in[g]);
    out[2 * g + 1] = sub_group_any(in[g]);
    MAP(g)
}

// The work-item functions, per work-item.
kernel void sg_info(global uint *out) {
    size_t g = get_global_linear_id();
    out[6 * g] = get_sub_group_size();
    out[6 * g + 1] = get_max_sub_group_size();
    out[6 * g + 2] = get_num_sub_groups();
    out[6 * g + 3] = get_enqueued_num_sub_groups();
    out[6 * g + 4] = get_sub_group_id();
    out[6 * g + 5] = get_sub_group_local_id();
}

// Reverses each sub-group's values through local memory, ordered by sub_group_barrier.
kernel void sg_reverse(global const int *in, global int *out, global uint *map, local int *tmp) {
    size_t g = get_global_linear_id();
    uint base = get_sub_group_id() * get_max_sub_group_size();
    uint n = get_sub_group_size();
    uint i = get_sub_group_local_id();
    tmp[base + i] = in[g];
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tmp[base + n - 1 - i];
    MAP(g)
}
