//! Memory objects (API sections 5.2 and 5.3): buffers, sub-buffers and images over host memory,
//! mappings and destructor callbacks. On a CPU device the device memory is host memory, so a
//! map hands out the storage itself (for `CL_MEM_USE_HOST_PTR`, the application's own pointer).

use crate::callback::{run_destructors, ObjectCallback};
use crate::context::Context;
use crate::image::Image;
use crate::object::{ClObject, Header, Kind};
use opencl_sys::{
    cl_map_flags, cl_mem_flags, cl_mem_object_type, cl_mem_properties, CL_MEM_OBJECT_BUFFER, CL_MEM_USE_HOST_PTR,
};
use std::alloc::Layout;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// Fills `dst` with copies of `pattern` (clEnqueueFillBuffer, clEnqueueSVMMemFill, image
/// fills and their command-buffer forms; `dst.len()` is a multiple of `pattern.len()`). One
/// `memset` where every byte of the pattern is the same, else the pattern doubled up to a
/// block of a few KiB that is then copied whole: copying the pattern element by element costs
/// a call per element (seconds for a buffer of half a GiB).
pub fn fill_pattern(dst: &mut [u8], pattern: &[u8]) {
    let Some(&first) = pattern.first() else {
        return;
    };
    if dst.is_empty() {
        return;
    }
    if pattern.iter().all(|&b| b == first) {
        dst.fill(first);
        return;
    }
    const BLOCK: usize = 4096;
    let block = (BLOCK / pattern.len()).max(1) * pattern.len();
    let head = block.min(dst.len());
    let (start, rest) = dst.split_at_mut(head);
    let mut filled = pattern.len().min(head);
    start[..filled].copy_from_slice(&pattern[..filled]);
    while filled < head {
        let n = filled.min(head - filled);
        start.copy_within(..n, filled);
        filled += n;
    }
    for chunk in rest.chunks_mut(head) {
        chunk.copy_from_slice(&start[..chunk.len()]);
    }
}

/// Bytes of memory a memory object lives in: allocated by Clift, or the application's
/// (`CL_MEM_USE_HOST_PTR`).
pub struct Storage {
    ptr: *mut u8,
    len: usize,
    owned: Option<Owned>,
}

/// How Clift obtained a storage's bytes, to give them back.
#[derive(Clone, Copy)]
enum Owned {
    Heap(Layout),
    /// An anonymous mapping of `len` bytes at `base` (large objects), preferring NUMA node
    /// `node`; `reuse`: a buffer's, kept for a later buffer when released.
    Mapped {
        base: *mut libc::c_void,
        len: usize,
        node: Option<usize>,
        reuse: bool,
    },
}

/// Objects from this size up get their own mapping aligned to a huge page, with transparent
/// huge pages requested: kernels streaming through large buffers then take far fewer TLB
/// misses (on Linux's default `madvise` THP setting nothing else gets huge pages).
const HUGE_PAGE: usize = 2 << 20;

/// The most bytes of released buffer mappings kept for reuse ([`Storage::for_buffer`]), and
/// the most mappings.
const KEPT_BYTES: usize = 256 << 20;
const KEPT_MAPPINGS: usize = 16;

/// A released mapping kept for a later buffer of the same size: its base, its length, the
/// NUMA node it prefers.
struct Kept {
    base: usize,
    len: usize,
    node: Option<usize>,
}

/// Released buffer mappings, the most recent last. Applications that allocate their
/// temporaries anew on each call (pyopencl's arrays, scans and sorts) would otherwise fault in
/// and zero fresh pages for every one: a quarter of the time of a stream compaction measured.
static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

// SAFETY: the bytes are shared memory by the OpenCL model; the API's rules (and the
// application's synchronisation) govern concurrent access, as for device memory.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

impl Storage {
    /// Zeroed memory of `len` bytes aligned to `align` (CL_DEVICE_MEM_BASE_ADDR_ALIGN). Objects
    /// with their own mapping prefer NUMA node `node` when one is given: their pages are
    /// placed there when first touched, by whichever thread.
    pub fn allocate(len: usize, align: usize, node: Option<usize>) -> Option<Storage> {
        if len >= HUGE_PAGE && align <= HUGE_PAGE {
            return Self::map(len, node, false);
        }
        let layout = Layout::from_size_align(len.max(1), align).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        (!ptr.is_null()).then_some(Storage {
            ptr,
            len,
            owned: Some(Owned::Heap(layout)),
        })
    }

    /// Zeroed memory from a fresh anonymous mapping, aligned to a huge page, preferring NUMA
    /// node `node`; `reuse`: kept for a later buffer when released.
    fn map(len: usize, node: Option<usize>, reuse: bool) -> Option<Storage> {
        let map_len = len.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping; the result is checked.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let ptr = (base as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
        // SAFETY: [ptr, ptr + len) lies inside the mapping. A refusal only costs speed.
        unsafe { libc::madvise(ptr as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
        if let Some(n) = node {
            prefer_node(ptr, len, n);
        }
        Some(Storage {
            ptr,
            len,
            owned: Some(Owned::Mapped {
                base,
                len: map_len,
                node,
                reuse,
            }),
        })
    }

    /// Memory of `len` bytes for a buffer, whose contents are undefined until written (API
    /// 5.2.1: without `CL_MEM_COPY_HOST_PTR` or `CL_MEM_USE_HOST_PTR` only the application's
    /// writes define them): a released buffer's mapping of the same size when one is kept,
    /// its bytes as they were left, else as [`Self::allocate`].
    pub fn for_buffer(len: usize, align: usize, node: Option<usize>) -> Option<Storage> {
        if len >= HUGE_PAGE && align <= HUGE_PAGE {
            let map_len = len.checked_add(HUGE_PAGE)?;
            let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(at) = kept.iter().rposition(|k| k.len == map_len && k.node == node) {
                let k = kept.remove(at);
                let ptr = k.base.next_multiple_of(HUGE_PAGE) as *mut u8;
                return Some(Storage {
                    ptr,
                    len,
                    owned: Some(Owned::Mapped {
                        base: k.base as *mut libc::c_void,
                        len: map_len,
                        node,
                        reuse: true,
                    }),
                });
            }
            drop(kept);
            return Self::map(len, node, true);
        }
        Self::allocate(len, align, node)
    }

    /// The application's memory (`CL_MEM_USE_HOST_PTR`); it must outlive the object.
    pub fn borrowed(ptr: *mut u8, len: usize) -> Storage {
        Storage { ptr, len, owned: None }
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// `mbind(MPOL_PREFERRED)`: the pages of [ptr, ptr + len) come from `node` while it has free
/// memory. A refusal (a seccomp filter, no NUMA support) only costs placement.
fn prefer_node(ptr: *mut u8, len: usize, node: usize) {
    const MPOL_PREFERRED: libc::c_long = 1;
    const MASK_BITS: usize = 1024;
    if node >= MASK_BITS {
        return;
    }
    let mut mask = [0u64; MASK_BITS / 64];
    mask[node / 64] |= 1 << (node % 64);
    // SAFETY: the range is a mapping Clift owns; the mask holds MASK_BITS bits.
    unsafe {
        libc::syscall(
            libc::SYS_mbind,
            ptr as *mut libc::c_void,
            len,
            MPOL_PREFERRED,
            mask.as_ptr(),
            MASK_BITS as libc::c_ulong,
            0 as libc::c_uint,
        );
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        match self.owned {
            // SAFETY: allocated in `allocate` with this layout.
            Some(Owned::Heap(layout)) => unsafe { std::alloc::dealloc(self.ptr, layout) },
            Some(Owned::Mapped { base, len, node, reuse }) => {
                if reuse && len <= KEPT_BYTES {
                    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
                    // Kept: its pages may go back to the system under memory pressure (then
                    // they read as zeros), else they are reused as they are.
                    // SAFETY: the mapping made in `map`, no longer used by this storage.
                    unsafe { libc::madvise(base, len, libc::MADV_FREE) };
                    kept.push(Kept {
                        base: base as usize,
                        len,
                        node,
                    });
                    // Within the bounds, the oldest given back first.
                    while kept.len() > KEPT_MAPPINGS || kept.iter().map(|k| k.len).sum::<usize>() > KEPT_BYTES {
                        let k = kept.remove(0);
                        // SAFETY: a mapping made in `map`, owned by the list.
                        unsafe { libc::munmap(k.base as *mut libc::c_void, k.len) };
                    }
                } else {
                    // SAFETY: the mapping made in `map`.
                    unsafe { libc::munmap(base, len) };
                }
            }
            None => {}
        }
    }
}

/// The bytes an image's pixels lie in.
pub enum Backing {
    /// Storage of its own.
    Owns(Storage),
    /// The bytes of another memory object, from its first byte.
    Shares(Arc<Mem>),
}

impl Backing {
    /// Where pixel (0, 0, 0) of the image will be.
    pub fn data(&self) -> *mut u8 {
        match self {
            Backing::Owns(storage) => storage.ptr(),
            Backing::Shares(mem) => mem.base(),
        }
    }
}

/// One outstanding clEnqueueMap* of a memory object.
#[derive(Clone, Copy, Debug)]
pub struct Mapping {
    pub ptr: usize,
    /// The bytes from the object's first byte that the mapping spans.
    pub offset: usize,
    pub size: usize,
    pub flags: cl_map_flags,
    /// For an image, the mapped box (origin and region in pixels), so that mappings of
    /// disjoint boxes whose byte spans interleave do not count as overlapping.
    pub pixels: Option<([usize; 3], [usize; 3])>,
}

impl Mapping {
    pub fn writes(&self) -> bool {
        self.flags & (opencl_sys::CL_MAP_WRITE | opencl_sys::CL_MAP_WRITE_INVALIDATE_REGION) != 0
    }

    fn overlaps(&self, other: &Mapping) -> bool {
        match (self.pixels, other.pixels) {
            (Some((a, a_region)), Some((b, b_region))) => {
                (0..3).all(|i| a[i] < b[i] + b_region[i] && b[i] < a[i] + a_region[i])
            }
            _ => self.offset < other.offset + other.size && other.offset < self.offset + self.size,
        }
    }
}

#[repr(C)]
pub struct Mem {
    header: Header,
    pub context: Arc<Context>,
    pub mem_type: cl_mem_object_type,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// The `host_ptr` given at creation (`CL_MEM_HOST_PTR`), or the parent's plus offset.
    pub host_ptr: *mut c_void,
    /// A sub-buffer's parent and its offset in it.
    pub parent: Option<Arc<Mem>>,
    pub offset: usize,
    pub properties: Vec<cl_mem_properties>,
    /// The format, dimensions and layout of an image (`None` for a buffer).
    pub image: Option<Image>,
    /// A buffer created with `CL_MEM_USE_HOST_PTR` over memory from `clSVMAlloc`, or a
    /// sub-buffer of one (`CL_MEM_USES_SVM_POINTER`).
    pub uses_svm_pointer: bool,
    storage: Arc<Storage>,
    maps: Mutex<Vec<Mapping>>,
    destructors: Mutex<Vec<ObjectCallback>>,
}

// SAFETY: host_ptr is only reported back to the application, never dereferenced by Clift
// outside commands the application ordered.
unsafe impl Send for Mem {}
unsafe impl Sync for Mem {}

impl ClObject for Mem {
    const KIND: Kind = Kind::Mem;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Mem {
    pub fn new_buffer(
        context: Arc<Context>,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: *mut c_void,
        storage: Storage,
        properties: Vec<cl_mem_properties>,
    ) -> Mem {
        Mem {
            header: Header::new(Kind::Mem),
            context,
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr,
            parent: None,
            offset: 0,
            properties,
            image: None,
            uses_svm_pointer: false,
            storage: Arc::new(storage),
            maps: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
        }
    }

    /// A buffer with `CL_MEM_USE_HOST_PTR` over the bytes of an SVM allocation, from byte
    /// `offset` of it: it shares (and keeps alive) the allocation's storage, so a `clSVMFree`
    /// before the buffer's release cannot pull the memory from under it.
    pub fn new_svm_buffer(
        context: Arc<Context>,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: *mut c_void,
        storage: Arc<Storage>,
        offset: usize,
        properties: Vec<cl_mem_properties>,
    ) -> Mem {
        Mem {
            header: Header::new(Kind::Mem),
            context,
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr,
            parent: None,
            offset,
            properties,
            image: None,
            uses_svm_pointer: true,
            storage,
            maps: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
        }
    }

    /// clCreateSubBuffer: a window of `parent` that shares its bytes.
    pub fn new_sub_buffer(parent: &Arc<Mem>, flags: cl_mem_flags, offset: usize, size: usize) -> Mem {
        let host_ptr = if parent.host_ptr.is_null() {
            std::ptr::null_mut()
        } else {
            parent.host_ptr.wrapping_byte_add(offset)
        };
        Mem {
            header: Header::new(Kind::Mem),
            context: parent.context.clone(),
            mem_type: CL_MEM_OBJECT_BUFFER,
            flags,
            size,
            host_ptr,
            parent: Some(parent.clone()),
            offset: parent.offset + offset,
            properties: Vec::new(),
            image: None,
            uses_svm_pointer: parent.uses_svm_pointer,
            storage: parent.storage.clone(),
            maps: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
        }
    }

    /// An image over its own bytes, or (`Backing::Shares`) over those of a buffer (1D image
    /// buffers, 2D images from buffers) or another image, which it keeps alive and reports as
    /// `CL_MEM_ASSOCIATED_MEMOBJECT`. `image` must describe pixels at `Backing::data`.
    pub fn new_image(
        context: Arc<Context>,
        flags: cl_mem_flags,
        host_ptr: *mut c_void,
        properties: Vec<cl_mem_properties>,
        image: Image,
        backing: Backing,
    ) -> Mem {
        let size = image.layout.size;
        let (storage, parent, offset) = match backing {
            Backing::Owns(storage) => (Arc::new(storage), None, 0),
            Backing::Shares(mem) => (mem.storage.clone(), Some(mem.clone()), mem.offset),
        };
        Mem {
            header: Header::new(Kind::Mem),
            context,
            mem_type: image.image_type,
            flags,
            size,
            host_ptr,
            parent,
            offset,
            properties,
            image: Some(image),
            uses_svm_pointer: false,
            storage,
            maps: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
        }
    }

    /// Whether the host may use this object's bytes while a kernel runs (they are the
    /// application's: `CL_MEM_USE_HOST_PTR`, over SVM memory or not), itself or through the
    /// object it was made from.
    pub fn host_may_share(&self) -> bool {
        self.uses_svm_pointer
            || self.flags & CL_MEM_USE_HOST_PTR != 0
            || self.parent.as_ref().is_some_and(|p| p.host_may_share())
    }

    /// The first byte of this object's contents.
    pub fn base(&self) -> *mut u8 {
        self.storage.ptr().wrapping_add(self.offset)
    }

    /// True when both objects live in the same bytes (a buffer and its sub-buffers).
    pub fn shares_storage(&self, other: &Mem) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    pub fn add_destructor(&self, cb: ObjectCallback) {
        self.destructors.lock().unwrap_or_else(|e| e.into_inner()).push(cb);
    }

    pub fn map_count(&self) -> u32 {
        self.maps.lock().unwrap_or_else(|e| e.into_inner()).len() as u32
    }

    /// Records a mapping; `false` (and nothing recorded) when it is for writing and would
    /// overlap a region already mapped for writing.
    pub fn add_mapping(&self, mapping: Mapping) -> bool {
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        if mapping.writes() && maps.iter().any(|m| m.writes() && m.overlaps(&mapping)) {
            return false;
        }
        maps.push(mapping);
        true
    }

    /// Withdraws the most recent mapping at `ptr`; `None` when `ptr` was not mapped.
    pub fn remove_mapping(&self, ptr: usize) -> Option<Mapping> {
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        let at = maps.iter().rposition(|m| m.ptr == ptr)?;
        Some(maps.remove(at))
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        let callbacks = std::mem::take(self.destructors.get_mut().unwrap_or_else(|e| e.into_inner()));
        // SAFETY: the callbacks were registered for this object.
        unsafe { run_destructors(callbacks, self as *mut Mem as *mut c_void) };
    }
}

/// A raw address that a command closure may carry to a command thread.
#[derive(Clone, Copy)]
pub struct HostPtr(pub *mut u8);

// SAFETY: the application guarantees (by the API's rules) that the memory stays valid until
// the command completes.
unsafe impl Send for HostPtr {}

impl HostPtr {
    /// The address (a method, so closures capture the whole `HostPtr`, which is `Send`).
    pub fn get(self) -> *mut u8 {
        self.0
    }
}

#[cfg(test)]
mod fill_tests {
    use super::fill_pattern;

    /// Every pattern size the API allows, against the element-by-element fill, on lengths
    /// around the block size.
    #[test]
    fn fill_pattern_repeats_the_pattern() {
        for size in [1usize, 2, 4, 8, 16, 32, 64, 128] {
            for same in [false, true] {
                let pattern: Vec<u8> = (0..size).map(|i| if same { 7 } else { (i * 37 + 1) as u8 }).collect();
                for count in [
                    0usize,
                    1,
                    3,
                    4096 / size,
                    4096 / size + 1,
                    3 * 4096 / size + 5,
                    20_000 / size,
                ] {
                    let mut got = vec![0xAAu8; count * size];
                    fill_pattern(&mut got, &pattern);
                    let want: Vec<u8> = pattern.iter().copied().cycle().take(count * size).collect();
                    assert_eq!(got, want, "pattern of {size} bytes, {count} copies");
                }
            }
        }
    }
}

#[cfg(test)]
mod kept_tests {
    use super::{Storage, HUGE_PAGE};

    /// A released buffer's mapping serves the next buffer of its size (on the NUMA node it
    /// prefers), not one of another size, and never memory that must start zeroed.
    #[test]
    fn released_buffer_mappings_are_reused() {
        // A size no other test of this process allocates.
        let len = 3 * HUGE_PAGE + 4096 * 7;
        let a = Storage::for_buffer(len, 128, None).expect("allocate");
        let at = a.ptr();
        // SAFETY: the storage has `len` bytes.
        unsafe { at.write(0x5a) };
        drop(a);
        let other = Storage::for_buffer(len + HUGE_PAGE, 128, None).expect("allocate");
        assert_ne!(other.ptr(), at, "a mapping of another size was reused");
        let zeroed = Storage::allocate(len, 128, None).expect("allocate");
        // SAFETY: as above.
        assert_eq!(unsafe { zeroed.ptr().read() }, 0, "memory that must be zeroed was not");
        let b = Storage::for_buffer(len, 128, None).expect("allocate");
        assert_eq!(b.ptr(), at, "the released mapping was not reused");
        assert!((b.ptr() as usize).is_multiple_of(HUGE_PAGE));
    }
}
