// The relational functions in each vector width of float and, with -DDOUBLE, double: scalar
// forms return 1 for true, vector forms -1 (all bits set) in every true component, as int for
// float and long for double. One kernel per function and width, `k_<name>_<width>` (the prefix keeps clear of implementations' builtin names), whose result
// is widened to long so one host check serves both.
#ifdef DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define T double
#define I long
#else
#define T float
#define I int
#endif
#define CAT(a, b) a##b
#define V(t, w) CAT(t, w)
#define ID size_t i = get_global_id(0)
// Kernel names are pasted where the function name is still a plain token: an implementation's
// headers may define the builtin's name as a macro.

#define R1_W(name, f, w) kernel void name(global const V(T, w) *x, global V(long, w) *o) { \
    ID; o[i] = CAT(convert_long, w)(f(x[i])); }
#define R1(f) \
    kernel void k_##f##_1(global const T *x, global long *o) { ID; o[i] = (long)f(x[i]); } \
    R1_W(k_##f##_2, f, 2) R1_W(k_##f##_4, f, 4) R1_W(k_##f##_8, f, 8) R1_W(k_##f##_16, f, 16) \
    kernel void k_##f##_3(global const T *x, global long *o) { \
        ID; vstore3(convert_long3(f(vload3(i, x))), i, o); }
#define R2_W(name, f, w) kernel void name(global const V(T, w) *x, global const V(T, w) *y, \
    global V(long, w) *o) { ID; o[i] = CAT(convert_long, w)(f(x[i], y[i])); }
#define R2(f) \
    kernel void k_##f##_1(global const T *x, global const T *y, global long *o) { \
        ID; o[i] = (long)f(x[i], y[i]); } \
    R2_W(k_##f##_2, f, 2) R2_W(k_##f##_4, f, 4) R2_W(k_##f##_8, f, 8) R2_W(k_##f##_16, f, 16) \
    kernel void k_##f##_3(global const T *x, global const T *y, global long *o) { \
        ID; vstore3(convert_long3(f(vload3(i, x), vload3(i, y))), i, o); }

R1(isfinite) R1(isinf) R1(isnan) R1(isnormal) R1(signbit)
R2(isequal) R2(isnotequal) R2(isgreater) R2(isgreaterequal) R2(isless) R2(islessequal)
R2(islessgreater) R2(isordered) R2(isunordered)
