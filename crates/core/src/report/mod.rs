//! Output formats. One file per format; all of them render resolved [`Diagnostic`]s.

use std::io::{self, Write};

pub use crate::diagnostic::{place_all, Diagnostic};
use crate::finding::Severity;
use crate::lint::SkipKind;

mod concise;
pub mod doctor;
mod full;
mod github;
mod gitlab;
mod json;
mod junit;
pub mod paint;
mod sarif;

pub use full::{FullRenderer, DEFAULT_WIDTH};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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
    /// GitLab Code Quality (`artifacts:reports:codequality`).
    Gitlab,
    /// JUnit XML (CI test reports: GitLab, Jenkins, Azure Pipelines...).
    Junit,
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
            OutputFormat::Gitlab => "gitlab",
            OutputFormat::Junit => "junit",
        }
    }

    /// Whether a human summary line belongs after the findings.
    pub fn is_human(self) -> bool {
        matches!(self, OutputFormat::Full | OutputFormat::Concise)
    }
}

/// What skipped files are, for the summary line: `": 2 Strands agent records, 1 other
/// JSON"` (empty without any).
fn skipped_kinds(skipped: &[SkipKind]) -> String {
    let mut counts: Vec<(SkipKind, usize)> = Vec::new();
    for &kind in skipped {
        match counts.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((kind, 1)),
        }
    }
    if counts.is_empty() {
        return String::new();
    }
    counts.sort_unstable();
    let named: Vec<String> = counts
        .iter()
        .map(|&(kind, n)| {
            let (one, several) = kind.names();
            format!("{n} {}", if n == 1 { one } else { several })
        })
        .collect();
    format!(": {}", named.join(", "))
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
    /// Inputs that could not be read (each with its error on stderr).
    pub unreadable: usize,
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

    /// `1 path could not be read (see the error above)`.
    fn unreadable_text(&self) -> String {
        format!(
            "{} {} could not be read (see the {} above)",
            self.unreadable,
            plural(self.unreadable, "path", "paths"),
            plural(self.unreadable, "error", "errors")
        )
    }

    pub fn summary(&self) -> String {
        self.summary_naming(&[])
    }

    /// `lint --fix`'s summary line, these totals being what remains after `fixed` fixes:
    /// `Fixed 5 findings; 4 remain (3 errors, 1 warning): 1 file checked.` (ruff's "Found 9
    /// errors (5 fixed, 4 remaining)", without a total: what remains may include findings
    /// about what a fix inserted, such as a placeholder result); with nothing fixed, `lint`'s.
    pub fn summary_fixed(&self, fixed: usize, skipped: &[SkipKind]) -> String {
        if fixed == 0 {
            return self.summary_naming(skipped);
        }
        let files = self.files_part(skipped);
        let remaining = match self.findings() {
            0 => "none remain".to_string(),
            n => format!(
                "{n} {} ({} {}, {} {})",
                plural(n, "remains", "remain"),
                self.errors,
                plural(self.errors, "error", "errors"),
                self.warnings,
                plural(self.warnings, "warning", "warnings"),
            ),
        };
        let unreadable = if self.unreadable > 0 {
            format!(", {}", self.unreadable_text())
        } else {
            String::new()
        };
        format!(
            "Fixed {fixed} {}; {remaining}: {files}{unreadable}.",
            plural(fixed, "finding", "findings"),
        )
    }

    /// `2 files checked, 1 skipped (...)`.
    fn files_part(&self, skipped: &[SkipKind]) -> String {
        let kinds = skipped_kinds(skipped);
        format!(
            "{} {} checked{}",
            self.files_checked,
            plural(self.files_checked, "file", "files"),
            if self.files_skipped > 0 {
                format!(
                    ", {} skipped (not a conversation format{kinds}; -v lists {})",
                    self.files_skipped,
                    if self.files_skipped == 1 {
                        "it"
                    } else {
                        "them"
                    }
                )
            } else {
                String::new()
            }
        )
    }

    /// The summary line, naming what the skipped files are (`skipped`: each skip's kind).
    pub fn summary_naming(&self, skipped: &[SkipKind]) -> String {
        let files = self.files_part(skipped);
        if self.unreadable > 0 && self.findings() == 0 {
            // "No findings" first would read as a pass: the failure comes first.
            format!("{}; no findings in {files}.", self.unreadable_text())
        } else if self.findings() == 0 {
            format!("No findings: {files}.")
        } else {
            let found = format!(
                "Found {} {} ({} {}, {} {}): {files}",
                self.findings(),
                plural(self.findings(), "finding", "findings"),
                self.errors,
                plural(self.errors, "error", "errors"),
                self.warnings,
                plural(self.warnings, "warning", "warnings"),
            );
            if self.unreadable > 0 {
                format!("{found}, {}.", self.unreadable_text())
            } else {
                format!("{found}.")
            }
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
    write_diagnostics_in(out, format, diagnostics, false)
}

/// [`write_diagnostics`], the human formats coloured when `color` (`--color`).
pub fn write_diagnostics_in(
    out: &mut dyn Write,
    format: OutputFormat,
    diagnostics: &[Diagnostic],
    color: bool,
) -> io::Result<()> {
    match format {
        OutputFormat::Full => unreachable_full(),
        OutputFormat::Concise => concise::write(out, diagnostics, color),
        OutputFormat::Json => json::write_array(out, diagnostics),
        OutputFormat::Jsonl => json::write_lines(out, diagnostics),
        OutputFormat::Github => github::write(out, diagnostics),
        OutputFormat::Sarif => sarif::write(out, diagnostics),
        OutputFormat::Gitlab => gitlab::write(out, diagnostics),
        OutputFormat::Junit => junit::write(out, diagnostics),
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
