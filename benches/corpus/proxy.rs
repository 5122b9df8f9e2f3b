//! The proxy's table: the latency `toolcheck proxy` adds to a request, beside a direct call to
//! the same upstream, on 20-, 200- and 2,000-message histories (OpenAI Chat, every call
//! answered), and on a streamed answer (time to its first byte, and to its end). The upstream
//! is a small keep-alive HTTP/1.1 server in this process on 127.0.0.1; the client keeps one
//! connection open per series, as an agent's HTTP client does.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Events in the streamed answer.
const EVENTS: usize = 200;

/// A keep-alive upstream: a JSON answer to every request, or with `x-stream` a chunked
/// event stream of [`EVENTS`] events.
fn upstream() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the upstream");
    let addr = listener.local_addr().expect("addr").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream));
        }
    });
    addr
}

fn serve(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let Some((_, stream_answer)) = read_request(&mut reader) else {
            return;
        };
        let written = if stream_answer {
            let mut reply = String::from(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
            );
            for i in 0..EVENTS {
                let event = format!(
                    "data: {{\"choices\":[{{\"delta\":{{\"content\":\"token {i}\"}}}}]}}\n\n"
                );
                reply.push_str(&format!("{:x}\r\n{event}\r\n", event.len()));
            }
            reply.push_str("0\r\n\r\n");
            out.write_all(reply.as_bytes())
        } else {
            let body = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}"#;
            out.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            )
        };
        if written.is_err() {
            return;
        }
    }
}

/// Reads one request; its body length, and whether it asks for a stream.
fn read_request(reader: &mut impl BufRead) -> Option<(usize, bool)> {
    let mut length = 0;
    let mut stream = false;
    let mut first = true;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" && !first {
            break;
        }
        first = false;
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        stream |= lower.starts_with("x-stream:");
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((length, stream))
}

/// Reads one response's body (by length, or chunked); the time its first body byte came.
fn read_response(reader: &mut impl BufRead, start: Instant) -> Option<Duration> {
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().ok();
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
    }
    let mut first = None;
    if let (Some(n), false) = (length, chunked) {
        let mut body = vec![0; n];
        reader.read_exact(&mut body).ok()?;
        return Some(start.elapsed());
    }
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).ok()?;
        first.get_or_insert_with(|| start.elapsed());
        let n = usize::from_str_radix(size.trim(), 16).ok()?;
        let mut chunk = vec![0; n + 2];
        reader.read_exact(&mut chunk).ok()?;
        if n == 0 {
            return first;
        }
    }
}

/// A history of `messages` messages: a user turn, then assistant calls each answered, then a
/// closing user turn.
fn history(messages: usize) -> String {
    let mut out =
        vec![r#"{"role":"user","content":"Find the failing test and fix it."}"#.to_string()];
    let mut i = 0;
    while out.len() + 3 <= messages {
        out.push(format!(
            r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"call_{i}","type":"function","function":{{"name":"read_file","arguments":"{{\"path\":\"src/module_{i}.rs\"}}"}}}}]}}"#
        ));
        out.push(format!(
            r#"{{"role":"tool","tool_call_id":"call_{i}","content":"fn main() {{ println!(\"file {i} holds about a hundred bytes of source text, as a small read does\"); }}"}}"#
        ));
        i += 1;
    }
    while out.len() < messages {
        out.push(r#"{"role":"user","content":"Go on."}"#.to_string());
    }
    format!(
        r#"{{"model":"gpt-4o","tools":[{{"type":"function","function":{{"name":"read_file","parameters":{{"type":"object","properties":{{"path":{{"type":"string"}}}}}}}}}}],"messages":[{}]}}"#,
        out.join(",")
    )
}

/// `n` requests over one connection to `addr`; each one's round trip (or, streamed, its
/// time to the first byte and to the end).
fn series(addr: &str, body: &str, n: usize, stream: bool) -> (Vec<Duration>, Vec<Duration>) {
    let conn = TcpStream::connect(addr).expect("connect");
    let _ = conn.set_nodelay(true);
    let mut out = conn.try_clone().expect("clone");
    let mut reader = BufReader::new(conn);
    let extra = if stream { "x-stream: 1\r\n" } else { "" };
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nauthorization: Bearer sk-bench\r\n{extra}content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let (mut first, mut whole) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let start = Instant::now();
        out.write_all(request.as_bytes()).expect("send");
        let Some(at_first) = read_response(&mut reader, start) else {
            break;
        };
        whole.push(start.elapsed());
        first.push(at_first);
    }
    (first, whole)
}

fn percentile(mut samples: Vec<Duration>, p: f64) -> Duration {
    samples.sort();
    let at = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples.get(at).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Starts `toolcheck proxy` in `mode` before `upstream`; its child and address.
fn start_proxy(toolcheck: &Path, upstream: &str, mode: &str) -> Option<(Child, String)> {
    let mut child = Command::new(toolcheck)
        .args(["proxy", "--listen", "127.0.0.1:0", "--mode", mode])
        .arg("--upstream")
        .arg(format!("http://{upstream}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut line = String::new();
    BufReader::new(child.stderr.take()?)
        .read_line(&mut line)
        .ok()?;
    let addr = line.split("http://").nth(1)?.split(' ').next()?.to_string();
    Some((child, addr))
}

/// The proxy's peak resident memory (`VmHWM`), in MiB.
fn peak_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

pub fn table(toolcheck: &Path, reps: usize) {
    let up = upstream();
    println!("\nthe proxy: latency added to a request, against a direct call to the same upstream on 127.0.0.1 (one kept-alive connection per series; target: p50 added ≤ 1 ms at 20 messages, CPU of the check linear in the history)\n");
    println!(
        "| request | mode | body | direct p50 / p99 | via the proxy p50 / p99 | added p50 / p99 |"
    );
    println!("|---|---|---|---|---|---|");
    for mode in ["report", "repair"] {
        let Some((mut child, addr)) = start_proxy(toolcheck, &up, mode) else {
            println!("| — | {mode} | | `toolcheck proxy` did not start | | |");
            continue;
        };
        for (messages, n) in [(20, 100 * reps), (200, 100 * reps), (2000, 34 * reps)] {
            let body = history(messages);
            // Warm both paths (connections, the proxy's pool), then interleave halves.
            series(&up, &body, 5, false);
            series(&addr, &body, 5, false);
            let (mut direct, mut proxied) = (Vec::new(), Vec::new());
            for _ in 0..2 {
                direct.extend(series(&up, &body, n / 2, false).1);
                proxied.extend(series(&addr, &body, n / 2, false).1);
            }
            let (d50, d99) = (percentile(direct.clone(), 0.5), percentile(direct, 0.99));
            let (p50, p99) = (percentile(proxied.clone(), 0.5), percentile(proxied, 0.99));
            println!(
                "| {messages} messages | {mode} | {} KB | {} / {} | {} / {} | {} / {} |",
                body.len() / 1024,
                ms(d50),
                ms(d99),
                ms(p50),
                ms(p99),
                ms(p50.saturating_sub(d50)),
                ms(p99.saturating_sub(d99)),
            );
        }
        if mode == "report" {
            // A streamed answer: the request is checked before it goes, the events are not.
            let body = history(20);
            series(&addr, &body, 3, true);
            let (df, dw) = series(&up, &body, 50 * reps, true);
            let (pf, pw) = series(&addr, &body, 50 * reps, true);
            println!(
                "| 20 messages, answer streamed ({EVENTS} events): first byte | {mode} | | {} | {} | {} |",
                ms(percentile(df.clone(), 0.5)),
                ms(percentile(pf.clone(), 0.5)),
                ms(percentile(pf, 0.5).saturating_sub(percentile(df, 0.5))),
            );
            println!(
                "| 20 messages, answer streamed ({EVENTS} events): whole answer | {mode} | | {} | {} | {} |",
                ms(percentile(dw.clone(), 0.5)),
                ms(percentile(pw.clone(), 0.5)),
                ms(percentile(pw, 0.5).saturating_sub(percentile(dw, 0.5))),
            );
        }
        let peak = peak_mib(child.id());
        let _ = child.kill();
        let _ = child.wait();
        if let Some(peak) = peak {
            println!("| (the proxy's peak RSS in {mode} mode, after these requests) | {mode} | | | {peak:.0} MiB | |");
        }
    }
}
