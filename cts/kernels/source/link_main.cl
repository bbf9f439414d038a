// Kernel of the link tests, calling scale() and offset() defined in other compiled objects:
// out[i] = offset(scale(a[i])) = a[i] * SCALE + OFFSET_BASE.
#include "proto.h"
kernel void combined(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    out[i] = offset(scale(a[i]));
}
