//! Encoders for `clGet*Info` answers. Every query in the runtime answers with the bytes of its
//! value; the icd copies them out after checking `param_value_size`.

use opencl_sys::{cl_bool, cl_name_version, cl_uint, cl_ulong, CL_FALSE, CL_NAME_VERSION_MAX_NAME_SIZE, CL_TRUE};
use std::ffi::c_void;

pub type Answer = Result<Vec<u8>, opencl_sys::cl_int>;

pub fn uint(v: cl_uint) -> Answer {
    Ok(v.to_ne_bytes().to_vec())
}

pub fn int(v: i32) -> Answer {
    Ok(v.to_ne_bytes().to_vec())
}

pub fn ulong(v: cl_ulong) -> Answer {
    Ok(v.to_ne_bytes().to_vec())
}

pub fn size(v: usize) -> Answer {
    Ok(v.to_ne_bytes().to_vec())
}

pub fn boolean(v: bool) -> Answer {
    uint(if v { CL_TRUE } else { CL_FALSE } as cl_bool)
}

pub fn ptr(v: *const c_void) -> Answer {
    size(v as usize)
}

/// A C string: the text and its terminating NUL.
pub fn string(s: &str) -> Answer {
    let mut v = Vec::with_capacity(s.len() + 1);
    v.extend_from_slice(s.as_bytes());
    v.push(0);
    Ok(v)
}

/// An array of plain values (sizes, properties, handles).
pub fn array<T: Copy>(items: &[T]) -> Answer {
    // SAFETY: T is a plain C scalar type with no padding in the uses of this module.
    let bytes = unsafe { std::slice::from_raw_parts(items.as_ptr() as *const u8, std::mem::size_of_val(items)) };
    Ok(bytes.to_vec())
}

/// An array of `cl_name_version` (the `*_WITH_VERSION` queries).
pub fn name_versions(items: &[(&str, cl_uint)]) -> Answer {
    let mut out: Vec<cl_name_version> = Vec::with_capacity(items.len());
    for (name, version) in items {
        let mut nv = cl_name_version {
            version: *version,
            name: [0; CL_NAME_VERSION_MAX_NAME_SIZE],
        };
        for (dst, src) in nv
            .name
            .iter_mut()
            .zip(name.bytes().take(CL_NAME_VERSION_MAX_NAME_SIZE - 1))
        {
            *dst = src as _;
        }
        out.push(nv);
    }
    array(&out)
}

/// `CL_MAKE_VERSION(major, minor, patch)`.
pub const fn version(major: u32, minor: u32, patch: u32) -> cl_uint {
    (major << 22) | (minor << 12) | patch
}
