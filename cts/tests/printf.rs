//! OpenCL C printf through the ICD (kernels/printf.cl): the kernel runs in a child process of
//! this test binary, whose standard output the parent reads and checks line by line against
//! the C library's printf for the same formats and values.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;
use std::ffi::{c_char, c_int, c_uint};

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

const N: usize = 200;

fn values() -> Vec<i32> {
    (0..N as i32).map(|i| (i * 7919) % 2001 - 1000).collect()
}

/// Runs test `name` of this binary in a child process; returns its standard output after
/// checking it passed.
fn child_stdout(name: &str) -> String {
    let out = test_child(name)
        .env("CTS_PRINTF_CHILD", "1")
        .output()
        .expect("spawn child");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {name} failed ({:?})\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The lines the kernel printed that start with `tag` (the test harness may have written
/// "test NAME ... " before the first one).
fn kernel_lines<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| {
            if l.starts_with(tag) {
                Some(l)
            } else {
                l.strip_prefix("test ")
                    .and_then(|r| r.find(" ... ").map(|i| &r[i + 5..]))
                    .filter(|r| r.starts_with(tag))
            }
        })
        .collect()
}

fn in_child() -> bool {
    std::env::var_os("CTS_PRINTF_CHILD").is_some()
}

#[test]
fn printf_lines() {
    if in_child() {
        let ctx = Context::new();
        let q = ctx.queue();
        let prog = ctx.built_program("printf", &spirv("printf"));
        let v = values();
        let bv = ctx.buffer_from(as_bytes(&v));
        let br = ctx.buffer_from(as_bytes(&vec![7i32; N]));
        let k = prog.kernel("pf");
        k.arg_mem(0, &bv);
        k.arg_mem(1, &br);
        q.run(&k, &[], &[N], &[16]);
        let ret: Vec<i32> = from_bytes(&q.read(&br, 0, N * 4));
        assert!(ret.iter().all(|r| *r == 0), "printf returned {ret:?}");
        return;
    }
    let text = child_stdout("printf_lines");
    let mut got: Vec<&str> = kernel_lines(&text, "gid=");
    assert_eq!(got.len(), N, "{text}");
    got.sort_by_key(|l| l[4..].split(' ').next().unwrap().parse::<i32>().unwrap());
    let s = std::ffi::CString::new("str").unwrap();
    for (g, (line, x)) in got.iter().zip(values()).enumerate() {
        let g = g as i32;
        let f = (x as f32 / 4.0) as f64;
        let want = cfmt!(
            "gid=%d x=%5d u=%u hex=%#x f=%.2f e=%e g=%g s=%s c=%c v=%d,%d,%d,%d w=%f,%f %%",
            g,
            x,
            x as c_uint,
            x as c_uint,
            f,
            f,
            f,
            s.as_ptr(),
            (b'A' as i32 + g % 26) as c_int,
            x,
            -x,
            x * 2,
            7 as c_int,
            f,
            -f
        );
        assert_eq!(*line, want);
    }
}

#[test]
fn printf_long() {
    const V: i64 = -1234567890123;
    if in_child() {
        let ctx = Context::new();
        let q = ctx.queue();
        let prog = ctx.built_program("printf", &spirv("printf"));
        let bv = ctx.buffer_from(as_bytes(&[V]));
        let k = prog.kernel("pf_long");
        k.arg_mem(0, &bv);
        q.run(&k, &[], &[1], &[]);
        return;
    }
    let text = child_stdout("printf_long");
    let got: Vec<&str> = kernel_lines(&text, "l=");
    let want = cfmt!(
        "l=%ld lu=%lu lx=%lx hh=%hhd h=%hd",
        V,
        V as u64,
        V as u64,
        V as i8 as c_int,
        V as i16 as c_int
    );
    assert_eq!(got, [want.as_str()]);
}
