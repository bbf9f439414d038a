// C = A * B for square n x n row-major matrices (n a multiple of 16), tiled 16x16 in local
// memory: each work-group loads a tile of A and of B, synchronises, accumulates, synchronises.
#define TS 16
__kernel void sgemm(uint n, __global const float *A, __global const float *B, __global float *C) {
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    uint col = get_global_id(0);
    uint row = get_global_id(1);
    uint lc = get_local_id(0);
    uint lr = get_local_id(1);
    float acc = 0.0f;
    for (uint t = 0; t < n / TS; t++) {
        As[lr][lc] = A[row * n + t * TS + lc];
        Bs[lr][lc] = B[(t * TS + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TS; k++)
            acc += As[lr][k] * Bs[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
