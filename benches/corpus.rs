//! The performance benchmark: toolcheck against a floor measured in the same run.
//!
//! ```sh
//! cargo bench --bench corpus                  # default sizes (about 3 minutes on 2 cores)
//! cargo bench --bench corpus -- --scale 4     # 4× the corpus sizes
//! cargo bench --bench corpus -- --toolcheck path/to/other/toolcheck --reps 5
//! cargo bench --bench corpus -- --python .venv/bin/python  # also time `lint_many` and run
//!                                             # python/bench.py (Ray) with that interpreter
//! cargo bench --bench corpus -- --corpus DIR  # only write the corpus (and one big document
//!                                             # and session) to DIR, for profiling
//! cargo bench --bench corpus -- --only server # only the language server's table
//! cargo bench --bench corpus -- --only proxy  # only the proxy's latency table
//! ```
//!
//! A seeded generator writes a corpus of every supported format (pretty and compact JSON,
//! JSONL, sessions; multi-KB tool outputs, parallel calls, non-ASCII text, one conversation in
//! 50 with a defect), then each case runs two child processes, interleaved `--reps` times:
//!
//! - **floor**: `benches/floor`, a crate of its own built with serde_json's default features,
//!   reads every file and parses each document or JSONL record into a `serde_json::Value`, on
//!   a rayon pool of the same thread count — what any tool pays before any logic;
//! - **toolcheck**: `toolcheck lint --output-format json` with the same number of threads.
//!
//! CPU (user + system) and peak RSS come from `wait4`'s rusage of each child, wall time from
//! the clock. The table prints medians and the ratios toolcheck / floor. The scaling cases
//! (one big JSON document, one big session, one conversation with many unpaired calls) print
//! toolcheck's CPU per MB (or per call) at each size, which is flat when toolcheck is linear,
//! and the largest document and session against the floor's CPU and their own size (peak
//! RSS). Then: CPU per record on the fine-tuning JSONL against a Python `json.loads` loop over
//! the same lines (and `toolcheck.lint_many`'s, where `--python`'s interpreter has the
//! package), the language server publishing a document's 20,000 findings against `lint` of
//! the same file, and the peak memory of `lint` and `fix` on a JSONL dataset four copies of that
//! file long. Each table names its target.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};

#[path = "corpus/proxy.rs"]
mod proxy;
#[path = "corpus/targets.rs"]
mod targets;

/// A small deterministic generator (xorshift64*): the corpus is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

const WORDS: &[&str] = &[
    "invoice",
    "retry",
    "backoff",
    "the",
    "handler",
    "returns",
    "größe",
    "naïve",
    "データ",
    "résumé",
    "config",
    "timeout",
    "with",
    "and",
    "parse",
    "request",
    "🙂",
    "cache",
    "error",
    "stream",
    "token",
    "schema",
    "value",
    "user",
    "for",
    "test",
    "path",
    "a",
    "is",
    "to",
];

fn text(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(if rng.chance(12) { '\n' } else { ' ' });
        }
        s.push_str(WORDS[rng.below(WORDS.len())]);
    }
    s
}

/// A tool output of a few KB, like a file read or a command's output.
fn tool_output(rng: &mut Rng) -> String {
    let words = 200 + rng.below(900);
    text(rng, words)
}

const TOOL_NAMES: &[&str] = &[
    "read_file",
    "search",
    "run_command",
    "edit_file",
    "list_dir",
];

fn schema(name: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": format!("what {name} works on")},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "flags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}}
        },
        "required": ["query"]
    })
}

/// One call's arguments; a defect is a half-received stream.
fn arguments(rng: &mut Rng, defect: bool) -> String {
    if defect {
        return "{\"query\": \"hello wor".into();
    }
    json!({"query": text(rng, 3), "limit": 1 + rng.below(100)}).to_string()
}

/// A conversation in the abstract: turns of parallel calls, each with a result.
struct Plan {
    prompt: String,
    turns: Vec<Vec<(String, String, String, String)>>, // (id, tool, arguments, output)
    answer: String,
    /// The first call's result has no call (a memory window evicted it).
    orphan: bool,
}

fn plan(rng: &mut Rng, n: usize, prefix: &str) -> Plan {
    let defect = rng.chance(50);
    let kind = rng.below(2);
    let turns = (0..1 + rng.below(4))
        .map(|t| {
            (0..1 + rng.below(3))
                .map(|c| {
                    let id = format!("{prefix}{n}x{t}x{c}");
                    let tool = TOOL_NAMES[rng.below(TOOL_NAMES.len())].to_string();
                    let args = arguments(rng, defect && kind == 0 && t == 0 && c == 0);
                    (id, tool, args, tool_output(rng))
                })
                .collect()
        })
        .collect();
    Plan {
        prompt: text(rng, 20),
        turns,
        answer: text(rng, 60),
        orphan: defect && kind == 1,
    }
}

fn openai_tools() -> Value {
    Value::Array(
        TOOL_NAMES
            .iter()
            .map(|n| json!({"type": "function", "function": {"name": n, "description": "a tool", "parameters": schema(n)}}))
            .collect(),
    )
}

fn openai_chat(p: &Plan) -> Value {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding assistant."}),
        json!({"role": "user", "content": p.prompt}),
    ];
    for turn in &p.turns {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": turn.iter().map(|(id, tool, args, _)| json!({"id": id, "type": "function", "function": {"name": tool, "arguments": args}})).collect::<Vec<_>>()}));
        for (id, _, _, out) in turn {
            messages.push(json!({"role": "tool", "tool_call_id": id, "content": out}));
        }
    }
    if p.orphan {
        messages.remove(2);
    }
    messages.push(json!({"role": "assistant", "content": p.answer}));
    json!({"model": "gpt-4.1", "messages": messages, "tools": openai_tools()})
}

fn anthropic(p: &Plan) -> Value {
    let mut messages = vec![json!({"role": "user", "content": p.prompt})];
    for turn in &p.turns {
        let calls: Vec<Value> = turn
            .iter()
            .map(|(id, tool, args, _)| {
                let input: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
                json!({"type": "tool_use", "id": format!("toolu_{id}"), "name": tool, "input": input})
            })
            .collect();
        let results: Vec<Value> = turn
            .iter()
            .map(|(id, _, _, out)| json!({"type": "tool_result", "tool_use_id": format!("toolu_{id}"), "content": out}))
            .collect();
        messages.push(json!({"role": "assistant", "content": calls}));
        messages.push(json!({"role": "user", "content": results}));
    }
    if p.orphan {
        messages.remove(1);
    }
    messages.push(json!({"role": "assistant", "content": [{"type": "text", "text": p.answer}]}));
    let tools: Vec<Value> = TOOL_NAMES
        .iter()
        .map(|n| json!({"name": n, "description": "a tool", "input_schema": schema(n)}))
        .collect();
    json!({"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "You are a coding assistant.", "messages": messages, "tools": tools})
}

fn gemini(p: &Plan) -> Value {
    let mut contents = vec![json!({"role": "user", "parts": [{"text": p.prompt}]})];
    for turn in &p.turns {
        contents.push(
            json!({"role": "model", "parts": turn.iter().map(|(_, tool, args, _)| {
            let a: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
            json!({"functionCall": {"name": tool, "args": a}})
        }).collect::<Vec<_>>()}),
        );
        contents.push(json!({"role": "user", "parts": turn.iter().map(|(_, tool, _, out)| json!({"functionResponse": {"name": tool, "response": {"output": out}}})).collect::<Vec<_>>()}));
    }
    contents.push(json!({"role": "model", "parts": [{"text": p.answer}]}));
    let decls: Vec<Value> = TOOL_NAMES
        .iter()
        .map(|n| json!({"name": n, "description": "a tool", "parameters": schema(n)}))
        .collect();
    json!({"contents": contents, "tools": [{"functionDeclarations": decls}]})
}

fn bedrock(p: &Plan) -> Value {
    let mut messages = vec![json!({"role": "user", "content": [{"text": p.prompt}]})];
    for turn in &p.turns {
        messages.push(
            json!({"role": "assistant", "content": turn.iter().map(|(id, tool, args, _)| {
            let a: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
            json!({"toolUse": {"toolUseId": format!("tooluse_{id}"), "name": tool, "input": a}})
        }).collect::<Vec<_>>()}),
        );
        messages.push(json!({"role": "user", "content": turn.iter().map(|(id, _, _, out)| json!({"toolResult": {"toolUseId": format!("tooluse_{id}"), "content": [{"text": out}], "status": "success"}})).collect::<Vec<_>>()}));
    }
    if p.orphan {
        messages.remove(1);
    }
    messages.push(json!({"role": "assistant", "content": [{"text": p.answer}]}));
    let tools: Vec<Value> = TOOL_NAMES
        .iter()
        .map(|n| json!({"toolSpec": {"name": n, "description": "a tool", "inputSchema": {"json": schema(n)}}}))
        .collect();
    json!({"modelId": "anthropic.claude-3-5-sonnet", "messages": messages, "toolConfig": {"tools": tools}})
}

fn responses(p: &Plan) -> Value {
    let mut input = vec![json!({"role": "user", "content": p.prompt})];
    for turn in &p.turns {
        for (id, tool, args, _) in turn {
            input.push(
                json!({"type": "function_call", "call_id": id, "name": tool, "arguments": args}),
            );
        }
        for (id, _, _, out) in turn {
            input.push(json!({"type": "function_call_output", "call_id": id, "output": out}));
        }
    }
    if p.orphan {
        input.remove(1);
    }
    input.push(json!({"role": "assistant", "content": p.answer}));
    let tools: Vec<Value> = TOOL_NAMES
        .iter()
        .map(|n| json!({"type": "function", "name": n, "parameters": schema(n)}))
        .collect();
    json!({"model": "gpt-4.1", "input": input, "tools": tools})
}

fn vercel(p: &Plan) -> Value {
    let mut messages = vec![json!({"role": "user", "content": p.prompt})];
    for turn in &p.turns {
        messages.push(
            json!({"role": "assistant", "content": turn.iter().map(|(id, tool, args, _)| {
            let a: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
            json!({"type": "tool-call", "toolCallId": id, "toolName": tool, "input": a})
        }).collect::<Vec<_>>()}),
        );
        messages.push(json!({"role": "tool", "content": turn.iter().map(|(id, tool, _, out)| json!({"type": "tool-result", "toolCallId": id, "toolName": tool, "output": {"type": "text", "value": out}})).collect::<Vec<_>>()}));
    }
    if p.orphan {
        messages.remove(1);
    }
    messages.push(json!({"role": "assistant", "content": p.answer}));
    Value::Array(messages)
}

fn langchain(p: &Plan) -> Value {
    let mut messages =
        vec![json!({"type": "human", "data": {"content": p.prompt, "type": "human"}})];
    for turn in &p.turns {
        messages.push(json!({"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": turn.iter().map(|(id, tool, args, _)| {
            let a: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
            json!({"name": tool, "args": a, "id": id, "type": "tool_call"})
        }).collect::<Vec<_>>()}}));
        for (id, tool, _, out) in turn {
            messages.push(json!({"type": "tool", "data": {"content": out, "type": "tool", "tool_call_id": id, "name": tool}}));
        }
    }
    if p.orphan {
        messages.remove(1);
    }
    messages.push(json!({"type": "ai", "data": {"content": p.answer, "type": "ai"}}));
    Value::Array(messages)
}

/// A Claude Code session: one line per record, chained by `parentUuid`.
fn claude_code(rng: &mut Rng, p: &Plan, n: usize, out: &mut String) {
    let session = format!("5e55{n:08x}-0000-4000-8000-000000000000");
    let mut parent = Value::Null;
    let mut uuid = 0usize;
    let mut line = |out: &mut String, parent: &mut Value, kind: &str, message: Value| {
        uuid += 1;
        let id = format!("{n:08x}-{uuid:04x}-4000-8000-000000000000");
        let record = json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
            "cwd": "/home/dev/projects/app", "sessionId": session, "version": "2.1.72",
            "type": kind, "message": message, "uuid": id, "timestamp": "2026-03-14T09:12:05.079Z"});
        let _ = writeln!(out, "{record}");
        *parent = Value::String(id);
    };
    line(
        out,
        &mut parent,
        "user",
        json!({"role": "user", "content": p.prompt}),
    );
    for (t, turn) in p.turns.iter().enumerate() {
        let msg_id = format!("msg_{n}_{t}");
        for (id, tool, args, _) in turn {
            let input: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
            line(
                out,
                &mut parent,
                "assistant",
                json!({"model": "claude-sonnet-4-5", "id": msg_id, "type": "message", "role": "assistant",
                "content": [{"type": "tool_use", "id": format!("toolu_{id}"), "name": tool, "input": input}],
                "stop_reason": null, "usage": {"input_tokens": rng.below(9000), "output_tokens": 40}}),
            );
        }
        for (id, _, _, result) in turn {
            if p.orphan && t == 0 {
                // The compaction kept a result whose call it dropped.
                parent = Value::Null;
            }
            line(
                out,
                &mut parent,
                "user",
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("toolu_{id}"), "content": result}]}),
            );
        }
    }
    line(
        out,
        &mut parent,
        "assistant",
        json!({"model": "claude-sonnet-4-5", "id": format!("msg_{n}_end"), "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": p.answer}], "stop_reason": "end_turn", "usage": {"input_tokens": 100, "output_tokens": 40}}),
    );
}

/// A Codex rollout: `response_item` payloads.
fn codex(p: &Plan, n: usize, out: &mut String) {
    let ts = "2025-10-02T09:14:03.220Z";
    let _ = writeln!(
        out,
        "{}",
        json!({"timestamp": ts, "type": "session_meta", "payload": {"id": format!("0199a3f2-{n:04x}-7d40-9b6a-3e8f2c1d4a07"), "timestamp": ts, "cwd": "/home/dev/app", "originator": "codex_cli_rs", "cli_version": "0.46.0"}})
    );
    let item = |out: &mut String, payload: Value| {
        let _ = writeln!(
            out,
            "{}",
            json!({"timestamp": ts, "type": "response_item", "payload": payload})
        );
    };
    item(
        out,
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": p.prompt}]}),
    );
    for turn in &p.turns {
        for (id, tool, args, _) in turn {
            item(
                out,
                json!({"type": "function_call", "name": tool, "arguments": args, "call_id": id}),
            );
        }
        for (id, _, _, result) in turn {
            item(
                out,
                json!({"type": "function_call_output", "call_id": id, "output": result}),
            );
        }
    }
    item(
        out,
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": p.answer}]}),
    );
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
}

fn document(rng: &mut Rng, value: &Value) -> String {
    if rng.chance(2) {
        serde_json::to_string_pretty(value).unwrap_or_default()
    } else {
        value.to_string()
    }
}

/// The mixed directory: every format, about `mb` MB.
fn mixed(dir: &Path, mb: usize, rng: &mut Rng) {
    let _ = std::fs::create_dir_all(dir);
    let (mut size, mut n) = (0usize, 0usize);
    while size < mb << 20 {
        let p = plan(rng, n, "call_");
        let kind = n % 10;
        let (name, text) = match kind {
            0 => ("chat.json", document(rng, &openai_chat(&p))),
            1 => ("anthropic.json", document(rng, &anthropic(&p))),
            2 => ("gemini.json", document(rng, &gemini(&p))),
            3 => ("bedrock.json", document(rng, &bedrock(&p))),
            4 => ("responses.json", document(rng, &responses(&p))),
            5 => ("vercel.json", document(rng, &vercel(&p))),
            6 => ("langchain.json", document(rng, &langchain(&p))),
            7 => {
                let mut s = String::new();
                for i in 0..20 {
                    let p = plan(rng, n * 100 + i, "call_");
                    let _ = writeln!(s, "{}", openai_chat(&p));
                }
                ("finetune.jsonl", s)
            }
            8 => {
                let mut s = String::new();
                claude_code(rng, &p, n, &mut s);
                ("session.jsonl", s)
            }
            _ => {
                let mut s = String::new();
                codex(&p, n, &mut s);
                ("rollout.jsonl", s)
            }
        };
        size += text.len();
        write(&dir.join(format!("{n:06}-{name}")), &text);
        n += 1;
    }
}

fn finetune(path: &Path, mb: usize, rng: &mut Rng) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("create corpus"));
    let (mut size, mut n) = (0usize, 0usize);
    while size < mb << 20 {
        let p = plan(rng, n, "call_");
        let line = openai_chat(&p).to_string();
        size += line.len() + 1;
        let _ = writeln!(file, "{line}");
        n += 1;
    }
}

fn sessions(dir: &Path, mb: usize, rng: &mut Rng) {
    let _ = std::fs::create_dir_all(dir);
    let (mut size, mut n) = (0usize, 0usize);
    while size < mb << 20 {
        let mut s = String::new();
        for i in 0..8 {
            let p = plan(rng, n * 8 + i, "call_");
            claude_code(rng, &p, n * 8 + i, &mut s);
        }
        size += s.len();
        write(&dir.join(format!("{n:05}.jsonl")), &s);
        n += 1;
    }
}

/// One JSON document of about `mb` MB: a message array of one long conversation, pretty.
fn one_document(path: &Path, mb: usize, rng: &mut Rng) {
    let mut messages = vec![json!({"role": "user", "content": "start"})];
    let mut size = 0usize;
    let mut n = 0usize;
    while size < mb << 20 {
        let p = plan(rng, n, "call_");
        let conv = openai_chat(&p);
        if let Some(ms) = conv["messages"].as_array() {
            for m in ms.iter().skip(1) {
                size += m.to_string().len();
                messages.push(m.clone());
            }
        }
        n += 1;
    }
    let doc = json!({"model": "gpt-4.1", "messages": messages, "tools": openai_tools()});
    write(
        path,
        &serde_json::to_string_pretty(&doc).unwrap_or_default(),
    );
}

fn one_session(path: &Path, mb: usize, rng: &mut Rng) {
    let mut s = String::new();
    let mut n = 0usize;
    while s.len() < mb << 20 {
        let p = plan(rng, n, "call_");
        claude_code(rng, &p, n, &mut s);
        n += 1;
    }
    write(path, &s);
}

/// One conversation with `calls` unpaired calls, each followed by a user turn.
fn many_calls(path: &Path, calls: usize) {
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    for i in 0..calls {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("call_{i}"), "type": "function", "function": {"name": "search", "arguments": "{\"query\": \"x\"}"}}]}));
        messages.push(json!({"role": "user", "content": "and then?"}));
    }
    write(path, &json!({"messages": messages}).to_string());
}

fn walkdir(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(path) {
        for e in entries.flatten() {
            out.extend(walkdir(&e.path()));
        }
    }
    out.sort();
    out
}

#[derive(Clone, Copy, Default)]
struct Sample {
    cpu: f64,
    wall: f64,
    rss_kib: f64,
}

/// Runs `cmd`, returning CPU (user + system), wall time and peak RSS from `wait4`.
// The child is reaped by `wait4`, which std's `wait` cannot replace: only it returns the
// child's own rusage.
#[allow(clippy::zombie_processes)]
fn measure(mut cmd: Command) -> Sample {
    cmd.stdout(std::process::Stdio::null());
    measure_driven(cmd, |_| {})
}

/// [`measure`] of a child that `drive` talks to over the pipes `cmd` sets up (the language
/// server), before it is reaped.
#[allow(clippy::zombie_processes)]
fn measure_driven(mut cmd: Command, drive: impl FnOnce(&mut std::process::Child)) -> Sample {
    forget_own_peak();
    let start = Instant::now();
    let mut child = cmd.spawn().expect("the child starts");
    drive(&mut child);
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 only writes into the two
    // out-parameters, which live for the whole call.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::wait4(pid, &mut status, 0, &mut usage);
        usage
    };
    let wall = start.elapsed().as_secs_f64();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Sample {
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        wall,
        rss_kib: usage.ru_maxrss as f64,
    }
}

/// Lowers this process's resident size and its high-water mark before a child starts. On
/// Linux a child's peak RSS as `wait4` reports it starts from the high-water mark of the
/// memory it was spawned from (the parent's, with `posix_spawn`'s shared address space), so
/// the generator's peak would read as every later child's. Freed heap goes back to the
/// kernel (`malloc_trim`), and `/proc/self/clear_refs` resets the mark to the current size.
fn forget_own_peak() {
    // SAFETY: malloc_trim only returns free heap pages to the kernel; it touches no live
    // allocation.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
    // Best effort: elsewhere than Linux the file does not exist, and the peaks stand.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn medians(samples: &[Sample]) -> Sample {
    Sample {
        cpu: median(samples.iter().map(|x| x.cpu).collect()),
        wall: median(samples.iter().map(|x| x.wall).collect()),
        rss_kib: median(samples.iter().map(|x| x.rss_kib).collect()),
    }
}

/// Runs the commands `a` and `b` make in turn, `reps` times each: their samples, in order.
fn interleaved(
    reps: usize,
    a: impl Fn() -> Command,
    b: impl Fn() -> Command,
) -> (Vec<Sample>, Vec<Sample>) {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        xs.push(measure(a()));
        ys.push(measure(b()));
    }
    (xs, ys)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

struct Bench {
    toolcheck: PathBuf,
    floor: PathBuf,
    reps: usize,
    table: String,
}

impl Bench {
    fn floor_cmd(&self, paths: &[&Path], threads: usize) -> Command {
        let mut cmd = Command::new(&self.floor);
        cmd.arg(threads.to_string()).args(paths);
        cmd
    }

    /// The SIMD floor: sonic-rs parsing every document and record into its DOM.
    fn simd_cmd(&self, paths: &[&Path], threads: usize) -> Command {
        let mut cmd = Command::new(&self.floor);
        cmd.arg("--simd").arg(threads.to_string()).args(paths);
        cmd
    }

    fn toolcheck_cmd(&self, paths: &[&Path], threads: usize) -> Command {
        let mut cmd = Command::new(&self.toolcheck);
        // The environment rather than `--threads`, so older builds can be compared too.
        cmd.args(["lint", "--no-config", "--output-format", "json"])
            .env("RAYON_NUM_THREADS", threads.to_string())
            .args(paths);
        cmd
    }

    /// Interleaves floor and toolcheck runs `--reps` times; returns their medians.
    fn pair(&self, paths: &[&Path], threads: usize) -> (Sample, Sample) {
        self.pair_n(paths, threads, self.reps)
    }

    fn pair_n(&self, paths: &[&Path], threads: usize, reps: usize) -> (Sample, Sample) {
        let (f, t) = interleaved(
            reps,
            || self.floor_cmd(paths, threads),
            || self.toolcheck_cmd(paths, threads),
        );
        (medians(&f), medians(&t))
    }

    /// Toolcheck's lint of `paths` on one thread against the SIMD floor's parse of them, run
    /// in turn `ROW_REPS * --reps` times: the median of each pair's CPU ratio (a machine
    /// whose speed drifts moves both runs of a pair alike), and toolcheck's median sample.
    /// A run of a directory takes a tenth of a second, where the floor timed apart from
    /// toolcheck swung its ratio by a tenth from one benchmark to the next.
    fn vs_simd(&self, paths: &[&Path]) -> (f64, Sample) {
        self.in_pairs(|| self.simd_cmd(paths, 1), || self.toolcheck_cmd(paths, 1))
    }

    /// `lint` and `fix` (a dry run) of `paths` in turn, one thread: the median of the pairs'
    /// CPU ratios, fix over lint, and fix's median sample. Timed apart, the ratio of two
    /// medians read 1.34× in a run where pairs of the same build read 1.60×.
    fn fix_vs_lint(&self, paths: &[&Path]) -> (f64, Sample) {
        self.in_pairs(|| self.toolcheck_cmd(paths, 1), || self.fix_cmd(paths, 1))
    }

    /// Runs `base` and `timed` in turn `ROW_REPS * --reps` times: the median of each pair's
    /// CPU ratio, `timed` over `base`, and `timed`'s median sample.
    fn in_pairs(&self, base: impl Fn() -> Command, timed: impl Fn() -> Command) -> (f64, Sample) {
        let (base, timed) = interleaved(ROW_REPS * self.reps, base, timed);
        let ratios = base
            .iter()
            .zip(&timed)
            .map(|(b, t)| t.cpu / b.cpu)
            .collect();
        (median(ratios), medians(&timed))
    }

    /// Runs the command `cmd` makes `--reps` times, without the floor; returns the medians.
    fn alone(&self, cmd: impl Fn() -> Command) -> Sample {
        let runs: Vec<Sample> = (0..self.reps).map(|_| measure(cmd())).collect();
        medians(&runs)
    }

    /// `toolcheck server` with `path` opened in it: the session `serve` drives, timed.
    fn server(&self, path: &Path) -> Sample {
        let text = std::fs::read_to_string(path).expect("the document");
        let uri = format!("file://{}", path.display());
        let mut cmd = Command::new(&self.toolcheck);
        cmd.arg("server")
            .env("RAYON_NUM_THREADS", "1")
            .current_dir(path.parent().unwrap_or(Path::new(".")))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        measure_driven(cmd, |child| serve(child, &uri, &text))
    }

    /// `toolcheck fix` (a dry run: the diff goes to stdout), as `toolcheck_cmd` runs lint.
    fn fix_cmd(&self, paths: &[&Path], threads: usize) -> Command {
        let mut cmd = Command::new(&self.toolcheck);
        cmd.args(["fix", "--no-config"])
            .env("RAYON_NUM_THREADS", threads.to_string())
            .args(paths);
        cmd
    }

    fn row(&mut self, name: &str, paths: &[&Path], threads: usize) -> (Sample, Sample) {
        let mb = paths.iter().map(|p| size(p)).sum::<u64>() as f64 / 1e6;
        // A corpus run takes a tenth to a third of a second, where medians of 3 swung by
        // 15% from one benchmark to the next: three times the runs, for about 20 s more.
        let (f, t) = self.pair_n(paths, threads, ROW_REPS * self.reps);
        let line = format!(
            "| {name} | {mb:.0} MB | {threads} | {:.2} s | {:.2} s | **{:.2}×** | {:.2}× | {:.0} / {:.0} MiB | {:.2}× |",
            f.cpu,
            t.cpu,
            t.cpu / f.cpu,
            t.wall / f.wall,
            f.rss_kib / 1024.0,
            t.rss_kib / 1024.0,
            t.rss_kib / f.rss_kib
        );
        println!("{line}");
        self.table.push_str(&line);
        self.table.push('\n');
        (f, t)
    }
}

/// One language-server session: initialize, open `text` as `uri`, wait for its diagnostics,
/// shut down. Panics when the server stops answering: a row of nothing is no measurement.
fn serve(child: &mut std::process::Child, uri: &str, text: &str) {
    use lsp_server::{Message, Notification, Request, RequestId};
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        panic!("the server's pipes");
    };
    let mut stdout = std::io::BufReader::new(stdout);
    let mut send = |m: Message| m.write(&mut stdin).expect("the server reads");
    let mut wait = |done: &dyn Fn(&Message) -> bool| loop {
        match Message::read(&mut stdout) {
            Ok(Some(m)) if done(&m) => break,
            Ok(Some(_)) => {}
            other => panic!("the server stopped answering: {other:?}"),
        }
    };
    let answer = |id: i32| move |m: &Message| matches!(m, Message::Response(r) if r.id == RequestId::from(id));
    send(Request::new(1.into(), "initialize".into(), json!({"capabilities": {}})).into());
    wait(&answer(1));
    send(Notification::new("initialized".into(), json!({})).into());
    send(
        Notification::new(
            "textDocument/didOpen".into(),
            json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
        )
        .into(),
    );
    wait(
        &|m| matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"),
    );
    send(Request::new(2.into(), "shutdown".into(), Value::Null).into());
    wait(&answer(2));
    send(Notification::new("exit".into(), Value::Null).into());
}

/// The language server publishing the diagnostics of one document of many findings, beside
/// `lint` on the same file (target: the server about as fast as `lint`, whose output is the
/// same findings).
fn server(bench: &Bench, root: &Path) {
    println!("
language server: open one document, wait for its diagnostics, shut down, against `lint` of the same file, 1 thread
");
    println!("| input | size | lint CPU | server CPU | CPU ratio | wall ratio |");
    println!("|---|---|---|---|---|---|");
    let calls = 20_000;
    let path = root.join("server-calls.json");
    many_calls(&path, calls);
    let lint = bench.alone(|| bench.toolcheck_cmd(&[&path], 1));
    let runs: Vec<Sample> = (0..bench.reps).map(|_| bench.server(&path)).collect();
    let served = medians(&runs);
    println!(
        "| one conversation, {calls} unpaired calls (a finding each) | {:.1} MB | {:.2} s | {:.2} s | **{:.2}×** | {:.2}× |",
        size(&path) as f64 / 1e6,
        lint.cpu,
        served.cpu,
        served.cpu / lint.cpu,
        served.wall / lint.wall
    );
    let _ = std::fs::remove_file(&path);
}

/// Writes one big input (`document` or `session`) from a child process of this binary.
/// Generating it here would grow this process, and a child's peak RSS as `wait4` reports it
/// starts from its parent's at `exec` (Linux keeps the larger of the two): every later
/// measurement would read the generator's peak instead of its own.
fn generate_apart(kind: &str, path: &Path, mb: usize, seed: u64) {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let status = Command::new(exe)
        .arg("--generate")
        .arg(kind)
        .arg(path)
        .arg(mb.to_string())
        .arg(seed.to_string())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        panic!("cannot generate {}", path.display());
    }
}

/// How many of `python/bench.py`'s records are timed: the same records (its generator and
/// seed) in the per-record table and in `python/bench.py`'s own run.
fn py_records(scale: f64) -> usize {
    ((100_000.0 * scale) as usize).max(1_000)
}

/// How many times `--reps` the corpus rows run (see [`Bench::row`]).
const ROW_REPS: usize = 3;

fn size(path: &Path) -> u64 {
    walkdir(path)
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}

/// Builds the floor, a crate of its own (`benches/floor`), so its serde_json has the default
/// features rather than toolcheck's.
fn build_floor() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("bench-floor");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--manifest-path",
        ])
        .arg(root.join("benches/floor/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        panic!("cannot build the floor (benches/floor)");
    }
    target.join("release").join("toolcheck-bench-floor")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let scale: f64 = opt("--scale").and_then(|v| v.parse().ok()).unwrap_or(1.0);
    let reps: usize = opt("--reps").and_then(|v| v.parse().ok()).unwrap_or(3);
    let toolcheck = opt("--toolcheck")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_toolcheck")));
    let mb = |n: f64| ((n * scale).round() as usize).max(1);
    // A child of this binary writes one big input (see `generate_apart`).
    if let Some(i) = args.iter().position(|a| a == "--generate") {
        let field = |k: usize| args.get(i + k).map_or("", String::as_str);
        let generate = if field(1) == "document" {
            one_document
        } else {
            one_session
        };
        let (Ok(size), Ok(seed)) = (field(3).parse(), field(4).parse()) else {
            panic!("usage: --generate document|session PATH MB SEED");
        };
        generate(Path::new(field(2)), size, &mut Rng(seed));
        return;
    }
    // `--only server`: the language server's table alone, which needs neither the corpus
    // nor the floor.
    if opt("--only").is_some_and(|v| v == "server") {
        let root = std::env::temp_dir().join(format!("toolcheck-bench-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&root);
        let bench = Bench {
            toolcheck,
            floor: PathBuf::new(),
            reps,
            table: String::new(),
        };
        server(&bench, &root);
        let _ = std::fs::remove_dir_all(&root);
        return;
    }
    if opt("--only").is_some_and(|v| v == "proxy") {
        proxy::table(&toolcheck, reps);
        return;
    }
    let floor = build_floor();

    // `--corpus DIR` writes the corpus there and keeps it (for profiling), without running.
    let keep = opt("--corpus").map(PathBuf::from);
    let root = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("toolcheck-bench-{}", std::process::id()))
    });
    let mut rng = Rng(0x7001_c0de_5eed);
    eprintln!("generating the corpus in {} ...", root.display());
    let mixed_dir = root.join("mixed");
    mixed(&mixed_dir, mb(60.0), &mut rng);
    let ft = root.join("finetune.jsonl");
    finetune(&ft, mb(60.0), &mut rng);
    let cc = root.join("claude-code");
    sessions(&cc, mb(60.0), &mut rng);
    if keep.is_some() {
        // With the one-big-file inputs, at the scaling cases' largest size.
        one_document(&root.join("doc.json"), mb(80.0), &mut rng);
        one_session(&root.join("session.jsonl"), mb(80.0), &mut rng);
        eprintln!("corpus written to {}", root.display());
        return;
    }

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut bench = Bench {
        toolcheck,
        floor,
        reps,
        table: String::new(),
    };
    println!(
        "\ntoolcheck vs the floor (read + parse every document/record into serde_json::Value, same threads); medians of {} interleaved runs ({reps} for the later tables); {cores} cores\n",
        ROW_REPS * reps
    );
    println!("| corpus | size | threads | floor CPU | toolcheck CPU | CPU ratio | wall ratio | peak RSS floor / toolcheck | RSS ratio |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let threads = cores.min(2);
    let (_, mixed2) = bench.row("mixed directory (all formats)", &[&mixed_dir], threads);
    bench.row("fine-tuning JSONL (one file)", &[&ft], threads);
    bench.row("Claude Code sessions", &[&cc], threads);
    let (_, mixed1) = bench.row("mixed directory (all formats)", &[&mixed_dir], 1);
    println!(
        "\nthread speed-up, mixed directory, 1 → {threads} threads: {:.2}× (wall)",
        mixed1.wall / mixed2.wall
    );
    let python = opt("--python").map_or("python3", String::as_str);
    let mut goals = targets::Targets::default();
    println!("\none thread against every floor: the serde floor, the SIMD floor (sonic-rs into its DOM), Python `json.loads` and orjson ({python}), each parsing every document and record; the SIMD column is the median of each pair's ratio, toolcheck and the floor run in turn\n");
    println!("| corpus | size | toolcheck CPU | ÷ serde floor | ÷ SIMD floor | ÷ `json.loads` | ÷ orjson |");
    println!("|---|---|---|---|---|---|---|");
    for (name, path) in [("mixed directory", &mixed_dir), ("fine-tuning JSONL", &ft)] {
        let (vs_simd, t) = bench.vs_simd(&[path]);
        let serde = bench.alone(|| bench.floor_cmd(&[path], 1));
        let loads = targets::python_median(python, "json", &[path], bench.reps);
        let orjson = targets::python_median(python, "orjson", &[path], bench.reps);
        let vs = |f: Option<&Sample>| {
            f.map_or("not measured".to_string(), |f| {
                format!("{:.2}×", t.cpu / f.cpu)
            })
        };
        println!(
            "| {name} | {:.0} MB | {:.2} s | {} | **{vs_simd:.2}×** | {} | **{}** |",
            walkdir(path).iter().map(|p| size(p)).sum::<u64>() as f64 / 1e6,
            t.cpu,
            vs(Some(&serde)),
            vs(loads.as_ref()),
            vs(orjson.as_ref()),
        );
        goals.add(
            format!("{name}, CPU ÷ SIMD floor"),
            Some(vs_simd),
            1.5,
            "×",
            "",
        );
    }

    println!("\nscaling: toolcheck CPU per MB at each size (flat = linear), 1 thread\n");
    println!("| input | sizes | CPU s/MB at each size | largest / smallest |");
    println!("|---|---|---|---|");
    let scaling = [
        ("one JSON document", "doc.json", "document"),
        ("one Claude Code session", "session.jsonl", "session"),
    ];
    // The largest size of each input, against the floor: the one-big-file targets.
    let mut big = Vec::new();
    for (name, file, kind) in scaling {
        let mut per_mb = Vec::new();
        let mut sizes = Vec::new();
        for n in [5.0, 20.0, 80.0] {
            let path = root.join(format!("{}-{file}", mb(n)));
            generate_apart(kind, &path, mb(n), rng.next());
            let m = size(&path) as f64 / 1e6;
            let (f, t) = bench.pair(&[&path], 1);
            per_mb.push(t.cpu / m);
            sizes.push(format!("{m:.0}"));
            if n == 80.0 {
                let simd = bench.alone(|| bench.simd_cmd(&[&path], 1));
                let orjson = targets::python_median(python, "orjson", &[&path], bench.reps);
                let rss = t.rss_kib * 1024.0 / (m * 1e6);
                big.push(format!(
                    "| {name} | {m:.0} MB | {:.2}× | {:.2}× | {} | {:.0} MiB | {rss:.2}× |",
                    t.cpu / f.cpu,
                    t.cpu / simd.cpu,
                    orjson
                        .as_ref()
                        .map_or("not measured".into(), |o| format!("{:.2}×", t.cpu / o.cpu)),
                    t.rss_kib / 1024.0,
                ));
                goals.add(
                    format!("{name} ({m:.0} MB), CPU ÷ orjson"),
                    orjson.as_ref().map(|o| t.cpu / o.cpu),
                    1.5,
                    "×",
                    "orjson does not import",
                );
                goals.add(
                    format!("{name}, peak RSS ÷ its size"),
                    Some(rss),
                    1.5,
                    "×",
                    "",
                );
                // The document has fixable findings; the session's defects have no safe fix,
                // so its `fix` is a lint and a diff of nothing.
                {
                    let (fix_ratio, fix) = bench.fix_vs_lint(&[&path]);
                    let fix_rss = fix.rss_kib * 1024.0 / (m * 1e6);
                    big.push(format!(
                        "| {name}: `fix` (dry run) | {m:.0} MB | {fix_ratio:.2}× lint's CPU | | | {:.0} MiB | {fix_rss:.2}× |",
                        fix.rss_kib / 1024.0,
                    ));
                    goals.add(
                        format!("{name}, `fix` CPU ÷ `lint` CPU (median of pairs)"),
                        Some(fix_ratio),
                        1.5,
                        "×",
                        "",
                    );
                    goals.add(
                        format!("{name}, `fix` peak RSS ÷ its size"),
                        Some(fix_rss),
                        2.0,
                        "×",
                        "",
                    );
                }
            }
            let _ = std::fs::remove_file(&path);
        }
        println!(
            "| {name} | {} MB | {} | {:.2}× |",
            sizes.join(" / "),
            per_mb
                .iter()
                .map(|v| format!("{v:.3}"))
                .collect::<Vec<_>>()
                .join(" / "),
            per_mb.last().copied().unwrap_or(f64::NAN)
                / per_mb.first().copied().unwrap_or(f64::NAN)
        );
    }
    let mut per_call = Vec::new();
    let counts = [2_000usize, 8_000, 32_000];
    for calls in counts {
        let path = root.join(format!("calls-{calls}.json"));
        many_calls(&path, calls);
        let t = bench.alone(|| bench.toolcheck_cmd(&[&path], 1));
        per_call.push(t.cpu / calls as f64 * 1e6);
    }
    println!(
        "| one conversation, unpaired calls | {} calls | {} µs/call | {:.2}× |",
        counts.map(|c| c.to_string()).join(" / "),
        per_call
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
            .join(" / "),
        per_call.last().copied().unwrap_or(f64::NAN)
            / per_call.first().copied().unwrap_or(f64::NAN)
    );
    goals.add(
        "one conversation, CPU per call, most calls ÷ fewest (flat)",
        Some(
            per_call.last().copied().unwrap_or(f64::NAN)
                / per_call.first().copied().unwrap_or(f64::NAN),
        ),
        1.2,
        "×",
        "",
    );
    println!("\none big file, 1 thread (targets: CPU ≤ 1.5× orjson, peak RSS ≤ 1.5× the file; `fix` ≤ 1.5× `lint`'s CPU and ≤ 2× the file)\n");
    println!(
        "| input | size | CPU ÷ serde floor | ÷ SIMD floor | ÷ orjson | peak RSS | RSS / size |"
    );
    println!("|---|---|---|---|---|---|---|");
    for line in &big {
        println!("{line}");
    }
    server(&bench, &root);
    proxy::table(&bench.toolcheck, reps);
    memory(&bench, &root, scale, &mut goals);
    per_record(&bench, &root, &ft, python, scale, &mut goals);
    dataset_memory(&bench, &root, &ft, scale, threads);
    targets::guards(opt("--python").map(String::as_str), &mut goals);
    goals.print();
    let _ = std::fs::remove_dir_all(&root);
    // With a named interpreter, `python/bench.py` adds the rest: `lint_many` and `fix_many`
    // at one and two threads, and Ray Data's lint and repair at 1 and 2 CPUs.
    if let Some(python) = opt("--python") {
        println!("\n`python/bench.py` ({python}):\n");
        let records = py_records(scale);
        let status = Command::new(python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/bench.py"))
            .args(["--records", &records.to_string(), "--cli"])
            .arg(&bench.toolcheck)
            .status();
        if !status.is_ok_and(|s| s.success()) {
            println!("`python/bench.py` failed: see its output above");
        }
    }
}

/// CPU per record against Python's `json.loads` and orjson loops over the same lines
/// (issue 42's targets: the command line ≤ 1.0× orjson, `lint_many` ≤ 1.2×), one thread, on the corpus's fine-tuning JSONL
/// and on `python/bench.py`'s records (`python/tests/gen.py`: 1.2 KB requests, 45% of them
/// broken). `lint_many` is measured where `python`'s interpreter has the package
/// (`pip install .`): the loop and the call run in one process, timed with its CPU clock,
/// file reading apart.
fn per_record(
    bench: &Bench,
    root: &Path,
    ft: &Path,
    python: &str,
    scale: f64,
    goals: &mut targets::Targets,
) {
    const TIMED: &str = r#"
import json, sys, time
lines = [l for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
def loop(loads):
    t = time.process_time()
    for l in lines:
        try:
            loads(l)
        except ValueError:
            pass
    return time.process_time() - t
loads = loop(json.loads)
try:
    import orjson
    fast = loop(orjson.loads)
except ImportError:
    fast = "nan"
try:
    import toolcheck
except ImportError:
    print(len(lines), loads, fast, "nan")
    sys.exit(0)
t = time.process_time()
toolcheck.lint_many(lines, threads=1)
print(len(lines), loads, fast, time.process_time() - t)
"#;
    const GEN: &str = r#"
import sys
sys.path.insert(0, sys.argv[1])
import gen
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for r in gen.records(int(sys.argv[3])):
        f.write(r + "\n")
"#;
    let records = root.join("bench-py-records.jsonl");
    let n = py_records(scale);
    let generated = Command::new(python)
        .arg("-c")
        .arg(GEN)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/tests"))
        .arg(&records)
        .arg(n.to_string())
        .status()
        .is_ok_and(|s| s.success());
    println!("\nper record, 1 thread, CPU, against Python `json.loads` and orjson loops over the same lines (targets on `python/bench.py`'s records: command line ≤ 1.0× orjson, `lint_many` ≤ 1.2× orjson)\n");
    println!("| records | count × size | `json.loads` | orjson | command line | ÷ `json.loads` | ÷ orjson | `lint_many` call | ÷ `json.loads` | ÷ orjson |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut inputs = vec![("fine-tuning JSONL (the corpus's)", ft)];
    if generated {
        inputs.push(("`python/bench.py`'s records", records.as_path()));
    }
    for (name, path) in inputs {
        let cli = bench.alone(|| bench.toolcheck_cmd(&[path], 1));
        let (mut count, mut loads, mut fast, mut many) = (0.0, Vec::new(), Vec::new(), Vec::new());
        for _ in 0..bench.reps {
            let Ok(out) = Command::new(python).arg("-c").arg(TIMED).arg(path).output() else {
                println!("| {name} | not measured: {python} does not run | | | | | | | | |");
                break;
            };
            let text = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<f64> = text
                .split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect();
            if let [c, l, o, m] = fields[..] {
                count = c;
                loads.push(l);
                fast.push(o);
                many.push(m);
            } else {
                let err = String::from_utf8_lossy(&out.stderr);
                let last = err.lines().last().unwrap_or("no output");
                println!("| {name} | not measured: {last} | | | | | | | | |");
                break;
            }
        }
        if loads.is_empty() {
            continue;
        }
        let (loads, fast, many) = (median(loads), median(fast), median(many));
        let us = |cpu: f64| {
            if cpu.is_nan() {
                "not measured".to_string()
            } else {
                format!("{:.1} µs", cpu / count * 1e6)
            }
        };
        let ratio = |a: f64, b: f64| {
            if a.is_nan() || b.is_nan() {
                String::new()
            } else {
                format!("**{:.2}×**", a / b)
            }
        };
        println!(
            "| {name} | {count:.0} × {:.0} B | {} | {} | {} | {} | {} | {} | {} | {} |",
            size(path) as f64 / count,
            us(loads),
            us(fast),
            us(cli.cpu),
            ratio(cli.cpu, loads),
            ratio(cli.cpu, fast),
            us(many),
            ratio(many, loads),
            ratio(many, fast),
        );
        if path == records.as_path() {
            let no = if fast.is_nan() {
                "orjson does not import"
            } else {
                "the `toolcheck` module does not import"
            };
            goals.add(
                "dataset records, command line ÷ orjson, per record",
                Some(cli.cpu / fast),
                1.0,
                "×",
                no,
            );
            goals.add(
                "dataset records, `lint_many` ÷ orjson, per record",
                Some(many / fast),
                1.2,
                "×",
                no,
            );
        }
    }
    let _ = std::fs::remove_file(&records);
}

/// Peak memory of `lint` and `fix` (dry run) on a JSONL dataset several times the corpus's
/// fine-tuning file (its copies, end to end): constant, whatever the file's size (target:
/// 64 MiB for 1 GB).
fn dataset_memory(bench: &Bench, root: &Path, ft: &Path, scale: f64, threads: usize) {
    let copies = 4;
    let path = root.join("dataset.jsonl");
    // Copied a file at a time, never read whole: this process's own peak would become its
    // children's (see `generate_apart`).
    let Ok(mut file) = std::fs::File::create(&path) else {
        return;
    };
    for _ in 0..copies {
        let copied = std::fs::File::open(ft).and_then(|mut f| std::io::copy(&mut f, &mut file));
        if copied.is_err() {
            return;
        }
    }
    drop(file);
    let mb = size(&path) as f64 / 1e6;
    println!("\nconstant memory: a {mb:.0} MB fine-tuning JSONL ({copies} copies of the corpus's; --scale {scale}), {threads} threads (target: ≤ 64 MiB at any size)\n");
    println!("| run | peak RSS | RSS / size |");
    println!("|---|---|---|");
    let lint = bench.alone(|| bench.toolcheck_cmd(&[&path], threads));
    let fix = bench.alone(|| bench.fix_cmd(&[&path], threads));
    for (name, rss) in [
        ("lint", lint.rss_kib),
        ("fix (dry run, diff to stdout)", fix.rss_kib),
    ] {
        println!(
            "| {name} | {:.0} MiB | {:.3}× |",
            rss / 1024.0,
            rss * 1024.0 / (mb * 1e6)
        );
    }
    let _ = std::fs::remove_file(&path);
}

/// One message holding `calls` calls, each answered (a result message after it) or not
/// (one finding each): what a record with very many calls or findings costs in memory.
fn one_message_calls(path: &Path, calls: usize, answered: bool) {
    let mut s = String::from(r#"{"messages":[{"role":"user","content":"go"}"#);
    if answered {
        for i in 0..calls {
            s.push_str(&format!(r#",{{"role":"assistant","tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}},{{"role":"tool","tool_call_id":"c{i}","content":"ok"}}"#));
        }
    } else {
        s.push_str(r#",{"role":"assistant","tool_calls":["#);
        for i in 0..calls {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&format!(
                r#"{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}"#
            ));
        }
        s.push_str(r#"]},{"role":"user","content":"next"}"#);
    }
    s.push_str("]}");
    write(path, &s);
}

/// Peak memory over input size for records of very many calls, 1 thread.
fn memory(bench: &Bench, root: &Path, scale: f64, goals: &mut targets::Targets) {
    println!("\nmemory: toolcheck peak RSS over the input's size, one record, 1 thread\n");
    println!("| input | size | peak RSS | RSS / size |");
    println!("|---|---|---|---|");
    let calls = ((100_000.0 * scale) as usize).max(1_000);
    for (name, answered) in [
        ("one message of unanswered calls (a finding each)", false),
        ("answered calls, a message each", true),
    ] {
        let path = root.join("memory.json");
        one_message_calls(&path, calls, answered);
        let t = bench.alone(|| bench.toolcheck_cmd(&[&path], 1));
        let mb = size(&path) as f64 / 1e6;
        println!(
            "| {name}, {calls} calls | {mb:.1} MB | {:.0} MB | {:.1}× |",
            t.rss_kib / 1024.0,
            t.rss_kib * 1024.0 / (mb * 1e6)
        );
        if answered {
            goals.add(
                format!("memory per answered call ({calls} calls, peak RSS ÷ calls)"),
                Some(t.rss_kib / calls as f64),
                1.0,
                " KiB",
                "",
            );
        }
        let _ = std::fs::remove_file(&path);
    }
}
