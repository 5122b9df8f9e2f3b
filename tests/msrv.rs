//! The declared `rust-version` is at least what every locked dependency requires.

use std::process::Command;

fn version(text: &str) -> Vec<u64> {
    text.split('.')
        .map(|part| part.parse().unwrap_or(0))
        .chain(std::iter::repeat(0))
        .take(3)
        .collect()
}

#[test]
fn declared_msrv_covers_every_locked_dependency() {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let declared = env!("CARGO_PKG_RUST_VERSION");
    assert!(!declared.is_empty(), "Cargo.toml declares rust-version");

    let mut too_new: Vec<String> = packages
        .iter()
        .filter_map(|p| {
            let needs = p["rust_version"].as_str()?;
            (version(needs) > version(declared)).then(|| {
                format!(
                    "{} {} needs Rust {needs}",
                    p["name"].as_str().unwrap_or("?"),
                    p["version"].as_str().unwrap_or("?")
                )
            })
        })
        .collect();
    too_new.sort();
    assert!(
        too_new.is_empty(),
        "rust-version = \"{declared}\" in Cargo.toml is lower than what the locked \
         dependencies need; raise it (and docs/install.md):\n{}",
        too_new.join("\n")
    );
    assert!(packages.len() > 50, "the whole locked graph is listed");
}
