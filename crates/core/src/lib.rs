//! toolcheck's engine: every format read into one normalised transcript, the rules, and the
//! lint and fix pipeline, with no command line (that is the `toolcheck` crate on top).
//!
//! Data flows one way: discover → read → parse → detect → normalise → rules → fix → report
//! (docs/architecture.md). [`embed`] is the API for embedding (the Python and Node packages):
//! lint or fix one input in process, with typed errors.
//!
//! The other modules are public for the command line, the project's tests, fuzz targets and
//! benchmarks: not a stable API. Their order below is the layers', from the bottom up.

// Text: bytes, text, spans and pointers, the JSON tree, names of formats and providers.
#[doc(hidden)]
pub mod encoding;
#[doc(hidden)]
pub mod escape;
pub mod format;
#[doc(hidden)]
pub mod pointer;
#[doc(hidden)]
pub mod progress;
pub mod provider;
#[doc(hidden)]
pub mod read;
#[doc(hidden)]
pub mod source;
#[doc(hidden)]
pub mod spans;
#[doc(hidden)]
pub mod stdout;
#[doc(hidden)]
pub mod tree;

// JSON: every JSON parse, and the documents adapters read.
#[doc(hidden)]
pub mod json;

// The model: the normalised transcript, placeholder results, rule metadata, findings and
// placed findings, tool schemas.
pub mod diagnostic;
pub mod finding;
#[doc(hidden)]
pub mod placeholder;
#[doc(hidden)]
pub mod rule_meta;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod transcript;

// Readers and checks: format adapters and the edits they plan, rules, agents' replay models,
// the coverage guard, `--tools` files.
#[doc(hidden)]
pub mod coverage;
#[doc(hidden)]
pub mod edit;
pub mod formats;
#[doc(hidden)]
pub mod replay;
pub mod rules;
#[doc(hidden)]
pub mod tools_file;

// The pipeline: the per-file pipeline, and the fix engine on top of it.
pub mod fix;
pub mod lint;

// Sources: SQLite stores, session folders, compressed logs, servers, opened inputs, directory
// walks, agents' session stores.
#[doc(hidden)]
pub mod agents;
#[doc(hidden)]
pub mod discover;
#[doc(hidden)]
pub mod folder;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod remote;
pub mod store;
#[doc(hidden)]
pub mod stream;
#[doc(hidden)]
pub mod zstd_log;

// Output: the emitters, one per output format.
pub mod report;

// The embedding API.
pub mod embed;
