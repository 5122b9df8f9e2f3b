//! Tool executions recorded as spans of their own, read as conversations where no model call
//! records them: OTel GenAI `execute_tool` spans (semconv ≥ 1.37 `gen-ai-spans.md`), as
//! opentelemetry-util-genai's `TelemetryHandler.tool()` writes them (1.3b0
//! `_tool_invocation.py`): `gen_ai.operation.name: "execute_tool"`, `gen_ai.tool.name`,
//! `gen_ai.tool.call.id`, and with content capture on the span `gen_ai.tool.call.arguments`
//! (the arguments, JSON-dumped unless a string) and `gen_ai.tool.call.result` (set only on
//! success); a failure is `status` ERROR with the error's message and `error.type`. An agent
//! framework that records its `invoke_agent` span (with `gen_ai.tool.definitions`) and its
//! tool spans, but not its model calls' messages, leaves nothing else to check.
//!
//! The tool spans of one trace whose calls no model call records are one conversation, in
//! start order: each span a call (its arguments) answered by its result (failed when the span
//! failed, with the status message as its text). Spans without recorded arguments (content
//! capture off) are not read: nothing says what they were called with.

use super::otlp::{self, Attr, Span};
use crate::format::Format;
use crate::transcript::{
    pairing_key, text_looks_like_error, Arguments, CallKind, Conversation, Item, Pairing, Role,
    ToolCall, ToolDef, ToolResult,
};
use serde_json::Value as Json;

/// The attribute that holds what a tool was called with.
pub(super) const ARGUMENTS: &str = "gen_ai.tool.call.arguments";

/// Whether a span is a tool execution that records its arguments.
pub(super) fn is_tool_run(span: &Span<'_>) -> bool {
    otlp::attr_str(&span.attrs, "gen_ai.operation.name") == Some("execute_tool")
        && otlp::attr(&span.attrs, ARGUMENTS).is_some()
}

/// The conversations of the tool spans no model call covers: `covered` are the call ids the
/// model calls record, `traced` the traces they were recorded in (a tool span without an
/// id is read only in a trace with no model call), `tools` each trace's declared tools.
pub(super) fn conversations(
    spans: &[Span<'_>],
    covered: &[String],
    traced: &[Option<String>],
    tools: &dyn Fn(Option<&str>) -> Vec<ToolDef>,
) -> Vec<Conversation> {
    let mut groups: Vec<(Option<&str>, Vec<&Span<'_>>)> = Vec::new();
    for span in spans.iter().filter(|s| is_tool_run(s)) {
        let trace = span.trace_id();
        let id = otlp::attr_str(&span.attrs, "gen_ai.tool.call.id");
        let known = match id {
            Some(id) => covered.iter().any(|c| c == id),
            None => traced.iter().any(|t| t.as_deref() == trace),
        };
        if known {
            continue;
        }
        match groups.iter_mut().find(|(t, _)| *t == trace) {
            Some((_, list)) => list.push(span),
            None => groups.push((trace, vec![span])),
        }
    }
    groups
        .into_iter()
        .filter_map(|(trace, mut list)| {
            list.sort_by_key(|s| (s.start, s.order));
            let first = list.first()?;
            let mut conv = Conversation::new(Format::Otel, first.loc.clone(), Pairing::NextTurn);
            conv.tools = tools(trace);
            // A record of executions, not a request: what the model was sent is not in the
            // file, so rules about a request's shape do not apply.
            conv.is_response = true;
            for span in list {
                read_run(span, &mut conv);
            }
            Some(conv)
        })
        .collect()
}

/// One tool span: a call, and the result it got.
fn read_run(span: &Span<'_>, conv: &mut Conversation) {
    let id = otlp::attr_str(&span.attrs, "gen_ai.tool.call.id");
    let name = otlp::attr_str(&span.attrs, "gen_ai.tool.name")
        .or_else(|| super::str_at(span.value, "name").and_then(|n| n.strip_prefix("execute_tool ")))
        .unwrap_or_default();
    let key = pairing_key(id, &span.loc);
    let args = otlp::attr(&span.attrs, ARGUMENTS);
    conv.start_turn(Role::Assistant, span.loc.clone());
    conv.push_to_last(Item::Call(ToolCall {
        id: id.map(str::to_string),
        key: key.clone(),
        name: name.to_string(),
        kind: CallKind::Function,
        arguments: args.map_or(Arguments::Absent, arguments),
        args_loc: args.map_or_else(|| span.loc.clone(), Attr::inner),
        loc: span.loc.clone(),
        message: span.loc.clone(),
    }));
    let result = otlp::attr(&span.attrs, "gen_ai.tool.call.result");
    let failed = span.failed();
    let text = match result.map(|r| r.json(false)) {
        Some(Json::String(text)) => text,
        Some(other) => other.to_string(),
        None if failed => span
            .status_message()
            .or_else(|| otlp::attr_str(&span.attrs, "error.type").map(str::to_string))
            .unwrap_or_default(),
        None => String::new(),
    };
    conv.start_turn(Role::Tool, span.loc.clone());
    conv.push_to_last(Item::Result(ToolResult {
        call_id: id.map(str::to_string),
        key,
        name: Some(name.to_string()),
        is_error: failed || text_looks_like_error(&text),
        text: text.trim().chars().take(400).collect(),
        provider_executed: false,
        id_field: None,
        loc: result.map_or_else(|| span.loc.clone(), Attr::inner),
        message: span.loc.clone(),
    }));
    conv.origins.extend(span.origins());
}

/// The arguments as recorded: a string is the JSON text (util-genai dumps what is not one), a
/// structured value the arguments themselves.
fn arguments(attr: &Attr<'_>) -> Arguments {
    match attr.as_str() {
        Some(text) => Arguments::Encoded(text.to_string()),
        None => Arguments::value(attr.to_json()),
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::{otlp, session_docs};
    use crate::tree_json as json;

    fn tool_span(id: &str, args: Option<&str>, code: u8) -> crate::tree::Value<'static> {
        let mut attrs = vec![
            json!({"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}),
            json!({"key": "gen_ai.tool.name", "value": {"stringValue": "f"}}),
            json!({"key": "gen_ai.tool.call.id", "value": {"stringValue": id}}),
        ];
        if let Some(args) = args {
            attrs
                .push(json!({"key": "gen_ai.tool.call.arguments", "value": {"stringValue": args}}));
        }
        json!({"traceId": "t", "spanId": id, "name": "execute_tool f", "status": {"code": code}, "attributes": crate::tree::Value::Array(attrs)})
    }

    /// Tool spans with arguments are calls answered by their results, failed as the span
    /// failed; a span that records no arguments is not read, and a call a model call records
    /// is read there, not again.
    #[test]
    fn tool_spans_are_calls_and_results() {
        let spans = crate::tree::Value::Array(vec![
            tool_span("a", Some("{}"), 2),
            tool_span("b", None, 2),
            tool_span("c", Some(r#"{"x":1}"#), 1),
        ]);
        let doc = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
        let otel = crate::format::Format::Otel.adapter().expect("otel");
        assert_eq!(otel.sniff(&doc), Some(90));
        let docs = session_docs(std::slice::from_ref(&doc));
        let read = otlp::spans(&docs);
        let none = |_: Option<&str>| Vec::new();
        let convs = super::conversations(&read, &[], &[], &none);
        let conv = convs.first().expect("one conversation");
        let calls: Vec<_> = conv.calls().map(|(_, c)| c.key.as_str()).collect();
        assert_eq!(calls, ["a", "c"]);
        let failed: Vec<bool> = conv.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(failed, [true, false]);
        assert!(conv.is_response);
        let covered = super::conversations(&read, &["a".into(), "c".into()], &[], &none);
        assert!(covered.is_empty());
    }
}
