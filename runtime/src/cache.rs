//! The persistent cache of OpenCL C compilations: building the same source with the same
//! options, headers and device again, in any process, skips clang and llvm-spirv.
//!
//! An entry is keyed by a SHA-256 of everything that decides the SPIR-V (Clift's version,
//! the compiler programs, the device's extension and feature list, the options, the source
//! and the embedded headers). Headers that clang read from the file system are recorded in
//! the entry with their own hashes and checked on every hit, so an edited header is a miss (a
//! process hashes a header again when its size, modification time or inode changed).
//! Entries are written to a temporary file and renamed into place, so concurrent processes
//! never see half an entry; each entry carries a checksum, so a corrupted one is detected,
//! removed and rebuilt.
//!
//! Location: `$CLIFT_CACHE_DIR`, else `$XDG_CACHE_HOME/clift`, else `~/.cache/clift`.
//! `CLIFT_CACHE=0` (or `off`) turns it off.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CLIFTCC1";

/// The cache directory, or `None` when the cache is off or no home is known.
pub fn dir() -> Option<PathBuf> {
    if matches!(
        std::env::var("CLIFT_CACHE").as_deref(),
        Ok("0" | "off" | "false" | "no")
    ) {
        return None;
    }
    if let Some(d) = std::env::var_os("CLIFT_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("clift"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|h| PathBuf::from(h).join(".cache").join("clift"))
}

/// Identifies this build of Clift: the path, size, modification time and inode of the file
/// its code was loaded from (libclift.so, or a test binary). Native code in the cache is
/// keyed on it, so a rebuilt Clift never runs an older build's code.
pub fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let path = library_path()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let meta = std::fs::metadata(&path)
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                format!("{} {} {} {}", m.len(), m.mtime(), m.mtime_nsec(), m.ino())
            })
            .unwrap_or_default();
        format!("{} {path} {meta}", env!("CARGO_PKG_VERSION"))
    })
}

/// The file this code was loaded from: libclift.so, or a test binary.
pub fn library_path() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and fills `info`.
    let found = unsafe { libc::dladdr(library_path as *const libc::c_void, &mut info) } != 0;
    if !found || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned a NUL-terminated file name.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
}

/// Builds a key from named parts (each length-prefixed, so parts cannot run together).
#[derive(Default)]
pub struct Key(Sha256);

impl Key {
    pub fn part(mut self, bytes: &[u8]) -> Key {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub fn hex(self) -> String {
        hex(&self.0.finalize())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of a file's contents. Each build and each cache hit checks the same few
/// headers (clang's opencl-c-base.h): a hash is remembered with the file's size, modification
/// time and inode, and computed again when any of them changed.
fn file_hash(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    type Seen = Vec<(PathBuf, (u64, i64, i64, u64), String)>;
    static SEEN: std::sync::Mutex<Seen> = std::sync::Mutex::new(Vec::new());
    let m = std::fs::metadata(path).ok()?;
    let stamp = (m.len(), m.mtime(), m.mtime_nsec(), m.ino());
    if let Ok(seen) = SEEN.lock() {
        if let Some((_, _, h)) = seen.iter().find(|(p, s, _)| p == path && *s == stamp) {
            return Some(h.clone());
        }
    }
    let h = hex(&Sha256::digest(std::fs::read(path).ok()?));
    if let Ok(mut seen) = SEEN.lock() {
        seen.retain(|(p, _, _)| p != path);
        if seen.len() < 256 {
            seen.push((path.to_path_buf(), stamp, h.clone()));
        }
    }
    Some(h)
}

/// A cached compilation: the SPIR-V, clang's diagnostics, and the files it depended on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub spirv: Vec<u8>,
    pub log: String,
    /// Absolute paths of headers read from the file system, with their SHA-256.
    pub deps: Vec<(PathBuf, String)>,
}

impl Entry {
    /// Records `paths` with their current contents' hashes.
    pub fn with_deps(spirv: Vec<u8>, log: String, paths: &[PathBuf]) -> Entry {
        let deps = paths.iter().filter_map(|p| Some((p.clone(), file_hash(p)?))).collect();
        Entry { spirv, log, deps }
    }

    fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        let mut put = |b: &[u8]| {
            body.extend_from_slice(&(b.len() as u64).to_le_bytes());
            body.extend_from_slice(b);
        };
        put(&self.spirv);
        put(self.log.as_bytes());
        put(&(self.deps.len() as u64).to_le_bytes());
        for (p, h) in &self.deps {
            put(p.to_string_lossy().as_bytes());
            put(h.as_bytes());
        }
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&Sha256::digest(&body));
        out.extend_from_slice(&body);
        out
    }

    fn decode(bytes: &[u8]) -> Option<Entry> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let (sum, body) = (rest.get(..32)?, rest.get(32..)?);
        if Sha256::digest(body).as_slice() != sum {
            return None;
        }
        let mut at = 0;
        let mut take = || -> Option<&[u8]> {
            let len = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?) as usize;
            let s = body.get(at + 8..at.checked_add(8 + len)?)?;
            at += 8 + len;
            Some(s)
        };
        let spirv = take()?.to_vec();
        let log = String::from_utf8_lossy(take()?).into_owned();
        let n = u64::from_le_bytes(take()?.try_into().ok()?);
        let mut deps = Vec::new();
        for _ in 0..n {
            let p = PathBuf::from(String::from_utf8_lossy(take()?).into_owned());
            let h = String::from_utf8_lossy(take()?).into_owned();
            deps.push((p, h));
        }
        Some(Entry { spirv, log, deps })
    }
}

/// The entry for `key`, if present, intact, and its headers unchanged. A corrupted entry is
/// removed so the next build replaces it.
pub fn lookup(key: &str) -> Option<Entry> {
    lookup_in(key, "clc")
}

/// A native code image stored under `key` (`.native` files), if present and intact.
pub fn lookup_native(key: &str) -> Option<Vec<u8>> {
    lookup_in(key, "native").map(|e| e.spirv)
}

/// Stores a native code image (best effort).
pub fn store_native(key: &str, image: Vec<u8>) {
    store_in(key, "native", &Entry::with_deps(image, String::new(), &[]));
}

fn lookup_in(key: &str, ext: &str) -> Option<Entry> {
    let path = dir()?.join(format!("{key}.{ext}"));
    let bytes = std::fs::read(&path).ok()?;
    let Some(entry) = Entry::decode(&bytes) else {
        let _ = std::fs::remove_file(&path);
        return None;
    };
    let fresh = entry
        .deps
        .iter()
        .all(|(p, h)| file_hash(p).as_deref() == Some(h.as_str()));
    fresh.then_some(entry)
}

/// Stores an entry (best effort: a cache that cannot be written is simply not used).
pub fn store(key: &str, entry: &Entry) {
    store_in(key, "clc", entry)
}

fn store_in(key: &str, ext: &str, entry: &Entry) {
    let Some(dir) = dir() else { return };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".{key}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    if std::fs::write(&tmp, entry.encode()).is_ok() && std::fs::rename(&tmp, dir.join(format!("{key}.{ext}"))).is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_detect_corruption() {
        let e = Entry {
            spirv: vec![3, 2, 0x23, 7],
            log: "warning".into(),
            deps: vec![("/x.h".into(), "ab".into())],
        };
        let bytes = e.encode();
        assert_eq!(Entry::decode(&bytes), Some(e));
        let mut bad = bytes.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert_eq!(Entry::decode(&bad), None);
        assert_eq!(Entry::decode(&bytes[..bytes.len() - 3]), None);
    }

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(
            Key::default().part(b"ab").part(b"c").hex(),
            Key::default().part(b"a").part(b"bc").hex()
        );
    }
}
