// Kernels for cts/tests/atomic_spread.rs: global atomics in ranges of many work-groups, which
// Clift may run one group after the other on one thread with plain loads and stores, or on
// every worker with atomic instructions (runtime/src/ndrange.rs, `Spread`).

// Every work-item swaps its value with the shared word `rounds` times (and until it has
// swapped once); a failure that saw the comparator unchanged is marked.
kernel void swap_rounds(global atomic_uint *word, global uint *mine, uint rounds)
{
    uint id = get_global_id(0);
    uint want = id, before;
    uint wins = 0;
    mine[id] = id;
    for (uint r = 0; r < rounds || wins == 0; r++) {
        before = want;
        if (atomic_compare_exchange_strong_explicit(word, &want, mine[id], memory_order_relaxed,
                                                    memory_order_relaxed, memory_scope_device)) {
            mine[id] = want;
            wins++;
        } else if (before == want) {
            mine[id] = 0xffffffffu;
            break;
        }
    }
}

// Counters: each work-item adds its id to one word and 1 to another, `rounds` times, with
// some arithmetic between the atomics (its result stored so it stays).
kernel void count_and_work(global atomic_uint *sum, global atomic_uint *count, global uint *out,
                           uint rounds, uint work)
{
    uint id = get_global_id(0);
    uint x = id * 2654435761u;
    for (uint r = 0; r < rounds; r++) {
        for (uint w = 0; w < work; w++)
            x = x * 1664525u + 1013904223u;
        atomic_fetch_add_explicit(sum, id, memory_order_relaxed, memory_scope_device);
        atomic_fetch_add_explicit(count, 1u, memory_order_relaxed, memory_scope_device);
    }
    out[id] = x;
}

// The OpenCL 1.x form: a float sum by compare-exchange retries on one word.
kernel void float_sum(global float *total, global const float *v, uint rounds)
{
    global int *p = (global int *)total;
    float add = v[get_global_id(0)];
    for (uint r = 0; r < rounds; r++) {
        int old, want;
        do {
            old = *p;
            want = as_int(as_float(old) + add);
        } while (atomic_cmpxchg(p, old, want) != old);
    }
}
