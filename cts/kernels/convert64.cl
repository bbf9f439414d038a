// Conversions involving double (Float64), with rounding modes and saturation (OpConvertFToS/FToU/SToF/UToF, OpFConvert,
// OpSConvert/OpUConvert, OpSatConvert*, with FPRoundingMode and SaturatedConversion
// decorations), half storage (vload_half/vstore_half), and bitcasts, for every vector width.
// Kernel `NAME_N` converts a[i] (a vector of N) into o[i]. Host references in
// tests/kernel_convert.rs.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
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

CONV_ALL(d2l_sat_rte, double, long, convert_long, _sat_rte)
CONV_ALL(d2ul_sat, double, ulong, convert_ulong, _sat)
CONV_ALL(ul2d_rte, ulong, double, convert_double, )
CONV_ALL(f2ul_sat, float, ulong, convert_ulong, _sat)
CONV_ALL(ul2f_rte, ulong, float, convert_float, )
CONV_ALL(l2d_rtp, long, double, convert_double, _rtp)
CONV_ALL(d2f_rte, double, float, convert_float, )
CONV_ALL(d2f_rtz, double, float, convert_float, _rtz)
CONV_ALL(d2f_rtp, double, float, convert_float, _rtp)
CONV_ALL(d2f_rtn, double, float, convert_float, _rtn)
CONV_ALL(f2d, float, double, convert_double, )
CONV_ALL(l2d_bits, long, double, as_double, )
