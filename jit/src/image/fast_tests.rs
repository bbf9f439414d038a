//! The specialised reads (`fast`) against the reference engine: every served format, image
//! type and sampler, over random texels and random, edge, out-of-range and non-finite
//! coordinates, must give the same bits (a NaN result excepted, which may be any NaN, see
//! `same`).

use super::fast::{reads_for, served, ReadTable, GENERIC_READS};
use super::format::Format;
use super::{element_size, read_texel_float, read_texel_int, sample_float, sample_int};
use crate::abi::ImageDesc;
use opencl_sys::*;

const ORDERS: [u32; 4] = [CL_RGBA, CL_BGRA, CL_R, CL_RG];
const DATA_TYPES: [u32; 10] = [
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_HALF_FLOAT,
    CL_FLOAT,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
];
const SAMPLED_TYPES: [u32; 5] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// Deterministic xorshift64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Img {
    _data: Vec<u8>,
    desc: ImageDesc,
}

/// An image of random bytes (NaNs and all for float types), rows padded.
fn image(rng: &mut Rng, order: u32, dt: u32, ty: u32) -> Img {
    let elem = element_size(order, dt).unwrap() as u64;
    let (w, h, d, layers) = match ty {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (7, 1, 1, 1),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (6, 1, 1, 3),
        CL_MEM_OBJECT_IMAGE2D => (5, 4, 1, 1),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (4, 3, 1, 3),
        _ => (3, 4, 3, 1),
    };
    // A 1D array's layers are rows: slice_pitch steps them.
    let row_pitch = w * elem + 3;
    let slice_pitch = row_pitch * h;
    let mut data: Vec<u8> = (0..slice_pitch * d.max(layers)).map(|_| rng.next() as u8).collect();
    let mut desc = ImageDesc {
        data: data.as_mut_ptr(),
        image_type: ty,
        channel_order: order,
        channel_data_type: dt,
        element_size: elem as u32,
        width: w,
        height: h,
        depth: d,
        array_size: layers,
        row_pitch,
        slice_pitch,
        reads: &GENERIC_READS,
    };
    desc.reads = reads_for(&desc);
    Img { _data: data, desc }
}

/// A coordinate: mostly near the image (texel centres and edges, fractions, just outside),
/// some far outside, some non-finite.
fn coord(rng: &mut Rng, size: u64, normalized: bool) -> f32 {
    let size = size as f32;
    let v = match rng.below(10) {
        0 => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1.0e30, -1.0e30][rng.below(7) as usize],
        1 => (rng.below(2001) as f32 - 1000.0) * 0.37,
        2 => rng.below(2 * size as u64 + 3) as f32 * 0.5 - 1.0,
        3 => rng.below(size as u64 + 2) as f32 - 1.0,
        _ => (rng.below(1 << 16) as f32 / 65536.0) * (size + 4.0) - 2.0,
    };
    if normalized && v.is_finite() && v.abs() < 1.0e6 {
        v / size
    } else {
        v
    }
}

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// Equal bits, except that a NaN component of a float result may be any NaN. Which NaN an
/// operation on NaNs gives is the first operand's on x86, and LLVM commutes the operands of
/// additions and multiplications as it likes (and does not keep the sign of the NaN that
/// `inf - inf` makes), so NaN texels, or NaN and infinite coordinates (undefined, 7.1), give
/// a NaN of either payload in code compiled apart. Integer results are compared exactly.
fn same(got: [u32; 4], want: [u32; 4], float: bool) -> bool {
    let nan = |b: u32| f32::from_bits(b).is_nan();
    got == want || float && (0..4).all(|i| got[i] == want[i] || nan(got[i]) && nan(want[i]))
}

fn table(desc: &ImageDesc) -> &'static ReadTable {
    // SAFETY: `reads` always points at a 'static table.
    unsafe { &*desc.reads }
}

fn is_float(order: u32, dt: u32) -> bool {
    Format::new(order, dt).unwrap().data_type.kind() == super::format::Kind::Float
}

#[test]
fn served_formats_are_the_common_ones() {
    let mut n = 0;
    for o in ORDERS {
        for dt in DATA_TYPES {
            let expected = Format::new(o, dt).is_some();
            for ty in SAMPLED_TYPES.iter().copied().chain([CL_MEM_OBJECT_IMAGE1D_BUFFER]) {
                assert_eq!(served(o, dt, ty), expected, "{o:#x} {dt:#x} {ty:#x}");
                n += expected as usize;
            }
        }
    }
    assert_eq!(n, 33 * 6);
    assert!(!served(CL_sRGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D));
    assert!(!served(CL_RGBA, CL_SNORM_INT8, CL_MEM_OBJECT_IMAGE2D));
    assert!(!served(CL_DEPTH, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D));
}

/// Every served (format, image type, sampler): the table's entry is specialised and gives
/// the reference engine's bits.
#[test]
fn sampled_reads_match_the_reference_engine() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0usize;
    for o in ORDERS {
        for dt in DATA_TYPES {
            if Format::new(o, dt).is_none() {
                continue;
            }
            let float = is_float(o, dt);
            for ty in SAMPLED_TYPES {
                let img = image(&mut rng, o, dt, ty);
                let d = &img.desc;
                let t = table(d);
                let sizes = [d.width, d.height, d.depth];
                for s in (0x10..=0x19).chain(0x20..=0x29u32) {
                    let (entry, generic) = if float {
                        (t.sample_float[s as usize], GENERIC_READS.sample_float[s as usize])
                    } else {
                        (t.sample_int[s as usize], GENERIC_READS.sample_int[s as usize])
                    };
                    assert_ne!(
                        entry as usize, generic as usize,
                        "{o:#x} {dt:#x} {ty:#x} {s:#x} not specialised"
                    );
                    for _ in 0..150 {
                        let c: [f32; 3] = std::array::from_fn(|k| coord(&mut rng, sizes[k], s & 1 != 0));
                        let mut got = [0u32; 4];
                        // SAFETY: the descriptor describes `img`'s data.
                        unsafe { entry(d, s, c[0], c[1], c[2], got.as_mut_ptr()) };
                        let want = unsafe {
                            if float {
                                bits(sample_float(d, s, c))
                            } else {
                                sample_int(d, s, c).map(|v| v as u32)
                            }
                        };
                        assert!(
                            same(got, want, float),
                            "{o:#x} {dt:#x} {ty:#x} sampler {s:#x} at {c:?}: {got:x?} != {want:x?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 33 * 5 * 20 * 150);
}

/// Sampler-less reads of every served format on every image type, in and out of range.
#[test]
fn sampler_less_reads_match_the_reference_engine() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for o in ORDERS {
        for dt in DATA_TYPES {
            if Format::new(o, dt).is_none() {
                continue;
            }
            let float = is_float(o, dt);
            for ty in SAMPLED_TYPES.iter().copied().chain([CL_MEM_OBJECT_IMAGE1D_BUFFER]) {
                let img = image(&mut rng, o, dt, ty);
                let d = &img.desc;
                let t = table(d);
                let entry = if float { t.read_float } else { t.read_int };
                for _ in 0..300 {
                    let c: [i32; 3] = std::array::from_fn(|_| match rng.below(8) {
                        0 => [i32::MIN, i32::MAX, -1][rng.below(3) as usize],
                        _ => rng.below(12) as i32 - 3,
                    });
                    let mut got = [0u32; 4];
                    unsafe { entry(d, c[0], c[1], c[2], got.as_mut_ptr()) };
                    let want = unsafe {
                        if float {
                            bits(read_texel_float(d, c))
                        } else {
                            read_texel_int(d, c).map(|v| v as u32)
                        }
                    };
                    assert!(
                        same(got, want, float),
                        "{o:#x} {dt:#x} {ty:#x} at {c:?}: {got:x?} != {want:x?}"
                    );
                }
            }
        }
    }
}

/// The entries a table does not specialise (the other read kind, invalid sampler bits, a 1D
/// buffer's sampled reads) are the reference engine's; a table used with a descriptor of
/// another format falls back to the reference engine too.
#[test]
fn unserved_entries_and_mismatched_descriptors_use_the_reference() {
    let mut rng = Rng(77);
    let img = image(&mut rng, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D);
    let t = table(&img.desc);
    for s in 0..64usize {
        assert_eq!(t.sample_int[s] as usize, GENERIC_READS.sample_int[s] as usize);
        if !(0x10..=0x19).contains(&s) && !(0x20..=0x29).contains(&s) {
            assert_eq!(t.sample_float[s] as usize, GENERIC_READS.sample_float[s] as usize);
        }
    }
    assert_eq!(t.read_int as usize, GENERIC_READS.read_int as usize);
    let buf = image(&mut rng, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D_BUFFER);
    let bt = table(&buf.desc);
    assert_ne!(bt.read_float as usize, GENERIC_READS.read_float as usize);
    assert_eq!(
        bt.sample_float[0x10] as usize,
        GENERIC_READS.sample_float[0x10] as usize
    );

    // The RGBA8 2D table's entries on an R/FLOAT 3D image, and on a null descriptor.
    let other = image(&mut rng, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE3D);
    for s in [0x10u32, 0x23, 0x29] {
        for _ in 0..50 {
            let c: [f32; 3] = std::array::from_fn(|_| coord(&mut rng, 4, s & 1 != 0));
            let mut got = [0u32; 4];
            unsafe { t.sample_float[s as usize](&other.desc, s, c[0], c[1], c[2], got.as_mut_ptr()) };
            assert!(same(got, bits(unsafe { sample_float(&other.desc, s, c) }), true));
        }
        let mut got = [7u32; 4];
        unsafe { t.sample_float[s as usize](std::ptr::null(), s, 0.5, 0.5, 0.0, got.as_mut_ptr()) };
        assert_eq!(got, [0; 4]);
    }
    // A descriptor that is not a usable image gets the generic table.
    let mut bad = img.desc;
    bad.width = 0;
    assert!(std::ptr::eq(reads_for(&bad), &GENERIC_READS));
}
