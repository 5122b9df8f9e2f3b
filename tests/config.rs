//! `toolcheck.toml`: discovery, precedence and errors.

use crate::common;

use common::{root, toolcheck_in};

/// A project with a config file, a nested directory to run from, and a log in it.
fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("toolcheck.toml"), config).expect("write config");
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    for name in ["broken-request.json", "broken-loops.jsonl"] {
        std::fs::copy(
            root().join("fixtures/openai-chat").join(name),
            logs.join(name),
        )
        .expect("copy");
    }
    std::fs::copy(
        root().join("tests/data/calls-without-tools.json"),
        logs.join("no-tools.json"),
    )
    .expect("copy");
    std::fs::copy(
        root().join("tests/data/anthropic-tools.json"),
        dir.path().join("tools.json"),
    )
    .expect("copy");
    dir
}

fn codes(out: &str) -> Vec<String> {
    let mut codes: Vec<String> = out
        .lines()
        .filter_map(|l| l.split(": ").nth(1)?.split(' ').next().map(str::to_string))
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

#[test]
fn the_nearest_config_applies_and_the_command_line_wins() {
    let dir = project("select = [\"TC1\"]\nignore = [\"unpaired-tool-call\"]\n");
    let logs = dir.path().join("logs");
    let out = toolcheck_in(
        &logs,
        &["lint", ".", "--output-format", "concise", "-q"],
        None,
    );
    assert_eq!(
        codes(&out.stdout),
        ["TC101", "TC103", "TC104", "TC105"],
        "{}",
        out.stdout
    );
    let cli = toolcheck_in(
        &logs,
        &[
            "lint",
            ".",
            "--output-format",
            "concise",
            "-q",
            "--select",
            "TC4",
        ],
        None,
    );
    assert_eq!(codes(&cli.stdout), ["TC401"], "{}", cli.stdout);
    let none = toolcheck_in(
        &logs,
        &[
            "lint",
            ".",
            "--output-format",
            "concise",
            "-q",
            "--no-config",
        ],
        None,
    );
    assert!(codes(&none.stdout).len() > 5, "{}", none.stdout);
}

#[test]
fn loop_settings_and_tool_paths_relative_to_the_config() {
    let dir =
        project("select = [\"TC401\", \"TC302\"]\nloop-threshold = 12\ntools = [\"tools.json\"]\n");
    let out = toolcheck_in(
        &dir.path().join("logs"),
        &["lint", ".", "--output-format", "concise", "-q"],
        None,
    );
    let loops = out.stdout.lines().filter(|l| l.contains("TC401")).count();
    assert_eq!(
        loops, 1,
        "only the 12-call run reaches the threshold: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains("no-tools.json")
            && out
                .stdout
                .contains("`get_forecast` calls an undeclared tool"),
        "tools.json was loaded: {}",
        out.stdout
    );
}

#[test]
fn explicit_config_file() {
    let dir = project("select = [\"TC999\"]\n");
    std::fs::write(dir.path().join("other.toml"), "select = [\"TC201\"]\n").expect("write");
    let out = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "logs",
            "--config",
            "other.toml",
            "--output-format",
            "concise",
            "-q",
        ],
        None,
    );
    assert_eq!(codes(&out.stdout), ["TC201"], "{}", out.stderr);
}

#[test]
fn invalid_config_is_a_usage_error() {
    let dir = project("selct = [\"TC1\"]\n");
    let out = toolcheck_in(dir.path(), &["lint", "logs"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("toolcheck.toml") && out.stderr.contains("selct"),
        "{}",
        out.stderr
    );
    let dir = project("loop-threshold = 1\n");
    let out = toolcheck_in(dir.path(), &["lint", "logs"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("loop-threshold must be at least 2"),
        "{}",
        out.stderr
    );
    let dir = project("select = [\"TC999\"]\n");
    let out = toolcheck_in(dir.path(), &["lint", "logs"], None);
    assert_eq!(
        out.code, 2,
        "an unknown selector in the config is an error too"
    );
}

/// A project whose toolcheck.toml excludes `vendor/**`, with a log in `vendor/` and one in
/// `logs/`, and an empty `sub/` to run from.
fn vendored() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("toolcheck.toml"),
        "exclude = [\"vendor/**\"]\n",
    )
    .expect("write config");
    for rel in ["vendor/a.json", "logs/b.json"] {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::copy(root().join("fixtures/openai-chat/clean-request.json"), path).expect("copy");
    }
    std::fs::create_dir_all(dir.path().join("sub")).expect("mkdir");
    dir
}

/// The files `lint -v` checked.
fn checked(dir: &std::path::Path, args: &[&str]) -> Vec<String> {
    common::checked_files(dir, args)
}

#[test]
fn config_excludes_are_relative_to_the_config_file() {
    let dir = vendored();
    assert_eq!(checked(dir.path(), &[]), ["logs/b.json"]);
    assert_eq!(
        checked(&dir.path().join("sub"), &[".."]),
        ["../logs/b.json"]
    );
    // From outside the project, each file's closest config applies, its excludes too.
    let parent = dir.path().parent().expect("parent");
    let name = dir
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert_eq!(checked(parent, &[&name]), [format!("{name}/logs/b.json")]);
    let config = format!("{name}/toolcheck.toml");
    assert_eq!(
        checked(parent, &[&name, "--config", &config]),
        [format!("{name}/logs/b.json")]
    );
    let out = toolcheck_in(dir.path(), &["lint", "-v"], None);
    assert!(
        out.stderr
            .contains("skipped dir ./vendor: excluded by \"vendor/**\""),
        "{}",
        out.stderr
    );
}

#[test]
fn command_line_excludes_add_to_the_config_and_are_relative_to_the_current_directory() {
    let dir = vendored();
    std::fs::copy(
        dir.path().join("logs/b.json"),
        dir.path().join("logs/c.jsonl"),
    )
    .expect("copy");
    assert_eq!(
        checked(dir.path(), &["--exclude", "logs/*.json"]),
        ["logs/c.jsonl"],
        "vendor/ stays excluded"
    );
    // Relative to the current directory, not to the config file.
    assert_eq!(
        checked(
            &dir.path().join("logs"),
            &["..", "--exclude", "logs/*.json"]
        ),
        ["../logs/b.json", "../logs/c.jsonl"]
    );
    assert_eq!(
        checked(&dir.path().join("logs"), &["..", "--exclude", "*.json"]),
        ["../logs/c.jsonl"],
        "a glob without a slash matches a name anywhere"
    );
}

#[test]
fn a_file_named_on_the_command_line_is_checked_even_when_excluded() {
    let dir = vendored();
    assert_eq!(
        checked(dir.path(), &["vendor/a.json", "--exclude", "*.json"]),
        ["vendor/a.json"]
    );
}

#[test]
fn an_invalid_exclude_glob_is_a_usage_error() {
    let dir = vendored();
    std::fs::write(dir.path().join("toolcheck.toml"), "exclude = [\"a/[\"]\n").expect("write");
    let out = toolcheck_in(dir.path(), &["lint"], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr.contains("invalid exclude glob \"a/[\""),
        "{}",
        out.stderr
    );
}

#[test]
fn pyproject_tool_table_is_read_like_a_config_file() {
    let dir = project("");
    std::fs::remove_file(dir.path().join("toolcheck.toml")).expect("rm");
    let lint = |args: &[&str]| {
        let mut all = vec!["lint", ".", "--output-format", "concise", "-q"];
        all.extend_from_slice(args);
        toolcheck_in(&dir.path().join("logs"), &all, None)
    };
    // A pyproject.toml without the table is someone else's file: not a config.
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"agent\"\n\n[tool.ruff]\nline-length = 100\n",
    )
    .expect("write");
    assert!(codes(&lint(&[]).stdout).len() > 2);
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"agent\"\n\n[tool.ruff]\nline-length = 100\n\n[tool.toolcheck]\nselect = [\"TC4\"]\n",
    )
    .expect("write");
    assert_eq!(codes(&lint(&[]).stdout), ["TC401"]);
    // Errors point into the pyproject.toml.
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"agent\"\n\n[tool.toolcheck]\nselect = [\"TC9\"]\n",
    )
    .expect("write");
    let bad = lint(&[]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("pyproject.toml:5:11"), "{}", bad.stderr);
    // toolcheck.toml in the same directory wins.
    std::fs::write(dir.path().join("toolcheck.toml"), "select = [\"TC2\"]\n").expect("write");
    assert!(!codes(&lint(&[]).stdout).contains(&"TC401".to_string()));
}
