// Integer arithmetic, bitwise, shift and compare-select for every integer type and vector
// width. Compiled to int_arith.spvasm (see README in this folder). Each kernel reads a[i], b[i]
// and writes 14 results o[i*14 + k], in the order of the host reference in
// tests/kernel_int.rs.
#define OPS(NAME, VT)                                                              \
    kernel void NAME(global VT *a, global VT *b, global VT *o) {                   \
        size_t i = get_global_id(0);                                               \
        VT x = a[i], y = b[i];                                                     \
        global VT *r = o + i * 14;                                                 \
        r[0] = x + y;                                                              \
        r[1] = x - y;                                                              \
        r[2] = x * y;                                                              \
        r[3] = x / y;                                                              \
        r[4] = x % y;                                                              \
        r[5] = x & y;                                                              \
        r[6] = x | y;                                                              \
        r[7] = x ^ y;                                                              \
        r[8] = x << y;                                                             \
        r[9] = x >> y;                                                             \
        r[10] = ~x;                                                                \
        r[11] = -x;                                                                \
        r[12] = x < y ? x : y;                                                     \
        r[13] = x >= y ? y : x + y;                                                \
    }
#define ALLW(T)             \
    OPS(ops_##T##1, T)      \
    OPS(ops_##T##2, T##2)   \
    OPS(ops_##T##3, T##3)   \
    OPS(ops_##T##4, T##4)   \
    OPS(ops_##T##8, T##8)   \
    OPS(ops_##T##16, T##16)
ALLW(char)
ALLW(uchar)
ALLW(short)
ALLW(ushort)
ALLW(int)
ALLW(uint)
ALLW(long)
ALLW(ulong)
