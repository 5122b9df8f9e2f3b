use super::pairing::{call_at, result_at, ResultStatus};
use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a tool call that is answered twice. The later result is reported.
    ///
    /// ## Why it matters
    /// Providers count results against calls (Bedrock: "The number of toolResult blocks ...
    /// exceeds the number of toolUse blocks of previous turn"; Gemini: "the number of
    /// function response parts is equal to the number of function call parts"), and a model
    /// shown two answers to one call may act on the stale one. Retry wrappers that record
    /// both the failed attempt and the retry produce this, and so does Gemini CLI 0.44 to at
    /// least 0.61 on every resume of a session that used tools (google-gemini/gemini-cli#29365):
    /// an error wherever Gemini is targeted.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///     "function": {"name": "search", "arguments": "{}"}}]},
    ///   {"role": "tool", "tool_call_id": "call_1", "content": "Error: timeout"},
    ///   {"role": "tool", "tool_call_id": "call_1", "content": "3 results"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Unsafe: remove the later result. It is unsafe because the later one may be the answer
    /// you want to keep; review the diff. Safe where every repeated result is the same as the
    /// first, field for field (a Gemini request replaying each `functionResponse` twice, as
    /// Gemini CLI's resume sends it): the copies hold nothing the first does not. In a Gemini
    /// CLI session, where the second result is
    /// a copy the CLI itself made, the fix is safe: it removes the copy the CLI regenerates, so the session resumes with one response per call from then on; tool
    /// calls made after the fix are duplicated again at the next resume, so fix before each
    /// resume until the CLI's fix is released.
    pub struct DuplicateToolResult {
        code: "TC105",
        name: "duplicate-tool-result",
        severity: Error,
        fix: Sometimes,
        rejected_by: [Gemini],
        summary: "one call answered twice",
    }
}

impl Rule for DuplicateToolResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for &(pos, status) in &cx.pairs().results {
            let ResultStatus::Duplicate { call, first } = status else {
                continue;
            };
            let (Some(result), Some(call), Some(first)) = (
                result_at(conv, pos),
                call_at(conv, call),
                result_at(conv, first),
            ) else {
                continue;
            };
            out.push(
                Finding::about_result(
                    &Self::META,
                    result,
                    &result.loc,
                    format!(
                        "{} is answered twice; the first result is at {}",
                        call.subject(),
                        cx.describe(&first.loc)
                    ),
                )
                .help("keep one result per call: remove the stale one")
                .fix(
                    // A copy the agent made of the first result holds nothing else.
                    if conv.results_copied {
                        Applicability::Safe
                    } else {
                        Applicability::Unsafe
                    },
                    "remove the later result",
                    FixIntent::RemoveResult {
                        result: result.loc.clone(),
                        message: result.message.clone(),
                    },
                ),
            );
        }
    }
}
