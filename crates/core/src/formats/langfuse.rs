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
//! Rebuilt as the OTLP traces are (`calls::rebuild`): calls whose inputs extend each other
//! are one conversation, checked at its last call. `level: "ERROR"` is a failed call. A trace
//! records requests already sent: findings only.
//!
//! Tool executions are `type: "TOOL"` observations (the LangChain handler's `on_tool_start`,
//! `as_type="tool"`), or `SPAN`s named as the tool, with no call id: `input` the tool input,
//! `output` what it returned, `level: "ERROR"` and `statusMessage` when it raised. They are
//! matched to the calls a GENERATION's output makes by name and order: those of the same
//! trace (and parent, when both name one) that start after it and before the trace's next
//! GENERATION, paired in order when a name has as many executions as calls, never when the
//! counts differ. A matched failure marks the call's result as an error wherever the history
//! carries it, and a matched execution supplies the result of a call the trace's last model
//! output leaves open.

use super::calls::{self, Message, ModelCall};
use super::otlp::{self, Place};
use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Loc, Role, Text, ToolDef};
use crate::tree::Value as Tree;
use serde_json::Value as Json;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain langfuse` prints (Markdown).
pub(super) const DOC: &str = r#"Langfuse trace exports: a trace (`GET /api/public/traces/{id}`, `observations`), an observation list (`{data, meta}`), a bare array or one observation per line; `GENERATION` observations' `input`/`output` as the OpenAI integration (`messages` or `{messages, tools}`; the assistant message) or the LangChain handler (OpenAI roles with LangChain `{name, args, id}` calls; tools appended as `{role: "tool", content: <definition>}` are read as definitions) write them, as JSON or a JSON string; rebuilt and judged as `otel` is ([docs/traces.md](../traces.md)); `level: ERROR` is a failed call; `TOOL` observations (no call id) are matched to the calls before them by name and order where that is unambiguous, their `level: ERROR` marking the result as failed; findings only"#;

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
        let mut generations = Vec::new();
        let mut runs = Vec::new();
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
                    generations.push(Step::of(observation, loc.clone()));
                    calls.push(model_call(observation, loc, calls.len()));
                } else if matches!(str_at(observation, "type"), Some("TOOL" | "SPAN")) {
                    runs.push((Step::of(observation, loc), observation));
                }
            }
        }
        if calls
            .iter()
            .all(|c| c.input.is_empty() && c.output.is_empty())
        {
            return Err("the export holds no GENERATION observation with messages".into());
        }
        let failed = match_runs(&mut calls, &generations, &runs);
        Ok(calls::rebuild(Format::Langfuse, calls, &failed))
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
    let (trace, id) = (str_at(observation, "traceId"), str_at(observation, "id"));
    let origins = crate::transcript::Origin::record(&loc, trace, id, ["input", "output"]);
    ModelCall {
        input,
        output,
        tools,
        provider,
        failed: str_at(observation, "level") == Some("ERROR"),
        start: str_at(observation, "startTime").map_or(0, otlp::iso_nanos),
        loc,
        order,
        trace: trace.map(str::to_string),
        rejection: str_at(observation, "statusMessage").map(str::to_string),
        origins,
    }
}

/// Where an observation sits in its trace: what tool executions are matched by.
struct Step<'a> {
    trace: Option<&'a str>,
    parent: Option<&'a str>,
    name: Option<&'a str>,
    start: u128,
    loc: Loc,
}

impl<'a> Step<'a> {
    fn of(observation: &'a Tree<'a>, loc: Loc) -> Self {
        Step {
            trace: str_at(observation, "traceId"),
            parent: str_at(observation, "parentObservationId"),
            name: str_at(observation, "name"),
            start: str_at(observation, "startTime").map_or(0, otlp::iso_nanos),
            loc,
        }
    }
}

/// Matches tool executions to the calls of the GENERATION before them (see the module
/// comment): each matched execution's result is appended to that GENERATION's output (read
/// only where it is the last of its conversation), and the ids of the calls whose execution
/// failed are returned.
fn match_runs(
    calls: &mut [ModelCall],
    generations: &[Step<'_>],
    runs: &[(Step<'_>, &Tree<'_>)],
) -> Vec<String> {
    let mut failed = Vec::new();
    let mut used = vec![false; runs.len()];
    for (g, (call, step)) in calls.iter_mut().zip(generations).enumerate() {
        let next = generations
            .iter()
            .enumerate()
            .filter(|(h, other)| *h != g && other.trace == step.trace && other.start > step.start)
            .map(|(_, other)| other.start)
            .min();
        let window: Vec<usize> = (0..runs.len())
            .filter(|&r| {
                let Some((run, _)) = runs.get(r) else {
                    return false;
                };
                run.trace == step.trace
                    && run.start >= step.start
                    && next.is_none_or(|n| run.start < n)
                    && (run.parent.is_none() || step.parent.is_none() || run.parent == step.parent)
            })
            .collect();
        let made: Vec<(String, Option<String>, String)> = call
            .output
            .iter()
            .flat_map(|m| &m.items)
            .filter_map(|i| match i {
                Item::Call(c) => Some((c.key.clone(), c.id.clone(), c.name.clone())),
                _ => None,
            })
            .collect();
        let mut results = Vec::new();
        let mut names: Vec<&str> = made.iter().map(|(_, _, n)| n.as_str()).collect();
        names.dedup();
        for name in names {
            let wanted: Vec<&(String, Option<String>, String)> =
                made.iter().filter(|(_, _, n)| n == name).collect();
            // TOOL observations first; a SPAN named as the tool only where there is none.
            let of_type = |kind: &str| -> Vec<usize> {
                window
                    .iter()
                    .copied()
                    .filter(|&r| {
                        runs.get(r).is_some_and(|(run, value)| {
                            run.name == Some(name)
                                && str_at(value, "type") == Some(kind)
                                && !used.get(r).copied().unwrap_or(true)
                        })
                    })
                    .collect()
            };
            let mut found = of_type("TOOL");
            if found.is_empty() {
                found = of_type("SPAN");
            }
            // Ambiguous (more or fewer executions than calls): no pairing is invented.
            if found.len() != wanted.len() {
                continue;
            }
            found.sort_by_key(|&r| runs.get(r).map_or(0, |(run, _)| run.start));
            for ((key, id, name), r) in wanted.into_iter().zip(found) {
                let Some((run, value)) = runs.get(r) else {
                    continue;
                };
                if let Some(slot) = used.get_mut(r) {
                    *slot = true;
                }
                let error = str_at(value, "level") == Some("ERROR");
                if error {
                    failed.extend(id.clone());
                }
                let text = match value.get("output") {
                    Some(Tree::Null) | None => str_at(value, "statusMessage")
                        .unwrap_or_default()
                        .to_string(),
                    Some(Tree::String(s)) => s.as_str().to_string(),
                    Some(other) => other.to_serde().to_string(),
                };
                let at = run.loc.child("output");
                let mut item = otlp::result(id.as_deref(), Some(name), &text, at.clone(), &run.loc);
                if let Item::Result(result) = &mut item {
                    result.key.clone_from(key);
                    result.is_error |= error;
                }
                results.push(item);
            }
        }
        if !results.is_empty() {
            call.output.push(Message {
                role: Role::Tool,
                loc: step.loc.clone(),
                print: String::new(),
                items: results,
            });
        }
    }
    failed
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
                        loc.child((0, "message"))
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

    /// The results a trace's last model output gets from tool executions: paired by name and
    /// order when the counts agree (a SPAN named as the tool where there is no TOOL
    /// observation), none when a name has more calls than executions.
    #[test]
    fn tool_observations_match_by_name_and_order() {
        let output = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "look", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "look", "arguments": "{}"}},
            {"id": "c", "type": "function", "function": {"name": "fetch", "arguments": "{}"}},
            {"id": "d", "type": "function", "function": {"name": "ping", "arguments": "{}"}},
            {"id": "e", "type": "function", "function": {"name": "ping", "arguments": "{}"}}
        ]});
        let doc = json!({"observations": [
            {"id": "g", "traceId": "t", "type": "GENERATION", "name": "chat", "startTime": "2025-01-01T00:00:00Z", "parentObservationId": "run",
                "input": [{"role": "user", "content": "hi"}], "output": output},
            {"id": "t1", "traceId": "t", "type": "TOOL", "name": "look", "startTime": "2025-01-01T00:00:01Z", "parentObservationId": "run", "output": "one"},
            {"id": "t2", "traceId": "t", "type": "TOOL", "name": "look", "startTime": "2025-01-01T00:00:02Z", "parentObservationId": "run",
                "output": null, "level": "ERROR", "statusMessage": "boom"},
            {"id": "s1", "traceId": "t", "type": "SPAN", "name": "fetch", "startTime": "2025-01-01T00:00:03Z", "parentObservationId": "run", "output": {"ok": true}},
            {"id": "t3", "traceId": "t", "type": "TOOL", "name": "ping", "startTime": "2025-01-01T00:00:04Z", "parentObservationId": "run", "output": "pong"}
        ]});
        let convs = Langfuse
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        let results: Vec<(Option<&str>, bool)> = conv
            .results()
            .map(|(_, r)| (r.call_id.as_deref(), r.is_error))
            .collect();
        assert_eq!(
            results,
            [(Some("a"), false), (Some("b"), true), (Some("c"), false)]
        );
    }
}
