//! Findings placed in their file: byte range, line and column, JSON pointer. What every
//! emitter renders, and what the pipeline, settings, embedding and stores pass around;
//! below `report/`, which only writes them out.

use serde::Serialize;

use crate::finding::{Anchor, Finding, Fix, Severity};
use crate::pointer::locate;
use crate::source::{ceil_char_boundary, floor_char_boundary, SourceFile};

/// A finding placed in its file: the object of docs/architecture.md, "Findings".
#[derive(Debug, Clone, Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    pub path: String,
    pub format: Option<&'static str>,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub pointer: String,
    /// For a row of a SQLite store: `db:table[rowid=N]/pointer`, where `line` and `column`
    /// count inside the row's JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    pub fix: Option<Fix>,
    /// The tool-call id the finding is about, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The providers that reject the history because of this finding.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub providers: Vec<crate::provider::Provider>,
    /// What the agent that resumes the session does about it (`replay`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<crate::finding::Replayed>,
    /// The span of a trace the finding is in: `{trace_id, span_id, attribute}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<crate::transcript::SpanRef>,
    #[serde(skip)]
    pub start: usize,
    #[serde(skip)]
    pub end: usize,
    /// Where `path`'s bytes start in the text `start` and `end` count in: 0, but for a file
    /// of a session folder, whose findings are found in the folder's text (`folder.rs`).
    #[serde(skip)]
    pub base: usize,
}

impl Diagnostic {
    /// ` (span 6c0b1f…/3f2a…, attribute)` after a trace finding's message, as the line-based
    /// outputs write it; empty for other findings.
    pub fn span_suffix(&self) -> String {
        self.span
            .as_ref()
            .map(|s| format!(" ({})", s.brief()))
            .unwrap_or_default()
    }

    /// Places a finding in its file: byte range, line and column, pointer.
    pub fn resolve(source: &SourceFile, finding: Finding) -> Diagnostic {
        let placed = Placed::new(source, finding);
        let start = source.line_col(placed.start);
        let end = source.line_col(placed.end);
        placed.into_diagnostic(source, start, end)
    }

    /// Places every finding of a file; line and column numbers come from one pass over the
    /// text, so the cost is linear in the file and the findings together.
    pub fn resolve_all(source: &SourceFile, findings: Vec<Finding>) -> Vec<Diagnostic> {
        let placed: Vec<Placed> = findings
            .into_iter()
            .map(|f| Placed::new(source, f))
            .collect();
        let offsets: Vec<usize> = placed.iter().flat_map(|p| [p.start, p.end]).collect();
        let positions = source.line_cols(&offsets);
        placed
            .into_iter()
            .zip(positions.chunks(2))
            .map(|(p, pos)| {
                let start = pos.first().copied().unwrap_or((1, 1));
                let end = pos.get(1).copied().unwrap_or(start);
                p.into_diagnostic(source, start, end)
            })
            .collect()
    }
}

/// Where the node `loc` is in `text` (at its document's start when the pointer does not
/// resolve).
fn node_range(text: &str, loc: &crate::transcript::Loc) -> (usize, usize) {
    locate(text, loc.base, &loc.pointer).unwrap_or((loc.base, loc.base))
}

/// Locates every finding anchored at a node of `text` now rather than when it is placed:
/// for findings of a document whose spans are at hand only while it is checked (a dataset
/// record's: [`crate::source::with_record_spans`]), so placing them scans nothing.
pub(crate) fn locate_now(text: &str, findings: &mut [Finding]) {
    for finding in findings {
        let anchor = std::mem::replace(&mut finding.anchor, Anchor::Span { start: 0, end: 0 });
        finding.anchor = match anchor {
            Anchor::Node(loc) => {
                let (start, end) = node_range(text, &loc);
                Anchor::Located { loc, start, end }
            }
            other => other,
        };
    }
}

/// A finding with its byte range and pointer, before line and column are known.
struct Placed {
    start: usize,
    end: usize,
    pointer: String,
    finding: Finding,
}

impl Placed {
    fn new(source: &SourceFile, finding: Finding) -> Placed {
        let (start, end, pointer) = match &finding.anchor {
            Anchor::Span { start, end } => (*start, *end, String::new()),
            Anchor::Node(loc) => {
                let (start, end) = node_range(&source.text, loc);
                (start, end, loc.pointer.to_string())
            }
            Anchor::Located { loc, start, end } => (*start, *end, loc.pointer.to_string()),
        };
        // Every output slices or counts characters from these: keep them on char boundaries.
        let start = floor_char_boundary(&source.text, start);
        let end = ceil_char_boundary(&source.text, end).max(start);
        Placed {
            start,
            end,
            pointer,
            finding,
        }
    }

    fn into_diagnostic(
        self,
        source: &SourceFile,
        (line, column): (usize, usize),
        (end_line, end_column): (usize, usize),
    ) -> Diagnostic {
        let finding = self.finding;
        Diagnostic {
            code: finding.rule.code,
            rule: finding.rule.name,
            severity: finding.severity,
            message: finding.message,
            help: finding.help,
            path: source.name.clone(),
            format: finding.format.map(|f| f.name()),
            line,
            column,
            end_line,
            end_column,
            pointer: self.pointer,
            location: None,
            fix: finding.fix,
            tool_call_id: finding.tool_call_id,
            providers: finding.providers,
            replay: finding.replay,
            span: finding.span,
            start: self.start,
            end: self.end,
            base: 0,
        }
    }
}

/// Places every finding of a file and sorts them by position, as every output lists them.
pub fn place_all(source: &SourceFile, findings: Vec<Finding>) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> =
        crate::source::with_span_cache(source, || Diagnostic::resolve_all(source, findings));
    diagnostics.sort_by(|a, b| (a.start, a.code, &a.message).cmp(&(b.start, b.code, &b.message)));
    diagnostics
}
