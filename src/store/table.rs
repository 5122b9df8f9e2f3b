//! The session tables toolcheck reads: what each library's table looks like (found by its
//! columns, since table names are configurable), how its rows group into sessions and in
//! which order the library reads them back, and which format's adapter reads a session's
//! rows. Adding a store is one adapter that reads records
//! ([`crate::formats::Adapter::normalise_records`]) and one entry in [`KINDS`].

use rusqlite::Connection;

use crate::format::Format;

/// A kind of session table.
pub(super) struct TableKind {
    /// The format whose adapter reads a session's rows, one document each, in order.
    pub format: Format,
    /// The column holding each row's JSON.
    pub json: &'static str,
    /// Columns the table must also have (besides `session_id` and `json`) to be this kind.
    pub requires: &'static [&'static str],
    /// Columns that name a session with `session_id` where the table has them (ADK keys
    /// sessions by app and user too), in order.
    pub session_keys: &'static [&'static str],
    /// The columns the library orders a session's rows by, where the table has them; rowid
    /// order breaks ties (and is the order where none is there).
    pub order: &'static [&'static str],
    /// Columns a table of this kind must not have: a near-miss holding the same columns for
    /// something else (Goose's `thread_messages` copies `messages` per thread).
    pub forbids: &'static [&'static str],
    /// Other columns the adapter needs beside the JSON (Goose keeps a message's `role` in a
    /// column): each row's line is then `{"key": value, ..., "<json>": <the JSON as read>}`,
    /// the JSON column's text spliced in unchanged, so spans, pointers and fixes inside it
    /// work as they do on a bare row, and a fix changes that column only. See [`Wrap`].
    pub wrap: &'static [Wrap],
}

/// A column put beside the JSON in a row's line, under `key` (`null` where the table lacks
/// it); `json` when the column holds JSON text, which is then put in as the value it holds.
pub(super) struct Wrap {
    pub key: &'static str,
    pub column: &'static str,
    pub json: bool,
}

/// Every kind of table toolcheck reads, in the order tables are tried against them.
pub(super) static KINDS: &[TableKind] = &[
    // OpenAI Agents SDK `SQLiteSession`: `agent_messages(id, session_id, message_data)`,
    // one Responses input item per row, read back by `id`.
    TableKind {
        format: Format::OpenAiResponses,
        json: "message_data",
        requires: &[],
        session_keys: &[],
        order: &["id"],
        forbids: &[],
        wrap: &[],
    },
    // Google ADK `SqliteSessionService`: `events(app_name, user_id, session_id, timestamp,
    // event_data)`, one event per row (snake_case), read back by `timestamp`.
    TableKind {
        format: Format::Adk,
        json: "event_data",
        requires: &["timestamp"],
        session_keys: &["app_name", "user_id"],
        order: &["timestamp"],
        forbids: &[],
        wrap: &[],
    },
    // Goose `sessions.db`: `messages(id, message_id, session_id, role, content_json,
    // created_timestamp, timestamp, tokens, metadata_json)`, one message per row, its
    // `content_json` an array of content items and its role a column; read back by
    // `(created_timestamp, id)` (`session_manager.rs`).
    TableKind {
        format: Format::Goose,
        json: "content_json",
        requires: &["role", "created_timestamp"],
        session_keys: &[],
        order: &["created_timestamp", "id"],
        forbids: &["thread_id"],
        wrap: &[
            Wrap {
                key: "role",
                column: "role",
                json: false,
            },
            Wrap {
                key: "metadata",
                column: "metadata_json",
                json: true,
            },
        ],
    },
];

/// A session table: its name, kind, and the SQL that keys and orders its rows.
pub(super) struct Table {
    pub name: String,
    /// An index into [`KINDS`].
    pub kind: usize,
    /// The columns that name a session.
    pub session: Vec<&'static str>,
    /// The order the library reads a session's rows back in.
    pub order: String,
    /// The name that reaches SQLite's rowid in this table: one the table does not declare
    /// as a column of its own (a declared `rowid` column shadows the real one); `None` when
    /// the table has none (`WITHOUT ROWID`, or all three names declared).
    pub rowid: Option<&'static str>,
    /// The kind's wrapped columns the table has (`None`: read as `null`).
    pub wrap: Vec<(&'static Wrap, Option<&'static str>)>,
}

impl Table {
    pub fn kind(&self) -> &'static TableKind {
        kind(self.kind)
    }
}

/// The kind at `index` of [`KINDS`] (indexes come from [`tables`]).
pub(super) fn kind(index: usize) -> &'static TableKind {
    KINDS.get(index).unwrap_or(&KINDS[0])
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

/// The tables toolcheck reads, found by their columns, in name order.
pub(super) fn tables(conn: &Connection) -> rusqlite::Result<Vec<Table>> {
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
        let Some((index, kind)) = KINDS.iter().enumerate().find(|(_, k)| {
            has(k.json) && k.requires.iter().all(|c| has(c)) && !k.forbids.iter().any(|c| has(c))
        }) else {
            continue;
        };
        let rowid = rowid_name(conn, &name, &columns);
        let mut session: Vec<&'static str> = kind
            .session_keys
            .iter()
            .copied()
            .filter(|c| has(c))
            .collect();
        session.push("session_id");
        let mut order: Vec<&str> = kind.order.iter().copied().filter(|c| has(c)).collect();
        order.extend(rowid);
        if order.is_empty() {
            order.push("session_id");
        }
        let wrap = kind
            .wrap
            .iter()
            .map(|w| (w, has(w.column).then_some(w.column)))
            .collect();
        found.push(Table {
            name,
            kind: index,
            session,
            order: order.join(", "),
            rowid,
            wrap,
        });
    }
    Ok(found)
}
