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
//!
//! V1 (the software agent SDK, `OpenHands/software-agent-sdk`
//! `openhands-sdk/openhands/sdk/event/llm_convertible/{action,observation,message,system}.py`,
//! `conversation/persistence_const.py`): a conversation directory holds `base_state.json` and
//! `events/event-NNNNN-<event id>.json` (older: `event-NNNNN.json`), one event per file,
//! each `{kind: <class name>, id, timestamp, source: agent|user|environment, …}`. The folder is
//! one conversation (`folder.rs` reads it as the records of one session, as it reads Strands
//! `messages/`); one event per JSONL line is read the same way. `ActionEvent` is a call
//! (`tool_call: {id, name, arguments: <JSON text>, origin}`, `tool_call_id`, `tool_name`);
//! the actions of one `llm_response_id` are one assistant message. `ObservationEvent`
//! (`observation: {content: [{type, text}], is_error}`), `AgentErrorEvent` (`error`) and
//! `UserRejectObservation` (`rejection_reason`) answer their `tool_call_id`, the last two as
//! failures. `MessageEvent` (`llm_message: {role, content}`) and `SystemPromptEvent` are text
//! turns; other events (state updates, condensations, pauses) are not sent as messages. The
//! whole log is read: a `Condensation`'s forgotten events and the branches of a tree log
//! (`parent_id`) are not applied. `SystemPromptEvent.tools` carries no parameter schemas (and
//! tools are named by a class-derived name the event does not store), so no tools are
//! declared. The SDK drops unmatched actions and observations before every request
//! (`sdk/context/view/properties/tool_call_matching.py`), so those are lost work, not
//! rejections (`repaired_pairing`).

use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text, ToolCall,
    ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain openhands` prints (Markdown).
pub(super) const DOC: &str = r#"OpenHands (V0) trajectories: a JSON array of events (`action` / `observation`, `source`, `cause`, `tool_call_metadata`); an action with `tool_call_metadata` is a call (arguments from its recorded `model_response`, else `args`; calls of one response are one turn), an observation answers the call of its `tool_call_metadata` or of the action its `cause` names; `observation: "error"` and `success: false` are failures; recalls and state changes are left out; findings only. OpenHands V1 SDK conversation folders (folder): `<conversation>/events/event-NNNNN-<event id>.json` (or `event-NNNNN.json`) beside `base_state.json`, one event per file; the `events` folder is one conversation, read when it, any file in it or a folder above it is named, files in index order (one event per JSONL line is read the same way); `ActionEvent` calls (`tool_call`; the actions of one `llm_response_id` are one turn), `ObservationEvent` (`observation.is_error`), `AgentErrorEvent` and `UserRejectObservation` results (failures), `MessageEvent` and `SystemPromptEvent` text; the whole log is read (condensations and tree branches not applied); the SDK drops unmatched actions and observations before sending, so those are warnings; findings are placed in the event file they are in; findings only"#;

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

    /// A V0 trajectory, or one V1 event file named alone (outside its folder), read as a
    /// conversation of one event.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        if is_v1_event(doc) {
            return Some(90);
        }
        let events = doc.as_array()?;
        let all = !events.is_empty() && events.iter().all(is_event);
        (all && events.iter().any(|e| e.get("action").is_some())).then_some(90)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        is_v1_event(record).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        if docs.iter().all(|d| d.value.is_array()) {
            return docs.iter().map(normalise_doc).collect();
        }
        normalise_v1(docs).map(|c| c.into_iter().collect())
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
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

/// A call item, its message the event.
fn call(id: &str, name: &str, arguments: Arguments, args_loc: Loc, loc: Loc) -> Item {
    Item::Call(ToolCall {
        key: id.to_string(),
        id: Some(id.to_string()),
        name: name.to_string(),
        kind: CallKind::Function,
        arguments,
        args_loc,
        loc: loc.clone(),
        message: loc,
    })
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
                        Some(args) => (Arguments::value(args.to_serde()), loc.child("args")),
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
                conv.push_to_last(call(id, name, arguments, args_loc, loc));
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
                id_field: None,
                loc: loc.clone(),
                message: loc.clone(),
            }),
        );
    }
    Ok(conv)
}

/// The V1 events that stand for messages sent to the model, or events around them.
const V1_KINDS: [&str; 6] = [
    "ActionEvent",
    "ObservationEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
    "MessageEvent",
    "SystemPromptEvent",
];

/// Whether a value is one V1 event: a `kind` naming an event class, a string `id` and a
/// `source`. Events that are not messages (state updates, condensations) count only when
/// read among others, as a folder's or a JSONL session's records.
fn is_v1_event(value: &Tree) -> bool {
    str_at(value, "kind").is_some_and(|k| V1_KINDS.contains(&k))
        && value.get("id").is_some_and(Tree::is_string)
        && str_at(value, "source").is_some_and(|s| matches!(s, "agent" | "user" | "environment"))
}

/// A V1 event log (a folder's files, or JSONL lines, in order) as one conversation.
fn normalise_v1(docs: &[Doc<'_>]) -> Result<Option<Conversation>, String> {
    let Some(first) = docs.first() else {
        return Ok(None);
    };
    if !docs.iter().any(|d| is_v1_event(d.value)) {
        return Err("expected OpenHands events (`kind`, `id`, `source`)".into());
    }
    let mut conv = Conversation::new(
        Format::OpenHands,
        Loc::new(first.base, ""),
        Pairing::NextTurn,
    );
    // The SDK drops actions and observations without their other half before each request
    // (`sdk/context/view/properties/tool_call_matching.py`).
    conv.repaired_pairing = true;
    // The model response of the call just read, while nothing else has come between.
    let mut last_response: Option<&str> = None;
    for doc in docs {
        let event = doc.value;
        let loc = Loc::new(doc.base, "");
        let text_turn = |conv: &mut Conversation, role: Role, at: Loc| {
            conv.start_turn(role, at.clone());
            conv.push_to_last(Item::Text(Text {
                loc: at.clone(),
                message: at,
            }));
        };
        match str_at(event, "kind").unwrap_or_default() {
            "ActionEvent" => {
                let tool_call = event.get("tool_call");
                let Some(id) = str_at(event, "tool_call_id")
                    .or_else(|| tool_call.and_then(|c| str_at(c, "id")))
                else {
                    continue;
                };
                let response = str_at(event, "llm_response_id");
                if response.is_none() || response != last_response {
                    conv.start_turn(Role::Assistant, loc.clone());
                }
                last_response = response;
                let (arguments, args_loc) = match tool_call.and_then(|c| c.get("arguments")) {
                    Some(Tree::String(text)) => (
                        Arguments::Encoded(text.to_string()),
                        loc.child(("tool_call", "arguments")),
                    ),
                    Some(other) => (
                        Arguments::value(other.to_serde()),
                        loc.child(("tool_call", "arguments")),
                    ),
                    None => (Arguments::Absent, loc.clone()),
                };
                let name = tool_call
                    .and_then(|c| str_at(c, "name"))
                    .or_else(|| str_at(event, "tool_name"))
                    .unwrap_or_default();
                conv.push_to_last(call(id, name, arguments, args_loc, loc));
            }
            kind @ ("ObservationEvent" | "AgentErrorEvent" | "UserRejectObservation") => {
                let Some(id) = str_at(event, "tool_call_id") else {
                    continue;
                };
                last_response = None;
                let observation = event.get("observation");
                let (text, is_error) = match kind {
                    "ObservationEvent" => (
                        observation
                            .and_then(|o| o.get("content"))
                            .map(result_text)
                            .unwrap_or_default(),
                        observation
                            .and_then(|o| o.get("is_error"))
                            .and_then(Tree::as_bool)
                            == Some(true),
                    ),
                    "AgentErrorEvent" => (
                        event.get("error").map(result_text).unwrap_or_default(),
                        true,
                    ),
                    _ => (
                        event
                            .get("rejection_reason")
                            .map(result_text)
                            .unwrap_or_default(),
                        true,
                    ),
                };
                conv.push(
                    Role::Tool,
                    &loc,
                    Item::Result(ToolResult {
                        key: id.to_string(),
                        call_id: Some(id.to_string()),
                        name: str_at(event, "tool_name").map(str::to_string),
                        is_error,
                        text,
                        provider_executed: false,
                        id_field: None,
                        loc: loc.clone(),
                        message: loc.clone(),
                    }),
                );
            }
            "MessageEvent" => {
                last_response = None;
                let message = event.get("llm_message");
                let role = match message.and_then(|m| str_at(m, "role")) {
                    Some("assistant") => Role::Assistant,
                    Some("system") => Role::System,
                    Some("user") => Role::User,
                    _ if str_at(event, "source") == Some("agent") => Role::Assistant,
                    _ => Role::User,
                };
                text_turn(&mut conv, role, loc.child("llm_message"));
            }
            "SystemPromptEvent" => {
                last_response = None;
                text_turn(&mut conv, Role::System, loc.child("system_prompt"));
            }
            _ => {}
        }
    }
    Ok(Some(conv))
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

    #[test]
    fn sniffs_v1_events() {
        let action =
            json!({"kind": "ActionEvent", "id": "a1", "source": "agent", "tool_call_id": "c1"});
        assert_eq!(OpenHands.sniff(&action), Some(90));
        assert_eq!(OpenHands.sniff_record(&action), Some(90));
        // Near misses: a V0 event on its own, an unknown class, a numeric id.
        for other in [
            json!({"id": 0, "source": "user", "action": "message"}),
            json!({"kind": "ConversationStateUpdateEvent", "id": "s", "source": "environment"}),
            json!({"kind": "ActionEvent", "id": 3, "source": "agent"}),
            json!({"kind": "ActionEvent", "id": "a", "source": "model"}),
        ] {
            assert_eq!(OpenHands.sniff(&other), None, "{other}");
        }
    }

    /// Parallel calls of one response are one turn; observations, errors and rejections
    /// answer their call, the last two as failures.
    #[test]
    fn v1_events_as_one_conversation() {
        let events = [
            json!({"kind": "SystemPromptEvent", "id": "s", "source": "agent", "system_prompt": {"type": "text", "text": "sys"}, "tools": []}),
            json!({"kind": "MessageEvent", "id": "m", "source": "user", "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]}}),
            json!({"kind": "ActionEvent", "id": "a1", "source": "agent", "tool_name": "terminal", "tool_call_id": "c1", "tool_call": {"id": "c1", "name": "terminal", "arguments": "{}", "origin": "completion"}, "llm_response_id": "r1", "thought": []}),
            json!({"kind": "ActionEvent", "id": "a2", "source": "agent", "tool_name": "terminal", "tool_call_id": "c2", "tool_call": {"id": "c2", "name": "terminal", "arguments": "{}", "origin": "completion"}, "llm_response_id": "r1", "thought": []}),
            json!({"kind": "ConversationStateUpdateEvent", "id": "u", "source": "environment", "key": "x", "value": 1}),
            json!({"kind": "ObservationEvent", "id": "o1", "source": "environment", "tool_name": "terminal", "tool_call_id": "c1", "action_id": "a1", "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": "ok"}], "is_error": false}}),
            json!({"kind": "AgentErrorEvent", "id": "o2", "source": "agent", "tool_name": "terminal", "tool_call_id": "c2", "error": "bad"}),
        ];
        let docs: Vec<Doc<'_>> = events
            .iter()
            .enumerate()
            .map(|(i, value)| Doc {
                base: i * 1000,
                value,
            })
            .collect();
        let convs = OpenHands.normalise(&docs).unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [Role::System, Role::User, Role::Assistant, Role::Tool]
        );
        let errors: Vec<bool> = conv.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(errors, [false, true]);
    }
}
