use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::transcript::{CallKind, Conversation, ParsedArgs};

declare_rule! {
    /// ## What it does
    /// Reports input that toolcheck did not check because it is beyond a limit toolcheck
    /// keeps: a file larger than the maximum input size (`--max-file-size`, default 1 GiB),
    /// or JSON (a file, a record, a call's arguments) nested deeper than 128 levels. The
    /// input is not invalid; it is unchecked.
    ///
    /// ## Why it matters
    /// A clean run must mean the input was read and found sound, never that part of it was
    /// passed over. This finding keeps a run that skipped something from exiting 0.
    ///
    /// ## Example
    /// A record whose `content` nests 200 arrays deep, or a 3 GB file named by mistake.
    ///
    /// ## Fix
    /// None. Raise `--max-file-size` (or `max-file-size` in `toolcheck.toml`) for a file
    /// that really is that large; flatten values nested that deep.
    pub struct InputNotChecked {
        code: "TC003",
        name: "input-not-checked",
        severity: Warning,
        fix: None,
        summary: "input beyond toolcheck's size or nesting limits was not checked",
    }
}

impl Rule for InputNotChecked {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for (_, call) in conv.calls() {
            if call.kind == CallKind::FreeText {
                continue;
            }
            if *cx.args(call) == ParsedArgs::TooDeep {
                out.push(
                    Finding::about_call(
                        &Self::META,
                        call,
                        &call.args_loc,
                        format!(
                            "arguments of {} nest deeper than {} levels, more than toolcheck reads; they were not checked",
                            call.subject(),
                            crate::json::MAX_DEPTH
                        ),
                    )
                    .help("flatten the arguments; toolcheck cannot check them against the tool's schema until then"),
                );
            }
        }
    }
}
