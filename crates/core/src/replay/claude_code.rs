//! Claude Code (`claude --resume`, `--continue`).
//!
//! On load it closes the resumed chain's last assistant turn: a `tool_use` the session was
//! stopped in gets an `is_error` `tool_result` "[Tool call interrupted: …]" (and an assistant
//! "No response requested."). Before every request its pairing backstop answers any other
//! `tool_use` without a result with "[Tool result missing due to internal error]", and drops
//! `tool_result` blocks whose `tool_use` is not in the turn before and second results for one
//! call. Both texts and the backstop are in the 2.1.332 bundle; the interrupted-call repair was
//! first seen on 2.1.281 (a capture against a fake API). From 2.1.21 ("Fixed API errors when
//! resuming sessions that were interrupted during tool execution") to 2.1.280 the unresolved
//! `tool_use` was dropped on load. 1.0.x resumed the file as held, and Anthropic rejected it:
//! "`tool_use` ids were found without `tool_result` blocks immediately after".
//!
//! Every line records the writing version (`version`); the resumed chain's last line says
//! which version last wrote the session.

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result Claude Code gives a call the session was stopped in.
pub const INTERRUPTED: &str = "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]";

/// The result its pairing backstop gives any other call left without one.
pub const MISSING: &str = "[Tool result missing due to internal error]";

pub const MODEL: Model = Model {
    format: Format::ClaudeCode,
    agent: "claude-code",
    title: "Claude Code",
    recorded: Recorded::Version("`version` on every line"),
    checked: "2.1.332",
    repairs: &[
        Repair {
            defect: Defect::TrailingUnansweredCall,
            since: Some("2.1.281"),
            until: None,
            action: Action::Answers(INTERRUPTED),
            evidence: "2.1.332 bundle; first seen on 2.1.281 in a capture against a fake API",
        },
        Repair {
            defect: Defect::TrailingUnansweredCall,
            since: Some("2.1.21"),
            until: Some("2.1.281"),
            action: Action::Drops,
            evidence: "2.1.21 changelog; filterUnresolvedToolUses on load",
        },
        Repair {
            defect: Defect::UnansweredCall,
            since: Some("2.1.281"),
            until: None,
            action: Action::Answers(MISSING),
            evidence: "ensureToolResultPairing in the 2.1.332 bundle",
        },
        Repair {
            defect: Defect::OrphanedResult,
            since: Some("2.1.281"),
            until: None,
            action: Action::Drops,
            evidence: "ensureToolResultPairing in the 2.1.332 bundle",
        },
        Repair {
            defect: Defect::DuplicateResult,
            since: Some("2.1.281"),
            until: None,
            action: Action::Drops,
            evidence: "ensureToolResultPairing in the 2.1.332 bundle",
        },
    ],
};
