//! Session folders: a directory whose files together are one conversation, read as one
//! input. Strands Agents keeps each message in a file of its own
//! (`session_<id>/agents/agent_<id>/messages/message_<n>.json`), the OpenHands V1 SDK each
//! event (`<conversation>/events/event-NNNNN-<event id>.json` beside `base_state.json`,
//! `openhands/sdk/conversation/persistence_const.py`); read one file at a time, no file is a
//! conversation, and a walk over the folder used to check nothing.
//!
//! The folder is read as a text with one line per file, in numeric order (each file's line
//! breaks replaced byte for byte, as a store's rows are: `store/snapshot.rs`), and that text
//! as the records of one session by the folder kind's adapter. Every byte keeps its offset
//! inside its file, so a finding is placed back in the file it is in (`relocate`). Strands
//! files below the agent's `removed_message_count` (`agent.json`, what a sliding window
//! trimmed and Strands skips on restore) are left out. Findings only: fixes would edit files.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::finding::Finding;
use crate::format::Format;
use crate::json::Doc;
use crate::lint::{FileReport, LintOptions, Outcome, SourceName};
use crate::source::SourceFile;

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
    let name = path.file_name()?.to_str()?;
    let dir = path.parent()?;
    Kind::ALL
        .into_iter()
        .any(|k| k.index(name).is_some() && k.is_folder(dir))
        .then(|| dir.to_path_buf())
}

/// One message file as a line of the folder's text.
#[derive(Debug)]
struct Line {
    /// The file's name as reported (the folder's name joined with the file's).
    name: String,
    /// Where its line starts in the folder's text.
    start: usize,
    /// The file as read, for line and column numbers.
    text: String,
    /// Why the file holds no text, if it does not.
    problem: Option<String>,
}

/// A session folder as read: its text (one message file per line) and its files.
#[derive(Debug)]
pub struct Folder {
    kind: Kind,
    text: String,
    lines: Vec<Line>,
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
    let skip = match kind {
        Kind::Strands => removed(dir),
        Kind::OpenHands => 0,
    };
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map_err(cannot)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let n = kind.index(e.file_name().to_str()?)?;
            (n >= skip).then(|| (n, e.path()))
        })
        .collect();
    files.sort();
    let mut total: u64 = 0;
    let mut text = String::new();
    let mut lines = Vec::with_capacity(files.len());
    for (_, path) in files {
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
        let start = text.len();
        let (file_text, problem) = match String::from_utf8(bytes) {
            Ok(t) if t.trim().is_empty() => (t, Some("the file is empty".to_string())),
            Ok(t) => {
                crate::store::push_flat(&mut text, &t);
                (t, None)
            }
            Err(_) => (
                String::new(),
                Some("the file is not valid UTF-8".to_string()),
            ),
        };
        text.push('\n');
        lines.push(Line {
            name: format!("{}/{file_name}", name.trim_end_matches('/')),
            start,
            text: file_text,
            problem,
        });
    }
    Ok(Folder { kind, text, lines })
}

impl Folder {
    /// Lints the folder as one session of its kind's adapter.
    pub fn lint(&self, name: SourceName, opts: &LintOptions) -> FileReport {
        let source = SourceFile::new(name.path, name.name, self.text.clone());
        let mut findings = Vec::new();
        let mut parsed = Vec::new();
        let mut lossy = false;
        for line in &self.lines {
            let end = self
                .text
                .get(line.start..)
                .and_then(|rest| rest.find('\n'))
                .map_or(self.text.len(), |n| line.start + n);
            if let Some(problem) = &line.problem {
                findings.push(Finding::at_span(
                    &crate::rules::ParseError::META,
                    line.start,
                    line.start,
                    format!("message file holds no JSON: {problem}"),
                ));
                continue;
            }
            let json = source.text.get(line.start..end).unwrap_or_default();
            match crate::json::parse(json) {
                Ok(p) => {
                    lossy |= p.lossy;
                    parsed.push((line.start, p.value));
                }
                Err(e) => findings.push(Finding::at_span(
                    &crate::rules::ParseError::META,
                    line.start,
                    line.start,
                    format!("message file is not valid JSON: {e}"),
                )),
            }
        }
        let docs: Vec<Doc<'_>> = parsed
            .iter()
            .map(|(base, value)| Doc { base: *base, value })
            .collect();
        let mut formats = Vec::new();
        let mut read = crate::coverage::ReadCounts::default();
        if let (false, Some(adapter)) = (docs.is_empty(), self.kind.format().adapter()) {
            let (found, format, counts) =
                crate::lint::check_session(adapter, &docs, &source, opts, lossy);
            findings.extend(found);
            formats.extend(format);
            read = counts;
        }
        findings.retain(|f| opts.selection.is_enabled(f.rule.code));
        // Findings only: a fix would have to edit the files one by one.
        for finding in &mut findings {
            finding.fix = None;
        }
        FileReport {
            source,
            findings,
            outcome: Outcome::Checked(formats),
            read,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Places each diagnostic in the message file it is in: its name, and line and column
    /// counted in the file as written.
    pub fn relocate(&self, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            let at = self.lines.partition_point(|l| l.start <= d.start);
            let Some(line) = at.checked_sub(1).and_then(|i| self.lines.get(i)) else {
                continue;
            };
            let inside = |offset: usize| offset.saturating_sub(line.start).min(line.text.len());
            (d.line, d.column) = crate::source::line_col(&line.text, inside(d.start));
            (d.end_line, d.end_column) =
                crate::source::line_col(&line.text, inside(d.end.max(d.start)));
            d.path.clone_from(&line.name);
            d.base = line.start;
            d.fix = None;
            // Rules name other records by their line: here each is a file.
            d.message = crate::store::name_lines(&d.message, |i| {
                let name = &self.lines.get(i)?.name;
                Some(name.rsplit('/').next().unwrap_or(name).to_string())
            });
        }
    }
}
