// OpenCL C printf through the ICD: scalars of every kind, strings, vectors and one line per
// work-item; the output is checked in tests/printf.rs (which runs the kernel in a child
// process and reads its standard output).
__kernel void pf(__global const int* v, __global int* ret) {
    int gid = (int)get_global_id(0);
    int x = v[gid];
    float f = (float)x / 4.0f;
    int4 q = (int4)(x, -x, x * 2, 7);
    ret[gid] = printf("gid=%d x=%5d u=%u hex=%#x f=%.2f e=%e g=%g s=%s c=%c v=%v4hld w=%v2hlf %%\n",
                      gid, x, (uint)x, x, f, f, f, "str", 'A' + gid % 26, q, (float2)(f, -f));
}

__kernel void pf_long(__global const long* v) {
    printf("l=%ld lu=%lu lx=%lx hh=%hhd h=%hd\n", v[0], (ulong)v[0], (ulong)v[0], (char)v[0], (short)v[0]);
}
