//! SQLite session stores, read in place (docs/architecture.md, "SQLite stores").
//!
//! A database is not one text, but the pipeline is built around one: each row's JSON column
//! becomes one line of a text built for the run (`snapshot.rs`). Raw line breaks in a row are
//! replaced byte for byte so every offset holds: by a space between tokens (where they are
//! whitespace), and by U+0001 inside a string (where JSON forbids them, so the row is still
//! reported as invalid, as the libraries' `json.loads` would refuse it). Where they were is
//! kept, and a written row gets them back: a fix changes only the bytes its edit names. Rows
//! are then documents like JSONL records: spans, pointers and byte edits work unchanged, and
//! a finding's place is mapped back to `db:table[rowid=N]` plus the pointer inside the column
//! (`rows.rs`).
//!
//! Which tables are read, how their rows group into sessions and in what order, and which
//! format's adapter reads a session's rows, is one description per library (`table.rs`). One
//! conversation per session. Reading never writes (`open.rs`): a database is opened
//! read-only, and immutable when it is in WAL mode (a read-only WAL connection would create
//! `-wal`/`-shm` files); one with a write-ahead log or a rollback journal beside it is read
//! from a private copy, where SQLite may replay the log or roll the journal back. Rows are
//! named by SQLite's rowid under a name the table does not declare itself, and a write
//! (`write.rs`) changes exactly one row per statement or nothing at all.
use std::path::Path;

use crate::finding::Finding;
use crate::lint::{FileReport, LintOptions, Outcome, SourceName};
use crate::source::SourceFile;

mod open;
mod rows;
mod snapshot;
mod table;
mod write;

pub use open::size;
pub(crate) use rows::name_lines;
pub use rows::{Row, RowKey, Rows};
pub use snapshot::Snapshot;
pub use write::write;

use open::{cannot, open_for_reading};

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

/// Reads the database at `path` without writing anything.
pub fn read(path: &Path, name: &str) -> Result<Snapshot, String> {
    let reader = open_for_reading(path, name)?;
    snapshot::snapshot(&reader.conn).map_err(cannot(name))
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
        let json = if origin.wrap > 0 && end > start + origin.wrap {
            (start + origin.wrap, end - 1)
        } else {
            (start, end)
        };
        rows.rows.push(Row {
            table: origin.table.clone(),
            key: origin.key,
            start,
            end,
            json,
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
            match &origin.problem {
                Some(snapshot::RowProblem::Broken(why)) => {
                    findings.push(Finding::at_span(
                        &crate::rules::ParseError::META,
                        row.start,
                        row.start,
                        format!("row holds no JSON: {why}"),
                    ));
                    continue;
                }
                Some(snapshot::RowProblem::NotRead(why)) => {
                    findings.push(Finding::at_span(
                        &crate::rules::InputNotChecked::META,
                        row.start,
                        row.start,
                        format!("row was not checked: {why}"),
                    ));
                    continue;
                }
                None => {}
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
        if parsed.is_empty() {
            continue;
        }
        let Some(adapter) = table::kind(kind).format.adapter() else {
            continue;
        };
        let (found, format, read) =
            crate::lint::check_session(adapter, parsed, &source, opts, lossy);
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
        Outcome::Skipped(crate::lint::Skip::new(
            crate::lint::SkipKind::SqliteWithoutSessions,
            "a SQLite database with no session table toolcheck reads",
        ))
    } else {
        if !snapshot.has_tables {
            findings.push(Finding::at_span(
                &crate::rules::UnknownFormat::META,
                0,
                0,
                "SQLite database has no session table toolcheck reads (OpenAI Agents SDK `agent_messages`, Google ADK `events`, Goose `messages`, opencode `part`, Crush `messages`, LangGraph `checkpoints`)",
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

/// Fixes a database's text: the fix loop of `fix::engine` on the rows' text, each round
/// linted as a store.
pub fn fix(
    name: &SourceName,
    snapshot: &Snapshot,
    explicit: bool,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<crate::fix::FileFix, crate::fix::FixError> {
    crate::fix::fix_named(
        name,
        snapshot.text.clone(),
        |name, text| lint_text(name, text, snapshot, explicit, opts).0,
        unsafe_fixes,
    )
}
