//! Throughput and memory over a generated corpus, as ratios against baselines measured in
//! the same run. Run with `cargo bench --bench corpus` (add `-- --records N` to resize).
//!
//! Corpus: fine-tuning JSONL, every record declaring the same 40 tools (a few distinct
//! schemas each), with two calls and their results; 1 record in 50 has a defect.
//!
//! Measured, each phase in a child process so peak memory (VmHWM) is its own:
//! - `parse`: read the file and parse every record with serde_json, one thread (the floor);
//! - `lint-1t`: toolcheck's full lint with one thread;
//! - `lint`: toolcheck's full lint with every core.
//!
//! And in process: validating calls with a validator compiled per call (what a naive
//! implementation does) against toolcheck's cache, which compiles each distinct schema once.

use std::io::Write;
use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};

use toolcheck::lint::{lint_bytes, LintOptions, SourceName};
use toolcheck::schema::SchemaCache;
use toolcheck::transcript::{Loc, SchemaDecl, SchemaDialect, ToolDef};

const TOOLS: usize = 40;

fn tool_schema(i: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "filters": {"type": "array", "items": {"type": "object", "properties": {
                "field": {"type": "string", "enum": ["a", "b", "c"]}, "value": {"type": "integer"}
            }, "required": ["field"]}},
            format!("extra_{i}"): {"type": "boolean"}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn record(n: usize, tools: &Value) -> Value {
    let defect = n.is_multiple_of(50);
    let args = if defect {
        "{\"query\": \"trunc".to_string()
    } else {
        format!("{{\"query\": \"q{n}\", \"limit\": {}}}", 1 + n % 100)
    };
    json!({
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": format!("Find item {n} and summarise it.")},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("call_{n}_a"), "type": "function", "function": {"name": format!("tool_{}", n % TOOLS), "arguments": args}},
                {"id": format!("call_{n}_b"), "type": "function", "function": {"name": format!("tool_{}", (n + 1) % TOOLS), "arguments": "{\"query\": \"x\", \"filters\": [{\"field\": \"a\", \"value\": 1}]}"}}
            ]},
            {"role": "tool", "tool_call_id": format!("call_{n}_a"), "content": "{\"items\": [1, 2, 3]}"},
            {"role": "tool", "tool_call_id": format!("call_{n}_b"), "content": "no match"},
            {"role": "assistant", "content": "Here is the summary."}
        ],
        "tools": tools
    })
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Runs one phase in this process and prints `seconds kib findings`.
fn child(phase: &str, path: &str) {
    let start = Instant::now();
    let bytes = std::fs::read(path).unwrap_or_default();
    let findings = match phase {
        "parse" => {
            let text = String::from_utf8_lossy(&bytes);
            text.lines()
                .filter(|l| serde_json::from_str::<Value>(l).is_ok())
                .count()
        }
        _ => {
            let name = SourceName {
                name: path.to_string(),
                path: None,
            };
            lint_bytes(name, bytes, true, &LintOptions::default())
                .findings
                .len()
        }
    };
    println!(
        "{} {} {}",
        start.elapsed().as_secs_f64(),
        peak_rss_kib(),
        findings
    );
}

fn run_phase(phase: &str, path: &str, threads: Option<&str>) -> (f64, u64, usize) {
    let exe = std::env::current_exe().unwrap_or_default();
    let mut cmd = Command::new(exe);
    cmd.args(["--phase", phase, path]);
    if let Some(t) = threads {
        cmd.env("RAYON_NUM_THREADS", t);
    }
    let out = cmd
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut parts = out.split_whitespace();
    (
        parts
            .next()
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN),
        parts.next().and_then(|v| v.parse().ok()).unwrap_or(0),
        parts.next().and_then(|v| v.parse().ok()).unwrap_or(0),
    )
}

fn best_of(n: usize, mut f: impl FnMut() -> (f64, u64, usize)) -> (f64, u64, usize) {
    (0..n).map(|_| f()).fold(
        (f64::INFINITY, 0, 0),
        |best, r| if r.0 < best.0 { r } else { best },
    )
}

fn schema_cache_bench(calls: usize) -> (f64, f64, usize) {
    let defs: Vec<ToolDef> = (0..TOOLS)
        .map(|i| ToolDef {
            name: format!("tool_{i}"),
            schema: Some(SchemaDecl::Value(tool_schema(i))),
            dialect: SchemaDialect::JsonSchema,
            strict: false,
            builtin: false,
            object_root_required: true,
            loc: Loc::new(0, ""),
            schema_loc: Loc::new(0, ""),
        })
        .collect();
    let args = json!({"query": "q", "limit": 5});
    let start = Instant::now();
    let mut invalid = 0;
    for n in 0..calls {
        let schema = tool_schema(n % TOOLS);
        if let Ok(v) = jsonschema::validator_for(&schema) {
            invalid += usize::from(!v.is_valid(&args));
        }
    }
    let uncached = start.elapsed().as_secs_f64();
    let cache = SchemaCache::default();
    let start = Instant::now();
    for n in 0..calls {
        if let Some(c) = cache.get(&defs[n % TOOLS]) {
            invalid += c.violations(&args).len();
        }
    }
    let cached = start.elapsed().as_secs_f64();
    std::hint::black_box(invalid);
    (uncached, cached, cache.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        child(&args[i + 1], &args[i + 2]);
        return;
    }
    let records: usize = args
        .iter()
        .position(|a| a == "--records")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000);

    let dir = std::env::temp_dir().join(format!("toolcheck-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("corpus.jsonl");
    let tools = Value::Array(
        (0..TOOLS)
            .map(|i| json!({"type": "function", "function": {"name": format!("tool_{i}"), "parameters": tool_schema(i)}}))
            .collect(),
    );
    {
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(&path).expect("create corpus"));
        for n in 0..records {
            let _ = writeln!(file, "{}", record(n, &tools));
        }
    }
    let size_mib = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1_048_576.0;
    let p = path.to_string_lossy().into_owned();
    println!("corpus: {records} records, {size_mib:.1} MiB, {TOOLS} tools declared per record");

    let parse = best_of(3, || run_phase("parse", &p, None));
    let lint1 = best_of(3, || run_phase("lint", &p, Some("1")));
    let lint = best_of(3, || run_phase("lint", &p, None));
    println!(
        "{:<10} {:>9} {:>10} {:>12} {:>10}",
        "phase", "seconds", "MiB/s", "peak RSS MiB", "findings"
    );
    for (name, (secs, kib, n)) in [("parse", parse), ("lint-1t", lint1), ("lint", lint)] {
        println!(
            "{name:<10} {secs:>9.3} {:>10.1} {:>12.1} {n:>10}",
            size_mib / secs,
            kib as f64 / 1024.0
        );
    }
    println!(
        "ratios: lint-1t / parse time = {:.2}x, lint / parse time = {:.2}x, lint / parse peak RSS = {:.2}x",
        lint1.0 / parse.0,
        lint.0 / parse.0,
        lint.1 as f64 / parse.1.max(1) as f64
    );

    let calls = 2_000;
    let (uncached, cached, compiled) = schema_cache_bench(calls);
    println!(
        "schemas: {calls} calls over {TOOLS} tools: compile per call {uncached:.3}s, cached {cached:.4}s ({compiled} compiled) = {:.0}x faster",
        uncached / cached.max(1e-9)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
