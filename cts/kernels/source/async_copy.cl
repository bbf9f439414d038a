// async_work_group_copy and async_work_group_strided_copy (cts/tests/async_copy.rs): every
// work-item of a group passes the same arguments, the group copies once, and the data is
// there after wait_group_events.

// Global to local at the group's offset, then each work-item reads another's element:
// out[g * n + l] = 2 * in[g * n + (n - 1 - l)] + 1.
kernel void to_local(global const int *in, global int *out, local int *tile) {
    size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
    event_t ev = async_work_group_copy(tile, in + g * n, n, 0);
    wait_group_events(1, &ev);
    out[g * n + l] = 2 * tile[n - 1 - l] + 1;
}

// Local to global as the Khronos CTS half suite does: each work-item fills its element of a
// local array, a barrier, the group copies the array to its place (addressed by i - lid,
// the same for every work-item), and the kernel ends with the wait.
kernel void from_local(global const int *in, global int *out) {
    local int tile[256];
    size_t i = get_global_id(0), lid = get_local_id(0), n = get_local_size(0);
    tile[lid] = in[i] * 3;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t ev = async_work_group_copy(out + (i - lid), tile, n, 0);
    wait_group_events(1, &ev);
}

// Strided: gather every `stride`-th element into local memory, scatter it back strided.
kernel void strided(global const int *in, global int *out, uint stride) {
    local int tile[256];
    size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
    event_t ev = async_work_group_strided_copy(tile, in + g * n * stride, n, stride, 0);
    wait_group_events(1, &ev);
    tile[l] = tile[l] + (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    ev = async_work_group_strided_copy(out + g * n * stride, tile, n, stride, 0);
    wait_group_events(1, &ev);
}

// Groups from `first_idle` on return before anything else (the same for all of their
// work-items); the others copy to local memory and back with a barrier between.
kernel void some_groups_return(global const int *in, global int *out, uint first_idle) {
    local int tile[256];
    size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
    if (g >= first_idle)
        return;
    event_t ev = async_work_group_copy(tile, in + g * n, n, 0);
    wait_group_events(1, &ev);
    tile[l] = -tile[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    ev = async_work_group_copy(out + g * n, tile, n, 0);
    wait_group_events(1, &ev);
}
