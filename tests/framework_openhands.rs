//! OpenHands (V0) trajectories, end to end through the binary.

mod common;

use common::toolcheck;

/// A system prompt, a recall and its observation (no call), two commands whose
/// observations name their call by `tool_call_metadata` or only by `cause`, and a `finish`
/// call the run ends on: clean.
#[test]
fn clean_trajectory() {
    let out = toolcheck(&["lint", "-v", "fixtures/openhands/clean-trajectory.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// Two calls of one model response (one turn), one of them truncated and never observed; a
/// failed command; an observation for a call the trajectory does not hold.
#[test]
fn broken_trajectory() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "concise",
        "fixtures/openhands/broken-trajectory.json",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// A record of a run: nothing to repair.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("openhands/broken-trajectory.json", "trajectory.json");
    assert_eq!(out.code, 1, "{}", out.transcript());
}
