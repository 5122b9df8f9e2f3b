//! Writing a fixed file: through a temporary file in the same directory and a rename, keeping
//! the file's permissions, following a symlink to its target, and refusing to overwrite a
//! file that changed since it was read.

use std::io::Write;
use std::path::Path;

pub fn write_atomic(path: &Path, read_bytes: &[u8], new_text: &str) -> Result<(), String> {
    // A symlink stays a link: its target is what gets replaced.
    let target = std::fs::canonicalize(path).map_err(|e| e.to_string())?;
    let current = std::fs::read(&target).map_err(|e| e.to_string())?;
    if current != read_bytes {
        return Err("the file changed on disk since it was read; it was not written".into());
    }
    let dir = target.parent().ok_or("the file has no parent directory")?;
    let permissions = std::fs::metadata(&target)
        .map_err(|e| e.to_string())?
        .permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".toolcheck-")
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a temporary file beside it: {e}"))?;
    temp.write_all(new_text.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| e.to_string())?;
    std::fs::set_permissions(temp.path(), permissions).map_err(|e| e.to_string())?;
    temp.persist(&target).map_err(|e| e.error.to_string())?;
    Ok(())
}
