// Compiled object of the kernel-calls-kernel link tests: the callee's declaration comes from
// the embedded header "kcall/proto.h". out[i] = (a[i] * 3 + 1) * 2.
#include "kcall/proto.h"

kernel void call_then_double(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    triple_plus_one(a, out);
    out[i] *= 2;
}
