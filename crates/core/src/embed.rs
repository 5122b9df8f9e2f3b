//! A small API for embedders (the Python module): options from plain strings, and text in,
//! placed [`Diagnostic`]s out — the objects `--output-format json` prints, sorted as the
//! command line sorts them. No lint logic lives here: it calls [`lint::lint_bytes`] and
//! `fix::engine::fix_bytes`.

use crate::diagnostic::{place_all, Diagnostic};
use crate::fix::engine::{fix_bytes, FixError};
use crate::format::Format;
use crate::lint::{self, LintOptions, SourceName};
use crate::provider::Provider;
use crate::rules::{Selection, UnpairedFix};

/// Why an embedding call did nothing: a bad option, an input that could not be read, or a
/// fix that could not be made. The messages are the command line's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("unknown input format `{name}`: expected auto or one of {expected}", expected = Format::names())]
    UnknownInputFormat { name: String },
    /// `--select` / `--ignore` named no rule, code or prefix.
    #[error("{0}")]
    Selection(String),
    #[error("tools document {document}: not valid JSON: {message} at line {line} column {column}")]
    ToolsNotJson {
        document: usize,
        message: String,
        line: usize,
        column: usize,
    },
    #[error("tools document {document}: {reason}")]
    Tools { document: usize, reason: String },
    #[error("tools document {document}: it declares no tools")]
    NoTools { document: usize },
    #[error("unknown target `{name}`: expected one of {expected}", expected = Provider::ALL.map(Provider::name).join(", "))]
    UnknownTarget { name: String },
    #[error("unknown unpaired fix `{name}`: expected insert-result or remove-call")]
    UnknownUnpairedFix { name: String },
    #[error("threads must be from 1 to {MAX_THREADS}, not {threads}")]
    Threads { threads: usize },
    /// A path named could not be walked.
    #[error("{path}: {message}")]
    Walk { path: String, message: String },
    /// An input could not be opened or read (the message names it).
    #[error(transparent)]
    Input(#[from] crate::input::Error),
    #[error(
        "{name}: a Zstandard-compressed log: fix it in place by its path (`toolcheck fix --write`)"
    )]
    Compressed { name: String },
    #[error(transparent)]
    Fix(#[from] FixError),
}

/// Options as strings, the way a caller outside Rust holds them (`--input-format`, `--tools`
/// documents, `--target`, `--select`, `--ignore`, `--unpaired`).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// An `--input-format` name, or `auto` / `None` to detect.
    pub input_format: Option<String>,
    /// Tool definition documents as JSON text, each in any shape `--tools` accepts.
    pub tools: Vec<String>,
    /// `--target` provider names.
    pub targets: Vec<String>,
    /// `--select` codes, prefixes or names.
    pub select: Vec<String>,
    /// `--ignore` codes, prefixes or names.
    pub ignore: Vec<String>,
    /// `--unpaired`: `insert-result` or `remove-call`.
    pub unpaired: Option<String>,
}

impl Options {
    /// Builds [`LintOptions`], with the command line's messages for bad values.
    pub fn build(&self) -> Result<LintOptions, Error> {
        let input_format = match self.input_format.as_deref() {
            None | Some("auto") => None,
            Some(name) => {
                Some(
                    Format::from_name(name).ok_or_else(|| Error::UnknownInputFormat {
                        name: name.to_string(),
                    })?,
                )
            }
        };
        let selection = Selection::new(&self.select, &self.ignore).map_err(Error::Selection)?;
        let mut extra_tools = Vec::new();
        for (i, text) in self.tools.iter().enumerate() {
            let document = i + 1;
            let value = crate::json::parse_value(text).map_err(|e| Error::ToolsNotJson {
                document,
                message: e.to_string(),
                line: e.line,
                column: e.column,
            })?;
            let tools = crate::tools_file::parse(&value)
                .map_err(|reason| Error::Tools { document, reason })?;
            if tools.is_empty() {
                return Err(Error::NoTools { document });
            }
            extra_tools.extend(tools);
        }
        let targets = if self.targets.is_empty() {
            None
        } else {
            let mut targets = Vec::new();
            for name in &self.targets {
                let provider = Provider::from_name(name.trim())
                    .ok_or_else(|| Error::UnknownTarget { name: name.clone() })?;
                targets.push(provider);
            }
            Some(targets)
        };
        let mut rule_options = crate::rules::RuleOptions::default();
        match self.unpaired.as_deref() {
            None | Some("insert-result") => rule_options.unpaired = UnpairedFix::InsertResult,
            Some("remove-call") => rule_options.unpaired = UnpairedFix::RemoveCall,
            Some(other) => {
                return Err(Error::UnknownUnpairedFix {
                    name: other.to_string(),
                })
            }
        }
        Ok(LintOptions {
            input_format,
            selection,
            extra_tools,
            rule_options,
            schemas: Default::default(),
            targets,
            tools_found: None,
        })
    }
}

/// The most threads a run may ask for. A pool of thousands of threads over a few files spends
/// its time starting them (`-j 3000` over 30 files took 36 s against 0.05 s at `-j 2`), and
/// no machine toolcheck runs on has cores to use more.
pub const MAX_THREADS: usize = 256;

/// Checks a thread count an embedder asked for: 1 to [`MAX_THREADS`].
pub fn check_threads(threads: usize) -> Result<usize, Error> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(threads)
    } else {
        Err(Error::Threads { threads })
    }
}

/// Lints text as a file named `name` (its extension picks JSON or JSONL, as on the command
/// line) and returns its findings placed and sorted as `toolcheck lint` prints them.
pub fn lint(name: &str, bytes: Vec<u8>, opts: &LintOptions) -> Vec<Diagnostic> {
    // A compressed log is the text its frames hold, as when the command line reads it.
    let report = if crate::zstd_log::is_zstd(&bytes) {
        let limit = crate::read::DEFAULT_MAX_FILE_SIZE;
        match crate::zstd_log::decode(&bytes, limit) {
            Some(log) => log.lint(source_name(name), log.bytes().to_vec(), true, opts),
            None => lint::too_large(source_name(name), None, limit),
        }
    } else {
        lint::lint_bytes(source_name(name), bytes, true, opts)
    };
    place_all(&report.source, report.findings)
}

/// Whether [`lint`] of the compact JSON text of `value`, as a file named `name`, finds
/// nothing `counts` counts, told from the tree without that text: the guards' check of a
/// history built off a caller's objects (a guard counts what it acts on: the errors its
/// provider rejects). `false` when it finds one (the caller lints the text, which places
/// what it finds) or when a tree cannot tell (a name read as JSONL). The findings are
/// unplaced, and their fixes unplanned, but their rule, severity and providers are the
/// text's.
pub fn finds_nothing(
    name: &str,
    value: crate::tree::Value<'_>,
    opts: &LintOptions,
    counts: impl Fn(&crate::finding::Finding) -> bool,
) -> bool {
    lint::lint_tree(source_name(name), value, opts).is_some_and(|r| !r.findings.iter().any(counts))
}

/// Findings about what a record is (not about its conversation): worded by what was read.
const RECORD_SHAPE: [&str; 3] = [
    crate::rules::ParseError::META.code,
    crate::rules::UnknownFormat::META.code,
    crate::rules::InputNotChecked::META.code,
];

/// Lints one record of a dataset (one conversation) and returns what `toolcheck lint`
/// reports for it as a line of a JSONL file, with `path` set to `name`.
///
/// The record is read as a JSON document first: a `.jsonl` file's first line is parsed once
/// to tell JSONL from a pretty-printed document and then again as a record, and for a file
/// of one record that doubles the parsing. Findings about the record's shape (`parse-error`,
/// `unknown-format`, `input-not-checked`) word themselves by what was read ("file" or
/// "record"), so a record with one of those is read again as JSONL, as the command line
/// reads it.
pub fn lint_record(name: &str, bytes: Vec<u8>, opts: &LintOptions) -> Vec<Diagnostic> {
    let mut found = lint("record.json", bytes.clone(), opts);
    if found.iter().any(|d| RECORD_SHAPE.contains(&d.code)) {
        found = lint("record.jsonl", bytes, opts);
    }
    for d in &mut found {
        d.path = name.to_string();
    }
    found
}

/// Lints files and folders as `toolcheck lint PATH...` does with these options (directory
/// walks pick the same files: `.json`, `.jsonl`, `.ndjson`, `.af` and session databases, skipping
/// hidden and ignored entries; config files are not read, `opts` is the whole setting).
/// Returns every finding, files in name order; files met in a walk that hold no
/// conversation are skipped, as on the command line. An error names a path that could not
/// be read.
pub fn lint_paths(paths: &[String], opts: &LintOptions) -> Result<Vec<Diagnostic>, Error> {
    use rayon::prelude::*;
    let walk = crate::discover::WalkOptions {
        excludes: std::sync::Arc::default(),
        no_ignore: false,
        record_skipped: false,
    };
    let found = crate::discover::discover(paths, &walk, None);
    if let Some(error) = found.errors.first() {
        return Err(Error::Walk {
            path: error.path.clone(),
            message: error.message.clone(),
        });
    }
    let files: Vec<Result<Vec<Diagnostic>, Error>> = found
        .inputs
        .par_iter()
        .map(|input| {
            let opened = crate::input::open_input(input, None, crate::read::DEFAULT_MAX_FILE_SIZE)?;
            let name = SourceName {
                name: input.name.clone(),
                path: input.path.clone(),
            };
            // A JSONL dataset is read a chunk at a time, as on the command line.
            let placed = crate::input::lint_placed(
                opened,
                name,
                input.explicit,
                opts,
                &|source, findings| place_all(source, findings),
                None,
            )?;
            Ok(placed.diagnostics)
        })
        .collect();
    let mut all = Vec::new();
    for file in files {
        all.extend(file?);
    }
    Ok(all)
}

/// What [`fix`] did to one text.
#[derive(Debug)]
pub struct Fixed {
    /// The text after every applicable fix.
    pub text: String,
    /// Whether the text changed.
    pub changed: bool,
    /// Fixes applied, over all rounds.
    pub applied: usize,
    /// Fixes left out because they are unsafe and `unsafe_fixes` was false.
    pub unsafe_left: usize,
    /// The findings the fixed text still has.
    pub remaining: Vec<Diagnostic>,
}

/// Applies the fixes `toolcheck fix --write` would to text named `name`. An error means the
/// text was left alone (undecodable input, or an internal error of the fix loop).
pub fn fix(
    name: &str,
    bytes: Vec<u8>,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<Fixed, Error> {
    // Its fixed text would be the decompressed log, which is not what the caller holds.
    if crate::zstd_log::is_zstd(&bytes) {
        return Err(Error::Compressed {
            name: name.to_string(),
        });
    }
    let mut fixed = fix_bytes(&source_name(name), bytes, true, opts, unsafe_fixes)?;
    // The findings move out; the report's text is the fixed text, returned without a copy.
    let findings = std::mem::take(&mut fixed.report.findings);
    let remaining = place_all(&fixed.report.source, findings);
    Ok(Fixed {
        changed: fixed.changed(),
        applied: fixed.applied,
        unsafe_left: fixed.unsafe_left,
        remaining,
        text: fixed.into_fixed_text(),
    })
}

/// What [`fix_record`] did to one record of a dataset.
#[derive(Debug)]
pub struct FixedRecord {
    /// The repaired text; `None` when nothing changed (the record stays byte-identical).
    pub text: Option<String>,
    /// Fixes applied, over all rounds.
    pub applied: usize,
    /// Fixes left out because they are unsafe and `unsafe_fixes` was false.
    pub unsafe_left: usize,
    /// The record's findings whose fix applied (as linted before fixing; a fix can expose a
    /// finding that a later round repairs, which `applied` counts but this does not list).
    pub fixed: Vec<Diagnostic>,
    /// The findings the record still has (all of them when it was left alone).
    pub remaining: Vec<Diagnostic>,
    /// Why the record was left alone although it had fixes (undecodable text, or an
    /// internal error of the fix loop).
    pub error: Option<String>,
}

/// Repairs one record of a dataset as [`fix`] repairs a file, reading it as [`lint_record`]
/// reads it. A record with nothing to fix costs one lint and is returned unchanged; a
/// one-line record stays on one line, so the result can go back into a JSONL file. Findings
/// carry `path` = `name`.
pub fn fix_record(
    name: &str,
    bytes: Vec<u8>,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> FixedRecord {
    let found = lint_record(name, bytes.clone(), opts);
    let applies = |d: &Diagnostic| {
        d.fix
            .as_ref()
            .is_some_and(|f| unsafe_fixes || f.applicability == crate::finding::Applicability::Safe)
    };
    let unchanged = |remaining: Vec<Diagnostic>, error: Option<String>| FixedRecord {
        text: None,
        applied: 0,
        unsafe_left: remaining
            .iter()
            .filter(|d| d.fix.is_some() && !applies(d))
            .count(),
        fixed: Vec::new(),
        remaining,
        error,
    };
    if !found.iter().any(applies) {
        return unchanged(found, None);
    }
    let one_line = !bytes.contains(&b'\n');
    // lint_record read it as a document unless it only reads as a JSONL line.
    let as_line = found.iter().any(|d| RECORD_SHAPE.contains(&d.code));
    let file = if as_line {
        "record.jsonl"
    } else {
        "record.json"
    };
    match fix(file, bytes, opts, unsafe_fixes) {
        Err(error) => unchanged(found, Some(error.to_string())),
        Ok(done) if !done.changed => unchanged(found, None),
        Ok(done) if one_line && done.text.contains('\n') => unchanged(
            found,
            Some("internal error: a fix split the record over lines; it is left unchanged".into()),
        ),
        Ok(done) => {
            // The fix loop's last lint is lint_record's unless the text reads only as a line.
            let reread = !as_line
                && done
                    .remaining
                    .iter()
                    .any(|d| RECORD_SHAPE.contains(&d.code));
            let mut remaining = if reread {
                lint_record(name, done.text.clone().into_bytes(), opts)
            } else {
                done.remaining
            };
            for d in &mut remaining {
                d.path = name.to_string();
            }
            FixedRecord {
                text: Some(done.text),
                applied: done.applied,
                unsafe_left: done.unsafe_left,
                fixed: found.into_iter().filter(|d| applies(d)).collect(),
                remaining,
                error: None,
            }
        }
    }
}

fn source_name(name: &str) -> SourceName {
    SourceName {
        name: name.to_string(),
        path: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_log_is_linted_as_the_text_its_frames_hold() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let path = root.join("fixtures/dsh/broken-unanswered-call.jsonl.zstd");
        let file = std::fs::read(&path).expect("fixture");
        let text = crate::zstd_log::decode(&file, 1 << 30).expect("frames");
        let opts = Options::default().build().expect("options");
        let name = "session.jsonl.zstd";
        let key = |d: &Diagnostic| (d.code, d.line, d.column);
        let compressed: Vec<_> = lint(name, file.clone(), &opts).iter().map(key).collect();
        let plain: Vec<_> = lint(name, text.bytes().to_vec(), &opts)
            .iter()
            .map(key)
            .collect();
        assert!(!compressed.is_empty());
        assert_eq!(compressed, plain);
        let refused = fix(name, file, &opts, false).err();
        assert!(
            matches!(&refused, Some(Error::Compressed { name: n }) if n == name),
            "{refused:?}"
        );
        let message = refused.map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("Zstandard"), "{message}");
    }

    #[test]
    fn bad_options_are_errors() {
        let bad = |o: Options| o.build().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(bad(Options {
            input_format: Some("nope".into()),
            ..Options::default()
        })
        .contains("unknown input format"));
        assert!(bad(Options {
            targets: vec!["nope".into()],
            ..Options::default()
        })
        .contains("unknown target"));
        assert!(bad(Options {
            select: vec!["XX9".into()],
            ..Options::default()
        })
        .contains("unknown rule selector"));
        assert!(bad(Options {
            tools: vec!["[".into()],
            ..Options::default()
        })
        .contains("not valid JSON"));
    }

    #[test]
    fn fixed_records_stay_on_one_line_and_clean_ones_are_untouched() {
        let opts = Options::default().build().expect("default options");
        let orphan = br#"{"messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c","content":"x"},{"role":"assistant","content":"ok"}]}"#;
        let done = fix_record("r", orphan.to_vec(), &opts, false);
        let text = done.text.unwrap_or_default();
        assert!(!text.is_empty() && !text.contains('\n'), "{text}");
        assert!(!text.contains("tool_call_id"), "{text}");
        assert_eq!(done.applied, 1);
        assert_eq!(
            done.fixed.iter().map(|d| d.code).collect::<Vec<_>>(),
            ["TC101"]
        );
        assert!(done.fixed.iter().all(|d| d.path == "r"));
        assert!(done.remaining.is_empty() && done.error.is_none());

        let clean = br#"{"messages":[{"role":"user","content":"hi"}]}"#;
        let done = fix_record("r", clean.to_vec(), &opts, false);
        assert!(done.text.is_none() && done.fixed.is_empty() && done.remaining.is_empty());

        let cut = fix_record("r", orphan[..40].to_vec(), &opts, false);
        assert!(cut.text.is_none());
        assert_eq!(
            cut.remaining.iter().map(|d| d.code).collect::<Vec<_>>(),
            ["TC001"]
        );
    }

    #[test]
    fn records_read_as_jsonl_lines() {
        let opts = Options::default().build().expect("default options");
        let record = r#"{"messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c","content":"x"}]}"#;
        let as_line = |text: &str| {
            let mut found = lint("r.jsonl", text.as_bytes().to_vec(), &opts);
            for d in &mut found {
                d.path = "r".into();
            }
            serde_json::to_string(&found).unwrap_or_default()
        };
        for text in [record, &record[..40], "{}", "[1, 2]"] {
            let found = lint_record("r", text.as_bytes().to_vec(), &opts);
            assert_eq!(
                serde_json::to_string(&found).unwrap_or_default(),
                as_line(text),
                "{text}"
            );
        }
    }

    #[test]
    fn lints_and_fixes_text() {
        let text = r#"{"messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"x"}]}"#;
        let opts = Options::default().build().expect("default options");
        let found = lint("x.json", text.as_bytes().to_vec(), &opts);
        assert!(found.iter().any(|d| d.rule == "orphaned-tool-result"));
        let fixed = fix("x.json", text.as_bytes().to_vec(), &opts, true).expect("fixes");
        assert!(fixed.changed);
        assert!(fixed.remaining.is_empty());
    }
}
