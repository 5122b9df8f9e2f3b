//! Provider acceptance rules that only some providers enforce: Gemini's turn order and
//! response counts, Bedrock's `toolConfig` and error-result content.

use crate::common;

use common::{toolcheck, toolcheck_stdin};

/// `file:line:col: CODE` of each finding, from concise output.
fn codes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let (place, rest) = l.split_once(": ")?;
            let code = rest.split_whitespace().next()?;
            Some(format!("{place}: {code}"))
        })
        .collect()
}

fn lint(args: &[&str]) -> Vec<String> {
    let mut all = vec!["lint", "--output-format", "concise", "-q"];
    all.extend_from_slice(args);
    codes(&toolcheck(&all).stdout)
}

fn lint_stdin(name: &str, body: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "lint",
        "-",
        "--stdin-filename",
        name,
        "--output-format",
        "concise",
        "-q",
    ];
    args.extend_from_slice(extra);
    codes(&toolcheck_stdin(&args, body).stdout)
}

#[test]
fn gemini_split_responses_are_one_finding_on_the_call_turn() {
    assert_eq!(
        lint(&["fixtures/gemini/broken-split-responses.json"]),
        ["fixtures/gemini/broken-split-responses.json:11:5: TC503"]
    );
    // The same calls answered in one Content: accepted.
    assert!(lint(&["fixtures/gemini/clean-request.json"]).is_empty());
}

/// Each Gemini split shape as the evidence judges it (see `result-count-mismatch` and
/// `call-turn-out-of-place`): responses split over `function` Contents, rejected everywhere;
/// over `user` Contents, accepted by the Gemini API and rejected by Vertex AI; calls split
/// over consecutive `model` Contents, accepted by gemini-3-flash-preview; one Content each,
/// accepted.
#[test]
fn gemini_split_verdicts_follow_the_evidence() {
    let mut report = String::new();
    for file in [
        "fixtures/gemini/broken-split-function-responses.json",
        "fixtures/gemini/broken-split-responses.json",
        "fixtures/gemini/broken-consecutive-model-calls.json",
        "fixtures/gemini/clean-parallel-responses.json",
    ] {
        for target in ["gemini", "gemini-vertex"] {
            let out = toolcheck(&[
                "lint",
                file,
                "--target",
                target,
                "--output-format",
                "concise",
            ]);
            report.push_str(&format!("$ --target {target}\n{}\n", out.stdout));
        }
    }
    insta::assert_snapshot!(report);
}

#[test]
fn bedrock_split_results_are_one_finding_not_a_misplaced_result_each() {
    assert_eq!(
        lint(&["fixtures/bedrock-converse/broken-split-results.json"]),
        ["fixtures/bedrock-converse/broken-split-results.json:34:5: TC503"]
    );
}

#[test]
fn split_fix_gathers_the_results_in_order() {
    let out = toolcheck(&["fix", "fixtures/gemini/broken-split-responses.json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    // Three contents become one: two `role: user` lines removed, the parts joined.
    assert_eq!(out.stdout.matches("-      \"role\": \"user\",").count(), 2);
    assert!(out.stderr.contains("Would fix 1 finding"), "{}", out.stderr);
}

#[test]
fn gemini_call_turn_must_follow_a_user_or_response_turn() {
    assert_eq!(
        lint(&["fixtures/gemini/broken-call-turn.json"]),
        [
            "fixtures/gemini/broken-call-turn.json:3:5: TC504",
            "fixtures/gemini/broken-call-turn.json:47:5: TC504"
        ]
    );
    // A saved response holds only the model turn: its history is elsewhere.
    let response = r#"{"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_time", "args": {}}}]}}]}"#;
    assert!(lint_stdin("response.json", response, &[]).is_empty());
}

#[test]
fn bedrock_requests_with_tool_blocks_need_a_tool_config() {
    assert_eq!(
        lint(&["fixtures/bedrock-converse/broken-missing-tool-config.json"]),
        ["fixtures/bedrock-converse/broken-missing-tool-config.json:19:9: TC505"]
    );
    // With a `toolConfig`: accepted.
    assert!(lint(&["fixtures/bedrock-converse/clean-converse-request.json"]).is_empty());
    // A bare message list is not a request, and a request without tool blocks needs none.
    let bare = r#"[
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}]}
    ]"#;
    assert!(lint_stdin("bare.json", bare, &["--input-format", "bedrock-converse"]).is_empty());
    let plain = r#"{"inferenceConfig": {"maxTokens": 10}, "messages": [
        {"role": "user", "content": [{"text": "hi"}]}]}"#;
    assert!(lint_stdin("plain.json", plain, &[]).is_empty());
}

#[test]
fn bedrock_error_results_need_content() {
    // Only the error result: an empty result without `status: "error"` is accepted.
    assert_eq!(
        lint(&["fixtures/bedrock-converse/broken-empty-error-result.json"]),
        ["fixtures/bedrock-converse/broken-empty-error-result.json:60:24: TC506"]
    );
    let out = toolcheck(&[
        "fix",
        "fixtures/bedrock-converse/broken-empty-error-result.json",
    ]);
    assert!(out.stdout.contains(
        r#"+            "content": [{"text": "Error: the tool failed without an error message (noted by toolcheck)"}],"#
    ));
}

#[test]
fn gemini_rules_apply_to_an_openai_history_under_target_gemini() {
    // What a translation layer would send: the system message becomes
    // `systemInstruction`, so the contents open with the model's function call.
    let body = r#"{"messages": [
        {"role": "system", "content": "You are a file agent."},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "src"},
        {"role": "tool", "tool_call_id": "call_b", "content": "/app"},
        {"role": "user", "content": "thanks"}
    ]}"#;
    // OpenAI accepts it.
    assert!(lint_stdin("openai.json", body, &[]).is_empty());
    // Gemini does not. Consecutive `tool` messages are one function-response turn, so the
    // two results answer the two calls: no count mismatch.
    assert_eq!(
        lint_stdin("openai.json", body, &["--target", "gemini"]),
        ["openai.json:3:9: TC504"]
    );
    // With a user turn first, Gemini accepts it too.
    let fixed = body.replace(
        r#"{"role": "system", "content": "You are a file agent."},"#,
        r#"{"role": "user", "content": "Where am I?"},"#,
    );
    assert!(lint_stdin("openai.json", &fixed, &["--target", "gemini"]).is_empty());
    // Bedrock-only rules stay silent for Gemini.
    assert!(lint(&[
        "fixtures/bedrock-converse/broken-missing-tool-config.json",
        "--target",
        "gemini"
    ])
    .is_empty());
}
