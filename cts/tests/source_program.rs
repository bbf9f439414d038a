//! OpenCL C programs (issue 4): clCreateProgramWithSource (string counts, NUL-terminated and
//! explicit lengths, errors), clBuildProgram with every compiler option of the specification
//! (preprocessor, warnings, math, optimization, -cl-std, -cl-kernel-arg-info,
//! -cl-uniform-work-group-size), unknown options at each stage, the OpenCL C feature and
//! extension macros against the device's queries, build logs with clang's diagnostics, build
//! callbacks, and kernel argument information of source programs.
//! Kernels: kernels/source/*.cl (and the headers defs.h, proto.h, disk_header.h);
//! kernels/barrier.spvasm for the IL comparison.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::ffi::CString;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `kernel` of `p` with a single `global int*` argument of `n` ints (preset to -99) over
/// `global` work-items, and returns the buffer.
fn run_ints(ctx: &Context, p: &Program, kernel: &str, n: usize, global: usize) -> Vec<i32> {
    let q = ctx.queue();
    let init = vec![-99i32; n];
    let b = ctx.buffer_from(as_bytes(&init));
    let k = p.kernel(kernel);
    k.arg_mem(0, &b);
    q.run(&k, &[], &[global], &[]);
    from_bytes(&q.read(&b, 0, n * 4))
}

fn is_clift() -> bool {
    wanted_platform_name() == "Clift"
}

/// The `OpenCL C` versions of CL_DEVICE_OPENCL_C_ALL_VERSIONS as (major, minor).
fn all_c_versions() -> Vec<(u32, u32)> {
    let v: Vec<cl_name_version> = bytes_to_vec(&device_bytes(device(), CL_DEVICE_OPENCL_C_ALL_VERSIONS).unwrap());
    v.iter()
        .map(|nv| (nv.version >> 22, (nv.version >> 12) & 0x3ff))
        .collect()
}

// `cl_char` is `u8` on some targets.
#[allow(clippy::unnecessary_cast)]
fn name_of(nv: &cl_name_version) -> String {
    let bytes: Vec<u8> = nv.name.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn compiler_and_linker_are_available() {
    assert_eq!(device_info::<cl_bool>(CL_DEVICE_COMPILER_AVAILABLE), CL_TRUE);
    assert_eq!(device_info::<cl_bool>(CL_DEVICE_LINKER_AVAILABLE), CL_TRUE);
}

#[test]
fn create_with_source_string_variants() {
    if !isolate("create_with_source_string_variants") {
        return;
    }
    let ctx = Context::new();
    let full = source_text("version.cl");
    // One NUL-terminated string, lengths NULL.
    let c = CString::new(full.clone()).unwrap();
    let p = ctx.try_program_sources(&[c.as_ptr()], None).unwrap();
    assert_eq!(bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap()), full);
    assert_eq!(p.build_status(), CL_BUILD_NONE);
    assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_NONE);
    assert_eq!(
        p.info_bytes(CL_PROGRAM_NUM_KERNELS).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE),
        "NUM_KERNELS before a build"
    );
    // CL_PROGRAM_IL of a source program: size 0.
    let mut sz: size_t = 99;
    ok!(clGetProgramInfo(p.0, CL_PROGRAM_IL, 0, ptr::null_mut(), &mut sz));
    assert_eq!(sz, 0, "CL_PROGRAM_IL of a source program");
    assert_eq!(p.build("-cl-std=CL1.2"), CL_SUCCESS, "{}", p.build_log());
    assert_eq!(run_ints(&ctx, &p, "version", 6, 4)[2..], [1, 2, 3, 4]);

    // Three pieces with explicit lengths taken from one buffer with no NUL between them (each
    // string ends where its length says, not at a NUL).
    let bytes = full.as_bytes();
    let (a, rest) = bytes.split_at(bytes.len() / 3);
    let (b, c3) = rest.split_at(rest.len() / 2);
    let ptrs = [
        a.as_ptr() as *const c_char,
        b.as_ptr() as *const c_char,
        c3.as_ptr() as *const c_char,
    ];
    let p = ctx
        .try_program_sources(&ptrs, Some(&[a.len(), b.len(), c3.len()]))
        .unwrap();
    assert_eq!(bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap()), full);
    assert_eq!(p.build(""), CL_SUCCESS, "{}", p.build_log());
    assert_eq!(run_ints(&ctx, &p, "version", 5, 3)[2..], [1, 2, 3]);

    // Mixed: a zero length means that string is NUL-terminated; a non-zero length may stop
    // before a NUL further on (the rest of that string is ignored).
    let head = CString::new("// head comment\n").unwrap();
    let tail = format!("{full}JUNK THAT MUST NOT BE READ");
    let tail_c = CString::new(tail).unwrap();
    let ptrs = [head.as_ptr(), tail_c.as_ptr()];
    let p = ctx.try_program_sources(&ptrs, Some(&[0, full.len()])).unwrap();
    assert_eq!(
        bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap()),
        format!("// head comment\n{full}")
    );
    assert_eq!(p.build(""), CL_SUCCESS, "{}", p.build_log());
    assert_eq!(run_ints(&ctx, &p, "version", 3, 1)[2], 1);

    // Many one-line strings, NUL-terminated.
    let lines: Vec<CString> = full.lines().map(|l| CString::new(format!("{l}\n")).unwrap()).collect();
    let ptrs: Vec<*const c_char> = lines.iter().map(|l| l.as_ptr()).collect();
    let p = ctx.try_program_sources(&ptrs, None).unwrap();
    let joined: String = full.lines().map(|l| format!("{l}\n")).collect();
    assert_eq!(bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap()), joined);
    assert_eq!(p.build(""), CL_SUCCESS, "{}", p.build_log());
    assert_eq!(p.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 1);
    assert_eq!(
        bytes_to_string(&p.info_bytes(CL_PROGRAM_KERNEL_NAMES).unwrap()),
        "version"
    );
    assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(p.build_status(), CL_BUILD_SUCCESS);
}

#[test]
fn create_with_source_errors() {
    if !isolate("create_with_source_errors") {
        return;
    }
    let ctx = Context::new();
    let s = CString::new("kernel void k(global int *o) { o[0] = 1; }").unwrap();
    let mut err = 0;
    // count 0.
    let p = unsafe { clCreateProgramWithSource(ctx.0, 0, &s.as_ptr(), ptr::null(), &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateProgramWithSource(count 0)");
    // strings NULL.
    let p = unsafe { clCreateProgramWithSource(ctx.0, 1, ptr::null_mut(), ptr::null(), &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_VALUE, "clCreateProgramWithSource(strings NULL)");
    // One entry NULL.
    assert_eq!(
        ctx.try_program_sources(&[s.as_ptr(), ptr::null()], None).err(),
        Some(CL_INVALID_VALUE),
        "an entry of strings is NULL"
    );
    assert_eq!(
        ctx.try_program_sources(&[ptr::null()], Some(&[5])).err(),
        Some(CL_INVALID_VALUE),
        "a NULL entry with a length"
    );
    // Invalid context.
    let p = unsafe { clCreateProgramWithSource(ptr::null_mut(), 1, &s.as_ptr(), ptr::null(), &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "clCreateProgramWithSource(NULL context)");
    // errcode_ret may be NULL.
    let p = unsafe { clCreateProgramWithSource(ctx.0, 1, &s.as_ptr(), ptr::null(), ptr::null_mut()) };
    assert!(!p.is_null());
    drop(Program(p));
    // The empty source is a valid program object (building it gives no kernels).
    let e = CString::new("").unwrap();
    let p = ctx.try_program_sources(&[e.as_ptr()], None).unwrap();
    assert_eq!(bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap()), "");
}

#[test]
fn define_options() {
    if !isolate("define_options") {
        return;
    }
    let ctx = Context::new();
    let cases: [(&str, [i32; 3]); 6] = [
        ("", [0, 0, -1]),
        ("-D FLAG", [0, 1, 1]),
        ("-DFLAG", [0, 1, 1]),
        ("-D OFFSET=42", [42, 0, -1]),
        ("-D OFFSET=-7 -D FLAG=5", [-7, 1, 5]),
        ("-DOFFSET=(3*4) -D FLAG", [12, 1, 1]),
    ];
    for (opts, want) in cases {
        let p = ctx.built_source("defines.cl", opts);
        assert_eq!(run_ints(&ctx, &p, "defines", 3, 1), want, "options {opts:?}");
        assert_eq!(
            bytes_to_string(&p.build_bytes(CL_PROGRAM_BUILD_OPTIONS).unwrap()),
            opts,
            "CL_PROGRAM_BUILD_OPTIONS"
        );
    }
}

#[test]
fn include_directory_option() {
    if !isolate("include_directory_option") {
        return;
    }
    let ctx = Context::new();
    let dir = TempDir::new("inc");
    std::fs::write(dir.path().join("disk_header.h"), source_text("disk_header.h")).unwrap();
    // Without -I the header is not found: a build failure with clang's message.
    let p = ctx.source_program("include_disk.cl");
    assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE);
    assert!(p.build_log().contains("disk_header.h"), "log: {}", p.build_log());
    // "-I dir", "-Idir", and "-I \"dir\"" (the spec allows the quotes).
    let d = dir.path().display().to_string();
    for opts in [format!("-I {d}"), format!("-I{d}"), format!("-I \"{d}\"")] {
        let p = ctx.source_program("include_disk.cl");
        let err = p.build(&opts);
        assert_eq!(
            err,
            CL_SUCCESS,
            "options {opts:?}: {}\n{}",
            err_name(err),
            p.build_log()
        );
        assert_eq!(run_ints(&ctx, &p, "from_disk", 2, 2), [4100, 4101], "options {opts:?}");
    }
}

#[test]
fn warning_options() {
    if !isolate("warning_options") {
        return;
    }
    let ctx = Context::new();
    // By default the warning is in the log and the build succeeds.
    let p = ctx.built_source("warning.cl", "");
    let log = p.build_log();
    assert!(log.contains("cts-source-warning"), "the warning is in the log:\n{log}");
    assert!(log.contains("warning"), "{log}");
    assert_eq!(run_ints(&ctx, &p, "warned", 1, 1), [7]);
    // -w: no warning.
    let p = ctx.built_source("warning.cl", "-w");
    assert!(
        !p.build_log().contains("cts-source-warning"),
        "-w leaves the warning out:\n{}",
        p.build_log()
    );
    assert_eq!(run_ints(&ctx, &p, "warned", 1, 1), [7]);
    // -Werror: the warning is an error.
    let p = ctx.source_program("warning.cl");
    assert_eq!(p.build("-Werror"), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    assert!(p.build_log().contains("cts-source-warning"), "{}", p.build_log());
    assert_eq!(p.try_kernel("warned").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    // -Werror on a clean program is fine.
    let p = ctx.built_source("defines.cl", "-Werror");
    assert_eq!(run_ints(&ctx, &p, "defines", 3, 1), [0, 0, -1]);
    // And with clCompileProgram: CL_COMPILE_PROGRAM_FAILURE.
    let p = ctx.source_program("warning.cl");
    assert_eq!(p.compile("-Werror", &[]), CL_COMPILE_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
}

/// Runs math.cl's kernel on a few ordinary values and checks the exact results.
fn check_math(ctx: &Context, p: &Program, opts: &str) {
    let q = ctx.queue();
    let a: Vec<f32> = vec![1.0, -2.5, 3.0, 1024.0, 0.25, -0.75, 100.0, 6.5];
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(a.len() * 16);
    let k = p.kernel("math");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[a.len()], &[]);
    let o: Vec<f32> = from_bytes(&q.read(&bo, 0, a.len() * 16));
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(
            &o[4 * i..4 * i + 4],
            &[x * 2.0 + 1.0, x / 4.0, x.abs(), x * 0.5],
            "math({x}) with {opts:?}"
        );
    }
}

#[test]
fn math_and_optimization_options() {
    if !isolate("math_and_optimization_options") {
        return;
    }
    let ctx = Context::new();
    let single = device_info::<cl_device_fp_config>(CL_DEVICE_SINGLE_FP_CONFIG);
    for opts in [
        "-cl-single-precision-constant",
        "-cl-denorms-are-zero",
        "-cl-opt-disable",
        "-cl-mad-enable",
        "-cl-no-signed-zeros",
        "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only",
        "-cl-fast-relaxed-math",
        "-cl-kernel-arg-info",
        "-cl-no-subgroup-ifp",
        "-cl-std=CL3.0 -cl-uniform-work-group-size",
        "-cl-mad-enable -cl-no-signed-zeros -cl-finite-math-only -cl-opt-disable -cl-denorms-are-zero",
    ] {
        let p = ctx.built_source("math.cl", opts);
        check_math(&ctx, &p, opts);
    }
    // "-cl-fp32-correctly-rounded-divide-sqrt ... can only be specified if the
    // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT is set in CL_DEVICE_SINGLE_FP_CONFIG"; "clBuildProgram
    // or clCompileProgram will fail to compile the program" otherwise.
    let opts = "-cl-fp32-correctly-rounded-divide-sqrt";
    let p = ctx.source_program("math.cl");
    let err = p.build(opts);
    if single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT != 0 {
        assert_eq!(err, CL_SUCCESS, "{opts}: {}", p.build_log());
        check_math(&ctx, &p, opts);
    } else {
        assert_ne!(
            err, CL_SUCCESS,
            "{opts} must fail: CL_DEVICE_SINGLE_FP_CONFIG ({single:#x}) lacks CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT"
        );
    }
    // -cl-fast-relaxed-math defines __FAST_RELAXED_MATH__; nothing else does.
    let p = ctx.built_source("version.cl", "-cl-fast-relaxed-math");
    assert_eq!(run_ints(&ctx, &p, "version", 3, 1)[1], 1, "__FAST_RELAXED_MATH__");
    let p = ctx.built_source("version.cl", "-cl-unsafe-math-optimizations -cl-finite-math-only");
    assert_eq!(
        run_ints(&ctx, &p, "version", 3, 1)[1],
        0,
        "__FAST_RELAXED_MATH__ without the option"
    );
}

#[test]
fn opencl_c_version_option() {
    if !isolate("opencl_c_version_option") {
        return;
    }
    let ctx = Context::new();
    let versions = all_c_versions();
    assert!(versions.contains(&(1, 2)), "OpenCL C 1.2 is required: {versions:?}");
    assert!(
        versions.contains(&(3, 0)),
        "OpenCL 3.0 requires OpenCL C 3.0: {versions:?}"
    );
    // No -cl-std: "the highest OpenCL C 1.x language version supported".
    let highest_1x = versions.iter().filter(|v| v.0 == 1).max().unwrap();
    let p = ctx.built_source("version.cl", "");
    assert_eq!(
        run_ints(&ctx, &p, "version", 3, 1)[0] as u32,
        highest_1x.0 * 100 + highest_1x.1 * 10,
        "__OPENCL_C_VERSION__ without -cl-std"
    );
    let c_version = device_string(CL_DEVICE_OPENCL_C_VERSION);
    for (maj, min) in [(1u32, 1u32), (1, 2), (2, 0), (3, 0)] {
        let opts = format!("-cl-std=CL{maj}.{min}");
        let p = ctx.source_program("version.cl");
        let err = p.build(&opts);
        if versions.contains(&(maj, min)) {
            assert_eq!(err, CL_SUCCESS, "{opts}: {}", p.build_log());
            assert_eq!(
                run_ints(&ctx, &p, "version", 3, 1)[0] as u32,
                maj * 100 + min * 10,
                "__OPENCL_C_VERSION__ with {opts}"
            );
        } else {
            // "Calls to clBuildProgram or clCompileProgram with the -cl-std=CL2.0 option will
            // fail to compile the program for any devices with CL_DEVICE_OPENCL_C_VERSION equal
            // to OpenCL C 1.2 or earlier and when CL_DEVICE_OPENCL_C_ALL_VERSIONS does not
            // include OpenCL C 2.0."
            assert_ne!(
                err, CL_SUCCESS,
                "{opts} must fail: not in CL_DEVICE_OPENCL_C_ALL_VERSIONS {versions:?} \
                 (CL_DEVICE_OPENCL_C_VERSION {c_version:?})"
            );
        }
    }
}

#[test]
fn uniform_work_group_size_option() {
    if !isolate("uniform_work_group_size_option") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let nonuniform = device_info::<cl_bool>(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT) == CL_TRUE;
    let buf = ctx.buffer(64 * 4);
    let run = |p: &Program, global: usize, local: usize| {
        let k = p.kernel("ids");
        k.arg_mem(0, &buf);
        let err = q.try_nd_range(&k, &[], &[global], &[local]);
        q.finish();
        err
    };
    // With -cl-uniform-work-group-size a non-divisible local size fails, a divisible one runs.
    let p = ctx.built_source("uniform.cl", "-cl-std=CL3.0 -cl-uniform-work-group-size");
    assert_eq!(run(&p, 10, 4), CL_INVALID_WORK_GROUP_SIZE, "10 items in groups of 4");
    assert_eq!(run(&p, 12, 4), CL_SUCCESS);
    let o: Vec<i32> = from_bytes(&q.read(&buf, 0, 48));
    assert_eq!(o, (0..12).collect::<Vec<i32>>());
    // OpenCL C 3.0 without it: non-uniform groups where the device supports them.
    let p = ctx.built_source("uniform.cl", "-cl-std=CL3.0");
    if nonuniform {
        assert_eq!(run(&p, 10, 4), CL_SUCCESS);
        let o: Vec<i32> = from_bytes(&q.read(&buf, 0, 40));
        assert_eq!(o, (0..10).collect::<Vec<i32>>());
    }
    // "If the program was created with clCreateProgramWithSource, then the program must be
    // compiled for OpenCL C 2.0 or newer" to support non-uniform work-groups: an OpenCL C 1.2
    // build requires uniform ones.
    let p = ctx.built_source("uniform.cl", "-cl-std=CL1.2");
    assert_eq!(
        run(&p, 10, 4),
        CL_INVALID_WORK_GROUP_SIZE,
        "non-uniform groups for an OpenCL C 1.2 program"
    );
    let p = ctx.built_source("uniform.cl", "");
    assert_eq!(
        run(&p, 10, 4),
        CL_INVALID_WORK_GROUP_SIZE,
        "non-uniform groups for a program built without -cl-std (OpenCL C 1.x)"
    );
}

#[test]
fn unknown_options_are_rejected_at_each_stage() {
    if !isolate("unknown_options_are_rejected_at_each_stage") {
        return;
    }
    let ctx = Context::new();
    let p = ctx.source_program("defines.cl");
    for bad in [
        "-no-such-option",
        "-cl-fast-relaxed-math --bogus",
        "-cl-std=CL9.9",
        "-cl-mad-enable -Dx -frobnicate",
    ] {
        assert_eq!(p.build(bad), CL_INVALID_BUILD_OPTIONS, "clBuildProgram({bad:?})");
    }
    // Still buildable afterwards.
    assert_eq!(p.build("-D FLAG"), CL_SUCCESS, "{}", p.build_log());
    assert_eq!(run_ints(&ctx, &p, "defines", 3, 1), [0, 1, 1]);

    let c = ctx.source_program("lib_offset.cl");
    let proto = ctx.source_program("proto.h");
    for bad in ["-frobnicate", "-cl-std=CL0.5", "-cl-mad-enable --bogus"] {
        assert_eq!(
            c.compile(bad, &[("proto.h", &proto)]),
            CL_INVALID_COMPILER_OPTIONS,
            "clCompileProgram({bad:?})"
        );
    }
    assert_eq!(c.compile("", &[("proto.h", &proto)]), CL_SUCCESS, "{}", c.build_log());
    for bad in ["-no-such-linker-option", "-create-library -bogus"] {
        let (l, err) = ctx.link(bad, &[&c]);
        assert!(l.is_none(), "a link refused for its options returns NULL");
        check_err!(err, CL_INVALID_LINKER_OPTIONS, format!("clLinkProgram({bad:?})"));
    }
}

#[test]
fn feature_and_extension_macros_match_the_device() {
    if !isolate("feature_and_extension_macros_match_the_device") {
        return;
    }
    let text = source_text("features.cl");
    let names: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// CHECK "))
        .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
        .collect();
    let features: Vec<String> =
        bytes_to_vec::<cl_name_version>(&device_bytes(device(), CL_DEVICE_OPENCL_C_FEATURES).unwrap())
            .iter()
            .map(name_of)
            .collect();
    let extensions: Vec<String> = device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    // Extensions without any OpenCL C effect have no macro ("Every extension which affects the
    // OpenCL language semantics, syntax or adds built-in functions to the language must create
    // a preprocessor #define"): the API-only ones.
    let api_only = |e: &str| {
        [
            "cl_khr_icd",
            "cl_khr_il_program",
            "cl_khr_extended_versioning",
            "cl_khr_device_uuid",
            "cl_khr_create_command_queue",
            "cl_khr_pci_bus_info",
            "cl_khr_suggested_local_work_size",
            "cl_khr_spirv_no_integer_wrap_decoration",
            "cl_khr_spirv_linkonce_odr",
            "cl_khr_spirv_extended_debug_info",
            "cl_khr_spirv_queries",
            "cl_khr_image2d_from_buffer",
            "cl_khr_priority_hints",
            "cl_khr_throttle_hints",
            "cl_khr_terminate_context",
            "cl_khr_spir",
            "cl_ext_device_fission",
            "cl_ext_migrate_memobject",
        ]
        .contains(&e)
            || e.starts_with("cl_khr_command_buffer")
            || e.starts_with("cl_khr_external_")
            || e.starts_with("cl_khr_semaphore")
            || e.starts_with("cl_khr_icd")
    };
    for f in &features {
        assert!(names.contains(f), "features.cl does not check reported feature {f}");
    }
    for e in &extensions {
        assert!(
            names.contains(e) || api_only(e),
            "features.cl does not check reported extension {e}"
        );
    }
    let ctx = Context::new();
    for std in ["-cl-std=CL3.0", "-cl-std=CL3.0 -cl-opt-disable"] {
        let p = ctx.built_source("features.cl", std);
        let defined = run_ints(&ctx, &p, "features", names.len(), 1);
        let mut wrong = Vec::new();
        for (name, &d) in names.iter().zip(&defined) {
            assert!(d == 0 || d == 1, "{name}: {d}");
            let reported = features.contains(name) || extensions.contains(name);
            if (d == 1) != reported {
                wrong.push(format!(
                    "{name}: {} but {}",
                    if d == 1 { "defined" } else { "not defined" },
                    if reported { "reported" } else { "not reported" }
                ));
            }
        }
        assert!(
            wrong.is_empty(),
            "with {std}, OpenCL C macros disagree with CL_DEVICE_OPENCL_C_FEATURES / CL_DEVICE_EXTENSIONS:\n  {}",
            wrong.join("\n  ")
        );
    }
}

#[test]
fn syntax_error_log_and_program_stays_usable() {
    if !isolate("syntax_error_log_and_program_stays_usable") {
        return;
    }
    let ctx = Context::new();
    let src = source_text("syntax_error.cl");
    let p = ctx.source_program("syntax_error.cl");
    assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    let log = p.build_log();
    assert!(log.contains("error"), "clang's diagnostic in the log:\n{log}");
    assert!(log.contains(":6:"), "the diagnostic names the user's line 6:\n{log}");
    // The program object stays queryable.
    assert_eq!(bytes_to_string(&p.info_bytes(CL_PROGRAM_SOURCE).unwrap()), src);
    assert_eq!(p.info::<cl_uint>(CL_PROGRAM_REFERENCE_COUNT), 1);
    assert_eq!(p.info::<cl_context>(CL_PROGRAM_CONTEXT), ctx.0);
    assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_NONE);
    assert_eq!(p.try_kernel("broken").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    assert_eq!(
        p.info_bytes(CL_PROGRAM_NUM_KERNELS).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE)
    );
    assert_eq!(
        bytes_to_string(&p.build_bytes(CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        "",
        "CL_PROGRAM_BUILD_OPTIONS"
    );
    // A second build fails the same way, with the same diagnostic.
    assert_eq!(p.build("-D UNUSED=1"), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    assert!(p.build_log().contains(":6:"), "{}", p.build_log());
    // clCompileProgram: CL_COMPILE_PROGRAM_FAILURE, same log.
    let c = ctx.source_program("syntax_error.cl");
    assert_eq!(c.compile("", &[]), CL_COMPILE_PROGRAM_FAILURE);
    assert_eq!(c.build_status(), CL_BUILD_ERROR);
    assert!(c.build_log().contains(":6:"), "{}", c.build_log());
    // A failed compiled object cannot be linked.
    let (_, err) = ctx.link("", &[&c]);
    assert_ne!(err, CL_SUCCESS, "linking a program whose compile failed");
}

static CALLS: AtomicUsize = AtomicUsize::new(0);
static LAST_PROGRAM: AtomicUsize = AtomicUsize::new(0);
static LAST_STATUS: AtomicUsize = AtomicUsize::new(usize::MAX);

unsafe extern "C" fn build_done(p: cl_program, user: *mut c_void) {
    assert_eq!(user as usize, 0x5EED);
    let st: cl_build_status =
        info_scalar(|s, v, r| unsafe { clGetProgramBuildInfo(p, device(), CL_PROGRAM_BUILD_STATUS, s, v, r) })
            .unwrap_or(-99);
    LAST_STATUS.store(st as isize as usize, Ordering::SeqCst);
    LAST_PROGRAM.store(p as usize, Ordering::SeqCst);
    CALLS.fetch_add(1, Ordering::SeqCst);
}

fn build_with_callback(p: &Program, options: &str) -> cl_int {
    let dev = device();
    let o = CString::new(options).unwrap();
    unsafe { clBuildProgram(p.0, 1, &dev, o.as_ptr(), Some(build_done), 0x5EED as *mut c_void) }
}

#[test]
fn build_callbacks_for_source_programs() {
    if !isolate("build_callbacks_for_source_programs") {
        return;
    }
    let ctx = Context::new();
    let p = ctx.source_program("defines.cl");
    let err = build_with_callback(&p, "-D FLAG");
    assert_eq!(err, CL_SUCCESS, "{}", p.build_log());
    assert!(
        wait_until(EVENTUALLY, || CALLS.load(Ordering::SeqCst) >= 1),
        "callback never called"
    );
    assert_eq!(
        LAST_PROGRAM.load(Ordering::SeqCst),
        p.0 as usize,
        "called with the program"
    );
    assert_eq!(
        LAST_STATUS.load(Ordering::SeqCst) as isize as cl_build_status,
        CL_BUILD_SUCCESS
    );
    assert!(wait_until(EVENTUALLY, || p.build_status() == CL_BUILD_SUCCESS));
    assert_eq!(run_ints(&ctx, &p, "defines", 3, 1), [0, 1, 1]);
    // A failing source build calls back too, with CL_BUILD_ERROR.
    let bad = ctx.source_program("syntax_error.cl");
    let err = build_with_callback(&bad, "");
    assert!(
        err == CL_SUCCESS || err == CL_BUILD_PROGRAM_FAILURE,
        "{}",
        err_name(err)
    );
    assert!(
        wait_until(EVENTUALLY, || CALLS.load(Ordering::SeqCst) >= 2),
        "failed-build callback never called"
    );
    assert_eq!(LAST_PROGRAM.load(Ordering::SeqCst), bad.0 as usize);
    assert_eq!(
        LAST_STATUS.load(Ordering::SeqCst) as isize as cl_build_status,
        CL_BUILD_ERROR
    );
    assert!(wait_until(EVENTUALLY, || bad.build_status() == CL_BUILD_ERROR));
    assert!(bad.build_log().contains(":6:"), "{}", bad.build_log());
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(CALLS.load(Ordering::SeqCst), 2, "each callback exactly once");
    // pfn_notify NULL with user_data: CL_INVALID_VALUE.
    let dev = device();
    check!(
        clBuildProgram(p.0, 1, &dev, ptr::null(), None, 0x5EED as *mut c_void),
        CL_INVALID_VALUE
    );
}

fn arg_string(k: &Kernel, i: cl_uint, param: cl_kernel_arg_info) -> Result<String, cl_int> {
    info_bytes(|s, v, r| unsafe { clGetKernelArgInfo(k.0, i, param, s, v, r) }).map(|b| bytes_to_string(&b))
}

fn arg_scalar<T: Copy + Default>(k: &Kernel, i: cl_uint, param: cl_kernel_arg_info) -> T {
    info_scalar(|s, v, r| unsafe { clGetKernelArgInfo(k.0, i, param, s, v, r) })
        .unwrap_or_else(|e| panic!("clGetKernelArgInfo({i}, {param:#x}): {}", err_name(e)))
}

/// Expected argument info of arginfo.cl's `args`: name, type name, address, type qualifiers.
/// (cl.h: `typedef cl_bitfield cl_kernel_arg_type_qualifier`, 64 bits; opencl-sys says 32.)
const ARGS: [(&str, &str, cl_kernel_arg_address_qualifier, cl_bitfield); 9] = [
    (
        "in",
        "int*",
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        (CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT) as cl_bitfield,
    ),
    (
        "vol",
        "float*",
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_TYPE_VOLATILE as cl_bitfield,
    ),
    // "CL_KERNEL_ARG_TYPE_CONST is returned if the kernel argument is declared with the
    // constant address space qualifier."
    (
        "table",
        "float4*",
        CL_KERNEL_ARG_ADDRESS_CONSTANT,
        CL_KERNEL_ARG_TYPE_CONST as cl_bitfield,
    ),
    (
        "scratch",
        "uint*",
        CL_KERNEL_ARG_ADDRESS_LOCAL,
        CL_KERNEL_ARG_TYPE_NONE as cl_bitfield,
    ),
    // "CL_KERNEL_ARG_TYPE_NONE is returned for all kernel arguments passed by value."
    (
        "n",
        "int",
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_TYPE_NONE as cl_bitfield,
    ),
    (
        "p",
        "pair_t",
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_TYPE_NONE as cl_bitfield,
    ),
    // `global int *const`: the pointer is const, not the referenced type.
    (
        "fixed_ptr",
        "int*",
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_TYPE_NONE as cl_bitfield,
    ),
    (
        "c",
        "uchar",
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_TYPE_NONE as cl_bitfield,
    ),
    (
        "cv",
        "ulong*",
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        (CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_VOLATILE) as cl_bitfield,
    ),
];

/// Checks every argument of `args` against ARGS.
fn check_arg_info(k: &Kernel, how: &str) {
    assert_eq!(k.info::<cl_uint>(CL_KERNEL_NUM_ARGS), ARGS.len() as cl_uint);
    for (i, (name, ty, addr, qual)) in ARGS.iter().enumerate() {
        let i = i as cl_uint;
        assert_eq!(
            arg_string(k, i, CL_KERNEL_ARG_NAME).as_deref(),
            Ok(*name),
            "arg {i} name ({how})"
        );
        assert_eq!(
            arg_string(k, i, CL_KERNEL_ARG_TYPE_NAME).as_deref(),
            Ok(*ty),
            "arg {i} ({name}) type name ({how})"
        );
        assert_eq!(
            arg_scalar::<cl_kernel_arg_address_qualifier>(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            *addr,
            "arg {i} ({name}) address qualifier ({how})"
        );
        assert_eq!(
            arg_scalar::<cl_kernel_arg_access_qualifier>(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER),
            CL_KERNEL_ARG_ACCESS_NONE,
            "arg {i} ({name}) access qualifier ({how})"
        );
        assert_eq!(
            arg_scalar::<cl_bitfield>(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER),
            *qual,
            "arg {i} ({name}) type qualifier ({how})"
        );
    }
    // Errors.
    assert_eq!(
        arg_string(k, ARGS.len() as cl_uint, CL_KERNEL_ARG_NAME).err(),
        Some(CL_INVALID_ARG_INDEX)
    );
    assert_eq!(arg_string(k, 0, 0xDEAD).err(), Some(CL_INVALID_VALUE));
    let mut small = [0u8; 2];
    check!(
        clGetKernelArgInfo(
            k.0,
            0,
            CL_KERNEL_ARG_NAME,
            small.len(),
            small.as_mut_ptr() as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
}

#[test]
fn kernel_arg_info_of_source_programs() {
    if !isolate("kernel_arg_info_of_source_programs") {
        return;
    }
    let ctx = Context::new();
    for opts in [
        "-cl-kernel-arg-info",
        "-cl-kernel-arg-info -cl-std=CL3.0 -cl-opt-disable",
    ] {
        let p = ctx.built_source("arginfo.cl", opts);
        check_arg_info(&p.kernel("args"), opts);
    }
    // Through clCompileProgram with the option, then clLinkProgram.
    let c = ctx.source_program("arginfo.cl");
    assert_eq!(c.compile("-cl-kernel-arg-info", &[]), CL_SUCCESS, "{}", c.build_log());
    let (l, err) = ctx.link("", &[&c]);
    check_err!(err, CL_SUCCESS, "clLinkProgram(arginfo)");
    check_arg_info(&l.unwrap().kernel("args"), "compile -cl-kernel-arg-info + link");
    // An IL program has no type names: CL_KERNEL_ARG_INFO_NOT_AVAILABLE (when it is not
    // available, for any query that needs it).
    if is_clift() {
        let p = ctx.program_il(&spirv("barrier"));
        assert_eq!(p.build("-cl-kernel-arg-info"), CL_SUCCESS, "{}", p.build_log());
        let k = p.kernel("reverse");
        assert_eq!(
            arg_string(&k, 0, CL_KERNEL_ARG_TYPE_NAME).err(),
            Some(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
            "type name of an IL kernel's argument"
        );
    }
}

/// `__OPENCL_VERSION__` is the device's OpenCL version (CL_DEVICE_VERSION "OpenCL 3.0 ..." gives
/// 300) whatever `-cl-std` says (Khronos CTS basic/kernel_preprocessor_macros).
#[test]
fn opencl_version_macro_is_the_device_version() {
    let ctx = Context::new();
    let q = ctx.queue();
    let version = device_string(CL_DEVICE_VERSION);
    let (maj, min) = version
        .strip_prefix("OpenCL ")
        .and_then(|v| v.split(' ').next())
        .and_then(|v| v.split_once('.'))
        .map(|(a, b)| (a.parse::<i32>().unwrap(), b.parse::<i32>().unwrap()))
        .expect("CL_DEVICE_VERSION is OpenCL <major>.<minor> ...");
    for opts in ["", "-cl-std=CL1.2", "-cl-std=CL3.0"] {
        let p = ctx.built_source("opencl_version.cl", opts);
        let k = p.kernel("opencl_version");
        let out = ctx.buffer(4);
        k.arg_mem(0, &out);
        q.run(&k, &[], &[1], &[]);
        assert_eq!(
            from_bytes::<i32>(&q.read(&out, 0, 4))[0],
            maj * 100 + min * 10,
            "options {opts:?}"
        );
    }
}
