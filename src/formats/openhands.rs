//! OpenHands (V0) event streams: a trajectory downloaded from the UI or saved by the
//! evaluation harness is a JSON array of the events `openhands/events/serialization/event.py`
//! writes, `{id, timestamp, source: user|agent|environment, message, action | observation,
//! args | content + extras, cause, tool_call_metadata: {function_name, tool_call_id,
//! model_response, total_calls_in_response}, success?}`.
//!
//! An action carrying `tool_call_metadata` is a call: its arguments are the provider's own, in
//! `model_response.choices[0].message.tool_calls[]` under its id (JSON text), else the
//! action's `args`. An observation answers the call of its `tool_call_metadata`, or that of the
//! action its `cause` names. `observation: "error"` and `success: false` are failures. Message
//! actions are text turns; events that are neither (`recall`, agent state changes) are not
//! sent to the model as such and are left out. OpenHands replays the history through
//! LiteLLM to any provider, OpenAI Chat style. A record of a run: findings only.

use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text, ToolCall,
    ToolResult,
};
use crate::tree::Value as Tree;

pub struct OpenHands;

impl Dialect for OpenHands {}

fn is_event(value: &Tree) -> bool {
    value.get("id").is_some_and(Tree::is_u64)
        && str_at(value, "source").is_some()
        && (value.get("action").is_some() || value.get("observation").is_some())
}

impl Adapter for OpenHands {
    fn format(&self) -> Format {
        Format::OpenHands
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let events = doc.as_array()?;
        let all = !events.is_empty() && events.iter().all(is_event);
        (all && events.iter().any(|e| e.get("action").is_some())).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }

    /// A record of a run: findings only.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }
}

/// The call id of an event's `tool_call_metadata`.
fn call_id<'a>(event: &'a Tree<'a>) -> Option<&'a str> {
    event
        .get("tool_call_metadata")
        .and_then(|m| str_at(m, "tool_call_id"))
}

/// The provider's own arguments for call `id` in the action's recorded model response, and
/// where they are.
fn provider_arguments<'a>(event: &'a Tree<'a>, id: &str, loc: &Loc) -> Option<(&'a str, Loc)> {
    let message = event
        .get("tool_call_metadata")?
        .get("model_response")?
        .get("choices")?
        .at(0)?
        .get("message")?;
    let calls = array_at(message, "tool_calls")?;
    let (j, call) = calls
        .iter()
        .enumerate()
        .find(|(_, c)| str_at(c, "id") == Some(id))?;
    let text = call.get("function").and_then(|f| str_at(f, "arguments"))?;
    let at = loc
        .child("tool_call_metadata")
        .child("model_response")
        .child("choices")
        .child(0)
        .child("message")
        .child("tool_calls")
        .child(j)
        .child("function")
        .child("arguments");
    Some((text, at))
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let root = Loc::new(doc.base, "");
    let events = doc
        .value
        .as_array()
        .ok_or("expected an array of OpenHands events")?;
    let mut conv = Conversation::new(Format::OpenHands, root.clone(), Pairing::NextTurn);
    // Each action's call id, by event id, for observations that name only their `cause`.
    let mut calls_by_event: Vec<(u64, String)> = Vec::new();
    // The model response of the call just read, while nothing else has come between.
    let mut last_response: Option<&str> = None;
    for (i, event) in events.iter().enumerate() {
        let loc = root.child(i);
        if let Some(action) = str_at(event, "action") {
            let source = str_at(event, "source").unwrap_or_default();
            if let Some(id) = call_id(event) {
                if let Some(n) = event.get("id").and_then(Tree::as_u64) {
                    calls_by_event.push((n, id.to_string()));
                }
                let (arguments, args_loc) = match provider_arguments(event, id, &loc) {
                    Some((text, at)) => (Arguments::Encoded(text.to_string()), at),
                    None => match event.get("args") {
                        Some(args) => (Arguments::Value(args.to_serde()), loc.child("args")),
                        None => (Arguments::Absent, loc.clone()),
                    },
                };
                let name = event
                    .get("tool_call_metadata")
                    .and_then(|m| str_at(m, "function_name"))
                    .unwrap_or(action);
                // Calls of one model response that follow each other are one turn.
                let response = event
                    .get("tool_call_metadata")
                    .and_then(|m| m.get("model_response"))
                    .and_then(|r| str_at(r, "id"));
                if response.is_none() || response != last_response {
                    conv.start_turn(Role::Assistant, loc.clone());
                }
                last_response = response;
                conv.push_to_last(Item::Call(ToolCall {
                    key: id.to_string(),
                    id: Some(id.to_string()),
                    name: name.to_string(),
                    kind: CallKind::Function,
                    arguments,
                    args_loc,
                    loc: loc.clone(),
                    message: loc,
                }));
                continue;
            }
            let role = match (action, source) {
                ("message", "user") => Role::User,
                ("message", _) => Role::Assistant,
                ("system", _) => Role::System,
                _ => continue,
            };
            last_response = None;
            conv.start_turn(role, loc.clone());
            conv.push_to_last(Item::Text(Text {
                loc: loc.clone(),
                message: loc,
            }));
            continue;
        }
        let Some(observation) = str_at(event, "observation") else {
            continue;
        };
        let cause = event.get("cause").and_then(Tree::as_u64);
        let answered = call_id(event).map(str::to_string).or_else(|| {
            calls_by_event
                .iter()
                .find(|(n, _)| Some(*n) == cause)
                .map(|(_, id)| id.clone())
        });
        let Some(id) = answered else {
            continue;
        };
        last_response = None;
        let content = event.get("content").unwrap_or(&Tree::Null);
        conv.push(
            Role::Tool,
            &loc,
            Item::Result(ToolResult {
                key: id.clone(),
                call_id: Some(id),
                name: event
                    .get("tool_call_metadata")
                    .and_then(|m| str_at(m, "function_name"))
                    .map(str::to_string),
                is_error: observation == "error"
                    || event.get("success").and_then(Tree::as_bool) == Some(false),
                text: result_text(content),
                provider_executed: false,
                loc: loc.clone(),
                message: loc.clone(),
            }),
        );
    }
    Ok(conv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    #[test]
    fn sniffs_event_arrays_only() {
        let events = json!([
            {"id": 0, "source": "user", "action": "message", "args": {"content": "hi"}},
            {"id": 1, "source": "agent", "observation": "null", "cause": 0, "content": ""}
        ]);
        assert_eq!(OpenHands.sniff(&events), Some(90));
        assert_eq!(OpenHands.sniff(&json!([{"id": 0, "source": "user"}])), None);
        assert_eq!(
            OpenHands.sniff(&json!([{"role": "user", "content": "hi"}])),
            None
        );
    }
}
