// Work-item built-ins. Each work-item writes 24 values at its linear position (relative to the
// global offset) in o. Host reference in tests/kernel_control.rs.
kernel void ids(global ulong *o) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t lin = (z * get_global_size(1) + y) * get_global_size(0) + x;
    global ulong *r = o + lin * 24;
    for (uint d = 0; d < 3; d++) {
        r[d] = get_global_id(d);
        r[3 + d] = get_local_id(d);
        r[6 + d] = get_group_id(d);
        r[9 + d] = get_local_size(d);
        r[12 + d] = get_enqueued_local_size(d);
        r[15 + d] = get_num_groups(d);
        r[18 + d] = get_global_offset(d);
    }
    r[21] = get_work_dim();
    r[22] = get_global_linear_id();
    r[23] = get_local_linear_id();
}
