//! Output formats. One file per format; all of them render resolved [`Diagnostic`]s.

use std::io::{self, Write};

use serde::Serialize;

use crate::finding::{Anchor, Finding, Fix, Severity};
use crate::source::{ceil_char_boundary, floor_char_boundary, locate, SourceFile};

mod concise;
mod full;
mod github;
mod json;
mod sarif;

pub use full::{FullRenderer, DEFAULT_WIDTH};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// A rich report with the offending source and help (default).
    Full,
    /// One line per finding: `path:line:col: CODE [name] message`.
    Concise,
    /// One JSON array of findings.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// GitHub Actions workflow commands (annotations on the pull request).
    Github,
    /// SARIF 2.1.0 (code-scanning dashboards).
    Sarif,
}

impl OutputFormat {
    /// The name `--output-format` takes.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Full => "full",
            OutputFormat::Concise => "concise",
            OutputFormat::Json => "json",
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Github => "github",
            OutputFormat::Sarif => "sarif",
        }
    }

    /// Whether a human summary line belongs after the findings.
    pub fn is_human(self) -> bool {
        matches!(self, OutputFormat::Full | OutputFormat::Concise)
    }
}

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
    #[serde(skip)]
    pub start: usize,
    #[serde(skip)]
    pub end: usize,
}

impl Diagnostic {
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
                let (start, end) =
                    locate(&source.text, loc.base, &loc.pointer).unwrap_or((loc.base, loc.base));
                (start, end, loc.pointer.clone())
            }
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
            start: self.start,
            end: self.end,
        }
    }
}

/// Counts for the summary line.
#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    pub errors: usize,
    pub warnings: usize,
    pub files_checked: usize,
    pub files_skipped: usize,
    /// Findings with a safe fix, and with an unsafe one.
    pub safe_fixable: usize,
    pub unsafe_fixable: usize,
}

impl Totals {
    /// Adds diagnostics to the counts.
    pub fn count(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
            match d.fix.as_ref().map(|f| f.applicability) {
                Some(crate::finding::Applicability::Safe) => self.safe_fixable += 1,
                Some(crate::finding::Applicability::Unsafe) => self.unsafe_fixable += 1,
                None => {}
            }
        }
    }

    /// `N fixable with `toolcheck fix --write` (M more with `--unsafe-fixes`).`, when any are.
    pub fn fix_hint(&self) -> Option<String> {
        match (self.safe_fixable, self.unsafe_fixable) {
            (0, 0) => None,
            (0, u) => Some(format!(
                "{u} fixable with `toolcheck fix --write --unsafe-fixes` (review the diff: unsafe fixes may drop data)."
            )),
            (s, 0) => Some(format!("{s} fixable with `toolcheck fix --write`.")),
            (s, u) => Some(format!(
                "{s} fixable with `toolcheck fix --write` ({u} more with `--unsafe-fixes`)."
            )),
        }
    }

    pub fn findings(&self) -> usize {
        self.errors + self.warnings
    }

    pub fn summary(&self) -> String {
        let files = format!(
            "{} {} checked{}",
            self.files_checked,
            plural(self.files_checked, "file", "files"),
            if self.files_skipped > 0 {
                format!(
                    ", {} skipped (not a conversation format; -v lists them)",
                    self.files_skipped
                )
            } else {
                String::new()
            }
        );
        if self.findings() == 0 {
            format!("No findings: {files}.")
        } else {
            format!(
                "Found {} {} ({} {}, {} {}): {files}.",
                self.findings(),
                plural(self.findings(), "finding", "findings"),
                self.errors,
                plural(self.errors, "error", "errors"),
                self.warnings,
                plural(self.warnings, "warning", "warnings"),
            )
        }
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Writes diagnostics in a machine or text format (`full` is rendered per file, with its
/// source, by [`FullRenderer`]).
pub fn write_diagnostics(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
) -> io::Result<()> {
    match format {
        OutputFormat::Full => unreachable_full(),
        OutputFormat::Concise => concise::write(out, diagnostics),
        OutputFormat::Json => json::write_array(out, diagnostics),
        OutputFormat::Jsonl => json::write_lines(out, diagnostics),
        OutputFormat::Github => github::write(out, diagnostics),
        OutputFormat::Sarif => sarif::write(out, diagnostics),
    }
}

fn unreachable_full() -> io::Result<()> {
    Err(io::Error::other(
        "the full format is rendered with its source by FullRenderer",
    ))
}

/// `--statistics`: one row per rule, most frequent first, with how many `fix` repairs
/// (safe, then `--unsafe-fixes` too); a JSON array of `{code, rule, count, fixable,
/// unsafe_fixable}` for the machine formats.
pub fn write_statistics(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
) -> io::Result<()> {
    struct Row {
        code: &'static str,
        rule: &'static str,
        count: usize,
        fixable: usize,
        unsafe_fixable: usize,
    }
    let mut rows: Vec<Row> = Vec::new();
    for d in diagnostics {
        let index = match rows.iter().position(|r| r.code == d.code) {
            Some(i) => i,
            None => {
                rows.push(Row {
                    code: d.code,
                    rule: d.rule,
                    count: 0,
                    fixable: 0,
                    unsafe_fixable: 0,
                });
                rows.len() - 1
            }
        };
        if let Some(row) = rows.get_mut(index) {
            row.count += 1;
            match d.fix.as_ref().map(|f| f.applicability) {
                Some(crate::finding::Applicability::Safe) => row.fixable += 1,
                Some(crate::finding::Applicability::Unsafe) => row.unsafe_fixable += 1,
                None => {}
            }
        }
    }
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
    if !format.is_human() {
        let json: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "code": r.code, "rule": r.rule, "count": r.count,
                    "fixable": r.fixable, "unsafe_fixable": r.unsafe_fixable,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &json)?;
        return writeln!(out);
    }
    let width = rows
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    let name_width = rows.iter().map(|r| r.rule.len()).max().unwrap_or(0);
    for r in rows {
        let fixable = match (r.fixable, r.unsafe_fixable) {
            (0, 0) => String::new(),
            (f, 0) => format!("[*] {f} fixable"),
            (0, u) => format!("[-] {u} fixable with --unsafe-fixes"),
            (f, u) => format!("[*] {f} fixable, {u} more with --unsafe-fixes"),
        };
        let line = format!(
            "{:>width$}  {}  {:<name_width$}  {fixable}",
            r.count, r.code, r.rule
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
