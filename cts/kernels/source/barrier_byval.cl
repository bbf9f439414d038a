// A struct passed by value to a kernel with a barrier: every work-item keeps its private copy
// of the struct across the barrier while the group exchanges values through local memory.
typedef struct {
    int a;
    int b[7];
} S;

kernel void byval_barrier(S s, global int *out, local int *tmp) {
    int l = get_local_id(0);
    tmp[l] = s.a + l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(l + 1) % get_local_size(0)] * 100 + s.b[l % 7];
}
