//! Anthropic Messages API requests (and bare arrays of Anthropic messages).
//!
//! Shapes: assistant `tool_use` blocks `{id, name, input: O}`; user `tool_result` blocks
//! `{tool_use_id, content, is_error}`. Server tools (`server_tool_use`, `mcp_tool_use`) are
//! answered inside the same assistant message by `*_tool_result` blocks. Adjacent same-role
//! messages are merged before pairing, as the API does. A `role: "system"` message inside
//! `messages` (a mid-conversation system message, which Claude accepts right after a user
//! turn) is a turn of its own; `thinking`/`redacted_thinking` blocks are [`Item::Thinking`],
//! and the request's `thinking` setting is read.

use serde_json::{json, Value as Json};

use super::{
    all_roles_among, array_at, blocks, str_at, Adapter, CallSite, Dialect, Doc, Format, Taken,
};
use crate::transcript::{
    failed_text, pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing,
    Role, Text, ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain anthropic` prints (Markdown).
pub(super) const DOC: &str = r#"Messages API requests; adjacent same-role messages merged before pairing; server tools answered in-turn"#;

pub struct Anthropic;

impl Dialect for Anthropic {
    /// `None` for a call without an id: a `tool_result` answers by `tool_use_id` only, so an
    /// inserted result could never pair with it (it would be removed as orphaned, then
    /// inserted again).
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        site.call.id.as_ref()?;
        Some(interrupted_block(site.call, text))
    }

    fn result_message(&self, block: Json) -> Option<Json> {
        Some(json!({"role": "user", "content": [block]}))
    }
}

impl Adapter for Anthropic {
    fn format(&self) -> Format {
        Format::Anthropic
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let messages = array_at(doc, "messages").or_else(|| doc.as_array())?;
        // `system` messages are mid-conversation system messages; other roles are OpenAI's.
        if !all_roles_among(messages, &["user", "assistant", "system"]) {
            return None;
        }
        let mid_system = messages.iter().any(|m| str_at(m, "role") == Some("system"));
        let typed_blocks = messages.iter().flat_map(blocks).any(|b| {
            matches!(
                str_at(b, "type"),
                Some("tool_use" | "server_tool_use" | "mcp_tool_use" | "thinking")
            ) || str_at(b, "type").is_some_and(|t| t.ends_with("tool_result"))
                || b.get("source").is_some()
        });
        let anthropic_tools = array_at(doc, "tools")
            .is_some_and(|t| t.iter().any(|t| t.get("input_schema").is_some()));
        let top_level_system = doc.get("system").is_some();
        if typed_blocks || anthropic_tools {
            Some(80)
        } else if mid_system {
            // A system message with nothing Anthropic beside it is an OpenAI request.
            None
        } else if top_level_system {
            Some(40)
        } else {
            None
        }
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }

    fn normalise_taking<'a>(
        &self,
        base: usize,
        doc: &mut Tree<'a>,
        visit: Taken<'_, 'a>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        Some(normalise_taking(base, doc, visit).map(|conv| vec![conv]))
    }
}

/// A `tool_result` block answering `call` with an error. Shared with Claude Code.
pub(crate) fn interrupted_block(call: &ToolCall, text: &str) -> Json {
    json!({
        "type": "tool_result",
        "tool_use_id": call.id.as_deref().unwrap_or_default(),
        "content": text,
        "is_error": true
    })
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let (mut conv, messages_loc) = open_doc(doc)?;
    let messages = match doc.value {
        Tree::Array(messages) => messages,
        _ => array_at(doc.value, "messages").ok_or(NO_MESSAGES)?,
    };
    super::adapter::read_messages(&mut conv, messages, &messages_loc, read_message)?;
    Ok(conv)
}

/// [`normalise_doc`], taking each message out of the list once read (see
/// `Adapter::normalise_taking`).
fn normalise_taking<'a>(
    base: usize,
    doc: &mut Tree<'a>,
    visit: Taken<'_, 'a>,
) -> Result<Conversation, String> {
    let (mut conv, messages_loc) = open_doc(&Doc { base, value: doc })?;
    let messages = match doc {
        Tree::Array(messages) => messages,
        _ => doc
            .get_mut("messages")
            .and_then(Tree::as_array_mut)
            .ok_or(NO_MESSAGES)?,
    };
    super::adapter::take_messages(&mut conv, messages, &messages_loc, visit, read_message)?;
    Ok(conv)
}

const NO_MESSAGES: &str = "expected a `messages` array";

/// The conversation of `doc` before its messages are read (its tools and thinking), and
/// where its message list is.
fn open_doc(doc: &Doc<'_>) -> Result<(Conversation, Loc), String> {
    let root = Loc::new(doc.base, "");
    let messages_loc = match doc.value {
        Tree::Array(_) => root.clone(),
        _ => {
            array_at(doc.value, "messages").ok_or(NO_MESSAGES)?;
            root.child("messages")
        }
    };
    let mut conv = Conversation::new(Format::Anthropic, root.clone(), Pairing::NextTurn);
    conv.results_role = Role::User;
    conv.results_first = true;
    conv.thinking = thinking_enabled(doc.value);
    read_tools(doc.value, &root, &mut conv);
    Ok((conv, messages_loc))
}

/// Reads one message, at `mloc`, into the conversation.
fn read_message(conv: &mut Conversation, message: &Tree<'_>, mloc: &Loc) -> Result<(), String> {
    let role = match str_at(message, "role") {
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        Some("system") => Role::System,
        Some(other) => return Err(format!("unexpected role \"{other}\" at {}", mloc.pointer)),
        None => return Err(format!("message without a `role` at {}", mloc.pointer)),
    };
    push_message(conv, role, message, mloc);
    Ok(())
}

/// Adds one Anthropic message (string or block content) to the conversation, merging it into
/// the previous turn when that has the same role. Shared with the Claude Code adapter.
pub(crate) fn push_message(conv: &mut Conversation, role: Role, message: &Tree, mloc: &Loc) {
    push_message_except(conv, role, message, mloc, |_| false);
}

/// [`push_message`] without the blocks `left_out` picks, which the tool that wrote the
/// history does not replay (recorded as excluded, so the coverage guard knows they were seen).
/// Shared with Cline.
pub(crate) fn push_message_except(
    conv: &mut Conversation,
    role: Role,
    message: &Tree,
    mloc: &Loc,
    left_out: impl Fn(&Tree) -> bool,
) {
    let content = message.get("content");
    if let Some(Tree::String(_)) = content {
        let text = Text {
            loc: mloc.child("content"),
            message: mloc.clone(),
        };
        conv.push(role, mloc, Item::Text(text));
        return;
    }
    let mut pushed = false;
    for (j, block) in blocks(message).iter().enumerate() {
        let loc = mloc.child(("content", j));
        if left_out(block) {
            conv.excluded.push(loc);
            continue;
        }
        conv.push(role, mloc, block_item(block, loc, mloc));
        pushed = true;
    }
    // An empty message still separates turns.
    if !pushed && conv.turns.last().is_none_or(|t| t.role != role) {
        conv.start_turn(role, mloc.clone());
    }
}

/// One Anthropic content block as a transcript item.
fn block_item(block: &Tree, loc: Loc, mloc: &Loc) -> Item {
    let kind = str_at(block, "type").unwrap_or_default();
    match kind {
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            let id = str_at(block, "id").map(str::to_string);
            let input = block.get("input");
            Item::Call(ToolCall {
                key: pairing_key(id.as_deref(), &loc),
                id,
                name: str_at(block, "name").unwrap_or_default().to_string(),
                kind: if kind == "tool_use" {
                    CallKind::Function
                } else {
                    CallKind::ProviderExecuted
                },
                arguments: match input {
                    None => Arguments::Absent,
                    Some(v) => Arguments::value(v.to_serde()),
                },
                args_loc: if input.is_some() {
                    loc.child("input")
                } else {
                    loc.clone()
                },
                loc,
                message: mloc.clone(),
            })
        }
        _ if kind.ends_with("tool_result") => {
            let call_id = str_at(block, "tool_use_id").map(str::to_string);
            let content = block.get("content").unwrap_or(&Tree::Null);
            let is_error = block.get("is_error").and_then(Tree::as_bool) == Some(true);
            Item::Result(ToolResult {
                key: pairing_key(call_id.as_deref(), &loc),
                call_id,
                name: None,
                is_error,
                text: failed_text(is_error, || result_text(content)),
                provider_executed: kind != "tool_result",
                id_field: None,
                loc,
                message: mloc.clone(),
            })
        }
        "thinking" | "redacted_thinking" => Item::Thinking(Text {
            loc,
            message: mloc.clone(),
        }),
        _ => Item::Text(Text {
            loc,
            message: mloc.clone(),
        }),
    }
}

/// Whether a request enables extended thinking with a budget: `Some(true)` for
/// `thinking.type: "enabled"`, `Some(false)` when `thinking` is absent or disabled, `None`
/// for a bare message array or adaptive thinking (where the model may answer without
/// thinking, so a turn without a thinking block proves nothing).
fn thinking_enabled(doc: &Tree) -> Option<bool> {
    let object = doc.as_object()?;
    match object.get("thinking").map(|t| str_at(t, "type")) {
        None | Some(Some("disabled")) => Some(false),
        Some(Some("enabled")) => Some(true),
        Some(_) => None,
    }
}

/// Reads `tools`: custom tools with `input_schema`, and versioned server tools (built-ins).
pub(crate) fn read_tools(container: &Tree, root: &Loc, conv: &mut Conversation) {
    for (k, tool) in array_at(container, "tools")
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(name) = str_at(tool, "name") else {
            continue;
        };
        let loc = root.child(("tools", k));
        let schema = tool.get("input_schema");
        let builtin = schema.is_none() && str_at(tool, "type").is_some_and(|t| t != "custom");
        conv.tools.push(ToolDef {
            strict: tool.get("strict").and_then(Tree::as_bool) == Some(true),
            builtin,
            ..ToolDef::declared(name, schema, loc.clone(), loc.child("input_schema"))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json;

    /// Only a result flagged `is_error` keeps its text.
    #[test]
    fn only_failed_results_keep_their_text() {
        let value = tree_json!({"messages": [
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "a", "name": "f", "input": {}},
                {"type": "tool_use", "id": "b", "name": "f", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "is_error": true, "content": "boom"},
                {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "fine"}]}
            ]}
        ]});
        let convs = Anthropic
            .normalise(&[Doc {
                base: 0,
                value: &value,
            }])
            .unwrap_or_default();
        let results: Vec<(bool, &str)> = convs
            .iter()
            .flat_map(|c| c.results())
            .map(|(_, r)| (r.is_error, r.text.as_str()))
            .collect();
        assert_eq!(results, [(true, "boom"), (false, "")], "{convs:#?}");
    }
}
