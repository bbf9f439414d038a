// Kernel argument info: names, type names (typedefs kept, unsigned spelled uint), address,
// access and type qualifiers.
typedef struct {
    int a;
    float b;
} pair_t;
kernel void args(global const int *restrict in, global volatile float *vol, constant float4 *table,
                 local uint *scratch, const int n, pair_t p, global int *const fixed_ptr,
                 unsigned char c, global const volatile ulong *cv) {
    size_t i = get_global_id(0);
    scratch[0] = (uint)in[i];
    vol[i] = table[0].x + (float)n + p.b + (float)c + (float)cv[0];
    fixed_ptr[i] = p.a;
}
