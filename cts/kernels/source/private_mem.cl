// Work-items with large private arrays: they live on the stack of the thread that runs the
// work-group, so the implementation must run them where the stack is big enough, or refuse
// the enqueue with CL_OUT_OF_RESOURCES, and never crash.
#ifndef N
#define N 16
#endif
__kernel void fill(__global float *out, int pick) {
    float big[N];
    for (int i = 0; i < N; i++)
        big[i] = (float)i + (float)get_global_id(0);
    out[get_global_id(0)] = big[pick % N];
}

// The same with a barrier: each work-item's array must survive the barrier, so it lives in
// per-work-item state that grows with the work-group.
__kernel void fill_sync(__global float *out, int pick) {
    float big[N];
    for (int i = 0; i < N; i++)
        big[i] = (float)i + (float)get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = big[pick % N];
}
