//! MCP JSON-RPC logs (raw stdio captures and Claude Desktop logs), end to end through the
//! binary.

use crate::common;

use common::toolcheck;

/// The seed failures: a `tools/call` whose arguments break the `tools/list` schema, and a
/// request never answered while the session goes on; with a response to no request, a
/// reused request id and a call to a tool the server does not list.
#[test]
fn broken_session() {
    let out = toolcheck(&["lint", "fixtures/mcp/broken-session.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// The schema comes from the log's own `tools/list` result: no `--tools` needed.
#[test]
fn schema_violation_from_the_logged_tools_list() {
    let out = toolcheck(&[
        "lint",
        "fixtures/mcp/broken-session.jsonl",
        "--select",
        "schema-violation,unpaired-tool-call",
        "--output-format",
        "json",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// A Claude Desktop log: messages after the log prefix, other log lines passed over.
#[test]
fn claude_desktop_log() {
    let out = toolcheck(&[
        "lint",
        "fixtures/mcp/broken-claude-desktop.log",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Nothing in a recorded log is rewritten: no finding carries a fix.
#[test]
fn fix_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.jsonl");
    std::fs::copy(
        common::root().join("fixtures/mcp/broken-session.jsonl"),
        &path,
    )
    .expect("copy the fixture");
    let before = std::fs::read_to_string(&path).expect("fixture");
    let out = common::toolcheck_in(
        dir.path(),
        &["fix", "session.jsonl", "--write", "--unsafe-fixes"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(std::fs::read_to_string(&path).expect("file"), before);
}

/// A call in flight when the capture ends, a cancelled call whose response crosses the
/// cancellation, a failed call (`isError`), string ids and progress notifications: clean.
#[test]
fn clean_logs_do_not_fire() {
    for file in [
        "fixtures/mcp/clean-session.jsonl",
        "fixtures/mcp/clean-claude-desktop.log",
    ] {
        let out = toolcheck(&["lint", file, "-v"]);
        assert_eq!(out.code, 0, "{file}: {}", out.transcript());
        assert!(out.stderr.contains("mcp"), "{file}: {}", out.stderr);
    }
}

/// Directory walks keep to `.json`, `.jsonl` and `.ndjson`: `.log` files are read only when
/// named.
#[test]
fn walks_pass_over_log_files() {
    let out = toolcheck(&["lint", "fixtures/mcp", "-v"]);
    assert!(!out.stderr.contains(".log"), "{}", out.transcript());
}

/// A server's stdout saved on its own holds responses and no requests: one `input-not-checked`
/// finding on the capture, not a result-without-a-call error per response, and none naming
/// a chat provider, even when one is targeted (issue 24 §1). The session with both directions
/// is the control (`clean_logs_do_not_fire`).
#[test]
fn one_sided_capture_is_one_finding() {
    let out = toolcheck(&["lint", "fixtures/mcp/broken-server-stdout.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    for target in ["openai", "gemini"] {
        let targeted = toolcheck(&[
            "lint",
            "fixtures/mcp/broken-server-stdout.jsonl",
            "--target",
            target,
            "--output-format",
            "concise",
        ]);
        assert!(
            targeted.stdout.contains("TC003") && !targeted.stdout.contains("TC101"),
            "{}",
            targeted.transcript()
        );
    }
}

/// An MCP log is held to no chat provider: a response to no request in a two-sided capture
/// is a warning naming none, not an error naming OpenAI, Anthropic, Gemini and Bedrock.
#[test]
fn an_mcp_log_is_held_to_no_chat_provider() {
    let out = toolcheck(&[
        "lint",
        "fixtures/mcp/broken-session.jsonl",
        "--output-format",
        "json",
    ]);
    let findings: serde_json::Value = serde_json::from_str(&out.stdout).expect("json output");
    let findings = findings.as_array().expect("an array of findings");
    assert!(!findings.is_empty());
    for finding in findings {
        assert_eq!(finding["severity"], "warning", "{finding}");
    }
}
