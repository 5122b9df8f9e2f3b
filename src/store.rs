//! SQLite session stores, read in place (docs/architecture.md, "SQLite stores").
//!
//! A database is not one text, but the pipeline is built around one: each row's JSON column
//! becomes one line of a text built for the run (line breaks inside the JSON, which can only
//! be whitespace, become spaces, so every byte keeps its offset). Rows are then documents
//! like JSONL records: spans, pointers and byte edits work unchanged, and a finding's place
//! is mapped back to `db:table[rowid=N]` plus the pointer inside the column.
//!
//! Stores read (frameworks.md §6), found by their columns since table names are configurable:
//! - OpenAI Agents SDK `SQLiteSession`: `agent_messages(id, session_id, message_data)`, one
//!   Responses input item per row, ordered by `id`;
//! - Google ADK `SqliteSessionService`: `events(app_name, user_id, session_id, timestamp,
//!   event_data)`, one event per row (snake_case), ordered by `timestamp`.
//!
//! One conversation per session. The database is opened read-only.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::finding::Finding;
use crate::formats::{Doc, Format};
use crate::lint::{FileReport, LintOptions, Outcome, SourceName};
use crate::report::Diagnostic;
use crate::source::SourceFile;

/// The first 16 bytes of every SQLite 3 database.
pub const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Whether `bytes` start like a SQLite database.
pub fn is_sqlite(bytes: &[u8]) -> bool {
    bytes.starts_with(HEADER)
}

/// Whether the file at `path` starts with the SQLite header (read: 16 bytes).
pub fn has_sqlite_header(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == HEADER
}

/// The kinds of table toolcheck reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// OpenAI Agents SDK: one Responses input item per row.
    AgentsItems,
    /// Google ADK: one event per row.
    AdkEvents,
}

/// One row's JSON in the store's text.
#[derive(Debug, Clone)]
pub struct Row {
    pub table: String,
    pub rowid: i64,
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
        Some(format!("{}:{}[rowid={}]", self.name, row.table, row.rowid))
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
                    out.push_str(&format!("{}[rowid={}]", row.table, row.rowid));
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
                "{}:{}[rowid={}]{}",
                self.name, row.table, row.rowid, d.pointer
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

/// Opens a database for reading only: linting never takes a write lock.
fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    // A writer holds its exclusive lock only while it commits: wait that out.
    conn.busy_timeout(std::time::Duration::from_secs(2))?;
    Ok(conn)
}

/// A session table: its name, kind, and the SQL that keys and orders its rows.
struct Table {
    name: String,
    kind: Kind,
    /// The columns that name a session (ADK keys sessions by app and user too).
    session: Vec<&'static str>,
    /// The order the library reads a session's rows back in.
    order: &'static str,
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
        if has("message_data") {
            let order = if has("id") { "id" } else { "rowid" };
            found.push(Table {
                name,
                kind: Kind::AgentsItems,
                session: vec!["session_id"],
                order,
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
                order: "timestamp, rowid",
            });
        }
    }
    Ok(found)
}

/// One table's rows: (session, rowid, JSON text or why there is none).
type TableRows = Vec<(String, i64, Result<String, String>)>;

/// The JSON column of a table of this kind.
fn json_column(kind: Kind) -> &'static str {
    match kind {
        Kind::AgentsItems => "message_data",
        Kind::AdkEvents => "event_data",
    }
}

fn read_table(conn: &Connection, table: &Table) -> rusqlite::Result<TableRows> {
    let column = json_column(table.kind);
    let quoted = table.name.replace('"', "\"\"");
    let key = table
        .session
        .iter()
        .map(|c| format!("CAST({c} AS TEXT)"))
        .collect::<Vec<_>>()
        .join(" || char(31) || ");
    let sql = format!(
        "SELECT {key}, rowid, {column} FROM \"{quoted}\" ORDER BY {}, {}",
        table.session.join(", "),
        table.order
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], |r| {
        let session: Option<String> = r.get(0)?;
        let rowid: i64 = r.get(1)?;
        let json = match r.get_ref(2)? {
            ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8(b.to_vec())
                .map_err(|_| "the column is not valid UTF-8".to_string()),
            ValueRef::Null => Err("the column is NULL".to_string()),
            _ => Err("the column holds a number, not JSON text".to_string()),
        };
        Ok((session.unwrap_or_default(), rowid, json))
    })?;
    rows.collect()
}

/// Where one line of a store's text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    table: String,
    kind: Kind,
    rowid: i64,
    /// The session, as an index in reading order.
    session: usize,
    /// Why the row holds no JSON text, if it does not.
    problem: Option<String>,
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
}

impl Snapshot {
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
                (
                    format!("{name}:{}[rowid={}]", origin.table, origin.rowid),
                    line(old),
                    line(new),
                )
            })
            .collect()
    }
}

/// Reads every session table of an open database.
fn snapshot(conn: &Connection) -> rusqlite::Result<Snapshot> {
    let found = tables(conn)?;
    let mut text = String::new();
    let mut lines = Vec::new();
    let mut session = 0;
    for table in &found {
        let mut last: Option<String> = None;
        for (id, rowid, json) in read_table(conn, table)? {
            if last.as_ref() != Some(&id) {
                if last.is_some() || !lines.is_empty() {
                    session += 1;
                }
                last = Some(id);
            }
            let problem = match json {
                // Raw line breaks in JSON are whitespace: spaces keep every offset.
                Ok(json) => {
                    text.push_str(&json.replace(['\n', '\r'], " "));
                    None
                }
                Err(problem) => Some(problem),
            };
            text.push('\n');
            lines.push(Origin {
                table: table.name.clone(),
                kind: table.kind,
                rowid,
                session,
                problem,
            });
        }
    }
    Ok(Snapshot {
        text,
        lines,
        has_tables: !found.is_empty(),
    })
}

fn cannot(name: &str) -> impl Fn(rusqlite::Error) -> String + '_ {
    move |e| format!("cannot read SQLite database {name}: {e}")
}

/// Reads the database at `path` without taking any write lock.
pub fn read(path: &Path, name: &str) -> Result<Snapshot, String> {
    let conn = open_read_only(path).map_err(cannot(name))?;
    snapshot(&conn).map_err(cannot(name))
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
        rows: Vec::new(),
    };
    for (i, origin) in snapshot.lines.iter().enumerate() {
        let (start, end) = if i < source.line_count() {
            source.line_range(i)
        } else {
            (text.len(), text.len())
        };
        rows.rows.push(Row {
            table: origin.table.clone(),
            rowid: origin.rowid,
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
        let count = snapshot.lines[first..]
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
                // A row a fix deletes.
                continue;
            }
            match crate::json::parse(json) {
                Ok(p) => {
                    lossy |= p.lossy;
                    parsed.push((row.start, p.value));
                }
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
    /// removal of whole rows (made an emptied line, so lines stay rows). A new row cannot
    /// be placed between others (rows are read back by id or timestamp), so fixes that
    /// insert records are dropped.
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
                (_, Some(row)) => {
                    edit.start = row.start;
                    edit.end = row.end;
                }
                (Some(_), None) => {}
                (None, None) => ok = false,
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

/// Writes a fixed text back to the database in one transaction: refused, with the database
/// untouched, when it is locked or changed since `snapshot` was read. Each edited row is
/// parsed again before it is written; an emptied row is deleted.
pub fn write(path: &Path, name: &str, snapshot: &Snapshot, fixed: &str) -> Result<(), String> {
    let fail = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            format!("{name} is locked by another connection; it is left unchanged")
        }
        _ => format!("cannot write {name}: {e}; it is left unchanged"),
    };
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
    if snapshot != &self::snapshot(&tx).map_err(fail)? {
        return Err(format!(
            "{name} changed since it was read; it is left unchanged"
        ));
    }
    let old_lines = snapshot.text.split('\n');
    let new_lines = fixed.split('\n');
    for ((origin, old), new) in snapshot.lines.iter().zip(old_lines).zip(new_lines) {
        if old == new {
            continue;
        }
        let quoted = origin.table.replace('"', "\"\"");
        if new.is_empty() {
            tx.execute(
                &format!("DELETE FROM \"{quoted}\" WHERE rowid = ?1"),
                [origin.rowid],
            )
            .map_err(fail)?;
            continue;
        }
        if let Err(e) = crate::json::parse(new) {
            return Err(format!(
                "internal error: the fix of {name}:{}[rowid={}] is not valid JSON ({e}); it is left unchanged",
                origin.table, origin.rowid
            ));
        }
        tx.execute(
            &format!(
                "UPDATE \"{quoted}\" SET {} = ?1 WHERE rowid = ?2",
                json_column(origin.kind)
            ),
            rusqlite::params![new, origin.rowid],
        )
        .map_err(fail)?;
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
                    rowid: 7,
                    start: 0,
                    end: 2,
                },
                Row {
                    table: "t".into(),
                    rowid: 9,
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
