//! What the targets that build files share: a directory per input, a snapshot of a
//! directory tree, and named invariants that `TOOLCHECK_FUZZ_ALLOW` can turn from crashes into
//! one line on stderr.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory of its own for each input, removed afterwards.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh directory named for `target` under the system's temporary directory.
    pub fn new(target: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolcheck-fuzz-{target}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        drop(std::fs::remove_dir_all(&dir));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Read-only files go too: removing an entry needs only its directory writable.
        drop(std::fs::remove_dir_all(&self.0));
    }
}

/// One entry of a directory tree, as a snapshot compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

/// Every entry under `root` (links not followed), by its path relative to `root`; a link by
/// its target, relative to `root` when inside it.
pub fn tree(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                // Relative to the root, so two copies of a tree compare equal.
                let target = std::fs::read_link(&path).unwrap_or_default();
                let target = target
                    .strip_prefix(root)
                    .map_or(target.clone(), Path::to_path_buf);
                out.insert(rel, Entry::Link(target));
            } else if kind.is_dir() {
                out.insert(rel, Entry::Dir);
                stack.push(path);
            } else {
                out.insert(rel, Entry::File(std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    out
}

/// The paths whose entries differ between two snapshots (added, removed or changed).
pub fn changed_paths(
    before: &BTreeMap<PathBuf, Entry>,
    after: &BTreeMap<PathBuf, Entry>,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = before
        .iter()
        .filter(|(p, e)| after.get(*p) != Some(*e))
        .map(|(p, _)| p.clone())
        .collect();
    out.extend(after.keys().filter(|p| !before.contains_key(*p)).cloned());
    out.sort();
    out
}

/// Fails invariant `name` of `target`: a panic, unless `TOOLCHECK_FUZZ_ALLOW` lists the
/// invariant; then `Err`, which ends the input's check, after one line on stderr per
/// invariant.
// `Err` carries nothing: the message is printed, and `?` only ends the check.
#[allow(clippy::result_unit_err)]
pub fn fail(target: &str, name: &str, message: String) -> Result<(), ()> {
    static ALLOWED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let allowed = ALLOWED.get_or_init(|| {
        std::env::var("TOOLCHECK_FUZZ_ALLOW")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    if !allowed.iter().any(|a| a == name) {
        panic!("{target} invariant `{name}` failed: {message}");
    }
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|s| s == name) {
        eprintln!("toolcheck-fuzz: allowed failure of {target} invariant `{name}`: {message}");
        seen.push(name.to_string());
    }
    Err(())
}

/// Runs `f` with standard output sent to /dev/null: the commands the targets run print
/// diffs and reports, which no check reads, and which would flood a fuzzing run or a test's
/// output. Standard error (toolcheck's error lines, libFuzzer's) stays.
pub fn quiet<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let _ = std::io::stdout().flush();
        let null = std::fs::OpenOptions::new().write(true).open("/dev/null");
        // SAFETY: dup and dup2 on descriptor 1 and one this function owns; the saved copy is
        // put back and closed below.
        let saved = unsafe { libc::dup(1) };
        if let (Ok(null), true) = (&null, saved >= 0) {
            unsafe { libc::dup2(null.as_raw_fd(), 1) };
        }
        let out = f();
        let _ = std::io::stdout().flush();
        if saved >= 0 {
            // SAFETY: as above.
            unsafe {
                libc::dup2(saved, 1);
                libc::close(saved);
            }
        }
        out
    }
    #[cfg(not(unix))]
    f()
}
