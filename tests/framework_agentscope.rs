//! AgentScope (`agentscope`): 1.x `JSONSession` files, 2.x `AgentState` JSON and Java
//! `memory_messages.jsonl`.

use crate::common;

use common::{fix_write_twice, toolcheck};

#[test]
fn a_half_streamed_raw_input_is_truncated_json_at_raw_input() {
    // AgentScope repaired `input` to {"query": "hello wor"}; `raw_input` keeps what the
    // model sent, and that is where the finding points. No fix rewrites it.
    let out = toolcheck(&[
        "lint",
        "fixtures/agentscope/broken-truncated-raw-input.json",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let json = toolcheck(&[
        "lint",
        "fixtures/agentscope/broken-truncated-raw-input.json",
        "--output-format",
        "json",
    ]);
    assert!(
        json.stdout
            .contains(r#""pointer": "/assistant/memory/content/1/0/content/0/raw_input""#),
        "{}",
        json.stdout
    );
}

#[test]
fn an_interrupted_call_and_a_stray_result() {
    let out = toolcheck(&[
        "lint",
        "fixtures/agentscope/broken-interrupted.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn agent_state_2x_and_java_memory_messages() {
    // 2.x: truncated string `input` (its unsafe fix replaces it), a stray result inside the
    // assistant message. Java: a loop of `[ERROR]` results, and a call left unanswered whose
    // raw streamed `content` is cut off.
    let out = toolcheck(&[
        "lint",
        "fixtures/agentscope/broken-agent-state.json",
        "fixtures/agentscope/broken-memory-messages.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let diff = toolcheck(&[
        "fix",
        "fixtures/agentscope/broken-agent-state.json",
        "fixtures/agentscope/broken-memory-messages.jsonl",
        "--unsafe-fixes",
        "--color",
        "never",
    ]);
    insta::assert_snapshot!(diff.transcript());
}

#[test]
fn fix_write_then_nothing_left() {
    let (out, fixed) = fix_write_twice("agentscope", &["broken-interrupted.json"]);
    insta::assert_snapshot!(out.transcript());
    assert!(!fixed[0].contains("call_x00"), "{}", fixed[0]);
    assert!(
        fixed[0].contains(r#"[{"id": "toolcheck-call_c42""#),
        "{}",
        fixed[0]
    );
}

#[test]
fn clean_sessions_are_recognised_and_do_not_fire() {
    for clean in [
        "clean-json-session.json",
        "clean-agent-state.json",
        "clean-memory-messages.jsonl",
    ] {
        let path = format!("fixtures/agentscope/{clean}");
        let one = toolcheck(&["lint", &path, "--output-format", "json"]);
        assert_eq!(one.code, 0, "{clean}: {}", one.transcript());
        let forced = toolcheck(&["lint", &path, "--input-format", "agentscope"]);
        assert_eq!(forced.code, 0, "{clean} forced: {}", forced.transcript());
        let verbose = toolcheck(&["lint", "-v", &path]);
        assert!(
            verbose.stderr.contains("agentscope"),
            "{clean}: {}",
            verbose.stderr
        );
    }
    // Anthropic requests with `tool_use` blocks stay Anthropic's.
    let other = toolcheck(&[
        "lint",
        "fixtures/anthropic",
        "fixtures/openai-chat",
        "fixtures/langchain",
        "fixtures/spring-ai",
        "--output-format",
        "json",
    ]);
    assert!(!other.stdout.contains("\"agentscope\""), "{}", other.stdout);
}

/// A werewolf player's memory opens with the moderator's and other players' assistant
/// messages. AgentScope's multi-agent formatters fold every message without tool blocks into a
/// user `<history>` message, so the provider sees a user turn before the player's call: no
/// `call-turn-out-of-place`, whatever the target. The same memory with one agent only is sent
/// as it stands, and its call turn does open the history after assistant text.
#[test]
fn a_multi_agent_memory_is_read_as_the_formatter_sends_it() {
    let file = "fixtures/agentscope/clean-multi-agent-memory.json";
    let multi = toolcheck(&[
        "lint",
        file,
        "--target",
        "gemini",
        "--output-format",
        "concise",
    ]);
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let single = text
        .replace("\"Moderator\"", "\"Player2\"")
        .replace("\"Player4\"", "\"Player2\"");
    let one = common::toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "single-agent.json",
            "--input-format",
            "agentscope",
            "--target",
            "gemini",
            "--output-format",
            "concise",
        ],
        &single,
    );
    assert_eq!(one.code, 1, "{}", one.stderr);
    insta::assert_snapshot!(format!(
        "multi-agent:\n{}\nsingle agent:\n{}",
        multi.stdout, one.stdout
    ));
}
