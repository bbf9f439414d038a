//! Half precision in generated code (kernels/half.cl) against a host reference written here
//! without bit tricks: every half's value is computed as significand times a power of two, the
//! finite non-negative halves form a sorted table whose index is the bit pattern, and rounding
//! to half divides by the last place of the value's binade, rounds ties to even and looks the
//! product back up in the table.
//!
//! - every one of the 65,536 halves to float and to double;
//! - float to half on every float of the binades where rounding changes kind (the smallest
//!   subnormal's halfway point, the subnormal/normal boundary, the largest binade and the
//!   overflow to infinity: every significand), and in every binade the significands around
//!   each rounding position (ties, one off, the last places), NaNs and infinities included;
//! - integers of every width to half (powers of two and their neighbours, the overflow
//!   boundary, random values);
//! - double to half on the same kinds of values; each half back to float (double), which
//!   Clift computes from the float (double) rounded to half precision, not from the half;
//! - `+ - * /` on pairs of special and random halves, chains of multiplications and additions
//!   and of `mad`, and the same on half2, half3, half4, half8 and half16.
//!
//! Each kernel runs in the scalar loop (`CLIFT_SIMD=0`) and with the vector loop on
//! (`CLIFT_SIMD=check`); every output is compared bit for bit (a NaN result of arithmetic only
//! as a NaN: OpenCL does not specify its payload).

mod support;
use support::{build_with_env as build, cl_to_spirv, ptr, run_grid, Arg, Rng};

/// The values of the finite non-negative halves, indexed by bit pattern (increasing).
fn half_table() -> Vec<f64> {
    (0u32..0x7c00)
        .map(|h| {
            let (e, m) = ((h >> 10) as i32, f64::from(h & 0x3ff));
            if e == 0 {
                m * 2f64.powi(-24)
            } else {
                (1024.0 + m) * 2f64.powi(e - 25)
            }
        })
        .collect()
}

struct Reference {
    table: Vec<f64>,
}

impl Reference {
    /// The value of half `h` (NaN for the NaNs).
    fn value(&self, h: u16) -> f64 {
        let mag = h & 0x7fff;
        let v = match mag {
            0x7c00 => f64::INFINITY,
            m if m > 0x7c00 => f64::NAN,
            m => self.table[m as usize],
        };
        if h & 0x8000 != 0 {
            -v
        } else {
            v
        }
    }

    /// `x` rounded to half, to nearest with ties to even; a NaN gives the quiet NaN 0x7e00
    /// with `x`'s sign (what Clift's conversion helpers give).
    fn round(&self, x: f64) -> u16 {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        if x.is_nan() {
            return sign | 0x7e00;
        }
        let a = x.abs();
        // The binade's last place: 2^(e-10) for a in [2^e, 2^(e+1)), 2^-24 below 2^-14.
        let mut e = -14;
        while e < 15 && a >= 2f64.powi(e + 1) {
            e += 1;
        }
        let ulp = 2f64.powi(e - 10);
        let q = (a / ulp).round_ties_even();
        let r = q * ulp;
        if r >= 65536.0 {
            return sign | 0x7c00;
        }
        let i = self.table.binary_search_by(|v| v.total_cmp(&r)).expect("a half value");
        sign | i as u16
    }

    /// The f32 bits of half `h` (a NaN keeps its payload and becomes quiet).
    fn to_f32(&self, h: u16) -> u32 {
        let mag = h & 0x7fff;
        if mag > 0x7c00 {
            return (u32::from(h & 0x8000) << 16) | 0x7fc0_0000 | (u32::from(mag & 0x3ff) << 13);
        }
        (self.value(h) as f32).to_bits()
    }

    /// The f64 bits of half `h` (a NaN keeps its payload and becomes quiet).
    fn to_f64(&self, h: u16) -> u64 {
        let mag = h & 0x7fff;
        if mag > 0x7c00 {
            return (u64::from(h & 0x8000) << 48) | 0x7ff8_0000_0000_0000 | (u64::from(mag & 0x3ff) << 42);
        }
        self.value(h).to_bits()
    }
}

/// Runs kernel `name` on `n` work-items (groups of 64; `n` a multiple of 64).
fn run(p: &jit::Program, name: &str, args: &[Arg], n: usize) {
    let k = p.kernel(name).expect("kernel");
    assert!(n.is_multiple_of(64));
    run_grid(&k, args, 1, [64, 1, 1], [(n / 64) as u64, 1, 1]);
}

/// The float bit patterns to narrow: whole binades where rounding changes kind, and in every
/// binade (both signs) the significands around each possible rounding position.
fn dense_floats(rng: &mut Rng) -> Vec<u32> {
    let mut v = Vec::new();
    // 2^-25 (the smallest subnormal's halfway point), 2^-15, 2^-14, 2^15, 2^16: every
    // significand.
    for e in [102u32, 112, 113, 142, 143] {
        v.extend((0..1u32 << 23).map(|m| (e << 23) | m));
    }
    for sign in [0u32, 1 << 31] {
        for e in 0u32..256 {
            // The bits cut off for a half result: 13 for a normal half, more below 2^-14.
            let cut = (13 + 113u32.saturating_sub(e)).min(24);
            let full = 1u32 << cut;
            let mid = full >> 1;
            let lows = [0, 1, 2, mid - 2, mid - 1, mid, mid + 1, mid + 2, full - 2, full - 1];
            for hi in [0u32, 1, 2, 3, 0x155, 0x3ff, 0x2aa, 0x7ff] {
                for lo in lows {
                    let m = ((hi << cut) | lo) & 0x7f_ffff;
                    v.push(sign | (e << 23) | m);
                }
            }
            for _ in 0..64 {
                v.push(sign | (e << 23) | (rng.next() as u32 & 0x7f_ffff));
            }
        }
    }
    v.extend((0..1 << 20).map(|_| rng.next() as u32));
    // Multiple of 64 work-items.
    while !v.len().is_multiple_of(64) {
        v.push(0);
    }
    v
}

/// The double bit patterns to narrow: around every rounding position of the binades from
/// 2^-40 to 2^20, the extremes, NaNs and infinities, both signs, and random doubles.
fn dense_doubles(rng: &mut Rng) -> Vec<u64> {
    let mut v = Vec::new();
    for sign in [0u64, 1 << 63] {
        let exps = (1023 - 40..=1023 + 20).chain([0, 1, 0x3ff, 0x7fe, 0x7ff]);
        for e in exps {
            let cut = (42 + 1009u64.saturating_sub(e)).min(53);
            let full = 1u64 << cut;
            let mid = full >> 1;
            let lows = [0, 1, 2, mid - 2, mid - 1, mid, mid + 1, mid + 2, full - 2, full - 1];
            for hi in [0u64, 1, 2, 3, 0x155, 0x3ff, 0x2aa, 0x7ff] {
                for lo in lows {
                    let m = ((hi << cut) | lo) & ((1 << 52) - 1);
                    v.push(sign | (e << 52) | m);
                }
            }
            for _ in 0..256 {
                v.push(sign | (e << 52) | (rng.next() & ((1 << 52) - 1)));
            }
        }
    }
    v.extend((0..1 << 16).map(|_| rng.next()));
    while !v.len().is_multiple_of(64) {
        v.push(0);
    }
    v
}

/// Halves for arithmetic: the special values, every power of two, and random patterns.
fn operands(rng: &mut Rng, n: usize) -> Vec<u16> {
    let mut s: Vec<u16> = vec![
        0, 1, 2, 0x3ff, 0x400, 0x401, 0x3c00, 0x3c01, 0x3bff, 0x7bff, 0x7bfe, 0x7c00, 0x7e00, 0x7c01,
    ];
    s.extend((0..31).map(|e| e << 10));
    let neg: Vec<u16> = s.iter().map(|h| h | 0x8000).collect();
    s.extend(neg);
    let mut v: Vec<u16> = (0..n)
        .map(|k| if k % 4 == 0 { *rng.pick(&s) } else { rng.next() as u16 })
        .collect();
    // Values of moderate size, so that chains stay finite for a while.
    for (k, x) in v.iter_mut().enumerate() {
        if k % 4 == 1 {
            *x = (*x & 0x83ff) | (((13 + rng.below(4)) as u16) << 10);
        }
    }
    v
}

/// Whether `got` is `want`, or both are NaNs.
fn same(r: &Reference, got: u16, want: u16) -> bool {
    got == want || (r.value(got).is_nan() && r.value(want).is_nan())
}

fn check_conversions(p: &jit::Program, what: &str, r: &Reference, floats: &[u32], doubles: &[u64]) {
    // Every half to float and to double.
    let mut halves: Vec<u16> = (0..=u16::MAX).collect();
    let mut o32 = vec![0u32; 65536];
    let mut o64 = vec![0u64; 65536];
    run(p, "widen", &[ptr(&mut halves), ptr(&mut o32), ptr(&mut o64)], 65536);
    for h in 0..=u16::MAX {
        let i = h as usize;
        assert_eq!(o32[i], r.to_f32(h), "{what}: half {h:#06x} to float");
        assert_eq!(o64[i], r.to_f64(h), "{what}: half {h:#06x} to double");
    }
    // Floats to half, a chunk at a time.
    for chunk in floats.chunks(1 << 22) {
        let mut input = chunk.to_vec();
        let mut out = vec![0xdeadu16; chunk.len()];
        let mut back = vec![0u32; chunk.len()];
        run(
            p,
            "narrow",
            &[ptr(&mut input), ptr(&mut out), ptr(&mut back)],
            chunk.len(),
        );
        for ((x, got), b) in chunk.iter().zip(&out).zip(&back) {
            let want = r.round(f64::from(f32::from_bits(*x)));
            assert_eq!(*got, want, "{what}: float {x:#010x} ({:e}) to half", f32::from_bits(*x));
            assert_eq!(*b, r.to_f32(want), "{what}: float {x:#010x} to half and back");
        }
    }
    let mut input = doubles.to_vec();
    let mut out = vec![0xdeadu16; doubles.len()];
    let mut back = vec![0u64; doubles.len()];
    run(
        p,
        "narrow64",
        &[ptr(&mut input), ptr(&mut out), ptr(&mut back)],
        doubles.len(),
    );
    for ((x, got), b) in doubles.iter().zip(&out).zip(&back) {
        let want = r.round(f64::from_bits(*x));
        assert_eq!(
            *got,
            want,
            "{what}: double {x:#018x} ({:e}) to half",
            f64::from_bits(*x)
        );
        assert_eq!(*b, r.to_f64(want), "{what}: double {x:#018x} to half and back");
    }
}

/// Integers of every width to half: the value is exact in f64 below 2^53, and from 65520 up
/// (far below 2^53) the half is infinity.
fn check_integers(p: &jit::Program, what: &str, r: &Reference, rng: &mut Rng) {
    let mut xs: Vec<u64> = Vec::new();
    for k in 0..64 {
        let base = 1u64 << k;
        for d in [0u64, 1, 2, 3, 5, 16, 17, 31, 32, 33] {
            xs.extend([
                base.wrapping_add(d),
                base.wrapping_sub(d),
                base.wrapping_add(d).wrapping_neg(),
            ]);
        }
    }
    xs.extend(65500..65600u64);
    xs.extend((0..4096).map(|_| rng.next() >> rng.below(64)));
    while !xs.len().is_multiple_of(64) {
        xs.push(0);
    }
    let mut out = vec![0u16; 6 * xs.len()];
    let mut input = xs.clone();
    run(p, "from_int", &[ptr(&mut input), ptr(&mut out)], xs.len());
    let to_half = |v: i128| -> u16 {
        if v.unsigned_abs() >= 65520 {
            if v < 0 {
                0xfc00
            } else {
                0x7c00
            }
        } else {
            r.round(v as f64)
        }
    };
    for (i, x) in xs.iter().enumerate() {
        let wants = [
            to_half(i128::from(*x as i32)),
            to_half(i128::from(*x as u32)),
            to_half(i128::from(*x as i64)),
            to_half(i128::from(*x)),
            to_half(i128::from(*x as i16)),
            to_half(i128::from(*x as u8)),
        ];
        for (k, want) in wants.iter().enumerate() {
            let got = out[6 * i + k];
            assert_eq!(
                got, *want,
                "{what}: integer {x:#x} as type {k} (int, uint, long, ulong, short, uchar) to half"
            );
        }
    }
}

fn check_arithmetic(p: &jit::Program, what: &str, r: &Reference, rng: &mut Rng) {
    let n = 1 << 14;
    let mut a = operands(rng, n);
    let mut b = operands(rng, n);
    let mut out = vec![0u16; 4 * n];
    run(p, "ops", &[ptr(&mut a), ptr(&mut b), ptr(&mut out)], n);
    for i in 0..n {
        let (x, y) = (r.value(a[i]), r.value(b[i]));
        // Sums, differences and products of halves are exact in f64; a quotient is rounded
        // twice, harmlessly (53 >= 2 * 11 + 2 bits).
        for (k, (op, v)) in [("+", x + y), ("-", x - y), ("*", x * y), ("/", x / y)]
            .iter()
            .enumerate()
        {
            let want = r.round(*v);
            let got = out[4 * i + k];
            assert!(
                same(r, got, want),
                "{what}: {:#06x} {op} {:#06x} is {got:#06x}, not {want:#06x}",
                a[i],
                b[i]
            );
        }
    }
    // Chains: each multiplication and addition rounded, or each mad rounded once (Clift
    // computes mad in double: the product of two halves is exact there).
    let steps = 6u32;
    for (kernel, fused) in [("mul_add_chain", false), ("mad_chain", true)] {
        let mut out = vec![0u16; n];
        run(
            p,
            kernel,
            &[ptr(&mut a), ptr(&mut b), ptr(&mut out), Arg::U32(steps)],
            n,
        );
        for i in 0..n {
            let step = |m: u16, x: u16, c: u16| -> u16 {
                let (m, x, c) = (r.value(m), r.value(x), r.value(c));
                if fused {
                    r.round(m.mul_add(x, c))
                } else {
                    let p = r.value(r.round(m * x));
                    r.round(p + c)
                }
            };
            let (mut x, mut y) = (a[i], b[i]);
            for _ in 0..steps {
                x = step(y, x, y);
                y = step(x, y, x);
            }
            assert!(
                same(r, out[i], y),
                "{what}: {kernel} from {:#06x}, {:#06x} is {:#06x}, not {y:#06x}",
                a[i],
                b[i],
                out[i]
            );
        }
    }
}

/// The vector kernel for `width` components: sums, products and mad chains per component.
fn check_vectors(p: &jit::Program, what: &str, width: usize, r: &Reference, rng: &mut Rng) {
    let n = 1024;
    let comps = n * width;
    let mut a = operands(rng, comps);
    let mut b = operands(rng, comps);
    let mut out = vec![0u16; 3 * comps];
    let steps = 4u32;
    run(
        p,
        "vec_chain",
        &[ptr(&mut a), ptr(&mut b), ptr(&mut out), Arg::U32(steps)],
        n,
    );
    for i in 0..n {
        for c in 0..width {
            let j = i * width + c;
            let (x, y) = (r.value(a[j]), r.value(b[j]));
            let (mut mx, mut my) = (a[j], b[j]);
            for _ in 0..steps {
                mx = r.round(r.value(my).mul_add(r.value(mx), r.value(my)));
                my = r.round(r.value(mx).mul_add(r.value(my), r.value(mx)));
            }
            let at = |k: usize| out[(3 * i + k) * width + c];
            for (k, name, want) in [
                (0, "sum", r.round(x + y)),
                (1, "product", r.round(x * y)),
                (2, "mad chain", my),
            ] {
                assert!(
                    same(r, at(k), want),
                    "{what}: half{width} {name}, work-item {i} component {c}: {:#06x}, not {want:#06x} (from {:#06x}, {:#06x})",
                    at(k),
                    a[j],
                    b[j]
                );
            }
        }
    }
}

#[test]
fn half_conversions_and_arithmetic_match_the_host() {
    if !support::have_clang() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("clift-half-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cl = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/half.cl");
    let defines = |t: &str, w: usize| -> Vec<String> {
        let n = if w == 1 { String::new() } else { w.to_string() };
        vec![
            format!("-DTYPE={t}"),
            format!("-DVLOAD=vload{n}"),
            format!("-DVSTORE=vstore{n}"),
        ]
    };
    let r = Reference { table: half_table() };
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let floats = dense_floats(&mut rng);
    let doubles = dense_doubles(&mut rng);
    let spv = cl_to_spirv(&cl, &defines("half2", 2), &dir, "half").expect("llvm-spirv");
    for (what, simd) in [("scalar loop", "0"), ("vector loop", "check")] {
        let p = build(&spv, &[("CLIFT_SIMD", simd)]);
        check_conversions(&p, what, &r, &floats, &doubles);
        check_integers(&p, what, &r, &mut rng);
        check_arithmetic(&p, what, &r, &mut rng);
    }
    for width in [2usize, 3, 4, 8, 16] {
        let spv = cl_to_spirv(
            &cl,
            &defines(&format!("half{width}"), width),
            &dir,
            &format!("half{width}"),
        )
        .expect("llvm-spirv");
        for (what, simd) in [("scalar loop", "0"), ("vector loop", "check")] {
            let p = build(&spv, &[("CLIFT_SIMD", simd)]);
            check_vectors(&p, what, width, &r, &mut rng);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
