//! Codex (`codex resume`, `codex exec resume`).
//!
//! Codex fills every call left without an output when it builds the prompt, without writing
//! it to the rollout: `ensure_call_outputs_present` (`codex-rs/core/src/context_manager/
//! normalize.rs`) inserts, right after each `function_call`, `local_shell_call` or
//! `custom_tool_call` without one, an output whose text is "aborted" (no error flag reaches the
//! API); `remove_orphan_outputs` drops outputs whose call is gone. Before the history manager
//! (openai/codex PR #5473, October 2025) `try_run_turn` built the same "aborted" outputs; no
//! release that sent unanswered calls as held was found, so every version is modelled so.
//!
//! The rollout's `session_meta` line records the writing version (`payload.cli_version`).

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The output Codex gives a call left without one.
pub const ABORTED: &str = "aborted";

pub const MODEL: Model = Model {
    format: Format::Codex,
    agent: "codex",
    title: "Codex",
    recorded: Recorded::Version("`session_meta.payload.cli_version`"),
    checked: "0.171.0",
    repairs: &[
        Repair {
            defect: Defect::UnansweredCall,
            since: None,
            until: None,
            action: Action::Answers(ABORTED),
            evidence: "ensure_call_outputs_present, codex-rs/core/src/context_manager/normalize.rs",
        },
        Repair {
            defect: Defect::OrphanedResult,
            since: None,
            until: None,
            action: Action::Drops,
            evidence: "remove_orphan_outputs, codex-rs/core/src/context_manager/normalize.rs",
        },
    ],
};
