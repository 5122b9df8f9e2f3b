//! Servers as inputs (`phoenix+http://…`), end to end through the binary, against a fake
//! Phoenix on 127.0.0.1 that pages a fixture's spans as Phoenix's REST API does. The real
//! server is tests/phoenix/live.py's (scripts/test-phoenix.sh).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};

use crate::common::{self, Output};

/// The spans of a Phoenix REST page fixture.
fn fixture_spans(file: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(common::root().join(file)).expect("the fixture reads");
    let page: serde_json::Value = serde_json::from_str(&text).expect("the fixture is JSON");
    page["data"].as_array().expect("a page's data").clone()
}

/// How the fake server answers.
#[derive(Clone, Copy)]
enum Serve {
    /// Pages of `limit` spans, cursors `c<offset>`; with `Some(key)`, only to that API key.
    Pages(Option<&'static str>),
    /// Every page names the same next cursor.
    SameCursor,
}

/// A fake Phoenix serving `spans` for project `agent`, one connection per request; returns
/// its base URL and the request lines and `Authorization` headers it saw.
fn fake_phoenix(spans: Vec<serde_json::Value>, serve: Serve) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("an address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let target = line.split(' ').nth(1).unwrap_or_default().to_string();
            let mut auth = None;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    if name.eq_ignore_ascii_case("authorization") {
                        auth = Some(value.trim().to_string());
                    }
                }
            }
            log.lock()
                .expect("the log")
                .push(format!("{target} auth={}", auth.as_deref().unwrap_or("-")));
            let (status, body) = answer(&spans, serve, &target, auth.as_deref());
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (base, seen)
}

fn answer(
    spans: &[serde_json::Value],
    serve: Serve,
    target: &str,
    auth: Option<&str>,
) -> (&'static str, String) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let param = |key: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(key)?.strip_prefix('='))
    };
    if path != "/v1/projects/agent/spans" {
        return (
            "404 Not Found",
            r#"{"detail":"Project with name x not found"}"#.into(),
        );
    }
    if let Serve::Pages(Some(key)) = serve {
        if auth != Some(&format!("Bearer {key}")) {
            return ("401 Unauthorized", r#"{"detail":"Invalid token"}"#.into());
        }
    }
    let limit: usize = param("limit").and_then(|l| l.parse().ok()).unwrap_or(100);
    let from: usize = param("cursor")
        .and_then(|c| c.strip_prefix('c')?.parse().ok())
        .unwrap_or(0);
    let page: Vec<_> = spans.iter().skip(from).take(limit).cloned().collect();
    let next = match serve {
        Serve::SameCursor => Some("c0".to_string()),
        Serve::Pages(_) => (from + limit < spans.len()).then(|| format!("c{}", from + limit)),
    };
    let body = serde_json::json!({"data": page, "next_cursor": next});
    ("200 OK", body.to_string())
}

fn run(args: &[&str], key: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolcheck"));
    command
        .args(args)
        .current_dir(common::root())
        .env("NO_COLOR", "1")
        .env_remove("PHOENIX_API_KEY");
    if let Some(key) = key {
        command.env("PHOENIX_API_KEY", key);
    }
    let out = command.output().expect("the toolcheck binary runs");
    Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// The findings of a JSON report, without where they sit in their file.
fn unplaced(json: &str) -> Vec<serde_json::Value> {
    let mut found: Vec<serde_json::Value> = serde_json::from_str(json).expect("a JSON report");
    for f in &mut found {
        let f = f.as_object_mut().expect("a finding is an object");
        for key in [
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "pointer",
            "message",
        ] {
            f.remove(key);
        }
    }
    found
}

const FIXTURE: &str = "fixtures/openinference/broken-phoenix-rest.json";

/// Eight spans three to a page: every page fetched with the API key, and the findings are
/// the fixture file's (a finding's line is its page).
#[test]
fn pages_are_followed_and_read_as_their_export() {
    let (base, seen) = fake_phoenix(fixture_spans(FIXTURE), Serve::Pages(Some("k-secret")));
    let url = format!("phoenix+{base}/projects/agent?limit=3");
    let out = run(&["lint", &url, "--output-format", "json"], Some("k-secret"));
    assert_eq!(out.code, 1, "{}", out.transcript());
    let file = run(&["lint", FIXTURE, "--output-format", "json"], None);
    assert_eq!(unplaced(&out.stdout), unplaced(&file.stdout));
    assert!(!out.stdout.contains("k-secret") && !out.stderr.contains("k-secret"));
    let requests = seen.lock().expect("the log").clone();
    assert_eq!(
        requests,
        [
            "/v1/projects/agent/spans?limit=3 auth=Bearer k-secret",
            "/v1/projects/agent/spans?limit=3&cursor=c3 auth=Bearer k-secret",
            "/v1/projects/agent/spans?limit=3&cursor=c6 auth=Bearer k-secret",
        ]
    );
    let concise = run(
        &["lint", &url, "--output-format", "concise"],
        Some("k-secret"),
    );
    insta::assert_snapshot!(concise.transcript().replace(&base, "http://127.0.0.1:PORT"));
}

/// Without a key, a wrong key, a missing project, a cursor that repeats, a server that is
/// not there: each a one-line error naming the input (exit 2), the key never shown.
#[test]
fn a_server_that_cannot_be_read_says_why() {
    let spans = fixture_spans(FIXTURE);
    let (base, _) = fake_phoenix(spans.clone(), Serve::Pages(Some("k-right")));
    let (looping, _) = fake_phoenix(spans, Serve::SameCursor);
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        format!("http://{}", listener.local_addr().expect("an address"))
    };
    let mut all = String::new();
    for (url, key) in [
        (format!("phoenix+{base}/projects/agent"), None),
        (format!("phoenix+{base}/projects/agent"), Some("k-wrong")),
        (format!("phoenix+{base}/projects/other"), Some("k-right")),
        (format!("phoenix+{looping}/projects/agent"), None),
        (format!("phoenix+{closed}/projects/agent"), None),
        (format!("phoenix+{base}/agent"), None),
        (
            format!("phoenix+{base}/projects/agent?since=2026-12-01"),
            None,
        ),
    ] {
        let out = run(&["lint", &url], key);
        assert_eq!(out.code, 2, "{}", out.transcript());
        assert!(!out.stderr.contains("k-wrong"), "{}", out.stderr);
        all.push_str(&out.stderr);
    }
    let all = all
        .replace(&base, "http://127.0.0.1:PORT")
        .replace(&looping, "http://127.0.0.1:LOOPING")
        .replace(&closed, "http://127.0.0.1:CLOSED");
    insta::assert_snapshot!(all);
}

/// `fix` refuses a server (nothing is ever written back to one); `tools extract` reads its
/// tools as from the exported file.
#[test]
fn fix_refuses_a_server_and_tools_extract_reads_one() {
    let (base, _) = fake_phoenix(fixture_spans(FIXTURE), Serve::Pages(None));
    let url = format!("phoenix+{base}/projects/agent?limit=2");
    let fix = run(&["fix", &url], None);
    assert_eq!(fix.code, 2, "{}", fix.transcript());
    assert!(fix.stderr.contains("never written"), "{}", fix.stderr);
    let served = run(&["tools", "extract", &url], None);
    let exported = run(&["tools", "extract", FIXTURE], None);
    assert_eq!(served.code, 0, "{}", served.transcript());
    assert_eq!(served.stdout, exported.stdout);
    let missing = run(
        &[
            "tools",
            "extract",
            &format!("phoenix+{base}/projects/other"),
        ],
        None,
    );
    assert_eq!(missing.code, 2, "{}", missing.transcript());
    assert!(
        missing.stderr.contains("Phoenix has no project `other`"),
        "{}",
        missing.stderr
    );
}

/// The size limit bounds what is fetched: over it, the input is not checked, and says so.
#[test]
fn the_size_limit_bounds_a_server() {
    let (base, _) = fake_phoenix(fixture_spans(FIXTURE), Serve::Pages(None));
    let url = format!("phoenix+{base}/projects/agent?limit=2");
    let out = run(
        &[
            "lint",
            &url,
            "--max-file-size",
            "3000",
            "--output-format",
            "concise",
        ],
        None,
    );
    assert_ne!(out.code, 0, "{}", out.transcript());
    assert!(out.stdout.contains("TC0"), "{}", out.transcript());
}
