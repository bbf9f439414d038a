// OpenCL 2.0 atomics (explicit memory order and scope, compare-exchange, atomic_flag,
// load/store) under contention. Exact expected values in tests/kernel_atomic.rs.
// OpenCL 2.0 atomics: explicit order and scope, atomic_flag, load/store.
kernel void c11(global atomic_int *c, global atomic_flag *f, global int *won) {
    size_t g = get_global_id(0);
    atomic_fetch_add_explicit(&c[0], 1, memory_order_relaxed, memory_scope_device);
    atomic_fetch_sub_explicit(&c[1], 2, memory_order_acq_rel, memory_scope_device);
    atomic_fetch_max_explicit(&c[2], (int)g, memory_order_seq_cst, memory_scope_device);
    int expected = 0;
    atomic_compare_exchange_strong(&c[3], &expected, (int)g + 1);
    won[g] = !atomic_flag_test_and_set(&f[0]);
    atomic_flag_clear(&f[1]);
    if (g == 0) atomic_store(&c[4], 77);
    atomic_fetch_or(&c[5], atomic_load(&c[6]));
}

