//! The `cl_khr_subgroup_*` extensions (issue 17 item 4), against host arithmetic over the
//! sub-groups the kernels report (`get_sub_group_id/local_id/size`: the tests hold for any
//! sub-group size):
//! - non-uniform reduce / scans (add, mul, min, max, and, or, xor, logical and / or / xor) in
//!   char, uchar, short, ushort, int, uint, long, ulong, float, double and half, called in both
//!   branches of a divergent `if`: each call sees exactly the work-items of its branch;
//! - uniform reduce / scans in the extended types and clustered reductions;
//! - broadcast, non-uniform broadcast, broadcast_first, shuffle, shuffle_xor, shuffle_up/down,
//!   rotate and clustered rotate in every type, and vectors (char3 ... double4) for the
//!   data-movement functions;
//! - vote (elect, all, any, all_equal, float all_equal with -0 and NaN), ballot and its
//!   bit operations, the eq/ge/gt/le/lt masks;
//! - bad input: shuffles from indexes outside the sub-group give some value (undefined, not a
//!   fault); a SPIR-V module declaring GroupNonUniformQuad (no OpenCL extension) and a
//!   Workgroup-scope GroupNonUniform instruction are rejected naming them; the same functions
//!   straight from SPIR-V work.
//!
//! Kernels: kernels/subgroups/.

use cts::*;

mod spirv_asm;
use half::f16;
use std::collections::BTreeMap;

const EXTENSIONS: &[&str] = &[
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_rotate",
];

fn supported() -> bool {
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    let all = EXTENSIONS.iter().all(|e| ext.split_whitespace().any(|x| x == *e));
    if wanted_platform_name() == "Clift" {
        assert!(all, "Clift reports the sub-group extensions: {ext}");
    }
    if !all {
        eprintln!("skipped: not every cl_khr_subgroup_* extension");
    }
    all
}

/// The sub-groups of a run: (work-group, sub-group id) -> global ids by sub-group local id.
fn sub_groups(map: &[u32], n: usize, local: usize) -> BTreeMap<(usize, u32), Vec<usize>> {
    let mut out: BTreeMap<(usize, u32), Vec<(u32, usize)>> = BTreeMap::new();
    for g in 0..n {
        out.entry((g / local, map[3 * g]))
            .or_default()
            .push((map[3 * g + 1], g));
    }
    out.into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable();
            for (i, (lid, g)) in v.iter().enumerate() {
                assert_eq!(*lid as usize, i, "sub-group {k:?}: local ids 0..n, work-item {g}");
            }
            assert_eq!(map[3 * v[0].1 + 2] as usize, v.len(), "sub-group {k:?}: size");
            (k, v.into_iter().map(|(_, g)| g).collect())
        })
        .collect()
}

/// (global, local) sizes: uniform groups, a non-uniform last group, a group of one.
const SHAPES: &[(usize, usize)] = &[(128, 64), (210, 40), (67, 67), (3, 1)];
/// Divergence masks (bit `local id % 32`: the `if` branch).
const MASKS: &[u32] = &[0xf0f0_f0f0, 0xaaaa_5555, 0x8000_0001, 0xffff_ffff, 0x0000_0100];

/// An element type.
#[derive(Clone, Copy, Debug)]
struct Ty {
    name: &'static str,
    size: usize,
    float: bool,
    signed: bool,
}

const TYPES: &[Ty] = &[
    Ty {
        name: "char",
        size: 1,
        float: false,
        signed: true,
    },
    Ty {
        name: "uchar",
        size: 1,
        float: false,
        signed: false,
    },
    Ty {
        name: "short",
        size: 2,
        float: false,
        signed: true,
    },
    Ty {
        name: "ushort",
        size: 2,
        float: false,
        signed: false,
    },
    Ty {
        name: "int",
        size: 4,
        float: false,
        signed: true,
    },
    Ty {
        name: "uint",
        size: 4,
        float: false,
        signed: false,
    },
    Ty {
        name: "long",
        size: 8,
        float: false,
        signed: true,
    },
    Ty {
        name: "ulong",
        size: 8,
        float: false,
        signed: false,
    },
    Ty {
        name: "float",
        size: 4,
        float: true,
        signed: true,
    },
    Ty {
        name: "double",
        size: 8,
        float: true,
        signed: true,
    },
    Ty {
        name: "half",
        size: 2,
        float: true,
        signed: true,
    },
];

/// A value of some element type: integers exact (wrapped to the type), floats as f64 (the
/// tests' float values are small powers of two and their sums, exact in float).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    I(i128),
    F(f64),
}

impl Ty {
    fn bits(self) -> u32 {
        8 * self.size as u32
    }

    fn wrap(self, v: i128) -> i128 {
        let b = self.bits();
        let m = v & ((1i128 << b) - 1);
        if self.signed && m >= 1i128 << (b - 1) {
            m - (1i128 << b)
        } else {
            m
        }
    }

    fn options(self) -> String {
        let mut o = format!("-cl-std=CL3.0 -DT={}", self.name);
        if self.float {
            match self.size {
                8 => o.push_str(" -DFP64"),
                2 => o.push_str(" -DFP16"),
                _ => {}
            }
        } else {
            o.push_str(" -DINT");
        }
        o
    }

    /// Test input `i`: integers over the whole range with repeats, floats in {±0.5, ±1, ±2}.
    fn input(self, i: usize) -> Val {
        if self.float {
            const F: [f64; 7] = [1.0, 2.0, -1.0, 0.5, -2.0, 1.0, -0.5];
            Val::F(F[(i * 5 + i / 7) % F.len()])
        } else {
            let x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(23) ^ (i as u64 % 5);
            Val::I(self.wrap(x as i64 as i128))
        }
    }

    fn encode(self, v: Val, out: &mut Vec<u8>) {
        match (v, self.float, self.size) {
            (Val::F(f), true, 4) => out.extend((f as f32).to_le_bytes()),
            (Val::F(f), true, 2) => out.extend(f16::from_f64(f).to_le_bytes()),
            (Val::F(f), true, _) => out.extend(f.to_le_bytes()),
            (Val::I(i), false, n) => out.extend(&i.to_le_bytes()[..n]),
            _ => unreachable!("value {v:?} is not a {}", self.name),
        }
    }

    fn decode(self, b: &[u8]) -> Val {
        if self.float {
            return Val::F(match self.size {
                4 => f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
                2 => f16::from_le_bytes(b[..2].try_into().unwrap()).to_f64(),
                _ => f64::from_le_bytes(b[..8].try_into().unwrap()),
            });
        }
        let mut w = [0u8; 16];
        w[..self.size].copy_from_slice(&b[..self.size]);
        Val::I(self.wrap(i128::from_le_bytes(w)))
    }

    fn vals(self, bytes: &[u8]) -> Vec<Val> {
        bytes.chunks(self.size).map(|c| self.decode(c)).collect()
    }

    fn bytes(self, vals: &[Val]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in vals {
            self.encode(*v, &mut out);
        }
        out
    }

    fn min_value(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    fn max_value(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Arith {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
    LAnd,
    LOr,
    LXor,
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Reduce,
    Inclusive,
    Exclusive,
}

fn identity(t: Ty, a: Arith) -> Val {
    match (a, t.float) {
        (Arith::Add, true) => Val::F(0.0),
        (Arith::Mul, true) => Val::F(1.0),
        (Arith::Min, true) => Val::F(f64::INFINITY),
        (Arith::Max, true) => Val::F(f64::NEG_INFINITY),
        (Arith::Add | Arith::Or | Arith::Xor | Arith::LOr | Arith::LXor, _) => Val::I(0),
        (Arith::Mul | Arith::LAnd, _) => Val::I(1),
        (Arith::Min, _) => Val::I(t.max_value()),
        (Arith::Max, _) => Val::I(t.min_value()),
        (Arith::And, _) => Val::I(t.wrap(-1)),
    }
}

fn apply(t: Ty, a: Arith, x: Val, y: Val) -> Val {
    match (x, y) {
        (Val::F(x), Val::F(y)) => {
            let r = match a {
                Arith::Add => x + y,
                Arith::Mul => x * y,
                Arith::Min => x.min(y),
                Arith::Max => x.max(y),
                _ => unreachable!("{a:?} on floats"),
            };
            // Each step rounded to the type (a product of 32 twos overflows half).
            Val::F(match t.size {
                4 => r as f32 as f64,
                2 => f16::from_f64(r).to_f64(),
                _ => r,
            })
        }
        (Val::I(x), Val::I(y)) => Val::I(match a {
            Arith::Add => t.wrap(x + y),
            Arith::Mul => t.wrap(x.wrapping_mul(y)),
            Arith::Min => x.min(y),
            Arith::Max => x.max(y),
            Arith::And => x & y,
            Arith::Or => x | y,
            Arith::Xor => x ^ y,
            Arith::LAnd => i128::from(x != 0 && y != 0),
            Arith::LOr => i128::from(x != 0 || y != 0),
            Arith::LXor => i128::from((x != 0) != (y != 0)),
        }),
        _ => unreachable!(),
    }
}

/// The results of one operation over `vals` (the participants in sub-group local id order).
fn host(t: Ty, a: Arith, m: Mode, vals: &[Val]) -> Vec<Val> {
    let mut acc = identity(t, a);
    let mut out = Vec::new();
    for v in vals {
        let next = apply(t, a, acc, *v);
        out.push(if matches!(m, Mode::Exclusive) { acc } else { next });
        acc = next;
    }
    if matches!(m, Mode::Reduce) {
        out.iter_mut().for_each(|o| *o = acc);
    }
    out
}

/// Runs `kernel` of the program built for `t` over every shape and mask; `check` gets the
/// inputs, the outputs (`per` values per work-item) and each sub-group split by branch.
#[allow(clippy::type_complexity)]
fn run_divergent(
    ctx: &Context,
    q: &Queue,
    p: &Program,
    t: Ty,
    kernel: &str,
    per: usize,
    check: &dyn Fn(&[Val], &[Val], &[usize], &str),
) {
    let k = p.kernel(kernel);
    for &(n, local) in SHAPES {
        for &mask in MASKS {
            let input: Vec<Val> = (0..n).map(|i| t.input(i + mask as usize % 11)).collect();
            let inb = ctx.buffer_from(&t.bytes(&input));
            let outb = ctx.buffer(n * per * t.size);
            let mapb = ctx.buffer(n * 12);
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            k.arg_mem(2, &mapb);
            k.arg(3, &mask);
            q.run(&k, &[], &[n], &[local]);
            let got = t.vals(&q.read(&outb, 0, n * per * t.size));
            let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
            for (sg, ids) in sub_groups(&map, n, local) {
                let (taken, other): (Vec<(usize, usize)>, Vec<(usize, usize)>) = ids
                    .iter()
                    .copied()
                    .enumerate()
                    .partition(|(l, _)| (mask >> (l % 32)) & 1 == 1);
                for (branch, set) in [("if", taken), ("else", other)] {
                    let set: Vec<usize> = set.into_iter().map(|(_, g)| g).collect();
                    let what = format!(
                        "{kernel}({}) n {n} local {local} mask {mask:#x} sub-group {sg:?} {branch}",
                        t.name
                    );
                    check(&input, &got, &set, &what);
                }
            }
        }
    }
}

fn expect(got: &[Val], per: usize, set: &[usize], slot: usize, want: &[Val], what: &str) {
    for (&g, w) in set.iter().zip(want) {
        assert_eq!(got[per * g + slot], *w, "{what}: slot {slot}, work-item {g}");
    }
}

#[test]
fn non_uniform_arithmetic_in_every_type() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let src = kernel_text("subgroups/sg_ext.cl");
    for &t in TYPES {
        let p = ctx.program_source(&src);
        let err = p.build(&t.options());
        assert_eq!(err, CL_SUCCESS, "build for {}: {}", t.name, p.build_log());
        use Arith::*;
        use Mode::*;
        let if_ops = [
            (Add, Reduce),
            (Mul, Reduce),
            (Min, Reduce),
            (Max, Reduce),
            (Add, Inclusive),
            (Max, Exclusive),
            (Mul, Inclusive),
            (Min, Exclusive),
        ];
        let else_ops = [
            (Max, Reduce),
            (Min, Reduce),
            (Add, Exclusive),
            (Max, Inclusive),
            (Min, Inclusive),
            (Add, Reduce),
            (Mul, Exclusive),
            (Mul, Reduce),
        ];
        run_divergent(&ctx, &q, &p, t, "nu_arith", 8, &|input, got, set, what| {
            let vals: Vec<Val> = set.iter().map(|&g| input[g]).collect();
            let ops = if what.ends_with(" if") { if_ops } else { else_ops };
            for (slot, (a, m)) in ops.iter().enumerate() {
                expect(
                    got,
                    8,
                    set,
                    slot,
                    &host(t, *a, *m, &vals),
                    &format!("{what} {a:?} {m:?}"),
                );
            }
        });
        if !t.float {
            let if_ops = [
                (And, Reduce),
                (Or, Inclusive),
                (Xor, Exclusive),
                (LAnd, Reduce),
                (LOr, Inclusive),
                (LXor, Exclusive),
            ];
            let else_ops = [
                (Xor, Reduce),
                (And, Exclusive),
                (Or, Reduce),
                (LXor, Reduce),
                (LAnd, Exclusive),
                (LOr, Reduce),
            ];
            run_divergent(&ctx, &q, &p, t, "nu_bits", 6, &|input, got, set, what| {
                let vals: Vec<Val> = set.iter().map(|&g| input[g]).collect();
                let ops = if what.ends_with(" if") { if_ops } else { else_ops };
                for (slot, (a, m)) in ops.iter().enumerate() {
                    // Slots 3, 4, 5 (the logical operations) take bit 0, 1 or 2 of the operand.
                    let bit = match slot {
                        3 => 1,
                        4 => 2,
                        5 => 4,
                        _ => -1,
                    };
                    let vals: Vec<Val> = vals
                        .iter()
                        .map(|v| match v {
                            Val::I(x) if bit > 0 => Val::I(i128::from(x & bit != 0)),
                            _ => *v,
                        })
                        .collect();
                    expect(
                        got,
                        6,
                        set,
                        slot,
                        &host(t, *a, *m, &vals),
                        &format!("{what} {a:?} {m:?}"),
                    );
                }
            });
        }
    }
}

#[test]
fn uniform_and_clustered_reductions_in_every_type() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let src = kernel_text("subgroups/sg_ext.cl");
    for &t in TYPES {
        let p = ctx.program_source(&src);
        assert_eq!(p.build(&t.options()), CL_SUCCESS, "{}: {}", t.name, p.build_log());
        let k = p.kernel("uniform_arith");
        for &(n, local) in SHAPES {
            let input: Vec<Val> = (0..n).map(|i| t.input(3 * i + 1)).collect();
            let inb = ctx.buffer_from(&t.bytes(&input));
            let outb = ctx.buffer(n * 7 * t.size);
            let mapb = ctx.buffer(n * 12);
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            k.arg_mem(2, &mapb);
            q.run(&k, &[], &[n], &[local]);
            let got = t.vals(&q.read(&outb, 0, n * 7 * t.size));
            let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
            for (sg, ids) in sub_groups(&map, n, local) {
                let vals: Vec<Val> = ids.iter().map(|&g| input[g]).collect();
                let what = format!("uniform_arith({}) n {n} local {local} sub-group {sg:?}", t.name);
                expect(&got, 7, &ids, 0, &host(t, Arith::Add, Mode::Reduce, &vals), &what);
                expect(&got, 7, &ids, 1, &host(t, Arith::Min, Mode::Inclusive, &vals), &what);
                expect(&got, 7, &ids, 2, &host(t, Arith::Max, Mode::Exclusive, &vals), &what);
                for (slot, a, c) in [
                    (3, Arith::Add, 1),
                    (4, Arith::Max, 4),
                    (5, Arith::Mul, 8),
                    (6, Arith::Min, 32),
                ] {
                    for (ci, chunk) in ids.chunks(c).enumerate() {
                        let v: Vec<Val> = chunk.iter().map(|&g| input[g]).collect();
                        let want = host(t, a, Mode::Reduce, &v);
                        expect(
                            &got,
                            7,
                            chunk,
                            slot,
                            &want,
                            &format!("{what} clustered {a:?} {c}, cluster {ci}"),
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn broadcasts_shuffles_and_rotations_in_every_type() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let src = kernel_text("subgroups/sg_ext.cl");
    for &t in TYPES {
        let p = ctx.program_source(&src);
        assert_eq!(p.build(&t.options()), CL_SUCCESS, "{}: {}", t.name, p.build_log());
        let k = p.kernel("moves");
        for &(n, local) in SHAPES {
            for (mask, which) in [(0xf0f0_f0f0u32, 0u32), (0x0ff0_0ff1, 3), (0xffff_ffff, 37), (0x1, 1)] {
                let input: Vec<Val> = (0..n).map(|i| t.input(i * 7 + which as usize)).collect();
                // Indexes and deltas, some beyond any sub-group (undefined results).
                let idx: Vec<u32> = (0..n as u32).map(|i| (i * 13 + which) % 70).collect();
                let inb = ctx.buffer_from(&t.bytes(&input));
                let idxb = ctx.buffer_from(as_bytes(&idx));
                let outb = ctx.buffer(n * 10 * t.size);
                let mapb = ctx.buffer(n * 12);
                k.arg_mem(0, &inb);
                k.arg_mem(1, &outb);
                k.arg_mem(2, &mapb);
                k.arg_mem(3, &idxb);
                k.arg(4, &mask);
                k.arg(5, &which);
                q.run(&k, &[], &[n], &[local]);
                let got = t.vals(&q.read(&outb, 0, n * 10 * t.size));
                let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
                for (sg, ids) in sub_groups(&map, n, local) {
                    let what = format!(
                        "moves({}) n {n} local {local} mask {mask:#x} which {which} sub-group {sg:?}",
                        t.name
                    );
                    let size = ids.len();
                    let at = |l: usize| ids.get(l).map(|&g| input[g]);
                    // The work-item's own value came back (the slot every other is read against).
                    expect(
                        &got,
                        10,
                        &ids,
                        9,
                        &ids.iter().map(|&g| input[g]).collect::<Vec<_>>(),
                        &what,
                    );
                    let taken: Vec<usize> = (0..size).filter(|l| (mask >> (l % 32)) & 1 == 1).collect();
                    let other: Vec<usize> = (0..size).filter(|l| (mask >> (l % 32)) & 1 == 0).collect();
                    for (l, &g) in ids.iter().enumerate() {
                        let i = idx[g] as usize;
                        let w = which as usize;
                        let slots: [(usize, Option<usize>); 7] = [
                            (0, (w < size).then_some(w)),
                            (1, Some(i)),
                            (2, Some(l ^ i)),
                            (3, l.checked_sub(i)),
                            (4, Some(l + i)),
                            // Rotations: modulo the largest sub-group size of the enqueue.
                            (5, Some((l + w) % local.min(32))),
                            (6, Some((l & !7) + (l + w) % 8)),
                        ];
                        for (slot, src) in slots {
                            // Only sources inside the sub-group are defined.
                            if let Some(want) = src.and_then(at) {
                                assert_eq!(got[10 * g + slot], want, "{what}: slot {slot}, local id {l}");
                            }
                        }
                        // broadcast_first and non_uniform_broadcast over the work-item's branch.
                        let set = if taken.contains(&l) { &taken } else { &other };
                        assert_eq!(
                            Some(got[10 * g + 7]),
                            at(set[0]),
                            "{what}: broadcast_first, local id {l}"
                        );
                        if set.contains(&w) {
                            assert_eq!(
                                Some(got[10 * g + 8]),
                                at(w),
                                "{what}: non_uniform_broadcast, local id {l}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn vector_operands() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let src = kernel_text("subgroups/sg_vectors.cl");
    let vectors: &[(&str, usize, usize)] = &[
        ("char", 1, 2),
        ("uchar", 1, 3),
        ("short", 2, 4),
        ("ushort", 2, 8),
        ("int", 4, 16),
        ("long", 8, 2),
        ("float", 4, 3),
        ("double", 8, 4),
    ];
    for &(s, size, width) in vectors {
        let v = format!("{s}{width}");
        let mut opts = format!("-cl-std=CL3.0 -DV={v} -DS={s} -DVLOAD=vload{width} -DVSTORE=vstore{width}");
        if s == "double" {
            opts.push_str(" -DFP64");
        }
        let p = ctx.program_source(&src);
        assert_eq!(p.build(&opts), CL_SUCCESS, "{v}: {}", p.build_log());
        let k = p.kernel("vmoves");
        for &(n, local) in SHAPES {
            let which = 5u32;
            let elem = size * width;
            // Distinct bytes per work-item and component.
            let input: Vec<u8> = (0..n * elem).map(|i| (i * 7 + i / elem) as u8).collect();
            let inb = ctx.buffer_from(&input);
            let outb = ctx.buffer(n * 2 * elem);
            let mapb = ctx.buffer(n * 12);
            k.arg_mem(0, &inb);
            k.arg_mem(1, &outb);
            k.arg_mem(2, &mapb);
            k.arg(3, &which);
            q.run(&k, &[], &[n], &[local]);
            let got = q.read(&outb, 0, n * 2 * elem);
            let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
            let item = |g: usize| &input[g * elem..(g + 1) * elem];
            let out = |g: usize, slot: usize| &got[(2 * g + slot) * elem..(2 * g + slot + 1) * elem];
            for (sg, ids) in sub_groups(&map, n, local) {
                let what = format!("vmoves({v}) n {n} local {local} sub-group {sg:?}");
                for (l, &g) in ids.iter().enumerate() {
                    if let Some(&src) = ids.get(which as usize) {
                        assert_eq!(out(g, 0), item(src), "{what}: broadcast, local id {l}");
                    }
                    // The odd work-items from `which | 1`, the even ones from `which & !1`.
                    let from = if l % 2 == 1 { which | 1 } else { which & !1 };
                    if let Some(&src) = ids.get(from as usize) {
                        assert_eq!(out(g, 1), item(src), "{what}: non_uniform_broadcast, local id {l}");
                    }
                }
            }
        }
    }
}

#[test]
fn vote_ballot_and_masks() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.program_source(&kernel_text("subgroups/sg_ballot.cl"));
    assert_eq!(p.build("-cl-std=CL3.0"), CL_SUCCESS, "{}", p.build_log());
    let k = p.kernel("vote_ballot");
    for &(n, local) in SHAPES {
        for &mask in MASKS {
            for pattern in 0..4 {
                let input: Vec<i32> = (0..n)
                    .map(|i| match pattern {
                        0 => 3,
                        1 => (i % 3) as i32,
                        2 => i32::from(i % 32 == 17) * 5,
                        _ => (i as i32 * 7919) % 13 - 2,
                    })
                    .collect();
                let inb = ctx.buffer_from(as_bytes(&input));
                let outb = ctx.buffer(n * 64);
                let mapb = ctx.buffer(n * 12);
                k.arg_mem(0, &inb);
                k.arg_mem(1, &outb);
                k.arg_mem(2, &mapb);
                k.arg(3, &mask);
                q.run(&k, &[], &[n], &[local]);
                let got: Vec<u32> = from_bytes(&q.read(&outb, 0, n * 64));
                let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
                for (sg, ids) in sub_groups(&map, n, local) {
                    let what =
                        format!("vote_ballot n {n} local {local} mask {mask:#x} pattern {pattern} sub-group {sg:?}");
                    let max = map[3 * ids[0] + 2].max(ids.len() as u32).min(32);
                    for taken in [true, false] {
                        let set: Vec<usize> = (0..ids.len())
                            .filter(|l| ((mask >> (l % 32)) & 1 == 1) == taken)
                            .collect();
                        let x = |l: usize| input[ids[l]];
                        let (base, pred): (u32, &dyn Fn(i32) -> bool) =
                            if taken { (0, &|v| v != 0) } else { (2, &|v| v > 1) };
                        let all = set.iter().all(|&l| x(l) != 0);
                        let any = set.iter().any(|&l| x(l) != 0);
                        let equal = set.iter().all(|&l| x(l) == x(set[0]));
                        let mut ballot = [0u32; 4];
                        for &l in &set {
                            if pred(x(l)) {
                                ballot[l / 32] |= 1 << (l % 32);
                            }
                        }
                        for &l in &set {
                            let o = &got[16 * ids[l]..16 * ids[l] + 16];
                            let w = format!("{what} {}: local id {l}", if taken { "if" } else { "else" });
                            assert_eq!(o[0], base + u32::from(l == set[0]), "{w}: elect");
                            let (a, b) = if taken { (all, any) } else { (any, all) };
                            assert_eq!(o[1], base + u32::from(a), "{w}: all/any");
                            assert_eq!(o[2], base + u32::from(b), "{w}: any/all");
                            assert_eq!(o[3], base + u32::from(equal), "{w}: all_equal");
                            assert_eq!(&o[4..8], &ballot, "{w}: ballot");
                            let bx = u64::from(ballot[0]) & ((1u64 << max) - 1);
                            assert_eq!(o[8], (ballot[0] >> l) & 1, "{w}: inverse_ballot");
                            let bit = (x(l) as u32) & 31;
                            assert_eq!(o[9], (ballot[0] >> bit) & 1, "{w}: bit_extract");
                            assert_eq!(o[10], bx.count_ones(), "{w}: bit_count");
                            let le = bx & ((2u64 << l) - 1);
                            let lt = bx & ((1u64 << l) - 1);
                            assert_eq!(o[11], le.count_ones(), "{w}: inclusive_scan");
                            assert_eq!(o[12], lt.count_ones(), "{w}: exclusive_scan");
                            if ballot[0] != 0 {
                                assert_eq!(o[13], bx.trailing_zeros(), "{w}: find_lsb");
                                assert_eq!(o[14], 63 - bx.leading_zeros(), "{w}: find_msb");
                            }
                        }
                    }
                }
            }
        }
    }

    let k = p.kernel("masks");
    for &(n, local) in SHAPES {
        let outb = ctx.buffer(n * 80);
        k.arg_mem(0, &outb);
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<u32> = from_bytes(&q.read(&outb, 0, n * 80));
        // Sub-groups of consecutive local ids; the largest sub-group's size bounds ge / gt.
        let max = local.min(32);
        for g in 0..n {
            let l = (g % local) % 32;
            let all = (1u64 << max) - 1;
            let want = [
                1u64 << l,
                all & !((1u64 << l) - 1),
                all & !((2u64 << l) - 1),
                (2u64 << l) - 1,
                (1u64 << l) - 1,
            ];
            for (m, w) in want.iter().enumerate() {
                let o = &got[20 * g + 4 * m..20 * g + 4 * m + 4];
                assert_eq!(o, &[*w as u32, 0, 0, 0], "mask {m} local {local}: work-item {g}");
            }
        }
    }

    let k = p.kernel("all_equal_float");
    let n = 64usize;
    for (case, vals, want) in [
        ("zeros of both signs", [0.0f32, -0.0], true),
        ("NaN", [f32::NAN, f32::NAN], false),
        ("different", [1.0, 1.5], false),
    ] {
        let input: Vec<f32> = (0..n).map(|i| vals[i % 2]).collect();
        let inb = ctx.buffer_from(as_bytes(&input));
        let outb = ctx.buffer(n * 4);
        k.arg_mem(0, &inb);
        k.arg_mem(1, &outb);
        q.run(&k, &[], &[n], &[32]);
        let got: Vec<i32> = from_bytes(&q.read(&outb, 0, n * 4));
        assert!(got.iter().all(|&r| (r != 0) == want), "all_equal on {case}: {got:?}");
    }
}

#[test]
fn non_uniform_reduction_in_a_divergent_loop() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.program_source(&kernel_text("subgroups/sg_ballot.cl"));
    assert_eq!(p.build("-cl-std=CL3.0"), CL_SUCCESS, "{}", p.build_log());
    let k = p.kernel("loop_reduce");
    for &(n, local) in SHAPES {
        let input: Vec<i32> = (0..n as i32).map(|i| i * 11 % 23 - 7).collect();
        let inb = ctx.buffer_from(as_bytes(&input));
        let outb = ctx.buffer(n * 4);
        let mapb = ctx.buffer(n * 12);
        k.arg_mem(0, &inb);
        k.arg_mem(1, &outb);
        k.arg_mem(2, &mapb);
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<i32> = from_bytes(&q.read(&outb, 0, n * 4));
        let map: Vec<u32> = from_bytes(&q.read(&mapb, 0, n * 12));
        for (sg, ids) in sub_groups(&map, n, local) {
            for (l, &g) in ids.iter().enumerate() {
                let mut acc = 0i32;
                for i in 0..l % 5 {
                    // Iteration i: the work-items of more than i iterations.
                    let sum: i32 = (0..ids.len())
                        .filter(|m| m % 5 > i)
                        .map(|m| input[ids[m]] + i as i32)
                        .sum();
                    acc = acc.wrapping_mul(3).wrapping_add(sum);
                }
                assert_eq!(got[g], acc, "n {n} local {local} sub-group {sg:?}: local id {l}");
            }
        }
    }
}

fn spirv(name: &str) -> Vec<u8> {
    spirv_asm::spirv(&format!("subgroups/{name}"))
}

#[test]
fn spirv_capabilities_and_scopes() {
    if !supported() {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    // Supported: BroadcastFirst and Elect straight from SPIR-V.
    let p = ctx.program_il(&spirv("first"));
    assert_eq!(p.build(""), CL_SUCCESS, "{}", p.build_log());
    let k = p.kernel("first");
    let n = 80usize;
    let input: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    let b = ctx.buffer_from(as_bytes(&input));
    k.arg_mem(0, &b);
    q.run(&k, &[], &[n], &[40]);
    let got: Vec<u32> = from_bytes(&q.read(&b, 0, n * 4));
    // Sub-groups of 32 consecutive local ids (Clift's size).
    for (g, &v) in got.iter().enumerate() {
        let first = g - (g % 40) % 32;
        let elected = if g == first { 1000 } else { 0 };
        assert_eq!(v, input[first] + elected, "work-item {g}");
    }
    // A capability of no OpenCL extension: the build fails naming it.
    let p = ctx.program_il(&spirv("quad"));
    assert_ne!(p.build(""), CL_SUCCESS);
    let log = p.build_log();
    assert!(log.contains("GroupNonUniformQuad"), "log names the capability: {log}");
    // Workgroup scope for a GroupNonUniform instruction: rejected naming the instruction.
    let p = ctx.program_il(&spirv("wg_elect"));
    assert_ne!(p.build(""), CL_SUCCESS);
    let log = p.build_log();
    assert!(
        log.contains("OpGroupNonUniformElect"),
        "log names the instruction: {log}"
    );
}
