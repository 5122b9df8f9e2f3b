//! Helpers shared by the integration tests: run the real binary from the crate root.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `fix --write` of the database `name` in `dir` while another connection holds a write
/// lock: refused with exit 2 and a reason, and what `read` sees of the database unchanged.
pub fn fix_write_refused_while_locked<T: PartialEq + std::fmt::Debug>(
    dir: &Path,
    name: &str,
    read: impl Fn(&Path) -> T,
) {
    let path = dir.join(name);
    let before = read(&path);
    let writer = rusqlite::Connection::open(&path).expect("open");
    writer.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let out = toolcheck_in(dir, &["fix", "--write", name], None);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("locked"), "{}", out.transcript());
    writer.execute_batch("ROLLBACK").expect("unlock");
    drop(writer);
    assert_eq!(before, read(&path));
}

/// `fix --write` of the store `name` in `dir`, whose rows `read` lists one string each, led
/// by `keys` space-separated fields a fix must leave alone (ids, order columns): asserts
/// that no row was added or removed and those fields did not change, and that the fix
/// converged (a second run has nothing to fix and changes nothing). Returns the rows the
/// fix changed and the concise lint after it.
pub fn fix_write_in_place(
    dir: &Path,
    name: &str,
    keys: usize,
    read: impl Fn(&Path) -> Vec<String>,
) -> (String, Output) {
    let path = dir.join(name);
    let before = read(&path);
    let out = toolcheck_in(dir, &["fix", "--write", name], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    let after = read(&path);
    let lead = |rows: &[String]| -> Vec<String> {
        rows.iter()
            .map(|r| {
                r.splitn(keys + 1, ' ')
                    .take(keys)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(lead(&before), lead(&after));
    let changed: Vec<String> = after
        .iter()
        .filter(|r| !before.contains(r))
        .cloned()
        .collect();
    let lint = toolcheck_in(dir, &["lint", "--output-format", "concise", name], None);
    let again = toolcheck_in(dir, &["fix", "--write", name], None);
    assert!(
        again.stderr.contains("Nothing to fix"),
        "{}",
        again.transcript()
    );
    assert_eq!(after, read(&path));
    (changed.join("\n"), lint)
}

/// The rows `sql` selects from the database at `path`, each its columns' values joined by
/// spaces (text as is, numbers as written, NULL as `NULL`).
pub fn query_rows(path: &Path, sql: &str) -> Vec<String> {
    use rusqlite::types::ValueRef;
    let conn = rusqlite::Connection::open(path).expect("open");
    let mut stmt = conn.prepare(sql).expect("prepare");
    let columns = stmt.column_count();
    stmt.query_map([], |r| {
        let mut fields = Vec::with_capacity(columns);
        for i in 0..columns {
            fields.push(match r.get_ref(i)? {
                ValueRef::Null => "NULL".to_string(),
                ValueRef::Integer(n) => n.to_string(),
                ValueRef::Real(x) => x.to_string(),
                ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
            });
        }
        Ok(fields.join(" "))
    })
    .expect("query")
    .collect::<Result<_, _>>()
    .expect("rows")
}

/// `lint -v` of the store `name` in `dir`: clean, and its summary line says `read`
/// (`checked NAME (FORMAT): …`).
pub fn lint_clean_reads(dir: &Path, name: &str, read: &str) {
    let out = toolcheck_in(dir, &["lint", "-v", name], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stderr.contains(read), "{}", out.transcript());
}

/// `lint --output-format concise` of `name` in `dir`.
pub fn lint_concise(dir: &Path, name: &str) -> Output {
    toolcheck_in(dir, &["lint", "--output-format", "concise", name], None)
}

pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    /// stdout, then stderr if any, then the exit code: one string to snapshot.
    pub fn transcript(&self) -> String {
        let mut s = self.stdout.clone();
        if !self.stderr.is_empty() {
            s.push_str("--- stderr ---\n");
            s.push_str(&self.stderr);
        }
        s.push_str(&format!("--- exit {} ---\n", self.code));
        s
    }
}

/// `lint FILE --output-format concise` with `extra` arguments, headed by the command line:
/// one case of a snapshot that holds several.
pub fn concise_case(file: &str, extra: &[&str]) -> String {
    let mut args = vec!["lint", file, "--output-format", "concise"];
    args.extend_from_slice(extra);
    let out = toolcheck(&args);
    format!(
        "$ toolcheck lint {file} {}\n{}",
        extra.join(" "),
        out.transcript()
    )
}

/// `lint FILE` with `extra` arguments finds nothing.
pub fn assert_lints_clean(file: &str, extra: &[&str]) {
    let mut args = vec!["lint", file, "--output-format", "concise"];
    args.extend_from_slice(extra);
    let out = toolcheck(&args);
    assert_eq!(out.code, 0, "{file} {extra:?}: {}", out.transcript());
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn toolcheck(args: &[&str]) -> Output {
    toolcheck_in(&root(), args, None)
}

pub fn toolcheck_stdin(args: &[&str], stdin: &str) -> Output {
    toolcheck_in(&root(), args, Some(stdin))
}

/// `lint -` of `body`, named `name`, in concise form, with `extra` arguments.
pub fn lint_stdin_concise(name: &str, body: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "lint",
        "-",
        "--stdin-filename",
        name,
        "--output-format",
        "concise",
    ];
    args.extend_from_slice(extra);
    toolcheck_stdin(&args, body)
}

pub fn toolcheck_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    toolcheck_bytes(dir, args, stdin.map(str::as_bytes)).1
}

/// [`toolcheck_in`] with raw bytes on stdin; also returns stdout's raw bytes.
pub fn toolcheck_bytes(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> (Vec<u8>, Output) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the toolcheck binary runs");
    // Written from a thread, so a large input cannot block against a full stdout pipe.
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        let bytes = bytes.to_vec();
        std::thread::spawn(move || pipe.write_all(&bytes))
    });
    let out = child.wait_with_output().expect("toolcheck finishes");
    if let Some(writer) = writer {
        writer
            .join()
            .expect("the stdin writer ends")
            .expect("stdin accepts input");
    }
    let output = Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    };
    (out.stdout, output)
}

/// The files `toolcheck lint -v ARGS` run in `dir` says it checked, in order; the run must
/// find nothing (exit 0).
pub fn checked_files(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["lint", "-v"];
    all.extend(args);
    let out = toolcheck_in(dir, &all, None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    out.stderr
        .lines()
        .filter_map(|l| l.strip_prefix("checked "))
        .filter_map(|l| l.split(' ').next().map(str::to_string))
        .collect()
}

/// Every fixture file, relative to the crate root, sorted.
pub fn fixture_files() -> Vec<String> {
    let mut files: Vec<String> = walk(&root().join("fixtures"))
        .into_iter()
        .filter_map(|p| {
            p.strip_prefix(root())
                .ok()
                .map(|r| r.to_string_lossy().into_owned())
        })
        .collect();
    files.sort();
    files
}

/// Every file below `dir`, in no particular order.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// Copies `names` from `fixtures/<dir>` to a temporary directory, runs `fix --write` on them,
/// and checks that a second `fix --write` changes nothing. Returns the first run and the fixed
/// texts, in the order of `names`.
pub fn fix_write_twice(dir: &str, names: &[&str]) -> (Output, Vec<String>) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    for name in names {
        std::fs::copy(
            root().join("fixtures").join(dir).join(name),
            tmp.path().join(name),
        )
        .expect("copy");
    }
    let read = || -> Vec<String> {
        names
            .iter()
            .map(|n| std::fs::read_to_string(tmp.path().join(n)).expect("read"))
            .collect()
    };
    let mut args = vec!["fix", "--write", "--color", "never"];
    args.extend(names);
    let first = toolcheck_in(tmp.path(), &args, None);
    let fixed = read();
    let again = toolcheck_in(tmp.path(), &args, None);
    assert_eq!(
        fixed,
        read(),
        "a second fix changes nothing: {}",
        again.transcript()
    );
    (first, fixed)
}

/// Copies `fixtures/<fixture>` to a temporary directory as `name`, runs `fix --write` on it,
/// and checks that the file was left as it was. Returns the run.
pub fn fix_leaves_alone(fixture: &str, name: &str) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    let original = std::fs::read_to_string(root().join("fixtures").join(fixture)).expect("fixture");
    std::fs::write(&path, &original).expect("copy the fixture");
    let out = toolcheck_in(dir.path(), &["fix", name, "--write"], None);
    let after = std::fs::read_to_string(&path).expect("file");
    assert_eq!(after, original);
    out
}

/// Copies `fixtures/<fixture>` to a temporary directory as `name` and checks a repair's round
/// trip: `fix <name> --write` with `extra` exits 0, the file then lints clean, and a second
/// `fix <name> --write` with `again` exits 0 and changes nothing. Returns the original text
/// and the fixed one.
pub fn fix_write_round_trip(
    fixture: &str,
    name: &str,
    extra: &[&str],
    again: &[&str],
) -> (String, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    let original = std::fs::read_to_string(root().join("fixtures").join(fixture)).expect("fixture");
    std::fs::write(&path, &original).expect("copy the fixture");
    let run = |more: &[&str]| {
        let mut args = vec!["fix", name, "--write"];
        args.extend_from_slice(more);
        toolcheck_in(dir.path(), &args, None)
    };
    let fixed = run(extra);
    assert_eq!(fixed.code, 0, "{}", fixed.transcript());
    let after = std::fs::read_to_string(&path).expect("file");
    let lint = toolcheck_in(dir.path(), &["lint", name], None);
    assert_eq!(lint.code, 0, "{}", lint.transcript());
    let second = run(again);
    assert_eq!(second.code, 0, "{}", second.transcript());
    assert_eq!(std::fs::read_to_string(&path).expect("file"), after);
    (original, after)
}

/// `text` without the SGR colour sequences toolcheck writes (`\x1b[…m`).
pub fn strip_colors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find('m') {
            Some(end) => rest = &after[end + 1..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `toolcheck doctor --agent <agent> --output-format json` with `home` as the only
/// environment, as JSON.
pub fn doctor_json(home: &Path, agent: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
        .args(["doctor", "--agent", agent, "--output-format", "json"])
        .env_clear()
        .env("HOME", home)
        .output()
        .expect("toolcheck runs");
    serde_json::from_slice(&out.stdout).expect("doctor prints JSON")
}
