// cl_khr_kernel_clock from OpenCL C (tests: spirv_ext.rs): each work-item reads the device
// clock, the work-group clock as uint2, and the device clock again.
#if !defined(cl_khr_kernel_clock) || !defined(__opencl_c_kernel_clock_scope_device) \
    || !defined(__opencl_c_kernel_clock_scope_work_group)
#error "cl_khr_kernel_clock macros missing"
#endif

kernel void clocks(global ulong *out)
{
    size_t i = get_global_id(0);
    ulong t0 = clock_read_device();
    uint2 t1 = clock_read_hilo_work_group();
    ulong t2 = clock_read_work_group();
    uint2 t3 = clock_read_hilo_device();
    out[4 * i] = t0;
    out[4 * i + 1] = ((ulong)t1.y << 32) | t1.x;
    out[4 * i + 2] = t2;
    out[4 * i + 3] = ((ulong)t3.y << 32) | t3.x;
}
