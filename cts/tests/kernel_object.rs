//! Kernel objects against what the rest of the API and OpenCL C expect of them (issue 13):
//! - a buffer set as a kernel argument and then released is destroyed at once (its destructor
//!   callbacks run without waiting for the kernel), a command already enqueued keeps it until
//!   the command ends, and enqueueing the kernel again without a new value fails with
//!   CL_INVALID_KERNEL_ARGS;
//! - the SVM and sub-group entry points answer CL_INVALID_OPERATION for a valid kernel when the
//!   device reports no SVM / no sub-groups, before they look at their other arguments; with
//!   SVM (Clift reports it), they check the argument index and the parameter instead;
//! - CL_KERNEL_ATTRIBUTES gives the attributes written in the source, and an empty string for
//!   kernels of a program created from IL;
//! - every CLK_* channel order and data type constant of a listed image format is usable from
//!   OpenCL C with the API's value.
//!
//! Kernels: kernels/source/kernel_object.cl, kernels/source/image_constants.cl,
//! kernels/barrier.spvasm.

use cts::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_destruction(_m: cl_mem, user: *mut c_void) {
    DESTROYED.fetch_add(user as usize, Ordering::SeqCst);
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    from_bytes::<i32>(bytes)
}

#[test]
fn released_buffer_argument() {
    // In a child process: the defect hung the caller forever.
    if !isolate("released_buffer_argument") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("kernel_object.cl", "");
    let k = prog.kernel("store_id");
    k.arg(1, &7i32);

    // Set as an argument, then released: destroyed now, while the kernel lives on.
    let b = ctx.buffer(64);
    ok!(clSetMemObjectDestructorCallback(
        b.0,
        Some(count_destruction),
        3usize as *mut c_void
    ));
    k.arg_mem(0, &b);
    drop(b);
    assert_eq!(
        DESTROYED.load(Ordering::SeqCst),
        3,
        "destructor callback did not run at release"
    );
    // Its value is gone: the kernel cannot be enqueued until the argument is set again.
    assert_eq!(q.try_nd_range(&k, &[], &[16], &[]), CL_INVALID_KERNEL_ARGS);
    q.finish();

    // An enqueued command keeps its own reference until it ends.
    let gate = ctx.user_event();
    let out = ctx.buffer(64);
    ok!(clSetMemObjectDestructorCallback(
        out.0,
        Some(count_destruction),
        30usize as *mut c_void
    ));
    k.arg_mem(0, &out);
    let global = [16usize];
    let waits = [gate.0];
    let (n, list) = wait_list(&waits);
    ok!(clEnqueueNDRangeKernel(
        q.0,
        k.0,
        1,
        ptr::null(),
        global.as_ptr(),
        ptr::null(),
        n,
        list,
        ptr::null_mut()
    ));
    // A read that runs after the kernel (in-order queue) and keeps the result.
    let mut result = vec![0u8; 64];
    let read = q.read_async(&out, 0, &mut result, &[]);
    drop(out);
    assert_eq!(
        DESTROYED.load(Ordering::SeqCst),
        3,
        "buffer destroyed under an enqueued command"
    );
    gate.set_status(CL_COMPLETE);
    read.wait();
    q.finish();
    drop(read);
    assert!(
        wait_until(EVENTUALLY, || DESTROYED.load(Ordering::SeqCst) == 33),
        "destructor callback did not run after the command ended"
    );
    assert_eq!(ints(&result), (7..23).collect::<Vec<i32>>());

    // Setting a live buffer makes the kernel enqueueable again.
    let again = ctx.buffer(64);
    k.arg_mem(0, &again);
    q.run(&k, &[], &[16], &[]);
    assert_eq!(ints(&q.read(&again, 0, 64)), (7..23).collect::<Vec<i32>>());
}

#[test]
fn svm_and_sub_group_calls_on_a_device_without_them() {
    let ctx = Context::new();
    let prog = ctx.built_source("kernel_object.cl", "");
    let k = prog.kernel("store_id");
    let svm: cl_device_svm_capabilities = device_info(CL_DEVICE_SVM_CAPABILITIES);
    let sub_groups: cl_uint = device_info(CL_DEVICE_MAX_NUM_SUB_GROUPS);
    if svm == 0 {
        // "CL_INVALID_OPERATION if no devices in the context associated with kernel support
        // SVM", checked before the argument index and the parameter.
        check!(clSetKernelArgSVMPointer(k.0, 0, ptr::null()), CL_INVALID_OPERATION);
        check!(clSetKernelArgSVMPointer(k.0, 99, ptr::null()), CL_INVALID_OPERATION);
        check!(
            clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()),
            CL_INVALID_OPERATION
        );
        check!(clSetKernelExecInfo(k.0, 0xdead, 3, ptr::null()), CL_INVALID_OPERATION);
    } else {
        // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index"; an empty
        // CL_KERNEL_EXEC_INFO_SVM_PTRS set is size 0 and NULL; "CL_INVALID_VALUE if param_name
        // is not valid".
        check!(clSetKernelArgSVMPointer(k.0, 99, ptr::null()), CL_INVALID_ARG_INDEX);
        check!(clSetKernelArgSVMPointer(k.0, 0, ptr::null()), CL_SUCCESS);
        check!(
            clSetKernelExecInfo(k.0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()),
            CL_SUCCESS
        );
        check!(clSetKernelExecInfo(k.0, 0xdead, 3, ptr::null()), CL_INVALID_VALUE);
    }
    // An invalid kernel comes first.
    check!(
        clSetKernelArgSVMPointer(ptr::null_mut(), 0, ptr::null()),
        CL_INVALID_KERNEL
    );
    check!(
        clSetKernelExecInfo(ptr::null_mut(), CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()),
        CL_INVALID_KERNEL
    );
    let mut size = usize::MAX;
    let query = |kernel: cl_kernel, dev: cl_device_id, size: &mut usize| unsafe {
        clGetKernelSubGroupInfo(
            kernel,
            dev,
            CL_KERNEL_MAX_NUM_SUB_GROUPS,
            0,
            ptr::null(),
            std::mem::size_of::<usize>(),
            size as *mut usize as *mut c_void,
            ptr::null_mut(),
        )
    };
    if sub_groups == 0 {
        assert_eq!(query(k.0, device(), &mut size), CL_INVALID_OPERATION);
        // The device may be left out when the kernel's program has one device.
        assert_eq!(query(k.0, ptr::null_mut(), &mut size), CL_INVALID_OPERATION);
        assert_eq!(size, usize::MAX, "nothing written");
    }
    assert_eq!(query(ptr::null_mut(), device(), &mut size), CL_INVALID_KERNEL);
    assert_eq!(
        query(k.0, 1 as cl_device_id, &mut size),
        CL_INVALID_DEVICE,
        "a device that is not the kernel's"
    );
}

fn attributes(prog: &Program, name: &str) -> String {
    bytes_to_string(&prog.kernel(name).info_bytes(CL_KERNEL_ATTRIBUTES).unwrap())
}

#[test]
fn kernel_attributes_as_written() {
    let ctx = Context::new();
    let prog = ctx.built_source("kernel_object.cl", "");
    assert_eq!(
        attributes(&prog, "with_reqd_and_hint"),
        "reqd_work_group_size(4, 1, 1) vec_type_hint(int4)"
    );
    assert_eq!(attributes(&prog, "with_size_hint"), "work_group_size_hint(8,2,1)");
    assert_eq!(
        attributes(&prog, "with_one_group"),
        "vec_type_hint(double2) reqd_work_group_size(2, 2, 1)"
    );
    assert_eq!(attributes(&prog, "without_attributes"), "");
    assert_eq!(attributes(&prog, "store_id"), "");
    // The attribute is also in effect.
    let k = prog.kernel("with_reqd_and_hint");
    let reqd: [usize; 3] = k.work_group_info(CL_KERNEL_COMPILE_WORK_GROUP_SIZE);
    assert_eq!(reqd, [4, 1, 1]);

    // "For kernels not created from OpenCL C source and the clCreateProgramWithSource API
    // call the string returned from this query will be empty."
    let text = kernel_text("barrier.spvasm");
    let opts = jit::spirv::AsmOptions {
        version: spvasm_version(&text),
        ..Default::default()
    };
    let words = jit::spirv::assemble(&text, opts).expect("assemble barrier.spvasm");
    let il = ctx.program_il(&jit::spirv::words_to_bytes(&words));
    assert_eq!(il.build(""), CL_SUCCESS);
    let names = bytes_to_string(&il.info_bytes(CL_PROGRAM_KERNEL_NAMES).unwrap());
    for name in names.split(';').filter(|n| !n.is_empty()) {
        assert_eq!(attributes(&il, name), "", "{name} from IL");
    }
}

#[test]
fn image_format_constants_in_opencl_c() {
    if device_info::<cl_bool>(CL_DEVICE_IMAGE_SUPPORT) == 0 {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("image_constants.cl", "");
    let k = prog.kernel("constants");
    let out = ctx.buffer(64 * 4);
    k.arg_mem(0, &out);
    q.run(&k, &[], &[1], &[]);
    let want: Vec<i32> = [
        CL_R,
        CL_A,
        CL_RG,
        CL_RA,
        CL_RGB,
        CL_RGBA,
        CL_BGRA,
        CL_ARGB,
        CL_INTENSITY,
        CL_LUMINANCE,
        CL_Rx,
        CL_RGx,
        CL_RGBx,
        CL_DEPTH,
        CL_sRGB,
        CL_sRGBx,
        CL_sRGBA,
        CL_sBGRA,
        CL_ABGR,
        CL_SNORM_INT8,
        CL_SNORM_INT16,
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_UNORM_SHORT_565,
        CL_UNORM_SHORT_555,
        CL_UNORM_INT_101010,
        CL_UNORM_INT_101010_2,
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
        CL_HALF_FLOAT,
        CL_FLOAT,
    ]
    .iter()
    .map(|&v| v as i32)
    .collect();
    let got = ints(&q.read(&out, 0, want.len() * 4));
    // Every order and type of a format listed for some image type must be defined.
    let mut listed = Vec::new();
    for ty in [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D,
    ] {
        for f in ctx.supported_image_formats(CL_MEM_READ_WRITE, ty) {
            listed.push(f.image_channel_order as i32);
            listed.push(f.image_channel_data_type as i32);
        }
    }
    assert!(
        listed.contains(&(CL_UNORM_INT_101010_2 as i32)),
        "CL_UNORM_INT_101010_2 is listed"
    );
    for (g, w) in got.iter().zip(&want) {
        if listed.contains(w) {
            assert_eq!(g, w, "CLK_ constant of listed value {w:#x}");
        } else {
            assert!(*g == *w || *g == -1, "CLK_ constant of {w:#x} reads {g:#x}");
        }
    }

    // A listed CL_UNORM_INT_101010_2 image reports its format through the constants.
    let formats = ctx.supported_image_formats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let Some(fmt) = formats
        .iter()
        .find(|f| f.image_channel_data_type == CL_UNORM_INT_101010_2)
    else {
        return;
    };
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0], 0, 0, ptr::null_mut());
    let img = ctx.image(CL_MEM_READ_ONLY, fmt, &desc, ptr::null_mut());
    let k = prog.kernel("format_of");
    k.arg_mem(0, &img);
    k.arg_mem(1, &out);
    q.run(&k, &[], &[1], &[]);
    let got = ints(&q.read(&out, 0, 12));
    assert_eq!(
        got,
        vec![fmt.image_channel_order as i32, CL_UNORM_INT_101010_2 as i32, 1]
    );
}
