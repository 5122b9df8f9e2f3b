//! One declaration per thing: a format is its module of `src/formats/` plus one line of the
//! registry in `src/format.rs`, an agent its module of `src/agents/` plus one line of the
//! registry in `src/agents/mod.rs`, and nothing else in the crate branches on which format a
//! conversation is or which agent a store belongs to.

use std::path::Path;

use crate::layers::{all_rust_files, core_src, non_test, strip};

/// One line of a registry macro: the variant and the module.
struct Line {
    variant: String,
    module: String,
}

/// The lines of the registry macro in `file` (relative to `src/`).
fn registry(file: &str) -> Vec<Line> {
    let text = std::fs::read_to_string(core_src().join(file)).expect("the registry's file");
    let body = text
        .split_once("$then! {")
        .and_then(|(_, rest)| rest.split_once("\n        }"))
        .map(|(body, _)| body)
        .unwrap_or_else(|| panic!("{file}: the registry holds `$then! {{ … }}`"));
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(|l| {
            let words: Vec<&str> = l.trim_end_matches(',').split_whitespace().collect();
            Line {
                variant: words.first().expect("a variant").to_string(),
                module: words.last().expect("a module").to_string(),
            }
        })
        .collect()
}

/// The file of module `module` in `dir`, and its code.
fn module_code(dir: &Path, module: &str, variant: &str) -> (std::path::PathBuf, String) {
    let file = [
        dir.join(format!("{module}.rs")),
        dir.join(module).join("mod.rs"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .unwrap_or_else(|| panic!("{variant}: no {}/{module}.rs", dir.display()));
    let code = std::fs::read_to_string(&file).expect("readable");
    (file, code)
}

#[test]
fn every_registered_format_has_its_module_and_its_adapter() {
    let lines = registry("format.rs");
    assert!(
        lines.len() > 30,
        "the registry was not read: {} lines",
        lines.len()
    );
    for line in &lines {
        let (file, code) = module_code(&core_src().join("formats"), &line.module, &line.variant);
        assert!(
            code.contains(&format!("pub struct {};", line.variant)),
            "{} declares no adapter `pub struct {};`",
            file.display(),
            line.variant
        );
    }
}

#[test]
fn every_registered_agent_has_its_module_and_its_locations() {
    let lines = registry("agents/mod.rs");
    assert!(
        lines.len() > 10,
        "the registry was not read: {} lines",
        lines.len()
    );
    for line in &lines {
        let (file, code) = module_code(&core_src().join("agents"), &line.module, &line.variant);
        assert!(
            code.contains("pub(super) fn locations(env: &Env, add: &mut Add<'_>)"),
            "{} has no `locations`",
            file.display()
        );
    }
}

/// A kind of server is its module of `remote/` plus one entry of `remote::KINDS`: each
/// module but the HTTP helper declares its `KIND`, and each is listed.
#[test]
fn every_server_kind_is_one_module_and_one_entry() {
    let dir = core_src().join("remote");
    let registry = std::fs::read_to_string(dir.join("mod.rs")).expect("remote/mod.rs");
    let kinds = registry
        .split_once("pub const KINDS: &[Kind] = &[")
        .and_then(|(_, rest)| rest.split_once("];"))
        .map(|(list, _)| list.to_string())
        .expect("remote/mod.rs lists `pub const KINDS: &[Kind] = &[…];`");
    let mut modules: Vec<String> = std::fs::read_dir(&dir)
        .expect("remote/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".rs").map(str::to_string))
        .filter(|m| m != "mod" && m != "http")
        .collect();
    modules.sort();
    assert!(!modules.is_empty(), "no server kind in {}", dir.display());
    for module in &modules {
        let code = std::fs::read_to_string(dir.join(format!("{module}.rs"))).expect("readable");
        assert!(
            code.contains("pub const KIND: Kind = Kind {"),
            "remote/{module}.rs declares no `pub const KIND: Kind`"
        );
        assert!(
            kinds.contains(&format!("{module}::KIND")),
            "remote::KINDS does not list {module}::KIND"
        );
        assert!(
            registry.contains(&format!("pub mod {module};")),
            "remote/mod.rs does not declare `pub mod {module};`"
        );
    }
}

/// Outside its registry no code matches on, or compares with, a particular format or
/// agent: what differs by format is declared on its registry line or in its adapter, what
/// differs by agent in its module.
#[test]
fn nothing_outside_the_registries_branches_on_a_format_or_an_agent() {
    let files = all_rust_files();
    let mut found = Vec::new();
    for file in &files {
        let shown = file
            .strip_prefix(crate::common::root())
            .unwrap_or(file)
            .to_path_buf();
        let rel = file
            .strip_prefix(core_src())
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let text = std::fs::read_to_string(file).expect("readable");
        let code = strip(non_test(&text));
        let checked = [
            ("Format", rel == Path::new("format.rs")),
            ("Agent", rel.starts_with("agents")),
        ];
        for (n, line) in code.lines().enumerate() {
            for (name, own) in checked {
                if !own && branches_on(line, name) {
                    found.push(format!("{}:{}: {}", shown.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "declare it on the registry line or in the module instead:\n{}",
        found.join("\n")
    );
}

/// `Format::X =>`, `Format::X |`, `| Format::X`, `== Format::X`, `Format::X !=`… for the enum
/// `name`.
fn branches_on(line: &str, name: &str) -> bool {
    let path = format!("{name}::");
    let mut rest = line;
    while let Some(at) = rest.find(&path) {
        let before = rest[..at].trim_end();
        let name_start = at + path.len();
        let after = &rest[name_start..];
        let name_len = after
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        let is_variant = after.starts_with(|c: char| c.is_ascii_uppercase())
            && !after[..name_len]
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_');
        let next = after[name_len..].trim_start();
        // `OutputFormat::Json =>` and the like are other enums.
        let prefixed = rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if is_variant
            && !prefixed
            && (next.starts_with("=>")
                || next.starts_with('|') && !next.starts_with("||")
                || next.starts_with("==")
                || next.starts_with("!=")
                || before.ends_with("==")
                || before.ends_with("!=")
                || before.ends_with('|') && !before.ends_with("||"))
        {
            return true;
        }
        rest = &rest[name_start..];
    }
    false
}

#[test]
fn the_branch_reader_sees_matches_and_comparisons_only() {
    assert!(branches_on_format("Format::Pi => &[],"));
    assert!(branches_on_format("Format::Otel | Format::Langfuse => x,"));
    assert!(branches_on_format("if conv.format == Format::Mcp {"));
    assert!(branches_on_format("crate::format::Format::GeminiCli != f"));
    assert!(!branches_on_format("format: Format::Goose,"));
    assert!(!branches_on_format("OutputFormat::Json => write(out),"));
    assert!(!branches_on_format("for &format in Format::ALL {"));
    assert!(!branches_on_format("a || Format::from_name(n).is_some()"));
    assert!(branches_on("Agent::Pi | Agent::OhMyPi => {", "Agent"));
    assert!(!branches_on("agent: Agent::ALL[0],", "Agent"));
}

fn branches_on_format(line: &str) -> bool {
    branches_on(line, "Format")
}
