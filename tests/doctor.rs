//! `toolcheck doctor` on a home directory built here: every layout this version reads
//! (Claude Code, Codex, pi, OpenClaw, Cline, Roo Code, Copilot CLI) in the agents' real
//! shapes (the fixtures), one broken session per agent, an empty store, a store "in use",
//! one the version does not read (Gemini CLI), an artifact and a link that must be passed
//! over; and a fresh home where nothing is found.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use common::Output;

const HOUR: u64 = 3600;
const DAY: u64 = 86_400;

/// A generated home directory.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Copies fixture `from` to `to` (under the home), modified `age` seconds ago.
    fn session(&self, from: &str, to: &str, age: u64) -> PathBuf {
        let text = std::fs::read(common::root().join("fixtures").join(from)).expect("fixture");
        self.write(to, &text, age)
    }

    fn write(&self, to: &str, bytes: &[u8], age: u64) -> PathBuf {
        let path = self.path().join(to);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, bytes).expect("write");
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_modified(SystemTime::now() - Duration::from_secs(age))
            .expect("set mtime");
        path
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_by(Command::new(env!("CARGO_BIN_EXE_toolcheck")), args)
    }

    /// [`Home::run`] by `command` (the binary, or a wrapper that runs it as another user).
    fn run_by(&self, mut command: Command, args: &[&str]) -> Output {
        let home = self.path();
        let out = command
            .arg("doctor")
            .args(args)
            .current_dir(home)
            .env_clear()
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("CODEX_HOME", home.join(".codex"))
            .env("NO_COLOR", "1")
            .output()
            .expect("toolcheck runs");
        let redact = |bytes: &[u8]| {
            String::from_utf8_lossy(bytes).replace(&home.display().to_string(), "[HOME]")
        };
        Output {
            stdout: redact(&out.stdout),
            stderr: redact(&out.stderr),
            code: out.status.code().unwrap_or(-1),
        }
    }
}

const CLAUDE_BROKEN: &str = ".claude/projects/-home-dev-shop/2b7d1f40-broken.jsonl";
const CLAUDE_IN_USE: &str = ".claude/projects/-home-dev-shop/9e0c4a11-live.jsonl";
const CODEX_BROKEN: &str =
    ".codex/sessions/2026/11/20/rollout-2026-11-20T09-12-44-0197a3c2-broken.jsonl";
const CODEX_CLEAN: &str = ".codex/sessions/2026/11/18/rollout-2026-11-18T16-40-02-0197a0aa.jsonl";

/// The home every test below starts from.
fn generated_home() -> Home {
    let home = Home {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    let h = &home;
    // Claude Code: a clean session, a broken one, the same broken one being written now.
    h.session(
        "claude-code/clean-session.jsonl",
        ".claude/projects/-home-dev-shop/0a51c9e2-clean.jsonl",
        3 * DAY,
    );
    h.session(
        "claude-code/broken-unanswered-then-prompt.jsonl",
        CLAUDE_BROKEN,
        2 * HOUR + 60,
    );
    h.session(
        "claude-code/broken-unanswered-then-prompt.jsonl",
        CLAUDE_IN_USE,
        0,
    );
    // Codex: clean and broken rollouts; the archive is an empty store.
    h.session("codex/clean-session.jsonl", CODEX_CLEAN, 7 * DAY);
    h.session("codex/broken-interrupted.jsonl", CODEX_BROKEN, 30 * 60 + 30);
    std::fs::create_dir_all(h.path().join(".codex/archived_sessions")).expect("mkdir");
    // pi and OpenClaw write the same session files.
    h.session(
        "pi/clean-session.jsonl",
        ".pi/agent/sessions/--home-dev-shop--/2026-11-19T08-00-00-000Z_6b1e.jsonl",
        6 * DAY,
    );
    h.session(
        "pi/broken-session.jsonl",
        ".pi/agent/sessions/--home-dev-shop--/2026-11-24T11-30-00-000Z_c3d2.jsonl",
        DAY + HOUR,
    );
    h.session(
        "pi/broken-session.jsonl",
        ".openclaw/agents/main/sessions/8555a0a4-0b79-459d-939c-e17cdbbf4fe2.jsonl",
        5 * HOUR + 60,
    );
    // A pre-compaction twin OpenClaw keeps beside the transcript: not a session.
    h.session(
        "pi/broken-session.jsonl",
        ".openclaw/agents/main/sessions/8555a0a4-0b79-459d-939c-e17cdbbf4fe2.checkpoint.1f2e.jsonl",
        5 * HOUR,
    );
    // Cline in VS Code, Roo Code in Cursor.
    h.session(
        "cline/broken-history.json",
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1763900000000/api_conversation_history.json",
        3 * HOUR + 60,
    );
    h.session(
        "cline/clean-text-results.json",
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1763800000000/api_conversation_history.json",
        2 * DAY,
    );
    h.session(
        "cline/clean-condensed.json",
        ".config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks/0c9f4e1a-2b3d-4e5f-8a9b-1c2d3e4f5a6b/api_conversation_history.json",
        4 * DAY,
    );
    // Copilot CLI.
    h.session(
        "copilot-cli/broken-events.jsonl",
        ".copilot/session-state/7d2f0c1e-5a44-4c1b-9e3a-2b8f6d0a9c11/events.jsonl",
        10 * HOUR + 60,
    );
    h.session(
        "copilot-cli/clean-events.jsonl",
        ".copilot/session-state/1a2b3c4d-0000-4000-8000-000000000001/events.jsonl",
        9 * DAY,
    );
    // A Gemini CLI recording: listed, but no reader on this version knows it.
    h.write(
        ".gemini/tmp/shop-1/chats/session-2026-11-23T10-00-5c1d2e3f.jsonl",
        br#"{"sessionId":"5c1d2e3f-1111-4222-8333-944455556666","projectHash":"shop-1","startTime":"2026-11-23T10:00:00.000Z","lastUpdated":"2026-11-23T10:01:00.000Z","kind":"main"}
{"id":"m1","timestamp":"2026-11-23T10:00:01.000Z","type":"user","content":[{"text":"list the files"}]}
"#,
        2 * DAY + HOUR,
    );
    // An opencode database: found, but no reader on this version knows its tables.
    let db = h.path().join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(db.parent().expect("a parent")).expect("mkdir");
    let conn = rusqlite::Connection::open(&db).expect("create the database");
    conn.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, title TEXT, time_created INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);
         INSERT INTO session VALUES ('ses_01', 'p1', 'fix the build', 1763900000000);
         INSERT INTO message VALUES ('msg_01', 'ses_01', 1763900000000, '{\"role\":\"user\"}');",
    )
    .expect("the schema");
    drop(conn);
    std::fs::File::options()
        .write(true)
        .open(&db)
        .expect("open")
        .set_modified(SystemTime::now() - Duration::from_secs(8 * DAY))
        .expect("set mtime");
    // A link inside a root is never followed.
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        h.path().join(CODEX_CLEAN),
        h.path().join(".claude/projects/-home-dev-shop/link.jsonl"),
    )
    .expect("symlink");
    home
}

#[test]
fn text_report() {
    let home = generated_home();
    let out = home.run(&[]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn databases_are_read_without_writing() {
    let home = generated_home();
    let db = home.path().join(".local/share/opencode/opencode.db");
    let before = std::fs::read(&db).expect("the database");
    let out = home.run(&["--agent", "opencode", "--output-format", "json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    // Read (it is clean) now that opencode databases have a reader.
    assert_eq!(field(&out, "status"), ["clean"]);
    assert_eq!(std::fs::read(&db).expect("the database"), before);
    for side in ["opencode.db-wal", "opencode.db-shm"] {
        assert!(!db.with_file_name(side).exists(), "{side} left behind");
    }
}

#[test]
fn json_report() {
    let home = generated_home();
    let out = home.run(&["--output-format", "json"]);
    assert_eq!(out.code, 1);
    let mut value: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    for session in value.as_array_mut().expect("an array") {
        let modified = &mut session["modified"];
        assert!(modified.as_str().is_some_and(|m| m.ends_with('Z')));
        *modified = "[MODIFIED]".into();
    }
    insta::assert_snapshot!(serde_json::to_string_pretty(&value).expect("JSON"));
}

#[test]
fn verbose_lists_every_place() {
    let home = generated_home();
    let out = home.run(&[
        "-v",
        "--agent",
        "openclaw",
        "--agent",
        "claude-code",
        "--agent",
        "codex",
    ]);
    insta::assert_snapshot!(out.transcript());
}

/// `key` of every session in a JSON report.
fn field(out: &Output, key: &str) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    value
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|s| s[key].as_str().map(str::to_string))
        .collect()
}

#[test]
fn agent_and_since_filter() {
    let home = generated_home();
    let out = home.run(&[
        "--agent",
        "codex",
        "--since",
        "1h",
        "--output-format",
        "json",
    ]);
    assert_eq!(field(&out, "path"), [format!("[HOME]/{CODEX_BROKEN}")]);
    let out = home.run(&["--since", "3h", "--output-format", "json"]);
    assert_eq!(
        field(&out, "agent"),
        ["claude-code", "claude-code", "codex"]
    );
    // No Copilot session is that recent.
    let out = home.run(&["--agent", "copilot-cli", "--since", "1h"]);
    assert_eq!(out.code, 0);
    // Found, but all left out: said so, not "no agent sessions found".
    assert_eq!(
        out.stdout,
        "2 agent sessions found, none modified in the last 1h: nothing checked (a longer --since, or none, checks them)\n"
    );
    // The JSON report lists the sessions checked: none.
    let out = home.run(&[
        "--agent",
        "copilot-cli",
        "--since",
        "60m",
        "--output-format",
        "json",
    ]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "[]\n"),
        "{}",
        out.stderr
    );
    // Some left out: the summary counts them beside the sessions checked.
    let out = home.run(&["--since", "3h"]);
    let summary = out.stdout.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("Checked 3 sessions of 2 agents ("),
        "{}",
        out.stdout
    );
    assert!(
        summary.contains(" more not modified in the last 3h, left out): "),
        "{}",
        out.stdout
    );
}

#[test]
fn usage_errors() {
    let home = generated_home();
    let out = home.run(&["--agent", "emacs"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("claude-code"), "{}", out.stderr);
    let out = home.run(&["--since", "3 fortnights"]);
    assert_eq!(out.code, 2);
    let out = home.run(&["--force"]);
    assert_eq!(out.code, 2);
}

#[test]
fn fresh_home_finds_nothing() {
    let home = Home {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    let out = home.run(&[]);
    insta::assert_snapshot!(out.transcript(), @r"
    no agent sessions found (looked in 40 places; -v lists them)
    --- exit 0 ---
    ");
}

/// Every file under `dir` with its bytes and modification time.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime)> {
    common::walk(dir)
        .into_iter()
        .filter(|p| !p.is_symlink())
        .map(|p| {
            let bytes = std::fs::read(&p).expect("read");
            let time = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .expect("mtime");
            (p, bytes, time)
        })
        .collect()
}

#[test]
fn fix_backs_up_and_repairs() {
    let home = generated_home();
    let before = files(home.path());
    let out = home.run(&["--fix"]);
    let text = regex_stamp(&out.transcript());
    insta::assert_snapshot!(text);
    let after = files(home.path());
    let clean_after = [
        home.path().join(CLAUDE_BROKEN),
        home.path().join(CODEX_BROKEN),
    ];
    let backups = home.path().join(".local/state/toolcheck/backups");
    let stamp = std::fs::read_dir(&backups)
        .expect("the backups directory")
        .next()
        .expect("one run")
        .expect("entry")
        .path();
    let mut changed = Vec::new();
    for (path, bytes, time) in &before {
        let now = after
            .iter()
            .find(|(p, _, _)| p == path)
            .expect("still there");
        let mirror = stamp.join(path.strip_prefix("/").expect("absolute"));
        if mirror.exists() {
            changed.push(
                path.strip_prefix(home.path())
                    .expect("in home")
                    .to_path_buf(),
            );
            assert!(&now.1 != bytes, "{} was fixed", path.display());
            assert!(
                &std::fs::read(&mirror).expect("backup") == bytes,
                "backup of {}",
                path.display()
            );
        } else {
            assert!(&now.1 == bytes, "{} untouched", path.display());
            assert_eq!(&now.2, time, "{} keeps its mtime", path.display());
        }
    }
    changed.sort();
    insta::assert_debug_snapshot!("fixed_files", changed);
    for path in clean_after {
        let lint = common::toolcheck(&["lint", "--no-config", &path.display().to_string()]);
        assert_eq!(lint.code, 0, "{}", lint.transcript());
    }
    // Run again: nothing left to fix but what has no automatic fix and the session in use.
    let again = home.run(&["--fix", "--agent", "codex"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
}

/// The backup directory's UTC stamp, redacted.
fn regex_stamp(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("backups/") {
        let (head, tail) = rest.split_at(at + "backups/".len());
        out.push_str(head);
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == 'T' || c == 'Z' || c == '-'))
            .unwrap_or(tail.len());
        out.push_str("[STAMP]");
        rest = tail.get(end..).unwrap_or_default();
        // The mirrored absolute path starts with the home, redacted without its `/`.
        if rest.starts_with("[HOME]") {
            out.push('/');
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn in_use_fixed_with_force() {
    let home = generated_home();
    let out = home.run(&["--fix", "--force", "--agent", "claude-code"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out
        .stdout
        .contains("fixed ~/.claude/projects/-home-dev-shop/9e0c4a11-live.jsonl"));
}

#[cfg(unix)]
#[test]
fn unreadable_session_exits_2() {
    use std::os::unix::fs::PermissionsExt;
    let home = generated_home();
    let path = home.session(
        "copilot-cli/clean-events.jsonl",
        ".copilot/session-state/2b3c4d5e-0000-4000-8000-000000000002/events.jsonl",
        DAY,
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&path).is_ok() {
        // Root reads anything: nothing to test.
        return;
    }
    let out = home.run(&["--agent", "copilot-cli"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stdout.contains("1 could not be read"), "{}", out.stdout);
    assert!(out
        .stdout
        .contains("cannot read ~/.copilot/session-state/2b3c4d5e"));
}

/// The one backup folder of a `--fix` run in `home`.
fn backup_run(home: &Home) -> PathBuf {
    let backups = home.path().join(".local/state/toolcheck/backups");
    let runs: Vec<PathBuf> = std::fs::read_dir(&backups)
        .expect("the backups directory")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.into_iter().next().expect("one run")
}

#[test]
fn restore_puts_back_what_fix_changed() {
    let home = generated_home();
    let before = files(home.path());
    let out = home.run(&["--fix"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    let run = backup_run(&home);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&run).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
    let run_arg = run.to_str().expect("UTF-8");
    let out = home.run(&["--restore", run_arg]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stdout.contains("restored "), "{}", out.transcript());
    let restored = files(home.path());
    for (path, bytes, _) in &before {
        let now = restored
            .iter()
            .find(|(p, _, _)| p == path)
            .expect("still there");
        assert!(&now.1 == bytes, "{} is as before the fix", path.display());
    }
    // Restored once, the files changed since the fix: a second restore would lose that.
    let out = home.run(&["--restore", run_arg]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stdout.contains("--force"), "{}", out.transcript());
    let out = home.run(&["--restore", home.path().to_str().expect("UTF-8")]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("manifest.json"), "{}", out.transcript());
    let out = home.run(&["--restore", run_arg, "--fix"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
}

#[cfg(unix)]
#[test]
fn an_unreadable_store_is_named_without_verbose() {
    use std::os::unix::fs::PermissionsExt;
    let home = generated_home();
    let dir = home.path().join(".codex/sessions");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let out = if std::fs::read_dir(&dir).is_err() {
        home.run(&["--agent", "codex"])
    } else {
        // Root reads anything: run it as nobody, who may enter the home but not that folder.
        let setpriv = Path::new("/usr/bin/setpriv");
        assert!(
            setpriv.exists(),
            "running as root needs setpriv to drop to nobody"
        );
        std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        for d in [".codex", ".local", ".local/state"] {
            let _ = std::fs::set_permissions(
                home.path().join(d),
                std::fs::Permissions::from_mode(0o777),
            );
        }
        let mut command = Command::new(setpriv);
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_toolcheck"));
        home.run_by(command, &["--agent", "codex"])
    };
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr.contains("cannot read") && out.stderr.contains(".codex/sessions"),
        "{}",
        out.transcript()
    );
}

/// A Gemini CLI session whose responses the CLI would send twice on resume will not resume;
/// removing the CLI's own copies is a safe repair, and doctor names it.
#[test]
fn a_copied_response_repair_is_named() {
    let home = Home {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    home.session(
        "gemini-cli/resume-duplicates.jsonl",
        ".gemini/tmp/app/chats/session-2026-11-30T09-12-5e1f0c2a.jsonl",
        HOUR,
    );
    let out = home.run(&["--agent", "gemini-cli"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("1 will not resume"),
        "{}",
        out.transcript()
    );
    assert!(
        out.stdout.contains(
            "repair: toolcheck fix --write [HOME]/.gemini/tmp/app/chats/session-2026-11-30T09-12-5e1f0c2a.jsonl\n"
        ),
        "{}",
        out.transcript()
    );
}

/// Kimi Code CLI: its `context.jsonl` is found under `~/.kimi/sessions/<md5>/<id>/`, the
/// `wire.jsonl` beside it is not a session, and `--fix` leaves a session Kimi resumes.
#[test]
fn kimi_sessions_are_found_and_repaired() {
    let home = Home {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    let dir = ".kimi/sessions/a409a57d616101980b9a665911da18b1/b6def5ac-dbb4-4171-9b1d";
    home.session(
        "kimi-cli/broken-unanswered-call.jsonl",
        &format!("{dir}/context.jsonl"),
        2 * DAY,
    );
    home.session("kimi-cli/wire.jsonl", &format!("{dir}/wire.jsonl"), 2 * DAY);
    let out = home.run(&["--agent", "kimi-cli"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("1 will not resume") && out.stdout.contains("TC102"),
        "{}",
        out.transcript()
    );
    assert!(!out.stdout.contains("wire.jsonl"), "{}", out.transcript());
    let fixed = home.run(&["--agent", "kimi-cli", "--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.transcript());
    let after = home.run(&["--agent", "kimi-cli"]);
    assert!(
        after.stdout.contains("0 will not resume"),
        "{}",
        after.transcript()
    );
}

/// `doctor` takes `--color` as `lint` does: what will not resume in red, the error code too,
/// and the same text once the colours are taken out.
#[test]
fn doctor_color_always_marks_what_will_not_resume() {
    let home = generated_home();
    let plain = home.run(&["--color", "never"]);
    assert!(!plain.stdout.contains('\x1b'), "{}", plain.stdout);
    let always = home.run(&["--color", "always"]);
    assert!(
        always.stdout.contains("\x1b[1;31m1 will not resume\x1b[0m"),
        "{}",
        always.stdout
    );
    let stripped = common::strip_colors(&always.stdout);
    assert_eq!(stripped, plain.stdout);
}

/// Factory Droid: its sessions are found under `~/.factory/sessions/<project>/`, the
/// `.settings.json` beside each is not one, and a session the agent patches on resume says so.
#[test]
fn droid_sessions_are_found_and_judged_by_what_droid_sends() {
    let home = Home {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    let dir = ".factory/sessions/-home-dev-api";
    home.session(
        "droid/broken-unanswered-call.jsonl",
        &format!("{dir}/8e0b2c4d-6f8a-4c1e-9b3d-5f7a9c1e3b5d.jsonl"),
        2 * DAY,
    );
    home.write(
        &format!("{dir}/8e0b2c4d-6f8a-4c1e-9b3d-5f7a9c1e3b5d.settings.json"),
        br#"{"model":"claude-sonnet-4-5","autonomyMode":"auto-low"}"#,
        2 * DAY,
    );
    let out = home.run(&["--agent", "droid"]);
    assert!(
        out.stdout.contains("1 session checked")
            && out.stdout.contains("Error: Tool execution was cancelled"),
        "{}",
        out.transcript()
    );
}
