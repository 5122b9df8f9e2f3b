//! opencode, and Kilo, which keeps an opencode database.
//!
//! Loading a session turns a tool part still `pending` or `running` into an error result
//! "[Tool execution was interrupted]" (`packages/opencode/src/session/message-v2.ts`, present
//! in v1.4.3, measured on 1.18.32); older versions sent the call bare (anomalyco/opencode#10616).
//! The database does not say which version wrote a message, and every version read here
//! repairs it.

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result opencode gives a tool part left running.
pub const INTERRUPTED: &str = "[Tool execution was interrupted]";

pub const MODEL: Model = Model {
    format: Format::Opencode,
    agent: "opencode",
    title: "opencode",
    recorded: Recorded::Nothing,
    checked: "1.18.33",
    repairs: &[Repair {
        defect: Defect::UnansweredCall,
        since: None,
        until: None,
        action: Action::Answers(INTERRUPTED),
        evidence: "packages/opencode/src/session/message-v2.ts",
    }],
};
