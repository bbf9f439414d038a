// Independent forward progress of sub-groups (cl_khr_subgroups): kernels in which one
// sub-group waits in a loop for what another sub-group does. Run sequentially, one work-item
// after the other, each of them would hang; cts/tests/sub_group_ifp.rs runs them under a time
// limit.

// A token passed around the sub-groups of each work-group in a ring, `rounds` times, through
// an atomic in local memory: sub-group s waits (in its first work-item) until the token is
// s, writes its sub-group id into the log and hands the token to s + 1. log[g * len + i] is
// the i-th holder of work-group g's token.
kernel void ring_local(global uint *log, uint rounds)
{
    local atomic_uint token;
    local atomic_uint step;
    uint n = get_num_sub_groups();
    uint s = get_sub_group_id();
    if (get_local_linear_id() == 0) {
        atomic_init(&token, 0);
        atomic_init(&step, 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_local_id() == 0) {
        global uint *mine = log + get_group_id(0) * n * rounds;
        for (uint r = 0; r < rounds; r++) {
            while (atomic_load_explicit(&token, memory_order_acquire) != s)
                ;
            uint i = atomic_fetch_add_explicit(&step, 1, memory_order_relaxed);
            mine[i] = s;
            atomic_store_explicit(&token, (s + 1) % n, memory_order_release);
        }
    }
}

// The same ring through a global atomic per work-group (`tokens`, zeroed by the host), with
// atomic_compare_exchange taking the token: sub-group s turns s into n + s (its own mark),
// logs, then stores s + 1.
kernel void ring_global(global atomic_uint *tokens, global uint *log, uint rounds)
{
    uint n = get_num_sub_groups();
    uint s = get_sub_group_id();
    global atomic_uint *token = tokens + get_group_id(0);
    if (get_sub_group_local_id() == 0) {
        global uint *mine = log + get_group_id(0) * n * rounds;
        for (uint r = 0; r < rounds; r++) {
            uint want = s;
            while (!atomic_compare_exchange_strong_explicit(token, &want, n + s, memory_order_acquire,
                                                            memory_order_relaxed, memory_scope_device))
                want = s;
            mine[r * n + s] = r * n + s;
            atomic_store_explicit(token, (s + 1) % n, memory_order_release);
        }
    }
}

// A spin lock (an atomic exchange on a global int, one per work-group) taken by the first
// work-item of each sub-group `per` times around a non-atomic increment of a global counter;
// the last sub-group starts by waiting until every other sub-group has gone once, so the lock
// is contended while a sub-group that cannot run yet holds no lock.
kernel void spin_lock(global atomic_int *locks, global uint *counters, global atomic_uint *arrived, uint per)
{
    uint g = get_group_id(0);
    uint n = get_num_sub_groups();
    if (get_sub_group_local_id() != 0)
        return;
    if (get_sub_group_id() == n - 1) {
        while (atomic_load_explicit(arrived + g, memory_order_acquire, memory_scope_device) < n - 1)
            ;
    }
    for (uint i = 0; i < per; i++) {
        while (atomic_exchange_explicit(locks + g, 1, memory_order_acquire, memory_scope_device) != 0)
            ;
        uint c = counters[g];
        counters[g] = c + 1;
        atomic_store_explicit(locks + g, 0, memory_order_release, memory_scope_device);
        if (i == 0)
            atomic_fetch_add_explicit(arrived + g, 1, memory_order_release, memory_scope_device);
    }
}

// The same lock through a volatile flag and atomic_cmpxchg (OpenCL 1.x built-ins).
kernel void spin_lock_legacy(volatile global int *locks, global uint *counters, uint per)
{
    uint g = get_group_id(0);
    if (get_sub_group_local_id() != 0)
        return;
    for (uint i = 0; i < per; i++) {
        while (atomic_cmpxchg(locks + g, 0, 1) != 0)
            ;
        uint c = counters[g];
        counters[g] = c + 1;
        atomic_xchg(locks + g, 0);
    }
}

// Divergent trip counts around sub_group_barrier: sub-group s runs trips[s] iterations, each
// ending at a sub-group barrier, the first work-item of the next sub-group waits (spinning on
// `done`) until sub-group s - 1 has finished its loop. Per trip each work-item adds 1 to its
// element of a local array and, after a sub-group barrier, reads its neighbour's (in its
// sub-group); it writes the sum of what it read and its sub-group id, and after a work-group
// barrier the first work-item writes how many sub-groups finished.
kernel void divergent_trips(global const uint *trips, global uint *out, global uint *sums)
{
    local uint acc[256];
    local atomic_uint done;
    uint lid = get_local_linear_id();
    uint s = get_sub_group_id();
    uint sl = get_sub_group_local_id();
    uint sz = get_sub_group_size();
    if (lid == 0)
        atomic_init(&done, 0);
    acc[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (s > 0 && sl == 0) {
        while (atomic_load_explicit(&done, memory_order_acquire) < s)
            ;
    }
    uint sum = 0;
    uint base = lid - sl;
    for (uint t = 0; t < trips[s]; t++) {
        acc[lid] += 1;
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        // The neighbour's count (in this sub-group) after this trip's barrier.
        sum += acc[base + (sl + 1) % sz];
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (sl == 0)
        atomic_fetch_add_explicit(&done, 1, memory_order_release);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[2 * get_global_linear_id()] = sum;
    out[2 * get_global_linear_id() + 1] = s;
    if (lid == 0)
        sums[get_group_id(0)] = atomic_load_explicit(&done, memory_order_relaxed);
}

// Not a spin loop: a counting loop of atomics (the kernel keeps the work-item loops).
kernel void count_only(global atomic_uint *c, uint n)
{
    for (uint i = 0; i < n; i++)
        atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}
