//! OpenHands trajectories (V0) and V1 SDK event folders, end to end through the binary.

use crate::common;

use common::{root, toolcheck};

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

const V1_BROKEN: &str = "fixtures/openhands/v1-broken/5e6f708192a34b5c8d9eafb0c1d2e3f4";

/// A V1 conversation directory walked: its `events/` folder is one input (read in index
/// order, `event-NNNNN-<id>.json`), `base_state.json` is skipped and named; parallel calls
/// of one response, a state update that is no message: clean.
#[test]
fn v1_clean_folder_is_one_conversation() {
    let out = toolcheck(&["lint", "-v", "fixtures/openhands/v1-clean"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// The first SDK releases' `event-NNNNN.json` names: truncated arguments answered by an
/// `AgentErrorEvent`, an observation recorded after the user spoke, an error for a call the
/// log does not hold and a call the user moved on from (warnings: the SDK drops both before
/// sending), an observation recorded twice; each finding in its file.
#[test]
fn v1_broken_folder() {
    let out = toolcheck(&["lint", "--output-format", "concise", V1_BROKEN]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Naming one event file, or the `events` folder, reads the whole folder; a walk never
/// reports "0 files checked".
#[test]
fn v1_a_named_file_reads_its_folder() {
    let dir = format!("{V1_BROKEN}/events");
    for named in [
        format!("{dir}/event-00004.json"),
        dir.clone(),
        V1_BROKEN.to_string(),
    ] {
        let out = toolcheck(&["lint", "-v", "--output-format", "concise", &named]);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert!(
            out.stderr.contains(&format!(
                "checked {dir} (openhands): 1 conversation, 5 calls, 6 results"
            )),
            "{}",
            out.transcript()
        );
        assert_eq!(out.stdout.lines().filter(|l| l.contains(": TC")).count(), 5);
    }
}

/// Near misses: an `events` folder of other files is walked file by file, and a V1 event
/// file outside its folder is one event.
#[test]
fn v1_near_misses() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let events = tmp.path().join("events");
    std::fs::create_dir_all(&events).expect("mkdir");
    std::fs::write(events.join("click.json"), r#"{"type": "click", "x": 1}"#).expect("write");
    let out = toolcheck(&["lint", "-v", tmp.path().to_str().unwrap_or_default()]);
    assert!(out.stderr.contains("skipped"), "{}", out.transcript());
    let lone = tmp.path().join("action.json");
    std::fs::copy(
        root().join(V1_BROKEN).join("events/event-00004.json"),
        &lone,
    )
    .expect("copy");
    let out = toolcheck(&[
        "lint",
        "-v",
        "--output-format",
        "concise",
        lone.to_str().unwrap_or_default(),
    ]);
    assert!(
        out.stderr.contains("(openhands): 1 conversation, 1 call"),
        "{}",
        out.transcript()
    );
}

/// Findings only: no event file is touched.
#[test]
fn v1_fix_leaves_the_files_alone() {
    let before =
        std::fs::read(root().join(V1_BROKEN).join("events/event-00004.json")).expect("read");
    let tmp = tempfile::tempdir().expect("tempdir");
    let to = tmp.path().join("conv");
    for entry in common::walk(&root().join(V1_BROKEN)) {
        let rel = entry
            .strip_prefix(root().join(V1_BROKEN))
            .expect("inside")
            .to_path_buf();
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&entry, &target).expect("copy");
    }
    let out = toolcheck(&["fix", "--write", to.to_str().unwrap_or_default()]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(
        std::fs::read(to.join("events/event-00004.json")).expect("read"),
        before
    );
}
