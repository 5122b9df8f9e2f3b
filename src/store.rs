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
//! - Google ADK `SqliteSessionService`: `events(session_id, timestamp, event_data)`, one
//!   event per row, ordered by `timestamp`.
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
            // A fix's edits inside the row are byte offsets in the row's JSON.
            if let Some(fix) = &mut d.fix {
                for edit in &mut fix.edits {
                    if edit.start >= row.start && edit.end <= row.end {
                        edit.start -= row.start;
                        edit.end -= row.start;
                    }
                }
            }
        }
    }
}

/// Opens a database for reading only: linting never takes a write lock.
fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

/// The tables toolcheck reads, found by their columns, in name order.
fn tables(conn: &Connection) -> rusqlite::Result<Vec<(String, Kind, String)>> {
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
        // Rows are read in the order the library reads them back.
        if has("message_data") {
            let order = if has("id") { "id" } else { "rowid" };
            found.push((name, Kind::AgentsItems, order.to_string()));
        } else if has("event_data") && has("timestamp") {
            found.push((name, Kind::AdkEvents, "timestamp, rowid".to_string()));
        }
    }
    Ok(found)
}

/// One table's rows: (session, rowid, JSON text or why there is none).
type TableRows = Vec<(String, i64, Result<String, String>)>;

fn read_table(conn: &Connection, table: &str, order: &str) -> rusqlite::Result<TableRows> {
    let column = if order == "id" || order == "rowid" {
        "message_data"
    } else {
        "event_data"
    };
    let quoted = table.replace('"', "\"\"");
    let sql = format!(
        "SELECT CAST(session_id AS TEXT), rowid, {column} FROM \"{quoted}\" ORDER BY session_id, {order}"
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

/// Lints the database at `path`: every session of every table toolcheck reads.
pub fn lint_path(
    name: SourceName,
    path: &Path,
    explicit: bool,
    opts: &LintOptions,
) -> Result<(FileReport, Rows), String> {
    let cannot = |e: rusqlite::Error| format!("cannot read SQLite database {}: {e}", name.name);
    let conn = open_read_only(path).map_err(cannot)?;
    let found = tables(&conn).map_err(cannot)?;
    let mut text = String::new();
    let mut rows = Rows {
        name: name.name.clone(),
        rows: Vec::new(),
    };
    // (kind, session rows as indexes into `rows.rows`, and each row's problem if any)
    let mut sessions: Vec<(Kind, Vec<usize>)> = Vec::new();
    let mut problems: Vec<(usize, String)> = Vec::new();
    for (table, kind, order) in &found {
        let mut last: Option<String> = None;
        for (session, rowid, json) in read_table(&conn, table, order).map_err(cannot)? {
            if last.as_ref() != Some(&session) {
                sessions.push((*kind, Vec::new()));
                last = Some(session);
            }
            let start = text.len();
            match json {
                // Raw line breaks in JSON are whitespace: spaces keep every offset.
                Ok(json) => text.push_str(&json.replace(['\n', '\r'], " ")),
                Err(problem) => problems.push((start, problem)),
            }
            let end = text.len();
            text.push('\n');
            let index = rows.rows.len();
            rows.rows.push(Row {
                table: table.clone(),
                rowid,
                start,
                end,
            });
            if let Some((_, members)) = sessions.last_mut() {
                members.push(index);
            }
        }
    }
    drop(conn);
    let source = SourceFile::new(name.path, name.name, text);
    let mut findings: Vec<Finding> = problems
        .into_iter()
        .map(|(at, problem)| {
            Finding::at_span(
                &crate::rules::ParseError::META,
                at,
                at,
                format!("row holds no JSON: {problem}"),
            )
        })
        .collect();
    let mut formats = Vec::new();
    let mut counts = crate::coverage::ReadCounts::default();
    for (kind, members) in &sessions {
        let mut parsed = Vec::new();
        let mut lossy = false;
        for row in members.iter().filter_map(|&i| rows.rows.get(i)) {
            let Some(json) = source.text.get(row.start..row.end) else {
                continue;
            };
            if json.is_empty() {
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
            Kind::AdkEvents => {
                findings.push(Finding::at_span(
                    &crate::rules::InputNotChecked::META,
                    docs.first().map_or(0, |d| d.base),
                    docs.first().map_or(0, |d| d.base),
                    "Google ADK `events` rows are not read yet: this session was not checked",
                ));
                continue;
            }
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
    findings.retain(|f| opts.selection.is_enabled(f.rule.code));
    formats.sort();
    formats.dedup();
    let outcome = if found.is_empty() && !explicit {
        Outcome::Skipped("a SQLite database with no session table toolcheck reads".into())
    } else {
        if found.is_empty() {
            findings.push(Finding::at_span(
                &crate::rules::UnknownFormat::META,
                0,
                0,
                "SQLite database has no session table toolcheck reads (OpenAI Agents SDK `agent_messages`, Google ADK `events`)",
            ));
        }
        Outcome::Checked(formats)
    };
    Ok((
        FileReport {
            source,
            findings,
            outcome,
            read: counts,
        },
        rows,
    ))
}
