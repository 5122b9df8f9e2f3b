//! Gemini CLI session recordings (`~/.gemini/tmp/<projectId>/chats/session-*.jsonl`, home
//! moved by `GEMINI_CLI_HOME`; sub-agents in `chats/<parentSessionId>/<sessionId>.jsonl`) and
//! their legacy whole-file form (`session-*.json`, `{sessionId, projectHash, messages}`).
//! `/chat save` checkpoints are plain Gemini `Content[]` and belong to the `gemini` format.
//!
//! The JSONL file is a log the CLI folds into one conversation on resume
//! (`loadConversationRecord`), and is read here the same way:
//! - a line with `sessionId` and `projectHash` is metadata, merged;
//! - a line with a string `id` is a message, upserted: a later line with the same id replaces
//!   the earlier version in its original position (an update, not a duplicate);
//! - `{"$rewindTo": id}` removes that message and everything after it (an unknown id: all);
//! - `{"$set": {...}}` merges metadata; a non-empty `messages` there (or on a metadata line)
//!   is a checkpoint written after compression or masking, and the last one *is* the history:
//!   the loader then ignores every message line, before it or after it.
//!
//! Superseded versions, rewound messages, message lines a checkpoint overrides, earlier
//! checkpoints, and messages never replayed (`info`, `error`, `warning`, user input that is
//! blank or starts with `/`, `?`, `<session_context>`, `<hook_context>`) are listed as
//! excluded, so the unread-structure guard counts them as read on purpose.
//!
//! Replay (`convertSessionToClientHistory`): a user message is a user turn of its parts; a
//! `gemini` message is a model turn: its `content` parts when they hold a `functionCall` or a
//! thought (modern recordings), else its thoughts, content and one `functionCall` per
//! `toolCalls[]` entry (legacy); then, when any `toolCalls[].result` is set, a user turn of
//! every result (a string becomes `{output}`, a part list is spliced in whole). Results
//! recorded since late 2026 also appear as durable `user` messages of `functionResponse`
//! parts. The CLI's `hardenHistory` then merges adjacent same-role turns (done here too),
//! patches unanswered calls and orphaned responses with sentinels at send time, but does not
//! drop duplicated responses (google-gemini/gemini-cli#29365): those reach Gemini, which
//! rejects a response count that differs from the call count. The session is held to
//! Gemini's rules. A failed call is `status` `error`/`cancelled` or a response with
//! `response.error`. A call the file ends on is still running.
//!
//! Fixes use the loader's upsert: a corrected version of the message (same `id`) is appended
//! at the end of the file, so every original byte stays and the message keeps its place. An
//! unanswered call's version has it `cancelled` with an error `functionResponse`; a removed
//! response's version leaves it out of `toolCalls[i].result` or of the durable user message.
//! The version is made from the message's last live line, the one the loader keeps. Messages
//! a `messages` checkpoint stands for get no fix (the loader ignores appended lines then),
//! nor do legacy `.json` records. Inferred from the loader, not run against the CLI.

// foldhash: ids the run compares itself, no flood resistance needed.
use foldhash::{HashMap, HashMapExt};

use serde_json::{json, Map, Value as Json};

use super::gemini::{pair_idless, part_item};
use super::links;
use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::{insert_record_after, EditContext};
use crate::finding::{Edit, FixIntent};
use crate::transcript::{
    pairing_key, Conversation, Item, Loc, Pairing, Role, Text, ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

pub struct GeminiCli;

/// Message types the recorder writes.
const TYPES: [&str; 5] = ["user", "gemini", "info", "error", "warning"];

/// User input the CLI does not replay (`isIgnoredUserContent`), after trimming.
const IGNORED_PREFIXES: [&str; 4] = ["/", "?", "<session_context>", "<hook_context>"];

/// Part keys whose verbose string form is a marker (`[Function Response: x]`...), never
/// blank.
const MARKED_PARTS: [&str; 9] = [
    "videoMetadata",
    "thought",
    "codeExecutionResult",
    "executableCode",
    "fileData",
    "functionCall",
    "functionResponse",
    "inlineData",
    "function_response",
];

impl Dialect for GeminiCli {}

/// What one line of a recording is, in the order the loader tests it.
enum Record<'a> {
    Rewind(&'a str),
    Message(&'a str),
    Set(&'a Tree<'a>),
    Meta,
    Other,
}

fn classify<'a>(value: &'a Tree<'a>) -> Record<'a> {
    if let Some(id) = str_at(value, "$rewindTo") {
        return Record::Rewind(id);
    }
    if let Some(id) = str_at(value, "id") {
        return Record::Message(id);
    }
    // `typeof === 'object'` in the loader: arrays count.
    if let Some(set) = value.get("$set").filter(|s| s.is_object() || s.is_array()) {
        return Record::Set(set);
    }
    if str_at(value, "sessionId").is_some() && str_at(value, "projectHash").is_some() {
        return Record::Meta;
    }
    Record::Other
}

impl Adapter for GeminiCli {
    fn format(&self) -> Format {
        Format::GeminiCli
    }

    /// The legacy whole-file record.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let legacy = str_at(doc, "sessionId").is_some()
            && str_at(doc, "projectHash").is_some()
            && array_at(doc, "messages").is_some();
        legacy.then_some(90)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        match classify(record) {
            Record::Rewind(_) => Some(90),
            Record::Set(_) => Some(90),
            Record::Meta => record.get("type").is_none().then_some(90),
            Record::Message(_) => {
                let kind = str_at(record, "type").filter(|t| TYPES.contains(t))?;
                // Claude Code, Qwen Code and Codex lines wrap their message or payload.
                let wrapped = ["uuid", "message", "payload", "parentId"]
                    .iter()
                    .any(|k| record.get(k).is_some());
                if wrapped || record.get("content").is_none() {
                    return None;
                }
                Some(if kind == "gemini" { 90 } else { 60 })
            }
            Record::Other => None,
        }
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        read_session(docs).map(|conv| vec![conv])
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// A corrected version of the message, appended (see the module documentation).
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Unsupported;
        }
        let planned = match intent {
            FixIntent::InsertResult { call, .. } => cancel_call(cx, call),
            FixIntent::RemoveResult { result, message } => drop_response(cx, result, message),
            _ => None,
        };
        links::planned(planned)
    }
}

/// What the error response of a cancelled call says.
const NEVER_RETURNED: &str = "Synthetic result written by toolcheck: the tool call never returned, so no result was recorded; it is marked cancelled.";

/// A version of `call`'s message with the call `cancelled` and an error response.
fn cancel_call(cx: &EditContext<'_>, call: &ToolCall) -> Option<Vec<Edit>> {
    let id = call.id.as_deref()?;
    append_version(cx, &call.message, |message| {
        let response = json!([{"functionResponse": {
            "id": id,
            "name": call.name,
            "response": {"error": NEVER_RETURNED},
        }}]);
        let calls = message
            .entry("toolCalls")
            .or_insert_with(|| Json::Array(Vec::new()))
            .as_array_mut()?;
        let found = calls
            .iter_mut()
            .filter_map(Json::as_object_mut)
            .find(|c| c.get("id").and_then(Json::as_str) == Some(id));
        match found {
            Some(entry) => {
                // A result is there and still answers nothing: not ours to overwrite.
                if entry.get("result").is_some_and(json_truthy) {
                    return None;
                }
                entry.insert("status".into(), "cancelled".into());
                entry.insert("result".into(), response);
            }
            // A modern call recorded only in `content`.
            None => {
                let mut entry = Map::new();
                entry.insert("id".into(), id.into());
                entry.insert("name".into(), call.name.clone().into());
                let args = call_args(cx, call).unwrap_or_else(|| json!({}));
                entry.insert("args".into(), args);
                entry.insert("result".into(), response);
                entry.insert("status".into(), "cancelled".into());
                calls.push(Json::Object(entry));
            }
        }
        Some(())
    })
}

/// The call's `args` as recorded.
fn call_args(cx: &EditContext<'_>, call: &ToolCall) -> Option<Json> {
    let pointer = if call.loc.pointer.starts_with("/content") {
        format!("{}/functionCall/args", call.loc.pointer)
    } else {
        format!("{}/args", call.loc.pointer)
    };
    let raw = crate::edit::json_edit::value_text(&cx.source.text, call.loc.base, &pointer)?;
    serde_json::from_str(raw).ok()
}

/// A version of the message without the response at `result`: an element of a
/// `toolCalls[i].result` list, or a part of a durable user message.
fn drop_response(cx: &EditContext<'_>, result: &Loc, message: &Loc) -> Option<Vec<Edit>> {
    if result.base != message.base {
        return None;
    }
    let index = |s: &str| -> Option<usize> {
        // `usize::from_str` takes a `+`; a pointer index never has one.
        s.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let steps: Vec<&str> = result.pointer.split('/').skip(1).collect();
    append_version(cx, message, |record| {
        let (list, j) = match steps.as_slice() {
            ["toolCalls", i, "result", j] => {
                let calls = record.get_mut("toolCalls")?.as_array_mut()?;
                let (i, j) = own_copy_kept(calls, index(i)?, index(j)?)?;
                let entry = calls.get_mut(i)?;
                (entry.get_mut("result")?.as_array_mut()?, j)
            }
            ["content", j] if record.get("type").and_then(Json::as_str) == Some("user") => {
                (record.get_mut("content")?.as_array_mut()?, index(j)?)
            }
            _ => return None,
        };
        (j < list.len()).then(|| list.remove(j))?;
        Some(())
    })
}

/// Which copy of a response in `toolCalls[i].result[j]` goes. Parallel calls may each store
/// every sibling's response (gemini-cli#29365): when the one named is the call's own
/// response and an identical copy sits in a sibling's `result`, the sibling's copy goes, so
/// each call keeps the response whose `id` is its own.
fn own_copy_kept(calls: &[Json], i: usize, j: usize) -> Option<(usize, usize)> {
    let result = |k: usize| calls.get(k)?.get("result")?.as_array();
    let target = result(i)?.get(j)?;
    let response_id = target.get("functionResponse")?.get("id")?.as_str();
    let call_id = |k: usize| calls.get(k)?.get("id")?.as_str();
    if response_id.is_none() || response_id != call_id(i) {
        return Some((i, j));
    }
    let sibling = (0..calls.len())
        .filter(|&k| k != i && call_id(k) != response_id)
        .find_map(|k| Some((k, result(k)?.iter().position(|r| r == target)?)));
    Some(sibling.unwrap_or((i, j)))
}

/// Appends at the end of the file a version of the message whose last live line is at
/// `message`, changed by `change`. The message's `id`, rewritten as itself, is claimed too:
/// two fixes of one message then land in separate rounds, each acting on the version before.
fn append_version(
    cx: &EditContext<'_>,
    message: &Loc,
    change: impl FnOnce(&mut Map<String, Json>) -> Option<()>,
) -> Option<Vec<Edit>> {
    // A message of a `messages` checkpoint, or one sharing its line with another record.
    let start = links::line_start(cx, message.base);
    if !message.pointer.is_empty() || start != message.base {
        return None;
    }
    let mut record = links::record(cx, start)?;
    change(record.as_object_mut()?)?;
    let line = serde_json::to_string(&record).ok()?;
    let text = cx.source.text.as_str();
    let last = (0..cx.source.line_count()).rev().find(|&l| {
        let (s, e) = cx.source.line_range(l);
        text.get(s..e).is_some_and(|t| !t.trim().is_empty())
    })?;
    let end_of_file = Loc::new(cx.source.line_range(last).0, "");
    let (s, e) = crate::pointer::locate(text, start, "/id")?;
    Some(vec![
        Edit {
            start: s,
            end: e,
            content: text.get(s..e)?.to_string(),
        },
        insert_record_after(cx, &end_of_file, &line)?,
    ])
}

/// JavaScript truthiness of a parsed JSON value.
fn json_truthy(value: &Json) -> bool {
    match value {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::String(s) => !s.is_empty(),
        Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => true,
    }
}

/// A message the loader keeps: its value and where it sits.
struct Live<'d, 'a> {
    value: &'d Tree<'a>,
    at: Loc,
}

/// Folds the records as `loadConversationRecord` does and replays what it keeps.
fn read_session(docs: &[Doc<'_>]) -> Result<Conversation, String> {
    let first = docs.first().map_or(0, |d| d.base);
    let mut conv = Conversation::new(Format::GeminiCli, Loc::new(first, ""), Pairing::NextTurn);
    conv.results_role = Role::User;
    // A call the session ends on is still running, not unanswered.
    conv.resumable = false;

    // The live message lines in the loader's map order, and each id's slot.
    let mut order: Vec<(&str, &Doc<'_>)> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::new();
    // The last record that set `messages`, with the pointer of that array.
    let mut checkpoint: Option<(&Doc<'_>, Loc, Option<&Vec<Tree<'_>>>)> = None;
    let (mut session_id, mut project_hash) = (false, false);
    let mut metadata = |value: &Tree| {
        session_id |= str_at(value, "sessionId").is_some_and(|s| !s.is_empty());
        project_hash |= str_at(value, "projectHash").is_some_and(|s| !s.is_empty());
    };

    for doc in docs {
        match classify(doc.value) {
            Record::Rewind(id) => {
                let from = slot.get(id).copied().unwrap_or(0);
                for (gone, d) in order.drain(from..) {
                    slot.remove(gone);
                    exclude_message(&mut conv, d.base);
                }
            }
            Record::Message(id) => match slot.get(id).and_then(|&i| order.get_mut(i)) {
                Some(entry) => {
                    exclude_message(&mut conv, entry.1.base);
                    entry.1 = doc;
                }
                None => {
                    slot.insert(id, order.len());
                    order.push((id, doc));
                }
            },
            Record::Set(set) => {
                metadata(set);
                if let Some(messages) = set.get("messages") {
                    let loc = Loc::new(doc.base, "").child("$set").child("messages");
                    replace_checkpoint(&mut conv, &mut checkpoint, (doc, loc, messages.as_array()));
                }
            }
            Record::Meta => {
                metadata(doc.value);
                if let Some(messages) = doc.value.get("messages") {
                    let loc = Loc::new(doc.base, "").child("messages");
                    replace_checkpoint(&mut conv, &mut checkpoint, (doc, loc, messages.as_array()));
                }
            }
            Record::Other => {}
        }
    }

    if !(session_id && project_hash) {
        return Err(
            "expected Gemini CLI session records: a metadata line with `sessionId` and `projectHash`, then messages `{id, type, content}` (the CLI cannot load a recording without that line)"
                .into(),
        );
    }

    let live: Vec<Live<'_, '_>> = match checkpoint {
        Some((_, loc, Some(list))) if !list.is_empty() => {
            for (_, d) in &order {
                exclude_message(&mut conv, d.base);
            }
            list.iter()
                .enumerate()
                .map(|(k, value)| Live {
                    value,
                    at: loc.child(k),
                })
                .collect()
        }
        _ => order
            .iter()
            .map(|(_, d)| Live {
                value: d.value,
                at: Loc::new(d.base, ""),
            })
            .collect(),
    };
    for message in &live {
        replay(message, &mut conv);
    }
    pair_idless(&mut conv);
    Ok(conv)
}

/// Lists a message line the loader drops (superseded, rewound, overridden).
fn exclude_message(conv: &mut Conversation, base: usize) {
    let at = Loc::new(base, "");
    for key in ["content", "displayContent", "toolCalls"] {
        conv.excluded.push(at.child(key));
    }
}

type Checkpoint<'d, 'a> = (&'d Doc<'a>, Loc, Option<&'d Vec<Tree<'a>>>);

/// A later `messages` replaces an earlier one whole.
fn replace_checkpoint<'d, 'a>(
    conv: &mut Conversation,
    current: &mut Option<Checkpoint<'d, 'a>>,
    next: Checkpoint<'d, 'a>,
) {
    if let Some((_, loc, _)) = current.replace(next) {
        conv.excluded.push(loc);
    }
}

/// One kept message, as `convertSessionToClientHistory` turns it into turns.
fn replay(message: &Live<'_, '_>, conv: &mut Conversation) {
    let value = message.value;
    let at = &message.at;
    match str_at(value, "type") {
        Some("user") => {
            let content = value.get("content").unwrap_or(&Tree::Null);
            if ignored_input(content) {
                conv.excluded.push(at.child("content"));
                return;
            }
            for item in parts(content, &at.child("content"), at) {
                conv.push(Role::User, at, item);
            }
        }
        Some("gemini") => replay_model(value, at, conv),
        // info, error, warning: shown, never sent.
        _ => {
            conv.excluded.push(at.child("content"));
            conv.excluded.push(at.child("toolCalls"));
        }
    }
}

/// A `gemini` message: the model turn, then the turn of its recorded results.
fn replay_model(value: &Tree, at: &Loc, conv: &mut Conversation) {
    let content = value.get("content").filter(|c| truthy(c));
    let content_loc = at.child("content");
    let content_items = content.map_or_else(Vec::new, |c| parts(c, &content_loc, at));
    let modern = content.is_some_and(|c| {
        part_list(c).iter().any(|(_, p)| {
            p.get("functionCall").is_some_and(|f| !f.is_null())
                || p.get("thought").is_some_and(truthy)
        })
    });
    let calls = array_at(value, "toolCalls").map_or(&[][..], Vec::as_slice);
    let calls_loc = at.child("toolCalls");
    let mut model: Vec<Item> = Vec::new();
    if modern {
        model.extend(content_items);
    } else {
        let thoughts = array_at(value, "thoughts").map_or(0, Vec::len);
        model.extend((0..thoughts).map(|k| {
            Item::Text(Text {
                loc: at.child("thoughts").child(k),
                message: at.clone(),
            })
        }));
        model.extend(content_items);
        for (i, call) in calls.iter().enumerate() {
            let loc = calls_loc.child(i);
            model.push(Item::Call(super::gemini::function_call(
                call,
                loc.clone(),
                loc,
                at,
            )));
        }
    }
    if model.is_empty() {
        conv.excluded.push(calls_loc);
        return;
    }
    for item in model {
        conv.push(Role::Assistant, at, item);
    }
    for (i, call) in calls.iter().enumerate() {
        for item in recorded_results(call, &calls_loc.child(i), at) {
            conv.push(Role::User, at, item);
        }
    }
}

/// The parts a `toolCalls[]` entry's `result` adds to the response turn. A failed status
/// marks every response in it as failed.
fn recorded_results(call: &Tree, loc: &Loc, at: &Loc) -> Vec<Item> {
    let Some(result) = call.get("result").filter(|r| truthy(r)) else {
        return Vec::new();
    };
    let failed = matches!(str_at(call, "status"), Some("error" | "cancelled"));
    let result_loc = loc.child("result");
    let mut items = match result {
        Tree::String(text) => {
            let id = str_at(call, "id").map(str::to_string);
            vec![Item::Result(ToolResult {
                key: pairing_key(id.as_deref(), &result_loc),
                call_id: id,
                name: str_at(call, "name").map(str::to_string),
                is_error: failed,
                text: text.to_string(),
                provider_executed: false,
                loc: result_loc,
                message: at.clone(),
            })]
        }
        other => parts(other, &result_loc, at),
    };
    if failed {
        for item in &mut items {
            if let Item::Result(r) = item {
                r.is_error = true;
            }
        }
    }
    items
}

/// A `PartListUnion` as parts with their pointers: a string, one part, or a list of both.
fn part_list<'d, 'a>(content: &'d Tree<'a>) -> Vec<(Option<usize>, &'d Tree<'a>)> {
    match content {
        Tree::Array(list) => list.iter().enumerate().map(|(j, p)| (Some(j), p)).collect(),
        other => vec![(None, other)],
    }
}

/// The items of a `PartListUnion` at `loc`.
fn parts(content: &Tree, loc: &Loc, at: &Loc) -> Vec<Item> {
    part_list(content)
        .into_iter()
        .map(|(j, part)| {
            let ploc = j.map_or_else(|| loc.clone(), |j| loc.child(j));
            if part.is_object() {
                part_item(part, ploc, at)
            } else {
                Item::Text(Text {
                    loc: ploc,
                    message: at.clone(),
                })
            }
        })
        .collect()
}

/// JavaScript truthiness of a JSON value.
fn truthy(value: &Tree) -> bool {
    match value {
        Tree::Null => false,
        Tree::Bool(b) => *b,
        Tree::String(s) => !s.as_str().is_empty(),
        Tree::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => true,
    }
}

/// Whether user input is what the CLI leaves out of the replay: blank, a slash or `?`
/// command, or injected context.
fn ignored_input(content: &Tree) -> bool {
    let mut text = String::new();
    for (_, part) in part_list(content) {
        match part {
            Tree::String(s) => text.push_str(s.as_str()),
            Tree::Object(_) if MARKED_PARTS.iter().any(|k| part.get(k).is_some()) => {
                text.push_str("[part]");
            }
            Tree::Object(_) => text.push_str(str_at(part, "text").unwrap_or_default()),
            _ => {}
        }
        // The prefix decides; the rest of a long message need not be joined.
        if text.trim_start().len() > 32 {
            break;
        }
    }
    let text = text.trim();
    text.is_empty() || IGNORED_PREFIXES.iter().any(|p| text.starts_with(p))
}

#[cfg(test)]
mod tests {
    use crate::tree_json as json;

    use super::*;
    use crate::formats::{detect, session_docs};
    use crate::lint::{lint_str, Outcome};

    fn meta() -> Tree<'static> {
        json!({"sessionId": "s", "projectHash": "p", "startTime": "t", "lastUpdated": "t"})
    }

    fn conversation(records: &[Tree<'_>]) -> Conversation {
        let mut convs = GeminiCli
            .normalise(&session_docs(records))
            .unwrap_or_default();
        convs.pop().expect("one conversation")
    }

    /// (line, pointer) of every call and result, in turn order.
    fn items(conv: &Conversation) -> Vec<(usize, String)> {
        conv.turns
            .iter()
            .flat_map(|t| &t.items)
            .filter_map(|item| match item {
                Item::Call(c) => Some((c.loc.base, c.loc.pointer.clone())),
                Item::Result(r) => Some((r.loc.base, r.loc.pointer.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn sniffs_recordings_only() {
        assert_eq!(GeminiCli.sniff_record(&meta()), Some(90));
        let gemini =
            json!({"id": "m", "timestamp": "t", "type": "gemini", "content": [], "toolCalls": []});
        assert_eq!(GeminiCli.sniff_record(&gemini), Some(90));
        let user =
            json!({"id": "u", "timestamp": "t", "type": "user", "content": [{"text": "hi"}]});
        assert_eq!(GeminiCli.sniff_record(&user), Some(60));
        assert_eq!(GeminiCli.sniff_record(&json!({"$rewindTo": "u"})), Some(90));
        assert_eq!(
            GeminiCli.sniff_record(&json!({"$set": {"lastUpdated": "t"}})),
            Some(90)
        );
        // Near misses: Claude Code, Qwen Code, Codex, pi, Copilot CLI lines, and a Gemini
        // `/chat save` checkpoint.
        for other in [
            json!({"type": "user", "uuid": "u", "parentUuid": null, "sessionId": "s", "message": {"role": "user", "content": "hi"}}),
            json!({"type": "assistant", "uuid": "u", "parentUuid": "p", "sessionId": "s", "message": {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]}}),
            json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}),
            json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/w"}),
            json!({"type": "message", "id": "a1", "parentId": null, "timestamp": "t", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": [], "isError": false}}),
            json!({"type": "user.message", "id": "e1", "parentId": null, "data": {"content": "hi"}}),
            json!({"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]}),
        ] {
            assert_eq!(GeminiCli.sniff_record(&other), None, "{other}");
        }
        let checkpoint = json!([{"role": "user", "parts": [{"text": "hi"}]}]);
        assert_eq!(GeminiCli.sniff(&checkpoint), None);
        let legacy = json!({"sessionId": "s", "projectHash": "p", "messages": []});
        assert_eq!(detect(&legacy).map(|a| a.format()), Some(Format::GeminiCli));
        // Cline SDK sessions carry `sessionId` and `messages` too, never `projectHash`.
        let cline = json!({"version": 1, "agent": "cline", "sessionId": "s", "messages": []});
        assert_eq!(GeminiCli.sniff(&cline), None);
    }

    #[test]
    fn a_later_line_with_the_same_id_replaces_the_message_in_place() {
        let records = [
            meta(),
            json!({"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "a", "name": "ls", "args": {}}}]}),
            json!({"id": "u2", "type": "user", "content": [{"text": "next"}]}),
            // The update of g1 with its result: g1 stays before u2.
            json!({"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "a", "name": "ls", "args": {}}}],
                   "toolCalls": [{"id": "a", "name": "ls", "args": {}, "status": "success",
                                  "result": [{"functionResponse": {"id": "a", "name": "ls", "response": {"output": "x"}}}]}]}),
        ];
        let conv = conversation(&records);
        assert_eq!(
            items(&conv),
            [
                (3, "/content/0".to_string()),
                (3, "/toolCalls/0/result/0".to_string())
            ]
        );
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::Assistant, Role::User]);
        assert_eq!(conv.turns.last().map(|t| t.loc.base), Some(3));
        // The superseded version is accounted for, not unread.
        let excluded: Vec<usize> = conv.excluded.iter().map(|l| l.base).collect();
        assert!(excluded.contains(&1));
    }

    #[test]
    fn a_rewind_drops_the_message_and_everything_after_it() {
        let records = [
            meta(),
            json!({"id": "u1", "type": "user", "content": "go"}),
            json!({"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "a", "name": "ls", "args": {}}}]}),
            json!({"id": "u2", "type": "user", "content": "again"}),
            json!({"$rewindTo": "g1"}),
            json!({"id": "g2", "type": "gemini", "content": "done"}),
        ];
        let conv = conversation(&records);
        let bases: Vec<usize> = conv.turns.iter().map(|t| t.loc.base).collect();
        assert_eq!(bases, [1, 5]);
        assert_eq!(conv.calls().count(), 0);
        // An unknown id rewinds everything.
        let records = [
            meta(),
            json!({"id": "u1", "type": "user", "content": "go"}),
            json!({"$rewindTo": "nope"}),
        ];
        assert!(conversation(&records).turns.is_empty());
    }

    #[test]
    fn the_last_messages_checkpoint_is_the_history() {
        let records = [
            meta(),
            json!({"id": "u1", "type": "user", "content": "old"}),
            json!({"$set": {"messages": [{"id": "x", "type": "user", "content": "first checkpoint"}]}}),
            json!({"$set": {"lastUpdated": "t2", "messages": [
                {"id": "s1", "type": "user", "content": [{"text": "summary"}]},
                {"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "a", "name": "ls", "args": {}}}]}
            ]}}),
            // Ignored by the loader while a checkpoint stands.
            json!({"id": "u3", "type": "user", "content": [{"functionResponse": {"id": "zz", "name": "ls", "response": {}}}]}),
        ];
        let conv = conversation(&records);
        let locs: Vec<(usize, &str)> = conv
            .turns
            .iter()
            .map(|t| (t.loc.base, t.loc.pointer.as_str()))
            .collect();
        assert_eq!(locs, [(3, "/$set/messages/0"), (3, "/$set/messages/1")]);
        let report = lint_str(
            "s.jsonl",
            &records
                .iter()
                .map(|r| r.to_serde().to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        // The call the checkpoint ends on is in flight; the ignored response is not unread.
        assert_eq!(report.codes(), Vec::<String>::new());
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::GeminiCli]));
    }

    #[test]
    fn legacy_calls_come_from_tool_calls_and_string_results_answer_them() {
        let records = [json!({"sessionId": "s", "projectHash": "p", "messages": [
            {"id": "u", "type": "user", "content": "hi"},
            {"id": "g", "type": "gemini", "content": "", "toolCalls": [
                {"id": "a", "name": "ls", "args": {"p": 1}, "status": "cancelled", "result": "stopped"},
                {"id": "b", "name": "ls", "args": {}, "status": "scheduled"}
            ]},
            {"id": "i", "type": "info", "content": "noted"},
            {"id": "c", "type": "user", "content": "/clear"}
        ]})];
        let conv = conversation(&records);
        let calls: Vec<&str> = conv.calls().map(|(_, c)| c.key.as_str()).collect();
        assert_eq!(calls, ["a", "b"]);
        let results: Vec<(&str, bool)> = conv
            .results()
            .map(|(_, r)| (r.key.as_str(), r.is_error))
            .collect();
        assert_eq!(results, [("a", true)]);
        // The info message and the slash command are not sent.
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
    }

    #[test]
    fn ignored_user_input_matches_the_cli() {
        for (content, ignored) in [
            (json!("  /stats"), true),
            (json!([{"text": "?"}]), true),
            (json!([{"text": "<session_context>x"}]), true),
            (json!(""), true),
            (json!([{"text": "fix /etc/hosts"}]), false),
            (
                json!([{"functionResponse": {"name": "ls", "response": {}}}]),
                false,
            ),
        ] {
            assert_eq!(ignored_input(&content), ignored, "{content}");
        }
    }

    #[test]
    fn records_without_metadata_do_not_fit() {
        let records = [json!({"id": "u1", "type": "user", "content": "go"})];
        assert!(GeminiCli.normalise(&session_docs(&records)).is_err());
    }
}
