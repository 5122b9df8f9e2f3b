use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Role};

declare_rule! {
    /// ## What it does
    /// Reports a user message that comes right after tool results, with no assistant message
    /// between them, in a history held to Mistral (`--target mistral`). In formats that keep
    /// results in user messages (Anthropic, Bedrock, Gemini), user text after the results
    /// counts: a translation layer sends those results as `tool` messages and the text as a
    /// `user` message after them.
    ///
    /// A warning, because Mistral has changed its mind: its chat completions endpoint
    /// rejected this order with "Unexpected role 'user' after role 'tool'" (type
    /// `invalid_request_message_order`, code 3230) on api.mistral.ai in 2025-11 and 2025-12
    /// (onyx-dot-app/onyx#6458; datapizza-labs/datapizza-ai#98; BerriAI/litellm#17761 on
    /// devstral-2512) and users still reported it in 2026-04 (zed-industries/zed#37021), while
    /// a recorded request to mistral-small-latest with `tool` then `user` got HTTP 200 in
    /// 2026-08 (issue 24). Other models served with Mistral's chat template behind
    /// OpenAI-compatible endpoints reject it too (NousResearch/hermes-agent#20154, 2026-05).
    ///
    /// ## Why it matters
    /// Where the order is rejected, every later request of the conversation fails the same
    /// way: the history keeps the order once it is there. Agents that append a reminder or a
    /// follow-up question as a user message right after the tool results produce it.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": "Search the docs"},
    ///   {"role": "assistant", "tool_calls": [{"id": "a1b2c3d4e", "type": "function",
    ///     "function": {"name": "search", "arguments": "{\"q\": \"setup\"}"}}]},
    ///   {"role": "tool", "tool_call_id": "a1b2c3d4e", "content": "3 pages"},
    ///   {"role": "user", "content": "Only the first one, please"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None automatic. What Mistral clients do (avante-corp/avante.nvim PR #2695, pi's
    /// `requiresAssistantAfterToolResult`): put an assistant message between the tool results
    /// and the user message, e.g. the model's answer to the results, or a short bridge
    /// text.
    pub struct UserAfterToolResult {
        code: "TC507",
        name: "user-after-tool-result",
        severity: Warning,
        fix: None,
        judged_by: [Mistral],
        summary: "a user message follows tool results with no assistant message between (Mistral)",
    }
}

impl Rule for UserAfterToolResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // No format is Mistral's own: histories are held to it only when it is targeted, not
        // among the providers a history held to none is translated for.
        if !cx.targets.contains(&Provider::Mistral) || conv.is_response {
            return;
        }
        let Some(verdict) = cx.judge_contested(&[], &[Provider::Mistral]) else {
            return;
        };
        // Whether the last item met, skipping system turns, is a client tool result.
        let mut after_result = false;
        for turn in &conv.turns {
            match turn.role {
                Role::System => continue,
                // Results answered by the provider sit in the assistant's own turn.
                Role::Assistant => {
                    after_result = false;
                    continue;
                }
                Role::User | Role::Tool => {}
            }
            for item in &turn.items {
                match item {
                    Item::Result(_) => after_result = true,
                    Item::Text(text) if turn.role == Role::User && after_result => {
                        after_result = false;
                        out.push(
                            Finding::at(
                                &Self::META,
                                &text.message,
                                "user message right after tool results, with no assistant message between; Mistral has rejected this order (\"Unexpected role 'user' after role 'tool'\", 2025-12) and accepted it (mistral-small-latest, 2026-08)",
                            )
                            .help("put an assistant message between the tool results and the user message (the model's answer to the results, or a short bridge text)")
                            .rejected_by(verdict.clone()),
                        );
                    }
                    Item::Text(_) | Item::Thinking(_) | Item::Call(_) => after_result = false,
                }
            }
        }
    }
}
