// -D without a value defines the name as 1; -D name=value gives it that value.
// out = { OFFSET (0 when not defined), FLAG defined?, value of FLAG (or -1) }
#ifndef OFFSET
#define OFFSET 0
#endif
kernel void defines(global int *out) {
    out[0] = OFFSET;
#ifdef FLAG
    out[1] = 1;
    out[2] = FLAG;
#else
    out[1] = 0;
    out[2] = -1;
#endif
}
