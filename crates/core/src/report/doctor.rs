//! What `toolcheck doctor` prints: one block per agent in text, or one JSON object per
//! session (the schema is in docs/doctor.md).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::json;

use crate::agents::Agent;
use crate::escape;

/// How many broken sessions each agent's block lists.
const MOST_RECENT: usize = 5;

/// What checking one session found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Error-level findings: the provider rejects the history, so it will not resume.
    Broken,
    /// No error, but the agent invents results (or leaves calls out) when it resumes: the
    /// session resumes, and the model is shown what did not happen.
    Patched,
    /// Warnings only.
    Warnings,
    Clean,
    /// No reader in this version recognises it.
    NotRead(String),
    /// It could not be read (permissions, I/O).
    Unreadable(String),
}

impl Status {
    pub fn name(&self) -> &'static str {
        match self {
            Status::Broken => "broken",
            Status::Patched => "patched-on-resume",
            Status::Warnings => "warnings",
            Status::Clean => "clean",
            Status::NotRead(_) => "not-read",
            Status::Unreadable(_) => "unreadable",
        }
    }
}

/// The first error-level finding of a session.
#[derive(Debug, Clone)]
pub struct FirstError {
    pub code: &'static str,
    pub rule: &'static str,
    pub message: String,
    pub line: usize,
    pub column: usize,
    /// A database row's location (`db:table[rowid=N]/pointer`).
    pub location: Option<String>,
}

/// What `--fix` did to a session.
#[derive(Debug, Clone)]
pub enum FixOutcome {
    /// Fixes written; the old bytes are at `backup`.
    Fixed { applied: usize, backup: PathBuf },
    /// Left alone, and why.
    Skipped(String),
    /// The fix or its backup could not be written.
    Failed(String),
}

/// One session (a session file, or a database of sessions) and what checking it found.
#[derive(Debug, Clone)]
pub struct SessionReport {
    pub agent: Agent,
    pub path: PathBuf,
    /// The root it was found under.
    pub store: PathBuf,
    pub modified: Option<SystemTime>,
    pub status: Status,
    pub formats: Vec<&'static str>,
    pub conversations: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Findings with a safe fix.
    pub fixable: usize,
    /// Findings whose fix is unsafe (`fix --unsafe-fixes`), which `doctor --fix` leaves.
    pub unsafe_fixable: usize,
    pub first_error: Option<FirstError>,
    /// The defects the agent's replay model judged, with what the agent does on resume.
    pub replayed: Vec<ReplayedDefect>,
    pub fix: Option<FixOutcome>,
}

/// One defect as the agent resumes it.
#[derive(Debug, Clone)]
pub struct ReplayedDefect {
    pub code: &'static str,
    pub line: usize,
    pub column: usize,
    pub location: Option<String>,
    pub replay: crate::finding::Replayed,
}

impl SessionReport {
    /// The agent version the session records, where a replay model read it.
    pub fn agent_version(&self) -> Option<&str> {
        self.replayed
            .iter()
            .find_map(|r| r.replay.version.as_deref())
    }

    /// The session format's version, where that is all the session records of its writer.
    pub fn format_version(&self) -> Option<&str> {
        self.replayed
            .iter()
            .find_map(|r| r.replay.format_version.as_deref())
    }

    /// How many results the agent invents, or calls and results it leaves out, on resume.
    pub fn patched(&self) -> usize {
        self.replayed
            .iter()
            .filter(|r| r.replay.action.repairs())
            .count()
    }
}

/// A whole run, for the emitters.
pub struct DoctorReport<'a> {
    pub sessions: &'a [SessionReport],
    pub home: Option<&'a Path>,
    pub now: SystemTime,
    /// How many places were looked at.
    pub places: usize,
    /// Where this run's backups went, when `--fix` wrote any.
    pub backups: Option<&'a Path>,
    /// Sessions found but not modified within `--since`.
    pub left_out: usize,
    /// `--since`, when given.
    pub since: Option<Duration>,
    /// The colours of the text report.
    pub paint: super::paint::Paint,
}

/// `toolcheck fix --write <path>`, the path quoted for a POSIX shell (PowerShell and cmd
/// accept the same single quotes for paths without `'`).
pub fn fix_command(path: &Path) -> String {
    format!("toolcheck fix --write {}", shell_quote_path(path))
}

/// `path` as one shell word, from its bytes: a name that is not UTF-8 stays the same name.
pub fn shell_quote_path(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        match std::str::from_utf8(bytes) {
            Ok(text) => shell_quote(text),
            Err(_) => ansi_c_quote(bytes),
        }
    }
    #[cfg(not(unix))]
    shell_quote(&path.to_string_lossy())
}

/// `text` as one shell word: bare when it is only safe characters, else single-quoted; a
/// word with a control or bidi character is ANSI-C quoted (`$'…'`, bash and zsh) with those
/// written as `\xHH` bytes, so the command can be printed as it is and still runs.
pub fn shell_quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:,@%=".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        return text.to_string();
    }
    if text.chars().any(escape::is_unsafe) {
        return ansi_c_quote(text.as_bytes());
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `bytes` as a `$'…'` word: printable ASCII as itself (`\\` and `\'` escaped), every other
/// byte as `\xHH`.
fn ansi_c_quote(bytes: &[u8]) -> String {
    let mut out = String::from("$'");
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

/// A time as RFC 3339 UTC, to the second (`2026-11-25T19:55:01Z`).
pub fn utc(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

/// How long ago, roughly: `just now`, `5m ago`, `2h ago`, `3d ago`.
pub fn ago(now: SystemTime, then: SystemTime) -> String {
    let secs = now.duration_since(then).unwrap_or(Duration::ZERO).as_secs();
    match secs {
        0..60 => "just now".to_string(),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// `path` with the home directory shown as `~`.
fn shown(path: &Path, home: Option<&Path>) -> String {
    let text = match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => Path::new("~").join(rest).display().to_string(),
        None => path.display().to_string(),
    };
    escape::value(&text).into_owned()
}

/// A `--since` duration as it is written (`90m`, `2d`): in the largest unit that divides it.
fn duration(d: Duration) -> String {
    let secs = d.as_secs();
    let units = [(604_800, "w"), (86_400, "d"), (3_600, "h"), (60, "m")];
    units
        .iter()
        .find(|(size, _)| secs > 0 && secs.is_multiple_of(*size))
        .map_or_else(
            || format!("{secs}s"),
            |(size, unit)| format!("{}{unit}", secs / size),
        )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The text report: a block per agent with sessions, then the fixes and a summary line.
pub fn write_text(out: &mut dyn Write, report: &DoctorReport<'_>) -> io::Result<()> {
    let sessions = report.sessions;
    if sessions.is_empty() && report.left_out > 0 {
        // Sessions were found: "none found" would send the reader looking for them.
        return writeln!(
            out,
            "{} found, none modified in the last {}: nothing checked (a longer --since, or none, checks {})",
            plural(report.left_out, "agent session", "agent sessions"),
            report.since.map_or_else(|| "--since".to_string(), duration),
            if report.left_out == 1 { "it" } else { "them" }
        );
    }
    if sessions.is_empty() {
        return writeln!(
            out,
            "no agent sessions found (looked in {}; -v lists {})",
            plural(report.places, "place", "places"),
            if report.places == 1 { "it" } else { "them" }
        );
    }
    let home = report.home;
    let paint = report.paint;
    for agent in Agent::ALL {
        let mine: Vec<&SessionReport> = sessions.iter().filter(|s| s.agent == agent).collect();
        if mine.is_empty() {
            continue;
        }
        let mut stores: Vec<&Path> = mine.iter().map(|s| s.store.as_path()).collect();
        stores.dedup();
        let count = |f: &dyn Fn(&Status) -> bool| mine.iter().filter(|s| f(&s.status)).count();
        let broken = count(&|s| *s == Status::Broken);
        let patched = count(&|s| *s == Status::Patched);
        let warnings = count(&|s| *s == Status::Warnings);
        let not_read = count(&|s| matches!(s, Status::NotRead(_)));
        let unreadable = count(&|s| matches!(s, Status::Unreadable(_)));
        writeln!(
            out,
            "{}: {} checked in {}",
            paint.bold(agent.title()),
            plural(mine.len(), "session", "sessions"),
            plural(stores.len(), "store", "stores"),
        )?;
        for store in &stores {
            writeln!(out, "  store {}", shown(store, home))?;
        }
        let mut counts = vec![paint.error_if(broken, &format!("{broken} will not resume"))];
        if patched > 0 {
            counts.push(paint.warning(&format!(
                "{patched} resume{} with results {} invents",
                if patched == 1 { "s" } else { "" },
                agent.title()
            )));
        }
        counts.push(format!("{warnings} with warnings only"));
        if not_read > 0 {
            counts.push(format!("{not_read} not read by this version"));
        }
        if unreadable > 0 {
            counts.push(format!("{unreadable} could not be read"));
        }
        writeln!(out, "  {}", counts.join(", "))?;
        for s in mine
            .iter()
            .filter(|s| matches!(s.status, Status::Unreadable(_)))
        {
            if let Status::Unreadable(why) = &s.status {
                writeln!(
                    out,
                    "  cannot read {}: {}",
                    shown(&s.path, home),
                    escape::value(why)
                )?;
            }
        }
        write_recent(
            out,
            report,
            &mine,
            Status::Broken,
            "will not resume",
            &mut |out, s| write_broken(out, s, paint),
        )?;
        write_patched(out, report, &mine)?;
        writeln!(out)?;
    }
    write_fixes(out, report)?;
    let broken = sessions
        .iter()
        .filter(|s| s.status == Status::Broken)
        .count();
    let warnings = sessions
        .iter()
        .filter(|s| s.status == Status::Warnings)
        .count();
    let patched = sessions
        .iter()
        .filter(|s| s.status == Status::Patched)
        .count();
    let agents = Agent::ALL
        .iter()
        .filter(|a| sessions.iter().any(|s| s.agent == **a))
        .count();
    let patched = if patched > 0 {
        format!(
            ", {}",
            report.paint.warning(&format!(
                "{patched} resume{} with results the agent invents",
                if patched == 1 { "s" } else { "" }
            ))
        )
    } else {
        String::new()
    };
    // The sessions --since left out are counted, so the total is what was found.
    let left_out = match (report.left_out, report.since) {
        (0, _) => String::new(),
        (n, since) => format!(
            " ({n} more not modified in the last {}, left out)",
            since.map_or_else(|| "--since".to_string(), duration)
        ),
    };
    write!(
        out,
        "Checked {} of {}{left_out}: {}{patched}, {warnings} with warnings only.",
        plural(sessions.len(), "session", "sessions"),
        plural(agents, "agent", "agents"),
        report
            .paint
            .error_if(broken, &format!("{broken} will not resume")),
    )?;
    let fixable = sessions
        .iter()
        .filter(|s| {
            matches!(s.status, Status::Broken | Status::Patched) && s.fixable > 0 && s.fix.is_none()
        })
        .count();
    if fixable > 0 {
        write!(
            out,
            " {} can be repaired: `toolcheck doctor --fix` repairs {}, keeping backups.",
            plural(fixable, "session", "sessions"),
            if fixable == 1 { "it" } else { "them" }
        )?;
    }
    writeln!(out)
}

/// The sessions that resume because the agent invents results for them, newest first.
fn write_patched(
    out: &mut dyn Write,
    report: &DoctorReport<'_>,
    mine: &[&SessionReport],
) -> io::Result<()> {
    write_recent(
        out,
        report,
        mine,
        Status::Patched,
        "resume with invented results",
        &mut |out, s| {
            let n = s.patched();
            let version = match (s.agent_version(), s.format_version()) {
                (Some(v), _) => format!(" {v}"),
                (None, Some(f)) => format!(" (session format {f})"),
                (None, None) => String::new(),
            };
            let shown_instead = s
                .replayed
                .iter()
                .find_map(|r| r.replay.placeholder)
                .map(|p| format!(", answering {}", escape::value(&format!("{p:?}"))))
                .unwrap_or_default();
            writeln!(
                out,
                "      {}: {}{version} papers over {} on resume{shown_instead}",
                plural(n, "defect", "defects"),
                s.agent.title(),
                if n == 1 { "it" } else { "them" },
            )?;
            if s.fixable > 0 {
                writeln!(
                    out,
                    "      record what is known instead: {}",
                    escape::value(&fix_command(&s.path))
                )?;
            }
            Ok(())
        },
    )
}

/// What a session that will not resume is: its first error, how many more, and its repair.
fn write_broken(
    out: &mut dyn Write,
    s: &SessionReport,
    paint: super::paint::Paint,
) -> io::Result<()> {
    if let Some(e) = &s.first_error {
        let at = e
            .location
            .clone()
            .unwrap_or_else(|| format!("{}:{}", e.line, e.column));
        writeln!(
            out,
            "      {at}: {} [{}] {}",
            paint.error(e.code),
            e.rule,
            escape::value(&e.message)
        )?;
    }
    let more = s.errors.saturating_sub(1);
    if more > 0 {
        writeln!(
            out,
            "      and {more} more {}",
            if more == 1 { "error" } else { "errors" }
        )?;
    }
    if s.fixable > 0 {
        writeln!(
            out,
            "      repair: {}",
            escape::value(&fix_command(&s.path))
        )
    } else if s.unsafe_fixable > 0 {
        writeln!(
            out,
            "      repair (unsafe: review the diff first): {} --unsafe-fixes",
            escape::value(&fix_command(&s.path))
        )
    } else {
        writeln!(
            out,
            "      no automatic repair: see {}",
            escape::value(&format!("toolcheck lint {}", shell_quote_path(&s.path)))
        )
    }
}

/// The agent's most recent sessions of `status`, newest first (ties by path, so the order
/// never depends on the walk), each with its modification time and what `each` says of it,
/// and how many more there are.
fn write_recent(
    out: &mut dyn Write,
    report: &DoctorReport<'_>,
    mine: &[&SessionReport],
    status: Status,
    what: &str,
    each: &mut dyn FnMut(&mut dyn Write, &SessionReport) -> io::Result<()>,
) -> io::Result<()> {
    let mut list: Vec<&&SessionReport> = mine.iter().filter(|s| s.status == status).collect();
    if list.is_empty() {
        return Ok(());
    }
    list.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    writeln!(out, "  most recent sessions that {what}:")?;
    for s in list.iter().take(MOST_RECENT) {
        let when = s
            .modified
            .map(|m| format!(" (modified {})", ago(report.now, m)))
            .unwrap_or_default();
        writeln!(out, "    {}{when}", shown(&s.path, report.home))?;
        each(out, s)?;
    }
    if list.len() > MOST_RECENT {
        writeln!(
            out,
            "    and {} more (--output-format json lists every session)",
            list.len() - MOST_RECENT
        )?;
    }
    Ok(())
}

/// What `--fix` did, session by session.
fn write_fixes(out: &mut dyn Write, report: &DoctorReport<'_>) -> io::Result<()> {
    let home = report.home;
    let with_fix: Vec<&SessionReport> =
        report.sessions.iter().filter(|s| s.fix.is_some()).collect();
    if with_fix.is_empty() {
        return Ok(());
    }
    writeln!(out, "Fixes:")?;
    for s in with_fix {
        let path = shown(&s.path, home);
        match &s.fix {
            Some(FixOutcome::Fixed { applied, backup }) => {
                let left = if s.errors + s.warnings > 0 {
                    format!(
                        "; {} left ({})",
                        plural(s.errors + s.warnings, "finding", "findings"),
                        if s.status == Status::Broken {
                            "still will not resume"
                        } else {
                            "it resumes now"
                        }
                    )
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "  fixed {path}: {}{left}\n    backup: {}",
                    plural(*applied, "finding", "findings"),
                    shown(backup, home)
                )?;
            }
            Some(FixOutcome::Skipped(why)) => {
                writeln!(out, "  skipped {path}: {}", escape::value(why))?;
            }
            Some(FixOutcome::Failed(why)) => {
                writeln!(out, "  failed {path}: {}", escape::value(why))?;
            }
            None => {}
        }
    }
    if let Some(dir) = report.backups {
        writeln!(
            out,
            "Backups of the files changed are in {}",
            shown(dir, home)
        )?;
    }
    writeln!(out)
}

/// The JSON report: an array of one object per session, in path order within each agent.
pub fn write_json(out: &mut dyn Write, report: &DoctorReport<'_>) -> io::Result<()> {
    let objects: Vec<serde_json::Value> = report.sessions.iter().map(session_json).collect();
    serde_json::to_writer_pretty(&mut *out, &objects)?;
    writeln!(out)
}

/// Whether the session resumes, as the agent will send it.
fn verdict(status: &Status) -> Option<&'static str> {
    match status {
        Status::Broken => Some("will-not-resume"),
        Status::Patched => Some("resumes-with-invented-results"),
        Status::Warnings | Status::Clean => Some("resumes"),
        Status::NotRead(_) | Status::Unreadable(_) => None,
    }
}

fn session_json(s: &SessionReport) -> serde_json::Value {
    let first_error = s.first_error.as_ref().map(|e| {
        let mut v = json!({
            "code": e.code,
            "rule": e.rule,
            "message": e.message,
            "line": e.line,
            "column": e.column,
        });
        if let (Some(loc), Some(obj)) = (&e.location, v.as_object_mut()) {
            obj.insert("location".into(), json!(loc));
        }
        v
    });
    let reason = match &s.status {
        Status::NotRead(why) | Status::Unreadable(why) => Some(why.clone()),
        _ => None,
    };
    let replayed: Vec<serde_json::Value> = s
        .replayed
        .iter()
        .map(|r| {
            let mut v =
                json!({"code": r.code, "line": r.line, "column": r.column, "replay": r.replay});
            if let (Some(loc), Some(obj)) = (&r.location, v.as_object_mut()) {
                obj.insert("location".into(), json!(loc));
            }
            v
        })
        .collect();
    let fix = s.fix.as_ref().map(|f| match f {
        FixOutcome::Fixed { applied, backup } => {
            json!({"result": "fixed", "applied": applied, "backup": backup.display().to_string()})
        }
        FixOutcome::Skipped(why) => json!({"result": "skipped", "reason": why}),
        FixOutcome::Failed(why) => json!({"result": "failed", "reason": why}),
    });
    json!({
        "agent": s.agent.name(),
        "path": s.path.display().to_string(),
        "store": s.store.display().to_string(),
        "modified": s.modified.map(utc),
        "status": s.status.name(),
        "reason": reason,
        "formats": s.formats,
        "conversations": s.conversations,
        "counts": {"errors": s.errors, "warnings": s.warnings, "fixable": s.fixable},
        "first_error": first_error,
        "agent_version": s.agent_version(),
        "format_version": s.format_version(),
        "verdict": verdict(&s.status),
        "replayed": replayed,
        "fix_command": (matches!(s.status, Status::Broken | Status::Patched) && s.fixable > 0).then(|| fix_command(&s.path)),
        "fix": fix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_is_shown_as_written() {
        assert_eq!(duration(Duration::from_secs(90 * 60)), "90m");
        assert_eq!(duration(Duration::from_secs(2 * 86_400)), "2d");
        assert_eq!(duration(Duration::from_secs(14 * 86_400)), "2w");
        assert_eq!(duration(Duration::from_secs(45)), "45s");
        assert_eq!(duration(Duration::ZERO), "0s");
    }

    #[test]
    fn dates() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_636_501);
        assert_eq!(utc(t), "2026-11-25T19:55:01Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(utc(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/a/b.jsonl"), "/a/b.jsonl");
        assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
        assert_eq!(shell_quote("/it's"), r"'/it'\''s'");
        assert_eq!(shell_quote(""), "''");
        // Control and bidi characters: a word that still names the file when run.
        assert_eq!(shell_quote("/a\nb"), r"$'/a\x0ab'");
        assert_eq!(shell_quote("/it's\u{202e}\\"), r"$'/it\'s\xe2\x80\xae\\'");
        assert_eq!(
            escape::value(&shell_quote("/a\u{1b}[31m")),
            shell_quote("/a\u{1b}[31m")
        );
    }

    #[test]
    fn ages() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let before = |s| ago(now, now - Duration::from_secs(s));
        assert_eq!(before(5), "just now");
        assert_eq!(before(7200 + 300), "2h ago");
        assert_eq!(before(3 * 86_400), "3d ago");
    }
}
