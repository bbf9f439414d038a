// OpenCL C built-ins of cl_ext_float_atomics through the front end (cts/tests/clc_extensions.rs).
#if !defined(cl_ext_float_atomics) || !defined(__opencl_c_ext_fp32_global_atomic_add) || !defined(__opencl_c_ext_fp32_local_atomic_min_max)
#error "float atomics macros missing"
#endif
// CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT is 0: no half atomics, so none of their macros.
#if defined(__opencl_c_ext_fp16_global_atomic_add) || defined(__opencl_c_ext_fp16_local_atomic_load_store) || defined(__opencl_c_ext_fp16_global_atomic_min_max)
#error "half float atomics macros defined"
#endif

// Sums, minima and maxima of v over the whole range (global) and per work-group (local).
kernel void fatomics(global const float *v, global atomic_float *g, global float *groups) {
    local atomic_float lsum, lmin, lmax;
    size_t l = get_local_id(0);
    if (l == 0) {
        atomic_init(&lsum, 0.0f);
        atomic_init(&lmin, INFINITY);
        atomic_init(&lmax, -INFINITY);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float x = v[get_global_id(0)];
    atomic_fetch_add(&g[0], x);
    atomic_fetch_min(&g[1], x);
    atomic_fetch_max_explicit(&g[2], x, memory_order_relaxed, memory_scope_device);
    atomic_fetch_sub(&g[3], x);
    atomic_fetch_add(&lsum, x);
    atomic_fetch_min(&lmin, x);
    atomic_fetch_max(&lmax, x);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        size_t w = get_group_id(0);
        groups[3 * w] = atomic_load(&lsum);
        groups[3 * w + 1] = atomic_load(&lmin);
        groups[3 * w + 2] = atomic_load(&lmax);
    }
}

kernel void datomics(global const double *v, global atomic_double *g) {
    double x = v[get_global_id(0)];
    atomic_fetch_add(&g[0], x);
    atomic_fetch_min(&g[1], x);
    atomic_fetch_max(&g[2], x);
}
