//! Spring AI chat memory: `RedisChatMemoryRepository` documents (Gson, one per message), the
//! ad-hoc Jackson dump of the message objects, and spring-ai-session `AI_SESSION_EVENT` rows.
//!
//! Shapes (one object per message, a conversation being a JSON array of them or a JSONL
//! export with one per line):
//! - Redis: `{type: USER|ASSISTANT|SYSTEM|TOOL, content, conversation_id, timestamp,
//!   metadata: {messageType}, toolCalls: [{id, type, name, arguments: S}], toolResponses:
//!   [{id, name, responseData: S}]}`; Gson leaves out nulls, so a null `arguments` is missing.
//! - Jackson dump: `messageType` instead of `type`, `text` (or `textContent`) instead of
//!   `content`, and a tool message's `responses` (or `toolResponses`).
//! - Session rows: `{message_type, message_content, message_data}`, where `message_data` is a
//!   JSON *string* holding the list of calls (ASSISTANT) or responses (TOOL). Calls and
//!   results read from it are located at the string, and fixes inside it are not made (a
//!   TOOL row holding nothing but the one result is removed whole).
//!
//! Spring AI keeps no tool definitions in memory (`--tools` supplies them) and has no error
//! flag: `DefaultToolCallResultConverter` JSON-encodes every successful return value, while a
//! failure's `responseData` is the exception's message as plain text, so `responseData` that
//! is not JSON (or is an error object) counts as a failed result.
//!
//! Spring AI replays memory to whichever provider the app uses, in OpenAI's layout: every
//! non-tool message starts a turn, consecutive tool messages form one. Messages of several
//! `conversation_id`s in one export are separate conversations.

use serde_json::{json, Map, Value as Json};

use super::openai_chat::take_pending;
use super::{array_at, has_text, str_at, Adapter, CallSite, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    looks_like_error, pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc,
    Pairing, Role, Text, ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain spring-ai` prints (Markdown).
pub(super) const DOC: &str = r#"Spring AI chat memory: `RedisChatMemoryRepository` documents (key `chat-memory:<conversationId>:<seq>`) as a JSON array or a JSONL export, Jackson dumps of the messages (`messageType`), spring-ai-session `AI_SESSION_EVENT` rows (`message_data` JSON in a string); tools come from `--tools`"#;

/// Spring AI chat memory: a JSON file holding an array of messages (or rows) or a single
/// message, or a JSONL export with one message (or row) per line, read together as one
/// history.
pub struct SpringAi;

const TYPE_KEYS: &[&str] = &["type", "messageType", "message_type"];
/// `textContent`: the field name of Spring AI's own `AbstractMessage`, which hand-rolled
/// Jackson dumps of the message objects keep.
const TEXT_KEYS: &[&str] = &["content", "text", "textContent", "message_content"];
const RESULT_KEYS: &[&str] = &["toolResponses", "responses"];
/// Where session rows keep their calls and responses, as JSON text.
const DATA: &str = "message_data";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Assistant,
    System,
    Tool,
}

/// The message type of a Spring AI message or row, from its own key or `metadata`.
fn kind(message: &Tree) -> Option<Kind> {
    let name = TYPE_KEYS
        .iter()
        .find_map(|k| str_at(message, k))
        .or_else(|| {
            message
                .get("metadata")
                .and_then(|m| str_at(m, "messageType"))
        })?;
    Some(match name {
        "USER" => Kind::User,
        "ASSISTANT" => Kind::Assistant,
        "SYSTEM" => Kind::System,
        "TOOL" => Kind::Tool,
        _ => return None,
    })
}

/// Keys only Spring AI messages have (beside an upper-case message type).
fn distinctive(message: &Tree) -> bool {
    [
        "messageType",
        "toolCalls",
        "toolResponses",
        "conversation_id",
    ]
    .iter()
    .any(|k| message.get(k).is_some())
        || message.get("message_type").is_some() && message.get(DATA).is_some()
        || message
            .get("metadata")
            .is_some_and(|m| m.get("messageType").is_some())
        || array_at(message, "responses")
            .is_some_and(|r| r.iter().any(|x| x.get("responseData").is_some()))
}

/// The messages of a document: its elements, or the document itself.
fn messages<'a>(doc: &Doc<'a>) -> Vec<(Loc, &'a Tree<'a>)> {
    match doc.value {
        Tree::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, m)| (Loc::new(doc.base, format!("/{i}")), m))
            .collect(),
        other => vec![(Loc::new(doc.base, ""), other)],
    }
}

fn sniff_messages(items: &[Tree]) -> Option<u8> {
    let all = !items.is_empty() && items.iter().all(|m| m.is_object() && kind(m).is_some());
    (all && items.iter().any(distinctive)).then_some(90)
}

impl Adapter for SpringAi {
    fn format(&self) -> Format {
        Format::SpringAi
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        match doc {
            Tree::Array(items) => sniff_messages(items),
            other => sniff_messages(std::slice::from_ref(other)),
        }
    }

    /// One message per JSONL line (a repository's rows exported one per line).
    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        record
            .is_object()
            .then(|| sniff_messages(std::slice::from_ref(record)))
            .flatten()
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        normalise(docs)
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(normalise(docs))
    }

    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        plan_edits(self, intent, cx)
    }
}

impl Dialect for SpringAi {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        interrupted_result(site, text)
    }
}

/// A TOOL message answering the call at `site`, in the shape of the message holding it.
fn interrupted_result(site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
    let call = site.call;
    let response = json!({"id": call.id.as_deref()?, "name": call.name, "responseData": text});
    let message = site.message()?;
    let mut out = Map::new();
    if message.get("message_type").is_some() {
        out.insert("message_type".into(), json!("TOOL"));
        out.insert("message_content".into(), json!(""));
        let data = serde_json::to_string(&json!([response])).ok()?;
        out.insert(DATA.into(), Json::String(data));
        copy(message, &mut out, &["session_id", "branch"]);
    } else if message.get("messageType").is_some() {
        out.insert("messageType".into(), json!("TOOL"));
        out.insert("metadata".into(), json!({"messageType": "TOOL"}));
        out.insert("responses".into(), json!([response]));
        out.insert("text".into(), json!(""));
    } else {
        out.insert("type".into(), json!("TOOL"));
        out.insert("content".into(), json!(""));
        copy(message, &mut out, &["conversation_id", "timestamp"]);
        out.insert("metadata".into(), json!({"messageType": "TOOL"}));
        out.insert("toolResponses".into(), json!([response]));
    }
    Some(Json::Object(out))
}

/// Copies the conversation's own keys (its id, the call's timestamp) into a new message.
fn copy(from: &Tree, to: &mut Map<String, Json>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = from.get(key).filter(|v| !v.is_null()) {
            to.insert((*key).to_string(), v.to_serde());
        }
    }
}

/// Whether `loc` is a session row's `message_data` string (calls and results inside it).
fn in_string(loc: &Loc) -> bool {
    loc.pointer.ends_with("/message_data") || loc.pointer == "/message_data"
}

/// Edits inside a `message_data` string are not made; a row holding only the removed call or
/// result (and no text) is removed whole.
fn plan_edits(dialect: &dyn Dialect, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
    let whole_row = |node: &Loc, message: &Loc| -> Planned {
        let Some(row) = cx.value_at(message) else {
            return Planned::Unsupported;
        };
        let row = row.as_ref();
        let entries = str_at(row, DATA)
            .and_then(|d| crate::json::parse(d).ok())
            .and_then(|d| d.value.as_array().map(Vec::len));
        if entries != Some(1) || has_text(text_of(row).map(|(_, v)| v)) || !in_string(node) {
            return Planned::Unsupported;
        }
        let removal = FixIntent::RemoveResult {
            result: message.clone(),
            message: message.clone(),
        };
        match crate::edit::plan::generic(dialect, &removal, cx) {
            Some(edits) => Planned::Edits(edits),
            None => Planned::Unsupported,
        }
    };
    match intent {
        FixIntent::RemoveResult { result, message } if in_string(result) => {
            whole_row(result, message)
        }
        FixIntent::RemoveCall { call, message } if in_string(call) => whole_row(call, message),
        FixIntent::Replace { at, .. } if in_string(at) => Planned::Unsupported,
        FixIntent::AddMember { object, .. } | FixIntent::RemoveMember { object, .. }
            if in_string(object) =>
        {
            Planned::Unsupported
        }
        FixIntent::MoveResult { result, .. } if in_string(result) => Planned::Unsupported,
        FixIntent::GatherResults { into, results, .. }
            if in_string(into) || results.iter().any(in_string) =>
        {
            Planned::Unsupported
        }
        FixIntent::MoveBlocks { blocks, .. } if blocks.iter().any(in_string) => {
            Planned::Unsupported
        }
        _ => Planned::Generic,
    }
}

fn text_of<'a>(message: &'a Tree<'a>) -> Option<(&'static str, &'a Tree<'a>)> {
    super::field(message, TEXT_KEYS)
}

/// Calls without an id awaiting a result, by name: (tool name, pairing key).
type Pending = Vec<(String, String)>;

fn normalise(docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
    // One conversation per `conversation_id`, in order of first appearance.
    let mut convs: Vec<(Option<String>, Conversation, Pending)> = Vec::new();
    for doc in docs {
        for (mloc, message) in messages(doc) {
            let kind = kind(message).ok_or_else(|| {
                format!(
                    "expected Spring AI messages with a `type`, `messageType` or `message_type` of USER, ASSISTANT, SYSTEM or TOOL (at {})",
                    if mloc.pointer.is_empty() { "the document" } else { mloc.pointer.as_str() }
                )
            })?;
            let id = str_at(message, "conversation_id").map(str::to_string);
            let index = match convs.iter().position(|(c, _, _)| *c == id) {
                Some(index) => index,
                None => {
                    let conv = Conversation::new(Format::SpringAi, mloc.clone(), Pairing::NextTurn);
                    convs.push((id, conv, Vec::new()));
                    convs.len() - 1
                }
            };
            let Some((_, conv, pending)) = convs.get_mut(index) else {
                continue;
            };
            read_message(conv, pending, kind, message, &mloc)?;
        }
    }
    Ok(convs.into_iter().map(|(_, conv, _)| conv).collect())
}

fn read_message(
    conv: &mut Conversation,
    pending: &mut Pending,
    kind: Kind,
    message: &Tree,
    mloc: &Loc,
) -> Result<(), String> {
    let role = match kind {
        Kind::Tool => {
            for (loc, entry) in entries(message, mloc, RESULT_KEYS)? {
                let call_id = str_at(&entry, "id").map(str::to_string);
                let name = str_at(&entry, "name").map(str::to_string);
                let key = match &call_id {
                    Some(id) => id.clone(),
                    None => take_pending(pending, name.as_deref())
                        .unwrap_or_else(|| pairing_key(None, &loc)),
                };
                let (is_error, text) = response(entry.get("responseData"));
                conv.push(
                    Role::Tool,
                    mloc,
                    Item::Result(ToolResult {
                        call_id,
                        key,
                        name,
                        is_error,
                        text,
                        provider_executed: false,
                        id_field: None,
                        loc,
                        message: mloc.clone(),
                    }),
                );
            }
            return Ok(());
        }
        Kind::User => Role::User,
        Kind::System => Role::System,
        Kind::Assistant => Role::Assistant,
    };
    conv.start_turn(role, mloc.clone());
    if role == Role::Assistant {
        pending.clear();
    }
    if let Some((key, _)) = text_of(message).filter(|(_, v)| has_text(Some(v))) {
        conv.push_to_last(Item::Text(Text {
            loc: mloc.child(key),
            message: mloc.clone(),
        }));
    }
    if role != Role::Assistant {
        return Ok(());
    }
    for (loc, entry) in entries(message, mloc, &["toolCalls"])? {
        let id = str_at(&entry, "id").map(str::to_string);
        let name = str_at(&entry, "name").unwrap_or_default().to_string();
        let key = id.clone().unwrap_or_else(|| {
            let key = pairing_key(None, &loc);
            pending.push((name.clone(), key.clone()));
            key
        });
        let (arguments, args_loc) = match entry.get("arguments") {
            None => (Arguments::Absent, loc.clone()),
            // Jackson keeps a null; it reads as "null", not as missing.
            Some(Tree::Null) => (
                Arguments::value(Json::Null),
                child_unless_string(&loc, "arguments"),
            ),
            Some(Tree::String(s)) => (
                Arguments::Encoded(s.to_string()),
                child_unless_string(&loc, "arguments"),
            ),
            Some(other) => (
                Arguments::value(other.to_serde()),
                child_unless_string(&loc, "arguments"),
            ),
        };
        conv.push_to_last(Item::Call(ToolCall {
            id,
            key,
            name,
            kind: CallKind::Function,
            arguments,
            loc,
            args_loc,
            message: mloc.clone(),
        }));
    }
    Ok(())
}

/// A field of an entry, unless the entry lives inside a `message_data` string (which is then
/// the location of everything in it).
fn child_unless_string(loc: &Loc, key: &str) -> Loc {
    if in_string(loc) {
        loc.clone()
    } else {
        loc.child(key)
    }
}

/// The calls or responses of a message with their locations: the array under the first of
/// `keys`, or the list inside a row's `message_data` string (all located at the string).
fn entries<'a>(
    message: &'a Tree<'a>,
    mloc: &Loc,
    keys: &[&str],
) -> Result<Vec<(Loc, Tree<'a>)>, String> {
    if let Some((key, items)) = keys
        .iter()
        .find_map(|k| array_at(message, k).map(|a| (*k, a)))
    {
        let at = mloc.child(key);
        return Ok(items
            .iter()
            .enumerate()
            .map(|(j, e)| (at.child(j), e.clone()))
            .collect());
    }
    let Some(data) = str_at(message, DATA) else {
        return Ok(Vec::new());
    };
    let at = mloc.child(DATA);
    match crate::json::parse(data).map(|p| p.value) {
        Ok(Tree::Array(items)) => Ok(items.into_iter().map(|e| (at.clone(), e)).collect()),
        Ok(Tree::Null) => Ok(Vec::new()),
        _ => Err(format!(
            "expected `message_data` at {} to hold a JSON list of tool calls or responses",
            at.pointer
        )),
    }
}

/// Whether a `responseData` is a failure, and its text. The converter JSON-encodes what a tool
/// returns (`"\"Sunny\""`); a failure is the exception's message as plain text.
fn response(data: Option<&Tree>) -> (bool, String) {
    match data {
        Some(whole @ Tree::String(s)) => match crate::json::parse(s) {
            Ok(v) => (looks_like_error(&v.value), result_text(&v.value)),
            Err(_) => (true, result_text(whole)),
        },
        Some(other) => (looks_like_error(other), result_text(other)),
        None => (false, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json;

    fn read(doc: &Tree) -> Vec<Conversation> {
        normalise(&[Doc {
            base: 0,
            value: doc,
        }])
        .expect("reads")
    }

    #[test]
    fn reads_redis_documents_and_pairs_by_id() {
        let doc = tree_json!([
            {"type": "USER", "content": "Weather?", "conversation_id": "c", "metadata": {"messageType": "USER"}},
            {"type": "ASSISTANT", "content": "", "conversation_id": "c", "toolCalls": [{"id": "a", "type": "function", "name": "w", "arguments": "{}"}]},
            {"type": "TOOL", "content": "", "conversation_id": "c", "toolResponses": [{"id": "a", "name": "w", "responseData": "\"Sunny\""}]}
        ]);
        assert_eq!(SpringAi.sniff(&doc), Some(90));
        let convs = read(&doc);
        assert_eq!(convs.len(), 1);
        let conv = &convs[0];
        assert_eq!(conv.turns.len(), 3);
        let (_, call) = conv.calls().next().expect("a call");
        assert_eq!(call.args_loc.pointer, "/1/toolCalls/0/arguments");
        let (_, result) = conv.results().next().expect("a result");
        assert_eq!(result.key, "a");
        assert_eq!(result.text, "Sunny");
        assert!(!result.is_error);
    }

    #[test]
    fn reads_session_rows_inside_their_string() {
        let doc = tree_json!([
            {"message_type": "ASSISTANT", "message_content": "", "message_data": "[{\"id\":\"a\",\"name\":\"w\",\"arguments\":null}]"},
            {"message_type": "TOOL", "message_content": "", "message_data": "[{\"id\":\"a\",\"name\":\"w\",\"responseData\":\"City must not be blank\"}]"}
        ]);
        assert_eq!(SpringAi.sniff(&doc), Some(90));
        let conv = &read(&doc)[0];
        let (_, call) = conv.calls().next().expect("a call");
        assert_eq!(call.arguments, Arguments::value(Json::Null));
        assert_eq!(call.args_loc.pointer, "/0/message_data");
        let (_, result) = conv.results().next().expect("a result");
        assert!(result.is_error);
        assert_eq!(result.loc.pointer, "/1/message_data");
    }

    #[test]
    fn reads_text_content_of_hand_rolled_dumps() {
        let doc = tree_json!([{"messageType": "ASSISTANT", "textContent": "Done.", "toolCalls": [], "toolResponses": []}]);
        assert_eq!(SpringAi.sniff(&doc), Some(90));
        let conv = &read(&doc)[0];
        assert!(
            matches!(conv.turns[0].items[..], [Item::Text(ref t)] if t.loc.pointer == "/0/textContent")
        );
    }

    #[test]
    fn leaves_other_formats_alone() {
        assert_eq!(
            SpringAi.sniff(&tree_json!([{"role": "user", "content": "hi"}])),
            None
        );
        assert_eq!(
            SpringAi.sniff(&tree_json!([{"type": "human", "data": {}}])),
            None
        );
        assert_eq!(
            SpringAi.sniff(&tree_json!([{"type": "USER", "content": "hi"}])),
            None
        );
    }
}
