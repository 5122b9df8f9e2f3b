use super::pairing::{call_at, next_turn_block, result_at, Misplacement, Pos, ResultStatus};
use super::{declare_rule, Context, Rule, RuleMeta, Verdict};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Pairing, Role};

declare_rule! {
    /// ## What it does
    /// Reports a tool result that answers an earlier call, but is not where the provider
    /// requires it: OpenAI wants `tool` messages directly after the assistant message with
    /// the calls; Anthropic, Bedrock and Gemini want the results in the very next turn
    /// (after merging adjacent same-role messages), and Anthropic wants them before any text
    /// in that turn. The finding is on the result; its call is not also reported as unpaired.
    /// Results split over consecutive result turns right after the call's turn (Gemini
    /// Contents, Bedrock messages) are one defect of the call's turn, reported once as
    /// `result-count-mismatch` instead; results right after consecutive Gemini `model`
    /// Contents that answer calls of the first are `call-turn-out-of-place`'s finding.
    ///
    /// ## Why it matters
    /// The provider rejects the request as if the call had no result ("tool_use ids were
    /// found without tool_result blocks immediately after", "Please ensure that function
    /// response turn comes immediately after a function call turn"; DeepSeek: "An assistant
    /// message with 'tool_calls' must be followed by tool messages responding to each
    /// 'tool_call_id'. (insufficient tool messages following tool_calls message)", with a
    /// system message between the calls and their results in gptme/gptme#3421). Frameworks
    /// that insert a user or system message while tools run produce this.
    ///
    /// OpenAI's Responses API pairs a `function_call_output` with its call by `call_id`
    /// wherever it comes later, so Responses items are not reported there. DeepSeek's
    /// `/responses` does not: a `message` or `reasoning` item between a call and its output
    /// is rejected with "No tool output found for tool call call_…" although the output is
    /// in the request (deepseek-ai/DeepSeek-V3#1588: a Codex hook's developer message;
    /// deepseek-ai/awesome-deepseek-integration#740), so a Responses history held to DeepSeek
    /// is reported when anything but other calls and outputs sits between the two.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///     "function": {"name": "search", "arguments": "{}"}}]},
    ///   {"role": "user", "content": "are you there?"},
    ///   {"role": "tool", "tool_call_id": "call_1", "content": "3 results"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Safe: move the result to where the provider requires it. Nothing is lost.
    pub struct MisplacedToolResult {
        code: "TC103",
        name: "misplaced-tool-result",
        severity: Error,
        fix: Safe,
        rejected_by: [Openai, Anthropic, Gemini, Bedrock, Deepseek],
        summary: "a call's result exists later, but not where the provider requires it",
    }
}

impl Rule for MisplacedToolResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.pairing == Pairing::AnyLater {
            if let Some(verdict) = cx.judge(&[Provider::Deepseek]) {
                not_adjacent(cx, conv, &verdict, out);
            }
            return;
        }
        for &(pos, status) in &cx.pairs().results {
            let ResultStatus::Misplaced { call, why } = status else {
                continue;
            };
            let (Some(result), Some(call_node)) = (result_at(conv, pos), call_at(conv, call))
            else {
                continue;
            };
            let call_at_ = cx.describe(&call_node.loc);
            let message = match why {
                Misplacement::SameTurn => format!(
                    "{} is in the same turn as its call at {call_at_}; it must be in the next turn",
                    result.subject()
                ),
                Misplacement::Late if pos.0 == call.0 + 1 => format!(
                    "{} is in an assistant turn; it must be in the turn after its call at {call_at_}",
                    result.subject()
                ),
                Misplacement::Late => format!(
                    "{} comes too late: its call at {call_at_} must be answered in the turn right after it, but {} in between",
                    result.subject(),
                    between(conv, call.0, pos.0)
                ),
                Misplacement::AfterText => format!(
                    "{} follows text in its message; tool results must come first",
                    result.subject()
                ),
                // Split over consecutive result turns: `result-count-mismatch` reports the
                // call turn once.
                Misplacement::Split => continue,
                // After consecutive model Contents the Gemini API takes as one call turn:
                // `call-turn-out-of-place` reports the run once, as contested.
                Misplacement::AfterContestedMerge => continue,
            };
            let help = match why {
                Misplacement::AfterText => {
                    "move the tool result before the text of its message".to_string()
                }
                _ => format!(
                    "move the tool result right after the call's turn ({})",
                    cx.describe(&conv.turns[call.0].loc)
                ),
            };
            let finding =
                Finding::about_result(&Self::META, result, &result.loc, message).help(help);
            // Moving a result only helps a call made by the assistant: a call in any other
            // turn has no "turn after it" that would answer it, and the move would circle.
            let finding = if conv
                .turns
                .get(call.0)
                .is_some_and(|t| t.role == Role::Assistant)
            {
                finding.fix(
                    Applicability::Safe,
                    "move the result right after its call's turn",
                    FixIntent::MoveResult {
                        result: result.loc.clone(),
                        message: result.message.clone(),
                        after: conv.turns[call.0].last_message().clone(),
                        before: next_turn_block(conv, call.0),
                    },
                )
            } else {
                finding
            };
            out.push(finding);
        }
    }
}

/// Responses items held to DeepSeek: each output whose call is separated from it by anything
/// but other calls and outputs (a message, a reasoning item).
fn not_adjacent(cx: &Context<'_>, conv: &Conversation, verdict: &Verdict, out: &mut Vec<Finding>) {
    let order: Vec<(Pos, &Item)> = conv
        .turns
        .iter()
        .enumerate()
        .flat_map(|(t, turn)| {
            turn.items
                .iter()
                .enumerate()
                .map(move |(i, item)| ((t, i), item))
        })
        .collect();
    // `order` is in position order: found by binary search, not a scan per result.
    let index = |pos: Pos| order.binary_search_by_key(&pos, |(p, _)| *p).ok();
    for &(pos, status) in &cx.pairs().results {
        let ResultStatus::Paired { call } = status else {
            continue;
        };
        let (Some(from), Some(to)) = (index(call), index(pos)) else {
            continue;
        };
        let in_the_way: Vec<&(Pos, &Item)> = order
            .get(from + 1..to)
            .unwrap_or_default()
            .iter()
            // What sits inside the call's own turn (reasoning between parallel calls) is
            // `missing-thinking-block`'s; moving the output cannot change it.
            .filter(|((t, _), _)| *t != call.0)
            .filter(|(_, item)| match item {
                Item::Call(c) => !c.is_client(),
                Item::Result(r) => r.provider_executed,
                Item::Text(_) | Item::Thinking(_) => true,
            })
            .collect();
        let Some(((turn, _), first)) = in_the_way.first() else {
            continue;
        };
        let (Some(result), Some(call_node), Some(call_turn)) = (
            result_at(conv, pos),
            call_at(conv, call),
            conv.turns.get(call.0),
        ) else {
            continue;
        };
        let what = match (first, conv.turns.get(*turn)) {
            (Item::Thinking(_), _) => "a reasoning item".to_string(),
            (_, Some(turn)) if turn.role == Role::Assistant => "an assistant message".to_string(),
            (_, Some(turn)) => format!("a {} message", turn.role.as_str()),
            (_, None) => "an item".to_string(),
        };
        let more = match in_the_way.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let finding = Finding::about_result(
            &MisplacedToolResult::META,
            result,
            &result.loc,
            format!(
                "{} is not next to its call at {}: {what}{more} comes between them, and DeepSeek's Responses endpoint then finds no output for the call",
                result.subject(),
                cx.describe(&call_node.loc)
            ),
        )
        .help("move the output right after its call, before the item in between")
        .fix(
            Applicability::Safe,
            "move the output right after its call's turn",
            FixIntent::MoveResult {
                result: result.loc.clone(),
                message: result.message.clone(),
                after: call_turn.last_message().clone(),
                before: next_turn_block(conv, call.0),
            },
        )
        .rejected_by(verdict.clone());
        out.push(finding);
    }
}

/// What is in the way between a call's turn and a late result: the turns in between that
/// are not themselves results ("a user turn comes", "2 turns come").
fn between(conv: &Conversation, from: usize, to: usize) -> String {
    let middle = conv.turns.get(from + 1..to).unwrap_or_default();
    let in_the_way: Vec<_> = middle
        .iter()
        .filter(|t| !t.items.iter().all(|i| matches!(i, Item::Result(_))))
        .collect();
    let turns: Vec<_> = if in_the_way.is_empty() {
        middle.iter().collect()
    } else {
        in_the_way
    };
    match turns.as_slice() {
        [one] => format!("a {} turn comes", one.role.as_str()),
        many => format!("{} turns come", many.len()),
    }
}
