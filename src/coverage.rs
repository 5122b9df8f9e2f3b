//! The guard against silent passes: tool-call and tool-result structures that a document
//! holds (by any known format's markers) but that the chosen adapter did not read into a
//! conversation. A file is never clean because its adapter passed over what it did not
//! understand.
//!
//! The markers are deliberately generic (`tool_calls`, `tool_use`, `tool_result`,
//! `functionCall`, `functionResponse`, `toolUse`, `toolResult`, `function_call(_output)`,
//! `tool-call`, `tool-result`, `tool_call_id`...). A structure counts as read when a call or
//! result of the transcript sits at it, inside it or around it, or carries its id (formats
//! that keep a call twice, such as LangChain's `tool_calls` beside
//! `additional_kwargs.tool_calls`).

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashSet, HashSetExt};

use crate::tree::{Map, Value};

use crate::formats::Doc;
use crate::transcript::{Conversation, Loc};

/// A structure found in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Structure {
    pub loc: Loc,
    /// What marked it (`tool_use`, `functionCall`, `tool_calls` entry...).
    pub kind: &'static str,
    pub id: Option<String>,
}

/// How much of a file was read, for `-v`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadCounts {
    pub conversations: usize,
    pub calls: usize,
    pub results: usize,
}

impl ReadCounts {
    pub fn add(&mut self, other: ReadCounts) {
        self.conversations += other.conversations;
        self.calls += other.calls;
        self.results += other.results;
    }

    pub fn of(conversations: &[Conversation]) -> ReadCounts {
        ReadCounts {
            conversations: conversations.len(),
            calls: conversations.iter().map(|c| c.calls().count()).sum(),
            results: conversations.iter().map(|c| c.results().count()).sum(),
        }
    }
}

/// Block `type`s that are tool calls or results in some format.
const TYPES: &[&str] = &[
    "tool_use",
    "tool_result",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "tool-call",
    "tool-result",
    "tool_call",
];

/// Keys whose object value is a call or a result (Gemini, Bedrock, legacy OpenAI).
const KEYS: &[&str] = &[
    "functionCall",
    "functionResponse",
    "function_response",
    "toolUse",
    "toolResult",
    "function_call",
];

/// Keys whose array elements are calls or results (OpenAI, Spring AI).
const LISTS: &[(&str, &str)] = &[
    ("tool_calls", "tool_calls entry"),
    ("toolCalls", "toolCalls entry"),
    ("toolResponses", "toolResponses entry"),
    ("tool_uses", "tool_uses entry"),
    ("tool_responses", "tool_responses entry"),
];

/// Keys under which tools are declared, not called: not searched.
const DECLARATIONS: &[&str] = &[
    "tools",
    "functions",
    "functionDeclarations",
    "function_declarations",
    "toolConfig",
    "tool_config",
    "tool_choice",
    "toolChoice",
];

/// The structures of `docs` that no conversation read.
pub fn unread(docs: &[Doc<'_>], conversations: &[Conversation]) -> Vec<Structure> {
    // Every read node, and every node above one (a structure around a read node counts as
    // read): looked up by prefix, so the guard stays linear in the document.
    let mut read: HashSet<(usize, &str)> = HashSet::new();
    let mut around: HashSet<(usize, &str)> = HashSet::new();
    let mut ids: HashSet<&str> = HashSet::new();
    let mut locs: Vec<&Loc> = Vec::new();
    for conv in conversations {
        for (_, call) in conv.calls() {
            locs.push(&call.loc);
            ids.extend(call.id.as_deref());
        }
        for (_, result) in conv.results() {
            locs.push(&result.loc);
            ids.extend(result.call_id.as_deref());
        }
    }
    for loc in locs {
        let p = loc.pointer.as_str();
        read.insert((loc.base, p));
        for (i, _) in p.match_indices('/').skip(1) {
            around.insert((loc.base, p.get(..i).unwrap_or_default()));
        }
    }
    let mut found = Vec::new();
    for doc in docs {
        let mut path = Vec::new();
        scan(doc.value, doc.base, &mut path, &mut found);
    }
    found.retain(|s| {
        let (base, p) = (s.loc.base, s.loc.pointer.as_str());
        let at_or_around = read.contains(&(base, p)) || around.contains(&(base, p));
        // Inside a read node: one of the structure's own ancestors was read.
        let inside = p
            .match_indices('/')
            .skip(1)
            .any(|(i, _)| read.contains(&(base, p.get(..i).unwrap_or_default())));
        let by_id = s.id.as_deref().is_some_and(|id| ids.contains(id));
        !(at_or_around || inside || by_id)
    });
    found
}

enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn pointer(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => out.push_str(&crate::source::escape_token(k)),
            Seg::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

fn id_of(map: &Map<'_>) -> Option<String> {
    [
        "id",
        "call_id",
        "tool_use_id",
        "tool_call_id",
        "toolCallId",
        "toolUseId",
    ]
    .iter()
    .find_map(|k| map.get(k).and_then(Value::as_str))
    .map(str::to_string)
}

fn scan<'a>(value: &'a Value<'_>, base: usize, path: &mut Vec<Seg<'a>>, out: &mut Vec<Structure>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                scan(item, base, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            let here = |kind: &'static str, id: Option<String>, path: &[Seg<'_>]| Structure {
                loc: Loc::new(base, pointer(path)),
                kind,
                id,
            };
            // One pass over the keys: a dozen hashed lookups per object cost more than the
            // rest of the guard, and most objects hold none of these keys.
            let mut typed = None;
            let mut result_message: Option<&'a str> = None;
            let mut keyed: [Option<&'a Map<'_>>; KEYS.len()] = [None; KEYS.len()];
            let mut listed: [Option<&'a Vec<Value<'_>>>; LISTS.len()] = [None; LISTS.len()];
            for (key, child) in map {
                match (key, child) {
                    ("type", Value::String(t)) => typed = TYPES.iter().find(|k| **k == t.as_str()),
                    ("tool_call_id", Value::String(id)) => result_message = Some(id.as_str()),
                    (key, Value::Object(inner)) => {
                        if let Some(i) = KEYS.iter().position(|k| *k == key) {
                            keyed[i] = Some(inner);
                        }
                    }
                    (key, Value::Array(items)) => {
                        if let Some(i) = LISTS.iter().position(|(k, _)| *k == key) {
                            listed[i] = Some(items);
                        }
                    }
                    _ => {}
                }
            }
            if let Some(kind) = typed {
                out.push(here(kind, id_of(map), path));
            } else if let Some(call_id) = result_message {
                // Known by the call it answers; its own `id` (LangChain's) is the message's.
                out.push(here("tool result message", Some(call_id.to_string()), path));
            }
            for (key, inner) in KEYS.iter().zip(keyed) {
                if let Some(inner) = inner {
                    path.push(Seg::Key(key));
                    out.push(here(key, id_of(inner).or_else(|| id_of(map)), path));
                    path.pop();
                }
            }
            for (&(key, kind), calls) in LISTS.iter().zip(listed) {
                for (i, call) in calls.into_iter().flatten().enumerate() {
                    if let Value::Object(call) = call {
                        path.push(Seg::Key(key));
                        path.push(Seg::Index(i));
                        out.push(here(kind, id_of(call), path));
                        path.pop();
                        path.pop();
                    }
                }
            }
            for (key, child) in map {
                if !(child.is_object() || child.is_array()) || DECLARATIONS.contains(&key) {
                    continue;
                }
                path.push(Seg::Key(key));
                scan(child, base, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    fn structures(v: &Value) -> Vec<(String, &'static str)> {
        let mut out = Vec::new();
        scan(v, 0, &mut Vec::new(), &mut out);
        out.into_iter().map(|s| (s.loc.pointer, s.kind)).collect()
    }

    #[test]
    fn finds_every_format_marker_but_declarations() {
        let v = json!({
            "tools": [{"type": "function", "function": {"name": "f"}}],
            "messages": [
                {"role": "assistant", "tool_calls": [{"id": "c1"}]},
                {"role": "tool", "tool_call_id": "c1"},
                {"role": "tool", "content": [{"type": "tool-approval-response"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1"}]},
                {"parts": [{"functionCall": {"name": "g"}}]},
                {"content": [{"toolResult": {"toolUseId": "b1"}}]}
            ]
        });
        assert_eq!(
            structures(&v),
            [
                ("/messages/0/tool_calls/0".to_string(), "tool_calls entry"),
                ("/messages/1".to_string(), "tool result message"),
                ("/messages/3/content/0".to_string(), "tool_use"),
                (
                    "/messages/4/parts/0/functionCall".to_string(),
                    "functionCall"
                ),
                ("/messages/5/content/0/toolResult".to_string(), "toolResult"),
            ]
        );
    }
}
