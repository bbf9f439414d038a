// Compiles with one warning (a #warning directive): -w hides it, -Werror makes it an error.
#warning "cts-source-warning"
kernel void warned(global int *out) { out[0] = 7; }
