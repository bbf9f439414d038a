//! The device clock: nanoseconds of CLOCK_MONOTONIC. Event profiling timestamps,
//! `clGetHostTimer` and `clGetDeviceAndHostTimer` all read it, so they are comparable.

pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Resolution of `now_ns` in nanoseconds (`CL_DEVICE_PROFILING_TIMER_RESOLUTION`,
/// `CL_PLATFORM_HOST_TIMER_RESOLUTION`).
pub fn resolution_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as above.
    unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64).max(1)
}
