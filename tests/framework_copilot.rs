//! GitHub Copilot CLI session event logs (`events.jsonl`), end to end through the binary.

mod common;

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

/// Repairs would insert events and re-link `parentId`s; none is offered, and the file is
/// left alone.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("copilot-cli/broken-events.jsonl", "events.jsonl");
    insta::assert_snapshot!(out.transcript());
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
