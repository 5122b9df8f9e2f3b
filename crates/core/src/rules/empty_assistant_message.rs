use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::{self, Provider};
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports two shapes of an OpenAI-style assistant message that carries nothing:
    /// - an empty `tool_calls` array. OpenAI rejects it: "Invalid 'messages[2].tool_calls':
    ///   empty array. Expected an array with minimum length 1, but got an empty array
    ///   instead." (code `empty_array`; home-assistant/core PR #118577, 2024-05;
    ///   openai/openai-python#2061, 2025-01, where `chat.completions.parse` returned the
    ///   empty array the next request was rejected for; openai/openai-node PR #1341,
    ///   2025-02), and Qwen on DashScope: "Empty tool_calls is not supported in message."
    ///   (`invalid_parameter_error`; `<400> InternalError.Algo.InvalidParameter: …` from its
    ///   native API; quoted in 2026 threads for `qwen-flash` and Qwen3.6-Plus). Mistral has
    ///   accepted it (recorded traffic, issue 24), so `--target mistral` does not report it;
    /// - content absent or `null` and no tool calls. DeepSeek rejects it: "Invalid assistant
    ///   message: content or tool_calls must be set" (charmbracelet/crush#920), and Mistral:
    ///   "Assistant message must have either content or tool_calls, but not none."
    ///   (OpenHands/OpenHands#8685, 2025-05, through LiteLLM). An empty string is content
    ///   and is not reported, since neither error has been seen for it.
    ///
    /// Only formats that send these messages as they stand record the shapes (OpenAI Chat
    /// Completions requests and histories).
    ///
    /// ## Why it matters
    /// The history keeps the message, so every later request of the conversation is
    /// rejected. SDKs and gateways that default `tool_calls` to `[]`, and agents that store a
    /// reply whose only part (reasoning, a refusal) they dropped, produce it.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": "What color is the sky?"},
    ///   {"role": "assistant", "content": "Blue.", "tool_calls": []},
    ///   {"role": "user", "content": "And at night?"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None automatic. Leave `tool_calls` out when a message calls no tool; drop an
    /// assistant message that says nothing, or give it its text back.
    pub struct EmptyAssistantMessage {
        code: "TC508",
        name: "empty-assistant-message",
        severity: Error,
        fix: None,
        judged_by: [Openai, Dashscope, Deepseek, Mistral],
        summary: "an assistant message has an empty `tool_calls` array, or neither content nor tool calls",
    }
}

impl Rule for EmptyAssistantMessage {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if let Some(verdict) = cx.judge(&[Provider::Openai, Provider::Dashscope]) {
            let quoted = if verdict.1.contains(&Provider::Openai) {
                "Expected an array with minimum length 1"
            } else {
                "Empty tool_calls is not supported in message."
            };
            for calls in &conv.shapes.empty_call_lists {
                out.push(
                    Finding::at(
                        &Self::META,
                        calls,
                        format!(
                            "assistant message has an empty `tool_calls` array, which {} rejects (\"{quoted}\")",
                            provider::list(&verdict.1)
                        ),
                    )
                    .help("leave `tool_calls` out of a message that calls no tool")
                    .rejected_by(verdict.clone()),
                );
            }
        }
        if let Some(verdict) = cx.judge(&[Provider::Deepseek, Provider::Mistral]) {
            for message in &conv.shapes.contentless {
                out.push(
                    Finding::at(
                        &Self::META,
                        message,
                        format!(
                            "assistant message has neither content nor tool calls, which {} rejects",
                            provider::list(&verdict.1)
                        ),
                    )
                    .help("remove the message, or give it the text the model answered")
                    .rejected_by(verdict.clone()),
                );
            }
        }
    }
}
