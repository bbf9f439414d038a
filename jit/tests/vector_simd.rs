//! Differential test of OpenCL vectors in SIMD registers (issue 15): random kernels over vector
//! types, swizzles, component insertion, loops carrying vectors, comparisons, selects and
//! built-in calls, compiled from OpenCL C (clang-15 + llvm-spirv-15) twice: with vectors in
//! SIMD registers and with `CLIFT_VECTOR_LEAVES=1` (every vector as scalar leaves, the reference
//! path). Both must write bit-identical results for the same random inputs (NaNs, infinities,
//! signed zeros and extreme integers among them; a NaN's sign and payload are not compared).
//!
//! The environment variable is read when a program is compiled, so this file holds one test.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::{Kernel, Program};
use std::fmt::Write as _;

mod support;
use support::{build_with_env, cl_to_spirv, Rng};

#[derive(Clone, Copy)]
struct ElemTy {
    name: &'static str,
    bytes: usize,
    float: bool,
}

const ELEMS: &[ElemTy] = &[
    ElemTy {
        name: "float",
        bytes: 4,
        float: true,
    },
    ElemTy {
        name: "double",
        bytes: 8,
        float: true,
    },
    ElemTy {
        name: "int",
        bytes: 4,
        float: false,
    },
    ElemTy {
        name: "uint",
        bytes: 4,
        float: false,
    },
    ElemTy {
        name: "short",
        bytes: 2,
        float: false,
    },
    ElemTy {
        name: "ushort",
        bytes: 2,
        float: false,
    },
    ElemTy {
        name: "char",
        bytes: 1,
        float: false,
    },
    ElemTy {
        name: "uchar",
        bytes: 1,
        float: false,
    },
    ElemTy {
        name: "long",
        bytes: 8,
        float: false,
    },
    ElemTy {
        name: "ulong",
        bytes: 8,
        float: false,
    },
];

const WIDTHS: &[usize] = &[2, 3, 4, 8, 16];

/// The integer type of the same size (comparison results, select masks).
fn int_of(e: ElemTy) -> &'static str {
    match e.bytes {
        1 => "char",
        2 => "short",
        4 => "int",
        _ => "long",
    }
}

/// A random expression of type `t` = `e` x `n` over the variables `x`, `y`, `z` and `acc`.
fn expr(r: &mut Rng, e: ElemTy, n: usize, depth: u32) -> String {
    let t = format!("{}{}", e.name, n);
    let leaf = |r: &mut Rng| -> String {
        match r.below(6) {
            0 => "x".into(),
            1 => "y".into(),
            2 => "z".into(),
            3 => "acc".into(),
            4 => {
                // A swizzle: n components of x, y or z, with repeats.
                let v = *r.pick(&["x", "y", "z"]);
                let comps: String = (0..n).map(|_| format!("{:X}", r.below(n))).collect();
                format!("{v}.s{comps}")
            }
            _ => {
                if e.float {
                    format!("({t})({:.2}f)", (r.below(9) as f32 - 4.0) * 0.75)
                } else {
                    format!("({t})({})", r.below(9))
                }
            }
        }
    };
    if depth == 0 {
        return leaf(r);
    }
    let sub = |r: &mut Rng| expr(r, e, n, depth - 1);
    let a = sub(r);
    let b = sub(r);
    let c = sub(r);
    let it = int_of(e);
    if e.float {
        match r.below(25) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} / {b})"),
            4 => format!("(-{a})"),
            5 => format!("fma({a}, {b}, {c})"),
            6 => format!("mad({a}, {b}, {c})"),
            7 => format!("fmin({a}, {b})"),
            8 => format!("fmax({a}, {b})"),
            9 => format!("clamp({a}, {b}, {c})"),
            10 => format!("sqrt(fabs({a}))"),
            11 => format!("rsqrt({a})"),
            12 => format!("floor({a})"),
            13 => format!("ceil({a})"),
            14 => format!("rint({a})"),
            15 => format!("trunc({a})"),
            16 => format!("mix({a}, {b}, {c})"),
            17 => format!("select({a}, {b}, {a} < {c})"),
            18 => format!("({a} > {b} ? {c} : {a})"),
            19 => format!("bitselect({a}, {b}, {c})"),
            20 => format!("sin({a})"),
            21 => format!("exp({a})"),
            22 => format!("({a} * ({}){})", e.name, r.below(5)),
            23 => {
                let (i, j) = (r.below(n), r.below(n));
                format!("fma(({t})({b}.s{i:X} - {c}.s{j:X}), {a}, ({t})({b}.s{j:X}))")
            }
            _ => {
                let i = r.below(n);
                format!("({a} + ({t})({b}.s{i:X}))")
            }
        }
    } else {
        match r.below(30) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} & {b})"),
            4 => format!("({a} | {b})"),
            5 => format!("({a} ^ {b})"),
            6 => format!("(~{a})"),
            7 => format!("(-{a})"),
            8 => format!("({a} << {})", r.below(e.bytes * 8)),
            9 => format!("({a} >> {})", r.below(e.bytes * 8)),
            10 => format!("({a} << {b})"),
            11 => format!("({a} >> {b})"),
            12 => format!("({a} / {b})"),
            13 => format!("({a} % {b})"),
            14 => format!("min({a}, {b})"),
            15 => format!("max({a}, {b})"),
            16 => format!("clamp({a}, {b}, {c})"),
            17 => format!("as_{t}(abs({a}))"),
            18 => format!("rotate({a}, {b})"),
            19 => format!("bitselect({a}, {b}, {c})"),
            20 => format!("select({a}, {b}, as_{it}{n}({c}))"),
            21 => format!("({a} < {b} ? {c} : {a})"),
            22 => format!("as_{t}({a} == {b})"),
            23 => format!("add_sat({a}, {b})"),
            24 => format!("rotate({a}, ({t})({}))", r.below(e.bytes * 8 + 3)),
            25 => format!("({a} << ({t})(({})trips))", e.name),
            26 => format!("({a} >> ({t})(({})(trips + 5)))", e.name),
            // Broadcasts of one lane and of a scalar expression (splats).
            27 => {
                let i = r.below(n);
                format!("({a} + ({t})({b}.s{i:X}))")
            }
            28 => {
                let (i, j) = (r.below(n), r.below(n));
                format!("({a} ^ ({t})({b}.s{i:X} * {c}.s{j:X}))")
            }
            _ => format!("mul_hi({a}, {b})"),
        }
    }
}

/// One kernel over `e` x `n`: loads through vloadn and a vector pointer, statements with a
/// loop carrying a vector, a component insertion, half-vector construction, stores through
/// vstoren and the pointer.
fn kernel_source(r: &mut Rng, name: &str, e: ElemTy, n: usize) -> String {
    let t = format!("{}{}", e.name, n);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "kernel void {name}(global const {el} *a, global const {t} *b, global const {el} *c, \
         global {el} *out, global {t} *out2, int trips) {{",
        el = e.name
    );
    let _ = writeln!(s, "  size_t g = get_global_id(0);");
    let _ = writeln!(s, "  {t} x = vload{n}(g, a);");
    let _ = writeln!(s, "  {t} y = b[g];");
    let _ = writeln!(s, "  {t} z = vload{n}(g + 1, c);");
    let _ = writeln!(s, "  {t} acc = z;");
    for _ in 0..3 + r.below(3) {
        let target = *r.pick(&["x", "y", "z", "acc"]);
        match r.below(5) {
            0 => {
                let _ = writeln!(s, "  for (int i = 0; i < trips; i++) {{ acc = {}; }}", expr(r, e, n, 2));
            }
            1 => {
                let i = r.below(n);
                let v = *r.pick(&["x", "y", "z"]);
                let j = r.below(n);
                let _ = writeln!(s, "  {target}.s{i:X} = {v}.s{j:X};");
            }
            2 if n != 3 => {
                let _ = writeln!(
                    s,
                    "  {target} = ({t})(({}).lo, ({}).hi);",
                    expr(r, e, n, 1),
                    expr(r, e, n, 1)
                );
            }
            _ => {
                let d = 1 + r.below(2) as u32;
                let _ = writeln!(s, "  {target} = {};", expr(r, e, n, d));
            }
        }
    }
    let _ = writeln!(s, "  vstore{n}(acc + x, g, out);");
    let _ = writeln!(s, "  out2[g] = {};", expr(r, e, n, 2));
    let _ = writeln!(s, "}}");
    s
}

fn compile_cl(src: &str, dir: &std::path::Path, tag: &str) -> Option<Vec<u8>> {
    let cl = dir.join(format!("{tag}.cl"));
    std::fs::write(&cl, src).ok()?;
    // llvm-spirv-15 cannot translate some of what clang's optimizer makes of odd expressions
    // (an LLVM `freeze` after a char division): such a program is skipped.
    match cl_to_spirv(&cl, &[], dir, tag) {
        Ok(spv) => Some(spv),
        Err(e) => {
            eprintln!("llvm-spirv-15 skipped {tag}: {e}");
            Some(Vec::new())
        }
    }
}

fn build(spv: &[u8], leaves: bool) -> Program {
    // SAFETY (remove_var): this file holds a single test, so no other thread reads the
    // environment while it changes.
    std::env::remove_var("CLIFT_VECTOR_LEAVES");
    build_with_env(spv, if leaves { &[("CLIFT_VECTOR_LEAVES", "1")] } else { &[] })
}

const ITEMS: u64 = 61;
const BUF: usize = (ITEMS as usize + 2) * 16 * 8;

fn random_buffer(r: &mut Rng, e: ElemTy) -> Vec<u8> {
    let mut out = Vec::with_capacity(BUF);
    while out.len() < BUF {
        match (e.float, e.bytes) {
            (true, 4) => {
                let v: f32 = match r.below(16) {
                    0 => f32::NAN,
                    1 => f32::INFINITY,
                    2 => -0.0,
                    3 => f32::MIN_POSITIVE / 4.0,
                    _ => (r.next() % 20000) as f32 / 100.0 - 100.0,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
            (true, _) => {
                let v: f64 = match r.below(16) {
                    0 => f64::NAN,
                    1 => f64::NEG_INFINITY,
                    2 => -0.0,
                    _ => (r.next() % 20000) as f64 / 100.0 - 100.0,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
            _ => {
                let v = match r.below(8) {
                    0 => 0u64,
                    1 => u64::MAX,
                    2 => 1u64 << (e.bytes * 8 - 1),
                    3 => r.next() % 8,
                    _ => r.next(),
                };
                out.extend_from_slice(&v.to_le_bytes()[..e.bytes]);
            }
        }
    }
    out.truncate(BUF);
    out
}

/// Runs kernel `k` over ITEMS work-items (groups of 16, so the last group is partial) and
/// returns both output buffers.
fn run(k: &Kernel, inputs: &[Vec<u8>; 3], trips: i32) -> (Vec<u8>, Vec<u8>) {
    let mut ins = inputs.clone();
    let mut out = vec![0u8; BUF];
    let mut out2 = vec![0u8; BUF];
    let ptrs = [
        ins[0].as_mut_ptr(),
        ins[1].as_mut_ptr(),
        ins[2].as_mut_ptr(),
        out.as_mut_ptr(),
        out2.as_mut_ptr(),
    ];
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    let bytes = block.as_mut_ptr() as *mut u8;
    assert_eq!(k.args.len(), 6);
    for (i, ka) in k.args.iter().enumerate() {
        // SAFETY: offsets come from the kernel's argument layout, inside `block`.
        unsafe {
            match ka.kind {
                ArgKind::Global => *(bytes.add(ka.offset) as *mut u64) = ptrs[i] as u64,
                ArgKind::Value => *(bytes.add(ka.offset) as *mut i32) = trips,
                k => panic!("unexpected argument kind {k:?}"),
            }
        }
    }
    let local = 16u64;
    let groups = ITEMS.div_ceil(local);
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES.div_ceil(16) + 1];
    for g in 0..groups {
        let ctx = WorkGroupContext {
            work_dim: 1,
            host_shared: 0,
            serial: 0,
            global_offset: [0; 3],
            global_size: [ITEMS, 1, 1],
            local_size: [(ITEMS - g * local).min(local), 1, 1],
            enqueued_local_size: [local, 1, 1],
            num_groups: [groups, 1, 1],
            group_id: [g, 0, 0],
            local_mem: arena.as_mut_ptr() as *mut u8,
            printf: std::ptr::null_mut(),
        };
        // SAFETY: every buffer holds BUF bytes, more than the kernel reads or writes for
        // ITEMS work-items of at most 16 lanes of 8 bytes (vload at g + 1 included).
        unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
    }
    (out, out2)
}

/// Bit-identical, except that any NaN equals any NaN: OpenCL leaves a NaN's sign and payload
/// unspecified, and which operand's NaN an x86 instruction passes on depends on the operand
/// order the backend picks (FMA's 132/213/231 forms, commuted adds) in scalar and vector code
/// alike.
fn same(a: &[u8], b: &[u8], e: ElemTy) -> bool {
    if !e.float {
        return a == b;
    }
    a.chunks(e.bytes).zip(b.chunks(e.bytes)).all(|(x, y)| {
        if e.bytes == 4 {
            let (x, y) = (
                f32::from_le_bytes(x.try_into().unwrap_or([0; 4])),
                f32::from_le_bytes(y.try_into().unwrap_or([0; 4])),
            );
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        } else {
            let (x, y) = (
                f64::from_le_bytes(x.try_into().unwrap_or([0; 8])),
                f64::from_le_bytes(y.try_into().unwrap_or([0; 8])),
            );
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
    })
}

#[test]
fn random_vector_kernels_simd_equals_leaves() {
    if !support::have_clang() {
        eprintln!("clang-15 is not installed: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("clift-vector-simd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let seeds: u64 = std::env::var("CLIFT_VECTOR_TEST_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let mut kernels_run = 0;
    for seed in 0..seeds {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed.wrapping_mul(0x1000_0000_01b3) + 1));
        // Several kernels per program, each over its own element type and width.
        let mut src = String::new();
        let mut shapes = Vec::new();
        for k in 0..4 {
            let e = *r.pick(ELEMS);
            let n = *r.pick(WIDTHS);
            let name = format!("k{k}");
            src.push_str(&kernel_source(&mut r, &name, e, n));
            shapes.push((name, e));
        }
        if let Ok(f) = std::env::var("CLIFT_VECTOR_TEST_SRC") {
            // Debugging: one program from a file (its kernels' shapes as generated).
            src = std::fs::read_to_string(f).expect("source");
        }
        let Some(spv) = compile_cl(&src, &dir, &format!("p{seed}")) else {
            panic!("could not run clang-15 / llvm-spirv-15");
        };
        if spv.is_empty() {
            continue;
        }
        let simd = build(&spv, false);
        let leaves = build(&spv, true);
        for (name, e) in &shapes {
            let inputs = [
                random_buffer(&mut r, *e),
                random_buffer(&mut r, *e),
                random_buffer(&mut r, *e),
            ];
            let trips = r.below(4) as i32;
            let ks = simd.kernel(name).expect("kernel");
            let kl = leaves.kernel(name).expect("kernel");
            let a = run(&ks, &inputs, trips);
            let b = run(&kl, &inputs, trips);
            if !same(&a.0, &b.0, *e) || !same(&a.1, &b.1, *e) {
                let at = a.0.iter().zip(&b.0).position(|(x, y)| x != y);
                let at2 = a.1.iter().zip(&b.1).position(|(x, y)| x != y);
                let show =
                    |v: &[u8], at: Option<usize>| at.map(|i| v[i.saturating_sub(8)..(i + 8).min(v.len())].to_vec());
                panic!(
                    "simd {:?} / leaves {:?}; simd {:?} / leaves {:?}\nprogram {seed}, kernel {name}: SIMD and leaves differ (out byte {at:?}, out2 byte {at2:?})\n{src}",
                    show(&a.0, at), show(&b.0, at), show(&a.1, at2), show(&b.1, at2)
                );
            }
            kernels_run += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Nearly every program translates.
    assert!(kernels_run * 10 >= seeds * 4 * 8, "only {kernels_run} kernels ran");
}
