//! DeepSeek Harness (`dsh --resume`), read from its published source (tag
//! `dsh-v0.1.1-rc.2`; the repair is unchanged since 0.1.0-rc.7), not run: no published
//! release installs here.
//!
//! On load for resume dsh closes only the turn the log was stopped in
//! (`packages/core/session/src/repair.ts:27-133`, `interruptedTurnClosers`): each call of
//! the step no `step/end` closed gets an error `tool/result`, "…outcome is unknown…"
//! (`TOOL_OUTCOME_UNKNOWN`, repair.ts:104) when a `tool/call` records it as started, "…before
//! the Harness recorded it as started…" (`TOOL_NOT_STARTED`, repair.ts:105) when none does,
//! then `step/end` and `turn/end {reason: interrupted}`; these are written back to the file
//! as one new frame (`session-persistence-jsonl/src/index.ts:436-444`, `commitRepair`), so
//! the session resumes with them. A call without a result anywhere else (a closed step or
//! turn), a result whose call is gone, a second result and a repeated call id are sent as
//! held: `Session` checks no pairing on load (the pairing check, `invariant.ts:127-144`, is a
//! development companion), and the DeepSeek serializer sends each result as a `role: "tool"`
//! message (`llm-deepseek/src/serialize.ts:254-269`). The header records only its format's
//! version (0), not dsh's.

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result dsh writes for a call of the stopped step that a `tool/call` records.
pub const OUTCOME_UNKNOWN: &str = "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.";

/// The result dsh writes for a call of the stopped step that no `tool/call` records.
pub const NOT_STARTED: &str = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.";

pub const MODEL: Model = Model {
    format: Format::DeepseekHarness,
    agent: "deepseek-harness",
    title: "DeepSeek Harness",
    recorded: Recorded::Nothing,
    checked: "0.1.1-rc.2",
    repairs: &[
        Repair {
            defect: Defect::OpenCall { started: true },
            since: None,
            until: None,
            action: Action::Answers(OUTCOME_UNKNOWN),
            evidence: "repair.ts:104 (interruptedTurnClosers), written back by commitRepair (session-persistence-jsonl/src/index.ts:436-444); from source, not run",
        },
        Repair {
            defect: Defect::OpenCall { started: false },
            since: None,
            until: None,
            action: Action::Answers(NOT_STARTED),
            evidence: "repair.ts:105 (interruptedTurnClosers), written back by commitRepair; from source, not run",
        },
    ],
};
