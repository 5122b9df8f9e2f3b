//! `toolcheck-bench-floor [--simd] THREADS PATH...`: what any tool pays before any logic.
//! Prints the number of documents and records that parsed: into a `serde_json::Value`, or
//! with `--simd` into a `sonic_rs::Value` (SIMD parsing into a DOM of every value).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
    } else if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            files(&entry.path(), out);
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let simd = args.first().is_some_and(|a| a == "--simd");
    if simd {
        args.remove(0);
    }
    let parses = |text: &str| {
        if simd {
            sonic_rs::from_str::<sonic_rs::Value>(text).is_ok()
        } else {
            serde_json::from_str::<serde_json::Value>(text).is_ok()
        }
    };
    let threads = args.first().and_then(|t| t.parse().ok()).unwrap_or(1);
    let mut paths = Vec::new();
    for p in args.iter().skip(1) {
        files(Path::new(p), &mut paths);
    }
    paths.retain(|f| f.extension().is_some_and(|e| e == "json" || e == "jsonl"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let parsed: usize = pool.install(|| {
        paths
            .par_iter()
            .map(|f| {
                let text = std::fs::read_to_string(f).unwrap_or_default();
                if f.extension().is_some_and(|e| e == "jsonl") {
                    text.par_lines().filter(|l| parses(l)).count()
                } else {
                    usize::from(parses(&text))
                }
            })
            .sum()
    });
    println!("{parsed}");
}
