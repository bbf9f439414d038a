//! Code generation tests: kernels compiled from OpenCL C (precompiled to SPIR-V by
//! clang-15 + llvm-spirv-15, see kernels/basic.cl) and from SPIR-V assembly, run with
//! `Kernel::run_group` against host references.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::{compile, CompileOptions, Kernel, Program};
use std::sync::Arc;

enum Arg {
    Ptr(*mut u8),
    Local(usize),
    Val(Vec<u8>),
}

fn ptr<T>(v: &mut [T]) -> Arg {
    Arg::Ptr(v.as_mut_ptr() as *mut u8)
}

fn program(bytes: &[u8]) -> Program {
    let m = jit::spirv::parse(bytes).expect("parse");
    compile(&m, &CompileOptions::default()).unwrap_or_else(|e| panic!("compile: {e}"))
}

fn basic() -> Program {
    program(include_bytes!("kernels/basic.spv"))
}

/// The same kernels compiled without optimization (Function variables, many loads/stores).
fn basic_o0() -> Program {
    program(include_bytes!("kernels/basic_O0.spv"))
}

/// The same kernels compiled with a native image, then loaded back from the image alone (the
/// persistent cache's path).
fn basic_native() -> Program {
    let m = jit::spirv::parse(include_bytes!("kernels/basic.spv")).expect("parse");
    let (_, image) = jit::codegen::compile_with_image(&m, &CompileOptions::default()).expect("compile");
    jit::codegen::load_native(&image.expect("an image")).expect("load")
}

/// A damaged image is an error, never a crash: every truncation is refused.
#[test]
fn native_image_truncated_is_an_error() {
    let m = jit::spirv::parse(include_bytes!("kernels/basic.spv")).expect("parse");
    let (_, image) = jit::codegen::compile_with_image(&m, &CompileOptions::default()).expect("compile");
    let image = image.expect("an image");
    for len in (0..image.len()).step_by(37) {
        assert!(
            jit::codegen::load_native(&image[..len]).is_err(),
            "prefix of {len} bytes"
        );
    }
    let mut extra = image.clone();
    extra.push(0);
    assert!(jit::codegen::load_native(&extra).is_err());
}

/// An image naming an import the JIT does not have (a damaged symbol name) is an error, not a
/// panic in the linker.
#[test]
fn native_image_with_an_unknown_import_is_an_error() {
    let m = jit::spirv::parse(include_bytes!("kernels/basic.spv")).expect("parse");
    let (_, image) = jit::codegen::compile_with_image(&m, &CompileOptions::default()).expect("compile");
    let image = image.expect("an image");
    let at = image
        .windows(6)
        .position(|w| w == b"clift_")
        .expect("the image imports a helper");
    let mut bad = image.clone();
    bad[at] = b'x';
    assert!(jit::codegen::load_native(&bad).is_err());
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod o2 {
            $( #[test] fn $name() { super::$name(&super::basic()) } )*
        }
        mod native {
            $( #[test] fn $name() { super::$name(&super::basic_native()) } )*
        }
        mod o0 {
            $( #[test] fn $name() { super::$name(&super::basic_o0()) } )*
        }
    };
}

struct Launch {
    block: Vec<u64>,
    local_size: usize,
}

fn prepare(k: &Kernel, args: &[Arg]) -> Launch {
    assert_eq!(k.args.len(), args.len(), "argument count of {}", k.name);
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    let bytes = block.as_mut_ptr() as *mut u8;
    let mut local = k.static_local_size;
    for (ka, a) in k.args.iter().zip(args) {
        unsafe {
            match (ka.kind, a) {
                (ArgKind::Global | ArgKind::Constant, Arg::Ptr(p)) => {
                    *(bytes.add(ka.offset) as *mut u64) = *p as u64;
                }
                (ArgKind::Local, Arg::Local(n)) => {
                    local = local.div_ceil(16) * 16;
                    *(bytes.add(ka.offset) as *mut u64) = local as u64;
                    local += n;
                }
                (ArgKind::Value, Arg::Val(v)) => {
                    assert_eq!(v.len(), ka.size, "value size of {:?}", ka.name);
                    std::ptr::copy_nonoverlapping(v.as_ptr(), bytes.add(ka.offset), v.len());
                }
                (k, _) => panic!("argument kind {k:?} mismatch"),
            }
        }
    }
    Launch {
        block,
        local_size: local,
    }
}

/// Runs an ND-range on `threads` threads (groups split round-robin).
fn run_nd(k: &Kernel, args: &[Arg], dim: u32, global: [u64; 3], local: [u64; 3], offset: [u64; 3], threads: usize) {
    let l = prepare(k, args);
    let num = [0, 1, 2].map(|d| global[d].div_ceil(local[d]));
    let total = num[0] * num[1] * num[2];
    let blk = l.block.as_ptr() as usize;
    std::thread::scope(|s| {
        for t in 0..threads {
            let lsz = l.local_size;
            s.spawn(move || {
                let mut arena = vec![0u128; lsz.max(jit::abi::LOCAL_ARENA_BYTES).div_ceil(16) + 1];
                let mut g = t as u64;
                while g < total {
                    let gid = [g % num[0], (g / num[0]) % num[1], g / (num[0] * num[1])];
                    let ls = [0, 1, 2].map(|d| (global[d] - gid[d] * local[d]).min(local[d]));
                    let ctx = WorkGroupContext {
                        work_dim: dim,
                        host_shared: 0,
                        global_offset: offset,
                        global_size: global,
                        local_size: ls,
                        enqueued_local_size: local,
                        num_groups: num,
                        group_id: gid,
                        local_mem: arena.as_mut_ptr() as *mut u8,
                        printf: std::ptr::null_mut(),
                    };
                    unsafe { k.run_group(blk as *const u8, &ctx) };
                    g += threads as u64;
                }
            });
        }
    });
}

fn run1(k: &Kernel, args: &[Arg], global: u64, local: u64) {
    run_nd(k, args, 1, [global, 1, 1], [local, 1, 1], [0; 3], 1)
}

fn kernel(p: &Program, name: &str) -> Arc<Kernel> {
    p.kernel(name).unwrap_or_else(|| panic!("kernel {name}"))
}

fn vector_add(p: &Program) {
    let k = kernel(p, "add");
    assert!(!k.has_barriers);
    assert_eq!(k.args.len(), 3);
    let n = 1000;
    let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let mut c = vec![0f32; n];
    run1(&k, &[ptr(&mut a), ptr(&mut b), ptr(&mut c)], n as u64, 64);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "{i}");
    }
}

fn int_ops_and_division_by_zero(p: &Program) {
    let k = kernel(p, "intops");
    let mut a = vec![7, -7, i32::MIN, 100, 5, -1, 0, 12345];
    let mut b = vec![2, 3, -1, 0, 33, 0, 0, -40];
    let n = a.len();
    let mut out = vec![0i32; n * 8];
    run1(&k, &[ptr(&mut a), ptr(&mut b), ptr(&mut out)], n as u64, n as u64);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let o = &out[i * 8..i * 8 + 8];
        if y != 0 && !(x == i32::MIN && y == -1) {
            assert_eq!(o[0], x / y, "div {x} {y}");
            assert_eq!(o[1], x % y, "rem {x} {y}");
        }
        assert_eq!(o[2], x.wrapping_shl(y as u32), "shl {x} {y}");
        assert_eq!(o[3], x.wrapping_shr(y as u32), "shr {x} {y}");
        if y != 0 {
            assert_eq!(o[4], ((x as u32) / (y as u32)) as i32);
        }
        assert_eq!(o[5], ((x as u32).wrapping_shr(y as u32)) as i32);
        assert_eq!(o[6], x.max(y).wrapping_sub(x.min(y)).wrapping_add(x.wrapping_abs()));
        let m24 = ((x << 8) >> 8).wrapping_mul(3);
        if (-(1 << 23)..(1 << 23)).contains(&x) {
            assert_eq!(o[7], x.clamp(-5, 5).wrapping_mul(m24));
        }
    }
}

fn long_char_short_ops(p: &Program) {
    let k = kernel(p, "longops");
    let mut a: Vec<i64> = vec![1 << 40, -5, i64::MIN, 77, 3];
    let mut b: Vec<i64> = vec![3, 0, -1, 65, -2];
    let n = a.len();
    let mut out = vec![0i64; n * 4];
    let mut c8: Vec<i8> = vec![10, -20, 100, 5, -128];
    let mut c16: Vec<i16> = vec![1000, -2000, 32767, 5, -32768];
    let (c8o, c16o) = (c8.clone(), c16.clone());
    run1(
        &k,
        &[ptr(&mut a), ptr(&mut b), ptr(&mut out), ptr(&mut c8), ptr(&mut c16)],
        n as u64,
        1,
    );
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        if y != 0 && !(x == i64::MIN && y == -1) {
            assert_eq!(out[i * 4], x / y);
        }
        let y1 = y ^ 1;
        if y1 != 0 && !(x == i64::MIN && y1 == -1) {
            assert_eq!(out[i * 4 + 1], x % y1);
        }
        assert_eq!(out[i * 4 + 2], x.wrapping_shl(y as u32));
        assert_eq!(out[i * 4 + 3], x.wrapping_mul(y).wrapping_add(x >> 3));
        let num = (c8o[i] as i32 * 3 + x as i8 as i32) as i8;
        let den = (y as i8) | 1;
        assert_eq!(c8[i], num.wrapping_div(den), "char {i}");
        assert_eq!(
            c16[i],
            ((c16o[i] as i32 * 7 - x as i16 as i32) as i16) >> 2,
            "short {i}"
        );
    }
}

fn conversions_saturate_and_round(p: &Program) {
    let k = kernel(p, "convs");
    let mut f: Vec<f32> = vec![1.5, -2.5, 3e10, -3e10, f32::NAN, 255.7, -0.4, 2.5, 300.0, -129.0];
    let n = f.len();
    let mut oi = vec![0i32; n * 4];
    let mut ou = vec![0u32; n];
    let mut ouc = vec![0u8; n];
    let mut osc = vec![0i8; n];
    let mut of = vec![0f32; n * 2];
    run1(
        &k,
        &[
            ptr(&mut f),
            ptr(&mut oi),
            ptr(&mut ou),
            ptr(&mut ouc),
            ptr(&mut osc),
            ptr(&mut of),
        ],
        n as u64,
        2,
    );
    for i in 0..n {
        let x = f[i];
        assert_eq!(oi[i * 4], x as i32, "sat {x}");
        assert_eq!(oi[i * 4 + 1], x.round_ties_even() as i32, "rte {x}");
        assert_eq!(oi[i * 4 + 2], x.ceil() as i32, "rtp {x}");
        assert_eq!(oi[i * 4 + 3], x.floor() as i32, "rtn {x}");
        assert_eq!(ou[i], x as u32);
        assert_eq!(ouc[i], x as u8);
        assert_eq!(osc[i], (x as i32).clamp(-128, 127) as i8);
        let v = (x as i32).wrapping_mul(16777219);
        // Round toward zero.
        let rtz = {
            let r = v as f32;
            if (r as i64).abs() > (v as i64).abs() {
                f32::from_bits(r.to_bits() - 1)
            } else {
                r
            }
        };
        assert_eq!(of[i * 2], rtz, "rtz {v}");
        let w = (x as i32) as i64 * 16777219;
        let r = w as f32;
        let rtp = if (r as i128) < w as i128 {
            if r >= 0.0 {
                f32::from_bits(r.to_bits() + 1)
            } else {
                f32::from_bits(r.to_bits() - 1)
            }
        } else {
            r
        };
        assert_eq!(of[i * 2 + 1], rtp, "rtp {w}");
    }
}

fn vectors(p: &Program) {
    let k = kernel(p, "vec4");
    let n = 8;
    let mut a: Vec<f32> = (0..n * 4).map(|i| i as f32).collect();
    let mut b: Vec<f32> = (0..n * 4).map(|i| (31 - i) as f32 * 0.5).collect();
    let mut c = vec![0f32; n * 4];
    let mut d = vec![0i32; n * 4];
    run1(&k, &[ptr(&mut a), ptr(&mut b), ptr(&mut c), ptr(&mut d)], n as u64, 4);
    for i in 0..n {
        for j in 0..4 {
            let x = a[i * 4 + j];
            let y = b[i * 4 + j];
            assert_eq!(c[i * 4 + j], x * y + (j + 1) as f32 - b[i * 4 + 3 - j]);
            assert_eq!(d[i * 4 + j], if x > y { -1 } else { 0 });
        }
    }
    let k = kernel(p, "vec3");
    let mut a: Vec<f32> = (0..n * 3).map(|i| i as f32 * 0.25).collect();
    let mut c = vec![0f32; n * 3];
    run1(&k, &[ptr(&mut a), ptr(&mut c)], n as u64, 1);
    for i in 0..n {
        let x = &a[i * 3..i * 3 + 3];
        let dot = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        let want = [x[2] * 2.0 + dot, x[0] * 2.0 + dot, x[1] * 2.0 + dot];
        for j in 0..3 {
            assert!((c[i * 3 + j] - want[j]).abs() <= 1e-5 * want[j].abs(), "vec3 {i} {j}");
        }
    }
    let k = kernel(p, "vec16");
    let mut a: Vec<i32> = (0..n * 16).map(|i| i as i32 - 40).collect();
    let mut c = vec![0i32; n * 16];
    let mut d = vec![0i8; n * 8];
    run1(&k, &[ptr(&mut a), ptr(&mut c), ptr(&mut d)], n as u64, 2);
    for i in 0..n {
        let x = &a[i * 16..i * 16 + 16];
        for j in 0..16 {
            assert_eq!(c[i * 16 + j], x[j] * x[j] + x[15]);
        }
        for j in 0..8 {
            assert_eq!(d[i * 8 + j], (x[j] * 100).clamp(-128, 127) as i8);
        }
    }
}

fn control_flow(p: &Program) {
    let k = kernel(p, "loops");
    let mut nv: Vec<i32> = (0..40).collect();
    let mut out = vec![0i32; 40];
    run1(&k, &[ptr(&mut nv), ptr(&mut out)], 40, 8);
    for (i, &kk) in nv.iter().enumerate() {
        let mut s = 0i32;
        for j in 0..kk {
            if j % 3 == 0 {
                continue;
            }
            s += j * j;
            if s > 1000 {
                break;
            }
        }
        match kk {
            0 => s += 1,
            1 => s *= 2,
            2 => s = (s - 7) ^ 0x55,
            _ => s ^= 0x55,
        }
        assert_eq!(out[i], s, "k={kk}");
    }
}

fn struct_by_value_and_calls(p: &Program) {
    let k = kernel(p, "structs");
    assert_eq!(k.args[0].kind, ArgKind::Value);
    assert_eq!(k.args[0].size, 24);
    let mut s = vec![0u8; 24];
    s[0..4].copy_from_slice(&3i32.to_le_bytes());
    s[4..8].copy_from_slice(&2.75f32.to_le_bytes());
    s[8] = 5;
    s[16..24].copy_from_slice(&100i64.to_le_bytes());
    let mut out = vec![0i32; 16];
    run1(
        &k,
        &[Arg::Val(s), ptr(&mut out), Arg::Val(4i32.to_le_bytes().to_vec())],
        16,
        4,
    );
    for (i, o) in out.iter().enumerate() {
        assert_eq!(*o, i as i32 * 4 * 3 + 2 + 5 + 100);
    }
}

fn local_memory_reduction_with_barriers(p: &Program) {
    let k = kernel(p, "reduce");
    assert!(k.has_barriers);
    let n = 256;
    let local = 64;
    let mut input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut out = vec![0f32; n / local];
    run_nd(
        &k,
        &[ptr(&mut input), ptr(&mut out), Arg::Local(local * 4)],
        1,
        [n as u64, 1, 1],
        [local as u64, 1, 1],
        [0; 3],
        2,
    );
    for (g, o) in out.iter().enumerate() {
        let want: f32 = (g * local..(g + 1) * local).map(|i| i as f32).sum();
        assert_eq!(*o, want);
    }
}

fn barrier_in_called_function(p: &Program) {
    let k = kernel(p, "barrier_fn");
    assert!(k.has_barriers);
    assert!(k.static_local_size >= 256);
    let n = 48;
    let local = 16;
    let mut out = vec![0i32; n];
    run1(&k, &[ptr(&mut out)], n as u64, local as u64);
    for (i, o) in out.iter().enumerate() {
        let lid = (i % local) as i32;
        let l = local as i32;
        assert_eq!(*o, ((lid + 1) % l) * 2 + ((lid + l - 1) % l) * 2);
    }
}

fn atomics_under_contention(p: &Program) {
    let k = kernel(p, "atomics");
    let n = 4096u64;
    let local = 64u64;
    let mut counter = vec![0i32; 5];
    let mut mx = vec![0u32, u32::MAX];
    let mut lc = vec![0i64; 1];
    run_nd(
        &k,
        &[ptr(&mut counter), ptr(&mut mx), ptr(&mut lc), Arg::Local(4)],
        1,
        [n, 1, 1],
        [local, 1, 1],
        [0; 3],
        4,
    );
    assert_eq!(counter[0], n as i32);
    assert_eq!(counter[1], 3 * n as i32);
    assert_eq!(counter[2], 7);
    assert_eq!(counter[3], 5);
    assert_eq!(counter[4], n as i32);
    assert_eq!(mx[0], n as u32 - 1);
    assert_eq!(mx[1], 0);
    assert_eq!(lc[0], (n as i64) << 33);
}

fn builtins_2d_nonuniform_with_offset(p: &Program) {
    let k = kernel(p, "ids");
    let (gx, gy) = (10u64, 7u64);
    let (lx, ly) = (4u64, 3u64);
    let (ox, oy) = (5u64, 2u64);
    let mut out = vec![0u64; (gx * gy * 8) as usize];
    run_nd(&k, &[ptr(&mut out)], 2, [gx, gy, 1], [lx, ly, 1], [ox, oy, 0], 1);
    for y in 0..gy {
        for x in 0..gx {
            let g = (y * gx + x) as usize;
            let o = &out[g * 8..g * 8 + 8];
            assert_eq!(o[0], x + ox);
            assert_eq!(o[1], y + oy);
            assert_eq!(o[2], x % lx);
            assert_eq!(o[3], y % ly);
            assert_eq!(o[4], y / ly);
            let lsx = if x / lx == gx / lx { gx % lx } else { lx };
            assert_eq!(o[5], lsx, "local size at {x},{y}");
            assert_eq!(o[6], lx);
            let llid = (y % ly) * lsx + x % lx;
            assert_eq!(o[7], 2 + gy.div_ceil(ly) * 10 + ox * 100 + llid * 1000);
        }
    }
}

fn math_and_constant_data(p: &Program) {
    let k = kernel(p, "math");
    let mut x: Vec<f32> = vec![1.25, -2.5, 0.0, 3.7, -0.5, 10.0, 2.5, -7.25];
    let n = x.len();
    let mut out = vec![0f32; n * 8];
    let mut d = vec![0f64; n];
    run1(&k, &[ptr(&mut x), ptr(&mut out), ptr(&mut d)], n as u64, 4);
    let table = [1.5f32, 2.5, 3.5, 4.5];
    for i in 0..n {
        let v = x[i];
        let o = &out[i * 8..i * 8 + 8];
        assert_eq!(o[0], v);
        assert_eq!(o[1], v);
        assert_eq!(o[2], v.abs().sqrt() + table[i & 3]);
        let rnd = if (v - v.trunc()).abs() >= 0.5 {
            v.trunc() + v.signum()
        } else {
            v.trunc()
        };
        assert_eq!(o[3], rnd + v.floor() * 10.0);
        assert!((o[4] - (v * 0.1).exp()).abs() <= 4e-7 * (v * 0.1).exp().abs());
        assert!((o[5] - (v.mul_add(v, 1.0) + (v * 2.0 + 0.5))).abs() <= 1e-5 * o[5].abs().max(1.0));
        let want6 = v.sin() + v.abs().powf(0.5);
        assert!((o[6] - want6).abs() <= 1e-5 * want6.abs().max(1.0), "sin+pow {v}");
        let q = v / 0.0;
        let w7 = (q.is_nan() as i32) + (q.is_infinite() as i32) * 2 + (v.is_sign_negative() as i32) * 4;
        assert_eq!(o[7], w7 as f32, "class {v}");
    }
}

both!(
    vector_add,
    int_ops_and_division_by_zero,
    long_char_short_ops,
    conversions_saturate_and_round,
    vectors,
    control_flow,
    struct_by_value_and_calls,
    local_memory_reduction_with_barriers,
    barrier_in_called_function,
    atomics_under_contention,
    builtins_2d_nonuniform_with_offset,
    math_and_constant_data
);

fn asm_program(spec: &[(u32, u64)]) -> Program {
    let text = include_str!("kernels/asm_kernels.spvasm");
    let opts = jit::spirv::AsmOptions {
        version: (1, 2),
        ..Default::default()
    };
    let words = jit::spirv::assemble(text, opts).expect("assemble");
    let m = jit::spirv::parse_words(&words).expect("parse");
    let mut o = CompileOptions::default();
    o.spec_constants.extend(spec.iter().copied());
    compile(&m, &o).unwrap_or_else(|e| panic!("compile: {e}"))
}

#[test]
fn assembly_vector_add() {
    let p = asm_program(&[]);
    let k = kernel(&p, "add");
    let n = 100;
    let mut a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let mut c = vec![0f32; n];
    run1(&k, &[ptr(&mut a), ptr(&mut b), ptr(&mut c)], n as u64, 7);
    assert!(c.iter().enumerate().all(|(i, v)| *v == 3.0 * i as f32));
}

#[test]
fn assembly_loop_switch_phi_half_spec() {
    for (spec, want0) in [(None, 100u32), (Some(42u64), 42)] {
        let p = asm_program(&spec.map(|v| vec![(7, v)]).unwrap_or_default());
        let k = kernel(&p, "misc");
        assert_eq!(k.reqd_work_group_size, Some([4, 1, 1]));
        assert!(k.static_local_size >= 4);
        let n = 4;
        let mut out = vec![0u32; n];
        let mut f = vec![1.0f32 + 1.0 / 4096.0, -1.0 - 1.0 / 4096.0, 65519.0, 1e-8];
        let mut h = vec![0u16; n * 3];
        run1(&k, &[ptr(&mut out), ptr(&mut f), ptr(&mut h)], n as u64, 4);
        // The loop leaves iv at the first multiple of 10 that is >= i.
        let next = |i: u32| i.div_ceil(10) * 10;
        assert_eq!(out[0], want0);
        assert_eq!(out[1], next(1));
        assert_eq!(out[2], next(2) * 3);
        assert_eq!(out[3], next(3));
        assert_eq!(&h[0..3], &[0x3c00, 0x3c00, 0x3c01]);
        assert_eq!(&h[3..6], &[0xbc00, 0xbc00, 0xbc00]);
        assert_eq!(&h[6..9], &[0x7bff, 0x7bff, 0x7c00]);
        assert_eq!(&h[9..12], &[0x0000, 0x0000, 0x0001]);
    }
}
