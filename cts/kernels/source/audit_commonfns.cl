// The scalar-operand ("gentypef") forms of the common and integer functions that the CTS
// commonfns and integer_ops suites test: fmax/fmin/max/min(vector, scalar), clamp(vector,
// scalar, scalar), mix(vector, vector, scalar), step(scalar, vector), smoothstep(scalar,
// scalar, vector) and ldexp(vector, int), and the integer max/min/clamp with scalar operands;
// also mad (Clift's is a fused multiply-add). At width W (3 through vload3/vstore3) for type T
// (-DT=float -DW=4 ...), for tests/cts_audit_commonfns.rs.
#ifdef DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define XCAT(a, b) a##b
#define CAT(a, b) XCAT(a, b)
#define VT CAT(T, W)
#define LOAD(i, p) CAT(vload, W)(i, p)
#define STORE(v, i, p) CAT(vstore, W)(v, i, p)

#define BIN_S(name, f)                                                                    \
    kernel void name(global const T *x, global const T *s, global T *o) {                 \
        size_t i = get_global_id(0);                                                      \
        STORE(f(LOAD(i, x), s[i]), i, o);                                                 \
    }

BIN_S(max_s, max)
BIN_S(min_s, min)

kernel void clamp_s(global const T *x, global const T *lo, global const T *hi, global T *o) {
    size_t i = get_global_id(0);
    STORE(clamp(LOAD(i, x), lo[i], hi[i]), i, o);
}

#ifdef FLOAT
BIN_S(fmax_s, fmax)
BIN_S(fmin_s, fmin)

kernel void mix_s(global const T *x, global const T *y, global const T *a, global T *o) {
    size_t i = get_global_id(0);
    STORE(mix(LOAD(i, x), LOAD(i, y), a[i]), i, o);
}

kernel void step_s(global const T *edge, global const T *x, global T *o) {
    size_t i = get_global_id(0);
    STORE(step(edge[i], LOAD(i, x)), i, o);
}

kernel void smoothstep_s(global const T *e0, global const T *e1, global const T *x, global T *o) {
    size_t i = get_global_id(0);
    STORE(smoothstep(e0[i], e1[i], LOAD(i, x)), i, o);
}

kernel void mad_v(global const T *a, global const T *b, global const T *c, global T *o) {
    size_t i = get_global_id(0);
    STORE(mad(LOAD(i, a), LOAD(i, b), LOAD(i, c)), i, o);
}

kernel void ldexp_s(global const T *x, global const int *k, global T *o) {
    size_t i = get_global_id(0);
    STORE(ldexp(LOAD(i, x), k[i]), i, o);
}
#endif
