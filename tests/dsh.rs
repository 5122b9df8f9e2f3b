//! DeepSeek Harness (`dsh`) sessions, end to end through the binary: `session.jsonl.zstd`
//! logs read as the text their frames decompress to (a torn tail, a damaged frame, the
//! size bound), what dsh sends on resume, `doctor --agent deepseek-harness`, and that its
//! records take no other format's files. The fixtures are generated from the sources in
//! `tests/data/dsh/` (see its README).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{root, toolcheck, toolcheck_bytes, toolcheck_in};
use proptest::prelude::*;

/// One frame of `text`, with its content checksum, as dsh writes each (`zstdCompress` with
/// `ZSTD_c_checksumFlag: 1` at the default level).
fn frame(text: &str) -> Vec<u8> {
    let mut encoder = zstd::bulk::Compressor::new(3).expect("an encoder");
    encoder
        .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
        .expect("checksums");
    encoder.compress(text.as_bytes()).expect("compresses")
}

/// The file a `.frames` source stands for (see `tests/data/dsh/README.md`).
fn build(source: &str) -> Vec<u8> {
    let mut file = Vec::new();
    let mut torn = 0;
    for block in source.split("\n---\n") {
        let (corrupt, block) = match block.strip_prefix("--- corrupt\n") {
            Some(rest) => (true, rest),
            None => (false, block),
        };
        let mut lines = String::new();
        for line in block.lines() {
            match line.strip_prefix("--- torn ") {
                Some(n) => torn = n.trim().parse().expect("a byte count"),
                None => {
                    lines.push_str(line);
                    lines.push('\n');
                }
            }
        }
        if lines.is_empty() {
            continue;
        }
        let mut bytes = frame(&lines);
        if corrupt {
            if let Some(last) = bytes.last_mut() {
                *last ^= 0x5a;
            }
        }
        file.extend(bytes);
    }
    file.truncate(file.len() - torn);
    file
}

fn sources() -> Vec<(String, PathBuf)> {
    let dir = root().join("tests/data/dsh");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .expect("the sources")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".frames")?.to_string();
            Some((stem, e.path()))
        })
        .collect();
    out.sort();
    out
}

/// Every `.jsonl.zstd` fixture is its source's frames: written again with
/// `UPDATE_FIXTURES=1`, otherwise each must decompress to what its source says.
#[test]
fn fixtures_are_generated_from_their_sources() {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    for (stem, path) in sources() {
        let source = std::fs::read_to_string(&path).expect("a source");
        let built = build(&source);
        let target = root().join(format!("fixtures/dsh/{stem}.jsonl.zstd"));
        if update {
            std::fs::write(&target, &built).expect("write the fixture");
            continue;
        }
        let committed = std::fs::read(&target)
            .unwrap_or_else(|_| panic!("{stem}: run with UPDATE_FIXTURES=1 to generate it"));
        let limit = 1 << 24;
        let text = |bytes: &[u8]| {
            toolcheck::zstd_log::decode(bytes, limit)
                .expect("within the limit")
                .bytes()
                .to_vec()
        };
        assert_eq!(
            text(&committed),
            text(&built),
            "{stem}: the fixture is not its source's; run with UPDATE_FIXTURES=1"
        );
        let frames = |bytes: &[u8]| toolcheck::zstd_log::scan(bytes).frames.len();
        assert_eq!(frames(&committed), frames(&built), "{stem}: its frames");
    }
}

fn concise(file: &str) -> common::Output {
    toolcheck(&["lint", file, "--output-format", "concise"])
}

#[test]
fn clean_sessions_are_clean() {
    for file in [
        "fixtures/dsh/clean-session.jsonl.zstd",
        "fixtures/dsh/clean-packed-chunks.jsonl.zstd",
    ] {
        let out = toolcheck(&["lint", "-v", file]);
        assert_eq!(out.code, 0, "{file}: {}", out.transcript());
        assert!(
            out.stderr.contains("deepseek-harness"),
            "{file}: {}",
            out.transcript()
        );
    }
}

/// Every dsh fixture, concisely: locations are lines of the decompressed log.
#[test]
fn lint_concise() {
    let out = toolcheck(&["lint", "fixtures/dsh", "--output-format", "concise"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// Killed while a tool ran: dsh answers both calls of the stopped step on resume, the one
/// it recorded as started and the one it never started, each with its own text.
#[test]
fn interrupted_mid_tool() {
    let out = toolcheck(&[
        "lint",
        "fixtures/dsh/broken-interrupted-mid-tool.jsonl.zstd",
    ]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn interrupted_mid_tool_json() {
    let out = toolcheck(&[
        "lint",
        "fixtures/dsh/broken-interrupted-mid-tool.jsonl.zstd",
        "--output-format",
        "json",
    ]);
    let findings: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let placeholders: Vec<&str> = findings
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|f| f["replay"]["placeholder"].as_str())
        .collect();
    assert_eq!(placeholders.len(), 2, "{}", out.stdout);
    assert!(
        placeholders[0].contains("Its outcome is unknown"),
        "{placeholders:?}"
    );
    assert!(
        placeholders[1].contains("before the Harness recorded it as started"),
        "{placeholders:?}"
    );
    insta::assert_snapshot!(out.stdout);
}

/// The file ends inside the frame of the first result: said so, and the call is then one
/// dsh answers on resume.
#[test]
fn torn_tail() {
    let out = toolcheck(&["lint", "fixtures/dsh/broken-torn-tail.jsonl.zstd"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC003"), "{}", out.stdout);
    insta::assert_snapshot!(out.transcript());
}

/// A damaged frame names its byte offset; nothing panics and nothing is written.
#[test]
fn corrupt_frame_is_named_by_its_offset() {
    let out = concise("fixtures/dsh/broken-corrupt-frame.jsonl.zstd");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("corrupt Zstandard frame at byte"),
        "{}",
        out.stdout
    );
}

/// A later release's format (header `version` 4) is said to be not read, never passed.
#[test]
fn newer_format_is_not_read_yet() {
    let out = concise("fixtures/dsh/broken-newer-format.jsonl.zstd");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("does not read yet"), "{}", out.stdout);
}

/// A fixture copied into a temporary directory as `session.jsonl.zstd`, with its bytes.
fn session_copy(fixture: &str) -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("session.jsonl.zstd");
    let bytes = std::fs::read(root().join("fixtures/dsh").join(fixture)).expect("fixture");
    std::fs::write(&file, &bytes).expect("copy");
    (dir, file, bytes)
}

/// The text a log's frames decompress to.
fn text_of(bytes: &[u8]) -> String {
    let log = toolcheck::zstd_log::decode(bytes, 1 << 24).expect("within the limit");
    String::from_utf8(log.bytes().to_vec()).expect("UTF-8")
}

/// The dry run shows the two results dsh's resume repair would append, one per call of the
/// stopped step, each at the next seq, and writes nothing.
#[test]
fn fix_shows_the_results_dsh_would_append() {
    let (dir, file, bytes) = session_copy("broken-interrupted-mid-tool.jsonl.zstd");
    let dry = toolcheck_in(dir.path(), &["fix", "session.jsonl.zstd"], None);
    assert_eq!(dry.code, 1, "{}", dry.transcript());
    assert_eq!(std::fs::read(&file).expect("read"), bytes);
    insta::assert_snapshot!(dry.transcript());
}

/// `fix --write` appends those results as one new frame: every frame before it keeps its
/// bytes, the file decodes to the text plus the two events, `lint` is clean, and a second
/// `fix --write` changes nothing.
#[test]
fn fix_write_appends_one_frame_and_converges() {
    let (dir, file, bytes) = session_copy("broken-interrupted-mid-tool.jsonl.zstd");
    #[cfg(unix)]
    let inode = || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&file).expect("stat"));
    #[cfg(unix)]
    let before_inode = inode();
    let write = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl.zstd"], None);
    assert_eq!(write.code, 0, "{}", write.transcript());
    // Appended in place, as dsh appends a batch: the same file, not a replacement.
    #[cfg(unix)]
    assert_eq!(inode(), before_inode);
    let written = std::fs::read(&file).expect("read");
    assert!(
        written.starts_with(&bytes),
        "the frames as read keep their bytes"
    );
    let frames = |b: &[u8]| toolcheck::zstd_log::scan(b).frames.len();
    assert_eq!(frames(&written), frames(&bytes) + 1);
    let (before, after) = (text_of(&bytes), text_of(&written));
    let added = after.strip_prefix(&before).expect("only added lines");
    insta::assert_snapshot!(added);
    let lint = toolcheck_in(dir.path(), &["lint", "session.jsonl.zstd"], None);
    assert_eq!(lint.code, 0, "{}", lint.transcript());
    let again = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl.zstd"], None);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert!(
        again.stderr.contains("Nothing to fix"),
        "{}",
        again.transcript()
    );
    assert_eq!(std::fs::read(&file).expect("read"), written);
}

/// A frame the agent appends after the log was read is never lost: the write is refused,
/// and the file holds what it had plus the agent's frame.
#[test]
fn a_frame_appended_meanwhile_is_not_lost() {
    let (_dir, file, bytes) = session_copy("broken-interrupted-mid-tool.jsonl.zstd");
    let log = toolcheck::zstd_log::read(&file, "session.jsonl.zstd", 1 << 24)
        .expect("readable")
        .expect("within the limit");
    let fixed = format!("{}{{\"type\":\"step/end\",\"seq\":7}}\n", text_of(&bytes));
    let agent = frame("{\"type\":\"tool/result\",\"seq\":7}\n");
    let mut appended = bytes.clone();
    appended.extend(&agent);
    std::fs::write(&file, &appended).expect("the agent appends");
    let err = log
        .write(&file, "session.jsonl.zstd", &fixed)
        .expect_err("refused");
    assert!(err.to_string().contains("changed on disk"), "{err}");
    assert_eq!(std::fs::read(&file).expect("read"), appended);
}

/// The plain `session.jsonl` of `compression: none` gets the same appended line.
#[test]
fn fix_write_appends_to_a_plain_log() {
    let (dir, _, bytes) = session_copy("broken-interrupted-mid-tool.jsonl.zstd");
    let plain = dir.path().join("session.jsonl");
    std::fs::write(&plain, text_of(&bytes)).expect("write");
    let write = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl"], None);
    assert_eq!(write.code, 0, "{}", write.transcript());
    let after = std::fs::read_to_string(&plain).expect("read");
    let compressed = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl.zstd"], None);
    assert_eq!(compressed.code, 0, "{}", compressed.transcript());
    assert_eq!(
        after,
        text_of(&std::fs::read(dir.path().join("session.jsonl.zstd")).expect("read"))
    );
}

/// A torn tail, a damaged frame and stdin are never written: each fix is withheld and says
/// why, and the file's bytes (or what stdin echoes) are what was read.
#[test]
fn torn_damaged_and_stdin_logs_are_not_written() {
    let (dir, file, bytes) = session_copy("broken-torn-tail.jsonl.zstd");
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl.zstd"], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(std::fs::read(&file).expect("read"), bytes);
    let lint = toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "json", "session.jsonl.zstd"],
        None,
    );
    assert!(
        lint.stdout.contains("does not rewrite a torn log"),
        "{}",
        lint.transcript()
    );

    // The interrupted session with a damaged frame after its last.
    let (dir, file, mut bytes) = session_copy("broken-interrupted-mid-tool.jsonl.zstd");
    let mut bad =
        frame("{\"type\":\"step/end\",\"seq\":7,\"time\":1,\"data\":{\"turn\":1,\"step\":1}}\n");
    if let Some(last) = bad.last_mut() {
        *last ^= 0x5a;
    }
    bytes.extend(bad);
    std::fs::write(&file, &bytes).expect("write");
    let out = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl.zstd"], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(std::fs::read(&file).expect("read"), bytes);
    let lint = toolcheck_in(dir.path(), &["lint", "session.jsonl.zstd"], None);
    assert!(lint.stdout.contains("is damaged"), "{}", lint.transcript());

    // stdin: `fix --write -` is a filter, and passes the compressed bytes through as read.
    let bytes = std::fs::read(root().join("fixtures/dsh/broken-interrupted-mid-tool.jsonl.zstd"))
        .expect("fixture");
    let args = [
        "fix",
        "--write",
        "-",
        "--stdin-filename",
        "session.jsonl.zstd",
    ];
    let (echoed, out) = toolcheck_bytes(&root(), &args, Some(&bytes));
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(echoed, bytes);
    let lint = [
        "lint",
        "-",
        "--stdin-filename",
        "session.jsonl.zstd",
        "--output-format",
        "json",
    ];
    let (_, out) = toolcheck_bytes(&root(), &lint, Some(&bytes));
    assert!(
        out.stdout.contains("read from stdin is not rewritten"),
        "{}",
        out.transcript()
    );
}

/// What is not the stopped step's is withheld with why: a closed step's unanswered call
/// (no line can go in the middle of dense seqs) and a stray result (no line can go).
#[test]
fn other_fixes_say_why_they_are_withheld() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "json",
        "fixtures/dsh/broken-unanswered-call.jsonl.zstd",
        "fixtures/dsh/broken-orphaned-result.jsonl",
    ]);
    let findings: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let helps: Vec<(&str, &str)> = findings
        .as_array()
        .expect("an array")
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default(),
                f["help"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    insta::assert_debug_snapshot!(helps);
}

/// A log read from stdin is decompressed as a file is.
#[test]
fn stdin_is_decompressed() {
    let bytes =
        std::fs::read(root().join("fixtures/dsh/clean-session.jsonl.zstd")).expect("fixture");
    let (_, out) = toolcheck_bytes(
        &root(),
        &["lint", "-", "--stdin-filename", "session.jsonl.zstd"],
        Some(&bytes),
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
}

/// What the frames decompress to is held to `--max-file-size`: a small file that expands
/// past it is not checked, and says so.
#[test]
fn decompressed_size_is_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = format!("{}\n", "x".repeat(1 << 20));
    std::fs::write(dir.path().join("bomb.jsonl.zstd"), frame(&big)).expect("write");
    let out = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--max-file-size",
            "64K",
            "--output-format",
            "concise",
            "bomb.jsonl.zstd",
        ],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC003"), "{}", out.transcript());
}

/// The plain `session.jsonl` of `compression: none` is read too; its stray result is sent
/// as held, so it stays an error.
#[test]
fn plain_log_is_read() {
    let out = concise("fixtures/dsh/broken-orphaned-result.jsonl");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC101"), "{}", out.stdout);
    assert!(out.stdout.contains("error"), "{}", out.stdout);
}

/// dsh's header and events outscore pi's, Droid's and Kimi's records, and theirs stay theirs.
#[test]
fn sniffing_takes_no_other_format_s_files() {
    for (file, format) in [
        ("fixtures/pi/clean-session.jsonl", "(pi"),
        ("fixtures/droid/clean-session.jsonl", "(droid"),
        ("fixtures/kimi-cli/clean-session.jsonl", "(kimi-cli"),
        (
            "fixtures/dsh/broken-orphaned-result.jsonl",
            "(deepseek-harness",
        ),
    ] {
        let out = toolcheck(&["lint", "-v", "--exit-zero", file]);
        let line = out
            .stderr
            .lines()
            .find(|l| l.starts_with("checked "))
            .unwrap_or_default();
        assert!(line.contains(format), "{file}: {}", out.transcript());
    }
}

/// A fake home: `~/.dsh/sessions/--<project>--/<id>/session.jsonl.zstd`, found and judged
/// by what dsh sends on resume; `DSH_HOME` moves it.
fn home_with_sessions(base: &Path) {
    for (id, fixture) in [
        ("session-01JZ8K3Q4MCLEAN", "clean-session.jsonl.zstd"),
        (
            "session-01JZ8K3Q4MKILLED",
            "broken-interrupted-mid-tool.jsonl.zstd",
        ),
        (
            "session-01JZ8K3Q4MHELDXX",
            "broken-unanswered-call.jsonl.zstd",
        ),
    ] {
        let dir = base.join("sessions/--home-dev-shop--").join(id);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::copy(
            root().join("fixtures/dsh").join(fixture),
            dir.join("session.jsonl.zstd"),
        )
        .expect("copy");
    }
    // A crash during a session's first write leaves its temporary file: not a session.
    let tmp = base.join("sessions/--home-dev-shop--/session-01JZ8K3Q4MCLEAN");
    std::fs::write(tmp.join("session.jsonl.zstd.0a1b2c3d4e5f.tmp"), b"").expect("tmp");
}

fn doctor(home: &Path, vars: &[(&str, &Path)], args: &[&str]) -> common::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolcheck"));
    command
        .arg("doctor")
        .args(args)
        .current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("NO_COLOR", "1");
    for (k, v) in vars {
        command.env(k, v);
    }
    let out = command.output().expect("toolcheck runs");
    let redact =
        |b: &[u8]| String::from_utf8_lossy(b).replace(&home.display().to_string(), "[HOME]");
    common::Output {
        stdout: redact(&out.stdout),
        stderr: redact(&out.stderr),
        code: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn doctor_finds_sessions_in_the_home() {
    let home = tempfile::tempdir().expect("tempdir");
    home_with_sessions(&home.path().join(".dsh"));
    let out = doctor(home.path(), &[], &["--agent", "deepseek-harness"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("3 sessions checked"),
        "{}",
        out.transcript()
    );
    assert!(!out.stdout.contains(".tmp"), "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn doctor_follows_dsh_home() {
    let home = tempfile::tempdir().expect("tempdir");
    let moved = home.path().join("elsewhere");
    home_with_sessions(&moved);
    let out = doctor(
        home.path(),
        &[("DSH_HOME", &moved)],
        &["--agent", "deepseek-harness", "-v"],
    );
    assert!(
        out.stdout.contains("3 sessions checked"),
        "{}",
        out.transcript()
    );
    assert!(out.stderr.contains("$DSH_HOME"), "{}", out.transcript());
    // `doctor --fix` answers the killed session's open calls as dsh would, backed up first:
    // one frame appended, every byte before it kept; the held call of the other is not fixed.
    let killed =
        moved.join("sessions/--home-dev-shop--/session-01JZ8K3Q4MKILLED/session.jsonl.zstd");
    let held = moved.join("sessions/--home-dev-shop--/session-01JZ8K3Q4MHELDXX/session.jsonl.zstd");
    let (before, held_before) = (
        std::fs::read(&killed).expect("read"),
        std::fs::read(&held).expect("read"),
    );
    let state = home.path().join("state");
    let fixed = doctor(
        home.path(),
        &[("DSH_HOME", &moved), ("XDG_STATE_HOME", &state)],
        &["--agent", "deepseek-harness", "--fix", "--force"],
    );
    assert!(fixed.code <= 1, "{}", fixed.transcript());
    let after = std::fs::read(&killed).expect("read");
    assert!(
        after.starts_with(&before) && after.len() > before.len(),
        "{}",
        fixed.transcript()
    );
    assert_eq!(std::fs::read(&held).expect("read"), held_before);
    assert!(fixed.stdout.contains("backup"), "{}", fixed.transcript());
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Frames of any lines cut anywhere: the decoder keeps a prefix of the text made of whole
    /// lines, finds every frame before the cut, and says where the torn one starts.
    #[test]
    fn a_cut_anywhere_keeps_whole_lines(
        frames in proptest::collection::vec(proptest::collection::vec("[a-z{}\":,]{0,40}", 1..4), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let texts: Vec<String> = frames.iter().map(|lines| lines.iter().map(|l| format!("{l}\n")).collect()).collect();
        let mut file = Vec::new();
        let mut starts = Vec::new();
        for t in &texts {
            starts.push(file.len());
            file.extend(frame(t));
        }
        let whole: String = texts.concat();
        let at = cut.index(file.len() + 1);
        let part = file.get(..at).unwrap_or_default();
        let log = toolcheck::zstd_log::decode(part, 1 << 20).expect("within the limit");
        let text = String::from_utf8(log.bytes().to_vec()).expect("UTF-8");
        prop_assert!(whole.starts_with(&text));
        prop_assert!(text.is_empty() || text.ends_with('\n'));
        let scan = toolcheck::zstd_log::scan(part);
        let complete = starts.iter().skip(1).chain(std::iter::once(&file.len())).filter(|&&e| e <= at).count();
        prop_assert_eq!(scan.frames.len(), complete);
        if at < file.len() && !starts.contains(&at) {
            prop_assert_eq!(scan.torn, starts.get(complete).copied());
        }
    }

    /// Frames of any lines: the text they read as, written back unchanged, is the file's
    /// bytes exactly; lines added after them are one more frame, the frames before it kept.
    #[test]
    fn rewriting_the_text_as_read_changes_no_byte(
        frames in proptest::collection::vec(proptest::collection::vec("[a-z{}\":,]{0,40}", 1..4), 1..6),
        added in proptest::collection::vec("[a-z{}\":,]{0,40}", 0..3),
    ) {
        let file: Vec<u8> = frames
            .iter()
            .flat_map(|lines| frame(&lines.iter().map(|l| format!("{l}\n")).collect::<String>()))
            .collect();
        let log = toolcheck::zstd_log::decode_file(file.clone(), 1 << 20).expect("within the limit");
        prop_assert_eq!(&log.rewrite(log.bytes()).expect("rewritten"), &file);
        let more: String = added.iter().map(|l| format!("{l}\n")).collect();
        let text = [log.bytes(), more.as_bytes()].concat();
        let out = log.rewrite(&text).expect("rewritten");
        prop_assert!(out.starts_with(&file));
        let again = toolcheck::zstd_log::decode(&out, 1 << 20).expect("within the limit");
        prop_assert_eq!(again.bytes(), text.as_slice());
    }

    /// Any bytes after a valid first frame: no panic, and the first frame's text is kept.
    #[test]
    fn garbage_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        const HEAD: &str = "{\"type\":\"session\"}\n";
        let mut file = frame(HEAD);
        file.extend(tail);
        if let Some(log) = toolcheck::zstd_log::decode(&file, 1 << 20) {
            let kept = log.bytes().starts_with(HEAD.as_bytes());
            prop_assert!(kept);
        }
    }
}
