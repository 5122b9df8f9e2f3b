//! Spring AI chat memory (`spring-ai`): Redis documents, their JSONL export, the Jackson dump
//! of the message objects, and spring-ai-session event rows.

use crate::common;

use common::{fix_write_twice, toolcheck};

const TOOLS: &str = "tests/data/spring-ai-tools.json";

#[test]
fn empty_arguments_are_reported_with_the_schema_from_tools() {
    // Gson leaves a null `arguments` out; Spring AI stores no tool definitions, so the
    // required parameter comes from `--tools`.
    let out = toolcheck(&[
        "lint",
        "fixtures/spring-ai/broken-empty-arguments.json",
        "--tools",
        TOOLS,
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn session_rows_are_read_inside_message_data() {
    // Null arguments, a loop of alike failures (plain-text `responseData`) and an orphaned
    // response, all located at the row's `message_data` string.
    let out = toolcheck(&[
        "lint",
        "fixtures/spring-ai/broken-session-events.json",
        "--tools",
        TOOLS,
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn a_memory_window_opening_on_a_tool_response_is_an_orphan_with_a_safe_fix() {
    let out = toolcheck(&["lint", "fixtures/spring-ai/broken-window.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let diff = toolcheck(&[
        "fix",
        "fixtures/spring-ai/broken-window.jsonl",
        "--color",
        "never",
    ]);
    insta::assert_snapshot!(diff.transcript());
}

#[test]
fn fix_write_then_nothing_left() {
    let (out, fixed) = fix_write_twice(
        "spring-ai",
        &["broken-window.jsonl", "broken-session-events.json"],
    );
    insta::assert_snapshot!(out.transcript());
    assert!(
        fixed[0].starts_with(r#"{"type":"ASSISTANT""#),
        "{}",
        fixed[0]
    );
    assert!(!fixed[1].contains("call_zz"), "{}", fixed[1]);
}

#[test]
fn clean_memory_is_recognised_and_does_not_fire() {
    for clean in [
        "clean-redis.json",
        "clean-redis-export.jsonl",
        "clean-session-events.json",
        "clean-jackson-dump.json",
    ] {
        let path = format!("fixtures/spring-ai/{clean}");
        let one = toolcheck(&["lint", &path, "--output-format", "json"]);
        assert_eq!(one.code, 0, "{clean}: {}", one.transcript());
        let forced = toolcheck(&["lint", &path, "--input-format", "spring-ai"]);
        assert_eq!(forced.code, 0, "{clean} forced: {}", forced.transcript());
    }
    // Other formats keep their files.
    let openai = toolcheck(&[
        "lint",
        "fixtures/openai-chat",
        "fixtures/anthropic",
        "fixtures/langchain",
        "--output-format",
        "json",
    ]);
    assert!(!openai.stdout.contains("spring-ai"), "{}", openai.stdout);
}
