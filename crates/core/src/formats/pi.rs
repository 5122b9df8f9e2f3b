//! pi coding-agent sessions, also written by OpenClaw and oh-my-pi
//! (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`,
//! `~/.openclaw/agents/<id>/sessions/*.jsonl`): one append-only JSONL file is one session.
//!
//! Line 1 is a `{"type":"session", id, cwd, version?}` header; every other line is an entry
//! (`message`, `compaction`, `branch_summary`, `custom_message`, `model_change`, `label` ...).
//! From version 2 on, entries carry an `id` and a `parentId`, so a file is a tree; version 1
//! files have neither, and their order is the path.
//!
//! What pi sends back to a model is rebuilt here the way pi rebuilds it on resume: the leaf
//! is the last entry in file order, the path is its `parentId` chain up to the root, and the
//! last `compaction` on the path stands for everything before it except the entries from its
//! `firstKeptEntryId` (v1: `firstKeptEntryIndex`, an index into the file's parsed lines) on.
//! A compaction carrying a `retainedTail` keeps only that tail. Assistant messages that
//! stopped with `error` or `aborted` are never replayed, nor are their calls; entries off
//! the path (abandoned branches) are left out.
//!
//! Messages: `user`, `assistant` (blocks `text`, `thinking`, `toolCall {id, name,
//! arguments}`), `toolResult {toolCallId, toolName, content, isError}`, and the messages pi
//! turns into user messages (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`).
//! Streaming providers also keep the raw argument text in `partialJson`; when it does not
//! parse, the call was cut off and `arguments` is only a best-effort guess, so the raw text
//! is what is judged.
//!
//! The wire format follows each assistant's `api`, which may change within a session, so the
//! session is held to the rules every provider shares. A call still running when the file
//! ends is in flight, not unanswered.
//!
//! Fixes keep the `parentId` tree whole and never touch line 1 or move the leaf
//! (`formats/links.rs`): an unanswered call gets a `toolResult` line (`isError: true`, a
//! fresh 8-hex id derived from the session and the call, so fixing twice writes the same
//! line) right after its assistant's line, hanging from it, and the entries that hung from
//! the assistant hang from the new line; an orphaned or duplicate result line is removed and
//! its children re-parented to its parent. Version 1 files (no ids) and results inside a
//! compaction's `retainedTail` get no fix, nor do moves, call removals and argument rewrites.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{json, Value as Json};

use super::links::{self, IdParent};
use super::adapter::{doc_headers, read_again, read_headers, Trees};
use super::{
    array_at, blocks, has_text, str_at, text_at, Adapter, Dialect, Doc, Format, Planned, Records,
    Visit,
};
use crate::edit::plan::EditContext;
use crate::finding::Edit;
use crate::finding::FixIntent;
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain pi` prints (Markdown).
pub(super) const DOC: &str = r#"pi, OpenClaw and oh-my-pi session JSONL (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`, `~/.openclaw/agents/<id>/sessions/*.jsonl`), rebuilt as pi resumes it: the `parentId` path from the last entry (v1 files: file order), the last compaction's summary and kept entries; `toolCall` blocks and `toolResult` messages (`isError`, OpenClaw `details.status: "error"` fail); assistants that stopped with `error`/`aborted` are not sent and not checked; `partialJson` that does not parse is truncated arguments; a call the file ends on is still running; `fix` inserts a synthetic `toolResult` line (`isError: true`) for an unanswered call and removes stray and (unsafe) duplicate result lines, re-linking `parentId`s (v2+ files)"#;

pub struct Pi;

/// Entry types pi writes after the header.
const ENTRY_TYPES: [&str; 9] = [
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

/// Message roles pi keeps in `message` entries (`hookMessage` is v2's name for `custom`).
const ROLES: [&str; 8] = [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "hookMessage",
    "branchSummary",
    "compactionSummary",
];

impl Dialect for Pi {}

impl Adapter for Pi {
    fn format(&self) -> Format {
        Format::Pi
    }

    fn replays_every_record(&self) -> bool {
        false
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        match str_at(record, "type")? {
            "session" => {
                let header = str_at(record, "id").is_some()
                    && (str_at(record, "cwd").is_some() || str_at(record, "timestamp").is_some());
                header.then_some(90)
            }
            "message" => {
                let message = record.get("message")?;
                let role = str_at(message, "role").filter(|r| ROLES.contains(r))?;
                // `toolResult` and `toolCall` blocks are pi's own spellings.
                let own = role == "toolResult"
                    || blocks(message)
                        .iter()
                        .any(|b| str_at(b, "type") == Some("toolCall"));
                if own {
                    Some(90)
                } else if is_linked(record) {
                    Some(50)
                } else {
                    None
                }
            }
            "compaction" => {
                let kept = record.get("firstKeptEntryId").is_some()
                    || record.get("firstKeptEntryIndex").is_some();
                (kept && str_at(record, "summary").is_some()).then_some(90)
            }
            kind if ENTRY_TYPES.contains(&kind) => is_linked(record).then_some(50),
            _ => None,
        }
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let lines = doc_headers(docs, Line::read);
        rebuild(&lines, &mut { docs }, &mut |_, _, _, _| {})
    }

    /// A session's lines are read twice: once for what links them (then each tree is
    /// dropped, unless the session is small), and again, one at a time, for the entries its
    /// path replays.
    fn normalise_one_by_one(
        &self,
        records: &mut dyn Records<'_>,
        visit: Visit<'_>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        let (lines, held) = read_headers(records, Line::read);
        Some(read_again(records, held, |trees| {
            rebuild(&lines, trees, visit)
        }))
    }

    /// Whole-line edits that keep the `parentId` tree whole (see the module documentation).
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Unsupported;
        }
        let planned = match intent {
            FixIntent::InsertResult { call, after, .. } => insert_result(cx, call, after),
            // A `toolResult` message is its entry's whole line.
            FixIntent::RemoveResult { result, message }
                if result.base == message.base
                    && result.pointer == "/message"
                    && message.pointer.is_empty() =>
            {
                links::remove_line::<IdParent>(cx, message)
            }
            _ => None,
        };
        links::planned(planned)
    }
}

/// What the inserted result says.
const NEVER_RETURNED: &str = "Synthetic result written by toolcheck: no result was recorded for this call; it may or may not have run.";

/// A `toolResult` line answering `call`, after its assistant's line `after` and hanging from
/// it; what hung from the assistant hangs from the new line.
fn insert_result(
    cx: &EditContext<'_>,
    call: &crate::transcript::ToolCall,
    after: &Loc,
) -> Option<Vec<Edit>> {
    let call_id = call.id.as_deref()?;
    // Only an entry's own message, never a compaction's retained tail.
    if !call.message.pointer.is_empty() || call.message.base != after.base {
        return None;
    }
    links::insert_message_line(cx, after, call_id, 8, |holder| {
        let mut message = serde_json::Map::new();
        message.insert("role".into(), "toolResult".into());
        message.insert("toolCallId".into(), call_id.into());
        message.insert("toolName".into(), call.name.clone().into());
        message.insert(
            "content".into(),
            json!([{"type": "text", "text": NEVER_RETURNED}]),
        );
        message.insert("isError".into(), true.into());
        if let Some(ms) = holder.get("message").and_then(|m| m.get("timestamp")) {
            message.insert("timestamp".into(), ms.clone());
        }
        Json::Object(message)
    })
}

/// Whether an entry carries pi's tree links: an `id` and a `parentId` (a string, or null at
/// the root).
fn is_linked(record: &Tree) -> bool {
    str_at(record, "id").is_some()
        && record
            .get("parentId")
            .is_some_and(|p| p.is_null() || p.is_string())
}

/// What rebuilding the path needs of one line of the session that parses, read from its
/// tree: the strings borrow the file's text (or own their decoding), so the tree need not be
/// kept. A big session holds one per line while its path is rebuilt.
struct Line<'t> {
    /// Which record of the session it is (what reads its tree again).
    at: usize,
    base: usize,
    id: Option<Cow<'t, str>>,
    parent: Option<Cow<'t, str>>,
    kind: Kind<'t>,
    /// Whether its `type` is one pi writes.
    known: bool,
}

enum Kind<'t> {
    /// The `session` header, which is no entry: its `version`.
    Header(Option<u64>),
    /// A compaction, and what it keeps besides its summary: its `retainedTail` (`tail`), or
    /// the entries from `first_id` (v1: `first_index`, an index into the parsed lines) on.
    Compaction {
        tail: bool,
        first_id: Option<Cow<'t, str>>,
        first_index: Option<u64>,
    },
    /// An entry the replay reads a message from.
    Message,
    /// Any other entry (model and label changes, types pi does not know): on the path, it
    /// still counts (the leaf is the last entry whatever it is) but sends nothing.
    Other,
}

impl<'t> Line<'t> {
    /// Record `at` of the session, at byte `base`.
    fn read(at: usize, base: usize, value: &Tree<'t>) -> Self {
        let kind = match str_at(value, "type") {
            Some("session") => Kind::Header(value.get("version").and_then(Tree::as_u64)),
            Some("compaction") => Kind::Compaction {
                tail: array_at(value, "retainedTail").is_some(),
                first_id: text_at(value, "firstKeptEntryId"),
                first_index: value.get("firstKeptEntryIndex").and_then(Tree::as_u64),
            },
            Some("message" | "custom_message" | "branch_summary") => Kind::Message,
            _ => Kind::Other,
        };
        Line {
            at,
            base,
            id: text_at(value, "id"),
            parent: text_at(value, "parentId"),
            kind,
            known: str_at(value, "type")
                .is_some_and(|t| t == "session" || ENTRY_TYPES.contains(&t)),
        }
    }
}

/// The conversation of the session whose parsed lines are `lines`, their trees got again from
/// `trees`; `visit` is shown each line read, as it is read.
fn rebuild<'t>(
    lines: &[Line<'t>],
    trees: &mut dyn Trees<'t>,
    visit: Visit<'_>,
) -> Result<Vec<Conversation>, String> {
    if !lines.iter().any(|l| l.known) && !lines.is_empty() {
        return Err(
            "expected pi session lines (a `session` header, then `message`, `compaction`... entries)"
                .into(),
        );
    }
    let first = lines.first().map_or(0, |l| l.base);
    let mut conv = Conversation::new(Format::Pi, Loc::new(first, ""), Pairing::NextTurn);
    // A call the session ends on is still running, not unanswered.
    conv.resumable = false;
    conv.agent_version = lines.iter().find_map(|l| match l.kind {
        Kind::Header(version) => Some(version.map(|v| v.to_string())),
        _ => None,
    })
    .flatten();
    // Entries with their index among the file's parsed lines (what a v1
    // `firstKeptEntryIndex` counts, the header being 0).
    let entries: Vec<(usize, &Line<'t>)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !matches!(l.kind, Kind::Header(_)))
        .collect();
    let path = path(&entries);
    for step in replayed(&entries, &path) {
        let (line, summary) = match step {
            Replayed::Entry(line) => (line, false),
            Replayed::Compaction(line) => (line, true),
        };
        // An entry that sends nothing is not parsed again.
        if !summary && !matches!(line.kind, Kind::Message) {
            continue;
        }
        trees.read_into(line.at, &mut conv, visit, &mut |doc, conv| {
            if summary {
                read_compaction(&doc, conv);
            } else {
                read_entry(&doc, conv);
            }
        });
    }
    Ok(vec![conv])
}

/// The replayed path, as positions in `entries`: the `parentId` chain from the last entry
/// (v2+), or every entry in order (v1, which has no ids).
fn path(entries: &[(usize, &Line<'_>)]) -> Vec<usize> {
    let linked = entries.iter().any(|(_, l)| l.id.is_some());
    if !linked {
        return (0..entries.len()).collect();
    }
    // A later entry with the same id wins, as in pi's index.
    let by_id: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, (_, l))| l.id.as_deref().map(|id| (id, i)))
        .collect();
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut current = entries.len().checked_sub(1);
    while let Some(i) = current {
        if !seen.insert(i) {
            break;
        }
        path.push(i);
        current = entries
            .get(i)
            .and_then(|(_, l)| l.parent.as_deref())
            .and_then(|parent| by_id.get(parent).copied());
    }
    path.reverse();
    path
}

enum Replayed<'l, 't> {
    Entry(&'l Line<'t>),
    /// A compaction: its summary, sent as a user message, then its `retainedTail` if any.
    Compaction(&'l Line<'t>),
}

/// The path entries pi sends, in order: with a compaction on the path, its summary (and
/// retained tail), the kept entries before it, then everything after it.
fn replayed<'l, 't>(entries: &[(usize, &'l Line<'t>)], path: &[usize]) -> Vec<Replayed<'l, 't>> {
    let on_path: Vec<(usize, &'l Line<'t>)> = path
        .iter()
        .filter_map(|&i| entries.get(i).copied())
        .collect();
    let compaction = on_path
        .iter()
        .rposition(|(_, l)| matches!(l.kind, Kind::Compaction { .. }));
    let Some(c) = compaction else {
        return on_path.iter().map(|(_, l)| Replayed::Entry(l)).collect();
    };
    let Some(&(_, comp)) = on_path.get(c) else {
        return Vec::new();
    };
    let before = on_path.get(..c).unwrap_or_default();
    let after = on_path.get(c + 1..).unwrap_or_default();
    let mut out = vec![Replayed::Compaction(comp)];
    if let Kind::Compaction {
        tail: false,
        first_id,
        first_index,
    } = &comp.kind
    {
        let kept = before.iter().position(|(index, l)| match first_id {
            Some(id) => l.id.as_deref() == Some(&**id),
            None => first_index.is_some_and(|k| u64::try_from(*index).ok() == Some(k)),
        });
        if let Some(start) = kept {
            out.extend(
                before
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .map(|(_, l)| Replayed::Entry(l)),
            );
        }
    }
    out.extend(after.iter().map(|(_, l)| Replayed::Entry(l)));
    out
}

/// A compaction on the path: its summary as a user message, then the messages of its
/// `retainedTail`, if it has one.
fn read_compaction(doc: &Doc<'_>, conv: &mut Conversation) {
    let loc = Loc::new(doc.base, "");
    conv.start_turn(Role::User, loc.clone());
    conv.push_to_last(Item::Text(Text {
        loc: loc.child("summary"),
        message: loc.clone(),
    }));
    for (k, message) in array_at(doc.value, "retainedTail")
        .into_iter()
        .flatten()
        .enumerate()
    {
        read_message(message, &loc, &loc.child(("retainedTail", k)), conv);
    }
}

/// One replayed entry: messages, and the entries pi turns into user messages.
fn read_entry(doc: &Doc<'_>, conv: &mut Conversation) {
    let at = Loc::new(doc.base, "");
    match str_at(doc.value, "type") {
        Some("message") => {
            if let Some(message) = doc.value.get("message") {
                read_message(message, &at, &at.child("message"), conv);
            }
        }
        Some("custom_message") => user_text(conv, &at, doc.value, "content"),
        Some("branch_summary") if str_at(doc.value, "summary").is_some_and(|s| !s.is_empty()) => {
            user_text(conv, &at, doc.value, "summary");
        }
        _ => {}
    }
}

/// A user turn holding the text at `value[key]`, if any.
fn user_text(conv: &mut Conversation, at: &Loc, value: &Tree, key: &str) {
    conv.start_turn(Role::User, at.clone());
    if has_text(value.get(key)) {
        conv.push_to_last(Item::Text(Text {
            loc: at.child(key),
            message: at.clone(),
        }));
    }
}

/// The message `message` at `inner`, in the entry at `at`.
fn read_message(message: &Tree, at: &Loc, inner: &Loc, conv: &mut Conversation) {
    match str_at(message, "role") {
        Some("user" | "custom" | "hookMessage") => user_text(conv, at, message, "content"),
        Some("branchSummary" | "compactionSummary") => user_text(conv, at, message, "summary"),
        // A shell command the user ran, sent as a user message unless excluded.
        Some("bashExecution")
            if message.get("excludeFromContext").and_then(Tree::as_bool) != Some(true) =>
        {
            user_text(conv, at, message, "output");
        }
        Some("assistant") => {
            // Cut-off turns are dropped before a request is built, calls and all.
            if matches!(str_at(message, "stopReason"), Some("error" | "aborted")) {
                return;
            }
            conv.start_turn(Role::Assistant, at.clone());
            for (j, block) in blocks(message).iter().enumerate() {
                let loc = inner.child(("content", j));
                let item = match str_at(block, "type") {
                    Some("toolCall") => Item::Call(tool_call(block, loc, at)),
                    Some("thinking") => Item::Thinking(Text {
                        loc,
                        message: at.clone(),
                    }),
                    Some("text") => Item::Text(Text {
                        loc,
                        message: at.clone(),
                    }),
                    _ => continue,
                };
                conv.push_to_last(item);
            }
        }
        Some("toolResult") => {
            let call_id = str_at(message, "toolCallId").map(str::to_string);
            let content = message.get("content").unwrap_or(&Tree::Null);
            // OpenClaw tools also report failure as `details.status: "error"`.
            let failed = message.get("isError").and_then(Tree::as_bool) == Some(true)
                || message
                    .get("details")
                    .is_some_and(|d| str_at(d, "status") == Some("error"));
            let result = ToolResult {
                key: pairing_key(call_id.as_deref(), inner),
                call_id,
                name: str_at(message, "toolName").map(str::to_string),
                is_error: failed,
                text: result_text(content),
                provider_executed: false,
                id_field: None,
                loc: inner.clone(),
                message: at.clone(),
            };
            conv.push(Role::Tool, at, Item::Result(result));
        }
        _ => {}
    }
}

/// A `toolCall` block. Its `partialJson`, where present and not JSON, is the raw text the
/// stream stopped in: the arguments as sent, cut off.
fn tool_call(block: &Tree, loc: Loc, at: &Loc) -> ToolCall {
    let id = str_at(block, "id").map(str::to_string);
    let cut = str_at(block, "partialJson")
        .filter(|p| !p.trim().is_empty() && crate::json::parse_value(p).is_err());
    let (arguments, args_loc) = match (cut, block.get("arguments")) {
        (Some(text), _) => (
            Arguments::Encoded(text.to_string()),
            loc.child("partialJson"),
        ),
        (None, Some(args)) => (Arguments::value(args.to_serde()), loc.child("arguments")),
        (None, None) => (Arguments::Absent, loc.clone()),
    };
    ToolCall {
        key: pairing_key(id.as_deref(), &loc),
        id,
        name: str_at(block, "name").unwrap_or_default().to_string(),
        kind: CallKind::Function,
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
    fn sniffs_pi_records_only() {
        let header = tree_json!({"type": "session", "version": 3, "id": "5b0c8e2a", "timestamp": "2026-03-02T10:00:00.000Z", "cwd": "/w"});
        assert_eq!(Pi.sniff_record(&header), Some(90));
        let result = tree_json!({"type": "message", "id": "a1", "parentId": null, "timestamp": "t", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": [], "isError": false}});
        assert_eq!(Pi.sniff_record(&result), Some(90));
        let call = tree_json!({"type": "message", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "bash", "arguments": {}}]}});
        assert_eq!(Pi.sniff_record(&call), Some(90));
        // Near misses: Claude Code, Codex and Moltis lines.
        for other in [
            tree_json!({"type": "user", "uuid": "u", "parentUuid": null, "sessionId": "s", "message": {"role": "user", "content": "hi"}}),
            tree_json!({"type": "assistant", "uuid": "u", "parentUuid": "p", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]}}),
            tree_json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}),
            tree_json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}}),
            tree_json!({"role": "tool_result", "tool_call_id": "c", "success": true}),
            tree_json!({"type": "message", "message": {"role": "user", "content": "hi"}}),
        ] {
            assert_eq!(Pi.sniff_record(&other), None, "{other}");
        }
        assert_eq!(Pi.sniff(&header), None);
    }

    #[test]
    fn replays_the_leaf_path_after_the_last_compaction() {
        let records = [
            tree_json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/w"}),
            tree_json!({"type": "message", "id": "e1", "parentId": null, "message": {"role": "user", "content": "dropped by the compaction"}}),
            tree_json!({"type": "message", "id": "e2", "parentId": "e1", "message": {"role": "user", "content": "kept"}}),
            tree_json!({"type": "message", "id": "b1", "parentId": "e2", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "off", "name": "bash", "arguments": {}}], "stopReason": "toolUse"}}),
            tree_json!({"type": "compaction", "id": "e3", "parentId": "e2", "summary": "s", "firstKeptEntryId": "e2", "tokensBefore": 1}),
            tree_json!({"type": "message", "id": "e4", "parentId": "e3", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "gone", "name": "bash", "arguments": {}, "partialJson": "{\"a"}], "stopReason": "aborted"}}),
            tree_json!({"type": "message", "id": "e5", "parentId": "e4", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "live", "name": "bash", "arguments": {}, "partialJson": "{\"a\":"}], "stopReason": "length"}}),
        ];
        let convs = Pi.normalise(&session_docs(&records)).unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        // Summary, the kept user message, then the one replayed assistant.
        let bases: Vec<usize> = conv.turns.iter().map(|t| t.loc.base).collect();
        assert_eq!(bases, [4, 2, 6]);
        let calls: Vec<(&str, &Arguments)> = conv
            .calls()
            .map(|(_, c)| (c.key.as_str(), &c.arguments))
            .collect();
        assert_eq!(
            calls,
            [("live", &Arguments::Encoded("{\"a\":".to_string()))]
        );
        assert!(!conv.resumable);
    }

    #[test]
    fn the_leaf_is_the_last_entry_whatever_its_type() {
        let records = [
            tree_json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/w"}),
            tree_json!({"type": "message", "id": "e1", "parentId": null, "message": {"role": "user", "content": "root"}}),
            tree_json!({"type": "message", "id": "e2", "parentId": "e1", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "abandoned", "name": "bash", "arguments": {}}], "stopReason": "toolUse"}}),
            tree_json!({"type": "message", "id": "e3", "parentId": "e1", "message": {"role": "assistant", "content": [{"type": "text", "text": "other branch"}], "stopReason": "stop"}}),
            tree_json!({"type": "leaf", "id": "e4", "parentId": "e3", "targetId": "e3"}),
        ];
        let convs = Pi.normalise(&session_docs(&records)).unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        let bases: Vec<usize> = conv.turns.iter().map(|t| t.loc.base).collect();
        assert_eq!(bases, [1, 3]);
        assert_eq!(conv.calls().count(), 0);
    }

    #[test]
    fn not_pi_when_forced_on_other_lines() {
        let records = [tree_json!({"role": "user", "content": "hi"})];
        assert!(Pi.normalise(&session_docs(&records)).is_err());
    }

    #[test]
    fn v1_files_replay_in_file_order_from_the_kept_index() {
        let records = [
            tree_json!({"type": "session", "id": "s", "timestamp": "t", "cwd": "/w"}),
            tree_json!({"type": "message", "message": {"role": "user", "content": "old"}}),
            tree_json!({"type": "message", "message": {"role": "user", "content": "kept"}}),
            tree_json!({"type": "compaction", "summary": "s", "firstKeptEntryIndex": 2, "tokensBefore": 1}),
            tree_json!({"type": "message", "message": {"role": "toolResult", "toolCallId": "x", "toolName": "bash", "content": [], "isError": false, "details": {"status": "error"}}}),
        ];
        let convs = Pi.normalise(&session_docs(&records)).unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        let bases: Vec<usize> = conv.turns.iter().map(|t| t.loc.base).collect();
        assert_eq!(bases, [3, 2, 4]);
        let failed: Vec<bool> = conv.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(failed, [true]);
    }

    #[test]
    fn clean_fixture_is_read_as_pi() {
        let report = lint_str(
            "session.jsonl",
            include_str!("../../../../fixtures/pi/clean-session.jsonl"),
        );
        assert_eq!(report.codes(), Vec::<String>::new());
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::Pi]));
    }

    #[test]
    fn a_torn_line_is_one_parse_error_and_the_session_is_still_read() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"go"}}{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"user","content":"go"}}"#,
            "\n",
            r#"{"type":"message","id":"a3","parentId":null,"timestamp":"t","message":{"role":"toolResult","toolCallId":"nope","toolName":"bash","content":[],"isError":false}}"#,
            "\n",
        );
        let report = lint_str("session.jsonl", text);
        // The glued line, then the orphaned result on the line after it.
        assert_eq!(report.codes(), ["TC001@2:102", "TC101@3:71"]);
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::Pi]));
    }
}
