// cl_khr_fp16: half arithmetic, conversions and built-ins (cts/tests/half.rs).
// Every kernel reads half operands as bit patterns (ushort on the host) and writes results
// that the host checks against its own references.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef cl_khr_fp16
#error "cl_khr_fp16 is not defined"
#endif
#ifndef __opencl_c_fp16
#error "__opencl_c_fp16 is not defined"
#endif

// out[4i..4i+4] = a+b, a-b, a*b, a/b; fmaout[i] = fma(a, b, c).
kernel void arith(global const half *a, global const half *b, global const half *c,
                  global half *out, global half *fmaout) {
    size_t i = get_global_id(0);
    half x = a[i], y = b[i];
    out[4 * i + 0] = x + y;
    out[4 * i + 1] = x - y;
    out[4 * i + 2] = x * y;
    out[4 * i + 3] = x / y;
    fmaout[i] = fma(x, y, c[i]);
}

// The same on half4 vectors (and a scalar operand broadcast).
kernel void arith4(global const half4 *a, global const half4 *b, global half4 *out) {
    size_t i = get_global_id(0);
    half4 x = a[i], y = b[i];
    out[3 * i + 0] = x + y;
    out[3 * i + 1] = x * y;
    out[3 * i + 2] = x / y[1];
}

// float -> half in every rounding mode: out[4i..] = rte, rtz, rtp, rtn.
kernel void from_float(global const float *a, global half *out) {
    size_t i = get_global_id(0);
    float x = a[i];
    out[4 * i + 0] = convert_half(x);
    out[4 * i + 1] = convert_half_rtz(x);
    out[4 * i + 2] = convert_half_rtp(x);
    out[4 * i + 3] = convert_half_rtn(x);
}

// int -> half in every rounding mode.
kernel void from_int(global const int *a, global half *out) {
    size_t i = get_global_id(0);
    int x = a[i];
    out[4 * i + 0] = convert_half_rte(x);
    out[4 * i + 1] = convert_half_rtz(x);
    out[4 * i + 2] = convert_half_rtp(x);
    out[4 * i + 3] = convert_half_rtn(x);
}

// half -> integers: short with each rounding mode, saturated; uchar saturated (rtz).
kernel void to_int(global const half *a, global short *out, global uchar *u8out, global float *fout) {
    size_t i = get_global_id(0);
    half x = a[i];
    out[4 * i + 0] = convert_short_sat_rte(x);
    out[4 * i + 1] = convert_short_sat(x);
    out[4 * i + 2] = convert_short_sat_rtp(x);
    out[4 * i + 3] = convert_short_sat_rtn(x);
    u8out[i] = convert_uchar_sat(x);
    fout[i] = (float)x;
}

// Unary built-ins: out[K*i + k].
#define UNARY_COUNT 14
kernel void unary(global const half *a, global half *out, global int *iout) {
    size_t i = get_global_id(0);
    half x = a[i];
    global half *o = out + UNARY_COUNT * i;
    o[0] = sqrt(x);
    o[1] = sin(x);
    o[2] = exp(x);
    o[3] = log(x);
    o[4] = rsqrt(x);
    o[5] = floor(x);
    o[6] = rint(x);
    o[7] = atan(x);
    o[8] = cbrt(x);
    half ip;
    o[9] = fract(x, &ip);
    o[10] = ip;
    o[11] = nextafter(x, (half)0.0);
    o[12] = nextafter(x, (half)INFINITY);
    int e;
    o[13] = frexp(x, &e);
    iout[2 * i] = e;
    iout[2 * i + 1] = ilogb(x);
}

// Binary built-ins, relationals and common functions: out[K*i + k]; rel[K*i + k].
#define BINARY_COUNT 8
#define REL_COUNT 9
kernel void binary(global const half *a, global const half *b, global half *out, global short *rel) {
    size_t i = get_global_id(0);
    half x = a[i], y = b[i];
    global half *o = out + BINARY_COUNT * i;
    o[0] = fmin(x, y);
    o[1] = fmax(x, y);
    o[2] = pow(x, y);
    o[3] = fmod(x, y);
    o[4] = copysign(x, y);
    o[5] = step(x, y);
    o[6] = fdim(x, y);
    o[7] = atan2(x, y);
    global short *r = rel + REL_COUNT * i;
    r[0] = isless(x, y);
    r[1] = isequal(x, y);
    r[2] = isnan(x);
    r[3] = isunordered(x, y);
    r[4] = signbit(x);
    r[5] = any(isgreater((half2)(x, y), (half2)(y, x)));
    // Classified in half's own range: its subnormals are not normal (though as floats they are).
    r[6] = isnormal(x);
    r[7] = isfinite(x);
    r[8] = isinf(x);
}

// Vector relationals (-1/0 in short lanes), select and geometric functions on half4.
kernel void vec4(global const half4 *a, global const half4 *b, global short4 *rel,
                 global half4 *sel, global half *geo, global half4 *norm) {
    size_t i = get_global_id(0);
    half4 x = a[i], y = b[i];
    rel[i] = isgreater(x, y);
    sel[i] = select(x, y, isless(x, y));
    geo[2 * i] = dot(x, y);
    geo[2 * i + 1] = length(x);
    norm[i] = normalize(x);
}

// More unary built-ins: out[K*i + k], in the order of the host's table.
#define UNARY2_COUNT 24
kernel void unary2(global const half *a, global half *out) {
    size_t i = get_global_id(0);
    half x = a[i];
    global half *o = out + UNARY2_COUNT * i;
    o[0] = cos(x);
    o[1] = tan(x);
    o[2] = asin(x);
    o[3] = acos(x);
    o[4] = sinh(x);
    o[5] = cosh(x);
    o[6] = tanh(x);
    o[7] = asinh(x);
    o[8] = acosh(x);
    o[9] = atanh(x);
    o[10] = exp2(x);
    o[11] = exp10(x);
    o[12] = expm1(x);
    o[13] = log2(x);
    o[14] = log10(x);
    o[15] = log1p(x);
    o[16] = sinpi(x);
    o[17] = cospi(x);
    o[18] = erf(x);
    o[19] = tgamma(x);
    o[20] = ceil(x);
    o[21] = trunc(x);
    o[22] = round(x);
    o[23] = logb(x);
}
