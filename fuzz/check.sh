#!/usr/bin/env bash
# Type-checks the fuzz targets on stable Rust, for CI: no nightly, no C++ compiler needed
# (`--no-default-features` leaves out linking libFuzzer, whose C++ sources only
# `cargo fuzz build` compiles). Running the targets needs nightly: see docs/contributing.md, "Fuzzing".
set -euo pipefail
cd "$(dirname "$0")/.."
cargo check --manifest-path fuzz/Cargo.toml --locked --no-default-features --bins --lib
