// Built-in functions that store through a pointer operand, called by some work-items only
// (a condition on the loaded value, so that neighbours differ): the others' elements of the
// pointed-to buffer must stay as they were.

// r[i] = f(x[i], &out[i]) for the work-items whose x[i] is positive, 0 for the others.
#define CALLED_IF_POSITIVE(name, T, f, ...)                                                    \
    kernel void name(global const float *x, global float *r, global T *out) {                 \
        size_t i = get_global_id(0);                                                           \
        float v = 0.0f;                                                                        \
        if (x[i] > 0.0f)                                                                       \
            v = f(x[i], ##__VA_ARGS__, &out[i]);                                               \
        r[i] = v;                                                                              \
    }

CALLED_IF_POSITIVE(fract_if, float, fract)
CALLED_IF_POSITIVE(modf_if, float, modf)
CALLED_IF_POSITIVE(frexp_if, int, frexp)
CALLED_IF_POSITIVE(sincos_if, float, sincos)
CALLED_IF_POSITIVE(remquo_if, int, remquo, 1.5f)
CALLED_IF_POSITIVE(lgamma_r_if, int, lgamma_r)

// Through a private variable, in a loop whose trip count is the work-item's own.
kernel void fract_loop(global const float *x, global float *r, global float *whole) {
    size_t i = get_global_id(0);
    float acc = 0.0f, w = 0.0f, part;
    int n = (int)x[i] & 3;
    for (int k = 0; k < n; k++) {
        acc += fract(x[i] * (float)(k + 1), &part);
        w += part;
    }
    r[i] = acc;
    whole[i] = w;
}

// Every work-item, on float4 components (infinities, NaN, zeros of both signs and tiny
// negative values among them): the fraction, and the whole part through a private float4.
kernel void fract4_all(global const float4 *x, global float4 *r, global float4 *whole) {
    size_t i = get_global_id(0);
    float4 w;
    r[i] = fract(x[i], &w);
    whole[i] = w;
}

kernel void modf4_all(global const float4 *x, global float4 *r, global float4 *whole) {
    size_t i = get_global_id(0);
    float4 w;
    r[i] = modf(x[i], &w);
    whole[i] = w;
}
