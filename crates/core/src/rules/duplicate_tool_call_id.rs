// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt};

use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Finding, Severity};
use crate::provider::Provider;
use crate::transcript::{Conversation, ToolCall};

declare_rule! {
    /// ## What it does
    /// Reports tool calls whose id is already used by an earlier call. Within one turn it is
    /// an error, reported once per turn at the turn's second call with how many calls of
    /// the turn share the id; across turns a warning, reported once per id at its first reuse
    /// with how many later turns use it again (a store whose calls all have `call_id: ""`,
    /// as OpenAI Agents SDK databases can, gives one warning, not one per call).
    ///
    /// ## Why it matters
    /// Results are paired with calls by id, so a repeated id makes the pairing ambiguous.
    /// Anthropic rejects duplicates in one message ("`tool_use` ids must be unique", which
    /// Claude Code shows as "API Error: 400 duplicate tool_use ID in conversation history."), and
    /// Responses rejects duplicate items. Gemini 3 rejects two `functionCall` parts with the
    /// same id inside one `model` Content with a bare "Request contains an invalid argument."
    /// and accepts the same id in different model turns (watt-mind/coach PR #280, 2026-07,
    /// bisected against the live API on gemini-3-flash-preview and
    /// gemini-3.1-flash-lite-preview). Across turns, providers are inconsistent: some
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
        rejected_by: [Anthropic],
        judged_by: [Anthropic, Gemini],
        summary: "two calls share an id in one turn (a warning across turns)",
    }
}

impl Rule for DuplicateToolCallId {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // Most histories repeat no id: told by a set of them before any id's calls are listed.
        let mut ids = foldhash::HashSet::default();
        if !conv
            .calls()
            .filter_map(|(_, call)| call.id.as_deref())
            .any(|id| !ids.insert(id))
        {
            return;
        }
        // Each id's calls with their turns, ids in the order first used.
        let mut uses: HashMap<&str, Vec<(usize, &ToolCall)>> = HashMap::new();
        let mut order = Vec::new();
        for (turn, call) in conv.calls() {
            let Some(id) = call.id.as_deref() else {
                continue;
            };
            let calls = uses.entry(id).or_default();
            if calls.is_empty() {
                order.push(id);
            }
            calls.push((turn, call));
        }
        for id in order {
            let Some(calls) = uses.get(id).filter(|c| c.len() > 1) else {
                continue;
            };
            same_turn(cx, id, calls, out);
            later_turns(cx, id, calls, out);
        }
    }
}

/// One error per turn in which `calls` (every call with `id`, in order) repeat the id: the
/// second call of the turn is reported, with how many share it.
fn same_turn(cx: &Context<'_>, id: &str, calls: &[(usize, &ToolCall)], out: &mut Vec<Finding>) {
    for run in calls.chunk_by(|a, b| a.0 == b.0) {
        let (Some((_, first)), Some((_, second))) = (run.first(), run.get(1)) else {
            continue;
        };
        let message = match run.len() {
            2 => format!(
                "tool call id \"{id}\" is already used by another call in the same turn, at {}",
                cx.describe(&first.loc)
            ),
            n => format!(
                "tool call id \"{id}\" is used by {n} calls in the same turn; the first is at {}",
                cx.describe(&first.loc)
            ),
        };
        let finding = Finding::about_call(&DuplicateToolCallId::META, second, &second.loc, message)
            .severity(Severity::Error)
            .help(HELP);
        // Gemini rejects a repeated id inside one model Content, not across turns.
        out.push(match cx.judge(&[Provider::Anthropic, Provider::Gemini]) {
            Some(verdict) => finding.rejected_by(verdict),
            None => finding,
        });
    }
}

/// One warning for every later turn that uses `id` again: the first such call is reported,
/// with how many turns reuse the id.
fn later_turns(cx: &Context<'_>, id: &str, calls: &[(usize, &ToolCall)], out: &mut Vec<Finding>) {
    let Some(&(first_turn, first)) = calls.first() else {
        return;
    };
    // Each later turn's first call with the id.
    let reuses: Vec<&ToolCall> = calls
        .chunk_by(|a, b| a.0 == b.0)
        .filter_map(|run| run.first())
        .filter(|(turn, _)| *turn != first_turn)
        .map(|&(_, call)| call)
        .collect();
    let (Some(reuse), Some(last)) = (reuses.first(), reuses.last()) else {
        return;
    };
    let message = match reuses.len() {
        1 => format!(
            "tool call id \"{id}\" is already used by another call in an earlier turn, at {}",
            cx.describe(&first.loc)
        ),
        n => format!(
            "tool call id \"{id}\" is used again in {n} later turns, from here to {}; its first use is at {}",
            cx.describe(&last.loc),
            cx.describe(&first.loc)
        ),
    };
    out.push(
        Finding::about_call(&DuplicateToolCallId::META, reuse, &reuse.loc, message)
            .severity(Severity::Warning)
            .help(HELP),
    );
}

const HELP: &str = "give each tool call a unique id, and update its result to match";
