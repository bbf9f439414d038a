// Atomics that move floating-point values: OpenCL C 1.1 atomic_xchg on float, and OpenCL C 2.0
// atomic_init / atomic_load / atomic_store / atomic_exchange on atomic_float and atomic_double,
// in global and local memory, directly and through generic pointers. Every value is an
// arbitrary bit pattern (NaNs with payloads, infinities, subnormals, -0.0 among them) that must
// arrive bit for bit. Expected values in tests/kernel_atomic_float.rs.
// cts-source-options: -cl-std=CL3.0
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

// A bijection of the index onto scattered bit patterns (the host computes the same).
uint bits32(uint i) { return (i * 0x9E3779B9u) ^ 0x7FC01234u; }
ulong bits64(ulong i) { return (i * 0x9E3779B97F4A7C15ul) ^ 0x7FF8000000C0FFEEul; }

// OpenCL C 1.1: every work-item swaps its own value into *x; the old values it gets back and
// the final value are together the initial value and every work-item's value.
kernel void xchg_global(volatile global float *x, global float *old) {
    uint g = get_global_id(0);
    old[g] = atomic_xchg(x, as_float(bits32(g)));
}

// The same on one float of local memory per work-group; out[group] is its final value.
kernel void xchg_local(global float *out, global float *old) {
    volatile local float x;
    uint l = get_local_id(0), g = get_global_id(0);
    if (l == 0) x = -1.25f;
    barrier(CLK_LOCAL_MEM_FENCE);
    old[g] = atomic_xchg(&x, as_float(bits32(g)));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) out[get_group_id(0)] = x;
}

// The OpenCL C 2.0 kernels, once for atomic_float (T = float, U = uint) and once for
// atomic_double (T = double, U = ulong).
#define C11_KERNELS(T, U, BITS, AS_T)                                                          \
    /* The exchange through a generic pointer. */                                             \
    T swap_##T(volatile atomic_##T *p, T v) {                                                  \
        return atomic_exchange_explicit(p, v, memory_order_acq_rel, memory_scope_device);     \
    }                                                                                          \
                                                                                               \
    /* a[0]: the exchange chain of all work-items. a[1 + g]: work-item g's own object:        \
       atomic_init(A), atomic_load -> seen[3g] = A, atomic_store(B), atomic_exchange(C) ->   \
       seen[3g + 1] = B, atomic_load through a generic pointer -> seen[3g + 2] = C. */        \
    kernel void c11_global_##T(global atomic_##T *a, global T *old, global T *seen, uint n) { \
        uint g = get_global_id(0);                                                             \
        old[g] = g % 2 ? atomic_exchange(&a[0], AS_T(BITS(g)))                                 \
                       : swap_##T(&a[0], AS_T(BITS(g)));                                       \
        global atomic_##T *own = &a[1 + g];                                                    \
        atomic_init(own, AS_T(BITS(g + n)));                                                   \
        seen[3 * g] = atomic_load_explicit(own, memory_order_acquire, memory_scope_device);   \
        atomic_store_explicit(own, AS_T(BITS(g + 2 * n)), memory_order_release,               \
                              memory_scope_device);                                            \
        seen[3 * g + 1] = atomic_exchange_explicit(own, AS_T(BITS(g + 3 * n)),                 \
                                                   memory_order_relaxed, memory_scope_device); \
        volatile atomic_##T *gen = own;                                                        \
        seen[3 * g + 2] = atomic_load(gen);                                                    \
    }                                                                                          \
                                                                                               \
    /* Local memory, work-groups of 64: s0 is the group's exchange chain (initial value       \
       -5.0); slot[l] is initialised by work-item l and read by its neighbour l + 1 after a   \
       barrier (seen[2g]), stored and swapped by its owner (seen[2g + 1] = the stored value), \
       and read again by the neighbour after a second barrier (last[g]). */                  \
    kernel void c11_local_##T(global T *old, global T *seen, global T *last,                  \
                              global T *chain_end) {                                           \
        local atomic_##T s0;                                                                   \
        local atomic_##T slot[64];                                                             \
        uint l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);                 \
        if (l == 0) atomic_init(&s0, (T)-5.0);                                                 \
        atomic_init(&slot[l], AS_T(BITS(g + 100000)));                                         \
        work_group_barrier(CLK_LOCAL_MEM_FENCE);                                               \
        old[g] = l % 2 ? atomic_exchange_explicit(&s0, AS_T(BITS(g)), memory_order_relaxed,   \
                                                  memory_scope_work_group)                     \
                       : swap_##T(&s0, AS_T(BITS(g)));                                         \
        seen[2 * g] = atomic_load(&slot[(l + n - 1) % n]);                                     \
        work_group_barrier(CLK_LOCAL_MEM_FENCE);                                               \
        atomic_store_explicit(&slot[l], AS_T(BITS(g + 200000)), memory_order_release,         \
                              memory_scope_work_group);                                        \
        seen[2 * g + 1] = atomic_exchange(&slot[l], AS_T(BITS(g + 300000)));                   \
        work_group_barrier(CLK_LOCAL_MEM_FENCE);                                               \
        volatile atomic_##T *gen = &slot[(l + n - 1) % n];                                     \
        last[g] = atomic_load_explicit(gen, memory_order_acquire, memory_scope_work_group);   \
        if (l == 0) chain_end[get_group_id(0)] = atomic_load(&s0);                             \
    }

C11_KERNELS(float, uint, bits32, as_float)
C11_KERNELS(double, ulong, bits64, as_double)
