// Writes each work-item's global id; used with non-divisible global/local sizes.
kernel void ids(global int *out) { out[get_global_id(0)] = (int)get_global_id(0); }
