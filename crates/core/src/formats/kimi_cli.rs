//! Kimi Code CLI (`kimi-cli`) sessions: `~/.kimi/sessions/<md5 of the work dir>/<id>/
//! context.jsonl`, the history the CLI sends (`soul/context.py`, `Context.restore`).
//!
//! Each line is a kosong `Message` (`model_dump_json(exclude_none=True)`): `role` (`system`,
//! `user`, `assistant`, `tool`), `content` (a string, or parts `text`, `think {think,
//! encrypted}`, `image_url`, `audio_url`, `video_url`), OpenAI-shaped `tool_calls`
//! (`{type: "function", id, function: {name, arguments}}`, arguments a JSON string) and, on a
//! tool line, `tool_call_id`. A tool line's content opens with `<system>…</system>`, and
//! `<system>ERROR: …</system>` when the tool failed. Lines of the CLI's own roles are
//! bookkeeping, never sent: `_system_prompt` (the prompt the session keeps, sent as the system
//! message), `_checkpoint {id}` and `_usage {token_count}`. A checkpoint does not cut the file
//! on load: a revert rewrites it (the old one becomes `context_N.jsonl`), so the file read is
//! the history.
//!
//! Kimi writes a step's assistant message and all its tool results together once every tool
//! has finished (`KimiSoul._step`, `_grow_context`): a kill during a tool loses the whole
//! step, so a call without its result is never one still running, and the CLI repairs no
//! pairing on resume (the session is resumable: a trailing unanswered call is sent with the
//! next prompt). Adjacent user messages are sent merged (`normalize_history`), as they are read
//! here. `wire.jsonl` beside the file is the UI's event log (`{"type": "metadata",
//! "protocol_version": …}`, then timestamped events), not what the model is sent.

use serde_json::{json, Value as Json};

use super::openai_chat::{push_tool_calls, tool_record_result};
use super::adapter::{read_in_order_by, InOrder};
use super::{array_at, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{Conversation, Item, Loc, Mark, Pairing, Role, Text, ToolResult};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain kimi-cli` prints (Markdown).
pub(super) const DOC: &str = r#"Kimi Code CLI sessions (`~/.kimi/sessions/<md5 of the work dir>/<id>/context.jsonl`): one kosong `Message` per line (`role`, `content` as a string or `text`/`think`/media parts, OpenAI `tool_calls`, `tool_call_id`); the CLI's `_system_prompt` line is the system message, `_checkpoint` and `_usage` lines are bookkeeping; adjacent user lines are read as the one message Kimi sends; `<system>ERROR: …</system>` results fail; held to Moonshot (the CLI's default provider); a trailing unanswered call is sent with the next prompt; fixes insert a failed `tool` line after an unanswered call, remove a stray one. `wire.jsonl` beside it (the UI's event log) is named and skipped"#;

pub struct KimiCli;

/// The CLI's own line roles: bookkeeping, never sent as messages.
const OWN_ROLES: [&str; 3] = ["_system_prompt", "_checkpoint", "_usage"];

impl Dialect for KimiCli {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let id = site.call.id.as_ref()?;
        // Kimi's own failed result: `<system>ERROR: …</system>` (`tool_result_to_message`).
        let error = text.strip_prefix("Error: ").unwrap_or(text);
        Some(json!({
            "role": "tool",
            "content": [{"type": "text", "text": format!("<system>ERROR: {error}</system>")}],
            "tool_call_id": id,
        }))
    }
}

impl Adapter for KimiCli {
    fn format(&self) -> Format {
        Format::KimiCli
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        let role = str_at(record, "role")?;
        match role {
            "_checkpoint" => record.get("id").is_some_and(Tree::is_u64).then_some(90),
            "_usage" => record
                .get("token_count")
                .is_some_and(Tree::is_u64)
                .then_some(90),
            "_system_prompt" => record
                .get("content")
                .is_some_and(Tree::is_string)
                .then_some(90),
            // Kimi's reasoning part; a bare chat message is not enough.
            "assistant" => array_at(record, "content")
                .is_some_and(|parts| parts.iter().any(is_think_part))
                .then_some(60),
            _ => None,
        }
    }

    read_in_order_by!(Context);
}

/// A context file as read so far.
struct Context {
    conv: Conversation,
    recognised: bool,
}

impl Context {
    /// One line of the context file.
    fn read_line(&mut self, doc: Doc<'_>) {
        let record = doc.value;
        let mloc = Loc::new(doc.base, "");
        let Some(role) = str_at(record, "role") else {
            return;
        };
        if OWN_ROLES.contains(&role) {
            self.recognised = true;
            if role == "_system_prompt" {
                self.conv.start_turn(Role::System, mloc.clone());
                push_content(&mut self.conv, record, &mloc);
            }
            return;
        }
        let role = match role {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return,
        };
        self.recognised = true;
        match role {
            Role::Tool => {
                let result = tool_result(record, &mloc);
                self.conv.push(Role::Tool, &mloc, Item::Result(result));
            }
            // Sent merged with the user message before it.
            Role::User if self.conv.turns.last().is_some_and(|t| t.role == Role::User) => {
                push_content(&mut self.conv, record, &mloc);
            }
            _ => {
                self.conv.start_turn(role, mloc.clone());
                push_content(&mut self.conv, record, &mloc);
                if role == Role::Assistant {
                    push_tool_calls(&mut self.conv, record, &mloc);
                }
            }
        }
    }
}

impl InOrder for Context {
    fn new(first: usize) -> Self {
        let mut conv = Conversation::new(Format::KimiCli, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::Tool;
        conv.resumable = true;
        Context {
            conv,
            recognised: false,
        }
    }

    fn read(&mut self, doc: Doc<'_>) -> Mark {
        let mark = self.conv.mark();
        self.read_line(doc);
        mark
    }

    fn conversation(&self) -> &Conversation {
        &self.conv
    }

    fn finish(self, any: bool) -> Result<Vec<Conversation>, String> {
        if !self.recognised && any {
            return Err(
                "expected Kimi Code CLI context lines tagged by `role` (user, assistant, tool, _checkpoint...)"
                    .into(),
            );
        }
        Ok(vec![self.conv])
    }
}

fn is_think_part(part: &Tree) -> bool {
    str_at(part, "type") == Some("think") && part.get("think").is_some()
}

/// A line's text and reasoning, each part where it is.
fn push_content(conv: &mut Conversation, record: &Tree, mloc: &Loc) {
    let content = mloc.child("content");
    match record.get("content") {
        Some(Tree::String(text)) if !text.is_blank() => conv.push_to_last(Item::Text(Text {
            loc: content,
            message: mloc.clone(),
        })),
        Some(Tree::Array(parts)) => {
            for (i, part) in parts.iter().enumerate() {
                let text = Text {
                    loc: content.child(i),
                    message: mloc.clone(),
                };
                match str_at(part, "type") {
                    Some("think") => conv.push_to_last(Item::Thinking(text)),
                    Some("text") => conv.push_to_last(Item::Text(text)),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn tool_result(record: &Tree, mloc: &Loc) -> ToolResult {
    let content = record.get("content").unwrap_or(&Tree::Null);
    let opening = match content {
        Tree::String(text) => Some(text.as_str()),
        Tree::Array(parts) => parts.first().and_then(|p| str_at(p, "text")),
        _ => None,
    };
    let failed = opening.is_some_and(|t| t.starts_with("<system>ERROR"));
    tool_record_result(record, mloc, failed, content)
}

/// Whether the first record of a JSONL file opens a Kimi Code CLI wire log (`wire.jsonl`),
/// for saying what a file of no conversation format is.
pub(crate) fn is_wire_log(first: &Tree) -> bool {
    str_at(first, "type") == Some("metadata") && first.get("protocol_version").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::one_conversation;
    use crate::tree_json;

    fn read(records: &[Tree]) -> Conversation {
        one_conversation(&KimiCli, records)
    }

    #[test]
    fn bookkeeping_lines_sniff_and_are_not_messages() {
        assert_eq!(
            KimiCli.sniff_record(&tree_json!({"role": "_checkpoint", "id": 0})),
            Some(90)
        );
        assert_eq!(
            KimiCli.sniff_record(&tree_json!({"role": "user", "content": "hi"})),
            None
        );
        let conv = read(&[
            tree_json!({"role": "_system_prompt", "content": "You help."}),
            tree_json!({"role": "_checkpoint", "id": 0}),
            tree_json!({"role": "user", "content": "run it"}),
            tree_json!({"role": "_usage", "token_count": 10}),
        ]);
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::System, Role::User]);
    }

    #[test]
    fn calls_pair_with_tool_lines_and_errors_are_read() {
        let conv = read(&[
            tree_json!({"role": "user", "content": "run it"}),
            tree_json!({"role": "assistant", "content": [{"type": "think", "think": "ok", "encrypted": null}, {"type": "text", "text": "Running."}], "tool_calls": [{"type": "function", "id": "Shell:0", "function": {"name": "Shell", "arguments": "{\"command\": \"false\"}"}}]}),
            tree_json!({"role": "tool", "content": [{"type": "text", "text": "<system>ERROR: Command failed with exit code: 1.</system>"}], "tool_call_id": "Shell:0"}),
        ]);
        assert_eq!(conv.turns.len(), 3);
        let assistant = &conv.turns[1];
        assert!(matches!(assistant.items.first(), Some(Item::Thinking(_))));
        assert!(assistant
            .items
            .iter()
            .any(|i| matches!(i, Item::Call(c) if c.name == "Shell")));
        let Some(Item::Result(result)) = conv.turns[2].items.first() else {
            panic!("a result");
        };
        assert!(result.is_error);
        assert_eq!(result.call_id.as_deref(), Some("Shell:0"));
    }

    #[test]
    fn adjacent_user_lines_are_one_message() {
        let conv = read(&[
            tree_json!({"role": "user", "content": "run sleep 30"}),
            tree_json!({"role": "_checkpoint", "id": 2}),
            tree_json!({"role": "user", "content": "are you there?"}),
        ]);
        assert_eq!(conv.turns.len(), 1);
        assert_eq!(conv.turns[0].items.len(), 2);
    }

    #[test]
    fn a_wire_log_is_told_apart() {
        assert!(is_wire_log(
            &tree_json!({"type": "metadata", "protocol_version": "1.10"})
        ));
        assert!(!is_wire_log(&tree_json!({"role": "_checkpoint", "id": 0})));
    }
}
