//! The FFT benchmark (`cts/kernels/bench/fft.cl`, issue 15 item 4): batched forward complex
//! FFTs of 1024 points over float2, one transform per work-group, radix-4 Stockham passes
//! through local memory with sincos twiddles; checked against a host FFT in f64.

use crate::kernels::{input, output, Class, Job, Rng};

/// Points per transform (the kernel's `FFT_N` default).
pub const POINTS: usize = 1024;

/// In-place forward FFT in f64 (iterative radix 2, bit-reversed input order), `re`/`im` of a
/// power-of-two length.
fn fft64(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let ang = -2.0 * std::f64::consts::PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (s, c) = (ang * k as f64).sin_cos();
                let (a, b) = (start + k, start + k + len / 2);
                let tr = re[b] * c - im[b] * s;
                let ti = re[b] * s + im[b] * c;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
        len <<= 1;
    }
}

/// `batch` transforms of POINTS points.
pub fn job(batch: usize) -> Job {
    let n = POINTS;
    let mut r = Rng::new(16);
    let x: Vec<f32> = (0..2 * n * batch).map(|_| r.signed()).collect();
    // The reference, and per transform the L2 norm of its result.
    let mut want = vec![0f64; 2 * n * batch];
    let mut norms = vec![0f64; batch];
    for t in 0..batch {
        let (mut re, mut im): (Vec<f64>, Vec<f64>) = (0..n)
            .map(|i| (x[2 * (t * n + i)] as f64, x[2 * (t * n + i) + 1] as f64))
            .unzip();
        fft64(&mut re, &mut im);
        for i in 0..n {
            want[2 * (t * n + i)] = re[i];
            want[2 * (t * n + i) + 1] = im[i];
        }
        norms[t] = re.iter().chain(&im).map(|v| v * v).sum::<f64>().sqrt();
    }
    let log2n = n.trailing_zeros() as f64;
    Job {
        name: "fft",
        class: Class::Compute,
        desc: format!("{batch} x {n}-point complex, radix 4"),
        args: vec![input(&x), output(8 * n * batch)],
        offset: vec![],
        global: vec![batch * n / 4],
        local: vec![n / 4],
        // The usual count for a complex FFT: 5 N log2 N flops per transform.
        work: 5.0 * n as f64 * log2n * batch as f64,
        unit: "GFLOP/s",
        check: Box::new(move |out| {
            let got: Vec<f32> = cts::from_bytes(&out[0]);
            if got.len() != 2 * n * batch {
                return Err(format!("output has {} floats, expected {}", got.len(), 2 * n * batch));
            }
            // A float FFT's error grows like log2(N) roundings of the result's norm: allow
            // 4 log2(N) float epsilons of the transform's L2 norm, per transform and per
            // element (sincos within 4 ulp adds a few epsilons per pass).
            let mut worst = 0f64;
            for (t, &norm) in norms.iter().enumerate() {
                let tol = 4.0 * log2n * f32::EPSILON as f64 * norm;
                let range = 2 * t * n..2 * (t + 1) * n;
                let err2: f64 = range.clone().map(|i| (got[i] as f64 - want[i]).powi(2)).sum();
                let err = err2.sqrt();
                worst = worst.max(err / norm);
                // NaN fails too.
                let within = err <= tol;
                if !within {
                    let i = range
                        .clone()
                        .max_by(|&a, &b| {
                            let ea = (got[a] as f64 - want[a]).abs();
                            let eb = (got[b] as f64 - want[b]).abs();
                            ea.total_cmp(&eb)
                        })
                        .unwrap_or(range.start);
                    return Err(format!(
                        "transform {t}: L2 error {err:.3e} over the bound {tol:.3e}; worst point {} {}: got {}, want {:.6}",
                        (i - range.start) / 2,
                        if i % 2 == 0 { "re" } else { "im" },
                        got[i],
                        want[i]
                    ));
                }
            }
            Ok(format!("ok (relative L2 error up to {worst:.1e})"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host FFT against a direct DFT.
    #[test]
    fn fft64_is_a_dft() {
        let n = 64;
        let mut r = Rng::new(3);
        let x: Vec<(f64, f64)> = (0..n).map(|_| (r.signed() as f64, r.signed() as f64)).collect();
        let (mut re, mut im): (Vec<f64>, Vec<f64>) = x.iter().copied().unzip();
        fft64(&mut re, &mut im);
        for k in 0..n {
            let (mut sr, mut si) = (0f64, 0f64);
            for (j, &(xr, xi)) in x.iter().enumerate() {
                let a = -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                sr += xr * a.cos() - xi * a.sin();
                si += xr * a.sin() + xi * a.cos();
            }
            assert!((re[k] - sr).abs() < 1e-12 && (im[k] - si).abs() < 1e-12, "{k}");
        }
    }
}
