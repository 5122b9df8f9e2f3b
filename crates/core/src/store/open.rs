//! Opening a store for reading without writing anything anywhere near it, and the files
//! SQLite keeps beside a database.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::head;

/// The files SQLite keeps beside a database: its write-ahead log and its rollback journal.
fn sidecars(path: &Path) -> [PathBuf; 2] {
    let with = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    [with("-wal"), with("-journal")]
}

/// What reading the database at `path` reads: the file and any log or journal beside it
/// (`--max-file-size` bounds the sum).
pub fn size(path: &Path) -> std::io::Result<u64> {
    let mut total = std::fs::metadata(path)?.len();
    for sidecar in sidecars(path) {
        total += std::fs::metadata(sidecar).map_or(0, |m| m.len());
    }
    Ok(total)
}

/// Whether the database file's header says it is in WAL mode (bytes 18 and 19 are 2).
fn is_wal(path: &Path) -> bool {
    let head = head(path, 20);
    head.get(18..20) == Some(&[2, 2][..])
}

/// A `file:` URI for `path` with these query parameters: characters the URI syntax gives a
/// meaning to are escaped, so any path names itself.
fn uri(path: &Path, query: &str) -> String {
    use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
    const RESERVED: &AsciiSet = &CONTROLS.add(b'%').add(b'?').add(b'#');
    let path = path.to_string_lossy();
    format!("file:{}?{query}", utf8_percent_encode(&path, RESERVED))
}

/// A database opened for reading, and the private copy it was opened from, if any (kept
/// alive as long as the connection).
pub(super) struct Reader {
    pub conn: Connection,
    _copy: Option<tempfile::TempDir>,
}

/// Opens a database for reading without writing anything anywhere near it: no lock file,
/// no `-wal`/`-shm`, no rollback of a journal. A database with a non-empty log or journal
/// beside it is copied (with them) to a private directory first, and read there as SQLite
/// would read it after a crash: the log replayed, the journal rolled back.
pub(super) fn open_for_reading(path: &Path, name: &str) -> Result<Reader, String> {
    let pending: Vec<PathBuf> = sidecars(path)
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
        .collect();
    if !pending.is_empty() {
        return open_copy(path, name, &pending);
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    // Read-only WAL connections create `-shm` and `-wal`: without a log there is nothing to
    // replay, and `immutable` reads the file as it is.
    let query = if is_wal(path) {
        "mode=ro&immutable=1"
    } else {
        "mode=ro"
    };
    let conn = Connection::open_with_flags(uri(path, query), flags).map_err(cannot(name))?;
    // A writer holds its exclusive lock only while it commits: wait that out.
    conn.busy_timeout(std::time::Duration::from_secs(2))
        .map_err(cannot(name))?;
    Ok(Reader { conn, _copy: None })
}

/// [`open_for_reading`] through a private copy of the database and its `sidecars`, taken
/// again if any of them changed while it was copied.
fn open_copy(path: &Path, name: &str, sidecars: &[PathBuf]) -> Result<Reader, String> {
    let files: Vec<&Path> = std::iter::once(path)
        .chain(sidecars.iter().map(PathBuf::as_path))
        .collect();
    let stamps = || -> Vec<Option<crate::read::FileStamp>> {
        files
            .iter()
            .map(|f| {
                std::fs::metadata(f)
                    .ok()
                    .map(|m| crate::read::FileStamp::of(&m))
            })
            .collect()
    };
    let journal = sidecars
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" and ");
    let fail = |e: String| {
        format!("cannot read SQLite database {name}: {e} (while reading it with {journal}, left beside it by a writer that is running or crashed, from a private copy)")
    };
    let file_name = |p: &Path| p.file_name().map(std::ffi::OsStr::to_owned);
    for _ in 0..3 {
        let before = stamps();
        let dir = tempfile::Builder::new()
            .prefix("toolcheck-store-")
            .tempdir()
            .map_err(|e| fail(format!("cannot make a private copy: {e}")))?;
        let mut copy = None;
        for (i, file) in files.iter().enumerate() {
            let Some(base) = file_name(file) else {
                return Err(fail("the path names no file".into()));
            };
            let to = dir.path().join(base);
            match std::fs::copy(file, &to) {
                Ok(_) => {}
                // A log or journal removed meanwhile (a checkpoint, a commit): take it again.
                Err(e) if i > 0 && e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(fail(format!("cannot copy {}: {e}", file.display()))),
            }
            if i == 0 {
                copy = Some(to);
            }
        }
        if before != stamps() {
            continue;
        }
        let Some(copy) = copy else {
            return Err(fail("the path names no file".into()));
        };
        let conn = Connection::open_with_flags(
            &copy,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| fail(e.to_string()))?;
        // Replays the log or rolls the journal back, in the copy.
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
            .map_err(|e| fail(e.to_string()))?;
        return Ok(Reader {
            conn,
            _copy: Some(dir),
        });
    }
    Err(fail(
        "it kept changing while it was copied; try again when the writer is idle".into(),
    ))
}

pub(super) fn cannot(name: &str) -> impl Fn(rusqlite::Error) -> String + '_ {
    move |e| format!("cannot read SQLite database {name}: {e}")
}
