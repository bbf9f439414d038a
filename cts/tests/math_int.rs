//! Every OpenCL.std integer function (abs, abs_diff, add_sat, sub_sat, hadd, rhadd, clamp,
//! clz, ctz, popcount, mad_hi, mad_sat, max, min, mul_hi, rotate, upsample, mul24, mad24) for
//! each integer type, scalar and 4-vector forms, plus shuffle/shuffle2 at several sizes,
//! against host integer semantics. Kernels: kernels/math/int.cl.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

const N: usize = 1024;
const FUNCS: [&str; 16] = [
    "abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clamp", "clz", "ctz", "popcount", "mad_hi", "mad_sat",
    "max", "min", "mul_hi", "rotate",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Inputs of `bits` width as i128 values (signed or not): edge values crossed, then random.
fn inputs(bits: u32, signed: bool, seed: u64) -> [Vec<i128>; 3] {
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let sp = [lo, lo + 1, -1, 0, 1, 2, 3, hi - 1, hi, 7, hi / 2, lo / 2];
    let sp: Vec<i128> = sp.iter().map(|v| wrap(*v, bits, signed)).collect();
    let mut rng = Rng(seed | 1);
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..N {
        for (k, o) in out.iter_mut().enumerate() {
            let v = if i < sp.len() * sp.len() && k < 2 {
                if k == 0 {
                    sp[i / sp.len()]
                } else {
                    sp[i % sp.len()]
                }
            } else if rng.next().is_multiple_of(4) {
                wrap((rng.next() % 64) as i128 - 32, bits, signed)
            } else {
                wrap(rng.next() as i128, bits, signed)
            };
            o.push(v);
        }
    }
    out
}

fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let m = v & ((1i128 << bits) - 1);
    if signed && m >> (bits - 1) != 0 {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn to_bytes(v: &[i128], bits: u32) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.to_le_bytes()[..(bits / 8) as usize].to_vec())
        .collect()
}

fn from_bytes_i(b: &[u8], bits: u32, signed: bool) -> Vec<i128> {
    b.chunks((bits / 8) as usize)
        .map(|c| {
            let mut w = [0u8; 16];
            w[..c.len()].copy_from_slice(c);
            wrap(i128::from_le_bytes(w), bits, signed)
        })
        .collect()
}

fn reference(f: &str, a: i128, b: i128, c: i128, bits: u32, signed: bool) -> i128 {
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let sat = |v: i128| v.clamp(lo, hi);
    let ua = a & ((1i128 << bits) - 1);
    if !signed && bits == 64 && (f == "mul_hi" || f == "mad_hi") {
        let h = ((a as u128 * b as u128) >> 64) as i128;
        return wrap(if f == "mad_hi" { h + c } else { h }, bits, signed);
    }
    let r = match f {
        "abs" => a.abs(),
        "abs_diff" => (a - b).abs(),
        "add_sat" => sat(a + b),
        "sub_sat" => sat(a - b),
        "hadd" => (a + b) >> 1,
        "rhadd" => (a + b + 1) >> 1,
        "clamp" => a.clamp(b.min(c), b.max(c)),
        "clz" => (0..bits).take_while(|i| ua >> (bits - 1 - i) & 1 == 0).count() as i128,
        "ctz" => (0..bits).take_while(|i| ua >> i & 1 == 0).count() as i128,
        "popcount" => ua.count_ones() as i128,
        "mad_hi" => ((a * b) >> bits) + c,
        "mad_sat" if !signed && bits == 64 => {
            let p = (a as u128)
                .checked_mul(b as u128)
                .and_then(|p| p.checked_add(c as u128));
            p.map_or(hi, |p| p.min(hi as u128) as i128)
        }
        "mad_sat" => sat(a * b + c),
        "max" => a.max(b),
        "min" => a.min(b),
        "mul_hi" => (a * b) >> bits,
        _ => {
            let s = (b & ((1i128 << bits) - 1)) % bits as i128;
            (ua << s) | (ua >> ((bits as i128 - s) % bits as i128))
        }
    };
    wrap(r, bits, signed)
}

#[test]
fn integer_functions() {
    let cx = Context::new();
    let q = cx.queue();
    let prog = cx.built_program("math/int", &spirv("math/int"));
    let mut failures = Vec::new();
    let types = [
        ("char", 8, true),
        ("uchar", 8, false),
        ("short", 16, true),
        ("ushort", 16, false),
        ("int", 32, true),
        ("uint", 32, false),
        ("long", 64, true),
        ("ulong", 64, false),
    ];
    let k_count = FUNCS.len();
    let mut checked = 0usize;
    for (ti, (tn, bits, signed)) in types.iter().enumerate() {
        let [a, b, c] = inputs(*bits, *signed, 0x1234 + ti as u64);
        let run = |name: &str, ins: &[Vec<u8>], outs: &[usize], items: usize| -> Vec<Vec<u8>> {
            let k = prog.kernel(name);
            let mut mems: Vec<Mem> = ins.iter().map(|b| cx.buffer_from(b)).collect();
            mems.extend(outs.iter().map(|l| cx.buffer(*l)));
            for (i, m) in mems.iter().enumerate() {
                k.arg_mem(i as cl_uint, m);
            }
            q.run(&k, &[], &[items], &[]);
            mems[ins.len()..]
                .iter()
                .zip(outs)
                .map(|(m, l)| q.read(m, 0, *l))
                .collect()
        };
        let sz = (*bits / 8) as usize;
        let outs = run(
            &format!("int_{tn}"),
            &[to_bytes(&a, *bits), to_bytes(&b, *bits), to_bytes(&c, *bits)],
            &[N * k_count * sz, N * k_count * sz],
            N / 4,
        );
        for (form, o) in ["scalar", "vector"].iter().zip(&outs) {
            let got = from_bytes_i(o, *bits, *signed);
            for (j, f) in FUNCS.iter().enumerate() {
                let mut bad = None;
                for i in 0..N {
                    let w = reference(f, a[i], b[i], c[i], *bits, *signed);
                    checked += 1;
                    if got[k_count * i + j] != w && bad.is_none() {
                        bad = Some(format!(
                            "{tn} {f} ({form}) ({}, {}, {}): got {} want {w}",
                            a[i],
                            b[i],
                            c[i],
                            got[k_count * i + j]
                        ));
                    }
                }
                failures.extend(bad);
            }
        }
        if *bits < 64 {
            // upsample(hi, lo): lo is the unsigned type.
            let lo: Vec<i128> = b.iter().map(|v| wrap(*v, *bits, false)).collect();
            let outs = run(
                &format!("upsample_{tn}"),
                &[to_bytes(&a, *bits), to_bytes(&lo, *bits)],
                &[N * 2 * sz, N * 2 * sz],
                N / 4,
            );
            for (form, o) in ["scalar", "vector"].iter().zip(&outs) {
                let got = from_bytes_i(o, 2 * bits, *signed);
                for i in 0..N {
                    let w = wrap((a[i] << bits) | lo[i], 2 * bits, *signed);
                    checked += 1;
                    if got[i] != w {
                        failures.push(format!(
                            "{tn} upsample ({form}) ({}, {}): got {} want {w}",
                            a[i], lo[i], got[i]
                        ));
                        break;
                    }
                }
            }
        }
        if *bits == 32 {
            // mul24/mad24 with operands in the 24-bit range.
            let m24 = |v: &i128| {
                if *signed {
                    wrap(*v, 24, true)
                } else {
                    wrap(*v, 24, false)
                }
            };
            let (a24, b24): (Vec<i128>, Vec<i128>) = (a.iter().map(m24).collect(), b.iter().map(m24).collect());
            let outs = run(
                &format!("mul24_{tn}"),
                &[to_bytes(&a24, 32), to_bytes(&b24, 32), to_bytes(&c, 32)],
                &[N * 2 * 4, N * 2 * 4],
                N / 4,
            );
            let gs = from_bytes_i(&outs[0], 32, *signed);
            let gv = from_bytes_i(&outs[1], 32, *signed);
            for i in 0..N {
                let mul = wrap(a24[i] * b24[i], 32, *signed);
                let mad = wrap(a24[i] * b24[i] + c[i], 32, *signed);
                let (g4, k) = (i / 4, i % 4);
                checked += 4;
                if gs[2 * i] != mul || gs[2 * i + 1] != mad || gv[8 * g4 + k] != mul || gv[8 * g4 + 4 + k] != mad {
                    failures.push(format!("{tn} mul24/mad24 ({}, {}, {}): wrong", a24[i], b24[i], c[i]));
                    break;
                }
            }
        }
    }
    // Shuffles.
    let groups = 32usize;
    let mut rng = Rng(4242);
    let src: Vec<u32> = (0..16 * (groups + 1)).map(|_| rng.next() as u32).collect();
    let mask: Vec<u32> = (0..16 * groups).map(|_| rng.next() as u32).collect();
    let k = prog.kernel("shuffles");
    let (bs, bm, bo) = (
        cx.buffer_from(as_bytes(&src)),
        cx.buffer_from(as_bytes(&mask)),
        cx.buffer(96 * groups * 4),
    );
    k.arg_mem(0, &bs);
    k.arg_mem(1, &bm);
    k.arg_mem(2, &bo);
    q.run(&k, &[], &[groups], &[]);
    let o: Vec<u32> = from_bytes(&q.read(&bo, 0, 96 * groups * 4));
    for g in 0..groups {
        let x = &src[16 * g..16 * g + 16];
        let y = &src[16 * (g + 1)..16 * (g + 1) + 16];
        let m = &mask[16 * g..16 * g + 16];
        let sh = |v: &[u32], mm: &[u32]| -> Vec<u32> { mm.iter().map(|i| v[*i as usize % v.len()]).collect() };
        let cat = |p: &[u32], q2: &[u32]| -> Vec<u32> { p.iter().chain(q2).copied().collect() };
        let odd: Vec<u32> = (0..8).map(|i| m[2 * i + 1]).collect();
        let cases: [(usize, Vec<u32>, &str); 8] = [
            (0, sh(x, m), "shuffle(uint16, uint16)"),
            (16, sh(&cat(x, y), m), "shuffle2(uint16, uint16, uint16)"),
            (32, sh(&x[0..4], &m[4..8]), "shuffle(uint4, uint4)"),
            (
                40,
                sh(&cat(&x[0..8], &y[8..16]), &m[0..8]),
                "shuffle2(uint8, uint8, uint8)",
            ),
            (48, sh(&x[8..10], &m[2..4]), "shuffle(uint2, uint2)"),
            (
                52,
                sh(&cat(&x[1..3], &y[3..5]), &m[8..12]),
                "shuffle2(uint2, uint2, uint4)",
            ),
            (64, sh(x, &odd), "shuffle(uint16, uint8)"),
            (80, sh(&cat(&x[0..4], &y[4..8]), m), "shuffle2(uint4, uint4, uint16)"),
        ];
        for (off, want, what) in cases {
            checked += want.len();
            if o[96 * g + off..96 * g + off + want.len()] != want[..] {
                failures.push(format!(
                    "{what}: got {:?} want {want:?}",
                    &o[96 * g + off..96 * g + off + want.len()]
                ));
            }
        }
    }
    let src: Vec<i8> = (0..8 * (groups + 1)).map(|_| rng.next() as i8).collect();
    let mask: Vec<u8> = (0..8 * groups).map(|_| rng.next() as u8).collect();
    let k = prog.kernel("shuffles_char");
    let (bs, bm, bo) = (
        cx.buffer_from(as_bytes(&src)),
        cx.buffer_from(as_bytes(&mask)),
        cx.buffer(16 * groups),
    );
    k.arg_mem(0, &bs);
    k.arg_mem(1, &bm);
    k.arg_mem(2, &bo);
    q.run(&k, &[], &[groups], &[]);
    let o: Vec<i8> = from_bytes(&q.read(&bo, 0, 16 * groups));
    for g in 0..groups {
        let x = &src[8 * g..8 * g + 16];
        let m = &mask[8 * g..8 * g + 8];
        let s1: Vec<i8> = m.iter().map(|i| x[*i as usize % 8]).collect();
        let s2: Vec<i8> = m.iter().map(|i| x[*i as usize % 16]).collect();
        checked += 16;
        if o[16 * g..16 * g + 8] != s1[..] || o[16 * g + 8..16 * g + 16] != s2[..] {
            failures.push(format!("char8 shuffle/shuffle2 group {g}: wrong"));
        }
    }
    println!(
        "integer functions and shuffles: {checked} results checked, {} failures",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
