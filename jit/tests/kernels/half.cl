// Half-precision conversions and arithmetic for tests/half.rs. Every value goes in and out as
// its bit pattern (ushort, uint, ulong), so the test compares bits.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// Half to float and to double (OpFConvert).
kernel void widen(global const ushort *in, global uint *out, global ulong *out64) {
    uint i = get_global_id(0);
    half h = as_half(in[i]);
    out[i] = as_uint((float)h);
    out64[i] = as_ulong((double)h);
}

// Float to half, rounded to nearest even (OpFConvert without a rounding mode), and that half
// back to float (which Clift takes from the float rounded to half precision).
kernel void narrow(global const uint *in, global ushort *out, global uint *back) {
    uint i = get_global_id(0);
    half h = (half)as_float(in[i]);
    out[i] = as_ushort(h);
    back[i] = as_uint((float)h);
}

// Double to half, rounded to nearest even, and back to double.
kernel void narrow64(global const ulong *in, global ushort *out, global ulong *back) {
    uint i = get_global_id(0);
    half h = (half)as_double(in[i]);
    out[i] = as_ushort(h);
    back[i] = as_ulong((double)h);
}

// Integers to half, rounded to nearest even (OpConvertSToF, OpConvertUToF).
kernel void from_int(global const ulong *in, global ushort *out) {
    uint i = get_global_id(0);
    ulong x = in[i];
    out[6 * i] = as_ushort((half)(int)x);
    out[6 * i + 1] = as_ushort((half)(uint)x);
    out[6 * i + 2] = as_ushort((half)(long)x);
    out[6 * i + 3] = as_ushort((half)x);
    out[6 * i + 4] = as_ushort((half)(short)x);
    out[6 * i + 5] = as_ushort((half)(uchar)x);
}

// The four operations on half scalars.
kernel void ops(global const ushort *a, global const ushort *b, global ushort *out) {
    uint i = get_global_id(0);
    half x = as_half(a[i]);
    half y = as_half(b[i]);
    out[4 * i] = as_ushort(x + y);
    out[4 * i + 1] = as_ushort(x - y);
    out[4 * i + 2] = as_ushort(x * y);
    out[4 * i + 3] = as_ushort(x / y);
}

// Separate multiplications and additions, each rounded to half (no contraction).
kernel void mul_add_chain(global const ushort *a, global const ushort *b, global ushort *out, uint n) {
#pragma OPENCL FP_CONTRACT OFF
    uint i = get_global_id(0);
    half x = as_half(a[i]);
    half y = as_half(b[i]);
    for (uint k = 0; k < n; k++) {
        x = y * x + y;
        y = x * y + x;
    }
    out[i] = as_ushort(y);
}

// The same chain with mad (the form clang gives `y * x + y` where it may contract).
kernel void mad_chain(global const ushort *a, global const ushort *b, global ushort *out, uint n) {
    uint i = get_global_id(0);
    half x = as_half(a[i]);
    half y = as_half(b[i]);
    for (uint k = 0; k < n; k++) {
        x = mad(y, x, y);
        y = mad(x, y, x);
    }
    out[i] = as_ushort(y);
}

// Vectors of halves: add, mul and mad chains component by component, on half2 ... half16
// (TYPE and N given by the test's -D options: the vector type and its width).
kernel void vec_chain(global const ushort *a, global const ushort *b, global ushort *out, uint n) {
    uint i = get_global_id(0);
    TYPE x = VLOAD(i, (global const half *)a);
    TYPE y = VLOAD(i, (global const half *)b);
    TYPE s = x + y;
    TYPE p = x * y;
    for (uint k = 0; k < n; k++) {
        x = mad(y, x, y);
        y = mad(x, y, x);
    }
    VSTORE(s, 3 * i, (global half *)out);
    VSTORE(p, 3 * i + 1, (global half *)out);
    VSTORE(y, 3 * i + 2, (global half *)out);
}
