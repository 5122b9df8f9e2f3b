//! `toolcheck server`: a client that speaks LSP over stdio (initialize, didOpen, didChange,
//! publishDiagnostics, codeAction, hover, shutdown) against the real binary.

use crate::common;

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{json, Value as Json};

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i32,
}

impl Client {
    fn start(cwd: &std::path::Path) -> Client {
        Client::start_with(cwd, Stdio::inherit())
    }

    fn start_with(cwd: &std::path::Path, stderr: Stdio) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
            .arg("server")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    fn send(&mut self, message: Message) {
        message.write(&mut self.stdin).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Json) -> Json {
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        self.send(Message::Request(Request::new(
            id.clone(),
            method.into(),
            params,
        )));
        loop {
            match self.read() {
                Message::Response(r) if r.id == id => match r.response_result {
                    Ok(result) => return result,
                    Err(e) => panic!("{method}: {e:?}"),
                },
                _ => continue,
            }
        }
    }

    fn notify(&mut self, method: &str, params: Json) {
        self.send(Message::Notification(Notification::new(
            method.into(),
            params,
        )));
    }

    fn read(&mut self) -> Message {
        Message::read(&mut self.stdout)
            .expect("read")
            .expect("a message before the server closed its output")
    }

    /// The next diagnostics the server publishes.
    fn diagnostics(&mut self) -> (String, Vec<Json>) {
        loop {
            if let Message::Notification(n) = self.read() {
                if let Some(published) = publish(&n) {
                    return (published.uri, published.diagnostics);
                }
            }
        }
    }

    /// Starts the session: `initialize`, then `initialized`.
    fn initialize(&mut self) {
        self.request("initialize", json!({"capabilities": {}}));
        self.notify("initialized", json!({}));
    }

    /// Ends the session and checks that the server exits cleanly.
    fn shut_down(mut self) {
        let shutdown = self.request("shutdown", Json::Null);
        assert!(shutdown.is_null());
        self.notify("exit", Json::Null);
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "{status:?}");
    }
}

struct Published {
    uri: String,
    version: Option<i64>,
    diagnostics: Vec<Json>,
}

fn publish(n: &Notification) -> Option<Published> {
    (n.method == "textDocument/publishDiagnostics").then(|| Published {
        uri: n.params["uri"].as_str().unwrap_or_default().to_string(),
        version: n.params["version"].as_i64(),
        diagnostics: n.params["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    })
}

/// One OpenAI conversation of `calls` unanswered calls (a finding each), each followed by a
/// user turn. `lines`: a message a line, with non-ASCII text (an astral character among it)
/// before each call on its line, so bytes, characters and UTF-16 units all differ; otherwise
/// compact JSON, all on one line.
fn unpaired_calls(calls: usize, lines: bool) -> String {
    let gap = if lines { ",\n" } else { "," };
    let mut s = String::from(r#"{"messages": [{"role": "user", "content": "go"}"#);
    for i in 0..calls {
        s.push_str(gap);
        s.push_str(&format!(
            r#"{{"role": "assistant", "content": "größe 😀 {i}", "tool_calls": [{{"id": "call_{i}", "type": "function", "function": {{"name": "search", "arguments": "{{}}"}}}}]}}"#
        ));
        s.push_str(gap);
        s.push_str(r#"{"role": "user", "content": "and then?"}"#);
    }
    s.push_str("]}\n");
    s
}

/// Where `toolcheck lint` places the findings of `path`'s text: (0-based line, UTF-16
/// column) of each start and end, by the JSON report's 1-based lines and character columns.
fn lint_positions(text: &str, path: &std::path::Path) -> Vec<(String, [(u64, u64); 2])> {
    let lint = common::toolcheck(&[
        "lint",
        "--no-config",
        &path.display().to_string(),
        "--output-format",
        "json",
    ]);
    let found: Vec<Json> = serde_json::from_str(&lint.stdout).expect("json");
    let lines: Vec<&str> = text.split('\n').collect();
    let at = |line: &Json, column: &Json| {
        let line = line.as_u64().unwrap_or(0) - 1;
        let chars = column.as_u64().unwrap_or(0) - 1;
        let text = lines.get(line as usize).copied().unwrap_or_default();
        let units: usize = text.chars().take(chars as usize).map(char::len_utf16).sum();
        (line, units as u64)
    };
    found
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                [
                    at(&d["line"], &d["column"]),
                    at(&d["end_line"], &d["end_column"]),
                ],
            )
        })
        .collect()
}

fn lsp_position(range: &Json, end: &str) -> (u64, u64) {
    (
        range[end]["line"].as_u64().unwrap_or(u64::MAX),
        range[end]["character"].as_u64().unwrap_or(u64::MAX),
    )
}

fn uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

#[test]
fn diagnostics_code_actions_and_hover_over_stdio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken =
        std::fs::read_to_string(common::root().join("fixtures/openai-chat/broken-request.json"))
            .expect("fixture");
    let path = dir.path().join("my logs").join("request.json");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, &broken).expect("write");
    let doc = uri(&path);

    let mut client = Client::start(dir.path());
    let init = client.request("initialize", json!({"capabilities": {}}));
    assert_eq!(init["capabilities"]["textDocumentSync"], 1);
    assert_eq!(init["capabilities"]["codeActionProvider"], true);
    client.notify("initialized", json!({}));

    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": doc, "languageId": "json", "version": 1, "text": broken}}),
    );
    let (published, found) = client.diagnostics();
    assert_eq!(published, doc);
    // The same findings, places and severities as `toolcheck lint`.
    let lint = common::toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-request.json",
        "--output-format",
        "json",
    ]);
    let expected: Vec<Json> = serde_json::from_str(&lint.stdout).expect("json");
    assert_eq!(found.len(), expected.len());
    for (got, want) in found.iter().zip(&expected) {
        assert_eq!(got["code"], want["code"]);
        assert_eq!(
            got["range"]["start"]["line"],
            want["line"].as_u64().unwrap_or(0) - 1
        );
        assert_eq!(
            got["range"]["start"]["character"],
            want["column"].as_u64().unwrap_or(0) - 1
        );
        let severity = if want["severity"] == "error" { 1 } else { 2 };
        assert_eq!(got["severity"], severity);
    }

    // The orphaned result's fix, as a preferred quick fix that removes it.
    let orphan = found
        .iter()
        .find(|d| d["code"] == "TC101")
        .expect("TC101")
        .clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc}, "range": orphan["range"], "context": {"diagnostics": [orphan]}}),
    );
    let actions = actions.as_array().expect("actions");
    let fix = actions
        .iter()
        .find(|a| a["diagnostics"][0]["code"] == "TC101")
        .expect("a fix for TC101");
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    let edits = fix["edit"]["changes"][&doc].as_array().expect("edits");
    assert!(!edits.is_empty());

    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": doc}, "position": orphan["range"]["start"]}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("orphaned-tool-result"), "{text}");

    // A change to a clean text clears the diagnostics.
    let clean =
        std::fs::read_to_string(common::root().join("fixtures/openai-chat/clean-request.json"))
            .expect("fixture");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": doc, "version": 2}, "contentChanges": [{"text": clean}]}),
    );
    let (_, found) = client.diagnostics();
    assert!(found.is_empty(), "{found:?}");

    // A JSON document that is no conversation gets nothing.
    let other = dir.path().join("package.json");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&other), "languageId": "json", "version": 1, "text": "{\"name\": \"x\"}"}}),
    );
    let (published, found) = client.diagnostics();
    assert_eq!(published, uri(&other));
    assert!(found.is_empty(), "{found:?}");
    // Settings come from the nearest config file, as for `lint`.
    std::fs::write(dir.path().join("toolcheck.toml"), "ignore = [\"TC101\"]\n").expect("write");
    let second = dir.path().join("second.json");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&second), "languageId": "json", "version": 1, "text": broken}}),
    );
    let (published, found) = client.diagnostics();
    assert_eq!(published, uri(&second));
    assert!(!found.is_empty());
    assert!(found.iter().all(|d| d["code"] != "TC101"), "{found:?}");

    let shutdown = client.request("shutdown", Json::Null);
    assert!(shutdown.is_null());
    client.notify("exit", Json::Null);
    let status = client.child.wait().expect("the server exits");
    assert!(status.success(), "{status:?}");
}

#[test]
fn twenty_thousand_diagnostics_are_placed_as_lint_places_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = 20_000;
    let text = unpaired_calls(calls, true);
    let path = dir.path().join("many.json");
    std::fs::write(&path, &text).expect("write");
    let expected = lint_positions(&text, &path);
    assert!(expected.len() >= calls, "{}", expected.len());

    let mut client = Client::start(dir.path());
    client.initialize();
    let doc = uri(&path);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": doc, "languageId": "json", "version": 1, "text": text}}),
    );
    let (published, found) = client.diagnostics();
    assert_eq!(published, doc);
    assert_eq!(found.len(), expected.len());
    // The first and the last finding, on the second line and the last but one.
    for i in [0, found.len() - 1] {
        let (got, (code, [start, end])) = (&found[i], &expected[i]);
        assert_eq!(got["code"], code.as_str(), "{i}");
        assert_eq!(lsp_position(&got["range"], "start"), *start, "{i}: {got}");
        assert_eq!(lsp_position(&got["range"], "end"), *end, "{i}: {got}");
    }
    assert_eq!(lsp_position(&found[0]["range"], "start").0, 1);
    let last = lsp_position(&found[found.len() - 1]["range"], "start");
    assert_eq!(last.0 as usize, 2 * calls - 1);
    // A code action at the last finding answers from the stored findings.
    let range = found[found.len() - 1]["range"].clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc}, "range": range, "context": {"diagnostics": []}}),
    );
    let actions = actions.as_array().expect("actions");
    assert!(
        actions
            .iter()
            .any(|a| a["diagnostics"][0]["range"] == range),
        "{actions:?}"
    );
    client.shut_down();
}

#[test]
fn queued_edits_are_linted_once_at_their_last_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("edited.json");
    let doc = uri(&path);
    // Version v of the text has v - 1 unanswered calls, a message a line; the first is one
    // line of 5,000, whose lint is slow enough that the edits queue up behind it.
    let last = 51;
    let texts: Vec<String> = (1..=last)
        .map(|v| {
            if v == 1 {
                unpaired_calls(5_000, false)
            } else {
                unpaired_calls(v - 1, true)
            }
        })
        .collect();
    let final_text = texts.last().expect("texts");
    std::fs::write(&path, final_text).expect("write");
    // The hover asks about the last version's last finding: no finding of the first version
    // is on that line.
    let expected = lint_positions(final_text, &path);
    assert_eq!(expected.len(), last - 1);
    let (_, [hovered, _]) = expected.last().expect("findings").clone();

    let mut client = Client::start(dir.path());
    client.initialize();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": doc, "languageId": "json", "version": 1, "text": texts[0]}}),
    );
    for (v, text) in texts.iter().enumerate().skip(1) {
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": doc, "version": v + 1}, "contentChanges": [{"text": text}]}),
        );
    }
    let id = RequestId::from(1000);
    client.send(Message::Request(Request::new(
        id.clone(),
        "textDocument/hover".into(),
        json!({"textDocument": {"uri": doc}, "position": {"line": hovered.0, "character": hovered.1}}),
    )));
    let mut publishes = Vec::new();
    let hover = loop {
        match client.read() {
            Message::Notification(n) => publishes.extend(publish(&n)),
            Message::Response(r) if r.id == id => break r.response_result.expect("hover"),
            _ => {}
        }
    };
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("unpaired-tool-call"), "{hover}");
    // Each publish is for one version's own text, in order, the last one before the hover
    // for the last version; and the edits, queued while the first text was linted, were
    // linted a few times, not 50: how many batches the queue is drained in depends on how
    // the client's writes interleave with the lints (four on a loaded 2-core machine).
    let versions: Vec<i64> = publishes.iter().filter_map(|p| p.version).collect();
    assert_eq!(versions.len(), publishes.len());
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    assert_eq!(versions.last(), Some(&(last as i64)), "{versions:?}");
    assert!(publishes.len() <= 8, "{versions:?}");
    for p in &publishes {
        assert_eq!(p.uri, doc);
        let calls = match p.version {
            Some(1) => 5_000,
            Some(v) => v as usize - 1,
            None => usize::MAX,
        };
        assert_eq!(p.diagnostics.len(), calls, "version {:?}", p.version);
    }
    client.shut_down();
}

#[test]
fn an_oversized_frame_ends_the_server_with_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Before initialize, and in a session under way.
    for initialized in [false, true] {
        let mut client = Client::start_with(dir.path(), Stdio::piped());
        if initialized {
            client.initialize();
        }
        client
            .stdin
            .write_all(b"Content-Length: 100000000000\r\n\r\n")
            .expect("write");
        client.stdin.flush().expect("flush");
        // Without closing stdin: the server must not wait for the body.
        let status = client.child.wait().expect("the server exits");
        let mut stderr = String::new();
        if let Some(mut pipe) = client.child.stderr.take() {
            std::io::Read::read_to_string(&mut pipe, &mut stderr).expect("stderr");
        }
        // toolcheck's exit status for an error, not a signal (an abort has no status), and
        // a reason.
        assert_eq!(status.code(), Some(2), "{status:?}: {stderr}");
        assert!(
            stderr.contains("Content-Length: 100000000000") && stderr.contains("limit"),
            "{stderr}"
        );
    }
}

#[test]
fn a_trace_finding_names_its_span_in_the_editor() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(
        common::root().join("fixtures/openinference/broken-phoenix-rest.json"),
    )
    .expect("fixture");
    let path = dir.path().join("spans.json");
    std::fs::write(&path, &text).expect("write");
    let mut client = Client::start(dir.path());
    client.initialize();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "json", "version": 1, "text": text}}),
    );
    let (_, found) = client.diagnostics();
    assert!(!found.is_empty());
    for d in &found {
        let message = d["message"].as_str().unwrap_or_default();
        assert!(message.contains("(span "), "{message}");
    }
    client.shut_down();
}
