// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt};

use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Finding, Severity};
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a tool call whose id is already used by an earlier call. Within one turn it is
    /// an error; across turns a warning. The later call is reported.
    ///
    /// ## Why it matters
    /// Results are paired with calls by id, so a repeated id makes the pairing ambiguous.
    /// Anthropic rejects duplicates in one message ("`tool_use` ids must be unique"), and
    /// Responses rejects duplicate items. Across turns, providers are inconsistent: some
    /// accept it (Gemini's short ids replayed through other providers), Claude Code sessions
    /// have failed on it. Streaming bugs and id generators with few bits cause it.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "content": [
    ///   {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
    ///   {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "b"}}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: which result belongs to which call cannot be known from the ids. Give one of
    /// the calls (and its result) a fresh id by hand.
    pub struct DuplicateToolCallId {
        code: "TC104",
        name: "duplicate-tool-call-id",
        severity: Error,
        fix: None,
        summary: "two calls share an id in one turn (a warning across turns)",
    }
}

impl Rule for DuplicateToolCallId {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        let mut first_use = HashMap::new();
        for (turn, call) in conv.calls() {
            let Some(id) = call.id.as_deref() else {
                continue;
            };
            let Some((first_turn, first_loc)) = first_use.get(id) else {
                first_use.insert(id, (turn, &call.loc));
                continue;
            };
            let (severity, scope) = if *first_turn == turn {
                (Severity::Error, "in the same turn")
            } else {
                (Severity::Warning, "in an earlier turn")
            };
            out.push(
                Finding::about_call(
                    &Self::META,
                    call,
                    &call.loc,
                    format!(
                        "tool call id \"{id}\" is already used by another call {scope}, at {}",
                        cx.describe(first_loc)
                    ),
                )
                .severity(severity)
                .help("give each tool call a unique id, and update its result to match"),
            );
        }
    }
}
