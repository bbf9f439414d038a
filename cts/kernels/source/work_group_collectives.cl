// Work-group collective functions (OpenCL C 3.0 with
// __opencl_c_work_group_collective_functions): tests/workgroup_collectives.rs compares every
// result with host arithmetic.

#define ONE(T, F)                                                                  \
    kernel void F##_##T(global const T *in, global T *out) {                      \
        size_t g = get_global_linear_id();                                         \
        out[g] = work_group_##F(in[g]);                                            \
    }

#define ALL_OPS(T)                                                                 \
    ONE(T, reduce_add) ONE(T, reduce_min) ONE(T, reduce_max)                       \
    ONE(T, scan_inclusive_add) ONE(T, scan_inclusive_min) ONE(T, scan_inclusive_max) \
    ONE(T, scan_exclusive_add) ONE(T, scan_exclusive_min) ONE(T, scan_exclusive_max) \
    kernel void broadcast_##T(global const T *in, global T *out, uint lx, uint ly, uint lz) { \
        size_t g = get_global_linear_id();                                         \
        T v = in[g];                                                               \
        switch (get_work_dim()) {                                                  \
        case 1: out[g] = work_group_broadcast(v, (size_t)lx); break;               \
        case 2: out[g] = work_group_broadcast(v, (size_t)lx, (size_t)ly); break;   \
        default: out[g] = work_group_broadcast(v, (size_t)lx, (size_t)ly, (size_t)lz); \
        }                                                                          \
    }

ALL_OPS(int)
ALL_OPS(uint)
ALL_OPS(long)
ALL_OPS(ulong)
ALL_OPS(float)
ALL_OPS(double)

kernel void all_any(global const int *in, global int *out) {
    size_t g = get_global_linear_id();
    out[2 * g] = work_group_all(in[g]);
    out[2 * g + 1] = work_group_any(in[g]);
}

// Collectives in a loop, in a called function, beside local memory and a barrier: each
// iteration's answer must come from that iteration's operands.
int step(int x, local int *tmp) {
    int s = work_group_scan_inclusive_add(x);
    tmp[get_local_linear_id()] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = tmp[get_local_size(0) - 1 - get_local_linear_id()];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r + work_group_reduce_max(x);
}

kernel void in_loop(global const int *in, global int *out, int iters, local int *tmp) {
    size_t g = get_global_id(0);
    int x = in[g];
    int acc = 0;
    for (int i = 0; i < iters; i++) {
        acc += step(x + i, tmp);
        x = work_group_broadcast(x, (size_t)(i % get_local_size(0))) ^ x;
    }
    out[g] = acc;
}
