//! The Khronos CTS `conversions` suite's matrix, from OpenCL C (kernels/source/audit_convert.cl,
//! so through clang and llvm-spirv's encoding of each builtin): every
//! `convert_<dst><_sat><_rte|_rtz|_rtp|_rtn>` between the ten scalar types (uchar ... long,
//! float, double), scalar and at widths 2, 3, 4, 8 and 16 (vload/vstore), on edge and random
//! inputs, against a host reference with the OpenCL C rules: integer to integer wraps, or
//! clamps with `_sat`; float to integer rounds per the mode (default toward zero) and with
//! `_sat` clamps and maps NaN to 0 (without `_sat`, out-of-range and NaN inputs are undefined
//! and skipped, as the CTS clamps its inputs there); integer and double to float round per the
//! mode (default to nearest even), overflowing to infinity or to the largest finite value as
//! the mode says.

use cts::image_ref::Rng;
use cts::*;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Int { bits: u32, signed: bool },
    Float(u32),
}

#[derive(Clone, Copy, Debug)]
struct Ty {
    name: &'static str,
    kind: Kind,
}

impl Ty {
    fn size(&self) -> usize {
        match self.kind {
            Kind::Int { bits, .. } => bits as usize / 8,
            Kind::Float(b) => b as usize / 8,
        }
    }
    fn range(&self) -> (i128, i128) {
        match self.kind {
            Kind::Int { bits, signed: true } => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
            Kind::Int { bits, signed: false } => (0, (1i128 << bits) - 1),
            Kind::Float(_) => unreachable!(),
        }
    }
}

const fn int(name: &'static str, bits: u32, signed: bool) -> Ty {
    Ty {
        name,
        kind: Kind::Int { bits, signed },
    }
}

const TYPES: [Ty; 10] = [
    int("uchar", 8, false),
    int("char", 8, true),
    int("ushort", 16, false),
    int("short", 16, true),
    int("uint", 32, false),
    int("int", 32, true),
    int("ulong", 64, false),
    int("long", 64, true),
    Ty {
        name: "float",
        kind: Kind::Float(32),
    },
    Ty {
        name: "double",
        kind: Kind::Float(64),
    },
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    I(i128),
    F(f64),
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

const ROUNDS: [(&str, Option<Mode>); 5] = [
    ("", None),
    ("_rte", Some(Mode::Rte)),
    ("_rtz", Some(Mode::Rtz)),
    ("_rtp", Some(Mode::Rtp)),
    ("_rtn", Some(Mode::Rtn)),
];

fn decode(t: Ty, b: &[u8]) -> Val {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    let u = u64::from_le_bytes(w);
    match t.kind {
        Kind::Int { bits, signed } => {
            let sh = 64 - bits;
            if signed {
                Val::I((((u << sh) as i64) >> sh) as i128)
            } else {
                Val::I(((u << sh) >> sh) as i128)
            }
        }
        Kind::Float(32) => Val::F(f32::from_bits(u as u32) as f64),
        Kind::Float(_) => Val::F(f64::from_bits(u)),
    }
}

fn encode(t: Ty, v: Val, out: &mut Vec<u8>) {
    match (t.kind, v) {
        (Kind::Int { .. }, Val::I(x)) => out.extend_from_slice(&(x as i64).to_le_bytes()[..t.size()]),
        (Kind::Float(32), Val::F(x)) => out.extend_from_slice(&(x as f32).to_le_bytes()),
        (Kind::Float(_), Val::F(x)) => out.extend_from_slice(&x.to_le_bytes()),
        _ => unreachable!(),
    }
}

/// `r`, the round-to-nearest-even result of converting a value to a float of `bits` bits,
/// moved one step as `mode` asks given how `r` compares with the exact value.
fn adjust(r: f64, bits: u32, cmp: std::cmp::Ordering, mode: Mode) -> f64 {
    use std::cmp::Ordering::*;
    let up = match (mode, cmp) {
        (Mode::Rte, _) | (_, Equal) => return r,
        (Mode::Rtp, Less) => true,
        (Mode::Rtn, Greater) => false,
        (Mode::Rtz, Greater) if r > 0.0 => false,
        (Mode::Rtz, Less) if r < 0.0 => true,
        _ => return r,
    };
    if bits == 32 {
        let f = r as f32;
        (if up { f.next_up() } else { f.next_down() }) as f64
    } else if up {
        r.next_up()
    } else {
        r.next_down()
    }
}

/// The OpenCL C result of `convert_<dst><sat><mode>(x)`; `None` where it is undefined.
fn reference(x: Val, dst: Ty, sat: bool, mode: Option<Mode>) -> Option<Val> {
    match (x, dst.kind) {
        (Val::I(v), Kind::Int { bits, signed }) => {
            if sat {
                let (lo, hi) = dst.range();
                Some(Val::I(v.clamp(lo, hi)))
            } else {
                let sh = 128 - bits;
                Some(Val::I(if signed {
                    (v << sh) >> sh
                } else {
                    ((v as u128) << sh >> sh) as i128
                }))
            }
        }
        (Val::I(v), Kind::Float(bits)) => {
            let mode = mode.unwrap_or(Mode::Rte);
            let r = if bits == 32 { v as f32 as f64 } else { v as f64 };
            Some(Val::F(adjust(r, bits, (r as i128).cmp(&v), mode)))
        }
        (Val::F(v), Kind::Int { .. }) => {
            if v.is_nan() {
                return sat.then_some(Val::I(0));
            }
            let r = match mode.unwrap_or(Mode::Rtz) {
                Mode::Rte => v.round_ties_even(),
                Mode::Rtz => v.trunc(),
                Mode::Rtp => v.ceil(),
                Mode::Rtn => v.floor(),
            };
            // `as` saturates: infinities and huge values land outside every range.
            let ri = r as i128;
            let (lo, hi) = dst.range();
            if ri < lo {
                sat.then_some(Val::I(lo))
            } else if ri > hi {
                sat.then_some(Val::I(hi))
            } else {
                Some(Val::I(ri))
            }
        }
        (Val::F(v), Kind::Float(bits)) => {
            if bits == 64 || v.is_nan() {
                return Some(Val::F(v));
            }
            let r = v as f32 as f64;
            let mode = mode.unwrap_or(Mode::Rte);
            Some(Val::F(adjust(r, 32, r.partial_cmp(&v).unwrap(), mode)))
        }
    }
}

fn same(a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::F(x), Val::F(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Elements per kernel: a multiple of 3 and of 16.
const N: usize = 3 * 16 * 40;

/// Edge and random inputs of type `t`, encoded.
fn inputs(t: Ty, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut vals: Vec<Val> = Vec::new();
    match t.kind {
        Kind::Int { .. } => {
            let (lo, hi) = t.range();
            let mut edges = vec![0i128, 1, -1, 2, -2, 3, lo, hi, lo + 1, hi - 1];
            for b in [7, 8, 15, 16, 23, 24, 25, 31, 32, 52, 53, 54, 55, 62, 63, 64] {
                for d in -3i128..=3 {
                    edges.push((1i128 << b) + d);
                    edges.push(-(1i128 << b) + d);
                }
                // Ties and near-ties for float rounding.
                edges.push((1i128 << b) + (1 << (b - 24).max(0)));
                edges.push((1i128 << b) + 3 * (1 << (b - 25).max(0)));
                edges.push(-(1i128 << b) - (1 << (b - 24).max(0)));
            }
            vals.extend(edges.into_iter().filter(|v| (lo..=hi).contains(v)).map(Val::I));
            while vals.len() < N {
                // Random magnitudes: random bits masked to a random width.
                let w = 1 + rng.below(64) as u32;
                let bits = rng.next_u64() & (u64::MAX >> (64 - w));
                let v = match t.kind {
                    Kind::Int { bits: tb, signed } => {
                        let sh = 64 - tb;
                        if signed {
                            (((bits << sh) as i64) >> sh) as i128
                        } else {
                            ((bits << sh) >> sh) as i128
                        }
                    }
                    _ => unreachable!(),
                };
                let v = if rng.below(2) == 0 { v } else { -v };
                vals.push(Val::I(v.clamp(lo, hi)));
            }
        }
        Kind::Float(bits) => {
            let mut e = vec![
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                0.5,
                -0.5,
                1.5,
                -1.5,
                2.5,
                -2.5,
                0.49999997,
                -0.49999997,
                1.0e-40,
                -1.0e-40,
                1.0e-310,
                -1.0e-310,
                f32::MAX as f64,
                f32::MIN_POSITIVE as f64,
                f64::MAX,
                -f64::MAX,
                3.4028235677973366e38,
                3.402823567797337e38,
            ];
            for b in [7, 8, 15, 16, 31, 32, 63, 64] {
                let p = (2f64).powi(b);
                for x in [p, p - 1.0, p - 0.5, p + 0.5, p + 1.0, p - 1.5] {
                    for y in [x, -x] {
                        e.push(y);
                        if bits == 32 {
                            let f = y as f32;
                            e.push(f.next_up() as f64);
                            e.push(f.next_down() as f64);
                        } else {
                            e.push(y.next_up());
                            e.push(y.next_down());
                        }
                    }
                }
            }
            vals.extend(e.into_iter().map(Val::F));
            while vals.len() < N {
                let v = match rng.below(4) {
                    // Random bit patterns.
                    0 => {
                        if bits == 32 {
                            f32::from_bits(rng.next_u64() as u32) as f64
                        } else {
                            f64::from_bits(rng.next_u64())
                        }
                    }
                    // Halves and near-halves in the small integer ranges.
                    1 => {
                        let k = (rng.below(1 << 17) as f64 - 65536.0) / 2.0;
                        k + [0.0, 1e-3, -1e-3][rng.below(3) as usize]
                    }
                    // Log-uniform magnitudes up to 2^70.
                    _ => {
                        let m = 1.0 + rng.below(1 << 30) as f64 / (1u64 << 30) as f64;
                        let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                        s * m * (2f64).powi(rng.below(140) as i32 - 70)
                    }
                };
                vals.push(Val::F(if bits == 32 { v as f32 as f64 } else { v }));
            }
        }
    }
    vals.truncate(N);
    let mut out = Vec::new();
    for v in vals {
        encode(t, v, &mut out);
    }
    out
}

/// Runs every conversion kernel of prefix `pre` (`c` scalar, `v` vector of `width`) of `prog`.
fn run_all(ctx: &Context, q: &Queue, prog: &Program, pre: &str, width: usize) {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (si, s) in TYPES.iter().enumerate() {
        let src = inputs(*s, 0x5eed + si as u64);
        let bs = ctx.buffer_from(&src);
        for d in TYPES {
            let sats: &[bool] = if matches!(d.kind, Kind::Float(_)) {
                &[false]
            } else {
                &[false, true]
            };
            for &sat in sats {
                for (rn, mode) in ROUNDS {
                    let name = format!("{pre}_{}_{}{}{rn}", s.name, d.name, if sat { "_sat" } else { "" });
                    let k = prog.kernel(&name);
                    let bd = ctx.buffer(N * d.size());
                    k.arg_mem(0, &bs);
                    k.arg_mem(1, &bd);
                    q.run(&k, &[], &[N / width], &[]);
                    let out = q.read(&bd, 0, N * d.size());
                    let mut bad = 0;
                    for i in 0..N {
                        let x = decode(*s, &src[i * s.size()..(i + 1) * s.size()]);
                        let Some(want) = reference(x, d, sat, mode) else {
                            continue;
                        };
                        let got = decode(d, &out[i * d.size()..(i + 1) * d.size()]);
                        checked += 1;
                        if !same(got, want) {
                            bad += 1;
                            if bad <= 3 {
                                failures.push(format!("{name}: {x:?} -> {got:?}, want {want:?}"));
                            }
                        }
                    }
                    if bad > 3 {
                        failures.push(format!("{name}: {bad} wrong results"));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{pre} (width {width}): {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 900 * N / 2);
}

#[test]
fn audit_convert_scalar() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("audit_convert.cl", "");
    run_all(&ctx, &q, &prog, "c", 1);
}

#[test]
fn audit_convert_vectors() {
    let ctx = Context::new();
    let q = ctx.queue();
    for w in [2, 3, 4, 8, 16] {
        let prog = ctx.built_source("audit_convert.cl", &format!("-DWIDTH={w}"));
        run_all(&ctx, &q, &prog, "v", w);
    }
}
