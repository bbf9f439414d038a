//! Every OpenCL object starts with a `Header`: the ICD dispatch pointer first (the loader reads
//! it to route calls), then a type tag and the application's reference count.
//!
//! A handle is the address of an object inside an `Arc`. While the application holds a
//! reference (its count is above zero) the handle is listed in a registry and one strong `Arc`
//! reference is leaked on its behalf. Looking a handle up goes through the registry, so a
//! garbage, freed or wrong-type handle is refused instead of being dereferenced.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

/// The type tag of an object; the registry checks it so a handle of the wrong type is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Kind {
    Platform = 0xC11F_0001,
    Device,
    Context,
    Queue,
    Mem,
    Event,
    Sampler,
    Program,
    Kernel,
    /// cl_khr_command_buffer.
    CommandBuffer,
    /// cl_khr_command_buffer_mutable_dispatch.
    MutableCommand,
}

/// The ICD dispatch table, set once by the icd crate when the library is loaded.
static DISPATCH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

pub fn set_dispatch(table: *const c_void) {
    DISPATCH.store(table as *mut c_void, Ordering::Release);
}

#[repr(C)]
pub struct Header {
    dispatch: *const c_void,
    kind: Kind,
    /// The application's count (clRetain*/clRelease*, `CL_*_REFERENCE_COUNT`); internal
    /// references are plain `Arc`s and do not show here.
    refs: AtomicU32,
}

// SAFETY: the dispatch pointer refers to an immutable static table.
unsafe impl Send for Header {}
unsafe impl Sync for Header {}

impl Header {
    pub fn new(kind: Kind) -> Header {
        Header {
            dispatch: DISPATCH.load(Ordering::Acquire),
            kind,
            refs: AtomicU32::new(1),
        }
    }

    pub fn ref_count(&self) -> u32 {
        self.refs.load(Ordering::Acquire)
    }
}

/// An OpenCL object type: `#[repr(C)]` with a `Header` as its first field.
pub trait ClObject: Send + Sync + Sized + 'static {
    const KIND: Kind;
    fn header(&self) -> &Header;
}

fn registry() -> &'static RwLock<HashMap<usize, Kind>> {
    static LIVE: OnceLock<RwLock<HashMap<usize, Kind>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// Hands an object to the application: returns its handle, with an application count of one.
pub fn publish<T: ClObject>(obj: Arc<T>) -> *mut c_void {
    debug_assert_eq!(obj.header().kind, T::KIND);
    let ptr = Arc::into_raw(obj) as *mut c_void;
    registry()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(ptr as usize, T::KIND);
    ptr
}

/// Registers an object that lives for the whole process (platform, root device).
pub fn publish_static<T: ClObject>(obj: &'static T) -> *mut c_void {
    let ptr = obj as *const T as *mut c_void;
    registry()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(ptr as usize, T::KIND);
    ptr
}

/// The handle of an object that the application can see.
pub fn handle_of<T: ClObject>(obj: &Arc<T>) -> *mut c_void {
    Arc::as_ptr(obj) as *mut c_void
}

/// True when `ptr` is a live handle of type `T`.
pub fn is_live<T: ClObject>(ptr: *const c_void) -> bool {
    let live = registry().read().unwrap_or_else(|e| e.into_inner());
    live.get(&(ptr as usize)) == Some(&T::KIND)
}

/// Turns a handle into a strong reference, or `None` for anything that is not a live `T`.
pub fn lookup<T: ClObject>(ptr: *const c_void) -> Option<Arc<T>> {
    if ptr.is_null() {
        return None;
    }
    let live = registry().read().unwrap_or_else(|e| e.into_inner());
    if live.get(&(ptr as usize)) != Some(&T::KIND) {
        return None;
    }
    // SAFETY: a registered handle owns a leaked strong count, and it cannot be released while
    // we hold the read lock (release takes the write lock first).
    unsafe {
        Arc::increment_strong_count(ptr as *const T);
        Some(Arc::from_raw(ptr as *const T))
    }
}

/// Looks up a handle of a process-lifetime object (no `Arc`).
pub fn lookup_static<T: ClObject>(ptr: *const c_void) -> Option<&'static T> {
    if is_live::<T>(ptr) {
        // SAFETY: static objects are registered once and never freed.
        Some(unsafe { &*(ptr as *const T) })
    } else {
        None
    }
}

/// clRetainDevice for a counted object that is never freed (a sub-device): one more
/// application reference.
pub fn retain_static<T: ClObject>(ptr: *const c_void) -> Option<()> {
    let live = registry().read().unwrap_or_else(|e| e.into_inner());
    if live.get(&(ptr as usize)) != Some(&T::KIND) {
        return None;
    }
    // SAFETY: registered static objects are never freed.
    let obj = unsafe { &*(ptr as *const T) };
    obj.header().refs.fetch_add(1, Ordering::AcqRel);
    Some(())
}

/// clReleaseDevice for a counted object that is never freed: one application reference less
/// (never below zero). Returns the object and whether the count reached zero; the caller
/// withdraws the handle (`withdraw_static`) once nothing else uses it either.
pub fn release_static<T: ClObject>(ptr: *const c_void) -> Option<(&'static T, bool)> {
    let live = registry().read().unwrap_or_else(|e| e.into_inner());
    if live.get(&(ptr as usize)) != Some(&T::KIND) {
        return None;
    }
    // SAFETY: registered static objects are never freed.
    let obj: &'static T = unsafe { &*(ptr as *const T) };
    let before = obj
        .header()
        .refs
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
        .ok()?;
    Some((obj, before == 1))
}

/// Withdraws the handle of a process-lifetime object: lookups refuse it from now on.
pub fn withdraw_static(ptr: *const c_void) {
    registry()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&(ptr as usize));
}

/// clRetain*: one more application reference.
pub fn retain<T: ClObject>(ptr: *const c_void) -> Option<()> {
    let obj = lookup::<T>(ptr)?;
    obj.header().refs.fetch_add(1, Ordering::AcqRel);
    Some(())
}

/// clRelease*: one application reference less; at zero the handle is withdrawn and the
/// object lives on only as long as the runtime still uses it.
pub fn release<T: ClObject>(ptr: *const c_void) -> Option<()> {
    let mut live = registry().write().unwrap_or_else(|e| e.into_inner());
    if live.get(&(ptr as usize)) != Some(&T::KIND) {
        return None;
    }
    // SAFETY: registered, so the leaked reference keeps it alive while we hold the lock.
    let obj = unsafe { &*(ptr as *const T) };
    if obj.header().refs.fetch_sub(1, Ordering::AcqRel) == 1 {
        live.remove(&(ptr as usize));
        drop(live);
        // SAFETY: this is the strong reference leaked by `publish`.
        drop(unsafe { Arc::from_raw(ptr as *const T) });
    }
    Some(())
}
