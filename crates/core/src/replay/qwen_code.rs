//! Qwen Code (`qwen --resume`, `--continue`).
//!
//! When it sends, it closes a dangling `functionCall` with a `functionResponse` whose
//! `response.error` is "Tool execution result was not recorded — likely interrupted by network
//! failure, abort, or process exit. Treat as failure and retry if needed."
//! (`ORPHAN_TOOL_USE_REPAIR_REASON`, `packages/core/src/core/turn-interruption.ts`, QwenLM/
//! qwen-code PRs #4176 and #5030, May–June 2026). The first release with it was not
//! established; 0.24.4 makes it.
//!
//! Every record carries the writing version (`version`).

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The error Qwen Code gives a call left without a response.
pub const NOT_RECORDED: &str = "Tool execution result was not recorded — likely interrupted by network failure, abort, or process exit. Treat as failure and retry if needed.";

pub const MODEL: Model = Model {
    format: Format::QwenCode,
    agent: "qwen-code",
    title: "Qwen Code",
    recorded: Recorded::Version("`version` on every record"),
    checked: "0.24.4",
    repairs: &[Repair {
        defect: Defect::UnansweredCall,
        since: Some("0.24.4"),
        until: None,
        action: Action::Answers(NOT_RECORDED),
        evidence: "ORPHAN_TOOL_USE_REPAIR_REASON, packages/core/src/core/turn-interruption.ts",
    }],
};
