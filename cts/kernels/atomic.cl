// 32-bit atomics under contention, global and local memory. Every result has an exact
// expected value (tests/kernel_atomic.rs).

// c: int[12] counters; every work-item hits every counter.
kernel void global32(volatile global int *c, volatile global uint *u, global int *old) {
    int g = (int)get_global_id(0);
    atomic_inc(&c[0]);
    atomic_dec(&c[1]);
    atomic_add(&c[2], g);
    atomic_sub(&c[3], g);
    atomic_min(&c[4], g - 500);
    atomic_max(&c[5], g - 500);
    atomic_or(&c[6], 1 << (g & 31));
    atomic_and(&c[7], ~(1 << (g & 31)));
    atomic_xor(&c[8], g);
    atomic_min(&u[0], (uint)g + 7);
    atomic_max(&u[1], (uint)g * 3);
    old[g] = atomic_xchg(&c[9], g);
    // add via compare-exchange loop
    int cur = c[10];
    for (;;) {
        int prev = atomic_cmpxchg(&c[10], cur, cur + 2);
        if (prev == cur) break;
        cur = prev;
    }
}

// Histogram of a[] (values 0..63) in local memory, merged into global bins.
kernel void histogram(global const uint *a, volatile global uint *bins) {
    local uint h[64];
    size_t l = get_local_id(0), n = get_local_size(0);
    for (size_t k = l; k < 64; k += n) h[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&h[a[get_global_id(0)] & 63]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t k = l; k < 64; k += n) atomic_add(&bins[k], h[k]);
}

// Local-memory 32-bit atomics with one counter per group plus local min/max/xchg.
kernel void local32(volatile global int *o) {
    local int c[4];
    size_t l = get_local_id(0);
    if (l == 0) { c[0] = 0; c[1] = 1 << 30; c[2] = -(1 << 30); c[3] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&c[0], (int)l + 1);
    atomic_min(&c[1], (int)l * 3 - 5);
    atomic_max(&c[2], (int)l * 3 - 5);
    atomic_xor(&c[3], (int)l);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        size_t g = get_group_id(0);
        o[g * 4 + 0] = c[0]; o[g * 4 + 1] = c[1]; o[g * 4 + 2] = c[2]; o[g * 4 + 3] = c[3];
    }
}
