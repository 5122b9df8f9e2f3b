//! Severity by what the agent sends on resume: one Claude Code session stopped while a tool
//! ran, as each version range of its replay model resumes it, and the JSON that says so.

use crate::common;

use common::toolcheck_in;

/// A session killed while `Bash` ran: the user prompt, the assistant's call, nothing after.
fn session(version: Option<&str>) -> String {
    let v = version
        .map(|v| format!(r#","version":"{v}""#))
        .unwrap_or_default();
    [
        format!(
            r#"{{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/w"{v},"message":{{"role":"user","content":"run the tests"}}}}"#
        ),
        format!(
            r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","cwd":"/w"{v},"message":{{"id":"msg_1","role":"assistant","content":[{{"type":"tool_use","id":"toolu_1","name":"Bash","input":{{"command":"cargo test"}}}}]}}}}"#
        ),
    ]
    .join("\n")
        + "\n"
}

fn lint(version: Option<&str>, format: &str) -> common::Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("session.jsonl"), session(version)).expect("written");
    toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "session.jsonl",
            "--output-format",
            format,
        ],
        None,
    )
}

#[test]
fn each_version_range_is_judged_by_what_it_sends() {
    let mut seen = Vec::new();
    for (version, errors) in [
        (Some("1.0.61"), 1),
        (Some("2.1.100"), 0),
        (Some("2.1.332"), 0),
        (Some("3.0.0"), 0),
        (None, 1),
    ] {
        let out = lint(version, "concise");
        let summary = format!("({errors} error");
        assert!(
            out.stdout.contains(&summary),
            "{version:?}: {}",
            out.transcript()
        );
        seen.push(format!("{version:?}:\n{}", out.stdout));
    }
    insta::assert_snapshot!(seen.join("\n"));
}

#[test]
fn json_says_what_the_agent_sends_instead() {
    let out = lint(Some("2.1.332"), "json");
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let replay = &json[0]["replay"];
    assert_eq!(replay["agent"], "claude-code");
    assert_eq!(replay["version"], "2.1.332");
    assert_eq!(replay["action"], "answers");
    assert_eq!(replay["since"], "2.1.281");
    assert!(
        replay["placeholder"]
            .as_str()
            .is_some_and(|p| p.starts_with("[Tool call interrupted")),
        "{replay}"
    );
    assert_eq!(json[0]["severity"], "warning");
}

/// A pi session records only its file format's version: that is never shown as pi's own.
#[test]
fn a_format_version_is_not_shown_as_the_agents() {
    let fixture = common::root().join("fixtures/pi/broken-unanswered-call.jsonl");
    let fixture = fixture.to_str().expect("a UTF-8 path");
    let out = toolcheck_in(
        &common::root(),
        &["lint", "--no-config", fixture, "--output-format", "json"],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let replay = &json[0]["replay"];
    assert_eq!(replay["agent"], "pi", "{}", out.transcript());
    assert_eq!(replay["format_version"], "3");
    assert!(replay.get("version").is_none(), "{replay}");
}
