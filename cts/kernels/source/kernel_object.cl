// Kernels for tests/kernel_object.rs: a kernel whose buffer argument is released before it
// runs, and kernels with attributes for CL_KERNEL_ATTRIBUTES.

kernel void store_id(global int *out, int bias) {
    size_t i = get_global_id(0);
    out[i] = (int)i + bias;
}

__attribute__((reqd_work_group_size(4, 1, 1)))
__attribute__((vec_type_hint(int4)))
kernel void with_reqd_and_hint(global int *out) {
    out[get_global_id(0)] = 4;
}

kernel __attribute__((work_group_size_hint(8,2,1))) void with_size_hint(global int *out) {
    out[get_global_id(0)] = 8;
}

__attribute__((vec_type_hint(double2), reqd_work_group_size(2, 2, 1)))
kernel void with_one_group(global double *out) {
    out[get_global_id(0)] = 2.0;
}

// Not a kernel: its attribute belongs to no kernel.
__attribute__((always_inline)) int helper(int x) { return x + 1; }

kernel void without_attributes(global int *out) {
    out[0] = helper(1);
}
