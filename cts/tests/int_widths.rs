//! Every OpenCL.std integer function in every vector width (1, 2, 3, 4, 8, 16) of every integer
//! type (kernels/source/int_widths.cl, built from OpenCL C once per type): each width must give,
//! component by component, exactly the scalar kernel's result on the same inputs. `math_int`
//! checks the scalar and 4-wide forms against host integer semantics; this covers the other
//! widths, including the 3-component ones (vload3/vstore3).

use cts::image_ref::Rng;
use cts::*;

/// Elements per function: a multiple of 3 and of 16.
const N: usize = 480;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// (type, its unsigned type, bytes, has mul24/mad24).
const TYPES: [(&str, &str, usize, bool); 8] = [
    ("char", "uchar", 1, false),
    ("uchar", "uchar", 1, false),
    ("short", "ushort", 2, false),
    ("ushort", "ushort", 2, false),
    ("int", "uint", 4, true),
    ("uint", "uint", 4, true),
    ("long", "ulong", 8, false),
    ("ulong", "ulong", 8, false),
];

const UNARY: &[&str] = &["abs", "clz", "ctz", "popcount"];
const BINARY: &[&str] = &[
    "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "mul_hi", "rotate", "min", "max",
];
const TERNARY: &[&str] = &["mad_hi", "mad_sat", "clamp"];

/// `N` values of `bytes` bytes: the edge values (0, 1, -1, the signed minimum and maximum, small
/// numbers), then random bit patterns, some narrowed to small magnitudes.
fn values(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let bits = bytes * 8;
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let smin = 1u64 << (bits - 1);
    let edges = [0, 1, mask, smin, smin - 1, 2, 3, mask - 1, 7, 100 & mask, smin + 1];
    let mut out = Vec::with_capacity(N * bytes);
    for i in 0..N {
        let v = if i < edges.len() {
            edges[i]
        } else {
            match rng.next_u64() % 3 {
                0 => rng.next_u64() % 64,
                1 => rng.next_u64().wrapping_neg() % 64,
                _ => rng.next_u64(),
            }
        } & mask;
        out.extend_from_slice(&v.to_le_bytes()[..bytes]);
    }
    out
}

fn run_type(ty: &str, uty: &str, bytes: usize, is32: bool) -> Vec<String> {
    let ctx = Context::new();
    let q = ctx.queue();
    let mut opts = format!("-cl-std=CL3.0 -DT={ty} -DUT={uty}");
    if is32 {
        opts.push_str(" -DIS32");
    }
    let p = ctx.built_source("int_widths.cl", &opts);
    let mut rng = Rng::new(bytes as u64);
    let (x, y, z) = (
        ctx.buffer_from(&values(&mut rng, bytes)),
        ctx.buffer_from(&values(&mut rng, bytes)),
        ctx.buffer_from(&values(&mut rng, bytes)),
    );
    let out = ctx.buffer(N * bytes);
    let mut funcs: Vec<(&str, usize)> = Vec::new();
    funcs.extend(UNARY.iter().map(|f| (*f, 1)));
    funcs.extend(BINARY.iter().map(|f| (*f, 2)));
    funcs.extend(TERNARY.iter().map(|f| (*f, 3)));
    if is32 {
        funcs.extend([("mul24", 2), ("mad24", 3)]);
    }
    let mut failures = Vec::new();
    for &(name, arity) in &funcs {
        let mut scalar = Vec::new();
        for w in WIDTHS {
            let k = p.kernel(&format!("k_{name}_{w}"));
            for (i, m) in [&x, &y, &z].iter().take(arity).enumerate() {
                k.arg_mem(i as cl_uint, m);
            }
            k.arg_mem(arity as cl_uint, &out);
            q.run(&k, &[], &[N / w], &[]);
            let got = q.read(&out, 0, N * bytes);
            if w == 1 {
                scalar = got;
                continue;
            }
            if let Some(i) = (0..N).find(|&i| got[i * bytes..(i + 1) * bytes] != scalar[i * bytes..(i + 1) * bytes]) {
                failures.push(format!(
                    "{name}({ty}) width {w}: element {i} is {:02x?}, the scalar kernel gives {:02x?}",
                    &got[i * bytes..(i + 1) * bytes],
                    &scalar[i * bytes..(i + 1) * bytes]
                ));
            }
        }
    }
    println!(
        "{ty}: {} functions x widths {WIDTHS:?}: {} differ from the scalar form",
        funcs.len(),
        failures.len()
    );
    failures
}

#[test]
fn int_widths() {
    let mut failures = Vec::new();
    for (ty, uty, bytes, is32) in TYPES {
        failures.extend(run_type(ty, uty, bytes, is32));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
