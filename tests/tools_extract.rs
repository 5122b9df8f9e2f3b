//! `toolcheck tools extract`: the tool definitions in logs and traces, as a `--tools` file
//! that round-trips: the schemas extracted check a log that records none.

use crate::common;

use common::{toolcheck, toolcheck_in};

#[test]
fn extracts_a_requests_tools_as_a_tools_file() {
    let out = toolcheck(&[
        "tools",
        "extract",
        "fixtures/openai-chat/clean-request.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn the_extracted_file_checks_a_log_without_definitions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = toolcheck(&[
        "tools",
        "extract",
        "fixtures/openai-chat/clean-request.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    std::fs::write(dir.path().join("tools.json"), &out.stdout).expect("write");
    // A bare message list (no `tools`) calling `get_weather` without its required `city`.
    let log = r#"[
  {"role": "user", "content": "weather?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"town\": \"Oslo\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
  {"role": "assistant", "content": "Sunny."}
]"#;
    std::fs::write(dir.path().join("log.json"), log).expect("write");
    let without = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--output-format",
            "concise",
            "log.json",
        ],
        None,
    );
    assert_eq!(without.code, 0, "{}", without.transcript());
    let with = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--output-format",
            "concise",
            "--tools",
            "tools.json",
            "log.json",
        ],
        None,
    );
    assert_eq!(with.code, 1, "{}", with.transcript());
    assert!(with.stdout.contains("get_weather"), "{}", with.transcript());
    // The definitions themselves lint clean against their own extract.
    let same = toolcheck(&[
        "lint",
        "--no-config",
        "--quiet",
        "--tools",
        &dir.path().join("tools.json").to_string_lossy(),
        "fixtures/openai-chat/clean-request.json",
    ]);
    assert_eq!(same.code, 0, "{}", same.transcript());
}

#[test]
fn gemini_declarations_keep_their_shape_and_conflicts_are_said() {
    let out = toolcheck(&["tools", "extract", "fixtures/gemini/clean-request.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stdout.contains("functionDeclarations"),
        "{}",
        out.stdout
    );
    let mixed = toolcheck(&["tools", "extract", "fixtures/openai-chat"]);
    assert_eq!(mixed.code, 0, "{}", mixed.transcript());
    assert!(
        mixed.stderr.contains("is defined differently in"),
        "{}",
        mixed.stderr
    );
}

#[test]
fn nothing_found_is_an_error() {
    let out = toolcheck(&[
        "tools",
        "extract",
        "fixtures/claude-code/clean-session.jsonl",
    ]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr.contains("no tool definitions found"),
        "{}",
        out.stderr
    );
    let stdin = toolcheck(&["tools", "extract", "-"]);
    assert_eq!(stdin.code, 2, "{}", stdin.transcript());
}

#[test]
fn one_strict_flag_dropped_is_said_in_the_singular() {
    let out = toolcheck(&[
        "tools",
        "extract",
        "fixtures/openai-responses/clean-request.json",
        "fixtures/gemini/clean-request.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr
            .contains("warning: 1 OpenAI `strict` flag dropped: the definitions"),
        "{}",
        out.stderr
    );
}
