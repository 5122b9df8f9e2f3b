//! The fix loop for one file.

use crate::encoding::Encoding;
use std::collections::HashSet;

use crate::finding::{Applicability, Edit, Finding};
use crate::lint::{FileReport, LintOptions, SourceName};
use crate::rules::ParseError;

use crate::edit::json_edit;

use super::undo::Undo;

/// Rounds of fix-then-lint allowed beyond the bound the file's calls and results set. Every
/// round applies at least one fix, and independent fixes land together, so a file converges
/// in far fewer rounds than the bound (fixes that touch one another, such as the re-linking
/// of neighbouring Claude Code lines, take turns). Exceeding it means a fix keeps
/// re-creating findings: an internal error, and nothing is written.
const EXTRA_ROUNDS: usize = 8;

/// What fixing one file produced. A file's text is held once (in `report`), and the text as
/// read, when the fixes changed it, as what they replaced (for the diff and the write-back).
#[derive(Debug)]
pub struct FileFix {
    /// The text as read as pieces of the fixed text, only when the fixes changed it:
    /// otherwise it is `report`'s text.
    original: Option<Undo>,
    /// Whether no round ever applied an edit, so `report` is the plain lint of the text as
    /// read (no fix set aside), and linting it again would find the same.
    untouched: bool,
    /// Fixes applied, over all rounds.
    pub applied: usize,
    /// The lint of the fixed text: what is left. Its source holds the fixed text, which
    /// [`FileFix::fixed_text`] returns.
    pub report: FileReport,
    /// Fixes left out because they are unsafe and `--unsafe-fixes` was not given.
    pub unsafe_left: usize,
    /// How the file is encoded: the original and fixed texts are written back this way.
    pub encoding: Encoding,
}

impl FileFix {
    /// Whether the fixed text differs from the text as read.
    pub fn changed(&self) -> bool {
        self.original.is_some()
    }

    /// The text as read (decoded): rebuilt from the fixed text when the fixes changed it.
    pub fn original_text(&self) -> std::borrow::Cow<'_, str> {
        match &self.original {
            Some(undo) => std::borrow::Cow::Owned(undo.rebuild(self.fixed_text())),
            None => std::borrow::Cow::Borrowed(self.fixed_text()),
        }
    }

    /// The text as read and as fixed, cut for their diff (see [`super::diff::Aligned`]).
    pub fn aligned(&self) -> super::diff::Aligned<'_> {
        let fixed = self.fixed_text();
        match &self.original {
            Some(read) => super::align::aligned_undo(read, fixed),
            None => vec![(std::borrow::Cow::Borrowed(fixed), fixed)],
        }
    }

    /// The text after fixing; the text as read when nothing changed.
    pub fn fixed_text(&self) -> &str {
        &self.report.source.text
    }

    /// The text after fixing, without a copy.
    pub fn into_fixed_text(self) -> String {
        self.report.source.text
    }

    /// The findings of the text as fixed (`after`) or as read, placed by `place` in the text
    /// they were found in: the fix loop's own report when it is of that text (its findings
    /// move out, its text stays for the write; when no fix was ever applied, that saves
    /// linting an unchanged text again), else `relint` of the text as read.
    pub fn place_findings(
        &mut self,
        after: bool,
        relint: impl FnOnce(String) -> FileReport,
        place: impl FnOnce(
            &crate::source::SourceFile,
            Vec<Finding>,
        ) -> Vec<crate::diagnostic::Diagnostic>,
    ) -> Vec<crate::diagnostic::Diagnostic> {
        if after || self.untouched {
            let findings = std::mem::take(&mut self.report.findings);
            place(&self.report.source, findings)
        } else {
            // Rebuilt, the text as read is handed over, not copied again.
            let report = relint(self.original_text().into_owned());
            place(&report.source, report.findings)
        }
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
    /// The text as read could not be rebuilt from what the fixes replaced: an internal
    /// error, nothing is written.
    Unrecoverable,
}

impl std::error::Error for FixError {}

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
            FixError::Unrecoverable => f.write_str(
                "internal error: the text as read could not be rebuilt after fixing; the file is left unchanged",
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
    let lint = |text: String| {
        crate::lint::lint_text(
            SourceName {
                name: name.name.clone(),
                path: name.path.clone(),
            },
            text,
            explicit,
            opts,
        )
    };
    fix_decoded(bytes, &lint, unsafe_fixes)
}

/// Fixes whole lines of a JSONL file known to hold one conversation per record (a chunk of
/// a dataset, see `crate::stream`), each record as [`fix_bytes`] fixes it in the whole file.
pub(crate) fn fix_record_lines(
    name: &SourceName,
    bytes: Vec<u8>,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<FileFix, FixError> {
    let lint = |text: String| {
        crate::lint::lint_record_text(
            SourceName {
                name: name.name.clone(),
                path: name.path.clone(),
            },
            text,
            opts,
        )
    };
    fix_decoded(bytes, &lint, unsafe_fixes)
}

fn fix_decoded(
    bytes: Vec<u8>,
    lint: &dyn Fn(String) -> FileReport,
    unsafe_fixes: bool,
) -> Result<FileFix, FixError> {
    let decoded = crate::encoding::decode(bytes);
    if let Some(problem) = decoded.problem {
        return Err(FixError::Undecodable(problem.message()));
    }
    fix_text(decoded.text, decoded.encoding, lint, unsafe_fixes)
}

/// The fix loop on a UTF-8 text read as the input `name` (a store's rows, a session folder's
/// files, a compressed log's frames), each round linted by `lint` under that name.
pub fn fix_named(
    name: &SourceName,
    text: String,
    lint: impl Fn(SourceName, String) -> FileReport,
    unsafe_fixes: bool,
) -> Result<FileFix, FixError> {
    let lint = |text: String| {
        let name = SourceName {
            name: name.name.clone(),
            path: name.path.clone(),
        };
        lint(name, text)
    };
    fix_text(text, Encoding::Utf8, &lint, unsafe_fixes)
}

/// The fix loop on a text, with `lint` checking each round's text (a SQLite store lints its
/// rows' text its own way). `lint` takes the text and keeps it in the report's source, which
/// is then the one copy of it: the report's text must be the text it was given.
pub fn fix_text(
    text: String,
    encoding: Encoding,
    lint: &dyn Fn(String) -> FileReport,
    unsafe_fixes: bool,
) -> Result<FileFix, FixError> {
    let parse_errors = |report: &FileReport| {
        report
            .findings
            .iter()
            .filter(|f| f.rule.code == ParseError::META.code)
            .count()
    };
    // The current text is the one in `report.source`, held once: the text as read, once a
    // round changes it, is kept as pieces of the current text and what the fixes replaced
    // (`read`), and the text before a round is dropped while the round's text is linted.
    let mut report = lint(text);
    let mut read: Option<Undo> = None;
    let mut touched = false;
    let baseline_parse_errors = parse_errors(&report);
    let baseline_unread = unread(&report);
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
        + 2 * (report.read.calls
            + report.read.results
            + crate::source::count_lines(&report.source.text))
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
    let mut pass_print: Option<Fingerprint> = None;
    loop {
        history.clear();
        banned.clear();
        // Prints are taken only when asked for: a file fixed in one round (most are) is
        // hashed once, for the undo of the text as read, not after every round.
        let mut pass_start: Option<Fingerprint> = None;
        let mut text_print: Option<Fingerprint> = pass_print;
        while budget > 0 {
            budget -= 1;
            let (edits, taken) = select(&report.findings, unsafe_fixes, &banned);
            if taken.is_empty() {
                break;
            }
            let placed = json_edit::place(&report.source.text, &edits);
            if placed.changes_nothing(&report.source.text) {
                break;
            }
            let before = &report.source.text;
            let before_print = *text_print.get_or_insert_with(|| fingerprint(before));
            pass_start.get_or_insert(before_print);
            let read_before = read
                .take()
                .unwrap_or_else(|| Undo::of(before, before_print));
            let read_next = read_before.after(before, &placed.replaced);
            // This round's own undo, to go back to its text if its fixes are set aside.
            let round = Undo::of_round(before, &placed.replaced);
            // The round's text is made in the buffer of the text before it: a big file is
            // never held twice.
            let next = placed
                .apply_in_place(std::mem::take(&mut report.source.text))
                .ok_or(FixError::Unrecoverable)?;
            // No earlier round of this pass, no text to come back to.
            let next_print = (!history.is_empty()).then(|| fingerprint(&next));
            let back_to = next_print
                .and_then(|print| history.iter().position(|(before, _)| *before == print));
            if let Some(start) = back_to {
                // Rounds `start..` undid one another: back to that round's text, without them.
                for (_, signatures) in history.drain(start..) {
                    applied = applied.saturating_sub(signatures.len());
                    banned.extend(signatures);
                }
                banned.extend(taken);
                report = lint(next);
                (read, touched) = (Some(read_next), true);
                text_print = next_print;
                continue;
            }
            let next_report = lint(next);
            if parse_errors(&next_report) > baseline_parse_errors {
                let detail = next_report
                    .findings
                    .iter()
                    .find(|f| f.rule.code == ParseError::META.code)
                    .map_or_else(String::new, |f| f.message.clone());
                return Err(FixError::Unparseable { detail });
            }
            if unread(&next_report) > baseline_unread {
                // A fix never leaves what toolcheck itself cannot read (a message list whose
                // only message was an orphaned result emptied to `[]` is no conversation):
                // this round's fixes are set aside and reported without a fix.
                banned.extend(taken);
                report.source.text = round.rebuild(&next_report.source.text);
                read = Some(read_before);
                continue;
            }
            applied += taken.len();
            history.push((before_print, taken));
            report = next_report;
            (read, touched) = (Some(read_next), true);
            text_print = next_print;
        }
        if banned.is_empty() || budget == 0 {
            break;
        }
        let end = *text_print.get_or_insert_with(|| fingerprint(&report.source.text));
        pass_print = Some(end);
        if pass_start.is_none_or(|start| start == end) {
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
    let original = match read.filter(|_| touched) {
        Some(undo) if !undo.holds(&report.source.text) => return Err(FixError::Unrecoverable),
        // Rounds that undid one another can end on the text as read.
        Some(undo) if undo.is_identity(&report.source.text) => None,
        undo => undo,
    };
    let untouched = !touched;
    Ok(FileFix {
        original,
        untouched,
        applied,
        report,
        unsafe_left,
        encoding,
    })
}

/// How much of a file is no longer read as a conversation: `unknown-format` findings, and a
/// file met in a walk that is skipped as no conversation at all.
fn unread(report: &FileReport) -> usize {
    let skipped = usize::from(matches!(report.outcome, crate::lint::Outcome::Skipped(_)));
    report
        .findings
        .iter()
        .filter(|f| f.rule.code == crate::rules::UnknownFormat::META.code)
        .count()
        + skipped
}

/// A text's length and hash, to recognise a text seen in an earlier round (and the text as
/// read in the pieces of a later one).
type Fingerprint = (usize, u64);

fn fingerprint(text: &str) -> Fingerprint {
    super::undo::print(text)
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
    let mut occupied = Occupied::default();
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
            occupied.overlaps(e)
                || fix
                    .edits
                    .iter()
                    .any(|o| !std::ptr::eq(o, e) && overlaps(e, o))
        });
        if !clashes {
            fix.edits.iter().for_each(|e| occupied.insert(e));
            taken.extend(fix.edits.iter().cloned());
            signatures.push(signature(finding));
        }
    }
    (taken, signatures)
}

/// The edits taken so far, indexed so that checking a new one costs a lookup, not a scan of
/// every edit taken (16,000 fixes in one file made selection quadratic).
#[derive(Default)]
struct Occupied {
    /// Replaced ranges, start → end. They never overlap one another (a fix that would is not
    /// taken), so ordered by start their ends are ordered too.
    ranges: std::collections::BTreeMap<usize, usize>,
    /// Points where text is inserted.
    points: std::collections::BTreeSet<usize>,
}

impl Occupied {
    fn insert(&mut self, e: &Edit) {
        if e.start == e.end {
            self.points.insert(e.start);
        } else {
            self.ranges.insert(e.start, e.end);
        }
    }

    /// Whether `e` [`clashes`] with an edit taken.
    fn overlaps(&self, e: &Edit) -> bool {
        // Of the ranges that start before `e` ends (or, for a point, at it), the one starting
        // last has the furthest end: if any range reaches into or touches `e`, that one does.
        let before = if e.start == e.end {
            ..e.start.saturating_add(1)
        } else {
            ..e.end
        };
        let reaches_in = self
            .ranges
            .range(before)
            .next_back()
            .is_some_and(|(&start, &end)| {
                clashes(
                    e,
                    &Edit {
                        start,
                        end,
                        content: String::new(),
                    },
                )
            });
        let point_inside = e.start < e.end && self.points.range(e.start..=e.end).next().is_some();
        reaches_in || point_inside
    }
}

/// Whether edits of two different fixes cannot be applied in one round: they overlap, or
/// one inserts at an end of a range the other replaces. Text inserted beside a removed
/// element is written for the array as it was (its separating comma included), so with the
/// element gone the array can be left invalid (`[inserted, ]`): the insert waits for the
/// next round, which plans it against the text without the element.
fn clashes(a: &Edit, b: &Edit) -> bool {
    let touches = |point: usize, range: &Edit| point >= range.start && point <= range.end;
    match (a.start == a.end, b.start == b.end) {
        (true, true) => false,
        (true, false) => touches(a.start, b),
        (false, true) => touches(b.start, a),
        (false, false) => overlaps(a, b),
    }
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

    /// `Occupied` answers what a scan of every taken edit answers, for every edit over a
    /// short text, with edits taken in many orders.
    #[test]
    fn occupied_agrees_with_a_scan() {
        let all: Vec<Edit> = (0..8usize)
            .flat_map(|s| (s..8).map(move |e| (s, e)))
            .map(|(s, e)| edit(s, e))
            .collect();
        for seed in 0..64usize {
            let (mut taken, mut occupied) = (Vec::<Edit>::new(), Occupied::default());
            // A different order of offers per seed.
            let mut order: Vec<usize> = (0..all.len()).collect();
            order.sort_by_key(|&i| (i * (2 * seed + 1) + seed) % all.len());
            for i in order {
                let Some(e) = all.get(i) else { continue };
                for probe in &all {
                    let scan = taken.iter().any(|t| clashes(probe, t));
                    assert_eq!(occupied.overlaps(probe), scan, "{probe:?} vs {taken:?}");
                }
                if !taken.iter().any(|t| clashes(e, t)) {
                    occupied.insert(e);
                    taken.push(e.clone());
                }
            }
        }
    }

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
        // Across fixes, an insert at either end of a replaced range waits a round.
        assert!(clashes(&edit(5, 5), &edit(0, 5)));
        assert!(clashes(&edit(0, 0), &edit(0, 5)));
        assert!(!clashes(&edit(6, 6), &edit(0, 5)));
        assert!(!clashes(&edit(0, 5), &edit(5, 8)));
    }
}
