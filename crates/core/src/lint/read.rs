//! Reading one file: text that is one JSON document or JSONL records (a byte order mark
//! skipped, a pretty-printed document saved as `.jsonl` and a `.json` file that is really
//! JSONL read as what they are), the record loop, and the findings for what could not be
//! read: parse errors per record or per file, invalid UTF-8, nesting too deep, and input
//! that matches no format.

use crate::tree::Value as Tree;
use rayon::prelude::*;

use super::check::{check_docs, check_read, read_docs, read_taking};
use super::LintOptions;
use super::{Skip, SkipKind};
use crate::finding::Finding;
use crate::format::Format;
use crate::formats;
use crate::json;
use crate::json::Doc;
use crate::rules;
use crate::source::SourceFile;

pub(super) fn is_jsonl(source: &SourceFile) -> bool {
    matches!(
        extension(source).as_deref(),
        Some("jsonl" | "ndjson" | "log")
    )
}

/// The name's extension, seen through a compression suffix (`session.jsonl.zstd` is
/// `jsonl`): a compressed log is read as the text it decompresses to.
fn extension(source: &SourceFile) -> Option<String> {
    crate::read::inner_extension(std::path::Path::new(&source.name))
}

pub(super) struct Linter<'a> {
    pub(super) source: &'a SourceFile,
    pub(super) opts: &'a LintOptions,
    pub(super) explicit: bool,
    /// JSONL lines (0-based) that are not valid UTF-8.
    pub(super) bad_lines: Vec<usize>,
    pub(super) findings: Vec<Finding>,
    pub(super) formats: Vec<Format>,
    pub(super) counts: crate::coverage::ReadCounts,
    /// A chunk of a JSONL file already judged to hold one conversation per record (see
    /// [`crate::stream`]): no session detection, no document fallback, and no
    /// `unknown-format` for a chunk that happens to hold no conversation.
    pub(super) records_only: bool,
}

impl Linter<'_> {
    /// Runs the file; returns `Some(reason)` when it is skipped as not a transcript.
    pub(super) fn run(&mut self) -> Option<Skip> {
        // A UTF-8 byte order mark (Windows editors, PowerShell) is skipped, and kept as is.
        let bom = if self.source.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        let text = &self.source.text[bom..];
        if self.records_only {
            return self.run_jsonl(bom, false);
        }
        if text.trim().is_empty() {
            if is_jsonl(self.source) {
                // A dataset with no records: nothing to check, nothing wrong.
                return None;
            }
            return self.unrecognised(Skip::new(
                SkipKind::EmptyFile,
                "nothing (the file is empty)",
            ));
        }
        if is_jsonl(self.source) {
            return self.run_jsonl(bom, true);
        }
        match json::parse(text) {
            Ok(doc) => self.run_document(doc, bom),
            Err(e) => {
                // A `.json` file that is really JSONL (one document per line) is common. (Only
                // an error past the first line can mean that: the first line is not parsed
                // again otherwise.)
                if e.line > 1 && text.lines().next().is_some_and(|l| json::parse(l).is_ok()) {
                    return self.run_jsonl(bom, false);
                }
                if let Some(values) = crate::source::concatenated_values(text) {
                    return self.run_values(bom, &values);
                }
                self.json_error(bom, &e, "file");
                None
            }
        }
    }

    /// Checks the one JSON document that starts at byte `base`. The document's tree is
    /// dropped once its conversations are read, before the rules run: a file's findings
    /// never share the memory with the tree of the whole file.
    fn run_document(&mut self, mut doc: json::Parsed, base: usize) -> Option<Skip> {
        // Placing findings and planning fixes in it read the spans the parser recorded.
        self.source.add_spans(base, std::mem::take(&mut doc.spans));
        self.run_tree(doc.value, base, doc.lossy)
    }

    /// Checks one document's tree, read from the text at byte `base` (or built, for an empty
    /// source: see [`super::lint_tree`]); `lossy` as the parser marked it.
    pub(super) fn run_tree(
        &mut self,
        mut value: Tree<'_>,
        base: usize,
        lossy: bool,
    ) -> Option<Skip> {
        let adapter = match self.opts.input_format {
            Some(format) => format.adapter(),
            None => formats::detect(&value),
        };
        let Some(adapter) = adapter else {
            return self.unrecognised(describe_shape(&value));
        };
        let big = self.source.text.len() > SMALL_DOCUMENT;
        let taken = if big {
            read_taking(adapter, base, &mut value, self.opts)
        } else {
            None
        };
        let read = taken.unwrap_or_else(|| {
            let docs = [Doc {
                base,
                value: &value,
            }];
            read_docs(adapter, &docs, adapter.normalise(&docs), self.opts, false)
        });
        drop(value);
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
    fn run_jsonl(&mut self, bom: usize, or_document: bool) -> Option<Skip> {
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
            // A file whose one line is that record would fail again the same way.
            let only_that_line = lines.len() == 1
                && lines
                    .first()
                    .is_some_and(|(_, line)| line.trim() == text.trim());
            if !only_that_line {
                if let Ok(doc) = json::parse(text) {
                    return self.run_document(doc, bom);
                }
                if let Some(values) = crate::source::concatenated_values(text) {
                    return self.run_values(bom, &values);
                }
            }
        }
        self.run_records(&lines, head)
    }

    /// Checks a text of concatenated JSON values (`ranges` of the text after a byte order
    /// mark of `bom` bytes), each read as a JSONL record is, where it is in the file.
    fn run_values(&mut self, bom: usize, ranges: &[(usize, usize)]) -> Option<Skip> {
        let text = self.source.text.get(bom..).unwrap_or_default();
        let lines: Vec<(usize, &str)> = ranges
            .iter()
            .filter_map(|&(from, to)| Some((bom + from, text.get(from..to)?)))
            .collect();
        let head = lines
            .iter()
            .take(HEAD)
            .map(|&(_, line)| parse_record(line))
            .collect();
        let before = self.findings.len();
        let skip = self.run_records(&lines, head);
        // Session fixes edit, insert and remove records as lines: a record spread over
        // several lines is none, and its fixes would cut it.
        if lines
            .iter()
            .any(|(_, record)| record.trim_end().contains('\n'))
        {
            for finding in self.findings.iter_mut().skip(before) {
                if finding.fix.take().is_some() {
                    super::check::note_withheld(finding, MULTI_LINE_RECORDS);
                }
            }
        }
        skip
    }

    /// Checks records (each at its byte offset), one session or one document each, as
    /// their first records (`head`, already parsed) show.
    fn run_records<'t>(
        &mut self,
        lines: &[(usize, &'t str)],
        head: Vec<Result<json::Parsed<'t>, RecordError>>,
    ) -> Option<Skip> {
        let source = self.source;
        let session = if self.records_only {
            None
        } else {
            session_adapter(self.opts, head.iter().filter_map(|p| p.as_ref().ok()))
        };
        if let Some(adapter) = session {
            let mut records = SessionLines::new(lines, head);
            let (findings, format, counts) =
                super::check::check_session_lines(adapter, &mut records, self.source, self.opts);
            let mut errors = std::mem::take(&mut records.errors);
            errors.sort_by_key(|&(base, _)| base);
            for (base, e) in errors {
                self.record_error(base, &e);
            }
            self.counts.add(counts);
            self.findings.extend(findings);
            self.formats.extend(format);
            return None;
        }
        let opts = self.opts;
        let wire_log = head
            .first()
            .and_then(|p| p.as_ref().ok())
            .is_some_and(|p| formats::is_kimi_wire_log(&p.value));
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
        if !recognised && self.findings.is_empty() && !self.records_only {
            if wire_log {
                return self.unrecognised(Skip::new(
                    SkipKind::KimiWireLog,
                    "a Kimi Code CLI wire log (the UI's event log, not what the model is sent); its history is the `context.jsonl` beside it",
                ));
            }
            return self.unrecognised(Skip::new(
                SkipKind::Other,
                "no record that matches a conversation format",
            ));
        }
        None
    }

    fn unrecognised(&mut self, skip: Skip) -> Option<Skip> {
        if !self.explicit && self.opts.input_format.is_none() {
            return Some(skip);
        }
        self.findings
            .push(unrecognised_finding(self.opts, &skip.reason));
        None
    }

    pub(super) fn parse_error(&mut self, at: usize, message: String) {
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

/// Why the records of concatenated JSON spread over several lines get no fix.
const MULTI_LINE_RECORDS: &str = "its records are pretty-printed over several lines, and fixes edit records as lines; rewrite it as JSONL (one record per line) to fix it";

/// How many first records of a JSONL file judge whether it is one session.
const HEAD: usize = 16;

/// The `unknown-format` finding for a file that holds `reason` and no conversation.
pub(super) fn unrecognised_finding(opts: &LintOptions, reason: &str) -> Finding {
    let message = match opts.input_format {
        Some(format) => format!("file does not fit the `{format}` format: {reason}"),
        None => format!("file matches no conversation format: it holds {reason}"),
    };
    Finding::at(
        &rules::UnknownFormat::META,
        &crate::transcript::Loc::new(0, ""),
        message,
    )
    .help(format!(
        "pass `--input-format` with one of: {}",
        Format::names()
    ))
}

/// Whether a JSONL file is one session, judged from its first records (a forced format reads
/// it as a session when it has no documents, or knows them as session records); otherwise
/// each record is a document of its own.
fn session_adapter<'p, 'a: 'p>(
    opts: &LintOptions,
    head: impl Iterator<Item = &'p json::Parsed<'a>> + Clone,
) -> Option<&'static dyn formats::Adapter> {
    let forced = opts
        .input_format
        .and_then(Format::adapter)
        .filter(|a| !a.has_documents() || head.clone().any(|p| a.sniff_record(&p.value).is_some()));
    forced.or_else(|| {
        if opts.input_format.is_some() {
            return None;
        }
        formats::detect_session(head.map(|p| &p.value))
    })
}

/// Whether the JSONL text that opens a file (whole lines) shows one conversation per record,
/// so that the rest can be read a chunk at a time: its first record parses (else the file may
/// be one pretty-printed document) and the first records are not a session's.
pub(crate) fn opens_per_record_jsonl(text: &str, opts: &LintOptions) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The same first records `run_jsonl` judges a whole file by.
    let head: Vec<Result<json::Parsed<'_>, RecordError>> = text
        .lines()
        .filter_map(|line| {
            let (from, to) = formats::record_span(line);
            let record = line.get(from..to).unwrap_or_default();
            (!record.trim().is_empty()).then(|| parse_record(record))
        })
        .take(HEAD)
        .collect();
    head.first().is_some_and(Result::is_ok)
        && session_adapter(opts, head.iter().filter_map(|p| p.as_ref().ok())).is_none()
}

/// A JSONL session's lines, each parsed when an adapter reads it (the first records
/// already were, for judging the format) and parsed again when read again. A line's parse
/// error is kept, and whether it was read lossily counted, the first time it is read.
pub(super) struct SessionLines<'l, 't> {
    lines: &'l [(usize, &'t str)],
    head: Vec<Option<Result<json::Parsed<'t>, RecordError>>>,
    /// Whether each line has been read once.
    read: Vec<bool>,
    pub(super) errors: Vec<(usize, RecordError)>,
    lossy: bool,
    first_base: Option<usize>,
    small: bool,
}

/// A document up to this much text is read whole, its tree held beside its transcript: a
/// request's tree is small, and taking its messages out one at a time (`check::read_taking`)
/// made the guard's check of a 20-message history 12% slower.
const SMALL_DOCUMENT: usize = 1 << 20;

/// A session up to this much text is small: its trees are held at once rather than parsed
/// twice (a second parse of a small session's lines cost more than holding them saves).
const SMALL_SESSION: usize = 8 << 20;

impl<'l, 't> SessionLines<'l, 't> {
    pub(super) fn new(
        lines: &'l [(usize, &'t str)],
        head: Vec<Result<json::Parsed<'t>, RecordError>>,
    ) -> Self {
        SessionLines {
            lines,
            head: head.into_iter().map(Some).collect(),
            read: vec![false; lines.len()],
            errors: Vec::new(),
            lossy: false,
            first_base: None,
            small: lines.iter().map(|(_, line)| line.len()).sum::<usize>() <= SMALL_SESSION,
        }
    }

    /// The same lines, small or not whatever their size.
    #[cfg(test)]
    pub(super) fn small(mut self, small: bool) -> Self {
        self.small = small;
        self
    }

    /// Every record's offset and tree, in order, for adapters that read them together.
    pub(super) fn read_all(&mut self) -> Vec<(usize, Tree<'t>)> {
        (0..self.lines.len())
            .filter_map(|i| formats::Records::read(self, i))
            .collect()
    }

    /// Reads the lines no adapter read, for their errors.
    pub(super) fn read_rest(&mut self) {
        for i in 0..self.lines.len() {
            if !self.read.get(i).copied().unwrap_or(true) {
                formats::Records::read(self, i);
            }
        }
    }

    /// Whether a record read so far was read with lone surrogates replaced.
    pub(super) fn lossy(&self) -> bool {
        self.lossy
    }

    /// Where the first record that parses starts, of those read so far.
    pub(super) fn first_base(&self) -> Option<usize> {
        self.first_base
    }
}

impl<'t> formats::Records<'t> for SessionLines<'_, 't> {
    fn count(&self) -> usize {
        self.lines.len()
    }

    fn small(&self) -> bool {
        self.small
    }

    fn read(&mut self, i: usize) -> Option<(usize, Tree<'t>)> {
        let &(base, line) = self.lines.get(i)?;
        let parsed = self
            .head
            .get_mut(i)
            .and_then(Option::take)
            .unwrap_or_else(|| parse_record(line));
        let first = self
            .read
            .get_mut(i)
            .is_some_and(|read| !std::mem::replace(read, true));
        match parsed {
            Ok(parsed) => {
                if first {
                    self.lossy |= parsed.lossy;
                    self.first_base = Some(self.first_base.map_or(base, |b| b.min(base)));
                }
                Some((base, parsed.value))
            }
            Err(e) => {
                if first {
                    self.errors.push((base, e));
                }
                None
            }
        }
    }
}

pub(super) enum RecordError {
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
    let (value, lossy, mut spans) = (parsed.value, parsed.lossy, parsed.spans);
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
    // Its fixes are planned and its findings located from the spans its parse recorded,
    // which go with it.
    spans.shift(base);
    let (findings, format, counts) = crate::source::with_record_spans(source, spans, || {
        let (mut findings, format, counts) = check_docs(adapter, &docs, source, opts, true, lossy);
        crate::diagnostic::locate_now(&source.text, &mut findings);
        (findings, format, counts)
    });
    RecordOutcome::Parsed {
        findings,
        format,
        counts,
    }
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

/// What a document that matched no format holds, for the skip reason and the finding.
fn describe_shape(doc: &crate::tree::Value<'_>) -> Skip {
    let (kind, reason) = shape_of(doc);
    Skip::new(kind, reason)
}

fn shape_of(doc: &crate::tree::Value<'_>) -> (SkipKind, String) {
    match doc {
        Tree::Object(map) if map.is_empty() => (SkipKind::EmptyDocument, "an empty object".to_string()),
        // Strands `FileSessionManager` records beside the messages folder.
        Tree::Object(map) if map.contains_key("session_id") && map.contains_key("session_type") => {
            (SkipKind::StrandsSession, "a Strands session record (`session.json`); its conversations are the `agents/agent_<id>/messages/` folders".to_string())
        }
        Tree::Object(map) if map.contains_key("agent_id") && map.contains_key("conversation_manager_state") => {
            (SkipKind::StrandsAgent, "a Strands agent record (`agent.json`); its conversation is the `messages/` folder beside it".to_string())
        }
        // OpenHands V1 `ConversationState` (`base_state.json`) beside the `events/` folder.
        Tree::Object(map) if ["agent", "workspace", "execution_status"].iter().all(|k| map.contains_key(k)) => {
            (SkipKind::OpenHandsState, "an OpenHands conversation state (`base_state.json`); its conversation is the `events/` folder beside it".to_string())
        }
        _ if crate::formats::is_phoenix_spans(doc) => {
            (SkipKind::PhoenixWithoutModelCalls, "Arize Phoenix spans with no OpenInference model-call (`LLM`) spans, so no conversation".to_string())
        }
        // What an instrumentation leaves of a request the provider rejected when it never ends
        // its span (OpenLLMetry's Anthropic `_wrap` 0.53–0.54 re-raises without `span.end()`):
        // the SDK's or HTTP client's spans, no content.
        _ if crate::formats::is_printed_span(doc) => {
            (SkipKind::PrintedSpansWithoutModelCalls, "spans as `ConsoleSpanExporter` prints them with no GenAI or OpenInference model-call content (HTTP or SDK spans, GenAI spans recorded without content), so no conversation".to_string())
        }
        Tree::Object(map) if map.contains_key("resourceSpans") || map.contains_key("resourceLogs") => {
            (SkipKind::OtlpWithoutModelCalls, "an OpenTelemetry (OTLP) export with no GenAI or OpenInference model-call spans, so no conversation".to_string())
        }
        Tree::Object(map)
            if ["messages", "contents", "input"]
                .iter()
                .any(|k| map.contains_key(k)) =>
        {
            let key = ["messages", "contents", "input"]
                .into_iter()
                .find(|k| map.contains_key(k))
                .unwrap_or("messages");
            (
                SkipKind::Other,
                format!("an object whose `{key}` is not a list of messages of a known format"),
            )
        }
        Tree::Object(map) => {
            let keys: Vec<String> = map.keys().take(5).map(|k| format!("`{k}`")).collect();
            let more = if map.len() > 5 { ", ..." } else { "" };
            (
                SkipKind::Other,
                format!(
                    "an object with keys {}{more}, and no `messages`, `contents` or `input` of a known shape",
                    keys.join(", ")
                ),
            )
        }
        Tree::Array(items) if items.is_empty() => (SkipKind::EmptyDocument, "an empty array".to_string()),
        Tree::Array(items) => (
            SkipKind::Other,
            if items.len() == 1 {
                "an array of 1 item that is not a message of a known format".to_string()
            } else {
                format!(
                    "an array of {} items that are not messages of a known format",
                    items.len()
                )
            },
        ),
        other => (SkipKind::Other, format!(
            "a bare {}",
            match other {
                Tree::String(_) => "string",
                Tree::Number(_) => "number",
                Tree::Bool(_) => "boolean",
                _ => "null",
            }
        )),
    }
}
