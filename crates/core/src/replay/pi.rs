//! pi (`pi --resume`, `--continue`), and what reads its sessions the same way.
//!
//! pi answers, when it sends, a call left without a result and followed by another message
//! with an `isError` `toolResult` "No result provided" (`transformMessages`,
//! `packages/ai/src/providers/transform-messages.ts`, since v0.25.0, 2025-12-20). On resume
//! the new prompt follows the call the session stopped in, so that one is answered too. From
//! about 0.5.43 to 0.24.x such calls were removed instead.
//!
//! A session records only its format's version (the header's `version`): format 2, the
//! `id`/`parentId` tree, came with pi 0.31.0 (2026-01-02), so a session of format 2 or 3 was
//! written by 0.31.0 or later. A format-1 file tells nothing of its writer.

use super::{Action, Defect, Model, Recorded, Repair};
use crate::format::Format;

/// The result pi gives a call left without one.
pub const NO_RESULT: &str = "No result provided";

pub const MODEL: Model = Model {
    format: Format::Pi,
    agent: "pi",
    title: "pi",
    recorded: Recorded::FormatVersion {
        place: "the header's `version` (the session format)",
        first_written_by: &[("2", "0.31.0"), ("3", "0.31.0")],
    },
    checked: "0.73.1",
    repairs: &[
        Repair {
            defect: Defect::UnansweredCall,
            since: Some("0.25.0"),
            until: None,
            action: Action::Answers(NO_RESULT),
            evidence: "transformMessages, packages/ai/src/providers/transform-messages.ts (commit fb1fdb60)",
        },
        Repair {
            defect: Defect::UnansweredCall,
            since: Some("0.5.43"),
            until: Some("0.25.0"),
            action: Action::Drops,
            evidence: "transformMessages before commit fb1fdb60",
        },
    ],
};
