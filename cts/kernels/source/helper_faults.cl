// Kernels of tests/kernel_fault.rs that hand a pointer the test makes bad (`off` elements or
// bytes past a small buffer) to a built-in Clift implements with a runtime helper: the fault
// must end the command like a fault in the kernel's own code, never the process. With off = 0
// each kernel does what the built-in should.

// async_work_group_copy from g + off into local memory, then out[i] = the copy.
kernel void copy_in(global const int *g, ulong off, global int *out) {
    local int l[64];
    event_t e = async_work_group_copy(l, g + off, 64, 0);
    wait_group_events(1, &e);
    out[get_global_id(0)] = l[get_local_id(0)] + 1;
}

// The other way: local memory to out + off.
kernel void copy_out(global int *out, ulong off) {
    local int l[64];
    l[get_local_id(0)] = (int)get_global_id(0) * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t e = async_work_group_copy(out + off, l, 64, 0);
    wait_group_events(1, &e);
}

// modf, frexp and sincos storing their second result through g + off.
kernel void out_params(global float *f, global int *n, global double *d, ulong off, global float *out) {
    size_t i = get_global_id(0);
    float x = 2.75f + (float)i;
    out[3 * i] = modf(x, f + off + i);
    out[3 * i + 1] = frexp(x, n + off + i);
    out[3 * i + 2] = (float)sincos((double)x, d + off + i);
}

// printf("%s") of a string at s + off (off in bytes).
kernel void print_string(constant char *s, ulong off) {
    if (get_global_id(0) == 0)
        printf("string: %s\n", s + off);
}

// A packet written from, then read into, memory `off` elements past a buffer.
kernel void pipe_through(global int *g, ulong off, write_only pipe int p, global int *status) {
    status[0] = write_pipe(p, g + off);
}
kernel void pipe_back(global int *g, ulong off, read_only pipe int p, global int *status) {
    status[0] = read_pipe(p, g + off);
}
