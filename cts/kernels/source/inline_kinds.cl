// Issue 21: every kind of inline function in one program, built with and without
// -cl-opt-disable: plain `inline` calling plain `inline` (a chain three deep), `extern inline`
// (an external definition), `static inline`, and a plain inline that calls the other kinds.
inline int sq(int v) { return v * v; }
inline int sq_plus(int v, int k) { return sq(v) + k; }
inline int chain(int v) { return sq_plus(v, 3) - sq(v - 1); }

extern inline int halve_toward_zero(int v) { return v / 2; }

static inline int flip(int v) { return v ^ 0x5a5a; }

inline int mixed(int v) { return flip(halve_toward_zero(chain(v))); }

// out[4i..4i+3] = chain(a), halve_toward_zero(a), flip(a), mixed(a).
kernel void inline_kinds(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    int v = a[i];
    out[4 * i + 0] = chain(v);
    out[4 * i + 1] = halve_toward_zero(v);
    out[4 * i + 2] = flip(v);
    out[4 * i + 3] = mixed(v);
}
