// A syntax error on line 6 (the missing expression); the build log must name that line.
kernel void broken(global int *out) {
    int a = 1;
    int b = 2;
    out[0] = a + b;
    out[1] = a * ;
}
