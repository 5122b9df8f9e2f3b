//! Goose sessions (`~/.local/share/goose/sessions/sessions.db`, a SQLite store; see
//! `store/table.rs`): one row of `messages` per message, read back by
//! `(created_timestamp, id)` (`session/session_manager.rs`).
//!
//! The store wraps each row as `{"role": …, "metadata": <metadata_json>, "content_json":
//! [items]}`: the role and the visibility flags are columns, the items are Goose's
//! `MessageContent` (`conversation/message.rs`, camelCase, tagged by `type`): `text`,
//! `image`, `thinking`, `redactedThinking`, `toolRequest {id, toolCall}`, `toolResponse {id,
//! toolResult}`, `frontendToolRequest {id, toolCall}` (a tool the UI runs, answered the same
//! way), and UI-only items (`toolConfirmationRequest`, `actionRequired`,
//! `systemNotification`). `toolCall` is `{"status":"success","value":{name, arguments}}` or
//! `{"status":"error","error":"…"}` (a call the model wrote that Goose could not parse,
//! which is not sent: `fix_conversation` pairs its answer with it and keeps it, so that answer
//! is an orphan Goose does not drop);
//! `toolResult` is `{"status":"success","value":{content, isError?}}` (an MCP
//! `CallToolResult`) or `{"status":"error","error":"…"}`.
//!
//! Only messages whose `metadata.agentVisible` is not `false` are sent to the model
//! (compaction hides older ones and adds an agent-only summary): the others are listed as
//! excluded. Goose replays to whichever provider the session uses, so the session is held
//! to the rules every provider shares. Before sending, Goose's `fix_conversation` drops
//! orphaned requests and responses, so current Goose resumes a session with such defects;
//! the conversation says so (`repaired_pairing`) and they are reported as warnings. A call
//! in the last message is in flight, not unanswered.

use serde_json::{json, Value as Json};

use super::{array_at, str_at, Adapter, CallSite, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain goose` prints (Markdown).
pub(super) const DOC: &str = r#"Goose sessions (`~/.local/share/goose/sessions/sessions.db` on Linux and macOS, `$GOOSE_PATH_ROOT/data/sessions/` when set; see [docs/agents/goose.md](../agents/goose.md)): `messages.content_json` with the row's `role` and `metadata_json`, one conversation per `session_id` in `(created_timestamp, id)` order; messages not `agentVisible` are left out; pairing defects are warnings (Goose drops them before sending); fixes edit inside rows only"#;

pub struct Goose;

/// The key the store puts a row's `content_json` under.
const CONTENT: &str = "content_json";

impl Dialect for Goose {
    /// A `toolResponse` item with an error result, put into the next user message's content
    /// (Goose answers calls there); never a message of its own, which a store cannot insert
    /// between rows.
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        Some(json!({
            "type": "toolResponse",
            "id": site.call.id.as_deref()?,
            "toolResult": {"status": "error", "error": text},
        }))
    }
}

impl Adapter for Goose {
    fn format(&self) -> Format {
        Format::Goose
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let first = docs.first().map_or(0, |d| d.base);
        let mut conv = Conversation::new(Format::Goose, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::User;
        conv.repaired_pairing = true;
        let mut unsent = std::collections::HashSet::new();
        for doc in docs {
            read_row(doc, &mut conv, &mut unsent);
        }
        Ok(vec![conv])
    }

    /// A removed item leaves its message's row in place, `content_json: []` if nothing else
    /// is in it (Goose sends no empty message): a fix keeps the rows, their ids and their
    /// order as they are.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        match super::removal(intent) {
            Some((node, message)) if node != message => super::remove_only(cx, node),
            _ => Planned::Generic,
        }
    }
}

/// Whether a row's message is sent to the model: `metadata.agentVisible` unless `false`.
fn agent_visible(row: &Tree) -> bool {
    row.get("metadata")
        .and_then(|m| m.get("agentVisible"))
        .and_then(Tree::as_bool)
        .unwrap_or(true)
}

/// Reads one row; `unsent` gathers the ids of requests Goose could not parse, whose
/// responses its own repair keeps (it pairs them) but no call is sent for.
fn read_row<'a>(
    doc: &Doc<'a>,
    conv: &mut Conversation,
    unsent: &mut std::collections::HashSet<&'a str>,
) {
    let at = Loc::new(doc.base, "");
    let row = doc.value;
    if !agent_visible(row) {
        // The column, not the row: what is inside is then accounted for (the guard
        // counts a node's descendants from its first key down).
        conv.excluded.push(at.child(CONTENT));
        return;
    }
    let role = match str_at(row, "role") {
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        // Goose writes no other role; an unknown one is not sent.
        _ => {
            conv.excluded.push(at.child(CONTENT));
            return;
        }
    };
    let Some(items) = array_at(row, CONTENT) else {
        return;
    };
    let content = at.child(CONTENT);
    for (i, item) in items.iter().enumerate() {
        let loc = content.child(i);
        let read = match str_at(item, "type") {
            Some("text") => Item::Text(Text {
                loc,
                message: at.clone(),
            }),
            Some("thinking" | "redactedThinking") => Item::Thinking(Text {
                loc,
                message: at.clone(),
            }),
            // A call Goose could not parse (`toolCall.status: "error"`) is not sent: the
            // providers' `format_messages` skip it (`providers/formats/anthropic.rs`).
            Some("toolRequest" | "frontendToolRequest") if !is_sent(item) => {
                unsent.extend(str_at(item, "id"));
                conv.excluded.push(loc);
                continue;
            }
            Some("toolResponse") if str_at(item, "id").is_some_and(|id| unsent.contains(id)) => {
                conv.kept_unpaired.push(loc.clone());
                Item::Result(tool_result(item, loc, &at))
            }
            Some("toolRequest" | "frontendToolRequest") => Item::Call(tool_call(item, loc, &at)),
            Some("toolResponse") => Item::Result(tool_result(item, loc, &at)),
            _ => continue,
        };
        conv.push(role, &at, read);
    }
}

/// Whether a `toolRequest` is sent to the model: its `toolCall` is not an error.
fn is_sent(item: &Tree) -> bool {
    item.get("toolCall").and_then(|c| str_at(c, "status")) != Some("error")
}

/// A `toolRequest`: its name and arguments under `toolCall.value`.
fn tool_call(item: &Tree, loc: Loc, at: &Loc) -> ToolCall {
    let id = str_at(item, "id").map(str::to_string);
    let call = item.get("toolCall");
    let value = call.and_then(|c| c.get("value"));
    let name = value.and_then(|v| str_at(v, "name")).unwrap_or_default();
    let (arguments, args_loc) = match value.and_then(|v| v.get("arguments")) {
        Some(args) => (
            Arguments::value(args.to_serde()),
            loc.child(("toolCall", "value")).child("arguments"),
        ),
        None => (Arguments::Absent, loc.clone()),
    };
    ToolCall {
        key: pairing_key(id.as_deref(), &loc),
        id,
        name: name.to_string(),
        kind: CallKind::Function,
        arguments,
        args_loc,
        loc,
        message: at.clone(),
    }
}

/// A `toolResponse`: an error when `toolResult.status` is `error` or its value says
/// `isError`.
fn tool_result(item: &Tree, loc: Loc, at: &Loc) -> ToolResult {
    let id = str_at(item, "id").map(str::to_string);
    let result = item.get("toolResult");
    let failed = result.and_then(|r| str_at(r, "status")) == Some("error");
    let value = result.and_then(|r| r.get("value"));
    let is_error = failed
        || value
            .and_then(|v| v.get("isError"))
            .and_then(Tree::as_bool)
            .unwrap_or(false);
    let text = if failed {
        result.and_then(|r| r.get("error")).map(result_text)
    } else {
        value.and_then(|v| v.get("content")).map(result_text)
    };
    ToolResult {
        key: pairing_key(id.as_deref(), &loc),
        call_id: id,
        name: None,
        is_error,
        text: text.unwrap_or_default(),
        provider_executed: false,
        id_field: None,
        loc,
        message: at.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rows: &[&'static str]) -> Conversation {
        crate::formats::adapter::read_rows(&Goose, rows)
    }

    #[test]
    fn hidden_messages_are_excluded_and_roles_come_from_the_wrapper() {
        let conv = read(&[
            r#"{"role":"user","metadata":{"userVisible":true,"agentVisible":false},"content_json":[{"type":"text","text":"old"}]}"#,
            r#"{"role":"user","metadata":null,"content_json":[{"type":"text","text":"hi"}]}"#,
            r#"{"role":"assistant","metadata":{"agentVisible":true},"content_json":[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"shell","arguments":{"command":"ls"}}}}]}"#,
            r#"{"role":"user","metadata":{},"content_json":[{"type":"toolResponse","id":"t1","toolResult":{"status":"error","error":"boom"}}]}"#,
        ]);
        assert_eq!(conv.excluded, [Loc::new(0, "/content_json")]);
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
        let (_, call) = conv.calls().next().expect("call");
        assert_eq!(call.name, "shell");
        assert_eq!(
            call.args_loc.pointer,
            "/content_json/0/toolCall/value/arguments"
        );
        let (_, result) = conv.results().next().expect("result");
        assert!(result.is_error);
        assert_eq!(result.text, "boom");
        assert!(conv.repaired_pairing);
    }

    #[test]
    fn a_call_goose_could_not_parse_is_not_sent() {
        let conv = read(&[
            r#"{"role":"assistant","content_json":[{"type":"text","text":"x"},{"type":"toolRequest","id":"t1","toolCall":{"status":"error","error":"bad json"}}]}"#,
        ]);
        assert_eq!(conv.calls().count(), 0);
        assert_eq!(conv.excluded, [Loc::new(0, "/content_json/1")]);
    }
}
