//! Programs from IL: clCreateProgramWithIL (and its errors for malformed SPIR-V),
//! clBuildProgram / clCompileProgram / clLinkProgram (imports resolved against exports across
//! modules), build status, log and options (unknown options rejected), clGetProgramInfo (IL,
//! kernel names, binaries) and clCreateProgramWithBinary, clGetProgramBuildInfo,
//! clSetProgramSpecializationConstant for every spec-constant type, build callbacks, and a
//! module that fails the OpenCL environment's validation.
//! Kernels: kernels/barrier.cl, kernels/link_lib.cl, kernels/link_main.cl (-> .spvasm),
//! kernels/spec_const.spvasm, kernels/spec_const64.spvasm, kernels/shader.spvasm.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::ffi::CString;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

const BARRIER_KERNELS: [&str; 5] = ["in_function", "many_live", "nested", "reduce", "reverse"];

fn sorted_names(p: &Program) -> Vec<String> {
    let s = bytes_to_string(&p.info_bytes(CL_PROGRAM_KERNEL_NAMES).unwrap());
    let mut v: Vec<String> = s.split(';').map(str::to_string).collect();
    v.sort();
    v
}

/// Runs barrier.cl's `reverse` with one group of 16 and checks the result.
fn run_reverse(ctx: &Context, p: &Program) {
    let q = ctx.queue();
    let a: Vec<i32> = (0..16).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(64);
    let k = p.kernel("reverse");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[16], &[16]);
    let o: Vec<i32> = from_bytes(&q.read(&bo, 0, 64));
    assert_eq!(o, (0..16).rev().collect::<Vec<i32>>());
}

#[test]
fn device_reports_spirv() {
    let il = device_string(CL_DEVICE_IL_VERSION);
    assert!(il.contains("SPIR-V_1."), "CL_DEVICE_IL_VERSION = {il:?}");
    let ils = device_bytes(device(), CL_DEVICE_ILS_WITH_VERSION).unwrap();
    assert!(!ils.is_empty(), "CL_DEVICE_ILS_WITH_VERSION is empty");
}

#[test]
fn il_program_info_before_and_after_build() {
    if !isolate("il_program_info_before_and_after_build") {
        return;
    }
    let ctx = Context::new();
    let il = spirv("barrier");
    let p = ctx.program_il(&il);
    assert_eq!(
        p.info_bytes(CL_PROGRAM_IL).unwrap(),
        il,
        "CL_PROGRAM_IL returns the IL given"
    );
    assert_eq!(p.info::<cl_uint>(CL_PROGRAM_REFERENCE_COUNT), 1);
    assert_eq!(p.info::<cl_context>(CL_PROGRAM_CONTEXT), ctx.0);
    assert_eq!(p.info::<cl_uint>(CL_PROGRAM_NUM_DEVICES), 1);
    assert_eq!(
        bytes_to_vec::<cl_device_id>(&p.info_bytes(CL_PROGRAM_DEVICES).unwrap()),
        vec![device()]
    );
    assert_eq!(p.build_status(), CL_BUILD_NONE);
    assert_eq!(
        p.info_bytes(CL_PROGRAM_NUM_KERNELS).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE),
        "NUM_KERNELS before a build"
    );
    assert_eq!(
        p.info_bytes(CL_PROGRAM_KERNEL_NAMES).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE)
    );
    let src = bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap());
    assert_eq!(src, "", "an IL program has no source");

    assert_eq!(
        p.build("-cl-mad-enable -cl-fast-relaxed-math"),
        CL_SUCCESS,
        "{}",
        p.build_log()
    );
    assert_eq!(p.build_status(), CL_BUILD_SUCCESS);
    let opts = bytes_to_string(&p.build_bytes(CL_PROGRAM_BUILD_OPTIONS).unwrap());
    assert_eq!(opts, "-cl-mad-enable -cl-fast-relaxed-math");
    bytes_to_string(&p.build_bytes(CL_PROGRAM_BUILD_LOG).unwrap());
    let bt: cl_program_binary_type =
        info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(p.0, device(), CL_PROGRAM_BINARY_TYPE, s, v, r) })
            .unwrap();
    assert_eq!(bt, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(p.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 5);
    assert_eq!(sorted_names(&p), BARRIER_KERNELS);
    assert_eq!(p.info_bytes(CL_PROGRAM_IL).unwrap(), il);
    // A second build of the same program, with no kernels attached, is fine.
    assert_eq!(p.build(""), CL_SUCCESS);
    run_reverse(&ctx, &p);
    // Building while a kernel is attached: CL_INVALID_OPERATION.
    let _k = p.kernel("reduce");
    assert_eq!(p.build(""), CL_INVALID_OPERATION);
}

#[test]
fn create_with_il_errors() {
    if !isolate("create_with_il_errors") {
        return;
    }
    let ctx = Context::new();
    let il = spirv("barrier");
    let mut err = 0;
    let p = unsafe { clCreateProgramWithIL(ctx.0, ptr::null(), 16, &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateProgramWithIL(NULL)");
    let p = unsafe { clCreateProgramWithIL(ctx.0, il.as_ptr() as *const c_void, 0, &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateProgramWithIL(length 0)");
    let p = unsafe { clCreateProgramWithIL(ptr::null_mut(), il.as_ptr() as *const c_void, il.len(), &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "clCreateProgramWithIL(NULL context)");
    // Garbage: no SPIR-V magic.
    assert_eq!(
        ctx.try_program_il(&pattern(4096, 77)).err(),
        Some(CL_INVALID_VALUE),
        "garbage IL"
    );
    assert_eq!(ctx.try_program_il(b"not spir-v at all").err(), Some(CL_INVALID_VALUE));
    // The magic followed by garbage.
    let mut g = il[..20].to_vec();
    g.extend(pattern(400, 78));
    assert_eq!(ctx.try_program_il(&g).err(), Some(CL_INVALID_VALUE), "header + garbage");
    // Truncated mid-instruction, and a length that is not a multiple of 4.
    let cut = il.len() / 2;
    assert_eq!(
        ctx.try_program_il(&il[..cut - cut % 4 + 4 - 4 + 2]).err(),
        Some(CL_INVALID_VALUE)
    );
    assert_eq!(ctx.try_program_il(&il[..il.len() - 3]).err(), Some(CL_INVALID_VALUE));
    // A word count of zero in the first instruction.
    let mut z = il.clone();
    z[20..24].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(ctx.try_program_il(&z).err(), Some(CL_INVALID_VALUE), "zero word count");
    // And the intact module is still accepted.
    ctx.program_il(&il);
}

#[test]
fn module_failing_validation_fails_build_with_log() {
    if !isolate("module_failing_validation_fails_build_with_log") {
        return;
    }
    let ctx = Context::new();
    let il = spirv("shader");
    let p = ctx.program_il(&il);
    assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    let log = p.build_log();
    assert!(!log.trim().is_empty(), "the build log names the problem");
    // The program stays queryable.
    assert_eq!(p.info_bytes(CL_PROGRAM_IL).unwrap(), il);
    assert_eq!(p.info::<cl_uint>(CL_PROGRAM_REFERENCE_COUNT), 1);
    assert_eq!(p.try_kernel("main").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    assert_eq!(
        p.info_bytes(CL_PROGRAM_NUM_KERNELS).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE)
    );
    // A second attempt fails the same way.
    assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE);
}

#[test]
fn unknown_options_are_rejected() {
    if !isolate("unknown_options_are_rejected") {
        return;
    }
    let ctx = Context::new();
    let dev = device();
    let p = ctx.program_il(&spirv("barrier"));
    assert_eq!(p.build("-no-such-option"), CL_INVALID_BUILD_OPTIONS);
    assert_eq!(p.build("-cl-fast-relaxed-math --bogus"), CL_INVALID_BUILD_OPTIONS);
    assert_eq!(
        p.build("-cl-std=CL3.0 -cl-denorms-are-zero -cl-no-signed-zeros -w"),
        CL_SUCCESS,
        "{}",
        p.build_log()
    );
    let c = ctx.program_il(&spirv("barrier"));
    let bad = CString::new("-frobnicate").unwrap();
    check!(
        clCompileProgram(
            c.0,
            1,
            &dev,
            bad.as_ptr(),
            0,
            ptr::null(),
            ptr::null(),
            None,
            ptr::null_mut()
        ),
        CL_INVALID_COMPILER_OPTIONS
    );
    ok!(clCompileProgram(
        c.0,
        1,
        &dev,
        ptr::null(),
        0,
        ptr::null(),
        ptr::null(),
        None,
        ptr::null_mut()
    ));
    let mut err = 0;
    let bad = CString::new("-no-such-linker-option").unwrap();
    let l = unsafe { clLinkProgram(ctx.0, 1, &dev, bad.as_ptr(), 1, &c.0, None, ptr::null_mut(), &mut err) };
    assert!(l.is_null());
    check_err!(err, CL_INVALID_LINKER_OPTIONS, "clLinkProgram(unknown option)");
}

#[test]
fn compile_and_link_resolves_imports() {
    if !isolate("compile_and_link_resolves_imports") {
        return;
    }
    let ctx = Context::new();
    let dev = device();
    let lib = ctx.program_il(&spirv("link_lib"));
    let main = ctx.program_il(&spirv("link_main"));
    for p in [&lib, &main] {
        ok!(clCompileProgram(
            p.0,
            1,
            &dev,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null(),
            None,
            ptr::null_mut()
        ));
        assert_eq!(p.build_status(), CL_BUILD_SUCCESS);
        let bt: cl_program_binary_type =
            info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(p.0, dev, CL_PROGRAM_BINARY_TYPE, s, v, r) }).unwrap();
        assert_eq!(bt, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    }
    // A library first, then the executable from main + library.
    let mut err = 0;
    let opt = CString::new("-create-library").unwrap();
    let libp =
        Program(unsafe { clLinkProgram(ctx.0, 1, &dev, opt.as_ptr(), 1, &lib.0, None, ptr::null_mut(), &mut err) });
    check_err!(err, CL_SUCCESS, "clLinkProgram(-create-library)");
    let bt: cl_program_binary_type =
        info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(libp.0, dev, CL_PROGRAM_BINARY_TYPE, s, v, r) }).unwrap();
    assert_eq!(bt, CL_PROGRAM_BINARY_TYPE_LIBRARY);
    let inputs = [main.0, libp.0];
    let exe = Program(unsafe {
        clLinkProgram(
            ctx.0,
            1,
            &dev,
            ptr::null(),
            2,
            inputs.as_ptr(),
            None,
            ptr::null_mut(),
            &mut err,
        )
    });
    let log = if exe.0.is_null() {
        String::new()
    } else {
        exe.build_log()
    };
    check_err!(err, CL_SUCCESS, format!("clLinkProgram(main + library); log:\n{log}"));
    assert_eq!(exe.build_status(), CL_BUILD_SUCCESS);
    assert_eq!(exe.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 1);
    assert_eq!(
        bytes_to_string(&exe.info_bytes(CL_PROGRAM_KERNEL_NAMES).unwrap()),
        "linked"
    );
    let q = ctx.queue();
    let a: Vec<i32> = (-20..44).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(a.len() * 4);
    let k = exe.kernel("linked");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[a.len()], &[]);
    let o: Vec<i32> = from_bytes(&q.read(&bo, 0, a.len() * 4));
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(o[i], x * 3 + 1 + 1000, "linked({x})");
    }
    // Linking the compiled objects directly works too.
    let inputs = [lib.0, main.0];
    let exe2 = Program(unsafe {
        clLinkProgram(
            ctx.0,
            1,
            &dev,
            ptr::null(),
            2,
            inputs.as_ptr(),
            None,
            ptr::null_mut(),
            &mut err,
        )
    });
    check_err!(err, CL_SUCCESS, "clLinkProgram(lib + main objects)");
    exe2.kernel("linked");
    // main alone has unresolved imports: linking it into an executable fails.
    let l = unsafe { clLinkProgram(ctx.0, 1, &dev, ptr::null(), 1, &main.0, None, ptr::null_mut(), &mut err) };
    check_err!(
        err,
        CL_LINK_PROGRAM_FAILURE,
        "clLinkProgram(main with unresolved imports)"
    );
    if !l.is_null() {
        let l = Program(l);
        assert_eq!(l.build_status(), CL_BUILD_ERROR);
        assert!(
            !l.build_log().trim().is_empty(),
            "the link log names the missing symbols"
        );
    }
    // Building main from IL directly fails the same way.
    let direct = ctx.program_il(&spirv("link_main"));
    assert_eq!(direct.build(""), CL_BUILD_PROGRAM_FAILURE);
    assert!(!direct.build_log().trim().is_empty());
}

#[test]
fn binaries_round_trip_through_create_with_binary() {
    if !isolate("binaries_round_trip_through_create_with_binary") {
        return;
    }
    let ctx = Context::new();
    let p = ctx.built_program("barrier", &spirv("barrier"));
    let sizes: Vec<size_t> = bytes_to_vec(&p.info_bytes(CL_PROGRAM_BINARY_SIZES).unwrap());
    assert_eq!(sizes.len(), 1);
    assert!(sizes[0] > 0);
    let mut bin = vec![0u8; sizes[0]];
    let mut ptrs = [bin.as_mut_ptr()];
    ok!(clGetProgramInfo(
        p.0,
        CL_PROGRAM_BINARIES,
        std::mem::size_of_val(&ptrs),
        ptrs.as_mut_ptr() as *mut c_void,
        ptr::null_mut()
    ));
    let dev = device();
    let len = bin.len();
    let bp = bin.as_ptr();
    let mut status = 99;
    let mut err = 0;
    let p2 = Program(unsafe { clCreateProgramWithBinary(ctx.0, 1, &dev, &len, &bp, &mut status, &mut err) });
    check_err!(err, CL_SUCCESS, "clCreateProgramWithBinary");
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(p2.build(""), CL_SUCCESS, "{}", p2.build_log());
    assert_eq!(sorted_names(&p2), BARRIER_KERNELS);
    run_reverse(&ctx, &p2);
    // Its own binary is the same size again.
    let sizes2: Vec<size_t> = bytes_to_vec(&p2.info_bytes(CL_PROGRAM_BINARY_SIZES).unwrap());
    assert_eq!(sizes2[0], sizes[0]);
    // Garbage and a truncated binary: CL_INVALID_BINARY with binary_status.
    for junk in [pattern(256, 5), bin[..bin.len() / 2].to_vec()] {
        let len = junk.len();
        let jp = junk.as_ptr();
        let mut status = 99;
        let p = unsafe { clCreateProgramWithBinary(ctx.0, 1, &dev, &len, &jp, &mut status, &mut err) };
        assert!(p.is_null());
        check_err!(err, CL_INVALID_BINARY, "clCreateProgramWithBinary(junk)");
        assert_eq!(status, CL_INVALID_BINARY);
    }
}

/// Builds spec_const.spvasm after `set`, runs it, returns its 9 outputs.
fn spec_run(set: impl FnOnce(&Program)) -> Vec<u64> {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.program_il(&spirv("spec_const"));
    set(&p);
    assert_eq!(p.build(""), CL_SUCCESS, "{}", p.build_log());
    let bo = ctx.buffer(9 * 8);
    let k = p.kernel("spec");
    k.arg_mem(0, &bo);
    q.run(&k, &[], &[1], &[]);
    from_bytes(&q.read(&bo, 0, 72))
}

fn set_spec<T: Copy>(p: &Program, id: cl_uint, v: T) {
    ok!(clSetProgramSpecializationConstant(
        p.0,
        id,
        std::mem::size_of::<T>(),
        &v as *const T as *const c_void
    ));
}

#[test]
fn specialization_constants_every_type() {
    if !isolate("specialization_constants_every_type") {
        return;
    }
    let defaults = spec_run(|_| {});
    assert_eq!(
        defaults,
        [1, 0, 7, 300, 70000, 1 << 40, 1.5f32.to_bits() as u64, 0, 70005],
        "default values"
    );
    let set = spec_run(|p| {
        set_spec(p, 0, 0u8); // bool: 1 byte, zero is false
        set_spec(p, 1, 42u8); // any non-zero is true
        set_spec(p, 2, 200u8);
        set_spec(p, 3, 0xBEEFu16);
        set_spec(p, 4, 1u32); // first value, overridden below
        set_spec(p, 4, 0xFFFF_FFF0u32);
        set_spec(p, 5, 0x0123_4567_89AB_CDEFu64);
        set_spec(p, 6, -0.125f32);
    });
    assert_eq!(
        set,
        [
            0,
            1,
            200,
            0xBEEF,
            0xFFFF_FFF0,
            0x0123_4567_89AB_CDEF,
            (-0.125f32).to_bits() as u64,
            0,
            0xFFFF_FFF5
        ],
        "values set with clSetProgramSpecializationConstant"
    );
    // Errors.
    let ctx = Context::new();
    let p = ctx.program_il(&spirv("spec_const"));
    let v = 0u32;
    check!(
        clSetProgramSpecializationConstant(p.0, 99, 4, &v as *const u32 as *const c_void),
        CL_INVALID_SPEC_ID
    );
    check!(
        clSetProgramSpecializationConstant(p.0, 4, 8, &v as *const u32 as *const c_void),
        CL_INVALID_VALUE
    );
    check!(
        clSetProgramSpecializationConstant(p.0, 0, 4, &v as *const u32 as *const c_void),
        CL_INVALID_VALUE
    );
    check!(
        clSetProgramSpecializationConstant(p.0, 4, 4, ptr::null()),
        CL_INVALID_VALUE
    );
    check!(
        clSetProgramSpecializationConstant(ptr::null_mut(), 4, 4, &v as *const u32 as *const c_void),
        CL_INVALID_PROGRAM
    );
}

#[test]
fn specialization_constant_double() {
    if !isolate("specialization_constant_double") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    for value in [None, Some(1e300f64), Some(-0.0)] {
        let p = ctx.program_il(&spirv("spec_const64"));
        if let Some(v) = value {
            set_spec(&p, 7, v);
        }
        assert_eq!(p.build(""), CL_SUCCESS, "{}", p.build_log());
        let bo = ctx.buffer(8);
        let k = p.kernel("spec64");
        k.arg_mem(0, &bo);
        q.run(&k, &[], &[1], &[]);
        let o: Vec<u64> = from_bytes(&q.read(&bo, 0, 8));
        assert_eq!(o[0], value.unwrap_or(2.25).to_bits(), "double spec constant {value:?}");
    }
}

static CALLS: AtomicUsize = AtomicUsize::new(0);
static STATUS_SEEN: AtomicUsize = AtomicUsize::new(usize::MAX);

unsafe extern "C" fn build_done(p: cl_program, user: *mut c_void) {
    assert_eq!(user as usize, 0xC0FFEE);
    let st: cl_build_status =
        info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(p, device(), CL_PROGRAM_BUILD_STATUS, s, v, r) })
            .unwrap_or(-99);
    STATUS_SEEN.store(st as isize as usize, Ordering::SeqCst);
    CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn build_callbacks_are_called_once() {
    if !isolate("build_callbacks_are_called_once") {
        return;
    }
    let ctx = Context::new();
    let dev = device();
    let p = ctx.program_il(&spirv("barrier"));
    let err = unsafe { clBuildProgram(p.0, 1, &dev, ptr::null(), Some(build_done), 0xC0FFEE as *mut c_void) };
    assert_eq!(err, CL_SUCCESS);
    assert!(
        wait_until(EVENTUALLY, || CALLS.load(Ordering::SeqCst) >= 1),
        "build callback never called"
    );
    assert_eq!(
        STATUS_SEEN.load(Ordering::SeqCst) as isize as cl_build_status,
        CL_BUILD_SUCCESS
    );
    // When the build has finished, the kernels are there.
    assert!(wait_until(EVENTUALLY, || p.build_status() == CL_BUILD_SUCCESS));
    p.kernel("reduce");
    // A failing build also calls back, with CL_BUILD_ERROR.
    let bad = ctx.program_il(&spirv("shader"));
    let err = unsafe { clBuildProgram(bad.0, 1, &dev, ptr::null(), Some(build_done), 0xC0FFEE as *mut c_void) };
    assert!(
        err == CL_SUCCESS || err == CL_BUILD_PROGRAM_FAILURE,
        "{}",
        err_name(err)
    );
    assert!(
        wait_until(EVENTUALLY, || CALLS.load(Ordering::SeqCst) >= 2),
        "failed-build callback never called"
    );
    assert_eq!(
        STATUS_SEEN.load(Ordering::SeqCst) as isize as cl_build_status,
        CL_BUILD_ERROR
    );
    // A compile with a callback.
    let c = ctx.program_il(&spirv("link_lib"));
    let err = unsafe {
        clCompileProgram(
            c.0,
            1,
            &dev,
            ptr::null(),
            0,
            ptr::null(),
            ptr::null(),
            Some(build_done),
            0xC0FFEE as *mut c_void,
        )
    };
    assert_eq!(err, CL_SUCCESS);
    assert!(
        wait_until(EVENTUALLY, || CALLS.load(Ordering::SeqCst) >= 3),
        "compile callback never called"
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(CALLS.load(Ordering::SeqCst), 3, "each callback exactly once");
}
