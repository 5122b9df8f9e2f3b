use super::pairing::{call_at, result_at, ResultStatus};
use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::{self, Provider};
use crate::transcript::{Conversation, Item};

declare_rule! {
    /// ## What it does
    /// Reports a tool result that names a different tool than the call it answers (Gemini
    /// `functionResponse.name` against its `functionCall.name`, paired by `id`).
    ///
    /// ## Why it matters
    /// Gemini 3 models reject the request with a bare "Request contains an invalid
    /// argument." (status `INVALID_ARGUMENT`, no field named): google/adk-python#6761
    /// (2026-08), where a history rebuild paired a call with another tool's response under a
    /// reused id; watt-mind/coach PR #280 (2026-07), which bisected the same bare error
    /// against the live API (gemini-3-flash-preview, gemini-3.1-flash-lite-preview) to a
    /// `functionResponse.name` that is not the name of a declared tool (`"unknown"`). The
    /// error names nothing, so the cause is hard to find by hand. Only Gemini is known to
    /// check the name; the evidence is from Gemini 3 models.
    ///
    /// ## Example
    /// ```json
    /// {"contents": [
    ///   {"role": "user", "parts": [{"text": "Open the notes"}]},
    ///   {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "read_file", "args": {"path": "notes.md"}}}]},
    ///   {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "unknown", "response": {"output": "…"}}}]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None automatic: the name may be right and the id wrong. Give the result its call's
    /// name when the id is right. Results toolcheck inserts always carry the call's name.
    pub struct ResultNameMismatch {
        code: "TC509",
        name: "result-name-mismatch",
        severity: Error,
        fix: None,
        judged_by: [Gemini],
        summary: "a tool result names a different tool than the call it answers (Gemini)",
    }
}

impl Rule for ResultNameMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        let Some(verdict) = cx.judge(&[Provider::Gemini]) else {
            return;
        };
        for &(pos, status) in &cx.pairs().results {
            let call = match status {
                ResultStatus::Paired { call } | ResultStatus::Misplaced { call, .. } => call,
                ResultStatus::Orphan | ResultStatus::Duplicate { .. } => continue,
            };
            let (Some(result), Some(turn), Some(call)) = (
                result_at(conv, pos),
                conv.turns.get(call.0),
                call_at(conv, call),
            ) else {
                continue;
            };
            // Calls sharing an id in one turn (`duplicate-tool-call-id`) pair ambiguously: a
            // name is wrong only if no call of that turn with the id has it.
            let named = |name: &str| {
                turn.items.iter().any(
                    |item| matches!(item, Item::Call(c) if c.key == result.key && c.name == name),
                )
            };
            let Some(name) = result.name.as_deref().filter(|n| !named(n)) else {
                continue;
            };
            let message = format!(
                "{} names `{name}`, but its call ({}) is to `{}`; {} rejects the request (\"Request contains an invalid argument.\")",
                result.subject(),
                cx.describe(&call.loc),
                call.name,
                provider::list(&verdict.1)
            );
            out.push(
                Finding::about_result(&Self::META, result, &result.loc, message)
                    .help(format!("name the result `{}`, as its call", call.name))
                    .rejected_by(verdict.clone()),
            );
        }
    }
}
