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

/// `fix` offers nothing for a dsh session and says why; `--write` leaves the file's bytes.
#[test]
fn fix_says_there_is_no_automatic_fix_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("session.jsonl.zstd");
    let bytes = std::fs::read(root().join("fixtures/dsh/broken-interrupted-mid-tool.jsonl.zstd"))
        .expect("fixture");
    std::fs::write(&file, &bytes).expect("copy");
    let dry = toolcheck_in(dir.path(), &["fix", "session.jsonl.zstd"], None);
    assert!(
        dry.stdout.contains("no automatic fix") || dry.stderr.contains("no automatic fix"),
        "{}",
        dry.transcript()
    );
    let write = toolcheck_in(dir.path(), &["fix", "--write", "session.jsonl.zstd"], None);
    assert!(write.code <= 1, "{}", write.transcript());
    assert_eq!(std::fs::read(&file).expect("read"), bytes);
    insta::assert_snapshot!(dry.transcript());
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
    // `doctor --fix` has nothing it may write in a dsh session.
    let before = std::fs::read(
        moved.join("sessions/--home-dev-shop--/session-01JZ8K3Q4MKILLED/session.jsonl.zstd"),
    )
    .expect("read");
    let fixed = doctor(
        home.path(),
        &[("DSH_HOME", &moved)],
        &["--agent", "deepseek-harness", "--fix", "--force"],
    );
    assert!(fixed.code <= 1, "{}", fixed.transcript());
    let after = std::fs::read(
        moved.join("sessions/--home-dev-shop--/session-01JZ8K3Q4MKILLED/session.jsonl.zstd"),
    )
    .expect("read");
    assert_eq!(before, after);
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
