//! Kimi Code CLI (`kimi --session <id>`, `--continue`).
//!
//! Kimi repairs no pairing on resume: `Context.restore` (`soul/context.py`) replays every line
//! of `context.jsonl` as it is, and `normalize_history` (`soul/dynamic_injection.py`) only
//! merges adjacent user messages. It needs none for an interrupted tool: a step's assistant
//! message and its results are written together after every tool has finished
//! (`KimiSoul._step`), so a kill loses the step. A call without a result in the file (an
//! edit, a crash mid-write, another tool's export) is sent as held. Measured on 1.51.0, the
//! last release before the CLI was deprecated for its successor (1.52.0 only prints a notice);
//! the session records no CLI version.

use super::{Model, Recorded};
use crate::format::Format;

pub const MODEL: Model = Model {
    format: Format::KimiCli,
    agent: "kimi-cli",
    title: "Kimi Code CLI",
    recorded: Recorded::Nothing,
    checked: "1.51.0",
    repairs: &[],
};
