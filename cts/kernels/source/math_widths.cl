// Every OpenCL.std math and common function taking and returning values, in each vector width
// (1, 2, 3, 4, 8, 16) of float and, with -DDOUBLE, double: one kernel per function and width,
// `k_<name>_<width>` (the prefix keeps clear of implementations' builtin names), each work-item computing one element (width 3 through vload3/vstore3).
// math_widths.rs checks every width against the scalar kernel bit for bit.
#ifdef DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define T double
#define T2 double2
#define T4 double4
#define T8 double8
#define T16 double16
#else
#define T float
#define T2 float2
#define T4 float4
#define T8 float8
#define T16 float16
#endif

#define ID size_t i = get_global_id(0)
// Kernel names are pasted where the function name is still a plain token: an implementation's
// headers may define the builtin's name as a macro.

#define UNARY_W(name, f, V) \
    kernel void name(global const V *x, global V *o) { ID; o[i] = f(x[i]); }
#define UNARY(f) \
    UNARY_W(k_##f##_1, f, T) UNARY_W(k_##f##_2, f, T2) UNARY_W(k_##f##_4, f, T4) UNARY_W(k_##f##_8, f, T8) UNARY_W(k_##f##_16, f, T16) \
    kernel void k_##f##_3(global const T *x, global T *o) { ID; vstore3(f(vload3(i, x)), i, o); }

#define BINARY_W(name, f, V) \
    kernel void name(global const V *x, global const V *y, global V *o) { ID; o[i] = f(x[i], y[i]); }
#define BINARY(f) \
    BINARY_W(k_##f##_1, f, T) BINARY_W(k_##f##_2, f, T2) BINARY_W(k_##f##_4, f, T4) BINARY_W(k_##f##_8, f, T8) BINARY_W(k_##f##_16, f, T16) \
    kernel void k_##f##_3(global const T *x, global const T *y, global T *o) { \
        ID; vstore3(f(vload3(i, x), vload3(i, y)), i, o); }

#define TERNARY_W(name, f, V) \
    kernel void name(global const V *x, global const V *y, global const V *z, global V *o) { \
        ID; o[i] = f(x[i], y[i], z[i]); }
#define TERNARY(f) \
    TERNARY_W(k_##f##_1, f, T) TERNARY_W(k_##f##_2, f, T2) TERNARY_W(k_##f##_4, f, T4) TERNARY_W(k_##f##_8, f, T8) TERNARY_W(k_##f##_16, f, T16) \
    kernel void k_##f##_3(global const T *x, global const T *y, global const T *z, global T *o) { \
        ID; vstore3(f(vload3(i, x), vload3(i, y), vload3(i, z)), i, o); }

// Functions with an int (vector) second operand: x and n.
#define WITH_INT_W(name, f, V, N) \
    kernel void name(global const V *x, global const N *n, global V *o) { ID; o[i] = f(x[i], n[i]); }
#define WITH_INT(f) \
    WITH_INT_W(k_##f##_1, f, T, int) WITH_INT_W(k_##f##_2, f, T2, int2) WITH_INT_W(k_##f##_4, f, T4, int4) \
    WITH_INT_W(k_##f##_8, f, T8, int8) WITH_INT_W(k_##f##_16, f, T16, int16) \
    kernel void k_##f##_3(global const T *x, global const int *n, global T *o) { \
        ID; vstore3(f(vload3(i, x), vload3(i, n)), i, o); }

UNARY(acos) UNARY(acosh) UNARY(acospi) UNARY(asin) UNARY(asinh) UNARY(asinpi) UNARY(atan)
UNARY(atanh) UNARY(atanpi) UNARY(cbrt) UNARY(ceil) UNARY(cos) UNARY(cosh) UNARY(cospi)
UNARY(erfc) UNARY(erf) UNARY(exp) UNARY(exp2) UNARY(exp10) UNARY(expm1) UNARY(fabs)
UNARY(floor) UNARY(lgamma) UNARY(log) UNARY(log2) UNARY(log10) UNARY(log1p) UNARY(logb)
UNARY(rint) UNARY(round) UNARY(rsqrt) UNARY(sin) UNARY(sinh) UNARY(sinpi) UNARY(sqrt)
UNARY(tan) UNARY(tanh) UNARY(tanpi) UNARY(tgamma) UNARY(trunc)
UNARY(degrees) UNARY(radians) UNARY(sign)

BINARY(atan2) BINARY(atan2pi) BINARY(copysign) BINARY(fdim) BINARY(fmax) BINARY(fmin)
BINARY(fmod) BINARY(hypot) BINARY(maxmag) BINARY(minmag) BINARY(nextafter) BINARY(pow)
BINARY(powr) BINARY(remainder) BINARY(step)

TERNARY(fma) TERNARY(mad) TERNARY(mix) TERNARY(smoothstep) TERNARY(clamp)

WITH_INT(ldexp) WITH_INT(pown) WITH_INT(rootn)

#ifndef DOUBLE
UNARY(half_cos) UNARY(half_exp) UNARY(half_exp2) UNARY(half_exp10) UNARY(half_log)
UNARY(half_log2) UNARY(half_log10) UNARY(half_recip) UNARY(half_rsqrt) UNARY(half_sin)
UNARY(half_sqrt) UNARY(half_tan)
UNARY(native_cos) UNARY(native_exp) UNARY(native_exp2) UNARY(native_exp10) UNARY(native_log)
UNARY(native_log2) UNARY(native_log10) UNARY(native_recip) UNARY(native_rsqrt) UNARY(native_sin)
UNARY(native_sqrt) UNARY(native_tan)
BINARY(half_divide) BINARY(half_powr) BINARY(native_divide) BINARY(native_powr)
#endif
