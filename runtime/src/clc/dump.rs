//! `CLIFT_DUMP_SOURCES=<dir>`: every OpenCL C program given to clBuildProgram or
//! clCompileProgram is written to `<dir>/<hash>.cl`, its options to `<dir>/<hash>.options`.
//! This captures the programs libraries generate at run time (pyopencl's reductions and scans,
//! BLAS and FFT generators) for the corpus test, or for a bug report.

use crate::cache;

pub fn record(source: &str, options: &str) {
    let Some(dir) = std::env::var_os("CLIFT_DUMP_SOURCES").filter(|d| !d.is_empty()) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let name = cache::Key::default()
        .part(source.as_bytes())
        .part(options.as_bytes())
        .hex();
    let name = &name[..16.min(name.len())];
    // Best effort: a dump that cannot be written does not change the build.
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{name}.cl")), source);
    let _ = std::fs::write(dir.join(format!("{name}.options")), options);
}
