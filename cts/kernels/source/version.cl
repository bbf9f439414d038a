// Reports the language version and the math macro: out = { __OPENCL_C_VERSION__ (0 if not
// defined), __FAST_RELAXED_MATH__ defined?, get_global_id(0) + 1 per item from out[2] on }.
kernel void version(global int *out) {
    size_t i = get_global_id(0);
    if (i == 0) {
#ifdef __OPENCL_C_VERSION__
        out[0] = __OPENCL_C_VERSION__;
#else
        out[0] = 0;
#endif
#ifdef __FAST_RELAXED_MATH__
        out[1] = 1;
#else
        out[1] = 0;
#endif
    }
    out[i + 2] = (int)i + 1;
}
