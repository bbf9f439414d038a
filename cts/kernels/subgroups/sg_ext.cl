// The cl_khr_subgroup_* extensions (cts/tests/subgroup_extensions.rs). Built once per element
// type with -DT=<type> (and -DINT for integer types, -DFP64 / -DFP16 for double / half).
// Every kernel records its sub-group map: map[3g] sub-group id, map[3g+1] sub-group local id,
// map[3g+2] sub-group size. `mask` bit (local id % 32) chooses the branch a work-item takes:
// the non-uniform functions run in both branches, each over the work-items that took it.

#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#define MAP(g)                                \
    map[3 * (g)] = get_sub_group_id();        \
    map[3 * (g) + 1] = get_sub_group_local_id(); \
    map[3 * (g) + 2] = get_sub_group_size();

#define TAKEN(mask) (((mask) >> (get_sub_group_local_id() % 32)) & 1)

// Non-uniform arithmetic: 8 results per work-item, in both branches of a divergent `if`.
kernel void nu_arith(global const T *in, global T *out, global uint *map, uint mask) {
    size_t g = get_global_id(0);
    MAP(g);
    T x = in[g];
    global T *o = out + 8 * g;
    if (TAKEN(mask)) {
        o[0] = sub_group_non_uniform_reduce_add(x);
        o[1] = sub_group_non_uniform_reduce_mul(x);
        o[2] = sub_group_non_uniform_reduce_min(x);
        o[3] = sub_group_non_uniform_reduce_max(x);
        o[4] = sub_group_non_uniform_scan_inclusive_add(x);
        o[5] = sub_group_non_uniform_scan_exclusive_max(x);
        o[6] = sub_group_non_uniform_scan_inclusive_mul(x);
        o[7] = sub_group_non_uniform_scan_exclusive_min(x);
    } else {
        o[0] = sub_group_non_uniform_reduce_max(x);
        o[1] = sub_group_non_uniform_reduce_min(x);
        o[2] = sub_group_non_uniform_scan_exclusive_add(x);
        o[3] = sub_group_non_uniform_scan_inclusive_max(x);
        o[4] = sub_group_non_uniform_scan_inclusive_min(x);
        o[5] = sub_group_non_uniform_reduce_add(x);
        o[6] = sub_group_non_uniform_scan_exclusive_mul(x);
        o[7] = sub_group_non_uniform_reduce_mul(x);
    }
}

#ifdef INT
// Bitwise and logical operations (integer types only), divergent.
kernel void nu_bits(global const T *in, global T *out, global uint *map, uint mask) {
    size_t g = get_global_id(0);
    MAP(g);
    T x = in[g];
    global T *o = out + 6 * g;
    if (TAKEN(mask)) {
        o[0] = sub_group_non_uniform_reduce_and(x);
        o[1] = sub_group_non_uniform_scan_inclusive_or(x);
        o[2] = sub_group_non_uniform_scan_exclusive_xor(x);
        o[3] = (T)sub_group_non_uniform_reduce_logical_and((int)(x & 1));
        o[4] = (T)sub_group_non_uniform_scan_inclusive_logical_or((int)(x & 2));
        o[5] = (T)sub_group_non_uniform_scan_exclusive_logical_xor((int)(x & 4));
    } else {
        o[0] = sub_group_non_uniform_reduce_xor(x);
        o[1] = sub_group_non_uniform_scan_exclusive_and(x);
        o[2] = sub_group_non_uniform_reduce_or(x);
        o[3] = (T)sub_group_non_uniform_reduce_logical_xor((int)(x & 1));
        o[4] = (T)sub_group_non_uniform_scan_exclusive_logical_and((int)(x & 2));
        o[5] = (T)sub_group_non_uniform_reduce_logical_or((int)(x & 4));
    }
}
#endif

// Uniform reduce / scans (cl_khr_subgroup_extended_types for char and short) and clustered
// reductions.
kernel void uniform_arith(global const T *in, global T *out, global uint *map) {
    size_t g = get_global_id(0);
    MAP(g);
    T x = in[g];
    global T *o = out + 7 * g;
    o[0] = sub_group_reduce_add(x);
    o[1] = sub_group_scan_inclusive_min(x);
    o[2] = sub_group_scan_exclusive_max(x);
    o[3] = sub_group_clustered_reduce_add(x, 1);
    o[4] = sub_group_clustered_reduce_max(x, 4);
    o[5] = sub_group_clustered_reduce_mul(x, 8);
    o[6] = sub_group_clustered_reduce_min(x, 32);
}

// Data movement: broadcast (uniform and non-uniform), shuffles, rotations. `idx[g]` is the
// work-item's index or delta (some out of range: undefined values, never faults).
kernel void moves(global const T *in, global T *out, global uint *map, global const uint *idx,
                  uint mask, uint which) {
    size_t g = get_global_id(0);
    MAP(g);
    T x = in[g];
    uint i = idx[g];
    global T *o = out + 10 * g;
    o[0] = sub_group_broadcast(x, which);
    o[1] = sub_group_shuffle(x, i);
    o[2] = sub_group_shuffle_xor(x, i);
    o[3] = sub_group_shuffle_up(x, i);
    o[4] = sub_group_shuffle_down(x, i);
    o[5] = sub_group_rotate(x, which);
    o[6] = sub_group_clustered_rotate(x, which, 8);
    if (TAKEN(mask)) {
        o[7] = sub_group_broadcast_first(x);
        o[8] = sub_group_non_uniform_broadcast(x, which);
    } else {
        o[7] = sub_group_broadcast_first(x);
        o[8] = sub_group_non_uniform_broadcast(x, which);
    }
    o[9] = x;
}
