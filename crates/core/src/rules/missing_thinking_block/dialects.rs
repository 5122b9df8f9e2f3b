//! The dialects of `missing-thinking-block` beyond Anthropic's: where each provider requires
//! reasoning passed back with tool calls, and whether the history shows thinking was on.

use super::MissingThinkingBlock;
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::{self, Provider};
use crate::rules::Context;
use crate::transcript::{Conversation, Item, Loc, Role, Text};

/// Why a provider's thinking counts as on for this conversation, or `None` when the history
/// does not show it and no target was named.
fn thinking_on(cx: &Context<'_>, conv: &Conversation, provider: Provider) -> Option<String> {
    // `models/gemini-3-pro-preview`, `publishers/google/models/…`: the name is the last part.
    let model = conv
        .model
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or_default();
    if matches!(provider, Provider::Gemini | Provider::GeminiVertex) {
        // Gemini 2.5 returns signatures too but does not require them back: only the model,
        // or a named target on a history whose model signs its calls, says Gemini 3.
        return if model.starts_with("gemini-3") {
            Some(format!("the request's model is `{model}`"))
        } else {
            (cx.named_targets && !conv.reasoning.carried.is_empty()).then(|| {
                "the history's model signs its calls and the named target holds it to Gemini 3"
                    .to_string()
            })
        };
    }
    if conv.reasoning.requested == Some(false) {
        return None;
    }
    if conv.reasoning.requested == Some(true) {
        return Some("the request enables thinking".into());
    }
    let thinking_model = match provider {
        Provider::Deepseek => model.contains("reasoner"),
        Provider::Moonshot => model.contains("thinking"),
        _ => false,
    };
    if thinking_model {
        return Some(format!("the request's model is `{model}`"));
    }
    if !conv.reasoning.carried.is_empty() {
        return Some("other turns of the history carry reasoning".into());
    }
    // `deepseek-chat` is the non-thinking model: without options it needs none.
    let plain = provider == Provider::Deepseek && model == "deepseek-chat";
    (cx.named_targets && !plain).then(|| format!("`--target {provider}` holds it to thinking mode"))
}

/// The targeted providers among `candidates` whose thinking is on, with the first reason.
fn thinking_providers(
    cx: &Context<'_>,
    conv: &Conversation,
    candidates: &[Provider],
) -> (Vec<Provider>, String) {
    let mut on = Vec::new();
    let mut why = String::new();
    for &p in candidates {
        let targeted = cx.targets.contains(&p)
            || (p == Provider::Gemini && cx.targets.contains(&Provider::GeminiVertex));
        if !targeted {
            continue;
        }
        if let Some(reason) = thinking_on(cx, conv, p) {
            if why.is_empty() {
                why = reason;
            }
            on.push(p);
        }
    }
    (on, why)
}

/// DeepSeek and Kimi: every assistant message with tool calls carries `reasoning_content`.
pub(super) fn reasoning_content(cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
    let (on, why) = thinking_providers(cx, conv, &[Provider::Deepseek, Provider::Moonshot]);
    if on.is_empty() {
        return;
    }
    let Some(verdict) = cx.judge(&on) else {
        return;
    };
    let mut messages: Vec<&Loc> = conv
        .client_calls()
        .map(|(_, call)| &call.message)
        .filter(|m| !conv.reasoning.carried.contains(m))
        .collect();
    messages.dedup();
    for message in messages {
        out.push(
            Finding::at(
                &MissingThinkingBlock::META,
                message,
                format!(
                    "assistant message with tool calls has no `reasoning_content`, which {} requires passed back in thinking mode ({why})",
                    provider::list(&verdict.1)
                ),
            )
            .help("keep the `reasoning_content` the model returned with this message; where it is lost, an empty string is accepted")
            .rejected_by(verdict.clone())
            .fix(
                Applicability::Unsafe,
                "add an empty `reasoning_content` to the message",
                FixIntent::AddMember {
                    object: message.clone(),
                    key: "reasoning_content",
                    value: "\"\"".into(),
                },
            ),
        );
    }
}

/// Gemini 3: the first call of each model step since the last user text is signed.
pub(super) fn thought_signatures(cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
    let (on, why) = thinking_providers(cx, conv, &[Provider::Gemini]);
    if on.is_empty() {
        return;
    }
    let Some(verdict) = cx.judge(&on) else {
        return;
    };
    // The current turn starts after the last user Content holding text.
    let start = conv
        .turns
        .iter()
        .rposition(|t| t.role == Role::User && t.items.iter().any(|i| matches!(i, Item::Text(_))))
        .map_or(0, |t| t + 1);
    for (t, turn) in conv.turns.iter().enumerate().skip(start) {
        // A model Content right after another continues its step where the Gemini API merges
        // them (gemini-3-flash-preview accepted two such Contents, only the first signed).
        if turn.role != Role::Assistant || conv.merge_contested(t) {
            continue;
        }
        let Some(first) = turn.items.iter().find_map(|item| match item {
            Item::Call(call) if call.is_client() => Some(call),
            _ => None,
        }) else {
            continue;
        };
        if conv.reasoning.carried.contains(&first.loc) {
            continue;
        }
        out.push(
            Finding::about_call(
                &MissingThinkingBlock::META,
                first,
                &first.loc,
                format!(
                    "{} opens a model step of the current turn without a `thoughtSignature`, which {} requires (\"Function call is missing a thought_signature in functionCall parts.\"; {why})",
                    first.subject(),
                    provider::list(&verdict.1)
                ),
            )
            .help("keep the `thoughtSignature` of the part Gemini returned the call in; calls replayed from another model can carry the documented `skip_thought_signature_validator`")
            .rejected_by(verdict.clone())
            .fix(
                Applicability::Unsafe,
                "sign the call with Gemini's documented `skip_thought_signature_validator`",
                FixIntent::AddMember {
                    object: first.loc.clone(),
                    key: "thoughtSignature",
                    value: "\"skip_thought_signature_validator\"".into(),
                },
            ),
        );
    }
}

/// OpenAI Responses: a call with an item id comes with its reasoning item when the input
/// keeps reasoning items. (What follows a reasoning item is `reasoning-item-without-output`'s.)
pub(super) fn reasoning_items(cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
    if conv.server_history || conv.reasoning.carried.is_empty() {
        return;
    }
    reasoning_between_calls(cx, conv, out);
    let Some(verdict) = cx.judge(&[Provider::OpenaiResponses]) else {
        return;
    };
    let is_reasoning = |item: &Item| reasoning_item(conv, item).is_some();
    for turn in conv.turns.iter().filter(|t| t.role == Role::Assistant) {
        // Whether the response that made a call produced a reasoning item the history does
        // not show (a reasoning model may skip it): only a named target holds it to one.
        if !cx.named_targets || turn.items.iter().any(is_reasoning) {
            continue;
        }
        let linked = turn.items.iter().find_map(|item| match item {
            Item::Call(call) if conv.reasoning.linked_calls.contains(&call.loc) => Some(call),
            _ => None,
        });
        if let Some(call) = linked {
            out.push(
                Finding::about_call(
                    &MissingThinkingBlock::META,
                    call,
                    &call.loc,
                    format!(
                        "{} keeps its item id but not the `reasoning` item it came with, while the input keeps reasoning items elsewhere; {} rejects it (\"of type 'function_call' was provided without its required 'reasoning' item\")",
                        call.subject(),
                        provider::list(&verdict.1)
                    ),
                )
                .help("send the reasoning item the response returned right before this call, unchanged")
                .rejected_by(verdict.clone()),
            );
        }
    }
}

/// DeepSeek's `/responses`: a turn's reasoning items come before its `function_call` items,
/// never between two of them.
fn reasoning_between_calls(cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
    let Some(verdict) = cx.judge(&[Provider::Deepseek]) else {
        return;
    };
    let is_call = |item: &Item| matches!(item, Item::Call(c) if c.is_client());
    for turn in conv.turns.iter().filter(|t| t.role == Role::Assistant) {
        let items = &turn.items;
        let (Some(first_call), Some(last_call)) = (
            items.iter().position(is_call),
            items.iter().rposition(is_call),
        ) else {
            continue;
        };
        let between = items.get(first_call + 1..last_call).unwrap_or_default();
        for reasoning in between.iter().filter_map(|i| reasoning_item(conv, i)) {
            out.push(
                Finding::at(
                    &MissingThinkingBlock::META,
                    &reasoning.loc,
                    format!(
                        "`reasoning` item sits between two `function_call` items of one turn, which {} rejects on its `/responses` endpoint",
                        provider::list(&verdict.1)
                    ),
                )
                .help("move the turn's reasoning items before its first `function_call` item, keeping their order")
                .rejected_by(verdict.clone()),
            );
        }
    }
}

/// The `reasoning` item `item` is, in a format that carries reasoning as items of its own.
fn reasoning_item<'c>(conv: &Conversation, item: &'c Item) -> Option<&'c Text> {
    match item {
        Item::Text(t) if conv.reasoning.carried.contains(&t.loc) => Some(t),
        _ => None,
    }
}
