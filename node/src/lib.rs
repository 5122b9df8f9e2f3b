//! The Rust side of the Node.js package (`toolcheck.node`, loaded by `index.js`). It converts
//! between JavaScript and the engine's embedding API (`toolcheck_core::embed`), as the Python
//! module does: every finding comes from the same pipeline as the command line.
//!
//! Texts cross as strings and findings come back as the JSON text `--output-format json`
//! prints: `JSON.stringify`/`JSON.parse` in V8 are faster than building objects one napi call
//! at a time, and the JSON is exactly the command line's.

use napi::bindgen_prelude::{Buffer, Either};
use napi::{Error, Result, Status};
use napi_derive::napi;
use rayon::prelude::*;

use toolcheck_core::embed;
use toolcheck_core::lint::LintOptions;
use toolcheck_core::report::Diagnostic;

/// Lint options, checked once and shared by every call that uses them.
#[napi]
pub struct Options {
    inner: LintOptions,
}

#[napi]
impl Options {
    /// Checks the options: an unknown format, target, rule or unpaired fix, or a tools
    /// document that is not valid, throws with the command line's message.
    #[napi(constructor)]
    pub fn new(
        input_format: Option<String>,
        tools: Vec<String>,
        targets: Vec<String>,
        select: Vec<String>,
        ignore: Vec<String>,
        unpaired: Option<String>,
    ) -> Result<Self> {
        let inner = embed::Options {
            input_format,
            tools,
            targets,
            select,
            ignore,
            unpaired,
        }
        .build()
        .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
        Ok(Options { inner })
    }
}

/// A string's UTF-8 bytes, or a Buffer's bytes.
fn bytes(data: Either<String, Buffer>) -> Vec<u8> {
    match data {
        Either::A(text) => text.into_bytes(),
        Either::B(buffer) => buffer.to_vec(),
    }
}

fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::from_reason(format!("cannot convert findings: {e}")))
}

/// Lints one text (a JSON document or JSONL) as a file named `name`; returns the findings as
/// the JSON array `--output-format json` prints.
#[napi]
pub fn lint_text(options: &Options, data: Either<String, Buffer>, name: String) -> Result<String> {
    let found = embed::lint(&name, bytes(data), &options.inner);
    to_json(&found)
}

/// Lints files and folders as `toolcheck lint PATH...` does (config files aside); an error
/// names a path that could not be read.
#[napi]
pub fn lint_paths(options: &Options, paths: Vec<String>) -> Result<String> {
    let found =
        embed::lint_paths(&paths, &options.inner).map_err(|e| Error::from_reason(e.to_string()))?;
    to_json(&found)
}

/// Lints many records in parallel, each as a one-record file named `name`: a JSON array with
/// one array of findings per record, in order. `threads` (0 or absent: every core) sizes the
/// pool.
#[napi]
pub fn lint_many(
    options: &Options,
    records: Vec<Either<String, Buffer>>,
    name: String,
    threads: Option<u32>,
) -> Result<String> {
    let texts: Vec<Vec<u8>> = records.into_iter().map(bytes).collect();
    let opts = &options.inner;
    let run = || -> Vec<Vec<Diagnostic>> {
        texts
            .into_par_iter()
            .map(|text| embed::lint_record(&name, text, opts))
            .collect()
    };
    let found = match threads.filter(|&n| n > 0) {
        None => run(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(
                embed::check_threads(n as usize).map_err(|e| Error::from_reason(e.to_string()))?,
            )
            .build()
            .map_err(|e| Error::from_reason(format!("cannot start {n} threads: {e}")))?
            .install(run),
    };
    to_json(&found)
}

/// What `fixText` did: the fixed text, whether it changed, the fixes applied and those left
/// out as unsafe, and the findings left (JSON, as `lintText` returns them).
#[napi(object)]
pub struct Fixed {
    pub text: String,
    pub changed: bool,
    pub applied: u32,
    pub unsafe_left: u32,
    pub remaining: String,
}

/// Applies the fixes `toolcheck fix --write` would to a text named `name`. Throws when the
/// text could not be fixed (undecodable, or an internal error of the fix loop).
#[napi]
pub fn fix_text(
    options: &Options,
    data: Either<String, Buffer>,
    name: String,
    unsafe_fixes: bool,
) -> Result<Fixed> {
    let fixed = embed::fix(&name, bytes(data), &options.inner, unsafe_fixes)
        .map_err(|e| Error::from_reason(e.to_string()))?;
    Ok(Fixed {
        remaining: to_json(&fixed.remaining)?,
        text: fixed.text,
        changed: fixed.changed,
        applied: u32::try_from(fixed.applied).unwrap_or(u32::MAX),
        unsafe_left: u32::try_from(fixed.unsafe_left).unwrap_or(u32::MAX),
    })
}

/// The version of the toolcheck crate this addon was built from.
#[napi]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
