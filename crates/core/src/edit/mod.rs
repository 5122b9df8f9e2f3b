//! The layout-preserving JSON edit toolkit: a layer below the formats that any adapter may
//! use. `json_edit` finds and edits elements in the original text without re-serialising it;
//! `plan` turns fix intents into byte edits for formats whose messages are array elements or
//! JSONL records, asking the format's [`plan::Dialect`] for the JSON it inserts.
//!
//! Dependencies run one way: `edit` knows the transcript and findings, never a format; the
//! formats build on it; the fix engine (`fix/`) sits above both.

pub mod json_edit;
pub mod plan;
