//! opencode `opencode.db` read in place: databases built here with the tables opencode
//! creates (`packages/opencode/src/session/session.sql.ts`), linted and fixed through the
//! real binary.

use crate::common;

use std::path::Path;

use common::toolcheck_in;
use rusqlite::Connection;

/// The tables of an opencode database this reader touches, with `session_message`, a
/// near-miss (`session_id` and `data`, a second message model).
const SCHEMA: &str = "
CREATE TABLE project (id text PRIMARY KEY NOT NULL, worktree text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (id text PRIMARY KEY NOT NULL,
    project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
    workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text,
    title text NOT NULL, version text NOT NULL, share_url text, revert text, permission text,
    agent text, model text, cost real DEFAULT 0 NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL,
    time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY NOT NULL,
    session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY NOT NULL,
    message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
    session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
    data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE TABLE session_message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL,
    type text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
    data text NOT NULL);
";

/// A message: its id, its data, and its parts (id, data).
struct Msg {
    id: &'static str,
    data: String,
    parts: Vec<(&'static str, String)>,
}

fn user(id: &'static str, part: &'static str, text: &str) -> Msg {
    Msg {
        id,
        data: r#"{"role":"user","time":{"created":1795000000000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}"#.into(),
        parts: vec![(part, format!(r#"{{"type":"text","text":"{text}"}}"#))],
    }
}

fn assistant(id: &'static str, extra: &str, parts: Vec<(&'static str, String)>) -> Msg {
    Msg {
        id,
        data: format!(
            r#"{{"role":"assistant","parentID":"msg_001","providerID":"anthropic","modelID":"claude-sonnet-4-5","mode":"build","agent":"build","path":{{"cwd":"/p","root":"/p"}},"time":{{"created":1795000000100}},"cost":0,"tokens":{{"input":0,"output":0,"reasoning":0,"cache":{{"read":0,"write":0}}}}{extra}}}"#
        ),
        parts,
    }
}

fn step() -> String {
    r#"{"type":"step-start"}"#.into()
}

fn tool(call: &str, name: &str, state: &str) -> String {
    format!(r#"{{"type":"tool","callID":"{call}","tool":"{name}","state":{state}}}"#)
}

fn clean() -> Vec<Msg> {
    vec![
        user("msg_001", "prt_001", "Read a.txt"),
        assistant(
            "msg_002",
            r#","finish":"tool-calls""#,
            vec![
                ("prt_002", step()),
                (
                    "prt_003",
                    tool(
                        "toolu_r1",
                        "read",
                        r#"{"status":"completed","input":{"filePath":"a.txt"},"output":"hello","title":"a.txt","metadata":{},"time":{"start":1795000000200,"end":1795000000300}}"#,
                    ),
                ),
            ],
        ),
        assistant(
            "msg_003",
            r#","finish":"stop""#,
            vec![
                ("prt_004", step()),
                (
                    "prt_005",
                    r#"{"type":"text","text":"It says hello."}"#.into(),
                ),
            ],
        ),
    ]
}

const BUILD_FAILS: &str = r#"{"status":"error","input":{"command":"cargo build"},"error":"error[E0425]: cannot find value `x`","time":{"start":1795000000400,"end":1795000000500}}"#;

/// A write cut off while its arguments streamed, a shell command interrupted while it ran,
/// the same failing build three times, an errored assistant (skipped by opencode), and a
/// call still running in the last message (in flight).
fn broken() -> Vec<Msg> {
    vec![
        user("msg_001", "prt_001", "Fix it"),
        assistant(
            "msg_002",
            "",
            vec![
                ("prt_002", step()),
                (
                    "prt_003",
                    tool(
                        "toolu_w1",
                        "write",
                        r#"{"status":"pending","input":{},"raw":"{\"filePath\":\"/p/a.rs\",\"content\":\"fn ma"}"#,
                    ),
                ),
            ],
        ),
        user("msg_004", "prt_004", "Continue"),
        assistant(
            "msg_005",
            "",
            vec![
                ("prt_005", step()),
                (
                    "prt_006",
                    tool(
                        "toolu_b1",
                        "bash",
                        r#"{"status":"running","input":{"command":"cargo test"},"title":"cargo test","metadata":{},"time":{"start":1795000000600}}"#,
                    ),
                ),
            ],
        ),
        user("msg_006", "prt_007", "Why did it stop?"),
        assistant(
            "msg_007",
            r#","finish":"stop""#,
            vec![
                ("prt_008", step()),
                ("prt_009", tool("toolu_f1", "bash", BUILD_FAILS)),
                ("prt_010", step()),
                ("prt_011", tool("toolu_f2", "bash", BUILD_FAILS)),
                ("prt_012", step()),
                ("prt_013", tool("toolu_f3", "bash", BUILD_FAILS)),
                (
                    "prt_014",
                    r#"{"type":"text","text":"The build fails."}"#.into(),
                ),
            ],
        ),
        assistant(
            "msg_008",
            r#","error":{"name":"APIError","data":{"message":"overloaded","isRetryable":true}}"#,
            vec![
                ("prt_015", step()),
                (
                    "prt_016",
                    tool(
                        "toolu_x1",
                        "bash",
                        r#"{"status":"running","input":{"command":"ls"},"time":{"start":1795000000700}}"#,
                    ),
                ),
            ],
        ),
        user("msg_009", "prt_017", "Try again"),
        assistant(
            "msg_010",
            "",
            vec![
                ("prt_018", step()),
                (
                    "prt_019",
                    tool(
                        "toolu_l1",
                        "bash",
                        r#"{"status":"running","input":{"command":"cargo build"},"time":{"start":1795000000800}}"#,
                    ),
                ),
            ],
        ),
    ]
}

/// A stale call before a completed compaction: not sent, not reported.
fn compacted() -> Vec<Msg> {
    let mut messages = vec![
        user("msg_001", "prt_001", "Start"),
        assistant(
            "msg_002",
            "",
            vec![(
                "prt_002",
                tool(
                    "toolu_old",
                    "bash",
                    r#"{"status":"running","input":{"command":"ls"},"time":{"start":1}}"#,
                ),
            )],
        ),
    ];
    messages.push(Msg {
        id: "msg_003",
        data: r#"{"role":"user","time":{"created":1795000000000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}"#.into(),
        parts: vec![("prt_003", r#"{"type":"compaction","auto":true}"#.into())],
    });
    let mut summary = assistant(
        "msg_004",
        r#","summary":true,"finish":"stop""#,
        vec![(
            "prt_004",
            r#"{"type":"text","text":"We listed files."}"#.into(),
        )],
    );
    summary.data = summary.data.replace("msg_001", "msg_003");
    messages.push(summary);
    messages.push(user("msg_005", "prt_005", "Go on"));
    messages
}

/// Writes an opencode database with these sessions. Rows are inserted newest first and
/// `time_created` grows with each message, so only the columns opencode orders by put
/// them in order.
fn opencode_db(path: &Path, sessions: &[(&str, Vec<Msg>)]) {
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(SCHEMA).expect("create the tables");
    conn.execute_batch(
        "INSERT INTO project VALUES ('prj_1', '/p', 1, 1);
         INSERT INTO session_message VALUES ('sm_1', 'ses_x', 'tool', 1, 1, '{\"callID\":\"nope\",\"state\":{\"status\":\"running\"}}');",
    )
    .expect("project");
    for (session, messages) in sessions {
        conn.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?1, 'prj_1', 's', '/p', 't', '1.2.0', 1, 1)",
            [session],
        )
        .expect("insert a session");
        // Ids are unique in the database: each session's are prefixed with its own.
        let own = |id: &str| format!("{session}-{id}");
        for (m, message) in messages.iter().enumerate().rev() {
            let time = 1_795_000_000_000_i64 + m as i64 * 1000;
            let data = message.data.replace("\"msg_", &format!("\"{session}-msg_"));
            conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![own(message.id), session, time, data],
            )
            .expect("insert a message");
            for (id, data) in message.parts.iter().rev() {
                conn.execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                    rusqlite::params![own(id), own(message.id), session, time, data],
                )
                .expect("insert a part");
            }
        }
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Every part row: rowid, id, message, session, times, data.
fn parts(path: &Path) -> Vec<String> {
    common::query_rows(
        path,
        "SELECT rowid, id, message_id, session_id, time_created, time_updated, data FROM part ORDER BY rowid",
    )
}

fn messages(path: &Path) -> Vec<String> {
    common::query_rows(
        path,
        "SELECT rowid, id, session_id, time_created, data FROM message ORDER BY rowid",
    )
}

#[test]
fn clean_and_compacted_sessions_lint_clean() {
    let dir = temp();
    opencode_db(
        &dir.path().join("opencode.db"),
        &[("ses_a", clean()), ("ses_b", compacted())],
    );
    common::lint_clean_reads(
        dir.path(),
        "opencode.db",
        "checked opencode.db (opencode): 2 conversations, 1 call, 1 result",
    );
}

#[test]
fn broken_session_concise() {
    let dir = temp();
    opencode_db(
        &dir.path().join("opencode.db"),
        &[("ses_a", clean()), ("ses_b", broken())],
    );
    let out = common::lint_concise(dir.path(), "opencode.db");
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn a_part_table_without_its_message_table_is_not_opencode() {
    let dir = temp();
    let path = dir.path().join("other.db");
    let conn = Connection::open(&path).expect("create");
    conn.execute_batch(
        "CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, data text);
         INSERT INTO part VALUES ('p', 'm', 's', '{\"type\":\"tool\",\"callID\":\"c\",\"tool\":\"x\",\"state\":{\"status\":\"running\",\"input\":{}}}');
         CREATE TABLE session_message (id text PRIMARY KEY, session_id text, type text, data text);",
    )
    .expect("fill");
    drop(conn);
    let out = common::lint_concise(dir.path(), "other.db");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC002"), "{}", out.transcript());
}

#[test]
fn fix_dry_run_shows_the_part_and_changes_nothing() {
    let dir = temp();
    let path = dir.path().join("opencode.db");
    opencode_db(&path, &[("ses_b", broken())]);
    let before = std::fs::read(&path).expect("read");
    let out = toolcheck_in(dir.path(), &["fix", "opencode.db"], None);
    insta::assert_snapshot!(out.transcript());
    assert_eq!(before, std::fs::read(&path).expect("read"));
}

#[test]
fn fix_write_updates_stale_parts_in_place() {
    let dir = temp();
    let path = dir.path().join("opencode.db");
    opencode_db(&path, &[("ses_a", clean()), ("ses_b", broken())]);
    let messages_before = messages(&path);
    // Ids, sessions, roles or messages, and order columns stay.
    let (changed, lint) = common::fix_write_in_place(dir.path(), "opencode.db", 6, parts);
    // Messages are untouched.
    assert_eq!(messages_before, messages(&path));
    insta::assert_snapshot!(changed);
    insta::assert_snapshot!(lint.transcript());
}

#[test]
fn fix_write_refuses_a_locked_database() {
    let dir = temp();
    let path = dir.path().join("opencode.db");
    opencode_db(&path, &[("ses_b", broken())]);
    common::fix_write_refused_while_locked(dir.path(), "opencode.db", parts);
}
