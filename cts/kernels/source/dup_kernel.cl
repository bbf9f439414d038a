// Bad input: compiled twice into one library, this kernel's name is defined twice.
kernel void twice_defined_kernel(global int *a) { a[get_global_id(0)] = 5; }
