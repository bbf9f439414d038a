// Includes a header from a directory given with -I (the test writes disk_header.h there).
#include "disk_header.h"
kernel void from_disk(global int *out) { out[get_global_id(0)] = DISK_VALUE + (int)get_global_id(0); }
