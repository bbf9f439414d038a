// Main module for the link test: imports `scale` and `offset_by` (LinkageAttributes Import),
// defined in link_lib.cl. o[i] = offset_by(scale(a[i], 3)) = a[i] * 3 + 1 + 1000.
int scale(int v, int by);
int offset_by(int v);
kernel void linked(global const int *a, global int *o) {
    size_t i = get_global_id(0);
    o[i] = offset_by(scale(a[i], 3));
}
