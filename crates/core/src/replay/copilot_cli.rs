//! GitHub Copilot CLI (`copilot --resume`, `--continue`).
//!
//! On `session.resume` it logs "Completing N orphaned tool calls." and answers the calls the
//! history ends on (a parallel batch with some results included) with a failed result, which
//! it also writes to `events.jsonl` as a `tool.execution_complete`: in 1.0.102, run here
//! against a local fake provider and accepted, "Tool execution was interrupted before a
//! result was recorded. …"; in 1.0.39 (code quoted in github/copilot-cli#3183) "The
//! execution of this tool, or a previous tool was interrupted." Where the wording changed
//! was not established. Calls left unanswered earlier in the history are sent as held.
//!
//! `session.start` records the writing version (`data.copilotVersion`).

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result Copilot CLI 1.0.102 gives the calls the history ends on.
pub const INTERRUPTED: &str = "Tool execution was interrupted before a result was recorded. Its effects may be absent, partial, or already complete, and other tools may have completed successfully. Check the current state before retrying; do not assume success or replay this operation blindly.";

/// The text of the same repair in 1.0.39.
pub const INTERRUPTED_1_0_39: &str =
    "The execution of this tool, or a previous tool was interrupted.";

pub const MODEL: Model = Model {
    format: Format::CopilotCli,
    agent: "copilot-cli",
    title: "Copilot CLI",
    recorded: Recorded::Version("`session.start` `data.copilotVersion`"),
    checked: "1.0.102",
    repairs: &[
        Repair {
            defect: Defect::TrailingUnansweredCall,
            since: Some("1.0.102"),
            until: None,
            action: Action::Answers(INTERRUPTED),
            evidence:
                "1.0.102 run against a local fake provider (kill with one of two calls running)",
        },
        Repair {
            defect: Defect::TrailingUnansweredCall,
            since: Some("1.0.39"),
            until: Some("1.0.102"),
            action: Action::Answers(INTERRUPTED_1_0_39),
            evidence: "github/copilot-cli#3183 (v1.0.39 code); earlier releases not established",
        },
    ],
};
