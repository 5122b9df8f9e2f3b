//! The default report: miette's graphical diagnostics, with the offending line cropped
//! around the span so a 200 KB JSONL record prints as one readable line.

use std::fmt;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

use super::Diagnostic;
use crate::finding::Severity;
use crate::source::SourceFile;

/// Characters shown before and after the start of a span on a long line.
const BEFORE: usize = 40;
const WINDOW: usize = 110;

pub struct FullRenderer {
    handler: GraphicalReportHandler,
}

impl FullRenderer {
    pub fn new(color: bool) -> Self {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        FullRenderer {
            handler: GraphicalReportHandler::new_themed(theme)
                .with_links(false)
                .with_context_lines(1)
                .with_width(110),
        }
    }

    /// Renders one diagnostic with its source snippet.
    pub fn render(&self, source: &SourceFile, d: &Diagnostic) -> String {
        let report = Report {
            diagnostic: d,
            snippet: Snippet::new(source, d),
        };
        let mut out = String::new();
        if self.handler.render_report(&mut out, &report).is_err() {
            out = format!("{}: {} {}\n", d.path, d.code, d.message);
        }
        out
    }
}

/// The first line of a diagnostic's span, cropped to a window around it.
struct Snippet {
    name: String,
    text: String,
    /// 0-based line and column (characters) of the snippet's first character in the file.
    line: usize,
    column: usize,
    /// The label, in bytes of `text`.
    label: (usize, usize),
}

impl Snippet {
    fn new(source: &SourceFile, d: &Diagnostic) -> Snippet {
        let line_idx = d.line - 1;
        let (line_start, line_end) = source.line_range(line_idx);
        let line = &source.text[line_start..line_end];
        let start_in_line = d.start.saturating_sub(line_start).min(line.len());
        let end_in_line = d
            .end
            .saturating_sub(line_start)
            .clamp(start_in_line, line.len());

        // Crop by characters around the start of the span.
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let start_char = chars.partition_point(|&(i, _)| i < start_in_line);
        let first = start_char.saturating_sub(BEFORE);
        let last = (first + WINDOW).min(chars.len());
        let byte_at = |c: usize| chars.get(c).map_or(line.len(), |&(i, _)| i);
        let (crop_start, crop_end) = (byte_at(first), byte_at(last));

        let mut text = String::new();
        if first > 0 {
            text.push('…');
        }
        let prefix = text.len();
        text.push_str(&line[crop_start..crop_end]);
        if last < chars.len() {
            text.push('…');
        }
        let label_start = prefix + start_in_line - crop_start;
        let label_end = prefix + end_in_line.min(crop_end).max(start_in_line) - crop_start;
        let label_end = if label_end == label_start {
            // Point at one character for empty spans (parse errors at end of input).
            text[label_start..]
                .chars()
                .next()
                .map_or(label_start, |c| label_start + c.len_utf8())
        } else {
            label_end
        };
        Snippet {
            name: source.name.clone(),
            text,
            line: line_idx,
            column: d.column - 1 - (start_char - first) - usize::from(first > 0),
            label: (label_start, label_end),
        }
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
            let col = self.text[..offset].chars().count();
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                &self.text.as_bytes()[offset..(offset + span.len()).min(self.text.len())],
                *span,
                self.line,
                self.column + col,
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
    snippet: Snippet,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
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
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.snippet)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (start, end) = self.snippet.label;
        let label = if self.diagnostic.pointer.is_empty() {
            None
        } else {
            Some(self.diagnostic.pointer.clone())
        };
        Some(Box::new(std::iter::once(LabeledSpan::new(
            label,
            start,
            end - start,
        ))))
    }
}
