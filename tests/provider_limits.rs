//! Provider limits and message shapes (issue 24 §2): too many tools, over-long Responses
//! call ids, empty assistant messages, Bedrock role alternation, ids rewritten on one side;
//! and fixes that never leave an empty message behind.
//! Each case pairs a rejected fixture with an accepted control.

use crate::common;

use common::{assert_lints_clean, concise_case, toolcheck_stdin};

/// OpenAI takes at most 128 tools, Gemini 512 function declarations in one list: one more is
/// an error naming the provider; exactly the limit is accepted, and a provider without the
/// limit does not mind.
#[test]
fn too_many_tools_per_provider() {
    let mut report = String::new();
    report.push_str(&concise_case(
        "fixtures/openai-chat/broken-too-many-tools.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/gemini/broken-too-many-declarations.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/openai-chat/broken-too-many-tools.json",
        &["--target", "openai-responses,gemini"],
    ));
    insta::assert_snapshot!(report);
    assert_lints_clean("fixtures/openai-chat/clean-128-tools.json", &[]);
    assert_lints_clean("fixtures/gemini/clean-512-declarations.json", &[]);
    assert_lints_clean(
        "fixtures/openai-chat/broken-too-many-tools.json",
        &["--target", "anthropic"],
    );
}

/// A Responses `call_id` longer than 64 characters is rejected; 64 is accepted.
#[test]
fn responses_call_id_longer_than_64() {
    let report = concise_case("fixtures/openai-responses/broken-long-call-id.json", &[]);
    insta::assert_snapshot!(report);
    assert_lints_clean("fixtures/openai-responses/clean-64-char-call-id.json", &[]);
}

/// `tool_calls: []` is an OpenAI error that Mistral accepts; an assistant message with
/// neither content nor calls is a DeepSeek (and Mistral) error that OpenAI is not known to
/// reject.
#[test]
fn empty_assistant_messages_per_provider() {
    let mut report = String::new();
    report.push_str(&concise_case(
        "fixtures/openai-chat/broken-empty-tool-calls.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/openai-chat/deepseek-contentless-assistant.json",
        &["--target", "deepseek", "--select", "TC508"],
    ));
    insta::assert_snapshot!(report);
    assert_lints_clean(
        "fixtures/openai-chat/broken-empty-tool-calls.json",
        &["--target", "mistral"],
    );
    assert_lints_clean(
        "fixtures/openai-chat/deepseek-contentless-assistant.json",
        &["--target", "openai", "--select", "TC508"],
    );
    assert_lints_clean(
        "fixtures/openai-chat/clean-deepseek-answered.json",
        &["--target", "deepseek"],
    );
}

fn fix_write(name: &str, text: &str, extra: &[&str]) -> String {
    let mut args = vec!["fix", "-", "--stdin-filename", name, "--write"];
    args.extend_from_slice(extra);
    let out = toolcheck_stdin(&args, text);
    assert_ne!(out.code, 2, "{}", out.transcript());
    out.stdout
}

/// Removing every unanswered call of a message one round at a time: the last removal takes
/// the message with it, so no `tool_calls: []` or empty assistant message is left.
#[test]
fn remove_call_never_leaves_an_empty_call_list() {
    let two = format!(
        r#"[{{"role": "user", "content": "go"}}, {{"role": "assistant", "content": null, "tool_calls": [{}, {}]}}, {{"role": "user", "content": "next"}}]"#,
        chat_call("c1"),
        chat_call("c2")
    );
    let fixed = fix_write(
        "r.json",
        &two,
        &["--unpaired", "remove-call", "--unsafe-fixes"],
    );
    assert_eq!(
        fixed,
        r#"[{"role": "user", "content": "go"}, {"role": "user", "content": "next"}]"#
    );
}

fn chat_call(id: &str) -> String {
    format!(
        r#"{{"id": "{id}", "type": "function", "function": {{"name": "f", "arguments": "{{}}"}}}}"#
    )
}

/// Removing calls never splits a parallel batch: with one call of three answered, the
/// others are answered with inserted error results instead of removed, and the fix says so.
#[test]
fn remove_call_never_splits_a_parallel_batch() {
    let answered = format!(
        r#"[{{"role": "user", "content": "go"}}, {{"role": "assistant", "content": null, "tool_calls": [{}, {}, {}]}}, {{"role": "tool", "tool_call_id": "c2", "content": "ok"}}, {{"role": "user", "content": "next"}}]"#,
        chat_call("c1"),
        chat_call("c2"),
        chat_call("c3")
    );
    let args = ["--unpaired", "remove-call", "--unsafe-fixes"];
    let fixed = fix_write("r.json", &answered, &args);
    assert!(
        fixed.contains(&format!(
            r#""tool_calls": [{}, {}, {}]"#,
            chat_call("c1"),
            chat_call("c2"),
            chat_call("c3")
        )),
        "{fixed}"
    );
    for id in ["c1", "c3"] {
        assert!(
            fixed.contains(&format!(r#""tool_call_id": "{id}""#)),
            "{fixed}"
        );
    }
    let lint = ["lint", "-", "--stdin-filename", "r.json"];
    let out = toolcheck_stdin(
        &[
            "fix",
            "-",
            "--stdin-filename",
            "r.json",
            "--unpaired",
            "remove-call",
            "--output-format",
            "json",
        ],
        &answered,
    );
    assert!(
        out.stdout.contains(
            "removing the call would split a parallel batch whose other calls were answered"
        ),
        "{}",
        out.transcript()
    );
    // The inserted results are placeholders themselves (`invented-tool-result`).
    let lint = [lint.as_slice(), &["--ignore", "invented-tool-result"]].concat();
    assert_eq!(toolcheck_stdin(&lint, &fixed).code, 0, "{fixed}");
}

/// Removing calls never splits a thinking-signed tool loop (Anthropic requires the loop
/// passed back whole) nor leaves a Responses reasoning item without what followed it: such
/// calls are answered instead, and the repaired history lints clean.
#[test]
fn remove_call_keeps_reasoning_turns_whole() {
    let args = ["--unpaired", "remove-call", "--unsafe-fixes"];
    let anthropic = r#"{"model": "claude-sonnet-4-5", "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 2048}, "messages": [{"role": "user", "content": "Check c."}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "Read c.", "signature": "sig"}, {"type": "tool_use", "id": "toolu_c", "name": "read", "input": {"p": "c"}}]}, {"role": "user", "content": "Stop, summarise."}]}"#;
    let fixed = fix_write("a.json", anthropic, &args);
    assert!(
        fixed.contains(r#"{"type": "thinking", "thinking": "Read c.", "signature": "sig"}, {"type": "tool_use", "id": "toolu_c""#)
            && fixed.contains(r#""tool_use_id": "toolu_c""#),
        "{fixed}"
    );
    let responses = r#"{"model": "gpt-5", "input": [{"role": "user", "content": "Read c."}, {"type": "reasoning", "id": "rs_1", "summary": []}, {"type": "function_call", "id": "fc_1", "call_id": "call_c", "name": "read", "arguments": "{}"}, {"role": "user", "content": "Stop."}]}"#;
    let fixed = fix_write("r.json", responses, &args);
    assert!(
        fixed.contains(
            r#"{"type": "reasoning", "id": "rs_1", "summary": []}, {"type": "function_call""#
        ) && fixed.contains(r#""type": "function_call_output", "call_id": "call_c""#),
        "{fixed}"
    );
    for (name, text) in [
        ("r.json", fixed),
        ("a.json", fix_write("a.json", anthropic, &args)),
    ] {
        // The inserted result is a placeholder itself (`invented-tool-result`).
        let lint = [
            "lint",
            "-",
            "--stdin-filename",
            name,
            "--ignore",
            "invented-tool-result",
        ];
        assert_eq!(toolcheck_stdin(&lint, &text).code, 0, "{text}");
    }
}

/// Removing orphaned results that are all a message holds leaves no empty message behind.
#[test]
fn remove_orphans_never_leaves_an_empty_message() {
    let text = r#"{"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "1"}, {"type": "tool_result", "tool_use_id": "toolu_b", "content": "2"}]}, {"role": "assistant", "content": "done"}]}"#;
    let fixed = fix_write("a.json", text, &[]);
    assert_eq!(
        fixed,
        r#"{"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}, {"role": "assistant", "content": "done"}]}"#
    );
}

/// A result inserted for an unanswered Gemini call carries the call's own name, which
/// Gemini checks against the call.
#[test]
fn inserted_gemini_result_carries_the_call_name() {
    let text = r#"{"contents": [{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "read_file", "args": {"path": "a"}}}]}, {"role": "user", "parts": [{"text": "next"}]}]}"#;
    let fixed = fix_write("g.json", text, &[]);
    assert!(
        fixed.contains(r#""functionResponse": {"name": "read_file", "id": "c1""#),
        "{fixed}"
    );
}

/// Gemini: two calls with one id inside one model Content, and a response naming another
/// tool than its call, are errors; distinct ids and matching names are accepted, and other
/// providers do not check the name.
#[test]
fn gemini_call_ids_and_response_names() {
    let mut report = String::new();
    report.push_str(&concise_case(
        "fixtures/gemini/broken-duplicate-call-ids.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/gemini/broken-response-name.json",
        &[],
    ));
    insta::assert_snapshot!(report);
    assert_lints_clean("fixtures/gemini/clean-distinct-call-ids.json", &[]);
    assert_lints_clean(
        "fixtures/gemini/broken-response-name.json",
        &["--target", "openai,anthropic,bedrock"],
    );
}

/// Bedrock role alternation: consecutive same-role messages are a warning saying Bedrock has
/// rejected and accepted them (both user messages of the example, including a tool result
/// followed by text, the shape accepted in 2026-01); the merge fix (unsafe) joins them; other
/// providers do not mind.
#[test]
fn bedrock_role_alternation_is_contested() {
    let file = "fixtures/bedrock-converse/bedrock-consecutive-user.json";
    insta::assert_snapshot!(concise_case(file, &["--select", "TC510"]));
    assert_lints_clean(file, &["--target", "anthropic", "--select", "TC510"]);
    let text = std::fs::read_to_string(common::root().join(file)).expect("fixture");
    let out = toolcheck_stdin(
        &[
            "fix",
            "-",
            "--stdin-filename",
            "b.json",
            "--select",
            "TC510",
            "--unsafe-fixes",
            "--write",
        ],
        &text,
    );
    assert!(
        out.stdout.contains(r#"{"role": "user", "content": [{"text": "Summarise the incident report."}, {"text": "Keep it under five lines."}]}"#),
        "{}",
        out.transcript()
    );
}

/// Results whose ids were rewritten on one side (`functions.grep:0` answered as
/// `functions_grep_0`) are orphans, with an unsafe fix giving each its call's id; the calls
/// get no fix of their own (an inserted result would answer them twice), and once re-paired
/// the history is clean.
#[test]
fn rewritten_call_ids_are_re_paired_by_an_unsafe_fix() {
    let file = "fixtures/openai-chat/broken-rewritten-call-ids.json";
    insta::assert_snapshot!(concise_case(file, &[]));
    let text = std::fs::read_to_string(common::root().join(file)).expect("fixture");
    let fixed = fix_write("k.json", &text, &["--unsafe-fixes"]);
    assert!(
        fixed.contains(r#""tool_call_id": "functions.grep:0""#)
            && fixed.contains(r#""tool_call_id": "functions.read_file:1""#),
        "{fixed}"
    );
    let safe_only = fix_write("k.json", &text, &[]);
    assert_eq!(safe_only, text, "no safe fix applies");
}
