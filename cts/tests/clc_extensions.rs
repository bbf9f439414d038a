//! The OpenCL C side of cl_khr_integer_dot_product, cl_khr_extended_bit_ops and
//! cl_ext_float_atomics: kernels/source/clc_extensions.cl and clc_float_atomics.cl built from source (the front end's
//! feature macros, llvm-spirv's SPIR-V extensions, the packed dot products the linker
//! defines), checked against host references; and the device queries of the extensions.

use cts::image_ref::Rng;
use cts::*;

const N: usize = 4096;

fn bytes4(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

fn dot_ref(x: u32, y: u32, xs: bool, ys: bool) -> i64 {
    let (a, b) = (bytes4(x), bytes4(y));
    (0..4)
        .map(|k| {
            let p = if xs { a[k] as i8 as i64 } else { a[k] as i64 };
            let q = if ys { b[k] as i8 as i64 } else { b[k] as i64 };
            p * q
        })
        .sum()
}

#[test]
fn device_queries() {
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    // (cl_ext_float_atomics: listed or not, see `float_atomics`.)
    for e in ["cl_khr_integer_dot_product", "cl_khr_extended_bit_ops"] {
        assert!(ext.split(' ').any(|x| x == e), "{e} missing from {ext}");
    }
    let caps: cl_ulong = device_info(CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR);
    assert_eq!(
        caps,
        (CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR)
            as cl_ulong
    );
    for q in [
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR,
    ] {
        let b = device_bytes(device(), q).expect("acceleration properties");
        assert_eq!(b.len(), 6 * std::mem::size_of::<cl_bool>());
    }
    if !float_atomics_reported() {
        return;
    }
    // CL_DEVICE_{SINGLE,DOUBLE,HALF}_FP_ATOMIC_CAPABILITIES_EXT.
    let all = 0b111u64 | (0b111 << 16);
    assert_eq!(device_info::<cl_ulong>(0x4231), all);
    assert_eq!(device_info::<cl_ulong>(0x4232), all);
    assert_eq!(device_info::<cl_ulong>(0x4233), 0);
}

#[test]
fn integer_dot_products() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("clc_extensions.cl", "-cl-std=CL3.0");
    let mut rng = Rng::new(11);
    let mut a: Vec<u32> = vec![0x8080_8080, 0x7f7f_7f7f, 0xffff_ffff, 0];
    let mut b: Vec<u32> = vec![0x8080_8080, 0x7f7f_7f7f, 0xffff_ffff, 0x0102_0304];
    while a.len() < N {
        a.push(rng.next_u64() as u32);
        b.push(rng.next_u64() as u32);
    }
    let (ba, bb) = (ctx.buffer_from(as_bytes(&a)), ctx.buffer_from(as_bytes(&b)));
    let out = ctx.buffer(N * 8 * 4);
    let k = p.kernel("dots");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bb);
    k.arg_mem(2, &out);
    q.run(&k, &[], &[N], &[]);
    let got: Vec<i32> = from_bytes(&q.read(&out, 0, N * 8 * 4));
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let sat_i32 = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        let want = [
            dot_ref(x, y, false, false) as u32 as i32,
            dot_ref(x, y, true, true) as i32,
            dot_ref(x, y, false, true) as i32,
            dot_ref(x, y, true, false) as i32,
            dot_ref(x, y, false, false) as u32 as i32,
            dot_ref(x, y, true, false) as i32,
            sat_i32(dot_ref(x, y, true, true) + 2147483600),
            (dot_ref(x, y, false, false) + 4294967200).min(u32::MAX as i64) as u32 as i32,
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "dots of {x:#010x} and {y:#010x}");
    }
}

#[test]
fn extended_bit_ops() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("clc_extensions.cl", "-cl-std=CL3.0");
    let mut rng = Rng::new(12);
    let (mut a, mut b, mut ps) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..N {
        a.push(rng.next_u64() as u32);
        b.push(rng.next_u64() as u32);
        let (off, cnt) = if i < 33 {
            (0, i as u32)
        } else {
            let off = rng.below(33) as u32;
            (off, rng.below(33 - off as u64) as u32)
        };
        ps.push(off | cnt << 8);
    }
    let bufs = [&a, &b, &ps].map(|v| ctx.buffer_from(as_bytes(v)));
    let out = ctx.buffer(N * 16);
    let k = p.kernel("bits");
    for (i, m) in bufs.iter().enumerate() {
        k.arg_mem(i as u32, m);
    }
    k.arg_mem(3, &out);
    q.run(&k, &[], &[N], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, N * 16));
    for i in 0..N {
        let (x, y, off, cnt) = (a[i], b[i], ps[i] & 0xff, ps[i] >> 8);
        let mask: u64 = ((1u64 << cnt) - 1) << off;
        let mask = mask as u32;
        let insert = (x & !mask) | ((y << off.min(31)) & mask);
        let insert = if cnt == 0 { x } else { insert };
        let field = if cnt == 0 {
            0
        } else {
            ((x as u64 >> off) & ((1u64 << cnt) - 1)) as u32
        };
        let signed = if cnt == 0 {
            0
        } else {
            (((field as u64) << (64 - cnt)) as i64 >> (64 - cnt)) as u32
        };
        let want = [insert, signed, field, x.reverse_bits()];
        assert_eq!(
            &got[4 * i..4 * i + 4],
            &want,
            "bits of {x:#010x}, {y:#010x}, offset {off}, count {cnt}"
        );
    }
}

fn float_atomics_reported() -> bool {
    device_string(CL_DEVICE_EXTENSIONS)
        .split(' ')
        .any(|x| x == "cl_ext_float_atomics")
}

#[test]
fn float_atomics() {
    let ctx = Context::new();
    let q = ctx.queue();
    if !float_atomics_reported() {
        // Not reported: the built-ins and macros are not there, and the build says so.
        let p = ctx.source_program("clc_float_atomics.cl");
        assert_eq!(p.build("-cl-std=CL3.0"), CL_BUILD_PROGRAM_FAILURE);
        assert!(
            p.build_log().contains("float atomics macros missing"),
            "{}",
            p.build_log()
        );
        return;
    }
    let p = ctx.built_source("clc_float_atomics.cl", "-cl-std=CL3.0");
    const LOCAL: usize = 64;
    let mut rng = Rng::new(13);
    // Small integers: every sum is exact in any order.
    let v: Vec<f32> = (0..N).map(|_| rng.below(2001) as f32 - 1000.0).collect();
    let bv = ctx.buffer_from(as_bytes(&v));
    let init = [0.0f32, f32::INFINITY, f32::NEG_INFINITY, 0.0];
    let g = ctx.buffer_from(as_bytes(&init));
    let groups = ctx.buffer(N / LOCAL * 12);
    let k = p.kernel("fatomics");
    k.arg_mem(0, &bv);
    k.arg_mem(1, &g);
    k.arg_mem(2, &groups);
    q.run(&k, &[], &[N], &[LOCAL]);
    let gg: Vec<f32> = from_bytes(&q.read(&g, 0, 16));
    let sum: f32 = v.iter().sum();
    let min = v.iter().copied().fold(f32::INFINITY, f32::min);
    let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(gg, [sum, min, max, -sum]);
    let gw: Vec<f32> = from_bytes(&q.read(&groups, 0, N / LOCAL * 12));
    for (w, chunk) in v.chunks(LOCAL).enumerate() {
        let s: f32 = chunk.iter().sum();
        let mn = chunk.iter().copied().fold(f32::INFINITY, f32::min);
        let mx = chunk.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(&gw[3 * w..3 * w + 3], &[s, mn, mx], "work-group {w}");
    }

    let d: Vec<f64> = (0..N).map(|_| rng.below(2_000_001) as f64 - 1e6).collect();
    let bd = ctx.buffer_from(as_bytes(&d));
    let dinit = [0.0f64, f64::INFINITY, f64::NEG_INFINITY];
    let gd = ctx.buffer_from(as_bytes(&dinit));
    let k = p.kernel("datomics");
    k.arg_mem(0, &bd);
    k.arg_mem(1, &gd);
    q.run(&k, &[], &[N], &[]);
    let got: Vec<f64> = from_bytes(&q.read(&gd, 0, 24));
    let sum: f64 = d.iter().sum();
    let min = d.iter().copied().fold(f64::INFINITY, f64::min);
    let max = d.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(got, [sum, min, max]);
}
