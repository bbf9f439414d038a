// Vector operands of the data-movement functions (cl_khr_subgroup_extended_types for
// sub_group_broadcast; non_uniform_broadcast, broadcast_first, shuffles). V is the vector type
// (-DV=char3 ...). cts/tests/subgroup_extensions.rs.
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

kernel void vmoves(global const V *in, global V *out, global uint *map, global const uint *idx,
                   uint which) {
    size_t g = get_global_id(0);
    map[3 * g] = get_sub_group_id();
    map[3 * g + 1] = get_sub_group_local_id();
    map[3 * g + 2] = get_sub_group_size();
    // vload / vstore: 3-component vectors are packed in the buffers.
    V x = VLOAD(g, (global const S *)in);
    uint i = idx[g];
    VSTORE(sub_group_broadcast(x, which), 4 * g, (global S *)out);
    VSTORE(sub_group_shuffle(x, i), 4 * g + 1, (global S *)out);
    if (get_sub_group_local_id() & 1) {
        VSTORE(sub_group_broadcast_first(x), 4 * g + 2, (global S *)out);
        VSTORE(sub_group_shuffle_up(x, 1), 4 * g + 3, (global S *)out);
    } else {
        VSTORE(sub_group_broadcast_first(x), 4 * g + 2, (global S *)out);
        VSTORE(sub_group_shuffle_down(x, 1), 4 * g + 3, (global S *)out);
    }
}
