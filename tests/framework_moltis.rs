//! Moltis `history.jsonl` sessions, end to end through the binary.

use crate::common;

use common::{toolcheck, toolcheck_in};

/// The seed failure: 25 identical `exec({})` calls, each failing with the same error.
#[test]
fn twenty_five_failing_exec_calls_are_one_loop() {
    let out = toolcheck(&[
        "lint",
        "fixtures/moltis/broken-loop.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// With the tool's schema, each `{}` is also empty arguments for a tool that requires some.
#[test]
fn empty_exec_arguments_with_a_known_schema() {
    let out = toolcheck(&[
        "lint",
        "fixtures/moltis/broken-loop.jsonl",
        "--tools",
        "tests/data/moltis-tools.json",
        "--select",
        "empty-arguments",
        "--statistics",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Arguments that differ between the call and its result, truncated arguments, an
/// interrupted call the session moved past, and a result for a call that is not there.
#[test]
fn broken_history() {
    let out = toolcheck(&["lint", "fixtures/moltis/broken-history.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn fix_inserts_an_interrupted_tool_result_line_and_settles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.jsonl");
    std::fs::copy(
        common::root().join("fixtures/moltis/broken-history.jsonl"),
        &path,
    )
    .expect("copy the fixture");
    let out = toolcheck_in(dir.path(), &["fix", "history.jsonl", "--write"], None);
    insta::assert_snapshot!(out.transcript());
    let fixed = std::fs::read_to_string(&path).expect("fixed file");
    assert!(fixed.contains(
        r#"{"role":"tool_result","tool_call_id":"call_3","tool_name":"exec","arguments":{"command":"cargo build"},"success":false,"error":"no result was recorded for this call; it may or may not have run, so check its effects before relying on it or running it again (inserted by toolcheck)","created_at":1750000003000,"run_id":"6f1c2b9e-3d4a-4c1e-9b7a-2f0d8e5a1c33"}"#
    ), "{fixed}");
    // Fixing again changes nothing; what is left has no fix.
    let again = toolcheck_in(dir.path(), &["fix", "history.jsonl", "--write"], None);
    assert_eq!(
        std::fs::read_to_string(&path).expect("fixed file"),
        fixed,
        "{}",
        again.transcript()
    );
    let lint = toolcheck_in(
        dir.path(),
        &["lint", "history.jsonl", "--output-format", "concise"],
        None,
    );
    insta::assert_snapshot!("fixed_history_lint", lint.transcript());
}

/// A clean session: arguments echoed in another key order, a compaction stub, a notice.
#[test]
fn clean_history_does_not_fire() {
    let out = toolcheck(&[
        "lint",
        "fixtures/moltis/clean-history.jsonl",
        "--tools",
        "tests/data/moltis-tools.json",
        "-v",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stderr.contains("moltis"), "{}", out.stderr);
}

/// A file named `history.jsonl` under the session store is detected without a flag, and a
/// JSONL of bare chat messages is not taken for a Moltis session.
#[test]
fn detection_needs_moltis_marks() {
    let out = common::toolcheck_stdin(
        &["lint", "-", "--stdin-filename", "plain.jsonl", "-v"],
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"hello\"}\n",
    );
    assert!(!out.stderr.contains("moltis"), "{}", out.transcript());
}
