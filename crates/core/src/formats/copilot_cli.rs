//! GitHub Copilot CLI session event logs (`~/.copilot/session-state/<sessionId>/events.jsonl`,
//! relocated by `COPILOT_HOME`): one append-only JSONL file is one session.
//!
//! Every line is an event `{type, id, timestamp, parentId, data, agentId?}`; line 1 is a
//! `session.start` whose `data.producer` is `"copilot-agent"`. The events read here:
//! `user.message` (`data.content`), `assistant.message` (`data.content` and
//! `data.toolRequests[] {toolCallId, name, arguments}`), and `tool.execution_complete`
//! (`data.toolCallId`, `success`, `result.content`, `error.message`), which answers the call
//! with the same `toolCallId`. `tool.execution_start` only says a tool began and is not a
//! result; turn markers, usage, hooks and the rest carry nothing that is sent back.
//! `arguments` is an object in practice; a string that does not parse is read as the
//! arguments cut off.
//!
//! The CLI rebuilds its request from this file on resume. Sub-agents (`agentId`; absent for
//! the main agent) write into the same file, so each agent's events are read as a
//! conversation of their own instead of interleaving the main history.
//!
//! After a successful `session.compaction_complete`, the messages before the compaction are
//! replaced by its `summaryContent`. Exactly which messages the CLI keeps is not documented
//! (it counts `preCompactionMessagesLength` messages of its own rebuilt list, which this
//! reader cannot verify), so the events of an agent before its last compaction started (its
//! `session.compaction_start`, else the completion itself) are left out — listed as
//! excluded, so the unread-structure guard counts them as read on purpose — and the summary
//! stands for them as a user message.
//!
//! The wire format follows the model (Anthropic blocks for Claude, Responses items for GPT),
//! so the session is held to the rules every provider shares. Reasoning text is not read.
//! A call still running when the file ends is in flight, not unanswered.
//!
//! Events chain by `parentId` (each names the event before it), so fixes are whole lines
//! re-linked (`formats/links.rs`): an unanswered call gets a `tool.execution_complete`
//! (`success: false`, `error.message`, a uuid derived from the session and the call) just
//! before the next turn boundary of its agent (`assistant.turn_end`, `user.message`,
//! `assistant.turn_start` or `assistant.message`), linked after the event before it, and
//! the boundary event is re-linked to it; a stray completion's line is removed and its child
//! re-linked to its parent. The event's shape follows the SDK's generated types; whether the
//! closed-source CLI accepts it on resume has not been tried.

use serde_json::{json, Value as Json};

use super::links::{self, derived_uuid, insert_linked_after, mentions_id, IdParent};
use super::adapter::{doc_headers, read_again, read_headers, Trees};
use super::{str_at, text_at, Adapter, Dialect, Doc, Format, Planned, Records, Visit};
use std::borrow::Cow;
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain copilot-cli` prints (Markdown).
pub(super) const DOC: &str = r#"GitHub Copilot CLI session events (`~/.copilot/session-state/<sessionId>/events.jsonl`, relocated by `COPILOT_HOME`): `user.message`, `assistant.message` `toolRequests` and `tool.execution_complete` by `toolCallId` (`success: false` fails; `tool.execution_start` is not a result); one conversation per agent (`agentId`, absent for the main agent); events before the last successful compaction are left out and its summary stands for them; string `arguments` that do not parse are truncated arguments; a call the file ends on is still running; `fix` inserts a failed `tool.execution_complete` for an unanswered call before its turn's next boundary and removes stray completions, re-linking `parentId`s (not tried against the closed-source CLI)"#;

pub struct CopilotCli;

/// Event types whose records carry what this reader reads or recognises.
const EVENT_PREFIXES: [&str; 8] = [
    "session.",
    "user.",
    "assistant.",
    "tool.",
    "system.",
    "subagent.",
    "hook.",
    "abort",
];

impl Dialect for CopilotCli {}

impl Adapter for CopilotCli {
    fn format(&self) -> Format {
        Format::CopilotCli
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        let kind = str_at(record, "type")?;
        // The event envelope: an id, a parent link (a string, or null at the start) and
        // the payload under `data`.
        let linked = str_at(record, "id").is_some()
            && record
                .get("parentId")
                .is_some_and(|p| p.is_null() || p.is_string())
            && record.get("data").is_some_and(Tree::is_object);
        if !linked {
            return None;
        }
        let data = record.get("data")?;
        match kind {
            "session.start" if str_at(data, "producer") == Some("copilot-agent") => Some(90),
            "assistant.message" if data.get("toolRequests").is_some() => Some(90),
            "tool.execution_complete" | "tool.execution_start"
                if str_at(data, "toolCallId").is_some() =>
            {
                Some(90)
            }
            kind if kind.contains('.') && EVENT_PREFIXES.iter().any(|p| kind.starts_with(p)) => {
                Some(50)
            }
            _ => None,
        }
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let events = doc_headers(docs, Event::read);
        rebuild(&events, &mut { docs }, &mut |_, _, _, _| {})
    }

    /// A session's events are read twice: once for which agent wrote each and where its
    /// last compaction is (then each tree is dropped, unless the session is small), and
    /// again, one at a time, as each agent's history.
    fn normalise_one_by_one(
        &self,
        records: &mut dyn Records<'_>,
        visit: Visit<'_>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        let (events, held) = read_headers(records, Event::read);
        Some(read_again(records, held, |trees| {
            rebuild(&events, trees, visit)
        }))
    }

    /// Whole-line edits that keep the `parentId` chain whole (see the module documentation).
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Unsupported;
        }
        let planned = match intent {
            FixIntent::InsertResult { call, .. } => insert_completion(cx, call),
            // A completion is its event's whole line.
            FixIntent::RemoveResult { result, message }
                if result.base == message.base
                    && result.pointer == "/data"
                    && message.pointer.is_empty() =>
            {
                links::remove_line::<IdParent>(cx, message)
            }
            _ => None,
        };
        links::planned(planned)
    }
}

/// Events that end an assistant turn's tool round: a completion goes before them.
const BOUNDARIES: [&str; 4] = [
    "assistant.turn_end",
    "user.message",
    "assistant.turn_start",
    "assistant.message",
];

/// The string at `pointer` of the record on line `line`.
fn line_str(cx: &EditContext<'_>, line: usize, pointer: &str) -> Option<String> {
    links::string_at(cx, cx.source.line_range(line).0, pointer)
}

/// A failed `tool.execution_complete` for `call`, just before the next turn boundary of its
/// agent after the call's event, linked after the event before that boundary.
fn insert_completion(cx: &EditContext<'_>, call: &ToolCall) -> Option<Vec<Edit>> {
    let call_id = call.id.as_deref()?;
    if !call.message.pointer.is_empty() {
        return None;
    }
    let call_line = cx.source.line_index(call.message.base);
    let agent = line_str(cx, call_line, "/agentId");
    let boundary = (call_line + 1..cx.source.line_count()).find(|&line| {
        line_str(cx, line, "/type").is_some_and(|t| BOUNDARIES.contains(&t.as_str()))
            && line_str(cx, line, "/agentId") == agent
    })?;
    // The event the completion follows: the one right before the boundary.
    let before = boundary.checked_sub(1)?;
    let (before_start, _) = cx.source.line_range(before);
    let previous = links::record(cx, before_start)?;
    let session = line_str(cx, 0, "/data/sessionId").unwrap_or_default();
    let id = derived_uuid(&session, call_id);
    if mentions_id::<IdParent>(cx, &id) {
        // Inserted before and still not answering: write nothing more.
        return None;
    }
    let mut data = serde_json::Map::new();
    data.insert("toolCallId".into(), call_id.into());
    data.insert("success".into(), false.into());
    data.insert("error".into(), json!({"message": NEVER_COMPLETED}));
    let mut line = serde_json::Map::new();
    line.insert("type".into(), "tool.execution_complete".into());
    line.insert("data".into(), Json::Object(data));
    line.insert("id".into(), id.clone().into());
    if let Some(ts) = previous.get("timestamp") {
        line.insert("timestamp".into(), ts.clone());
    }
    line.insert("parentId".into(), previous.get("id")?.clone());
    if let Some(agent) = agent {
        line.insert("agentId".into(), agent.into());
    }
    let rendered = serde_json::to_string(&Json::Object(line)).ok()?;
    insert_linked_after::<IdParent>(cx, &Loc::new(before_start, ""), &id, &rendered)
}

/// What the inserted completion says.
const NEVER_COMPLETED: &str = "Synthetic result written by toolcheck: no result was recorded for this call; it may or may not have run.";

/// What grouping a session's events by agent and finding each agent's last compaction
/// needs of one event, read from its tree: the strings borrow the file's text (or own their
/// decoding), so the tree need not be kept. A big session holds one per line.
struct Event<'t> {
    /// Which record of the session it is (what reads its tree again).
    at: usize,
    base: usize,
    /// Its `agentId`: `None` for the main agent.
    agent: Option<Cow<'t, str>>,
    kind: Kind<'t>,
    /// Whether it is an event of Copilot CLI's ([`CopilotCli::sniff_record`]).
    known: bool,
}

enum Kind<'t> {
    /// `session.start`, with its `data.copilotVersion`.
    Start(Option<Cow<'t, str>>),
    CompactionStart,
    /// `session.compaction_complete` that did not fail; whether it has a `summaryContent`.
    Compacted { summary: bool },
    Other,
}

impl<'t> Event<'t> {
    /// Record `at` of the session, at byte `base`.
    fn read(at: usize, base: usize, value: &Tree<'t>) -> Self {
        let data = value.get("data");
        let kind = match str_at(value, "type") {
            Some("session.start") => Kind::Start(data.and_then(|d| text_at(d, "copilotVersion"))),
            Some("session.compaction_start") => Kind::CompactionStart,
            Some("session.compaction_complete")
                if data
                    .and_then(|v| v.get("success"))
                    .and_then(Tree::as_bool)
                    != Some(false) =>
            {
                Kind::Compacted {
                    summary: data.is_some_and(|v| str_at(v, "summaryContent").is_some()),
                }
            }
            _ => Kind::Other,
        };
        Event {
            at,
            base,
            agent: text_at(value, "agentId"),
            kind,
            known: CopilotCli.sniff_record(value).is_some(),
        }
    }
}

/// The conversations of the session whose events are `events`, one per agent (the main
/// agent, with no `agentId`, first, then sub-agents in the order they first write), their
/// trees got again from `trees`; `visit` is shown each event as it is read.
fn rebuild<'t>(
    events: &[Event<'t>],
    trees: &mut dyn Trees<'t>,
    visit: Visit<'_>,
) -> Result<Vec<Conversation>, String> {
    if !events.iter().any(|e| e.known) && !events.is_empty() {
        return Err(
            "expected Copilot CLI events (`{type, id, parentId, data}` lines such as `session.start`, `assistant.message`)"
                .into(),
        );
    }
    let mut groups: Vec<(Option<&str>, Vec<&Event<'t>>)> = vec![(None, Vec::new())];
    for event in events {
        let agent = event.agent.as_deref();
        match groups.iter_mut().find(|(a, _)| *a == agent) {
            Some((_, group)) => group.push(event),
            None => groups.push((agent, vec![event])),
        }
    }
    let first = events.first().map_or(0, |e| e.base);
    Ok(groups
        .iter()
        .map(|(_, group)| {
            let base = group.first().map_or(first, |e| e.base);
            read_agent(group, Loc::new(base, ""), trees, visit)
        })
        .collect())
}

/// One agent's conversation from its events, in file order.
fn read_agent<'t>(
    events: &[&Event<'t>],
    loc: Loc,
    trees: &mut dyn Trees<'t>,
    visit: Visit<'_>,
) -> Conversation {
    let mut conv = Conversation::new(Format::CopilotCli, loc, Pairing::NextTurn);
    // A call the session ends on is still running, not unanswered.
    conv.resumable = false;
    conv.agent_version = events
        .iter()
        .find_map(|e| match &e.kind {
            Kind::Start(Some(version)) => Some(version.to_string()),
            _ => None,
        });
    // The last compaction that succeeded, and where the history it replaced ends.
    let compaction = events
        .iter()
        .rposition(|e| matches!(e.kind, Kind::Compacted { .. }));
    let mut start = 0;
    if let Some(c) = compaction {
        let cut = events
            .get(..c)
            .unwrap_or_default()
            .iter()
            .rposition(|e| matches!(e.kind, Kind::CompactionStart))
            .unwrap_or(c);
        for event in events.get(..cut).unwrap_or_default() {
            trees.read_into(event.at, &mut conv, visit, &mut |doc, conv| {
                conv.excluded.push(Loc::new(doc.base, "").child("data"));
            });
        }
        if let Some(event) = events.get(c) {
            let summary = matches!(event.kind, Kind::Compacted { summary: true });
            trees.read_into(event.at, &mut conv, visit, &mut |doc, conv| {
                let at = Loc::new(doc.base, "");
                conv.start_turn(Role::User, at.clone());
                if summary {
                    conv.push_to_last(Item::Text(Text {
                        loc: at.child(("data", "summaryContent")),
                        message: at,
                    }));
                }
            });
        }
        start = cut;
    }
    for (i, event) in events.iter().enumerate().skip(start) {
        if Some(i) == compaction {
            continue;
        }
        trees.read_into(event.at, &mut conv, visit, &mut |doc, conv| read_event(&doc, conv));
    }
    conv
}

/// One event of an agent's history.
fn read_event(doc: &Doc<'_>, conv: &mut Conversation) {
    let at = Loc::new(doc.base, "");
    let inner = at.child("data");
    let Some(data) = doc.value.get("data") else {
        return;
    };
    match str_at(doc.value, "type") {
        Some("user.message") => {
            conv.start_turn(Role::User, at.clone());
            if super::has_text(data.get("content")) {
                conv.push_to_last(Item::Text(Text {
                    loc: inner.child("content"),
                    message: at,
                }));
            }
        }
        Some("assistant.message") => {
            conv.start_turn(Role::Assistant, at.clone());
            if super::has_text(data.get("content")) {
                conv.push_to_last(Item::Text(Text {
                    loc: inner.child("content"),
                    message: at.clone(),
                }));
            }
            let requests = super::array_at(data, "toolRequests").map_or(&[][..], Vec::as_slice);
            for (j, request) in requests.iter().enumerate() {
                let loc = inner.child(("toolRequests", j));
                conv.push_to_last(Item::Call(tool_call(request, loc, &at)));
            }
        }
        Some("tool.execution_complete") => {
            let call_id = str_at(data, "toolCallId").map(str::to_string);
            let failed = data.get("success").and_then(Tree::as_bool) == Some(false);
            let text = data
                .get("error")
                .filter(|_| failed)
                .and_then(|e| e.get("message"))
                .or_else(|| data.get("result").and_then(|r| r.get("content")))
                .map(result_text)
                .unwrap_or_default();
            let result = ToolResult {
                key: pairing_key(call_id.as_deref(), &inner),
                call_id,
                name: str_at(data, "toolName").map(str::to_string),
                is_error: failed,
                text,
                provider_executed: false,
                id_field: None,
                loc: inner.clone(),
                message: at.clone(),
            };
            conv.push(Role::Tool, &at, Item::Result(result));
        }
        _ => {}
    }
}

/// A `toolRequests` entry. String arguments are JSON text, cut off when they do not parse.
fn tool_call(request: &Tree, loc: Loc, at: &Loc) -> ToolCall {
    let id = str_at(request, "toolCallId").map(str::to_string);
    let (arguments, args_loc) = match request.get("arguments") {
        Some(Tree::String(text)) => (Arguments::Encoded(text.to_string()), loc.child("arguments")),
        Some(args) => (Arguments::value(args.to_serde()), loc.child("arguments")),
        None => (Arguments::Absent, loc.clone()),
    };
    let kind = match str_at(request, "type") {
        Some("custom") => CallKind::FreeText,
        _ => CallKind::Function,
    };
    ToolCall {
        key: pairing_key(id.as_deref(), &loc),
        id,
        name: str_at(request, "name").unwrap_or_default().to_string(),
        kind,
        arguments,
        args_loc,
        loc,
        message: at.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::formats::session_docs;
    use crate::lint::{lint_str, Outcome};

    #[test]
    fn sniffs_copilot_events_only() {
        let start = tree_json!({"type": "session.start", "data": {"sessionId": "s", "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.80"}, "id": "e0", "timestamp": "t", "parentId": null});
        assert_eq!(CopilotCli.sniff_record(&start), Some(90));
        let call = tree_json!({"type": "assistant.message", "data": {"messageId": "m", "content": "", "toolRequests": []}, "id": "e1", "timestamp": "t", "parentId": "e0"});
        assert_eq!(CopilotCli.sniff_record(&call), Some(90));
        let done = tree_json!({"type": "tool.execution_complete", "data": {"toolCallId": "c", "success": true}, "id": "e2", "timestamp": "t", "parentId": "e1"});
        assert_eq!(CopilotCli.sniff_record(&done), Some(90));
        let turn = tree_json!({"type": "assistant.turn_end", "data": {"turnId": "0"}, "id": "e3", "timestamp": "t", "parentId": "e2"});
        assert_eq!(CopilotCli.sniff_record(&turn), Some(50));
        // Near misses: Claude Code, Codex, pi and Moltis lines, and an event without its
        // envelope.
        for other in [
            tree_json!({"type": "user", "uuid": "u", "parentUuid": null, "sessionId": "s", "message": {"role": "user", "content": "hi"}}),
            tree_json!({"type": "assistant", "uuid": "u", "parentUuid": "p", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]}}),
            tree_json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}),
            tree_json!({"type": "response_item", "payload": {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"}}),
            tree_json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/w"}),
            tree_json!({"type": "message", "id": "a1", "parentId": null, "timestamp": "t", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": [], "isError": false}}),
            tree_json!({"role": "tool_result", "tool_call_id": "c", "success": true}),
            tree_json!({"type": "tool.execution_complete", "toolCallId": "c", "success": true}),
        ] {
            assert_eq!(CopilotCli.sniff_record(&other), None, "{other}");
        }
        assert_eq!(CopilotCli.sniff(&start), None);
        assert!(!CopilotCli.has_documents());
    }

    #[test]
    fn reads_calls_results_and_failures() {
        let records = [
            tree_json!({"type": "user.message", "data": {"content": "go"}, "id": "e0", "parentId": null}),
            tree_json!({"type": "assistant.message", "data": {"content": "", "toolRequests": [
                {"toolCallId": "a", "name": "view", "arguments": {"path": "x"}},
                {"toolCallId": "b", "name": "edit", "arguments": "{\"path\": \"x"},
                {"toolCallId": "c", "name": "apply_patch", "arguments": "*** Begin", "type": "custom"}
            ]}, "id": "e1", "parentId": "e0"}),
            tree_json!({"type": "tool.execution_start", "data": {"toolCallId": "a", "toolName": "view", "arguments": {}}, "id": "e2", "parentId": "e1"}),
            tree_json!({"type": "tool.execution_complete", "data": {"toolCallId": "a", "success": true, "result": {"content": "ok"}}, "id": "e3", "parentId": "e2"}),
            tree_json!({"type": "tool.execution_complete", "data": {"toolCallId": "b", "success": false, "error": {"message": "denied"}}, "id": "e4", "parentId": "e3"}),
        ];
        let convs = CopilotCli
            .normalise(&session_docs(&records))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        assert_eq!(convs.len(), 1);
        let calls: Vec<(&str, &Arguments, CallKind)> = conv
            .calls()
            .map(|(_, c)| (c.key.as_str(), &c.arguments, c.kind))
            .collect();
        assert_eq!(
            calls,
            [
                (
                    "a",
                    &Arguments::value(serde_json::json!({"path": "x"})),
                    CallKind::Function
                ),
                (
                    "b",
                    &Arguments::Encoded("{\"path\": \"x".into()),
                    CallKind::Function
                ),
                (
                    "c",
                    &Arguments::Encoded("*** Begin".into()),
                    CallKind::FreeText
                ),
            ]
        );
        // The start event is not a result.
        let results: Vec<(&str, bool, &str)> = conv
            .results()
            .map(|(_, r)| (r.key.as_str(), r.is_error, r.text.as_str()))
            .collect();
        assert_eq!(results, [("a", false, "ok"), ("b", true, "denied")]);
        assert!(!conv.resumable);
    }

    #[test]
    fn each_agent_is_a_conversation_of_its_own() {
        let records = [
            tree_json!({"type": "user.message", "data": {"content": "go"}, "id": "e0", "parentId": null}),
            tree_json!({"type": "assistant.message", "data": {"content": "", "toolRequests": [{"toolCallId": "task", "name": "task", "arguments": {}}]}, "id": "e1", "parentId": "e0"}),
            tree_json!({"type": "user.message", "data": {"content": "look"}, "id": "e2", "parentId": "e1", "agentId": "sub"}),
            tree_json!({"type": "assistant.message", "data": {"content": "", "toolRequests": [{"toolCallId": "g", "name": "glob", "arguments": {}}]}, "id": "e3", "parentId": "e2", "agentId": "sub"}),
            tree_json!({"type": "tool.execution_complete", "data": {"toolCallId": "g", "success": true}, "id": "e4", "parentId": "e3", "agentId": "sub"}),
            tree_json!({"type": "tool.execution_complete", "data": {"toolCallId": "task", "success": true}, "id": "e5", "parentId": "e4"}),
        ];
        let convs = CopilotCli
            .normalise(&session_docs(&records))
            .unwrap_or_default();
        let bases: Vec<Vec<usize>> = convs
            .iter()
            .map(|c| c.turns.iter().map(|t| t.loc.base).collect())
            .collect();
        assert_eq!(bases, [vec![0, 1, 5], vec![2, 3, 4]]);
    }

    #[test]
    fn history_before_the_last_compaction_is_excluded() {
        let records = [
            tree_json!({"type": "user.message", "data": {"content": "old"}, "id": "e0", "parentId": null}),
            tree_json!({"type": "assistant.message", "data": {"content": "", "toolRequests": [{"toolCallId": "gone", "name": "view", "arguments": {}}]}, "id": "e1", "parentId": "e0"}),
            tree_json!({"type": "session.compaction_start", "data": {}, "id": "e2", "parentId": "e1"}),
            tree_json!({"type": "user.message", "data": {"content": "while compacting"}, "id": "e3", "parentId": "e2"}),
            tree_json!({"type": "session.compaction_complete", "data": {"success": true, "summaryContent": "s", "preCompactionMessagesLength": 2}, "id": "e4", "parentId": "e3"}),
            tree_json!({"type": "session.compaction_complete", "data": {"success": false}, "id": "e5", "parentId": "e4"}),
        ];
        let convs = CopilotCli
            .normalise(&session_docs(&records))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        // The summary, then what was written from the compaction's start on.
        let bases: Vec<usize> = conv.turns.iter().map(|t| t.loc.base).collect();
        assert_eq!(bases, [4, 3]);
        assert_eq!(conv.calls().count(), 0);
        let excluded: Vec<(usize, &str)> = conv
            .excluded
            .iter()
            .map(|l| (l.base, l.pointer.as_str()))
            .collect();
        assert_eq!(excluded, [(0, "/data"), (1, "/data")]);
    }

    #[test]
    fn not_copilot_when_forced_on_other_lines() {
        let records = [tree_json!({"role": "user", "content": "hi"})];
        assert!(CopilotCli.normalise(&session_docs(&records)).is_err());
    }

    #[test]
    fn clean_fixture_is_read_as_copilot_cli() {
        let report = lint_str(
            "events.jsonl",
            include_str!("../../../../fixtures/copilot-cli/clean-events.jsonl"),
        );
        assert_eq!(report.codes(), Vec::<String>::new());
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::CopilotCli]));
    }
}
