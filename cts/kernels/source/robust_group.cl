// Kernels of tests/robust_group.rs: robust mode's group-level check (README "Robust mode").
// Every access here is at an index computed from the work-item ids, the group's sizes, kernel
// arguments and loop counters, which the compiler checks once per work-group; the test sizes
// the buffers so that every group, only the last group, or only some lanes of a group reach
// outside them, and computes the documented result on the host: an out-of-range load reads 0,
// an out-of-range store is dropped, an out-of-range atomic changes nothing.

// A stream: the index is the global id.
kernel void stream(global const int *a, global const int *b, global int *out) {
    size_t i = get_global_id(0);
    out[i] = a[i] * 3 + b[i];
}

// Constant shifts: the first group reaches below the buffers, the last above them.
kernel void shifted(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    out[i - 3] = a[i + 2] + 1;
}

// A loop counter bounded by a kernel argument (the histogram's layout: per_item elements per
// work-item, the group's work-items side by side).
kernel void strided(global const int *src, global int *dst, uint per_item) {
    size_t lid = get_local_id(0);
    size_t lsz = get_local_size(0);
    size_t base = get_group_id(0) * lsz * per_item;
    for (uint k = 0; k < per_item; k++) {
        size_t j = base + k * lsz + lid;
        dst[j] = src[j] * 2 + (int)k;
    }
}

// Two dimensions in 32-bit arithmetic: row * n + col.
kernel void grid(global const int *a, global int *c, uint n) {
    uint col = get_global_id(0);
    uint row = get_global_id(1);
    c[row * n + col] = a[row * n + col] + (int)row;
}

// A __local argument indexed by the local id, a local array indexed by a loop counter and by
// a masked value (atomics), and a store per bin.
kernel void tiles(global const uint *data, global uint *out, local uint *tile) {
    local uint bins[16];
    size_t lid = get_local_id(0);
    size_t lsz = get_local_size(0);
    for (size_t b = lid; b < 16; b += lsz)
        bins[b] = 0;
    tile[lid] = data[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&bins[tile[lsz - 1 - lid] & 15]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = lid; b < 16; b += lsz)
        out[get_group_id(0) * 16 + b] = bins[b];
}
