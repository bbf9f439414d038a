//! OpenCL C printf (kernels/printf.cl): the text each kernel appends to the command's
//! `PrintfSink` against what the C library's printf gives for the same formats and values.

use jit::abi::{PrintfSink, WorkGroupContext};
use jit::{CompileOptions, Kernel, Program};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::{Arc, OnceLock};

/// The kernels from -O2 and -O0 SPIR-V, and with the fiber fallback.
fn programs() -> &'static [(&'static str, Program)] {
    static P: OnceLock<Vec<(&'static str, Program)>> = OnceLock::new();
    P.get_or_init(|| {
        let mut out = Vec::new();
        for (label, bytes, fibers) in [
            ("O2", &include_bytes!("kernels/printf.spv")[..], false),
            ("O0", &include_bytes!("kernels/printf_O0.spv")[..], false),
            ("O2 fibers", &include_bytes!("kernels/printf.spv")[..], true),
        ] {
            let m = jit::spirv::parse(bytes).expect("parse");
            let o = CompileOptions::default();
            let p = if fibers {
                jit::codegen::compile_with_fibers(&m, &o)
            } else {
                jit::compile(&m, &o)
            }
            .unwrap_or_else(|e| panic!("compile ({label}): {e}"));
            out.push((label, p));
        }
        out
    })
}

fn kernels(name: &str) -> Vec<(&'static str, Arc<Kernel>)> {
    programs()
        .iter()
        .map(|(l, p)| (*l, p.kernel(name).unwrap_or_else(|| panic!("kernel {name} ({l})"))))
        .collect()
}

/// C's snprintf with the same format and arguments.
macro_rules! cfmt {
    ($fmt:expr $(, $a:expr)* $(,)?) => {{
        let f = std::ffi::CString::new($fmt).unwrap();
        let mut buf = vec![0u8; 4096];
        let n = unsafe { libc::snprintf(buf.as_mut_ptr() as *mut c_char, buf.len(), f.as_ptr() $(, $a)*) };
        assert!(n >= 0 && (n as usize) < buf.len());
        String::from_utf8(buf[..n as usize].to_vec()).unwrap()
    }};
}

/// Runs a 1-D range of `global` work-items in groups of `local` on 3 threads, with the
/// pointer arguments `ptrs`; returns the printed text (or runs with no sink).
fn run(k: &Kernel, ptrs: &[*mut u8], global: u64, local: u64, sink: bool) -> String {
    assert_eq!(k.args.len(), ptrs.len());
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    for (ka, p) in k.args.iter().zip(ptrs) {
        unsafe { *((block.as_mut_ptr() as *mut u8).add(ka.offset) as *mut u64) = *p as u64 };
    }
    let out = PrintfSink::default();
    let num = global.div_ceil(local);
    let blk = block.as_ptr() as usize;
    let sinkp = if sink { &out as *const PrintfSink as usize } else { 0 };
    std::thread::scope(|s| {
        for t in 0..3u64 {
            s.spawn(move || {
                let mut arena = vec![0u128; k.static_local_size.max(jit::abi::LOCAL_ARENA_BYTES).div_ceil(16) + 1];
                let mut g = t;
                while g < num {
                    let ctx = WorkGroupContext {
                        work_dim: 1,
                        host_shared: 0,
                        global_offset: [0; 3],
                        global_size: [global, 1, 1],
                        local_size: [(global - g * local).min(local), 1, 1],
                        enqueued_local_size: [local, 1, 1],
                        num_groups: [num, 1, 1],
                        group_id: [g, 0, 0],
                        local_mem: arena.as_mut_ptr() as *mut u8,
                        printf: sinkp as *mut c_void,
                    };
                    unsafe { k.run_group(blk as *const u8, &ctx) };
                    g += 3;
                }
            });
        }
    });
    String::from_utf8(out.take()).expect("utf-8")
}

fn p<T>(v: &mut [T]) -> *mut u8 {
    v.as_mut_ptr() as *mut u8
}

#[test]
fn integers() {
    for (label, k) in kernels("pf_ints") {
        for vals in [
            [-100i64, -12345, -123456789, -1234567890123],
            [100, 54321, 2000000000, i64::MAX],
            [0, 0, 0, i64::MIN],
            [255, 65535, -1, -1],
        ] {
            let mut v = vals;
            let got = run(&k, &[p(&mut v)], 1, 1, true);
            let (c, uc, s, us) = (vals[0] as i8, vals[0] as u8, vals[1] as i16, vals[1] as u16);
            let (i, u, l, ul) = (vals[2] as i32, vals[2] as u32, vals[3], vals[3] as u64);
            let mut want = cfmt!(
                "c=%hhd uc=%hhu s=%hd us=%hu i=%d u=%u l=%ld ul=%lu\n",
                c as c_int,
                uc as c_uint,
                s as c_int,
                us as c_uint,
                i,
                u,
                l,
                ul
            );
            want += &cfmt!(
                "x=%x X=%X o=%o lx=%lX |%-6d|%+d|% d|%06d|%.4d|%#x|%#o|%i\n",
                i as c_uint,
                u,
                u,
                ul,
                i,
                i,
                i,
                i,
                i,
                u,
                u,
                c as c_int
            );
            assert_eq!(got, want, "{vals:?} ({label})");
        }
    }
}

#[test]
fn floats() {
    for (label, k) in kernels("pf_floats") {
        for vals in [
            [3.25159f64, -2.5e-7],
            [1e30, 123456.789],
            [-0.0, 1.0 / 3.0],
            [f64::INFINITY, f64::NAN],
            [1e-40, -f64::INFINITY],
            [65504.0, 0.5],
        ] {
            let mut v = vals;
            let got = run(&k, &[p(&mut v)], 1, 1, true);
            let f = vals[0] as f32 as f64;
            let x = vals[1];
            let mut want = cfmt!("%f %F %e %E %g %G %a %A\n", f, f, f, f, f, f, f, f);
            want += &cfmt!("%.3f|%10.2e|%-12g|%.0f|%#g|%+.10a|%08.3f\n", x, x, x, x, x, x, x);
            want += &cfmt!("%lf %le %lg\n", x, x, x);
            assert_eq!(got, want, "{vals:?} ({label})");
        }
    }
}

#[test]
fn strings_and_chars() {
    for (label, k) in kernels("pf_misc") {
        let mut v = [b'K' as i32];
        let got = run(&k, &[p(&mut v)], 1, 1, true);
        let s = |t: &str| std::ffi::CString::new(t).unwrap();
        let (a, b, c, d) = (s("hello"), s("right"), s("left"), s("trunc"));
        let want = cfmt!(
            "%s|%10s|%-5s|%.2s|%c%c|%%|%5c|\n",
            a.as_ptr(),
            b.as_ptr(),
            c.as_ptr(),
            d.as_ptr(),
            b'O' as c_int,
            b'K' as c_int,
            b'z' as c_int
        );
        assert_eq!(got, want, "{label}");
        assert_eq!(got, "hello|     right|left |tr|OK|%|    z|\n");
    }
}

fn join<T: Copy>(xs: &[T], f: impl Fn(T) -> String) -> String {
    xs.iter().map(|x| f(*x)).collect::<Vec<_>>().join(",")
}

#[test]
fn vectors() {
    for (label, k) in kernels("pf_vec") {
        let mut f = [1.5f32, -2.25, 3.0e10, 0.1];
        let mut i = [7i32, -3, 300];
        let mut d = [2.5f64, -1e-3];
        let got = run(&k, &[p(&mut f), p(&mut i), p(&mut d)], 1, 1, true);
        let fl = |x: f32| x as f64;
        let mut want = format!(
            "{}|{}|{}|{}\n",
            join(&f, |x| cfmt!("%f", fl(x))),
            join(&i[..2], |x| cfmt!("%d", x)),
            join(&f, |x| cfmt!("%g", fl(x))),
            join(&f, |x| cfmt!("%.2e", fl(x))),
        );
        let c = [i[0] as i8, i[1] as i8, i[2] as i8];
        let s = [i[0] as u16, i[1] as u16, 2, 3, 4, 5, 6, 0xffff];
        let l = [i[0] as i64 * 1000000000, i[1] as i64];
        want += &format!(
            "{} {} {} {} {}\n",
            join(&c, |x| cfmt!("%hhd", x as c_int)),
            join(&s, |x| cfmt!("%hx", x as c_uint)),
            join(&d, |x| cfmt!("%f", x)),
            join(&l, |x| cfmt!("%ld", x)),
            join(&[i[0] as u8; 16], |x| cfmt!("%hhu", x as c_uint)),
        );
        want += "1.500000,-2.250000\n";
        assert_eq!(got, want, "{label}");
        assert!(
            got.starts_with("1.500000,-2.250000,30000001024.000000,0.100000|7,-3|"),
            "{got}"
        );
    }
}

#[test]
fn many_work_items() {
    for (label, k) in kernels("pf_items") {
        let n = 301u64;
        let mut v: Vec<i32> = (0..n as i32).map(|g| g * g - 5).collect();
        let got = run(&k, &[p(&mut v)], n, 16, true);
        let mut lines: Vec<&str> = got.lines().collect();
        assert_eq!(lines.len(), n as usize, "{label}");
        assert!(got.ends_with('\n'));
        lines.sort();
        let mut want: Vec<String> = (0..n as i32)
            .map(|g| format!("item {g} of {n}: value {}", g * g - 5))
            .collect();
        want.sort();
        assert_eq!(lines, want, "{label}");
        // Within a work-group, work-items print in order.
        let pos = |g: i32| got.find(&format!("item {g} of")).unwrap();
        for g in 0..15 {
            assert!(pos(g) < pos(g + 1), "{label}");
        }
    }
}

#[test]
fn return_values() {
    for (label, k) in kernels("pf_ret") {
        let mut out = [5i32, 9, 9];
        let got = run(&k, &[p(&mut out)], 1, 1, true);
        assert_eq!(got, "ok 5\n", "{label}");
        assert_eq!(out, [0, -1, -1], "{label}");
        // No sink: -1, nothing printed.
        let mut out = [5i32, 9, 9];
        let got = run(&k, &[p(&mut out)], 1, 1, false);
        assert_eq!(got, "");
        assert_eq!(out, [-1, -1, -1], "{label}");
    }
}
