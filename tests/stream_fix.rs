//! `fix` of a JSONL dataset bigger than one chunk runs a chunk at a time: its diff, its
//! `--diff` patch, its findings and the file it writes are byte for byte those of the same
//! records fixed whole; the maximum input size bounds a record, not the file; a write leaves
//! no temporary file behind, whether it succeeded, had nothing to do or was refused.
//!
//! The whole-file side of each comparison is the same bytes under a `.json` name: a `.json`
//! file is never read in chunks, and JSONL text in it is read record by record as a
//! `.jsonl` file is (the lint tests in `tests/stream.rs` rely on the same). The CLI has no
//! knob for the chunk size; the library's own tests fix with tiny chunks.

use crate::common;

use common::{toolcheck_in, Output};
use std::fmt::Write as _;
use std::path::Path;

/// A fine-tuning dataset of over `bytes` bytes with `end` line endings: a repairable record
/// (orphaned result) first and last, and every few lines an orphaned result, truncated
/// arguments (an unsafe fix) or a cut-off record (no fix); `last_newline`: whether the last
/// record ends with one.
fn dataset(bytes: usize, end: &str, last_newline: bool) -> String {
    let orphan = |i: usize| {
        format!(
            r#"{{"messages":[{{"role":"user","content":"record {i}"}},{{"role":"tool","tool_call_id":"gone_{i}","content":"evicted"}},{{"role":"assistant","content":"ok"}}]}}"#
        )
    };
    let mut out = String::new();
    let mut i = 0usize;
    while out.len() < bytes {
        let call = format!("call_{i}");
        let record = match i % 23 {
            0 | 4 => orphan(i),
            12 => format!(
                r#"{{"messages":[{{"role":"user","content":"record {i}"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"{call}","type":"function","function":{{"name":"search","arguments":"{{\"query\": \"hello wor"}}}}]}},{{"role":"tool","tool_call_id":"{call}","content":"x"}},{{"role":"assistant","content":"done"}}]}}"#
            ),
            17 => format!(r#"{{"messages":[{{"role":"user","content":"record {i} is cut"#),
            _ => format!(
                r#"{{"messages":[{{"role":"user","content":"record {i}, é ✓"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"{call}","type":"function","function":{{"name":"search","arguments":"{{\"query\": \"q{i}\"}}"}}}}]}},{{"role":"tool","tool_call_id":"{call}","content":"found {i}"}},{{"role":"assistant","content":"answer {i}"}}]}}"#
            ),
        };
        let _ = write!(out, "{record}{end}");
        i += 1;
    }
    out.push_str(&orphan(i));
    if last_newline {
        out.push_str(end);
    }
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["fix", "--no-config"];
    all.extend_from_slice(args);
    toolcheck_in(dir, &all, None)
}

/// `args` on `data.jsonl` (in chunks) and on `data.json` (whole) print the same, but for
/// the name.
fn assert_same(dir: &Path, args: &[&str]) -> Output {
    let with = |name: &str| {
        let mut all = args.to_vec();
        all.push(name);
        run(dir, &all)
    };
    let streamed = with("data.jsonl");
    let whole = with("data.json");
    assert_eq!(streamed.code, whole.code, "{args:?}: {}", streamed.stderr);
    assert!(
        streamed.stdout.replace("data.jsonl", "data.json") == whole.stdout,
        "{args:?}: outputs differ"
    );
    assert_eq!(
        streamed.stderr.replace("data.jsonl", "data.json"),
        whole.stderr
    );
    streamed
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".toolcheck-"))
        .collect()
}

#[test]
fn a_big_dataset_is_fixed_in_chunks_as_it_is_fixed_whole() {
    // Three chunks, LF, last newline; two chunks, CRLF, no last newline (each output format
    // once: a debug build fixes a few MB a second).
    for (bytes, end, last_newline) in [(17 << 19, "\n", true), (9 << 19, "\r\n", false)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = dataset(bytes, end, last_newline);
        for name in ["data.jsonl", "data.json"] {
            std::fs::write(dir.path().join(name), &text).expect("write");
        }
        let diff = assert_same(dir.path(), &[]);
        assert_eq!(diff.code, 1);
        let lines = text.split_inclusive('\n').count();
        // Fixes on the first line and on the last, in the file's numbering.
        let hunks: Vec<(usize, usize)> = diff
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("@@ -")?.split(' ').next())
            .filter_map(|range| {
                let (start, len) = range.split_once(',').unwrap_or((range, "1"));
                Some((start.parse().ok()?, len.parse().ok()?))
            })
            .collect();
        assert!(hunks.len() > 100, "{} hunks", hunks.len());
        assert_eq!(hunks.first().map(|h| h.0), Some(1));
        assert_eq!(hunks.last().map(|h| h.0 + h.1 - 1), Some(lines));
        assert_eq!(
            diff.stdout.ends_with("\\ No newline at end of file\n"),
            !last_newline
        );
        if last_newline {
            assert_same(dir.path(), &["--diff"]);
            assert_same(dir.path(), &["--output-format", "json"]);
        } else {
            assert_same(
                dir.path(),
                &["--output-format", "concise", "--unsafe-fixes"],
            );
        }
        // Written: the same bytes, the same diff of what was written, then nothing to do.
        let written = assert_same(dir.path(), &["--write", "--unsafe-fixes"]);
        // The cut-off records are left: they have no fix.
        assert_eq!(written.code, 1, "{}", written.stderr);
        assert!(written.stderr.starts_with("Fixed "), "{}", written.stderr);
        let (a, b) = (
            std::fs::read(dir.path().join("data.jsonl")).expect("read"),
            std::fs::read(dir.path().join("data.json")).expect("read"),
        );
        assert!(a == b && a != text.as_bytes(), "written files differ");
        assert!(temporaries(dir.path()).is_empty());
        let again = assert_same(
            dir.path(),
            &["--write", "--unsafe-fixes", "--output-format", "json"],
        );
        assert!(
            again.stderr.starts_with("Nothing to fix."),
            "{}",
            again.stderr
        );
        assert!(temporaries(dir.path()).is_empty());
    }
}

#[test]
fn the_size_limit_bounds_a_record_and_one_over_it_is_kept_as_it_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = dataset(5 << 20, "\n", true);
    let huge = format!(
        r#"{{"messages":[{{"role":"tool","tool_call_id":"gone","content":"{}"}}]}}"#,
        "x".repeat(3 << 20)
    );
    let _ = writeln!(text, "{huge}");
    text.push_str(&dataset(1 << 20, "\n", true));
    let path = dir.path().join("data.jsonl");
    std::fs::write(&path, &text).expect("write");
    let huge_line = text
        .lines()
        .position(|l| l.len() > 2 << 20)
        .map_or(0, |i| i + 1);
    // The dataset is over the limit, its records are not: fixed, the huge one reported.
    let limit = ["--max-file-size", "2M"];
    let concise = run(
        dir.path(),
        &[&limit[..], &["--output-format", "concise", "data.jsonl"]].concat(),
    );
    assert_eq!(concise.code, 1, "{}", concise.stderr);
    let expected = format!(
        "data.jsonl:{huge_line}:1: TC003 [input-not-checked] record is larger than the maximum input size of 2 MiB; it was not checked"
    );
    assert!(concise.stdout.lines().any(|l| l == expected), "{expected}");
    assert!(
        concise.stderr.starts_with("Would fix "),
        "{}",
        concise.stderr
    );
    let written = run(
        dir.path(),
        &[&limit[..], &["--write", "data.jsonl"]].concat(),
    );
    // What is left: the cut-off and unchecked records, which have no fix.
    assert_eq!(written.code, 1, "{}", written.stderr);
    assert!(written.stderr.starts_with("Fixed "), "{}", written.stderr);
    let after = std::fs::read_to_string(&path).expect("read");
    assert_ne!(after, text);
    assert!(
        after.lines().any(|l| l == huge),
        "the huge record is kept byte for byte"
    );
    assert!(temporaries(dir.path()).is_empty());
    // The file-level cap still refuses a file that is not read in chunks.
    std::fs::write(dir.path().join("data.json"), &text).expect("write");
    let whole = run(dir.path(), &[&limit[..], &["data.json"]].concat());
    assert!(
        whole.stderr.contains("larger than the maximum input size"),
        "{}",
        whole.stderr
    );
}

#[test]
fn a_refused_write_leaves_the_file_and_no_temporary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = dataset(5 << 20, "\n", true);
    let path = dir.path().join("data.jsonl");
    std::fs::write(&path, &text).expect("write");
    let mut perms = std::fs::metadata(&path).expect("stat").permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).expect("chmod");
    let out = run(dir.path(), &["--write", "data.jsonl"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("the file is read-only"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "no diff of what was not written");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn lint_fix_of_a_dataset_in_chunks_reports_what_remains_as_lint_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = dataset(5 << 20, "\n", true);
    std::fs::write(dir.path().join("data.jsonl"), &text).expect("write");
    let lint = |args: &[&str]| {
        let mut all = vec!["lint", "--no-config"];
        all.extend_from_slice(args);
        all.push("data.jsonl");
        toolcheck_in(dir.path(), &all, None)
    };
    let fixed = lint(&["--fix"]);
    assert_eq!(fixed.code, 1, "{}", fixed.stderr);
    let after = lint(&[]);
    // The findings of the written file, with their snippets at the file's lines.
    let report = |out: &Output| out.stdout.rsplit_once("\n\n").map(|(r, _)| r.to_string());
    assert!(report(&fixed).is_some_and(|r| r.contains("╭─[data.jsonl:")));
    assert_eq!(report(&fixed), report(&after));
    let summary = fixed.stdout.lines().last().unwrap_or_default();
    assert!(summary.starts_with("Fixed "), "{summary}");
}
