// __local arrays declared in different kernels of one program (cts/tests/local_per_kernel.rs).
// Each kernel's arrays take 40 KB: one kernel fits the device's 64 KB of local memory, the
// three together do not, so each kernel must be given only its own arrays' bytes.
#define WORDS 10240

// out[group * WORDS + i] = 3 * (WORDS - 1 - i) + 1, through a __local array read backwards.
kernel void reverse_a(global uint *out) {
    local uint a[WORDS];
    size_t l = get_local_id(0), n = get_local_size(0);
    for (size_t i = l; i < WORDS; i += n)
        a[i] = 3u * (uint)i + 1u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = l; i < WORDS; i += n)
        out[get_group_id(0) * WORDS + i] = a[WORDS - 1 - i];
}

// The same with its own array and values: 7 * (WORDS - 1 - i) + 5.
kernel void reverse_b(global uint *out) {
    local uint b[WORDS];
    size_t l = get_local_id(0), n = get_local_size(0);
    for (size_t i = l; i < WORDS; i += n)
        b[i] = 7u * (uint)i + 5u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = l; i < WORDS; i += n)
        out[get_group_id(0) * WORDS + i] = b[WORDS - 1 - i];
}

// Two arrays of one kernel must not overlap: out = x[i] ^ y[H - 1 - i] = i ^ ~(H - 1 - i).
kernel void two_arrays(global uint *out) {
    local uint x[WORDS / 2];
    local uint y[WORDS / 2];
    const size_t H = WORDS / 2;
    size_t l = get_local_id(0), n = get_local_size(0);
    for (size_t i = l; i < H; i += n) {
        x[i] = (uint)i;
        y[i] = ~(uint)i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = l; i < H; i += n)
        out[get_group_id(0) * H + i] = x[i] ^ y[H - 1 - i];
}
