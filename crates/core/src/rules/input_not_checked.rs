use super::{declare_rule, ArgsKind, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::transcript::{Conversation, OneSide, ToolCall};

declare_rule! {
    /// ## What it does
    /// Reports input that toolcheck did not check because it is beyond a limit toolcheck
    /// keeps: a file larger than the maximum input size (`--max-file-size`, default 1 GiB);
    /// JSON (a file, a record, a call's arguments) nested deeper than 128 levels; a tool schema
    /// of more than 100 000 JSON values, or deeper than 512 levels counting each `$ref`
    /// followed (reported at the schema; calls to the tool are not checked against it); and a
    /// call whose arguments a schema's `pattern` could not be matched against, because the
    /// regex engine gave up after 100 000 backtracking steps (5 000 for the later calls of a
    /// conversation once a schema's pattern gave up in it); and a wire capture that holds one
    /// direction only (an MCP server's stdout: responses and no requests), whose calls and
    /// results cannot be paired. The input is not invalid; it is unchecked.
    ///
    /// ## Why it matters
    /// A clean run must mean the input was read and found sound, never that part of it was
    /// passed over. This finding keeps a run that skipped something from exiting 0.
    ///
    /// ## Example
    /// A record whose `content` nests 200 arrays deep, a 3 GB file named by mistake, a schema
    /// whose `$ref`s chain through 15 000 definitions, or a `pattern` such as `^(a|aa)+\1$`
    /// that backtracks without end on `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"`. Or the stdout of an
    /// MCP server saved on its own, which holds every `tools/call` response and none of the
    /// requests they answer:
    /// ```json
    /// {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "22°C"}]}}
    /// ```
    /// That is one finding on the capture, not a result-without-a-call error per response.
    ///
    /// ## Fix
    /// None. Raise `--max-file-size` (or `max-file-size` in `toolcheck.toml`) for a file
    /// that really is that large; flatten values nested that deep; simplify the schema or its
    /// pattern. Capture both directions of MCP traffic (the client's log, or a proxy that
    /// records requests and responses).
    pub struct InputNotChecked {
        code: "TC003",
        name: "input-not-checked",
        severity: Warning,
        fix: None,
        summary: "input beyond toolcheck's size, nesting or regex limits was not checked",
    }
}

impl Rule for InputNotChecked {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn checks_schemas(&self) -> bool {
        true
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if let Some(side) = conv.one_sided {
            out.push(one_sided(conv, side));
        }
        for tool in &conv.tools {
            if tool.schema.is_none() {
                continue;
            }
            let Some(reason) = cx.compiled(tool).and_then(|c| c.beyond_limits.clone()) else {
                continue;
            };
            out.push(
                Finding::at(
                    &Self::META,
                    &tool.schema_loc,
                    format!(
                        "schema of tool `{}` {reason}; toolcheck did not check it, nor the calls to `{}` against it",
                        tool.name, tool.name
                    ),
                )
                .help(SIMPLIFY_SCHEMA),
            );
        }
        for (_, call) in conv.json_calls() {
            if let Some((message, help)) = unchecked(cx, conv, call) {
                out.push(
                    Finding::about_call(&Self::META, call, &call.args_loc, message).help(help),
                );
            }
        }
    }
}

/// A capture of one direction of the wire: its results were not paired with calls.
fn one_sided(conv: &Conversation, side: OneSide) -> Finding {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let (holds, lacks) = match side {
        OneSide::ResponsesOnly => (
            plural(conv.results().count(), "tool result", "tool results"),
            "none of the requests they answer",
        ),
        OneSide::RequestsOnly => (
            plural(conv.client_calls().count(), "tool call", "tool calls"),
            "none of the responses",
        ),
    };
    Finding::at(
        &InputNotChecked::META,
        &conv.loc,
        format!(
            "this capture holds one direction of the traffic only ({holds}, {lacks}); calls and results were not paired"
        ),
    )
    .help("capture both directions (the client's log, or a proxy that records requests and responses) to have them checked")
}

const SIMPLIFY_SCHEMA: &str =
    "simplify the schema; toolcheck cannot check calls against it until then";

/// Why `call`'s arguments were not checked, or not fully, and what to do about it.
fn unchecked(
    cx: &Context<'_>,
    conv: &Conversation,
    call: &ToolCall,
) -> Option<(String, &'static str)> {
    if cx.args_kind(call) == ArgsKind::TooDeep {
        return Some((
            format!(
                "arguments of {} nest deeper than {} levels, more than toolcheck reads; they were not checked",
                call.subject(),
                crate::json::MAX_DEPTH
            ),
            "flatten the arguments; toolcheck cannot check them against the tool's schema until then",
        ));
    }
    // A schema given with --tools is not in the file: its calls carry the finding.
    if !conv.tools.iter().any(|t| t.name == call.name) {
        let beyond = conv
            .tool(cx.extra_tools, &call.name)
            .and_then(|tool| cx.compiled(tool))
            .and_then(|c| c.beyond_limits.clone());
        if let Some(reason) = beyond {
            return Some((
                format!(
                    "arguments of {} were not checked: the schema of `{}` given with --tools {reason}",
                    call.subject(),
                    call.name
                ),
                SIMPLIFY_SCHEMA,
            ));
        }
    }
    let checked = cx.checked(call)?;
    if checked.unchecked.is_empty() {
        return None;
    }
    let help = if checked.regex_gave_up {
        "simplify the pattern so it does not backtrack (nested quantifiers such as `(a+)+`, overlapping alternatives); toolcheck cannot check it until then"
    } else {
        "toolcheck could not check these arguments against the tool's schema"
    };
    Some((
        format!(
            "arguments of {} were not fully checked against the schema of `{}`: {}",
            call.subject(),
            call.name,
            checked.unchecked.join("; ")
        ),
        help,
    ))
}
