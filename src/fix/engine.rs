//! The fix loop for one file.

use crate::encoding::Encoding;
use std::collections::HashSet;

use crate::finding::{Applicability, Edit, Finding};
use crate::lint::{lint_bytes, FileReport, LintOptions, SourceName};
use crate::rules::ParseError;

use crate::edit::json_edit;

/// Rounds of fix-then-lint allowed beyond the bound the file's calls and results set. Every
/// round applies at least one fix, and independent fixes land together, so a file converges
/// in far fewer rounds than the bound (fixes that touch one another, such as the re-linking
/// of neighbouring Claude Code lines, take turns). Exceeding it means a fix keeps
/// re-creating findings: an internal error, and nothing is written.
const EXTRA_ROUNDS: usize = 8;

/// What fixing one file produced.
#[derive(Debug)]
pub struct FileFix {
    pub original: String,
    pub fixed: String,
    /// Fixes applied, over all rounds.
    pub applied: usize,
    /// The lint of the fixed text: what is left.
    pub report: FileReport,
    /// Fixes left out because they are unsafe and `--unsafe-fixes` was not given.
    pub unsafe_left: usize,
    /// How the file is encoded: `original` and `fixed` are written back this way.
    pub encoding: Encoding,
}

impl FileFix {
    pub fn changed(&self) -> bool {
        self.original != self.fixed
    }
}

/// Why a file was not fixed.
#[derive(Debug)]
pub enum FixError {
    /// The file could not be decoded faithfully (invalid UTF-8 or UTF-16, UTF-16 without a
    /// byte order mark): its bytes could not be preserved, so it is left alone.
    Undecodable(String),
    /// A fix produced text that does not parse: an internal error, nothing is written.
    Unparseable { detail: String },
    /// Fixable findings remain after every round: an internal error, nothing is written.
    DidNotConverge { codes: Vec<&'static str> },
}

impl std::fmt::Display for FixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FixError::Undecodable(why) => write!(f, "{why}; it is left unchanged"),
            FixError::Unparseable { detail } => write!(
                f,
                "internal error: a fix produced invalid JSON ({detail}); the file is left unchanged"
            ),
            FixError::DidNotConverge { codes } => write!(
                f,
                "internal error: fixes for {} did not converge; the file is left unchanged",
                codes.join(", ")
            ),
        }
    }
}

/// Whether a finding's fix is applied under these settings.
pub fn applies(finding: &Finding, unsafe_fixes: bool) -> bool {
    finding
        .fix
        .as_ref()
        .is_some_and(|f| f.applicability == Applicability::Safe || unsafe_fixes)
}

/// Fixes one file's bytes: applies non-overlapping fixes, lints again, and repeats until
/// nothing changes.
pub fn fix_bytes(
    name: &SourceName,
    bytes: Vec<u8>,
    explicit: bool,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<FileFix, FixError> {
    let decoded = crate::encoding::decode(bytes);
    if let Some(problem) = decoded.problem {
        return Err(FixError::Undecodable(problem.message()));
    }
    let lint = |text: &str| {
        lint_bytes(
            SourceName {
                name: name.name.clone(),
                path: name.path.clone(),
            },
            text.as_bytes().to_vec(),
            explicit,
            opts,
        )
    };
    fix_text(decoded.text, decoded.encoding, &lint, unsafe_fixes)
}

/// The fix loop on a text, with `lint` checking each round's text (a SQLite store lints its
/// rows' text its own way).
pub fn fix_text(
    original: String,
    encoding: Encoding,
    lint: &dyn Fn(&str) -> FileReport,
    unsafe_fixes: bool,
) -> Result<FileFix, FixError> {
    let parse_errors = |report: &FileReport| {
        report
            .findings
            .iter()
            .filter(|f| f.rule.code == ParseError::META.code)
            .count()
    };
    let mut text = original.clone();
    let mut report = lint(&text);
    let baseline_parse_errors = parse_errors(&report);
    let mut applied: usize = 0;
    // Every fix removes, inserts or moves a call or a result, and one can expose another
    // (removing a call orphans its results; removing a session line can bring earlier lines
    // back onto the resumed chain), so the rounds a file may need are bounded by its size —
    // the calls and results read, and its lines — not by a constant; cycles are caught below.
    let fixable = report
        .findings
        .iter()
        .filter(|f| applies(f, unsafe_fixes))
        .count();
    let max_rounds = fixable
        + 2 * (report.read.calls + report.read.results + report.source.line_count())
        + EXTRA_ROUNDS;
    // Fixes that undo one another (an adapter inserting what a rule then removes) bring the
    // text back to an earlier round's: such fixes are set aside and their findings left
    // unfixed, instead of circling until the bound. Rounds are remembered by a fingerprint
    // of the text before them, not a copy, so a big file is not held many times over; a
    // fingerprint matching by accident would only set fixes aside.
    //
    // Setting fixes aside can leave others that now apply on their own, so passes repeat,
    // each starting with nothing set aside, until one ends where it began: the result is
    // then what a fresh run from it would leave too (fixing twice changes nothing).
    let mut history: Vec<(Fingerprint, Vec<Signature>)> = Vec::new();
    let mut banned: HashSet<Signature> = HashSet::new();
    let mut budget = max_rounds;
    loop {
        history.clear();
        banned.clear();
        let pass_start = fingerprint(&text);
        let mut text_print = pass_start;
        while budget > 0 {
            budget -= 1;
            let (edits, taken) = select(&report.findings, unsafe_fixes, &banned);
            if taken.is_empty() {
                break;
            }
            let next = json_edit::apply(&text, &edits);
            if next == text {
                break;
            }
            let next_print = fingerprint(&next);
            if let Some(start) = history.iter().position(|(before, _)| *before == next_print) {
                // Rounds `start..` undid one another: back to that round's text, without them.
                for (_, signatures) in history.drain(start..) {
                    applied = applied.saturating_sub(signatures.len());
                    banned.extend(signatures);
                }
                banned.extend(taken);
                report = lint(&next);
                text = next;
                text_print = next_print;
                continue;
            }
            let next_report = lint(&next);
            if parse_errors(&next_report) > baseline_parse_errors {
                let detail = next_report
                    .findings
                    .iter()
                    .find(|f| f.rule.code == ParseError::META.code)
                    .map_or_else(String::new, |f| f.message.clone());
                return Err(FixError::Unparseable { detail });
            }
            applied += taken.len();
            history.push((text_print, taken));
            text = next;
            text_print = next_print;
            report = next_report;
        }
        if banned.is_empty() || text_print == pass_start || budget == 0 {
            break;
        }
    }
    // What was set aside is reported without a fix.
    for finding in &mut report.findings {
        if banned.contains(&signature(finding)) {
            finding.fix = None;
        }
    }
    let unconverged: Vec<&'static str> = report
        .findings
        .iter()
        .filter(|f| applies(f, unsafe_fixes))
        .map(|f| f.rule.code)
        .collect();
    if !unconverged.is_empty() {
        return Err(FixError::DidNotConverge { codes: unconverged });
    }
    let unsafe_left = report
        .findings
        .iter()
        .filter(|f| {
            f.fix
                .as_ref()
                .is_some_and(|x| x.applicability == Applicability::Unsafe)
        })
        .count();
    Ok(FileFix {
        original,
        fixed: text,
        applied,
        report,
        unsafe_left,
        encoding,
    })
}

/// A text's length and hash, to recognise a text seen in an earlier round.
type Fingerprint = (usize, u64);

fn fingerprint(text: &str) -> Fingerprint {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    (text.len(), hasher.finish())
}

/// What identifies a fix across rounds, whose byte offsets move: its rule and message.
type Signature = (&'static str, String);

fn signature(finding: &Finding) -> Signature {
    (finding.rule.code, finding.message.clone())
}

/// The edits of every applicable fix that does not overlap one taken before it (and is not
/// set aside), and the signatures of the fixes taken. Zero-width inserts at the same offset
/// do not conflict.
fn select(
    findings: &[Finding],
    unsafe_fixes: bool,
    banned: &HashSet<Signature>,
) -> (Vec<Edit>, Vec<Signature>) {
    let mut taken: Vec<Edit> = Vec::new();
    let mut signatures = Vec::new();
    let mut candidates: Vec<&Finding> = findings
        .iter()
        .filter(|f| applies(f, unsafe_fixes) && !banned.contains(&signature(f)))
        .collect();
    candidates.sort_by_key(|f| {
        f.fix
            .as_ref()
            .and_then(|x| x.edits.iter().map(|e| e.start).min())
    });
    for finding in candidates {
        let Some(fix) = &finding.fix else { continue };
        if fix.edits.is_empty() {
            continue;
        }
        let clashes = fix.edits.iter().any(|e| {
            taken.iter().any(|t| overlaps(e, t))
                || fix
                    .edits
                    .iter()
                    .any(|o| !std::ptr::eq(o, e) && overlaps(e, o))
        });
        if !clashes {
            taken.extend(fix.edits.iter().cloned());
            signatures.push(signature(finding));
        }
    }
    (taken, signatures)
}

fn overlaps(a: &Edit, b: &Edit) -> bool {
    if a.start == a.end && b.start == b.end {
        return false;
    }
    let inside = |point: usize, range: &Edit| point > range.start && point < range.end;
    if a.start == a.end {
        return inside(a.start, b);
    }
    if b.start == b.end {
        return inside(b.start, a);
    }
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize) -> Edit {
        Edit {
            start,
            end,
            content: String::new(),
        }
    }

    #[test]
    fn overlap_rules() {
        assert!(overlaps(&edit(0, 5), &edit(4, 8)));
        assert!(!overlaps(&edit(0, 5), &edit(5, 8)));
        assert!(!overlaps(&edit(5, 5), &edit(5, 5)));
        assert!(!overlaps(&edit(5, 5), &edit(0, 5)));
        assert!(overlaps(&edit(3, 3), &edit(0, 5)));
    }
}
