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
use foldhash::HashSet;

use crate::tree::{Map, Value};

use crate::json::Doc;
use crate::transcript::{Conversation, Item, Loc, Since, Turn};

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
    let seen = Seen::of(conversations);
    let mut found = Vec::new();
    // One pointer buffer for the whole walk: structures are judged as they are met, and
    // only an unread one is copied out.
    let mut pointer = String::new();
    for doc in docs {
        pointer.clear();
        scan(
            doc.value,
            doc.base,
            &mut pointer,
            &seen,
            &mut found,
            &mut None,
        );
    }
    found
}

/// The documents of `docs` that some turn or item of `conversations` was read from: what
/// a format that replays only part of a session (a chain of records) is held to.
pub fn drawn_on<'d>(docs: &[Doc<'d>], conversations: &[Conversation]) -> Vec<Doc<'d>> {
    let bases: HashSet<usize> = conversations
        .iter()
        .flat_map(|c| {
            let items = c.turns.iter().flat_map(|t| &t.items);
            drawn_bases(&c.turns, items)
        })
        .collect();
    docs.iter()
        .filter(|d| bases.contains(&d.base))
        .copied()
        .collect()
}

/// The records `turns` and `items` were read from: where each turn starts and each item's
/// message is.
fn drawn_bases<'a>(
    turns: &'a [Turn],
    items: impl IntoIterator<Item = &'a Item> + 'a,
) -> impl Iterator<Item = usize> + 'a {
    let starts = turns.iter().map(|t| t.loc.base);
    starts.chain(items.into_iter().map(|i| i.message().base))
}

/// The guard for a session read one record at a time
/// ([`crate::formats::Adapter::normalise_one_by_one`]): each record is scanned while its tree
/// is alive, against what its conversation read from it. A structure a read node accounts
/// for is settled there; the others wait for the ids of every conversation (a call kept
/// twice is known by its id), which [`RecordGuard::finish`] knows. The same structures as
/// [`unread`] over every record, or over the records drawn on ([`drawn_on`]) for a session
/// rebuilt from part of its records: a record's reads settle what they cover whichever read
/// comes first.
pub struct RecordGuard {
    /// Whether every record is held to the guard, or only those something was read from.
    every_record: bool,
    /// Whether each record (by its index in the session) has been scanned.
    scanned: Vec<bool>,
    /// The records with structures none of their reads covers so far: each one's offset
    /// and those structures (few records have any: the others keep nothing here).
    open: Vec<(usize, Vec<Structure>)>,
    /// Where each record of `open` is in it, by its index.
    open_at: foldhash::HashMap<usize, usize>,
}

impl RecordGuard {
    /// A guard for a session whose conversations are built from every record (see
    /// [`crate::formats::Adapter::replays_every_record`]), or from the records they draw on.
    pub fn new(every_record: bool) -> Self {
        RecordGuard {
            every_record,
            scanned: Vec::new(),
            open: Vec::new(),
            open_at: foldhash::HashMap::default(),
        }
    }

    /// A conversation has just read `read` from `doc`, the session's record `record`.
    pub fn read(&mut self, record: usize, doc: Doc<'_>, read: &Since<'_>) {
        let base = doc.base;
        if !self.every_record
            && !drawn_bases(read.turns, read.items.iter().copied()).any(|b| b == base)
        {
            return;
        }
        let seen = Seen::since(read);
        if self.scanned.len() <= record {
            self.scanned.resize(record + 1, false);
        }
        let Some(scanned) = self.scanned.get_mut(record) else {
            return;
        };
        if std::mem::replace(scanned, true) {
            if let Some((_, open)) = self
                .open_at
                .get(&record)
                .and_then(|&k| self.open.get_mut(k))
            {
                open.retain(|s| !seen.covers(s.loc.base, &s.loc.pointer, None));
            }
            return;
        }
        let mut found = Vec::new();
        scan(
            doc.value,
            base,
            &mut String::new(),
            &seen,
            &mut found,
            &mut None,
        );
        if !found.is_empty() {
            self.open_at.insert(record, self.open.len());
            self.open.push((base, found));
        }
    }

    /// The structures no conversation read, in the order of the records holding them.
    pub fn finish(mut self, conversations: &[Conversation]) -> Vec<Structure> {
        let ids: HashSet<&str> = conversations
            .iter()
            .flat_map(|c| {
                let calls = c.calls().filter_map(|(_, call)| call.id.as_deref());
                calls.chain(c.results().filter_map(|(_, r)| r.call_id.as_deref()))
            })
            .collect();
        self.open.sort_by_key(|(base, _)| *base);
        self.open
            .into_iter()
            .flat_map(|(_, open)| open)
            .filter(|s| !s.id.as_deref().is_some_and(|id| ids.contains(id)))
            .collect()
    }
}

/// The guard for a document whose messages are read one at a time
/// ([`crate::formats::Adapter::normalise_taking`]): each message is scanned as it is taken,
/// against what the conversation read from it, and the structures that settles are
/// forgotten; [`MessageGuard::finish`] judges the others against everything read, and walks
/// what is left of the document. The same structures, in the same order, as [`unread`] over
/// the whole document: what a message's own reads cover, every read covers.
pub struct MessageGuard {
    base: usize,
    /// Where the message list is (the messages' pointer without their index).
    list: Option<String>,
    /// The structures of the messages taken so far that their own reads do not cover.
    open: Vec<Structure>,
}

impl MessageGuard {
    pub fn new(base: usize) -> Self {
        MessageGuard {
            base,
            list: None,
            open: Vec::new(),
        }
    }

    /// The message at `loc` (`message`) has just been read, giving `read`.
    pub fn read(&mut self, loc: &Loc, message: &Value<'_>, read: &Since<'_>) {
        if self.list.is_none() {
            let list = loc.pointer.rfind('/').and_then(|i| loc.pointer.get(..i));
            let list = list.unwrap_or_default();
            self.list = Some(list.to_string());
        }
        if !(message.is_object() || message.is_array()) {
            return;
        }
        let seen = Seen::since(read);
        let mut pointer = loc.pointer.to_string();
        scan(
            message,
            loc.base,
            &mut pointer,
            &seen,
            &mut self.open,
            &mut None,
        );
    }

    /// The structures no conversation read: of the messages taken, and of `rest`, what is
    /// left of the document.
    pub fn finish(self, rest: &Value<'_>, conversations: &[Conversation]) -> Vec<Structure> {
        // Every structure left, in the order of the whole walk (judged by nothing, a walk
        // keeps each it meets), then judged by everything read: most documents leave none,
        // and then what every read covers is never gathered.
        let mut splice = self.list.map(|list| Splice {
            list,
            structures: self.open,
        });
        let mut found = Vec::new();
        let none = Seen::default();
        scan(
            rest,
            self.base,
            &mut String::new(),
            &none,
            &mut found,
            &mut splice,
        );
        // The walk meets the list where the messages were; were it not there, what they
        // held is still reported.
        found.extend(splice.into_iter().flat_map(|s| s.structures));
        if !found.is_empty() {
            let seen = Seen::of(conversations);
            found.retain(|s| !seen.covers(s.loc.base, &s.loc.pointer, s.id.as_deref()));
        }
        found
    }
}

/// What the conversations read: every read node, every node above one (a structure around
/// a read node counts as read), and the ids of read calls and results. Looked up by pointer
/// prefix, so the guard stays linear in the document.
#[derive(Default)]
struct Seen<'c> {
    read: HashSet<(usize, &'c str)>,
    around: HashSet<(usize, &'c str)>,
    ids: HashSet<&'c str>,
}

impl<'c> Seen<'c> {
    /// Room for `nodes` calls and results. Most of a node's ancestors are shared with its
    /// neighbours' (the message list, the message of several calls): `around` is sized for
    /// one new ancestor per node (three each, the deepest it gets, reserved an eighth of the
    /// peak memory of a history of 100,000 calls), and deeper formats grow it once or
    /// twice. A call and its result carry one id.
    fn with_capacity(nodes: usize) -> Self {
        Seen {
            read: HashSet::with_capacity_and_hasher(nodes, Default::default()),
            around: HashSet::with_capacity_and_hasher(nodes, Default::default()),
            ids: HashSet::with_capacity_and_hasher(nodes / 2, Default::default()),
        }
    }

    /// Everything `conversations` read.
    fn of(conversations: &'c [Conversation]) -> Self {
        let nodes = conversations
            .iter()
            .map(|c| c.calls().count() + c.results().count())
            .sum();
        let mut seen = Seen::with_capacity(nodes);
        for conv in conversations {
            for item in conv.turns.iter().flat_map(|t| &t.items) {
                seen.add_item(item);
            }
            for loc in &conv.excluded {
                seen.exclude(loc);
            }
        }
        seen
    }

    /// What a conversation read after a mark.
    fn since(read: &Since<'c>) -> Self {
        let mut seen = Seen::with_capacity(read.items.len());
        for item in &read.items {
            seen.add_item(item);
        }
        for loc in read.excluded {
            seen.exclude(loc);
        }
        seen
    }

    /// A call or result read (by its id too); text is no structure.
    fn add_item(&mut self, item: &'c Item) {
        match item {
            Item::Call(call) => self.add(&call.loc, call.id.as_deref()),
            Item::Result(result) => self.add(&result.loc, result.call_id.as_deref()),
            Item::Text(_) | Item::Thinking(_) => {}
        }
    }

    /// Left out on purpose: what is inside is accounted for, not unread.
    fn exclude(&mut self, loc: &'c Loc) {
        self.read.insert((loc.base, loc.pointer.as_str()));
    }

    fn add(&mut self, loc: &'c Loc, id: Option<&'c str>) {
        let p = loc.pointer.as_str();
        self.read.insert((loc.base, p));
        for (i, _) in p.match_indices('/').skip(1) {
            self.around
                .insert((loc.base, p.get(..i).unwrap_or_default()));
        }
        self.ids.extend(id);
    }

    /// Whether the structure at `pointer` (carrying `id`) was read.
    fn covers(&self, base: usize, pointer: &str, id: Option<&str>) -> bool {
        let at_or_around =
            self.read.contains(&(base, pointer)) || self.around.contains(&(base, pointer));
        // Inside a read node: one of the structure's own ancestors was read.
        let inside = || {
            pointer.match_indices('/').skip(1).any(|(i, _)| {
                self.read
                    .contains(&(base, pointer.get(..i).unwrap_or_default()))
            })
        };
        let by_id = id.is_some_and(|id| self.ids.contains(id));
        at_or_around || by_id || inside()
    }

    /// Records the structure at `pointer` unless it was read.
    fn judge(
        &self,
        base: usize,
        pointer: &str,
        kind: &'static str,
        id: Option<&str>,
        out: &mut Vec<Structure>,
    ) {
        if !self.covers(base, pointer, id) {
            out.push(Structure {
                loc: Loc::new(base, pointer),
                kind,
                id: id.map(str::to_string),
            });
        }
    }
}

fn id_of<'m>(map: &'m Map<'_>) -> Option<&'m str> {
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
}

/// Structures found in the elements of the array at `list` before they were taken out of
/// it: the walk that meets the array puts them where its elements' would be.
struct Splice {
    list: String,
    structures: Vec<Structure>,
}

/// Walks `value`, whose pointer is in `pointer` (restored on return).
fn scan(
    value: &Value<'_>,
    base: usize,
    pointer: &mut String,
    seen: &Seen<'_>,
    out: &mut Vec<Structure>,
    splice: &mut Option<Splice>,
) {
    let depth = pointer.len();
    match value {
        Value::Array(items) => {
            if let Some(taken) = splice.take_if(|s| s.list == *pointer) {
                out.extend(taken.structures);
            }
            for (i, item) in items.iter().enumerate() {
                if item.is_object() || item.is_array() {
                    crate::pointer::push_token(pointer, &i);
                    scan(item, base, pointer, seen, out, splice);
                    pointer.truncate(depth);
                }
            }
        }
        Value::Object(map) => {
            // One pass over the keys: a dozen lookups per object cost more than the rest of
            // the guard, and most objects hold none of these keys.
            let mut typed = None;
            let mut result_message: Option<&str> = None;
            let mut keyed: [Option<&Map<'_>>; KEYS.len()] = [None; KEYS.len()];
            let mut listed: [Option<&Vec<Value<'_>>>; LISTS.len()] = [None; LISTS.len()];
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
                seen.judge(base, pointer, kind, id_of(map), out);
            } else if let Some(call_id) = result_message {
                // Known by the call it answers; its own `id` (LangChain's) is the message's.
                seen.judge(base, pointer, "tool result message", Some(call_id), out);
            }
            for (key, inner) in KEYS.iter().zip(keyed) {
                if let Some(inner) = inner {
                    crate::pointer::push_token(pointer, key);
                    let id = id_of(inner).or_else(|| id_of(map));
                    seen.judge(base, pointer, key, id, out);
                    pointer.truncate(depth);
                }
            }
            for (&(key, kind), calls) in LISTS.iter().zip(listed) {
                for (i, call) in calls.into_iter().flatten().enumerate() {
                    if let Value::Object(call) = call {
                        crate::pointer::push_token(pointer, &key);
                        crate::pointer::push_token(pointer, &i);
                        seen.judge(base, pointer, kind, id_of(call), out);
                        pointer.truncate(depth);
                    }
                }
            }
            for (key, child) in map {
                if !(child.is_object() || child.is_array()) || DECLARATIONS.contains(&key) {
                    continue;
                }
                crate::pointer::push_token(pointer, &key);
                scan(child, base, pointer, seen, out, splice);
                pointer.truncate(depth);
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
        scan(
            v,
            0,
            &mut String::new(),
            &Seen::default(),
            &mut out,
            &mut None,
        );
        out.into_iter()
            .map(|s| (s.loc.pointer.to_string(), s.kind))
            .collect()
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

    /// A repeated `type` is read as the tree reads it, the last one winning: a block that
    /// ends up an image is no call, whatever an earlier `type` said.
    #[test]
    fn the_last_of_repeated_types_decides() {
        let text = r#"{"content": [{"type": "tool_use", "id": "t1", "type": "image"},
            {"type": "image", "type": "tool_use", "id": "t2"}]}"#;
        let tree = crate::tree::parse(text).expect("valid JSON");
        assert_eq!(
            structures(&tree.value),
            [("/content/1".to_string(), "tool_use")]
        );
    }

    /// The plain definition the sets answer by lookups of pointers and prefixes: read,
    /// around a read node (not the document itself), inside one, or carrying a read id.
    fn covers_by_definition(
        read: &[(usize, String)],
        ids: &[String],
        base: usize,
        p: &str,
    ) -> bool {
        let at = read.iter().any(|(b, r)| *b == base && r == p);
        let around = !p.is_empty()
            && read
                .iter()
                .any(|(b, r)| *b == base && r.strip_prefix(p).is_some_and(|t| t.starts_with('/')));
        let inside = read.iter().any(|(b, r)| {
            *b == base
                && !r.is_empty()
                && p.strip_prefix(r.as_str())
                    .is_some_and(|t| t.starts_with('/'))
        });
        let by_id = ids.iter().any(|i| i == p);
        at || around || inside || by_id
    }

    proptest::proptest! {
        #[test]
        fn seen_agrees_with_its_definition(
            read in proptest::collection::vec((0usize..2, "(/[ab0-9~.-]{0,2}){0,4}"), 0..12),
            ids in proptest::collection::vec("[ab]{1,2}", 0..3),
            probes in proptest::collection::vec((0usize..2, "(/[ab0-9~.-]{0,2}){0,4}"), 1..12),
        ) {
            let locs: Vec<Loc> = read.iter().map(|(b, p)| Loc::new(*b, p)).collect();
            let mut seen = Seen::default();
            for (i, loc) in locs.iter().enumerate() {
                seen.add(loc, ids.get(i).map(String::as_str));
            }
            let given: Vec<String> = ids.iter().take(locs.len()).cloned().collect();
            for (base, p) in &probes {
                // A probe is also tried as an id: `covers` takes the structure's id.
                proptest::prop_assert_eq!(
                    seen.covers(*base, p, Some(p)),
                    covers_by_definition(&read, &given, *base, p),
                    "probe {:?} at {}", p, base
                );
            }
        }
    }
}
