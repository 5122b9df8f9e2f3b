//! The `lsp` target's check: bytes → a sequence of LSP messages (initialize, didOpen with
//! the fuzz text, didChange, didClose, codeAction, hover, unknown methods, bad params, a
//! client's response, shutdown, exit) and raw garbage frames → `toolcheck server` in a child
//! process over pipes → invariants on how it ends and on what it wrote.
//!
//! The server is driven as a subprocess, not in process: `src/app/server.rs` reads the
//! process's own stdin through `lsp_server::Connection::stdio()` and takes no reader, writer
//! or connection, and its framing is being reworked on another branch; over a pipe the
//! target tests whatever the server does with the bytes, however it reads them. The child
//! is `$TOOLCHECK_BIN server` when that is set; else, under `cargo test`, the crate's own
//! binary; else the fuzz target's own executable, which serves instead of fuzzing when
//! `TOOLCHECK_FUZZ_LSP_SERVE` is set ([`serve_if_asked`], called from the target's `init`),
//! so the server is the code the fuzzer was built from. libFuzzer sees no coverage of the
//! child: the `cov`/`ft` it prints are the harness's own.
//!
//! An input is one option byte `h`, then messages separated by `0xFF`:
//!
//! * `h`: bit 0 leaves out the `initialize` request and `initialized` notification sent
//!   first; bit 1 the `shutdown` request and `exit` notification sent last; bits 2–3 write a
//!   `toolcheck.toml` beside the documents (none, one that selects and ignores rules, a
//!   broken one, one with `[[suppress]]` and per-file ignores); bit 4 puts the documents in a
//!   directory whose name needs percent-encoding in a URI; bit 5 sends a `Content-Type`
//!   header with every frame;
//! * a message's first byte `m` picks what it is (`m % 14`) and its document (`(m >> 4) & 3`:
//!   `a.json`, `b.jsonl`, `c.ndjson`, an `untitled:` buffer); the bytes after it are its
//!   payload: `0` didOpen, `1` didChange (the payload is the text, as UTF-8 with invalid
//!   bytes replaced), `2` didClose, `3` codeAction (the range is the payload's first four
//!   bytes: start line, character, end line, character), `4` hover (the position is its
//!   first two), `5` a request of a method the server does not know, `6` a codeAction with
//!   params of the wrong shape, `7` a notification it does not know, `8` a response to a
//!   request it never sent, `9` a frame whose body is the payload as is, `10` the payload as
//!   is without a header, `11` a frame whose `Content-Length` is off by `(m >> 4) - 8`,
//!   `12` shutdown, `13` exit. At most 64 messages.
//!
//! Invariants (panics):
//!
//! * the server ends within 30 seconds of its input's end, with exit code 0 or 2, not by a
//!   signal or a panic (exit 101, or `panicked at` on stderr);
//! * what it writes is a sequence of well-formed frames of JSON-RPC messages, the last one
//!   whole (`truncated-frame`, the one invariant `TOOLCHECK_FUZZ_ALLOW` can name here: a known
//!   failure, `fuzz/regressions/open/`);
//! * every diagnostic it publishes, and every edit of a code action, has a range that starts
//!   before it ends, within the lines of some text sent for the document;
//! * for an input of well-formed messages only (initialize first, shutdown and exit last,
//!   none of `9`–`13`), it exits 0 and answers every request, once.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::support::TempDir;

/// The most messages an input makes.
const MAX_MESSAGES: usize = 64;

/// How long the server may take after its input ends (generous: the machine may be busy).
const TIMEOUT: Duration = Duration::from_secs(30);

/// The variable that makes the fuzz target's executable a server.
const SERVE: &str = "TOOLCHECK_FUZZ_LSP_SERVE";

/// Runs `toolcheck server` and exits, when this process was started to be the server.
pub fn serve_if_asked() {
    if std::env::var_os(SERVE).is_some() {
        let code = toolcheck::app::run_code(toolcheck::cli::Command::Server);
        std::process::exit(i32::from(code));
    }
}

/// The configurations by `(h >> 2) & 3` (`None`: no file).
const CONFIGS: [Option<&str>; 4] = [
    None,
    Some("select = [\"TC1\", \"TC2\", \"TC401\"]\nignore = [\"empty-arguments\"]\n"),
    Some("select = [\"TC1\"\n[[[\n"),
    Some(
        "loop-threshold = 2\n[per-file-ignores]\n\"*.jsonl\" = [\"TC1\"]\n\n[[suppress]]\n\
         path = \"a.json\"\nrule = \"orphaned-tool-result\"\npointer = \"/messages/1\"\n\
         reason = \"fuzz\"\n",
    ),
];

/// The documents' names by `(m >> 4) & 3` (`None`: an unsaved buffer).
const DOCUMENTS: [Option<&str>; 4] = [Some("a.json"), Some("b.jsonl"), Some("c.ndjson"), None];

/// What the input sends, and what the checks need to know of it.
struct Script {
    bytes: Vec<u8>,
    /// The ids of the requests sent.
    requests: Vec<i64>,
    /// Every text sent per document URI.
    texts: BTreeMap<String, Vec<String>>,
    /// Only well-formed messages, initialize first, shutdown and exit last.
    well_formed: bool,
}

struct Writer {
    content_type: bool,
    out: Vec<u8>,
}

impl Writer {
    fn frame(&mut self, body: &[u8], length: usize) {
        self.out
            .extend_from_slice(format!("Content-Length: {length}\r\n").as_bytes());
        if self.content_type {
            self.out
                .extend_from_slice(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
        }
        self.out.extend_from_slice(b"\r\n");
        self.out.extend_from_slice(body);
    }

    fn message(&mut self, value: &Value) {
        let body = value.to_string();
        self.frame(body.as_bytes(), body.len());
    }
}

fn uri_of(dir: &Path, spaced: bool, doc: Option<&str>) -> String {
    match doc {
        None => "untitled:Untitled-1".to_string(),
        Some(name) => {
            let dir = dir.display().to_string();
            let dir = if spaced {
                dir.replace("docs dir é", "docs%20dir%20%C3%A9")
            } else {
                dir
            };
            format!("file://{dir}/{name}")
        }
    }
}

fn script(h: u8, rest: &[u8], docs: &Path, spaced: bool) -> Script {
    let mut w = Writer {
        content_type: h & 32 != 0,
        out: Vec::new(),
    };
    let mut requests = Vec::new();
    let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut well_formed = h & 3 == 0;
    let mut next_id = 1i64;
    let mut request = |w: &mut Writer, method: &str, params: Value, requests: &mut Vec<i64>| {
        let id = next_id;
        next_id += 1;
        requests.push(id);
        w.message(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    };
    let notify = |w: &mut Writer, method: &str, params: Value| {
        w.message(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    };
    if h & 1 == 0 {
        let root = format!("file://{}", docs.display());
        request(
            &mut w,
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {}}),
            &mut requests,
        );
        notify(&mut w, "initialized", json!({}));
    }
    for piece in rest.split(|&b| b == 0xFF).take(MAX_MESSAGES) {
        let Some((&m, payload)) = piece.split_first() else {
            continue;
        };
        let uri = uri_of(docs, spaced, DOCUMENTS[usize::from((m >> 4) & 3)]);
        let doc = json!({"uri": uri});
        let byte = |i: usize| u32::from(payload.get(i).copied().unwrap_or(0) % 40);
        let text = || String::from_utf8_lossy(payload).into_owned();
        match m % 14 {
            0 => {
                let text = text();
                texts.entry(uri.clone()).or_default().push(text.clone());
                notify(
                    &mut w,
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
                );
            }
            1 => {
                let text = text();
                texts.entry(uri.clone()).or_default().push(text.clone());
                notify(
                    &mut w,
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
                );
            }
            2 => notify(
                &mut w,
                "textDocument/didClose",
                json!({"textDocument": doc}),
            ),
            3 => request(
                &mut w,
                "textDocument/codeAction",
                json!({
                    "textDocument": doc,
                    "range": {"start": {"line": byte(0), "character": byte(1)},
                              "end": {"line": byte(2), "character": byte(3)}},
                    "context": {"diagnostics": []}
                }),
                &mut requests,
            ),
            4 => request(
                &mut w,
                "textDocument/hover",
                json!({"textDocument": doc, "position": {"line": byte(0), "character": byte(1)}}),
                &mut requests,
            ),
            5 => request(
                &mut w,
                "textDocument/completion",
                json!({"textDocument": doc, "position": {"line": 0, "character": 0}}),
                &mut requests,
            ),
            6 => request(
                &mut w,
                "textDocument/codeAction",
                json!({"textDocument": 5, "range": "all"}),
                &mut requests,
            ),
            7 => notify(&mut w, "$/cancelRequest", json!({"id": 1})),
            8 => w.message(&json!({"jsonrpc": "2.0", "id": 9999, "result": null})),
            9 => {
                well_formed = false;
                w.frame(payload, payload.len());
            }
            10 => {
                well_formed = false;
                w.out.extend_from_slice(payload);
            }
            11 => {
                well_formed = false;
                let off = i64::from(m >> 4) - 8;
                let length = i64::try_from(payload.len()).unwrap_or(0) + off;
                w.frame(payload, usize::try_from(length.max(0)).unwrap_or(0));
            }
            12 => {
                well_formed = false;
                request(&mut w, "shutdown", Value::Null, &mut requests);
            }
            _ => {
                well_formed = false;
                notify(&mut w, "exit", Value::Null);
            }
        }
    }
    if h & 2 == 0 {
        request(&mut w, "shutdown", Value::Null, &mut requests);
        notify(&mut w, "exit", Value::Null);
    }
    Script {
        bytes: w.out,
        requests,
        texts,
        well_formed,
    }
}

/// The server to start: `$TOOLCHECK_BIN`, the crate's binary under `cargo test`, else this
/// executable as a server.
fn server() -> Command {
    if let Some(bin) = std::env::var_os("TOOLCHECK_BIN") {
        let mut cmd = Command::new(bin);
        cmd.arg("server");
        return cmd;
    }
    if let Some(bin) = option_env!("CARGO_BIN_EXE_toolcheck") {
        let mut cmd = Command::new(bin);
        cmd.arg("server");
        return cmd;
    }
    let exe = std::env::current_exe().expect("the fuzz target's own path");
    if exe
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("toolcheck_fuzz-"))
    {
        // The fuzz crate's unit tests: no server to start but a built binary.
        let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/toolcheck");
        let mut cmd = Command::new(built);
        cmd.arg("server");
        return cmd;
    }
    let mut cmd = Command::new(exe);
    cmd.env(SERVE, "1");
    cmd
}

/// The frames of the server's output: each body as JSON; and whether the output ends inside
/// a frame (a header or body cut short).
fn frames(out: &[u8]) -> Result<(Vec<Value>, bool), String> {
    let mut rest = out;
    let mut values = Vec::new();
    while !rest.is_empty() {
        let Some(end) = rest.windows(4).position(|w| w == b"\r\n\r\n") else {
            return Ok((values, true));
        };
        let header = std::str::from_utf8(&rest[..end]).map_err(|e| e.to_string())?;
        let length: usize = header
            .split("\r\n")
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("no Content-Length in {header:?}"))?;
        let Some(body) = rest.get(end + 4..end + 4 + length) else {
            return Ok((values, true));
        };
        values.push(serde_json::from_slice(body).map_err(|e| format!("{e}: {body:?}"))?);
        rest = &rest[end + 4 + length..];
    }
    Ok((values, false))
}

/// Whether a range starts before it ends and lies within the lines of one of `texts`.
fn range_ok(range: &Value, texts: Option<&Vec<String>>) -> bool {
    let pos = |p: &Value| Some((p.get("line")?.as_u64()?, p.get("character")?.as_u64()?));
    let (Some(start), Some(end)) = (
        range.get("start").and_then(pos),
        range.get("end").and_then(pos),
    ) else {
        return false;
    };
    let lines = texts.map_or(0, |t| {
        t.iter()
            .map(|s| s.matches('\n').count() as u64)
            .max()
            .unwrap_or(0)
    });
    start <= end && end.0 <= lines
}

/// Ignores SIGPIPE once: libFuzzer's `main` is C, so Rust's start-up never did, and a write
/// to a server that already exited would end the fuzzer.
fn ignore_sigpipe() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: sets a signal's disposition to ignore, before any pipe is written.
    #[cfg(unix)]
    ONCE.call_once(|| unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    });
}

/// Runs the `lsp` target's check on one input (an option byte, then messages).
pub fn check(data: &[u8]) {
    let Some((&h, rest)) = data.split_first() else {
        return;
    };
    ignore_sigpipe();
    let dir = TempDir::new("lsp");
    let spaced = h & 16 != 0;
    let docs = if spaced {
        dir.path().join("docs dir é")
    } else {
        dir.path().join("docs")
    };
    std::fs::create_dir_all(&docs).expect("the fuzz target makes its directory");
    if let Some(config) = CONFIGS[usize::from((h >> 2) & 3)] {
        std::fs::write(docs.join("toolcheck.toml"), config).expect("the fuzz target writes");
    }
    let script = script(h, rest, &docs, spaced);
    super::trace_line(|| format!("{}", String::from_utf8_lossy(&script.bytes)));

    let mut child = server()
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        panic!("the server's pipes");
    };
    let input = script.bytes.clone();
    // A server that stops reading must not stall the harness: write, read and wait apart.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let errors = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stderr.read_to_end(&mut out);
        out
    });
    let _ = writer.join();
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not end within {TIMEOUT:?} of its input's end");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let out = reader.join().unwrap_or_default();
    let err = String::from_utf8_lossy(&errors.join().unwrap_or_default()).into_owned();
    assert!(!err.contains("panicked at"), "the server panicked: {err}");
    let code = status.code();
    assert!(
        matches!(code, Some(0 | 2)),
        "the server ended with {status} (stderr: {err})"
    );

    let (messages, cut) = frames(&out).unwrap_or_else(|e| panic!("the server's output: {e}"));
    if cut {
        // Known: after a frame it cannot read, the server may exit while its writer thread
        // is still writing (`lsp_server::IoThreads::join` returns the reader's error before
        // joining the writer), so its last message is cut short.
        let message = format!(
            "the server's output ends inside a frame (exit {code:?}): {:?}",
            String::from_utf8_lossy(&out[out.len().saturating_sub(200)..])
        );
        if super::support::fail("lsp", "truncated-frame", message).is_err() {
            return;
        }
    }
    let mut answered: Vec<i64> = Vec::new();
    for m in &messages {
        assert_eq!(m.get("jsonrpc"), Some(&json!("2.0")), "{m}");
        if m.get("method").is_none() {
            if let Some(id) = m.get("id").and_then(Value::as_i64) {
                answered.push(id);
            }
            for action in m
                .get("result")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let changes = action.pointer("/edit/changes").and_then(Value::as_object);
                for (uri, edits) in changes.into_iter().flatten() {
                    for edit in edits.as_array().into_iter().flatten() {
                        let range = edit.get("range").unwrap_or(&Value::Null);
                        assert!(
                            range_ok(range, script.texts.get(uri)),
                            "a code action's edit range {range} in {uri}"
                        );
                    }
                }
            }
        } else if m.get("method") == Some(&json!("textDocument/publishDiagnostics")) {
            let uri = m
                .pointer("/params/uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let diagnostics = m.pointer("/params/diagnostics").and_then(Value::as_array);
            for d in diagnostics.into_iter().flatten() {
                let range = d.get("range").unwrap_or(&Value::Null);
                assert!(
                    range_ok(range, script.texts.get(uri)),
                    "a diagnostic's range {range} in {uri}"
                );
            }
        }
    }
    if script.well_formed {
        assert_eq!(
            code,
            Some(0),
            "a well-formed session ended with {status} ({err})"
        );
        let unique: BTreeSet<i64> = answered.iter().copied().collect();
        assert_eq!(
            unique.len(),
            answered.len(),
            "a request answered twice: {answered:?}"
        );
        assert_eq!(
            unique,
            script.requests.iter().copied().collect(),
            "the requests answered"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(h: u8, messages: &[(u8, &str)]) -> Vec<u8> {
        let mut out = vec![h];
        for (i, (m, text)) in messages.iter().enumerate() {
            if i > 0 {
                out.push(0xFF);
            }
            out.push(*m);
            out.extend_from_slice(text.as_bytes());
        }
        out
    }

    const ORPHAN: &str = r#"{"messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"x"}]}"#;

    /// Needs the crate's binary (`cargo build`) when run from the fuzz crate; under the main
    /// crate's `cargo test` it is built.
    #[test]
    fn a_session_and_garbage_end_cleanly() {
        let bin = server();
        if !Path::new(bin.get_program()).exists() {
            eprintln!("skipped: no {:?}", bin.get_program());
            return;
        }
        for h in [0, 4, 8, 12, 16, 32] {
            check(&input(
                h,
                &[
                    (0, ORPHAN),
                    (3, "\x01\x00\x01\x10"),
                    (4, "\x01\x05"),
                    (1, "{"),
                    (5, ""),
                    (6, ""),
                    (7, ""),
                    (8, ""),
                    (2, ""),
                ],
            ));
        }
        check(&input(0, &[(0, ORPHAN), (9, "{not json"), (4, "")]));
        check(&input(1, &[(10, "Content-Length: 5\r\n\r\n{}")]));
        check(&input(2, &[(0, ORPHAN), (11 | 0x20, ORPHAN)]));
        check(&input(0, &[(12, ""), (0, ORPHAN), (13, "")]));
    }
}
