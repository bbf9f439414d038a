//! `clift-clc`: Clift's OpenCL C compile server.
//!
//! A build from OpenCL C runs clang, LLVM's optimizer and llvm-spirv. As separate programs
//! each one first loads and relocates libLLVM (and clang libclang-cpp), which on a small kernel
//! costs several times the compiling itself; suites that build thousands of programs (the
//! Khronos CTS's c11_atomics builds one per test case) spend nearly all their time there. This
//! program links the three as libraries (`tools.cpp`), so the loading happens once: libclift
//! starts it on the first build and sends it one request per tool run.
//!
//! Protocol, over the server's standard input and output (integers little-endian):
//! - request: `u32 n`, then `n` strings as `u32 length` + bytes: the tool (`clang`, `opt`,
//!   `llvm-spirv`), the working directory, then the tool's argv (argv[0] first);
//! - response: `u32 kind` (0: exited, 1: killed by a signal, 2: the tool is not built in),
//!   `i32 code` (exit code or signal number), then the tool's standard output and error
//!   together as `u32 length` + bytes.
//!
//! Each request runs in a child forked from this single-threaded server: a tool that crashes
//! (llvm-spirv 15 asserts on some input) or leaves global state behind (LLVM's command-line
//! options) affects that request only, exactly as a separate program would. End of input ends
//! the server.

use std::ffi::{c_char, c_int, CString};
use std::io::{self, Read, Write};

#[cfg(clc_tools)]
extern "C" {
    fn clift_clang(argc: c_int, argv: *const *const c_char) -> c_int;
    fn clift_opt(argc: c_int, argv: *const *const c_char) -> c_int;
    fn clift_llvm_spirv(argc: c_int, argv: *const *const c_char) -> c_int;
}

type Tool = unsafe extern "C" fn(c_int, *const *const c_char) -> c_int;

#[cfg(clc_tools)]
fn tool(name: &[u8]) -> Option<Tool> {
    match name {
        b"clang" => Some(clift_clang),
        b"opt" => Some(clift_opt),
        b"llvm-spirv" => Some(clift_llvm_spirv),
        _ => None,
    }
}

#[cfg(not(clc_tools))]
fn tool(_: &[u8]) -> Option<Tool> {
    None
}

const EXITED: u32 = 0;
const SIGNALED: u32 = 1;
const NOT_BUILT_IN: u32 = 2;

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_request(r: &mut impl Read) -> io::Result<Vec<Vec<u8>>> {
    let n = read_u32(r)?;
    if !(3..=65536).contains(&n) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "bad request"));
    }
    (0..n)
        .map(|_| {
            let len = read_u32(r)? as usize;
            let mut s = vec![0u8; len];
            r.read_exact(&mut s)?;
            Ok(s)
        })
        .collect()
}

/// Runs one request in a forked child; its output goes to an anonymous memory file.
fn serve(req: &[Vec<u8>]) -> (u32, i32, Vec<u8>) {
    let Some(run) = tool(&req[0]) else {
        return (NOT_BUILT_IN, 0, b"clift-clc: tool not built in\n".to_vec());
    };
    let cstrings =
        |parts: &[Vec<u8>]| -> Option<Vec<CString>> { parts.iter().map(|p| CString::new(p.clone()).ok()).collect() };
    let (Some(dir), Some(argv)) = (cstrings(&req[1..2]), cstrings(&req[2..])) else {
        return (EXITED, 1, b"clift-clc: NUL byte in an argument\n".to_vec());
    };
    let mut ptrs: Vec<*const c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: plain system calls; the child only calls the tool and then _exit.
    unsafe {
        let out = libc::memfd_create(c"clift-clc-output".as_ptr(), libc::MFD_CLOEXEC);
        if out < 0 {
            return (EXITED, 1, b"clift-clc: memfd_create failed\n".to_vec());
        }
        let pid = libc::fork();
        if pid == 0 {
            libc::dup2(out, 1);
            libc::dup2(out, 2);
            if libc::chdir(dir[0].as_ptr()) != 0 {
                libc::_exit(126);
            }
            let code = run(argv.len() as c_int, ptrs.as_ptr());
            libc::_exit(code & 0xff);
        }
        let mut status = 0;
        let result = if pid < 0 {
            (EXITED, 1, b"clift-clc: fork failed\n".to_vec())
        } else {
            while libc::waitpid(pid, &mut status, 0) < 0
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
            let text = read_all(out);
            if libc::WIFSIGNALED(status) {
                (SIGNALED, libc::WTERMSIG(status), text)
            } else {
                (EXITED, libc::WEXITSTATUS(status), text)
            }
        };
        libc::close(out);
        result
    }
}

/// Everything written to the memory file `fd`, from its start.
fn read_all(fd: c_int) -> Vec<u8> {
    let mut text = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        // SAFETY: reads into a buffer of the given length at an offset of an open descriptor.
        let n = unsafe { libc::pread(fd, chunk.as_mut_ptr().cast(), chunk.len(), text.len() as libc::off_t) };
        if n <= 0 {
            return text;
        }
        text.extend_from_slice(&chunk[..n as usize]);
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--check") {
        // libclift asks which LLVM this build has: it sends requests only for the tools of
        // that version (the directory of its clang, opt).
        match (tool(b"clang"), option_env!("CLC_LLVM_BINDIR")) {
            (Some(_), Some(bindir)) => println!("{bindir}"),
            _ => std::process::exit(1),
        }
        return;
    }
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    while let Ok(req) = read_request(&mut input) {
        let (kind, code, text) = serve(&req);
        let mut resp = Vec::with_capacity(12 + text.len());
        resp.extend_from_slice(&kind.to_le_bytes());
        resp.extend_from_slice(&code.to_le_bytes());
        resp.extend_from_slice(&(text.len() as u32).to_le_bytes());
        resp.extend_from_slice(&text);
        if output.write_all(&resp).and_then(|_| output.flush()).is_err() {
            return;
        }
    }
}
