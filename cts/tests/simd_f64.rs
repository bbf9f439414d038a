//! Doubles in the vector loop (kernels/source/simd_f64.cl), held as two two-lane vectors:
//! arithmetic, `fma`/`mad`, consecutive loads and stores, gathers, comparisons, selects,
//! conversions, built-in calls, masked branches and loops, a local-memory tree across barriers,
//! size_t ids compared for equality.
//! Child processes run every kernel over launches with scalar tails and several group sizes,
//! with `CLIFT_SIMD=strict` (each kernel and region must take the vector loop), the same in
//! robust mode, and with `CLIFT_SIMD=0`; the outputs must be bit-identical (NaNs compare as a
//! class). The
//! arithmetic is also checked against the host, and loads under a mask must not read past the
//! end of a buffer that ends at an inaccessible page. Clift only.

use cts::image_ref::Rng;
use cts::*;

const N: usize = 103;

/// Inputs with zeros, infinities, NaN, denormals and values of both signs.
fn doubles(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = (0..n).map(|_| rng.range_f64(-6.0, 6.0)).collect();
    v[..7].copy_from_slice(&[0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, -2.5e-308]);
    v
}

fn bits(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{:016x}", if x.is_nan() { 0x7ff8_0000_0000_0000 } else { x.to_bits() }))
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_clift() -> bool {
    platform_string(platform(), CL_PLATFORM_NAME).contains("Clift")
}

/// In a child: each kernel's outputs for each launch, one line each.
#[test]
fn f64_child() {
    let Some(out) = std::env::var_os("CTS_SIMD_F64_OUT") else {
        return;
    };
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd_f64.cl", "-cl-std=CL3.0");
    let mut rng = Rng::new(64);
    let len = 8 * N;
    let x = doubles(&mut rng, len);
    let mut y = doubles(&mut rng, len);
    y.rotate_left(3);
    let idx: Vec<i32> = (0..len).map(|i| ((i * 37 + 11) % N) as i32).collect();
    let cnt: Vec<i32> = (0..len).map(|i| ((i * 5) % 7) as i32).collect();
    let (bx, by, bi, bc) = (
        ctx.buffer_from(as_bytes(&x)),
        ctx.buffer_from(as_bytes(&y)),
        ctx.buffer_from(as_bytes(&idx)),
        ctx.buffer_from(as_bytes(&cnt)),
    );
    let mut text = String::new();
    let launches: [(usize, Vec<usize>); 5] = [
        (N, vec![]),
        (N / 7 * 7, vec![7]),
        (96, vec![16]),
        (N, vec![1]),
        (64, vec![4]),
    ];
    for name in [
        "d_arith",
        "d_gather",
        "d_select",
        "d_branch_store",
        "d_eq",
        "d_loops",
        "d_tree",
        "d_math",
        "d_trig",
    ] {
        let k = p.kernel(name);
        for (global, local) in &launches {
            if name == "d_tree" && !local.first().is_some_and(|l| l.is_power_of_two()) {
                continue;
            }
            let o = ctx.buffer_from(&vec![0xffu8; 8 * len]);
            let n = *global as u32;
            let args: Vec<&Mem> = match name {
                "d_arith" | "d_select" | "d_math" | "d_trig" => vec![&bx, &by, &o],
                "d_gather" => vec![&bx, &bi, &o],
                "d_branch_store" | "d_eq" | "d_tree" => vec![&bx, &o],
                _ => vec![&bx, &by, &bc, &o],
            };
            for (a, m) in args.iter().enumerate() {
                k.arg_mem(a as u32, m);
            }
            let next = args.len() as u32;
            match name {
                "d_arith" => {
                    k.arg(next, &-1.375f64);
                    k.arg(next + 1, &n);
                }
                "d_tree" => k.arg_local(next, 8 * local[0]),
                _ => k.arg(next, &n),
            }
            q.run(&k, &[], &[*global], local);
            let got: Vec<f64> = from_bytes(&q.read(&o, 0, 8 * len));
            text.push_str(&format!("{name} {global} {local:?} {}\n", bits(&got)));
        }
    }
    std::fs::write(out, text).expect("write the outputs");
}

fn run_child(simd: &str, robust: bool, out: &std::path::Path) {
    let mut cmd = test_child("f64_child");
    cmd.env("CTS_SIMD_F64_OUT", out)
        .env("CLIFT_SIMD", simd)
        .env("CLIFT_CACHE", "0");
    if robust {
        cmd.env("CLIFT_ROBUST", "1");
    }
    let r = cmd.output().expect("run the child");
    assert!(
        r.status.success() && out.exists(),
        "child with CLIFT_SIMD={simd} (robust: {robust}) failed:\n{}\n{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
}

#[test]
fn double_lanes_match_the_scalar_loop() {
    if !is_clift() {
        return;
    }
    let dir = TempDir::new("simd-f64");
    let (v, r, s) = (
        dir.path().join("vector"),
        dir.path().join("robust"),
        dir.path().join("scalar"),
    );
    run_child("strict", false, &v);
    // (Robust mode: the double loads and stores lane by lane, each address checked.)
    run_child("strict", true, &r);
    run_child("0", false, &s);
    let (v, r, s) = (
        std::fs::read_to_string(v).expect("vector"),
        std::fs::read_to_string(r).expect("robust"),
        std::fs::read_to_string(s).expect("scalar"),
    );
    assert!(r == s, "robust mode's vector loop and the scalar loop differ");
    // 5 launches for 8 kernels, 3 (power-of-two groups) for the tree.
    assert_eq!(v.lines().count(), 43);
    assert_eq!(v.lines().count(), s.lines().count());
    for (lv, ls) in v.lines().zip(s.lines()) {
        let head: Vec<&str> = lv.splitn(4, ' ').take(3).collect();
        let first = lv.split(' ').zip(ls.split(' ')).position(|(a, b)| a != b);
        assert!(lv == ls, "{head:?}: vector and scalar loops differ (word {first:?})");
    }
}

#[test]
fn double_arithmetic_against_the_host() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd_f64.cl", "-cl-std=CL3.0");
    let mut rng = Rng::new(65);
    let x = doubles(&mut rng, N);
    let y: Vec<f64> = (0..N).map(|_| rng.range_f64(0.25, 4.0)).collect();
    let a = 0.625f64;
    let (bx, by) = (ctx.buffer_from(as_bytes(&x)), ctx.buffer_from(as_bytes(&y)));
    let k = p.kernel("d_arith");
    for (offset, global, local) in [(0, N, vec![]), (0, N, vec![5]), (9, N - 9, vec![])] {
        let o = ctx.buffer(8 * 4 * N);
        k.arg_mem(0, &bx);
        k.arg_mem(1, &by);
        k.arg_mem(2, &o);
        k.arg(3, &a);
        k.arg(4, &(N as u32));
        let off: Vec<usize> = if offset > 0 { vec![offset] } else { vec![] };
        q.run(&k, &off, &[global], &local);
        let got: Vec<f64> = from_bytes(&q.read(&o, 0, 8 * 4 * N));
        for i in offset..N {
            let (xi, yi) = (x[i], y[i]);
            let want = [
                (xi + yi) * a - xi / yi,
                -(xi * yi) - a,
                xi.mul_add(yi, a),
                xi.mul_add(a, yi),
            ];
            for (j, w) in want.iter().enumerate() {
                let g = got[j * N + i];
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "d_arith output {j} at {i} (offset {offset}, local {local:?}): {g:?}, want {w:?}"
                );
            }
        }
    }
}

/// |got - want| in ulps of `want` (a subnormal's ulp is 2^-1074); infinite for a wrong
/// special value.
fn ulps(got: f64, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() || want.is_infinite() || got.is_infinite() {
        let same = got == want || (got.is_nan() && want.is_nan());
        return if same { 0.0 } else { f64::INFINITY };
    }
    let e = (want.abs().log2().floor() as i64).max(-1022) - 52;
    let ulp = if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    };
    ((got - want) / ulp).abs()
}

#[test]
fn double_math_against_the_host() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd_f64.cl", "-cl-std=CL3.0");
    let mut rng = Rng::new(66);
    let n = 4096;
    let mut x = doubles(&mut rng, n);
    // Around the thresholds: exp's overflow (709.78) and underflow to subnormals (-708.4) and
    // to zero (-745.13), scaled back by the kernel's factor 130.
    for (j, t) in [709.78, -708.4, -745.13, 1024.0 / 180.0 * 130.0].iter().enumerate() {
        for d in 0..16 {
            x[100 + 16 * j + d] = (t + (d as f64 - 8.0) * 0.01) / 130.0;
        }
    }
    let y = doubles(&mut rng, n);
    let (bx, by) = (ctx.buffer_from(as_bytes(&x)), ctx.buffer_from(as_bytes(&y)));
    let k = p.kernel("d_math");
    let o = ctx.buffer(8 * 7 * n);
    k.arg_mem(0, &bx);
    k.arg_mem(1, &by);
    k.arg_mem(2, &o);
    k.arg(3, &(n as u32));
    q.run(&k, &[], &[n], &[]);
    let got: Vec<f64> = from_bytes(&q.read(&o, 0, 8 * 7 * n));
    for i in 0..n {
        let (xi, yi) = (x[i], y[i]);
        // OpenCL C 7.4: exp, exp2 and exp10 within 3 ulp; the rest exact.
        let near = [(xi * 130.0).exp(), (xi * 180.0).exp2(), 10f64.powf(xi * 55.0)];
        for (j, w) in near.iter().enumerate() {
            let g = got[j * n + i];
            assert!(
                ulps(g, *w) <= 3.0,
                "d_math output {j} at {i} (x {xi:e}): {g:e}, want {w:e}"
            );
        }
        let exact = [
            (xi * 3.5).floor() + (yi * 2.5).ceil() * 8.0,
            (xi * 3.5).trunc() + (yi * 2.5).round_ties_even() * 8.0,
            xi.abs().sqrt() - yi.abs() + 1.0 / (yi.abs() + 1.0).sqrt(),
        ];
        for (j, w) in exact.iter().enumerate() {
            let g = got[(3 + j) * n + i];
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "d_math output {} at {i}: {g:e}, want {w:e}",
                3 + j
            );
        }
        let g = got[6 * n + i];
        if xi > 0.5 {
            let w = yi.exp() - xi.exp2();
            // A difference of two results within 3 ulp each.
            let tol = 3.0 * (yi.exp().abs() + xi.exp2().abs()) * f64::EPSILON;
            assert!(
                (g - w).abs() <= tol || (g.is_nan() && w.is_nan()) || g == w,
                "d_math output 6 at {i}: {g:e}, want {w:e}"
            );
        } else {
            assert!(
                g.to_bits() == yi.to_bits() || (g.is_nan() && yi.is_nan()),
                "d_math output 6 at {i}"
            );
        }
    }
}

/// sin, cos, tan and sincos of doubles (OpenCL C 7.4: 4, 4, 5 ulp) against the host's, over
/// the inline reduction's range (every binade, near multiples of pi/4, both sides of 2^30) and
/// beyond it, with infinities, NaN and signed zeros.
#[test]
fn double_trig_against_the_host() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd_f64.cl", "-cl-std=CL3.0");
    let mut rng = Rng::new(67);
    let mut x = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
        -5e-324,
        f64::MAX,
    ];
    for e in -40..80 {
        for _ in 0..24 {
            let m = rng.range_f64(1.0, 2.0) * 2f64.powi(e);
            x.push(if rng.range_f64(0.0, 1.0) < 0.5 { -m } else { m });
        }
    }
    for k in (1..600i64).chain([683_565_275, 1 << 29, (1 << 31) + 1]) {
        let c = k as f64 * std::f64::consts::FRAC_PI_4;
        x.extend([c, f64::from_bits(c.to_bits() + 1), f64::from_bits(c.to_bits() - 1), -c]);
    }
    let b = 2f64.powi(30).to_bits();
    x.extend((b - 4..b + 4).map(f64::from_bits));
    while x.len() % 64 != 0 {
        x.push(rng.range_f64(-1e6, 1e6));
    }
    let n = x.len();
    // y = 0: the kernel's scale 2^(6 rint(y)) is 1, and its branch not taken.
    let y = vec![0.0f64; n];
    let (bx, by) = (ctx.buffer_from(as_bytes(&x)), ctx.buffer_from(as_bytes(&y)));
    let k = p.kernel("d_trig");
    let o = ctx.buffer(8 * 6 * n);
    k.arg_mem(0, &bx);
    k.arg_mem(1, &by);
    k.arg_mem(2, &o);
    k.arg(3, &(n as u32));
    q.run(&k, &[], &[n], &[]);
    let got: Vec<f64> = from_bytes(&q.read(&o, 0, 8 * 6 * n));
    let mut worst = [0.0f64; 5];
    for (i, xi) in x.iter().enumerate() {
        let want = [xi.sin(), xi.cos(), xi.tan(), xi.sin(), xi.cos()];
        for (j, w) in want.iter().enumerate() {
            let g = got[j * n + i];
            let e = ulps(g, *w);
            worst[j] = worst[j].max(e);
            let bound = if j == 2 { 5.0 } else { 4.0 };
            assert!(e <= bound, "d_trig output {j} of {xi:e}: {g:e}, want {w:e} ({e} ulp)");
            // sin and tan keep the sign of a zero.
            if *xi == 0.0 && j != 1 && j != 4 {
                assert_eq!(g.to_bits(), xi.to_bits(), "d_trig output {j} of {xi:e}");
            }
        }
        assert_eq!(got[5 * n + i].to_bits(), 0, "d_trig output 5 of {xi:e}");
    }
    println!(
        "ulp: sin {:.2}, cos {:.2}, tan {:.2}, sincos {:.2} {:.2}",
        worst[0], worst[1], worst[2], worst[3], worst[4]
    );
}

/// Memory whose last bytes are followed by a page that faults on access.
struct Guarded {
    base: *mut libc::c_void,
    page: usize,
}

impl Guarded {
    fn new() -> Guarded {
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap");
        let guard = unsafe { (base as *mut u8).add(page) } as *mut libc::c_void;
        assert_eq!(unsafe { libc::mprotect(guard, page, libc::PROT_NONE) }, 0, "mprotect");
        Guarded { base, page }
    }

    /// The last `bytes` bytes before the inaccessible page.
    fn tail(&self, bytes: usize) -> *mut u8 {
        assert!(bytes <= self.page);
        unsafe { (self.base as *mut u8).add(self.page - bytes) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        unsafe { libc::munmap(self.base, 2 * self.page) };
    }
}

#[test]
fn masked_double_loads_stop_at_the_buffer_end() {
    // Work-item i reads x[i + k * n] for k < cnt[i]: 3 rounds, 2 for the last two work-items,
    // so x ends at index 3n - 3 and the third round's last two lanes would read 3n - 2 and
    // 3n - 1, on the inaccessible page, if their loads were not masked.
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("simd_f64.cl", "-cl-std=CL3.0");
    let k = p.kernel("d_tail");
    let n = 64usize;
    let len = 3 * n - 2;
    let mem = Guarded::new();
    let xp = mem.tail(8 * len) as *mut f64;
    let x: Vec<f64> = (0..len).map(|j| (j as f64) * 0.25 - 7.0).collect();
    unsafe { std::ptr::copy_nonoverlapping(x.as_ptr(), xp, len) };
    let cnt: Vec<i32> = (0..n).map(|i| if i + 2 >= n { 2 } else { 3 }).collect();
    let bx = ctx.buffer_with(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, 8 * len, xp as *mut _);
    let bc = ctx.buffer_from(as_bytes(&cnt));
    for local in [vec![], vec![16], vec![64], vec![4]] {
        let o = ctx.buffer(8 * n);
        k.arg_mem(0, &bx);
        k.arg_mem(1, &bc);
        k.arg_mem(2, &o);
        k.arg(3, &(n as u32));
        q.run(&k, &[], &[n], &local);
        let got: Vec<f64> = from_bytes(&q.read(&o, 0, 8 * n));
        for i in 0..n {
            let want = (0..cnt[i] as usize).fold(0.0f64, |s, k| x[i + k * n].mul_add(1.5, s));
            assert_eq!(got[i].to_bits(), want.to_bits(), "d_tail at {i} (local {local:?})");
        }
    }
    drop(bx);
    q.finish();
}
