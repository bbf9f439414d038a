// The launch-overhead micro-benchmark: a kernel that does nothing.
__kernel void empty(void) {
}
