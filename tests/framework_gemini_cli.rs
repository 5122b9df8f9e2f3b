//! Gemini CLI session recordings (`chats/session-*.jsonl`, legacy `session-*.json`), end to
//! end through the binary.

mod common;

use common::toolcheck;

/// Upserted messages, a rewound exchange with an unanswered call, an info message, a slash
/// command, parallel calls with one failure: nothing to report.
#[test]
fn clean_session() {
    let out = toolcheck(&["lint", "fixtures/gemini-cli/clean-session.jsonl", "-v"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// The legacy whole-file record: calls only in `toolCalls`, a string result.
#[test]
fn clean_legacy_record() {
    let out = toolcheck(&["lint", "fixtures/gemini-cli/clean-legacy.json", "-v"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stderr.contains("(gemini-cli)"), "{}", out.transcript());
}

/// An unanswered call the user moved past, an orphaned durable response, string arguments
/// cut off, three identical failing calls, and a result kept both in `toolCalls[].result`
/// and as a durable user message (gemini-cli#29365).
#[test]
fn broken_session_concise() {
    let out = toolcheck(&[
        "lint",
        "fixtures/gemini-cli/broken-session.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn broken_session() {
    let out = toolcheck(&["lint", "fixtures/gemini-cli/broken-session.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Lint only: no fix is offered, and the file is left alone.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("gemini-cli/broken-session.jsonl", "session.jsonl");
    insta::assert_snapshot!(out.transcript());
}

/// Forced, the format reads the session the same way; other sessions forced to it do not fit.
#[test]
fn forced_format() {
    let out = toolcheck(&[
        "lint",
        "fixtures/gemini-cli/broken-session.jsonl",
        "--input-format",
        "gemini-cli",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
    let out = toolcheck(&[
        "lint",
        "fixtures/pi/clean-session.jsonl",
        "--input-format",
        "gemini-cli",
        "--output-format",
        "concise",
    ]);
    assert!(out.stdout.contains("TC002"), "{}", out.transcript());
}

/// Other agents' sessions and a `/chat save` checkpoint keep their own formats.
#[test]
fn near_misses_keep_their_formats() {
    for (file, format) in [
        ("fixtures/pi/clean-session.jsonl", "(pi)"),
        ("fixtures/copilot-cli/clean-events.jsonl", "(copilot-cli)"),
        ("fixtures/gemini/clean-chat-checkpoint.json", "(gemini)"),
    ] {
        let out = toolcheck(&["lint", file, "-v"]);
        assert!(out.stderr.contains(format), "{file}: {}", out.transcript());
    }
    for dir in ["fixtures/claude-code", "fixtures/codex"] {
        let out = toolcheck(&["lint", dir, "-v", "-q"]);
        assert!(
            !out.stderr.contains("gemini-cli"),
            "{dir}: {}",
            out.transcript()
        );
    }
}
