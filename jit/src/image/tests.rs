//! Tests of the image engine against the rules of the OpenCL SPIR-V environment, section 7,
//! with hand-computed expectations.

use super::convert::*;
use super::format::*;
use super::*;
use crate::abi::sampler_bits as sb;
use opencl_sys::*;

// ---- helpers -------------------------------------------------------------------------------

fn fmt(order: u32, ty: u32) -> Format {
    Format::new(order, ty).unwrap()
}

fn texel(bytes: &[u8]) -> Texel {
    let mut t = [0u8; 16];
    t[..bytes.len()].copy_from_slice(bytes);
    t
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// An image with its own storage.
struct TestImage {
    data: Vec<u8>,
    desc: ImageDesc,
}

impl TestImage {
    /// `size` = (width, height, depth, array_size); rows get `pad` extra bytes.
    fn new(ty: u32, order: u32, dt: u32, size: [u64; 4], pad: u64) -> TestImage {
        let elem = element_size(order, dt).unwrap() as u64;
        let row_pitch = size[0] * elem + pad;
        let slice_pitch = row_pitch * size[1];
        let slices = size[2].max(size[3]);
        let mut data = vec![0u8; (slice_pitch * slices) as usize];
        let desc = ImageDesc {
            data: data.as_mut_ptr(),
            image_type: ty,
            channel_order: order,
            channel_data_type: dt,
            element_size: elem as u32,
            width: size[0],
            height: size[1],
            depth: size[2],
            array_size: size[3],
            row_pitch,
            slice_pitch,
            reads: &super::GENERIC_READS,
        };
        TestImage { data, desc }
    }

    /// A 1D image of `R`/`CL_FLOAT` holding `values`.
    fn r_float_1d(values: &[f32]) -> TestImage {
        let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE1D, CL_R, CL_FLOAT, [values.len() as u64, 1, 1, 1], 0);
        img.data.copy_from_slice(&f32s(values));
        img
    }

    fn sample(&self, sampler: u32, c: [f32; 3]) -> [f32; 4] {
        unsafe { sample_float(&self.desc, sampler, c) }
    }

    fn sample_i(&self, sampler: u32, c: [f32; 3]) -> [i32; 4] {
        unsafe { sample_int(&self.desc, sampler, c) }
    }

    fn read(&self, c: [i32; 3]) -> [f32; 4] {
        unsafe { read_texel_float(&self.desc, c) }
    }

    fn read_i(&self, c: [i32; 3]) -> [i32; 4] {
        unsafe { read_texel_int(&self.desc, c) }
    }

    fn write(&mut self, c: [i32; 3], v: [f32; 4]) {
        unsafe { write_texel_float(&self.desc, c, v) }
    }

    fn write_i(&mut self, c: [i32; 3], v: [i32; 4]) {
        unsafe { write_texel_int(&self.desc, c, v) }
    }
}

const NEAREST: u32 = sb::FILTER_NEAREST;
const LINEAR: u32 = sb::FILTER_LINEAR;
const NORM: u32 = sb::NORMALIZED;
const EDGE: u32 = sb::ADDRESS_CLAMP_TO_EDGE;
const CLAMP: u32 = sb::ADDRESS_CLAMP;
const NONE: u32 = sb::ADDRESS_NONE;
const REPEAT: u32 = sb::ADDRESS_REPEAT;
const MIRROR: u32 = sb::ADDRESS_MIRRORED_REPEAT;

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

// ---- 7.4.1: normalized integers ------------------------------------------------------------

#[test]
fn normalized_end_points() {
    let u8f = |x: u8| decode_float(fmt(CL_R, CL_UNORM_INT8), &texel(&[x]))[0];
    assert_eq!(u8f(0), 0.0);
    assert_eq!(u8f(255), 1.0);
    let s8f = |x: i8| decode_float(fmt(CL_R, CL_SNORM_INT8), &texel(&[x as u8]))[0];
    assert_eq!(s8f(-128), -1.0);
    assert_eq!(s8f(-127), -1.0);
    assert_eq!(s8f(0), 0.0);
    assert_eq!(s8f(127), 1.0);
    let u16f = |x: u16| decode_float(fmt(CL_R, CL_UNORM_INT16), &texel(&x.to_ne_bytes()))[0];
    assert_eq!(u16f(0), 0.0);
    assert_eq!(u16f(65535), 1.0);
    let s16f = |x: i16| decode_float(fmt(CL_R, CL_SNORM_INT16), &texel(&x.to_ne_bytes()))[0];
    assert_eq!(s16f(-32768), -1.0);
    assert_eq!(s16f(-32767), -1.0);
    assert_eq!(s16f(0), 0.0);
    assert_eq!(s16f(32767), 1.0);
    let p = |v: u32| decode_float(fmt(CL_RGB, CL_UNORM_INT_101010), &texel(&v.to_ne_bytes()));
    assert_eq!(p(0x3fff_ffff), [1.0, 1.0, 1.0, 1.0]);
    assert_eq!(p(0), [0.0, 0.0, 0.0, 1.0]);
    // Every value is round_to_float(x / max).
    for x in 0..=255u32 {
        assert_eq!(u8f(x as u8), x as f32 / 255.0);
    }
    for x in 0..=65535u32 {
        assert_eq!(u16f(x as u16), x as f32 / 65535.0);
        let s = x as u16 as i16;
        assert_eq!(s16f(s), (s as f32 / 32767.0).max(-1.0));
    }
}

#[test]
fn float_to_normalized_rounding() {
    // Exact end points.
    assert_eq!(to_unorm(1.0, 255), 255);
    assert_eq!(to_unorm(0.0, 255), 0);
    assert_eq!(to_snorm(-1.0, 127), -127);
    assert_eq!(to_snorm(1.0, 127), 127);
    assert_eq!(to_unorm(1.0, 65535), 65535);
    // Clamping, INF and NaN.
    assert_eq!(to_unorm(2.0, 255), 255);
    assert_eq!(to_unorm(-0.5, 255), 0);
    assert_eq!(to_unorm(f32::INFINITY, 255), 255);
    assert_eq!(to_unorm(f32::NEG_INFINITY, 255), 0);
    assert_eq!(to_unorm(f32::NAN, 255), 0);
    assert_eq!(to_snorm(f32::NAN, 127), 0);
    assert_eq!(to_snorm(-2.0, 127), -128); // f(x) = max(-128, min(127, 127x))
    assert_eq!(to_snorm(f32::NEG_INFINITY, 32767), -32768);
    // Round to nearest even of the exact product: 0.5 * 255 = 127.5 -> 128,
    // -0.5 * 127 = -63.5 -> -64 (floor(x + 0.5) would give -63).
    assert_eq!(to_unorm(0.5, 255), 128);
    assert_eq!(to_unorm(0.5, 65535), 32768);
    assert_eq!(to_snorm(-0.5, 127), -64);
    assert_eq!(to_snorm(0.5, 127), 64);
    assert_eq!(to_unorm(0.5, 31), 16);
    assert_eq!(to_unorm(0.5, 63), 32);
    // 0.3f is 0.300000011920929 and 255 * that is 76.50000304: 77 (the f32 product
    // rounds to 76.5, whose even neighbour is 76).
    assert_eq!(to_unorm(0.3, 255), 77);
    // Every float in [0, 1] on a fine grid is within 0.5 of 255 * x.
    for k in 0..=100_000u32 {
        let x = k as f32 / 100_000.0;
        let exact = x as f64 * 255.0;
        assert!((to_unorm(x, 255) as f64 - exact).abs() <= 0.5, "{x}");
        let exact = x as f64 * 32767.0;
        assert!((to_snorm(-x, 32767) as f64 + exact).abs() <= 0.5, "{x}");
    }
    // Every normalized value reads back to the integer it came from.
    let f = fmt(CL_R, CL_UNORM_INT8);
    for x in 0..=255u8 {
        let v = decode_float(f, &texel(&[x]));
        assert_eq!(encode_float(f, v)[0], x);
    }
    let f = fmt(CL_R, CL_SNORM_INT8);
    for x in -127..=127i8 {
        let v = decode_float(f, &texel(&[x as u8]));
        assert_eq!(encode_float(f, v)[0], x as u8);
    }
}

// ---- 7.4.2: half -----------------------------------------------------------------------------

#[test]
fn half_round_trip_all() {
    for h in 0..=u16::MAX {
        let f = half_to_f32(h);
        let back = f32_to_half(f);
        if f.is_nan() {
            assert!(half_to_f32(back).is_nan(), "{h:#x}");
            assert_eq!(back & 0x8000, h & 0x8000);
        } else {
            assert_eq!(back, h, "{h:#x}");
        }
    }
    assert_eq!(half_to_f32(0x3c00), 1.0);
    assert_eq!(half_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(half_to_f32(0x7bff), 65504.0);
    assert_eq!(half_to_f32(0xfc00), f32::NEG_INFINITY);
}

/// The nearest half by search, ties to even (the reference for `f32_to_half`).
fn nearest_half(x: f32) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs() as f64;
    // Positive finite halves are ordered like their bits.
    let (mut lo, mut hi) = (0u16, 0x7bff);
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if half_to_f32(mid) as f64 <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let below = lo;
    if below == 0x7bff {
        return sign | below;
    }
    let (d0, d1) = (a - half_to_f32(below) as f64, half_to_f32(below + 1) as f64 - a);
    let h = if d0 < d1 || (d0 == d1 && below & 1 == 0) {
        below
    } else {
        below + 1
    };
    sign | h
}

#[test]
fn half_rounding() {
    assert_eq!(f32_to_half(1.0 + 2f32.powi(-11)), 0x3c00); // tie to even
    assert_eq!(f32_to_half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02); // tie to even, up
    assert_eq!(f32_to_half(65519.0), 0x7bff);
    assert_eq!(f32_to_half(65520.0), 0x7c00);
    assert_eq!(f32_to_half(2f32.powi(-25)), 0); // tie to even, 0
    assert_eq!(f32_to_half(3.0 * 2f32.powi(-25)), 2); // tie to even, 2
    assert_eq!(f32_to_half(f32::MIN_POSITIVE), 0);
    assert_eq!(f32_to_half(-0.0), 0x8000);
    assert_eq!(f32_to_half(f32::INFINITY), 0x7c00);
    assert!(half_to_f32(f32_to_half(f32::NAN)).is_nan());
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..300_000 {
        let bits = rng.next() as u32;
        // Bias towards the half range.
        let bits = (bits & 0x807f_ffff) | ((bits >> 23 & 0x3f) + 90) << 23;
        let x = f32::from_bits(bits);
        assert_eq!(f32_to_half(x), nearest_half(x), "{x:e}");
    }
}

// ---- 7.4.4: integers -------------------------------------------------------------------------

#[test]
fn integer_write_saturation() {
    let f = fmt(CL_RGBA, CL_SIGNED_INT8);
    let t = encode_int(f, [200, -200, 127, -128]);
    assert_eq!(&t[..4], &[127, 0x80, 127, 0x80]);
    assert_eq!(decode_int(f, &t), [127, -128, 127, -128]);
    let f = fmt(CL_RGBA, CL_UNSIGNED_INT8);
    let t = encode_int(f, [-1, 300, 255, 7]);
    assert_eq!(&t[..4], &[255, 255, 255, 7]);
    assert_eq!(decode_int(f, &t), [255, 255, 255, 7]);
    let f = fmt(CL_RG, CL_SIGNED_INT16);
    let t = encode_int(f, [40000, -40000, 0, 0]);
    assert_eq!(decode_int(f, &t), [32767, -32768, 0, 1]);
    let f = fmt(CL_RG, CL_UNSIGNED_INT16);
    let t = encode_int(f, [70000, -5, 0, 0]);
    assert_eq!(decode_int(f, &t), [65535, 65535, 0, 1]);
    let f = fmt(CL_RGBA, CL_SIGNED_INT32);
    let v = [i32::MIN, i32::MAX, -1, 0];
    assert_eq!(decode_int(f, &encode_int(f, v)), v);
    let f = fmt(CL_RGBA, CL_UNSIGNED_INT32);
    let v = [-1, i32::MIN, 5, 0]; // 0xffffffff, 0x80000000
    assert_eq!(decode_int(f, &encode_int(f, v)), v);
    // Sign and zero extension of reads.
    assert_eq!(decode_int(fmt(CL_R, CL_SIGNED_INT8), &texel(&[0xff])), [-1, 0, 0, 1]);
    assert_eq!(decode_int(fmt(CL_R, CL_UNSIGNED_INT8), &texel(&[0xff])), [255, 0, 0, 1]);
    assert_eq!(
        decode_int(fmt(CL_R, CL_UNSIGNED_INT16), &texel(&[0xff, 0xff])),
        [65535, 0, 0, 1]
    );
}

// ---- 7.4.5: sRGB -----------------------------------------------------------------------------

#[test]
fn srgb_accuracy() {
    let f = fmt(CL_sRGBA, CL_UNORM_INT8);
    for x in 0..=255u8 {
        let y = decode_float(f, &texel(&[x, x, x, x]));
        // Read: |x - 255 c_sRGB(y)| <= 0.5; alpha is linear.
        for &c in &y[..3] {
            assert!((x as f64 - 255.0 * c_srgb(c as f64)).abs() <= 0.5, "{x}");
        }
        assert_eq!(y[3], x as f32 / 255.0);
        // And reads back.
        assert_eq!(&encode_float(f, y)[..4], &[x, x, x, x]);
    }
    assert_eq!(decode_float(f, &texel(&[0, 255, 0, 0])), [0.0, 1.0, 0.0, 0.0]);
    // Write: |x - 255 c_sRGB(y)| <= 0.6.
    for k in 0..=200_000u32 {
        let y = k as f32 / 200_000.0;
        let x = encode_float(f, [y, y, y, y]);
        assert!((x[0] as f64 - 255.0 * c_srgb(y as f64)).abs() <= 0.6, "{y}");
        assert_eq!(x[3], to_unorm(y, 255) as u8); // alpha linear
    }
    for y in [f32::NAN, -1.0, f32::NEG_INFINITY] {
        assert_eq!(encode_float(f, [y; 4])[0], 0);
    }
    assert_eq!(encode_float(f, [2.0; 4])[0], 255);
    // sBGRA stores B first; sRGB and sRGBx read alpha 1.
    let t = encode_float(fmt(CL_sBGRA, CL_UNORM_INT8), [1.0, 0.0, 0.0, 0.5]);
    assert_eq!(&t[..4], &[0, 0, 255, 128]);
    assert_eq!(
        decode_float(fmt(CL_sRGB, CL_UNORM_INT8), &texel(&[255, 0, 255])),
        [1.0, 0.0, 1.0, 1.0]
    );
}

// ---- 7.6: channel mapping ------------------------------------------------------------------

#[test]
fn channel_mapping() {
    let b = [51u8, 102, 153, 204]; // 0.2, 0.4, 0.6, 0.8
    let (c0, c1, c2, c3) = (0.2f32, 0.4f32, 0.6f32, 0.8f32);
    let read = |o: u32| decode_float(fmt(o, CL_UNORM_INT8), &texel(&b));
    assert_eq!(read(CL_R), [c0, 0.0, 0.0, 1.0]);
    assert_eq!(read(CL_A), [0.0, 0.0, 0.0, c0]);
    assert_eq!(read(CL_RG), [c0, c1, 0.0, 1.0]);
    assert_eq!(read(CL_RA), [c0, 0.0, 0.0, c1]);
    assert_eq!(read(CL_RGBA), [c0, c1, c2, c3]);
    assert_eq!(read(CL_BGRA), [c2, c1, c0, c3]);
    assert_eq!(read(CL_ARGB), [c1, c2, c3, c0]);
    assert_eq!(read(CL_ABGR), [c3, c2, c1, c0]);
    assert_eq!(read(CL_INTENSITY), [c0, c0, c0, c0]);
    assert_eq!(read(CL_LUMINANCE), [c0, c0, c0, 1.0]);
    // Writes put each component where reads find it.
    for o in [CL_R, CL_A, CL_RG, CL_RA, CL_RGBA, CL_BGRA, CL_ARGB, CL_ABGR] {
        let f = fmt(o, CL_UNORM_INT8);
        let v = read(o);
        assert_eq!(decode_float(f, &encode_float(f, v)), v, "{o:#x}");
    }
    let t = encode_float(fmt(CL_ARGB, CL_UNORM_INT8), [c0, c1, c2, c3]);
    assert_eq!(&t[..4], &[204, 51, 102, 153]);
    let t = encode_float(fmt(CL_ABGR, CL_UNORM_INT8), [c0, c1, c2, c3]);
    assert_eq!(&t[..4], &[204, 153, 102, 51]);
    // Integer formats read a missing alpha as integer 1.
    let t = texel(&[5, 6, 7, 8]);
    assert_eq!(decode_int(fmt(CL_RG, CL_UNSIGNED_INT8), &t), [5, 6, 0, 1]);
    assert_eq!(decode_int(fmt(CL_A, CL_SIGNED_INT8), &t), [0, 0, 0, 5]);
    assert_eq!(decode_int(fmt(CL_BGRA, CL_UNSIGNED_INT8), &t), [7, 6, 5, 8]);
    // Depth: the depth in x.
    let d = decode_float(fmt(CL_DEPTH, CL_FLOAT), &texel(&0.25f32.to_ne_bytes()));
    assert_eq!(d, [0.25, 0.0, 0.0, 1.0]);
    let d = decode_float(fmt(CL_DEPTH, CL_UNORM_INT16), &texel(&[0xff, 0xff]));
    assert_eq!(d[0], 1.0);
    // Half and float.
    let t = encode_float(fmt(CL_RGBA, CL_HALF_FLOAT), [1.0, -2.0, 0.5, 65504.0]);
    assert_eq!(decode_float(fmt(CL_RGBA, CL_HALF_FLOAT), &t), [1.0, -2.0, 0.5, 65504.0]);
}

#[test]
fn packed_formats() {
    let f = fmt(CL_RGB, CL_UNORM_SHORT_565);
    let t = encode_float(f, [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(u16::from_ne_bytes([t[0], t[1]]), (31 << 11) | 31);
    let t = encode_float(f, [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(u16::from_ne_bytes([t[0], t[1]]), 63 << 5);
    assert_eq!(decode_float(f, &t), [0.0, 1.0, 0.0, 1.0]);
    let f = fmt(CL_RGBx, CL_UNORM_SHORT_555);
    let t = encode_float(f, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(u16::from_ne_bytes([t[0], t[1]]), 31 << 10);
    // Bit 15 is ignored on reads.
    let v = 0x8000u16 | 10 << 10 | 20 << 5 | 30;
    let d = decode_float(f, &texel(&v.to_ne_bytes()));
    assert_eq!(d, [10.0 / 31.0, 20.0 / 31.0, 30.0 / 31.0, 1.0]);
    let f = fmt(CL_RGB, CL_UNORM_INT_101010);
    let t = encode_float(f, [1.0, 0.0, 0.5, 1.0]);
    assert_eq!(u32_of(&t), 1023 << 20 | 512);
    let f = fmt(CL_RGBA, CL_UNORM_INT_101010_2);
    let t = encode_float(f, [0.0, 1.0, 0.0, 1.0 / 3.0]);
    assert_eq!(u32_of(&t), 1023 << 12 | 1);
    assert_eq!(decode_float(f, &t), [0.0, 1.0, 0.0, 1.0 / 3.0]);
}

fn u32_of(t: &Texel) -> u32 {
    u32::from_ne_bytes([t[0], t[1], t[2], t[3]])
}

/// Random texel bytes with what a write could not reproduce made canonical: the ignored
/// channel and undefined bits zero, SNORM -128 (-1.0 is written -127), NaNs replaced.
fn canonical_texel(f: Format, rng: &mut Rng) -> Texel {
    let mut t = [0u8; 16];
    for b in t.iter_mut() {
        *b = rng.next() as u8;
    }
    let n = f.stored_channels();
    let pad = f.sources();
    match f.data_type {
        DataType::UnormShort555 => t[1] &= 0x7f,
        DataType::UnormInt101010 => t[3] &= 0x3f,
        _ => {}
    }
    if !f.data_type.is_packed() {
        let size = f.element_size() / f.order.channels();
        for i in 0..n {
            let ch = &mut t[i * size..(i + 1) * size];
            if pad[i] == PAD {
                ch.fill(0);
            }
            match f.data_type {
                DataType::SnormInt8 if ch[0] == 0x80 => ch[0] = 0x81,
                DataType::SnormInt16 if u16::from_ne_bytes([ch[0], ch[1]]) == 0x8000 => {
                    ch.copy_from_slice(&0x8001u16.to_ne_bytes())
                }
                DataType::HalfFloat if half_to_f32(u16::from_ne_bytes([ch[0], ch[1]])).is_nan() => {
                    ch.copy_from_slice(&0x3c00u16.to_ne_bytes())
                }
                DataType::Float if f32::from_ne_bytes([ch[0], ch[1], ch[2], ch[3]]).is_nan() => {
                    ch.copy_from_slice(&1.5f32.to_ne_bytes())
                }
                _ => {}
            }
        }
    }
    t[f.element_size()..].fill(0);
    t
}

#[test]
fn every_format_round_trips() {
    let mut rng = Rng(0xdead_beef_1234_5678);
    let mut all = supported_formats(CL_MEM_OBJECT_IMAGE2D);
    all.extend(supported_formats(CL_MEM_OBJECT_IMAGE3D));
    for (o, t) in all {
        let f = fmt(o, t);
        for _ in 0..2000 {
            let tex = canonical_texel(f, &mut rng);
            let back = match f.data_type.kind() {
                Kind::Float => encode_float(f, decode_float(f, &tex)),
                Kind::Int | Kind::UInt => encode_int(f, decode_int(f, &tex)),
            };
            assert_eq!(back, tex, "{o:#x} {t:#x}");
        }
    }
}

#[test]
fn fill_texels() {
    let color = |v: [f32; 4]| -> [u8; 16] { f32s(&v).try_into().unwrap() };
    let ints = |v: [i32; 4]| -> [u8; 16] {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        b.try_into().unwrap()
    };
    let c = color([1.0, 0.5, 0.0, 0.25]);
    assert_eq!(fill_texel(CL_RGBA, CL_UNORM_INT8, &c), Some(vec![255, 128, 0, 64]));
    assert_eq!(fill_texel(CL_BGRA, CL_UNORM_INT8, &c), Some(vec![0, 128, 255, 64]));
    assert_eq!(fill_texel(CL_R, CL_FLOAT, &c), Some(f32s(&[1.0])));
    assert_eq!(
        fill_texel(CL_RGBA, CL_HALF_FLOAT, &c).unwrap(),
        [0x3c00u16, 0x3800, 0, 0x3400]
            .iter()
            .flat_map(|h| h.to_ne_bytes())
            .collect::<Vec<_>>()
    );
    let s = fill_texel(CL_sRGBA, CL_UNORM_INT8, &color([0.5, 0.0, 1.0, 0.5])).unwrap();
    assert_eq!(s, vec![188, 0, 255, 128]);
    let i = ints([-300, 5, 300, -1]);
    assert_eq!(fill_texel(CL_RGBA, CL_SIGNED_INT8, &i), Some(vec![0x80, 5, 127, 0xff]));
    assert_eq!(fill_texel(CL_RGBA, CL_UNSIGNED_INT8, &i), Some(vec![255, 5, 255, 255]));
    assert_eq!(
        fill_texel(CL_RG, CL_UNSIGNED_INT16, &ints([70000, 9, 0, 0])),
        Some(vec![0xff, 0xff, 9, 0])
    );
    assert_eq!(fill_texel(CL_RGB, CL_UNORM_INT8, &c), None);
    for (o, t) in supported_formats(CL_MEM_OBJECT_IMAGE2D) {
        assert_eq!(fill_texel(o, t, &c).unwrap().len(), element_size(o, t).unwrap());
    }
}

// ---- 7.2: addressing and filtering -----------------------------------------------------------

/// The R component.
fn r(v: [f32; 4]) -> f32 {
    v[0]
}

#[test]
fn nearest_clamp_to_edge_and_clamp() {
    let img = TestImage::r_float_1d(&[10.0, 11.0, 12.0, 13.0]);
    let s = NEAREST | EDGE;
    let at = |x: f32| r(img.sample(s, [x, 0.0, 0.0]));
    assert_eq!(at(-1.0), 10.0);
    assert_eq!(at(0.0), 10.0);
    assert_eq!(at(0.999), 10.0);
    assert_eq!(at(1.0), 11.0); // a texel boundary belongs to the next texel
    assert_eq!(at(3.99), 13.0);
    assert_eq!(at(4.0), 13.0);
    assert_eq!(at(1e30), 13.0);
    let s = NEAREST | CLAMP;
    let border = [0.0, 0.0, 0.0, 1.0]; // CL_R's border colour
    assert_eq!(img.sample(s, [-0.001, 0.0, 0.0]), border);
    assert_eq!(img.sample(s, [4.0, 0.0, 0.0]), border);
    assert_eq!(img.sample(s, [-1e30, 0.0, 0.0]), border);
    assert_eq!(img.sample(s, [3.999, 0.0, 0.0]), [13.0, 0.0, 0.0, 1.0]);
    assert_eq!(img.sample(s, [0.0, 0.0, 0.0]), [10.0, 0.0, 0.0, 1.0]);
    // Normalized: s * width.
    let s = NORM | NEAREST | EDGE;
    assert_eq!(r(img.sample(s, [0.25, 0.0, 0.0])), 11.0);
    assert_eq!(r(img.sample(s, [0.2499, 0.0, 0.0])), 10.0);
    assert_eq!(r(img.sample(s, [1.0, 0.0, 0.0])), 13.0);
    assert_eq!(r(img.sample(s, [-0.5, 0.0, 0.0])), 10.0);
    // NONE reads inside; outside never reads memory (border colour here).
    let s = NEAREST | NONE;
    assert_eq!(r(img.sample(s, [2.5, 0.0, 0.0])), 12.0);
    assert_eq!(img.sample(s, [4.0, 0.0, 0.0]), border);
    assert_eq!(img.sample(s, [-1.0, 0.0, 0.0]), border);
}

#[test]
fn nearest_repeat_and_mirrored_repeat() {
    let img = TestImage::r_float_1d(&[10.0, 11.0, 12.0, 13.0]);
    let at = |s: u32, x: f32| r(img.sample(NORM | NEAREST | s, [x, 0.0, 0.0]));
    assert_eq!(at(REPEAT, 0.0), 10.0);
    assert_eq!(at(REPEAT, 1.25), 11.0);
    assert_eq!(at(REPEAT, -0.25), 13.0);
    assert_eq!(at(REPEAT, 0.999999), 13.0);
    assert_eq!(at(REPEAT, 1.0), 10.0);
    assert_eq!(at(REPEAT, -1.0), 10.0);
    assert_eq!(at(REPEAT, 7.5), 12.0);
    assert_eq!(at(MIRROR, 0.1), 10.0);
    assert_eq!(at(MIRROR, 1.25), 13.0); // |1.25 - 2| = 0.75
    assert_eq!(at(MIRROR, -0.25), 11.0); // |-0.25 - 0| = 0.25
    assert_eq!(at(MIRROR, 2.1), 10.0);
    assert_eq!(at(MIRROR, 1.0), 13.0); // rint(0.5) = 0: |1 - 0| = 1, u = 4 -> min(4, 3)
    assert_eq!(at(MIRROR, 3.0), 13.0);
    assert_eq!(at(MIRROR, 0.76), 13.0);
    assert_eq!(at(MIRROR, 1.76), 10.0); // |1.76 - 2| = 0.24
}

#[test]
fn linear_1d_all_modes() {
    let img = TestImage::r_float_1d(&[10.0, 20.0, 40.0, 80.0]);
    let at = |s: u32, x: f32| img.sample(LINEAR | s, [x, 0.0, 0.0]);
    // Texel centres read the texel exactly.
    assert_eq!(r(at(EDGE, 1.5)), 20.0);
    // i0 = floor(1.75 - 0.5) = 1, a = 0.25.
    assert_eq!(r(at(EDGE, 1.75)), 0.75 * 20.0 + 0.25 * 40.0);
    assert_eq!(r(at(EDGE, 2.0)), 0.5 * 20.0 + 0.5 * 40.0);
    // Clamped to the edge: i0 = i1 = 0, and i0 = 3, i1 = 3.
    assert_eq!(r(at(EDGE, 0.25)), 10.0);
    assert_eq!(r(at(EDGE, 4.0)), 80.0);
    // CLAMP blends with the border colour (0, 0, 0, 1).
    assert_eq!(at(CLAMP, 0.25), [0.75 * 10.0, 0.0, 0.0, 1.0]);
    assert_eq!(at(CLAMP, 4.0), [0.5 * 80.0, 0.0, 0.0, 1.0]);
    assert_eq!(at(CLAMP, -5.0), [0.0, 0.0, 0.0, 1.0]);
    // Normalized REPEAT: s = 0 -> u = 0, i0 = -1 -> 3, i1 = 0, a = 0.5.
    let n = |s: u32, x: f32| r(img.sample(NORM | LINEAR | s, [x, 0.0, 0.0]));
    assert_eq!(n(REPEAT, 0.0), 0.5 * 80.0 + 0.5 * 10.0);
    assert_eq!(n(REPEAT, 1.0), 0.5 * 80.0 + 0.5 * 10.0);
    assert_eq!(n(REPEAT, 0.375), 20.0); // u = 1.5
    assert_eq!(n(REPEAT, 1.0 - 1.0 / 16.0), 0.75 * 80.0 + 0.25 * 10.0); // u = 3.75: i1 = 4 - 4
                                                                        // MIRRORED_REPEAT: s = 0 -> i0 = max(-1, 0), i1 = 0; s = 1 -> u = 4, i0 = 3, i1 = 3.
    assert_eq!(n(MIRROR, 0.0), 10.0);
    assert_eq!(n(MIRROR, 1.0), 80.0);
    assert_eq!(n(MIRROR, -0.375), 20.0); // mirrored to 0.375, u = 1.5
    assert_eq!(n(MIRROR, 0.5), 0.5 * 20.0 + 0.5 * 40.0);
    // Normalized CLAMP_TO_EDGE: u = 0.4375 * 4 = 1.75.
    assert_eq!(n(EDGE, 0.4375), 0.75 * 20.0 + 0.25 * 40.0);
}

#[test]
fn linear_2d_and_3d() {
    // 2x2 RG float image: texel (i, j) = (i + 2j, 10).
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_RG, CL_FLOAT, [2, 2, 1, 1], 8);
    for j in 0..2 {
        for i in 0..2 {
            img.write([i, j, 0], [(i + 2 * j) as f32, 10.0, 0.0, 0.0]);
        }
    }
    // u = 0.75 -> i0 = 0, a = 0.25; v = 1.25 -> j0 = 0, b = 0.75.
    let (a, b) = (0.25f32, 0.75f32);
    let want = (1.0 - a) * (1.0 - b) * 0.0 + a * (1.0 - b) * 1.0 + (1.0 - a) * b * 2.0 + a * b * 3.0;
    let v = img.sample(LINEAR | EDGE, [0.75, 1.25, 0.0]);
    assert_eq!(v, [want, 10.0, 0.0, 1.0]);
    // Normalized: same point.
    let v = img.sample(NORM | LINEAR | EDGE, [0.375, 0.625, 0.0]);
    assert_eq!(v, [want, 10.0, 0.0, 1.0]);
    // CLAMP at the corner: only T00 is inside, weight (1 - a)(1 - b) with a = b = 0.5.
    let v = img.sample(LINEAR | CLAMP, [0.0, 0.0, 0.0]);
    assert_eq!(v, [0.0, 0.25 * 10.0, 0.0, 1.0]);

    // 2x2x2 R float image: texel (i, j, k) = i + 2j + 4k.
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE3D, CL_R, CL_FLOAT, [2, 2, 2, 1], 4);
    for k in 0..2 {
        for j in 0..2 {
            for i in 0..2 {
                img.write([i, j, k], [(i + 2 * j + 4 * k) as f32, 0.0, 0.0, 0.0]);
            }
        }
    }
    assert_eq!(r(img.read([1, 1, 1])), 7.0);
    assert_eq!(r(img.sample(NEAREST | EDGE, [1.5, 0.5, 1.0])), 5.0);
    let (a, b, c) = (0.25f32, 0.5f32, 0.75f32);
    let t = |i: usize, j: usize, k: usize| (i + 2 * j + 4 * k) as f32;
    let want = (1.0 - a) * (1.0 - b) * (1.0 - c) * t(0, 0, 0)
        + a * (1.0 - b) * (1.0 - c) * t(1, 0, 0)
        + (1.0 - a) * b * (1.0 - c) * t(0, 1, 0)
        + a * b * (1.0 - c) * t(1, 1, 0)
        + (1.0 - a) * (1.0 - b) * c * t(0, 0, 1)
        + a * (1.0 - b) * c * t(1, 0, 1)
        + (1.0 - a) * b * c * t(0, 1, 1)
        + a * b * c * t(1, 1, 1);
    assert_eq!(r(img.sample(LINEAR | EDGE, [0.75, 1.0, 1.25])), want);
    assert_eq!(want, 0.25 + 1.0 + 3.0);
}

#[test]
fn linear_srgb_filters_linear_values() {
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE1D, CL_sRGBA, CL_UNORM_INT8, [2, 1, 1, 1], 0);
    img.data.copy_from_slice(&[0, 0, 0, 0, 255, 255, 255, 255]);
    let v = img.sample(LINEAR | EDGE, [1.0, 0.0, 0.0]);
    assert_eq!(v, [0.5, 0.5, 0.5, 0.5]);
}

#[test]
fn integer_formats_linear_reads_nearest() {
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE1D, CL_RGBA, CL_SIGNED_INT16, [3, 1, 1, 1], 0);
    for i in 0..3 {
        img.write_i([i, 0, 0], [i - 1, 100 * i, -7, i]);
    }
    assert_eq!(img.sample_i(LINEAR | EDGE, [1.9, 0.0, 0.0]), [0, 100, -7, 1]);
    assert_eq!(img.sample_i(NEAREST | CLAMP, [-0.5, 0.0, 0.0]), [0, 0, 0, 0]);
    assert_eq!(img.read_i([2, 0, 0]), [1, 200, -7, 2]);
    // R integer: border alpha is integer 1.
    let img = TestImage::new(CL_MEM_OBJECT_IMAGE1D, CL_R, CL_UNSIGNED_INT32, [3, 1, 1, 1], 0);
    assert_eq!(img.sample_i(NEAREST | CLAMP, [5.0, 0.0, 0.0]), [0, 0, 0, 1]);
    assert_eq!(img.read_i([-1, 0, 0]), [0, 0, 0, 1]);
}

#[test]
fn border_colours() {
    let border = |o: u32, t: u32| {
        let img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, o, t, [1, 1, 1, 1], 0);
        img.sample(NEAREST | CLAMP, [-1.0, 0.0, 0.0])
    };
    let opaque = [0.0, 0.0, 0.0, 1.0];
    let clear = [0.0; 4];
    assert_eq!(border(CL_R, CL_UNORM_INT8), opaque);
    assert_eq!(border(CL_RG, CL_UNORM_INT8), opaque);
    assert_eq!(border(CL_RGB, CL_UNORM_SHORT_565), opaque);
    assert_eq!(border(CL_LUMINANCE, CL_FLOAT), opaque);
    assert_eq!(border(CL_sRGB, CL_UNORM_INT8), opaque);
    for o in [
        CL_A,
        CL_INTENSITY,
        CL_RA,
        CL_RGBA,
        CL_BGRA,
        CL_ARGB,
        CL_ABGR,
        CL_sRGBA,
        CL_sBGRA,
    ] {
        let t = if o == CL_RA || o == CL_RGBA || o == CL_A || o == CL_INTENSITY {
            CL_FLOAT
        } else {
            CL_UNORM_INT8
        };
        assert_eq!(border(o, t), clear, "{o:#x}");
    }
    // The x orders have no alpha channel: alpha 1, as the Khronos CTS and issue 13 expect.
    for t in [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010] {
        assert_eq!(border(CL_RGBx, t), opaque, "CL_RGBx {t:#x}");
    }
    assert_eq!(r(border(CL_DEPTH, CL_FLOAT)), 0.0);
}

// ---- 7.5: arrays, and the other image types --------------------------------------------------

#[test]
fn array_layers() {
    // 1D array: width 2, 3 layers; texel (i, layer) = 10 layer + i.
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_R, CL_FLOAT, [2, 1, 1, 3], 4);
    for l in 0..3 {
        for i in 0..2 {
            img.write([i, l, 0], [(10 * l + i) as f32, 0.0, 0.0, 0.0]);
        }
    }
    let at = |s: u32, x: f32, l: f32| r(img.sample(s, [x, l, 0.0]));
    assert_eq!(at(NEAREST | EDGE, 1.0, 1.4), 11.0);
    assert_eq!(at(NEAREST | EDGE, 1.0, 1.5), 21.0); // rint(1.5) = 2
    assert_eq!(at(NEAREST | EDGE, 1.0, 0.5), 1.0); // rint(0.5) = 0
    assert_eq!(at(NEAREST | EDGE, 0.0, 2.5), 20.0); // rint(2.5) = 2
    assert_eq!(at(NEAREST | EDGE, 0.0, -3.0), 0.0);
    assert_eq!(at(NEAREST | EDGE, 0.0, 10.0), 20.0);
    assert_eq!(at(NEAREST | EDGE, 0.0, f32::NAN), 0.0);
    // The layer is never normalized, and CLAMP does not apply to it.
    assert_eq!(at(NORM | NEAREST | CLAMP, 0.75, 1.0), 11.0);
    assert_eq!(at(NORM | NEAREST | CLAMP, 0.75, 7.0), 21.0);
    // Linear filtering stays within the layer.
    assert_eq!(at(LINEAR | EDGE, 1.0, 2.0), 20.5);
    // Sampler-less reads take the layer as it is; outside is the border colour.
    assert_eq!(r(img.read([1, 2, 0])), 21.0);
    assert_eq!(img.read([1, 3, 0]), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(img.read([0, -1, 0]), [0.0, 0.0, 0.0, 1.0]);

    // 2D array: 2x2, 2 layers, layer in z.
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_RGBA, CL_UNSIGNED_INT8, [2, 2, 1, 2], 3);
    for l in 0..2 {
        for j in 0..2 {
            for i in 0..2 {
                img.write_i([i, j, l], [i, j, l, 9]);
            }
        }
    }
    assert_eq!(img.read_i([1, 0, 1]), [1, 0, 1, 9]);
    assert_eq!(img.sample_i(NEAREST | EDGE, [1.5, 1.5, 0.6]), [1, 1, 1, 9]);
    assert_eq!(img.sample_i(NORM | NEAREST | EDGE, [0.1, 0.9, 0.0]), [0, 1, 0, 9]);
    // Writes outside change nothing.
    let before = img.data.clone();
    for c in [[2, 0, 0], [0, 2, 0], [0, 0, 2], [-1, 0, 0], [0, 0, -1]] {
        img.write_i(c, [7, 7, 7, 7]);
    }
    assert_eq!(img.data, before);
}

#[test]
fn pitches_1d_buffer_and_unused_coordinates() {
    // 2D with row padding: texel (i, j) lands at j * row_pitch + i * 4.
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, [3, 2, 1, 1], 5);
    img.write([2, 1, 0], [1.0, 0.0, 0.0, 1.0]);
    let off = 17 + 8;
    assert_eq!(&img.data[off..off + 4], &[255, 0, 0, 255]);
    // The z of a 2D image is ignored.
    assert_eq!(img.read([2, 1, 99]), [1.0, 0.0, 0.0, 1.0]);
    // 1D buffer: y and z ignored.
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_R, CL_SIGNED_INT32, [4, 1, 1, 1], 0);
    img.write_i([3, 5, 6], [-9, 0, 0, 0]);
    assert_eq!(img.read_i([3, 0, 0]), [-9, 0, 0, 1]);
    assert_eq!(img.sample_i(NEAREST | NONE, [3.5, -100.0, 7.0]), [-9, 0, 0, 1]);
    assert_eq!(img.read_i([4, 0, 0]), [0, 0, 0, 1]);
    // 3-byte texels (sRGB) and 8-byte texels (RG float) at odd offsets.
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_sRGB, CL_UNORM_INT8, [3, 2, 1, 1], 1);
    img.write([1, 1, 0], [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(&img.data[10 + 3..10 + 6], &[255, 0, 255]);
    assert_eq!(img.read([1, 1, 0]), [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(img.data.iter().filter(|&&b| b != 0).count(), 2);
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_RG, CL_FLOAT, [2, 2, 1, 1], 3);
    img.write([1, 1, 0], [-2.0, 3.5, 9.0, 9.0]);
    assert_eq!(&img.data[19 + 8..19 + 16], &f32s(&[-2.0, 3.5])[..]);
    assert_eq!(img.read([1, 1, 0]), [-2.0, 3.5, 0.0, 1.0]);
}

#[test]
fn depth_images() {
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_DEPTH, CL_FLOAT, [2, 2, 1, 1], 0);
    img.write([1, 1, 0], [0.75, 9.0, 9.0, 9.0]);
    assert_eq!(img.read([1, 1, 0]), [0.75, 0.0, 0.0, 1.0]);
    assert_eq!(r(img.sample(LINEAR | EDGE, [2.0, 2.0, 0.0])), 0.75);
    assert_eq!(r(img.sample(NEAREST | CLAMP, [3.0, 1.0, 0.0])), 0.0);
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_DEPTH, CL_UNORM_INT16, [1, 1, 1, 2], 0);
    img.write([0, 0, 1], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(&img.data, &[0, 0, 0xff, 0xff]);
    assert_eq!(r(img.sample(NEAREST | EDGE, [0.0, 0.0, 1.0])), 1.0);
    // write_imagef to a depth image passes a single float.
    let d = 0.5f32;
    unsafe { clift_image_write_float(&img.desc, 0, 0, 0, &d) };
    assert_eq!(&img.data, &[0, 0x80, 0xff, 0xff]);
}

// ---- safety ----------------------------------------------------------------------------------

#[test]
fn any_coordinate_and_sampler_is_safe() {
    let specials = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.999,
        3.0,
        1e9,
        -1e9,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
    ];
    let images = [
        TestImage::new(CL_MEM_OBJECT_IMAGE1D, CL_RGBA, CL_FLOAT, [3, 1, 1, 1], 0),
        TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_R, CL_UNORM_INT8, [3, 2, 1, 1], 1),
        TestImage::new(CL_MEM_OBJECT_IMAGE3D, CL_RG, CL_HALF_FLOAT, [1, 2, 3, 1], 0),
        TestImage::new(CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_RGBA, CL_SIGNED_INT32, [2, 1, 1, 2], 0),
        TestImage::new(CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_sRGBA, CL_UNORM_INT8, [2, 2, 1, 3], 0),
    ];
    for img in &images {
        for sampler in 0..0x40u32 {
            for &x in &specials {
                for &y in &specials[..6] {
                    for &z in &[0.0, 1.0, -7.5, f32::NAN] {
                        let _ = img.sample(sampler, [x, y, z]);
                        let _ = img.sample_i(sampler, [x, y, z]);
                        let _ = img.sample(sampler, [y, x, z]);
                        let _ = img.sample(sampler, [z, y, x]);
                    }
                }
            }
        }
        for c in [i32::MIN, -1, 0, 1, 2, 3, i32::MAX] {
            let _ = img.read([c, c, c]);
            let _ = img.read_i([0, c, 0]);
        }
    }
}

#[test]
fn garbage_descriptors_do_nothing() {
    let mut backing = [0x55u8; 64];
    let good = ImageDesc {
        data: backing.as_mut_ptr(),
        image_type: CL_MEM_OBJECT_IMAGE2D,
        channel_order: CL_RGBA,
        channel_data_type: CL_UNORM_INT8,
        element_size: 4,
        width: 2,
        height: 2,
        depth: 1,
        array_size: 1,
        row_pitch: 8,
        slice_pitch: 16,
        reads: &super::GENERIC_READS,
    };
    let bad = [
        ImageDesc {
            data: std::ptr::null_mut(),
            ..good
        },
        ImageDesc { width: 0, ..good },
        ImageDesc { height: 0, ..good },
        ImageDesc {
            element_size: 16,
            ..good
        },
        ImageDesc { image_type: 0, ..good },
        ImageDesc {
            channel_order: 0,
            ..good
        },
        ImageDesc {
            channel_data_type: CL_UNORM_SHORT_565,
            ..good
        },
        ImageDesc {
            image_type: CL_MEM_OBJECT_IMAGE2D_ARRAY,
            array_size: 0,
            ..good
        },
        ImageDesc {
            width: u64::MAX,
            ..good
        },
    ];
    for d in &bad {
        unsafe {
            assert_eq!(read_texel_float(d, [0, 0, 0]), [0.0; 4]);
            assert_eq!(sample_int(d, NEAREST | EDGE, [0.0; 3]), [0; 4]);
            write_texel_float(d, [0, 0, 0], [0.0; 4]);
            write_texel_int(d, [0, 0, 0], [0; 4]);
            let mut out = [1.0f32; 4];
            clift_image_sample_float(d, LINEAR | EDGE, 0.5, 0.5, 0.0, out.as_mut_ptr());
            assert_eq!(out, [0.0; 4]);
            clift_image_write_float(d, 0, 0, 0, out.as_ptr());
        }
    }
    assert!(backing.iter().all(|&b| b == 0x55));
    unsafe {
        // Null descriptor and null pointers.
        let mut out = [7i32; 4];
        clift_image_read_int(std::ptr::null(), 0, 0, 0, out.as_mut_ptr());
        assert_eq!(out, [0; 4]);
        clift_image_read_int(&good, 0, 0, 0, std::ptr::null_mut());
        clift_image_write_int(&good, 0, 0, 0, std::ptr::null());
        clift_image_sample_int(std::ptr::null(), 0, 0.0, 0.0, 0.0, std::ptr::null_mut());
    }
    assert!(backing.iter().all(|&b| b == 0x55));
}

#[test]
fn entry_points() {
    let mut img = TestImage::new(CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, [2, 2, 1, 1], 0);
    let d = &img.desc as *const ImageDesc;
    unsafe {
        let v = [1.0f32, 2.0, 3.0, 4.0];
        clift_image_write_float(d, 1, 0, 0, v.as_ptr());
        let mut out = [0f32; 4];
        clift_image_read_float(d, 1, 0, 0, out.as_mut_ptr());
        assert_eq!(out, v);
        clift_image_sample_float(d, NORM | NEAREST | EDGE, 0.75, 0.25, 0.0, out.as_mut_ptr());
        assert_eq!(out, v);
        clift_image_read_float(d, 2, 0, 0, out.as_mut_ptr());
        assert_eq!(out, [0.0; 4]); // RGBA border
    }
    img.desc.channel_data_type = CL_UNSIGNED_INT32;
    let d = &img.desc as *const ImageDesc;
    unsafe {
        let v = [-1i32, 2, 3, 4];
        clift_image_write_int(d, 0, 1, 0, v.as_ptr());
        let mut out = [0i32; 4];
        clift_image_read_int(d, 0, 1, 0, out.as_mut_ptr());
        assert_eq!(out, v);
        clift_image_sample_int(d, NEAREST | CLAMP, 0.5, 1.5, 0.0, out.as_mut_ptr());
        assert_eq!(out, v);
    }
    let names: Vec<_> = symbols().iter().map(|s| s.0).collect();
    assert_eq!(names.len(), 6);
    assert!(names.contains(&"clift_image_sample_float"));
    assert!(symbols().iter().all(|s| !s.1.is_null()));
}

#[test]
fn fast_rounding_matches_std() {
    let mut rng = Rng(0x0bad_cafe_f00d_d00d);
    let check = |x: f32| {
        let (f, r) = (floor_f32(x), rint_f32(x));
        if x.is_nan() {
            assert!(f.is_nan() && r.is_nan());
        } else {
            assert_eq!(f, x.floor(), "{x:e}");
            assert_eq!(r, x.round_ties_even(), "{x:e}");
        }
    };
    for x in [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        16_777_217.0,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
    ] {
        check(x);
    }
    for _ in 0..1_000_000 {
        check(f32::from_bits(rng.next() as u32));
        // Many values near small integers and halves.
        check((rng.next() % 4096) as f32 * 0.25 - 512.0 + (rng.next() % 3) as f32 * 1e-6);
    }
}

#[test]
fn srgb_write_is_the_rounding_of_c_srgb() {
    for k in 0..=1_000_000u32 {
        let y = k as f32 / 1_000_000.0;
        let exact = 255.0 * c_srgb(y as f64);
        let x = linear_to_srgb(y) as f64;
        // The nearest integer, except within a hair of a tie.
        if (exact - exact.floor() - 0.5).abs() > 1e-9 {
            assert_eq!(x, exact.round(), "{y}");
        }
    }
    assert_eq!(linear_to_srgb(1.0), 255);
    assert_eq!(linear_to_srgb(0.0), 0);
    assert_eq!(linear_to_srgb(f32::INFINITY), 255);
}
