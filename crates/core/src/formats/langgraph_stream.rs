//! LangGraph stream-event logs: what `graph.stream(..., stream_mode=["messages", "values",
//! ...])` yields, saved as a JSON array or as JSONL, one event a line. An event is
//! `[mode, payload]`, or `[namespace, mode, payload]` with `subgraphs=True` (the root graph's
//! namespace is empty).
//!
//! `messages` events carry token chunks and `updates` events per-node deltas; the graph's
//! state after each step is a `values` event, and the last root `values` snapshot holds the
//! whole conversation as LangChain serialised messages (`dumpd` or `messages_to_dict`). That
//! snapshot is what is checked, as a `langchain` dump is, and every location points into it.
//! Earlier events repeat its calls and results by id.

use serde_json::Value as Json;

use super::langchain::{conversation, Langchain};
use super::{Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{Conversation, Loc};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain langgraph-stream` prints (Markdown).
pub(super) const DOC: &str = r#"LangGraph stream-event logs: `graph.stream(..., stream_mode=["messages", "values", ...])` events `[mode, payload]` (or `[namespace, mode, payload]` with subgraphs) saved as a JSON array or JSONL wherever the application writes them; checked from the last `values` snapshot's `messages`, as a `langchain` dump"#;

/// A saved array of stream events, or the same events one JSONL record each.
pub struct LanggraphStream;

/// The stream modes LangGraph emits.
const MODES: &[&str] = &[
    "values",
    "updates",
    "messages",
    "custom",
    "debug",
    "tasks",
    "checkpoints",
];

impl Dialect for LanggraphStream {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        Langchain.interrupted_result(site, text)
    }
}

/// An event's mode, payload, the payload's index in the event, and whether it comes from
/// the root graph.
fn event<'a>(value: &'a Tree<'a>) -> Option<(&'a str, &'a Tree<'a>, usize, bool)> {
    let (mode, payload, at, root) = match value.as_array()?.as_slice() {
        [Tree::String(mode), payload] => (mode, payload, 1, true),
        [Tree::Array(ns), Tree::String(mode), payload] => (mode, payload, 2, ns.is_empty()),
        _ => return None,
    };
    MODES
        .contains(&mode.as_str())
        .then_some((mode.as_str(), payload, at, root))
}

/// A root `values` snapshot with a `messages` list.
fn snapshot<'a>(value: &'a Tree<'a>) -> Option<(&'a Vec<Tree<'a>>, usize)> {
    match event(value)? {
        ("values", payload, at, true) => Some((payload.get("messages")?.as_array()?, at)),
        _ => None,
    }
}

/// The conversation of the last snapshot among `events` (each with its location).
fn last_snapshot<'a>(
    events: impl DoubleEndedIterator<Item = (Loc, &'a Tree<'a>)>,
) -> Result<Vec<Conversation>, String> {
    let (loc, messages, at) = events
        .rev()
        .find_map(|(loc, e)| snapshot(e).map(|(m, at)| (loc, m, at)))
        .ok_or("expected LangGraph stream events `[mode, payload]` with a `values` snapshot holding `messages`")?;
    let mut conv = conversation(messages, loc.child((at, "messages")))?;
    conv.format = Format::LanggraphStream;
    Ok(vec![conv])
}

impl Adapter for LanggraphStream {
    fn format(&self) -> Format {
        Format::LanggraphStream
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let events = doc.as_array()?;
        (events.iter().all(|e| event(e).is_some()) && events.iter().any(|e| snapshot(e).is_some()))
            .then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            let events = doc
                .value
                .as_array()
                .ok_or("expected an array of LangGraph stream events")?;
            let root = Loc::new(doc.base, "");
            out.extend(last_snapshot(
                events.iter().enumerate().map(|(i, e)| (root.child(i), e)),
            )?);
        }
        Ok(out)
    }

    /// One stream event per JSONL line (`client.runs.stream` saved as it arrives).
    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        event(record).map(|_| 90)
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        // One line that is a whole document is read as a document.
        if let [doc] = docs {
            if event(doc.value).is_none() {
                return Some(self.normalise(docs));
            }
        }
        Some(last_snapshot(
            docs.iter().map(|d| (Loc::new(d.base, ""), d.value)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::detect;
    use crate::tree_json as json;

    #[test]
    fn reads_the_last_root_snapshot_only() {
        let human = json!({"type": "human", "data": {"content": "go", "type": "human"}});
        let ai = json!({"type": "ai", "data": {"content": "", "type": "ai",
            "tool_calls": [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]}});
        let events = json!([
            ["values", {"messages": [human]}],
            ["messages", [ai, {"langgraph_node": "agent"}]],
            ["values", {"messages": [human, ai]}],
            [["sub:1"], "values", {"messages": [human]}],
            ["updates", {"agent": {"messages": [ai]}}]
        ]);
        assert_eq!(
            detect(&events).map(|a| a.format()),
            Some(Format::LanggraphStream)
        );
        let value = &events;
        let convs = LanggraphStream
            .normalise(&[Doc { base: 0, value }])
            .unwrap_or_default();
        assert_eq!(convs.len(), 1);
        assert_eq!(convs[0].format, Format::LanggraphStream);
        let (_, call) = convs[0].calls().next().expect("one call");
        assert_eq!(call.loc.pointer, "/2/1/messages/1/data/tool_calls/0");

        let none = json!([["updates", {"agent": {}}]]);
        let value = &none;
        assert!(LanggraphStream
            .normalise(&[Doc { base: 0, value }])
            .is_err());
        assert_eq!(detect(&none).map(|a| a.format()), None);
    }
}
