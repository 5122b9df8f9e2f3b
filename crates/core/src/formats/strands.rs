//! Strands Agents session folders (`FileSessionManager`, strands-agents/sdk-python
//! `src/strands/session/file_session_manager.py`, `src/strands/types/session.py`):
//! `<storage_dir>/session_<id>/agents/agent_<id>/messages/message_<n>.json`, one message per
//! file (`json.dump(indent=2)`), each `{message: {role, content: [ContentBlock]},
//! message_id: n, redact_message, created_at, updated_at}`; a non-null `redact_message`
//! replaces `message` when the session is restored.
//!
//! One `messages` folder is one conversation: the folder input (`folder.rs`) reads its files
//! in numeric order as the records of one session. Blocks are Bedrock Converse
//! (`toolUse {toolUseId, name, input}`, `toolResult {toolUseId, status, content}`), read as
//! the `bedrock-converse` format reads them; a result belongs in the message after its call.
//!
//! Strands repairs the pairing of the history it restores (`_fix_broken_tool_use`: an error
//! result for each unanswered call but the last message's, stale and leading orphaned results
//! dropped), so orphaned results and unanswered calls are warnings: its current versions
//! resume the session; older ones and anything else that replays the files do not.
//!
//! Fixes edit one message file each, inside the `content` array of the message Strands
//! replays (`redact_message` when set): a block removed (never the last one), a result block
//! put in the next message, arguments or an empty error result replaced, blocks reordered.
//! A repair that would need a message file added, removed or renumbered is withheld with a
//! note: Strands names each file by its `message_id` and continues from the last one's, so
//! a file toolcheck added or took out of the sequence is one Strands did not write.

use serde_json::Value as Json;

use super::bedrock_converse::{push_message, BedrockConverse};
use super::{str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::json_edit::{self, split_index};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Conversation, Item, Loc, Pairing, Role};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain strands` prints (Markdown).
pub(super) const DOC: &str = r#"**folder.** Strands Agents session folders (`FileSessionManager`: `session_<id>/agents/agent_<id>/messages/message_<n>.json`): one `messages` folder is one conversation, read when the folder, any file in it or a folder above it is named; files in numeric order, the first `removed_message_count` of them (`agent.json`, by position as Strands counts) left out; `redact_message` replaces `message`; Bedrock Converse blocks (`toolUse`, `toolResult` with `status: "error"`); findings are placed in the message file they are in; fixes edit inside one message file each (a stray block removed, an error `toolResult` put ahead of the next user message's blocks, arguments replaced), diffs and writes are per message file, and `--write` checks every changed file before writing any (see [docs/traces.md](../traces.md#fixing-strands-folders-and-letta-files)); a fix that would add, remove or renumber a message file is withheld with a note (`session.json` and `agent.json` are skipped and named in the summary)"#;

pub struct Strands;

/// Blocks are Bedrock Converse blocks. Results inserted are planned here (`plan_edits`): a
/// result never gets a message of its own, which would be a new message file.
impl Dialect for Strands {
    fn error_content(&self, text: &str) -> Option<Json> {
        BedrockConverse.error_content(text)
    }
}

/// Why a fix that would add or remove a message is not offered.
const WHOLE_MESSAGE: &str = "it would add or remove a whole message, that is a `message_<n>.json` file, and Strands numbers those files itself (`message_id`, continued from the last file); edit the session with Strands, or fix the block by hand";

/// Why a move between messages is not offered.
const MOVE: &str =
    "it would move a block from one message file to another; a fix here edits one message file";

/// Whether `node` is the only element of the array holding it.
fn only_element(cx: &EditContext<'_>, node: &Loc) -> bool {
    let text = cx.source.text.as_str();
    split_index(&node.pointer)
        .and_then(|(parent, _)| crate::pointer::locate(text, node.base, parent))
        .and_then(|(s, e)| json_edit::elements(text, s, e))
        .is_some_and(|els| els.len() == 1)
}

/// Whether a value is one message file: `message` with a role beside an integer
/// `message_id` and the `redact_message` key.
pub(crate) fn is_message_file(value: &Tree) -> bool {
    value
        .get("message")
        .is_some_and(|m| str_at(m, "role").is_some())
        && value.get("message_id").is_some_and(Tree::is_u64)
        && value.get("redact_message").is_some()
}

impl Adapter for Strands {
    fn format(&self) -> Format {
        Format::Strands
    }

    /// One message file named alone (outside its folder) is still read, as a conversation of
    /// one message.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        is_message_file(doc).then_some(90)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        self.sniff(record)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let Some(first) = docs.first() else {
            return Ok(Vec::new());
        };
        let mut conv =
            Conversation::new(Format::Strands, Loc::new(first.base, ""), Pairing::NextTurn);
        conv.results_role = Role::User;
        conv.results_first = true;
        // On restore Strands rebuilds each call's results before sending: an error result for
        // an unanswered call, stale and leading orphaned results dropped
        // (`RepositorySessionManager._fix_broken_tool_use`, sdk-python#859; since 1.15).
        conv.repaired_pairing = true;
        for doc in docs {
            if !is_message_file(doc.value) {
                return Err(
                    "expected a Strands session message (`message`, `message_id`, `redact_message`)"
                        .into(),
                );
            }
            let (key, message) = match doc.value.get("redact_message") {
                Some(redacted) if !redacted.is_null() => ("redact_message", redacted),
                _ => ("message", doc.value.get("message").unwrap_or(&Tree::Null)),
            };
            // Only the results right after a message with calls are rebuilt; an orphaned
            // result anywhere else (but at the start) is sent as it is.
            let after_calls = conv.turns.last().is_none_or(|t| {
                t.role == Role::Assistant && t.items.iter().any(|i| matches!(i, Item::Call(_)))
            });
            push_message(&mut conv, message, &Loc::new(doc.base, format!("/{key}")))?;
            if !after_calls {
                let sent_as_is: Vec<Loc> = conv
                    .turns
                    .last()
                    .filter(|t| t.role == Role::User)
                    .into_iter()
                    .flat_map(|t| &t.items)
                    .filter_map(|item| match item {
                        Item::Result(r) => Some(r.loc.clone()),
                        _ => None,
                    })
                    .collect();
                conv.kept_unpaired.extend(sent_as_is);
            }
        }
        Ok(vec![conv])
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// Edits inside one message's `content` array; never a whole message (file) added or
    /// removed, nor a JSONL-style line edit (the generic planner's fallback for records).
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        match intent {
            FixIntent::RemoveResult {
                result: node,
                message,
            }
            | FixIntent::RemoveCall {
                call: node,
                message,
            } => {
                if node == message || only_element(cx, node) {
                    return Planned::Withheld(WHOLE_MESSAGE);
                }
                super::adapter::remove_only(cx, node)
            }
            FixIntent::InsertResult {
                call,
                before: Some(before),
                ..
            } => {
                // Into the message that answers the call's turn, ahead of its blocks.
                let Some(id) = call.id.as_deref() else {
                    return Planned::Unsupported;
                };
                let block = serde_json::json!({"toolResult": {
                    "toolUseId": id,
                    "content": [{"text": crate::edit::plan::INTERRUPTED}],
                    "status": "error"
                }});
                let edit = split_index(&before.pointer).and_then(|(parent, index)| {
                    json_edit::insert_element(&cx.source.text, before.base, parent, index, &block)
                });
                edit.map_or(Planned::Unsupported, |e| Planned::Edits(vec![e]))
            }
            FixIntent::InsertResult { before: None, .. } | FixIntent::GatherResults { .. } => {
                Planned::Withheld(WHOLE_MESSAGE)
            }
            FixIntent::MoveResult { .. } => Planned::Withheld(MOVE),
            FixIntent::Replace { .. }
            | FixIntent::FillErrorResult { .. }
            | FixIntent::MoveBlocks { .. }
            | FixIntent::AddMember { .. }
            | FixIntent::RemoveMember { .. } => Planned::Generic,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    #[test]
    fn sniffs_message_files_only() {
        let file = json!({"message": {"role": "user", "content": [{"text": "hi"}]}, "message_id": 0, "redact_message": null, "created_at": "x", "updated_at": "x"});
        assert_eq!(Strands.sniff(&file), Some(90));
        assert_eq!(
            Strands.sniff(&json!({"message": {"role": "user", "content": []}})),
            None
        );
        assert_eq!(
            Strands.sniff(&json!({"session_id": "s", "session_type": "AGENT"})),
            None
        );
    }
}
