//! Pydantic AI message histories: what `result.all_messages_json()` and
//! `ModelMessagesTypeAdapter.dump_json(...)` write (pydantic/pydantic-ai
//! `pydantic_ai_slim/pydantic_ai/messages.py`).
//!
//! A JSON array of messages discriminated by `kind`: `request` (sent to the model: its
//! `parts` are `system-prompt`, `user-prompt`, `tool-return`, `retry-prompt`…) and
//! `response` (the model's: `text`, `thinking`, `tool-call`, and provider-executed
//! `builtin-tool-call`/`builtin-tool-return`, which answer each other inside the response).
//! Parts are discriminated by `part_kind`.
//!
//! Calls are `tool-call {tool_name, args: string | object | null, tool_call_id}`: `args` is
//! JSON text or an object depending on how the provider streamed it, and `null` means no
//! arguments. Results are `tool-return {tool_name, content, tool_call_id, outcome?}` and
//! `retry-prompt {content, tool_name, tool_call_id}`: a retry prompt with a `tool_name` is the
//! failed result of that call (a validation error, `ModelRetry`, an unknown tool) and counts
//! as a failure, as does `outcome: failed|denied|interrupted`; one without `tool_name` asks
//! for the final output again and answers no call. Calls in a response are answered in the
//! request after it; calls in a history's last response are still pending (they run on the
//! next `run()`). No tool definitions are stored.
//!
//! Pydantic AI replays the history to whichever provider the agent's model uses, so it is held
//! to the rules every provider shares.

use serde_json::{json, Value as Json};

use super::{array_at, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain pydantic-ai` prints (Markdown).
pub(super) const DOC: &str = r#"Pydantic AI message histories (`result.all_messages_json()`, `ModelMessagesTypeAdapter.dump_json`): `request`/`response` messages of `part_kind` parts; `tool-call` `args` as JSON text or an object (`null`: none), `tool-return` and `retry-prompt` by `tool_call_id` (a retry prompt naming a tool is a failed result; `outcome: failed/denied/interrupted` too); calls in the last response are pending; fixes insert failed `tool-return` parts and remove orphans"#;

pub struct PydanticAi;

/// Part kinds only Pydantic AI writes, one of which must be there to tell a history apart.
const PART_KINDS: [&str; 8] = [
    "system-prompt",
    "user-prompt",
    "tool-return",
    "retry-prompt",
    "text",
    "tool-call",
    "thinking",
    "builtin-tool-call",
];

/// Inserted results are `tool-return` parts (a failed one), in a request of their own when no
/// request follows the call.
impl Dialect for PydanticAi {
    /// `None` for a call without an id: a `tool-return` answers by `tool_call_id` only.
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let call = site.call;
        Some(json!({
            "part_kind": "tool-return",
            "tool_name": call.name,
            "content": text,
            "tool_call_id": call.id.as_deref()?,
            "outcome": "failed"
        }))
    }

    fn result_message(&self, block: Json) -> Option<Json> {
        Some(json!({"kind": "request", "parts": [block]}))
    }
}

fn is_message(message: &Tree) -> bool {
    matches!(str_at(message, "kind"), Some("request" | "response"))
        && array_at(message, "parts")
            .is_some_and(|parts| parts.iter().all(|p| str_at(p, "part_kind").is_some()))
}

impl Adapter for PydanticAi {
    fn format(&self) -> Format {
        Format::PydanticAi
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let messages = doc.as_array()?;
        let all = !messages.is_empty() && messages.iter().all(is_message);
        let known = messages
            .iter()
            .filter_map(|m| array_at(m, "parts"))
            .flatten()
            .any(|p| str_at(p, "part_kind").is_some_and(|k| PART_KINDS.contains(&k)));
        (all && known).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let root = Loc::new(doc.base, "");
    let messages = doc
        .value
        .as_array()
        .ok_or("expected an array of messages")?;
    let mut conv = Conversation::new(Format::PydanticAi, root, Pairing::NextTurn);
    conv.results_role = Role::User;
    conv.results_first = true;
    // The calls of the last response run on the next `run()`.
    conv.resumable = false;
    for (i, message) in messages.iter().enumerate() {
        let mloc = Loc::new(doc.base, format!("/{i}"));
        let role = match str_at(message, "kind") {
            Some("request") => Role::User,
            Some("response") => Role::Assistant,
            _ => return Err(format!("message without a `kind` at /{i}")),
        };
        let parts = array_at(message, "parts").ok_or(format!("message without `parts` at /{i}"))?;
        let mut pushed = false;
        for (j, part) in parts.iter().enumerate() {
            let loc = mloc.child(("parts", j));
            if let Some(item) = part_item(part, loc, &mloc) {
                conv.push(role, &mloc, item);
                pushed = true;
            }
        }
        if !pushed && conv.turns.last().is_none_or(|t| t.role != role) {
            conv.start_turn(role, mloc.clone());
        }
    }
    Ok(conv)
}

/// One part as a transcript item (`None` for a part the model is not sent: none so far).
fn part_item(part: &Tree, loc: Loc, mloc: &Loc) -> Option<Item> {
    let kind = str_at(part, "part_kind").unwrap_or_default();
    let id = str_at(part, "tool_call_id").map(str::to_string);
    Some(match kind {
        "tool-call" | "builtin-tool-call" => {
            let args = part.get("args");
            Item::Call(ToolCall {
                key: pairing_key(id.as_deref(), &loc),
                id,
                name: str_at(part, "tool_name").unwrap_or_default().to_string(),
                kind: if kind == "tool-call" {
                    CallKind::Function
                } else {
                    CallKind::ProviderExecuted
                },
                arguments: match args {
                    Some(Tree::String(s)) => Arguments::Encoded(s.to_string()),
                    // `null` is "no arguments": read as an empty object.
                    None | Some(Tree::Null) => Arguments::value(json!({})),
                    Some(v) => Arguments::value(v.to_serde()),
                },
                args_loc: if args.is_some() {
                    loc.child("args")
                } else {
                    loc.clone()
                },
                loc,
                message: mloc.clone(),
            })
        }
        "retry-prompt" if str_at(part, "tool_name").is_none() => Item::Text(Text {
            loc,
            message: mloc.clone(),
        }),
        "tool-return" | "retry-prompt" | "builtin-tool-return" => {
            let outcome = str_at(part, "outcome");
            Item::Result(ToolResult {
                key: pairing_key(id.as_deref(), &loc),
                call_id: id,
                name: str_at(part, "tool_name").map(str::to_string),
                is_error: kind == "retry-prompt"
                    || matches!(outcome, Some("failed" | "denied" | "interrupted")),
                text: part.get("content").map(result_text).unwrap_or_default(),
                provider_executed: kind == "builtin-tool-return",
                id_field: None,
                loc,
                message: mloc.clone(),
            })
        }
        "thinking" => Item::Thinking(Text {
            loc,
            message: mloc.clone(),
        }),
        _ => Item::Text(Text {
            loc,
            message: mloc.clone(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    fn sniff(text: &str) -> Option<u8> {
        let tree: Tree = crate::tree::parse(text).expect("JSON").value;
        PydanticAi.sniff(&tree)
    }

    #[test]
    fn recognises_histories_and_not_their_neighbours() {
        let history = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}]},
            {"kind":"response","parts":[{"part_kind":"text","content":"hello"}]}]"#;
        assert_eq!(sniff(history), Some(90));
        // OpenAI messages, Vercel UI parts, an empty array: not Pydantic AI.
        assert_eq!(sniff(r#"[{"role":"user","content":"hi"}]"#), None);
        assert_eq!(
            sniff(r#"[{"kind":"request","parts":[{"type":"text"}]}]"#),
            None
        );
        assert_eq!(sniff("[]"), None);
    }

    #[test]
    fn retry_prompts_with_a_tool_are_failed_results_and_null_args_are_empty() {
        let text = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"go"}]},
            {"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"run","args":null,"tool_call_id":"c1"}]},
            {"kind":"request","parts":[{"part_kind":"retry-prompt","tool_name":"run","content":"bad","tool_call_id":"c1"},
                                       {"part_kind":"retry-prompt","content":"again","tool_call_id":"x"}]}]"#;
        let tree: Tree = crate::tree::parse(text).expect("JSON").value;
        let convs = PydanticAi
            .normalise(&[Doc {
                base: 0,
                value: &tree,
            }])
            .expect("a history");
        let items: Vec<&Item> = convs[0].turns.iter().flat_map(|t| t.items.iter()).collect();
        let results: Vec<&ToolResult> = items
            .iter()
            .filter_map(|i| match i {
                Item::Result(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(results.len(), 1, "an output retry answers no call");
        assert!(results[0].is_error);
        let call = items
            .iter()
            .find_map(|i| match i {
                Item::Call(c) => Some(c),
                _ => None,
            })
            .expect("a call");
        assert_eq!(call.arguments, Arguments::value(json!({})));
    }
}
