//! opencode ≥ 1.2 sessions, also Kilo ≥ 7.2.21 (`~/.local/share/opencode/opencode.db`,
//! `~/.local/share/kilo/kilo.db`; a SQLite store, see `store/table.rs`). Checked against
//! `packages/opencode/src/session/session.sql.ts` and `session/message-v2.ts`.
//!
//! A session is its `message` rows by `(time_created, id)`, each with its `part` rows by
//! `id`. The store reads one line per part, wrapped as `{"message_id": …, "message":
//! <message data>, "data": <part data>}`: the message's `role`, `error`, `summary`,
//! `finish` and `parentID` live on the message, the content on its parts (`text`,
//! `reasoning`, `tool`, `step-start`, `compaction`, …). A message without parts sends
//! nothing and has no line.
//!
//! One `tool` part is a call and its result: `{callID, tool, state}`, `state.status`
//! `pending` (`input`, `raw`: the argument text streamed so far), `running`, `completed`
//! (`output`) or `error` (`error`). What is sent is rebuilt as `toModelMessages` does:
//! assistants that ended in an error are skipped (an aborted one with real parts is kept),
//! each assistant message is split at its `step-start` parts into calls and the results
//! after them (the AI SDK's `convertToModelMessages`), and `filterCompacted` cuts the
//! history at the newest user message holding a `compaction` part that a finished summary
//! answered (back to its `tail_start_id` when set): what is before is excluded.
//!
//! A `pending` or `running` part outside the last message is a call left without a result.
//! Current opencode answers it itself with "[Tool execution was interrupted]"; older
//! versions sent it bare (anomalyco/opencode#10616), so the conversation is marked
//! `repaired_pairing`. The fix gives the part the `error` state opencode itself writes, one
//! edit of that part's row that keeps its `input`.

use std::collections::HashSet;

use serde_json::{json, Value as Json};

use super::{str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::json_edit;
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain opencode` prints (Markdown).
pub(super) const DOC: &str = r#"opencode ≥ 1.2 and Kilo ≥ 7.2.21 sessions (`~/.local/share/opencode/opencode.db` on every OS, `$XDG_DATA_HOME/opencode/`, `OPENCODE_DB`; Kilo `~/.local/share/kilo/kilo.db`; see [docs/agents/opencode.md](../agents/opencode.md)): `part.data` with its `message.data`, one conversation per session, messages in `(time_created, id)` order and their parts by `id`; a `tool` part is a call and its result; messages before the last completed compaction and assistants that ended in an error are left out; a `pending`/`running` part outside the last message is an unanswered call (a warning: current opencode answers it itself), fixed by giving it the `error` state"#;

pub struct Opencode;

/// The key the store puts a part's `data` under.
const DATA: &str = "data";

/// The error opencode's own `toModelMessages` sends for a part left pending or running.
const INTERRUPTED: &str = "[Tool execution was interrupted] (recorded by toolcheck)";

impl Dialect for Opencode {}

impl Adapter for Opencode {
    fn format(&self) -> Format {
        Format::Opencode
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let first = docs.first().map_or(0, |d| d.base);
        let mut conv = Conversation::new(Format::Opencode, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::Tool;
        conv.repaired_pairing = true;
        let messages = group(docs);
        let from = boundary(&messages);
        for (i, message) in messages.iter().enumerate() {
            if i < from || !sent(message) {
                conv.excluded.extend(
                    message
                        .parts
                        .iter()
                        .map(|p| Loc::new(p.base, "").child(DATA)),
                );
                continue;
            }
            read_message(message, &mut conv);
        }
        Ok(vec![conv])
    }

    /// A part left pending or running gets the `error` state, keeping its `input`: opencode
    /// then sends the call with that error as its result. Other repairs would add or move
    /// parts, which a store cannot do in place.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        match intent {
            FixIntent::InsertResult { call, .. } => match interrupted(cx, &call.loc) {
                Some(edit) => Planned::Edits(vec![edit]),
                None => Planned::Unsupported,
            },
            FixIntent::Replace { .. } => Planned::Generic,
            _ => Planned::Unsupported,
        }
    }
}

/// The edit that turns the stale tool part at `part` (its `data`) into an errored one.
fn interrupted(cx: &EditContext<'_>, part: &Loc) -> Option<Edit> {
    let data = cx.parse_at(part)?;
    let state = data.get("state")?;
    if !matches!(str_at(state, "status"), Some("pending" | "running")) {
        return None;
    }
    let input = state
        .get("input")
        .filter(|i| i.is_object())
        .map_or_else(|| json!({}), Tree::to_serde);
    // When it started, else when its message was created (a pending part has no time).
    let row = cx.value_at(&Loc::new(part.base, ""));
    let created = row
        .as_deref()
        .and_then(|r| r.get("message")?.get("time")?.get("created"))
        .map(Tree::to_serde);
    let start = state
        .get("time")
        .and_then(|t| t.get("start"))
        .map(Tree::to_serde)
        .or(created)
        .unwrap_or(Json::from(0));
    let errored = json!({
        "status": "error",
        "input": input,
        "error": INTERRUPTED,
        "time": {"start": start, "end": start},
    });
    let rendered = json_edit::render(&errored, &json_edit::Style::Compact { spaced: false });
    let state = part.child("state");
    json_edit::replace_value(&cx.source.text, state.base, &state.pointer, rendered)
}

/// One message and its parts, as the store read them.
struct Message<'d, 'a> {
    id: &'a str,
    info: Option<&'d Tree<'a>>,
    parts: Vec<&'d Doc<'a>>,
}

impl Message<'_, '_> {
    fn role(&self) -> Option<&str> {
        self.info.and_then(|i| str_at(i, "role"))
    }

    fn part_types(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .filter_map(|p| p.value.get(DATA).and_then(|d| str_at(d, "type")))
    }
}

/// The parts grouped by message, in the store's order.
fn group<'d, 'a>(docs: &'d [Doc<'a>]) -> Vec<Message<'d, 'a>> {
    let mut out: Vec<Message<'d, 'a>> = Vec::new();
    for doc in docs {
        let id = str_at(doc.value, "message_id").unwrap_or_default();
        match out.last_mut() {
            Some(last) if last.id == id => last.parts.push(doc),
            _ => out.push(Message {
                id,
                info: doc.value.get("message").filter(|m| m.is_object()),
                parts: vec![doc],
            }),
        }
    }
    out
}

/// Where the history sent starts (`filterCompacted`): newest first, the first user message
/// holding a `compaction` part that a finished summary after it answered (`parentID`), or
/// the message its `tail_start_id` names.
fn boundary(messages: &[Message<'_, '_>]) -> usize {
    let mut completed: HashSet<&str> = HashSet::new();
    for (i, message) in messages.iter().enumerate().rev() {
        let Some(info) = message.info else { continue };
        match message.role() {
            Some("user") if completed.contains(message.id) => {
                let Some(compaction) = message
                    .parts
                    .iter()
                    .filter_map(|p| p.value.get(DATA))
                    .find(|d| str_at(d, "type") == Some("compaction"))
                else {
                    continue;
                };
                let tail = str_at(compaction, "tail_start_id");
                return tail
                    .and_then(|t| messages.get(..i)?.iter().rposition(|m| m.id == t))
                    .unwrap_or(i);
            }
            Some("assistant") => {
                let finished = info.get("summary").and_then(Tree::as_bool) == Some(true)
                    && info.get("finish").is_some_and(|f| !f.is_null())
                    && info.get("error").is_none_or(Tree::is_null);
                if let Some(parent) = str_at(info, "parentID").filter(|_| finished) {
                    completed.insert(parent);
                }
            }
            _ => {}
        }
    }
    0
}

/// Whether a message is sent: an assistant that ended in an error is not, unless it was
/// aborted after producing more than step markers and reasoning.
fn sent(message: &Message<'_, '_>) -> bool {
    let Some(info) = message.info else {
        return false;
    };
    let Some(error) = info.get("error").filter(|e| !e.is_null()) else {
        return true;
    };
    message.role() != Some("assistant")
        || (str_at(error, "name") == Some("MessageAbortedError")
            && message
                .part_types()
                .any(|t| t != "step-start" && t != "reasoning"))
}

fn read_message(message: &Message<'_, '_>, conv: &mut Conversation) {
    let role = match message.role() {
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        _ => {
            conv.excluded.extend(
                message
                    .parts
                    .iter()
                    .map(|p| Loc::new(p.base, "").child(DATA)),
            );
            return;
        }
    };
    let mut results: Vec<ToolResult> = Vec::new();
    for doc in &message.parts {
        let at = Loc::new(doc.base, "");
        let loc = at.child(DATA);
        let Some(part) = doc.value.get(DATA) else {
            continue;
        };
        let kind = str_at(part, "type");
        let text = match kind {
            Some("text") => part.get("ignored").and_then(Tree::as_bool) != Some(true),
            // Sent as user text ("What did we do so far?", "The following tool was executed
            // by the user").
            Some("compaction" | "subtask") => role == Role::User,
            _ => false,
        };
        if text {
            let text = Text {
                loc,
                message: at.clone(),
            };
            conv.push(role, &at, Item::Text(text));
            continue;
        }
        match kind {
            Some("reasoning") if role == Role::Assistant => {
                conv.push(
                    role,
                    &at,
                    Item::Thinking(Text {
                        loc,
                        message: at.clone(),
                    }),
                );
            }
            // A new step: the results of the calls before it are sent first.
            Some("step-start") => flush(conv, &mut results),
            Some("tool") if role == Role::Assistant => {
                let (call, result) = tool_part(part, loc, &at);
                let provider = call.kind == CallKind::ProviderExecuted;
                conv.push(role, &at, Item::Call(call));
                match result {
                    Some(result) if provider => conv.push(role, &at, Item::Result(result)),
                    Some(result) => results.push(result),
                    None => {}
                }
            }
            _ => {}
        }
    }
    flush(conv, &mut results);
}

/// Sends the results gathered so far, as the tool message after the calls.
fn flush(conv: &mut Conversation, results: &mut Vec<ToolResult>) {
    for result in results.drain(..) {
        let at = result.message.clone();
        conv.push(Role::Tool, &at, Item::Result(result));
    }
}

/// A `tool` part: the call, and its result once it completed or failed. A pending part's
/// `raw` text, when it is not JSON, is the argument text cut off.
fn tool_part(part: &Tree, loc: Loc, at: &Loc) -> (ToolCall, Option<ToolResult>) {
    let id = str_at(part, "callID").map(str::to_string);
    let state = part.get("state");
    let status = state.and_then(|s| str_at(s, "status"));
    let state_loc = loc.child("state");
    let raw = state
        .and_then(|s| str_at(s, "raw"))
        .filter(|r| !r.trim().is_empty() && crate::json::parse_value(r).is_err());
    let (arguments, args_loc) = match (raw, state.and_then(|s| s.get("input"))) {
        (Some(raw), _) => (Arguments::Encoded(raw.to_string()), state_loc.child("raw")),
        (None, Some(input)) => (Arguments::value(input.to_serde()), state_loc.child("input")),
        (None, None) => (Arguments::Absent, loc.clone()),
    };
    let provider = part
        .get("metadata")
        .and_then(|m| m.get("providerExecuted"))
        .and_then(Tree::as_bool)
        == Some(true);
    let key = pairing_key(id.as_deref(), &loc);
    let result = match status {
        Some("completed") => Some((false, state.and_then(|s| s.get("output")))),
        Some("error") => Some((true, state.and_then(|s| s.get("error")))),
        _ => None,
    }
    .map(|(is_error, text)| ToolResult {
        call_id: id.clone(),
        key: key.clone(),
        name: str_at(part, "tool").map(str::to_string),
        is_error,
        text: text.map(result_text).unwrap_or_default(),
        provider_executed: provider,
        id_field: None,
        loc: state_loc.clone(),
        message: at.clone(),
    });
    let call = ToolCall {
        key,
        id,
        name: str_at(part, "tool").unwrap_or_default().to_string(),
        kind: if provider {
            CallKind::ProviderExecuted
        } else {
            CallKind::Function
        },
        arguments,
        args_loc,
        loc,
        message: at.clone(),
    };
    (call, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rows: &[&'static str]) -> Conversation {
        crate::formats::adapter::read_rows(&Opencode, rows)
    }

    const USER: &str =
        r#"{"message_id":"msg_1","message":{"role":"user"},"data":{"type":"text","text":"hi"}}"#;

    #[test]
    fn steps_split_calls_from_their_results() {
        let conv = read(&[
            USER,
            r#"{"message_id":"msg_2","message":{"role":"assistant"},"data":{"type":"step-start"}}"#,
            r#"{"message_id":"msg_2","message":{"role":"assistant"},"data":{"type":"tool","callID":"c1","tool":"read","state":{"status":"completed","input":{"filePath":"a"},"output":"x"}}}"#,
            r#"{"message_id":"msg_2","message":{"role":"assistant"},"data":{"type":"step-start"}}"#,
            r#"{"message_id":"msg_2","message":{"role":"assistant"},"data":{"type":"tool","callID":"c2","tool":"read","state":{"status":"error","input":{},"error":"no file"}}}"#,
        ]);
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::Tool
            ]
        );
        let (_, failed) = conv.results().nth(1).expect("second result");
        assert!(failed.is_error);
        assert_eq!(failed.loc.pointer, "/data/state");
    }

    #[test]
    fn compacted_and_errored_messages_are_excluded() {
        let conv = read(&[
            USER,
            r#"{"message_id":"msg_3","message":{"role":"user"},"data":{"type":"compaction","auto":true}}"#,
            r#"{"message_id":"msg_4","message":{"role":"assistant","summary":true,"finish":"stop","parentID":"msg_3"},"data":{"type":"text","text":"summary"}}"#,
            r#"{"message_id":"msg_5","message":{"role":"assistant","error":{"name":"APIError","data":{}}},"data":{"type":"tool","callID":"c9","tool":"x","state":{"status":"running","input":{}}}}"#,
        ]);
        let excluded: Vec<usize> = conv.excluded.iter().map(|l| l.base).collect();
        assert_eq!(excluded, [0, 3]);
        assert_eq!(conv.calls().count(), 0);
    }

    #[test]
    fn cut_off_raw_arguments_are_what_is_judged() {
        let conv = read(&[
            USER,
            r#"{"message_id":"msg_2","message":{"role":"assistant"},"data":{"type":"tool","callID":"c1","tool":"write","state":{"status":"pending","input":{},"raw":"{\"filePath\":\"/tm"}}}"#,
        ]);
        let (_, call) = conv.calls().next().expect("call");
        assert_eq!(
            call.arguments,
            Arguments::Encoded("{\"filePath\":\"/tm".into())
        );
        assert_eq!(conv.results().count(), 0);
    }
}
