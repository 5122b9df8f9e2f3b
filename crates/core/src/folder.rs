//! Session folders: a directory whose files together are one conversation, read as one
//! input. Strands Agents keeps each message in a file of its own
//! (`session_<id>/agents/agent_<id>/messages/message_<n>.json`), the OpenHands V1 SDK each
//! event (`<conversation>/events/event-NNNNN-<event id>.json` beside `base_state.json`,
//! `openhands/sdk/conversation/persistence_const.py`); read one file at a time, no file is a
//! conversation, and a walk over the folder used to check nothing.
//!
//! The folder is read as one text: its files in numeric order, each as written, with a
//! separator line between them that JSON cannot hold ([`SEP`]); that text is read as the
//! records of one session by the folder kind's adapter. Every byte keeps its offset inside its
//! file, so a finding is placed back in the file it is in (`relocate`), and the fix loop
//! runs on the text as on any file's: a fix may only edit inside one message file (the
//! adapter plans nothing else, and `keep_file_fixes` holds every fix to it), so the
//! separators stay and each file's text as fixed is found again between them. Strands lists
//! the files in numeric order and skips the first `removed_message_count` of them
//! (`agent.json`, what a sliding window trimmed), by position; those are left out here too.
//!
//! `fix --write` checks every changed file first (`write`): one that changed since it was
//! read, or cannot be written, leaves them all untouched. On Linux the folder is then
//! swapped whole for a fixed copy in one rename (`fix::swap`), so a run killed at any
//! point leaves it old or new; elsewhere each changed file is written with
//! `fix::write::write_atomic`, and the ones written are put back should a later one fail.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::finding::Finding;
use crate::fix::swap::{swap_in, Change};
use crate::fix::write::WriteError;
use crate::format::Format;
use crate::lint::{FileReport, LintOptions, Outcome, SourceName};
use crate::read::FileStamp;
use crate::source::SourceFile;

/// What separates two message files in the folder's text (and ends the last): a line
/// holding U+001E, a control character JSON never holds raw, so no fix makes or moves one.
const SEP: &str = "\n\u{1e}\n";

/// Which library wrote a session folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Strands `messages/`: `message_<n>.json`.
    Strands,
    /// OpenHands V1 `events/`: `event-<n, 5 digits or more>-<event id>.json`, or
    /// `event-<n>.json` as the first SDK releases wrote.
    OpenHands,
}

impl Kind {
    const ALL: [Kind; 2] = [Kind::Strands, Kind::OpenHands];

    /// The order index a file name carries (`message_12.json` → 12,
    /// `event-00012-4f1c….json` → 12).
    fn index(self, name: &str) -> Option<u64> {
        match self {
            Kind::Strands => name
                .strip_prefix("message_")?
                .strip_suffix(".json")?
                .parse()
                .ok(),
            Kind::OpenHands => {
                let rest = name.strip_prefix("event-")?.strip_suffix(".json")?;
                let (digits, id) = rest.split_once('-').unwrap_or((rest, ""));
                let id_ok = id.is_empty()
                    || (id.len() >= 8 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
                (digits.len() >= 5 && id_ok && digits.chars().all(|c| c.is_ascii_digit()))
                    .then(|| digits.parse().ok())
                    .flatten()
            }
        }
    }

    /// Whether `dir` is a folder of this kind: `messages` inside `agent_<id>`; `events`
    /// beside `base_state.json`, or holding event files.
    fn is_folder(self, dir: &Path) -> bool {
        let named = |n: &str| dir.file_name().is_some_and(|d| d == n);
        match self {
            Kind::Strands => {
                named("messages")
                    && dir
                        .parent()
                        .and_then(Path::file_name)
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("agent_"))
            }
            Kind::OpenHands => {
                named("events")
                    && (dir
                        .parent()
                        .is_some_and(|p| p.join("base_state.json").is_file())
                        || std::fs::read_dir(dir).is_ok_and(|mut entries| {
                            entries.any(|e| {
                                e.ok()
                                    .and_then(|e| {
                                        e.file_name().to_str().and_then(|n| self.index(n))
                                    })
                                    .is_some()
                            })
                        }))
            }
        }
    }

    fn format(self) -> Format {
        match self {
            Kind::Strands => Format::Strands,
            Kind::OpenHands => Format::OpenHands,
        }
    }
}

/// The kind of session folder `dir` is, if it is one.
fn kind_of(dir: &Path) -> Option<Kind> {
    Kind::ALL.into_iter().find(|k| k.is_folder(dir))
}

/// The session folder a path is, or is a file of: a Strands `messages` folder, an OpenHands
/// V1 `events` folder.
pub fn messages_dir(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        return kind_of(path).map(|_| path.to_path_buf());
    }
    folder_of_file(path)
}

/// The session folder the file at `path` is a message file of, told from its name and its
/// folder's alone (the file is not looked at).
pub fn folder_of_file(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let dir = path.parent()?;
    Kind::ALL
        .into_iter()
        .any(|k| k.index(name).is_some() && k.is_folder(dir))
        .then(|| dir.to_path_buf())
}

/// One message file of the folder.
#[derive(Debug)]
struct File {
    /// The file's name as reported (the folder's name joined with the file's).
    name: String,
    path: PathBuf,
    /// Its stamp when read, for the check before a write.
    stamp: Option<FileStamp>,
    /// Why the file holds no text, if it does not (its part of the text is then empty).
    problem: Option<String>,
}

/// A session folder as read: its text (the message files, each followed by [`SEP`]) and
/// its files.
#[derive(Debug)]
pub struct Folder {
    kind: Kind,
    text: String,
    files: Vec<File>,
}

/// How many messages a sliding window removed (`agent.json`
/// `conversation_manager_state.removed_message_count`), 0 when unknown.
fn removed(dir: &Path) -> u64 {
    let Some(agent) = dir.parent().map(|a| a.join("agent.json")) else {
        return 0;
    };
    let Ok(text) = std::fs::read_to_string(agent) else {
        return 0;
    };
    crate::json::parse_value(&text)
        .ok()
        .and_then(|v| {
            v.get("conversation_manager_state")?
                .get("removed_message_count")?
                .as_u64()
        })
        .unwrap_or(0)
}

/// Reads the message files of the folder `dir` (named `name`), at most `limit` bytes in all.
pub fn read(dir: &Path, name: &str, limit: u64) -> Result<Folder, String> {
    let cannot = |e: std::io::Error| format!("cannot read {name}: {e}");
    let kind = kind_of(dir).unwrap_or(Kind::Strands);
    let mut listed: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map_err(cannot)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| Some((kind.index(e.file_name().to_str()?)?, e.path())))
        .collect();
    listed.sort();
    // Strands' `list_messages(offset=removed_message_count)` skips files by position, not
    // by index.
    let skip = match kind {
        Kind::Strands => usize::try_from(removed(dir)).unwrap_or(usize::MAX),
        Kind::OpenHands => 0,
    };
    let mut total: u64 = 0;
    let mut text = String::new();
    let mut files = Vec::with_capacity(listed.len());
    for (_, path) in listed.into_iter().skip(skip) {
        let stamp = std::fs::metadata(&path).ok().map(|m| FileStamp::of(&m));
        let bytes = std::fs::read(&path).map_err(cannot)?;
        total = total.saturating_add(bytes.len() as u64);
        if total > limit {
            return Err(format!(
                "{name}: its message files hold more than the maximum input size ({limit} bytes)"
            ));
        }
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let problem = match simdutf8::basic::from_utf8(&bytes) {
            Ok(t) if t.trim().is_empty() => Some("the file is empty"),
            Ok(t) if t.contains('\u{1e}') => {
                Some("the file holds a raw control character (U+001E)")
            }
            Ok(t) => {
                text.push_str(t);
                None
            }
            Err(_) => Some("the file is not valid UTF-8"),
        };
        text.push_str(SEP);
        files.push(File {
            name: format!("{}/{file_name}", name.trim_end_matches('/')),
            path,
            stamp,
            problem: problem.map(str::to_string),
        });
    }
    Ok(Folder { kind, text, files })
}

/// The file whose span (in the folder's text, in order) holds offset `at`: the last that
/// starts at or before it.
fn file_at(spans: &[(usize, usize)], at: usize) -> Option<usize> {
    spans
        .partition_point(|&(start, _)| start <= at)
        .checked_sub(1)
}

/// Why a fix that would edit more than one message file is not offered.
const ONE_FILE: &str = "it would edit more than one message file; a fix here edits one";

impl Folder {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where each file's text is in `text` (the folder's text as read, or as fixed).
    fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        let mut spans = Vec::with_capacity(self.files.len());
        let mut start = 0;
        while let Some(at) = text.get(start..).and_then(|rest| rest.find(SEP)) {
            spans.push((start, start + at));
            start += at + SEP.len();
        }
        spans
    }

    /// Lints `text` (the folder's text as read, or as a fix round left it) as one session of
    /// the folder kind's adapter.
    pub fn lint(&self, name: SourceName, text: String, opts: &LintOptions) -> FileReport {
        let source = SourceFile::new(name.path, name.name, text);
        let spans = self.spans(&source.text);
        let mut findings = Vec::new();
        let mut parsed = Vec::new();
        let mut lossy = false;
        for (file, &(start, end)) in self.files.iter().zip(&spans) {
            if let Some(problem) = &file.problem {
                findings.push(Finding::at_span(
                    &crate::rules::ParseError::META,
                    start,
                    start,
                    format!("message file holds no JSON: {problem}"),
                ));
                continue;
            }
            let json = source.text.get(start..end).unwrap_or_default();
            match crate::json::parse(json) {
                Ok(p) => {
                    lossy |= p.lossy;
                    parsed.push((start, p.value));
                }
                Err(e) => findings.push(Finding::at_span(
                    &crate::rules::ParseError::META,
                    start,
                    start,
                    format!("message file is not valid JSON: {e}"),
                )),
            }
        }
        let mut formats = Vec::new();
        let mut read = crate::coverage::ReadCounts::default();
        if let (false, Some(adapter)) = (parsed.is_empty(), self.kind.format().adapter()) {
            let (found, format, counts) =
                crate::lint::check_session(adapter, parsed, &source, opts, lossy);
            findings.extend(found);
            formats.extend(format);
            read = counts;
        }
        findings.retain(|f| opts.selection.is_enabled(f.rule.code));
        for finding in &mut findings {
            self.keep_file_fixes(&spans, finding);
        }
        FileReport {
            source,
            findings,
            outcome: Outcome::Checked(formats),
            read,
        }
    }

    /// Keeps a fix only if every edit lands inside one message file that was read, and
    /// puts no separator in it.
    fn keep_file_fixes(&self, spans: &[(usize, usize)], finding: &mut Finding) {
        let Some(fix) = &finding.fix else {
            return;
        };
        let first = fix.edits.first().and_then(|e| file_at(spans, e.start));
        let inside = first.is_some_and(|i| {
            let readable = self.files.get(i).is_some_and(|f| f.problem.is_none());
            readable
                && spans.get(i).is_some_and(|&(start, end)| {
                    fix.edits
                        .iter()
                        .all(|e| e.start >= start && e.end <= end && !e.content.contains('\u{1e}'))
                })
        });
        if !inside {
            finding.fix = None;
            crate::lint::note_withheld(finding, ONE_FILE);
        }
    }

    /// Places each diagnostic of `text` (the folder's text they were found in) in the
    /// message file it is in: its name, line and column counted in the file, and the edits
    /// of its fix as offsets in that file.
    pub fn relocate(&self, text: &str, diagnostics: &mut [Diagnostic]) {
        let spans = self.spans(text);
        // The line of the folder's text each file starts on, for the rules' "line N".
        let mut first_lines = Vec::with_capacity(spans.len());
        let mut line = 0;
        let mut counted = 0;
        for &(start, _) in &spans {
            line += text
                .get(counted..start)
                .map_or(0, |t| t.matches('\n').count());
            counted = start;
            first_lines.push(line);
        }
        for d in diagnostics {
            let Some(i) = file_at(&spans, d.start) else {
                continue;
            };
            let (Some(&(start, end)), Some(file)) = (spans.get(i), self.files.get(i)) else {
                continue;
            };
            let body = text.get(start..end).unwrap_or_default();
            let inside = |offset: usize| offset.saturating_sub(start).min(body.len());
            (d.line, d.column) = crate::source::line_col(body, inside(d.start));
            (d.end_line, d.end_column) = crate::source::line_col(body, inside(d.end.max(d.start)));
            d.path.clone_from(&file.name);
            d.base = start;
            // A fix edits one file, not always the finding's (a result put in the next
            // message): its edits then name no offsets of the finding's file, which a reader
            // of the output (SARIF `artifactChanges`) would apply there; its message names
            // the file instead, which `toolcheck fix` edits.
            if let Some(fix) = &mut d.fix {
                let at = fix.edits.first().and_then(|e| file_at(&spans, e.start));
                let span = at.and_then(|k| Some((k, *spans.get(k)?)));
                match span {
                    Some((k, (from, to)))
                        if fix.edits.iter().all(|e| e.start >= from && e.end <= to) =>
                    {
                        for edit in &mut fix.edits {
                            edit.start -= from;
                            edit.end -= from;
                        }
                        if let (true, Some(other)) = (k != i, self.files.get(k)) {
                            let short = other.name.rsplit('/').next().unwrap_or(&other.name);
                            fix.message.push_str(&format!(
                                " (an edit of {short}, which `toolcheck fix` applies)"
                            ));
                            fix.edits.clear();
                        }
                    }
                    _ => d.fix = None,
                }
            }
            // Rules name other records by their line: here each is a file.
            d.message = crate::store::name_lines(&d.message, |n| {
                let k = first_lines.iter().position(|&l| l == n)?;
                let name = &self.files.get(k)?.name;
                Some(name.rsplit('/').next().unwrap_or(name).to_string())
            });
        }
    }

    /// Each message file `fixed` changes: its name, its text as read and as fixed.
    pub fn changed<'t>(&'t self, fixed: &'t str) -> Vec<(&'t str, &'t str, &'t str)> {
        let old = self.spans(&self.text);
        let new = self.spans(fixed);
        self.files
            .iter()
            .zip(old.iter().zip(&new))
            .filter_map(|(file, (&(os, oe), &(ns, ne)))| {
                let before = self.text.get(os..oe)?;
                let after = fixed.get(ns..ne)?;
                (before != after).then_some((file.name.as_str(), before, after))
            })
            .collect()
    }

    /// Writes each message file `fixed` changes, each atomically (`write_atomic`). Every one
    /// is checked first, so one that changed since it was read, or cannot be written, leaves
    /// them all untouched. Should a later write fail all the same (the disk filling up between
    /// two renames), the files already written are put back as they were read, each
    /// atomically too; only if that fails as well does a file keep its fix, and the error
    /// names it.
    pub fn write(&self, fixed: &str) -> Result<(), WriteError> {
        let changed = self.changed(fixed);
        let file = |name: &str| self.files.iter().find(|f| f.name == name);
        let check = || {
            for &(name, before, _) in &changed {
                if let Some(f) = file(name) {
                    check_unchanged(f, before)?;
                }
            }
            Ok(())
        };
        check()?;
        let dir = self.files.first().and_then(|f| f.path.parent());
        let changes: Option<Vec<Change<'_>>> = changed
            .iter()
            .map(|&(name, _, after)| {
                let f = file(name)?;
                (f.path.parent() == dir).then_some(Change {
                    name: f.path.file_name()?,
                    contents: after.as_bytes(),
                })
            })
            .collect();
        // All or nothing under `kill -9`: the folder swapped whole where the platform can.
        if let (Some(dir), Some(changes)) = (dir, changes) {
            if !changes.is_empty() && swap_in(dir, &changes, &check)? {
                return Ok(());
            }
        }
        self.write_with(fixed, &|path, read, stamp, new| {
            crate::fix::write::write_atomic(path, read, stamp, new)
        })
    }

    /// [`Folder::write`], each file written by `write_one` (a test makes one fail).
    fn write_with(&self, fixed: &str, write_one: &WriteOne<'_>) -> Result<(), WriteError> {
        let changed = self.changed(fixed);
        let file = |name: &str| self.files.iter().find(|f| f.name == name);
        for &(name, before, _) in &changed {
            let Some(f) = file(name) else { continue };
            check_unchanged(f, before)?;
        }
        let mut written: Vec<(&File, &str, &str)> = Vec::new();
        for &(name, before, after) in &changed {
            let Some(f) = file(name) else { continue };
            if let Err(e) = write_one(&f.path, before.as_bytes(), f.stamp.as_ref(), after) {
                let kept: Vec<&str> = written
                    .iter()
                    .filter(|(w, b, a)| write_one(&w.path, a.as_bytes(), None, b).is_err())
                    .map(|(w, _, _)| w.name.as_str())
                    .collect();
                let rest = if written.is_empty() {
                    "no message file was changed".to_string()
                } else if kept.is_empty() {
                    "the files written before it were put back as they were read".to_string()
                } else {
                    format!("{} could not be put back and hold the fix", kept.join(", "))
                };
                return Err(WriteError(format!("{name}: {e}; {rest}")));
            }
            written.push((f, before, after));
        }
        Ok(())
    }
}

/// Writes one file: its path, its bytes as read, its stamp then, the new text.
type WriteOne<'a> = dyn Fn(&Path, &[u8], Option<&FileStamp>, &str) -> Result<(), WriteError> + 'a;

/// The checks `write_atomic` makes before it writes, made for every file before any is
/// written.
fn check_unchanged(file: &File, before: &str) -> Result<(), WriteError> {
    let fail =
        |why: String| WriteError(format!("{}: {why}; no message file was written", file.name));
    let meta = std::fs::metadata(&file.path).map_err(|e| fail(format!("cannot stat it: {e}")))?;
    if meta.permissions().readonly() {
        return Err(fail("the file is read-only".into()));
    }
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
        return Err(fail("the file has more than one hard link".into()));
    }
    let current =
        std::fs::read(&file.path).map_err(|e| fail(format!("cannot read it again: {e}")))?;
    if file
        .stamp
        .as_ref()
        .is_some_and(|s| *s != FileStamp::of(&meta))
        || current != before.as_bytes()
    {
        return Err(fail("the file changed on disk since it was read".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A messages folder with two files in a temporary directory, read.
    fn two_files() -> (tempfile::TempDir, Folder) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("agent_a/messages");
        std::fs::create_dir_all(&dir).expect("mkdir");
        for n in [0, 1] {
            let text = format!("{{\n  \"message\": {{\"role\": \"user\", \"content\": [{{\"text\": \"old {n}\"}}]}},\n  \"message_id\": {n},\n  \"redact_message\": null\n}}");
            std::fs::write(dir.join(format!("message_{n}.json")), text).expect("write");
        }
        let folder = read(&dir, "messages", 1 << 20).expect("read");
        (tmp, folder)
    }

    #[test]
    fn each_file_is_found_again_in_a_fixed_text() {
        let (_tmp, folder) = two_files();
        let fixed = folder.text().replace("old 1", "new one");
        let changed = folder.changed(&fixed);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].0, "messages/message_1.json");
        assert!(changed[0].2.contains("new one"));
    }

    /// The second write fails after the first was made: the first file is put back as it
    /// was read, and the error says so.
    #[test]
    fn a_failed_second_write_puts_the_first_back() {
        let (tmp, folder) = two_files();
        let dir = tmp.path().join("agent_a/messages");
        let before: Vec<Vec<u8>> = [0, 1]
            .iter()
            .map(|n| std::fs::read(dir.join(format!("message_{n}.json"))).expect("read"))
            .collect();
        let fixed = folder.text().replace("old", "new");
        let calls = std::cell::Cell::new(0);
        let err = folder
            .write_with(&fixed, &|path, read, stamp, new| {
                calls.set(calls.get() + 1);
                if calls.get() == 2 {
                    return Err(WriteError("cannot replace the file: disk full".into()));
                }
                crate::fix::write::write_atomic(path, read, stamp, new)
            })
            .expect_err("refused");
        assert!(err.0.contains("put back as they were read"), "{}", err.0);
        // Two writes and the one putting the first file back.
        assert_eq!(calls.get(), 3);
        for (n, bytes) in before.iter().enumerate() {
            let now = std::fs::read(dir.join(format!("message_{n}.json"))).expect("read");
            assert_eq!(&now, bytes);
        }
    }

    /// A file changed since it was read stops every write, the first file's included.
    #[test]
    fn a_changed_file_stops_every_write() {
        let (tmp, folder) = two_files();
        let dir = tmp.path().join("agent_a/messages");
        let first = std::fs::read(dir.join("message_0.json")).expect("read");
        std::fs::write(dir.join("message_1.json"), "{}").expect("write");
        let fixed = folder.text().replace("old", "new");
        let err = folder.write(&fixed).expect_err("refused");
        assert!(err.0.contains("changed on disk"), "{}", err.0);
        assert_eq!(
            std::fs::read(dir.join("message_0.json")).expect("read"),
            first
        );
    }
}
