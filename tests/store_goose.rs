//! Goose `sessions.db` read in place: databases built here with the tables Goose creates
//! (`crates/goose/src/session/session_manager.rs`, schema 17), linted and fixed through the
//! real binary.

use crate::common;

use std::path::Path;

use common::toolcheck_in;
use rusqlite::Connection;

/// The tables of a Goose `sessions.db` this reader touches, and the near-miss
/// `thread_messages`, which has the same columns keyed by thread.
const SCHEMA: &str = "
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto',
    thread_id TEXT, archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat');
CREATE TABLE thread_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL REFERENCES threads(id),
    session_id TEXT,
    message_id TEXT,
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    metadata_json TEXT DEFAULT '{}'
);
";

const VISIBLE: &str = r#"{"userVisible":true,"agentVisible":true}"#;
const HIDDEN: &str = r#"{"userVisible":true,"agentVisible":false}"#;

/// A row: role, content_json, metadata_json.
type Msg = (&'static str, &'static str, &'static str);

/// A row to insert, its content built at run time.
type Row = (&'static str, String, &'static str);

const CLEAN: &[Msg] = &[
    (
        "user",
        r#"[{"type":"text","text":"List the files"}]"#,
        VISIBLE,
    ),
    (
        "assistant",
        r#"[{"type":"text","text":"Listing."},{"type":"toolRequest","id":"toolu_01","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]"#,
        VISIBLE,
    ),
    (
        "user",
        r#"[{"type":"toolResponse","id":"toolu_01","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"a.txt"}],"isError":false}}}]"#,
        VISIBLE,
    ),
    (
        "assistant",
        r#"[{"type":"text","text":"One file: a.txt"}]"#,
        VISIBLE,
    ),
];

const SHELL_FAILS: &str = r#"{"status":"success","value":{"content":[{"type":"text","text":"error[E0425]: cannot find value `x`"}],"isError":true}}"#;

/// A session with a result whose call was compacted away, a call Goose could not parse, a
/// call left unanswered when the user spoke again, and the same failing call three times.
fn broken() -> Vec<Row> {
    let build = |id: &str| {
        format!(
            r#"[{{"type":"toolRequest","id":"{id}","toolCall":{{"status":"success","value":{{"name":"developer__shell","arguments":{{"command":"cargo build"}}}}}}}}]"#
        )
    };
    let failed =
        |id: &str| format!(r#"[{{"type":"toolResponse","id":"{id}","toolResult":{SHELL_FAILS}}}]"#);
    vec![
        ("user", r#"[{"type":"text","text":"Fix the build"}]"#.into(), VISIBLE),
        (
            "assistant",
            r#"[{"type":"toolRequest","id":"toolu_old","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]"#.into(),
            HIDDEN,
        ),
        (
            "user",
            r#"[{"type":"toolResponse","id":"toolu_old","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"src"}]}}},{"type":"text","text":"Go on"}]"#.into(),
            VISIBLE,
        ),
        (
            "assistant",
            r#"[{"type":"toolRequest","id":"toolu_02","toolCall":{"status":"error","error":"Could not interpret tool use parameters for id toolu_02: EOF while parsing a string at line 1 column 24"}}]"#.into(),
            VISIBLE,
        ),
        (
            "user",
            r#"[{"type":"toolResponse","id":"toolu_02","toolResult":{"status":"error","error":"Could not interpret tool use parameters"}}]"#.into(),
            VISIBLE,
        ),
        (
            "assistant",
            r#"[{"type":"toolRequest","id":"toolu_03","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"cargo test"}}}}]"#.into(),
            VISIBLE,
        ),
        ("user", r#"[{"type":"text","text":"Stop, build it first"}]"#.into(), VISIBLE),
        ("assistant", build("toolu_04"), VISIBLE),
        ("user", failed("toolu_04"), VISIBLE),
        ("assistant", build("toolu_05"), VISIBLE),
        ("user", failed("toolu_05"), VISIBLE),
        ("assistant", build("toolu_06"), VISIBLE),
        ("user", failed("toolu_06"), VISIBLE),
        ("assistant", r#"[{"type":"text","text":"The build fails."}]"#.into(), VISIBLE),
    ]
}

/// Writes a Goose store with these sessions; rows are inserted in reverse, so only
/// `created_timestamp` puts them in order. A `thread_messages` copy of the broken session
/// must not be read.
fn goose_db(path: &Path, sessions: &[(&str, Vec<Row>)]) {
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(SCHEMA).expect("create the tables");
    conn.execute_batch(
        "INSERT INTO threads (id) VALUES ('th1');
         INSERT INTO thread_messages (thread_id, session_id, message_id, role, content_json, created_timestamp)
           VALUES ('th1', 's', 'm', 'user', '[{\"type\":\"toolResponse\",\"id\":\"nope\",\"toolResult\":{\"status\":\"error\",\"error\":\"x\"}}]', 1);",
    )
    .expect("thread rows");
    for (session, rows) in sessions {
        conn.execute(
            "INSERT INTO sessions (id, name, working_dir, provider_name) VALUES (?1, 'task', '/tmp/p', 'anthropic')",
            [session],
        )
        .expect("insert a session");
        for (i, (role, content, metadata)) in rows.iter().enumerate().rev() {
            conn.execute(
                "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                rusqlite::params![format!("msg_{session}_{i}"), session, role, content, 1_795_000_000 + i as i64, metadata],
            )
            .expect("insert a message");
        }
    }
}

fn owned(rows: &[Msg]) -> Vec<Row> {
    rows.iter()
        .map(|(r, c, m)| (*r, c.to_string(), *m))
        .collect()
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Every message row: id, message_id, session, role, created_timestamp, content.
fn rows(path: &Path) -> Vec<String> {
    common::query_rows(
        path,
        "SELECT id, message_id, session_id, role, created_timestamp, metadata_json, content_json FROM messages ORDER BY id",
    )
}

#[test]
fn clean_sessions_lint_clean() {
    let dir = temp();
    // A compacted session: its first exchange is hidden from the agent (and holds a call
    // with no result there), its summary is for the agent only.
    let mut compacted = owned(&[
        (
            "assistant",
            r#"[{"type":"toolRequest","id":"toolu_h","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{}}}}]"#,
            HIDDEN,
        ),
        (
            "user",
            r#"[{"type":"toolResponse","id":"toolu_x","toolResult":{"status":"error","error":"gone"}}]"#,
            HIDDEN,
        ),
    ]);
    compacted.extend(owned(CLEAN));
    goose_db(
        &dir.path().join("sessions.db"),
        &[("20260101_1", owned(CLEAN)), ("20260101_2", compacted)],
    );
    common::lint_clean_reads(
        dir.path(),
        "sessions.db",
        "checked sessions.db (goose): 2 conversations, 2 calls, 2 results",
    );
}

#[test]
fn broken_session_concise() {
    let dir = temp();
    goose_db(
        &dir.path().join("sessions.db"),
        &[("20260101_1", owned(CLEAN)), ("20260101_2", broken())],
    );
    let out = common::lint_concise(dir.path(), "sessions.db");
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn broken_session_full_output() {
    let dir = temp();
    goose_db(&dir.path().join("sessions.db"), &[("s", broken())]);
    let out = toolcheck_in(dir.path(), &["lint", "sessions.db"], None);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn a_table_with_session_id_and_content_json_alone_is_not_goose() {
    let dir = temp();
    let path = dir.path().join("other.db");
    let conn = Connection::open(&path).expect("create");
    conn.execute_batch(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, session_id TEXT, content_json TEXT);
         INSERT INTO notes (session_id, content_json) VALUES ('s', '[{\"type\":\"toolResponse\",\"id\":\"x\"}]');",
    )
    .expect("fill");
    drop(conn);
    let out = common::lint_concise(dir.path(), "other.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC002"), "{}", out.transcript());
    assert!(!out.stdout.contains("TC101"), "{}", out.transcript());
}

#[test]
fn fix_dry_run_shows_the_json_and_changes_nothing() {
    let dir = temp();
    let path = dir.path().join("sessions.db");
    goose_db(&path, &[("s", broken())]);
    let before = std::fs::read(&path).expect("read");
    let out = toolcheck_in(dir.path(), &["fix", "sessions.db"], None);
    insta::assert_snapshot!(out.transcript());
    assert_eq!(before, std::fs::read(&path).expect("read"));
}

#[test]
fn fix_write_edits_inside_rows_and_keeps_ids_and_order() {
    let dir = temp();
    let path = dir.path().join("sessions.db");
    goose_db(&path, &[("clean", owned(CLEAN)), ("s", broken())]);
    // Ids, sessions, roles or messages, and order columns stay.
    let (changed, lint) = common::fix_write_in_place(dir.path(), "sessions.db", 6, rows);
    insta::assert_snapshot!(changed);
    insta::assert_snapshot!(lint.transcript());
}

#[test]
fn fix_write_refuses_a_locked_database() {
    let dir = temp();
    let path = dir.path().join("sessions.db");
    goose_db(&path, &[("s", broken())]);
    common::fix_write_refused_while_locked(dir.path(), "sessions.db", rows);
}
