//! clGetPlatformIDs, clGetPlatformInfo, clGetExtensionFunctionAddressForPlatform.

use cts::*;
use std::collections::BTreeSet;
use std::ptr;

#[test]
fn platform_ids_lists_the_platform() {
    let mut n: cl_uint = 0;
    ok!(clGetPlatformIDs(0, ptr::null_mut(), &mut n));
    assert!(n >= 1);
    let plats = all_platforms();
    assert_eq!(plats.len(), n as usize);
    assert!(plats.contains(&platform()));
    // Asking for fewer entries than exist returns that many.
    let mut one: cl_platform_id = ptr::null_mut();
    ok!(clGetPlatformIDs(1, &mut one, ptr::null_mut()));
    assert!(!one.is_null());
}

#[test]
fn platform_ids_errors() {
    // CL_INVALID_VALUE if num_entries is 0 and platforms is not NULL.
    let mut p: cl_platform_id = ptr::null_mut();
    let mut n: cl_uint = 0;
    check!(clGetPlatformIDs(0, &mut p, &mut n), CL_INVALID_VALUE);
    // CL_INVALID_VALUE if both num_platforms and platforms are NULL.
    check!(clGetPlatformIDs(1, ptr::null_mut(), ptr::null_mut()), CL_INVALID_VALUE);
}

#[test]
fn platform_string_queries() {
    let p = platform();
    assert_eq!(platform_string(p, CL_PLATFORM_PROFILE), "FULL_PROFILE");
    let version = platform_string(p, CL_PLATFORM_VERSION);
    assert!(
        version.starts_with("OpenCL 3.0 "),
        "CL_PLATFORM_VERSION {version:?} must be \"OpenCL 3.0 <platform-specific>\""
    );
    assert_eq!(platform_string(p, CL_PLATFORM_NAME), wanted_platform_name());
    assert!(!platform_string(p, CL_PLATFORM_VENDOR).is_empty());
    let ext = platform_string(p, CL_PLATFORM_EXTENSIONS);
    assert!(
        ext.split_whitespace().any(|e| e == "cl_khr_icd"),
        "cl_khr_icd missing from CL_PLATFORM_EXTENSIONS {ext:?}"
    );
    let suffix = platform_string(p, CL_PLATFORM_ICD_SUFFIX_KHR);
    assert!(!suffix.is_empty(), "CL_PLATFORM_ICD_SUFFIX_KHR is empty");
}

#[test]
fn platform_numeric_version() {
    let v: cl_version =
        info_scalar(|s, v, r| unsafe { clGetPlatformInfo(platform(), CL_PLATFORM_NUMERIC_VERSION, s, v, r) }).unwrap();
    assert_eq!(v, (3 << 22), "CL_PLATFORM_NUMERIC_VERSION must be 3.0.0");
}

/// Splits a `cl_name_version` array into (name, version) pairs.
fn name_versions(b: &[u8]) -> Vec<(String, cl_version)> {
    bytes_to_vec::<cl_name_version>(b)
        .iter()
        .map(|nv| {
            #[allow(clippy::unnecessary_cast)] // c_char is i8 on some targets
            let raw: Vec<u8> = nv.name.iter().map(|&c| c as u8).collect();
            assert!(raw.contains(&0), "cl_name_version name not NUL-terminated");
            (
                bytes_to_string(&raw[..=raw.iter().position(|&c| c == 0).unwrap()]),
                nv.version,
            )
        })
        .collect()
}

#[test]
fn platform_extensions_with_version_match_string() {
    let p = platform();
    let ext: BTreeSet<String> = platform_string(p, CL_PLATFORM_EXTENSIONS)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let b = platform_bytes(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION).unwrap();
    let nv = name_versions(&b);
    let names: BTreeSet<String> = nv.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names.len(), nv.len(), "duplicate names in EXTENSIONS_WITH_VERSION");
    assert_eq!(
        ext, names,
        "CL_PLATFORM_EXTENSIONS_WITH_VERSION must match CL_PLATFORM_EXTENSIONS"
    );
}

#[test]
fn platform_host_timer_resolution() {
    let res: cl_ulong =
        info_scalar(|s, v, r| unsafe { clGetPlatformInfo(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION, s, v, r) })
            .unwrap();
    let mut t: cl_ulong = 0;
    let timer = unsafe { clGetHostTimer(device(), &mut t) };
    if timer == CL_SUCCESS {
        // Spec: "This value must be 0 for devices that do not support device and host timer
        // synchronization" - so a platform whose clGetHostTimer works reports a real
        // resolution. (PoCL 3.1 deviates: it implements the timers but reports 0.)
        assert!(res > 0, "host timer works but CL_PLATFORM_HOST_TIMER_RESOLUTION is 0");
    } else {
        check!(timer, CL_INVALID_OPERATION);
        assert_eq!(res, 0);
    }
}

#[test]
fn platform_info_sizes() {
    let p = platform();
    for param in [
        CL_PLATFORM_PROFILE,
        CL_PLATFORM_VERSION,
        CL_PLATFORM_NAME,
        CL_PLATFORM_VENDOR,
        CL_PLATFORM_EXTENSIONS,
        CL_PLATFORM_ICD_SUFFIX_KHR,
    ] {
        // size_ret only.
        let mut size: size_t = 0;
        ok!(clGetPlatformInfo(p, param, 0, ptr::null_mut(), &mut size));
        let s = platform_string(p, param);
        assert_eq!(size, s.len() + 1, "param {param:#x}: size_ret is not strlen + 1");
        // param_value_size smaller than the value -> CL_INVALID_VALUE.
        let mut small = vec![0u8; size - 1];
        check!(
            clGetPlatformInfo(p, param, size - 1, small.as_mut_ptr() as *mut c_void, ptr::null_mut()),
            CL_INVALID_VALUE
        );
        // Larger buffers are fine; value and size_ret both written.
        let mut big = vec![0xAAu8; size + 16];
        let mut ret = 0;
        ok!(clGetPlatformInfo(
            p,
            param,
            size + 16,
            big.as_mut_ptr() as *mut c_void,
            &mut ret
        ));
        assert_eq!(ret, size);
        assert_eq!(bytes_to_string(&big[..size]), s);
    }
    // Numeric values too small.
    let mut v: u32 = 0;
    check!(
        clGetPlatformInfo(
            p,
            CL_PLATFORM_NUMERIC_VERSION,
            2,
            &mut v as *mut u32 as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let mut r: u64 = 0;
    check!(
        clGetPlatformInfo(
            p,
            CL_PLATFORM_HOST_TIMER_RESOLUTION,
            4,
            &mut r as *mut u64 as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
}

#[test]
fn platform_info_errors() {
    let p = platform();
    let mut size: size_t = 0;
    // Not a platform query.
    check!(
        clGetPlatformInfo(p, 0x0BAD, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    check!(
        clGetPlatformInfo(p, CL_DEVICE_NAME, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    // A device handle where a platform is expected.
    check!(
        clGetPlatformInfo(
            device() as cl_platform_id,
            CL_PLATFORM_NAME,
            0,
            ptr::null_mut(),
            &mut size
        ),
        CL_INVALID_PLATFORM
    );
    // A context handle where a platform is expected.
    let ctx = Context::new();
    check!(
        clGetPlatformInfo(ctx.0 as cl_platform_id, CL_PLATFORM_NAME, 0, ptr::null_mut(), &mut size),
        CL_INVALID_PLATFORM
    );
    // Still works afterwards.
    assert_eq!(platform_string(p, CL_PLATFORM_NAME), wanted_platform_name());
}

#[test]
fn extension_function_address_for_platform() {
    let p = platform();
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(p, c"clNoSuchFunctionCLIFT".as_ptr()) };
    assert!(f.is_null(), "unknown function name must return NULL");
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(p, c"".as_ptr()) };
    assert!(f.is_null(), "empty function name must return NULL");
}
