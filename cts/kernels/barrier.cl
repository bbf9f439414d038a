// Barrier patterns: in a loop with a uniform trip count (tree reduction in a __local argument),
// inside a called function, in nested loops, a __local variable shared across the group, and
// many private values live across a barrier. Host references in tests/kernel_barrier.rs.
kernel void reduce(global const int *a, global int *o, local int *s) {
    size_t l = get_local_id(0), n = get_local_size(0);
    s[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t step = n / 2; step > 0; step /= 2) {
        if (l < step) s[l] += s[l + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) o[get_group_id(0)] = s[0];
}

__attribute__((noinline)) int rotate_through(local int *s, int v) {
    size_t l = get_local_id(0), n = get_local_size(0);
    s[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = s[(l + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

// o[g] = a of the work-item 3 places further in the group (wrapping), via three calls.
kernel void in_function(global const int *a, global int *o, local int *s) {
    int v = a[get_global_id(0)];
    v = rotate_through(s, v);
    v = rotate_through(s, v);
    v = rotate_through(s, v);
    o[get_global_id(0)] = v;
}

// Nested loops: each outer iteration runs `inner` barrier-separated neighbour exchanges.
kernel void nested(global const int *a, global int *o, int outer, int inner) {
    local int t[64];
    size_t l = get_local_id(0), n = get_local_size(0);
    int v = a[get_global_id(0)];
    for (int i = 0; i < outer; i++) {
        for (int j = 0; j < inner; j++) {
            t[l] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            v = v + t[(l + n - 1) % n] * (j + 1) - i;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        v ^= i;
    }
    o[get_global_id(0)] = v;
}

// A __local array (Workgroup variable) reversed across the group.
kernel void reverse(global const int *a, global int *o) {
    local int t[256];
    size_t l = get_local_id(0), n = get_local_size(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = t[n - 1 - l];
}

// 24 private values live across the barrier.
kernel void many_live(global const int *a, global int *o, local int *s) {
    size_t g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    int x = a[g];
    int v0 = x + 1, v1 = x * 3, v2 = x ^ 0x55, v3 = x - 7, v4 = x << 2, v5 = x >> 1;
    int v6 = x * x, v7 = x + 1000, v8 = x & 0xf0, v9 = x | 3, v10 = ~x, v11 = -x;
    int v12 = x * 5 + 1, v13 = x / 3, v14 = x % 11, v15 = x * 7 - 2, v16 = x + (int)l;
    int v17 = x * 9, v18 = x - 100, v19 = x ^ 0x1234, v20 = x * 13, v21 = x + 21;
    long w = (long)x * 100000;
    float f = (float)x * 0.5f;
    s[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    int nb = s[(l + 1) % n];
    o[g] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 +
           v16 + v17 + v18 + v19 + v20 + v21 + (int)(w % 1000003) + (int)f + nb * 31;
}
