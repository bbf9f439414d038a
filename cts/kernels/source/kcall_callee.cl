// Compiled object of the kernel-calls-kernel link tests: a kernel that another program's
// kernel calls as an ordinary function. out[i] = a[i] * 3 + 1.
kernel void triple_plus_one(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    out[i] = a[i] * 3 + 1;
}
