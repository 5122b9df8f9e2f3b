//! Responses items the provider resolves by server id (issue 40): a reasoning item and the
//! item after it (`reasoning-item-without-output`), items under `store: false`
//! (`unpersisted-item-reference`), and reasoning text sent back (`reasoning-item-content`).
//! Each shape from the evidence gives its exact finding, with and without `--target
//! openai-responses`; the accepted shapes give none.

use crate::common;

use common::{assert_lints_clean, concise_case, toolcheck_stdin};
use serde_json::{json, Value};

/// `(code, severity, pointer)` of each finding for `body` read from stdin, with `extra`
/// arguments.
fn findings(body: &Value, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec![
        "lint",
        "-",
        "--stdin-filename",
        "body.json",
        "--output-format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = toolcheck_stdin(&args, &body.to_string());
    let found: Value = serde_json::from_str(&out.stdout).expect("a JSON report");
    found
        .as_array()
        .expect("an array of findings")
        .iter()
        .map(|f| {
            let field = |k: &str| f[k].as_str().unwrap_or_default().to_string();
            (field("code"), field("severity"), field("pointer"))
        })
        .collect()
}

/// The same findings with and without `--target openai-responses`.
fn both_ways(body: &Value) -> Vec<(String, String, String)> {
    let plain = findings(body, &[]);
    let targeted = findings(body, &["--target", "openai-responses"]);
    assert_eq!(plain, targeted, "{body}");
    plain
}

fn finding(code: &str, severity: &str, pointer: &str) -> (String, String, String) {
    (code.into(), severity.into(), pointer.into())
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn reasoning(id: Option<&str>, encrypted: bool) -> Value {
    let mut item = json!({"type": "reasoning", "summary": []});
    if let Some(id) = id {
        item["id"] = json!(id);
    }
    if encrypted {
        item["encrypted_content"] = json!("gAAAAABo_sealed");
    }
    item
}

fn assistant(id: Option<&str>) -> Value {
    let mut item = json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "Saturn."}]});
    if let Some(id) = id {
        item["id"] = json!(id);
    }
    item
}

fn call(id: Option<&str>) -> Value {
    let mut item = json!({"type": "function_call", "call_id": "call_1", "name": "moons",
        "arguments": "{\"planet\": \"Saturn\"}"});
    if let Some(id) = id {
        item["id"] = json!(id);
    }
    item
}

fn output() -> Value {
    json!({"type": "function_call_output", "call_id": "call_1", "output": "274"})
}

fn request(input: Vec<Value>) -> Value {
    json!({"model": "gpt-5", "input": input})
}

fn stateless(input: Vec<Value>) -> Value {
    json!({"model": "gpt-5", "store": false, "include": ["reasoning.encrypted_content"],
        "input": input})
}

/// The recorded 400: a reasoning item with its id, then the assistant message re-created
/// without its `msg_` id.
#[test]
fn an_id_less_message_after_a_reasoning_item_is_an_error() {
    let body = request(vec![
        user("Most moons?"),
        reasoning(Some("rs_1"), true),
        assistant(None),
        user("Second most?"),
    ]);
    assert_eq!(both_ways(&body), [finding("TC511", "error", "/input/1")]);
}

#[test]
fn an_id_less_call_after_a_reasoning_item_is_an_error() {
    let body = request(vec![
        user("Most moons?"),
        reasoning(Some("rs_1"), true),
        call(None),
        output(),
    ]);
    assert_eq!(both_ways(&body), [finding("TC511", "error", "/input/1")]);
}

/// Accepted in recorded traffic: the item after the reasoning item keeps its own id.
#[test]
fn a_reasoning_item_followed_by_its_output_with_an_id_is_fine() {
    for next in [
        vec![assistant(Some("msg_1"))],
        vec![call(Some("fc_1")), output()],
    ] {
        let mut input = vec![user("Most moons?"), reasoning(Some("rs_1"), true)];
        input.extend(next);
        input.push(user("Thanks"));
        let body = request(input);
        assert_eq!(both_ways(&body), [], "{body}");
    }
}

/// No recording either way: a reasoning item with its id that is last, or followed by a
/// client item or another reasoning item, is a warning.
#[test]
fn a_reasoning_item_without_its_output_is_a_warning() {
    let cases = [
        vec![user("Most moons?"), reasoning(Some("rs_1"), true)],
        vec![
            user("Most moons?"),
            reasoning(Some("rs_1"), true),
            user("Second most?"),
        ],
        vec![
            call(Some("fc_1")),
            reasoning(Some("rs_1"), true),
            output(),
            user("Thanks"),
        ],
        vec![
            user("Most moons?"),
            reasoning(Some("rs_1"), true),
            reasoning(Some("rs_2"), true),
            assistant(Some("msg_2")),
        ],
    ];
    let pointers = ["/input/1", "/input/1", "/input/1", "/input/1"];
    for (input, pointer) in cases.into_iter().zip(pointers) {
        let body = request(input);
        assert_eq!(
            both_ways(&body),
            [finding("TC511", "warning", pointer)],
            "{body}"
        );
    }
}

/// A reasoning item without an id is not looked up: sent with its encrypted content only,
/// whatever follows it, as the Agents SDK's `reasoning_item_id_policy="omit"` sends it.
#[test]
fn a_reasoning_item_without_an_id_is_not_reported() {
    for next in [assistant(None), user("More?")] {
        let body = stateless(vec![user("Most moons?"), reasoning(None, true), next]);
        assert_eq!(both_ways(&body), [], "{body}");
    }
}

/// Under `store: false`, an `item_reference` and a reasoning item with an id but no
/// encrypted content are errors; with `store` true or left out, they are not.
#[test]
fn unpersisted_items_are_errors_under_store_false() {
    let input = vec![
        user("Summarise"),
        json!({"type": "item_reference", "id": "msg_1"}),
        reasoning(Some("rs_1"), false),
        assistant(Some("msg_2")),
        user("Shorter"),
    ];
    let mut body = request(input);
    body["store"] = json!(false);
    assert_eq!(
        both_ways(&body),
        [
            finding("TC512", "error", "/input/1"),
            finding("TC512", "error", "/input/2"),
        ]
    );
    body["store"] = json!(true);
    assert_eq!(both_ways(&body), []);
    if let Some(map) = body.as_object_mut() {
        map.remove("store");
    }
    assert_eq!(both_ways(&body), []);
    // Not `false` as written: not a boolean, so not read as one.
    body["store"] = json!("false");
    assert_eq!(both_ways(&body), []);
}

/// The stateless pattern: a reasoning item with its id and its encrypted content under
/// `store: false` is not an unpersisted reference.
#[test]
fn encrypted_reasoning_under_store_false_is_fine() {
    let body = stateless(vec![
        user("Most moons?"),
        reasoning(Some("rs_1"), true),
        call(Some("fc_1")),
        output(),
    ]);
    assert_eq!(both_ways(&body), []);
}

/// Reasoning text in `content` is rejected by OpenAI and accepted by DeepSeek's Responses
/// endpoint: the finding points at the array, as the error's `param` does.
#[test]
fn reasoning_text_is_an_error_for_openai_only() {
    let mut thought = reasoning(None, false);
    thought["content"] = json!([{"type": "reasoning_text", "text": "17 * 23 = 391"}]);
    let input = vec![user("17 * 23?"), thought, assistant(None), user("17 * 24?")];
    let body = request(input.clone());
    assert_eq!(
        both_ways(&body),
        [finding("TC514", "error", "/input/1/content")]
    );
    assert_eq!(findings(&body, &["--target", "deepseek"]), []);
    let deepseek = json!({"model": "deepseek-reasoner", "input": input});
    assert_eq!(findings(&deepseek, &[]), []);
    // An empty array is what OpenAI accepts.
    let mut empty = reasoning(None, true);
    empty["content"] = json!([]);
    let body = request(vec![user("17 * 23?"), empty, assistant(None)]);
    assert_eq!(both_ways(&body), []);
}

/// Facts come from the request's input only: a saved response's `output` ends with what the
/// model made, and Codex rollouts are serialised by Codex for its own backend.
#[test]
fn output_items_and_codex_rollouts_are_not_judged() {
    let body = json!({"object": "response", "output": [reasoning(Some("rs_1"), false)]});
    assert_eq!(findings(&body, &[]), []);
    let rollout = [
        json!({"timestamp": "2025-10-02T09:14:15.337Z", "type": "session_meta",
            "payload": {"id": "s1", "cli_version": "0.44.0"}}),
        json!({"timestamp": "2025-10-02T09:14:16.000Z", "type": "response_item",
            "payload": user("Most moons?")}),
        json!({"timestamp": "2025-10-02T09:14:17.000Z", "type": "response_item",
            "payload": {"type": "reasoning", "id": "rs_1", "summary": [],
                "content": [{"type": "reasoning_text", "text": "Saturn"}]}}),
        json!({"timestamp": "2025-10-02T09:14:18.000Z", "type": "response_item",
            "payload": assistant(None)}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "rollout.jsonl",
            "--output-format",
            "concise",
        ],
        &rollout,
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
}

/// The fixtures of the three rules, and the stateless control.
#[test]
fn fixtures() {
    let mut report = String::new();
    for file in [
        "fixtures/openai-responses/broken-reasoning-without-output.json",
        "fixtures/openai-responses/broken-unpersisted-item-reference.json",
        "fixtures/openai-responses/broken-reasoning-item-content.json",
    ] {
        report.push_str(&concise_case(file, &[]));
    }
    insta::assert_snapshot!(report);
    assert_lints_clean(
        "fixtures/openai-responses/clean-stateless-reasoning.json",
        &[],
    );
    assert_lints_clean(
        "fixtures/openai-responses/clean-stateless-reasoning.json",
        &["--target", "openai-responses"],
    );
}
