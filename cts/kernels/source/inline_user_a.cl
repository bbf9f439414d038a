// Issue 21: a compiled program using the header's inline helpers.
// out[i] = clamp_twice(a[i]).
#include "inline_helpers.h"

kernel void user_a(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    out[i] = clamp_twice(a[i]);
}
