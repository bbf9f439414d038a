// Conversions with rounding modes and saturation (OpConvertFToS/FToU/SToF/UToF, OpFConvert,
// OpSConvert/OpUConvert, OpSatConvert*, with FPRoundingMode and SaturatedConversion
// decorations), half storage (vload_half/vstore_half), and bitcasts, for every vector width.
// Kernel `NAME_N` converts a[i] (a vector of N) into o[i]. Host references in
// tests/kernel_convert.rs.
// cts-source-options: -cl-std=CL3.0 (PoCL 3.1's vload_half fails under CL2.0)
#define CONV1(NAME, S, D, F) \
    kernel void NAME##_1(global S *a, global D *o) { size_t i = get_global_id(0); o[i] = F(a[i]); }
#define CONVN(NAME, S, D, F, N) \
    kernel void NAME##_##N(global S##N *a, global D##N *o) { size_t i = get_global_id(0); o[i] = F##N(a[i]); }
#define CONV_ALL(NAME, S, D, F, FS)                                                          \
    CONV1(NAME, S, D, F##FS)                                                                 \
    kernel void NAME##_2(global S##2 *a, global D##2 *o) { size_t i = get_global_id(0); o[i] = F##2##FS(a[i]); } \
    kernel void NAME##_3(global S##3 *a, global D##3 *o) { size_t i = get_global_id(0); o[i] = F##3##FS(a[i]); } \
    kernel void NAME##_4(global S##4 *a, global D##4 *o) { size_t i = get_global_id(0); o[i] = F##4##FS(a[i]); } \
    kernel void NAME##_8(global S##8 *a, global D##8 *o) { size_t i = get_global_id(0); o[i] = F##8##FS(a[i]); } \
    kernel void NAME##_16(global S##16 *a, global D##16 *o) { size_t i = get_global_id(0); o[i] = F##16##FS(a[i]); }

// float -> integer
CONV_ALL(f2i_rtz, float, int, convert_int, )
CONV_ALL(f2i_sat, float, int, convert_int, _sat)
CONV_ALL(f2i_sat_rte, float, int, convert_int, _sat_rte)
CONV_ALL(f2i_sat_rtp, float, int, convert_int, _sat_rtp)
CONV_ALL(f2i_sat_rtn, float, int, convert_int, _sat_rtn)
CONV_ALL(f2uc_sat, float, uchar, convert_uchar, _sat)
CONV_ALL(f2s_sat_rte, float, short, convert_short, _sat_rte)
CONV_ALL(f2u_sat, float, uint, convert_uint, _sat)
// integer -> float
CONV_ALL(i2f_rte, int, float, convert_float, )
CONV_ALL(i2f_rtz, int, float, convert_float, _rtz)
CONV_ALL(i2f_rtp, int, float, convert_float, _rtp)
CONV_ALL(i2f_rtn, int, float, convert_float, _rtn)
CONV_ALL(u2f_rte, uint, float, convert_float, )
CONV_ALL(u2f_rtz, uint, float, convert_float, _rtz)
CONV_ALL(l2f_rte, long, float, convert_float, )
CONV_ALL(l2f_rtz, long, float, convert_float, _rtz)
// float <-> double
// integer <-> integer
CONV_ALL(i2c, int, char, convert_char, )
CONV_ALL(i2uc_sat, int, uchar, convert_uchar, _sat)
CONV_ALL(i2s_sat, int, short, convert_short, _sat)
CONV_ALL(l2i_sat, long, int, convert_int, _sat)
CONV_ALL(u2i_sat, uint, int, convert_int, _sat)
CONV_ALL(i2u_sat, int, uint, convert_uint, _sat)
CONV_ALL(i2ul, int, ulong, convert_ulong, )
CONV_ALL(uc2l, uchar, long, convert_long, )
CONV_ALL(c2i, char, int, convert_int, )
CONV_ALL(ul2uc_sat, ulong, uchar, convert_uchar, _sat)
// bitcasts
CONV_ALL(f2i_bits, float, int, as_int, )

// half storage: o[i] = vload_half(i, a) as float; h[i] = vstore_half{,_rtz}(b[i]).
kernel void half_load(global const half *a, global float *o) {
    size_t i = get_global_id(0);
    o[i] = vload_half(i, a);
}
kernel void half_store_rte(global const float *b, global half *h) {
    size_t i = get_global_id(0);
    vstore_half(b[i], i, h);
}
kernel void half_store_rtz(global const float *b, global half *h) {
    size_t i = get_global_id(0);
    vstore_half_rtz(b[i], i, h);
}
kernel void half_load4(global const half *a, global float4 *o) {
    size_t i = get_global_id(0);
    o[i] = vload_half4(i, a);
}
