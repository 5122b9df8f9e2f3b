//! SQLite session stores, read in place (docs/architecture.md, "SQLite stores").
//!
//! A database is not one text, but the pipeline is built around one: each row's JSON column
//! becomes one line of a text built for the run. Raw line breaks in a row are replaced byte
//! for byte so every offset holds: by a space between tokens (where they are whitespace),
//! and by U+0001 inside a string (where JSON forbids them, so the row is still reported as
//! invalid, as the libraries' `json.loads` would refuse it). Where they were is kept, and a
//! written row gets them back: a fix changes only the bytes its edit names. Rows are then
//! documents like JSONL records: spans, pointers and byte edits work unchanged, and a
//! finding's place is mapped back to `db:table[rowid=N]` plus the pointer inside the column.
//!
//! Stores read (frameworks.md §6), found by their columns since table names are configurable:
//! - OpenAI Agents SDK `SQLiteSession`: `agent_messages(id, session_id, message_data)`, one
//!   Responses input item per row, ordered by `id`;
//! - Google ADK `SqliteSessionService`: `events(app_name, user_id, session_id, timestamp,
//!   event_data)`, one event per row (snake_case), ordered by `timestamp`.
//!
//! One conversation per session. Reading never writes: a database is opened read-only, and
//! immutable when it is in WAL mode (a read-only WAL connection would create `-wal`/`-shm`
//! files); one with a write-ahead log or a rollback journal beside it is read from a private
//! copy, where SQLite may replay the log or roll the journal back. Rows are named by SQLite's
//! rowid under a name the table does not declare itself, and a write changes exactly one row
//! per statement or nothing at all.

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::diagnostic::Diagnostic;
use crate::finding::Finding;
use crate::format::Format;
use crate::json::Doc;
use crate::lint::{FileReport, LintOptions, Outcome, SourceName};
use crate::source::SourceFile;

/// The first 16 bytes of every SQLite 3 database.
pub const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Whether `bytes` start like a SQLite database.
pub fn is_sqlite(bytes: &[u8]) -> bool {
    bytes.starts_with(HEADER)
}

/// The first bytes of the file at `path` (fewer if it is shorter).
fn head(path: &Path, n: usize) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::with_capacity(n);
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(n as u64).read_to_end(&mut head);
    }
    head
}

/// Whether the file at `path` starts with the SQLite header (read: 16 bytes).
pub fn has_sqlite_header(path: &Path) -> bool {
    is_sqlite(&head(path, HEADER.len()))
}

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

/// The kinds of table toolcheck reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// OpenAI Agents SDK: one Responses input item per row.
    AgentsItems,
    /// Google ADK: one event per row.
    AdkEvents,
}

/// How a row is named and found again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKey {
    /// SQLite's rowid.
    Rowid(i64),
    /// The row's place (from 1) in its table's reading order, where the table has no rowid
    /// toolcheck can name (`WITHOUT ROWID`, or columns that shadow every name of it): such a
    /// row is read, never written.
    Ordinal(usize),
}

impl std::fmt::Display for RowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowKey::Rowid(id) => write!(f, "rowid={id}"),
            RowKey::Ordinal(n) => write!(f, "row {n}"),
        }
    }
}

/// One row's JSON in the store's text.
#[derive(Debug, Clone)]
pub struct Row {
    pub table: String,
    pub key: RowKey,
    /// The JSON's byte range in the store's text.
    pub start: usize,
    pub end: usize,
}

/// Where each row of a linted database sits in its text.
#[derive(Debug, Default)]
pub struct Rows {
    /// The database as named on the command line.
    pub name: String,
    pub rows: Vec<Row>,
}

impl Rows {
    /// The row holding byte `at` of the store's text.
    fn row_at(&self, at: usize) -> Option<&Row> {
        let i = self.rows.partition_point(|r| r.start <= at);
        self.rows.get(i.checked_sub(1)?)
    }

    /// The place of a store location: `db:table[rowid=N]`.
    pub fn place(&self, at: usize) -> Option<String> {
        let row = self.row_at(at)?;
        Some(format!("{}:{}[{}]", self.name, row.table, row.key))
    }

    /// Rules name other records of a session by their line (`line 6`); in a store's text the
    /// line is a row, named as `table[rowid=N]`.
    fn name_lines(&self, message: &str) -> String {
        let mut out = String::with_capacity(message.len());
        let mut rest = message;
        while let Some(at) = rest.find("line ") {
            let (before, after) = rest.split_at(at);
            out.push_str(before);
            let digits = after
                .get(5..)
                .unwrap_or_default()
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            let number = after
                .get(5..5 + digits)
                .and_then(|n| n.parse::<usize>().ok());
            let row = number
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| self.rows.get(i));
            match row {
                Some(row) if digits > 0 => {
                    out.push_str(&format!("{}[{}]", row.table, row.key));
                    rest = after.get(5 + digits..).unwrap_or_default();
                }
                _ => {
                    out.push_str("line ");
                    rest = after.get(5..).unwrap_or_default();
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Names each diagnostic's row: `location` is `db:table[rowid=N]/pointer`, and line,
    /// column and the edits of a fix inside the row count in the row's JSON (one line).
    pub fn relocate(&self, source: &SourceFile, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            let Some(row) = self.row_at(d.start) else {
                continue;
            };
            let column = |at: usize| {
                source
                    .text
                    .get(row.start..at.clamp(row.start, row.end))
                    .map_or(0, |s| s.chars().count())
                    + 1
            };
            d.location = Some(format!(
                "{}:{}[{}]{}",
                self.name, row.table, row.key, d.pointer
            ));
            d.line = 1;
            d.end_line = 1;
            d.column = column(d.start);
            d.end_column = column(d.end);
            // A fix's edits inside the row are byte offsets in the row's JSON (removing the
            // row takes its line break, which is not in the database).
            if let Some(fix) = &mut d.fix {
                for edit in &mut fix.edits {
                    if edit.start >= row.start && edit.end <= row.end + 1 {
                        edit.start -= row.start;
                        edit.end = edit.end.min(row.end) - row.start;
                    }
                }
            }
            d.message = self.name_lines(&d.message);
        }
    }
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
struct Reader {
    conn: Connection,
    _copy: Option<tempfile::TempDir>,
}

/// Opens a database for reading without writing anything anywhere near it: no lock file,
/// no `-wal`/`-shm`, no rollback of a journal. A database with a non-empty log or journal
/// beside it is copied (with them) to a private directory first, and read there as SQLite
/// would read it after a crash: the log replayed, the journal rolled back.
fn open_for_reading(path: &Path, name: &str) -> Result<Reader, String> {
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

/// A session table: its name, kind, and the SQL that keys and orders its rows.
struct Table {
    name: String,
    kind: Kind,
    /// The columns that name a session (ADK keys sessions by app and user too).
    session: Vec<&'static str>,
    /// The order the library reads a session's rows back in.
    order: String,
    /// The name that reaches SQLite's rowid in this table: one the table does not declare
    /// as a column of its own (a declared `rowid` column shadows the real one); `None` when
    /// the table has none (`WITHOUT ROWID`, or all three names declared).
    rowid: Option<&'static str>,
}

/// SQLite's names for the rowid.
const ROWID_NAMES: [&str; 3] = ["rowid", "_rowid_", "oid"];

/// The name that reaches the rowid of `table` (whose columns are `columns`), if any.
fn rowid_name(conn: &Connection, table: &str, columns: &[String]) -> Option<&'static str> {
    let quoted = table.replace('"', "\"\"");
    ROWID_NAMES
        .into_iter()
        .filter(|n| !columns.iter().any(|c| c.eq_ignore_ascii_case(n)))
        // Undeclared, the name is the rowid, if the table has one at all.
        .find(|n| {
            conn.prepare(&format!("SELECT {n} FROM \"{quoted}\" LIMIT 0"))
                .is_ok()
        })
}

/// The tables toolcheck reads, found by their columns (their names are configurable), in
/// name order.
fn tables(conn: &Connection) -> rusqlite::Result<Vec<Table>> {
    let mut names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    names.retain(|n: &String| !n.starts_with("sqlite_"));
    let mut found = Vec::new();
    for name in names {
        let columns: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info(?1)")?
            .query_map([&name], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let has = |c: &str| columns.iter().any(|x| x == c);
        if !has("session_id") {
            continue;
        }
        let rowid = rowid_name(conn, &name, &columns);
        // Ties in the library's order fall back to insertion order, where it can be named.
        let then = |order: &str| match rowid {
            Some(r) => format!("{order}, {r}"),
            None => order.to_string(),
        };
        if has("message_data") {
            let order = if has("id") {
                "id".to_string()
            } else {
                rowid.unwrap_or("session_id").to_string()
            };
            found.push(Table {
                name,
                kind: Kind::AgentsItems,
                session: vec!["session_id"],
                order,
                rowid,
            });
        } else if has("event_data") && has("timestamp") {
            let mut session: Vec<&'static str> = ["app_name", "user_id"]
                .into_iter()
                .filter(|c| has(c))
                .collect();
            session.push("session_id");
            found.push(Table {
                name,
                kind: Kind::AdkEvents,
                session,
                order: then("timestamp"),
                rowid,
            });
        }
    }
    Ok(found)
}

/// The JSON column of a table of this kind.
fn json_column(kind: Kind) -> &'static str {
    match kind {
        Kind::AgentsItems => "message_data",
        Kind::AdkEvents => "event_data",
    }
}

/// Where one line of a store's text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    table: String,
    kind: Kind,
    key: RowKey,
    /// The session, as an index in reading order.
    session: usize,
    /// Why the row holds no JSON text, if it does not.
    problem: Option<String>,
    /// The raw line breaks of the row's JSON (offset in the row, the byte), which the
    /// store's text holds as other bytes of the same length.
    breaks: Vec<(usize, u8)>,
}

impl Origin {
    fn place(&self, name: &str) -> String {
        format!("{name}:{}[{}]", self.table, self.key)
    }
}

/// A database as read: its text (one row per line) and where each line comes from.
#[derive(Debug, PartialEq, Eq)]
pub struct Snapshot {
    text: String,
    lines: Vec<Origin>,
    /// Whether the database has any table toolcheck reads.
    has_tables: bool,
}

impl Snapshot {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The rows a fixed text changes: each row's name (`db:table[rowid=N]`), its JSON as
    /// read and as fixed (each with its line break; empty for a deleted row), for diffs of
    /// the JSON values.
    pub fn changed_rows(&self, name: &str, fixed: &str) -> Vec<(String, String, String)> {
        let line = |l: &str| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{l}\n")
            }
        };
        self.lines
            .iter()
            .zip(self.text.split('\n'))
            .zip(fixed.split('\n'))
            .filter(|((_, old), new)| old != new)
            .map(|((origin, old), new)| {
                let new = restore_breaks(old, new, &origin.breaks);
                (
                    origin.place(name),
                    line(&restore(old, &origin.breaks)),
                    line(&new),
                )
            })
            .collect()
    }
}

/// Appends a row's JSON to the store's text, raw line breaks replaced so the row stays one
/// line and every byte keeps its offset: a space between tokens, U+0001 inside a string
/// (still invalid there, as the raw break was). Returns where the breaks were.
fn push_flat(text: &mut String, json: &str) -> Vec<(usize, u8)> {
    let mut breaks = Vec::new();
    if !json.contains(['\n', '\r']) {
        text.push_str(json);
        return breaks;
    }
    let mut in_string = false;
    let mut escaped = false;
    text.reserve(json.len());
    for (i, c) in json.char_indices() {
        match c {
            '\n' | '\r' => {
                breaks.push((i, c as u8));
                // A backslash before a raw break escapes nothing valid either.
                escaped = false;
                text.push(if in_string { '\u{1}' } else { ' ' });
                continue;
            }
            '"' if !escaped => in_string = !in_string,
            _ => {}
        }
        escaped = in_string && c == '\\' && !escaped;
        text.push(c);
    }
    breaks
}

/// The row's JSON as the database holds it: `flat` with its raw line breaks put back.
fn restore(flat: &str, breaks: &[(usize, u8)]) -> String {
    let mut bytes = flat.as_bytes().to_vec();
    for &(at, byte) in breaks {
        if let Some(b) = bytes.get_mut(at) {
            *b = byte;
        }
    }
    // Only ASCII bytes were exchanged for ASCII bytes.
    String::from_utf8(bytes).unwrap_or_else(|_| flat.to_string())
}

/// A fixed row's JSON (`new`, derived from `old` as read with its `breaks` replaced), with
/// the raw line breaks put back wherever the fix kept the bytes around them: only what the
/// fix changed differs from the column as read.
fn restore_breaks(old: &str, new: &str, breaks: &[(usize, u8)]) -> String {
    if breaks.is_empty() || new.is_empty() {
        return new.to_string();
    }
    let ops =
        similar::capture_diff_slices(similar::Algorithm::Myers, old.as_bytes(), new.as_bytes());
    let mut bytes = new.as_bytes().to_vec();
    for op in ops {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            let first = breaks.partition_point(|&(at, _)| at < old_index);
            for &(at, byte) in breaks.get(first..).unwrap_or_default() {
                if at >= old_index + len {
                    break;
                }
                if let Some(b) = bytes.get_mut(new_index + (at - old_index)) {
                    *b = byte;
                }
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| new.to_string())
}

/// One row as read: its table, session key, identity and JSON text (or why there is none).
struct RawRow<'a> {
    table: &'a Table,
    session: Option<String>,
    key: RowKey,
    json: Result<&'a str, String>,
}

/// Reads every session table of an open database, row by row in reading order, without
/// holding more than one row's text.
fn scan(
    conn: &Connection,
    mut each: impl FnMut(RawRow<'_>) -> rusqlite::Result<()>,
) -> rusqlite::Result<bool> {
    let found = tables(conn)?;
    for table in &found {
        let column = json_column(table.kind);
        let quoted = table.name.replace('"', "\"\"");
        let key = table
            .session
            .iter()
            .map(|c| format!("CAST({c} AS TEXT)"))
            .collect::<Vec<_>>()
            .join(" || char(31) || ");
        let rowid = table.rowid.unwrap_or("NULL");
        let sql = format!(
            "SELECT {key}, {rowid}, {column} FROM \"{quoted}\" ORDER BY {}, {}",
            table.session.join(", "),
            table.order
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        let mut ordinal = 0;
        while let Some(r) = rows.next()? {
            ordinal += 1;
            let key = match (table.rowid, r.get_ref(1)?) {
                (Some(_), ValueRef::Integer(id)) => RowKey::Rowid(id),
                _ => RowKey::Ordinal(ordinal),
            };
            let json = match r.get_ref(2)? {
                ValueRef::Text(b) | ValueRef::Blob(b) => std::str::from_utf8(b)
                    .map_err(|_| "the column is not valid UTF-8".to_string())
                    .and_then(|s| {
                        if s.trim().is_empty() {
                            Err("the column is empty".to_string())
                        } else {
                            Ok(s)
                        }
                    }),
                ValueRef::Null => Err("the column is NULL".to_string()),
                _ => Err("the column holds a number, not JSON text".to_string()),
            };
            each(RawRow {
                table,
                session: r.get(0)?,
                key,
                json,
            })?;
        }
    }
    Ok(!found.is_empty())
}

/// Reads every session table of an open database.
fn snapshot(conn: &Connection) -> rusqlite::Result<Snapshot> {
    let mut text = String::new();
    let mut lines: Vec<Origin> = Vec::new();
    let mut session = 0;
    let mut last: Option<(String, Option<String>)> = None;
    let has_tables = scan(conn, |row| {
        let id = (row.table.name.clone(), row.session);
        if last.as_ref() != Some(&id) {
            if last.is_some() {
                session += 1;
            }
            last = Some(id);
        }
        let (problem, breaks) = match row.json {
            Ok(json) => (None, push_flat(&mut text, json)),
            Err(problem) => (Some(problem), Vec::new()),
        };
        text.push('\n');
        lines.push(Origin {
            table: row.table.name.clone(),
            kind: row.table.kind,
            key: row.key,
            session,
            problem,
            breaks,
        });
        Ok(())
    })?;
    Ok(Snapshot {
        text,
        lines,
        has_tables,
    })
}

fn cannot(name: &str) -> impl Fn(rusqlite::Error) -> String + '_ {
    move |e| format!("cannot read SQLite database {name}: {e}")
}

/// Reads the database at `path` without writing anything.
pub fn read(path: &Path, name: &str) -> Result<Snapshot, String> {
    let reader = open_for_reading(path, name)?;
    snapshot(&reader.conn).map_err(cannot(name))
}

/// Lints the database at `path`: every session of every table toolcheck reads.
pub fn lint_path(
    name: SourceName,
    path: &Path,
    explicit: bool,
    opts: &LintOptions,
) -> Result<(FileReport, Rows), String> {
    let mut snapshot = read(path, &name.name)?;
    // The snapshot is not written back, so its text can move into the report.
    let text = std::mem::take(&mut snapshot.text);
    Ok(lint_text(name, text, &snapshot, explicit, opts))
}

/// What a row holds when it is JSON but not an object, for its finding.
fn not_an_object(value: &crate::tree::Value<'_>, json: &str) -> Option<String> {
    if value.is_object() {
        return None;
    }
    let shown: String = json.trim().chars().take(40).collect();
    Some(format!(
        "row holds `{shown}`, not a JSON object: the library that wrote it cannot read it back as a message"
    ))
}

/// Lints a store's text (as read, or as a fix round left it: one line per row of
/// `snapshot`, an empty line for a row a fix deletes). The report's source keeps `text`.
pub fn lint_text(
    name: SourceName,
    text: String,
    snapshot: &Snapshot,
    explicit: bool,
    opts: &LintOptions,
) -> (FileReport, Rows) {
    let source = SourceFile::new(name.path, name.name.clone(), text);
    let text = source.text.as_str();
    let mut rows = Rows {
        name: name.name,
        rows: Vec::with_capacity(snapshot.lines.len()),
    };
    for (i, origin) in snapshot.lines.iter().enumerate() {
        let (start, end) = if i < source.line_count() {
            source.line_range(i)
        } else {
            (text.len(), text.len())
        };
        rows.rows.push(Row {
            table: origin.table.clone(),
            key: origin.key,
            start,
            end,
        });
    }
    let mut findings: Vec<Finding> = Vec::new();
    let mut formats = Vec::new();
    let mut counts = crate::coverage::ReadCounts::default();
    let mut first = 0;
    while first < snapshot.lines.len() {
        let session = snapshot.lines.get(first).map(|o| (o.session, o.kind));
        let count = snapshot
            .lines
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|o| Some((o.session, o.kind)) == session)
            .count()
            .max(1);
        let members = first..first + count;
        first += count;
        let Some((_, kind)) = session else { break };
        let mut parsed = Vec::new();
        let mut lossy = false;
        for i in members {
            let (Some(row), Some(origin)) = (rows.rows.get(i), snapshot.lines.get(i)) else {
                continue;
            };
            if let Some(problem) = &origin.problem {
                findings.push(Finding::at_span(
                    &crate::rules::ParseError::META,
                    row.start,
                    row.start,
                    format!("row holds no JSON: {problem}"),
                ));
                continue;
            }
            let json = source.text.get(row.start..row.end).unwrap_or_default();
            if json.is_empty() {
                // A row a fix deletes (a row read empty has a problem, above).
                continue;
            }
            match crate::json::parse(json) {
                Ok(p) => match not_an_object(&p.value, json) {
                    Some(message) => findings.push(
                        Finding::at_span(
                            &crate::rules::ParseError::META,
                            row.start,
                            row.end,
                            message,
                        )
                        .help("repair or remove the row; nothing in it can be checked until then"),
                    ),
                    None => {
                        lossy |= p.lossy;
                        parsed.push((row.start, p.value));
                    }
                },
                Err(e) => findings.push(
                    Finding::at_span(
                        &crate::rules::ParseError::META,
                        row.start,
                        row.start,
                        format!("row is not valid JSON: {e}"),
                    )
                    .help(
                        "repair or remove the broken JSON; nothing in it can be checked until then",
                    ),
                ),
            }
        }
        let docs: Vec<Doc<'_>> = parsed
            .iter()
            .map(|(base, value)| Doc { base: *base, value })
            .collect();
        if docs.is_empty() {
            continue;
        }
        let (format, normalised) = match kind {
            Kind::AgentsItems => (
                Format::OpenAiResponses,
                Ok(vec![crate::formats::normalise_responses_items(&docs)]),
            ),
            Kind::AdkEvents => (Format::Adk, crate::formats::normalise_adk_events(&docs)),
        };
        let Some(adapter) = format.adapter() else {
            continue;
        };
        let (found, format, read) =
            crate::lint::check_normalised(adapter, &docs, normalised, &source, opts, true, lossy);
        findings.extend(found);
        formats.extend(format);
        counts.add(read);
    }
    for finding in &mut findings {
        rows.keep_row_fixes(finding);
    }
    findings.retain(|f| opts.selection.is_enabled(f.rule.code));
    formats.sort();
    formats.dedup();
    let outcome = if !snapshot.has_tables && !explicit {
        Outcome::Skipped("a SQLite database with no session table toolcheck reads".into())
    } else {
        if !snapshot.has_tables {
            findings.push(Finding::at_span(
                &crate::rules::UnknownFormat::META,
                0,
                0,
                "SQLite database has no session table toolcheck reads (OpenAI Agents SDK `agent_messages`, Google ADK `events`)",
            ));
        }
        Outcome::Checked(formats)
    };
    (
        FileReport {
            source,
            findings,
            outcome,
            read: counts,
        },
        rows,
    )
}

impl Rows {
    /// Keeps a fix only if a database can carry it out: edits inside one row's JSON, or the
    /// removal of whole rows (made an emptied line, so lines stay rows), in rows toolcheck
    /// can find again by rowid. A new row cannot be placed between others (rows are read
    /// back by id or timestamp), so fixes that insert records are dropped.
    fn keep_row_fixes(&self, finding: &mut Finding) {
        let Some(fix) = &mut finding.fix else {
            return;
        };
        let mut ok = true;
        for edit in &mut fix.edits {
            let inside = self
                .row_at(edit.start)
                .filter(|r| edit.end <= r.end && !edit.content.contains('\n'));
            // A removed JSONL record takes the line break after it, or the one before it.
            let removed = [edit.start, edit.start + 1]
                .into_iter()
                .filter_map(|at| self.row_at(at))
                .find(|r| {
                    edit.content.is_empty()
                        && ((edit.start == r.start && edit.end == r.end + 1)
                            || (edit.start + 1 == r.start && edit.end == r.end))
                });
            match (inside, removed) {
                (_, Some(row)) if matches!(row.key, RowKey::Rowid(_)) => {
                    edit.start = row.start;
                    edit.end = row.end;
                }
                (Some(row), None) if matches!(row.key, RowKey::Rowid(_)) => {}
                _ => ok = false,
            }
        }
        if !ok {
            finding.fix = None;
        }
    }
}

/// Fixes a database's text: the fix loop of `fix::engine` on the rows' text, each round
/// linted as a store.
pub fn fix(
    name: &SourceName,
    snapshot: &Snapshot,
    explicit: bool,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<crate::fix::FileFix, crate::fix::FixError> {
    let lint = |text: String| {
        let name = SourceName {
            name: name.name.clone(),
            path: name.path.clone(),
        };
        lint_text(name, text, snapshot, explicit, opts).0
    };
    crate::fix::fix_text(
        snapshot.text.clone(),
        crate::encoding::Encoding::Utf8,
        &lint,
        unsafe_fixes,
    )
}

/// Whether the database at `conn` still holds exactly what `snapshot` read, compared row by
/// row without a second copy of the text.
fn unchanged(conn: &Connection, snapshot: &Snapshot) -> rusqlite::Result<bool> {
    let mut lines = snapshot.lines.iter().zip(snapshot.text.split('\n'));
    let mut same = true;
    let has_tables = scan(conn, |row| {
        if !same {
            return Ok(());
        }
        same = match lines.next() {
            Some((origin, flat)) => {
                origin.table == row.table.name
                    && origin.key == row.key
                    && match (&row.json, &origin.problem) {
                        (Ok(json), None) if origin.breaks.is_empty() => flat == *json,
                        (Ok(json), None) => restore(flat, &origin.breaks) == *json,
                        (Err(now), Some(then)) => now == then,
                        _ => false,
                    }
            }
            None => false,
        };
        Ok(())
    })?;
    Ok(same && lines.next().is_none() && has_tables == snapshot.has_tables)
}

/// Writes a fixed text back to the database in one transaction: refused, with the database
/// untouched, when it is read-only, locked or changed since `snapshot` was read. Each edited
/// row is parsed again before it is written, keeps the raw line breaks the fix did not touch,
/// and is found by its rowid; an emptied row is deleted. Every statement must change exactly
/// one row, or nothing is written.
pub fn write(path: &Path, name: &str, snapshot: &Snapshot, fixed: &str) -> Result<(), String> {
    let fail = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            "it is locked by another connection; it was left unchanged".to_string()
        }
        _ => format!("{e}; it was left unchanged"),
    };
    // As for text files: a file without write permission is not written, even by root.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot stat it: {e}"))?;
    if meta.permissions().readonly() {
        return Err(
            "the database is read-only; it was not written (make it writable to apply fixes)"
                .into(),
        );
    }
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(fail)?;
    // Refuse at once rather than wait for another writer.
    conn.busy_timeout(std::time::Duration::ZERO).map_err(fail)?;
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(fail)?;
    if !unchanged(&tx, snapshot).map_err(fail)? {
        return Err("it changed since it was read; it was left unchanged".into());
    }
    let tables = tables(&tx).map_err(fail)?;
    let old_lines = snapshot.text.split('\n');
    let new_lines = fixed.split('\n');
    for ((origin, old), new) in snapshot.lines.iter().zip(old_lines).zip(new_lines) {
        if old == new {
            continue;
        }
        let place = origin.place(name);
        let (RowKey::Rowid(id), Some(rowid)) = (
            origin.key,
            tables
                .iter()
                .find(|t| t.name == origin.table)
                .and_then(|t| t.rowid),
        ) else {
            return Err(format!(
                "internal error: {place} has no rowid to find it by; it was left unchanged"
            ));
        };
        let quoted = origin.table.replace('"', "\"\"");
        let changed = if new.is_empty() {
            tx.execute(
                &format!("DELETE FROM \"{quoted}\" WHERE {rowid} = ?1"),
                [id],
            )
            .map_err(fail)?
        } else {
            let new = restore_breaks(old, new, &origin.breaks);
            if let Err(e) = crate::json::parse(&new) {
                return Err(format!(
                    "internal error: the fix of {place} is not valid JSON ({e}); it was left unchanged"
                ));
            }
            tx.execute(
                &format!(
                    "UPDATE \"{quoted}\" SET {} = ?1 WHERE {rowid} = ?2",
                    json_column(origin.kind)
                ),
                rusqlite::params![new, id],
            )
            .map_err(fail)?
        };
        if changed != 1 {
            // Dropping the transaction rolls back what it did.
            return Err(format!(
                "internal error: the statement for {place} would change {changed} rows, not 1; it was left unchanged"
            ));
        }
    }
    tx.commit().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agents_db(path: &Path) -> Connection {
        let conn = Connection::open(path).expect("create");
        conn.execute_batch(
            "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL);
             INSERT INTO agent_messages (session_id, message_data) VALUES
               ('s', '{\"role\": \"user\", \"content\": \"hi\"}'),
               ('s', '{\"type\": \"function_call_output\", \"call_id\": \"x\", \"output\": \"ok\"}');",
        )
        .expect("fill");
        conn
    }

    #[test]
    fn write_refuses_a_database_changed_since_it_was_read() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("s.db");
        let conn = agents_db(&path);
        let snapshot = read(&path, "s.db").expect("read");
        conn.execute(
            "UPDATE agent_messages SET message_data = '{\"role\": \"user\", \"content\": \"hello\"}' WHERE id = 1",
            [],
        )
        .expect("change");
        let fixed = snapshot.text().replacen("{\"type\"", "", 1);
        let err = write(&path, "s.db", &snapshot, &fixed).expect_err("refused");
        assert!(err.contains("changed since it was read"), "{err}");
        let left: i64 = conn
            .query_row("SELECT count(*) FROM agent_messages", [], |r| r.get(0))
            .expect("count");
        assert_eq!(left, 2);
    }

    #[test]
    fn line_references_name_rows() {
        let rows = Rows {
            name: "s.db".into(),
            rows: vec![
                Row {
                    table: "t".into(),
                    key: RowKey::Rowid(7),
                    start: 0,
                    end: 2,
                },
                Row {
                    table: "t".into(),
                    key: RowKey::Rowid(9),
                    start: 3,
                    end: 5,
                },
            ],
        };
        assert_eq!(
            rows.name_lines("continues at line 2, not line 30 or line x"),
            "continues at t[rowid=9], not line 30 or line x"
        );
        assert_eq!(rows.place(4).as_deref(), Some("s.db:t[rowid=9]"));
    }
}
