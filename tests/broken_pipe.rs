//! A closed standard output (`toolcheck lint | head -1`) ends the run quietly, with the exit
//! code the run would have had: no panic, no "Broken pipe" error.

use crate::common;

use std::process::{Command, Stdio};

use common::{root, toolcheck};

/// Runs toolcheck with its stdout a pipe whose read end is closed at once: the first write
/// (the outputs below are larger than a pipe buffer, or written after the close) fails with
/// `EPIPE`.
fn closed_stdout(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the toolcheck binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("toolcheck finishes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn closed_stdout_keeps_the_exit_code_and_stays_quiet() {
    let cases: &[&[&str]] = &[
        &["lint", "fixtures/"],
        &["lint", "fixtures/", "--output-format", "concise"],
        &["lint", "fixtures/", "--output-format", "json"],
        &["lint", "fixtures/", "--output-format", "sarif"],
        &["lint", "fixtures/", "--statistics"],
        &["lint", "fixtures/openai-chat/clean-request.json"],
        &["fix", "fixtures/"],
        &["rules"],
        &["rules", "--output-format", "json"],
        &["explain", "TC101"],
        &["completions", "bash"],
        &["man"],
    ];
    for args in cases {
        let normal = toolcheck(args);
        assert!(
            normal.code == 0 || normal.code == 1,
            "{args:?}: {}",
            normal.stderr
        );
        let (code, stderr) = closed_stdout(args);
        assert_eq!(code, normal.code, "{args:?} exits as it would: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        // What goes to stderr anyway (fix's summary) is unchanged.
        assert_eq!(stderr, normal.stderr, "{args:?}");
    }
}
