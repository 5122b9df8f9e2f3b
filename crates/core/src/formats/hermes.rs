//! Hermes Agent sessions: the `messages` rows of `~/.hermes/state.db` (`hermes_state.py`),
//! one message per row, read back by `id` (`get_messages_as_conversation`; `timestamp` is not
//! monotonic). The store layer (`store/table.rs`) gives each row as
//! `{"role", "content", "tool_call_id", "tool_name", "reasoning_content", "reasoning",
//! "tool_calls"}`: `content` text (list content as `"\u0000json:" + JSON`), `tool_calls` the
//! OpenAI-shaped calls (`{id, call_id, response_item_id, type, function: {name, arguments}}`)
//! or `null`; a `tool` row answers its `tool_call_id`.
//!
//! On resume Hermes repairs the history in memory and never writes the repair back
//! (`repair_message_sequence` on load; `sanitize_api_messages` before every request): results
//! whose call is gone are dropped, and an unanswered call gets a stub result "[Result
//! unavailable — see context summary above]" (see `replay/hermes.rs`). It sends the OpenAI
//! Chat Completions wire to whichever provider the session uses (the provider is not in the
//! rows), so sessions are held to the rules every provider shares. A row cannot be inserted
//! between others, so an unanswered call gets no fix here; a stray result row is removed.

use super::openai_chat::{push_tool_calls, tool_record_result};
use super::{str_at, Adapter, Dialect, Doc, Format};
use crate::transcript::{Conversation, Item, Loc, Pairing, Role, Text, ToolResult};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain hermes` prints (Markdown).
pub(super) const DOC: &str = r#"Hermes Agent's `~/.hermes/state.db` (schemas 11–22, Hermes 0.13.0–0.19.0): one message per `messages` row, read back by `id`, only `active = 1` rows where the column exists (compaction and rewinds clear it); `tool_calls` OpenAI-shaped JSON (NULL on rows without calls), a `tool` row answers its `tool_call_id`, `reasoning`/`reasoning_content` columns are reasoning, a terminal result with a non-zero `exit_code` or an `error` fails; held to the rules every provider shares (the rows do not name the provider); Hermes answers an unanswered call with "[Result unavailable — see context summary above]" and drops a stray result on resume, so both are warnings; a stray result row is deleted, an unanswered call gets no fix (a row cannot be inserted between others)"#;

pub struct Hermes;

/// How Hermes marks list content stored in the text column (`_encode_content`).
const JSON_CONTENT: &str = "\u{0}json:";

impl Dialect for Hermes {}

impl Adapter for Hermes {
    fn format(&self) -> Format {
        Format::Hermes
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let first = docs.first().map_or(0, |d| d.base);
        let mut conv = Conversation::new(Format::Hermes, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::Tool;
        conv.resumable = true;
        for doc in docs {
            let record = doc.value;
            let mloc = Loc::new(doc.base, "");
            let role = match str_at(record, "role") {
                Some("system" | "developer") => Role::System,
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                Some("tool" | "function") => Role::Tool,
                // Hermes drops other roles before sending (`sanitize_api_messages`).
                _ => {
                    conv.excluded.push(mloc);
                    continue;
                }
            };
            if role == Role::Tool {
                conv.push(Role::Tool, &mloc, Item::Result(tool_result(record, &mloc)));
                continue;
            }
            conv.start_turn(role, mloc.clone());
            if has_content(record.get("content")) {
                conv.push_to_last(Item::Text(Text {
                    loc: mloc.child("content"),
                    message: mloc.clone(),
                }));
            }
            if role != Role::Assistant {
                continue;
            }
            for key in ["reasoning_content", "reasoning"] {
                if has_content(record.get(key)) {
                    conv.push_to_last(Item::Thinking(Text {
                        loc: mloc.child(key),
                        message: mloc.clone(),
                    }));
                }
            }
            push_tool_calls(&mut conv, record, &mloc);
        }
        Ok(vec![conv])
    }
}

fn has_content(value: Option<&Tree>) -> bool {
    value
        .and_then(Tree::as_str)
        .is_some_and(|s| !s.trim().is_empty() && s != JSON_CONTENT)
}

/// A `tool` row: failed where the tool's JSON output names an error (`{"output", "exit_code",
/// "error"}` from the terminal tool; `{"error": …}` from the others) or a non-zero exit.
fn tool_result(record: &Tree, mloc: &Loc) -> ToolResult {
    let content = record.get("content").unwrap_or(&Tree::Null);
    let output = content
        .as_str()
        .and_then(|text| crate::json::parse_value(text).ok());
    let failed = output.as_ref().is_some_and(|o| {
        o.get("error").is_some_and(|e| !e.is_null() && e != "")
            || o.get("exit_code")
                .and_then(serde_json::Value::as_i64)
                .is_some_and(|code| code != 0)
    });
    tool_record_result(record, mloc, failed, content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::one_conversation;
    use crate::tree_json;

    fn read(records: &[Tree]) -> Conversation {
        one_conversation(&Hermes, records)
    }

    #[test]
    fn rows_become_turns_and_results_pair_by_id() {
        let conv = read(&[
            tree_json!({"role": "user", "content": "run it", "tool_call_id": null, "tool_name": null, "reasoning_content": null, "reasoning": null, "tool_calls": null}),
            tree_json!({"role": "assistant", "content": "", "tool_call_id": null, "tool_name": null, "reasoning_content": null, "reasoning": "Run the command.", "tool_calls": [{"id": "call_1", "call_id": "call_1", "response_item_id": "fc_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"false\"}"}}]}),
            tree_json!({"role": "tool", "content": "{\"output\": \"\", \"exit_code\": 1, \"error\": null}", "tool_call_id": "call_1", "tool_name": "terminal", "reasoning_content": null, "reasoning": null, "tool_calls": null}),
        ]);
        assert_eq!(conv.turns.len(), 3);
        let assistant = &conv.turns[1];
        assert!(matches!(assistant.items.first(), Some(Item::Thinking(_))));
        assert!(assistant
            .items
            .iter()
            .any(|i| matches!(i, Item::Call(c) if c.id.as_deref() == Some("call_1"))));
        let Some(Item::Result(result)) = conv.turns[2].items.first() else {
            panic!("a result");
        };
        assert!(result.is_error, "exit code 1 is a failure");
        assert_eq!(result.name.as_deref(), Some("terminal"));
    }

    #[test]
    fn other_roles_are_not_sent() {
        let conv = read(&[
            tree_json!({"role": "session_meta", "content": "x", "tool_calls": null}),
            tree_json!({"role": "user", "content": "hi", "tool_calls": null}),
        ]);
        assert_eq!(conv.turns.len(), 1);
        assert_eq!(conv.excluded.len(), 1);
    }
}
