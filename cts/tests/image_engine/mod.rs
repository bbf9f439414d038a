//! What the image-read tests share: their random inputs, the read-back result words and the
//! comparison against the reference engine (`jit::image`), NaN components matching any NaN.

use jit::abi::ImageDesc;

/// Deterministic xorshift64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1) with 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A result buffer of 4-component reads as words.
pub fn words(b: &[u8]) -> Vec<[u32; 4]> {
    b.chunks(16)
        .map(|c| std::array::from_fn(|i| u32::from_ne_bytes([c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]])))
        .collect()
}

/// Equal bits, or (float reads) NaN where the reference has NaN.
pub fn same(got: [u32; 4], want: [u32; 4], float: bool) -> bool {
    let nan = |b: u32| f32::from_bits(b).is_nan();
    got == want || float && (0..4).all(|i| got[i] == want[i] || nan(got[i]) && nan(want[i]))
}

/// The reference engine's read at `xyz` through sampler `bits`, as words (float or integer
/// formats).
///
/// # Safety
/// `desc` must describe texels that are alive for the call.
pub unsafe fn reference(desc: &ImageDesc, bits: u32, xyz: [f32; 3], float: bool) -> [u32; 4] {
    // SAFETY: the caller's contract.
    unsafe {
        if float {
            jit::image::sample_float(desc, bits, xyz).map(f32::to_bits)
        } else {
            jit::image::sample_int(desc, bits, xyz).map(|v| v as u32)
        }
    }
}
