//! The register-tiled SGEMM benchmark (`cts/kernels/bench/gemm.cl`, issue 15 item 4): C = A * B
//! for square row-major matrices, with the kernel's tuning parameters as build options. Each
//! benchmark name is one setting, `gemm_v<VW>_t<TM>_g<WG>_<local|global>`; running the whole
//! sweep and taking each platform's fastest setting gives "each platform at its own best".

use crate::kernels::{input, output, scalar, Arg, Class, Job, Rng};
use std::sync::{Arc, Mutex};

/// One setting of the kernel's tuning parameters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Config {
    /// Vector width (4 or 8): columns of C per work-item.
    pub vw: usize,
    /// Rows of C per work-item.
    pub tm: usize,
    /// The work-group is `wg` x `wg` work-items.
    pub wg: usize,
    /// Whether the work-group stages A and B in local memory.
    pub local: bool,
}

/// The setting `gemm.spvasm` was compiled with (the kernel's defaults).
pub const DEFAULT: Config = Config {
    vw: 4,
    tm: 4,
    wg: 8,
    local: true,
};

/// The setting a benchmark name stands for, if it is a GEMM name.
pub fn parse(name: &str) -> Option<Config> {
    let mut p = name.strip_prefix("gemm_")?.split('_');
    let num = |s: Option<&str>, tag: char| s?.strip_prefix(tag)?.parse::<usize>().ok();
    let vw = num(p.next(), 'v')?;
    let tm = num(p.next(), 't')?;
    let wg = num(p.next(), 'g')?;
    let local = match p.next()? {
        "local" => true,
        "global" => false,
        _ => return None,
    };
    if p.next().is_some() || !matches!(vw, 4 | 8) || tm == 0 || wg == 0 {
        return None;
    }
    Some(Config { vw, tm, wg, local })
}

/// The `-D` build options of a setting.
pub fn options(c: Config) -> String {
    format!(
        "-D VW={} -D TM={} -D WG={} -D LOCAL={}",
        c.vw, c.tm, c.wg, c.local as u32
    )
}

/// A, B, the f64 product and the sum of |a_ik * b_kj| (to bound the float error), for size n.
type Reference = Arc<(Vec<f32>, Vec<f32>, Vec<f64>, Vec<f64>)>;

/// The host reference, computed once per size (every setting of the sweep shares it).
fn reference(n: usize) -> Reference {
    static CACHE: Mutex<Option<(usize, Reference)>> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((m, r)) = cache.as_ref() {
        if *m == n {
            return r.clone();
        }
    }
    let mut r = Rng::new(15);
    let a: Vec<f32> = (0..n * n).map(|_| r.signed()).collect();
    let b: Vec<f32> = (0..n * n).map(|_| r.signed()).collect();
    let mut want = vec![0f64; n * n];
    let mut mag = vec![0f64; n * n];
    for i in 0..n {
        let w = &mut want[i * n..(i + 1) * n];
        let m = &mut mag[i * n..(i + 1) * n];
        for k in 0..n {
            let aik = a[i * n + k] as f64;
            for ((w, m), &bkj) in w.iter_mut().zip(m.iter_mut()).zip(&b[k * n..(k + 1) * n]) {
                let p = aik * bkj as f64;
                *w += p;
                *m += p.abs();
            }
        }
    }
    let r: Reference = Arc::new((a, b, want, mag));
    *cache = Some((n, r.clone()));
    r
}

/// The benchmark `name` (a GEMM setting) for n x n matrices.
pub fn job(name: &'static str, n: usize) -> Option<Job> {
    let c = parse(name)?;
    let (bm, bn) = (c.wg * c.tm, c.wg * c.vw);
    if !n.is_multiple_of(bm) || !n.is_multiple_of(bn) || !n.is_multiple_of(16) {
        return None;
    }
    let r = reference(n);
    let args: Vec<Arg> = vec![scalar(n as u32), input(&r.0), input(&r.1), output(4 * n * n)];
    // Every product and partial sum rounds once (or the pair once, fused): n ulps of the sum of
    // magnitudes bounds the error of any summation order.
    let tol = n as f64 * f32::EPSILON as f64;
    Some(Job {
        name,
        class: Class::Compute,
        desc: format!(
            "{n}x{n}, float{} x {} rows per work-item, {}x{} groups, {}",
            c.vw,
            c.tm,
            c.wg,
            c.wg,
            if c.local { "local tiles" } else { "global reads" }
        ),
        args,
        offset: vec![],
        global: vec![n / c.vw, n / c.tm],
        local: vec![c.wg, c.wg],
        work: 2.0 * (n as f64).powi(3),
        unit: "GFLOP/s",
        check: Box::new(move |out| {
            let got: Vec<f32> = cts::from_bytes(&out[0]);
            if got.len() != n * n {
                return Err(format!("output has {} elements, expected {}", got.len(), n * n));
            }
            let (want, mag) = (&r.2, &r.3);
            let bad: Vec<usize> = (0..n * n)
                .filter(|&i| {
                    // NaN fails too.
                    let within = (got[i] as f64 - want[i]).abs() <= tol * mag[i] + 1e-6;
                    !within
                })
                .collect();
            match bad.first() {
                None => Ok("ok".into()),
                Some(&i) => Err(format!(
                    "{} of {} differ; first [{}][{}]: got {:?}, want {:?}",
                    bad.len(),
                    n * n,
                    i / n,
                    i % n,
                    got[i],
                    want[i]
                )),
            }
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(parse("gemm_v4_t4_g8_local"), Some(DEFAULT));
        assert_eq!(
            parse("gemm_v8_t2_g16_global"),
            Some(Config {
                vw: 8,
                tm: 2,
                wg: 16,
                local: false
            })
        );
        assert_eq!(parse("gemm_v3_t4_g8_local"), None);
        assert_eq!(parse("gemm_v4_t4_g8"), None);
        assert_eq!(parse("gemm_v4_t4_g8_local_x"), None);
    }
}
