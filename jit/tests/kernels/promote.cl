// Loops with atomics on memory at addresses that stay the same through the loop
// (codegen/promote.rs): when the range runs alone, the loop runs on copies in registers.
// Built with -cl-std=CL3.0 by jit/tests/promote.rs.

// Every work-item swaps its value with a shared word, `rounds` times (the CTS's exchange).
kernel void exchange_rounds(global atomic_uint *word, global uint *mine, uint rounds)
{
    uint tid = get_global_id(0);
    mine[tid] = atomic_exchange_explicit(&word[0], tid, memory_order_relaxed, memory_scope_device);
    for (uint i = 0; i < rounds; i++)
        mine[tid] = atomic_exchange_explicit(&word[0], mine[tid], memory_order_relaxed, memory_scope_device);
}

// The same at the scope host threads take part in (memory_scope_all_svm_devices).
kernel void exchange_rounds_all_devices(global atomic_uint *word, global uint *mine, uint rounds)
{
    uint tid = get_global_id(0);
    mine[tid] = atomic_exchange_explicit(&word[0], tid, memory_order_relaxed, memory_scope_all_svm_devices);
    for (uint i = 0; i < rounds; i++)
        mine[tid] = atomic_exchange_explicit(&word[0], mine[tid], memory_order_relaxed, memory_scope_all_svm_devices);
}

// Compare-exchange until `rounds` tries and one success, leaving on a spurious failure.
kernel void cas_rounds(global atomic_int *word, global int *mine, global int *wins, uint rounds)
{
    int tid = (int)get_global_id(0);
    int expected = tid, previous;
    int successes = 0;
    mine[tid] = tid;
    for (uint i = 0; i < rounds || successes == 0; i++) {
        previous = expected;
        if (atomic_compare_exchange_strong_explicit(&word[0], &expected, mine[tid],
                memory_order_acq_rel, memory_order_acquire, memory_scope_device)) {
            mine[tid] = expected;
            successes++;
        } else if (previous == expected) {
            mine[tid] = -1;
            break;
        }
    }
    wins[tid] = successes;
}

// Set and clear this work-item's bit, counting surprises in its own word (the CTS's orand).
kernel void or_and(global atomic_uint *bits, global uint *surprises, uint rounds)
{
    uint tid = get_global_id(0);
    uint mask = 1u << (tid % 32);
    surprises[tid] = 0;
    for (uint i = 0; i < rounds; i++) {
        uint v = atomic_fetch_or_explicit(&bits[tid / 32], mask, memory_order_relaxed, memory_scope_device);
        if (v & mask)
            surprises[tid]++;
        v = atomic_fetch_and_explicit(&bits[tid / 32], ~mask, memory_order_relaxed, memory_scope_device);
        if (!(v & mask))
            surprises[tid]++;
    }
}

// Every OpenCL 1.x read-modify-write on counters, and a plain sum beside them.
kernel void counters(global int *c, global uint *u, global int *sum, uint rounds)
{
    int tid = (int)get_global_id(0);
    for (uint i = 0; i < rounds; i++) {
        int k = (int)i * 7 - tid * 3;
        sum[tid] += atomic_inc(&c[0]);
        sum[tid] += atomic_dec(&c[1]);
        sum[tid] += atomic_add(&c[2], k);
        sum[tid] += atomic_sub(&c[3], k);
        sum[tid] += atomic_min(&c[4], k);
        sum[tid] += atomic_max(&c[5], k);
        sum[tid] += (int)atomic_min(&u[0], (uint)k);
        sum[tid] += (int)atomic_max(&u[1], (uint)k);
        sum[tid] ^= atomic_and(&c[6], ~(1 << (i % 31)));
        sum[tid] ^= atomic_or(&c[7], 1 << ((i + tid) % 31));
        sum[tid] ^= atomic_xor(&c[8], k);
    }
}

// Two pointers the host may make equal: the copy must not be taken then.
kernel void maybe_aliased(global int *a, global int *b, uint rounds)
{
    size_t tid = get_global_id(0);
    for (uint i = 0; i < rounds; i++) {
        int v = atomic_add(&a[0], 1);
        b[tid] += v;
    }
}

// Floats exchanged, and a value of the loop's header used after it.
kernel void float_exchange(global float *word, global float *out, uint rounds)
{
    int tid = (int)get_global_id(0);
    float mine = (float)tid * 0.5f;
    float last = 0.0f;
    for (uint i = 0; i < rounds; i++) {
        last = atomic_xchg(&word[0], mine + last);
    }
    out[tid] = last;
}

// Two ways out to different places, one of them storing, and the last value of the loop
// used after it.
kernel void two_exits(global int *c, global int *out, global const uint *stop, uint rounds)
{
    int tid = (int)get_global_id(0);
    int v = 0;
    for (uint i = 0; i < rounds; i++) {
        v = atomic_add(&c[0], tid + 1);
        if (i == stop[tid]) {
            out[tid] = -v;
            return;
        }
    }
    out[tid] = v;
}

// Local memory between barriers (the region path), as the CTS's local variants.
kernel void local_rounds(global uint *result, global uint *mine, uint rounds)
{
    local atomic_uint word[1];
    uint lid = get_local_id(0);
    if (lid == 0)
        atomic_store_explicit(&word[0], 1000u, memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    mine[get_global_id(0)] = lid;
    for (uint i = 0; i < rounds; i++)
        mine[get_global_id(0)] = atomic_exchange_explicit(&word[0], mine[get_global_id(0)],
                memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        result[get_group_id(0)] = atomic_load_explicit(&word[0], memory_order_relaxed, memory_scope_work_group);
}

// Not taken: a volatile access in the loop.
kernel void volatile_inside(global int *c, volatile global int *v, uint rounds)
{
    for (uint i = 0; i < rounds; i++) {
        atomic_add(&c[0], 1);
        v[0] += 1;
    }
}

// Not taken: the loop's loads move with it.
kernel void moving_address(global int *c, global int *data, uint rounds)
{
    for (uint i = 0; i < rounds; i++)
        atomic_add(&c[0], data[i]);
}
