// Vector operands (cl_khr_subgroup_extended_types' sub_group_broadcast, cl_khr_subgroup_ballot's
// sub_group_non_uniform_broadcast in a divergent `if`). V is the vector type (-DV=char3 ...),
// S its element, VLOAD / VSTORE the vloadn / vstoren of its width (3-component vectors are
// packed in the buffers). cts/tests/subgroup_extensions.rs.
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

kernel void vmoves(global const S *in, global S *out, global uint *map, uint which) {
    size_t g = get_global_id(0);
    map[3 * g] = get_sub_group_id();
    map[3 * g + 1] = get_sub_group_local_id();
    map[3 * g + 2] = get_sub_group_size();
    V x = VLOAD(g, in);
    VSTORE(sub_group_broadcast(x, which), 2 * g, out);
    if (get_sub_group_local_id() & 1) {
        VSTORE(sub_group_non_uniform_broadcast(x, which | 1), 2 * g + 1, out);
    } else {
        VSTORE(sub_group_non_uniform_broadcast(x, which & ~1u), 2 * g + 1, out);
    }
}
