//! The GitHub Action's run step (`scripts/action-run.sh`, which `action.yml` runs), run here
//! as the runner runs it, with each combination of its inputs.

use crate::common;

use std::path::Path;
use std::process::Command;

struct Step {
    code: i32,
    stdout: String,
    output: String,
}

/// Runs the step in `dir` with the inputs `args`, `paths` and `sarif`.
fn step(dir: &Path, args: &str, paths: &str, sarif: &str) -> Step {
    let bin = Path::new(env!("CARGO_BIN_EXE_toolcheck"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let output_file = dir.join("github-output");
    let out = Command::new("bash")
        .arg(common::root().join("scripts/action-run.sh"))
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("TOOLCHECK_ARGS", args)
        .env("TOOLCHECK_PATHS", paths)
        .env("TOOLCHECK_SARIF", sarif)
        .env("GITHUB_OUTPUT", &output_file)
        .output()
        .expect("bash runs");
    Step {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        output: std::fs::read_to_string(&output_file).unwrap_or_default(),
    }
}

/// A project with a broken log under `logs with space/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let logs = dir.path().join("logs with space");
    std::fs::create_dir_all(&logs).expect("mkdir");
    std::fs::copy(
        common::root().join("fixtures/openai-chat/broken-request.json"),
        logs.join("broken.json"),
    )
    .expect("copy");
    dir
}

fn sarif_results(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("out.sarif")).expect("the SARIF file");
    let sarif: serde_json::Value = serde_json::from_str(&text).expect("SARIF is JSON");
    sarif["runs"][0]["results"].as_array().map_or(0, Vec::len)
}

#[test]
fn findings_fail_the_step_and_fill_the_sarif_file() {
    let dir = project();
    let out = step(
        dir.path(),
        "lint",
        "logs with space/broken.json",
        "out.sarif",
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(out.output, "exit-code=1\n");
    assert!(out.stdout.contains("TC101"), "{}", out.stdout);
    assert!(sarif_results(dir.path()) > 0);
}

#[test]
fn an_output_format_in_args_does_not_empty_the_sarif_file() {
    let dir = project();
    let out = step(
        dir.path(),
        "lint --output-format concise",
        "logs with space",
        "out.sarif",
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(sarif_results(dir.path()) > 0);
}

#[test]
fn the_sarif_run_never_writes_a_fix() {
    let dir = project();
    let log = dir.path().join("logs with space/broken.json");
    let before = std::fs::read(&log).expect("read");
    // A dry-run fix: only the step's own run could write, and it does not.
    let out = step(
        dir.path(),
        "fix --unpaired remove-call",
        "logs with space",
        "out.sarif",
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(std::fs::read(&log).expect("read"), before);
    assert!(sarif_results(dir.path()) > 0);
    // `fix --write`: the SARIF run reports the findings as they were, before the fix.
    let out = step(dir.path(), "fix --write", "logs with space", "out.sarif");
    assert_ne!(out.code, 2, "{}", out.stdout);
    assert!(sarif_results(dir.path()) > 0);
}

#[test]
fn a_sarif_run_that_fails_fails_the_step() {
    let dir = project();
    let out = step(
        dir.path(),
        "lint",
        "logs with space",
        "no/such/dir/out.sarif",
    );
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("::error title=toolcheck::the SARIF run failed"),
        "{}",
        out.stdout
    );
    assert_eq!(out.output, "exit-code=2\n");
}

#[test]
fn args_alone_still_work_as_before() {
    let dir = project();
    let out = step(dir.path(), "lint --select TC1 .", "", "out.sarif");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(sarif_results(dir.path()) > 0);
    let out = step(dir.path(), "rules", "", "");
    assert_eq!(out.code, 0, "{}", out.stdout);
}
