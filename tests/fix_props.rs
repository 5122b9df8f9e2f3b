//! Property tests: for generated transcripts with random defects, the fixed output parses,
//! has no fixable finding left, and fixing it again changes nothing.

use proptest::prelude::*;
use serde_json::{json, Value};

use toolcheck::edit::json_edit::{render, Style};
use toolcheck::fix::{applies, fix_bytes};
use toolcheck::lint::{lint_str, LintOptions, SourceName};

/// What can go wrong with one call.
#[derive(Debug, Clone, Copy)]
enum Defect {
    None,
    Dropped,
    Duplicated,
    Late,
    Truncated,
    DoubleEncoded,
}

fn defect() -> impl Strategy<Value = Defect> {
    prop_oneof![
        4 => Just(Defect::None),
        1 => Just(Defect::Dropped),
        1 => Just(Defect::Duplicated),
        1 => Just(Defect::Late),
        1 => Just(Defect::Truncated),
        1 => Just(Defect::DoubleEncoded),
    ]
}

/// Turns: each a batch of 1-3 calls with their defects; plus whether an orphan result opens
/// the conversation.
fn scenario() -> impl Strategy<Value = (Vec<Vec<Defect>>, bool)> {
    (
        prop::collection::vec(prop::collection::vec(defect(), 1..=3), 1..=4),
        any::<bool>(),
    )
}

fn style() -> impl Strategy<Value = Style> {
    prop_oneof![
        Just(Style::Compact { spaced: false }),
        Just(Style::Compact { spaced: true }),
        Just(Style::Pretty {
            indent: String::new(),
            step: "  ".into()
        }),
        Just(Style::Pretty {
            indent: String::new(),
            step: "    ".into()
        }),
    ]
}

fn openai(turns: &[Vec<Defect>], orphan: bool) -> Value {
    let mut messages = vec![json!({"role": "system", "content": "be brief"})];
    if orphan {
        messages.push(json!({"role": "tool", "tool_call_id": "evicted", "content": "old"}));
    }
    for (t, batch) in turns.iter().enumerate() {
        messages.push(json!({"role": "user", "content": format!("question {t}")}));
        let calls: Vec<Value> = batch
            .iter()
            .enumerate()
            .map(|(j, d)| {
                let args = match d {
                    Defect::Truncated => "{\"q\": \"hel".to_string(),
                    Defect::DoubleEncoded => serde_json::to_string("{\"q\": \"x\"}").unwrap_or_default(),
                    _ => format!("{{\"q\": \"t{t}c{j}\"}}"),
                };
                json!({"id": format!("call_{t}_{j}"), "type": "function", "function": {"name": "search", "arguments": args}})
            })
            .collect();
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
        let mut late = Vec::new();
        for (j, d) in batch.iter().enumerate() {
            let result =
                json!({"role": "tool", "tool_call_id": format!("call_{t}_{j}"), "content": "ok"});
            match d {
                Defect::Dropped => {}
                Defect::Late => late.push(result),
                Defect::Duplicated => {
                    messages.push(result.clone());
                    messages.push(result);
                }
                _ => messages.push(result),
            }
        }
        messages.push(json!({"role": "user", "content": "thanks"}));
        messages.extend(late);
    }
    messages.push(json!({"role": "assistant", "content": "done"}));
    json!({"model": "m", "messages": messages})
}

fn anthropic(turns: &[Vec<Defect>], orphan: bool) -> Value {
    let mut messages = Vec::new();
    if orphan {
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "evicted", "content": "old"}]}));
    }
    for (t, batch) in turns.iter().enumerate() {
        messages.push(json!({"role": "user", "content": format!("question {t}")}));
        let calls: Vec<Value> = batch
            .iter()
            .enumerate()
            .map(|(j, d)| {
                let input = match d {
                    Defect::DoubleEncoded | Defect::Truncated => json!("{\"q\": \"x\"}"),
                    _ => json!({"q": format!("t{t}c{j}")}),
                };
                json!({"type": "tool_use", "id": format!("toolu_{t}_{j}"), "name": "search", "input": input})
            })
            .collect();
        messages.push(json!({"role": "assistant", "content": calls}));
        let mut results = Vec::new();
        let mut late = Vec::new();
        for (j, d) in batch.iter().enumerate() {
            let result = json!({"type": "tool_result", "tool_use_id": format!("toolu_{t}_{j}"), "content": "ok"});
            match d {
                Defect::Dropped => {}
                Defect::Late => late.push(result),
                Defect::Duplicated => {
                    results.push(result.clone());
                    results.push(result);
                }
                _ => results.push(result),
            }
        }
        if !results.is_empty() {
            messages.push(json!({"role": "user", "content": results}));
        }
        // Merged with the results above: results first, then text, as Anthropic requires.
        // Without it, the two assistant messages would merge and late results be on time.
        messages.push(json!({"role": "user", "content": "thanks"}));
        messages.push(json!({"role": "assistant", "content": "noted"}));
        if !late.is_empty() {
            late.push(json!({"type": "text", "text": "late results"}));
            messages.push(json!({"role": "user", "content": late}));
        }
    }
    messages.push(json!({"role": "user", "content": "bye"}));
    json!({"model": "claude", "max_tokens": 10, "messages": messages})
}

fn has_defect(turns: &[Vec<Defect>], orphan: bool) -> bool {
    orphan || turns.iter().flatten().any(|d| !matches!(d, Defect::None))
}

fn check_fix(name: &str, text: &str, defective: bool) -> Result<(), TestCaseError> {
    let found = !lint_str(name, text).findings.is_empty();
    prop_assert_eq!(found, defective, "defects and findings disagree:\n{}", text);
    let opts = LintOptions::default();
    let source = || SourceName {
        name: name.to_string(),
        path: None,
    };
    let fixed = fix_bytes(&source(), text.as_bytes().to_vec(), true, &opts, true)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let fixed_text = fixed.fixed_text();
    if name.ends_with(".jsonl") {
        for line in fixed_text.lines() {
            prop_assert!(
                serde_json::from_str::<Value>(line).is_ok(),
                "{}",
                fixed_text
            );
        }
    } else {
        prop_assert!(
            serde_json::from_str::<Value>(fixed_text).is_ok(),
            "{}",
            fixed_text
        );
    }
    let report = lint_str(name, fixed_text);
    let left: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| applies(f, true))
        .map(|f| f.rule.code)
        .collect();
    prop_assert!(
        left.is_empty(),
        "fixable findings left: {left:?}\n{}",
        fixed_text
    );
    let again = fix_bytes(&source(), fixed_text.as_bytes().to_vec(), true, &opts, true)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        again.fixed_text(),
        fixed_text,
        "fixing twice changed the text"
    );
    Ok(())
}

proptest! {
    // 48 cases keep CI fast; `PROPTEST_CASES=5000 cargo test --test tests fix_props::` digs
    // deeper.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn openai_fixes_converge((turns, orphan) in scenario(), style in style()) {
        check_fix("g.json", &render(&openai(&turns, orphan), &style), has_defect(&turns, orphan))?;
    }

    #[test]
    fn openai_jsonl_fixes_converge((turns, orphan) in scenario(), (more, orphan2) in scenario()) {
        let text = format!(
            "{}\n{}\n",
            render(&openai(&turns, orphan), &Style::Compact { spaced: true }),
            render(&openai(&more, orphan2), &Style::Compact { spaced: false })
        );
        check_fix("g.jsonl", &text, has_defect(&turns, orphan) || has_defect(&more, orphan2))?;
    }

    #[test]
    fn anthropic_fixes_converge((turns, orphan) in scenario(), style in style()) {
        check_fix("g.json", &render(&anthropic(&turns, orphan), &style), has_defect(&turns, orphan))?;
    }
}
