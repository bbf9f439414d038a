// vstore_half{n}{_rte,_rtz,_rtp,_rtn} and vstorea_half{n}{...} of float and double vectors
// (cts/tests/half.rs, half_stores_in_every_rounding_mode). Work-item i stores the n values
// in[n*i .. n*i+n] at element offset i of `out`. Half storage needs no cl_khr_fp16.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define STORE1(T, NAME, R)                                                                     \
    kernel void NAME(global const T *in, global half *out) {                                   \
        size_t i = get_global_id(0);                                                           \
        vstore_half##R(in[i], i, out);                                                         \
    }
#define STOREN(T, N, NAME, F)                                                                  \
    kernel void NAME(global const T *in, global half *out) {                                   \
        size_t i = get_global_id(0);                                                           \
        F(vload##N(i, in), i, out);                                                            \
    }
#define MODES(T, P)                                                                            \
    STORE1(T, P##1, )                                                                          \
    STORE1(T, P##1_rte, _rte)                                                                  \
    STORE1(T, P##1_rtz, _rtz)                                                                  \
    STORE1(T, P##1_rtp, _rtp)                                                                  \
    STORE1(T, P##1_rtn, _rtn)                                                                  \
    WIDTH(T, P, 2) WIDTH(T, P, 3) WIDTH(T, P, 4) WIDTH(T, P, 8) WIDTH(T, P, 16)
#define WIDTH(T, P, N)                                                                         \
    STOREN(T, N, P##N, vstore_half##N)                                                         \
    STOREN(T, N, P##N##_rte, vstore_half##N##_rte)                                             \
    STOREN(T, N, P##N##_rtz, vstore_half##N##_rtz)                                             \
    STOREN(T, N, P##N##_rtp, vstore_half##N##_rtp)                                             \
    STOREN(T, N, P##N##_rtn, vstore_half##N##_rtn)                                             \
    STOREN(T, N, P##a##N, vstorea_half##N)                                                     \
    STOREN(T, N, P##a##N##_rtz, vstorea_half##N##_rtz)                                         \
    STOREN(T, N, P##a##N##_rtp, vstorea_half##N##_rtp)

MODES(float, f)
MODES(double, d)

// A store under a branch that work-items take or skip one by one: only the work-items whose
// first value is positive store (the others leave `out` as it was).
kernel void f4_if_positive(global const float *in, global half *out) {
    size_t i = get_global_id(0);
    float4 v = vload4(i, in);
    if (v.x > 0.0f)
        vstore_half4_rtp(v, i, out);
}

// Halves loaded and stored again, in each rounding mode, directly and through private
// memory as the Khronos CTS's private-store kernels do: every half comes back (a NaN as a
// NaN).
#define COPY(R)                                                                                \
    kernel void copy##R(global const half *in, global half *out) {                            \
        size_t i = get_global_id(0);                                                           \
        vstore_half##R(vload_half(i, in), i, out);                                             \
    }                                                                                          \
    kernel void copy_private##R(global const half *in, global half *out) {                    \
        ushort data[4];                                                                        \
        size_t i = get_global_id(0);                                                           \
        vstore_half4##R(vload_half4(i, in), 0, (half *)data);                                  \
        for (int k = 0; k < 4; k++)                                                            \
            vstore_half##R(vload_half(k, (half *)data), 0, &out[4 * i + k]);                   \
    }
COPY()
COPY(_rtz)
COPY(_rtp)
COPY(_rtn)
