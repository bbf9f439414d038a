// Bad input: a function declared and called but defined nowhere; building or linking must
// fail with a log that names it.
int never_defined_helper(int v);

kernel void calls_undefined(global int *a) {
    size_t i = get_global_id(0);
    a[i] = never_defined_helper(a[i]);
}
