//! The vector loop with two quads per iteration (eight work-items, `CLIFT_SIMD_QUADS=2`)
//! against the scalar loop (`CLIFT_SIMD=0`) on kernels/simd_quads.cl: Mandelbrot's loop with a
//! third exit on a loaded value and a store under the execution mask every round, a loop with
//! each work-item's own trip count, straight-line code with affine accesses at several
//! strides, an if-else storing in both arms under each quad's mask, and a load in one arm that
//! the eight work-items take alike or hand to the scalar loop, over row lengths 1 to 21 (the rows' rests go to the four-lane loop and the scalar
//! loop) and random inputs; every output word must be bit-identical. With `CLIFT_SIMD=strict`
//! a vector body that fails to build (two quads included) is an error.

mod support;
use support::{build_with_env as build, cl_to_spirv, ptr, run_grid, Arg, Rng};

/// Runs kernel `name` of `p` on `width` x `rows` work-items (groups of `width` by 1) and gives
/// its two output arrays.
fn run(p: &jit::Program, name: &str, a: &[f32], ia: &[u32], width: u64, rows: u64) -> (Vec<u32>, Vec<u32>) {
    let k = p.kernel(name).expect("kernel");
    let mut a = a.to_vec();
    let mut ia = ia.to_vec();
    let mut o = vec![0xffff_ffffu32; 1024];
    let mut io = vec![0xffff_ffffu32; 1024];
    let args: Vec<Arg> = match name {
        "exits" => vec![
            ptr(&mut a),
            ptr(&mut o),
            ptr(&mut io),
            Arg::U32(width as u32),
            Arg::U32(40),
        ],
        "own_count" | "branches" | "early" => vec![ptr(&mut a), ptr(&mut ia), ptr(&mut o), ptr(&mut io)],
        _ => vec![
            ptr(&mut a),
            ptr(&mut ia),
            ptr(&mut o),
            ptr(&mut io),
            Arg::U32(1.25f32.to_bits()),
        ],
    };
    let dims = if name == "exits" { 2 } else { 1 };
    run_grid(&k, &args, dims, [width, 1, 1], [1, rows, 1]);
    (o, io)
}

#[test]
fn two_quads_match_the_scalar_loop() {
    if !support::have_clang() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("clift-simd-quads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cl = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/simd_quads.cl");
    let spv = cl_to_spirv(&cl, &[], &dir, "simd_quads").expect("llvm-spirv");
    let _ = std::fs::remove_dir_all(&dir);
    let quads = build(&spv, &[("CLIFT_SIMD", "strict"), ("CLIFT_SIMD_QUADS", "2")]);
    let scalar = build(&spv, &[("CLIFT_SIMD", "0")]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..4 {
        let a: Vec<f32> = (0..1024)
            .map(|k| match (round, k % 9) {
                (0, 0) => f32::NAN,
                (1, 1) => f32::INFINITY,
                (2, 2) => -0.0,
                _ => rng.float(),
            })
            .collect();
        let ia: Vec<u32> = (0..1024).map(|_| rng.next() as u32).collect();
        for name in ["exits", "own_count", "straight", "branches", "early"] {
            for width in 1..=21u64 {
                let rows = if name == "exits" { 3 } else { 1 };
                let (o2, io2) = run(&quads, name, &a, &ia, width, rows);
                let (o1, io1) = run(&scalar, name, &a, &ia, width, rows);
                // (NaNs compare as a class: their payloads are not specified.)
                let canon = |v: &[u32]| -> Vec<u32> {
                    v.iter()
                        .map(|w| if f32::from_bits(*w).is_nan() { 0x7fc0_0000 } else { *w })
                        .collect()
                };
                for (what, got, want) in [("o", canon(&o2), canon(&o1)), ("io", io2, io1)] {
                    if let Some(at) = (0..got.len()).find(|&k| got[k] != want[k]) {
                        panic!(
                            "{name}, rows of {width}, round {round}: {what}[{at}] is {:#x} with two quads, {:#x} scalar",
                            got[at], want[at]
                        );
                    }
                }
            }
        }
    }
}
