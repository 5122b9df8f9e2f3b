//! Cline, Roo Code and Kilo Code task histories (`tasks/<taskId>/api_conversation_history.json`).
//!
//! The file is a bare array of Anthropic messages with fields of the tool's own beside
//! `role` and `content`: `ts` (epoch milliseconds) on every message, Cline's assistant
//! `modelInfo` and `metrics`, Roo's `isSummary`/`condenseId`/`condenseParent` (condensing)
//! and `isTruncationMarker`/`truncationId`/`truncationParent` (sliding-window truncation).
//! Roo may also keep OpenAI reasoning items, which have no `role`; they are not replayed to
//! Anthropic-shaped requests and are passed over.
//!
//! Tool results come in two shapes. Native `tool_use` blocks are answered by `tool_result`
//! blocks in the next user message, as in Anthropic requests. Classic Cline writes each
//! result as user text instead: a header block `[<tool> for '<arg>'] Result:` (or
//! `[<tool>] Result:`) and the result's blocks after it. Where an assistant turn holds
//! `tool_use` blocks and the next user message answers with such headers and no
//! `tool_result`, the headers pair with the calls in order. Calls written as XML tags in the
//! assistant's text (the XML-tool era) have no ids and are read as text, as are their
//! headers: nothing pairs them, so nothing is reported about them.
//!
//! Only what the tool sends is checked (Roo's `getEffectiveApiHistory`): when a summary
//! (`isSummary`) is there, the history starts at the last one, and `tool_result` blocks whose
//! call lies before it are dropped; messages whose `condenseParent` names a summary's
//! `condenseId`, or whose `truncationParent` names a marker's `truncationId`, are left out.
//! A tag naming nothing (its summary removed by a rewind) leaves the message in. What is
//! left out is listed on the conversation (`excluded`), so the unread-structure guard does
//! not take it for something toolcheck failed to read. Classic Cline records its own
//! truncation (`conversationHistoryDeletedRange`) in the task metadata and `ui_messages.json`,
//! not in this file, so such a history is checked whole.
//!
//! The tools translate this history for whichever provider a task uses, so it is held to the
//! rules every provider shares.

use std::collections::HashSet;

use super::anthropic::{push_message_except, Anthropic};
use super::{blocks, str_at, Adapter, CallSite, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{pairing_key, Conversation, Item, Loc, Pairing, Role, Text, ToolResult};
use crate::tree::Value as Tree;
use serde_json::Value as Json;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain cline` prints (Markdown).
pub(super) const DOC: &str = r#"Cline, Roo Code and Kilo Code task histories (`<storage>/tasks/<taskId>/api_conversation_history.json`): Anthropic messages with `tool_use`/`tool_result` blocks, or results written as `[tool for '…'] Result:` text, paired with the calls before them in order (XML-tag calls are text); only what is sent is checked: Roo's condensed (`condenseParent`) and truncated (`truncationParent`) messages and the history before the last summary are left out; Cline's own `conversationHistoryDeletedRange` lives outside the file, so such a history is checked whole; see [docs/agents/cline.md](../agents/cline.md)"#;

pub struct Cline;

/// Message fields only these tools write beside Anthropic's `role` and `content`.
const MARKS: [&str; 9] = [
    "ts",
    "isSummary",
    "condenseId",
    "condenseParent",
    "truncationId",
    "truncationParent",
    "isTruncationMarker",
    "modelInfo",
    "metrics",
];

/// Inserted results are Anthropic's: a `tool_result` block, or a user message holding one.
impl Dialect for Cline {
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        Anthropic.interrupted_block(site, text)
    }

    fn result_message(&self, block: Json) -> Option<Json> {
        Anthropic.result_message(block)
    }
}

impl Adapter for Cline {
    fn format(&self) -> Format {
        Format::Cline
    }

    /// A bare array of Anthropic messages (and Roo's role-less reasoning items) carrying
    /// something only these tools write. Scored above `anthropic` only then: a plain
    /// message array stays Anthropic.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let messages = doc.as_array()?;
        if messages.is_empty() {
            return None;
        }
        let mut marked = false;
        for message in messages {
            match str_at(message, "role") {
                Some("user" | "assistant") => {}
                None if str_at(message, "type") == Some("reasoning") => {
                    marked = true;
                    continue;
                }
                _ => return None,
            }
            marked = marked
                || MARKS.iter().any(|k| message.get(k).is_some())
                || blocks(message).iter().any(|b| {
                    text_of(b).is_some_and(|t| {
                        result_header(t).is_some() || t.starts_with("<environment_details>")
                    })
                });
        }
        marked.then_some(85)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }

    /// Anthropic blocks take the generic planner's edits. A result written as text is a
    /// header followed by its content, so it is neither moved nor removed, and no
    /// `tool_result` block is put into a message that answers in text (the tool pairs those
    /// by position, and a block among them would change how it reads the rest).
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        let is_text = |loc: &Loc| cx.value_at(loc).is_some_and(|b| text_of(&b).is_some());
        let unsupported = match intent {
            FixIntent::InsertResult {
                before: Some(block),
                ..
            } => message_of(block)
                .and_then(|m| cx.value_at(&m))
                .is_none_or(|m| answers_in_text(&m)),
            FixIntent::RemoveResult { result, .. } | FixIntent::MoveResult { result, .. } => {
                is_text(result)
            }
            FixIntent::GatherResults { results, .. } => results.iter().any(is_text),
            _ => false,
        };
        if unsupported {
            Planned::Unsupported
        } else {
            Planned::Generic
        }
    }
}

/// The message holding the content block at `block` (`/<i>/content/<j>`).
fn message_of(block: &Loc) -> Option<Loc> {
    let (content, _) = block.pointer.rsplit_once('/')?;
    let message = content.strip_suffix("/content")?;
    Some(Loc::new(block.base, message))
}

/// The text of a `text` block.
fn text_of<'a>(block: &'a Tree) -> Option<&'a str> {
    if str_at(block, "type") != Some("text") {
        return None;
    }
    str_at(block, "text")
}

/// The tool named by a result header, `[<tool> for '<arg>'] Result:` or `[<tool>] Result:`,
/// at the start of a text block (the result may follow on the same line).
fn result_header(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('[')?;
    let line = rest.lines().next().unwrap_or_default();
    let close = line.find("] Result:")?;
    let inner = line.get(..close)?;
    let name = inner.split(' ').next().unwrap_or_default();
    (!name.is_empty()).then_some(name)
}

/// Which messages Roo sends (`getEffectiveApiHistory`), and the ids of the calls in them.
struct Effective {
    kept: Vec<bool>,
    /// Set when a summary starts the history: `tool_result` blocks answering no call of the
    /// kept messages are dropped.
    call_ids: Option<HashSet<String>>,
}

fn effective(messages: &[Tree]) -> Effective {
    let ids = |flag: &str, key: &str| -> HashSet<&str> {
        messages
            .iter()
            .filter(|m| m.get(flag).and_then(Tree::as_bool) == Some(true))
            .filter_map(|m| str_at(m, key))
            .collect()
    };
    let summaries = ids("isSummary", "condenseId");
    let markers = ids("isTruncationMarker", "truncationId");
    let start = messages
        .iter()
        .rposition(|m| m.get("isSummary").and_then(Tree::as_bool) == Some(true));
    let kept: Vec<bool> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let hidden_by = |key: &str, set: &HashSet<&str>| {
                str_at(m, key).is_some_and(|parent| set.contains(parent))
            };
            start.is_none_or(|s| i >= s)
                && !hidden_by("condenseParent", &summaries)
                && !hidden_by("truncationParent", &markers)
        })
        .collect();
    let call_ids = start.map(|_| {
        messages
            .iter()
            .zip(&kept)
            .filter(|(m, k)| **k && str_at(m, "role") == Some("assistant"))
            .flat_map(|(m, _)| blocks(m))
            .filter(|b| str_at(b, "type") == Some("tool_use"))
            .filter_map(|b| str_at(b, "id").map(str::to_string))
            .collect()
    });
    Effective { kept, call_ids }
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let root = Loc::new(doc.base, "");
    let messages = doc
        .value
        .as_array()
        .ok_or("expected an array of messages")?;
    let mut conv = Conversation::new(Format::Cline, root.clone(), Pairing::NextTurn);
    conv.results_role = Role::User;
    conv.results_first = true;
    let effective = effective(messages);
    // The ids of the last assistant turn's calls, for results written as text.
    let mut open: Vec<Option<String>> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let mloc = root.child(i);
        let role = match str_at(message, "role") {
            Some("assistant") => Role::Assistant,
            Some("user") => Role::User,
            Some(other) => return Err(format!("unexpected role \"{other}\" at {}", mloc.pointer)),
            None if str_at(message, "type") == Some("reasoning") => continue,
            None => return Err(format!("message without a `role` at {}", mloc.pointer)),
        };
        if !effective.kept.get(i).copied().unwrap_or(true) {
            conv.excluded.push(mloc);
            continue;
        }
        if role == Role::Assistant {
            if conv.turns.last().is_none_or(|t| t.role != Role::Assistant) {
                open.clear();
            }
            open.extend(
                blocks(message)
                    .iter()
                    .filter(|b| str_at(b, "type") == Some("tool_use"))
                    .map(|b| str_at(b, "id").map(str::to_string)),
            );
        }
        if role == Role::User && !open.is_empty() && answers_in_text(message) {
            push_text_answers(&mut conv, message, &mloc, &open);
            open.clear();
            continue;
        }
        if role == Role::User {
            open.clear();
        }
        push_blocks(&mut conv, role, message, &mloc, &effective);
    }
    Ok(conv)
}

/// Whether a user message answers the calls before it with text headers, not blocks.
fn answers_in_text(message: &Tree) -> bool {
    let blocks = blocks(message);
    !blocks
        .iter()
        .any(|b| str_at(b, "type") == Some("tool_result"))
        && blocks
            .iter()
            .any(|b| text_of(b).and_then(result_header).is_some())
}

/// One message as Anthropic blocks, leaving out results a summary cut off from their call.
fn push_blocks(conv: &mut Conversation, role: Role, message: &Tree, mloc: &Loc, eff: &Effective) {
    push_message_except(conv, role, message, mloc, |block| {
        eff.call_ids.as_ref().is_some_and(|ids| {
            str_at(block, "type") == Some("tool_result")
                && str_at(block, "tool_use_id").is_none_or(|id| !ids.contains(id))
        })
    });
}

/// A user message answering `open` calls with text headers: each header is a result of the
/// call at its position, and the blocks after it up to the next header are its content. The
/// results open the turn, as the tool turns them into the request; the message's other
/// blocks follow as text.
fn push_text_answers(conv: &mut Conversation, message: &Tree, mloc: &Loc, open: &[Option<String>]) {
    let mut results = Vec::new();
    let mut texts = Vec::new();
    let mut in_result = false;
    for (j, block) in blocks(message).iter().enumerate() {
        let loc = mloc.child(("content", j));
        let header = text_of(block).and_then(result_header);
        match (header, open.get(results.len())) {
            (Some(_), Some(call_id)) => {
                let text = text_of(block).unwrap_or_default().to_string();
                results.push(Item::Result(ToolResult {
                    key: pairing_key(call_id.as_deref(), &loc),
                    call_id: call_id.clone(),
                    name: header.map(str::to_string),
                    is_error: false,
                    text,
                    provider_executed: false,
                    id_field: None,
                    loc,
                    message: mloc.clone(),
                }));
                in_result = true;
            }
            // The blocks of the result before.
            (None, _) if in_result => {}
            _ => {
                in_result = false;
                texts.push(Item::Text(Text {
                    loc,
                    message: mloc.clone(),
                }));
            }
        }
    }
    for item in results.into_iter().chain(texts) {
        conv.push(Role::User, mloc, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    fn sniff(v: &Tree) -> Option<Format> {
        super::super::detect(v).map(|a| a.format())
    }

    #[test]
    fn result_headers() {
        assert_eq!(
            result_header("[read_file for 'a.rs'] Result:"),
            Some("read_file")
        );
        assert_eq!(
            result_header("[attempt_completion] Result: done"),
            Some("attempt_completion")
        );
        assert_eq!(result_header("[x] Result"), None);
        assert_eq!(result_header("see [a] Result:"), None);
        assert_eq!(result_header("[] Result:"), None);
    }

    #[test]
    fn plain_message_arrays_stay_anthropic() {
        let plain = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
        ]);
        assert_eq!(sniff(&plain), Some(Format::Anthropic));
        let stamped = json!([
            {"role": "user", "content": "hi", "ts": 1},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}], "ts": 2}
        ]);
        assert_eq!(sniff(&stamped), Some(Format::Cline));
        let texts = json!([
            {"role": "user", "content": [{"type": "text", "text": "<task>go</task>"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a'] Result:"}]}
        ]);
        assert_eq!(sniff(&texts), Some(Format::Cline));
        // A request object with `messages` is never a task history.
        let request = json!({"messages": [{"role": "user", "content": "x", "ts": 1}]});
        assert_eq!(Cline.sniff(&request), None);
    }

    fn read(v: &Tree) -> Conversation {
        let docs = [Doc { base: 0, value: v }];
        Cline.normalise(&docs).expect("fits").remove(0)
    }

    #[test]
    fn text_results_pair_with_native_calls_in_order() {
        let v = json!([
            {"role": "user", "content": [{"type": "text", "text": "<task>x</task>"}], "ts": 1},
            {"role": "assistant", "ts": 2, "content": [
                {"type": "tool_use", "id": "a", "name": "read_file", "input": {"path": "x"}},
                {"type": "tool_use", "id": "b", "name": "list_files", "input": {"path": "."}}
            ]},
            {"role": "user", "ts": 3, "content": [
                {"type": "text", "text": "[read_file for 'x'] Result:"},
                {"type": "text", "text": "contents"},
                {"type": "text", "text": "[list_files for '.'] Result:"},
                {"type": "text", "text": "a\nb"},
                {"type": "text", "text": "<environment_details>\n</environment_details>"}
            ]}
        ]);
        let conv = read(&v);
        let results: Vec<_> = conv
            .results()
            .map(|(t, r)| (t, r.call_id.clone()))
            .collect();
        assert_eq!(results, [(2, Some("a".into())), (2, Some("b".into()))]);
        assert!(matches!(conv.turns[2].items[0], Item::Result(_)));
    }

    #[test]
    fn condensed_and_truncated_messages_are_excluded() {
        let v = json!([
            {"role": "user", "content": "task", "ts": 1},
            {"role": "assistant", "ts": 2, "condenseParent": "c1", "content": [
                {"type": "tool_use", "id": "old", "name": "f", "input": {}}
            ]},
            {"role": "user", "ts": 3, "content": [
                {"type": "tool_result", "tool_use_id": "old", "content": "ok"}
            ]},
            {"role": "user", "ts": 4, "isSummary": true, "condenseId": "c1", "content": [
                {"type": "tool_result", "tool_use_id": "old", "content": "ok"},
                {"type": "text", "text": "summary"}
            ]},
            {"role": "assistant", "ts": 5, "truncationParent": "gone", "content": "kept"}
        ]);
        let conv = read(&v);
        assert_eq!(conv.calls().count(), 0);
        assert_eq!(conv.results().count(), 0);
        let excluded: Vec<&str> = conv.excluded.iter().map(|l| l.pointer.as_str()).collect();
        assert_eq!(excluded, ["/0", "/1", "/2", "/3/content/0"]);
        assert_eq!(conv.turns.len(), 2);
    }

    #[test]
    fn reasoning_items_are_passed_over() {
        let v = json!([
            {"role": "user", "content": "task", "ts": 1},
            {"type": "reasoning", "encrypted_content": "x"},
            {"role": "assistant", "content": "done", "ts": 2}
        ]);
        assert_eq!(sniff(&v), Some(Format::Cline));
        assert_eq!(read(&v).turns.len(), 2);
    }
}
