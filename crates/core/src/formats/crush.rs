//! Charm Crush sessions (`.crush/crush.db` in the project; a SQLite store, see
//! `store/table.rs`), and the Go opencode it grew from (`.opencode/opencode.db`, same
//! initial schema; not checked against its source). Checked against `charmbracelet/crush`
//! `internal/db/migrations/20250424200609_initial.sql`, `internal/db/sql/messages.sql`
//! (`ListMessagesBySession`: `ORDER BY created_at`) and `internal/message/content.go`.
//!
//! One `messages` row per message, its `role` a column (`user`, `assistant`, `tool`,
//! `system`) and its content the `parts` JSON array of `{"type", "data"}` wrappers: `text
//! {text}`, `reasoning {thinking, signature}`, `tool_call {id, name, input, provider_executed,
//! finished}` (`input` is the argument JSON as text, streamed into it), `tool_result
//! {tool_call_id, name, content, is_error}` (in `tool` messages), `finish {reason}`,
//! `image_url`, `binary`. The store wraps each row as `{"id", "role",
//! "summary_message_id": <the session's>, "parts": [...]}`.
//!
//! What is sent (`ToAIMessage`): user text, assistant text, reasoning and calls, tool
//! results; `system` messages are not. A summarised session is sent from its
//! `summary_message_id` message on, that message as the user's. A call in the last message
//! is in flight.
//!
//! Fixes use the generic planner: an unanswered call gets a `tool_result` part in the
//! `tool` message after it, and a removed result that leaves its message empty takes the
//! row with it (an empty `tool` message is sent as a message without content, which
//! providers reject).

use serde_json::{json, Value as Json};

use super::{array_at, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain crush` prints (Markdown).
pub(super) const DOC: &str = r#"Charm Crush sessions (`.crush/crush.db` in the project; the Go opencode's `.opencode/opencode.db` has the same tables; see [docs/agents/crush.md](../agents/crush.md)): `messages.parts` with the row's `role`, one conversation per session in `created_at` order, from the session's `summary_message_id` on when it has one; `system` messages are left out; fixes edit inside rows (an error `tool_result` into the `tool` message after an unanswered call) or delete a message a removal empties"#;

pub struct Crush;

/// The key the store puts a row's `parts` under.
const PARTS: &str = "parts";

impl Dialect for Crush {
    /// A `tool_result` part put into the `tool` message that answers the call's turn; a
    /// message of its own would be a new row, which a store cannot insert between others.
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        Some(json!({
            "type": "tool_result",
            "data": {
                "tool_call_id": site.call.id.as_deref()?,
                "name": site.call.name,
                "content": text,
                "data": "",
                "mime_type": "",
                "metadata": "",
                "is_error": true,
            },
        }))
    }
}

impl Adapter for Crush {
    fn format(&self) -> Format {
        Format::Crush
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let first = docs.first().map_or(0, |d| d.base);
        let mut conv = Conversation::new(Format::Crush, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::Tool;
        // From the summary message on, when the session has one that is still there.
        let summary = docs
            .first()
            .and_then(|d| str_at(d.value, "summary_message_id"))
            .filter(|s| !s.is_empty());
        let start = summary
            .and_then(|s| docs.iter().position(|d| str_at(d.value, "id") == Some(s)))
            .unwrap_or(0);
        for (i, doc) in docs.iter().enumerate() {
            if i < start {
                conv.excluded.push(Loc::new(doc.base, "").child(PARTS));
                continue;
            }
            read_row(doc, i == start && start > 0, &mut conv);
        }
        Ok(vec![conv])
    }
}

fn read_row(doc: &Doc<'_>, as_user: bool, conv: &mut Conversation) {
    let at = Loc::new(doc.base, "");
    let role = match str_at(doc.value, "role") {
        _ if as_user => Role::User,
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("tool") => Role::Tool,
        // `system` messages are not sent.
        _ => {
            conv.excluded.push(at.child(PARTS));
            return;
        }
    };
    let Some(parts) = array_at(doc.value, PARTS) else {
        return;
    };
    let base = at.child(PARTS);
    for (i, part) in parts.iter().enumerate() {
        let loc = base.child(i);
        let Some(data) = part.get("data") else {
            continue;
        };
        let item = match (str_at(part, "type"), role) {
            (Some("text"), _) => Item::Text(Text {
                loc,
                message: at.clone(),
            }),
            (Some("reasoning"), Role::Assistant) => Item::Thinking(Text {
                loc,
                message: at.clone(),
            }),
            (Some("tool_call"), Role::Assistant) => Item::Call(tool_call(data, loc, &at)),
            (Some("tool_result"), Role::Tool) => Item::Result(tool_result(data, loc, &at)),
            _ => continue,
        };
        conv.push(role, &at, item);
    }
}

/// A `tool_call` part: its `input` is the argument text as streamed.
fn tool_call(data: &Tree, loc: Loc, at: &Loc) -> ToolCall {
    let id = str_at(data, "id").map(str::to_string);
    let (arguments, args_loc) = match str_at(data, "input") {
        Some(input) => (
            Arguments::Encoded(input.to_string()),
            loc.child(("data", "input")),
        ),
        None => (Arguments::Absent, loc.clone()),
    };
    let provider = data.get("provider_executed").and_then(Tree::as_bool) == Some(true);
    ToolCall {
        key: pairing_key(id.as_deref(), &loc),
        id,
        name: str_at(data, "name").unwrap_or_default().to_string(),
        kind: if provider {
            CallKind::ProviderExecuted
        } else {
            CallKind::Function
        },
        arguments,
        args_loc,
        loc,
        message: at.clone(),
    }
}

fn tool_result(data: &Tree, loc: Loc, at: &Loc) -> ToolResult {
    let id = str_at(data, "tool_call_id").map(str::to_string);
    ToolResult {
        key: pairing_key(id.as_deref(), &loc),
        call_id: id,
        name: str_at(data, "name").map(str::to_string),
        is_error: data.get("is_error").and_then(Tree::as_bool) == Some(true),
        text: data.get("content").map(result_text).unwrap_or_default(),
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
        crate::formats::adapter::read_rows(&Crush, rows)
    }

    #[test]
    fn a_summarised_session_starts_at_its_summary() {
        let conv = read(&[
            r#"{"id":"m1","role":"user","summary_message_id":"m3","parts":[{"type":"text","data":{"text":"old"}}]}"#,
            r#"{"id":"m2","role":"assistant","summary_message_id":"m3","parts":[{"type":"tool_call","data":{"id":"c1","name":"ls","input":"{}","finished":true}}]}"#,
            r#"{"id":"m3","role":"assistant","summary_message_id":"m3","parts":[{"type":"text","data":{"text":"summary"}}]}"#,
            r#"{"id":"m4","role":"tool","summary_message_id":"m3","parts":[{"type":"tool_result","data":{"tool_call_id":"c9","content":"x","is_error":false}}]}"#,
        ]);
        let excluded: Vec<usize> = conv.excluded.iter().map(|l| l.base).collect();
        assert_eq!(excluded, [0, 1]);
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::User, Role::Tool]);
        assert_eq!(conv.calls().count(), 0);
    }
}
