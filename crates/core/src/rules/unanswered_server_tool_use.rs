use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{CallKind, Conversation, Item, Role};

declare_rule! {
    /// ## What it does
    /// Reports a server tool call (Anthropic `server_tool_use` for web search, web fetch, code
    /// execution, tool search; `mcp_tool_use`) that no result block (`web_search_tool_result`,
    /// `mcp_tool_result` …) answers, and a server tool's result block with no server tool
    /// call before it. An unanswered server tool call in the **last** message of a request
    /// is not reported: that is how a `pause_turn` response is continued.
    ///
    /// ## Why it matters
    /// The provider runs server tools itself and answers them inside the same assistant
    /// message, so a history that lost the answer cannot be continued. Anthropic rejects it:
    /// "messages.1: `web_search` tool use with id `srvtoolu_01UkjByNZ6pFvVLGAjWnYBjt` was
    /// found without a corresponding `web_search_tool_result` block"
    /// (anthropics/anthropic-sdk-python#1339, 2026-04; gsd-build/gsd-2#2869; an older wording
    /// in anthropics/anthropic-sdk-python#961, 2025-05), and a result without its call:
    /// "messages.15.content.0: unexpected `tool_use_id` found in `advisor_tool_result`
    /// blocks: srvtoolu_…. Each `advisor_tool_result` block must have a corresponding
    /// `server_tool_use` block before it." (anthropics/claude-code#64383, #95406).
    ///
    /// Anthropic's stop-reason documentation says a `pause_turn` response "may contain a
    /// `server_tool_use` block without a corresponding result block" and is continued by
    /// sending it back as-is; a recorded request with such a message last got HTTP 200
    /// (pydantic-ai's `test_pause_turn_web_search_vcr` cassette), and an Anthropic maintainer
    /// wrote that "the paused assistant turn just has to stay the last message"
    /// (anthropic-sdk-python#1507). Anything after it ends the turn, and the request fails.
    ///
    /// Clients that rebuild an assistant message from streamed blocks and drop the ones they
    /// do not render, or that cut a history between a server call and its result, cause it.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": "What changed in Rust 1.90?"},
    ///   {"role": "assistant", "content": [
    ///     {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
    ///      "input": {"query": "Rust 1.90 release notes"}}]},
    ///   {"role": "user", "content": "And in 1.91?"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: the search results (or the code's output) were the provider's, and no file
    /// holds them. Remove the server tool call, or the whole assistant message, from the
    /// history, or keep the message last and let the provider finish its turn.
    pub struct UnansweredServerToolUse {
        code: "TC107",
        name: "unanswered-server-tool-use",
        severity: Error,
        fix: None,
        rejected_by: [Anthropic],
        summary: "a server tool call has no result block, or a server tool result has no call",
    }
}

impl Rule for UnansweredServerToolUse {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // A saved response is the provider's own output, answered or paused as it chose.
        if conv.is_response {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Anthropic]) else {
            return;
        };
        let last = conv.turns.len().saturating_sub(1);
        for (t, turn) in conv.turns.iter().enumerate() {
            if turn.role != Role::Assistant {
                continue;
            }
            for (i, item) in turn.items.iter().enumerate() {
                match item {
                    Item::Call(call) if call.kind == CallKind::ProviderExecuted => {
                        let answered = later_items(conv, t, i).any(|later| {
                            matches!(later, Item::Result(r)
                                if r.provider_executed && r.call_id.is_some() && r.call_id == call.id)
                        });
                        if answered || t == last {
                            continue;
                        }
                        out.push(
                            Finding::about_call(
                                &Self::META,
                                call,
                                &call.loc,
                                format!(
                                    "server {} has no result block, and the conversation goes on after it",
                                    call.subject()
                                ),
                            )
                            .help("remove the server tool call (or its assistant message) from the history; only the last message may hold an unanswered one (a paused turn)")
                            .rejected_by(verdict.clone()),
                        );
                    }
                    Item::Result(result) if result.provider_executed => {
                        let called = earlier_items(conv, t, i).any(|earlier| {
                            matches!(earlier, Item::Call(c)
                                if c.kind == CallKind::ProviderExecuted && c.id.is_some() && c.id == result.call_id)
                        });
                        if called {
                            continue;
                        }
                        let id = result.call_id.as_deref().unwrap_or_default();
                        out.push(
                            Finding::at(
                                &Self::META,
                                &result.loc,
                                format!("server tool result for \"{id}\" has no server tool call before it"),
                            )
                            .help("remove the result block, or restore the `server_tool_use` block it answers before it")
                            .rejected_by(verdict.clone()),
                        );
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The items after item `i` of turn `t`: a server tool's result is in its call's assistant
/// message on the wire, but histories that keep results apart (the Vercel AI SDK defers a
/// provider-executed result to the next tool message) place it later.
fn later_items(conv: &Conversation, t: usize, i: usize) -> impl Iterator<Item = &Item> {
    conv.turns
        .iter()
        .skip(t)
        .enumerate()
        .flat_map(move |(k, turn)| turn.items.iter().skip(if k == 0 { i + 1 } else { 0 }))
}

/// The items before item `i` of turn `t`.
fn earlier_items(conv: &Conversation, t: usize, i: usize) -> impl Iterator<Item = &Item> {
    conv.turns
        .iter()
        .take(t + 1)
        .enumerate()
        .flat_map(move |(k, turn)| turn.items.iter().take(if k == t { i } else { usize::MAX }))
}
