//! Langfuse trace exports: a trace as `GET /api/public/traces/{id}` returns it (`{id,
//! observations:[…], scores, …}`), an observation list (`GET /api/public/observations`,
//! `{data:[…], meta}`), a bare array of observations, or one observation per JSONL line
//! (langfuse/langfuse `fern/apis/server/definition/commons.yml`: `Trace`, `Observation`).
//!
//! An observation is `{id, traceId, type, name, startTime, endTime, model, input, output,
//! metadata, level: DEBUG|DEFAULT|WARNING|ERROR, statusMessage, parentObservationId}`; model
//! calls are `type: "GENERATION"`. What `input` and `output` hold is what the integration
//! captured, as JSON or, from the v2 observations API without `parseIoAsJson`, as a JSON
//! string:
//! - the OpenAI integration: `input` the `messages` array, or `{messages, tools}` when tools
//!   were passed; `output` the assistant message `{role, content, tool_calls}`;
//! - the LangChain `CallbackHandler` (langfuse/langfuse-python
//!   `langfuse/langchain/CallbackHandler.py`, `_convert_message_to_dict`): OpenAI roles, with
//!   LangChain's calls `{name, args, id, type: "tool_call"}` and tool messages `{role: "tool",
//!   content, tool_call_id}`; the model's tools are appended to the input as `{role: "tool",
//!   content: <tool definition>}` (`__on_llm_action`), which are definitions, not results.
//!
//! Rebuilt as the OTLP traces are (`otlp::rebuild`): calls whose inputs extend each other
//! are one conversation, checked at its last call. `level: "ERROR"` is a failed call. A trace
//! records requests already sent: findings only.

use super::otlp::{self, Message, ModelCall, Place};
use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Loc, Role, Text, ToolDef};
use crate::tree::Value as Tree;
use serde_json::Value as Json;

pub struct Langfuse;

impl Dialect for Langfuse {}

/// Whether a value is an observation (`type`, `traceId`, `startTime`).
fn is_observation(value: &Tree) -> bool {
    str_at(value, "type").is_some()
        && str_at(value, "traceId").is_some()
        && value.get("startTime").is_some()
}

fn is_generation(value: &Tree) -> bool {
    is_observation(value) && str_at(value, "type") == Some("GENERATION")
}

/// The observations of a document and the pointer of their array ("" for a record that is
/// one observation).
fn observations<'a>(doc: &'a Tree<'a>) -> Option<(&'static str, &'a [Tree<'a>])> {
    if let Some(list) = doc.as_array() {
        return list
            .first()
            .is_some_and(is_observation)
            .then_some(("", list.as_slice()));
    }
    for key in ["observations", "data"] {
        if let Some(list) = array_at(doc, key) {
            return list.first().is_some_and(is_observation).then_some((
                if key == "data" {
                    "/data"
                } else {
                    "/observations"
                },
                list,
            ));
        }
    }
    None
}

impl Adapter for Langfuse {
    fn format(&self) -> Format {
        Format::Langfuse
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let (_, list) = observations(doc)?;
        list.iter().any(is_generation).then_some(90)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        is_observation(record).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut calls = Vec::new();
        for doc in docs {
            let (prefix, list) = if is_observation(doc.value) {
                ("", std::slice::from_ref(doc.value))
            } else {
                observations(doc.value).ok_or(
                    "expected a Langfuse trace (`observations`), an observation list (`data`) or observations",
                )?
            };
            let root = Loc::new(doc.base, prefix);
            for (i, observation) in list.iter().enumerate() {
                let loc = if prefix.is_empty() && list.len() == 1 && is_observation(doc.value) {
                    root.clone()
                } else {
                    root.child(i)
                };
                if is_generation(observation) {
                    calls.push(model_call(observation, loc, calls.len()));
                }
            }
        }
        if calls
            .iter()
            .all(|c| c.input.is_empty() && c.output.is_empty())
        {
            return Err("the export holds no GENERATION observation with messages".into());
        }
        Ok(otlp::rebuild(Format::Langfuse, calls, &[]))
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// A trace records requests already sent: findings only.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }
}

fn model_call(observation: &Tree, loc: Loc, order: usize) -> ModelCall {
    let mut tools = Vec::new();
    let input = observation
        .get("input")
        .map(|v| io(v, loc.child("input"), Role::User, &mut tools))
        .unwrap_or_default();
    let output = observation
        .get("output")
        .map(|v| io(v, loc.child("output"), Role::Assistant, &mut tools))
        .unwrap_or_default();
    let provider = observation
        .get("metadata")
        .and_then(|m| str_at(m, "ls_provider"))
        .and_then(crate::provider::from_trace_name)
        .or_else(|| str_at(observation, "model").and_then(from_model));
    ModelCall {
        input,
        output,
        tools,
        provider,
        failed: str_at(observation, "level") == Some("ERROR"),
        start: str_at(observation, "startTime").map_or(0, otlp::iso_nanos),
        loc,
        order,
    }
}

/// The provider a model name belongs to, by the families' own prefixes.
pub(crate) fn from_model(model: &str) -> Option<Provider> {
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or_default();
    if ["gpt-", "o1", "o3", "o4", "chatgpt-"]
        .iter()
        .any(|p| model.starts_with(p))
    {
        Some(Provider::Openai)
    } else if model.starts_with("claude") {
        Some(Provider::Anthropic)
    } else if model.starts_with("gemini") {
        Some(Provider::Gemini)
    } else if model.starts_with("mistral") || model.starts_with("codestral") {
        Some(Provider::Mistral)
    } else {
        None
    }
}

/// The messages of an observation's `input` or `output` (and the tools it declares); text
/// that is no message list is one message of `role`.
fn io(value: &Tree, loc: Loc, role: Role, tools: &mut Vec<ToolDef>) -> Vec<Message> {
    let (json, place) = match value {
        Tree::String(text) => match crate::json::parse_value(text.as_str()) {
            Ok(json @ (Json::Array(_) | Json::Object(_))) => (
                json,
                Place {
                    loc,
                    precise: false,
                },
            ),
            _ => return text_message(text.is_blank(), role, loc),
        },
        Tree::Null => return Vec::new(),
        other => (other.to_serde(), Place { loc, precise: true }),
    };
    messages(&json, &place, role, tools)
}

fn text_message(blank: bool, role: Role, loc: Loc) -> Vec<Message> {
    if blank {
        return Vec::new();
    }
    vec![Message {
        role,
        items: vec![Item::Text(Text {
            loc: loc.clone(),
            message: loc.clone(),
        })],
        print: format!("{}@{}", role.as_str(), loc.pointer),
        loc,
    }]
}

fn messages(json: &Json, place: &Place, role: Role, tools: &mut Vec<ToolDef>) -> Vec<Message> {
    let (list, at): (&[Json], Place) = match json {
        Json::Array(list) => (
            list,
            Place {
                loc: place.loc.clone(),
                precise: place.precise,
            },
        ),
        Json::Object(map) => {
            if let Some(Json::Array(defs)) = map.get("tools") {
                let at = place.child("tools");
                for (n, def) in defs.iter().enumerate() {
                    let loc = if place.precise {
                        at.child(n)
                    } else {
                        at.clone()
                    };
                    tools.extend(otlp::tool_def(def, &loc));
                }
            }
            match (map.get("messages"), map.get("choices")) {
                (Some(Json::Array(list)), _) => (
                    list,
                    Place {
                        loc: place.child("messages"),
                        precise: place.precise,
                    },
                ),
                // A whole chat completion: its first choice is what the conversation went on with.
                (_, Some(Json::Array(choices))) => {
                    let Some(message) = choices.first().and_then(|c| c.get("message")) else {
                        return Vec::new();
                    };
                    let loc = place.child("choices");
                    let loc = if place.precise {
                        loc.child(0).child("message")
                    } else {
                        loc
                    };
                    return vec![otlp::json_message(message, loc)];
                }
                _ if map.contains_key("role") => {
                    return vec![otlp::json_message(json, place.loc.clone())]
                }
                _ => return Vec::new(),
            }
        }
        Json::String(text) => return text_message(text.trim().is_empty(), role, place.loc.clone()),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (j, message) in list.iter().enumerate() {
        let loc = at.child(j);
        if let Some(def) = tool_definition(message) {
            tools.extend(otlp::tool_def(def, &loc));
            continue;
        }
        if message.get("role").is_some() {
            out.push(otlp::json_message(message, loc));
        }
    }
    out
}

/// The LangChain handler appends the model's tools to the input as `{role: "tool", content:
/// <definition>}`: a definition, not a result (it answers no call).
fn tool_definition(message: &Json) -> Option<&Json> {
    if message.get("role").and_then(Json::as_str) != Some("tool")
        || message.get("tool_call_id").is_some()
    {
        return None;
    }
    let content = message.get("content")?;
    let inner = content.get("function").unwrap_or(content);
    let declares = inner.get("name").is_some_and(Json::is_string)
        && ["parameters", "input_schema", "description"]
            .iter()
            .any(|k| inner.get(*k).is_some());
    declares.then_some(content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::session_docs;
    use crate::tree_json as json;

    #[test]
    fn sniffs_traces_and_observation_lists() {
        let generation = json!({"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z"});
        let span =
            json!({"id": "s", "traceId": "t", "type": "SPAN", "startTime": "2025-01-01T00:00:00Z"});
        assert_eq!(
            Langfuse.sniff(&json!({"id": "t", "observations": [generation.clone()]})),
            Some(90)
        );
        assert_eq!(
            Langfuse.sniff(&json!({"data": [span.clone(), generation.clone()], "meta": {}})),
            Some(90)
        );
        // Near misses: spans only, a trace list whose observations are ids, messages.
        assert_eq!(Langfuse.sniff(&json!({"observations": [span]})), None);
        assert_eq!(
            Langfuse.sniff(&json!({"data": [{"id": "t", "observations": ["g"]}]})),
            None
        );
        assert_eq!(
            Langfuse.sniff(&json!([{"role": "user", "content": "hi"}])),
            None
        );
    }

    /// Tools the LangChain handler appends as tool messages are definitions; input as a JSON
    /// string (v2 API) is read.
    #[test]
    fn appended_tools_are_definitions() {
        let input = r#"[{"role":"user","content":"hi"},{"role":"tool","content":{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}}]"#;
        let doc = json!({"observations": [{"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z",
            "input": input, "output": {"role": "assistant", "content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]}, "level": "DEFAULT"}]});
        let convs = Langfuse
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        assert_eq!(conv.tools.len(), 1);
        assert_eq!(conv.results().count(), 0);
        assert_eq!(conv.calls().count(), 1);
        assert!(conv.accepted);
    }

    #[test]
    fn iso_timestamps_order() {
        let a = otlp::iso_nanos("2025-03-01T10:00:00.5Z");
        let b = otlp::iso_nanos("2025-03-01T10:00:00.123456+00:00");
        let c = otlp::iso_nanos("2025-03-01T10:00:01");
        assert!(b < a && a < c, "{a} {b} {c}");
        assert_eq!(otlp::iso_nanos("soon"), 0);
    }
}
