// OpenCL C 6.3.5: a vector of 16 bytes or more is aligned to its size, also as a member of a
// private struct or array; the address of every such member is a multiple of that size.
typedef struct {
    ushort pre[12];
    ushort16 v;     // 32 bytes, aligned to 32
    ushort3 post;
} with_ushort16;

typedef struct {
    char c;
    double4 d;      // 32 bytes, aligned to 32
} with_double4;

typedef struct {
    int i;
    long8 l;        // 64 bytes, aligned to 64
} with_long8;

kernel void private_member_addresses(global ulong *out, int seed) {
    with_ushort16 a;
    with_double4 b;
    with_long8 c[2];
    size_t i = get_global_id(0);
    a.v = (ushort16)(seed);
    b.d = (double4)(seed);
    c[1].l = (long8)(seed);
    out[4 * i + 0] = (ulong)(&a.v) % 32;
    out[4 * i + 1] = (ulong)(&b.d) % 32;
    out[4 * i + 2] = (ulong)(&c[1].l) % 64;
    // The values stored there read back, so the members are real memory.
    out[4 * i + 3] = (ulong)a.v.sf + (ulong)b.d.w + (ulong)c[1].l.s7;
}
