//! The `store` target's check: bytes → a small SQLite database → lint, fix and write through
//! `toolcheck::store`, as the CLI runs them → invariants.
//!
//! An input is two option bytes `[s, o]`, then rows:
//!
//! * `s` picks the schema: bit 0 the table toolcheck reads (OpenAI Agents SDK
//!   `agent_messages(id, session_id, message_data)` or Google ADK `events(id, app_name, user_id,
//!   session_id, invocation_id, author, timestamp, event_data)`), bit 1 adds a table of the
//!   other kind, bit 2 makes both `WITHOUT ROWID`, bit 3 gives both a user column named
//!   `rowid`, bit 4 puts the database in WAL journal mode, bit 5 adds an unrelated table with a
//!   `session_id` column; bits 6–7 declare the JSON column `TEXT NOT NULL`, untyped, `BLOB` or
//!   `INTEGER`;
//! * `o % 3` picks the file name (`fuzz.db`, `fuzz.sqlite`, `fuzz.sqlite3`), `(o / 3) % 9` the
//!   fix options as the `fix` target reads them, and `(o / 27) % 4` the table names: as the
//!   libraries name them, with a double quote, with a space and brackets, non-ASCII; `o >= 216`
//!   makes the first table a LangGraph `checkpoints(thread_id, checkpoint_ns, checkpoint_id,
//!   parent_checkpoint_id, type, checkpoint, metadata)` instead, each row's bytes its
//!   checkpoint blob (bits 2–4 pick the `type`: msgpack, JSON, pickle or NULL; bit 6 orders
//!   its `checkpoint_id` backwards; bit 7 puts it in a subgraph namespace);
//! * the rest is rows separated by `0xFF` (a byte UTF-8 never holds). A row's first byte `c`
//!   says how it is stored, the bytes after it are its JSON column: bits 0–1 pick one of four
//!   sessions; bits 2–4 the cell's type (`0..=4` text, `5` blob, `6` NULL, `7` a number
//!   read from the bytes); bit 5 puts the row in the second table, if there is one; bit 6
//!   reorders (an ADK row takes the timestamp of the row before it, an Agents row a smaller
//!   id than every row before it); bit 7 makes the user `rowid` column repeat the value of the
//!   row before instead of a new one. At most 64 rows; a row SQLite refuses (NULL in a
//!   `NOT NULL` column) is left out.
//!
//! The database is written to a fresh directory, then (each invariant is named for
//! `TOOLCHECK_FUZZ_ALLOW`, below):
//!
//! * `read-only`: linting it (`store::lint_path`), reading it and computing its fix
//!   (`store::read`, `store::fix`) change none of the directory's files and create none;
//! * `fix`: the fix does not fail (`DidNotConverge` or `Unparseable`) and leaves nothing
//!   applicable, and its text was the database's as read;
//! * `write`: when the fix changes the text, `store::write` succeeds;
//! * `integrity`: `PRAGMA integrity_check` is `ok` afterwards;
//! * `no-row-gained`: no table has a row it did not have before;
//! * `untouched`: rows the diff (`Snapshot::changed_rows`) does not name are unchanged byte
//!   for byte, and so are the other columns of the rows it names; the write changes no more
//!   rows than the diff names;
//! * `written`: each row the diff names is gone when its fixed line is empty, else holds the
//!   fixed JSON exactly as the diff shows it (raw line breaks included); reading the database
//!   again gives the fixed text (its non-empty lines);
//! * `layout`: a rewritten row keeps the bytes the fix did not change (outside the span where
//!   its JSON as read and as fixed differ), raw line breaks included;
//! * `idempotent`: fixing the written database again changes nothing.
//!
//! `TOOLCHECK_FUZZ_ALLOW=read-only,written` (say) turns those invariants' failures from
//! crashes into a line on stderr (once per invariant) that ends the input's check (but for
//! `read-only`, after which the check goes on), so a run can look past a known bug.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rusqlite::types::{Value, ValueRef};
use rusqlite::Connection;
use toolcheck::fix::FixError;
use toolcheck::lint::SourceName;
use toolcheck::report::Diagnostic;
use toolcheck::store;

/// The most rows an input makes.
const MAX_ROWS: usize = 64;

/// The JSON column's declared type, by bits 6–7 of the schema byte.
const JSON_TYPES: [&str; 4] = ["TEXT NOT NULL", "", "BLOB", "INTEGER"];

/// Table names by `(o / 27) % 4`: Agents, ADK, unrelated.
const TABLE_NAMES: [[&str; 3]; 4] = [
    ["agent_messages", "events", "notes"],
    ["agent \"messages\"", "ev\"ents", "no\"tes"],
    ["agent messages [1]", "events [2]", "[notes]"],
    ["nachrichten_äöü", "événements", "メモ"],
];

const FILE_NAMES: [&str; 3] = ["fuzz.db", "fuzz.sqlite", "fuzz.sqlite3"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Agents,
    Adk,
    Langgraph,
}

/// What the schema byte decides.
#[derive(Debug)]
struct Schema {
    kind: Kind,
    both: bool,
    without_rowid: bool,
    rowid_column: bool,
    wal: bool,
    unrelated: bool,
    json_type: &'static str,
    names: [&'static str; 3],
}

impl Schema {
    fn new(s: u8, o: u8) -> Schema {
        Schema {
            kind: match (o >= 216, s & 1) {
                (true, _) => Kind::Langgraph,
                (false, 0) => Kind::Agents,
                (false, _) => Kind::Adk,
            },
            both: s & 2 != 0,
            without_rowid: s & 4 != 0,
            rowid_column: s & 8 != 0,
            wal: s & 16 != 0,
            unrelated: s & 32 != 0,
            json_type: JSON_TYPES[usize::from(s >> 6)],
            names: TABLE_NAMES[usize::from((o / 27) % 4)],
        }
    }

    fn kinds(&self) -> Vec<Kind> {
        let other = match self.kind {
            Kind::Agents => Kind::Adk,
            Kind::Adk | Kind::Langgraph => Kind::Agents,
        };
        if self.both {
            vec![self.kind, other]
        } else {
            vec![self.kind]
        }
    }

    fn name(&self, kind: Kind) -> &'static str {
        match kind {
            // The LangGraph table takes the ADK table's name (the two are never both made).
            Kind::Agents => self.names[0],
            Kind::Adk | Kind::Langgraph => self.names[1],
        }
    }

    /// Every table made, with the index of its JSON column (`None`: the unrelated table).
    fn tables(&self) -> Vec<(&'static str, Option<usize>)> {
        let mut out: Vec<_> = self
            .kinds()
            .into_iter()
            .map(|k| (self.name(k), Some(json_index(k))))
            .collect();
        if self.unrelated {
            out.push((self.names[2], None));
        }
        out
    }
}

/// The JSON column's place among a table's columns (the `id` column is always first).
fn json_index(kind: Kind) -> usize {
    match kind {
        Kind::Agents => 2,
        Kind::Adk => 7,
        Kind::Langgraph => 5,
    }
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `text` as an SQL string literal.
fn sql_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// One row of the input.
struct InputRow<'a> {
    ctrl: u8,
    json: &'a [u8],
}

fn rows(data: &[u8]) -> Vec<InputRow<'_>> {
    data.split(|&b| b == 0xFF)
        .filter_map(|piece| {
            let (&ctrl, json) = piece.split_first()?;
            Some(InputRow { ctrl, json })
        })
        .take(MAX_ROWS)
        .collect()
}

/// The cell a row's bytes become, and the SQL that stores it from parameter `?n`.
fn cell(row: &InputRow<'_>, n: usize) -> (Value, String) {
    let param = format!("?{n}");
    match (row.ctrl >> 2) & 7 {
        5 => (Value::Blob(row.json.to_vec()), param),
        6 => (Value::Null, param),
        7 => {
            let text = String::from_utf8_lossy(row.json);
            let value = match (text.trim().parse::<i64>(), text.trim().parse::<f64>()) {
                (Ok(i), _) => Value::Integer(i),
                (_, Ok(f)) => Value::Real(f),
                _ => Value::Integer(i64::try_from(row.json.len()).unwrap_or(i64::MAX)),
            };
            (value, param)
        }
        // Text, byte for byte (invalid UTF-8 and NUL included).
        _ => (
            Value::Blob(row.json.to_vec()),
            format!("CAST({param} AS TEXT)"),
        ),
    }
}

/// Creates the database at `path` from the input; rows SQLite refuses are left out.
fn build(path: &Path, schema: &Schema, rows: &[InputRow<'_>]) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    if schema.wal {
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    }
    let without = if schema.without_rowid {
        " WITHOUT ROWID"
    } else {
        ""
    };
    let rowid = if schema.rowid_column {
        ", rowid INTEGER"
    } else {
        ""
    };
    let json_type = schema.json_type;
    for kind in schema.kinds() {
        let name = quote(schema.name(kind));
        let sql = match kind {
            Kind::Agents => {
                let autoincrement = if schema.without_rowid {
                    ""
                } else {
                    " AUTOINCREMENT"
                };
                format!(
                    "CREATE TABLE {name} (id INTEGER PRIMARY KEY{autoincrement}, \
                     session_id TEXT NOT NULL, message_data {json_type}{rowid}){without}"
                )
            }
            Kind::Adk => format!(
                "CREATE TABLE {name} (id TEXT NOT NULL, app_name TEXT NOT NULL, \
                 user_id TEXT NOT NULL, session_id TEXT NOT NULL, invocation_id TEXT NOT NULL, \
                 author TEXT, timestamp REAL NOT NULL, event_data {json_type}{rowid}, \
                 PRIMARY KEY (app_name, user_id, session_id, id)){without}"
            ),
            Kind::Langgraph => format!(
                "CREATE TABLE {name} (thread_id TEXT NOT NULL, \
                 checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL, \
                 parent_checkpoint_id TEXT, type TEXT, checkpoint {json_type}, metadata BLOB{rowid}, \
                 PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)){without}"
            ),
        };
        conn.execute(&sql, [])?;
    }
    if schema.unrelated {
        let name = quote(schema.names[2]);
        conn.execute_batch(&format!(
            "CREATE TABLE {name} (id INTEGER PRIMARY KEY, session_id TEXT, body TEXT);
             INSERT INTO {name} (session_id, body) VALUES
               ('s0', '{{\"role\": \"user\", \"content\": \"hi\"}}'), ('s1', NULL);"
        ))?;
    }
    let kinds = schema.kinds();
    let mut user_rowid = 1000i64;
    let mut timestamp = 0.0f64;
    for (i, row) in rows.iter().enumerate() {
        let kind = kinds[usize::from(row.ctrl & 32 != 0) % kinds.len()];
        let name = quote(schema.name(kind));
        let session = format!("s{}", row.ctrl & 3);
        let i = i64::try_from(i).unwrap_or(i64::MAX);
        let reorder = row.ctrl & 64 != 0;
        if !(schema.rowid_column && row.ctrl & 128 != 0 && i > 0) {
            user_rowid -= 1;
        }
        if !(reorder && i > 0) {
            timestamp += 1.0;
        }
        let (json, json_sql) = cell(row, 3);
        let (rowid_col, rowid_sql) = if schema.rowid_column {
            (", rowid", ", ?4")
        } else {
            ("", "")
        };
        let inserted = match kind {
            Kind::Agents => {
                let id = if reorder { 1000 - i } else { i + 1 };
                conn.execute(
                    &format!(
                        "INSERT INTO {name} (id, session_id, message_data{rowid_col}) \
                         VALUES (?1, ?2, {json_sql}{rowid_sql})"
                    ),
                    rusqlite::params_from_iter(
                        [Value::Integer(id), Value::Text(session), json]
                            .into_iter()
                            .chain(schema.rowid_column.then_some(Value::Integer(user_rowid))),
                    ),
                )
            }
            Kind::Langgraph => {
                let id = if reorder { 1000 - i } else { i + 1 };
                let ns = if row.ctrl & 128 != 0 { "sub:1" } else { "" };
                let kind = match (row.ctrl >> 2) & 7 {
                    0..=2 => Value::Text("msgpack".into()),
                    3 => Value::Text("json".into()),
                    4 => Value::Text("pickle".into()),
                    _ => Value::Null,
                };
                conn.execute(
                    &format!(
                        "INSERT INTO {name} (thread_id, checkpoint_ns, checkpoint_id, type, \
                         checkpoint{rowid_col}) VALUES (?1, ?2, ?3, ?5, ?6{rowid_sql})"
                    ),
                    rusqlite::params_from_iter(
                        [
                            Value::Text(session),
                            Value::Text(ns.into()),
                            Value::Text(format!("{id:08}")),
                        ]
                        .into_iter()
                        .chain(schema.rowid_column.then_some(Value::Integer(user_rowid)))
                        .chain((!schema.rowid_column).then_some(Value::Null))
                        .chain([kind, Value::Blob(row.json.to_vec())]),
                    ),
                )
            }
            Kind::Adk => conn.execute(
                &format!(
                    "INSERT INTO {name} (id, app_name, user_id, session_id, invocation_id, \
                     author, timestamp, event_data{rowid_col}) \
                     VALUES (?1, 'app', 'user', ?2, 'e-1', 'agent', ?5, {json_sql}{rowid_sql})"
                ),
                rusqlite::params_from_iter([
                    Value::Text(format!("ev-{i}")),
                    Value::Text(session),
                    json,
                    Value::Integer(user_rowid),
                    Value::Real(timestamp),
                ]),
            ),
        };
        // NULL in a NOT NULL column, and the like: the row is left out.
        drop(inserted);
    }
    Ok(())
}

/// How many bytes at the start and at the end `old` and `new` share (not overlapping).
fn unchanged_ends(old: &[u8], new: &[u8]) -> (usize, usize) {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - head;
    let tail = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    (head, tail)
}

/// A cell as stored: its type and bytes.
type Cell = (u8, Vec<u8>);

fn cell_of(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => (0, Vec::new()),
        ValueRef::Integer(i) => (1, i.to_le_bytes().to_vec()),
        ValueRef::Real(f) => (2, f.to_bits().to_le_bytes().to_vec()),
        ValueRef::Text(b) => (3, b.to_vec()),
        ValueRef::Blob(b) => (4, b.to_vec()),
    }
}

/// Cells as SQL literals, for messages.
fn show(cells: &[Cell]) -> String {
    let one = |(kind, bytes): &Cell| {
        let word = |b: &[u8]| <[u8; 8]>::try_from(b).unwrap_or_default();
        match kind {
            0 => "NULL".to_string(),
            1 => i64::from_le_bytes(word(bytes)).to_string(),
            2 => f64::from_bits(u64::from_le_bytes(word(bytes))).to_string(),
            3 => format!("{:?}", String::from_utf8_lossy(bytes)),
            _ => format!("blob {:?}", String::from_utf8_lossy(bytes)),
        }
    };
    format!("({})", cells.iter().map(one).collect::<Vec<_>>().join(", "))
}

/// A table's rows by their `id` (the first column): every cell, and the `rowid` toolcheck
/// names it by (`None` when `rowid` cannot be read as an integer).
type TableRows = BTreeMap<Cell, (Option<i64>, Vec<Cell>)>;

fn table_rows(conn: &Connection, name: &str) -> rusqlite::Result<TableRows> {
    let quoted = quote(name);
    let mut out = TableRows::new();
    let mut stmt = conn.prepare(&format!("SELECT * FROM {quoted}"))?;
    let columns = stmt.column_count();
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let cells = (0..columns)
            .map(|i| row.get_ref(i).map(cell_of))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let key = cells.first().cloned().unwrap_or_default();
        out.insert(key, (None, cells));
    }
    // SQLite's rowid, under a name the table does not declare (a column named `rowid`
    // shadows it); a WITHOUT ROWID table has none.
    let declared: Vec<String> = conn
        .prepare(&format!(
            "SELECT name FROM pragma_table_info({})",
            sql_string(name)
        ))?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let alias = ["rowid", "_rowid_", "oid"]
        .into_iter()
        .find(|a| !declared.iter().any(|c| c.eq_ignore_ascii_case(a)));
    let Some(alias) = alias else {
        return Ok(out);
    };
    if let Ok(mut stmt) = conn.prepare(&format!("SELECT id, {alias} FROM {quoted}")) {
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let key = cell_of(row.get_ref(0)?);
            let rowid = row.get::<_, i64>(1).ok();
            if let Some(entry) = out.get_mut(&key) {
                entry.0 = rowid;
            }
        }
    }
    Ok(out)
}

fn all_rows(path: &Path, schema: &Schema) -> BTreeMap<&'static str, TableRows> {
    let conn = Connection::open(path).expect("the database opens");
    schema
        .tables()
        .into_iter()
        .map(|(name, _)| {
            let rows = table_rows(&conn, name).expect("the fuzz target reads its tables");
            (name, rows)
        })
        .collect()
}

/// Every file in `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("the fuzz directory is readable")
        .flatten()
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// A directory of its own for each input, removed afterwards.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolcheck-fuzz-store-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        drop(std::fs::remove_dir_all(&dir));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        drop(std::fs::remove_dir_all(&self.0));
    }
}

/// Fails invariant `name`: a panic, unless `TOOLCHECK_FUZZ_ALLOW` lists it; then `Err`, which
/// ends the input's check.
fn fail(name: &str, message: String) -> Result<(), ()> {
    static ALLOWED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let allowed = ALLOWED.get_or_init(|| {
        std::env::var("TOOLCHECK_FUZZ_ALLOW")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    if !allowed.iter().any(|a| a == name) {
        panic!("store invariant `{name}` failed: {message}");
    }
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|s| s == name) {
        eprintln!("toolcheck-fuzz: allowed failure of store invariant `{name}`: {message}");
        seen.push(name.to_string());
    }
    Err(())
}

macro_rules! ensure {
    ($name:literal, $cond:expr, $($message:tt)+) => {
        if !$cond {
            fail($name, format!($($message)+))?;
        }
    };
}

/// Runs the `store` target's check on one input (two option bytes, then rows).
pub fn check(data: &[u8]) {
    let outcome = run(data);
    super::trace_line(|| format!("{outcome:?}"));
}

/// How far an input's check went.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Too short, or the database could not be read (linting it was checked).
    NotRead,
    /// Read and fixed; the fix changes nothing.
    Unchanged,
    /// The fix was written, and every invariant held.
    Written,
}

fn run(data: &[u8]) -> Result<Outcome, ()> {
    let Some(([s, o], rest)) = super::split_input(data) else {
        return Ok(Outcome::NotRead);
    };
    let schema = Schema::new(s, o);
    let file_name = FILE_NAMES[usize::from(o % 3)];
    let mut setup = super::fix_setup([0, o % 27]);
    setup.name = file_name;
    super::trace_line(|| format!("{schema:?} {}", setup.describe()));
    let rows = rows(rest);

    let dir = TempDir::new();
    let path = dir.0.join(file_name);
    build(&path, &schema, &rows).expect("the fuzz target builds its database");
    let name = SourceName {
        name: file_name.to_string(),
        path: Some(path.clone()),
    };
    let opts = &setup.opts;
    let unsafe_fixes = setup.unsafe_fixes;

    // Linting, reading and fixing touch nothing.
    let rows_before = all_rows(&path, &schema);
    let files_before = files(&dir.0);
    if let Ok((report, rows)) = store::lint_path(
        SourceName {
            name: name.name.clone(),
            path: name.path.clone(),
        },
        &path,
        setup.explicit,
        opts,
    ) {
        let mut diagnostics = Diagnostic::resolve_all(&report.source, report.findings);
        rows.relocate(&report.source, &mut diagnostics);
        for d in &diagnostics {
            assert!(d.start <= d.end, "{}: span {}..{}", d.code, d.start, d.end);
        }
    }
    // An allowed failure of `read-only` does not end the check: what follows still holds.
    let files_after_lint = files(&dir.0);
    if files_after_lint != files_before {
        let message = format!(
            "linting changed the directory: {:?} → {:?}",
            files_before.keys().collect::<Vec<_>>(),
            files_after_lint.keys().collect::<Vec<_>>()
        );
        let _ = fail("read-only", message);
    }
    let Ok(snapshot) = store::read(&path, file_name) else {
        return Ok(Outcome::NotRead);
    };
    let fixed = match store::fix(&name, &snapshot, setup.explicit, opts, unsafe_fixes) {
        Ok(fixed) => fixed,
        Err(FixError::Undecodable(_)) => return Ok(Outcome::Unchanged),
        Err(e) => {
            fail("fix", format!("{e} ({schema:?} {})", setup.describe()))?;
            return Err(());
        }
    };
    if files(&dir.0) != files_after_lint {
        let _ = fail(
            "read-only",
            "reading and fixing changed the directory".to_string(),
        );
    }
    ensure!(
        "fix",
        fixed.original_text() == snapshot.text(),
        "FileFix::original_text is the text read"
    );
    let left = super::fix_check::applicable_left(&fixed, unsafe_fixes);
    ensure!(
        "fix",
        left.is_empty(),
        "applicable fixes left after fixing: {left:?}"
    );
    if !fixed.changed() {
        return Ok(Outcome::Unchanged);
    }
    let fixed_text = fixed.fixed_text();
    let changed = snapshot.changed_rows(file_name, fixed_text);
    let written = store::write(&path, file_name, &snapshot, fixed_text);
    ensure!("write", written.is_ok(), "{written:?}");

    let conn = Connection::open(&path).expect("the database opens");
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string());
    drop(conn);
    ensure!(
        "integrity",
        integrity == "ok",
        "integrity_check: {integrity}"
    );

    // The rows the diff names: table, rowid, the JSON as read and as fixed ("" if deleted).
    let named: Vec<(String, i64, String, String)> = changed
        .iter()
        .map(|(label, old, new)| {
            let (table, rowid) = label
                .strip_prefix(&format!("{file_name}:"))
                .and_then(|l| l.strip_suffix(']'))
                .and_then(|l| l.rsplit_once("[rowid="))
                .and_then(|(t, r)| Some((t.to_string(), r.parse::<i64>().ok()?)))
                .unwrap_or_else(|| panic!("a changed row's name: {label}"));
            let line = |l: &str| l.trim_end_matches('\n').to_string();
            (table, rowid, line(old), line(new))
        })
        .collect();
    let rows_after = all_rows(&path, &schema);
    let mut touched = 0;
    for (table, json) in schema.tables() {
        let (Some(before), Some(after)) = (rows_before.get(table), rows_after.get(table)) else {
            continue;
        };
        ensure!(
            "no-row-gained",
            after.len() <= before.len() && after.keys().all(|k| before.contains_key(k)),
            "{table}: {} rows before, {} after",
            before.len(),
            after.len()
        );
        for (key, (rowid, cells)) in before {
            let now = after.get(key);
            let place = match rowid {
                Some(r) => format!("{table}[rowid={r}]"),
                None => format!("{table}[rowid=?]"),
            };
            touched += usize::from(now.map(|(_, c)| c) != Some(cells));
            // The row the diff names: its rowid, and its JSON as read (rows may share a rowid).
            let as_read = json.and_then(|j| cells.get(j)).map(|c| c.1.clone());
            let fixes = named.iter().find(|(t, r, old, _)| {
                t == table && Some(*r) == *rowid && as_read.as_deref() == Some(old.as_bytes())
            });
            let Some((_, _, old, new)) = fixes else {
                ensure!(
                    "untouched",
                    now.map(|(_, c)| c) == Some(cells),
                    "{place}: a row the diff does not name changed: {} → {}",
                    show(cells),
                    now.map_or("deleted".to_string(), |(_, c)| show(c))
                );
                continue;
            };
            match (now, json) {
                (None, _) => ensure!(
                    "written",
                    new.is_empty(),
                    "{place}: deleted, but fixed to {new:?}"
                ),
                (Some(_), _) if new.is_empty() => {
                    fail(
                        "written",
                        format!("{place}: fixed to nothing but still there"),
                    )?;
                }
                (Some((_, now)), Some(j)) => {
                    let other = |c: &[Cell]| {
                        c.iter()
                            .enumerate()
                            .filter(|(i, _)| *i != j)
                            .map(|(_, c)| c.clone())
                            .collect::<Vec<_>>()
                    };
                    ensure!(
                        "untouched",
                        other(now) == other(cells),
                        "{place}: a column besides the JSON changed"
                    );
                    let stored = now.get(j).map_or(&[][..], |c| c.1.as_slice());
                    let read = cells.get(j).map_or(&[][..], |c| c.1.as_slice());
                    ensure!(
                        "written",
                        stored == new.as_bytes(),
                        "{place}: holds {:?}, fixed to {new:?}",
                        String::from_utf8_lossy(stored)
                    );
                    let (head, tail) = unchanged_ends(old.as_bytes(), new.as_bytes());
                    ensure!(
                        "layout",
                        read.len() == old.len()
                            && stored.get(..head) == read.get(..head)
                            && stored.get(stored.len().saturating_sub(tail)..)
                                == read.get(read.len().saturating_sub(tail)..),
                        "{place}: bytes the fix did not change were rewritten: {:?} → {:?}",
                        String::from_utf8_lossy(read),
                        String::from_utf8_lossy(stored)
                    );
                }
                (Some(_), None) => {}
            }
        }
    }
    ensure!(
        "untouched",
        touched <= named.len(),
        "the write changed {touched} rows, the diff names {}",
        named.len()
    );

    // What was written reads back as the fix, and fixing it again changes nothing.
    let Ok(again) = store::read(&path, file_name) else {
        fail("written", "the written database cannot be read".to_string())?;
        return Err(());
    };
    let lines = |t: &str| {
        t.split('\n')
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    ensure!(
        "written",
        lines(again.text()) == lines(fixed_text),
        "the written database reads back as {:?}, not as the fix {:?}",
        again.text(),
        fixed_text
    );
    match store::fix(&name, &again, setup.explicit, opts, unsafe_fixes) {
        Ok(second) => ensure!(
            "idempotent",
            !second.changed(),
            "fixing the written database changed it again ({} more fixes)",
            second.applied
        ),
        Err(e) => fail("idempotent", format!("fixing the written database: {e}"))?,
    }
    Ok(Outcome::Written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input: the option bytes, then each row's byte and JSON.
    fn input(schema: u8, options: u8, rows: &[(u8, &str)]) -> Vec<u8> {
        let mut out = vec![schema, options];
        for (i, (ctrl, json)) in rows.iter().enumerate() {
            if i > 0 {
                out.push(0xFF);
            }
            out.push(*ctrl);
            out.extend_from_slice(json.as_bytes());
        }
        out
    }

    const USER: &str = r#"{"content": "Weather in Paris?", "role": "user"}"#;
    const ORPHAN: &str =
        r#"{"call_id": "call_gone", "output": "Sunny, 21C", "type": "function_call_output"}"#;
    const CALL: &str = r#"{"arguments": "{\"city\":\"Paris\"}", "call_id": "call_1", "name": "get_weather", "type": "function_call", "id": "fc_1", "status": "completed"}"#;
    const OUTPUT: &str =
        r#"{"call_id": "call_1", "output": "Sunny, 21C", "type": "function_call_output"}"#;

    const ADK_CALL: &str = r#"{"content": {"parts": [{"function_call": {"id": "adk-1", "args": {"city": "Paris"}, "name": "get_weather"}}], "role": "model"}, "invocation_id": "e-1", "author": "agent", "id": "ev-2", "timestamp": 2.0}"#;
    const ADK_RESULT: &str = r#"{"content": {"parts": [{"function_response": {"id": "adk-1", "name": "get_weather", "response": {"result": "Sunny"}}}], "role": "user"}, "invocation_id": "e-1", "author": "agent", "id": "ev-3", "timestamp": 3.0}"#;
    const ADK_ORPHAN: &str = r#"{"content": {"parts": [{"function_response": {"id": "adk-gone", "name": "get_weather", "response": {"result": "Sunny"}}}], "role": "user"}, "invocation_id": "e-2", "author": "agent", "id": "ev-9", "timestamp": 4.0}"#;

    #[test]
    fn rows_are_split_at_0xff() {
        let rows = rows(b"\x01{}\xff\xff\x1c\x00null");
        let got: Vec<_> = rows.iter().map(|r| (r.ctrl, r.json)).collect();
        assert_eq!(got, [(1, &b"{}"[..]), (0x1c, &b"\x00null"[..])]);
    }

    #[test]
    fn a_clean_store_is_left_unchanged() {
        for schema in [0, 1, 32 | 2, 64, 128] {
            let data = input(schema, 0, &[(0, USER), (0, CALL), (0, OUTPUT)]);
            assert_eq!(run(&data), Ok(Outcome::Unchanged), "schema {schema}");
        }
    }

    #[test]
    fn a_fixed_store_is_written_and_checked() {
        // An orphaned output in each of two sessions, under every fix option.
        for r in 0..9 {
            let rows = [(0, USER), (0, ORPHAN), (0, CALL), (0, OUTPUT), (1, ORPHAN)];
            let outcome = run(&input(0, 3 * r, &rows));
            assert_eq!(outcome, Ok(Outcome::Written), "agents, r = {r}");
        }
        // ADK, with the Agents table beside it, non-ASCII table names and an unrelated table.
        let rows = [(0, ADK_CALL), (0, ADK_RESULT), (0, ADK_ORPHAN), (32, USER)];
        let outcome = run(&input(1 | 2 | 32, 27 * 3, &rows));
        assert_eq!(outcome, Ok(Outcome::Written), "adk");
    }
}
