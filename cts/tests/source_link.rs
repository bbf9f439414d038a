//! OpenCL C compile and link (issue 4): clCompileProgram with embedded headers
//! (input_headers / header_include_names, a name with a directory), clLinkProgram of several
//! compiled objects, libraries (-create-library, -enable-link-options) linked with other
//! objects, link options, CL_PROGRAM_BINARY_TYPE at each stage, and the binaries of each stage
//! round-tripping through clCreateProgramWithBinary.
//! Kernels: kernels/source/lib_scale.cl, lib_offset.cl, link_main.cl, defs.h, proto.h,
//! defines.cl.

use cts::*;
use std::ffi::CString;
use std::ptr;

/// The embedded headers: `inc/defs.h` (SCALE 7) and `proto.h` (OFFSET_BASE 500 and the
/// prototypes).
struct Headers {
    defs: Program,
    proto: Program,
}

fn headers(ctx: &Context) -> Headers {
    Headers {
        defs: ctx.source_program("defs.h"),
        proto: ctx.source_program("proto.h"),
    }
}

/// The three compiled objects: scale, offset, main.
fn objects(ctx: &Context, h: &Headers) -> [Program; 3] {
    [
        ctx.compiled_source("lib_scale.cl", "", &[("inc/defs.h", &h.defs), ("proto.h", &h.proto)]),
        ctx.compiled_source("lib_offset.cl", "", &[("proto.h", &h.proto)]),
        ctx.compiled_source("link_main.cl", "", &[("proto.h", &h.proto)]),
    ]
}

/// Runs `combined` and checks out[i] = a[i] * scale + 500.
fn run_combined(ctx: &Context, exe: &Program, scale: i32) {
    assert_eq!(exe.binary_type(), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(exe.info::<size_t>(CL_PROGRAM_NUM_KERNELS), 1);
    assert_eq!(
        bytes_to_string(&exe.info_bytes(CL_PROGRAM_KERNEL_NAMES).unwrap()),
        "combined"
    );
    let q = ctx.queue();
    let a: Vec<i32> = (-20..44).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(a.len() * 4);
    let k = exe.kernel("combined");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[a.len()], &[]);
    let o: Vec<i32> = from_bytes(&q.read(&bo, 0, a.len() * 4));
    let want: Vec<i32> = a.iter().map(|x| x * scale + 500).collect();
    assert_eq!(o, want, "combined(a) = a * {scale} + 500");
}

#[test]
fn compile_with_embedded_headers_and_link_objects() {
    if !isolate("compile_with_embedded_headers_and_link_objects") {
        return;
    }
    let ctx = Context::new();
    let h = headers(&ctx);
    let [scale, offset, main] = objects(&ctx, &h);
    // A compiled object is not an executable.
    assert_eq!(main.try_kernel("combined").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    assert_eq!(
        main.info_bytes(CL_PROGRAM_NUM_KERNELS).err(),
        Some(CL_INVALID_PROGRAM_EXECUTABLE)
    );
    // Link all three, in two orders.
    run_combined(&ctx, &ctx.linked("", &[&main, &scale, &offset]), 7);
    run_combined(&ctx, &ctx.linked("", &[&scale, &offset, &main]), 7);
    // The inputs are unchanged by the link.
    assert_eq!(main.binary_type(), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);

    // The header's text is what the program includes: another "inc/defs.h" gives another
    // scale.
    let other = CString::new("#define SCALE 3\n").unwrap();
    let defs3 = ctx.try_program_sources(&[other.as_ptr()], None).unwrap();
    let scale3 = ctx.compiled_source("lib_scale.cl", "", &[("inc/defs.h", &defs3), ("proto.h", &h.proto)]);
    run_combined(&ctx, &ctx.linked("", &[&main, &scale3, &offset]), 3);
    // -D in the compile options reaches the compiled object.
    let scale_d = ctx.compiled_source(
        "lib_offset.cl",
        "-D UNUSED_MACRO=1 -cl-std=CL3.0",
        &[("proto.h", &h.proto)],
    );
    run_combined(&ctx, &ctx.linked("", &[&main, &scale, &scale_d]), 7);

    // Without the header its #include fails: CL_COMPILE_PROGRAM_FAILURE naming the file.
    let p = ctx.source_program("lib_scale.cl");
    assert_eq!(p.compile("", &[("proto.h", &h.proto)]), CL_COMPILE_PROGRAM_FAILURE);
    assert_eq!(p.build_status(), CL_BUILD_ERROR);
    assert!(p.build_log().contains("inc/defs.h"), "log:\n{}", p.build_log());
    // clBuildProgram has no embedded headers either.
    let p = ctx.source_program("link_main.cl");
    assert_eq!(p.build(""), CL_BUILD_PROGRAM_FAILURE);
    assert!(p.build_log().contains("proto.h"), "log:\n{}", p.build_log());

    // num_input_headers and the arrays must agree.
    let dev = device();
    let name = CString::new("proto.h").unwrap();
    let mut names = [name.as_ptr()];
    let hp = [h.proto.0];
    let p = ctx.source_program("lib_offset.cl");
    check!(
        clCompileProgram(
            p.0,
            1,
            &dev,
            ptr::null(),
            1,
            ptr::null(),
            names.as_mut_ptr(),
            None,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clCompileProgram(
            p.0,
            1,
            &dev,
            ptr::null(),
            1,
            hp.as_ptr(),
            ptr::null_mut(),
            None,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clCompileProgram(
            p.0,
            1,
            &dev,
            ptr::null(),
            0,
            hp.as_ptr(),
            names.as_mut_ptr(),
            None,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    // An executable is not a valid link input.
    let exe = ctx.linked("", &[&main, &scale, &offset]);
    let (l, err) = ctx.link("", &[&exe]);
    assert!(l.is_none());
    check_err!(err, CL_INVALID_OPERATION, "clLinkProgram(an executable)");
    // Unresolved symbols: CL_LINK_PROGRAM_FAILURE, and a returned program reports the error.
    let (l, err) = ctx.link("", &[&main]);
    check_err!(err, CL_LINK_PROGRAM_FAILURE, "clLinkProgram(main without scale/offset)");
    if let Some(l) = l {
        assert_eq!(l.build_status(), CL_BUILD_ERROR);
        assert!(
            !l.build_log().trim().is_empty(),
            "the link log names the missing symbols"
        );
    }
}

#[test]
fn libraries_and_link_options() {
    if !isolate("libraries_and_link_options") {
        return;
    }
    let ctx = Context::new();
    let h = headers(&ctx);
    let [scale, offset, main] = objects(&ctx, &h);
    let lib = ctx.linked("-create-library", &[&scale, &offset]);
    assert_eq!(lib.binary_type(), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    assert_eq!(lib.try_kernel("combined").err(), Some(CL_INVALID_PROGRAM_EXECUTABLE));
    assert_eq!(
        bytes_to_string(&lib.build_bytes(CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        "-create-library"
    );
    run_combined(&ctx, &ctx.linked("", &[&main, &lib]), 7);
    run_combined(&ctx, &ctx.linked("", &[&lib, &main]), 7);
    // A library with -enable-link-options, linked with the program linking options.
    let lib_opts = ctx.linked("-create-library -enable-link-options", &[&scale, &offset]);
    assert_eq!(lib_opts.binary_type(), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    run_combined(
        &ctx,
        &ctx.linked("-cl-fast-relaxed-math -cl-no-signed-zeros", &[&main, &lib_opts]),
        7,
    );
    // Every program linking option on an executable link of objects.
    for opts in [
        "-cl-denorms-are-zero",
        "-cl-no-signed-zeros",
        "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only",
        "-cl-fast-relaxed-math",
        "-cl-no-subgroup-ifp",
    ] {
        run_combined(&ctx, &ctx.linked(opts, &[&main, &scale, &offset]), 7);
    }
    // A library made of a library and an object, then linked alone into an executable.
    let lib2 = ctx.linked("-create-library", &[&lib, &main]);
    assert_eq!(lib2.binary_type(), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    run_combined(&ctx, &ctx.linked("", &[&lib2]), 7);
}

#[test]
fn binaries_of_each_stage_round_trip() {
    if !isolate("binaries_of_each_stage_round_trip") {
        return;
    }
    let ctx = Context::new();
    // Before any build there is no binary: "a size of zero is returned".
    let p = ctx.source_program("lib_offset.cl");
    let sizes: Vec<size_t> = bytes_to_vec(&p.info_bytes(CL_PROGRAM_BINARY_SIZES).unwrap());
    assert_eq!(sizes, [0], "binary size before a build");

    let h = headers(&ctx);
    let objs = objects(&ctx, &h);
    // Compiled objects -> binaries -> programs of type COMPILED_OBJECT -> linked.
    let from_bin: Vec<Program> = objs
        .iter()
        .map(|o| {
            let bin = o.binary();
            assert!(!bin.is_empty(), "a compiled object has a binary");
            let p = ctx
                .try_program_binary(&bin)
                .unwrap_or_else(|e| panic!("object binary: {}", err_name(e)));
            assert_eq!(p.binary_type(), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
            p
        })
        .collect();
    let [scale_b, offset_b, main_b] = [&from_bin[0], &from_bin[1], &from_bin[2]];
    run_combined(&ctx, &ctx.linked("", &[main_b, scale_b, offset_b]), 7);
    // Mixed: a binary-created object with a source-compiled one.
    run_combined(&ctx, &ctx.linked("", &[main_b, &objs[0], offset_b]), 7);

    // A library -> binary -> program of type LIBRARY -> linked with main.
    let lib = ctx.linked("-create-library", &[&objs[0], &objs[1]]);
    let lib_b = ctx.try_program_binary(&lib.binary()).unwrap();
    assert_eq!(lib_b.binary_type(), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    run_combined(&ctx, &ctx.linked("", &[&objs[2], &lib_b]), 7);
    run_combined(&ctx, &ctx.linked("", &[main_b, &lib_b]), 7);

    // A linked executable -> binary -> program of type EXECUTABLE -> clBuildProgram -> runs.
    let exe = ctx.linked("", &[&objs[2], &lib]);
    let exe_b = ctx.try_program_binary(&exe.binary()).unwrap();
    assert_eq!(exe_b.binary_type(), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(exe_b.build(""), CL_SUCCESS, "{}", exe_b.build_log());
    run_combined(&ctx, &exe_b, 7);

    // An executable from clBuildProgram of source: the -D given at build time stays in it.
    let built = ctx.built_source("defines.cl", "-D FLAG=9 -D OFFSET=3");
    let built_b = ctx.try_program_binary(&built.binary()).unwrap();
    assert_eq!(built_b.binary_type(), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(built_b.build(""), CL_SUCCESS, "{}", built_b.build_log());
    let q = ctx.queue();
    let b = ctx.buffer(12);
    let k = built_b.kernel("defines");
    k.arg_mem(0, &b);
    q.run(&k, &[], &[1], &[]);
    assert_eq!(from_bytes::<i32>(&q.read(&b, 0, 12)), [3, 1, 9]);
    // A program from a binary has no source ("a null string ... depending on whether or not
    // the program source code is stored in the binary": either is fine, but a string).
    bytes_to_string(&built_b.info_bytes(CL_PROGRAM_SOURCE).unwrap());
}
