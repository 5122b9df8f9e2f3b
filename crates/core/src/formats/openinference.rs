//! OpenInference traces (Arize Phoenix) in OTLP JSON (`otlp.rs` reads the envelope,
//! `calls.rs` rebuilds conversations from model calls), in Phoenix's own containers
//! (`phoenix.rs`: REST and `otlpv1` span pages, `get_spans_dataframe()` rows) and as
//! `ConsoleSpanExporter` prints them (`console_spans.rs`), read into the same spans.
//!
//! Keys from `Arize-ai/openinference` `spec/semantic_conventions.md`: lists are flattened
//! into indexed keys. An LLM span (`openinference.span.kind: "LLM"`) records its request as
//! `llm.input_messages.N.message.{role, content, tool_call_id}` with calls under
//! `…message.tool_calls.M.tool_call.{id, function.name, function.arguments}` (arguments a
//! JSON string), its response as `llm.output_messages.N.message.*`, its tools as
//! `llm.tools.N.tool.json_schema` (the provider's tool object as a JSON string, in any
//! dialect) and its provider as `llm.provider` / `llm.system`. TOOL spans that failed mark
//! the results of their call id (`tool_call.id`, or `tool.id`) as errors. Multi-part content
//! (`message.contents.N.message_content.*`) is read as text.
//!
//! The flattened keys lose what pairing needs for Anthropic: its instrumentation
//! (`openinference-instrumentation-anthropic` `_wrappers.py`, `_get_llm_input_messages`)
//! writes `tool_use` blocks without their id and every `tool_result` block of a message to
//! the same `message.content` key. So for Anthropic, and for any span whose flattened calls
//! lack ids, the request is read from `input.value` (the request's JSON, `messages` and
//! `system`) and the response from `output.value` when they hold it. A trace records
//! requests already sent: there is nothing to repair, so no fixes.

use super::calls::{self, ModelCall};
use super::otlp::{self, FlatKeys};
use super::console_spans;
use super::phoenix;
use super::{Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Item, Text};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain openinference` prints (Markdown).
pub(super) const DOC: &str = r#"OpenInference (Arize Phoenix) traces as OTLP JSON (camelCase or snake_case), `ConsoleSpanExporter` output, Phoenix REST and `otlpv1` span pages (`{data, next_cursor}`), and `get_spans_dataframe()` rows (JSON records or JSONL): `llm.input_messages.N.message.*`, `llm.output_messages.N.message.*`, `llm.tools.N.tool.json_schema`, `llm.provider`; rebuilt and judged as `otel` is; findings only"#;

pub struct OpenInference;

impl Dialect for OpenInference {}

fn is_content(key: &str) -> bool {
    key == "openinference.span.kind"
        || key.starts_with("llm.input_messages.")
        || key.starts_with("llm.output_messages.")
}

const FLAT: FlatKeys = FlatKeys {
    role: "message.role",
    content: "message.content",
    result_id: "message.tool_call_id",
    calls: "message.tool_calls.",
    call_id: "tool_call.id",
    call_name: "tool_call.function.name",
    call_args: "tool_call.function.arguments",
};

impl Adapter for OpenInference {
    fn format(&self) -> Format {
        Format::OpenInference
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        ((otlp::is_export(doc) && otlp::any_attribute(doc, is_content))
            || phoenix::has_model_calls(doc)
            || console_spans::has(doc, is_content, |_| false))
        .then_some(90)
    }

    /// Any Phoenix span or dataframe row votes for reading a JSONL file as one export: the
    /// model calls may come after its first lines (rows are in no set order).
    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        self.sniff(record)
            .or_else(|| phoenix::is_container(record).then_some(10))
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<crate::transcript::Conversation>, String> {
        if !docs.iter().all(|d| {
            otlp::is_export(d.value)
                || phoenix::is_container(d.value)
                || console_spans::is_span(d.value)
        }) {
            return Err("expected an OTLP JSON export (`resourceSpans`), Phoenix spans (a `/v1/projects/{id}/spans` page, `get_spans_dataframe()` rows) or spans as `ConsoleSpanExporter` prints them".into());
        }
        let mut spans = otlp::spans(docs);
        spans.extend(phoenix::spans(docs, spans.len()));
        spans.extend(console_spans::spans(docs, spans.len()));
        fn kind<'s>(s: &'s otlp::Span<'_>) -> Option<&'s str> {
            otlp::attr_str(&s.attrs, "openinference.span.kind")
        }
        let failed_runs: Vec<String> = spans
            .iter()
            .filter(|s| kind(s) == Some("TOOL") && s.failed())
            .filter_map(|s| {
                ["tool_call.id", "tool.id"]
                    .iter()
                    .find_map(|k| otlp::attr_str(&s.attrs, k))
                    .map(str::to_string)
            })
            .collect();
        let calls: Vec<ModelCall> = spans
            .iter()
            .filter(|s| {
                kind(s) == Some("LLM")
                    || s.attrs
                        .iter()
                        .any(|a| a.key.starts_with("llm.input_messages."))
            })
            .map(|s| {
                let mut input = otlp::flat_messages(&s.attrs, "llm.input_messages.", &FLAT);
                let mut output = otlp::flat_messages(&s.attrs, "llm.output_messages.", &FLAT);
                for m in input.iter_mut().chain(output.iter_mut()) {
                    // Multi-part content: its text parts stand for the message's text.
                    if m.items.is_empty() && m.print.contains("message.contents.") {
                        m.items.push(Item::Text(Text {
                            loc: m.loc.clone(),
                            message: m.loc.clone(),
                        }));
                    }
                }
                let provider = ["llm.provider", "llm.system"]
                    .iter()
                    .find_map(|k| otlp::attr_str(&s.attrs, k))
                    .and_then(crate::provider::from_trace_name);
                let lossy = input.iter().chain(output.iter()).any(|m| {
                    m.items
                        .iter()
                        .any(|i| matches!(i, Item::Call(c) if c.id.is_none()))
                });
                if lossy || provider == Some(crate::provider::Provider::Anthropic) {
                    if let Some(raw) = otlp::attr(&s.attrs, "input.value")
                        .and_then(otlp::request_messages)
                    {
                        input = raw;
                        output = otlp::attr(&s.attrs, "output.value")
                            .and_then(otlp::response_messages)
                            .unwrap_or(output);
                    }
                }
                let tools = otlp::indexed(s.attrs.iter().map(|a| (&*a.key, a)), "llm.tools.")
                    .into_iter()
                    .filter_map(|(_, entries)| {
                        let (_, schema) = entries.iter().find(|(k, _)| *k == "tool.json_schema")?;
                        otlp::tool_def(&schema.json(true), &schema.inner())
                    })
                    .collect();
                ModelCall {
                    input,
                    output,
                    tools,
                    provider,
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
        if calls.is_empty() {
            return Err(super::otel::NO_CALLS.into());
        }
        Ok(calls::rebuild(Format::OpenInference, calls, &failed_runs))
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

#[cfg(test)]
mod tests {
    use crate::tree_json as json;

    use super::*;

    /// Protobuf field names (`MessageToJson(preserving_proto_field_name=True)`): the same
    /// tree in snake_case.
    #[test]
    fn reads_snake_case_exports() {
        let attr = |key: &str, value: &str| json!({"key": key, "value": {"string_value": value}});
        let doc = json!({"resource_spans": [{"scope_spans": [{"spans": [{
        "trace_id": "t", "span_id": "s", "start_time_unix_nano": "1",
        "status": {"code": 2},
        "attributes": [
            attr("openinference.span.kind", "LLM"),
            attr("llm.input_messages.0.message.role", "user"),
            attr("llm.input_messages.0.message.content", "hi"),
            attr("llm.output_messages.0.message.role", "assistant"),
            attr("llm.output_messages.0.message.tool_calls.0.tool_call.id", "c1"),
            attr("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "f"),
        ]}]}]}]});
        assert_eq!(OpenInference.sniff(&doc), Some(90));
        let convs = OpenInference
            .normalise(&[Doc {
                base: 0,
                value: &doc,
            }])
            .expect("read");
        assert_eq!(convs.len(), 1);
        assert!(
            convs.iter().all(|c| !c.accepted),
            "status.code 2 is a failed call"
        );
        assert_eq!(convs.iter().map(|c| c.calls().count()).sum::<usize>(), 1);
    }

    #[test]
    fn sniffs_openinference_exports_only() {
        let span = |key: &str| json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": key, "value": {"stringValue": "LLM"}}]}]}]}]});
        assert_eq!(
            OpenInference.sniff(&span("openinference.span.kind")),
            Some(90)
        );
        assert_eq!(
            OpenInference.sniff(&span("llm.input_messages.0.message.role")),
            Some(90)
        );
        for other in [
            span("gen_ai.input.messages"),
            span("http.route"),
            json!({"data": [{"name": "ChatCompletion"}]}),
        ] {
            assert_eq!(OpenInference.sniff(&other), None, "{other}");
        }
    }
}
