use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::placeholder::inserted_by;
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a tool result whose text is a placeholder an agent or a repair tool inserted
    /// for a call whose real result was never recorded: Claude Code's "[Tool call
    /// interrupted: …]" and "[Tool result missing due to internal error]", Codex's
    /// "aborted", pi's "No result provided", opencode's and Kilo's "[Tool execution was
    /// interrupted]", Qwen Code's "Tool execution result was not recorded — …", Copilot
    /// CLI's "The execution of this tool, or a previous tool was interrupted.", OpenClaw's
    /// "[openclaw] missing tool result in session history; …", Hermes's "[Result
    /// unavailable — see context summary above]", Gemini CLI's "The tool execution result
    /// was lost due to context management truncation.", DeepSeek Harness's "The tool call
    /// was interrupted after it was recorded, …" and "The tool call was interrupted before
    /// the Harness recorded it as started. …", and toolcheck's own inserted results.
    ///
    /// It checks datasets and request bodies, not agent sessions: in a session such a
    /// result is how the agent resumed after a call was cut off, and `unpaired-tool-call`
    /// already says what the model is shown there.
    ///
    /// ## Why it matters
    /// No provider rejects a placeholder, which is why agents insert them. But the result is
    /// invented: the call may have run, half-run or never started. A fine-tuning set built
    /// from sessions that keeps these examples trains the model on tool results that never
    /// happened, and on answers that continue from them.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": "run the tests"},
    ///   {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///     "function": {"name": "shell", "arguments": "{\"cmd\": \"cargo test\"}"}}]},
    ///   {"role": "tool", "tool_call_id": "call_1", "content": "aborted"},
    ///   {"role": "assistant", "content": "The tests were aborted; running them again."}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: what the tool returned cannot be recovered. Drop the example from the dataset,
    /// or keep it knowing its result is made up.
    pub struct InventedToolResult {
        code: "TC402",
        name: "invented-tool-result",
        severity: Warning,
        fix: None,
        summary: "a tool result is a placeholder inserted for a result that was never recorded",
    }
}

impl Rule for InventedToolResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, _cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.format.is_agent_session() {
            return;
        }
        for (_, result) in conv.results() {
            let Some(who) = inserted_by(&result.text) else {
                continue;
            };
            out.push(
                Finding::about_result(
                    &Self::META,
                    result,
                    &result.loc,
                    format!(
                        "{} is a placeholder {who} inserts when no result was recorded: the call's real outcome is unknown",
                        result.subject()
                    ),
                )
                .help("drop this example from a training set, or keep it knowing the result is made up"),
            );
        }
    }
}
