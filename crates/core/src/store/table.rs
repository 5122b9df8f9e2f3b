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
    /// The column holding each row's JSON (or what [`Decode`] turns into JSON).
    pub json: &'static str,
    /// The column naming a session.
    pub session: &'static str,
    /// Where only some rows are the live history (LangGraph keeps every checkpoint; the
    /// latest of a thread is the one resumed): an SQL condition on the row `t`, `{table}`
    /// standing for the quoted table name.
    pub only: Option<&'static str>,
    /// Where the column is not JSON text: how to read it. Such rows are read, never written.
    pub decode: Option<Decode>,
    /// Whether a NULL in the JSON column reads as JSON `null` rather than a broken row (Hermes
    /// keeps `tool_calls` only on the rows that have calls).
    pub null_json: bool,
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
    /// A table each row belongs to (opencode keeps a part's role and order on its message):
    /// joined for ordering and for wrapped columns (`Wrap::column` `j.<name>`).
    pub join: Option<Join>,
}

/// A column holding something other than JSON text, and how to turn it into JSON.
pub(super) struct Decode {
    /// The column naming the serialisation (LangGraph's `type`).
    pub kind: &'static str,
    pub decode: fn(Option<&str>, &[u8]) -> Result<String, crate::formats::Undecoded>,
}

/// The table a row belongs to, joined as `j`.
pub(super) struct Join {
    pub table: &'static str,
    /// `j.<key> = <column of the row>`.
    pub key: &'static str,
    pub column: &'static str,
    /// Its columns the library orders rows by, before the row table's own `order`.
    pub order: &'static [&'static str],
}

/// A column put beside the JSON in a row's line, under `key` (`null` where the table lacks
/// it); `json` when the column holds JSON text, which is then put in as the value it holds.
/// `column` is the row's own, or `j.<name>` for one of the joined table's.
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
        session: "session_id",
        only: None,
        decode: None,
        null_json: false,
        format: Format::OpenAiResponses,
        json: "message_data",
        requires: &[],
        session_keys: &[],
        order: &["id"],
        forbids: &[],
        wrap: &[],
        join: None,
    },
    // Google ADK `SqliteSessionService`: `events(app_name, user_id, session_id, timestamp,
    // event_data)`, one event per row (snake_case), read back by `timestamp`.
    TableKind {
        session: "session_id",
        only: None,
        decode: None,
        null_json: false,
        format: Format::Adk,
        json: "event_data",
        requires: &["timestamp"],
        session_keys: &["app_name", "user_id"],
        order: &["timestamp"],
        forbids: &[],
        wrap: &[],
        join: None,
    },
    // Goose `sessions.db`: `messages(id, message_id, session_id, role, content_json,
    // created_timestamp, timestamp, tokens, metadata_json)`, one message per row, its
    // `content_json` an array of content items and its role a column; read back by
    // `(created_timestamp, id)` (`session_manager.rs`).
    TableKind {
        session: "session_id",
        only: None,
        decode: None,
        null_json: false,
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
        join: None,
    },
    // opencode ≥ 1.2 (and Kilo ≥ 7.2.21) `opencode.db`: `part(id, message_id, session_id,
    // time_created, time_updated, data)`, one part per row, its role and errors on its
    // `message(id, session_id, time_created, time_updated, data)`; a session is its
    // messages by `(time_created, id)`, each with its parts by `id`
    // (`session/session.sql.ts`, `session/message-v2.ts`).
    TableKind {
        session: "session_id",
        only: None,
        decode: None,
        null_json: false,
        format: Format::Opencode,
        json: "data",
        requires: &["message_id", "id"],
        session_keys: &[],
        order: &["id"],
        forbids: &[],
        wrap: &[
            Wrap {
                key: "message_id",
                column: "message_id",
                json: false,
            },
            Wrap {
                key: "message",
                column: "j.data",
                json: true,
            },
        ],
        join: Some(Join {
            table: "message",
            key: "id",
            column: "message_id",
            order: &["time_created", "id"],
        }),
    },
    // Charm Crush `.crush/crush.db` (and the Go opencode's `.opencode/opencode.db`):
    // `messages(id, session_id, role, parts, model, created_at, updated_at, finished_at,
    // …)`, one message per row, its `parts` a JSON array and its role a column; read back by
    // `created_at`; a summarised session starts at `sessions.summary_message_id`
    // (`internal/db/migrations/20250424200609_initial.sql`, `internal/db/sql/messages.sql`).
    TableKind {
        session: "session_id",
        only: None,
        decode: None,
        null_json: false,
        format: Format::Crush,
        json: "parts",
        requires: &["role", "created_at", "id"],
        session_keys: &[],
        order: &["created_at"],
        forbids: &[],
        wrap: &[
            Wrap {
                key: "id",
                column: "id",
                json: false,
            },
            Wrap {
                key: "role",
                column: "role",
                json: false,
            },
            Wrap {
                key: "summary_message_id",
                column: "j.summary_message_id",
                json: false,
            },
        ],
        join: Some(Join {
            table: "sessions",
            key: "id",
            column: "session_id",
            order: &[],
        }),
    },
    // LangGraph `SqliteSaver` (`langgraph-checkpoint-sqlite`): `checkpoints(thread_id,
    // checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)`, every
    // checkpoint of every thread; the live history is the latest root checkpoint of each
    // (`get_tuple`: `checkpoint_ns = ''`, `ORDER BY checkpoint_id DESC LIMIT 1`), msgpack or
    // JSON by `type`. See `formats/langgraph_checkpoint.rs`.
    TableKind {
        session: "thread_id",
        only: Some("t.checkpoint_ns = '' AND t.checkpoint_id = (SELECT max(c.checkpoint_id) FROM {table} AS c WHERE c.thread_id = t.thread_id AND c.checkpoint_ns = '')"),
        decode: Some(Decode {
            kind: "type",
            decode: crate::formats::decode_checkpoint,
        }),
        null_json: false,
        format: Format::LanggraphCheckpoint,
        json: "checkpoint",
        requires: &["checkpoint_ns", "checkpoint_id", "type"],
        session_keys: &[],
        order: &["checkpoint_id"],
        forbids: &[],
        wrap: &[],
        join: None,
    },
    // Hermes Agent `~/.hermes/state.db` (`hermes_state.py`, schema 11–22): `messages(id,
    // session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, reasoning…,
    // active, compacted…)`, one message per row in columns, `tool_calls` OpenAI-shaped JSON
    // (NULL on rows without calls), read back by `id` (`get_messages_as_conversation`); since
    // 0.16.0 only `active = 1` rows are the history (compaction and rewinds clear it).
    TableKind {
        session: "session_id",
        only: Some("t.active = 1"),
        decode: None,
        null_json: true,
        format: Format::Hermes,
        json: "tool_calls",
        requires: &["role", "content", "tool_call_id", "tool_name", "timestamp", "id", "active"],
        session_keys: &[],
        order: &["id"],
        forbids: &[],
        wrap: HERMES_WRAP,
        join: None,
    },
    // Hermes before 0.16.0: no `active` column, every row is the history.
    TableKind {
        session: "session_id",
        only: None,
        decode: None,
        null_json: true,
        format: Format::Hermes,
        json: "tool_calls",
        requires: &["role", "content", "tool_call_id", "tool_name", "timestamp", "id"],
        session_keys: &[],
        order: &["id"],
        forbids: &[],
        wrap: HERMES_WRAP,
        join: None,
    },
];

/// The columns of a Hermes message row beside its `tool_calls`.
const HERMES_WRAP: &[Wrap] = &[
    Wrap {
        key: "role",
        column: "role",
        json: false,
    },
    Wrap {
        key: "content",
        column: "content",
        json: false,
    },
    Wrap {
        key: "tool_call_id",
        column: "tool_call_id",
        json: false,
    },
    Wrap {
        key: "tool_name",
        column: "tool_name",
        json: false,
    },
    Wrap {
        key: "reasoning_content",
        column: "reasoning_content",
        json: false,
    },
    Wrap {
        key: "reasoning",
        column: "reasoning",
        json: false,
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
    /// The kind's wrapped columns the table has, as SQL (`None`: read as `null`).
    pub wrap: Vec<(&'static Wrap, Option<String>)>,
    /// The `LEFT JOIN` of the kind's joined table, if any.
    pub join: String,
    /// The `WHERE` clause of the rows read (`TableKind::only`), if any.
    pub only: String,
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

/// The columns of `table` (none when there is no such table).
fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    conn.prepare("SELECT name FROM pragma_table_info(?1)")?
        .query_map([table], |r| r.get(0))?
        .collect()
}

/// The kind of a table whose columns are `has`, and its joined table's columns.
fn kind_of(
    conn: &Connection,
    has: &dyn Fn(&str) -> bool,
) -> rusqlite::Result<Option<(usize, Vec<String>)>> {
    for (index, k) in KINDS.iter().enumerate() {
        let fits = has(k.session)
            && has(k.json)
            && k.decode.as_ref().is_none_or(|d| has(d.kind))
            && k.requires.iter().all(|c| has(c))
            && !k.forbids.iter().any(|c| has(c));
        if !fits {
            continue;
        }
        let Some(j) = &k.join else {
            return Ok(Some((index, Vec::new())));
        };
        let joined = columns(conn, j.table)?;
        let ok = has(j.column)
            && std::iter::once(&j.key)
                .chain(j.order)
                .all(|c| joined.iter().any(|x| x == c));
        if ok {
            return Ok(Some((index, joined)));
        }
    }
    Ok(None)
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
        let columns = columns(conn, &name)?;
        let has = |c: &str| columns.iter().any(|x| x == c);
        let Some((index, joined)) = kind_of(conn, &has)? else {
            continue;
        };
        let kind = kind(index);
        let rowid = rowid_name(conn, &name, &columns);
        let mut session: Vec<&'static str> = kind
            .session_keys
            .iter()
            .copied()
            .filter(|c| has(c))
            .collect();
        session.push(kind.session);
        // All SQL names the row's table `t` and the joined one `j`.
        let mut order: Vec<String> = kind
            .join
            .iter()
            .flat_map(|j| j.order.iter().map(|c| format!("j.{c}")))
            .chain(
                kind.order
                    .iter()
                    .filter(|c| has(c))
                    .map(|c| format!("t.{c}")),
            )
            .chain(rowid.map(|r| format!("t.{r}")))
            .collect();
        if order.is_empty() {
            order.push(format!("t.{}", kind.session));
        }
        let wrap = kind
            .wrap
            .iter()
            .map(|w| {
                let sql = match w.column.strip_prefix("j.") {
                    Some(c) => joined.iter().any(|x| x == c).then(|| format!("j.{c}")),
                    None => has(w.column).then(|| format!("t.{}", w.column)),
                };
                (w, sql)
            })
            .collect();
        let join = kind.join.as_ref().map_or(String::new(), |j| {
            format!(
                " LEFT JOIN \"{}\" AS j ON j.{} = t.{}",
                j.table, j.key, j.column
            )
        });
        let only = kind.only.map_or(String::new(), |o| {
            let quoted = format!("\"{}\"", name.replace('"', "\"\""));
            format!(" WHERE {}", o.replace("{table}", &quoted))
        });
        found.push(Table {
            only,
            name,
            kind: index,
            session,
            order: order.join(", "),
            rowid,
            wrap,
            join,
        });
    }
    Ok(found)
}
