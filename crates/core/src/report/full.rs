//! The default report: miette's graphical diagnostics, with the offending line cropped
//! around the span so a 200 KB JSONL record prints as one readable line.

use std::fmt;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

use super::Diagnostic;
use crate::escape;
use crate::finding::Severity;
use crate::source::{floor_char_boundary, SourceFile};

/// Characters shown before and after the start of a span on a long line.
const BEFORE: usize = 40;
const WINDOW: usize = 110;

/// The width reports wrap at when output is not a terminal, so piped output is stable.
pub const DEFAULT_WIDTH: usize = 110;

pub struct FullRenderer {
    handler: GraphicalReportHandler,
}

impl FullRenderer {
    pub fn new(color: bool) -> Self {
        FullRenderer::with_width(color, DEFAULT_WIDTH)
    }

    /// A renderer that wraps its text at `width` columns (the terminal's, on a terminal).
    pub fn with_width(color: bool, width: usize) -> Self {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        FullRenderer {
            handler: GraphicalReportHandler::new_themed(theme)
                .with_links(false)
                .with_context_lines(1)
                .with_width(width)
                // Lines break at spaces only: a JSON pointer, a path or a rule name stays
                // whole (and may overflow) so it can be copied, where textwrap's defaults
                // would break after a `/`, at a `-`, or inside a word longer than the line.
                .with_word_separator(textwrap::WordSeparator::AsciiSpace)
                .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
                .with_break_words(false),
        }
    }

    /// Renders one diagnostic with its source snippet.
    pub fn render(&self, source: &SourceFile, d: &Diagnostic) -> String {
        self.render_at(source, d, &mut None, 0)
    }

    /// Renders the diagnostics of one file, each with its snippet. In file order (as reports
    /// sort them) each span's column is counted on from the previous span's on the same
    /// line, so a thousand findings on one long line (a compact JSON document) count its
    /// characters once, not a thousand times.
    pub fn render_file<'a>(
        &'a self,
        source: &'a SourceFile,
        diagnostics: &'a [Diagnostic],
    ) -> impl Iterator<Item = String> + 'a {
        self.render_part(source, diagnostics, 0)
    }

    /// [`FullRenderer::render_file`] for a part of a file that starts at its 0-based line
    /// `first_line` (a chunk of a JSONL file read a chunk at a time): spans are in `source`,
    /// line numbers are the file's.
    pub fn render_part<'a>(
        &'a self,
        source: &'a SourceFile,
        diagnostics: &'a [Diagnostic],
        first_line: usize,
    ) -> impl Iterator<Item = String> + 'a {
        let mut cursor = None;
        diagnostics
            .iter()
            .map(move |d| self.render_at(source, d, &mut cursor, first_line))
    }

    fn render_at(
        &self,
        source: &SourceFile,
        d: &Diagnostic,
        cursor: &mut Option<LineCursor>,
        first_line: usize,
    ) -> String {
        let mut snippet = Snippet::new(source, d, cursor);
        if d.location.is_none() && d.path != source.name {
            // Placed in another file than the text it was read from (a session folder's
            // message file): the header names that file, its line and its column.
            snippet.name = escape::value(&d.path).into_owned();
            snippet.line = d.line.saturating_sub(1);
            let shown = snippet.column_at(snippet.label.0);
            snippet.shift_columns(d.column.saturating_sub(1), shown);
        } else if d.location.is_none() {
            snippet.line += first_line;
        }
        let report = Report {
            diagnostic: d,
            message: escape::value(&d.message).into_owned(),
            help: d.help.as_deref().map(|h| escape::value(h).into_owned()),
            snippet,
        };
        let mut out = String::new();
        if self.handler.render_report(&mut out, &report).is_err() {
            out = format!(
                "{}: {} {}\n",
                escape::value(&d.path),
                d.code,
                report.message
            );
        }
        out
    }
}

/// The first line of a diagnostic's span, cropped to a window around it, with unsafe
/// characters escaped (so the text miette gets is not the file's: offsets are remapped).
struct Snippet {
    name: String,
    text: String,
    /// 0-based line of the snippet in the file.
    line: usize,
    /// 0-based column (characters) in the file of the snippet's first character.
    column: usize,
    /// For each shown character of the line: its byte offset in `text` and its 0-based
    /// column in the file; a last entry marks the end of the shown part.
    columns: Vec<(usize, usize)>,
    /// The label, in bytes of `text`.
    label: (usize, usize),
}

/// Where the previous span of a file started: its line's start, its byte offset, and the
/// characters between them.
#[derive(Clone, Copy)]
struct LineCursor {
    line_start: usize,
    at: usize,
    chars: usize,
}

impl Snippet {
    fn new(source: &SourceFile, d: &Diagnostic, cursor: &mut Option<LineCursor>) -> Snippet {
        let line_idx = source.line_index(d.start.min(source.text.len()));
        let (line_start, line_end) = source.line_range(line_idx);
        let line = source.text.get(line_start..line_end).unwrap_or_default();
        let start_in_line = floor_char_boundary(line, d.start.saturating_sub(line_start));
        let end_in_line = floor_char_boundary(line, d.end.saturating_sub(line_start));

        // Crop by characters around the start of the span, reading only the window: a
        // 50 MB line costs a count of its characters, not a table of them.
        let before = line.get(..start_in_line).unwrap_or_default();
        let start_char = match *cursor {
            Some(c) if c.line_start == line_start && c.at <= start_in_line => {
                c.chars
                    + line
                        .get(c.at..start_in_line)
                        .map_or(0, |s| s.chars().count())
            }
            _ => before.chars().count(),
        };
        *cursor = Some(LineCursor {
            line_start,
            at: start_in_line,
            chars: start_char,
        });
        let first = start_char.saturating_sub(BEFORE);
        let crop_start = if first > 0 {
            before
                .char_indices()
                .rev()
                .nth(BEFORE.saturating_sub(1))
                .map_or(0, |(i, _)| i)
        } else {
            0
        };
        let mut rest = line
            .get(crop_start..)
            .unwrap_or_default()
            .char_indices()
            .map(|(i, c)| (i + crop_start, c));
        let shown: Vec<(usize, char)> = rest.by_ref().take(WINDOW).collect();
        let more = rest.next().is_some();
        let last = first + shown.len();

        let mut text = String::new();
        if first > 0 {
            text.push('…');
        }
        let mut columns = Vec::with_capacity(last.saturating_sub(first) + 1);
        let (mut label_start, mut label_end) = (None, None);
        for (column, &(i, c)) in (first..).zip(&shown) {
            if i >= start_in_line && label_start.is_none() {
                label_start = Some(text.len());
            }
            if i >= end_in_line && label_end.is_none() {
                label_end = Some(text.len());
            }
            columns.push((text.len(), column));
            escape::push_char(&mut text, c, escape::Keep::Layout);
        }
        let shown_end = text.len();
        columns.push((shown_end, last));
        if more {
            text.push('…');
        }
        let label_start = label_start.unwrap_or(shown_end);
        let label_end = label_end.unwrap_or(shown_end).max(label_start);
        let label_end = if label_end == label_start {
            // Point at one character for empty spans (parse errors at end of input): the
            // whole of its escape, or the ellipsis after a crop.
            columns
                .iter()
                .map(|&(offset, _)| offset)
                .find(|&offset| offset > label_start)
                .or_else(|| {
                    text.get(label_start..)?
                        .chars()
                        .next()
                        .map(|c| label_start + c.len_utf8())
                })
                .unwrap_or(label_start)
        } else {
            label_end
        };
        Snippet {
            // A row of a SQLite store is one line of its text: name the row, not the line.
            name: escape::value(d.location.as_deref().unwrap_or(&source.name)).into_owned(),
            text,
            line: if d.location.is_some() { 0 } else { line_idx },
            column: first.saturating_sub(usize::from(first > 0)),
            columns,
            label: (label_start, label_end),
        }
    }

    /// Moves the columns shown so that the one now `from` reads `to`.
    fn shift_columns(&mut self, to: usize, from: usize) {
        let shift = |c: usize| (c + to).saturating_sub(from);
        self.column = shift(self.column);
        for entry in &mut self.columns {
            entry.1 = shift(entry.1);
        }
    }

    /// The file's 0-based column of the character shown at byte `offset` of `text`.
    fn column_at(&self, offset: usize) -> usize {
        let shown = self.columns.partition_point(|&(o, _)| o <= offset);
        shown
            .checked_sub(1)
            .and_then(|i| self.columns.get(i))
            .map_or(self.column, |&(_, column)| column)
    }
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if context_lines_before == 0 && context_lines_after == 0 {
            // Asked with no context, miette wants the header `[path:line:col]`: the real
            // position of the span (the body is asked with context).
            let offset = span.offset().min(self.text.len());
            let end = (offset + span.len()).min(self.text.len());
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                self.text.as_bytes().get(offset..end).unwrap_or_default(),
                *span,
                self.line,
                self.column_at(offset),
                1,
            )));
        }
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            self.text.as_bytes(),
            SourceSpan::new(0.into(), self.text.len()),
            self.line,
            self.column,
            1,
        )))
    }
}

struct Report<'a> {
    diagnostic: &'a Diagnostic,
    /// Message and help, escaped.
    message: String,
    help: Option<String>,
    snippet: Snippet,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!(
            "{} {}",
            self.diagnostic.code, self.diagnostic.rule
        )))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.snippet)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (start, end) = self.snippet.label;
        // Keys in the pointer come from the log, and so do a trace's ids; a finding in a
        // trace names its span beside the pointer.
        let span = self
            .diagnostic
            .span
            .as_ref()
            .map(|s| format!("({})", s.brief()));
        let label = match (self.diagnostic.pointer.as_str(), span) {
            ("", None) => None,
            ("", Some(span)) => Some(escape::value(&span).into_owned()),
            (pointer, None) => Some(escape::value(pointer).into_owned()),
            (pointer, Some(span)) => Some(escape::value(&format!("{pointer} {span}")).into_owned()),
        };
        Some(Box::new(std::iter::once(LabeledSpan::new(
            label,
            start,
            end - start,
        ))))
    }
}
