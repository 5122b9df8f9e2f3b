//! Anthropic acceptance rules: mid-conversation system messages, content after `tool_use`
//! (TC501), and thinking blocks in a tool-use loop (TC502).

use crate::common;

use common::{toolcheck, toolcheck_stdin};

/// Concise findings for a body read from stdin as `name`, one per line (without the summary).
fn lint_body(name: &str, body: &str, extra: &[&str]) -> Vec<String> {
    common::lint_stdin_concise(name, body, extra)
        .stdout
        .lines()
        .filter(|l| l.starts_with(name))
        .map(|l| l.trim_start_matches(name).to_string())
        .collect()
}

#[test]
fn a_mid_conversation_system_message_is_read_as_anthropic() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/clean-mid-system.json",
        "fixtures/anthropic/broken-mid-system.json",
        "--output-format",
        "concise",
        "-v",
    ]);
    assert!(
        out.stderr
            .contains("checked fixtures/anthropic/clean-mid-system.json (anthropic)"),
        "{}",
        out.stderr
    );
    assert!(out
        .stderr
        .contains("checked fixtures/anthropic/broken-mid-system.json (anthropic)"));
    // The orphaned `tool_result` after the system message is found (it was an OpenAI
    // request with no tool messages before).
    assert!(out.stdout.contains(
        "fixtures/anthropic/broken-mid-system.json:24:7: TC101 [orphaned-tool-result] tool result for \"toolu_01Ms2b\""
    ));
    assert_eq!(out.stdout.matches(": TC").count(), 1, "{}", out.stdout);
}

#[test]
fn a_system_message_alone_is_still_openai() {
    let body = r#"{"messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"}
    ]}"#;
    let out = toolcheck_stdin(&["lint", "-", "--stdin-filename", "body.json", "-v"], body);
    assert!(out.stderr.contains("(openai-chat)"), "{}", out.stderr);
}

#[test]
fn content_after_tool_use_fires_on_trailing_content_only() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/broken-content-after-tool-use.json",
        "fixtures/anthropic/clean-text-before-tool-use.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.stdout.matches("TC501").count(), 2, "{}", out.stdout);
    assert!(out.stdout.contains(
        "broken-content-after-tool-use.json:23:7: TC501 [content-after-tool-use] content follows tool call \"toolu_01Ca2y\" to `search_docs` in the same assistant message (this block and 1 more block after it)"
    ));
    assert!(!out.stdout.contains("clean-text-before-tool-use.json"));
}

#[test]
fn server_tool_blocks_after_tool_use_fire_but_before_it_do_not() {
    let body = r#"{"messages": [
        {"role": "user", "content": "Search and save."},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "save", "input": {}},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}
    ]}"#;
    assert_eq!(
        lint_body("body.json", body, &[]),
        [":5:13: TC501 [content-after-tool-use] content follows tool call \"toolu_1\" to `save` in the same assistant message (this block and 1 more block after it); `tool_use` blocks must end their message"]
    );
    // The clean Anthropic fixture has server blocks before its `tool_use`: not reported.
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/clean-request.json",
        "--select",
        "TC501",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn openai_text_with_tool_calls_is_not_content_after_tool_use_under_target_anthropic() {
    // Translators put an OpenAI message's `content` before its `tool_calls`.
    let body = r#"{"messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}
    ]}"#;
    assert!(lint_body("body.json", body, &["--target", "anthropic"]).is_empty());
}

#[test]
fn content_after_tool_use_depends_on_the_target() {
    let file = "fixtures/anthropic/broken-content-after-tool-use.json";
    let out = toolcheck(&["lint", file, "--target", "openai", "--select", "TC501"]);
    assert_eq!(
        out.code, 0,
        "OpenAI is not known to reject it: {}",
        out.stdout
    );
    let out = toolcheck(&[
        "lint",
        file,
        "--target",
        "bedrock",
        "--select",
        "TC501",
        "--output-format",
        "json",
    ]);
    let findings: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(findings.len(), 2);
    assert!(findings
        .iter()
        .all(|f| f["severity"] == "error" && f["providers"] == serde_json::json!(["bedrock"])));
}

#[test]
fn content_after_tool_use_fix_moves_it_before_the_first_tool_use_only_when_unsafe() {
    let file = "fixtures/anthropic/broken-content-after-tool-use.json";
    let safe = toolcheck(&["fix", file, "--select", "TC501", "--color", "never"]);
    assert!(!safe.stdout.contains("@@"), "{}", safe.stdout);
    let out = toolcheck(&[
        "fix",
        file,
        "--select",
        "TC501",
        "--unsafe-fixes",
        "--color",
        "never",
    ]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn missing_thinking_block_fires_only_when_thinking_is_enabled_and_dropped() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/broken-thinking-dropped.json",
        "fixtures/anthropic/clean-thinking-kept.json",
        "fixtures/anthropic/clean-thinking-off.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(
        out.stdout.lines().filter(|l| l.contains(": TC")).collect::<Vec<_>>(),
        ["fixtures/anthropic/broken-thinking-dropped.json:15:7: TC502 [missing-thinking-block] the request enables thinking, and the conversation continues a tool-use loop, but its last assistant turn starts with tool call \"toolu_01Th1a\" to `get_weather`, not a `thinking` or `redacted_thinking` block"]
    );
}

/// A thinking-enabled request whose assistant turns start with `first` (the earlier one) and
/// `last`, ending with `end`.
fn thinking_body(thinking: &str, first: &str, last: &str, end: &str) -> String {
    format!(
        r#"{{"thinking": {thinking}, "messages": [
  {{"role": "user", "content": "Go."}},
  {{"role": "assistant", "content": [{first}{{"type": "tool_use", "id": "toolu_1", "name": "run", "input": {{}}}}]}},
  {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}}]}},
  {{"role": "assistant", "content": [{last}{{"type": "tool_use", "id": "toolu_2", "name": "run", "input": {{}}}}]}},
  {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}}]}}{end}
]}}"#
    )
}

#[test]
fn missing_thinking_block_checks_only_the_last_assistant_turn_of_the_loop() {
    let enabled = r#"{"type": "enabled", "budget_tokens": 2048}"#;
    let thinking = r#"{"type": "thinking", "thinking": "t", "signature": "s"}, "#;
    let text = r#"{"type": "text", "text": "Next."}, "#;
    let lint = |body: String| lint_body("body.json", &body, &["--select", "TC502"]);
    // The earlier turn lost its thinking block: the provider does not check it.
    assert!(lint(thinking_body(enabled, "", thinking, "")).is_empty());
    // The last one did.
    assert_eq!(lint(thinking_body(enabled, thinking, "", "")).len(), 1);
    // Text first is not a thinking block either.
    let found = lint(thinking_body(enabled, thinking, text, ""));
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("starts with other content"), "{found:?}");
    // A trailing mid-conversation system message does not end the loop.
    let system = r#", {"role": "system", "content": "Be brief."}"#;
    assert_eq!(lint(thinking_body(enabled, thinking, "", system)).len(), 1);
    // A finished loop (the model answered, the user asks again) is not checked.
    let answered =
        r#", {"role": "assistant", "content": "Done."}, {"role": "user", "content": "Thanks."}"#;
    assert!(lint(thinking_body(enabled, "", "", answered)).is_empty());
    // Adaptive thinking may skip thinking; disabled thinking needs none.
    assert!(lint(thinking_body(r#"{"type": "adaptive"}"#, "", "", "")).is_empty());
    assert!(lint(thinking_body(r#"{"type": "disabled"}"#, "", "", "")).is_empty());
}

#[test]
fn new_rules_are_documented_with_the_provider_error() {
    let tc501 = toolcheck(&["explain", "content-after-tool-use"]).stdout;
    assert!(tc501.contains("`tool_use` ids were found without `tool_result` blocks immediately"));
    assert!(tc501.contains("Unsafe"));
    let tc502 = toolcheck(&["explain", "TC502"]).stdout;
    assert!(tc502.contains("Expected `thinking` or `redacted_thinking`, but found"));
    // Anthropic's thinking blocks are signed: no stand-in is offered for them.
    assert!(
        tc502.contains("None for Anthropic thinking\nblocks"),
        "{tc502}"
    );
}
