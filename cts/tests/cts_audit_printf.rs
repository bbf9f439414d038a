//! The kinds of printf calls the Khronos CTS `printf` suite makes, from OpenCL C: integers
//! with flags, width and precision; the length modifiers hh, h and l; octal, unsigned and
//! hexadecimal; %c and %s (empty strings, precision, embedded %, tabs, an embedded NUL); float
//! and double %f %e %g %a (and their capitals) with flags, subnormals and the infinity and NaN
//! limits; the vector specifiers (%v2hhx ... %v16hlo, 3-component vectors, double vectors); the
//! address-space cases (values read through global, constant, local and private pointers, and
//! %p of a global pointer); and a random mix of conversions between literal text like the
//! suite's mixed-format test. Each case is one printf call in a kernel generated from the
//! table below; the kernel runs in a child process of this test binary, whose standard output
//! the parent compares line by line with the host C library's snprintf of the same format and
//! values (for vectors, each component formatted with the element conversion and the results
//! joined with commas, as the OpenCL C specification defines).

// The CTS uses 3.14 as a value to print, not as pi.
#![allow(clippy::approx_constant)]

use cts::image_ref::Rng;
use cts::*;
use std::ffi::{c_char, c_int, c_long};

/// A host value for snprintf, passed with its C type.
#[derive(Clone, Debug)]
enum H {
    I(c_int),
    L(c_long),
    D(f64),
    S(String),
}

/// One printf call: the kernel's format (without the tag and newline) and argument
/// expression, and the host's expected text.
struct Case {
    fmt: String,
    arg: String,
    want: String,
}

/// C's snprintf of `fmt` with one argument.
fn cfmt(fmt: &str, a: &H) -> String {
    let f = std::ffi::CString::new(fmt).unwrap();
    let mut buf = vec![0u8; 1024];
    let p = buf.as_mut_ptr() as *mut c_char;
    let n = unsafe {
        match a {
            H::I(v) => libc::snprintf(p, buf.len(), f.as_ptr(), *v),
            H::L(v) => libc::snprintf(p, buf.len(), f.as_ptr(), *v),
            H::D(v) => libc::snprintf(p, buf.len(), f.as_ptr(), *v),
            H::S(s) => {
                let c = std::ffi::CString::new(s.as_str()).unwrap();
                libc::snprintf(p, buf.len(), f.as_ptr(), c.as_ptr())
            }
        }
    };
    assert!(n >= 0 && (n as usize) < buf.len());
    String::from_utf8(buf[..n as usize].to_vec()).unwrap()
}

fn scalar(fmt: &str, arg: &str, h: H) -> Case {
    Case {
        fmt: fmt.into(),
        arg: arg.into(),
        want: cfmt(fmt, &h),
    }
}

/// A vector case: `fmt` with the vector specifier, `elem` the host conversion for one
/// component, `arg` the kernel's vector expression.
fn vector(fmt: &str, elem: &str, arg: &str, comps: &[H]) -> Case {
    Case {
        fmt: fmt.into(),
        arg: arg.into(),
        want: comps.iter().map(|c| cfmt(elem, c)).collect::<Vec<_>>().join(","),
    }
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // int (the suite's int table plus the extremes).
    for (f, x) in [
        ("%5d", 10),
        ("%-5d", 10),
        ("%05d", 10),
        ("%+5d", 10),
        ("%-+5d", 10),
        ("%.5i", 100),
        ("%6.5i", 100),
        ("%-06i", 100),
        ("%06.5i", 100),
        ("% 10d", 42),
        ("%d", i32::MIN),
        ("%i", i32::MAX),
        ("%.0d", 0),
        ("%+.0d", 0),
        ("%u", -1),
        ("%x", -559038737),
        ("%o", 10),
        ("%.5o", 10),
        ("%#o", 100000000),
        ("%04.5o", 10),
        ("%010o", 10),
        ("%#o", 0),
        ("%.0u", 0),
        ("%#x", 0xABCDEF),
        ("%#X", 0xABCDEF),
        ("%#X", 0),
        ("%8x", 399),
        ("%04x", 399),
        ("%c", 66),
        ("%4c", '1' as i32),
        ("%-4c", '1' as i32),
    ] {
        let arg = if f.ends_with('c') && x != 66 {
            format!("'{}'", x as u8 as char)
        } else if x == i32::MIN {
            "(int)0x80000000".to_string()
        } else {
            format!("{x}")
        };
        v.push(scalar(f, &arg, H::I(x)));
    }
    // Length modifiers (the suite's table; the arguments of hh and h are ints converted).
    for (f, x) in [
        ("%hd", 32767),
        ("%hhd", 127),
        ("%hd", -32767),
        ("%hhd", -128),
        ("%hx", 32767),
        ("%hhx", 127),
        ("%hx", -32767),
        ("%hhx", -128),
        ("%ho", 32767),
        ("%hho", 127),
        ("%ho", -32767),
        ("%hho", -128),
        ("%hhd", 300),
        ("%hu", 70000),
        ("%hhu", -1),
    ] {
        v.push(scalar(f, &format!("{x}"), H::I(x)));
    }
    // long.
    for (f, x) in [
        ("%5ld", 10000000000i64),
        ("%-15ld", -10000000000),
        ("%015ld", 10000000000),
        ("%+15ld", -10000000000),
        ("%-+15ld", 10000000000),
        ("%.15li", 10000000000),
        ("%-+16.15li", -10000000000),
        ("%ld", i64::MAX),
        ("%ld", -i64::MAX),
        ("%lx", i64::MAX),
        ("%lx", -i64::MAX),
        ("%lo", i64::MAX),
        ("%lo", -i64::MAX),
        ("%lu", -1),
        ("%#lX", 0x1234_5678_9abc_def0),
    ] {
        v.push(scalar(f, &format!("{x}L"), H::L(x as c_long)));
    }
    // Strings.
    for (f, s) in [
        ("%s", ""),
        ("%4s", "foo"),
        ("%.1s", "foo"),
        ("%s", "%%"),
        ("%s", "foo%%bar%%bar%%foo"),
        ("%%%s%%", "foo"),
        ("%%s%s", "foo"),
        ("%s", "\\\"%%\\\""),
        ("%s", "\\'%%\\'"),
        ("%s", "foo\\tfoo"),
        ("%s", "foo\\0foo"),
        ("%-10s|", "left"),
        ("%10.2s|", "right"),
        (
            "%s",
            " !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
        ),
    ] {
        // The host string is the C literal's value.
        let host = s
            .replace("\\\"", "\"")
            .replace("\\'", "'")
            .replace("\\t", "\t")
            .replace("\\\\", "\\");
        let host = host.split("\\0").next().unwrap().to_string();
        v.push(scalar(f, &format!("\"{s}\""), H::S(host)));
    }
    // Formats without conversions.
    for f in ["%%", "\\\"%%\\\"", "'%%'", "'foo%%bar%%bar%%foo'", "foo\\t\\t\\tfoo"] {
        let host = f.replace("\\\"", "\"").replace("\\t", "\t");
        v.push(Case {
            fmt: f.into(),
            arg: String::new(),
            want: cfmt(&host, &H::I(0)),
        });
    }
    // float and double (the suite's tables, then subnormals, extremes and signed zeros).
    let fcases: &[(&str, f64)] = &[
        ("%f", 10.3456),
        ("%.1f", 10.3456),
        ("%.2f", 10.3456),
        ("%8.3f", 10.3456),
        ("%08.2f", 10.3456),
        ("%-8.2f", 10.3456),
        ("%+8.2f", -10.3456),
        ("%.0f", 0.1),
        ("%.0f", 0.6),
        ("%0f", 0.6),
        ("%4g", 12345.6789),
        ("%4.2g", 12345.6789),
        ("%4G", 0.0000023),
        ("%4G", 0.023),
        ("%-#20.15e", 789456128.0),
        ("%+#21.15E", 789456128.0),
        ("%.6a", 0.5),
        ("%10.2a", 1.5),
        ("% 10.2f", 1.25),
        ("%08.2f", 3.14),
        ("%a", 1.0e-45),
        ("%a", 1.1754942e-38),
        ("%.3e", 1.0e-40),
        ("%e", 3.4028234663852886e38),
        ("%f", 3.4028234663852886e38),
        ("%g", -0.0),
        ("%#g", 1.0),
        ("%#.0f", 3.0),
        ("%A", 255.5),
        ("%.0a", 1.5),
        ("%.0e", 2.5),
        ("%G", 1.0e-5),
        ("%g", 123456789.0),
    ];
    for (f, x) in fcases {
        let xf = *x as f32;
        v.push(scalar(f, &format!("{:e}f", xf), H::D(xf as f64)));
        v.push(scalar(f, &format!("{x:e}"), H::D(*x)));
    }
    for (f, x) in [
        ("%a", 4.9e-324),
        ("%.17g", 0.1),
        ("%f", 1.0e300),
        ("%e", f64::MAX),
        ("%a", -2.2250738585072014e-308),
    ] {
        v.push(scalar(f, &format!("{x:e}"), H::D(x)));
    }
    // Limits.
    for f in ["%f", "%e", "%g", "%a", "%F", "%E", "%G", "%A", "%5f", "%-6e|", "%+g"] {
        for (arg, x) in [
            ("1.0f/0.0f", f64::INFINITY),
            ("-1.0f/0.0f", f64::NEG_INFINITY),
            ("nan(0u)", f64::NAN),
            ("1.0/0.0", f64::INFINITY),
            ("nan(0ul)", f64::NAN),
        ] {
            v.push(scalar(f, arg, H::D(x)));
        }
    }
    // Vectors (the suite's table, then the other lengths and double vectors).
    let fl = |xs: &[f64]| xs.iter().map(|x| H::D(*x as f32 as f64)).collect::<Vec<_>>();
    let ii = |xs: &[i64]| xs.iter().map(|x| H::I(*x as c_int)).collect::<Vec<_>>();
    v.push(vector(
        "%2.2v4hlf",
        "%2.2f",
        "(float4)(1.0f,2.0f,3.0f,4.0f)",
        &fl(&[1.0, 2.0, 3.0, 4.0]),
    ));
    v.push(vector("%#v2hhx", "%#hhx", "(uchar2)(0xFA,0xFB)", &ii(&[0xFA, 0xFB])));
    v.push(vector(
        "%#v2hx",
        "%#hx",
        "(ushort2)(0x1234,0x8765)",
        &ii(&[0x1234, 0x8765]),
    ));
    v.push(vector(
        "%#v2hlx",
        "%#x",
        "(uint2)(0x12345678,0x87654321)",
        &ii(&[0x12345678, 0x87654321]),
    ));
    v.push(vector(
        "%v2ld",
        "%ld",
        "(long2)(12345678,98765432)",
        &[H::L(12345678), H::L(98765432)],
    ));
    v.push(vector(
        "%.2v3hle",
        "%.2e",
        "(float3)(1234.25f,987654.5f,0.0005f)",
        &fl(&[1234.25, 987654.5, 0.0005]),
    ));
    v.push(vector(
        "%.1v4hla",
        "%.1a",
        "(float4)(0.25f,0.5f,1.f,1.5f)",
        &fl(&[0.25, 0.5, 1.0, 1.5]),
    ));
    v.push(vector(
        "%v8hlg",
        "%g",
        "(float8)(1.f,2.f,3.f,4.f,1.5f,3.14f,2.5f,3.5f)",
        &fl(&[1.0, 2.0, 3.0, 4.0, 1.5, 3.14, 2.5, 3.5]),
    ));
    v.push(vector(
        "%v16hlo",
        "%o",
        "(uint16)(1,2,3,4,5,6,7,8,9,0,32,64,128,256,512,1024)",
        &ii(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 32, 64, 128, 256, 512, 1024]),
    ));
    v.push(vector(
        "%+v8hli",
        "%+i",
        "(int8)(1,-2,3,-4,5,-6,7,-8)",
        &ii(&[1, -2, 3, -4, 5, -6, 7, -8]),
    ));
    v.push(vector(
        "%05v4hlu",
        "%05u",
        "(uint4)(512,1024,262144,1048576)",
        &ii(&[512, 1024, 262144, 1048576]),
    ));
    v.push(vector("%v3hd", "%hd", "(short3)(-1,0,32767)", &ii(&[-1, 0, 32767])));
    v.push(vector(
        "%v4hhd",
        "%hhd",
        "(char4)(-128,127,0,-1)",
        &ii(&[-128, 127, 0, -1]),
    ));
    v.push(vector("%v2hhu", "%hhu", "(uchar2)(255,0)", &ii(&[255, 0])));
    v.push(vector(
        "%v3lx",
        "%lx",
        "(ulong3)(1,0xffffffffffffffffUL,0x8000000000000000UL)",
        &[H::L(1), H::L(-1), H::L(i64::MIN)],
    ));
    v.push(vector("%v2lf", "%f", "(double2)(0.5,-1e10)", &[H::D(0.5), H::D(-1e10)]));
    v.push(vector(
        "%.3v3le",
        "%.3e",
        "(double3)(1.0,-2.5e-300,3.0)",
        &[H::D(1.0), H::D(-2.5e-300), H::D(3.0)],
    ));
    v.push(vector(
        "%v4hlf",
        "%f",
        "(float4)(1.0f/0.0f,-1.0f/0.0f,nan(0u),-0.0f)",
        &[H::D(f64::INFINITY), H::D(f64::NEG_INFINITY), H::D(f64::NAN), H::D(-0.0)],
    ));
    // The mixed-format test: random conversions of random values between random text.
    let mut rng = Rng::new(0x9f);
    let text = |rng: &mut Rng| -> String {
        let dict = " !#$&()*+,-./123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";
        (0..2 + rng.below(8))
            .map(|_| dict.as_bytes()[rng.below(dict.len() as u64) as usize] as char)
            .collect()
    };
    for _ in 0..64 {
        let (before, after) = (text(&mut rng), text(&mut rng));
        let n = 2 + rng.below(4);
        let mut fmt = format!("{before}, ");
        let mut want = format!("{before}, ");
        let mut args = Vec::new();
        for _ in 0..n {
            if rng.below(2) == 1 {
                let f = ["%d", "%i", "%u", "%x", "%o", "%X"][rng.below(6) as usize];
                let x = rng.next_u64() as u32 as i32;
                fmt.push_str(f);
                want.push_str(&cfmt(f, &H::I(x)));
                args.push(format!("{x}"));
            } else {
                let f = ["%f", "%e", "%g", "%a", "%F", "%E", "%G", "%A"][rng.below(8) as usize];
                let x = rng.range_f64(-100000.0, 100000.0) as f32;
                fmt.push_str(f);
                want.push_str(&cfmt(f, &H::D(x as f64)));
                // The hexadecimal literal gives the kernel exactly this float.
                args.push(format!("{}f", cfmt("%a", &H::D(x as f64))));
            }
            fmt.push_str(", ");
            want.push_str(", ");
        }
        fmt.push_str(&after);
        want.push_str(&after);
        v.push(Case {
            fmt,
            arg: args.join(", "),
            want,
        });
    }
    v
}

/// The kernel source: kernel `pf` prints every case, each on its own line tagged `P<i>:`, in
/// order (one work-item); `addr` prints the address-space cases.
fn source(cases: &[Case]) -> String {
    let mut s = String::from("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void pf(void) {\n");
    for (i, c) in cases.iter().enumerate() {
        if c.arg.is_empty() {
            s.push_str(&format!("    printf(\"P{i}:{}\\n\");\n", c.fmt));
        } else {
            s.push_str(&format!("    printf(\"P{i}:{}\\n\", {});\n", c.fmt, c.arg));
        }
    }
    s.push_str("}\n");
    s.push_str(
        "kernel void addr(global int *g, constant int *c, global void *p, global ulong *pa) {\n\
         \x20   local int l;\n\
         \x20   l = 3;\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   private int x;\n\
         \x20   x = -1;\n\
         \x20   printf(\"A0:%d\\n\", *g);\n\
         \x20   printf(\"A1:%d\\n\", *c);\n\
         \x20   printf(\"A2:%+d\\n\", l);\n\
         \x20   printf(\"A3:%i\\n\", x);\n\
         \x20   printf(\"A4:%p\\n\", p);\n\
         \x20   *pa = (ulong)p;\n\
         }\n",
    );
    s
}

fn in_child() -> bool {
    std::env::var_os("CTS_AUDIT_PRINTF_CHILD").is_some()
}

fn child_stdout(name: &str) -> String {
    let out = test_child(name)
        .env("CTS_AUDIT_PRINTF_CHILD", "1")
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

/// The text after `tag` on the line that has it (the harness may have written
/// "test NAME ... " before the first one).
fn tagged<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        l.find(tag)
            .filter(|&i| i == 0 || l[..i].ends_with(" ... "))
            .map(|i| &l[i + tag.len()..])
    })
}

#[test]
fn audit_printf_cases() {
    let cases = cases();
    if in_child() {
        let ctx = Context::new();
        let q = ctx.queue();
        let p = ctx.program_source(&source(&cases));
        let err = p.build("");
        assert!(err == CL_SUCCESS, "build: {}\n{}", err_name(err), p.build_log());
        q.run(&p.kernel("pf"), &[], &[1], &[]);
        return;
    }
    let text = child_stdout("audit_printf_cases");
    let mut bad = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        // A case whose output holds a newline continues on the next line.
        let got = tagged(&text, &format!("P{i}:"));
        if got != Some(c.want.as_str()) {
            bad.push(format!(
                "printf(\"{}\", {}): got {got:?}, want {:?}",
                c.fmt, c.arg, c.want
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} cases differ:\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n")
    );
}

#[test]
fn audit_printf_address_spaces() {
    if in_child() {
        let ctx = Context::new();
        let q = ctx.queue();
        let p = ctx.program_source(&source(&[]));
        let err = p.build("");
        assert!(err == CL_SUCCESS, "build: {}\n{}", err_name(err), p.build_log());
        let g = ctx.buffer_from(as_bytes(&[2i32]));
        let c = ctx.buffer_from(as_bytes(&[2i32]));
        let target = ctx.buffer(64);
        let pa = ctx.buffer(8);
        let k = p.kernel("addr");
        k.arg_mem(0, &g);
        k.arg_mem(1, &c);
        k.arg_mem(2, &target);
        k.arg_mem(3, &pa);
        q.run(&k, &[], &[1], &[1]);
        let addr: Vec<u64> = from_bytes(&q.read(&pa, 0, 8));
        // The parent compares the printed pointer with the one the kernel stored.
        println!("ADDR:{:#x}", addr[0]);
        return;
    }
    let text = child_stdout("audit_printf_address_spaces");
    for (tag, want) in [("A0:", "2"), ("A1:", "2"), ("A2:", "+3"), ("A3:", "-1")] {
        assert_eq!(tagged(&text, tag), Some(want), "{tag}\n{text}");
    }
    let parse = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    let printed = parse(tagged(&text, "A4:").expect("no %p line"));
    let stored = parse(tagged(&text, "ADDR:").expect("no address line"));
    assert_eq!(printed, stored, "%p printed {printed:#x}, the pointer is {stored:#x}");
}
