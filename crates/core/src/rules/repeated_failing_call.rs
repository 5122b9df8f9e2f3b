// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt};

use super::pairing::{call_at, result_at, Pos, ResultStatus};
use super::{declare_rule, Context, LoopMatch, Rule, RuleMeta};
use crate::finding::{quote, Finding};
use crate::transcript::{Arguments, Conversation, ParsedArgs, ToolCall};
use serde_json::Value as Json;

declare_rule! {
    /// ## What it does
    /// Reports a reflex-retry loop: N (default 3) consecutive failed calls of one tool with
    /// the same arguments (equal after parsing: key order and whitespace do not matter), or
    /// with the same error text. Calls of other tools and text in between do not break a
    /// run; a successful call of the same tool does. One finding per run, at the call that
    /// reaches N, saying how long the run is and where it starts and ends.
    ///
    /// A result counts as failed when its format flags it (Anthropic `is_error`, Bedrock and
    /// LangChain `status: "error"`, Vercel `error-text`/`error-json`, Codex `success: false`,
    /// Gemini `response.error`) or, for formats without a flag, when its content is an error
    /// object, starts with `Error`/`error:` or an `Error:`-style label (`DB Error:`,
    /// `ValueError:`), or is a framework's own failure text, as each format's adapter
    /// documents: the OpenAI Agents SDK's "An error occurred while running the tool. Please
    /// try again." in OpenAI Chat and Responses histories, AgentScope's error blocks, MCP
    /// `isError` and JSON-RPC errors.
    ///
    /// `--loop-threshold N` sets N; `--loop-match args|error|either` (default `either`)
    /// chooses what makes two failures the same.
    ///
    /// ## Why it matters
    /// A model that gets an error back and retries the identical call burns minutes and
    /// tokens: one real session made 25 identical `exec({})` calls, each failing with the
    /// same "missing 'command' parameter", until the iteration limit stopped it. A retry
    /// that fails once and then succeeds with different arguments is normal and never
    /// reported.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
    /// {"role": "tool", "tool_call_id": "c1", "content": "Error: missing 'command' parameter"},
    /// {"role": "assistant", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "exec", "arguments": "{ }"}}]},
    /// {"role": "tool", "tool_call_id": "c2", "content": "Error: missing 'command' parameter"},
    /// {"role": "assistant", "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
    /// {"role": "tool", "tool_call_id": "c3", "content": "Error: missing 'command' parameter"}
    /// ```
    ///
    /// ## Fix
    /// None in the log. At runtime: validate arguments before dispatch and return an
    /// actionable error; detect repeated identical failures and tell the model to stop
    /// calling the tool and answer in text.
    pub struct RepeatedFailingCall {
        code: "TC401",
        name: "repeated-failing-call",
        severity: Warning,
        fix: None,
        summary: "N consecutive failed calls of one tool with the same arguments or error",
    }
}

/// One failed call in a run.
struct Failure<'a> {
    call: &'a ToolCall,
    args: Json,
    error: &'a str,
}

impl Rule for RepeatedFailingCall {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        let threshold = cx.options.loop_threshold.max(2);
        // A run is of failed results: a conversation with fewer than a run's worth (most
        // have none) is not indexed.
        if conv
            .results()
            .filter(|(_, r)| r.is_error)
            .nth(threshold - 1)
            .is_none()
        {
            return;
        }
        let matching = cx.options.loop_match;
        // Each call's result, from the shared pairing analysis.
        let mut result_of: HashMap<Pos, Pos> = HashMap::new();
        for &(result, status) in &cx.pairs().results {
            if let ResultStatus::Paired { call } | ResultStatus::Misplaced { call, .. } = status {
                result_of.insert(call, result);
            }
        }
        let mut runs: HashMap<&str, Vec<Failure<'_>>> = HashMap::new();
        let mut closed: Vec<Vec<Failure<'_>>> = Vec::new();
        for (t, turn) in conv.turns.iter().enumerate() {
            for i in 0..turn.items.len() {
                let Some(call) = call_at(conv, (t, i)) else {
                    continue;
                };
                if !call.is_client() {
                    continue;
                }
                let Some(result) = result_of.get(&(t, i)).and_then(|&p| result_at(conv, p)) else {
                    continue;
                };
                let run = runs.entry(call.name.as_str()).or_default();
                if !result.is_error {
                    closed.push(std::mem::take(run));
                    continue;
                }
                let failure = Failure {
                    call,
                    args: args_key(&cx.args(call), &call.arguments),
                    error: result.text.as_str(),
                };
                let continues = run
                    .last()
                    .is_some_and(|last| same(last, &failure, matching));
                if !continues {
                    closed.push(std::mem::take(run));
                }
                run.push(failure);
            }
        }
        closed.extend(runs.into_values());
        let mut findings: Vec<Finding> = closed
            .into_iter()
            .filter(|run| run.len() >= threshold)
            .map(|run| report(cx, &run, threshold))
            .collect();
        // Deterministic order regardless of hash-map iteration.
        findings.sort_by(|a, b| a.message.cmp(&b.message));
        out.extend(findings);
    }
}

fn same(a: &Failure<'_>, b: &Failure<'_>, matching: LoopMatch) -> bool {
    let by_args = a.args == b.args;
    let by_error = !a.error.is_empty() && a.error == b.error;
    match matching {
        LoopMatch::Args => by_args,
        LoopMatch::Error => by_error,
        LoopMatch::Either => by_args || by_error,
    }
}

/// Arguments compared after parsing; unparseable text is compared as written.
fn args_key(parsed: &ParsedArgs, arguments: &Arguments) -> Json {
    match parsed {
        ParsedArgs::Object(object) => object.clone(),
        ParsedArgs::Empty => Json::Null,
        ParsedArgs::NotObject(v) => v.clone(),
        ParsedArgs::Invalid { .. } | ParsedArgs::TooDeep => match arguments {
            Arguments::Encoded(text) => Json::String(text.clone()),
            _ => Json::Null,
        },
    }
}

fn report(cx: &Context<'_>, run: &[Failure<'_>], threshold: usize) -> Finding {
    let first = &run[0];
    let last = &run[run.len() - 1];
    let all_same_args = run.iter().all(|f| f.args == first.args);
    let all_same_error = run.iter().all(|f| f.error == first.error) && !first.error.is_empty();
    let what = if all_same_args {
        format!(
            "with the same arguments {}",
            quote(&first.args.to_string(), 60)
        )
    } else if all_same_error {
        "with varying arguments".to_string()
    } else {
        "with matching arguments or errors".to_string()
    };
    let error = if first.error.is_empty() {
        String::new()
    } else {
        format!(", failing with {}", quote(first.error, 80))
    };
    let message = format!(
        "tool `{}` was called {} times in a row {what}{error}; the run goes from {} at {} to {} at {}",
        first.call.name,
        run.len(),
        first.call.reference(),
        cx.describe(&first.call.loc),
        last.call.reference(),
        cx.describe(&last.call.loc),
    );
    Finding::about_call(
        &RepeatedFailingCall::META,
        run[threshold - 1].call,
        &run[threshold - 1].call.loc,
        message,
    ).help(
        "the model is retrying a failing call: validate arguments before dispatch and return an actionable error, and detect repeated failures at runtime to tell the model to stop and answer in text",
    )
}
