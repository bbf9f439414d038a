// Compiled object of the kernel-calls-kernel link tests: declares a kernel defined in another
// compiled object and calls it from its own kernel, then adds 10 to what it wrote.
// out[i] = (a[i] * 3 + 1) + 10.
extern kernel void triple_plus_one(global const int *a, global int *out);

kernel void call_then_add(global const int *a, global int *out) {
    size_t i = get_global_id(0);
    triple_plus_one(a, out);
    out[i] += 10;
}
