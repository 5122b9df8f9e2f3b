//! Qwen Code session recordings (`chats/<sessionId>.jsonl`), end to end through the binary.

use crate::common;

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

/// What `fix` would change: a failed `tool_result` record for the unanswered call, linked in
/// after its turn, and the stray result record removed with its child re-parented.
#[test]
fn fix_dry_run() {
    let out = toolcheck(&["fix", "fixtures/qwen-code/broken-session.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Every `parentUuid` names a record of the file, and the leaf's chain reaches the root.
fn assert_chain_whole(text: &str) {
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    let uuids: Vec<&str> = records.iter().filter_map(|r| r["uuid"].as_str()).collect();
    for r in &records {
        if let Some(parent) = r["parentUuid"].as_str() {
            assert!(uuids.contains(&parent), "dangling parent in {r}");
        }
    }
    let mut current = records.last().and_then(|r| r["uuid"].as_str());
    let mut steps = 0;
    while let Some(uuid) = current {
        steps += 1;
        assert!(steps <= records.len(), "cycle at {uuid}");
        let record = records.iter().find(|r| r["uuid"] == uuid).expect("on file");
        current = record["parentUuid"].as_str();
    }
}

/// An unanswered parallel call after a compression checkpoint (with an unanswered call
/// before it, not replayed), an abandoned branch, a stray result: `fix --write` inserts one
/// record and removes one, the chain stays whole, the session lints clean, and a second fix
/// finds nothing.
#[test]
fn fix_write_round_trip_lints_clean_and_keeps_the_chain() {
    let (original, after) =
        common::fix_write_round_trip("qwen-code/broken-fixable.jsonl", "session.jsonl", &[], &[]);
    assert_chain_whole(&after);
    assert_eq!(after.lines().count(), original.lines().count());
    assert!(after.contains(r#""type":"tool_result","cwd":"/home/dev/app","version":"0.6.1","gitBranch":"main","message":{"role":"user","parts":[{"functionResponse":{"id":"call-wf-1","name":"read_file","response":{"error":"Synthetic result written by toolcheck"#), "{after}");
    // Before the checkpoint and off the path: untouched.
    assert!(!after.contains(r#""id":"call-old-1","name":"run_shell_command","response""#));
    assert!(after.contains("call-abandoned-1"));
    insta::assert_snapshot!(after);
}

/// Control left alone: an unanswered call inside a compression checkpoint's history (the
/// checkpoint is one record; its history is not edited).
#[test]
fn calls_in_a_compressed_history_get_no_fix() {
    let record = |uuid: &str, parent: &str, rest: &str| {
        format!(
            r#"{{"uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","timestamp":"t","cwd":"/w","version":"0.6.1",{rest}}}"#
        )
    };
    let text = [
        record("u1", "null", r#""type":"user","message":{"role":"user","parts":[{"text":"go"}]}"#),
        record("c1", r#""u1""#, r#""type":"system","subtype":"chat_compression","systemPayload":{"info":{},"compressedHistory":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"k1","name":"ls","args":{}}}]},{"role":"user","parts":[{"text":"next"}]}]}"#),
        record("u2", r#""c1""#, r#""type":"user","message":{"role":"user","parts":[{"text":"and?"}]}"#),
        record("a2", r#""u2""#, r#""type":"assistant","message":{"role":"model","parts":[{"text":"done"}]}"#),
    ]
    .join("\n")
        + "\n";
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("s.jsonl"), &text).expect("write");
    let out = common::toolcheck_in(dir.path(), &["fix", "s.jsonl", "--write"], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.transcript().contains("no automatic fix"),
        "{}",
        out.transcript()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.jsonl")).expect("file"),
        text
    );
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

/// A session as Qwen Code 0.24.4 writes it, cut off while a call ran: system records (the
/// session's source and model, an attribution snapshot, telemetry) in Claude Code's envelope
/// outnumber the messages, and the last message record is the unanswered call. It is read as
/// Qwen Code's, call included (still running, so not reported); once the session goes on
/// past the call, the call is unanswered.
#[test]
fn an_interrupted_session_of_0_24_is_qwen_code() {
    let out = toolcheck(&["lint", "fixtures/qwen-code/interrupted-0.24.jsonl", "-v"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());

    let original =
        std::fs::read_to_string(common::root().join("fixtures/qwen-code/interrupted-0.24.jsonl"))
            .expect("fixture");
    let next = r#"{"uuid":"6c7d8e9f-0a1b-4c2d-3e4f-5a6b7c8d9e0f","parentUuid":"5b6c7d8e-9f0a-4b1c-2d3e-4f5a6b7c8d9e","sessionId":"4c2e8a6f-1b3d-4e5f-9a7c-0d2e4f6a8b1c","timestamp":"2026-11-29T11:05:00.000Z","type":"user","provenance":"real_user","cwd":"/home/dev/shop","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"Did the tests pass?"}]}}"#;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("s.jsonl"), format!("{original}{next}\n")).expect("write");
    let out = common::toolcheck_in(
        dir.path(),
        &["lint", "s.jsonl", "-v", "--output-format", "concise"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
    assert!(out.stderr.contains("(qwen-code)"), "{}", out.transcript());
}
