//! The `store` target's check: bytes → a small SQLite database in the schema of one of the
//! libraries whose stores toolcheck reads → lint, fix and write through `toolcheck::store`,
//! as the CLI runs them → invariants.
//!
//! An input is three option bytes `[k, s, o]`, then rows:
//!
//! * `k` picks the kinds of table: `k % 7` the first, `(k / 7) % 7` the second (made when
//!   bit 1 of `s` is set; it may be the first kind again), from: `0` OpenAI Agents SDK
//!   `agent_messages(id, session_id, message_data)`; `1` Google ADK `events(id, app_name,
//!   user_id, session_id, invocation_id, author, timestamp, event_data)`; `2` Goose
//!   `messages(id, message_id, session_id, role, content_json, created_timestamp, …,
//!   metadata_json)`; `3` opencode `part(id, message_id, session_id, time_created,
//!   time_updated, data)` beside `message(id, session_id, time_created, time_updated, data)`;
//!   `4` Charm Crush `messages(id, session_id, role, parts, …, created_at, updated_at, …)` with
//!   Crush's triggers, beside `sessions(…, summary_message_id)`; `5` LangGraph `SqliteSaver`
//!   `checkpoints(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
//!   checkpoint, metadata)`; `6` Hermes Agent's `messages(id, session_id, role, content,
//!   tool_call_id, tool_calls, tool_name, timestamp, …)` (its schema before 0.16.0, without
//!   `active`) beside `sessions`, read by its `tool_calls` (NULL reads as `null`). Goose,
//!   Crush and Hermes get a `sessions` table;
//! * `s`: bit 0 leaves the joined tables (`message`, `sessions`) empty, bit 1 makes the
//!   second table, bit 2 makes the session tables `WITHOUT ROWID`, bit 3 gives them a user
//!   column named `rowid`, bit 4 puts the database in WAL journal mode, bit 5 adds an
//!   unrelated table with a `session_id` column; bits 6–7 declare the JSON column `TEXT NOT
//!   NULL`, untyped, `BLOB` or `INTEGER`;
//! * `o % 3` picks the file name (`fuzz.db`, `fuzz.sqlite`, `fuzz.sqlite3`), `(o / 3) % 9` the
//!   fix options as the `fix` target reads them, and `(o / 27) % 4` the table names: as the
//!   libraries name them, with a double quote, with a space and brackets, non-ASCII;
//! * the rest is rows separated by `0xFF` (a byte UTF-8 never holds). A row's first byte `c`
//!   says how it is stored, the bytes after it are its JSON column: bits 0–1 pick one of four
//!   sessions; bits 2–4 the cell's type (`0..=4` text, `5` blob, `6` NULL, `7` a number
//!   read from the bytes); bit 5 puts the row in the second table, if there is one; bit 6
//!   reorders (an ADK row takes the timestamp of the row before it, an Agents row or an
//!   opencode part a smaller id than every row before it, a Goose, Crush or Hermes row or an
//!   opencode message a time before the row before it); bit 7 makes the user `rowid` column
//!   repeat the value of the row before instead of a new one. At most 64 rows; a row SQLite
//!   refuses (NULL in a `NOT NULL` column) is left out.
//!
//!   For the kinds with more columns than the JSON, the JSON may be followed by `0xFE`
//!   (which UTF-8 never holds either) and up to two more fields, `json 0xFE a 0xFE b`: Goose
//!   `a` the role, `b` `metadata_json`; opencode `a` starts a new message whose `data` it is
//!   (a row without one is a part of its session's last message); Crush `a` the role, and
//!   `b` (any bytes) makes the row its session's summary message; Hermes `a` the role, `b`
//!   its `content`. Without them a role alternates user, assistant by row. A LangGraph row's
//!   bytes are its checkpoint blob, `0xFE` included (bits 2–4 pick the `type`: msgpack,
//!   JSON, pickle or NULL; bit 6 orders its `checkpoint_id` backwards; bit 7 puts it in a
//!   subgraph namespace).
//!
//! Inputs once had two option bytes `[s, o]` (the kind by bit 0 of `s`, LangGraph for
//! `o >= 216`); `fuzz/regressions/` was converted to `[k, s, o]`.
//!
//! The database is written to a fresh directory, then (each invariant is named for
//! `TOOLCHECK_FUZZ_ALLOW`, `fuzz/src/support.rs`):
//!
//! * `read-only`: linting it (`store::lint_path`), reading it and computing its fix
//!   (`store::read`, `store::fix`: the dry run) change none of the directory's files and
//!   create none;
//! * `fix`: the fix does not fail (`DidNotConverge` or `Unparseable`) and leaves nothing
//!   applicable, and its text was the database's as read;
//! * `write`: when the fix changes the text, `store::write` succeeds;
//! * `integrity`: `PRAGMA integrity_check` is `ok` afterwards;
//! * `no-row-gained`: no table has a row it did not have before;
//! * `untouched`: rows the diff (`Snapshot::changed_rows`) does not name are unchanged byte
//!   for byte, in every table (the joined and unrelated ones included), and so are the other
//!   columns of the rows it names (but the `updated_at` Crush's own trigger stamps); the
//!   write changes no more rows than the diff names;
//! * `written`: each row the diff names is gone when its fixed line is empty, else holds the
//!   fixed JSON exactly as the diff shows it (raw line breaks included); reading the database
//!   again gives the fixed text (its non-empty lines);
//! * `layout`: a rewritten row keeps the bytes the fix did not change (outside the span where
//!   its JSON as read and as fixed differ), raw line breaks included;
//! * `idempotent`: fixing the written database again changes nothing.
//!
//! An allowed failure ends the input's check (but for `read-only`, after which the check goes
//! on), so a run can look past a known bug.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rusqlite::types::{Value, ValueRef};
use rusqlite::Connection;
use toolcheck::fix::FixError;
use toolcheck::lint::SourceName;
use toolcheck::report::Diagnostic;
use toolcheck::store;

use super::support::{fail, TempDir};

/// The most rows an input makes.
const MAX_ROWS: usize = 64;

/// The JSON column's declared type, by bits 6–7 of the schema byte.
const JSON_TYPES: [&str; 4] = ["TEXT NOT NULL", "", "BLOB", "INTEGER"];

/// The unrelated table's name by `(o / 27) % 4`.
const UNRELATED_NAMES: [&str; 4] = ["notes", "no\"tes", "[notes]", "メモ"];

const FILE_NAMES: [&str; 3] = ["fuzz.db", "fuzz.sqlite", "fuzz.sqlite3"];

/// Goose's metadata for a message both the user and the agent see.
const VISIBLE: &[u8] = br#"{"userVisible":true,"agentVisible":true}"#;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Agents,
    Adk,
    Goose,
    Opencode,
    Crush,
    Langgraph,
    Hermes,
}

/// The kinds by `k % 7` (and `(k / 7) % 7`).
const KINDS: [Kind; 7] = [
    Kind::Agents,
    Kind::Adk,
    Kind::Goose,
    Kind::Opencode,
    Kind::Crush,
    Kind::Langgraph,
    Kind::Hermes,
];

impl Kind {
    /// The table's name as the library names it.
    fn base_name(self) -> &'static str {
        match self {
            Kind::Agents => "agent_messages",
            Kind::Adk => "events",
            Kind::Goose | Kind::Crush | Kind::Hermes => "messages",
            Kind::Opencode => "part",
            Kind::Langgraph => "checkpoints",
        }
    }

    /// The JSON column's place among the table's columns (a user `rowid` column comes last).
    fn json_index(self) -> usize {
        match self {
            Kind::Agents => 2,
            Kind::Adk => 7,
            Kind::Goose => 4,
            Kind::Opencode | Kind::Langgraph => 5,
            Kind::Crush => 3,
            Kind::Hermes => 5,
        }
    }

    /// Columns a write of the JSON may change too: Crush's own trigger stamps `updated_at`.
    fn stamped(self) -> &'static [usize] {
        match self {
            Kind::Crush => &[6],
            _ => &[],
        }
    }

    /// Whether a row's bytes may carry other columns after `0xFE`.
    fn has_fields(self) -> bool {
        matches!(
            self,
            Kind::Goose | Kind::Opencode | Kind::Crush | Kind::Hermes
        )
    }

    /// The SQL that makes the table `name` (quoted) as the library does, with `json` the JSON
    /// column's type, `rowid` an extra column, `without` a `WITHOUT ROWID` suffix.
    fn create(self, name: &str, raw_name: &str, json: &str, rowid: &str, without: &str) -> String {
        // AUTOINCREMENT needs a rowid.
        let autoincrement = if without.is_empty() {
            " AUTOINCREMENT"
        } else {
            ""
        };
        match self {
            Kind::Agents => format!(
                "CREATE TABLE {name} (id INTEGER PRIMARY KEY{autoincrement}, \
                 session_id TEXT NOT NULL, message_data {json}{rowid}){without}"
            ),
            Kind::Adk => format!(
                "CREATE TABLE {name} (id TEXT NOT NULL, app_name TEXT NOT NULL, \
                 user_id TEXT NOT NULL, session_id TEXT NOT NULL, invocation_id TEXT NOT NULL, \
                 author TEXT, timestamp REAL NOT NULL, event_data {json}{rowid}, \
                 PRIMARY KEY (app_name, user_id, session_id, id)){without}"
            ),
            Kind::Goose => format!(
                "CREATE TABLE {name} (id INTEGER PRIMARY KEY{autoincrement}, message_id TEXT, \
                 session_id TEXT NOT NULL, role TEXT NOT NULL, content_json {json}, \
                 created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, \
                 tokens INTEGER, metadata_json TEXT{rowid}){without}"
            ),
            Kind::Opencode => format!(
                "CREATE TABLE {name} (id TEXT PRIMARY KEY NOT NULL, message_id TEXT NOT NULL, \
                 session_id TEXT NOT NULL, time_created INTEGER NOT NULL, \
                 time_updated INTEGER NOT NULL, data {json}{rowid}){without}"
            ),
            // Crush's triggers: a message's update stamps it, an insert counts it.
            Kind::Crush => {
                let trigger = |what: &str| quote(&format!("{raw_name} {what}"));
                format!(
                    "CREATE TABLE {name} (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, \
                     role TEXT NOT NULL, parts {json} DEFAULT '[]', model TEXT, \
                     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, \
                     finished_at INTEGER, provider TEXT, \
                     is_summary_message INTEGER DEFAULT 0 NOT NULL{rowid}){without};
                     CREATE TRIGGER {} AFTER UPDATE ON {name} BEGIN \
                       UPDATE {name} SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
                     CREATE TRIGGER {} AFTER INSERT ON {name} BEGIN \
                       UPDATE sessions SET message_count = message_count + 1 \
                       WHERE id = new.session_id; END;",
                    trigger("updated"),
                    trigger("counted"),
                )
            }
            Kind::Langgraph => format!(
                "CREATE TABLE {name} (thread_id TEXT NOT NULL, \
                 checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL, \
                 parent_checkpoint_id TEXT, type TEXT, checkpoint {json}, metadata BLOB{rowid}, \
                 PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)){without}"
            ),
            Kind::Hermes => format!(
                "CREATE TABLE {name} (id INTEGER PRIMARY KEY{autoincrement}, \
                 session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, \
                 tool_call_id TEXT, tool_calls {json}, tool_name TEXT, timestamp REAL NOT NULL, \
                 token_count INTEGER, finish_reason TEXT{rowid}){without}"
            ),
        }
    }
}

/// The tables the session tables join: opencode's messages, and the sessions of Goose,
/// Crush (whose `summary_message_id` it reads) and Hermes, in one table of all their columns.
const MESSAGE_TABLE: &str = "CREATE TABLE message (id TEXT PRIMARY KEY NOT NULL, \
     session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, \
     data TEXT NOT NULL)";
const SESSIONS_TABLE: &str = "CREATE TABLE sessions (id TEXT PRIMARY KEY, \
     title TEXT NOT NULL DEFAULT '', message_count INTEGER NOT NULL DEFAULT 0 \
     CHECK (message_count >= 0), summary_message_id TEXT, source TEXT, started_at REAL, \
     working_dir TEXT, created_at INTEGER, updated_at INTEGER)";

/// What the option bytes decide about the database.
#[derive(Debug)]
struct Schema {
    /// The session tables' kinds and names, in the order made.
    tables: Vec<(Kind, String)>,
    empty_joins: bool,
    without_rowid: bool,
    rowid_column: bool,
    wal: bool,
    unrelated: Option<&'static str>,
    json_type: &'static str,
}

/// A table's name: the library's (a second table of a name taken gets `_2`), with a double
/// quote, with a space and brackets, or non-ASCII, by `variant`.
fn table_name(kind: Kind, taken: Option<&str>, variant: usize) -> String {
    let mut base = kind.base_name().to_string();
    if taken == Some(kind.base_name()) {
        base.push_str("_2");
    }
    match variant {
        0 => base,
        1 => {
            let (head, tail) = base.split_at(base.len() / 2);
            format!("{head}\"{tail}")
        }
        2 => format!("{base} [{}]", usize::from(taken.is_some()) + 1),
        _ => format!("{base}_äöü"),
    }
}

impl Schema {
    fn new([k, s, o]: [u8; 3]) -> Schema {
        let variant = usize::from((o / 27) % 4);
        let first = KINDS[usize::from(k) % KINDS.len()];
        let mut tables = vec![(first, table_name(first, None, variant))];
        if s & 2 != 0 {
            let second = KINDS[usize::from(k) / KINDS.len() % KINDS.len()];
            tables.push((second, table_name(second, Some(first.base_name()), variant)));
        }
        Schema {
            tables,
            empty_joins: s & 1 != 0,
            without_rowid: s & 4 != 0,
            rowid_column: s & 8 != 0,
            wal: s & 16 != 0,
            unrelated: (s & 32 != 0).then_some(UNRELATED_NAMES[variant]),
            json_type: JSON_TYPES[usize::from(s >> 6)],
        }
    }

    fn has(&self, kinds: &[Kind]) -> bool {
        self.tables.iter().any(|(k, _)| kinds.contains(k))
    }

    fn has_message_table(&self) -> bool {
        self.has(&[Kind::Opencode])
    }

    fn has_sessions_table(&self) -> bool {
        self.has(&[Kind::Goose, Kind::Crush, Kind::Hermes])
    }

    /// Every table made, with its JSON column and the columns a write may stamp (`None`:
    /// a table no row of which may change).
    fn checked(&self) -> Vec<(String, Option<usize>, &'static [usize])> {
        let mut out: Vec<_> = self
            .tables
            .iter()
            .map(|(k, n)| (n.clone(), Some(k.json_index()), k.stamped()))
            .collect();
        let others = [
            self.unrelated.map(str::to_string),
            self.has_message_table().then(|| "message".to_string()),
            self.has_sessions_table().then(|| "sessions".to_string()),
        ];
        out.extend(others.into_iter().flatten().map(|n| (n, None, &[][..])));
        out
    }
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `text` as an SQL string literal.
fn sql_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// One row of the input: its byte, and its bytes (the JSON, and the fields after `0xFE`).
struct InputRow<'a> {
    ctrl: u8,
    bytes: &'a [u8],
}

impl<'a> InputRow<'a> {
    /// The JSON and the two fields, for a kind that reads fields.
    fn fields(&self, kind: Kind) -> (&'a [u8], Option<&'a [u8]>, Option<&'a [u8]>) {
        if !kind.has_fields() {
            return (self.bytes, None, None);
        }
        let mut parts = self.bytes.splitn(3, |&b| b == 0xFE);
        let json = parts.next().unwrap_or_default();
        (json, parts.next(), parts.next())
    }
}

fn rows(data: &[u8]) -> Vec<InputRow<'_>> {
    data.split(|&b| b == 0xFF)
        .filter_map(|piece| {
            let (&ctrl, bytes) = piece.split_first()?;
            Some(InputRow { ctrl, bytes })
        })
        .take(MAX_ROWS)
        .collect()
}

/// One INSERT being put together: its columns, their SQL and parameters.
#[derive(Default)]
struct Insert {
    columns: Vec<&'static str>,
    values: Vec<String>,
    params: Vec<Value>,
}

impl Insert {
    fn value(&mut self, column: &'static str, value: Value) -> &mut Insert {
        self.params.push(value);
        self.columns.push(column);
        self.values.push(format!("?{}", self.params.len()));
        self
    }

    /// Text byte for byte (invalid UTF-8 and NUL included).
    fn text(&mut self, column: &'static str, bytes: &[u8]) -> &mut Insert {
        self.value(column, Value::Blob(bytes.to_vec()));
        if let Some(last) = self.values.last_mut() {
            *last = format!("CAST({last} AS TEXT)");
        }
        self
    }

    /// The JSON column, stored as the row's byte says (`c` bits 2–4).
    fn json(&mut self, column: &'static str, ctrl: u8, bytes: &[u8]) -> &mut Insert {
        match (ctrl >> 2) & 7 {
            5 => self.value(column, Value::Blob(bytes.to_vec())),
            6 => self.value(column, Value::Null),
            7 => {
                let text = String::from_utf8_lossy(bytes);
                let value = match (text.trim().parse::<i64>(), text.trim().parse::<f64>()) {
                    (Ok(i), _) => Value::Integer(i),
                    (_, Ok(f)) => Value::Real(f),
                    _ => Value::Integer(i64::try_from(bytes.len()).unwrap_or(i64::MAX)),
                };
                self.value(column, value)
            }
            _ => self.text(column, bytes),
        }
    }

    fn run(&self, conn: &Connection, table: &str) -> rusqlite::Result<usize> {
        conn.execute(
            &format!(
                "INSERT INTO {} ({}) VALUES ({})",
                quote(table),
                self.columns.join(", "),
                self.values.join(", ")
            ),
            rusqlite::params_from_iter(&self.params),
        )
    }
}

/// What building the rows keeps track of.
#[derive(Default)]
struct Clock {
    /// Orders Goose, Crush, Hermes rows and opencode messages: ten a row, so a row put
    /// before the one before it (`c` bit 6) still comes after the one before that.
    at: i64,
    /// ADK's timestamp.
    timestamp: f64,
    user_rowid: i64,
    /// opencode: each (table, session)'s last message, and how many there are.
    messages: HashMap<(usize, String), String>,
    message_count: usize,
}

/// Creates the database at `path` from the input; rows SQLite refuses are left out.
fn build(path: &Path, schema: &Schema, rows: &[InputRow<'_>]) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    if schema.wal {
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    }
    if schema.has_message_table() {
        conn.execute(MESSAGE_TABLE, [])?;
    }
    if schema.has_sessions_table() {
        conn.execute(SESSIONS_TABLE, [])?;
        if !schema.empty_joins {
            conn.execute_batch(
                "INSERT INTO sessions (id, title, source, started_at, working_dir, created_at, \
                 updated_at) VALUES ('s0', 'a', 'cli', 1.0, '/p', 1, 1), \
                 ('s1', 'b', 'cli', 1.0, '/p', 1, 1), ('s2', 'c', 'cli', 1.0, '/p', 1, 1), \
                 ('s3', 'd', 'cli', 1.0, '/p', 1, 1)",
            )?;
        }
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
    for (kind, name) in &schema.tables {
        conn.execute_batch(&kind.create(&quote(name), name, schema.json_type, rowid, without))?;
    }
    if let Some(name) = schema.unrelated {
        let name = quote(name);
        conn.execute_batch(&format!(
            "CREATE TABLE {name} (id INTEGER PRIMARY KEY, session_id TEXT, body TEXT);
             INSERT INTO {name} (session_id, body) VALUES
               ('s0', '{{\"role\": \"user\", \"content\": \"hi\"}}'), ('s1', NULL);"
        ))?;
    }
    let mut clock = Clock {
        user_rowid: 1000,
        ..Clock::default()
    };
    for (i, row) in rows.iter().enumerate() {
        let slot = usize::from(row.ctrl & 32 != 0) % schema.tables.len();
        let (kind, name) = &schema.tables[slot];
        let i = i64::try_from(i).unwrap_or(i64::MAX);
        let reorder = row.ctrl & 64 != 0 && i > 0;
        if !(schema.rowid_column && row.ctrl & 128 != 0 && i > 0) {
            clock.user_rowid -= 1;
        }
        if !reorder {
            clock.timestamp += 1.0;
            clock.at += 10;
        }
        let at = if reorder { clock.at - 5 } else { clock.at };
        // NULL in a NOT NULL column, and the like: the row is left out.
        drop(insert(
            &conn, schema, &mut clock, slot, *kind, name, i, at, row,
        ));
    }
    Ok(())
}

/// Inserts one row (and for opencode its message, for Crush its summary mark).
#[allow(clippy::too_many_arguments)]
fn insert(
    conn: &Connection,
    schema: &Schema,
    clock: &mut Clock,
    slot: usize,
    kind: Kind,
    table: &str,
    i: i64,
    at: i64,
    row: &InputRow<'_>,
) -> rusqlite::Result<()> {
    let session = format!("s{}", row.ctrl & 3);
    let reorder = row.ctrl & 64 != 0 && i > 0;
    let (json, a, b) = row.fields(kind);
    let role = |given: Option<&[u8]>| -> Vec<u8> {
        given.map_or_else(
            || [&b"user"[..], b"assistant"][usize::from(i % 2 == 1)].to_vec(),
            <[u8]>::to_vec,
        )
    };
    let mut ins = Insert::default();
    match kind {
        Kind::Agents => {
            let id = if reorder { 1000 - i } else { i + 1 };
            ins.value("id", Value::Integer(id))
                .value("session_id", Value::Text(session))
                .json("message_data", row.ctrl, json);
        }
        Kind::Adk => {
            ins.value("id", Value::Text(format!("ev-{i}")))
                .value("app_name", Value::Text("app".into()))
                .value("user_id", Value::Text("user".into()))
                .value("session_id", Value::Text(session))
                .value("invocation_id", Value::Text("e-1".into()))
                .value("author", Value::Text("agent".into()))
                .value("timestamp", Value::Real(clock.timestamp))
                .json("event_data", row.ctrl, json);
        }
        Kind::Goose => {
            ins.value("id", Value::Integer(i + 1))
                .value("message_id", Value::Text(format!("msg_{i}")))
                .value("session_id", Value::Text(session))
                .text("role", &role(a))
                .json("content_json", row.ctrl, json)
                .value("created_timestamp", Value::Integer(at))
                .text("metadata_json", b.unwrap_or(VISIBLE));
        }
        Kind::Opencode => {
            let key = (slot, session.clone());
            let message = match (a, clock.messages.get(&key)) {
                (None, Some(id)) => id.clone(),
                (data, _) => {
                    clock.message_count += 1;
                    let id = format!("msg_{:04}", clock.message_count);
                    clock.messages.insert(key, id.clone());
                    let role = [&b"user"[..], b"assistant"][clock.message_count % 2];
                    let default = [&br#"{"role":""#[..], role, br#""}"#].concat();
                    if !schema.empty_joins {
                        let mut message = Insert::default();
                        message
                            .value("id", Value::Text(id.clone()))
                            .value("session_id", Value::Text(session.clone()))
                            .value("time_created", Value::Integer(at))
                            .value("time_updated", Value::Integer(at))
                            .text("data", data.unwrap_or(&default));
                        drop(message.run(conn, "message"));
                    }
                    id
                }
            };
            let part = if reorder { 1000 - i } else { i + 1 };
            ins.value("id", Value::Text(format!("prt_{part:04}")))
                .value("message_id", Value::Text(message))
                .value("session_id", Value::Text(session))
                .value("time_created", Value::Integer(at))
                .value("time_updated", Value::Integer(at))
                .json("data", row.ctrl, json);
        }
        Kind::Crush => {
            let id = format!("m{i:04}");
            ins.value("id", Value::Text(id.clone()))
                .value("session_id", Value::Text(session.clone()))
                .text("role", &role(a))
                .json("parts", row.ctrl, json)
                .value("created_at", Value::Integer(at))
                .value("updated_at", Value::Integer(at))
                .value("is_summary_message", Value::Integer(i64::from(b.is_some())));
            if b.is_some() {
                conn.execute(
                    "UPDATE sessions SET summary_message_id = ?1 WHERE id = ?2",
                    [&id, &session],
                )?;
            }
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
            ins.value("thread_id", Value::Text(session))
                .value("checkpoint_ns", Value::Text(ns.into()))
                .value("checkpoint_id", Value::Text(format!("{id:08}")))
                .value("type", kind)
                .value("checkpoint", Value::Blob(json.to_vec()));
        }
        Kind::Hermes => {
            ins.value("id", Value::Integer(i + 1))
                .value("session_id", Value::Text(session))
                .text("role", &role(a))
                .json("tool_calls", row.ctrl, json)
                .value("timestamp", Value::Real(at as f64 / 10.0));
            if let Some(content) = b {
                ins.text("content", content);
            }
        }
    }
    if schema.rowid_column {
        ins.value("rowid", Value::Integer(clock.user_rowid));
    }
    ins.run(conn, table).map(drop)
}

/// Builds the database a `store` input describes at `path` (the `doctor` target's session
/// databases); `false` when the input is too short to name a schema, or SQLite refused it.
pub fn build_input(path: &Path, data: &[u8]) -> bool {
    let [k, s, o, rest @ ..] = data else {
        return false;
    };
    build(path, &Schema::new([*k, *s, *o]), &rows(rest)).is_ok()
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

/// A table's rows by their primary key (every cell where it has none): every cell, and the
/// `rowid` toolcheck names it by (`None` when the table has none to read as an integer).
type TableRows = BTreeMap<Vec<Cell>, (Option<i64>, Vec<Cell>)>;

fn table_rows(conn: &Connection, name: &str) -> rusqlite::Result<TableRows> {
    let quoted = quote(name);
    let declared: Vec<(String, i64)> = conn
        .prepare(&format!(
            "SELECT name, pk FROM pragma_table_info({})",
            sql_string(name)
        ))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut key: Vec<(i64, usize)> = declared
        .iter()
        .enumerate()
        .filter(|(_, (_, pk))| *pk > 0)
        .map(|(i, (_, pk))| (*pk, i))
        .collect();
    key.sort();
    // SQLite's rowid, under a name the table does not declare (a column named `rowid`
    // shadows it); a WITHOUT ROWID table has none.
    let alias = ["rowid", "_rowid_", "oid"]
        .into_iter()
        .find(|a| !declared.iter().any(|(c, _)| c.eq_ignore_ascii_case(a)));
    let with_rowid = alias.and_then(|a| conn.prepare(&format!("SELECT {a}, * FROM {quoted}")).ok());
    let (mut stmt, first) = match with_rowid {
        Some(stmt) => (stmt, 1),
        None => (conn.prepare(&format!("SELECT * FROM {quoted}"))?, 0),
    };
    let columns = stmt.column_count();
    let mut out = TableRows::new();
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let rowid = if first == 1 {
            row.get::<_, i64>(0).ok()
        } else {
            None
        };
        let cells = (first..columns)
            .map(|i| row.get_ref(i).map(cell_of))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let k = if key.is_empty() {
            cells.clone()
        } else {
            key.iter()
                .filter_map(|(_, i)| cells.get(*i).cloned())
                .collect()
        };
        out.insert(k, (rowid, cells));
    }
    Ok(out)
}

fn all_rows(path: &Path, schema: &Schema) -> BTreeMap<String, TableRows> {
    let conn = Connection::open(path).expect("the database opens");
    schema
        .checked()
        .into_iter()
        .map(|(name, _, _)| {
            let rows = table_rows(&conn, &name).expect("the fuzz target reads its tables");
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

/// Fails store invariant `name` (see `support::fail`).
fn fail_store(name: &str, message: String) -> Result<(), ()> {
    fail("store", name, message)
}

macro_rules! ensure {
    ($name:literal, $cond:expr, $($message:tt)+) => {
        if !$cond {
            fail_store($name, format!($($message)+))?;
        }
    };
}

/// Runs the `store` target's check on one input (three option bytes, then rows).
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
    let [k, s, o, rest @ ..] = data else {
        return Ok(Outcome::NotRead);
    };
    let (o, schema) = (*o, Schema::new([*k, *s, *o]));
    let file_name = FILE_NAMES[usize::from(o % 3)];
    let mut setup = super::fix_setup([0, o % 27]);
    setup.name = file_name;
    super::trace_line(|| format!("{schema:?} {}", setup.describe()));
    let rows = rows(rest);

    let dir = TempDir::new("store");
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
        let _ = fail_store("read-only", message);
    }
    let Ok(snapshot) = store::read(&path, file_name) else {
        return Ok(Outcome::NotRead);
    };
    let fixed = match store::fix(&name, &snapshot, setup.explicit, opts, unsafe_fixes) {
        Ok(fixed) => fixed,
        Err(FixError::Undecodable(_)) => return Ok(Outcome::Unchanged),
        Err(e) => {
            fail_store("fix", format!("{e} ({schema:?} {})", setup.describe()))?;
            return Err(());
        }
    };
    if files(&dir.0) != files_after_lint {
        let _ = fail_store(
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
            // The line break `changed_rows` adds, only: a row may end in raw ones of its own.
            let line = |l: &str| l.strip_suffix('\n').unwrap_or(l).to_string();
            (table, rowid, line(old), line(new))
        })
        .collect();
    let rows_after = all_rows(&path, &schema);
    let mut touched = 0;
    for (table, json, stamped) in schema.checked() {
        let table = table.as_str();
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
            // A NULL JSON column reads as `null` (Hermes's `tool_calls`; other kinds never
            // fix a NULL row).
            let as_read = json.and_then(|j| cells.get(j)).map(|c| {
                if c.0 == 0 {
                    b"null".to_vec()
                } else {
                    c.1.clone()
                }
            });
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
                    fail_store(
                        "written",
                        format!("{place}: fixed to nothing but still there"),
                    )?;
                }
                (Some((_, now)), Some(j)) => {
                    let other = |c: &[Cell]| {
                        c.iter()
                            .enumerate()
                            .filter(|(i, _)| *i != j && !stamped.contains(i))
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
        fail_store("written", "the written database cannot be read".to_string())?;
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
        Err(e) => fail_store("idempotent", format!("fixing the written database: {e}"))?,
    }
    Ok(Outcome::Written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input: the option bytes, then each row's byte and bytes.
    fn input(options: [u8; 3], rows: &[(u8, &[u8])]) -> Vec<u8> {
        let mut out = options.to_vec();
        for (i, (ctrl, bytes)) in rows.iter().enumerate() {
            if i > 0 {
                out.push(0xFF);
            }
            out.push(*ctrl);
            out.extend_from_slice(bytes);
        }
        out
    }

    /// A row's JSON and the fields after it.
    fn with(json: &str, fields: &[&str]) -> Vec<u8> {
        let mut out = json.as_bytes().to_vec();
        for f in fields {
            out.push(0xFE);
            out.extend_from_slice(f.as_bytes());
        }
        out
    }

    const AGENTS: u8 = 0;
    const ADK: u8 = 1;
    const GOOSE: u8 = 2;
    const OPENCODE: u8 = 3;
    const CRUSH: u8 = 4;
    const HERMES: u8 = 6;

    const USER: &str = r#"{"content": "Weather in Paris?", "role": "user"}"#;
    const ORPHAN: &str =
        r#"{"call_id": "call_gone", "output": "Sunny, 21C", "type": "function_call_output"}"#;
    const CALL: &str = r#"{"arguments": "{\"city\":\"Paris\"}", "call_id": "call_1", "name": "get_weather", "type": "function_call", "id": "fc_1", "status": "completed"}"#;
    const OUTPUT: &str =
        r#"{"call_id": "call_1", "output": "Sunny, 21C", "type": "function_call_output"}"#;

    const ADK_CALL: &str = r#"{"content": {"parts": [{"function_call": {"id": "adk-1", "args": {"city": "Paris"}, "name": "get_weather"}}], "role": "model"}, "invocation_id": "e-1", "author": "agent", "id": "ev-2", "timestamp": 2.0}"#;
    const ADK_RESULT: &str = r#"{"content": {"parts": [{"function_response": {"id": "adk-1", "name": "get_weather", "response": {"result": "Sunny"}}}], "role": "user"}, "invocation_id": "e-1", "author": "agent", "id": "ev-3", "timestamp": 3.0}"#;
    const ADK_ORPHAN: &str = r#"{"content": {"parts": [{"function_response": {"id": "adk-gone", "name": "get_weather", "response": {"result": "Sunny"}}}], "role": "user"}, "invocation_id": "e-2", "author": "agent", "id": "ev-9", "timestamp": 4.0}"#;

    const GOOSE_CALL: &str = r#"[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"shell","arguments":{"command":"ls"}}}}]"#;
    const GOOSE_RESULT: &str = r#"[{"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"a.txt"}],"isError":false}}}]"#;
    const GOOSE_ORPHAN: &str = r#"[{"type":"toolResponse","id":"gone","toolResult":{"status":"success","value":{"content":[]}}},{"type":"text","text":"Go on"}]"#;
    const GOOSE_TEXT: &str = r#"[{"type":"text","text":"Listing."}]"#;

    const OPENCODE_USER: &str = r#"{"role":"user","time":{"created":1}}"#;
    const OPENCODE_ASSISTANT: &str = r#"{"role":"assistant","time":{"created":2}}"#;
    const OPENCODE_TEXT: &str = r#"{"type":"text","text":"Run it"}"#;
    const OPENCODE_DONE: &str = r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"a.txt","title":"ls","metadata":{},"time":{"start":1,"end":2}}}"#;
    const OPENCODE_RUNNING: &str = r#"{"type":"tool","callID":"c2","tool":"bash","state":{"status":"running","input":{"command":"make"},"time":{"start":3}}}"#;

    const CRUSH_TEXT: &str = r#"[{"type":"text","data":{"text":"List the files"}}]"#;
    const CRUSH_CALL: &str = r#"[{"type":"tool_call","data":{"id":"k1","name":"bash","input":"{\"command\":\"ls\"}","provider_executed":false,"finished":true}}]"#;
    const CRUSH_RESULT: &str = r#"[{"type":"tool_result","data":{"tool_call_id":"k1","name":"bash","content":"main.go","data":"","mime_type":"","metadata":"","is_error":false}}]"#;
    const CRUSH_ORPHAN: &str = r#"[{"type":"tool_result","data":{"tool_call_id":"k1","name":"bash","content":"main.go","data":"","mime_type":"","metadata":"","is_error":false}},{"type":"tool_result","data":{"tool_call_id":"gone","name":"bash","content":"x","data":"","mime_type":"","metadata":"","is_error":false}}]"#;

    #[test]
    fn rows_are_split_at_0xff_and_fields_at_0xfe() {
        let rows = rows(b"\x01{}\xfe\x80\xff\xff\x1c\x00null");
        let got: Vec<_> = rows.iter().map(|r| (r.ctrl, r.bytes)).collect();
        assert_eq!(got, [(1, &b"{}\xfe\x80"[..]), (0x1c, &b"\x00null"[..])]);
        assert_eq!(
            rows[0].fields(Kind::Goose),
            (&b"{}"[..], Some(&b"\x80"[..]), None)
        );
        assert_eq!(rows[0].fields(Kind::Agents).0, b"{}\xfe\x80");
    }

    #[test]
    fn every_option_byte_decodes() {
        for k in 0..=255u8 {
            for s in [0, 2, 255] {
                let schema = Schema::new([k, s, k]);
                assert!(!schema.tables.is_empty());
                let names: Vec<_> = schema.checked().into_iter().map(|t| t.0).collect();
                let mut unique = names.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(unique.len(), names.len(), "{names:?}");
            }
        }
    }

    /// The formats linting the database an input builds reads (non-explicit, as in a walk).
    fn formats_read(data: &[u8]) -> Vec<&'static str> {
        let schema = Schema::new([data[0], data[1], data[2]]);
        let dir = TempDir::new("store-test");
        let path = dir.path().join("t.db");
        build(&path, &schema, &rows(&data[3..])).expect("built");
        let name = SourceName {
            name: "t.db".into(),
            path: Some(path.clone()),
        };
        let opts = toolcheck::lint::LintOptions::default();
        match store::lint_path(name, &path, false, &opts).map(|r| r.0.outcome) {
            Ok(toolcheck::lint::Outcome::Checked(formats)) => {
                formats.into_iter().map(|f| f.name()).collect()
            }
            _ => Vec::new(),
        }
    }

    #[test]
    fn a_clean_store_is_left_unchanged() {
        let agents = [
            (0, USER.as_bytes()),
            (0, CALL.as_bytes()),
            (0, OUTPUT.as_bytes()),
        ];
        for (k, s) in [
            (AGENTS, 0),
            (ADK, 0),
            (AGENTS + 7, 32 | 2),
            (AGENTS, 64),
            (AGENTS, 128),
        ] {
            assert_eq!(
                run(&input([k, s, 0], &agents)),
                Ok(Outcome::Unchanged),
                "{k} {s}"
            );
        }
        let goose = [
            with(r#"[{"type":"text","text":"List the files"}]"#, &["user"]),
            with(GOOSE_CALL, &["assistant"]),
            with(GOOSE_RESULT, &["user"]),
            with(GOOSE_TEXT, &["assistant"]),
        ];
        let rows: Vec<(u8, &[u8])> = goose.iter().map(|r| (0, r.as_slice())).collect();
        assert_eq!(run(&input([GOOSE, 0, 0], &rows)), Ok(Outcome::Unchanged));
        assert_eq!(formats_read(&input([GOOSE, 0, 0], &rows)), ["goose"]);
        let opencode = [
            with(OPENCODE_TEXT, &[OPENCODE_USER]),
            with(OPENCODE_DONE, &[OPENCODE_ASSISTANT]),
        ];
        let rows: Vec<(u8, &[u8])> = opencode.iter().map(|r| (0, r.as_slice())).collect();
        assert_eq!(run(&input([OPENCODE, 0, 0], &rows)), Ok(Outcome::Unchanged));
        assert_eq!(formats_read(&input([OPENCODE, 0, 0], &rows)), ["opencode"]);
        let crush = [
            with(CRUSH_TEXT, &["user"]),
            with(CRUSH_CALL, &["assistant"]),
            with(CRUSH_RESULT, &["tool"]),
        ];
        let rows: Vec<(u8, &[u8])> = crush.iter().map(|r| (0, r.as_slice())).collect();
        assert_eq!(run(&input([CRUSH, 0, 0], &rows)), Ok(Outcome::Unchanged));
        assert_eq!(formats_read(&input([CRUSH, 0, 0], &rows)), ["crush"]);
        // Rows without calls hold a NULL `tool_calls` (cell type 6; `s` 64: the column is
        // untyped, so it may).
        let hermes = [
            with("", &["user", "List the files"]),
            with("", &["assistant", "There are two."]),
        ];
        let rows: Vec<(u8, &[u8])> = hermes.iter().map(|r| (6 << 2, r.as_slice())).collect();
        assert_eq!(run(&input([HERMES, 64, 0], &rows)), Ok(Outcome::Unchanged));
        assert_eq!(formats_read(&input([HERMES, 64, 0], &rows)), ["hermes"]);
    }

    #[test]
    fn a_fixed_store_is_written_and_checked() {
        // An orphaned output in each of two sessions, under every fix option.
        for r in 0..9 {
            let rows = [USER, ORPHAN, CALL, OUTPUT, ORPHAN].map(str::as_bytes);
            let rows: Vec<(u8, &[u8])> = rows
                .into_iter()
                .enumerate()
                .map(|(i, r)| (u8::from(i == 4), r))
                .collect();
            let outcome = run(&input([AGENTS, 0, 3 * r], &rows));
            assert_eq!(outcome, Ok(Outcome::Written), "agents, r = {r}");
        }
        // ADK, with the Agents table beside it, non-ASCII table names and an unrelated table.
        let rows = [
            (0, ADK_CALL.as_bytes()),
            (0, ADK_RESULT.as_bytes()),
            (0, ADK_ORPHAN.as_bytes()),
            (32, USER.as_bytes()),
        ];
        let outcome = run(&input([ADK, 2 | 32, 27 * 3], &rows));
        assert_eq!(outcome, Ok(Outcome::Written), "adk");
    }

    #[test]
    fn stores_with_more_columns_are_written_and_checked() {
        // Goose: a response whose call is gone, beside text in a user message.
        let goose = [
            with(GOOSE_ORPHAN, &["user"]),
            with(GOOSE_CALL, &["assistant"]),
            with(GOOSE_RESULT, &["user"]),
        ];
        let rows: Vec<(u8, &[u8])> = goose.iter().map(|r| (0, r.as_slice())).collect();
        assert_eq!(
            run(&input([GOOSE, 0, 0], &rows)),
            Ok(Outcome::Written),
            "goose"
        );
        // opencode: a call left running in a message a user message follows.
        let opencode = [
            with(OPENCODE_TEXT, &[OPENCODE_USER]),
            with(OPENCODE_RUNNING, &[OPENCODE_ASSISTANT]),
            with(OPENCODE_TEXT, &[OPENCODE_USER]),
        ];
        let rows: Vec<(u8, &[u8])> = opencode.iter().map(|r| (0, r.as_slice())).collect();
        for s in [0, 8, 16, 32] {
            let outcome = run(&input([OPENCODE, s, 27], &rows));
            assert_eq!(outcome, Ok(Outcome::Written), "opencode, s = {s}");
        }
        // Crush, twice over (two tables): a result whose call is gone; its trigger stamps
        // the row written.
        let crush = [
            with(CRUSH_TEXT, &["user"]),
            with(CRUSH_CALL, &["assistant"]),
            with(CRUSH_ORPHAN, &["tool"]),
        ];
        let rows: Vec<(u8, &[u8])> = crush.iter().map(|r| (0, r.as_slice())).collect();
        for (k, s) in [(CRUSH, 0), (CRUSH + 7 * CRUSH, 2), (CRUSH + 7 * HERMES, 2)] {
            let outcome = run(&input([k, s, 54], &rows));
            assert_eq!(outcome, Ok(Outcome::Written), "crush, k = {k}");
        }
    }
}
