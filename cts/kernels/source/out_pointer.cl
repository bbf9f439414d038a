// Built-in functions that store through a pointer operand, called by some work-items only
// (a condition on the loaded value, so that neighbours differ): the others' elements of the
// pointed-to buffer must stay as they were.

kernel void fract_if(global const float *x, global float *r, global float *whole) {
    size_t i = get_global_id(0);
    float v = 0.0f;
    if (x[i] > 0.0f)
        v = fract(x[i], &whole[i]);
    r[i] = v;
}

kernel void modf_if(global const float *x, global float *r, global float *whole) {
    size_t i = get_global_id(0);
    float v = 0.0f;
    if (x[i] > 0.0f)
        v = modf(x[i], &whole[i]);
    r[i] = v;
}

kernel void frexp_if(global const float *x, global float *r, global int *e) {
    size_t i = get_global_id(0);
    float v = 0.0f;
    if (x[i] > 0.0f)
        v = frexp(x[i], &e[i]);
    r[i] = v;
}

kernel void sincos_if(global const float *x, global float *r, global float *c) {
    size_t i = get_global_id(0);
    float v = 0.0f;
    if (x[i] > 0.0f)
        v = sincos(x[i], &c[i]);
    r[i] = v;
}

kernel void remquo_if(global const float *x, global float *r, global int *q) {
    size_t i = get_global_id(0);
    float v = 0.0f;
    if (x[i] > 0.0f)
        v = remquo(x[i], 1.5f, &q[i]);
    r[i] = v;
}

kernel void lgamma_r_if(global const float *x, global float *r, global int *s) {
    size_t i = get_global_id(0);
    float v = 0.0f;
    if (x[i] > 0.0f)
        v = lgamma_r(x[i], &s[i]);
    r[i] = v;
}

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
