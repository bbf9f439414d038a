// cl_khr_subgroup_non_uniform_vote and cl_khr_subgroup_ballot (cts/tests/subgroup_extensions.rs).
// `mask` bit (local id % 32) chooses the branch; both branches vote and ballot.

kernel void vote_ballot(global const int *in, global uint *out, global uint *map, uint mask) {
    size_t g = get_global_id(0);
    uint l = get_sub_group_local_id();
    map[3 * g] = get_sub_group_id();
    map[3 * g + 1] = l;
    map[3 * g + 2] = get_sub_group_size();
    int x = in[g];
    global uint *o = out + 16 * g;
    uint4 b;
    if ((mask >> (l % 32)) & 1) {
        o[0] = sub_group_elect();
        o[1] = sub_group_non_uniform_all(x);
        o[2] = sub_group_non_uniform_any(x);
        o[3] = sub_group_non_uniform_all_equal(x);
        b = sub_group_ballot(x != 0);
    } else {
        o[0] = 2 + sub_group_elect();
        o[1] = 2 + sub_group_non_uniform_any(x);
        o[2] = 2 + sub_group_non_uniform_all(x);
        o[3] = 2 + sub_group_non_uniform_all_equal(x);
        b = sub_group_ballot(x > 1);
    }
    vstore4(b, 1, o);
    o[8] = sub_group_inverse_ballot(b);
    o[9] = sub_group_ballot_bit_extract(b, (uint)x & 31);
    o[10] = sub_group_ballot_bit_count(b);
    o[11] = sub_group_ballot_inclusive_scan(b);
    o[12] = sub_group_ballot_exclusive_scan(b);
    o[13] = b.x ? sub_group_ballot_find_lsb(b) : 99;
    o[14] = b.x ? sub_group_ballot_find_msb(b) : 99;
    o[15] = 0;
}

kernel void masks(global uint4 *out) {
    size_t g = get_global_id(0);
    out[5 * g] = get_sub_group_eq_mask();
    out[5 * g + 1] = get_sub_group_ge_mask();
    out[5 * g + 2] = get_sub_group_gt_mask();
    out[5 * g + 3] = get_sub_group_le_mask();
    out[5 * g + 4] = get_sub_group_lt_mask();
}

// float all_equal: -0 equals 0, NaN equals nothing.
kernel void all_equal_float(global const float *in, global int *out) {
    size_t g = get_global_id(0);
    out[g] = sub_group_non_uniform_all_equal(in[g]);
}

// A non-uniform reduction in a loop whose trip count differs per work-item (local id % 5):
// iteration i is met by the work-items with more than i iterations.
kernel void loop_reduce(global const int *in, global int *out, global uint *map) {
    size_t g = get_global_id(0);
    uint l = get_sub_group_local_id();
    map[3 * g] = get_sub_group_id();
    map[3 * g + 1] = l;
    map[3 * g + 2] = get_sub_group_size();
    int acc = 0;
    for (uint i = 0; i < l % 5; i++) {
        acc = acc * 3 + sub_group_non_uniform_reduce_add(in[g] + (int)i);
    }
    out[g] = acc;
}
