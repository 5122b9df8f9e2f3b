//! Reasoning that must be passed back on tool-call turns (issue 24 §2): one rule,
//! `missing-thinking-block`, with a dialect per provider, each with a rejected fixture and an
//! accepted control; and the provider an OpenAI-shaped body names with its `model`.

use crate::common;

use common::{assert_lints_clean, concise_case, toolcheck, toolcheck_stdin};

/// DeepSeek and Kimi: a tool-call message without `reasoning_content` in thinking mode is an
/// error; an empty string is accepted, and `deepseek-chat` without thinking needs none even
/// when DeepSeek is targeted by name.
#[test]
fn reasoning_content_dialects() {
    let mut report = String::new();
    report.push_str(&concise_case(
        "fixtures/openai-chat/broken-deepseek-reasoning-content.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/openai-chat/broken-kimi-reasoning-content.json",
        &[],
    ));
    insta::assert_snapshot!(report);
    assert_lints_clean(
        "fixtures/openai-chat/clean-deepseek-reasoning-content.json",
        &[],
    );
    assert_lints_clean(
        "fixtures/openai-chat/clean-kimi-reasoning-content.json",
        &[],
    );
    assert_lints_clean(
        "fixtures/openai-chat/clean-deepseek-answered.json",
        &["--target", "deepseek"],
    );
    // Held to OpenAI, which knows no such field, the same history is accepted.
    assert_lints_clean(
        "fixtures/openai-chat/broken-deepseek-reasoning-content.json",
        &["--target", "openai"],
    );
}

/// Gemini 3: the first call of each step of the current turn is signed; parallel calls after
/// the first need none. Without the model or a named target there is no finding (Gemini 2.5
/// does not require signatures back); `--target gemini` holds a history to Gemini 3.
#[test]
fn thought_signature_dialect() {
    let mut report = String::new();
    report.push_str(&concise_case(
        "fixtures/gemini/broken-thought-signature.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/gemini/clean-request.json",
        &["--target", "gemini", "--select", "TC502"],
    ));
    insta::assert_snapshot!(report);
    assert_lints_clean("fixtures/gemini/clean-thought-signatures.json", &[]);
    assert_lints_clean("fixtures/gemini/clean-request.json", &[]);
}

/// OpenAI Responses: a call kept without the reasoning item of its turn is an error under a
/// named target. The reasoning item followed by a user message is `reasoning-item-without-output`'s
/// warning (no recorded rejection; `tests/responses_items.rs`).
#[test]
fn reasoning_items_dialect() {
    let mut report = String::new();
    report.push_str(&concise_case(
        "fixtures/openai-responses/broken-reasoning-items.json",
        &[],
    ));
    report.push_str(&concise_case(
        "fixtures/openai-responses/broken-reasoning-items.json",
        &["--target", "openai-responses"],
    ));
    insta::assert_snapshot!(report);
    assert_lints_clean(
        "fixtures/openai-responses/clean-reasoning-items.json",
        &["--target", "openai-responses"],
    );
}

/// DeepSeek's `/responses`: a reasoning item between two `function_call` items of one turn is
/// rejected; the same items with the reasoning first are accepted, and OpenAI accepts the
/// interleaved order it produces itself.
#[test]
fn deepseek_responses_reasoning_order() {
    let broken = "fixtures/openai-responses/broken-deepseek-interleaved-reasoning.json";
    insta::assert_snapshot!(concise_case(broken, &[]));
    assert_lints_clean(
        "fixtures/openai-responses/clean-deepseek-reasoning-first.json",
        &["--target", "deepseek"],
    );
    assert_lints_clean(broken, &["--target", "openai-responses"]);
}

/// A `model` naming a provider holds an OpenAI-shaped body to that provider, and findings
/// say so; a router's `vendor/model` name does not.
#[test]
fn model_name_holds_an_openai_body_to_its_provider() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/deepseek-contentless-assistant.json",
        "--output-format",
        "json",
    ]);
    let findings: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    let finding = &findings[0];
    assert_eq!(finding["code"], "TC508", "{}", out.stdout);
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["providers"], serde_json::json!(["deepseek"]));
    assert!(
        finding["message"].as_str().is_some_and(
            |m| m.ends_with("(held to deepseek: the request's model is `deepseek-chat`)")
        ),
        "{}",
        finding["message"]
    );
    let text = std::fs::read_to_string(
        common::root().join("fixtures/openai-chat/deepseek-contentless-assistant.json"),
    )
    .expect("fixture")
    .replace("\"deepseek-chat\"", "\"deepseek/deepseek-chat\"");
    let routed = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "routed.json",
            "--output-format",
            "concise",
        ],
        &text,
    );
    assert_eq!(routed.code, 0, "{}", routed.transcript());
}
