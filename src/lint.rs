//! The pipeline for one file: read → parse → detect → normalise → rules.

use crate::tree::Value as Tree;
use rayon::prelude::*;

use crate::edit::plan::EditContext;
use crate::finding::{Finding, Fix, FixPlan};
use crate::format::Format;
use crate::formats::{self, Adapter, Unit};
use crate::json;
use crate::json::Doc;
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

/// One layer of rule selection: the config file's, then the command line's. In each layer,
/// `select` (when given) replaces what the layers below chose, `extend_select` adds and
/// `ignore` removes — ruff's layering.
#[derive(Debug, Clone, Default)]
pub struct RuleLayer {
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
}

/// The rule codes a selector names: a code (`TC101`), a code prefix (`TC1`), a name
/// (`orphaned-tool-result`) or `ALL`.
pub fn resolve_selector(key: &str) -> Result<Vec<&'static str>, String> {
    let key = key.trim();
    let found: Vec<&'static str> = rules::RULES
        .iter()
        .map(|r| r.meta())
        .filter(|m| {
            m.name == key
                || key.eq_ignore_ascii_case("ALL")
                || (!key.is_empty()
                    && m.code
                        .to_ascii_uppercase()
                        .starts_with(&key.to_ascii_uppercase()))
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
}

impl Selection {
    /// Resolves `--select` and `--ignore` lists of codes, code prefixes (`TC1`) or names.
    pub fn new(select: &[String], ignore: &[String]) -> Result<Self, String> {
        Selection::layered(&[RuleLayer {
            select: (!select.is_empty()).then(|| select.to_vec()),
            extend_select: Vec::new(),
            ignore: ignore.to_vec(),
        }])
    }

    /// Applies layers in order, starting from every rule.
    pub fn layered(layers: &[RuleLayer]) -> Result<Self, String> {
        let mut enabled = Selection::default().enabled;
        for layer in layers {
            if let Some(select) = &layer.select {
                enabled.clear();
                for key in select {
                    enabled.extend(resolve_selector(key)?);
                }
            }
            for key in &layer.extend_select {
                enabled.extend(resolve_selector(key)?);
            }
            for key in &layer.ignore {
                let ignored = resolve_selector(key)?;
                enabled.retain(|c| !ignored.contains(c));
            }
        }
        // Catalog order, each once.
        let enabled = rules::RULES
            .iter()
            .map(|r| r.meta().code)
            .filter(|c| enabled.contains(c))
            .collect();
        Ok(Selection { enabled })
    }

    /// The enabled codes, in catalog order.
    pub fn codes(&self) -> &[&'static str] {
        &self.enabled
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
    /// `--target`: hold every conversation to these providers' rules instead of its own
    /// format's.
    pub targets: Option<Vec<crate::provider::Provider>>,
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
    let decoded = crate::encoding::decode(bytes);
    let bad_lines = match &decoded.problem {
        Some(crate::encoding::Problem::BadUtf8 { lines, .. }) => lines.clone(),
        _ => Vec::new(),
    };
    let text = decoded.text;
    let source = SourceFile::new(source_name.path, source_name.name, text);
    let mut linter = Linter {
        source: &source,
        opts,
        explicit,
        bad_lines,
        findings: Vec::new(),
        formats: Vec::new(),
        counts: crate::coverage::ReadCounts::default(),
    };
    // Invalid UTF-8 in a JSONL file is a finding per record; anything else undecodable is
    // one parse error for the file.
    let skipped = match decoded.problem {
        Some(crate::encoding::Problem::BadUtf8 { .. }) if is_jsonl(&source) => linter.run(),
        Some(problem) => {
            linter.parse_error(problem.offset(), problem.message());
            None
        }
        None => linter.run(),
    };
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

fn is_jsonl(source: &SourceFile) -> bool {
    matches!(
        extension(source).as_deref(),
        Some("jsonl" | "ndjson" | "log")
    )
}

fn extension(source: &SourceFile) -> Option<String> {
    std::path::Path::new(&source.name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

struct Linter<'a> {
    source: &'a SourceFile,
    opts: &'a LintOptions,
    explicit: bool,
    /// JSONL lines (0-based) that are not valid UTF-8.
    bad_lines: Vec<usize>,
    findings: Vec<Finding>,
    formats: Vec<Format>,
    counts: crate::coverage::ReadCounts,
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
            return self.run_jsonl(bom, true);
        }
        match json::parse(text) {
            Ok(doc) => self.run_document(doc, bom),
            Err(e) => {
                // A `.json` file that is really JSONL (one document per line) is common.
                let first_line_parses = text.lines().next().is_some_and(|l| json::parse(l).is_ok());
                if e.line > 1 && first_line_parses {
                    return self.run_jsonl(bom, false);
                }
                self.json_error(bom, &e, "file");
                None
            }
        }
    }

    /// Checks the one JSON document that starts at byte `base`. The document's tree is
    /// dropped once its conversations are read, before the rules run: a file's findings
    /// never share the memory with the tree of the whole file.
    fn run_document(&mut self, doc: json::Parsed, base: usize) -> Option<String> {
        let adapter = match self.opts.input_format {
            Some(format) => format.adapter(),
            None => formats::detect(&doc.value),
        };
        let Some(adapter) = adapter else {
            return self.unrecognised(describe_shape(&doc.value));
        };
        let lossy = doc.lossy;
        let read = {
            let docs = [Doc {
                base,
                value: &doc.value,
            }];
            read_docs(adapter, &docs, adapter.normalise(&docs), self.opts, false)
        };
        drop(doc);
        let (findings, format, counts) =
            check_read(read, adapter, self.source, self.opts, false, lossy);
        self.counts.add(counts);
        self.findings.extend(findings);
        self.formats.extend(format);
        None
    }

    /// Checks a JSONL file; `bom` is the length of a byte order mark before the first line.
    /// `or_document`: a file whose first record does not parse may be one pretty-printed
    /// JSON document saved as `.jsonl`, and is read as what it is.
    fn run_jsonl(&mut self, bom: usize, or_document: bool) -> Option<String> {
        let source = self.source;
        let log = extension(source).as_deref() == Some("log");
        let mut lines: Vec<(usize, &str)> = Vec::new();
        for i in 0..source.line_count() {
            let (start, end) = source.line_range(i);
            let start = if i == 0 { start + bom } else { start };
            let line = &source.text[start..end];
            if self.bad_lines.contains(&i) {
                self.record_error(start, &RecordError::Utf8);
            } else {
                // Log lines may carry their record between other text; in a `.log` file,
                // lines that do not open an object are log text, not broken records.
                let (from, to) = formats::record_span(line);
                let record = line.get(from..to).unwrap_or_default();
                let text = log && !record.trim_start().starts_with('{');
                if !record.trim().is_empty() && !text {
                    lines.push((start + from, record));
                }
            }
        }
        if lines.is_empty() {
            // Only blank or unreadable lines: nothing else to check.
            return None;
        }
        // The first records are read once, for judging the format and then as records.
        let head: Vec<Result<json::Parsed<'_>, RecordError>> = lines
            .iter()
            .take(HEAD)
            .map(|&(_, line)| parse_record(line))
            .collect();
        if or_document && head.first().is_some_and(Result::is_err) {
            let text = source.text.get(bom..).unwrap_or_default();
            if let Ok(doc) = json::parse(text) {
                return self.run_document(doc, bom);
            }
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
            formats::detect_session(
                head.iter()
                    .filter_map(|p| p.as_ref().ok())
                    .map(|p| &p.value),
            )
        });
        if let Some(adapter) = session {
            let mut parsed = Vec::with_capacity(lines.len());
            let mut lossy = false;
            let mut head = head.into_iter();
            for &(base, line) in &lines {
                match head.next().unwrap_or_else(|| parse_record(line)) {
                    Ok(p) => {
                        lossy |= p.lossy;
                        parsed.push((base, p.value));
                    }
                    Err(e) => self.record_error(base, &e),
                }
            }
            let docs: Vec<Doc<'_>> = parsed
                .iter()
                .map(|(base, value)| Doc { base: *base, value })
                .collect();
            self.normalise_and_check(adapter, &docs, true, lossy);
            return None;
        }
        let opts = self.opts;
        let (read, rest) = lines.split_at(head.len());
        let per_record: Vec<RecordOutcome> = head
            .into_par_iter()
            .zip(read.par_iter())
            .map(|(parsed, &(base, _))| match parsed {
                Ok(parsed) => check_parsed(source, opts, base, parsed),
                Err(e) => RecordOutcome::Invalid(e, base),
            })
            .chain(
                rest.par_iter()
                    .map(|&(base, line)| check_record(source, opts, base, line)),
            )
            .collect();
        let mut recognised = false;
        for outcome in per_record {
            match outcome {
                RecordOutcome::Parsed {
                    findings,
                    format,
                    counts,
                } => {
                    self.counts.add(counts);
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

    fn normalise_and_check(
        &mut self,
        adapter: &dyn Adapter,
        docs: &[Doc<'_>],
        jsonl: bool,
        lossy: bool,
    ) {
        let (findings, format, counts) =
            check_docs(adapter, docs, self.source, self.opts, jsonl, lossy);
        self.counts.add(counts);
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
        let (start, end) = self.one_char_at(at);
        self.findings.push(
            Finding::at_span(&rules::ParseError::META, start, end, message)
                .help("repair or remove the broken JSON; nothing in it can be checked until then"),
        );
    }

    /// The span of the one character at byte `at`: one character, not one byte, so the span
    /// starts and ends on char boundaries.
    fn one_char_at(&self, at: usize) -> (usize, usize) {
        let at = crate::source::floor_char_boundary(&self.source.text, at);
        (
            at,
            crate::source::ceil_char_boundary(&self.source.text, at + 1),
        )
    }

    fn record_error(&mut self, base: usize, err: &RecordError) {
        match err {
            RecordError::Json(e) => self.json_error(base, e, "record"),
            RecordError::Utf8 => self.parse_error(base, "record is not valid UTF-8".into()),
        }
    }

    /// Reports JSON that could not be read: a syntax error or truncation is `parse-error`;
    /// valid JSON nested past the depth toolcheck reads is `input-not-checked`.
    fn json_error(&mut self, base: usize, e: &json::JsonError, what: &str) {
        let at = offset_of(self.source, base, e.line, e.column);
        if e.kind == json::JsonErrorKind::TooDeep {
            let (start, end) = self.one_char_at(at);
            self.findings.push(
                Finding::at_span(
                    &rules::InputNotChecked::META,
                    start,
                    end,
                    format!(
                        "{what} is nested deeper than {} levels here, more than toolcheck reads; the {what} was not checked",
                        json::MAX_DEPTH
                    ),
                )
                .help(format!(
                    "flatten the deeply nested value; toolcheck checks nothing in this {what} until then"
                )),
            );
            return;
        }
        self.parse_error(at, describe_json_error(e, what));
    }
}

/// How many first records of a JSONL file judge whether it is one session.
const HEAD: usize = 16;

enum RecordError {
    Json(json::JsonError),
    Utf8,
}

fn parse_record(line: &str) -> Result<json::Parsed<'_>, RecordError> {
    json::parse(line).map_err(RecordError::Json)
}

enum RecordOutcome {
    Parsed {
        findings: Vec<Finding>,
        format: Option<Format>,
        counts: crate::coverage::ReadCounts,
    },
    Invalid(RecordError, usize),
}

fn check_record(source: &SourceFile, opts: &LintOptions, base: usize, line: &str) -> RecordOutcome {
    match parse_record(line) {
        Ok(parsed) => check_parsed(source, opts, base, parsed),
        Err(e) => RecordOutcome::Invalid(e, base),
    }
}

/// Checks one parsed JSONL record that starts at byte `base`.
fn check_parsed(
    source: &SourceFile,
    opts: &LintOptions,
    base: usize,
    parsed: json::Parsed<'_>,
) -> RecordOutcome {
    let (value, lossy) = (parsed.value, parsed.lossy);
    let adapter = match opts.input_format {
        Some(format) => format.adapter(),
        None => formats::detect(&value),
    };
    let Some(adapter) = adapter else {
        return RecordOutcome::Parsed {
            findings: Vec::new(),
            format: None,
            counts: crate::coverage::ReadCounts::default(),
        };
    };
    let docs = [Doc {
        base,
        value: &value,
    }];
    let (findings, format, counts) = check_docs(adapter, &docs, source, opts, true, lossy);
    RecordOutcome::Parsed {
        findings,
        format,
        counts,
    }
}

/// Normalises documents with `adapter` and runs the rules on every conversation; a document
/// that does not fit the format is an `unknown-format` finding at its start. `jsonl`: the
/// documents are records of a JSONL file (fixes may then add or remove whole lines, and must
/// not add line breaks inside a record). `lossy`: a document was read with lone surrogates
/// replaced, so fixes, which may copy parsed values into the file, are withheld.
/// Returns the format when the documents fit it.
fn check_docs(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    check_normalised(
        adapter,
        docs,
        adapter.normalise(docs),
        source,
        opts,
        jsonl,
        lossy,
    )
}

/// [`check_docs`] for documents already normalised (by another reader of `adapter`'s
/// shapes, such as a SQLite store whose rows are one conversation's items).
pub(crate) fn check_normalised(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    normalised: Result<Vec<crate::transcript::Conversation>, String>,
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    let read = read_docs(adapter, docs, normalised, opts, jsonl);
    check_read(read, adapter, source, opts, jsonl, lossy)
}

/// What reading documents gave, all that checking them needs (the documents' trees are no
/// longer needed): their conversations and the finding for structures none of them holds,
/// or the finding that they do not fit the format.
pub(crate) enum Read {
    Fit {
        conversations: Vec<crate::transcript::Conversation>,
        unread: Option<Finding>,
    },
    Unfit(Finding),
}

/// Reads normalised documents: the coverage guard runs here, while the trees are alive.
pub(crate) fn read_docs(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    normalised: Result<Vec<crate::transcript::Conversation>, String>,
    opts: &LintOptions,
    jsonl: bool,
) -> Read {
    match normalised {
        Ok(conversations) => {
            let unread = if opts.selection.is_enabled("TC005") {
                // A session rebuilt from a chain rightly leaves the records off it out
                // (rewound branches); what it did draw on, and every other input, is read
                // whole.
                let drawn;
                let docs = if adapter.replays_every_record() {
                    docs
                } else {
                    drawn = crate::coverage::drawn_on(docs, &conversations);
                    &drawn
                };
                unread_finding(
                    &crate::coverage::unread(docs, &conversations),
                    adapter.format(),
                )
            } else {
                None
            };
            Read::Fit {
                conversations,
                unread,
            }
        }
        Err(reason) => {
            let at = docs.first().map_or(0, |d| d.base);
            let what = if jsonl { "record" } else { "file" };
            Read::Unfit(
                Finding::at_span(
                    &rules::UnknownFormat::META,
                    at,
                    at,
                    format!(
                        "{what} does not fit the `{}` format: {reason}",
                        adapter.format()
                    ),
                )
                .help("check the file, or pass the right `--input-format`"),
            )
        }
    }
}

/// Runs the rules on what [`read_docs`] read.
pub(crate) fn check_read(
    read: Read,
    adapter: &dyn Adapter,
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    match read {
        Read::Fit {
            conversations,
            unread,
        } => {
            let mut findings: Vec<Finding> = conversations
                .iter()
                .flat_map(|conv| check_conversation(conv, adapter, source, opts, jsonl))
                .collect();
            if lossy {
                for finding in &mut findings {
                    finding.fix = None;
                }
            }
            findings.extend(unread);
            let counts = crate::coverage::ReadCounts::of(&conversations);
            (findings, Some(adapter.format()), counts)
        }
        Read::Unfit(finding) => (vec![finding], None, crate::coverage::ReadCounts::default()),
    }
}

/// One `unread-tool-structures` finding for the structures no conversation read, at the
/// first of them.
fn unread_finding(unread: &[crate::coverage::Structure], format: Format) -> Option<Finding> {
    let first = unread.first()?;
    let listed: Vec<String> = unread
        .iter()
        .take(4)
        .map(|s| format!("`{}` at {}", s.kind, s.loc.pointer))
        .collect();
    let more = unread.len().saturating_sub(4);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let count = unread.len();
    Some(
        Finding::at(
            &rules::UnreadToolStructures::META,
            &first.loc,
            format!(
                "{count} tool-call or tool-result {} read as `{format}` went unchecked, because no conversation of that format holds {}: {}{more}",
                if count == 1 { "structure" } else { "structures" },
                if count == 1 { "it" } else { "them" },
                listed.join(", ")
            ),
        )
        .help("the file mixes shapes this format does not read; pass the right `--input-format`, or report the shape so toolcheck can read it"),
    )
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
    let targets: &[crate::provider::Provider] = match &opts.targets {
        Some(targets) => targets,
        None => crate::provider::Provider::native(conv.format),
    };
    let cx = Context::new(
        conv,
        &opts.extra_tools,
        &opts.schemas,
        &opts.rule_options,
        targets,
        Some(source),
    );
    let mut findings = Vec::new();
    for rule in rules::RULES {
        if opts.selection.is_enabled(rule.meta().code) {
            rule.check(&cx, conv, &mut findings);
        }
    }
    // Name the providers that reject each finding; an error no target rejects is a warning.
    for finding in &mut findings {
        if !finding.providers.is_empty() {
            continue;
        }
        let rejecting = crate::provider::rejected_by(finding.rule.code);
        if rejecting.is_empty() {
            continue;
        }
        match cx.judge(rejecting) {
            Some((severity, providers)) => {
                finding.providers = providers;
                if severity == crate::finding::Severity::Warning {
                    finding.severity = severity;
                }
            }
            None if finding.severity == crate::finding::Severity::Error => {
                finding.severity = crate::finding::Severity::Warning;
            }
            None => {}
        }
    }
    let edit_cx = EditContext::new(source, jsonl);
    crate::source::with_span_cache(&source.text, || {
        for finding in &mut findings {
            finding.format = Some(conv.format);
            // The plan is spent once turned into edits: 100k findings keep only their fixes.
            if let Some(plan) = finding.plan.take() {
                let FixPlan {
                    applicability,
                    message,
                    intent,
                } = *plan;
                finding.fix = formats::plan(adapter, &intent, &edit_cx).map(|edits| Fix {
                    applicability,
                    message,
                    edits,
                });
            }
        }
    });
    findings
}

/// Byte offset of serde_json's 1-based line and column inside the document at `base`.
fn offset_of(source: &SourceFile, base: usize, line: usize, column: usize) -> usize {
    let first = source.line_index(base);
    let line_idx = (first + line.saturating_sub(1)).min(source.line_count().saturating_sub(1));
    let (start, end) = source.line_range(line_idx);
    let start = if line <= 1 { base } else { start };
    // serde_json counts columns in bytes, so the position can fall inside a character.
    crate::source::floor_char_boundary(
        &source.text,
        (start + column.saturating_sub(1)).min(end.max(start)),
    )
}

/// The parse-error message (findings carry the position).
fn describe_json_error(e: &json::JsonError, what: &str) -> String {
    match e.kind {
        json::JsonErrorKind::Eof => format!("{what} is truncated: {}", e.message),
        _ => format!("{what} is not valid JSON: {}", e.message),
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
        let mut placed: Vec<(usize, String)> =
            crate::source::with_span_cache(&self.source.text, || {
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

/// What a document that matched no format holds, for the skip reason and the finding.
fn describe_shape(doc: &crate::tree::Value<'_>) -> String {
    match doc {
        Tree::Object(map) if map.is_empty() => "an empty object".to_string(),
        Tree::Object(map)
            if ["messages", "contents", "input"]
                .iter()
                .any(|k| map.contains_key(k)) =>
        {
            let key = ["messages", "contents", "input"]
                .into_iter()
                .find(|k| map.contains_key(k))
                .unwrap_or("messages");
            format!("an object whose `{key}` is not a list of messages of a known format")
        }
        Tree::Object(map) => {
            let keys: Vec<String> = map.keys().take(5).map(|k| format!("`{k}`")).collect();
            let more = if map.len() > 5 { ", ..." } else { "" };
            format!(
                "an object with keys {}{more}, and no `messages`, `contents` or `input` of a known shape",
                keys.join(", ")
            )
        }
        Tree::Array(items) if items.is_empty() => "an empty array".to_string(),
        Tree::Array(items) => format!(
            "an array of {} items that are not messages of a known format",
            items.len()
        ),
        other => format!(
            "a bare {}",
            match other {
                Tree::String(_) => "string",
                Tree::Number(_) => "number",
                Tree::Bool(_) => "boolean",
                _ => "null",
            }
        ),
    }
}
