// printf kernels for jit/tests/printf.rs. Built with:
//   clang-15 -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -O2 -no-opaque-pointers -finclude-default-header \
//     -cl-ext=+all -emit-llvm-bc printf.cl -o printf.bc && llvm-spirv-15 printf.bc -o printf.spv
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void pf_ints(__global const long* v) {
    char c = (char)v[0];
    uchar uc = (uchar)v[0];
    short s = (short)v[1];
    ushort us = (ushort)v[1];
    int i = (int)v[2];
    uint u = (uint)v[2];
    long l = v[3];
    ulong ul = (ulong)v[3];
    printf("c=%hhd uc=%hhu s=%hd us=%hu i=%d u=%u l=%ld ul=%lu\n", c, uc, s, us, i, u, l, ul);
    printf("x=%x X=%X o=%o lx=%lX |%-6d|%+d|% d|%06d|%.4d|%#x|%#o|%i\n", i, u, u, ul, i, i, i, i, i, u, u, c);
}

__kernel void pf_floats(__global const double* d) {
    float f = (float)d[0];
    double x = d[1];
    printf("%f %F %e %E %g %G %a %A\n", f, f, f, f, f, f, f, f);
    printf("%.3f|%10.2e|%-12g|%.0f|%#g|%+.10a|%08.3f\n", x, x, x, x, x, x, x);
    printf("%lf %le %lg\n", x, x, x);
}

__kernel void pf_misc(__global const int* v) {
    printf("%s|%10s|%-5s|%.2s|%c%c|%%|%5c|\n", "hello", "right", "left", "trunc", 'O', (char)v[0], 'z');
}

__kernel void pf_vec(__global const float* f, __global const int* i, __global const double* d) {
    float4 a = vload4(0, f);
    int2 b = vload2(0, i);
    printf("%v4hlf|%v2hld|%v4hlg|%.2v4hle\n", a, b, a, a);
    char3 c = (char3)((char)i[0], (char)i[1], (char)i[2]);
    ushort8 s = (ushort8)((ushort)i[0], (ushort)i[1], 2, 3, 4, 5, 6, 0xffff);
    double2 e = vload2(0, d);
    long2 l = (long2)((long)i[0] * 1000000000L, (long)i[1]);
    uchar16 u = (uchar16)((uchar)i[0]);
    printf("%v3hhd %v8hx %v2lf %v2ld %v16hhu\n", c, s, e, l, u);
    half2 h = (half2)((half)f[0], (half)f[1]);
    printf("%v2hf\n", h);
}

__kernel void pf_items(__global const int* v) {
    int gid = (int)get_global_id(0);
    printf("item %d of %d: value %d\n", gid, (int)get_global_size(0), v[gid]);
}

__kernel void pf_ret(__global int* out) {
    out[0] = printf("ok %d\n", out[0]);
    out[1] = printf("bad %q\n", out[0]);
    out[2] = printf("missing %d %d\n", out[0]);
}
