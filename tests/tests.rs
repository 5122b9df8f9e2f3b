//! The integration tests, one module per file of `tests/`, built as one test binary.
//!
//! One binary links the crate once where one per file linked it 55 times: after a change to
//! the library, `cargo test --no-run` relinks one test executable instead of 55. Cargo finds
//! no test target by itself (`autotests = false` in Cargo.toml), so a new file of `tests/`
//! runs only once it has its `mod` line here (`every_test_file_is_a_module_here`, below,
//! fails until it does). Run one file's tests with a filter: `cargo test --test tests doctor::`.
//!
//! `tests/fuzz_regressions.rs` is a test target of its own: it reads the fuzz crate's
//! sources, which the packaged crate leaves out (and the file with them).

mod common;

mod acceptance;
mod action;
mod anthropic_rules;
mod bad_input;
mod broken_pipe;
mod catalog;
mod ci_reports;
mod claude_code_fix;
mod completions;
mod config;
mod docs;
mod doctor;
mod dsh;
mod encoding;
mod fix;
mod fix_props;
mod framework_adk;
mod framework_agentscope;
mod framework_atif;
mod framework_cline;
mod framework_copilot;
mod framework_gemini_cli;
mod framework_langgraph_stream;
mod framework_letta;
mod framework_mcp;
mod framework_moltis;
mod framework_openhands;
mod framework_pi;
mod framework_qwen_code;
mod framework_spring_ai;
mod framework_strands;
mod frameworks_folder;
mod hermes_store;
mod langgraph_checkpoint;
mod layers;
mod lint;
mod live_sessions;
mod loops;
mod msrv;
mod output_safety;
mod pre_commit;
mod provider_fidelity;
mod provider_limits;
mod providers;
mod proxy;
mod reasoning;
mod registries;
mod remote;
mod replay;
mod responses_items;
mod robustness;
mod server;
mod settings;
mod sqlite_stores;
mod store_crush;
mod store_goose;
mod store_opencode;
mod stream;
mod stream_fix;
mod tools;
mod tools_extract;
mod traces;
mod tree_parser;
mod walk;

/// Every `.rs` file of `tests/` (and folder with a `mod.rs`) is a module of this binary or a
/// test target of Cargo.toml's own, and every module here is a file: with `autotests = false`
/// a file declared nowhere would never build or run.
#[test]
fn every_test_file_is_a_module_here() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(root.join("tests")).expect("tests/ is read") {
        let path = entry.expect("an entry of tests/").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 name");
        if let Some(module) = name.strip_suffix(".rs") {
            files.insert(module.to_string());
        } else if path.join("mod.rs").is_file() {
            files.insert(name.to_string());
        }
    }
    let here = std::fs::read_to_string(root.join("tests/tests.rs")).expect("tests/tests.rs");
    let modules: std::collections::BTreeSet<String> = here
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let targets: std::collections::BTreeSet<String> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("path = \"tests/")?.strip_suffix(".rs\""))
        .map(str::to_string)
        .collect();
    assert!(
        targets.contains("tests"),
        "Cargo.toml has no `tests/tests.rs` target"
    );
    let declared: std::collections::BTreeSet<String> = modules.union(&targets).cloned().collect();
    let undeclared: Vec<_> = files.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "files of tests/ that never run: {undeclared:?}; add `mod NAME;` to tests/tests.rs"
    );
    let missing: Vec<_> = modules.difference(&files).collect();
    assert!(
        missing.is_empty(),
        "modules of tests/tests.rs without a file: {missing:?}"
    );
}
