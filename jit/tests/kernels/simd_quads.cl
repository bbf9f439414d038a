// Kernels for simd_quads.rs: bodies the vector loop runs as two quads (eight work-items per
// iteration) with CLIFT_SIMD_QUADS=2, compared bit for bit with the scalar loop.
#pragma OPENCL FP_CONTRACT OFF

// Mandelbrot's loop (two exits: a uniform count and a per-work-item test) plus a third exit on
// a loaded value, a store under the execution mask every round, and each work-item's round
// count and values after the loop. Rows of `width` work-items (dimension 1: the row).
kernel void exits(global const float *a, global float *o, global uint *io, uint width, uint max) {
    uint x = get_global_id(0), y = get_global_id(1);
    uint i = y * width + x;
    float cr = a[i] * 1.5f - 0.5f, ci = a[i + 1] - 0.25f;
    float zr = 0.0f, zi = 0.0f;
    uint it = 0;
    while (it < max && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        o[256 + i] = zr + (float)it;
        it++;
        if (zr > a[(i + it) & 63] + 1.0f)
            break;
    }
    io[i] = it;
    o[i] = zr - zi;
}

// A loop whose trip count is each work-item's own, leaving early on a loaded value, with a
// store under the mask every round.
kernel void own_count(global const float *a, global const uint *ia, global float *o, global uint *io) {
    uint i = get_global_id(0);
    float f = a[i];
    int n = ia[i] & 15;
    for (int j = 0; j < n; j++) {
        f = f * 0.5f + a[i + j];
        if (f > 1.5f) break;
        o[300 + i] = f + (float)j;
    }
    io[i] = (uint)n;
    o[i] = f;
}

// Straight-line code (no loop): affine loads and stores at several strides, a gather, a
// uniform store (the last work-item's value stays).
kernel void straight(global const float *a, global const uint *ia, global float *o, global uint *io, float s) {
    uint i = get_global_id(0);
    float x = a[i] * s + a[2 * i + 1];
    uint k = ia[(i * 7) & 31] ^ i;
    o[i] = x;
    o[300 + 3 * i] = x - (float)k;
    io[i] = k * 3u + i;
    io[600] = k;
}

// Branches after a store (each quad's lanes may disagree: each arm under its mask, stores in
// both arms) and a computing branch in a loop of each work-item's own trip count.
kernel void branches(global const float *a, global const uint *ia, global float *o, global uint *io) {
    uint i = get_global_id(0);
    float x = a[i];
    o[i] = x;
    if (ia[i] & 1) {
        o[300 + i] = x * 2.0f;
        io[i] = ia[i] >> 1;
    } else {
        io[i] = i;
    }
    float f = x;
    for (int j = 0; j < (int)(ia[i] & 7); j++) {
        if (f > 0.5f)
            f = f * 0.5f - 0.25f;
        else
            f = f + 0.125f * (float)j;
    }
    o[600 + i] = f;
}

// A load in one arm before any store: the eight work-items take it alike (groups of eight
// consecutive ones decide together) or go to the scalar loop.
kernel void early(global const float *a, global const uint *ia, global float *o, global uint *io) {
    uint i = get_global_id(0);
    float x = (ia[i >> 3] & 16) ? a[i + 1] : 1.5f;
    o[i] = x;
    io[i] = i;
}
