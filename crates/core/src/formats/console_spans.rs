//! Spans as the OpenTelemetry Python SDK's `ConsoleSpanExporter` prints them, read into the
//! OTLP span model (`otlp::Span`) that `otel.rs` and `openinference.rs` rebuild conversations
//! from. Not an adapter: the attributes are whichever family's.
//!
//! The exporter writes `ReadableSpan.to_json()` (`opentelemetry-sdk`
//! `opentelemetry/sdk/trace/__init__.py`) for each span, one pretty-printed object after
//! another (the source layer splits the concatenated objects into documents):
//! `{name, context:{trace_id:"0x…", span_id:"0x…", trace_state}, kind:"SpanKind.CLIENT",
//! parent_id, start_time, end_time (ISO 8601), status:{status_code:"UNSET"|"OK"|"ERROR",
//! description}, attributes:{…}, events:[{name, timestamp, attributes:{…}}], links,
//! resource}`. Attributes are a flat map of dotted keys to their values as themselves (a
//! sequence a JSON array), which `otlp::attributes` reads as it reads OTLP's list.

use super::otlp::{self, Span};
use super::{str_at, Doc};
use crate::transcript::Loc;
use crate::tree::Value as Tree;

/// Whether a document is one span as `ConsoleSpanExporter` prints it.
pub(crate) fn is_span(doc: &Tree) -> bool {
    doc.get("context")
        .is_some_and(|c| str_at(c, "trace_id").is_some() && str_at(c, "span_id").is_some())
        && str_at(doc, "kind").is_some_and(|k| k.starts_with("SpanKind."))
        && doc.get("attributes").is_some_and(Tree::is_object)
}

/// Whether a document is a printed span with an attribute `matches` accepts, or (`events`)
/// a span event it accepts by name.
pub(crate) fn has(
    doc: &Tree,
    attribute: impl Fn(&str) -> bool,
    event: impl Fn(&str) -> bool,
) -> bool {
    is_span(doc)
        && (doc
            .get("attributes")
            .and_then(Tree::as_object)
            .is_some_and(|m| m.keys().any(&attribute))
            || super::array_at(doc, "events")
                .into_iter()
                .flatten()
                .any(|e| str_at(e, "name").is_some_and(&event)))
}

/// Every printed span among `docs`, in file order, numbered from `first`.
pub(crate) fn spans<'a>(docs: &'a [Doc<'a>], first: usize) -> Vec<Span<'a>> {
    docs.iter()
        .filter(|d| is_span(d.value))
        .enumerate()
        .map(|(i, doc)| {
            let loc = Loc::new(doc.base, "");
            Span {
                value: doc.value,
                attrs: otlp::attributes(doc.value, &loc),
                start: str_at(doc.value, "start_time").map_or(0, otlp::iso_nanos),
                loc,
                order: first + i,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    #[test]
    fn printed_spans_only() {
        let span = json!({"name": "chat", "context": {"trace_id": "0x1", "span_id": "0x2"}, "kind": "SpanKind.CLIENT",
            "status": {"status_code": "ERROR"}, "start_time": "2026-01-01T00:00:00.5Z",
            "attributes": {"gen_ai.input.messages": "[]", "gen_ai.response.finish_reasons": ["stop"]}});
        assert!(is_span(&span));
        assert!(has(&span, |k| k == "gen_ai.input.messages", |_| false));
        let docs = [Doc {
            base: 7,
            value: &span,
        }];
        let read = spans(&docs, 3);
        let one = read.first().expect("one span");
        assert!(one.failed());
        assert_eq!(one.order, 3);
        assert_eq!(one.trace_id(), Some("0x1"));
        assert!(one.start > 0);
        let keys: Vec<&str> = one.attrs.iter().map(|a| &*a.key).collect();
        assert_eq!(
            keys,
            ["gen_ai.input.messages", "gen_ai.response.finish_reasons"]
        );
        assert_eq!(
            one.attrs.first().map(|a| a.inner().pointer.to_string()),
            Some("/attributes/gen_ai.input.messages".to_string())
        );
        // Phoenix REST spans (`span_kind`) and OTLP spans are not printed spans.
        for other in [
            json!({"name": "chat", "context": {"trace_id": "t", "span_id": "s"}, "span_kind": "LLM", "attributes": {}}),
            json!({"traceId": "t", "spanId": "s", "kind": 3, "attributes": []}),
            json!({"name": "chat", "context": {"trace_id": "t", "span_id": "s"}, "kind": "SpanKind.CLIENT", "attributes": []}),
        ] {
            assert!(!is_span(&other), "{other}");
        }
    }
}
