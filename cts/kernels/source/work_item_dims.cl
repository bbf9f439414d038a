// The work-item functions with a dimension index known only at run time (OpenCL C 6.15.1):
// past get_work_dim()-1, and past the third dimension too, the sizes are 1 and the ids and
// offsets 0.
kernel void dims_at_run_time(global ulong *out, uint d) {
    size_t i = 0;
    for (uint k = 0; k < get_work_dim(); k++) {
        size_t stride = 1;
        for (uint j = 0; j < k; j++)
            stride *= get_global_size(j);
        i += (get_global_id(k) - get_global_offset(k)) * stride;
    }
    global ulong *o = out + 9 * i;
    o[0] = get_work_dim();
    o[1] = get_global_size(d);
    o[2] = get_global_id(d);
    o[3] = get_local_size(d);
    o[4] = get_local_id(d);
    o[5] = get_num_groups(d);
    o[6] = get_group_id(d);
    o[7] = get_global_offset(d);
    o[8] = get_enqueued_local_size(d);
}
