// Straight-line kernels of the kinds Clift runs four work-items at a time (its vector loop):
// consecutive and strided loads and stores, uniform loads, int and size_t indices, 1D and 2D
// ranges with local sizes that leave a scalar tail, local memory, and the 32-bit float and
// integer operations the vector loop covers. cts/tests/simd.rs checks every result against host
// arithmetic and that each kernel did get the vector loop.

// Float arithmetic (no multiply-add pattern: nothing for the compiler to contract).
kernel void f_arith(global const float *a, global const float *b, global float *o, float s) {
    size_t i = get_global_id(0);
    o[i] = (a[i] + b[i]) / s - a[i] / b[i] - (-b[i]);
}

kernel void f_fma(global const float *a, global const float *b, global float *o, float c) {
    size_t i = get_global_id(0);
    o[i] = fma(a[i], b[i], c);
}

kernel void f_mad(global const float *a, global const float *b, global float *o, float c) {
    size_t i = get_global_id(0);
    o[i] = mad(a[i], b[i], c);
}

// Integer arithmetic with an int index (sign-extended for the address).
kernel void i_arith(global const uint *a, global const uint *b, global uint *o, uint k, int sh) {
    int i = get_global_id(0);
    uint x = a[i], y = b[i];
    o[i] = ((x + y) * k - (x ^ y)) | (x & ~y);
    o[i + get_global_size(0)] = (x << 3) + (y >> sh) + (uint)((int)x >> 2) + x * y;
}

// Strided loads (gathers) and stores (scatters).
kernel void strided(global const float *a, global float *o) {
    size_t i = get_global_id(0);
    o[2 * i + 1] = a[3 * i] + a[3 * i + 2];
    o[2 * i] = -a[3 * i + 1];
}

// 2D: x varies across the vector, y is the same for all four; a uniform load per row and one
// for the whole range; the local x id converted to float.
kernel void grid(global const float *a, global float *o, global const float *coef) {
    size_t x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
    size_t gx = x - get_global_offset(0), gy = y - get_global_offset(1);
    o[gy * w + gx] = a[gy * w + gx] * coef[gy] + (float)(int)get_local_id(0) + coef[0];
}

// Linear ids and a bit pattern turned into a float.
kernel void linear(global float *o, global uint *l) {
    size_t g = get_global_linear_id();
    o[g] = as_float((int)get_local_linear_id() + 0x3f800000);
    l[g] = (uint)get_local_linear_id();
}

// int -> float, through local memory (each work-item reads back its own element).
kernel void to_float(global const int *a, local float *tmp, global float *o) {
    size_t l = get_local_id(0), g = get_global_id(0);
    tmp[l] = (float)a[g] * 0.5f;
    o[g] = tmp[l] + 1.0f;
}

// Comparisons, selects and the inline math functions, four lanes at a time.
kernel void cmp_select(global const float *a, global const float *b, global float *o, global int *m) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    o[4 * i] = fmin(x, y);
    o[4 * i + 1] = fmax(x, y);
    o[4 * i + 2] = x > y ? x - y : sqrt(fabs(y));
    o[4 * i + 3] = copysign(floor(x) + ceil(y) + trunc(x) + rint(y), y);
    int u = as_int(x), v = as_int(y);
    m[2 * i] = max(u, v) - min(u, v) + (isnan(x) ? 7 : 0) + (isless(x, y) || u == 0 ? 16 : 0);
    m[2 * i + 1] = (int)(max((uint)u, (uint)v) ^ min((uint)u, (uint)v));
}

// An if without else whose arm only computes (if-converted: both values, then a select).
kernel void triangle(global const float *a, global float *o, float lim) {
    size_t i = get_global_id(0);
    float x = a[i], r = x;
    if (x > lim)
        r = sqrt(x) * lim + native_sqrt(x - lim);
    o[i] = r;
}

// Bounds checks and data-dependent stores: an arm that touches memory runs for all four
// work-items or for none; four that disagree take the scalar loop.
kernel void bounded(global const float *a, global float *o, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        o[i] = a[i] * 2.0f + 1.0f;
}

kernel void early_return(global const int *a, global int *o, int n) {
    int i = get_global_id(0);
    if (i >= n)
        return;
    o[i] = a[i] + i;
}

kernel void positive_only(global const float *a, global float *o) {
    size_t i = get_global_id(0);
    if (a[i] > 0.0f)
        o[i] = sqrt(a[i]);
}

// A stencil over the interior: the bounds test is an || of comparisons (selects of masks).
kernel void interior(global const float *in, global float *out, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
        return;
    out[y * w + x] = in[y * w + x - 1] + in[y * w + x + 1] - 2.0f * in[y * w + x];
}

// Loads in the arms of a conditional expression (clamped edges), and an if-else that stores
// in both arms: branches whose merge has phis.
kernel void edges(global const float *in, global float *out, int w) {
    int x = get_global_id(0);
    float c = in[x];
    float l = x > 0 ? in[x - 1] : c;
    float r = x < w - 1 ? in[x + 1] : c;
    out[x] = 0.5f * c + 0.25f * (l + r);
}

kernel void split_store(global const float *a, global float *pos, global float *neg) {
    size_t i = get_global_id(0);
    float v = a[i];
    if (v >= 0.0f) {
        pos[i] = v;
    } else {
        neg[i] = -v;
        pos[i] = 0.0f;
    }
}

// A loop with the same trip count for every work-item: the four go round together.
kernel void loop_sum(global const float *a, global float *o, int m) {
    size_t i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < m; j++)
        s = s * 0.5f + a[i + j];
    o[i] = s;
}

// A grid-strided accumulation, then a tree reduction in __local memory: barrier regions, each
// run four work-items at a time.
kernel void tree_sum(global const float *a, global float *o, local float *t, uint n) {
    size_t g = get_global_id(0), l = get_local_id(0), gs = get_global_size(0);
    float s = 0.0f;
    for (size_t i = g; i < n; i += gs)
        s += a[i];
    t[l] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t off = get_local_size(0) / 2; off > 0; off >>= 1) {
        if (l < off)
            t[l] += t[l + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        o[get_group_id(0)] = t[0];
}

// A tree reduction over a 2D group's linear index with any number of work-items (halving
// with a rounded-up step). `lin < m - h` is taken by the first work-items of a row and then by
// none: in lockstep, four work-items that skip it end the row (the row cut). int indices.
kernel void tree_rows(global const float *a, global float *o, local float *t) {
    int w = get_local_size(0);
    int lin = get_local_id(1) * w + get_local_id(0);
    int n = w * get_local_size(1);
    size_t g = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    t[lin] = a[get_global_id(1) * get_global_size(0) + get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int m = n; m > 1;) {
        int h = (m + 1) / 2;
        if (lin < m - h)
            t[lin] += t[lin + h];
        barrier(CLK_LOCAL_MEM_FENCE);
        m = h;
    }
    if (lin == 0)
        o[g] = t[0];
}

// The same toward the group's last element with size_t indices: `m - h > k` (the affine side
// second, shrinking) is again taken by a row's first work-items only; `lin >= n - (m - h)`
// (taken by a row's last ones: no row cut) and a value each work-item keeps across the
// barriers (no row cut either) in a second tree.
kernel void tree_rows_rev(global const float *a, global float *o, global float *p, local float *t) {
    size_t w = get_local_size(0);
    size_t lin = get_local_id(1) * w + get_local_id(0);
    size_t n = w * get_local_size(1);
    size_t k = n - 1 - lin;
    size_t g = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    size_t gl = get_global_id(1) * get_global_size(0) + get_global_id(0);
    float mine = a[gl] * 2.0f;
    t[k] = a[gl];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t m = n; m > 1;) {
        size_t h = (m + 1) / 2;
        if (m - h > lin)
            t[lin] += t[lin + h];
        barrier(CLK_LOCAL_MEM_FENCE);
        m = h;
    }
    float first = t[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    t[lin] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t m = n; m > 1;) {
        size_t h = (m + 1) / 2;
        if (lin >= n - (m - h))
            t[lin] += t[lin - h];
        barrier(CLK_LOCAL_MEM_FENCE);
        m = h;
    }
    p[gl] = mine + t[n - 1];
    if (lin == 0)
        o[g] = first;
}

// The reduction toward the group's last element alone: `lin >= n - (m - h)` is taken by a
// row's last work-items, so four that skip it say nothing of the rest of the row (no row cut,
// though nothing is kept per work-item across the barriers).
kernel void tree_rows_top(global const float *a, global float *o, local float *t) {
    uint w = get_local_size(0);
    uint lin = get_local_id(1) * w + get_local_id(0);
    uint n = w * get_local_size(1);
    size_t g = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    t[lin] = a[get_global_id(1) * get_global_size(0) + get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint m = n; m > 1;) {
        uint h = (m + 1) / 2;
        if (lin >= n - (m - h))
            t[lin] += t[lin - h];
        barrier(CLK_LOCAL_MEM_FENCE);
        m = h;
    }
    if (lin == n - 1)
        o[g] = t[n - 1];
}

// size_t index arithmetic: 64-bit values that differ between work-items (i % w, i / w, shifts),
// (int)i, 64-bit comparisons, and a load through a computed index.
kernel void sz_split(global const float *a, global float *o, global int *p, ulong w) {
    size_t i = get_global_id(0);
    size_t x = i % w, y = i / w;
    int k = (int)i;
    o[i] = a[y * w + (w - 1 - x)] + (float)k * 0.5f;
    p[i] = (int)(x * 3 + y) + (i == w ? 1000 : 0) + (int)(i >> 1);
}

// long values: 64-bit loads, stores, products, shifts and comparisons per work-item.
kernel void sz_long(global const long *a, global long *o, long m) {
    size_t i = get_global_id(0);
    long v = a[i];
    o[i] = v * m + (long)i - (v >> 7) + (v < (long)i ? 1 : 0);
}

// A gather: each work-item loads through an index it read.
kernel void sz_gather(global const float *a, global const uint *idx, global float *o, ulong n) {
    size_t i = get_global_id(0);
    o[i] = a[idx[i] % n] * 2.0f;
}

// Loops that work-items leave at different rounds: they run under an execution mask until the
// last of the four has left. (No contraction into fma from here on: the host computes the same
// float operations.)
#pragma OPENCL FP_CONTRACT OFF

// Mandelbrot's shape: two exits, a trip count per work-item.
kernel void escape(global uint *out, global float *last, float x0, float dx, uint max_iter) {
    size_t i = get_global_id(0);
    float cr = x0 + (float)i * dx, ci = 0.25f;
    float zr = 0.0f, zi = 0.0f;
    uint it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    out[i] = it;
    last[i] = zr;
}

// A store every round (masked for the work-items that left) and a data-dependent break.
kernel void until(global const float *a, global float *o, global float *trace, float lim) {
    size_t i = get_global_id(0);
    float fx = a[i];
    for (int j = 0; j < (int)(i % 7) + 1; j++) {
        fx = fx * 0.5f + a[i + j];
        if (fx > lim) break;
        trace[i] = fx + (float)j;
    }
    o[i] = fx;
}

// A branch that differs between work-items after a store: each arm runs under the mask of its
// own work-items, its stores going to memory only for them.
kernel void masked_arms(global const float *a, global float *o, global float *p) {
    size_t i = get_global_id(0);
    float x = a[i];
    o[i] = x;
    float y;
    if (x > 0.5f) {
        p[2 * i] = x * 2.0f;
        y = x - 1.0f;
    } else {
        p[2 * i + 1] = -x;
        o[i] = x + 1.0f;
        y = a[i + 1];
    }
    o[i + get_global_size(0) + 8] = y;
}

// Built-in calls: integer ones and sin, lane by lane through the scalar builtins.
kernel void calls(global const float *a, global const int *b, global float *o, global int *p) {
    size_t i = get_global_id(0);
    int x = b[i];
    o[i] = sin(a[i]);
    p[i] = clamp(x, -1000, 1000) + (int)abs(x >> 4) + popcount(x) + rotate(x, 7) + mul_hi(x, 12345);
}

// float4 values per work-item (one vector per component in the vector loop): a float4 load
// and store, built-ins, a swizzle, a component swap.
kernel void v_float4(global const float4 *a, global const float *b, global float4 *o, float s) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    float4 w = (float4)(b[i], s, -b[i], 1.0f);
    float4 r = fma(v, w, v.wzyx) - fabs(v) * s;
    r.xz = r.zx;
    o[i] = r;
}

// The geometric functions of float4 and float3 values (in the vector loop: normalize in
// single precision four work-items at a time, length, distance and cross in double precision
// two at a time, dot component by component).
kernel void v_geometric(global const float4 *a, global const float4 *b, global float4 *o, global float *s) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    float4 w = b[i];
    o[3 * i] = normalize(v);
    o[3 * i + 1] = cross(v, w);
    o[3 * i + 2] = (float4)(normalize(w.xyz), fast_length(w.xy));
    s[3 * i] = length(v);
    s[3 * i + 1] = distance(v, w);
    s[3 * i + 2] = dot(v, w);
}

// Vector data loads and stores (OpenCL C 6.15.7): groups of four and of three side by side,
// pairs at computed offsets, halves one and four a lane (rounded to nearest even and toward
// zero), and, after the stores, loads and stores in arms only some work-items take (under the
// execution mask). N is the global size.
#define N 203
kernel void v_vdata(global const float *a, global const half *h, global float *o, global half *oh,
                    global int *oi) {
    size_t i = get_global_id(0);
    float4 v = vload4(i, a);
    float3 t = vload3(i, a + 1);
    float2 w = vload2((i * 7) % 50, a);
    float x = vload_half(i, h);
    float4 hv = vload_half4(i, h + 2);
    float2 h2 = vload_half2(i, h);
    vstore4(v * 2.0f + (float4)(w, x, hv.w), i, o);
    vstore3(t + hv.xyz, i, o + 4 * N);
    vstore_half(v.x + x, i, oh);
    vstore_half4_rtz(hv * 3.0f + v, i, oh + N);
    vstore2((int2)(convert_int(h2.x * 100.0f), (int)i), i, oi);
    if (v.y > 0.0f)
        vstore2(w, i, o + 7 * N);
    if (v.z > 0.0f) {
        float4 q = vload4(i + 1, a);
        vstore4(q, i, o + 9 * N);
    }
}
#undef N

// Float to integer conversions with rounding modes and saturation, of float4 values component
// by component and of floats to int, uchar and short (four lanes at a time).
kernel void v_convert(global const float4 *a, global int4 *o, global uint4 *u, global int *s) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    o[2 * i] = convert_int4_sat_rte(v * 3.0f);
    o[2 * i + 1] = convert_int4_rtn(v);
    u[i] = convert_uint4_sat_rtp(v);
    s[3 * i] = convert_int_rte(v.x);
    s[3 * i + 1] = convert_uchar_sat_rtn(v.y);
    s[3 * i + 2] = convert_short_sat(v.z);
}

// uint4 values per work-item: rotates by constant amounts (0 among them), a bit select, a
// swizzle, an add of the id.
kernel void v_uint4(global const uint4 *a, global uint4 *o) {
    size_t i = get_global_id(0);
    uint4 u = a[i];
    uint4 r = rotate(u, (uint4)(1u, 8u, 31u, 0u)) ^ bitselect(u, u.yzwx, (uint4)(0x0f0f0f0fu));
    o[i] = r + (uint4)((uint)i);
}

// 64-bit compare-and-swap retry loops (atom_cmpxchg, the CTS atomics shape): each work-item adds
// i + 2 to one of three counters, first failing on purpose `fail[i]` times (an expected value
// one above the counter's, which no sum of increments of 2 or more can reach), so the four
// work-items of a vector leave the loop at different rounds and the atomic must not run again
// for one that has left.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
kernel void cas_long(volatile global long *acc, global long *old, global uint *rounds, global const uint *fail) {
    size_t i = get_global_id(0);
    volatile global long *p = acc + i % 3;
    long seen, expect;
    uint n = 0;
    do {
        long orig = *p;
        expect = n < fail[i] ? orig + 1 : orig;
        seen = atom_cmpxchg(p, expect, orig + (long)i + 2);
        n++;
    } while (seen != expect);
    old[i] = seen;
    rounds[i] = n;
}

// The same on ulong with the CTS kernel's int id, the counter in local memory first.
kernel void cas_ulong_local(volatile global ulong *acc, global ulong *old, global const uint *fail,
                            volatile local ulong *tmp) {
    int tid = get_global_id(0);
    if (get_local_id(0) == 0) *tmp = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong seen, orig, expect;
    uint n = 0;
    do {
        orig = *tmp;
        expect = n < fail[tid] ? orig + 1 : orig;
        seen = atom_cmpxchg(tmp, expect, orig + tid + 2);
        n++;
    } while (seen != expect);
    old[tid] = seen;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) atom_add(&acc[get_group_id(0)], *tmp);
}

// Long dependency chains on uint4 and float4 values (the hash benchmark's shape): 24 unrolled
// rounds per trip of a loop whose trip count differs between work-items (so it runs under an
// execution mask). The vector code is cut into blocks every so many instructions so that the
// chains of the four components interleave; the values passed across a cut are the same
// values, and the results must match the host's rounds bit for bit.
#pragma OPENCL FP_CONTRACT OFF
#define CH_ROUND(r)                                                                           \
    {                                                                                         \
        uint4 x = a + bitselect(d, c, b) + w##r + (uint4)((r + 1) * 0x9e3779b9u);             \
        a = d;                                                                                \
        d = c;                                                                                \
        c = b;                                                                                \
        b = b + rotate(x, (uint4)((r * 5) % 31 + 1));                                         \
        f = f * (float4)(0.5f + r * 0.01f) + convert_float4(b & (uint4)(255u)) * (float4)(0.25f); \
    }
kernel void chains(global const uint4 *in, global uint4 *o, global float4 *of, uint n) {
    size_t i = get_global_id(0);
    uint4 w0 = in[4 * i], w1 = in[4 * i + 1], w2 = in[4 * i + 2], w3 = in[4 * i + 3];
    uint4 w4 = w0 ^ w1, w5 = w1 ^ w2, w6 = w2 ^ w3, w7 = w3 ^ w0;
    uint4 a = w0 ^ w2, b = w1, c = w2 + (uint4)((uint)i), d = w3;
    float4 f = convert_float4(w0 & (uint4)(1023u));
    for (uint it = 0; it < n + (uint)(i % 3); it++) {
        CH_ROUND(0) CH_ROUND(1) CH_ROUND(2) CH_ROUND(3) CH_ROUND(4) CH_ROUND(5) CH_ROUND(6) CH_ROUND(7)
        CH_ROUND(0) CH_ROUND(1) CH_ROUND(2) CH_ROUND(3) CH_ROUND(4) CH_ROUND(5) CH_ROUND(6) CH_ROUND(7)
        CH_ROUND(7) CH_ROUND(6) CH_ROUND(5) CH_ROUND(4) CH_ROUND(3) CH_ROUND(2) CH_ROUND(1) CH_ROUND(0)
        w0 += a;
        w5 ^= b.yzwx;
    }
    o[2 * i] = a ^ c;
    o[2 * i + 1] = b + d;
    of[i] = f;
}

// A negated value (`t`) read by a multiply-add right away and again after more straight-line
// code than a cut's stride (`near` and `far`). Cranelift's instruction selection folds a
// negation into the multiply-add it feeds (`vfnmadd`), which does not flip the sign of a NaN
// coming through it as the negation alone does; a cut between the negation and its use must
// not hide the negation from that fold, or the two words differ for a NaN `b[i]`.
#define FN_ROUND(r) h = rotate(h, (uint)(r % 7 + 3)) ^ (h + (uint)(r + 1) * 0x9e3779b9u);
kernel void fneg_cut(global const float *a, global const float *b, global int *o, float s, float s2) {
    size_t i = get_global_id(0);
    float x = a[i], t = -b[i];
    int near = as_int(mad(x, t, s));
    uint h = as_uint(x) ^ (uint)i;
    FN_ROUND(0) FN_ROUND(1) FN_ROUND(2) FN_ROUND(3) FN_ROUND(4) FN_ROUND(5) FN_ROUND(6) FN_ROUND(7)
    FN_ROUND(8) FN_ROUND(9) FN_ROUND(10) FN_ROUND(11) FN_ROUND(12) FN_ROUND(13) FN_ROUND(14)
    FN_ROUND(15) FN_ROUND(16) FN_ROUND(17) FN_ROUND(18) FN_ROUND(19) FN_ROUND(20) FN_ROUND(21)
    FN_ROUND(22) FN_ROUND(23) FN_ROUND(24) FN_ROUND(25) FN_ROUND(26) FN_ROUND(27) FN_ROUND(28)
    FN_ROUND(29) FN_ROUND(30) FN_ROUND(31) FN_ROUND(32) FN_ROUND(33) FN_ROUND(34) FN_ROUND(35)
    o[3 * i] = near;
    o[3 * i + 1] = as_int(mad(x, t, s2));
    o[3 * i + 2] = (int)h;
}

// Shifts and rotates of uint4 values (one register per component in the vector loop) by
// amounts that are splats (constants, a kernel argument), computed from constants (the
// funnel shifts of `funnel`, which compilers turn into `fshl`/`fshr` with `32 - n` amounts),
// per-component constants, or each work-item's own; amounts of 32 and more are taken modulo
// 32, as OpenCL's shifts and rotate take them.
inline uint4 funnel(uint4 hi, uint4 lo, uint s) {
    uint sh = 8u * s;
    return sh == 0u ? lo : (lo >> sh) | (hi << (32u - sh));
}
kernel void shifts(global const uint4 *in, global uint4 *o, uint s) {
    size_t i = get_global_id(0);
    uint4 x = in[2 * i], y = in[2 * i + 1];
    global uint4 *out = o + 12 * i;
    out[0] = rotate(x, (uint4)(13u));
    out[1] = rotate(x, (uint4)(45u));
    out[2] = rotate(y, (uint4)(s));
    out[3] = rotate(x, (uint4)(1u, 8u, 31u, 32u));
    out[4] = rotate(x, y);
    out[5] = funnel(x, y, 1u) ^ funnel(y, x, 2u);
    out[6] = funnel(x, y, 3u) + funnel(x, y, 0u);
    out[7] = funnel(x, y, s & 3u);
    out[8] = (x << (uint4)(40u)) | (y >> (uint4)(s));
    out[9] = (x << (uint4)(3u, 35u, 0u, 31u)) ^ (y >> (uint4)(31u, 1u, 64u, 17u));
    out[10] = (x << (y & (uint4)(31u))) ^ (x >> y);
    out[11] = as_uint4(as_int4(x) >> (int4)(s)) ^ as_uint4(as_int4(y) >> (int4)(3, 33, 0, 31));
}

// Values of 2, 8 and 16 components per work-item, loaded and stored whole (in the vector loop:
// one load or store per lane and row of four components, transposed into components), one
// through a gathered index, mixed across components; `shared` is written by two work-items per
// element (either one's value may stay).
kernel void v_widths(global const float2 *a2, global const float8 *a8, global const float16 *a16,
                     global const uint *idx, global float2 *o2, global float8 *o8,
                     global float16 *o16, global uint8 *shared) {
    size_t i = get_global_id(0);
    float2 x = a2[i];
    float8 y = a8[idx[i]];
    float16 z = a16[i];
    o2[i] = x.yx * 2.0f + y.s01;
    o8[i] = y * x.x + (float8)(z.lo.even, z.hi.odd);
    o16[i] = z + (float16)(y, y.s76543210);
    shared[i / 2] = as_uint8(convert_int8(y.s02461357 - z.s8)) + (uint8)((uint)i);
}

// Three-component values loaded and stored whole through pointers (each takes 16 bytes, the
// fourth component padding).
kernel void v_threes(global const float3 *a, global const int3 *b, global float3 *o,
                     global int3 *p) {
    size_t i = get_global_id(0);
    float3 x = a[i];
    int3 y = b[i];
    o[i] = x.zxy * 2.0f + convert_float3(y);
    p[i] = y.yzx - (int3)((int)i);
}

// Vectors of 8- and 16-bit integers (in the vector loop: 32-bit lanes whose low bits are the
// component): RGBA pixels scaled, offset and saturated back with rounding to nearest even,
// 16-bit pairs with wrapping arithmetic, and 8-bit components widened to 16 bits.
kernel void v_narrow(global const uchar4 *px, global const short2 *d, global uchar4 *out,
                     global short2 *dout, global ushort4 *wide, float gain) {
    size_t i = get_global_id(0);
    uchar4 p = px[i];
    short2 e = d[i];
    float4 f = convert_float4(p) * gain + (float4)(convert_float2(e), 0.5f, -0.5f);
    out[i] = convert_uchar4_sat_rte(f);
    dout[i] = e * (short2)(3, -2) + (short2)((short)i);
    wide[i] = convert_ushort4(p) * (ushort)257 + convert_ushort4(p.wzyx);
}

// Comparisons of vectors (in the vector loop: each component of the result a lane mask):
// float, int and uchar components, the tests of floats (isnan, isinf, isfinite, isnormal,
// signbit, isunordered, islessgreater) of vectors and scalars, vector conditional
// expressions and select by component, any and all.
kernel void v_compare(global const float4 *a, global const int4 *b, global const uchar4 *c,
                      global float4 *o, global int4 *p, global int *q) {
    size_t i = get_global_id(0);
    float4 x = a[i];
    int4 y = b[i];
    uchar4 z = c[i];
    int4 lt = x < (float4)(0.5f);
    o[i] = isnan(x) ? (float4)(7.0f) : select(x, -x, lt);
    p[i] = (y >= (int4)(-3)) + convert_int4(z > (uchar4)(200)) * 2 + (y.wzyx != y) * 4;
    q[i] = any(lt) + 2 * all(y < y.wzyx) + 4 * any(z == (uchar4)(0)) + 8 * isinf(x.x) +
           16 * isfinite(x.y) + 32 * isnormal(x.z) + 64 * signbit(x.w) + 128 * any(isnormal(x)) +
           256 * isunordered(x.x, x.y) + 512 * islessgreater(x.z, x.w) + 1024 * any(signbit(x));
}

// 24-bit multiplies (OpenCL C 6.15.3) on operands within 24 bits: the low 32 bits of the
// product, plus the addend.
kernel void mul24s(global const int *a, global const uint *b, global int *o, global uint *p) {
    size_t i = get_global_id(0);
    int x = a[i];
    uint y = b[i];
    o[i] = mad24(x, x >> 8, (int)i) + mul24(x >> 4, -x >> 3);
    p[i] = mad24(y & 0xffffffu, y >> 8, y) ^ mul24(y >> 9, y & 0xfffu);
}

// Nested `if`s without `else` whose arms only compute: LLVM gives the three branches one
// merge block with three-way phis (the vector loop's if-conversion with a shared merge).
kernel void nested_ifs(global const uint *a, global uint *o) {
    size_t i = get_global_id(0);
    uint x = a[i], y = a[i] >> 3, z = a[i] >> 7;
    if ((x & 3u) == 0u) {
        y += 5u;
        if ((x & 12u) == 0u) {
            z ^= y;
            if ((x & 48u) == 0u)
                x *= 3u;
        }
    }
    o[i] = x + y * 7u + z * 13u;
}

// High halves of 64-bit products (mul_hi, mad_hi) of signed and unsigned 32-bit values, as
// random number generators and division by constants use them.
kernel void mul_his(global const int *a, global const uint *b, global int *o, global uint *p) {
    size_t i = get_global_id(0);
    int x = a[i];
    uint y = b[i];
    o[i] = mul_hi(x, x ^ 0x5bd1e995) + mad_hi(x, -7, (int)i);
    p[i] = mul_hi(y, 0xcd9e8d57u) ^ mad_hi(y, y >> 3, (uint)i);
}

// Sixteen work-items per iteration: bodies of 8- and 16-bit integers only (`emit::wide`).
kernel void w_u8(global const uchar *a, global const uchar *b, uchar t, global uchar *o1,
                 global uchar *o2, global uchar *o3, global uchar *o4, global uchar *o5,
                 global uchar *o6) {
    size_t i = get_global_id(0);
    uchar x = a[i], y = b[i];
    o1[i] = x > t ? 255 : 0;
    o2[i] = add_sat(x, y);
    o3[i] = sub_sat(x, y) ^ (x >> 3) ^ (uchar)(x * y);
    o4[i] = abs_diff(x, y) + hadd(x, y);
    o5[i] = rhadd(x, y) | clamp(x, (uchar)20, (uchar)200);
    o6[i] = (x < y && y != 7) ? min(x, y) : (uchar)(max(x, y) - ~x);
}

kernel void w_s8(global const char *a, global const char *b, global char *o1, global char *o2,
                 global uchar *o3, global char *o4, global char *o5) {
    int i = get_global_id(0);
    char x = a[i], y = b[i];
    o1[i] = add_sat(x, y) - sub_sat(x, y);
    o2[i] = (x >> 2) ^ -y;
    o3[i] = abs(x) + abs_diff(x, y);
    o4[i] = hadd(x, y) + rhadd(x, y);
    o5[i] = (x < y ? max(x, y) : min(x, y)) ^ clamp(x, (char)-100, (char)50);
}

kernel void w_16(global const uchar *a, global const uchar *b, global const short *s,
                 global short *o1, global ushort *o2, global uchar *o3, global short *o4,
                 global uchar *o5) {
    size_t i = get_global_id(0);
    uchar x = a[i], y = b[i];
    short v = s[i];
    o1[i] = v * (short)3 + (v >> 2);
    o2[i] = (ushort)x * (ushort)257 + y;
    o3[i] = (uchar)(v >> 4) + x;
    o4[i] = v < (short)-5 ? add_sat(v, (short)20000) : rhadd(v, (short)x);
    o5[i] = ((x > y) == (v < 0)) ? x : y;
}

kernel void w_inv(global uchar *a) {
    size_t i = get_global_id(0);
    a[i] = ~a[i];
}

// The same with the 32-bit values OpenCL C's integer promotions leave (`abs(x - y)`, `x * m`).
kernel void w_32(global const uchar *a, global const uchar *b, global const char *c, int m,
                 global uchar *o1, global uchar *o2, global uchar *o3, global short *o4) {
    size_t i = get_global_id(0);
    uchar x = a[i], y = b[i];
    char z = c[i];
    o1[i] = abs(x - y) > 20 ? 255 : 0;
    o2[i] = (x * m) >> 8;
    o3[i] = (z * 3 - y) >> 1;
    o4[i] = (short)(max(x * m, y * 1000) - (z << 9));
}

// Strides the kernel takes as arguments (pyopencl's `i = start + gid * step`): the vector loop
// takes them to be 1 (then `a[i]` is one vector load) under a guard, and goes on in the body
// planned without that when they are not. A loop the work-items leave at different rounds.
kernel void stepped(global const float *a, global float *o, long start, long step, long stop) {
    long i = start + (long)get_global_id(0) * step;
    float acc = 0.0f;
    for (uint s = 0; s < 3; s++) {
        if (i >= stop)
            break;
        acc += a[i] * 2.0f;
        i += 37 * step;
    }
    o[get_global_id(0)] = acc;
}

// 32-bit strides, a load and a store through them.
kernel void stepped_int(global const int *a, global int *o, int istep, int ostep) {
    int g = get_global_id(0);
    o[g * ostep] = a[istep * g] * 3 + g;
}

// In a barrier region.
kernel void stepped_local(global const float *a, global float *o, local float *t, long step) {
    size_t l = get_local_id(0);
    t[l] = a[get_global_id(0) * step];
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = t[l] - t[get_local_size(0) - 1 - l];
}

// Nested `if`s whose arms store (a bounds check around conditions, stream compaction as
// pyopencl's copy_if ends it): compilers end them at one merge block, which the vector loop
// gives each branch a merge of its own; the inner branches run under the lanes' masks once
// something is stored.
kernel void nested_stores(global const int *a, global int *o, global int *p, int n) {
    int i = get_global_id(0);
    int x = a[i];
    if (i < n) {
        o[i] = x;
        if (x > 0) {
            p[i] = x * 2;
            if ((x & 3) == 1)
                o[i] = -x;
        } else {
            p[i] = x - 1;
        }
        if (i + 1 == n)
            p[n] = 12345;
    }
}

// `flags` holds the inclusive prefix sums of the kept elements' marks.
kernel void compact(global const int *flags, global const float *in, global float *out, global int *count,
                    int n) {
    int i = get_global_id(0);
    if (i < n) {
        int item = flags[i];
        int prev = i > 0 ? flags[i - 1] : 0;
        if (prev != item)
            out[item - 1] = in[i];
        if (i + 1 == n)
            *count = item;
    }
}

// Values of nested branches with loads in their arms, used after them.
kernel void nested_values(global const int *a, global int *o, int n) {
    int i = get_global_id(0);
    int x = a[i], y = 1;
    if (x > n) {
        o[i] = 7;
        if (x & 1)
            y = a[(i ^ 1) % get_global_size(0)];
        else
            y = x * 3;
        if (y < 0)
            y = a[(i + 1) % get_global_size(0)] + 1;
        y += 2;
    }
    o[i] += y;
}
