//! Claude Code session transcripts (`~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`,
//! and sub-agent files `<sessionId>/subagents/agent-<id>.jsonl`): the adapter.
//!
//! A file is one session: a tree of records linked by `uuid`/`parentUuid`. Only `user` and
//! `assistant` records carry messages (`message` is an Anthropic message); `progress`,
//! `system`, `attachment` ... records are links of the tree but not messages, and
//! `summary`, `file-history-snapshot`, `queue-operation` ... records are not in the tree.
//! Sessions hold no tool definitions.
//!
//! Here: sniffing records and the [`Adapter`] entry points. `session` rebuilds the
//! conversations the way `claude --resume` does; `relink` plans fixes as whole-line edits
//! that keep the `parentUuid` chain whole.

mod relink;
mod session;

use super::{str_at, Adapter, Dialect, Doc, Format, Planned, Records, Visit};
use super::adapter::{read_again, Trees};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::Conversation;
use crate::tree::Value as Tree;
use relink::{insert_result, is_whole_line, move_result, remove_line};
use session::Session;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain claude-code` prints (Markdown).
pub(super) const DOC: &str = r#"Claude Code session JSONL, rebuilt like `--resume`: `parentUuid` chain, lines sharing `message.id` merged, sidechains apart; see [docs/agents/claude-code.md](../agents/claude-code.md)"#;

pub struct ClaudeCode;

/// Record types Claude Code writes to a session file.
const RECORD_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "permission-mode",
    "pr-link",
    "agent-setting",
    "bridge-session",
    "worktree-state",
];

impl Dialect for ClaudeCode {}

/// Qwen Code's records share Claude Code's envelope (`uuid`, `parentUuid`, `sessionId`,
/// `cwd`, `version`) but carry a Gemini `Content` (`message.parts`, never `content`), a
/// `systemPayload` or a `toolCallResult`, none of which Claude Code writes: such a record is
/// no vote for this format.
fn qwen_shaped(doc: &Tree) -> bool {
    let gemini_message = doc
        .get("message")
        .is_some_and(|m| m.get("parts").is_some() && m.get("content").is_none());
    gemini_message || doc.get("systemPayload").is_some() || doc.get("toolCallResult").is_some()
}

impl Adapter for ClaudeCode {
    fn format(&self) -> Format {
        Format::ClaudeCode
    }

    fn replays_every_record(&self) -> bool {
        false
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, doc: &Tree) -> Option<u8> {
        let record_type = str_at(doc, "type")?;
        if !RECORD_TYPES.contains(&record_type) || qwen_shaped(doc) {
            return None;
        }
        let marked = str_at(doc, "sessionId").is_some()
            || str_at(doc, "uuid").is_some()
            || doc
                .get("parentUuid")
                .is_some_and(|p| p.is_null() || p.is_string())
            || str_at(doc, "leafUuid").is_some()
            || (record_type == "file-history-snapshot"
                && doc.get("snapshot").is_some_and(Tree::is_object));
        marked.then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let recs = session::read_docs(docs);
        rebuild(&recs, &mut { docs }, &mut |_, _, _, _| {})
    }

    /// A session's records are read twice: once for what links them (then each tree is
    /// dropped, unless the session is small), and again, one at a time, for the messages of
    /// the chains it resumes.
    fn normalise_one_by_one(
        &self,
        records: &mut dyn Records<'_>,
        visit: Visit<'_>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        let (recs, held) = session::read_each(records);
        Some(read_again(records, held, |trees| rebuild(&recs, trees, visit)))
    }

    /// Fixes keep the `parentUuid` chain whole (docs/architecture.md, "Fix principles"): a
    /// removed line's children are re-parented to its own parent, an inserted or moved line is
    /// linked in after the call's turn and the lines that hung there hang from it instead.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Generic;
        }
        let planned = match intent {
            FixIntent::RemoveResult { result, message } => {
                if !is_whole_line(cx, result, message) {
                    return Planned::Generic;
                }
                remove_line(cx, message)
            }
            FixIntent::RemoveCall { call, message } => {
                if !is_whole_line(cx, call, message) {
                    return Planned::Generic;
                }
                remove_line(cx, message)
            }
            // Result lines are inserted whole, re-linked; `before` (a block position) does not
            // apply to one-block lines.
            FixIntent::InsertResult { call, after, .. } => insert_result(cx, call, after),
            // Result lines move as whole lines, re-linked; `before` (a block position)
            // does not apply to one-block lines.
            FixIntent::MoveResult {
                result,
                message,
                after,
                ..
            } => move_result(cx, result, message, after),
            FixIntent::Replace { .. }
            | FixIntent::MoveBlocks { .. }
            | FixIntent::GatherResults { .. }
            | FixIntent::FillErrorResult { .. }
            | FixIntent::AddMember { .. }
            | FixIntent::RemoveMember { .. } => return Planned::Generic,
        };
        crate::formats::links::planned(planned)
    }
}

/// The conversations of the session whose records are `recs`, their trees got again from
/// `trees`.
fn rebuild<'t>(
    recs: &session::Recs<'t>,
    trees: &mut dyn Trees<'t>,
    visit: Visit<'_>,
) -> Result<Vec<Conversation>, String> {
    let session = Session::new(recs);
    if !session.any_claude_record {
        return Err(
            "expected Claude Code session records (`type` user/assistant/system/progress/... with `uuid`, `parentUuid` and `sessionId`)"
                .into(),
        );
    }
    Ok(session.conversations(trees, visit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::{lint_str, Outcome};
    use crate::tree_json as json;

    #[test]
    fn clean_fixtures_have_no_findings() {
        for (name, text) in [
            (
                "clean-session.jsonl",
                include_str!("../../../../../fixtures/claude-code/clean-session.jsonl"),
            ),
            (
                "clean-subagent.jsonl",
                include_str!("../../../../../fixtures/claude-code/clean-subagent.jsonl"),
            ),
            (
                "clean-subagent-compaction.jsonl",
                include_str!("../../../../../fixtures/claude-code/clean-subagent-compaction.jsonl"),
            ),
        ] {
            let report = lint_str(name, text);
            assert_eq!(report.codes(), Vec::<String>::new(), "{name}");
            assert_eq!(
                report.outcome,
                Outcome::Checked(vec![Format::ClaudeCode]),
                "{name}"
            );
        }
    }

    #[test]
    fn broken_fixtures() {
        let cases: [(&str, &str, &[&str]); 7] = [
            (
                "broken-interrupted-mid-tool.jsonl",
                include_str!("../../../../../fixtures/claude-code/broken-interrupted-mid-tool.jsonl"),
                &["TC102@3:359"],
            ),
            (
                "broken-unanswered-then-prompt.jsonl",
                include_str!("../../../../../fixtures/claude-code/broken-unanswered-then-prompt.jsonl"),
                &["TC102@2:359"],
            ),
            (
                "broken-compaction-orphan.jsonl",
                include_str!("../../../../../fixtures/claude-code/broken-compaction-orphan.jsonl"),
                &["TC101@3:295"],
            ),
            (
                "broken-duplicate-tool-use-id.jsonl",
                include_str!("../../../../../fixtures/claude-code/broken-duplicate-tool-use-id.jsonl"),
                &["TC102@3:376", "TC104@4:376"],
            ),
            (
                "broken-duplicate-tool-result.jsonl",
                include_str!("../../../../../fixtures/claude-code/broken-duplicate-tool-result.jsonl"),
                &["TC105@4:295"],
            ),
            (
                "broken-queued-prompt-before-result.jsonl",
                include_str!(
                    "../../../../../fixtures/claude-code/broken-queued-prompt-before-result.jsonl"
                ),
                &["TC103@4:295"],
            ),
            (
                "broken-input-not-object.jsonl",
                include_str!("../../../../../fixtures/claude-code/broken-input-not-object.jsonl"),
                &["TC203@2:455"],
            ),
        ];
        for (name, text, expected) in cases {
            assert_eq!(lint_str(name, text).codes(), expected, "{name}");
        }
    }

    #[test]
    fn sniffs_claude_code_records_only() {
        let sniff = |v: Tree| ClaudeCode.sniff_record(&v);
        assert_eq!(
            sniff(
                json!({"parentUuid": null, "isSidechain": false, "type": "user",
                "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}})
            ),
            Some(90)
        );
        assert_eq!(
            sniff(json!({"type": "summary", "summary": "x", "leafUuid": "u"})),
            Some(90)
        );
        assert_eq!(
            sniff(json!({"type": "file-history-snapshot", "messageId": "m",
                "snapshot": {"messageId": "m", "trackedFileBackups": {}}, "isSnapshotUpdate": false})),
            Some(90)
        );
        assert_eq!(
            sniff(json!({"type": "queue-operation", "operation": "dequeue", "sessionId": "s"})),
            Some(90)
        );
        // Codex rollouts, fine-tuning examples, bare Anthropic messages.
        assert_eq!(
            sniff(json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}})),
            None
        );
        assert_eq!(
            sniff(json!({"timestamp": "t", "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": []}})),
            None
        );
        assert_eq!(
            sniff(json!({"messages": [{"role": "user", "content": "hi"}]})),
            None
        );
        assert_eq!(
            sniff(json!({"type": "user", "message": {"role": "user", "content": "hi"}})),
            None
        );
        assert_eq!(
            sniff(json!({"type": "message", "role": "assistant", "content": []})),
            None
        );
    }

    #[test]
    fn fine_tuning_jsonl_is_not_claimed() {
        let text = concat!(
            r#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}"#,
            "\n",
            r#"{"messages":[{"role":"user","content":"2+2"},{"role":"assistant","content":"4"}]}"#,
            "\n"
        );
        let report = lint_str("train.jsonl", text);
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::OpenAiChat]));
    }

    #[test]
    fn forced_on_other_jsonl_says_what_it_expected() {
        let value = crate::tree::parse("{\"messages\": []}\n")
            .expect("test JSONL")
            .value;
        let docs = [Doc {
            base: 0,
            value: &value,
        }];
        assert!(ClaudeCode.normalise(&docs).is_err());
    }
}
