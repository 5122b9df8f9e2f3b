//! `toolcheck server`: a client that speaks LSP over stdio (initialize, didOpen, didChange,
//! publishDiagnostics, codeAction, hover, shutdown) against the real binary.

mod common;

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
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
            .arg("server")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
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
                if n.method == "textDocument/publishDiagnostics" {
                    let uri = n.params["uri"].as_str().unwrap_or_default().to_string();
                    let list = n.params["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    return (uri, list);
                }
            }
        }
    }
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
