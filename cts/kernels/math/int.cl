// Every OpenCL.std integer function for each integer type, scalar and 4-vector forms:
// o[K*i + j] = f_j(a[i], b[i], c[i]).
kernel void int_char(global const char* A, global const char* B, global const char* C, global char* o, global char* ov) {
  size_t g = get_global_id(0);
  char4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { char a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (char)abs(a);
    o[16*i+1] = (char)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { char4 r = as_char4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { char4 r = as_char4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { char4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { char4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { char4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { char4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { char4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { char4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { char4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { char4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { char4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { char4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { char4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { char4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { char4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { char4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_uchar(global const uchar* A, global const uchar* B, global const uchar* C, global uchar* o, global uchar* ov) {
  size_t g = get_global_id(0);
  uchar4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { uchar a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (uchar)abs(a);
    o[16*i+1] = (uchar)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { uchar4 r = as_uchar4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { uchar4 r = as_uchar4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { uchar4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { uchar4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { uchar4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { uchar4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { uchar4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { uchar4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { uchar4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { uchar4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { uchar4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { uchar4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { uchar4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { uchar4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { uchar4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { uchar4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_short(global const short* A, global const short* B, global const short* C, global short* o, global short* ov) {
  size_t g = get_global_id(0);
  short4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { short a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (short)abs(a);
    o[16*i+1] = (short)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { short4 r = as_short4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { short4 r = as_short4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { short4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { short4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { short4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { short4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { short4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { short4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { short4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { short4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { short4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { short4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { short4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { short4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { short4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { short4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_ushort(global const ushort* A, global const ushort* B, global const ushort* C, global ushort* o, global ushort* ov) {
  size_t g = get_global_id(0);
  ushort4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { ushort a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (ushort)abs(a);
    o[16*i+1] = (ushort)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { ushort4 r = as_ushort4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { ushort4 r = as_ushort4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { ushort4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { ushort4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { ushort4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { ushort4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { ushort4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { ushort4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { ushort4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { ushort4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { ushort4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { ushort4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { ushort4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { ushort4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { ushort4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { ushort4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_int(global const int* A, global const int* B, global const int* C, global int* o, global int* ov) {
  size_t g = get_global_id(0);
  int4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { int a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (int)abs(a);
    o[16*i+1] = (int)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { int4 r = as_int4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { int4 r = as_int4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { int4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { int4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { int4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { int4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { int4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { int4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { int4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { int4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { int4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { int4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { int4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { int4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { int4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { int4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_uint(global const uint* A, global const uint* B, global const uint* C, global uint* o, global uint* ov) {
  size_t g = get_global_id(0);
  uint4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { uint a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (uint)abs(a);
    o[16*i+1] = (uint)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { uint4 r = as_uint4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { uint4 r = as_uint4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { uint4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { uint4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { uint4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { uint4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { uint4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { uint4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { uint4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { uint4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { uint4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { uint4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { uint4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { uint4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { uint4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { uint4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_long(global const long* A, global const long* B, global const long* C, global long* o, global long* ov) {
  size_t g = get_global_id(0);
  long4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { long a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (long)abs(a);
    o[16*i+1] = (long)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { long4 r = as_long4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { long4 r = as_long4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { long4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { long4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { long4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { long4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { long4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { long4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { long4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { long4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { long4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { long4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { long4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { long4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { long4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { long4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void int_ulong(global const ulong* A, global const ulong* B, global const ulong* C, global ulong* o, global ulong* ov) {
  size_t g = get_global_id(0);
  ulong4 a4 = vload4(g, A), b4 = vload4(g, B), c4 = vload4(g, C);
  for (int k = 0; k < 4; k++) { ulong a = A[4*g+k], b = B[4*g+k], c = C[4*g+k]; size_t i = 4*g+k;
    o[16*i+0] = (ulong)abs(a);
    o[16*i+1] = (ulong)abs_diff(a, b);
    o[16*i+2] = add_sat(a, b);
    o[16*i+3] = sub_sat(a, b);
    o[16*i+4] = hadd(a, b);
    o[16*i+5] = rhadd(a, b);
    o[16*i+6] = clamp(a, min(b, c), max(b, c));
    o[16*i+7] = clz(a);
    o[16*i+8] = ctz(a);
    o[16*i+9] = popcount(a);
    o[16*i+10] = mad_hi(a, b, c);
    o[16*i+11] = mad_sat(a, b, c);
    o[16*i+12] = max(a, b);
    o[16*i+13] = min(a, b);
    o[16*i+14] = mul_hi(a, b);
    o[16*i+15] = rotate(a, b);
  }
    { ulong4 r = as_ulong4(abs(a4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+0] = r[k]; }
  { ulong4 r = as_ulong4(abs_diff(a4, b4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+1] = r[k]; }
  { ulong4 r = add_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+2] = r[k]; }
  { ulong4 r = sub_sat(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+3] = r[k]; }
  { ulong4 r = hadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+4] = r[k]; }
  { ulong4 r = rhadd(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+5] = r[k]; }
  { ulong4 r = clamp(a4, min(b4, c4), max(b4, c4)); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+6] = r[k]; }
  { ulong4 r = clz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+7] = r[k]; }
  { ulong4 r = ctz(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+8] = r[k]; }
  { ulong4 r = popcount(a4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+9] = r[k]; }
  { ulong4 r = mad_hi(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+10] = r[k]; }
  { ulong4 r = mad_sat(a4, b4, c4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+11] = r[k]; }
  { ulong4 r = max(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+12] = r[k]; }
  { ulong4 r = min(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+13] = r[k]; }
  { ulong4 r = mul_hi(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+14] = r[k]; }
  { ulong4 r = rotate(a4, b4); for (int k = 0; k < 4; k++) ov[16*(4*g+k)+15] = r[k]; }
}
kernel void upsample_char(global const char* A, global const uchar* B, global short* o, global short* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) o[4*g+k] = upsample(A[4*g+k], B[4*g+k]);
  vstore4(upsample(vload4(g, A), vload4(g, B)), g, ov); }
kernel void upsample_uchar(global const uchar* A, global const uchar* B, global ushort* o, global ushort* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) o[4*g+k] = upsample(A[4*g+k], B[4*g+k]);
  vstore4(upsample(vload4(g, A), vload4(g, B)), g, ov); }
kernel void upsample_short(global const short* A, global const ushort* B, global int* o, global int* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) o[4*g+k] = upsample(A[4*g+k], B[4*g+k]);
  vstore4(upsample(vload4(g, A), vload4(g, B)), g, ov); }
kernel void upsample_ushort(global const ushort* A, global const ushort* B, global uint* o, global uint* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) o[4*g+k] = upsample(A[4*g+k], B[4*g+k]);
  vstore4(upsample(vload4(g, A), vload4(g, B)), g, ov); }
kernel void upsample_int(global const int* A, global const uint* B, global long* o, global long* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) o[4*g+k] = upsample(A[4*g+k], B[4*g+k]);
  vstore4(upsample(vload4(g, A), vload4(g, B)), g, ov); }
kernel void upsample_uint(global const uint* A, global const uint* B, global ulong* o, global ulong* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) o[4*g+k] = upsample(A[4*g+k], B[4*g+k]);
  vstore4(upsample(vload4(g, A), vload4(g, B)), g, ov); }
kernel void mul24_int(global const int* A, global const int* B, global const int* C, global int* o, global int* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) { o[8*g+2*k] = mul24(A[4*g+k], B[4*g+k]); o[8*g+2*k+1] = mad24(A[4*g+k], B[4*g+k], C[4*g+k]); }
  int4 a = vload4(g, A), b = vload4(g, B), c = vload4(g, C); vstore4(mul24(a, b), 2*g, ov); vstore4(mad24(a, b, c), 2*g+1, ov); }
kernel void mul24_uint(global const uint* A, global const uint* B, global const uint* C, global uint* o, global uint* ov) {
  size_t g = get_global_id(0);
  for (int k = 0; k < 4; k++) { o[8*g+2*k] = mul24(A[4*g+k], B[4*g+k]); o[8*g+2*k+1] = mad24(A[4*g+k], B[4*g+k], C[4*g+k]); }
  uint4 a = vload4(g, A), b = vload4(g, B), c = vload4(g, C); vstore4(mul24(a, b), 2*g, ov); vstore4(mad24(a, b, c), 2*g+1, ov); }
kernel void shuffles(global const uint* A, global const uint* M, global uint* o) {
  size_t g = get_global_id(0); uint16 x = vload16(g, A), y = vload16(g + 1, A); uint16 m = vload16(g, M);
  vstore16(shuffle(x, m), 6*g, o); vstore16(shuffle2(x, y, m), 6*g+1, o);
  vstore4(shuffle(x.s0123, m.s4567), 24*g+8, o); vstore8(shuffle2(x.s01234567, y.s89abcdef, m.s01234567), 12*g+5, o);
  vstore2(shuffle(x.s89, m.s23), 48*g+24, o); vstore4(shuffle2(x.s12, y.s34, m.s89ab), 24*g+13, o);
  vstore8(shuffle(x, m.s13579bdf), 12*g+8, o); vstore16(shuffle2(x.s0123, y.s4567, m), 6*g+5, o);
}
kernel void shuffles_char(global const char* A, global const uchar* M, global char* o) {
  size_t g = get_global_id(0); char8 x = vload8(g, A); char8 y = vload8(g + 1, A); uchar8 m = vload8(g, M);
  vstore8(shuffle(x, m), 2*g, o); vstore8(shuffle2(x, y, m), 2*g+1, o); }
