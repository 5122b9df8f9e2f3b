//! Writing a fixed file without losing anything: through a temporary file in the same
//! directory and a rename, keeping the file's permissions, owner and extended attributes,
//! following a symlink to its target, and refusing whenever the write could lose data.
//!
//! "Changed since it was read" is checked three times: the size, modification time and inode
//! before the temporary file is created, the content once it is written (the bytes as read,
//! or for a dataset written a chunk at a time a hash of them), and the stamp again
//! immediately before the rename,
//! so bytes an agent appends while toolcheck works are not overwritten. What remains is the
//! interval between that last check and the rename (a few system calls): a filesystem offers
//! no compare-and-swap rename, so an append landing exactly there is lost. Files with more
//! than one hard link and read-only files are refused: a rename would split the links, and
//! a read-only file says it must not be rewritten.
//!
//! A file another process holds open for writing is refused by name (`holders`): an agent
//! that keeps its session open would go on writing to the replaced file. A fix that only
//! adds bytes at the end (an appended record) is instead appended in place, without a
//! rename, so a writer that appends too loses nothing; one that writes at its own offset
//! would overwrite the addition, and is refused.
//!
//! The temporary file is `.toolcheck-XXXXXX.tmp` (six random letters or digits), locked
//! with `flock` while it exists, and removed when the write fails. A run killed outright
//! (`kill -9`, a crash, power loss) cannot remove it, so before writing into a directory a
//! run removes the temporaries of that exact pattern left there that no process holds
//! locked (a live run holds its lock; a killed one's is gone with it) and that are older
//! than `LOCK_WINDOW` (the instant between creating one and locking it), or where locks
//! cannot be had, older than `STALE_AFTER`. Were a live one removed anyway (a file system
//! without locks, a run paused for that long), its rename fails and its file is left
//! untouched. The staged directories of `fix::swap` (`.toolcheck-XXXXXX.dir`) go the same
//! way. Directory walks never pick
//! these files: they are hidden and not `.json`.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use super::holders;
use crate::read::FileStamp;

/// Why a fixed file was not written. The file is untouched in every case.
#[derive(Debug)]
pub struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err(message: impl Into<String>) -> WriteError {
    WriteError(message.into())
}

/// Replaces the file at `path` (read as `read_bytes`, with `stamp` then) with `new_contents`
/// (text already encoded as the file was).
pub fn write_atomic(
    path: &Path,
    read_bytes: &[u8],
    stamp: Option<&FileStamp>,
    new_contents: impl AsRef<[u8]>,
) -> Result<(), WriteError> {
    let new_contents = new_contents.as_ref();
    if let Some(tail) = new_contents
        .strip_prefix(read_bytes)
        .filter(|tail| !tail.is_empty())
    {
        return append_in_place(path, read_bytes, stamp, tail);
    }
    let mut pending = prepare(path, stamp)?;
    pending
        .file()
        .write_all(new_contents)
        .map_err(|e| err(format!("cannot write the temporary file: {e}")))?;
    pending.commit(read_bytes.len() as u64, &|target| {
        let current =
            std::fs::read(target).map_err(|e| err(format!("cannot read it again: {e}")))?;
        Ok(current == read_bytes)
    })
}

/// Adds `tail` at the end of the file at `path` (read as `read_bytes`), once it is known to
/// hold exactly those bytes still; refused like a replacement when it is read-only, changed
/// or held by a writer that does not append.
fn append_in_place(
    path: &Path,
    read_bytes: &[u8],
    stamp: Option<&FileStamp>,
    tail: &[u8],
) -> Result<(), WriteError> {
    let (target, meta) = resolve(path, stamp)?;
    let overwriting: Vec<_> = holders::writers_of(&target)
        .into_iter()
        .filter(|h| !h.append)
        .collect();
    if let Some(why) = holders::refusal(&overwriting) {
        return Err(err(why));
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&target)
        .map_err(|e| err(format!("cannot open it to append: {e}")))?;
    let current = std::fs::read(&target).map_err(|e| err(format!("cannot read it again: {e}")))?;
    let now = file
        .metadata()
        .map_err(|e| err(format!("cannot stat it: {e}")))?;
    if current != read_bytes || FileStamp::of(&now) != FileStamp::of(&meta) {
        return Err(changed());
    }
    file.write_all(tail)
        .map_err(|e| err(format!("cannot append to it: {e}")))?;
    file.sync_data()
        .map_err(|e| err(format!("cannot flush it: {e}")))
}

/// The file `path` names (a symlink's target: a link stays a link) and its metadata, once
/// it is known to be writable and to have the stamp it was read with.
fn resolve(
    path: &Path,
    stamp: Option<&FileStamp>,
) -> Result<(PathBuf, std::fs::Metadata), WriteError> {
    let target = std::fs::canonicalize(path).map_err(|e| err(format!("cannot resolve it: {e}")))?;
    let meta = std::fs::metadata(&target).map_err(|e| err(format!("cannot stat it: {e}")))?;
    if meta.permissions().readonly() {
        return Err(err(
            "the file is read-only; it was not written (make it writable to apply fixes)",
        ));
    }
    if stamp.is_some_and(|s| *s != FileStamp::of(&meta)) {
        return Err(changed());
    }
    Ok((target, meta))
}

/// Refuses a file that another process holds open for writing.
fn refuse_held(target: &Path) -> Result<(), WriteError> {
    match holders::refusal(&holders::writers_of(target)) {
        Some(why) => Err(err(why)),
        None => Ok(()),
    }
}

/// A write begun: the temporary file beside the target, locked, that the new contents are
/// written into before [`Pending::commit`] renames it over the target. Dropped without a
/// commit, the temporary file is removed and the target is untouched.
pub struct Pending {
    target: PathBuf,
    dir: PathBuf,
    meta: std::fs::Metadata,
    temp: tempfile::NamedTempFile,
}

/// Begins replacing the file at `path` (whose stamp was `stamp` when read): refuses a
/// read-only or hard-linked file and one whose stamp changed, then creates the temporary
/// file. A big file is streamed into [`Pending::file`] a chunk at a time.
pub fn prepare(path: &Path, stamp: Option<&FileStamp>) -> Result<Pending, WriteError> {
    let (target, meta) = resolve(path, stamp)?;
    refuse_hard_links(&meta)?;
    refuse_held(&target)?;
    let dir = target
        .parent()
        .ok_or_else(|| err("the file has no parent directory"))?
        .to_path_buf();
    remove_stale_temporaries_once(&dir);
    let temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_RANDOM)
        .tempfile_in(&dir)
        .map_err(|e| err(format!("cannot create a temporary file beside it: {e}")))?;
    // Best effort: without locks, the age of a temporary alone keeps it from a later run.
    lock(temp.as_file());
    Ok(Pending {
        target,
        dir,
        meta,
        temp,
    })
}

/// The refusal of a file that changed on disk since it was read.
pub(crate) fn changed() -> WriteError {
    err("the file changed on disk since it was read; it was not written")
}

impl Pending {
    /// The temporary file, to write the new contents into.
    pub fn file(&mut self) -> &mut std::fs::File {
        self.temp.as_file_mut()
    }

    /// The file being replaced (a symlink's target).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Gives the temporary file the target's permissions, owner and extended attributes,
    /// checks that the target still holds what was read (`unchanged`, then its size,
    /// modification time and inode against `read_len` and the first look), and renames the
    /// temporary file over it.
    pub fn commit(
        self,
        read_len: u64,
        unchanged: &dyn Fn(&Path) -> Result<bool, WriteError>,
    ) -> Result<(), WriteError> {
        let Pending {
            target,
            dir,
            meta,
            temp,
        } = self;
        std::fs::set_permissions(temp.path(), meta.permissions())
            .map_err(|e| err(format!("cannot keep the file's permissions: {e}")))?;
        keep_owner_and_attributes(temp.as_file(), &target, &meta)?;
        temp.as_file()
            .sync_all()
            .map_err(|e| err(format!("cannot flush the temporary file: {e}")))?;
        if !unchanged(&target)? {
            return Err(changed());
        }
        // The last look before the rename: an append since the first check shows here.
        let now = std::fs::metadata(&target).map_err(|e| err(format!("cannot stat it: {e}")))?;
        if FileStamp::of(&now) != FileStamp::of(&meta) || now.len() != read_len {
            return Err(changed());
        }
        refuse_held(&target)?;
        temp.persist(&target)
            .map_err(|e| err(format!("cannot replace the file: {}", e.error)))?;
        // The rename is durable once the directory is flushed; a failure here loses nothing.
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// The temporary file's name: [`TEMP_PREFIX`], [`TEMP_RANDOM`] letters or digits, and
/// [`TEMP_SUFFIX`].
const TEMP_PREFIX: &str = ".toolcheck-";
const TEMP_SUFFIX: &str = ".tmp";
const TEMP_RANDOM: usize = 6;

/// How old a temporary must be before a later run removes it where locks cannot tell a
/// live run's from a killed one's.
const STALE_AFTER: Duration = Duration::from_secs(15 * 60);

/// A staged directory's suffix (`fix::swap`): `.toolcheck-XXXXXX.dir`.
pub(crate) const STAGE_SUFFIX: &str = ".dir";

/// The temporary name pattern, for `fix::swap`'s staged directories.
pub(crate) fn stage_builder() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(TEMP_PREFIX)
        .suffix(STAGE_SUFFIX)
        .rand_bytes(TEMP_RANDOM);
    builder
}

/// How old an unlocked temporary must be before a later run removes it when locks work:
/// longer than the few system calls between creating one and locking it.
const LOCK_WINDOW: Duration = Duration::from_secs(10);

/// Whether `name` is exactly the pattern of this module's temporary files (`.tmp`) or of
/// `fix::swap`'s staged directories (`.dir`).
fn is_temporary_name(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(TEMP_PREFIX))
        .and_then(|n| {
            n.strip_suffix(TEMP_SUFFIX)
                .or_else(|| n.strip_suffix(STAGE_SUFFIX))
        })
        .is_some_and(|r| r.len() == TEMP_RANDOM && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// [`remove_stale_temporaries`] once per directory and run: a walk writes many files into
/// one directory, and listing it for each would cost the files times its entries.
pub(crate) fn remove_stale_temporaries_once(dir: &Path) {
    static SWEPT: LazyLock<Mutex<HashSet<PathBuf>>> = LazyLock::new(Mutex::default);
    let first = SWEPT
        .lock()
        .is_ok_and(|mut swept| swept.insert(dir.to_path_buf()));
    if first {
        remove_stale_temporaries(dir);
    }
}

/// Removes from `dir` the temporaries a killed run left: regular files (and staged
/// directories) named exactly as this module names them, that no process holds locked and
/// last modified more than [`LOCK_WINDOW`] ago ([`STALE_AFTER`] without locks). Returns how many were removed; what cannot be read or removed is left.
fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        if !is_temporary_name(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        // Not through a link: only a regular file (or a staged directory) of this
        // directory is a candidate.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let is_stage = meta.is_dir() && entry.file_name().to_string_lossy().ends_with(STAGE_SUFFIX);
        if !meta.is_file() && !is_stage {
            continue;
        }
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok());
        let Ok(file) = std::fs::File::open(&path) else {
            continue;
        };
        // A live run holds its lock until it is done; a killed run's went with it. Where
        // locks cannot be had, age alone tells.
        let stale = match lock(&file) {
            Lock::Held => false,
            Lock::Taken => age.is_some_and(|a| a > LOCK_WINDOW),
            Lock::Unsupported => age.is_some_and(|a| a > STALE_AFTER),
        };
        // The lock is held until the file is closed, after the removal.
        let gone = stale
            && same_file(&file, &meta)
            && if is_stage {
                std::fs::remove_dir_all(&path).is_ok()
            } else {
                std::fs::remove_file(&path).is_ok()
            };
        if gone {
            removed += 1;
        }
    }
    removed
}

/// Whether an exclusive lock on a file was taken, is held by another process, or cannot be
/// had here (no `flock`, or a file system without locks).
#[derive(Debug, PartialEq, Eq)]
// Without `flock` a lock is never taken nor seen held.
#[cfg_attr(not(all(unix, not(target_os = "solaris"))), allow(dead_code))]
pub(crate) enum Lock {
    Taken,
    Held,
    Unsupported,
}

#[cfg(all(unix, not(target_os = "solaris")))]
pub(crate) fn lock(file: &std::fs::File) -> Lock {
    use rustix::fs::{flock, FlockOperation};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Lock::Taken,
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Lock::Held,
        Err(_) => Lock::Unsupported,
    }
}

#[cfg(not(all(unix, not(target_os = "solaris"))))]
fn lock(_file: &std::fs::File) -> Lock {
    Lock::Unsupported
}

/// Whether the opened `file` is the one `meta` describes (not one put in its place since).
#[cfg(unix)]
fn same_file(file: &std::fs::File, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    file.metadata()
        .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
}

#[cfg(not(unix))]
fn same_file(_file: &std::fs::File, _meta: &std::fs::Metadata) -> bool {
    true
}

#[cfg(unix)]
fn refuse_hard_links(meta: &std::fs::Metadata) -> Result<(), WriteError> {
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 {
        return Err(err(format!(
            "the file has {} hard links, and replacing it would split them; it was not written (copy it, fix the copy, and move it back)",
            meta.nlink()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_hard_links(_meta: &std::fs::Metadata) -> Result<(), WriteError> {
    Ok(())
}

/// Gives the temporary file the original's owner, group and extended attributes; refuses
/// when that is not possible, since the fixed file would otherwise differ in more than
/// its bytes.
#[cfg(unix)]
fn keep_owner_and_attributes(
    temp: &std::fs::File,
    target: &Path,
    meta: &std::fs::Metadata,
) -> Result<(), WriteError> {
    use std::os::unix::fs::MetadataExt;
    let temp_meta = temp
        .metadata()
        .map_err(|e| err(format!("cannot stat the temporary file: {e}")))?;
    if temp_meta.uid() != meta.uid() || temp_meta.gid() != meta.gid() {
        std::os::unix::fs::fchown(temp, Some(meta.uid()), Some(meta.gid())).map_err(|e| {
            err(format!(
                "cannot keep the file's owner ({}:{}): {e}; it was not written",
                meta.uid(),
                meta.gid()
            ))
        })?;
    }
    let names = match xattr::list(target) {
        Ok(names) => names,
        // A filesystem without extended attributes has none to keep.
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => return Ok(()),
        Err(e) if e.raw_os_error() == Some(95) => return Ok(()),
        Err(e) => return Err(err(format!("cannot read its extended attributes: {e}"))),
    };
    for name in names {
        let Some(value) = xattr::get(target, &name)
            .map_err(|e| err(format!("cannot read its extended attributes: {e}")))?
        else {
            continue;
        };
        xattr::FileExt::set_xattr(temp, &name, &value).map_err(|e| {
            err(format!(
                "cannot keep the extended attribute {:?}: {e}; it was not written",
                name
            ))
        })?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn keep_owner_and_attributes(
    _temp: &std::fs::File,
    _target: &Path,
    _meta: &std::fs::Metadata,
) -> Result<(), WriteError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_temporary_pattern_is_ours() {
        for (name, ours) in [
            (".toolcheck-a1B2c3.tmp", true),
            (".toolcheck-a1B2c.tmp", false),
            (".toolcheck-a1B2c3d.tmp", false),
            (".toolcheck-a1-2c3.tmp", false),
            (".toolcheck-a1B2c3", false),
            ("toolcheck-a1B2c3.tmp", false),
            (".toolcheck-a1B2c3.tmp.json", false),
        ] {
            assert_eq!(is_temporary_name(name.as_ref()), ours, "{name}");
        }
    }

    #[cfg(all(unix, not(target_os = "solaris")))]
    #[test]
    fn stale_temporaries_go_unless_locked_or_recent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = std::time::SystemTime::now() - 2 * STALE_AFTER;
        let make = |name: &str, modified| {
            let file = std::fs::File::create(dir.path().join(name)).expect("create");
            file.set_modified(modified).expect("set mtime");
            file
        };
        make(".toolcheck-stale1.tmp", old);
        let held = make(".toolcheck-held01.tmp", old);
        assert_eq!(lock(&held), Lock::Taken);
        make(".toolcheck-fresh1.tmp", std::time::SystemTime::now());
        make(".toolcheck-other.tmp", old);
        // A killed run's temporary, unlocked, a minute old: gone without waiting longer.
        make(
            ".toolcheck-killed.tmp",
            std::time::SystemTime::now() - 6 * LOCK_WINDOW,
        );
        // A killed run's staged directory, with what it held.
        let stage = dir.path().join(".toolcheck-stage1.dir");
        std::fs::create_dir(&stage).expect("mkdir");
        std::fs::write(stage.join("message_0.json"), "{}").expect("write");
        std::fs::File::open(&stage)
            .and_then(|d| d.set_modified(old))
            .expect("set mtime");
        assert_eq!(remove_stale_temporaries(dir.path()), 3);
        for (name, kept) in [
            (".toolcheck-stale1.tmp", false),
            (".toolcheck-killed.tmp", false),
            (".toolcheck-stage1.dir", false),
            (".toolcheck-held01.tmp", true),
            (".toolcheck-fresh1.tmp", true),
            (".toolcheck-other.tmp", true),
        ] {
            assert_eq!(dir.path().join(name).exists(), kept, "{name}");
        }
    }
}
