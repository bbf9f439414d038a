//! Shared virtual memory (API section 5.6, issue 17), through the ICD loader:
//! - the device reports coarse-grain buffer, fine-grain buffer, fine-grain system SVM and SVM
//!   atomics;
//! - a linked list built by the host in fine-grain SVM memory, and one built in plain host
//!   memory (`Box`es: fine-grain system SVM), walked and updated by a kernel;
//! - the host and a running kernel incrementing one SVM atomic concurrently, nothing lost;
//!   two host threads and a kernel subtracting from one SVM `atomic_double` through a generic
//!   pointer (the CTS's svm_atomic_fetch_sub case), nothing lost;
//! - SVM pointer arguments at offsets into an allocation, `CL_KERNEL_EXEC_INFO_SVM_PTRS`, and
//!   buffers created over SVM memory (`CL_MEM_USES_SVM_POINTER`, shared bytes);
//! - the SVM commands (memcpy, fill, map, unmap, migrate, free with and without a callback) and
//!   their event command types;
//! - `clSVMFree` of memory a queued kernel still uses is deferred until the kernel is done;
//! - bad input: invalid flags, size 0 or too large, bad alignments (NULL from clSVMAlloc),
//!   pointers not from clSVMAlloc freed (ignored), overlapping copies, NULL pointers, misaligned
//!   fills, ranges outside an allocation, wrong argument kinds and info sizes.
//!
//! Kernels: kernels/source/svm.cl (OpenCL C 3.0).

use cts::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicI32, Ordering};

const OPTIONS: &str = "-cl-std=CL3.0";

fn caps() -> cl_device_svm_capabilities {
    device_info(CL_DEVICE_SVM_CAPABILITIES)
}

/// Skips (returns false) on a platform without the SVM kind `need` (the suite may be pointed at
/// another platform with CLIFT_CTS_PLATFORM).
fn has(need: cl_device_svm_capabilities) -> bool {
    let ok = caps() & need == need;
    if !ok {
        eprintln!("skipped: the device lacks SVM capabilities {need:#x}");
    }
    ok
}

/// One clSVMAlloc allocation, freed on drop.
struct Svm {
    ctx: cl_context,
    ptr: *mut c_void,
}

impl Svm {
    fn new(ctx: &Context, flags: cl_svm_mem_flags, size: usize) -> Svm {
        let ptr = unsafe { clSVMAlloc(ctx.0, flags, size, 0) };
        assert!(!ptr.is_null(), "clSVMAlloc(flags {flags:#x}, {size}) returned NULL");
        Svm { ctx: ctx.0, ptr }
    }

    /// The allocation's first `n` ints. The bytes are not owned by this value but shared with
    /// the device (that is what SVM is), so a shared borrow hands out a mutable view.
    #[allow(clippy::mut_from_ref)]
    fn ints(&self, n: usize) -> &mut [i32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut i32, n) }
    }
}

impl Drop for Svm {
    fn drop(&mut self) {
        unsafe { clSVMFree(self.ctx, self.ptr) };
    }
}

fn set_svm_arg(k: &Kernel, index: cl_uint, p: *const c_void) {
    ok!(clSetKernelArgSVMPointer(k.0, index, p));
}

#[test]
fn device_reports_every_kind_of_svm() {
    let all = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
        | CL_DEVICE_SVM_FINE_GRAIN_BUFFER
        | CL_DEVICE_SVM_FINE_GRAIN_SYSTEM
        | CL_DEVICE_SVM_ATOMICS;
    if wanted_platform_name() == "Clift" {
        assert_eq!(caps(), all);
    }
    if caps() != 0 {
        // SVM needs the 2.0-style atomics scope of all SVM devices.
        let atomics: cl_device_atomic_capabilities = device_info(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
        if caps() & CL_DEVICE_SVM_ATOMICS != 0 {
            assert_ne!(atomics & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES, 0);
        }
    }
}

#[repr(C)]
struct Node {
    next: *mut Node,
    value: i64,
}

/// Walks a list whose nodes lie at `nodes` (linked in order) with the kernel and checks the
/// count, the sum and the doubled values.
fn walk(ctx: &Context, q: &Queue, k: &Kernel, head: *mut Node, values: &[i64]) {
    let out = Svm::new(ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, 16);
    set_svm_arg(k, 0, head as *const c_void);
    set_svm_arg(k, 1, out.ptr);
    q.run(k, &[], &[4], &[]);
    let got = unsafe { std::slice::from_raw_parts(out.ptr as *const i64, 2) };
    assert_eq!(got, &[values.len() as i64, values.iter().sum::<i64>()]);
    let mut n = head;
    let mut seen = Vec::new();
    while !n.is_null() {
        unsafe {
            seen.push((*n).value);
            n = (*n).next;
        }
    }
    assert_eq!(seen, values.iter().map(|v| v * 2).collect::<Vec<_>>());
}

#[test]
fn kernel_walks_a_host_built_list_in_fine_grain_buffer_svm() {
    if !has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("walk_list");
    let values: Vec<i64> = (0..37).map(|i| i * i - 5).collect();
    // Each node in its own allocation, linked in a scrambled order of allocations, so the
    // kernel follows real pointers between allocations.
    let allocs: Vec<Svm> = (0..values.len())
        .map(|_| Svm::new(&ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, std::mem::size_of::<Node>()))
        .collect();
    let order: Vec<usize> = (0..values.len()).map(|i| (i * 17) % values.len()).collect();
    for (pos, &a) in order.iter().enumerate() {
        let node = allocs[a].ptr as *mut Node;
        let next = order
            .get(pos + 1)
            .map_or(ptr::null_mut(), |&b| allocs[b].ptr as *mut Node);
        unsafe {
            node.write(Node {
                next,
                value: values[pos],
            })
        };
    }
    // The nodes other than the head are reached through pointers only.
    let others: Vec<*const c_void> = allocs.iter().map(|a| a.ptr as *const c_void).collect();
    ok!(clSetKernelExecInfo(
        k.0,
        CL_KERNEL_EXEC_INFO_SVM_PTRS,
        std::mem::size_of_val(&others[..]),
        others.as_ptr() as *const c_void
    ));
    walk(&ctx, &q, &k, allocs[order[0]].ptr as *mut Node, &values);
}

#[test]
fn kernel_walks_a_host_built_list_in_system_memory() {
    if !has(CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("walk_list");
    let yes: cl_bool = CL_TRUE;
    ok!(clSetKernelExecInfo(
        k.0,
        CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
        std::mem::size_of::<cl_bool>(),
        &yes as *const cl_bool as *const c_void
    ));
    // Plain Rust heap allocations: no OpenCL call ever sees them but through the head.
    let values: Vec<i64> = (0..100).map(|i| 3 * i + 1).collect();
    let mut head: *mut Node = ptr::null_mut();
    for v in values.iter().rev() {
        head = Box::into_raw(Box::new(Node { next: head, value: *v }));
    }
    walk(&ctx, &q, &k, head, &values);
    while !head.is_null() {
        let b = unsafe { Box::from_raw(head) };
        head = b.next;
    }
}

/// Runs `bump_counter` over `items` work-items in groups of `local` (0: Clift's choice) while
/// the host increments the same counter until the kernel is done; every increment must count.
/// Enqueues `k` over `items` work-items in groups of `local` (0: Clift chooses) and returns
/// its event without waiting, so host threads can run beside it.
fn enqueue_1d(q: &Queue, k: &Kernel, items: usize, local: usize) -> Event {
    let mut ev: cl_event = ptr::null_mut();
    let global = [items];
    let local_size = [local];
    ok!(clEnqueueNDRangeKernel(
        q.0,
        k.0,
        1,
        ptr::null(),
        global.as_ptr(),
        if local == 0 { ptr::null() } else { local_size.as_ptr() },
        0,
        ptr::null(),
        &mut ev
    ));
    Event(ev)
}

fn race_host_and_kernel(ctx: &Context, k: &Kernel, items: usize, local: usize, rounds: i32) {
    let q = ctx.queue();
    let counter = Svm::new(
        ctx,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
        4,
    );
    let atomic = unsafe { &*(counter.ptr as *const AtomicI32) };
    atomic.store(0, Ordering::SeqCst);
    set_svm_arg(k, 0, counter.ptr);
    k.arg(1, &rounds);
    k.arg(2, &1000i32);
    let ev = enqueue_1d(&q, k, items, local);
    q.flush();
    // The host increments until the kernel is done; the kernel's work-items wait until they
    // see the host's first 1000, so both run at once.
    let mut host_adds = 0;
    loop {
        for _ in 0..1000 {
            atomic.fetch_add(1, Ordering::Relaxed);
        }
        host_adds += 1000;
        if ev.status() <= CL_COMPLETE {
            break;
        }
    }
    ev.wait();
    assert_eq!(ev.status(), CL_COMPLETE);
    assert_eq!(
        atomic.load(Ordering::SeqCst),
        items as i32 * rounds + host_adds,
        "an increment was lost ({items} work-items, groups of {local})"
    );
}

#[test]
fn host_and_kernel_increment_one_svm_atomic_concurrently() {
    if !has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS) {
        return;
    }
    let ctx = Context::new();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("bump_counter");
    // Many work-groups on every worker, and a single work-group (one worker thread: the host
    // is then the only other party to the atomic).
    race_host_and_kernel(&ctx, &k, 256, 0, 4000);
    race_host_and_kernel(&ctx, &k, 64, 64, 20_000);
}

/// A loop of atomic adds at `memory_scope_all_svm_devices` in one work-group, while a host
/// thread adds to the same fine-grain SVM counter from before the enqueue until the kernel is
/// done: the loop must stay atomic, not run on a copy of the counter written back at its end
/// (which would lose every host add made meanwhile). The host thread starts first and the
/// kernel's 64 x 400,000 adds take far longer than a thread switch, so they overlap.
#[test]
fn a_host_thread_adding_during_a_one_group_loop_of_all_svm_devices_atomics() {
    if !has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS) {
        return;
    }
    let ctx = Context::new();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("add_rounds");
    let q = ctx.queue();
    let counter = Svm::new(
        &ctx,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
        4,
    );
    let atomic = unsafe { &*(counter.ptr as *const AtomicI32) };
    atomic.store(0, Ordering::SeqCst);
    let (items, rounds) = (64usize, 400_000i32);
    set_svm_arg(&k, 0, counter.ptr);
    k.arg(1, &rounds);
    let done = std::sync::atomic::AtomicBool::new(false);
    let host_adds = std::thread::scope(|s| {
        let host = s.spawn(|| {
            let mut n = 0i32;
            while !done.load(Ordering::SeqCst) {
                atomic.fetch_add(1, Ordering::Relaxed);
                n += 1;
                if n % 1024 == 0 {
                    std::thread::yield_now();
                }
            }
            n
        });
        while atomic.load(Ordering::SeqCst) < 1000 {
            std::thread::yield_now();
        }
        let ev = enqueue_1d(&q, &k, items, items);
        ev.wait();
        assert_eq!(ev.status(), CL_COMPLETE);
        done.store(true, Ordering::SeqCst);
        host.join().expect("host thread")
    });
    assert_eq!(
        atomic.load(Ordering::SeqCst),
        items as i32 * rounds + host_adds,
        "an add was lost: the kernel's loop ran on a copy of the counter"
    );
}

/// Runs `sub_double` (a double `atomic_fetch_sub_explicit` through a generic pointer in a
/// function of its own, relaxed, at `memory_scope_all_svm_devices` or `_all_devices`) over
/// `items` work-items in groups of `local` (0: Clift's choice) while two host threads subtract
/// from the same fine-grain SVM double with compare-exchange loops, until the kernel is done.
/// Every amount is a whole number, so the total is exact in any order: a lost update shows.
/// `via_buffer`: the kernel gets the double through a buffer created with
/// `CL_MEM_USE_HOST_PTR` over the SVM allocation (as the CTS passes it), not as an SVM
/// pointer argument.
fn race_host_and_kernel_on_a_double(
    ctx: &Context,
    k: &Kernel,
    items: usize,
    local: usize,
    all_svm: bool,
    via_buffer: bool,
) {
    use std::sync::atomic::{AtomicBool, AtomicU64};
    let q = ctx.queue();
    let total = Svm::new(
        ctx,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
        8,
    );
    let bits = unsafe { &*(total.ptr as *const AtomicU64) };
    bits.store(0f64.to_bits(), Ordering::SeqCst);
    let amounts: Vec<f64> = (0..items).map(|i| (i % 7 + 1) as f64).collect();
    let amounts_mem = ctx.buffer_from(unsafe { std::slice::from_raw_parts(amounts.as_ptr() as *const u8, items * 8) });
    let rounds = 2000i32;
    let over = via_buffer.then(|| ctx.buffer_with(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 8, total.ptr));
    match &over {
        Some(m) => k.arg(0, &m.0),
        None => set_svm_arg(k, 0, total.ptr),
    }
    k.arg(1, &amounts_mem.0);
    k.arg(2, &rounds);
    // The kernel starts once the host threads have subtracted 600 (2 threads x 100 x 3.0).
    k.arg(3, &-600.0f64);
    k.arg(4, &(all_svm as i32));
    // The host's part: `x - 3.0` by compare-exchange on the double's bits (std's atomics are
    // the C11 ones the OpenCL memory model composes with).
    let sub3 = |bits: &AtomicU64| {
        let mut seen = bits.load(Ordering::Relaxed);
        loop {
            let new = (f64::from_bits(seen) - 3.0).to_bits();
            match bits.compare_exchange_weak(seen, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => seen = now,
            }
        }
    };
    let done = AtomicBool::new(false);
    let host_ops = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut n = 0u64;
                    while n < 100 || !done.load(Ordering::SeqCst) {
                        sub3(bits);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let ev = enqueue_1d(&q, k, items, local);
        ev.wait();
        assert_eq!(ev.status(), CL_COMPLETE);
        done.store(true, Ordering::SeqCst);
        workers.into_iter().map(|w| w.join().expect("host thread")).sum::<u64>()
    });
    let kernel_part: f64 = amounts.iter().sum::<f64>() * rounds as f64;
    let expected = -(kernel_part + 3.0 * host_ops as f64);
    let got = f64::from_bits(bits.load(Ordering::SeqCst));
    assert_eq!(
        got, expected,
        "an update was lost ({items} work-items, groups of {local}, {host_ops} host subtractions, all_svm {all_svm}, via_buffer {via_buffer})"
    );
}

#[test]
fn host_threads_and_kernel_subtract_from_one_svm_double_through_a_generic_pointer() {
    if !has(CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS) {
        return;
    }
    let ctx = Context::new();
    if !device_string(CL_DEVICE_EXTENSIONS)
        .split(' ')
        .any(|x| x == "cl_ext_float_atomics")
    {
        eprintln!("skipped: no cl_ext_float_atomics");
        return;
    }
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("sub_double");
    for (all_svm, via_buffer) in [(true, false), (false, false), (true, true), (false, true)] {
        // One work-group (the CTS's case: one worker thread, the host threads the only other
        // parties), and many groups on every worker.
        race_host_and_kernel_on_a_double(&ctx, &k, 1024, 1024, all_svm, via_buffer);
        race_host_and_kernel_on_a_double(&ctx, &k, 1024, 0, all_svm, via_buffer);
    }
}

/// The same subtraction on an ordinary buffer (no host thread can take part: Clift runs a
/// one-group range's atomics of every scope as plain loads and stores then), in one
/// work-group and in many, at both all-devices scopes: every update counts.
#[test]
fn all_devices_atomics_on_an_ordinary_buffer_in_one_group_and_in_many() {
    if !device_string(CL_DEVICE_EXTENSIONS)
        .split(' ')
        .any(|x| x == "cl_ext_float_atomics")
    {
        eprintln!("skipped: no cl_ext_float_atomics");
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("sub_double");
    let items = 1024usize;
    let amounts: Vec<f64> = (0..items).map(|i| (i % 5 + 1) as f64).collect();
    let amounts_mem = ctx.buffer_from(unsafe { std::slice::from_raw_parts(amounts.as_ptr() as *const u8, items * 8) });
    let rounds = 300i32;
    for all_svm in [true, false] {
        for local in [items, 16, 0] {
            let total = ctx.buffer_from(&10.0f64.to_ne_bytes());
            k.arg(0, &total.0);
            k.arg(1, &amounts_mem.0);
            k.arg(2, &rounds);
            // No host thread: the kernel's wait for one ends at once (the total is below).
            k.arg(3, &1.0e9f64);
            k.arg(4, &(all_svm as i32));
            let local_size = [local];
            q.run(&k, &[], &[items], if local == 0 { &[] } else { &local_size });
            let out = q.read(&total, 0, 8);
            let got = f64::from_ne_bytes(out[..8].try_into().expect("8 bytes"));
            let expected = 10.0 - amounts.iter().sum::<f64>() * rounds as f64;
            assert_eq!(got, expected, "groups of {local}, all_svm {all_svm}");
        }
    }
}

#[test]
fn svm_pointer_arguments_at_offsets_and_buffers_over_svm() {
    if !has(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("scale");
    let n = 64;
    let data = Svm::new(&ctx, CL_MEM_READ_WRITE, 2 * n * 4);
    // Coarse-grain memory: the host writes it between map and unmap.
    ok!(clEnqueueSVMMap(
        q.0,
        CL_TRUE,
        CL_MAP_WRITE,
        data.ptr,
        2 * n * 4,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    for (i, v) in data.ints(2 * n).iter_mut().enumerate() {
        *v = i as i32 - 10;
    }
    ok!(clEnqueueSVMUnmap(q.0, data.ptr, 0, ptr::null(), ptr::null_mut()));
    // in = the first half, out = the second half of the same allocation.
    let second = unsafe { (data.ptr as *mut i32).add(n) } as *mut c_void;
    set_svm_arg(&k, 0, data.ptr);
    set_svm_arg(&k, 1, second);
    q.run(&k, &[], &[n], &[]);
    ok!(clEnqueueSVMMap(
        q.0,
        CL_TRUE,
        CL_MAP_READ,
        data.ptr,
        2 * n * 4,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    let want: Vec<i32> = (0..n as i32).map(|i| (i - 10) * 3 + 1).collect();
    assert_eq!(&data.ints(2 * n)[n..], &want[..]);
    ok!(clEnqueueSVMUnmap(q.0, data.ptr, 0, ptr::null(), ptr::null_mut()));

    // A buffer over the second half shares its bytes and says so.
    let b = ctx.buffer_with(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * 4, second);
    assert_eq!(mem_info::<cl_bool>(b.0, CL_MEM_USES_SVM_POINTER), CL_TRUE);
    assert_eq!(mem_info::<*mut c_void>(b.0, CL_MEM_HOST_PTR), second);
    assert_eq!(from_bytes::<i32>(&q.read(&b, 0, n * 4)), want);
    q.write(&b, 0, as_bytes(&[77i32]));
    assert_eq!(data.ints(n + 1)[n], 77);
    let sub = b.sub(CL_MEM_READ_WRITE, 128, 64);
    assert_eq!(mem_info::<cl_bool>(sub.0, CL_MEM_USES_SVM_POINTER), CL_TRUE);
    // The buffer may also be a kernel argument the usual way.
    k.arg_mem(0, &b);
    set_svm_arg(&k, 1, data.ptr);
    q.run(&k, &[], &[n], &[]);
    assert_eq!(data.ints(1)[0], 77 * 3 + 1);
    // Copying the allocation's bytes into a buffer is not using the SVM pointer.
    let copy = ctx.buffer_with(CL_MEM_COPY_HOST_PTR, n * 4, data.ptr);
    assert_eq!(mem_info::<cl_bool>(copy.0, CL_MEM_USES_SVM_POINTER), CL_FALSE);
    // Larger than what is left of the allocation after the pointer.
    assert_eq!(
        ctx.try_buffer(CL_MEM_USE_HOST_PTR, n * 4 + 4, second).err(),
        Some(CL_INVALID_BUFFER_SIZE)
    );
    assert_eq!(
        ctx.try_buffer(CL_MEM_COPY_HOST_PTR, 2 * n * 4 + 1, data.ptr).err(),
        Some(CL_INVALID_BUFFER_SIZE)
    );
    // Plain buffers do not use SVM pointers.
    let plain = ctx.buffer(16);
    assert_eq!(mem_info::<cl_bool>(plain.0, CL_MEM_USES_SVM_POINTER), CL_FALSE);
    drop((b, sub));
}

#[test]
fn exec_info_svm_ptrs_reach_memory_behind_a_pointer_table() {
    if !has(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("gather");
    let n = 8;
    let values: Vec<Svm> = (0..n)
        .map(|_| Svm::new(&ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, 4))
        .collect();
    for (i, v) in values.iter().enumerate() {
        v.ints(1)[0] = 1000 + i as i32;
    }
    let table = Svm::new(&ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, n * 8);
    let slots = unsafe { std::slice::from_raw_parts_mut(table.ptr as *mut *mut c_void, n) };
    for (i, s) in slots.iter_mut().enumerate() {
        *s = values[n - 1 - i].ptr;
    }
    let out = Svm::new(&ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, n * 4);
    let reached: Vec<*const c_void> = values.iter().map(|v| v.ptr as *const c_void).collect();
    ok!(clSetKernelExecInfo(
        k.0,
        CL_KERNEL_EXEC_INFO_SVM_PTRS,
        n * 8,
        reached.as_ptr() as *const c_void
    ));
    set_svm_arg(&k, 0, table.ptr);
    set_svm_arg(&k, 1, out.ptr);
    q.run(&k, &[], &[n], &[]);
    assert_eq!(out.ints(n), &(0..n as i32).map(|i| 1007 - i).collect::<Vec<_>>()[..]);
    // An empty set: size 0 and NULL.
    ok!(clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()));
}

#[test]
fn svm_commands_copy_fill_map_migrate_and_free() {
    if !has(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let size = 4096;
    let a = Svm::new(&ctx, 0, size);
    let b = Svm::new(&ctx, CL_MEM_READ_ONLY, size);
    let mut ev: cl_event = ptr::null_mut();
    // Fill with a 16-byte pattern, then part of it with a 2-byte one.
    let pat16: Vec<u8> = (0..16).map(|i| 0xA0 + i).collect();
    ok!(clEnqueueSVMMemFill(
        q.0,
        a.ptr,
        pat16.as_ptr() as *const c_void,
        16,
        size,
        0,
        ptr::null(),
        &mut ev
    ));
    let fill = Event(ev);
    assert_eq!(fill.command_type(), CL_COMMAND_SVM_MEMFILL);
    let pat2 = [0x12u8, 0x34];
    let at = unsafe { (a.ptr as *mut u8).add(100) } as *mut c_void;
    ok!(clEnqueueSVMMemFill(
        q.0,
        at,
        pat2.as_ptr() as *const c_void,
        2,
        50,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    // Copy all of `a` into `b`, then a host array out of `b`.
    ok!(clEnqueueSVMMemcpy(
        q.0,
        CL_FALSE,
        b.ptr,
        a.ptr,
        size,
        0,
        ptr::null(),
        &mut ev
    ));
    let copy = Event(ev);
    assert_eq!(copy.command_type(), CL_COMMAND_SVM_MEMCPY);
    let mut host = vec![0u8; size];
    ok!(clEnqueueSVMMemcpy(
        q.0,
        CL_TRUE,
        host.as_mut_ptr() as *mut c_void,
        b.ptr,
        size,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    let want: Vec<u8> = (0..size)
        .map(|i| {
            if (100..150).contains(&i) {
                pat2[i % 2]
            } else {
                pat16[i % 16]
            }
        })
        .collect();
    assert_eq!(host, want);
    ok!(clEnqueueSVMMap(
        q.0,
        CL_FALSE,
        CL_MAP_READ,
        b.ptr,
        size,
        0,
        ptr::null(),
        &mut ev
    ));
    let map = Event(ev);
    assert_eq!(map.command_type(), CL_COMMAND_SVM_MAP);
    ok!(clEnqueueSVMUnmap(q.0, b.ptr, 0, ptr::null(), &mut ev));
    let unmap = Event(ev);
    assert_eq!(unmap.command_type(), CL_COMMAND_SVM_UNMAP);
    let ptrs = [a.ptr as *const c_void, b.ptr as *const c_void];
    let sizes = [0usize, 16];
    ok!(clEnqueueSVMMigrateMem(
        q.0,
        2,
        ptrs.as_ptr(),
        sizes.as_ptr(),
        0,
        0,
        ptr::null(),
        &mut ev
    ));
    let migrate = Event(ev);
    assert_eq!(migrate.command_type(), CL_COMMAND_SVM_MIGRATE_MEM);
    ok!(clEnqueueSVMMigrateMem(
        q.0,
        1,
        ptrs.as_ptr(),
        ptr::null(),
        CL_MIGRATE_MEM_OBJECT_HOST,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    q.finish();
    // Free through the queue with a callback: it receives the queue, the pointers and the
    // user data, and frees them itself.
    extern "C" fn free_them(queue: cl_command_queue, n: cl_uint, ptrs: *mut *mut c_void, user: *mut c_void) {
        let seen = unsafe { &mut *(user as *mut Vec<usize>) };
        seen.push(queue as usize);
        let list = unsafe { std::slice::from_raw_parts(ptrs, n as usize) };
        seen.extend(list.iter().map(|&p| p as usize));
        let ctx = seen[0] as cl_context;
        for &p in list {
            unsafe { clSVMFree(ctx, p) };
        }
    }
    let c = Svm::new(&ctx, 0, 64);
    let d = Svm::new(&ctx, 0, 64);
    let mut seen: Vec<usize> = vec![ctx.0 as usize];
    let to_free = [c.ptr as *const c_void, d.ptr as *const c_void];
    ok!(clEnqueueSVMFree(
        q.0,
        2,
        to_free.as_ptr(),
        Some(free_them),
        &mut seen as *mut Vec<usize> as *mut c_void,
        0,
        ptr::null(),
        &mut ev
    ));
    let free = Event(ev);
    free.wait();
    assert_eq!(free.command_type(), CL_COMMAND_SVM_FREE);
    assert_eq!(seen, vec![ctx.0 as usize, q.0 as usize, c.ptr as usize, d.ptr as usize]);
    std::mem::forget((c, d));
    // Without a callback Clift frees them; nothing to free is fine too.
    let e = Svm::new(&ctx, 0, 64);
    let list = [e.ptr as *const c_void];
    ok!(clEnqueueSVMFree(
        q.0,
        1,
        list.as_ptr(),
        None,
        ptr::null_mut(),
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    std::mem::forget(e);
    ok!(clEnqueueSVMFree(
        q.0,
        0,
        ptr::null(),
        None,
        ptr::null_mut(),
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    q.finish();
}

/// A kernel waiting behind a user event uses an allocation the host frees meanwhile: the
/// memory (4 MiB: its own mapping, which a use after free would fault on) stays until the
/// kernel is done, and the kernel reads what the host wrote.
#[test]
fn freeing_svm_memory_in_use_by_a_queued_kernel_is_deferred() {
    if !has(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("svm.cl", OPTIONS);
    let k = p.kernel("scale");
    let n = 1 << 20;
    let input = unsafe { clSVMAlloc(ctx.0, CL_MEM_SVM_FINE_GRAIN_BUFFER, n * 4, 0) };
    assert!(!input.is_null());
    let values = unsafe { std::slice::from_raw_parts_mut(input as *mut i32, n) };
    for (i, v) in values.iter_mut().enumerate() {
        *v = (i % 1000) as i32;
    }
    let out = ctx.buffer(n * 4);
    set_svm_arg(&k, 0, input);
    k.arg_mem(1, &out);
    let gate = ctx.user_event();
    let global = [n];
    ok!(clEnqueueNDRangeKernel(
        q.0,
        k.0,
        1,
        ptr::null(),
        global.as_ptr(),
        ptr::null(),
        1,
        &gate.0,
        ptr::null_mut()
    ));
    unsafe { clSVMFree(ctx.0, input) };
    gate.set_status(CL_COMPLETE);
    q.finish();
    let got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
    assert!(got.iter().enumerate().all(|(i, &v)| v == (i % 1000) as i32 * 3 + 1));
}

#[test]
fn svm_alloc_refuses_bad_requests_with_null() {
    if !has(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let alloc = |flags: cl_svm_mem_flags, size: usize, align: cl_uint| unsafe { clSVMAlloc(ctx.0, flags, size, align) };
    let max: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    // "CL_MEM_SVM_ATOMICS ... is valid only if CL_MEM_SVM_FINE_GRAIN_BUFFER is specified".
    assert!(alloc(CL_MEM_SVM_ATOMICS, 64, 0).is_null());
    // Two access flags, unknown flags, buffer-only flags.
    assert!(alloc(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0).is_null());
    assert!(alloc(CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0).is_null());
    assert!(alloc(1 << 40, 64, 0).is_null());
    assert!(alloc(CL_MEM_USE_HOST_PTR, 64, 0).is_null());
    // "size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE".
    assert!(alloc(0, 0, 0).is_null());
    assert!(alloc(0, max as usize + 1, 0).is_null());
    // "alignment is not a power of two".
    assert!(alloc(0, 64, 3).is_null());
    assert!(alloc(0, 64, 96).is_null());
    // An invalid context.
    assert!(unsafe { clSVMAlloc(ptr::null_mut(), 0, 64, 0) }.is_null());
    // Good alignments are honoured; 0 means the largest data type (long16, 128 bytes).
    for align in [0u32, 1, 8, 128, 4096] {
        let p = alloc(CL_MEM_READ_WRITE, 100, align);
        assert!(!p.is_null());
        assert_eq!(p as usize % (align.max(128) as usize), 0, "alignment {align}");
        unsafe { clSVMFree(ctx.0, p) };
    }
    // The memory starts zeroed and is the host's to use.
    let p = alloc(CL_MEM_SVM_FINE_GRAIN_BUFFER, 256, 0);
    let bytes = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, 256) };
    assert!(bytes.iter().all(|&b| b == 0));
    bytes.fill(7);
    // Freeing NULL, a pointer not from clSVMAlloc and a pointer into the middle of an
    // allocation does nothing; the allocation stays usable.
    let mut host = [0u8; 16];
    unsafe {
        clSVMFree(ctx.0, ptr::null_mut());
        clSVMFree(ctx.0, host.as_mut_ptr() as *mut c_void);
        clSVMFree(ctx.0, (p as *mut u8).add(8) as *mut c_void);
    }
    let b = ctx.buffer_with(CL_MEM_USE_HOST_PTR, 256, p);
    assert_eq!(mem_info::<cl_bool>(b.0, CL_MEM_USES_SVM_POINTER), CL_TRUE);
    drop(b);
    unsafe { clSVMFree(ctx.0, p) };
}

#[test]
fn svm_commands_and_kernel_calls_check_their_arguments() {
    if !has(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let a = Svm::new(&ctx, 0, 256);
    let none = ptr::null_mut::<c_void>();
    let at = |off: usize| unsafe { (a.ptr as *mut u8).add(off) } as *mut c_void;
    // Memcpy: NULL pointers, overlapping ranges (either way, and the same range).
    check!(
        clEnqueueSVMMemcpy(q.0, CL_TRUE, none, a.ptr, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMemcpy(q.0, CL_TRUE, a.ptr, none, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMemcpy(q.0, CL_TRUE, at(8), a.ptr, 16, 0, ptr::null(), ptr::null_mut()),
        CL_MEM_COPY_OVERLAP
    );
    check!(
        clEnqueueSVMMemcpy(q.0, CL_TRUE, a.ptr, at(8), 16, 0, ptr::null(), ptr::null_mut()),
        CL_MEM_COPY_OVERLAP
    );
    check!(
        clEnqueueSVMMemcpy(q.0, CL_TRUE, a.ptr, a.ptr, 16, 0, ptr::null(), ptr::null_mut()),
        CL_MEM_COPY_OVERLAP
    );
    // Adjacent ranges do not overlap.
    ok!(clEnqueueSVMMemcpy(
        q.0,
        CL_TRUE,
        at(16),
        a.ptr,
        16,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    // Bad wait lists.
    check!(
        clEnqueueSVMMemcpy(q.0, CL_TRUE, at(16), a.ptr, 16, 1, ptr::null(), ptr::null_mut()),
        CL_INVALID_EVENT_WAIT_LIST
    );
    // Fill: NULL pointer or pattern, pattern sizes, misaligned pointer, size not a multiple.
    let pat = [0u8; 256];
    let pp = pat.as_ptr() as *const c_void;
    check!(
        clEnqueueSVMMemFill(q.0, none, pp, 4, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMemFill(q.0, a.ptr, ptr::null(), 4, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    for bad in [0usize, 3, 256] {
        check!(
            clEnqueueSVMMemFill(q.0, a.ptr, pp, bad, 768, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE
        );
    }
    check!(
        clEnqueueSVMMemFill(q.0, at(2), pp, 4, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMemFill(q.0, a.ptr, pp, 4, 18, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    ok!(clEnqueueSVMMemFill(
        q.0,
        a.ptr,
        pp,
        128,
        256,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    // Map: NULL, size 0, bad flags; unmap NULL.
    check!(
        clEnqueueSVMMap(q.0, CL_TRUE, CL_MAP_READ, none, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMap(q.0, CL_TRUE, CL_MAP_READ, a.ptr, 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMap(
            q.0,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
            a.ptr,
            16,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMap(q.0, CL_TRUE, 1 << 9, a.ptr, 16, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMUnmap(q.0, none, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    // Migrate: no pointers, bad flags, a range beyond the allocation or outside any.
    let ptrs = [a.ptr as *const c_void];
    check!(
        clEnqueueSVMMigrateMem(q.0, 0, ptrs.as_ptr(), ptr::null(), 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMigrateMem(q.0, 1, ptr::null(), ptr::null(), 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMigrateMem(
            q.0,
            1,
            ptrs.as_ptr(),
            ptr::null(),
            1 << 7,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMMigrateMem(
            q.0,
            1,
            ptrs.as_ptr(),
            [257usize].as_ptr(),
            0,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let host = [0u8; 64];
    let outside = [host.as_ptr() as *const c_void];
    check!(
        clEnqueueSVMMigrateMem(
            q.0,
            1,
            outside.as_ptr(),
            [16usize].as_ptr(),
            0,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    // Free: count and list disagree.
    check!(
        clEnqueueSVMFree(q.0, 0, ptrs.as_ptr(), None, none, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueSVMFree(q.0, 1, ptr::null(), None, none, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    // An invalid queue comes first.
    check!(
        clEnqueueSVMUnmap(ptr::null_mut(), a.ptr, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_COMMAND_QUEUE
    );
    check!(
        clEnqueueSVMMemcpy(ptr::null_mut(), CL_TRUE, none, none, 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_COMMAND_QUEUE
    );

    // Kernel calls: only global and constant pointers take SVM pointers.
    let p = ctx.built_source("kernel_object.cl", "");
    let k = p.kernel("store_id");
    check!(clSetKernelArgSVMPointer(k.0, 1, a.ptr), CL_INVALID_ARG_VALUE);
    check!(clSetKernelArgSVMPointer(k.0, 2, a.ptr), CL_INVALID_ARG_INDEX);
    ok!(clSetKernelArgSVMPointer(k.0, 0, at(128)));
    // Exec info: sizes that do not fit the parameter, NULL values, unknown names.
    let yes: cl_bool = CL_TRUE;
    let yp = &yes as *const cl_bool as *const c_void;
    check!(
        clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 5, ptrs.as_ptr() as *const c_void),
        CL_INVALID_VALUE
    );
    check!(
        clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 8, ptr::null()),
        CL_INVALID_VALUE
    );
    check!(
        clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 8, yp),
        CL_INVALID_VALUE
    );
    check!(
        clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 4, ptr::null()),
        CL_INVALID_VALUE
    );
    check!(clSetKernelExecInfo(k.0, 0x1234, 4, yp), CL_INVALID_VALUE);
    ok!(clSetKernelExecInfo(
        k.0,
        CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
        4,
        yp
    ));
    // The kernel runs with its SVM argument: store_id writes get_global_id + bias.
    let bias = 5i32;
    k.arg(1, &bias);
    q.run(&k, &[], &[4], &[]);
    assert_eq!(&a.ints(36)[32..36], &[5, 6, 7, 8]);
}
