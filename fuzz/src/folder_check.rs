//! The `folder` target's check: bytes → a session folder whose files together are one
//! conversation (Strands `messages/`, OpenHands V1 `events/`, `src/folder.rs`) in a fresh
//! directory → lint (`embed::lint_paths`), then `toolcheck fix` as the command line runs it
//! (`app::run_code`): a dry run, `--diff`, `--write`, and `--write` again → invariants on the
//! files.
//!
//! An input is two option bytes `[f, r]`, then files:
//!
//! * `f`: bit 0 picks the kind (Strands, OpenHands); bits 1–2 what is named on the command
//!   line: the folder, its first message file toolcheck reads (the folder when there is
//!   none), the session directory (a walk; for Strands it holds both agents' folders), the
//!   directory of every session (a walk); bit 3 writes Strands' `agent.json` with
//!   `removed_message_count` `r % 8` (the first files by position are not read), or
//!   OpenHands' `base_state.json` (without it the folder is known by its event files);
//!   bit 4 is `--unsafe-fixes`, bit 5 `--unpaired remove-call`; bit 6 makes file
//!   `(r / 8) % n` of the `n` regular files read-only (in a second copy: see `all-or-nothing`);
//!   bit 7 makes a second folder (Strands: a second agent of the session; OpenHands: a
//!   second conversation beside the first);
//! * the rest is files separated by `0xFF`, at most 64. A file's first byte `c` says where it
//!   goes, the bytes after it are its content: bits 0–1 its index after the one before
//!   (`+1`, `+2`, the same, `+10`); bits 2–4 how its name is spelled, by kind:
//!   Strands `message_<n>.json`, `message_<nnn>.json`, `message_+<n>.json` (all read),
//!   `message_<n>.json.bak`, `Message_<n>.json`, `message_<n> .json`, an index past `u64`,
//!   `message_<n>.jsonl` (not read as the folder's); OpenHands `event-<5 digits>-<uuid>.json`,
//!   `event-<5 digits>.json`, `event-<7 digits>-<UUID>.json` (read), `….json.tmp`,
//!   `event-<n>.json` (too few digits), `event-<5 digits>-short.json`, `…-<uuid>x.json`,
//!   `….jsonl` (not read); bit 5 puts it in the second folder, if there is one; bit 6 makes it
//!   a symbolic link to a file outside the sessions holding the bytes; bit 7 makes it a
//!   directory of that name instead (the bytes are dropped). A name already taken is
//!   skipped.
//!
//! Invariants (named for `TOOLCHECK_FUZZ_ALLOW`, `fuzz/src/support.rs`):
//!
//! * `read-only`: linting and the dry runs (`fix`, `fix --diff`) change no file;
//! * `fix`: `fix` and `fix --write` do not exit 2 (no file in these folders is unreadable or
//!   unwritable, so an error is a fix that failed: `DidNotConverge`, `Unparseable`), unless
//!   an input of its own is not UTF-8, which is left alone with an error by design;
//! * `untouched`: the write changes only files toolcheck reads as messages of a folder the
//!   command line reaches (not a skipped one, not a link, not one outside) and, in a walk,
//!   other `.json`/`.jsonl` files it reaches, which are inputs of their own; it creates and
//!   removes nothing;
//! * `json`: a changed file that was valid JSON still is;
//! * `idempotent`: a second `fix --write` changes nothing (and does not exit 2);
//! * `all-or-nothing`: in a second copy with one file read-only, `fix --write` leaves the
//!   folder of that file (or the file, when it is an input of its own) exactly as read when
//!   the first copy's write changed it (and exits 2), and otherwise does what it did in the
//!   first copy.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Parser;
use toolcheck::cli::Cli;

use super::support::{changed_paths, fail, tree, Entry, TempDir};

/// The most files an input makes.
const MAX_FILES: usize = 64;

/// A fixed uuid for OpenHands event names (its digits do not matter).
const UUID: &str = "6513270e-269e-4d37-b2a7-4de452e6b438";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Strands,
    OpenHands,
}

/// One file written, and what the harness knows of it.
#[derive(Debug)]
struct Written {
    /// Relative to the work directory.
    path: PathBuf,
    /// Which folder (0 or 1).
    folder: usize,
    /// Its index, when its spelling is one toolcheck reads as a message of the folder.
    index: Option<u64>,
    /// A regular file (not a link, not a directory).
    regular: bool,
}

/// What the option bytes decide.
#[derive(Debug)]
struct Setup {
    kind: Kind,
    named: u8,
    records: bool,
    removed: usize,
    unsafe_fixes: bool,
    remove_call: bool,
    read_only: Option<usize>,
    two: bool,
}

impl Setup {
    fn new([f, r]: [u8; 2]) -> Setup {
        Setup {
            kind: if f & 1 == 0 {
                Kind::Strands
            } else {
                Kind::OpenHands
            },
            named: (f >> 1) & 3,
            records: f & 8 != 0,
            removed: usize::from(r % 8),
            unsafe_fixes: f & 16 != 0,
            remove_call: f & 32 != 0,
            read_only: (f & 64 != 0).then_some(usize::from(r / 8)),
            two: f & 128 != 0,
        }
    }

    /// The folder `n`'s directory, relative to the work directory.
    fn folder(&self, n: usize) -> PathBuf {
        match self.kind {
            Kind::Strands => PathBuf::from(format!("session_s1/agents/agent_{n}/messages")),
            Kind::OpenHands => PathBuf::from(format!("c{n}/events")),
        }
    }

    /// Which folders the command line reaches.
    fn reached(&self, n: usize) -> bool {
        match (self.named, self.kind) {
            (0 | 1, _) => n == 0,
            (2, Kind::OpenHands) => n == 0,
            _ => true,
        }
    }

    fn walks(&self) -> bool {
        self.named >= 2
    }
}

/// A file name by kind, index and spelling; whether toolcheck reads it as a message.
fn file_name(kind: Kind, n: u64, spelling: u8) -> (String, bool) {
    match (kind, spelling) {
        (Kind::Strands, 0) => (format!("message_{n}.json"), true),
        (Kind::Strands, 1) => (format!("message_{n:03}.json"), true),
        // `u64::from_str` takes a leading `+`.
        (Kind::Strands, 2) => (format!("message_+{n}.json"), true),
        (Kind::Strands, 3) => (format!("message_{n}.json.bak"), false),
        (Kind::Strands, 4) => (format!("Message_{n}.json"), false),
        (Kind::Strands, 5) => (format!("message_{n} .json"), false),
        (Kind::Strands, 6) => (format!("message_{}{n}.json", u64::MAX), false),
        (Kind::Strands, _) => (format!("message_{n}.jsonl"), false),
        (Kind::OpenHands, 0) => (format!("event-{n:05}-{UUID}.json"), true),
        (Kind::OpenHands, 1) => (format!("event-{n:05}.json"), true),
        (Kind::OpenHands, 2) => (
            format!("event-{n:07}-{}.json", UUID.to_ascii_uppercase()),
            true,
        ),
        (Kind::OpenHands, 3) => (format!("event-{n:05}-{UUID}.json.tmp"), false),
        // Fewer than five digits (indexes stay below 1000 here).
        (Kind::OpenHands, 4) => (format!("event-{n}.json"), false),
        (Kind::OpenHands, 5) => (format!("event-{n:05}-short.json"), false),
        (Kind::OpenHands, 6) => (format!("event-{n:05}-{UUID}x.json"), false),
        (Kind::OpenHands, _) => (format!("event-{n:05}-{UUID}.jsonl"), false),
    }
}

/// Whether a file name ends in an extension a directory walk picks.
fn picked(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "jsonl", "ndjson", "af"].contains(&e.to_ascii_lowercase().as_str())
    })
}

/// Writes the sessions of an input under `work` (and link targets under `outside`).
fn build(work: &Path, outside: &Path, setup: &Setup, files: &[(u8, &[u8])]) -> Vec<Written> {
    let mkdir = |p: &Path| std::fs::create_dir_all(p).expect("the fuzz target makes its folders");
    let write = |p: &Path, bytes: &[u8]| std::fs::write(p, bytes).expect("the fuzz target writes");
    let folders = if setup.two { 2 } else { 1 };
    for n in 0..folders {
        let dir = work.join(setup.folder(n));
        mkdir(&dir);
        let parent = dir.parent().unwrap_or(work);
        match (setup.kind, setup.records) {
            (Kind::Strands, true) => write(
                &parent.join("agent.json"),
                format!(
                    "{{\"agent_id\": \"{n}\", \"state\": {{}}, \"conversation_manager_state\": \
                     {{\"__name__\": \"SlidingWindowConversationManager\", \
                     \"removed_message_count\": {}}}}}\n",
                    setup.removed
                )
                .as_bytes(),
            ),
            (Kind::OpenHands, true) => write(
                &parent.join("base_state.json"),
                br#"{"id": "c", "agent": {"kind": "Agent"}, "max_iterations": 50}"#,
            ),
            (_, false) => {}
        }
    }
    if setup.kind == Kind::Strands {
        write(
            &work.join("session_s1/session.json"),
            br#"{"session_id": "s1", "session_type": "AGENT"}"#,
        );
    }
    mkdir(outside);
    let mut out = Vec::new();
    // Each folder's next index; `None` before its first file, which is 0.
    let mut index: [Option<u64>; 2] = [None, None];
    let mut taken = BTreeSet::new();
    for (i, (c, bytes)) in files.iter().take(MAX_FILES).enumerate() {
        let folder = usize::from(setup.two && c & 32 != 0);
        let n = index[folder].map_or(0, |n| n + [1, 2, 0, 10][usize::from(c & 3)]);
        index[folder] = Some(n);
        let (name, read) = file_name(setup.kind, n, (c >> 2) & 7);
        let path = setup.folder(folder).join(&name);
        if !taken.insert(path.clone()) {
            continue;
        }
        let full = work.join(&path);
        let regular = c & 192 == 0;
        if c & 128 != 0 {
            mkdir(&full);
        } else if c & 64 != 0 {
            let target = outside.join(format!("{i}.json"));
            write(&target, bytes);
            #[cfg(unix)]
            std::os::unix::fs::symlink(&target, &full).expect("the fuzz target makes links");
        } else {
            write(&full, bytes);
        }
        out.push(Written {
            path,
            folder,
            index: read.then_some(n),
            regular,
        });
    }
    out
}

/// What toolcheck may change: per folder, the files it reads (after the `removed` first by
/// position, for Strands), and the other picked files it reaches, each an input of its own:
/// in a walk, or every file of an OpenHands `events` directory that is no folder (without
/// `base_state.json` and any entry named as an event), which naming it walks.
fn readable(setup: &Setup, written: &[Written]) -> (BTreeSet<PathBuf>, BTreeSet<PathBuf>) {
    let mut members = BTreeSet::new();
    let mut alone = BTreeSet::new();
    for folder in 0..2 {
        if !setup.reached(folder) {
            continue;
        }
        let files = || written.iter().filter(move |w| w.folder == folder);
        let is_folder =
            setup.kind == Kind::Strands || setup.records || files().any(|w| w.index.is_some());
        let mut listed: Vec<(u64, &PathBuf)> = files()
            .filter(|w| w.regular)
            .filter_map(|w| Some((w.index?, &w.path)))
            .collect();
        listed.sort();
        let skip = match (setup.kind, setup.records) {
            (Kind::Strands, true) => setup.removed,
            _ => 0,
        };
        members.extend(listed.into_iter().skip(skip).map(|(_, p)| p.clone()));
        if setup.walks() || !is_folder {
            alone.extend(
                files()
                    .filter(|w| w.regular && w.index.is_none() && picked(&w.path))
                    .map(|w| w.path.clone()),
            );
        }
    }
    (members, alone)
}

/// Runs `toolcheck ARGS` in process, as `main` does; returns its exit code.
fn toolcheck(args: &[String]) -> u8 {
    let cli =
        Cli::try_parse_from(std::iter::once("toolcheck".to_string()).chain(args.iter().cloned()))
            .unwrap_or_else(|e| panic!("the fuzz target's arguments parse: {e}"));
    super::support::quiet(|| toolcheck::app::run_code(cli.command))
}

fn fail_folder(name: &str, message: String) -> Result<(), ()> {
    fail("folder", name, message)
}

macro_rules! ensure {
    ($name:literal, $cond:expr, $($message:tt)+) => {
        if !$cond {
            fail_folder($name, format!($($message)+))?;
        }
    };
}

/// The files `fix` arguments name: the options, then the path.
fn fix_args(setup: &Setup, extra: &[&str], path: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["fix", "--no-config", "-j", "1", "-q", "--color", "never"]
        .into_iter()
        .chain(extra.iter().copied())
        .map(str::to_string)
        .collect();
    if setup.unsafe_fixes {
        args.push("--unsafe-fixes".into());
    }
    if setup.remove_call {
        args.extend(["--unpaired".to_string(), "remove-call".to_string()]);
    }
    args.push(path.display().to_string());
    args
}

/// The path the command line names, under `work`.
fn named_path(work: &Path, setup: &Setup, members: &BTreeSet<PathBuf>) -> PathBuf {
    let folder = setup.folder(0);
    match setup.named {
        0 => work.join(folder),
        1 => members
            .iter()
            .find(|p| p.starts_with(&folder))
            .map_or_else(|| work.join(&folder), |p| work.join(p)),
        2 => work.join(folder.iter().next().unwrap_or_default()),
        _ => work.to_path_buf(),
    }
}

/// Runs the `folder` target's check on one input (two option bytes, then files).
pub fn check(data: &[u8]) {
    let outcome = run(data);
    super::trace_line(|| format!("{outcome:?}"));
}

fn split(rest: &[u8]) -> Vec<(u8, &[u8])> {
    rest.split(|&b| b == 0xFF)
        .filter_map(|piece| piece.split_first().map(|(c, b)| (*c, b)))
        .take(MAX_FILES)
        .collect()
}

fn run(data: &[u8]) -> Result<bool, ()> {
    let Some((options, rest)) = super::split_input(data) else {
        return Ok(false);
    };
    let setup = Setup::new(options);
    super::trace_line(|| format!("{setup:?}"));
    let files = split(rest);
    let dir = TempDir::new("folder");
    let (work, outside) = (dir.path().join("work"), dir.path().join("outside"));
    let written = build(&work, &outside, &setup, &files);
    let (members, alone) = readable(&setup, &written);
    let named = named_path(&work, &setup, &members);

    let before = tree(dir.path());
    // A file of its own that is not UTF-8 is left alone with an error (exit 2), by design:
    // then exit 2 says nothing of the folder.
    let undecodable = alone.iter().any(|p| {
        matches!(before.get(&Path::new("work").join(p)), Some(Entry::File(b)) if std::str::from_utf8(b).is_err())
    });
    let failed = |code: u8| code == 2 && !undecodable;
    // The dry runs: the diff for a reader, then the patch; neither writes.
    for extra in [&[][..], &["--diff"][..]] {
        let code = toolcheck(&fix_args(&setup, extra, &named));
        ensure!(
            "fix",
            !failed(code),
            "`fix` exited 2 ({setup:?}): see the error above"
        );
    }
    let mut opts = toolcheck::lint::LintOptions::default();
    if setup.remove_call {
        opts.rule_options.unpaired = toolcheck::rules::UnpairedFix::RemoveCall;
    }
    if let Ok(found) = toolcheck::embed::lint_paths(&[named.display().to_string()], &opts) {
        for d in &found {
            assert!(d.start <= d.end, "{}: span {}..{}", d.code, d.start, d.end);
        }
    }
    let after_dry = tree(dir.path());
    if after_dry != before {
        let changed = changed_paths(&before, &after_dry);
        let _ = fail_folder(
            "read-only",
            format!("linting or a dry run changed {changed:?}"),
        );
    }

    let code = toolcheck(&fix_args(&setup, &["--write"], &named));
    ensure!(
        "fix",
        !failed(code),
        "`fix --write` exited 2 ({setup:?}): see the error above"
    );
    let after = tree(dir.path());
    let changed = changed_paths(&after_dry, &after);
    let may_change = |p: &Path| {
        p.strip_prefix("work")
            .is_ok_and(|rel| members.contains(rel) || alone.contains(rel))
    };
    for path in &changed {
        let (was, now) = (after_dry.get(path), after.get(path));
        ensure!(
            "untouched",
            may_change(path) && matches!((was, now), (Some(Entry::File(_)), Some(Entry::File(_)))),
            "{} was {} ({setup:?})",
            path.display(),
            match (was, now) {
                (None, _) => "created",
                (_, None) => "removed",
                _ => "changed, but toolcheck does not read it",
            }
        );
        if let (Some(Entry::File(old)), Some(Entry::File(new))) = (was, now) {
            let parses = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).is_ok();
            ensure!(
                "json",
                !parses(old) || parses(new),
                "{}: valid JSON before the fix, not after: {:?}",
                path.display(),
                String::from_utf8_lossy(new)
            );
        }
    }

    let code = toolcheck(&fix_args(&setup, &["--write"], &named));
    let again = tree(dir.path());
    ensure!(
        "idempotent",
        !failed(code) && again == after,
        "a second `fix --write` exited {code} and changed {:?}",
        changed_paths(&after, &again)
    );

    if let Some(k) = setup.read_only {
        read_only_copy(
            &setup,
            &files,
            &written,
            k,
            &changed,
            &before,
            &after,
            undecodable,
        )?;
    }
    Ok(!changed.is_empty())
}

/// The second copy: the same sessions, file `k` of the regular ones read-only.
#[allow(clippy::too_many_arguments)]
fn read_only_copy(
    setup: &Setup,
    files: &[(u8, &[u8])],
    written: &[Written],
    k: usize,
    changed: &[PathBuf],
    before: &BTreeMap<PathBuf, Entry>,
    after: &BTreeMap<PathBuf, Entry>,
    undecodable: bool,
) -> Result<(), ()> {
    let regular: Vec<&Written> = written.iter().filter(|w| w.regular).collect();
    let Some(chosen) = regular.get(k % regular.len().max(1)) else {
        return Ok(());
    };
    let dir = TempDir::new("folder-ro");
    let (work, outside) = (dir.path().join("work"), dir.path().join("outside"));
    build(&work, &outside, setup, files);
    let locked = work.join(&chosen.path);
    let mut perms = std::fs::metadata(&locked)
        .expect("the fuzz target's file")
        .permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&locked, perms).expect("the fuzz target sets permissions");
    let named = named_path(&work, setup, &readable(setup, written).0);
    let code = toolcheck(&fix_args(setup, &["--write"], &named));
    let now = tree(dir.path());
    let rel = Path::new("work").join(&chosen.path);
    let expected: BTreeMap<PathBuf, Entry> = if changed.contains(&rel) {
        // Its folder (or the file alone) stays as read; everything else is written.
        let unit = match chosen.index {
            Some(_) => Path::new("work").join(setup.folder(chosen.folder)),
            None => rel.clone(),
        };
        ensure!(
            "all-or-nothing",
            code == 2,
            "`fix --write` of a read-only file it changes exited {code}"
        );
        after
            .iter()
            .map(|(p, e)| {
                let e = if p.starts_with(&unit) {
                    before.get(p).cloned().unwrap_or_else(|| e.clone())
                } else {
                    e.clone()
                };
                (p.clone(), e)
            })
            .collect()
    } else {
        ensure!(
            "all-or-nothing",
            code != 2 || undecodable,
            "`fix --write` exited 2 with a read-only file it does not change"
        );
        after.clone()
    };
    ensure!(
        "all-or-nothing",
        now == expected,
        "with {} read-only, `fix --write` changed {:?} where it should have changed {:?}",
        chosen.path.display(),
        changed_paths(before, &now),
        changed_paths(before, &expected)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(f: u8, r: u8, files: &[(u8, &str)]) -> Vec<u8> {
        let mut out = vec![f, r];
        for (i, (c, text)) in files.iter().enumerate() {
            if i > 0 {
                out.push(0xFF);
            }
            out.push(*c);
            out.extend_from_slice(text.as_bytes());
        }
        out
    }

    const USER: &str = r#"{"message": {"role": "user", "content": [{"text": "List the files"}]}, "message_id": 0, "redact_message": null}"#;
    const CALL: &str = r#"{"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "shell", "input": {"command": "ls"}}}]}, "message_id": 1, "redact_message": null}"#;
    const AGAIN: &str = r#"{"message": {"role": "user", "content": [{"text": "Go on"}]}, "message_id": 2, "redact_message": null}"#;

    #[test]
    fn every_spelling_is_named_once() {
        for kind in [Kind::Strands, Kind::OpenHands] {
            let names: BTreeSet<String> = (0..8).map(|s| file_name(kind, 3, s).0).collect();
            assert_eq!(names.len(), 8);
        }
    }

    #[test]
    fn a_strands_folder_is_fixed_and_checked() {
        // A call the next user message does not answer, under each way of naming it, with a
        // second agent, and with one file read-only.
        let files = [(0, USER), (0, CALL), (0, AGAIN), (32, CALL), (32, AGAIN)];
        for named in 0..4u8 {
            // The read-only file: the first (left as it is), the third (which the fix edits).
            for (extra, r) in [(0, 0), (128, 0), (64, 0), (64 | 128, 16), (8, 0)] {
                let f = (named << 1) | extra;
                assert_eq!(run(&input(f, r, &files)), Ok(true), "f = {f}, r = {r}");
            }
        }
    }

    #[test]
    fn files_toolcheck_does_not_read_stay() {
        // The call's file is a link, a directory, a backup; the first is removed by the window.
        for c in [64, 128, 3 << 2] {
            let data = input(0, 0, &[(0, USER), (c, CALL), (0, AGAIN)]);
            assert_eq!(run(&data), Ok(false), "c = {c}");
        }
        let data = input(8, 2, &[(0, USER), (0, CALL), (0, AGAIN)]);
        assert_eq!(run(&data), Ok(false), "removed_message_count 2");
    }

    /// The fixtures' session folders, whichever crate runs this (the fuzz crate or the
    /// main crate's `tests/fuzz_regressions.rs`).
    fn fixture_folder(rel: &str) -> Vec<Vec<u8>> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = [root.join("fixtures"), root.join("../fixtures")]
            .into_iter()
            .find(|d| d.is_dir())
            .expect("the fixtures")
            .join(rel);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("a fixture folder")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| std::fs::read(p).expect("a fixture"))
            .collect()
    }

    #[test]
    fn fixture_folders_hold_every_invariant() {
        let folders = [
            (0, "strands/session_broken/agents/agent_default/messages"),
            (0, "strands/session_fixable/agents/agent_default/messages"),
            (
                1,
                "openhands/v1-broken/5e6f708192a34b5c8d9eafb0c1d2e3f4/events",
            ),
            (
                1,
                "openhands/v1-clean/0a1b2c3d4e5f40718293a4b5c6d7e8f9/events",
            ),
        ];
        for (kind, rel) in folders {
            let files = fixture_folder(rel);
            let mut data = Vec::new();
            for (i, file) in files.iter().enumerate() {
                if i > 0 {
                    data.push(0xFF);
                }
                data.push(0);
                data.extend_from_slice(file);
            }
            for f in [0, 8 | 2, 16 | 4, 32 | 6, 64] {
                let mut input = vec![kind | f, 9];
                input.extend_from_slice(&data);
                assert!(run(&input).is_ok(), "{rel}, f = {f}");
            }
        }
    }
}
