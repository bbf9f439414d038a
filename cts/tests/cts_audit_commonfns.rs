//! The scalar-operand forms of the common and integer built-ins, which the Khronos CTS
//! commonfns (fmaxf, fminf, maxf, minf, clampf, mixf, stepf, smoothstepf) and integer_ops
//! (max/min/clamp with a scalar) suites test and the SPIR-V carries as a vector operand next to
//! a scalar one: kernels/source/audit_commonfns.cl, built from OpenCL C for every type and the
//! widths 2, 3 (vload3/vstore3), 4, 8 and 16, checked component by component against a host
//! reference (exact where the function is exact; within the CTS's tolerance for mix and
//! smoothstep). Operands for which the specification leaves the result undefined (NaN for
//! max/min/clamp, minval > maxval, edge0 >= edge1) are not generated.

use cts::image_ref::Rng;
use cts::*;

const WIDTHS: [usize; 5] = [2, 3, 4, 8, 16];
/// Vectors per kernel run.
const N: usize = 256;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int { bits: u32, signed: bool },
    Float(u32),
}

struct Ty {
    name: &'static str,
    kind: Kind,
}

impl Ty {
    fn size(&self) -> usize {
        match self.kind {
            Kind::Int { bits, .. } | Kind::Float(bits) => bits as usize / 8,
        }
    }
}

const TYPES: [Ty; 10] = [
    Ty {
        name: "char",
        kind: Kind::Int { bits: 8, signed: true },
    },
    Ty {
        name: "uchar",
        kind: Kind::Int { bits: 8, signed: false },
    },
    Ty {
        name: "short",
        kind: Kind::Int { bits: 16, signed: true },
    },
    Ty {
        name: "ushort",
        kind: Kind::Int {
            bits: 16,
            signed: false,
        },
    },
    Ty {
        name: "int",
        kind: Kind::Int { bits: 32, signed: true },
    },
    Ty {
        name: "uint",
        kind: Kind::Int {
            bits: 32,
            signed: false,
        },
    },
    Ty {
        name: "long",
        kind: Kind::Int { bits: 64, signed: true },
    },
    Ty {
        name: "ulong",
        kind: Kind::Int {
            bits: 64,
            signed: false,
        },
    },
    Ty {
        name: "float",
        kind: Kind::Float(32),
    },
    Ty {
        name: "double",
        kind: Kind::Float(64),
    },
];

/// A value of any of the types: integers as i128, floats as f64 (exact for float).
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    I(i128),
    F(f64),
}

impl V {
    fn f(self) -> f64 {
        match self {
            V::F(x) => x,
            V::I(x) => x as f64,
        }
    }
    fn i(self) -> i128 {
        match self {
            V::I(x) => x,
            V::F(x) => x as i128,
        }
    }
}

fn encode(t: &Ty, vals: &[V]) -> Vec<u8> {
    let mut out = Vec::with_capacity(vals.len() * t.size());
    for v in vals {
        match (t.kind, v) {
            (Kind::Float(32), V::F(x)) => out.extend_from_slice(&(*x as f32).to_le_bytes()),
            (Kind::Float(_), V::F(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Kind::Int { .. }, V::I(x)) => out.extend_from_slice(&(*x as i64).to_le_bytes()[..t.size()]),
            _ => unreachable!(),
        }
    }
    out
}

fn decode(t: &Ty, b: &[u8]) -> Vec<V> {
    b.chunks(t.size())
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            let u = u64::from_le_bytes(w);
            match t.kind {
                Kind::Float(32) => V::F(f32::from_bits(u as u32) as f64),
                Kind::Float(_) => V::F(f64::from_bits(u)),
                Kind::Int { bits, signed } => {
                    let sh = 64 - bits;
                    V::I(if signed {
                        (((u << sh) as i64) >> sh) as i128
                    } else {
                        ((u << sh) >> sh) as i128
                    })
                }
            }
        })
        .collect()
}

/// Random values of `t`: for floats moderate magnitudes with signed zeros, subnormals,
/// infinities and (when `nan`) NaNs mixed in; for integers the whole range with the extremes.
fn gen(t: &Ty, n: usize, nan: bool, rng: &mut Rng) -> Vec<V> {
    (0..n)
        .map(|_| match t.kind {
            Kind::Float(bits) => {
                let specials = [
                    0.0,
                    -0.0,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    if bits == 32 { 1.0e-40 } else { 1.0e-310 },
                    -1.5,
                    2.0,
                ];
                let x = match rng.below(10) {
                    0 => specials[rng.below(specials.len() as u64) as usize],
                    1 if nan => f64::NAN,
                    _ => rng.range_f64(-1000.0, 1000.0),
                };
                V::F(if bits == 32 { x as f32 as f64 } else { x })
            }
            Kind::Int { bits, signed } => {
                let (lo, hi) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                V::I(match rng.below(8) {
                    0 => lo,
                    1 => hi,
                    2 => 0,
                    _ => {
                        let r = rng.next_u64() as i128 & ((1i128 << bits) - 1);
                        if signed && r > hi {
                            r - (1i128 << bits)
                        } else {
                            r
                        }
                    }
                })
            }
        })
        .collect()
}

/// Floats equal by value (so +0 == -0), NaN matching NaN; integers exactly.
fn same(a: V, b: V) -> bool {
    match (a, b) {
        (V::F(x), V::F(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

struct Run<'a> {
    ctx: &'a Context,
    q: &'a Queue,
    prog: &'a Program,
    t: &'a Ty,
    w: usize,
}

impl Run<'_> {
    /// Runs kernel `name` on `inputs` (each `N * w` or `N` values of the type, or ints for
    /// `ints`) and returns the `N * w` results.
    fn run(&self, name: &str, inputs: &[Vec<V>], ints: Option<&[i32]>) -> Vec<V> {
        let k = self.prog.kernel(name);
        let mut bufs: Vec<Mem> = inputs
            .iter()
            .map(|v| self.ctx.buffer_from(&encode(self.t, v)))
            .collect();
        if let Some(ints) = ints {
            bufs.push(self.ctx.buffer_from(as_bytes(ints)));
        }
        let out_len = N * self.w * self.t.size();
        let out = self.ctx.buffer(out_len);
        for (i, b) in bufs.iter().enumerate() {
            k.arg_mem(i as cl_uint, b);
        }
        k.arg_mem(bufs.len() as cl_uint, &out);
        self.q.run(&k, &[], &[N], &[]);
        decode(self.t, &self.q.read(&out, 0, out_len))
    }

    fn check(&self, name: &str, got: &[V], want: impl Fn(usize, usize) -> Option<V>, tol: impl Fn(V) -> f64) {
        for i in 0..N {
            for c in 0..self.w {
                let Some(want) = want(i, c) else { continue };
                let g = got[i * self.w + c];
                let ok = same(g, want) || (g.f() - want.f()).abs() <= tol(want);
                assert!(
                    ok,
                    "{name} ({}{}): element {i}.{c}: got {g:?}, want {want:?}",
                    self.t.name, self.w
                );
            }
        }
    }
}

fn audit_type(t: &Ty) {
    let ctx = Context::new();
    let q = ctx.queue();
    let float = matches!(t.kind, Kind::Float(_));
    let mut rng = Rng::new(0xc0 + t.size() as u64 + float as u64 * 100);
    for &w in &WIDTHS {
        let mut opts = format!("-DT={} -DW={w}", t.name);
        if float {
            opts.push_str(" -DFLOAT");
        }
        if t.name == "double" {
            opts.push_str(" -DDOUBLE");
        }
        let prog = ctx.built_source("audit_commonfns.cl", &opts);
        let r = Run {
            ctx: &ctx,
            q: &q,
            prog: &prog,
            t,
            w,
        };
        let exact = |_: V| 0.0;
        // max/min (undefined for NaN: none generated).
        let x = gen(t, N * w, false, &mut rng);
        let s = gen(t, N, false, &mut rng);
        for (name, is_max) in [("max_s", true), ("min_s", false)] {
            let got = r.run(name, &[x.clone(), s.clone()], None);
            r.check(
                name,
                &got,
                |i, c| {
                    let (a, b) = (x[i * w + c], s[i]);
                    Some(match (a, b) {
                        (V::I(a), V::I(b)) => V::I(if is_max { a.max(b) } else { a.min(b) }),
                        _ => {
                            // y if x < y (max) / y < x (min), else x.
                            let (a, b) = (a.f(), b.f());
                            V::F(if (is_max && a < b) || (!is_max && b < a) { b } else { a })
                        }
                    })
                },
                exact,
            );
        }
        // clamp with scalar bounds, lo <= hi.
        let a = gen(t, N, false, &mut rng);
        let b = gen(t, N, false, &mut rng);
        let (lo, hi): (Vec<V>, Vec<V>) = a
            .iter()
            .zip(&b)
            .map(|(a, b)| {
                let lt = match (a, b) {
                    (V::I(x), V::I(y)) => x <= y,
                    _ => a.f() <= b.f(),
                };
                if lt {
                    (*a, *b)
                } else {
                    (*b, *a)
                }
            })
            .unzip();
        let got = r.run("clamp_s", &[x.clone(), lo.clone(), hi.clone()], None);
        r.check(
            "clamp_s",
            &got,
            |i, c| {
                Some(match x[i * w + c] {
                    V::I(v) => V::I(v.clamp(lo[i].i(), hi[i].i())),
                    V::F(v) => V::F(v.max(lo[i].f()).min(hi[i].f())),
                })
            },
            exact,
        );
        if !float {
            continue;
        }
        let ulp = |v: V| {
            let e = if t.name == "float" {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
            v.f().abs().max(1e-30) * e
        };
        // fmax/fmin: NaN operands are ignored.
        let xn = gen(t, N * w, true, &mut rng);
        let sn = gen(t, N, true, &mut rng);
        for (name, is_max) in [("fmax_s", true), ("fmin_s", false)] {
            let got = r.run(name, &[xn.clone(), sn.clone()], None);
            r.check(
                name,
                &got,
                |i, c| {
                    let (a, b) = (xn[i * w + c].f(), sn[i].f());
                    Some(V::F(if is_max { a.max(b) } else { a.min(b) }))
                },
                exact,
            );
        }
        // mix(x, y, a) with a in [0, 1] and finite x, y: x + (y - x) * a.
        let fin = |rng: &mut Rng, n: usize| -> Vec<V> {
            (0..n)
                .map(|_| {
                    let v = rng.range_f64(-1000.0, 1000.0);
                    V::F(if t.name == "float" { v as f32 as f64 } else { v })
                })
                .collect()
        };
        let (mx, my) = (fin(&mut rng, N * w), fin(&mut rng, N * w));
        let ma: Vec<V> = (0..N)
            .map(|_| {
                let v = rng.range_f64(0.0, 1.0);
                V::F(if t.name == "float" { v as f32 as f64 } else { v })
            })
            .collect();
        let got = r.run("mix_s", &[mx.clone(), my.clone(), ma.clone()], None);
        r.check(
            "mix_s",
            &got,
            |i, c| {
                let (x, y, a) = (mx[i * w + c].f(), my[i * w + c].f(), ma[i].f());
                Some(V::F(x + (y - x) * a))
            },
            // A few ulp of the larger operand (the subtraction's and product's roundings).
            |v| 4.0 * ulp(v).max(ulp(V::F(1000.0))),
        );
        // step(edge, x): 0 if x < edge, else 1 (NaN-free operands).
        let got = r.run("step_s", &[s.clone(), x.clone()], None);
        r.check(
            "step_s",
            &got,
            |i, c| Some(V::F(if x[i * w + c].f() < s[i].f() { 0.0 } else { 1.0 })),
            exact,
        );
        // smoothstep(e0, e1, x) with finite e0 < e1.
        let (e0, e1): (Vec<V>, Vec<V>) = (0..N)
            .map(|_| {
                let a = rng.range_f64(-500.0, 500.0);
                let b = a + rng.range_f64(0.5, 500.0);
                let r = |v: f64| V::F(if t.name == "float" { v as f32 as f64 } else { v });
                (r(a), r(b))
            })
            .unzip();
        let got = r.run("smoothstep_s", &[e0.clone(), e1.clone(), mx.clone()], None);
        r.check(
            "smoothstep_s",
            &got,
            |i, c| {
                let (a, b, v) = (e0[i].f(), e1[i].f(), mx[i * w + c].f());
                let u = ((v - a) / (b - a)).clamp(0.0, 1.0);
                Some(V::F(u * u * (3.0 - 2.0 * u)))
            },
            |_| 1e-5,
        );
        // mad: Clift's is the correctly rounded fma (docs/math.md); the operands make a
        // rounded multiply-add differ from it (a*b just below k, c = -k).
        let e = if t.name == "float" {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let rt = |v: f64| V::F(if t.name == "float" { v as f32 as f64 } else { v });
        let fa: Vec<V> = (0..N * w).map(|j| rt((1.0 + e) * (1 + j % 3) as f64)).collect();
        let fb: Vec<V> = (0..N * w).map(|_| V::F(1.0 - e)).collect();
        let fc: Vec<V> = (0..N * w).map(|j| V::F(-((1 + j % 3) as f64))).collect();
        let got = r.run("mad_v", &[fa.clone(), fb.clone(), fc.clone()], None);
        r.check(
            "mad_v",
            &got,
            |i, c| {
                let j = i * w + c;
                Some(V::F(fa[j].f().mul_add(fb[j].f(), fc[j].f())))
            },
            exact,
        );
        // ldexp(x, k) with one k per vector: exact.
        let ks: Vec<i32> = (0..N).map(|_| rng.below(301) as i32 - 150).collect();
        let got = r.run("ldexp_s", std::slice::from_ref(&xn), Some(&ks));
        r.check(
            "ldexp_s",
            &got,
            |i, c| {
                let v = xn[i * w + c].f();
                Some(V::F(if t.name == "float" {
                    libm::ldexpf(v as f32, ks[i]) as f64
                } else {
                    libm::ldexp(v, ks[i])
                }))
            },
            exact,
        );
    }
}

#[test]
fn audit_commonfns_float() {
    audit_type(&TYPES[8]);
}

#[test]
fn audit_commonfns_double() {
    audit_type(&TYPES[9]);
}

#[test]
fn audit_integer_scalar_forms() {
    for t in &TYPES[..8] {
        audit_type(t);
    }
}
