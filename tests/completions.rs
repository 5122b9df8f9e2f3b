//! `toolcheck completions SHELL` and `toolcheck man`: smoke tests of the generated text.

use crate::common;

use common::toolcheck;

/// The page's `.TH` title line: the first macro after clap_mangen's two-line preamble, which
/// defines the apostrophe string (`.ie \n(.g .ds Aq ...`).
fn title(page: &str) -> &str {
    let mut lines = page
        .lines()
        .skip_while(|l| l.starts_with(".ie") || l.starts_with(".el"));
    lines.next().unwrap_or_default()
}

#[test]
fn bash_completion_knows_subcommands_and_options() {
    let out = toolcheck(&["completions", "bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("lint"));
    assert!(out.stdout.contains("--output-format"));
    assert!(
        out.stdout.contains("complete -F"),
        "a bash completion script"
    );
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = toolcheck(&["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        // fish spells options `-l select`, the others `--select`.
        assert!(out.stdout.contains("select"), "{shell} completes --select");
        assert!(
            out.stdout.contains("explain"),
            "{shell} completes subcommands"
        );
    }
}

#[test]
fn no_shell_offers_the_hidden_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = toolcheck(&["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        // bash spells it `generate__subcmd__docs` in its function names.
        assert!(
            !out.stdout.contains("generate-docs") && !out.stdout.contains("generate__"),
            "{shell} offers generate-docs"
        );
        // The visible ones are all still there, with the root's options.
        for name in [
            "lint", "fix", "doctor", "rules", "explain", "tools", "server", "man",
        ] {
            assert!(out.stdout.contains(name), "{shell} completes {name}");
        }
        assert!(
            out.stdout.contains("version"),
            "{shell} completes --version"
        );
    }
    // Hidden from completion, the command still runs.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = toolcheck(&["generate-docs", &dir.path().display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.transcript());
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let out = toolcheck(&["completions", "tcsh"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("invalid value 'tcsh'"),
        "{}",
        out.stderr
    );
}

#[test]
fn man_page_is_roff_and_lists_the_subcommands() {
    let out = toolcheck(&["man"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        title(&out.stdout).starts_with(".TH toolcheck 1"),
        "{}",
        out.stdout
    );
    // Subcommand pages are named as they are read: `toolcheck man lint`.
    assert!(out.stdout.contains("toolcheck man lint"), "{}", out.stdout);
    assert!(
        !out.stdout.contains("toolcheck\\-lint(1)"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("generate\\-docs"),
        "hidden commands stay hidden"
    );
}

#[test]
fn man_page_of_a_subcommand() {
    let out = toolcheck(&["man", "lint"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        title(&out.stdout).starts_with(".TH toolcheck-lint 1"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("\\-\\-output\\-format"),
        "{}",
        out.stdout
    );

    let unknown = toolcheck(&["man", "lnit"]);
    insta::assert_snapshot!(unknown.transcript());
}

#[test]
fn rule_options_complete_rule_codes_and_names_not_file_names() {
    let out = toolcheck(&["completions", "bash"]);
    let script = &out.stdout;
    let select = script
        .split("--select)")
        .nth(1)
        .and_then(|rest| rest.split(";;").next())
        .expect("a --select case");
    assert!(select.contains("compgen -W"), "{select}");
    assert!(select.contains("TC101") && select.contains("orphaned-tool-result"));
    assert!(!select.contains("compgen -f"), "{select}");
    let fish = toolcheck(&["completions", "fish"]).stdout;
    assert!(fish.contains("TC101"), "fish offers codes too");
}

/// The lines of the fenced block that follows `after` in the shell completions page.
#[cfg(unix)]
fn page_block(after: &str) -> Vec<String> {
    let page = std::fs::read_to_string(common::root().join("docs/completions.md"))
        .expect("docs/completions.md");
    let rest = page.split_once(after).map(|(_, r)| r).unwrap_or_default();
    let block = rest.split("```").nth(1).unwrap_or_default();
    block.lines().skip(1).map(str::to_string).collect()
}

#[cfg(unix)]
#[test]
fn documented_install_lines_work_in_a_fresh_home() {
    let home = tempfile::tempdir().expect("tempdir");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_toolcheck"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut lines = page_block("# Shell completions");
    lines.extend(page_block("`toolcheck man` prints the man page"));
    let mut ran = 0;
    for line in &lines {
        // PowerShell's line is PowerShell's; reading the page needs man.
        if line.starts_with('#') || line.contains("$PROFILE") || line.contains("man -l") {
            continue;
        }
        let status = std::process::Command::new("sh")
            .args(["-c", line])
            .env("HOME", home.path())
            .env("PATH", &path)
            .status()
            .expect("sh runs");
        assert!(status.success(), "{line:?} fails in a fresh home");
        ran += 1;
    }
    assert_eq!(ran, 6, "{lines:?}");
    for file in [
        ".local/share/bash-completion/completions/toolcheck",
        ".zfunc/_toolcheck",
        ".config/fish/completions/toolcheck.fish",
        ".config/elvish/rc.elv",
        ".local/share/man/man1/toolcheck.1",
    ] {
        let text = std::fs::read_to_string(home.path().join(file)).unwrap_or_default();
        assert!(text.contains("toolcheck"), "{file} holds the script");
    }
}
