// Every OpenCL.std integer function in each vector width (1, 2, 3, 4, 8, 16) of one integer
// type, chosen at build time: -DT=<type> -DUT=<its unsigned type> (and -DIS32 for int and uint,
// which have mad24 and mul24). One kernel per function and width, `k_<name>_<width>` (the prefix keeps clear of implementations' builtin names); width 3 goes
// through vload3/vstore3. int_widths.rs checks every width against the scalar kernel.
#define CAT(a, b) a##b
#define V(t, w) CAT(t, w)
#define ID size_t i = get_global_id(0)

// Result type R, operand type A (vectors of width w; plain scalars for width 1).
// Kernel names are pasted where the function name is still a plain token: an implementation's
// headers may define the builtin's name as a macro.
#define K1(name, f, R, A) kernel void name(global const A *x, global R *o) { ID; o[i] = f(x[i]); }
#define K2(name, f, R, A) \
    kernel void name(global const A *x, global const A *y, global R *o) { ID; o[i] = f(x[i], y[i]); }
#define K3(name, f, R, A) \
    kernel void name(global const A *x, global const A *y, global const A *z, global R *o) { \
        ID; o[i] = f(x[i], y[i], z[i]); }

#define ALL1(f, R, A) \
    K1(k_##f##_1, f, R, A) K1(k_##f##_2, f, V(R, 2), V(A, 2)) K1(k_##f##_4, f, V(R, 4), V(A, 4)) \
    K1(k_##f##_8, f, V(R, 8), V(A, 8)) K1(k_##f##_16, f, V(R, 16), V(A, 16)) \
    kernel void k_##f##_3(global const A *x, global R *o) { ID; vstore3(f(vload3(i, x)), i, o); }
#define ALL2(f, R, A) \
    K2(k_##f##_1, f, R, A) K2(k_##f##_2, f, V(R, 2), V(A, 2)) K2(k_##f##_4, f, V(R, 4), V(A, 4)) \
    K2(k_##f##_8, f, V(R, 8), V(A, 8)) K2(k_##f##_16, f, V(R, 16), V(A, 16)) \
    kernel void k_##f##_3(global const A *x, global const A *y, global R *o) { \
        ID; vstore3(f(vload3(i, x), vload3(i, y)), i, o); }
#define ALL3(f, R, A) \
    K3(k_##f##_1, f, R, A) K3(k_##f##_2, f, V(R, 2), V(A, 2)) K3(k_##f##_4, f, V(R, 4), V(A, 4)) \
    K3(k_##f##_8, f, V(R, 8), V(A, 8)) K3(k_##f##_16, f, V(R, 16), V(A, 16)) \
    kernel void k_##f##_3(global const A *x, global const A *y, global const A *z, global R *o) { \
        ID; vstore3(f(vload3(i, x), vload3(i, y), vload3(i, z)), i, o); }

ALL1(abs, UT, T) ALL1(clz, T, T) ALL1(ctz, T, T) ALL1(popcount, T, T)
ALL2(abs_diff, UT, T) ALL2(add_sat, T, T) ALL2(sub_sat, T, T) ALL2(hadd, T, T) ALL2(rhadd, T, T)
ALL2(mul_hi, T, T) ALL2(rotate, T, T) ALL2(min, T, T) ALL2(max, T, T)
ALL3(mad_hi, T, T) ALL3(mad_sat, T, T) ALL3(clamp, T, T)
#ifdef IS32
ALL2(mul24, T, T) ALL3(mad24, T, T)
#endif
