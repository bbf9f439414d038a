// Kernels of cts/tests/command_buffer.rs (cl_khr_command_buffer, mutable dispatch, suggested
// local work size).

// data[i] += v for every work-item.
kernel void add(global int *data, int v) {
    size_t i = get_global_id(0);
    data[i] += v;
}

// out[i] = i * scale + get_global_offset(0): which work-items ran, with which argument.
kernel void index_scale(global int *out, int scale) {
    size_t i = get_global_id(0);
    out[i] = (int)i * scale + (int)get_global_offset(0);
}

// out[i] = the size of the group work-item i belongs to (enqueued local size).
kernel void local_size(global int *out) {
    out[get_global_id(0)] = (int)get_enqueued_local_size(0);
}

// a[off] = 7: with off = 2^40 the store faults (fault containment inside a replay).
kernel void store_at(global int *a, ulong off) {
    a[off] = 7;
}
