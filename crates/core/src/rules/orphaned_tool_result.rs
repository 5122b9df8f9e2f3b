use super::pairing::{call_at, removal_waits, result_at, rewritten_ids, ResultStatus};
use super::{declare_rule, id_list, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::transcript::{Conversation, Item, ToolCall, ToolResult};

declare_rule! {
    /// ## What it does
    /// Reports a tool result that answers no earlier tool call in its conversation.
    ///
    /// ## Why it matters
    /// Providers reject the whole request: Anthropic with "unexpected `tool_use_id` found in
    /// `tool_result` blocks" (listed in Claude Code's error reference as "API Error: 400
    /// orphaned tool_result in conversation history"), OpenAI with "messages with role 'tool' must be a response to a
    /// preceding message with 'tool_calls'", Responses with "No tool call found for function
    /// call output", Mistral with "Unexpected role 'tool' after role 'user'" (code 3230,
    /// charmbracelet/crush#279, 2025-07; "Unexpected role RoleEnum.tool" in
    /// mistralai/mistral-inference#135, 2024-03), DeepSeek with OpenAI's text
    /// (FoundationAgents/OpenManus#227, 2025-03). It typically happens when a chat-memory
    /// window or a compaction evicts the assistant message holding the call but keeps the
    /// result, and every later request of that conversation fails.
    ///
    /// Responses API requests with `previous_response_id` or `conversation` keep earlier
    /// items on the server, so an output whose call is not in the file is not reported there.
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": "What's the weather?"},
    ///   {"role": "tool", "tool_call_id": "call_9x", "content": "22°C"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Safe: remove the orphaned result (and its message, if that leaves it empty). The call
    /// it answered is gone, so the model never sees a result it cannot place. When a
    /// message's results are all removed, they go one per fix round, so the last takes the
    /// message with it and no empty message is left.
    ///
    /// A result whose id is its call's rewritten on one side only (Kimi's
    /// `functions.read_file:0` answered as `functions_read_file_0` by a gateway that made the
    /// ids match Anthropic's pattern) is reported with the call it belongs to: the call is
    /// unanswered, in the turn right before, at the same place among its calls, and the ids
    /// are equal once every character but letters and digits reads as `_`. Its fix is unsafe
    /// (the pairing is inferred): give the result its call's id (OpenAI Chat histories).
    pub struct OrphanedToolResult {
        code: "TC101",
        name: "orphaned-tool-result",
        severity: Error,
        fix: Safe,
        rejected_by: [Openai, OpenaiResponses, Anthropic, Gemini, Bedrock, Mistral, Deepseek],
        summary: "a result answers no earlier call in its conversation",
    }
}

impl Rule for OrphanedToolResult {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.server_history {
            return;
        }
        let orphans: foldhash::HashSet<(usize, usize)> = cx
            .pairs()
            .results
            .iter()
            .filter(|(_, status)| *status == ResultStatus::Orphan)
            .map(|&(pos, _)| pos)
            .collect();
        // Most conversations have none: the calls are indexed only for one that does.
        if orphans.is_empty() {
            return;
        }
        // Computed once per conversation, so N orphans cost N lookups, not N scans.
        let mut first_seen: Vec<(usize, &str)> = Vec::new();
        let mut seen: foldhash::HashSet<&str> = foldhash::HashSet::default();
        // Every call by key, each key's in conversation order (a stable sort): one list, not
        // a list per key.
        let mut by_key: Vec<(&str, usize, &crate::transcript::Loc)> = Vec::new();
        for (t, c) in conv.calls() {
            by_key.push((c.key.as_str(), t, &c.loc));
            if !c.is_client() {
                continue;
            }
            if let Some(id) = c.id.as_deref() {
                if seen.insert(id) {
                    first_seen.push((t, id));
                }
            }
        }
        by_key.sort_by_key(|&(key, _, _)| key);
        let rewritten = rewritten_ids(conv, cx.pairs());
        for &(pos, status) in &cx.pairs().results {
            if status != ResultStatus::Orphan {
                continue;
            }
            let Some(result) = result_at(conv, pos) else {
                continue;
            };
            // The distinct ids of calls up to the result's turn: a prefix, in order.
            let earlier = first_seen.get(..first_seen.partition_point(|&(t, _)| t <= pos.0));
            let earlier = earlier.unwrap_or_default();
            let context = if earlier.is_empty() {
                "the conversation has no tool call before it".to_string()
            } else {
                format!(
                    "the conversation declares calls {}",
                    id_list(earlier.iter().map(|&(_, id)| id))
                )
            };
            let key = result.key.as_str();
            let from = by_key.partition_point(|&(k, _, _)| k < key);
            let later = by_key
                .get(from..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&(k, _, _)| k == key)
                .find(|&&(_, t, _)| t >= pos.0)
                .map(|&(_, _, loc)| loc.clone());
            let help = match later {
                Some(loc) => format!(
                    "its call comes later, at {}; a result must follow its call, so remove this one",
                    cx.describe(&loc)
                ),
                None => "remove the result, or restore the tool call it answers (a memory window, compaction or truncation may have dropped it)".to_string(),
            };
            let finding = Finding::about_result(
                &Self::META,
                result,
                &result.loc,
                format!("{} has no matching tool call; {context}", result.subject()),
            )
            .help(help);
            // One per round when they are all their message holds (`removal_waits`).
            let waits = removal_waits(
                conv,
                pos,
                &result.message,
                |item| matches!(item, Item::Result(_)),
                |p| orphans.contains(&p),
            );
            if let Some(call) = rewritten
                .iter()
                .find(|(r, _)| *r == pos)
                .and_then(|&(_, c)| call_at(conv, c))
            {
                out.push(repair(cx, finding, result, call));
                continue;
            }
            if waits {
                out.push(finding);
                continue;
            }
            out.push(finding.fix(
                Applicability::Safe,
                "remove the orphaned tool result",
                FixIntent::RemoveResult {
                    result: result.loc.clone(),
                    message: result.message.clone(),
                },
            ));
        }
    }
}

/// An orphaned result whose id is its call's rewritten on one side: it says so, and where the
/// format lets a fix rewrite the id, offers to give the result its call's id (unsafe: the
/// pairing is inferred from the ids' shape and the results' order).
fn repair(cx: &Context<'_>, finding: Finding, result: &ToolResult, call: &ToolCall) -> Finding {
    let Some(id) = call.id.as_deref() else {
        return finding;
    };
    let finding = finding.help(format!(
        "its id looks like the id of {} at {}, rewritten on one side only; give the result its call's id",
        call.subject(),
        cx.describe(&call.loc)
    ));
    let at = result.id_field.map(|field| result.loc.child(field));
    match (at, serde_json::to_string(id)) {
        (Some(at), Ok(text)) => finding.fix(
            Applicability::Unsafe,
            format!("rename the result's id to \"{id}\", its call's"),
            FixIntent::Replace { at, text },
        ),
        _ => finding,
    }
}

#[cfg(test)]
mod tests {
    /// A result before its call is told where the call comes, among calls of other keys
    /// before and after it.
    #[test]
    fn a_result_before_its_call_is_told_where_the_call_is() {
        let call = |id: &str| {
            serde_json::json!({"role": "assistant", "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "f", "arguments": "{}"}}]})
        };
        let result =
            |id: &str| serde_json::json!({"role": "tool", "tool_call_id": id, "content": "ok"});
        let user = serde_json::json!({"role": "user", "content": "go"});
        let doc = serde_json::json!({"messages": [user, call("c9"), result("c9"), call("c5"),
            result("c5"), result("c1"), result("c7"), user, call("c1"), result("c1"), call("c7"),
            result("c7")]});
        let report = crate::lint::lint_str("d.json", &doc.to_string());
        let orphans: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.rule.code == "TC101")
            .filter_map(|f| f.help.as_deref())
            .collect();
        assert_eq!(orphans.len(), 2, "{:?}", report.findings);
        assert!(
            orphans
                .iter()
                .all(|h| h.starts_with("its call comes later, at ")),
            "{orphans:?}"
        );
        assert!(orphans[0].contains("/messages/8"), "{orphans:?}");
        assert!(orphans[1].contains("/messages/10"), "{orphans:?}");
    }
}
