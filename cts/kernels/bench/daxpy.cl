// Double-precision AXPY: z = alpha * x + y, one element per work-item, indexed with size_t.
// z is separate from y so the kernel is idempotent and can be re-run for timing.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void daxpy(double alpha, __global const double *x, __global const double *y, __global double *z) {
    size_t i = get_global_id(0);
    z[i] = alpha * x[i] + y[i];
}
