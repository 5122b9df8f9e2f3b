//! The proxy end to end on 127.0.0.1: a fake upstream (hyper) that records what reaches it
//! and answers, streams or stalls as asked, the proxy's own `serve`, and a client.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use toolcheck_proxy::{Config, Mode, Route, Upstream};

/// What reached the upstream.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
    body: Bytes,
}

/// A body fed from a channel, chunk by chunk: the upstream's server-sent events.
struct Channel(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Channel {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|c| c.map(|b| Ok(Frame::data(b))))
    }
}

type UpBody = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// The fake upstream: `/stream` sends `n` events, each when the test lets it go (or at once
/// with `x-events`), `/slow` answers after a second, anything else echoes a JSON answer.
struct Upstream1 {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Each `/stream` request's sender for its next event.
    gates: Arc<Mutex<Vec<mpsc::Sender<Bytes>>>>,
}

async fn upstream() -> Upstream1 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let gates = Arc::new(Mutex::new(Vec::new()));
    let (s, g) = (seen.clone(), gates.clone());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (s, g) = (s.clone(), g.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                    let (s, g) = (s.clone(), g.clone());
                    async move { Ok::<_, Infallible>(answer(req, s, g).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Upstream1 { url, seen, gates }
}

async fn answer(
    req: Request<Incoming>,
    seen: Arc<Mutex<Vec<Seen>>>,
    gates: Arc<Mutex<Vec<mpsc::Sender<Bytes>>>>,
) -> Response<UpBody> {
    let path = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let events: Option<usize> = req
        .headers()
        .get("x-events")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let body = req
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    seen.lock().expect("lock").push(Seen {
        path: path.clone(),
        headers,
        body: body.clone(),
    });
    if path.starts_with("/slow") {
        tokio::time::sleep(Duration::from_millis(800)).await;
    }
    if let Some(n) = events {
        // Each event carries the request's own tag, so a mixed-up stream shows.
        let tag = String::from_utf8_lossy(&body).len();
        let (tx, rx) = mpsc::channel(1);
        tokio::spawn(async move {
            for i in 0..n {
                let event = format!("event: delta\ndata: {{\"tag\":{tag},\"i\":{i}}}\n\n");
                if tx.send(Bytes::from(event)).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        });
        return Response::builder()
            .header("content-type", "text/event-stream")
            .body(Channel(rx).boxed())
            .expect("response");
    }
    if path.starts_with("/gated") {
        let (tx, rx) = mpsc::channel(1);
        let _ = tx.send(Bytes::from_static(b"data: first\n\n")).await;
        gates.lock().expect("lock").push(tx);
        return Response::builder()
            .header("content-type", "text/event-stream")
            .body(Channel(rx).boxed())
            .expect("response");
    }
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json")
        .header("x-upstream", "yes")
        .body(Full::new(Bytes::from_static(b"{\"ok\":true}")).boxed())
        .expect("response")
}

/// A running proxy: its URL, and the sender that shuts it down.
struct Proxy {
    url: String,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<Result<(), toolcheck_proxy::Error>>,
}

async fn proxy(upstream: &str, mode: Mode, tweak: impl FnOnce(&mut Config)) -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let mut config = Config {
        listen: listener.local_addr().expect("addr"),
        routes: vec![Route {
            prefix: "/".into(),
            upstream: Upstream::parse(upstream).expect("upstream"),
        }],
        mode,
        record: None,
        max_body: toolcheck_proxy::setup::DEFAULT_MAX_BODY,
        targets: Vec::new(),
    };
    tweak(&mut config);
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(toolcheck_proxy::serve(listener, config, async {
        let _ = stopped.await;
    }));
    Proxy {
        url,
        stop: Some(stop),
        done,
    }
}

type TestClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

fn client() -> TestClient {
    Client::builder(TokioExecutor::new()).build_http()
}

async fn post(
    client: &TestClient,
    url: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (StatusCode, Vec<(String, String)>, String) {
    let mut req = Request::post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("request");
    let res = client.request(req).await.expect("the proxy answers");
    let status = res.status();
    let headers = res
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = res.into_body().collect().await.expect("body").to_bytes();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

/// An Anthropic request whose second user turn answers a call that was never made.
const ORPHAN: &str = r#"{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gone","content":"42"},{"type":"text","text":"go on"}]}]}"#;
const CLEAN: &str =
    r#"{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}"#;

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn report_mode_forwards_the_request_byte_for_byte_with_its_headers() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Report, |_| {}).await;
    let (status, headers, body) = post(
        &client(),
        &format!("{}/v1/messages?beta=true", p.url),
        ORPHAN,
        &[
            ("x-api-key", "sk-secret"),
            ("anthropic-version", "2023-06-01"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, r#"{"ok":true}"#);
    assert_eq!(header(&headers, "x-upstream"), Some("yes"));
    let seen = up.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/messages?beta=true");
    assert_eq!(seen[0].body, ORPHAN.as_bytes());
    assert_eq!(header(&seen[0].headers, "x-api-key"), Some("sk-secret"));
    assert_eq!(
        header(&seen[0].headers, "anthropic-version"),
        Some("2023-06-01")
    );
    let host = header(&seen[0].headers, "host").unwrap_or_default();
    assert!(up.url.ends_with(host), "host {host} for {}", up.url);
}

#[tokio::test]
async fn repair_mode_forwards_the_repaired_request() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Repair, |_| {}).await;
    let (status, _, _) = post(&client(), &format!("{}/v1/messages", p.url), ORPHAN, &[]).await;
    assert_eq!(status, StatusCode::OK);
    let seen = up.seen.lock().expect("lock").clone();
    let sent: serde_json::Value = serde_json::from_slice(&seen[0].body).expect("JSON upstream");
    let text = sent.to_string();
    assert!(!text.contains("toolu_gone"), "{text}");
    assert!(text.contains("go on"), "the user's text stays: {text}");
    assert_eq!(sent["model"], "claude-sonnet-4-5");
    let length = header(&seen[0].headers, "content-length").unwrap_or_default();
    assert_eq!(length, seen[0].body.len().to_string());
    // A clean request is forwarded as sent.
    post(&client(), &format!("{}/v1/messages", p.url), CLEAN, &[]).await;
    let seen = up.seen.lock().expect("lock").clone();
    assert_eq!(seen[1].body, CLEAN.as_bytes());
}

#[tokio::test]
async fn block_mode_answers_with_the_providers_error_and_never_calls_upstream() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Block, |_| {}).await;
    let (status, headers, body) =
        post(&client(), &format!("{}/v1/messages", p.url), ORPHAN, &[]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["type"], "invalid_request_error");
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("TC101 orphaned-tool-result"), "{message}");
    assert!(up.seen.lock().expect("lock").is_empty());
    // A clean one goes through.
    let (status, _, _) = post(&client(), &format!("{}/v1/messages", p.url), CLEAN, &[]).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn other_requests_and_unreadable_bodies_pass_through_untouched() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Block, |_| {}).await;
    let res = client()
        .request(
            Request::get(format!("{}/v1/models", p.url))
                .body(Full::new(Bytes::new()))
                .expect("request"),
        )
        .await
        .expect("answer");
    assert_eq!(res.status(), StatusCode::OK);
    // Not JSON: block mode forwards what it cannot read.
    let (status, _, _) = post(
        &client(),
        &format!("{}/v1/messages", p.url),
        "{\"messages\": [tru",
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let seen = up.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].body, &b"{\"messages\": [tru"[..]);
}

#[tokio::test]
async fn each_dialect_is_held_to_its_own_rules_and_error_shape() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Block, |_| {}).await;
    let chat = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"user","content":"go on"}]}"#;
    let (status, _, body) = post(
        &client(),
        &format!("{}/v1/chat/completions", p.url),
        chat,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["error"]["type"], "invalid_request_error");
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"user","parts":[{"functionResponse":{"name":"get","response":{"x":1}}}]},{"role":"user","parts":[{"text":"go on"}]}]}"#;
    let (status, _, body) = post(
        &client(),
        &format!("{}/v1beta/models/gemini-2.5-pro:generateContent", p.url),
        gemini,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["error"]["status"], "INVALID_ARGUMENT");
    assert!(up.seen.lock().expect("lock").is_empty());
}

#[tokio::test]
async fn streamed_responses_pass_through_event_by_event() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Report, |_| {}).await;
    let req = Request::post(format!("{}/gated/v1/messages", p.url))
        .body(Full::new(Bytes::from(CLEAN)))
        .expect("request");
    let res = client().request(req).await.expect("answer");
    assert_eq!(res.status(), StatusCode::OK);
    let mut body = res.into_body();
    // The first event arrives while the upstream still holds the stream open.
    let first = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the first event comes before the stream ends")
        .and_then(|f| f.ok())
        .and_then(|f| f.into_data().ok())
        .expect("data");
    assert_eq!(&first[..], b"data: first\n\n");
    let gate = up
        .gates
        .lock()
        .expect("lock")
        .pop()
        .expect("the upstream's stream");
    gate.send(Bytes::from_static(b"data: second\n\n"))
        .await
        .expect("send");
    drop(gate);
    let rest = body.collect().await.expect("rest").to_bytes();
    assert_eq!(&rest[..], b"data: second\n\n");
}

#[tokio::test]
async fn many_concurrent_streams_arrive_whole_and_in_order() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Repair, |_| {}).await;
    let client = client();
    let mut tasks = Vec::new();
    for i in 0..48 {
        let client = client.clone();
        let url = format!("{}/v1/messages", p.url);
        // Bodies of different lengths: the upstream tags each event with its request's.
        let body = format!(
            r#"{{"model":"m","max_tokens":1,"messages":[{{"role":"user","content":"{}"}}]}}"#,
            "x".repeat(i)
        );
        tasks.push(tokio::spawn(async move {
            let req = Request::post(url)
                .header("x-events", "20")
                .body(Full::new(Bytes::from(body.clone())))
                .expect("request");
            let res = client.request(req).await.expect("answer");
            let text = res.into_body().collect().await.expect("body").to_bytes();
            (body.len(), String::from_utf8_lossy(&text).into_owned())
        }));
    }
    for task in tasks {
        let (tag, text) = task.await.expect("task");
        let want: String = (0..20)
            .map(|i| format!("event: delta\ndata: {{\"tag\":{tag},\"i\":{i}}}\n\n"))
            .collect();
        assert_eq!(text, want);
    }
}

#[tokio::test]
async fn an_oversized_body_is_refused_and_an_unreachable_upstream_is_a_502() {
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Report, |c| c.max_body = 64).await;
    let (status, _, body) = post(&client(), &format!("{}/v1/messages", p.url), ORPHAN, &[]).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body.contains("request_too_large"), "{body}");
    assert!(up.seen.lock().expect("lock").is_empty());

    // A port nothing listens on.
    let closed = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let dead = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let p = proxy(&dead, Mode::Report, |_| {}).await;
    let (status, _, body) = post(
        &client(),
        &format!("{}/v1/chat/completions", p.url),
        r#"{"model":"m","messages":[]}"#,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["error"]["type"], "server_error");
}

#[tokio::test]
async fn shutdown_lets_a_slow_request_in_flight_finish() {
    let up = upstream().await;
    let mut p = proxy(&up.url, Mode::Report, |_| {}).await;
    let url = format!("{}/slow/v1/messages", p.url);
    let pending = tokio::spawn(async move { post(&client(), &url, CLEAN, &[]).await });
    // Let the request reach the upstream, then ask the proxy to stop.
    for _ in 0..100 {
        if !up.seen.lock().expect("lock").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if let Some(stop) = p.stop.take() {
        let _ = stop.send(());
    }
    let (status, _, body) = pending.await.expect("task");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, r#"{"ok":true}"#);
    let done = tokio::time::timeout(Duration::from_secs(10), p.done)
        .await
        .expect("the proxy stops once the request is done");
    assert!(matches!(done, Ok(Ok(()))), "{done:?}");
}

#[tokio::test]
async fn recorded_requests_are_the_bodies_as_sent_named_by_their_status() {
    let up = upstream().await;
    let dir = std::env::temp_dir().join(format!("toolcheck-proxy-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let record = dir.clone();
    let p = proxy(&up.url, Mode::Block, move |c| c.record = Some(record)).await;
    post(&client(), &format!("{}/v1/messages", p.url), CLEAN, &[]).await;
    post(&client(), &format!("{}/v1/messages", p.url), ORPHAN, &[]).await;
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the record directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["000001-anthropic-200.json", "000002-anthropic-400.json"]
    );
    let second = std::fs::read(dir.join(&names[1])).expect("recorded");
    assert_eq!(second, ORPHAN.as_bytes());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn repair_mode_sends_gemini_clis_doubled_responses_once() {
    // What Gemini CLI 0.61 sends on resume: each functionResponse twice, the second a copy.
    let resumed = r#"{"contents":[{"role":"user","parts":[{"text":"run it"}]},{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"run_shell_command","args":{"command":"echo a"}}}]},{"role":"user","parts":[{"functionResponse":{"id":"fc_1","name":"run_shell_command","response":{"output":"a"}}},{"functionResponse":{"id":"fc_1","name":"run_shell_command","response":{"output":"a"}}}]},{"role":"model","parts":[{"text":"done"}]},{"role":"user","parts":[{"text":"again"}]}]}"#;
    let up = upstream().await;
    let p = proxy(&up.url, Mode::Repair, |_| {}).await;
    let url = format!(
        "{}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        p.url
    );
    let (status, _, _) = post(&client(), &url, resumed, &[("x-goog-api-key", "k")]).await;
    assert_eq!(status, StatusCode::OK);
    let seen = up.seen.lock().expect("lock").clone();
    assert_eq!(
        seen[0].path,
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    );
    let sent = String::from_utf8_lossy(&seen[0].body);
    assert_eq!(sent.matches("functionResponse").count(), 1, "{sent}");
    assert!(sent.contains(r#"{"text":"again"}"#), "{sent}");
}
