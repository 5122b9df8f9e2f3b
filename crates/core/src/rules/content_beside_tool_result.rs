use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Role, Text};

declare_rule! {
    /// ## What it does
    /// Reports, in a history held to Bedrock (Bedrock Converse and Strands files, or
    /// `--target bedrock`), user text in the same message as tool results: text beside
    /// `toolResult` (or Anthropic `tool_result`) blocks in one user message, an error. And,
    /// in a history whose results are `tool` messages (OpenAI Chat, LangChain), a user message
    /// right after them with no assistant message between, a warning: Converse has no `tool`
    /// role, so a translation layer sends the results as a user message, and one that merges
    /// consecutive user messages (LangChain's `ChatBedrockConverse`) puts the text in it.
    ///
    /// ## Why it matters
    /// Bedrock rejects the request: "messages.2.content: Conversation blocks and tool result
    /// blocks cannot be provided in the same turn." (a `ToolMessage` followed by a human
    /// message, langchain-ai/langchain-aws#141; Claude on Bedrock through LiteLLM,
    /// BerriAI/litellm#6053; Llama 4 Maverick through Strands, strands-agents/harness-sdk#1223).
    /// Every later request of the conversation fails the same way. Anthropic's own API takes
    /// text after the `tool_result` blocks of a message, so a history written for Anthropic
    /// that is later sent to Bedrock Converse meets this. The `tool`-message case is a
    /// warning because it depends on the translation: a Converse request with the results
    /// and the text as two consecutive user messages got HTTP 200 in 2026-01 (issue 24; see
    /// `role-alternation`).
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": [{"text": "Search the docs"}]},
    ///   {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1",
    ///     "name": "search", "input": {"q": "setup"}}}]},
    ///   {"role": "user", "content": [
    ///     {"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "3 pages"}]}},
    ///     {"text": "Only the first one, please"}
    ///   ]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None automatic: the text must reach the model in a user message of its own, after an
    /// assistant message that answers the results. LiteLLM's `modify_params` inserts a
    /// placeholder assistant message between them; where the text is a note about the
    /// results, it can go into the result's content instead.
    pub struct ContentBesideToolResult {
        code: "TC515",
        name: "content-beside-tool-result",
        severity: Error,
        fix: None,
        judged_by: [Bedrock],
        summary: "user text would share a Converse message with tool results (Bedrock)",
    }
}

impl Rule for ContentBesideToolResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // Only where the history goes to Bedrock: not among the providers a history held to
        // none is translated for, where the translator's merging is unknown.
        if !cx.targets.contains(&Provider::Bedrock) || conv.is_response {
            return;
        }
        if let Some(verdict) = cx.judge(&[Provider::Bedrock]) {
            for text in beside_results(conv) {
                out.push(
                    Finding::at(
                        &Self::META,
                        &text.loc,
                        "user text in the same message as tool results; Bedrock Converse rejects it (\"Conversation blocks and tool result blocks cannot be provided in the same turn.\")",
                    )
                    .help("send the text in a user message of its own after an assistant message that answers the results, or move a note about the results into the result's content")
                    .rejected_by(verdict.clone()),
                );
            }
        }
        if let Some(verdict) = cx.judge_contested(&[], &[Provider::Bedrock]) {
            for text in after_tool_messages(conv) {
                out.push(
                    Finding::at(
                        &Self::META,
                        &text.loc,
                        "user message right after `tool` messages, with no assistant message between; a translation layer that merges them into one Converse message is rejected (\"Conversation blocks and tool result blocks cannot be provided in the same turn.\", 2024), while the two sent as separate messages got HTTP 200 (2026-01)",
                    )
                    .help("put an assistant message between the tool results and the user message, or move a note about the results into the last result's content")
                    .rejected_by(verdict.clone()),
                );
            }
        }
    }
}

/// The first text of each user message that also holds client tool results, in either order.
fn beside_results(conv: &Conversation) -> Vec<&Text> {
    let mut found = Vec::new();
    for turn in conv.turns.iter().filter(|t| t.role == Role::User) {
        for (_, items) in turn.by_message() {
            let results = items
                .iter()
                .any(|i| matches!(i, Item::Result(r) if !r.provider_executed));
            let text = items.iter().find_map(|i| match i {
                Item::Text(t) => Some(t),
                _ => None,
            });
            if let (true, Some(text)) = (results, text) {
                found.push(text);
            }
        }
    }
    found
}

/// In a history whose results are `tool` messages: the first text of a user turn that comes
/// right after a turn of them (system turns between do not count).
fn after_tool_messages(conv: &Conversation) -> Vec<&Text> {
    if conv.results_role != Role::Tool {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut after_results = false;
    for turn in conv.turns.iter().filter(|t| t.role != Role::System) {
        if turn.role == Role::User && after_results {
            if let Some(text) = turn.items.iter().find_map(|i| match i {
                Item::Text(t) => Some(t),
                _ => None,
            }) {
                found.push(text);
            }
        }
        after_results = turn.role == Role::Tool
            && turn
                .items
                .iter()
                .any(|i| matches!(i, Item::Result(r) if !r.provider_executed));
    }
    found
}
