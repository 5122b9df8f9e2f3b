//! OpenTelemetry GenAI traces in OTLP JSON (`otlp.rs` reads the envelope and rebuilds
//! conversations from model calls).
//!
//! Two generations of span attributes are read:
//! - the current message attributes (semantic conventions ≥ 1.37,
//!   `open-telemetry/semantic-conventions` `model/gen-ai/gen-ai-input-messages.json`):
//!   `gen_ai.input.messages`, `gen_ai.output.messages` (`[{role, parts:[…]}]` as a JSON
//!   string), `gen_ai.system_instructions` (a part list) and `gen_ai.tool.definitions`. Parts
//!   are `{type:"text", content}`, `{type:"tool_call", id, name, arguments}` and
//!   `{type:"tool_call_response", id, response}`; OpenLLMetry ≥ 0.5x writes them, with
//!   `arguments` an object, or the raw string when it did not parse (`_parse_arguments`), so a
//!   string is read as arguments that do not parse;
//! - OpenLLMetry's flattened attributes: `gen_ai.prompt.N.{role, content, tool_call_id,
//!   tool_calls.M.{id, name, arguments}}`, `gen_ai.completion.N.*` for the response, and
//!   `llm.request.functions.N.{name, description, parameters}` for the tools.
//!
//! The provider is `gen_ai.provider.name` (older: `gen_ai.system`, `"OpenAI"` capitalised in
//! old OpenLLMetry). `execute_tool` spans that failed (`status.code` 2) mark the results of
//! their `gen_ai.tool.call.id` as errors. The 1.28–1.36 log-event form (`resourceLogs`
//! records named `gen_ai.user.message`, `gen_ai.choice`, …) is recognised but not read yet.
//! A trace records requests already sent: there is nothing to repair, so no fixes.

use super::otlp::{self, Attr, FlatKeys, Message, ModelCall};
use super::{Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Arguments, CallKind, Item, Text, ToolCall};
use crate::tree::Value as Tree;
use serde_json::Value as Json;

pub struct Otel;

impl Dialect for Otel {}

/// Attributes that hold a model call's messages.
fn is_content(key: &str) -> bool {
    matches!(
        key,
        "gen_ai.input.messages" | "gen_ai.output.messages" | "gen_ai.system_instructions"
    ) || key.starts_with("gen_ai.prompt.")
        || key.starts_with("gen_ai.completion.")
}

const FLAT: FlatKeys = FlatKeys {
    role: "role",
    content: "content",
    result_id: "tool_call_id",
    calls: "tool_calls.",
    call_id: "id",
    call_name: "name",
    call_args: "arguments",
};

impl Adapter for Otel {
    fn format(&self) -> Format {
        Format::Otel
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        (otlp::is_export(doc) && otlp::any_attribute(doc, is_content)).then_some(90)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        self.sniff(record)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<crate::transcript::Conversation>, String> {
        if !docs.iter().all(|d| otlp::is_export(d.value)) {
            return Err("expected an OTLP JSON export (`resourceSpans`)".into());
        }
        let spans = otlp::spans(docs);
        let failed_runs: Vec<String> = spans
            .iter()
            .filter(|s| {
                otlp::attr_str(&s.attrs, "gen_ai.operation.name") == Some("execute_tool")
                    && s.failed()
            })
            .filter_map(|s| otlp::attr_str(&s.attrs, "gen_ai.tool.call.id").map(str::to_string))
            .collect();
        let calls: Vec<ModelCall> = spans
            .iter()
            .filter(|s| s.attrs.iter().any(|a| is_content(a.key)))
            .map(|s| {
                let (input, output) = messages(&s.attrs);
                ModelCall {
                    input,
                    output,
                    tools: tools(&s.attrs),
                    provider: ["gen_ai.provider.name", "gen_ai.system"]
                        .iter()
                        .find_map(|k| otlp::attr_str(&s.attrs, k))
                        .and_then(crate::provider::from_trace_name),
                    failed: s.failed(),
                    loc: s.loc.clone(),
                    start: s.start,
                    order: s.order,
                }
            })
            .collect();
        if calls.is_empty() && docs.iter().any(|d| d.value.get("resourceSpans").is_some()) {
            // Spans without model calls (HTTP, database ...) are still an export: nothing
            // to check in them, but nothing wrong either when the format was forced.
            return Ok(Vec::new());
        }
        Ok(otlp::rebuild(Format::Otel, calls, &failed_runs))
    }

    fn normalise_records(
        &self,
        docs: &[Doc<'_>],
    ) -> Option<Result<Vec<crate::transcript::Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// A trace records requests already sent: findings only.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }
}

/// A span's request and response, in whichever form it records them.
fn messages(attrs: &[Attr<'_>]) -> (Vec<Message>, Vec<Message>) {
    let mut input = Vec::new();
    let mut output = Vec::new();
    let mut ids = NoIds::default();
    if let Some(system) = otlp::attr(attrs, "gen_ai.system_instructions") {
        let parts = system.json(true);
        let message = serde_json::json!({"role": "system", "parts": parts});
        input.extend(part_message(&message, 0, system, &mut ids));
    }
    for (key, into) in [
        ("gen_ai.input.messages", &mut input),
        ("gen_ai.output.messages", &mut output),
    ] {
        if let Some(attr) = otlp::attr(attrs, key) {
            if let Json::Array(list) = attr.json(true) {
                for (k, m) in list.iter().enumerate() {
                    into.extend(part_message(m, k, attr, &mut ids));
                }
            }
        }
    }
    input.extend(otlp::flat_messages(attrs, "gen_ai.prompt.", &FLAT));
    output.extend(otlp::flat_messages(attrs, "gen_ai.completion.", &FLAT));
    (input, output)
}

/// Pairing keys for calls and results written without ids (allowed by the parts schema):
/// results answer the id-less calls of the last message that made any, in order.
#[derive(Default)]
struct NoIds {
    pending: std::collections::VecDeque<String>,
    made: usize,
}

/// One `{role, parts}` message (or an OpenAI-style `{role, content}` one) inside a
/// content attribute: every item sits at the attribute's string.
fn part_message(m: &Json, k: usize, attr: &Attr<'_>, ids: &mut NoIds) -> Option<Message> {
    let role = otlp::role(m.get("role").and_then(Json::as_str).unwrap_or("user"));
    let at = attr.inner();
    let parts: Vec<Json> = match m.get("parts").or_else(|| m.get("content")) {
        Some(Json::Array(parts)) => parts.clone(),
        Some(Json::String(text)) => vec![serde_json::json!({"type": "text", "content": text})],
        _ => Vec::new(),
    };
    let mut items: Vec<Item> = Vec::new();
    let mut fresh = Vec::new();
    for part in &parts {
        let id = part.get("id").and_then(Json::as_str).map(str::trim);
        match part.get("type").and_then(Json::as_str) {
            Some("tool_call") => {
                if id.is_some_and(|id| otlp::has_call(&items, id)) {
                    continue;
                }
                let key = match id {
                    Some(id) => id.to_string(),
                    None => {
                        ids.made += 1;
                        let key = format!("#noid@{}{}#{k}.{}", at.base, at.pointer, ids.made);
                        fresh.push(key.clone());
                        key
                    }
                };
                let arguments = match part.get("arguments") {
                    Some(Json::String(text)) => Arguments::Encoded(text.clone()),
                    Some(value) => Arguments::Value(value.clone()),
                    None => Arguments::Absent,
                };
                items.push(Item::Call(ToolCall {
                    key,
                    id: id.map(str::to_string),
                    name: part
                        .get("name")
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    kind: CallKind::Function,
                    arguments,
                    args_loc: at.clone(),
                    loc: at.clone(),
                    message: at.clone(),
                }));
            }
            Some("tool_call_response") => {
                // The spec's own example writes `result`.
                let response = part.get("response").or_else(|| part.get("result"));
                let text = match response {
                    Some(Json::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let mut item = otlp::result(id, None, &text, at.clone(), &at);
                if let Item::Result(r) = &mut item {
                    if id.is_none() {
                        r.key = ids.pending.pop_front().unwrap_or_else(|| {
                            ids.made += 1;
                            format!("#noid@{}{}#{k}.{}", at.base, at.pointer, ids.made)
                        });
                    }
                    r.is_error |= response
                        .and_then(|v| v.as_object())
                        .is_some_and(|o| o.contains_key("error"));
                }
                items.push(item);
            }
            // Provider-executed tools are answered inside their turn and never paired.
            Some("server_tool_call" | "server_tool_call_response") => {}
            _ => items.push(Item::Text(Text {
                loc: at.clone(),
                message: at.clone(),
            })),
        }
    }
    if !fresh.is_empty() {
        ids.pending = fresh.into();
    }
    Some(Message {
        role,
        loc: at,
        items,
        print: format!("{}:{}", role.as_str(), serde_json::to_string(&parts).ok()?),
    })
}

/// The tools a span declares: `gen_ai.tool.definitions`, or OpenLLMetry's
/// `llm.request.functions.N.*`.
fn tools(attrs: &[Attr<'_>]) -> Vec<crate::transcript::ToolDef> {
    let mut out = Vec::new();
    if let Some(defs) = otlp::attr(attrs, "gen_ai.tool.definitions") {
        let loc = defs.inner();
        if let Json::Array(list) = defs.json(true) {
            out.extend(list.iter().filter_map(|d| otlp::tool_def(d, &loc)));
        }
    }
    for (_, entries) in otlp::indexed(attrs.iter().map(|a| (a.key, a)), "llm.request.functions.") {
        let Some(loc) = entries.first().map(|(_, a)| a.loc.clone()) else {
            continue;
        };
        let def: serde_json::Map<String, Json> = entries
            .iter()
            .map(|(k, a)| ((*k).to_string(), otlp::any_value(a.value)))
            .collect();
        let schema_loc = entries
            .iter()
            .find(|(k, _)| matches!(*k, "parameters" | "input_schema"))
            .map_or(loc.clone(), |(_, a)| a.inner());
        if let Some(mut tool) = otlp::tool_def(&Json::Object(def), &loc) {
            tool.schema_loc = schema_loc;
            out.push(tool);
        }
    }
    out
}
