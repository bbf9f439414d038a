// Every convert_<dst><_sat><_rte|_rtz|_rtp|_rtn> between the ten scalar types, one kernel
// each (c_<src>_<dst><sat><round>), and the same conversions at width WIDTH through
// vload/vstore (v_<src>_<dst><sat><round>) when WIDTH is defined (tests/cts_audit_convert.rs).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define K(S, D, SAT, R)                                                                   \
    kernel void c_##S##_##D##SAT##R(global const S *in, global D *out) {                  \
        size_t i = get_global_id(0);                                                      \
        out[i] = convert_##D##SAT##R(in[i]);                                              \
    }

#ifdef WIDTH
#define XCAT3(a, b, c) a##b##c
#define CAT3(a, b, c) XCAT3(a, b, c)
#define KV(S, D, SAT, R)                                                                  \
    kernel void v_##S##_##D##SAT##R(global const S *in, global D *out) {                  \
        size_t i = get_global_id(0);                                                      \
        CAT3(vstore, WIDTH, )                                                             \
        (CAT3(convert_, D, CAT3(WIDTH, SAT, R))(CAT3(vload, WIDTH, )(i, in)), i, out);    \
    }
#else
#define KV(S, D, SAT, R)
#endif

#define KK(S, D, SAT, R) K(S, D, SAT, R) KV(S, D, SAT, R)
#define ROUNDS(S, D, SAT) KK(S, D, SAT, ) KK(S, D, SAT, _rte) KK(S, D, SAT, _rtz) KK(S, D, SAT, _rtp) KK(S, D, SAT, _rtn)
#define TO_INT(S, D) ROUNDS(S, D, ) ROUNDS(S, D, _sat)
#define TO_ALL(S)                                                                         \
    TO_INT(S, uchar) TO_INT(S, char) TO_INT(S, ushort) TO_INT(S, short) TO_INT(S, uint)   \
    TO_INT(S, int) TO_INT(S, ulong) TO_INT(S, long) ROUNDS(S, float, ) ROUNDS(S, double, )

TO_ALL(uchar)
TO_ALL(char)
TO_ALL(ushort)
TO_ALL(short)
TO_ALL(uint)
TO_ALL(int)
TO_ALL(ulong)
TO_ALL(long)
TO_ALL(float)
TO_ALL(double)
