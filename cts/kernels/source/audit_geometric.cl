// cross (3 and 4 components) and smoothstep for float and double, as the CTS geometrics and
// commonfns suites call them (3-component operands through vload3/vstore3), for
// tests/cts_audit_geometric.rs.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

kernel void cross3_f(global const float *a, global const float *b, global float *o) {
    size_t i = get_global_id(0);
    vstore3(cross(vload3(i, a), vload3(i, b)), i, o);
}
kernel void cross4_f(global const float4 *a, global const float4 *b, global float4 *o) {
    size_t i = get_global_id(0);
    o[i] = cross(a[i], b[i]);
}
kernel void cross3_d(global const double *a, global const double *b, global double *o) {
    size_t i = get_global_id(0);
    vstore3(cross(vload3(i, a), vload3(i, b)), i, o);
}
kernel void cross4_d(global const double4 *a, global const double4 *b, global double4 *o) {
    size_t i = get_global_id(0);
    o[i] = cross(a[i], b[i]);
}
kernel void smoothstep_f(global const float *e0, global const float *e1, global const float *x,
                         global float *o) {
    size_t i = get_global_id(0);
    o[i] = smoothstep(e0[i], e1[i], x[i]);
}
kernel void smoothstep_d(global const double *e0, global const double *e1, global const double *x,
                         global double *o) {
    size_t i = get_global_id(0);
    o[i] = smoothstep(e0[i], e1[i], x[i]);
}
kernel void smoothstep_f4s(global const float *e0, global const float *e1, global const float4 *x,
                           global float4 *o) {
    size_t i = get_global_id(0);
    o[i] = smoothstep(e0[i], e1[i], x[i]);
}
// normalize (2, 3 and 4 components) for float and double, for audit_normalize in
// tests/cts_audit_geometric.rs.
kernel void normalize2_f(global const float2 *x, global float2 *o) {
    size_t i = get_global_id(0);
    o[i] = normalize(x[i]);
}
kernel void normalize3_f(global const float *x, global float *o) {
    size_t i = get_global_id(0);
    vstore3(normalize(vload3(i, x)), i, o);
}
kernel void normalize4_f(global const float4 *x, global float4 *o) {
    size_t i = get_global_id(0);
    o[i] = normalize(x[i]);
}
kernel void normalize2_d(global const double2 *x, global double2 *o) {
    size_t i = get_global_id(0);
    o[i] = normalize(x[i]);
}
kernel void normalize3_d(global const double *x, global double *o) {
    size_t i = get_global_id(0);
    vstore3(normalize(vload3(i, x)), i, o);
}
kernel void normalize4_d(global const double4 *x, global double4 *o) {
    size_t i = get_global_id(0);
    o[i] = normalize(x[i]);
}
