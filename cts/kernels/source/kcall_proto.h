// Embedded header of the kernel-calls-kernel link tests: the callee kernel's declaration.
extern kernel void triple_plus_one(global const int *a, global int *out);
