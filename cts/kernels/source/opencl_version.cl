// out[0] = __OPENCL_VERSION__ (the device's OpenCL version, OpenCL C 6.13.10), -1 if undefined.
kernel void opencl_version(global int *out) {
#ifdef __OPENCL_VERSION__
    out[0] = __OPENCL_VERSION__;
#else
    out[0] = -1;
#endif
}
