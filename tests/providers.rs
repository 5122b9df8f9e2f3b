//! Will the provider accept it: the guard against unread structures (one test per document
//! format), `--target`, and the provider-specific id and name rules.

use crate::common;

use common::{root, toolcheck, toolcheck_stdin};

/// A foreign tool structure no adapter of these formats reads at that place.
const FOREIGN: &str = r#"{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_foreign01", "name": "f", "input": {}}]}"#;

/// Adds `"archived_turns": [FOREIGN]` to a JSON object's text.
fn with_foreign(doc: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(doc).expect("fixture parses");
    let foreign: serde_json::Value = serde_json::from_str(FOREIGN).expect("parses");
    match &mut value {
        serde_json::Value::Object(map) => {
            map.insert("archived_turns".into(), serde_json::json!([foreign]));
        }
        serde_json::Value::Array(items) => {
            // A bare message list: the foreign block rides in an extra message's metadata.
            items.push(serde_json::json!({"role": "user", "content": "more", "metadata": {"archived": [foreign]}}));
        }
        _ => panic!("unexpected fixture shape"),
    }
    serde_json::to_string_pretty(&value).expect("serialises")
}

#[test]
fn unread_tool_structures_are_reported_for_every_document_format() {
    let cases = [
        ("fixtures/openai-chat/clean-request.json", "openai-chat"),
        (
            "fixtures/openai-responses/clean-request.json",
            "openai-responses",
        ),
        ("fixtures/anthropic/clean-request.json", "anthropic"),
        ("fixtures/gemini/clean-request.json", "gemini"),
        (
            "fixtures/bedrock-converse/clean-converse-request.json",
            "bedrock-converse",
        ),
        (
            "fixtures/vercel-ai/clean-model-messages-v5.json",
            "vercel-ai",
        ),
        (
            "fixtures/langchain/clean-messages-to-dict.json",
            "langchain",
        ),
    ];
    for (fixture, format) in cases {
        let text = std::fs::read_to_string(root().join(fixture)).expect("fixture");
        let clean = toolcheck(&["lint", fixture, "--output-format", "concise"]);
        assert_eq!(clean.code, 0, "{fixture} is clean: {}", clean.transcript());
        let out = toolcheck_stdin(
            &[
                "lint",
                "-",
                "--stdin-filename",
                "mixed.json",
                "--output-format",
                "concise",
                "--select",
                "TC005",
            ],
            &with_foreign(&text),
        );
        assert_eq!(out.code, 1, "{fixture}: {}", out.transcript());
        let lines: Vec<&str> = out.stdout.lines().filter(|l| l.contains("TC005")).collect();
        assert_eq!(lines.len(), 1, "{fixture}: {}", out.stdout);
        assert!(
            lines[0].contains(&format!("read as `{format}`"))
                && lines[0].contains("`tool_use` at "),
            "{fixture}: {}",
            lines[0]
        );
    }
}

#[test]
fn unread_structures_in_a_jsonl_record_are_reported_at_the_record() {
    let text = std::fs::read_to_string(root().join("fixtures/openai-chat/clean-finetune.jsonl"))
        .expect("fixture");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let first: serde_json::Value = serde_json::from_str(&lines[0]).expect("record");
    let mut first = first;
    first["archived"] = serde_json::from_str(FOREIGN).expect("parses");
    lines[0] = first.to_string();
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "data.jsonl",
            "--output-format",
            "concise",
        ],
        &(lines.join("\n") + "\n"),
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.starts_with("data.jsonl:1:"), "{}", out.stdout);
    assert!(out.stdout.contains("TC005"), "{}", out.stdout);
}

#[test]
fn verbose_says_what_was_read() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/clean-request.json",
        "-v",
        "-q",
    ]);
    assert!(
        out.stderr.contains("checked fixtures/openai-chat/clean-request.json (openai-chat): 1 conversation, 5 calls, 4 results"),
        "{}",
        out.stderr
    );
}

/// One OpenAI-shaped history: a 43-character call id (OpenAI and Mistral reject it) and a
/// dotted tool name (OpenAI, Anthropic and Bedrock reject it; Gemini allows dots).
const HISTORY: &str = r#"{
  "tools": [{"type": "function", "function": {"name": "docs.search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}],
  "messages": [
    {"role": "user", "content": "find the retry docs"},
    {"role": "assistant", "tool_calls": [{"id": "call_abcdefghijklmnopqrstuvwxyz0123456789XYZ", "type": "function", "function": {"name": "docs.search", "arguments": "{\"q\": \"retry\"}"}}]},
    {"role": "tool", "tool_call_id": "call_abcdefghijklmnopqrstuvwxyz0123456789XYZ", "content": "retries.md"},
    {"role": "assistant", "content": "See retries.md."}
  ]
}"#;

#[test]
fn target_holds_one_history_to_each_providers_rules() {
    let mut report = String::new();
    for target in [
        "openai",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
        "mistral",
    ] {
        let out = toolcheck_stdin(
            &[
                "lint",
                "-",
                "--stdin-filename",
                "history.json",
                "--output-format",
                "concise",
                "--target",
                target,
            ],
            HISTORY,
        );
        report.push_str(&format!("## --target {target}\n{}", out.transcript()));
    }
    insta::assert_snapshot!(report);
}

#[test]
fn target_from_the_config_and_providers_in_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("toolcheck.toml"),
        "target = [\"anthropic\"]\n",
    )
    .expect("config");
    std::fs::write(dir.path().join("h.json"), HISTORY).expect("history");
    let out = common::toolcheck_in(
        dir.path(),
        &["lint", "h.json", "--output-format", "json"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    let findings: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let first = &findings[0];
    assert_eq!(first["code"], "TC304");
    assert_eq!(first["providers"], serde_json::json!(["anthropic"]));
    assert_eq!(first["severity"], "error");
}

#[test]
fn without_a_target_each_format_is_held_to_its_own_provider() {
    // The native provider of openai-chat is OpenAI: both the id and the name fail.
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "history.json",
            "--output-format",
            "concise",
        ],
        HISTORY,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("TC106") && out.stdout.contains("TC304"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("mistral"),
        "mistral only when targeted: {}",
        out.stdout
    );
}

/// Mistral's role order (issue 24 §2): a user message right after tool results is a warning
/// under `--target mistral` saying Mistral has both rejected and accepted it; the same
/// history with an assistant message between is clean, and no other target minds.
#[test]
fn mistral_user_after_tool_result_is_a_contested_warning() {
    let rejected = "fixtures/openai-chat/mistral-tool-then-user.json";
    let out = toolcheck(&["lint", rejected, "--target", "mistral"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let bridged = toolcheck(&[
        "lint",
        "fixtures/openai-chat/clean-mistral-bridge.json",
        "--target",
        "mistral",
    ]);
    assert_eq!(bridged.code, 0, "{}", bridged.transcript());
    for target in ["openai", "anthropic", "gemini"] {
        let other = toolcheck(&["lint", rejected, "--target", target]);
        assert_eq!(other.code, 0, "{target}: {}", other.transcript());
    }
    // Bedrock Converse has no tool role: the results and the user text become one message,
    // which it rejects (`content-beside-tool-result`).
    let bedrock = toolcheck(&[
        "lint",
        rejected,
        "--target",
        "bedrock",
        "--output-format",
        "concise",
    ]);
    assert_eq!(bedrock.code, 1, "{}", bedrock.transcript());
    assert!(bedrock.stdout.contains("TC515"), "{}", bedrock.stdout);
}

/// `deepseek` and `moonshot` (alias `kimi`) are targets of their own: an unanswered call is
/// an error naming them, with the error each returns documented on the rule.
#[test]
fn deepseek_and_kimi_are_targets() {
    for (target, named) in [
        ("deepseek", "deepseek"),
        ("moonshot", "moonshot"),
        ("kimi", "moonshot"),
    ] {
        let out = toolcheck(&[
            "lint",
            "fixtures/openai-chat/broken-finetune.jsonl",
            "--select",
            "TC102",
            "--target",
            target,
            "--output-format",
            "json",
        ]);
        let findings: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
        let finding = &findings[0];
        assert_eq!(
            finding["severity"],
            "error",
            "{target}: {}",
            out.transcript()
        );
        assert_eq!(finding["providers"], serde_json::json!([named]), "{target}");
    }
}

/// What `toolcheck rules` says each rule's findings are rejected by is true of every finding:
/// under each target, every provider a fixture's finding names is listed for its rule.
#[test]
fn rules_catalog_lists_every_provider_a_finding_names() {
    let catalog = toolcheck(&["rules", "--output-format", "json"]);
    let catalog: Vec<serde_json::Value> =
        serde_json::from_str(&catalog.stdout).expect("the catalog is JSON");
    let listed = |code: &str| -> Vec<String> {
        catalog
            .iter()
            .find(|r| r["code"] == code)
            .and_then(|r| r["rejected_by"].as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|p| p.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let targets = [
        None,
        Some("openai"),
        Some("openai-responses"),
        Some("anthropic"),
        Some("gemini"),
        Some("gemini-vertex"),
        Some("bedrock"),
        Some("mistral"),
        Some("deepseek"),
        Some("moonshot"),
    ];
    let mut named = 0;
    for target in targets {
        let mut args = vec!["lint", "--no-config", "--output-format", "json"];
        if let Some(t) = target {
            args.extend(["--target", t]);
        }
        args.push("fixtures");
        let out = toolcheck(&args);
        let findings: Vec<serde_json::Value> =
            serde_json::from_str(&out.stdout).expect("findings are JSON");
        for f in &findings {
            let code = f["code"].as_str().unwrap_or_default();
            for p in f["providers"].as_array().into_iter().flatten() {
                let p = p.as_str().unwrap_or_default();
                named += 1;
                assert!(
                    listed(code).iter().any(|l| l == p),
                    "{code} names {p} (target {target:?}) but `toolcheck rules` does not list it: {f}"
                );
            }
        }
    }
    assert!(named > 100, "only {named} provider names seen");
    // And a provider filter keeps exactly the rules that list it.
    let kimi = toolcheck(&["rules", "--target", "kimi", "--output-format", "json"]);
    let kimi: Vec<serde_json::Value> = serde_json::from_str(&kimi.stdout).expect("JSON");
    let codes: Vec<&str> = kimi.iter().filter_map(|r| r["code"].as_str()).collect();
    assert_eq!(codes, ["TC102", "TC502"]);
}
