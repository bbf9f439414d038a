// Issue 21: a C99 plain `inline` helper, which is no external definition. Clang at -O0 does
// not inline it, so with -cl-opt-disable the call must still find its body.
// a[i] = bump(a[i]) = a[i] + 1.
inline int bump(int v) { return v + 1; }

kernel void bump_each(global int *a) {
    size_t i = get_global_id(0);
    a[i] = bump(a[i]);
}
