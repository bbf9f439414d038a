// Float arithmetic for double (Float64), every vector width. Each kernel reads a[i], b[i],
// c[i] and writes 16 results o[i*16 + k] in the order of the host reference in
// tests/kernel_float.rs. Results are either exact (correctly rounded in IEEE 754) or checked
// with the ULP bounds of the OpenCL SPIR-V environment.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define OPS(NAME, VT, IT)                                                          \
    kernel void NAME(global VT *a, global VT *b, global VT *c, global VT *o) {     \
        size_t i = get_global_id(0);                                               \
        VT x = a[i], y = b[i], z = c[i];                                           \
        global VT *r = o + i * 16;                                                 \
        r[0] = x + y;                                                              \
        r[1] = x - y;                                                              \
        r[2] = x * y;                                                              \
        r[3] = x / y;                                                              \
        r[4] = fma(x, y, z);                                                       \
        r[5] = -x;                                                                 \
        r[6] = fabs(x);                                                            \
        r[7] = floor(x);                                                           \
        r[8] = ceil(x);                                                            \
        r[9] = fmin(x, y);                                                         \
        r[10] = fmax(x, y);                                                        \
        r[11] = sqrt(fabs(x));                                                     \
        r[12] = x < y ? x : z;                                                     \
        r[13] = isnan(x) ? y : z;                                                  \
        r[14] = x != y ? x : z;                                                    \
        r[15] = copysign(x, y);                                                    \
    }
#define ALLW(T, I)                   \
    OPS(ops_##T##1, T, I)            \
    OPS(ops_##T##2, T##2, I##2)      \
    OPS(ops_##T##3, T##3, I##3)      \
    OPS(ops_##T##4, T##4, I##4)      \
    OPS(ops_##T##8, T##8, I##8)      \
    OPS(ops_##T##16, T##16, I##16)
ALLW(double, long)
