// Kernels of tests/robust.rs (robust mode, README "Robust mode"). Each reaches memory through
// an index the test chooses at run time, in range or not; the test computes the documented
// result on the host: an out-of-range load reads 0, an out-of-range store is dropped, an
// out-of-range atomic returns 0 and changes nothing.

// A gather: out[i] = src[idx[i]].
kernel void load_idx(global const int *src, global const int *idx, global int *out) {
    size_t i = get_global_id(0);
    out[i] = src[idx[i]];
}

// A scatter: dst[idx[i]] = i + 1.
kernel void store_idx(global int *dst, global const int *idx) {
    size_t i = get_global_id(0);
    dst[idx[i]] = (int)i + 1;
}

// Contiguous accesses (the vector loop's four-lane loads and stores) shifted by `off`.
kernel void copy_shift(global const float *src, global float *dst, long off_src, long off_dst) {
    long i = (long)get_global_id(0);
    dst[i + off_dst] = src[i + off_src] * 2.0f;
}

// Atomics at run-time indexes: old[i] = atomic_add(&cnt[idx[i]], 1) (and a min that never
// changes anything in range: cnt starts at 0 and adds only).
kernel void atomic_idx(volatile global int *cnt, global const int *idx, global int *old) {
    size_t i = get_global_id(0);
    old[i] = atomic_add(&cnt[idx[i]], 1);
    atomic_min(&cnt[idx[i] + 1000000], -5);
}

// OpenCL vector types: a float4 element and a vload4/vstore4 at run-time indexes.
kernel void vec_idx(global const float4 *src, global float4 *dst, global const float *flat,
                    global float *flat_out, global const int *idx) {
    size_t i = get_global_id(0);
    dst[i] = src[idx[i]];
    vstore4(vload4(idx[i], flat), idx[i], flat_out);
}

// Local memory: each work-item writes its slot, then reads slot idx[i] of a __local argument
// and of a local array (64 ints), and stores out of range into both.
kernel void local_idx(global const int *idx, global int *out, local int *tmp) {
    local int fixed[64];
    size_t l = get_local_id(0);
    tmp[l] = (int)l + 100;
    fixed[l] = (int)l + 200;
    barrier(CLK_LOCAL_MEM_FENCE);
    int j = idx[get_global_id(0)];
    int a = tmp[j];
    int b = fixed[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[j] = -1;
    fixed[j] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[2 * get_global_id(0)] = a + tmp[l];
    out[2 * get_global_id(0) + 1] = b + fixed[l];
}

// A private array of 8 ints, read and written at run-time indexes.
kernel void private_idx(global const int *idx, global int *out) {
    size_t i = get_global_id(0);
    int p[8];
    for (int k = 0; k < 8; k++)
        p[k] = k * 10 + (int)i;
    int j = idx[i];
    p[j + 1] = 7;
    int s = 0;
    for (int k = 0; k < 8; k++)
        s = s * 3 + p[k];
    out[i] = s + p[j];
}

// A program-scope array, read at a run-time index.
global int table[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
kernel void global_idx(global const int *idx, global int *out) {
    size_t i = get_global_id(0);
    out[i] = table[idx[i]];
}
