//! The OTLP JSON envelope the trace formats share (`otel.rs`, `openinference.rs`), and the
//! readers of the messages their attributes hold.
//!
//! An export request is `{resourceSpans:[{resource, scopeSpans:[{scope, spans:[…]}]}]}`
//! (`opentelemetry-proto` `opentelemetry/proto/collector/trace/v1/trace_service.proto`,
//! JSON encoding in `docs/specification.md`); a collector's file exporter writes one request
//! per line. Attributes are `[{key, value: AnyValue}]`, an AnyValue a one-key object
//! (`stringValue`, `intValue` as a decimal string, `doubleValue`, `boolValue`,
//! `arrayValue:{values}`, `kvlistValue:{values:[{key, value}]}`, `bytesValue`). Ids are hex
//! in the OTLP encoding and base64 in protobuf's canonical JSON (what `MessageToJson` of the
//! Python SDK's request writes, with `kind: "SPAN_KIND_CLIENT"` and
//! `status.code: "STATUS_CODE_OK"` as enum names); ids are only compared with ids of the
//! same file, so both are read as written.
//!
//! The model calls read from spans are rebuilt into conversations by `calls.rs`.

use super::calls::Message;
use super::{array_at, field, str_at, Doc};
use crate::transcript::{
    pairing_key, text_looks_like_error, Arguments, CallKind, Item, Loc, Origin, Role, Text,
    ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;
use serde_json::Value as Json;

/// One attribute: its key and AnyValue, and where the value is.
pub(crate) struct Attr<'a> {
    /// Owned where a container nests what OTLP flattens (Phoenix's dataframe rows).
    pub key: std::borrow::Cow<'a, str>,
    pub value: &'a Tree<'a>,
    /// The AnyValue object, or the value itself when `plain`.
    pub loc: Loc,
    /// The value is written as itself, not wrapped in an AnyValue (Phoenix's REST spans and
    /// dataframe rows).
    pub plain: bool,
}

impl Attr<'_> {
    /// The AnyValue's one member: its first non-null one (Phoenix's OTLP page writes every
    /// member, the unset ones `null`).
    fn member(&self) -> Option<(&str, &Tree<'_>)> {
        any_member(self.value)
    }

    /// Where the scalar is (`…/value/stringValue`).
    pub fn inner(&self) -> Loc {
        match self.member() {
            Some((key, _)) if !self.plain => self.loc.child(key),
            _ => self.loc.clone(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        if self.plain {
            return self.value.as_str();
        }
        match self.member() {
            Some(("stringValue" | "string_value", v)) => v.as_str(),
            _ => None,
        }
    }

    /// The value as owned JSON; a string holding JSON (how content attributes are written)
    /// is parsed when `decode`.
    pub fn json(&self, decode: bool) -> Json {
        match self.as_str() {
            Some(text) if decode => crate::json::parse_value(text).unwrap_or(Json::Null),
            _ => self.to_json(),
        }
    }

    /// The value as owned JSON, as written.
    pub fn to_json(&self) -> Json {
        if self.plain {
            self.value.to_serde()
        } else {
            any_value(self.value)
        }
    }
}

/// A span's attributes, in written order: OTLP's `[{key, value: AnyValue}]`, or a flat map
/// of keys to plain values (what `ReadableSpan.to_json()` prints, `console_spans.rs`).
pub(crate) fn attributes<'a>(holder: &'a Tree<'a>, loc: &Loc) -> Vec<Attr<'a>> {
    if let Some(Tree::Object(map)) = holder.get("attributes") {
        let at = loc.child("attributes");
        return map
            .iter()
            .map(|(key, value)| Attr {
                key: std::borrow::Cow::Borrowed(key),
                value,
                loc: at.child(key),
                plain: true,
            })
            .collect();
    }
    let list = array_at(holder, "attributes").map_or(&[][..], Vec::as_slice);
    list.iter()
        .enumerate()
        .filter_map(|(i, a)| {
            Some(Attr {
                key: str_at(a, "key")?.into(),
                value: a.get("value")?,
                loc: loc.child(("attributes", i)).child("value"),
                plain: false,
            })
        })
        .collect()
}

pub(crate) fn attr<'b, 'a>(attrs: &'b [Attr<'a>], key: &str) -> Option<&'b Attr<'a>> {
    attrs.iter().find(|a| a.key == key)
}

pub(crate) fn attr_str<'b>(attrs: &'b [Attr<'_>], key: &str) -> Option<&'b str> {
    attr(attrs, key).and_then(Attr::as_str)
}

/// The member of an AnyValue that holds the value: the first that is not `null`.
fn any_member<'t>(value: &'t Tree<'t>) -> Option<(&'t str, &'t Tree<'t>)> {
    value.as_object()?.iter().find(|(_, v)| !v.is_null())
}

/// An AnyValue as owned JSON (`kvlistValue` an object, `arrayValue` an array), in the
/// camelCase of the OTLP encoding or the snake_case of protobuf field names.
pub(crate) fn any_value(value: &Tree) -> Json {
    let Some((key, inner)) = any_member(value) else {
        return Json::Null;
    };
    match key {
        "arrayValue" | "array_value" => Json::Array(
            array_at(inner, "values")
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(any_value)
                .collect(),
        ),
        "kvlistValue" | "kvlist_value" => Json::Object(
            array_at(inner, "values")
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|kv| {
                    Some((str_at(kv, "key")?.to_string(), any_value(kv.get("value")?)))
                })
                .collect(),
        ),
        // int64 is a decimal string in the JSON encoding.
        "intValue" | "int_value" => match inner.as_str() {
            Some(text) => text
                .parse::<i64>()
                .map_or_else(|_| Json::String(text.to_string()), Json::from),
            None => inner.to_serde(),
        },
        _ => inner.to_serde(),
    }
}

/// Whether a document is an OTLP export (traces or logs), with camelCase or protobuf's
/// snake_case field names (`MessageToJson(preserving_proto_field_name=True)`).
pub(crate) fn is_export(doc: &Tree) -> bool {
    field(doc, &["resourceSpans", "resourceLogs", "resource_spans"])
        .is_some_and(|(_, v)| v.is_array())
}

/// The array under either spelling of a field, with the spelling found.
fn list<'a>(
    value: &'a Tree<'a>,
    camel: &'static str,
    snake: &'static str,
) -> (&'static str, &'a [Tree<'a>]) {
    match field(value, &[camel, snake]) {
        Some((name, Tree::Array(items))) => (name, items.as_slice()),
        _ => (camel, &[]),
    }
}

/// One span of an export.
pub(crate) struct Span<'a> {
    pub value: &'a Tree<'a>,
    pub loc: Loc,
    pub attrs: Vec<Attr<'a>>,
    /// Start time in nanoseconds (0 when missing), then file order, order the calls.
    pub start: u128,
    pub order: usize,
}

impl Span<'_> {
    /// `status.code` 2 / `STATUS_CODE_ERROR`, or `status_code: "ERROR"` (Phoenix's REST
    /// spans and dataframe rows; `status.status_code` as `ConsoleSpanExporter` prints it).
    pub fn failed(&self) -> bool {
        let printed = self
            .value
            .get("status")
            .and_then(|s| str_at(s, "status_code"));
        if let Some(code) = str_at(self.value, "status_code").or(printed) {
            return code == "ERROR";
        }
        match self.value.get("status").and_then(|s| s.get("code")) {
            Some(Tree::String(s)) => s.as_str() == "STATUS_CODE_ERROR" || s.as_str() == "2",
            Some(code) => code.as_u64() == Some(2),
            None => false,
        }
    }
}

/// Nanoseconds written as a decimal string or a number.
pub(crate) fn nanos(value: Option<&Tree>) -> u128 {
    match value {
        Some(Tree::String(s)) => s.as_str().parse().unwrap_or(0),
        Some(v) => v.as_u64().map_or(0, u128::from),
        None => 0,
    }
}

/// Every span of every document (export request), in file order.
pub(crate) fn spans<'a>(docs: &'a [Doc<'a>]) -> Vec<Span<'a>> {
    let mut out = Vec::new();
    for doc in docs {
        let root = Loc::new(doc.base, "");
        let (rkey, resources) = list(doc.value, "resourceSpans", "resource_spans");
        for (r, resource) in resources.iter().enumerate() {
            let (skey, scopes) = list(resource, "scopeSpans", "scope_spans");
            for (s, scope) in scopes.iter().enumerate() {
                let at = root
                    .child(rkey)
                    .child(r)
                    .child(skey)
                    .child(s)
                    .child("spans");
                let list = array_at(scope, "spans").map_or(&[][..], Vec::as_slice);
                for (i, span) in list.iter().enumerate() {
                    let order = out.len();
                    out.push(Span::new(span, at.child(i), order));
                }
            }
        }
    }
    out
}

impl<'a> Span<'a> {
    /// An OTLP span (camelCase or snake_case) at `loc`.
    pub fn new(span: &'a Tree<'a>, loc: Loc, order: usize) -> Span<'a> {
        Span {
            value: span,
            attrs: attributes(span, &loc),
            loc,
            start: nanos(
                field(span, &["startTimeUnixNano", "start_time_unix_nano"]).map(|(_, v)| v),
            ),
            order,
        }
    }

    /// What the span's status says it failed with: OTLP's `status.message`, the printed
    /// span's `status.description`, Phoenix's `status_message`.
    pub fn status_message(&self) -> Option<String> {
        let status = self.value.get("status");
        status
            .and_then(|s| str_at(s, "message").or_else(|| str_at(s, "description")))
            .or_else(|| str_at(self.value, "status_message"))
            .filter(|m| !m.trim().is_empty())
            .map(str::to_string)
    }

    /// The span's own id, as written: `spanId`, `span_id`, `context.span_id`.
    pub fn span_id(&self) -> Option<&'a str> {
        let value: &'a Tree<'a> = self.value;
        field(value, &["spanId", "span_id", "context.span_id"])
            .and_then(|(_, v)| v.as_str())
            .or_else(|| value.get("context").and_then(|c| str_at(c, "span_id")))
    }

    /// The parent span's id, as written: `parentSpanId`, `parent_span_id`, `parent_id`
    /// (`ConsoleSpanExporter`, Phoenix).
    pub fn parent_id(&self) -> Option<&'a str> {
        let value: &'a Tree<'a> = self.value;
        field(value, &["parentSpanId", "parent_span_id", "parent_id"]).and_then(|(_, v)| v.as_str())
    }

    /// Where the span's nodes were read from: the span, and each of its attributes.
    pub fn origins(&self) -> Vec<Origin> {
        let (trace, id) = (self.trace_id(), self.span_id());
        std::iter::once(Origin::at(self.loc.clone(), trace, id, None))
            .chain(
                self.attrs
                    .iter()
                    .map(|a| Origin::at(a.loc.clone(), trace, id, Some(&a.key))),
            )
            .collect()
    }

    /// The trace the span belongs to, as written: `traceId` (OTLP), `trace_id` (snake_case,
    /// Phoenix's `otlpv1` page), `context.trace_id` (Phoenix REST spans, `ConsoleSpanExporter`
    /// dumps), or the `context.trace_id` column (Phoenix dataframe rows).
    pub fn trace_id(&self) -> Option<&'a str> {
        let value: &'a Tree<'a> = self.value;
        field(value, &["traceId", "trace_id", "context.trace_id"])
            .and_then(|(_, v)| v.as_str())
            .or_else(|| value.get("context").and_then(|c| str_at(c, "trace_id")))
    }
}

/// Whether any span of the document has an attribute `matches` accepts.
pub(crate) fn any_attribute(doc: &Tree, matches: impl Fn(&str) -> bool) -> bool {
    list(doc, "resourceSpans", "resource_spans")
        .1
        .iter()
        .flat_map(|r| list(r, "scopeSpans", "scope_spans").1)
        .filter_map(|s| array_at(s, "spans"))
        .flatten()
        .any(|span| span_has_attribute(span, &matches))
}

/// Whether one OTLP span has an attribute `matches` accepts.
pub(crate) fn span_has_attribute(span: &Tree, matches: impl Fn(&str) -> bool) -> bool {
    array_at(span, "attributes")
        .into_iter()
        .flatten()
        .any(|a| str_at(a, "key").is_some_and(&matches))
}

/// The role of a message as traces write it.
pub(crate) fn role(name: &str) -> Role {
    match name {
        "system" | "developer" => Role::System,
        "assistant" | "model" | "ai" => Role::Assistant,
        "tool" | "function" | "ipython" => Role::Tool,
        _ => Role::User,
    }
}

/// Tool definitions in any dialect a trace records them in (`gen_ai.tool.definitions` in
/// both its forms, OpenInference `tool.json_schema`, OpenLLMetry `llm.request.functions.N`
/// once its attributes are decoded, the provider's `tools` in Langfuse and LangSmith
/// payloads): the name and the parameters schema, `None` when the definition leaves it out
/// (unknown, not "no arguments"). The definition is the tool object as the application
/// passed it, so a schema written as a string is the string the provider was sent (a
/// JSON-encoded schema), not an encoding of the trace's.
pub(crate) fn tool_def(def: &Json, loc: &Loc) -> Option<ToolDef> {
    let inner = def.get("function").filter(|f| f.is_object()).unwrap_or(def);
    let name = inner.get("name")?.as_str()?;
    let schema = ["parameters", "input_schema", "inputSchema"]
        .iter()
        .find_map(|k| inner.get(*k))
        .filter(|s| !s.is_null());
    let schema = schema.map(|s| match s {
        Json::String(text) => crate::transcript::SchemaDecl::Encoded(text.clone()),
        other => crate::transcript::SchemaDecl::Value(std::sync::Arc::new(other.clone())),
    });
    let mut tool = ToolDef::declared(name, None, loc.clone(), loc.clone());
    tool.schema = schema;
    Some(tool)
}

/// The attributes under `prefix` grouped by the index that follows it
/// (`gen_ai.prompt.3.role` → 3, `role`), in index order; gaps are tolerated.
pub(crate) fn indexed<'b, 'a>(
    attrs: impl IntoIterator<Item = (&'b str, &'b Attr<'a>)>,
    prefix: &str,
) -> Vec<(usize, Vec<(&'b str, &'b Attr<'a>)>)> {
    let mut out: Vec<(usize, Vec<(&'b str, &'b Attr<'a>)>)> = Vec::new();
    for (key, a) in attrs {
        let Some((index, rest)) = key.strip_prefix(prefix).and_then(|r| r.split_once('.')) else {
            continue;
        };
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
        match out.iter_mut().find(|(i, _)| *i == index) {
            Some((_, keys)) => keys.push((rest, a)),
            None => out.push((index, vec![(rest, a)])),
        }
    }
    out.sort_by_key(|(i, _)| *i);
    out
}

/// The keys of one flattened message (OpenLLMetry `gen_ai.prompt.N.*`, OpenInference
/// `llm.input_messages.N.message.*`).
pub(crate) struct FlatKeys {
    pub role: &'static str,
    pub content: &'static str,
    /// On tool messages: the call answered.
    pub result_id: &'static str,
    /// Where the calls of an assistant message are, indexed (`tool_calls.`).
    pub calls: &'static str,
    pub call_id: &'static str,
    pub call_name: &'static str,
    pub call_args: &'static str,
}

/// The messages flattened under `prefix`.
pub(crate) fn flat_messages(attrs: &[Attr<'_>], prefix: &str, keys: &FlatKeys) -> Vec<Message> {
    let mut out = Vec::new();
    for (_, entries) in indexed(attrs.iter().map(|a| (&*a.key, a)), prefix) {
        let get = |k: &str| entries.iter().find(|(key, _)| *key == k).map(|(_, a)| *a);
        let Some(first) = entries.first().map(|(_, a)| *a) else {
            continue;
        };
        let at = first.loc.clone();
        let role = role(get(keys.role).and_then(Attr::as_str).unwrap_or("user"));
        let mut print: Vec<String> = entries
            .iter()
            .map(|(k, a)| format!("{k}={}", a.to_json()))
            .collect();
        print.sort();
        let mut items = Vec::new();
        let content = get(keys.content);
        let result_id = get(keys.result_id).and_then(Attr::as_str);
        if let (Role::Tool, Some(id)) = (role, result_id) {
            let text = content.and_then(Attr::as_str).unwrap_or_default();
            items.push(result(
                Some(id),
                None,
                text,
                content.map_or(at.clone(), Attr::inner),
                &at,
            ));
        } else if let Some(content) = content {
            blocks_or_text(content, &at, &mut items);
        }
        let calls = entries
            .iter()
            .filter_map(|(k, a)| Some((k.strip_prefix(keys.calls)?, *a)));
        for (_, call) in indexed(calls, "") {
            let get = |k: &str| call.iter().find(|(key, _)| *key == k).map(|(_, a)| *a);
            let Some(loc) = call.first().map(|(_, a)| a.loc.clone()) else {
                continue;
            };
            let id = get(keys.call_id).and_then(Attr::as_str);
            if id.is_some_and(|id| has_call(&items, id)) {
                continue;
            }
            let args = get(keys.call_args);
            items.push(Item::Call(ToolCall {
                key: pairing_key(id, &loc),
                id: id.map(str::to_string),
                name: get(keys.call_name)
                    .and_then(Attr::as_str)
                    .unwrap_or_default()
                    .to_string(),
                kind: CallKind::Function,
                arguments: args
                    .and_then(Attr::as_str)
                    .map_or(Arguments::Absent, |s| Arguments::Encoded(s.to_string())),
                args_loc: args.map_or(loc.clone(), Attr::inner),
                loc,
                message: at.clone(),
            }));
        }
        out.push(Message {
            role,
            loc: at,
            items,
            print: print.join("\n"),
        });
    }
    out
}

/// Whether a call with this id is already read from the message (libraries write a call
/// twice: in the content blocks and in `tool_calls`).
pub(crate) fn has_call(items: &[Item], id: &str) -> bool {
    items
        .iter()
        .any(|i| matches!(i, Item::Call(c) if c.id.as_deref() == Some(id)))
}

/// A result item.
pub(crate) fn result(id: Option<&str>, name: Option<&str>, text: &str, loc: Loc, at: &Loc) -> Item {
    let trimmed: String = text.trim().chars().take(400).collect();
    Item::Result(ToolResult {
        key: pairing_key(id, &loc),
        call_id: id.map(str::to_string),
        name: name.map(str::to_string),
        is_error: text_looks_like_error(text),
        text: trimmed,
        provider_executed: false,
        id_field: None,
        loc,
        message: at.clone(),
    })
}

/// Flattened content: plain text, or a JSON-dumped block list (OpenLLMetry writes an
/// Anthropic message's content array as a string, so its `tool_use` and `tool_result`
/// blocks exist only there).
fn blocks_or_text(content: &Attr<'_>, at: &Loc, items: &mut Vec<Item>) {
    let loc = content.inner();
    let text = content.as_str().unwrap_or_default();
    let blocks = match crate::json::parse_value(text) {
        Ok(Json::Array(blocks)) if blocks.iter().all(|b| b.get("type").is_some()) => blocks,
        _ => {
            if !text.trim().is_empty() {
                items.push(Item::Text(Text {
                    loc,
                    message: at.clone(),
                }));
            }
            return;
        }
    };
    push_blocks(&blocks, &loc, at, items);
}

/// One log record of an export (`resourceLogs[].scopeLogs[].logRecords[]`).
pub(crate) struct LogRecord<'a> {
    pub value: &'a Tree<'a>,
    pub loc: Loc,
    pub attrs: Vec<Attr<'a>>,
    pub order: usize,
}

impl<'a> LogRecord<'a> {
    /// The event's name: `eventName`, or the `event.name` attribute older SDKs wrote.
    pub fn event_name(&self) -> Option<&str> {
        str_at(self.value, "eventName").or_else(|| attr_str(&self.attrs, "event.name"))
    }

    /// The span the event belongs to, as written.
    pub fn span_key(&self) -> (Option<&'a str>, Option<&'a str>) {
        (str_at(self.value, "traceId"), str_at(self.value, "spanId"))
    }

    pub fn time(&self) -> u128 {
        match nanos(self.value.get("timeUnixNano")) {
            0 => nanos(self.value.get("observedTimeUnixNano")),
            t => t,
        }
    }
}

/// Every log record of every document, in file order.
pub(crate) fn log_records<'a>(docs: &'a [Doc<'a>]) -> Vec<LogRecord<'a>> {
    let mut out = Vec::new();
    for doc in docs {
        let root = Loc::new(doc.base, "");
        let resources = array_at(doc.value, "resourceLogs").map_or(&[][..], Vec::as_slice);
        for (r, resource) in resources.iter().enumerate() {
            let scopes = array_at(resource, "scopeLogs").map_or(&[][..], Vec::as_slice);
            for (s, scope) in scopes.iter().enumerate() {
                let list = array_at(scope, "logRecords").map_or(&[][..], Vec::as_slice);
                for (i, record) in list.iter().enumerate() {
                    let loc = root
                        .child("resourceLogs")
                        .child(r)
                        .child("scopeLogs")
                        .child(s)
                        .child("logRecords")
                        .child(i);
                    let order = out.len();
                    out.push(LogRecord {
                        value: record,
                        attrs: attributes(record, &loc),
                        loc,
                        order,
                    });
                }
            }
        }
    }
    out
}

/// Content blocks (Anthropic `text`, `tool_use`, `tool_result`; OpenAI text parts), every
/// item at `loc`.
fn push_blocks(blocks: &[Json], loc: &Loc, at: &Loc, items: &mut Vec<Item>) {
    for block in blocks {
        match block.get("type").and_then(Json::as_str) {
            Some("tool_use") => {
                let id = block.get("id").and_then(Json::as_str);
                if id.is_some_and(|id| has_call(items, id)) {
                    continue;
                }
                items.push(Item::Call(ToolCall {
                    key: pairing_key(id, loc),
                    id: id.map(str::to_string),
                    name: block
                        .get("name")
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    kind: CallKind::Function,
                    arguments: block
                        .get("input")
                        .map_or(Arguments::Absent, |v| Arguments::value(v.clone())),
                    args_loc: loc.clone(),
                    loc: loc.clone(),
                    message: at.clone(),
                }));
            }
            Some("tool_result") => {
                let id = block.get("tool_use_id").and_then(Json::as_str);
                let text = match block.get("content") {
                    Some(Json::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let mut item = result(id, None, &text, loc.clone(), at);
                if let Item::Result(r) = &mut item {
                    r.is_error |= block.get("is_error").and_then(Json::as_bool) == Some(true);
                }
                items.push(item);
            }
            _ => items.push(Item::Text(Text {
                loc: loc.clone(),
                message: at.clone(),
            })),
        }
    }
}

/// The items of a message written in a provider's own JSON (OpenAI `{role, content,
/// tool_calls}` and `{role:"tool", tool_call_id}`, Anthropic content blocks, the log-event
/// bodies `{content, tool_calls}` / `{content, id}`), every item at `at`.
pub(crate) fn json_items(role: Role, message: &Json, at: &Loc) -> Vec<Item> {
    let mut items = Vec::new();
    let content = message.get("content");
    if role == Role::Tool {
        let id = ["tool_call_id", "id"]
            .iter()
            .find_map(|k| message.get(*k).and_then(Json::as_str));
        let text = match content {
            Some(Json::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        items.push(result(id, None, &text, at.clone(), at));
        return items;
    }
    match content {
        Some(Json::String(s)) if !s.trim().is_empty() => items.push(Item::Text(Text {
            loc: at.clone(),
            message: at.clone(),
        })),
        Some(Json::Array(blocks)) => push_blocks(blocks, at, at, &mut items),
        _ => {}
    }
    let calls = message.get("tool_calls").and_then(Json::as_array);
    for (j, call) in calls.into_iter().flatten().enumerate() {
        let id = call.get("id").and_then(Json::as_str);
        if id.is_some_and(|id| has_call(&items, id)) {
            continue;
        }
        let function = call.get("function").unwrap_or(call);
        let key = id.map_or_else(
            || format!("#noid@{}{}#{j}", at.base, at.pointer),
            str::to_string,
        );
        items.push(json_call(key, id, function, at));
    }
    items
}

/// One message written in a provider's own JSON (see `json_items`), every item at `at`;
/// `print` is what it says, for telling whether one request extends another.
pub(crate) fn json_message(message: &Json, at: Loc) -> Message {
    let role = role(message.get("role").and_then(Json::as_str).unwrap_or("user"));
    Message {
        role,
        items: json_items(role, message, &at),
        print: message.to_string(),
        loc: at,
    }
}

/// The messages of a request recorded whole as JSON in one attribute (OpenInference
/// `input.value`, Logfire's `request_data`: `{messages, system?, tools?, …}`), every item at
/// the attribute's string; `None` when it holds no `messages`.
pub(crate) fn request_messages(attr: &Attr<'_>) -> Option<Vec<Message>> {
    let request = attr.json(true);
    let messages = request.get("messages")?.as_array()?;
    let at = attr.inner();
    let mut out = Vec::new();
    if let Some(system) = request.get("system").filter(|s| !s.is_null()) {
        out.push(raw_message(
            Role::System,
            &serde_json::json!({"content": system}),
            &at,
        ));
    }
    for m in messages {
        let role = role(m.get("role").and_then(Json::as_str).unwrap_or("user"));
        out.push(raw_message(role, m, &at));
    }
    Some(out)
}

/// The response recorded whole as JSON in one attribute (OpenInference `output.value`,
/// Logfire's `response_data`): an OpenAI completion's first choice, Logfire's
/// `{message, usage}`, or an Anthropic message.
pub(crate) fn response_messages(attr: &Attr<'_>) -> Option<Vec<Message>> {
    let response = attr.json(true);
    let message = match response.get("choices").and_then(Json::as_array) {
        Some(choices) => choices.first()?.get("message")?.clone(),
        None => match response.get("message") {
            Some(message) if message.is_object() => message.clone(),
            _ => response.get("content").map(|_| response.clone())?,
        },
    };
    Some(vec![raw_message(Role::Assistant, &message, &attr.inner())])
}

fn raw_message(role: Role, message: &Json, at: &Loc) -> Message {
    Message {
        role,
        loc: at.clone(),
        items: json_items(role, message, at),
        print: format!("{}:{}", role.as_str(), message),
    }
}

/// Where the parts of a value are: their own pointers when it is JSON in the file, the
/// string's when it is JSON inside a string (Langfuse's v2 API, double-encoded Letta files).
pub(crate) struct Place {
    pub loc: Loc,
    pub precise: bool,
}

impl Place {
    pub fn child(&self, key: impl crate::pointer::Token) -> Loc {
        if self.precise {
            self.loc.child(key)
        } else {
            self.loc.clone()
        }
    }
}

/// Nanoseconds since year 0 (near enough: only the order matters) of an ISO 8601 timestamp
/// as trace APIs write them (`2025-03-01T10:00:00.123456Z`, with or without the zone); 0
/// when it is not one.
pub(crate) fn iso_nanos(text: &str) -> u128 {
    let mut whole: u128 = 0;
    let mut digits = 0;
    let mut chars = text.chars();
    for c in chars.by_ref() {
        if let Some(d) = c.to_digit(10) {
            whole = whole * 10 + u128::from(d);
            digits += 1;
            if digits == 14 {
                break;
            }
        } else if !matches!(c, '-' | ':' | 'T' | 't' | ' ') {
            return 0;
        }
    }
    if digits < 14 {
        return 0;
    }
    let mut fraction: u128 = 0;
    let mut places = 0;
    if chars.next() == Some('.') {
        for d in chars.map_while(|c| c.to_digit(10)).take(9) {
            fraction = fraction * 10 + u128::from(d);
            places += 1;
        }
    }
    fraction *= 10u128.pow(9 - places);
    whole * 1_000_000_000 + fraction
}

/// A call written as JSON (`{name, arguments}`, LangChain's `{name, args}`): a string is
/// JSON text, anything else the value itself. Every part of it sits at `at`.
pub(crate) fn json_call(key: String, id: Option<&str>, call: &Json, at: &Loc) -> Item {
    let arguments = match call.get("arguments").or_else(|| call.get("args")) {
        Some(Json::String(text)) => Arguments::Encoded(text.clone()),
        Some(value) => Arguments::value(value.clone()),
        None => Arguments::Absent,
    };
    Item::Call(ToolCall {
        key,
        id: id.map(str::to_string),
        name: call
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string(),
        kind: CallKind::Function,
        arguments,
        args_loc: at.clone(),
        loc: at.clone(),
        message: at.clone(),
    })
}
