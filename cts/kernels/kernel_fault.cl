// Kernels of tests/kernel_fault.rs: each goes wrong only at run time, through values the
// compiler cannot see, so the fault comes from the hardware (fault containment, README).

// Stores 7 at a[off]; the test gives off = 2^40, far past the end of the buffer.
kernel void store_far(global int *a, ulong off) {
    a[off] = 7;
}

// out[i] = p[i]; the test passes NULL as the buffer p.
kernel void load_null(global const int *p, global int *out) {
    size_t i = get_global_id(0);
    out[i] = p[i];
}

// out[i] = 3 i + 1: the kernel that must run correctly after a fault.
kernel void fill(global int *out) {
    size_t i = get_global_id(0);
    out[i] = (int)i * 3 + 1;
}

// Every work-item writes its right neighbour's global id (through local memory, across a
// barrier); work-item `bad` first stores 2^40 elements past its slot.
kernel void fault_after_barrier(global int *out, local int *tmp, ulong bad) {
    size_t l = get_local_id(0);
    size_t i = get_global_id(0);
    tmp[l] = (int)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == bad)
        out[i + ((ulong)1 << 40)] = 1;
    out[i] = tmp[(l + 1) % get_local_size(0)];
}

// Never ends while flag[0] is 0 (the test leaves it so): a kernel only a time limit stops.
kernel void spin(volatile global int *flag, global int *out) {
    uint n = 0;
    while (flag[0] == 0)
        n++;
    out[get_global_id(0)] = (int)n;
}
