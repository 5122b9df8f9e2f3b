//! Output formats. One file per format; all of them render resolved [`Diagnostic`]s.

use std::io::{self, Write};

use serde::Serialize;

use crate::finding::{Anchor, Finding, Fix, Severity};
use crate::source::{locate, SourceFile};

mod concise;
mod full;
mod github;
mod json;
mod sarif;

pub use full::FullRenderer;

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
    pub fix: Option<Fix>,
    #[serde(skip)]
    pub start: usize,
    #[serde(skip)]
    pub end: usize,
}

impl Diagnostic {
    /// Places a finding in its file: byte range, line and column, pointer.
    pub fn resolve(source: &SourceFile, finding: Finding) -> Diagnostic {
        let (start, end, pointer) = match &finding.anchor {
            Anchor::Span { start, end } => (*start, *end, String::new()),
            Anchor::Node(loc) => {
                let (start, end) =
                    locate(&source.text, loc.base, &loc.pointer).unwrap_or((loc.base, loc.base));
                (start, end, loc.pointer.clone())
            }
        };
        let (line, column) = source.line_col(start);
        let (end_line, end_column) = source.line_col(end);
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
            pointer,
            fix: finding.fix,
            start,
            end,
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
}

impl Totals {
    /// Adds diagnostics to the counts.
    pub fn count(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
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

/// `--statistics`: one row per rule, most frequent first; a JSON array of
/// `{code, rule, count}` for the machine formats.
pub fn write_statistics(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
) -> io::Result<()> {
    let mut rows: Vec<(&str, &str, usize)> = Vec::new();
    for d in diagnostics {
        match rows.iter_mut().find(|(code, _, _)| *code == d.code) {
            Some(row) => row.2 += 1,
            None => rows.push((d.code, d.rule, 1)),
        }
    }
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    if !format.is_human() {
        let json: Vec<serde_json::Value> = rows
            .iter()
            .map(|(code, rule, count)| serde_json::json!({"code": code, "rule": rule, "count": count}))
            .collect();
        serde_json::to_writer_pretty(&mut *out, &json)?;
        return writeln!(out);
    }
    let width = rows
        .iter()
        .map(|r| r.2.to_string().len())
        .max()
        .unwrap_or(1);
    for (code, name, count) in rows {
        writeln!(out, "{count:>width$}  {code}  {name}")?;
    }
    Ok(())
}
