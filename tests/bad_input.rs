//! Hostile and broken input, one test per case: each names the finding or error the user
//! sees and the exit code. Nothing panics, nothing passes silently, nothing is lost.

use crate::common;

use std::path::{Path, PathBuf};

use common::{root, toolcheck_in, toolcheck_stdin, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    toolcheck_in(dir, args, None)
}

fn assert_no_panic(out: &Output) {
    assert!(
        !out.stderr.contains("panicked") && out.code != 101,
        "toolcheck panicked:\n{}",
        out.transcript()
    );
}

/// Lines of concise output that carry findings (`path:line:col: CODE ...`).
fn codes(out: &Output) -> Vec<String> {
    out.stdout
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let (_, line, col, rest) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            let code = rest.split_whitespace().next()?;
            code.starts_with("TC")
                .then(|| format!("{code}@{}:{}", line.trim(), col.trim()))
        })
        .collect()
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test file");
    path
}

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).expect("fixture exists")
}

/// A chat request whose only call has `arguments` as given (JSON text inside a string).
fn request_with_arguments(arguments: &str) -> String {
    let args = serde_json::to_string(arguments).expect("string");
    format!(
        r#"{{"tools": [{{"type": "function", "function": {{"name": "f", "parameters": {{"type": "object"}}}}}}],
  "messages": [
    {{"role": "user", "content": "go"}},
    {{"role": "assistant", "tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "f", "arguments": {args}}}}}]}},
    {{"role": "tool", "tool_call_id": "c1", "content": "ok"}},
    {{"role": "user", "content": "thanks"}}
  ]}}"#
    )
}

// ---- defect 1: session files without a final newline ----

#[test]
fn session_without_final_newline_is_linted_and_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    for rel in [
        "fixtures/claude-code/broken-compaction-orphan.jsonl",
        "fixtures/codex/broken-arguments.jsonl",
    ] {
        let text = fixture(rel);
        let name = Path::new(rel).file_name().expect("name");
        let path = write(
            dir.path(),
            &name.to_string_lossy(),
            text.trim_end_matches('\n'),
        );
        let p = path.to_string_lossy();
        let lint = run(dir.path(), &["lint", &p, "--output-format", "concise"]);
        assert_no_panic(&lint);
        assert_eq!(lint.code, 1, "{}", lint.transcript());
        let fixed = run(dir.path(), &["fix", &p, "--write", "--unsafe-fixes"]);
        assert_no_panic(&fixed);
        assert!(fixed.code <= 1, "{}", fixed.transcript());
        let again = run(dir.path(), &["fix", &p, "--unsafe-fixes"]);
        assert!(
            again.stdout.is_empty(),
            "a second fix changes nothing: {}",
            again.transcript()
        );
    }
}

#[test]
fn every_line_prefix_of_every_session_fixture_is_handled() {
    let dir = tempfile::tempdir().expect("tempdir");
    for rel in common::fixture_files()
        .into_iter()
        .filter(|f| f.ends_with(".jsonl"))
    {
        let text = fixture(&rel);
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for k in 1..=lines.len() {
            let cut: String = lines.iter().take(k).copied().collect();
            let path = write(dir.path(), "cut.jsonl", cut.trim_end_matches('\n'));
            let out = run(dir.path(), &["fix", &path.to_string_lossy()]);
            assert_no_panic(&out);
            assert!(
                out.code <= 1,
                "{rel} cut after {k} lines: {}",
                out.transcript()
            );
        }
    }
}

// ---- defect 3: valid JSON beyond common parser limits ----

#[test]
fn huge_numbers_in_arguments_are_valid_json() {
    let text = request_with_arguments(r#"{"n": 1e400, "m": 123456789012345678901234567890}"#);
    let out = toolcheck_stdin(&["lint", "-", "--stdin-filename", "a.json"], &text);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let fix = toolcheck_stdin(
        &[
            "fix",
            "-",
            "--stdin-filename",
            "a.json",
            "--write",
            "--unsafe-fixes",
        ],
        &text,
    );
    assert_eq!(fix.code, 0, "{}", fix.transcript());
    // A filter: the input comes out as it went in.
    assert_eq!(fix.stdout, text, "nothing was changed");
}

#[test]
fn lone_surrogate_escapes_in_arguments_are_valid_json() {
    let text = request_with_arguments(r#"{"emoji": "\ud83d", "low": "\udc00 x"}"#);
    let out = toolcheck_stdin(&["lint", "-", "--stdin-filename", "a.json"], &text);
    assert_eq!(out.code, 0, "{}", out.transcript());
}

#[test]
fn deeply_nested_arguments_are_not_checked_rather_than_invalid() {
    let deep = format!(r#"{{"d": {}{}}}"#, "[".repeat(300), "]".repeat(300));
    let text = request_with_arguments(&deep);
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "a.json",
            "--output-format",
            "concise",
        ],
        &text,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(codes(&out), ["TC003@4:114"], "{}", out.transcript());
    assert!(out.stdout.contains("nest deeper than 128 levels"));
    let fix = toolcheck_stdin(
        &["fix", "-", "--stdin-filename", "a.json", "--unsafe-fixes"],
        &text,
    );
    assert!(
        fix.stdout.is_empty(),
        "no fix discards them: {}",
        fix.stdout
    );
}

#[test]
fn huge_numbers_and_lone_surrogates_in_a_file_do_not_stop_the_check() {
    // The file reads, and its real defect (an orphaned result) is still found.
    let text = r#"{"temperature": 1e400, "messages": [
  {"role": "user", "content": "\ud83d hi"},
  {"role": "tool", "tool_call_id": "gone", "content": "ok"}
]}"#;
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "a.json",
            "--output-format",
            "concise",
        ],
        text,
    );
    assert_eq!(codes(&out), ["TC101@3:3"], "{}", out.transcript());
    // Fixes are withheld where a value could only be read lossily: nothing is rewritten.
    let fix = toolcheck_stdin(&["fix", "-", "--stdin-filename", "a.json", "--write"], text);
    assert_eq!(fix.stdout, text, "{}", fix.transcript());
}

#[test]
fn deeply_nested_file_is_not_checked_rather_than_invalid() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(r#"{{"messages": {}{}}}"#, "[".repeat(500), "]".repeat(500));
    let path = write(dir.path(), "deep.json", text);
    let out = run(
        dir.path(),
        &[
            "lint",
            &path.to_string_lossy(),
            "--output-format",
            "concise",
        ],
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("TC003 [input-not-checked] file is nested deeper than 128 levels"),
        "{}",
        out.transcript()
    );
}

#[test]
fn deeply_nested_schema_is_handled() {
    let mut schema = String::from(r#"{"type": "object"}"#);
    for _ in 0..200 {
        schema = format!(r#"{{"type": "object", "properties": {{"x": {schema}}}}}"#);
    }
    let text = format!(
        r#"{{"tools": [{{"type": "function", "function": {{"name": "f", "parameters": {schema}}}}}], "messages": [{{"role": "user", "content": "hi"}}]}}"#
    );
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "s.json",
            "--output-format",
            "concise",
        ],
        &text,
    );
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC003"), "{}", out.transcript());
}

// ---- defect 4: writes that could lose data ----

#[test]
fn write_refuses_a_file_that_changed_size_or_inode_since_it_was_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "a.json", "[1]");
    let meta = std::fs::metadata(&file).expect("stat");
    let stamp = toolcheck::read::FileStamp::of(&meta);
    // Same bytes, new inode: another writer replaced the file.
    let other = write(dir.path(), "b.json", "[1]");
    std::fs::rename(&other, &file).expect("rename");
    let err = toolcheck::fix::write::write_atomic(&file, b"[1]", Some(&stamp), "[2]")
        .expect_err("refused")
        .to_string();
    assert!(err.contains("changed on disk"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "[1]");
}

#[cfg(unix)]
#[test]
fn write_refuses_hard_linked_and_read_only_files() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = fixture("fixtures/openai-chat/broken-request.json");
    let linked = write(dir.path(), "linked.json", &broken);
    std::fs::hard_link(&linked, dir.path().join("link2.json")).expect("hard link");
    let out = run(dir.path(), &["fix", "linked.json", "--write"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("hard links"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("Fixed "),
        "a failed write is not reported as fixed: {}",
        out.stderr
    );
    assert!(out.stderr.contains("not applied"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&linked).expect("read"), broken);

    let readonly = write(dir.path(), "ro.json", &broken);
    std::fs::set_permissions(&readonly, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let out = run(dir.path(), &["fix", "ro.json", "--write"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("read-only"), "{}", out.stderr);
    assert!(!out.stderr.contains("Nothing to fix"), "{}", out.stderr);
    assert!(out.stderr.contains("not applied"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&readonly).expect("read"), broken);
}

#[cfg(unix)]
#[test]
fn write_keeps_owner_and_extended_attributes() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(
        dir.path(),
        "a.json",
        fixture("fixtures/openai-chat/broken-request.json"),
    );
    let attr = xattr::set(&file, "user.toolcheck-test", b"kept").is_ok();
    // Only root can give a file to another user; then the fix must keep that owner.
    let chowned = std::os::unix::fs::chown(&file, Some(4321), Some(4321)).is_ok();
    let before = std::fs::metadata(&file).expect("stat");
    let out = run(dir.path(), &["fix", "a.json", "--write"]);
    assert!(out.code <= 1, "{}", out.transcript());
    let after = std::fs::metadata(&file).expect("stat");
    assert_ne!(before.ino(), after.ino(), "the file was replaced");
    assert_eq!((before.uid(), before.gid()), (after.uid(), after.gid()));
    if chowned {
        assert_eq!(after.uid(), 4321);
    }
    if attr {
        assert_eq!(
            xattr::get(&file, "user.toolcheck-test").expect("xattr"),
            Some(b"kept".to_vec())
        );
    }
}

// ---- defect 5: fixes that must converge ----

fn claude_line(parent: Option<&str>, uuid: &str, kind: &str, message: serde_json::Value) -> String {
    serde_json::json!({
        "parentUuid": parent, "isSidechain": false, "type": kind, "message": message,
        "uuid": uuid, "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z"
    })
    .to_string()
}

#[test]
fn three_hundred_orphaned_claude_code_results_are_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut lines = vec![claude_line(
        None,
        "u0",
        "user",
        serde_json::json!({"role": "user", "content": "hi"}),
    )];
    let mut parent = "u0".to_string();
    for i in 0..300 {
        let uuid = format!("r{i}");
        lines.push(claude_line(
            Some(&parent),
            &uuid,
            "user",
            serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("toolu_{i}"), "content": "ok"}]}),
        ));
        parent = uuid;
    }
    lines.push(claude_line(
        Some(&parent),
        "a1",
        "assistant",
        serde_json::json!({"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "done"}]}),
    ));
    let path = write(dir.path(), "s.jsonl", lines.join("\n") + "\n");
    let p = path.to_string_lossy();
    let out = run(dir.path(), &["fix", &p, "--write"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stderr.contains("Fixed 300 findings"), "{}", out.stderr);
    let text = std::fs::read_to_string(&path).expect("read");
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.contains(r#""parentUuid":"u0""#),
        "the chain stays whole: {text}"
    );
    assert_eq!(run(dir.path(), &["lint", &p]).code, 0);
}

#[test]
fn repeated_uuid_with_an_unanswered_call_is_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let call = claude_line(
        Some("u0"),
        "a1",
        "assistant",
        serde_json::json!({"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {"command": "ls"}}]}),
    );
    let lines = [
        claude_line(
            None,
            "u0",
            "user",
            serde_json::json!({"role": "user", "content": "hi"}),
        ),
        call.clone(),
        call,
        claude_line(
            Some("a1"),
            "u1",
            "user",
            serde_json::json!({"role": "user", "content": "next"}),
        ),
        claude_line(
            Some("u1"),
            "a2",
            "assistant",
            serde_json::json!({"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
        ),
    ];
    let path = write(dir.path(), "s.jsonl", lines.join("\n") + "\n");
    let p = path.to_string_lossy();
    let out = run(dir.path(), &["fix", &p, "--write"]);
    assert_no_panic(&out);
    assert!(
        !out.stderr.contains("did not converge"),
        "{}",
        out.transcript()
    );
    assert!(out.code <= 1, "{}", out.transcript());
    let again = run(dir.path(), &["fix", &p]);
    assert!(again.stdout.is_empty(), "{}", again.transcript());
}

// ---- defect 8: inputs that passed silently or could take the machine ----

#[cfg(unix)]
#[test]
fn process_substitution_and_dev_stdin_are_read() {
    let broken = root().join("fixtures/errors/truncated.json");
    let bin = env!("CARGO_BIN_EXE_toolcheck");
    let script = format!(
        "{bin:?} lint <(cat {b:?}) --output-format concise; echo \"exit $?\"; {bin:?} lint /dev/stdin --output-format concise < {b:?}; echo \"exit $?\"",
        b = broken
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("TC001 [parse-error]").count(), 2, "{stdout}");
    assert_eq!(stdout.matches("exit 1").count(), 2, "{stdout}");
    assert!(!stdout.contains("0 files checked"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn a_named_fifo_is_read_as_a_stream() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("pipe.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::fs::write(fifo, fixture("fixtures/openai-chat/broken-request.json"))
                .expect("write to fifo");
        })
    };
    let out = run(
        dir.path(),
        &["lint", "pipe.json", "--output-format", "concise"],
    );
    writer.join().expect("writer finishes");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC101"), "{}", out.transcript());
}

#[test]
fn endless_stdin_stops_at_the_size_limit() {
    let bin = env!("CARGO_BIN_EXE_toolcheck");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "yes '{{\"a\": 1}}' | {bin:?} lint - --max-file-size 1M --output-format concise"
        ))
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "TC003 [input-not-checked] input is larger than the maximum input size of 1 MiB"
        ),
        "{stdout}"
    );
}

#[test]
fn a_file_over_the_size_limit_is_reported_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "big.jsonl", "{\"messages\": []}\n".repeat(1000));
    let out = run(
        dir.path(),
        &[
            "lint",
            "big.jsonl",
            "--max-file-size",
            "1K",
            "--output-format",
            "concise",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("big.jsonl:1:1: TC003 [input-not-checked] file is 16.6 KiB (17000 bytes), larger than the maximum input size of 1 KiB"), "{}", out.transcript());
    // The config sets it too; a bad value names the file.
    write(dir.path(), "toolcheck.toml", "max-file-size = \"lots\"\n");
    let out = run(dir.path(), &["lint", "big.jsonl"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("max-file-size"), "{}", out.stderr);
    let fix = run(
        dir.path(),
        &["fix", "big.jsonl", "--max-file-size", "1K", "--no-config"],
    );
    assert_eq!(fix.code, 2, "{}", fix.transcript());
    assert!(
        fix.stderr.contains("larger than the maximum input size"),
        "{}",
        fix.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_as_tools_file_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("tools.json"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    write(dir.path(), "toolcheck.toml", "tools = [\"tools.json\"]\n");
    write(
        dir.path(),
        "a.json",
        fixture("fixtures/openai-chat/clean-request.json"),
    );
    let out = run(dir.path(), &["lint", "a.json"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

// ---- the rest of the catalogue of bad input ----

#[test]
fn invalid_utf8_is_a_parse_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "bad.json",
        b"{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}",
    );
    let out = run(
        dir.path(),
        &["lint", "bad.json", "--output-format", "concise"],
    );
    assert_eq!(out.code, 1);
    assert_eq!(codes(&out), ["TC001@1:44"], "{}", out.transcript());
    assert!(out.stdout.contains("not valid UTF-8: byte 0xff"));
}

#[test]
fn a_bom_is_skipped_and_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "\u{feff}{}",
        fixture("fixtures/openai-chat/broken-request.json")
    );
    let path = write(dir.path(), "bom.json", &text);
    let out = run(
        dir.path(),
        &["lint", "bom.json", "--output-format", "concise"],
    );
    assert_eq!(out.code, 1);
    assert!(!out.stdout.contains("TC001"), "{}", out.transcript());
    run(dir.path(), &["fix", "bom.json", "--write"]);
    assert!(std::fs::read_to_string(path)
        .expect("read")
        .starts_with('\u{feff}'));
}

#[test]
fn empty_and_whitespace_files_are_findings_when_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "empty.json", "");
    write(dir.path(), "blank.json", " \n\t\n");
    for name in ["empty.json", "blank.json"] {
        let out = run(dir.path(), &["lint", name, "--output-format", "concise"]);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert!(
            out.stdout.contains("TC002 [unknown-format]"),
            "{}",
            out.transcript()
        );
    }
    // An empty dataset has no records, and nothing wrong.
    write(dir.path(), "empty.jsonl", "");
    assert_eq!(run(dir.path(), &["lint", "empty.jsonl"]).code, 0);
}

#[test]
fn nul_and_control_bytes_are_parse_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "nul.json", b"{\"messages\": [\x00]}");
    write(
        dir.path(),
        "ctl.json",
        b"{\"messages\": [{\"role\": \"user\", \"content\": \"a\x01b\"}]}",
    );
    for (name, at) in [("nul.json", "TC001@1:15"), ("ctl.json", "TC001@1:45")] {
        let out = run(dir.path(), &["lint", name, "--output-format", "concise"]);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert_eq!(codes(&out), [at], "{}", out.transcript());
    }
}

#[test]
fn random_binary_is_a_finding_not_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A fixed pseudo-random sequence (xorshift), so the test is repeatable.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect();
    write(dir.path(), "noise.json", &bytes);
    write(dir.path(), "noise.jsonl", &bytes);
    for name in ["noise.json", "noise.jsonl"] {
        let out = run(dir.path(), &["lint", name, "--output-format", "concise"]);
        assert_no_panic(&out);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert!(out.stdout.contains("TC001"), "{}", out.transcript());
        let fix = run(dir.path(), &["fix", name, "--write"]);
        assert_no_panic(&fix);
        assert_eq!(std::fs::read(dir.path().join(name)).expect("read"), bytes);
    }
}

#[test]
fn one_broken_record_among_good_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = r#"{"messages": [{"role": "user", "content": "hi"}]}"#;
    let orphan = r#"{"messages": [{"role": "tool", "tool_call_id": "x", "content": "a"}]}"#;
    let text = format!("{good}\n{{\"messages\": [{{\"role\"\n{orphan}\n{good}\n");
    write(dir.path(), "data.jsonl", text);
    let out = run(
        dir.path(),
        &["lint", "data.jsonl", "--output-format", "concise"],
    );
    assert_eq!(
        codes(&out),
        ["TC001@2:21", "TC101@3:15"],
        "{}",
        out.transcript()
    );
}

#[test]
fn a_fifty_megabyte_line_is_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = "x".repeat(50 << 20);
    let record = format!(
        r#"{{"messages": [{{"role": "user", "content": "{big}"}}, {{"role": "tool", "tool_call_id": "gone", "content": "a"}}]}}"#
    );
    write(dir.path(), "big.jsonl", format!("{record}\n"));
    let out = run(dir.path(), &["lint", "big.jsonl"]);
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", &out.stderr);
    assert!(out.stdout.contains("TC101"), "{}", &out.stderr);
    assert!(
        out.stdout.len() < 10_000,
        "the report crops the line: {} bytes",
        out.stdout.len()
    );
}

#[test]
fn a_directory_named_like_a_log_is_walked() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("x.json")).expect("mkdir");
    write(
        &dir.path().join("x.json"),
        "inner.json",
        fixture("fixtures/openai-chat/broken-request.json"),
    );
    let out = run(
        dir.path(),
        &["lint", "x.json", "--output-format", "concise"],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("x.json/inner.json"),
        "{}",
        out.transcript()
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_not_followed_and_the_rest_is_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).expect("mkdir");
    std::os::unix::fs::symlink(&logs, logs.join("loop")).expect("symlink");
    write(
        &logs,
        "a.json",
        fixture("fixtures/openai-chat/broken-request.json"),
    );
    let out = run(
        dir.path(),
        &["lint", "-v", "logs", "--output-format", "concise"],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stderr
            .contains("skipped dir logs/loop: symbolic link, not followed"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("logs/a.json"),
        "the other files are checked: {}",
        out.transcript()
    );
}

#[test]
fn missing_paths_are_an_error_and_the_rest_is_checked() {
    let out = common::toolcheck(&[
        "lint",
        "no/such/file.json",
        "fixtures/openai-chat/broken-request.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("no/such/file.json"), "{}", out.stderr);
    assert!(
        out.stdout.contains("broken-request.json"),
        "{}",
        out.transcript()
    );
}

#[cfg(unix)]
#[test]
fn unreadable_paths_are_an_error_and_the_rest_is_checked() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = write(dir.path(), "secret.json", "{}");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    // A dangling symlink cannot be read by anyone, root included.
    std::os::unix::fs::symlink(
        dir.path().join("gone.json"),
        dir.path().join("dangling.json"),
    )
    .expect("symlink");
    write(
        dir.path(),
        "a.json",
        fixture("fixtures/openai-chat/broken-request.json"),
    );
    let root_user = std::fs::read(&secret).is_ok();
    let mut args = vec![
        "lint",
        "dangling.json",
        "a.json",
        "--output-format",
        "concise",
    ];
    if !root_user {
        args.push("secret.json");
    }
    let out = run(dir.path(), &args);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("dangling.json"), "{}", out.stderr);
    if !root_user {
        assert!(out.stderr.contains("secret.json"), "{}", out.stderr);
    }
    assert!(out.stdout.contains("a.json"), "{}", out.transcript());
}

// ---- issue 21: what the commands touch and print ----

/// #3: `fix --write -` is a filter; whatever it does not rewrite comes out byte for byte,
/// so `toolcheck fix --write - < f > g && mv g f` never empties `f`.
#[test]
fn fix_write_stdin_echoes_every_input_it_does_not_rewrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clean = fixture("fixtures/openai-chat/clean-request.json");
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(clean.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(clean.as_bytes());
    let big = format!("{clean}{}", " ".repeat(16 << 10));
    let cases: [(&str, Vec<u8>, i32); 7] = [
        ("nothing to fix", clean.clone().into_bytes(), 0),
        ("a byte order mark", bom, 0),
        ("UTF-16", utf16, 0),
        ("a finding without a fix", b"{\"messages\": [".to_vec(), 1),
        ("an unknown format", b"{\"a\": 1}\r\n".to_vec(), 1),
        ("invalid UTF-8", b"{\"a\": \"\xff\"}".to_vec(), 2),
        ("over the size limit", big.into_bytes(), 2),
    ];
    for (what, input, code) in cases {
        let (stdout, out) = common::toolcheck_bytes(
            dir.path(),
            &["fix", "--write", "-", "--max-file-size", "16K"],
            Some(&input),
        );
        assert_no_panic(&out);
        assert_eq!(out.code, code, "{what}: {}", out.stderr);
        assert!(stdout == input, "{what}: not echoed: {}", out.transcript());
    }
    // What it does rewrite comes out fixed.
    let broken = fixture("fixtures/openai-chat/broken-request.json");
    let (stdout, out) = common::toolcheck_bytes(
        dir.path(),
        &["fix", "--write", "-"],
        Some(broken.as_bytes()),
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(!stdout.is_empty() && stdout != broken.as_bytes());
}

/// #9: a LangGraph stream saved as JSONL is checked from its last `values` snapshot; a call
/// streamed after it (the run stopped before the next snapshot) is not in it, and the
/// unread-structure guard says so instead of passing the file as clean.
#[test]
fn langgraph_stream_jsonl_reports_calls_after_the_last_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events: Vec<serde_json::Value> =
        serde_json::from_str(&fixture("fixtures/langgraph-stream/clean-stream.json"))
            .expect("a JSON array");
    let lines = |events: &[serde_json::Value]| -> String {
        events.iter().map(|e| format!("{e}\n")).collect()
    };
    // Up to the snapshot holding the call and its result: clean, as JSONL too.
    let head = events.get(..7).expect("seven events");
    write(dir.path(), "clean.jsonl", lines(head));
    let out = run(
        dir.path(),
        &["lint", "clean.jsonl", "--output-format", "concise"],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    let mut tail = head.to_vec();
    tail.push(serde_json::json!(["updates", {"agent": {"messages": [{
        "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
        "kwargs": {"content": "", "type": "ai", "id": "run-late",
            "tool_calls": [{"name": "convert_currency", "args": {"amount": 5},
                "id": "call_after_snapshot", "type": "tool_call"}]}}]}}]));
    write(dir.path(), "late.jsonl", lines(&tail));
    let out = run(
        dir.path(),
        &["lint", "late.jsonl", "--output-format", "concise"],
    );
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", out.transcript());
    let found = codes(&out);
    assert!(
        matches!(found.as_slice(), [c] if c.starts_with("TC005@8:")),
        "{}",
        out.transcript()
    );
    assert!(
        out.stdout
            .contains("/1/agent/messages/0/kwargs/tool_calls/0"),
        "{}",
        out.stdout
    );
    // Every session format is held to what it replays; Claude Code only leaves out the
    // records off its chain, not a structure inside a record it replayed.
    let session = [
        claude_line(
            None,
            "u1",
            "user",
            serde_json::json!({"role": "user", "content": "go"}),
        ),
        claude_line(
            Some("u1"),
            "a1",
            "assistant",
            serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                "tool_calls": [{"id": "call_x", "function": {"name": "f", "arguments": "{}"}}]}),
        ),
    ]
    .join("\n");
    write(dir.path(), "session.jsonl", session + "\n");
    let out = run(
        dir.path(),
        &["lint", "session.jsonl", "--output-format", "concise"],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC005"), "{}", out.transcript());
}

/// #10: a directory walk does not follow links out of the directory it was given, so `fix
/// --write shared/` cannot rewrite what links in `shared/` point to; `-v` says which links
/// it left. A link named on the command line is still followed.
#[cfg(unix)]
#[test]
fn fix_write_on_a_directory_does_not_follow_links_out_of_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = fixture("fixtures/openai-chat/broken-request.json");
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    let outside_file = write(&outside, "elsewhere.json", &broken);
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    let inside = write(&shared, "own.json", &broken);
    std::os::unix::fs::symlink(&outside_file, shared.join("link.json")).expect("symlink");
    std::os::unix::fs::symlink(&outside, shared.join("linked-dir")).expect("symlink");
    let out = run(dir.path(), &["fix", "--write", "-v", "shared"]);
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(
        std::fs::read_to_string(&outside_file).expect("read"),
        broken,
        "a file outside the walked directory was rewritten: {}",
        out.transcript()
    );
    assert_ne!(std::fs::read_to_string(&inside).expect("read"), broken);
    for link in [
        "skipped shared/link.json: ",
        "skipped dir shared/linked-dir: ",
    ] {
        assert!(
            out.stderr
                .contains(&format!("{link}symbolic link, not followed")),
            "{}",
            out.stderr
        );
    }
    // Named, the link is followed and its target fixed.
    let out = run(dir.path(), &["fix", "--write", "shared/link.json"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_ne!(
        std::fs::read_to_string(&outside_file).expect("read"),
        broken
    );
}

/// Whether `text` holds a character a terminal acts on (C0 but newline and tab, DEL, C1).
fn has_raw_control(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{202e}')
}

/// #12: names met in a walk (`lint -v`'s skipped entries) and store table names (the
/// `db:table[rowid=N]` header of `fix` and `fix --diff`) reach the terminal inert.
#[cfg(unix)]
#[test]
fn skipped_names_and_store_tables_are_printed_inert() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let hostile = "x\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";
    std::fs::create_dir_all(d.join(format!("logs/.{hostile}"))).expect("mkdir");
    write(&d.join("logs"), &format!("{hostile}.json"), "{}");
    std::os::unix::fs::symlink("/", d.join(format!("logs/{hostile}-link"))).expect("symlink");
    let out = run(
        d,
        &["lint", "-v", "logs", "--exclude", "x*.json", "--no-config"],
    );
    assert_no_panic(&out);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert_eq!(
        out.stderr.matches("skipped ").count(),
        3,
        "{}",
        out.stderr.escape_debug()
    );
    assert!(
        !has_raw_control(&out.stderr),
        "{}",
        out.stderr.escape_debug()
    );
    assert!(
        out.stderr.contains("x\\u{1b}]0;pwned\\u{7}"),
        "{}",
        out.stderr
    );

    // A store whose session table has a hostile name; its broken arguments get a fix.
    let db = d.join("s.db");
    let conn = rusqlite::Connection::open(&db).expect("create the database");
    let table = format!("agent_messages{hostile}");
    conn.execute_batch(&format!(
        "CREATE TABLE \"{table}\" (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT);"
    ))
    .expect("create the table");
    for item in [
        r#"{"content": "Weather?", "role": "user"}"#,
        r#"{"arguments": "{\"city\":\"Par", "call_id": "c1", "name": "get_weather", "type": "function_call"}"#,
        r#"{"call_id": "c1", "output": "error", "type": "function_call_output"}"#,
    ] {
        conn.execute(
            &format!("INSERT INTO \"{table}\" (session_id, message_data) VALUES ('s', ?1)"),
            [item],
        )
        .expect("insert an item");
    }
    drop(conn);
    for args in [
        ["fix", "--unsafe-fixes", "s.db"],
        ["fix", "--unsafe-fixes", "--diff"],
    ] {
        let mut args = args.to_vec();
        if args.len() == 3 {
            args.push("s.db");
        }
        let out = run(d, &args);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert!(
            out.stdout.contains("s.db:agent_messages"),
            "{}",
            out.transcript()
        );
        assert!(
            !has_raw_control(&out.stdout),
            "{args:?}: {}",
            out.stdout.escape_debug()
        );
    }
}

/// #14: a run killed during `fix --write` (simulated: its temporary file left behind, old)
/// leaves `.toolcheck-XXXXXX.tmp` beside the file; the next write there removes it, and only
/// files of that exact pattern that are old enough.
#[test]
fn fix_write_removes_stale_temporaries_a_killed_run_left() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let broken = fixture("fixtures/openai-chat/broken-request.json");
    write(d, "a.json", &broken);
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for name in [
        ".toolcheck-Ab12cD.tmp",
        ".toolcheck-notes.tmp",
        "toolcheck-Ab12cD.tmp",
    ] {
        let file = std::fs::File::create(d.join(name)).expect("create");
        file.set_len(1 << 20).expect("grow");
        file.set_modified(hour_ago).expect("set mtime");
    }
    write(d, ".toolcheck-Fresh1.tmp", "a run still writing");
    let out = run(d, &["fix", "--write", "a.json"]);
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_ne!(
        std::fs::read_to_string(d.join("a.json")).expect("read"),
        broken
    );
    let mut left: Vec<String> = std::fs::read_dir(d)
        .expect("readdir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ".toolcheck-Fresh1.tmp",
            ".toolcheck-notes.tmp",
            "a.json",
            "toolcheck-Ab12cD.tmp"
        ]
    );
}

// ---- defects 2 and 6: hostile tool schemas ----

/// The lines of `out`'s stdout that `keep` keeps.
fn lines_where(out: &Output, keep: impl Fn(&str) -> bool) -> Vec<String> {
    out.stdout
        .lines()
        .filter(|l| keep(l))
        .map(str::to_string)
        .collect()
}

/// `lint` of `text` given on stdin as `a.json`, in the concise format.
fn lint_concise_stdin(text: &str) -> Output {
    let args = ["lint", "-", "--stdin-filename", "a.json"];
    toolcheck_stdin(&[&args[..], &["--output-format", "concise"]].concat(), text)
}

/// A chat request declaring `f` with `parameters`, and one call of `f` per arguments value.
fn request_with_calls(parameters: serde_json::Value, calls: &[serde_json::Value]) -> String {
    let mut messages = vec![serde_json::json!({"role": "user", "content": "go"})];
    for (i, arguments) in calls.iter().enumerate() {
        let id = format!("c{i}");
        messages.push(
            serde_json::json!({"role": "assistant", "tool_calls": [{"id": id, "type": "function",
            "function": {"name": "f", "arguments": arguments.to_string()}}]}),
        );
        messages.push(serde_json::json!({"role": "tool", "tool_call_id": id, "content": "ok"}));
    }
    serde_json::json!({
        "tools": [{"type": "function", "function": {"name": "f", "parameters": parameters}}],
        "messages": messages
    })
    .to_string()
}

#[test]
fn a_fifteen_thousand_link_ref_chain_is_not_checked_and_the_run_goes_on() {
    // The audit's input: 15,000 `$ref`s chained through `$defs` (about 540 KB), which
    // overflowed the validator's stack and aborted the whole directory run (exit 134).
    let links = 15_000;
    let mut defs = serde_json::Map::new();
    for i in 0..links {
        defs.insert(
            format!("d{i}"),
            serde_json::json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{links}"), serde_json::json!({"type": "string"}));
    let schema = serde_json::json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let dir = tempfile::tempdir().expect("tempdir");
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).expect("mkdir");
    let request = request_with_calls(schema.clone(), &[serde_json::json!({"x": 1})]);
    assert!(request.len() > 500_000, "{}", request.len());
    write(&logs, "chain.json", &request);
    write(
        &logs,
        "normal.json",
        fixture("fixtures/openai-chat/broken-request.json"),
    );
    let out = run(dir.path(), &["lint", "logs", "--output-format", "concise"]);
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", out.transcript());
    let chain = lines_where(&out, |l| l.starts_with("logs/chain.json:"));
    assert_eq!(chain.len(), 1, "{}", out.transcript());
    assert!(
        chain.iter().all(|l| l.contains("TC003 [input-not-checked] schema of tool `f` nests deeper than 512 levels, counting each `$ref` followed")),
        "{}",
        out.transcript()
    );
    // The other file is checked as on its own.
    let alone = run(
        dir.path(),
        &["lint", "logs/normal.json", "--output-format", "concise"],
    );
    let normal = |out: &Output| lines_where(out, |l| l.starts_with("logs/normal.json:"));
    assert!(!normal(&out).is_empty(), "{}", out.transcript());
    assert_eq!(normal(&out), normal(&alone));
    // Given with --tools, the schema is not in the file: each call says it was not checked.
    let tools =
        serde_json::json!([{"type": "function", "function": {"name": "f", "parameters": schema}}]);
    write(dir.path(), "tools.json", tools.to_string());
    let mut log: serde_json::Value = serde_json::from_str(&request).expect("json");
    if let Some(map) = log.as_object_mut() {
        map.remove("tools");
    }
    write(dir.path(), "calls.json", log.to_string());
    let out = run(
        dir.path(),
        &[
            "lint",
            "calls.json",
            "--tools",
            "tools.json",
            "--output-format",
            "concise",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(
        lines_where(&out, |l| l.contains("TC")),
        [
            r#"calls.json:1:143: TC003 [input-not-checked] arguments of tool call "c0" to `f` were not checked: the schema of `f` given with --tools nests deeper than 512 levels, counting each `$ref` followed"#
        ],
        "{}",
        out.transcript()
    );
}

#[test]
fn a_backtracking_pattern_is_not_checked_rather_than_violated_and_costs_one_full_budget() {
    // The audit's input: a pattern that backtracks catastrophically, and calls whose
    // arguments make it do so. Each match ran to the engine's limit (70 ms; 2,000 calls took
    // 142 s) and was reported as a `schema-violation`. Here 2,000 calls with 500 distinct
    // strings: once the pattern exhausted its budget, it gets a small one for later calls,
    // and repeated arguments are checked once.
    let schema = serde_json::json!({"type": "object", "properties": {
        "s": {"type": "string", "pattern": r"^(a|aa)+\1$"},
        "n": {"type": "integer"}}});
    let mut calls: Vec<serde_json::Value> = (0..2000)
        .map(|i| serde_json::json!({"s": format!("{}!", "a".repeat(30 + i % 500))}))
        .collect();
    // Real violations are still reported, beside an unchecked pattern or alone.
    calls.push(serde_json::json!({"s": "aaaa", "n": "seven"}));
    let out = lint_concise_stdin(&request_with_calls(schema, &calls));
    assert_no_panic(&out);
    assert_eq!(out.code, 1, "{}", out.transcript());
    let unchecked = lines_where(&out, |l| l.contains("TC003 [input-not-checked]"));
    assert_eq!(unchecked.len(), 2000, "{}", out.transcript());
    assert!(unchecked.iter().all(|l| l.contains(
        r#"were not fully checked against the schema of `f`: the regex engine gave up after"#
    )));
    let full = unchecked
        .iter()
        .filter(|l| l.contains("after 100000 backtracking steps"))
        .count();
    assert_eq!(
        full,
        1,
        "the full budget is spent once: {}",
        out.transcript()
    );
    let violations = lines_where(&out, |l| l.contains("TC301"));
    assert_eq!(violations.len(), 1, "{}", out.transcript());
    assert!(
        violations.iter().all(|l| l.contains(r#"call "c2000""#)
            && l.contains(r#"/n: "seven" is not of type "integer""#)),
        "{violations:?}"
    );
}

#[test]
fn a_missing_file_gets_its_error_and_no_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = toolcheck_in(dir.path(), &["lint", "missing.json"], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("missing.json"), "{}", out.transcript());
    // "No findings: 0 files checked." beside the error read as a pass.
    assert_eq!(out.stdout, "", "{}", out.transcript());
}

#[test]
fn a_missing_file_beside_clean_ones_is_no_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        root().join("fixtures/openai-chat/clean-request.json"),
        dir.path().join("clean.json"),
    )
    .expect("copy");
    let lint = toolcheck_in(dir.path(), &["lint", "missing.json", "clean.json"], None);
    assert_eq!(lint.code, 2, "{}", lint.transcript());
    assert_eq!(
        lint.stdout,
        "1 path could not be read (see the error above); no findings in 1 file checked.\n",
        "{}",
        lint.transcript()
    );
    let fix = toolcheck_in(dir.path(), &["fix", "missing.json", "clean.json"], None);
    assert_eq!(fix.code, 2, "{}", fix.transcript());
    assert!(
        fix.stderr.ends_with(
            "1 path could not be read or fixed (see the error above); nothing to fix in the rest.\n"
        ),
        "{}",
        fix.transcript()
    );
    // Nothing read at all: the error alone, no "Nothing to fix." beside it.
    let fix = toolcheck_in(dir.path(), &["fix", "--write", "missing.json"], None);
    assert_eq!(fix.code, 2, "{}", fix.transcript());
    assert!(
        !fix.stderr.contains("Nothing to fix"),
        "{}",
        fix.transcript()
    );
    assert!(fix.stderr.contains("missing.json"), "{}", fix.transcript());
}
