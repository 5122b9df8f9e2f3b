//! Every input the fuzzers ever crashed on (`fuzz/regressions/`), replayed through the fuzz
//! targets' own checks on stable Rust: `lint-*` inputs through the lint check, `fix-*` inputs
//! through the fix check (which lints too), `store-*` inputs through the store check, `tree-*`
//! inputs through the tree check.

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
        } else if name.starts_with("tree-") {
            toolcheck_fuzz::tree_check::check(&data);
        } else {
            panic!("{name}: a regression input's name starts with its target");
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} regression inputs found");
}
