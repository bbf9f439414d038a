// SAXPY launched with a global offset: the ND-range covers [offset, n), so get_global_id(0)
// already includes the offset. z = alpha * x + y (z is separate from y so the kernel is
// idempotent and can be re-run for timing).
__kernel void saxpy(float alpha, __global const float *x, __global const float *y, __global float *z) {
    size_t i = get_global_id(0);
    z[i] = alpha * x[i] + y[i];
}
