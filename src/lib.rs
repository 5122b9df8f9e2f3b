//! toolcheck: lint and repair tool calls in saved LLM conversation logs.
//!
//! Data flows one way: discover → read → parse → detect → normalise → rules → fix → report
//! (docs/architecture.md).
//! [`lint::lint_bytes`] runs the whole pipeline on one file and can be embedded in an agent
//! runtime; `main.rs` is a thin wrapper around [`app::run`].

pub mod app;
pub mod cli;
pub mod config;
pub mod coverage;
pub mod diagnostic;
pub mod discover;
pub mod docs;
pub mod edit;
pub mod embed;
pub mod encoding;
pub mod escape;
pub mod finding;
pub mod fix;
pub mod format;
pub mod formats;
pub mod input;
pub mod json;
pub mod lint;
pub mod pointer;
pub mod progress;
pub mod provider;
pub mod read;
pub mod report;
pub mod rule_meta;
pub mod rules;
pub mod schema;
pub mod settings;
pub mod source;
pub mod stdout;
pub mod store;
pub mod tools_file;
pub mod transcript;
pub mod tree;
