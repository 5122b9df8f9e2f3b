//! GitHub Copilot CLI (`copilot --resume`, `--continue`).
//!
//! On `session.resume` it logs "Completing N orphaned tool calls." and answers the calls the
//! history ends on with a tool message "The execution of this tool, or a previous tool was
//! interrupted." (code quoted in github/copilot-cli#3183, v1.0.39; the log line in #249,
//! 2025-10-08). Calls left unanswered earlier in the history are sent as held.
//!
//! `session.start` records the writing version (`data.copilotVersion`).

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result Copilot CLI gives the calls the history ends on.
pub const INTERRUPTED: &str = "The execution of this tool, or a previous tool was interrupted.";

pub const MODEL: Model = Model {
    format: Format::CopilotCli,
    agent: "copilot-cli",
    title: "Copilot CLI",
    recorded: Recorded::Version("`session.start` `data.copilotVersion`"),
    checked: "1.0.102",
    repairs: &[Repair {
        defect: Defect::TrailingUnansweredCall,
        since: Some("1.0.39"),
        until: None,
        action: Action::Answers(INTERRUPTED),
        evidence: "github/copilot-cli#3183 (v1.0.39 code); earlier releases not established",
    }],
};
