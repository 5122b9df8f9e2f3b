use super::pairing::{call_at, next_turn_block, only_results_after, removal_waits, rewritten_ids};
use super::{declare_rule, Context, Rule, RuleMeta, UnpairedFix};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::transcript::{Conversation, Item, Loc, Role, ToolCall};

declare_rule! {
    /// ## What it does
    /// Reports a tool call that no later tool result answers, when the conversation goes on
    /// past it.
    ///
    /// ## Why it matters
    /// Every provider requires each call to be answered before the conversation continues:
    /// OpenAI rejects "An assistant message with 'tool_calls' must be followed by tool
    /// messages responding to each 'tool_call_id'", Anthropic "`tool_use` ids were found
    /// without `tool_result` blocks immediately after" (which Claude Code shows as "API
    /// Error: 400 due to tool use concurrency issues. Run /rewind to recover the
    /// conversation.", opencode after "AI_APICallError:", anomalyco/opencode#2720, and Copilot
    /// CLI after "Model call failed:", github/copilot-cli#102), Responses "No tool output found for
    /// function call", Mistral "Not the same number of function calls and responses"
    /// (camel-ai/camel#1467, 2025-01; mistralai/client-ts#106, 2025-06), DeepSeek and Kimi
    /// with OpenAI's text followed by "(insufficient tool messages following tool_calls
    /// message)" (zed-industries/zed#51944, 2026-03; bytedance/deer-flow#2706, 2026-05, on
    /// DeepSeek and, in a comment, Kimi 2.6); Kimi's own clients hit it with the ids listed
    /// ("The following tool_call_ids did not have response messages: Shell:58",
    /// MoonshotAI/kimi-cli#1977; MoonshotAI/kimi-code#705, 2026-06), and Qwen on DashScope
    /// with OpenAI's text after "<400> InternalError.Algo.InvalidParameter:"
    /// (QwenLM/qwen-code#606). It happens when a run is interrupted while a tool executes,
    /// or when a framework drops the result of one call of a parallel batch.
    ///
    /// A call that ends the conversation is not reported for requests and fine-tuning
    /// examples, which may legitimately end there. Session logs that are resumed (Claude
    /// Code, Codex) are: resuming sends the call followed by the next prompt. In the other
    /// agents' sessions such a call is still running, and so is one of a parallel batch
    /// whose other calls' results are all that follows it.
    ///
    /// A call whose result exists but in the wrong place is reported as
    /// `misplaced-tool-result` instead.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///     "function": {"name": "search", "arguments": "{\"q\": \"rust\"}"}}]},
    ///   {"role": "user", "content": "never mind, thanks"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Safe: insert an error result for the call, in the provider's shape, right where the
    /// provider expects it, saying the call was interrupted before a result was recorded.
    /// With `--unpaired remove-call` the call is removed instead (unsafe: the model's
    /// action disappears from the history) — unless removing it would split its turn: a
    /// parallel batch whose other calls were answered, or a turn carrying the model's
    /// reasoning (Anthropic requires a thinking-signed tool loop passed back whole; a
    /// Responses reasoning item must keep what followed it). Such a call is answered with the
    /// inserted error result instead, and the fix says why.
    pub struct UnpairedToolCall {
        code: "TC102",
        name: "unpaired-tool-call",
        severity: Error,
        fix: Safe,
        rejected_by: [Openai, OpenaiResponses, Anthropic, Gemini, Bedrock, Mistral, Deepseek, Moonshot, Dashscope],
        summary: "a call has no result anywhere after it, and the conversation goes on past it",
    }
}

impl Rule for UnpairedToolCall {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        let last_turn = conv.turns.len().saturating_sub(1);
        // Calls answered under a rewritten id: `orphaned-tool-result` re-pairs them.
        let rewritten: Vec<_> = rewritten_ids(conv, cx.pairs())
            .into_iter()
            .map(|(_, call)| call)
            .collect();
        for &pos in &cx.pairs().unanswered {
            let Some(call) = call_at(conv, pos) else {
                continue;
            };
            // In an agent's session, a call after which only results follow is as still
            // running as one the file ends on: one of a parallel batch whose others finished.
            let trailing = pos.0 == last_turn
                || (conv.format.is_agent_session() && only_results_after(conv, pos.0));
            if trailing && !conv.resumable {
                continue;
            }
            let message = if trailing {
                format!(
                    "{} has no result, and the session ends while it runs",
                    call.subject()
                )
            } else {
                format!(
                    "{} has no result, but the conversation continues at {}",
                    call.subject(),
                    cx.describe(&conv.turns[pos.0 + 1].loc)
                )
            };
            let finding = Finding::about_call(&Self::META, call, &call.loc, message).help(
                "add a tool result for this call right after it (an error result saying the call was interrupted is enough), or remove the call",
            );
            // A call outside an assistant turn cannot be answered by inserting a result
            // after it (the result would join the call's own turn); it gets no fix.
            let by_assistant = conv
                .turns
                .get(pos.0)
                .is_some_and(|t| t.role == Role::Assistant);
            let insert = || FixIntent::InsertResult {
                call: Box::new(call.clone()),
                after: insertion_point(conv, pos.0, call),
                // Calls without ids are answered by order: their result goes last.
                before: call.id.as_ref().and_then(|_| next_turn_block(conv, pos.0)),
            };
            let finding = match cx.options.unpaired {
                _ if !by_assistant || rewritten.contains(&pos) => finding,
                UnpairedFix::InsertResult => finding.fix(
                    Applicability::Safe,
                    "insert an error result saying the call was interrupted",
                    insert(),
                ),
                // One per round when they are all their message holds (`removal_waits`).
                UnpairedFix::RemoveCall
                    if removal_waits(
                        conv,
                        pos,
                        &call.message,
                        |item| matches!(item, Item::Call(c) if c.is_client()),
                        |p| cx.pairs().unanswered.binary_search(&p).is_ok(),
                    ) =>
                {
                    finding
                }
                UnpairedFix::RemoveCall => match removal_splits(conv, pos, |p| {
                    cx.pairs().unanswered.binary_search(&p).is_ok()
                }) {
                    // The turn stays whole: the call is answered instead.
                    Some(why) => finding.fix(
                        Applicability::Safe,
                        format!("insert an error result saying the call was interrupted (removing the call would split {why})"),
                        insert(),
                    ),
                    None => finding.fix(
                        Applicability::Unsafe,
                        "remove the unanswered call",
                        FixIntent::RemoveCall {
                            call: call.loc.clone(),
                            message: call.message.clone(),
                        },
                    ),
                },
            };
            out.push(finding);
        }
    }
}

/// What removing the unanswered call at `pos` would split, if anything: a parallel batch
/// whose other calls were answered (the model made them at once, and its next turn read
/// those results), or a turn that carries the model's reasoning (a thinking block, a
/// signature, a reasoning item), which providers require passed back whole with the calls
/// it produced (Anthropic keeps a thinking-signed tool loop whole; a Responses reasoning item
/// must be followed by what it produced).
fn removal_splits(
    conv: &Conversation,
    pos: (usize, usize),
    unanswered: impl Fn((usize, usize)) -> bool,
) -> Option<&'static str> {
    let turn = conv.turns.get(pos.0)?;
    let reasoning = turn.items.iter().any(|item| match item {
        Item::Thinking(_) => true,
        Item::Text(t) => conv.reasoning.carried.contains(&t.loc),
        Item::Call(c) => {
            conv.reasoning.carried.contains(&c.loc) || conv.reasoning.carried.contains(&c.message)
        }
        Item::Result(_) => false,
    });
    if reasoning {
        return Some("a turn that carries the model's reasoning");
    }
    let answered_sibling = turn.items.iter().enumerate().any(|(i, item)| {
        i != pos.1 && matches!(item, Item::Call(c) if c.is_client()) && !unanswered((pos.0, i))
    });
    answered_sibling.then_some("a parallel batch whose other calls were answered")
}

/// Where an inserted result goes: right after the call's turn; but a call without an id is
/// answered by name and order, so its result goes after the results already given in the
/// next turn, or it would take the place of one of them.
fn insertion_point(conv: &Conversation, turn: usize, call: &ToolCall) -> Loc {
    let after_turn = conv.turns[turn].last_message().clone();
    if call.id.is_some() {
        return after_turn;
    }
    conv.turns
        .get(turn + 1)
        .filter(|next| next.role != Role::Assistant)
        .and_then(|next| {
            next.items.iter().rev().find_map(|item| match item {
                Item::Result(r) => Some(r.message.clone()),
                _ => None,
            })
        })
        .unwrap_or(after_turn)
}
