//! OpenCL C that clang's optimizer used to turn into IR llvm-spirv 15 refuses (issue 14) now
//! takes the optimized path and computes what host arithmetic computes: a switch over two bits
//! (once `switch i2`), a phi naming a switch block once per case, a switch of constants (once
//! an `i24` bit-map lookup), a quotient and remainder of the same operands (once `freeze`).
//! Each program is built from source with CLIFT_BUILD_LOG=verbose; on Clift its log must name
//! the optimized route and carry no fallback note. Also: every benchmark kernel built from
//! source (cts/kernels/bench/*.cl, the hash kernel with its -D options and headers) takes the
//! optimized route.
//! A vector saturating subtract, whose optimized IR llvm-spirv 15 refuses, is legalized with
//! LLVM's passes rather than translated unoptimized.
//! Kernels: kernels/source/optimized_switches.cl, legalized_vectors.cl, kernels/bench/*.cl.

use cts::*;

fn is_clift() -> bool {
    wanted_platform_name() == "Clift"
}

/// The front end's route must be the optimized one (Clift only: it reads Clift's log).
fn assert_optimized(what: &str, log: &str) {
    if !is_clift() {
        return;
    }
    assert!(
        !log.contains("Clift note:"),
        "{what}: fell back to unoptimized IR:\n{log}"
    );
    assert!(
        log.lines().any(|l| l.starts_with("Clift: front end: optimized IR")),
        "{what}: no optimized route in the verbose build log:\n{log}"
    );
}

fn inputs(n: usize) -> Vec<u32> {
    let mut x = 0x2545_f491u32;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

fn pick(sel: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
    match sel & 3 {
        0 => a ^ b,
        1 => b.wrapping_add(c),
        2 => c | d,
        _ => d.wrapping_sub(a),
    }
}

fn small_table(i: u32) -> u32 {
    match i {
        0 => 7,
        1 => 9,
        2 => 200,
        _ => 0,
    }
}

#[test]
fn switches_take_the_optimized_path_and_compute_right() {
    std::env::set_var("CLIFT_BUILD_LOG", "verbose");
    let ctx = Context::new();
    let p = ctx.program_source(&kernel_text("source/optimized_switches.cl"));
    let err = p.build("");
    let log = p.build_log();
    assert_eq!(err, CL_SUCCESS, "{}: {log}", err_name(err));
    assert_optimized("optimized_switches.cl", &log);
    let n = 4096;
    let input = inputs(n);
    let q = ctx.queue();
    let src = ctx.buffer_from(as_bytes(&input));
    type Host = fn(u32) -> u32;
    let cases: [(&str, Host); 4] = [
        ("narrow", |mut x| {
            for r in 0..4u32 {
                x = x
                    .rotate_left(5)
                    .wrapping_add(pick(x.wrapping_add(r), x, 0x1234, 0x5678, 0x9abc));
            }
            x
        }),
        ("shared_case", |x| match x % 11 {
            0 | 3 | 5 | 9 => 7,
            1 | 7 => 300,
            2 => x.wrapping_mul(3),
            _ => 1,
        }),
        ("table", |x| small_table(x & 3) + small_table((x >> 2) & 3) * 1000),
        ("quotient_and_rest", |x| {
            let y = (x >> 7) | 1;
            (x / y).wrapping_mul(65536).wrapping_add(x % y)
        }),
    ];
    for (name, host) in cases {
        let out = ctx.buffer(n * 4);
        let k = p.kernel(name);
        k.arg_mem(0, &src);
        k.arg_mem(1, &out);
        q.run(&k, &[], &[n], &[]);
        let got: Vec<u32> = from_bytes(&q.read(&out, 0, n * 4));
        for (i, (g, x)) in got.iter().zip(&input).enumerate() {
            assert_eq!(*g, host(*x), "{name}[{i}] for input {x:#x}");
        }
    }
}

/// llvm-spirv 15 refuses the optimized IR (a vector saturating subtract); the front end
/// legalizes that IR with LLVM's scalarizer and says so in the verbose log, and the result is
/// host arithmetic's.
#[test]
fn refused_optimized_ir_is_legalized_not_unoptimized() {
    std::env::set_var("CLIFT_BUILD_LOG", "verbose");
    let ctx = Context::new();
    let p = ctx.program_source(&kernel_text("source/legalized_vectors.cl"));
    let err = p.build("");
    let log = p.build_log();
    assert_eq!(err, CL_SUCCESS, "{}: {log}", err_name(err));
    assert_optimized("legalized_vectors.cl", &log);
    if is_clift() {
        assert!(log.contains("legalized by LLVM's scalarizer"), "{log}");
    }
    let n = 1024;
    let x = inputs(4 * n);
    let y: Vec<u32> = x.iter().map(|v| v.rotate_left(7)).collect();
    let q = ctx.queue();
    let (bx, by, out) = (
        ctx.buffer_from(as_bytes(&x)),
        ctx.buffer_from(as_bytes(&y)),
        ctx.buffer(16 * n),
    );
    let k = p.kernel("saturating_difference");
    k.arg_mem(0, &bx);
    k.arg_mem(1, &by);
    k.arg_mem(2, &out);
    q.run(&k, &[], &[n], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, 16 * n));
    for i in 0..4 * n {
        assert_eq!(
            got[i],
            x[i].saturating_sub(y[i]),
            "element {i}: {:#x} - {:#x}",
            x[i],
            y[i]
        );
    }
}

#[test]
fn benchmark_kernels_take_the_optimized_path() {
    std::env::set_var("CLIFT_BUILD_LOG", "verbose");
    let dir = kernels_dir().join("bench");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".cl").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 9, "benchmark kernels: {names:?}");
    let ctx = Context::new();
    for name in &names {
        // The options clift-bench builds with (cts/src/bench/kernels.rs `build_options`).
        let options = if name == "hash" {
            format!(
                "-cl-std=CL1.2 -I {} -D VECT_SIZE=4 -D ROUNDS=64 -D ITERATIONS=16 -D USE_BITSELECT=1 \
                 -D IV0=0x67452301u -D IV1=0xefcdab89u -D IV2=0x98badcfeu -D IV3=0x10325476u -D K_MUL=0x9e3779b9u",
                dir.join("hash").display()
            )
        } else {
            "-cl-std=CL1.2".to_string()
        };
        let p = ctx.program_source(&kernel_text(&format!("bench/{name}.cl")));
        let err = p.build(&options);
        let log = p.build_log();
        assert_eq!(err, CL_SUCCESS, "{name}: {}: {log}", err_name(err));
        assert_optimized(name, &log);
        if let Some(route) = log.lines().find(|l| l.starts_with("Clift: front end:")) {
            eprintln!("{name}: {route}");
        }
    }
}
