//! pi / OpenClaw / oh-my-pi session JSONL, end to end through the binary.

mod common;

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

/// Fixes would have to re-link `parentId`s; none is offered, and the file is left alone.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("pi/broken-session.jsonl", "session.jsonl");
    insta::assert_snapshot!(out.transcript());
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
