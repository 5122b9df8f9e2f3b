//! `fix --write` on sessions their agents still hold open: a fix that would replace the file
//! is refused by name, a fix that only appends is appended in place, and no line the agent
//! writes afterwards is lost. Also the limits a run's options are held to.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::toolcheck_in;

/// A stand-in for an agent: a shell that opens `path` with `redirect` (`>>` appends, as
/// Codex's recorder and Node's append streams do; `<>` writes at its own offset) and, once
/// told to go on, writes `lines` lines through that same descriptor.
struct Agent {
    child: Child,
}

impl Agent {
    fn holding(path: &Path, redirect: &str, lines: usize) -> Agent {
        let script = format!(
            "exec 3{redirect}\"$1\"; echo ready; read _; i=0; while [ $i -lt {lines} ]; do \
             printf '{{\"agent_line\":%d}}\\n' $i >&3; i=$((i+1)); done"
        );
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg("sh")
            .arg(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut ready = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut ready)
            .expect("ready");
        Agent { child }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Lets the agent write its lines, and waits for it.
    fn finish(mut self) {
        let mut stdin = self.child.stdin.take().expect("stdin");
        stdin.write_all(b"go\n").expect("go");
        drop(stdin);
        assert!(self.child.wait().expect("wait").success());
    }
}

fn session(dir: &Path, fixture: &str) -> PathBuf {
    let to = dir.join(Path::new(fixture).file_name().expect("a name"));
    std::fs::copy(common::root().join("fixtures").join(fixture), &to).expect("copy");
    to
}

fn agent_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| l.starts_with("{\"agent_line\":"))
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn a_session_its_agent_holds_open_is_not_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = session(
        dir.path(),
        "claude-code/broken-unanswered-then-prompt.jsonl",
    );
    let before = std::fs::read_to_string(&path).expect("read");
    let agent = Agent::holding(&path, ">>", 10);
    let name = path.file_name().and_then(|n| n.to_str()).expect("name");
    let out = toolcheck_in(dir.path(), &["fix", "--write", name], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    let expected = format!("it is open for writing by process {} (sh)", agent.pid());
    assert!(out.stderr.contains(&expected), "{}", out.transcript());
    agent.finish();
    // Everything the agent wrote after the refused fix is in the file, after every byte.
    let after = std::fs::read_to_string(&path).expect("read");
    assert!(after.starts_with(&before));
    assert_eq!(agent_lines(&after), 10);
    // Once the agent has stopped, the fix goes through.
    let out = toolcheck_in(dir.path(), &["fix", "--write", name], None);
    assert_ne!(out.code, 2, "{}", out.transcript());
    assert_eq!(
        agent_lines(&std::fs::read_to_string(&path).expect("read")),
        10
    );
}

#[cfg(target_os = "linux")]
#[test]
fn an_appended_repair_goes_in_beside_an_appending_agent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = session(dir.path(), "gemini-cli/broken-fixable.jsonl");
    let before = std::fs::read_to_string(&path).expect("read");
    let agent = Agent::holding(&path, ">>", 10);
    let name = path.file_name().and_then(|n| n.to_str()).expect("name");
    let out = toolcheck_in(dir.path(), &["fix", "--write", name], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let fixed = std::fs::read_to_string(&path).expect("read");
    assert!(fixed.len() > before.len() && fixed.starts_with(&before));
    agent.finish();
    let after = std::fs::read_to_string(&path).expect("read");
    assert!(after.starts_with(&fixed), "the repair was kept");
    assert_eq!(agent_lines(&after), 10);
    // Every line is a whole record: the agent's first line did not fuse with the repair.
    for line in after.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("a whole JSON line");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_agent_writing_at_its_own_offset_is_not_appended_to() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = session(dir.path(), "gemini-cli/broken-fixable.jsonl");
    let before = std::fs::read(&path).expect("read");
    let agent = Agent::holding(&path, "<>", 0);
    let name = path.file_name().and_then(|n| n.to_str()).expect("name");
    let out = toolcheck_in(dir.path(), &["fix", "--write", name], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr.contains("open for writing by process"),
        "{}",
        out.transcript()
    );
    agent.finish();
    assert_eq!(std::fs::read(&path).expect("read"), before);
}

#[test]
fn a_repair_after_a_cut_off_last_line_ends_its_own_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = session(dir.path(), "gemini-cli/broken-fixable.jsonl");
    // The CLI was killed while writing its last record.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    file.write_all(br#"{"id":"f0000010","timestamp":"2026-10-05T09:03:09.000Z","type":"gem"#)
        .expect("append");
    drop(file);
    let out = toolcheck_in(
        dir.path(),
        &["fix", "--write", "broken-fixable.jsonl"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    let fixed = std::fs::read_to_string(&path).expect("read");
    assert!(fixed.ends_with('\n'), "{fixed}");
    // The agent's next record, written as `record + "\n"`, is a line of its own.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .and_then(|mut f| {
            f.write_all(b"{\"$set\":{\"lastUpdated\":\"2026-10-05T09:04:00.000Z\"}}\n")
        })
        .expect("append");
    let after = std::fs::read_to_string(&path).expect("read");
    let last = after.lines().last().expect("a last line");
    assert_eq!(
        last,
        r#"{"$set":{"lastUpdated":"2026-10-05T09:04:00.000Z"}}"#
    );
    let unparsed = after
        .lines()
        // Two repairs appended in one pass each end their line: a blank line between them
        // is skipped by the loader.
        .filter(|l| !l.is_empty() && serde_json::from_str::<serde_json::Value>(l).is_err())
        .count();
    assert_eq!(unparsed, 1, "only the cut-off line is not JSON:\n{after}");
}

#[test]
fn thread_counts_above_the_limit_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    for command in ["lint", "doctor"] {
        let mut args = vec![command, "-j", "3000"];
        if command == "lint" {
            args.push(".");
        }
        let out = toolcheck_in(dir.path(), &args, None);
        assert_eq!(out.code, 2, "{}", out.transcript());
        assert!(out.stderr.contains("1..=256"), "{}", out.transcript());
    }
    let out = toolcheck_in(dir.path(), &["lint", "-j", "256", "."], None);
    assert_ne!(out.code, 2, "{}", out.transcript());
}

/// Every file under `dir` (relative path → bytes), but the staged folders a killed run
/// leaves beside the one it fixes.
fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    common::walk(dir)
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/.toolcheck-"))
        .map(|p| {
            let bytes = std::fs::read(&p).expect("read");
            (p.strip_prefix(dir).expect("inside").to_path_buf(), bytes)
        })
        .collect()
}

fn copy_tree(from: &Path, to: &Path) {
    for path in common::walk(from) {
        let target = to.join(path.strip_prefix(from).expect("inside"));
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(&path, &target).expect("copy");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_session_folder_fix_killed_at_any_point_leaves_it_old_or_new() {
    let fixture = common::root().join("fixtures/strands/session_broken");
    let messages = "agents/agent_default/messages";
    let expected = tempfile::tempdir().expect("tempdir");
    copy_tree(&fixture, expected.path());
    let out = toolcheck_in(expected.path(), &["fix", "--write", messages], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    let old = tree(&fixture);
    let new = tree(expected.path());
    let changed = old.iter().filter(|(p, b)| new.get(*p) != Some(*b)).count();
    assert!(
        changed >= 2,
        "the fix changes {changed} files; the test needs two or more"
    );
    let (mut olds, mut news) = (0, 0);
    for delay in 0..40u64 {
        let dir = tempfile::tempdir().expect("tempdir");
        copy_tree(&fixture, dir.path());
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
            .args(["fix", "--write", messages])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_micros(delay * 1250));
        let _ = child.kill();
        let _ = child.wait();
        let now = tree(dir.path());
        if now == old {
            olds += 1;
        } else if now == new {
            news += 1;
        } else {
            panic!("killed after {} µs: the folder is half fixed", delay * 1250);
        }
    }
    eprintln!("killed runs: {olds} left it as read, {news} as fixed");
    assert_eq!(olds + news, 40);
}
