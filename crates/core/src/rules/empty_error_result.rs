use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::Provider;
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a tool result flagged as an error (Bedrock `status: "error"`) whose content is
    /// empty (`content: []`). An empty result without the error flag is accepted.
    ///
    /// ## Why it matters
    /// Bedrock rejects the request with `"The content field at
    /// messages.<n>.content.0.toolResult cannot be empty when status value is error."`
    /// (aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15). Agents that
    /// record a failed tool with its status but without its message write this, and the
    /// session then fails on every later request.
    ///
    /// ## Example
    /// ```json
    /// {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1",
    ///   "content": [], "status": "error"}}]}
    /// ```
    ///
    /// ## Fix
    /// Safe: fill the content with one text block saying the tool failed without an error
    /// message, marked as noted by toolcheck. The text says no more than the error flag
    /// already does (the call failed; no details were recorded), so the model is told
    /// nothing the history did not hold; it is not a made-up tool output.
    pub struct EmptyErrorResult {
        code: "TC506",
        name: "empty-error-result",
        severity: Error,
        fix: Safe,
        judged_by: [Bedrock],
        summary: "an error result has empty content",
    }
}

impl Rule for EmptyErrorResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.empty_results.is_empty() {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Bedrock]) else {
            return;
        };
        for (_, result) in conv.results() {
            if !result.is_error {
                continue;
            }
            let Some((_, content)) = conv.empty_results.iter().find(|(r, _)| *r == result.loc)
            else {
                continue;
            };
            out.push(
                Finding::about_result(
                    &Self::META,
                    result,
                    content,
                    format!(
                        "{} is flagged as an error but its content is empty",
                        result.subject()
                    ),
                )
                .help("give the error result a text block with the error message")
                .rejected_by(verdict.clone())
                .fix(
                    Applicability::Safe,
                    "fill the content with a text saying the tool failed without a message",
                    FixIntent::FillErrorResult {
                        content: content.clone(),
                    },
                ),
            );
        }
    }
}
