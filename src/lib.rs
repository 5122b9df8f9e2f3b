//! toolcheck: lint and repair tool calls in saved LLM conversation logs.
//!
//! This crate is the command line: its arguments (`cli`), config files and each file's
//! settings (`config`, `settings`), generated docs (`docs`) and the commands (`app`);
//! `main.rs` is a thin wrapper around [`app::run`]. Everything below it is `toolcheck-core`,
//! re-exported here under the same module names, so `crate::lint` means the same on both
//! sides of the boundary (docs/architecture.md).

pub mod app;
pub mod cli;

mod config;
mod docs;
mod settings;

// The engine's public modules, as this crate's API has always named them.
pub use toolcheck_core::{
    edit, embed, fix, formats, json, lint, read, report, rules, spans, store, transcript, tree,
    zstd_log,
};

// What the command line reads of the engine besides.
use toolcheck_core::{
    agents, coverage, diagnostic, discover, escape, finding, format, input, progress, provider,
    replay, schema, source, stdout, tools_file,
};
