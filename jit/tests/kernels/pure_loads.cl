// Loads the code generator lets Cranelift place at their uses (jit/src/codegen/pure_loads.rs),
// and loads it must keep in place. The host passes the same buffer as `a` and `b`, so every
// store through `b` changes what a later load through `a` reads. The index `j = idx[i]` comes
// from a load of the same block, so the loads through it are candidates for moving.

// A store between the load and its use: the use must see the value from before the store.
__kernel void store_between(__global const uint *idx, __global float *a, __global float *b, __global float *out) {
    size_t i = get_global_id(0);
    uint j = idx[i];
    float x = a[j];
    b[j] = 7.0f;
    out[i] = x * 2.0f;
}

// The same address loaded before and after a store: the two loads must stay two.
__kernel void reload_after_store(__global const uint *idx, __global float *a, __global float *b, __global float *out) {
    size_t i = get_global_id(0);
    uint j = idx[i];
    float x = a[j];
    b[j] = x + 1.0f;
    float y = a[j];
    out[i] = y - x;
}

// The loaded value is used in another block, after a store in a branch.
__kernel void used_after_branch(__global const uint *idx, __global float *a, __global float *b, __global float *out, uint m) {
    size_t i = get_global_id(0);
    uint j = idx[i];
    float x = a[j];
    if ((i % m) == 0)
        b[j] = -1.0f;
    out[i] = x + 0.5f;
}

// A loop that carries a value through memory: each step reads what the previous one wrote.
__kernel void chain(__global float *a, __global float *b, __global float *out, uint n) {
    size_t base = get_global_id(0) * (n + 1);
    float s = 0.0f;
    for (uint k = 0; k < n; k++) {
        float x = a[base + k];
        b[base + k + 1] = x * 0.5f + 1.0f;
        s += x;
    }
    out[get_global_id(0)] = s;
}

// A loop whose body only loads (GEMM's shape): loads move next to their fma.
__kernel void dot_rows(__global const float *a, __global const float *b, __global float *out, uint n) {
    size_t r = get_global_id(0);
    float4 acc0 = (float4)(0.0f), acc1 = (float4)(0.0f);
    for (uint k = 0; k < n; k++) {
        float4 bv = vload4(k, b);
        acc0 = fma((float4)(a[(2 * r) * n + k]), bv, acc0);
        acc1 = fma((float4)(a[(2 * r + 1) * n + k]), bv, acc1);
    }
    vstore4(acc0, 2 * r, out);
    vstore4(acc1, 2 * r + 1, out);
}
