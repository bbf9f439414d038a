// Values live across barriers that look the same for every work-item of the group, and some
// that only look so. Clift keeps the uniform ones once per group (see jit/src/codegen/uniform.rs);
// these kernels catch a value wrongly taken for uniform. Host references in
// tests/kernel_barrier.rs.

// A phi of two uniform values where a branch on the local id meets again (an atomic keeps the
// branch a branch).
kernel void join_phi(global int *o, global int *cnt, local int *s, int n) {
    size_t l = get_local_id(0);
    int v;
    if (l & 1) {
        v = n * 3;
        atomic_inc(cnt);
    } else {
        v = n * 5;
    }
    s[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = v * 2 + s[l ^ 1];
}

// Values computed from uniform values only, in a loop that each work-item leaves after its own
// number of iterations (the exit test at the bottom, so they are used after the loop directly).
kernel void temporal(global int *o, int n) {
    int l = (int)get_local_id(0);
    int i = 0, k;
    do {
        k = i * 7 + n;
        i++;
    } while (i * i < l + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = k * 1000 + i;
}

// Uniform values (a per-group trip count and a step that changes every round) and private ones
// across the two barriers of a loop.
kernel void uniform_loop(global const int *a, global int *o, local int *s, int rounds) {
    size_t l = get_local_id(0), n = get_local_size(0);
    int g = (int)get_group_id(0);
    int acc = a[get_global_id(0)];
    int step = g + 1;
    for (int r = 0; r < rounds + g; r++) {
        s[l] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += s[(l + step) % n] * (r + 1);
        step = step * 3 % (int)n + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    o[get_global_id(0)] = acc * 10 + step;
}

// Work-items that return before the barrier the others reach. OpenCL C leaves this undefined;
// Clift finishes the group: the work-items that reach the barrier go on past it.
kernel void early_return(global int *o, local int *s) {
    size_t l = get_local_id(0);
    if (l >= 3) {
        o[get_global_id(0)] = -1;
        return;
    }
    s[l] = (int)l * 10;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = s[(l + 1) % 3];
}

// Tiled matrix multiply through 2D __local tiles (a row of a tile is indexed by the x id; the
// second tile's rows are padded to 9 floats), C = A * B for n x n matrices, n a multiple of 8.
kernel void tiled_matmul(global const float *a, global const float *b, global float *c, int n) {
    local float at[8][8], bt[8][9];
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int col = (int)get_global_id(0), row = (int)get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += 8) {
        at[ty][tx] = a[row * n + t + tx];
        bt[ty][tx] = b[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 8; k++)
            acc += at[ty][k] * bt[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
