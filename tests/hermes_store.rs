//! Hermes Agent's `state.db`, built here with the columns its schema 22 (0.19.0) creates, as
//! the real 0.19.0 left it after a kill and after a resume (checked against databases it wrote
//! here), linted, fixed and found by `doctor` through the real binary.

use crate::common;

use std::path::Path;

use common::toolcheck_in;
use rusqlite::Connection;

/// The tables Hermes reads a session from, with the columns of schema 22.
const SCHEMA: &str = "
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (22);
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT,
    parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
    message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, title TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content TEXT,
    tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, effect_disposition TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT,
    reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
";

/// `(role, content, tool_call_id, tool_calls, tool_name, active)`
type Row<'a> = (
    &'a str,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    i64,
);

const CALL: &str = r#"[{"id": "call_7fQ2", "call_id": "call_7fQ2", "response_item_id": "fc_7fQ2", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"pytest -q\"}"}}]"#;

/// Killed while `pytest` ran, then resumed: the call stays unanswered in the database.
const RESUMED: &[Row] = &[
    ("user", "Run the tests", None, None, None, 1),
    ("assistant", "", None, Some(CALL), None, 1),
    ("user", "Please continue", None, None, None, 1),
    (
        "assistant",
        "The tests were interrupted; run them again?",
        None,
        None,
        None,
        1,
    ),
];

/// A result whose call a rewind made inactive, and the rewound rows themselves.
const ORPHAN: &[Row] = &[
    ("user", "List the files", None, None, None, 1),
    ("assistant", "", None, Some(CALL), None, 0),
    (
        "tool",
        r#"{"output": "a.py\nb.py", "exit_code": 0, "error": null}"#,
        Some("call_7fQ2"),
        None,
        Some("terminal"),
        1,
    ),
    ("assistant", "There are two files.", None, None, None, 1),
];

fn state_db(path: &Path, rows: &[Row]) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(SCHEMA).expect("create the tables");
    conn.execute(
        "INSERT INTO sessions (id, source, model, started_at) VALUES ('20261201_101500_a1b2', 'cli', 'gpt-5.4', 1796100000.0)",
        [],
    )
    .expect("a session");
    for (i, (role, content, call_id, calls, name, active)) in rows.iter().enumerate() {
        conn.execute(
            "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, active) VALUES ('20261201_101500_a1b2', ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            rusqlite::params![role, content, call_id, calls, name, 1796100000.0 + i as f64, active],
        )
        .expect("a message");
    }
}

#[test]
fn a_resumed_session_is_patched_on_resume_not_broken() {
    let dir = tempfile::tempdir().expect("tempdir");
    state_db(&dir.path().join("state.db"), RESUMED);
    let out = common::lint_concise(dir.path(), "state.db");
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn an_orphaned_result_row_is_deleted_and_nothing_else_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("state.db");
    state_db(&db, ORPHAN);
    let lint = common::lint_concise(dir.path(), "state.db");
    assert!(
        lint.stdout.contains("state.db:messages[rowid=3]: TC101"),
        "{}",
        lint.transcript()
    );
    let fixed = toolcheck_in(
        dir.path(),
        &["fix", "--no-config", "--write", "state.db"],
        None,
    );
    assert_eq!(fixed.code, 0, "{}", fixed.transcript());
    let conn = Connection::open(&db).expect("open");
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM messages ORDER BY id")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("rows");
    // The inactive call (a rewind's) is kept as Hermes keeps it; only the stray result goes.
    assert_eq!(ids, [1, 2, 4]);
    let again = toolcheck_in(dir.path(), &["lint", "--no-config", "state.db"], None);
    assert_eq!(again.code, 0, "{}", again.transcript());
}

#[test]
fn doctor_finds_the_home_and_each_profile() {
    let home = tempfile::tempdir().expect("tempdir");
    state_db(&home.path().join(".hermes/state.db"), RESUMED);
    state_db(&home.path().join(".hermes/profiles/work/state.db"), ORPHAN);
    let report = common::doctor_json(home.path(), "hermes");
    let text = report.to_string();
    assert!(text.contains("patched-on-resume"), "{text}");
    assert!(text.contains("profiles/work/state.db"), "{text}");
    assert!(text.contains("[Result unavailable"), "{text}");
}
