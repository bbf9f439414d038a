// Double-precision kernels for the vector loop's two-lane doubles (cts/tests/simd_f64.rs):
// each runs once with CLIFT_SIMD=strict (every region must take the vector loop) and once
// with CLIFT_SIMD=0, and the outputs must be bit-identical. `n`: the launch's work-items.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// (Each operation rounded on its own, as the host reference computes it.)
#pragma OPENCL FP_CONTRACT OFF

// Arithmetic on consecutive loads, consecutive stores (two 16-byte accesses per four lanes).
__kernel void d_arith(__global const double *x, __global const double *y, __global double *o, double a, uint n) {
    size_t i = get_global_id(0);
    double xi = x[i], yi = y[i];
    o[i] = (xi + yi) * a - xi / yi;
    o[n + i] = -(xi * yi) - a;
    o[2 * n + i] = fma(xi, yi, a);
    o[3 * n + i] = mad(xi, a, yi);
}

// A gather (an index from memory), a scatter, and a uniform value stored by all.
__kernel void d_gather(__global const double *x, __global const int *idx, __global double *o, uint n) {
    size_t i = get_global_id(0);
    double g = x[idx[i]];
    o[i] = g * 2.0 + x[i];
    o[n + (n - 1 - i)] = g - 1.0;
    o[2 * n] = 0.5;
}

// Comparisons, selects, built-in calls and conversions on doubles (lane by lane).
__kernel void d_select(__global const double *x, __global const double *y, __global double *o, uint n) {
    size_t i = get_global_id(0);
    double xi = x[i], yi = y[i];
    double v = xi > yi ? xi - yi : sqrt(fabs(yi));
    if (v > 1.0)
        v = v * v;
    o[i] = v;
    o[n + i] = (double)(float)xi + (double)(int)(yi * 10.0);
    o[2 * n + i] = fmin(xi, yi) + exp(yi * 0.125);
}

// Stores in both arms of a branch the work-items disagree on.
__kernel void d_branch_store(__global const double *x, __global double *o, uint n) {
    size_t i = get_global_id(0);
    double v = x[i];
    if (v > 0.0)
        o[i] = v * 3.0;
    else
        o[n + i] = -v / 4.0;
}

// A grid-strided loop with a trip count of each work-item's own, under a mask (dot-product
// like), a loop with two exits (the second on a double), its double kept as each lane
// leaves, and a loop all work-items go round together.
__kernel void d_loops(__global const double *x, __global const double *y, __global const int *cnt,
                      __global double *o, uint n) {
    size_t i = get_global_id(0);
    int c = cnt[i];
    double s = 0.0;
    for (int k = 0; k < c; k++)
        s = mad(x[i + k * n], y[i + k * n], s);
    o[i] = s;
    double t = 0.0;
    int k = 0;
    while (k < 6 && t <= 4.0) {
        t += fabs(x[i + k * n]);
        k++;
    }
    o[n + i] = t;
    // The same trip count for all: the four go round together, the double in a phi.
    double u = x[i];
    for (int k = 1; k < 4; k++)
        u = u * 0.5 + y[i + k * n];
    o[2 * n + i] = u;
}

// A work-group tree of doubles in local memory (a barrier per level), doubles kept across
// barriers.
__kernel void d_tree(__global const double *x, __global double *o, __local double *scratch) {
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    double mine = x[gid] * 0.5;
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t off = get_local_size(0) / 2; off > 0; off >>= 1) {
        if (lid < off)
            scratch[lid] += scratch[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    o[gid] = scratch[0] - mine;
}

// Loads under a mask at the end of a buffer: work-item i reads x[i + k * n] for k < cnt[i];
// the buffer ends right after the last element read, so a load for a lane that has left
// reads past the end.
__kernel void d_tail(__global const double *x, __global const int *cnt, __global double *o, uint n) {
    size_t i = get_global_id(0);
    int c = cnt[i];
    double s = 0.0;
    for (int k = 0; k < c; k++)
        s = fma(x[i + k * n], 1.5, s);
    o[i] = s;
}

// size_t ids compared for equality with uniform values (one lane at most holds): constants,
// arguments, a stride of -1 and of 3, a difference that does not fit in 32 bits; in selects
// and in a branch that stores.
__kernel void d_eq(__global const double *x, __global double *o, uint n) {
    size_t i = get_global_id(0);
    size_t l = get_local_id(0);
    double v = x[i];
    if (i == 5)
        v = v * 2.0;
    if (l == (size_t)n / 3)
        v += 1.0;
    if ((size_t)n - i == 17)
        v -= 3.0;
    if (i * 3 == 2 * (size_t)n)
        v = -v;
    if (i == (size_t)n + 0x100000000UL)
        v += 0.5;
    if (l != 2)
        v *= 1.5;
    o[i] = v;
    if (i == (size_t)n / 2)
        o[n + i] = v;
}

// The exp family and the one-instruction functions on doubles, two lanes at a time in the
// vector loop: over the whole range (x in [-6, 6] scaled past the overflow and underflow
// thresholds), and under a per-work-item condition.
__kernel void d_math(__global const double *x, __global const double *y, __global double *o, uint n) {
    size_t i = get_global_id(0);
    double xi = x[i], yi = y[i];
    o[i] = exp(xi * 130.0);
    o[n + i] = exp2(xi * 180.0);
    o[2 * n + i] = exp10(xi * 55.0);
    o[3 * n + i] = floor(xi * 3.5) + ceil(yi * 2.5) * 8.0;
    o[4 * n + i] = trunc(xi * 3.5) + rint(yi * 2.5) * 8.0;
    o[5 * n + i] = sqrt(fabs(xi)) - fabs(yi) + rsqrt(fabs(yi) + 1.0);
    double v = yi;
    if (xi > 0.5)
        v = exp(yi) - exp2(xi);
    o[6 * n + i] = v;
}

// Double sin, cos, tan and sincos of a = x * 2^(6 rint(y)): inline up to 2^30 in magnitude,
// the library's reduction beyond it (lanes of both kinds side by side), and a call under
// per-lane control flow.
__kernel void d_trig(__global const double *x, __global const double *y, __global double *o, uint n) {
    size_t i = get_global_id(0);
    double a = x[i] * exp2(rint(y[i]) * 6.0), c;
    o[i] = sin(a);
    o[n + i] = cos(a);
    o[2 * n + i] = tan(a);
    o[3 * n + i] = sincos(a, &c);
    o[4 * n + i] = c;
    double v = y[i];
    if (v > 0.0)
        v = sin(a * v);
    o[5 * n + i] = v;
}
