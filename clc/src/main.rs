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
//! Requests run in a worker, a child forked from this single-threaded server that serves
//! requests one after the other (up to [`WORKER_REQUESTS`] of them, then a fresh one takes
//! over). A forked child starts cold: it faults in the libraries' code and initializes their
//! lazy tables again, which cost more than compiling a small kernel; a worker pays that once.
//! Requests stay independent, as separate programs are:
//! - a tool that crashes (llvm-spirv 15 asserts on some input) or exits (LLVM's fatal errors
//!   call `exit`) ends the worker during that request; the response is the signal or exit
//!   code and the output so far, as a program's would be, and the next request gets a new
//!   worker;
//! - LLVM's command-line options (clang's cc1 parses its `-mllvm` options on every run, opt
//!   its LLVM options) are reset to their defaults before every request;
//! - the working directory is set for each request, the output file emptied.
//!
//! `CLIFT_CLC_WORKER=off` forks one child per request instead (each starts cold). End of input
//! ends the server, and with it the worker.

use std::ffi::{c_char, c_int, CString};
use std::io::{self, Read, Write};

#[cfg(clc_tools)]
extern "C" {
    fn clift_clang(argc: c_int, argv: *const *const c_char) -> c_int;
    fn clift_opt(argc: c_int, argv: *const *const c_char) -> c_int;
    fn clift_llvm_spirv(argc: c_int, argv: *const *const c_char) -> c_int;
    fn clift_reset_options();
    fn clift_flush_streams();
}

#[cfg(clc_tools)]
fn reset_options() {
    // SAFETY: resets LLVM's option registry; single-threaded.
    unsafe { clift_reset_options() }
}

#[cfg(not(clc_tools))]
fn reset_options() {}

#[cfg(clc_tools)]
fn flush_streams() {
    // SAFETY: flushes LLVM's standard streams; single-threaded.
    unsafe { clift_flush_streams() }
}

#[cfg(not(clc_tools))]
fn flush_streams() {}

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

/// A request in its wire form (what a worker reads).
fn encode(req: &[Vec<u8>]) -> Vec<u8> {
    let mut msg = (req.len() as u32).to_le_bytes().to_vec();
    for p in req {
        msg.extend_from_slice(&(p.len() as u32).to_le_bytes());
        msg.extend_from_slice(p);
    }
    msg
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

/// A request taken apart: the tool, the working directory and the argv as C strings.
struct Parsed {
    run: Tool,
    dir: CString,
    argv: Vec<CString>,
}

fn parse(req: &[Vec<u8>]) -> Result<Parsed, (u32, i32, Vec<u8>)> {
    let Some(run) = tool(&req[0]) else {
        return Err((NOT_BUILT_IN, 0, b"clift-clc: tool not built in\n".to_vec()));
    };
    let cstrings =
        |parts: &[Vec<u8>]| -> Option<Vec<CString>> { parts.iter().map(|p| CString::new(p.clone()).ok()).collect() };
    let (Some(mut dir), Some(argv)) = (cstrings(&req[1..2]), cstrings(&req[2..])) else {
        return Err((EXITED, 1, b"clift-clc: NUL byte in an argument\n".to_vec()));
    };
    Ok(Parsed {
        run,
        dir: dir.remove(0),
        argv,
    })
}

/// Runs a parsed request in this process, its output going to standard output and error:
/// the tool's exit code, or 126 when the directory cannot be entered.
///
/// # Safety
/// Only in a child of the server (a worker, or a one-request child): the tool changes the
/// working directory and LLVM's global state.
unsafe fn run_here(p: &Parsed) -> c_int {
    let mut ptrs: Vec<*const c_char> = p.argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    if libc::chdir(p.dir.as_ptr()) != 0 {
        return 126;
    }
    reset_options();
    let code = (p.run)(p.argv.len() as c_int, ptrs.as_ptr());
    flush_streams();
    libc::fflush(std::ptr::null_mut());
    code & 0xff
}

/// Requests one worker serves before a fresh one takes over. The clang driver passes
/// `-disable-free`, so each compilation's AST stays allocated (a few MB); replacing the worker
/// bounds that.
const WORKER_REQUESTS: u32 = 200;

/// A worker: its process, the pipes to it, and the memory file its output goes to (the same
/// open file as its standard output and error, so it can be read after the worker died).
struct Worker {
    pid: libc::pid_t,
    requests: Option<std::fs::File>,
    codes: std::fs::File,
    out: c_int,
    served: u32,
}

impl Worker {
    fn start() -> Option<Worker> {
        // SAFETY: plain system calls; the child runs `work` and then _exit.
        unsafe {
            let out = libc::memfd_create(c"clift-clc-output".as_ptr(), libc::MFD_CLOEXEC);
            if out < 0 {
                return None;
            }
            let mut to = [0 as c_int; 2];
            let mut from = [0 as c_int; 2];
            if libc::pipe2(to.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                libc::close(out);
                return None;
            }
            if libc::pipe2(from.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                for fd in [out, to[0], to[1]] {
                    libc::close(fd);
                }
                return None;
            }
            let pid = libc::fork();
            if pid == 0 {
                libc::close(to[1]);
                libc::close(from[0]);
                work(to[0], from[1], out);
            }
            libc::close(to[0]);
            libc::close(from[1]);
            if pid < 0 {
                for fd in [out, to[1], from[0]] {
                    libc::close(fd);
                }
                return None;
            }
            use std::os::fd::FromRawFd;
            Some(Worker {
                pid,
                requests: Some(std::fs::File::from_raw_fd(to[1])),
                codes: std::fs::File::from_raw_fd(from[0]),
                out,
                served: 0,
            })
        }
    }

    /// Runs one request: Ok(response), or Err(()) when the request could not be sent (the
    /// worker is gone before it started on it).
    fn serve(&mut self, raw: &[u8]) -> Result<(u32, i32, Vec<u8>), ()> {
        let Some(requests) = self.requests.as_mut() else {
            return Err(());
        };
        if requests.write_all(raw).and_then(|_| requests.flush()).is_err() {
            return Err(());
        }
        self.served += 1;
        match read_u32(&mut self.codes) {
            Ok(code) => Ok((EXITED, code as i32, read_all(self.out))),
            Err(_) => {
                // The worker ended during the request: its status is the request's.
                let status = self.reap();
                let text = read_all(self.out);
                Ok(if libc::WIFSIGNALED(status) {
                    (SIGNALED, libc::WTERMSIG(status), text)
                } else {
                    (EXITED, libc::WEXITSTATUS(status), text)
                })
            }
        }
    }

    /// Waits for the worker's end; its wait status.
    fn reap(&mut self) -> c_int {
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe {
            while libc::waitpid(self.pid, &mut status, 0) < 0
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
        }
        self.pid = -1;
        status
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // End of its input ends the worker.
        self.requests = None;
        if self.pid > 0 {
            self.reap();
        }
        // SAFETY: our memory file, closed once.
        unsafe { libc::close(self.out) };
    }
}

/// The worker's loop: each request from `requests` runs here, its output in `out` (emptied
/// first), its exit code back on `codes`. End of input (or a broken pipe) ends it.
///
/// # Safety
/// Only in the freshly forked worker.
unsafe fn work(requests: c_int, codes: c_int, out: c_int) -> ! {
    let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
    if null >= 0 {
        libc::dup2(null, 0);
        libc::close(null);
    }
    libc::dup2(out, 1);
    libc::dup2(out, 2);
    use std::os::fd::FromRawFd;
    let mut input = std::fs::File::from_raw_fd(requests);
    let mut output = std::fs::File::from_raw_fd(codes);
    while let Ok(req) = read_request(&mut input) {
        // Standard output and error share the memory file's offset.
        libc::ftruncate(1, 0);
        libc::lseek(1, 0, libc::SEEK_SET);
        let code = match parse(&req) {
            Ok(p) => run_here(&p),
            Err((_, code, text)) => {
                libc::write(2, text.as_ptr().cast(), text.len());
                code
            }
        };
        if output.write_all(&(code as u32).to_le_bytes()).is_err() {
            break;
        }
    }
    libc::_exit(0)
}

/// Whether requests go to a worker (`CLIFT_CLC_WORKER=off`: one forked child each).
fn use_workers() -> bool {
    !matches!(std::env::var("CLIFT_CLC_WORKER").as_deref(), Ok("off" | "0"))
}

/// Runs one request: in the worker when there is one (started on demand), in a child of its
/// own otherwise.
fn serve(req: &[Vec<u8>], raw: &[u8], worker: &mut Option<Worker>) -> (u32, i32, Vec<u8>) {
    let parsed = match parse(req) {
        Ok(p) => p,
        Err(response) => return response,
    };
    if use_workers() {
        // A worker that ended between requests (killed from outside) is replaced once.
        for _ in 0..2 {
            if worker.is_none() {
                *worker = Worker::start();
            }
            let Some(w) = worker.as_mut() else { break };
            match w.serve(raw) {
                Ok(response) => {
                    if w.pid < 0 || w.served >= WORKER_REQUESTS {
                        *worker = None;
                    }
                    return response;
                }
                Err(()) => *worker = None,
            }
        }
    }
    serve_forked(&parsed)
}

/// Runs one request in a child of its own; its output goes to an anonymous memory file.
fn serve_forked(p: &Parsed) -> (u32, i32, Vec<u8>) {
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
            libc::_exit(run_here(p));
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
    let mut worker = None;
    while let Ok(req) = read_request(&mut input) {
        let (kind, code, text) = serve(&req, &encode(&req), &mut worker);
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
