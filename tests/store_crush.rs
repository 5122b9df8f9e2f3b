//! Charm Crush `.crush/crush.db` read in place: databases built here with the tables Crush
//! creates (`charmbracelet/crush` `internal/db/migrations/20250424200609_initial.sql` and
//! later columns), linted and fixed through the real binary.

use crate::common;

use std::path::Path;

use common::toolcheck_in;
use rusqlite::Connection;

/// Crush's `sessions`, `files` and `messages` (with the update triggers it declares).
const SCHEMA: &str = "
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0.0, updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL,
    summary_message_id TEXT
);
CREATE TABLE files (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
    parts BLOB NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT,
    is_summary_message INTEGER DEFAULT 0 NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE TRIGGER update_messages_updated_at AFTER UPDATE ON messages
BEGIN UPDATE messages SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages
BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
";

/// A message: role and parts.
type Msg = (&'static str, String);

fn text(role: &'static str, text: &str) -> Msg {
    (
        role,
        format!(r#"[{{"type":"text","data":{{"text":"{text}"}}}}]"#),
    )
}

fn call(id: &str, input: &str) -> String {
    format!(
        r#"{{"type":"tool_call","data":{{"id":"{id}","name":"bash","input":{},"provider_executed":false,"finished":true}}}}"#,
        serde_json::Value::from(input)
    )
}

fn result(id: &str, content: &str, is_error: bool) -> String {
    format!(
        r#"{{"type":"tool_result","data":{{"tool_call_id":"{id}","name":"bash","content":"{content}","data":"","mime_type":"","metadata":"","is_error":{is_error}}}}}"#
    )
}

fn clean() -> Vec<Msg> {
    vec![
        text("user", "List the files"),
        (
            "assistant",
            format!(
                r#"[{},{{"type":"finish","data":{{"reason":"tool_use","time":1795000001}}}}]"#,
                call("call_1", r#"{"command":"ls"}"#)
            ),
        ),
        ("tool", format!("[{}]", result("call_1", "main.go", false))),
        text("assistant", "One file: main.go"),
    ]
}

/// A call left unanswered beside an answered one, a cut-off call, an orphaned result, and
/// the same failing build three times.
fn broken() -> Vec<Msg> {
    let mut rows = vec![
        text("user", "Fix the build"),
        (
            "assistant",
            format!(
                "[{},{}]",
                call("call_1", r#"{"command":"ls"}"#),
                call("call_2", r#"{"command":"cat main.go"#)
            ),
        ),
        (
            "tool",
            format!(
                "[{},{}]",
                result("call_1", "main.go", false),
                result("call_gone", "stale", false)
            ),
        ),
        text("user", "Go on"),
    ];
    for id in ["call_3", "call_4", "call_5"] {
        rows.push((
            "assistant",
            format!("[{}]", call(id, r#"{"command":"go build"}"#)),
        ));
        rows.push((
            "tool",
            format!(
                "[{}]",
                result(id, "main.go:3: undefined: x (exit status 1)", true)
            ),
        ));
    }
    rows.push(text("assistant", "The build fails."));
    rows
}

/// Writes a Crush database with these sessions, newest rows first; `created_at` grows by
/// a second per message. `summary` names a message index a session's summary points at.
fn crush_db(path: &Path, sessions: &[(&str, Vec<Msg>, Option<usize>)]) {
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(SCHEMA).expect("create the tables");
    for (session, rows, summary) in sessions {
        let summary = summary.map(|i| format!("{session}-m{i}"));
        conn.execute(
            "INSERT INTO sessions (id, title, updated_at, created_at, summary_message_id) VALUES (?1, 't', 1, 1, ?2)",
            rusqlite::params![session, summary],
        )
        .expect("insert a session");
        for (i, (role, parts)) in rows.iter().enumerate().rev() {
            conn.execute(
                "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at, provider) VALUES (?1, ?2, ?3, ?4, 'claude-sonnet-4-5', ?5, ?5, 'anthropic')",
                rusqlite::params![format!("{session}-m{i}"), session, role, parts, 1_795_000_000 + i as i64],
            )
            .expect("insert a message");
        }
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Every message row: rowid, id, session, role, created_at, then its parts.
fn rows(path: &Path) -> Vec<String> {
    common::query_rows(
        path,
        "SELECT rowid, id, session_id, role, created_at, model, CAST(parts AS TEXT) FROM messages ORDER BY rowid",
    )
}

#[test]
fn clean_and_summarised_sessions_lint_clean() {
    let dir = temp();
    // The summarised session's unanswered call is before its summary: not sent.
    let mut summarised = broken();
    summarised.truncate(2);
    summarised.push(text("assistant", "Summary of the work so far"));
    crush_db(
        &dir.path().join("crush.db"),
        &[("s1", clean(), None), ("s2", summarised, Some(2))],
    );
    common::lint_clean_reads(
        dir.path(),
        "crush.db",
        "checked crush.db (crush): 2 conversations, 1 call, 1 result",
    );
}

#[test]
fn broken_session_concise() {
    let dir = temp();
    crush_db(
        &dir.path().join("crush.db"),
        &[("s1", clean(), None), ("s2", broken(), None)],
    );
    let out = common::lint_concise(dir.path(), "crush.db");
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn a_messages_table_without_parts_is_not_crush() {
    let dir = temp();
    let path = dir.path().join("other.db");
    let conn = Connection::open(&path).expect("create");
    conn.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY);
         CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, created_at INTEGER);
         INSERT INTO messages VALUES ('m', 's', 'tool', '[{\"type\":\"tool_result\",\"data\":{\"tool_call_id\":\"x\"}}]', 1);",
    )
    .expect("fill");
    drop(conn);
    let out = common::lint_concise(dir.path(), "other.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC002"), "{}", out.transcript());
}

#[test]
fn fix_write_edits_inside_rows() {
    let dir = temp();
    let path = dir.path().join("crush.db");
    crush_db(&path, &[("s1", clean(), None), ("s2", broken(), None)]);
    // Rowids, ids, sessions, roles, order and model stay (`updated_at` is Crush's trigger's).
    let (changed, lint) = common::fix_write_in_place(dir.path(), "crush.db", 6, rows);
    insta::assert_snapshot!(changed);
    insta::assert_snapshot!(lint.transcript());
}

#[test]
fn fix_write_refuses_a_locked_database() {
    let dir = temp();
    let path = dir.path().join("crush.db");
    crush_db(&path, &[("s2", broken(), None)]);
    common::fix_write_refused_while_locked(dir.path(), "crush.db", rows);
}

#[test]
fn a_message_left_empty_by_a_fix_is_deleted() {
    let dir = temp();
    let path = dir.path().join("crush.db");
    let mut session = clean();
    session.insert(
        3,
        ("tool", format!("[{}]", result("call_gone", "stale", false))),
    );
    crush_db(&path, &[("s1", session, None)]);
    let before = rows(&path);
    let out = toolcheck_in(dir.path(), &["fix", "--write", "crush.db"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let after = rows(&path);
    let gone: Vec<&String> = before.iter().filter(|r| !after.contains(r)).collect();
    assert_eq!(gone.len(), 1, "{after:?}");
    assert!(gone[0].contains("call_gone"), "{gone:?}");
    assert_eq!(before.len(), after.len() + 1);
    assert_eq!(common::lint_concise(dir.path(), "crush.db").code, 0);
}

/// `doctor` finds each project's `crush.db` through Crush's `projects.json` (v0.25.0+),
/// wherever the project is, a relative `data_dir` (before v0.68.0) resolved against its path.
#[test]
fn doctor_finds_project_databases_through_crushs_index() {
    let home = temp();
    let api = home.path().join("code/api");
    let web = home.path().join("code/web");
    for project in [&api, &web] {
        std::fs::create_dir_all(project.join(".crush")).expect("mkdir");
    }
    crush_db(&api.join(".crush/crush.db"), &[("s1", broken(), None)]);
    crush_db(&web.join(".crush/crush.db"), &[("s1", clean(), None)]);
    let index = home.path().join(".local/share/crush");
    std::fs::create_dir_all(&index).expect("mkdir");
    let projects = serde_json::json!({"projects": [
        {"path": api, "data_dir": api.join(".crush"), "last_accessed": "2026-11-30T09:00:00Z"},
        {"path": web, "data_dir": ".crush", "last_accessed": "2026-11-29T09:00:00Z"},
    ]});
    std::fs::write(index.join("projects.json"), projects.to_string()).expect("written");
    let report = common::doctor_json(home.path(), "crush");
    let text = report.to_string();
    assert!(text.contains("code/api/.crush/crush.db"), "{text}");
    assert!(text.contains("code/web/.crush/crush.db"), "{text}");
    assert!(text.contains("will-not-resume"), "{text}");
}
