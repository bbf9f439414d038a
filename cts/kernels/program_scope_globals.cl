// OpenCL C 2.0 program-scope global variables whose initializers hold pointers, for
// cts/tests/program_scope_pointers.rs (built into program_scope_globals.spvasm, see README.md:
// Clift does not accept -cl-std=CL2.0 source, so the test loads the SPIR-V).
// cts-source-options: -cl-std=CL2.0

global int gtab[4] = {100, 101, 102, 103};
global int *gp = &gtab[2];
global int *gps[3] = {&gtab[3], 0, gtab};
constant int ctab[2] = {7, 9};
constant int *global cp = &ctab[1];
global int counter = 5;
global int *global gpp_target = &counter;
generic int *global gen = &gtab[1];

// Reads through the initial pointers, then writes through them (the pointed-to globals are
// writable) and re-reads; a second launch sees the first one's writes.
kernel void global_pointers(global int *out) {
    out[0] = *gp;
    out[1] = *gps[0];
    out[2] = gps[1] == 0;
    out[3] = gps[2][1];
    out[4] = *cp;
    out[5] = *gen;
    *gpp_target += 1;
    out[6] = counter;
    gp = &gtab[0];
    out[7] = *gp;
}
