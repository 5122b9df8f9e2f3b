use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Loc, Role, Turn};

declare_rule! {
    /// ## What it does
    /// Reports two consecutive messages of the same role (user, then user; assistant, then
    /// assistant) in a history held to Bedrock Converse. Consecutive user messages whose later
    /// one holds tool results are `result-count-mismatch`'s finding, not this rule's.
    ///
    /// A warning, because Bedrock has changed its mind: the Converse API rejected such
    /// histories with "A conversation must alternate between user and assistant roles. Make
    /// sure the conversation alternates between user and assistant roles and try again."
    /// (`ValidationException`; langchain-ai/langchain-aws#130, 2024-08; langchain-ai/langchainjs#6724,
    /// 2024-09; langgenius/dify#9294, 2024-10; Portkey-AI/gateway#748, 2024-11;
    /// microsoft/semantic-kernel#10281, 2025-01), while a recorded Converse request with two
    /// consecutive user messages (a tool result, then text) got HTTP 200 in 2026-01 (issue 24).
    /// No acceptance of two consecutive assistant messages is recorded.
    ///
    /// ## Why it matters
    /// Where the order is rejected, every later request of the conversation fails the same
    /// way. Agents that append a reminder as a user message after the tool results, or that
    /// store a streamed answer as two assistant messages, produce it; translation layers
    /// (LangChain, Portkey) merge such messages before they send them to Bedrock.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": [{"text": "Summarise the report."}]},
    ///   {"role": "user", "content": [{"text": "Keep it short."}]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Unsafe: merge the second message's content blocks into the first, as the translation
    /// layers do (the blocks toolcheck reads kept, in order). Unsafe because a block it does
    /// not read (a `cachePoint`) goes with the removed message. No fix when the first message
    /// ends with a tool call (text after a call is `content-after-tool-use` for Claude).
    pub struct RoleAlternation {
        code: "TC510",
        name: "role-alternation",
        severity: Warning,
        fix: Unsafe,
        judged_by: [Bedrock],
        summary: "two consecutive messages have the same role (Bedrock Converse)",
    }
}

impl Rule for RoleAlternation {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if !cx.targets.contains(&Provider::Bedrock) || conv.is_response {
            return;
        }
        let Some(verdict) = cx.judge_contested(&[], &[Provider::Bedrock]) else {
            return;
        };
        for pair in conv.turns.windows(2) {
            let [earlier, later] = pair else {
                continue;
            };
            let role = earlier.role;
            if role != later.role || !matches!(role, Role::User | Role::Assistant) {
                continue;
            }
            if later.items.iter().any(|i| matches!(i, Item::Result(_))) {
                continue;
            }
            let finding = Finding::at(
                &Self::META,
                &later.loc,
                format!(
                    "{} message right after another {} message; Bedrock Converse has rejected this (\"A conversation must alternate between user and assistant roles\", 2024) and accepted a tool result message followed by a user message (2026-01)",
                    role.as_str(),
                    role.as_str()
                ),
            )
            .help("merge the two messages into one (their content blocks in order)")
            .rejected_by(verdict.clone());
            out.push(match merge(earlier, later) {
                Some(intent) => finding.fix(
                    Applicability::Unsafe,
                    "merge the message into the one before it",
                    intent,
                ),
                None => finding,
            });
        }
    }
}

/// Moving every block of `later` (one message) to the end of `earlier` (one message), then
/// removing `later`: `None` where the blocks are not elements of the messages' content
/// arrays, or `earlier` ends with a call.
fn merge(earlier: &Turn, later: &Turn) -> Option<FixIntent> {
    let last = earlier.items.last()?;
    if matches!(last, Item::Call(_)) || later.items.is_empty() {
        return None;
    }
    let in_content = |item: &Item, message: &Loc| {
        let loc = item.loc();
        item.message() == message
            && loc.base == message.base
            && loc
                .pointer
                .strip_prefix(message.pointer.as_str())
                .and_then(|rest| rest.strip_prefix("/content/"))
                .is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
    };
    let all_in = |turn: &Turn| turn.items.iter().all(|i| in_content(i, &turn.loc));
    if !all_in(earlier) || !all_in(later) {
        return None;
    }
    Some(FixIntent::GatherResults {
        into: last.loc().clone(),
        results: later.items.iter().map(|i| i.loc().clone()).collect(),
        messages: vec![later.loc.clone()],
    })
}
