//! pi / OpenClaw / oh-my-pi session JSONL, end to end through the binary.

use crate::common;

use common::toolcheck;

/// A v3 session with an abandoned branch, an aborted assistant whose call was cut off, a
/// compaction, and a call still running when the file ends: nothing to report.
#[test]
fn clean_session() {
    let out = toolcheck(&["lint", "fixtures/pi/clean-session.jsonl"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// An unanswered call the user moved past, truncated `partialJson` on a replayed call, a
/// result for a call that is not there, and two records glued onto one line.
#[test]
fn broken_session_concise() {
    let out = toolcheck(&[
        "lint",
        "fixtures/pi/broken-session.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn broken_session() {
    let out = toolcheck(&["lint", "fixtures/pi/broken-session.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// What `fix` would change in the broken session: the unanswered call gets a synthetic
/// result line linked after its assistant, the stray result's line goes and its children
/// hang from its parent; truncated arguments and the glued line are left alone.
#[test]
fn fix_dry_run() {
    let out = toolcheck(&["fix", "fixtures/pi/broken-session.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Every `parentId` names an entry of the file, ids are unique, and line 1 is the header.
fn assert_tree_whole(text: &str, header: &str) {
    let entries: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(text.lines().next(), Some(header));
    let ids: Vec<&str> = entries.iter().filter_map(|e| e["id"].as_str()).collect();
    let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate ids:\n{text}");
    for entry in &entries {
        if let Some(parent) = entry["parentId"].as_str() {
            assert!(unique.contains(parent), "{parent} is not an entry:\n{text}");
        }
    }
}

/// An unanswered call, a stray result and a result written twice: `fix --write
/// --unsafe-fixes` leaves a session that lints clean, keeps the tree whole, and a second fix
/// finds nothing.
#[test]
fn fix_write_round_trip_lints_clean_and_keeps_the_tree() {
    let (original, after) = common::fix_write_round_trip(
        "pi/broken-unanswered-call.jsonl",
        "session.jsonl",
        &["--unsafe-fixes"],
        &[],
    );
    let header = original.lines().next().unwrap_or_default();
    assert_tree_whole(&after, header);
    // One line in, two out.
    assert_eq!(after.lines().count(), original.lines().count() - 1);
    assert!(after.contains(r#""toolCallId":"toolu_01R2bW","toolName":"read","content":[{"type":"text","text":"Synthetic result written by toolcheck"#));
    insta::assert_snapshot!(after);
}

/// The broken session, fixed: the tree stays whole around the glued line too.
#[test]
fn fix_write_keeps_the_tree_of_the_broken_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.jsonl");
    let original = std::fs::read_to_string(common::root().join("fixtures/pi/broken-session.jsonl"))
        .expect("fixture");
    std::fs::write(&path, &original).expect("copy");
    common::toolcheck_in(dir.path(), &["fix", "session.jsonl", "--write"], None);
    let after = std::fs::read_to_string(&path).expect("file");
    assert_tree_whole(&after, original.lines().next().unwrap_or_default());
    let lint = common::toolcheck_in(
        dir.path(),
        &["lint", "session.jsonl", "--output-format", "concise"],
        None,
    );
    assert!(
        !lint.stdout.contains("TC101") && !lint.stdout.contains("TC102"),
        "{}",
        lint.transcript()
    );
}

/// Version 1 files have no ids to link a line into: no fix.
#[test]
fn v1_sessions_get_no_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = concat!(
        r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{}}],"stopReason":"toolUse"}}"#,
        "\n",
        r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"next"}}"#,
        "\n",
    );
    std::fs::write(dir.path().join("s.jsonl"), text).expect("write");
    let out = common::toolcheck_in(dir.path(), &["fix", "s.jsonl", "--write"], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.jsonl")).expect("file"),
        text
    );
}

/// Forced, the format reads the session the same way.
#[test]
fn forced_format() {
    let out = toolcheck(&[
        "lint",
        "fixtures/pi/broken-session.jsonl",
        "--input-format",
        "pi",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
}
