//! GitHub Copilot CLI session event logs (`events.jsonl`), end to end through the binary.

use crate::common;

use common::toolcheck;

/// A compacted session with a failed tool, a sub-agent writing between a main call and its
/// completion, and a call still running when the file ends: nothing to report.
#[test]
fn clean_events() {
    let out = toolcheck(&["lint", "fixtures/copilot-cli/clean-events.jsonl"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// A call whose completion was never written before the user moved on, truncated
/// arguments, and a completion for a call that is not there.
#[test]
fn broken_events_concise() {
    let out = toolcheck(&[
        "lint",
        "fixtures/copilot-cli/broken-events.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn broken_events() {
    let out = toolcheck(&["lint", "fixtures/copilot-cli/broken-events.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// What `fix` would change: the interrupted call gets a failed completion before the next
/// user message, linked after the event before it; the stray completion's line goes and the
/// turn end is re-linked to its parent; the truncated arguments are left alone.
#[test]
fn fix_dry_run() {
    let out = toolcheck(&["fix", "fixtures/copilot-cli/broken-events.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Every event's `parentId` names the event before it (null for the first).
fn assert_chain_whole(text: &str) {
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line parses"))
        .collect();
    let mut previous = serde_json::Value::Null;
    for event in &events {
        assert_eq!(event["parentId"], previous, "{event}");
        previous = event["id"].clone();
    }
}

/// A parallel call whose completion was never written: `fix --write` inserts a failed
/// completion before the turn's end, the session lints clean, the chain stays whole, and a
/// second fix finds nothing.
#[test]
fn fix_write_round_trip_lints_clean_and_keeps_the_chain() {
    let (original, after) = common::fix_write_round_trip(
        "copilot-cli/broken-unanswered-call.jsonl",
        "events.jsonl",
        &[],
        &[],
    );
    assert_chain_whole(&after);
    let lines: Vec<&str> = after.lines().collect();
    assert_eq!(lines.len(), original.lines().count() + 1);
    // Right before the turn's end.
    assert!(lines[7].starts_with(r#"{"type":"tool.execution_complete","data":{"toolCallId":"toolu_vrtx_01B","success":false,"error":{"message":"Synthetic result written by toolcheck"#), "{after}");
    assert!(
        lines[8].starts_with(r#"{"type":"assistant.turn_end""#),
        "{after}"
    );
}

/// The broken log, fixed: the chain stays whole and only the truncated arguments are left.
#[test]
fn fix_write_keeps_the_chain_of_the_broken_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original =
        std::fs::read_to_string(common::root().join("fixtures/copilot-cli/broken-events.jsonl"))
            .expect("fixture");
    std::fs::write(dir.path().join("events.jsonl"), &original).expect("copy");
    common::toolcheck_in(dir.path(), &["fix", "events.jsonl", "--write"], None);
    let after = std::fs::read_to_string(dir.path().join("events.jsonl")).expect("file");
    assert_chain_whole(&after);
    let lint = common::toolcheck_in(
        dir.path(),
        &["lint", "events.jsonl", "--output-format", "concise"],
        None,
    );
    assert!(lint.stdout.contains("TC201"), "{}", lint.transcript());
    assert!(
        !lint.stdout.contains("TC101") && !lint.stdout.contains("TC102"),
        "{}",
        lint.transcript()
    );
}

/// Forced, the format reads the session the same way.
#[test]
fn forced_format() {
    let out = toolcheck(&[
        "lint",
        "fixtures/copilot-cli/broken-events.jsonl",
        "--input-format",
        "copilot-cli",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
}
