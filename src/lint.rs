//! The pipeline for one file: read → parse → detect → normalise → rules.

use rayon::prelude::*;
use serde_json::Value;

use crate::finding::{Anchor, Finding, Fix};
use crate::fix::plan::EditContext;
use crate::formats::{self, Adapter, Doc, Format, Unit};
use crate::rules::{self, Context};
use crate::source::SourceFile;
use crate::transcript::{Conversation, ToolDef};

/// Which rules run.
#[derive(Debug, Clone)]
pub struct Selection {
    enabled: Vec<&'static str>,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            enabled: rules::RULES.iter().map(|r| r.meta().code).collect(),
        }
    }
}

impl Selection {
    /// Resolves `--select` and `--ignore` lists of codes, code prefixes (`TC1`) or names.
    pub fn new(select: &[String], ignore: &[String]) -> Result<Self, String> {
        let matching = |key: &str| -> Result<Vec<&'static str>, String> {
            let key = key.trim();
            let found: Vec<&'static str> = rules::RULES
                .iter()
                .map(|r| r.meta())
                .filter(|m| {
                    m.name == key
                        || key.eq_ignore_ascii_case("ALL")
                        || m.code
                            .to_ascii_uppercase()
                            .starts_with(&key.to_ascii_uppercase())
                })
                .map(|m| m.code)
                .collect();
            if found.is_empty() {
                Err(format!(
                    "unknown rule selector `{key}`{}: expected a code (TC101), a code prefix (TC1) or a name (orphaned-tool-result); `toolcheck rules` lists them",
                    rules::did_you_mean(key)
                ))
            } else {
                Ok(found)
            }
        };
        let mut enabled = if select.is_empty() {
            Selection::default().enabled
        } else {
            let mut codes = Vec::new();
            for key in select {
                codes.extend(matching(key)?);
            }
            codes
        };
        for key in ignore {
            let ignored = matching(key)?;
            enabled.retain(|c| !ignored.contains(c));
        }
        Ok(Selection { enabled })
    }

    pub fn is_enabled(&self, code: &str) -> bool {
        self.enabled.contains(&code)
    }
}

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
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Read as transcripts of these formats.
    Checked(Vec<Format>),
    /// Not a transcript, met in a directory walk.
    Skipped(String),
}

#[derive(Debug)]
pub struct FileReport {
    pub source: SourceFile,
    pub findings: Vec<Finding>,
    pub outcome: Outcome,
}

/// Checks one file's bytes.
pub fn lint_bytes(
    source_name: SourceName,
    bytes: Vec<u8>,
    explicit: bool,
    opts: &LintOptions,
) -> FileReport {
    let (text, bad_utf8, bad_lines) = match String::from_utf8(bytes) {
        Ok(text) => (text, None, Vec::new()),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let byte = e.as_bytes().get(at).copied().unwrap_or_default();
            // Lossy decoding keeps line breaks, so line numbers still match the bytes.
            let bad_lines = e
                .as_bytes()
                .split(|&b| b == b'\n')
                .enumerate()
                .filter(|(_, line)| std::str::from_utf8(line).is_err())
                .map(|(i, _)| i)
                .collect();
            (
                String::from_utf8_lossy(e.as_bytes()).into_owned(),
                Some((at, byte)),
                bad_lines,
            )
        }
    };
    let source = SourceFile::new(source_name.path, source_name.name, text);
    let mut linter = Linter {
        source: &source,
        opts,
        explicit,
        bad_lines,
        findings: Vec::new(),
        formats: Vec::new(),
    };
    let skipped = match bad_utf8 {
        Some((at, byte)) if !is_jsonl(&source) => {
            linter.parse_error(
                at,
                format!("file is not valid UTF-8: byte 0x{byte:02x} at offset {at}"),
            );
            None
        }
        _ => linter.run(),
    };
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
    }
}

/// The name and path of an input.
pub struct SourceName {
    pub name: String,
    pub path: Option<std::path::PathBuf>,
}

fn is_jsonl(source: &SourceFile) -> bool {
    let ext = std::path::Path::new(&source.name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("jsonl" | "ndjson"))
}

struct Linter<'a> {
    source: &'a SourceFile,
    opts: &'a LintOptions,
    explicit: bool,
    /// JSONL lines (0-based) that are not valid UTF-8.
    bad_lines: Vec<usize>,
    findings: Vec<Finding>,
    formats: Vec<Format>,
}

impl Linter<'_> {
    /// Runs the file; returns `Some(reason)` when it is skipped as not a transcript.
    fn run(&mut self) -> Option<String> {
        // A UTF-8 byte order mark (Windows editors, PowerShell) is skipped, and kept as is.
        let bom = if self.source.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        let text = &self.source.text[bom..];
        if text.trim().is_empty() {
            if is_jsonl(self.source) {
                // A dataset with no records: nothing to check, nothing wrong.
                return None;
            }
            return self.unrecognised("nothing (the file is empty)".into());
        }
        if is_jsonl(self.source) {
            // A pretty-printed JSON document saved as `.jsonl` is read as what it is.
            let first_line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default();
            if serde_json::from_str::<Value>(first_line).is_err() {
                if let Ok(doc) = serde_json::from_str::<Value>(text) {
                    return self.run_document(&doc, bom);
                }
            }
            return self.run_jsonl(bom);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(doc) => self.run_document(&doc, bom),
            Err(e) => {
                // A `.json` file that is really JSONL (one document per line) is common.
                let first_line_parses = text
                    .lines()
                    .next()
                    .is_some_and(|l| serde_json::from_str::<Value>(l).is_ok());
                if e.line() > 1 && first_line_parses {
                    return self.run_jsonl(bom);
                }
                let at = offset_of(self.source, bom, e.line(), e.column());
                self.parse_error(at, describe_json_error(&e, "file"));
                None
            }
        }
    }

    /// Checks the one JSON document that starts at byte `base`.
    fn run_document(&mut self, doc: &Value, base: usize) -> Option<String> {
        let adapter = match self.opts.input_format {
            Some(format) => format.adapter(),
            None => formats::detect(doc),
        };
        let Some(adapter) = adapter else {
            return self.unrecognised(describe_shape(doc));
        };
        let docs = [Doc { base, value: doc }];
        self.normalise_and_check(adapter, &docs, false);
        None
    }

    /// Checks a JSONL file; `bom` is the length of a byte order mark before the first line.
    fn run_jsonl(&mut self, bom: usize) -> Option<String> {
        let source = self.source;
        let mut lines: Vec<(usize, &str)> = Vec::new();
        for i in 0..source.line_count() {
            let (start, end) = source.line_range(i);
            let start = if i == 0 { start + bom } else { start };
            let line = &source.text[start..end];
            if self.bad_lines.contains(&i) {
                self.record_error(start, &RecordError::Utf8);
            } else if !line.trim().is_empty() {
                lines.push((start, line));
            }
        }
        if lines.is_empty() {
            // Only blank or unreadable lines: nothing else to check.
            return None;
        }
        // Session formats are judged from the first records; the rest is per record.
        let forced_session = self
            .opts
            .input_format
            .and_then(Format::adapter)
            .filter(|a| a.unit() == Unit::Session);
        let session = forced_session.or_else(|| {
            if self.opts.input_format.is_some() {
                return None;
            }
            let head: Vec<Value> = lines
                .iter()
                .take(16)
                .filter_map(|(_, l)| serde_json::from_str(l).ok())
                .collect();
            formats::detect_session(head.iter())
        });
        if let Some(adapter) = session {
            let mut parsed = Vec::with_capacity(lines.len());
            for &(base, line) in &lines {
                match parse_record(line) {
                    Ok(v) => parsed.push((base, v)),
                    Err(e) => self.record_error(base, &e),
                }
            }
            let docs: Vec<Doc<'_>> = parsed
                .iter()
                .map(|(base, value)| Doc { base: *base, value })
                .collect();
            self.normalise_and_check(adapter, &docs, true);
            return None;
        }
        let opts = self.opts;
        let per_record: Vec<RecordOutcome> = lines
            .par_iter()
            .map(|&(base, line)| check_record(source, opts, base, line))
            .collect();
        let mut recognised = false;
        for outcome in per_record {
            match outcome {
                RecordOutcome::Parsed { findings, format } => {
                    recognised |= format.is_some();
                    self.formats.extend(format);
                    self.findings.extend(findings);
                }
                RecordOutcome::Invalid(err, base) => self.record_error(base, &err),
            }
        }
        if !recognised && self.findings.is_empty() {
            return self.unrecognised("no record that matches a conversation format".to_string());
        }
        None
    }

    fn normalise_and_check(&mut self, adapter: &dyn Adapter, docs: &[Doc<'_>], jsonl: bool) {
        let (findings, format) = check_docs(adapter, docs, self.source, self.opts, jsonl);
        self.findings.extend(findings);
        self.formats.extend(format);
    }

    fn unrecognised(&mut self, reason: String) -> Option<String> {
        if !self.explicit && self.opts.input_format.is_none() {
            return Some(reason);
        }
        let message = match self.opts.input_format {
            Some(format) => format!("file does not fit the `{format}` format: {reason}"),
            None => format!("file matches no conversation format: it holds {reason}"),
        };
        self.findings.push(
            Finding::at(
                &rules::UnknownFormat::META,
                &crate::transcript::Loc::new(0, ""),
                message,
            )
            .help(format!(
                "pass `--input-format` with one of: {}",
                Format::ALL.map(Format::name).join(", ")
            )),
        );
        None
    }

    fn parse_error(&mut self, at: usize, message: String) {
        let end = (at + 1).min(self.source.text.len()).max(at);
        self.findings.push(Finding {
            anchor: Anchor::Span { start: at, end },
            ..Finding::at(
                &rules::ParseError::META,
                &crate::transcript::Loc::new(at, ""),
                message,
            )
            .help("repair or remove the broken JSON; nothing in it can be checked until then")
        });
    }

    fn record_error(&mut self, base: usize, err: &RecordError) {
        match err {
            RecordError::Json(e) => {
                let at = offset_of(self.source, base, e.line(), e.column());
                self.parse_error(at, describe_json_error(e, "record"));
            }
            RecordError::Utf8 => self.parse_error(base, "record is not valid UTF-8".into()),
        }
    }
}

enum RecordError {
    Json(serde_json::Error),
    Utf8,
}

fn parse_record(line: &str) -> Result<Value, RecordError> {
    serde_json::from_str(line).map_err(RecordError::Json)
}

enum RecordOutcome {
    Parsed {
        findings: Vec<Finding>,
        format: Option<Format>,
    },
    Invalid(RecordError, usize),
}

fn check_record(source: &SourceFile, opts: &LintOptions, base: usize, line: &str) -> RecordOutcome {
    let value = match parse_record(line) {
        Ok(v) => v,
        Err(e) => return RecordOutcome::Invalid(e, base),
    };
    let adapter = match opts.input_format {
        Some(format) => format.adapter(),
        None => formats::detect(&value),
    };
    let Some(adapter) = adapter else {
        return RecordOutcome::Parsed {
            findings: Vec::new(),
            format: None,
        };
    };
    let docs = [Doc {
        base,
        value: &value,
    }];
    let (findings, format) = check_docs(adapter, &docs, source, opts, true);
    RecordOutcome::Parsed { findings, format }
}

/// Normalises documents with `adapter` and runs the rules on every conversation; a document
/// that does not fit the format is an `unknown-format` finding at its start. `jsonl`: the
/// documents are records of a JSONL file (fixes may then add or remove whole lines, and must
/// not add line breaks inside a record). Returns the format when the documents fit it.
fn check_docs(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
) -> (Vec<Finding>, Option<Format>) {
    match adapter.normalise(docs) {
        Ok(conversations) => {
            let findings = conversations
                .iter()
                .flat_map(|conv| check_conversation(conv, adapter, source, opts, jsonl))
                .collect();
            (findings, Some(adapter.format()))
        }
        Err(reason) => {
            let at = docs.first().map_or(0, |d| d.base);
            let what = if jsonl { "record" } else { "file" };
            let finding = Finding::at(
                &rules::UnknownFormat::META,
                &crate::transcript::Loc::new(at, ""),
                format!(
                    "{what} does not fit the `{}` format: {reason}",
                    adapter.format()
                ),
            )
            .help("check the file, or pass the right `--input-format`");
            (
                vec![Finding {
                    anchor: Anchor::Span { start: at, end: at },
                    ..finding
                }],
                None,
            )
        }
    }
}

/// Runs every enabled rule on one conversation, and turns their fix intents into edits with
/// the conversation's format adapter.
pub fn check_conversation(
    conv: &Conversation,
    adapter: &dyn Adapter,
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
) -> Vec<Finding> {
    let cx = Context::new(
        conv,
        &opts.extra_tools,
        &opts.schemas,
        &opts.rule_options,
        Some(source),
    );
    let mut findings = Vec::new();
    for rule in rules::RULES {
        if opts.selection.is_enabled(rule.meta().code) {
            rule.check(&cx, conv, &mut findings);
        }
    }
    let edit_cx = EditContext { source, jsonl };
    for finding in &mut findings {
        finding.format = Some(conv.format);
        if let Some(plan) = &finding.plan {
            finding.fix = formats::plan(adapter, &plan.intent, &edit_cx).map(|edits| Fix {
                applicability: plan.applicability,
                message: plan.message.clone(),
                edits,
            });
        }
    }
    findings
}

/// Byte offset of serde_json's 1-based line and column inside the document at `base`.
fn offset_of(source: &SourceFile, base: usize, line: usize, column: usize) -> usize {
    let first = source.line_index(base);
    let line_idx = (first + line.saturating_sub(1)).min(source.line_count().saturating_sub(1));
    let (start, end) = source.line_range(line_idx);
    let start = if line <= 1 { base } else { start };
    (start + column.saturating_sub(1)).min(end.max(start))
}

/// serde_json's message without its position (findings carry the position).
fn describe_json_error(e: &serde_json::Error, what: &str) -> String {
    let text = e.to_string();
    let text = text
        .rfind(" at line ")
        .map_or(text.as_str(), |i| &text[..i]);
    if e.is_eof() {
        format!("{what} is truncated: {text}")
    } else if text.contains("recursion limit") {
        format!("{what} is nested too deeply to read (more than 128 levels)")
    } else {
        format!("{what} is not valid JSON: {text}")
    }
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
        let mut placed: Vec<(usize, String)> = self
            .findings
            .iter()
            .map(|f| {
                let d = crate::report::Diagnostic::resolve(&self.source, f.clone());
                (d.start, format!("{}@{}:{}", d.code, d.line, d.column))
            })
            .collect();
        placed.sort();
        placed.into_iter().map(|(_, s)| s).collect()
    }
}

/// What a document that matched no format holds, for the skip reason and the finding.
fn describe_shape(doc: &Value) -> String {
    match doc {
        Value::Object(map) if map.is_empty() => "an empty object".to_string(),
        Value::Object(map)
            if ["messages", "contents", "input"]
                .iter()
                .any(|k| map.contains_key(*k)) =>
        {
            let key = ["messages", "contents", "input"]
                .into_iter()
                .find(|k| map.contains_key(*k))
                .unwrap_or("messages");
            format!("an object whose `{key}` is not a list of messages of a known format")
        }
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().take(5).map(|k| format!("`{k}`")).collect();
            let more = if map.len() > 5 { ", ..." } else { "" };
            format!(
                "an object with keys {}{more}, and no `messages`, `contents` or `input` of a known shape",
                keys.join(", ")
            )
        }
        Value::Array(items) if items.is_empty() => "an empty array".to_string(),
        Value::Array(items) => format!(
            "an array of {} items that are not messages of a known format",
            items.len()
        ),
        other => format!(
            "a bare {}",
            match other {
                Value::String(_) => "string",
                Value::Number(_) => "number",
                Value::Bool(_) => "boolean",
                _ => "null",
            }
        ),
    }
}
