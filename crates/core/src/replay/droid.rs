//! Factory Droid (`droid exec -s <id>`, `droid --resume`).
//!
//! On resume Droid answers, in the request only, each `tool_use` left without a result with a
//! `tool_result` "Error: Tool execution was cancelled" (`validateToolUsePairing` in the CLI's
//! bundled code; a message of its own when none follows), and leaves out a `tool_result`
//! whose call is not in the history; the file keeps both as they were. Seen on 0.225.2's
//! resume requests here (a session killed mid-tool, and one given a stray result). The
//! session records only its schema's version (`session_start.version`), not Droid's.

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result Droid sends for a call left without one.
pub const CANCELLED: &str = "Error: Tool execution was cancelled";

pub const MODEL: Model = Model {
    format: Format::Droid,
    agent: "droid",
    title: "Factory Droid",
    recorded: Recorded::Nothing,
    checked: "0.225.2",
    repairs: &[
        Repair {
            defect: Defect::UnansweredCall,
            since: None,
            until: None,
            action: Action::Answers(CANCELLED),
            evidence: "validateToolUsePairing (bundled in the CLI); 0.225.2's resume request",
        },
        Repair {
            defect: Defect::OrphanedResult,
            since: None,
            until: None,
            action: Action::Drops,
            evidence: "0.225.2's resume request (a stray tool_result left out)",
        },
    ],
};
