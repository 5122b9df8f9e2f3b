//! Gemini CLI session recordings (`chats/session-*.jsonl`, legacy `session-*.json`), end to
//! end through the binary.

use crate::common;

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

/// What `fix` would append: a cancelled version of the unanswered call's message and the
/// durable user message without its orphaned response; the duplicate is unsafe.
#[test]
fn fix_dry_run() {
    let out = toolcheck(&["fix", "fixtures/gemini-cli/broken-session.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Parallel calls each storing both responses (gemini-cli#29365), an unanswered call the
/// user moved past, a rewound exchange, an orphaned durable response: `fix --write
/// --unsafe-fixes` only appends lines, each call keeps its own response, the session lints
/// clean, and a second fix finds nothing.
#[test]
fn fix_write_appends_versions_and_lints_clean() {
    let unsafe_fixes = ["--unsafe-fixes"];
    let (original, after) = common::fix_write_round_trip(
        "gemini-cli/broken-fixable.jsonl",
        "session.jsonl",
        &unsafe_fixes,
        &unsafe_fixes,
    );
    // Every original byte stays: the versions are appended.
    assert!(after.starts_with(&original), "{after}");
    assert_eq!(after.lines().count(), original.lines().count() + 4);
    // The rewound call is not touched.
    assert!(!after[original.len()..].contains("call-test-1"));
    insta::assert_snapshot!(&after[original.len()..]);
}

/// A call kept in a `messages` checkpoint is fixed by a line appended after it (the loader
/// upserts lines written after a checkpoint); a legacy whole-file record is left alone (the
/// CLI converts it to `.jsonl` on resume).
#[test]
fn checkpoints_get_an_appended_version_legacy_records_no_fix() {
    let messages = r#"[{"id":"u1","timestamp":"t","type":"user","content":[{"text":"go"}]},{"id":"g1","timestamp":"t","type":"gemini","content":[{"functionCall":{"id":"c1","name":"ls","args":{}}}],"toolCalls":[{"id":"c1","name":"ls","args":{},"status":"executing","timestamp":"t"}]},{"id":"u2","timestamp":"t","type":"user","content":[{"text":"next"}]}]"#;
    let jsonl = format!(
        "{}\n{}\n",
        r#"{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t"}"#,
        format_args!(r#"{{"$set":{{"messages":{messages}}}}}"#)
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("session-a.jsonl"), &jsonl).expect("write");
    let out = common::toolcheck_in(dir.path(), &["fix", "session-a.jsonl", "--write"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let after = std::fs::read_to_string(dir.path().join("session-a.jsonl")).expect("file");
    assert!(after.starts_with(&jsonl), "{after}");
    let appended = &after[jsonl.len()..];
    assert!(
        appended.starts_with(r#"{"id":"g1""#) && appended.contains(r#""status":"cancelled""#),
        "{appended}"
    );
    let lint = common::toolcheck_in(dir.path(), &["lint", "session-a.jsonl"], None);
    assert_eq!(lint.code, 0, "{}", lint.transcript());

    let legacy = format!(
        r#"{{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","messages":{messages}}}"#
    );
    std::fs::write(dir.path().join("session-b.json"), &legacy).expect("write");
    let out = common::toolcheck_in(
        dir.path(),
        &["fix", "session-b.json", "--write", "--unsafe-fixes"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.transcript().contains("no automatic fix"),
        "{}",
        out.transcript()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("session-b.json")).expect("file"),
        legacy
    );
}

/// A session as Gemini CLI 0.61 writes it (the session context as a `$set.messages`
/// checkpoint on its second line, then every message as a line): parallel calls whose
/// responses are recorded in `toolCalls[].result` and again as a durable user message. The
/// CLI sends both on resume (gemini-cli#29365), which Gemini rejects: errors.
#[test]
fn resume_duplicates_are_errors() {
    let out = toolcheck(&["lint", "fixtures/gemini-cli/resume-duplicates.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// The fix that holds across resumes: a version of the calls' message with the calls in
/// `content` and no `toolCalls`, so the CLI neither regenerates the responses nor syncs them
/// back; the durable message keeps the one copy.
#[test]
fn resume_duplicates_fix_keeps_the_durable_copy() {
    let unsafe_fixes = ["--unsafe-fixes"];
    let (original, after) = common::fix_write_round_trip(
        "gemini-cli/resume-duplicates.jsonl",
        "session.jsonl",
        &unsafe_fixes,
        &unsafe_fixes,
    );
    assert!(after.starts_with(&original), "{after}");
    let appended = &after[original.len()..];
    assert_eq!(appended.lines().count(), 1, "{appended}");
    assert!(!appended.contains("toolCalls"), "{appended}");
    insta::assert_snapshot!(appended);
}

/// After one resume the CLI has rewritten the history as a checkpoint: each call's result
/// holds both responses and the regenerated response turn is a user message of its own, so a
/// resume would send each response four times. The fix drops the `toolCalls` and empties the
/// extra durable copy; one copy of each response is left.
#[test]
fn resumed_once_fix() {
    let out = toolcheck(&[
        "lint",
        "fixtures/gemini-cli/resumed-once.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!("resumed_once_lint", out.transcript());
    let unsafe_fixes = ["--unsafe-fixes"];
    let (original, after) = common::fix_write_round_trip(
        "gemini-cli/resumed-once.jsonl",
        "session.jsonl",
        &unsafe_fixes,
        &unsafe_fixes,
    );
    assert!(after.starts_with(&original), "{after}");
    insta::assert_snapshot!("resumed_once_appended", &after[original.len()..]);
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
