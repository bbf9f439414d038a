__kernel void add(__global float* a, __global float* b, __global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

__kernel void intops(__global int* a, __global int* b, __global int* out) {
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    out[i * 8 + 0] = x / y;
    out[i * 8 + 1] = x % y;
    out[i * 8 + 2] = x << y;
    out[i * 8 + 3] = x >> y;
    out[i * 8 + 4] = (int)((uint)x / (uint)y);
    out[i * 8 + 5] = (int)((uint)x >> (uint)y);
    out[i * 8 + 6] = max(x, y) - min(x, y) + abs(x);
    out[i * 8 + 7] = clamp(x, -5, 5) * mul24(x, 3);
}

__kernel void longops(__global long* a, __global long* b, __global long* out, __global char* c8, __global short* c16) {
    size_t i = get_global_id(0);
    long x = a[i], y = b[i];
    out[i * 4 + 0] = x / y;
    out[i * 4 + 1] = x % (y ^ 1);
    out[i * 4 + 2] = x << y;
    out[i * 4 + 3] = x * y + (x >> 3);
    c8[i] = (char)(c8[i] * 3 + (char)x) / (char)(y | 1);
    c16[i] = (short)(c16[i] * 7 - (short)x) >> 2;
}

__kernel void convs(__global float* f, __global int* oi, __global uint* ou, __global uchar* ouc, __global char* osc, __global float* of) {
    size_t i = get_global_id(0);
    float x = f[i];
    oi[i * 4 + 0] = convert_int_sat(x);
    oi[i * 4 + 1] = convert_int_sat_rte(x);
    oi[i * 4 + 2] = convert_int_rtp(x);
    oi[i * 4 + 3] = convert_int_rtn(x);
    ou[i] = convert_uint_sat(x);
    ouc[i] = convert_uchar_sat(x);
    osc[i] = convert_char_sat((int)x);
    of[i * 2 + 0] = convert_float_rtz(oi[i * 4 + 0] * 16777219);
    of[i * 2 + 1] = convert_float_rtp((long)oi[i * 4 + 0] * 16777219L);
}

__kernel void vec4(__global float4* a, __global float4* b, __global float4* c, __global int4* d) {
    size_t i = get_global_id(0);
    float4 x = a[i], y = b[i];
    c[i] = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f) - y.wzyx;
    d[i] = x > y;
}

__kernel void vec3(__global float* a, __global float* c) {
    size_t i = get_global_id(0);
    float3 x = vload3(i, a);
    float3 y = x.zxy * 2.0f + (float3)(dot(x, x));
    vstore3(y, i, c);
}

__kernel void vec16(__global int16* a, __global int16* c, __global char8* d) {
    size_t i = get_global_id(0);
    int16 x = a[i];
    c[i] = x * x + x.sf;
    d[i] = convert_char8_sat(x.lo * 100);
}

__kernel void loops(__global int* n, __global int* out) {
    size_t i = get_global_id(0);
    int k = n[i];
    int s = 0;
    for (int j = 0; j < k; ++j) {
        if (j % 3 == 0) continue;
        s += j * j;
        if (s > 1000) break;
    }
    switch (k) {
        case 0: s += 1; break;
        case 1: s *= 2; break;
        case 2: s -= 7;
        default: s ^= 0x55;
    }
    out[i] = s;
}

typedef struct { int a; float b; char c; long d; } S;

int helper(int x, S s) { return x * s.a + (int)s.b + s.c + (int)s.d; }

__kernel void structs(S s, __global int* out, int scale) {
    size_t i = get_global_id(0);
    out[i] = helper((int)i * scale, s);
}

__kernel void reduce(__global const float* in, __global float* out, __local float* scratch) {
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}

void sync_add(__local int* t, int lid, int v) {
    t[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel void barrier_fn(__global int* out) {
    __local int tile[64];
    int lid = get_local_id(0);
    sync_add(tile, lid, lid * 2);
    int n = get_local_size(0);
    out[get_global_id(0)] = tile[(lid + 1) % n] + tile[(lid + n - 1) % n];
}

__kernel void atomics(__global int* counter, __global uint* mx, __global long* lc, __local int* lcount) {
    if (get_local_id(0) == 0) *lcount = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(counter);
    atomic_add(&counter[1], 3);
    atomic_max(mx, (uint)get_global_id(0));
    atomic_min(&mx[1], (uint)get_global_id(0));
    atom_add(lc, 1L << 33);
    atomic_inc(lcount);
    atomic_xchg(&counter[2], 7);
    atomic_cmpxchg(&counter[3], 0, 5);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) atomic_add(&counter[4], *lcount);
}

__kernel void ids(__global ulong* out) {
    size_t g = get_global_linear_id();
    out[g * 8 + 0] = get_global_id(0);
    out[g * 8 + 1] = get_global_id(1);
    out[g * 8 + 2] = get_local_id(0);
    out[g * 8 + 3] = get_local_id(1);
    out[g * 8 + 4] = get_group_id(1);
    out[g * 8 + 5] = get_local_size(0);
    out[g * 8 + 6] = get_enqueued_local_size(0);
    out[g * 8 + 7] = get_work_dim() + get_num_groups(1) * 10 + get_global_offset(0) * 100 + get_local_linear_id() * 1000;
}

__constant float table[4] = { 1.5f, 2.5f, 3.5f, 4.5f };

__kernel void math(__global float* x, __global float* out, __global double* d) {
    size_t i = get_global_id(0);
    float v = x[i];
    out[i * 8 + 0] = fmin(v, NAN);
    out[i * 8 + 1] = fmax(NAN, v);
    out[i * 8 + 2] = sqrt(fabs(v)) + table[i & 3];
    out[i * 8 + 3] = round(v) + floor(v) * 10;
    out[i * 8 + 4] = exp(v * 0.1f);
    out[i * 8 + 5] = fma(v, v, 1.0f) + mad(v, 2.0f, 0.5f);
    out[i * 8 + 6] = sin(v) + pow(fabs(v), 0.5f);
    out[i * 8 + 7] = isnan(v / 0.0f) + isinf(v / 0.0f) * 2 + signbit(v) * 4;
    d[i] = convert_double(v) * 3.0 + (double)vload_half(0, (__global half*)&out[i * 8 + 7]);
}
