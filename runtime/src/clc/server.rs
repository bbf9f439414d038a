//! Runs clang, opt and llvm-spirv through `clift-clc`, Clift's compile server, when it is
//! installed beside libclift.so (or named by `CLIFT_CLC`), and as separate programs otherwise.
//!
//! Starting one of these programs costs more than compiling a small kernel: each one loads and
//! relocates libLLVM (clang also libclang-cpp) first. The server has them loaded once and runs
//! the requests in a worker it forks (replaced after a number of requests), with LLVM's options
//! reset before each, so a tool that crashes ends that request only, as a separate program
//! would; its output and exit status come back as a program's would (standard output and error
//! together). See `clc/src/main.rs` for the protocol and the worker.
//!
//! The server runs its own LLVM: requests go to it only for the tools of that LLVM (clang and
//! opt from its bin directory, llvm-spirv of the same major version). Any failure to talk to it
//! (it was killed, it exited) drops that server and runs the program instead, so a build never
//! fails because of the server. `CLIFT_CLC=off` turns it off.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::sync::{Mutex, OnceLock};

/// Which tool a command line is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tool {
    Clang,
    Opt,
    LlvmSpirv,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Clang => "clang",
            Tool::Opt => "opt",
            Tool::LlvmSpirv => "llvm-spirv",
        }
    }
}

/// The server executable and the LLVM bin directory it was built against.
struct Installed {
    exe: PathBuf,
    bindir: PathBuf,
}

fn installed() -> Option<&'static Installed> {
    static FOUND: OnceLock<Option<Installed>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let exe = match std::env::var_os("CLIFT_CLC") {
                Some(v) if v.is_empty() || v == "off" || v == "0" => return None,
                Some(v) => PathBuf::from(v),
                None => {
                    let lib = crate::cache::library_path()?;
                    let dir = lib.parent()?;
                    // Beside libclift.so; for test binaries in target/*/deps, one folder up.
                    [dir.join("clift-clc"), dir.parent()?.join("clift-clc")]
                        .into_iter()
                        .find(|p| p.is_file())?
                }
            };
            let out = Command::new(&exe).arg("--check").stderr(Stdio::null()).output().ok()?;
            if !out.status.success() {
                return None;
            }
            let bindir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            let bindir = bindir.canonicalize().unwrap_or(bindir);
            Some(Installed { exe, bindir })
        })
        .as_ref()
}

/// Whether the server's LLVM is the one the program at `real` (a canonical path) belongs to.
fn serves(installed: &Installed, tool: Tool, real: &Path) -> bool {
    match tool {
        Tool::Clang | Tool::Opt => real.parent() == Some(installed.bindir.as_path()),
        // llvm-spirv-15 lives outside LLVM's bin directory; its version is in its name.
        Tool::LlvmSpirv => {
            let major = installed
                .bindir
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix("llvm-"))
                .map(str::to_owned);
            let name = real.file_name().and_then(|n| n.to_str()).unwrap_or("");
            major.is_some_and(|m| name == format!("llvm-spirv-{m}"))
        }
    }
}

struct Server {
    child: Child,
    input: ChildStdin,
    output: ChildStdout,
}

impl Server {
    fn start(exe: &Path) -> io::Result<Server> {
        let mut child = Command::new(exe)
            // Binds every symbol of the libraries once, in the server, instead of in each
            // forked request.
            .env("LD_BIND_NOW", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let input = child.stdin.take().ok_or_else(|| io::Error::other("no stdin"))?;
        let output = child.stdout.take().ok_or_else(|| io::Error::other("no stdout"))?;
        Ok(Server { child, input, output })
    }

    fn request(&mut self, parts: &[&[u8]]) -> io::Result<Option<Output>> {
        let r = self.exchange(parts, false)?;
        // A wait status as waitpid gives it: an exit code in the second byte, or the signal.
        let raw = match r.kind {
            0 => (r.code & 0xff) << 8,
            1 => r.code & 0x7f,
            _ => return Ok(None),
        };
        Ok(Some(Output {
            status: ExitStatus::from_raw(raw),
            stdout: Vec::new(),
            stderr: r.text,
        }))
    }

    /// Sends a request and reads its response (with the step times of a pipeline request).
    fn exchange(&mut self, parts: &[&[u8]], pipeline: bool) -> io::Result<Reply> {
        let mut msg = Vec::new();
        msg.extend_from_slice(&(parts.len() as u32).to_le_bytes());
        for p in parts {
            msg.extend_from_slice(&(p.len() as u32).to_le_bytes());
            msg.extend_from_slice(p);
        }
        self.input.write_all(&msg)?;
        self.input.flush()?;
        let mut head = [0u8; 12];
        self.output.read_exact(&mut head)?;
        let word = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
        let (kind, code, len) = (word(0), word(4) as i32, word(8) as usize);
        let mut text = vec![0u8; len];
        self.output.read_exact(&mut text)?;
        let mut micros = [0u32; 3];
        // Kind 2 (not built in) comes without the times: a server without pipelines says so.
        if pipeline && kind != 2 {
            let mut tail = [0u8; 12];
            self.output.read_exact(&mut tail)?;
            for (i, m) in micros.iter_mut().enumerate() {
                *m = u32::from_le_bytes([tail[4 * i], tail[4 * i + 1], tail[4 * i + 2], tail[4 * i + 3]]);
            }
        }
        Ok(Reply {
            kind,
            code,
            text,
            micros,
        })
    }
}

/// A response as it came: kind (0: exited, 1: killed by a signal, 2: not built in), exit code
/// or signal, output, and a pipeline's step times in microseconds.
struct Reply {
    kind: u32,
    code: i32,
    text: Vec<u8>,
    micros: [u32; 3],
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The canonical path of a tool program, resolved once per process (each build names the
/// same three programs; resolving walks every symbolic link of the path again).
fn canonical(program: &Path) -> PathBuf {
    static RESOLVED: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());
    let Ok(mut resolved) = RESOLVED.lock() else {
        return program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    };
    if let Some((_, real)) = resolved.iter().find(|(p, _)| p == program) {
        return real.clone();
    }
    let real = program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    resolved.push((program.to_path_buf(), real.clone()));
    real
}

/// Idle servers; a build takes one (or starts one) and puts it back.
static IDLE: Mutex<Vec<Server>> = Mutex::new(Vec::new());

fn through_server(tool: Tool, program: &Path, dir: &Path, args: &[OsString]) -> Option<Output> {
    let installed = installed()?;
    // clang finds its headers from its own location, as the program does (/proc/self/exe).
    let real = canonical(program);
    if !serves(installed, tool, &real) {
        return None;
    }
    let mut parts: Vec<&[u8]> = vec![
        tool.name().as_bytes(),
        dir.as_os_str().as_bytes(),
        real.as_os_str().as_bytes(),
    ];
    parts.extend(args.iter().map(|a| a.as_bytes()));
    with_server(installed, |server| server.request(&parts).ok().flatten())
}

/// Runs `ask` on an idle server, or a fresh one. An idle server may have died since its last
/// request (killed, out of memory): one that fails is dropped (which kills it) and the request
/// goes to a fresh one. None when a fresh server fails too.
fn with_server<T>(installed: &Installed, mut ask: impl FnMut(&mut Server) -> Option<T>) -> Option<T> {
    let taken = IDLE.lock().ok()?.pop();
    let tries = if taken.is_some() { 2 } else { 1 };
    for server in [taken, None].into_iter().take(tries) {
        let mut server = match server {
            Some(s) => s,
            None => Server::start(&installed.exe).ok()?,
        };
        if let Some(out) = ask(&mut server) {
            if let Ok(mut idle) = IDLE.lock() {
                idle.push(server);
            }
            return Some(out);
        }
    }
    None
}

/// What a pipeline request gave.
pub enum Pipelined {
    /// The three steps ran: the SPIR-V file is written. clang's diagnostics, and each step's
    /// time in milliseconds (clang, opt, llvm-spirv).
    Done { log: Vec<u8>, ms: [f64; 3] },
    /// clang failed: its status and output, as from the program.
    ClangFailed(Output),
}

/// clang, opt and llvm-spirv with these command lines in one request (the server hands each
/// step's module to the next in memory, writing neither bitcode file): None when the server
/// does not serve all three programs, or a step after clang failed or crashed (the caller then
/// runs them one by one, which takes the fallback routes and reports as before).
pub fn run_pipeline(programs: [&Path; 3], dir: &Path, args: [&[OsString]; 3]) -> Option<Pipelined> {
    let installed = installed()?;
    let tools = [Tool::Clang, Tool::Opt, Tool::LlvmSpirv];
    let real: Vec<PathBuf> = programs.iter().map(|p| canonical(p)).collect();
    if !tools.iter().zip(&real).all(|(t, r)| serves(installed, *t, r)) {
        return None;
    }
    let counts = format!("{},{}", args[0].len() + 1, args[1].len() + 1);
    let mut parts: Vec<&[u8]> = vec![PIPELINE.as_bytes(), dir.as_os_str().as_bytes(), counts.as_bytes()];
    for (program, a) in real.iter().zip(args) {
        parts.push(program.as_os_str().as_bytes());
        parts.extend(a.iter().map(|a| a.as_bytes()));
    }
    let reply = with_server(installed, |server| server.exchange(&parts, true).ok())?;
    match (reply.kind, reply.code) {
        (0, 0) => Some(Pipelined::Done {
            log: reply.text,
            ms: reply.micros.map(|m| f64::from(m) / 1e3),
        }),
        (0, code @ 1..=255) => Some(Pipelined::ClangFailed(Output {
            status: ExitStatus::from_raw(code << 8),
            stdout: Vec::new(),
            stderr: reply.text,
        })),
        _ => None,
    }
}

/// The request name of a pipeline (clc/src/main.rs).
const PIPELINE: &str = "clang+opt+llvm-spirv";

/// Runs `program` with `args` in `dir`: through the server when it serves that program, as a
/// separate process otherwise. Standard output and error come back in `stderr` from the
/// server, separately from a process.
pub fn run(tool: Tool, program: &Path, dir: &Path, args: &[OsString]) -> io::Result<Output> {
    if let Some(out) = through_server(tool, program, dir, args) {
        return Ok(out);
    }
    Command::new(program).current_dir(dir).args(args).output()
}

/// Whether builds use the server (for the build log's route line).
pub fn active() -> bool {
    installed().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("clift-clc-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const KERNEL: &str = "inline int f(int x) { switch (x & 3) { case 0: return 5; case 1: return 7; case 2: return 11; } return 13; }\n\
        kernel void k(global int *a, global const float4 *b) {\n\
          size_t i = get_global_id(0);\n\
          a[i] = f(a[i]) + (int)dot(b[i], b[i]);\n\
        }\n";

    /// The three tools through the server write the same files, byte for byte, as the
    /// programs; a failing tool's status and message come back as the program's would.
    #[test]
    fn the_server_matches_the_programs() {
        if std::env::var_os("CLIFT_CLC").is_some_and(|v| v == "off") {
            return;
        }
        let installed =
            installed().expect("clift-clc is built beside the test (cargo build -p clift-clc), or CLIFT_CLC=off");
        let tools = crate::clc::toolchain().expect("clang and llvm-spirv installed");
        let opt = tools.opt.as_ref().expect("opt installed");
        assert!(
            serves(installed, Tool::Clang, &tools.clang.canonicalize().unwrap()),
            "the server's LLVM is {}",
            installed.bindir.display()
        );
        let mut outputs = Vec::new();
        for via_server in [true, false] {
            let dir = scratch(if via_server { "server" } else { "programs" });
            std::fs::write(dir.join("program.cl"), KERNEL).unwrap();
            let go = |tool: Tool, program: &Path, a: &[&str]| -> Output {
                if via_server {
                    through_server(tool, program, &dir, &args(a)).expect("the server answers")
                } else {
                    Command::new(program).current_dir(&dir).args(args(a)).output().unwrap()
                }
            };
            let clang = go(
                Tool::Clang,
                &tools.clang,
                &[
                    "-c",
                    "-target",
                    "spir64",
                    "-emit-llvm",
                    "-cl-std=CL2.0",
                    "-O2",
                    "-Xclang",
                    "-disable-llvm-passes",
                    "-o",
                    "program.bc",
                    "program.cl",
                ],
            );
            assert!(clang.status.success(), "{}", String::from_utf8_lossy(&clang.stderr));
            let opt_run = go(
                Tool::Opt,
                opt,
                &[
                    "--data-layout=",
                    "-indvars-widen-indvars=false",
                    "-passes=default<O2>",
                    "program.bc",
                    "-o",
                    "program.opt.bc",
                ],
            );
            assert!(opt_run.status.success(), "{}", String::from_utf8_lossy(&opt_run.stderr));
            // LLVM narrows the switch to an i2, which llvm-spirv 15 refuses: the same refusal.
            let refused = go(
                Tool::LlvmSpirv,
                &tools.llvm_spirv,
                &["program.opt.bc", "-o", "refused.spv"],
            );
            assert!(!refused.status.success());
            let refusal = String::from_utf8_lossy(&refused.stderr).into_owned();
            assert!(refusal.contains("InvalidBitWidth"), "{refusal}");
            let layout = format!(
                "--data-layout={}",
                super::super::translate::SPIR64_LAYOUT_WITH_NATIVE_INTS
            );
            let opt_run = go(
                Tool::Opt,
                opt,
                &[
                    &layout,
                    "-indvars-widen-indvars=false",
                    "-passes=default<O2>",
                    "program.bc",
                    "-o",
                    "program.opt.bc",
                ],
            );
            assert!(opt_run.status.success(), "{}", String::from_utf8_lossy(&opt_run.stderr));
            let spirv = go(
                Tool::LlvmSpirv,
                &tools.llvm_spirv,
                &[
                    "--preserve-ocl-kernel-arg-type-metadata-through-string",
                    "program.opt.bc",
                    "-o",
                    "program.spv",
                ],
            );
            assert!(spirv.status.success(), "{}", String::from_utf8_lossy(&spirv.stderr));
            // Bad input: a source with an error, and bitcode that is not bitcode.
            std::fs::write(
                dir.join("bad.cl"),
                "kernel void k(global int *a) { a[0] = undeclared; }\n",
            )
            .unwrap();
            let bad = go(
                Tool::Clang,
                &tools.clang,
                &["-c", "-target", "spir64", "-emit-llvm", "-o", "bad.bc", "bad.cl"],
            );
            assert_eq!(bad.status.code(), Some(1));
            let text = String::from_utf8_lossy(&bad.stderr).into_owned();
            assert!(text.contains("bad.cl:1:") && text.contains("undeclared"), "{text}");
            std::fs::write(dir.join("garbage.bc"), b"not bitcode").unwrap();
            let garbage = go(Tool::LlvmSpirv, &tools.llvm_spirv, &["garbage.bc", "-o", "garbage.spv"]);
            assert!(!garbage.status.success());
            let files: Vec<Vec<u8>> = ["program.bc", "program.opt.bc", "program.spv"]
                .iter()
                .map(|f| std::fs::read(dir.join(f)).unwrap())
                .collect();
            outputs.push(files);
            let _ = std::fs::remove_dir_all(&dir);
        }
        for (i, what) in ["clang's bitcode", "opt's bitcode", "llvm-spirv's SPIR-V"]
            .iter()
            .enumerate()
        {
            assert!(
                outputs[0][i] == outputs[1][i],
                "{what} differs between the server and the program"
            );
        }
    }

    /// Requests served one after the other by the server's worker stay independent: a tool
    /// that crashes ends only its own request (its signal comes back as a program's would),
    /// and the requests after it, served by a fresh worker, give the same bytes as before it.
    #[test]
    fn a_crash_ends_only_its_own_request() {
        if std::env::var_os("CLIFT_CLC").is_some_and(|v| v == "off") {
            return;
        }
        let Some(installed) = installed() else { return };
        let tools = crate::clc::toolchain().expect("clang and llvm-spirv installed");
        if !serves(installed, Tool::LlvmSpirv, &tools.llvm_spirv.canonicalize().unwrap()) {
            return;
        }
        let dir = scratch("crash");
        std::fs::write(
            dir.join("program.cl"),
            "kernel void k(global int *a) { a[get_global_id(0)] *= 3; }\n",
        )
        .unwrap();
        // Inline assembly: llvm-spirv 15 dereferences a null pointer on it.
        std::fs::write(
            dir.join("asm.cl"),
            "kernel void k(global int *a) { int v; __asm__(\"nop\" : \"=r\"(v)); a[0] = v; }\n",
        )
        .unwrap();
        let clang = |out: &str, input: &str| {
            through_server(
                Tool::Clang,
                &tools.clang,
                &dir,
                &args(&["-c", "-target", "spir64", "-emit-llvm", "-o", out, input]),
            )
            .expect("the server answers")
        };
        let spirv = |input: &str, out: &str| {
            through_server(Tool::LlvmSpirv, &tools.llvm_spirv, &dir, &args(&[input, "-o", out]))
                .expect("the server answers")
        };
        let mut results = Vec::new();
        for round in 0..2 {
            assert!(clang("program.bc", "program.cl").status.success());
            assert!(spirv("program.bc", "program.spv").status.success());
            results.push(std::fs::read(dir.join("program.spv")).unwrap());
            if round == 0 {
                assert!(clang("asm.bc", "asm.cl").status.success());
                let crashed = spirv("asm.bc", "asm.spv");
                assert!(crashed.status.signal().is_some(), "{:?}", crashed.status);
            }
        }
        assert!(results[0] == results[1], "the SPIR-V after a crash differs");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A server that died while idle is replaced (by a fresh server, or by the program when no
    /// server starts): the run still succeeds.
    #[test]
    fn a_dead_server_falls_back_to_the_program() {
        let Some(installed) = installed() else { return };
        let tools = crate::clc::toolchain().expect("clang installed");
        let mut dead = Server::start(&installed.exe).unwrap();
        dead.child.kill().unwrap();
        let _ = dead.child.wait();
        IDLE.lock().unwrap().push(dead);
        let dir = scratch("dead");
        std::fs::write(dir.join("program.cl"), KERNEL).unwrap();
        let out = run(
            Tool::Clang,
            &tools.clang,
            &dir,
            &args(&[
                "-c",
                "-target",
                "spir64",
                "-emit-llvm",
                "-o",
                "program.bc",
                "program.cl",
            ]),
        )
        .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(dir.join("program.bc").is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The pipeline request gives the SPIR-V and the diagnostics of the three tools run one
    /// by one, byte for byte, without leaving the bitcode files; a clang error comes back as
    /// clang's; a later step that fails or crashes asks for the steps (None), and the server
    /// still answers after it.
    #[test]
    fn a_pipeline_matches_the_steps() {
        if std::env::var_os("CLIFT_CLC").is_some_and(|v| v == "off") {
            return;
        }
        let Some(installed) = installed() else { return };
        let tools = crate::clc::toolchain().expect("clang and llvm-spirv installed");
        let Some(opt) = tools.opt.as_ref() else { return };
        if !serves(installed, Tool::LlvmSpirv, &tools.llvm_spirv.canonicalize().unwrap()) {
            return;
        }
        // A warning (the unused variable), names that clash (each `v`), and a switch.
        let source = format!(
            "{KERNEL}kernel void w(global int *a, int n) {{ int unused; for (int i = 0; i < n; i++) {{ int v = a[i]; if (v > 3) {{ int v = i * 2; a[i] = v; }} }} }}\n"
        );
        let clang_args = args(&[
            "-c",
            "-target",
            "spir64",
            "-emit-llvm",
            "-fno-discard-value-names",
            "-cl-std=CL2.0",
            "-Wunused-variable",
            "-O2",
            "-Xclang",
            "-disable-llvm-passes",
            "-o",
            "program.bc",
            "program.cl",
        ]);
        let layout = format!(
            "--data-layout={}",
            super::super::translate::SPIR64_LAYOUT_WITH_NATIVE_INTS
        );
        let opt_args = |passes: &str| {
            args(&[
                &layout,
                "-indvars-widen-indvars=false",
                passes,
                "program.bc",
                "-o",
                "program.opt.bc",
            ])
        };
        let spirv_args = args(&[
            "--preserve-ocl-kernel-arg-type-metadata-through-string",
            "program.opt.bc",
            "-o",
            "program.spv",
        ]);
        let programs = [tools.clang.as_path(), opt.as_path(), tools.llvm_spirv.as_path()];
        // One by one.
        let dir = scratch("steps");
        std::fs::write(dir.join("program.cl"), &source).unwrap();
        let clang = through_server(Tool::Clang, &tools.clang, &dir, &clang_args).expect("the server answers");
        assert!(clang.status.success(), "{}", String::from_utf8_lossy(&clang.stderr));
        let warning = String::from_utf8_lossy(&clang.stderr).into_owned();
        assert!(warning.contains("unused"), "{warning}");
        let o = through_server(Tool::Opt, opt, &dir, &opt_args("-passes=default<O2>")).unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s = through_server(Tool::LlvmSpirv, &tools.llvm_spirv, &dir, &spirv_args).unwrap();
        assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
        let expected = std::fs::read(dir.join("program.spv")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // In one request.
        let dir = scratch("pipeline");
        std::fs::write(dir.join("program.cl"), &source).unwrap();
        let opt_o2 = opt_args("-passes=default<O2>");
        match run_pipeline(programs, &dir, [&clang_args, &opt_o2, &spirv_args]) {
            Some(Pipelined::Done { log, ms }) => {
                assert_eq!(String::from_utf8_lossy(&log), warning);
                assert!(ms.iter().all(|t| *t >= 0.0));
            }
            Some(Pipelined::ClangFailed(out)) => panic!("{}", String::from_utf8_lossy(&out.stderr)),
            None => panic!("the pipeline request failed"),
        }
        assert!(
            std::fs::read(dir.join("program.spv")).unwrap() == expected,
            "the pipeline's SPIR-V differs from the steps'"
        );
        assert!(!dir.join("program.bc").exists() && !dir.join("program.opt.bc").exists());
        // A clang error: clang's status and message.
        std::fs::write(
            dir.join("program.cl"),
            "kernel void k(global int *a) { a[0] = undeclared; }\n",
        )
        .unwrap();
        match run_pipeline(programs, &dir, [&clang_args, &opt_o2, &spirv_args]) {
            Some(Pipelined::ClangFailed(out)) => {
                assert_eq!(out.status.code(), Some(1));
                let text = String::from_utf8_lossy(&out.stderr).into_owned();
                assert!(text.contains("program.cl:1:") && text.contains("undeclared"), "{text}");
            }
            _ => panic!("a clang error is clang's failure"),
        }
        // A failing step: an unknown pass; a crashing step: llvm-spirv on inline assembly.
        std::fs::write(dir.join("program.cl"), &source).unwrap();
        let bad_pass = opt_args("-passes=no-such-pass");
        assert!(run_pipeline(programs, &dir, [&clang_args, &bad_pass, &spirv_args]).is_none());
        std::fs::write(
            dir.join("program.cl"),
            "kernel void k(global int *a) { int v; __asm__(\"nop\" : \"=r\"(v)); a[0] = v; }\n",
        )
        .unwrap();
        assert!(run_pipeline(programs, &dir, [&clang_args, &opt_o2, &spirv_args]).is_none());
        // The next request is served as the first was.
        std::fs::write(dir.join("program.cl"), &source).unwrap();
        assert!(matches!(
            run_pipeline(programs, &dir, [&clang_args, &opt_o2, &spirv_args]),
            Some(Pipelined::Done { .. })
        ));
        assert!(std::fs::read(dir.join("program.spv")).unwrap() == expected);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
