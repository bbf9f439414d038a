//! `-cl-opt-disable` builds what optimized builds build (issue 21): C99 plain `inline`,
//! `extern inline` and `static inline` functions, in one program and across
//! clCompileProgram/clLinkProgram, built optimized, with `-cl-opt-disable` and with `-O0`,
//! give the same results, checked against host arithmetic. A call to a function defined
//! nowhere fails the build or the link with a log naming the function.
//! Kernels: kernels/source/inline_plain.cl, inline_kinds.cl, inline_helpers.h,
//! inline_user_a.cl, inline_user_b.cl, inline_extern_def.cl, undefined_call.cl,
//! undefined_overload.cl, inline_sampler_choice.cl.

use cts::*;

/// Optimized (no option), and the two spellings of "no optimization".
const LEVELS: [&str; 3] = ["", "-cl-opt-disable", "-O0"];

fn inputs() -> Vec<i32> {
    (-70..90).collect()
}

/// Enqueues `kernel(a, out)` over `a` and returns `out` (`per_item` ints per work-item).
fn run2(ctx: &Context, exe: &Program, kernel: &str, a: &[i32], per_item: usize) -> Vec<i32> {
    let q = ctx.queue();
    let ba = ctx.buffer_from(as_bytes(a));
    let bo = ctx.buffer(a.len() * per_item * 4);
    let k = exe.kernel(kernel);
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[a.len()], &[]);
    from_bytes(&q.read(&bo, 0, a.len() * per_item * 4))
}

#[test]
fn plain_inline_builds_at_every_level() {
    let ctx = Context::new();
    let q = ctx.queue();
    let a = inputs();
    let want: Vec<i32> = a.iter().map(|v| v + 1).collect();
    for opts in LEVELS {
        let p = ctx.built_source("inline_plain.cl", opts);
        let b = ctx.buffer_from(as_bytes(&a));
        let k = p.kernel("bump_each");
        k.arg_mem(0, &b);
        q.run(&k, &[], &[a.len()], &[]);
        assert_eq!(from_bytes::<i32>(&q.read(&b, 0, a.len() * 4)), want, "options {opts:?}");
    }
}

/// Host references of inline_kinds.cl.
fn chain(v: i32) -> i32 {
    v * v + 3 - (v - 1) * (v - 1)
}
fn halve_toward_zero(v: i32) -> i32 {
    v / 2
}
fn flip(v: i32) -> i32 {
    v ^ 0x5a5a
}

#[test]
fn every_inline_kind_in_one_program() {
    let ctx = Context::new();
    let a = inputs();
    let want: Vec<i32> = a
        .iter()
        .flat_map(|&v| {
            [
                chain(v),
                halve_toward_zero(v),
                flip(v),
                flip(halve_toward_zero(chain(v))),
            ]
        })
        .collect();
    for opts in LEVELS {
        // clBuildProgram, and clCompileProgram then clLinkProgram of the one object.
        let built = ctx.built_source("inline_kinds.cl", opts);
        assert_eq!(run2(&ctx, &built, "inline_kinds", &a, 4), want, "built with {opts:?}");
        let exe = ctx.linked("", &[&ctx.compiled_source("inline_kinds.cl", opts, &[])]);
        assert_eq!(
            run2(&ctx, &exe, "inline_kinds", &a, 4),
            want,
            "compiled with {opts:?}, linked"
        );
    }
}

fn clamp_add(v: i32, k: i32) -> i32 {
    (v + k).clamp(-100, 100)
}
fn clamp_twice(v: i32) -> i32 {
    clamp_add(clamp_add(v, 7), 7)
}

#[test]
fn inline_header_in_two_linked_programs() {
    let ctx = Context::new();
    let header = ctx.source_program("inline_helpers.h");
    let hdrs = [("inline_helpers.h", &header)];
    let a = inputs();
    let want_a: Vec<i32> = a.iter().map(|&v| clamp_twice(v)).collect();
    let want_b: Vec<i32> = a.iter().map(|&v| clamp_twice(v) - clamp_add(v, -3) + 3 * v).collect();
    // Every pairing of levels among the three objects (optimized and unoptimized mixed).
    for (oa, ob, oe) in [
        ("", "", ""),
        ("-cl-opt-disable", "-cl-opt-disable", "-cl-opt-disable"),
        ("-O0", "", "-cl-opt-disable"),
        ("", "-cl-opt-disable", ""),
    ] {
        let compile = |file: &str, opts: &str| ctx.compiled_source(file, opts, &hdrs);
        let (ua, ub, ext) = (
            compile("inline_user_a.cl", oa),
            compile("inline_user_b.cl", ob),
            compile("inline_extern_def.cl", oe),
        );
        for order in [[&ua, &ub, &ext], [&ext, &ub, &ua]] {
            let exe = ctx.linked("", &order);
            assert_eq!(
                run2(&ctx, &exe, "user_a", &a, 1),
                want_a,
                "user_a, {oa:?} {ob:?} {oe:?}"
            );
            assert_eq!(
                run2(&ctx, &exe, "user_b", &a, 1),
                want_b,
                "user_b, {oa:?} {ob:?} {oe:?}"
            );
        }
        // Through a library holding the external definitions.
        let lib = ctx.linked("-create-library", &[&ext]);
        let exe = ctx.linked("", &[&ua, &lib, &ub]);
        assert_eq!(run2(&ctx, &exe, "user_b", &a, 1), want_b, "user_b via a library");
        // user_a needs nothing from the others: its inline definitions are its own.
        let exe = ctx.linked("", &[&ua]);
        assert_eq!(run2(&ctx, &exe, "user_a", &a, 1), want_a, "user_a alone");
    }
}

#[test]
fn undefined_function_fails_with_its_name() {
    let ctx = Context::new();
    for opts in LEVELS {
        for (file, name) in [
            ("undefined_call.cl", "never_defined_helper"),
            ("undefined_overload.cl", "scaled_by"),
        ] {
            // clBuildProgram.
            let p = ctx.source_program(file);
            assert_eq!(p.build(opts), CL_BUILD_PROGRAM_FAILURE, "{file} {opts:?}");
            assert_eq!(p.build_status(), CL_BUILD_ERROR);
            let log = p.build_log();
            assert!(log.contains(name), "{file} {opts:?}: the log names {name}:\n{log}");
            // clCompileProgram succeeds (a declaration is fine); clLinkProgram does not.
            let obj = ctx.compiled_source(file, opts, &[]);
            let (exe, err) = ctx.link("", &[&obj]);
            check_err!(err, CL_LINK_PROGRAM_FAILURE, format!("{file} {opts:?}"));
            if let Some(exe) = exe {
                assert_eq!(exe.build_status(), CL_BUILD_ERROR);
                assert!(exe.build_log().contains(name), "link log:\n{}", exe.build_log());
                assert_eq!(
                    exe.try_kernel("calls_undefined").err(),
                    Some(CL_INVALID_PROGRAM_EXECUTABLE)
                );
            }
            // A library may leave it unresolved.
            let (lib, err) = ctx.link("-create-library", &[&obj]);
            check_err!(err, CL_SUCCESS, format!("library of {file}"));
            assert!(lib.is_some());
        }
    }
}

/// A plain inline helper in a program whose optimized IR the translator refuses (Clift then
/// translates the unoptimized IR): at every level it builds, and each sampler gives its own
/// result on a 2x2 RGBA float image (nearest at (0.5, 0.5) unnormalized: texel (0, 0);
/// linear at (0.5, 0.5) normalized: the mean of the four texels).
#[test]
fn inline_helper_on_the_unoptimized_fallback() {
    let images: cl_bool = device_info(CL_DEVICE_IMAGE_SUPPORT);
    assert_eq!(images, CL_TRUE, "Clift reports image support");
    let ctx = Context::new();
    let q = ctx.queue();
    let mut texels: Vec<f32> = (0..16).map(|v| v as f32).collect();
    let fmt = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_FLOAT,
    };
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, [2, 2, 1, 1], 0, 0, std::ptr::null_mut());
    let img = ctx.image(
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        &fmt,
        &desc,
        texels.as_mut_ptr() as *mut std::ffi::c_void,
    );
    let out = ctx.buffer(16);
    for opts in LEVELS {
        let p = ctx.built_source("inline_sampler_choice.cl", opts);
        let k = p.kernel("choose_inline");
        k.arg_mem(0, &img);
        k.arg_mem(2, &out);
        for (which, expect) in [(3i32, [0.0f32, 1.0, 2.0, 3.0]), (2, [6.0, 7.0, 8.0, 9.0])] {
            k.arg(1, &which);
            q.run(&k, &[0], &[1], &[1]);
            let got: Vec<f32> = from_bytes(&q.read(&out, 0, 16));
            assert_eq!(got, expect, "which = {which}, options {opts:?}");
        }
    }
}
