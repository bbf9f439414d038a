// Issue 21: a second compiled program including the same inline helpers, and calling a
// function defined only in a third program (inline_extern_def.cl).
// out[i] = clamp_twice(a[i]) - clamp_add(a[i], -3) + tripled(a[i]).
#include "inline_helpers.h"

int tripled(int v);

kernel void user_b(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    out[i] = clamp_twice(a[i]) - clamp_add(a[i], -3) + tripled(a[i]);
}
