//! The pipeline for one file: read → parse → detect → normalise → rules. This file holds
//! its public face: the options, the report of one file and the entry points
//! ([`lint_bytes`], [`lint_str`], [`too_large`]); `read.rs` reads the file (one document or
//! JSONL records) and `check.rs` runs the rules on what was read and plans their fixes.

mod check;
mod read;

// The type of `LintOptions::selection`, beside the options a caller builds.
pub use crate::rules::Selection;
pub use check::check_conversation;
// For `store.rs`, whose rows are normalised by its own reader.
pub(crate) use check::{check_session, note_withheld};

use crate::finding::Finding;
use crate::format::Format;
use crate::rules;
use crate::source::SourceFile;
use crate::transcript::ToolDef;
use read::{is_jsonl, Linter};

#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// Skip detection and read every file as this format.
    pub input_format: Option<Format>,
    pub selection: Selection,
    /// Tool definitions from `--tools`.
    pub extra_tools: Vec<ToolDef>,
    pub rule_options: rules::RuleOptions,
    /// Compiled schemas, shared across files.
    pub schemas: std::sync::Arc<crate::schema::SchemaCache>,
    /// `--target`: hold every conversation to these providers' rules instead of its own
    /// format's.
    pub targets: Option<Vec<crate::provider::Provider>>,
    /// Where the tool definitions of every conversation read go (`toolcheck tools extract`);
    /// `None` in a lint.
    pub tools_found: Option<std::sync::Arc<ToolsFound>>,
}

/// The tool definitions conversations declared, each with the file it was read from, in the
/// order read (files are read in parallel: sort by file for a stable order).
#[derive(Debug, Default)]
pub struct ToolsFound {
    found: std::sync::Mutex<Vec<(String, ToolDef)>>,
}

impl ToolsFound {
    pub(crate) fn add(&self, file: &str, tools: &[ToolDef]) {
        if tools.is_empty() {
            return;
        }
        let mut found = self
            .found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        found.extend(tools.iter().map(|t| (file.to_string(), t.clone())));
    }

    /// Everything found so far, taken out.
    pub fn take(&self) -> Vec<(String, ToolDef)> {
        std::mem::take(
            &mut *self
                .found
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Read as transcripts of these formats.
    Checked(Vec<Format>),
    /// Not a transcript, met in a directory walk.
    Skipped(Skip),
}

/// Why a file was not read as a conversation: what it is, and the reason `-v` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub kind: SkipKind,
    pub reason: String,
}

impl Skip {
    pub fn new(kind: SkipKind, reason: impl Into<String>) -> Skip {
        Skip {
            kind,
            reason: reason.into(),
        }
    }
}

/// What a skipped file is, for the summary line (`2 Strands agent records, 1 other JSON`),
/// in the order the summary names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipKind {
    StrandsSession,
    StrandsAgent,
    OpenHandsState,
    OtlpWithoutModelCalls,
    PhoenixWithoutModelCalls,
    PrintedSpansWithoutModelCalls,
    KimiWireLog,
    SqliteWithoutSessions,
    EmptyDocument,
    EmptyFile,
    Other,
}

impl SkipKind {
    /// How the summary names one, and several.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            SkipKind::StrandsSession => ("Strands session record", "Strands session records"),
            SkipKind::StrandsAgent => ("Strands agent record", "Strands agent records"),
            SkipKind::OpenHandsState => (
                "OpenHands conversation state",
                "OpenHands conversation states",
            ),
            SkipKind::OtlpWithoutModelCalls => (
                "OTLP export without model calls",
                "OTLP exports without model calls",
            ),
            SkipKind::PhoenixWithoutModelCalls => (
                "Phoenix span export without model calls",
                "Phoenix span exports without model calls",
            ),
            SkipKind::PrintedSpansWithoutModelCalls => (
                "printed span export without model calls",
                "printed span exports without model calls",
            ),
            SkipKind::KimiWireLog => ("Kimi Code CLI wire log", "Kimi Code CLI wire logs"),
            SkipKind::SqliteWithoutSessions => (
                "SQLite database without session tables",
                "SQLite databases without session tables",
            ),
            SkipKind::EmptyDocument => ("empty document", "empty documents"),
            SkipKind::EmptyFile => ("empty file", "empty files"),
            SkipKind::Other => ("other JSON", "other JSON"),
        }
    }
}

#[derive(Debug)]
pub struct FileReport {
    pub source: SourceFile,
    pub findings: Vec<Finding>,
    pub outcome: Outcome,
    /// Conversations, calls and results read (for `-v`).
    pub read: crate::coverage::ReadCounts,
}

/// Checks one file's bytes.
pub fn lint_bytes(
    source_name: SourceName,
    bytes: Vec<u8>,
    explicit: bool,
    opts: &LintOptions,
) -> FileReport {
    lint_decoded(
        source_name,
        crate::encoding::decode(bytes),
        explicit,
        opts,
        false,
    )
}

/// [`lint_bytes`] of a text already decoded (a fix round's), without validating it again.
pub(crate) fn lint_text(
    source_name: SourceName,
    text: String,
    explicit: bool,
    opts: &LintOptions,
) -> FileReport {
    let decoded = crate::encoding::decode_text(text);
    lint_decoded(source_name, decoded, explicit, opts, false)
}

/// Checks whole JSONL lines of a file already known to hold one conversation per record
/// (see [`crate::stream`]): each record as `lint_bytes` would check it in the whole file.
/// A chunk that holds no conversation is not `unknown-format`: the caller judges the file.
pub(crate) fn lint_record_lines(
    source_name: SourceName,
    bytes: Vec<u8>,
    opts: &LintOptions,
) -> FileReport {
    lint_decoded(
        source_name,
        crate::encoding::decode(bytes),
        true,
        opts,
        true,
    )
}

/// [`lint_record_lines`] of a text already decoded (a fix round's).
pub(crate) fn lint_record_text(
    source_name: SourceName,
    text: String,
    opts: &LintOptions,
) -> FileReport {
    let decoded = crate::encoding::decode_text(text);
    lint_decoded(source_name, decoded, true, opts, true)
}

pub(crate) use read::opens_per_record_jsonl;

fn lint_decoded(
    source_name: SourceName,
    decoded: crate::encoding::Decoded,
    explicit: bool,
    opts: &LintOptions,
    records_only: bool,
) -> FileReport {
    let bad_lines = match &decoded.problem {
        Some(crate::encoding::Problem::BadUtf8 { lines, .. }) => lines.clone(),
        _ => Vec::new(),
    };
    let text = decoded.text;
    let source = SourceFile::new(source_name.path, source_name.name, text);
    let jsonl = records_only || is_jsonl(&source);
    // Invalid UTF-8 in a JSONL file is a finding per record; anything else undecodable is
    // one parse error for the file.
    report(
        source,
        opts,
        explicit,
        bad_lines,
        records_only,
        |linter| match decoded.problem {
            Some(crate::encoding::Problem::BadUtf8 { .. }) if jsonl => linter.run(),
            Some(problem) => {
                linter.parse_error(problem.offset(), problem.message());
                None
            }
            None => linter.run(),
        },
    )
}

/// Checks one JSON document given as its tree rather than its text: a history read off a
/// caller's objects (the Python guards', where writing the text and parsing it back cost a
/// third of a clean check). Its findings are those [`lint_bytes`] gives for the compact
/// text of the same value, but the report's source is empty, so they cannot be placed: a
/// caller that gets any lints the text to place them. `None` for a name that reads as JSONL,
/// whose text would be read line by line.
pub fn lint_tree(
    source_name: SourceName,
    value: crate::tree::Value<'_>,
    opts: &LintOptions,
) -> Option<FileReport> {
    let source = SourceFile::new(source_name.path, source_name.name, String::new());
    if is_jsonl(&source) {
        return None;
    }
    Some(report(source, opts, true, Vec::new(), false, |linter| {
        linter.run_tree(value, 0, false)
    }))
}

/// The report of `source`, read by `run` with a linter of these options.
fn report(
    source: SourceFile,
    opts: &LintOptions,
    explicit: bool,
    bad_lines: Vec<usize>,
    records_only: bool,
    run: impl FnOnce(&mut Linter<'_>) -> Option<Skip>,
) -> FileReport {
    let mut linter = Linter {
        source: &source,
        opts,
        explicit,
        bad_lines,
        findings: Vec::new(),
        formats: Vec::new(),
        counts: crate::coverage::ReadCounts::default(),
        records_only,
    };
    let skipped = run(&mut linter);
    let read = linter.counts;
    let mut findings = linter.findings;
    let mut formats = linter.formats;
    findings.retain(|f| opts.selection.is_enabled(f.rule.code));
    formats.sort();
    formats.dedup();
    let outcome = match skipped {
        Some(reason) => Outcome::Skipped(reason),
        None => Outcome::Checked(formats),
    };
    FileReport {
        source,
        findings,
        outcome,
        read,
    }
}

/// The report for a file over the maximum input size: one `input-not-checked` finding.
pub fn too_large(source_name: SourceName, size: Option<u64>, limit: u64) -> FileReport {
    let source = SourceFile::new(source_name.path, source_name.name, String::new());
    let finding = Finding::at_span(
        &rules::InputNotChecked::META,
        0,
        0,
        too_large_message(size, limit),
    )
    .help("raise the limit with `--max-file-size` (or `max-file-size` in toolcheck.toml) if the file really is a conversation log");
    FileReport {
        source,
        findings: vec![finding],
        outcome: Outcome::Checked(Vec::new()),
        read: crate::coverage::ReadCounts::default(),
    }
}

/// The report for a file none of whose records matched a conversation format, when the file
/// was named (or its format forced): one `unknown-format` finding, as a whole file gets.
pub(crate) fn unrecognised_report(
    source_name: &SourceName,
    opts: &LintOptions,
    reason: &str,
) -> FileReport {
    let source = SourceFile::new(
        source_name.path.clone(),
        source_name.name.clone(),
        String::new(),
    );
    let finding = read::unrecognised_finding(opts, reason);
    FileReport {
        source,
        findings: vec![finding],
        outcome: Outcome::Checked(Vec::new()),
        read: crate::coverage::ReadCounts::default(),
    }
}

/// Why a file over the maximum input size was not read.
pub fn too_large_message(size: Option<u64>, limit: u64) -> String {
    let limit = crate::read::human_size(limit);
    match size {
        Some(size) => format!(
            "file is {} ({size} bytes), larger than the maximum input size of {limit}; it was not checked",
            crate::read::human_size(size)
        ),
        None => format!("input is larger than the maximum input size of {limit}; it was not checked"),
    }
}

/// The name and path of an input.
pub struct SourceName {
    pub name: String,
    pub path: Option<std::path::PathBuf>,
}

/// Checks text as if it were a file named `name` (the extension picks JSON or JSONL), with
/// the default options: the entry point for embedding and for tests.
pub fn lint_str(name: &str, text: &str) -> FileReport {
    lint_bytes(
        SourceName {
            name: name.to_string(),
            path: None,
        },
        text.as_bytes().to_vec(),
        true,
        &LintOptions::default(),
    )
}

impl FileReport {
    /// `CODE@line:col` for each finding, in file order: compact expectations for tests.
    pub fn codes(&self) -> Vec<String> {
        let mut placed: Vec<(usize, String)> = crate::source::with_span_cache(&self.source, || {
            self.findings
                .iter()
                .map(|f| {
                    let d = crate::diagnostic::Diagnostic::resolve(&self.source, f.clone());
                    (d.start, format!("{}@{}:{}", d.code, d.line, d.column))
                })
                .collect()
        });
        placed.sort();
        placed.into_iter().map(|(_, s)| s).collect()
    }
}
