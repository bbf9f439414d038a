// A long integer recurrence per work-item: enough CPU time per work-group that the tests can
// see which threads ran it (cts/tests/cpus.rs, cts/tests/partition.rs).
kernel void spin(global uint *out, uint rounds)
{
    uint x = (uint)get_global_id(0) + 1u;
    for (uint i = 0; i < rounds; i++) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
    }
    out[get_global_id(0)] = x;
}
