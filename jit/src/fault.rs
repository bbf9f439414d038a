//! Fault containment: a hardware fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) raised by JIT-compiled
//! kernel code ends the call into that code, not the process.
//!
//! In the spirit of wasmtime's traps: the JIT memory provider registers the address range of
//! every program's executable code ([`CodeArena`]); every call into kernel code goes through
//! [`guarded`], a small assembly trampoline that saves the callee-saved registers and its stack
//! pointer in a per-call [`Frame`] that the thread-local `CURRENT` points to. The signal handler
//! looks at the faulting instruction: inside registered JIT code on a thread with a current
//! frame, it records the fault and rewrites the interrupted context so that returning from the
//! handler lands in the trampoline's epilogue with the saved stack pointer, which restores the
//! registers and returns "faulted" to its caller. Only JIT frames (no Rust frame, so no
//! destructor) lie between the trampoline and the faulting instruction; the kernel's
//! `sigreturn` restores the signal mask. Every other signal goes to the handler that was
//! installed before Clift's (SA_SIGINFO or plain); the default action is restored and the
//! fault re-executed where there was none.
//!
//! Runtime helpers that touch memory a kernel names (async copies, `printf("%s")`, pipe
//! packets) do so through [`kernel_copy`] and [`kernel_strnlen`], small assembly routines
//! whose faults count as the kernel's own: the handler resumes at the trampoline as for JIT
//! code, skipping the helper's Rust frames, which therefore hold no lock and nothing whose
//! destructor matters while they call them (what they allocated is leaked).
//!
//! Only x86-64 Linux has the trampoline; elsewhere [`guarded`] calls the code directly and a
//! fault ends the process as before.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What went wrong in a kernel: the signal, the address it names (`si_addr`: the faulting
/// data address for SIGSEGV/SIGBUS, the instruction for SIGFPE/SIGILL) and the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub signal: i32,
    /// `si_code`: for SIGSEGV, `SI_KERNEL` marks a general-protection fault (a non-canonical
    /// address on x86-64), for which the CPU reports no address.
    pub code: i32,
    pub address: usize,
    pub pc: usize,
}

impl Fault {
    /// The signal's name and what it means for a kernel.
    /// Whether the call was stopped by [`interrupt`] rather than by a fault of its own.
    pub fn interrupted(&self) -> bool {
        self.signal == INTERRUPT
    }

    /// Whether `address` is the faulting address (not a general-protection fault).
    pub fn address_known(&self) -> bool {
        !(self.signal == libc::SIGSEGV && self.code == libc::SI_KERNEL)
    }

    pub fn kind(&self) -> &'static str {
        match self.signal {
            libc::SIGSEGV => "SIGSEGV (invalid memory access)",
            libc::SIGBUS => "SIGBUS (bus error)",
            libc::SIGFPE => "SIGFPE (arithmetic fault)",
            libc::SIGILL => "SIGILL (illegal instruction)",
            INTERRUPT => "stopped",
            _ => "signal",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.interrupted() {
            write!(f, "stopped")?;
        } else if self.address_known() {
            write!(f, "{} at address {:#x}", self.kind(), self.address)?;
        } else {
            write!(
                f,
                "{} at a non-canonical address (not reported by the CPU)",
                self.kind()
            )?;
        }
        write!(f, " (instruction {:#x})", self.pc)
    }
}

/// The state of one guarded call: the stack pointer to resume at, and the fault if one came.
/// Fibers keep one each (a fiber suspended in kernel code keeps its frame while others run).
#[repr(C)]
#[derive(Default)]
pub struct Frame {
    /// Written by the trampoline: the stack pointer of its epilogue.
    sp: usize,
    signal: i32,
    code: i32,
    address: usize,
    pc: usize,
}

impl Frame {
    pub fn new() -> Frame {
        Frame::default()
    }
}

thread_local! {
    /// The frame of the guarded call this thread is in (null: none). Const-initialized and
    /// without destructor: the signal handler may read it.
    static CURRENT: Cell<*mut Frame> = const { Cell::new(std::ptr::null_mut()) };
}

thread_local! {
    /// The flag that, once set, lets [`interrupt`] stop this thread's kernel code (null: none).
    static CANCEL: Cell<*const AtomicBool> = const { Cell::new(std::ptr::null()) };
}

/// The signal [`interrupt`] sends: SIGURG, whose default action is to ignore it (as Go's
/// runtime preemption chose), so a stray one harms nothing.
pub const INTERRUPT: i32 = libc::SIGURG;

/// Sets the flag under which this thread's kernel code may be stopped (null: none), returning
/// the previous one.
pub fn set_cancel_flag(flag: *const AtomicBool) -> *const AtomicBool {
    CANCEL.with(|c| c.replace(flag))
}

/// Asks `thread` to stop the kernel code it runs: if it is inside JIT code under a set cancel
/// flag, its guarded call ends with a [`Fault`] that is [`Fault::interrupted`]; anywhere else
/// the signal is ignored, and the caller tries again later.
pub fn interrupt(thread: libc::pthread_t) {
    imp::install();
    // SAFETY: `thread` is a live thread of this process (the caller's promise); SIGURG has a
    // handler (installed above), or is ignored.
    unsafe { libc::pthread_kill(thread, INTERRUPT) };
}

/// Makes `frame` this thread's current frame, returning the previous one: a fiber driver
/// switches frames as it switches fibers.
pub fn set_current(frame: *mut Frame) -> *mut Frame {
    CURRENT.with(|c| c.replace(frame))
}

/// Calls compiled code `f(a, b, c)` (an `extern "C"` function of up to three pointer-sized
/// arguments) under `frame`; a hardware fault inside JIT code ends the call with `Err`.
///
/// # Safety
/// `f` must be JIT code whose arguments are `a`, `b`, `c` (extra arguments are ignored by the
/// C calling convention); `frame` must stay valid until the call returns.
pub unsafe fn guarded(frame: *mut Frame, f: usize, a: usize, b: usize, c: usize) -> Result<(), Fault> {
    // SAFETY: as the caller promised.
    unsafe { guarded_each(frame, f, |i| (i == 0).then_some((a, b, c))) }
}

/// As [`guarded`] for a run of calls of `f`: call `i` gets the arguments `next(i)` gives, and
/// the run ends when `next` gives `None` or a call faults. The thread's fault state is set up
/// once for the whole run (work-groups of one or a few work-items are common, and then the
/// per-call set-up would cost more than the call).
///
/// # Safety
/// As [`guarded`], for every call; `next` runs between the calls, outside JIT code.
pub unsafe fn guarded_each(
    frame: *mut Frame,
    f: usize,
    mut next: impl FnMut(usize) -> Option<(usize, usize, usize)>,
) -> Result<(), Fault> {
    /// Restores the previous frame however the run ends (a panic in `next` included), so the
    /// thread never keeps a frame that is gone.
    struct Restore(*mut Frame);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_current(self.0);
        }
    }
    imp::prepare_thread();
    let _restore = Restore(set_current(frame));
    let mut i = 0;
    while let Some((a, b, c)) = next(i) {
        // SAFETY: as the caller promised; the trampoline preserves the callee-saved registers.
        if unsafe { imp::call(f, a, b, c, frame) } != 0 {
            // SAFETY: the handler filled the frame before resuming here.
            let fr = unsafe { &*frame };
            return Err(Fault {
                signal: fr.signal,
                code: fr.code,
                address: fr.address,
                pc: fr.pc,
            });
        }
        i += 1;
    }
    Ok(())
}

/// Whether faults in JIT code are contained on this platform.
pub const SUPPORTED: bool = cfg!(all(target_arch = "x86_64", target_os = "linux"));

// ---------------------------------------------------------------------------------------------
// The registry of JIT code ranges, read lock-free by the signal handler.

const SLOTS: usize = 4096;

struct Slot {
    /// 0: free; usize::MAX: being filled or emptied.
    start: AtomicUsize,
    end: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
};
static RANGES: [Slot; SLOTS] = [FREE; SLOTS];
/// One past the highest slot ever used: the handler scans no further.
static USED: AtomicUsize = AtomicUsize::new(0);

/// Registers `[start, end)` as JIT code; `None` when every slot is taken (that code then runs
/// without containment).
/// Copies `len` bytes from `src` to `dst` (overlapping ranges as `memmove`), where one of them
/// is memory a kernel named: a fault ends the kernel's call as a fault in its own code would.
///
/// # Safety
/// Called from a runtime helper that JIT code called, holding nothing that must be released.
pub unsafe fn kernel_copy(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: as the caller promised.
    unsafe { imp::copy(dst, src, len) }
}

/// The length of the NUL-terminated string at `p`, at most `max`, `p` being memory a kernel
/// named: a fault ends the kernel's call as in [`kernel_copy`].
///
/// # Safety
/// As [`kernel_copy`].
pub unsafe fn kernel_strnlen(p: *const u8, max: usize) -> usize {
    // SAFETY: as the caller promised.
    unsafe { imp::strnlen(p, max) }
}

fn register(start: usize, end: usize) -> Option<usize> {
    if start == 0 || start >= end || end == usize::MAX {
        return None;
    }
    imp::install();
    for (i, slot) in RANGES.iter().enumerate() {
        if slot
            .start
            .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            slot.end.store(end, Ordering::Release);
            slot.start.store(start, Ordering::Release);
            USED.fetch_max(i + 1, Ordering::AcqRel);
            return Some(i);
        }
    }
    None
}

fn unregister(i: usize) {
    let slot = &RANGES[i];
    slot.start.store(usize::MAX, Ordering::Release);
    slot.end.store(0, Ordering::Release);
    slot.start.store(0, Ordering::Release);
}

/// Whether `pc` lies in registered JIT code. Async-signal-safe.
fn in_jit_code(pc: usize) -> bool {
    let used = USED.load(Ordering::Acquire).min(SLOTS);
    RANGES[..used].iter().any(|slot| {
        let start = slot.start.load(Ordering::Acquire);
        start != 0 && start != usize::MAX && pc >= start && pc < slot.end.load(Ordering::Acquire)
    })
}

/// The JIT memory of one program: Cranelift's arena, with the span of its executable
/// allocations registered as JIT code from the first finalization until the memory is freed.
pub struct CodeArena {
    inner: cranelift_jit::ArenaMemoryProvider,
    lo: usize,
    hi: usize,
    slot: Option<usize>,
}

impl CodeArena {
    pub fn new(inner: cranelift_jit::ArenaMemoryProvider) -> CodeArena {
        CodeArena {
            inner,
            lo: usize::MAX,
            hi: 0,
            slot: None,
        }
    }

    fn release(&mut self) {
        if let Some(i) = self.slot.take() {
            unregister(i);
        }
    }
}

impl cranelift_jit::JITMemoryProvider for CodeArena {
    fn allocate(&mut self, size: usize, align: u64, kind: cranelift_jit::JITMemoryKind) -> std::io::Result<*mut u8> {
        let exec = matches!(kind, cranelift_jit::JITMemoryKind::Executable);
        let p = self.inner.allocate(size, align, kind)?;
        if exec {
            self.lo = self.lo.min(p as usize);
            self.hi = self.hi.max(p as usize + size);
        }
        Ok(p)
    }

    unsafe fn free_memory(&mut self) {
        self.release();
        // SAFETY: as the caller promised.
        unsafe { self.inner.free_memory() }
    }

    fn finalize(&mut self, branch_protection: cranelift_jit::BranchProtection) -> cranelift_module::ModuleResult<()> {
        self.inner.finalize(branch_protection)?;
        if self.lo < self.hi {
            // A later finalization may have added code: register the new span.
            self.release();
            self.slot = register(self.lo, self.hi);
        }
        Ok(())
    }
}

impl Drop for CodeArena {
    fn drop(&mut self) {
        self.release();
    }
}

// ---------------------------------------------------------------------------------------------
// The trampoline and the signal handler.

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod imp {
    use super::{in_jit_code, Frame, CANCEL, CURRENT, INTERRUPT};
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::sync::atomic::Ordering;
    use std::sync::OnceLock;

    // clift_guarded_call(f, a, b, c, frame) -> u32: saves the callee-saved registers, stores
    // its stack pointer in frame.sp, calls f(a, b, c) and returns 0. The signal handler resumes
    // a faulted call at clift_guarded_resume with that stack pointer and eax = 1.
    std::arch::global_asm!(
        ".text",
        ".p2align 4",
        ".globl clift_guarded_call",
        ".hidden clift_guarded_call",
        ".type clift_guarded_call,@function",
        "clift_guarded_call:",
        ".cfi_startproc",
        "push rbp",
        ".cfi_def_cfa_offset 16",
        ".cfi_offset rbp, -16",
        "mov rbp, rsp",
        ".cfi_def_cfa_register rbp",
        "push rbx",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        ".cfi_offset rbx, -24",
        ".cfi_offset r12, -32",
        ".cfi_offset r13, -40",
        ".cfi_offset r14, -48",
        ".cfi_offset r15, -56",
        "sub rsp, 8",
        "mov [r8], rsp",
        "mov rax, rdi",
        "mov rdi, rsi",
        "mov rsi, rdx",
        "mov rdx, rcx",
        "call rax",
        "xor eax, eax",
        ".globl clift_guarded_resume",
        ".hidden clift_guarded_resume",
        "clift_guarded_resume:",
        "add rsp, 8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        ".cfi_def_cfa rsp, 8",
        "ret",
        ".cfi_endproc",
        ".size clift_guarded_call, . - clift_guarded_call",
    );

    unsafe extern "C" {
        fn clift_guarded_call(f: usize, a: usize, b: usize, c: usize, frame: *mut Frame) -> u32;
        fn clift_guarded_resume();
    }

    // clift_kernel_copy(dst, src, len): memmove (forward with `rep movsb` from 64 bytes, in
    // 8-byte and then single-byte moves below that, where `rep movsb`'s start-up dominates;
    // backward byte by byte where the destination overlaps the source's end; each 8-byte
    // move reads before it writes, so a forward copy to a lower overlapping address is
    // right). clift_kernel_strnlen(p, max).
    // Both touch only memory and registers, so the handler may resume at the trampoline from
    // any of their instructions; clift_kernel_access_end marks their end.
    std::arch::global_asm!(
        ".text",
        ".p2align 4",
        ".globl clift_kernel_copy",
        ".hidden clift_kernel_copy",
        ".type clift_kernel_copy,@function",
        "clift_kernel_copy:",
        "cmp rdi, rsi",
        "jbe .Lclift_copy_forward",
        "lea rax, [rsi + rdx]",
        "cmp rdi, rax",
        "jae .Lclift_copy_forward",
        ".Lclift_copy_backward:",
        "test rdx, rdx",
        "jz .Lclift_copy_done",
        "dec rdx",
        "mov al, [rsi + rdx]",
        "mov [rdi + rdx], al",
        "jmp .Lclift_copy_backward",
        ".Lclift_copy_forward:",
        "cmp rdx, 64",
        "jae .Lclift_copy_rep",
        ".Lclift_copy_words:",
        "cmp rdx, 8",
        "jb .Lclift_copy_bytes",
        "mov rax, [rsi]",
        "mov [rdi], rax",
        "add rsi, 8",
        "add rdi, 8",
        "sub rdx, 8",
        "jmp .Lclift_copy_words",
        ".Lclift_copy_bytes:",
        "test rdx, rdx",
        "jz .Lclift_copy_done",
        "mov al, [rsi]",
        "mov [rdi], al",
        "inc rsi",
        "inc rdi",
        "dec rdx",
        "jmp .Lclift_copy_bytes",
        ".Lclift_copy_rep:",
        "mov rcx, rdx",
        "rep movsb",
        ".Lclift_copy_done:",
        "ret",
        ".size clift_kernel_copy, . - clift_kernel_copy",
        ".globl clift_kernel_strnlen",
        ".hidden clift_kernel_strnlen",
        ".type clift_kernel_strnlen,@function",
        "clift_kernel_strnlen:",
        "xor eax, eax",
        ".Lclift_strnlen_loop:",
        "cmp rax, rsi",
        "jae .Lclift_strnlen_done",
        "cmp byte ptr [rdi + rax], 0",
        "je .Lclift_strnlen_done",
        "inc rax",
        "jmp .Lclift_strnlen_loop",
        ".Lclift_strnlen_done:",
        "ret",
        ".size clift_kernel_strnlen, . - clift_kernel_strnlen",
        ".globl clift_kernel_access_end",
        ".hidden clift_kernel_access_end",
        "clift_kernel_access_end:",
        "ud2",
    );

    unsafe extern "C" {
        fn clift_kernel_copy(dst: *mut u8, src: *const u8, len: usize);
        fn clift_kernel_strnlen(p: *const u8, max: usize) -> usize;
        fn clift_kernel_access_end();
    }

    pub(super) unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as `kernel_copy`'s caller promised.
        unsafe { clift_kernel_copy(dst, src, len) }
    }

    pub(super) unsafe fn strnlen(p: *const u8, max: usize) -> usize {
        // SAFETY: as `kernel_strnlen`'s caller promised.
        unsafe { clift_kernel_strnlen(p, max) }
    }

    /// Whether `pc` lies in `clift_kernel_copy` or `clift_kernel_strnlen`.
    fn in_kernel_access(pc: usize) -> bool {
        pc >= clift_kernel_copy as *const () as usize && pc < clift_kernel_access_end as *const () as usize
    }

    pub(super) unsafe fn call(f: usize, a: usize, b: usize, c: usize, frame: *mut Frame) -> u32 {
        // SAFETY: as `guarded`'s caller promised.
        unsafe { clift_guarded_call(f, a, b, c, frame) }
    }

    const SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, INTERRUPT];

    /// The handlers that were installed before Clift's, one per entry of `SIGNALS`.
    static PREVIOUS: OnceLock<[libc::sigaction; 5]> = OnceLock::new();
    static INSTALLED: OnceLock<()> = OnceLock::new();

    /// Installs Clift's handler for the fault signals (once per process), keeping the
    /// previous ones to chain to. They are recorded first, so that a signal arriving while
    /// Clift's handlers go in already finds them.
    pub(super) fn install() {
        INSTALLED.get_or_init(|| {
            // SAFETY: plain sigaction calls with valid structures.
            unsafe {
                PREVIOUS.get_or_init(|| {
                    let mut prev: [libc::sigaction; 5] = std::mem::zeroed();
                    for (i, &sig) in SIGNALS.iter().enumerate() {
                        libc::sigaction(sig, std::ptr::null(), &mut prev[i]);
                    }
                    prev
                });
                for &sig in &SIGNALS {
                    let mut act: libc::sigaction = std::mem::zeroed();
                    act.sa_sigaction = on_signal as *const () as usize;
                    act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
                    libc::sigemptyset(&mut act.sa_mask);
                    libc::sigaction(sig, &act, std::ptr::null_mut());
                }
            }
        });
    }

    unsafe extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
        // SAFETY: the kernel hands a valid siginfo and ucontext to an SA_SIGINFO handler.
        unsafe {
            let uc = &mut *(ctx as *mut libc::ucontext_t);
            let pc = uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize;
            // Only a thread running JIT code reads its thread-locals: its TLS is set up.
            if !info.is_null() && (in_jit_code(pc) || in_kernel_access(pc)) {
                let frame = CURRENT.with(|c| c.get());
                let stop = sig != INTERRUPT || {
                    let flag = CANCEL.with(|c| c.get());
                    !flag.is_null() && (*flag).load(Ordering::Acquire)
                };
                if !frame.is_null() && stop {
                    let fr = &mut *frame;
                    fr.signal = sig;
                    fr.code = (*info).si_code;
                    fr.address = (*info).si_addr() as usize;
                    fr.pc = pc;
                    uc.uc_mcontext.gregs[libc::REG_RSP as usize] = fr.sp as i64;
                    uc.uc_mcontext.gregs[libc::REG_RIP as usize] = clift_guarded_resume as *const () as usize as i64;
                    uc.uc_mcontext.gregs[libc::REG_RAX as usize] = 1;
                    return;
                }
            }
            if sig == INTERRUPT
                && !info.is_null()
                && (*info).si_code == libc::SI_TKILL
                && (*info).si_pid() == libc::getpid()
            {
                // An interrupt that came outside kernel code (in a helper, or after the call
                // ended): ignored; the sender tries again if it still must.
                return;
            }
            chain(sig, info, ctx);
        }
    }

    /// Hands a signal that is not a kernel's fault to the handler installed before Clift's.
    unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
        let Some(i) = SIGNALS.iter().position(|&s| s == sig) else {
            return;
        };
        let handler = PREVIOUS.get().map_or(libc::SIG_DFL, |p| p[i].sa_sigaction);
        let siginfo = PREVIOUS.get().is_some_and(|p| p[i].sa_flags & libc::SA_SIGINFO != 0);
        // SAFETY: the previous handler was installed for this signal by the application.
        unsafe {
            if sig == INTERRUPT && (handler == libc::SIG_DFL || handler == libc::SIG_IGN) {
                // SIGURG's default action is to ignore it.
            } else if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
                // Restore the default action; returning re-executes the faulting instruction,
                // which then ends the process as if Clift were not there. A signal sent with
                // kill() or raise() does not come again by itself: send it once more.
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigemptyset(&mut dfl.sa_mask);
                libc::sigaction(sig, &dfl, std::ptr::null_mut());
                if info.is_null() || (*info).si_code <= 0 {
                    libc::raise(sig);
                }
            } else if siginfo {
                let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                    std::mem::transmute(handler);
                f(sig, info, ctx);
            } else {
                let f: unsafe extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                f(sig);
            }
        }
    }

    /// Bytes of the alternate signal stack Clift gives a thread that runs kernels and has none
    /// (the handler must run even when a kernel overflowed its stack).
    const ALT_STACK: usize = 64 << 10;

    /// An alternate signal stack installed by Clift; removed again when the thread ends.
    struct AltStack {
        base: *mut c_void,
        size: usize,
    }

    impl Drop for AltStack {
        fn drop(&mut self) {
            // SAFETY: the mapping is ours; it is only disabled if it is still the thread's.
            unsafe {
                let mut cur: libc::stack_t = std::mem::zeroed();
                if libc::sigaltstack(std::ptr::null(), &mut cur) == 0 && cur.ss_sp == self.base {
                    let off = libc::stack_t {
                        ss_sp: std::ptr::null_mut(),
                        ss_flags: libc::SS_DISABLE,
                        ss_size: 0,
                    };
                    libc::sigaltstack(&off, std::ptr::null_mut());
                    libc::munmap(self.base, self.size);
                }
            }
        }
    }

    thread_local! {
        static PREPARED: Cell<bool> = const { Cell::new(false) };
        static ALT: Cell<Option<AltStack>> = const { Cell::new(None) };
    }

    /// Gives the calling thread an alternate signal stack if it has none.
    pub(super) fn prepare_thread() {
        if PREPARED.with(|p| p.replace(true)) {
            return;
        }
        install();
        // SAFETY: sigaltstack/mmap with valid arguments; the stack is kept until thread exit.
        unsafe {
            let mut cur: libc::stack_t = std::mem::zeroed();
            if libc::sigaltstack(std::ptr::null(), &mut cur) != 0 || cur.ss_flags & libc::SS_DISABLE == 0 {
                return;
            }
            let base = libc::mmap(
                std::ptr::null_mut(),
                ALT_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return;
            }
            let st = libc::stack_t {
                ss_sp: base,
                ss_flags: 0,
                ss_size: ALT_STACK,
            };
            if libc::sigaltstack(&st, std::ptr::null_mut()) != 0 {
                libc::munmap(base, ALT_STACK);
                return;
            }
            ALT.with(|a| a.set(Some(AltStack { base, size: ALT_STACK })));
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod imp {
    use super::Frame;

    pub(super) unsafe fn call(f: usize, a: usize, b: usize, c: usize, _frame: *mut Frame) -> u32 {
        // SAFETY: as `guarded`'s caller promised.
        unsafe {
            let f: unsafe extern "C" fn(usize, usize, usize) = std::mem::transmute(f);
            f(a, b, c);
        }
        0
    }

    pub(super) fn install() {}

    pub(super) fn prepare_thread() {}

    pub(super) unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as `kernel_copy`'s caller promised.
        unsafe { std::ptr::copy(src, dst, len) }
    }

    pub(super) unsafe fn strnlen(p: *const u8, max: usize) -> usize {
        // SAFETY: as `kernel_strnlen`'s caller promised.
        unsafe { (0..max).find(|&i| *p.add(i) == 0).unwrap_or(max) }
    }
}

#[cfg(all(test, target_arch = "x86_64", target_os = "linux"))]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData};
    use cranelift_codegen::settings::{self, Configurable};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
    use cranelift_module::{Linkage, Module};

    /// `kernel_copy` is `memmove` (both overlap directions, empty copies); `kernel_strnlen`
    /// stops at the NUL or at its bound.
    #[test]
    fn kernel_copy_and_strnlen_outside_faults() {
        let pattern: Vec<u8> = (0..256u32).map(|i| (i * 7) as u8).collect();
        for (from, to, len) in [
            (1, 130, 7),
            (3, 100, 13),
            (100, 3, 77),
            (2, 1, 200),
            (0, 64, 128),
            (64, 0, 128),
            (9, 11, 200),
            (0usize, 8usize, 40usize),
            (8, 0, 40),
            (0, 32, 32),
            (5, 6, 0),
            (3, 3, 10),
        ] {
            let mut want = pattern.clone();
            want.copy_within(from..from + len, to);
            let mut got = pattern.clone();
            let p = got.as_mut_ptr();
            // SAFETY: both ranges lie inside `got`.
            unsafe { kernel_copy(p.add(to), p.add(from), len) };
            assert_eq!(got, want, "{from} -> {to}, {len} bytes");
        }
        let text = b"kernel\0tail";
        // SAFETY: every read stays inside `text`.
        unsafe {
            assert_eq!(kernel_strnlen(text.as_ptr(), 100), 6);
            assert_eq!(kernel_strnlen(text.as_ptr(), 4), 4);
            assert_eq!(kernel_strnlen(text.as_ptr().add(6), 4), 0);
        }
    }

    /// A JIT module holding `fn(p: *mut i64, x: i64, y: i64)`: `*p = x / y` (signed: the
    /// hardware division, no guard), `fn(p, x, y)`: `*(p + x * 8) = y`, and `fn(p, x, y)`:
    /// `loop {}`.
    fn build() -> (JITModule, usize, usize, usize) {
        let mut flags = settings::builder();
        flags.set("opt_level", "none").unwrap();
        let isa = cranelift_native::builder()
            .unwrap()
            .finish(settings::Flags::new(flags))
            .unwrap();
        let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        jb.memory_provider(Box::new(CodeArena::new(
            ArenaMemoryProvider::new_with_size(1 << 20).unwrap(),
        )));
        let mut jit = JITModule::new(jb);
        let mut sig = jit.make_signature();
        for _ in 0..3 {
            sig.params.push(AbiParam::new(types::I64));
        }
        let mut ids = Vec::new();
        for name in ["div", "store", "spin"] {
            let id = jit.declare_function(name, Linkage::Local, &sig).unwrap();
            let mut ctx = jit.make_context();
            ctx.func.signature = sig.clone();
            let mut fbc = FunctionBuilderContext::new();
            let cfg = jit.target_config();
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let block = b.create_block();
            b.append_block_params_for_function_params(block);
            b.switch_to_block(block);
            let [p, x, y] = b.block_params(block).try_into().unwrap();
            match name {
                "div" => {
                    let q = b.ins().sdiv(x, y);
                    b.ins().store(MemFlagsData::new(), q, p, 0);
                    b.ins().return_(&[]);
                }
                "store" => {
                    let off = b.ins().imul_imm_s(x, 8);
                    let a = b.ins().iadd(p, off);
                    b.ins().store(MemFlagsData::new(), y, a, 0);
                    b.ins().return_(&[]);
                }
                _ => {
                    let l = b.create_block();
                    b.ins().jump(l, &[]);
                    b.switch_to_block(l);
                    b.ins().jump(l, &[]);
                }
            }
            b.seal_all_blocks();
            b.finalize(cfg);
            jit.define_function(id, &mut ctx).unwrap();
            ids.push(id);
        }
        jit.finalize_definitions().unwrap();
        let div = jit.get_finalized_function(ids[0]) as usize;
        let store = jit.get_finalized_function(ids[1]) as usize;
        let spin = jit.get_finalized_function(ids[2]) as usize;
        (jit, div, store, spin)
    }

    fn call(f: usize, p: *mut i64, x: i64, y: i64) -> Result<(), Fault> {
        let mut frame = Frame::new();
        unsafe { guarded(&mut frame, f, p as usize, x as usize, y as usize) }
    }

    #[test]
    fn faults_in_jit_code_end_the_call() {
        let (jit, div, store, _) = build();
        let mut out = 0i64;
        assert_eq!(call(div, &mut out, 42, 5), Ok(()));
        assert_eq!(out, 8);
        // Null store.
        let e = call(store, std::ptr::null_mut(), 0, 1).unwrap_err();
        assert_eq!((e.signal, e.address), (libc::SIGSEGV, 0));
        assert!(in_jit_code(e.pc), "{e}");
        // An unmapped page: the address is reported.
        let e = call(store, 0x1000 as *mut i64, 3, 1).unwrap_err();
        assert_eq!((e.signal, e.address), (libc::SIGSEGV, 0x1018), "{e}");
        assert!(e.address_known());
        // 2^40 elements past a valid object: a non-canonical address, which x86-64 does not
        // report (general protection).
        let e = call(store, &mut out, 1 << 40, 1).unwrap_err();
        assert_eq!(e.signal, libc::SIGSEGV);
        assert!(!e.address_known(), "{e}");
        // The hardware's division faults: x86-64 raises #DE (SIGFPE) for both; Cranelift may
        // instead check and trap (SIGILL).
        for (x, y) in [(i64::MIN, -1), (1, 0)] {
            let e = call(div, &mut out, x, y).unwrap_err();
            assert!([libc::SIGFPE, libc::SIGILL].contains(&e.signal), "{e}");
        }
        // The thread keeps working, many times over.
        for i in 0..1000 {
            assert_eq!(call(div, &mut out, i * 3, 3), Ok(()));
            assert_eq!(out, i);
            assert!(call(store, std::ptr::null_mut(), i, 1).is_err());
        }
        unsafe { jit.free_memory() };
        assert!(!in_jit_code(div), "freed code is no longer registered");
    }

    #[test]
    fn faults_contained_on_many_threads_at_once() {
        let (jit, _, store, _) = build();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    let mut ok = 0i64;
                    for i in 0..200 {
                        assert!(call(store, std::ptr::null_mut(), i, 1).is_err());
                        assert_eq!(call(store, &mut ok, 0, i), Ok(()));
                        assert_eq!(ok, i);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        unsafe { jit.free_memory() };
    }

    /// A kernel that never ends is stopped by `interrupt` once its cancel flag is set, and only
    /// then.
    #[test]
    fn interrupt_stops_a_spinning_call() {
        let (jit, _, _, spin) = build();
        static FLAG: AtomicBool = AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            set_cancel_flag(&FLAG);
            tx.send(unsafe { libc::pthread_self() }).unwrap();
            call(spin, std::ptr::null_mut(), 0, 0)
        });
        let tid = rx.recv().unwrap();
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            interrupt(tid);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!t.is_finished(), "not stopped while the flag is clear");
        FLAG.store(true, Ordering::Release);
        while !t.is_finished() {
            interrupt(tid);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let e = t.join().unwrap().unwrap_err();
        assert!(e.interrupted(), "{e}");
        assert!(in_jit_code(e.pc));
        unsafe { jit.free_memory() };
    }
}
