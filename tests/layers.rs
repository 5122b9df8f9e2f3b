//! The crate's layers, held against its own imports.
//!
//! [`LAYERS`] is the one list of layers: every top-level module of `src/` sits in exactly one,
//! a module imports only from its own layer or those below, and the modules of one layer do
//! not import each other in a circle. `docs/architecture.md`'s layer table is written from the
//! list (`UPDATE_DOCS=1 cargo test --test tests layers::` rewrites it). No source file holds
//! more than [`MAX_LINES`] lines of non-test code.
//!
//! Imports are read from the text: `crate::name` paths and `use crate::{…}` groups, outside
//! comments, string literals and `#[cfg(test)]` modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common;

/// The layers, from the bottom up: a name, what it is for, and its top-level modules.
const LAYERS: &[(&str, &str, &[&str])] = &[
    (
        "text",
        "bytes, text, spans and pointers, the JSON tree, names of formats and providers",
        &[
            "encoding", "escape", "stdout", "progress", "read", "format", "provider", "pointer",
            "source", "tree",
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
        "where inputs come from and what they are: SQLite stores, session folders, compressed logs, opened inputs, directory walks, agents' session stores",
        &["store", "folder", "zstd_log", "input", "stream", "discover", "agents"],
    ),
    ("output", "the emitters, one per output format", &["report"]),
    (
        "configuration",
        "the command line, config files, each file's settings, generated docs",
        &["cli", "config", "settings", "docs"],
    ),
    (
        "commands",
        "the commands, and the embedding API (Python, benchmarks, fuzzing)",
        &["app", "embed"],
    ),
];

/// The most lines of non-test code one source file may hold.
const MAX_LINES: usize = 800;

pub(crate) fn src() -> PathBuf {
    common::root().join("src")
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
    let rel = file.strip_prefix(src()).ok()?;
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
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
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
                "src/{module}: in no layer; add it to LAYERS in tests/layers.rs"
            ));
        }
    }
    for (_, _, modules) in LAYERS {
        for m in *modules {
            if !edges.contains_key(*m) {
                problems.push(format!("LAYERS names `{m}`, which src/ does not hold"));
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
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let bare: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(src().join("tree")))
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
    let mut out = String::from("| layer | modules | what |\n|---|---|---|\n");
    for (name, what, modules) in LAYERS.iter().rev() {
        let modules: Vec<String> = modules.iter().map(|m| format!("`{m}`")).collect();
        out.push_str(&format!("| {name} | {} | {what} |\n", modules.join(", ")));
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
