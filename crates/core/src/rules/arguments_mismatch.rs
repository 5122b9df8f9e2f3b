// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::HashMap;

use super::pairing::{call_at, ResultStatus};
use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{quote, Finding};
use crate::transcript::{Conversation, ParsedArgs};
use serde_json::Value as Json;

declare_rule! {
    /// ## What it does
    /// Reports a tool result that repeats its call's arguments (Moltis `tool_result` lines
    /// keep the arguments the tool ran with as an object, beside the call's JSON string) when
    /// the two disagree. They are compared after parsing, so key order and whitespace do not
    /// matter. Formats that do not repeat arguments on results are never reported.
    ///
    /// ## Why it matters
    /// When the history is replayed, the model is shown the call's arguments and the result,
    /// but the result was produced by different arguments: a hook or an argument repair
    /// rewrote them, a default was filled in, or the log was edited by hand. The model then
    /// reasons about a result as if it answered the request it made ("the file I asked for
    /// is empty"), and a reviewer of the log cannot tell what actually ran.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
    ///   "function": {"name": "exec", "arguments": "{\"command\": \"ls docs\"}"}}]}
    /// {"role": "tool_result", "tool_call_id": "call_1", "tool_name": "exec",
    ///   "arguments": {"command": "ls"}, "success": true, "result": {"stdout": "README.md"}}
    /// ```
    ///
    /// ## Fix
    /// None: which of the two the tool really ran with, and which the model should see, is a
    /// judgement about the run. Record the arguments the tool ran with in the call as well,
    /// or tell the model in the result that its arguments were changed.
    pub struct ArgumentsMismatch {
        code: "TC204",
        name: "arguments-mismatch",
        severity: Warning,
        fix: None,
        summary: "a result repeats its call's arguments, and they differ from the call's",
    }
}

impl Rule for ArgumentsMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.echoed_arguments.is_empty() {
            return;
        }
        let echoes: HashMap<_, _> = conv
            .echoed_arguments
            .iter()
            .map(|e| (&e.result, e))
            .collect();
        for &(pos, status) in &cx.pairs().results {
            let (ResultStatus::Paired { call } | ResultStatus::Misplaced { call, .. }) = status
            else {
                continue;
            };
            let (Some(call), Some(result)) =
                (call_at(conv, call), super::pairing::result_at(conv, pos))
            else {
                continue;
            };
            let Some(echo) = echoes.get(&result.loc) else {
                continue;
            };
            // Broken call arguments are other rules' findings; an empty call matches an
            // empty echo.
            let said = match &*cx.args(call) {
                ParsedArgs::Object(object) => object.clone(),
                ParsedArgs::NotObject(value) => value.clone(),
                ParsedArgs::Empty => Json::Object(Default::default()),
                ParsedArgs::Invalid { .. } | ParsedArgs::TooDeep => continue,
            };
            let ran = match &echo.value {
                Json::Null => Json::Object(Default::default()),
                other => other.clone(),
            };
            if said == ran {
                continue;
            }
            let message = format!(
                "{} repeats arguments {} that differ from its call's {} (at {}){}",
                result.subject(),
                quote(&ran.to_string(), 60),
                quote(&said.to_string(), 60),
                cx.describe(&call.args_loc),
                differences(&said, &ran),
            );
            out.push(
                Finding::about_result(&Self::META, result, &echo.loc, message).help(
                    "record the arguments the tool ran with in the call too, or tell the model in the result that they were changed",
                ),
            );
        }
    }
}

/// `: "command" differs, "cwd" is only in the result` for two objects; empty otherwise.
fn differences(said: &Json, ran: &Json) -> String {
    let (Json::Object(said), Json::Object(ran)) = (said, ran) else {
        return String::new();
    };
    let mut parts = Vec::new();
    for (key, value) in said {
        match ran.get(key) {
            Some(other) if other == value => {}
            Some(_) => parts.push(format!("{} differs", quote(key, 40))),
            None => parts.push(format!("{} is only in the call", quote(key, 40))),
        }
    }
    for key in ran.keys().filter(|k| !said.contains_key(*k)) {
        parts.push(format!("{} is only in the result", quote(key, 40)));
    }
    let more = parts.len().saturating_sub(4);
    parts.truncate(4);
    if more > 0 {
        parts.push(format!("{more} more"));
    }
    format!(": {}", parts.join(", "))
}
