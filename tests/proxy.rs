//! `toolcheck proxy` as a user runs it: the binary on 127.0.0.1, a fake upstream, one request
//! through it, its log lines, and Ctrl-C. (The gateway's behaviour in depth, streaming and
//! load among it, is tested in `crates/proxy/tests/`.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A one-request-at-a-time upstream: reads each request whole and answers `{"ok":true}`,
/// sending back what it received.
fn upstream() -> (String, std::sync::mpsc::Receiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = tx.send(body);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{\"ok\":true}",
            );
        }
    });
    (url, rx)
}

/// Sends one POST and returns the status line and body.
fn post(addr: &str, path: &str, body: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect to the proxy");
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nx-api-key: sk-never-logged\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    let status = answer.lines().next().unwrap_or_default().to_string();
    let body = answer
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    (status, body)
}

const ORPHAN: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"user","content":"go on"}]}"#;

#[test]
fn the_proxy_repairs_a_request_logs_it_and_stops_on_ctrl_c() {
    let (upstream, received) = upstream();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolcheck"))
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &upstream,
            "--mode",
            "repair",
        ])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("toolcheck proxy starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default()
        .to_string();
    assert!(
        first.starts_with("toolcheck proxy: listening on http://127.0.0.1:")
            && first.ends_with(&format!("(repair mode): / → {upstream}")),
        "{first}"
    );

    let (status, body) = post(&addr, "/v1/chat/completions", ORPHAN);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, r#"{"ok":true}"#);
    let sent = received
        .recv_timeout(Duration::from_secs(10))
        .expect("the upstream got the request");
    let sent = String::from_utf8_lossy(&sent);
    assert!(!sent.contains("call_1") && sent.contains("go on"), "{sent}");

    let logged = lines.next().and_then(Result::ok).unwrap_or_default();
    insta::assert_snapshot!(logged, @r#"toolcheck proxy: POST /v1/chat/completions (openai-chat): repaired (1 fix): TC101 orphaned-tool-result at /messages/1: tool result for "call_1" has no matching tool call; the conversation has no tool call before it"#);
    assert!(!logged.contains("sk-never-logged"));

    // Ctrl-C: a clean exit, saying so.
    // SAFETY: kill(2) with a child's pid and SIGINT.
    let pid = i32::try_from(child.id()).expect("pid");
    unsafe { libc::kill(pid, libc::SIGINT) };
    let status = child.wait().expect("the proxy exits");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(status.success(), "{status:?}: {rest:?}");
    assert_eq!(
        rest,
        ["toolcheck proxy: shutting down; waiting for requests in flight"]
    );
}

#[test]
fn bad_proxy_settings_are_usage_errors() {
    let out = crate::common::toolcheck(&["proxy", "--upstream", "ftp://example.test"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.stderr.as_str(), @"error: upstream `ftp://example.test`: the scheme must be http or https");
    let out = crate::common::toolcheck(&["proxy"]);
    assert_eq!(out.code, 2);
    let dir = std::env::temp_dir().join(format!("toolcheck-proxy-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("proxy.toml");
    std::fs::write(
        &file,
        "mode = \"fast\"\n[[upstream]]\nurl = \"http://127.0.0.1:9\"\n",
    )
    .expect("write");
    let out = crate::common::toolcheck(&["proxy", "--config", &file.display().to_string()]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.as_str(),
        "error: mode `fast`: expected report, repair or block\n"
    );
    std::fs::write(&file, "listen = \"127.0.0.1:0\"\nport = 1\n").expect("write");
    let out = crate::common::toolcheck(&["proxy", "--config", &file.display().to_string()]);
    let err = out.stderr.as_str();
    assert!(err.contains("unknown field `port`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
