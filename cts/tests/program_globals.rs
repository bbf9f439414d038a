//! OpenCL C 2.0 program-scope global variables and the generic address space (issue 17):
//! - the device limits (`CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE` at least the spec's 64 KiB,
//!   `CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE`), the feature in
//!   `CL_DEVICE_OPENCL_C_FEATURES` and its macro in OpenCL C;
//! - initialised and uninitialised (zeroed) `global` variables read and written by kernels,
//!   persisting across enqueues and shared by every kernel of the program, one copy per
//!   program (two programs from one source do not share);
//! - a `static global` variable in a function, counting across work-items and enqueues;
//! - `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`;
//! - `to_global`, `to_local`, `to_private` and `get_fence` on generic pointers into global,
//!   local, private memory and a program-scope variable, NULL where the pointer is local and
//!   the cast is not, or the converse.
//!
//! Kernels: kernels/source/program_globals.cl, kernels/source/generic_address_space.cl.

use cts::*;

const OPTIONS: &str = "-cl-std=CL3.0";

fn supported() -> bool {
    let max: size_t = device_info(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE);
    if max == 0 {
        eprintln!("skipped: the device has no program-scope global variables");
    }
    max > 0
}

#[test]
fn device_limits_and_feature() {
    let max: size_t = device_info(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE);
    let preferred: size_t = device_info(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE);
    let features = device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES).unwrap_or_default();
    let names: Vec<String> = features
        .chunks_exact(std::mem::size_of::<cl_name_version>())
        .map(|c| {
            let nv = unsafe { std::ptr::read_unaligned(c.as_ptr() as *const cl_name_version) };
            bytes_to_string(&nv.name)
        })
        .collect();
    let listed = names.iter().any(|n| n == "__opencl_c_program_scope_global_variables");
    assert_eq!(
        listed,
        max > 0,
        "the feature and CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE agree"
    );
    if wanted_platform_name() == "Clift" {
        assert!(listed);
    }
    if max > 0 {
        assert!(max >= 64 * 1024, "the spec's minimum is 64 KiB, got {max}");
        assert!(preferred > 0);
        let ctx = Context::new();
        let q = ctx.queue();
        let p = ctx.built_source("program_globals.cl", OPTIONS);
        let k = p.kernel("feature_macro");
        let out = ctx.buffer(4);
        k.arg_mem(0, &out);
        q.run(&k, &[], &[1], &[]);
        assert_eq!(from_bytes::<i32>(&q.read(&out, 0, 4)), vec![1], "the macro is defined");
    }
}

/// (total, uninitialised[0..3], table[0..4]) as a kernel of `p` reads them.
fn state(ctx: &Context, q: &Queue, p: &Program) -> (Vec<i32>, Vec<f32>) {
    let k = p.kernel("read_state");
    let ints = ctx.buffer(16);
    let floats = ctx.buffer(16);
    k.arg_mem(0, &ints);
    k.arg_mem(1, &floats);
    q.run(&k, &[], &[8], &[]);
    (from_bytes(&q.read(&ints, 0, 16)), from_bytes(&q.read(&floats, 0, 16)))
}

#[test]
fn globals_persist_across_enqueues_and_kernels() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("program_globals.cl", OPTIONS);
    // Initial values: the initializers, zero for the uninitialised array.
    assert_eq!(state(&ctx, &q, &p), (vec![5, 0, 0, 0], vec![1.5, 2.5, 3.5, 4.5]));
    let add = p.kernel("add_total");
    for v in [3i32, 4, -2] {
        add.arg(0, &v);
        q.run(&add, &[], &[16], &[]);
    }
    let write = p.kernel("write_state");
    write.arg(0, &2.0f32);
    q.run(&write, &[], &[8], &[]);
    // One kernel's writes are the next kernel's reads.
    assert_eq!(state(&ctx, &q, &p), (vec![10, 7, 8, 9], vec![3.0, 5.0, 7.0, 9.0]));
    // A second program from the same source has its own copy.
    let other = ctx.built_source("program_globals.cl", OPTIONS);
    assert_eq!(state(&ctx, &q, &other), (vec![5, 0, 0, 0], vec![1.5, 2.5, 3.5, 4.5]));
    // And the first keeps its values.
    assert_eq!(state(&ctx, &q, &p).0[0], 10);
}

#[test]
fn static_global_in_a_function_counts_across_work_items_and_enqueues() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("program_globals.cl", OPTIONS);
    let k = p.kernel("take_tickets");
    let n = 300;
    let out = ctx.buffer(n * 4);
    k.arg_mem(0, &out);
    let mut all = Vec::new();
    for _ in 0..2 {
        q.run(&k, &[], &[n], &[]);
        let mut got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
        got.sort_unstable();
        all.extend(got);
    }
    all.sort_unstable();
    assert_eq!(all, (100..100 + 2 * n as i32).collect::<Vec<_>>(), "every ticket once");
}

#[test]
fn build_global_variable_total_size() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let p = ctx.built_source("program_globals.cl", OPTIONS);
    let mut size: size_t = 0;
    ok!(clGetProgramBuildInfo(
        p.0,
        device(),
        CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
        std::mem::size_of::<size_t>(),
        &mut size as *mut size_t as *mut c_void,
        std::ptr::null_mut()
    ));
    // total (4) + table (16) + uninitialised (12) + the static ticket counter (4).
    assert!(size >= 36, "CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE = {size}");
    let max: size_t = device_info(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE);
    assert!(size <= max);
    if wanted_platform_name() == "Clift" {
        assert_eq!(size, 36);
    }
    // A program without global variables uses none.
    let none = ctx.built_source("kernel_object.cl", "");
    ok!(clGetProgramBuildInfo(
        none.0,
        device(),
        CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
        std::mem::size_of::<size_t>(),
        &mut size as *mut size_t as *mut c_void,
        std::ptr::null_mut()
    ));
    assert_eq!(size, 0);
}

#[test]
fn generic_pointers_know_their_address_space() {
    let generic: cl_bool = device_info(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT);
    if generic == CL_FALSE || !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("generic_address_space.cl", OPTIONS);
    let k = p.kernel("classify_pointers");
    let buffer = ctx.buffer_from(as_bytes(&[41i32; 4]));
    let out = ctx.buffer(21 * 4);
    k.arg_mem(0, &buffer);
    k.arg_local(1, 64);
    k.arg_mem(2, &out);
    q.run(&k, &[], &[4], &[4]);
    let r: Vec<i32> = from_bytes(&q.read(&out, 0, 21 * 4));
    let (global_fence, local_fence) = (r[19], r[20]);
    assert!(global_fence != local_fence && global_fence != 0 && local_fence != 0);
    // A buffer: to_global only; its fence is the global one.
    assert_eq!(&r[0..2], &[1, 0], "to_global/to_local of a global pointer");
    assert_eq!(r[3], global_fence);
    // Local memory: to_local only; the local fence.
    assert_eq!(&r[4..7], &[0, 1, 0], "to_global/to_local/to_private of a local pointer");
    assert_eq!(r[7], local_fence);
    // A private variable converts to private and is not local.
    assert_eq!(&r[9..11], &[0, 1], "to_local/to_private of a private pointer");
    assert!(r[11] == global_fence || r[11] == local_fence || r[11] == 0 || r[11] == global_fence | local_fence);
    // A program-scope variable is global memory.
    assert_eq!(&r[12..14], &[1, 0], "to_global/to_local of a program-scope variable");
    assert_eq!(r[15], global_fence);
    // Reads through the converted pointers.
    assert_eq!(&r[16..19], &[41, 2, 3]);
}
