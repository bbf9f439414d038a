// Kernels of cts/tests/program_globals.rs: OpenCL C 2.0 program-scope global variables and
// static global variables in functions, built with -cl-std=CL3.0 (or CL2.0).

global int total = 5;
global float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
global int uninitialised[3];

// A function-scope static in the global address space: one counter for the whole program.
int next_ticket(void) {
    static global int tickets = 100;
    return atomic_inc(&tickets);
}

kernel void add_total(int v) {
    if (get_global_id(0) == 0) {
        total += v;
    }
}

kernel void read_state(global int *out, global float *floats) {
    if (get_global_id(0) != 0) {
        return;
    }
    out[0] = total;
    out[1] = uninitialised[0];
    out[2] = uninitialised[1];
    out[3] = uninitialised[2];
    for (int i = 0; i < 4; i++) {
        floats[i] = table[i];
    }
}

// Each work-item writes its index into the table slot it owns, then the uninitialised array.
kernel void write_state(float scale) {
    size_t i = get_global_id(0);
    if (i < 4) {
        table[i] = table[i] * scale;
    }
    if (i < 3) {
        uninitialised[i] = (int)i + 7;
    }
}

kernel void take_tickets(global int *out) {
    out[get_global_id(0)] = next_ticket();
}

kernel void feature_macro(global int *out) {
#ifdef __opencl_c_program_scope_global_variables
    out[0] = 1;
#else
    out[0] = 0;
#endif
}
