// Every OpenCL.std math/common/geometric/relational function for float: each kernel computes
// the scalar form on 4 elements per work-item and the float4 form on the same elements.
typedef float T;
typedef float4 T4;
typedef float3 T3;
typedef float2 T2;
#define U(F) kernel void u_##F(global const T* a, global T* o, global T* ov) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) o[4*g+k] = F(a[4*g+k]); \
  vstore4(F(vload4(g, a)), g, ov); }
#define B(F) kernel void b_##F(global const T* a, global const T* b, global T* o, global T* ov) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) o[4*g+k] = F(a[4*g+k], b[4*g+k]); \
  vstore4(F(vload4(g, a), vload4(g, b)), g, ov); }
#define TR(F) kernel void t_##F(global const T* a, global const T* b, global const T* c, global T* o, global T* ov) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) o[4*g+k] = F(a[4*g+k], b[4*g+k], c[4*g+k]); \
  vstore4(F(vload4(g, a), vload4(g, b), vload4(g, c)), g, ov); }
#define BI(F) kernel void bi_##F(global const T* a, global const int* b, global T* o, global T* ov) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) o[4*g+k] = F(a[4*g+k], b[4*g+k]); \
  vstore4(F(vload4(g, a), vload4(g, b)), g, ov); }
#define PF(F) kernel void pf_##F(global const T* a, global T* o, global T* ov, global T* p, global T* pv) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) { T t; o[4*g+k] = F(a[4*g+k], &t); p[4*g+k] = t; } \
  T4 t4; vstore4(F(vload4(g, a), &t4), g, ov); vstore4(t4, g, pv); }
#define PI(F) kernel void pi_##F(global const T* a, global T* o, global T* ov, global int* p, global int* pv) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) { int t; o[4*g+k] = F(a[4*g+k], &t); p[4*g+k] = t; } \
  int4 t4; vstore4(F(vload4(g, a), &t4), g, ov); vstore4(t4, g, pv); }
#define IR(F) kernel void ir_##F(global const T* a, global int* o, global int* ov) { \
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) o[4*g+k] = F(a[4*g+k]); \
  vstore4(F(vload4(g, a)), g, ov); }
U(acos)
U(acosh)
U(acospi)
U(asin)
U(asinh)
U(asinpi)
U(atan)
U(atanh)
U(atanpi)
U(cbrt)
U(ceil)
U(cos)
U(cosh)
U(cospi)
U(erfc)
U(erf)
U(exp)
U(exp2)
U(exp10)
U(expm1)
U(fabs)
U(floor)
U(lgamma)
U(log)
U(log2)
U(log10)
U(log1p)
U(logb)
U(rint)
U(round)
U(rsqrt)
U(sin)
U(sinh)
U(sinpi)
U(sqrt)
U(tan)
U(tanh)
U(tanpi)
U(tgamma)
U(trunc)
U(degrees)
U(radians)
U(sign)
U(half_cos)
U(half_exp)
U(half_exp2)
U(half_exp10)
U(half_log)
U(half_log2)
U(half_log10)
U(half_recip)
U(half_rsqrt)
U(half_sin)
U(half_sqrt)
U(half_tan)
U(native_cos)
U(native_exp)
U(native_exp2)
U(native_exp10)
U(native_log)
U(native_log2)
U(native_log10)
U(native_recip)
U(native_rsqrt)
U(native_sin)
U(native_sqrt)
U(native_tan)
B(atan2)
B(atan2pi)
B(copysign)
B(fdim)
B(fmax)
B(fmin)
B(fmod)
B(hypot)
B(maxmag)
B(minmag)
B(nextafter)
B(pow)
B(powr)
B(remainder)
B(step)
B(half_divide)
B(half_powr)
B(native_divide)
B(native_powr)
TR(fma)
TR(mad)
TR(mix)
TR(smoothstep)
TR(clamp)
BI(ldexp)
BI(pown)
BI(rootn)
PF(fract)
PF(modf)
PF(sincos)
PI(frexp)
PI(lgamma_r)
IR(ilogb)
kernel void remquo_k(global const T* a, global const T* b, global T* o, global T* ov, global int* p, global int* pv) {
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) { int t; o[4*g+k] = remquo(a[4*g+k], b[4*g+k], &t); p[4*g+k] = t; }
  int4 t4; vstore4(remquo(vload4(g, a), vload4(g, b), &t4), g, ov); vstore4(t4, g, pv); }
kernel void nan_k(global const uint* a, global T* o, global T* ov) {
  size_t g = get_global_id(0); for (int k = 0; k < 4; k++) o[4*g+k] = nan(a[4*g+k]);
  vstore4(nan(vload4(g, a)), g, ov); }
kernel void scalar_forms(global const T* a, global const T* b, global const T* c, global T* o) {
  size_t g = get_global_id(0); T4 x = vload4(g, a); T s = b[4*g], t = c[4*g];
  vstore4(fmin(x, s), 6*g, o); vstore4(fmax(x, s), 6*g+1, o); vstore4(clamp(x, fmin(s, t), fmax(s, t)), 6*g+2, o);
  vstore4(mix(x, vload4(g, b), t), 6*g+3, o); vstore4(step(s, x), 6*g+4, o); vstore4(smoothstep(fmin(s, t), fmax(s, t), x), 6*g+5, o); }
kernel void geo1(global const T* a, global const T* b, global T* dotv, global T* len, global T* dist, global T* nrm, global T* flen, global T* fdist, global T* fnrm) {
  size_t g = get_global_id(0);
  dotv[g] = dot(a[g], b[g]); len[g] = length(a[g]); dist[g] = distance(a[g], b[g]);
  nrm[g] = normalize(a[g]);
  flen[g] = fast_length(a[g]); fdist[g] = fast_distance(a[g], b[g]);
  fnrm[g] = fast_normalize(a[g]);
}
kernel void geo2(global const T* a, global const T* b, global T* dotv, global T* len, global T* dist, global T* nrm, global T* flen, global T* fdist, global T* fnrm) {
  size_t g = get_global_id(0);
  dotv[g] = dot(vload2(g, a), vload2(g, b)); len[g] = length(vload2(g, a)); dist[g] = distance(vload2(g, a), vload2(g, b));
  vstore2(normalize(vload2(g, a)), g, nrm);
  flen[g] = fast_length(vload2(g, a)); fdist[g] = fast_distance(vload2(g, a), vload2(g, b));
  vstore2(fast_normalize(vload2(g, a)), g, fnrm);
}
kernel void geo3(global const T* a, global const T* b, global T* dotv, global T* len, global T* dist, global T* nrm, global T* flen, global T* fdist, global T* fnrm) {
  size_t g = get_global_id(0);
  dotv[g] = dot(vload3(g, a), vload3(g, b)); len[g] = length(vload3(g, a)); dist[g] = distance(vload3(g, a), vload3(g, b));
  vstore3(normalize(vload3(g, a)), g, nrm);
  flen[g] = fast_length(vload3(g, a)); fdist[g] = fast_distance(vload3(g, a), vload3(g, b));
  vstore3(fast_normalize(vload3(g, a)), g, fnrm);
}
kernel void geo4(global const T* a, global const T* b, global T* dotv, global T* len, global T* dist, global T* nrm, global T* flen, global T* fdist, global T* fnrm) {
  size_t g = get_global_id(0);
  dotv[g] = dot(vload4(g, a), vload4(g, b)); len[g] = length(vload4(g, a)); dist[g] = distance(vload4(g, a), vload4(g, b));
  vstore4(normalize(vload4(g, a)), g, nrm);
  flen[g] = fast_length(vload4(g, a)); fdist[g] = fast_distance(vload4(g, a), vload4(g, b));
  vstore4(fast_normalize(vload4(g, a)), g, fnrm);
}
kernel void cross3(global const T* a, global const T* b, global T* o) { size_t g = get_global_id(0); vstore3(cross(vload3(g, a), vload3(g, b)), g, o); }
kernel void cross4(global const T* a, global const T* b, global T* o) { size_t g = get_global_id(0); vstore4(cross(vload4(g, a), vload4(g, b)), g, o); }
kernel void relational(global const T* a, global const T* b, global int* o, global int* ov) {
  size_t g = get_global_id(0); T4 x = vload4(g, a), y = vload4(g, b);
  for (int k = 0; k < 4; k++) o[14*4*g + 0*4 + k] = isequal(a[4*g+k], b[4*g+k]); vstore4(isequal(x, y), 14*g + 0, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 1*4 + k] = isnotequal(a[4*g+k], b[4*g+k]); vstore4(isnotequal(x, y), 14*g + 1, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 2*4 + k] = isgreater(a[4*g+k], b[4*g+k]); vstore4(isgreater(x, y), 14*g + 2, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 3*4 + k] = isgreaterequal(a[4*g+k], b[4*g+k]); vstore4(isgreaterequal(x, y), 14*g + 3, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 4*4 + k] = isless(a[4*g+k], b[4*g+k]); vstore4(isless(x, y), 14*g + 4, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 5*4 + k] = islessequal(a[4*g+k], b[4*g+k]); vstore4(islessequal(x, y), 14*g + 5, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 6*4 + k] = islessgreater(a[4*g+k], b[4*g+k]); vstore4(islessgreater(x, y), 14*g + 6, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 7*4 + k] = isordered(a[4*g+k], b[4*g+k]); vstore4(isordered(x, y), 14*g + 7, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 8*4 + k] = isunordered(a[4*g+k], b[4*g+k]); vstore4(isunordered(x, y), 14*g + 8, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 9*4 + k] = isfinite(a[4*g+k]); vstore4(isfinite(x), 14*g + 9, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 10*4 + k] = isinf(a[4*g+k]); vstore4(isinf(x), 14*g + 10, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 11*4 + k] = isnan(a[4*g+k]); vstore4(isnan(x), 14*g + 11, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 12*4 + k] = isnormal(a[4*g+k]); vstore4(isnormal(x), 14*g + 12, ov);
  for (int k = 0; k < 4; k++) o[14*4*g + 13*4 + k] = signbit(a[4*g+k]); vstore4(signbit(x), 14*g + 13, ov);
}
kernel void selects(global const T* a, global const T* b, global const int* c, global T* o) {
  size_t g = get_global_id(0); T4 x = vload4(g, a), y = vload4(g, b); int4 m = vload4(g, c);
  vstore4(select(x, y, m), 4*g, o); vstore4(bitselect(x, y, as_float4(m)), 4*g+1, o);
  for (int k = 0; k < 4; k++) o[16*g+8+k] = select(a[4*g+k], b[4*g+k], (int)(c[4*g+k] & 1));
  vstore4((T4)(any(m), all(m), any(m.xy), all(m.xy)), 4*g+3, o); }
