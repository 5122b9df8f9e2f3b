//! Every input the fuzzers ever crashed on (`fuzz/regressions/`), replayed through the fuzz
//! targets' own checks on stable Rust: `lint-*` inputs through the lint check, `fix-*` inputs
//! through the fix check (which lints too), `store-*`, `folder-*`, `doctor-*`, `lsp-*` and
//! `tree-*` inputs through those targets' checks (the `lsp` check starts this crate's binary).
//! `fuzz/regressions/open/` holds crashes found and not fixed yet, which are not replayed: a
//! fix moves its input up into `fuzz/regressions/`.

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod toolcheck_fuzz;

#[test]
fn every_fuzz_regression_input_passes_its_target() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/regressions exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let data = std::fs::read(&path).expect("readable");
        if name.starts_with("lint-") {
            toolcheck_fuzz::lint_check::check(&data);
        } else if name.starts_with("fix-") {
            toolcheck_fuzz::lint_check::check(&data);
            toolcheck_fuzz::fix_check::check(&data);
        } else if name.starts_with("store-") {
            toolcheck_fuzz::store_check::check(&data);
        } else if name.starts_with("folder-") {
            toolcheck_fuzz::folder_check::check(&data);
        } else if name.starts_with("doctor-") {
            toolcheck_fuzz::doctor_check::check(&data);
        } else if name.starts_with("lsp-") {
            toolcheck_fuzz::lsp_check::check(&data);
        } else if name.starts_with("tree-") {
            toolcheck_fuzz::tree_check::check(&data);
        } else {
            panic!("{name}: a regression input's name starts with its target");
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} regression inputs found");
}
