//! OpenTelemetry GenAI traces in OTLP JSON (`otlp.rs` reads the envelope, `calls.rs`
//! rebuilds conversations from model calls) or as `ConsoleSpanExporter` prints them
//! (`console_spans.rs`).
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
//! their `gen_ai.tool.call.id` as errors.
//!
//! The 1.28–1.36 log-event form (semconv v1.36.0 `docs/gen-ai/gen-ai-events.md`; what
//! `opentelemetry-instrumentation-openai-v2` 2.3b0 writes): `resourceLogs` records named by
//! `eventName` (older SDKs: the `event.name` attribute) `gen_ai.system.message`,
//! `gen_ai.user.message`, `gen_ai.assistant.message` (`{content, tool_calls:[{id, type,
//! function:{name, arguments}}]}`), `gen_ai.tool.message` (`{content, id}`, `id` the call
//! answered) and `gen_ai.choice` (`{index, finish_reason, message}`), with the body a
//! `kvlistValue`; the events of one `spanId` are one model call, and `arguments` is the
//! string the provider sent (as the spec recommends), so a string is normal there.
//!
//! Span events, the oldest generation (semconv ≤ 1.27 `docs/gen-ai/llm-spans.md`): a
//! `gen_ai.content.prompt` event whose `gen_ai.prompt` attribute is the request's messages as
//! a JSON string (OpenAI style), and `gen_ai.content.completion` with `gen_ai.completion`, the
//! choices. Early `opentelemetry-instrumentation-openai-v2` (`patch.py`, `utils.py`) writes an
//! assistant message that made calls as the bare list of its calls, and a completion that
//! made calls as `{role, content: [calls]}`; Mirascope writes one message, not a list;
//! OpenLIT plain text. The 1.28–1.36 message events may also be span events instead of log
//! records (Azure AI Inference `_add_request_chat_message_events`): the body is then the
//! JSON string in the `gen_ai.event.content` attribute, or the event's attributes. Span
//! events are read only on spans without content attributes (libraries record both).
//!
//! A trace records requests already sent: there is nothing to repair, so no fixes.

use super::console_spans;
use super::tool_spans;
use super::calls::{self, Message, ModelCall};
use super::otlp::{self, Attr, FlatKeys};
use super::{Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Item, Loc, Role, Text};
use crate::tree::Value as Tree;
use serde_json::Value as Json;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain otel` prints (Markdown).
pub(super) const DOC: &str = r#"OpenTelemetry GenAI traces as OTLP JSON (one export request per document, or one per line as a collector's file exporter writes; ids hex or base64) or as the Python SDK's `ConsoleSpanExporter` prints them (one pretty-printed span after another): the message attributes `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions` / `gen_ai.tool.definitions` OpenLLMetry's flattened `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` / `llm.request.functions.N.*`, Logfire's legacy `request_data` / `response_data` (`instrument_openai(version=1)`), the 1.28–1.36 message events (`gen_ai.user.message`, `gen_ai.choice`, …) as log records or span events, and the ≤ 1.27 span events `gen_ai.content.prompt` / `gen_ai.content.completion`; `execute_tool` spans whose calls no model call records (opentelemetry-util-genai's `TelemetryHandler`: `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, `gen_ai.tool.name`, `gen_ai.tool.call.id`) as calls and results, one conversation per trace; model calls whose inputs extend each other are one conversation, checked at its last call ([docs/traces.md](../traces.md)); held to the provider the span names; failed `execute_tool` spans mark their results as errors; a rejection the trace shows succeeded is a warning; findings only"#;

pub struct Otel;

/// Why an export without model calls is not a conversation.
pub(super) const NO_CALLS: &str = "the export holds no model-call spans with message content (HTTP or database spans, or GenAI spans recorded without content)";

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
        let request_event =
            |n: &str| is_span_event(n) && !matches!(n, "gen_ai.choice" | "gen_ai.content.completion");
        let read = |k: &str| is_content(k) || k == tool_spans::ARGUMENTS;
        ((otlp::is_export(doc)
            && (otlp::any_attribute(doc, read) || has_events(doc) || has_span_events(doc)))
            || console_spans::has(doc, read, request_event)
            || has_logfire_request(doc))
        .then_some(90)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        self.sniff(record)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<crate::transcript::Conversation>, String> {
        if !docs
            .iter()
            .all(|d| otlp::is_export(d.value) || console_spans::is_span(d.value))
        {
            return Err("expected an OTLP JSON export (`resourceSpans`) or spans as `ConsoleSpanExporter` prints them".into());
        }
        let mut spans = otlp::spans(docs);
        spans.extend(console_spans::spans(docs, spans.len()));
        let failed_runs: Vec<String> = spans
            .iter()
            .filter(|s| {
                otlp::attr_str(&s.attrs, "gen_ai.operation.name") == Some("execute_tool")
                    && s.failed()
            })
            .filter_map(|s| otlp::attr_str(&s.attrs, "gen_ai.tool.call.id").map(str::to_string))
            .collect();
        let content: Vec<&otlp::Span<'_>> = spans
            .iter()
            .filter(|s| s.attrs.iter().any(|a| is_content(&a.key)) || is_logfire(&s.attrs))
            .collect();
        let threads: Vec<Option<String>> = content.iter().map(|s| thread_of(s)).collect();
        let mut calls: Vec<ModelCall> = content
            .iter()
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
                    trace: s.trace_id().map(str::to_string),
                    rejection: s.status_message(),
                    origins: s.origins(),
                }
            })
            .collect();
        crate::formats::calls::continue_threads(&mut calls, &threads);
        calls.extend(event_calls(docs, &spans));
        calls.extend(spans.iter().filter_map(span_event_call));
        // Tool spans whose calls no model call records are conversations of their own.
        let covered: Vec<String> = calls
            .iter()
            .flat_map(|c| c.input.iter().chain(&c.output))
            .flat_map(|m| &m.items)
            .filter_map(|i| match i {
                Item::Call(call) => call.id.clone(),
                _ => None,
            })
            .collect();
        let traced: Vec<Option<String>> = calls.iter().map(|c| c.trace.clone()).collect();
        let declared = |trace: Option<&str>| {
            spans
                .iter()
                .filter(|s| s.trace_id() == trace)
                .flat_map(|s| tools(&s.attrs))
                .collect()
        };
        let runs = tool_spans::conversations(&spans, &covered, &traced, &declared);
        if calls.is_empty() && runs.is_empty() {
            return Err(NO_CALLS.into());
        }
        let mut convs = calls::rebuild(Format::Otel, calls, &failed_runs);
        convs.extend(runs);
        Ok(convs)
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
    // Logfire's legacy spans: the request whole in `request_data`, the reply in
    // `response_data` (with both formats on, the message attributes are read instead).
    if input.is_empty() {
        if let Some(request) =
            otlp::attr(attrs, "request_data").and_then(otlp::request_messages)
        {
            input = request;
            output = otlp::attr(attrs, "response_data")
                .and_then(otlp::response_messages)
                .unwrap_or_default();
        }
    }
    (input, output)
}

/// A content block of text only (`{"type": "text", "text": …}`).
fn is_text_block(block: &Json) -> bool {
    block.get("type").and_then(Json::as_str) == Some("text")
        && block.get("text").is_some_and(Json::is_string)
}

/// The thread a call continues, for a request on a server-held history: the `anthropic`
/// SDK's tool runner sends each turn on a message thread (`anthropic.beta` holds
/// `message-threads-…`, with `previous_message_id` in the body, which the span leaves out),
/// so its `gen_ai.input.messages` are only what is new since the turn before, and the turns
/// of one run share their trace and parent span (the runner's).
fn thread_of(span: &otlp::Span<'_>) -> Option<String> {
    let beta = otlp::attr(&span.attrs, "anthropic.beta")?.to_json();
    let threaded = match &beta {
        Json::Array(items) => items
            .iter()
            .any(|b| b.as_str().is_some_and(|b| b.starts_with("message-threads"))),
        Json::String(list) => list.split(',').any(|b| b.trim().starts_with("message-threads")),
        _ => false,
    };
    threaded.then(|| format!("{}/{}", span.trace_id().unwrap_or_default(), span.parent_id().unwrap_or_default()))
}

/// Whether a span is one of Logfire's legacy LLM spans (`logfire.instrument_openai(version=1)`,
/// `instrument_anthropic(version=1)`, logfire 5.x `integrations/llm_providers/`): the
/// request's `create` arguments as JSON in `request_data` (`{messages, model, tools}`; the
/// default version 2 keeps only `{model}` there), the reply in `response_data` (`{message,
/// usage}` for OpenAI, the message itself for Anthropic).
fn is_logfire(attrs: &[Attr<'_>]) -> bool {
    otlp::attr_str(attrs, "request_data").is_some_and(|text| text.contains("\"messages\""))
}

/// Whether a document (an OTLP export, a printed span) holds a Logfire legacy LLM span.
fn has_logfire_request(doc: &Tree) -> bool {
    if !(otlp::is_export(doc) || console_spans::is_span(doc)) {
        return false;
    }
    let docs = [Doc {
        base: 0,
        value: doc,
    }];
    let printed = console_spans::spans(&docs, 0);
    otlp::spans(&docs)
        .iter()
        .chain(printed.iter())
        .any(|s| is_logfire(&s.attrs))
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
                items.push(otlp::json_call(key, id, part, &at));
            }
            Some("tool_call_response") => {
                // The spec's own example writes `result`.
                let response = part.get("response").or_else(|| part.get("result"));
                let text = match response {
                    Some(Json::String(s)) => s.clone(),
                    // Content blocks (the `anthropic` SDK's own spans): their text.
                    Some(Json::Array(blocks)) if !blocks.is_empty() && blocks.iter().all(is_text_block) => blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Json::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
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
    // Logfire's legacy spans: the request's own `tools`, where nothing else declares them.
    if out.is_empty() {
        if let Some(request) = otlp::attr(attrs, "request_data") {
            let loc = request.inner();
            if let Some(Json::Array(list)) = request.json(true).get("tools") {
                out.extend(list.iter().filter_map(|d| otlp::tool_def(d, &loc)));
            }
        }
    }
    for (_, entries) in otlp::indexed(attrs.iter().map(|a| (&*a.key, a)), "llm.request.functions.")
    {
        let Some(loc) = entries.first().map(|(_, a)| a.loc.clone()) else {
            continue;
        };
        // The schema attributes are the schema `json.dumps`-ed by design: decoded once, what
        // is left is what the application passed (a string there is a JSON-encoded schema).
        let def: serde_json::Map<String, Json> = entries
            .iter()
            .map(|(k, a)| {
                let value = match (*k, a.as_str()) {
                    ("parameters" | "input_schema", Some(text)) => crate::json::parse_value(text)
                        .unwrap_or_else(|_| Json::String(text.to_string())),
                    _ => a.to_json(),
                };
                ((*k).to_string(), value)
            })
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

/// The log events that carry a model call's messages (semconv 1.28–1.36).
const EVENTS: [&str; 5] = [
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
    "gen_ai.choice",
];

/// Whether an export holds message events.
fn has_events(doc: &Tree) -> bool {
    super::array_at(doc, "resourceLogs")
        .into_iter()
        .flatten()
        .filter_map(|r| super::array_at(r, "scopeLogs"))
        .flatten()
        .filter_map(|s| super::array_at(s, "logRecords"))
        .flatten()
        .any(|record| {
            // A choice alone is what content recording off leaves: no request.
            let request = |n: &str| EVENTS.contains(&n) && n != "gen_ai.choice";
            let named = super::str_at(record, "eventName").is_some_and(request);
            named
                || super::array_at(record, "attributes")
                    .into_iter()
                    .flatten()
                    .any(|a| {
                        super::str_at(a, "key") == Some("event.name")
                            && a.get("value")
                                .and_then(|v| super::str_at(v, "stringValue"))
                                .is_some_and(request)
                    })
        })
}

/// The model calls recorded as log events: one per span the events name.
fn event_calls(docs: &[Doc<'_>], spans: &[otlp::Span<'_>]) -> Vec<ModelCall> {
    type Key<'k> = (Option<&'k str>, Option<&'k str>);
    let records = otlp::log_records(docs);
    let mut groups: Vec<(Key<'_>, Vec<&otlp::LogRecord<'_>>)> = Vec::new();
    for record in &records {
        if !record.event_name().is_some_and(|n| EVENTS.contains(&n)) {
            continue;
        }
        let key = record.span_key();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(record),
            None => groups.push((key, vec![record])),
        }
    }
    groups
        .into_iter()
        .filter_map(|((trace, span_id), list)| {
            let first = list.first()?;
            let span = spans.iter().find(|s| {
                span_id.is_some()
                    && super::str_at(s.value, "spanId") == span_id
                    && super::str_at(s.value, "traceId") == trace
            });
            let mut input = Vec::new();
            let mut output = Vec::new();
            for record in &list {
                sort_into(event_message(record), &mut input, &mut output);
            }
            // A choice alone (content recording off): no request, nothing to check.
            if input.is_empty() {
                return None;
            }
            let named = |attrs: &[Attr<'_>]| {
                ["gen_ai.provider.name", "gen_ai.system"]
                    .iter()
                    .find_map(|k| otlp::attr_str(attrs, k))
                    .and_then(crate::provider::from_trace_name)
            };
            Some(ModelCall {
                input,
                output,
                tools: Vec::new(),
                provider: named(&first.attrs).or_else(|| span.and_then(|s| named(&s.attrs))),
                failed: span.is_some_and(otlp::Span::failed),
                loc: first.loc.clone(),
                start: span.map_or_else(|| first.time(), |s| s.start),
                order: spans.len() + first.order,
                trace: trace.map(str::to_string),
                rejection: span.and_then(otlp::Span::status_message),
                // Each record's body is named by its event.
                origins: list
                    .iter()
                    .map(|r| crate::transcript::Origin::at(r.loc.clone(), trace, span_id, r.event_name()))
                    .collect(),
            })
        })
        .collect()
}

/// Puts a message event's message in the request or the response.
fn sort_into(found: Option<(bool, Message)>, input: &mut Vec<Message>, output: &mut Vec<Message>) {
    match found {
        Some((true, message)) => output.push(message),
        Some((false, message)) => input.push(message),
        None => {}
    }
}

/// One message event: whether it is the response, and the message.
fn event_message(record: &otlp::LogRecord<'_>) -> Option<(bool, Message)> {
    let name = record.event_name()?;
    let body = record.value.get("body").map_or(Json::Null, otlp::any_value);
    message_event(name, &body, record.loc.child("body"))
}

/// A message event's body (a log record's, or a span event's) as a message: whether it is
/// the response, and the message.
fn message_event(name: &str, body: &Json, at: Loc) -> Option<(bool, Message)> {
    let (role, message, is_output) = match name {
        "gen_ai.system.message" => (Role::System, body.clone(), false),
        "gen_ai.user.message" => (Role::User, body.clone(), false),
        "gen_ai.assistant.message" => (Role::Assistant, body.clone(), false),
        "gen_ai.tool.message" => (Role::Tool, body.clone(), false),
        _ => {
            // Only the first choice is what the conversation went on with.
            if body.get("index").and_then(Json::as_u64).unwrap_or(0) != 0 {
                return None;
            }
            (
                Role::Assistant,
                body.get("message").cloned().unwrap_or(Json::Null),
                true,
            )
        }
    };
    let items = otlp::json_items(role, &message, &at);
    Some((
        is_output,
        Message {
            role,
            loc: at,
            items,
            print: format!("{name}:{}", serde_json::to_string(&message).ok()?),
        },
    ))
}

/// The span events of semconv ≤ 1.27 that carry a whole request or response.
const CONTENT_EVENTS: [&str; 2] = ["gen_ai.content.prompt", "gen_ai.content.completion"];

fn is_span_event(name: &str) -> bool {
    CONTENT_EVENTS.contains(&name) || EVENTS.contains(&name)
}

/// Whether any span of an export carries a request in span events (a choice alone is what
/// instrumentations write with content recording off: not a conversation).
fn has_span_events(doc: &Tree) -> bool {
    super::array_at(doc, "resourceSpans")
        .into_iter()
        .flatten()
        .filter_map(|r| super::array_at(r, "scopeSpans"))
        .flatten()
        .filter_map(|s| super::array_at(s, "spans"))
        .flatten()
        .filter_map(|span| super::array_at(span, "events"))
        .flatten()
        .any(|e| {
            super::str_at(e, "name").is_some_and(|n| {
                is_span_event(n) && !matches!(n, "gen_ai.choice" | "gen_ai.content.completion")
            })
        })
}

/// The model call a span records in its events, if it records one there (and not in
/// content attributes, which libraries writing both would have counted twice).
fn span_event_call(span: &otlp::Span<'_>) -> Option<ModelCall> {
    if span.attrs.iter().any(|a| is_content(&a.key)) {
        return None;
    }
    let events = super::array_at(span.value, "events")?;
    let mut input = Vec::new();
    let mut output = Vec::new();
    let mut provider = None;
    let mut origins = span.origins();
    for (j, event) in events.iter().enumerate() {
        let Some(name) = super::str_at(event, "name").filter(|n| is_span_event(n)) else {
            continue;
        };
        let loc = span.loc.child(("events", j));
        let attrs = otlp::attributes(event, &loc);
        origins.push(crate::transcript::Origin::at(loc.clone(), span.trace_id(), span.span_id(), Some(name)));
        for a in &attrs {
            let attribute = format!("{name}: {}", a.key);
            origins.push(crate::transcript::Origin::at(a.loc.clone(), span.trace_id(), span.span_id(), Some(&attribute)));
        }
        provider = provider.or_else(|| {
            otlp::attr_str(&attrs, "gen_ai.system").and_then(crate::provider::from_trace_name)
        });
        match name {
            "gen_ai.content.prompt" => {
                if let Some(attr) = otlp::attr(&attrs, "gen_ai.prompt") {
                    input.extend(legacy_messages(attr, "user"));
                }
            }
            "gen_ai.content.completion" => {
                // One message per choice: the first is what the conversation went on with.
                if let Some(attr) = otlp::attr(&attrs, "gen_ai.completion") {
                    output.extend(legacy_messages(attr, "assistant").into_iter().take(1));
                }
            }
            _ => {
                let content = otlp::attr(&attrs, "gen_ai.event.content");
                let body = match content.map(|a| a.json(true)) {
                    Some(body @ Json::Object(_)) => body,
                    _ => Json::Object(
                        attrs
                            .iter()
                            .map(|a| (a.key.to_string(), a.to_json()))
                            .collect(),
                    ),
                };
                let at = content.map_or(loc, otlp::Attr::inner);
                sort_into(message_event(name, &body, at), &mut input, &mut output);
            }
        }
    }
    // Without content recording only the choice is written, its calls stripped of names and
    // arguments: no request, nothing to check.
    if input.is_empty() {
        return None;
    }
    Some(ModelCall {
        input,
        output,
        tools: Vec::new(),
        provider: ["gen_ai.provider.name", "gen_ai.system"]
            .iter()
            .find_map(|k| otlp::attr_str(&span.attrs, k))
            .and_then(crate::provider::from_trace_name)
            .or(provider),
        failed: span.failed(),
        loc: span.loc.clone(),
        start: span.start,
        order: span.order,
        trace: span.trace_id().map(str::to_string),
        rejection: span.status_message(),
        origins,
    })
}

/// The messages of a ≤ 1.27 `gen_ai.prompt` / `gen_ai.completion` attribute: a JSON list of
/// OpenAI-style messages (or one message), every item at the attribute's string; text that
/// is not JSON (OpenLIT, Python reprs) is one message of `role`.
fn legacy_messages(attr: &Attr<'_>, role: &str) -> Vec<Message> {
    let at = attr.inner();
    let list = match attr.json(true) {
        Json::Array(list) => list,
        message @ Json::Object(_) => vec![message],
        _ => {
            let text = attr.as_str().unwrap_or_default();
            if text.trim().is_empty() {
                return Vec::new();
            }
            vec![serde_json::json!({"role": role, "content": text})]
        }
    };
    list.iter()
        .enumerate()
        .map(|(k, m)| {
            let mut message = otlp::json_message(&legacy_message(m, role), at.clone());
            // Calls without ids are told apart by their message: all sit at one string.
            for item in &mut message.items {
                if let Item::Call(call) = item {
                    if call.id.is_none() {
                        call.key = format!("{}#{k}", call.key);
                    }
                }
            }
            message
        })
        .collect()
}

/// One element of a ≤ 1.27 message list as an OpenAI message: a bare list of calls is the
/// assistant message that made them; calls written as the content (`[{id, type, function}]`,
/// or a legacy `{name, arguments}` function call) become its `tool_calls`.
fn legacy_message(m: &Json, role: &str) -> Json {
    let mut message = match m {
        Json::Array(calls) => serde_json::json!({"role": "assistant", "tool_calls": calls}),
        Json::Object(_) => m.clone(),
        other => serde_json::json!({"role": role, "content": other}),
    };
    let Some(object) = message.as_object_mut() else {
        return message;
    };
    object
        .entry("role")
        .or_insert_with(|| Json::String(role.to_string()));
    let calls: Option<Vec<Json>> = match object.get("content") {
        Some(Json::Array(items))
            if !items.is_empty() && items.iter().all(|c| c.get("function").is_some()) =>
        {
            Some(items.clone())
        }
        Some(Json::Object(call)) if call.contains_key("name") && call.contains_key("arguments") => {
            Some(vec![serde_json::json!({"function": call})])
        }
        _ => None,
    };
    if let Some(calls) = calls {
        object.remove("content");
        match object.get_mut("tool_calls") {
            Some(Json::Array(existing)) => existing.extend(calls),
            _ => {
                object.insert("tool_calls".into(), Json::Array(calls));
            }
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use crate::tree_json as json;

    use super::*;
    use crate::formats::session_docs;

    fn export(attributes: crate::tree::Value<'static>) -> crate::tree::Value<'static> {
        json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "spanId": "s", "name": "chat", "attributes": attributes, "status": {"code": 1}}]}]}]})
    }

    #[test]
    fn sniffs_genai_exports_only() {
        let parts =
            export(json!([{"key": "gen_ai.input.messages", "value": {"stringValue": "[]"}}]));
        assert_eq!(Otel.sniff(&parts), Some(90));
        let flat =
            export(json!([{"key": "gen_ai.prompt.0.role", "value": {"stringValue": "user"}}]));
        assert_eq!(Otel.sniff(&flat), Some(90));
        let events = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{"eventName": "gen_ai.user.message", "body": {"kvlistValue": {"values": []}}}]}]}]});
        assert_eq!(Otel.sniff(&events), Some(90));
        // Near misses: an HTTP span, a GenAI span without content, an OpenInference span,
        // a chat request, a log that is not a GenAI event.
        for other in [
            export(json!([{"key": "http.request.method", "value": {"stringValue": "GET"}}])),
            export(json!([{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}])),
            export(
                json!([{"key": "llm.input_messages.0.message.role", "value": {"stringValue": "user"}}]),
            ),
            json!({"messages": [{"role": "user", "content": "hi"}]}),
            json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{"eventName": "app.start"}]}]}]}),
        ] {
            assert_eq!(Otel.sniff(&other), None, "{other}");
        }
    }

    /// Two conversations interleaved in one export: each call joins the chain its input
    /// extends, and each chain is read once, at its last call.
    #[test]
    fn interleaved_chains_stay_apart() {
        let span = |start: &str, input: &str| {
            json!({"traceId": "t", "spanId": "s", "name": "chat", "startTimeUnixNano": start, "status": {"code": 1}, "attributes": [
                {"key": "gen_ai.input.messages", "value": {"stringValue": input}},
                {"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"ok\"}]}]"}}
            ]})
        };
        let a1 = r#"[{"role":"user","parts":[{"type":"text","content":"a"}]}]"#;
        let b1 = r#"[{"role":"user","parts":[{"type":"text","content":"b"}]}]"#;
        let a2 = r#"[{"role":"user","parts":[{"type":"text","content":"a"}]},{"role":"assistant","parts":[{"type":"text","content":"ok"}]},{"role":"user","parts":[{"type":"text","content":"a2"}]}]"#;
        let doc = json!({"resourceSpans": [{"scopeSpans": [{"spans": [span("1", a1), span("2", b1), span("3", a2)]}]}]});
        let convs = Otel
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        let at: Vec<&str> = convs.iter().map(|c| c.loc.pointer.as_str()).collect();
        assert_eq!(
            at,
            [
                "/resourceSpans/0/scopeSpans/0/spans/1",
                "/resourceSpans/0/scopeSpans/0/spans/2"
            ]
        );
        assert!(convs
            .iter()
            .all(|c| c.accepted && c.declares_tools.is_none()));
    }

    /// Calls of two traces: the same prompt run twice stays two conversations, and a trace
    /// per user turn (the next turn's input goes on past the last) is still one.
    #[test]
    fn traces_split_runs_but_not_turns() {
        let span = |trace: &str, start: &str, input: &str| {
            json!({"traceId": trace, "spanId": "s", "name": "chat", "startTimeUnixNano": start, "status": {"code": 1}, "attributes": [
                {"key": "gen_ai.input.messages", "value": {"stringValue": input}},
                {"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"ok\"}]}]"}}
            ]})
        };
        let one = r#"[{"role":"user","parts":[{"type":"text","content":"a"}]}]"#;
        let two = r#"[{"role":"user","parts":[{"type":"text","content":"a"}]},{"role":"assistant","parts":[{"type":"text","content":"ok"}]},{"role":"user","parts":[{"type":"text","content":"b"}]}]"#;
        let read = |spans: Vec<crate::tree::Value<'static>>| {
            let doc = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
            Otel.normalise(&session_docs(std::slice::from_ref(&doc)))
                .unwrap_or_default()
                .len()
        };
        let runs = vec![
            span("A", "1", one),
            span("A", "2", two),
            span("B", "3", one),
            span("B", "4", two),
        ];
        assert_eq!(read(runs), 2);
        let turns = vec![span("A", "1", one), span("B", "2", two)];
        assert_eq!(read(turns), 1);
    }

    /// Tool definitions in both `gen_ai.tool.definitions` forms and OpenLLMetry's flattened
    /// keys: a `parameters` the application passed as a string is read as a JSON-encoded
    /// schema; the flattened attribute's own encoding is not.
    #[test]
    fn tool_definitions_keep_a_string_schema() {
        use crate::transcript::SchemaDecl;
        let schema = r#"{\"type\":\"object\"}"#;
        let defs = format!(
            r#"[{{"type":"function","name":"a","parameters":"{schema}"}},{{"type":"function","function":{{"name":"b","parameters":{{"type":"object"}}}}}}]"#
        );
        let str_attr = |k: &str, v: &str| json!({"key": k, "value": {"stringValue": v}});
        let doc = export(crate::tree::Value::Array(vec![
            str_attr("gen_ai.tool.definitions", &defs),
            str_attr("llm.request.functions.0.name", "c"),
            str_attr("llm.request.functions.0.parameters", r#"{"type":"object"}"#),
            str_attr("llm.request.functions.1.name", "d"),
            str_attr("llm.request.functions.1.parameters", &format!(r#""{schema}""#)),
        ]));
        let docs = session_docs(std::slice::from_ref(&doc));
        let spans = otlp::spans(&docs);
        let read = spans.first().map(|s| tools(&s.attrs)).unwrap_or_default();
        let encoded: Vec<(&str, bool)> = read
            .iter()
            .map(|t| (t.name.as_str(), matches!(t.schema, Some(SchemaDecl::Encoded(_)))))
            .collect();
        assert_eq!(encoded, [("a", true), ("b", false), ("c", false), ("d", true)]);
    }

    /// A call written twice in one message is one call; a failed `execute_tool` span marks
    /// the result of its call as an error; the provider is the one the span names.
    #[test]
    fn one_call_once_and_tool_span_errors() {
        let input = r#"[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"f","arguments":{}},{"type":"tool_call","id":"c1","name":"f","arguments":{}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"done"}]}]"#;
        let doc = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
            {"traceId": "t", "spanId": "a", "status": {"code": 2}, "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.call.id", "value": {"stringValue": "c1"}}]},
            {"traceId": "t", "spanId": "b", "status": {"code": 1}, "attributes": [
                {"key": "gen_ai.provider.name", "value": {"stringValue": "anthropic"}},
                {"key": "gen_ai.input.messages", "value": {"stringValue": input}}]}
        ]}]}]});
        let convs = Otel
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        assert_eq!(conv.calls().count(), 1);
        assert!(conv.results().all(|(_, r)| r.is_error));
        assert_eq!(conv.provider, Some(crate::provider::Provider::Anthropic));
        // No output recorded: nothing shows the provider accepted it.
        assert!(!conv.accepted);
    }

    fn with_events(
        attributes: crate::tree::Value<'static>,
        events: crate::tree::Value<'static>,
    ) -> crate::tree::Value<'static> {
        json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "spanId": "s", "name": "chat", "attributes": attributes, "events": events, "status": {"code": 1}}]}]}]})
    }

    /// Span events are recognised; other span events (an exception) are not message events.
    #[test]
    fn sniffs_span_events() {
        let prompt = with_events(
            json!([]),
            json!([{"name": "gen_ai.content.prompt", "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "[]"}}]}]),
        );
        assert_eq!(Otel.sniff(&prompt), Some(90));
        let message = with_events(
            json!([]),
            json!([{"name": "gen_ai.user.message", "attributes": []}]),
        );
        assert_eq!(Otel.sniff(&message), Some(90));
        let exception = with_events(json!([]), json!([{"name": "exception", "attributes": []}]));
        assert_eq!(Otel.sniff(&exception), None);
        let choice = with_events(
            json!([]),
            json!([{"name": "gen_ai.choice", "attributes": []}]),
        );
        assert_eq!(Otel.sniff(&choice), None);
    }

    /// The ≤ 1.27 shapes early OpenAI instrumentations wrote: an assistant message as the
    /// bare list of its calls, a completion whose content is the calls, one message instead
    /// of a list, and text that is not JSON.
    #[test]
    fn legacy_prompt_shapes() {
        let prompt = r#"[{"role":"user","content":"hi"},[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}],{"role":"tool","content":"ok","tool_call_id":"c1"}]"#;
        let completion = r#"[{"role":"assistant","content":[{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}]"#;
        let doc = with_events(
            json!([{"key": "gen_ai.system", "value": {"stringValue": "openai"}}]),
            json!([
                {"name": "gen_ai.content.prompt", "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": prompt}}]},
                {"name": "gen_ai.content.completion", "attributes": [{"key": "gen_ai.completion", "value": {"stringValue": completion}}]}
            ]),
        );
        let convs = Otel
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        let calls: Vec<&str> = conv.calls().map(|(_, c)| c.name.as_str()).collect();
        assert_eq!(calls, ["f", "g"]);
        assert_eq!(conv.results().count(), 1);
        assert_eq!(conv.provider, Some(crate::provider::Provider::Openai));
        assert!(conv.accepted);
        let one = legacy_message(&serde_json::json!({"name": "f", "arguments": "{}"}), "user");
        assert_eq!(one.get("role").and_then(Json::as_str), Some("user"));
        let call = legacy_message(
            &serde_json::json!({"role": "assistant", "content": {"name": "f", "arguments": "{}"}}),
            "assistant",
        );
        assert!(call.get("tool_calls").is_some() && call.get("content").is_none());
        let text = with_events(
            json!([]),
            json!([{"name": "gen_ai.content.prompt", "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "user: hello"}}]}]),
        );
        let convs = Otel
            .normalise(&session_docs(std::slice::from_ref(&text)))
            .unwrap_or_default();
        assert_eq!(convs.len(), 1);
    }

    /// A span with content attributes and events is read once, from its attributes.
    #[test]
    fn attributes_win_over_events() {
        let doc = with_events(
            json!([{"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"a\"}]}]"}}]),
            json!([{"name": "gen_ai.user.message", "attributes": [{"key": "gen_ai.event.content", "value": {"stringValue": "{\"role\":\"user\",\"content\":\"a\"}"}}]}]),
        );
        let convs = Otel
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        assert_eq!(convs.len(), 1);
        assert_eq!(convs.first().map(|c| c.turns.len()), Some(1));
    }

    /// Without content recording only a choice is written, its calls without names: not a
    /// model call to check.
    #[test]
    fn choice_without_request_is_no_call() {
        let doc = with_events(
            json!([]),
            json!([{"name": "gen_ai.choice", "attributes": [{"key": "gen_ai.event.content", "value": {"stringValue": "{\"index\":0,\"message\":{\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\"}]}}"}}]}]),
        );
        assert!(Otel
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .is_err());
    }
}
