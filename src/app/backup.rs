//! `doctor --fix`'s backups, and `doctor --restore`, which puts them back.
//!
//! Each run that changes a file keeps its backups in a folder of its own,
//! `backups/<UTC stamp>-<pid>` under toolcheck's state directory, created with `mkdir` so
//! two runs never share one (with a number added should a name be taken). Folders are
//! created `0700` and copies are no more readable than the original and never more than
//! by their owner, since a session from a `0700` agent directory must not become readable
//! by others in its backup. Inside, a copy sits at the original's absolute path, and
//! `manifest.json` lists each copy with the original's path, its kind and the original's
//! stamp once fixed.
//!
//! A SQLite store is copied with SQLite's online backup API: a file copy misses a hot
//! rollback journal (or copies a WAL mid-checkpoint) and restores as "database disk image
//! is malformed". The backup reads the database as SQLite sees it, the journal rolled back.
//!
//! `--restore` puts each copy back: a file atomically (through `fix::write`, refusing a file
//! an agent holds open for writing), a store through the backup API into it, in one
//! transaction. A file changed since the fix (its agent went on writing) is not restored
//! without `--force`: the restore would lose what was written since.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, MAIN_DB};
use serde::{Deserialize, Serialize};

const MANIFEST: &str = "manifest.json";

/// What a backup copy is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    File,
    Sqlite,
}

/// A file's size, modification time and inode, as recorded in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    len: u64,
    modified_ns: Option<u128>,
    ino: Option<u64>,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let ino = Some(std::os::unix::fs::MetadataExt::ino(&meta));
        #[cfg(not(unix))]
        let ino = None;
        Some(Stamp {
            len: meta.len(),
            modified_ns: meta
                .modified()
                .ok()
                .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_nanos()),
            ino,
        })
    }
}

/// One copy: where the original is, where the copy is (relative to the run's folder), and
/// the stamps of the original (and a store's `-wal`) as the fix left them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub original: PathBuf,
    pub backup: PathBuf,
    pub kind: Kind,
    #[serde(default)]
    pub fixed: Option<Vec<Option<Stamp>>>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    toolcheck: String,
    created: String,
    files: Vec<Entry>,
}

/// One run's backups, its folder made at the first copy.
pub struct Run {
    base: PathBuf,
    created: SystemTime,
    dir: Option<PathBuf>,
    entries: Vec<Entry>,
}

impl Run {
    /// A run whose folder will be made under `base` (`…/toolcheck/backups`).
    pub fn new(base: PathBuf, created: SystemTime) -> Run {
        Run {
            base,
            created,
            dir: None,
            entries: Vec::new(),
        }
    }

    /// The run's folder, once a copy was made.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn folder(&mut self) -> std::io::Result<PathBuf> {
        if let Some(dir) = &self.dir {
            return Ok(dir.clone());
        }
        private_dirs(&self.base)?;
        let stamp = crate::report::doctor::utc(self.created).replace(['-', ':'], "");
        let name = format!("{stamp}-{}", std::process::id());
        for n in 0..1000 {
            let dir = match n {
                0 => self.base.join(&name),
                n => self.base.join(format!("{name}-{n}")),
            };
            match private_dir(&dir) {
                Ok(()) => {
                    self.dir = Some(dir.clone());
                    return Ok(dir);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other(
            "every backup folder name for this second is taken",
        ))
    }

    /// Copies `path` (a SQLite database when `kind` says so) into the run's folder and
    /// lists it in the manifest; returns where the copy is.
    pub fn back_up(&mut self, path: &Path, kind: Kind) -> std::io::Result<PathBuf> {
        let original = std::path::absolute(path)?;
        if original.to_str().is_none() {
            return Err(std::io::Error::other(
                "its path is not UTF-8, and the manifest could not name it",
            ));
        }
        let dir = self.folder()?;
        let relative = mirror(&original);
        let target = dir.join(&relative);
        if let Some(parent) = target.parent() {
            private_dirs(parent)?;
        }
        let mode = copy_mode(&std::fs::metadata(&original)?);
        match kind {
            Kind::File => copy_file(&original, &target, mode)?,
            Kind::Sqlite => copy_database(&original, &target, mode)?,
        }
        self.entries.push(Entry {
            original,
            backup: relative,
            kind,
            fixed: None,
        });
        if let Err(e) = self.save() {
            self.entries.pop();
            let _ = std::fs::remove_file(&target);
            return Err(e);
        }
        Ok(target)
    }

    /// Records that the file backed up last was fixed: its stamps now, which `--restore`
    /// checks it still has. A file whose fix failed is dropped from the run instead.
    pub fn finished(&mut self, fixed: bool) {
        let Some(last) = self.entries.last_mut() else {
            return;
        };
        if fixed {
            last.fixed = Some(stamps(&last.original, last.kind));
        } else if let (Some(dir), Some(entry)) = (&self.dir, self.entries.pop()) {
            let _ = std::fs::remove_file(dir.join(entry.backup));
        }
        let _ = self.save();
    }

    /// Writes the manifest through a temporary file and a rename: it is whole or absent.
    fn save(&self) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let manifest = Manifest {
            toolcheck: env!("CARGO_PKG_VERSION").to_string(),
            created: crate::report::doctor::utc(self.created),
            files: self.entries.clone(),
        };
        let text = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
        let temp = dir.join(".manifest.json.tmp");
        {
            let mut file = create_private(&temp, 0o600, true)?;
            file.write_all(&text)?;
            file.sync_all()?;
        }
        std::fs::rename(&temp, dir.join(MANIFEST))
    }
}

/// The stamps `--restore` compares: the file's, and for a store its `-wal`'s too.
fn stamps(original: &Path, kind: Kind) -> Vec<Option<Stamp>> {
    let mut stamps = vec![Stamp::of(original)];
    if kind == Kind::Sqlite {
        stamps.push(Stamp::of(&side_file(original, "-wal")));
    }
    stamps
}

fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut side = path.as_os_str().to_owned();
    side.push(suffix);
    PathBuf::from(side)
}

/// `absolute` as a relative path: its components without the root (`C:` becomes `C`, so
/// the mirror is a plain directory on Windows too).
fn mirror(absolute: &Path) -> PathBuf {
    let mut target = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::Prefix(prefix) => {
                let text = prefix
                    .as_os_str()
                    .to_string_lossy()
                    .replace([':', '\\', '?'], "");
                target.push(text);
            }
            Component::Normal(name) => target.push(name),
            _ => {}
        }
    }
    target
}

/// The mode of a copy of a file whose metadata is `meta`: its owner's bits only.
#[cfg(unix)]
fn copy_mode(meta: &std::fs::Metadata) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o600
}

#[cfg(not(unix))]
fn copy_mode(_meta: &std::fs::Metadata) -> u32 {
    0o600
}

/// Creates `dir` and any missing parents, each new one `0700`.
fn private_dirs(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates `dir`, which must not exist yet, `0700`.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Opens `path` for writing with `mode` (new, or truncated when `replace`).
fn create_private(path: &Path, mode: u32, replace: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if replace {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)
}

fn copy_file(original: &Path, target: &Path, mode: u32) -> std::io::Result<()> {
    let mut from = std::fs::File::open(original)?;
    let mut to = create_private(target, mode, false)?;
    std::io::copy(&mut from, &mut to)?;
    to.sync_all()
}

/// Copies the database at `original` to `target` with SQLite's backup API, `target` made
/// first with `mode` so that SQLite keeps it.
fn copy_database(original: &Path, target: &Path, mode: u32) -> std::io::Result<()> {
    let sql = |e: rusqlite::Error| std::io::Error::other(format!("SQLite: {e}"));
    drop(create_private(target, mode, false)?);
    let copied = (|| {
        // Read-write: a hot journal is rolled back before the pages are read.
        let source = Connection::open_with_flags(
            original,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql)?;
        source
            .busy_timeout(std::time::Duration::from_secs(2))
            .map_err(sql)?;
        source.backup(MAIN_DB, target, None).map_err(sql)
    })();
    if copied.is_err() {
        let _ = std::fs::remove_file(target);
    }
    copied
}

/// What restoring one copy did.
pub struct Restored {
    pub original: PathBuf,
    pub outcome: Result<(), String>,
}

/// Puts back every copy listed in the run folder `dir`; a file changed since its fix only
/// with `force`.
pub fn restore(dir: &Path, force: bool) -> Result<Vec<Restored>, String> {
    let manifest_path = dir.join(MANIFEST);
    let text = std::fs::read(&manifest_path).map_err(|e| {
        format!(
            "cannot read {}: {e} (name the folder `doctor --fix` printed, one under …/toolcheck/backups/)",
            manifest_path.display()
        )
    })?;
    let manifest: Manifest = serde_json::from_slice(&text)
        .map_err(|e| format!("{} is not a backup manifest: {e}", manifest_path.display()))?;
    Ok(manifest
        .files
        .iter()
        .map(|entry| Restored {
            original: entry.original.clone(),
            outcome: restore_one(dir, entry, force),
        })
        .collect())
}

fn restore_one(dir: &Path, entry: &Entry, force: bool) -> Result<(), String> {
    // The manifest is read from a file: a copy outside the run's folder is not one of ours.
    if entry
        .backup
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err("the manifest names a copy outside its folder; not restored".into());
    }
    let copy = dir.join(&entry.backup);
    if !force {
        match &entry.fixed {
            None => return Err("that run did not change it; nothing to restore".into()),
            Some(then) if *then != stamps(&entry.original, entry.kind) => {
                return Err("it changed since it was fixed (its agent may have written to it), and restoring would lose that; rerun with --force to restore it anyway".into());
            }
            Some(_) => {}
        }
    }
    match entry.kind {
        Kind::File => {
            let stamp = std::fs::metadata(&entry.original)
                .map(|m| crate::read::FileStamp::of(&m))
                .map_err(|e| format!("cannot stat it: {e}"))?;
            let current =
                std::fs::read(&entry.original).map_err(|e| format!("cannot read it: {e}"))?;
            let saved = std::fs::read(&copy).map_err(|e| format!("cannot read its copy: {e}"))?;
            crate::fix::write::write_atomic(&entry.original, &current, Some(&stamp), saved)
                .map_err(|e| e.to_string())
        }
        Kind::Sqlite => {
            let sql = |e: rusqlite::Error| format!("SQLite: {e}; it was left unchanged");
            let mut conn = Connection::open_with_flags(
                &entry.original,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(sql)?;
            conn.busy_timeout(std::time::Duration::ZERO).map_err(sql)?;
            conn.restore(MAIN_DB, &copy, None::<fn(rusqlite::backup::Progress)>)
                .map_err(sql)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_drop_the_root() {
        assert_eq!(
            mirror(Path::new("/home/u/.codex/s.jsonl")),
            PathBuf::from("home/u/.codex/s.jsonl")
        );
    }

    fn rows(path: &Path) -> Vec<String> {
        let conn = Connection::open(path).expect("open");
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("integrity_check");
        assert_eq!(check, "ok");
        let mut stmt = conn
            .prepare("SELECT x FROM t ORDER BY rowid")
            .expect("prepare");
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .expect("query")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows");
        rows
    }

    /// A database `store.db` of 200 rows `row N` in rollback-journal mode.
    fn database(dir: &Path) -> PathBuf {
        let path = dir.join("store.db");
        let conn = Connection::open(&path).expect("create");
        conn.execute_batch("PRAGMA journal_mode=DELETE; CREATE TABLE t (x TEXT);")
            .expect("schema");
        for n in 0..200 {
            conn.execute("INSERT INTO t VALUES (?1)", [format!("row {n}")])
                .expect("insert");
        }
        path
    }

    #[test]
    fn a_store_with_a_hot_journal_is_backed_up_as_sqlite_sees_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = database(dir.path());
        let before = rows(&path);
        let committed = std::fs::read(&path).expect("read");
        // A writer killed mid-transaction: its pages spilled into the file, the journal
        // beside it. Copying both while it is open leaves a pair no process holds a lock on.
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("PRAGMA cache_size=1; PRAGMA cache_spill=1; BEGIN; UPDATE t SET x = x || hex(randomblob(2000));")
            .expect("the spilled transaction");
        let hot = dir.path().join("hot.db");
        std::fs::copy(&path, &hot).expect("copy the file");
        std::fs::copy(side_file(&path, "-journal"), side_file(&hot, "-journal"))
            .expect("copy the journal");
        conn.execute_batch("ROLLBACK").expect("rollback");
        assert!(
            std::fs::metadata(side_file(&hot, "-journal"))
                .expect("journal")
                .len()
                > 0
        );
        // The file holds the transaction's pages: a byte copy of it without its journal (as
        // backups were made) is not the committed database.
        let copied = std::fs::read(&hot).expect("read");
        assert!(
            copied != committed,
            "the setup left no hot journal to roll back"
        );
        let mut run = Run::new(dir.path().join("backups"), SystemTime::now());
        let copy = run.back_up(&hot, Kind::Sqlite).expect("backup");
        assert_eq!(rows(&copy), before);
    }

    #[test]
    fn a_store_is_restored_unless_it_changed_since_the_fix() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = database(dir.path());
        let before = rows(&path);
        let mut run = Run::new(dir.path().join("backups"), SystemTime::now());
        run.back_up(&path, Kind::Sqlite).expect("backup");
        let conn = Connection::open(&path).expect("open");
        conn.execute("UPDATE t SET x = 'fixed' WHERE rowid = 1", [])
            .expect("the fix");
        run.finished(true);
        let folder = run.dir().expect("a folder").to_path_buf();
        let restored = restore(&folder, false).expect("restore");
        assert!(restored.iter().all(|r| r.outcome.is_ok()));
        assert_eq!(rows(&path), before);
        // Written since (by the restore here, by an agent in life): refused, then forced.
        conn.execute("UPDATE t SET x = 'agent' WHERE rowid = 2", [])
            .expect("a later write");
        let refused = restore(&folder, false).expect("restore");
        let why = refused[0].outcome.as_ref().expect_err("refused");
        assert!(why.contains("--force"), "{why}");
        assert!(restore(&folder, true).expect("forced")[0].outcome.is_ok());
        assert_eq!(rows(&path), before);
    }

    #[cfg(unix)]
    #[test]
    fn backups_are_readable_by_their_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let session = dir.path().join("s.jsonl");
        std::fs::write(&session, "{}\n").expect("write");
        std::fs::set_permissions(&session, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let base = dir.path().join("state/backups");
        let mut run = Run::new(base.clone(), SystemTime::now());
        let copy = run.back_up(&session, Kind::File).expect("backup");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&copy), 0o600);
        let folder = run.dir().expect("folder").to_path_buf();
        for d in [
            dir.path().join("state"),
            base,
            folder.clone(),
            copy.parent().expect("parent").to_path_buf(),
        ] {
            assert_eq!(mode(&d), 0o700, "{}", d.display());
        }
        assert_eq!(mode(&folder.join(MANIFEST)), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn two_runs_in_one_second_never_share_a_folder() {
        let base = tempfile::tempdir().expect("tempdir");
        let session = base.path().join("s.jsonl");
        std::fs::write(&session, "{}\n").expect("write");
        let now = SystemTime::now();
        let mut first = Run::new(base.path().join("backups"), now);
        let mut second = Run::new(base.path().join("backups"), now);
        first.back_up(&session, Kind::File).expect("first");
        second.back_up(&session, Kind::File).expect("second");
        assert_ne!(first.dir(), second.dir());
    }
}
