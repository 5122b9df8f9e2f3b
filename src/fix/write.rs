//! Writing a fixed file without losing anything: through a temporary file in the same
//! directory and a rename, keeping the file's permissions, owner and extended attributes,
//! following a symlink to its target, and refusing whenever the write could lose data.
//!
//! "Changed since it was read" is checked twice: the content before the temporary file is
//! written, and the size, modification time and inode again immediately before the rename,
//! so bytes an agent appends while toolcheck works are not overwritten. What remains is the
//! interval between that last check and the rename (a few system calls): a filesystem offers
//! no compare-and-swap rename, so an append landing exactly there is lost. Files with more
//! than one hard link and read-only files are refused: a rename would split the links, and
//! a read-only file says it must not be rewritten.

use std::io::Write;
use std::path::Path;

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
    // A symlink stays a link: its target is what gets replaced.
    let target = std::fs::canonicalize(path).map_err(|e| err(format!("cannot resolve it: {e}")))?;
    let meta = std::fs::metadata(&target).map_err(|e| err(format!("cannot stat it: {e}")))?;
    if meta.permissions().readonly() {
        return Err(err(
            "the file is read-only; it was not written (make it writable to apply fixes)",
        ));
    }
    refuse_hard_links(&meta)?;
    let changed = || err("the file changed on disk since it was read; it was not written");
    if stamp.is_some_and(|s| *s != FileStamp::of(&meta)) {
        return Err(changed());
    }
    let current = std::fs::read(&target).map_err(|e| err(format!("cannot read it again: {e}")))?;
    if current != read_bytes {
        return Err(changed());
    }
    let dir = target
        .parent()
        .ok_or_else(|| err("the file has no parent directory"))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".toolcheck-")
        .tempfile_in(dir)
        .map_err(|e| err(format!("cannot create a temporary file beside it: {e}")))?;
    temp.write_all(new_contents.as_ref())
        .map_err(|e| err(format!("cannot write the temporary file: {e}")))?;
    std::fs::set_permissions(temp.path(), meta.permissions())
        .map_err(|e| err(format!("cannot keep the file's permissions: {e}")))?;
    keep_owner_and_attributes(temp.as_file(), &target, &meta)?;
    temp.as_file()
        .sync_all()
        .map_err(|e| err(format!("cannot flush the temporary file: {e}")))?;
    // The last look before the rename: an append since the first check shows here.
    let now = std::fs::metadata(&target).map_err(|e| err(format!("cannot stat it: {e}")))?;
    if FileStamp::of(&now) != FileStamp::of(&meta) || now.len() != read_bytes.len() as u64 {
        return Err(changed());
    }
    temp.persist(&target)
        .map_err(|e| err(format!("cannot replace the file: {}", e.error)))?;
    // The rename is durable once the directory is flushed; a failure here loses nothing.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
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
