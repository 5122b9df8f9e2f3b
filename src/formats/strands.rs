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
//! Findings only for now: a repair would edit or renumber message files.

use super::bedrock_converse::push_message;
use super::{str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Conversation, Loc, Pairing, Role};
use crate::tree::Value as Tree;

pub struct Strands;

impl Dialect for Strands {}

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
            push_message(&mut conv, message, &Loc::new(doc.base, format!("/{key}")))?;
        }
        Ok(vec![conv])
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// Findings only: message files are not edited yet.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
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
