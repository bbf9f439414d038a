// Arithmetic whose result is exact under every math option (a * 2 + 1, a / 4, sqrt of a
// perfect square, a double literal that is exact in float), so all options give the same
// answer for ordinary inputs.
kernel void math(global const float *a, global float *out) {
    size_t i = get_global_id(0);
    float x = a[i];
    out[4 * i + 0] = x * 2.0f + 1.0f;
    out[4 * i + 1] = x / 4.0f;
    out[4 * i + 2] = sqrt(x * x);
    out[4 * i + 3] = x * 0.5;
}
