//! SQLite session stores read in place: real databases built here with the schemas the
//! libraries write (frameworks.md §6), linted through the real binary.

mod common;

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
    assert_eq!(checked, ["./a.db", "./b.sqlite3"]);
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
        out.stderr.contains("skipped ./other.db"),
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
