//! The C boundary: every entry point runs its body through `guard` (status-returning calls)
//! or `guard_object` (object-returning calls), which turn panics into an error code so no
//! unwinding ever crosses into C, and write `errcode_ret`.

use opencl_sys::{cl_int, CL_INVALID_VALUE, CL_OUT_OF_HOST_MEMORY, CL_SUCCESS};
use runtime::info::Answer;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub type ClResult<T = ()> = Result<T, cl_int>;

/// Runs the body of a status-returning entry point.
pub fn guard(body: impl FnOnce() -> ClResult) -> cl_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(code)) => code,
        Err(_) => CL_OUT_OF_HOST_MEMORY,
    }
}

/// Runs the body of an object-returning entry point: the object (or NULL) is returned and the
/// status goes to `errcode_ret` when the application asked for it.
///
/// # Safety
/// `errcode_ret` must be NULL or writable.
pub unsafe fn guard_object<T>(errcode_ret: *mut cl_int, body: impl FnOnce() -> ClResult<*mut T>) -> *mut T {
    let (object, code) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(object)) => (object, CL_SUCCESS),
        Ok(Err(code)) => (std::ptr::null_mut(), code),
        Err(_) => (std::ptr::null_mut(), CL_OUT_OF_HOST_MEMORY),
    };
    if !errcode_ret.is_null() {
        *errcode_ret = code;
    }
    object
}

/// Writes a `clGet*Info` answer: `CL_INVALID_VALUE` when `param_value` is not NULL and
/// `param_value_size` is smaller than the value (every clGet*Info lists this error).
///
/// # Safety
/// `param_value` must be NULL or writable for `param_value_size` bytes; `size_ret` NULL or
/// writable.
pub unsafe fn write_info(
    answer: Answer,
    param_value_size: usize,
    param_value: *mut c_void,
    size_ret: *mut usize,
) -> ClResult {
    let bytes = answer?;
    if !param_value.is_null() {
        if param_value_size < bytes.len() {
            return Err(CL_INVALID_VALUE);
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), param_value as *mut u8, bytes.len());
    }
    if !size_ret.is_null() {
        *size_ret = bytes.len();
    }
    Ok(())
}

/// Writes an optional out-parameter.
///
/// # Safety
/// `out` must be NULL or writable.
pub unsafe fn set<T>(out: *mut T, value: T) {
    if !out.is_null() {
        *out = value;
    }
}

/// Borrows a C array; an empty slice for a zero count.
///
/// # Safety
/// When `count > 0`, `ptr` must be NULL (refused here) or valid for `count` elements.
pub unsafe fn slice<'a, T>(ptr: *const T, count: usize) -> Option<&'a [T]> {
    match (ptr.is_null(), count) {
        (_, 0) => Some(&[]),
        (true, _) => None,
        (false, n) => Some(std::slice::from_raw_parts(ptr, n)),
    }
}

/// Reads a zero-terminated property list (`key, value, ..., 0`); returns the pairs and the
/// list as given, terminator included (empty when `list` is NULL).
///
/// # Safety
/// `list` must be NULL or a zero-terminated array of key/value pairs.
pub unsafe fn properties<T: Copy + PartialEq + Default>(list: *const T) -> (Vec<(T, T)>, Vec<T>) {
    let mut pairs = Vec::new();
    let mut raw = Vec::new();
    if list.is_null() {
        return (pairs, raw);
    }
    let mut i = 0;
    loop {
        let key = *list.add(i);
        raw.push(key);
        if key == T::default() {
            break;
        }
        let value = *list.add(i + 1);
        raw.push(value);
        pairs.push((key, value));
        i += 2;
    }
    (pairs, raw)
}
