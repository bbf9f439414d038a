// clang-15 -cl-std=CL3.0 -target spir64 -O2 -Xclang -finclude-default-header, then llvm-spirv-15:
// control_O2.spv. llvm-spirv writes a block before its dominator here, which
// spirv-val rejects and Clift accepts (dominance is not block order).
// Control flow (switch, loops with phis, break/continue, non-inlined calls), composites
// (swizzles -> OpVectorShuffle, construct, insert/extract, private arrays, structs by value),
// program-scope constant data and OpAny/OpAll (structs by value:
// struct_arg.cl; generic pointers: generic.cl). Host references in
// tests/kernel_control.rs.
constant int table[8] = {3, -1, 4, 1, -5, 9, 2, -6};

__attribute__((noinline)) int classify(int v) {
    int r;
    switch (v) {
    case 0: r = 10; break;
    case 1: r = 11; // fall through
    case 2: r = v * 2; break;
    case 5: r = -v; break;
    case -6:
    case 70: r = table[v & 7]; break;
    case 1000: r = 3; break;
    default: r = 99;
    }
    return r;
}

__attribute__((noinline)) int collatz_steps(uint v) {
    int n = 0;
    while (v > 1 && n < 1000) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        n++;
    }
    return n;
}

kernel void flow(global const int *a, global int *o) {
    size_t i = get_global_id(0);
    int v = a[i];
    int acc = 0;
    for (int j = 0; j < (v & 31); j++) {
        if (j % 3 == 2) continue;
        if (j * j > 200) break;
        acc += j * table[j & 7];
    }
    o[i * 4 + 0] = classify(v);
    o[i * 4 + 1] = acc;
    o[i * 4 + 2] = collatz_steps((uint)v & 1023);
    int arr[16];
    for (int k = 0; k < 16; k++) arr[k] = v * k + table[k & 7];
    o[i * 4 + 3] = arr[v & 15] + arr[(v >> 4) & 15];
}

kernel void swizzle(global const float4 *a, global float8 *o, global int4 *p) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    float4 w = v.wzyx + v.xxyy;
    w.y = 7.0f;
    float8 e = (float8)(w, v.yx, v.zw);
    e.s7 = v.x * 2.0f;
    o[i] = e;
    int4 c = (int4)(v.x < v.y, v.z < 0.0f, 1, 0);
    p[i] = (int4)(any(v < (float4)0.0f), all(v < (float4)100.0f), c.x, c.y);
}

