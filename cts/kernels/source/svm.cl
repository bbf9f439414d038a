// Kernels of cts/tests/svm.rs: shared virtual memory reached through SVM pointer arguments,
// through pointers stored inside SVM data, and through SVM atomics. Built with -cl-std=CL3.0.

// A node of a linked list built by the host. The host writes the same layout (repr(C)).
typedef struct node {
    global struct node *next;
    long value;
} node;

// Walks the list from `head`, writing the number of nodes and the sum of their values, and
// doubling each value in place (the host sees the new values).
kernel void walk_list(global node *head, global long *out) {
    if (get_global_id(0) != 0) {
        return;
    }
    long count = 0;
    long sum = 0;
    for (global node *n = head; n != 0; n = n->next) {
        count += 1;
        sum += n->value;
        n->value *= 2;
    }
    out[0] = count;
    out[1] = sum;
}

// Every work-item adds one to `counter` `rounds` times while the host adds to it too. It
// starts once it sees the host at work (the counter at `host_seen` or more; the wait is bounded
// so that a host that never comes cannot hang the kernel).
kernel void bump_counter(global atomic_int *counter, int rounds, int host_seen) {
    for (int spin = 0; spin < (1 << 26); spin++) {
        if (atomic_load_explicit(counter, memory_order_relaxed, memory_scope_all_svm_devices) >= host_seen) {
            break;
        }
    }
    for (int i = 0; i < rounds; i++) {
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);
    }
}

// Every work-item adds one to `counter` `rounds` times, with nothing else in the loop: a loop
// Clift may run on a register copy of the counter when nothing else can see it (`promote`),
// which a host thread adding at the same time, at this scope, can.
kernel void add_rounds(global atomic_int *counter, int rounds) {
    for (int i = 0; i < rounds; i++) {
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);
    }
}

// out[i] = in[i] * 3 + 1: plain SVM buffers as arguments (at any offset into an allocation).
kernel void scale(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    out[i] = in[i] * 3 + 1;
}

// Reads through a table of pointers stored in SVM memory (CL_KERNEL_EXEC_INFO_SVM_PTRS names
// the allocations they point into): out[i] = *table[i].
typedef global int *global_int_ptr;

kernel void gather(global const global_int_ptr *table, global int *out) {
    size_t i = get_global_id(0);
    out[i] = *table[i];
}

// A double subtracted from `total` through a generic pointer in a function of its own, as the
// Khronos CTS's svm_atomic_fetch_sub does for atomic_double, while host threads subtract from
// the same SVM double. Every work-item subtracts `amounts[i]` `rounds` times. Each amount is a
// small whole number, so every sum is exact in any order and nothing lost shows as a wrong
// total. It starts once it sees the host at work (`total` at `host_seen` or below; bounded).
#if defined(__opencl_c_ext_fp64_global_atomic_add) && defined(__opencl_c_generic_address_space)
void sub_through_generic(volatile atomic_double *total, double amount, int all_svm) {
    if (all_svm) {
        atomic_fetch_sub_explicit(total, amount, memory_order_relaxed, memory_scope_all_svm_devices);
    } else {
        atomic_fetch_sub_explicit(total, amount, memory_order_relaxed, memory_scope_all_devices);
    }
}

kernel void sub_double(global atomic_double *total, global const double *amounts, int rounds,
                       double host_seen, int all_svm) {
    for (int spin = 0; spin < (1 << 26); spin++) {
        if (atomic_load_explicit(total, memory_order_relaxed, memory_scope_all_svm_devices) <= host_seen) {
            break;
        }
    }
    double amount = amounts[get_global_id(0)];
    for (int i = 0; i < rounds; i++) {
        sub_through_generic(total, amount, all_svm);
    }
}
#endif
