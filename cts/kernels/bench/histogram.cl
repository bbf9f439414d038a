// 256-bin histogram: each work-group counts its chunk into a __local histogram with local
// atomics, then writes it out as one partial histogram per group (no global atomics, so the
// kernel is idempotent; the host sums the partials).
#define BINS 256
__kernel void histogram(__global const uint *data, __global uint *partial, uint per_item) {
    __local uint bins[BINS];
    size_t lid = get_local_id(0);
    size_t lsz = get_local_size(0);
    size_t grp = get_group_id(0);
    for (size_t b = lid; b < BINS; b += lsz)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t base = grp * lsz * per_item;
    for (uint k = 0; k < per_item; k++) {
        uint v = data[base + k * lsz + lid];
        atomic_inc(&bins[v & (BINS - 1)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = lid; b < BINS; b += lsz)
        partial[grp * BINS + b] = bins[b];
}
