//! Settings as a ruff user expects them: the closest config per file, rule layering,
//! per-file ignores, reasoned suppressions, `--show-settings`, config errors with their
//! position, and the CI habits (GitHub annotations, `lint --fix`, `fix --diff`).

use crate::common;

use std::path::Path;

use common::{root, toolcheck_in, Output};

fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("toolcheck.toml"), config).expect("write config");
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    std::fs::copy(
        root().join("fixtures/openai-chat/broken-request.json"),
        logs.join("broken-request.json"),
    )
    .expect("copy");
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    toolcheck_in(dir, args, None)
}

/// The distinct codes of concise output.
fn codes(out: &Output) -> Vec<String> {
    let mut codes: Vec<String> = out
        .stdout
        .lines()
        .filter_map(|l| l.split(": ").nth(1)?.split(' ').next().map(str::to_string))
        .filter(|c| c.starts_with("TC"))
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

/// Replaces the temporary directory in output with `<dir>`.
fn redact(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "<dir>")
}

#[test]
fn rule_selection_layers_like_ruff() {
    let dir = project("select = [\"TC1\"]\nignore = [\"TC104\"]\n");
    let concise = ["lint", "logs", "--output-format", "concise", "-q"];
    let base = run(dir.path(), &concise);
    assert_eq!(codes(&base), ["TC101", "TC102", "TC103"], "{}", base.stdout);
    // --extend-select adds to the config's selection; its ignore still applies.
    let mut args = concise.to_vec();
    args.extend(["--extend-select", "TC2"]);
    let out = run(dir.path(), &args);
    assert_eq!(
        codes(&out),
        ["TC101", "TC102", "TC103", "TC201", "TC202", "TC203"],
        "{}",
        out.stdout
    );
    // --ignore adds to the config's ignore instead of replacing it.
    let mut args = concise.to_vec();
    args.extend(["--ignore", "TC102"]);
    let out = run(dir.path(), &args);
    assert_eq!(codes(&out), ["TC101", "TC103"], "{}", out.stdout);
    // --select replaces the selection made below it.
    let mut args = concise.to_vec();
    args.extend(["--select", "TC104,TC201"]);
    let out = run(dir.path(), &args);
    assert_eq!(codes(&out), ["TC104", "TC201"], "{}", out.stdout);
}

#[test]
fn the_closest_config_to_each_file_applies() {
    let dir = project("select = [\"TC1\"]\n");
    let nested = dir.path().join("logs/strict");
    std::fs::create_dir_all(&nested).expect("mkdir");
    std::fs::copy(
        root().join("fixtures/openai-chat/broken-request.json"),
        nested.join("b.json"),
    )
    .expect("copy");
    std::fs::write(nested.join("toolcheck.toml"), "select = [\"TC201\"]\n").expect("write");
    // Run from outside the project: each file still gets its own closest config.
    let parent = dir.path().parent().expect("parent");
    let name = dir
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let out = run(parent, &["lint", &name, "--output-format", "concise", "-q"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("strict/b.json") && l.contains("TC201")),
        "{}",
        out.stdout
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("strict/b.json") && l.contains("TC101")),
        "{}",
        out.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("logs/broken-request.json") && l.contains("TC101")),
        "{}",
        out.stdout
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("logs/broken-request.json") && l.contains("TC201")),
        "{}",
        out.stdout
    );
}

#[test]
fn per_file_ignores_and_suppressions_with_unused_ones_reported() {
    let dir = project(
        r#"
[per-file-ignores]
"logs/broken-*.json" = ["TC2"]

[[suppress]]
path = "logs/broken-request.json"
rule = "orphaned-tool-result"
id = "call_evicted01"
reason = "the evicted call is what this fixture is about"

[[suppress]]
path = "logs/*.json"
rule = "TC104"
pointer = "/messages/99"
reason = "kept from an older version of the fixture"
"#,
    );
    let out = run(dir.path(), &["lint", "logs", "--output-format", "concise"]);
    insta::assert_snapshot!(redact(&out.transcript(), dir.path()));
}

#[test]
fn suppressions_of_files_not_checked_are_not_reported_unused() {
    let dir = project(
        r#"
[[suppress]]
path = "logs/broken-request.json"
rule = "TC104"
pointer = "/messages/99"
reason = "kept from an older version of the fixture"
"#,
    );
    std::fs::copy(
        root().join("fixtures/openai-chat/clean-deepseek-answered.json"),
        dir.path().join("logs/clean.json"),
    )
    .expect("copy");
    // A pre-commit hook linting only the staged clean file: the entry is about another file.
    let out = run(dir.path(), &["lint", "logs/clean.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(!out.stdout.contains("TC004"), "{}", out.transcript());
    // Linting the file it names, the stale entry is reported.
    let out = run(dir.path(), &["lint", "logs", "--output-format", "concise"]);
    assert!(out.stdout.contains("TC004"), "{}", out.transcript());
}

#[test]
fn suppressions_of_rules_the_run_leaves_out_are_not_reported_unused() {
    let dir = project(
        r#"
[[suppress]]
path = "logs/*.json"
rule = "duplicate-tool-call-id"
pointer = "/messages/99"
reason = "kept from an older version of the fixture"
"#,
    );
    // The glob covers the file, but TC104 is not run: the entry could not have matched.
    for args in [["--ignore", "TC104"], ["--select", "TC2,TC004"]] {
        let mut all = vec!["lint", "logs", "--output-format", "concise"];
        all.extend(args);
        let out = run(dir.path(), &all);
        assert!(
            !out.stdout.contains("TC004"),
            "{args:?}: {}",
            out.transcript()
        );
    }
    // With TC104 on, the stale entry is reported.
    let out = run(
        dir.path(),
        &[
            "lint",
            "logs",
            "--select",
            "TC104,TC004",
            "--output-format",
            "concise",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("TC004"), "{}", out.transcript());
}

#[test]
fn config_errors_name_file_line_and_column_with_valid_values() {
    let mut report = String::new();
    for config in [
        "# project\nselect = [\"TC1\", \"TC9\"]\n",
        "input-format = \"openai\"\n",
        "loop-threshold = 1\n",
        "max-file-size = \"lots\"\n",
        "[[suppress]]\npath = \"a.json\"\nrule = \"TC101\"\nid = \"x\"\nreason = \"\"\n",
        "selct = [\"TC1\"]\n",
    ] {
        let dir = project(config);
        let out = run(dir.path(), &["lint", "logs"]);
        assert_eq!(out.code, 2, "{}", out.transcript());
        report.push_str(&redact(&out.stderr, dir.path()));
    }
    insta::assert_snapshot!(report);
}

#[test]
fn show_settings_says_where_each_value_came_from() {
    let dir = project("select = [\"TC1\"]\nloop-threshold = 4\n");
    let out = run(
        dir.path(),
        &[
            "lint",
            "logs",
            "--show-settings",
            "--ignore",
            "TC105",
            "--max-file-size",
            "10M",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(redact(&out.transcript(), dir.path()));
}

#[test]
fn github_actions_gets_annotations_beside_the_report() {
    let dir = project("");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolcheck"))
        .args(["lint", "logs/broken-request.json"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("TC101 orphaned-tool-result"),
        "the full report: {stdout}"
    );
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("::error ") || l.starts_with("::warning "))
            .count(),
        9,
        "one annotation per finding: {stdout}"
    );
    // An explicit format is taken as asked.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolcheck"))
        .args([
            "lint",
            "logs/broken-request.json",
            "--output-format",
            "concise",
        ])
        .current_dir(dir.path())
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("runs");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error"));
}

#[test]
fn statistics_show_what_fix_would_repair() {
    let out = common::toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-request.json",
        "--statistics",
    ]);
    insta::assert_snapshot!(out.transcript());
    let json = common::toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-request.json",
        "--statistics",
        "--output-format",
        "json",
    ]);
    let rows: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert!(rows
        .as_array()
        .is_some_and(|r| r.iter().all(|row| row.get("fixable").is_some())));
    let github = common::toolcheck(&[
        "lint",
        "fixtures",
        "--statistics",
        "--output-format",
        "github",
    ]);
    assert_eq!(github.code, 2);
    assert!(
        github.stderr.contains("--statistics prints counts"),
        "{}",
        github.stderr
    );
}

#[test]
fn lint_fix_writes_like_fix_write() {
    let dir = project("");
    let out = run(dir.path(), &["lint", "--fix", "logs"]);
    assert_eq!(
        out.code,
        1,
        "unfixable findings remain: {}",
        out.transcript()
    );
    // What remains is reported as `lint` reports it, in the same order and words.
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.last().copied(),
        Some("Fixed 5 findings; 6 remain (1 error, 5 warnings): 1 file checked. 1 fixable with `toolcheck fix --write --unsafe-fixes` (review the diff: unsafe fixes may drop data)."),
        "{}",
        out.transcript()
    );
    let again = run(dir.path(), &["fix", "logs"]);
    assert!(again.stdout.is_empty(), "{}", again.transcript());
    let lint = run(dir.path(), &["lint", "logs"]);
    let reported = out.stdout.rsplit_once("\nFixed ").map(|(r, _)| r);
    let linted = lint.stdout.rsplit_once("\nFound ").map(|(r, _)| r);
    assert!(reported.is_some(), "{}", out.stdout);
    assert_eq!(reported, linted, "{}", lint.stdout);
    assert!(
        out.stdout.contains("TC104 duplicate-tool-call-id"),
        "{}",
        out.stdout
    );
}

#[test]
fn lint_fix_reports_what_remains_in_every_format() {
    let dir = project(
        r#"
[[suppress]]
path = "logs/*.json"
rule = "TC104"
pointer = "/messages/99"
reason = "kept from an older version of the fixture"
"#,
    );
    let out = run(
        dir.path(),
        &["lint", "--fix", "logs", "--output-format", "concise"],
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    // The remaining findings, the stale suppression among them, and no diff.
    assert!(!out.stdout.contains("@@"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("logs/broken-request.json:32:9: TC104 [duplicate-tool-call-id]"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("toolcheck.toml:2:1: TC004 [unused-suppression]"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.ends_with("Fixed 5 findings; 7 remain (1 error, 6 warnings): 1 file checked. 1 fixable with `toolcheck fix --write --unsafe-fixes` (review the diff: unsafe fixes may drop data).\n"),
        "{}",
        out.stdout
    );
    // In JSON: the findings that remain, and nothing on stderr.
    let out = run(
        dir.path(),
        &["lint", "--fix", "logs", "--output-format", "json"],
    );
    let found: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(found.as_array().map(Vec::len), Some(7), "{}", out.stdout);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    // Stdin stays a filter: the fixed text comes out, as with `fix --write -`.
    let text = std::fs::read_to_string(root().join("fixtures/openai-chat/broken-request.json"))
        .expect("fixture");
    for args in [
        &["lint", "--fix", "-"][..],
        &["lint", "--fix", "--stdin-filename", "body.json"][..],
    ] {
        let out = toolcheck_in(dir.path(), args, Some(&text));
        let fixed: Result<serde_json::Value, _> = serde_json::from_str(&out.stdout);
        assert!(fixed.is_ok(), "{args:?}: {}", out.transcript());
        assert_ne!(out.stdout, text, "{args:?}");
    }
}

#[test]
fn fix_diff_is_a_patch_git_applies() {
    let dir = project("");
    // A JSONL file with long lines: the default view would crop them.
    std::fs::copy(
        root().join("fixtures/claude-code/broken-compaction-orphan.jsonl"),
        dir.path().join("logs/session.jsonl"),
    )
    .expect("copy");
    let original = dir.path().join("original");
    std::fs::create_dir(&original).expect("mkdir");
    let patch = run(dir.path(), &["fix", "logs", "--diff"]);
    assert_eq!(patch.code, 1, "{}", patch.transcript());
    assert!(!patch.stdout.contains('…'), "nothing is cropped");
    std::fs::write(dir.path().join("fix.patch"), &patch.stdout).expect("write patch");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("git runs")
    };
    let applied = git(&["apply", "--check", "-v", "fix.patch"]);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let applied = git(&["apply", "fix.patch"]);
    assert!(applied.status.success());
    let after = run(dir.path(), &["fix", "logs"]);
    assert!(
        after.stdout.is_empty(),
        "the patch is the whole fix: {}",
        after.transcript()
    );
}

#[test]
fn quiet_write_prints_no_diffs() {
    let dir = project("");
    let out = run(dir.path(), &["fix", "logs", "--write", "-q"]);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn stdin_filename_needs_stdin() {
    let dir = project("");
    let out = run(dir.path(), &["lint", "logs", "--stdin-filename", "x.json"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("`-` is not among the paths"),
        "{}",
        out.stderr
    );
    // With no path at all, it reads stdin (ruff's habit).
    let text = std::fs::read_to_string(root().join("fixtures/openai-chat/broken-request.json"))
        .expect("fixture");
    let out = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--stdin-filename",
            "named.json",
            "--output-format",
            "concise",
        ],
        Some(&text),
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.starts_with("named.json:"), "{}", out.stdout);
}

#[test]
fn colour_follows_clicolor_force_and_width_follows_columns() {
    let run_env = |env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_toolcheck"));
        cmd.args(["lint", "fixtures/openai-chat/broken-request.json"])
            .current_dir(root())
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("COLUMNS");
        for (k, v) in env {
            cmd.env(k, v);
        }
        String::from_utf8_lossy(&cmd.output().expect("runs").stdout).into_owned()
    };
    // Piped: no colour, unless forced.
    assert!(!run_env(&[]).contains('\u{1b}'));
    assert!(run_env(&[("CLICOLOR_FORCE", "1")]).contains("\u{1b}["));
    // Piped output wraps at a fixed width; COLUMNS sets another.
    let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let default = run_env(&[]);
    let narrow = run_env(&[("COLUMNS", "72")]);
    assert!(widest(&default) > 72, "{default}");
    assert!(
        narrow
            .lines()
            .filter(|l| l.trim_start().starts_with("help:") || l.contains('×'))
            .all(|l| l.chars().count() <= 72),
        "{narrow}"
    );
}

#[test]
fn wrapping_breaks_at_spaces_only_and_keeps_pointers_whole() {
    let run_at = |columns: &str, format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolcheck"))
            .args(["lint", "fixtures", "--output-format", format])
            .current_dir(root())
            .env("NO_COLOR", "1")
            .env("COLUMNS", columns)
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let json: serde_json::Value = serde_json::from_str(&run_at("60", "json")).expect("json");
    // Every word of the full report, its gutter left out.
    let full = run_at("60", "full");
    let words: std::collections::HashSet<&str> = full
        .split_whitespace()
        .filter(|w| !matches!(*w, "│" | "·" | "×" | "⚠" | "help:"))
        .collect();
    let mut checked = 0;
    for finding in json.as_array().expect("an array") {
        let text = [&finding["message"], &finding["help"]]
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        // Escaped characters print differently; such a message is left out.
        if text.chars().any(|c| c.is_control() || !c.is_ascii()) {
            continue;
        }
        for word in text
            .split(' ')
            .filter(|w| w.contains('/') || w.contains('-'))
        {
            checked += 1;
            assert!(
                words.contains(word),
                "{word:?} was broken across lines in:\n{full}"
            );
        }
    }
    assert!(checked > 100, "{checked} pointers, paths and names checked");
}

#[test]
fn concise_output_is_coloured_when_asked() {
    let dir = project("");
    let coloured = run(
        dir.path(),
        &[
            "lint",
            "logs",
            "--output-format",
            "concise",
            "--color",
            "always",
        ],
    );
    assert!(
        coloured
            .stdout
            .contains("\u{1b}[1;31mTC101\u{1b}[0m [orphaned-tool-result]"),
        "{}",
        coloured.stdout
    );
    assert!(coloured
        .stdout
        .contains("\u{1b}[1mlogs/broken-request.json:"));
    let plain = run(
        dir.path(),
        &[
            "lint",
            "logs",
            "--output-format",
            "concise",
            "--color",
            "never",
        ],
    );
    assert!(!plain.stdout.contains('\u{1b}'), "{}", plain.stdout);
    // fix's findings output too, and `--color always` wins over NO_COLOR (set by `run`).
    let fix = run(
        dir.path(),
        &[
            "fix",
            "logs",
            "--output-format",
            "concise",
            "--color",
            "always",
        ],
    );
    assert!(
        fix.stdout
            .contains("\u{1b}[1;31mTC101\u{1b}[0m [orphaned-tool-result]"),
        "{}",
        fix.stdout
    );
}
