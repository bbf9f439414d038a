//! The one Clift platform: `clGetPlatformInfo` answers (OpenCL 3.0 API, "Platform Queries"
//! table). The platform lives for the whole process and is registered as a static object.

use crate::clock;
use crate::device;
use crate::info::{self, Answer};
use crate::object::{self, ClObject, Header, Kind};
use opencl_sys::{
    cl_platform_id, cl_platform_info, cl_version, CL_INVALID_VALUE, CL_PLATFORM_EXTENSIONS,
    CL_PLATFORM_EXTENSIONS_WITH_VERSION, CL_PLATFORM_HOST_TIMER_RESOLUTION, CL_PLATFORM_ICD_SUFFIX_KHR,
    CL_PLATFORM_NAME, CL_PLATFORM_NUMERIC_VERSION, CL_PLATFORM_PROFILE, CL_PLATFORM_VENDOR, CL_PLATFORM_VERSION,
};
use std::sync::{Once, OnceLock};

/// The OpenCL version Clift implements; `CL_PLATFORM_VERSION` and `CL_DEVICE_VERSION` start
/// with "OpenCL 3.0 ".
pub const OPENCL_VERSION: cl_version = info::version(3, 0, 0);

/// Extensions of the platform itself, whatever the device supports. `cl_khr_icd` must be here:
/// ocl-icd skips an ICD whose platform does not report it.
const PLATFORM_EXTENSIONS: &[(&str, cl_version)] = &[("cl_khr_icd", info::version(1, 0, 0))];

#[repr(C)]
pub struct Platform {
    header: Header,
    /// "OpenCL 3.0 Clift <crate version>".
    version: String,
    /// The platform's extensions followed by the device's, each once.
    extensions: Vec<(&'static str, cl_version)>,
}

impl ClObject for Platform {
    const KIND: Kind = Kind::Platform;
    fn header(&self) -> &Header {
        &self.header
    }
}

/// The platform, created and registered on first use.
pub fn platform() -> &'static Platform {
    static PLATFORM: OnceLock<Platform> = OnceLock::new();
    static PUBLISHED: Once = Once::new();
    let platform = PLATFORM.get_or_init(Platform::new);
    PUBLISHED.call_once(|| {
        object::publish_static(platform);
    });
    platform
}

impl Platform {
    fn new() -> Platform {
        Platform {
            header: Header::new(Kind::Platform),
            version: format!("OpenCL 3.0 Clift {}", env!("CARGO_PKG_VERSION")),
            extensions: merged_extensions(PLATFORM_EXTENSIONS, device::FEATURES.extensions),
        }
    }

    pub fn handle(&self) -> cl_platform_id {
        self as *const Platform as cl_platform_id
    }

    /// The extension names, space separated (`CL_PLATFORM_EXTENSIONS`).
    pub fn extensions_string(&self) -> String {
        let names: Vec<&str> = self.extensions.iter().map(|(name, _)| *name).collect();
        names.join(" ")
    }

    /// `clGetPlatformInfo`.
    pub fn info(&self, param: cl_platform_info) -> Answer {
        match param {
            CL_PLATFORM_PROFILE => info::string("FULL_PROFILE"),
            CL_PLATFORM_VERSION => info::string(&self.version),
            // The major and minor numbers must match CL_PLATFORM_VERSION.
            CL_PLATFORM_NUMERIC_VERSION => info::uint(OPENCL_VERSION),
            CL_PLATFORM_NAME => info::string("Clift"),
            CL_PLATFORM_VENDOR => info::string("Clift"),
            CL_PLATFORM_EXTENSIONS => info::string(&self.extensions_string()),
            // Must list the same extensions as CL_PLATFORM_EXTENSIONS.
            CL_PLATFORM_EXTENSIONS_WITH_VERSION => info::name_versions(&self.extensions),
            // Nonzero: Clift supports device and host timer synchronization.
            CL_PLATFORM_HOST_TIMER_RESOLUTION => info::ulong(clock::resolution_ns()),
            CL_PLATFORM_ICD_SUFFIX_KHR => info::string("clift"),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

/// `first` then those of `second` not already listed: the same name must not be reported twice.
fn merged_extensions(
    first: &[(&'static str, cl_version)],
    second: &[(&'static str, cl_version)],
) -> Vec<(&'static str, cl_version)> {
    let mut all = first.to_vec();
    for ext in second {
        if !all.iter().any(|(name, _)| *name == ext.0) {
            all.push(*ext);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_listed_once() {
        let merged = merged_extensions(&[("cl_khr_icd", 1)], &[("cl_khr_icd", 1), ("cl_khr_fp64", 2)]);
        assert_eq!(merged, vec![("cl_khr_icd", 1), ("cl_khr_fp64", 2)]);
    }

    #[test]
    fn platform_reports_icd_and_version() {
        let p = platform();
        assert!(p.extensions_string().split(' ').any(|e| e == "cl_khr_icd"));
        let version = p.info(CL_PLATFORM_VERSION).unwrap_or_default();
        assert!(version.starts_with(b"OpenCL 3.0 "));
        assert_eq!(version.last(), Some(&0));
        assert_eq!(p.info(0xFFFF), Err(CL_INVALID_VALUE));
        assert!(object::lookup_static::<Platform>(p.handle() as *const _).is_some());
    }
}
