//! Fixing: apply non-overlapping edits, lint again, repeat until nothing changes; verify the
//! result parses and no fixable finding is left; show diffs; write atomically.

mod align;
pub mod diff;
pub mod engine;
pub mod holders;
pub mod swap;
mod undo;
pub mod write;

pub use engine::{applies, fix_bytes, fix_named, fix_text, FileFix, FixError};
