// 64-bit atomics under contention (cl_khr_int64_base_atomics / extended_atomics; SPIR-V
// Int64Atomics). Exact expected values in tests/kernel_atomic.rs.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

kernel void global64(volatile global long *c, volatile global ulong *u) {
    long g = (long)get_global_id(0);
    atom_add(&c[0], g << 33);
    atom_inc(&c[1]);
    atom_sub(&c[2], 3);
    atom_min(&c[3], g - 1000);
    atom_max(&c[4], g * 0x100000000L);
    atom_or(&u[0], 1UL << (g & 63));
    atom_xor(&u[1], (ulong)g * 0x9E3779B97F4A7C15UL);
    atom_and(&u[2], ~(1UL << (g & 63)));
    long cur = c[5];
    for (;;) {
        long prev = atom_cmpxchg(&c[5], cur, cur + g);
        if (prev == cur) break;
        cur = prev;
    }
    atom_xchg(&u[3], 5UL);
}

kernel void c11_64(global atomic_long *cl, global atomic_ulong *cu) {
    size_t g = get_global_id(0);
    atomic_fetch_add_explicit(&cl[0], (long)g * 0x10000000L, memory_order_relaxed, memory_scope_device);
    atomic_fetch_min_explicit(&cl[1], -(long)g * 0x10000000L, memory_order_relaxed, memory_scope_device);
    atomic_fetch_max_explicit(&cu[0], (ulong)g << 40, memory_order_relaxed, memory_scope_device);
    atomic_fetch_sub(&cu[1], 1UL);
}
