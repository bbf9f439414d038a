// SGEMM C = A * B for square n x n row-major matrices, register-tiled with float vectors
// (issue 15, item 4). Tuning parameters, as -D build options:
//   VW    vector width, 4 or 8: each work-item computes TM rows x VW columns of C, one floatVW
//         accumulator per row;
//   TM    rows of C per work-item (its register tile is TM x VW);
//   WG    the work-group is WG x WG work-items, so its tile of C is (WG*TM) x (WG*VW);
//   LOCAL 1: the work-group stages KT-deep slices of A (transposed) and B in local memory
//         between barriers; 0: every work-item reads A and B from global memory (the caches
//         share them).
// n must be a multiple of WG*TM, WG*VW and KT. Global size (n / VW, n / TM), local (WG, WG).
#ifndef VW
#define VW 4
#endif
#ifndef TM
#define TM 4
#endif
#ifndef WG
#define WG 8
#endif
#ifndef LOCAL
#define LOCAL 1
#endif
#define KT 16

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define floatV XCAT(float, VW)
#define vloadV XCAT(vload, VW)
#define vstoreV XCAT(vstore, VW)
#define BM (WG * TM)
#define BN (WG * VW)

__kernel __attribute__((reqd_work_group_size(WG, WG, 1)))
void gemm(uint n, __global const float *A, __global const float *B, __global float *C) {
    uint lx = get_local_id(0);
    uint ly = get_local_id(1);
    uint col = get_group_id(0) * BN + lx * VW;
    uint row = get_group_id(1) * BM + ly * TM;
    floatV acc[TM];
#pragma unroll
    for (uint i = 0; i < TM; i++)
        acc[i] = (floatV)(0.0f);
#if LOCAL
    __local float As[KT][BM];
    __local floatV Bs[KT][WG];
    uint lid = ly * WG + lx;
    uint row0 = get_group_id(1) * BM;
    uint col0 = get_group_id(0) * BN;
    for (uint k0 = 0; k0 < n; k0 += KT) {
        for (uint e = lid; e < BM * KT; e += WG * WG) {
            uint m = e / KT, k = e % KT;
            As[k][m] = A[(row0 + m) * n + k0 + k];
        }
        for (uint e = lid; e < KT * WG; e += WG * WG) {
            uint k = e / WG, v = e % WG;
            Bs[k][v] = vloadV(0, B + (k0 + k) * n + col0 + v * VW);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint k = 0; k < KT; k++) {
            floatV b = Bs[k][lx];
#pragma unroll
            for (uint i = 0; i < TM; i++)
                acc[i] = fma((floatV)(As[k][ly * TM + i]), b, acc[i]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    // Walk A's rows and B's column block by pointer: no index arithmetic per step.
    __global const float *a = A + (size_t)row * n;
    __global const float *b = B + col;
    for (uint k = 0; k < n; k++, a++, b += n) {
        floatV bv = vloadV(0, b);
#pragma unroll
        for (uint i = 0; i < TM; i++)
            acc[i] = fma((floatV)(a[i * (size_t)n]), bv, acc[i]);
    }
#endif
#pragma unroll
    for (uint i = 0; i < TM; i++)
        vstoreV(acc[i], 0, C + (row + i) * n + col);
}
