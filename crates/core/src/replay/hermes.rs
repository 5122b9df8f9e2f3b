//! Hermes Agent (`hermes --resume`, `-c`, and its messaging gateway).
//!
//! Hermes repairs the history in memory and never writes the repair back. Loading a session
//! (`get_messages_as_conversation(repair_alternation=True)`, `repair_message_sequence` in
//! `agent/agent_runtime_helpers.py`) drops tool results whose call is not before them; before
//! every request `sanitize_api_messages` (in `run_agent.py`'s `AIAgent._sanitize_api_messages`
//! up to 0.14.x) drops them again and answers each call left without a result with a stub
//! "[Result unavailable — see context summary above]"; from 0.18.1 it also drops a repeated
//! `tool_call_id`. Read in every release on PyPI (0.13.0 to 0.19.0) and seen on 0.19.0's
//! resume request here. The database records no Hermes version (only its schema's).

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result Hermes sends for a call left without one.
pub const UNAVAILABLE: &str = "[Result unavailable — see context summary above]";

pub const MODEL: Model = Model {
    format: Format::Hermes,
    agent: "hermes",
    title: "Hermes Agent",
    recorded: Recorded::Nothing,
    checked: "0.19.0",
    repairs: &[
        Repair {
            defect: Defect::UnansweredCall,
            since: None,
            until: None,
            action: Action::Answers(UNAVAILABLE),
            evidence:
                "sanitize_api_messages, agent/agent_runtime_helpers.py (run_agent.py before 0.15.0)",
        },
        Repair {
            defect: Defect::OrphanedResult,
            since: None,
            until: None,
            action: Action::Drops,
            evidence:
                "repair_message_sequence and sanitize_api_messages, agent/agent_runtime_helpers.py",
        },
        Repair {
            defect: Defect::DuplicateResult,
            since: Some("0.18.1"),
            until: None,
            action: Action::Drops,
            evidence: "sanitize_api_messages: repeated tool_call_ids dropped",
        },
    ],
};
