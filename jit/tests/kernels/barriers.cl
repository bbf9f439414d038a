// Kernels for jit/tests/barriers.rs: every barrier pattern the region (continuation) path and
// the fiber fallback must handle, plus an empty kernel for the launch-overhead benchmark.
// Built with: clang-15 -c -target spir64 -emit-llvm -cl-std=CL2.0 -Xclang -finclude-default-header
// -O2 (and -O0) barriers.cl -o x.bc && llvm-spirv-15 x.bc -o barriers.spv (barriers_O0.spv).

__kernel void empty(void) {}

// A barrier in a loop whose trip count is a kernel argument; values carried around the loop.
__kernel void rotate(__global uint* out, __local uint* t, uint iters) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint v = lid * 3 + (uint)get_group_id(0);
    uint acc = 0;
    for (uint it = 0; it < iters; ++it) {
        t[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = t[(lid + 1) % n] + it;
        acc += v * (it + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = acc ^ v;
}

// Barriers in nested loops and between them.
__kernel void nested(__global uint* out, __local uint* t, uint outer, uint inner) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint s = lid;
    for (uint i = 0; i < outer; ++i) {
        for (uint j = 0; j < inner; ++j) {
            t[lid] = s + j;
            barrier(CLK_LOCAL_MEM_FENCE);
            s = (s + t[(lid + j + 1) % n]) & 0xffff;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            t[0] = i * 5;
        barrier(CLK_LOCAL_MEM_FENCE);
        s += t[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = s;
}

// Barriers in called functions: called several times, through another function, in a loop,
// returning values.
__attribute__((noinline)) uint exchange(__local uint* t, uint lid, uint n, uint v, uint shift) {
    t[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint r = t[(lid + shift) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

__attribute__((noinline)) uint exchange_twice(__local uint* t, uint lid, uint n, uint v) {
    uint a = exchange(t, lid, n, v, 1);
    uint b = exchange(t, lid, n, a * 2, 2);
    return a + b;
}

__kernel void calls(__global uint* out, __local uint* t, uint iters) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint v = exchange(t, lid, n, lid, 3);
    for (uint i = 0; i < iters; ++i)
        v = exchange_twice(t, lid, n, v + i);
    out[get_global_id(0)] = v;
}

// Many private values (SSA values and a dynamically indexed private array) live across
// barriers.
__kernel void many_live(__global const uint* in, __global uint* out, __local uint* t) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    size_t g = get_global_id(0);
    uint x = in[g];
    uint a0 = x + 1, a1 = x * 3, a2 = x ^ 0x55, a3 = x >> 1, a4 = x * x, a5 = x + 17;
    uint a6 = x | 0x100, a7 = x * 7 + 1, a8 = x - 3, a9 = x << 2, a10 = ~x, a11 = x * 11;
    uint a12 = x + lid, a13 = x ^ lid, a14 = x * n, a15 = x + 99;
    ulong w = (ulong)x * 0x100000001ul;
    uint k[24];
    for (uint i = 0; i < 24; ++i)
        k[i] = x * 7 + i * 13;
    t[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint y = t[(lid + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    t[lid] = y * 2 + a3;
    k[y % 24] += y;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint z = t[(lid + n - 1) % n];
    uint s = a0 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6 + a6 * 7 + a7 * 8 + a8 * 9 + a9 * 10;
    s += a10 * 11 + a11 * 12 + a12 * 13 + a13 * 14 + a14 * 15 + a15 * 16;
    s += k[x % 24] + k[z % 24] * 3 + (uint)(w >> 7);
    out[g] = s + y + z;
}

// Barriers in divergent-looking but uniform control flow.
__kernel void uniform_branches(__global uint* out, __local uint* t, uint mode) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint v = lid;
    if (mode & 1) {
        t[lid] = v * 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = t[n - 1 - lid];
    } else {
        t[lid] = v + 7;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = t[(lid + 2) % n] * 5;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_group_id(0) % 2 == 0) {
        t[lid] = v + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        v += t[(lid + 1) % n];
    }
    switch (mode & 0xf6) {
    case 0:
        break;
    case 2:
        barrier(CLK_LOCAL_MEM_FENCE);
        t[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = t[0] + v;
        break;
    default:
        v *= 2;
        break;
    }
    out[get_global_id(0)] = v;
}

// A loop whose trip count comes from local memory (uniform because it is read after a
// barrier): max propagation until nothing changes.
__kernel void converge(__global uint* in, __global uint* out, __local uint* flag, __local uint* t) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint v = in[get_global_id(0)];
    uint rounds = 0;
    uint cont;
    do {
        t[lid] = v;
        if (lid == 0)
            *flag = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint nv = max(v, t[(lid + n - 1) % n]);
        if (nv != v)
            *flag = 1;
        v = nv;
        rounds++;
        barrier(CLK_LOCAL_MEM_FENCE);
        cont = *flag;
        barrier(CLK_LOCAL_MEM_FENCE);
    } while (cont);
    out[get_global_id(0)] = v + rounds * 1000;
}

// 2-D groups: each item reads the mirrored element of its tile (non-uniform last groups).
__kernel void mirror2d(__global const uint* in, __global uint* out, __local uint* tile, uint w) {
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint gx = get_global_id(0), gy = get_global_id(1);
    uint el = get_enqueued_local_size(0);
    tile[ly * el + lx] = in[gy * w + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint rx = get_local_size(0) - 1 - lx, ry = get_local_size(1) - 1 - ly;
    out[gy * w + gx] = tile[ry * el + rx];
}

// Tiled matrix multiply: 2-D groups, a barrier loop, two local arrays.
__kernel void matmul(__global const uint* A, __global const uint* B, __global uint* C, uint N,
                     __local uint* As, __local uint* Bs) {
    uint tx = get_local_id(0), ty = get_local_id(1);
    uint T = get_local_size(0);
    uint col = get_global_id(0), row = get_global_id(1);
    uint acc = 0;
    for (uint t = 0; t < N / T; ++t) {
        As[ty * T + tx] = A[row * N + t * T + tx];
        Bs[ty * T + tx] = B[(t * T + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < T; ++k)
            acc += As[ty * T + k] * Bs[k * T + tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}

// async_work_group_copy + wait_group_events, and a Workgroup variable.
__kernel void async_copy(__global const uint* in, __global uint* out) {
    __local uint t[64];
    uint n = get_local_size(0);
    event_t e = async_work_group_copy(t, in + get_group_id(0) * n, n, 0);
    wait_group_events(1, &e);
    uint lid = get_local_id(0);
    out[get_global_id(0)] = t[n - 1 - lid] + 1;
}

// Plain kernels (no barriers) for the work-item-loop benchmark and builtins through calls.
__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

__attribute__((noinline)) ulong ids_of(void) {
    return get_global_id(0) * 1000000 + get_local_id(1) * 1000 + get_local_linear_id();
}

__kernel void ids_call(__global ulong* out) {
    out[get_global_linear_id()] = ids_of() + get_group_id(1) * 7;
}
