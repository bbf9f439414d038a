//! Every kernel of `clift-bench` (`cts/kernels/bench/*.cl`) runs its work-items in the vector
//! loop, in every barrier region: a child process builds each from source with
//! `CLIFT_SIMD=strict`, where any kernel or region the vector loop does not take is a build error
//! naming the reason. The kernels not there yet are listed with the reason the build gives, so
//! the list can only shrink: one of them that starts to vectorize fails this test until it moves
//! to the other list. Clift only.

use cts::*;

/// (kernel, source) of the benchmark kernels that take the vector loop everywhere (`empty`
/// does nothing, which needs no loop at all).
const VECTOR: &[(&str, &str)] = &[
    ("vecadd", include_str!("../kernels/bench/vecadd.cl")),
    ("saxpy", include_str!("../kernels/bench/saxpy.cl")),
    ("reduce", include_str!("../kernels/bench/reduce.cl")),
    ("mandelbrot", include_str!("../kernels/bench/mandelbrot.cl")),
    ("hash", include_str!("../kernels/bench/hash.cl")),
    ("daxpy", include_str!("../kernels/bench/daxpy.cl")),
    ("ddot", include_str!("../kernels/bench/ddot.cl")),
    ("histogram", include_str!("../kernels/bench/histogram.cl")),
    ("vec4", include_str!("../kernels/bench/vec4.cl")),
    ("image_sample", include_str!("../kernels/bench/image_sample.cl")),
    ("image_write", include_str!("../kernels/bench/image_write.cl")),
    ("sgemm", include_str!("../kernels/bench/sgemm.cl")),
    ("nbody", include_str!("../kernels/bench/nbody.cl")),
    ("empty", include_str!("../kernels/bench/empty.cl")),
];

/// (kernel, source, what the strict build's log says) of those that do not yet.
const NOT_YET: &[(&str, &str, &str)] = &[];

const HASH_HEADERS: &[(&str, &str)] = &[
    ("hash_config.h", include_str!("../kernels/bench/hash/hash_config.h")),
    ("hash_ops.h", include_str!("../kernels/bench/hash/hash_ops.h")),
];

/// In the child: build every kernel, printing `BUILD name ok` or `BUILD name failed` and the log.
#[test]
fn build_bench_kernels_child() {
    if std::env::var_os("CTS_SIMD_BENCH_CHILD").is_none() {
        return;
    }
    let ctx = Context::new();
    let dir = TempDir::new("simd-bench");
    for (file, text) in HASH_HEADERS {
        std::fs::write(dir.path().join(file), text).expect("write a hash header");
    }
    let all = VECTOR.iter().copied().chain(NOT_YET.iter().map(|(k, s, _)| (*k, *s)));
    for (name, src) in all {
        // The options the benchmark builds with (the hash kernel is configured with -D options).
        let opts = if name == "hash" {
            format!(
                "-cl-std=CL1.2 -I {} -D VECT_SIZE=4 -D ROUNDS=64 -D ITERATIONS=16 -D USE_BITSELECT=1 \
                 -D IV0=0x67452301u -D IV1=0xefcdab89u -D IV2=0x98badcfeu -D IV3=0x10325476u -D K_MUL=0x9e3779b9u",
                dir.path().display()
            )
        } else {
            "-cl-std=CL1.2".to_string()
        };
        let p = ctx.program_source(src);
        let err = p.build(&opts);
        if err == CL_SUCCESS {
            println!("BUILD {name} ok");
        } else {
            println!(
                "BUILD {name} failed {}: {}",
                err_name(err),
                p.build_log().replace('\n', " ")
            );
        }
    }
}

fn child_builds(simd: &str) -> String {
    let out = test_child("build_bench_kernels_child")
        .env("CTS_SIMD_BENCH_CHILD", "1")
        .env("CLIFT_SIMD", simd)
        .env("CLIFT_CACHE", "0")
        .env_remove("CLIFT_DUMP_CODE")
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn line<'a>(out: &'a str, name: &str) -> &'a str {
    let tag = format!("BUILD {name} ");
    // The first line follows libtest's "test NAME ... " on the same line.
    out.lines()
        .find_map(|l| l.find(&tag).map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no build line for {name} in:\n{out}"))
}

#[test]
fn bench_kernels_take_the_vector_loop_under_strict() {
    if !platform_string(platform(), CL_PLATFORM_NAME).contains("Clift") {
        return;
    }
    let out = child_builds("strict");
    for (name, _) in VECTOR {
        let l = line(&out, name);
        assert!(l.ends_with(" ok"), "{name} does not build under CLIFT_SIMD=strict: {l}");
    }
    for (name, _, why) in NOT_YET {
        let l = line(&out, name);
        assert!(
            l.contains("CL_BUILD_PROGRAM_FAILURE") && l.contains(why) && l.contains("CLIFT_SIMD=strict"),
            "{name}: expected the strict build to fail with {why:?}; got: {l}\n\
             (if it now takes the vector loop, move it to VECTOR)"
        );
    }
}

/// The same kernels build without strict (the scalar loop takes what the vector loop does not),
/// and with `CLIFT_SIMD=check`, which only makes failures to build planned vector code errors.
#[test]
fn bench_kernels_build_without_strict() {
    if !platform_string(platform(), CL_PLATFORM_NAME).contains("Clift") {
        return;
    }
    for simd in ["check", "0"] {
        let out = child_builds(simd);
        for name in VECTOR.iter().map(|(n, _)| n).chain(NOT_YET.iter().map(|(n, ..)| n)) {
            let l = line(&out, name);
            assert!(l.ends_with(" ok"), "{name} does not build with CLIFT_SIMD={simd}: {l}");
        }
    }
}
