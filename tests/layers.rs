//! The crate's layers, held against its own imports.
//!
//! [`LAYERS`] is the one list of layers: every top-level module of the workspace's crates sits
//! in exactly one, a module imports only from its own layer or those below, and the modules of
//! one layer do not import each other in a circle. Each layer lives in one crate, the crates
//! in layer order ([`CRATES`]); the compiler keeps a crate from reaching up into the one above
//! it, and these tests keep the order within a crate and what the manifests say. `docs/architecture.md`'s layer table is written from the
//! list (`UPDATE_DOCS=1 cargo test --test tests layers::` rewrites it). No source file holds
//! more than [`MAX_LINES`] lines of non-test code.
//!
//! Imports are read from the text: `crate::name` paths and `use crate::{…}` groups, outside
//! comments, string literals and `#[cfg(test)]` modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common;

/// The workspace's crates, from the bottom up: package name and directory.
pub(crate) const CRATES: &[(&str, &str)] = &[
    ("toolcheck-core", "crates/core"),
    ("toolcheck-proxy", "crates/proxy"),
    ("toolcheck", "."),
];

/// The layers, from the bottom up: a name, what it is for, and its top-level modules. Each
/// crate's layers follow one another ([`LAYER_CRATES`]).
const LAYERS: &[(&str, &str, &[&str])] = &[
    (
        "text",
        "bytes, text, spans and pointers, the JSON tree, names of formats and providers",
        &[
            "encoding", "escape", "stdout", "progress", "read", "format", "provider", "pointer",
            "source", "spans", "tree",
        ],
    ),
    (
        "json",
        "every JSON parse, and the documents adapters read",
        &["json"],
    ),
    (
        "model",
        "the normalised transcript, placeholder results, rule metadata, findings and placed findings, tool schemas",
        &["transcript", "placeholder", "rule_meta", "finding", "diagnostic", "schema"],
    ),
    (
        "readers and checks",
        "format adapters and the edits they plan, rules, agents' replay models, the coverage guard, `--tools` files",
        &["edit", "formats", "rules", "replay", "coverage", "tools_file"],
    ),
    (
        "pipeline",
        "the per-file pipeline, and the fix engine on top of it",
        &["lint", "fix"],
    ),
    (
        "sources",
        "where inputs come from and what they are: SQLite stores, session folders, compressed logs, servers' records, opened inputs, directory walks, agents' session stores",
        &["store", "folder", "zstd_log", "remote", "input", "stream", "discover", "agents"],
    ),
    ("output", "the emitters, one per output format", &["report"]),
    (
        "embedding",
        "the typed API the Python and Node packages, benchmarks and fuzz targets call",
        &["embed"],
    ),
    (
        "gateway",
        "`toolcheck proxy`: request dialects and their error shapes, the verdict on one request, forwarding, recording, routes",
        &["dialect", "check", "forward", "record", "setup"],
    ),
    (
        "configuration",
        "the command line, config files, each file's settings, generated docs",
        &["cli", "config", "settings", "docs"],
    ),
    (
        "commands",
        "the commands",
        &["app"],
    ),
];

/// How many of [`LAYERS`], from the bottom, each of [`CRATES`] holds.
const LAYER_CRATES: [usize; 3] = [8, 1, 2];

/// The crate a layer lives in.
fn crate_of_layer(layer: usize) -> (&'static str, &'static str) {
    let mut below = 0;
    for (held, krate) in LAYER_CRATES.iter().zip(CRATES) {
        below += held;
        if layer < below {
            return *krate;
        }
    }
    panic!("layer {layer} is in no crate: LAYER_CRATES counts {below} layers")
}

/// The most lines of non-test code one source file may hold.
const MAX_LINES: usize = 800;

/// Each crate's `src/`, from the bottom up.
pub(crate) fn src_dirs() -> Vec<PathBuf> {
    CRATES
        .iter()
        .map(|(_, dir)| common::root().join(dir).join("src"))
        .collect()
}

/// `toolcheck-core`'s `src/`, where formats, agents and rules are declared.
pub(crate) fn core_src() -> PathBuf {
    common::root().join("crates/core/src")
}

/// Every `.rs` file of every crate.
pub(crate) fn all_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in src_dirs() {
        rust_files(&dir, &mut files);
    }
    files
}

/// Every `.rs` file under `dir`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`rules/pairing.rs` → `rules`); `None` for the
/// crate roots.
fn module_of(file: &Path) -> Option<String> {
    let rel = src_dirs()
        .into_iter()
        .find_map(|dir| file.strip_prefix(dir).ok().map(Path::to_path_buf))?;
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The file's code before its `#[cfg(test)]` module.
pub(crate) fn non_test(text: &str) -> &str {
    let cut = text
        .match_indices("#[cfg(test)]")
        .map(|(at, _)| at)
        .find(|&at| text[..at].ends_with('\n') || at == 0);
    &text[..cut.unwrap_or(text.len())]
}

/// `code` with comments and the contents of string and char literals blanked out.
pub(crate) fn strip(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = at(i);
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && at(i) != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && !at(i.wrapping_sub(1)).is_alphanumeric()))
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if at(j) == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && at(i) != '"' {
                if at(i) == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (at(i + 2) == '\'' || at(i + 1) == '\\') {
            // A char literal ('x', '\n', '\u{1}'); a lone quote is a lifetime.
            i += 1;
            while i < chars.len() && at(i) != '\'' {
                if at(i) == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The top-level modules `code` names through `crate::`.
fn imports(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b, c::{…}}`: the first segment of each top-level item.
            let mut depth = 0;
            let mut item_start = true;
            let mut end = group.len();
            for (i, ch) in group.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        end = i;
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    _ if item_start && !ch.is_whitespace() => {
                        item_start = false;
                        let name = ident(&group[i..end.min(group.len())]);
                        if !name.is_empty() && name != "self" {
                            found.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Each top-level module's imports of other top-level modules.
type Edges = BTreeMap<String, BTreeSet<String>>;

/// Each top-level module's imports of other top-level modules, and each file's non-test size.
fn read_crate() -> (Edges, Vec<(PathBuf, usize)>) {
    let files = all_rust_files();
    let mut edges = Edges::new();
    let mut sizes = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file is UTF-8");
        let code = non_test(&text);
        sizes.push((file.clone(), code.lines().count()));
        let Some(module) = module_of(&file) else {
            continue;
        };
        let targets = edges.entry(module.clone()).or_default();
        targets.extend(imports(&strip(code)).into_iter().filter(|m| *m != module));
    }
    (edges, sizes)
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, _, modules)| modules.contains(&module))
}

/// A circle among `modules`, if their imports of each other make one.
fn circle(modules: &[&str], edges: &Edges) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        modules: &[&str],
        edges: &Edges,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut found = path[at..].to_vec();
            found.push(m.to_string());
            return Some(found);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if modules.contains(&next.as_str()) {
                if let Some(found) = visit(next, modules, edges, path, done) {
                    return Some(found);
                }
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    modules
        .iter()
        .find_map(|m| visit(m, modules, edges, &mut Vec::new(), &mut done))
}

#[test]
fn imports_run_down_the_layers_and_never_in_a_circle() {
    let (edges, _) = read_crate();
    let mut problems = Vec::new();
    for module in edges.keys() {
        if layer_of(module).is_none() {
            problems.push(format!(
                "module `{module}`: in no layer; add it to LAYERS in tests/layers.rs"
            ));
        }
    }
    for (_, _, modules) in LAYERS {
        for m in *modules {
            if !edges.contains_key(*m) {
                problems.push(format!("LAYERS names `{m}`, which no crate holds"));
            }
        }
    }
    for (module, targets) in &edges {
        let Some(from) = layer_of(module) else {
            continue;
        };
        for target in targets {
            // `crate::X` where X is no module (a macro, a re-export at the root) is no arrow.
            let Some(to) = layer_of(target) else {
                continue;
            };
            if to > from {
                problems.push(format!(
                    "`{module}` (layer {}) imports `{target}` (layer {}), which runs up the layers",
                    LAYERS[from].0, LAYERS[to].0
                ));
            }
        }
    }
    for (name, _, modules) in LAYERS {
        if let Some(found) = circle(modules, &edges) {
            problems.push(format!(
                "layer {name}: an import circle {}",
                found.join(" → ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Imports that the layer order allows but the design does not: (importer, imported, why).
const FORBIDDEN: &[(&str, &str, &str)] = &[(
    "app",
    "store",
    "the commands open, lint, fix and write inputs through `input`, which knows what a store is",
)];

#[test]
fn the_commands_do_not_branch_on_the_kind_of_input() {
    let (edges, _) = read_crate();
    let broken: Vec<String> = FORBIDDEN
        .iter()
        .filter(|(from, to, _)| edges.get(*from).is_some_and(|t| t.contains(*to)))
        .map(|(from, to, why)| format!("`{from}` imports `{to}`: {why}"))
        .collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_two_json_value_types_keep_their_names() {
    // Borrowed input is `Tree` (crate::tree::Value), values toolcheck owns are `Json`
    // (serde_json::Value): never a bare `Value`, which would mean either.
    let files = all_rust_files();
    let bare: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(core_src().join("tree")))
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).expect("a source file is UTF-8");
            let rel = file
                .strip_prefix(common::root())
                .unwrap_or(file)
                .display()
                .to_string();
            text.lines()
                .map(str::trim)
                .filter(|l| l.starts_with("use "))
                .filter(|l| {
                    let tree = l.contains("crate::tree::Value") && !l.contains("Value as Tree");
                    let serde = l.starts_with("use serde_json::")
                        && l.contains("Value")
                        && !l.contains("Value as Json")
                        && l.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|w| w == "Value");
                    tree || serde
                })
                .map(|l| format!("{rel}: `{l}`"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        bare.is_empty(),
        "import `Value as Tree` or `Value as Json`:\n{}",
        bare.join("\n")
    );
}

#[test]
fn no_source_file_is_over_the_size_limit() {
    let (_, sizes) = read_crate();
    let over: Vec<String> = sizes
        .iter()
        .filter(|(_, lines)| *lines > MAX_LINES)
        .map(|(file, lines)| {
            format!(
                "{}: {lines} lines of non-test code (at most {MAX_LINES}): split it along a seam",
                file.strip_prefix(common::root()).unwrap_or(file).display()
            )
        })
        .collect();
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// The layer table of `docs/architecture.md`, written from [`LAYERS`].
fn layer_table() -> String {
    let mut out = String::from("| crate | layer | modules | what |\n|---|---|---|---|\n");
    for (at, (name, what, modules)) in LAYERS.iter().enumerate().rev() {
        let modules: Vec<String> = modules.iter().map(|m| format!("`{m}`")).collect();
        let (package, _) = crate_of_layer(at);
        out.push_str(&format!(
            "| `{package}` | {name} | {} | {what} |\n",
            modules.join(", ")
        ));
    }
    out
}

const START: &str = "<!-- layers: written by tests/layers.rs -->\n";
const END: &str = "<!-- end of layers -->\n";

#[test]
fn the_architecture_document_shows_these_layers() {
    let path = common::root().join("docs/architecture.md");
    let doc = std::fs::read_to_string(&path).expect("docs/architecture.md");
    let (Some(start), Some(end)) = (doc.find(START), doc.find(END)) else {
        panic!("docs/architecture.md has no layer table between {START:?} and {END:?}");
    };
    let current = &doc[start + START.len()..end];
    let table = layer_table();
    if current == table {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let updated = format!("{}{START}{table}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, updated).expect("write docs/architecture.md");
        return;
    }
    panic!(
        "docs/architecture.md's layer table is stale; run `UPDATE_DOCS=1 cargo test --test tests layers::`\n\nexpected:\n{table}"
    );
}

#[test]
fn the_import_reader_reads_groups_and_skips_comments_and_strings() {
    let code = strip(
        "use crate::{a::X, b, c::{d, e::F}};\n// crate::nope\nlet s = \"crate::nope\";\nlet r = r#\"crate::nope\"#;\nlet c = '\"'; crate::f::g();\n/* crate::nope */",
    );
    let found: Vec<String> = imports(&code).into_iter().collect();
    assert_eq!(found, ["a", "b", "c", "f"]);
    let (edges, _) = read_crate();
    // A known arrow, so the reader is known to see real imports.
    assert!(edges
        .get("lint")
        .is_some_and(|targets| targets.contains("rules")));
}

#[test]
fn each_layer_lives_in_its_crate() {
    let mut misplaced = Vec::new();
    for (at, (name, _, modules)) in LAYERS.iter().enumerate() {
        let (package, dir) = crate_of_layer(at);
        let src = common::root().join(dir).join("src");
        for m in *modules {
            let held =
                src.join(format!("{m}.rs")).is_file() || src.join(m).join("mod.rs").is_file();
            if !held {
                misplaced.push(format!(
                    "layer {name}'s module `{m}` is not in {package} ({dir}/src)"
                ));
            }
        }
    }
    assert!(misplaced.is_empty(), "{}", misplaced.join("\n"));
}

/// A manifest's dependency table, read with the toml crate.
fn dependencies(manifest: &str) -> toml::Table {
    let text = std::fs::read_to_string(common::root().join(manifest)).expect("the manifest");
    let table: toml::Table = text.parse().expect("the manifest is TOML");
    table
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default()
}

/// Whether a dependency entry turns on `feature` or is optional.
fn turns_on(entry: &toml::Value, feature: &str) -> bool {
    entry
        .get("features")
        .and_then(toml::Value::as_array)
        .is_some_and(|f| f.iter().any(|v| v.as_str() == Some(feature)))
}

fn optional(entry: &toml::Value) -> bool {
    entry.get("optional").and_then(toml::Value::as_bool) == Some(true)
}

#[test]
fn the_engine_and_the_bindings_build_without_the_command_line() {
    let core = dependencies("crates/core/Cargo.toml");
    assert!(
        !core.contains_key("toolcheck"),
        "toolcheck-core depends on the command line"
    );
    assert!(
        core.get("clap").is_some_and(optional),
        "toolcheck-core's clap must stay optional (its `clap` feature)"
    );
    for dep in [
        "clap_complete",
        "clap_mangen",
        "lsp-server",
        "lsp-types",
        "mimalloc",
    ] {
        assert!(
            !core.contains_key(dep),
            "toolcheck-core depends on {dep}, a command-line crate"
        );
    }
    for dep in ["tokio", "hyper", "hyper-rustls"] {
        assert!(
            !core.contains_key(dep),
            "toolcheck-core depends on {dep}, the gateway's stack"
        );
    }
    let cli = dependencies("Cargo.toml");
    assert!(cli.contains_key("toolcheck-core"));
    assert!(
        cli.get("toolcheck-proxy").is_some_and(optional),
        "the command line's gateway must stay optional (its `proxy` feature)"
    );
    // The Node addon is the engine only; the Python extension runs the command line in
    // process (its `toolcheck` script) only with its `cli` feature.
    let node = dependencies("node/Cargo.toml");
    assert!(
        !node.contains_key("toolcheck"),
        "the Node addon links the command line"
    );
    let python = dependencies("python/Cargo.toml");
    assert!(
        python.get("toolcheck").is_none_or(optional),
        "the Python extension links the command line unconditionally"
    );
    let no_defaults = |entry: &toml::Value| {
        entry.get("default-features").and_then(toml::Value::as_bool) == Some(false)
    };
    assert!(
        python.get("toolcheck").is_none_or(no_defaults),
        "the Python extension's command line must be built without the gateway"
    );
    assert!(!node.contains_key("toolcheck-proxy") && !python.contains_key("toolcheck-proxy"));
    for (name, deps) in [("node", &node), ("python", &python)] {
        let core = deps
            .get("toolcheck-core")
            .unwrap_or_else(|| panic!("{name}/Cargo.toml does not depend on toolcheck-core"));
        assert!(
            !turns_on(core, "clap"),
            "{name}/Cargo.toml turns on toolcheck-core's clap feature"
        );
    }
}

#[test]
fn every_layer_is_counted_in_one_crate() {
    assert_eq!(LAYER_CRATES.iter().sum::<usize>(), LAYERS.len());
    assert_eq!(LAYER_CRATES.len(), CRATES.len());
}
