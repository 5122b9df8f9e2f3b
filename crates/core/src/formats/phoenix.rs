//! Arize Phoenix's span containers, read into the OTLP span model (`otlp::Span`) that
//! `openinference.rs` rebuilds conversations from. Not an adapter: the spans are
//! OpenInference's whatever the container.
//!
//! Shapes from `Arize-ai/phoenix`:
//! - REST `GET /v1/projects/{id}/spans` (`src/phoenix/server/api/routers/v1/spans.py`,
//!   `span_search`): a page `{data:[span], next_cursor}`, each span `{id, name,
//!   context:{trace_id, span_id}, span_kind, parent_id, start_time, end_time, status_code,
//!   status_message, attributes, events}`. `attributes` is
//!   `flatten(attributes, recurse_on_sequence=True)`: flat dotted keys, lists indexed
//!   (`llm.input_messages.0.message.role`), with `openinference.span.kind` popped out into
//!   `span_kind`. A nested dict (what `POST …/spans` accepts) is flattened the same way.
//! - `GET /v1/projects/{id}/spans/otlpv1` (`span_search_otlpv1`): a page `{data:[span],
//!   next_cursor}` of bare OTLP spans in snake_case (`trace_id`, `span_id`,
//!   `start_time_unix_nano`, `attributes:[{key, value:{string_value, …}}]` with the unset
//!   members `null`, `status:{code}`), no `resource_spans` around them.
//! - `get_spans_dataframe()` rows (`src/phoenix/trace/dsl/query.py`, `_get_spans_dataframe`),
//!   saved with `to_json(orient="records")` (an array) or `lines=True` (one per line):
//!   `name, span_kind, parent_id, start_time, end_time, status_code, status_message, events,
//!   context.span_id, context.trace_id` and one `attributes.<key>` column per semantic
//!   convention (`_flatten_semantic_conventions`: `unflatten` with the conventions as
//!   prefix exclusions), so lists are not flattened: `attributes.llm.input_messages` is
//!   `[{"message.role", "message.content", "message.tool_calls":[{"tool_call.id", …}]}]`.
//!   Columns a row lacks are `null`; pandas writes numbers as floats and times as ISO text
//!   or epoch milliseconds.
//!
//! Every container is flattened to the dotted keys OTLP carries, each value read where it is
//! written (`Attr::plain`), so one reader serves them all.

use super::otlp::{self, Attr, Span};
use super::{array_at, str_at, Doc};
use crate::transcript::Loc;
use crate::tree::Value as Tree;
use std::borrow::Cow;

/// The shape of one Phoenix span.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A REST span (`context`, `span_kind`, `attributes` an object).
    Rest,
    /// An OTLP span of the `otlpv1` page (snake_case, `attributes` a list).
    Otlp,
    /// A dataframe row (`context.span_id`, `attributes.*` columns).
    Row,
}

fn kind_of(span: &Tree) -> Option<Kind> {
    let attributes = span.get("attributes");
    if span
        .get("context")
        .is_some_and(|c| str_at(c, "span_id").is_some() && str_at(c, "trace_id").is_some())
        && str_at(span, "span_kind").is_some()
        && attributes.is_some_and(Tree::is_object)
    {
        return Some(Kind::Rest);
    }
    if str_at(span, "span_id").is_some()
        && str_at(span, "trace_id").is_some()
        && attributes.is_some_and(Tree::is_array)
    {
        return Some(Kind::Otlp);
    }
    let row = span.as_object()?;
    (row.get("context.span_id").is_some_and(Tree::is_string)
        && row.contains_key("span_kind")
        && row.keys().any(|k| k.starts_with("attributes.")))
    .then_some(Kind::Row)
}

/// Where a container's spans are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    /// `data` of a page.
    Page,
    /// A bare array.
    Array,
    /// The document itself (a JSONL line).
    Single,
}

/// A Phoenix container: its spans, all of one kind.
struct Container<'a> {
    kind: Kind,
    list: &'a [Tree<'a>],
    at: Where,
}

/// The Phoenix container a document is, if any: a page (`data` and `next_cursor`) of REST
/// or OTLP spans, an array of REST spans or dataframe rows, or one REST span or row (a JSONL
/// line). All the spans of a container must be of one kind.
fn container<'a>(doc: &'a Tree<'a>) -> Option<Container<'a>> {
    let (list, at) = match doc {
        Tree::Object(map) if map.contains_key("next_cursor") => {
            (array_at(doc, "data")?.as_slice(), Where::Page)
        }
        Tree::Array(items) => (items.as_slice(), Where::Array),
        Tree::Object(_) => (std::slice::from_ref(doc), Where::Single),
        _ => return None,
    };
    let kind = kind_of(list.first()?)?;
    // Bare OTLP spans outside Phoenix's page are no container of its.
    if at != Where::Page && kind == Kind::Otlp {
        return None;
    }
    list.iter()
        .all(|s| kind_of(s) == Some(kind))
        .then_some(Container { kind, list, at })
}

/// Whether a document is a Phoenix container.
pub(crate) fn is_container(doc: &Tree) -> bool {
    container(doc).is_some()
}

/// Whether a document is a Phoenix container holding a model call: an `LLM` span, or
/// OpenInference input messages.
pub(crate) fn has_model_calls(doc: &Tree) -> bool {
    let Some(Container { kind, list, .. }) = container(doc) else {
        return false;
    };
    list.iter().any(|span| match kind {
        Kind::Rest | Kind::Row if str_at(span, "span_kind") == Some("LLM") => true,
        Kind::Rest => span.get("attributes").is_some_and(|a| {
            a.as_object().is_some_and(|m| {
                m.keys().any(|k| k.starts_with("llm.input_messages"))
                    || a.get("llm").and_then(|l| l.get("input_messages")).is_some()
            })
        }),
        Kind::Otlp => otlp::span_has_attribute(span, |k| {
            k == "openinference.span.kind" || k.starts_with("llm.input_messages.")
        }),
        // Every row has every column: a TOOL row's is `null`.
        Kind::Row => span
            .get("attributes.llm.input_messages")
            .is_some_and(|v| !v.is_null()),
    })
}

/// Every span of the Phoenix containers among `docs`, in file order, numbered from `first`.
pub(crate) fn spans<'a>(docs: &'a [Doc<'a>], first: usize) -> Vec<Span<'a>> {
    let mut out = Vec::new();
    for doc in docs {
        let Some(Container { kind, list, at }) = container(doc.value) else {
            continue;
        };
        for (i, span) in list.iter().enumerate() {
            let root = Loc::new(doc.base, "");
            let loc = match at {
                Where::Page => root.child(("data", i)),
                Where::Array => root.child(i),
                Where::Single => root,
            };
            let order = first + out.len();
            out.push(match kind {
                Kind::Otlp => Span::new(span, loc, order),
                Kind::Rest | Kind::Row => plain_span(span, kind, loc, order),
            });
        }
    }
    out
}

/// A REST span or dataframe row: its attributes flattened, its `span_kind` read as the
/// `openinference.span.kind` attribute it was popped from.
fn plain_span<'a>(span: &'a Tree<'a>, kind: Kind, loc: Loc, order: usize) -> Span<'a> {
    let mut attrs = Vec::new();
    match (kind, span) {
        (Kind::Rest, _) => {
            if let Some(attributes) = span.get("attributes") {
                flatten(
                    attributes,
                    Cow::Borrowed(""),
                    loc.child("attributes"),
                    &mut attrs,
                );
            }
        }
        (_, Tree::Object(row)) => {
            for (key, value) in row.iter() {
                if let Some(name) = key.strip_prefix("attributes.") {
                    flatten(value, Cow::Borrowed(name), loc.child(key), &mut attrs);
                }
            }
        }
        _ => {}
    }
    if let Some(value) = span.get("span_kind") {
        attrs.push(Attr {
            key: Cow::Borrowed("openinference.span.kind"),
            value,
            loc: loc.child("span_kind"),
            plain: true,
        });
    }
    let start = match span.get("start_time") {
        Some(Tree::String(text)) => otlp::iso_nanos(text.as_str()),
        // pandas' default `date_format="epoch"`: milliseconds.
        Some(value) => value.as_u64().map_or(0, |ms| u128::from(ms) * 1_000_000),
        None => 0,
    };
    Span {
        value: span,
        loc,
        attrs,
        start,
        order,
    }
}

/// The dotted keys of a nested value, as Phoenix's `flatten(…, recurse_on_sequence=True)`
/// writes them: objects by key, lists holding objects by index (their other elements
/// dropped), anything else (a string, a list of scalars) one attribute; `null` (a column
/// the row lacks) none.
fn flatten<'a>(value: &'a Tree<'a>, key: Cow<'a, str>, loc: Loc, out: &mut Vec<Attr<'a>>) {
    let join = |part: &dyn std::fmt::Display| -> Cow<'a, str> {
        if key.is_empty() {
            Cow::Owned(part.to_string())
        } else {
            Cow::Owned(format!("{key}.{part}"))
        }
    };
    match value {
        Tree::Null => {}
        Tree::Object(map) => {
            for (k, v) in map.iter() {
                let name = if key.is_empty() {
                    Cow::Borrowed(k)
                } else {
                    join(&k)
                };
                flatten(v, name, loc.child(k), out);
            }
        }
        Tree::Array(items) if items.iter().any(Tree::is_object) => {
            for (i, item) in items.iter().enumerate() {
                if item.is_object() {
                    flatten(item, join(&i), loc.child(i), out);
                }
            }
        }
        _ if key.is_empty() => {}
        _ => out.push(Attr {
            key,
            value,
            loc,
            plain: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    fn keys(doc: &Tree) -> Vec<(String, Option<String>)> {
        let docs = [Doc {
            base: 0,
            value: doc,
        }];
        spans(&docs, 0)
            .iter()
            .flat_map(|s| {
                s.attrs
                    .iter()
                    .map(|a| (a.key.to_string(), a.as_str().map(str::to_string)))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn rest_attributes_flat_or_nested_read_alike() {
        let span = |attributes| json!({"data": [{"id": "U3Bhbjox", "name": "ChatCompletion", "context": {"trace_id": "t", "span_id": "s"}, "span_kind": "LLM", "status_code": "OK", "attributes": attributes}], "next_cursor": null});
        let flat = span(json!({"llm.input_messages.0.message.role": "user"}));
        let nested = span(json!({"llm": {"input_messages": [{"message": {"role": "user"}}]}}));
        for doc in [&flat, &nested] {
            assert!(has_model_calls(doc));
            assert_eq!(
                keys(doc),
                [
                    (
                        "llm.input_messages.0.message.role".into(),
                        Some("user".into())
                    ),
                    ("openinference.span.kind".into(), Some("LLM".into())),
                ]
            );
        }
    }

    #[test]
    fn dataframe_lists_are_flattened_and_nulls_dropped() {
        let row = json!({"name": "ChatCompletion", "span_kind": "LLM", "context.span_id": "s", "context.trace_id": "t", "attributes.tool.name": null,
            "attributes.llm.input_messages": [{"message.role": "assistant", "message.tool_calls": [{"tool_call.id": "call_1"}]}]});
        assert_eq!(
            keys(&row),
            [
                (
                    "llm.input_messages.0.message.role".into(),
                    Some("assistant".into())
                ),
                (
                    "llm.input_messages.0.message.tool_calls.0.tool_call.id".into(),
                    Some("call_1".into())
                ),
                ("openinference.span.kind".into(), Some("LLM".into())),
            ]
        );
    }

    #[test]
    fn otlp_page_members_may_be_null() {
        let page = json!({"data": [{"trace_id": "t", "span_id": "s", "attributes": [
            {"key": "openinference.span.kind", "value": {"array_value": null, "bool_value": null, "string_value": "LLM"}}]}], "next_cursor": null});
        assert!(has_model_calls(&page));
        assert_eq!(
            keys(&page),
            [("openinference.span.kind".into(), Some("LLM".into()))]
        );
    }

    #[test]
    fn near_misses_are_not_containers() {
        for doc in [
            // A page of something else (datasets, Langfuse observations).
            json!({"data": [{"id": "RGF0YXNldDox", "name": "golden"}], "next_cursor": null}),
            json!({"data": [{"id": "o1", "type": "GENERATION"}], "meta": {"page": 1}}),
            // Spans of two kinds in one page.
            json!({"data": [{"context": {"trace_id": "t", "span_id": "s"}, "span_kind": "LLM", "attributes": {}}, {"id": "x"}], "next_cursor": null}),
            // Bare OTLP spans outside a page, and an empty page.
            json!([{"trace_id": "t", "span_id": "s", "attributes": []}]),
            json!({"data": [], "next_cursor": null}),
        ] {
            assert!(!is_container(&doc), "{doc}");
        }
        // A container without model calls is not a conversation.
        let tools_only = json!([{"name": "get_weather", "span_kind": "TOOL", "context.span_id": "s", "attributes.tool.name": "get_weather", "attributes.llm.input_messages": null}]);
        assert!(is_container(&tools_only));
        assert!(!has_model_calls(&tools_only));
    }
}
