// Work-group and sub-group reservations (cts/tests/pipes.rs): each group (sub-group) reserves
// one packet per work-item, each work-item copies its packet at its local (sub-group local)
// id, the group commits. `ok` records per work-item whether its group's reservation held.

kernel void wg_write(global const uint *src, write_only pipe uint p, global int *ok) {
    size_t g = get_global_id(0);
    __local reserve_id_t r;
    r = work_group_reserve_write_pipe(p, get_local_size(0));
    if (is_valid_reserve_id(r)) {
        ok[g] = write_pipe(p, r, get_local_id(0), &src[g]) == 0;
        work_group_commit_write_pipe(p, r);
    } else {
        ok[g] = 0;
    }
}

kernel void wg_read(read_only pipe uint p, global uint *dst, global int *ok) {
    size_t g = get_global_id(0);
    reserve_id_t r = work_group_reserve_read_pipe(p, get_local_size(0));
    if (is_valid_reserve_id(r)) {
        ok[g] = read_pipe(p, r, get_local_id(0), &dst[g]) == 0;
        work_group_commit_read_pipe(p, r);
    } else {
        ok[g] = 0;
    }
}

// 2D work-groups: the packet index is the local linear id.
kernel void wg_write_2d(global const ulong *src, write_only pipe ulong p, global int *ok) {
    size_t g = get_global_linear_id();
    uint n = get_local_size(0) * get_local_size(1);
    reserve_id_t r = work_group_reserve_write_pipe(p, n);
    int good = is_valid_reserve_id(r);
    if (good) {
        good = write_pipe(p, r, get_local_linear_id(), &src[g]) == 0;
        work_group_commit_write_pipe(p, r);
    }
    ok[g] = good;
}

kernel void wg_read_2d(read_only pipe ulong p, global ulong *dst, global int *ok) {
    size_t g = get_global_linear_id();
    uint n = get_local_size(0) * get_local_size(1);
    reserve_id_t r = work_group_reserve_read_pipe(p, n);
    int good = is_valid_reserve_id(r);
    if (good) {
        good = read_pipe(p, r, get_local_linear_id(), &dst[g]) == 0;
        work_group_commit_read_pipe(p, r);
    }
    ok[g] = good;
}

kernel void sg_write(global const uint *src, write_only pipe uint p, global int *ok) {
    size_t g = get_global_id(0);
    reserve_id_t r = sub_group_reserve_write_pipe(p, get_sub_group_size());
    if (is_valid_reserve_id(r)) {
        ok[g] = write_pipe(p, r, get_sub_group_local_id(), &src[g]) == 0;
        sub_group_commit_write_pipe(p, r);
    } else {
        ok[g] = 0;
    }
}

kernel void sg_read(read_only pipe uint p, global uint *dst, global int *ok) {
    size_t g = get_global_id(0);
    reserve_id_t r = sub_group_reserve_read_pipe(p, get_sub_group_size());
    if (is_valid_reserve_id(r)) {
        ok[g] = read_pipe(p, r, get_sub_group_local_id(), &dst[g]) == 0;
        sub_group_commit_read_pipe(p, r);
    } else {
        ok[g] = 0;
    }
}

// The pipe's counts as kernels see them.
kernel void counts(read_only pipe uint p, global uint *out) {
    out[0] = get_pipe_num_packets(p);
    out[1] = get_pipe_max_packets(p);
}

// Work-item g reserves (g % 4) + 1 packets and writes g into each; the reservations of all
// work-items of a work-group are outstanding together (committed after a barrier).
kernel void many_reservations(write_only pipe uint p, global int *ok) {
    size_t g = get_global_id(0);
    uint n = (g % 4) + 1;
    reserve_id_t r = reserve_write_pipe(p, n);
    int good = is_valid_reserve_id(r);
    if (good) {
        for (uint i = 0; i < n; i++) {
            uint v = g;
            good &= write_pipe(p, r, i, &v) == 0;
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (is_valid_reserve_id(r))
        commit_write_pipe(p, r);
    ok[g] = good;
}

// Only the even sub-groups of each work-group reserve (as the Khronos CTS
// pipe_subgroups_divergence kernel does).
kernel void sg_write_even(global const uint *src, write_only pipe uint p, global int *ok) {
    size_t g = get_global_id(0);
    int good = 0;
    if (get_sub_group_id() % 2 == 0) {
        reserve_id_t r = sub_group_reserve_write_pipe(p, get_sub_group_size());
        if (is_valid_reserve_id(r)) {
            good = write_pipe(p, r, get_sub_group_local_id(), &src[g]) == 0;
            sub_group_commit_write_pipe(p, r);
        }
    }
    ok[g] = good;
}
