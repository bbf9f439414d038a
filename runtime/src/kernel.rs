//! Kernel objects (API section 5.9): a compiled kernel of a built program and the argument
//! values set on it.
//!
//! A memory object set as an argument is held weakly: the kernel does not keep it alive, so
//! `clReleaseMemObject` of the application's last reference destroys it (and runs its
//! destructor callbacks) while the kernel lives on. A launch takes strong references of its own
//! (`BoundArgs::buffers`) that last until the command ends.

use crate::memory::{Mem, Storage};
use crate::object::{ClObject, Header, Kind};
use crate::program::Program;
use jit::abi::KernelArg;
use jit::codegen;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// One argument's value as set by clSetKernelArg.
#[derive(Clone)]
pub enum ArgValue {
    /// Bytes of a by-value argument (also a NULL pointer: zero bytes of address).
    Bytes(Vec<u8>),
    /// A buffer (or NULL) for a global/constant pointer.
    Buffer(Option<Weak<Mem>>),
    /// The size of a `__local` argument.
    Local(usize),
    /// An image memory object.
    Image(Weak<Mem>),
    /// A sampler's `sampler_t` bits (`Sampler::bits`).
    Sampler(u32),
    /// An SVM pointer (clSetKernelArgSVMPointer): an address inside a `clSVMAlloc`
    /// allocation, or any host address under fine-grain system SVM.
    Svm(usize),
}

#[repr(C)]
pub struct Kernel {
    header: Header,
    pub program: Arc<Program>,
    pub compiled: Arc<codegen::Kernel>,
    args: Mutex<Vec<Option<ArgValue>>>,
    /// `CL_KERNEL_EXEC_INFO_SVM_PTRS`: SVM allocations the kernel reaches other than through
    /// its arguments (held alive by each launch).
    svm_ptrs: Mutex<Vec<usize>>,
}

impl ClObject for Kernel {
    const KIND: Kind = Kind::Kernel;
    fn header(&self) -> &Header {
        &self.header
    }
}

/// The launch-ready form of a kernel's arguments: the argument block with every address and
/// local offset in place, and the memory objects it refers to (kept alive until the command
/// ends).
pub struct BoundArgs {
    pub block: Vec<u8>,
    /// Buffers and images.
    pub buffers: Vec<Arc<Mem>>,
    /// The SVM allocations of SVM pointer arguments and of `CL_KERNEL_EXEC_INFO_SVM_PTRS`
    /// (a `clSVMFree` while the launch runs gives their memory back only after it).
    pub svm: Vec<Arc<Storage>>,
    /// What the launch knows about each image and sampler argument (`variants`).
    pub facts: Vec<Option<codegen::ArgFact>>,
    /// Bytes of local memory the launch needs: static Workgroup variables, then the
    /// `__local` arguments.
    pub local_size: usize,
    /// Whether host threads may take part in the launch's atomics (`WorkGroupContext::
    /// host_shared`): it has SVM pointers (arguments or `CL_KERNEL_EXEC_INFO_SVM_PTRS`) or a
    /// buffer over SVM or `CL_MEM_USE_HOST_PTR` memory. The host can use no other memory
    /// while a kernel runs: a buffer's own storage only through a map, which the kernel must
    /// not write meanwhile, and a fine-grain system SVM pointer reaches a kernel only through
    /// its arguments or the SVM memory they point to (`CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM`).
    pub host_shared: bool,
}

/// `__local` arguments start at this alignment in the arena (the largest OpenCL type, long16).
const LOCAL_ALIGN: usize = 128;

impl Kernel {
    pub fn new(program: Arc<Program>, compiled: Arc<codegen::Kernel>) -> Kernel {
        program.kernels_attached.fetch_add(1, Ordering::AcqRel);
        let args = vec![None; compiled.args.len()];
        Kernel {
            header: Header::new(Kind::Kernel),
            program,
            compiled,
            args: Mutex::new(args),
            svm_ptrs: Mutex::new(Vec::new()),
        }
    }

    /// clCloneKernel: same kernel, same argument values.
    pub fn clone_kernel(&self) -> Kernel {
        let k = Kernel::new(self.program.clone(), self.compiled.clone());
        *k.lock() = self.lock().clone();
        *k.svm_ptrs.lock().unwrap_or_else(|e| e.into_inner()) = self.svm_ptrs();
        k
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Option<ArgValue>>> {
        self.args.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The compiled kernel to launch with `args`: a variant specialised for its images and
    /// samplers (`crate::variants`) or the program's.
    pub fn launch_kernel(&self, args: &BoundArgs) -> Arc<codegen::Kernel> {
        match self.program.variants() {
            Some(v) => v.pick(&self.compiled, &args.facts),
            None => self.compiled.clone(),
        }
    }

    pub fn name(&self) -> &str {
        &self.compiled.name
    }

    pub fn arg(&self, index: usize) -> Option<&KernelArg> {
        self.compiled.args.get(index)
    }

    pub fn set_arg(&self, index: usize, value: ArgValue) {
        if let Some(slot) = self.lock().get_mut(index) {
            *slot = Some(value);
        }
    }

    /// Sets `CL_KERNEL_EXEC_INFO_SVM_PTRS` (the whole set, replacing the previous one).
    pub fn set_svm_ptrs(&self, ptrs: Vec<usize>) {
        *self.svm_ptrs.lock().unwrap_or_else(|e| e.into_inner()) = ptrs;
    }

    pub fn svm_ptrs(&self) -> Vec<usize> {
        self.svm_ptrs.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The local memory the kernel uses with its current arguments
    /// (`CL_KERNEL_LOCAL_MEM_SIZE`).
    pub fn local_mem_size(&self) -> usize {
        let args = self.lock();
        let mut size = self.compiled.static_local_size;
        for v in args.iter().flatten() {
            if let ArgValue::Local(n) = v {
                size = size.next_multiple_of(LOCAL_ALIGN) + n;
            }
        }
        size
    }

    /// Lays the arguments out for a launch; `None` when an argument was never set, or is a
    /// memory object the application has released since (CL_INVALID_KERNEL_ARGS: its value
    /// is gone).
    pub fn bind(&self) -> Option<BoundArgs> {
        let args = self.lock();
        let mut block = vec![0u8; self.compiled.args_size];
        let mut buffers = Vec::new();
        let mut local = self.compiled.static_local_size;
        let mut svm = self.svm_ptrs();
        // Robust mode: the bounds (first byte, bytes) of the memory each argument names.
        let mut ranges: Vec<(usize, u64, u64)> = Vec::new();
        let mut facts = vec![None; args.len()];
        for (k, (desc, value)) in self.compiled.args.iter().zip(args.iter()).enumerate() {
            let at = desc.offset;
            let mut bounds = |lo: u64, size: u64| ranges.push((k, lo, size));
            match value.as_ref()? {
                ArgValue::Bytes(bytes) => {
                    let n = bytes.len().min(desc.size);
                    block[at..at + n].copy_from_slice(&bytes[..n]);
                }
                ArgValue::Buffer(mem) => {
                    let mem = match mem {
                        Some(weak) => Some(live(weak)?),
                        None => None,
                    };
                    let address = mem.as_ref().map_or(0, |m| m.base() as u64);
                    // NULL: nothing is in range.
                    bounds(address, mem.as_ref().map_or(0, |m| m.size as u64));
                    block[at..at + 8].copy_from_slice(&address.to_ne_bytes());
                    buffers.extend(mem);
                }
                ArgValue::Local(n) => {
                    let offset = local.next_multiple_of(LOCAL_ALIGN);
                    bounds(offset as u64, *n as u64);
                    block[at..at + 8].copy_from_slice(&(offset as u64).to_ne_bytes());
                    local = offset + n;
                }
                // The address of the image's ImageDesc, which lives as long as the image
                // (kept alive below).
                ArgValue::Image(mem) => {
                    let mem = live(mem)?;
                    let address = mem.image.as_ref().map_or(0, |i| i.desc_address());
                    facts[k] = mem.image.as_ref().and_then(|i| codegen::image_fact(i.desc()));
                    block[at..at + 8].copy_from_slice(&address.to_ne_bytes());
                    buffers.push(mem);
                }
                ArgValue::Sampler(bits) => {
                    facts[k] = Some(codegen::ArgFact::Sampler(*bits));
                    block[at..at + 8].copy_from_slice(&u64::from(*bits).to_ne_bytes());
                }
                ArgValue::Svm(address) => {
                    // The clSVMAlloc allocation the pointer is in; any other address (fine-
                    // grain system SVM: the application's own memory) is not checked.
                    match crate::svm::find(*address) {
                        Some(a) => bounds(a.start() as u64, a.size as u64),
                        None => bounds(0, u64::MAX),
                    }
                    block[at..at + 8].copy_from_slice(&(*address as u64).to_ne_bytes());
                    svm.push(*address);
                }
            }
        }
        if let Some(t) = self.compiled.robust_tail {
            for (k, lo, size) in ranges {
                let at = t + 16 * k;
                block[at..at + 8].copy_from_slice(&lo.to_ne_bytes());
                block[at + 8..at + 16].copy_from_slice(&size.to_ne_bytes());
            }
        }
        let host_shared = !svm.is_empty() || buffers.iter().any(|m| m.host_may_share());
        Some(BoundArgs {
            block,
            buffers,
            svm: crate::svm::hold(svm),
            facts,
            local_size: local,
            host_shared,
        })
    }
}

/// A memory object argument the application still holds: a strong reference for the launch,
/// or `None` once its application count reached zero (it may outlive that in a command that
/// is still running, but the application can no longer name it).
fn live(mem: &Weak<Mem>) -> Option<Arc<Mem>> {
    mem.upgrade().filter(|m| m.header().ref_count() > 0)
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.kernels_attached.fetch_sub(1, Ordering::AcqRel);
    }
}
