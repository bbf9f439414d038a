// Bad input: an overloadable function (its symbol is mangled) declared and called but
// defined nowhere; the log names it as written.
__attribute__((overloadable)) float scaled_by(float v, int k);

kernel void calls_undefined_overload(global float *a) {
    size_t i = get_global_id(0);
    a[i] = scaled_by(a[i], 2);
}
