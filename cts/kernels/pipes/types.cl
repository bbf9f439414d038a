// Producers and consumers of pipes over every scalar and vector size (cts/tests/pipes.rs):
// plain read_pipe/write_pipe, and reservations of two packets per work-item. Each kernel
// records the status the pipe function returned (0 success, negative failure) per work-item.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define KERNELS(T)                                                                            \
    kernel void write_plain_##T(global const T *src, write_only pipe T p, global int *st) {   \
        size_t g = get_global_id(0);                                                          \
        st[g] = write_pipe(p, &src[g]);                                                       \
    }                                                                                         \
    kernel void read_plain_##T(read_only pipe T p, global T *dst, global int *st) {           \
        size_t g = get_global_id(0);                                                          \
        st[g] = read_pipe(p, &dst[g]);                                                        \
    }                                                                                         \
    kernel void write_res_##T(global const T *src, write_only pipe T p, global int *st) {     \
        size_t g = get_global_id(0);                                                          \
        reserve_id_t r = reserve_write_pipe(p, 2);                                            \
        if (is_valid_reserve_id(r)) {                                                         \
            int a = write_pipe(p, r, 0, &src[2 * g]);                                         \
            int b = write_pipe(p, r, 1, &src[2 * g + 1]);                                     \
            commit_write_pipe(p, r);                                                          \
            st[g] = a | b;                                                                    \
        } else {                                                                              \
            st[g] = -1;                                                                       \
        }                                                                                     \
    }                                                                                         \
    kernel void read_res_##T(read_only pipe T p, global T *dst, global int *st) {             \
        size_t g = get_global_id(0);                                                          \
        reserve_id_t r = reserve_read_pipe(p, 2);                                             \
        if (is_valid_reserve_id(r)) {                                                         \
            int a = read_pipe(p, r, 1, &dst[2 * g + 1]);                                      \
            int b = read_pipe(p, r, 0, &dst[2 * g]);                                          \
            commit_read_pipe(p, r);                                                           \
            st[g] = a | b;                                                                    \
        } else {                                                                              \
            st[g] = -1;                                                                       \
        }                                                                                     \
    }

#define SIZES(B) KERNELS(B) KERNELS(B##2) KERNELS(B##3) KERNELS(B##4) KERNELS(B##8) KERNELS(B##16)

SIZES(char)
SIZES(uchar)
SIZES(short)
SIZES(int)
SIZES(uint)
SIZES(long)
SIZES(float)
SIZES(double)
SIZES(half)

typedef struct {
    char a;
    int b;
    short c[3];
} Record;
KERNELS(Record)
