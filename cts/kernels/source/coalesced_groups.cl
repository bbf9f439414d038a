// Kernels of tests/coalesced_groups.rs. Clift may run several work-groups of a kernel that
// cannot tell work-groups apart as one larger group; the `blind` kernels are such kernels,
// the `aware_*` kernels each observe their work-group in one way and must keep the
// application's groups.

// Every work-item counts itself at its global linear id and records its global ids.
kernel void blind(global uint *count, global ulong *ids) {
    size_t g = get_global_linear_id();
    atomic_inc(&count[g]);
    for (uint d = 0; d < 3; d++)
        ids[g * 4 + d] = get_global_id(d);
    ids[g * 4 + 3] = get_global_size(0) * get_work_dim();
}

// The same, with a float4 computation per work-item (the vector loop's path).
kernel void blind_float4(global const float4 *in, global float4 *out) {
    size_t i = get_global_id(0);
    float4 v = in[i];
    out[i] = v * v + (float4)(1.0f, 2.0f, 3.0f, (float)i);
}

// Work-item and group ids of dimension 0.
kernel void aware_ids(global ulong *out) {
    size_t g = get_global_id(0);
    out[g * 5 + 0] = get_local_id(0);
    out[g * 5 + 1] = get_group_id(0);
    out[g * 5 + 2] = get_local_size(0);
    out[g * 5 + 3] = get_num_groups(0);
    out[g * 5 + 4] = get_enqueued_local_size(0);
}

// The local linear id alone.
kernel void aware_linear(global ulong *out) {
    out[get_global_linear_id()] = get_local_linear_id();
}

// A work-group collective: the sum over the work-item's group.
kernel void aware_reduce(global uint *out) {
    size_t g = get_global_id(0);
    out[g] = work_group_reduce_add((uint)g + 1);
}

// A sub-group built-in.
kernel void aware_sub_group(global uint *out) {
    size_t g = get_global_id(0);
    out[g] = get_sub_group_local_id() + 1000 * get_sub_group_size();
}

// Work-item `bad` stores 2^40 elements past the buffer; the others store their id.
kernel void blind_fault(global uint *out, ulong bad) {
    size_t i = get_global_id(0);
    if (i == bad)
        out[i + ((ulong)1 << 40)] = 1;
    out[i] = (uint)i;
}
