//! Rejections of 2026 (issue 40): each shape a provider rejects gets its finding at the
//! severity the evidence supports, and each shape it accepts gets none.

use crate::common;

use common::{concise_case, lint_stdin_concise as lint_body, toolcheck_stdin};

/// The concise lines naming `code`.
fn lines_with(out: &common::Output, code: &str) -> Vec<String> {
    out.stdout
        .lines()
        .filter(|l| l.contains(code))
        .map(str::to_string)
        .collect()
}

#[test]
fn server_tool_use_without_its_result_is_rejected_unless_its_message_is_last() {
    let snapshot = [
        concise_case(
            "fixtures/anthropic/broken-unanswered-server-tool-use.json",
            &[],
        ),
        concise_case("fixtures/anthropic/clean-paused-server-tool-use.json", &[]),
    ]
    .join("\n");
    insta::assert_snapshot!(snapshot);
}

#[test]
fn server_tool_result_without_its_call_is_rejected() {
    let body = r#"{"model": "claude-sonnet-4-5", "max_tokens": 64,
      "messages": [
        {"role": "user", "content": "Search it."},
        {"role": "assistant", "content": [
          {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
          {"type": "text", "text": "Nothing found."}]},
        {"role": "user", "content": "Thanks"}]}"#;
    let out = lint_body("orphan.json", body, &[]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(
        lines_with(&out, "TC107"),
        ["orphan.json:5:11: TC107 [unanswered-server-tool-use] server tool result for \"srvtoolu_01\" has no server tool call before it"],
        "{}",
        out.transcript()
    );
    let answered = body.replace(
        r#"{"type": "web_search_tool_result""#,
        r#"{"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "q"}},
          {"type": "web_search_tool_result""#,
    );
    let out = lint_body("answered.json", &answered, &[]);
    assert_eq!(out.code, 0, "{}", out.transcript());
}

#[test]
fn mistral_rejects_a_system_message_after_the_conversation_began() {
    let file = "fixtures/openai-chat/broken-mistral-system-order.json";
    let snapshot = [
        concise_case(file, &[]),
        // Other OpenAI-compatible endpoints accept it.
        concise_case(file, &["--target", "openai"]),
    ]
    .join("\n");
    insta::assert_snapshot!(snapshot);
    // The unsafe fix moves the system message up, every byte kept.
    let text = std::fs::read_to_string(common::root().join(file)).expect("fixture");
    let out = toolcheck_stdin(
        &[
            "fix",
            "-",
            "--stdin-filename",
            "order.json",
            "--unsafe-fixes",
            "--select",
            "TC513",
            "--diff",
        ],
        &text,
    );
    assert!(
        out.stdout.contains("+  {\"role\": \"system\", \"content\": \"Budget: 2 tool calls left.\"},\n   {\"role\": \"user\", \"content\": \"Tag the release.\"},"),
        "{}",
        out.transcript()
    );
}

#[test]
fn gemini_schema_types_written_as_protobuf_enum_numbers_are_read() {
    // Vertex AI answered HTTP 200 to `"type": 6` (OBJECT) and `1` (STRING): protobuf's JSON
    // mapping allows an enum's number.
    let body = r#"{"contents": [
        {"role": "user", "parts": [{"text": "Find the order."}]},
        {"role": "model", "parts": [{"functionCall": {"name": "find_order", "args": {"id": "A-17"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "find_order", "response": {"status": "shipped"}}}]}],
      "tools": [{"functionDeclarations": [{"name": "find_order", "description": "Look up an order.",
        "parameters": {"type": 6, "properties": {"id": {"type": 1}}, "required": ["id"]}}]}]}"#;
    let out = lint_body("vertex.json", body, &["--target", "gemini-vertex"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    // The numbers are types, not ignored: a number where a string is declared is reported.
    let wrong = body.replace(r#""id": "A-17""#, r#""id": 17"#);
    let out = lint_body("vertex.json", &wrong, &["--target", "gemini-vertex"]);
    assert_eq!(lines_with(&out, "TC301").len(), 1, "{}", out.transcript());
    // A root that is a number other than OBJECT is still not an object schema.
    let string_root = body.replace(r#""type": 6"#, r#""type": 1"#);
    let out = lint_body("vertex.json", &string_root, &["--target", "gemini-vertex"]);
    let found = lines_with(&out, "TC303");
    assert_eq!(found.len(), 1, "{}", out.transcript());
    assert!(found[0].contains("root type \"string\""), "{}", found[0]);
}

#[test]
fn an_invalid_tool_use_id_is_reported_in_a_claude_code_session() {
    let text =
        std::fs::read_to_string(common::root().join("fixtures/claude-code/clean-session.jsonl"))
            .expect("fixture");
    let id = text
        .split('"')
        .find(|s| s.starts_with("toolu_"))
        .expect("the session makes a call")
        .to_string();
    for bad in ["toolu.bad:1", ""] {
        let session = text.replace(&id, bad);
        let out = lint_body("session.jsonl", &session, &[]);
        let found = lines_with(&out, "TC106");
        assert_eq!(found.len(), 1, "{bad:?}: {}", out.transcript());
        assert!(
            found[0].contains("rejected by anthropic (must match ^[a-zA-Z0-9_-]+$)"),
            "{}",
            found[0]
        );
    }
}

#[test]
fn openai_chat_requires_ids_on_calls_and_tool_messages() {
    let body = r#"{"model": "gpt-4.1", "messages": [
  {"role": "user", "content": "Weather in Paris?"},
  {"role": "assistant", "content": null, "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
  {"role": "tool", "content": "18C"}
]}"#;
    let out = lint_body("idless.json", body, &[]);
    assert_eq!(
        lines_with(&out, "TC106"),
        [
            "idless.json:3:57: TC106 [invalid-tool-call-id] tool call has no `id`; OpenAI requires one on every `tool_calls` entry",
            "idless.json:4:3: TC106 [invalid-tool-call-id] tool message has no `tool_call_id` (\"Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.\")",
        ],
        "{}",
        out.transcript()
    );
    // Ollama's own shape pairs by name: object arguments, results named by `tool_name`.
    common::assert_lints_clean("fixtures/openai-chat/clean-ollama.json", &[]);
    // With both ids the pair is whole.
    let whole = body
        .replace(
            r#"[{"type": "function""#,
            r#"[{"id": "call_1", "type": "function""#,
        )
        .replace(
            r#"{"role": "tool", "content""#,
            r#"{"role": "tool", "tool_call_id": "call_1", "content""#,
        );
    let out = lint_body("ids.json", &whole, &[]);
    assert_eq!(out.code, 0, "{}", out.transcript());
}

#[test]
fn openai_responses_rejects_a_function_call_with_an_empty_name() {
    let body = r#"{"model": "gpt-5", "input": [
  {"role": "user", "content": "List the files."},
  {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "", "arguments": "{}"},
  {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}
]}"#;
    let out = lint_body("empty-name.json", body, &[]);
    let found = lines_with(&out, "TC304");
    assert_eq!(found.len(), 1, "{}", out.transcript());
    assert!(
        found[0]
            .contains("called tool name \"\" is rejected by openai-responses (must not be empty)"),
        "{}",
        found[0]
    );
    assert!(out.stdout.contains("1 error"), "{}", out.transcript());
}

#[test]
fn minimax_and_dashscope_are_targets_named_by_the_request_model() {
    let qwen = r#"{"model": "qwen-flash", "messages": [
  {"role": "user", "content": "What color is the sky?"},
  {"role": "assistant", "content": "Blue.", "tool_calls": []},
  {"role": "user", "content": "And at night?"}
]}"#;
    let out = lint_body("qwen.json", qwen, &[]);
    assert_eq!(
        lines_with(&out, "TC508"),
        ["qwen.json:3:59: TC508 [empty-assistant-message] assistant message has an empty `tool_calls` array, which dashscope rejects (\"Empty tool_calls is not supported in message.\") (held to dashscope: the request's model is `qwen-flash`)"],
        "{}",
        out.transcript()
    );
    // `qwen` is DashScope's alias; a local runtime's `name:tag` names no provider.
    let out = lint_body("qwen.json", qwen, &["--target", "qwen"]);
    assert_eq!(lines_with(&out, "TC508").len(), 1, "{}", out.transcript());
    let local = qwen.replace("qwen-flash", "qwen3:8b");
    let out = lint_body("local.json", &local, &[]);
    assert!(!out.stdout.contains("dashscope"), "{}", out.transcript());
    let minimax = r#"{"model": "MiniMax-M2.7", "messages": [
  {"role": "user", "content": "Search it"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_function_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"hel"}}]},
  {"role": "tool", "tool_call_id": "call_function_1", "content": "none"}
]}"#;
    let out = lint_body("minimax.json", minimax, &[]);
    let found = lines_with(&out, "TC201");
    assert_eq!(found.len(), 1, "{}", out.transcript());
    assert!(
        found[0].ends_with("(held to minimax: the request's model is `MiniMax-M2.7`)"),
        "{}",
        found[0]
    );
    let rules = common::toolcheck(&["rules", "--target", "minimax"]);
    assert!(rules.stdout.contains("TC201"), "{}", rules.transcript());
}

#[test]
fn reasoning_stand_ins_are_unsafe_fixes_the_provider_then_accepts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = [
        "fixtures/openai-chat/broken-deepseek-reasoning-content.json",
        "fixtures/gemini/broken-thought-signature.json",
        "fixtures/openai-responses/broken-reasoning-without-output.json",
    ];
    for file in files {
        let name = file.rsplit('/').next().expect("a file name");
        std::fs::copy(common::root().join(file), dir.path().join(name)).expect("copy");
    }
    let diff = common::toolcheck_in(dir.path(), &["fix", ".", "--unsafe-fixes"], None);
    insta::assert_snapshot!(diff.transcript());
    // Without --unsafe-fixes nothing is offered as safe.
    let safe = common::toolcheck_in(dir.path(), &["fix", "."], None);
    assert!(!safe.stdout.contains("+++"), "{}", safe.transcript());
    let write = common::toolcheck_in(dir.path(), &["fix", ".", "--unsafe-fixes", "--write"], None);
    assert_eq!(write.code, 0, "{}", write.transcript());
    let after = common::lint_concise(dir.path(), ".");
    assert_eq!(after.code, 0, "{}", after.transcript());
}

/// Bedrock Converse rejects user text in the message that carries tool results
/// (`content-beside-tool-result`): in a Converse request, and in an Anthropic request or a
/// Chat history (a `tool` message then a `user` one) sent to Bedrock, where the translation
/// merges them. Anthropic's own API takes the same Anthropic request.
#[test]
fn bedrock_rejects_user_text_beside_tool_results() {
    let anthropic = r#"{"model": "claude-sonnet-4-5", "max_tokens": 64,
      "tools": [{"name": "deploy_log", "input_schema": {"type": "object"}}],
      "messages": [
        {"role": "user", "content": "Why did errors jump?"},
        {"role": "assistant", "content": [
          {"type": "tool_use", "id": "toolu_01", "name": "deploy_log", "input": {}}]},
        {"role": "user", "content": [
          {"type": "tool_result", "tool_use_id": "toolu_01", "content": "v2.41 rolled out"},
          {"type": "text", "text": "Was it that rollout?"}]}]}"#;
    let snapshot = [
        concise_case(
            "fixtures/bedrock-converse/broken-text-beside-tool-result.json",
            &[],
        ),
        concise_case(
            "fixtures/openai-chat/mistral-tool-then-user.json",
            &["--target", "bedrock"],
        ),
    ]
    .join("\n");
    insta::assert_snapshot!(snapshot);
    let native = lint_body("request.json", anthropic, &[]);
    assert_eq!(native.code, 0, "{}", native.transcript());
    let sent_to_bedrock = lint_body("request.json", anthropic, &["--target", "bedrock"]);
    assert_eq!(
        lines_with(&sent_to_bedrock, "TC515").len(),
        1,
        "{}",
        sent_to_bedrock.transcript()
    );
    // An assistant message between the results and the text: accepted.
    let bridged = anthropic.replace(
        r#"{"type": "text", "text": "Was it that rollout?"}]}]}"#,
        r#"]}, {"role": "assistant", "content": "It was."},
        {"role": "user", "content": "Thanks"}]}"#,
    );
    let bridged = bridged.replace(r#""v2.41 rolled out"},"#, r#""v2.41 rolled out"}"#);
    let out = lint_body("bridged.json", &bridged, &["--target", "bedrock"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
}

/// DeepSeek rejects anything between a call and its result: Chat Completions a message
/// between the assistant's calls and the `tool` messages, its `/responses` a message or a
/// reasoning item between a `function_call` and its output, which OpenAI's Responses API
/// pairs by `call_id` wherever it comes. The safe fix moves the output next to its call.
#[test]
fn deepseek_rejects_an_item_between_a_call_and_its_output() {
    let file = "fixtures/openai-responses/broken-deepseek-message-between.json";
    let chat = r#"{"model": "deepseek-chat",
      "tools": [{"type": "function", "function": {"name": "shell", "parameters": {"type": "object"}}}],
      "messages": [
        {"role": "user", "content": "Run it"},
        {"role": "assistant", "tool_calls": [{"id": "call_00_a", "type": "function",
          "function": {"name": "shell", "arguments": "{}"}}]},
        {"role": "system", "content": "Shellcheck found potential issues"},
        {"role": "tool", "tool_call_id": "call_00_a", "content": "ran"}]}"#;
    let chat_out = lint_body("chat.json", chat, &[]);
    let snapshot = [
        concise_case(file, &[]),
        concise_case(file, &["--target", "openai-responses"]),
        format!("$ toolcheck lint chat.json\n{}", chat_out.transcript()),
    ]
    .join("\n");
    insta::assert_snapshot!(snapshot);
    let (_, fixed) = common::fix_write_round_trip(
        "openai-responses/broken-deepseek-message-between.json",
        "request.json",
        &[],
        &[],
    );
    let output = fixed.find("function_call_output").unwrap_or(usize::MAX);
    let developer = fixed.find("\"developer\"").unwrap_or(0);
    assert!(
        output < developer,
        "the output now precedes the message:\n{fixed}"
    );
}
