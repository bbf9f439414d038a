//! Fuzzes the OpenCL API path a SPIR-V module takes in an application: clCreateProgramWithIL,
//! clBuildProgram (with one of a few option sets, picked by the input's length), the build log
//! on failure and, on success, every kernel with its info and argument-info queries, the
//! program binary and a second program built from that binary. The entry points catch panics
//! and return error codes; here a panic hook aborts instead, so a caught panic is a finding too.
#![no_main]

use clift::api::*;
use libfuzzer_sys::fuzz_target;
use opencl_sys::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

struct Cl {
    ctx: cl_context,
    dev: cl_device_id,
}
// The handles are plain pointers into the runtime's thread-safe objects.
unsafe impl Send for Cl {}
unsafe impl Sync for Cl {}

fn cl() -> &'static Cl {
    static CL: OnceLock<Cl> = OnceLock::new();
    CL.get_or_init(|| unsafe {
        // No on-disk cache: every input is built from scratch.
        std::env::set_var("CLIFT_CACHE", "0");
        std::panic::set_hook(Box::new(|info| {
            eprintln!("panic behind the C boundary: {info}");
            std::process::abort();
        }));
        let mut platform: cl_platform_id = null_mut();
        assert_eq!(clGetPlatformIDs(1, &mut platform, null_mut()), CL_SUCCESS);
        let mut dev: cl_device_id = null_mut();
        assert_eq!(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &mut dev, null_mut()), CL_SUCCESS);
        let mut err = 0;
        let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        Cl { ctx, dev }
    })
}

const OPTIONS: [&[u8]; 4] = [
    b"\0",
    b"-cl-fast-relaxed-math\0",
    b"-cl-opt-disable\0",
    b"-cl-denorms-are-zero -cl-mad-enable -cl-kernel-arg-info\0",
];

/// A query's value, sized by a first call; empty if the query fails.
unsafe fn query(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Vec<u8> {
    let mut size = 0usize;
    if f(0, null_mut(), &mut size) != CL_SUCCESS || size > 1 << 30 {
        return Vec::new();
    }
    let mut v = vec![0u8; size];
    if f(size, v.as_mut_ptr() as *mut c_void, null_mut()) != CL_SUCCESS {
        v.clear();
    }
    v
}

unsafe fn exercise_kernels(prog: cl_program, dev: cl_device_id) {
    let mut n: cl_uint = 0;
    if clCreateKernelsInProgram(prog, 0, null_mut(), &mut n) != CL_SUCCESS || n == 0 {
        return;
    }
    let mut kernels = vec![null_mut(); n as usize];
    if clCreateKernelsInProgram(prog, n, kernels.as_mut_ptr(), null_mut()) != CL_SUCCESS {
        return;
    }
    for &k in &kernels {
        for q in [CL_KERNEL_FUNCTION_NAME, CL_KERNEL_ATTRIBUTES, CL_KERNEL_NUM_ARGS] {
            query(|s, v, r| clGetKernelInfo(k, q, s, v, r));
        }
        for q in [CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_PRIVATE_MEM_SIZE, CL_KERNEL_LOCAL_MEM_SIZE] {
            query(|s, v, r| clGetKernelWorkGroupInfo(k, dev, q, s, v, r));
        }
        let mut args: cl_uint = 0;
        clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 4, &mut args as *mut _ as *mut c_void, null_mut());
        for a in 0..args.min(64) {
            for q in [
                CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                CL_KERNEL_ARG_ACCESS_QUALIFIER,
                CL_KERNEL_ARG_TYPE_NAME,
                CL_KERNEL_ARG_TYPE_QUALIFIER,
                CL_KERNEL_ARG_NAME,
            ] {
                query(|s, v, r| clGetKernelArgInfo(k, a, q, s, v, r));
            }
        }
        let clone = clCloneKernel(k, null_mut());
        if !clone.is_null() {
            clReleaseKernel(clone);
        }
        clReleaseKernel(k);
    }
}

/// The program's binary, built again as a new program.
unsafe fn rebuild_from_binary(prog: cl_program, c: &Cl) {
    let mut size = 0usize;
    let sz = std::mem::size_of::<usize>();
    if clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sz, &mut size as *mut _ as *mut c_void, null_mut())
        != CL_SUCCESS
        || size == 0
        || size > 1 << 30
    {
        return;
    }
    let mut bin = vec![0u8; size];
    let mut ptr = bin.as_mut_ptr();
    if clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sz, &mut ptr as *mut _ as *mut c_void, null_mut()) != CL_SUCCESS {
        return;
    }
    let mut status = 0;
    let mut err = 0;
    let bptr = bin.as_ptr();
    let p2 = clCreateProgramWithBinary(c.ctx, 1, &c.dev, &size, &bptr as *const _ as *mut _, &mut status, &mut err);
    if p2.is_null() {
        return;
    }
    clBuildProgram(p2, 0, null(), null(), None, null_mut());
    clReleaseProgram(p2);
}

fuzz_target!(|data: &[u8]| {
    let c = cl();
    unsafe {
        let mut err = 0;
        let prog = clCreateProgramWithIL(c.ctx, data.as_ptr() as *const c_void, data.len(), &mut err);
        if prog.is_null() {
            assert_ne!(err, CL_SUCCESS);
            return;
        }
        let options = OPTIONS[data.len() % OPTIONS.len()];
        let built = clBuildProgram(prog, 0, null(), options.as_ptr() as *const _, None, null_mut());
        query(|s, v, r| clGetProgramBuildInfo(prog, c.dev, CL_PROGRAM_BUILD_LOG, s, v, r));
        query(|s, v, r| clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, s, v, r));
        if built == CL_SUCCESS {
            exercise_kernels(prog, c.dev);
            rebuild_from_binary(prog, c);
        }
        assert_eq!(clReleaseProgram(prog), CL_SUCCESS);
    }
});
