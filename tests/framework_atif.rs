//! Harbor ATIF trajectories, end to end through the binary.

use crate::common;

use common::toolcheck;

/// Calls and their results in the same agent step, a terminal screen with no call id, tool
/// definitions from `agent.tool_definitions`: clean.
#[test]
fn clean_trajectory() {
    let out = toolcheck(&["lint", "-v", "fixtures/atif/clean-trajectory.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// Arguments written as a string, arguments that break the declared schema, a result for a
/// call no step made, and one id used by two calls of a step.
#[test]
fn broken_trajectory() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "concise",
        "fixtures/atif/broken-trajectory.json",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// A record of a finished run: nothing to repair.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("atif/broken-trajectory.json", "trajectory.json");
    assert_eq!(out.code, 1, "{}", out.transcript());
}
