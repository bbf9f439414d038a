// Atomics through generic pointers and with a work-group memory scope. Clift does an atomic
// with plain loads and stores where only the work-group's own worker thread can take part (a
// generic pointer into local memory, checked at run time) and with locked instructions
// otherwise (a generic pointer into a global buffer that every work-group updates; any
// global atomic, whatever its scope, since llvm-spirv gives OpenCL 1.x atomics the work-group
// scope). Exact expected counts in tests/kernel_atomic.rs.
// cts-source-options: -cl-std=CL3.0

// Generic pointer parameters: the same code serves global and local objects.
int bump(volatile atomic_int *p) { return atomic_fetch_add(p, 1); }

void cas_increment(volatile atomic_int *p) {
    int seen = atomic_load(p);
    while (!atomic_compare_exchange_weak(p, &seen, seen + 1))
        ;
}

void swap_in(volatile atomic_int *p, int v, global int *old) { *old = atomic_exchange(p, v); }

// g[0], g[1]: counted by every work-item of every group, `rounds` times, through generic
// pointers (fetch_add, a compare-exchange loop). out[3 * group + k]: the group's local
// counters after a barrier (k = 0, 1), and the final value of a local exchange chain
// (k = 2); old[gid] is the value the work-item's exchange returned.
kernel void generic_counts(global atomic_int *g, global int *out, global int *old, int rounds) {
    local atomic_int l[3];
    uint lid = get_local_id(0), grp = get_group_id(0);
    if (lid == 0) {
        atomic_init(&l[0], 0);
        atomic_init(&l[1], 0);
        atomic_init(&l[2], -1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < rounds; i++) {
        bump(&g[0]);
        bump(&l[0]);
        cas_increment(&g[1]);
        cas_increment(&l[1]);
    }
    swap_in(&l[2], (int)get_global_id(0), &old[get_global_id(0)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        out[3 * grp] = atomic_load(&l[0]);
        out[3 * grp + 1] = atomic_load(&l[1]);
        out[3 * grp + 2] = atomic_load(&l[2]);
    }
}

// One work-group: work-group scope on global memory, every order.
kernel void work_group_scope(global atomic_int *c, global atomic_uint *flags) {
    uint lid = get_local_id(0);
    atomic_fetch_add_explicit(&c[0], (int)lid, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_sub_explicit(&c[1], 2, memory_order_acq_rel, memory_scope_work_group);
    atomic_fetch_max_explicit(&c[2], (int)lid, memory_order_seq_cst, memory_scope_work_group);
    int e = atomic_load_explicit(&c[3], memory_order_acquire, memory_scope_work_group);
    while (!atomic_compare_exchange_strong_explicit(&c[3], &e, e + 3, memory_order_acq_rel,
                                                    memory_order_acquire, memory_scope_work_group))
        ;
    atomic_fetch_or_explicit(&flags[lid / 32], 1u << (lid % 32), memory_order_release,
                             memory_scope_work_group);
}
