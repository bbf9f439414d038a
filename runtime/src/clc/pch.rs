//! A precompiled header for what every OpenCL C build reads first: clang's default header
//! (opencl-c-base.h, which the driver includes for OpenCL) and Clift's `clift_features.h`.
//! Parsing them is a large part of clang's front end on a small kernel; loading the
//! precompiled form is cheaper.
//!
//! A precompiled header is made with the build's own clang arguments (the source and output
//! files aside), so it is kept per set of arguments: `<cache dir>/pch-<key>/` holds the
//! header it was made from and `header.pch`. It is made once, and only kept when clang made it
//! without a word; a set of arguments it cannot be made for, or whose header failed a build
//! that succeeded without it, is marked (`pch-<key>.none`) and builds without it.
//!
//! A build uses it only where the result is the same as without it, and otherwise builds as
//! before (see `clc::run_compiler`): only in the compile server's one-request pipeline, and its
//! result only when clang printed nothing (a message pointing into the header would name the
//! header's folder here); every other outcome (an error, a warning, a crash, a header that
//! fails clang's checks because it changed) is thrown away and the build runs without it.
//! Its folder's files are left out of the build's dependencies.

use super::server;
use crate::cache;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Names the way the header is made; part of the key.
const RECIPE: &str = "clang -x cl-header clift_features.h with the build's arguments; v1";

/// The arguments that name a build's files: left out of the key and of the header's command.
fn is_file_arg(args: &[OsString], i: usize) -> bool {
    let a = &args[i];
    let prev = i.checked_sub(1).map(|p| &args[p]);
    a == "-c"
        || a == "-emit-llvm"
        || a == "-MD"
        || a == "program.cl"
        || matches!(prev, Some(p) if p == "-MF" || p == "-o" || p == "-include")
        || a == "-MF"
        || a == "-o"
        || a == "-include"
}

/// The build's arguments with the header included from the precompiled form at `pch`
/// instead of `-include clift_features.h`; None when they do not include it that way.
pub fn with_pch(clang_args: &[OsString], pch: &Path) -> Option<Vec<OsString>> {
    let at = clang_args
        .windows(2)
        .position(|w| w[0] == "-include" && w[1] == "clift_features.h")?;
    let mut out = clang_args.to_vec();
    out[at] = "-include-pch".into();
    out[at + 1] = pch.as_os_str().to_owned();
    Some(out)
}

/// The precompiled header for a build with `clang_args` (made now if needed): its folder and
/// file. None without a cache folder, or when it cannot be made for these arguments.
pub fn for_build(clang: &Path, clang_args: &[OsString], header: &str) -> Option<(PathBuf, PathBuf)> {
    let root = cache::dir()?;
    let stamp = std::fs::metadata(clang)
        .map(|m| format!("{} {} {:?}", clang.display(), m.len(), m.modified().ok()))
        .ok()?;
    let mut key = cache::Key::default()
        .part(env!("CARGO_PKG_VERSION").as_bytes())
        .part(stamp.as_bytes())
        .part(RECIPE.as_bytes())
        .part(header.as_bytes());
    let kept: Vec<&OsString> = (0..clang_args.len())
        .filter(|&i| !is_file_arg(clang_args, i))
        .map(|i| &clang_args[i])
        .collect();
    for a in &kept {
        use std::os::unix::ffi::OsStrExt;
        key = key.part(a.as_bytes());
    }
    let key = key.hex();
    let key = &key[..32.min(key.len())];
    let dir = root.join(format!("pch-{key}"));
    let pch = dir.join("header.pch");
    if pch.is_file() {
        return Some((dir, pch));
    }
    let none = root.join(format!("pch-{key}.none"));
    if none.exists() {
        return None;
    }
    make(clang, &kept, header, &dir, &none).then_some((dir, pch))
}

/// Makes the header in `dir` itself (clang records the path of the header it read, so the
/// folder cannot be renamed afterwards): `clift_features.h` is put there once and never
/// rewritten (clang checks its modification time), `header.pch` written under a name of its
/// own and renamed. Marks `none` when clang fails or says anything. Whether `dir` holds the
/// header now.
fn make(clang: &Path, kept: &[&OsString], header: &str, dir: &Path, none: &Path) -> bool {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!("header.pch.{}-{n}.tmp", std::process::id());
    let source = dir.join("clift_features.h");
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    if !source.is_file() {
        // Written under a name of its own, then linked to its name only if that is free: a
        // reader never sees it half written, and one that is there stays as it is.
        let part = dir.join(format!("{tmp}.h"));
        let put = std::fs::write(&part, header).is_ok();
        let _ = put && std::fs::hard_link(&part, &source).is_ok();
        let _ = std::fs::remove_file(&part);
        if std::fs::read_to_string(&source).ok().as_deref() != Some(header) {
            return false;
        }
    }
    let mut args: Vec<OsString> = kept.iter().map(|a| (*a).clone()).collect();
    args.extend(["-x", "cl-header", "clift_features.h", "-o", &tmp].map(OsString::from));
    let made = server::run(server::Tool::Clang, clang, dir, &args);
    let clean = made.is_ok_and(|out| out.status.success() && out.stderr.is_empty() && out.stdout.is_empty());
    if !clean || std::fs::rename(dir.join(&tmp), dir.join("header.pch")).is_err() {
        let _ = std::fs::remove_file(dir.join(&tmp));
        let _ = std::fs::write(none, b"");
        return false;
    }
    true
}

/// Marks the precompiled header of `dir` (a folder `for_build` gave) as not to be used: a
/// build with it failed where the same build without it succeeded.
pub fn disable(dir: &Path) {
    let mut none = dir.as_os_str().to_owned();
    none.push(".none");
    let _ = std::fs::write(none, b"");
    let _ = std::fs::remove_file(dir.join("header.pch"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_header_replaces_the_include_and_file_arguments_stay_out_of_the_key() {
        let a = args(&[
            "-c",
            "-target",
            "spir64",
            "-emit-llvm",
            "-include",
            "clift_features.h",
            "-I.",
            "-DX=1",
            "-MD",
            "-MF",
            "program.d",
            "-o",
            "program.bc",
            "program.cl",
        ]);
        let kept: Vec<&OsString> = (0..a.len()).filter(|&i| !is_file_arg(&a, i)).map(|i| &a[i]).collect();
        assert_eq!(
            kept,
            args(&["-target", "spir64", "-I.", "-DX=1"]).iter().collect::<Vec<_>>()
        );
        let used = with_pch(&a, Path::new("/c/pch-k/header.pch")).unwrap();
        assert_eq!(used[4], "-include-pch");
        assert_eq!(used[5], "/c/pch-k/header.pch");
        assert_eq!(used.len(), a.len());
        assert!(with_pch(&args(&["-c", "program.cl"]), Path::new("/x.pch")).is_none());
    }
}
