use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::{self, Provider};
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a `reasoning` item of a Responses request's input whose `content` array is not
    /// empty (`"content": [{"type": "reasoning_text", "text": "…"}]`), in a request held to
    /// OpenAI's Responses API. OpenAI returns reasoning as a `summary` and an
    /// `encrypted_content`, never as `content`; such items come from another provider's
    /// Responses endpoint (DeepSeek's) or from a proxy that translated another model's
    /// reasoning, and are then replayed to OpenAI.
    ///
    /// Not reported for a history held to DeepSeek (`--target deepseek`, or a `deepseek-*`
    /// model): DeepSeek's Responses endpoint accepts reasoning items with their text (recorded
    /// traffic, pydantic-ai's `test_deepseek_responses[function_tool]` cassette, HTTP 200).
    ///
    /// ## Why it matters
    /// OpenAI accepts no reasoning text back and rejects the request (HTTP 400,
    /// `invalid_request_error`, code `array_above_max_length`, `param: "input[4].content"`):
    /// "Invalid 'input[4].content': array too long. Expected an array with maximum length 0,
    /// but got an array with length 1 instead." The text is quoted alike in third-party
    /// clients' and proxies' tests (at least six repositories, e.g. a Go proxy's test of the
    /// upstream body `{"error":{"code":"array_above_max_length","message":"Invalid
    /// 'input[0].content': array too long. …","param":"input[0].content","type":"invalid_request_error"}}`).
    /// Every later request of the conversation fails the same way.
    ///
    /// ## Example
    /// ```json
    /// {"model": "gpt-5", "input": [
    ///   {"role": "user", "content": "What is 17 * 23?"},
    ///   {"type": "reasoning", "summary": [],
    ///    "content": [{"type": "reasoning_text", "text": "17 * 23 = 391"}]},
    ///   {"type": "message", "role": "assistant",
    ///    "content": [{"type": "output_text", "text": "391"}]},
    ///   {"role": "user", "content": "And 17 * 24?"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None automatic. Emptying the array (`"content": []`) passes this check, but what
    /// OpenAI makes of a reasoning item another provider produced (no `encrypted_content` it
    /// can read, an id it never issued) is not recorded, so toolcheck does not propose it.
    /// Clients that switch a conversation to another provider leave the previous provider's
    /// reasoning items out; do that, or keep the history with the provider that made them.
    pub struct ReasoningItemContent {
        code: "TC514",
        name: "reasoning-item-content",
        severity: Error,
        fix: None,
        rejected_by: [OpenaiResponses],
        summary: "a reasoning item replays its reasoning text in `content`, which OpenAI's Responses API rejects",
    }
}

impl Rule for ReasoningItemContent {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        let Some(verdict) = cx.judge(&[Provider::OpenaiResponses]) else {
            return;
        };
        for item in &conv.reasoning.items {
            let Some(content) = &item.content else {
                continue;
            };
            out.push(
                Finding::at(
                    &Self::META,
                    content,
                    format!(
                        "`reasoning` item replays its reasoning text in `content`, which {} accepts only empty (\"array too long. Expected an array with maximum length 0\")",
                        provider::list(&verdict.1)
                    ),
                )
                .help("leave out reasoning items another provider produced when replaying the history to OpenAI, or keep it with that provider")
                .rejected_by(verdict.clone()),
            );
        }
    }
}
