// Kernels for jit/tests/spin.rs: which loops are potential spin loops (codegen/spin.rs), so
// that their kernels run as fibers that yield at the loop's back-edge, and which are not.
// Built with: clang-15 -c -target spir64 -emit-llvm -cl-std=CL2.0 -Xclang -finclude-default-header
// -O2 (and -O0) spin.cl -o x.bc && llvm-spirv-15 x.bc -o spin.spv (spin_O0.spv).

// Spin loops: the exit depends on an atomic read inside the loop.
kernel void wait_load(global atomic_int *flag, global int *out)
{
    if (get_global_id(0) == 0) {
        while (atomic_load(flag) == 0)
            ;
    } else if (get_global_id(0) == get_global_size(0) - 1) {
        atomic_store(flag, 1);
    }
    out[get_global_id(0)] = 1;
}

kernel void cas_lock(global int *lock, global int *count)
{
    while (atomic_cmpxchg(lock, 0, 1) != 0)
        ;
    *count += 1;
    atomic_xchg(lock, 0);
}

// Not a spin loop (at -O2): a lock-free retry, whose compare-exchange fails only when another
// work-item wrote between its read and the exchange (at -O0 the comparison goes through
// private variables and the loop counts as a spin).
kernel void cas_retry(global int *p)
{
    int old = *(volatile global int *)p;
    int seen;
    while ((seen = atomic_cmpxchg(p, old, old * 3 + 1)) != old)
        old = seen;
}

// Not a spin loop (at -O2): the usual float add by compare-exchange, whose comparator is a
// plain load of the word in the loop.
kernel void float_add_retry(global float *sum, float v)
{
    global int *p = (global int *)sum;
    int old, want;
    do {
        old = *p;
        want = as_int(as_float(old) + v);
    } while (atomic_cmpxchg(p, old, want) != old);
}

kernel void flag_lock(global atomic_flag *lock, global int *count)
{
    while (atomic_flag_test_and_set(lock))
        ;
    *count += 1;
    atomic_flag_clear(lock);
}

// Through private memory: the loaded value is stored and read back before the test.
kernel void through_private(global atomic_int *flag, global int *out)
{
    int v[2];
    int i = 0;
    do {
        v[i & 1] = atomic_load(flag);
        i++;
    } while (v[(i - 1) & 1] == 0 && i < 1000000);
    out[get_global_id(0)] = i;
}

// Volatile: the exit depends on a volatile load.
kernel void wait_volatile(volatile global int *flag, global int *out)
{
    while (*flag == 0)
        ;
    out[get_global_id(0)] = *flag;
}

int read_flag(global atomic_int *f) { return atomic_load(f); }

// Through a call of a function that reads an atomic.
kernel void wait_in_call(global atomic_int *flag)
{
    while (read_flag(flag) != 7)
        ;
}

// Not spin loops.
kernel void counting(global atomic_int *c, int n)
{
    for (int i = 0; i < n; i++)
        atomic_fetch_add(c, 1);
}

kernel void histogram(global const uint *data, global uint *partial, uint per_item)
{
    local uint bins[64];
    size_t lid = get_local_id(0);
    for (size_t b = lid; b < 64; b += get_local_size(0))
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < per_item; k++)
        atomic_inc(&bins[data[get_global_id(0) * per_item + k] & 63]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = lid; b < 64; b += get_local_size(0))
        partial[get_group_id(0) * 64 + b] = bins[b];
}

// The atomic's result decides something inside the loop, not its exit.
kernel void inside_only(global atomic_int *c, global int *out, int n)
{
    for (int i = 0; i < n; i++) {
        if (atomic_fetch_add(c, 1) % 2 == 0)
            out[i] += 1;
    }
}

kernel void plain_loop(global int *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = i * 2;
}
