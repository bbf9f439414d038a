// Kernels of cts/tests/program_globals.rs (generic address space part): to_global, to_local,
// to_private and get_fence on generic pointers that point into each address space. Built with
// -cl-std=CL3.0.

global int in_global_var = 11;

// One row of results per pointer: [to_global != 0, to_local != 0, to_private != 0, get_fence].
void classify(generic int *p, global int *out) {
    out[0] = to_global(p) != 0;
    out[1] = to_local(p) != 0;
    out[2] = to_private(p) != 0;
    out[3] = (int)get_fence(p);
}

kernel void classify_pointers(global int *buffer, local int *scratch, global int *out) {
    if (get_global_id(0) != 0) {
        return;
    }
    int private_value = 3;
    scratch[0] = 2;
    classify(buffer, out);
    classify(scratch, out + 4);
    classify(&private_value, out + 8);
    classify(&in_global_var, out + 12);
    // Reads through the converted pointers still see the values.
    out[16] = *to_global((generic int *)buffer);
    out[17] = *to_local((generic int *)scratch);
    out[18] = *to_private((generic int *)&private_value);
    out[19] = CLK_GLOBAL_MEM_FENCE;
    out[20] = CLK_LOCAL_MEM_FENCE;
}
