//! Qwen Code session recordings (`~/.qwen/tmp/<projectId>/chats/<sessionId>.jsonl`, or
//! `~/.qwen/projects/<sanitized-cwd>/chats/` in later builds): one append-only JSONL file is
//! one session.
//!
//! Every line is a `ChatRecord {uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd,
//! version, message?, toolCallResult?, systemPayload?, …}` with `type` `user`, `assistant`,
//! `tool_result` or `system`, and `message` a Gemini `Content {role, parts}`. The envelope is
//! Claude Code's (`uuid`, `parentUuid`, `cwd`, `version`), the message is Gemini's: `parts`,
//! never `content`, which is what tells the two apart.
//!
//! Resume is rebuilt here the way Qwen Code's `SessionService` does it: the leaf is the last
//! record in file order, the path is its `parentUuid` chain (each uuid's first record gives
//! the parent), and records sharing a uuid are one message whose parts are concatenated in
//! file order. `buildApiHistoryFromConversation` then takes the path's last `system` record
//! with `subtype: "chat_compression"` and a `systemPayload.compressedHistory` (a `Content[]`)
//! as the start of the history, followed by the `message` of every later non-system record;
//! without one, every path record's `message`. Records off the path, before the compression,
//! and the UI-only `toolCallResult` and other `systemPayload`s are listed as excluded, so the
//! unread-structure guard counts them as read on purpose.
//!
//! Calls are `functionCall` parts, results `functionResponse` parts (failed with
//! `response.error`), paired by id as Gemini pairs them. Qwen Code translates the history for
//! whichever provider it is configured with (mostly OpenAI-compatible endpoints), so the
//! session is held to the rules every provider shares, and adjacent same-role contents (one
//! `tool_result` record per parallel call) count as one turn. A call the file ends on is
//! still running.
//!
//! Fixes keep the `parentUuid` chain whole (`formats/links.rs`), as for Claude Code: an
//! unanswered call gets a `tool_result` record (a failed `functionResponse` with the call's id
//! and name, a uuid derived from the session and the call) right after the call's turn,
//! hanging from it, and what hung there hangs from it instead; a stray `tool_result` record
//! holding only an orphaned or duplicated response is removed and its children re-parented.
//! Only records on the replayed path after the last compression get fixes (never the
//! `compressedHistory` itself), never the last record (the leaf), nor a record whose uuid
//! other lines share. Inferred from the resume code, not run against the CLI; fix only a
//! session Qwen Code is not writing (it holds a session-writer lease).

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::{json, Value as Json};

use super::gemini::{pair_idless, part_item};
use super::links::{self, derived_uuid, insert_linked_after, mentions_id, UuidParent};
use super::adapter::{doc_headers, read_again, read_headers, Trees};
use super::{
    array_at, str_at, text_at, Adapter, Dialect, Doc, Format, Planned, Records, Visit,
};
use std::borrow::Cow;
use crate::edit::json_edit;
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::transcript::{Conversation, Loc, Pairing, Role, ToolCall};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain qwen-code` prints (Markdown).
pub(super) const DOC: &str = r#"Qwen Code session recordings (`~/.qwen/tmp/<projectId>/chats/<sessionId>.jsonl`; later builds `~/.qwen/projects/<cwd>/chats/`): `{uuid, parentUuid, type, message: {role, parts}}` records (Claude Code's envelope, Gemini's `Content`; `message.parts`, `systemPayload` and `toolCallResult` tell them from Claude Code's), rebuilt as Qwen Code resumes them: the `parentUuid` path from the last record, records sharing a uuid joined, the last `chat_compression`'s `compressedHistory` then later non-system messages; `functionCall`/`functionResponse` parts by id (`response.error` fails); thoughts, `toolCallResult` and other system payloads not read; held to the rules every provider shares; a call the file ends on is still running; fixes keep the `parentUuid` chain whole: a failed `tool_result` record inserted for an unanswered call, a stray result record removed (never in a `compressedHistory`)"#;

pub struct QwenCode;

/// Record types Qwen Code writes.
const TYPES: [&str; 4] = ["user", "assistant", "tool_result", "system"];

impl Dialect for QwenCode {}

/// Whether a record carries Qwen Code's envelope.
fn is_record(record: &Tree) -> bool {
    str_at(record, "uuid").is_some()
        && record
            .get("parentUuid")
            .is_some_and(|p| p.is_null() || p.is_string())
        && str_at(record, "type").is_some_and(|t| TYPES.contains(&t))
}

impl Adapter for QwenCode {
    fn format(&self) -> Format {
        Format::QwenCode
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        if !is_record(record) {
            return None;
        }
        let gemini_content = record
            .get("message")
            .is_some_and(|m| array_at(m, "parts").is_some() && m.get("content").is_none());
        // Above Claude Code's 90 for the same envelope: `parts` is Gemini's, never Claude's.
        if gemini_content || str_at(record, "type") == Some("tool_result") {
            return Some(95);
        }
        // Every system record Qwen Code writes (`ui_telemetry`, `attribution_snapshot`,
        // `session_source`, ... in 0.24) holds a `systemPayload`, a key Claude Code never
        // writes: a session whose head is mostly such records is still Qwen Code's.
        let system = str_at(record, "type") == Some("system")
            && record.get("systemPayload").is_some_and(Tree::is_object);
        system.then_some(95)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut version = None;
        let lines = doc_headers(docs, |at, base, value| {
            Line::read(at, base, value, &mut version)
        });
        rebuild(&lines, version, &mut { docs }, &mut |_, _, _, _| {})
    }

    /// A session's records are read twice: once for what links them (then each tree is
    /// dropped, unless the session is small), and again, one at a time, as the path
    /// replays them and for the unread-structure guard, which holds every record.
    fn normalise_one_by_one(
        &self,
        records: &mut dyn Records<'_>,
        visit: Visit<'_>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        let mut version = None;
        let (lines, held) = read_headers(records, |at, base, value| {
            Line::read(at, base, value, &mut version)
        });
        Some(read_again(records, held, |trees| {
            rebuild(&lines, version, trees, visit)
        }))
    }

    /// Whole-record edits that keep the `parentUuid` chain whole (see the module
    /// documentation).
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Unsupported;
        }
        let planned = match intent {
            FixIntent::InsertResult { call, after, .. } => insert_result(cx, call, after),
            FixIntent::RemoveResult { result, message } => remove_result(cx, result, message),
            _ => None,
        };
        links::planned(planned)
    }
}

/// What the inserted response says.
const NEVER_RETURNED: &str = "Synthetic result written by toolcheck: no result was recorded for this call; it may or may not have run.";

/// Envelope fields an inserted record copies from its call's record, in this order.
const ENVELOPE: [&str; 5] = ["sessionId", "timestamp", "cwd", "version", "gitBranch"];

/// A `tool_result` record answering `call` with an error, after the record `after` (the last
/// of the call's turn) and hanging from it.
fn insert_result(cx: &EditContext<'_>, call: &ToolCall, after: &Loc) -> Option<Vec<Edit>> {
    let call_id = call.id.as_deref()?;
    // A call of a compression checkpoint's history, or a record sharing its line.
    if !call.message.pointer.is_empty() || !after.pointer.is_empty() {
        return None;
    }
    let after_start = whole_record(cx, after.base)?;
    if is_last_record(cx, after_start) {
        return None;
    }
    let holder = links::record(cx, call.message.base)?;
    let holder = holder.as_object()?;
    let session = holder.get("sessionId").and_then(Json::as_str);
    let uuid = derived_uuid(session.unwrap_or_default(), call_id);
    if mentions_id::<UuidParent>(cx, &uuid) {
        // Inserted before and still not answering: write nothing.
        return None;
    }
    let after_uuid = links::string_at(cx, after_start, "/uuid")?;
    let mut line = serde_json::Map::new();
    line.insert("uuid".into(), uuid.clone().into());
    line.insert("parentUuid".into(), after_uuid.into());
    for key in ENVELOPE {
        if let Some(value) = holder.get(key) {
            line.insert(key.into(), value.clone());
        }
        if key == "timestamp" {
            line.insert("type".into(), "tool_result".into());
        }
    }
    line.insert(
        "message".into(),
        json!({"role": "user", "parts": [{"functionResponse": {
            "id": call_id,
            "name": call.name,
            "response": {"error": NEVER_RETURNED},
        }}]}),
    );
    let rendered = serde_json::to_string(&Json::Object(line)).ok()?;
    insert_linked_after::<UuidParent>(cx, after, &uuid, &rendered)
}

/// Removes a record whose message is nothing but the response at `result`.
fn remove_result(cx: &EditContext<'_>, result: &Loc, message: &Loc) -> Option<Vec<Edit>> {
    if result.base != message.base || result.pointer != "/message/parts/0" {
        return None;
    }
    let start = whole_record(cx, message.base)?;
    if is_last_record(cx, start) {
        return None;
    }
    let text = cx.source.text.as_str();
    let parts = crate::pointer::locate(text, start, "/message/parts")
        .and_then(|(s, e)| json_edit::elements(text, s, e))?;
    if parts.len() != 1 {
        return None;
    }
    links::remove_line::<UuidParent>(cx, &Loc::new(start, ""))
}

/// The start of the record at `base` when it is its line's only record and its uuid is on
/// no other line (a shared uuid is one message over several records).
fn whole_record(cx: &EditContext<'_>, base: usize) -> Option<usize> {
    let start = links::line_start(cx, base);
    if start != base {
        return None;
    }
    let uuid = links::string_at(cx, start, "/uuid")?;
    let counts = cx.source.derived(|source| {
        let mut counts = UuidLines(HashMap::new());
        for line in 0..source.line_count() {
            let (s, _) = source.line_range(line);
            let uuid = json_edit::value_text(&source.text, s, "/uuid")
                .and_then(|raw| serde_json::from_str::<String>(raw).ok());
            if let Some(uuid) = uuid {
                *counts.0.entry(uuid).or_insert(0) += 1;
            }
        }
        counts
    });
    (counts.0.get(&uuid) == Some(&1)).then_some(start)
}

/// How many lines carry each uuid, counted once per file.
struct UuidLines(HashMap<String, usize>);

/// Whether the line at `start` is the last record, the leaf Qwen Code resumes from.
fn is_last_record(cx: &EditContext<'_>, start: usize) -> bool {
    let text = cx.source.text.as_str();
    let line = cx.source.line_index(start);
    (line + 1..cx.source.line_count()).all(|l| {
        let (s, e) = cx.source.line_range(l);
        text.get(s..e).is_none_or(|t| t.trim().is_empty())
    })
}

/// What rebuilding the path needs of one line of the session that parses, read from its
/// tree: the strings borrow the file's text (or own their decoding), so the tree need not be
/// kept. A big session holds one per line while its path is rebuilt.
struct Line<'t> {
    /// Which record of the session it is (what reads its tree again).
    at: usize,
    base: usize,
    /// Whether it carries Qwen Code's envelope ([`is_record`]).
    record: bool,
    uuid: Option<Cow<'t, str>>,
    parent: Option<Cow<'t, str>>,
    /// `type: "tool_result"`: the record's type is an envelope, not a result block.
    tool_result: bool,
    system: bool,
    /// A `chat_compression` system record holding a `compressedHistory`.
    checkpoint: bool,
    /// Whether its `message` is the model's (what a record sharing its uuid is read as).
    model: bool,
}

impl<'t> Line<'t> {
    /// Record `at` of the session, at byte `base`; `version` becomes its `version` when it
    /// is a record that has one (so, read in order, the version that last resumed the
    /// session).
    fn read(at: usize, base: usize, value: &Tree<'t>, version: &mut Option<Cow<'t, str>>) -> Self {
        let record = is_record(value);
        if record {
            if let Some(v) = text_at(value, "version") {
                *version = Some(v);
            }
        }
        let system = str_at(value, "type") == Some("system");
        Line {
            at,
            base,
            record,
            uuid: text_at(value, "uuid"),
            parent: text_at(value, "parentUuid"),
            tool_result: str_at(value, "type") == Some("tool_result"),
            system,
            checkpoint: system
                && str_at(value, "subtype") == Some("chat_compression")
                && compressed_history(value).is_some(),
            model: value
                .get("message")
                .is_some_and(|m| str_at(m, "role") == Some("model")),
        }
    }
}

/// The conversation of the session whose parsed lines are `lines` (`version` the last
/// record's), their trees got again from `trees`; `visit` is shown every line as it is read,
/// with what was read from it or left out of it.
fn rebuild<'t>(
    lines: &[Line<'t>],
    version: Option<Cow<'t, str>>,
    trees: &mut dyn Trees<'t>,
    visit: Visit<'_>,
) -> Result<Vec<Conversation>, String> {
    if !lines.iter().any(|l| l.record) && !lines.is_empty() {
        return Err(
            "expected Qwen Code chat records (`{uuid, parentUuid, sessionId, type, message: {role, parts}}` lines)"
                .into(),
        );
    }
    let first = lines.first().map_or(0, |l| l.base);
    let mut conv = Conversation::new(Format::QwenCode, Loc::new(first, ""), Pairing::NextTurn);
    conv.results_role = Role::User;
    // A call the session ends on is still running, not unanswered.
    conv.resumable = false;
    conv.agent_version = version.map(Cow::into_owned);

    // Lines by position; records sharing a uuid are one message.
    let mut by_uuid: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| l.record) {
        if let Some(uuid) = line.uuid.as_deref() {
            by_uuid.entry(uuid).or_default().push(i);
        }
    }
    let first_of = |group: &[usize]| group.first().and_then(|&i| lines.get(i));
    // The path from the last record up its `parentUuid` chain.
    let mut chain: Vec<&str> = Vec::new();
    let mut visited = HashSet::new();
    let mut current = lines
        .iter()
        .rfind(|l| l.record)
        .and_then(|l| l.uuid.as_deref());
    while let Some(uuid) = current {
        if !visited.insert(uuid) {
            break;
        }
        chain.push(uuid);
        let Some(group) = by_uuid.get(uuid) else {
            break;
        };
        current = first_of(group)
            .and_then(|l| l.parent.as_deref())
            .filter(|p| !p.is_empty());
    }
    chain.reverse();
    let messages: Vec<&[usize]> = chain
        .iter()
        .filter_map(|uuid| by_uuid.get(uuid).map(Vec::as_slice))
        .collect();

    // The last compression checkpoint on the path.
    let compression = messages
        .iter()
        .rposition(|group| first_of(group).is_some_and(|l| l.checkpoint));
    let start = compression.map_or(0, |c| c + 1);
    // How the path treats each line: not at all, its message excluded (before the
    // checkpoint, or a system record after it), read, or the live checkpoint's.
    let mut replay = vec![Replay::Off; lines.len()];
    for (g, group) in messages.iter().enumerate() {
        let system = first_of(group).is_some_and(|l| l.system);
        let model = first_of(group).is_some_and(|l| l.model);
        for &i in group.iter() {
            let how = match compression {
                Some(c) if g < c => Replay::Before,
                // Only the group's first record holds the history.
                Some(c) if g == c && Some(&i) == group.first() => Replay::History,
                Some(c) if g == c => Replay::Checkpoint,
                Some(_) if system => Replay::Before,
                _ => Replay::Read { model },
            };
            if let Some(slot) = replay.get_mut(i) {
                *slot = how;
            }
        }
    }

    // Each line once, with what the replay reads from it and what it leaves out: the
    // checkpoint's history first, then the path in order, then every other line.
    let mut order: Vec<usize> = Vec::with_capacity(lines.len());
    if let Some(&i) = compression
        .and_then(|c| messages.get(c))
        .and_then(|g| g.first())
    {
        order.push(i);
    }
    order.extend(messages.get(start..).unwrap_or_default().iter().flat_map(|g| g.iter()));
    let mut shown = vec![false; lines.len()];
    for &i in &order {
        if let Some(slot) = shown.get_mut(i) {
            *slot = true;
        }
    }
    order.extend((0..lines.len()).filter(|&i| !shown.get(i).copied().unwrap_or(true)));
    for &i in &order {
        let (Some(line), Some(&how)) = (lines.get(i), replay.get(i)) else {
            continue;
        };
        trees.read_into(line.at, &mut conv, visit, &mut |doc, conv| {
            let at = Loc::new(doc.base, "");
            if line.record {
                exclude(conv, &at, line, how);
            }
            match how {
                Replay::History => {
                    let list_loc = at.child("systemPayload").child("compressedHistory");
                    for (k, content) in compressed_history(doc.value)
                        .map_or(&[][..], Vec::as_slice)
                        .iter()
                        .enumerate()
                    {
                        push_content(conv, content, &list_loc.child(k));
                    }
                }
                Replay::Read { model } => {
                    if let Some(message) = doc.value.get("message").filter(|m| m.is_object()) {
                        push_parts(conv, message, model, &at.child("message"), &at);
                    }
                }
                _ => {}
            }
        });
    }
    pair_idless(&mut conv);
    Ok(vec![conv])
}

/// How the replayed path treats a line.
#[derive(Clone, Copy)]
enum Replay {
    /// Off the path.
    Off,
    /// On it, but its message is not sent: before the last compression checkpoint, or a
    /// system record after it.
    Before,
    /// The last checkpoint's first record, whose `compressedHistory` starts the history.
    History,
    /// Another record sharing the last checkpoint's uuid: neither read nor left out.
    Checkpoint,
    /// Sent; `model`: as the model's (the role of the first record sharing its uuid).
    Read { model: bool },
}

/// What the replay leaves out of the record `line` at `at`, accounted for so the
/// unread-structure guard counts it as read on purpose: the UI-only `toolCallResult`, the
/// `tool_result` envelope, system payloads but the live checkpoint's, and messages not sent.
fn exclude(conv: &mut Conversation, at: &Loc, line: &Line<'_>, how: Replay) {
    conv.excluded.push(at.child("toolCallResult"));
    if line.tool_result {
        conv.excluded.push(at.clone());
    }
    if !matches!(how, Replay::History | Replay::Checkpoint) {
        conv.excluded.push(at.child("systemPayload"));
    }
    if matches!(how, Replay::Off | Replay::Before) {
        conv.excluded.push(at.child("message"));
    }
}

fn compressed_history<'a>(record: &'a Tree<'a>) -> Option<&'a Vec<Tree<'a>>> {
    record
        .get("systemPayload")
        .and_then(|p| array_at(p, "compressedHistory"))
}

/// One `Content` of a compression checkpoint.
fn push_content(conv: &mut Conversation, content: &Tree, loc: &Loc) {
    let model = str_at(content, "role") == Some("model");
    push_parts(conv, content, model, loc, loc);
}

/// The parts of a `Content` at `loc` (in the record at `at`), in the turn of its role.
/// Thought parts are stripped before sending and are not read.
fn push_parts(conv: &mut Conversation, content: &Tree, model: bool, loc: &Loc, at: &Loc) {
    let role = if model { Role::Assistant } else { Role::User };
    let parts = array_at(content, "parts").map_or(&[][..], Vec::as_slice);
    for (j, part) in parts.iter().enumerate() {
        if part.get("thought").and_then(Tree::as_bool) == Some(true) {
            continue;
        }
        conv.push(role, at, part_item(part, loc.child(("parts", j)), at));
    }
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::formats::session_docs;
    use crate::transcript::Item;

    fn record(
        uuid: &str,
        parent: Option<&str>,
        kind: &str,
        message: Tree<'static>,
    ) -> Tree<'static> {
        tree_json!({"uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": "t", "type": kind, "cwd": "/w", "version": "0.5.2", "message": message})
    }

    fn conversation(records: &[Tree<'_>]) -> Conversation {
        let mut convs = QwenCode
            .normalise(&session_docs(records))
            .unwrap_or_default();
        convs.pop().expect("one conversation")
    }

    #[test]
    fn sniffs_qwen_records_only() {
        let user = record(
            "u",
            None,
            "user",
            tree_json!({"role": "user", "parts": [{"text": "hi"}]}),
        );
        assert_eq!(QwenCode.sniff_record(&user), Some(95));
        let result = tree_json!({"uuid": "r", "parentUuid": "u", "sessionId": "s", "type": "tool_result", "message": {"role": "user", "parts": []}});
        assert_eq!(QwenCode.sniff_record(&result), Some(95));
        let compression = tree_json!({"uuid": "c", "parentUuid": "r", "sessionId": "s", "type": "system", "subtype": "chat_compression", "systemPayload": {"compressedHistory": []}});
        assert_eq!(QwenCode.sniff_record(&compression), Some(95));
        // Claude Code's own sniffing passes over the records only Qwen Code writes.
        let telemetry = tree_json!({"uuid": "t", "parentUuid": "c", "sessionId": "s", "type": "system", "subtype": "ui_telemetry", "cwd": "/w", "version": "0.24.4", "systemPayload": {"uiEvent": {"event.name": "qwen-code.api_response"}}});
        for qwen in [&user, &result, &compression, &telemetry] {
            assert_eq!(
                crate::formats::claude_code::ClaudeCode.sniff_record(qwen),
                None,
                "{qwen}"
            );
        }
        // Near misses: Claude Code (same envelope, `message.content`), Gemini CLI, pi, Codex.
        for other in [
            tree_json!({"type": "user", "uuid": "u", "parentUuid": null, "sessionId": "s", "cwd": "/w", "version": "2.0.1", "message": {"role": "user", "content": "hi"}}),
            tree_json!({"type": "assistant", "uuid": "u", "parentUuid": "p", "sessionId": "s", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]}}),
            tree_json!({"type": "system", "subtype": "compact_boundary", "uuid": "u", "parentUuid": null, "sessionId": "s", "content": "Conversation compacted"}),
            tree_json!({"id": "m", "timestamp": "t", "type": "gemini", "content": [{"functionCall": {"name": "ls", "args": {}}}]}),
            tree_json!({"type": "message", "id": "a1", "parentId": null, "message": {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": []}}),
            tree_json!({"type": "response_item", "payload": {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"}}),
        ] {
            assert_eq!(QwenCode.sniff_record(&other), None, "{other}");
        }
    }

    /// Qwen Code 0.24 writes a system record (telemetry, snapshots, the session's source and
    /// model) around every message, so a session's first lines are mostly records in Claude
    /// Code's envelope; cut off while a call ran, its last message record is that call.
    #[test]
    fn a_session_opening_with_system_records_is_detected_as_qwen_code() {
        let system = |uuid: &str, parent: Option<&str>, subtype: &str| tree_json!({"uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": "t", "type": "system", "provenance": "system", "cwd": "/w", "version": "0.24.4", "subtype": subtype, "systemPayload": {}});
        let records = [
            system("s1", None, "session_source"),
            system("s2", Some("s1"), "session_model"),
            record(
                "u1",
                Some("s2"),
                "user",
                tree_json!({"role": "user", "parts": [{"text": "go"}]}),
            ),
            system("s3", Some("u1"), "attribution_snapshot"),
            system("s4", Some("s3"), "ui_telemetry"),
            record(
                "a1",
                Some("s4"),
                "assistant",
                tree_json!({"role": "model", "parts": [{"functionCall": {"id": "k1", "name": "ls", "args": {}}}]}),
            ),
        ];
        let detected = crate::formats::detect_session(records.iter()).map(|a| a.format());
        assert_eq!(detected, Some(Format::QwenCode));
        let conv = QwenCode
            .normalise(&crate::formats::session_docs(&records))
            .expect("read")
            .pop()
            .expect("one conversation");
        assert_eq!(conv.calls().count(), 1);
    }

    #[test]
    fn follows_the_chain_from_the_last_record_and_joins_records_of_one_uuid() {
        let records = [
            record(
                "u1",
                None,
                "user",
                tree_json!({"role": "user", "parts": [{"text": "go"}]}),
            ),
            record(
                "a1",
                Some("u1"),
                "assistant",
                tree_json!({"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "ls", "args": {}}}]}),
            ),
            // A second record of a1 (streamed in two writes): its parts join a1's.
            record(
                "a1",
                Some("u1"),
                "assistant",
                tree_json!({"role": "model", "parts": [{"functionCall": {"id": "c2", "name": "ls", "args": {}}}]}),
            ),
            // An abandoned branch.
            record(
                "x1",
                Some("u1"),
                "assistant",
                tree_json!({"role": "model", "parts": [{"functionCall": {"id": "gone", "name": "rm", "args": {}}}]}),
            ),
            record(
                "r1",
                Some("a1"),
                "tool_result",
                tree_json!({"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "ls", "response": {}}}]}),
            ),
            record(
                "r2",
                Some("r1"),
                "tool_result",
                tree_json!({"role": "user", "parts": [{"functionResponse": {"id": "c2", "name": "ls", "response": {}}}]}),
            ),
        ];
        let conv = conversation(&records);
        let calls: Vec<&str> = conv.calls().map(|(_, c)| c.key.as_str()).collect();
        assert_eq!(calls, ["c1", "c2"]);
        // Both results sit in one user turn after the calls.
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
        let excluded: Vec<(usize, &str)> = conv
            .excluded
            .iter()
            .map(|l| (l.base, l.pointer.as_str()))
            .collect();
        assert!(excluded.contains(&(3, "/message")));
    }

    #[test]
    fn the_last_compression_on_the_path_starts_the_history() {
        let records = [
            record(
                "u1",
                None,
                "user",
                tree_json!({"role": "user", "parts": [{"functionResponse": {"id": "old", "name": "ls", "response": {}}}]}),
            ),
            tree_json!({"uuid": "c1", "parentUuid": "u1", "sessionId": "s", "type": "system", "subtype": "chat_compression",
                   "systemPayload": {"info": {}, "compressedHistory": [{"role": "user", "parts": [{"text": "summary"}]}, {"role": "model", "parts": [{"text": "ok"}]}]}}),
            tree_json!({"uuid": "t1", "parentUuid": "c1", "sessionId": "s", "type": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": {}}}),
            record(
                "u2",
                Some("t1"),
                "user",
                tree_json!({"role": "user", "parts": [{"text": "next"}]}),
            ),
        ];
        let conv = conversation(&records);
        let turns: Vec<(usize, &str)> = conv
            .turns
            .iter()
            .map(|t| (t.loc.base, t.loc.pointer.as_str()))
            .collect();
        assert_eq!(
            turns,
            [
                (1, "/systemPayload/compressedHistory/0"),
                (1, "/systemPayload/compressedHistory/1"),
                (3, "")
            ]
        );
        assert_eq!(conv.results().count(), 0);
        let thoughts = conv
            .turns
            .iter()
            .flat_map(|t| &t.items)
            .filter(|i| matches!(i, Item::Thinking(_)))
            .count();
        assert_eq!(thoughts, 0);
    }

    #[test]
    fn not_qwen_when_forced_on_other_lines() {
        let records = [tree_json!({"role": "user", "content": "hi"})];
        assert!(QwenCode.normalise(&session_docs(&records)).is_err());
    }
}
