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
//! A pipeline request runs a whole build's three tools: the tool `clang+opt+llvm-spirv`, the
//! working directory, `C,O` (how many of the following strings are clang's argv and opt's; the
//! rest are llvm-spirv's), then the three argvs. Each step's module goes to the next in memory
//! (`clift_pipeline` in tools.cpp: clang's and opt's bitcode files are not written), which
//! spares the bitcode writing and reading and two requests. Its code is 0 when the SPIR-V file
//! is written (the output then holds clang's diagnostics only), clang's exit code when clang
//! failed, 256 + the step (1: opt, 2: llvm-spirv) when a later one failed, and 259 when a step
//! ended the worker with an exit code (a crash comes back as kind 1, as for a tool); the response
//! ends with three `u32`s, the steps' times in microseconds (not after kind 2, which is all a
//! server without pipelines answers). Pipelines run only in a worker.
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
    fn clift_pipeline(
        nc: c_int,
        clang: *const *const c_char,
        no: c_int,
        opt: *const *const c_char,
        ns: c_int,
        spirv: *const *const c_char,
        micros: *mut u32,
    ) -> c_int;
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

type Pipeline = unsafe extern "C" fn(
    c_int,
    *const *const c_char,
    c_int,
    *const *const c_char,
    c_int,
    *const *const c_char,
    *mut u32,
) -> c_int;

/// The request name of clang, opt and llvm-spirv in one request.
const PIPELINE: &[u8] = b"clang+opt+llvm-spirv";

#[cfg(clc_tools)]
fn pipeline() -> Option<Pipeline> {
    Some(clift_pipeline)
}

#[cfg(not(clc_tools))]
fn pipeline() -> Option<Pipeline> {
    None
}

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

/// A request's outcome: `kind` and `code` as on the wire, the output, and a pipeline's step
/// times in microseconds (zero where a step did not run).
struct Response {
    kind: u32,
    code: i32,
    text: Vec<u8>,
    micros: [u32; 3],
    /// The code is a process's exit status (the worker, or a one-request child, ended).
    ended: bool,
}

impl Response {
    fn new(kind: u32, code: i32, text: Vec<u8>) -> Response {
        Response {
            kind,
            code,
            text,
            micros: [0; 3],
            ended: false,
        }
    }

    /// The response of a process that ended with wait status `status`.
    fn ended(status: c_int, text: Vec<u8>) -> Response {
        let mut r = if libc::WIFSIGNALED(status) {
            Response::new(SIGNALED, libc::WTERMSIG(status), text)
        } else {
            Response::new(EXITED, libc::WEXITSTATUS(status), text)
        };
        r.ended = true;
        r
    }
}

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

/// What a request runs.
enum Run {
    /// One tool with the whole argv.
    Tool(Tool),
    /// The three tools, the argv split after `clang` and `opt` arguments.
    Pipeline { run: Pipeline, clang: usize, opt: usize },
}

/// A request taken apart: what it runs, the working directory and the argv as C strings.
struct Parsed {
    run: Run,
    dir: CString,
    argv: Vec<CString>,
}

fn parse(req: &[Vec<u8>]) -> Result<Parsed, Response> {
    let not_built_in = || Response::new(NOT_BUILT_IN, 0, b"clift-clc: tool not built in\n".to_vec());
    let bad = |what: &str| Response::new(EXITED, 1, format!("clift-clc: {what}\n").into_bytes());
    let cstrings =
        |parts: &[Vec<u8>]| -> Option<Vec<CString>> { parts.iter().map(|p| CString::new(p.clone()).ok()).collect() };
    let (run, first) = if req[0] == PIPELINE {
        // `clang-args,opt-args`: how many of the arguments after this one are clang's, opt's;
        // the rest are llvm-spirv's. Each command line has at least its argv[0].
        let run = pipeline().ok_or_else(not_built_in)?;
        let counts = std::str::from_utf8(req.get(2).map_or(&[][..], |c| c)).unwrap_or("");
        let mut n = counts.split(',').map(|c| c.parse::<usize>().ok());
        let (Some(Some(clang)), Some(Some(opt)), None) = (n.next(), n.next(), n.next()) else {
            return Err(bad("bad pipeline argument counts"));
        };
        let rest = req.len() - 3;
        if clang == 0 || opt == 0 || clang.saturating_add(opt) >= rest {
            return Err(bad("bad pipeline argument counts"));
        }
        (Run::Pipeline { run, clang, opt }, 3)
    } else {
        (Run::Tool(tool(&req[0]).ok_or_else(not_built_in)?), 2)
    };
    let (Some(mut dir), Some(argv)) = (cstrings(&req[1..2]), cstrings(&req[first..])) else {
        return Err(bad("NUL byte in an argument"));
    };
    Ok(Parsed {
        run,
        dir: dir.remove(0),
        argv,
    })
}

/// Runs a parsed request in this process, its output going to standard output and error:
/// the tool's exit code (for a pipeline, `clift_pipeline`'s code), or 126 when the directory
/// cannot be entered; `micros` gets a pipeline's step times.
///
/// # Safety
/// Only in a child of the server (a worker, or a one-request child): the tool changes the
/// working directory and LLVM's global state.
unsafe fn run_here(p: &Parsed, micros: &mut [u32; 3]) -> c_int {
    // Each command line ends with a null pointer, as a program's argv does.
    let mut ptrs: Vec<*const c_char> = Vec::with_capacity(p.argv.len() + 3);
    let mut starts = Vec::with_capacity(3);
    let bounds: Vec<usize> = match p.run {
        Run::Tool(_) => vec![0, p.argv.len()],
        Run::Pipeline { clang, opt, .. } => vec![0, clang, clang + opt, p.argv.len()],
    };
    for w in bounds.windows(2) {
        starts.push(ptrs.len());
        ptrs.extend(p.argv[w[0]..w[1]].iter().map(|a| a.as_ptr()));
        ptrs.push(std::ptr::null());
    }
    if libc::chdir(p.dir.as_ptr()) != 0 {
        return 126;
    }
    reset_options();
    let len = |i: usize| (bounds[i + 1] - bounds[i]) as c_int;
    let code = match p.run {
        Run::Tool(run) => run(len(0), ptrs.as_ptr()) & 0xff,
        Run::Pipeline { run, .. } => run(
            len(0),
            ptrs.as_ptr(),
            len(1),
            ptrs.as_ptr().add(starts[1]),
            len(2),
            ptrs.as_ptr().add(starts[2]),
            micros.as_mut_ptr(),
        ),
    };
    flush_streams();
    libc::fflush(std::ptr::null_mut());
    code
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
    fn serve(&mut self, raw: &[u8]) -> Result<Response, ()> {
        let Some(requests) = self.requests.as_mut() else {
            return Err(());
        };
        if requests.write_all(raw).and_then(|_| requests.flush()).is_err() {
            return Err(());
        }
        self.served += 1;
        let mut reply = [0u8; 16];
        match self.codes.read_exact(&mut reply) {
            Ok(()) => {
                let word = |i: usize| u32::from_le_bytes([reply[i], reply[i + 1], reply[i + 2], reply[i + 3]]);
                Ok(Response {
                    kind: EXITED,
                    code: word(0) as i32,
                    text: read_all(self.out),
                    micros: [word(4), word(8), word(12)],
                    ended: false,
                })
            }
            Err(_) => {
                // The worker ended during the request: its status is the request's.
                let status = self.reap();
                Ok(Response::ended(status, read_all(self.out)))
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
/// first), its exit code and a pipeline's step times back on `codes`. End of input (or a broken
/// pipe) ends it.
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
    // Buffered: a request is some seventy strings, each a length and bytes.
    let mut input = io::BufReader::new(std::fs::File::from_raw_fd(requests));
    let mut output = std::fs::File::from_raw_fd(codes);
    while let Ok(req) = read_request(&mut input) {
        // Standard output and error share the memory file's offset.
        libc::ftruncate(1, 0);
        libc::lseek(1, 0, libc::SEEK_SET);
        let mut micros = [0u32; 3];
        let code = match parse(&req) {
            Ok(p) => run_here(&p, &mut micros),
            Err(r) => {
                libc::write(2, r.text.as_ptr().cast(), r.text.len());
                r.code
            }
        };
        let mut reply = (code as u32).to_le_bytes().to_vec();
        for m in micros {
            reply.extend_from_slice(&m.to_le_bytes());
        }
        if output.write_all(&reply).is_err() {
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
fn serve(req: &[Vec<u8>], raw: &[u8], worker: &mut Option<Worker>) -> Response {
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
    if matches!(parsed.run, Run::Pipeline { .. }) {
        // A child's exit status cannot carry a pipeline's code: the client runs the tools one
        // by one instead.
        return Response::new(NOT_BUILT_IN, 0, b"clift-clc: pipelines run in a worker only\n".to_vec());
    }
    serve_forked(&parsed)
}

/// Runs one request in a child of its own; its output goes to an anonymous memory file.
fn serve_forked(p: &Parsed) -> Response {
    // SAFETY: plain system calls; the child only calls the tool and then _exit.
    unsafe {
        let out = libc::memfd_create(c"clift-clc-output".as_ptr(), libc::MFD_CLOEXEC);
        if out < 0 {
            return Response::new(EXITED, 1, b"clift-clc: memfd_create failed\n".to_vec());
        }
        let pid = libc::fork();
        if pid == 0 {
            libc::dup2(out, 1);
            libc::dup2(out, 2);
            libc::_exit(run_here(p, &mut [0; 3]));
        }
        let mut status = 0;
        let result = if pid < 0 {
            Response::new(EXITED, 1, b"clift-clc: fork failed\n".to_vec())
        } else {
            while libc::waitpid(pid, &mut status, 0) < 0
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
            Response::ended(status, read_all(out))
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
        let mut r = serve(&req, &encode(&req), &mut worker);
        if req[0] == PIPELINE && r.kind == EXITED && r.ended {
            // A step ended the worker (LLVM's fatal errors call `exit`): which one is unknown,
            // so the code must not read as clang's.
            r.code = 259;
        }
        let mut resp = Vec::with_capacity(24 + r.text.len());
        resp.extend_from_slice(&r.kind.to_le_bytes());
        resp.extend_from_slice(&r.code.to_le_bytes());
        resp.extend_from_slice(&(r.text.len() as u32).to_le_bytes());
        resp.extend_from_slice(&r.text);
        if req[0] == PIPELINE && r.kind != NOT_BUILT_IN {
            for m in r.micros {
                resp.extend_from_slice(&m.to_le_bytes());
            }
        }
        if output.write_all(&resp).and_then(|_| output.flush()).is_err() {
            return;
        }
    }
}
