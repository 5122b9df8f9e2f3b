//! Which other processes hold a file open for writing.
//!
//! An agent that keeps its session file open and appends to it (Codex's rollout recorder
//! does) goes on writing to the old file once a fixed copy is renamed over the path, and
//! everything it writes afterwards is lost. So before a file is replaced, the processes
//! holding it open for writing are looked up, and the write is refused when there are any.
//!
//! On Linux every process's descriptors are listed under `/proc/PID/fd` and their open
//! flags in `/proc/PID/fdinfo/FD`; a descriptor is the file's when it names the same device
//! and inode. Only processes this user may inspect are seen (all of them as root), which
//! covers the user's own agents. Listing every descriptor of the machine costs a few
//! milliseconds, so the set of files open for writing is listed once and reused for
//! [`FRESH_FOR`]; a process that opens the file within that time before the rename is not
//! seen, but the content and stamp checks of the write still are made. Elsewhere the
//! platform offers no such listing without another program, and [`writers_of`] finds none
//! (docs/safety.md says so).

use std::path::Path;

/// A process holding a file open for writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    /// Whether every descriptor it holds the file by was opened to append (`O_APPEND`):
    /// then its writes land at the end whatever was added before them.
    pub append: bool,
    /// The process's command name (`/proc/PID/comm`), or empty when it cannot be read.
    pub name: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.name.is_empty() {
            write!(f, "process {}", self.pid)
        } else {
            write!(
                f,
                "process {} ({})",
                self.pid,
                crate::escape::value(&self.name)
            )
        }
    }
}

/// How long one listing of the open files is reused.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const FRESH_FOR: std::time::Duration = std::time::Duration::from_millis(500);

/// The other processes that hold `path` (resolved) open for writing.
pub fn writers_of(path: &Path) -> Vec<Holder> {
    imp::writers_of(path)
}

/// The refusal message for a file that `holders` hold open, or `None` when nobody does.
pub fn refusal(holders: &[Holder]) -> Option<String> {
    let first = holders.first()?;
    let more = match holders.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!(
        "it is open for writing by {first}{more}, which would go on writing to the replaced file and lose what it writes; it was not written (stop the agent, then run again)"
    ))
}

#[cfg(target_os = "linux")]
mod imp {
    use super::{Holder, FRESH_FOR};
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;
    use std::sync::Mutex;
    use std::time::Instant;

    /// Files open for writing by other processes, by (device, inode).
    type Index = HashMap<(u64, u64), Vec<Holder>>;

    static LISTED: Mutex<Option<(Instant, Index)>> = Mutex::new(None);

    pub fn writers_of(path: &Path) -> Vec<Holder> {
        lookup(path, false)
    }

    /// [`writers_of`] from a new listing, whatever the age of the last one.
    #[cfg(test)]
    pub fn writers_of_now(path: &Path) -> Vec<Holder> {
        lookup(path, true)
    }

    fn lookup(path: &Path, fresh: bool) -> Vec<Holder> {
        let Ok(meta) = std::fs::metadata(path) else {
            return Vec::new();
        };
        let key = (meta.dev(), meta.ino());
        let Ok(mut listed) = LISTED.lock() else {
            return list().remove(&key).unwrap_or_default();
        };
        let stale = fresh
            || listed
                .as_ref()
                .is_none_or(|(at, _)| at.elapsed() > FRESH_FOR);
        if stale {
            *listed = Some((Instant::now(), list()));
        }
        let candidates = listed
            .as_ref()
            .and_then(|(_, index)| index.get(&key).cloned())
            .unwrap_or_default();
        drop(listed);
        // The listing may be up to `FRESH_FOR` old: a process that has closed the file since,
        // or a file deleted since whose inode a new file took, would be a false holder. Each
        // is looked at again now, its descriptors only.
        candidates
            .into_iter()
            .filter_map(|holder| still_holding(holder, key))
            .collect()
    }

    /// `holder` as it holds the file `key` now, or `None` when it no longer does.
    fn still_holding(holder: Holder, key: (u64, u64)) -> Option<Holder> {
        let base = Path::new("/proc").join(holder.pid.to_string());
        let mut append = None;
        for fd in std::fs::read_dir(base.join("fd")).ok()?.flatten() {
            let Some(flags) = write_flags(&base, &fd.file_name()) else {
                continue;
            };
            let same = std::fs::metadata(fd.path()).is_ok_and(|m| (m.dev(), m.ino()) == key);
            if same {
                let this = flags & O_APPEND != 0;
                append = Some(append.unwrap_or(true) && this);
            }
        }
        append.map(|append| Holder { append, ..holder })
    }

    /// Every descriptor open for writing in every process but this one.
    fn list() -> Index {
        let mut index = Index::new();
        let me = std::process::id();
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return index;
        };
        for entry in procs.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me {
                continue;
            }
            let base = entry.path();
            // Another user's process without the right to inspect it: not listed.
            let Ok(fds) = std::fs::read_dir(base.join("fd")) else {
                continue;
            };
            let mut name = None;
            for fd in fds.flatten() {
                let Some(flags) = write_flags(&base, &fd.file_name()) else {
                    continue;
                };
                // `metadata` follows the descriptor's link to the open file itself, even
                // one renamed or deleted since.
                let Ok(meta) = std::fs::metadata(fd.path()) else {
                    continue;
                };
                if !meta.is_file() {
                    continue;
                }
                let name = name.get_or_insert_with(|| {
                    std::fs::read_to_string(base.join("comm"))
                        .map(|c| c.trim_end().to_string())
                        .unwrap_or_default()
                });
                let append = flags & O_APPEND != 0;
                let holders = index.entry((meta.dev(), meta.ino())).or_default();
                match holders.iter_mut().find(|h| h.pid == pid) {
                    Some(holder) => holder.append &= append,
                    None => holders.push(Holder {
                        pid,
                        append,
                        name: name.clone(),
                    }),
                }
            }
        }
        index
    }

    /// `O_APPEND` in the octal flags of `/proc/PID/fdinfo/FD` (the same on every Linux
    /// architecture).
    const O_APPEND: u32 = 0o2000;

    /// The open flags of descriptor `fd` of the process at `base` when it was opened for
    /// writing (`O_WRONLY` or `O_RDWR` in its access mode), else `None`.
    fn write_flags(base: &Path, fd: &std::ffi::OsStr) -> Option<u32> {
        let info = std::fs::read_to_string(base.join("fdinfo").join(fd)).ok()?;
        info.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .filter(|flags| flags & 0o3 != 0)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Holder;
    use std::path::Path;

    pub fn writers_of(_path: &Path) -> Vec<Holder> {
        Vec::new()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A child shell that opens `path` with `redirect` (`>>` or `<`) on descriptor 3 and
    /// waits until its standard input closes; returned once the file is open.
    fn holding(path: &Path, redirect: &str) -> std::process::Child {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec 3{redirect}\"$1\"; echo ready; read _"))
            .arg("sh")
            .arg(path)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut ready = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().expect("stdout")),
            &mut ready,
        )
        .expect("ready");
        child
    }

    fn session() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("session.jsonl");
        std::fs::write(&path, "{}\n").expect("write");
        (dir, path)
    }

    #[test]
    fn a_child_holding_the_file_for_writing_is_found_and_named() {
        let (_dir, path) = session();
        let mut child = holding(&path, ">>");
        let holders = imp::writers_of_now(&path);
        drop(child.stdin.take());
        let _ = child.wait();
        let holder = holders
            .iter()
            .find(|h| h.pid == child.id())
            .expect("the child is found");
        assert_eq!(holder.name, "sh");
        assert!(holder.append, "opened with >>");
        let message = refusal(&holders).expect("a refusal");
        let expected = format!("it is open for writing by process {} (sh)", child.id());
        assert!(message.starts_with(&expected), "{message}");
    }

    #[test]
    fn a_holder_that_has_exited_is_not_taken_from_the_last_listing() {
        let (_dir, path) = session();
        let mut child = holding(&path, ">>");
        assert!(imp::writers_of_now(&path)
            .iter()
            .any(|h| h.pid == child.id()));
        drop(child.stdin.take());
        let _ = child.wait();
        // Within `FRESH_FOR` of that listing: the holder is looked at again. (Before, a
        // deleted file's inode taken by a new file made its writer refused.)
        assert!(writers_of(&path).iter().all(|h| h.pid != child.id()));
    }

    #[test]
    fn a_writer_at_its_own_offset_is_not_an_appender() {
        let (_dir, path) = session();
        let mut child = holding(&path, "<>");
        let holders = imp::writers_of_now(&path);
        drop(child.stdin.take());
        let _ = child.wait();
        let holder = holders.iter().find(|h| h.pid == child.id()).expect("found");
        assert!(!holder.append);
    }

    #[test]
    fn a_reader_is_not_a_writer() {
        let (_dir, path) = session();
        let mut child = holding(&path, "<");
        let holders = imp::writers_of_now(&path);
        drop(child.stdin.take());
        let _ = child.wait();
        assert!(holders.iter().all(|h| h.pid != child.id()), "{holders:?}");
        assert_eq!(refusal(&[]), None);
    }
}
