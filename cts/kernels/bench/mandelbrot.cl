// Mandelbrot escape counts (compute-bound, divergent loop). No contraction into fma, so the
// host reference computes exactly the same float operations.
#pragma OPENCL FP_CONTRACT OFF
__kernel void mandelbrot(__global uint *out, uint width, uint max_iter, float x0, float y0, float dx, float dy) {
    uint px = get_global_id(0);
    uint py = get_global_id(1);
    float cr = x0 + (float)px * dx;
    float ci = y0 + (float)py * dy;
    float zr = 0.0f;
    float zi = 0.0f;
    uint it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    out[py * width + px] = it;
}
