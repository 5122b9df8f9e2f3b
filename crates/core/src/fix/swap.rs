//! Replacing a whole directory in one rename, for session folders whose fix changes
//! several files: all of them change, or none does, even under `kill -9`.
//!
//! The new contents are staged in a sibling directory (`.toolcheck-XXXXXX.dir`, locked with
//! `flock` while the run lives): each changed file written anew with the original's mode and
//! owner, each other entry hard-linked (the same file, so not a byte is copied and its
//! inode, times and attributes stay), the directory given the original's mode. Once every
//! changed file is checked again and the listing is the same, Linux's `renameat2` with
//! `RENAME_EXCHANGE` swaps the two directories atomically, and the staged name, now
//! holding the old files, is removed. A run killed before the swap leaves the folder as
//! it was; after it, the folder as fixed. Either way the staged directory it leaves is
//! removed by the next run that writes beside it (`write::remove_stale_temporaries_once`).
//!
//! Only on Linux; elsewhere, and where the directory holds anything but regular files,
//! [`swap_in`] answers `Ok(false)` and the caller writes file by file.

use std::path::Path;

use super::write::WriteError;

/// A file of the directory that the fix changes: its name in the directory and new bytes.
pub struct Change<'a> {
    pub name: &'a std::ffi::OsStr,
    pub contents: &'a [u8],
}

/// Swaps `dir` for a copy of it with `changes` made, once `check` (run after staging, right
/// before the swap) passes. `Ok(false)`: this platform or directory cannot be swapped,
/// and nothing was done.
pub fn swap_in(
    dir: &Path,
    changes: &[Change<'_>],
    check: &dyn Fn() -> Result<(), WriteError>,
) -> Result<bool, WriteError> {
    imp::swap_in(dir, changes, check)
}

#[cfg(target_os = "linux")]
mod imp {
    use super::{Change, WriteError};
    use std::collections::BTreeMap;
    use std::ffi::OsString;
    use std::io::Write;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;

    use crate::fix::write;

    fn err(message: impl Into<String>) -> WriteError {
        WriteError(message.into())
    }

    /// The directory's entries and their inodes, if all are regular files: a file replaced
    /// by a rename since shows as a new inode.
    fn listing(dir: &Path) -> Result<Option<BTreeMap<OsString, u64>>, WriteError> {
        let mut names = BTreeMap::new();
        let entries =
            std::fs::read_dir(dir).map_err(|e| err(format!("cannot list the folder: {e}")))?;
        for entry in entries {
            let entry = entry.map_err(|e| err(format!("cannot list the folder: {e}")))?;
            let file_type = entry
                .file_type()
                .map_err(|e| err(format!("cannot list the folder: {e}")))?;
            if !file_type.is_file() {
                return Ok(None);
            }
            let ino = entry
                .metadata()
                .map_err(|e| err(format!("cannot list the folder: {e}")))?
                .ino();
            names.insert(entry.file_name(), ino);
        }
        Ok(Some(names))
    }

    pub fn swap_in(
        dir: &Path,
        changes: &[Change<'_>],
        check: &dyn Fn() -> Result<(), WriteError>,
    ) -> Result<bool, WriteError> {
        let dir = std::fs::canonicalize(dir)
            .map_err(|e| err(format!("cannot resolve the folder: {e}")))?;
        let Some(parent) = dir.parent() else {
            return Ok(false);
        };
        let Some(before) = listing(&dir)? else {
            return Ok(false);
        };
        let dir_meta =
            std::fs::metadata(&dir).map_err(|e| err(format!("cannot stat the folder: {e}")))?;
        write::remove_stale_temporaries_once(parent);
        let stage = write::stage_builder()
            .tempdir_in(parent)
            .map_err(|e| err(format!("cannot create a staging folder beside it: {e}")))?;
        // Locked while this run lives, so a later run never takes it for a killed one's.
        let stage_handle = std::fs::File::open(stage.path())
            .map_err(|e| err(format!("cannot open the staging folder: {e}")))?;
        let _ = write::lock(&stage_handle);
        for name in before.keys() {
            let from = dir.join(name);
            let to = stage.path().join(name);
            match changes.iter().find(|c| c.name == name.as_os_str()) {
                Some(change) => {
                    let meta = std::fs::metadata(&from)
                        .map_err(|e| err(format!("cannot stat {}: {e}", from.display())))?;
                    let mut file = std::fs::File::create_new(&to)
                        .map_err(|e| err(format!("cannot stage {}: {e}", from.display())))?;
                    file.write_all(change.contents)
                        .and_then(|()| file.set_permissions(meta.permissions()))
                        .map_err(|e| err(format!("cannot stage {}: {e}", from.display())))?;
                    if file
                        .metadata()
                        .is_ok_and(|m| m.uid() != meta.uid() || m.gid() != meta.gid())
                    {
                        std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()))
                            .map_err(|e| {
                                err(format!("cannot keep the owner of {}: {e}", from.display()))
                            })?;
                    }
                    file.sync_all()
                        .map_err(|e| err(format!("cannot flush {}: {e}", to.display())))?;
                }
                None => std::fs::hard_link(&from, &to)
                    .map_err(|e| err(format!("cannot stage {}: {e}", from.display())))?,
            }
        }
        if changes.iter().any(|c| !before.contains_key(c.name)) {
            return Err(err(
                "a changed file is no longer in the folder; nothing was written",
            ));
        }
        std::fs::set_permissions(
            stage.path(),
            std::fs::Permissions::from_mode(dir_meta.permissions().mode()),
        )
        .map_err(|e| err(format!("cannot keep the folder's permissions: {e}")))?;
        if dir_meta.uid()
            != stage_handle
                .metadata()
                .map(|m| m.uid())
                .unwrap_or(dir_meta.uid())
        {
            std::os::unix::fs::fchown(&stage_handle, Some(dir_meta.uid()), Some(dir_meta.gid()))
                .map_err(|e| err(format!("cannot keep the folder's owner: {e}")))?;
        }
        // The last look: the files as read, and no file added or removed since.
        check()?;
        if listing(&dir)?.as_ref() != Some(&before) {
            return Err(err(
                "a file was added to, replaced in or removed from the folder since it was read; nothing was written",
            ));
        }
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            stage.path(),
            rustix::fs::CWD,
            &dir,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .map_err(|e| {
            err(format!(
                "cannot swap the fixed folder in: {e}; nothing was written"
            ))
        })?;
        if let Ok(d) = std::fs::File::open(parent) {
            let _ = d.sync_all();
        }
        // The staged name now holds the old files; the links keep the unchanged ones alive
        // in the new folder. Dropping the TempDir removes it.
        drop(stage);
        Ok(true)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Change, WriteError};
    use std::path::Path;

    pub fn swap_in(
        _dir: &Path,
        _changes: &[Change<'_>],
        _check: &dyn Fn() -> Result<(), WriteError>,
    ) -> Result<bool, WriteError> {
        Ok(false)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn the_folder_is_swapped_whole_and_unchanged_files_keep_their_inode() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("messages");
        std::fs::create_dir(&dir).expect("mkdir");
        for n in 0..3 {
            std::fs::write(
                dir.join(format!("message_{n}.json")),
                format!("{{\"n\":{n}}}"),
            )
            .expect("write");
        }
        let kept = std::fs::metadata(dir.join("message_0.json"))
            .expect("stat")
            .ino();
        let changes = [
            Change {
                name: "message_1.json".as_ref(),
                contents: b"{\"n\":\"one\"}",
            },
            Change {
                name: "message_2.json".as_ref(),
                contents: b"{\"n\":\"two\"}",
            },
        ];
        assert!(swap_in(&dir, &changes, &|| Ok(())).expect("swapped"));
        let read = |n: u32| std::fs::read_to_string(dir.join(format!("message_{n}.json")));
        assert_eq!(read(0).expect("0"), "{\"n\":0}");
        assert_eq!(read(1).expect("1"), "{\"n\":\"one\"}");
        assert_eq!(read(2).expect("2"), "{\"n\":\"two\"}");
        let meta = std::fs::metadata(dir.join("message_0.json")).expect("stat");
        assert_eq!((meta.ino(), meta.nlink()), (kept, 1));
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(root.path()).expect("list").count(), 1);
    }

    #[test]
    fn a_failed_check_leaves_the_folder_and_no_stage() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("messages");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(dir.join("message_0.json"), "{}").expect("write");
        let changes = [Change {
            name: "message_0.json".as_ref(),
            contents: b"[]",
        }];
        let refused = swap_in(&dir, &changes, &|| Err(WriteError("changed".into())));
        assert!(refused.is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("message_0.json")).expect("read"),
            "{}"
        );
        assert_eq!(std::fs::read_dir(root.path()).expect("list").count(), 1);
    }
}
