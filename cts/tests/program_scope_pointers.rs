//! Program-scope variables whose initializers hold pointers: the addresses of other
//! program-scope variables (plus constant offsets, through casts) and null pointers, checked
//! against host-computed expectations.
//! - OpenCL C constants (kernels/source/program_scope_pointers.cl, built from source): arrays
//!   of string pointers with a null entry, pointers to elements of other constant arrays and
//!   into nested structs, pointers to pointers, null pointers in constant structs;
//! - OpenCL C 2.0 global variables (kernels/program_scope_globals.spvasm, from
//!   program_scope_globals.cl): pointers to globals, to constants and as generic pointers in
//!   writable program-scope variables, written through and reassigned by the kernel;
//! - the native code cache: both programs built in one process, then again in a new process
//!   that loads the machine code (and the data relocations) from the cache (Clift only).

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

const WORDS: [Option<&str>; 6] = [
    Some("zero"),
    Some("one"),
    Some("two"),
    Some("three"),
    None,
    Some("five"),
];
const TABLE: [i64; 8] = [10, 11, 12, 13, 14, 15, 16, 17];
const NESTED_PAD: i64 = 7;
const NESTED_INNER: [i64; 4] = [40, 41, 42, 43];
/// `entries` of the source: (tag, index of `some` in TABLE, name).
const ENTRIES: [(i32, Option<usize>, Option<&str>); 3] =
    [(1, Some(2), Some("alpha")), (2, None, Some("beta")), (3, Some(6), None)];

/// What the child process prints its build logs between.
const LOG_BEGIN: &str = "CTS-PTR-LOG-BEGIN";
const LOG_END: &str = "CTS-PTR-LOG-END";
/// What Clift's verbose build log says when the machine code came from the cache.
const NATIVE_HIT: &str = "loaded from the native code cache";

fn is_clift() -> bool {
    wanted_platform_name() == "Clift"
}

fn source_program(ctx: &Context) -> Program {
    let p = ctx.program_source(&source_text("program_scope_pointers.cl"));
    let err = p.build("");
    assert_eq!(
        err,
        CL_SUCCESS,
        "clBuildProgram(program_scope_pointers.cl): {}\nlog:\n{}",
        err_name(err),
        p.build_log()
    );
    p
}

fn run_ints<T: Copy + Default>(ctx: &Context, p: &Program, name: &str, n: usize, global: usize) -> Vec<T> {
    let q = ctx.queue();
    let b = ctx.buffer_from(as_bytes(&vec![T::default(); n]));
    let k = p.kernel(name);
    k.arg_mem(0, &b);
    q.run(&k, &[], &[global], &[]);
    from_bytes(&q.read(&b, 0, n * std::mem::size_of::<T>()))
}

fn check_string_table(ctx: &Context, p: &Program) {
    let got: Vec<i32> = run_ints(ctx, p, "string_table", WORDS.len(), WORDS.len());
    let want: Vec<i32> = WORDS
        .iter()
        .enumerate()
        .map(|(i, w)| match w {
            None => -1,
            Some(w) => w.as_bytes().get(i).map_or(0, |c| *c as i32),
        })
        .collect();
    assert_eq!(got, want, "string_table");
}

fn check_element_pointers(ctx: &Context, p: &Program) {
    let got: Vec<i64> = run_ints(ctx, p, "element_pointers", 10, 1);
    let three = WORDS[3].unwrap().as_bytes();
    let two = WORDS[2].unwrap().as_bytes();
    let want = [
        TABLE[5],
        TABLE[3],
        TABLE[1],
        TABLE[0],
        TABLE[7],
        7,
        NESTED_INNER[3],
        NESTED_INNER[0] + NESTED_PAD,
        three[2] as i64,
        two[0] as i64,
    ];
    assert_eq!(got, want, "element_pointers");
}

fn check_struct_pointers(ctx: &Context, p: &Program) {
    let got: Vec<i32> = run_ints(ctx, p, "struct_pointers", 12, 1);
    let want: Vec<i32> = ENTRIES
        .iter()
        .flat_map(|(tag, some, name)| {
            [
                *tag,
                1,
                some.map_or(-1, |i| TABLE[i] as i32),
                name.map_or(-1, |n| n.as_bytes()[1] as i32),
            ]
        })
        .collect();
    assert_eq!(got, want, "struct_pointers");
}

/// Two launches of `global_pointers`: the second sees the first one's writes (the counter
/// incremented through a pointer, `gp` reassigned).
fn check_global_pointers(ctx: &Context, p: &Program) {
    let gtab = [100, 101, 102, 103];
    let first: Vec<i32> = run_ints(ctx, p, "global_pointers", 8, 1);
    assert_eq!(
        first,
        [gtab[2], gtab[3], 1, gtab[1], 9, gtab[1], 6, gtab[0]],
        "first launch"
    );
    let second: Vec<i32> = run_ints(ctx, p, "global_pointers", 8, 1);
    assert_eq!(
        second,
        [gtab[0], gtab[3], 1, gtab[1], 9, gtab[1], 7, gtab[0]],
        "second launch"
    );
}

fn globals_program(ctx: &Context) -> Program {
    ctx.built_program("program_scope_globals", &spirv("program_scope_globals"))
}

#[test]
fn constant_string_tables() {
    let ctx = Context::new();
    let p = source_program(&ctx);
    check_string_table(&ctx, &p);
}

#[test]
fn constant_pointers_to_elements() {
    let ctx = Context::new();
    let p = source_program(&ctx);
    check_element_pointers(&ctx, &p);
}

#[test]
fn constant_structs_with_null_pointers() {
    let ctx = Context::new();
    let p = source_program(&ctx);
    check_struct_pointers(&ctx, &p);
}

#[test]
fn global_variables_with_pointers() {
    let ctx = Context::new();
    let p = globals_program(&ctx);
    check_global_pointers(&ctx, &p);
}

/// The child of `native_cache_round_trip`: builds both programs, prints their logs, runs every
/// check.
#[test]
#[ignore = "child process of native_cache_round_trip (runs only with CTS_PTR_CHILD set)"]
fn pointers_child() {
    if std::env::var_os("CTS_PTR_CHILD").is_none() {
        return;
    }
    let ctx = Context::new();
    let src = source_program(&ctx);
    let il = globals_program(&ctx);
    println!("{LOG_BEGIN}\n{}\n---\n{}\n{LOG_END}", src.build_log(), il.build_log());
    check_string_table(&ctx, &src);
    check_element_pointers(&ctx, &src);
    check_struct_pointers(&ctx, &src);
    check_global_pointers(&ctx, &il);
}

/// Runs `pointers_child` with a private cache folder; its build logs.
fn child(cache: &TempDir) -> String {
    let out = test_child("pointers_child")
        .arg("--ignored")
        .env("CTS_PTR_CHILD", "1")
        .env("CLIFT_BUILD_LOG", "verbose")
        .env("CLIFT_CACHE_DIR", cache.path())
        .env_remove("CLIFT_CACHE")
        .output()
        .expect("spawn the child");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the child failed ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    stdout
        .split(LOG_BEGIN)
        .nth(1)
        .and_then(|s| s.split(LOG_END).next())
        .unwrap_or_else(|| panic!("no build logs from the child:\n{stdout}"))
        .to_string()
}

#[test]
fn native_cache_round_trip() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("ptr-cache");
    let cold = child(&dir);
    assert!(!cold.contains(NATIVE_HIT), "an empty cache cannot hit:\n{cold}");
    let native = std::fs::read_dir(dir.path())
        .expect("the cache folder")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "native"))
        .count();
    assert_eq!(native, 2, "both programs' machine code is cached");
    let warm = child(&dir);
    assert_eq!(
        warm.matches(NATIVE_HIT).count(),
        2,
        "both programs come from the native code cache, relocated data and all:\n{warm}"
    );
}
