//! `toolcheck doctor`: finds every coding agent's session stores (`agents/`), lints them
//! read-only on the thread pool through the same pipeline as `lint` (`input.rs`), and
//! reports per agent which sessions will not resume. With `--fix`, the safe fixes of the
//! broken sessions go through the fix engine as `fix --write` applies them, each changed
//! file backed up first.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use clap::Parser;
use rayon::prelude::*;

use crate::agents::{self, Agent, Env, LookedWhat, Store};
use crate::cli::{Cli, Command, DoctorArgs, DoctorFormat};
use crate::escape;
use crate::finding::Severity;
use crate::lint::{Outcome, SourceName};
use crate::report::doctor::{
    self as out, DoctorReport, FirstError, FixOutcome, ReplayedDefect, SessionReport, Status,
};
use crate::settings::{Resolver, Settings};

use super::backup;
use super::output::{output_error, usage_error};
use super::prepare::diagnostics_of;
use super::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS};

/// A session modified more recently than this may still be written by its agent.
const IN_USE: Duration = Duration::from_secs(60);

pub(super) fn doctor_command(args: &DoctorArgs) -> u8 {
    if let Some(dir) = &args.restore {
        return restore_command(dir, args.force);
    }
    if let Some(threads) = args.threads {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global();
    }
    let env = Env::from_process();
    let mut chosen: Vec<Agent> = args
        .agent
        .iter()
        .filter_map(|name| Agent::from_name(name))
        .collect();
    if chosen.is_empty() {
        chosen = Agent::ALL.to_vec();
    }
    chosen.sort();
    chosen.dedup();
    let settings = match default_settings() {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let found = agents::find(&agents::locations(&env, &chosen));
    let now = SystemTime::now();
    let stores: Vec<&Store> = found
        .stores
        .iter()
        .filter(|s| match args.since {
            // A session whose time cannot be read is kept: better checked than missed.
            Some(since) => s
                .modified
                .is_none_or(|m| now.duration_since(m).is_ok_and(|d| d <= since) || m > now),
            None => true,
        })
        .collect();

    let progress = crate::progress::Progress::new(stores.len(), false);
    let mut sessions: Vec<SessionReport> = stores
        .par_iter()
        .map(|store| {
            let report = check(store, &settings);
            progress.file_done(
                usize::try_from(store.size).unwrap_or(usize::MAX),
                report.errors + report.warnings,
            );
            report
        })
        .collect();
    progress.finish();

    let mut exit = EXIT_CLEAN;
    let mut run = env
        .state_dir()
        .map(|d| backup::Run::new(d.join("backups"), now));
    if args.fix {
        for (session, store) in sessions.iter_mut().zip(&stores) {
            // A session the agent papers over is fixed too: the fix records what is known
            // (no result) in place of the result the agent would invent.
            if !matches!(session.status, Status::Broken | Status::Patched) {
                continue;
            }
            let outcome = fix_one(store, &settings, run.as_mut(), args.force);
            if let FixOutcome::Fixed { .. } = outcome {
                *session = check(store, &settings);
                // The time of the file as written.
                session.modified = std::fs::metadata(&store.path)
                    .and_then(|m| m.modified())
                    .ok();
            }
            if let FixOutcome::Failed(_) = outcome {
                exit = EXIT_ERROR;
            }
            session.fix = Some(outcome);
        }
    }
    let backups = run.as_ref().and_then(|r| r.dir());

    if args.verbose {
        for looked in &found.looked {
            let what = match &looked.what {
                LookedWhat::Found(n) => format!("{n} found"),
                LookedWhat::Missing => "not there".to_string(),
                LookedWhat::Duplicate => "already looked at".to_string(),
                LookedWhat::Skipped(why) => format!("skipped: {why}"),
                LookedWhat::Unreadable(why) => format!("cannot read: {why}"),
            };
            eprintln!(
                "looked in {} ({}, {}): {what}",
                escape::value(&looked.path.display().to_string()),
                looked.agent.name(),
                looked.origin
            );
        }
        let left_out = found.stores.len() - stores.len();
        if left_out > 0 {
            eprintln!("left out {left_out} not modified within --since");
        }
    }
    if !args.verbose {
        // Without -v an exit of 2 would not say why: each place that could not be read is
        // named.
        for looked in &found.looked {
            if let LookedWhat::Unreadable(why) = &looked.what {
                eprintln!(
                    "toolcheck doctor: cannot read {} ({}): {why}",
                    escape::value(&looked.path.display().to_string()),
                    looked.agent.name(),
                );
            }
        }
    }
    if found.unreadable() > 0
        || sessions
            .iter()
            .any(|s| matches!(s.status, Status::Unreadable(_)))
    {
        exit = EXIT_ERROR;
    }

    let report = DoctorReport {
        sessions: &sessions,
        home: env.home.as_deref(),
        now,
        places: found.places(),
        backups,
        left_out: found.stores.len() - stores.len(),
        since: args.since,
        paint: crate::report::paint::Paint::new(super::output::use_color(args.color)),
    };
    let mut stdout = crate::stdout::stdout();
    let written = match args.output_format {
        DoctorFormat::Text => out::write_text(&mut stdout, &report),
        DoctorFormat::Json => out::write_json(&mut stdout, &report),
    };
    if let Err(e) = written.and_then(|()| std::io::Write::flush(&mut stdout)) {
        return output_error(&e);
    }
    if exit == EXIT_CLEAN && sessions.iter().any(|s| s.status == Status::Broken) {
        exit = EXIT_FINDINGS;
    }
    exit
}

/// The settings every session is checked with: the defaults, since the sessions live in
/// the agents' directories, not in a project with a `toolcheck.toml`.
fn default_settings() -> Result<Arc<Settings>, u8> {
    let common = match Cli::try_parse_from(["toolcheck", "lint", "--no-config"]) {
        Ok(Cli {
            command: Command::Lint(args),
        }) => args.common,
        _ => return Err(usage_error("cannot build the default settings")),
    };
    let mut resolver = Resolver::new(&common, None).map_err(|e| usage_error(&e))?;
    resolver
        .for_dir(Path::new("."))
        .map_err(|e| usage_error(&e))
}

fn source_name(store: &Store) -> SourceName {
    SourceName {
        name: store.path.display().to_string(),
        path: Some(store.path.clone()),
    }
}

/// Lints one store read-only, as `lint` would a file met in a directory walk (so a file no
/// reader knows is not read, rather than an error).
fn check(store: &Store, settings: &Settings) -> SessionReport {
    let mut report = SessionReport {
        agent: store.agent,
        path: store.path.clone(),
        store: store.root.clone(),
        modified: store.modified,
        status: Status::Clean,
        formats: Vec::new(),
        conversations: 0,
        errors: 0,
        warnings: 0,
        fixable: 0,
        unsafe_fixable: 0,
        first_error: None,
        replayed: Vec::new(),
        fix: None,
    };
    let name = source_name(store);
    let linted = crate::input::open(Some(&store.path), &name.name, None, settings.limit)
        .and_then(|opened| crate::input::lint(opened, name, false, &settings.opts));
    let linted = match linted {
        Ok(linted) => linted,
        Err(message) => {
            report.status = Status::Unreadable(message.to_string());
            return report;
        }
    };
    let outcome = linted.report.outcome.clone();
    report.conversations = linted.report.read.conversations;
    let (diagnostics, _) =
        linted.place(&|source, findings| diagnostics_of(source, findings, settings));
    match outcome {
        Outcome::Skipped(reason) => {
            report.status = Status::NotRead(reason.reason);
            return report;
        }
        Outcome::Checked(formats) => report.formats = formats.iter().map(|f| f.name()).collect(),
    }
    report.errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    report.warnings = diagnostics.len() - report.errors;
    let with_fix = |kind: crate::finding::Applicability| {
        diagnostics
            .iter()
            .filter(|d| d.fix.as_ref().is_some_and(|f| f.applicability == kind))
            .count()
    };
    report.fixable = with_fix(crate::finding::Applicability::Safe);
    report.unsafe_fixable = with_fix(crate::finding::Applicability::Unsafe);
    report.first_error = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| FirstError {
            code: d.code,
            rule: d.rule,
            message: d.message.clone(),
            line: d.line,
            column: d.column,
            location: d.location.clone(),
        });
    report.replayed = diagnostics
        .iter()
        .filter_map(|d| {
            Some(ReplayedDefect {
                code: d.code,
                line: d.line,
                column: d.column,
                location: d.location.clone(),
                replay: d.replay.clone()?,
            })
        })
        .collect();
    report.status = if report.errors > 0 {
        Status::Broken
    } else if report.patched() > 0 {
        Status::Patched
    } else if report.warnings > 0 {
        Status::Warnings
    } else {
        Status::Clean
    };
    report
}

/// Why `path` may still be written by its agent, read now: modified in the last
/// [`IN_USE`] (unless `force`). A session listed a while ago may have been written since.
fn in_use(path: &Path, force: bool) -> Option<String> {
    if force {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    let modified = agents::last_modified(path, &meta)?;
    let now = SystemTime::now();
    let since = now.duration_since(modified).unwrap_or(Duration::ZERO);
    (since < IN_USE).then(|| {
        format!(
            "in use? modified {}; rerun with --force once its agent has stopped",
            out::ago(now, modified)
        )
    })
}

/// Applies one broken session's safe fixes, after backing it up in `run`. The in-use guard
/// is read before the session is read and again right before it is written.
fn fix_one(
    store: &Store,
    settings: &Settings,
    run: Option<&mut backup::Run>,
    force: bool,
) -> FixOutcome {
    if let Some(why) = in_use(&store.path, force) {
        return FixOutcome::Skipped(why);
    }
    let Some(run) = run else {
        return FixOutcome::Failed("no place for backups: set XDG_STATE_HOME or HOME".to_string());
    };
    let name = source_name(store);
    let fixed = crate::input::open(Some(&store.path), &name.name, None, settings.limit)
        .and_then(|opened| crate::input::fix(opened, &name, false, &settings.opts, false));
    let fixed = match fixed {
        Ok(fixed) => fixed,
        Err(message) => return FixOutcome::Failed(message.to_string()),
    };
    if !fixed.file.changed() {
        return FixOutcome::Skipped("no automatic fix for its errors".to_string());
    }
    if let Some(why) = in_use(&store.path, force) {
        return FixOutcome::Skipped(why);
    }
    let kind = if fixed.is_store() {
        backup::Kind::Sqlite
    } else {
        backup::Kind::File
    };
    let backup = match run.back_up(&store.path, kind) {
        Ok(backup) => backup,
        Err(e) => return FixOutcome::Failed(format!("cannot back it up: {e}")),
    };
    let written = fixed.write(&store.path, &name.name);
    run.finished(written.is_ok());
    match written {
        Ok(()) => FixOutcome::Fixed {
            applied: fixed.file.applied,
            backup,
        },
        Err(e) => FixOutcome::Failed(format!("cannot write it: {e}")),
    }
}

/// `doctor --restore DIR`: puts back what one `doctor --fix` run changed.
fn restore_command(dir: &Path, force: bool) -> u8 {
    let restored = match backup::restore(dir, force) {
        Ok(restored) => restored,
        Err(e) => {
            eprintln!("toolcheck doctor: {}", escape::value(&e));
            return EXIT_ERROR;
        }
    };
    let mut exit = EXIT_CLEAN;
    let mut stdout = crate::stdout::stdout();
    let mut lines = String::new();
    for r in &restored {
        let path = escape::value(&r.original.display().to_string()).into_owned();
        match &r.outcome {
            Ok(()) => lines.push_str(&format!("restored {path}\n")),
            Err(why) => {
                exit = EXIT_ERROR;
                lines.push_str(&format!("not restored {path}: {}\n", escape::value(why)));
            }
        }
    }
    if restored.is_empty() {
        lines.push_str("nothing to restore: the run backed up no file\n");
    }
    if let Err(e) = std::io::Write::write_all(&mut stdout, lines.as_bytes())
        .and_then(|()| std::io::Write::flush(&mut stdout))
    {
        return output_error(&e);
    }
    exit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_in_use_guard_reads_the_file_now_not_the_listing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("session.jsonl");
        std::fs::write(&path, "{}\n").expect("write");
        // Listed as written a day ago; written again since, as doctor ran.
        let store = Store {
            agent: Agent::ALL[0],
            path: path.clone(),
            root: dir.path().to_path_buf(),
            modified: Some(SystemTime::now() - Duration::from_secs(86_400)),
            size: 3,
        };
        let settings = default_settings().expect("settings");
        let mut run = backup::Run::new(dir.path().join("backups"), SystemTime::now());
        match fix_one(&store, &settings, Some(&mut run), false) {
            FixOutcome::Skipped(why) => assert!(why.starts_with("in use?"), "{why}"),
            other => panic!("not skipped: {other:?}"),
        }
        assert!(run.dir().is_none(), "nothing was backed up");
        assert_eq!(in_use(&path, true), None);
        let old = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(old))
            .expect("set mtime");
        assert_eq!(in_use(&path, false), None);
        // A database written in its `-wal` just now is in use.
        std::fs::write(dir.path().join("session.jsonl-wal"), "").expect("wal");
        assert!(in_use(&path, false).is_some());
    }
}
