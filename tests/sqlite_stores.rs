//! SQLite session stores read in place: real databases built here with the schemas the
//! libraries write (frameworks.md §6), linted through the real binary.

use crate::common;

use std::path::Path;

use common::{checked_files, toolcheck_in};
use rusqlite::Connection;

/// `SQLiteSession` of openai-agents 0.24, as it creates its tables.
const AGENTS_SCHEMA: &str = "
CREATE TABLE agent_sessions (
    session_id TEXT PRIMARY KEY,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE agent_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    message_data TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE
);
CREATE INDEX idx_agent_messages_session_id ON agent_messages (session_id, created_at);
";

const CLEAN: &[&str] = &[
    r#"{"content": "Weather in Paris?", "role": "user"}"#,
    r#"{"arguments": "{\"city\":\"Paris\"}", "call_id": "call_1", "name": "get_weather", "type": "function_call", "id": "fc_1", "status": "completed"}"#,
    r#"{"call_id": "call_1", "output": "Sunny, 21C", "type": "function_call_output"}"#,
    r#"{"id": "msg_1", "content": [{"annotations": [], "text": "It is sunny.", "type": "output_text", "logprobs": []}], "role": "assistant", "status": "completed", "type": "message"}"#,
];

/// A session with an orphaned output, truncated arguments, and a call left unanswered when
/// the user spoke again.
const BROKEN: &[&str] = &[
    r#"{"content": "Weather in Paris?", "role": "user"}"#,
    r#"{"call_id": "call_gone", "output": "Sunny, 21C", "type": "function_call_output"}"#,
    r#"{"arguments": "{\"city\":\"Par", "call_id": "call_2", "name": "get_weather", "type": "function_call", "id": "fc_2", "status": "completed"}"#,
    r#"{"call_id": "call_2", "output": "An error occurred while running the tool. Please try again.", "type": "function_call_output"}"#,
    r#"{"arguments": "{\"city\":\"Rome\"}", "call_id": "call_3", "name": "get_weather", "type": "function_call", "id": "fc_3", "status": "completed"}"#,
    r#"{"content": "And Rome?", "role": "user"}"#,
];

/// Writes an OpenAI Agents SDK store with these sessions, items in order.
fn agents_db(path: &Path, sessions: &[(&str, &[&str])]) {
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(AGENTS_SCHEMA)
        .expect("create the tables");
    for (session, items) in sessions {
        conn.execute(
            "INSERT INTO agent_sessions (session_id) VALUES (?1)",
            [session],
        )
        .expect("insert a session");
        for item in *items {
            conn.execute(
                "INSERT INTO agent_messages (session_id, message_data) VALUES (?1, ?2)",
                [session, item],
            )
            .expect("insert an item");
        }
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

#[test]
fn clean_sessions_lint_clean() {
    let dir = temp();
    agents_db(
        &dir.path().join("session.db"),
        &[("user_1", CLEAN), ("user_2", CLEAN)],
    );
    let out = toolcheck_in(dir.path(), &["lint", "-v", "session.db"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    // One conversation per session.
    assert!(
        out.stderr
            .contains("checked session.db (openai-responses): 2 conversations, 2 calls, 2 results"),
        "{}",
        out.transcript()
    );
}

#[test]
fn broken_session_concise() {
    let dir = temp();
    agents_db(
        &dir.path().join("session.db"),
        &[("clean", CLEAN), ("broken", BROKEN)],
    );
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "session.db"],
        None,
    );
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn broken_session_json_names_the_row() {
    let dir = temp();
    agents_db(&dir.path().join("session.db"), &[("broken", BROKEN)]);
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "json", "session.db"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn broken_session_sarif_names_the_row() {
    let dir = temp();
    agents_db(&dir.path().join("session.db"), &[("broken", BROKEN)]);
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "sarif", "session.db"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    let sarif: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF is JSON");
    let locations: Vec<String> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let loc = &r["locations"][0];
            format!(
                "{} {} {}",
                r["ruleId"].as_str().unwrap_or_default(),
                loc["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or_default(),
                loc["logicalLocations"][0]["fullyQualifiedName"]
                    .as_str()
                    .unwrap_or_default()
            )
        })
        .collect();
    insta::assert_snapshot!(locations.join("\n"));
}

#[test]
fn walks_pick_databases_by_their_header() {
    let dir = temp();
    agents_db(&dir.path().join("a.db"), &[("s", CLEAN)]);
    agents_db(&dir.path().join("b.sqlite3"), &[("s", CLEAN)]);
    std::fs::write(dir.path().join("notes.db"), "not a database").expect("write");
    std::fs::write(dir.path().join("c.sqlite"), "SQLite format 2").expect("write");
    let checked = checked_files(dir.path(), &["."]);
    assert_eq!(checked, ["a.db", "b.sqlite3"]);
}

#[test]
fn a_database_with_no_session_table_is_skipped_in_walks() {
    let dir = temp();
    let conn = Connection::open(dir.path().join("other.db")).expect("create");
    conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .expect("fill");
    drop(conn);
    let out = toolcheck_in(dir.path(), &["lint", "-v", "."], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr.contains("skipped other.db"),
        "{}",
        out.transcript()
    );
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "other.db"],
        None,
    );
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn lint_reads_a_database_another_process_is_writing() {
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    let before = std::fs::read(&path).expect("read");
    // A writer holds the reserved lock: reading must not need it.
    let writer = Connection::open(&path).expect("open");
    writer.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "session.db"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out
        .stdout
        .contains("session.db:agent_messages[rowid=2]: TC101"));
    writer.execute_batch("ROLLBACK").expect("unlock");
    drop(writer);
    assert_eq!(before, std::fs::read(&path).expect("read"));
}

/// Every `message_data` of the store, in id order.
fn items(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).expect("open");
    let mut stmt = conn
        .prepare("SELECT id, message_data FROM agent_messages ORDER BY id")
        .expect("query");
    stmt.query_map([], |r| {
        Ok(format!(
            "{} {}",
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?
        ))
    })
    .expect("rows")
    .collect::<Result<_, _>>()
    .expect("rows")
}

#[test]
fn fix_dry_run_shows_the_json_and_changes_nothing() {
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    let before = std::fs::read(&path).expect("read");
    let out = toolcheck_in(dir.path(), &["fix", "--unsafe-fixes", "session.db"], None);
    insta::assert_snapshot!(out.transcript());
    assert_eq!(before, std::fs::read(&path).expect("read"));
}

#[test]
fn fix_write_edits_rows_in_one_transaction_and_converges() {
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("clean", CLEAN), ("broken", BROKEN)]);
    let out = toolcheck_in(
        dir.path(),
        &["fix", "--write", "--unsafe-fixes", "session.db"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(items(&path).join("\n"));
    // What is left cannot be fixed in a store (a new row cannot go between others); a
    // second run changes nothing.
    let after = std::fs::read(&path).expect("read");
    let again = toolcheck_in(
        dir.path(),
        &["fix", "--write", "--unsafe-fixes", "session.db"],
        None,
    );
    assert_eq!(again.code, 1, "{}", again.transcript());
    assert!(
        again.stderr.contains("Nothing to fix"),
        "{}",
        again.transcript()
    );
    assert_eq!(after, std::fs::read(&path).expect("read"));
    let lint = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "session.db"],
        None,
    );
    insta::assert_snapshot!(lint.transcript());
}

#[test]
fn fix_write_refuses_a_locked_database() {
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    let rows = items(&path);
    let writer = Connection::open(&path).expect("open");
    writer.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("locked"), "{}", out.transcript());
    writer.execute_batch("ROLLBACK").expect("unlock");
    drop(writer);
    assert_eq!(rows, items(&path));
}

/// `SqliteSessionService` of google-adk 2.13: the tables of `<agent>/.adk/session.db`.
const ADK_SCHEMA: &str = "
CREATE TABLE sessions (app_name TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL,
    state TEXT NOT NULL, create_time REAL NOT NULL, update_time REAL NOT NULL,
    PRIMARY KEY (app_name, user_id, id));
CREATE TABLE events (id TEXT NOT NULL, app_name TEXT NOT NULL, user_id TEXT NOT NULL,
    session_id TEXT NOT NULL, invocation_id TEXT NOT NULL, timestamp REAL NOT NULL,
    event_data TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, id),
    FOREIGN KEY (app_name, user_id, session_id) REFERENCES sessions (app_name, user_id, id)
        ON DELETE CASCADE);
CREATE TABLE app_states (app_name TEXT PRIMARY KEY, state TEXT NOT NULL, update_time REAL NOT NULL);
CREATE TABLE user_states (app_name TEXT NOT NULL, user_id TEXT NOT NULL, state TEXT NOT NULL,
    update_time REAL NOT NULL, PRIMARY KEY (app_name, user_id));
";

const ADK_USER: &str = r#"{"content":{"parts":[{"text":"Weather in Paris?"}],"role":"user"},"invocation_id":"e-1","author":"user","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"id":"ev-1","timestamp":1795253815.91821}"#;
const ADK_CALL: &str = r#"{"content":{"parts":[{"function_call":{"id":"adk-1","args":{"city":"Paris"},"name":"get_weather"}}],"role":"model"},"invocation_id":"e-1","author":"weather_agent","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"long_running_tool_ids":[],"id":"ev-2","timestamp":1795253815.9187584}"#;
const ADK_RESULT: &str = r#"{"content":{"parts":[{"function_response":{"id":"adk-1","name":"get_weather","response":{"result":"Sunny, 21C"}}}],"role":"user"},"invocation_id":"e-1","author":"weather_agent","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"id":"ev-3","timestamp":1795253815.919473}"#;
const ADK_ORPHAN: &str = r#"{"content":{"parts":[{"function_response":{"id":"adk-gone","name":"get_weather","response":{"result":"Sunny"}}}],"role":"user"},"invocation_id":"e-2","author":"weather_agent","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"id":"ev-9","timestamp":1795253816.5}"#;
const ADK_ANSWER: &str = r#"{"content":{"parts":[{"text":"It is sunny and 21C in Paris."}],"role":"model"},"invocation_id":"e-1","author":"weather_agent","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"id":"ev-4","timestamp":1795253815.919512}"#;

const ADK_FOLLOWUP: &str = r#"{"content":{"parts":[{"text":"And Rome?"}],"role":"user"},"invocation_id":"e-3","author":"user","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"id":"ev-5","timestamp":1795253817.0}"#;

/// Writes an ADK store; events are inserted out of timestamp order, as rows may be.
fn adk_db(path: &Path, sessions: &[(&str, &[&str])]) {
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(ADK_SCHEMA).expect("create the tables");
    for (session, events) in sessions {
        conn.execute(
            "INSERT INTO sessions VALUES ('weather_agent', 'user', ?1, '{}', 0, 0)",
            [session],
        )
        .expect("insert a session");
        for event in events.iter().rev() {
            let value: serde_json::Value = serde_json::from_str(event).expect("event JSON");
            conn.execute(
                "INSERT INTO events VALUES (?1, 'weather_agent', 'user', ?2, ?3, ?4, ?5)",
                rusqlite::params![
                    value["id"].as_str(),
                    session,
                    value["invocation_id"].as_str(),
                    value["timestamp"].as_f64(),
                    event
                ],
            )
            .expect("insert an event");
        }
    }
}

#[test]
fn adk_events_concise() {
    let dir = temp();
    let adk = dir.path().join("adk");
    std::fs::create_dir(&adk).expect("dir");
    adk_db(
        &adk.join("session.db"),
        &[
            ("s1", &[ADK_USER, ADK_CALL, ADK_RESULT, ADK_ANSWER]),
            ("s2", &[ADK_USER, ADK_ORPHAN]),
        ],
    );
    let out = toolcheck_in(
        &adk,
        &["lint", "--output-format", "concise", "session.db"],
        None,
    );
    insta::assert_snapshot!(out.transcript());
}

/// Every `event_data` of an ADK store, in timestamp order.
fn events(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).expect("open");
    let mut stmt = conn
        .prepare("SELECT session_id, rowid, event_data FROM events ORDER BY session_id, timestamp")
        .expect("query");
    stmt.query_map([], |r| {
        Ok(format!(
            "{} {} {}",
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?
        ))
    })
    .expect("rows")
    .collect::<Result<_, _>>()
    .expect("rows")
}

#[test]
fn adk_sessions_are_one_conversation_each() {
    let dir = temp();
    adk_db(
        &dir.path().join("session.db"),
        &[
            ("s1", &[ADK_USER, ADK_CALL, ADK_RESULT, ADK_ANSWER]),
            ("s2", &[ADK_USER, ADK_CALL, ADK_RESULT]),
        ],
    );
    let out = toolcheck_in(dir.path(), &["lint", "-v", "session.db"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr
            .contains("checked session.db (adk): 2 conversations, 2 calls, 2 results"),
        "{}",
        out.transcript()
    );
}

#[test]
fn adk_fix_write_then_nothing_left() {
    let dir = temp();
    let path = dir.path().join("session.db");
    adk_db(
        &path,
        &[
            ("s1", &[ADK_USER, ADK_CALL, ADK_RESULT, ADK_ANSWER]),
            ("s2", &[ADK_USER, ADK_ORPHAN, ADK_CALL, ADK_FOLLOWUP]),
        ],
    );
    let dry = toolcheck_in(dir.path(), &["fix", "session.db"], None);
    insta::assert_snapshot!(dry.transcript());
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    insta::assert_snapshot!(events(&path).join("\n"));
    let after = std::fs::read(&path).expect("read");
    let again = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    assert!(
        again.stderr.contains("Nothing to fix"),
        "{}\n{}",
        out.transcript(),
        again.transcript()
    );
    assert_eq!(after, std::fs::read(&path).expect("read"));
    let lint = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "session.db"],
        None,
    );
    insta::assert_snapshot!(lint.transcript());
}

// ---- Hostile stores (issue 21): no lost row, nothing written by lint, exact writes ----

/// `toolcheck lint --output-format concise NAME` in `dir`.
fn lint_concise(dir: &Path, name: &str) -> common::Output {
    toolcheck_in(dir, &["lint", "--output-format", "concise", name], None)
}

/// The files in `dir`, with their bytes: what a read-only run must leave as it found.
fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| {
            let path = e.expect("entry").path();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

/// Every row of `table`: its real rowid and all its columns, as text.
fn table_rows(path: &Path, table: &str) -> Vec<String> {
    let conn = Connection::open(path).expect("open");
    let mut stmt = conn
        .prepare(&format!("SELECT * FROM {table}"))
        .expect("query");
    let columns = stmt.column_count();
    stmt.query_map([], |r| {
        (0..columns)
            .map(|i| {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                    other => format!("{other:?}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|cells| cells.join(" | "))
    })
    .expect("rows")
    .collect::<Result<_, _>>()
    .expect("rows")
}

#[test]
fn a_declared_rowid_column_does_not_take_the_place_of_sqlites() {
    // Defect 1: every row declares `rowid = 1`; `WHERE rowid = ?` must not reach them all.
    let dir = temp();
    let path = dir.path().join("session.db");
    let conn = Connection::open(&path).expect("create");
    conn.execute_batch(
        "CREATE TABLE agent_messages (session_id TEXT, message_data TEXT, rowid INTEGER, oid TEXT);",
    )
    .expect("create");
    for (session, items) in [("a", BROKEN), ("b", CLEAN)] {
        for item in items {
            conn.execute(
                "INSERT INTO agent_messages VALUES (?1, ?2, 1, 'x')",
                [session, item],
            )
            .expect("insert");
        }
    }
    drop(conn);
    let before = table_rows(&path, "agent_messages");
    let lint = lint_concise(dir.path(), "session.db");
    assert_eq!(lint.code, 1, "{}", lint.transcript());
    // Rows are named by the real rowid (`_rowid_` here), one per row.
    assert!(
        lint.stdout
            .contains("session.db:agent_messages[rowid=2]: TC101"),
        "{}",
        lint.transcript()
    );
    let out = toolcheck_in(
        dir.path(),
        &["fix", "--write", "--unsafe-fixes", "session.db"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    let after = table_rows(&path, "agent_messages");
    // Exactly the orphaned output (row 2) is gone and the truncated arguments (row 3) were
    // rewritten; every other row is as it was.
    assert_eq!(after.len(), before.len() - 1, "{after:#?}");
    let kept: Vec<&String> = before
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 1 && *i != 2)
        .map(|(_, r)| r)
        .collect();
    for row in kept {
        assert!(after.contains(row), "lost or changed: {row}\n{after:#?}");
    }
    assert!(after
        .iter()
        .any(|r| r.contains("call_2") && r.contains("function_call") && !r.contains("Par\"")));
}

#[test]
fn a_table_without_a_rowid_is_read_and_never_written() {
    // Defect 13: a WITHOUT ROWID table made the whole database unreadable (exit 2).
    let dir = temp();
    let path = dir.path().join("session.db");
    let conn = Connection::open(&path).expect("create");
    conn.execute_batch(
        "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT) WITHOUT ROWID;",
    )
    .expect("create");
    for (i, item) in BROKEN.iter().enumerate() {
        conn.execute(
            "INSERT INTO agent_messages VALUES (?1, 's', ?2)",
            rusqlite::params![i as i64 + 10, item],
        )
        .expect("insert");
    }
    drop(conn);
    let out = lint_concise(dir.path(), "session.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout
            .contains("session.db:agent_messages[row 2]: TC101"),
        "{}",
        out.transcript()
    );
    let before = std::fs::read(&path).expect("read");
    let fix = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    assert_eq!(fix.code, 1, "{}", fix.transcript());
    assert_eq!(
        before,
        std::fs::read(&path).expect("read"),
        "{}",
        fix.transcript()
    );
}

#[test]
fn rows_that_hold_no_message_are_reported() {
    // Defect 13: '' , null, [] and a bare number passed with no finding.
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("s", CLEAN)]);
    let conn = Connection::open(&path).expect("open");
    for bad in ["", "null", "[]", "5", "  "] {
        conn.execute(
            "INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?1)",
            [bad],
        )
        .expect("insert");
    }
    drop(conn);
    let out = lint_concise(dir.path(), "session.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    for rowid in 5..=9 {
        assert!(
            out.stdout
                .contains(&format!("session.db:agent_messages[rowid={rowid}]: TC001")),
            "rowid {rowid}:\n{}",
            out.transcript()
        );
    }
}

/// An ADK event pretty-printed over several lines, as a hand-written or migrated row may be.
const ADK_PRETTY_TWO_PARTS: &str = "{\"content\": {\"parts\": [\n    {\"text\": \"Checking.\"},\n    {\"function_response\": {\"id\": \"adk-gone\", \"name\": \"get_weather\", \"response\": {\"result\": \"Sunny\"}}}\n  ],\r\n  \"role\": \"user\"},\n \"invocation_id\": \"e-2\", \"author\": \"weather_agent\", \"id\": \"ev-9\", \"timestamp\": 1795253816.5}";

#[test]
fn raw_line_breaks_in_rows_are_kept_by_lint_and_fix() {
    // Defect 4: raw line breaks were read as spaces, and written back as spaces.
    let dir = temp();
    let path = dir.path().join("session.db");
    adk_db(&path, &[("s1", &[ADK_USER, ADK_PRETTY_TWO_PARTS])]);
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let rows = events(&path);
    let fixed = rows
        .iter()
        .find(|r| r.contains("ev-9"))
        .expect("the event is kept");
    // Only the orphaned part (and the separator before it) is gone: every line break and
    // carriage return outside it is where it was.
    let expected = ADK_PRETTY_TWO_PARTS.replace(
        ",\n    {\"function_response\": {\"id\": \"adk-gone\", \"name\": \"get_weather\", \"response\": {\"result\": \"Sunny\"}}}",
        "",
    );
    assert_ne!(expected, ADK_PRETTY_TWO_PARTS);
    assert!(
        fixed.ends_with(&expected),
        "{fixed:?}\nexpected {expected:?}"
    );

    // A raw line break inside a string is invalid JSON (Python's json.loads refuses it).
    let broken = r#"{"content": "two
lines", "role": "user"}"#;
    let path = dir.path().join("strings.db");
    agents_db(&path, &[("s", &[broken])]);
    let out = lint_concise(dir.path(), "strings.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout
            .contains("strings.db:agent_messages[rowid=1]: TC001"),
        "{}",
        out.transcript()
    );
}

#[test]
fn lint_of_a_wal_database_creates_nothing_beside_it() {
    // Defect 5: a read-only WAL connection left `-wal` and `-shm` files behind.
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    let conn = Connection::open(&path).expect("open");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    drop(conn);
    let before = files_in(dir.path());
    assert_eq!(before.len(), 1, "a closed WAL database leaves no log");
    let out = lint_concise(dir.path(), "session.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC101"), "{}", out.transcript());
    assert_eq!(before, files_in(dir.path()));

    // A writer still open: its commits live in the log, which is read, and left as it is.
    let writer = Connection::open(&path).expect("open");
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    writer
        .execute(
            "INSERT INTO agent_messages (session_id, message_data) VALUES ('broken', ?1)",
            [r#"{"call_id": "call_late", "output": "x", "type": "function_call_output"}"#],
        )
        .expect("insert");
    let before = files_in(dir.path());
    assert!(before.iter().any(|(n, _)| n.ends_with("-wal")));
    let out = lint_concise(dir.path(), "session.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("call_late"),
        "the log's rows are read:\n{}",
        out.transcript()
    );
    assert_eq!(before, files_in(dir.path()));
    drop(writer);
}

#[test]
fn the_size_limit_counts_the_write_ahead_log() {
    // Defect 8: a small database with a large log was read whole.
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("s", CLEAN)]);
    let writer = Connection::open(&path).expect("open");
    writer
        .pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    let big = format!(
        r#"{{"content": "{}", "role": "user"}}"#,
        "x".repeat(200_000)
    );
    writer
        .execute(
            "INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?1)",
            [&big],
        )
        .expect("insert");
    let db_size = std::fs::metadata(&path).expect("stat").len();
    assert!(db_size < 100_000, "the row is in the log, not the database");
    let out = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--output-format",
            "concise",
            "--max-file-size",
            "100K",
            "session.db",
        ],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("TC004") || out.stdout.contains("larger than the maximum"),
        "{}",
        out.transcript()
    );
    drop(writer);
}

#[test]
fn the_safe_fix_keeps_an_adk_events_actions() {
    // Defect 11: the orphan fix deleted the whole event, and its state delta with it.
    let dir = temp();
    let path = dir.path().join("session.db");
    let orphan_with_state =
        ADK_ORPHAN.replace(r#""state_delta":{}"#, r#""state_delta":{"city":"Paris"}"#);
    assert_ne!(orphan_with_state, ADK_ORPHAN);
    adk_db(&path, &[("s2", &[ADK_USER, &orphan_with_state])]);
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let rows = events(&path);
    assert_eq!(rows.len(), 2, "{rows:#?}");
    let kept = rows
        .iter()
        .find(|r| r.contains("ev-9"))
        .expect("event kept");
    assert!(kept.contains(r#""state_delta":{"city":"Paris"}"#), "{kept}");
    assert!(kept.contains(r#""parts":[]"#), "{kept}");
    let lint = toolcheck_in(dir.path(), &["lint", "session.db"], None);
    assert_eq!(lint.code, 0, "{}", lint.transcript());
}

#[cfg(unix)]
#[test]
fn fix_write_refuses_a_read_only_database_even_as_root() {
    // Defect 13: as root, a chmod 444 database was written (text files are refused).
    use std::os::unix::fs::PermissionsExt;
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let before = std::fs::read(&path).expect("read");
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.db"], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("read-only"), "{}", out.transcript());
    // One prefix, not two.
    assert_eq!(
        out.stderr.matches("cannot write").count(),
        1,
        "{}",
        out.transcript()
    );
    assert_eq!(before, std::fs::read(&path).expect("read"));
}

#[test]
fn a_database_on_standard_input_is_refused_with_a_reason() {
    // Defect 13: read as text by `lint -`, replaced by a fresh database by `fix -`.
    use std::io::Write;
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    let bytes = std::fs::read(&path).expect("read");
    for args in [&["lint", "-"][..], &["fix", "-"], &["fix", "--write", "-"]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolcheck"))
            .args(args)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run");
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(&bytes);
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("SQLite database"), "{args:?}: {stderr}");
        assert!(
            out.stdout.is_empty()
                || !out.stdout.starts_with(b"SQLite format 3\0")
                || out.stdout == bytes
        );
    }
    assert_eq!(bytes, std::fs::read(&path).expect("read"));
}

/// Run as a child process by [`a_hot_journal_is_read_as_committed_and_left_alone`]: opens
/// a transaction that writes pages to the database file, then dies without committing.
#[test]
#[ignore = "a helper process, run by another test"]
fn crash_mid_transaction() {
    let Some(path) = std::env::var_os("TOOLCHECK_TEST_CRASH_DB") else {
        return;
    };
    let conn = Connection::open(path).expect("open");
    conn.pragma_update(None, "cache_size", 1)
        .expect("small cache");
    conn.execute_batch("BEGIN").expect("begin");
    for i in 0..200 {
        conn.execute(
            "INSERT INTO agent_messages (session_id, message_data) VALUES ('broken', ?1)",
            [format!(
                r#"{{"call_id": "torn_{i}", "output": "{}", "type": "function_call_output"}}"#,
                "y".repeat(2000)
            )],
        )
        .expect("insert");
    }
    // Dies without a rollback: the journal is left hot.
    std::process::exit(0);
}

#[test]
fn a_hot_journal_is_read_as_committed_and_left_alone() {
    // Defect 5: a hot rollback journal made lint fail ("attempt to write a readonly
    // database"); the journal must be read (rolled back in a private copy), never touched.
    let dir = temp();
    let path = dir.path().join("session.db");
    agents_db(&path, &[("broken", BROKEN)]);
    let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--ignored",
            "--exact",
            // Its name in the one test binary (tests/tests.rs): module and function.
            "sqlite_stores::crash_mid_transaction",
            "--nocapture",
        ])
        .env("TOOLCHECK_TEST_CRASH_DB", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the helper runs");
    assert!(status.success());
    let journal = dir.path().join("session.db-journal");
    assert!(
        std::fs::metadata(&journal).is_ok_and(|m| m.len() > 0),
        "the crash left a hot journal"
    );
    let before = files_in(dir.path());
    let out = lint_concise(dir.path(), "session.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    // The committed rows, not the torn transaction's.
    assert!(
        out.stdout
            .contains("session.db:agent_messages[rowid=2]: TC101"),
        "{}",
        out.transcript()
    );
    assert!(!out.stdout.contains("torn_"), "{}", out.transcript());
    assert_eq!(
        before,
        files_in(dir.path()),
        "lint wrote beside the database"
    );
}

/// Calls whose ids are all `""` (an Agents SDK store written through a model that returns no
/// call ids): a parallel pair in one turn is a same-turn error, and the id used again in
/// three later turns is one warning with the count, not one per call (issue 24 §1). The same
/// turns with distinct ids are the control.
#[test]
fn empty_call_ids_are_grouped_per_turn_and_per_id() {
    let call = |id: &str, city: &str| {
        format!(
            r#"{{"arguments": "{{\"city\":\"{city}\"}}", "call_id": "{id}", "name": "get_weather", "type": "function_call", "id": "__fake_id__", "status": "completed"}}"#
        )
    };
    let output = |id: &str| {
        format!(r#"{{"call_id": "{id}", "output": "Sunny, 21C", "type": "function_call_output"}}"#)
    };
    let session = |ids: [&str; 5]| {
        let mut items =
            vec![r#"{"content": "Weather in Paris and Rome?", "role": "user"}"#.to_string()];
        items.push(call(ids[0], "Paris"));
        items.push(call(ids[1], "Rome"));
        items.push(output(ids[0]));
        items.push(output(ids[1]));
        for (id, city) in ids[2..].iter().zip(["Oslo", "Lima", "Kyiv"]) {
            items.push(format!(r#"{{"content": "And {city}?", "role": "user"}}"#));
            items.push(call(id, city));
            items.push(output(id));
        }
        items
    };
    let dir = temp();
    let empty = session(["", "", "", "", ""]);
    let distinct = session(["c1", "c2", "c3", "c4", "c5"]);
    let empty: Vec<&str> = empty.iter().map(String::as_str).collect();
    let distinct: Vec<&str> = distinct.iter().map(String::as_str).collect();
    agents_db(&dir.path().join("empty.db"), &[("s", &empty)]);
    agents_db(&dir.path().join("distinct.db"), &[("s", &distinct)]);
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "empty.db"],
        None,
    );
    insta::assert_snapshot!(out.transcript());
    let control = toolcheck_in(dir.path(), &["lint", "distinct.db"], None);
    assert_eq!(control.code, 0, "{}", control.transcript());
}

/// The Agents SDK's default tool-error output carries no error flag; it is still a failure,
/// so four of them in a row for the same call are one `repeated-failing-call` (issue 24 §1).
/// The same calls answered with data are the control.
#[test]
fn agents_sdk_default_error_text_is_a_failure() {
    let session = |output: &str| -> Vec<String> {
        let mut items = vec![r#"{"content": "Where is order 1044?", "role": "user"}"#.to_string()];
        for n in 1..=4 {
            items.push(format!(
                r#"{{"arguments": "{{\"order_id\":\"1044\"}}", "call_id": "call_{n}", "name": "lookup_order", "type": "function_call", "id": "fc_{n}", "status": "completed"}}"#
            ));
            items.push(format!(
                r#"{{"call_id": "call_{n}", "output": "{output}", "type": "function_call_output"}}"#
            ));
        }
        items
    };
    let dir = temp();
    let failing = session("An error occurred while running the tool. Please try again.");
    let working = session("shipped");
    let failing: Vec<&str> = failing.iter().map(String::as_str).collect();
    let working: Vec<&str> = working.iter().map(String::as_str).collect();
    agents_db(&dir.path().join("failing.db"), &[("s", &failing)]);
    agents_db(&dir.path().join("working.db"), &[("s", &working)]);
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", "failing.db"],
        None,
    );
    insta::assert_snapshot!(out.transcript());
    let control = toolcheck_in(dir.path(), &["lint", "working.db"], None);
    assert_eq!(control.code, 0, "{}", control.transcript());
}
