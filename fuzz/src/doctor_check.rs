//! The `doctor` target's check: bytes → a fake home directory (in a fresh directory) with
//! session files and databases where `src/agents/` looks for a dozen agents → `toolcheck
//! doctor` as the command line runs it (`app::run_code`, the process environment pointed at
//! the fake home) → invariants on every file.
//!
//! An input is one option byte `g`, then files:
//!
//! * `g`: bit 0 runs `doctor --fix --force`; bit 1 (without bit 0) `doctor --fix`, which
//!   leaves sessions modified in the last minute alone; bit 2 `-v`; bit 3 `--output-format
//!   json`; bit 4 sets `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME` to directories
//!   outside the home (else unset: `~/.config` …); bit 5 moves agents' roots by their own
//!   variables, as `~/…` paths (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GOOSE_PATH_ROOT`,
//!   `OPENCODE_DB` relative to opencode's data directory); bit 6 adds `--agent` for the first
//!   file's agent; bit 7 adds `--since 1h`;
//! * the rest is files separated by `0xFF`, at most 32. A file's first byte `p` says where it
//!   goes and how, the bytes after it are its content: `(p & 31) % PLACES.len()` picks the
//!   place ([`PLACES`]: sessions of each agent, a database of each that keeps one, an
//!   OpenClaw artifact and a file no pattern names, both never sessions); bit 5 makes it two
//!   hours old (else just written, so "in use" for `--fix`); bits 6–7: a regular file, a
//!   symbolic link to a file outside the home holding the bytes, a read-only file, or (for a
//!   database) the bytes themselves rather than the database the `store` target builds from
//!   them (`store_check::build_input`: a database's bytes are a `store` input, its rows
//!   separated by `0xFD` instead of `0xFF`).
//!
//! Invariants (named for `TOOLCHECK_FUZZ_ALLOW`, `fuzz/src/support.rs`):
//!
//! * `read-only`: without `--fix` (or with it, but no session old enough and no `--force`),
//!   doctor changes, creates and removes nothing anywhere in the directory;
//! * `untouched`: with `--fix`, doctor changes only regular files at session places of the
//!   agents asked for (never a link, its target outside the home, a read-only file, an
//!   artifact, a file no pattern names, one left out by `--since`, or one "in use" without
//!   `--force`), and creates only backups under `$XDG_STATE_HOME/toolcheck/backups/`;
//! * `backup`: each backup holds the bytes of the session whose absolute path it mirrors, as
//!   they were before the fix;
//! * `idempotent`: running the same doctor command again changes nothing (but for one more
//!   backup of each read-only session, which doctor backs up before it fails to write it).
//!
//! The process environment is changed for the run (every variable `src/agents/` reads is set
//! or removed) and put back afterwards; doctor's report goes to /dev/null.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use clap::Parser;
use toolcheck::cli::Cli;

use super::support::{changed_paths, fail, tree, Entry, TempDir};

/// The most files an input makes.
const MAX_FILES: usize = 32;

/// Every variable `src/agents/` reads (a test holds this list to that file).
const VARS: [&str; 29] = [
    "APPDATA",
    "CLAUDE_CONFIG_DIR",
    "CLAWDBOT_STATE_DIR",
    "CLINE_DATA_DIR",
    "CLINE_DB_DATA_DIR",
    "CLINE_DIR",
    "CLINE_SESSION_DATA_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "CRUSH_GLOBAL_DATA",
    "DSH_HOME",
    "FACTORY_HOME_OVERRIDE",
    "GEMINI_CLI_HOME",
    "GOOSE_PATH_ROOT",
    "HERMES_HOME",
    "HOME",
    "KILO_DB",
    "KIMI_SHARE_DIR",
    "LOCALAPPDATA",
    "OMP_CODING_AGENT_DIR",
    "OPENCLAW_HOME",
    "OPENCLAW_STATE_DIR",
    "OPENCODE_DB",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "USERPROFILE",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
];

/// The directory a place is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Home,
    /// `~/.claude`, or `$CLAUDE_CONFIG_DIR`.
    Claude,
    /// `~/.codex`, or `$CODEX_HOME`.
    Codex,
    /// `~/.config`, or `$XDG_CONFIG_HOME`.
    Config,
    /// `~/.local/share`, or `$XDG_DATA_HOME`.
    Data,
    /// `<data>/goose`, or `$GOOSE_PATH_ROOT/data`.
    Goose,
}

/// A place a file can go: its agent (`--agent` name), base, path (`{n}` is the file's
/// number; `{db}` opencode's database name), whether it is a database, and whether doctor
/// reads it as a session.
struct Place {
    agent: &'static str,
    base: Base,
    path: &'static str,
    db: bool,
    session: bool,
}

const fn place(agent: &'static str, base: Base, path: &'static str, db: bool) -> Place {
    Place {
        agent,
        base,
        path,
        db,
        session: true,
    }
}

/// Where `src/agents/` looks on Linux, one or two places per agent, and two files that are
/// never sessions.
const PLACES: [Place; 30] = [
    place("claude-code", Base::Claude, "projects/-home-p/{n}.jsonl", false),
    place("claude-code", Base::Claude, "projects/-home-p/s{n}/subagents/agent-{n}.jsonl", false),
    place("claude-code", Base::Config, "claude/projects/-home-p/{n}.jsonl", false),
    place("codex", Base::Codex, "sessions/2026/01/02/rollout-{n}.jsonl", false),
    place("codex", Base::Codex, "archived_sessions/rollout-{n}.jsonl", false),
    place("pi", Base::Home, ".pi/agent/sessions/--home-p--/{n}.jsonl", false),
    place("pi", Base::Home, ".pi/agent/sessions.sqlite", true),
    place("oh-my-pi", Base::Home, ".omp/agent/sessions/{n}.jsonl", false),
    place("openclaw", Base::Home, ".openclaw/agents/main/sessions/{n}.jsonl", false),
    Place {
        session: false,
        ..place("openclaw", Base::Home, ".openclaw/agents/main/sessions/{n}.checkpoint.1.jsonl", false)
    },
    place("openclaw", Base::Home, ".openclaw/agents/main/agent/openclaw-agent.sqlite", true),
    place(
        "cline",
        Base::Home,
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/{n}/api_conversation_history.json",
        false,
    ),
    place(
        "roo-code",
        Base::Home,
        ".config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks/{n}/api_conversation_history.json",
        false,
    ),
    place(
        "kilo-code",
        Base::Home,
        ".vscode-server/data/User/globalStorage/kilocode.kilo-code/tasks/{n}/api_conversation_history.json",
        false,
    ),
    place("kilo-code", Base::Data, "kilo/kilo.db", true),
    place("cline", Base::Home, ".cline/data/sessions/{n}/{n}.messages.json", false),
    place("opencode", Base::Data, "opencode/{db}", true),
    place("opencode", Base::Data, "opencode/opencode-dev.db", true),
    place("copilot-cli", Base::Home, ".copilot/session-state/{n}/events.jsonl", false),
    place("copilot-cli", Base::Home, ".copilot/history-session-state/{n}.json", false),
    place("goose", Base::Goose, "sessions/sessions.db", true),
    place("goose", Base::Goose, "sessions/{n}.jsonl", false),
    place("gemini-cli", Base::Home, ".gemini/tmp/h{n}/chats/session-{n}.json", false),
    place("gemini-cli", Base::Home, ".gemini/tmp/h{n}/chats/session-{n}.jsonl", false),
    place("qwen-code", Base::Home, ".qwen/projects/p/chats/{n}.jsonl", false),
    Place {
        session: false,
        ..place("claude-code", Base::Claude, "projects/-home-p/{n}.txt", false)
    },
    place("kimi-cli", Base::Home, ".kimi/sessions/a409a57d/s{n}/context.jsonl", false),
    place("hermes", Base::Home, ".hermes/state.db", true),
    place("droid", Base::Home, ".factory/sessions/-home-p/{n}.jsonl", false),
    place("deepseek-harness", Base::Home, ".dsh/sessions/--home-p--/s{n}/session.jsonl.zstd", false),
];

/// What the option byte decides.
#[derive(Debug)]
struct Setup {
    fix: bool,
    force: bool,
    verbose: bool,
    json: bool,
    xdg: bool,
    moved: bool,
    only_first: bool,
    since: bool,
}

impl Setup {
    fn new(g: u8) -> Setup {
        Setup {
            fix: g & 3 != 0,
            force: g & 1 != 0,
            verbose: g & 4 != 0,
            json: g & 8 != 0,
            xdg: g & 16 != 0,
            moved: g & 32 != 0,
            only_first: g & 64 != 0,
            since: g & 128 != 0,
        }
    }
}

/// The directories of one input: the home, the XDG directories outside it, and where link
/// targets go.
struct Dirs {
    home: PathBuf,
    xdg: PathBuf,
    outside: PathBuf,
}

impl Dirs {
    fn config(&self, setup: &Setup) -> PathBuf {
        match setup.xdg {
            true => self.xdg.join("config"),
            false => self.home.join(".config"),
        }
    }

    fn data(&self, setup: &Setup) -> PathBuf {
        match setup.xdg {
            true => self.xdg.join("data"),
            false => self.home.join(".local/share"),
        }
    }

    fn state(&self, setup: &Setup) -> PathBuf {
        match setup.xdg {
            true => self.xdg.join("state"),
            false => self.home.join(".local/state"),
        }
    }

    fn base(&self, setup: &Setup, base: Base) -> PathBuf {
        match (base, setup.moved) {
            (Base::Home, _) => self.home.clone(),
            (Base::Claude, false) => self.home.join(".claude"),
            (Base::Claude, true) => self.home.join("claude-alt"),
            (Base::Codex, false) => self.home.join(".codex"),
            (Base::Codex, true) => self.home.join("codex-alt"),
            (Base::Config, _) => self.config(setup),
            (Base::Data, _) => self.data(setup),
            (Base::Goose, false) => self.data(setup).join("goose"),
            (Base::Goose, true) => self.home.join("goose-root/data"),
        }
    }

    /// The variables doctor runs with; every other one of [`VARS`] is removed.
    fn vars(&self, setup: &Setup) -> Vec<(&'static str, String)> {
        let mut vars = vec![("HOME", self.home.display().to_string())];
        if setup.xdg {
            for (name, dir) in [
                ("XDG_CONFIG_HOME", self.config(setup)),
                ("XDG_DATA_HOME", self.data(setup)),
                ("XDG_STATE_HOME", self.state(setup)),
            ] {
                vars.push((name, dir.display().to_string()));
            }
        }
        if setup.moved {
            vars.extend([
                ("CLAUDE_CONFIG_DIR", "~/claude-alt".to_string()),
                ("CODEX_HOME", "~/codex-alt".to_string()),
                ("GOOSE_PATH_ROOT", "~/goose-root".to_string()),
                ("OPENCODE_DB", "custom.db".to_string()),
            ]);
        }
        vars
    }
}

/// One file written: where (relative to the input's directory), its place, and how.
#[derive(Debug)]
struct Written {
    path: PathBuf,
    place: usize,
    old: bool,
    /// 0 regular, 1 a link, 2 read-only, 3 raw bytes.
    how: u8,
}

fn build(root: &Path, dirs: &Dirs, setup: &Setup, files: &[(u8, &[u8])]) -> Vec<Written> {
    let mut out: Vec<Written> = Vec::new();
    std::fs::create_dir_all(&dirs.home).expect("the fuzz target makes the home");
    std::fs::create_dir_all(&dirs.outside).expect("the fuzz target makes its directories");
    let db_name = if setup.moved {
        "custom.db"
    } else {
        "opencode.db"
    };
    for (n, (p, bytes)) in files.iter().take(MAX_FILES).enumerate() {
        let index = usize::from(p & 31) % PLACES.len();
        let place = &PLACES[index];
        let rel = place
            .path
            .replace("{n}", &format!("{n}"))
            .replace("{db}", db_name);
        let path = dirs.base(setup, place.base).join(rel);
        if path.exists() || std::fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the fuzz target makes its directories");
        }
        let how = p >> 6;
        let old = p & 32 != 0;
        let target = match how {
            1 => dirs.outside.join(format!("{n}")),
            _ => path.clone(),
        };
        // `0xFF` ends the file here, so a database's rows are separated by `0xFD` (which
        // UTF-8 never holds either).
        let built = place.db && how != 3 && {
            let store: Vec<u8> = bytes
                .iter()
                .map(|&b| if b == 0xFD { 0xFF } else { b })
                .collect();
            super::store_check::build_input(&target, &store)
        };
        if !built {
            drop(std::fs::remove_file(&target));
            std::fs::write(&target, bytes).expect("the fuzz target writes its files");
        }
        if old {
            let file = std::fs::File::options().write(true).open(&target);
            if let Ok(file) = file {
                let _ = file.set_modified(SystemTime::now() - Duration::from_secs(7200));
            }
        }
        match how {
            #[cfg(unix)]
            1 => std::os::unix::fs::symlink(&target, &path).expect("the fuzz target makes links"),
            2 => {
                let mut perms = std::fs::metadata(&path)
                    .expect("the fuzz target's file")
                    .permissions();
                perms.set_readonly(true);
                std::fs::set_permissions(&path, perms).expect("the fuzz target sets permissions");
            }
            _ => {}
        }
        out.push(Written {
            path: path.strip_prefix(root).unwrap_or(&path).to_path_buf(),
            place: index,
            old,
            how,
        });
    }
    out
}

/// Puts every variable of [`VARS`] back as it was when dropped.
struct Environment(Vec<(&'static str, Option<OsString>)>);

impl Environment {
    fn set(vars: &[(&'static str, String)]) -> Environment {
        let saved = VARS.iter().map(|v| (*v, std::env::var_os(v))).collect();
        for v in VARS {
            match vars.iter().find(|(name, _)| *name == v) {
                Some((_, value)) => std::env::set_var(v, value),
                None => std::env::remove_var(v),
            }
        }
        Environment(saved)
    }
}

impl Drop for Environment {
    fn drop(&mut self) {
        for (name, value) in &self.0 {
            match value {
                Some(value) => std::env::set_var(name, value),
                None => std::env::remove_var(name),
            }
        }
    }
}

/// Runs `toolcheck doctor ARGS` in process with `vars`; returns its exit code.
fn doctor(args: &[String], vars: &[(&'static str, String)]) -> u8 {
    let argv = ["toolcheck", "doctor", "-j", "1"]
        .into_iter()
        .map(str::to_string)
        .chain(args.iter().cloned());
    let cli = Cli::try_parse_from(argv)
        .unwrap_or_else(|e| panic!("the fuzz target's arguments parse: {e}"));
    // One run at a time: the environment is the process's (tests run on threads).
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _env = Environment::set(vars);
    super::support::quiet(|| toolcheck::app::run_code(cli.command))
}

fn fail_doctor(name: &str, message: String) -> Result<(), ()> {
    fail("doctor", name, message)
}

macro_rules! ensure {
    ($name:literal, $cond:expr, $($message:tt)+) => {
        if !$cond {
            fail_doctor($name, format!($($message)+))?;
        }
    };
}

/// Runs the `doctor` target's check on one input (an option byte, then files).
pub fn check(data: &[u8]) {
    let outcome = run(data);
    super::trace_line(|| format!("{outcome:?}"));
}

fn run(data: &[u8]) -> Result<bool, ()> {
    let Some((&g, rest)) = data.split_first() else {
        return Ok(false);
    };
    let setup = Setup::new(g);
    super::trace_line(|| format!("{setup:?}"));
    let files: Vec<(u8, &[u8])> = rest
        .split(|&b| b == 0xFF)
        .filter_map(|piece| piece.split_first().map(|(p, b)| (*p, b)))
        .take(MAX_FILES)
        .collect();
    let dir = TempDir::new("doctor");
    let root = dir.path();
    let dirs = Dirs {
        home: root.join("home"),
        xdg: root.join("xdg"),
        outside: root.join("outside"),
    };
    let written = build(root, &dirs, &setup, &files);

    let mut args: Vec<String> = Vec::new();
    if setup.fix {
        args.push("--fix".into());
    }
    if setup.force {
        args.push("--force".into());
    }
    if setup.verbose {
        args.push("-v".into());
    }
    if setup.json {
        args.extend(["--output-format".into(), "json".into()]);
    }
    let agent = written.first().map(|w| PLACES[w.place].agent);
    if let (true, Some(agent)) = (setup.only_first, agent) {
        args.extend(["--agent".into(), agent.into()]);
    }
    if setup.since {
        args.extend(["--since".into(), "1h".into()]);
    }
    let vars = dirs.vars(&setup);

    let before = tree(root);
    doctor(&args, &vars);
    let after = tree(root);
    let changed = changed_paths(&before, &after);
    super::trace_line(|| format!("doctor {} changed {changed:?}", args.join(" ")));

    // The sessions a fix may rewrite: regular, writable files at session places of the agents
    // asked for, old enough (or forced), not left out by `--since`.
    let may_fix = |w: &Written| {
        let place = &PLACES[w.place];
        setup.fix
            && place.session
            && w.how != 1
            && w.how != 2
            && (setup.force || w.old)
            && !(setup.since && w.old)
            && (!setup.only_first || Some(place.agent) == agent)
            // `$OPENCODE_DB` replaces opencode's own names.
            && !(setup.moved && place.path == "opencode/opencode-dev.db")
    };
    let backups = dirs
        .state(&setup)
        .join("toolcheck/backups")
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut backed_up = 0;
    for path in &changed {
        let written_here = written.iter().find(|w| &w.path == path);
        if written_here.is_some_and(&may_fix) {
            ensure!(
                "untouched",
                matches!(after.get(path), Some(Entry::File(_))),
                "{}: a session was replaced by something else",
                path.display()
            );
            continue;
        }
        // The backups' directories, made on the way.
        let new_dir = !before.contains_key(path) && after.get(path) == Some(&Entry::Dir);
        if setup.fix && new_dir && (backups.starts_with(path) || path.starts_with(&backups)) {
            continue;
        }
        if path.starts_with(&backups) && setup.fix {
            if is_manifest(&backups, path) {
                continue;
            }
            if let Some(Entry::File(copy)) = after.get(path) {
                backed_up += 1;
                // `<backups>/<stamp>/<absolute path without its root>`.
                let mirrored: PathBuf = path
                    .strip_prefix(&backups)
                    .unwrap_or(path)
                    .iter()
                    .skip(1)
                    .collect();
                let original = Path::new("/").join(&mirrored);
                let rel = original.strip_prefix(root).map(Path::to_path_buf);
                let was = rel.as_ref().ok().and_then(|r| before.get(r));
                // A store is copied with SQLite's backup API: the same rows, not the same
                // bytes (its header counters and the WAL folded in differ).
                let same = match was {
                    Some(Entry::File(bytes)) if bytes.starts_with(SQLITE_MAGIC) => {
                        same_rows(bytes, copy)
                    }
                    _ => was == Some(&Entry::File(copy.clone())),
                };
                ensure!(
                    "backup",
                    same,
                    "{} does not hold the bytes {} had before the fix",
                    path.display(),
                    original.display()
                );
            }
            continue;
        }
        let what = if !setup.fix { "read-only" } else { "untouched" };
        if what == "read-only" {
            fail_doctor(
                "read-only",
                format!("doctor without --fix changed {}", path.display()),
            )?;
        } else {
            fail_doctor(
                "untouched",
                format!(
                    "doctor --fix changed {} ({:?}), which it must not",
                    path.display(),
                    written_here
                ),
            )?;
        }
    }
    let fixed = changed
        .iter()
        .filter(|p| written.iter().any(|w| &w.path == *p))
        .count();
    super::trace_line(|| format!("{fixed} sessions fixed of {written:?}"));
    ensure!(
        "backup",
        backed_up >= fixed,
        "{fixed} sessions rewritten, {backed_up} backups made"
    );

    if setup.fix {
        doctor(&args, &vars);
        let again = tree(root);
        // A read-only session is backed up again by each run, which then cannot write it.
        let read_only: Vec<PathBuf> = written
            .iter()
            .filter(|w| w.how == 2)
            .map(|w| root.join(&w.path))
            .collect();
        let backed_up_again = |p: &Path| {
            let Ok(inside) = p.strip_prefix(&backups) else {
                return false;
            };
            // Each run's folder and its manifest, even when no copy stays in it.
            if is_manifest(&backups, p) || inside.components().count() == 1 {
                return true;
            }
            let original = Path::new("/").join(inside.iter().skip(1).collect::<PathBuf>());
            read_only.iter().any(|r| r.starts_with(&original))
        };
        let changed_again: Vec<PathBuf> = changed_paths(&after, &again)
            .into_iter()
            .filter(|p| !backed_up_again(p))
            .collect();
        ensure!(
            "idempotent",
            changed_again.is_empty(),
            "a second `doctor {}` changed {changed_again:?}",
            args.join(" ")
        );
    }
    Ok(fixed > 0)
}

const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// Whether two SQLite database images hold the same tables and rows.
fn same_rows(a: &[u8], b: &[u8]) -> bool {
    let dump = |bytes: &[u8], n: u32| -> Option<Vec<String>> {
        let path =
            std::env::temp_dir().join(format!("toolcheck-fuzz-rows-{}-{n}.db", std::process::id()));
        std::fs::write(&path, bytes).ok()?;
        let rows = (|| {
            let conn = rusqlite::Connection::open(&path).ok()?;
            let mut tables: Vec<String> = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .ok()?
                .query_map([], |r| r.get(0))
                .ok()?
                .filter_map(Result::ok)
                .collect();
            tables.sort();
            let mut out = Vec::new();
            for table in tables {
                let quoted = table.replace('"', "\"\"");
                let mut stmt = conn.prepare(&format!("SELECT * FROM \"{quoted}\"")).ok()?;
                let columns = stmt.column_count();
                let mut rows: Vec<String> = stmt
                    .query_map([], |r| {
                        let mut fields = Vec::new();
                        for i in 0..columns {
                            fields.push(format!("{:?}", r.get_ref(i)?));
                        }
                        Ok(fields.join("|"))
                    })
                    .ok()?
                    .filter_map(Result::ok)
                    .collect();
                rows.sort();
                out.push(format!("{table}: {}", rows.join("\n")));
            }
            Some(out)
        })();
        let _ = std::fs::remove_file(&path);
        rows
    };
    dump(a, 0).is_some_and(|a| dump(b, 1).is_some_and(|b| a == b))
}

/// Whether `path` is a run's `manifest.json` (`<backups>/<run>/manifest.json`), which lists
/// the run's copies and is no copy itself.
fn is_manifest(backups: &Path, path: &Path) -> bool {
    path.strip_prefix(backups).is_ok_and(|inside| {
        inside.components().count() == 2 && inside.file_name().is_some_and(|n| n == "manifest.json")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input: the option byte, then each file's byte and bytes.
    fn files_input(g: u8, files: &[(u8, &[u8])]) -> Vec<u8> {
        let mut out = vec![g];
        for (i, (p, bytes)) in files.iter().enumerate() {
            if i > 0 {
                out.push(0xFF);
            }
            out.push(*p);
            out.extend_from_slice(bytes);
        }
        out
    }

    #[test]
    fn every_variable_agents_reads_is_set_or_removed() {
        // The fuzz crate's tests and the root's `fuzz_regressions` both build this file.
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = [
            manifest.join("crates/core/src/agents"),
            manifest.join("../crates/core/src/agents"),
        ]
        .into_iter()
        .find(|d| d.is_dir())
        .expect("crates/core/src/agents/ beside the fuzz crate");
        let mut source = String::new();
        for entry in std::fs::read_dir(&dir).expect("crates/core/src/agents/ is readable") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                source.push_str(&std::fs::read_to_string(&path).expect("readable"));
            }
        }
        assert!(
            source.contains("CODEX_HOME"),
            "crates/core/src/agents/ was not read"
        );
        let mut named: Vec<&str> = source
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|s| s.len() > 3 && s.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            .collect();
        named.sort();
        named.dedup();
        for name in named {
            assert!(
                VARS.contains(&name),
                "{name} is read by crates/core/src/agents/: add it to VARS"
            );
        }
    }

    const CLAUDE_BROKEN: &[u8] = br#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"List the files"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":"Go on"}}
"#;

    #[test]
    fn a_broken_session_is_checked_then_fixed_with_a_backup() {
        let old = 32;
        for g in [0, 4 | 8, 1, 2, 1 | 16, 1 | 32, 2 | 64, 1 | 128] {
            let data = files_input(
                g,
                &[
                    (old, CLAUDE_BROKEN),
                    (3 | old, CLAUDE_BROKEN),
                    (64 | old, CLAUDE_BROKEN),
                ],
            );
            assert!(run(&data).is_ok(), "g = {g}");
        }
        // Fixed (and backed up): forced, or old enough.
        assert_eq!(run(&files_input(1, &[(0, CLAUDE_BROKEN)])), Ok(true));
        assert_eq!(run(&files_input(2, &[(old, CLAUDE_BROKEN)])), Ok(true));
        // Left alone: in use, a link, read-only, not a session, not checked.
        assert_eq!(run(&files_input(2, &[(0, CLAUDE_BROKEN)])), Ok(false));
        assert_eq!(run(&files_input(1, &[(64, CLAUDE_BROKEN)])), Ok(false));
        // (A read-only session is backed up, then not written.)
        assert_eq!(run(&files_input(1, &[(128, CLAUDE_BROKEN)])), Ok(false));
        assert_eq!(run(&files_input(1, &[(9 | old, CLAUDE_BROKEN)])), Ok(false));
        assert_eq!(run(&files_input(0, &[(old, CLAUDE_BROKEN)])), Ok(false));
    }

    #[test]
    fn databases_are_found_and_read() {
        // A Goose store with a result for a call Goose could not parse (an error), as the
        // `store` target builds it.
        let goose: &[u8] = b"\x02\x00\x00\x00[{\"type\":\"toolRequest\",\"id\":\"t2\",\"toolCall\":{\"status\":\"error\",\"error\":\"Could not interpret tool use parameters\"}}]\xfeassistant\xfd\x00[{\"type\":\"toolResponse\",\"id\":\"t2\",\"toolResult\":{\"status\":\"success\",\"value\":{\"content\":[]}}},{\"type\":\"text\",\"text\":\"Go on\"}]\xfeuser";
        assert_eq!(run(&files_input(1, &[(20, goose)])), Ok(true));
        assert_eq!(run(&files_input(1 | 16 | 32, &[(20, goose)])), Ok(true));
        assert_eq!(
            run(&files_input(0, &[(20, goose), (16, goose), (6, goose)])),
            Ok(false)
        );
    }
}
