//! Qwen Code session recordings (`chats/<sessionId>.jsonl`), end to end through the binary.

mod common;

use common::toolcheck;

/// Parallel calls answered by one `tool_result` record each, an abandoned branch with an
/// unanswered call, UI telemetry, a compression checkpoint and a failed read: nothing to
/// report.
#[test]
fn clean_session() {
    let out = toolcheck(&["lint", "fixtures/qwen-code/clean-session.jsonl", "-v"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// An unanswered call the user moved past, a stray result, string arguments cut off, three
/// identical failing calls, and a result recorded twice.
#[test]
fn broken_session_concise() {
    let out = toolcheck(&[
        "lint",
        "fixtures/qwen-code/broken-session.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Lint only: no fix is offered, and the file is left alone.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("qwen-code/broken-session.jsonl", "session.jsonl");
    insta::assert_snapshot!(out.transcript());
}

/// Claude Code sessions share the record envelope and keep their format; Qwen Code sessions
/// forced to Claude Code's are not read as Claude Code's.
#[test]
fn claude_code_sessions_keep_their_format() {
    let out = toolcheck(&["lint", "fixtures/claude-code", "-v", "-q"]);
    assert!(!out.stderr.contains("qwen-code"), "{}", out.transcript());
    let out = toolcheck(&[
        "lint",
        "fixtures/qwen-code/broken-session.jsonl",
        "--input-format",
        "qwen-code",
        "--output-format",
        "concise",
    ]);
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
}
