// Vector add: c = a + b (memory-bound: 12 bytes moved per work-item).
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
