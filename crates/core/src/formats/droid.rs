//! Factory Droid sessions: `~/.factory/sessions/<cwd with / as ->/<id>.jsonl`.
//!
//! The first record is `{"type": "session_start", id, title, owner, version: 2, cwd, hostId}`
//! (the session schema's version, not Droid's); then `message` records `{id, parentId,
//! timestamp, message: {role, content}}` whose content is Anthropic-shaped blocks (`text`,
//! `thinking`, `tool_use`, `tool_result`), each tool result a user message of its own, written
//! on either provider wire; `agent_turn_outcome`, `todo_state` and `compaction_state` records
//! are bookkeeping. The file grows in order, each message hanging from the one before.
//!
//! A killed tool leaves its `tool_use` without a result. On resume Droid answers it in
//! memory only, with "Error: Tool execution was cancelled" (`validateToolUsePairing`), and
//! leaves out results whose call is gone (see `replay/droid.rs`). Droid reaches whichever
//! provider its model uses (Factory's proxy or a custom model), so sessions are held to the
//! rules every provider shares. Fixes keep the `parentId` chain whole: a failed
//! `tool_result` message inserted after an unanswered call, a stray result's message removed
//! when that result is all it holds.

use serde_json::{json, Value as Json};

use super::anthropic::push_message;
use super::links::{self, IdParent};
use super::adapter::{read_in_order_by, InOrder};
use super::{blocks, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::transcript::{Conversation, Loc, Mark, Pairing, Role};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain droid` prints (Markdown).
pub(super) const DOC: &str = r#"Factory Droid sessions (`~/.factory/sessions/<cwd with / as ->/<id>.jsonl`): a `session_start` header (its `version` is the schema's), then `message` records `{id, parentId, timestamp, message: {role, content}}` with Anthropic-shaped blocks, each tool result a user message of its own; `agent_turn_outcome`, `todo_state` and `compaction_state` records are bookkeeping; held to the rules every provider shares (the session does not name its provider); Droid answers an unanswered call with "Error: Tool execution was cancelled" and drops a stray result on resume, so both are warnings; fixes keep the `parentId` chain whole: a failed `tool_result` message inserted after an unanswered call, a stray result's message removed"#;

pub struct Droid;

/// Fields only Droid puts on a message record's `message`.
const MESSAGE_MARKS: [&str; 5] = [
    "interactionMode",
    "visibility",
    "modelId",
    "reasoningEffort",
    "openaiMessageId",
];

impl Dialect for Droid {}

impl Adapter for Droid {
    fn format(&self) -> Format {
        Format::Droid
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        match str_at(record, "type")? {
            "session_start" => {
                let header = str_at(record, "id").is_some()
                    && (record.get("hostId").is_some() || record.get("owner").is_some());
                header.then_some(90)
            }
            "agent_turn_outcome" => record.get("turnId").is_some().then_some(90),
            "todo_state" => record.get("messageIndex").is_some().then_some(80),
            "compaction_state" => record.get("summaryText").is_some().then_some(80),
            "message" => {
                let message = record.get("message")?;
                let marked = MESSAGE_MARKS.iter().any(|k| message.get(k).is_some())
                    || str_at(record, "id").is_some_and(|id| id.starts_with("context-"))
                    || blocks(message).iter().any(|b| {
                        matches!(str_at(b, "type"), Some("tool_use" | "tool_result"))
                    });
                // An unmarked linked message is pi's as much as Droid's: pi's own records
                // outvote it.
                Some(if marked { 60 } else { 45 })
            }
            _ => None,
        }
    }

    read_in_order_by!(Session);

    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Unsupported;
        }
        let planned = match intent {
            FixIntent::InsertResult { call, after, .. } => insert_result(cx, call, after),
            // A result that is its message's only block: the whole line goes.
            FixIntent::RemoveResult { result, message }
                if result.base == message.base
                    && message.pointer == "/message"
                    && result.pointer == "/message/content/0"
                    && only_block(cx, message.base) =>
            {
                links::remove_line::<IdParent>(cx, &Loc::new(message.base, ""))
            }
            _ => None,
        };
        links::planned(planned)
    }
}

/// A session as read so far.
struct Session {
    conv: Conversation,
    /// Whether a `session_start` record was read.
    started: bool,
}

impl InOrder for Session {
    fn new(first: usize) -> Self {
        let mut conv = Conversation::new(Format::Droid, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::User;
        conv.resumable = true;
        Session {
            conv,
            started: false,
        }
    }

    fn read(&mut self, doc: Doc<'_>) -> Mark {
        let mark = self.conv.mark();
        let record = doc.value;
        match str_at(record, "type") {
            Some("session_start") => self.started = true,
            Some("message") => {
                let Some(message) = record.get("message") else {
                    return mark;
                };
                let role = match str_at(message, "role") {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    Some("system") => Role::System,
                    _ => return mark,
                };
                push_message(&mut self.conv, role, message, &Loc::new(doc.base, "/message"));
            }
            // `agent_turn_outcome`, `todo_state`, `compaction_state`: bookkeeping.
            _ => {}
        }
        mark
    }

    fn conversation(&self) -> &Conversation {
        &self.conv
    }

    fn finish(self, any: bool) -> Result<Vec<Conversation>, String> {
        if !self.started && any {
            // Droid refuses such a file: "Invalid session file: missing session_start event".
            return Err("expected a Factory Droid session, which opens with a `session_start` record".into());
        }
        Ok(vec![self.conv])
    }
}

/// Whether the message of the record at `base` holds one content block.
fn only_block(cx: &EditContext<'_>, base: usize) -> bool {
    links::record(cx, base)
        .and_then(|r| r.pointer("/message/content").and_then(Json::as_array).map(Vec::len))
        == Some(1)
}

/// What the inserted result says.
const NEVER_RETURNED: &str = "Error: no result was recorded for this call; it may or may not have run, so check its effects before relying on it or running it again (inserted by toolcheck)";

/// A user message holding a failed `tool_result` for `call`, after its assistant's line and
/// hanging from it; what hung from the assistant hangs from the new line.
fn insert_result(
    cx: &EditContext<'_>,
    call: &crate::transcript::ToolCall,
    after: &Loc,
) -> Option<Vec<Edit>> {
    let call_id = call.id.as_deref()?;
    if call.message.pointer != "/message" || call.message.base != after.base {
        return None;
    }
    links::insert_message_line(cx, after, call_id, 36, |_| {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "is_error": true, "content": NEVER_RETURNED}]})
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{one_conversation, session_docs};
    use crate::transcript::Item;
    use crate::tree_json;

    #[test]
    fn droid_records_sniff_and_plain_messages_defer_to_pi() {
        let start = tree_json!({"type": "session_start", "id": "s", "title": "t", "owner": "unknown", "version": 2, "cwd": "/w", "hostId": "h"});
        assert_eq!(Droid.sniff_record(&start), Some(90));
        let plain = tree_json!({"type": "message", "id": "a", "parentId": "b", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}});
        assert_eq!(Droid.sniff_record(&plain), Some(45));
        assert_eq!(
            Droid.sniff_record(&tree_json!({"type": "session", "id": "s", "cwd": "/w"})),
            None
        );
    }

    #[test]
    fn tool_results_pair_with_their_calls() {
        let records = [
            tree_json!({"type": "session_start", "id": "s", "owner": "unknown", "version": 2, "cwd": "/w"}),
            tree_json!({"type": "message", "id": "u1", "message": {"role": "user", "content": [{"type": "text", "text": "run it"}], "interactionMode": "auto"}}),
            tree_json!({"type": "message", "id": "a1", "parentId": "u1", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Execute", "input": {"command": "ls"}}], "modelId": "m"}}),
            tree_json!({"type": "message", "id": "r1", "parentId": "a1", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": "a\n"}]}}),
            tree_json!({"type": "agent_turn_outcome", "turnId": "t", "reason": "completed"}),
        ];
        let conv = one_conversation(&Droid, &records);
        let results: Vec<_> = conv
            .turns
            .iter()
            .flat_map(|t| &t.items)
            .filter_map(|i| match i {
                Item::Result(r) => r.call_id.as_deref(),
                _ => None,
            })
            .collect();
        assert_eq!(results, ["toolu_1"]);
    }

    #[test]
    fn a_file_without_its_header_is_not_droid() {
        let records = [tree_json!({"type": "message", "id": "u1", "message": {"role": "user", "content": "hi"}})];
        let docs = session_docs(&records);
        assert!(Droid.normalise(&docs).is_err());
    }
}
