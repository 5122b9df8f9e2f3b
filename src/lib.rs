//! toolcheck: lint and repair tool calls in saved LLM conversation logs.
//!
//! Data flows one way: discover → read → parse → detect → normalise → rules → fix → report
//! (docs/architecture.md).
//! [`lint::lint_bytes`] runs the whole pipeline on one file and can be embedded in an agent
//! runtime; `main.rs` is a thin wrapper around [`app::run`].

// The public API: running the commands (`app`, `cli`), linting and fixing one input in
// process (`lint`, `fix`, `embed`, `store`), the findings they return and how they are
// written out (`report`), and the vocabulary those name (`formats::Format`, `rules`).
pub mod app;
pub mod cli;
pub mod embed;
pub mod fix;
pub mod formats;
pub mod lint;
pub mod report;
pub mod rules;
pub mod store;

// Public only for the project's own integration tests, fuzz targets and benchmarks, which
// reach into the JSON tree, the transcript and the edit toolkit: not a stable API.
#[doc(hidden)]
pub mod edit;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod read;
#[doc(hidden)]
pub mod transcript;
#[doc(hidden)]
pub mod tree;
#[doc(hidden)]
pub mod zstd_log;

// Everything else is crate-private.
mod agents;
mod config;
mod coverage;
mod diagnostic;
mod discover;
mod docs;
mod encoding;
mod escape;
mod finding;
mod folder;
mod format;
mod input;
mod placeholder;
mod pointer;
mod progress;
mod provider;
mod replay;
mod rule_meta;
mod schema;
mod settings;
mod source;
mod stdout;
mod stream;
mod tools_file;
