//! Gemini CLI session recordings (`~/.gemini/tmp/<projectId>/chats/session-*.jsonl`, home
//! moved by `GEMINI_CLI_HOME`; sub-agents in `chats/<parentSessionId>/<sessionId>.jsonl`) and
//! their legacy whole-file form (`session-*.json`, `{sessionId, projectHash, messages}`).
//! `/chat save` checkpoints are plain Gemini `Content[]` and belong to the `gemini` format.
//!
//! Checked against google-gemini/gemini-cli `packages/core/src/services/chatRecordingService.ts`
//! (`loadConversationRecord`, `ChatRecordingService.updateMessagesFromHistory`),
//! `packages/core/src/utils/sessionUtils.ts` (`convertSessionToClientHistory`) and
//! `packages/core/src/core/geminiChat.ts` at v0.44.0 through v0.57.0-preview.0 in the
//! repository, and in the published `@google/gemini-cli@0.61.0` bundle, where the three
//! functions are the same; and by resuming sessions with that 0.61.0 build against a local
//! stand-in for the API that logged each request.
//!
//! The JSONL file is a log the CLI folds into one conversation on resume
//! (`loadConversationRecord`, the same since v0.44.0, #26939), and is read here the same way:
//! - a line with `sessionId` and `projectHash` is metadata, merged; its `messages`, if a
//!   list, are upserted;
//! - a line with a string `id` is a message, upserted: a later line with the same id replaces
//!   the earlier version in its original position (an update, not a duplicate);
//! - `{"$rewindTo": id}` removes that message and everything after it (an unknown id: all);
//! - `{"$set": {...}}` merges metadata; a `messages` list there is a checkpoint: every message
//!   so far is dropped and the list's are upserted, and the lines after it are upserted on
//!   top. Every session has one on its second line (the session context, written when the chat
//!   starts), and every resume writes one holding the history as resumed. (Up to v0.43.0 the
//!   last non-empty checkpoint was the whole history and message lines were ignored.)
//!
//! Superseded versions, rewound or cleared messages, list elements without an `id`, and
//! messages never replayed (`info`, `error`, `warning`, user input that is blank or starts
//! with `/`, `?`, `<session_context>`, `<hook_context>`) are listed as excluded, so the
//! unread-structure guard counts them as read on purpose.
//!
//! Replay (`convertSessionToClientHistory`): a user message is a user turn of its parts; a
//! `gemini` message is a model turn: its `content` parts when they hold a `functionCall` or a
//! thought (what a resume rewrites it to), else its thoughts, content and one `functionCall`
//! per `toolCalls[]` entry (what the live session records: `content` is the reply's text);
//! then, when any `toolCalls[].result` is set, a user turn of every result (a string becomes
//! `{output}`, a part list is spliced in whole). Since v0.44.0 each tool round's responses
//! are also recorded as a durable `user` message of `functionResponse` parts (`geminiChat.ts`,
//! "Record tool response as a message"), so every response is sent twice once the request
//! coalesces adjacent same-role turns (`coalesceConsecutiveRoles`, done here too), and each
//! resume adds copies: `updateMessagesFromHistory` keeps the regenerated `<id>_response` turn
//! as a user message and sets every `toolCalls[].result` of the round to all of the round's
//! responses (google-gemini/gemini-cli#29365, reported on 0.60.0, fix #29366 open; seen on
//! 0.61.0: 2 copies on the first resume, 3 on the next). Nothing drops them (`hardenHistory`
//! runs only with context management on), and Gemini rejects them. The session is held to
//! Gemini's rules. A failed call is `status` `error`/`cancelled` or a response with
//! `response.error`. A call the file ends on is still running.
//!
//! The CLI records no version of its own in a session (metadata is `sessionId`,
//! `projectHash`, `startTime`, `lastUpdated`, `kind`, `directories`, `summary`,
//! `memoryScratchpad`; a message's `model` is the model's name).
//!
//! Fixes use the loader's upsert (see `fix`): a corrected version of the message (same `id`)
//! is appended at the end of the file, so every original byte stays and the message keeps its
//! place, whether it is a line or an element of a checkpoint.

// foldhash: ids the run compares itself, no flood resistance needed.
use foldhash::{HashMap, HashMapExt};

use super::gemini::{pair_idless, part_item};
use super::links;
use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{pairing_key, Conversation, Item, Loc, Pairing, Role, Text, ToolResult};
use crate::tree::Value as Tree;

mod fix;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain gemini-cli` prints (Markdown).
pub(super) const DOC: &str = r#"Gemini CLI session recordings (`~/.gemini/tmp/<projectId>/chats/session-*.jsonl`, home moved by `GEMINI_CLI_HOME`; legacy whole-file `session-*.json`), folded as the CLI loads them (0.44–0.61): same-`id` lines replace the message in place, `$rewindTo` drops a message and what follows, a `$set.messages` checkpoint restarts the history and later lines build on it; calls are `functionCall` parts (legacy: `toolCalls[]`), results `toolCalls[].result` and durable user `functionResponse` messages (`status` `error`/`cancelled` and `response.error` fail); `info`/`error`/`warning` messages and slash commands are not sent; held to Gemini's rules; a call the file ends on is still running; responses the CLI sends twice on resume (gemini-cli#29365) are errors; fixes append a corrected same-`id` version of the message (an unanswered call `cancelled` with an error response; for responses duplicated on resume, the calls moved into `content` and their `toolCalls` entries dropped, so later resumes stay clean; another duplicated or orphaned response left out; none in legacy `.json`) (`/chat save` checkpoints are `gemini`)"#;

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
            FixIntent::InsertResult { call, .. } => fix::cancel_call(cx, call),
            FixIntent::RemoveResult { result, message } => {
                fix::stop_regenerating(cx, result, message)
                    .or_else(|| fix::drop_response(cx, result, message))
            }
            _ => None,
        };
        links::planned(planned)
    }
}

/// A message the loader keeps: its value and where it sits (a line, or an element of a
/// `messages` list).
struct Live<'d, 'a> {
    value: &'d Tree<'a>,
    at: Loc,
}

/// The messages `loadConversationRecord` keeps, in its map's order.
struct Folded<'d, 'a> {
    live: Vec<Live<'d, 'a>>,
    /// Whether the merged metadata names a session and a project (the loader falls back to
    /// reading the file as one legacy JSON record otherwise).
    complete: bool,
}

/// Folds the records as `loadConversationRecord` does (0.44.0 to at least 0.61.0): a line
/// with an `id` is upserted; `$rewindTo` drops that message and what follows; a `$set` whose
/// `messages` is a list clears every message and upserts that list's, and later lines are
/// upserted on top; a metadata line's `messages` are upserted without clearing. Versions the
/// loader drops are pushed to `excluded`.
fn fold<'d, 'a>(docs: &'d [Doc<'a>], excluded: &mut Vec<Loc>) -> Folded<'d, 'a> {
    // The live messages in the loader's map order, and each id's slot.
    let mut order: Vec<(&'d str, Live<'d, 'a>)> = Vec::new();
    let mut slot: HashMap<&'d str, usize> = HashMap::new();
    let (mut session_id, mut project_hash) = (false, false);
    let mut metadata = |value: &Tree| {
        session_id |= str_at(value, "sessionId").is_some_and(|s| !s.is_empty());
        project_hash |= str_at(value, "projectHash").is_some_and(|s| !s.is_empty());
    };
    for doc in docs {
        let line = Loc::new(doc.base, "");
        match classify(doc.value) {
            Record::Rewind(id) => {
                // An unknown id clears every message.
                let from = slot.get(id).copied().unwrap_or(0);
                for (gone, live) in order.drain(from..) {
                    slot.remove(gone);
                    exclude_message(excluded, &live.at);
                }
            }
            Record::Message(id) => upsert(
                &mut order,
                &mut slot,
                excluded,
                id,
                Live {
                    value: doc.value,
                    at: line,
                },
            ),
            Record::Set(set) => {
                metadata(set);
                // A checkpoint (written on resume, after compression or masking): the
                // history restarts from its list.
                let loc = line.child(("$set", "messages"));
                upsert_listed(
                    &mut order,
                    &mut slot,
                    excluded,
                    set.get("messages"),
                    loc,
                    true,
                );
            }
            Record::Meta => {
                metadata(doc.value);
                let loc = line.child("messages");
                let messages = doc.value.get("messages");
                upsert_listed(&mut order, &mut slot, excluded, messages, loc, false);
            }
            Record::Other => {}
        }
    }
    Folded {
        live: order.into_iter().map(|(_, live)| live).collect(),
        complete: session_id && project_hash,
    }
}

/// Upserts the messages of a `messages` list (`$set.messages`, or a metadata line's), after
/// clearing every message when it `restart`s the history. Elements without an `id`, and a
/// `messages` that is no list, are skipped as the loader skips them.
fn upsert_listed<'d, 'a>(
    order: &mut Vec<(&'d str, Live<'d, 'a>)>,
    slot: &mut HashMap<&'d str, usize>,
    excluded: &mut Vec<Loc>,
    messages: Option<&'d Tree<'a>>,
    loc: Loc,
    restart: bool,
) {
    let list = match messages {
        Some(Tree::Array(list)) => list,
        Some(_) => return excluded.push(loc),
        None => return,
    };
    if restart {
        for (_, live) in order.drain(..) {
            exclude_message(excluded, &live.at);
        }
        slot.clear();
    }
    for (k, value) in list.iter().enumerate() {
        let at = loc.child(k);
        match str_at(value, "id") {
            Some(id) => upsert(order, slot, excluded, id, Live { value, at }),
            None => excluded.push(at),
        }
    }
}

/// The loader's `Map.set`: a key it holds keeps its position, and its earlier version goes.
fn upsert<'d, 'a>(
    order: &mut Vec<(&'d str, Live<'d, 'a>)>,
    slot: &mut HashMap<&'d str, usize>,
    excluded: &mut Vec<Loc>,
    id: &'d str,
    live: Live<'d, 'a>,
) {
    match slot.get(id).and_then(|&i| order.get_mut(i)) {
        Some(entry) => {
            exclude_message(excluded, &entry.1.at);
            entry.1 = live;
        }
        None => {
            slot.insert(id, order.len());
            order.push((id, live));
        }
    }
}

/// Folds the records as the loader does and replays what it keeps.
fn read_session(docs: &[Doc<'_>]) -> Result<Conversation, String> {
    let first = docs.first().map_or(0, |d| d.base);
    let mut conv = Conversation::new(Format::GeminiCli, Loc::new(first, ""), Pairing::NextTurn);
    conv.results_role = Role::User;
    // A call the session ends on is still running, not unanswered.
    conv.resumable = false;
    // Responses are recorded twice and copied on resume; a call's ids are never reused.
    conv.results_copied = true;

    let folded = fold(docs, &mut conv.excluded);
    if !folded.complete {
        return Err(
            "expected Gemini CLI session records: a metadata line with `sessionId` and `projectHash`, then messages `{id, type, content}` (the CLI cannot load a recording without that line)"
                .into(),
        );
    }
    for message in &folded.live {
        replay(message, &mut conv);
    }
    pair_idless(&mut conv);
    Ok(conv)
}

/// Lists the parts of a message version the loader drops (superseded, rewound, cleared).
fn exclude_message(excluded: &mut Vec<Loc>, at: &Loc) {
    for key in ["content", "displayContent", "toolCalls"] {
        excluded.push(at.child(key));
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
                loc: at.child(("thoughts", k)),
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
                id_field: None,
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
                Item::Call(c) => Some((c.loc.base, c.loc.pointer.to_string())),
                Item::Result(r) => Some((r.loc.base, r.loc.pointer.to_string())),
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
    fn a_messages_checkpoint_restarts_the_history_and_later_lines_build_on_it() {
        let records = [
            meta(),
            json!({"id": "u1", "type": "user", "content": "old"}),
            json!({"$set": {"messages": [{"id": "x", "type": "user", "content": "first checkpoint"}]}}),
            // What a resume writes: the history as the CLI rebuilt it.
            json!({"$set": {"lastUpdated": "t2", "messages": [
                {"id": "s1", "type": "user", "content": [{"text": "summary"}]},
                {"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "a", "name": "ls", "args": {}}}]},
                {"type": "info", "content": "no id: skipped by the loader"}
            ]}}),
            // Lines after it are upserted on it: a new message, then an update of g1.
            json!({"id": "u3", "type": "user", "content": [{"functionResponse": {"id": "a", "name": "ls", "response": {"output": "x"}}}]}),
            json!({"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "a", "name": "ls", "args": {}}}],
                   "toolCalls": [{"id": "a", "name": "ls", "args": {}, "status": "success",
                                  "result": [{"functionResponse": {"id": "a", "name": "ls", "response": {"output": "x"}}}]}]}),
        ];
        let conv = conversation(&records);
        let locs: Vec<(usize, &str)> = conv
            .turns
            .iter()
            .map(|t| (t.loc.base, t.loc.pointer.as_str()))
            .collect();
        // g1 keeps the checkpoint's place; its recorded result and the durable response
        // share one user turn, as the CLI sends them.
        assert_eq!(locs, [(3, "/$set/messages/0"), (5, ""), (5, "")]);
        assert_eq!(
            items(&conv),
            [
                (5, "/content/0".to_string()),
                (5, "/toolCalls/0/result/0".to_string()),
                (4, "/content/0".to_string())
            ]
        );
        // The cleared messages and the id-less element are accounted for.
        let excluded: Vec<(usize, &str)> = conv
            .excluded
            .iter()
            .map(|l| (l.base, l.pointer.as_str()))
            .collect();
        for gone in [
            (1, "/content"),
            (2, "/$set/messages/0/content"),
            (3, "/$set/messages/1/content"),
            (3, "/$set/messages/2"),
        ] {
            assert!(excluded.contains(&gone), "{gone:?} in {excluded:?}");
        }
        let report = lint_str(
            "s.jsonl",
            &records
                .iter()
                .map(|r| r.to_serde().to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        // The durable copy (line 5) is the second response the CLI sends.
        assert_eq!(report.codes(), ["TC105@5:37"]);
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::GeminiCli]));
        // An empty list clears the history too.
        let records = [
            meta(),
            json!({"id": "u1", "type": "user", "content": "old"}),
            json!({"$set": {"messages": []}}),
        ];
        assert!(conversation(&records).turns.is_empty());
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
