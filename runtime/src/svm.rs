//! Shared virtual memory (API section 5.6). A CPU device shares the host's address space and
//! memory system, so every kind of SVM is the host's own memory: `clSVMAlloc` hands out
//! ordinary zeroed host memory (coarse- and fine-grain buffers alike), fine-grain **system**
//! SVM is any host pointer, and SVM atomics are the CPU's atomic instructions, which the host
//! and kernels share.
//!
//! What Clift keeps is a registry of the allocations made by `clSVMAlloc`: which context made
//! them, their size (a buffer created over one may not be larger), and their bytes behind an
//! `Arc`. Commands that use an allocation (kernel launches with SVM arguments or
//! `CL_KERNEL_EXEC_INFO_SVM_PTRS`, the SVM memory commands, buffers created over SVM) hold a
//! strong reference, so `clSVMFree` of memory that an enqueued command still uses is deferred
//! to the end of that command instead of being a use after free.

use crate::memory::Storage;
use opencl_sys::{
    cl_svm_mem_flags, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, CL_MEM_SVM_ATOMICS, CL_MEM_SVM_FINE_GRAIN_BUFFER,
    CL_MEM_WRITE_ONLY,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// One `clSVMAlloc` allocation.
pub struct Allocation {
    /// The bytes (shared with every command and buffer that uses them).
    pub storage: Arc<Storage>,
    /// The size the application asked for.
    pub size: usize,
    pub flags: cl_svm_mem_flags,
    /// The context that made it (its address: only compared, never dereferenced).
    pub context: usize,
}

impl Allocation {
    pub fn start(&self) -> usize {
        self.storage.ptr() as usize
    }

    /// True when `[ptr, ptr + len)` lies inside the allocation.
    pub fn contains(&self, ptr: usize, len: usize) -> bool {
        ptr >= self.start() && ptr.checked_add(len).is_some_and(|end| end <= self.start() + self.size)
    }
}

/// Every live allocation, by its first byte.
static REGISTRY: Mutex<BTreeMap<usize, Arc<Allocation>>> = Mutex::new(BTreeMap::new());

fn registry() -> MutexGuard<'static, BTreeMap<usize, Arc<Allocation>>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The largest alignment `clSVMAlloc` accepts: alignments are powers of two "up to the largest
/// data type supported" (long16, 128 bytes) by the letter of the spec; any power of two up to
/// a huge page is cheap to honour, so Clift accepts those too.
pub const MAX_ALIGNMENT: usize = 2 << 20;

/// The alignment of `clSVMAlloc` with `alignment` 0: the largest OpenCL data type (long16).
pub const DEFAULT_ALIGNMENT: usize = 128;

/// Why a `clSVMAlloc` request is refused (it returns NULL: the API has no error code for it;
/// the reason goes to the context's notification callback).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Unknown flags, two access flags, or `CL_MEM_SVM_ATOMICS` without
    /// `CL_MEM_SVM_FINE_GRAIN_BUFFER`.
    Flags,
    /// Size 0 or more than `CL_DEVICE_MAX_MEM_ALLOC_SIZE`.
    Size,
    /// Not a power of two, or larger than [`MAX_ALIGNMENT`].
    Alignment,
    /// The host has no memory for it.
    OutOfMemory,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::Flags => "invalid flags (unknown bits, more than one access flag, or CL_MEM_SVM_ATOMICS without CL_MEM_SVM_FINE_GRAIN_BUFFER)",
            Refusal::Size => "size is 0 or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE",
            Refusal::Alignment => "alignment is not a power of two, or larger than 2 MiB",
            Refusal::OutOfMemory => "out of host memory",
        })
    }
}

/// Checks the flags of the SVM memory flags table.
pub fn check_flags(flags: cl_svm_mem_flags) -> Result<(), Refusal> {
    let access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    let known = access | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;
    if flags & !known != 0
        || (flags & access).count_ones() > 1
        || (flags & CL_MEM_SVM_ATOMICS != 0 && flags & CL_MEM_SVM_FINE_GRAIN_BUFFER == 0)
    {
        return Err(Refusal::Flags);
    }
    Ok(())
}

/// `clSVMAlloc`: zeroed host memory of `size` bytes, registered for `context`.
pub fn allocate(
    context: usize,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: usize,
    max_size: u64,
    node: Option<usize>,
) -> Result<*mut u8, Refusal> {
    check_flags(flags)?;
    if size == 0 || size as u64 > max_size {
        return Err(Refusal::Size);
    }
    let align = match alignment {
        0 => DEFAULT_ALIGNMENT,
        a if a.is_power_of_two() && a <= MAX_ALIGNMENT => a.max(DEFAULT_ALIGNMENT),
        _ => return Err(Refusal::Alignment),
    };
    let storage = Storage::allocate(size, align, node).ok_or(Refusal::OutOfMemory)?;
    let ptr = storage.ptr();
    let allocation = Allocation {
        storage: Arc::new(storage),
        size,
        flags,
        context,
    };
    registry().insert(ptr as usize, Arc::new(allocation));
    Ok(ptr)
}

/// The allocation that contains the byte at `ptr`, if any.
pub fn find(ptr: usize) -> Option<Arc<Allocation>> {
    let map = registry();
    let (_, a) = map.range(..=ptr).next_back()?;
    a.contains(ptr, 1).then(|| a.clone())
}

/// The allocation that starts exactly at `ptr` (what `clSVMFree` accepts).
pub fn find_start(ptr: usize) -> Option<Arc<Allocation>> {
    registry().get(&ptr).cloned()
}

/// `clSVMFree`: withdraws the allocation that starts at `ptr` (made in `context`, when one is
/// given). Its bytes are given back when the last command or buffer that uses them lets go;
/// `false` when `ptr` is not such an allocation (the spec leaves that undefined; Clift ignores
/// it).
pub fn free(ptr: usize, context: Option<usize>) -> bool {
    let mut map = registry();
    match map.get(&ptr) {
        Some(a) if context.is_none_or(|c| c == a.context) => {
            map.remove(&ptr);
            true
        }
        _ => false,
    }
}

/// Strong references to the storage of every allocation that contains one of `ptrs`: what a
/// command holds so that the memory outlives it.
pub fn hold(ptrs: impl IntoIterator<Item = usize>) -> Vec<Arc<Storage>> {
    let mut ptrs = ptrs.into_iter().peekable();
    if ptrs.peek().is_none() {
        // Most launches have no SVM pointer: no lock taken.
        return Vec::new();
    }
    let map = registry();
    let mut held: Vec<Arc<Storage>> = Vec::new();
    for p in ptrs {
        if let Some((_, a)) = map.range(..=p).next_back() {
            if a.contains(p, 1) && !held.iter().any(|s| Arc::ptr_eq(s, &a.storage)) {
                held.push(a.storage.clone());
            }
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_table() {
        assert!(check_flags(0).is_ok());
        assert!(check_flags(CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS).is_ok());
        assert_eq!(check_flags(CL_MEM_SVM_ATOMICS), Err(Refusal::Flags));
        assert_eq!(check_flags(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY), Err(Refusal::Flags));
        assert_eq!(check_flags(1 << 40), Err(Refusal::Flags));
    }

    #[test]
    fn allocations_are_found_and_freed() {
        let p = allocate(1, 0, 100, 0, 1 << 30, None).unwrap() as usize;
        assert_eq!(p % DEFAULT_ALIGNMENT, 0);
        assert_eq!(find(p + 99).map(|a| a.size), Some(100));
        assert!(find(p + 100).is_none_or(|a| a.start() != p));
        assert!(find_start(p + 1).is_none());
        let held = hold([p + 5, p + 7]);
        assert_eq!(held.len(), 1);
        assert!(!free(p, Some(2)), "another context's pointer");
        assert!(free(p, Some(1)));
        assert!(find(p).is_none());
        // Still readable through the held reference.
        assert_eq!(unsafe { *held[0].ptr().add(99) }, 0);
        assert_eq!(allocate(1, 0, 0, 0, 1 << 30, None), Err(Refusal::Size));
        assert_eq!(allocate(1, 0, 16, 3, 1 << 30, None), Err(Refusal::Alignment));
        let q = allocate(1, 0, 16, 4096, 1 << 30, None).unwrap() as usize;
        assert_eq!(q % 4096, 0);
        assert!(free(q, None));
    }
}
